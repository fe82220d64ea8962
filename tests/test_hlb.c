/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the host load-balancing policies (host/transport/hlb_*.c): no EAL,
 * no packets, only what a policy sees (the EV range, time, the echoed EV
 * and CE bit of each ACK, RTT samples and timeouts).
 *
 * Every policy first runs the contract any policy keeps
 * (tests/lib/hlb_conformance.h: EVs in the range, tiny ranges included,
 * whatever the feedback; hooks within their state; a seed reproduces a
 * run; connections independent; dump() as the host reads it), with its
 * defaults and, for ops, mp and reps, with knobs at their edges; and
 * another seed changes its EVs.  Then each policy's own rule, step by
 * step: REPS's
 * ring, CE drops, overwrites, freezing and thawing; the spread of ops
 * (random and permuted); PLB's rounds; mp's rotation; flowlet's gap.
 * Last, every [host.<policy>] section is parsed, good and bad.
 *
 * Each connection's state here is a heap block of exactly state_size
 * bytes, so running the suite under valgrind also checks that no policy
 * writes past its state.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlb.h"
#include "hlb_conformance.h"
#include "hlb_flowlet.h"
#include "hlb_drb.h"
#include "hlb_mp.h"
#include "hlb_ops.h"
#include "hlb_plb.h"
#include "hlb_reps.h"
#include "ofan_config.h"
#include "ofan_rng.h"
#include "registry_check.h"
#include "t_helpers.h"
#include "unit_suite.h"

#define T_SEED 0x0fa1ba5eull
#define T_BASE_RTT 10000ull		/* ns */
#define T_BDP 16u
#define T_MS 1000000ull
#define T_EV_MIN 49152
#define T_EV_MAX 65535

/* One connection: its policy, the host's parameters and RNG, a clock. */
struct conn {
	const struct hlb_ops *ops;
	struct hlb_params p;
	struct hlb_settings_table set;	/* every policy's settings */
	struct ofan_rng rng;
	uint64_t now;
	void *state;
};

static int
nb_policies(void)
{
	int n = 0;

	while (hlb_registry[n] != NULL)
		n++;
	return n;
}

/* The settings block of policy name in c, for the test to tweak. */
static void *
t_block(struct conn *c, const char *name)
{
	unsigned int i;

	for (i = 0; hlb_registry[i] != NULL; i++)
		if (strcmp(hlb_registry[i]->name, name) == 0)
			return c->set.of[i].bytes;
	ck_abort_msg("no host policy %s", name);
	return NULL;
}

