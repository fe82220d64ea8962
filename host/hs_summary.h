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
};

struct hs_flow_summary {
	uint32_t nb_flows;
	uint32_t nb_completed;
	double max_slowdown;	/* FCT / ideal; 0 when none completed */
	double p99_slowdown;	/* hs_percentile(slowdowns, 99) */
	double mean_fct_ns;
	uint64_t collective_ns;	/* first start to last completion */
	/* First ideal begin to last ideal end, over the flows that begin. */
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
 * The ideal time model both binaries report slowdowns against: a flow's
 * frames before the last on the wire at its paced rate (the rate shared by
 * the flows its source releases together, hs_traffic.concurrency), plus
 * the round trip of its path, which includes the last frame's
 * serialisation.  ofan-host takes the smallest RTT a local flow measured,
 * ofan-fabric the path's from the topology.
 */
struct hs_config;
struct hs_traffic;

/*
 * Ideal time of flow f under cfg on a path of round trip path_rtt_ns
 * measured as ofan-host measures it (see above), in ns.
 */
uint64_t hs_flow_ideal_ns(const struct hs_config *cfg,
			  const struct hs_traffic *t, uint32_t f,
			  const uint32_t *concurrency, uint64_t path_rtt_ns);
/* ns to put all of flow f's frames on the wire at its paced rate. */
uint64_t hs_flow_paced_ns(const struct hs_config *cfg,
			  const struct hs_traffic *t, uint32_t f,
			  const uint32_t *concurrency);
/* Bytes a flow of size bytes paces: its frames with their overhead on the
 * wire, or their pacing slots ([host] pace_bytes). */
uint64_t hs_flow_wire_bytes(const struct hs_config *cfg, uint64_t size);

#endif /* OFAN_HS_SUMMARY_H */
