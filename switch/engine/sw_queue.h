/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The software egress queue of one port (on one forwarding lcore).
 *
 * It sits between the load-balancing stage and the transmit call.  Keeping
 * the queue in software, instead of in the NIC's descriptor ring, is what
 * makes queueing measurable and bounded: capacity in packets and bytes,
 * tail drop, RED-like ECN marking between kmin and kmax (always above
 * kmax), an occupancy histogram and maximum.  A shaping rate lets a fast
 * NIC emulate a slower link so queues build where we can see them.
 *
 * The queue is a power-of-two ring of mbuf pointers owned by one lcore: no
 * atomics.  Transmit is two-phase (peek, then commit what the device
 * accepted) so that nothing is lost when the device ring is full.
 *
 * With `enabled = false` the queue degenerates to a transmit staging
 * buffer: no limits besides its size, no ECN, no shaping, and whatever the
 * device does not accept in one go is dropped (tx_full), as a plain DPDK
 * forwarder would do.
 *
 * Trimming (`[queue] trim`, architecture.md, "Trimming"): a queue that trims has
 * a second, strict-priority FIFO, the control queue, with its own bound.
 * A data frame that would overflow the data queue is cut to its headers
 * (or, with trim = full, only marked), marked trimmed in its BTH, and
 * joins the control queue, ahead of every data frame; ACKs and NACKs use
 * the control queue too.  A header the control queue cannot take is
 * dropped (ctrl_drops), or returned to its sender by the worker (rts).
 * Peek serves the control queue first; the frame a peek returned first
 * stays first until the commit, so a link that serialises one frame at a
 * time (ofan-fabric) sends the frame it started, even if a header arrived
 * meanwhile.
 */
#ifndef OFAN_SW_QUEUE_H
#define OFAN_SW_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "lb.h"
#include "ofan_rng.h"
#include "sw_config.h"

#define SW_QUEUE_HIST_BINS 16	/* occupancy histogram, by fraction of capacity */
#define SW_QUEUE_FIRST_RING 256u	/* ring slots at first (it doubles as needed) */

/*
 * The counters of an egress queue, declared once: X(field, key, how,
 * what), how = SUM or MAX, the way workers' values combine
 * (sw_engine_totals).  The JSON summary's ports, /ofan/ports and
 * /ofan/queues write each under its key.  The histogram is an array and
 * written apart.
 */
#define SW_QUEUE_COUNTERS(X) \
	X(enq_pkts, "queue_enqueued", SUM, "packets queued") \
	X(enq_bytes, "queue_enqueued_bytes", SUM, "bytes queued") \
	X(deq_pkts, "queue_dequeued", SUM, "packets sent from the queue") \
	X(deq_bytes, "queue_dequeued_bytes", SUM, "bytes sent from the queue") \
	X(drop_pkts, "queue_tail_drops", SUM, "tail drops") \
	X(drop_bytes, "queue_tail_drop_bytes", SUM, "bytes tail-dropped") \
	X(ecn_marked, "ecn_marked", SUM, "CE marks set by this queue") \
	X(max_pkts, "queue_max_pkts", MAX, "largest occupancy, packets") \
	X(max_bytes, "queue_max_bytes", MAX, "largest occupancy, bytes") \
	X(trimmed_pkts, "trimmed", SUM, "data frames trimmed to their headers") \
	X(trimmed_bytes, "trimmed_bytes", SUM, "bytes the trimming cut off") \
	X(ctrl_pkts, "ctrl_enqueued", SUM, "frames queued on the control queue") \
	X(ctrl_drop_pkts, "ctrl_drops", SUM, "headers and ACKs the control queue had no room for") \
	X(ctrl_max_pkts, "ctrl_max_pkts", MAX, "largest control-queue occupancy, packets")

/* How counters of several workers combine. */
#define SW_COMBINE_SUM(a, b) ((a) + (b))
#define SW_COMBINE_MAX(a, b) ((a) > (b) ? (a) : (b))

struct sw_queue_stats {
#define SW_QUEUE_FIELD(field, key, how, what) uint64_t field;
	SW_QUEUE_COUNTERS(SW_QUEUE_FIELD)
#undef SW_QUEUE_FIELD
	uint64_t hist[SW_QUEUE_HIST_BINS]; /* enqueues by occupancy at arrival */
};

/*
 * The control queue of a trimming queue: a FIFO of headers, ACKs and
 * NACKs served before the data (fixed size, made at init).
 */
struct sw_ctrlq {
	struct rte_mbuf **ring;
	uint32_t *len_ring;
	uint32_t mask;
	uint32_t head, tail;
	uint64_t bytes;
	uint32_t cap_pkts;
	uint64_t cap_bytes;
};

/* What sw_queue_enqueue_ctl() did with a frame. */
enum sw_enq_result {
	SW_ENQ_QUEUED = 0,	/* in the data or the control queue */
	SW_ENQ_DROPPED,		/* the data queue is full: the caller frees *ret */
	SW_ENQ_CTRL_FULL,	/* the control queue is: the caller frees *ret */
	SW_ENQ_RETURN,		/* trimmed, for its sender: the caller returns *ret */
};

