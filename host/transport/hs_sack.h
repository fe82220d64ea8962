/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SACK transport (the "sack" recovery model) of one flow, both ends,
 * as plain state machines: the default loss recovery of ofan-host and
 * ofan-fabric.  Its PSN bitmap (hs_psn_state) and HS_MAX_PKTS are shared
 * by the other models (hs_cumack.h).
 *
 * Sender (hs_tx): a message of `size` bytes cut into packets of at most
 * `mss` payload bytes, PSN 0 .. nb_pkts-1.  It says which PSN to send next
 * (a retransmission first, else new data), records sends, and processes
 * ACKs (cumulative PSN + 64-bit SACK bitmap + the echoed PSN of the packet
 * that triggered the ACK, whose send time gives the RTT sample).  Loss is
 * detected RACK-style -- a packet still unacknowledged although a packet
 * sent more than reorder_window_ns after it has been acknowledged -- and by
 * a retransmission timeout (no progress for rto_ns, at least min_rto).
 * Spraying reorders packets by design, so duplicate-ACK counting would
 * retransmit spuriously; the time-based rule does not.  While a hole is
 * older than the 64-PSN SACK window, later packets are acknowledged by
 * their echo only, so the window must then cover ACK reordering too.
 *
 * Receiver (hs_rx): out-of-order delivery into a bitmap; it says when to
 * ACK (every ack_every packets, at once for a CE-marked packet, at once for
 * a duplicate or out-of-order packet, and for the last packet) and what
 * the ACK carries.  Duplicates are counted, never counted as goodput.
 *
 * Rate and windows are not here: the host paces (constant rate) or
 * windows (ECN-reactive) on top.  No EAL, no mbufs: unit tested alone.
 */
#ifndef OFAN_HS_SACK_H
#define OFAN_HS_SACK_H

#include <stdbool.h>
#include <stdint.h>

#include "hs_transport.h"

/*
 * What the sender keeps per PSN, in one place so that a send writes one
 * cache line: the last transmission time and the packet's links on the
 * send list (below).
 */
struct hs_psn_state {
	uint64_t sent_ns;	/* last transmission time */
	uint32_t next;		/* next younger packet, HS_PSN_NONE at tail */
	uint32_t prev;		/* next older packet, HS_PSN_NONE at head */
};

/* PSNs per chunk of per-PSN state: 2 MB of struct hs_psn_state. */
#define HS_PSN_CHUNK_SHIFT 17
#define HS_PSN_CHUNK (1u << HS_PSN_CHUNK_SHIFT)
#define HS_PSN_CHUNK_MASK (HS_PSN_CHUNK - 1)

struct hs_psn_chunk {
	struct hs_psn_state *e;	/* NULL: not made yet, or given up */
	uint8_t *nb_tx;		/* transmissions per PSN (saturating) */
};

struct hs_tx {
	uint64_t size;
	uint32_t nb_pkts;
	uint16_t mss;
	uint32_t next_new;	/* lowest never-sent PSN */
	uint32_t cum_acked;	/* every PSN below is acknowledged */
	uint32_t nb_acked;
	uint64_t *acked;	/* bitmap, nb_pkts bits */
	uint64_t *queued;	/* bitmap: in the retransmission queue */
	/*
	 * Per-PSN state (hs_tx_psn(), hs_tx_nb_tx()) in chunks of
	 * HS_PSN_CHUNK PSNs, made when the first of their PSNs is sent and
	 * given up (kept as the spare for the next one) once every PSN of
	 * the chunk and of the chunk after it is acknowledged.  So a long
	 * flow's state follows its packets in flight instead of its size,
	 * a sender reuses memory it touched recently instead of faulting in
	 * fresh pages, and growing never copies.  A flow of one chunk (up to
	 * HS_PSN_CHUNK packets: every flow of the study) has exactly nb_pkts
	 * entries from the start.
	 */
	struct hs_psn_chunk *chunk;	/* nb_chunks entries */
	uint32_t nb_chunks;
	uint32_t chunks_given_up;	/* chunks below this one are gone */
	uint32_t made_below;	/* every chunk below this PSN was made */
	struct hs_psn_chunk spare;	/* a full chunk to reuse (e NULL: none) */
	uint64_t nb_chunk_fail;		/* sends held back: out of memory */
	uint32_t *retx;		/* ring of PSNs to retransmit, nb_pkts+1 */
	uint32_t retx_head;
	uint32_t retx_tail;
	/*
	 * The packets in flight (sent, neither acknowledged nor queued) as a
	 * doubly linked list in send order, oldest first: RACK and the RTO
	 * only ever look at its head.  A retransmission moves its PSN to the
	 * tail, so it is judged again by its new send time.  Links are in
	 * psn[].next and psn[].prev.
	 */
	uint32_t rack_scan;	/* list head: oldest in flight, next judged */
	uint32_t sent_tail;	/* youngest packet in flight */
	struct hs_psn_state *tail_e; /* its state (NULL: none in flight) */
	uint32_t nb_in_flight;	/* list length */
	uint64_t rack_sent_ns;	/* latest send time of an acknowledged packet */
	uint64_t min_rtt_ns;	/* smallest RTT sample, UINT64_MAX: none yet */
	uint64_t last_progress_ns;
	uint64_t reorder_window_ns;
	uint64_t rto_ns;
	/* Counters. */
	uint64_t nb_sent;	/* packets sent, retransmissions included */
	uint64_t nb_retx;
	uint64_t nb_timeouts;
	uint64_t nb_acks;
	uint64_t nb_ce_acks;
};

