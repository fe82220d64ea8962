/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cumulative-ACK transports: tcp, trim and gbn (hs_cumack.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cumack.h"
#include "hs_transport.h"
#include "ofan_config.h"

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
	tx->max_rto_ns = p->max_rto_ns;
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
/* Hold the RTO at max_rto at most (0: no bound). */
static inline void
ca_bound_rto(struct hs_ca_tx *tx)
{
	if (tx->max_rto_ns != 0 && tx->rto_ns > tx->max_rto_ns)
		tx->rto_ns = tx->max_rto_ns;
}

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
	ca_bound_rto(tx);
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
	/*
	 * A receiver cannot have what was never sent: clamp to sent_max,
	 * and keep only the SACK bits of PSNs below it (bit i: cum + 1 + i).
	 */
	if (cum > tx->sent_max)
		cum = tx->sent_max;
	if (tx->sent_max - cum <= 1)
		sack = 0;
	else if (tx->sent_max - cum - 1 < 64)
		sack &= (UINT64_C(1) << (tx->sent_max - cum - 1)) - 1;
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
	/*
	 * Back off, but not without end: a flow whose every resend met a
	 * black hole for a while would otherwise wait minutes after the
	 * path came back (RFC 6298 5.5 doubles; 2.5 allows a maximum).
	 */
	tx->rto_ns *= 2;
	ca_bound_rto(tx);
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

_Static_assert(sizeof(struct hs_ca_tx) <= HS_RECOVERY_TX_STATE,
	       "tcp's sender outgrew HS_RECOVERY_TX_STATE");
_Static_assert(sizeof(struct hs_ca_rx) <= HS_RECOVERY_RX_STATE,
	       "tcp's receiver outgrew HS_RECOVERY_RX_STATE");

/* ---- tcp, trim and gbn as loss-recovery models (hs_transport.h) ---- */

static void
ca_defaults(void *settings)
{
	struct hs_ca_settings *s = settings;

	s->initial_rto_ns = 1000000;	/* 1 ms, as htsim */
	s->max_rto_ns = 1000000000;	/* 1 s */
	s->dupacks = 3;			/* htsim's constant_cca */
	s->sack_limit = 0;
	s->fast_retransmit = true;
}

/* trim and gbn: the RTO before the first RTT sample, and the most. */
static int
ca_parse(struct ofan_cfg *cfg, const char *sec, void *settings)
{
	struct hs_ca_settings *s = settings;

	return ofan_cfg_get_time(cfg, sec, "initial_rto", 0, 1000,
				 60ull * 1000000000ull, &s->initial_rto_ns) ||
		ofan_cfg_get_time(cfg, sec, "max_rto", 0, 1000,
				  3600ull * 1000000000ull, &s->max_rto_ns) ?
		-EINVAL : 0;
}

/* tcp: that and its fast retransmit. */
static int
tcp_parse(struct ofan_cfg *cfg, const char *sec, void *settings)
{
	struct hs_ca_settings *s = settings;

	if (ca_parse(cfg, sec, settings) ||
	    ofan_cfg_get_u32(cfg, sec, "dupacks", 0, 1, 1u << 16,
			     &s->dupacks) ||
	    ofan_cfg_get_bool(cfg, sec, "fast_retransmit", 0,
			      &s->fast_retransmit) ||
	    ofan_cfg_get_u32(cfg, sec, "sack_limit", 0, 0, 63, &s->sack_limit))
		return -EINVAL;
	return 0;
}

static int
ca_tx_init(void *tx, const struct hs_transport_params *p, uint64_t size,
	   enum hs_ca_mode mode)
{
	const struct hs_ca_settings *s = p->settings;
	const struct hs_ca_params cp = {
		.mode = mode,
		.mss = p->mss,
		.dupacks = s->dupacks,
		.fast_retransmit = s->fast_retransmit,
		.sack_limit = s->sack_limit,
		.initial_rto_ns = s->initial_rto_ns,
		.min_rto_ns = p->min_rto_ns,
		/* An initial_rto above max_rto is the bound then. */
		.max_rto_ns = s->max_rto_ns > s->initial_rto_ns ?
			s->max_rto_ns : s->initial_rto_ns,
	};

	return hs_ca_tx_init(tx, &cp, size);
}

static int
tcp_tx_init(void *tx, const struct hs_transport_params *p, uint64_t size,
	    uint64_t now)
{
	(void)now;
	return ca_tx_init(tx, p, size, HS_CA_TCP);
}

static int
trim_tx_init(void *tx, const struct hs_transport_params *p, uint64_t size,
	     uint64_t now)
{
	(void)now;
	return ca_tx_init(tx, p, size, HS_CA_TRIM);
}

static int
gbn_tx_init(void *tx, const struct hs_transport_params *p, uint64_t size,
	    uint64_t now)
{
	(void)now;
	return ca_tx_init(tx, p, size, HS_CA_GBN);
}

static void
ca_tx_fini(void *tx)
{
	hs_ca_tx_fini(tx);
}

static void
ca_tx_next(void *tx, uint64_t now, struct hs_tx_pkt *pkt)
{
	struct hs_ca_tx *t = tx;

	(void)now;
	pkt->psn = hs_ca_tx_next(t);
	if (pkt->psn == HS_PSN_NONE)
		return;
	pkt->payload = hs_ca_tx_payload(t, pkt->psn);
	pkt->resend = hs_ca_tx_is_resend(t, pkt->psn);
	pkt->repair = pkt->resend && hs_ca_tx_is_repair(t, pkt->psn);
	pkt->grows = !pkt->resend;
}

static uint16_t
ca_tx_payload(const void *tx, uint32_t psn)
{
	return hs_ca_tx_payload(tx, psn);
}

static void
ca_tx_sent(void *tx, uint32_t psn, uint64_t now)
{
	hs_ca_tx_sent(tx, psn, now);
}

static void
ca_tx_on_ack(void *tx, const struct hs_ack_content *a, uint64_t now,
	     struct hs_tx_acked *r)
{
	r->acked = hs_ca_tx_on_ack(tx, a->cum, a->sack, a->echo_psn, a->nack,
				   now, &r->rtt_ns);
	r->done = hs_ca_tx_done(tx);
}

static void
ca_tx_on_returned(void *tx, uint32_t psn, uint64_t now)
{
	hs_ca_tx_on_nack(tx, psn, now);
}

static bool
ca_tx_check_timeout(void *tx, uint64_t now)
{
	return hs_ca_tx_check_timeout(tx, now);
}

static uint64_t
ca_tx_timer_ns(const void *tx)
{
	return hs_ca_tx_timer_ns(tx);
}

/* Sent and not cumulatively acknowledged. */
static uint32_t
ca_tx_in_flight(const void *tx)
{
	const struct hs_ca_tx *t = tx;

	return t->sent_max - t->cum;
}

static uint64_t
ca_tx_acked_bytes(const void *tx)
{
	const struct hs_ca_tx *t = tx;

	return (uint64_t)t->cum * t->mss;
}

static void
ca_tx_counters(const void *tx, uint64_t *sent, uint64_t *retx,
	       uint64_t *timeouts)
{
	const struct hs_ca_tx *t = tx;

	*sent = t->nb_sent;
	*retx = t->nb_retx;
	*timeouts = t->nb_timeouts;
}

static int
ca_rx_init(void *rx, const struct hs_transport_params *p, uint32_t nb_pkts,
	   uint16_t ack_every)
{
	(void)p;
	return hs_ca_rx_init(rx, false, nb_pkts, ack_every);
}

static int
gbn_rx_init(void *rx, const struct hs_transport_params *p, uint32_t nb_pkts,
	    uint16_t ack_every)
{
	(void)p;
	return hs_ca_rx_init(rx, true, nb_pkts, ack_every);
}

static void
ca_rx_fini(void *rx)
{
	hs_ca_rx_fini(rx);
}

static bool
ca_rx_on_data(void *rx, uint32_t psn, bool ce, bool *send_ack,
	      struct hs_ack_content *ack)
{
	struct hs_ack_info i;
	bool nack, is_new = hs_ca_rx_on_data(rx, psn, ce, send_ack, &i, &nack);

	if (*send_ack) {
		ack->cum = i.cum_psn;
		ack->sack = i.sack;
		ack->echo_psn = i.echo_psn;
		ack->ce = i.ce;
		ack->nack = nack;
	}
	return is_new;
}

static bool
ca_rx_on_trimmed(void *rx, uint32_t psn, struct hs_ack_content *nack)
{
	struct hs_ca_rx *r = rx;

	if (r->in_order) {
		/* gbn: a trimmed packet is out of order from there on. */
		if (psn >= r->nb_pkts || psn < r->expected)
			return false;
		nack->cum = r->expected;
		nack->echo_psn = r->expected;
	} else {
		if (!hs_sack_rx_on_trimmed(&r->rx, psn, nack))
			return false;
		return true;
	}
	nack->sack = 0;
	nack->ce = false;
	nack->nack = true;
	return true;
}

static bool
ca_rx_done(const void *rx)
{
	const struct hs_ca_rx *r = rx;

	return hs_ca_rx_count(r) == r->nb_pkts;
}

static uint32_t
ca_rx_count(const void *rx)
{
	return hs_ca_rx_count(rx);
}

static uint16_t
ca_rx_expect(const void *rx, uint32_t psn, uint64_t size, uint16_t mss)
{
	const struct hs_ca_rx *r = rx;

	if (psn >= r->nb_pkts)
		return 0;
	return psn + 1 == r->nb_pkts ?
		(uint16_t)(size - (uint64_t)psn * mss) : mss;
}

static void
ca_rx_counters(const void *rx, uint32_t *max_reorder, uint64_t *dups,
	       uint64_t *ce)
{
	const struct hs_ca_rx *r = rx;

	if (r->in_order) {
		*max_reorder = 0;
		*dups = r->nb_dups + r->nb_discarded;
		*ce = r->nb_ce;
		return;
	}
	hs_sack_rx_counters(&r->rx, max_reorder, dups, ce);
}

#define HS_CA_OPS(name_, summary_, parse_, tx_init_, rx_init_)		\
	{								\
		.name = name_, .summary = summary_,			\
		.tx_size = sizeof(struct hs_ca_tx),			\
		.rx_size = sizeof(struct hs_ca_rx),			\
		.settings_size = sizeof(struct hs_ca_settings),		\
		.defaults = ca_defaults, .parse = parse_,		\
		.nb_pkts = hs_recovery_nb_pkts, .tx_init = tx_init_,		\
		.tx_fini = ca_tx_fini, .tx_next = ca_tx_next,		\
		.tx_sent = ca_tx_sent, .tx_payload = ca_tx_payload,	\
		.tx_on_ack = ca_tx_on_ack,				\
		.tx_on_returned = ca_tx_on_returned,			\
		.tx_check_timeout = ca_tx_check_timeout,		\
		.tx_timer_ns = ca_tx_timer_ns,				\
		.tx_in_flight = ca_tx_in_flight,			\
		.tx_acked_bytes = ca_tx_acked_bytes,			\
		.tx_counters = ca_tx_counters, .rx_init = rx_init_,	\
		.rx_fini = ca_rx_fini, .rx_on_data = ca_rx_on_data,	\
		.rx_on_trimmed = ca_rx_on_trimmed,			\
		.rx_done = ca_rx_done, .rx_count = ca_rx_count,		\
		.rx_expect = ca_rx_expect,				\
		.rx_counters = ca_rx_counters,				\
	}

const struct hs_recovery_ops hs_recovery_tcp = HS_CA_OPS("tcp",
	"cumulative ACKs, fast retransmit after duplicate ACKs, an RTO (htsim's constant_cca)",
	tcp_parse, tcp_tx_init, ca_rx_init);
const struct hs_recovery_ops hs_recovery_trim = HS_CA_OPS("trim",
	"NACKs of trimmed headers resent at once, an RTO, no fast retransmit (constant_cca -trim -nofr)",
	ca_parse, trim_tx_init, ca_rx_init);
const struct hs_recovery_ops hs_recovery_gbn = HS_CA_OPS("gbn",
	"RoCE go-back-N: the receiver takes packets in order only, a NACK rewinds the sender",
	ca_parse, gbn_tx_init, gbn_rx_init);
