/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow summary both ofan-host and ofan-fabric report: slowdowns, the
 * 99th percentile, mean FCT, the collective's time and its ideal.  One
 * pure function computes it from each flow's measured and ideal times;
 * the writers (hs_results.c, fab_out.c) only format what it returns.
 */
#ifndef OFAN_HS_SUMMARY_H
#define OFAN_HS_SUMMARY_H

#include <stdint.h>

/* One flow, as measured and as it would run alone at its ideal. */
struct hs_flow_times {
	uint64_t start_ns;	/* when it started */
	uint64_t done_ns;	/* when its last byte was acknowledged; 0: never */
	uint64_t ideal_ns;	/* its ideal completion time (> 0) */
	/*
	 * When it begins in the ideal schedule (its inputs arrived, its
	 * trigger fired); UINT64_MAX: never (hs_traffic_ideal_begin).
	 */
	uint64_t ideal_begin_ns;
	/*
	 * With one pacer per host (pacing = host): its source, and the part
	 * of ideal_ns its frames but the last spend in that pacer
	 * (hs_flow_lead_ns).  The source's pacer releases every frame of
	 * its flows one slot after another, so the collective lasts at
	 * least all of them plus the shortest of its flows' remaining
	 * ideal.  0: the flow is not in that bound (pacing = flow).
	 */
	uint32_t src;
	uint64_t pacer_ns;
};

struct hs_flow_summary {
	uint32_t nb_flows;
	uint32_t nb_completed;
	double max_slowdown;	/* FCT / ideal; 0 when none completed */
	double p99_slowdown;	/* hs_percentile(slowdowns, 99) */
	double mean_fct_ns;
	uint64_t collective_ns;	/* first start to last completion */
	/*
	 * First ideal begin to last ideal end, over the flows that begin,
	 * and no less than any source's pacer needs for the flows of it that
	 * completed (hs_flow_times.pacer_ns).
	 */
	uint64_t collective_ideal_ns;
};

/*
 * The p-th percentile (0 < p <= 100) of n >= 1 values sorted ascending,
 * by nearest rank: the value of rank ceil(p / 100 x n), counting from 1.
 * So with n = 10 the 99th percentile is the largest, with n = 100 the
 * 99th smallest, and with n = 1 the one value.
 */
double hs_percentile(const double *sorted, uint32_t n, double p);

/*
 * Summarise n flows.  slowdown, when not NULL, receives each flow's
 * slowdown (0 for a flow that did not complete).  Returns 0 or -ENOMEM.
 */
int hs_flow_summarise(const struct hs_flow_times *flows, uint32_t n,
		      double *slowdown, struct hs_flow_summary *sum);

/*
 * The ideal time model both binaries report slowdowns against: a lower
 * bound on a flow's completion time under every recovery model and
 * congestion controller.  A flow's time runs from its first pacing slot
 * to the ACK of its last packet, and in between
 *   - its pacer releases every frame but the last, each one gap later:
 *     at least the frame's pacing slot (its wire bytes, or pace_bytes')
 *     at the fastest rate the pacer can give the flow.  With pacing =
 *     flow that is rate x rate_coef / concurrency (the flows its source
 *     releases together, hs_traffic.concurrency), fixed for the flow's
 *     life; with pacing = host it is rate x rate_coef whole, since one
 *     round-robin pacer gives every slot to one flow while the others
 *     cannot send or have ended.  Jitter only lengthens a gap, an idle
 *     pacer banks no credit and congestion control only holds packets
 *     back, so no gap is shorter;
 *   - its last frame (transports send new data in PSN order; the last
 *     PSN is the shortest) takes the path's round trip: ofan-fabric
 *     counts its serialisation at the host's link rate, the unloaded
 *     path (store and forward at each switch) and an ACK's way back;
 *     ofan-host takes the smallest RTT a local flow measured.
 * The first frame's random offset within one gap (pacing = flow) is
 * before the flow's clock starts, so it is in neither.
 */
struct hs_host_settings;
struct hs_traffic;

/*
 * Ideal time of flow f under set on a path of round trip path_rtt_ns
 * measured from its last frame's release (see above), in ns.
 */
uint64_t hs_flow_ideal_ns(const struct hs_host_settings *set,
			  const struct hs_traffic *t, uint32_t f,
			  const uint32_t *concurrency, uint64_t path_rtt_ns);
/*
 * ns from flow f's first pacing slot to its last frame's release at the
 * fastest its pacer can send it (see above): the gaps after every frame
 * but the last.
 */
uint64_t hs_flow_lead_ns(const struct hs_host_settings *set,
			 const struct hs_traffic *t, uint32_t f,
			 const uint32_t *concurrency);
/*
 * How long after its start time any flow of t may take its first slot,
 * at most: with a pacer per flow, its random offset within its first gap
 * (under a full frame's gap at its share); 0 with one pacer per host.
 * The ideal schedule's late_ns (hs_traffic_ideal_begin).
 */
uint64_t hs_first_slot_late_ns(const struct hs_host_settings *set,
			       const struct hs_traffic *t,
			       const uint32_t *concurrency);
/* Bytes a flow of size bytes paces: its frames with their overhead on the
 * wire, or their pacing slots ([host] pace_bytes). */
uint64_t hs_flow_wire_bytes(const struct hs_host_settings *set, uint64_t size);
/*
 * The Ethernet frame (header to payload, at least 60 bytes) carrying
 * the last packet of a flow of size bytes; 0 for an empty flow.
 */
uint32_t hs_flow_last_frame_size(const struct hs_host_settings *set, uint64_t size);

#endif /* OFAN_HS_SUMMARY_H */