/*
 * Set up a sender for size bytes in packets of mss payload bytes.
 * Returns 0, -EINVAL (size 0, mss 0, more than HS_MAX_PKTS packets) or
 * -ENOMEM.
 */
int hs_tx_init(struct hs_tx *tx, uint64_t size, uint16_t mss,
	       uint64_t reorder_window_ns, uint64_t rto_ns, uint64_t now_ns);
void hs_tx_fini(struct hs_tx *tx);

/* Payload bytes of packet psn (the last one may be short). */
uint16_t hs_tx_payload_size(const struct hs_tx *tx, uint32_t psn);

/*
 * The PSN to send next: the oldest queued retransmission, else the next new
 * packet, else HS_PSN_NONE (everything sent, waiting for ACKs, or no memory
 * for the next chunk of per-PSN state: counted in nb_chunk_fail, tried
 * again at the next call).  Call hs_tx_sent() when it is really sent.
 */
uint32_t hs_tx_next(struct hs_tx *tx);

/*
 * The state of psn, which was sent and is in flight, queued or
 * acknowledged less than a chunk ago (its chunk is still there).
 */
static inline struct hs_psn_state *
hs_tx_psn(const struct hs_tx *tx, uint32_t psn)
{
	return &tx->chunk[psn >> HS_PSN_CHUNK_SHIFT].e[psn & HS_PSN_CHUNK_MASK];
}

/* Transmissions of psn so far (saturating at 255); 0 if its chunk is not
 * there (never sent, or acknowledged more than a chunk ago). */
static inline uint8_t
hs_tx_nb_tx(const struct hs_tx *tx, uint32_t psn)
{
	const struct hs_psn_chunk *c = &tx->chunk[psn >> HS_PSN_CHUNK_SHIFT];

	return c->nb_tx != NULL ? c->nb_tx[psn & HS_PSN_CHUNK_MASK] : 0;
}

/* Whether psn's chunk of state is there. */
static inline bool
hs_tx_has_psn(const struct hs_tx *tx, uint32_t psn)
{
	return psn < tx->nb_pkts &&
		tx->chunk[psn >> HS_PSN_CHUNK_SHIFT].e != NULL;
}

/*
 * Record that psn left at now (dequeues it if it was a retransmission).
 * psn is what hs_tx_next() returned, or any PSN already sent and not yet
 * acknowledged (a forced retransmission); other PSNs are ignored.  Sending
 * with nothing in flight starts the retransmission timer.
 */
void hs_tx_sent(struct hs_tx *tx, uint32_t psn, uint64_t now_ns);

/*
 * Process an ACK.  Returns the number of packets newly acknowledged; sets
 * *rtt_ns (may be NULL) to the RTT of echo_psn, or 0 if that packet was
 * sent more than once (ambiguous) or is out of range.  echo_psn must be a
 * packet the receiver has (the one that triggered the ACK): it counts as
 * acknowledged too, which keeps RACK going when a hole is older than the
 * 64-PSN SACK window.  Runs RACK loss detection.
 */
uint32_t hs_tx_on_ack(struct hs_tx *tx, uint32_t cum_psn, uint64_t sack,
		      uint32_t echo_psn, bool ce, uint64_t now_ns,
		      uint64_t *rtt_ns);

/*
 * The receiver NACKed psn (a switch trimmed it): queue it for
 * retransmission now, if it is in flight.
 */
bool hs_tx_nack(struct hs_tx *tx, uint32_t psn);

