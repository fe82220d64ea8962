/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine: failures (down, black hole, degraded, scheduled, requested),
 * a port without a software queue, shutdown and the control plane's
 * snapshots, and the loader end to end.
 * (fixtures and helpers: engine_t.h, test_engine.c).
 */
#include "engine_t.h"
#include "t_helpers.h"

/* ==== 8. failures ==== */

START_TEST(test_fail_down)
{
	static const uint8_t keys[] = { 1, 2, 3 };
	const char *name = t_failover_policies[_i];
	const uint16_t dead = T_UPLINK0 + 1;
	struct sw_totals t0, t;
	struct t_switch s;
	struct t_log *log;
	struct t_gen g;
	struct rte_mbuf *m;
	struct ofan_pkt_spec sp;
	uint64_t now = 0, detect, t_fail, t_up, lost;
	uint32_t from, i, nb_unsent = 0;
	uint16_t p;

	t_start(&s, t_cfg_leaf(name));
	detect = sw_engine_config(s.eng)->detect_delay_ns;
	ck_assert_uint_eq(detect, 10 * T_US);
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED + 17, keys, RTE_DIM(keys), 20, 0);
	t_switch_run(&s, log, &g, 400, &now);
	ck_assert_uint_gt(log->nb_port[dead], 0);

	/*
	 * The link fails with packets queued to it; until the failure is
	 * detected the policy keeps sending there.  All of those are lost as
	 * link_down, none leaves.
	 */
	sw_engine_totals(s.eng, &t0);
	from = log->nb;
	t_gen_burst(s.w, log, &g, now);
	t_gen_burst(s.w, log, &g, now);
	t_fail = now;
	ck_assert_int_eq(sw_engine_set_link(s.eng, dead, SW_LINK_DOWN, 0,
					    t_fail), 0);
	ck_assert_uint_eq(sw_engine_port(s.eng, dead)->link, SW_LINK_DOWN);
	for (i = 0; i < 5; i++) {
		now += T_US;
		t_gen_burst(s.w, log, &g, now);
		t_drain_all(s.w, now, t_log_out, log);
	}
	sw_engine_totals(s.eng, &t);
	lost = t.picks[dead] - t0.picks[dead];
	ck_assert_uint_gt(lost, 0);
	ck_assert_uint_eq(t.drops[OFAN_DROP_LINK_DOWN], lost);
	ck_assert_uint_eq(t.port[dead].egress_drops, lost);
	ck_assert_uint_eq(t.port[dead].tx_pkts, t0.port[dead].tx_pkts);
	ck_assert_uint_eq(t.queue_len[dead], 0);
	for (i = from; i < log->nb; i++)
		nb_unsent += log->out[i] == T_NONE;
	ck_assert_uint_eq(nb_unsent, lost);
	ck_assert_uint_eq(t_drops_sum(&t), lost);

	/* What arrives on the dead link is lost too. */
	t_spec(&sp, dead, T_IP(10, 0, 1, 5), T_HOST_IP(2), 9, 0);
	m = t_pkt(&sp, LB_KIND_DATA);
	sw_worker_input(s.w, dead, &m, 1, now);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_LINK_DOWN], lost + 1);
	ck_assert_uint_eq(t.port[dead].drops, 1);

	/* Withdrawn exactly detect_delay after the failure. */
	sw_engine_control(s.eng, t_fail + detect - 1);
	ck_assert_uint_eq(t_weight(&s, dead), 1);
	ck_assert(!sw_engine_port(s.eng, dead)->removed);
	sw_engine_control(s.eng, t_fail + detect);
	ck_assert_uint_eq(t_weight(&s, dead), 0);
	ck_assert_uint_eq(sw_engine_group(s.eng, T_GROUP_UP)->nb_live, 3);
	ck_assert(sw_engine_port(s.eng, dead)->removed);

	/* From the next burst on it is never picked and nothing is lost. */
	sw_engine_totals(s.eng, &t0);
	now = t_fail + detect;
	from = log->nb;
	t_switch_run(&s, log, &g, from + 1000, &now);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.picks[dead], t0.picks[dead]);
	ck_assert_uint_eq(t_drops_sum(&t), t_drops_sum(&t0));
	t_log_check_delivered(log, from);
	for (p = T_UPLINK0; p < T_NB_PORTS; p++)
		if (p != dead)
			ck_assert_uint_gt(t.port[p].tx_pkts,
					  t0.port[p].tx_pkts);
	if (strcmp(name, "ofan") == 0)
		t_check_rotation(log, from, log->nb, 0xf & ~(1u << 1));

	/* Up again: used only once detect_delay has passed. */
	t_up = now;
	ck_assert_int_eq(sw_engine_set_link(s.eng, dead, SW_LINK_UP, 0, t_up),
			 0);
	sw_engine_control(s.eng, t_up + detect - 1);
	ck_assert_uint_eq(t_weight(&s, dead), 0);
	from = log->nb;
	t_switch_run(&s, log, &g, from + 100, &now);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.picks[dead], t0.picks[dead]);
	sw_engine_control(s.eng, RTE_MAX(now, t_up + detect));
	ck_assert_uint_eq(t_weight(&s, dead), 1);
	ck_assert(!sw_engine_port(s.eng, dead)->removed);
	from = log->nb;
	t_switch_run(&s, log, &g, from + 1000, &now);
	t_log_check_delivered(log, from);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_gt(t.picks[dead], t0.picks[dead]);
	ck_assert_uint_gt(t.port[dead].tx_pkts, t0.port[dead].tx_pkts);
	ck_assert_uint_eq(t_drops_sum(&t), lost + 1);
	if (strcmp(name, "ofan") == 0)
		t_check_rotation(log, from, log->nb, 0xf);
	free(log);
	t_stop(&s);
}
END_TEST

