/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control of ofan-host's senders, as modules: [host] cc =
 * <name> picks one from a registry (rate, ecn_window).  It sits on top of
 * the transport (hs_transport.h, which recovers losses) and below the
 * pacer (hs_host_tx.c, which spaces packets at the configured rate): it
 * only says whether a flow may put one more new packet in flight, and
 * learns from each ACK and each timeout.  A flow's state is one window,
 * in packets; a model that needs none leaves its members NULL and costs
 * nothing per packet.
 *
 * Adding a model: a `const struct hs_cc_ops` with its name and summary, a
 * line in hs_cc.c's registry or an hs_cc_register() call before any
 * configuration is read, and a test (tests/test_sack.c, case "cc").
 *
 * Pure C, no EAL.
 */
#ifndef OFAN_HS_CC_H
#define OFAN_HS_CC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HS_MAX_CC 8

/* A flow's congestion-control state. */
struct hs_cc_state {
	double cwnd;		/* window in packets (a windowed model's) */
};

struct hs_cc_ops {
	const char *name;	/* [host] cc = <name> (required) */
	const char *summary;	/* one line for the docs (required) */
	/*
	 * A window limits the sender (may_send() is set): the erasure
	 * sender then counts the packets given up at a feedback timeout as
	 * out of flight (hs_etx_set_windowed()).
	 */
	bool windowed;
	/* A flow starts; window_pkts is [host] window.  NULL: nothing. */
	void (*start)(struct hs_cc_state *st, uint32_t window_pkts);
	/*
	 * May a new packet leave with in_flight packets out?  Resends are
	 * never held back.  NULL: always.
	 */
	bool (*may_send)(const struct hs_cc_state *st, uint32_t in_flight);
	/* An ACK came back, ce: it echoed a congestion mark.  NULL: ignore. */
	void (*on_ack)(struct hs_cc_state *st, bool ce, uint32_t window_pkts);
	/* The retransmission timer fired.  NULL: ignore. */
	void (*on_timeout)(struct hs_cc_state *st);
};

/* NULL-terminated: the built-ins (rate first, the default), then any
 * hs_cc_register() added. */
extern const struct hs_cc_ops *hs_cc_registry[HS_MAX_CC + 1];

/*
 * Add a model before any configuration is read.  0, -EINVAL (no name or
 * summary; windowed without may_send() or may_send() without windowed),
 * -EEXIST (the name is taken), -ENOSPC.
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
