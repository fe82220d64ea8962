/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic patterns and the htsim connection-matrix (.cm) parser (see
 * hs_traffic.h).
 *
 * Every generated pattern is built the same way: the pattern's fill
 * function writes one iteration (flows numbered from 0, dependencies
 * inside the iteration only), and the driver copies it once per iteration,
 * chaining iterations through the dep field.  Because a flow has a single
 * dep, "iteration k + 1 starts after iteration k" is expressed per rank:
 * a flow of iteration k + 1 that has no dependency inside its iteration
 * waits for the flow of iteration k that its source receives *last in list
 * order*.  For the ring collectives that is the last ring step, so the
 * chain is exact.  For the other patterns it is the documented
 * approximation below.
 *
 * Flow order and shapes, per iteration (ids are list indexes):
 *  - permutation: flow i is rank i -> d(i), where d is a derangement drawn
 *    uniformly (Fisher-Yates, redrawn while it has a fixed point; about
 *    e = 2.7 draws on average) from an RNG seeded with params->seed.  The
 *    same derangement is repeated in every iteration, so iterations differ
 *    only in time.
 *  - alltoall: N - 1 rounds; in round d (1 .. N-1) every rank i sends to
 *    (i + d) mod N, ids round-major.  Rank i thus meets i+1, i+2, ... in
 *    that order and no destination is hit by everybody at once.  All
 *    flows of an iteration share start_ns: the host paces them.  Rank r
 *    receives last (round N-1) from rank r+1, so its next iteration waits
 *    for that one flow, not for all N - 1 of them.
 *  - ring_allreduce: 2(N-1) steps, allgather and reduce_scatter N-1 steps;
 *    in step s rank r sends ceil(size / N) bytes to (r + 1) mod N, ids
 *    step-major.  Step s > 0 of rank r depends on step s - 1 from rank
 *    r - 1, i.e. on the chunk it must receive before forwarding.
 *  - incast: rank j (1 .. incast_degree) sends to rank 0, in that order.
 *    The senders receive nothing, so every iteration of every sender
 *    starts at start_ns: iterations of an incast overlap.
 *  - tornado: rank i sends to (i + floor(N/2)) mod N; for odd N that is
 *    the rank just before the opposite point of the ring.
 *  - cm: the file, once (iterations must be 1), every start time shifted
 *    by params->start_ns.
 *
 * The .cm format accepted here, one item per line:
 *
 *	# comment (also after a line's text)
 *	Nodes N			N ranks, 2 .. 2^32-1
 *	Connections C		C connection lines follow, 1 .. 2^32-2
 *	SRC->DST start T size B [id X] [after X]
 *
 * Both header lines must come (in either order) before the first
 * connection, and the testbed's rank count must equal N when the caller
 * gives one.  After SRC->DST (no blanks inside) come keyword-value pairs
 * in any order, each at most once, as htsim writes them: "start T" and
 * "size B" are required; "id X" names the connection (any unsigned
 * integer, unique in the file); "after X" makes it start only once the
 * connection with id X, which must be on an earlier line and must end at
 * this connection's SRC, has been received completely (and not before T).
 * Naming only earlier lines keeps the dependencies free of cycles by
 * construction, and every error is found in one pass.
 * T is a plain decimal in microseconds as in htsim ("12", "0.5") or a
 * decimal with a unit ns/us/ms/s ("250ns"), rounded to the nearest ns.  B
 * is bytes, optionally with a unit as in the config files ("4KiB", "1MB").
 * htsim's trigger lines and fields (Triggers, trigger,
 * send_done_trigger, recv_done_trigger) and failures are rejected with a
 * pointer to "after": a one-flow dependency is all a host can follow.
 * Blank lines are ignored and blanks are spaces, tabs or CR.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_traffic.h"
#include "ofan_config.h"
#include "ofan_rng.h"

/* Ids are uint32 and HS_NO_DEP is reserved. */
#define HS_MAX_FLOWS (UINT32_MAX - 1)
/* RNG stream of the permutation (ASCII "perm"), independent of others. */
#define HS_PERM_STREAM 0x7065726dull
/* A connection line has 1 + 2 * 4 tokens; more is reported, not split. */
#define CM_MAX_TOKENS 32
/* How much of an offending text an error message quotes. */
#define CM_QUOTE_MAX 80
#define CM_TEXT_SIZE 256
#define CM_WHAT_SIZE 160
#define CM_EXPECT_SIZE 160

