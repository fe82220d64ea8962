/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The study's loss-recovery model: a constant-rate erasure-coded sender
 * and its receiver, both ends of one flow, as plain state machines (the
 * erasure counterpart of hs_sack.h).
 *
 * Modelled on the sender of the study's simulator (htsim's
 * ConstantErasureCcaSrc, constant_cca_erasure*.cpp), which decouples load
 * balancing from loss recovery: a lost packet costs one more packet, never
 * a timeout.
 *   - Every packet carries a fresh sequence number (PSN 0, 1, 2, ...) and
 *     a full symbol of payload (min(mss, size) bytes), checked by the
 *     receiver against its own PSN.
 *   - The receiver counts the distinct packets it has; every ACK carries
 *     that count and echoes the PSN of the packet that triggered it.
 *   - The flow is complete once nb_needed = ceil(size / symbol) + k
 *     packets (any of them) have been received, and the sender knows it
 *     from an ACK.
 *   - The sender makes up the losses it can see, lost = highest PSN
 *     acknowledged + 1 - count received (reordering counts too, as in
 *     htsim): it sends while sent - lost < nb_needed.
 *   - Once it has sent enough it stops; if the flow is still incomplete
 *     one smoothed RTT later it sends on every pacing slot until the
 *     final ACK.
 *   - There is no retransmission timer.  The RTO (srtt + 4 rttvar, at
 *     least min_rto) is still computed, only as feedback: when no ACK
 *     arrived for one RTO while packets are out, hs_etx_check_timeout()
 *     says so and the host tells its load-balancing policy (REPS's path
 *     timeout, PLB's repath); nothing is resent because of it.
 * Where this differs from htsim (docs/htsim.md): before the first RTT sample the
 * smoothed RTT is the configured base RTT (htsim's is 0, so a flow shorter
 * than one RTT would resend from its second-to-last slot on).
 *
 * Settings: [recovery.erasure] k (struct hs_erasure_settings).
 *
 * Rate is not here: the host's pacer asks hs_etx_next() at each slot.
 * No EAL, no mbufs: unit tested alone.
 */
#ifndef OFAN_HS_ERASURE_H
#define OFAN_HS_ERASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "hs_transport.h"

/* The model's settings block (hs_transport_params.settings). */
struct hs_erasure_settings {
	uint32_t k;		/* packets beyond ceil(size / symbol) (3) */
};

struct hs_etx_evt {
	uint32_t key;		/* EV + 1; 0: a free slot */
	uint64_t sent_ns;
};

struct hs_etx {
	uint64_t size;
	uint16_t symbol;	/* payload bytes of every packet */
	uint32_t nb_needed;	/* packets the receiver must have */
	uint32_t next_psn;	/* packets sent so far */
	uint32_t highest;	/* highest PSN acknowledged + 1 */
	uint32_t received;	/* distinct packets received (largest count seen) */
	bool final_set;		/* sent enough once, at final_ns */
	uint64_t final_ns;
	bool tail;		/* the one-RTT wait is over: every slot sends */
	bool done;
	/* Send time of every PSN sent (RTT samples); grows with next_psn. */
	uint64_t *sent_ns;
	uint32_t sent_cap;
	/* RTT estimator (RFC 6298 gains, as htsim's). */
	uint64_t srtt_ns;	/* base RTT until the first sample */
	uint64_t rttvar_ns;
	uint64_t rto_ns;
	uint64_t min_rto_ns;
	bool have_sample;
	/* Feedback timer: no ACK for one RTO while packets are out. */
	uint64_t last_progress_ns;
	uint32_t in_flight_since;	/* next_psn at the last ACK */
	uint64_t checked_ns;	/* the last hs_etx_check_timeout() */
	/* A window limits the sender (hs_etx_set_windowed). */
	bool windowed;
	uint32_t given_up;	/* windowed: out at the last feedback timeout */
	/*
	 * Per-EV timers (hs_etx_path_*), as the study's sender keeps them
	 * for REPS: EV + 1 -> when a packet went out on it with no timer
	 * running; open addressing, allocated on first use.
	 */
	struct hs_etx_evt *evt;
	uint32_t evt_cap;	/* slots, a power of two (0: none yet) */
	uint32_t evt_used;
	uint8_t evt_shift;	/* 32 - log2(evt_cap) */
	/* Counters. */
	uint64_t nb_path_timeouts;
	uint64_t nb_sent;
	uint64_t nb_extra;	/* sent beyond nb_needed */
	uint64_t nb_timeouts;	/* feedback timeouts */
	uint64_t nb_acks;
	uint64_t nb_ce_acks;
};

/*
 * Set up a sender of size bytes in symbols of min(mss, size) bytes plus k
 * extra packets; base_rtt_ns seeds the smoothed RTT.  Returns 0, -EINVAL
 * (size 0, mss 0, more than HS_MAX_PKTS packets) or -ENOMEM.
 */
int hs_etx_init(struct hs_etx *tx, uint64_t size, uint16_t mss, uint32_t k,
		uint64_t base_rtt_ns, uint64_t min_rto_ns, uint64_t now_ns);
void hs_etx_fini(struct hs_etx *tx);

/*
 * The PSN to send at a pacing slot at now, or HS_PSN_NONE (complete, or
 * sent enough and waiting).  The first time it has sent enough it records
 * now, as htsim's sender does when a slot finds nothing to send.  Call
 * hs_etx_sent() if the packet is really sent.
 */
uint32_t hs_etx_next(struct hs_etx *tx, uint64_t now_ns);

/* psn (what hs_etx_next() returned) left at now. */
int hs_etx_sent(struct hs_etx *tx, uint32_t psn, uint64_t now_ns);

/*
 * An ACK: count distinct packets received, echo_psn the packet that
 * triggered it.  Returns the number of packets the count grew by; sets
 * *rtt_ns (may be NULL) to the RTT sample of echo_psn (0 if none).
 */
uint32_t hs_etx_on_ack(struct hs_etx *tx, uint32_t count, uint32_t echo_psn,
		       bool ce, uint64_t now_ns, uint64_t *rtt_ns);

/*
 * The feedback timer: true (once per RTO) when packets are out and no ACK
 * arrived for one RTO.  Nothing is queued for resending.  Packets are out
 * when some were sent since the last ACK; under a window, when any is in
 * flight (hs_etx_set_windowed).
 */
bool hs_etx_check_timeout(struct hs_etx *tx, uint64_t now_ns);

/*
 * Path timers, one per EV, as the study's sender runs them for REPS
 * (constant_cca_erasure*.cpp, _ev_timers): a packet sent on ev starts
 * ev's timer unless it runs already (hs_etx_path_sent); any ACK echoing
 * ev stops it (hs_etx_path_acked); when the policy picks ev again and its
 * timer is older than the RTO, the path timed out (hs_etx_path_expired
 * says so once and stops the timer; the host tells the policy and asks
 * for another EV).  A lost packet's EV is found out only if it is picked
 * again: REPS picks the EVs of ACKs, so its timeouts are rare.
 * path_sent returns 0 or -ENOMEM (the timer is then not kept).
 */
int hs_etx_path_sent(struct hs_etx *tx, uint16_t ev, uint64_t now_ns);
void hs_etx_path_acked(struct hs_etx *tx, uint16_t ev);
bool hs_etx_path_expired(struct hs_etx *tx, uint16_t ev, uint64_t now_ns);

/*
 * When this sender next needs attention without an ACK: the feedback
 * timer, or the end of the one-RTT wait after it sent enough (the pacer
 * must then be woken; the wait ends at its next slot, in hs_etx_next()).
 * The end of a wait counts until a timer check at or after it
 * (hs_etx_check_timeout(), which the host runs when it wakes the flow for
 * it): reported after that it would be in the past for ever.
 * UINT64_MAX: none.
 */
uint64_t hs_etx_timer_ns(const struct hs_etx *tx);

static inline bool
hs_etx_done(const struct hs_etx *tx)
{
	return tx->done;
}

/* Packets lost as far as the sender can tell. */
static inline uint32_t
hs_etx_lost(const struct hs_etx *tx)
{
	return tx->highest > tx->received ? tx->highest - tx->received : 0;
}

/*
 * Packets sent and neither counted received, nor lost as far as the
 * sender can tell, nor (under a window) out when the feedback timer last
 * fired: what a window counts.
 */
static inline uint32_t
hs_etx_in_flight(const struct hs_etx *tx)
{
	uint32_t known = tx->received + hs_etx_lost(tx);

	if (known < tx->given_up)
		known = tx->given_up;
	return tx->next_psn > known ? tx->next_psn - known : 0;
}

/*
 * A window limits this sender (the host's cc = ecn_window), which then
 * relies on hs_etx_in_flight() dropping without an ACK when what is out
 * was lost: the feedback timer runs while any packet is in flight, and
 * when it fires it gives up every packet out, as SACK's RTO does.
 * Without a window (the study's sender) the timer runs only while packets
 * sent since the last ACK are out, and a timeout gives up nothing.
 */
static inline void
hs_etx_set_windowed(struct hs_etx *tx, bool windowed)
{
	tx->windowed = windowed;
}

struct hs_erx {
	uint32_t nb_needed;
	uint32_t received;	/* distinct PSNs */
	uint32_t highest;	/* highest PSN received + 1 */
	uint64_t *bits;		/* received bitmap, grows with the PSNs;
				 * freed (NULL) once complete */
	uint32_t nb_bits;	/* its size in bits */
	uint16_t ack_every;
	uint16_t since_ack;
	/* Counters. */
	uint64_t nb_dups;
	uint64_t nb_ce;
	uint64_t nb_out_of_range;	/* PSN beyond 24 bits or no memory */
	uint32_t max_reorder;
};

/* What an erasure ACK carries (host byte order). */
struct hs_eack_info {
	uint32_t count;
	uint32_t echo_psn;
	bool ce;
};

int hs_erx_init(struct hs_erx *rx, uint32_t nb_needed, uint16_t ack_every);
void hs_erx_fini(struct hs_erx *rx);

/*
 * A data packet psn arrived.  Returns true if it was new.  Sets *send_ack
 * and fills *ack when an ACK is due now: every ack_every packets, at once
 * for CE, a duplicate, and the packet that completes the flow (and every
 * packet after that, so the sender learns it is done).
 */
bool hs_erx_on_data(struct hs_erx *rx, uint32_t psn, bool ce, bool *send_ack,
		    struct hs_eack_info *ack);

static inline bool
hs_erx_done(const struct hs_erx *rx)
{
	return rx->received >= rx->nb_needed;
}

/* Packets of size bytes in symbols of min(mss, size): ceil(size / symbol). */
uint32_t hs_erasure_data_pkts(uint64_t size, uint16_t mss);
/* The payload of every packet of a flow of size bytes. */
uint16_t hs_erasure_symbol(uint64_t size, uint16_t mss);

#endif /* OFAN_HS_ERASURE_H */
