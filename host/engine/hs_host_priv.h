/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the host engine: its state, the per-flow pacers' heap and the
 * pacing helpers that hs_host.c (set-up, flows, results), hs_host_rx.c
 * (input: data, ACKs, ARP) and hs_host_tx.c (output: timers, packets,
 * pacing) share.  Not an interface: everyone else uses hs_host.h.
 */
#ifndef OFAN_HS_HOST_PRIV_H
#define OFAN_HS_HOST_PRIV_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "hlb.h"
#include "hs_frames.h"
#include "hs_rccc.h"
#include "hs_host.h"
#include "hs_transport.h"
#include "ofan_clock.h"
#include "ofan_parse.h"
#include "ofan_rng.h"
#include "ofan_wire.h"

#define HS_ACK_RING 4096	/* pending ACKs (power of two) */
#define HS_NOT_IN_HEAP UINT32_MAX

/* HS_FOREIGN: another shard of the rank sends it (hs_host_shard). */
enum hs_sflow_state { HS_WAITING = 0, HS_ACTIVE, HS_DONE, HS_FOREIGN };

/* A flow this host sends. */
struct hs_sflow {
	const struct hs_flow_spec *spec;
	struct hs_frame_tmpl tmpl;
	/*
	 * Its transport state, policy state and EV bitmap live while it is
	 * sent (hs_flow_activate() to hs_flow_done()): a long run of many
	 * flows holds memory for the ones in flight only.  tx's counters
	 * stay valid after (hs_sender_fini() frees only its arrays).
	 */
	struct hs_sender tx;
	void *lb;		/* policy state, NULL when not sent now */
	uint64_t *evs_seen;	/* bitmap over the EV range, likewise */
	uint32_t distinct_evs;
	uint32_t nic_slot;
	uint8_t state;
	bool ev_kept;		/* resend_path = next: kept_ev is the next one */
	uint16_t kept_ev;
	bool complete;		/* acknowledged in full (HS_DONE: or failed) */
	bool released;		/* its dependency arrived; it waits for start_at */
	bool blocked;		/* pacing = flow: its pacer sleeps */
	uint64_t start_at;	/* absolute, for flows without a dependency */
	uint64_t start_ns;	/* absolute, when it began */
	uint64_t done_ns;
	struct hs_cc_state cc;	/* its congestion control's (hs_cc.h) */
	/*
	 * A receiver-driven cc held it back with nothing out: when its
	 * credit is given up for lost (an RTO later; 0: not waiting).
	 */
	uint64_t cc_wait_ns;
	uint8_t pull_queue;	/* its receiver's last word on its queue */
	uint8_t cc_waits;	/* cc_wait expiries in a row (the backoff) */
	uint64_t acks;
	uint64_t ce_acks;
	uint64_t min_rtt_ns;	/* smallest RTT sample, UINT64_MAX: none */
	uint64_t rtt_sum_ns;	/* of every RTT sample (mean packet delay) */
	uint64_t rtt_samples;
	/* pacing = flow */
	uint64_t pace_at;	/* its next slot */
	uint32_t heap_pos;	/* in h->heap, HS_NOT_IN_HEAP */
};

/*
 * What a receiver knows of a receiver-driven flow's credit
 * (hs_host_pull.c): what its sender spent before any feedback, what
 * arrived, the packets it must resend, the credit granted so far.
 */
struct hs_pull_rx {
	uint64_t spec_bytes;	/* bytes sent on the first credit */
	uint64_t arrived_bytes;	/* bytes of every data packet and header in */
	uint32_t trims;		/* trimmed headers in: packets to resend */
	uint32_t granted;	/* quanta granted (its last PULL's number) */
	uint64_t extra_bytes;	/* granted for a silence: see hs_pull_check */
	uint64_t lost_bytes;	/* outstanding at a silence, written off */
	uint64_t last_ns;	/* its last packet in (or its first PULL) */
	uint16_t ev;		/* the EV of its last packet: the PULL's */
	bool in_list;		/* waits in the host's pacer */
};

/* A flow this host receives. */
struct hs_rflow {
	const struct hs_flow_spec *spec;
	struct hs_receiver rx;
	uint32_t src_ip;
	uint32_t nic_slot;
	uint64_t done_ns;
	bool complete;		/* received in full (at done_ns, maybe 0) */
	uint64_t goodput;	/* payload bytes delivered, at most size */
	uint64_t corrupt;
	bool foreign;		/* another shard of the rank receives it */
	struct hs_ack_tmpl ack_tmpl;
	struct hs_pull_rx pull;	/* a receiver-driven flow's credit (hs_host_pull.c) */
};