START_TEST(test_fail_blackhole)
{
	static const uint8_t keys[] = { 1, 2, 3 };
	const uint16_t dead = T_UPLINK0 + 2;
	struct sw_totals t0, t;
	struct t_switch s;
	struct t_log *log;
	struct t_gen g;
	uint64_t now = 0, reconverge, t_fail, lost;
	uint32_t from;

	t_start(&s, t_cfg_leaf("ofan"));
	reconverge = sw_engine_config(s.eng)->reconverge_delay_ns;
	ck_assert_uint_eq(reconverge, 100 * T_US);
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED + 23, keys, RTE_DIM(keys), 20, 0);
	t_switch_run(&s, log, &g, 300, &now);
	sw_engine_totals(s.eng, &t0);
	t_fail = now;
	ck_assert_int_eq(sw_engine_set_link(s.eng, dead, SW_LINK_BLACKHOLE, 0,
					    t_fail), 0);
	/*
	 * Silently lost for the whole reconvergence delay, even though
	 * control ticks every microsecond and detect_delay (10 us) passes.
	 */
	while (now < t_fail + reconverge) {
		sw_engine_control(s.eng, now);
		ck_assert_uint_eq(t_weight(&s, dead), 1);
		t_gen_burst(s.w, log, &g, now);
		t_drain_all(s.w, now, t_log_out, log);
		now += T_US;
	}
	sw_engine_totals(s.eng, &t);
	lost = t.picks[dead] - t0.picks[dead];
	ck_assert_uint_gt(lost, 50);
	ck_assert_uint_eq(t.drops[OFAN_DROP_BLACKHOLE], lost);
	ck_assert_uint_eq(t.drops[OFAN_DROP_LINK_DOWN], 0);
	ck_assert_uint_eq(t.port[dead].tx_pkts, t0.port[dead].tx_pkts);
	sw_engine_control(s.eng, t_fail + reconverge);
	ck_assert_uint_eq(t_weight(&s, dead), 0);

	/* Routed around: no more losses. */
	from = log->nb;
	t_switch_run(&s, log, &g, from + 500, &now);
	t_log_check_delivered(log, from);
	t_check_rotation(log, from, log->nb, 0xf & ~(1u << 2));
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_BLACKHOLE], lost);
	ck_assert_uint_eq(t_drops_sum(&t), lost);
	free(log);
	t_stop(&s);
}
END_TEST

START_TEST(test_fail_degraded)
{
	struct sw_config *c = t_cfg_line();
	const uint64_t t1 = OFAN_NS_PER_MS;
	struct t_switch s;

	t_start(&s, c);
	/* Unshaped: everything leaves at once. */
	t_send_many(&s, 20, 0);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, NULL, NULL), 20);

	ck_assert_int_eq(sw_engine_set_link(s.eng, T_LINE_OUT,
					    SW_LINK_DEGRADED, T_SHAPE_RATE,
					    t1), 0);
	ck_assert_uint_eq(sw_engine_port(s.eng, T_LINE_OUT)->rate_bps,
			  T_SHAPE_RATE);
	ck_assert_uint_eq(sw_engine_port(s.eng, T_LINE_OUT)->link,
			  SW_LINK_DEGRADED);
	t_send_many(&s, 20, t1);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, t1, NULL, NULL), 1);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, t1 + 50 * T_US, NULL, NULL),
			  t_starts_by(t1, t1 + 50 * T_US) - 1);
	/* A degraded link stays in its groups. */
	sw_engine_control(s.eng, t1 + OFAN_NS_PER_MS);
	ck_assert(!sw_engine_port(s.eng, T_LINE_OUT)->removed);

	/* Restored: the configured rate (none) is back. */
	ck_assert_int_eq(sw_engine_set_link(s.eng, T_LINE_OUT, SW_LINK_UP, 0,
					    t1 + 50 * T_US), 0);
	ck_assert_uint_eq(sw_engine_port(s.eng, T_LINE_OUT)->rate_bps, 0);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, t1 + 50 * T_US, NULL, NULL),
			  20 - t_starts_by(t1, t1 + 50 * T_US));

	/*
	 * Down, then degraded before the failure was detected: the link
	 * carries traffic again, so the pending withdrawal is cancelled.
	 */
	ck_assert_int_eq(sw_engine_set_link(s.eng, T_LINE_OUT, SW_LINK_DOWN, 0,
					    2 * t1), 0);
	ck_assert_int_eq(sw_engine_set_link(s.eng, T_LINE_OUT,
					    SW_LINK_DEGRADED, T_SHAPE_RATE,
					    2 * t1 + 1), 0);
	sw_engine_control(s.eng, 3 * t1);
	ck_assert(!sw_engine_port(s.eng, T_LINE_OUT)->removed);
	ck_assert_uint_eq(sw_engine_port(s.eng, T_LINE_OUT)->rate_bps,
			  T_SHAPE_RATE);
	t_stop(&s);
}
END_TEST