#define CM_EXPECT_CONN "SRC->DST start T size B [id X] [after X]"
#define CM_EXPECT_TIME \
	"a time >= 0: microseconds (12.5) or with a unit ns/us/ms/s (250ns)"
#define CM_EXPECT_SIZE_B "a number of bytes > 0 (1000000, 64KiB, 1MB)"
#define CM_EXPECT_ID "a non-negative integer"
#define CM_EXPECT_AFTER "the id of an earlier connection"
#define CM_EXPECT_HEADER \
	"'Nodes N' and 'Connections C' before the connections"

const char *const hs_pattern_names[] = {
	[HS_PATTERN_PERMUTATION] = "permutation",
	[HS_PATTERN_ALLTOALL] = "alltoall",
	[HS_PATTERN_RING_ALLREDUCE] = "ring_allreduce",
	[HS_PATTERN_ALLGATHER] = "allgather",
	[HS_PATTERN_REDUCE_SCATTER] = "reduce_scatter",
	[HS_PATTERN_INCAST] = "incast",
	[HS_PATTERN_TORNADO] = "tornado",
	[HS_PATTERN_CM] = "cm",
	[HS_PATTERN_NB] = NULL,
};

/*
 * A generated pattern.  nb_flows() is the number of flows of one
 * iteration (at least 1 once the common parameters are valid); fill()
 * writes src, dst, size, step and dep of those flows, with dep either
 * HS_NO_DEP or an index inside the iteration.  The driver sets id,
 * iteration and start_ns and chains the iterations.
 */
struct hs_pattern_ops {
	uint64_t (*nb_flows)(const struct hs_traffic_params *p);
	void (*fill)(const struct hs_traffic_params *p,
		     struct hs_flow_spec *f);
};

