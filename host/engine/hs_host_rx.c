/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host engine's input (hs_host.h): data packets into their receivers
 * and ACKs queued, ACKs into their senders and policies, ARP answered,
 * malformed frames counted under their drop reasons.
 */
#include "hs_host_priv.h"
#include "hs_shard.h"
#include "ofan_parse_fast.h"

/* A flow to us was received completely: start what waited for it. */
static void
hs_rflow_complete(struct hs_host *h, struct hs_rflow *r, uint64_t now)
{
	const struct hs_traffic *t = h->traffic;
	uint32_t c;
	int32_t si;

	r->complete = true;
	r->done_ns = now;
	h->nb_rx_done++;
	/*
	 * The flows waiting for it that this rank sends, newest first; the
	 * shard that sends one of them (when not this one) is told.
	 */
	for (c = t->child_first[r->spec->id]; c != HS_NO_DEP;
	     c = t->child_next[c]) {
		if (t->flows[c].src != h->rank)
			continue;
		si = hs_sflow_of(h, c);
		if (si >= 0)
			hs_dep_release(h, (uint32_t)si, now);
		else
			h->shard.release(h->shard.release_arg,
				hs_shard_of_ip(hs_rank_ip(h->set,
							  t->flows[c].dst),
					       h->shard.count,
					       h->shard.reta_size),
				c, now);
	}
	if (hs_flow_end_reported(r->spec, true) && h->on_flow_end != NULL)
		h->on_flow_end(h->on_flow_end_arg, r->spec->id, true, now);
}

static void
hs_queue_ack(struct hs_host *h, const struct hs_rflow *r, uint16_t ev,
	     const struct hs_ack_content *a)
{
	struct hs_ack_req *q;

	if (h->ack_tail - h->ack_head >= HS_ACK_RING)
		return;	/* overflow: the sender recovers */
	q = &h->acks[h->ack_tail++ & (HS_ACK_RING - 1)];
	q->tmpl = &r->ack_tmpl;
	q->flow = r->spec->id;
	q->src = r->spec->src;
	q->nic_slot = r->nic_slot;
	q->echo_ev = ev;
	/* The policy may send ACKs on paths of their own (drb). */
	q->ev = h->set->policy->ack_ev == NULL ? ev :
		h->set->policy->ack_ev(&h->hlb,
			ofan_hash_mix32(r->spec->id ^ (uint32_t)h->set->seed), ev);
	q->count = h->tp.recovery->counts;
	q->a = *a;
	/* How long a round of its PULLs takes: its queue, bit length. */
	if (h->pull_fifo != NULL)
		q->a.pull_queue = (uint8_t)(h->pull_count == 0 ? 0 :
			32 - __builtin_clz(h->pull_count));
	h->st.nacks_sent += a->nack;
}

/* A PULL of flow r: its credit granted so far, to its sender. */
void
hs_queue_pull(struct hs_host *h, const struct hs_rflow *r)
{
	struct hs_ack_content a = { .pull = true, .cum = r->pull.granted };

	hs_queue_ack(h, r, r->pull.ev, &a);
}

/*
 * A trimmed header of a flow to us (architecture.md, "Trimming"): the switch cut
 * its payload.  Nothing was delivered; the model may NACK its PSN.
 */
static void
hs_input_trimmed(struct hs_host *h, const struct ofan_pkt_info *pi,
		 uint64_t now)
{
	uint32_t flow = pi->dest_qp - HS_QP_OFFSET;
	struct hs_ack_content nack = { 0 };
	struct hs_rflow *r;

	h->st.trimmed_rx++;
	if (pi->dest_qp < HS_QP_OFFSET || flow >= h->traffic->nb_flows ||
	    hs_rflow_of(h, flow) < 0) {
		h->st.unknown_flow++;
		return;
	}
	r = &h->rflows[hs_rflow_of(h, flow)];
	if (pi->src_ip != r->src_ip) {
		h->st.unknown_flow++;
		return;
	}
	if (hs_receiver_on_trimmed(&r->rx, pi->psn, &nack)) {
		nack.last_hop = nack.nack &&
			(pi->bth_mark & OFAN_BTH_MARK_LAST_HOP) != 0;
		hs_queue_ack(h, r, pi->src_port, &nack);
	}
	hs_pull_arrived(h, (uint32_t)hs_rflow_of(h, flow), 0, pi->src_port,
			pi->bth_mark, (pi->tos & OFAN_ECN_MASK) == OFAN_ECN_CE,
			now);
}

/*
 * A trimmed header a switch returned to us, its sender (rts): the model
 * may resend its PSN at once.  Addresses are swapped: we are its
 * destination, the flow's receiver its source.
 */
