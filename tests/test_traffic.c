/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the traffic patterns and the .cm parser (hs_traffic.h).
 *
 * Patterns are checked for the properties a run relies on: who sends to
 * whom and how much, and in which order flows may start.  The order is
 * checked by a topological simulation: every flow takes one time unit
 * once its dependency has completed, so a flow's completion "level" is
 * 1 + the level of its dependency.  Ring steps and chained iterations must
 * then complete at exactly the level the collective implies.
 *
 * .cm files are written into a fresh temporary directory, which becomes
 * the working directory, so messages name "t.cm" and are compared
 * exactly.  The shipped good file is found through OFAN_TEST_DATA.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "hs_traffic.h"

#define ERR_SIZE 1024
#define CM_NAME "t.cm"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct hs_traffic_params
params_of(enum hs_pattern pattern, uint32_t nb_ranks, uint64_t size)
{
	struct hs_traffic_params p = {
		.pattern = pattern,
		.nb_ranks = nb_ranks,
		.size = size,
		.iterations = 1,
		.seed = 1,
		.incast_degree = 1,
		.start_ns = 777,
		.cm_path = NULL,
	};

	return p;
}

static void
build_ok(const struct hs_traffic_params *p, struct hs_traffic *t)
{
	char err[ERR_SIZE] = "";
	int rc;

	rc = hs_traffic_build(p, t, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s over %u ranks: rc %d: %s",
		      hs_pattern_names[p->pattern], p->nb_ranks, rc, err);
	ck_assert_uint_eq(t->nb_ranks, p->nb_ranks);
	ck_assert_ptr_nonnull(t->flows);
}

/*
 * What every traffic list must satisfy: ids are indexes, ranks are in
 * range, no self-loop, bytes to send, and a dependency is a flow that
 * ends at this flow's source.
 */
static void
check_well_formed(const struct hs_traffic *t)
{
	const struct hs_flow_spec *f, *d;
	uint32_t i;

	for (i = 0; i < t->nb_flows; i++) {
		f = &t->flows[i];
		ck_assert_uint_eq(f->id, i);
		ck_assert_uint_lt(f->src, t->nb_ranks);
		ck_assert_uint_lt(f->dst, t->nb_ranks);
		ck_assert_uint_ne(f->src, f->dst);
		ck_assert_uint_gt(f->size, 0);
		if (f->dep == HS_NO_DEP)
			continue;
		ck_assert_uint_lt(f->dep, t->nb_flows);
		ck_assert_uint_ne(f->dep, i);
		d = &t->flows[f->dep];
		ck_assert_msg(d->dst == f->src,
			      "flow %u (%u->%u) depends on flow %u (%u->%u)",
			      i, f->src, f->dst, f->dep, d->src, d->dst);
	}
}

/*
 * Topological simulation (Kahn): start every flow without a dependency,
 * then every flow whose dependency has completed.  level[i] is the time
 * unit at which flow i completes, order[i] its position in one valid
 * completion order.  Fails the test on a cycle.
 */
static void
simulate(const struct hs_traffic *t, uint32_t *level, uint32_t *order)
{
	uint32_t n = t->nb_flows, head = 0, tail = 0, i, j, done = 0;
	uint32_t *queue = malloc(sizeof(*queue) * (n + 1));

	ck_assert_ptr_nonnull(queue);
	for (i = 0; i < n; i++) {
		level[i] = 0;
		if (t->flows[i].dep == HS_NO_DEP) {
			level[i] = 1;
			queue[tail++] = i;
		}
	}
	/* A flow has one dependency, so its dependants are found by scan. */
	while (head < tail) {
		i = queue[head++];
		order[i] = done++;
		for (j = 0; j < n; j++) {
			if (t->flows[j].dep == i) {
				level[j] = level[i] + 1;
				queue[tail++] = j;
			}
		}
	}
	free(queue);
	ck_assert_msg(done == n, "%u of %u flows can never start (cycle)",
		      n - done, n);
}

START_TEST(test_pattern_names)
{
	static const char *const expect[] = {
		"permutation", "alltoall", "ring_allreduce", "allgather",
		"reduce_scatter", "incast", "tornado", "cm",
	};
	unsigned int i;

	ck_assert_uint_eq(ARRAY_SIZE(expect), HS_PATTERN_NB);
	for (i = 0; i < HS_PATTERN_NB; i++)
		ck_assert_str_eq(hs_pattern_names[i], expect[i]);
	ck_assert_ptr_null(hs_pattern_names[HS_PATTERN_NB]);
}
END_TEST

static const uint64_t seeds[] = { 0, 1, 42, 0xdeadbeefcafef00dull };

START_TEST(test_permutation_derangement)
{
	struct hs_traffic_params p;
	uint32_t n, i, received[64];
	struct hs_traffic t;
	unsigned int s;

	for (n = 2; n <= 64; n++) {
		for (s = 0; s < ARRAY_SIZE(seeds); s++) {
			p = params_of(HS_PATTERN_PERMUTATION, n, 5000);
			p.seed = seeds[s];
			build_ok(&p, &t);
			check_well_formed(&t);
			ck_assert_uint_eq(t.nb_flows, n);
			memset(received, 0, sizeof(received));
			for (i = 0; i < n; i++) {
				/* One flow per rank, in rank order. */
				ck_assert_uint_eq(t.flows[i].src, i);
				ck_assert_uint_ne(t.flows[i].dst, i);
				ck_assert_uint_eq(t.flows[i].size, 5000);
				ck_assert_uint_eq(t.flows[i].start_ns, 777);
				ck_assert_uint_eq(t.flows[i].dep, HS_NO_DEP);
				ck_assert_uint_eq(t.flows[i].iteration, 0);
				ck_assert_uint_eq(t.flows[i].step, 0);
				received[t.flows[i].dst]++;
			}
			for (i = 0; i < n; i++)
				ck_assert_msg(received[i] == 1,
					      "n %u seed %u: rank %u gets %u",
					      n, s, i, received[i]);
			hs_traffic_free(&t);
			ck_assert_ptr_null(t.flows);
		}
	}
}
END_TEST