/* The config's failure schedule fires through sw_engine_control(). */
START_TEST(test_fail_scheduled)
{
	static const uint8_t keys[] = { 1, 2, 3 };
	struct sw_config *c = t_cfg_leaf("ofan");
	const uint16_t down = T_UPLINK0 + 2, slow = T_UPLINK0 + 3;
	uint64_t picks49 = 0, picks59 = 0, picks159 = 0;
	struct sw_totals t;
	struct t_switch s;
	struct t_log *log;
	struct t_gen g;
	uint64_t now;

	c->failures[0].port = down;
	c->failures[0].mode = SW_LINK_DOWN;
	c->failures[0].at_ns = 50 * T_US;
	c->failures[0].duration_ns = 100 * T_US;
	c->failures[1].port = slow;
	c->failures[1].mode = SW_LINK_DEGRADED;
	c->failures[1].at_ns = 20 * T_US;
	c->failures[1].rate_bps = 8 * T_SHAPE_RATE;
	c->nb_failures = 2;
	t_start(&s, c);
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED + 5, keys, RTE_DIM(keys), 20, 0);
	g.max_payload = 64;
	/* The driver's loop: control tick, one burst, drain; every 1 us. */
	for (now = 0; now < 300 * T_US; now += T_US) {
		uint64_t us = now / T_US;

		sw_engine_control(s.eng, now);
		ck_assert_uint_eq(sw_engine_port(s.eng, down)->link,
				  us >= 50 && us < 150 ? SW_LINK_DOWN :
							 SW_LINK_UP);
		ck_assert_uint_eq(t_weight(&s, down),
				  us >= 60 && us < 160 ? 0 : 1);
		ck_assert_uint_eq(sw_engine_port(s.eng, slow)->link,
				  us >= 20 ? SW_LINK_DEGRADED : SW_LINK_UP);
		ck_assert_uint_eq(sw_engine_port(s.eng, slow)->rate_bps,
				  us >= 20 ? 8 * T_SHAPE_RATE : 0);
		ck_assert_uint_eq(t_weight(&s, slow), 1);
		t_gen_burst(s.w, log, &g, now);
		t_drain_all(s.w, now, t_log_out, log);
		sw_engine_totals(s.eng, &t);
		if (us == 49)
			picks49 = t.picks[down];
		if (us == 59)
			picks59 = t.picks[down];
		if (us == 159)
			picks159 = t.picks[down];
	}
	sw_engine_totals(s.eng, &t);
	/* Lost: what was sent to it between 50 and 59 us. */
	ck_assert_uint_gt(picks59, picks49);
	ck_assert_uint_eq(t.drops[OFAN_DROP_LINK_DOWN], picks59 - picks49);
	/* Withdrawn from 60 us to 159 us, used again from 160 us. */
	ck_assert_uint_eq(picks159, picks59);
	ck_assert_uint_gt(t.picks[down], picks159);
	free(log);
	t_stop(&s);
}
END_TEST

/* Requests from another thread, and what set_link refuses. */
START_TEST(test_fail_request)
{
	struct t_switch s;

	t_start(&s, t_cfg_leaf("ofan"));
	ck_assert_int_eq(sw_engine_request(s.eng, 5, SW_LINK_DOWN, 0), 0);
	ck_assert_int_eq(sw_engine_request(s.eng, 6, SW_LINK_DOWN, 0), -EBUSY);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_UP);
	sw_engine_control(s.eng, 1000);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_DOWN);
	ck_assert_uint_eq(sw_engine_port(s.eng, 6)->link, SW_LINK_UP);
	sw_engine_control(s.eng, 1000 + 10 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 0);
	ck_assert_int_eq(sw_engine_request(s.eng, 5, SW_LINK_UP, 0), 0);
	sw_engine_control(s.eng, 2000 + 10 * T_US);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_UP);
	sw_engine_control(s.eng, 2000 + 20 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 1);

	ck_assert_int_eq(sw_engine_request(s.eng, T_NB_PORTS, SW_LINK_DOWN, 0),
			 -EINVAL);
	ck_assert_int_eq(sw_engine_request(s.eng, 5, SW_LINK_DEGRADED, 0),
			 -EINVAL);
	ck_assert_int_eq(sw_engine_set_link(s.eng, T_NB_PORTS, SW_LINK_DOWN, 0,
					    0), -EINVAL);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 5, SW_LINK_DEGRADED, 0, 0),
			 -EINVAL);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 5, SW_LINK_NB_STATES, 0, 0),
			 -EINVAL);
	ck_assert_int_eq(sw_engine_set_weight(s.eng, 99, 5, 1), -EINVAL);
	ck_assert_int_eq(sw_engine_set_weight(s.eng, T_GROUP_UP, 0, 1),
			 -ENOENT);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_UP);
	t_stop(&s);
}
END_TEST

/* ==== 9. a port without a software queue ==== */

