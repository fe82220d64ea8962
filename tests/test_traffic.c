/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the traffic patterns (hs_traffic.h; the .cm reader has its
 * own, test_cm.c).
 *
 * Patterns are checked for the properties a run relies on: who sends to
 * whom and how much, and in which order flows may start.  The order is
 * checked by a topological simulation: every flow takes one time unit
 * once its dependency has completed, so a flow's completion "level" is
 * 1 + the level of its dependency.  Ring steps and chained iterations must
 * then complete at exactly the level the collective implies.
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

#include "hs_cm.h"
#include "hs_pattern.h"
#include "hs_traffic.h"
#include "pattern_conformance.h"
#include "registry_check.h"
#include "unit_suite.h"

#define ERR_SIZE 1024
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The settings of the patterns the tests build: their defaults. */
static struct hs_pattern_settings t_set;

static const void *
t_settings(const struct hs_pattern_ops *ops)
{
	memset(&t_set, 0, sizeof(t_set));
	if (ops != NULL && ops->defaults != NULL)
		ops->defaults(t_set.b);
	return ops != NULL && ops->settings_size > 0 ? t_set.b : NULL;
}

static void
t_set_degree(struct hs_traffic_params *p, uint32_t degree)
{
	((struct hs_incast_settings *)t_set.b)->degree = degree;
	p->settings = t_set.b;
}

static struct hs_traffic_params
params_of(const char *pattern, uint32_t nb_ranks, uint64_t size)
{
	struct hs_traffic_params p = {
		.pattern = hs_pattern_find(pattern),
		.nb_ranks = nb_ranks,
		.size = size,
		.iterations = 1,
		.seed = 1,
		.start_ns = 777,
	};

	p.settings = t_settings(p.pattern);

	return p;
}

static void
build_ok(const struct hs_traffic_params *p, struct hs_traffic *t)
{
	char err[ERR_SIZE] = "";
	int rc;

	rc = hs_pattern_build(p, t, NULL, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s over %u ranks: rc %d: %s",
		      p->pattern->name, p->nb_ranks, rc, err);
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
		"reduce_scatter", "incast", "tornado", "cm", "ring", "podring",
		"podring_ol", "torring",
	};
	const char *names[HS_MAX_PATTERNS + 1];
	unsigned int i;

	/* The built-ins in documentation order (a test may add its own). */
	ck_assert_uint_ge(hs_pattern_name_list(names), ARRAY_SIZE(expect));
	for (i = 0; i < ARRAY_SIZE(expect); i++) {
		ck_assert_str_eq(names[i], expect[i]);
		ck_assert_ptr_eq(hs_pattern_find(expect[i]),
				 hs_pattern_registry[i]);
		ck_assert_ptr_nonnull(hs_pattern_registry[i]->summary);
		/* The ToR and pod sizes are asked for exactly by these. */
		ck_assert_int_eq(hs_pattern_registry[i]->needs_topology,
				 i >= 8);
		ck_assert_int_eq(hs_pattern_registry[i]->reads_file, i == 7);
	}
	ck_assert_ptr_eq(hs_pattern_find("PodRing"), hs_pattern_find("podring"));
	ck_assert_ptr_null(hs_pattern_find("spiral"));
	ck_assert_ptr_eq(hs_pattern_default(), hs_pattern_find("permutation"));
	/* ofan-host --help's lines. */
	T_CHECK_DESCRIBE(hs_pattern_describe, hs_pattern_registry);
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
			p = params_of("permutation", n, 5000);
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
	struct hs_traffic_params p = params_of("permutation", 32,
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
	struct hs_traffic_params p = params_of("permutation", 4, 1);
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
		p = params_of("alltoall", n, 4096);
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
	const char *pattern;	/* its name */
	uint32_t nb_ranks;
	uint64_t size;
	uint32_t steps;		/* per iteration */
	uint64_t chunk;
};