START_TEST(test_permutation_seeds)
{
	struct hs_traffic_params p = params_of(HS_PATTERN_PERMUTATION, 32,
					       1000);
	struct hs_traffic a, b, c;
	bool differ = false;
	uint32_t i;

	p.seed = 1;
	build_ok(&p, &a);
	build_ok(&p, &b);
	p.seed = 2;
	build_ok(&p, &c);
	ck_assert_uint_eq(a.nb_flows, b.nb_flows);
	ck_assert_int_eq(memcmp(a.flows, b.flows,
				sizeof(*a.flows) * a.nb_flows), 0);
	for (i = 0; i < a.nb_flows; i++)
		differ |= a.flows[i].dst != c.flows[i].dst;
	ck_assert_msg(differ, "seeds 1 and 2 give the same permutation");
	hs_traffic_free(&a);
	hs_traffic_free(&b);
	hs_traffic_free(&c);
}
END_TEST

/*
 * 4 ranks have 9 derangements, of which only 6 are single 4-cycles: a
 * generator that drew cyclic permutations only (Sattolo) would miss the 3
 * products of two swaps.  200 seeds see all 9 unless the draw is badly
 * skewed (a uniform draw misses one with probability below 1e-9).
 */
START_TEST(test_permutation_all_derangements)
{
	struct hs_traffic_params p = params_of(HS_PATTERN_PERMUTATION, 4, 1);
	bool seen[256] = { false };
	unsigned int nb_seen = 0, code, i;
	struct hs_traffic t;
	uint64_t seed;

	for (seed = 0; seed < 200; seed++) {
		p.seed = seed;
		build_ok(&p, &t);
		code = 0;
		for (i = 0; i < 4; i++)
			code = code * 4 + t.flows[i].dst;
		if (!seen[code])
			nb_seen++;
		seen[code] = true;
		hs_traffic_free(&t);
	}
	ck_assert_uint_eq(nb_seen, 9);
}
END_TEST

START_TEST(test_alltoall)
{
	static const uint32_t sizes[] = { 2, 3, 5, 8, 16 };
	uint32_t n, i, k, src, *next, *pairs;
	struct hs_traffic_params p;
	struct hs_traffic t;
	unsigned int s;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		n = sizes[s];
		p = params_of(HS_PATTERN_ALLTOALL, n, 4096);
		build_ok(&p, &t);
		check_well_formed(&t);
		ck_assert_uint_eq(t.nb_flows, n * (n - 1));
		pairs = calloc(n * n, sizeof(*pairs));
		next = calloc(n, sizeof(*next));
		ck_assert_ptr_nonnull(pairs);
		ck_assert_ptr_nonnull(next);
		for (i = 0; i < t.nb_flows; i++) {
			src = t.flows[i].src;
			pairs[src * n + t.flows[i].dst]++;
			/* Rank src meets src+1, src+2, ... in list order. */
			k = ++next[src];
			ck_assert_uint_eq(t.flows[i].dst, (src + k) % n);
			ck_assert_uint_eq(t.flows[i].size, 4096);
			ck_assert_uint_eq(t.flows[i].start_ns, 777);
			ck_assert_uint_eq(t.flows[i].dep, HS_NO_DEP);
		}
		for (i = 0; i < n * n; i++)
			ck_assert_uint_eq(pairs[i], i / n == i % n ? 0 : 1);
		/* Everybody starts on a different destination. */
		for (i = 0; i < n; i++)
			ck_assert_uint_eq(t.flows[i].dst, (i + 1) % n);
		free(pairs);
		free(next);
		hs_traffic_free(&t);
	}
}
END_TEST

struct ring_case {
	enum hs_pattern pattern;
	uint32_t nb_ranks;
	uint64_t size;
	uint32_t steps;		/* per iteration */
	uint64_t chunk;
};

static const struct ring_case ring_cases[] = {
	{ HS_PATTERN_RING_ALLREDUCE, 2, 1000, 2, 500 },
	{ HS_PATTERN_RING_ALLREDUCE, 3, 1000, 4, 334 },
	{ HS_PATTERN_RING_ALLREDUCE, 4, 1024, 6, 256 },
	{ HS_PATTERN_RING_ALLREDUCE, 7, 1, 12, 1 },
	{ HS_PATTERN_RING_ALLREDUCE, 16, 1000001, 30, 62501 },
	{ HS_PATTERN_ALLGATHER, 2, 7, 1, 4 },
	{ HS_PATTERN_ALLGATHER, 5, 1000, 4, 200 },
	{ HS_PATTERN_ALLGATHER, 16, 15, 15, 1 },
	{ HS_PATTERN_REDUCE_SCATTER, 3, 10, 2, 4 },
	{ HS_PATTERN_REDUCE_SCATTER, 8, 8000, 7, 1000 },
};

START_TEST(test_ring)
{
	const struct ring_case *c = &ring_cases[_i];
	uint32_t n = c->nb_ranks, i, r, s, *level, *order, *steps_of;
	struct hs_traffic_params p = params_of(c->pattern, n, c->size);
	const struct hs_flow_spec *f, *d;
	struct hs_traffic t;

	build_ok(&p, &t);
	check_well_formed(&t);
	ck_assert_uint_eq(t.nb_flows, c->steps * n);
	level = malloc(sizeof(*level) * t.nb_flows);
	order = malloc(sizeof(*order) * t.nb_flows);
	steps_of = calloc((size_t)n * c->steps, sizeof(*steps_of));
	ck_assert_ptr_nonnull(level);
	ck_assert_ptr_nonnull(order);
	ck_assert_ptr_nonnull(steps_of);
	simulate(&t, level, order);
	for (i = 0; i < t.nb_flows; i++) {
		f = &t.flows[i];
		ck_assert_uint_eq(f->dst, (f->src + 1) % n);
		ck_assert_uint_eq(f->size, c->chunk);
		ck_assert_uint_eq(f->iteration, 0);
		ck_assert_uint_lt(f->step, c->steps);
		steps_of[f->src * c->steps + f->step]++;
		/* Step s completes at time s + 1: one step per time unit. */
		ck_assert_uint_eq(level[i], f->step + 1);
		if (f->step == 0) {
			ck_assert_uint_eq(f->dep, HS_NO_DEP);
			ck_assert_uint_eq(f->start_ns, 777);
			continue;
		}
		d = &t.flows[f->dep];
		ck_assert_uint_eq(d->step, f->step - 1);
		ck_assert_uint_eq(d->src, (f->src + n - 1) % n);
		ck_assert_uint_eq(d->dst, f->src);
		ck_assert_uint_lt(order[f->dep], order[i]);
	}
	/* Every rank sends every step exactly once. */
	for (r = 0; r < n; r++)
		for (s = 0; s < c->steps; s++)
			ck_assert_uint_eq(steps_of[r * c->steps + s], 1);
	free(level);
	free(order);
	free(steps_of);
	hs_traffic_free(&t);
}
END_TEST

