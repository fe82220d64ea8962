/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One flow's transport as the host engine sees it: either loss-recovery
 * model behind one small interface, chosen once per host by
 * [host] recovery.
 *
 *   sack     hs_flow.h: PSN per packet, SACK + RACK, a retransmission
 *            timeout; what an RDMA-like transport does.
 *   erasure  hs_erasure.h: the study's erasure-coded constant-rate sender;
 *            losses are made up by new packets, never waited for.
 *
 * The dispatch is a branch on the mode in each inline call (both sides
 * are small state machines; a per-packet indirect call would cost more).
 * What an ACK carries on the wire (ofan_wire.h): SACK ACKs the cumulative
 * PSN and a 64-bit SACK bitmap; erasure ACKs the count of distinct
 * packets received in the same field, flagged OFAN_ACK_F_COUNT.
 */
#ifndef OFAN_HS_TRANSPORT_H
#define OFAN_HS_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "hs_erasure.h"
#include "hs_flow.h"

enum hs_recovery {
	HS_RECOVERY_SACK = 0,	/* SACK + RACK + RTO (default) */
	HS_RECOVERY_ERASURE,	/* the study's erasure-coded sender */
};

extern const char *const hs_recovery_names[];

/* What the sender of a flow is set up with. */
struct hs_transport_params {
	enum hs_recovery mode;
	uint16_t mss;
	uint32_t erasure_k;
	uint64_t reorder_window_ns;
	uint64_t rto_ns;	/* sack: the fixed RTO */
	uint64_t min_rto_ns;	/* erasure: floor of the computed RTO */
	uint64_t base_rtt_ns;	/* erasure: srtt before the first sample */
	bool windowed;		/* a window limits the sender (ecn_window) */
};

struct hs_sender {
	uint8_t mode;
	union {
		struct hs_tx sack;
		struct hs_etx era;
	} u;
};

struct hs_receiver {
	uint8_t mode;
	union {
		struct hs_rx sack;
		struct hs_erx era;
	} u;
};

/* An ACK's content in either model (host byte order). */
struct hs_ack_content {
	uint32_t cum;		/* sack: cumulative PSN; erasure: count */
	uint64_t sack;		/* sack only */
	uint32_t echo_psn;
	bool ce;
};

/* Packets the receiver needs for a flow of size bytes. */
static inline uint32_t
hs_transport_nb_pkts(const struct hs_transport_params *p, uint64_t size)
{
	uint32_t n;

	if (p->mode == HS_RECOVERY_ERASURE) {
		n = hs_erasure_data_pkts(size, p->mss);
		return n == 0 ? 0 : n + p->erasure_k;
	}
	return p->mss == 0 ? 0 :
		(uint32_t)((size + p->mss - 1) / p->mss);
}

static inline int
hs_sender_init(struct hs_sender *s, const struct hs_transport_params *p,
	       uint64_t size, uint64_t now)
{
	int rc;

	s->mode = (uint8_t)p->mode;
	if (p->mode == HS_RECOVERY_ERASURE) {
		rc = hs_etx_init(&s->u.era, size, p->mss, p->erasure_k,
				 p->base_rtt_ns, p->min_rto_ns, now);
		hs_etx_set_windowed(&s->u.era, p->windowed);
		return rc;
	}
	return hs_tx_init(&s->u.sack, size, p->mss, p->reorder_window_ns,
			  p->rto_ns, now);
}

static inline void
hs_sender_fini(struct hs_sender *s)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		hs_etx_fini(&s->u.era);
	else
		hs_tx_fini(&s->u.sack);
}

/* The PSN to send at now, HS_PSN_NONE: nothing (see each model). */
static inline uint32_t
hs_sender_next(struct hs_sender *s, uint64_t now)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		return hs_etx_next(&s->u.era, now);
	return hs_tx_next(&s->u.sack);
}

static inline uint16_t
hs_sender_payload(const struct hs_sender *s, uint32_t psn)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		return s->u.era.symbol;
	return hs_tx_payload_size(&s->u.sack, psn);
}