struct sw_queue {
	struct rte_mbuf **ring;
	/* Each queued frame's length beside it, so that peeking and
	 * shaping do not touch mbufs that went cold while they waited. */
	uint32_t *len_ring;
	/* Each frame's ingress port (SW_QUEUE_IN_NONE: the switch's own),
	 * for PFC's per-ingress count; NULL when no port is lossless. */
	uint8_t *in_ring;
	uint32_t mask;		/* ring size - 1 (it grows up to capacity) */
	int socket;		/* where the ring lives */
	uint32_t head;		/* next to dequeue */
	uint32_t tail;		/* next free slot */
	uint64_t bytes;		/* bytes queued */
	uint32_t cap_pkts;
	uint64_t cap_bytes;
	bool ecn;
	uint64_t kmin;
	uint64_t kmax;
	double pmax;
	uint64_t rate_bps;	/* 0 = unshaped */
	/* Capacity and ECN thresholds as configured; cap_bytes, kmin and
	 * kmax are these x permille / 1000 (a degraded link's queue). */
	uint64_t cap0_bytes, kmin0, kmax0;
	uint16_t permille;
	uint64_t hist_mult;	/* bin = (len * hist_mult) >> 40, no division */
	uint64_t next_tx_ns;	/* shaping: when the link is free again */
	/* Bytes counted of a frame: pkt_len + adjust[kind]; a shaped
	 * link sends those and overhead (ofan_frame.h). */
	struct ofan_frame_model frame;
	bool enabled;
	/* Trimming (enum sw_trim, enum sw_rts); ctrl.ring NULL: off. */
	uint8_t trim;
	uint8_t rts;
	bool ctrl_acks;		/* ACKs (and NACKs) on the control queue */
	bool trim_either;	/* the victim: arriving or newest, a coin */
	bool to_host;		/* trims here are on the last hop */
	struct sw_ctrlq ctrl;
	/*
	 * The last peek, until its commit: bit i set when its i-th frame
	 * came from the control queue; latch: that peek's first frame was
	 * data (1) or control (2), 0 when committed.
	 */
	uint64_t peek_ctrl;
	uint8_t latch;
	struct sw_queue_stats st;
};

/* Allocate the ring for cfg (NUMA socket of the lcore).  Returns 0/-ENOMEM. */
int sw_queue_init(struct sw_queue *q, const struct sw_queue_config *cfg,
		  uint16_t burst, int socket);
/*
 * Keep each data frame's ingress port beside it (in_ring): for PFC, an
 * egress queue says which lossless port a leaving frame came in by.
 * Returns 0 or -ENOMEM.
 */
#define SW_QUEUE_IN_NONE 0xff
int sw_queue_track_ingress(struct sw_queue *q);

/* The ingress port of the frame at the head of the data queue. */
static inline uint8_t
sw_queue_head_in(const struct sw_queue *q, uint32_t i)
{
	return q->in_ring[(q->head + i) & q->mask];
}

/* Free queued mbufs (counted as drops, returned) and the ring. */
uint32_t sw_queue_fini(struct sw_queue *q);

/* Frames waiting: data and control. */
static inline uint32_t
sw_queue_len(const struct sw_queue *q)
{
	return q->tail - q->head + q->ctrl.tail - q->ctrl.head;
}

/* Data frames waiting (what the data queue's capacity bounds). */
static inline uint32_t
sw_queue_data_len(const struct sw_queue *q)
{
	return q->tail - q->head;
}

/* Whether the queue trims (has a control queue). */
static inline bool
sw_queue_trims(const struct sw_queue *q)
{
	return q->ctrl.ring != NULL;
}

/*
 * Remove and return the frame the queue would send first (control
 * before data), NULL when empty: for emptying a queue (a failed link,
 * shutdown).  Not counted as sent.
 */
struct rte_mbuf *sw_queue_pop(struct sw_queue *q);

/*
 * Enqueue on a trimming queue (sw_queue_trims()): ACKs (ctrl_acks) and
 * frames already trimmed upstream go to the control queue; a data frame
 * that does not fit the data queue is trimmed, it or (trim_either, half
 * the time) the newest data frame queued, whose place the arriving frame
 * takes; a trimmed frame the control queue cannot take is returned
 * (SW_ENQ_RETURN) when rts says, else dropped.  *ret is the frame the
 * result is about, which may be another than m (the victim), NULL when
 * queued; counted here but for the caller's drop reason.  Headers are
 * found from each frame's own bytes; l3_offset is m's IPv4 header for
 * ECN marking.  Anything else is sw_queue_enqueue().
 */
enum sw_enq_result sw_queue_enqueue_ctl(struct sw_queue *q,
					struct rte_mbuf *m, uint8_t kind,
					uint16_t l3_offset, bool ecn_capable,
					struct ofan_rng *rng,
					struct rte_mbuf **ret);

/*
 * Up to max packets that may be sent at now: all of them when unshaped,
 * otherwise as many as the shaping rate allows.  They stay in the queue
 * until sw_queue_commit().  lens[i] receives the length of pkts[i]: once a
 * packet is handed to a driver it may be freed, so commit reads only these.
 * Returns the count.
 */
