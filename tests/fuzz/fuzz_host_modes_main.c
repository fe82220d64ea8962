/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz-host-modes: the recovery models, congestion controllers and host
 * policies fuzz_host draws, one a line ("recovery NAME", "cc NAME",
 * "policy NAME"), for the docs; the same list as
 * FUZZ_HOST_MODES=1 fuzz_host prints, without clang or EAL.
 */
#include <stdio.h>
#include <string.h>

#include "fuzz_host_modes.h"
#include "ofan_version.h"

int
main(int argc, char **argv)
{
	if (ofan_version_asked(argc, argv))
		return ofan_version_print("fuzz-host-modes");
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			  strcmp(argv[1], "-h") == 0)) {
		printf("usage: fuzz-host-modes [--help | --version]\n"
		       "Prints the modes fuzz_host draws, one a line.\n");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: fuzz-host-modes [--help | --version]\n"
			"Prints the modes fuzz_host draws, one a line.\n");
		return 2;
	}
	fz_modes_print(stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}
