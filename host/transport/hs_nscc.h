/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NSCC, Ultra Ethernet's sender-side congestion control, as uet-htsim's
 * UecSrc has it (htsim/sim/uec.cpp): a byte window driven by queuing
 * delay (RTT - base RTT), ECN echoes and NACKs of trimmed packets, with
 * fast increase and quick adapt ([host] cc = nscc; hs_nscc.c; every
 * constant and its source line: docs/uec.md).
 *
 * The settings ([cc.nscc]) and the flow state are here for the tests
 * that pin the arithmetic; the host reads neither.
 */
#ifndef OFAN_HS_NSCC_H
#define OFAN_HS_NSCC_H

#include <stdbool.h>
#include <stdint.h>

#include "hs_cc.h"

extern const struct hs_cc_ops hs_cc_nscc;

/*
 * NSCC's NACK (on_nack) for a sender whose receiver also drives
 * (receiver_driven: RCCC's "both"): a packet trimmed on its last hop
 * then leaves the window alone (uec.cpp:1380).
 */
void hs_nscc_nack(void *st, const void *settings, const struct hs_cc_ack *a,
		  bool receiver_driven);

struct hs_nscc_settings {
	uint64_t target_delay_ns;	/* 0: target_rtts x base RTT */
	double target_rtts;		/* 0.75 (trimming); 1 without */
	uint64_t ref_rate_bps;		/* the scaling's reference: 100G */
	uint64_t ref_rtt_ns;		/* and 12 us */
	double gamma;			/* decrease per unit of excess delay: 0.8 */
	double delay_alpha;		/* the delay average's weight: 0.0125 */
	double max_bdp;			/* largest window, BDPs: 1.5 */
	uint64_t fast_delay_ns;		/* fast increase below it: 1 us */
	uint32_t qa_gate;		/* quick adapt below maxwnd >> gate: 3 */
	uint32_t header;		/* bytes a packet counts beyond payload: 64 */
	uint32_t window_pkts;		/* first window, packets; 0: largest */
	uint32_t adjust_pkts;		/* batch of bytes, packets: 8 */
	bool quick_adapt;		/* yes */
	bool base_rtt_on_nack;		/* a NACK's RTT lowers the base: yes */
};

/*
 * A flow's state.  Times are picoseconds and sizes bytes of whole
 * packets (payload + header), as uet-htsim counts them.
 */
struct hs_nscc_state {
	/* Fixed at the start. */
	uint64_t net_rtt;	/* the network's base RTT */
	uint64_t target;	/* target queuing delay */
	uint64_t qa_threshold;	/* 4 x target */
	double alpha;		/* proportional increase, bytes / ps */
	double fi;		/* fair increase, bytes per byte acked */
	double eta;		/* additive increase per network RTT, bytes */
	double fi_scale;	/* fast increase, bytes per byte acked */
	uint64_t adjust_bytes;	/* batch: adjust_pkts full packets */
	uint64_t rate_bps;
	uint32_t mtu;		/* mss + header */
	uint16_t mss;
	/* Moving. */
	int64_t cwnd;
	int64_t maxwnd;		/* max_bdp x base_rtt x rate */
	uint64_t base_rtt;	/* the network's, lowered to the least seen */
	uint64_t avg_delay;
	uint32_t inc;		/* batched increase */
	uint32_t fi_count;	/* bytes acked with delay below fast_delay */
	uint64_t achieved;	/* bytes acked this quick-adapt epoch */
	uint64_t received;	/* bytes acked this batch */
	uint64_t ignored;	/* bytes acked since quick adapt */
	uint64_t to_ignore;	/* what was out then */
	uint64_t qa_end;	/* the epoch's end */
	uint64_t last_adjust;	/* the last additive increase */
	uint64_t last_dec;	/* the last multiplicative decrease */
	bool trigger_qa;	/* a NACK asks for quick adapt */
	bool increase;		/* in fast increase */
};

#endif /* OFAN_HS_NSCC_H */
