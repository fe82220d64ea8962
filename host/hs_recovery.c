/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in loss-recovery models, sack (hs_sack.h) and erasure
 * (hs_erasure.h), as hs_recovery_ops, and their registry (hs_transport.h).
 * Each member adapts the model's own state machine to the common
 * interface; the state machines stay where they are tested alone.
 */
#include <errno.h>

#include "hs_transport.h"
#include "ofan_registry.h"

_Static_assert(sizeof(struct hs_tx) <= HS_RECOVERY_TX_STATE,
	       "sack's sender outgrew HS_RECOVERY_TX_STATE");
_Static_assert(sizeof(struct hs_etx) <= HS_RECOVERY_TX_STATE,
	       "erasure's sender outgrew HS_RECOVERY_TX_STATE");
_Static_assert(sizeof(struct hs_rx) <= HS_RECOVERY_RX_STATE,
	       "sack's receiver outgrew HS_RECOVERY_RX_STATE");
_Static_assert(sizeof(struct hs_erx) <= HS_RECOVERY_RX_STATE,
	       "erasure's receiver outgrew HS_RECOVERY_RX_STATE");
_Static_assert(sizeof(struct hs_ca_tx) <= HS_RECOVERY_TX_STATE,
	       "tcp's sender outgrew HS_RECOVERY_TX_STATE");
_Static_assert(sizeof(struct hs_ca_rx) <= HS_RECOVERY_RX_STATE,
	       "tcp's receiver outgrew HS_RECOVERY_RX_STATE");

/* ---- sack: SACK + RACK + RTO (hs_sack.h) ---- */

static uint32_t
sack_nb_pkts(const struct hs_transport_params *p, uint64_t size)
{
	return p->mss == 0 ? 0 : (uint32_t)((size + p->mss - 1) / p->mss);
}

static int
sack_tx_init(void *tx, const struct hs_transport_params *p, uint64_t size,
	     uint64_t now)
{
	return hs_tx_init(tx, size, p->mss, p->reorder_window_ns, p->rto_ns,
			  now);
}

static void
sack_tx_fini(void *tx)
{
	hs_tx_fini(tx);
}

static uint32_t
sack_tx_next(void *tx, uint64_t now)
{
	(void)now;
	return hs_tx_next(tx);
}

static uint16_t
sack_tx_payload(const void *tx, uint32_t psn)
{
	return hs_tx_payload_size(tx, psn);
}

/* Sent before: a retransmission. */
static bool
sack_tx_is_resend(const void *tx, uint32_t psn)
{
	return psn < ((const struct hs_tx *)tx)->next_new;
}

static bool
sack_tx_is_new(const void *tx, uint32_t psn)
{
	return psn >= ((const struct hs_tx *)tx)->next_new;
}

static void
sack_tx_sent(void *tx, uint32_t psn, uint64_t now)
{
	hs_tx_sent(tx, psn, now);
}

static uint32_t
sack_tx_on_ack(void *tx, const struct hs_ack_content *a, uint64_t now,
	       uint64_t *rtt_ns)
{
	if (__builtin_expect(a->nack, 0)) {
		/* Its PSN was trimmed, not received: no acknowledgement. */
		*rtt_ns = 0;
		hs_tx_nack(tx, a->echo_psn);
		return 0;
	}
	return hs_tx_on_ack(tx, a->cum, a->sack, a->echo_psn, a->ce, now,
			    rtt_ns);
}

static void
sack_tx_on_returned(void *tx, uint32_t psn, uint64_t now)
{
	(void)now;
	hs_tx_nack(tx, psn);
}

static bool
sack_tx_check_timeout(void *tx, uint64_t now)
{
	return hs_tx_check_timeout(tx, now);
}

static uint64_t
sack_tx_timer_ns(const void *tx)
{
	return hs_tx_timer_ns(tx);
}

static bool
sack_tx_done(const void *tx)
{
	return hs_tx_done(tx);
}

static uint32_t
sack_tx_in_flight(const void *tx)
{
	return hs_tx_in_flight(tx);
}

static uint64_t
sack_tx_acked_bytes(const void *tx)
{
	const struct hs_tx *t = tx;

	return (uint64_t)t->nb_acked * t->mss;
}

