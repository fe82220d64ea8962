/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The failure schedule of a multi-process testbed (gen_sched.h): each
 * failed link's switch ends get a [failure.NAME], and every change
 * routing makes to a group's weights, as ofan-fabric's control plane
 * (fab_control.c) makes it, becomes a [reroute.NAME] of that switch.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gen_sched.h"
#include "hs_cm.h"
#include "sw_config.h"

/* When routing changes because of failure `failure`. */
struct gen_sched_event {
	uint64_t at_ns;
	uint16_t failure;
	bool restore;		/* the link is back; else routing converged */
};

struct gen_sched {
	const struct fab_params *p;
	struct fab_topo *t;
	uint16_t **init;	/* [switch][group * LB_MAX_MEMBERS + member] */
	uint16_t **cur;		/* the same, as the events go */
	uint16_t **next;
	/* Each switch's sections, built in memory (NULL: none). */
	char **text;
	size_t *text_len;
	FILE **out;
	uint16_t *nb_reroutes;	/* per switch */
	bool *has_failure;	/* per switch */
	uint32_t nb_failures;
	uint32_t total_reroutes;
};

static size_t
gen_sched_size(const struct fab_topo *t, uint32_t s)
{
	return sizeof(uint16_t) * LB_MAX_MEMBERS *
		(t->cfg[s].nb_groups ? t->cfg[s].nb_groups : 1);
}

/* fab_topo_weights() callback: member `port` of group grp of switch sw. */
static void
gen_sched_set(void *arg, uint32_t sw, uint16_t grp, uint16_t port,
	      uint16_t weight)
{
	struct gen_sched *g = arg;
	const struct sw_group_config *gc = &g->t->cfg[sw].groups[grp];
	uint16_t m;

	for (m = 0; m < gc->nb_members; m++)
		if (gc->port[m] == port)
			g->next[sw][grp * LB_MAX_MEMBERS + m] = weight;
}

/* Switch s's stream, opened on first use. */
static FILE *
gen_sched_stream(struct gen_sched *g, uint32_t s)
{
	if (g->out[s] == NULL)
		g->out[s] = open_memstream(&g->text[s], &g->text_len[s]);
	return g->out[s];
}

/* The failure's own name: "hole" of [failure.hole]. */
static const char *
gen_sched_name(const struct gen_sched *g, const struct fab_failure *f)
{
	static char name[sizeof(f->sec) + sizeof(f->link) + 1];
	const char *dot = strchr(f->sec, '.');
	uint16_t i, same = 0;

	/* A section of several links: one failure each, named by link. */
	for (i = 0; i < g->p->nb_failures; i++)
		same += strcmp(g->p->failures[i].sec, f->sec) == 0;
	snprintf(name, sizeof(name), same > 1 ? "%s-%s" : "%s",
		 dot != NULL ? dot + 1 : f->sec, f->link);
	return name;
}

/* [failures] and [failure.NAME] at the switch ends of failure i. */
static int
gen_sched_failure(struct gen_sched *g, uint16_t i)
{
	const struct fab_failure *f = &g->p->failures[i];
	const struct fab_link_desc *k =
		&g->t->links[fab_topo_find_link(g->t, f->link)];
	int e;

	for (e = 0; e < 2; e++) {
		uint32_t s = k->node[e];
		FILE *o;

		if (k->is_host[e])
			continue;	/* a host's end: the switch's is enough */
		o = gen_sched_stream(g, s);
		if (o == NULL)
			return -ENOMEM;
		if (!g->has_failure[s])
			fprintf(o, "\n; When a failed link's switch notices it (down), and when\n"
				"; routing routes around it (blackhole), as ofan-fabric's [fabric].\n"
				"[failures]\ndetect_delay = %lluns\nreconverge_delay = %lluns\n",
				(unsigned long long)g->p->detect_delay_ns,
				(unsigned long long)g->p->reconverge_delay_ns);
		g->has_failure[s] = true;
		fprintf(o, "\n; Link %s (%s of the experiment), this switch's end.\n"
			"[failure.%s]\nport = %u\nmode = %s\nat = %lluns\nduration = %lluns\n",
			f->link, f->sec, gen_sched_name(g, f), k->port[e],
			sw_link_state_names[f->mode],
			(unsigned long long)f->at_ns,
			(unsigned long long)f->duration_ns);
		if (f->mode == SW_LINK_DEGRADED)
			fprintf(o, "rate = %llu\n",
				(unsigned long long)f->rate_bps);
	}
	return 0;
}