static void
hs_input_returned(struct hs_host *h, const struct ofan_pkt_info *pi,
		  uint64_t now)
{
	uint32_t flow = pi->dest_qp - HS_QP_OFFSET;
	struct hs_sflow *s;
	int32_t si;

	h->st.returned_rx++;
	if (pi->dest_qp < HS_QP_OFFSET || flow >= h->traffic->nb_flows ||
	    (si = hs_sflow_of(h, flow)) < 0) {
		h->st.unknown_flow++;
		return;
	}
	s = &h->sflows[si];
	if (s->state != HS_ACTIVE)
		return;	/* a late header of a finished flow */
	hs_sender_on_returned(&s->tx, pi->psn, now);
	if (h->set->cc->on_returned != NULL)
		h->set->cc->on_returned(s->cc.bytes, h->cc_settings,
			hs_sender_payload(&s->tx, pi->psn), now);
	hs_wake(h, (uint32_t)si, now);
}

static void
hs_input_data(struct hs_host *h, const uint8_t *frame,
	      const struct ofan_pkt_info *pi, uint64_t now)
{
	uint32_t flow = pi->dest_qp - HS_QP_OFFSET;
	const struct hs_flow_spec *f;
	struct hs_ack_content ack = { 0 };
	struct hs_rflow *r;
	bool send_ack = false;
	bool ce = (pi->tos & OFAN_ECN_MASK) == OFAN_ECN_CE;
	uint16_t expect;
	uint64_t add;

	if (pi->dest_qp < HS_QP_OFFSET || flow >= h->traffic->nb_flows ||
	    hs_rflow_of(h, flow) < 0) {
		h->st.unknown_flow++;
		return;
	}
	r = &h->rflows[hs_rflow_of(h, flow)];
	f = r->spec;
	if (pi->src_ip != r->src_ip) {
		h->st.unknown_flow++;
		return;
	}
	/*
	 * A PSN the flow does not have is corrupt too, payload checked or
	 * not (no duplicate: nothing was received twice).
	 */
	expect = hs_receiver_expect(&r->rx, pi->psn, f->size, h->set->mss);
	if (expect == 0 ||
	    (h->set->verify_payload &&
	     (pi->payload_size != expect ||
	      ofan_payload_check(frame + pi->payload_offset, pi->dest_qp,
				 pi->psn, pi->payload_size) != 0))) {
		/* Corrupt: not delivered, not acknowledged; the run fails. */
		r->corrupt++;
		h->st.corrupt_pkts++;
		return;
	}
	ack.nack = false;	/* a model that NACKs says so */
	if (hs_receiver_on_data(&r->rx, pi->psn, ce, &send_ack, &ack)) {
		add = RTE_MIN((uint64_t)pi->payload_size, f->size - r->goodput);
		r->goodput += add;
		h->st.goodput_bytes += add;
		if (!r->complete && hs_receiver_done(&r->rx))
			hs_rflow_complete(h, r, now);
	} else {
		h->st.dup_pkts++;
	}
	/* Its sender asked for an ACK at once (OFAN_BTH_ACK_REQ). */
	if (frame[pi->l4_offset + OFAN_UDP_HDR_SIZE +
		  OFAN_BTH_ACK_REQ_OFFSET] & OFAN_BTH_ACK_REQ)
		send_ack = hs_receiver_ack_now(&r->rx, pi->psn, send_ack,
					       &ack);
	if (send_ack)
		hs_queue_ack(h, r, pi->src_port, &ack);
	hs_pull_arrived(h, (uint32_t)hs_rflow_of(h, flow), pi->payload_size,
			pi->src_port, pi->bth_mark, ce, now);
}

static void
hs_flow_done(struct hs_host *h, uint32_t si, uint64_t now)
{
	struct hs_sflow *s = &h->sflows[si];
	uint32_t i;

	s->state = HS_DONE;
	s->complete = true;
	s->done_ns = now;
	hs_flow_release(h, s);
	h->nb_done++;
	hs_rank_active_add(h, -1);
	hs_heap_remove(h, si);
	for (i = 0; i < h->nb_active; i++)
		if (h->active[i] == si) {
			h->active[i] = h->active[--h->nb_active];
			break;
		}
	if (h->rr >= h->nb_active)
		h->rr = 0;
	if (hs_flow_end_reported(s->spec, false) && h->on_flow_end != NULL)
		h->on_flow_end(h->on_flow_end_arg, s->spec->id, false, now);
}

/*
 * What an ACK or a NACK did, to flow s's congestion control: on_nack()
 * for a NACK when it has one, else on_ack().
 */