static void
sack_tx_counters(const void *tx, uint64_t *sent, uint64_t *retx,
		 uint64_t *timeouts)
{
	const struct hs_tx *t = tx;

	*sent = t->nb_sent;
	*retx = t->nb_retx;
	*timeouts = t->nb_timeouts;
}

static int
sack_rx_init(void *rx, uint32_t nb_pkts, uint16_t ack_every)
{
	return hs_rx_init(rx, nb_pkts, ack_every);
}

static void
sack_rx_fini(void *rx)
{
	hs_rx_fini(rx);
}

static bool
sack_rx_on_data(void *rx, uint32_t psn, bool ce, bool *send_ack,
		struct hs_ack_content *ack)
{
	struct hs_ack_info i;
	bool is_new = hs_rx_on_data(rx, psn, ce, send_ack, &i);

	if (*send_ack) {
		ack->cum = i.cum_psn;
		ack->sack = i.sack;
		ack->echo_psn = i.echo_psn;
		ack->ce = i.ce;
	}
	return is_new;
}

/* A trimmed header: NACK its PSN. */
static bool
sack_rx_on_trimmed(void *rx, uint32_t psn, struct hs_ack_content *nack)
{
	const struct hs_rx *r = rx;

	if (psn >= r->nb_pkts)
		return false;
	nack->cum = r->cum;
	nack->sack = 0;
	nack->echo_psn = psn;
	nack->ce = false;
	nack->nack = true;
	return true;
}

static bool
sack_rx_done(const void *rx)
{
	return hs_rx_done(rx);
}

static uint32_t
sack_rx_count(const void *rx)
{
	return ((const struct hs_rx *)rx)->nb_received;
}

static uint16_t
sack_rx_expect(const void *rx, uint32_t psn, uint64_t size, uint16_t mss)
{
	const struct hs_rx *r = rx;

	if (psn >= r->nb_pkts)
		return 0;
	return psn + 1 == r->nb_pkts ?
		(uint16_t)(size - (uint64_t)psn * mss) : mss;
}

static void
sack_rx_counters(const void *rx, uint32_t *max_reorder, uint64_t *dups,
		 uint64_t *ce)
{
	const struct hs_rx *r = rx;

	*max_reorder = r->max_reorder;
	*dups = r->nb_dups;
	*ce = r->nb_ce;
}

static const struct hs_recovery_ops recovery_sack = {
	.name = "sack",
	.summary = "a PSN per packet, SACK + RACK, a retransmission timeout (RDMA-like)",
	.tx_size = sizeof(struct hs_tx),
	.rx_size = sizeof(struct hs_rx),
	.nb_pkts = sack_nb_pkts,
	.tx_init = sack_tx_init,
	.tx_fini = sack_tx_fini,
	.tx_next = sack_tx_next,
	.tx_payload = sack_tx_payload,
	.tx_is_resend = sack_tx_is_resend,
	.tx_is_new = sack_tx_is_new,
	.tx_sent = sack_tx_sent,
	.tx_on_ack = sack_tx_on_ack,
	.tx_on_returned = sack_tx_on_returned,
	.tx_check_timeout = sack_tx_check_timeout,
	.tx_timer_ns = sack_tx_timer_ns,
	.tx_done = sack_tx_done,
	.tx_in_flight = sack_tx_in_flight,
	.tx_acked_bytes = sack_tx_acked_bytes,
	.tx_counters = sack_tx_counters,
	.rx_init = sack_rx_init,
	.rx_fini = sack_rx_fini,
	.rx_on_data = sack_rx_on_data,
	.rx_on_trimmed = sack_rx_on_trimmed,
	.rx_done = sack_rx_done,
	.rx_count = sack_rx_count,
	.rx_expect = sack_rx_expect,
	.rx_counters = sack_rx_counters,
};

/* ---- erasure: the study's erasure-coded sender (hs_erasure.h) ---- */

static uint32_t
era_nb_pkts(const struct hs_transport_params *p, uint64_t size)
{
	uint32_t n = hs_erasure_data_pkts(size, p->mss);

	return n == 0 ? 0 : n + p->erasure_k;
}

static int
era_tx_init(void *tx, const struct hs_transport_params *p, uint64_t size,
	    uint64_t now)
{
	int rc = hs_etx_init(tx, size, p->mss, p->erasure_k, p->base_rtt_ns,
			     p->min_rto_ns, now);

	hs_etx_set_windowed(tx, p->windowed);
	return rc;
}

