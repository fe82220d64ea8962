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
#include "hs_transport.h"
#include "ofan_config.h"

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
	free(tx->evt);
	tx->evt = NULL;
	tx->evt_cap = 0;
	tx->evt_used = 0;
}

/* ---- per-EV path timers: linear probing on EV + 1 ---- */

#define HS_EVT_MIN_CAP 16u

static uint32_t
hs_evt_home(const struct hs_etx *tx, uint32_t key)
{
	return (key * 2654435761u) >> tx->evt_shift;
}

/* The slot of key, or evt_cap if it has none. */
static uint32_t
hs_evt_find(const struct hs_etx *tx, uint32_t key)
{
	uint32_t mask = tx->evt_cap - 1, i;

	if (tx->evt_cap == 0)
		return 0;
	for (i = hs_evt_home(tx, key); tx->evt[i].key != 0;
	     i = (i + 1) & mask)
		if (tx->evt[i].key == key)
			return i;
	return tx->evt_cap;
}

static void
hs_evt_put(struct hs_etx *tx, uint32_t key, uint64_t t)
{
	uint32_t mask = tx->evt_cap - 1, i;

	for (i = hs_evt_home(tx, key); tx->evt[i].key != 0;
	     i = (i + 1) & mask)
		;
	tx->evt[i].key = key;
	tx->evt[i].sent_ns = t;
	tx->evt_used++;
}

