/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The .cm reader's whole-file side (hs_cm.c reads the lines; the rules
 * are in its header comment): the header's counts, flow and trigger ids
 * resolved, every trigger's activators and targets checked, trigger
 * cycles refused, the entry points hs_traffic_parse_cm() and
 * hs_traffic_load_cm(), and the pattern that replays a file (hs_cm.h).
 */
#include "hs_cm_priv.h"

/* Resolve the flows' trigger ids into indexes. */
static int
cm_resolve(struct cm_parser *p)
{
	char what[CM_WHAT_SIZE], text[32];
	uint32_t f, r;

	for (f = 0; f < p->nb_flows; f++) {
		struct cm_flow_extra *x = &p->extra[f];
		uint32_t *dst[CM_NB_REF] = {
			&p->flows[f].trigger, &p->flows[f].send_done_trigger,
			&p->flows[f].recv_done_trigger
		};

		for (r = 0; r < CM_NB_REF; r++) {
			const struct cm_slot *s;

			if (x->ref[r] == 0)
				continue;
			s = cm_map_find(&p->trig_ids, x->ref[r]);
			if (s == NULL) {
				snprintf(what, sizeof(what),
					 "%s names an undefined trigger",
					 cm_ref_names[r]);
				snprintf(text, sizeof(text), "%" PRIu32,
					 x->ref[r]);
				return cm_fail_at(p, x->line, what, text,
						  "a trigger defined by a line 'trigger id N ...'");
			}
			*dst[r] = s->index;
		}
	}
	return 0;
}

/* Each trigger's flows, in file order; activator counts. */
static int
cm_targets(struct cm_parser *p, uint32_t **targets)
{
	uint32_t *fill, f, t, at = 0;

	*targets = malloc(sizeof(**targets) * (p->nb_flows + 1));
	fill = calloc(p->nb_trigs + 1, sizeof(*fill));
	if (*targets == NULL || fill == NULL) {
		free(fill);
		return -ENOMEM;
	}
	for (f = 0; f < p->nb_flows; f++) {
		const struct hs_flow_spec *s = &p->flows[f];

		if (s->trigger != HS_NO_TRIGGER)
			p->trigs[s->trigger].nb_targets++;
		if (s->send_done_trigger != HS_NO_TRIGGER)
			p->trigs[s->send_done_trigger].nb_activators++;
		if (s->recv_done_trigger != HS_NO_TRIGGER)
			p->trigs[s->recv_done_trigger].nb_activators++;
	}
	for (t = 0; t < p->nb_trigs; t++) {
		p->trigs[t].first_target = at;
		at += p->trigs[t].nb_targets;
	}
	for (f = 0; f < p->nb_flows; f++) {
		t = p->flows[f].trigger;
		if (t != HS_NO_TRIGGER)
			(*targets)[p->trigs[t].first_target + fill[t]++] = f;
	}
	free(fill);
	return 0;
}

