/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RCCC's sender (host/transport/hs_rccc.c) against uet-htsim's UecSrc
 * (htsim/sim/uec.cpp at 40ccb05): the first credit of 1.5 BDP, each
 * packet spending its bytes and a 64-byte header, speculation ending at
 * the first feedback (credit left dropped, a debt kept), PULLs adding
 * what is new up to 2.5 BDP (ofan's receiver's bound), a timeout without credit granting one
 * packet (for uet-htsim's RTS), and NSCC's window too with nscc = yes.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "hs_cc.h"
#include "hs_rccc.h"
#include "unit_suite.h"

#define MTU 4150

/* 100G, a 12 us network RTT: a BDP of 150000 bytes, 225000 of credit. */
static const struct hs_cc_flow t_flow = {
	.rate_bps = 100000000000ull, .base_rtt_ns = 12000, .mss = 4086,
	.size = 1ull << 30,
};

static void
t_start(struct hs_rccc_state *r, struct hs_rccc_settings *s, bool nscc)
{
	memset(s, 0, sizeof(*s));
	hs_cc_rccc.defaults(s);
	s->with_nscc = nscc;
	memset(r, 0, sizeof(*r));
	hs_cc_rccc.start(r, s, &t_flow);
}

static bool
t_may(const struct hs_rccc_state *r, const struct hs_rccc_settings *s,
      uint32_t pkts)
{
	struct hs_cc_flight f = { .pkts = pkts, .bytes = (uint64_t)pkts * 4086 };

	return hs_cc_rccc.may_send(r, s, &f);
}

START_TEST(test_rccc_credit)
{
	const struct hs_cc_ack ack = { .now_ns = 1000, .acked_pkts = 1 };
	struct hs_rccc_settings s;
	struct hs_rccc_state r;
	unsigned int i;

	t_start(&r, &s, false);
	ck_assert(hs_cc_rccc.pulls && hs_cc_rccc.gates_resends);
	ck_assert_int_eq(r.first_credit, 225000);
	ck_assert_int_eq(r.max_credit, 375000);
	ck_assert_int_eq(r.credit, 225000);
	ck_assert(hs_cc_rccc.speculating(&r));
	/* 54 packets of 4150 bytes: 224100 spent, 900 left; one more goes. */
	for (i = 0; i < 55; i++) {
		ck_assert(t_may(&r, &s, i));
		hs_cc_rccc.on_sent(&r, &s, 4086, false, 0);
	}
	ck_assert_int_eq(r.credit, 225000 - 55 * MTU);
	ck_assert(!t_may(&r, &s, 55));
	/* The first ACK ends speculation; the debt stays. */
	hs_cc_rccc.on_ack(&r, &s, &ack);
	ck_assert(!hs_cc_rccc.speculating(&r));
	ck_assert_int_eq(r.credit, 225000 - 55 * MTU);
	/* PULLs: what is new, in 256-byte quanta; an old one is ignored. */
	hs_cc_rccc.on_pull(&r, &s, 20, 2000);
	ck_assert_int_eq(r.credit, 225000 - 55 * MTU + 20 * 256);
	ck_assert(t_may(&r, &s, 55));
	hs_cc_rccc.on_pull(&r, &s, 15, 2001);
	ck_assert_int_eq(r.credit, 225000 - 55 * MTU + 20 * 256);
	/* Never more than 2.5 BDP held. */
	hs_cc_rccc.on_pull(&r, &s, 5000, 3000);
	ck_assert_int_eq(r.credit, 375000);
	/* A timeout with credit changes nothing; without, one packet's. */
	hs_cc_rccc.on_timeout(&r, &s, 4000);
	ck_assert_int_eq(r.credit, 375000);
	r.credit = -100;
	hs_cc_rccc.on_timeout(&r, &s, 5000);
	ck_assert_int_eq(r.credit, MTU);
}
END_TEST

/* Speculation ending with credit left: it is dropped (stopSpeculating). */
START_TEST(test_rccc_stop_spec)
{
	struct hs_cc_ack nack = { .now_ns = 10, .nacked_pkts = 1,
				  .nacked_bytes = 4086 };
	const struct hs_cc_ack nothing = { .now_ns = 5 };
	struct hs_rccc_settings s;
	struct hs_rccc_state r;

	t_start(&r, &s, false);
	hs_cc_rccc.on_sent(&r, &s, 4086, false, 0);
	/* Feedback on nothing it sent (a stray ACK or NACK) ends nothing. */
	hs_cc_rccc.on_ack(&r, &s, &nothing);
	ck_assert(hs_cc_rccc.speculating(&r));
	hs_cc_rccc.on_nack(&r, &s, &nothing);
	ck_assert(hs_cc_rccc.speculating(&r));
	hs_cc_rccc.on_nack(&r, &s, &nack);
	ck_assert_int_eq(r.credit, 0);
	ck_assert(!t_may(&r, &s, 0));
	t_start(&r, &s, false);
	hs_cc_rccc.on_pull(&r, &s, 1, 5);	/* a PULL ends it too */
	ck_assert_int_eq(r.credit, 256);
}
END_TEST

/* nscc = yes: credit and NSCC's window must both let a packet out. */
START_TEST(test_rccc_both)
{
	struct hs_rccc_settings s;
	struct hs_rccc_state r;

	memset(&s, 0, sizeof(s));
	hs_cc_rccc.defaults(&s);
	s.with_nscc = true;
	s.nscc.window_pkts = 2;
	memset(&r, 0, sizeof(r));
	hs_cc_rccc.start(&r, &s, &t_flow);
	ck_assert_int_eq(r.n.cwnd, 2 * MTU);
	ck_assert(t_may(&r, &s, 1));
	ck_assert(!t_may(&r, &s, 2));	/* credit left, window full */
	r.credit = 0;
	ck_assert(!t_may(&r, &s, 0));	/* window room, no credit */
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("rccc");
	TCase *tc = tcase_create("rccc");

	tcase_add_test(tc, test_rccc_credit);
	tcase_add_test(tc, test_rccc_stop_spec);
	tcase_add_test(tc, test_rccc_both);
	suite_add_tcase(s, tc);
	return t_run_suite(s);
}