START_TEST(test_noqueue_tx_full)
{
	struct sw_config *c = t_cfg_line();
	struct rte_mbuf *pkts[SW_MAX_BURST];
	unsigned int before, i;
	struct sw_totals t;
	struct t_switch s;
	uint16_t n;

	c->ports[T_LINE_OUT].queue.enabled = false;
	c->ports[T_LINE_OUT].queue.rate_bps = T_SHAPE_RATE;	/* ignored */
	t_start(&s, c);
	before = t_pool_used();
	t_send_sized(&s, 10, 1000, 0, 0);
	n = sw_worker_tx_peek(s.w, T_LINE_OUT, 0, pkts, RTE_DIM(pkts));
	ck_assert_uint_eq(n, 10);
	/* The device takes 4: the other 6 are dropped and freed. */
	sw_worker_tx_commit(s.w, T_LINE_OUT, 0, pkts, n, 4);
	ck_assert_uint_eq(t_pool_used(), before + 4);
	for (i = 0; i < 4; i++) {
		struct ofan_pkt_info info;

		t_parse(pkts[i], &info);
		ck_assert_uint_eq(info.psn, i);
		rte_pktmbuf_free(pkts[i]);
	}
	ck_assert_uint_eq(t_pool_used(), before);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_TX_FULL], 6);
	ck_assert_uint_eq(t.port[T_LINE_OUT].egress_drops, 6);
	ck_assert_uint_eq(t.port[T_LINE_OUT].tx_pkts, 4);
	ck_assert_uint_eq(t.port[T_LINE_OUT].tx_bytes, 4000);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 0);
	ck_assert_uint_eq(t_drops_sum(&t), 6);
	/* No ECN either, however full it gets. */
	ck_assert_uint_eq(t.queue[T_LINE_OUT].ecn_marked, 0);
	t_stop(&s);
}
END_TEST

/* With a queue, what the device did not take stays queued, in order. */
START_TEST(test_queue_partial_commit)
{
	struct rte_mbuf *pkts[SW_MAX_BURST];
	struct sw_totals t;
	struct t_switch s;
	uint32_t next = 4;
	uint16_t n, i;

	t_start(&s, t_cfg_line());
	t_send_sized(&s, 10, 1000, 0, 0);
	n = sw_worker_tx_peek(s.w, T_LINE_OUT, 0, pkts, RTE_DIM(pkts));
	ck_assert_uint_eq(n, 10);
	sw_worker_tx_commit(s.w, T_LINE_OUT, 0, pkts, n, 4);
	for (i = 0; i < 4; i++)
		rte_pktmbuf_free(pkts[i]);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t_drops_sum(&t), 0);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 6);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, t_in_order, &next), 6);
	t_stop(&s);
}
END_TEST

/* ==== 10. shutdown and the control plane's snapshots ==== */

START_TEST(test_shutdown_frees)
{
	static const uint8_t keys[] = { 0, 1, 2, 3 };
	struct sw_config *c = t_cfg_leaf("ofan");
	uint64_t queued = 0, freed;
	struct sw_totals t;
	struct t_switch s;
	struct t_log *log;
	struct t_gen g;
	unsigned int i;
	uint16_t p;

	c->ports[T_NB_PORTS - 1].queue.enabled = false;
	t_start(&s, c);
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED + 3, keys, RTE_DIM(keys), 20, 0);
	for (i = 0; i < 20; i++)
		t_gen_burst(s.w, log, &g, i * T_US);
	sw_engine_totals(s.eng, &t);
	for (p = 0; p < T_NB_PORTS; p++)
		queued += t.queue_len[p];
	ck_assert_uint_eq(queued, log->nb);
	ck_assert_uint_gt(t.queue_len[T_NB_PORTS - 1], 0);
	ck_assert_uint_eq(t_pool_used(), s.pool_start + queued);
	ck_assert_uint_eq(sw_engine_free_queues(s.eng), queued);
	ck_assert_uint_eq(t_pool_used(), s.pool_start);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_SHUTDOWN], queued);
	for (p = 0; p < T_NB_PORTS; p++)
		ck_assert_uint_eq(t.queue_len[p], 0);

	/* Still usable; sw_engine_free() frees what is left. */
	for (i = 0; i < 10; i++)
		t_gen_burst(s.w, log, &g, (20 + i) * T_US);
	t_drain(s.w, T_UPLINK0, 30 * T_US, NULL, NULL);
	sw_engine_totals(s.eng, &t);
	queued = 0;
	for (p = 0; p < T_NB_PORTS; p++)
		queued += t.queue_len[p];
	ck_assert_uint_gt(queued, 0);
	ck_assert_uint_eq(t_pool_used(), s.pool_start + queued);
	t_track(&s, false);
	freed = sw_engine_free(s.eng);
	ck_assert_uint_eq(freed, queued);
	ck_assert_uint_eq(t_pool_used(), s.pool_start);
	free(s.cfg);
	free(log);
}
END_TEST

/* 40 ofan packets to leaf 1 through worker w; counts per uplink in cnt. */
static void
t_worker_burst(struct sw_worker *w, uint64_t now, uint32_t *cnt)
{
	struct rte_mbuf *pkts[40];
	struct ofan_pkt_spec sp;
	struct t_seen seen;
	uint16_t i, p;

	for (i = 0; i < RTE_DIM(pkts); i++) {
		t_spec(&sp, 0, T_HOST_IP(0), T_LEAF_NET(1) | (1 + i), i, i);
		pkts[i] = t_pkt(&sp, LB_KIND_DATA);
	}
	sw_worker_input(w, 0, pkts, RTE_DIM(pkts), now);
	for (p = T_UPLINK0; p < T_NB_PORTS; p++) {
		memset(&seen, 0, sizeof(seen));
		cnt[p - T_UPLINK0] = t_drain(w, p, now, t_seen_out, &seen);
	}
}

/*
 * Two workers: a weight change reaches both, but a new snapshot is
 * published only once every worker has adopted the previous one.
 */