static void
hs_cc_feed(struct hs_host *h, struct hs_sflow *s,
	   const struct hs_ack_content *a, const struct hs_tx_acked *r,
	   uint64_t now)
{
	const struct hs_cc_ops *cc = h->set->cc;
	uint16_t mss = h->set->mss;
	struct hs_cc_ack ca = {
		.now_ns = now,
		.rtt_ns = a->nack ? r->nack_rtt_ns : r->rtt_ns,
		.acked_pkts = r->acked,
		.acked_bytes = (uint64_t)r->acked * mss,
		.nacked_pkts = r->nacked,
		.nacked_bytes = r->nacked ? mss : 0,
		.ce = a->ce,
		.last_hop = a->last_hop,
	};

	ca.flight.pkts = hs_sender_in_flight(&s->tx);
	ca.flight.bytes = (uint64_t)ca.flight.pkts * mss;
	if (a->nack && cc->on_nack != NULL)
		cc->on_nack(s->cc.bytes, h->cc_settings, &ca);
	else if (cc->on_ack != NULL)
		cc->on_ack(s->cc.bytes, h->cc_settings, &ca);
}

static void
hs_input_ack(struct hs_host *h, const uint8_t *frame,
	     const struct ofan_pkt_info *pi, uint64_t now)
{
	const struct hs_host_settings *c = h->set;
	uint32_t flow = pi->dest_qp - HS_QP_OFFSET, si;
	const struct ofan_ack_ext *ext;
	struct hs_ack_content a = { 0 };
	struct hs_tx_acked r = { 0 };
	struct hs_sflow *s;
	uint64_t rtt = 0, sack;
	uint16_t ev;
	bool counted;

	h->st.acks_received++;
	if (pi->dest_qp < HS_QP_OFFSET || flow >= h->traffic->nb_flows ||
	    hs_sflow_of(h, flow) < 0) {
		h->st.unknown_flow++;
		return;
	}
	si = (uint32_t)hs_sflow_of(h, flow);
	s = &h->sflows[si];
	if (s->state != HS_ACTIVE)
		return;	/* a late ACK of a finished flow */
	ext = (const struct ofan_ack_ext *)(frame + pi->payload_offset +
					    OFAN_AETH_SIZE);
	if (c->cc->pulls)
		s->pull_queue = ext->pull_queue;
	if (unlikely(ext->flags & OFAN_ACK_F_PULL)) {
		/* Credit from a receiver-driven flow's receiver. */
		if (c->cc->on_pull != NULL) {
			s->cc_waits = 0;
			c->cc->on_pull(s->cc.bytes, h->cc_settings,
				       rte_be_to_cpu_32(ext->cum_psn), now);
			hs_wake(h, si, now);
		}
		return;
	}
	counted = (ext->flags & OFAN_ACK_F_COUNT) != 0;
	if (counted != h->tp.recovery->counts) {
		h->st.ack_mismatch++;
		return;
	}
	a.nack = (frame[pi->payload_offset] & OFAN_AETH_SYN_NAK_MASK) ==
		OFAN_AETH_SYN_NAK_MASK;
	h->st.nacks_received += a.nack;
	ev = rte_be_to_cpu_16(ext->echo_ev);
	a.ce = c->ce_echo == HS_CE_ECHO_ACK ?
		(pi->tos & OFAN_ECN_MASK) == OFAN_ECN_CE :
		(ext->flags & OFAN_ACK_F_CE) != 0;
	a.last_hop = a.nack && (ext->flags & OFAN_ACK_F_LAST_HOP) != 0;
	a.echo_psn = rte_be_to_cpu_32(ext->echo_psn);
	a.cum = rte_be_to_cpu_32(ext->cum_psn);
	memcpy(&sack, &ext->sack, sizeof(sack));
	a.sack = rte_be_to_cpu_64(sack);
	hs_sender_on_ack(&s->tx, &a, now, &r);
	rtt = r.rtt_ns;
	if (h->path_timers)
		hs_sender_path_acked(&s->tx, ev);
	hs_wake(h, si, now);
	/* The erasure sender's timers can move earlier with a new RTT. */
	hs_timer_take(h, s, now);
	s->acks++;
	s->ce_acks += a.ce;
	if (rtt != 0) {
		if (rtt < s->min_rtt_ns)
			s->min_rtt_ns = rtt;
		s->rtt_sum_ns += rtt;
		s->rtt_samples++;
	}
	/* A last hop's trim says nothing against the path (uec.cpp:1604). */
	if (a.nack && !a.last_hop && c->policy->on_nack != NULL)
		c->policy->on_nack(s->lb, &h->hlb, &h->rng, ev, a.ce, now);
	else
		c->policy->on_ack(s->lb, &h->hlb, &h->rng, ev, a.ce, rtt, now);
	if (c->cc->on_ack != NULL || c->cc->on_nack != NULL)
		hs_cc_feed(h, s, &a, &r, now);
	if (r.done)
		hs_flow_done(h, si, now);
}

