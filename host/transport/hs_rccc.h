/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RCCC, Ultra Ethernet's receiver-driven congestion control, as
 * uet-htsim's UecSrc and UecSink have it ([host] cc = rccc; hs_rccc.c;
 * docs/uec.md): the sender spends credit, starting with 1.5 BDP it may
 * use before any feedback, and its receiver grants more in PULLs at 99 %
 * of its link, round robin over its flows.  With nscc = yes the sender
 * also keeps NSCC's window (uet-htsim's "both").
 *
 * The settings ([cc.rccc]) and flow state are here for the tests; the
 * host never reads them.
 */
#ifndef OFAN_HS_RCCC_H
#define OFAN_HS_RCCC_H

#include <stdbool.h>
#include <stdint.h>

#include "hs_cc.h"
#include "hs_nscc.h"

extern const struct hs_cc_ops hs_cc_rccc;

struct hs_rccc_settings {
	struct hs_nscc_settings nscc;	/* NSCC's defaults, window below */
	double first_bdp;	/* credit it starts with, BDPs: 1.5 */
	double max_bdp;		/* most credit it holds, BDPs: 2.5 */
	uint32_t header;	/* bytes a packet spends beyond payload: 64 */
	bool with_nscc;		/* nscc: NSCC's window too */
};

struct hs_rccc_state {
	struct hs_nscc_state n;	/* with_nscc */
	int64_t credit;		/* bytes; may go below 0 by < a packet */
	int64_t max_credit;	/* max_bdp x base RTT x rate */
	int64_t first_credit;	/* first_bdp x base RTT x rate */
	uint32_t pull;		/* the last PULL's grant, quanta */
	uint32_t mtu;		/* mss + header */
	uint16_t mss;
	bool spec;		/* still on the first credit */
};

#endif /* OFAN_HS_RCCC_H */