START_TEST(test_snapshot_workers)
{
	struct sw_worker *w1;
	struct sw_totals t;
	struct t_switch s;
	uint32_t cnt[T_NB_UPLINKS];
	uint64_t nb_tx = 0;
	uint16_t u;

	t_start_workers(&s, t_cfg_leaf("ofan"), 2);
	w1 = sw_engine_worker(s.eng, 1);
	ck_assert_ptr_nonnull(w1);
	ck_assert_ptr_null(sw_engine_worker(s.eng, 2));
	ck_assert_uint_eq(sw_engine_nb_workers(s.eng), 2);

	ck_assert_int_eq(sw_engine_set_weight(s.eng, T_GROUP_UP, T_UPLINK0, 0),
			 0);
	sw_engine_control(s.eng, T_US);
	ck_assert_uint_eq(t_weight(&s, T_UPLINK0), 0);
	t_worker_burst(s.w, T_US, cnt);
	ck_assert_uint_eq(cnt[0], 0);
	for (u = 1; u < T_NB_UPLINKS; u++)
		ck_assert_uint_ge(cnt[u], 13);

	/* Restored in the master copy, but worker 1 still holds gen 0. */
	ck_assert_int_eq(sw_engine_set_weight(s.eng, T_GROUP_UP, T_UPLINK0, 1),
			 0);
	sw_engine_control(s.eng, 2 * T_US);
	ck_assert_uint_eq(t_weight(&s, T_UPLINK0), 1);
	t_worker_burst(s.w, 2 * T_US, cnt);
	ck_assert_uint_eq(cnt[0], 0);
	t_worker_burst(w1, 2 * T_US, cnt);
	ck_assert_uint_eq(cnt[0], 0);
	/* Both have left gen 0: the next tick publishes. */
	sw_engine_control(s.eng, 3 * T_US);
	t_worker_burst(s.w, 3 * T_US, cnt);
	for (u = 0; u < T_NB_UPLINKS; u++)
		ck_assert_uint_eq(cnt[u], 10);
	t_worker_burst(w1, 3 * T_US, cnt);
	for (u = 0; u < T_NB_UPLINKS; u++)
		ck_assert_uint_eq(cnt[u], 10);

	/* Totals add both workers up. */
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[0].rx_pkts, 5 * 40);
	for (u = 0; u < T_NB_UPLINKS; u++)
		nb_tx += t.port[T_UPLINK0 + u].tx_pkts;
	ck_assert_uint_eq(nb_tx, 5 * 40);
	t_stop(&s);
}
END_TEST

/* ==== 11. the loader, end to end ==== */

static void
t_data_path(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("OFAN_TEST_DATA");

	snprintf(buf, size, "%s/engine/%s", dir != NULL ? dir : "tests/data",
		 name);
}

/* Forward one data packet to dst from port 0; returns the egress port. */
static uint16_t
t_forward_one(struct t_switch *s, uint32_t dst, uint64_t now, uint8_t mac[6])
{
	struct t_seen seen = { .port = T_NONE };
	struct ofan_pkt_spec sp;
	struct rte_mbuf *m;
	uint16_t p;

	t_spec(&sp, 0, T_HOST_IP(0), dst, 321, 0);
	m = t_pkt(&sp, LB_KIND_DATA);
	sw_worker_input(s->w, 0, &m, 1, now);
	for (p = 0; p < s->cfg->nb_ports; p++) {
		struct rte_mbuf *pkts[1];

		if (sw_worker_tx_peek(s->w, p, now, pkts, 1) != 1)
			continue;
		sw_worker_tx_commit(s->w, p, now, pkts, 1, 1);
		t_seen_out(&seen, p, pkts[0]);
		if (mac != NULL)
			memcpy(mac, rte_pktmbuf_mtod(pkts[0], uint8_t *), 6);
		rte_pktmbuf_free(pkts[0]);
	}
	ck_assert_uint_eq(seen.nb, 1);
	return seen.port;
}

/* The engine's control-plane log lines, kept for a test to read. */
struct t_ctl_log {
	uint32_t nb;
	uint64_t at_ns[8];
	char line[8][256];
};

static void
t_ctl_log_line(void *arg, uint64_t now_ns, const char *msg)
{
	struct t_ctl_log *l = arg;

	if (l->nb == RTE_DIM(l->line))
		return;
	l->at_ns[l->nb] = now_ns;
	snprintf(l->line[l->nb++], sizeof(l->line[0]), "%s", msg);
}

/*
 * [reroute.NAME] sets a whole group's weights at its time, counted from
 * the schedule's start (ofan-switch --start-at), and says so in the log.
 */