/* Policy name's settings in conn c, or in a settings table t. */
#define T_SET(c, name) ((struct hlb_##name##_settings *)t_block((c), #name))
#define T_TAB(t, name) ((const struct hlb_##name##_settings *) \
			hlb_settings_of((t), hlb_find(#name)))
#define T_TAB_W(t, name) ((struct hlb_##name##_settings *) \
			  hlb_settings_of((t), hlb_find(#name)))

/* Defaults, ready for the test to tweak c->p before c_start(). */
static void
c_params(struct conn *c, const struct hlb_ops *ops, uint16_t ev_min,
	 uint16_t ev_max)
{
	memset(c, 0, sizeof(*c));
	c->ops = ops;
	hlb_settings_defaults(&c->set);
	c->p.settings = hlb_settings_of(&c->set, ops);
	c->p.ev_min = ev_min;
	c->p.ev_max = ev_max;
	c->p.base_rtt_ns = T_BASE_RTT;
	c->p.bdp_pkts = T_BDP;
	c->now = 1000;
}

static void
c_start(struct conn *c, uint64_t seed)
{
	ck_assert_uint_gt(c->ops->state_size, 0);
	/* Exactly state_size bytes: valgrind sees any overrun. */
	c->state = calloc(1, c->ops->state_size);
	ck_assert_ptr_nonnull(c->state);
	ofan_rng_seed(&c->rng, seed, 1);
	c->ops->init(c->state, &c->p, &c->rng, c->now);
}

static void
c_stop(struct conn *c)
{
	free(c->state);
	c->state = NULL;
}

static uint16_t
c_ev(struct conn *c)
{
	return c->ops->next_ev(c->state, &c->p, &c->rng, c->now);
}

static void
c_ack(struct conn *c, uint16_t ev, bool ce, uint64_t rtt_ns)
{
	c->ops->on_ack(c->state, &c->p, &c->rng, ev, ce, rtt_ns, c->now);
}

static void
c_timeout(struct conn *c)
{
	c->ops->on_timeout(c->state, &c->p, &c->rng, c->now);
}

static uint64_t
c_dump(struct conn *c, const char *key)
{
	struct t_dump d = { .nb = 0 };

	ck_assert_ptr_nonnull(c->ops->dump);
	c->ops->dump(c->state, t_dump_emit, &d);
	return t_dump_value(&d, c->ops->name, key);
}


/*
 * A connection's life as a policy sees it, a function of script_seed and
 * of the EVs the policy picks: packets, ACKs echoing one of the last 16
 * EVs sent (some CE-marked, some without an RTT sample, a few with an EV
 * outside the range, as a corrupt echo would be), timeouts, and time
 * moving in small steps with a few long pauses (flowlet gaps, REPS
 * thaws).  The EVs of the packets go to out[]; returns how many.
 */
static unsigned int
script_run(struct conn *c, uint64_t script_seed, unsigned int steps,
	   uint16_t *out)
{
	uint16_t sent[16] = { 0 };
	unsigned int nb_sent = 0, nb_out = 0, i;
	struct ofan_rng s;

	ofan_rng_seed(&s, script_seed, 3);
	for (i = 0; i < steps; i++) {
		uint32_t what = ofan_rng_below(&s, 1000);

		c->now += ofan_rng_below(&s, 3000);
		if (ofan_rng_below(&s, 100) == 0)
			c->now += 50000 + ofan_rng_below(&s, 2 * T_MS);
		if (what < 500) {
			uint16_t ev = c_ev(c);

			out[nb_out++] = ev;
			sent[nb_sent++ % 16] = ev;
		} else if (what < 990 && nb_sent > 0) {
			uint16_t ev = sent[ofan_rng_below(&s, nb_sent < 16 ?
							  nb_sent : 16)];
			uint64_t rtt = 5000 + ofan_rng_below(&s, 13000);

			if (ofan_rng_below(&s, 50) == 0)
				ev = c->p.ev_min > 0 ? c->p.ev_min - 1 :
						       c->p.ev_max + 1;
			if (ofan_rng_below(&s, 5) == 0)
				rtt = 0;
			c_ack(c, ev, ofan_rng_below(&s, 4) == 0, rtt);
		} else {
			c_timeout(c);
		}
	}
	return nb_out;
}

/* ---------------------------------------------------------------- */
/* Registry and helpers. */

START_TEST(test_registry_find)
{
	static const char *const names[] = {
		"fixed", "ops", "reps", "plb", "mp", "flowlet", "drb",
	};
	unsigned int i, j;

	ck_assert_int_eq(nb_policies(), 11);
	for (i = 0; i < 7; i++) {
		const struct hlb_ops *ops = hlb_find(names[i]);

		ck_assert_ptr_eq(ops, hlb_registry[i]);
		ck_assert_str_eq(ops->name, names[i]);
		ck_assert_uint_gt(strlen(ops->summary), 10);
		ck_assert_uint_gt(ops->state_size, 0);
		ck_assert_ptr_nonnull(ops->init);
		ck_assert_ptr_nonnull(ops->next_ev);
		ck_assert_ptr_nonnull(ops->on_ack);
		ck_assert_ptr_nonnull(ops->on_timeout);
		ck_assert_ptr_nonnull(ops->dump);
		/* Only fixed has no knobs. */
		if (i == 0)
			ck_assert_ptr_null(ops->parse);
		else
			ck_assert_ptr_nonnull(ops->parse);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(hlb_registry[j]->name, ops->name);
	}
	ck_assert_ptr_null(hlb_find("nope"));
	ck_assert_ptr_null(hlb_find("rep"));
	ck_assert_ptr_null(hlb_find(""));
	ck_assert_ptr_null(hlb_find(NULL));
}
END_TEST

/*
 * hlb_register() refuses a policy that lacks a required member.  Each case
 * is reps's table under the name "REPS" with one thing wrong: the table
 * itself passes every check and is then refused only for its name, taken
 * in another case, so that a check that is missing shows as -EEXIST and
 * nothing is ever added to the registry.  Every built-in passes them.
 */
START_TEST(test_register_refuses)
{
	struct hlb_ops base = *hlb_find("reps"), bad[T_NAME_FAULTS + 6];
	struct hlb_ops optional;
	unsigned int i;

	base.name = "REPS";
	ck_assert_int_eq(hlb_register(&base), -EEXIST);
	T_FAULTY(bad, T_DIM(bad), base, "free");
	bad[T_NAME_FAULTS + 0].init = NULL;
	bad[T_NAME_FAULTS + 1].next_ev = NULL;
	bad[T_NAME_FAULTS + 2].on_ack = NULL;
	bad[T_NAME_FAULTS + 3].on_timeout = NULL;
	bad[T_NAME_FAULTS + 4].settings_size = HLB_SETTINGS_MAX + 1;
	bad[T_NAME_FAULTS + 5].settings_size = SIZE_MAX;
	T_CHECK_REFUSED(hlb_register, bad, T_DIM(bad));
	/* Every other member may be 0 or NULL; settings may fill the block. */
	optional = base;
	optional.defaults = NULL;
	optional.parse = NULL;
	optional.state_size = 0;
	optional.on_path_timeout = NULL;
	optional.dump = NULL;
	optional.settings_size = HLB_SETTINGS_MAX;
	ck_assert_int_eq(hlb_register(&optional), -EEXIST);
	for (i = 0; hlb_registry[i] != NULL; i++)
		ck_assert_int_eq(hlb_register(hlb_registry[i]), -EEXIST);
	ck_assert_int_eq(nb_policies(), 11);
}
END_TEST

/* What --help lists: every policy with its summary. */
START_TEST(test_registry_describe)
{
	T_CHECK_DESCRIBE(hlb_describe, hlb_registry);
}
END_TEST

START_TEST(test_params_defaults)
{
	struct hlb_settings_table st;

	memset(&st, 0xa5, sizeof(st));
	hlb_settings_defaults(&st);
	ck_assert(!T_TAB(&st, ops)->permuted);
	ck_assert_uint_eq(T_TAB(&st, reps)->freeze_ns, 10 * T_MS);
	ck_assert_double_eq(T_TAB(&st, reps)->freeze_rtt_factor, 1.65);
	ck_assert_double_eq(T_TAB(&st, plb)->ce_threshold, 0.25);
	ck_assert_uint_eq(T_TAB(&st, plb)->congested_rounds, 1);
	ck_assert_uint_eq(T_TAB(&st, mp)->subflows, 4);
	ck_assert_uint_eq(T_TAB(&st, flowlet)->gap_ns, 0);
	/* A policy without settings has no block. */
	ck_assert_ptr_null(hlb_settings_of(&st, hlb_find("fixed")));
}
END_TEST

START_TEST(test_random_other_ev)
{
	struct hlb_params p;
	struct ofan_rng rng;
	uint64_t counts[4] = { 0 };
	unsigned int i;

	memset(&p, 0, sizeof(p));
	p.ev_min = 1000;
	p.ev_max = 1003;
	ofan_rng_seed(&rng, T_SEED, 2);
	for (i = 0; i < 3000; i++) {
		uint16_t cur = (uint16_t)(1000 + i % 4);
		uint16_t ev = hlb_random_other_ev(&p, &rng, cur);

		ck_assert_uint_ge(ev, 1000);
		ck_assert_uint_le(ev, 1003);
		ck_assert_uint_ne(ev, cur);
		counts[ev - 1000]++;
	}
	/* Each EV is the current one a quarter of the time: 750 x 3000/4. */
	for (i = 0; i < 4; i++)
		ck_assert_msg(counts[i] > 600 && counts[i] < 900,
			      "EV %u drawn %lu times", 1000 + i,
			      (unsigned long)counts[i]);
	/* The two ends of the full 16-bit range. */
	p.ev_min = 0;
	p.ev_max = 65535;
	for (i = 0; i < 1000; i++) {
		ck_assert_uint_ne(hlb_random_other_ev(&p, &rng, 0), 0);
		ck_assert_uint_ne(hlb_random_other_ev(&p, &rng, 65535),
				  65535);
	}
	/* One EV: there is no other. */
	p.ev_min = 7;
	p.ev_max = 7;
	ck_assert_uint_eq(hlb_random_other_ev(&p, &rng, 7), 7);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Every policy. */

static unsigned int
run_seeded(const struct hlb_ops *ops, bool permuted, uint64_t seed,
	   uint16_t *out)
{
	struct conn c;
	unsigned int n;

	c_params(&c, ops, T_EV_MIN, T_EV_MAX);
	T_SET(&c, ops)->permuted = permuted;
	T_SET(&c, reps)->freeze_ns = T_MS;
	c_start(&c, seed);
	n = script_run(&c, 11, 5000, out);
	c_stop(&c);
	return n;
}

/*
 * Beyond the contract (the conformance case checks that a seed
 * reproduces a run): the EVs come from the host's RNG, so another seed
 * changes them.
 */
START_TEST(test_all_seeds)
{
	static uint16_t a[5000], b[5000];
	const struct hlb_ops *ops = hlb_registry[_i / 2];
	bool permuted = _i % 2 == 1;
	unsigned int na, nb;

	na = run_seeded(ops, permuted, T_SEED, a);
	nb = run_seeded(ops, permuted, T_SEED + 1, b);
	ck_assert_msg(na != nb || memcmp(a, b, na * sizeof(a[0])) != 0,
		      "%s: another seed, same EVs", ops->name);
}
END_TEST

/* ---------------------------------------------------------------- */
/* fixed. */

START_TEST(test_fixed_constant)
{
	uint16_t first[100];
	unsigned int k, i, j, distinct = 0;

	for (k = 0; k < 100; k++) {
		struct conn c;

		c_params(&c, hlb_find("fixed"), T_EV_MIN, T_EV_MAX);
		c_start(&c, T_SEED + k);
		first[k] = c_ev(&c);
		/* Marks, timeouts and time change nothing. */
		for (i = 0; i < 1000; i++) {
			c.now += 100000;
			if (i % 3 == 0)
				c_ack(&c, first[k], true, 100 * T_BASE_RTT);
			if (i % 7 == 0)
				c_timeout(&c);
			ck_assert_uint_eq(c_ev(&c), first[k]);
		}
		ck_assert_uint_eq(c_dump(&c, "ev"), first[k]);
		c_stop(&c);
	}
	/* Connections are spread: 100 draws over 16384 EVs rarely collide. */
	for (k = 0; k < 100; k++) {
		for (j = 0; j < k; j++)
			if (first[j] == first[k])
				break;
		distinct += j == k;
	}
	ck_assert_uint_ge(distinct, 98);
}
END_TEST

/* ---------------------------------------------------------------- */
/* ops. */

/* Random mode: 160000 packets over 16 EVs, chi-square bounded spread. */
START_TEST(test_ops_spread_random)
{
	const unsigned int n = 16, nb = 160000;
	uint64_t counts[16] = { 0 };
	unsigned int i, repeats = 0;
	uint16_t prev = 0;
	struct conn c;
	double sd;

	c_params(&c, hlb_find("ops"), 2000, (uint16_t)(2000 + n - 1));
	c_start(&c, T_SEED);
	for (i = 0; i < nb; i++) {
		uint16_t ev = c_ev(&c);

		ck_assert_uint_ge(ev, 2000);
		ck_assert_uint_lt(ev, 2000 + n);
		counts[ev - 2000]++;
		repeats += i > 0 && ev == prev;
		prev = ev;
		if (i % 8 == 0)
			c_ack(&c, ev, true, 0);
	}
	sd = t_rel_sd(counts, n);
	fprintf(stderr, "ops random: %u packets over %u EVs: rel sd %.5f "
		"(bound %.5f)\n", nb, n, sd, t_rel_sd_bound(n, nb));
	ck_assert_double_le(sd, t_rel_sd_bound(n, nb));
	/* Independent draws: the same EV twice in a row 1/16 of the time. */
	ck_assert_msg(repeats > nb / 16 * 9 / 10 && repeats < nb / 16 * 11 / 10,
		      "%u repeats", repeats);
	ck_assert_uint_eq(c_dump(&c, "cycles"), 0);
	c_stop(&c);
}
END_TEST

/*
 * Permuted mode over ranges from one EV to all 65536: each cycle of m
 * packets uses every EV of the range exactly once, and a new cycle is a
 * new permutation.
 */
START_TEST(test_ops_permuted_cycles)
{
	static const uint16_t ranges[][2] = {
		{ 1000, 1000 }, { 1000, 1001 }, { 1000, 1002 }, { 1000, 1003 },
		{ 1000, 1004 }, { 1000, 1006 }, { 1000, 1099 },
		{ 1000, 1999 }, { T_EV_MIN, T_EV_MAX }, { 0, 65535 },
	};
	static uint8_t seen[65536];
	static uint16_t cycle[2][65536];
	unsigned int r, k, i;

	for (r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		uint32_t m = (uint32_t)ranges[r][1] - ranges[r][0] + 1;
		unsigned int nb_cycles = m < 1000 ? 20 : 2;
		struct conn c;

		c_params(&c, hlb_find("ops"), ranges[r][0], ranges[r][1]);
		T_SET(&c, ops)->permuted = true;
		c_start(&c, T_SEED + r);
		for (k = 0; k < nb_cycles; k++) {
			uint16_t *cur = cycle[k % 2];

			memset(seen, 0, sizeof(seen));
			for (i = 0; i < m; i++) {
				uint16_t ev = c_ev(&c);

				ck_assert_uint_ge(ev, ranges[r][0]);
				ck_assert_uint_le(ev, ranges[r][1]);
				ck_assert_msg(!seen[ev - ranges[r][0]],
					      "range %u: EV %u twice in cycle "
					      "%u", m, ev, k);
				seen[ev - ranges[r][0]] = 1;
				cur[i] = ev;
				/* Feedback does not matter to ops. */
				c_ack(&c, ev, i % 2 == 0, T_BASE_RTT);
			}
			ck_assert_uint_eq(c_dump(&c, "cycles"), k + 1);
			if (k > 0 && m >= 100)
				ck_assert_msg(memcmp(cycle[0], cycle[1],
						     m * sizeof(uint16_t)) != 0,
					      "range %u: cycle %u repeats the "
					      "last", m, k);
		}
		if (m >= 100) {
			unsigned int in_order = 0, strides = 0;

			/* A shuffle, not a counter nor a fixed stride. */
			for (i = 1; i < m; i++) {
				in_order += cycle[0][i] == cycle[0][i - 1] + 1;
				strides += (uint16_t)(cycle[0][i] -
						      cycle[0][i - 1]) !=
					   (uint16_t)(cycle[0][1] -
						      cycle[0][0]);
			}
			ck_assert_uint_lt(in_order, m / 20);
			ck_assert_uint_gt(strides, m / 2);
		}
		c_stop(&c);
	}
}
END_TEST

/* Over whole cycles every EV has exactly the same count. */
START_TEST(test_ops_spread_permuted)
{
	uint64_t counts[16] = { 0 };
	unsigned int i;
	struct conn c;

	c_params(&c, hlb_find("ops"), 3000, 3015);
	T_SET(&c, ops)->permuted = true;
	c_start(&c, T_SEED);
	for (i = 0; i < 16 * 1000; i++) {
		counts[c_ev(&c) - 3000]++;
		if (i % 5 == 0)
			c_timeout(&c);
	}
	for (i = 0; i < 16; i++)
		ck_assert_uint_eq(counts[i], 1000);
	c_stop(&c);
}
END_TEST

/* ---------------------------------------------------------------- */
/* reps, step by step. */

static void
reps_start(struct conn *c, uint16_t ev_min, uint16_t ev_max)
{
	c_params(c, hlb_find("reps"), ev_min, ev_max);
	c_start(c, T_SEED);
}

/* The next packet explores: a random EV and the explored counter + 1. */
static uint16_t
reps_expect_explore(struct conn *c)
{
	uint64_t explored = c_dump(c, "explored");
	uint64_t recycled = c_dump(c, "recycled");
	uint16_t ev = c_ev(c);

	ck_assert_uint_eq(c_dump(c, "explored"), explored + 1);
	ck_assert_uint_eq(c_dump(c, "recycled"), recycled);
	ck_assert_uint_ge(ev, c->p.ev_min);
	ck_assert_uint_le(ev, c->p.ev_max);
	return ev;
}

/* The next packet recycles the cached EV want. */
static void
reps_expect_recycle(struct conn *c, uint16_t want)
{
	uint64_t explored = c_dump(c, "explored");
	uint64_t recycled = c_dump(c, "recycled");

	ck_assert_uint_eq(c_ev(c), want);
	ck_assert_uint_eq(c_dump(c, "recycled"), recycled + 1);
	ck_assert_uint_eq(c_dump(c, "explored"), explored);
}

/* The next packet, while frozen, reuses want without consuming it. */
static void
reps_expect_frozen(struct conn *c, uint16_t want)
{
	uint64_t explored = c_dump(c, "explored");
	uint64_t recycled = c_dump(c, "recycled");
	uint64_t frozen = c_dump(c, "frozen_packets");
	uint64_t cached = c_dump(c, "cached");

	ck_assert_uint_eq(c_ev(c), want);
	ck_assert_uint_eq(c_dump(c, "frozen_packets"), frozen + 1);
	ck_assert_uint_eq(c_dump(c, "explored"), explored);
	ck_assert_uint_eq(c_dump(c, "recycled"), recycled);
	ck_assert_uint_eq(c_dump(c, "cached"), cached);
}

START_TEST(test_reps_explore_empty)
{
	uint64_t counts[4] = { 0 };
	unsigned int i;
	struct conn c;

	/* Tiny range: every random EV lands in it and all four appear. */
	reps_start(&c, 1000, 1003);
	for (i = 0; i < 400; i++)
		counts[reps_expect_explore(&c) - 1000]++;
	for (i = 0; i < 4; i++)
		ck_assert_uint_gt(counts[i], 50);
	ck_assert_uint_eq(c_dump(&c, "explored"), 400);
	ck_assert_uint_eq(c_dump(&c, "recycled"), 0);
	c_stop(&c);
}
END_TEST

START_TEST(test_reps_recycle)
{
	struct conn c;

	reps_start(&c, T_EV_MIN, T_EV_MAX);
	reps_expect_explore(&c);
	/* Oldest first, each once, then the ring is empty again. */
	c_ack(&c, 50001, false, T_BASE_RTT);
	c_ack(&c, 50002, false, T_BASE_RTT);
	c_ack(&c, 50003, false, T_BASE_RTT);
	ck_assert_uint_eq(c_dump(&c, "cached"), 3);
	reps_expect_recycle(&c, 50001);
	reps_expect_recycle(&c, 50002);
	reps_expect_recycle(&c, 50003);
	ck_assert_uint_eq(c_dump(&c, "cached"), 0);
	reps_expect_explore(&c);
	/* Interleaved with packets, still first in, first out. */
	c_ack(&c, 60000, false, T_BASE_RTT);
	reps_expect_recycle(&c, 60000);
	c_ack(&c, 60001, false, T_BASE_RTT);
	c_ack(&c, 60002, false, T_BASE_RTT);
	reps_expect_recycle(&c, 60001);
	c_ack(&c, 60003, false, T_BASE_RTT);
	reps_expect_recycle(&c, 60002);
	reps_expect_recycle(&c, 60003);
	reps_expect_explore(&c);
	/* The same EV vouched for twice is used twice. */
	c_ack(&c, 55555, false, T_BASE_RTT);
	c_ack(&c, 55555, false, T_BASE_RTT);
	reps_expect_recycle(&c, 55555);
	reps_expect_recycle(&c, 55555);
	reps_expect_explore(&c);
	ck_assert_uint_eq(c_dump(&c, "recycled"), 9);
	ck_assert_uint_eq(c_dump(&c, "explored"), 4);
	c_stop(&c);
}
END_TEST

START_TEST(test_reps_ce_drops)
{
	struct conn c;

	reps_start(&c, T_EV_MIN, T_EV_MAX);
	c_ack(&c, 50001, true, T_BASE_RTT);
	c_ack(&c, 50002, false, T_BASE_RTT);
	c_ack(&c, 50003, true, T_BASE_RTT);
	ck_assert_uint_eq(c_dump(&c, "ce_dropped"), 2);
	ck_assert_uint_eq(c_dump(&c, "cached"), 1);
	reps_expect_recycle(&c, 50002);
	reps_expect_explore(&c);
	/* A CE mark does not evict an earlier unmarked copy of its EV. */
	c_ack(&c, 50004, false, T_BASE_RTT);
	c_ack(&c, 50004, true, T_BASE_RTT);
	reps_expect_recycle(&c, 50004);
	reps_expect_explore(&c);
	ck_assert_uint_eq(c_dump(&c, "ce_dropped"), 3);
	c_stop(&c);
}
END_TEST

START_TEST(test_reps_ring_overwrites_oldest)
{
	unsigned int i;
	struct conn c;

	reps_start(&c, T_EV_MIN, T_EV_MAX);
	for (i = 0; i < 10; i++)
		c_ack(&c, (uint16_t)(50000 + i), false, T_BASE_RTT);
	ck_assert_uint_eq(c_dump(&c, "cached"), HLB_REPS_SLOTS);
	/* 50000 and 50001 were overwritten. */
	for (i = 2; i < 10; i++)
		reps_expect_recycle(&c, (uint16_t)(50000 + i));
	reps_expect_explore(&c);
	/* Overwriting keeps working after the ring wrapped around. */
	for (i = 0; i < 20; i++)
		c_ack(&c, (uint16_t)(51000 + i), false, T_BASE_RTT);
	for (i = 12; i < 20; i++)
		reps_expect_recycle(&c, (uint16_t)(51000 + i));
	reps_expect_explore(&c);
	c_stop(&c);
}
END_TEST

/* An echoed EV outside the range is never reused. */
START_TEST(test_reps_ignores_foreign_ev)
{
	struct conn c;

	reps_start(&c, 1000, 1003);
	c_ack(&c, 999, false, T_BASE_RTT);
	c_ack(&c, 1004, false, T_BASE_RTT);
	ck_assert_uint_eq(c_dump(&c, "cached"), 0);
	reps_expect_explore(&c);
	c_ack(&c, 1000, false, T_BASE_RTT);
	c_ack(&c, 1003, false, T_BASE_RTT);
	reps_expect_recycle(&c, 1000);
	reps_expect_recycle(&c, 1003);
	c_stop(&c);
}
END_TEST

/* Fill the ring with n EVs first, first + 1, ... (no RTT sample). */
static void
reps_cache_run(struct conn *c, uint16_t first, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		c_ack(c, (uint16_t)(first + i), false, 0);
}

/*
 * A timeout freezes only when the recent RTTs are low: max over the last
 * 8 nonzero samples < 1.65 x base RTT, or no sample at all.
 */
START_TEST(test_reps_freeze_trigger)
{
	const uint64_t limit = 16500;	/* 1.65 x 10 us */
	unsigned int i;
	struct conn c;

	/* No RTT sample yet: low. */
	reps_start(&c, T_EV_MIN, T_EV_MAX);
	c_timeout(&c);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 1);
	ck_assert_uint_eq(c_dump(&c, "frozen"), 1);
	c_stop(&c);

	/* Max exactly 1.65 x base: congestion, no freeze. */
	reps_start(&c, T_EV_MIN, T_EV_MAX);
	c_ack(&c, 50000, false, 9000);
	c_ack(&c, 50001, false, limit);
	c_ack(&c, 50002, false, 12000);
	c_timeout(&c);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 0);
	ck_assert_uint_eq(c_dump(&c, "frozen"), 0);
	/* Not frozen: the cached EVs are consumed and then it explores. */
	reps_expect_recycle(&c, 50000);
	reps_expect_recycle(&c, 50001);
	reps_expect_recycle(&c, 50002);
	reps_expect_explore(&c);
	c_stop(&c);

	/* Just below: a black hole, freeze. */
	reps_start(&c, T_EV_MIN, T_EV_MAX);
	c_ack(&c, 50000, false, 9000);
	c_ack(&c, 50001, false, limit - 1);
	c_timeout(&c);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 1);
	c_stop(&c);

	/* The factor is a knob. */
	reps_start(&c, T_EV_MIN, T_EV_MAX);
	T_SET(&c, reps)->freeze_rtt_factor = 2.0;
	c_ack(&c, 50001, false, limit);
	c_timeout(&c);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 1);
	c_stop(&c);

	/*
	 * The window: one high sample counts for the next 7 samples; ACKs
	 * without a sample (retransmissions) do not push it out; CE ACKs'
	 * samples count.
	 */
	reps_start(&c, T_EV_MIN, T_EV_MAX);
	c_ack(&c, 50000, false, 3 * T_BASE_RTT);
	for (i = 0; i < 6; i++)
		c_ack(&c, 50001, i % 2 == 0, T_BASE_RTT);
	for (i = 0; i < 20; i++)
		c_ack(&c, 50002, false, 0);
	c_timeout(&c);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 0);
	c_ack(&c, 50003, true, T_BASE_RTT);
	c_timeout(&c);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 0);
	c_ack(&c, 50004, false, T_BASE_RTT);
	c_timeout(&c);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 1);
	c_stop(&c);
}
END_TEST