/* Double the table (or make the first); -ENOMEM leaves it as it was. */
static int
hs_evt_grow(struct hs_etx *tx)
{
	uint32_t cap = tx->evt_cap ? tx->evt_cap * 2 : HS_EVT_MIN_CAP, i;
	struct hs_etx_evt *old = tx->evt, *t;
	uint32_t old_cap = tx->evt_cap;

	t = calloc(cap, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	tx->evt = t;
	tx->evt_cap = cap;
	tx->evt_used = 0;
	tx->evt_shift = (uint8_t)(32 - __builtin_ctz(cap));
	for (i = 0; i < old_cap; i++)
		if (old[i].key != 0)
			hs_evt_put(tx, old[i].key, old[i].sent_ns);
	free(old);
	return 0;
}

/* Free slot i, moving later entries of its run back (no tombstones). */
static void
hs_evt_remove(struct hs_etx *tx, uint32_t i)
{
	uint32_t mask = tx->evt_cap - 1, j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (tx->evt[j].key == 0)
			break;
		k = hs_evt_home(tx, tx->evt[j].key);
		/* An entry whose home lies cyclically in (i, j] stays. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		tx->evt[i] = tx->evt[j];
		i = j;
	}
	tx->evt[i].key = 0;
	tx->evt_used--;
}

int
hs_etx_path_sent(struct hs_etx *tx, uint16_t ev, uint64_t now_ns)
{
	uint32_t key = (uint32_t)ev + 1;

	if (hs_evt_find(tx, key) < tx->evt_cap)
		return 0;	/* its timer runs already */
	if ((tx->evt_used + 1) * 2 > tx->evt_cap && hs_evt_grow(tx) != 0)
		return -ENOMEM;
	hs_evt_put(tx, key, now_ns);
	return 0;
}

void
hs_etx_path_acked(struct hs_etx *tx, uint16_t ev)
{
	uint32_t i = hs_evt_find(tx, (uint32_t)ev + 1);

	if (i < tx->evt_cap)
		hs_evt_remove(tx, i);
}

bool
hs_etx_path_expired(struct hs_etx *tx, uint16_t ev, uint64_t now_ns)
{
	uint32_t i = hs_evt_find(tx, (uint32_t)ev + 1);

	if (i >= tx->evt_cap || now_ns < tx->evt[i].sent_ns ||
	    now_ns - tx->evt[i].sent_ns <= tx->rto_ns)
		return false;
	hs_evt_remove(tx, i);
	tx->nb_path_timeouts++;
	return true;
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

/* Are packets out, for the feedback timer (hs_etx_set_windowed)? */
static bool
hs_etx_out(const struct hs_etx *tx)
{
	if (tx->windowed)
		return hs_etx_in_flight(tx) > 0;
	return tx->next_psn != tx->in_flight_since;
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
	if (!hs_etx_out(tx))
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
	tx->checked_ns = now_ns;
	if (tx->done || !hs_etx_out(tx) || now_ns < tx->last_progress_ns ||
	    now_ns - tx->last_progress_ns < tx->rto_ns)
		return false;
	tx->nb_timeouts++;
	tx->last_progress_ns = now_ns;
	if (tx->windowed)
		tx->given_up = tx->next_psn;
	return true;
}

uint64_t
hs_etx_timer_ns(const struct hs_etx *tx)
{
	uint64_t t = UINT64_MAX;

	if (tx->done)
		return UINT64_MAX;
	if (hs_etx_out(tx) &&
	    tx->rto_ns <= UINT64_MAX - tx->last_progress_ns)
		t = tx->last_progress_ns + tx->rto_ns;
	/*
	 * The one-RTT wait ends at the first ns after final + srtt -- if the
	 * sender waits (once ACKs showed losses it sends again at its slots)
	 * and no timer check has come since (the host has woken the flow;
	 * its next slot ends the wait).  Otherwise that time, soon in the
	 * past, would hide the feedback timer and call for attention at
	 * every ns.
	 */
	if (tx->final_set && !tx->tail &&
	    tx->next_psn - hs_etx_lost(tx) >= tx->nb_needed &&
	    tx->srtt_ns < UINT64_MAX - tx->final_ns - 1 &&
	    tx->final_ns + tx->srtt_ns + 1 > tx->checked_ns &&
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
	if (hs_erx_done(rx) && rx->bits == NULL) {
		/*
		 * Complete, and the bitmap freed (below).  The sender never
		 * sends a PSN twice, so a packet still in flight is a new one:
		 * counted as the bitmap would have counted it (a frame the
		 * network duplicated would now count twice), and ACKed at once.
		 */
		if (psn >= HS_MAX_PKTS) {
			rx->nb_out_of_range++;
			return false;
		}
		rx->nb_ce += ce;
		rx->received++;
		if (psn < rx->highest) {
			if (rx->highest - 1 - psn > rx->max_reorder)
				rx->max_reorder = rx->highest - 1 - psn;
		} else {
			rx->highest = psn + 1;
		}
		ack->count = rx->received;
		ack->echo_psn = psn;
		ack->ce = ce;
		rx->since_ack = 0;
		*send_ack = true;
		return true;
	}
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
		if (hs_erx_done(rx)) {
			/*
			 * A complete flow needs only its counters: the bitmap,
			 * which grew with every PSN the sender spent on losses,
			 * would otherwise stay to the end of the run (memory
			 * that grew with every flow of a long soak).
			 */
			free(rx->bits);
			rx->bits = NULL;
			rx->nb_bits = 0;
		}
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

_Static_assert(sizeof(struct hs_etx) <= HS_RECOVERY_TX_STATE,
	       "erasure's sender outgrew HS_RECOVERY_TX_STATE");
_Static_assert(sizeof(struct hs_erx) <= HS_RECOVERY_RX_STATE,
	       "erasure's receiver outgrew HS_RECOVERY_RX_STATE");

/* ---- erasure as a loss-recovery model (hs_transport.h) ---- */

static void
era_defaults(void *settings)
{
	/* The study's simulator's default. */
	((struct hs_erasure_settings *)settings)->k = 3;
}

static int
era_parse(struct ofan_cfg *cfg, const char *sec, void *settings)
{
	struct hs_erasure_settings *s = settings;

	return ofan_cfg_get_u32(cfg, sec, "k", 0, 0, 1u << 20, &s->k);
}

static uint32_t
era_nb_pkts(const struct hs_transport_params *p, uint64_t size)
{
	const struct hs_erasure_settings *s = p->settings;
	uint32_t n = hs_erasure_data_pkts(size, p->mss);

	return n == 0 ? 0 : n + s->k;
}

static int
era_tx_init(void *tx, const struct hs_transport_params *p, uint64_t size,
	    uint64_t now)
{
	const struct hs_erasure_settings *s = p->settings;
	int rc = hs_etx_init(tx, size, p->mss, s->k, p->base_rtt_ns,
			     p->min_rto_ns, now);

	hs_etx_set_windowed(tx, p->windowed);
	return rc;
}

static void
era_tx_fini(void *tx)
{
	hs_etx_fini(tx);
}

/*
 * Every symbol is new data; one beyond the packets the receiver needs
 * makes up for a loss (a PSN is never resent).
 */
static void
era_tx_next(void *tx, uint64_t now, struct hs_tx_pkt *pkt)
{
	struct hs_etx *t = tx;

	pkt->psn = hs_etx_next(t, now);
	if (pkt->psn == HS_PSN_NONE)
		return;
	pkt->payload = t->symbol;
	pkt->resend = pkt->psn >= t->nb_needed;
	pkt->repair = pkt->resend;
	pkt->grows = true;
}

static uint16_t
era_tx_payload(const void *tx, uint32_t psn)
{
	(void)psn;
	return ((const struct hs_etx *)tx)->symbol;
}

static void
era_tx_sent(void *tx, uint32_t psn, uint64_t now)
{
	hs_etx_sent(tx, psn, now);
}

static void
era_tx_on_ack(void *tx, const struct hs_ack_content *a, uint64_t now,
	      struct hs_tx_acked *r)
{
	r->acked = hs_etx_on_ack(tx, a->cum, a->echo_psn, a->ce, now,
				 &r->rtt_ns);
	r->done = hs_etx_done(tx);
}

static bool
era_tx_check_timeout(void *tx, uint64_t now)
{
	return hs_etx_check_timeout(tx, now);
}

static uint64_t
era_tx_timer_ns(const void *tx)
{
	return hs_etx_timer_ns(tx);
}

static uint32_t
era_tx_in_flight(const void *tx)
{
	return hs_etx_in_flight(tx);
}

static uint64_t
era_tx_acked_bytes(const void *tx)
{
	const struct hs_etx *t = tx;

	return (uint64_t)t->received * t->symbol;
}

static void
era_tx_counters(const void *tx, uint64_t *sent, uint64_t *retx,
		uint64_t *timeouts)
{
	const struct hs_etx *t = tx;

	*sent = t->nb_sent;
	*retx = t->nb_extra;
	*timeouts = t->nb_timeouts;
}

/* A timer not kept (no memory) is a timeout not seen: feedback only. */
static void
era_tx_path_sent(void *tx, uint16_t ev, uint64_t now)
{
	(void)hs_etx_path_sent(tx, ev, now);
}

static void
era_tx_path_acked(void *tx, uint16_t ev)
{
	hs_etx_path_acked(tx, ev);
}

static bool
era_tx_path_expired(void *tx, uint16_t ev, uint64_t now)
{
	return hs_etx_path_expired(tx, ev, now);
}

static int
era_rx_init(void *rx, const struct hs_transport_params *p, uint32_t nb_pkts,
	    uint16_t ack_every)
{
	(void)p;
	return hs_erx_init(rx, nb_pkts, ack_every);
}

static void
era_rx_fini(void *rx)
{
	hs_erx_fini(rx);
}

static bool
era_rx_on_data(void *rx, uint32_t psn, bool ce, bool *send_ack,
	       struct hs_ack_content *ack)
{
	struct hs_eack_info e = { 0 };	/* set with *send_ack */
	bool is_new = hs_erx_on_data(rx, psn, ce, send_ack, &e);

	if (*send_ack) {
		ack->cum = e.count;
		ack->sack = 0;
		ack->echo_psn = e.echo_psn;
		ack->ce = e.ce;
	}
	return is_new;
}

static bool
era_rx_done(const void *rx)
{
	return hs_erx_done(rx);
}

static uint32_t
era_rx_count(const void *rx)
{
	return ((const struct hs_erx *)rx)->received;
}

/* Every symbol has the same size; any PSN a 24-bit BTH can carry. */
static uint16_t
era_rx_expect(const void *rx, uint32_t psn, uint64_t size, uint16_t mss)
{
	(void)rx;
	return psn < HS_MAX_PKTS ? hs_erasure_symbol(size, mss) : 0;
}

static void
era_rx_counters(const void *rx, uint32_t *max_reorder, uint64_t *dups,
		uint64_t *ce)
{
	const struct hs_erx *r = rx;

	*max_reorder = r->max_reorder;
	*dups = r->nb_dups;
	*ce = r->nb_ce;
}

const struct hs_recovery_ops hs_recovery_erasure = {
	.name = "erasure",
	.summary = "the study's erasure-coded constant-rate sender: losses made up by new packets",
	.counts = true,
	.flight_sheds_lost = true,
	.tx_size = sizeof(struct hs_etx),
	.rx_size = sizeof(struct hs_erx),
	.settings_size = sizeof(struct hs_erasure_settings),
	.defaults = era_defaults,
	.parse = era_parse,
	.nb_pkts = era_nb_pkts,
	.tx_init = era_tx_init,
	.tx_fini = era_tx_fini,
	.tx_next = era_tx_next,
	.tx_sent = era_tx_sent,
	.tx_payload = era_tx_payload,
	.tx_on_ack = era_tx_on_ack,
	.tx_check_timeout = era_tx_check_timeout,
	.tx_timer_ns = era_tx_timer_ns,
	.tx_in_flight = era_tx_in_flight,
	.tx_acked_bytes = era_tx_acked_bytes,
	.tx_counters = era_tx_counters,
	.tx_path_sent = era_tx_path_sent,
	.tx_path_acked = era_tx_path_acked,
	.tx_path_expired = era_tx_path_expired,
	.rx_init = era_rx_init,
	.rx_fini = era_rx_fini,
	.rx_on_data = era_rx_on_data,
	.rx_done = era_rx_done,
	.rx_count = era_rx_count,
	.rx_expect = era_rx_expect,
	.rx_counters = era_rx_counters,
};