/*
 * [drop.*] i: a lossy link direction becomes a [drop.NAME] of its
 * sending switch's egress port (ofan-switch loses the frames as they
 * enter it).  A host's NIC cannot, nor can a switch drop the N-th frame.
 */
static int
gen_sched_drop(struct gen_sched *g, uint16_t i, char *err, size_t err_size)
{
	const struct fab_drop *d = &g->p->drops[i];
	uint32_t dir = fab_topo_find_dir(g->t, d->link);
	const struct fab_link_desc *k = &g->t->links[dir / 2];
	const struct ofan_loss_cfg *l = &d->loss;
	uint32_t e = dir % 2, s = k->node[e];
	const char *dot = strchr(d->sec, '.');
	FILE *o;

	if (d->mode == FAB_DROP_FRAMES || k->is_host[e]) {
		snprintf(err, err_size, "%s:link: '%s' %s; expected a lossy switch port (mode = random or bursts, sent by a switch) in a testbed",
			 d->sec, d->link, k->is_host[e] ?
			 "is sent by a host, whose NIC cannot lose frames on purpose" :
			 "drops counted frames, which ofan-switch cannot");
		return -EINVAL;
	}
	o = gen_sched_stream(g, s);
	if (o == NULL)
		return -ENOMEM;
	fprintf(o, "\n; Link %s (%s of the experiment): this switch's egress loses frames.\n"
		"[drop.%s-%s]\nport = %u\nmode = %s\n",
		d->link, d->sec, dot != NULL ? dot + 1 : d->sec, d->link,
		k->port[e], fab_drop_mode_names[d->mode]);
	if (d->mode == FAB_DROP_RANDOM)
		fprintf(o, "rate = %.17g\n", l->rate);
	else
		fprintf(o, "every = %lluns\nlength = %lluns\nfirst = %lluns\nlength_fixed = %s\n",
			(unsigned long long)l->every_ns,
			(unsigned long long)l->length_ns,
			(unsigned long long)l->first_ns,
			l->length_fixed ? "yes" : "no");
	return 0;
}

/* Routing at ev: every group whose weights change gets a reroute. */
static int
gen_sched_route(struct gen_sched *g, const struct gen_sched_event *ev,
		char *err, size_t err_size)
{
	const struct fab_failure *f = &g->p->failures[ev->failure];
	struct fab_topo *t = g->t;
	uint32_t s;
	uint16_t grp, m;

	t->alive[fab_topo_find_link(t, f->link)] = ev->restore;
	for (s = 0; s < t->nb_switches; s++)
		memcpy(g->next[s], g->cur[s], gen_sched_size(t, s));
	fab_topo_weights(t, gen_sched_set, g);
	for (s = 0; s < t->nb_switches; s++) {
		const struct sw_config *c = &t->cfg[s];

		for (grp = 0; grp < c->nb_groups; grp++) {
			const uint16_t *w = &g->next[s][grp * LB_MAX_MEMBERS];
			FILE *o;

			if (memcmp(w, &g->cur[s][grp * LB_MAX_MEMBERS],
				   sizeof(*w) * c->groups[grp].nb_members) == 0)
				continue;
			if (g->nb_reroutes[s] == SW_MAX_REROUTES) {
				snprintf(err, err_size, "%s:link: '%s' makes %s need more than %d reroutes (group weight changes) with the failures before it; expected fewer failures (a switch takes %d [reroute.*])",
					 f->sec, f->link, t->sw[s].name,
					 SW_MAX_REROUTES, SW_MAX_REROUTES);
				return -E2BIG;
			}
			o = gen_sched_stream(g, s);
			if (o == NULL)
				return -ENOMEM;
			fprintf(o, "\n; [%s] %s: routing's new live paths.\n"
				"[reroute.%.30s-%u]\nat = %lluns\ngroup = %s\nweights = ",
				f->sec, ev->restore ? "restored" :
				"routed around", gen_sched_name(g, f),
				g->nb_reroutes[s],
				(unsigned long long)ev->at_ns,
				c->groups[grp].name);
			for (m = 0; m < c->groups[grp].nb_members; m++)
				fprintf(o, "%s%u", m ? ", " : "", w[m]);
			fputc('\n', o);
			g->nb_reroutes[s]++;
			g->total_reroutes++;
		}
		memcpy(g->cur[s], g->next[s], gen_sched_size(t, s));
	}
	return 0;
}

