/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the harnesses on EAL (fuzz_host, fuzz_switch) share: the input read
 * as a stream of big-endian fields, and EAL's start and stop.
 *
 * EAL starts once, in LLVMFuzzerInitialize, with --no-huge, a small
 * memory, --no-pci, --no-shconf and --no-telemetry, a file prefix of the
 * harness's name and PID, and the main lcore free to run on any CPU
 * (EAL would pin it to the first).  Its runtime directory is removed
 * right after start-up -- nothing needs it (no secondaries, no
 * telemetry), and a crashing input ends the process without exit
 * handlers -- and again by fz_eal_stop().
 */
#ifndef OFAN_FUZZ_EAL_H
#define OFAN_FUZZ_EAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "ofan_fs.h"

/* ---- the input as a stream of bytes (0 once used up) ---- */

struct fz_in {
	const uint8_t *p;
	size_t left;
};

static inline uint8_t
fz_u8(struct fz_in *in)
{
	if (in->left == 0)
		return 0;
	in->left--;
	return *in->p++;
}

static inline uint16_t
fz_u16(struct fz_in *in)
{
	uint16_t v = fz_u8(in);

	return (uint16_t)(v << 8 | fz_u8(in));
}

static inline uint32_t
fz_u32(struct fz_in *in)
{
	uint32_t v = fz_u16(in);

	return v << 16 | fz_u16(in);
}

static inline uint64_t
fz_u64(struct fz_in *in)
{
	uint64_t v = fz_u32(in);

	return v << 32 | fz_u32(in);
}

/* ---- EAL ---- */

/* EAL's runtime directory, removed once started and at the stop. */
static char fz_eal_runtime_dir[512];

static inline void
fz_eal_remove_runtime_dir(void)
{
	if (fz_eal_runtime_dir[0] != '\0')
		(void)ofan_remove_tree(fz_eal_runtime_dir);
}

/*
 * Start EAL for harness name (file prefix name-PID) with mem_mb
 * megabytes; exit(1) with a message if it does not start.
 */
static inline void
fz_eal_start(const char *name, const char *mem_mb)
{
	char prefix[64], lcores[32];
	char *eal_argv[] = {
		(char *)name, (char *)"--no-huge", (char *)"-m",
		(char *)mem_mb, (char *)"--no-pci", (char *)"--no-shconf",
		(char *)"--no-telemetry", (char *)"--file-prefix", prefix,
		(char *)"--lcores", lcores,
		(char *)"--log-level=error", NULL,
	};

	snprintf(prefix, sizeof(prefix), "%s-%d", name, (int)getpid());
	snprintf(lcores, sizeof(lcores), "0@(0-%ld)",
		 RTE_MAX(sysconf(_SC_NPROCESSORS_ONLN), 1L) - 1);
	if (rte_eal_init((int)RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init: %s\n", name,
			rte_strerror(rte_errno));
		exit(1);
	}
	snprintf(fz_eal_runtime_dir, sizeof(fz_eal_runtime_dir), "%s",
		 rte_eal_get_runtime_dir());
	fz_eal_remove_runtime_dir();
}

/* Stop EAL (at exit, once the harness freed what it made). */
static inline void
fz_eal_stop(void)
{
	rte_eal_cleanup();
	fz_eal_remove_runtime_dir();
}

#endif /* OFAN_FUZZ_EAL_H */
