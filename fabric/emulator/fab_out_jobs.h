/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric's results of training jobs ([traffic] pattern = jobs), in
 * the --out directory beside fab_out.c's:
 *   jobs.csv        per run, job and iteration: the iteration time, the
 *                   same on the ideal fabric, their ratio, the longest
 *                   and mean wait of a rank (time it did not compute);
 *   job-ops.csv     per run and collective or send/recv: its time from
 *                   the first member's start to the last member's end,
 *                   its ideal, algbw and busbw (nccl-tests' formulas);
 *   job-ranks.csv   per run, rank and iteration: compute and wait;
 *   job-nodes.csv   per run and node: start and end (the timeline);
 * a "jobs" entry per run in summary.json, and a job table after the
 * comparison table.  Nothing is written for other patterns.
 */
#ifndef OFAN_FAB_OUT_JOBS_H
#define OFAN_FAB_OUT_JOBS_H

#include <stdint.h>
#include <stdio.h>

#include "fab.h"
#include "ofan_json.h"

struct fab_jobs_out {
	FILE *jobs, *ops, *ranks, *nodes;
};

/* One run's rows (the files are opened at the first run with jobs). */
int fab_jobs_out_run(struct fab_jobs_out *jo, const char *dir, uint32_t run,
		     const struct fab_params *p, const struct fab_run *r,
		     char *err, unsigned int err_size);
/* 0, or -EIO if a file could not be written. */
int fab_jobs_out_close(struct fab_jobs_out *jo);

/* summary.json's fabric: the jobs as configured (nothing without jobs). */
void fab_jobs_out_params(struct ofan_json *j, const struct fab_params *p);

/* summary.json: the run's "jobs" (nothing without jobs). */
void fab_jobs_out_json(struct ofan_json *j, const struct fab_params *p,
		       const struct fab_run *r);

/*
 * The job table: a row per job, scheme and combination, means over the
 * runs [first[i], first[i] + n[i]) of runs/params (its seeds).
 */
void fab_jobs_out_table(FILE *t, const struct fab_run *const *runs,
			const struct fab_params *const *params,
			const uint32_t *first, const uint32_t *n,
			uint32_t nb_groups);

#endif /* OFAN_FAB_OUT_JOBS_H */
