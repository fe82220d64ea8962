/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fabric: lossy links ([drop.*]), failure modes (stall, trimming and PFC
 * under incast, one-way degradation, routes back) and host-side DR.
 * (helpers and fixtures: fabric_t.h, test_fabric.c).
 */
#include "fabric_t.h"

/* ==== lossy links ([drop.*] random and bursts) ==== */

/* A loss state for d, t0 = 0. */
static void
t_loss_start(struct ofan_loss *l, const struct ofan_loss_cfg *d,
	     uint64_t seed)
{
	ofan_loss_start(l, d, seed, 1, 0);
}

/*
 * Bursts as htsim's flaky link has them, on frames ending every 1 us
 * from 1 to 1000 us: due at 100 us, a burst loses the frames ending from
 * then to 10 us later (the first one after it passes), and the next is
 * due 100 us after it began; 10 bursts of 11 frames but the last (only
 * the frame at 1000 us).  A link idle when a burst is due: the burst
 * starts with the next frame (150 us), and the next is due 100 us after
 * that.  A burst longer than the period: the next is due a period after
 * it ended.
 */
START_TEST(test_loss_bursts)
{
	struct ofan_loss_cfg d = {
		.mode = OFAN_LOSS_BURSTS, .every_ns = 100 * T_US,
		.length_ns = 10 * T_US, .first_ns = 100 * T_US,
		.length_fixed = true,
	};
	struct ofan_loss l;
	uint64_t t, lost = 0;

	t_loss_start(&l, &d, 1);
	for (t = 1; t <= 1000; t++) {
		bool hit = ofan_loss_hit(&l, t * T_US);
		bool want = t >= 100 && t % 100 <= 10;

		ck_assert_msg(hit == want, "frame ending at %" PRIu64
			      " us: lost %d, expected %d", t, hit, want);
		lost += hit;
	}
	ck_assert_uint_eq(lost, 9 * 11 + 1);

	/* Idle when due. */
	t_loss_start(&l, &d, 1);
	ck_assert(!ofan_loss_hit(&l, 95 * T_US));
	ck_assert(ofan_loss_hit(&l, 150 * T_US));
	ck_assert(ofan_loss_hit(&l, 160 * T_US));
	ck_assert(!ofan_loss_hit(&l, 161 * T_US));
	ck_assert(!ofan_loss_hit(&l, 249 * T_US));
	ck_assert(ofan_loss_hit(&l, 250 * T_US));

	/* Longer than the period. */
	d.length_ns = 150 * T_US;
	t_loss_start(&l, &d, 1);
	ck_assert(ofan_loss_hit(&l, 100 * T_US));
	ck_assert(ofan_loss_hit(&l, 250 * T_US));
	ck_assert(!ofan_loss_hit(&l, 251 * T_US));
	ck_assert(!ofan_loss_hit(&l, 349 * T_US));
	ck_assert(ofan_loss_hit(&l, 350 * T_US));
}
END_TEST

/*
 * Burst lengths are exponential with the configured mean, as htsim draws
 * them (100,000 bursts: mean within 1 %, e^-1 of them past the mean and
 * e^-3 past three times it, within 0.01); a random loss rate loses its
 * share of frames (10^6 draws at 1 %: within 5 % of 10,000).  The same
 * seed gives the same losses.
 */
START_TEST(test_loss_distributions)
{
	struct ofan_loss_cfg d = {
		.mode = OFAN_LOSS_BURSTS, .every_ns = 100 * T_US,
		.length_ns = 10 * T_US, .first_ns = 0,
	};
	struct ofan_loss_cfg r = { .mode = OFAN_LOSS_RANDOM, .rate = 0.01 };
	struct ofan_loss l, l2;
	uint64_t i, len, sum = 0, past1 = 0, past3 = 0, lost = 0, t;
	const uint64_t n = 100000;

	t_loss_start(&l, &d, 7);
	for (i = 0; i < n; i++) {
		t = l.next_burst;
		ck_assert(ofan_loss_hit(&l, t));
		len = l.burst_end - t;
		sum += len;
		past1 += len > d.length_ns;
		past3 += len > 3 * d.length_ns;
		l.in_burst = false;
	}
	ck_assert_msg(fabs((double)sum / n / d.length_ns - 1) < 0.01,
		      "mean burst %.1f ns", (double)sum / n);
	ck_assert_msg(fabs((double)past1 / n - exp(-1)) < 0.01, "%" PRIu64,
		      past1);
	ck_assert_msg(fabs((double)past3 / n - exp(-3)) < 0.01, "%" PRIu64,
		      past3);

	t_loss_start(&l, &r, 7);
	t_loss_start(&l2, &r, 7);
	for (i = 0; i < 1000000; i++) {
		bool hit = ofan_loss_hit(&l, i);

		ck_assert(hit == ofan_loss_hit(&l2, i));
		lost += hit;
	}
	ck_assert_msg(lost > 9500 && lost < 10500, "%" PRIu64, lost);
}
END_TEST

