/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch statistics as people and programs read them: the one-line status
 * printed periodically on stderr and the JSON document written at exit.
 * Both read sw_engine_totals(), so they see the sum over all workers.
 */
#ifndef OFAN_SW_STATS_H
#define OFAN_SW_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "ofan_devstats.h"
#include "sw_engine.h"

/* Extra facts the driver adds to the JSON document. */
struct sw_stats_extra {
	double elapsed_s;
	uint16_t nb_workers;
	int64_t mempool_in_use_start;	/* -1 if unknown */
	int64_t mempool_in_use_end;
	const char *const *port_devs;	/* per port, may be NULL */
	/* per port, may be NULL: the device's own counters, read before
	 * the ports closed (ofan_devstats.h) */
	const struct ofan_dev_stats *dev;
};

/*
 * Print "t=3.0s rx 1.23 Mpps tx 1.23 Mpps drop 0 ecn 0 qmax 12" for the
 * interval since *prev, then store the current totals in *prev.
 */
void sw_stats_status_line(FILE *f, struct sw_engine *eng,
			  struct sw_totals *prev, double t_s, double dt_s);

/* Write the full JSON document; returns 0 or -EIO. */
int sw_stats_write_json(FILE *f, struct sw_engine *eng,
			const struct sw_stats_extra *x);

#endif /* OFAN_SW_STATS_H */