/* What htsim would abort on, or never finish, per trigger. */
static int
cm_check_triggers(struct cm_parser *p, const uint32_t *targets)
{
	char what[CM_WHAT_SIZE], expect[CM_EXPECT_SIZE], text[32];
	uint32_t i;

	for (i = 0; i < p->nb_trigs; i++) {
		const struct hs_trigger *t = &p->trigs[i];
		uint64_t first = t->nb_targets ?
			p->extra[targets[t->first_target]].line : 0;

		snprintf(text, sizeof(text), "%" PRIu32, t->id);
		what[0] = '\0';
		if (t->nb_targets > 0 && t->nb_activators == 0) {
			snprintf(what, sizeof(what), "trigger starts flows (the first on line %" PRIu64 ") but no flow activates it",
				 first);
			snprintf(expect, sizeof(expect), "a flow with send_done_trigger %" PRIu32 " or recv_done_trigger %" PRIu32,
				 t->id, t->id);
		} else if (t->kind == HS_TRIG_ONESHOT &&
			   t->nb_activators > 1) {
			snprintf(what, sizeof(what), "oneshot trigger is activated by %" PRIu32 " flow ends (htsim aborts on the second)",
				 t->nb_activators);
			snprintf(expect, sizeof(expect), "one activation, or 'barrier count %" PRIu32 "' to wait for all of them",
				 t->nb_activators);
		} else if (t->kind == HS_TRIG_ONESHOT &&
			   t->nb_activators == 1 && t->nb_targets == 0) {
			snprintf(what, sizeof(what), "oneshot trigger starts no flow (htsim aborts when it fires)");
			snprintf(expect, sizeof(expect), "a flow with 'trigger %" PRIu32 "'",
				 t->id);
		} else if (t->kind == HS_TRIG_BARRIER &&
			   (t->nb_activators > t->count ||
			    (t->nb_activators < t->count &&
			     t->nb_targets > 0))) {
			snprintf(what, sizeof(what), "barrier of count %" PRIu32 " is activated by %" PRIu32 " flow ends",
				 t->count, t->nb_activators);
			snprintf(expect, sizeof(expect), "count %" PRIu32 " (htsim aborts on too many activations and never fires with too few)",
				 t->nb_activators);
		} else if (t->kind == HS_TRIG_MULTISHOT &&
			   t->nb_activators < t->nb_targets) {
			snprintf(what, sizeof(what), "multishot trigger starts %" PRIu32 " flows but is activated by %" PRIu32 " flow ends",
				 t->nb_targets, t->nb_activators);
			snprintf(expect, sizeof(expect), "at least one activation per flow it starts");
		}
		if (what[0] != '\0')
			return cm_fail_at(p, t->line, what, text, expect);
	}
	return 0;
}

/*
 * Flows that can never start: every flow that starts eventually ends and
 * activates its triggers; a trigger's k-th flow starts once the trigger
 * has enough activations (oneshot 1, barrier count, multishot k).
 * Whatever is left waits in a cycle.
 */
