/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cumulative-ACK transports: tcp, trim and gbn (hs_cumack.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cumack.h"

static inline bool
ca_bit(const uint64_t *b, uint32_t i)
{
	return (b[i / 64] >> (i % 64) & 1) != 0;
}

static inline void
ca_set(uint64_t *b, uint32_t i)
{
	b[i / 64] |= UINT64_C(1) << (i % 64);
}

static inline void
ca_clear(uint64_t *b, uint32_t i)
{
	b[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

int
hs_ca_tx_init(struct hs_ca_tx *tx, const struct hs_ca_params *p,
	      uint64_t size)
{
	uint64_t n;

	memset(tx, 0, sizeof(*tx));
	if (size == 0 || p->mss == 0)
		return -EINVAL;
	n = (size + p->mss - 1) / p->mss;
	if (n > HS_MAX_PKTS)
		return -EINVAL;
	tx->size = size;
	tx->nb_pkts = (uint32_t)n;
	tx->mss = p->mss;
	tx->mode = (uint8_t)p->mode;
	tx->fast_retransmit = p->mode == HS_CA_TCP && p->fast_retransmit;
	tx->dupacks_needed = p->dupacks == 0 ? 3 : p->dupacks;
	tx->sack_limit = p->sack_limit;
	tx->rto_ns = p->initial_rto_ns;
	tx->min_rto_ns = p->min_rto_ns;
	tx->pending = calloc((n + 63) / 64, sizeof(*tx->pending));
	tx->sent_ns = calloc(n, sizeof(*tx->sent_ns));
	tx->nb_tx = calloc(n, sizeof(*tx->nb_tx));
	if (tx->pending == NULL || tx->sent_ns == NULL || tx->nb_tx == NULL) {
		hs_ca_tx_fini(tx);
		return -ENOMEM;
	}
	return 0;
}

void
hs_ca_tx_fini(struct hs_ca_tx *tx)
{
	free(tx->pending);
	free(tx->sent_ns);
	free(tx->nb_tx);
	tx->pending = NULL;
	tx->sent_ns = NULL;
	tx->nb_tx = NULL;
}

uint16_t
hs_ca_tx_payload(const struct hs_ca_tx *tx, uint32_t psn)
{
	if (psn + 1 < tx->nb_pkts)
		return tx->mss;
	return (uint16_t)(tx->size - (uint64_t)(tx->nb_pkts - 1) * tx->mss);
}

/* The lowest pending resend at or above cum, HS_PSN_NONE if none. */
static uint32_t
ca_first_pending(const struct hs_ca_tx *tx)
{
	uint32_t w, end = (tx->nb_pkts + 63) / 64;

	if (tx->nb_pending == 0)
		return HS_PSN_NONE;
	for (w = tx->cum / 64; w < end; w++) {
		uint64_t b = tx->pending[w];

		if (w == tx->cum / 64)
			b &= ~UINT64_C(0) << (tx->cum % 64);
		if (b != 0)
			return w * 64 + (uint32_t)__builtin_ctzll(b);
	}
	return HS_PSN_NONE;
}

uint32_t
hs_ca_tx_next(const struct hs_ca_tx *tx)
{
	uint32_t p = ca_first_pending(tx);

	if (p != HS_PSN_NONE)
		return p;
	return tx->next < tx->nb_pkts ? tx->next : HS_PSN_NONE;
}

bool
hs_ca_tx_is_resend(const struct hs_ca_tx *tx, uint32_t psn)
{
	return psn < tx->sent_max;
}

bool
hs_ca_tx_is_repair(const struct hs_ca_tx *tx, uint32_t psn)
{
	return psn < tx->nb_pkts && ca_bit(tx->pending, psn);
}

/* Ask for psn to go before anything else (once). */
static void
ca_pend(struct hs_ca_tx *tx, uint32_t psn)
{
	if (psn >= tx->nb_pkts || psn < tx->cum || ca_bit(tx->pending, psn))
		return;
	ca_set(tx->pending, psn);
	tx->nb_pending++;
}

/* Forget every pending resend (a rewind sends everything again). */
static void
ca_clear_pending(struct hs_ca_tx *tx)
{
	if (tx->nb_pending == 0)
		return;
	memset(tx->pending, 0, (tx->nb_pkts + 63) / 64 * sizeof(*tx->pending));
	tx->nb_pending = 0;
}

void
hs_ca_tx_sent(struct hs_ca_tx *tx, uint32_t psn, uint64_t now_ns)
{
	if (psn >= tx->nb_pkts)
		return;
	if (ca_bit(tx->pending, psn)) {
		ca_clear(tx->pending, psn);
		tx->nb_pending--;
	} else if (psn == tx->next) {
		tx->next++;
	}
	if (psn < tx->sent_max)
		tx->nb_retx++;
	else
		tx->sent_max = psn + 1;
	tx->sent_ns[psn] = now_ns;
	if (tx->nb_tx[psn] != UINT8_MAX)
		tx->nb_tx[psn]++;
	tx->nb_sent++;
	if (tx->deadline_ns == 0)
		tx->deadline_ns = now_ns + tx->rto_ns;
}

/* An RTT sample (RFC 6298's estimator, as htsim's constant_cca). */
static void
ca_rtt(struct hs_ca_tx *tx, uint64_t s)
{
	uint64_t d;

	if (tx->srtt_ns == 0) {
		tx->srtt_ns = s;
		tx->mdev_ns = s / 2;
	} else {
		d = s > tx->srtt_ns ? s - tx->srtt_ns : tx->srtt_ns - s;
		tx->mdev_ns = (3 * tx->mdev_ns + d) / 4;
		tx->srtt_ns = (7 * tx->srtt_ns + s) / 8;
	}
	tx->rto_ns = tx->srtt_ns + 4 * tx->mdev_ns;
	if (tx->rto_ns < tx->min_rto_ns)
		tx->rto_ns = tx->min_rto_ns;
}

/*
 * tcp's fast retransmit on the dupacks-th duplicate ACK: the hole at cum,
 * or with sack_limit every hole before the furthest SACKed packet when
 * that is more than sack_limit past cum (htsim's -sack N).
 */
static void
ca_fast_retransmit(struct hs_ca_tx *tx, uint64_t sack)
{
	uint32_t furthest, i;

	tx->in_recovery = true;
	tx->recover = tx->sent_max;
	tx->nb_fast_retx++;
	if (tx->sack_limit == 0) {
		ca_pend(tx, tx->cum);
		return;
	}
	if (sack == 0)
		return;
	furthest = 64 - (uint32_t)__builtin_clzll(sack);	/* past the cum */
	if (furthest <= tx->sack_limit)
		return;
	ca_pend(tx, tx->cum);
	for (i = 0; i + 1 < furthest; i++)
		if (!(sack >> i & 1))
			ca_pend(tx, tx->cum + 1 + i);
	tx->deadline_ns = 0;	/* re-armed by the resends */
}

uint32_t
hs_ca_tx_on_ack(struct hs_ca_tx *tx, uint32_t cum, uint64_t sack,
		uint32_t echo_psn, bool nack, uint64_t now_ns,
		uint64_t *rtt_ns)
{
	uint32_t newly = 0;

	if (rtt_ns != NULL)
		*rtt_ns = 0;
	/* A NACK is no RTT sample (htsim's constant_cca takes none). */
	if (!nack && echo_psn < tx->nb_pkts && tx->nb_tx[echo_psn] == 1 &&
	    now_ns >= tx->sent_ns[echo_psn]) {
		uint64_t s = now_ns - tx->sent_ns[echo_psn];

		ca_rtt(tx, s);
		if (rtt_ns != NULL)
			*rtt_ns = s;
	}
	if (cum > tx->nb_pkts)
		cum = tx->nb_pkts;
	if (cum > tx->cum) {
		newly = cum - tx->cum;
		tx->cum = cum;
		if (tx->next < cum)
			tx->next = cum;	/* it jumped past a rewind */
		tx->nb_dupacks = 0;
		tx->deadline_ns = cum >= tx->sent_max ? 0 : now_ns + tx->rto_ns;
		if (tx->in_recovery) {
			if (cum >= tx->recover)
				tx->in_recovery = false;
			else
				ca_pend(tx, cum);	/* a partial ACK */
		}
	} else if (!nack && cum == tx->cum && tx->fast_retransmit &&
		   !tx->in_recovery && tx->cum < tx->sent_max &&
		   ++tx->nb_dupacks == tx->dupacks_needed) {
		ca_fast_retransmit(tx, sack);	/* the dupacks-th duplicate */
	}
	if (nack)
		hs_ca_tx_on_nack(tx, echo_psn, now_ns);
	return newly;
}

void
hs_ca_tx_on_nack(struct hs_ca_tx *tx, uint32_t psn, uint64_t now_ns)
{
	(void)now_ns;
	tx->nb_nacks++;
	if (psn < tx->cum || psn >= tx->sent_max)
		return;	/* already acknowledged, or never sent */
	if (tx->mode == HS_CA_GBN) {
		/* Everything from psn on again, in order. */
		tx->next = psn;
		ca_clear_pending(tx);
		return;
	}
	/*
	 * Not sent again yet since a go-back-N rewind: the pass itself
	 * resends it (htsim's constant_cca likewise takes no NACK beyond
	 * what it has sent since its rewind).
	 */
	if (psn >= tx->next)
		return;
	ca_pend(tx, psn);
}

bool
hs_ca_tx_check_timeout(struct hs_ca_tx *tx, uint64_t now_ns)
{
	if (tx->deadline_ns == 0 || now_ns < tx->deadline_ns ||
	    hs_ca_tx_done(tx))
		return false;
	tx->nb_timeouts++;
	tx->rto_ns *= 2;
	tx->deadline_ns = now_ns + tx->rto_ns;
	tx->in_recovery = false;
	tx->nb_dupacks = 0;
	tx->next = tx->cum;	/* go back N */
	ca_clear_pending(tx);
	return true;
}

/* ---- receiver ---- */

int
hs_ca_rx_init(struct hs_ca_rx *rx, bool in_order, uint32_t nb_pkts,
	      uint16_t ack_every)
{
	memset(rx, 0, sizeof(*rx));
	rx->in_order = in_order;
	rx->nb_pkts = nb_pkts;
	if (in_order)
		return nb_pkts == 0 || nb_pkts > HS_MAX_PKTS ? -EINVAL : 0;
	return hs_rx_init(&rx->rx, nb_pkts, ack_every);
}

void
hs_ca_rx_fini(struct hs_ca_rx *rx)
{
	if (!rx->in_order)
		hs_rx_fini(&rx->rx);
}

bool
hs_ca_rx_on_data(struct hs_ca_rx *rx, uint32_t psn, bool ce, bool *send_ack,
		 struct hs_ack_info *ack, bool *nack)
{
	*nack = false;
	if (!rx->in_order)
		return hs_rx_on_data(&rx->rx, psn, ce, send_ack, ack);
	rx->nb_ce += ce;
	*send_ack = psn < rx->nb_pkts;
	ack->sack = 0;
	ack->echo_psn = psn;
	ack->ce = ce;
	if (psn >= rx->nb_pkts)
		return false;
	if (psn == rx->expected) {
		rx->expected++;
		ack->cum_psn = rx->expected;
		return true;
	}
	ack->cum_psn = rx->expected;
	if (psn > rx->expected) {
		/* Out of order: discarded, and the expected PSN NACKed. */
		rx->nb_discarded++;
		*nack = true;
		ack->echo_psn = rx->expected;
		return false;
	}
	rx->nb_dups++;
	return false;
}

uint32_t
hs_ca_rx_count(const struct hs_ca_rx *rx)
{
	return rx->in_order ? rx->expected : rx->rx.nb_received;
}