/*
 * A pause or PFC frame: hold the output for its quanta of our priority,
 * from now (a shorter pause ends a longer one early, as 802.1Qbb's timer
 * does; ofan_wire.h, ofan_pfc_pause_ran()).
 */
static void
hs_input_pause(struct hs_host *h, const uint8_t *frame,
	       const struct ofan_pkt_info *pi, uint64_t now_ns)
{
	uint16_t quanta;
	uint64_t dur;

	if (!ofan_pfc_quanta(frame, pi->l3_offset, HS_PFC_PRIORITY, &quanta)) {
		h->st.drops[OFAN_DROP_PAUSE_IGNORED]++;
		return;
	}
	dur = ofan_pfc_quanta_ns(quanta, h->set->rate_bps);
	/* The timer reloads: what the pause it replaces ran is counted. */
	h->st.pfc_paused_ns += ofan_pfc_pause_ran(h->pause_from,
						  h->pause_until, now_ns);
	h->pause_from = now_ns;
	h->pause_until = now_ns + dur;
	h->st.pfc_pauses_received++;
}

void
hs_host_input(struct hs_host *h, struct rte_mbuf **pkts, uint16_t n,
	      uint64_t now_ns)
{
	struct ofan_pkt_info pi;
	uint16_t i, nb_free = 0;

	/* Consumed frames are freed together at the end (cheaper). */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *frame;
		int v;

		h->st.rx_pkts++;
		h->st.rx_bytes += m->pkt_len;
		if (unlikely(m->nb_segs != 1)) {
			/* Hosts send single-segment frames; so must peers. */
			h->st.drops[OFAN_DROP_BAD_TOTAL_LENGTH]++;
			pkts[nb_free++] = m;
			continue;
		}
		frame = rte_pktmbuf_mtod(m, const uint8_t *);
		/* The common frame in a few comparisons, the rest in full. */
		v = ofan_parse_fast(frame, rte_pktmbuf_data_len(m), false,
				    true, &pi) ? OFAN_PARSE_OK :
			ofan_parse(frame, rte_pktmbuf_data_len(m),
				   OFAN_PARSE_F_NO_TTL_CHECK, &pi);
		if (v != OFAN_PARSE_OK) {
			h->st.drops[v]++;
		} else if (pi.kind == OFAN_KIND_ARP) {
			/* Counted as the switch counts them. */
			if (pi.arp_oper != OFAN_ARP_OP_REQUEST ||
			    pi.arp_tpa != h->ip) {
				h->st.drops[OFAN_DROP_NOT_FOR_US]++;
			} else if (h->nb_arp_reply < RTE_DIM(h->arp_reply)) {
				/* The mbuf becomes the reply. */
				hs_frame_arp_reply(&h->fx, m, &pi);
				h->arp_reply[h->nb_arp_reply++] = m;
				h->st.arp_replies++;
				continue;
			} else {
				/* The replies not yet sent fill their queue. */
				h->st.drops[OFAN_DROP_QUEUE_FULL]++;
			}
		} else if (unlikely(pi.kind == OFAN_KIND_PAUSE)) {
			hs_input_pause(h, frame, &pi, now_ns);
		} else if (pi.dst_ip != h->ip || pi.kind == OFAN_KIND_OTHER) {
			/* Not RoCEv2 (TCP or a fragment to 4791 included). */
			h->st.drops[OFAN_DROP_NOT_FOR_US]++;
		} else if (pi.kind == OFAN_KIND_DATA &&
			   unlikely((pi.bth_mark & ~OFAN_BTH_MARK_SPEC) != 0)) {
			if (pi.bth_mark & OFAN_BTH_MARK_RETURNED)
				hs_input_returned(h, &pi, now_ns);
			else if (pi.bth_mark & OFAN_BTH_MARK_TRIMMED)
				hs_input_trimmed(h, &pi, now_ns);
			else
				h->st.drops[OFAN_DROP_NOT_FOR_US]++;
		} else if (pi.kind == OFAN_KIND_DATA) {
			hs_input_data(h, frame, &pi, now_ns);
		} else if (pi.kind == OFAN_KIND_ACK) {
			hs_input_ack(h, frame, &pi, now_ns);
		}
		pkts[nb_free++] = m;
	}
	rte_pktmbuf_free_bulk(pkts, nb_free);
}
