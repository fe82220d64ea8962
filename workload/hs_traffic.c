/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic (hs_traffic.h): the driver that expands a pattern (hs_pattern.c)
 * into flows, the index of who sends and receives what, the flows released
 * together, the ideal schedule and the triggers' state.
 *
 * Every generated pattern is built the same way: the pattern's fill
 * function writes one iteration (flows numbered from 0, dependencies
 * inside the iteration only), and the driver copies it once per iteration,
 * chaining iterations through the dep field.  Because a flow has a single
 * dep, "iteration k + 1 starts after iteration k" is expressed per rank:
 * a flow of iteration k + 1 that has no dependency inside its iteration
 * waits for the flow of iteration k that its source receives *last in list
 * order*.  For the ring collectives that is the last ring step, so the
 * chain is exact.  For the other patterns it is an approximation: an
 * incast's senders receive nothing, so their iterations overlap.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_traffic.h"

/* The index hs_traffic_index() built (hs_traffic.h), if any. */
static void
hs_traffic_index_free(struct hs_traffic *t)
{
	free(t->sent_first);
	free(t->sent);
	free(t->recv_first);
	free(t->recv);
	free(t->src_pos);
	free(t->dst_pos);
	free(t->child_first);
	free(t->child_next);
	t->sent_first = t->sent = t->recv_first = t->recv = NULL;
	t->src_pos = t->dst_pos = t->child_first = t->child_next = NULL;
}

void
hs_traffic_free(struct hs_traffic *t)
{
	if (t == NULL)
		return;
	free(t->flows);
	free(t->triggers);
	free(t->trigger_targets);
	free(t->failures);
	free(t->concurrency);
	hs_traffic_index_free(t);
	memset(t, 0, sizeof(*t));
}

/*
 * Flows released together share a group key; a multishot's flows each
 * have their own (single = their index).
 */
struct hs_group_key {
	uint32_t src, iteration, step, trigger, single, wl_op;
	uint64_t start_ns;
	uint32_t flow;		/* not part of the key */
};

static int
hs_cmp_group_key(const struct hs_group_key *x, const struct hs_group_key *y)
{
#define HS_CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	HS_CMP(src);
	HS_CMP(wl_op);
	HS_CMP(iteration);
	HS_CMP(step);
	HS_CMP(trigger);
	HS_CMP(start_ns);
	HS_CMP(single);
#undef HS_CMP
	return 0;
}

static int
hs_cmp_group(const void *a, const void *b)
{
	const struct hs_group_key *x = a, *y = b;
	int c = hs_cmp_group_key(x, y);

	return c != 0 ? c : (x->flow > y->flow) - (x->flow < y->flow);
}

/* t's per-rank flow lists, positions and dependants (hs_traffic.h). */
static int
hs_traffic_index(struct hs_traffic *t)
{
	uint32_t n = t->nb_flows, nr = t->nb_ranks, i, *fill_s, *fill_r;

	hs_traffic_index_free(t);
	t->sent_first = calloc(nr + 2, sizeof(uint32_t));
	t->recv_first = calloc(nr + 2, sizeof(uint32_t));
	t->sent = malloc((n + 1) * sizeof(uint32_t));
	t->recv = malloc((n + 1) * sizeof(uint32_t));
	t->src_pos = malloc((n + 1) * sizeof(uint32_t));
	t->dst_pos = malloc((n + 1) * sizeof(uint32_t));
	t->child_first = malloc((n + 1) * sizeof(uint32_t));
	t->child_next = malloc((n + 1) * sizeof(uint32_t));
	if (t->sent_first == NULL || t->recv_first == NULL ||
	    t->sent == NULL || t->recv == NULL || t->src_pos == NULL ||
	    t->dst_pos == NULL || t->child_first == NULL ||
	    t->child_next == NULL)
		return -ENOMEM;
	/* Counts, then first positions, then the lists in id order. */
	for (i = 0; i < n; i++) {
		if (t->flows[i].src < nr)
			t->sent_first[t->flows[i].src + 1]++;
		if (t->flows[i].dst < nr)
			t->recv_first[t->flows[i].dst + 1]++;
	}
	for (i = 0; i < nr; i++) {
		t->sent_first[i + 1] += t->sent_first[i];
		t->recv_first[i + 1] += t->recv_first[i];
	}
	fill_s = calloc(nr + 1, sizeof(uint32_t));
	fill_r = calloc(nr + 1, sizeof(uint32_t));
	if (fill_s == NULL || fill_r == NULL) {
		free(fill_s);
		free(fill_r);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		t->child_first[i] = HS_NO_DEP;
	for (i = 0; i < n; i++) {
		const struct hs_flow_spec *f = &t->flows[i];

		t->src_pos[i] = t->dst_pos[i] = HS_NO_DEP;
		if (f->src < nr) {
			t->src_pos[i] = fill_s[f->src]++;
			t->sent[t->sent_first[f->src] + t->src_pos[i]] = i;
		}
		if (f->dst < nr) {
			t->dst_pos[i] = fill_r[f->dst]++;
			t->recv[t->recv_first[f->dst] + t->dst_pos[i]] = i;
		}
		/* Newest first: a host wakes its waiting flows in that order. */
		t->child_next[i] = HS_NO_DEP;
		if (f->dep != HS_NO_DEP && f->dep < n) {
			t->child_next[i] = t->child_first[f->dep];
			t->child_first[f->dep] = i;
		}
	}
	free(fill_s);
	free(fill_r);
	return 0;
}

int
hs_traffic_derive(struct hs_traffic *t)
{
	struct hs_group_key *k;
	uint32_t i, j, m, n = t->nb_flows;

	free(t->concurrency);
	t->concurrency = calloc(n + 1, sizeof(*t->concurrency));
	k = malloc(sizeof(*k) * (n + 1));
	if (t->concurrency == NULL || k == NULL) {
		free(k);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct hs_flow_spec *f = &t->flows[i];
		bool alone = f->trigger != HS_NO_TRIGGER &&
			t->triggers[f->trigger].kind == HS_TRIG_MULTISHOT;

		k[i] = (struct hs_group_key){
			.src = f->src, .iteration = f->iteration,
			.step = f->step, .trigger = f->trigger,
			.start_ns = f->trigger == HS_NO_TRIGGER ?
				f->start_ns : 0,
			.single = alone ? i : UINT32_MAX,
			.wl_op = f->wl_op,
			.flow = i,
		};
	}
	qsort(k, n, sizeof(*k), hs_cmp_group);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && hs_cmp_group_key(&k[i], &k[j]) == 0;
		     j++)
			;
		for (m = i; m < j; m++)
			t->concurrency[k[m].flow] = j - i;
	}
	free(k);
	return hs_traffic_index(t);
}