/*
 * In a fabric: the k = 4 permutation with htsim's flaky link on
 * core0 -> agg0 and a random 0.5 % on agg1 -> core2; erasure recovery
 * completes every flow; what is lost is counted as injected, and only
 * there; two threads give the same files as one.
 */
START_TEST(test_loss_fabric)
{
	static const char *const ov[] = {
		"fabric.schemes=ecmp, spray, ofan", "traffic.size=1MiB",
		"drop.flaky.link=core0-agg0", "drop.flaky.mode=bursts",
		"drop.flaky.first=20us", "drop.rand.link=agg1-core2",
		"drop.rand.mode=random", "drop.rand.rate=0.005",
	};
	struct t_exp e;
	struct fab_run r;
	unsigned int s;

	t_same_on_two_threads("permutation-k4.ini", ov, RTE_DIM(ov), &e);
	for (s = 0; s < e.x.combos[0].nb_schemes; s++) {
		t_fabric_run(&e.x.combos[0], (uint16_t)s, &r);
		t_check_conserved(&r, "lossy links");
		ck_assert(r.completed);
		if (s != t_scheme(&e.x.combos[0], "ecmp"))
			ck_assert_uint_eq(r.drops_total,
					  r.drops[OFAN_DROP_INJECTED]);
		ck_assert_uint_gt(r.drops[OFAN_DROP_INJECTED], 0);
		fab_run_free(&r);
	}
	fab_experiment_free(&e.x);
	t_teardown();
}
END_TEST

/* ==== failure modes: stall, one way, routing taking a link back ==== */

/* One flow, h1 -> h0 (both on tor0), 1 MiB over SACK, with overrides. */
static uint64_t
t_stall_fct(const char *const *extra, int nb_extra, struct fab_run *keep)
{
	const char *ov[12] = {
		"fabric.schemes=ecmp", "traffic.pattern=incast",
		"traffic.incast_degree=1", "traffic.size=1MiB",
		"host.recovery=sack",
	};
	struct fab_run r;
	uint64_t fct;
	int k = 5, i;

	for (i = 0; i < nb_extra; i++)
		ov[k++] = extra[i];
	t_run_file("permutation-k4.ini", ov, k, "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.nb_flows, 1);
	fct = r.flows[0].fct_ns;
	t_keep(&r, keep);
	return fct;
}

/*
 * A stalled link (htsim's -ftype queue) starts no frame while it lasts
 * and loses none: h1's uplink stalled one way for 30 us delays its only
 * flow by the stall less what of its frame in service had still to go
 * (under a frame, 334 ns here), without a drop, a resend or a timeout.
 * The other way stalled (the ACKs' way): the data keeps flowing and the
 * ACKs held back arrive before the flow ends, so it ends when it would
 * have.  Both ways of an aggregation
 * switch's core link stalled under spraying: the queues towards it fill
 * to their capacity and tail-drop, nothing is lost on the wire, routing
 * removes it and every flow completes.
 */
START_TEST(test_stall)
{
	static const char *const data_way[] = {
		"failure.s.link=h1-tor0", "failure.s.mode=stall",
		"failure.s.at=10us", "failure.s.duration=30us",
		"failure.s.one_way=yes", "failure.s.reroute=no",
	};
	static const char *const ack_way[] = {
		"failure.s.link=tor0-h1", "failure.s.mode=stall",
		"failure.s.at=10us", "failure.s.duration=30us",
		"failure.s.one_way=yes", "failure.s.reroute=no",
	};
	static const char *const core[] = {
		"fabric.schemes=spray", "traffic.size=512KiB",
		"failure.s.link=agg0-core0", "failure.s.mode=stall",
		"failure.s.at=10us", "fabric.reconverge_delay=100us",
	};
	uint64_t base, stalled, acks;
	struct fab_run r;
	struct t_exp e;

	base = t_stall_fct(NULL, 0, NULL);
	stalled = t_stall_fct(data_way, RTE_DIM(data_way), &r);
	ck_assert_msg(stalled - base <= 30 * T_US &&
		      stalled - base >= 30 * T_US - 334,
		      "a 30 us stall delayed the flow by %" PRIu64 " ns",
		      stalled - base);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_eq(r.hosts.data_retx, 0);
	ck_assert_uint_eq(r.hosts.timeouts, 0);
	fab_run_free(&r);
	acks = t_stall_fct(ack_way, RTE_DIM(ack_way), NULL);
	ck_assert_msg(acks == base, "ACKs stalled 30 us: done at %" PRIu64
		      " ns, %" PRIu64 " ns without", acks, base);

	t_load(&e, "permutation-k4.ini", core, RTE_DIM(core), false, 0);
	t_fabric_run(&e.x.combos[0], 0, &r);
	t_check_conserved(&r, "a stalled core link");
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops[OFAN_DROP_BLACKHOLE], 0);
	ck_assert_uint_ge(r.max_queue[FAB_L_AGG_UP], 50);
	ck_assert_uint_gt(r.drops[OFAN_DROP_QUEUE_FULL], 0);
	fab_run_free(&r);
	fab_experiment_free(&e.x);
}
END_TEST

