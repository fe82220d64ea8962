/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz-host-modes: the recovery models, congestion controllers and host
 * policies fuzz_host draws, one a line ("recovery NAME", "cc NAME",
 * "policy NAME"), for the docs; the same list as
 * FUZZ_HOST_MODES=1 fuzz_host prints, without clang or EAL.
 */
#include <stdio.h>

#include "fuzz_host_modes.h"

int
main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: %s\n"
			"Prints the modes fuzz_host draws, one a line.\n",
			argv[0]);
		return 2;
	}
	fz_modes_print(stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}