/* An ideal flow end: (time, flow, which end) in time order. */
struct hs_ideal_ev {
	uint64_t t;
	uint32_t flow;
	uint8_t recv;		/* 0: the sender's end, 1: the receiver's */
};

static bool
hs_ideal_before(const struct hs_ideal_ev *a, const struct hs_ideal_ev *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->flow != b->flow)
		return a->flow < b->flow;
	return a->recv < b->recv;
}

static void
hs_ideal_push(struct hs_ideal_ev *h, uint32_t *n, struct hs_ideal_ev e)
{
	uint32_t i = (*n)++;

	while (i > 0 && hs_ideal_before(&e, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = e;
}

static struct hs_ideal_ev
hs_ideal_pop(struct hs_ideal_ev *h, uint32_t *n)
{
	struct hs_ideal_ev top = h[0], last = h[--*n];
	uint32_t i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && hs_ideal_before(&h[c + 1], &h[c]))
			c++;
		if (!hs_ideal_before(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = last;
	return top;
}

/* The ideal run of hs_traffic_ideal_begin(): an event heap of flow ends. */
struct hs_ideal_run {
	const uint64_t *send_ns, *recv_ns;
	uint64_t *begin;
	struct hs_ideal_ev *h;
	uint32_t nh;
};

static void
hs_ideal_start(struct hs_ideal_run *r, uint32_t f, uint64_t at)
{
	if (r->begin[f] != UINT64_MAX)
		return;
	r->begin[f] = at;
	hs_ideal_push(r->h, &r->nh, (struct hs_ideal_ev){
		at + r->send_ns[f], f, 0 });
	hs_ideal_push(r->h, &r->nh, (struct hs_ideal_ev){
		at + r->recv_ns[f], f, 1 });
}

/* A flow that waits for nothing but its start time. */
static bool
hs_flow_is_root(const struct hs_traffic *t, const struct hs_flow_spec *f)
{
	/* A workload's flows begin when it says (hs_wl_ideal()). */
	return f->trigger == HS_NO_TRIGGER && f->wl_op == 0 &&
		(f->dep == HS_NO_DEP || f->dep >= t->nb_flows);
}

int
hs_traffic_ideal_begin(const struct hs_traffic *t, const uint64_t *send_ns,
		       const uint64_t *recv_ns, uint64_t late_ns,
		       uint64_t *begin)
{
	struct hs_ideal_run r = { .send_ns = send_ns, .recv_ns = recv_ns,
				  .begin = begin };
	uint32_t n = t->nb_flows, i, k;
	uint64_t earliest = UINT64_MAX;
	uint32_t *children = malloc(sizeof(*children) * (n + 1));
	uint32_t *first = malloc(sizeof(*first) * (n + 1));
	struct hs_trigger_state st = { .activations = NULL };
	int rc = 0;

	r.h = malloc(sizeof(*r.h) * (2 * (size_t)n + 1));
	if (r.h == NULL || children == NULL || first == NULL ||
	    hs_trigger_state_init(&st, t) != 0) {
		rc = -ENOMEM;
		goto out;
	}
	/* Flows waiting for the reception of flow d: a list per d. */
	for (i = 0; i < n; i++)
		first[i] = UINT32_MAX;
	for (i = n; i-- > 0; ) {
		uint32_t d = t->flows[i].dep;

		children[i] = UINT32_MAX;
		if (d != HS_NO_DEP && d < n) {
			children[i] = first[d];
			first[d] = i;
		}
	}
	for (i = 0; i < n; i++)
		begin[i] = UINT64_MAX;
	/* The latest the first flow can start (see hs_traffic.h). */
	for (i = 0; i < n; i++)
		if (hs_flow_is_root(t, &t->flows[i]) &&
		    t->flows[i].start_ns < earliest)
			earliest = t->flows[i].start_ns;
	earliest = earliest > UINT64_MAX - late_ns ? UINT64_MAX :
		earliest + late_ns;
	for (i = 0; i < n; i++) {
		const struct hs_flow_spec *f = &t->flows[i];

		if (hs_flow_is_root(t, f))
			hs_ideal_start(&r, i, f->start_ns > earliest ?
				       f->start_ns : earliest);
	}
	while (r.nh > 0) {
		struct hs_ideal_ev e = hs_ideal_pop(r.h, &r.nh);
		const struct hs_flow_spec *f = &t->flows[e.flow];
		uint32_t tr = e.recv ? f->recv_done_trigger :
			f->send_done_trigger;
		const uint32_t *go = NULL;
		uint32_t nb_go = 0;

		if (tr != HS_NO_TRIGGER)
			nb_go = hs_trigger_activate(t, &st, tr, &go);
		for (k = 0; k < nb_go; k++)
			hs_ideal_start(&r, go[k], e.t);
		/* Dependants begin at their input's arrival, not before
		 * their own start time. */
		if (e.recv)
			for (k = first[e.flow]; k != UINT32_MAX;
			     k = children[k])
				hs_ideal_start(&r, k,
					e.t > t->flows[k].start_ns ? e.t :
					t->flows[k].start_ns);
	}
out:
	hs_trigger_state_fini(&st);
	free(r.h);
	free(children);
	free(first);
	return rc;
}

int
hs_trigger_state_init(struct hs_trigger_state *st, const struct hs_traffic *t)
{
	st->activations = calloc(t->nb_triggers + 1, sizeof(*st->activations));
	return st->activations == NULL ? -ENOMEM : 0;
}

void
hs_trigger_state_fini(struct hs_trigger_state *st)
{
	free(st->activations);
	st->activations = NULL;
}

uint32_t
hs_trigger_activate(const struct hs_traffic *t, struct hs_trigger_state *st,
		    uint32_t tr, const uint32_t **flows)
{
	const struct hs_trigger *g;
	uint32_t n;

	*flows = NULL;
	if (tr >= t->nb_triggers)
		return 0;
	g = &t->triggers[tr];
	n = ++st->activations[tr];
	switch (g->kind) {
	case HS_TRIG_ONESHOT:
		if (n != 1)
			return 0;
		break;
	case HS_TRIG_MULTISHOT:
		if (n > g->nb_targets)
			return 0;
		*flows = &t->trigger_targets[g->first_target + n - 1];
		return 1;
	default:
		if (n != g->count)
			return 0;
		break;
	}
	*flows = &t->trigger_targets[g->first_target];
	return g->nb_targets;
}

uint32_t
hs_trigger_flow_end(const struct hs_traffic *t, struct hs_trigger_state *st,
		    uint32_t flow, bool received, const uint32_t **flows)
{
	const struct hs_flow_spec *f = &t->flows[flow];

	return hs_trigger_activate(t, st, received ? f->recv_done_trigger :
				   f->send_done_trigger, flows);
}

int
hs_traffic_trigger_split(const struct hs_traffic *t,
			 const uint16_t *part_of_rank, uint32_t *split)
{
	uint32_t *owner = malloc(sizeof(*owner) * (t->nb_triggers + 1));
	uint32_t i, k;

	*split = HS_NO_TRIGGER;
	if (owner == NULL)
		return -ENOMEM;
	for (i = 0; i < t->nb_triggers; i++)
		owner[i] = UINT32_MAX;
	for (i = 0; i < t->nb_flows; i++) {
		const struct hs_flow_spec *f = &t->flows[i];
		uint32_t tg[3] = { f->trigger, f->send_done_trigger,
				   f->recv_done_trigger };
		/* Where it starts, where it is acknowledged, received. */
		uint32_t rank[3] = { f->src, f->src, f->dst };

		for (k = 0; k < 3; k++) {
			uint32_t part;

			if (tg[k] == HS_NO_TRIGGER)
				continue;
			part = part_of_rank[rank[k]];
			if (owner[tg[k]] == UINT32_MAX)
				owner[tg[k]] = part;
			else if (owner[tg[k]] != part && tg[k] < *split)
				*split = tg[k];
		}
	}
	free(owner);
	return 0;
}
