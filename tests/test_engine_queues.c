/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine: egress queues (limits, ECN, statistics, trimming victims,
 * the frame model), shaping, PFC and stalled or lossy ports.
 * (fixtures and helpers: engine_t.h, test_engine.c).
 */
#include "engine_t.h"
#include "sw_rx_rr.h"

/* ==== 6. egress queue: limits, ECN, statistics ==== */

/* Input n data frames of size bytes to leaf 1 on port 0 at now. */
void
t_send_sized(struct t_switch *s, unsigned int n, uint32_t size,
	     uint32_t first_psn, uint64_t now)
{
	struct rte_mbuf *pkts[SW_MAX_BURST];
	unsigned int i;

	ck_assert_uint_le(n, SW_MAX_BURST);
	for (i = 0; i < n; i++)
		pkts[i] = t_sized(T_LEAF_NET(1) | 1, first_psn + i,
				  OFAN_ECN_NOT_ECT, size);
	sw_worker_input(s->w, 0, pkts, (uint16_t)n, now);
}

/* Visitor: the PSNs leave in order, starting at *arg. */
void
t_in_order(void *arg, uint16_t port, struct rte_mbuf *m)
{
	uint32_t *next = arg;
	struct ofan_pkt_info info;

	t_parse(m, &info);
	ck_assert_uint_eq(info.psn, *next);
	(*next)++;
}

START_TEST(test_queue_packets)
{
	struct sw_config *c = t_cfg_line();
	struct sw_totals t;
	struct t_switch s;
	uint32_t next = 0;
	unsigned int before;

	c->ports[T_LINE_OUT].queue.capacity_pkts = 8;
	t_start(&s, c);
	before = t_pool_used();
	t_send_sized(&s, 20, 200, 0, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 8);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 12);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_pkts, 12);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_bytes, 12 * 200);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].enq_pkts, 8);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_pkts, 8);
	ck_assert_uint_eq(t.port[T_LINE_OUT].egress_drops, 12);
	/* Counted once, at the full queue's port; the input only learns. */
	ck_assert_uint_eq(t.port[0].drops, 0);
	ck_assert_uint_eq(t.port[0].rx_dropped_at_egress, 12);
	ck_assert_uint_eq(t_pool_used(), before + 8);
	/* Tail drop: the first eight stay, in order. */
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, t_in_order, &next), 8);
	ck_assert_uint_eq(t_pool_used(), before);
	/* Drained, it takes eight again. */
	t_send_sized(&s, 9, 200, 100, T_US);
	next = 100;
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, T_US, t_in_order, &next), 8);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 13);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].deq_pkts, 16);
	ck_assert_uint_eq(t.port[T_LINE_OUT].tx_pkts, 16);
	t_stop(&s);
}
END_TEST

START_TEST(test_queue_bytes)
{
	struct sw_config *c = t_cfg_line();
	struct rte_mbuf *pkts[1];
	struct sw_totals t;
	struct t_switch s;

	c->ports[T_LINE_OUT].queue.capacity_bytes = 5000;
	t_start(&s, c);
	/* 5 x 1000 bytes fill it exactly; the sixth does not fit. */
	t_send_sized(&s, 8, 1000, 0, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 5);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_bytes, 5000);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_pkts, 3);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_bytes, 3000);
	/* Not even 100 bytes more. */
	t_send_sized(&s, 1, 100, 8, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 4);
	/* One leaves: 1000 bytes fit again, 1001 would not. */
	ck_assert_uint_eq(sw_worker_tx_peek(s.w, T_LINE_OUT, 0, pkts, 1), 1);
	sw_worker_tx_commit(s.w, T_LINE_OUT, 0, pkts, 1, 1);
	rte_pktmbuf_free(pkts[0]);
	t_send_sized(&s, 1, 1001, 9, 0);
	t_send_sized(&s, 1, 1000, 10, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 5);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 5);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_bytes, 5000);
	t_stop(&s);
}
END_TEST

/*
 * A degraded link's queue (sw_engine_set_queue_scale): from the port's
 * next transmission on, its byte capacity and ECN thresholds are the
 * fraction asked of their configuration; 1000 per mille restores them.
 */
START_TEST(test_queue_scale)
{
	struct sw_config *c = t_cfg_line();
	struct rte_mbuf *pkts[1];
	struct sw_totals t;
	struct t_switch s;

	c->ports[T_LINE_OUT].queue.capacity_bytes = 8000;
	c->ports[T_LINE_OUT].queue.ecn_kmin_bytes = 4000;
	c->ports[T_LINE_OUT].queue.ecn_kmax_bytes = 6000;
	t_start(&s, c);
	ck_assert_int_eq(sw_engine_set_queue_scale(s.eng, T_LINE_OUT, 0),
			 -EINVAL);
	ck_assert_int_eq(sw_engine_set_queue_scale(s.eng, T_LINE_OUT, 1001),
			 -EINVAL);
	ck_assert_int_eq(sw_engine_set_queue_scale(s.eng, T_LINE_OUT, 250), 0);
	/* Applied at the next transmission: one frame in, one out. */
	t_send_sized(&s, 1, 1000, 0, 0);
	ck_assert_uint_eq(sw_worker_tx_peek(s.w, T_LINE_OUT, 0, pkts, 1), 1);
	sw_worker_tx_commit(s.w, T_LINE_OUT, 0, pkts, 1, 1);
	rte_pktmbuf_free(pkts[0]);
	ck_assert_uint_eq(s.w->queue[T_LINE_OUT].cap_bytes, 2000);
	ck_assert_uint_eq(s.w->queue[T_LINE_OUT].kmin, 1000);
	ck_assert_uint_eq(s.w->queue[T_LINE_OUT].kmax, 1500);
	/* 2 x 1000 bytes fit a quarter of 8000; the third does not. */
	t_send_sized(&s, 3, 1000, 1, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 2);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_pkts, 1);
	/* Restored: what is queued stays, the whole capacity again. */
	ck_assert_int_eq(sw_engine_set_queue_scale(s.eng, T_LINE_OUT, 1000), 0);
	ck_assert_uint_eq(sw_worker_tx_peek(s.w, T_LINE_OUT, 0, pkts, 1), 1);
	sw_worker_tx_commit(s.w, T_LINE_OUT, 0, pkts, 1, 1);
	rte_pktmbuf_free(pkts[0]);
	ck_assert_uint_eq(s.w->queue[T_LINE_OUT].cap_bytes, 8000);
	ck_assert_uint_eq(s.w->queue[T_LINE_OUT].kmax, 6000);
	t_send_sized(&s, 7, 1000, 4, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 8);
	t_stop(&s);
}
END_TEST

/* A round of t_fair_rounds(): the engine and the next PSN. */
struct t_fair {
	struct t_switch *s;
	uint32_t psn;
	uint64_t now;
};

/*
 * Input i of t_fair_rounds() (sw_rx_poll_fn): a host's port brings a
 * burst of 32 frames to leaf 1, an uplink nothing.
 */
static uint16_t
t_fair_poll(void *arg, uint16_t i)
{
	struct t_fair *f = arg;
	struct rte_mbuf *pkts[T_BURST_MAX];
	struct ofan_pkt_spec sp;
	uint16_t k;

	if (i >= T_NB_HOSTS)
		return 0;
	for (k = 0; k < T_BURST_MAX; k++) {
		t_spec(&sp, i, T_HOST_IP(i), T_LEAF_NET(1) | 1,
		       (uint16_t)(1000 + k), f->psn++);
		pkts[k] = t_pkt(&sp, LB_KIND_DATA);
	}
	sw_worker_input(f->s->w, i, pkts, T_BURST_MAX, f->now);
	return T_BURST_MAX;
}

/*
 * Inputs served in rounds, as ofan-switch's lcores poll them: every port
 * once (t_fair_poll(): the hosts' each bring a burst, which rr spreads 8
 * per uplink), then each uplink (a queue of 64) sends 24: three bursts'
 * worth in all.  From the sixth round on, the queues are full but for
 * what the last round sent, so each round the last host's burst finds no
 * room.  Polled always from port 0 (rr false), that is port 3.  Served
 * round robin (sw_rx_rr_round()), each host is last in one round of four,
 * though the idle uplinks come between port 3 and port 0.  Returns each
 * host's drops (rx_dropped_at_egress) in dropped[], the totals in *t.
 */
#define T_FAIR_ROUNDS 405	/* five to fill the queues, then 400 */