START_TEST(test_reroute_scheduled)
{
	static const uint16_t w[T_NB_UPLINKS] = { 1, 0, 2, 1 };
	struct sw_config *c = t_cfg_leaf("ofan");
	struct sw_reroute_config *r = &c->reroutes[0], saved;
	uint32_t cnt[T_NB_PORTS] = { 0 };
	struct t_ctl_log log = { 0 };
	const struct lb_group *grp;
	struct t_switch s;
	uint32_t i;
	uint16_t m;

	snprintf(r->name, sizeof(r->name), "reroute.hole-0");
	r->group = T_GROUP_UP;
	r->at_ns = 30 * T_US;
	memcpy(r->weight, w, sizeof(w));
	c->nb_reroutes = 1;
	saved = *r;
	t_start(&s, c);
	sw_engine_set_log(s.eng, t_ctl_log_line, &log);
	sw_engine_set_schedule_start(s.eng, 100 * T_US);
	/* Not at 30 us of the switch's own time, nor at 129 us. */
	sw_engine_control(s.eng, 30 * T_US);
	sw_engine_control(s.eng, 129 * T_US);
	grp = sw_engine_group(s.eng, T_GROUP_UP);
	for (m = 0; m < T_NB_UPLINKS; m++)
		ck_assert_uint_eq(grp->weight[m], 1);
	ck_assert_uint_eq(log.nb, 0);
	sw_engine_control(s.eng, 130 * T_US);
	for (m = 0; m < T_NB_UPLINKS; m++)
		ck_assert_uint_eq(grp->weight[m], w[m]);
	ck_assert_uint_eq(log.nb, 1);
	ck_assert_uint_eq(log.at_ns[0], 130 * T_US);
	ck_assert_str_eq(log.line[0], "group up: weights 1, 0, 2, 1 (scheduled, [reroute.hole-0])");
	/* Once only. */
	sw_engine_control(s.eng, 200 * T_US);
	ck_assert_uint_eq(log.nb, 1);
	t_stop(&s);

	/*
	 * Held (the moment not known yet): nothing, however late; a start
	 * 20 us before the engine's: due at 10 us of the engine's time.
	 */
	c = t_cfg_leaf("ofan");
	c->reroutes[0] = saved;
	c->nb_reroutes = 1;
	t_start(&s, c);
	log.nb = 0;
	sw_engine_set_log(s.eng, t_ctl_log_line, &log);
	sw_engine_set_schedule_start(s.eng, SW_SCHEDULE_HELD);
	sw_engine_control(s.eng, 3600 * T_MS * 1000);
	ck_assert_uint_eq(log.nb, 0);
	sw_engine_set_schedule_start(s.eng, -(int64_t)(20 * T_US));
	sw_engine_control(s.eng, 9 * T_US);
	ck_assert_uint_eq(log.nb, 0);
	sw_engine_control(s.eng, 10 * T_US);
	ck_assert_uint_eq(log.nb, 1);
	grp = sw_engine_group(s.eng, T_GROUP_UP);
	/* Ofan's cycle follows the weights: 40 packets give 10, 0, 20, 10. */
	for (i = 0; i < 40; i++)
		cnt[t_forward_one(&s, T_LEAF_NET(1) | (1 + i),
				  (200 + i) * T_US, NULL)]++;
	for (m = 0; m < T_NB_UPLINKS; m++)
		ck_assert_uint_eq(cnt[grp->port[m]], 10 * w[m]);
	t_stop(&s);
}
END_TEST

/*
 * sw_config_copy() into zeroed memory gives the loaded configuration
 * byte for byte (its tables' unused entries are zero), without writing
 * those unused entries: a canary there survives the copy.
 */
