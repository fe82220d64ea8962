/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NSCC's arithmetic (host/transport/hs_nscc.c), pinned against numbers
 * worked out by hand from uet-htsim's formulas (htsim/sim/uec.cpp at
 * 40ccb05): the scaling of its constants, the four ECN x delay cases,
 * fast increase, the batch, a NACK and quick adapt.  Times in the state
 * are picoseconds, sizes bytes of 4150-byte packets (4086 + 64).
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "hs_cc.h"
#include "hs_nscc.h"
#include "unit_suite.h"

#define MTU 4150

/* 100G, a 12 us network RTT: the reference itself, so a = 1. */
static const struct hs_cc_flow t_flow12 = {
	.rate_bps = 100000000000ull, .base_rtt_ns = 12000, .mss = 4086,
	.size = 1ull << 30,
};

static struct hs_nscc_settings
t_settings(uint32_t window_pkts)
{
	struct hs_nscc_settings s;

	memset(&s, 0, sizeof(s));
	hs_cc_nscc.defaults(&s);
	s.window_pkts = window_pkts;
	return s;
}

/* An ACK of one packet at now_ns whose RTT is rtt_ns. */
static void
t_ack(struct hs_nscc_state *n, const struct hs_nscc_settings *s,
      uint64_t now_ns, uint64_t rtt_ns, bool ce)
{
	struct hs_cc_ack a = {
		.now_ns = now_ns, .rtt_ns = rtt_ns, .acked_pkts = 1,
		.acked_bytes = 4086, .ce = ce, .flight = { .pkts = 5 },
	};

	hs_cc_nscc.on_ack(n, s, &a);
}

/*
 * initNsccParams (86-159) at 12 us: target 0.75 RTT = 9 us; alpha =
 * 4 mss a b / target = 4 x 4086 x 0.75 / 9e6 = 0.001362 B/ps; fi = 5 mss
 * = 20430; eta = 0.15 mss = 612.9; fi_scale = 0.25; maxwnd = 1.5 x
 * 150000 B.  At uet-htsim's default fabric (14.023 us, its printed
 * network RTT to the ns): a = 175287.5 / 150000 = 1.1685833, target
 * 10517250 ps, fi = 23874.16, eta = 716.22, fi_scale = 0.29215, maxwnd
 * 262931 B.
 */
START_TEST(test_nscc_scaling)
{
	struct hs_nscc_settings s = t_settings(0);
	struct hs_cc_flow f14 = t_flow12;
	struct hs_nscc_state n;

	memset(&n, 0, sizeof(n));
	hs_cc_nscc.start(&n, &s, &t_flow12);
	ck_assert_uint_eq(n.target, 9000000);
	ck_assert_double_eq_tol(n.alpha, 0.001362, 1e-12);
	ck_assert_double_eq_tol(n.fi, 20430.0, 1e-9);
	ck_assert_double_eq_tol(n.eta, 612.9, 1e-9);
	ck_assert_double_eq_tol(n.fi_scale, 0.25, 1e-12);
	ck_assert_int_eq(n.maxwnd, 225000);
	ck_assert_int_eq(n.cwnd, 225000);	/* no window: the largest */
	ck_assert_uint_eq(n.qa_threshold, 36000000);
	ck_assert_uint_eq(n.adjust_bytes, 8 * MTU);
	ck_assert_uint_eq(n.mtu, MTU);

	f14.base_rtt_ns = 14023;
	memset(&n, 0, sizeof(n));
	hs_cc_nscc.start(&n, &s, &f14);
	ck_assert_uint_eq(n.target, 10517250);
	ck_assert_double_eq_tol(n.fi, 23874.1575, 1e-6);
	ck_assert_double_eq_tol(n.eta, 716.224725, 1e-6);
	ck_assert_double_eq_tol(n.fi_scale, 0.29214583, 1e-8);
	ck_assert_double_eq_tol(n.alpha, 0.0015916105, 1e-12);
	ck_assert_int_eq(n.maxwnd, 262931);

	/* Without trimming uet-htsim aims at one RTT; an explicit target wins. */
	s.target_rtts = 1.0;
	hs_cc_nscc.start(&n, &s, &t_flow12);
	ck_assert_uint_eq(n.target, 12000000);
	s.target_delay_ns = 5000;
	hs_cc_nscc.start(&n, &s, &t_flow12);
	ck_assert_uint_eq(n.target, 5000000);
}
END_TEST

/*
 * The four cases and the batch, from a window of 10 packets (41500 B),
 * the first ACK at 1 ms.
 */
