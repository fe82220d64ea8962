/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz-switch-modes: the switch policies and the trim, rts, PFC and link
 * modes fuzz_switch draws, one a line ("policy NAME", "trim NAME", ...),
 * for the docs (scripts/testing-modes.sh); the same functions the
 * harness uses, without clang or EAL.
 */
#include <stdio.h>
#include <string.h>

#include "fuzz_switch_modes.h"
#include "ofan_version.h"

int
main(int argc, char **argv)
{
	if (ofan_version_asked(argc, argv))
		return ofan_version_print("fuzz-switch-modes");
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			  strcmp(argv[1], "-h") == 0)) {
		printf("usage: fuzz-switch-modes [--help | --version]\n"
		       "Prints the modes fuzz_switch draws, one a line.\n");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: fuzz-switch-modes [--help | --version]\n"
			"Prints the modes fuzz_switch draws, one a line.\n");
		return 2;
	}
	fz_sw_modes_print(stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}
