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
 * is when its sender saw the last acknowledgement.  The results are
 * computed once into a struct hs_results; the writers only format it.
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

/* One local host (a rank, or one shard of it) as the JSON reports it. */
struct hs_results_host {
	uint32_t rank;
	uint16_t shard, nb_shards;	/* nb_shards 1: the whole rank */
	struct hs_host_stats stats;
};

/*
 * A run's results, computed (hs_results_compute) apart from written
 * (hs_results_write_csv, hs_results_write_json): the writers only format
 * what this holds.  The arrays are the compute's; hs_results_free()
 * releases them.
 */
struct hs_results {
	uint32_t nb_flows;		/* every flow of the traffic */
	/* Per flow: the local hosts' sides merged (neither sent_here nor
	 * received_here when no local host has it), its ideal completion,
	 * and for a flow sent here its slowdown (0 otherwise). */
	struct hs_flow_result *flow;
	uint64_t *ideal_ns;
	double *slowdown;
	/* Per local host, in the order given; their policy counters summed
	 * by key in that order. */
	uint16_t nb_hosts;
	struct hs_results_host *host;
	struct hs_kv_table policy;
	struct hs_summary sum;
};

/*
 * Fill res from the local hosts after a run of traffic t under set: each
 * flow's merged result, ideal and slowdown, the hosts' counters and the
 * summary.  Returns 0 or -ENOMEM (res then holds nothing to free but
 * what hs_results_free() frees).
 */
int hs_results_compute(struct hs_host *const *hosts, uint16_t nb_hosts,
		       const struct hs_host_settings *set,
		       const struct hs_traffic *t, struct hs_results *res);

/* The per-flow CSV of res to path: a row per flow a local host has. */
int hs_results_write_csv(const struct hs_results *res,
			 const struct hs_traffic *t, const char *path);

/* A port of the run: the rank it carries and its device's name. */
struct hs_results_port {
	uint32_t rank;
	const char *dev;
};

/*
 * What the run was, what it cost and what the devices saw, beside its
 * results in the JSON: the traffic's pattern, the wall time and the
 * mempool's in-use counts, and (dev not NULL) each of the nb_ports
 * ports' device counters, written as "ports" (each port's rank, device
 * and "device").
 */
struct hs_results_run {
	const char *pattern;
	double wall_s;
	int64_t mempool_in_use_start, mempool_in_use_end;
	uint16_t nb_ports;
	const struct hs_results_port *ports;
	const struct ofan_dev_stats *dev;
};

/* The summary JSON of res, a run of traffic t under set, to path. */
int hs_results_write_json(const struct hs_results *res,
			  const struct hs_host_settings *set,
			  const struct hs_traffic *t,
			  const struct hs_results_run *run, const char *path);

void hs_results_free(struct hs_results *res);

/*
 * Compute the results and, when the paths are not NULL, write the per-flow
 * CSV and the JSON summary of run; *sum gets the summary.  Returns 0 or
 * -errno.
 */
int hs_results(struct hs_host *const *hosts, uint16_t nb_hosts,
	       const struct hs_host_settings *set, const struct hs_traffic *t,
	       const struct hs_results_run *run, const char *json_path,
	       const char *csv_path, struct hs_summary *sum);

#endif /* OFAN_HS_RESULTS_H */