START_TEST(test_nscc_cases)
{
	const uint64_t t0 = 1000000;	/* ns */
	struct hs_nscc_settings s = t_settings(10);
	struct hs_nscc_state n;
	int64_t w;

	memset(&n, 0, sizeof(n));
	hs_cc_nscc.start(&n, &s, &t_flow12);
	ck_assert_int_eq(n.cwnd, 41500);

	/*
	 * No mark, delay 10 us >= target: fair increase, inc = fi x 4150 =
	 * 84784500.  The first ACK opens the quick-adapt epoch (to 1 ms +
	 * 12 + 9 us) and, a network RTT after the last adjustment, applies
	 * the batch: 84784500 / 41500 = 2043, and eta's 612 -> 44155.  The
	 * unmarked sample over the target counts as base / 4 in the
	 * average: 0.0125 x 3e6 = 37500.
	 */
	t_ack(&n, &s, t0, 12000 + 10000, false);
	ck_assert_int_eq(n.cwnd, 44155);
	ck_assert_uint_eq(n.inc, 0);
	ck_assert_uint_eq(n.avg_delay, 37500);
	ck_assert_uint_eq(n.qa_end, (t0 + 21000) * 1000);
	ck_assert_uint_eq(n.last_adjust, t0 * 1000);

	/*
	 * No mark, delay 1 us < target, not below 1 us: proportional
	 * increase alpha x 4150 x (9e6 - 1e6) = 45218399 (uet-htsim's
	 * double, truncated into its uint32), batched: the window waits.
	 * Average 0.0125 x 1e6 + 0.9875 x 37500 = 49531.
	 */
	t_ack(&n, &s, t0 + 100, 12000 + 1000, false);
	ck_assert_uint_eq(n.inc, 45218399);
	ck_assert_int_eq(n.cwnd, 44155);
	ck_assert_uint_eq(n.avg_delay, 49531);

	/*
	 * Mark, delay 20 us >= target, average 18 us: multiplicative
	 * decrease by the average's excess, 0.0125 x 20e6 + 0.9875 x 18e6 =
	 * 18025000: cwnd x (1 - 0.8 x 9.025 / 18.025) = 44155 x 0.599445 =
	 * 26468.  The batch is kept.
	 */
	n.avg_delay = 18000000;
	t_ack(&n, &s, t0 + 200, 12000 + 20000, true);
	ck_assert_uint_eq(n.avg_delay, 18025000);
	ck_assert_int_eq(n.cwnd, 26468);
	ck_assert_uint_eq(n.last_dec, (t0 + 200) * 1000);
	ck_assert_uint_eq(n.inc, 45218399);

	/* Again within a base RTT: no second decrease. */
	t_ack(&n, &s, t0 + 300, 12000 + 20000, true);
	ck_assert_int_eq(n.cwnd, 26468);

	/* Mark, delay 2 us < target: nothing moves but the average. */
	t_ack(&n, &s, t0 + 400, 12000 + 2000, true);
	ck_assert_int_eq(n.cwnd, 26468);
	ck_assert_uint_eq(n.inc, 45218399);

	/*
	 * A network RTT after the last adjustment the batch is applied
	 * (45218399 / 26468 = 1708, and eta's 612) before this ACK's
	 * decrease, more than a base RTT after the last: never below half.
	 */
	w = n.cwnd;
	t_ack(&n, &s, t0 + 12401, 12000 + 20000, true);
	ck_assert_uint_eq(n.inc, 0);
	ck_assert_uint_eq(n.last_dec, (t0 + 12401) * 1000);
	ck_assert_int_lt(n.cwnd, w + 1708 + 612);
	ck_assert_int_ge(n.cwnd, w / 2);
}
END_TEST

/*
 * Fast increase: ACKs at the base RTT (delay 0 < 1 us) count their bytes;
 * once more than a window's worth came so, each adds 4150 x fi_scale =
 * 1037 bytes at once, and a delay of 1 us or more ends it.
 */
START_TEST(test_nscc_fast_increase)
{
	const uint64_t t0 = 1000000;
	struct hs_nscc_settings s = t_settings(4);
	struct hs_nscc_state n;
	unsigned int i;
	int64_t w;

	uint32_t inc;

	memset(&n, 0, sizeof(n));
	hs_cc_nscc.start(&n, &s, &t_flow12);
	/*
	 * The first ACK opens the epoch and applies its own proportional
	 * increase, alpha x 4150 x 9e6 = 50871600: 16600 + 50871600 / 16600
	 * (3064) + eta 612 = 20276.
	 */
	t_ack(&n, &s, t0, 12000, false);
	w = n.cwnd;
	ck_assert_int_eq(w, 16600 + 3064 + 612);
	for (i = 1; i <= 3; i++)	/* 16600 bytes: not more than 20276 */
		t_ack(&n, &s, t0 + i, 12000, false);
	ck_assert(!n.increase);
	ck_assert_int_eq(n.cwnd, w);
	inc = n.inc;
	ck_assert_uint_gt(inc, 0);
	t_ack(&n, &s, t0 + 4, 12000, false);	/* 20750 > 20276 */
	ck_assert(n.increase);
	ck_assert_int_eq(n.cwnd, w + 1037);
	t_ack(&n, &s, t0 + 5, 12000, false);
	ck_assert_int_eq(n.cwnd, w + 2 * 1037);
	ck_assert_uint_eq(n.inc, inc);	/* nothing batched meanwhile */
	t_ack(&n, &s, t0 + 6, 12000 + 1000, false);	/* 1 us: over */
	ck_assert(!n.increase);
	ck_assert_uint_eq(n.fi_count, 0);
	ck_assert_int_eq(n.cwnd, w + 2 * 1037);
}
END_TEST