/*
 * Erasure recovery's path timeout (the EV just chosen is overdue) freezes
 * like a timeout -- with the same RTT rule -- except while exploring
 * after a freeze, as the study's REPS.
 */
START_TEST(test_reps_path_timeout)
{
	const uint64_t freeze = 10 * T_MS;
	unsigned int i;
	struct conn c;

	ck_assert_ptr_nonnull(hlb_find("reps")->on_path_timeout);
	c_params(&c, hlb_find("reps"), T_EV_MIN, T_EV_MAX);
	c.p.bdp_pkts = 3;
	c_start(&c, T_SEED);
	reps_cache_run(&c, 50000, 2);
	c.ops->on_path_timeout(c.state, &c.p, &c.rng, 50000, c.now);
	ck_assert_uint_eq(c_dump(&c, "path_timeouts"), 1);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 1);
	reps_expect_frozen(&c, 50000);
	/* Thawed: 3 packets explore, and a path timeout then does not
	 * freeze; after them it does again. */
	c.now += freeze;
	reps_expect_explore(&c);
	c.ops->on_path_timeout(c.state, &c.p, &c.rng, 50001, c.now);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 1);
	for (i = 1; i < 3; i++)
		reps_expect_explore(&c);
	c.ops->on_path_timeout(c.state, &c.p, &c.rng, 50001, c.now);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 2);
	ck_assert_uint_eq(c_dump(&c, "path_timeouts"), 3);
	c_stop(&c);

	/* High RTTs: congestion, not a black hole. */
	reps_start(&c, T_EV_MIN, T_EV_MAX);
	c_ack(&c, 50000, false, 2 * T_BASE_RTT);
	c.ops->on_path_timeout(c.state, &c.p, &c.rng, 50000, c.now);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 0);
	ck_assert_uint_eq(c_dump(&c, "path_timeouts"), 1);
	c_stop(&c);
}
END_TEST

