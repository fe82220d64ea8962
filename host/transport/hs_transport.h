/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One flow's transport as the host engine sees it: a loss-recovery model
 * behind one small interface, chosen once per host by [host] recovery
 * from a registry of models (hs_recovery.c):
 *
 *   sack     hs_sack.h: PSN per packet, SACK + RACK, a retransmission
 *            timeout; what an RDMA-like transport does.
 *   erasure  hs_erasure.h: the study's erasure-coded constant-rate sender;
 *            losses are made up by new packets, never waited for.
 *   tcp, trim, gbn  hs_cumack.h: cumulative ACKs with fast retransmit,
 *            NACKs of trimmed headers, RoCE's go-back-N.
 *
 * A model is an hs_recovery_ops: its sender's and its receiver's state
 * machines as members, state kept in the flow (at most
 * HS_RECOVERY_TX_STATE / HS_RECOVERY_RX_STATE bytes; a model with more
 * keeps it behind a pointer, as sack keeps its per-PSN chunks), and its
 * settings, a block only it reads, parsed from its own [recovery.<name>]
 * section.  The engine calls them through the inline hs_sender_* and
 * hs_receiver_* below; congestion control (hs_cc.h) sits on top and
 * pacing above that.  What an ACK carries on the wire (ofan_wire.h): a
 * cumulative PSN and a 64-bit SACK bitmap, or, for a model that
 * `counts`, the count of distinct packets received in the same field,
 * flagged OFAN_ACK_F_COUNT.
 *
 * This header includes no model's: each model's header includes it.
 *
 * Adding a model: an hs_recovery_ops (defined with the model's state
 * machine, as hs_sack.c, hs_erasure.c and hs_cumack.c do), a line in
 * hs_recovery.c's registry or an hs_recovery_register() call before any
 * configuration is read, its [recovery.<name>] section, and a test that
 * runs tests/lib/recovery_conformance.h on it (docs/architecture.md, "A
 * recovery model"; tests/test_recovery_plugin.c defines one only it
 * knows).
 */
#ifndef OFAN_HS_TRANSPORT_H
#define OFAN_HS_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* No packet: what tx_next() gives when there is nothing to send now. */
#define HS_PSN_NONE UINT32_MAX
/* The BTH carries 24-bit PSNs, so a flow has at most 2^24 packets. */
#define HS_MAX_PKTS (1u << 24)

#define HS_MAX_RECOVERY 8
#define HS_RECOVERY_TX_STATE 256	/* bytes of a sender's state, at most */
#define HS_RECOVERY_RX_STATE 128	/* bytes of a receiver's state */

struct ofan_cfg;
struct hs_recovery_ops;

/*
 * A model's settings live in a block of its own, settings_size bytes of
 * an hs_recovery_settings, that only the model reads: its defaults() and
 * parse() fill it, and the model gets it back in
 * hs_transport_params.settings.
 */
#define HS_RECOVERY_SETTINGS_MAX 64
/* The section prefix of a model's settings: [recovery.<name>]. */
#define HS_RECOVERY_SECTION "recovery."
/* The longest name a model may have (its section's name is longer). */
#define HS_RECOVERY_NAME_MAX 48

struct hs_recovery_settings {
	_Alignas(8) unsigned char bytes[HS_RECOVERY_SETTINGS_MAX];
};

/* The settings of every registered model, by registry position. */
struct hs_recovery_settings_table {
	struct hs_recovery_settings of[HS_MAX_RECOVERY];
};

/* Each registered model's defaults() into its block (zeroed first). */
void hs_recovery_settings_defaults(struct hs_recovery_settings_table *t);

/*
 * Every registered model's parse() over its own [recovery.<name>]
 * section, selected or not.  Returns 0 or -EINVAL with the message
 * recorded in cfg.
 */
int hs_recovery_settings_from_cfg(struct ofan_cfg *cfg,
				  struct hs_recovery_settings_table *t);