static void
t_fair_rounds(bool rr, uint64_t dropped[T_NB_HOSTS], struct sw_totals *t)
{
	struct sw_config *c = t_cfg_leaf("rr");
	struct t_switch s;
	struct t_fair f = { .s = &s };
	uint16_t next = 0, h, p;
	uint32_t r;

	for (p = T_UPLINK0; p < T_NB_PORTS; p++)
		c->ports[p].queue.capacity_pkts = 64;
	t_start(&s, c);
	for (r = 0; r < T_FAIR_ROUNDS; r++, f.now += T_US) {
		if (!rr)
			next = 0;
		ck_assert_uint_eq(sw_rx_rr_round(&next, T_NB_PORTS,
						 t_fair_poll, &f),
				  T_NB_HOSTS * T_BURST_MAX);
		for (p = T_UPLINK0; p < T_NB_PORTS; p++)
			ck_assert_uint_eq(t_drain_max(s.w, p, f.now, 24, NULL,
						      NULL), 24);
	}
	sw_engine_totals(s.eng, t);
	for (h = 0; h < T_NB_HOSTS; h++)
		dropped[h] = t->port[h].rx_dropped_at_egress;
	t_stop(&s);
}

/*
 * Each drop of t_fair_rounds() counted once: at its uplink, none at the
 * hosts' ports; split by input, the same drops.
 */
static void
t_fair_counted_once(const struct sw_totals *t, uint64_t want)
{
	uint64_t at_ports = 0, by_input = 0;
	uint16_t p;

	ck_assert_uint_eq(t->drops[OFAN_DROP_QUEUE_FULL], want);
	ck_assert_uint_eq(t_drops_sum(t), want);
	for (p = 0; p < T_NB_PORTS; p++) {
		at_ports += t->port[p].drops + t->port[p].egress_drops;
		by_input += t->port[p].rx_dropped_at_egress;
		if (p < T_UPLINK0) {
			ck_assert_uint_eq(t->port[p].drops, 0);
			ck_assert_uint_eq(t->port[p].egress_drops, 0);
		} else {
			ck_assert_uint_eq(t->port[p].egress_drops,
					  want / T_NB_UPLINKS);
			ck_assert_uint_eq(t->queue[p].drop_pkts,
					  want / T_NB_UPLINKS);
		}
	}
	ck_assert_uint_eq(at_ports, want);
	ck_assert_uint_eq(by_input, want);
}

START_TEST(test_queue_fair_inputs)
{
	const uint64_t want = (T_FAIR_ROUNDS - 5) * T_BURST_MAX;
	uint64_t dropped[T_NB_HOSTS];
	struct sw_totals t;
	uint16_t h;

	/* One fixed order: the last host takes every drop. */
	t_fair_rounds(false, dropped, &t);
	t_fair_counted_once(&t, want);
	for (h = 0; h < T_NB_HOSTS; h++)
		ck_assert_uint_eq(dropped[h], h == T_NB_HOSTS - 1 ? want : 0);
	/* Round robin: a quarter each, exactly. */
	t_fair_rounds(true, dropped, &t);
	t_fair_counted_once(&t, want);
	for (h = 0; h < T_NB_HOSTS; h++)
		ck_assert_uint_eq(dropped[h], want / T_NB_HOSTS);
}
END_TEST

/* Input i of test_rx_rr (sw_rx_poll_fn): polled in *arg's log. */
struct t_rr_log {
	const bool *busy;
	uint16_t nb;
	uint16_t order[64];
};

static uint16_t
t_rr_poll(void *arg, uint16_t i)
{
	struct t_rr_log *l = arg;

	ck_assert_uint_lt(l->nb, RTE_DIM(l->order));
	l->order[l->nb++] = i;
	return l->busy[i] ? 3 : 0;
}

/*
 * sw_rx_rr_round() polls every input once a round; the busy ones, 1 and 4
 * of 6, take turns at being first; a round with nothing leaves the start;
 * after the last input the next round starts at 0.
 */
START_TEST(test_rx_rr)
{
	static const bool busy[6] = { false, true, false, false, true, false };
	static const bool idle[6] = { false };
	static const bool last[6] = { false, false, false, false, false, true };
	static const uint16_t want[] = {
		0, 1, 2, 3, 4, 5,	/* from 0: 1 first, then from 2 */
		2, 3, 4, 5, 0, 1,	/* 4 first, then from 5 */
		5, 0, 1, 2, 3, 4,	/* 1 first, then from 2 */
		2, 3, 4, 5, 0, 1,	/* idle: still from 2 */
		2, 3, 4, 5, 0, 1,
	};
	struct t_rr_log l = { .busy = busy };
	uint16_t next = 0, r, i;

	for (r = 0; r < 3; r++)
		ck_assert_uint_eq(sw_rx_rr_round(&next, 6, t_rr_poll, &l), 6);
	l.busy = idle;
	ck_assert_uint_eq(sw_rx_rr_round(&next, 6, t_rr_poll, &l), 0);
	l.busy = busy;
	ck_assert_uint_eq(sw_rx_rr_round(&next, 6, t_rr_poll, &l), 6);
	ck_assert_uint_eq(l.nb, RTE_DIM(want));
	for (i = 0; i < l.nb; i++)
		ck_assert_msg(l.order[i] == want[i], "poll %u: input %u, expected %u",
			      i, l.order[i], want[i]);
	ck_assert_uint_eq(next, 5);
	/* Only the last input busy: the next round starts at nb, from 0. */
	l.busy = last;
	l.nb = 0;
	ck_assert_uint_eq(sw_rx_rr_round(&next, 6, t_rr_poll, &l), 3);
	ck_assert_uint_eq(next, 6);
	ck_assert_uint_eq(sw_rx_rr_round(&next, 6, t_rr_poll, &l), 3);
	ck_assert_uint_eq(next, 6);
	for (i = 0; i < l.nb; i++)
		ck_assert_uint_eq(l.order[i], i < 6 ? (i + 5) % 6 : i - 6);
}
END_TEST

struct t_ecn_check {
	uint32_t nb;
	uint32_t nb_ce;
};

/*
 * Visitor of test_queue_ecn: packet i arrived to i * 1000 queued bytes.
 * kmin = 4000, kmax = 8000: no mark at or below 4000 bytes (i <= 4), a
 * certain mark above 8000 (i >= 9), Not-ECT (odd i) never.
 */
static void
t_ecn_out(void *arg, uint16_t port, struct rte_mbuf *m)
{
	struct t_ecn_check *chk = arg;
	struct ofan_pkt_info info;
	uint8_t ecn, dscp;

	t_parse(m, &info);	/* the checksum must still verify */
	ecn = info.tos & OFAN_ECN_MASK;
	dscp = info.tos >> 2;
	ck_assert_uint_eq(dscp, 10);
	if (info.psn % 2 == 1)
		ck_assert_msg(ecn == OFAN_ECN_NOT_ECT,
			      "Not-ECT packet %u was marked", info.psn);
	else if (info.psn <= 4)
		ck_assert_msg(ecn == OFAN_ECN_ECT0,
			      "packet %u marked at or below kmin", info.psn);
	else if (info.psn >= 9)
		ck_assert_msg(ecn == OFAN_ECN_CE,
			      "packet %u not marked above kmax", info.psn);
	chk->nb++;
	chk->nb_ce += ecn == OFAN_ECN_CE;
}

/* The division-free histogram bin is exactly len * bins / capacity. */
START_TEST(test_queue_hist_bin)
{
	static const uint32_t caps[] = { 1, 3, 40, 1000, 65535, 1u << 20 };
	struct sw_queue_config qc;
	struct sw_queue q;
	unsigned int i;
	uint32_t len;

	sw_queue_config_defaults(&qc);
	for (i = 0; i < RTE_DIM(caps); i++) {
		qc.capacity_pkts = caps[i];
		ck_assert_int_eq(sw_queue_init(&q, &qc, 32, SOCKET_ID_ANY), 0);
		for (len = 0; len < caps[i]; len++)
			ck_assert_uint_eq(sw_queue_hist_bin(&q, len),
				(uint64_t)len * SW_QUEUE_HIST_BINS / caps[i]);
		ck_assert_uint_eq(sw_queue_fini(&q), 0);
	}
}
END_TEST

/*
 * htsim's CompositeQueue rule with ACKs in the data queue (trim_either,
 * ctrl_acks = no): on overflow a coin picks the arriving frame or the
 * newest queued one.  A data frame arriving at 3 data frames and an ACK
 * (the newest): either it is trimmed (the control queue holds it), or
 * the ACK is dropped -- an ACK cannot be trimmed -- and the data frame
 * takes its place past the byte bound.  An ACK arriving at a full queue:
 * dropped, or the newest data frame is trimmed and the ACK queued.
 * Every seed gives one of exactly these outcomes, and both appear.
 */
