/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host engine: flows, pacing, ACKs, timers.  See hs_host.h.
 *
 * A sent flow is WAITING (for its start time, the reception of the flow
 * it depends on, or its trigger), ACTIVE, then DONE.  Its packets come
 * from its transport (hs_transport.h) when a pacer slot comes:
 *   - pacing = host: one slot stream at the host's rate, handed round
 *     robin to the active flows that can send;
 *   - pacing = flow: a slot stream per flow at its own rate, the flows
 *     due ordered in a heap by (slot time, flow index).
 * A flow that cannot send at its slot (everything out, waiting for ACKs
 * or timers) is blocked: its pacer sleeps until an ACK, a timer or its
 * activation wakes it, and banks no credit meanwhile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "hlb.h"
#include "hs_frames.h"
#include "hs_host.h"
#include "hs_transport.h"
#include "ofan_clock.h"
#include "ofan_parse.h"
#include "ofan_rng.h"
#include "ofan_wire.h"

#define HS_ACK_RING 4096	/* pending ACKs (power of two) */
#define HS_NOT_IN_HEAP UINT32_MAX

enum hs_sflow_state { HS_WAITING = 0, HS_ACTIVE, HS_DONE };

/* A flow this host sends. */
struct hs_sflow {
	const struct hs_flow_spec *spec;
	struct hs_frame_tmpl tmpl;
	struct hs_sender tx;
	void *lb;		/* policy state */
	uint64_t *evs_seen;	/* bitmap over the EV range */
	uint32_t distinct_evs;
	uint32_t nic_slot;
	uint8_t state;
	bool blocked;		/* pacing = flow: its pacer sleeps */
	uint64_t start_at;	/* absolute, for flows without a dependency */
	uint64_t start_ns;	/* absolute, when it began */
	uint64_t done_ns;
	double cwnd;		/* ECN window mode */
	uint64_t acks;
	uint64_t ce_acks;
	/* pacing = flow */
	uint64_t pace_at;	/* its next slot */
	uint32_t heap_pos;	/* in h->heap, HS_NOT_IN_HEAP */
};

/* A flow this host receives. */
struct hs_rflow {
	const struct hs_flow_spec *spec;
	struct hs_receiver rx;
	uint32_t src_ip;
	uint32_t nic_slot;
	uint64_t done_ns;
	uint64_t goodput;	/* payload bytes delivered, at most size */
	uint64_t corrupt;
};

struct hs_host {
	const struct hs_config *cfg;
	/* cfg's path facts with its policy's settings (cfg->hlb_set). */
	struct hlb_params hlb;
	const struct hs_traffic *traffic;
	struct hs_transport_params tp;
	uint32_t rank;
	uint32_t ip;
	struct hs_frame_ctx fx;
	struct rte_mempool *pool;
	struct ofan_rng rng;
	uint64_t rate_bps;	/* rate x rate_coef */
	uint64_t t0;
	bool started;
	bool announce;		/* a gratuitous ARP is due */
	bool no_announce;	/* never send one */
	/* Erasure recovery and a policy with on_path_timeout: the senders
	 * keep per-EV timers for it, and its on_timeout is not called. */
	bool path_timers;
	void (*on_flow_end)(void *arg, uint32_t flow, bool received,
			    uint64_t now_ns);
	void *on_flow_end_arg;
	bool (*nic_full)(void *arg, uint32_t slot);
	void *nic_arg;
	int32_t *slot_sflow;	/* NIC slot -> sflow index, -1 */

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

	/* pacing = host */
	uint64_t pace_ns;	/* the pacer's next slot */
	/*
	 * No active flow could send at the last slot (all in flight, or
	 * waiting for ACKs or timers): the pacer sleeps until an ACK, a
	 * timer or a new flow wakes it, instead of asking for every ns.
	 */
	bool pace_blocked;
	/* pacing = flow: a min-heap of sflow indexes by (pace_at, index). */
	uint32_t *heap;
	uint32_t nb_heap;