/* The block of ops in t; NULL when ops has none or is not registered. */
const void *hs_recovery_settings_of(const struct hs_recovery_settings_table *t,
				    const struct hs_recovery_ops *ops);

/*
 * What the two ends of a flow are set up with: the host's facts every
 * model may use, and the chosen model's settings.
 */
struct hs_transport_params {
	const struct hs_recovery_ops *recovery;
	uint16_t mss;
	uint64_t reorder_window_ns;	/* [host] reorder_window */
	uint64_t rto_ns;	/* max([host] min_rto, 2 base RTTs) */
	uint64_t min_rto_ns;	/* [host] min_rto: floor of a computed RTO */
	uint64_t base_rtt_ns;	/* [host] base_rtt: RTT before a sample */
	bool windowed;		/* a window limits the sender (hs_cc.h) */
	const void *settings;	/* the model's block, or NULL (none) */
};

/* An ACK's content in any model (host byte order). */
struct hs_ack_content {
	uint32_t cum;		/* cumulative PSN; a counting model's count */
	uint64_t sack;		/* SACK bitmap (0 for a counting model) */
	uint32_t echo_psn;	/* a NACK: the PSN it names */
	bool ce;
	bool nack;		/* a NACK (the AETH's NAK syndrome) */
	bool pull;		/* a PULL: cum is the credit granted (quanta) */
	bool last_hop;		/* a NACK of a packet trimmed on its last hop */
	uint8_t pull_queue;	/* receiver-driven: its pacer's queue, bit length */
};

/*
 * The packet a sender would send now (tx_next()): what the engine needs
 * to build, count and steer it, in one call.
 */
struct hs_tx_pkt {
	uint32_t psn;		/* HS_PSN_NONE: nothing to send now */
	uint16_t payload;	/* its payload bytes */
	bool resend;		/* it makes up for a loss (a retransmission) */
	/*
	 * It fills a hole out of order (a NACK's or a fast retransmit's
	 * packet), not the in-order stream of new data or of a go-back-N
	 * pass ([host] resend_path).  A model without repairs sets resend.
	 */
	bool repair;
	bool grows;		/* new data: it grows what is in flight */
};

/* What an ACK or a NACK did (tx_on_ack()). */
struct hs_tx_acked {
	uint32_t acked;		/* packets it newly acknowledged */
	uint64_t rtt_ns;	/* an RTT sample, or 0 */
	bool done;		/* every packet is acknowledged: the flow is done */
	/*
	 * A NACK: it named a packet in flight, now judged lost (a model
	 * without NACKs leaves it false), and that packet's round trip, or 0.
	 */
	bool nacked;
	uint64_t nack_rtt_ns;
};

/*
 * A loss-recovery model.  Every member is required but the settings'
 * (settings_size, defaults, parse), tx_on_returned, rx_on_trimmed and the
 * path timers; tx is the sender's state (tx_size bytes, zeroed before
 * tx_init), rx the receiver's.  The per-packet members are on the data
 * path: keep them small.  A model's own test runs
 * tests/lib/recovery_conformance.h's checks of this contract on it.
 */
