/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Results of a host run: per-flow CSV and a summary JSON, with each flow's
 * ideal time (hs_summary.h: the gaps before its last frame at the fastest
 * its pacer sends, plus the smallest RTT a local flow measured: the
 * unloaded path, whose serialisation of the last frame it includes) and
 * slowdown, and the collective's completion time against its ideal (the
 * critical path of ideal flow times through the dependencies, and with
 * one pacer per host no less than a host's pacer needs for its flows).
 * Only flows touching the local hosts are reported; a flow's completion
 * is when its sender saw the last acknowledgement.
 */
#ifndef OFAN_HS_RESULTS_H
#define OFAN_HS_RESULTS_H

#include <stdint.h>

#include "hs_host.h"
#include "hs_summary.h"
#include "ofan_devstats.h"

struct hs_summary {
	uint32_t nb_flows;		/* flows sent by local hosts */
	uint32_t nb_completed;
	double max_slowdown;
	double p99_slowdown;
	double mean_fct_ns;
	uint64_t data_retx;
	uint64_t timeouts;
	uint64_t corrupt_pkts;
	uint64_t incomplete_rx;		/* flows to local hosts not fully received */
	uint64_t collective_ns;		/* last completion - first start */
	uint64_t collective_ideal_ns;
	uint64_t ideal_rtt_ns;		/* the path RTT in the ideals */
};

/*
 * Compute the summary and, when the paths are not NULL, write the JSON
 * summary and the per-flow CSV.  dev (may be NULL): cfg's ports' device
 * counters, written as "ports" (each port's rank, ethdev and "device").
 * Returns 0 or -errno.
 */
int hs_results(struct hs_host *const *hosts, uint16_t nb_hosts,
	       const struct hs_config *cfg, const struct hs_traffic *t,
	       double wall_s, int64_t mempool_in_use_start,
	       int64_t mempool_in_use_end, const struct ofan_dev_stats *dev,
	       const char *json_path, const char *csv_path,
	       struct hs_summary *sum);

#endif /* OFAN_HS_RESULTS_H */