START_TEST(test_trim_victim_ack)
{
	const uint32_t full = 1514;
	struct rte_mbuf *ret, *m;
	struct sw_queue_config qc;
	struct ofan_pkt_spec sp;
	unsigned int seen = 0, seed, i, want;
	uint64_t hist;
	struct sw_queue q;
	struct ofan_rng rng;
	enum sw_enq_result r;

	sw_queue_config_defaults(&qc);
	qc.enabled = true;
	qc.ecn = false;
	qc.trim = SW_TRIM_FULL;
	qc.trim_either = true;
	qc.ctrl_acks = false;
	qc.capacity_pkts = 100;
	t_spec(&sp, 0, T_HOST_IP(0), T_LEAF_NET(1) | 1, 4000, 1);
	for (seed = 1; seed <= 64; seed++) {
		bool ack_arrives = seed % 2 == 0;

		/* 3 data + an ACK fit; 4 data do not; with the ACK
		 * arriving, 4 data fit and the ACK does not. */
		qc.capacity_bytes = ack_arrives ? 4 * full + 40 :
			3 * full + OFAN_ACK_FRAME_SIZE + 100;
		ck_assert_int_eq(sw_queue_init(&q, &qc, 32, SOCKET_ID_ANY), 0);
		ofan_rng_seed(&rng, seed, 0);
		for (i = 0; i < (ack_arrives ? 4u : 3u); i++)
			ck_assert_int_eq(sw_queue_enqueue_ctl(&q,
				t_sized(T_LEAF_NET(1) | 1, i, 0, full),
				OFAN_KIND_DATA, OFAN_ETH_HDR_SIZE, false, &rng,
				&ret), SW_ENQ_QUEUED);
		if (!ack_arrives) {
			ck_assert_int_eq(sw_queue_enqueue_ctl(&q,
				t_pkt(&sp, LB_KIND_ACK), OFAN_KIND_ACK,
				OFAN_ETH_HDR_SIZE, false, &rng, &ret),
				SW_ENQ_QUEUED);
			m = t_sized(T_LEAF_NET(1) | 1, 9, 0, full);
			r = sw_queue_enqueue_ctl(&q, m, OFAN_KIND_DATA,
						 OFAN_ETH_HDR_SIZE, false, &rng,
						 &ret);
		} else {
			m = t_pkt(&sp, LB_KIND_ACK);
			r = sw_queue_enqueue_ctl(&q, m, OFAN_KIND_ACK,
						 OFAN_ETH_HDR_SIZE, false, &rng,
						 &ret);
		}
		ck_assert_uint_eq(sw_queue_data_len(&q), 4);
		/*
		 * Every frame that was queued counts, a victim too, once
		 * in the histogram each (fuzz_switch: the victim's enqueue
		 * was taken back, so queue_enqueued_bytes fell when a
		 * smaller frame took its place).
		 */
		want = ack_arrives == (r == SW_ENQ_QUEUED) ? 5 : 4;
		ck_assert_uint_eq(q.st.enq_pkts, want);
		ck_assert_uint_eq(q.st.enq_bytes, want == 5 ?
				  4 * full + OFAN_ACK_FRAME_SIZE :
				  ack_arrives ? 4 * full :
				  3 * full + OFAN_ACK_FRAME_SIZE);
		for (i = 0, hist = 0; i < SW_QUEUE_HIST_BINS; i++)
			hist += q.st.hist[i];
		ck_assert_uint_eq(hist, q.st.enq_pkts);
		if (r == SW_ENQ_QUEUED) {
			/* Data: the arriving frame trimmed; ACK: the newest
			 * data frame trimmed, the ACK in its place. */
			ck_assert_uint_eq(q.st.trimmed_pkts, 1);
			ck_assert_uint_eq(q.ctrl.tail - q.ctrl.head, 1);
			ck_assert_uint_eq(q.st.drop_pkts, 0);
			ck_assert_uint_le(q.bytes, q.cap_bytes);
			seen |= ack_arrives ? 1 : 2;
		} else {
			ck_assert_int_eq(r, SW_ENQ_DROPPED);
			ck_assert_uint_eq(q.st.trimmed_pkts, 0);
			ck_assert_uint_eq(q.st.drop_pkts, 1);
			ck_assert_uint_eq(ret->pkt_len, OFAN_ACK_FRAME_SIZE);
			if (ack_arrives) {
				ck_assert_ptr_eq(ret, m);
				seen |= 4;
			} else {
				/* The queued ACK went; 4 data frames stay. */
				ck_assert_ptr_ne(ret, m);
				ck_assert_uint_eq(q.bytes, 4 * full);
				ck_assert_uint_gt(q.bytes, q.cap_bytes);
				seen |= 8;
			}
			rte_pktmbuf_free(ret);
		}
		ck_assert_uint_eq(sw_queue_fini(&q), 4 + (r == SW_ENQ_QUEUED));
	}
	ck_assert_uint_eq(seen, 15);
}
END_TEST

/*
 * Return to sender in a switch's books: port 1 trims (header) and returns
 * every trimmed header (rts = always).  Of three frames from host 0 the
 * first is queued, the next two are trimmed and handed back: one toward
 * host 0, whose route leaves by port 0 (headers_returned there), one
 * whose sender has no route (no_route, at the input).  Each port's
 * books balance: routed to it (picks, ARP, ICMP, headers returned by it)
 * = sent + dropped + queued + headers turned back (headers_turned_back),
 * which fuzz_switch found one short per return without that counter.
 */
START_TEST(test_rts_books)
{
	struct sw_config *c = t_cfg_line();
	struct rte_mbuf *pkts[3];
	struct ofan_pkt_spec sp;
	struct ofan_pkt_info info;
	struct sw_totals t;
	struct t_switch s;
	uint16_t p;

	c->ports[T_LINE_OUT].queue.capacity_pkts = 1;
	c->ports[T_LINE_OUT].queue.trim = SW_TRIM_HEADER;
	c->ports[T_LINE_OUT].queue.rts = SW_RTS_ALWAYS;
	c->ports[T_LINE_OUT].queue.trim_either = false;	/* the arriving one */
	t_start(&s, c);
	pkts[0] = t_sized(T_LEAF_NET(1) | 1, 0, 0, 1000);
	pkts[1] = t_sized(T_LEAF_NET(1) | 1, 1, 0, 1000);
	t_spec(&sp, 0, T_IP(192, 168, 0, 1), T_LEAF_NET(1) | 1, 4000, 2);
	sp.payload_size = 500;
	pkts[2] = t_pkt(&sp, LB_KIND_DATA);
	sw_worker_input(s.w, 0, pkts, 3, T_US);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.picks[T_LINE_OUT], 3);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 1);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].trimmed_pkts, 2);
	ck_assert_uint_eq(t.port[T_LINE_OUT].headers_turned, 2);
	ck_assert_uint_eq(t.port[0].headers_returned, 1);
	ck_assert_uint_eq(t.queue_len[0], 1);
	ck_assert_uint_eq(t.drops[OFAN_DROP_NO_ROUTE], 1);
	ck_assert_uint_eq(t.port[0].drops, 1);
	for (p = 0; p < 2; p++)
		ck_assert_uint_eq(t.picks[p] + t.port[p].arp_replies +
				  t.port[p].icmp_sent +
				  t.port[p].headers_returned,
				  t.port[p].tx_pkts + t.port[p].egress_drops +
				  t.queue_len[p] + t.port[p].headers_turned);
	/* The header back at host 0: addresses swapped, marked. */
	ck_assert_uint_eq(sw_worker_tx_peek(s.w, 0, T_US, pkts, 1), 1);
	sw_worker_tx_commit(s.w, 0, T_US, pkts, 1, 1);
	t_parse(pkts[0], &info);
	ck_assert_uint_eq(info.dst_ip, T_HOST_IP(0));
	ck_assert_uint_eq(info.psn, 1);
	ck_assert_uint_eq(info.bth_mark, OFAN_BTH_MARK_TRIMMED |
			  OFAN_BTH_MARK_RETURNED);
	ck_assert_uint_eq(info.payload_size, 0);
	rte_pktmbuf_free(pkts[0]);
	t_stop(&s);
}
END_TEST

/* A queue of one frame that trims to the headers what arrives beyond. */
static void
t_trim_one_config(struct sw_queue_config *qc)
{
	sw_queue_config_defaults(qc);
	qc->enabled = true;
	qc->ecn = false;
	qc->trim = SW_TRIM_HEADER;
	qc->trim_either = false;	/* the arriving one */
	qc->capacity_pkts = 1;
}

