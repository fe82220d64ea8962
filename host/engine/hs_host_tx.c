/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host engine's output (hs_host.h): timers, each pacer slot's packet
 * from its flow's transport with the EV its policy chose, ACKs and ARP
 * replies first, the next event's time and the NIC's back-pressure.
 */
#include <rte_debug.h>

#include "hs_host_priv.h"

/* Transport timers of active flows (scanned when the earliest is due). */
static void
hs_host_timers(struct hs_host *h, uint64_t now)
{
	const struct hs_host_settings *c = h->set;
	uint64_t next = UINT64_MAX;
	uint32_t i;

	if (now < h->timer_ns)
		return;
	for (i = 0; i < h->nb_active; i++) {
		uint32_t si = h->active[i];
		struct hs_sflow *s = &h->sflows[si];
		/* A timer that came may make the flow sendable (a timeout's
		 * retransmission, the erasure sender's end of waiting). */
		bool due = hs_sender_timer_ns(&s->tx) <= now;

		if (s->cc_wait_ns != 0 && s->cc_wait_ns <= now) {
			/* No credit came in its time: as a timeout (RTS). */
			s->cc_wait_ns = 0;
			if (s->cc_waits < 16)
				s->cc_waits++;
			c->cc->on_timeout(s->cc.bytes, h->cc_settings, now);
			due = true;
		}
		if (hs_sender_check_timeout(&s->tx, now)) {
			h->st.timeouts++;
			s->ev_kept = false;
			if (!h->path_timers)
				c->policy->on_timeout(s->lb, &h->hlb, &h->rng,
						      now);
			if (c->cc->on_timeout != NULL)
				c->cc->on_timeout(s->cc.bytes, h->cc_settings,
						  now);
		}
		if (due)
			hs_wake(h, si, now);
		next = RTE_MIN(next, hs_sender_timer_ns(&s->tx));
		if (s->cc_wait_ns != 0)
			next = RTE_MIN(next, s->cc_wait_ns);
	}
	h->timer_ns = next > now ? next : now + 1;
}

/*
 * The next data packet of flow si, if it may send now.  NULL with *wire
 * 0: it may not; NULL with *wire 1: no mbuf.
 */
/*
 * An mbuf for a data frame: one rte_pktmbuf_alloc(), or with bulk_alloc
 * the stash's top, refilled HS_MBUF_STASH at a time (one at a time when
 * the pool has fewer left, so a nearly empty pool fails as it would
 * without the stash).
 */
static inline struct rte_mbuf *
hs_data_mbuf(struct hs_host *h)
{
	if (h->nb_stash > 0)
		return h->stash[--h->nb_stash];
	if (h->bulk_alloc &&
	    rte_pktmbuf_alloc_bulk(h->pool, h->stash, HS_MBUF_STASH) == 0) {
		h->nb_stash = HS_MBUF_STASH - 1;
		return h->stash[HS_MBUF_STASH - 1];
	}
	return rte_pktmbuf_alloc(h->pool);
}

/*
 * The EV of flow s's next data packet: the one kept for it
 * (resend_path = next), or its policy's choice -- chosen again while
 * the chosen EV's last packet is overdue (each check stops that EV's
 * timer, so this ends).
 */
static uint16_t
hs_flow_ev(struct hs_host *h, struct hs_sflow *s, uint64_t now)
{
	const struct hs_host_settings *c = h->set;
	uint16_t ev;

	if (s->ev_kept)
		return s->kept_ev;
	ev = c->policy->next_ev(s->lb, &h->hlb, &h->rng, now);
	while (h->path_timers && hs_sender_path_expired(&s->tx, ev, now)) {
		c->policy->on_path_timeout(s->lb, &h->hlb, &h->rng, ev, now);
		ev = c->policy->next_ev(s->lb, &h->hlb, &h->rng, now);
	}
	return ev;
}

