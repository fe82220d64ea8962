/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The failure schedule of a multi-process testbed (ofan-testbed-gen).
 *
 * ofan-fabric fails a link at [failure.NAME] at, its switch ends notice
 * (detect_delay for down) and, reconverge_delay later, routing gives every
 * switch of the fabric new live-path weights (fab_control.c).  Processes
 * cannot share that control plane, so the generator works it out ahead
 * of time, with the fabric's own routing (fab_topo_weights), and writes
 * each switch its part:
 *   - a switch at an end of a failed link: [failures] detect_delay and
 *     reconverge_delay, and [failure.NAME] for its port (ofan-switch then
 *     withdraws the port itself, as the fabric's engines do);
 *   - every switch whose weights change when routing converges or the
 *     link comes back: [reroute.NAME] at that moment, with the new weights
 *     of each group that changed.
 * Every time counts from the testbed's common start (--start-at of
 * ofan-switch and ofan-host), as the fabric's count from the traffic's.
 *
 * The groups start with their live-path weights (gen_sched_weights()
 * before any event), not all 1 as in the fabric: the same shares for
 * every policy, and a reroute then only names the groups that change.
 */
#ifndef OFAN_GEN_SCHED_H
#define OFAN_GEN_SCHED_H

#include <stdint.h>
#include <stdio.h>

#include "fab_model.h"

struct gen_sched;

/*
 * Work out the schedule of p's failures on topology t (whose alive[] it
 * uses as scratch and leaves all true).  NULL with "SECTION:KEY: ..." in
 * err (for the caller to prefix with the experiment's file) if the run
 * cannot be scheduled: a .cm file's failure lines, which the fabric
 * applies before the traffic; more reroutes than a switch takes.
 */
struct gen_sched *gen_sched_build(const struct fab_params *p,
				  struct fab_topo *t, char *err,
				  size_t err_size);
void gen_sched_free(struct gen_sched *g);

/* The weights group grp of switch s starts with, one per member. */
const uint16_t *gen_sched_weights(const struct gen_sched *g, uint32_t s,
				  uint16_t grp);

/*
 * Write switch s's sections ([failures], [failure.*], [reroute.*]) to f;
 * nothing if no failure touches it.  Returns 0 or -EIO.
 */
int gen_sched_write(const struct gen_sched *g, uint32_t s, FILE *f);

/* Number of link failures and of reroute sections in all. */
void gen_sched_counts(const struct gen_sched *g, uint32_t *failures,
		      uint32_t *reroutes);

#endif /* OFAN_GEN_SCHED_H */
