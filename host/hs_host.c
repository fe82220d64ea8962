/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host engine: flows, pacing, ACKs, timers.  See hs_host.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "hlb.h"
#include "hs_flow.h"
#include "hs_host.h"
#include "ofan_clock.h"
#include "ofan_parse.h"
#include "ofan_rng.h"
#include "ofan_wire.h"

/* QP numbers 0 and 1 are special in InfiniBand; flow f uses QP f + 2. */
#define HS_QP_OFFSET 2
#define HS_ACK_RING 4096	/* pending ACKs (power of two) */
#define HS_WIRE_OVERHEAD 24	/* preamble, SFD, IFG, FCS */

enum hs_sflow_state { HS_WAITING = 0, HS_ACTIVE, HS_DONE };

/* A flow this host sends. */
struct hs_sflow {
	const struct hs_flow_spec *spec;
	/*
	 * Headers of a full-size data packet of this flow: every such packet
	 * differs only in its EV and PSN (the IPv4 checksum covers neither),
	 * so they are copied and patched instead of built field by field.
	 */
	uint8_t hdr[OFAN_DATA_HDRS_SIZE];
	struct hs_tx tx;
	void *lb;		/* policy state */
	uint64_t *evs_seen;	/* bitmap over the EV range */
	uint32_t distinct_evs;
	uint32_t dst_ip;
	uint8_t state;
	uint64_t start_at;	/* absolute, for flows without a dependency */
	uint64_t start_ns;	/* absolute, when it became active */
	uint64_t done_ns;
	double cwnd;		/* ECN window mode */
	uint64_t acks;
	uint64_t ce_acks;
};

/* A flow this host receives. */
struct hs_rflow {
	const struct hs_flow_spec *spec;
	struct hs_rx rx;
	uint32_t src_ip;
	uint64_t done_ns;
	uint64_t corrupt;
};

struct hs_ack_req {
	uint32_t flow;
	uint16_t echo_ev;
	struct hs_ack_info info;
};

struct hs_host {
	const struct hs_config *cfg;
	const struct hs_traffic *traffic;
	uint32_t rank;
	uint32_t ip;
	uint8_t mac[6];
	uint8_t dst_mac[6];
	struct rte_mempool *pool;
	struct ofan_rng rng;
	uint64_t t0;
	bool started;
	bool announce;		/* a gratuitous ARP is due */
	bool no_announce;	/* never send one */

	uint32_t nb_sflows;
	struct hs_sflow *sflows;
	uint32_t nb_rflows;
	struct hs_rflow *rflows;
	int32_t *sflow_of;	/* flow id -> index in sflows, -1 */
	int32_t *rflow_of;	/* flow id -> index in rflows, -1 */
	/* Local flows that wait for the reception of flow id: linked list. */
	int32_t *first_child;	/* flow id -> sflow index, -1 */
	int32_t *next_child;	/* sflow index -> sflow index, -1 */

	uint32_t *active;	/* sflow indexes being sent */
	uint32_t nb_active;
	uint32_t rr;		/* round-robin position in active */
	uint32_t nb_done;
	uint32_t nb_rx_done;

	uint64_t pace_ns;	/* the pacer's next slot */
	/*
	 * No active flow could send at the last slot (all in flight, or
	 * waiting for ACKs or timers): the pacer sleeps until an ACK, a
	 * timer or a new flow wakes it, instead of asking for every ns.
	 */
	bool pace_blocked;
	uint64_t timer_ns;	/* earliest retransmission timer */
	uint64_t next_start_ns;	/* earliest start of a waiting flow */

	struct hs_ack_req acks[HS_ACK_RING];
	uint32_t ack_head;
	uint32_t ack_tail;
	struct rte_mbuf *arp_reply[16];	/* replies to send */
	uint16_t nb_arp_reply;

	uint64_t total_bytes;
	struct hs_host_stats st;
};

static uint16_t
hs_ev_range(const struct hs_config *c)
{
	return (uint16_t)(c->hlb.ev_max - c->hlb.ev_min);
}

