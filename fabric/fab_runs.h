/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric's runs (fab_runs.c): what main() calls once the experiment
 * is loaded, EAL is up and the outputs are open.
 */
#ifndef OFAN_FAB_RUNS_H
#define OFAN_FAB_RUNS_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "fab.h"
#include "fab_mpi.h"

/* The runs of x: combinations x schemes x seeds. */
uint32_t fab_nb_runs(const struct fab_experiment *x);

/*
 * Every run one after another in this process (with --spread parts, its
 * parts of each), written to out when write (rank 0).  Stops after the
 * run during which ropts->interrupt was set.  Returns the exit status: 0,
 * 1 (a run did not complete, or broke conservation), 2 (results could not
 * be written), 3 (mbufs leaked), 4 (a run could not be built or run).
 */
int fab_sequential_runs(const struct fab_experiment *x,
			struct rte_mempool *pool,
			const struct fab_run_opts *ropts, struct fab_out *out,
			const char *outdir, bool write);

/*
 * --spread runs: every rank takes runs from rank 0's queue until none is
 * left, and rank 0 writes the results in run order.  Returns the status
 * as fab_sequential_runs() does.
 */
int fab_spread_runs(struct fab_mpi *j, const struct fab_experiment *x,
		    struct rte_mempool *pool, struct fab_run_opts *ropts,
		    struct fab_out *out, const char *outdir);

#endif /* OFAN_FAB_RUNS_H */