/*
 * Sending psn makes up for a loss: a retransmission (sack), or a packet
 * beyond the ones the receiver needs (erasure never resends a PSN).
 */
static inline bool
hs_sender_is_resend(const struct hs_sender *s, uint32_t psn)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		return psn >= s->u.era.nb_needed;
	return psn < s->u.sack.next_new;	/* sent before */
}

static inline void
hs_sender_sent(struct hs_sender *s, uint32_t psn, uint64_t now)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		hs_etx_sent(&s->u.era, psn, now);
	else
		hs_tx_sent(&s->u.sack, psn, now);
}

/* Process an ACK; returns how many packets it newly acknowledged. */
static inline uint32_t
hs_sender_on_ack(struct hs_sender *s, const struct hs_ack_content *a,
		 uint64_t now, uint64_t *rtt_ns)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		return hs_etx_on_ack(&s->u.era, a->cum, a->echo_psn, a->ce,
				     now, rtt_ns);
	return hs_tx_on_ack(&s->u.sack, a->cum, a->sack, a->echo_psn, a->ce,
			    now, rtt_ns);
}

/*
 * The timer at now: true if the RTO expired (sack: packets are queued for
 * retransmission; erasure: feedback only).
 */
static inline bool
hs_sender_check_timeout(struct hs_sender *s, uint64_t now)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		return hs_etx_check_timeout(&s->u.era, now);
	return hs_tx_check_timeout(&s->u.sack, now);
}

/*
 * Per-EV path timers (hs_etx_path_*): the erasure sender keeps them for
 * a policy that asks (hlb_ops.on_path_timeout); SACK has none.
 */
static inline void
hs_sender_path_sent(struct hs_sender *s, uint16_t ev, uint64_t now)
{
	/* A timer not kept (no memory) is a timeout not seen: feedback. */
	if (s->mode == HS_RECOVERY_ERASURE)
		(void)hs_etx_path_sent(&s->u.era, ev, now);
}

static inline void
hs_sender_path_acked(struct hs_sender *s, uint16_t ev)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		hs_etx_path_acked(&s->u.era, ev);
}

static inline bool
hs_sender_path_expired(struct hs_sender *s, uint16_t ev, uint64_t now)
{
	return s->mode == HS_RECOVERY_ERASURE &&
	       hs_etx_path_expired(&s->u.era, ev, now);
}

/* When the sender next needs attention without an ACK. */
static inline uint64_t
hs_sender_timer_ns(const struct hs_sender *s)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		return hs_etx_timer_ns(&s->u.era);
	return hs_tx_timer_ns(&s->u.sack);
}

static inline bool
hs_sender_done(const struct hs_sender *s)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		return hs_etx_done(&s->u.era);
	return hs_tx_done(&s->u.sack);
}

/* Packets out and neither known received nor judged lost (the ECN window). */
static inline uint32_t
hs_sender_in_flight(const struct hs_sender *s)
{
	if (s->mode == HS_RECOVERY_ERASURE)
		return hs_etx_in_flight(&s->u.era);
	return hs_tx_in_flight(&s->u.sack);
}

/* Would sending psn grow what is in flight (new data, not a resend)? */
static inline bool
hs_sender_is_new(const struct hs_sender *s, uint32_t psn)
{
	return s->mode == HS_RECOVERY_ERASURE || psn >= s->u.sack.next_new;
}

/* Payload bytes the receiver is known to have, at most size. */
static inline uint64_t
hs_sender_acked_bytes(const struct hs_sender *s, uint64_t size)
{
	uint64_t b = s->mode == HS_RECOVERY_ERASURE ?
		(uint64_t)s->u.era.received * s->u.era.symbol :
		(uint64_t)s->u.sack.nb_acked * s->u.sack.mss;

	return b < size ? b : size;
}