START_TEST(test_reps_frozen_cycles)
{
	unsigned int i;
	struct conn c;

	reps_start(&c, T_EV_MIN, T_EV_MAX);
	reps_cache_run(&c, 50000, 5);
	c_timeout(&c);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 1);
	/* Oldest first, round and round, nothing consumed, nothing new. */
	for (i = 0; i < 12; i++)
		reps_expect_frozen(&c, (uint16_t)(50000 + i % 5));
	ck_assert_uint_eq(c_dump(&c, "frozen_packets"), 12);
	ck_assert_uint_eq(c_dump(&c, "explored"), 0);
	ck_assert_uint_eq(c_dump(&c, "recycled"), 0);
	/* An unmarked ACK joins the cycle, a marked one does not. */
	c_ack(&c, 50005, false, T_BASE_RTT);
	c_ack(&c, 50006, true, T_BASE_RTT);
	ck_assert_uint_eq(c_dump(&c, "cached"), 6);
	for (i = 2; i < 14; i++)
		reps_expect_frozen(&c, (uint16_t)(50000 + i % 6));
	/* A full ring overwrites its oldest, and the cycle goes on. */
	reps_cache_run(&c, 50010, 3);
	ck_assert_uint_eq(c_dump(&c, "cached"), 8);
	reps_expect_frozen(&c, 50003);
	reps_expect_frozen(&c, 50004);
	reps_expect_frozen(&c, 50005);
	reps_expect_frozen(&c, 50010);
	reps_expect_frozen(&c, 50011);
	reps_expect_frozen(&c, 50012);
	reps_expect_frozen(&c, 50001);
	c_stop(&c);
}
END_TEST