START_TEST(test_config_copy)
{
	struct sw_config *c = calloc(1, sizeof(*c));
	struct sw_config *d = calloc(1, sizeof(*d));
	char path[512], err[512] = "";

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(d);
	t_data_path(path, sizeof(path), "leaf.ini");
	ck_assert_msg(sw_config_load(path, c, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_uint_gt(c->nb_groups, 0);
	ck_assert_uint_gt(c->nb_routes, 0);
	sw_config_copy(d, c);
	ck_assert_int_eq(memcmp(c, d, sizeof(*c)), 0);
	memset(d, 0, sizeof(*d));
	d->routes[SW_MAX_ROUTES - 1].depth = 17;
	d->groups[SW_MAX_GROUPS - 1].nb_members = 3;
	sw_config_copy(d, c);
	ck_assert_uint_eq(d->routes[SW_MAX_ROUTES - 1].depth, 17);
	ck_assert_uint_eq(d->groups[SW_MAX_GROUPS - 1].nb_members, 3);
	ck_assert_uint_eq(d->nb_reroutes, c->nb_reroutes);
	ck_assert_uint_eq(d->nb_dst_keys, c->nb_dst_keys);
	free(c);
	free(d);
}
END_TEST

START_TEST(test_loader_leaf)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct sw_config *c = calloc(1, sizeof(*c));
	char path[512], err[512] = "";
	uint32_t cnt[T_NB_PORTS] = { 0 };
	const struct sw_route_config *def = NULL;
	struct sw_totals t;
	struct t_switch s;
	uint8_t mac[6];
	uint32_t i;
	int up;

	ck_assert_ptr_nonnull(c);
	t_data_path(path, sizeof(path), "leaf.ini");
	ck_assert_msg(sw_config_load(path, c, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_str_eq(c->name, "leaf-test");
	ck_assert_ptr_eq(c->policy, lb_find("ofan"));
	ck_assert_uint_eq(c->seed, 7);
	ck_assert(c->verify_checksum);
	ck_assert_uint_eq(c->detect_delay_ns, 5 * T_US);
	ck_assert_uint_eq(c->reconverge_delay_ns, 50 * T_US);
	ck_assert_uint_eq(c->nb_ports, T_NB_PORTS);
	ck_assert_uint_eq(c->ports[0].ip, T_SWITCH_IP(0));
	ck_assert(c->ports[0].mac_set);
	ck_assert(!c->ports[1].peer_mac_set);
	ck_assert(c->ports[4].peer_mac_set);
	ck_assert_uint_eq(c->ports[0].queue.capacity_pkts, 256);
	ck_assert_uint_eq(c->ports[0].queue.ecn_kmin_bytes, 16 << 10);
	ck_assert_uint_eq(c->ports[7].queue.capacity_pkts, 64);
	ck_assert_uint_eq(c->ports[4].queue.rate_bps, 0);
	ck_assert_uint_eq(c->ports[7].queue.rate_bps, 10 * T_SHAPE_RATE);
	up = sw_config_find_group(c, "up");
	ck_assert_int_ge(up, 0);
	ck_assert_uint_eq(c->groups[up].nb_members, 4);
	ck_assert_uint_eq(c->groups[up].weight[2], 2);
	ck_assert_uint_eq(c->nb_routes, 7);
	for (i = 0; i < c->nb_routes; i++)
		if (c->routes[i].depth == 0)
			def = &c->routes[i];
	ck_assert_ptr_nonnull(def);
	ck_assert_uint_eq(def->dst_key, 9);
	/* Routes without dst_key get keys of their own above the explicit. */
	ck_assert_uint_eq(c->routes[0].dst_key, 0);
	ck_assert_uint_eq(c->routes[1].dst_key, 10);
	ck_assert_uint_eq(c->routes[2].dst_key, 11);
	ck_assert_uint_eq(c->routes[3].dst_key, 12);
	ck_assert_uint_eq(c->nb_dst_keys, 13);
	ck_assert_uint_eq(c->nb_failures, 1);
	ck_assert_uint_eq(c->failures[0].mode, SW_LINK_BLACKHOLE);
	ck_assert_uint_eq(c->failures[0].at_ns, 100 * T_US);

	t_start(&s, c);
	/* A local host whose MAC is not known yet: broadcast. */
	ck_assert_uint_eq(t_forward_one(&s, T_HOST_IP(1), 0, mac), 1);
	ck_assert(memcmp(mac, bcast, 6) == 0);
	/* The default route 0.0.0.0/0 leads to the uplinks. */
	ck_assert_uint_ge(t_forward_one(&s, T_IP(8, 8, 8, 8), 0, NULL),
			  T_UPLINK0);

	/*
	 * Weights 1, 1, 2, 1: ofan's cycle has five slots, two for port 6,
	 * so 50 packets to one leaf give exactly 10, 10, 20, 10.
	 */
	for (i = 0; i < 50; i++)
		cnt[t_forward_one(&s, T_LEAF_NET(1) | (1 + i), i * T_US,
				  NULL)]++;
	ck_assert_uint_eq(cnt[4], 10);
	ck_assert_uint_eq(cnt[5], 10);
	ck_assert_uint_eq(cnt[6], 20);
	ck_assert_uint_eq(cnt[7], 10);

	/* verify_checksum = yes. */
	{
		uint8_t frame[256];
		uint32_t len = t_base_frame(frame, sizeof(frame),
					    T_LEAF_NET(1) | 1, LB_KIND_DATA, 8);
		struct rte_mbuf *m;

		frame[OFAN_ETH_HDR_SIZE + 11] ^= 1;
		m = t_mbuf(frame, len);
		sw_worker_input(s.w, 0, &m, 1, 0);
		sw_engine_totals(s.eng, &t);
		ck_assert_uint_eq(t.drops[OFAN_DROP_BAD_CHECKSUM], 1);
	}

	/* [failure.up5]: port 5 black-holed from 100 us for 100 us. */
	sw_engine_control(s.eng, 99 * T_US);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_UP);
	sw_engine_control(s.eng, 100 * T_US);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_BLACKHOLE);
	sw_engine_control(s.eng, 149 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 1);
	sw_engine_control(s.eng, 150 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 0);
	sw_engine_control(s.eng, 200 * T_US);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_UP);
	sw_engine_control(s.eng, 204 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 0);
	sw_engine_control(s.eng, 205 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 1);
	t_stop(&s);
}
END_TEST

/*
 * Load the config text into c through a temporary file, as ofan-switch
 * loads its file; path gets the file's name (gone again by the return).
 */
static int
t_load_text(struct sw_config *c, char path[32], char *err, size_t err_size,
	    const char *text)
{
	int rc;

	t_write_temp(path, 32, "ofan_test_engine", "", text);
	rc = sw_config_load(path, c, err, (unsigned int)err_size);
	unlink(path);
	return rc;
}

/* Every policy name loads through the INI loader; mistakes are named. */
START_TEST(test_loader_tmp)
{
	struct sw_config *c = calloc(1, sizeof(*c));
	char path[32], text[512], err[512] = "";
	int rc;

	ck_assert_ptr_nonnull(c);
	snprintf(text, sizeof(text), "[switch]\npolicy = %s\n"
		 "[port.0]\ndev = net_null0\n"
		 "[port.1]\ndev = net_null1\n%s"
		 "[route.r]\nprefix = 10.0.1.0/24\nport = 1\ndst_key = 3\n",
		 t_policies[_i], _i == 0 ? "colour = blue\n" : "");
	rc = t_load_text(c, path, err, sizeof(err), text);
	if (_i == 0) {
		/* An unknown key is named with file, section and key. */
		ck_assert_int_eq(rc, -EINVAL);
		ck_assert_msg(strstr(err, path) != NULL &&
			      strstr(err, "port.1") != NULL &&
			      strstr(err, "colour") != NULL, "message: %s",
			      err);
	} else {
		struct t_switch s;

		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_ptr_eq(c->policy, lb_find(t_policies[_i]));
		ck_assert_uint_eq(c->nb_dst_keys, 4);
		c->path = NULL;
		t_start(&s, c);
		ck_assert_uint_eq(t_forward_one(&s, T_LEAF_NET(1) | 1, 0, NULL),
				  1);
		t_stop(&s);
		return;
	}
	free(c);
}
END_TEST

/* [reroute.NAME] as written, and its mistakes named. */
/*
 * A three-port switch (group up = ports 1, 2; 10.0.1.0/24 through it)
 * with tail added, loaded as ofan-switch loads its file: it loads and
 * ok() checks it, or the message names the file and has want.
 */