static int
gen_sched_cmp(const void *a, const void *b)
{
	const struct gen_sched_event *x = a, *y = b;

	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	if (x->failure != y->failure)
		return x->failure < y->failure ? -1 : 1;
	return (int)x->restore - (int)y->restore;
}

/*
 * The routing events of p's failures, in the fabric's order: routing
 * converges reconverge_delay after a down or black-holed link fails
 * (unless it came back before, or the failure says reroute = no), and
 * changes again when it comes back.
 * A degraded link keeps its paths.
 */
static uint32_t
gen_sched_events(const struct fab_params *p, struct gen_sched_event *ev)
{
	uint32_t n = 0;
	uint16_t i;

	for (i = 0; i < p->nb_failures; i++) {
		const struct fab_failure *f = &p->failures[i];

		if (f->mode == SW_LINK_DEGRADED)
			continue;
		if (f->reroute && (f->duration_ns == 0 ||
				   p->reconverge_delay_ns < f->duration_ns))
			ev[n++] = (struct gen_sched_event){
				.at_ns = f->at_ns + p->reconverge_delay_ns,
				.failure = i,
			};
		if (f->duration_ns != 0)
			ev[n++] = (struct gen_sched_event){
				.at_ns = f->at_ns + f->duration_ns,
				.failure = i,
				.restore = true,
			};
	}
	qsort(ev, n, sizeof(*ev), gen_sched_cmp);
	return n;
}