START_TEST(test_reps_frozen_empty)
{
	uint64_t counts[4] = { 0 };
	unsigned int i;
	struct conn c;

	/* Frozen with nothing cached: random EVs, all of the range. */
	reps_start(&c, 1000, 1003);
	c_timeout(&c);
	for (i = 0; i < 200; i++)
		counts[reps_expect_explore(&c) - 1000]++;
	for (i = 0; i < 4; i++)
		ck_assert_uint_gt(counts[i], 20);
	ck_assert_uint_eq(c_dump(&c, "frozen_packets"), 200);
	ck_assert_uint_eq(c_dump(&c, "frozen"), 1);
	/* The first unmarked ACK ends the exploring. */
	c_ack(&c, 1002, false, T_BASE_RTT);
	for (i = 0; i < 5; i++)
		reps_expect_frozen(&c, 1002);
	c_stop(&c);
}
END_TEST

/*
 * freeze_ns after the freeze began: the ring is cleared and exactly one
 * BDP of packets explores, while ACKs refill the ring; then recycling
 * resumes with what those ACKs brought, never with the old entries.
 */
START_TEST(test_reps_thaw)
{
	const uint64_t freeze = 10 * T_MS;
	uint64_t start;
	unsigned int i;
	struct conn c;

	c_params(&c, hlb_find("reps"), T_EV_MIN, T_EV_MAX);
	c.p.bdp_pkts = 5;
	c_start(&c, T_SEED);
	reps_cache_run(&c, 50000, 4);
	start = c.now;
	c_timeout(&c);
	/* A later timeout does not extend the freeze. */
	c.now = start + freeze / 2;
	c_timeout(&c);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 1);
	c.now = start + freeze - 1;
	reps_expect_frozen(&c, 50000);
	ck_assert_uint_eq(c_dump(&c, "frozen"), 1);
	c.now = start + freeze;
	reps_expect_explore(&c);
	ck_assert_uint_eq(c_dump(&c, "frozen"), 0);
	ck_assert_uint_eq(c_dump(&c, "cached"), 0);
	c_ack(&c, 60000, false, T_BASE_RTT);
	c_ack(&c, 60001, false, T_BASE_RTT);
	for (i = 1; i < 5; i++)
		reps_expect_explore(&c);
	ck_assert_uint_eq(c_dump(&c, "cached"), 2);
	reps_expect_recycle(&c, 60000);
	reps_expect_recycle(&c, 60001);
	/* 50000 .. 50003 are gone. */
	reps_expect_explore(&c);
	ck_assert_uint_eq(c_dump(&c, "frozen_packets"), 1);
	ck_assert_uint_eq(c_dump(&c, "explored"), 6);
	c_stop(&c);
}
END_TEST

/* An ACK may be the first event after the freeze: it thaws first. */
START_TEST(test_reps_thaw_on_ack)
{
	unsigned int i;
	struct conn c;

	c_params(&c, hlb_find("reps"), T_EV_MIN, T_EV_MAX);
	c.p.bdp_pkts = 3;
	T_SET(&c, reps)->freeze_ns = 2 * T_MS;
	c_start(&c, T_SEED);
	reps_cache_run(&c, 50000, 8);
	c_timeout(&c);
	c.now += 2 * T_MS;
	c_ack(&c, 61000, false, T_BASE_RTT);
	ck_assert_uint_eq(c_dump(&c, "frozen"), 0);
	ck_assert_uint_eq(c_dump(&c, "cached"), 1);
	for (i = 0; i < 3; i++)
		reps_expect_explore(&c);
	reps_expect_recycle(&c, 61000);
	reps_expect_explore(&c);
	/* A timeout while exploring after a thaw freezes again. */
	c_ack(&c, 61001, false, T_BASE_RTT);
	c_ack(&c, 61002, false, T_BASE_RTT);
	c.now += T_MS;
	c_timeout(&c);
	ck_assert_uint_eq(c_dump(&c, "freezes"), 2);
	reps_expect_frozen(&c, 61001);
	reps_expect_frozen(&c, 61002);
	reps_expect_frozen(&c, 61001);
	c_stop(&c);
}
END_TEST

/* A BDP of 0 (unknown) still explores one packet after a thaw. */
START_TEST(test_reps_thaw_zero_bdp)
{
	struct conn c;

	c_params(&c, hlb_find("reps"), T_EV_MIN, T_EV_MAX);
	c.p.bdp_pkts = 0;
	c_start(&c, T_SEED);
	c_timeout(&c);
	c.now += T_SET(&c, reps)->freeze_ns;
	c_ack(&c, 62000, false, T_BASE_RTT);
	reps_expect_explore(&c);
	reps_expect_recycle(&c, 62000);
	c_stop(&c);
}
END_TEST

/* ---------------------------------------------------------------- */
/* plb. */

static void
plb_start(struct conn *c, uint16_t ev_min, uint16_t ev_max, uint32_t bdp,
	  uint32_t rounds)
{
	c_params(c, hlb_find("plb"), ev_min, ev_max);
	c->p.bdp_pkts = bdp;
	T_SET(c, plb)->congested_rounds = rounds;
	c_start(c, T_SEED);
}

/* One round of bdp ACKs on the current EV, nb_ce of them CE-marked. */
static void
plb_round(struct conn *c, uint32_t bdp, uint32_t nb_ce)
{
	uint16_t ev = c_ev(c);
	uint32_t i;

	for (i = 0; i < bdp; i++)
		c_ack(c, ev, i < nb_ce, T_BASE_RTT);
}

START_TEST(test_plb_below_threshold)
{
	uint16_t ev;
	unsigned int i;
	struct conn c;

	plb_start(&c, T_EV_MIN, T_EV_MAX, 8, 1);
	ev = c_ev(&c);
	/* 2 of 8 is 25%: not above the threshold, however long it lasts. */
	for (i = 0; i < 100; i++) {
		plb_round(&c, 8, 2);
		ck_assert_uint_eq(c_ev(&c), ev);
	}
	ck_assert_uint_eq(c_dump(&c, "repaths"), 0);
	/* 7 ACKs, 3 marked: the round is not over yet. */
	for (i = 0; i < 7; i++)
		c_ack(&c, ev, i < 3, T_BASE_RTT);
	ck_assert_uint_eq(c_ev(&c), ev);
	ck_assert_uint_eq(c_dump(&c, "repaths"), 0);
	c_stop(&c);
}
END_TEST

START_TEST(test_plb_repath)
{
	uint16_t ev, next;
	unsigned int i;
	struct conn c;

	plb_start(&c, T_EV_MIN, T_EV_MAX, 8, 1);
	ev = c_ev(&c);
	/* The 8th ACK ends a round with 3 of 8 marked: move. */
	for (i = 0; i < 7; i++)
		c_ack(&c, ev, i < 3, T_BASE_RTT);
	ck_assert_uint_eq(c_ev(&c), ev);
	c_ack(&c, ev, false, T_BASE_RTT);
	next = c_ev(&c);
	ck_assert_uint_ne(next, ev);
	ck_assert_uint_eq(c_dump(&c, "repaths"), 1);
	ck_assert_uint_eq(c_dump(&c, "repaths_timeout"), 0);
	/* The new EV sticks. */
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(c_ev(&c), next);
	/*
	 * The old path's late ACKs, all marked, do not count against the
	 * new one; the new path's own 7 marks of 8 do.
	 */
	for (i = 0; i < 100; i++)
		c_ack(&c, ev, true, T_BASE_RTT);
	ck_assert_uint_eq(c_ev(&c), next);
	ck_assert_uint_eq(c_dump(&c, "repaths"), 1);
	plb_round(&c, 8, 7);
	ck_assert_uint_ne(c_ev(&c), next);
	ck_assert_uint_eq(c_dump(&c, "repaths"), 2);
	c_stop(&c);
}
END_TEST