/*
 * How long a receiver-driven flow held back with nothing out waits for
 * credit before it gives it up for lost: an RTO and a round of its
 * receiver's PULLs (64 quanta to each of the flows its last ACK said
 * wait, at 99 % of the link: 1.3 ms in a 1023-to-1 incast at 100G), so
 * a flow that merely waits its turn keeps waiting; doubled each time it
 * expires in a row.
 */
static uint64_t
hs_cc_wait_ns(const struct hs_host *h, const struct hs_sflow *s)
{
	double round = s->pull_queue == 0 ? 0 :
		(double)(UINT64_C(1) << s->pull_queue) * 64 *
		OFAN_PULL_QUANTUM * 8e9 / (0.99 * (double)h->set->rate_bps);

	return ((uint64_t)h->tp.rto_ns + (uint64_t)round) << s->cc_waits;
}

/* After pkt, may the flow send no more for now (or is pkt a resend)? */
static bool
hs_ack_wanted(const struct hs_host *h, const struct hs_sflow *s,
	      const struct hs_tx_pkt *pkt)
{
	struct hs_cc_flight f = { .pkts = hs_sender_in_flight(&s->tx) };

	/* A resend, and the last new packet (uet-htsim: _backlog == 0). */
	if (pkt->resend || (pkt->grows && pkt->psn + 1 ==
			    hs_transport_nb_pkts(&h->tp, s->spec->size)))
		return true;
	f.bytes = (uint64_t)f.pkts * h->set->mss;
	return !h->set->cc->may_send(s->cc.bytes, h->cc_settings, &f);
}

static struct rte_mbuf *
hs_flow_packet(struct hs_host *h, uint32_t si, uint64_t now, uint32_t *wire)
{
	const struct hs_host_settings *c = h->set;
	struct hs_sflow *s = &h->sflows[si];
	struct hs_tx_pkt pkt;
	struct rte_mbuf *m;
	uint16_t ev, off;
	int len;

	*wire = 0;
	/* The NIC has no room for this flow: wait for hs_host_nic_room(). */
	if (h->nic_full != NULL && h->nic_full(h->nic_arg, s->nic_slot))
		return NULL;
	hs_sender_next(&s->tx, now, &pkt);
	if (pkt.psn == HS_PSN_NONE) {
		/* The erasure sender may just have begun its one-RTT wait. */
		hs_timer_take(h, s, now);
		return NULL;
	}
	if (c->cc->may_send != NULL &&
	    (pkt.grows || (c->cc->gates_resends &&
			   c->recovery->flight_sheds_lost))) {
		struct hs_cc_flight f = { .pkts = hs_sender_in_flight(&s->tx) };

		f.bytes = (uint64_t)f.pkts * c->mss;
		if (!c->cc->may_send(s->cc.bytes, h->cc_settings, &f)) {
			/*
			 * A receiver-driven cc waits for a PULL; if its
			 * transport has no timer to wake it and none comes
			 * in time (it, or what the flow sent, was lost; or
			 * its receiver, complete, pulls no more), on_timeout()
			 * gives it a packet, as uet-htsim's RTS asks for one.
			 */
			if (c->cc->pulls && s->cc_wait_ns == 0 &&
			    hs_sender_timer_ns(&s->tx) == UINT64_MAX) {
				s->cc_wait_ns = now + hs_cc_wait_ns(h, s);
				h->timer_ns = RTE_MIN(h->timer_ns, s->cc_wait_ns);
			}
			return NULL;
		}
		s->cc_wait_ns = 0;
	}
	m = hs_data_mbuf(h);
	if (m == NULL) {
		h->st.alloc_failed++;
		*wire = 1;
		return NULL;
	}
	ev = hs_flow_ev(h, s, now);
#ifndef NDEBUG
	/*
	 * Debug builds: the EV keeps next_ev()'s contract (hlb.h).  Release
	 * builds send it as it is; it only stays out of distinct_evs.
	 */
	if (ev < h->hlb.ev_min || ev > h->hlb.ev_max)
		rte_panic("host policy %s chose EV %u outside [%u, %u]\n",
			  c->policy->name, ev, h->hlb.ev_min, h->hlb.ev_max);
#endif
	off = (uint16_t)(ev - c->hlb.ev_min);
	if (off <= hs_ev_range(c) &&
	    !(s->evs_seen[off / 64] & (1ull << (off % 64)))) {
		s->evs_seen[off / 64] |= 1ull << (off % 64);
		s->distinct_evs++;
	}
	len = hs_frame_data(&h->fx, &s->tmpl, s->spec, m, ev, pkt.psn,
			    pkt.payload);
	if (len < 0) {
		rte_pktmbuf_free(m);
		h->st.alloc_failed++;
		*wire = 1;
		return NULL;
	}
	if (c->resend_path == HS_RESEND_NEXT) {
		/* A repair keeps its EV for the next packet; the in-order
		 * stream uses it up. */
		s->ev_kept = pkt.repair;
		s->kept_ev = ev;
	}
	if (c->cc->pulls && c->cc->speculating(s->cc.bytes))
		rte_pktmbuf_mtod(m, uint8_t *)[OFAN_ETH_HDR_SIZE +
			OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE +
			OFAN_BTH_MARK_OFFSET] |= OFAN_BTH_MARK_SPEC;
	if (c->cc->on_sent != NULL)
		c->cc->on_sent(s->cc.bytes, h->cc_settings, pkt.payload,
			       pkt.resend, now);
	h->st.data_retx += pkt.resend;
	hs_sender_sent(&s->tx, pkt.psn, now);
	if (c->cc->ack_request && hs_ack_wanted(h, s, &pkt))
		rte_pktmbuf_mtod(m, uint8_t *)[OFAN_ETH_HDR_SIZE +
			OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE +
			OFAN_BTH_ACK_REQ_OFFSET] |= OFAN_BTH_ACK_REQ;
	if (h->path_timers)
		hs_sender_path_sent(&s->tx, ev, now);
	h->st.data_sent++;
	hs_timer_take(h, s, now);
	*wire = (uint32_t)len + OFAN_WIRE_OVERHEAD;
	return m;
}

