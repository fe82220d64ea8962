/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control of ofan-host's senders, as modules: [host] cc =
 * <name> picks one from a registry (rate, ecn_window, nscc, rccc).  It sits on top of
 * the transport (hs_transport.h, which recovers losses) and below the
 * pacer (hs_host_tx.c, which spaces packets at the configured rate): it
 * says whether a flow may put one more new packet in flight, and learns
 * from each ACK (its RTT sample, its congestion mark, the bytes it
 * acknowledged), each NACK of a trimmed packet and each timeout.  A
 * flow's state is a block of the model's own layout and size; a model
 * that needs none leaves its members NULL and costs nothing per packet.
 * A model's settings are a block only it reads, parsed from its own
 * [cc.<name>] section.
 *
 * Adding a model: a `const struct hs_cc_ops` with its name and summary, a
 * line in hs_cc.c's registry or an hs_cc_register() call before any
 * configuration is read, its [cc.<name>] section, and a test that runs
 * tests/lib/cc_conformance.h on it (docs/architecture.md, "A
 * congestion-control model"; tests/test_cc_plugin.c defines one only it
 * knows).
 *
 * Pure C, no EAL.
 */
#ifndef OFAN_HS_CC_H
#define OFAN_HS_CC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HS_MAX_CC 8

struct ofan_cfg;
struct hs_cc_ops;

/*
 * A model's settings live in a block of its own, settings_size bytes of
 * an hs_cc_settings, that only the model reads: its defaults() and
 * parse() fill it, and every member gets it back.
 */
#define HS_CC_SETTINGS_MAX 128
/* The section prefix of a model's settings: [cc.<name>]. */
#define HS_CC_SECTION "cc."
/* The longest name a model may have (its section's name is longer). */
#define HS_CC_NAME_MAX 48

struct hs_cc_settings {
	_Alignas(8) unsigned char bytes[HS_CC_SETTINGS_MAX];
};

/* The settings of every registered model, by registry position. */
struct hs_cc_settings_table {
	struct hs_cc_settings of[HS_MAX_CC];
};

/* Each registered model's defaults() into its block (zeroed first). */
void hs_cc_settings_defaults(struct hs_cc_settings_table *t);

/*
 * Every registered model's parse() over its own [cc.<name>] section,
 * selected or not.  Returns 0 or -EINVAL with the message recorded in
 * cfg.
 */
int hs_cc_settings_from_cfg(struct ofan_cfg *cfg,
			    struct hs_cc_settings_table *t);

/* The block of ops in t; NULL when ops has none or is not registered. */
const void *hs_cc_settings_of(const struct hs_cc_settings_table *t,
			      const struct hs_cc_ops *ops);

/*
 * A flow's congestion-control state: state_size bytes of its model's own
 * layout, zeroed before start().
 */
#define HS_CC_STATE_MAX 256

struct hs_cc_state {
	_Alignas(8) unsigned char bytes[HS_CC_STATE_MAX];
};

/* What a model learns of its flow when it starts. */
struct hs_cc_flow {
	uint64_t rate_bps;	/* the host's link rate (not the paced one) */
	/* The network's RTT with empty queues ([host] base_rtt); 0: unknown. */
	uint64_t base_rtt_ns;
	uint16_t mss;		/* payload bytes of a full data packet */
	uint64_t size;		/* the flow's payload bytes */
	uint64_t now_ns;
};

/* What is out: packets, and their payload bytes (full packets' count). */
struct hs_cc_flight {
	uint32_t pkts;
	uint64_t bytes;
};

/*
 * An ACK or a NACK as its sender saw it.  A NACK names a packet a switch
 * trimmed (or the receiver refused): it acknowledges nothing, and its
 * rtt_ns is that packet's round trip (the trimmed header's and its NACK's).
 */
struct hs_cc_ack {
	uint64_t now_ns;
	uint64_t rtt_ns;	/* an RTT sample of the packet it echoes, or 0 */
	uint32_t acked_pkts;	/* packets it newly acknowledged */
	uint64_t acked_bytes;	/* their payload bytes (full packets' count) */
	uint32_t nacked_pkts;	/* a NACK: 1 */
	uint64_t nacked_bytes;	/* a NACK: that packet's payload bytes */
	struct hs_cc_flight flight;	/* out after it */
	bool ce;		/* it echoed a congestion mark */
	bool last_hop;		/* a NACK: trimmed on its last hop, in front of its receiver */
};

/*
 * What a receiver-driven model's receiver must know of its senders
 * (pull_params): the credit a flow starts with and the most it holds,
 * in BDPs of the host's base RTT and rate (the receiver's demand counts
 * what its sender spent beyond its first credit, and bounds credit and
 * flight by the most), and the fabric's oversubscription its pacer
 * controls its rate for (uet-htsim's OversubscribedCC, hs_rccc.h), 0
 * for none.  Without pull_params: 1.5, 2.5 and 0.
 */
struct hs_pull_params {
	double first_bdp;
	double max_bdp;
	double oversubscription;
};

/*
 * A congestion-control model.  name and summary are required; every
 * other member may be 0 or NULL, and the host then skips it.  settings
 * is the model's block (NULL when settings_size is 0); st its flow's
 * state, state_size bytes.  A model's own test runs
 * tests/lib/cc_conformance.h's checks of this contract on it.
 */
