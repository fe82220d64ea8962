/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The erasure-coded constant-rate transport (hs_erasure.h): sender and
 * receiver state machines, no EAL.
 *
 * The sender's rules, one per htsim ConstantErasureCcaSrc behaviour:
 *   send_packets()   complete: nothing; sent - lost >= needed: the first
 *                    slot that finds it so records the time and sends
 *                    nothing, later slots send only once more than one
 *                    smoothed RTT has passed since (hs_etx_next);
 *   receivePacket()  the count is the largest seen (ACKs may reorder),
 *                    the highest acknowledged PSN likewise; the RTT sample
 *                    of the echoed packet updates srtt and rttvar with
 *                    gains 1/8 and 1/4, rto = srtt + 4 rttvar >= min_rto;
 *                    any ACK restarts the feedback timer (hs_etx_on_ack);
 *   is_complete()    count >= needed, known from an ACK.
 * PSNs are 24 bits on the wire: a flow that would need more (a failure
 * nobody routes around, for ever) stops sending there and never
 * completes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hs_erasure.h"

uint16_t
hs_erasure_symbol(uint64_t size, uint16_t mss)
{
	return (uint16_t)(size < mss ? size : mss);
}

uint32_t
hs_erasure_data_pkts(uint64_t size, uint16_t mss)
{
	uint16_t sym = hs_erasure_symbol(size, mss);
	uint64_t n;

	if (sym == 0)
		return 0;
	n = size / sym + (size % sym != 0);
	return n > HS_MAX_PKTS ? 0 : (uint32_t)n;
}

int
hs_etx_init(struct hs_etx *tx, uint64_t size, uint16_t mss, uint32_t k,
	    uint64_t base_rtt_ns, uint64_t min_rto_ns, uint64_t now_ns)
{
	uint32_t data = hs_erasure_data_pkts(size, mss);

	memset(tx, 0, sizeof(*tx));
	if (data == 0 || (uint64_t)data + k >= HS_MAX_PKTS)
		return -EINVAL;
	tx->size = size;
	tx->symbol = hs_erasure_symbol(size, mss);
	tx->nb_needed = data + k;
	tx->srtt_ns = base_rtt_ns;
	tx->rttvar_ns = base_rtt_ns / 2;
	tx->min_rto_ns = min_rto_ns;
	tx->rto_ns = base_rtt_ns + 4 * tx->rttvar_ns;
	if (tx->rto_ns < min_rto_ns)
		tx->rto_ns = min_rto_ns;
	tx->last_progress_ns = now_ns;
	tx->sent_cap = tx->nb_needed;
	tx->sent_ns = malloc(sizeof(*tx->sent_ns) * tx->sent_cap);
	return tx->sent_ns == NULL ? -ENOMEM : 0;
}

void
hs_etx_fini(struct hs_etx *tx)
{
	free(tx->sent_ns);
	tx->sent_ns = NULL;
}

uint32_t
hs_etx_next(struct hs_etx *tx, uint64_t now_ns)
{
	if (tx->done || tx->next_psn >= HS_MAX_PKTS)
		return HS_PSN_NONE;
	if (tx->next_psn - hs_etx_lost(tx) < tx->nb_needed)
		return tx->next_psn;
	if (!tx->final_set) {
		tx->final_set = true;
		tx->final_ns = now_ns;
		return HS_PSN_NONE;
	}
	/* Still incomplete one smoothed RTT later: every slot sends. */
	if (tx->tail ||
	    (now_ns > tx->final_ns && now_ns - tx->final_ns > tx->srtt_ns)) {
		tx->tail = true;
		return tx->next_psn;
	}
	return HS_PSN_NONE;
}

int
hs_etx_sent(struct hs_etx *tx, uint32_t psn, uint64_t now_ns)
{
	if (psn != tx->next_psn || psn >= HS_MAX_PKTS)
		return -EINVAL;
	if (psn == tx->sent_cap) {
		uint32_t cap = tx->sent_cap * 2 > HS_MAX_PKTS ?
			HS_MAX_PKTS : tx->sent_cap * 2;
		uint64_t *s = realloc(tx->sent_ns, sizeof(*s) * cap);

		if (s == NULL)
			return -ENOMEM;
		tx->sent_ns = s;
		tx->sent_cap = cap;
	}
	/* Nothing was out: the feedback timer starts with this packet. */
	if (tx->next_psn == tx->in_flight_since)
		tx->last_progress_ns = now_ns;
	tx->sent_ns[psn] = now_ns;
	tx->next_psn++;
	tx->nb_sent++;
	if (tx->next_psn > tx->nb_needed)
		tx->nb_extra++;
	return 0;
}

static void
hs_etx_rtt(struct hs_etx *tx, uint64_t rtt)
{
	uint64_t diff;

	if (!tx->have_sample) {
		tx->have_sample = true;
		tx->srtt_ns = rtt;
		tx->rttvar_ns = rtt / 2;
	} else {
		diff = rtt > tx->srtt_ns ? rtt - tx->srtt_ns :
			tx->srtt_ns - rtt;
		tx->rttvar_ns = (3 * tx->rttvar_ns + diff) / 4;
		tx->srtt_ns = (7 * tx->srtt_ns + rtt) / 8;
	}
	tx->rto_ns = tx->srtt_ns + 4 * tx->rttvar_ns;
	if (tx->rto_ns < tx->min_rto_ns)
		tx->rto_ns = tx->min_rto_ns;
}