static int
hs_host_alloc(struct hs_host *h, const struct hs_traffic *t, char *err,
	      unsigned int err_size)
{
	const struct hs_config *c = h->cfg;
	uint32_t i, ns = 0, nr = 0;
	size_t ev_words = ((size_t)hs_ev_range(c) + 1 + 63) / 64;

	for (i = 0; i < t->nb_flows; i++) {
		ns += t->flows[i].src == h->rank;
		nr += t->flows[i].dst == h->rank;
	}
	h->sflows = calloc(ns ? ns : 1, sizeof(*h->sflows));
	h->rflows = calloc(nr ? nr : 1, sizeof(*h->rflows));
	h->active = calloc(ns ? ns : 1, sizeof(*h->active));
	h->sflow_of = malloc(sizeof(int32_t) * (t->nb_flows + 1));
	h->rflow_of = malloc(sizeof(int32_t) * (t->nb_flows + 1));
	h->first_child = malloc(sizeof(int32_t) * (t->nb_flows + 1));
	h->next_child = malloc(sizeof(int32_t) * (ns + 1));
	if (h->sflows == NULL || h->rflows == NULL || h->active == NULL ||
	    h->sflow_of == NULL || h->rflow_of == NULL ||
	    h->first_child == NULL || h->next_child == NULL)
		goto nomem;
	for (i = 0; i < t->nb_flows; i++) {
		h->sflow_of[i] = -1;
		h->rflow_of[i] = -1;
		h->first_child[i] = -1;
	}
	for (i = 0; i < t->nb_flows; i++) {
		const struct hs_flow_spec *f = &t->flows[i];

		if (f->src == h->rank) {
			struct hs_sflow *s = &h->sflows[h->nb_sflows];

			s->spec = f;
			s->dst_ip = hs_rank_ip(c, f->dst);
			s->lb = calloc(1, c->policy->state_size ?
				       c->policy->state_size : 1);
			s->evs_seen = calloc(ev_words, sizeof(uint64_t));
			if (s->lb == NULL || s->evs_seen == NULL)
				goto nomem;
			h->next_child[h->nb_sflows] = -1;
			if (f->dep != HS_NO_DEP && f->dep < t->nb_flows) {
				h->next_child[h->nb_sflows] =
					h->first_child[f->dep];
				h->first_child[f->dep] = (int32_t)h->nb_sflows;
			}
			h->sflow_of[i] = (int32_t)h->nb_sflows++;
			h->total_bytes += f->size;
		}
		if (f->dst == h->rank) {
			struct hs_rflow *r = &h->rflows[h->nb_rflows];
			uint32_t nb_pkts = (uint32_t)((f->size + c->mss - 1) /
						      c->mss);

			r->spec = f;
			r->src_ip = hs_rank_ip(c, f->src);
			if (hs_rx_init(&r->rx, nb_pkts, c->ack_every) != 0)
				goto nomem;
			h->rflow_of[i] = (int32_t)h->nb_rflows++;
		}
	}
	return 0;
nomem:
	snprintf(err, err_size, "rank %u: out of memory for %u flows",
		 h->rank, t->nb_flows);
	return -ENOMEM;
}

struct hs_host *
hs_host_create(const struct hs_host_params *p, char *err,
	       unsigned int err_size)
{
	struct hs_host *h;

	if (p->traffic->nb_flows >= (1u << 24) - HS_QP_OFFSET) {
		snprintf(err, err_size, "%u flows do not fit 24-bit QP numbers",
			 p->traffic->nb_flows);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	h->cfg = p->cfg;
	h->traffic = p->traffic;
	h->rank = p->rank;
	h->ip = hs_rank_ip(p->cfg, p->rank);
	memcpy(h->mac, p->mac, 6);
	memcpy(h->dst_mac, p->dst_mac, 6);
	h->pool = p->pool;
	h->no_announce = p->no_announce;
	ofan_rng_seed(&h->rng, p->cfg->seed, 0x40570000ull + p->rank);
	h->timer_ns = UINT64_MAX;
	h->next_start_ns = UINT64_MAX;
	if (hs_host_alloc(h, p->traffic, err, err_size) != 0) {
		hs_host_free(h);
		return NULL;
	}
	return h;
}

void
hs_host_free(struct hs_host *h)
{
	uint32_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nb_sflows; i++) {
		hs_tx_fini(&h->sflows[i].tx);
		free(h->sflows[i].lb);
		free(h->sflows[i].evs_seen);
	}
	for (i = 0; i < h->nb_rflows; i++)
		hs_rx_fini(&h->rflows[i].rx);
	for (i = 0; i < h->nb_arp_reply; i++)
		rte_pktmbuf_free(h->arp_reply[i]);
	free(h->sflows);
	free(h->rflows);
	free(h->active);
	free(h->sflow_of);
	free(h->rflow_of);
	free(h->first_child);
	free(h->next_child);
	free(h);
}