struct hs_cc_ops {
	const char *name;	/* [host] cc = <name> (required) */
	const char *summary;	/* one line for the docs (required) */
	/*
	 * A window limits the sender (may_send() and window() are set):
	 * the erasure sender then counts the packets given up at a feedback
	 * timeout as out of flight (hs_etx_set_windowed()).
	 */
	bool windowed;
	/*
	 * may_send() holds back resends too: the window counts everything
	 * out, as UEC's NSCC does (uet-htsim gates its retransmissions by
	 * the window).  Only over a recovery model whose flight leaves out
	 * what is lost (hs_transport.h, flight_sheds_lost: sack, erasure);
	 * over the cumulative ones a resend leaves as with ecn_window.
	 */
	bool gates_resends;
	/*
	 * Receiver-driven: the receivers of its flows pace credit to their
	 * senders in PULLs (each receiving host one pacer at 99 % of its
	 * link, round robin over its flows with demand, as uet-htsim's
	 * UecPullPacer), the sender marks what it sends before any
	 * feedback as speculative (OFAN_BTH_MARK_SPEC), and on_pull() gets
	 * each PULL.  Needs on_sent(), on_pull() and speculating().
	 */
	bool pulls;
	/*
	 * The sender sets the BTH's ack request (OFAN_BTH_ACK_REQ) on a
	 * packet after which may_send() says no, and on resends, and the
	 * receiver ACKs it at once (uet-htsim's AR, uec.cpp:2090-2091,
	 * 2147, 2676-2681).
	 */
	bool ack_request;
	/* Bytes of the model's settings block (<= HS_CC_SETTINGS_MAX); 0: none. */
	size_t settings_size;
	/* Bytes of a flow's state (<= HS_CC_STATE_MAX); 0: none. */
	size_t state_size;
	/* Fill the block, zeroed, with the defaults.  May be NULL (zeros). */
	void (*defaults)(void *settings);
	/*
	 * Read and validate the model's keys in [section] (the loader gives
	 * cc.<name>; it may be absent) into its block, and no other
	 * section's.  Called for every registered model at start-up,
	 * selected or not.  May be NULL (no keys).  Returns 0 or -EINVAL
	 * with the message recorded in cfg.
	 */
	int (*parse)(struct ofan_cfg *cfg, const char *section,
		     void *settings);
	/* A flow starts: set up st (zeroed).  NULL: nothing. */
	void (*start)(void *st, const void *settings,
		      const struct hs_cc_flow *f);
	/*
	 * May a new packet (with gates_resends, any packet) leave with f
	 * out?  A windowed model says yes only while f->bytes is below its
	 * window(), and always with nothing out; a pulls model while it has
	 * credit (a flow with nothing out gets a PULL).  NULL: always.
	 */
	bool (*may_send)(const void *st, const void *settings,
			 const struct hs_cc_flight *f);
	/*
	 * The window, payload bytes: at least one full packet's, finite.
	 * Read by the tests and the traces, never to decide.
	 */
	double (*window)(const void *st, const void *settings);
	/* An ACK came back.  NULL: ignore. */
	void (*on_ack)(void *st, const void *settings,
		       const struct hs_cc_ack *a);
	/* A NACK came back (a->nacked_pkts).  NULL: on_ack() gets it. */
	void (*on_nack)(void *st, const void *settings,
			const struct hs_cc_ack *a);
	/* The retransmission timer fired.  NULL: ignore. */
	void (*on_timeout)(void *st, const void *settings, uint64_t now_ns);
	/* A data packet of payload bytes left (resend: it repairs a loss). */
	void (*on_sent)(void *st, const void *settings, uint32_t payload,
			bool resend, uint64_t now_ns);
	/*
	 * A switch returned the trimmed header of a packet of payload bytes
	 * (rts): it never reached the receiver.  NULL: ignore.
	 */
	void (*on_returned)(void *st, const void *settings, uint32_t payload,
			    uint64_t now_ns);
	/* pulls: a PULL granted credit up to pull quanta in all. */
	void (*on_pull)(void *st, const void *settings, uint32_t pull,
			uint64_t now_ns);
	/* pulls: does the flow still send on its first credit? */
	bool (*speculating)(const void *st);
	/*
	 * pulls, may be NULL: what the receiver's pacer must know of its
	 * senders' credit (struct hs_pull_params).
	 */
	void (*pull_params)(const void *settings, struct hs_pull_params *p);
};

/* NULL-terminated: the built-ins (rate first, the default), then any
 * hs_cc_register() added. */
extern const struct hs_cc_ops *hs_cc_registry[HS_MAX_CC + 1];

/*
 * Add a model before any configuration is read.  0, -EINVAL (no name or
 * summary; windowed without may_send() and window(), or may_send() without
 * windowed or pulls; pulls without on_sent(), on_pull() and speculating();
 * ack_request without may_send();
 * settings larger than HS_CC_SETTINGS_MAX; a name longer than
 * HS_CC_NAME_MAX; state larger than HS_CC_STATE_MAX), -EEXIST (the name is taken), -ENOSPC.
 */
int hs_cc_register(const struct hs_cc_ops *ops);

/* By name, case-insensitive; NULL if unknown. */
const struct hs_cc_ops *hs_cc_find(const char *name);

/* The registered names, NULL-terminated, into names (HS_MAX_CC + 1). */
unsigned int hs_cc_name_list(const char **names);

/* Index of ops in the registry, -1 if it is not there. */
int hs_cc_index(const struct hs_cc_ops *ops);

/* "  name  summary" per model (--help). */
void hs_cc_describe(FILE *f);

#endif /* OFAN_HS_CC_H */