struct hs_recovery_ops {
	const char *name;	/* [host] recovery = <name> (required) */
	const char *summary;	/* one line for --help and the docs (required) */
	/* Its ACKs carry a count of packets received (OFAN_ACK_F_COUNT). */
	bool counts;
	/*
	 * tx_in_flight() leaves out what is judged lost (a NACKed packet, a
	 * timeout's): a controller that holds back resends by its window
	 * (hs_cc.h, gates_resends) may then, without stalling.  A
	 * cumulative model counts everything not cumulatively acknowledged.
	 */
	bool flight_sheds_lost;
	size_t tx_size, rx_size;
	/*
	 * Bytes of the model's settings block (<= HS_RECOVERY_SETTINGS_MAX);
	 * 0: none (hs_transport_params.settings is then NULL).
	 */
	size_t settings_size;
	/* Fill the block, zeroed, with the defaults.  May be NULL (zeros). */
	void (*defaults)(void *settings);
	/*
	 * Read and validate the model's keys in [section] (the loader gives
	 * recovery.<name>; it may be absent) into its block, and no other
	 * section's.  Called for every registered model at start-up,
	 * selected or not, so a bad value is reported either way.  May be
	 * NULL (no keys).  Returns 0 or -EINVAL with the message recorded in
	 * cfg (ofan_config.h's getters record "FILE:SECTION:KEY: ...").
	 */
	int (*parse)(struct ofan_cfg *cfg, const char *section,
		     void *settings);
	/* Packets the receiver needs for a flow of size bytes. */
	uint32_t (*nb_pkts)(const struct hs_transport_params *p,
			    uint64_t size);
	/* The sender: 0, or -errno (the flow fails at its start). */
	int (*tx_init)(void *tx, const struct hs_transport_params *p,
		       uint64_t size, uint64_t now);
	void (*tx_fini)(void *tx);
	/*
	 * The packet to send at now, all of it (pkt->psn HS_PSN_NONE:
	 * nothing now).  Asking changes nothing the engine sees: the
	 * engine may not send it (a full window, no mbuf) and ask again.
	 * New data goes out in PSN order, and no packet is shorter than
	 * the flow's last one (size % mss, or a full one): the ideal time
	 * (hs_summary.h) is a lower bound because of that, and
	 * test_ideal_lower_bound holds every registered model to it.
	 */
	void (*tx_next)(void *tx, uint64_t now, struct hs_tx_pkt *pkt);
	/* psn, as tx_next() gave it, left at now. */
	void (*tx_sent)(void *tx, uint32_t psn, uint64_t now);
	/* Payload bytes of packet psn (a flow's first slot is paced by it). */
	uint16_t (*tx_payload)(const void *tx, uint32_t psn);
	/* An ACK or a NACK (a->nack), and what it did. */
	void (*tx_on_ack)(void *tx, const struct hs_ack_content *a,
			  uint64_t now, struct hs_tx_acked *r);
	/*
	 * A switch returned the trimmed header of psn (rts): resend it.
	 * NULL: ignored (the loss is found as any other).
	 */
	void (*tx_on_returned)(void *tx, uint32_t psn, uint64_t now);
	/* The timer at now: true if the retransmission timeout expired. */
	bool (*tx_check_timeout)(void *tx, uint64_t now);
	/* When it next needs attention without an ACK; UINT64_MAX: never. */
	uint64_t (*tx_timer_ns)(const void *tx);
	/* Out, and neither known received nor judged lost. */
	uint32_t (*tx_in_flight)(const void *tx);
	/* Payload bytes the receiver is known to have (any amount). */
	uint64_t (*tx_acked_bytes)(const void *tx);
	/* Packets sent, resent (or sent beyond the needed), RTOs. */
	void (*tx_counters)(const void *tx, uint64_t *sent, uint64_t *retx,
			    uint64_t *timeouts);
	/*
	 * Per-EV path timers for a host policy that asks
	 * (hlb_ops.on_path_timeout); NULL all three: none kept.
	 */
	void (*tx_path_sent)(void *tx, uint16_t ev, uint64_t now);
	void (*tx_path_acked)(void *tx, uint16_t ev);
	bool (*tx_path_expired)(void *tx, uint16_t ev, uint64_t now);
	/*
	 * The receiver of nb_pkts packets (nb_pkts() of the flow), acknowledging
	 * every ack_every of them at least; p as the sender's.
	 */
	int (*rx_init)(void *rx, const struct hs_transport_params *p,
		       uint32_t nb_pkts, uint16_t ack_every);
	void (*rx_fini)(void *rx);
	/* Data packet psn: true if new; fills *ack when one is due. */
	bool (*rx_on_data)(void *rx, uint32_t psn, bool ce, bool *send_ack,
			   struct hs_ack_content *ack);
	/*
	 * The trimmed header of psn arrived (a switch cut its payload):
	 * true to send *nack.  NULL: ignored (its sender finds the loss
	 * as any other).
	 */
	bool (*rx_on_trimmed)(void *rx, uint32_t psn,
			      struct hs_ack_content *nack);
	/*
	 * Data packet psn, just taken by rx_on_data(), asked for an ACK at
	 * once (the BTH's ack request); due: rx_on_data() made one (*ack
	 * is then kept).  Returns true if an ACK goes now, with *ack
	 * filled.  NULL: the model ACKs as it would.
	 */
	bool (*rx_ack_now)(void *rx, uint32_t psn, bool due,
			   struct hs_ack_content *ack);
	bool (*rx_done)(const void *rx);
	/* Distinct packets received. */
	uint32_t (*rx_count)(const void *rx);
	/* Payload bytes packet psn must have (0: no such packet). */
	uint16_t (*rx_expect)(const void *rx, uint32_t psn, uint64_t size,
			      uint16_t mss);
	void (*rx_counters)(const void *rx, uint32_t *max_reorder,
			    uint64_t *dups, uint64_t *ce);
};