START_TEST(test_plb_consecutive_rounds)
{
	uint16_t ev;
	struct conn c;

	plb_start(&c, T_EV_MIN, T_EV_MAX, 10, 3);
	ev = c_ev(&c);
	/* A clean round breaks the run. */
	plb_round(&c, 10, 5);
	plb_round(&c, 10, 5);
	plb_round(&c, 10, 1);
	plb_round(&c, 10, 3);
	plb_round(&c, 10, 10);
	ck_assert_uint_eq(c_ev(&c), ev);
	ck_assert_uint_eq(c_dump(&c, "repaths"), 0);
	plb_round(&c, 10, 4);
	ck_assert_uint_ne(c_ev(&c), ev);
	ck_assert_uint_eq(c_dump(&c, "repaths"), 1);
	/* The run starts again from zero on the new path. */
	ev = c_ev(&c);
	plb_round(&c, 10, 9);
	plb_round(&c, 10, 9);
	ck_assert_uint_eq(c_ev(&c), ev);
	plb_round(&c, 10, 9);
	ck_assert_uint_ne(c_ev(&c), ev);
	ck_assert_uint_eq(c_dump(&c, "repaths"), 2);
	c_stop(&c);
}
END_TEST

START_TEST(test_plb_timeout)
{
	uint16_t ev, next;
	struct conn c;

	plb_start(&c, T_EV_MIN, T_EV_MAX, 10, 3);
	ev = c_ev(&c);
	plb_round(&c, 10, 5);
	plb_round(&c, 10, 5);
	/* Half a congested round, then a timeout: move at once. */
	c_ack(&c, ev, true, T_BASE_RTT);
	c_ack(&c, ev, true, T_BASE_RTT);
	c_timeout(&c);
	next = c_ev(&c);
	ck_assert_uint_ne(next, ev);
	ck_assert_uint_eq(c_dump(&c, "repaths_timeout"), 1);
	ck_assert_uint_eq(c_dump(&c, "repaths"), 0);
	/* The counts were reset: a partial round plus two rounds is not 3. */
	c_ack(&c, next, true, T_BASE_RTT);
	c_ack(&c, next, true, T_BASE_RTT);
	plb_round(&c, 10, 10);
	ck_assert_uint_eq(c_ev(&c), next);
	plb_round(&c, 10, 10);
	ck_assert_uint_eq(c_ev(&c), next);
	c_stop(&c);
}
END_TEST

/* A tiny range: every move lands on another EV, all of them in turn. */
START_TEST(test_plb_tiny_range)
{
	uint64_t counts[4] = { 0 };
	uint16_t ev, prev;
	unsigned int i;
	struct conn c;

	/* A BDP of 0 makes every ACK a round. */
	plb_start(&c, 1000, 1003, 0, 1);
	prev = c_ev(&c);
	for (i = 0; i < 1000; i++) {
		if (i % 2 == 0)
			c_timeout(&c);
		else
			c_ack(&c, prev, true, T_BASE_RTT);
		ev = c_ev(&c);
		ck_assert_uint_ge(ev, 1000);
		ck_assert_uint_le(ev, 1003);
		ck_assert_uint_ne(ev, prev);
		counts[ev - 1000]++;
		prev = ev;
	}
	for (i = 0; i < 4; i++)
		ck_assert_uint_gt(counts[i], 150);
	ck_assert_uint_eq(c_dump(&c, "repaths"), 500);
	ck_assert_uint_eq(c_dump(&c, "repaths_timeout"), 500);
	c_stop(&c);
}
END_TEST

/* ---------------------------------------------------------------- */
/* mp. */

static void
mp_start(struct conn *c, uint16_t ev_min, uint16_t ev_max, uint16_t k,
	 uint64_t seed)
{
	c_params(c, hlb_find("mp"), ev_min, ev_max);
	T_SET(c, mp)->subflows = k;
	c_start(c, seed);
}

/* Read the k EVs of the first round and check they are distinct. */
static void
mp_first_round(struct conn *c, unsigned int k, uint16_t *ev)
{
	unsigned int i, j;

	for (i = 0; i < k; i++) {
		ev[i] = c_ev(c);
		ck_assert_uint_ge(ev[i], c->p.ev_min);
		ck_assert_uint_le(ev[i], c->p.ev_max);
		for (j = 0; j < i; j++)
			ck_assert_msg(ev[j] != ev[i],
				      "subflows %u and %u share EV %u", j, i,
				      ev[i]);
	}
}

START_TEST(test_mp_rotation)
{
	static const uint16_t ks[] = { 1, 2, 4, 7, HLB_MP_MAX_SUBFLOWS };
	uint16_t ev[HLB_MP_MAX_SUBFLOWS];
	unsigned int t, i;

	for (t = 0; t < sizeof(ks) / sizeof(ks[0]); t++) {
		struct conn c;

		mp_start(&c, T_EV_MIN, T_EV_MAX, ks[t], T_SEED + t);
		ck_assert_uint_eq(c_dump(&c, "subflows"), ks[t]);
		mp_first_round(&c, ks[t], ev);
		/* Strict rotation, whatever the feedback. */
		for (i = 0; i < 2000; i++) {
			uint16_t got = c_ev(&c);

			ck_assert_msg(got == ev[(ks[t] + i) % ks[t]],
				      "k %u: packet %u EV %u, want %u", ks[t],
				      ks[t] + i, got, ev[(ks[t] + i) % ks[t]]);
			c.now += 1000;
			if (i % 3 == 0)
				c_ack(&c, got, true, 10 * T_BASE_RTT);
			if (i % 11 == 0)
				c_timeout(&c);
		}
		c_stop(&c);
	}
}
END_TEST

/* Fewer EVs than subflows: every EV of the range, each once per round. */
START_TEST(test_mp_small_range)
{
	uint16_t ev[HLB_MP_MAX_SUBFLOWS];
	unsigned int i;
	struct conn c;

	mp_start(&c, 1000, 1003, HLB_MP_MAX_SUBFLOWS, T_SEED);
	ck_assert_uint_eq(c_dump(&c, "subflows"), 4);
	mp_first_round(&c, 4, ev);
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(c_ev(&c), ev[i % 4]);
	c_stop(&c);
	/* k equal to the range: a permutation of it. */
	mp_start(&c, 1000, 1000 + HLB_MP_MAX_SUBFLOWS - 1,
		 HLB_MP_MAX_SUBFLOWS, T_SEED);
	mp_first_round(&c, HLB_MP_MAX_SUBFLOWS, ev);
	ck_assert_uint_eq(c_ev(&c), ev[0]);
	c_stop(&c);
	mp_start(&c, 1000, 1000, 4, T_SEED);
	ck_assert_uint_eq(c_dump(&c, "subflows"), 1);
	for (i = 0; i < 10; i++)
		ck_assert_uint_eq(c_ev(&c), 1000);
	c_stop(&c);
}
END_TEST

/*
 * The EV sets are uniform: over 8000 connections picking 2 of 8 EVs,
 * each EV is in a quarter of them and first in an eighth, within the
 * chi-square bound.
 */
START_TEST(test_mp_uniform)
{
	const unsigned int nb = 8000;
	uint64_t in_set[8] = { 0 }, first[8] = { 0 };
	uint16_t ev[2];
	unsigned int i;

	for (i = 0; i < nb; i++) {
		struct conn c;

		mp_start(&c, 1000, 1007, 2, T_SEED + i);
		mp_first_round(&c, 2, ev);
		in_set[ev[0] - 1000]++;
		in_set[ev[1] - 1000]++;
		first[ev[0] - 1000]++;
		c_stop(&c);
	}
	ck_assert_double_le(t_rel_sd(first, 8), t_rel_sd_bound(8, nb));
	ck_assert_double_le(t_rel_sd(in_set, 8), t_rel_sd_bound(8, 2 * nb));
}
END_TEST

/* ---------------------------------------------------------------- */
/* flowlet. */

static void
flowlet_start(struct conn *c, uint16_t ev_min, uint16_t ev_max,
	      uint64_t gap_ns)
{
	c_params(c, hlb_find("flowlet"), ev_min, ev_max);
	T_SET(c, flowlet)->gap_ns = gap_ns;
	c_start(c, T_SEED);
}