static void
era_tx_fini(void *tx)
{
	hs_etx_fini(tx);
}

static uint32_t
era_tx_next(void *tx, uint64_t now)
{
	return hs_etx_next(tx, now);
}

static uint16_t
era_tx_payload(const void *tx, uint32_t psn)
{
	(void)psn;
	return ((const struct hs_etx *)tx)->symbol;
}

/* Beyond the packets the receiver needs (a PSN is never resent). */
static bool
era_tx_is_resend(const void *tx, uint32_t psn)
{
	return psn >= ((const struct hs_etx *)tx)->nb_needed;
}

static bool
era_tx_is_new(const void *tx, uint32_t psn)
{
	(void)tx;
	(void)psn;
	return true;
}

static void
era_tx_sent(void *tx, uint32_t psn, uint64_t now)
{
	hs_etx_sent(tx, psn, now);
}

static uint32_t
era_tx_on_ack(void *tx, const struct hs_ack_content *a, uint64_t now,
	      uint64_t *rtt_ns)
{
	return hs_etx_on_ack(tx, a->cum, a->echo_psn, a->ce, now, rtt_ns);
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

static bool
era_tx_done(const void *tx)
{
	return hs_etx_done(tx);
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
era_rx_init(void *rx, uint32_t nb_pkts, uint16_t ack_every)
{
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
	struct hs_eack_info e;
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

static const struct hs_recovery_ops recovery_erasure = {
	.name = "erasure",
	.summary = "the study's erasure-coded constant-rate sender: losses made up by new packets",
	.counts = true,
	.tx_size = sizeof(struct hs_etx),
	.rx_size = sizeof(struct hs_erx),
	.nb_pkts = era_nb_pkts,
	.tx_init = era_tx_init,
	.tx_fini = era_tx_fini,
	.tx_next = era_tx_next,
	.tx_payload = era_tx_payload,
	.tx_is_resend = era_tx_is_resend,
	.tx_is_new = era_tx_is_new,
	.tx_sent = era_tx_sent,
	.tx_on_ack = era_tx_on_ack,
	.tx_check_timeout = era_tx_check_timeout,
	.tx_timer_ns = era_tx_timer_ns,
	.tx_done = era_tx_done,
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

/* ---- tcp, trim, gbn: cumulative ACKs (hs_cumack.h) ---- */

static int
ca_tx_init(void *tx, const struct hs_transport_params *p, uint64_t size,
	   enum hs_ca_mode mode)
{
	const struct hs_ca_params cp = {
		.mode = mode,
		.mss = p->mss,
		.dupacks = p->dupacks,
		.fast_retransmit = p->fast_retransmit,
		.sack_limit = p->sack_limit,
		.initial_rto_ns = p->initial_rto_ns,
		.min_rto_ns = p->min_rto_ns,
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

static uint32_t
ca_tx_next(void *tx, uint64_t now)
{
	(void)now;
	return hs_ca_tx_next(tx);
}

static uint16_t
ca_tx_payload(const void *tx, uint32_t psn)
{
	return hs_ca_tx_payload(tx, psn);
}

static bool
ca_tx_is_resend(const void *tx, uint32_t psn)
{
	return hs_ca_tx_is_resend(tx, psn);
}

static bool
ca_tx_is_repair(const void *tx, uint32_t psn)
{
	return hs_ca_tx_is_repair(tx, psn);
}

static bool
ca_tx_is_new(const void *tx, uint32_t psn)
{
	return !hs_ca_tx_is_resend(tx, psn);
}

static void
ca_tx_sent(void *tx, uint32_t psn, uint64_t now)
{
	hs_ca_tx_sent(tx, psn, now);
}

static uint32_t
ca_tx_on_ack(void *tx, const struct hs_ack_content *a, uint64_t now,
	     uint64_t *rtt_ns)
{
	return hs_ca_tx_on_ack(tx, a->cum, a->sack, a->echo_psn, a->nack, now,
			       rtt_ns);
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

static bool
ca_tx_done(const void *tx)
{
	return hs_ca_tx_done(tx);
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
ca_rx_init(void *rx, uint32_t nb_pkts, uint16_t ack_every)
{
	return hs_ca_rx_init(rx, false, nb_pkts, ack_every);
}

static int
gbn_rx_init(void *rx, uint32_t nb_pkts, uint16_t ack_every)
{
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
		if (!sack_rx_on_trimmed(&r->rx, psn, nack))
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
	sack_rx_counters(&r->rx, max_reorder, dups, ce);
}

#define HS_CA_OPS(name_, summary_, tx_init_, rx_init_)			\
	{								\
		.name = name_, .summary = summary_,			\
		.tx_size = sizeof(struct hs_ca_tx),			\
		.rx_size = sizeof(struct hs_ca_rx),			\
		.nb_pkts = sack_nb_pkts, .tx_init = tx_init_,		\
		.tx_fini = ca_tx_fini, .tx_next = ca_tx_next,		\
		.tx_payload = ca_tx_payload,				\
		.tx_is_resend = ca_tx_is_resend,			\
		.tx_is_repair = ca_tx_is_repair,			\
		.tx_is_new = ca_tx_is_new, .tx_sent = ca_tx_sent,	\
		.tx_on_ack = ca_tx_on_ack,				\
		.tx_on_returned = ca_tx_on_returned,			\
		.tx_check_timeout = ca_tx_check_timeout,		\
		.tx_timer_ns = ca_tx_timer_ns, .tx_done = ca_tx_done,	\
		.tx_in_flight = ca_tx_in_flight,			\
		.tx_acked_bytes = ca_tx_acked_bytes,			\
		.tx_counters = ca_tx_counters, .rx_init = rx_init_,	\
		.rx_fini = ca_rx_fini, .rx_on_data = ca_rx_on_data,	\
		.rx_on_trimmed = ca_rx_on_trimmed,			\
		.rx_done = ca_rx_done, .rx_count = ca_rx_count,		\
		.rx_expect = ca_rx_expect,				\
		.rx_counters = ca_rx_counters,				\
	}

static const struct hs_recovery_ops recovery_tcp = HS_CA_OPS("tcp",
	"cumulative ACKs, fast retransmit after duplicate ACKs, an RTO (htsim's constant_cca)",
	tcp_tx_init, ca_rx_init);
static const struct hs_recovery_ops recovery_trim = HS_CA_OPS("trim",
	"NACKs of trimmed headers resent at once, an RTO, no fast retransmit (constant_cca -trim -nofr)",
	trim_tx_init, ca_rx_init);
static const struct hs_recovery_ops recovery_gbn = HS_CA_OPS("gbn",
	"RoCE go-back-N: the receiver takes packets in order only, a NACK rewinds the sender",
	gbn_tx_init, gbn_rx_init);

/* ---- the registry ---- */

const struct hs_recovery_ops *hs_recovery_registry[HS_MAX_RECOVERY + 1] = {
	&recovery_sack,
	&recovery_erasure,
	&recovery_tcp,
	&recovery_trim,
	&recovery_gbn,
	NULL,
};

OFAN_REGISTRY_API(hs_recovery, struct hs_recovery_ops, hs_recovery_registry,
	      HS_MAX_RECOVERY)

int
hs_recovery_register(const struct hs_recovery_ops *ops)
{
	int nb_path;

	if (!hs_recovery_reg_named(ops) ||
	    ops->tx_size > HS_RECOVERY_TX_STATE ||
	    ops->rx_size > HS_RECOVERY_RX_STATE ||
	    ops->nb_pkts == NULL || ops->tx_init == NULL ||
	    ops->tx_fini == NULL || ops->tx_next == NULL ||
	    ops->tx_payload == NULL || ops->tx_is_resend == NULL ||
	    ops->tx_is_new == NULL || ops->tx_sent == NULL ||
	    ops->tx_on_ack == NULL || ops->tx_check_timeout == NULL ||
	    ops->tx_timer_ns == NULL || ops->tx_done == NULL ||
	    ops->tx_in_flight == NULL || ops->tx_acked_bytes == NULL ||
	    ops->tx_counters == NULL || ops->rx_init == NULL ||
	    ops->rx_fini == NULL || ops->rx_on_data == NULL ||
	    ops->rx_done == NULL || ops->rx_count == NULL ||
	    ops->rx_expect == NULL || ops->rx_counters == NULL)
		return -EINVAL;
	/* The path timers come as a set or not at all. */
	nb_path = (ops->tx_path_sent != NULL) +
		(ops->tx_path_acked != NULL) + (ops->tx_path_expired != NULL);
	if (nb_path != 0 && nb_path != 3)
		return -EINVAL;
	return hs_recovery_reg_add(ops);
}