/* For a model's nb_pkts: ceil(size / mss) packets (hs_recovery.c). */
uint32_t hs_recovery_nb_pkts(const struct hs_transport_params *p,
			     uint64_t size);

/* NULL-terminated: sack (the default), erasure, then registered ones. */
extern const struct hs_recovery_ops *hs_recovery_registry[HS_MAX_RECOVERY + 1];

/*
 * Add a model before any configuration is read.  0, -EINVAL (a required
 * member missing, only some of the path timers, state larger than
 * HS_RECOVERY_TX_STATE or HS_RECOVERY_RX_STATE, settings larger than
 * HS_RECOVERY_SETTINGS_MAX, a name longer than HS_RECOVERY_NAME_MAX),
 * -EEXIST, -ENOSPC.
 */
int hs_recovery_register(const struct hs_recovery_ops *ops);
/* By name, case-insensitive; NULL if unknown. */
const struct hs_recovery_ops *hs_recovery_find(const char *name);
unsigned int hs_recovery_name_list(const char **names);
int hs_recovery_index(const struct hs_recovery_ops *ops);
void hs_recovery_describe(FILE *f);

struct hs_sender {
	const struct hs_recovery_ops *ops;
	_Alignas(16) unsigned char state[HS_RECOVERY_TX_STATE];
};

struct hs_receiver {
	const struct hs_recovery_ops *ops;
	_Alignas(16) unsigned char state[HS_RECOVERY_RX_STATE];
};

/* Packets the receiver needs for a flow of size bytes. */
static inline uint32_t
hs_transport_nb_pkts(const struct hs_transport_params *p, uint64_t size)
{
	return p->recovery->nb_pkts(p, size);
}

static inline int
hs_sender_init(struct hs_sender *s, const struct hs_transport_params *p,
	       uint64_t size, uint64_t now)
{
	s->ops = p->recovery;
	return s->ops->tx_init(s->state, p, size, now);
}

static inline void
hs_sender_fini(struct hs_sender *s)
{
	s->ops->tx_fini(s->state);
}

static inline void
hs_sender_next(struct hs_sender *s, uint64_t now, struct hs_tx_pkt *pkt)
{
	s->ops->tx_next(s->state, now, pkt);
}

static inline uint16_t
hs_sender_payload(const struct hs_sender *s, uint32_t psn)
{
	return s->ops->tx_payload(s->state, psn);
}

static inline void
hs_sender_sent(struct hs_sender *s, uint32_t psn, uint64_t now)
{
	s->ops->tx_sent(s->state, psn, now);
}

static inline void
hs_sender_on_ack(struct hs_sender *s, const struct hs_ack_content *a,
		 uint64_t now, struct hs_tx_acked *r)
{
	s->ops->tx_on_ack(s->state, a, now, r);
}