static void hs_fill_spec(const struct hs_host *h, struct ofan_pkt_spec *sp,
			 uint32_t dst_ip, uint16_t ev, uint32_t flow,
			 uint32_t psn);

/* Build s->hdr: the headers ofan_build_data() writes for a full packet. */
static void
hs_flow_template(const struct hs_host *h, struct hs_sflow *s)
{
	struct ofan_pkt_spec sp;
	uint8_t *buf = malloc(OFAN_DATA_HDRS_SIZE + h->cfg->mss);

	memset(s->hdr, 0, sizeof(s->hdr));
	if (buf == NULL)
		return;
	hs_fill_spec(h, &sp, s->dst_ip, 0, s->spec->id, 0);
	sp.tos = h->cfg->ecn;
	sp.payload_size = h->cfg->mss;
	if (ofan_build_data(buf, OFAN_DATA_HDRS_SIZE + h->cfg->mss, &sp) > 0)
		memcpy(s->hdr, buf, sizeof(s->hdr));
	free(buf);
}

/* A full-size data packet from the template; returns the frame size. */
static inline int
hs_build_full(const struct hs_sflow *s, uint8_t *f, uint16_t ev,
	      uint32_t psn, uint16_t mss)
{
	const uint32_t udp = OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE;
	const uint32_t bth = udp + OFAN_UDP_HDR_SIZE;

	memcpy(f, s->hdr, sizeof(s->hdr));
	f[udp] = (uint8_t)(ev >> 8);
	f[udp + 1] = (uint8_t)ev;
	/* BTH PSN: 24 bits after the ack-request byte. */
	f[bth + 9] = (uint8_t)(psn >> 16);
	f[bth + 10] = (uint8_t)(psn >> 8);
	f[bth + 11] = (uint8_t)psn;
	ofan_payload_fill(f + OFAN_DATA_HDRS_SIZE, s->spec->id + HS_QP_OFFSET,
			  psn & 0xffffff, mss);
	return OFAN_DATA_HDRS_SIZE + mss;
}

/* Something may have become sendable: an idle pacer banks no credit. */
static inline void
hs_pacer_wake(struct hs_host *h, uint64_t now)
{
	if (h->pace_blocked) {
		h->pace_blocked = false;
		if (h->pace_ns < now)
			h->pace_ns = now;
	}
}

/* A flow becomes active: transport state, policy state, pacing. */
static void
hs_flow_activate(struct hs_host *h, uint32_t si, uint64_t now)
{
	const struct hs_config *c = h->cfg;
	struct hs_sflow *s = &h->sflows[si];
	uint64_t rto = RTE_MAX(c->min_rto_ns, 2 * c->base_rtt_ns);

	if (hs_tx_init(&s->tx, s->spec->size, c->mss, c->reorder_window_ns,
		       rto, now) != 0) {
		/* Out of memory: the flow never completes; the run fails. */
		s->state = HS_DONE;
		h->st.alloc_failed++;
		return;
	}
	c->policy->init(s->lb, &c->hlb, &h->rng, now);
	hs_flow_template(h, s);
	s->cwnd = c->window_pkts;
	s->state = HS_ACTIVE;
	s->start_ns = now;
	h->active[h->nb_active++] = si;
	if (h->nb_active == 1 && h->pace_ns < now)
		h->pace_ns = now;	/* an idle pacer banks no credit */
	hs_pacer_wake(h, now);
}

