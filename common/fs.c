/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* nftw(); meson defines it, the fuzz builds do not */
#endif
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

#include "ofan_fs.h"

static int
ofan_remove_entry(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int
ofan_remove_tree(const char *path)
{
	struct stat st;

	if (path[0] == '\0' || lstat(path, &st) != 0)
		return 0;
	return nftw(path, ofan_remove_entry, 8, FTW_DEPTH | FTW_PHYS) != 0 ?
		-1 : 0;
}
