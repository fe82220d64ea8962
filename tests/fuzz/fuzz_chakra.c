/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the Chakra trace reader (hs_chakra_read_mem(),
 * workload/hs_chakra.c) and the workload engine a trace feeds (hs_wl_build(),
 * hs_wl_ideal(), hs_wl_results(); workload/hs_workload*.c), from memory.
 *
 * The input is a job's trace: byte 0 gives its ranks (1 + byte % 16);
 * then, for each rank but the last, two bytes (little endian) give the
 * length of its file, cut to what is left; the files follow in rank
 * order, the last taking the rest.  (tests/fuzz/run-fuzz.sh packs the
 * shipped traces so for its seeds.)
 *
 * A refused trace must say where: its message begins with one of the
 * files' names ("fuzz.R.et: ") or, for what the engine refuses, the job's
 * ("trace: ").  A trace that builds must run and hold what
 * fuzz_workload.h checks.  Everything is freed (ASan checks the leaks).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_workload.h"
#include "hs_chakra.h"

#define FUZZ_MAX_RANKS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char names[FUZZ_MAX_RANKS][16], err[1024] = "";
	const char *np[FUZZ_MAX_RANKS];
	const uint8_t *bufs[FUZZ_MAX_RANKS];
	size_t lens[FUZZ_MAX_RANKS], pos = 1;
	uint32_t hosts[FUZZ_MAX_RANKS], nr, r;
	struct hs_workload w;
	struct hs_traffic t;
	bool named = false;
	int rc;

	if (size < 1)
		return 0;
	nr = 1 + data[0] % FUZZ_MAX_RANKS;
	for (r = 0; r < nr; r++) {
		size_t len = size - pos;

		if (r + 1 < nr) {
			len = pos + 2 <= size ?
				(size_t)data[pos] | (size_t)data[pos + 1] << 8 : 0;
			pos = pos + 2 <= size ? pos + 2 : size;
			if (len > size - pos)
				len = size - pos;
		}
		snprintf(names[r], sizeof(names[r]), "fuzz.%u.et", r);
		np[r] = names[r];
		bufs[r] = data + pos;
		lens[r] = len;
		pos += len;
		hosts[r] = nr - 1 - r;	/* placed backwards */
	}
	hs_wl_init(&w, nr);
	if (hs_wl_add_job(&w, "trace", nr, hosts, 1 + data[0] / 64, 0, err,
			  sizeof(err)) < 0)
		abort();
	rc = hs_chakra_read_mem(&w, np, bufs, lens, err, sizeof(err));
	if (rc == 0) {
		rc = hs_wl_build(&w, &t, err, sizeof(err));
		if (rc == 0) {
			fuzz_run(&w, &t);
			hs_traffic_free(&t);
		} else if (strncmp(err, "trace: ", 7) != 0 &&
			   strncmp(err, "jobs: ", 6) != 0) {
			abort();
		}
	} else {
		/* Refused: located in one of the files. */
		for (r = 0; r < nr; r++)
			named = named ||
				(strncmp(err, names[r], strlen(names[r])) == 0 &&
				 err[strlen(names[r])] == ':');
		if (!named)
			abort();
	}
	hs_wl_free(&w);
	return 0;
}