uint16_t sw_queue_peek(struct sw_queue *q, uint64_t now_ns,
		       struct rte_mbuf **pkts, uint32_t *lens, uint16_t max);

/*
 * The first nb_sent of the peeked packets left; advance the head and the
 * shaper.  For a disabled queue the rest of the peeked packets are
 * removed too and returned in *nb_dropped (the caller frees them; they are
 * still at pkts[nb_sent..]).
 */
void sw_queue_commit(struct sw_queue *q, uint64_t now_ns,
		     const uint32_t *lens, uint16_t nb_peeked,
		     uint16_t nb_sent, uint16_t *nb_dropped);

/* Histogram bin of an arrival that finds len < cap_pkts packets queued. */
static inline uint32_t
sw_queue_hist_bin(const struct sw_queue *q, uint32_t len)
{
	return (uint32_t)(((uint64_t)len * q->hist_mult) >> 40);
}

/* Occupancy level of the queue for adaptive policies (lb_queue_level). */
static inline uint8_t
sw_queue_level(const struct sw_queue *q, const struct lb_levels *lv)
{
	return lb_queue_level(sw_queue_data_len(q), q->cap_pkts, q->bytes,
			      q->cap_bytes, lv);
}

/* Double the ring, keeping the frames in order; false when out of memory. */
bool sw_queue_grow(struct sw_queue *q);

/* Set CE in place and fix the IPv4 checksum incrementally (RFC 1624). */
void sw_queue_mark_ce(struct rte_mbuf *m, uint16_t l3_offset);

/*
 * RED-like marking on the instantaneous queue in bytes at arrival: never
 * below kmin, always above kmax, linearly up to pmax in between.
 */
static inline bool
sw_queue_should_mark(const struct sw_queue *q, struct ofan_rng *rng)
{
	double p;

	if (q->bytes <= q->kmin)
		return false;
	if (q->bytes > q->kmax)
		return true;
	p = q->pmax * (double)(q->bytes - q->kmin) /
		(double)(q->kmax - q->kmin);
	return ofan_rng_unit(rng) < p;
}

/*
 * Append m (size queue bytes; len frames queued before it, below
 * cap_pkts and within the ring), marking it as ECN says.
 */
static inline void
sw_queue_put(struct sw_queue *q, struct rte_mbuf *m, uint32_t size,
	     uint32_t len, uint16_t l3_offset, bool ecn_capable,
	     struct ofan_rng *rng)
{
	uint32_t bin;

	if (q->ecn && ecn_capable && sw_queue_should_mark(q, rng)) {
		sw_queue_mark_ce(m, l3_offset);
		q->st.ecn_marked++;
	}
	/* len < cap_pkts, so the bin is below SW_QUEUE_HIST_BINS. */
	bin = sw_queue_hist_bin(q, len);
	q->st.hist[bin]++;
	q->ring[q->tail & q->mask] = m;
	q->len_ring[q->tail & q->mask] = size;
	if (unlikely(q->in_ring != NULL))
		q->in_ring[q->tail & q->mask] = SW_QUEUE_IN_NONE;
	q->tail++;
	q->bytes += size;
	q->st.enq_pkts++;
	q->st.enq_bytes += size;
	len++;
	if (len > q->st.max_pkts)
		q->st.max_pkts = len;
	if (q->bytes > q->st.max_bytes)
		q->st.max_bytes = q->bytes;
}

/*
 * Enqueue one packet of kind (enum ofan_pkt_kind: data, ACK or other; it
 * decides what the packet counts under the queue's frame model) whose
 * IPv4 header starts l3_offset bytes in; ecn_capable says whether CE may
 * be set.  Returns true if queued; false if the caller must free it (tail
 * drop, counted here).
 */
static inline bool
sw_queue_enqueue(struct sw_queue *q, struct rte_mbuf *m, uint8_t kind,
		 uint16_t l3_offset, bool ecn_capable, struct ofan_rng *rng)
{
	uint32_t len = sw_queue_data_len(q);
	uint32_t size = ofan_frame_queue_bytes(&q->frame, kind, m->pkt_len);

	if (len >= q->cap_pkts || q->bytes + size > q->cap_bytes ||
	    (unlikely(len > q->mask) && !sw_queue_grow(q))) {
		q->st.drop_pkts++;
		q->st.drop_bytes += size;
		return false;
	}
	sw_queue_put(q, m, size, len, l3_offset, ecn_capable, rng);
	return true;
}

/* Change the shaping rate at runtime (degraded links). */
void sw_queue_set_rate(struct sw_queue *q, uint64_t rate_bps);

/*
 * Scale the byte capacity and the ECN thresholds to permille / 1000 of
 * their configured values (1000: as configured), as htsim shrinks a
 * degraded link's queue with its rate.  What is queued stays.
 */
void sw_queue_set_scale(struct sw_queue *q, uint16_t permille);

#endif /* OFAN_SW_QUEUE_H */