/* Counters: packets sent, resent (erasure: beyond what was needed), RTOs. */
static inline void
hs_sender_counters(const struct hs_sender *s, uint64_t *sent, uint64_t *retx,
		   uint64_t *timeouts)
{
	if (s->mode == HS_RECOVERY_ERASURE) {
		*sent = s->u.era.nb_sent;
		*retx = s->u.era.nb_extra;
		*timeouts = s->u.era.nb_timeouts;
	} else {
		*sent = s->u.sack.nb_sent;
		*retx = s->u.sack.nb_retx;
		*timeouts = s->u.sack.nb_timeouts;
	}
}

static inline int
hs_receiver_init(struct hs_receiver *r, const struct hs_transport_params *p,
		 uint64_t size, uint16_t ack_every)
{
	uint32_t n = hs_transport_nb_pkts(p, size);

	r->mode = (uint8_t)p->mode;
	if (p->mode == HS_RECOVERY_ERASURE)
		return hs_erx_init(&r->u.era, n, ack_every);
	return hs_rx_init(&r->u.sack, n, ack_every);
}

static inline void
hs_receiver_fini(struct hs_receiver *r)
{
	if (r->mode == HS_RECOVERY_ERASURE)
		hs_erx_fini(&r->u.era);
	else
		hs_rx_fini(&r->u.sack);
}

/* A data packet psn arrived: true if new; fills *ack when one is due. */
static inline bool
hs_receiver_on_data(struct hs_receiver *r, uint32_t psn, bool ce,
		    bool *send_ack, struct hs_ack_content *ack)
{
	if (r->mode == HS_RECOVERY_ERASURE) {
		struct hs_eack_info e;
		bool is_new = hs_erx_on_data(&r->u.era, psn, ce, send_ack, &e);

		if (*send_ack) {
			ack->cum = e.count;
			ack->sack = 0;
			ack->echo_psn = e.echo_psn;
			ack->ce = e.ce;
		}
		return is_new;
	} else {
		struct hs_ack_info i;
		bool is_new = hs_rx_on_data(&r->u.sack, psn, ce, send_ack, &i);

		if (*send_ack) {
			ack->cum = i.cum_psn;
			ack->sack = i.sack;
			ack->echo_psn = i.echo_psn;
			ack->ce = i.ce;
		}
		return is_new;
	}
}

static inline bool
hs_receiver_done(const struct hs_receiver *r)
{
	if (r->mode == HS_RECOVERY_ERASURE)
		return hs_erx_done(&r->u.era);
	return hs_rx_done(&r->u.sack);
}

/* Distinct packets received so far. */
static inline uint32_t
hs_receiver_count(const struct hs_receiver *r)
{
	if (r->mode == HS_RECOVERY_ERASURE)
		return r->u.era.received;
	return r->u.sack.nb_received;
}

/*
 * The payload size packet psn must have (0: no such packet) for a flow of
 * size bytes in packets of mss.
 */
static inline uint16_t
hs_receiver_expect(const struct hs_receiver *r, uint32_t psn, uint64_t size,
		   uint16_t mss)
{
	if (r->mode == HS_RECOVERY_ERASURE)
		return psn < HS_MAX_PKTS ? hs_erasure_symbol(size, mss) : 0;
	if (psn >= r->u.sack.nb_pkts)
		return 0;
	return psn + 1 == r->u.sack.nb_pkts ?
		(uint16_t)(size - (uint64_t)psn * mss) : mss;
}

/* Counters of the receiving side. */
static inline void
hs_receiver_counters(const struct hs_receiver *r, uint32_t *max_reorder,
		     uint64_t *dups, uint64_t *ce)
{
	if (r->mode == HS_RECOVERY_ERASURE) {
		*max_reorder = r->u.era.max_reorder;
		*dups = r->u.era.nb_dups;
		*ce = r->u.era.nb_ce;
	} else {
		*max_reorder = r->u.sack.max_reorder;
		*dups = r->u.sack.nb_dups;
		*ce = r->u.sack.nb_ce;
	}
}

#endif /* OFAN_HS_TRANSPORT_H */
