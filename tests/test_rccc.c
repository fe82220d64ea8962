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

/*
 * "both": a NACK of a packet trimmed on its last hop leaves NSCC's
 * window (uec.cpp:1380); one trimmed elsewhere takes its bytes off, as
 * it does from a sender-only NSCC whatever the hop (quick adapt off, so
 * only the window speaks).
 */
START_TEST(test_rccc_last_hop_nack)
{
	struct hs_cc_ack nack = {
		.now_ns = 1000, .rtt_ns = 14000, .nacked_pkts = 1,
		.nacked_bytes = 4086, .flight = { .pkts = 10 },
		.last_hop = true,
	};
	struct hs_nscc_settings ns;
	struct hs_nscc_state n;
	struct hs_rccc_settings s;
	struct hs_rccc_state r;
	int64_t w;

	t_start(&r, &s, true);
	s.nscc.quick_adapt = false;
	w = r.n.cwnd;
	hs_cc_rccc.on_nack(&r, &s, &nack);
	ck_assert_int_eq(r.n.cwnd, w);
	nack.last_hop = false;
	hs_cc_rccc.on_nack(&r, &s, &nack);
	ck_assert_int_eq(r.n.cwnd, w - MTU);
	/* The sender's NSCC alone: every NACK takes its bytes. */
	memset(&ns, 0, sizeof(ns));
	hs_cc_nscc.defaults(&ns);
	ns.quick_adapt = false;
	memset(&n, 0, sizeof(n));
	hs_cc_nscc.start(&n, &ns, &t_flow);
	w = n.cwnd;
	nack.last_hop = true;
	hs_cc_nscc.on_nack(&n, &ns, &nack);
	ck_assert_int_eq(n.cwnd, w - MTU);
}
END_TEST

/*
 * The receiver's oversubscription CC (oversubscribed_cc.cpp:38-94)
 * interval by interval, against numbers worked by hand from its rules:
 * target 0.3, alpha 0.5, Md 0.5, Ai 0.01, the floor 0.9 / ratio.
 */
START_TEST(test_rccc_oversub)
{
	struct hs_pull_params pp;
	struct hs_rccc_osc o;
	struct hs_rccc_settings s;

	memset(&s, 0, sizeof(s));
	hs_cc_rccc.defaults(&s);
	hs_cc_rccc.pull_params(&s, &pp);
	ck_assert(pp.oversubscription == 0);	/* off by default */
	ck_assert(pp.first_bdp == 1.5 && pp.max_bdp == 2.5);
	s.oversubscription = 4;
	hs_cc_rccc.pull_params(&s, &pp);
	ck_assert(pp.oversubscription == 4);
	hs_rccc_osc_init(&o, 4);
	ck_assert(o.rate == 1 && o.g == 0);
	ck_assert_double_eq_tol(o.min_rate, 0.225, 1e-12);
	/* Nothing marked: up (capped at 1), the step doubling. */
	hs_rccc_osc_step(&o, 100, 0, 0, 0);
	ck_assert(o.rate == 1 && o.inc == 1);
	/* Half marked: g = 0.25, under 0.3: up by 0.01 only (capped). */
	hs_rccc_osc_step(&o, 100, 50, 0, 0);
	ck_assert_double_eq_tol(o.g, 0.25, 1e-12);
	ck_assert(o.rate == 1 && o.inc == 2);
	/* 80 % marked: g = 0.525, rate x (1 - 0.225 x 0.5) = 0.8875. */
	hs_rccc_osc_step(&o, 100, 80, 0, 0);
	ck_assert_double_eq_tol(o.g, 0.525, 1e-12);
	ck_assert_double_eq_tol(o.rate, 0.8875, 1e-12);
	ck_assert_uint_eq(o.inc, 0);
	/* 20 trimmed in the core of 100: -0.2; 10 on the last hop cost
	 * nothing; the CE fraction is of the 70 whole ones (0 here). */
	hs_rccc_osc_step(&o, 100, 0, 10, 20);
	ck_assert_double_eq_tol(o.rate, 0.6875, 1e-12);
	ck_assert_double_eq_tol(o.g, 0.2625, 1e-12);
	/* Quiet intervals: +0.01, +0.02, +0.04. */
	hs_rccc_osc_step(&o, 0, 0, 0, 0);
	hs_rccc_osc_step(&o, 0, 0, 0, 0);
	hs_rccc_osc_step(&o, 0, 0, 0, 0);
	ck_assert_double_eq_tol(o.rate, 0.7575, 1e-12);
	ck_assert_uint_eq(o.inc, 3);
	/* Every packet trimmed in the core: down to the floor, 0.9 / 8. */
	hs_rccc_osc_init(&o, 8);
	hs_rccc_osc_step(&o, 100, 0, 0, 100);
	ck_assert_double_eq_tol(o.rate, 0.1125, 1e-12);
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
	tcase_add_test(tc, test_rccc_last_hop_nack);
	tcase_add_test(tc, test_rccc_oversub);
	suite_add_tcase(s, tc);
	return t_run_suite(s);
}