/* Activate flows whose start time has come; recompute the next one. */
static void
hs_host_start_due(struct hs_host *h, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	uint32_t i;

	if (now < h->next_start_ns)
		return;
	for (i = 0; i < h->nb_sflows; i++) {
		struct hs_sflow *s = &h->sflows[i];

		if (s->state != HS_WAITING || s->spec->dep != HS_NO_DEP)
			continue;
		if (s->start_at <= now)
			hs_flow_activate(h, i, now);
		else if (s->start_at < next)
			next = s->start_at;
	}
	h->next_start_ns = next;
}

void
hs_host_start(struct hs_host *h, uint64_t now_ns)
{
	uint32_t i;

	h->t0 = now_ns;
	h->started = true;
	h->announce = !h->no_announce;
	h->pace_ns = now_ns;
	h->next_start_ns = now_ns;
	for (i = 0; i < h->nb_sflows; i++)
		h->sflows[i].start_at = now_ns + h->sflows[i].spec->start_ns;
	hs_host_start_due(h, now_ns);
}

/* A flow to us was received completely: start what waited for it. */
static void
hs_rflow_complete(struct hs_host *h, struct hs_rflow *r, uint64_t now)
{
	int32_t si;

	r->done_ns = now;
	h->nb_rx_done++;
	for (si = h->first_child[r->spec->id]; si >= 0;
	     si = h->next_child[si]) {
		struct hs_sflow *s = &h->sflows[si];
		uint64_t at = h->t0 + s->spec->start_ns;

		if (s->state != HS_WAITING)
			continue;
		if (at <= now) {
			hs_flow_activate(h, (uint32_t)si, now);
		} else {
			/* Released, but not before its own start time. */
			s->start_at = at;
			if (at < h->next_start_ns)
				h->next_start_ns = at;
		}
	}
}

static void
hs_queue_ack(struct hs_host *h, uint32_t flow, uint16_t ev,
	     const struct hs_ack_info *info)
{
	struct hs_ack_req *a;

	if (h->ack_tail - h->ack_head >= HS_ACK_RING)
		return;	/* overflow: the sender's timer recovers */
	a = &h->acks[h->ack_tail++ & (HS_ACK_RING - 1)];
	a->flow = flow;
	a->echo_ev = ev;
	a->info = *info;
}

static void
hs_input_data(struct hs_host *h, const uint8_t *frame,
	      const struct ofan_pkt_info *pi, uint64_t now)
{
	uint32_t flow = pi->dest_qp - HS_QP_OFFSET;
	struct hs_ack_info ack;
	struct hs_rflow *r;
	bool send_ack = false;
	bool ce = (pi->tos & OFAN_ECN_MASK) == OFAN_ECN_CE;

	if (pi->dest_qp < HS_QP_OFFSET || flow >= h->traffic->nb_flows ||
	    h->rflow_of[flow] < 0) {
		h->st.unknown_flow++;
		return;
	}
	r = &h->rflows[h->rflow_of[flow]];
	if (pi->src_ip != r->src_ip) {
		h->st.unknown_flow++;
		return;
	}
	if (h->cfg->verify_payload &&
	    (ofan_payload_check(frame + pi->payload_offset, pi->dest_qp,
				pi->psn, pi->payload_size) != 0 ||
	     pi->psn >= r->rx.nb_pkts ||
	     pi->payload_size != (pi->psn + 1 == r->rx.nb_pkts ?
		r->spec->size - (uint64_t)pi->psn * h->cfg->mss :
		h->cfg->mss))) {
		/* Corrupt: not delivered, not acknowledged; the run fails. */
		r->corrupt++;
		h->st.corrupt_pkts++;
		return;
	}
	if (hs_rx_on_data(&r->rx, pi->psn, ce, &send_ack, &ack)) {
		h->st.goodput_bytes += pi->payload_size;
		if (hs_rx_done(&r->rx))
			hs_rflow_complete(h, r, now);
	} else {
		h->st.dup_pkts++;
	}
	if (send_ack)
		hs_queue_ack(h, flow, pi->src_port, &ack);
}

static void
hs_flow_done(struct hs_host *h, struct hs_sflow *s, uint64_t now)
{
	uint32_t i;

	s->state = HS_DONE;
	s->done_ns = now;
	h->nb_done++;
	for (i = 0; i < h->nb_active; i++)
		if (&h->sflows[h->active[i]] == s) {
			h->active[i] = h->active[--h->nb_active];
			break;
		}
	if (h->rr >= h->nb_active)
		h->rr = 0;
}