uint32_t
hs_etx_on_ack(struct hs_etx *tx, uint32_t count, uint32_t echo_psn, bool ce,
	      uint64_t now_ns, uint64_t *rtt_ns)
{
	uint32_t newly = 0;
	uint64_t rtt = 0;

	tx->nb_acks++;
	tx->nb_ce_acks += ce;
	/* A receiver cannot have more than was sent, nor a PSN not sent. */
	if (count > tx->next_psn)
		count = tx->next_psn;
	if (echo_psn < tx->next_psn) {
		if (now_ns >= tx->sent_ns[echo_psn]) {
			rtt = now_ns - tx->sent_ns[echo_psn];
			hs_etx_rtt(tx, rtt);
		}
		if (echo_psn + 1 > tx->highest)
			tx->highest = echo_psn + 1;
	}
	if (count > tx->received) {
		newly = count - tx->received;
		tx->received = count;
	}
	tx->last_progress_ns = now_ns;
	tx->in_flight_since = tx->next_psn;
	if (tx->received >= tx->nb_needed)
		tx->done = true;
	if (rtt_ns != NULL)
		*rtt_ns = rtt;
	return newly;
}

bool
hs_etx_check_timeout(struct hs_etx *tx, uint64_t now_ns)
{
	if (tx->done || tx->next_psn == tx->in_flight_since ||
	    now_ns < tx->last_progress_ns ||
	    now_ns - tx->last_progress_ns < tx->rto_ns)
		return false;
	tx->nb_timeouts++;
	tx->last_progress_ns = now_ns;
	return true;
}

uint64_t
hs_etx_timer_ns(const struct hs_etx *tx)
{
	uint64_t t = UINT64_MAX;

	if (tx->done)
		return UINT64_MAX;
	if (tx->next_psn != tx->in_flight_since &&
	    tx->rto_ns <= UINT64_MAX - tx->last_progress_ns)
		t = tx->last_progress_ns + tx->rto_ns;
	/* The one-RTT wait ends at the first ns after final + srtt. */
	if (tx->final_set && !tx->tail && tx->srtt_ns < UINT64_MAX - tx->final_ns - 1 &&
	    tx->final_ns + tx->srtt_ns + 1 < t)
		t = tx->final_ns + tx->srtt_ns + 1;
	return t;
}

/* ---- receiver ---- */

int
hs_erx_init(struct hs_erx *rx, uint32_t nb_needed, uint16_t ack_every)
{
	memset(rx, 0, sizeof(*rx));
	if (nb_needed == 0 || nb_needed >= HS_MAX_PKTS || ack_every == 0)
		return -EINVAL;
	rx->nb_needed = nb_needed;
	rx->ack_every = ack_every;
	/* Room for every packet needed and as many again lost. */
	rx->nb_bits = (2 * nb_needed + 63) & ~63u;
	rx->bits = calloc(rx->nb_bits / 64, sizeof(*rx->bits));
	return rx->bits == NULL ? -ENOMEM : 0;
}

void
hs_erx_fini(struct hs_erx *rx)
{
	free(rx->bits);
	rx->bits = NULL;
}

/* Make the bitmap cover psn; false if it cannot. */
static bool
hs_erx_cover(struct hs_erx *rx, uint32_t psn)
{
	uint32_t nb = rx->nb_bits;
	uint64_t *b;

	if (psn < nb)
		return true;
	if (psn >= HS_MAX_PKTS)
		return false;
	while (nb <= psn)
		nb = nb * 2 > HS_MAX_PKTS ? HS_MAX_PKTS : nb * 2;
	b = realloc(rx->bits, (size_t)nb / 8);
	if (b == NULL)
		return false;
	memset(b + rx->nb_bits / 64, 0, (size_t)(nb - rx->nb_bits) / 8);
	rx->bits = b;
	rx->nb_bits = nb;
	return true;
}

bool
hs_erx_on_data(struct hs_erx *rx, uint32_t psn, bool ce, bool *send_ack,
	       struct hs_eack_info *ack)
{
	bool is_new, at_once;
	uint64_t bit;

	*send_ack = false;
	if (!hs_erx_cover(rx, psn)) {
		rx->nb_out_of_range++;
		return false;
	}
	if (ce)
		rx->nb_ce++;
	rx->since_ack++;
	bit = 1ull << (psn & 63);
	if (rx->bits[psn >> 6] & bit) {
		rx->nb_dups++;
		is_new = false;
		at_once = true;
	} else {
		rx->bits[psn >> 6] |= bit;
		rx->received++;
		is_new = true;
		if (psn < rx->highest) {
			if (rx->highest - 1 - psn > rx->max_reorder)
				rx->max_reorder = rx->highest - 1 - psn;
		} else {
			rx->highest = psn + 1;
		}
		at_once = ce || hs_erx_done(rx) ||
			rx->since_ack >= rx->ack_every;
	}
	if (at_once) {
		ack->count = rx->received;
		ack->echo_psn = psn;
		ack->ce = ce;
		rx->since_ack = 0;
		*send_ack = true;
	}
	return is_new;
}