static int
hs_fail(char *err, unsigned int err_size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
hs_fail(char *err, unsigned int err_size, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && err_size > 0) {
		va_start(ap, fmt);
		vsnprintf(err, err_size, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* a * b, or UINT64_MAX if that does not fit. */
static uint64_t
hs_mul_sat(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

static void
hs_set(struct hs_flow_spec *f, uint32_t src, uint32_t dst, uint64_t size)
{
	f->src = src;
	f->dst = dst;
	f->size = size;
	f->dep = HS_NO_DEP;
	f->step = 0;
}

static uint64_t
hs_one_per_rank(const struct hs_traffic_params *p)
{
	return p->nb_ranks;
}

static void
hs_fill_permutation(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	uint32_t n = p->nb_ranks, i, j, tmp;
	struct ofan_rng rng;
	bool fixed;

	for (i = 0; i < n; i++)
		hs_set(&f[i], i, i, p->size);
	ofan_rng_seed(&rng, p->seed, HS_PERM_STREAM);
	/*
	 * Rejection keeps every derangement equally likely (Sattolo's
	 * algorithm would only ever give a single n-cycle).  A shuffle of
	 * any arrangement is uniform, so redraw from where we are.
	 */
	do {
		for (i = n; i > 1; i--) {
			j = ofan_rng_below(&rng, i);
			tmp = f[i - 1].dst;
			f[i - 1].dst = f[j].dst;
			f[j].dst = tmp;
		}
		fixed = false;
		for (i = 0; i < n && !fixed; i++)
			fixed = f[i].dst == i;
	} while (fixed);
}

static uint64_t
hs_nb_alltoall(const struct hs_traffic_params *p)
{
	return (uint64_t)p->nb_ranks * (p->nb_ranks - 1);
}

static void
hs_fill_alltoall(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	uint32_t n = p->nb_ranks, d, i;

	for (d = 1; d < n; d++)
		for (i = 0; i < n; i++)
			hs_set(&f[(uint64_t)(d - 1) * n + i], i, (i + d) % n,
			       p->size);
}

static uint64_t
hs_ring_steps(const struct hs_traffic_params *p)
{
	uint64_t steps = p->nb_ranks - 1;

	return p->pattern == HS_PATTERN_RING_ALLREDUCE ? 2 * steps : steps;
}

static uint64_t
hs_nb_ring(const struct hs_traffic_params *p)
{
	return hs_mul_sat(hs_ring_steps(p), p->nb_ranks);
}

static void
hs_fill_ring(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	/* The driver checked that every flow id fits in 32 bits. */
	uint32_t n = p->nb_ranks, steps = (uint32_t)hs_ring_steps(p), s, r;
	/* Rounded up so that N chunks cover the buffer; size >= 1. */
	uint64_t chunk = p->size / n + (p->size % n != 0);
	struct hs_flow_spec *x;

	for (s = 0; s < steps; s++) {
		for (r = 0; r < n; r++) {
			x = &f[(uint64_t)s * n + r];
			hs_set(x, r, (r + 1) % n, chunk);
			x->step = s;
			if (s > 0)
				x->dep = (s - 1) * n + (r + n - 1) % n;
		}
	}
}

static uint64_t
hs_nb_incast(const struct hs_traffic_params *p)
{
	return p->incast_degree;
}

static void
hs_fill_incast(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	uint32_t j;

	for (j = 0; j < p->incast_degree; j++)
		hs_set(&f[j], j + 1, 0, p->size);
}

static void
hs_fill_tornado(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	uint32_t n = p->nb_ranks, i;

	for (i = 0; i < n; i++)
		hs_set(&f[i], i, (i + n / 2) % n, p->size);
}

static const struct hs_pattern_ops hs_pattern_ops[HS_PATTERN_NB] = {
	[HS_PATTERN_PERMUTATION] = { hs_one_per_rank, hs_fill_permutation },
	[HS_PATTERN_ALLTOALL] = { hs_nb_alltoall, hs_fill_alltoall },
	[HS_PATTERN_RING_ALLREDUCE] = { hs_nb_ring, hs_fill_ring },
	[HS_PATTERN_ALLGATHER] = { hs_nb_ring, hs_fill_ring },
	[HS_PATTERN_REDUCE_SCATTER] = { hs_nb_ring, hs_fill_ring },
	[HS_PATTERN_INCAST] = { hs_nb_incast, hs_fill_incast },
	[HS_PATTERN_TORNADO] = { hs_one_per_rank, hs_fill_tornado },
	/* HS_PATTERN_CM comes from a file, see hs_traffic_load_cm(). */
};

/*
 * Copy iteration 0 (flows [0, n)) into iterations 1 .. iterations-1.  A
 * flow without a dependency inside its iteration waits for the flow its
 * source received last (in list order) in the previous iteration, or for
 * nothing if its source receives nothing.
 */
static int
hs_chain_iterations(const struct hs_traffic_params *p, struct hs_flow_spec *f,
		    uint32_t n, char *err, unsigned int err_size)
{
	uint32_t *last_recv, k, j;
	struct hs_flow_spec *x;
	uint64_t base;

	for (j = 0; j < n; j++) {
		f[j].id = j;
		f[j].iteration = 0;
		f[j].start_ns = p->start_ns;
	}
	if (p->iterations == 1)
		return 0;
	last_recv = malloc(sizeof(*last_recv) * p->nb_ranks);
	if (last_recv == NULL) {
		hs_fail(err, err_size, "traffic: cannot allocate %" PRIu32
			" ranks", p->nb_ranks);
		return -ENOMEM;
	}
	for (j = 0; j < p->nb_ranks; j++)
		last_recv[j] = HS_NO_DEP;
	for (j = 0; j < n; j++)
		last_recv[f[j].dst] = j;
	for (k = 1; k < p->iterations; k++) {
		base = (uint64_t)k * n;
		for (j = 0; j < n; j++) {
			x = &f[base + j];
			*x = f[j];
			x->id = (uint32_t)(base + j);
			x->iteration = k;
			if (f[j].dep != HS_NO_DEP)
				x->dep = (uint32_t)(base + f[j].dep);
			else if (last_recv[f[j].src] != HS_NO_DEP)
				x->dep = (uint32_t)(base - n +
						    last_recv[f[j].src]);
		}
	}
	free(last_recv);
	return 0;
}

/* The list of names comes from the table, so it cannot go stale. */
static int
hs_fail_pattern(const struct hs_traffic_params *p, char *err,
		unsigned int err_size)
{
	char names[CM_EXPECT_SIZE] = "";
	size_t used = 0;
	int i, n;

	for (i = 0; i < HS_PATTERN_NB && used < sizeof(names); i++) {
		n = snprintf(names + used, sizeof(names) - used, "%s%s",
			     i ? ", " : "", hs_pattern_names[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return hs_fail(err, err_size,
		       "traffic: unknown pattern %d; expected one of %s",
		       (int)p->pattern, names);
}

static int
hs_build_cm(const struct hs_traffic_params *p, struct hs_traffic *t,
	    char *err, unsigned int err_size)
{
	uint32_t i;
	int rc;

	if (p->cm_path == NULL || p->cm_path[0] == '\0')
		return hs_fail(err, err_size, "traffic: pattern cm has no "
			       "file; expected the path of a .cm file");
	if (p->iterations != 1)
		return hs_fail(err, err_size,
			       "traffic: iterations is %" PRIu32 " but a .cm "
			       "file is replayed once; expected 1 for "
			       "pattern cm",
			       p->iterations);
	rc = hs_traffic_load_cm(p->cm_path, p->nb_ranks, t, err, err_size);
	if (rc < 0)
		return rc;
	for (i = 0; i < t->nb_flows; i++) {
		if (t->flows[i].start_ns > UINT64_MAX - p->start_ns) {
			hs_traffic_free(t);
			return hs_fail(err, err_size, "%s: start times "
				       "overflow once shifted by %" PRIu64
				       " ns; expected earlier start times",
				       p->cm_path, p->start_ns);
		}
		t->flows[i].start_ns += p->start_ns;
	}
	return 0;
}

int
hs_traffic_build(const struct hs_traffic_params *p, struct hs_traffic *t,
		 char *err, unsigned int err_size)
{
	const struct hs_pattern_ops *ops;
	uint64_t per_iter, total;
	struct hs_flow_spec *f;
	int rc;

	t->nb_ranks = 0;
	t->nb_flows = 0;
	t->flows = NULL;
	if ((unsigned int)p->pattern >= HS_PATTERN_NB)
		return hs_fail_pattern(p, err, err_size);
	if (p->nb_ranks < 2)
		return hs_fail(err, err_size,
			       "traffic: nb_ranks is %" PRIu32
			       "; expected at least 2 ranks",
			       p->nb_ranks);
	if (p->iterations < 1)
		return hs_fail(err, err_size,
			       "traffic: iterations is 0; expected at least 1");
	if (p->pattern == HS_PATTERN_CM)
		return hs_build_cm(p, t, err, err_size);
	if (p->size < 1)
		return hs_fail(err, err_size,
			       "traffic: size is 0; expected at least 1 byte");
	if (p->pattern == HS_PATTERN_INCAST &&
	    (p->incast_degree < 1 || p->incast_degree >= p->nb_ranks))
		return hs_fail(err, err_size,
			       "traffic: incast_degree is %" PRIu32 " with %"
			       PRIu32 " ranks; expected 1 to %" PRIu32,
			       p->incast_degree, p->nb_ranks, p->nb_ranks - 1);

	ops = &hs_pattern_ops[p->pattern];
	per_iter = ops->nb_flows(p);
	total = hs_mul_sat(per_iter, p->iterations);
	if (total > HS_MAX_FLOWS)
		return hs_fail(err, err_size,
			       "traffic: %s over %" PRIu32 " ranks x %" PRIu32
			       " iterations makes more than %" PRIu32
			       " flows; expected fewer ranks or iterations",
			       hs_pattern_names[p->pattern], p->nb_ranks,
			       p->iterations, (uint32_t)HS_MAX_FLOWS);
	f = calloc(total, sizeof(*f));
	if (f == NULL) {
		hs_fail(err, err_size,
			"traffic: cannot allocate %" PRIu64 " flows", total);
		return -ENOMEM;
	}
	ops->fill(p, f);
	rc = hs_chain_iterations(p, f, (uint32_t)per_iter, err, err_size);
	if (rc < 0) {
		free(f);
		return rc;
	}
	t->nb_ranks = p->nb_ranks;
	t->nb_flows = (uint32_t)total;
	t->flows = f;
	return 0;
}

void
hs_traffic_free(struct hs_traffic *t)
{
	if (t == NULL)
		return;
	free(t->flows);
	t->flows = NULL;
	t->nb_flows = 0;
	t->nb_ranks = 0;
}

/*
 * .cm parser.
 */

/* An "id X" seen so far: which flow and on which line. */
struct cm_id {
	uint64_t id;
	uint64_t line;
	uint32_t flow;		/* HS_NO_DEP: empty slot */
};

struct cm_parser {
	const char *path;
	uint32_t nb_ranks_expected;
	char *err;
	unsigned int err_size;

	uint64_t line;
	char *tok[CM_MAX_TOKENS];
	unsigned int nb_tok;

	bool have_nodes;
	bool have_conns;
	uint32_t nb_nodes;
	uint32_t nb_conns;	/* as the header says */

	struct hs_flow_spec *flows;
	uint32_t nb_flows;
	uint32_t flows_cap;

	struct cm_id *ids;	/* open addressing, power-of-two size */
	uint32_t ids_cap;
	uint32_t nb_ids;
};

/*
 * "PATH:LINE: WHAT 'TEXT'; expected EXPECT".  TEXT is quoted only up to
 * CM_QUOTE_MAX characters so that the expectation is never cut off.
 */
static int
cm_fail(struct cm_parser *p, const char *what, const char *text,
	const char *expect)
{
	size_t len = strlen(text);

	if (p->err != NULL && p->err_size > 0)
		snprintf(p->err, p->err_size,
			 "%s:%" PRIu64 ": %s '%.*s%s'; expected %s", p->path,
			 p->line, what, CM_QUOTE_MAX, text,
			 len > CM_QUOTE_MAX ? "..." : "", expect);
	return -EINVAL;
}

/* Errors that concern a whole line quote its tokens joined by a space. */
static const char *
cm_line_text(struct cm_parser *p, char *buf, size_t size)
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

static int
cm_fail_file(struct cm_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
cm_fail_file(struct cm_parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->err != NULL && p->err_size > 0) {
		n = snprintf(p->err, p->err_size, "%s: ", p->path);
		if (n >= 0 && (unsigned int)n < p->err_size) {
			va_start(ap, fmt);
			vsnprintf(p->err + n, p->err_size - n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

static uint32_t
cm_id_slot(uint64_t id, uint32_t cap)
{
	uint64_t x = id;

	return (uint32_t)ofan_splitmix64(&x) & (cap - 1);
}

static struct cm_id *
cm_id_find(const struct cm_parser *p, uint64_t id)
{
	uint32_t i;

	if (p->ids_cap == 0)
		return NULL;
	for (i = cm_id_slot(id, p->ids_cap); p->ids[i].flow != HS_NO_DEP;
	     i = (i + 1) & (p->ids_cap - 1))
		if (p->ids[i].id == id)
			return &p->ids[i];
	return NULL;
}

static void
cm_id_put(struct cm_id *tab, uint32_t cap, const struct cm_id *e)
{
	uint32_t i;

	for (i = cm_id_slot(e->id, cap); tab[i].flow != HS_NO_DEP;
	     i = (i + 1) & (cap - 1))
		;
	tab[i] = *e;
}

/* Record a new id (known to be absent); keeps the table at most half full. */
static int
cm_id_add(struct cm_parser *p, uint64_t id, uint32_t flow)
{
	struct cm_id e = { .id = id, .flow = flow, .line = p->line };
	struct cm_id *tab;
	uint32_t cap, i;

	if ((uint64_t)(p->nb_ids + 1) * 2 > p->ids_cap) {
		cap = p->ids_cap == 0 ? 64 : p->ids_cap * 2;
		tab = malloc(sizeof(*tab) * cap);
		if (tab == NULL)
			return -ENOMEM;
		for (i = 0; i < cap; i++)
			tab[i].flow = HS_NO_DEP;
		for (i = 0; i < p->ids_cap; i++)
			if (p->ids[i].flow != HS_NO_DEP)
				cm_id_put(tab, cap, &p->ids[i]);
		free(p->ids);
		p->ids = tab;
		p->ids_cap = cap;
	}
	cm_id_put(p->ids, p->ids_cap, &e);
	p->nb_ids++;
	return 0;
}

/* htsim features a host cannot follow: triggers and failures. */
static int
cm_unsupported(struct cm_parser *p, const char *text)
{
	if (strstr(text, "trigger") != NULL ||
	    strcmp(text, "Triggers") == 0)
		return cm_fail(p, "htsim triggers are not supported", text,
			       "'after ID' on a connection instead");
	return cm_fail(p, "htsim failures are not supported", text,
		       "failures in the testbed configuration instead");
}

/* "Nodes N" or "Connections C". */
static int
cm_header(struct cm_parser *p)
{
	const char *key = p->tok[0];
	bool nodes = strcmp(key, "Nodes") == 0;
	bool *seen = nodes ? &p->have_nodes : &p->have_conns;
	char what[CM_WHAT_SIZE], expect[CM_EXPECT_SIZE];
	uint64_t v;

	if (*seen) {
		snprintf(what, sizeof(what), "second '%s' line", key);
		snprintf(expect, sizeof(expect), "one '%s' line", key);
		return cm_fail_line(p, what, expect);
	}
	if (p->nb_tok != 2) {
		snprintf(expect, sizeof(expect), "'%s %s'", key,
			 nodes ? "N" : "C");
		return cm_fail_line(p, "bad header line", expect);
	}
	if (nodes) {
		if (ofan_parse_u64(p->tok[1], &v) < 0 || v < 2 ||
		    v > UINT32_MAX)
			return cm_fail(p, "bad node count", p->tok[1],
				       "an integer from 2 to 4294967295");
		if (p->nb_ranks_expected != 0 && v != p->nb_ranks_expected) {
			snprintf(expect, sizeof(expect),
				 "Nodes %" PRIu32 ", one per rank",
				 p->nb_ranks_expected);
			return cm_fail_line(p, "node count does not match "
					    "the testbed", expect);
		}
		p->nb_nodes = (uint32_t)v;
	} else {
		if (ofan_parse_u64(p->tok[1], &v) < 0 || v < 1 ||
		    v > HS_MAX_FLOWS)
			return cm_fail(p, "bad connection count", p->tok[1],
				       "an integer from 1 to 4294967294");
		p->nb_conns = (uint32_t)v;
	}
	*seen = true;
	return 0;
}

/* "SRC->DST" into two ranks below nb_nodes. */
static int
cm_endpoints(struct cm_parser *p, uint32_t *src, uint32_t *dst)
{
	char *arrow = strstr(p->tok[0], "->");
	char expect[CM_EXPECT_SIZE];
	const char *dst_text;
	uint64_t v[2];
	int i;

	if (arrow == NULL)
		return cm_fail(p, "bad endpoints", p->tok[0],
			       "SRC->DST with no blanks");
	/* Split in place; the arrow is restored for later messages. */
	*arrow = '\0';
	dst_text = arrow + 2;
	snprintf(expect, sizeof(expect), "an integer below %" PRIu32,
		 p->nb_nodes);
	for (i = 0; i < 2; i++) {
		const char *s = i == 0 ? p->tok[0] : dst_text;
		const char *name = i == 0 ? "source" : "destination";
		char what[CM_WHAT_SIZE];

		if (ofan_parse_u64(s, &v[i]) < 0) {
			snprintf(what, sizeof(what), "bad %s rank", name);
			cm_fail(p, what, s, expect);
			*arrow = '-';
			return -EINVAL;
		}
		if (v[i] >= p->nb_nodes) {
			snprintf(what, sizeof(what), "%s rank out of range",
				 name);
			cm_fail(p, what, s, expect);
			*arrow = '-';
			return -EINVAL;
		}
	}
	*arrow = '-';
	if (v[0] == v[1])
		return cm_fail(p, "connection from a rank to itself",
			       p->tok[0], "two different ranks");
	*src = (uint32_t)v[0];
	*dst = (uint32_t)v[1];
	return 0;
}

/* "start T": a plain number is microseconds, as htsim writes it. */
static int
cm_time(const char *s, uint64_t *ns)
{
	char buf[CM_TEXT_SIZE];
	size_t len = strlen(s), digits = strspn(s, "0123456789.");

	if (len > 0 && digits == len) {
		if (len + 3 > sizeof(buf))
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%sus", s);
		return ofan_parse_time(buf, ns);
	}
	return ofan_parse_time(s, ns);
}

static int
cm_grow(struct cm_parser *p)
{
	struct hs_flow_spec *f;
	uint32_t cap;

	if (p->nb_flows < p->flows_cap)
		return 0;
	if (p->flows_cap >= HS_MAX_FLOWS)
		return -ENOMEM;
	cap = p->flows_cap == 0 ? 64 :
	      p->flows_cap > HS_MAX_FLOWS / 2 ? HS_MAX_FLOWS :
	      p->flows_cap * 2;
	f = realloc(p->flows, sizeof(*f) * cap);
	if (f == NULL)
		return -ENOMEM;
	p->flows = f;
	p->flows_cap = cap;
	return 0;
}

/* "id X": a new id; *id is set. */
static int
cm_field_id(struct cm_parser *p, const char *v, uint64_t *id)
{
	char what[CM_WHAT_SIZE];
	const struct cm_id *prior;

	if (ofan_parse_u64(v, id) < 0)
		return cm_fail(p, "bad id", v, CM_EXPECT_ID);
	prior = cm_id_find(p, *id);
	if (prior != NULL) {
		snprintf(what, sizeof(what), "id already used on line %" PRIu64,
			 prior->line);
		return cm_fail(p, what, v, "a unique id");
	}
	return 0;
}

/* "after X": an earlier connection into this one's source; f->dep set. */
static int
cm_field_after(struct cm_parser *p, const char *v, struct hs_flow_spec *f)
{
	char what[CM_WHAT_SIZE], expect[CM_EXPECT_SIZE];
	const struct hs_flow_spec *d;
	const struct cm_id *prior;
	uint64_t after;

	if (ofan_parse_u64(v, &after) < 0)
		return cm_fail(p, "bad dependency", v, CM_EXPECT_AFTER);
	prior = cm_id_find(p, after);
	if (prior == NULL)
		return cm_fail(p, "no earlier connection has this id", v,
			       CM_EXPECT_AFTER);
	d = &p->flows[prior->flow];
	if (d->dst != f->src) {
		snprintf(what, sizeof(what),
			 "dependency on %" PRIu32 "->%" PRIu32 " (line %"
			 PRIu64 "), which does not end at rank %" PRIu32,
			 d->src, d->dst, prior->line, f->src);
		snprintf(expect, sizeof(expect),
			 "the id of an earlier connection into rank %" PRIu32,
			 f->src);
		return cm_fail(p, what, v, expect);
	}
	f->dep = prior->flow;
	return 0;
}

/*
 * "SRC->DST" then keyword-value pairs, checked left to right so that the
 * first thing wrong on the line is the one reported.
 */
static int
cm_connection(struct cm_parser *p)
{
	enum { F_START, F_SIZE, F_ID, F_AFTER, F_NB };
	static const char *const keys[F_NB] = { "start", "size", "id",
						"after" };
	static const char *const placeholders[F_NB] = { "T", "B", "X", "X" };
	char what[CM_WHAT_SIZE], expect[CM_EXPECT_SIZE];
	struct hs_flow_spec f = { .dep = HS_NO_DEP };
	bool seen[F_NB] = { false };
	const char *v;
	uint64_t id = 0;
	unsigned int i;
	int k, rc;

	if (!p->have_nodes || !p->have_conns)
		return cm_fail_line(p, "connection before the header",
				    CM_EXPECT_HEADER);
	if (p->nb_tok == CM_MAX_TOKENS)
		return cm_fail_line(p, "too many fields", CM_EXPECT_CONN);
	rc = cm_endpoints(p, &f.src, &f.dst);
	if (rc < 0)
		return rc;

	for (i = 1; i < p->nb_tok; i += 2) {
		for (k = 0; k < F_NB; k++)
			if (strcmp(p->tok[i], keys[k]) == 0)
				break;
		if (k == F_NB) {
			if (strstr(p->tok[i], "trigger") != NULL)
				return cm_unsupported(p, p->tok[i]);
			return cm_fail(p, "unknown field", p->tok[i],
				       "start, size, id or after");
		}
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
				 placeholders[k]);
			return cm_fail_line(p, what, expect);
		}
		v = p->tok[i + 1];
		switch (k) {
		case F_START:
			if (cm_time(v, &f.start_ns) < 0)
				return cm_fail(p, "bad start time", v,
					       CM_EXPECT_TIME);
			break;
		case F_SIZE:
			if (ofan_parse_size(v, &f.size) < 0)
				return cm_fail(p, "bad size", v,
					       CM_EXPECT_SIZE_B);
			if (f.size == 0)
				return cm_fail(p, "zero size", v,
					       CM_EXPECT_SIZE_B);
			break;
		case F_ID:
			rc = cm_field_id(p, v, &id);
			if (rc < 0)
				return rc;
			break;
		default:
			rc = cm_field_after(p, v, &f);
			if (rc < 0)
				return rc;
			break;
		}
	}
	if (!seen[F_START])
		return cm_fail_line(p, "no 'start' field", CM_EXPECT_CONN);
	if (!seen[F_SIZE])
		return cm_fail_line(p, "no 'size' field", CM_EXPECT_CONN);

	if (cm_grow(p) < 0)
		return -ENOMEM;
	f.id = p->nb_flows;
	if (seen[F_ID] && cm_id_add(p, id, f.id) < 0)
		return -ENOMEM;
	p->flows[p->nb_flows++] = f;
	return 0;
}

/* One line, already stripped of its comment: split it and dispatch. */
static int
cm_line(struct cm_parser *p, char *s)
{
	char *save = NULL, *tok;
	const char *t0;

	p->nb_tok = 0;
	for (tok = strtok_r(s, " \t\r\n\v\f", &save);
	     tok != NULL && p->nb_tok < CM_MAX_TOKENS;
	     tok = strtok_r(NULL, " \t\r\n\v\f", &save))
		p->tok[p->nb_tok++] = tok;
	if (p->nb_tok == 0)
		return 0;
	t0 = p->tok[0];
	if (strcmp(t0, "Nodes") == 0 || strcmp(t0, "Connections") == 0)
		return cm_header(p);
	if (strcmp(t0, "Triggers") == 0 || strcmp(t0, "trigger") == 0 ||
	    strcmp(t0, "Failures") == 0 || strcmp(t0, "failure") == 0)
		return cm_unsupported(p, t0);
	if (strstr(t0, "->") != NULL || isdigit((unsigned char)t0[0]))
		return cm_connection(p);
	return cm_fail_line(p, "unrecognised line",
			    "'Nodes N', 'Connections C' or " CM_EXPECT_CONN);
}

static int
cm_parse(struct cm_parser *p, FILE *fp)
{
	size_t cap = 0;
	char *buf = NULL, *hash;
	ssize_t len;
	int rc = 0;

	while ((len = getline(&buf, &cap, fp)) >= 0) {
		p->line++;
		if (strlen(buf) != (size_t)len) {
			rc = cm_fail(p, "NUL byte in line", buf,
				     "a text file");
			break;
		}
		hash = strchr(buf, '#');
		if (hash != NULL)
			*hash = '\0';
		rc = cm_line(p, buf);
		if (rc < 0)
			break;
	}
	free(buf);
	if (rc == -ENOMEM) {
		cm_fail_file(p, "out of memory at line %" PRIu64, p->line);
		return -ENOMEM;
	}
	if (rc < 0)
		return rc;
	if (ferror(fp)) {
		cm_fail_file(p, "read error; expected a readable file");
		return -EIO;
	}
	if (!p->have_nodes)
		return cm_fail_file(p, "no 'Nodes' line; expected "
				    CM_EXPECT_HEADER);
	if (!p->have_conns)
		return cm_fail_file(p, "no 'Connections' line; expected "
				    CM_EXPECT_HEADER);
	if (p->nb_flows != p->nb_conns)
		return cm_fail_file(p, "Connections says %" PRIu32
				    " but the file has %" PRIu32
				    " connection lines",
				    p->nb_conns, p->nb_flows);
	return 0;
}

int
hs_traffic_load_cm(const char *path, uint32_t nb_ranks_expected,
		   struct hs_traffic *t, char *err, unsigned int err_size)
{
	struct cm_parser p = {
		.path = path,
		.nb_ranks_expected = nb_ranks_expected,
		.err = err,
		.err_size = err_size,
	};
	FILE *fp;
	int rc;

	t->nb_ranks = 0;
	t->nb_flows = 0;
	t->flows = NULL;
	fp = fopen(path, "r");
	if (fp == NULL) {
		rc = -errno;
		hs_fail(err, err_size, "%s: cannot open (%s); expected a "
			"readable .cm file", path, strerror(-rc));
		return rc;
	}
	rc = cm_parse(&p, fp);
	fclose(fp);
	free(p.ids);
	if (rc < 0) {
		free(p.flows);
		return rc;
	}
	t->nb_ranks = p.nb_nodes;
	t->nb_flows = p.nb_flows;
	t->flows = p.flows;
	return 0;
}