/*
 * Two 1000-byte data frames (PSN 0, 1) into q, a trimming queue of one
 * frame that trims the arriving one: the first is queued, the second
 * trimmed onto the control queue.
 */
static void
t_trim_second(struct sw_queue *q, struct ofan_rng *rng)
{
	struct rte_mbuf *ret;
	uint32_t psn;

	for (psn = 0; psn < 2; psn++)
		ck_assert_int_eq(sw_queue_enqueue_ctl(q,
			t_sized(T_LEAF_NET(1) | 1, psn, 0, 1000),
			OFAN_KIND_DATA, OFAN_ETH_HDR_SIZE, false, rng, &ret),
			SW_ENQ_QUEUED);
	ck_assert_uint_eq(q->st.trimmed_pkts, 1);
}

/*
 * A queue that faces a host (to_host) marks what it trims as trimmed on
 * the last hop too (OFAN_BTH_MARK_LAST_HOP); one towards the fabric, as
 * trimmed only.  A header already trimmed upstream keeps its marks.
 */
START_TEST(test_trim_last_hop)
{
	struct sw_queue_config qc;
	struct ofan_pkt_info info;
	struct rte_mbuf *ret, *m;
	struct sw_queue q;
	struct ofan_rng rng;
	int to_host;

	t_trim_one_config(&qc);
	ofan_rng_seed(&rng, 1, 0);
	for (to_host = 0; to_host < 2; to_host++) {
		qc.to_host = to_host;
		ck_assert_int_eq(sw_queue_init(&q, &qc, 32, SOCKET_ID_ANY), 0);
		t_trim_second(&q, &rng);
		ck_assert_uint_eq(q.ctrl.tail - q.ctrl.head, 1);
		m = q.ctrl.ring[q.ctrl.head & q.ctrl.mask];
		t_parse(m, &info);
		ck_assert_uint_eq(info.psn, 1);
		ck_assert_uint_eq(info.bth_mark, to_host ?
				  OFAN_BTH_MARK_TRIMMED | OFAN_BTH_MARK_LAST_HOP :
				  OFAN_BTH_MARK_TRIMMED);
		ck_assert_uint_eq(sw_queue_fini(&q), 2);
	}
	/* Trimmed upstream, then through a host's port: marks kept. */
	qc.to_host = true;
	ck_assert_int_eq(sw_queue_init(&q, &qc, 32, SOCKET_ID_ANY), 0);
	m = t_sized(T_LEAF_NET(1) | 1, 2, 0, 1000);
	t_parse(m, &info);
	rte_pktmbuf_mtod(m, uint8_t *)[info.l4_offset + OFAN_UDP_HDR_SIZE +
				       OFAN_BTH_MARK_OFFSET] =
		OFAN_BTH_MARK_TRIMMED;
	ck_assert_int_eq(sw_queue_enqueue_ctl(&q, m, OFAN_KIND_DATA,
		OFAN_ETH_HDR_SIZE, false, &rng, &ret), SW_ENQ_QUEUED);
	m = q.ctrl.tail != q.ctrl.head ? q.ctrl.ring[q.ctrl.head & q.ctrl.mask] :
		q.ring[q.head & q.mask];
	t_parse(m, &info);
	ck_assert_uint_eq(info.bth_mark, OFAN_BTH_MARK_TRIMMED);
	ck_assert_uint_eq(sw_queue_fini(&q), 1);
}
END_TEST

/*
 * What a cut header costs (ofan_frame.h, OFAN_FRAME_HEADER): its 54 bytes
 * under the Ethernet model, header_bytes under explicit sizes (htsim's
 * trimmed packet, 64 in uet-htsim), its bytes and 24 when that is 0 --
 * in the control queue's books and so on the link that drains it.
 */
START_TEST(test_trim_header_cost)
{
	static const struct {
		uint32_t header_bytes;	/* UINT32_MAX: the Ethernet model */
		uint32_t cost;
	} cases[] = {
		{ UINT32_MAX, OFAN_FRAME_HEADER_BYTES },
		{ 0, OFAN_FRAME_HEADER_BYTES + OFAN_WIRE_OVERHEAD },
		{ 64, 64 },
		{ 1, 1 },
	};
	struct sw_queue_config qc;
	struct sw_queue q;
	struct ofan_rng rng;
	unsigned int i;

	ofan_rng_seed(&rng, 1, 0);
	for (i = 0; i < RTE_DIM(cases); i++) {
		t_trim_one_config(&qc);
		if (cases[i].header_bytes != UINT32_MAX)
			ck_assert_int_eq(ofan_frame_model_sizes(&qc.frame,
				1514, 1460, OFAN_ACK_FRAME_SIZE, 82,
				cases[i].header_bytes), 0);
		ck_assert_int_eq(sw_queue_init(&q, &qc, 32, SOCKET_ID_ANY), 0);
		t_trim_second(&q, &rng);
		ck_assert_uint_eq(q.ctrl.ring[q.ctrl.head & q.ctrl.mask]->pkt_len,
				  OFAN_FRAME_HEADER_BYTES);
		ck_assert_uint_eq(q.ctrl.bytes, cases[i].cost);
		ck_assert_uint_eq(q.ctrl.len_ring[q.ctrl.head & q.ctrl.mask],
				  cases[i].cost);
		ck_assert_uint_eq(sw_queue_fini(&q), 2);
	}
}
END_TEST

/*
 * The frame model of a queue (ofan_frame.h): under explicit sizes (full
 * 1514-byte data frames count 1460 bytes, 78-byte ACKs 82) a queue
 * counts, caps, marks and shapes each frame at its model size: a data
 * frame as much under 1460 as it is shorter than 1514, an ACK 82, any
 * other frame its bytes and 24; with the Ethernet model, the same frames
 * count their bytes.  A byte cap of 1460 + 82 + 946 then holds a full
 * frame, an ACK and a 1000-byte frame, and drops a 60-byte one (6).
 */
START_TEST(test_queue_frame_model)
{
	struct sw_config *c = t_cfg_line();
	struct sw_queue_config *q = &c->ports[T_LINE_OUT].queue;
	struct ofan_pkt_spec sp;
	struct rte_mbuf *pkts[4];
	struct sw_totals t;
	struct t_switch s;

	ck_assert_int_eq(ofan_frame_model_sizes(&q->frame, 1514, 1460,
						OFAN_ACK_FRAME_SIZE, 82, 0), 0);
	ck_assert_int_eq(q->frame.adjust[OFAN_KIND_DATA], -54);
	ck_assert_int_eq(q->frame.adjust[OFAN_KIND_ACK], 4);
	ck_assert_int_eq(q->frame.adjust[OFAN_KIND_OTHER], 24);
	ck_assert_uint_eq(q->frame.overhead, 0);
	q->capacity_pkts = 100;
	q->capacity_bytes = 1460 + 82 + 946;
	q->ecn = false;
	t_start(&s, c);
	pkts[0] = t_sized(T_LEAF_NET(1) | 1, 0, 0, 1514);
	t_spec(&sp, 0, T_HOST_IP(0), T_LEAF_NET(1) | 1, 4000, 1);
	pkts[1] = t_pkt(&sp, LB_KIND_ACK);
	ck_assert_uint_eq(pkts[1]->pkt_len, OFAN_ACK_FRAME_SIZE);
	pkts[2] = t_sized(T_LEAF_NET(1) | 1, 2, 0, 1000);
	pkts[3] = t_sized(T_LEAF_NET(1) | 1, 3, 0, 60);
	sw_worker_input(s.w, 0, pkts, 4, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_pkts, 3);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_bytes, 1460 + 82 + 946);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_pkts, 1);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_bytes, 6);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, NULL, NULL), 3);
	t_stop(&s);

	/* Ethernet: the same frames count their bytes. */
	c = t_cfg_line();
	q = &c->ports[T_LINE_OUT].queue;
	q->capacity_pkts = 100;
	q->ecn = false;
	t_start(&s, c);
	pkts[0] = t_sized(T_LEAF_NET(1) | 1, 0, 0, 1514);
	pkts[1] = t_pkt(&sp, LB_KIND_ACK);
	sw_worker_input(s.w, 0, pkts, 2, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_bytes,
			  1514 + OFAN_ACK_FRAME_SIZE);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, NULL, NULL), 2);
	t_stop(&s);
}
END_TEST