/* pacing = host: every slot of the host's pacer that has come. */
static uint16_t
hs_output_shared(struct hs_host *h, uint64_t now, struct rte_mbuf **pkts,
		 uint16_t n, uint16_t max)
{
	while (n < max && !h->pace_blocked && h->pace_ns <= now &&
	       h->nb_active > 0) {
		struct rte_mbuf *m = NULL;
		uint32_t wire = 0, tries;

		for (tries = 0; tries < h->nb_active && m == NULL &&
		     wire == 0; tries++) {
			if (h->rr >= h->nb_active)
				h->rr = 0;
			m = hs_flow_packet(h, h->active[h->rr++], now, &wire);
		}
		if (m == NULL && wire == 0) {
			/* Nothing to send: sleep until something changes. */
			h->pace_blocked = true;
			h->pace_ns = now;
			break;
		}
		if (m == NULL) {
			/* Out of mbufs: try again a microsecond later. */
			h->pace_ns = now + OFAN_NS_PER_US;
			break;
		}
		pkts[n++] = m;
		h->pace_ns += hs_shared_gap(h, wire);
	}
	if (h->pace_ns < now && h->nb_active == 0)
		h->pace_ns = now;
	return n;
}

/* pacing = flow: every flow's slots that have come, in time order. */
static uint16_t
hs_output_flows(struct hs_host *h, uint64_t now, struct rte_mbuf **pkts,
		uint16_t n, uint16_t max)
{
	while (n < max && h->nb_heap > 0) {
		uint32_t si = h->heap[0], wire;
		struct hs_sflow *s = &h->sflows[si];
		struct rte_mbuf *m;
		uint64_t gap;

		if (s->pace_at > now)
			break;
		m = hs_flow_packet(h, si, now, &wire);
		if (m == NULL && wire == 0) {
			s->blocked = true;
			hs_heap_remove(h, si);
			continue;
		}
		if (m == NULL) {
			s->pace_at = now + OFAN_NS_PER_US;
			hs_heap_down(h, 0);
			break;
		}
		pkts[n++] = m;
		gap = hs_flow_gap(h, s, wire);
		s->pace_at += gap + hs_jitter(h, gap);
		if (s->state == HS_ACTIVE)
			hs_heap_down(h, 0);
	}
	return n;
}