static void
hs_input_ack(struct hs_host *h, const uint8_t *frame,
	     const struct ofan_pkt_info *pi, uint64_t now)
{
	const struct hs_config *c = h->cfg;
	uint32_t flow = pi->dest_qp - HS_QP_OFFSET;
	const struct ofan_ack_ext *ext;
	struct hs_sflow *s;
	uint64_t rtt = 0, sack;
	uint32_t newly, cum, echo_psn;
	uint16_t ev;
	bool ce;

	h->st.acks_received++;
	if (pi->dest_qp < HS_QP_OFFSET || flow >= h->traffic->nb_flows ||
	    h->sflow_of[flow] < 0) {
		h->st.unknown_flow++;
		return;
	}
	s = &h->sflows[h->sflow_of[flow]];
	if (s->state != HS_ACTIVE)
		return;	/* a late ACK of a finished flow */
	ext = (const struct ofan_ack_ext *)(frame + pi->payload_offset +
					    OFAN_AETH_SIZE);
	ev = rte_be_to_cpu_16(ext->echo_ev);
	ce = (ext->flags & OFAN_ACK_F_CE) != 0;
	echo_psn = rte_be_to_cpu_32(ext->echo_psn);
	cum = rte_be_to_cpu_32(ext->cum_psn);
	memcpy(&sack, &ext->sack, sizeof(sack));
	sack = rte_be_to_cpu_64(sack);
	newly = hs_tx_on_ack(&s->tx, cum, sack, echo_psn, ce, now, &rtt);
	hs_pacer_wake(h, now);
	s->acks++;
	s->ce_acks += ce;
	c->policy->on_ack(s->lb, &c->hlb, &h->rng, ev, ce, rtt, now);
	if (c->cc == HS_CC_ECN_WINDOW) {
		if (ce)
			s->cwnd = RTE_MAX(1.0, s->cwnd - 0.5);
		else
			s->cwnd = RTE_MIN((double)c->window_pkts,
					  s->cwnd + 1.0 / s->cwnd);
	}
	if (newly != 0 && hs_tx_done(&s->tx))
		hs_flow_done(h, s, now);
}

/* Answer ARP requests for our address (in place: the mbuf is reused). */
static bool
hs_input_arp(struct hs_host *h, struct rte_mbuf *m,
	     const struct ofan_pkt_info *pi)
{
	struct ofan_eth_hdr *eth = rte_pktmbuf_mtod(m, struct ofan_eth_hdr *);
	struct ofan_arp *arp;

	if (pi->arp_oper != OFAN_ARP_OP_REQUEST || pi->arp_tpa != h->ip ||
	    h->nb_arp_reply >= RTE_DIM(h->arp_reply))
		return false;
	arp = rte_pktmbuf_mtod_offset(m, struct ofan_arp *, pi->l3_offset);
	memcpy(eth->dst, pi->arp_sha, 6);
	memcpy(eth->src, h->mac, 6);
	arp->oper = rte_cpu_to_be_16(OFAN_ARP_OP_REPLY);
	memcpy(arp->tha, pi->arp_sha, 6);
	arp->tpa = rte_cpu_to_be_32(pi->arp_spa);
	memcpy(arp->sha, h->mac, 6);
	arp->spa = rte_cpu_to_be_32(h->ip);
	h->arp_reply[h->nb_arp_reply++] = m;
	h->st.arp_replies++;
	return true;
}