static inline void
hs_sender_on_returned(struct hs_sender *s, uint32_t psn, uint64_t now)
{
	if (s->ops->tx_on_returned != NULL)
		s->ops->tx_on_returned(s->state, psn, now);
}

static inline bool
hs_sender_check_timeout(struct hs_sender *s, uint64_t now)
{
	return s->ops->tx_check_timeout(s->state, now);
}

static inline void
hs_sender_path_sent(struct hs_sender *s, uint16_t ev, uint64_t now)
{
	if (s->ops->tx_path_sent != NULL)
		s->ops->tx_path_sent(s->state, ev, now);
}

static inline void
hs_sender_path_acked(struct hs_sender *s, uint16_t ev)
{
	if (s->ops->tx_path_acked != NULL)
		s->ops->tx_path_acked(s->state, ev);
}

static inline bool
hs_sender_path_expired(struct hs_sender *s, uint16_t ev, uint64_t now)
{
	return s->ops->tx_path_expired != NULL &&
	       s->ops->tx_path_expired(s->state, ev, now);
}

static inline uint64_t
hs_sender_timer_ns(const struct hs_sender *s)
{
	return s->ops->tx_timer_ns(s->state);
}

static inline uint32_t
hs_sender_in_flight(const struct hs_sender *s)
{
	return s->ops->tx_in_flight(s->state);
}

/* Payload bytes the receiver is known to have, at most size. */
static inline uint64_t
hs_sender_acked_bytes(const struct hs_sender *s, uint64_t size)
{
	uint64_t b = s->ops->tx_acked_bytes(s->state);

	return b < size ? b : size;
}

static inline void
hs_sender_counters(const struct hs_sender *s, uint64_t *sent, uint64_t *retx,
		   uint64_t *timeouts)
{
	s->ops->tx_counters(s->state, sent, retx, timeouts);
}

static inline int
hs_receiver_init(struct hs_receiver *r, const struct hs_transport_params *p,
		 uint64_t size, uint16_t ack_every)
{
	r->ops = p->recovery;
	return r->ops->rx_init(r->state, p, hs_transport_nb_pkts(p, size),
			       ack_every);
}

static inline void
hs_receiver_fini(struct hs_receiver *r)
{
	r->ops->rx_fini(r->state);
}

static inline bool
hs_receiver_on_data(struct hs_receiver *r, uint32_t psn, bool ce,
		    bool *send_ack, struct hs_ack_content *ack)
{
	return r->ops->rx_on_data(r->state, psn, ce, send_ack, ack);
}

/* psn asked for an ACK at once: whether one goes (rx_ack_now). */
static inline bool
hs_receiver_ack_now(struct hs_receiver *r, uint32_t psn, bool due,
		    struct hs_ack_content *ack)
{
	if (r->ops->rx_ack_now == NULL)
		return due;
	return r->ops->rx_ack_now(r->state, psn, due, ack);
}

static inline bool
hs_receiver_on_trimmed(struct hs_receiver *r, uint32_t psn,
		       struct hs_ack_content *nack)
{
	return r->ops->rx_on_trimmed != NULL &&
	       r->ops->rx_on_trimmed(r->state, psn, nack);
}

static inline bool
hs_receiver_done(const struct hs_receiver *r)
{
	return r->ops->rx_done(r->state);
}

static inline uint32_t
hs_receiver_count(const struct hs_receiver *r)
{
	return r->ops->rx_count(r->state);
}

static inline uint16_t
hs_receiver_expect(const struct hs_receiver *r, uint32_t psn, uint64_t size,
		   uint16_t mss)
{
	return r->ops->rx_expect(r->state, psn, size, mss);
}

static inline void
hs_receiver_counters(const struct hs_receiver *r, uint32_t *max_reorder,
		     uint64_t *dups, uint64_t *ce)
{
	r->ops->rx_counters(r->state, max_reorder, dups, ce);
}

#endif /* OFAN_HS_TRANSPORT_H */
