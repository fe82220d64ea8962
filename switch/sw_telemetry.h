/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry commands of ofan-switch, readable with dpdk-telemetry.py:
 *   /ofan/ports     per-port rx/tx/drops/ECN/queue and link state, the
 *                   port's ethdev id and its device counters (dev_*:
 *                   ofan_devstats.h; the rest: /ethdev/xstats,ID)
 *   /ofan/queues    per-port egress queue: length now, maximum, histogram
 *   /ofan/drops     every named drop reason and its count
 *   /ofan/policy    the policy and its per-worker state
 *   /ofan/groups    next-hop groups: members, weights, live members
 *   /ofan/fail      "/ofan/fail,PORT,down|blackhole|degraded[,RATE]"
 *   /ofan/restore   "/ofan/restore,PORT"
 * DPDK 22.11's callbacks carry no user argument, so this binary-only module
 * keeps the one engine it serves in a file-scope pointer set once, before
 * the commands are registered.
 */
#ifndef OFAN_SW_TELEMETRY_H
#define OFAN_SW_TELEMETRY_H

#include "sw_engine.h"

/*
 * Register the commands for eng (after rte_eal_init), whose port p is
 * ethdev ethdevs[p] (NULL: no device counters).  Returns 0/-errno.
 */
int sw_telemetry_register(struct sw_engine *eng, const uint16_t *ethdevs);
/* Stop serving eng (before it is freed); commands then answer errors. */
void sw_telemetry_unregister(void);

#endif /* OFAN_SW_TELEMETRY_H */