START_TEST(test_queue_ecn)
{
	struct sw_config *c = t_cfg_line();
	struct sw_queue_config *q = &c->ports[T_LINE_OUT].queue;
	struct rte_mbuf *pkts[30];
	struct t_ecn_check chk = { 0, 0 };
	unsigned int hist[SW_QUEUE_HIST_BINS] = { 0 };
	struct sw_totals t;
	struct t_switch s;
	unsigned int i, b;

	q->capacity_pkts = 40;
	q->ecn_kmin_bytes = 4000;
	q->ecn_kmax_bytes = 8000;
	/* Low, so that the ramp alone would not mark everything above kmax. */
	q->ecn_pmax = 0.1;
	t_start(&s, c);
	/* Alternately ECT(0) and Not-ECT, DSCP 10, into an undrained queue. */
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = t_sized(T_LEAF_NET(1) | 1, i, 10 << 2 |
				  (i % 2 ? OFAN_ECN_NOT_ECT : OFAN_ECN_ECT0),
				  1000);
	sw_worker_input(s.w, 0, pkts, RTE_DIM(pkts), 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_pkts, 30);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_bytes, 30000);
	/*
	 * Bin b counts arrivals that found an occupancy in [b/16, (b+1)/16)
	 * of the capacity; these found 0 .. 29 packets of 40.
	 */
	for (i = 0; i < RTE_DIM(pkts); i++)
		hist[i * SW_QUEUE_HIST_BINS / 40]++;
	for (b = 0; b < SW_QUEUE_HIST_BINS; b++)
		ck_assert_msg(t.queue[T_LINE_OUT].hist[b] == hist[b],
			      "histogram bin %u: %" PRIu64 ", expected %u", b,
			      t.queue[T_LINE_OUT].hist[b], hist[b]);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, t_ecn_out, &chk), 30);
	ck_assert_uint_ge(chk.nb_ce, 10);	/* ECT, i = 10 .. 28 */
	ck_assert_uint_le(chk.nb_ce, 12);	/* and maybe i = 6, 8 */
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].ecn_marked, chk.nb_ce);
	t_stop(&s);
}
END_TEST

/*
 * Between kmin and kmax the marking probability rises linearly to pmax.
 * The queue is held at 6000 bytes (one packet in, one out): with kmin =
 * 4000, kmax = 8000 and pmax = 0.5 every ECT arrival is marked with
 * probability 0.25.  Of 4000 arrivals the count is binomial (mean 1000,
 * sd 27.4); the bound is 5 sd.
 */
START_TEST(test_queue_ecn_probability)
{
	struct sw_config *c = t_cfg_line();
	struct sw_queue_config *q = &c->ports[T_LINE_OUT].queue;
	struct t_seen seen = { .port = T_NONE };
	struct sw_totals t;
	struct t_switch s;
	struct rte_mbuf *m;
	unsigned int i;

	q->ecn_kmin_bytes = 4000;
	q->ecn_kmax_bytes = 8000;
	q->ecn_pmax = 0.5;
	t_start(&s, c);
	t_send_sized(&s, 6, 1000, 0, 0);
	for (i = 0; i < 4000; i++) {
		m = t_sized(T_LEAF_NET(1) | 1, 6 + i, OFAN_ECN_ECT0, 1000);
		sw_worker_input(s.w, 0, &m, 1, i * T_US);
		ck_assert_uint_eq(t_drain_max(s.w, T_LINE_OUT, i * T_US, 1,
					      t_seen_out, &seen), 1);
	}
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, i * T_US, t_seen_out, &seen),
			  6);
	ck_assert_uint_ge(seen.nb_ce, 1000 - 137);
	ck_assert_uint_le(seen.nb_ce, 1000 + 137);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].ecn_marked, seen.nb_ce);
	t_stop(&s);
}
END_TEST

/* ==== 7. shaping ==== */

/*
 * At 1 Gb/s a 1000-byte frame occupies (1000 + OFAN_WIRE_OVERHEAD 24) * 8 =
 * 8192 bit times, 8192 ns exactly (ofan_tx_time_ns() has nothing to round).
 * A backlogged shaped queue starts packet k at t0 + k * 8192 ns, t0 being
 * the arrival of the first, and a poll at now releases every packet whose
 * start time is <= now.
 */
#define T_SHAPE_SIZE 1000u
#define T_SHAPE_TX_NS 8192u

static void
t_shaped_line(struct t_switch *s)
{
	struct sw_config *c = t_cfg_line();

	c->ports[T_LINE_OUT].queue.rate_bps = T_SHAPE_RATE;
	t_start(s, c);
}

/* Input n 1000-byte frames in bursts of at most SW_MAX_BURST. */
void
t_send_many(struct t_switch *s, unsigned int n, uint64_t now)
{
	unsigned int done = 0, k;

	while (done < n) {
		k = RTE_MIN(n - done, (unsigned int)SW_MAX_BURST);
		t_send_sized(s, k, T_SHAPE_SIZE, done, now);
		done += k;
	}
}

/* Starts of packets 0, 1, ... at t0 + k * 8192 that are <= now. */
unsigned int
t_starts_by(uint64_t t0, uint64_t now)
{
	return now < t0 ? 0 : (unsigned int)((now - t0) / T_SHAPE_TX_NS + 1);
}

START_TEST(test_shape_fine_polls)
{
	struct t_switch s;
	unsigned int sent = 0;
	uint64_t now;
	uint32_t next = 0;
	struct sw_totals t;

	ck_assert_uint_eq(T_SHAPE_TX_NS,
			  ofan_tx_time_ns(T_SHAPE_SIZE + OFAN_WIRE_OVERHEAD,
					  T_SHAPE_RATE));
	t_shaped_line(&s);
	t_send_many(&s, 40, 0);
	/*
	 * Polling every microsecond for 100 us releases the packets starting
	 * at 0, 8192, ..., 98304 ns: 13 (100 us / 8192 ns = 12.2, and the
	 * first one goes at once).
	 */
	for (now = 0; now < 100 * T_US; now += T_US) {
		sent += t_drain(s.w, T_LINE_OUT, now, t_in_order, &next);
		ck_assert_uint_eq(sent, t_starts_by(0, now));
	}
	ck_assert_uint_eq(sent, 13);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[T_LINE_OUT].tx_bytes, 13 * T_SHAPE_SIZE);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 27);
	/* The 40th starts at 39 * 8192 = 319488 ns, not before. */
	for (; sent < 40; now += T_US)
		sent += t_drain(s.w, T_LINE_OUT, now, t_in_order, &next);
	ck_assert_uint_eq(now - T_US, 320 * T_US);
	t_stop(&s);
}
END_TEST

/* Coarse or late polls release the backlog at the rate, no slower. */
START_TEST(test_shape_coarse_polls)
{
	struct t_switch s;
	unsigned int sent = 0, got;
	uint32_t next = 0;
	uint64_t now;

	t_shaped_line(&s);
	t_send_many(&s, 200, 0);
	for (now = 0; now < OFAN_NS_PER_MS; now += 10 * T_US) {
		sent += t_drain(s.w, T_LINE_OUT, now, t_in_order, &next);
		ck_assert_uint_eq(sent, t_starts_by(0, now));
	}
	ck_assert_uint_eq(sent, 121);	/* 990 us / 8192 ns = 120.8 */
	t_stop(&s);

	/* One poll 100 us after the arrival takes all 13 due. */
	t_shaped_line(&s);
	t_send_many(&s, 40, 0);
	got = t_drain(s.w, T_LINE_OUT, 100 * T_US, NULL, NULL);
	ck_assert_uint_eq(got, 13);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 100 * T_US, NULL, NULL), 0);
	t_stop(&s);
}
END_TEST

/* An idle link banks no credit; a busy one delays a new arrival. */
START_TEST(test_shape_idle)
{
	struct t_switch s;
	const uint64_t t1 = OFAN_NS_PER_MS;

	t_shaped_line(&s);
	t_send_many(&s, 1, 0);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, NULL, NULL), 1);
	/* The link sends until 8192 ns: a packet at 1 us waits for it. */
	t_send_many(&s, 1, T_US);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, T_US, NULL, NULL), 0);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, T_SHAPE_TX_NS - 1, NULL,
				  NULL), 0);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, T_SHAPE_TX_NS, NULL, NULL),
			  1);
	/*
	 * Idle from 16384 ns to 1 ms: 40 packets arriving then start at
	 * 1 ms + k * 8192 ns, as if the link had never been used.
	 */
	t_send_many(&s, 40, t1);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, t1, NULL, NULL), 1);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, t1 + 50 * T_US, NULL, NULL),
			  t_starts_by(t1, t1 + 50 * T_US) - 1);
	ck_assert_uint_eq(t_starts_by(t1, t1 + 50 * T_US), 7);
	t_stop(&s);
}
END_TEST