struct hs_host {
	const struct hs_host_settings *set;
	/* set's path facts with its policy's settings (set->hlb_set). */
	struct hlb_params hlb;
	const struct hs_traffic *traffic;
	/* The recovery model's facts and settings (set->recovery_set). */
	struct hs_transport_params tp;
	const void *cc_settings;	/* set->cc's block (set->cc_set) */
	uint32_t rank;
	uint32_t ip;
	struct hs_frame_ctx fx;
	struct rte_mempool *pool;
	/* bulk_alloc: mbufs for data frames, taken from the top. */
	bool bulk_alloc;
	uint16_t nb_stash;
	struct rte_mbuf *stash[HS_MBUF_STASH];
	struct ofan_rng rng;
	uint64_t rate_bps;	/* rate x rate_coef */
	uint64_t pause_from;	/* PFC: output paused from then */
	uint64_t pause_until;	/* until then (0: not paused) */
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
	/* One shard of the rank (hs_host_shard); count 1: the whole rank. */
	struct hs_host_shard shard;
	uint32_t nb_foreign_s;	/* sflows another shard sends */
	uint32_t nb_foreign_r;	/* rflows another shard receives */
	int32_t *slot_sflow;	/* NIC slot -> sflow index, -1 */

	uint32_t nb_sflows;
	struct hs_sflow *sflows;
	uint32_t nb_rflows;
	struct hs_rflow *rflows;
	/* Which flows are ours comes from the traffic's shared index
	 * (hs_sflow_of, hs_rflow_of; its child lists for waiting flows). */

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

	/*
	 * The pull pacer of a receiver-driven cc (hs_host_pull.c): the
	 * rflows with demand, first in first out, its next PULL's time.
	 */
	uint32_t *pull_fifo;
	uint32_t pull_head, pull_count;
	double pull_next_ps;
	double pull_tpq_ps;	/* a quantum's time at 99 % of the link */
	int64_t pull_max;	/* credit a sender may hold: 2.5 BDP */
	int64_t pull_first;	/* credit a sender starts with: 1.5 BDP */
	uint64_t pull_check_ns;	/* the next look for silent flows */
	uint64_t pull_silence_ns;	/* an RTO: a flow this quiet is stuck */
	/*
	 * Its rate control on an oversubscribed fabric (cc's pull_params,
	 * struct hs_rccc_osc): what arrived since its last interval.
	 */
	bool osc_on;
	struct hs_rccc_osc osc;
	struct ofan_rng osc_rng;	/* the intervals' jitter */
	uint64_t osc_next_ns;		/* its next interval's end */
	uint64_t osc_pkts, osc_ce, osc_trim_last, osc_trim_other;

	uint64_t timer_ns;	/* earliest transport timer */
	uint64_t next_start_ns;	/* earliest start of a waiting flow */

	struct hs_ack_req acks[HS_ACK_RING];
	uint32_t ack_head;
	uint32_t ack_tail;
	struct rte_mbuf *arp_reply[16];	/* replies to send */
	uint16_t nb_arp_reply;

	uint64_t total_bytes;
	struct hs_host_stats st;
	/* The policy counters of finished flows, summed (their dump). */
	struct hs_kv_table done_kv;
};

static inline uint16_t
hs_ev_range(const struct hs_host_settings *c)
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

static inline void
hs_heap_up(struct hs_host *h, uint32_t pos)
{
	uint32_t si = h->heap[pos];

	while (pos > 0 && hs_heap_before(h, si, h->heap[(pos - 1) / 2])) {
		hs_heap_set(h, pos, h->heap[(pos - 1) / 2]);
		pos = (pos - 1) / 2;
	}
	hs_heap_set(h, pos, si);
}

static inline void
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

static inline void
hs_heap_push(struct hs_host *h, uint32_t si)
{
	if (h->sflows[si].heap_pos != HS_NOT_IN_HEAP)
		return;
	h->heap[h->nb_heap] = si;
	h->sflows[si].heap_pos = h->nb_heap++;
	hs_heap_up(h, h->nb_heap - 1);
}

static inline void
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

/* ---- pacing ---- */

/* The gap after a packet of wire bytes of flow s (pacing = flow). */
static inline uint64_t
hs_flow_gap(const struct hs_host *h, const struct hs_sflow *s, uint32_t wire)
{
	const uint32_t *c = h->traffic->concurrency;
	uint32_t conc = c != NULL ? c[s->spec->id] : 1;

	return (uint64_t)(conc ? conc : 1) *
		ofan_tx_time_ns(hs_pace_slot(h->set, wire), h->rate_bps);
}

