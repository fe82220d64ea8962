/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-htsim's path selection (host/transport/hlb_uec.c) against
 * uec_mp.cpp's rules: oblivious takes every path once per sweep, bitmap
 * skips penalised paths and decays the first it skips, mixed reuses good
 * EVs first in first out, reps_uec uses each good EV once and freezes on
 * a timeout, then explores.  Their common contract is test_hlb's.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "hlb.h"
#include "hlb_uec.h"
#include "ofan_rng.h"
#include "unit_suite.h"

#define EV0 1000

struct t_conn {
	const struct hlb_ops *ops;
	struct hlb_uec_settings set;
	struct hlb_params p;
	struct ofan_rng rng;
	_Alignas(8) unsigned char st[2048];
};

static void
t_conn(struct t_conn *c, const char *name, uint32_t paths)
{
	memset(c, 0, sizeof(*c));
	c->ops = hlb_find(name);
	ck_assert_ptr_nonnull(c->ops);
	ck_assert_uint_le(c->ops->state_size, sizeof(c->st));
	c->ops->defaults(&c->set);
	c->set.paths = paths;
	c->p = (struct hlb_params){ .ev_min = EV0, .ev_max = EV0 + 1023,
				    .base_rtt_ns = 10000, .bdp_pkts = 30,
				    .settings = &c->set };
	ofan_rng_seed(&c->rng, 7, 1);
	c->ops->init(c->st, &c->p, &c->rng, 0);
}

static uint16_t
t_next(struct t_conn *c, uint64_t now)
{
	return c->ops->next_ev(c->st, &c->p, &c->rng, now);
}

static void
t_ack(struct t_conn *c, uint16_t ev, bool ce, uint64_t now)
{
	c->ops->on_ack(c->st, &c->p, &c->rng, ev, ce, 10000, now);
}

/* Every sweep of 16 packets uses each of 16 paths once. */
START_TEST(test_oblivious_sweeps)
{
	struct t_conn c;
	unsigned int sweep, i;

	t_conn(&c, "oblivious", 16);
	for (sweep = 0; sweep < 50; sweep++) {
		uint32_t seen = 0;

		for (i = 0; i < 16; i++) {
			uint16_t ev = t_next(&c, 0);

			ck_assert_uint_ge(ev, EV0);
			ck_assert_uint_lt(ev, EV0 + 16);
			seen |= 1u << (ev - EV0);
		}
		ck_assert_uint_eq(seen, 0xffff);
	}
	/* One path: always the first EV. */
	t_conn(&c, "oblivious", 1);
	for (i = 0; i < 10; i++)
		ck_assert_uint_eq(t_next(&c, 0), EV0);
}
END_TEST

/*
 * bitmap: a NACK's 4 points keep a path out of the next 4 sweeps that
 * reach it (one point off each time it is the first skipped), a CE's 1
 * out of one; a timeout penalises the first path (uet-htsim's EV 0).
 */
START_TEST(test_bitmap_penalties)
{
	struct t_conn c;
	unsigned int sweep, i, used[4] = { 0 };

	t_conn(&c, "bitmap", 4);
	c.ops->on_nack(c.st, &c.p, &c.rng, EV0 + 2, false, 0);
	t_ack(&c, EV0 + 1, true, 0);
	for (sweep = 0; sweep < 8; sweep++)
		for (i = 0; i < 3; i++)
			used[t_next(&c, 0) - EV0]++;
	/* 24 packets: path 1 missed 1 sweep's visit, path 2 four. */
	ck_assert_uint_eq(used[0] + used[1] + used[2] + used[3], 24);
	ck_assert_uint_gt(used[0], used[2]);
	ck_assert_uint_gt(used[1], used[2]);
	ck_assert_uint_gt(used[3], used[2]);
	/* Penalties cap at 15: a timeout keeps path 0 out for 15 visits. */
	t_conn(&c, "bitmap", 2);
	c.ops->on_timeout(c.st, &c.p, &c.rng, 0);
	c.ops->on_timeout(c.st, &c.p, &c.rng, 0);
	for (i = 0; i < 15; i++)
		ck_assert_uint_eq(t_next(&c, 0), EV0 + 1);
	for (i = 0; i < 4; i++)
		(void)t_next(&c, 0);
	/* Both paths penalised: the first candidate goes after a full turn. */
	t_conn(&c, "bitmap", 2);
	t_ack(&c, EV0, true, 0);
	t_ack(&c, EV0 + 1, true, 0);
	ck_assert_uint_ge(t_next(&c, 0), EV0);
}
END_TEST