/* One frame from host 0 to 10.0.1.9 (out of port 1) at now. */
static void
t_line_send(struct t_switch *s, uint64_t now)
{
	struct ofan_pkt_spec sp;
	struct rte_mbuf *m;

	t_spec(&sp, 0, T_HOST_IP(0), T_IP(10, 0, 1, 9), 9, 0);
	m = t_pkt(&sp, LB_KIND_DATA);
	sw_worker_input(s->w, 0, &m, 1, now);
}

/* A device that takes every frame: counts and frees them. */
static uint16_t
t_count_tx(void *arg, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	unsigned int *nb = arg;
	uint16_t i;

	RTE_SET_USED(port);
	for (i = 0; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
	*nb += n;
	return n;
}

/*
 * A stalled port (htsim's -ftype queue) sends nothing: its queue keeps
 * what it holds and fills, then tail-drops; routing removes it
 * reconverge_delay later, as a black hole; back up, it sends what it
 * held.  Without a queue there is nothing to hold: its frames are lost
 * as the device would refuse them (tx_full).
 */
START_TEST(test_stall_port)
{
	struct sw_config *c = t_cfg_line();
	struct t_seen seen = { 0 };
	struct sw_totals t;
	struct t_switch s;
	unsigned int i, cap;
	uint64_t now = T_US;

	c->ports[1].queue.capacity_pkts = 16;
	t_start(&s, c);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_STALL, 0, now),
			 0);
	cap = 16;
	for (i = 0; i < cap + 5; i++)
		t_line_send(&s, now + i);
	ck_assert_uint_eq(t_drain_all(s.w, now + 100, t_seen_out, &seen), 0);
	ck_assert_uint_eq(sw_worker_queue_len(s.w, 1), cap);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 5);
	ck_assert_uint_eq(t.port[1].tx_pkts, 0);
	/* Routing removes it after reconverge_delay, not before. */
	sw_engine_control(s.eng, now +
			  sw_engine_config(s.eng)->reconverge_delay_ns - 1);
	ck_assert(!sw_engine_port(s.eng, 1)->removed);
	sw_engine_control(s.eng, now +
			  sw_engine_config(s.eng)->reconverge_delay_ns);
	ck_assert(sw_engine_port(s.eng, 1)->removed);
	/* Back up: what it held leaves. */
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_UP, 0,
					    now + 200 * T_US), 0);
	ck_assert_uint_eq(t_drain_all(s.w, now + 200 * T_US, t_seen_out,
				      &seen), cap);
	ck_assert_uint_eq(seen.port, 1);
	t_stop(&s);

	/* No queue (ofan-switch sends such a port's frames directly): lost
	 * as tx_full while stalled, sent once it is back. */
	c = t_cfg_line();
	c->ports[1].queue.enabled = false;
	t_start(&s, c);
	sw_worker_set_direct_tx(s.w, t_count_tx, &cap);
	cap = 0;
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_STALL, 0, now),
			 0);
	for (i = 0; i < 3; i++)
		t_line_send(&s, now + i);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_TX_FULL], 3);
	ck_assert_uint_eq(t.port[1].egress_drops, 3);
	ck_assert_uint_eq(cap, 0);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_UP, 0, now + 10),
			 0);
	t_line_send(&s, now + 11);
	ck_assert_uint_eq(cap, 1);
	t_stop(&s);
}
END_TEST

/* ==== PFC (switch/engine/sw_pfc.c) ==== */

/* Take port's pending PFC frame: its quanta for priority 3, -1: none. */
static int
t_pfc_take(struct t_switch *s, uint16_t port, uint64_t now)
{
	struct ofan_pkt_info info;
	struct rte_mbuf *m;
	const uint8_t *f;
	uint16_t quanta;
	uint8_t mac[6];

	if (!sw_worker_tx_ready(s->w, port) ||
	    sw_worker_tx_peek(s->w, port, now, &m, 1) != 1)
		return -1;
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	if (ofan_parse(f, rte_pktmbuf_data_len(m), 0, &info) != OFAN_PARSE_OK ||
	    info.kind != OFAN_KIND_PAUSE) {
		/* A queued frame: leave it queued. */
		sw_worker_tx_commit(s->w, port, now, &m, 1, 0);
		return -1;
	}
	ck_assert_uint_eq(rte_pktmbuf_data_len(m), OFAN_PFC_FRAME_SIZE);
	ck_assert_int_eq(memcmp(f, ofan_pfc_dst_mac, 6), 0);
	t_port_mac(port, mac);
	ck_assert_int_eq(memcmp(f + 6, mac, 6), 0);
	ck_assert_uint_eq(f[15], 0x01);		/* opcode 0x0101 */
	ck_assert_uint_eq(f[17], 1u << 3);	/* class-enable: priority 3 */
	ck_assert(ofan_pfc_quanta(f, info.l3_offset, 3, &quanta));
	sw_worker_tx_commit(s->w, port, now, &m, 1, 1);
	rte_pktmbuf_free(m);
	return quanta;
}

/* A PFC frame from port's peer: quanta for the priorities in cev. */
static void
t_pfc_rx(struct t_switch *s, uint16_t port, uint8_t cev, uint16_t quanta,
	 uint64_t now)
{
	uint8_t buf[OFAN_PFC_FRAME_SIZE], mac[6];
	struct rte_mbuf *m;

	t_peer_mac(port, mac);
	ck_assert_int_eq(ofan_build_pfc(buf, sizeof(buf), mac, cev, quanta),
			 OFAN_PFC_FRAME_SIZE);
	m = t_mbuf(buf, sizeof(buf));
	sw_worker_input(s->w, port, &m, 1, now);
}

/*
 * A lossless ingress: port 0 brings 200-byte frames into port 1's queue,
 * whose link is stalled.  pfc_xoff 2000 / pfc_xon 1000 bytes: the 11th
 * frame (2200 bytes held) sends one pause (pfc_quanta) out of port 0;
 * more frames send none until half the quanta's time has passed (the
 * refresh); draining port 1 sends the resume (zero quanta) only below
 * 1000 bytes, once.  pfc_headroom 1000: the frame that would take the
 * port past 3000 bytes is dropped (pfc_headroom).
 */
START_TEST(test_pfc_hysteresis)
{
	struct sw_config *c = t_cfg_line();
	struct t_seen seen = { 0 };
	struct sw_totals t;
	struct t_switch s;
	uint64_t now = T_US, xoff, xon, room, half;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct sw_queue_config *q = &c->ports[i].queue;

		q->ecn = false;
		q->pfc = true;
		q->pfc_xoff_bytes = 2000;
		q->pfc_xon_bytes = 1000;
		q->pfc_headroom_bytes = 1000;
		q->pfc_quanta = 1000;	/* 5.12 us at 100 Gb/s */
	}
	t_start(&s, c);
	sw_engine_pfc_limits(s.eng, 0, &xoff, &xon, &room);
	ck_assert_uint_eq(xoff, 2000);
	ck_assert_uint_eq(xon, 1000);
	ck_assert_uint_eq(room, 1000);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_STALL, 0, now),
			 0);
	t_send_sized(&s, 10, 200, 0, now);		/* 2000: not above */
	ck_assert_uint_eq(sw_worker_take_kicks(s.w), 0);
	ck_assert_int_eq(t_pfc_take(&s, 0, now), -1);
	t_send_sized(&s, 1, 200, 10, now);		/* 2200: xoff */
	ck_assert_uint_eq(sw_worker_take_kicks(s.w), 1u << 0);
	ck_assert_int_eq(t_pfc_take(&s, 0, now), 1000);
	t_send_sized(&s, 4, 200, 11, now + 1);		/* 3000: no new pause */
	ck_assert_int_eq(t_pfc_take(&s, 0, now + 1), -1);
	t_send_sized(&s, 1, 200, 15, now + 2);		/* past the headroom */
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_PFC_HEADROOM], 1);
	ck_assert_uint_eq(t.queue_len[1], 15);
	ck_assert_uint_eq(t.port[0].pfc_pauses_sent, 1);
	/* Still above xon half the quanta later: the pause is refreshed. */
	half = ofan_pfc_quanta_ns(1000, 100000000000ull) / 2;
	ck_assert_uint_eq(half, 2560);
	t_send_sized(&s, 1, 200, 16, now + half - 1);	/* dropped, no refresh */
	ck_assert_int_eq(t_pfc_take(&s, 0, now + half), -1);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_UP, 0,
					    now + half), 0);
	/* Drain to 1000 bytes: at xon, not below it -- no resume yet. */
	ck_assert_uint_eq(t_drain_max(s.w, 1, now + half, 10, t_seen_out,
				      &seen), 10);
	ck_assert_int_eq(t_pfc_take(&s, 0, now + half), -1);
	/* One frame in: 1200; the refresh comes with it. */
	t_send_sized(&s, 1, 200, 17, now + half + 10);
	ck_assert_int_eq(t_pfc_take(&s, 0, now + half + 10), 1000);
	ck_assert_uint_eq(t_drain_max(s.w, 1, now + half + 20, 2, NULL, NULL), 2);
	ck_assert_int_eq(t_pfc_take(&s, 0, now + half + 20), 0);	/* 800 */
	ck_assert_uint_eq(t_drain(s.w, 1, now + half + 30, NULL, NULL), 4);
	ck_assert_int_eq(t_pfc_take(&s, 0, now + half + 30), -1);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[0].pfc_pauses_sent, 2);
	ck_assert_uint_eq(t.port[0].pfc_resumes_sent, 1);
	ck_assert_uint_eq(t.drops[OFAN_DROP_PFC_HEADROOM], 2);
	/* Pause frames count as sent on their port, and nothing leaked. */
	ck_assert_uint_eq(t.port[0].tx_pkts, 3);
	t_stop(&s);
}
END_TEST