void
hs_host_input(struct hs_host *h, struct rte_mbuf **pkts, uint16_t n,
	      uint64_t now_ns)
{
	struct ofan_pkt_info pi;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *frame;
		int v;

		h->st.rx_pkts++;
		h->st.rx_bytes += m->pkt_len;
		if (unlikely(m->nb_segs != 1)) {
			/* Hosts send single-segment frames; so must peers. */
			h->st.drops[OFAN_DROP_BAD_TOTAL_LENGTH]++;
			rte_pktmbuf_free(m);
			continue;
		}
		frame = rte_pktmbuf_mtod(m, const uint8_t *);
		v = ofan_parse(frame, rte_pktmbuf_data_len(m),
			       OFAN_PARSE_F_NO_TTL_CHECK, &pi);
		if (v != OFAN_PARSE_OK) {
			h->st.drops[v]++;
		} else if (pi.kind == OFAN_KIND_ARP) {
			if (hs_input_arp(h, m, &pi))
				continue;	/* the mbuf is the reply */
		} else if (pi.dst_ip != h->ip ||
			   pi.dst_port != OFAN_UDP_PORT_ROCEV2) {
			h->st.drops[OFAN_DROP_NOT_FOR_US]++;
		} else if (pi.kind == OFAN_KIND_DATA) {
			hs_input_data(h, frame, &pi, now_ns);
		} else if (pi.kind == OFAN_KIND_ACK) {
			hs_input_ack(h, frame, &pi, now_ns);
		}
		rte_pktmbuf_free(m);
	}
}

static void
hs_fill_spec(const struct hs_host *h, struct ofan_pkt_spec *sp,
	     uint32_t dst_ip, uint16_t ev, uint32_t flow, uint32_t psn)
{
	memset(sp, 0, sizeof(*sp));
	memcpy(sp->src_mac, h->mac, 6);
	memcpy(sp->dst_mac, h->dst_mac, 6);
	sp->src_ip = h->ip;
	sp->dst_ip = dst_ip;
	sp->ev = ev;
	sp->ttl = 64;
	sp->dest_qp = flow + HS_QP_OFFSET;
	sp->psn = psn;
}