START_TEST(test_flowlet_gap)
{
	/* gap_ns 0: half the base RTT. */
	const uint64_t gap = T_BASE_RTT / 2;
	uint16_t ev, next;
	unsigned int i;
	struct conn c;

	flowlet_start(&c, T_EV_MIN, T_EV_MAX, 0);
	ev = c_ev(&c);
	/* ACKs every 1 us, packets in between: one flowlet. */
	for (i = 0; i < 1000; i++) {
		c.now += 1000;
		c_ack(&c, ev, i % 2 == 0, T_BASE_RTT);
		c.now += 500;
		ck_assert_uint_eq(c_ev(&c), ev);
	}
	/* Exactly the gap after the last ACK still continues it... */
	c_ack(&c, ev, false, T_BASE_RTT);
	c.now += gap;
	ck_assert_uint_eq(c_ev(&c), ev);
	ck_assert_uint_eq(c_dump(&c, "flowlets"), 1);
	/* ...one ns more starts a new flowlet on another EV. */
	c.now += 1;
	next = c_ev(&c);
	ck_assert_uint_ne(next, ev);
	ck_assert_uint_eq(c_dump(&c, "flowlets"), 2);
	/* The packets after the move, before any ACK, stay on it. */
	for (i = 0; i < 10; i++) {
		c.now += gap / 10;
		ck_assert_uint_eq(c_ev(&c), next);
	}
	/* Still no ACK a gap after the move: move again. */
	c.now += 1;
	ck_assert_uint_ne(c_ev(&c), next);
	ck_assert_uint_eq(c_dump(&c, "flowlets"), 3);
	c_stop(&c);
}
END_TEST

/* gap_ns set: that gap, not half the base RTT. */
START_TEST(test_flowlet_explicit_gap)
{
	uint16_t ev;
	struct conn c;

	flowlet_start(&c, T_EV_MIN, T_EV_MAX, 20000);
	ev = c_ev(&c);
	c_ack(&c, ev, false, T_BASE_RTT);
	c.now += 20000;
	ck_assert_uint_eq(c_ev(&c), ev);
	c_ack(&c, ev, false, T_BASE_RTT);
	c.now += 20001;
	ck_assert_uint_ne(c_ev(&c), ev);
	c_stop(&c);
}
END_TEST

START_TEST(test_flowlet_first_ack_and_timeout)
{
	uint16_t ev, next;
	unsigned int i;
	struct conn c;

	flowlet_start(&c, T_EV_MIN, T_EV_MAX, 0);
	ev = c_ev(&c);
	/* No ACK yet, so no ACK gap: the first EV stays. */
	for (i = 0; i < 10; i++) {
		c.now += 100 * T_BASE_RTT;
		ck_assert_uint_eq(c_ev(&c), ev);
	}
	/* A timeout moves the next packet, and only that one. */
	c_timeout(&c);
	next = c_ev(&c);
	ck_assert_uint_ne(next, ev);
	ck_assert_uint_eq(c_ev(&c), next);
	ck_assert_uint_eq(c_dump(&c, "flowlets"), 2);
	c_stop(&c);
}
END_TEST

START_TEST(test_flowlet_tiny_range)
{
	uint64_t counts[4] = { 0 };
	uint16_t ev, prev;
	unsigned int i;
	struct conn c;

	flowlet_start(&c, 1000, 1003, 0);
	prev = c_ev(&c);
	for (i = 0; i < 1000; i++) {
		c_ack(&c, prev, false, T_BASE_RTT);
		c.now += T_BASE_RTT;
		ev = c_ev(&c);
		ck_assert_uint_ge(ev, 1000);
		ck_assert_uint_le(ev, 1003);
		ck_assert_uint_ne(ev, prev);
		counts[ev - 1000]++;
		prev = ev;
	}
	for (i = 0; i < 4; i++)
		ck_assert_uint_gt(counts[i], 150);
	ck_assert_uint_eq(c_dump(&c, "flowlets"), 1001);
	c_stop(&c);
}
END_TEST

/* ---------------------------------------------------------------- */
/* parse(): each policy reads and validates its own [host.<name>]. */


/* Run every registered parse() over text; returns the first error. */
static int
parse_all(const char *text, struct hlb_settings_table *st, char *msg,
	  size_t size)
{
	struct ofan_cfg *cfg = t_cfg_from("test_hlb", text);
	int ret;

	hlb_settings_defaults(st);
	ret = hlb_settings_from_cfg(cfg, st);
	if (ret == 0)
		ret = ofan_cfg_check_unknown(cfg);
	snprintf(msg, size, "%s", ofan_cfg_error(cfg));
	ofan_cfg_free(cfg);
	return ret;
}

