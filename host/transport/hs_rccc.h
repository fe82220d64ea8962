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
	/*
	 * The fabric's oversubscription for the receiver's rate control
	 * (struct hs_rccc_osc), 0 for none; uet-htsim turns it on with its
	 * topology's ratio when only the receiver drives.
	 */
	double oversubscription;
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

/*
 * The receiver's rate control on an oversubscribed fabric, uet-htsim's
 * OversubscribedCC (htsim/sim/oversubscribed_cc.cpp at 40ccb05): one per
 * receiving host.  Every interval (1.5 network RTTs, x 0.75 .. 1.25 at
 * random, oversubscribed_cc.h:25-28) it looks at the packets that
 * arrived, how many carried CE, and the trimmed headers, those cut on
 * their last hop apart:
 *  - trims elsewhere (the fabric's core) take their share of the
 *    packets off the rate;
 *  - g, the EWMA (alpha 0.5) of the CE fraction of whole packets, above
 *    0.3 takes (g - 0.3) x 0.5 of the rate off;
 *  - without a decrease the rate grows by 0.01, doubling per interval
 *    while nothing is marked (0.01 x 2^n);
 *  - it stays within [0.9 / oversubscription (at least 0.01), 1].
 * The host's pacer then grants credit at that fraction of its rate
 * (UecPullPacer::updatePullRate, uec.cpp:3132-3139).
 */
struct hs_rccc_osc {
	double rate;		/* of the pacer's rate: 1 at the start */
	double g;		/* the CE fraction's average */
	double min_rate;
	uint32_t inc;		/* intervals without a decrease */
};

void hs_rccc_osc_init(struct hs_rccc_osc *o, double oversubscription);
/* One interval: pkts arrived (trimmed headers too), ce of them marked,
 * trim_last trimmed on their last hop, trim_other elsewhere. */
void hs_rccc_osc_step(struct hs_rccc_osc *o, uint64_t pkts, uint64_t ce,
		      uint64_t trim_last, uint64_t trim_other);

#endif /* OFAN_HS_RCCC_H */
