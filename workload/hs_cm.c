/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The htsim connection-matrix (.cm) reader (hs_traffic.h).
 *
 * It reads what htsim's ConnectionMatrix::load() reads, so the authors'
 * matrices run unchanged, and rejects, with "FILE:LINE: what 'text';
 * expected what", everything htsim would misread, abort on or silently
 * ignore.  It is never looser than htsim; where it is stricter,
 * docs/host.md says so.  The rules:
 *
 * Lines and fields (htsim splits a line at single spaces only):
 *  - fields are separated by one space; a tab, a carriage return (CRLF
 *    files), a leading space or two spaces in a row are errors (htsim
 *    reads them as part of a field or as an empty field); one trailing
 *    space is allowed (htsim drops it); empty lines are skipped anywhere;
 *    a comment line (first character '#') may hold anything;
 *  - numbers are plain decimal digits (htsim's stoi would read "12abc"
 *    as 12 and 4KiB as 4).
 *
 * The header, before the first flow, trigger or failure line, in any
 * order: "Nodes N" (required, 2 .. HS_MAX_RANKS), "Connections C" (required,
 * 1 .. 2^31-1), "Triggers T" and "Failures F" (0 when absent); each once,
 * exactly two fields; lines whose first field starts with '#' are
 * comments.  htsim ignores unknown header lines and extra fields; here
 * they are errors.  After the header no comment and no header line may
 * come (htsim rejects both).
 *
 * A flow line: "SRC->DST" (no blanks, ranks below N, SRC != DST) then
 * key-value pairs in any order, each key at most once (htsim lets the
 * last win):
 *  - id I          1 .. 2^31-1, unique (htsim does not check);
 *  - start T       picoseconds, as htsim reads it, but as an exact integer
 *                  (htsim parses it as a 32-bit float, which rounds starts
 *                  above 16.8 us), rounded to the nearest nanosecond (the
 *                  fabric's clock); "5us", "250ns", "1.5ms" (a unit) is an
 *                  extension;
 *  - size B        bytes, 1 .. 2^31-1 (htsim keeps sizes in an int and
 *                  leaves a missing size undefined: here it is required);
 *  - trigger X     start when trigger X fires instead of at a time: a flow
 *                  has exactly one of start and trigger (htsim silently
 *                  drops a start written before the trigger); htsim needs
 *                  the flow's id, and before the trigger on the line;
 *  - send_done_trigger Y, recv_done_trigger Z   activate Y when the sender
 *                  saw the whole flow acknowledged, Z when the receiver
 *                  has it all (htsim never checks that Y and Z exist);
 *  - prio P        a signed integer, checked and not used (as in the study's
 *                  simulator).
 * Trigger ids are 1 .. 2^31-1 and must be defined by a trigger line.
 *
 * A trigger line: "trigger" then, in any order, "id N" (unique), one of
 * "oneshot", "multishot" or "barrier", and for a barrier "count K" (1 ..
 * 2^31-1; count belongs to barriers only).  What htsim would abort on or
 * never finish is refused here, with the trigger's line: a trigger that
 * starts flows but that no flow end activates; a oneshot activated by
 * more than one flow end (htsim asserts on the second), or that starts no
 * flow (htsim asserts when it fires); a barrier whose count differs from
 * the flow ends that activate it; a multishot activated fewer times than
 * it has flows; flows that wait for each other in a cycle.
 *
 * A failure line: "failure switch_type TOR|AGG|CORE switch_id S link_id
 * L", each key exactly once (htsim leaves missing ones undefined).  The
 * ranges depend on the topology: the fabric checks them.
 *
 * At the end, Connections, Triggers and Failures must equal the lines
 * found, and nb_ranks_expected (when not 0) must equal N.
 */
#include "hs_cm_priv.h"

const char *const hs_trigger_kind_names[] = {
	[HS_TRIG_ONESHOT] = "oneshot",
	[HS_TRIG_MULTISHOT] = "multishot",
	[HS_TRIG_BARRIER] = "barrier",
	[HS_TRIG_NB] = NULL,
};

const char *const hs_switch_type_names[] = {
	[HS_SW_TOR] = "TOR", [HS_SW_AGG] = "AGG", [HS_SW_CORE] = "CORE",
	[HS_SW_NB] = NULL,
};

const char *const cm_head_names[CM_NB_HEAD] = {
	"Nodes", "Connections", "Triggers", "Failures"
};

const char *const cm_ref_names[CM_NB_REF] = {
	"trigger", "send_done_trigger", "recv_done_trigger"
};

/* ---- messages ---- */

/*
 * "NAME:LINE: WHAT 'TEXT'; expected EXPECT".  TEXT is quoted only up to
 * CM_QUOTE_MAX characters so that the expectation is never cut off.
 */
int
cm_fail(struct cm_parser *p, const char *what, const char *text,
	const char *expect)
{
	size_t len = strlen(text);

	if (p->err != NULL && p->err_size > 0)
		snprintf(p->err, p->err_size,
			 "%s:%" PRIu64 ": %s '%.*s%s'; expected %s", p->name,
			 p->line, what, CM_QUOTE_MAX, text,
			 len > CM_QUOTE_MAX ? "..." : "", expect);
	return -EINVAL;
}

/* The same about another line (trigger checks at the end of the file). */
int
cm_fail_at(struct cm_parser *p, uint64_t line, const char *what,
	   const char *text, const char *expect)
{
	p->line = line;
	return cm_fail(p, what, text, expect);
}

/* Errors that concern a whole line quote its fields joined by a space. */
static const char *
cm_line_text(const struct cm_parser *p, char *buf, size_t size)
{
	size_t used = 0;
	unsigned int i;
	int n;

	buf[0] = '\0';
	for (i = 0; i < p->nb_tok && used < size; i++) {
		n = snprintf(buf + used, size - used, "%s%s", i ? " " : "",
			     p->tok[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return buf;
}

static int
cm_fail_line(struct cm_parser *p, const char *what, const char *expect)
{
	char text[CM_TEXT_SIZE];

	return cm_fail(p, what, cm_line_text(p, text, sizeof(text)), expect);
}

int
cm_fail_file(struct cm_parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->err != NULL && p->err_size > 0) {
		n = snprintf(p->err, p->err_size, "%s: ", p->name);
		if (n >= 0 && (unsigned int)n < p->err_size) {
			va_start(ap, fmt);
			vsnprintf(p->err + n, p->err_size - n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

/* ---- numbers ---- */

/* Plain decimal digits only (no sign, no blanks, no unit). */
static int
cm_digits(const char *s, uint64_t *v)
{
	if (s[0] == '\0' || strspn(s, "0123456789") != strlen(s))
		return -EINVAL;
	return ofan_parse_u64(s, v);
}

/* An int-sized id or count: 1 .. 2^31-1 (min 0 for header counts). */
static int
cm_int(const char *s, uint32_t min, uint32_t *v)
{
	uint64_t x;

	if (cm_digits(s, &x) < 0 || x < min || x > CM_INT_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/* "start T": whole picoseconds, or a time with a unit. */
static int
cm_start(const char *s, uint64_t *ns)
{
	uint64_t ps;

	if (s[0] != '\0' && strspn(s, "0123456789") == strlen(s)) {
		if (ofan_parse_u64(s, &ps) < 0)
			return -EINVAL;
		*ns = ps / CM_PS_PER_NS + (ps % CM_PS_PER_NS >= CM_PS_PER_NS / 2);
		return 0;
	}
	/* A unit is required (ofan_parse_time takes a bare "0" too). */
	if (s[0] == '\0' || strspn(s, "0123456789.") == strlen(s))
		return -EINVAL;
	return ofan_parse_time(s, ns);
}

/* "prio P": a signed int. */
static int
cm_prio(const char *s, int32_t *v)
{
	uint64_t x;
	bool neg = s[0] == '-';

	if (cm_digits(s + neg, &x) < 0 || x > (uint64_t)CM_INT_MAX + neg)
		return -EINVAL;
	*v = neg ? (int32_t)(-(int64_t)x) : (int32_t)x;
	return 0;
}

/* ---- id maps ---- */

static uint32_t
cm_map_slot(uint32_t id, uint32_t cap)
{
	uint64_t x = id;

	return (uint32_t)ofan_splitmix64(&x) & (cap - 1);
}

const struct cm_slot *
cm_map_find(const struct cm_map *m, uint32_t id)
{
	uint32_t i;

	if (m->cap == 0)
		return NULL;
	for (i = cm_map_slot(id, m->cap); m->slot[i].id != 0;
	     i = (i + 1) & (m->cap - 1))
		if (m->slot[i].id == id)
			return &m->slot[i];
	return NULL;
}

static void
cm_map_put(struct cm_slot *tab, uint32_t cap, const struct cm_slot *e)
{
	uint32_t i;

	for (i = cm_map_slot(e->id, cap); tab[i].id != 0;
	     i = (i + 1) & (cap - 1))
		;
	tab[i] = *e;
}

/* Add a new id (known to be absent); the table stays at most half full. */
static int
cm_map_add(struct cm_map *m, uint32_t id, uint32_t index, uint64_t line)
{
	struct cm_slot e = { .id = id, .index = index, .line = line };
	struct cm_slot *tab;
	uint32_t cap, i;

	if ((uint64_t)(m->n + 1) * 2 > m->cap) {
		cap = m->cap == 0 ? 64 : m->cap * 2;
		tab = calloc(cap, sizeof(*tab));
		if (tab == NULL)
			return -ENOMEM;
		for (i = 0; i < m->cap; i++)
			if (m->slot[i].id != 0)
				cm_map_put(tab, cap, &m->slot[i]);
		free(m->slot);
		m->slot = tab;
		m->cap = cap;
	}
	cm_map_put(m->slot, m->cap, &e);
	m->n++;
	return 0;
}

/* Grow an array of n used elements of size sz to hold one more. */
static int
cm_grow(void **arr, uint32_t n, uint32_t *cap, size_t sz)
{
	uint32_t ncap;
	void *a;

	if (n < *cap)
		return 0;
	if (*cap >= CM_INT_MAX)
		return -ENOMEM;
	ncap = *cap == 0 ? 64 : *cap * 2;
	a = realloc(*arr, (size_t)ncap * sz);
	if (a == NULL)
		return -ENOMEM;
	*arr = a;
	*cap = ncap;
	return 0;
}

/* ---- the header ---- */

static int
cm_header(struct cm_parser *p, enum cm_head h)
{
	const char *key = cm_head_names[h];
	char what[CM_WHAT_SIZE], expect[CM_EXPECT_SIZE];
	uint32_t v;

	if (p->in_body) {
		snprintf(what, sizeof(what), "header line '%s' after the first flow, trigger or failure line",
			 key);
		return cm_fail_line(p, what,
				    "the header (Nodes, Connections, Triggers, Failures) first");
	}
	if (p->have[h]) {
		snprintf(what, sizeof(what), "second '%s' line", key);
		snprintf(expect, sizeof(expect), "one '%s' line", key);
		return cm_fail_line(p, what, expect);
	}
	if (p->nb_tok != 2) {
		snprintf(expect, sizeof(expect), "'%s %s'", key,
			 h == CM_NODES ? "N" : h == CM_CONNS ? "C" :
			 h == CM_TRIGS ? "T" : "F");
		return cm_fail_line(p, "bad header line", expect);
	}
	/* Nodes: at most the ranks ofan-host and ofan-fabric take, so that
	 * a one-line file cannot ask for gigabytes of per-rank tables. */
	if (cm_int(p->tok[1], h == CM_NODES ? 2 : h == CM_CONNS ? 1 : 0,
		   &v) < 0 || (h == CM_NODES && v > HS_MAX_RANKS)) {
		snprintf(what, sizeof(what), "bad %s count", key);
		snprintf(expect, sizeof(expect), "an integer from %u to %u",
			 h == CM_NODES ? 2 : h == CM_CONNS ? 1 : 0,
			 h == CM_NODES ? HS_MAX_RANKS : CM_INT_MAX);
		return cm_fail(p, what, p->tok[1], expect);
	}
	if (h == CM_NODES && p->nb_ranks_expected != 0 &&
	    v != p->nb_ranks_expected) {
		snprintf(expect, sizeof(expect), "Nodes %" PRIu32
			 ", one per host of the testbed",
			 p->nb_ranks_expected);
		return cm_fail_line(p, "node count does not match the testbed",
				    expect);
	}
	p->have[h] = true;
	p->head[h] = v;
	return 0;
}

/* The header is complete once the body starts. */
static int
cm_begin_body(struct cm_parser *p)
{
	if (p->in_body)
		return 0;
	if (!p->have[CM_NODES] || !p->have[CM_CONNS])
		return cm_fail_line(p, "line before the header is complete",
				    "'Nodes N' and 'Connections C' first");
	p->in_body = true;
	return 0;
}

/* ---- flow lines ---- */

/* "SRC->DST" into two ranks below Nodes. */
static int
cm_endpoints(struct cm_parser *p, struct hs_flow_spec *f)
{
	char *arrow = strstr(p->tok[0], "->");
	const char *text[2];
	char expect[CM_EXPECT_SIZE], what[CM_WHAT_SIZE];
	uint64_t v[2];
	int i, rc = 0;

	if (arrow == NULL || arrow == p->tok[0])
		return cm_fail(p, "bad endpoints", p->tok[0],
			       "SRC->DST with no blanks");
	*arrow = '\0';	/* restored below, for later messages */
	text[0] = p->tok[0];
	text[1] = arrow + 2;
	snprintf(expect, sizeof(expect), "an integer below %" PRIu32,
		 p->head[CM_NODES]);
	for (i = 0; i < 2 && rc == 0; i++) {
		const char *role = i == 0 ? "source" : "destination";

		if (cm_digits(text[i], &v[i]) < 0) {
			snprintf(what, sizeof(what), "bad %s rank", role);
			rc = cm_fail(p, what, text[i], expect);
		} else if (v[i] >= p->head[CM_NODES]) {
			snprintf(what, sizeof(what), "%s rank out of range",
				 role);
			rc = cm_fail(p, what, text[i], expect);
		}
	}
	*arrow = '-';
	if (rc != 0)
		return rc;
	if (v[0] == v[1])
		return cm_fail(p, "flow from a rank to itself", p->tok[0],
			       "two different ranks");
	f->src = (uint32_t)v[0];
	f->dst = (uint32_t)v[1];
	return 0;
}

static int
cm_flow(struct cm_parser *p)
{
	enum { K_ID, K_START, K_SIZE, K_TRIG, K_SEND, K_RECV, K_PRIO, K_NB };
	static const char *const keys[K_NB] = {
		"id", "start", "size", "trigger", "send_done_trigger",
		"recv_done_trigger", "prio"
	};
	static const char *const holders[K_NB] = {
		"I", "T", "B", "X", "Y", "Z", "P"
	};
	char what[CM_WHAT_SIZE], expect[CM_EXPECT_SIZE];
	struct hs_flow_spec f = {
		.dep = HS_NO_DEP, .trigger = HS_NO_TRIGGER,
		.send_done_trigger = HS_NO_TRIGGER,
		.recv_done_trigger = HS_NO_TRIGGER,
	};
	struct cm_flow_extra x = { .line = p->line };
	uint32_t id = 0;
	int32_t prio;
	bool seen[K_NB] = { false };
	const struct cm_slot *prior;
	unsigned int i;
	uint32_t v;
	int k, rc;

	rc = cm_endpoints(p, &f);
	if (rc < 0)
		return rc;
	for (i = 1; i < p->nb_tok; i += 2) {
		for (k = 0; k < K_NB; k++)
			if (strcmp(p->tok[i], keys[k]) == 0)
				break;
		if (k == K_NB)
			return cm_fail(p, "unknown field", p->tok[i],
				       "id, start, size, trigger, send_done_trigger, recv_done_trigger or prio");
		if (seen[k]) {
			snprintf(what, sizeof(what), "second '%s' field",
				 keys[k]);
			return cm_fail(p, what, p->tok[i],
				       "each field at most once");
		}
		seen[k] = true;
		if (i + 1 == p->nb_tok) {
			snprintf(what, sizeof(what), "no value after '%s'",
				 keys[k]);
			snprintf(expect, sizeof(expect), "%s %s", keys[k],
				 holders[k]);
			return cm_fail_line(p, what, expect);
		}
		switch (k) {
		case K_ID:
			if (cm_int(p->tok[i + 1], 1, &v) < 0)
				return cm_fail(p, "bad id", p->tok[i + 1],
					       CM_EXPECT_ID);
			prior = cm_map_find(&p->flow_ids, v);
			if (prior != NULL) {
				snprintf(what, sizeof(what),
					 "id already used on line %" PRIu64,
					 prior->line);
				return cm_fail(p, what, p->tok[i + 1],
					       "a unique id");
			}
			id = v;
			break;
		case K_START:
			if (cm_start(p->tok[i + 1], &f.start_ns) < 0)
				return cm_fail(p, "bad start time",
					       p->tok[i + 1], CM_EXPECT_TIME);
			break;
		case K_SIZE:
			if (cm_int(p->tok[i + 1], 1, &v) < 0)
				return cm_fail(p, "bad size", p->tok[i + 1],
					       CM_EXPECT_SIZE_B);
			f.size = v;
			break;
		case K_PRIO:
			if (cm_prio(p->tok[i + 1], &prio) < 0)
				return cm_fail(p, "bad prio", p->tok[i + 1],
					       "an integer from -2147483648 to 2147483647");
			break;
		default:
			if (k == K_TRIG && !seen[K_ID])
				return cm_fail(p, "trigger before the flow's id",
					       p->tok[i],
					       "'id I' before 'trigger X', as htsim needs it");
			if (cm_int(p->tok[i + 1], 1, &v) < 0) {
				snprintf(what, sizeof(what), "bad %s",
					 keys[k]);
				return cm_fail(p, what, p->tok[i + 1],
					       "a trigger id from 1 to 2147483647");
			}
			x.ref[k - K_TRIG] = v;
			break;
		}
	}
	if (!seen[K_START] && !seen[K_TRIG])
		return cm_fail_line(p, "no start and no trigger",
				    "'start T' or 'trigger X' (a flow starts at a time or when a trigger fires)");
	if (seen[K_START] && seen[K_TRIG])
		return cm_fail_line(p, "both a start and a trigger",
				    "one of them (htsim drops a start written before the trigger and rejects one after it)");
	if (!seen[K_SIZE])
		return cm_fail_line(p, "no size", CM_EXPECT_FLOW);

	if (cm_grow((void **)&p->flows, p->nb_flows, &p->flows_cap,
		    sizeof(*p->flows)) < 0 ||
	    cm_grow((void **)&p->extra, p->nb_flows, &p->extra_cap,
		    sizeof(*p->extra)) < 0)
		return -ENOMEM;
	f.id = p->nb_flows;
	if (id != 0 && cm_map_add(&p->flow_ids, id, f.id,
				       p->line) < 0)
		return -ENOMEM;
	p->flows[p->nb_flows] = f;
	p->extra[p->nb_flows] = x;
	p->nb_flows++;
	return 0;
}

/* ---- trigger and failure lines ---- */

static int
cm_trigger(struct cm_parser *p)
{
	struct hs_trigger t = { .kind = HS_TRIG_NB, .line = p->line };
	char what[CM_WHAT_SIZE];
	const struct cm_slot *prior;
	bool seen_id = false, seen_count = false;
	unsigned int i;
	int k;

	for (i = 1; i < p->nb_tok; i++) {
		const char *key = p->tok[i];

		for (k = 0; k < HS_TRIG_NB; k++)
			if (strcmp(key, hs_trigger_kind_names[k]) == 0)
				break;
		if (k < HS_TRIG_NB) {
			if (t.kind != HS_TRIG_NB)
				return cm_fail(p, "second trigger type", key,
					       "one of oneshot, multishot or barrier");
			t.kind = (uint8_t)k;
			continue;
		}
		if (strcmp(key, "id") != 0 && strcmp(key, "count") != 0)
			return cm_fail(p, "unknown field", key,
				       "id N, count K, oneshot, multishot or barrier");
		if ((key[0] == 'i' && seen_id) ||
		    (key[0] == 'c' && seen_count)) {
			snprintf(what, sizeof(what), "second '%s' field", key);
			return cm_fail(p, what, key, "each field at most once");
		}
		if (i + 1 == p->nb_tok) {
			snprintf(what, sizeof(what), "no value after '%s'", key);
			return cm_fail_line(p, what, CM_EXPECT_TRIGGER);
		}
		i++;
		if (key[0] == 'i') {
			seen_id = true;
			if (cm_int(p->tok[i], 1, &t.id) < 0)
				return cm_fail(p, "bad trigger id", p->tok[i],
					       CM_EXPECT_ID);
			prior = cm_map_find(&p->trig_ids, t.id);
			if (prior != NULL) {
				snprintf(what, sizeof(what),
					 "trigger id already defined on line %" PRIu64,
					 prior->line);
				return cm_fail(p, what, p->tok[i],
					       "each trigger defined once");
			}
		} else {
			seen_count = true;
			if (cm_int(p->tok[i], 1, &t.count) < 0)
				return cm_fail(p, "bad count", p->tok[i],
					       "an integer from 1 to 2147483647");
		}
	}
	if (!seen_id)
		return cm_fail_line(p, "trigger without an id",
				    CM_EXPECT_TRIGGER);
	if (t.kind == HS_TRIG_NB)
		return cm_fail_line(p, "trigger without a type",
				    CM_EXPECT_TRIGGER);
	if (t.kind == HS_TRIG_BARRIER && !seen_count)
		return cm_fail_line(p, "barrier without a count",
				    "'count K', the activations it waits for (htsim aborts on a barrier of count 0)");
	if (t.kind != HS_TRIG_BARRIER && seen_count)
		return cm_fail_line(p, "count on a trigger that is not a barrier",
				    "count only with barrier (htsim ignores it elsewhere)");
	if (cm_grow((void **)&p->trigs, p->nb_trigs, &p->trigs_cap,
		    sizeof(*p->trigs)) < 0 ||
	    cm_map_add(&p->trig_ids, t.id, p->nb_trigs, p->line) < 0)
		return -ENOMEM;
	p->trigs[p->nb_trigs++] = t;
	return 0;
}

static int
cm_failure(struct cm_parser *p)
{
	static const char *const keys[3] = {
		"switch_type", "switch_id", "link_id"
	};
	struct hs_cm_failure f = { .line = p->line };
	bool seen[3] = { false };
	char what[CM_WHAT_SIZE];
	unsigned int i;
	uint32_t v;
	int k;

	for (i = 1; i < p->nb_tok; i += 2) {
		for (k = 0; k < 3; k++)
			if (strcmp(p->tok[i], keys[k]) == 0)
				break;
		if (k == 3)
			return cm_fail(p, "unknown field", p->tok[i],
				       "switch_type, switch_id or link_id");
		if (seen[k]) {
			snprintf(what, sizeof(what), "second '%s' field",
				 keys[k]);
			return cm_fail(p, what, p->tok[i],
				       "each field once");
		}
		seen[k] = true;
		if (i + 1 == p->nb_tok) {
			snprintf(what, sizeof(what), "no value after '%s'",
				 keys[k]);
			return cm_fail_line(p, what, CM_EXPECT_FAILURE);
		}
		if (k == 0) {
			int t;

			for (t = 0; t < HS_SW_NB; t++)
				if (strcmp(p->tok[i + 1],
					   hs_switch_type_names[t]) == 0)
					break;
			if (t == HS_SW_NB)
				return cm_fail(p, "bad switch_type",
					       p->tok[i + 1],
					       "TOR, AGG or CORE");
			f.switch_type = (uint8_t)t;
		} else {
			if (cm_int(p->tok[i + 1], 0, &v) < 0) {
				snprintf(what, sizeof(what), "bad %s",
					 keys[k]);
				return cm_fail(p, what, p->tok[i + 1],
					       "an integer from 0 to 2147483647");
			}
			if (k == 1)
				f.switch_id = v;
			else
				f.link_id = v;
		}
	}
	for (k = 0; k < 3; k++)
		if (!seen[k]) {
			snprintf(what, sizeof(what), "failure without %s",
				 keys[k]);
			return cm_fail_line(p, what, CM_EXPECT_FAILURE);
		}
	if (cm_grow((void **)&p->fails, p->nb_fails, &p->fails_cap,
		    sizeof(*p->fails)) < 0)
		return -ENOMEM;
	p->fails[p->nb_fails++] = f;
	return 0;
}

/* ---- lines ---- */

/*
 * Split s (no newline) at single spaces into p->tok.  What htsim would
 * read differently is an error: tabs, CRs, empty fields.
 */
static int
cm_split(struct cm_parser *p, char *s, size_t len)
{
	char *c, *end = s + len;
	unsigned int spaces = 0;

	p->nb_tok = 0;
	if (memchr(s, '\t', len) != NULL)
		return cm_fail(p, "tab in line", s, CM_EXPECT_SPACES);
	if (memchr(s, '\r', len) != NULL) {
		*(char *)memchr(s, '\r', len) = '\0';
		return cm_fail(p, "carriage return (a CRLF line end) after", s,
			       "LF line ends (htsim reads the CR into the last field; convert with sed -i 's/\\r$//')");
	}
	if (len == 0)
		return 0;
	if (end[-1] == ' ')
		*--end = '\0';	/* one trailing space: htsim drops it */
	for (c = s; c < end; c++) {
		if (*c != ' ')
			continue;
		spaces++;
		if (c == s || c + 1 == end || c[1] == ' ')
			break;
	}
	if (s == end || c < end)
		return cm_fail(p, "empty field (a leading or doubled space) in",
			       s, CM_EXPECT_SPACES);
	if (spaces + 1 > CM_MAX_TOKENS)
		return cm_fail(p, "too many fields in", s, CM_EXPECT_FLOW);
	for (c = s;; ) {
		char *sp = memchr(c, ' ', (size_t)(end - c));

		p->tok[p->nb_tok++] = c;
		if (sp == NULL)
			break;
		*sp = '\0';
		c = sp + 1;
	}
	return 0;
}

int
cm_line(struct cm_parser *p, char *s, size_t len)
{
	const char *t0;
	int rc, h;

	/* A comment is a line whose first field starts with '#', whatever
	 * follows (htsim looks at nothing else on it). */
	if (s[0] == '#') {
		if (p->in_body) {
			p->tok[0] = s;
			p->nb_tok = 1;
			return cm_fail_line(p, "comment after the first flow, trigger or failure line",
					    "comments only in the header, as htsim reads them");
		}
		return 0;
	}
	rc = cm_split(p, s, len);
	if (rc < 0 || p->nb_tok == 0)
		return rc;
	t0 = p->tok[0];
	for (h = 0; h < CM_NB_HEAD; h++)
		if (strcmp(t0, cm_head_names[h]) == 0)
			return cm_header(p, (enum cm_head)h);
	if (strstr(t0, "->") != NULL) {
		rc = cm_begin_body(p);
		return rc < 0 ? rc : cm_flow(p);
	}
	if (strcmp(t0, "trigger") == 0) {
		rc = cm_begin_body(p);
		return rc < 0 ? rc : cm_trigger(p);
	}
	if (strcmp(t0, "failure") == 0) {
		rc = cm_begin_body(p);
		return rc < 0 ? rc : cm_failure(p);
	}
	return cm_fail_line(p, "unrecognised line",
			    "a header line (Nodes, Connections, Triggers, Failures), a # comment in the header, "
			    "a flow 'SRC->DST ...', 'trigger ...' or 'failure ...'");
}