/*
 * A received pause stops that egress for its quanta (1000 x 512 bit
 * times = 5120 ns at 100 Gb/s), then it sends again; a pause of another
 * priority is ignored (pause_ignored), a zero-quanta frame resumes at
 * once; pfc_paused_ns is the time the port was paused, counted as it
 * passes.
 * A frame the port had started (peeked) still leaves when paused.
 */
START_TEST(test_pfc_pause_rx)
{
	struct sw_config *c = t_cfg_line();
	struct sw_totals t;
	struct t_switch s;
	struct rte_mbuf *m;
	uint64_t now = 10 * T_US;

	c->ports[0].queue.pfc = true;
	c->ports[1].queue.pfc = true;
	t_start(&s, c);
	t_pfc_rx(&s, 1, 1u << 3, 1000, now);
	ck_assert_uint_eq(sw_worker_take_kicks(s.w), 1u << 1);
	ck_assert_uint_eq(sw_worker_paused_until(s.w, 1), now + 5120);
	t_send_sized(&s, 3, 200, 0, now);
	ck_assert(sw_worker_tx_ready(s.w, 1));
	ck_assert_uint_eq(t_drain(s.w, 1, now + 5119, NULL, NULL), 0);
	ck_assert_uint_eq(t_drain_max(s.w, 1, now + 5120, 1, NULL, NULL), 1);
	/* Another priority: ignored. */
	t_pfc_rx(&s, 1, 1u << 5, 1000, now + 6000);
	ck_assert_uint_eq(t_drain_max(s.w, 1, now + 6000, 1, NULL, NULL), 1);
	/* A started frame finishes although a pause came in meanwhile. */
	ck_assert_uint_eq(sw_worker_tx_peek(s.w, 1, now + 7000, &m, 1), 1);
	t_pfc_rx(&s, 1, 1u << 3, 1000, now + 7001);
	ck_assert_uint_eq(sw_worker_tx_peek(s.w, 1, now + 7002, &m, 1), 1);
	sw_worker_tx_commit(s.w, 1, now + 7002, &m, 1, 1);
	rte_pktmbuf_free(m);
	/* Paused again: nothing more would leave; a resume at +8000. */
	t_send_sized(&s, 1, 200, 3, now + 7003);
	ck_assert_uint_eq(t_drain(s.w, 1, now + 7999, NULL, NULL), 0);
	t_pfc_rx(&s, 1, 1u << 3, 0, now + 8000);
	ck_assert_uint_eq(t_drain(s.w, 1, now + 8000, NULL, NULL), 1);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[1].pfc_pauses_received, 3);
	ck_assert_uint_eq(t.drops[OFAN_DROP_PAUSE_IGNORED], 1);
	ck_assert_uint_eq(t.port[1].pfc_paused_ns, 5120 + 999);
	/*
	 * A shorter pause during a longer one ends it early (802.1Qbb
	 * reloads the timer): 1000 quanta at +9000, then 10 (52 ns) at
	 * +9100; the port sends again at +9152.  The count takes the 100
	 * ns the long one ran, then the 52, and never goes down (it went
	 * up by 5120, then down by 4968).
	 */
	t_pfc_rx(&s, 1, 1u << 3, 1000, now + 9000);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[1].pfc_paused_ns, 6119);
	t_pfc_rx(&s, 1, 1u << 3, 10, now + 9100);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[1].pfc_paused_ns, 6119 + 100);
	ck_assert_uint_eq(sw_worker_paused_until(s.w, 1), now + 9152);
	t_send_sized(&s, 1, 200, 4, now + 9101);
	ck_assert_uint_eq(t_drain(s.w, 1, now + 9151, NULL, NULL), 0);
	ck_assert_uint_eq(t_drain(s.w, 1, now + 9152, NULL, NULL), 1);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[1].pfc_paused_ns, 6119 + 100 + 52);
	ck_assert_uint_eq(sw_worker_paused_until(s.w, 1), 0);
	t_stop(&s);

	/* Without pfc on the port, a pause is not ours to obey. */
	c = t_cfg_line();
	t_start(&s, c);
	t_pfc_rx(&s, 1, 1u << 3, 1000, now);
	t_send_sized(&s, 1, 200, 0, now);
	ck_assert_uint_eq(t_drain(s.w, 1, now, NULL, NULL), 1);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_PAUSE_IGNORED], 1);
	t_stop(&s);
}
END_TEST

/*
 * pfc_xon = 0 (the loader accepts it): the port resumes its upstream
 * once it holds nothing.  fuzz_switch found it never did -- the bytes
 * never fall below 0 -- so the upstream stayed paused for the whole
 * quanta with the switch empty.
 */
START_TEST(test_pfc_xon_zero)
{
	struct sw_config *c = t_cfg_line();
	struct t_switch s;
	uint64_t now = T_US;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		c->ports[i].queue.pfc = true;
		c->ports[i].queue.pfc_xoff_bytes = 300;
		c->ports[i].queue.pfc_xon_bytes = 0;
	}
	t_start(&s, c);
	t_send_sized(&s, 2, 200, 0, now);	/* 400: xoff */
	ck_assert_int_eq(t_pfc_take(&s, 0, now), 0xffff);
	ck_assert_uint_eq(t_drain_max(s.w, 1, now, 1, NULL, NULL), 1);
	ck_assert_int_eq(t_pfc_take(&s, 0, now), -1);	/* 200 left */
	ck_assert_uint_eq(t_drain(s.w, 1, now, NULL, NULL), 1);
	ck_assert_int_eq(t_pfc_take(&s, 0, now), 0);	/* empty */
	t_stop(&s);
}
END_TEST

/*
 * A lossless port (0) beside a trimming one (1, ACKs on its control
 * queue): frames leaving the control queue came in by no lossless port,
 * and must credit none.  Port 0 brings two frames into port 2's queue
 * (400 bytes held), ACKs from port 2 leave by port 1, then port 2's
 * frames leave: port 0 holds nothing, so its next frame is queued (no
 * pfc_headroom drop) and no pause goes out.
 */