/*
 * If packets are in flight and no ACK made progress for rto_ns, queue the
 * oldest unacknowledged packet (and any other sent packet older than one
 * RTO) for retransmission, restart the timer and return true.
 */
bool hs_tx_check_timeout(struct hs_tx *tx, uint64_t now_ns);

/*
 * Time at which the retransmission timer fires if nothing happens:
 * last_progress_ns + rto_ns, UINT64_MAX when nothing is in flight.
 */
uint64_t hs_tx_timer_ns(const struct hs_tx *tx);

static inline bool
hs_tx_done(const struct hs_tx *tx)
{
	return tx->nb_acked == tx->nb_pkts;
}

/* Packets sent and neither acknowledged nor judged lost. */
uint32_t hs_tx_in_flight(const struct hs_tx *tx);

struct hs_rx {
	uint32_t nb_pkts;
	uint32_t cum;		/* every PSN below was received */
	uint32_t nb_received;	/* distinct PSNs */
	uint32_t highest;	/* highest PSN received + 1 */
	uint64_t *bits;		/* received bitmap, nb_pkts bits */
	uint16_t ack_every;
	uint16_t since_ack;	/* packets since the last ACK */
	/* Counters. */
	uint64_t nb_dups;
	uint64_t nb_ce;		/* CE-marked arrivals, duplicates included */
	uint64_t nb_out_of_range; /* PSN >= nb_pkts: ignored, not ACKed */
	/* max(highest PSN received - psn) over new packets arriving late. */
	uint32_t max_reorder;
	bool uec_acks;		/* [recovery.sack] acks = uec (hs_rx_set_uec) */
	bool ack_pending;	/* uec: an ack request left holes behind it */
};

/*
 * The sack model's settings block ([recovery.sack]): when its receiver
 * ACKs at once (docs/recovery.md).
 */
enum hs_sack_acks {
	/* A packet past a hole or filling one, CE, a duplicate, the last
	 * packet, every ack_every (RFC 5681's immediate ACK). */
	HS_SACK_ACKS_RFC5681,
	/* As Ultra Ethernet's receiver (uet-htsim's UecSink::processData):
	 * the first packet, CE, a duplicate, the last packet, an ack
	 * request (and again once the holes before it filled), every
	 * ack_every; reordering alone never. */
	HS_SACK_ACKS_UEC,
};

struct hs_sack_settings {
	uint8_t acks;		/* enum hs_sack_acks */
};

/* What an ACK carries (host byte order). */
struct hs_ack_info {
	uint32_t cum_psn;
	uint64_t sack;		/* bit i: PSN cum_psn + 1 + i received */
	uint32_t echo_psn;
	bool ce;
};

/* Returns 0, -EINVAL (no packets, too many, ack_every 0) or -ENOMEM. */
int hs_rx_init(struct hs_rx *rx, uint32_t nb_pkts, uint16_t ack_every);
void hs_rx_fini(struct hs_rx *rx);

/* ACK as Ultra Ethernet's receiver does (HS_SACK_ACKS_UEC). */
static inline void
hs_rx_set_uec(struct hs_rx *rx, bool uec)
{
	rx->uec_acks = uec;
}

/*
 * Data packet psn, just taken by hs_rx_on_data(), asked for an ACK at
 * once (the BTH's ack request).  Returns true and fills *ack unless
 * one is due already (due: hs_rx_on_data()'s *send_ack).
 */
bool hs_rx_ack_request(struct hs_rx *rx, uint32_t psn, bool due,
		       struct hs_ack_info *ack);

/*
 * A data packet psn arrived (ce: it carried CE).  Returns true if it was
 * new (goodput), false for a duplicate or out of range.  Sets *send_ack
 * and fills *ack when an ACK is due now.
 */
bool hs_rx_on_data(struct hs_rx *rx, uint32_t psn, bool ce, bool *send_ack,
		   struct hs_ack_info *ack);

static inline bool
hs_rx_done(const struct hs_rx *rx)
{
	return rx->nb_received == rx->nb_pkts;
}

/*
 * The sack model's receiver members that tcp and trim reuse on their
 * hs_rx (rx points at one): the NACK of a trimmed header's PSN, and the
 * receiver's counters.
 */
bool hs_sack_rx_on_trimmed(void *rx, uint32_t psn,
			   struct hs_ack_content *nack);
void hs_sack_rx_counters(const void *rx, uint32_t *max_reorder,
			 uint64_t *dups, uint64_t *ce);

#endif /* OFAN_HS_SACK_H */
