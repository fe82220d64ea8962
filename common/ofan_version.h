/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --version, the same in every program: "PROG VERSION (git DESCRIBE)" on
 * stdout, exit status 0, before anything else is looked at (no EAL).
 */
#ifndef OFAN_VERSION_H
#define OFAN_VERSION_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ofan_vcs.h"

/* Whether --version is one of the arguments. */
static inline bool
ofan_version_asked(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--version") == 0)
			return true;
	return false;
}

/* Print prog's version line on stdout; 0, the exit status. */
static inline int
ofan_version_print(const char *prog)
{
	printf("%s %s\n", prog, OFAN_VERSION);
	return fflush(stdout) == 0 ? 0 : 1;
}

#endif /* OFAN_VERSION_H */