	uint64_t timer_ns;	/* earliest transport timer */
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

/* ---- the per-flow pacers' heap ---- */

static inline bool
hs_heap_before(const struct hs_host *h, uint32_t a, uint32_t b)
{
	const struct hs_sflow *x = &h->sflows[a], *y = &h->sflows[b];

	return x->pace_at != y->pace_at ? x->pace_at < y->pace_at : a < b;
}

static inline void
hs_heap_set(struct hs_host *h, uint32_t pos, uint32_t si)
{
	h->heap[pos] = si;
	h->sflows[si].heap_pos = pos;
}

static void
hs_heap_up(struct hs_host *h, uint32_t pos)
{
	uint32_t si = h->heap[pos];

	while (pos > 0 && hs_heap_before(h, si, h->heap[(pos - 1) / 2])) {
		hs_heap_set(h, pos, h->heap[(pos - 1) / 2]);
		pos = (pos - 1) / 2;
	}
	hs_heap_set(h, pos, si);
}

static void
hs_heap_down(struct hs_host *h, uint32_t pos)
{
	uint32_t si = h->heap[pos], c;

	for (;;) {
		c = 2 * pos + 1;
		if (c >= h->nb_heap)
			break;
		if (c + 1 < h->nb_heap &&
		    hs_heap_before(h, h->heap[c + 1], h->heap[c]))
			c++;
		if (!hs_heap_before(h, h->heap[c], si))
			break;
		hs_heap_set(h, pos, h->heap[c]);
		pos = c;
	}
	hs_heap_set(h, pos, si);
}

static void
hs_heap_push(struct hs_host *h, uint32_t si)
{
	if (h->sflows[si].heap_pos != HS_NOT_IN_HEAP)
		return;
	h->heap[h->nb_heap] = si;
	h->sflows[si].heap_pos = h->nb_heap++;
	hs_heap_up(h, h->nb_heap - 1);
}

static void
hs_heap_remove(struct hs_host *h, uint32_t si)
{
	uint32_t pos = h->sflows[si].heap_pos, last;

	if (pos == HS_NOT_IN_HEAP)
		return;
	h->sflows[si].heap_pos = HS_NOT_IN_HEAP;
	last = h->heap[--h->nb_heap];
	if (pos == h->nb_heap)
		return;
	hs_heap_set(h, pos, last);
	hs_heap_down(h, pos);
	hs_heap_up(h, h->sflows[last].heap_pos);
}

/* ---- set-up ---- */

static int
hs_host_alloc(struct hs_host *h, const struct hs_traffic *t, char *err,
	      unsigned int err_size)
{
	const struct hs_config *c = h->cfg;
	uint32_t i, ns = 0, nr = 0, slot = 0;
	size_t ev_words = ((size_t)hs_ev_range(c) + 1 + 63) / 64;

	for (i = 0; i < t->nb_flows; i++) {
		ns += t->flows[i].src == h->rank;
		nr += t->flows[i].dst == h->rank;
	}
	h->sflows = calloc(ns ? ns : 1, sizeof(*h->sflows));
	h->rflows = calloc(nr ? nr : 1, sizeof(*h->rflows));
	h->active = calloc(ns ? ns : 1, sizeof(*h->active));
	h->heap = calloc(ns ? ns : 1, sizeof(*h->heap));
	h->sflow_of = malloc(sizeof(int32_t) * (t->nb_flows + 1));
	h->rflow_of = malloc(sizeof(int32_t) * (t->nb_flows + 1));
	h->first_child = malloc(sizeof(int32_t) * (t->nb_flows + 1));
	h->next_child = malloc(sizeof(int32_t) * (ns + 1));
	h->slot_sflow = malloc(sizeof(int32_t) * (ns + nr + 1));
	if (h->sflows == NULL || h->rflows == NULL || h->active == NULL ||
	    h->heap == NULL || h->sflow_of == NULL || h->rflow_of == NULL ||
	    h->first_child == NULL || h->next_child == NULL ||
	    h->slot_sflow == NULL)
		goto nomem;
	for (i = 0; i < ns + nr + 1; i++)
		h->slot_sflow[i] = -1;
	for (i = 0; i < t->nb_flows; i++) {
		h->sflow_of[i] = -1;
		h->rflow_of[i] = -1;
		h->first_child[i] = -1;
	}
	/* In flow id order: the NIC slots follow it (hs_host_nic_slots). */
	for (i = 0; i < t->nb_flows; i++) {
		const struct hs_flow_spec *f = &t->flows[i];

		if (f->src == h->rank) {
			struct hs_sflow *s = &h->sflows[h->nb_sflows];

			s->spec = f;
			h->slot_sflow[slot] = (int32_t)h->nb_sflows;
			s->nic_slot = slot++;
			s->heap_pos = HS_NOT_IN_HEAP;
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

			r->spec = f;
			r->nic_slot = slot++;
			r->src_ip = hs_rank_ip(c, f->src);
			if (hs_receiver_init(&r->rx, &h->tp, f->size,
					     c->ack_every) != 0)
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
	const struct hs_config *c = p->cfg;
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
	h->cfg = c;
	h->hlb = c->hlb;
	h->hlb.settings = hlb_settings_of(&c->hlb_set, c->policy);
	h->traffic = p->traffic;
	h->rank = p->rank;
	h->ip = hs_rank_ip(c, p->rank);
	h->fx.cfg = c;
	h->fx.ip = h->ip;
	memcpy(h->fx.mac, p->mac, 6);
	memcpy(h->fx.dst_mac, p->dst_mac, 6);
	h->pool = p->pool;
	h->no_announce = p->no_announce;
	h->on_flow_end = p->on_flow_end;
	h->on_flow_end_arg = p->on_flow_end_arg;
	h->nic_full = p->nic_full;
	h->nic_arg = p->nic_arg;
	h->rate_bps = (uint64_t)((double)c->rate_bps * c->rate_coef);
	h->tp = (struct hs_transport_params){
		.mode = c->recovery,
		.mss = c->mss,
		.erasure_k = c->erasure_k,
		.reorder_window_ns = c->reorder_window_ns,
		.rto_ns = RTE_MAX(c->min_rto_ns, 2 * c->base_rtt_ns),
		.min_rto_ns = c->min_rto_ns,
		.base_rtt_ns = c->base_rtt_ns,
	};
	h->path_timers = c->recovery == HS_RECOVERY_ERASURE &&
		c->policy->on_path_timeout != NULL;
	ofan_rng_seed(&h->rng, c->seed, 0x40570000ull + p->rank);
	h->timer_ns = UINT64_MAX;
	h->next_start_ns = UINT64_MAX;
	if (hs_host_alloc(h, p->traffic, err, err_size) != 0) {
		hs_host_free(h);
		return NULL;
	}
	h->fx.arp_slot = hs_host_nic_slots(h) - 1;
	return h;
}

void
hs_host_free(struct hs_host *h)
{
	uint32_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nb_sflows; i++) {
		if (h->sflows[i].state != HS_WAITING)
			hs_sender_fini(&h->sflows[i].tx);
		free(h->sflows[i].lb);
		free(h->sflows[i].evs_seen);
	}
	for (i = 0; i < h->nb_rflows; i++)
		hs_receiver_fini(&h->rflows[i].rx);
	for (i = 0; i < h->nb_arp_reply; i++)
		rte_pktmbuf_free(h->arp_reply[i]);
	free(h->sflows);
	free(h->rflows);
	free(h->active);
	free(h->heap);
	free(h->sflow_of);
	free(h->rflow_of);
	free(h->first_child);
	free(h->next_child);
	free(h->slot_sflow);
	free(h);
}

/* ---- pacing ---- */

/* The gap after a packet of wire bytes of flow s (pacing = flow). */
static inline uint64_t
hs_flow_gap(const struct hs_host *h, const struct hs_sflow *s, uint32_t wire)
{
	const uint32_t *c = h->traffic->concurrency;
	uint32_t conc = c != NULL ? c[s->spec->id] : 1;

	return (uint64_t)(conc ? conc : 1) * ofan_tx_time_ns(wire, h->rate_bps);
}

/* A random extra of 0 .. pacing_jitter of gap (htsim's: never negative). */
static inline uint64_t
hs_jitter(struct hs_host *h, uint64_t gap)
{
	if (h->cfg->pacing_jitter <= 0)
		return 0;
	return (uint64_t)(ofan_rng_unit(&h->rng) * h->cfg->pacing_jitter *
			  (double)gap);
}

/* Something may have become sendable for s: its pacer wakes. */
static inline void
hs_wake(struct hs_host *h, uint32_t si, uint64_t now)
{
	struct hs_sflow *s = &h->sflows[si];

	if (h->cfg->pacing == HS_PACING_FLOW) {
		if (s->state != HS_ACTIVE || !s->blocked)
			return;
		s->blocked = false;
		if (s->pace_at < now)
			s->pace_at = now;	/* an idle pacer banks no credit */
		hs_heap_push(h, si);
	} else if (h->pace_blocked) {
		h->pace_blocked = false;
		if (h->pace_ns < now)
			h->pace_ns = now;
	}
}

/* ---- flows ---- */

/* A flow becomes active: transport state, policy state, pacing. */
static void
hs_flow_activate(struct hs_host *h, uint32_t si, uint64_t now)
{
	const struct hs_config *c = h->cfg;
	struct hs_sflow *s = &h->sflows[si];
	uint64_t gap;

	if (hs_sender_init(&s->tx, &h->tp, s->spec->size, now) != 0) {
		/* Out of memory: the flow never completes; the run fails. */
		hs_sender_fini(&s->tx);
		s->state = HS_DONE;
		h->st.alloc_failed++;
		return;
	}
	c->policy->init(s->lb, &h->hlb, &h->rng, now);
	hs_frame_template(&h->fx, &s->tmpl, s->spec, s->nic_slot);
	s->cwnd = c->window_pkts;
	s->state = HS_ACTIVE;
	s->start_ns = now;
	h->active[h->nb_active++] = si;
	if (c->pacing == HS_PACING_FLOW) {
		/* The first slot at a random offset within the first gap. */
		gap = hs_flow_gap(h, s, hs_frame_wire_size(&s->tmpl,
			hs_sender_payload(&s->tx, 0)));
		s->pace_at = now + (gap > 1 ? ofan_rng_below(&h->rng,
			(uint32_t)RTE_MIN(gap, (uint64_t)UINT32_MAX)) : 0);
		s->start_ns = s->pace_at;
		s->blocked = true;
		hs_wake(h, si, s->pace_at);
		return;
	}
	if (h->nb_active == 1 && h->pace_ns < now)
		h->pace_ns = now;	/* an idle pacer banks no credit */
	hs_wake(h, si, now);
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

		if (s->state != HS_WAITING || s->spec->dep != HS_NO_DEP ||
		    s->spec->trigger != HS_NO_TRIGGER)
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

bool
hs_host_release(struct hs_host *h, uint32_t flow, uint64_t now_ns)
{
	struct hs_sflow *s;

	if (!h->started || flow >= h->traffic->nb_flows ||
	    h->sflow_of[flow] < 0)
		return false;
	s = &h->sflows[h->sflow_of[flow]];
	if (s->state != HS_WAITING || s->spec->trigger == HS_NO_TRIGGER)
		return false;
	hs_flow_activate(h, (uint32_t)h->sflow_of[flow], now_ns);
	return true;
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
	if (r->spec->recv_done_trigger != HS_NO_TRIGGER &&
	    h->on_flow_end != NULL)
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
	q->flow = r->spec->id;
	q->src = r->spec->src;
	q->nic_slot = r->nic_slot;
	q->echo_ev = ev;
	q->count = h->tp.mode == HS_RECOVERY_ERASURE;
	q->a = *a;
}

static void
hs_input_data(struct hs_host *h, const uint8_t *frame,
	      const struct ofan_pkt_info *pi, uint64_t now)
{
	uint32_t flow = pi->dest_qp - HS_QP_OFFSET;
	const struct hs_flow_spec *f;
	struct hs_ack_content ack;
	struct hs_rflow *r;
	bool send_ack = false;
	bool ce = (pi->tos & OFAN_ECN_MASK) == OFAN_ECN_CE;
	uint64_t add;

	if (pi->dest_qp < HS_QP_OFFSET || flow >= h->traffic->nb_flows ||
	    h->rflow_of[flow] < 0) {
		h->st.unknown_flow++;
		return;
	}
	r = &h->rflows[h->rflow_of[flow]];
	f = r->spec;
	if (pi->src_ip != r->src_ip) {
		h->st.unknown_flow++;
		return;
	}
	if (h->cfg->verify_payload &&
	    (pi->payload_size == 0 ||
	     pi->payload_size != hs_receiver_expect(&r->rx, pi->psn, f->size,
						    h->cfg->mss) ||
	     ofan_payload_check(frame + pi->payload_offset, pi->dest_qp,
				pi->psn, pi->payload_size) != 0)) {
		/* Corrupt: not delivered, not acknowledged; the run fails. */
		r->corrupt++;
		h->st.corrupt_pkts++;
		return;
	}
	if (hs_receiver_on_data(&r->rx, pi->psn, ce, &send_ack, &ack)) {
		add = RTE_MIN((uint64_t)pi->payload_size, f->size - r->goodput);
		r->goodput += add;
		h->st.goodput_bytes += add;
		if (r->done_ns == 0 && hs_receiver_done(&r->rx))
			hs_rflow_complete(h, r, now);
	} else {
		h->st.dup_pkts++;
	}
	if (send_ack)
		hs_queue_ack(h, r, pi->src_port, &ack);
}

static void
hs_flow_done(struct hs_host *h, uint32_t si, uint64_t now)
{
	struct hs_sflow *s = &h->sflows[si];
	uint32_t i;

	s->state = HS_DONE;
	s->done_ns = now;
	h->nb_done++;
	hs_heap_remove(h, si);
	for (i = 0; i < h->nb_active; i++)
		if (h->active[i] == si) {
			h->active[i] = h->active[--h->nb_active];
			break;
		}
	if (h->rr >= h->nb_active)
		h->rr = 0;
	if (s->spec->send_done_trigger != HS_NO_TRIGGER &&
	    h->on_flow_end != NULL)
		h->on_flow_end(h->on_flow_end_arg, s->spec->id, false, now);
}

static void
hs_input_ack(struct hs_host *h, const uint8_t *frame,
	     const struct ofan_pkt_info *pi, uint64_t now)
{
	const struct hs_config *c = h->cfg;
	uint32_t flow = pi->dest_qp - HS_QP_OFFSET, si;
	const struct ofan_ack_ext *ext;
	struct hs_ack_content a;
	struct hs_sflow *s;
	uint64_t rtt = 0, sack;
	uint16_t ev;
	bool counted;

	h->st.acks_received++;
	if (pi->dest_qp < HS_QP_OFFSET || flow >= h->traffic->nb_flows ||
	    h->sflow_of[flow] < 0) {
		h->st.unknown_flow++;
		return;
	}
	si = (uint32_t)h->sflow_of[flow];
	s = &h->sflows[si];
	if (s->state != HS_ACTIVE)
		return;	/* a late ACK of a finished flow */
	ext = (const struct ofan_ack_ext *)(frame + pi->payload_offset +
					    OFAN_AETH_SIZE);
	counted = (ext->flags & OFAN_ACK_F_COUNT) != 0;
	if (counted != (h->tp.mode == HS_RECOVERY_ERASURE)) {
		h->st.ack_mismatch++;
		return;
	}
	ev = rte_be_to_cpu_16(ext->echo_ev);
	a.ce = c->ce_echo == HS_CE_ECHO_ACK ?
		(pi->tos & OFAN_ECN_MASK) == OFAN_ECN_CE :
		(ext->flags & OFAN_ACK_F_CE) != 0;
	a.echo_psn = rte_be_to_cpu_32(ext->echo_psn);
	a.cum = rte_be_to_cpu_32(ext->cum_psn);
	memcpy(&sack, &ext->sack, sizeof(sack));
	a.sack = rte_be_to_cpu_64(sack);
	hs_sender_on_ack(&s->tx, &a, now, &rtt);
	if (h->path_timers)
		hs_sender_path_acked(&s->tx, ev);
	hs_wake(h, si, now);
	/* The erasure sender's timers can move earlier with a new RTT. */
	h->timer_ns = RTE_MIN(h->timer_ns, hs_sender_timer_ns(&s->tx));
	s->acks++;
	s->ce_acks += a.ce;
	c->policy->on_ack(s->lb, &h->hlb, &h->rng, ev, a.ce, rtt, now);
	if (c->cc == HS_CC_ECN_WINDOW) {
		if (a.ce)
			s->cwnd = RTE_MAX(1.0, s->cwnd - 0.5);
		else
			s->cwnd = RTE_MIN((double)c->window_pkts,
					  s->cwnd + 1.0 / s->cwnd);
	}
	if (hs_sender_done(&s->tx))
		hs_flow_done(h, si, now);
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
			if (pi.arp_oper == OFAN_ARP_OP_REQUEST &&
			    pi.arp_tpa == h->ip &&
			    h->nb_arp_reply < RTE_DIM(h->arp_reply)) {
				/* The mbuf becomes the reply. */
				hs_frame_arp_reply(&h->fx, m, &pi);
				h->arp_reply[h->nb_arp_reply++] = m;
				h->st.arp_replies++;
				continue;
			}
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

/* ---- output ---- */

/* Transport timers of active flows (scanned when the earliest is due). */
static void
hs_host_timers(struct hs_host *h, uint64_t now)
{
	const struct hs_config *c = h->cfg;
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

		if (hs_sender_check_timeout(&s->tx, now)) {
			h->st.timeouts++;
			if (!h->path_timers)
				c->policy->on_timeout(s->lb, &h->hlb, &h->rng,
						      now);
			if (c->cc == HS_CC_ECN_WINDOW)
				s->cwnd = 1.0;
		}
		if (due)
			hs_wake(h, si, now);
		next = RTE_MIN(next, hs_sender_timer_ns(&s->tx));
	}
	h->timer_ns = next > now ? next : now + 1;
}

/*
 * The next data packet of flow si, if it may send now.  NULL with *wire
 * 0: it may not; NULL with *wire 1: no mbuf.
 */
static struct rte_mbuf *
hs_flow_packet(struct hs_host *h, uint32_t si, uint64_t now, uint32_t *wire)
{
	const struct hs_config *c = h->cfg;
	struct hs_sflow *s = &h->sflows[si];
	struct rte_mbuf *m;
	uint32_t psn;
	uint16_t ev, off;
	int len;

	*wire = 0;
	/* The NIC has no room for this flow: wait for hs_host_nic_room(). */
	if (h->nic_full != NULL && h->nic_full(h->nic_arg, s->nic_slot))
		return NULL;
	psn = hs_sender_next(&s->tx, now);
	if (psn == HS_PSN_NONE) {
		/* The erasure sender may just have begun its one-RTT wait. */
		h->timer_ns = RTE_MIN(h->timer_ns, hs_sender_timer_ns(&s->tx));
		return NULL;
	}
	if (c->cc == HS_CC_ECN_WINDOW &&
	    hs_sender_in_flight(&s->tx) >= (uint32_t)s->cwnd &&
	    hs_sender_is_new(&s->tx, psn))
		return NULL;
	m = rte_pktmbuf_alloc(h->pool);
	if (m == NULL) {
		h->st.alloc_failed++;
		*wire = 1;
		return NULL;
	}
	ev = c->policy->next_ev(s->lb, &h->hlb, &h->rng, now);
	/* A chosen EV whose last packet is overdue: tell, choose again
	 * (each check stops that EV's timer, so this ends). */
	while (h->path_timers && hs_sender_path_expired(&s->tx, ev, now)) {
		c->policy->on_path_timeout(s->lb, &h->hlb, &h->rng, ev, now);
		ev = c->policy->next_ev(s->lb, &h->hlb, &h->rng, now);
	}
	off = (uint16_t)(ev - c->hlb.ev_min);
	if (off <= hs_ev_range(c) &&
	    !(s->evs_seen[off / 64] & (1ull << (off % 64)))) {
		s->evs_seen[off / 64] |= 1ull << (off % 64);
		s->distinct_evs++;
	}
	len = hs_frame_data(&h->fx, &s->tmpl, s->spec, m, ev, psn,
			    hs_sender_payload(&s->tx, psn));
	if (len < 0) {
		rte_pktmbuf_free(m);
		h->st.alloc_failed++;
		*wire = 1;
		return NULL;
	}
	if (hs_sender_is_resend(&s->tx, psn))
		h->st.data_retx++;
	hs_sender_sent(&s->tx, psn, now);
	if (h->path_timers)
		hs_sender_path_sent(&s->tx, ev, now);
	h->st.data_sent++;
	if (h->timer_ns > hs_sender_timer_ns(&s->tx))
		h->timer_ns = hs_sender_timer_ns(&s->tx);
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
		h->pace_ns += ofan_tx_time_ns(wire, h->rate_bps);
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
	if (h->cfg->pacing == HS_PACING_FLOW)
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
	if (h->ack_head != h->ack_tail || h->nb_arp_reply > 0 || h->announce)
		return 0;
	if (h->cfg->pacing == HS_PACING_FLOW) {
		if (h->nb_heap > 0)
			t = RTE_MIN(t, h->sflows[h->heap[0]].pace_at);
	} else if (h->nb_active > 0 && !h->pace_blocked) {
		t = RTE_MIN(t, h->pace_ns);
	}
	return t;
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

/* ---- results ---- */

uint32_t
hs_host_nic_slots(const struct hs_host *h)
{
	return h->nb_sflows + h->nb_rflows + 1;
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
			acked += hs_sender_acked_bytes(&s->tx, s->spec->size);
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
		r->done_ns = s->state == HS_DONE && s->done_ns != 0 ?
			s->done_ns - h->t0 : 0;
		if (s->state != HS_WAITING)
			hs_sender_counters(&s->tx, &r->pkts_sent, &r->retx,
					   &r->timeouts);
		r->acks = s->acks;
		r->ce_acks = s->ce_acks;
		r->distinct_evs = s->distinct_evs;
		touched = true;
	}
	if (h->rflow_of[id] >= 0) {
		const struct hs_rflow *f = &h->rflows[h->rflow_of[id]];

		r->received_here = true;
		r->rx_done_ns = f->done_ns ? f->done_ns - h->t0 : 0;
		r->rx_pkts = hs_receiver_count(&f->rx);
		hs_receiver_counters(&f->rx, &r->max_reorder, &r->dups,
				     &r->ce_pkts);
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