static void
t_loader_case(const char *tail, const char *want,
	      void (*ok)(const struct sw_config *c))
{
	struct sw_config *c = calloc(1, sizeof(*c));
	char path[32], text[1024], err[512] = "";
	int rc;

	ck_assert_ptr_nonnull(c);
	snprintf(text, sizeof(text), "[switch]\npolicy = ofan\n"
		 "[port.0]\ndev = net_null0\n[port.1]\ndev = net_null1\n"
		 "[port.2]\ndev = net_null2\n"
		 "[group.up]\nmembers = 1, 2\n"
		 "[route.r]\nprefix = 10.0.1.0/24\ngroup = up\n%s", tail);
	rc = t_load_text(c, path, err, sizeof(err), text);
	if (want == NULL) {
		ck_assert_msg(rc == 0, "%s", err);
		ok(c);
	} else {
		ck_assert_int_eq(rc, -EINVAL);
		ck_assert_msg(strstr(err, path) != NULL &&
			      strstr(err, want) != NULL, "message: %s", err);
	}
	free(c);
}

static void
t_reroute_ok(const struct sw_config *c)
{
	ck_assert_uint_eq(c->nb_reroutes, 1);
	ck_assert_str_eq(c->reroutes[0].name, "reroute.r");
	ck_assert_uint_eq(c->reroutes[0].at_ns, 2 * T_MS);
	ck_assert_uint_eq(c->reroutes[0].group, sw_config_find_group(c, "up"));
	ck_assert_uint_eq(c->reroutes[0].weight[0], 0);
	ck_assert_uint_eq(c->reroutes[0].weight[1], 3);
}

START_TEST(test_loader_reroute)
{
	static const char *const cases[] = {
		"group = up\nweights = 0, 3\n",
		"group = down\nweights = 0, 3\n",
		"group = up\nweights = 1\n",
		"group = up\nweights = 1, 1001\n",
	};
	static const char *const want[] = {
		NULL,
		"reroute.r:group: 'down' is not a group",
		"reroute.r:weights: has 1 values for the 2 members of [group.up]",
		"reroute.r:weights",
	};
	char tail[256];

	snprintf(tail, sizeof(tail), "[reroute.r]\nat = 2ms\n%s", cases[_i]);
	t_loader_case(tail, want[_i], t_reroute_ok);
}
END_TEST

static void
t_drop_ok(const struct sw_config *c)
{
	ck_assert_uint_eq(c->nb_drops, 1);
	ck_assert_uint_eq(c->drops[0].port, 1);
	ck_assert_uint_eq(c->drops[0].loss.mode, OFAN_LOSS_BURSTS);
	ck_assert_uint_eq(c->drops[0].loss.every_ns, 50 * T_US);
	ck_assert_uint_eq(c->drops[0].loss.first_ns, 50 * T_US);
	ck_assert_uint_eq(c->drops[0].loss.length_ns, 5 * T_US);
	ck_assert(c->drops[0].loss.length_fixed);
	ck_assert_uint_eq(c->failures[0].mode, SW_LINK_STALL);
}

/*
 * [drop.NAME] (a lossy egress port) and mode = stall load as written, and
 * their mistakes are named.
 */
START_TEST(test_loader_drop)
{
	static const char *const cases[] = {
		"[drop.d]\nport = 1\nmode = bursts\nevery = 50us\nlength = 5us\nlength_fixed = yes\n[failure.s]\nport = 2\nmode = stall\nat = 1ms\n",
		"[drop.d]\nport = 1\nmode = random\n",
		"[drop.d]\nport = 1\nmode = random\nrate = 0\n",
		"[drop.d]\nport = 1\nmode = frames\n",
		"[drop.d]\nport = 3\nmode = random\nrate = 0.1\n",
		"[drop.d]\nport = 1\nmode = random\nrate = 0.1\n[drop.e]\nport = 1\nmode = bursts\n",
	};
	static const char *const want[] = {
		NULL,
		"drop.d:rate",
		"drop.d:rate: '0' loses nothing",
		"drop.d:mode: 'frames'",
		"drop.d:port: '3'",
		"drop.e:port: '1' is lossy in another [drop.*] section",
	};

	t_loader_case(cases[_i], want[_i], t_drop_ok);
}
END_TEST

void
t_engine_control_tests(struct t_engine_tcases *t)
{
	tcase_add_test(t->queue, test_queue_partial_commit);
	tcase_add_test(t->queue, test_noqueue_tx_full);
	tcase_add_loop_test(t->failures, test_fail_down, 0,
			    RTE_DIM(t_failover_policies));
	tcase_add_test(t->failures, test_fail_blackhole);
	tcase_add_test(t->failures, test_reroute_scheduled);
	tcase_add_test(t->failures, test_fail_degraded);
	tcase_add_test(t->failures, test_fail_scheduled);
	tcase_add_test(t->failures, test_fail_request);
	tcase_add_test(t->lifecycle, test_shutdown_frees);
	tcase_add_test(t->lifecycle, test_snapshot_workers);
	tcase_add_test(t->loader, test_config_copy);
	tcase_add_test(t->loader, test_loader_leaf);
	tcase_add_loop_test(t->loader, test_loader_tmp, 0, RTE_DIM(t_policies));
	tcase_add_loop_test(t->loader, test_loader_reroute, 0, 4);
	tcase_add_loop_test(t->loader, test_loader_drop, 0, 6);
}