START_TEST(test_incast)
{
	static const uint32_t degrees[] = { 1, 3, 7 };
	struct hs_traffic_params p;
	struct hs_traffic t;
	unsigned int k;
	uint32_t j;

	for (k = 0; k < ARRAY_SIZE(degrees); k++) {
		p = params_of(HS_PATTERN_INCAST, 8, 9000);
		p.incast_degree = degrees[k];
		build_ok(&p, &t);
		check_well_formed(&t);
		ck_assert_uint_eq(t.nb_flows, degrees[k]);
		for (j = 0; j < t.nb_flows; j++) {
			ck_assert_uint_eq(t.flows[j].src, j + 1);
			ck_assert_uint_eq(t.flows[j].dst, 0);
			ck_assert_uint_eq(t.flows[j].size, 9000);
			ck_assert_uint_eq(t.flows[j].dep, HS_NO_DEP);
		}
		hs_traffic_free(&t);
	}
}
END_TEST

START_TEST(test_tornado)
{
	uint32_t n, i, received[33];
	struct hs_traffic_params p;
	struct hs_traffic t;

	for (n = 2; n <= 33; n++) {
		p = params_of(HS_PATTERN_TORNADO, n, 100);
		build_ok(&p, &t);
		check_well_formed(&t);
		ck_assert_uint_eq(t.nb_flows, n);
		memset(received, 0, sizeof(received));
		for (i = 0; i < n; i++) {
			ck_assert_uint_eq(t.flows[i].src, i);
			/* Odd n: floor(n / 2), e.g. 5 ranks: 0->2, 4->1. */
			ck_assert_uint_eq(t.flows[i].dst, (i + n / 2) % n);
			received[t.flows[i].dst]++;
		}
		for (i = 0; i < n; i++)
			ck_assert_uint_eq(received[i], 1);
		hs_traffic_free(&t);
	}
	p = params_of(HS_PATTERN_TORNADO, 5, 100);
	build_ok(&p, &t);
	ck_assert_uint_eq(t.flows[0].dst, 2);
	ck_assert_uint_eq(t.flows[4].dst, 1);
	hs_traffic_free(&t);
}
END_TEST

/*
 * Iterations: the list is the first iteration repeated, and the first
 * flows of a rank in iteration k + 1 wait for the flow that rank receives
 * last in iteration k.  The simulation then shows each iteration
 * completing strictly after the previous one at that rank.
 */
struct iter_case {
	enum hs_pattern pattern;
	uint32_t nb_ranks;
	uint32_t per_iter;	/* flows */
	uint32_t levels;	/* time units per iteration; 0: no chaining */
};

static const struct iter_case iter_cases[] = {
	{ HS_PATTERN_PERMUTATION, 6, 6, 1 },
	{ HS_PATTERN_ALLTOALL, 6, 30, 1 },
	{ HS_PATTERN_RING_ALLREDUCE, 6, 60, 10 },
	{ HS_PATTERN_ALLGATHER, 6, 30, 5 },
	{ HS_PATTERN_REDUCE_SCATTER, 6, 30, 5 },
	{ HS_PATTERN_INCAST, 6, 3, 0 },
	{ HS_PATTERN_TORNADO, 6, 6, 1 },
	{ HS_PATTERN_TORNADO, 7, 7, 1 },
};

START_TEST(test_iterations)
{
	const struct iter_case *c = &iter_cases[_i];
	struct hs_traffic_params p = params_of(c->pattern, c->nb_ranks, 6000);
	const struct hs_flow_spec *f, *g, *d;
	uint32_t n = c->per_iter, k, j, i, last, *level, *order;
	struct hs_traffic t;

	p.iterations = 4;
	p.incast_degree = 3;
	p.seed = 99;
	build_ok(&p, &t);
	check_well_formed(&t);
	ck_assert_uint_eq(t.nb_flows, 4 * n);
	level = malloc(sizeof(*level) * t.nb_flows);
	order = malloc(sizeof(*order) * t.nb_flows);
	ck_assert_ptr_nonnull(level);
	ck_assert_ptr_nonnull(order);
	simulate(&t, level, order);
	for (k = 0; k < 4; k++) {
		for (j = 0; j < n; j++) {
			f = &t.flows[k * n + j];
			g = &t.flows[j];
			ck_assert_uint_eq(f->iteration, k);
			ck_assert_uint_eq(f->src, g->src);
			ck_assert_uint_eq(f->dst, g->dst);
			ck_assert_uint_eq(f->size, g->size);
			ck_assert_uint_eq(f->step, g->step);
			ck_assert_uint_eq(f->start_ns, 777);
			if (c->levels == 0) {
				/* Incast senders receive nothing: no chain. */
				ck_assert_uint_eq(f->dep, HS_NO_DEP);
				ck_assert_uint_eq(level[k * n + j], 1);
				continue;
			}
			ck_assert_uint_eq(level[k * n + j],
					  k * c->levels + f->step + 1);
			if (g->dep != HS_NO_DEP) {
				ck_assert_uint_eq(f->dep, g->dep + k * n);
				continue;
			}
			if (k == 0) {
				ck_assert_uint_eq(f->dep, HS_NO_DEP);
				continue;
			}
			/* The last flow into f's source in iteration k - 1. */
			last = HS_NO_DEP;
			for (i = (k - 1) * n; i < k * n; i++)
				if (t.flows[i].dst == f->src)
					last = i;
			ck_assert_uint_ne(last, HS_NO_DEP);
			ck_assert_uint_eq(f->dep, last);
			d = &t.flows[f->dep];
			ck_assert_uint_eq(d->iteration, k - 1);
			if (c->pattern == HS_PATTERN_ALLTOALL)
				ck_assert_uint_eq(d->src,
						  (f->src + 1) % c->nb_ranks);
			if (c->levels > 1)
				ck_assert_uint_eq(d->step, c->levels - 1);
		}
	}
	free(level);
	free(order);
	hs_traffic_free(&t);
}
END_TEST

