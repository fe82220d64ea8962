/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cumulative-ACK transports, both ends, as plain state machines: the
 * study's other loss-recovery stacks (docs/recovery.md), the three
 * recovery models tcp, trim and gbn (hs_recovery.c).
 *
 * Sender (hs_ca_tx): PSNs 0 .. nb_pkts-1 sent in order from `next`, a
 * pointer a go-back-N rewinds; resends the receiver asked for (a NACK, a
 * fast retransmit) go first, lowest PSN first.  ACKs are cumulative
 * (every PSN below `cum` arrived) with a 64-bit SACK bitmap and echo the
 * PSN of the packet that caused them, whose send time gives the RTT.
 *  - tcp  (htsim's constant_cca): a duplicate ACK is one whose cumulative
 *         PSN does not move; dupacks of them in a row start fast
 *         retransmit (the hole at cum, or with sack_limit every hole
 *         before the furthest SACKed packet once it is more than
 *         sack_limit past cum) and fast recovery until cum passes what
 *         was sent then, resending the new hole at each partial ACK.
 *  - trim (constant_cca -trim -nofr): no fast retransmit; a NACK (the
 *         receiver got a trimmed header) or a header returned by a
 *         switch (rts) resends exactly that PSN -- unless a go-back-N
 *         rewind has not reached it yet, which resends it anyway.
 *  - gbn  (RoCE): a NACK names the PSN the receiver expects: the sender
 *         rewinds to it and sends in order from there.
 * All three time out: no progress for the RTO (srtt + 4 mdev, at least
 * min_rto, initial_rto before a sample, doubled at each timeout up to
 * max_rto and recomputed at the next sample) rewinds to cum (go-back-N)
 * and leaves fast recovery.
 *
 * Receiver (hs_ca_rx): tcp and trim accept out of order into a bitmap and
 * ACK every packet (hs_rx's rules with ack_every); a trimmed header gets
 * a NACK for its PSN.  gbn accepts only the PSN it expects: anything
 * later is discarded and NACKed with the expected PSN, anything earlier
 * ACKed again.
 *
 * Settings: [recovery.tcp] dupacks, fast_retransmit, sack_limit,
 * initial_rto and max_rto; [recovery.trim] and [recovery.gbn]
 * initial_rto and max_rto (struct hs_ca_settings; docs/recovery.md).
 *
 * No EAL, no mbufs: unit tested alone (tests/test_cumack.c).
 */
#ifndef OFAN_HS_CUMACK_H
#define OFAN_HS_CUMACK_H

#include <stdbool.h>
#include <stdint.h>

#include "hs_sack.h"
#include "hs_transport.h"

enum hs_ca_mode {
	HS_CA_TCP = 0,
	HS_CA_TRIM,
	HS_CA_GBN,
};

/*
 * The three models' settings block (hs_transport_params.settings): tcp
 * reads every key from [recovery.tcp], trim and gbn initial_rto and
 * max_rto alone from theirs, and keep the defaults of the rest.
 */
struct hs_ca_settings {
	uint64_t initial_rto_ns;	/* the RTO before the first sample (1ms) */
	uint64_t max_rto_ns;	/* the most a timeout doubles it to (1s), or initial_rto */
	uint32_t dupacks;	/* tcp: duplicate ACKs to a fast retransmit (3) */
	uint32_t sack_limit;	/* tcp: 0 off, N: htsim's -sack N (0) */
	bool fast_retransmit;	/* tcp: no is htsim's -nofr (yes) */
};

/* What a sender is set up with: its settings and the host's facts. */
struct hs_ca_params {
	enum hs_ca_mode mode;
	uint16_t mss;
	uint32_t dupacks;	/* tcp: duplicate ACKs that start a fast retransmit */
	bool fast_retransmit;	/* tcp: off is htsim's -nofr */
	uint32_t sack_limit;	/* tcp: 0 off, else htsim's -sack N */
	uint64_t initial_rto_ns;
	uint64_t min_rto_ns;
	uint64_t max_rto_ns;	/* 0: no bound */
};

struct hs_ca_tx {
	uint64_t size;
	uint32_t nb_pkts;
	uint16_t mss;
	uint8_t mode;		/* enum hs_ca_mode */
	bool fast_retransmit;
	uint32_t dupacks_needed;
	uint32_t sack_limit;
	uint32_t cum;		/* every PSN below is acknowledged */
	uint32_t next;		/* the next PSN to send in order */
	uint32_t sent_max;	/* every PSN below was sent at least once */
	uint32_t nb_dupacks;	/* duplicate ACKs in a row */
	bool in_recovery;	/* tcp: fast recovery until cum >= recover */
	uint32_t recover;
	uint64_t *pending;	/* bitmap: to resend before anything else */
	uint32_t nb_pending;
	uint64_t *sent_ns;	/* last send time per PSN */
	uint8_t *nb_tx;		/* sends per PSN (saturating) */
	/* The RTO. */
	uint64_t srtt_ns, mdev_ns, rto_ns, min_rto_ns, max_rto_ns;
	uint64_t deadline_ns;	/* 0: not armed */
	/* Counters. */
	uint64_t nb_sent, nb_retx, nb_timeouts, nb_nacks, nb_fast_retx;
};

int hs_ca_tx_init(struct hs_ca_tx *tx, const struct hs_ca_params *p,
		  uint64_t size);
void hs_ca_tx_fini(struct hs_ca_tx *tx);
/* Payload bytes of psn (the last packet may be short). */
uint16_t hs_ca_tx_payload(const struct hs_ca_tx *tx, uint32_t psn);
/* The PSN to send now, HS_PSN_NONE when there is none. */
uint32_t hs_ca_tx_next(const struct hs_ca_tx *tx);
/* psn, as hs_ca_tx_next() gave it, left at now. */
void hs_ca_tx_sent(struct hs_ca_tx *tx, uint32_t psn, uint64_t now_ns);
/* Whether sending psn resends something (a resend or a rewind). */
bool hs_ca_tx_is_resend(const struct hs_ca_tx *tx, uint32_t psn);
/* psn is a resend the receiver asked for (a NACK, a fast retransmit),
 * not the in-order stream from next (new data, a go-back-N pass). */
bool hs_ca_tx_is_repair(const struct hs_ca_tx *tx, uint32_t psn);
/*
 * An ACK: cumulative PSN cum, SACK bit i for PSN cum + 1 + i, the echoed
 * PSN; or a NACK (nack) of echo_psn, whose cum counts too but which is
 * neither a duplicate ACK nor an RTT sample.  Returns the packets newly
 * acknowledged; *rtt_ns a sample or 0.
 */
uint32_t hs_ca_tx_on_ack(struct hs_ca_tx *tx, uint32_t cum, uint64_t sack,
			 uint32_t echo_psn, bool nack, uint64_t now_ns,
			 uint64_t *rtt_ns);
/*
 * A NACK of psn (trim: resend it; gbn: rewind to it), or a header a
 * switch returned (rts: resend it).
 */
void hs_ca_tx_on_nack(struct hs_ca_tx *tx, uint32_t psn, uint64_t now_ns);
/* The RTO at now: true if it expired (and was handled). */
bool hs_ca_tx_check_timeout(struct hs_ca_tx *tx, uint64_t now_ns);
static inline uint64_t
hs_ca_tx_timer_ns(const struct hs_ca_tx *tx)
{
	return tx->deadline_ns == 0 ? UINT64_MAX : tx->deadline_ns;
}
static inline bool
hs_ca_tx_done(const struct hs_ca_tx *tx)
{
	return tx->cum >= tx->nb_pkts;
}

struct hs_ca_rx {
	struct hs_rx rx;	/* tcp, trim: the bitmap receiver */
	bool in_order;		/* gbn */
	uint32_t expected;	/* gbn: the next PSN it accepts */
	uint32_t nb_pkts;
	uint64_t nb_discarded;	/* gbn: out of order, discarded */
	uint64_t nb_ce;
	uint64_t nb_dups;
};

int hs_ca_rx_init(struct hs_ca_rx *rx, bool in_order, uint32_t nb_pkts,
		  uint16_t ack_every);
void hs_ca_rx_fini(struct hs_ca_rx *rx);
/*
 * Data psn arrived: true if it is new.  *send_ack and *ack when an ACK
 * or (*nack) a NACK is due.
 */
bool hs_ca_rx_on_data(struct hs_ca_rx *rx, uint32_t psn, bool ce,
		      bool *send_ack, struct hs_ack_info *ack, bool *nack);
/* The received count. */
uint32_t hs_ca_rx_count(const struct hs_ca_rx *rx);

#endif /* OFAN_HS_CUMACK_H */
