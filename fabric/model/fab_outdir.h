/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whose results a --out folder holds.  A run is the experiment file (its
 * absolute path), the command line's overrides in order, --seed and
 * --seeds; EAL options, --spread, ranks, threads' placement, --quiet and
 * --no-plot do not make another run.  A run writes into an empty folder or
 * one holding its own earlier results (which it clears first); another
 * run's results stay unless --replace is given; a folder holding files
 * ofan-fabric does not write is never cleared.  No DPDK.
 */
#ifndef OFAN_FAB_OUTDIR_H
#define OFAN_FAB_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAB_RUN_ID_LEN 16
/* Longest "+override+..." tail of a default folder name before a hash. */
#define FAB_OUTDIR_TAIL_MAX 96

struct fab_run_id {
	const char *config;		/* as given */
	char *const *overrides;		/* "section.key=value", in order */
	int nb_overrides;
	bool seed_set;			/* --seed N */
	uint64_t seed;
	uint32_t seeds;			/* --seeds N, 0: not given */
};

/* The run's identity: 16 hex digits (run.json's "identity"). */
void fab_run_identity(const struct fab_run_id *id,
		      char out[FAB_RUN_ID_LEN + 1]);

/*
 * The folder of a run without --out: results/NAME, and for a run with
 * overrides, --seed or --seeds, results/NAME+OVERRIDE+... (characters
 * other than letters, digits and "._=,-" as '_'), or results/NAME+IDENTITY
 * when that would be longer than FAB_OUTDIR_TAIL_MAX.
 */
void fab_outdir_default(const char *name, const struct fab_run_id *id,
			char *out, size_t size);

/*
 * Whether a run with identity may write into dir: 0 if dir is missing,
 * empty or holds this run's results (or another's and replace is set);
 * -EEXIST with "--out 'DIR' holds ..." in err otherwise.  Reads only.
 */
int fab_outdir_check(const char *dir, const char *identity, bool replace,
		     char *err, size_t size);

/* Remove the files ofan-fabric writes from dir.  0 or -errno, err set. */
int fab_outdir_clear(const char *dir, char *err, size_t size);

#endif /* OFAN_FAB_OUTDIR_H */