/*
 * Trimming (architecture.md, "Trimming"): a 2-to-1 incast into a 2-frame queue.
 * Every overflow becomes a header at the receiver, which NACKs it, and
 * the sender resends exactly that packet: every byte delivered, nothing
 * dropped, no RTO, and trimmed = headers received = NACKs = resends.
 * With return to sender every header goes back to its sender instead.
 * Without trimming the same incast drops what overflows.  Byte-identical
 * on one and two threads.
 */
START_TEST(test_trim_incast)
{
	static const char *const rts[] = { "queue.rts=always" };
	static const char *const full[] = { "queue.trim_size=full" };
	static const char *const off[] = {
		"queue.trim=no", "host.recovery=sack",
	};
	static const char *const last[] = {
		"queue.trim=no", "queue.leaf_down.trim=yes",
	};
	static const char *const up[] = {
		"queue.trim=no", "queue.leaf_up.trim=yes",
	};
	const uint64_t goodput = 2 * 256 * 1024;
	struct fab_run r;

	t_run_file("incast-trim.ini", NULL, 0, "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_eq(r.hosts.timeouts, 0);
	ck_assert_uint_eq(r.hosts.goodput_bytes, goodput);
	ck_assert_uint_gt(r.trimmed, 20);
	ck_assert_uint_eq(r.hosts.trimmed_rx, r.trimmed);
	ck_assert_uint_eq(r.hosts.nacks_sent, r.trimmed);
	ck_assert_uint_eq(r.hosts.nacks_received, r.trimmed);
	ck_assert_uint_eq(r.hosts.data_retx, r.trimmed);
	ck_assert_uint_eq(r.hosts.dup_pkts, 0);
	ck_assert_uint_eq(r.headers_returned, 0);
	ck_assert_uint_eq(r.ctrl_drops, 0);
	fab_run_free(&r);

	t_run_file("incast-trim.ini", rts, RTE_DIM(rts), "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_eq(r.hosts.timeouts, 0);
	ck_assert_uint_eq(r.hosts.goodput_bytes, goodput);
	ck_assert_uint_gt(r.trimmed, 20);
	ck_assert_uint_eq(r.headers_returned, r.trimmed);
	ck_assert_uint_eq(r.hosts.returned_rx, r.trimmed);
	ck_assert_uint_eq(r.hosts.trimmed_rx, 0);
	ck_assert_uint_eq(r.hosts.nacks_sent, 0);
	ck_assert_uint_eq(r.hosts.data_retx, r.trimmed);
	fab_run_free(&r);

	/* Marked, not cut: the same accounting, on a busier link. */
	t_run_file("incast-trim.ini", full, RTE_DIM(full), "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.hosts.goodput_bytes, goodput);
	ck_assert_uint_gt(r.trimmed, 20);
	ck_assert_uint_eq(r.hosts.trimmed_rx + r.ctrl_drops, r.trimmed);
	fab_run_free(&r);

	t_run_file("incast-trim.ini", off, RTE_DIM(off), "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.trimmed, 0);
	ck_assert_uint_gt(r.drops[OFAN_DROP_QUEUE_FULL], 20);
	fab_run_free(&r);

	/* Trimming where the incast meets (the last hop) is all it takes;
	 * trimming only the leaves' uplinks trims nothing of it. */
	t_run_file("incast-trim.ini", last, RTE_DIM(last), "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_gt(r.trimmed, 20);
	ck_assert_uint_eq(r.hosts.data_retx, r.trimmed);
	fab_run_free(&r);
	t_run_file("incast-trim.ini", up, RTE_DIM(up), "ecmp", &r, true);
	ck_assert_uint_eq(r.trimmed, 0);
	ck_assert_uint_gt(r.drops[OFAN_DROP_QUEUE_FULL], 20);
	fab_run_free(&r);

	t_same_on_two_threads("incast-trim.ini", rts, RTE_DIM(rts), NULL);
}
END_TEST

/*
 * A lossless fabric (PFC) under a 3-to-1 incast with go-back-N: nothing
 * is lost, pauses go upstream -- to hosts too -- and every one is
 * resumed; each queue stays below what its ingress ports may hold, each
 * xoff plus the headroom (2 x 1 us x 100 Gb/s = 25,000 bytes, a full
 * frame of 4,110 + 24 either side and the pause's 84: 33,352); go-back-N
 * never rewinds, as nothing arrives out of order.  Without PFC, on the
 * same 8-frame queues, the incast drops and go-back-N resends.  The same
 * on two threads.
 */
START_TEST(test_pfc_incast)
{
	static const char *const lossy[] = {
		"queue.pfc=no", "queue.queue_packets=8",
	};
	static const char *const spray[] = { "fabric.schemes=spray" };
	const uint64_t goodput = 3 * 256 * 1024, per_in = 48000 + 33352;
	struct fab_run r;

	t_run_file("incast-pfc.ini", NULL, 0, "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_eq(r.hosts.goodput_bytes, goodput);
	ck_assert_uint_gt(r.pfc_pauses, 0);
	ck_assert_uint_eq(r.pfc_resumes, r.pfc_pauses);
	ck_assert_uint_gt(r.pfc_paused_ns, 0);
	ck_assert_uint_gt(r.hosts.pfc_pauses_received, 0);
	ck_assert_uint_gt(r.hosts.pfc_paused_ns, 0);
	ck_assert_uint_eq(r.hosts.nacks_sent, 0);
	ck_assert_uint_eq(r.hosts.data_retx, 0);
	ck_assert_uint_eq(r.hosts.timeouts, 0);
	/* Leaf 0's port to host 0 holds what host 1 and two spines bring. */
	ck_assert_uint_le(r.max_queue_bytes[FAB_L_TOR_DOWN], 3 * per_in);
	/* Leaf 1's uplinks, what hosts 2 and 3 bring. */
	ck_assert_uint_le(r.max_queue_bytes[FAB_L_TOR_UP], 2 * per_in);
	ck_assert_uint_gt(r.max_queue_bytes[FAB_L_TOR_DOWN], 48000);
	fab_run_free(&r);

	/* Spraying reorders: go-back-N NACKs and rewinds, still lossless. */
	t_run_file("incast-pfc.ini", spray, RTE_DIM(spray), "spray", &r,
		   true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_eq(r.hosts.goodput_bytes, goodput);
	fab_run_free(&r);

	t_run_file("incast-pfc.ini", lossy, RTE_DIM(lossy), "ecmp", &r, true);
	ck_assert_uint_eq(r.pfc_pauses, 0);
	ck_assert_uint_gt(r.drops[OFAN_DROP_QUEUE_FULL], 0);
	ck_assert_uint_gt(r.hosts.data_retx, 0);
	fab_run_free(&r);

	t_same_on_two_threads("incast-pfc.ini", NULL, 0, NULL);
}
END_TEST

/*
 * One way: h1's uplink degraded to half its rate from the start, that way
 * only, takes its flow about twice as long; the same degradation of the
 * other way (the ACKs') delays it by under a microsecond.  A section's
 * blank-separated links make one failure each, first_links the first N.
 */
START_TEST(test_degraded_one_way)
{
	static const char *const data_way[] = {
		"failure.d.link=h1-tor0", "failure.d.mode=degraded",
		"failure.d.rate=50G", "failure.d.at=0",
		"failure.d.one_way=yes", "failure.d.reroute=no",
	};
	static const char *const ack_way[] = {
		"failure.d.link=tor0-h1", "failure.d.mode=degraded",
		"failure.d.rate=50G", "failure.d.at=0",
		"failure.d.one_way=yes", "failure.d.reroute=no",
	};
	static const char *const list[] = {
		"failure.d.link=core0-agg0 core1-agg0  core2-agg1",
		"failure.d.mode=degraded", "failure.d.rate=10G", "failure.d.at=0",
		"failure.d.one_way=yes", "drop.l.link=agg0-core0 agg1-core2",
		"drop.l.mode=random", "drop.l.rate=0.5", "drop.l.first_links=1",
	};
	uint64_t base, slow, acks;
	struct t_exp e;

	base = t_stall_fct(NULL, 0, NULL);
	slow = t_stall_fct(data_way, RTE_DIM(data_way), NULL);
	acks = t_stall_fct(ack_way, RTE_DIM(ack_way), NULL);
	ck_assert_msg(slow > 19 * base / 10 && slow < 21 * base / 10,
		      "half the rate one way: %" PRIu64 " ns, %" PRIu64
		      " at full rate", slow, base);
	ck_assert_msg(acks >= base && acks - base < T_US,
		      "the ACKs' way at half rate: %" PRIu64 " ns, %" PRIu64
		      " at full rate", acks, base);

	t_load(&e, "permutation-k4.ini", list, RTE_DIM(list), false, 0);
	ck_assert_uint_eq(e.x.combos[0].nb_failures, 3);
	ck_assert_str_eq(e.x.combos[0].failures[1].link, "core1-agg0");
	ck_assert_str_eq(e.x.combos[0].failures[2].link, "core2-agg1");
	ck_assert_str_eq(e.x.combos[0].failures[2].sec, "failure.d");
	ck_assert(e.x.combos[0].failures[2].one_way);
	ck_assert_uint_eq(e.x.combos[0].nb_drops, 1);
	ck_assert_str_eq(e.x.combos[0].drops[0].link, "agg0-core0");
	fab_experiment_free(&e.x);
}
END_TEST

/*
 * Routing takes a returned link back route_back after it returned
 * (htsim's -fdonetime): a black hole on agg0-core0 from 10 to 30 us,
 * routed around 5 us after it began, is still out of the routes 20 us
 * after it returned and back 1 ns after route_back = 40 us; with
 * route_back = 0 it is back the moment it returns.
 */
START_TEST(test_route_back)
{
	static const struct {
		const char *route_back, *cut;
		bool alive;
	} c[] = {
		{ "failure.h.route_back=40us", "fabric.time_limit=50us", false },
		{ "failure.h.route_back=40us", "fabric.time_limit=70001ns", true },
		{ "failure.h.route_back=0", "fabric.time_limit=30001ns", true },
		{ "failure.h.route_back=0", "fabric.time_limit=29999ns", false },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++) {
		const char *ov[] = {
			"fabric.schemes=spray", "traffic.size=1MiB",
			"failure.h.link=agg0-core0", "failure.h.mode=blackhole",
			"failure.h.at=10us", "failure.h.duration=20us",
			"fabric.reconverge_delay=5us", c[i].route_back,
			c[i].cut,
		};
		struct fab_topo t;
		struct fab_run r;
		struct t_exp e;

		t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
		t_run_topo(&e.x.combos[0], 0, &t, &r);
		ck_assert(!r.completed);
		ck_assert_msg(t.alive[fab_topo_find_link(&t, "agg0-core0")] ==
			      c[i].alive, "%s, %s: in the routes %d, expected %d",
			      c[i].route_back, c[i].cut, !c[i].alive,
			      c[i].alive);
		t_run_free(&t, &r);
		fab_experiment_free(&e.x);
	}
}
END_TEST

/* ==== host-side DR (drb hosts, sr switches) ==== */

/*
 * Host-side DR on the k = 4 fat tree at full load: every flow's data
 * packets take all 4 paths' EVs (sr turns them into the 4 cores,
 * test_sr), and its queues stay O(1) as switch DR's (ofan) do: at most 4
 * frames on any port for 256 KiB and for 4 MiB flows, where spraying's
 * largest queue at least doubles.  The scheme "drb" runs
 * through sr, the switch policy drb names.
 */
START_TEST(test_host_dr)
{
	static const char *const sizes[] = {
		"traffic.size=256KiB", "traffic.size=4MiB",
	};
	double spray_q[2] = { 0 }, q;
	unsigned int i, f;
	uint16_t s;

	for (i = 0; i < 2; i++) {
		const char *ov[] = { "fabric.schemes=ofan, drb, spray",
				     sizes[i] };
		struct t_exp e;
		struct fab_run r;
		const struct fab_params *p;

		t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
		p = &e.x.combos[0];
		ck_assert_ptr_eq(p->schemes[t_scheme(p, "drb")].sw_policy,
				 lb_find("sr"));
		for (s = 0; s < p->nb_schemes; s++) {
			t_fabric_run(p, s, &r);
			t_check_conserved(&r, p->schemes[s].name);
			ck_assert(r.completed);
			ck_assert_uint_eq(r.drops_total, 0);
			/* In full frames' worth of bytes, as tables. */
			q = (double)r.max_queue_bytes_all / r.full_frame;
			if (s == t_scheme(p, "spray"))
				spray_q[i] = q;
			else
				ck_assert_msg(q <= 4.0, "%s %s: a queue of %.1f frames",
					      p->schemes[s].name, sizes[i], q);
			if (s == t_scheme(p, "drb"))
				for (f = 0; f < r.nb_flows; f++)
					ck_assert_uint_eq(r.flows[f].m.distinct_evs,
							  4);
			fab_run_free(&r);
		}
		fab_experiment_free(&e.x);
	}
	ck_assert_msg(spray_q[1] >= 2 * spray_q[0],
		      "spray: %.1f -> %.1f frames", spray_q[0],
		      spray_q[1]);
}
END_TEST

/*
 * The simulator's other strategies in a fabric (k = 4 permutation,
 * 1 MiB, full load): each completes, conserved; fib_llss, a per-
 * destination round robin, keeps its queues as small as ofan's (4 full
 * frames); rr_ecmp hashes above the ToRs and so collides there: its
 * aggregation uplinks queue more than its ToR uplinks.
 */
START_TEST(test_study_schemes)
{
	static const char *const ov[] = {
		"fabric.schemes=ecmp_ar, rr_ecmp, fib_llss", "traffic.size=1MiB",
	};
	struct fab_run r;
	double q;

	t_run_file("permutation-k4.ini", ov, RTE_DIM(ov), "fib_llss", &r, true);
	ck_assert(r.completed);
	q = (double)r.max_queue_bytes_all / r.full_frame;
	ck_assert_msg(q <= 4.0, "fib_llss: a queue of %.1f frames", q);
	fab_run_free(&r);
	t_run_file("permutation-k4.ini", ov, RTE_DIM(ov), "rr_ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_msg(r.max_queue_bytes[FAB_L_AGG_UP] >
		      r.max_queue_bytes[FAB_L_TOR_UP],
		      "rr_ecmp: agg up %" PRIu64 " B, tor up %" PRIu64 " B",
		      r.max_queue_bytes[FAB_L_AGG_UP],
		      r.max_queue_bytes[FAB_L_TOR_UP]);
	fab_run_free(&r);
	t_run_file("permutation-k4.ini", ov, RTE_DIM(ov), "ecmp_ar", &r, true);
	ck_assert(r.completed);
	fab_run_free(&r);
}
END_TEST

void
t_fabric_loss_tests(TCase *tc)
{
	tcase_add_test(tc, test_loss_bursts);
	tcase_add_test(tc, test_loss_distributions);
	tcase_add_test(tc, test_loss_fabric);
}

void
t_fabric_failure_tests(TCase *tc)
{
	tcase_add_test(tc, test_stall);
	tcase_add_test(tc, test_trim_incast);
	tcase_add_test(tc, test_pfc_incast);
	tcase_add_test(tc, test_route_back);
	tcase_add_test(tc, test_degraded_one_way);
	tcase_add_test(tc, test_host_dr);
	tcase_add_test(tc, test_study_schemes);
}