uint16_t
hs_host_output(struct hs_host *h, uint64_t now_ns, struct rte_mbuf **pkts,
	       uint16_t max)
{
	uint16_t n = 0, i;

	if (unlikely(h->pause_until != 0)) {
		if (now_ns < h->pause_until)
			return 0;	/* PFC paused: nothing leaves */
		/* It ran out: all of it is time paused. */
		h->st.pfc_paused_ns += ofan_pfc_pause_ran(h->pause_from,
							  h->pause_until,
							  now_ns);
		h->pause_until = 0;
	}
	if (!h->started)
		return 0;
	while (n < max && h->nb_arp_reply > 0)
		pkts[n++] = h->arp_reply[--h->nb_arp_reply];
	if (h->announce && n < max) {
		struct rte_mbuf *m = hs_frame_arp_announce(&h->fx, h->pool);

		if (m != NULL) {
			pkts[n++] = m;
			h->announce = false;
		}
	}
	if (unlikely(h->pull_fifo != NULL)) {
		hs_pull_check(h, now_ns);
		hs_pull_run(h, now_ns);
	}
	while (n < max && h->ack_head != h->ack_tail) {
		struct rte_mbuf *m = hs_frame_ack(&h->fx, h->pool,
			&h->acks[h->ack_head & (HS_ACK_RING - 1)]);

		if (m == NULL) {
			h->st.alloc_failed++;
			break;
		}
		h->ack_head++;
		h->st.acks_sent++;
		pkts[n++] = m;
	}
	hs_host_start_due(h, now_ns);
	hs_host_timers(h, now_ns);
	if (h->set->pacing == HS_PACING_FLOW)
		n = hs_output_flows(h, now_ns, pkts, n, max);
	else
		n = hs_output_shared(h, now_ns, pkts, n, max);
	for (i = 0; i < n; i++) {
		h->st.tx_pkts++;
		h->st.tx_bytes += pkts[i]->pkt_len;
	}
	return n;
}

uint64_t
hs_host_next_event(const struct hs_host *h)
{
	uint64_t t = RTE_MIN(h->timer_ns, h->next_start_ns);

	if (!h->started)
		return UINT64_MAX;
	if (unlikely(h->pause_until != 0))
		return h->pause_until;	/* paused: nothing to do before */
	if (h->ack_head != h->ack_tail || h->nb_arp_reply > 0 || h->announce)
		return 0;
	if (unlikely(h->pull_fifo != NULL))
		t = RTE_MIN(t, hs_pull_next_ns(h));
	if (h->set->pacing == HS_PACING_FLOW) {
		if (h->nb_heap > 0)
			t = RTE_MIN(t, h->sflows[h->heap[0]].pace_at);
	} else if (h->nb_active > 0 && !h->pace_blocked) {
		t = RTE_MIN(t, h->pace_ns);
	}
	return t;
}

uint64_t
hs_host_paused_until(const struct hs_host *h)
{
	return h->pause_until;
}

bool
hs_host_nic_room(struct hs_host *h, uint32_t slot, uint64_t now_ns)
{
	int32_t si;

	if (slot >= hs_host_nic_slots(h) || h->slot_sflow[slot] < 0)
		return false;
	si = h->slot_sflow[slot];
	if (h->sflows[si].state != HS_ACTIVE)
		return false;
	hs_wake(h, (uint32_t)si, now_ns);
	return true;
}