struct bad_params_case {
	struct hs_traffic_params p;
	const char *message;
};

static const struct bad_params_case bad_params_cases[] = {
	{ { .pattern = HS_PATTERN_PERMUTATION, .nb_ranks = 1, .size = 1,
	    .iterations = 1 },
	  "traffic: nb_ranks is 1; expected at least 2 ranks" },
	{ { .pattern = HS_PATTERN_ALLTOALL, .nb_ranks = 0, .size = 1,
	    .iterations = 1 },
	  "traffic: nb_ranks is 0; expected at least 2 ranks" },
	{ { .pattern = HS_PATTERN_TORNADO, .nb_ranks = 4, .size = 0,
	    .iterations = 1 },
	  "traffic: size is 0; expected at least 1 byte" },
	{ { .pattern = HS_PATTERN_RING_ALLREDUCE, .nb_ranks = 4, .size = 10,
	    .iterations = 0 },
	  "traffic: iterations is 0; expected at least 1" },
	{ { .pattern = HS_PATTERN_INCAST, .nb_ranks = 8, .size = 10,
	    .iterations = 1, .incast_degree = 0 },
	  "traffic: incast_degree is 0 with 8 ranks; expected 1 to 7" },
	{ { .pattern = HS_PATTERN_INCAST, .nb_ranks = 8, .size = 10,
	    .iterations = 1, .incast_degree = 8 },
	  "traffic: incast_degree is 8 with 8 ranks; expected 1 to 7" },
	{ { .pattern = HS_PATTERN_NB, .nb_ranks = 8, .size = 10,
	    .iterations = 1 },
	  "traffic: unknown pattern 8; expected one of permutation, "
	  "alltoall, ring_allreduce, allgather, reduce_scatter, incast, "
	  "tornado, cm" },
	{ { .pattern = HS_PATTERN_CM, .nb_ranks = 4, .iterations = 1 },
	  "traffic: pattern cm has no file; expected the path of a .cm file" },
	{ { .pattern = HS_PATTERN_CM, .nb_ranks = 4, .iterations = 2,
	    .cm_path = "x.cm" },
	  "traffic: iterations is 2 but a .cm file is replayed once; "
	  "expected 1 for pattern cm" },
	{ { .pattern = HS_PATTERN_ALLTOALL, .nb_ranks = 70000, .size = 1,
	    .iterations = 1 },
	  "traffic: alltoall over 70000 ranks x 1 iterations makes more "
	  "than 4294967294 flows; expected fewer ranks or iterations" },
	{ { .pattern = HS_PATTERN_RING_ALLREDUCE, .nb_ranks = 1000,
	    .size = 1, .iterations = 3000 },
	  "traffic: ring_allreduce over 1000 ranks x 3000 iterations makes "
	  "more than 4294967294 flows; expected fewer ranks or iterations" },
};