/* mixed: good EVs come back in the order they were acknowledged. */
START_TEST(test_mixed_reuses)
{
	struct t_conn c;

	t_conn(&c, "mixed", 64);
	t_ack(&c, EV0 + 5, false, 0);
	t_ack(&c, EV0 + 9, true, 0);	/* marked: not reused, penalised */
	t_ack(&c, EV0 + 7, false, 0);
	ck_assert_uint_eq(t_next(&c, 0), EV0 + 5);
	ck_assert_uint_eq(t_next(&c, 0), EV0 + 7);
	/* None waiting: the bitmap sweep, which skips 9 once. */
	{
		unsigned int i, nine = 0;

		for (i = 0; i < 63; i++)
			nine += t_next(&c, 0) == EV0 + 9;
		ck_assert_uint_eq(nine, 0);
	}
}
END_TEST

/*
 * reps_uec: each good EV once, oldest first; a timeout freezes it for
 * 10 ms, cycling over the remembered EVs; the first feedback after the
 * freeze empties the ring and 16 packets explore.
 */
START_TEST(test_reps_uec_freeze)
{
	const uint64_t ms = 1000000;
	struct t_conn c;
	unsigned int i;

	t_conn(&c, "reps_uec", 128);
	t_ack(&c, EV0 + 3, false, 0);
	t_ack(&c, EV0 + 4, false, 0);
	t_ack(&c, EV0 + 8, true, 0);	/* marked: forgotten */
	ck_assert_uint_eq(t_next(&c, 0), EV0 + 3);
	ck_assert_uint_eq(t_next(&c, 0), EV0 + 4);
	ck_assert_uint_lt(t_next(&c, 0), EV0 + 128);	/* none fresh: random */
	c.ops->on_timeout(c.st, &c.p, &c.rng, 1 * ms);
	for (i = 0; i < 6; i++)	/* frozen: 3, 4, 3, 4, ... */
		ck_assert_uint_eq(t_next(&c, 2 * ms), EV0 + 3 + i % 2);
	/* Still frozen: an ACK's EV joins the cycle, 3, 4, 20. */
	t_ack(&c, EV0 + 20, false, 5 * ms);
	ck_assert_uint_eq(t_next(&c, 5 * ms), EV0 + 3);
	ck_assert_uint_eq(t_next(&c, 5 * ms), EV0 + 4);
	ck_assert_uint_eq(t_next(&c, 5 * ms), EV0 + 20);
	/* Past 11 ms: the ACK thaws it, empties the ring, then keeps 21. */
	t_ack(&c, EV0 + 21, false, 12 * ms);
	for (i = 0; i < 16; i++)
		ck_assert_uint_lt(t_next(&c, 12 * ms), EV0 + 128);
	t_ack(&c, EV0 + 30, false, 13 * ms);
	ck_assert_uint_eq(t_next(&c, 13 * ms), EV0 + 21);
	ck_assert_uint_eq(t_next(&c, 13 * ms), EV0 + 30);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("hlb_uec");
	TCase *tc = tcase_create("uec");

	tcase_add_test(tc, test_oblivious_sweeps);
	tcase_add_test(tc, test_bitmap_penalties);
	tcase_add_test(tc, test_mixed_reuses);
	tcase_add_test(tc, test_reps_uec_freeze);
	suite_add_tcase(s, tc);
	return t_run_suite(s);
}