/* A random extra of 0 .. pacing_jitter of gap (htsim's: never negative). */
static inline uint64_t
hs_jitter(struct hs_host *h, uint64_t gap)
{
	if (h->set->pacing_jitter <= 0)
		return 0;
	return (uint64_t)(ofan_rng_unit(&h->rng) * h->set->pacing_jitter *
			  (double)gap);
}

/*
 * Flow s's transport timer (hs_sender_timer_ns()) may be earlier than
 * the host's: take it.  A time already come (the end of an erasure wait
 * that passed while the sender made up losses) is checked at the next
 * ns, when hs_host_timers() wakes the flow and the sender moves on: the
 * host's next event never lies behind now, for a driver to spin on.
 */
static inline void
hs_timer_take(struct hs_host *h, const struct hs_sflow *s, uint64_t now)
{
	uint64_t t = hs_sender_timer_ns(&s->tx);

	if (t <= now)
		t = now + 1;
	if (t < h->timer_ns)
		h->timer_ns = t;
}

/* Something may have become sendable for s: its pacer wakes. */
static inline void
hs_wake(struct hs_host *h, uint32_t si, uint64_t now)
{
	struct hs_sflow *s = &h->sflows[si];

	if (h->set->pacing == HS_PACING_FLOW) {
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

/*
 * Flow id -> index in h->sflows, -1 if this host does not send it (or
 * another shard of its rank does).
 */
static inline int32_t
hs_sflow_of(const struct hs_host *h, uint32_t flow)
{
	const struct hs_traffic *t = h->traffic;
	uint32_t pos;

	if (flow >= t->nb_flows || t->flows[flow].src != h->rank)
		return -1;
	pos = t->src_pos[flow];
	return h->sflows[pos].state != HS_FOREIGN ? (int32_t)pos : -1;
}

/* Flow id -> index in h->rflows, -1 if this host does not receive it. */
static inline int32_t
hs_rflow_of(const struct hs_host *h, uint32_t flow)
{
	const struct hs_traffic *t = h->traffic;
	uint32_t pos;

	if (flow >= t->nb_flows || t->flows[flow].dst != h->rank)
		return -1;
	pos = t->dst_pos[flow];
	return !h->rflows[pos].foreign ? (int32_t)pos : -1;
}

/* pacing = host: this shard's gap for wire bytes at the rank's rate. */
static inline uint64_t
hs_shared_gap(const struct hs_host *h, uint32_t wire)
{
	uint64_t gap = ofan_tx_time_ns(hs_pace_slot(h->set, wire),
				       h->rate_bps);
	uint32_t all;

	if (h->shard.count <= 1 || h->nb_active == 0)
		return gap;
	/* rate x (ours / the rank's active flows): the gap scales back. */
	all = __atomic_load_n(h->shard.rank_active, __ATOMIC_RELAXED);
	return all > h->nb_active ? gap * all / h->nb_active : gap;
}

/* The rank's active-flow count, when it is shared by shards. */
static inline void
hs_rank_active_add(struct hs_host *h, int32_t d)
{
	if (h->shard.count > 1)
		__atomic_fetch_add(h->shard.rank_active, (uint32_t)d,
				   __ATOMIC_RELAXED);
}

/* ---- shared by the three files ---- */

/* A flow becomes active: transport state, policy state, pacing. */
void hs_flow_activate(struct hs_host *h, uint32_t si, uint64_t now);
/*
 * A sent flow is done: free its transport, policy and EV state, keeping
 * its counters (the policy's are added to the host's finished ones).
 */
void hs_flow_release(struct hs_host *h, struct hs_sflow *s);
/* Activate every flow whose start time has come. */
void hs_host_start_due(struct hs_host *h, uint64_t now);
/* What flow si depends on was received: it starts (or at its time). */
void hs_dep_release(struct hs_host *h, uint32_t si, uint64_t now);

/* hs_host_pull.c: the receiver's pacer of a receiver-driven cc. */
int hs_pull_init(struct hs_host *h);
void hs_pull_arrived(struct hs_host *h, uint32_t ri, uint32_t payload,
		     uint16_t ev, uint8_t mark, bool ce, uint64_t now);
void hs_pull_run(struct hs_host *h, uint64_t now);
uint64_t hs_pull_next_ns(const struct hs_host *h);
void hs_pull_check(struct hs_host *h, uint64_t now);
void hs_queue_pull(struct hs_host *h, const struct hs_rflow *r);

#endif /* OFAN_HS_HOST_PRIV_H */