static const struct ring_case ring_cases[] = {
	{ "ring_allreduce", 2, 1000, 2, 500 },
	{ "ring_allreduce", 3, 1000, 4, 334 },
	{ "ring_allreduce", 4, 1024, 6, 256 },
	{ "ring_allreduce", 7, 1, 12, 1 },
	{ "ring_allreduce", 16, 1000001, 30, 62501 },
	{ "allgather", 2, 7, 1, 4 },
	{ "allgather", 5, 1000, 4, 200 },
	{ "allgather", 16, 15, 15, 1 },
	{ "reduce_scatter", 3, 10, 2, 4 },
	{ "reduce_scatter", 8, 8000, 7, 1000 },
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
		p = params_of("incast", 8, 9000);
		t_set_degree(&p, degrees[k]);
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
		p = params_of("tornado", n, 100);
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
	p = params_of("tornado", 5, 100);
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
	const char *pattern;	/* its name */
	uint32_t nb_ranks;
	uint32_t per_iter;	/* flows */
	uint32_t levels;	/* time units per iteration; 0: no chaining */
};

static const struct iter_case iter_cases[] = {
	{ "permutation", 6, 6, 1 },
	{ "alltoall", 6, 30, 1 },
	{ "ring_allreduce", 6, 60, 10 },
	{ "allgather", 6, 30, 5 },
	{ "reduce_scatter", 6, 30, 5 },
	{ "incast", 6, 3, 0 },
	{ "tornado", 6, 6, 1 },
	{ "tornado", 7, 7, 1 },
};

START_TEST(test_iterations)
{
	const struct iter_case *c = &iter_cases[_i];
	struct hs_traffic_params p = params_of(c->pattern, c->nb_ranks, 6000);
	const struct hs_flow_spec *f, *g, *d;
	uint32_t n = c->per_iter, k, j, i, last, *level, *order;
	struct hs_traffic t;

	p.iterations = 4;
	t_set_degree(&p, 3);
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
			if (strcmp(c->pattern, "alltoall") == 0)
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
	const char *pattern;	/* its name; NULL: none */
	struct hs_traffic_params p;
	const char *message;
	uint32_t degree;	/* incast's setting */
	const char *cm;		/* cm's setting */
};

static const struct bad_params_case bad_params_cases[] = {
	{ "permutation", { .nb_ranks = 1, .size = 1,
	    .iterations = 1 },
	  "traffic: nb_ranks is 1; expected at least 2 ranks", 0, NULL },
	{ "alltoall", { .nb_ranks = 0, .size = 1,
	    .iterations = 1 },
	  "traffic: nb_ranks is 0; expected at least 2 ranks", 0, NULL },
	{ "tornado", { .nb_ranks = 4, .size = 0,
	    .iterations = 1 },
	  "traffic: size is 0; expected at least 1 byte", 0, NULL },
	{ "ring_allreduce", { .nb_ranks = 4, .size = 10,
	    .iterations = 0 },
	  "traffic: iterations is 0; expected at least 1", 0, NULL },
	{ "incast", { .nb_ranks = 8, .size = 10,
	    .iterations = 1 },
	  "traffic:incast_degree: '0' senders with 8 ranks; expected 1 to 7 "
	  "(fewer than the ranks)", 0, NULL },
	{ "incast", { .nb_ranks = 8, .size = 10,
	    .iterations = 1 },
	  "traffic:incast_degree: '8' senders with 8 ranks; expected 1 to 7 "
	  "(fewer than the ranks)", 8, NULL },
	{ NULL, { .nb_ranks = 8, .size = 10,
	    .iterations = 1 },
	  "traffic: no pattern; expected one of permutation, "
	  "alltoall, ring_allreduce, allgather, reduce_scatter, incast, "
	  "tornado, cm, ring, podring, podring_ol, torring, jobs", 0, NULL },
	{ "podring", { .nb_ranks = 16, .size = 1,
	    .iterations = 1, .tor_size = 2, .pod_size = 6 },
	  "traffic:pod_size: '6' with tor_size 2 and 16 ranks; expected "
	  "tor_size dividing pod_size and pod_size dividing the rank count "
	  "(pattern = podring)", 0, NULL },
	{ "podring", { .nb_ranks = 16, .size = 1,
	    .iterations = 1, .tor_size = 2 },
	  "traffic:pod_size: missing; expected the hosts per pod for "
	  "pattern = podring", 0, NULL },
	{ "ring", { .nb_ranks = 16, .size = 1,
	    .iterations = 1, .tor_size = 1, .pod_size = 4 },
	  "traffic:tor_size: '1'; expected at least 2 hosts per ToR for "
	  "pattern = ring", 0, NULL },
	{ "torring", { .nb_ranks = 16, .size = 1,
	    .iterations = 1, .tor_size = 3, .pod_size = 4 },
	  "traffic:pod_size: '4' with tor_size 3 and 16 ranks; expected "
	  "tor_size dividing pod_size and pod_size dividing the rank count "
	  "(pattern = torring)", 0, NULL },
	{ "cm", { .nb_ranks = 4, .iterations = 1 },
	  "traffic:cm_file: missing; expected the path of an htsim "
	  "connection-matrix file for pattern = cm", 0, NULL },
	{ "cm", { .nb_ranks = 4, .iterations = 2 },
	  "traffic:iterations: '2' with a .cm file, which is replayed once; "
	  "expected 1", 0, "x.cm" },
	{ "alltoall", { .nb_ranks = 70000, .size = 1,
	    .iterations = 1 },
	  "traffic: alltoall over 70000 ranks x 1 iterations makes more "
	  "than 4294967294 flows; expected fewer ranks or iterations", 0, NULL },
	{ "ring_allreduce", { .nb_ranks = 1000,
	    .size = 1, .iterations = 3000 },
	  "traffic: ring_allreduce over 1000 ranks x 3000 iterations makes "
	  "more than 4294967294 flows; expected fewer ranks or iterations", 0, NULL },
};