struct gen_sched *
gen_sched_build(const struct fab_params *p, struct fab_topo *t, char *err,
		size_t err_size)
{
	struct gen_sched_event ev[2 * FAB_MAX_FAILURES];
	uint32_t s, i, n;
	struct gen_sched *g;
	int rc = 0;

	for (i = 0; i < p->nb_failures; i++)
		if (p->failures[i].at_start) {
			snprintf(err, err_size, "traffic:cm_file: '%s' has failure lines, which remove links before the traffic starts; expected [failure.NAME] sections in a multi-process testbed (ofan-fabric runs the .cm failures)",
				 hs_cm_path_of(p->host.traffic.pattern,
					       &p->host.pattern_set));
			return NULL;
		}
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		goto nomem;
	g->p = p;
	g->t = t;
	g->init = calloc(t->nb_switches, sizeof(*g->init));
	g->cur = calloc(t->nb_switches, sizeof(*g->cur));
	g->next = calloc(t->nb_switches, sizeof(*g->next));
	g->text = calloc(t->nb_switches, sizeof(*g->text));
	g->text_len = calloc(t->nb_switches, sizeof(*g->text_len));
	g->out = calloc(t->nb_switches, sizeof(*g->out));
	g->nb_reroutes = calloc(t->nb_switches, sizeof(*g->nb_reroutes));
	g->has_failure = calloc(t->nb_switches, sizeof(*g->has_failure));
	if (g->init == NULL || g->cur == NULL || g->next == NULL ||
	    g->text == NULL || g->text_len == NULL || g->out == NULL ||
	    g->nb_reroutes == NULL || g->has_failure == NULL)
		goto nomem;
	for (s = 0; s < t->nb_switches; s++) {
		const struct sw_config *c = &t->cfg[s];
		uint16_t grp;

		g->init[s] = calloc(1, gen_sched_size(t, s));
		g->cur[s] = calloc(1, gen_sched_size(t, s));
		g->next[s] = calloc(1, gen_sched_size(t, s));
		if (g->init[s] == NULL || g->cur[s] == NULL ||
		    g->next[s] == NULL)
			goto nomem;
		for (grp = 0; grp < c->nb_groups; grp++)
			memcpy(&g->next[s][grp * LB_MAX_MEMBERS],
			       c->groups[grp].weight,
			       sizeof(uint16_t) * c->groups[grp].nb_members);
	}
	/* The live-path weights of the whole fabric, before any failure. */
	for (i = 0; i < t->nb_links; i++)
		t->alive[i] = true;
	fab_topo_weights(t, gen_sched_set, g);
	for (s = 0; s < t->nb_switches; s++) {
		memcpy(g->init[s], g->next[s], gen_sched_size(t, s));
		memcpy(g->cur[s], g->next[s], gen_sched_size(t, s));
	}
	for (i = 0; i < p->nb_failures && rc == 0; i++)
		rc = gen_sched_failure(g, (uint16_t)i);
	for (i = 0; i < p->nb_drops && rc == 0; i++)
		rc = gen_sched_drop(g, (uint16_t)i, err, err_size);
	g->nb_failures = p->nb_failures;
	n = gen_sched_events(p, ev);
	for (i = 0; i < n && rc == 0; i++)
		rc = gen_sched_route(g, &ev[i], err, err_size);
	for (i = 0; i < t->nb_links; i++)
		t->alive[i] = true;
	for (s = 0; s < t->nb_switches && rc == 0; s++)
		if (g->out[s] != NULL && fflush(g->out[s]) != 0)
			rc = -ENOMEM;
	if (rc == 0)
		return g;
	if (rc == -ENOMEM)
		snprintf(err, err_size, "out of memory for the failure schedule");
	gen_sched_free(g);	/* err says why */
	return NULL;
nomem:
	snprintf(err, err_size, "out of memory for the failure schedule");
	gen_sched_free(g);
	return NULL;
}

void
gen_sched_free(struct gen_sched *g)
{
	uint32_t s;

	if (g == NULL)
		return;
	for (s = 0; s < g->t->nb_switches; s++) {
		if (g->init != NULL)
			free(g->init[s]);
		if (g->cur != NULL)
			free(g->cur[s]);
		if (g->next != NULL)
			free(g->next[s]);
		if (g->out != NULL && g->out[s] != NULL)
			fclose(g->out[s]);
		if (g->text != NULL)
			free(g->text[s]);
	}
	free(g->init);
	free(g->cur);
	free(g->next);
	free(g->out);
	free(g->text);
	free(g->text_len);
	free(g->nb_reroutes);
	free(g->has_failure);
	free(g);
}

const uint16_t *
gen_sched_weights(const struct gen_sched *g, uint32_t s, uint16_t grp)
{
	return &g->init[s][grp * LB_MAX_MEMBERS];
}

int
gen_sched_write(const struct gen_sched *g, uint32_t s, FILE *f)
{
	if (g->out[s] == NULL || g->text_len[s] == 0)
		return 0;
	return fwrite(g->text[s], 1, g->text_len[s], f) == g->text_len[s] ?
	       0 : -EIO;
}

void
gen_sched_counts(const struct gen_sched *g, uint32_t *failures,
		 uint32_t *reroutes)
{
	*failures = g->nb_failures;
	*reroutes = g->total_reroutes;
}