START_TEST(test_pfc_beside_trim)
{
	struct sw_config *c = t_cfg_new("ecmp");
	struct rte_mbuf *pkts[4];
	struct ofan_pkt_spec sp;
	struct sw_totals t;
	struct t_switch s;
	uint64_t now = T_US;
	uint16_t p, g;
	unsigned int i;

	for (p = 0; p < 3; p++) {
		t_sw_cfg_port(c, T_SWITCH_IP(p));
		g = t_cfg_group(c, p == 1 ? "one" : p == 2 ? "two" : "zero",
				&p, 1);
		t_cfg_route(c, T_LEAF_NET(p), 24, g, p);
	}
	c->ports[0].queue.pfc = true;
	c->ports[0].queue.pfc_xoff_bytes = 1000;
	c->ports[0].queue.pfc_xon_bytes = 500;
	c->ports[0].queue.pfc_headroom_bytes = 100;
	c->ports[1].queue.trim = SW_TRIM_HEADER;
	c->ports[1].queue.ctrl_acks = true;
	t_start(&s, c);
	for (i = 0; i < 2; i++)
		pkts[i] = t_sized(T_LEAF_NET(2) | 1, i, 0, 200);
	sw_worker_input(s.w, 0, pkts, 2, now);
	for (i = 0; i < 4; i++) {
		t_spec(&sp, 2, T_LEAF_NET(2) | 1, T_LEAF_NET(1) | 1, 7, i);
		pkts[i] = t_pkt(&sp, LB_KIND_ACK);
	}
	sw_worker_input(s.w, 2, pkts, 4, now);
	ck_assert_uint_eq(t_drain(s.w, 1, now, NULL, NULL), 4);
	ck_assert_uint_eq(t_drain(s.w, 2, now, NULL, NULL), 2);
	pkts[0] = t_sized(T_LEAF_NET(2) | 1, 9, 0, 200);
	sw_worker_input(s.w, 0, pkts, 1, now);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_PFC_HEADROOM], 0);
	ck_assert_uint_eq(t.queue_len[2], 1);
	ck_assert_int_eq(t_pfc_take(&s, 0, now), -1);
	ck_assert_uint_eq(t_drain(s.w, 2, now, NULL, NULL), 1);
	t_stop(&s);
}
END_TEST

/*
 * A pause in a chain of mbufs (fuzz_switch found it): its body is read
 * in place, so it must lie in the first segment.  A PFC frame whose
 * first segment ends inside its 20-byte body is mac_control_malformed
 * (it was ip_truncated, a reason for IPv4); one whose body is whole
 * there is obeyed, and so is an 802.3x pause whose 4 bytes are, though
 * its first segment ends before an IPv4 header would (it was dropped).
 */
START_TEST(test_pfc_chained)
{
	struct sw_config *c = t_cfg_line();
	uint8_t buf[OFAN_PFC_FRAME_SIZE], mac[6];
	struct sw_totals t;
	struct t_switch s;
	struct rte_mbuf *m;
	uint64_t now = 10 * T_US;

	c->ports[1].queue.pfc = true;
	t_start(&s, c);
	t_peer_mac(1, mac);
	ck_assert_int_eq(ofan_build_pfc(buf, sizeof(buf), mac, 1u << 3, 1000),
			 OFAN_PFC_FRAME_SIZE);
	m = t_chain(buf, sizeof(buf), OFAN_ETH_HDR_SIZE + 10);
	sw_worker_input(s.w, 1, &m, 1, now);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_MAC_CTRL_MALFORMED], 1);
	ck_assert_uint_eq(t.drops[OFAN_DROP_IP_TRUNCATED], 0);
	ck_assert_uint_eq(t.port[1].pfc_pauses_received, 0);
	ck_assert_uint_eq(sw_worker_paused_until(s.w, 1), 0);
	/* The body whole in the first segment: obeyed. */
	m = t_chain(buf, sizeof(buf), OFAN_ETH_HDR_SIZE + OFAN_PFC_BODY_SIZE);
	sw_worker_input(s.w, 1, &m, 1, now);
	ck_assert_uint_eq(sw_worker_paused_until(s.w, 1), now + 5120);
	/* 802.3x: 4 bytes of body; 0 quanta resumes. */
	buf[OFAN_ETH_HDR_SIZE] = 0;
	buf[OFAN_ETH_HDR_SIZE + 1] = 1;
	buf[OFAN_ETH_HDR_SIZE + 2] = 0;
	buf[OFAN_ETH_HDR_SIZE + 3] = 0;
	m = t_chain(buf, sizeof(buf), OFAN_ETH_HDR_SIZE + OFAN_PAUSE_BODY_SIZE);
	sw_worker_input(s.w, 1, &m, 1, now + 100);
	ck_assert_uint_eq(sw_worker_paused_until(s.w, 1), now + 100);
	m = t_chain(buf, sizeof(buf), OFAN_ETH_HDR_SIZE + 3);
	sw_worker_input(s.w, 1, &m, 1, now + 200);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[1].pfc_pauses_received, 2);
	ck_assert_uint_eq(t.drops[OFAN_DROP_MAC_CTRL_MALFORMED], 2);
	ck_assert_uint_eq(t_drops_sum(&t), 2);
	t_stop(&s);
}
END_TEST

/*
 * A lossy egress port ([drop.NAME], common/ofan_loss.h): random loses
 * its share (1,000 frames at 0.5: within 4 sigma of 500), the same for
 * the same seed; bursts as htsim's flaky link, timed from the schedule's
 * start: frames every microsecond, bursts due every 100 us from 100 us
 * with a fixed 10 us length lose 11 frames each, the first frame after
 * one passes; the schedule starting 50 us later shifts them by 50 us.
 * Every lost frame is counted as injected, on the port's egress drops.
 */
START_TEST(test_drop_port)
{
	struct sw_config *c;
	struct sw_totals t;
	struct t_switch s;
	uint64_t lost[2] = { 0 };
	unsigned int i, k;

	for (k = 0; k < 2; k++) {
		c = t_cfg_line();
		c->nb_drops = 1;
		c->drops[0].port = 1;
		ofan_loss_defaults(&c->drops[0].loss);
		c->drops[0].loss.mode = OFAN_LOSS_RANDOM;
		c->drops[0].loss.rate = 0.5;
		t_start(&s, c);
		for (i = 0; i < 1000; i++)
			t_line_send(&s, T_US + i);
		sw_engine_totals(s.eng, &t);
		lost[k] = t.drops[OFAN_DROP_INJECTED];
		ck_assert_uint_eq(t.port[1].egress_drops, lost[k]);
		ck_assert_uint_eq(t_drain_all(s.w, 10 * T_MS, NULL, NULL),
				  1000 - lost[k]);
		t_stop(&s);
	}
	ck_assert_uint_eq(lost[0], lost[1]);
	ck_assert_msg(lost[0] > 436 && lost[0] < 564, "%" PRIu64, lost[0]);

	for (k = 0; k < 2; k++) {
		uint64_t origin = k * 50 * T_US, want = 0;

		c = t_cfg_line();
		c->nb_drops = 1;
		c->drops[0].port = 1;
		ofan_loss_defaults(&c->drops[0].loss);
		c->drops[0].loss.mode = OFAN_LOSS_BURSTS;
		c->drops[0].loss.length_fixed = true;
		c->drops[0].loss.first_ns = 100 * T_US;
		t_start(&s, c);
		sw_engine_set_schedule_start(s.eng, (int64_t)origin);
		for (i = 1; i <= 400; i++) {
			uint64_t at = i * T_US;

			sw_engine_totals(s.eng, &t);
			want = t.drops[OFAN_DROP_INJECTED];
			t_line_send(&s, at);
			sw_engine_totals(s.eng, &t);
			ck_assert_msg(t.drops[OFAN_DROP_INJECTED] - want ==
				      (at >= origin + 100 * T_US &&
				       (at - origin) % (100 * T_US) <= 10 * T_US),
				      "origin %u us, frame at %u us",
				      (unsigned int)(origin / T_US), i);
			t_drain_all(s.w, at, NULL, NULL);
		}
		t_stop(&s);
	}
}
END_TEST

void
t_engine_queue_tests(struct t_engine_tcases *t)
{
	tcase_add_test(t->queue, test_queue_packets);
	tcase_add_test(t->queue, test_queue_bytes);
	tcase_add_test(t->queue, test_queue_scale);
	tcase_add_test(t->queue, test_queue_fair_inputs);
	tcase_add_test(t->queue, test_rx_rr);
	tcase_add_test(t->queue, test_queue_ecn);
	tcase_add_test(t->queue, test_queue_frame_model);
	tcase_add_test(t->queue, test_queue_hist_bin);
	tcase_add_test(t->queue, test_trim_victim_ack);
	tcase_add_test(t->queue, test_rts_books);
	tcase_add_test(t->queue, test_trim_last_hop);
	tcase_add_test(t->queue, test_trim_header_cost);
	tcase_add_test(t->queue, test_queue_ecn_probability);
	tcase_add_test(t->shaping, test_shape_fine_polls);
	tcase_add_test(t->shaping, test_shape_coarse_polls);
	tcase_add_test(t->shaping, test_shape_idle);
	tcase_add_test(t->failures, test_stall_port);
	tcase_add_test(t->failures, test_pfc_hysteresis);
	tcase_add_test(t->failures, test_pfc_pause_rx);
	tcase_add_test(t->failures, test_pfc_chained);
	tcase_add_test(t->failures, test_pfc_xon_zero);
	tcase_add_test(t->failures, test_pfc_beside_trim);
	tcase_add_test(t->failures, test_drop_port);
}