static struct rte_mbuf *
hs_build_ack(struct hs_host *h, const struct hs_ack_req *a)
{
	const struct hs_flow_spec *f = &h->traffic->flows[a->flow];
	struct ofan_ack_ext ext = {
		.echo_ev = a->echo_ev,
		.flags = a->info.ce ? OFAN_ACK_F_CE : 0,
		.echo_psn = a->info.echo_psn,
		.cum_psn = a->info.cum_psn,
		.sack = a->info.sack,
	};
	struct ofan_pkt_spec sp;
	struct rte_mbuf *m = rte_pktmbuf_alloc(h->pool);
	int len;

	if (m == NULL)
		return NULL;
	/* ACKs reuse the data packet's EV: same path class back. */
	hs_fill_spec(h, &sp, hs_rank_ip(h->cfg, f->src), a->echo_ev, a->flow,
		     a->info.echo_psn);
	sp.tos = h->cfg->ecn;
	len = ofan_build_ack(rte_pktmbuf_mtod(m, uint8_t *),
			     rte_pktmbuf_tailroom(m), &sp, &ext);
	if (len < 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	if (len < 60) {
		memset(rte_pktmbuf_mtod_offset(m, uint8_t *, len), 0, 60 - len);
		len = 60;	/* Ethernet minimum (without FCS) */
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	return m;
}

static struct rte_mbuf *
hs_build_arp_announce(struct hs_host *h)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct rte_mbuf *m = rte_pktmbuf_alloc(h->pool);
	int len;

	if (m == NULL)
		return NULL;
	/* Gratuitous ARP request: switches learn our MAC from it. */
	len = ofan_build_arp(rte_pktmbuf_mtod(m, uint8_t *),
			     rte_pktmbuf_tailroom(m), OFAN_ARP_OP_REQUEST,
			     h->mac, h->ip, NULL, h->ip);
	if (len < 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(rte_pktmbuf_mtod(m, struct ofan_eth_hdr *)->dst, bcast, 6);
	memset(rte_pktmbuf_mtod_offset(m, uint8_t *, len), 0, 60 - len);
	m->data_len = 60;
	m->pkt_len = 60;
	return m;
}

/* Retransmission timers of active flows (scanned when the earliest is due). */
static void
hs_host_timers(struct hs_host *h, uint64_t now)
{
	const struct hs_config *c = h->cfg;
	uint64_t next = UINT64_MAX;
	uint32_t i;

	if (now < h->timer_ns)
		return;
	for (i = 0; i < h->nb_active; i++) {
		struct hs_sflow *s = &h->sflows[h->active[i]];

		if (hs_tx_check_timeout(&s->tx, now)) {
			hs_pacer_wake(h, now);
			h->st.timeouts++;
			c->policy->on_timeout(s->lb, &c->hlb, &h->rng, now);
			if (c->cc == HS_CC_ECN_WINDOW)
				s->cwnd = 1.0;
		}
		next = RTE_MIN(next, hs_tx_timer_ns(&s->tx));
	}
	h->timer_ns = next;
}

/*
 * The next data packet, round robin over flows that may send.  NULL with
 * *wire_bytes 0: nothing may be sent; NULL with *wire_bytes 1: no mbuf.
 */
static struct rte_mbuf *
hs_next_data(struct hs_host *h, uint64_t now, uint32_t *wire_bytes)
{
	const struct hs_config *c = h->cfg;
	uint32_t tries;

	for (tries = 0; tries < h->nb_active; tries++) {
		struct hs_sflow *s;
		struct ofan_pkt_spec sp;
		struct rte_mbuf *m;
		uint32_t psn;
		uint16_t ev, off;
		int len;

		if (h->rr >= h->nb_active)
			h->rr = 0;
		s = &h->sflows[h->active[h->rr++]];
		psn = hs_tx_next(&s->tx);
		if (psn == HS_PSN_NONE)
			continue;
		if (c->cc == HS_CC_ECN_WINDOW &&
		    hs_tx_in_flight(&s->tx) >= (uint32_t)s->cwnd &&
		    psn >= s->tx.next_new)
			continue;
		m = rte_pktmbuf_alloc(h->pool);
		if (m == NULL) {
			h->st.alloc_failed++;
			*wire_bytes = 1;
			return NULL;
		}
		ev = c->policy->next_ev(s->lb, &c->hlb, &h->rng, now);
		off = (uint16_t)(ev - c->hlb.ev_min);
		if (off <= hs_ev_range(c) &&
		    !(s->evs_seen[off / 64] & (1ull << (off % 64)))) {
			s->evs_seen[off / 64] |= 1ull << (off % 64);
			s->distinct_evs++;
		}
		sp.payload_size = hs_tx_payload_size(&s->tx, psn);
		if (likely(sp.payload_size == c->mss &&
			   rte_pktmbuf_tailroom(m) >= OFAN_DATA_HDRS_SIZE +
			   c->mss)) {
			len = hs_build_full(s, rte_pktmbuf_mtod(m, uint8_t *),
					    ev, psn, c->mss);
		} else {
			uint16_t size = sp.payload_size;

			hs_fill_spec(h, &sp, s->dst_ip, ev, s->spec->id, psn);
			sp.tos = c->ecn;
			sp.payload_size = size;
			len = ofan_build_data(rte_pktmbuf_mtod(m, uint8_t *),
					      rte_pktmbuf_tailroom(m), &sp);
		}
		if (len < 0) {
			rte_pktmbuf_free(m);
			h->st.alloc_failed++;
			*wire_bytes = 1;
			return NULL;
		}
		if (len < 60) {
			memset(rte_pktmbuf_mtod_offset(m, uint8_t *, len), 0,
			       60 - len);
			len = 60;
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
		if (s->tx.nb_tx[psn] != 0)
			h->st.data_retx++;
		hs_tx_sent(&s->tx, psn, now);
		h->st.data_sent++;
		if (h->timer_ns > hs_tx_timer_ns(&s->tx))
			h->timer_ns = hs_tx_timer_ns(&s->tx);
		*wire_bytes = (uint32_t)len + HS_WIRE_OVERHEAD;
		return m;
	}
	return NULL;
}

uint16_t
hs_host_output(struct hs_host *h, uint64_t now_ns, struct rte_mbuf **pkts,
	       uint16_t max)
{
	const struct hs_config *c = h->cfg;
	uint64_t rate = (uint64_t)((double)c->rate_bps * c->rate_coef);
	uint16_t n = 0;

	if (!h->started)
		return 0;
	while (n < max && h->nb_arp_reply > 0)
		pkts[n++] = h->arp_reply[--h->nb_arp_reply];
	if (h->announce && n < max) {
		struct rte_mbuf *m = hs_build_arp_announce(h);

		if (m != NULL) {
			pkts[n++] = m;
			h->announce = false;
		}
	}
	while (n < max && h->ack_head != h->ack_tail) {
		struct rte_mbuf *m = hs_build_ack(h,
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
	/* Data: every slot of the pacer that has come. */
	while (n < max && !h->pace_blocked && h->pace_ns <= now_ns &&
	       h->nb_active > 0) {
		uint32_t wire = 0;
		struct rte_mbuf *m = hs_next_data(h, now_ns, &wire);

		if (m == NULL && wire == 0) {
			/* Nothing to send: sleep until something changes. */
			h->pace_blocked = true;
			h->pace_ns = now_ns;
			break;
		}
		if (m == NULL) {
			/* Out of mbufs: try again a microsecond later. */
			h->pace_ns = now_ns + OFAN_NS_PER_US;
			break;
		}
		pkts[n++] = m;
		h->pace_ns += ofan_tx_time_ns(wire, rate);
	}
	if (h->pace_ns < now_ns && h->nb_active == 0)
		h->pace_ns = now_ns;
	for (uint16_t i = 0; i < n; i++) {
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
	if (h->ack_head != h->ack_tail || h->nb_arp_reply > 0 || h->announce)
		return 0;
	if (h->nb_active > 0 && !h->pace_blocked)
		t = RTE_MIN(t, h->pace_ns);
	return t;
}

bool
hs_host_tx_done(const struct hs_host *h)
{
	return h->nb_done == h->nb_sflows;
}

bool
hs_host_rx_done(const struct hs_host *h)
{
	return h->nb_rx_done == h->nb_rflows;
}

const struct hs_host_stats *
hs_host_stats(const struct hs_host *h)
{
	return &h->st;
}

uint32_t
hs_host_rank(const struct hs_host *h)
{
	return h->rank;
}

void
hs_host_progress(const struct hs_host *h, uint64_t *acked_bytes,
		 uint64_t *total_bytes)
{
	uint64_t acked = 0;
	uint32_t i;

	for (i = 0; i < h->nb_sflows; i++) {
		const struct hs_sflow *s = &h->sflows[i];

		if (s->state == HS_DONE)
			acked += s->spec->size;
		else if (s->state == HS_ACTIVE)
			acked += RTE_MIN(s->spec->size,
					 (uint64_t)s->tx.nb_acked * h->cfg->mss);
	}
	*acked_bytes = acked;
	*total_bytes = h->total_bytes;
}

bool
hs_host_flow_result(const struct hs_host *h, uint32_t id,
		    struct hs_flow_result *r)
{
	bool touched = false;

	r->id = id;
	if (id >= h->traffic->nb_flows)
		return false;
	if (h->sflow_of[id] >= 0) {
		const struct hs_sflow *s = &h->sflows[h->sflow_of[id]];

		r->sent_here = true;
		r->start_ns = s->state != HS_WAITING ? s->start_ns - h->t0 : 0;
		r->done_ns = s->state == HS_DONE ? s->done_ns - h->t0 : 0;
		r->pkts_sent = s->tx.nb_sent;
		r->retx = s->tx.nb_retx;
		r->timeouts = s->tx.nb_timeouts;
		r->acks = s->acks;
		r->ce_acks = s->ce_acks;
		r->distinct_evs = s->distinct_evs;
		touched = true;
	}
	if (h->rflow_of[id] >= 0) {
		const struct hs_rflow *f = &h->rflows[h->rflow_of[id]];

		r->received_here = true;
		r->rx_done_ns = f->done_ns ? f->done_ns - h->t0 : 0;
		r->max_reorder = f->rx.max_reorder;
		r->dups = f->rx.nb_dups;
		r->ce_pkts = f->rx.nb_ce;
		r->corrupt = f->corrupt;
		touched = true;
	}
	return touched;
}

void
hs_host_policy_dump(const struct hs_host *h,
		    void (*emit)(void *arg, const char *key, uint64_t value),
		    void *arg)
{
	uint32_t i;

	if (h->cfg->policy->dump == NULL)
		return;
	for (i = 0; i < h->nb_sflows; i++)
		h->cfg->policy->dump(h->sflows[i].lb, emit, arg);
}