static int
cm_check_cycles(struct cm_parser *p, const uint32_t *targets)
{
	uint32_t *acts = calloc(p->nb_trigs + 1, sizeof(*acts));
	uint32_t *queue = malloc(sizeof(*queue) * (p->nb_flows + 1));
	bool *started = calloc(p->nb_flows + 1, sizeof(*started));
	uint32_t head = 0, tail = 0, f, k;
	char text[32];
	int rc = 0;

	if (acts == NULL || queue == NULL || started == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (f = 0; f < p->nb_flows; f++)
		if (p->flows[f].trigger == HS_NO_TRIGGER) {
			started[f] = true;
			queue[tail++] = f;
		}
	while (head < tail) {
		const struct hs_flow_spec *s = &p->flows[queue[head++]];
		uint32_t fires[2] = { s->send_done_trigger,
				      s->recv_done_trigger };

		for (k = 0; k < 2; k++) {
			const struct hs_trigger *t;
			uint32_t from, to, i;

			if (fires[k] == HS_NO_TRIGGER)
				continue;
			t = &p->trigs[fires[k]];
			acts[fires[k]]++;
			from = to = 0;
			if (t->kind == HS_TRIG_MULTISHOT) {
				from = acts[fires[k]] - 1;
				to = acts[fires[k]] < t->nb_targets ?
					acts[fires[k]] : t->nb_targets;
			} else if ((t->kind == HS_TRIG_ONESHOT &&
				    acts[fires[k]] == 1) ||
				   (t->kind == HS_TRIG_BARRIER &&
				    acts[fires[k]] == t->count)) {
				to = t->nb_targets;
			}
			for (i = from; i < to; i++) {
				f = targets[t->first_target + i];
				if (!started[f]) {
					started[f] = true;
					queue[tail++] = f;
				}
			}
		}
	}
	for (f = 0; f < p->nb_flows; f++) {
		if (started[f])
			continue;
		snprintf(text, sizeof(text), "%" PRIu32,
			 p->trigs[p->flows[f].trigger].id);
		rc = cm_fail_at(p, p->extra[f].line,
				"flow can never start: its trigger waits for flows that wait for it",
				text, "triggers without a cycle");
		break;
	}
out:
	free(acts);
	free(queue);
	free(started);
	return rc;
}

static int
cm_finish(struct cm_parser *p, uint32_t **targets)
{
	static const enum cm_head counted[3] = { CM_CONNS, CM_TRIGS, CM_FAILS };
	uint32_t found[3] = { p->nb_flows, p->nb_trigs, p->nb_fails };
	static const char *const lines[3] = { "flow", "trigger", "failure" };
	int i, rc;

	if (!p->have[CM_NODES])
		return cm_fail_file(p, "no 'Nodes' line; expected 'Nodes N' in the header");
	if (!p->have[CM_CONNS])
		return cm_fail_file(p, "no 'Connections' line; expected 'Connections C' in the header");
	for (i = 0; i < 3; i++)
		if (p->head[counted[i]] != found[i])
			return cm_fail_file(p, "%s says %" PRIu32 "%s but the file has %" PRIu32 " %s lines; expected them to agree",
					    cm_head_names[counted[i]],
					    p->head[counted[i]],
					    p->have[counted[i]] ? "" :
					    " (no such line)",
					    found[i], lines[i]);
	rc = cm_resolve(p);
	if (rc == 0)
		rc = cm_targets(p, targets);
	if (rc == 0)
		rc = cm_check_triggers(p, *targets);
	if (rc == 0)
		rc = cm_check_cycles(p, *targets);
	return rc;
}

int
hs_traffic_parse_cm(const char *name, const char *text, size_t len,
		    uint32_t nb_ranks_expected, struct hs_traffic *t,
		    char *err, unsigned int err_size)
{
	struct cm_parser p = {
		.name = name,
		.nb_ranks_expected = nb_ranks_expected,
		.err = err,
		.err_size = err_size,
	};
	uint32_t *targets = NULL;
	char *buf = malloc(len + 1), *s, *nl;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (buf == NULL) {
		cm_fail_file(&p, "out of memory for %zu bytes", len);
		return -ENOMEM;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (s = buf; rc == 0 && s < buf + len; s = nl + 1) {
		size_t n;

		nl = memchr(s, '\n', (size_t)(buf + len - s));
		if (nl == NULL)
			nl = buf + len;
		n = (size_t)(nl - s);
		p.line++;
		*nl = '\0';
		if (strlen(s) != n)
			rc = cm_fail(&p, "NUL byte in line", s, "a text file");
		else
			rc = cm_line(&p, s, n);
	}
	if (rc == 0)
		rc = cm_finish(&p, &targets);
	if (rc == -ENOMEM)
		cm_fail_file(&p, "out of memory at line %" PRIu64, p.line);
	free(buf);
	free(p.extra);
	free(p.flow_ids.slot);
	free(p.trig_ids.slot);
	if (rc < 0) {
		free(p.flows);
		free(p.trigs);
		free(p.fails);
		free(targets);
		return rc;
	}
	t->nb_ranks = p.head[CM_NODES];
	t->nb_flows = p.nb_flows;
	t->flows = p.flows;
	t->nb_triggers = p.nb_trigs;
	t->triggers = p.trigs;
	t->trigger_targets = targets;
	t->nb_failures = p.nb_fails;
	t->failures = p.fails;
	if (hs_traffic_derive(t) != 0) {
		hs_traffic_free(t);
		cm_fail_file(&p, "out of memory for %" PRIu32 " flows",
			     p.nb_flows);
		return -ENOMEM;
	}
	return 0;
}

int
hs_traffic_load_cm(const char *path, uint32_t nb_ranks_expected,
		   struct hs_traffic *t, char *err, unsigned int err_size)
{
	FILE *fp = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	memset(t, 0, sizeof(*t));
	if (fp == NULL) {
		rc = -errno;
		snprintf(err, err_size, "%s: cannot open (%s); expected a readable .cm file",
			 path, strerror(-rc));
		return rc;
	}
	for (;;) {
		if (len == cap) {
			char *nt;

			cap = cap == 0 ? 1 << 16 : cap * 2;
			nt = realloc(text, cap);
			if (nt == NULL) {
				free(text);
				fclose(fp);
				snprintf(err, err_size, "%s: out of memory", path);
				return -ENOMEM;
			}
			text = nt;
		}
		n = fread(text + len, 1, cap - len, fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		free(text);
		fclose(fp);
		snprintf(err, err_size, "%s: read error; expected a readable file",
			 path);
		return -EIO;
	}
	fclose(fp);
	rc = hs_traffic_parse_cm(path, text, len, nb_ranks_expected, t, err,
				 err_size);
	free(text);
	return rc;
}

/* ---- cm: an htsim connection-matrix file ---- */

static const char *
cm_path(const struct hs_traffic_params *p)
{
	return ((const struct hs_cm_settings *)p->settings)->path;
}

const char *
hs_cm_path_of(const struct hs_pattern_ops *pattern,
	      const struct hs_pattern_settings *block)
{
	return pattern == &hs_pattern_cm ?
		((const struct hs_cm_settings *)block->b)->path : NULL;
}

static int
cm_parse(struct ofan_cfg *cfg, const struct hs_pattern_cfg *ctx,
	 void *settings)
{
	struct hs_cm_settings *s = settings;
	const char *cm = NULL;

	(void)ctx;
	if (ofan_cfg_get_str(cfg, "traffic", "cm_file", 0, &cm) != 0)
		return -EINVAL;
	if (cm == NULL)
		return 0;
	if (strlen(cm) >= sizeof(s->path))
		return ofan_cfg_fail(cfg, "traffic", "cm_file",
			"is too long; expected at most %zu characters",
			sizeof(s->path) - 1);
	return ofan_cfg_path_of(cfg, "traffic", "cm_file", cm, s->path,
				sizeof(s->path)) != 0 ? -EINVAL : 0;
}

static int
check_cm(const struct hs_traffic_params *p, const char **key, char *msg,
	 unsigned int msg_size)
{
	if (cm_path(p)[0] == '\0') {
		*key = "cm_file";
		snprintf(msg, msg_size, "missing; expected the path of an htsim connection-matrix file for pattern = cm");
		return -EINVAL;
	}
	if (p->iterations != 1) {
		*key = "iterations";
		snprintf(msg, msg_size,
			 "'%" PRIu32 "' with a .cm file, which is replayed once; expected 1",
			 p->iterations);
		return -EINVAL;
	}
	return 0;
}

static int
build_cm(const struct hs_traffic_params *p, struct hs_traffic *t,
	 struct hs_workload **wl, char *err, unsigned int err_size)
{
	uint32_t i;
	int rc;

	(void)wl;
	rc = hs_traffic_load_cm(cm_path(p), p->nb_ranks, t, err, err_size);
	if (rc < 0)
		return rc;
	for (i = 0; i < t->nb_flows; i++) {
		if (t->flows[i].start_ns > UINT64_MAX - p->start_ns) {
			hs_traffic_free(t);
			snprintf(err, err_size, "%s: start times overflow once shifted by %" PRIu64 " ns; expected earlier start times",
				 cm_path(p), p->start_ns);
			return -EINVAL;
		}
		t->flows[i].start_ns += p->start_ns;
	}
	if (hs_traffic_derive(t) != 0) {
		hs_traffic_free(t);
		snprintf(err, err_size, "%s: out of memory", cm_path(p));
		return -ENOMEM;
	}
	return 0;
}

const struct hs_pattern_ops hs_pattern_cm = {
	.name = "cm",
	.summary = "an htsim connection-matrix file (cm_file), replayed once",
	.reads_file = true,
	.settings_size = sizeof(struct hs_cm_settings),
	.parse = cm_parse,
	.example = "cm_file = /dev/null\n",
	.origin = "the [traffic] cm_file",
	.check = check_cm,
	.build = build_cm,
};