START_TEST(test_parse_knobs)
{
	struct hlb_settings_table st;
	char msg[512];

	/* Absent sections keep the defaults. */
	ck_assert_int_eq(parse_all("", &st, msg, sizeof(msg)), 0);
	ck_assert(!T_TAB(&st, ops)->permuted);
	ck_assert_uint_eq(T_TAB(&st, reps)->freeze_ns, 10 * T_MS);
	ck_assert_uint_eq(T_TAB(&st, mp)->subflows, 4);

	ck_assert_int_eq(parse_all("[host.ops]\npermuted = yes\n"
				   "[host.reps]\nfreeze_time = 2.5ms\n"
				   "freeze_rtt_factor = 2.25\n"
				   "[host.plb]\nce_threshold = 0.5\n"
				   "congested_rounds = 3\n"
				   "[host.mp]\nsubflows = 64\n"
				   "[host.flowlet]\ngap = 7us\n",
				   &st, msg, sizeof(msg)), 0);
	ck_assert(T_TAB(&st, ops)->permuted);
	ck_assert_uint_eq(T_TAB(&st, reps)->freeze_ns, 2500000);
	ck_assert_double_eq(T_TAB(&st, reps)->freeze_rtt_factor, 2.25);
	ck_assert_double_eq(T_TAB(&st, plb)->ce_threshold, 0.5);
	ck_assert_uint_eq(T_TAB(&st, plb)->congested_rounds, 3);
	ck_assert_uint_eq(T_TAB(&st, mp)->subflows, 64);
	ck_assert_uint_eq(T_TAB(&st, flowlet)->gap_ns, 7000);

	/* The edges of each range are allowed. */
	ck_assert_int_eq(parse_all("[host.ops]\npermuted = off\n"
				   "[host.reps]\nfreeze_time = 1us\n"
				   "freeze_rtt_factor = 1\n"
				   "[host.plb]\nce_threshold = 0\n"
				   "congested_rounds = 1000\n"
				   "[host.mp]\nsubflows = 1\n"
				   "[host.flowlet]\ngap = 0\n",
				   &st, msg, sizeof(msg)), 0);
	ck_assert(!T_TAB(&st, ops)->permuted);
	ck_assert_uint_eq(T_TAB(&st, reps)->freeze_ns, 1000);
	ck_assert_double_eq(T_TAB(&st, reps)->freeze_rtt_factor, 1.0);
	ck_assert_double_eq(T_TAB(&st, plb)->ce_threshold, 0.0);
	ck_assert_uint_eq(T_TAB(&st, plb)->congested_rounds, 1000);
	ck_assert_uint_eq(T_TAB(&st, mp)->subflows, 1);
	ck_assert_uint_eq(T_TAB(&st, flowlet)->gap_ns, 0);
	ck_assert_int_eq(parse_all("[host.reps]\nfreeze_time = 10s\n"
				   "freeze_rtt_factor = 100\n"
				   "[host.plb]\nce_threshold = 1\n"
				   "[host.flowlet]\ngap = 1s\n",
				   &st, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(T_TAB(&st, reps)->freeze_ns, 10000000000ull);
	ck_assert_double_eq(T_TAB(&st, reps)->freeze_rtt_factor, 100.0);
	ck_assert_double_eq(T_TAB(&st, plb)->ce_threshold, 1.0);
	ck_assert_uint_eq(T_TAB(&st, flowlet)->gap_ns, 1000000000ull);
}
END_TEST

START_TEST(test_parse_errors)
{
	static const struct {
		const char *text;
		const char *where;	/* "section:key" in the message */
		const char *what;	/* and the bad value or a word of it */
	} bad[] = {
		{ "[host.ops]\npermuted = maybe\n", "host.ops:permuted",
		  "maybe" },
		{ "[host.ops]\npermute = yes\n", "host.ops:permute",
		  "unknown" },
		{ "[host.reps]\nfreeze_time = 10\n", "host.reps:freeze_time",
		  "10" },
		{ "[host.reps]\nfreeze_time = 11s\n", "host.reps:freeze_time",
		  "11s" },
		{ "[host.reps]\nfreeze_time = 999ns\n",
		  "host.reps:freeze_time", "999ns" },
		{ "[host.reps]\nfreeze_rtt_factor = 0.99\n",
		  "host.reps:freeze_rtt_factor", "0.99" },
		{ "[host.reps]\nfreeze_rtt_factor = 101\n",
		  "host.reps:freeze_rtt_factor", "101" },
		{ "[host.reps]\nfreeze_rtt_factor = fast\n",
		  "host.reps:freeze_rtt_factor", "fast" },
		{ "[host.plb]\nce_threshold = 1.5\n", "host.plb:ce_threshold",
		  "1.5" },
		{ "[host.plb]\nce_threshold = -0.1\n",
		  "host.plb:ce_threshold", "-0.1" },
		{ "[host.plb]\ncongested_rounds = 0\n",
		  "host.plb:congested_rounds", "0" },
		{ "[host.plb]\ncongested_rounds = 1001\n",
		  "host.plb:congested_rounds", "1001" },
		{ "[host.plb]\ncongested_rounds = 2x\n",
		  "host.plb:congested_rounds", "2x" },
		{ "[host.mp]\nsubflows = 0\n", "host.mp:subflows", "0" },
		{ "[host.mp]\nsubflows = 65\n", "host.mp:subflows", "65" },
		{ "[host.flowlet]\ngap = 2s\n", "host.flowlet:gap", "2s" },
		{ "[host.flowlet]\ngap = 5\n", "host.flowlet:gap", "5" },
	};
	struct hlb_settings_table st;
	char msg[512];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(parse_all(bad[i].text, &st, msg, sizeof(msg)),
				 -EINVAL);
		if (i == 0)
			fprintf(stderr, "parse: %s\n", msg);
		ck_assert_msg(strstr(msg, bad[i].where) != NULL &&
			      strstr(msg, bad[i].what) != NULL,
			      "'%s': message '%s'", bad[i].text, msg);
	}
}
END_TEST

/* ---------------------------------------------------------------- */


/*
 * drb: the data packets take paths start, start + 1, ... modulo the
 * radix^tiers paths (ev_min + path), whatever the feedback; the start is
 * random per connection; every path once in each turn.  The ACK of a
 * packet on path p goes on p + offset, the offset a per-flow constant
 * in 1 .. paths - 1 (never the data's path).  radix 0: every EV of the
 * range in turn.
 */
START_TEST(test_drb)
{
	struct conn c;
	uint32_t starts[8] = { 0 }, n, i, first, salt;
	uint16_t ev, prev;
	bool differ = false;

	for (i = 0; i < 8; i++) {
		c_params(&c, hlb_find("drb"), T_EV_MIN, T_EV_MAX);
		T_SET(&c, drb)->radix = 4;
		T_SET(&c, drb)->tiers = 2;
		c_start(&c, T_SEED + i);
		first = c_ev(&c) - T_EV_MIN;
		ck_assert_uint_lt(first, 16);
		starts[i] = first;
		differ = differ || starts[i] != starts[0];
		prev = (uint16_t)(T_EV_MIN + first);
		for (n = 1; n < 1000; n++) {
			if (n % 7 == 0)
				c_ack(&c, prev, n % 3 == 0, T_BASE_RTT);
			if (n % 101 == 0)
				c_timeout(&c);
			ev = c_ev(&c);
			ck_assert_uint_eq(ev, T_EV_MIN + (first + n) % 16);
			prev = ev;
		}
		c_stop(&c);
	}
	ck_assert(differ);

	/* ACKs: a constant offset per salt, never 0. */
	c_params(&c, hlb_find("drb"), T_EV_MIN, T_EV_MAX);
	T_SET(&c, drb)->radix = 4;
	T_SET(&c, drb)->tiers = 2;
	for (salt = 0; salt < 100; salt++) {
		uint32_t off = (uint16_t)(c.ops->ack_ev(&c.p, salt, T_EV_MIN) -
					  T_EV_MIN);

		ck_assert(off >= 1 && off < 16);
		for (i = 0; i < 16; i++)
			ck_assert_uint_eq(c.ops->ack_ev(&c.p, salt,
							(uint16_t)(T_EV_MIN + i)),
					  T_EV_MIN + (i + off) % 16);
	}

	/* No radix: the whole range, 4 EVs here. */
	c_params(&c, hlb_find("drb"), 1000, 1003);
	c_start(&c, T_SEED);
	first = c_ev(&c);
	for (n = 1; n < 12; n++)
		ck_assert_uint_eq(c_ev(&c), 1000 + (first - 1000 + n) % 4);
	c_stop(&c);
	ck_assert_uint_eq(hlb_drb_paths(&(struct hlb_drb_settings){ 8, 2 },
					65536), 64);
	ck_assert_uint_eq(hlb_drb_paths(&(struct hlb_drb_settings){ 64, 3 },
					16384), 16384);
	ck_assert_str_eq(hlb_find("drb")->switch_policy, "sr");
}
END_TEST

static Suite *
hlb_suite(void)
{
	Suite *s = suite_create("hlb");
	struct hlb_settings_table set;
	TCase *tc;
	int i;

	tc = tcase_create("registry");
	tcase_add_test(tc, test_registry_find);
	tcase_add_test(tc, test_register_refuses);
	tcase_add_test(tc, test_registry_describe);
	tcase_add_test(tc, test_params_defaults);
	tcase_add_test(tc, test_random_other_ev);
	tcase_add_test(tc, test_drb);
	suite_add_tcase(s, tc);

	for (i = 0; i < nb_policies(); i++)
		suite_add_tcase(s, hlb_conformance_tcase(hlb_registry[i],
							 NULL));
	/* The knobs at their edges. */
	hlb_settings_defaults(&set);
	T_TAB_W(&set, ops)->permuted = true;
	T_TAB_W(&set, mp)->subflows = HLB_MP_MAX_SUBFLOWS;
	T_TAB_W(&set, reps)->freeze_ns = T_MS;
	T_TAB_W(&set, plb)->congested_rounds = 3;
	T_TAB_W(&set, flowlet)->gap_ns = 1;
	T_TAB_W(&set, drb)->radix = 64;
	T_TAB_W(&set, drb)->tiers = 3;
	for (i = 1; i < nb_policies(); i++)
		suite_add_tcase(s, hlb_conformance_tcase(hlb_registry[i],
			hlb_settings_of(&set, hlb_registry[i])));

	tc = tcase_create("all");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_all_seeds, 0, 2 * nb_policies());
	suite_add_tcase(s, tc);

	tc = tcase_create("fixed_ops");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fixed_constant);
	tcase_add_test(tc, test_ops_spread_random);
	tcase_add_test(tc, test_ops_permuted_cycles);
	tcase_add_test(tc, test_ops_spread_permuted);
	suite_add_tcase(s, tc);

	tc = tcase_create("reps");
	tcase_add_test(tc, test_reps_explore_empty);
	tcase_add_test(tc, test_reps_recycle);
	tcase_add_test(tc, test_reps_ce_drops);
	tcase_add_test(tc, test_reps_ring_overwrites_oldest);
	tcase_add_test(tc, test_reps_ignores_foreign_ev);
	tcase_add_test(tc, test_reps_freeze_trigger);
	tcase_add_test(tc, test_reps_path_timeout);
	tcase_add_test(tc, test_reps_frozen_cycles);
	tcase_add_test(tc, test_reps_frozen_empty);
	tcase_add_test(tc, test_reps_thaw);
	tcase_add_test(tc, test_reps_thaw_on_ack);
	tcase_add_test(tc, test_reps_thaw_zero_bdp);
	suite_add_tcase(s, tc);

	tc = tcase_create("plb_mp_flowlet");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_plb_below_threshold);
	tcase_add_test(tc, test_plb_repath);
	tcase_add_test(tc, test_plb_consecutive_rounds);
	tcase_add_test(tc, test_plb_timeout);
	tcase_add_test(tc, test_plb_tiny_range);
	tcase_add_test(tc, test_mp_rotation);
	tcase_add_test(tc, test_mp_small_range);
	tcase_add_test(tc, test_mp_uniform);
	tcase_add_test(tc, test_flowlet_gap);
	tcase_add_test(tc, test_flowlet_explicit_gap);
	tcase_add_test(tc, test_flowlet_first_ack_and_timeout);
	tcase_add_test(tc, test_flowlet_tiny_range);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_knobs);
	tcase_add_test(tc, test_parse_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(hlb_suite());
}