START_TEST(test_bad_params)
{
	const struct bad_params_case *c = &bad_params_cases[_i];
	struct hs_traffic_params p = c->p;
	struct hs_flow_spec junk;
	char err[ERR_SIZE] = "";
	struct hs_traffic t = { .nb_ranks = 5, .nb_flows = 5,
				.flows = &junk };

	p.pattern = c->pattern != NULL ? hs_pattern_find(c->pattern) : NULL;
	p.settings = t_settings(p.pattern);
	if (p.pattern == hs_pattern_find("incast"))
		t_set_degree(&p, c->degree);
	if (c->cm != NULL)
		snprintf(((struct hs_cm_settings *)t_set.b)->path,
			 sizeof(((struct hs_cm_settings *)t_set.b)->path),
			 "%s", c->cm);
	ck_assert_int_eq(hs_pattern_build(&p, &t, NULL, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, c->message);
	/* Left empty, so that freeing it is harmless. */
	ck_assert_ptr_null(t.flows);
	ck_assert_uint_eq(t.nb_flows, 0);
	hs_traffic_free(&t);
}
END_TEST

/*
 * The study's structured permutations on k = 8 (128 hosts, ToRs of 4,
 * pods of 16): the lines of the authors' files
 * (connection_matrices/perm_128n_128c_2MB_{ring,podring,podringol,
 * torring}.cm), every pair src->dst checked where the file lists it.
 */
struct structured_case {
	const char *pattern;	/* its name */
	uint32_t pairs[24][2];
};

static const struct structured_case structured_cases[] = {
	{ "ring", { { 0, 1 }, { 1, 2 }, { 7, 8 }, { 126, 127 },
			     { 127, 0 } } },
	{ "podring", { { 0, 16 }, { 1, 17 }, { 7, 23 }, { 111, 127 },
				{ 112, 1 }, { 113, 2 }, { 126, 15 },
				{ 127, 0 } } },
	{ "podring_ol", { { 0, 1 }, { 1, 16 }, { 2, 18 }, { 3, 19 },
				   { 7, 23 }, { 16, 17 }, { 17, 32 },
				   { 18, 34 }, { 112, 113 }, { 113, 2 },
				   { 114, 3 }, { 126, 15 }, { 127, 0 } } },
	{ "torring", { { 0, 1 }, { 1, 16 }, { 2, 18 }, { 3, 19 },
				{ 4, 5 }, { 5, 20 }, { 6, 22 }, { 7, 23 },
				{ 112, 113 }, { 113, 0 }, { 114, 2 },
				{ 115, 3 }, { 116, 117 }, { 117, 4 },
				{ 126, 14 }, { 127, 15 } } },
};

START_TEST(test_structured)
{
	const struct structured_case *c = &structured_cases[_i];
	struct hs_traffic_params p = params_of(c->pattern, 128, 2097152);
	struct hs_traffic t;
	bool *hit = calloc(128, sizeof(*hit));
	uint32_t i;

	ck_assert_ptr_nonnull(hit);
	p.tor_size = 4;
	p.pod_size = 16;
	build_ok(&p, &t);
	ck_assert_uint_eq(t.nb_flows, 128);
	check_well_formed(&t);
	/* A permutation: every rank sends once and receives once. */
	for (i = 0; i < 128; i++) {
		ck_assert_uint_eq(t.flows[i].src, i);
		ck_assert(!hit[t.flows[i].dst]);
		hit[t.flows[i].dst] = true;
		ck_assert_uint_eq(t.concurrency[i], 1);
	}
	for (i = 0; i < 24 && (c->pairs[i][0] | c->pairs[i][1]) != 0; i++)
		ck_assert_msg(t.flows[c->pairs[i][0]].dst == c->pairs[i][1],
			      "%s: %u -> %u, the authors' file says %u",
			      c->pattern, c->pairs[i][0],
			      t.flows[c->pairs[i][0]].dst, c->pairs[i][1]);
	free(hit);
	hs_traffic_free(&t);
}
END_TEST

/* Flows one source releases together share its rate. */
START_TEST(test_concurrency)
{
	struct hs_traffic_params p = params_of("alltoall", 6, 100);
	struct hs_traffic t;
	uint32_t i;

	p.iterations = 2;
	build_ok(&p, &t);
	for (i = 0; i < t.nb_flows; i++)
		ck_assert_uint_eq(t.concurrency[i], 5);
	hs_traffic_free(&t);
	p = params_of("ring_allreduce", 5, 1000);
	build_ok(&p, &t);
	for (i = 0; i < t.nb_flows; i++)
		ck_assert_uint_eq(t.concurrency[i], 1);
	hs_traffic_free(&t);
}
END_TEST

/*
 * The ideal schedule through dependencies: on a ring all-reduce of N
 * ranks with every flow taking 10 units to be received and 12 to be
 * acknowledged, step s begins at 10 s.
 */
START_TEST(test_ideal_begin)
{
	struct hs_traffic_params p = params_of("ring_allreduce", 4,
					       400);
	uint64_t send[64], recv[64], begin[64];
	struct hs_traffic t;
	uint32_t i;

	build_ok(&p, &t);
	ck_assert_uint_le(t.nb_flows, 64);
	for (i = 0; i < t.nb_flows; i++) {
		send[i] = 12;
		recv[i] = 10;
	}
	ck_assert_int_eq(hs_traffic_ideal_begin(&t, send, recv, 0, begin), 0);
	for (i = 0; i < t.nb_flows; i++)
		ck_assert_uint_eq(begin[i], 777 + 10ull * t.flows[i].step);
	hs_traffic_free(&t);
}
END_TEST

static Suite *
traffic_suite(void)
{
	Suite *s = suite_create("traffic");
	TCase *tp = tcase_create("patterns");

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
	tcase_add_loop_test(tp, test_structured, 0,
			    ARRAY_SIZE(structured_cases));
	tcase_add_test(tp, test_concurrency);
	tcase_add_test(tp, test_ideal_begin);
	suite_add_tcase(s, tp);
	/* The pattern contract, every registered pattern. */
	for (unsigned int i = 0; hs_pattern_registry[i] != NULL; i++)
		suite_add_tcase(s, pattern_conformance_tcase(
					   hs_pattern_registry[i], NULL));

	return s;
}

int
main(void)
{
	return t_unit_run_suite("traffic", traffic_suite());
}