START_TEST(test_bad_params)
{
	const struct bad_params_case *c = &bad_params_cases[_i];
	struct hs_flow_spec junk;
	char err[ERR_SIZE] = "";
	struct hs_traffic t = { .nb_ranks = 5, .nb_flows = 5,
				.flows = &junk };

	ck_assert_int_eq(hs_traffic_build(&c->p, &t, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, c->message);
	/* Left empty, so that freeing it is harmless. */
	ck_assert_ptr_null(t.flows);
	ck_assert_uint_eq(t.nb_flows, 0);
	hs_traffic_free(&t);
}
END_TEST

/* Write text (len bytes, or up to its NUL when len is 0) to CM_NAME. */
static void
write_cm(const char *text, size_t len)
{
	FILE *f = fopen(CM_NAME, "w");

	ck_assert_ptr_nonnull(f);
	if (len == 0)
		len = strlen(text);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static void
check_flow(const struct hs_flow_spec *f, uint32_t id, uint32_t src,
	   uint32_t dst, uint64_t start_ns, uint64_t size, uint32_t dep)
{
	ck_assert_uint_eq(f->id, id);
	ck_assert_uint_eq(f->src, src);
	ck_assert_uint_eq(f->dst, dst);
	ck_assert_uint_eq(f->start_ns, start_ns);
	ck_assert_uint_eq(f->size, size);
	ck_assert_uint_eq(f->dep, dep);
	ck_assert_uint_eq(f->iteration, 0);
	ck_assert_uint_eq(f->step, 0);
}

static void
check_good_cm(const struct hs_traffic *t, uint64_t shift)
{
	ck_assert_uint_eq(t->nb_ranks, 4);
	ck_assert_uint_eq(t->nb_flows, 7);
	check_flow(&t->flows[0], 0, 0, 1, shift + 0, 1000, HS_NO_DEP);
	check_flow(&t->flows[1], 1, 1, 2, shift + 1500, 2000, HS_NO_DEP);
	check_flow(&t->flows[2], 2, 2, 3, shift + 250, 4096, HS_NO_DEP);
	check_flow(&t->flows[3], 3, 3, 0, shift + 2000000, 100, 2);
	check_flow(&t->flows[4], 4, 0, 2, shift + 1000000000, 5, 3);
	check_flow(&t->flows[5], 5, 1, 3, shift + 3000, 1000000, HS_NO_DEP);
	check_flow(&t->flows[6], 6, 3, 1, shift + 250, 64, 5);
	check_well_formed(t);
}

static void
good_cm_path(char *path, size_t size)
{
	const char *data = getenv("OFAN_TEST_DATA");

	ck_assert_msg(data != NULL, "OFAN_TEST_DATA is not set");
	snprintf(path, size, "%s/cm/good.cm", data);
}

START_TEST(test_cm_good)
{
	char path[PATH_MAX], err[ERR_SIZE] = "";
	struct hs_traffic_params p;
	struct hs_traffic t;
	int rc;

	good_cm_path(path, sizeof(path));
	rc = hs_traffic_load_cm(path, 4, &t, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	check_good_cm(&t, 0);
	hs_traffic_free(&t);

	/* No expected rank count: the file's says it. */
	rc = hs_traffic_load_cm(path, 0, &t, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	check_good_cm(&t, 0);
	hs_traffic_free(&t);

	/* Through the pattern table, shifted by the start of the run. */
	p = params_of(HS_PATTERN_CM, 4, 0);
	p.cm_path = path;
	p.start_ns = 5000;
	build_ok(&p, &t);
	check_good_cm(&t, 5000);
	hs_traffic_free(&t);
}
END_TEST

/* Files that must parse, with the flows they give in short. */
struct good_cm_case {
	const char *text;
	uint32_t nb_ranks;
	uint32_t nb_flows;
	uint32_t src, dst;	/* of the last flow */
	uint64_t start_ns, size;
	uint32_t dep;
};

static const struct good_cm_case good_cm_cases[] = {
	/* Nodes first. */
	{ "Nodes 3\nConnections 1\n1->2 start 7 size 9\n",
	  3, 1, 1, 2, 7000, 9, HS_NO_DEP },
	/* CRLF line ends and no final newline. */
	{ "Nodes 3\r\nConnections 1\r\n2->0 start 2.5 size 10\r\n",
	  3, 1, 2, 0, 2500, 10, HS_NO_DEP },
	{ "Nodes 3\nConnections 1\n2->0 start 1ms size 1", 3, 1, 2, 0,
	  1000000, 1, HS_NO_DEP },
	/* Tabs, runs of blanks, a trailing comment hiding junk. */
	{ "\tNodes\t2 \n  Connections   1\t# one\n"
	  " 0->1\t\tstart  0   size 5  # id 3 junk\n",
	  2, 1, 0, 1, 0, 5, HS_NO_DEP },
	/* Fields in another order; htsim's default fractional output. */
	{ "Nodes 4\nConnections 2\n0->1 id 99 size 1 start 0.000000\n"
	  "1->3 after 99 size 2 start 10.000000 id 5\n",
	  4, 2, 1, 3, 10000, 2, 0 },
	/* Rounded to the nearest nanosecond. */
	{ "Nodes 2\nConnections 1\n1->0 start 0.0004 size 1\n",
	  2, 1, 1, 0, 0, 1, HS_NO_DEP },
	{ "Nodes 2\nConnections 1\n1->0 start 0.0005 size 1\n",
	  2, 1, 1, 0, 1, 1, HS_NO_DEP },
	/* Upper-case units, as in the config files. */
	{ "Nodes 2\nConnections 1\n1->0 start 3US size 2KB\n",
	  2, 1, 1, 0, 3000, 2000, HS_NO_DEP },
	/* The largest id. */
	{ "Nodes 2\nConnections 2\n0->1 start 0 size 1 id "
	  "18446744073709551615\n1->0 start 0 size 1 after "
	  "18446744073709551615\n", 2, 2, 1, 0, 0, 1, 0 },
};

START_TEST(test_cm_good_variants)
{
	const struct good_cm_case *c = &good_cm_cases[_i];
	const struct hs_flow_spec *f;
	char err[ERR_SIZE] = "";
	struct hs_traffic t;
	int rc;

	write_cm(c->text, 0);
	rc = hs_traffic_load_cm(CM_NAME, 0, &t, err, sizeof(err));
	unlink(CM_NAME);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_uint_eq(t.nb_ranks, c->nb_ranks);
	ck_assert_uint_eq(t.nb_flows, c->nb_flows);
	check_well_formed(&t);
	f = &t.flows[t.nb_flows - 1];
	ck_assert_uint_eq(f->src, c->src);
	ck_assert_uint_eq(f->dst, c->dst);
	ck_assert_uint_eq(f->start_ns, c->start_ns);
	ck_assert_uint_eq(f->size, c->size);
	ck_assert_uint_eq(f->dep, c->dep);
	hs_traffic_free(&t);
}
END_TEST

/*
 * Malformed files.  line 0 means a whole-file message ("t.cm: ..."),
 * else "t.cm:LINE: ...".  expected_ranks is the testbed's rank count.
 */
struct bad_cm_case {
	const char *text;
	size_t len;		/* 0: up to the NUL */
	uint32_t expected_ranks;
	unsigned int line;
	const char *message;
};

#define H "Nodes 4\nConnections 1\n"
#define H2 "Nodes 4\nConnections 2\n"
#define HEADER_EXPECT \
	"expected 'Nodes N' and 'Connections C' before the connections"
#define CONN_EXPECT "expected SRC->DST start T size B [id X] [after X]"
#define TIME_EXPECT "expected a time >= 0: microseconds (12.5) or with a " \
	"unit ns/us/ms/s (250ns)"
#define SIZE_EXPECT "expected a number of bytes > 0 (1000000, 64KiB, 1MB)"
#define RANK_EXPECT "expected an integer below 4"

static const struct bad_cm_case bad_cm_cases[] = {
	/* The header. */
	{ "", 0, 0, 0, "no 'Nodes' line; " HEADER_EXPECT },
	{ "# only a comment\n\n", 0, 0, 0, "no 'Nodes' line; " HEADER_EXPECT },
	{ "Nodes 4\n", 0, 0, 0, "no 'Connections' line; " HEADER_EXPECT },
	{ "Connections 4\n", 0, 0, 0, "no 'Nodes' line; " HEADER_EXPECT },
	{ "0->1 start 0 size 10\n", 0, 0, 1,
	  "connection before the header '0->1 start 0 size 10'; "
	  HEADER_EXPECT },
	{ "Nodes 4\n0->1 start 0 size 10\nConnections 1\n", 0, 0, 2,
	  "connection before the header '0->1 start 0 size 10'; "
	  HEADER_EXPECT },
	{ "Nodes 0\n", 0, 0, 1,
	  "bad node count '0'; expected an integer from 2 to 4294967295" },
	{ "Nodes 1\n", 0, 0, 1,
	  "bad node count '1'; expected an integer from 2 to 4294967295" },
	{ "Nodes four\n", 0, 0, 1,
	  "bad node count 'four'; expected an integer from 2 to 4294967295" },
	{ "Nodes -4\n", 0, 0, 1,
	  "bad node count '-4'; expected an integer from 2 to 4294967295" },
	{ "Nodes 4294967296\n", 0, 0, 1,
	  "bad node count '4294967296'; expected an integer from 2 to "
	  "4294967295" },
	{ "Nodes\n", 0, 0, 1, "bad header line 'Nodes'; expected 'Nodes N'" },
	{ "Nodes 4 5\n", 0, 0, 1,
	  "bad header line 'Nodes 4 5'; expected 'Nodes N'" },
	{ "Nodes 4\nNodes 4\n", 0, 0, 2,
	  "second 'Nodes' line 'Nodes 4'; expected one 'Nodes' line" },
	{ "Nodes 4\n", 0, 8, 1,
	  "node count does not match the testbed 'Nodes 4'; expected "
	  "Nodes 8, one per rank" },
	{ "Connections 0\n", 0, 0, 1,
	  "bad connection count '0'; expected an integer from 1 to "
	  "4294967294" },
	{ "Connections 4294967295\n", 0, 0, 1,
	  "bad connection count '4294967295'; expected an integer from 1 "
	  "to 4294967294" },
	{ "Connections x\n", 0, 0, 1,
	  "bad connection count 'x'; expected an integer from 1 to "
	  "4294967294" },
	{ "Connections\t1 2\n", 0, 0, 1,
	  "bad header line 'Connections 1 2'; expected 'Connections C'" },
	{ "Connections 1\nConnections 1\n", 0, 0, 2,
	  "second 'Connections' line 'Connections 1'; expected one "
	  "'Connections' line" },
	/* The count, checked at the end. */
	{ H2 "0->1 start 0 size 10\n", 0, 0, 0,
	  "Connections says 2 but the file has 1 connection lines" },
	{ H "0->1 start 0 size 10\n1->2 start 0 size 10\n", 0, 0, 0,
	  "Connections says 1 but the file has 2 connection lines" },
	/* Lines that are nothing. */
	{ "hello world\n", 0, 0, 1,
	  "unrecognised line 'hello world'; expected 'Nodes N', "
	  "'Connections C' or SRC->DST start T size B [id X] [after X]" },
	{ "nodes 4\n", 0, 0, 1,
	  "unrecognised line 'nodes 4'; expected 'Nodes N', "
	  "'Connections C' or SRC->DST start T size B [id X] [after X]" },
	{ "Nodes 4\nCon\0nections 1\n", 23, 0, 2,
	  "NUL byte in line 'Con'; expected a text file" },
	/* Endpoints. */
	{ H "0->4 start 0 size 10\n", 0, 0, 3,
	  "destination rank out of range '4'; " RANK_EXPECT },
	{ H "7->1 start 0 size 10\n", 0, 0, 3,
	  "source rank out of range '7'; " RANK_EXPECT },
	{ H "a->1 start 0 size 10\n", 0, 0, 3,
	  "bad source rank 'a'; " RANK_EXPECT },
	{ H "1->b start 0 size 10\n", 0, 0, 3,
	  "bad destination rank 'b'; " RANK_EXPECT },
	{ H "1-> start 0 size 10\n", 0, 0, 3,
	  "bad destination rank ''; " RANK_EXPECT },
	{ H "->1 start 0 size 10\n", 0, 0, 3,
	  "bad source rank ''; " RANK_EXPECT },
	{ H "-1->2 start 0 size 10\n", 0, 0, 3,
	  "bad source rank '-1'; " RANK_EXPECT },
	{ H "1->2->3 start 0 size 10\n", 0, 0, 3,
	  "bad destination rank '2->3'; " RANK_EXPECT },
	{ H "1-2 start 0 size 10\n", 0, 0, 3,
	  "bad endpoints '1-2'; expected SRC->DST with no blanks" },
	{ H "1 -> 2 start 0 size 10\n", 0, 0, 3,
	  "bad endpoints '1'; expected SRC->DST with no blanks" },
	{ H "2->2 start 0 size 10\n", 0, 0, 3,
	  "connection from a rank to itself '2->2'; expected two different "
	  "ranks" },
	/* Sizes. */
	{ H "0->1 start 0 size -5\n", 0, 0, 3, "bad size '-5'; " SIZE_EXPECT },
	{ H "0->1 start 0 size 0\n", 0, 0, 3, "zero size '0'; " SIZE_EXPECT },
	{ H "0->1 start 0 size 1.5\n", 0, 0, 3,
	  "bad size '1.5'; " SIZE_EXPECT },
	{ H "0->1 start 0 size 10x\n", 0, 0, 3,
	  "bad size '10x'; " SIZE_EXPECT },
	{ H "0->1 start 0 size 99999999999999999999\n", 0, 0, 3,
	  "bad size '99999999999999999999'; " SIZE_EXPECT },
	{ H "0->1 start 0 size\n", 0, 0, 3,
	  "no value after 'size' '0->1 start 0 size'; expected size B" },
	/* Times. */
	{ H "0->1 start -1 size 10\n", 0, 0, 3,
	  "bad start time '-1'; " TIME_EXPECT },
	{ H "0->1 start 1x size 10\n", 0, 0, 3,
	  "bad start time '1x'; " TIME_EXPECT },
	{ H "0->1 start 1.2.3 size 10\n", 0, 0, 3,
	  "bad start time '1.2.3'; " TIME_EXPECT },
	{ H "0->1 start .5 size 10\n", 0, 0, 3,
	  "bad start time '.5'; " TIME_EXPECT },
	{ H "0->1 start 1e3 size 10\n", 0, 0, 3,
	  "bad start time '1e3'; " TIME_EXPECT },
	{ H "0->1 start 5min size 10\n", 0, 0, 3,
	  "bad start time '5min'; " TIME_EXPECT },
	{ H "0->1 start 99999999999999999999 size 10\n", 0, 0, 3,
	  "bad start time '99999999999999999999'; " TIME_EXPECT },
	{ H "0->1 start size 10\n", 0, 0, 3,
	  "bad start time 'size'; " TIME_EXPECT },
	/* Keywords. */
	{ H "0->1 size 10\n", 0, 0, 3,
	  "no 'start' field '0->1 size 10'; " CONN_EXPECT },
	{ H "0->1 start 0\n", 0, 0, 3,
	  "no 'size' field '0->1 start 0'; " CONN_EXPECT },
	{ H "0->1\n", 0, 0, 3, "no 'start' field '0->1'; " CONN_EXPECT },
	{ H "0->1 start 0 size 10 junk\n", 0, 0, 3,
	  "unknown field 'junk'; expected start, size, id or after" },
	{ H "0->1 start 0 size 10 prio 3\n", 0, 0, 3,
	  "unknown field 'prio'; expected start, size, id or after" },
	{ H "0->1 start 0 10 size\n", 0, 0, 3,
	  "unknown field '10'; expected start, size, id or after" },
	{ H "0->1 start 0 start 1 size 10\n", 0, 0, 3,
	  "second 'start' field 'start'; expected each field at most once" },
	{ H "0->1 start 0 size 10 size 10\n", 0, 0, 3,
	  "second 'size' field 'size'; expected each field at most once" },
	/* Ids and dependencies. */
	{ H "0->1 start 0 size 10 id x\n", 0, 0, 3,
	  "bad id 'x'; expected a non-negative integer" },
	{ H "0->1 start 0 size 10 id -1\n", 0, 0, 3,
	  "bad id '-1'; expected a non-negative integer" },
	{ H "0->1 start 0 size 10 id\n", 0, 0, 3,
	  "no value after 'id' '0->1 start 0 size 10 id'; expected id X" },
	{ H2 "0->1 start 0 size 10 id 3\n\n1->2 start 0 size 10 id 3\n",
	  0, 0, 5, "id already used on line 3 '3'; expected a unique id" },
	{ H2 "0->1 start 0 size 10 id 3\n1->2 start 0 size 10 id 4 id 5\n",
	  0, 0, 4, "second 'id' field 'id'; expected each field at most "
	  "once" },
	{ H "0->1 start 0 size 10 after x\n", 0, 0, 3,
	  "bad dependency 'x'; expected the id of an earlier connection" },
	{ H "0->1 start 0 size 10 after\n", 0, 0, 3,
	  "no value after 'after' '0->1 start 0 size 10 after'; expected "
	  "after X" },
	{ H2 "0->1 start 0 size 10 id 3\n1->2 start 0 size 10 after 4\n",
	  0, 0, 4, "no earlier connection has this id '4'; expected the id "
	  "of an earlier connection" },
	{ H2 "1->2 start 0 size 10 after 3\n0->1 start 0 size 10 id 3\n",
	  0, 0, 3, "no earlier connection has this id '3'; expected the id "
	  "of an earlier connection" },
	{ H "0->1 start 0 size 10 id 3 after 3\n", 0, 0, 3,
	  "no earlier connection has this id '3'; expected the id of an "
	  "earlier connection" },
	{ H2 "0->1 start 0 size 10 id 3\n2->3 start 0 size 10 after 3\n",
	  0, 0, 4, "dependency on 0->1 (line 3), which does not end at rank "
	  "2 '3'; expected the id of an earlier connection into rank 2" },
	{ H2 "0->1 start 0 size 10 id 3\n0->2 start 0 size 10 after 3\n",
	  0, 0, 4, "dependency on 0->1 (line 3), which does not end at rank "
	  "0 '3'; expected the id of an earlier connection into rank 0" },
	/* htsim features a host cannot follow. */
	{ H "0->1 start 0 size 10 send_done_trigger 1\n", 0, 0, 3,
	  "htsim triggers are not supported 'send_done_trigger'; expected "
	  "'after ID' on a connection instead" },
	{ H "0->1 size 10 trigger 1\n", 0, 0, 3,
	  "htsim triggers are not supported 'trigger'; expected 'after ID' "
	  "on a connection instead" },
	{ "Triggers 1\n", 0, 0, 1,
	  "htsim triggers are not supported 'Triggers'; expected 'after ID' "
	  "on a connection instead" },
	{ H "trigger id 1 oneshot\n", 0, 0, 3,
	  "htsim triggers are not supported 'trigger'; expected 'after ID' "
	  "on a connection instead" },
	{ "Failures 1\n", 0, 0, 1,
	  "htsim failures are not supported 'Failures'; expected failures "
	  "in the testbed configuration instead" },
	/* Line numbers count comments, blank lines and CRLF lines. */
	{ "# c\n\nNodes 4\n\n# x\nConnections 1\n\n0->9 start 0 size 1\n",
	  0, 0, 8, "destination rank out of range '9'; " RANK_EXPECT },
	{ "Nodes 4\r\nConnections 1\r\n0->1 start 0 size 0\r\n", 0, 0, 3,
	  "zero size '0'; " SIZE_EXPECT },
	{ H "0->1 start 0 size 5\n0->1 start 0 size 5 id\n", 0, 0, 4,
	  "no value after 'id' '0->1 start 0 size 5 id'; expected id X" },
};

START_TEST(test_cm_bad)
{
	const struct bad_cm_case *c = &bad_cm_cases[_i];
	char err[ERR_SIZE] = "", expect[ERR_SIZE];
	struct hs_flow_spec junk;
	struct hs_traffic t = { .nb_ranks = 5, .nb_flows = 5,
				.flows = &junk };
	int rc;

	write_cm(c->text, c->len);
	rc = hs_traffic_load_cm(CM_NAME, c->expected_ranks, &t, err,
				sizeof(err));
	unlink(CM_NAME);
	if (c->line == 0)
		snprintf(expect, sizeof(expect), "%s: %s", CM_NAME,
			 c->message);
	else
		snprintf(expect, sizeof(expect), "%s:%u: %s", CM_NAME,
			 c->line, c->message);
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_str_eq(err, expect);
	ck_assert_ptr_null(t.flows);
	ck_assert_uint_eq(t.nb_flows, 0);
}
END_TEST

/* A long offending text is cut so that the expectation still shows. */
START_TEST(test_cm_long_text)
{
	char text[512], err[ERR_SIZE] = "", expect[ERR_SIZE];
	char junk[201];
	struct hs_traffic t;

	memset(junk, 'z', sizeof(junk) - 1);
	junk[sizeof(junk) - 1] = '\0';
	snprintf(text, sizeof(text), H "0->1 start 0 size 10 %s 1\n", junk);
	write_cm(text, 0);
	ck_assert_int_eq(hs_traffic_load_cm(CM_NAME, 0, &t, err, sizeof(err)),
			 -EINVAL);
	unlink(CM_NAME);
	snprintf(expect, sizeof(expect),
		 "t.cm:3: unknown field '%.80s...'; expected start, size, id "
		 "or after", junk);
	ck_assert_str_eq(err, expect);

	/* More fields than any connection line has. */
	snprintf(text, sizeof(text), H "0->1%s\n",
		 " id 1 id 1 id 1 id 1 id 1 id 1 id 1 id 1 id 1 id 1"
		 " id 1 id 1 id 1 id 1 id 1 id 1 id 1");
	write_cm(text, 0);
	ck_assert_int_eq(hs_traffic_load_cm(CM_NAME, 0, &t, err, sizeof(err)),
			 -EINVAL);
	unlink(CM_NAME);
	/* 80 characters: "0->1", 15 times " id 1" and a blank. */
	ck_assert_str_eq(err, "t.cm:3: too many fields '0->1 id 1 id 1 id 1 "
			 "id 1 id 1 id 1 id 1 id 1 id 1 id 1 id 1 id 1 id 1 "
			 "id 1 id 1 ...'; " CONN_EXPECT);

	/* A small buffer gets a cut message, never an overflow. */
	write_cm(H "0->1 start 0 size 0\n", 0);
	ck_assert_int_eq(hs_traffic_load_cm(CM_NAME, 0, &t, err, 12),
			 -EINVAL);
	unlink(CM_NAME);
	ck_assert_str_eq(err, "t.cm:3: zer");
}
END_TEST

START_TEST(test_cm_missing_file)
{
	char err[ERR_SIZE] = "";
	struct hs_traffic_params p = params_of(HS_PATTERN_CM, 4, 0);
	struct hs_traffic t;

	ck_assert_int_eq(hs_traffic_load_cm("absent.cm", 4, &t, err,
					    sizeof(err)), -ENOENT);
	ck_assert_str_eq(err, "absent.cm: cannot open (No such file or "
			 "directory); expected a readable .cm file");
	ck_assert_ptr_null(t.flows);

	/* hs_traffic_build passes the testbed's rank count on. */
	write_cm(H "0->1 start 0 size 5\n", 0);
	p.cm_path = CM_NAME;
	p.nb_ranks = 6;
	ck_assert_int_eq(hs_traffic_build(&p, &t, err, sizeof(err)), -EINVAL);
	unlink(CM_NAME);
	ck_assert_str_eq(err, "t.cm:1: node count does not match the testbed "
			 "'Nodes 4'; expected Nodes 6, one per rank");
}
END_TEST

/* Many ids: the id table grows and still finds every one of them. */
START_TEST(test_cm_many_ids)
{
	const uint32_t nb = 5000;
	char err[ERR_SIZE] = "", line[128];
	struct hs_traffic t;
	uint32_t i;
	FILE *f;
	int rc;

	f = fopen(CM_NAME, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "Nodes 2\nConnections %u\n", nb);
	/* A ping-pong chain: each flow after the previous one. */
	for (i = 0; i < nb; i++) {
		snprintf(line, sizeof(line), "%u->%u start 0 size 1 id %u",
			 i % 2, 1 - i % 2, i * 7919 + 3);
		if (i > 0)
			fprintf(f, "%s after %u\n", line, (i - 1) * 7919 + 3);
		else
			fprintf(f, "%s\n", line);
	}
	ck_assert_int_eq(fclose(f), 0);
	rc = hs_traffic_load_cm(CM_NAME, 2, &t, err, sizeof(err));
	unlink(CM_NAME);
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_uint_eq(t.nb_flows, nb);
	check_well_formed(&t);
	ck_assert_uint_eq(t.flows[0].dep, HS_NO_DEP);
	for (i = 1; i < nb; i++)
		ck_assert_uint_eq(t.flows[i].dep, i - 1);
	hs_traffic_free(&t);
}
END_TEST

static Suite *
traffic_suite(void)
{
	Suite *s = suite_create("traffic");
	TCase *tp = tcase_create("patterns");
	TCase *tc = tcase_create("cm");

	tcase_add_test(tp, test_pattern_names);
	tcase_add_test(tp, test_permutation_derangement);
	tcase_add_test(tp, test_permutation_seeds);
	tcase_add_test(tp, test_permutation_all_derangements);
	tcase_add_test(tp, test_alltoall);
	tcase_add_loop_test(tp, test_ring, 0, ARRAY_SIZE(ring_cases));
	tcase_add_test(tp, test_incast);
	tcase_add_test(tp, test_tornado);
	tcase_add_loop_test(tp, test_iterations, 0, ARRAY_SIZE(iter_cases));
	tcase_add_loop_test(tp, test_bad_params, 0,
			    ARRAY_SIZE(bad_params_cases));
	suite_add_tcase(s, tp);

	tcase_add_test(tc, test_cm_good);
	tcase_add_loop_test(tc, test_cm_good_variants, 0,
			    ARRAY_SIZE(good_cm_cases));
	tcase_add_loop_test(tc, test_cm_bad, 0, ARRAY_SIZE(bad_cm_cases));
	tcase_add_test(tc, test_cm_long_text);
	tcase_add_test(tc, test_cm_missing_file);
	tcase_add_test(tc, test_cm_many_ids);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	char dir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	SRunner *sr;
	int failed;

	snprintf(dir, sizeof(dir), "%s/ofan-test-traffic-XXXXXX",
		 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL || chdir(dir) != 0) {
		perror(dir);
		return EXIT_FAILURE;
	}
	sr = srunner_create(traffic_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (chdir("/") != 0 || rmdir(dir) != 0)
		perror(dir);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
