/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz-switch-modes: the switch policies and the trim, rts, PFC and link
 * modes fuzz_switch draws, one a line ("policy NAME", "trim NAME", ...),
 * for the docs (scripts/testing-modes.sh); the same functions the
 * harness uses, without clang or EAL.
 */
#include <stdio.h>

#include "fuzz_switch_modes.h"

int
main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: %s\n"
			"Prints the modes fuzz_switch draws, one a line.\n",
			argv[0]);
		return 2;
	}
	fz_sw_modes_print(stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}