/*
 * A NACK takes its packet's bytes off and asks for quick adapt; at the
 * epoch's end a flow that got less than maxwnd >> 3 = 28125 bytes
 * through sets its window to what it got, and ignores marks on the
 * bytes that were out then.
 */
START_TEST(test_nscc_nack_quick_adapt)
{
	const uint64_t t0 = 1000000;
	struct hs_nscc_settings s = t_settings(20);
	struct hs_cc_ack nack = {
		.now_ns = t0 + 500, .rtt_ns = 14000, .nacked_pkts = 1,
		.nacked_bytes = 4086, .flight = { .pkts = 10 },
	};
	struct hs_nscc_state n;
	int64_t w;

	memset(&n, 0, sizeof(n));
	hs_cc_nscc.start(&n, &s, &t_flow12);
	t_ack(&n, &s, t0, 12000 + 2000, false);	/* epoch to t0 + 21 us */
	w = n.cwnd;
	t_ack(&n, &s, t0 + 100, 12000 + 2000, false);
	t_ack(&n, &s, t0 + 200, 12000 + 2000, false);
	ck_assert_uint_eq(n.achieved, 2 * MTU);
	hs_cc_nscc.on_nack(&n, &s, &nack);
	ck_assert(n.trigger_qa);
	ck_assert_int_eq(n.cwnd, w - MTU);
	/* Before the epoch ends nothing more; after it, the window is 2 packets. */
	t_ack(&n, &s, t0 + 20000, 12000 + 2000, false);
	ck_assert(n.trigger_qa);
	t_ack(&n, &s, t0 + 21001, 12000 + 2000, true);
	ck_assert(!n.trigger_qa);
	ck_assert_int_eq(n.cwnd, 4 * MTU);	/* 3 ACKs + this, before it reset */
	ck_assert_uint_eq(n.to_ignore, 5 * MTU);
	ck_assert_uint_eq(n.achieved, 0);
	/* Marks on what was out then are ignored, cwnd and batch untouched. */
	w = n.cwnd;
	t_ack(&n, &s, t0 + 21002, 12000 + 20000, true);
	ck_assert_int_eq(n.cwnd, w);
	/*
	 * A NACK's shorter round trip (a trimmed header's) lowers the base
	 * RTT and the largest window with it (base_rtt_on_nack).
	 */
	nack.rtt_ns = 6000;
	hs_cc_nscc.on_nack(&n, &s, &nack);
	ck_assert_uint_eq(n.base_rtt, 6000000);
	ck_assert_int_eq(n.maxwnd, 112500);
	/* quick_adapt = no: the NACK only takes its bytes off. */
	s.quick_adapt = false;
	memset(&n, 0, sizeof(n));
	hs_cc_nscc.start(&n, &s, &t_flow12);
	w = n.cwnd;
	hs_cc_nscc.on_nack(&n, &s, &nack);
	ck_assert_int_eq(n.cwnd, w - MTU);
}
END_TEST

/* The window never leaves [one packet, maxwnd]; a timeout takes a packet. */
START_TEST(test_nscc_bounds)
{
	struct hs_nscc_settings s = t_settings(1);
	struct hs_cc_flight f = { 0 };
	struct hs_nscc_state n;

	memset(&n, 0, sizeof(n));
	hs_cc_nscc.start(&n, &s, &t_flow12);
	ck_assert_int_eq(n.cwnd, MTU);
	hs_cc_nscc.on_timeout(&n, &s, 5);
	ck_assert_int_eq(n.cwnd, MTU);
	ck_assert(hs_cc_nscc.may_send(&n, &s, &f));
	f.pkts = 1;
	ck_assert(!hs_cc_nscc.may_send(&n, &s, &f));
	ck_assert_double_eq_tol(hs_cc_nscc.window(&n, &s), 4086.0, 1e-9);
	s = t_settings(1000);	/* more than the largest: clamped */
	hs_cc_nscc.start(&n, &s, &t_flow12);
	ck_assert_int_eq(n.cwnd, 225000);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("nscc");
	TCase *tc = tcase_create("nscc");

	tcase_add_test(tc, test_nscc_scaling);
	tcase_add_test(tc, test_nscc_cases);
	tcase_add_test(tc, test_nscc_fast_increase);
	tcase_add_test(tc, test_nscc_nack_quick_adapt);
	tcase_add_test(tc, test_nscc_bounds);
	suite_add_tcase(s, tc);
	return t_run_suite(s);
}
