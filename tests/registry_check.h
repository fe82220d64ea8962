/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every registry's --help lines must be (OFAN_REGISTRY's describe):
 * one "  name  summary" line per entry in registry order, names padded to
 * the longest.  The registries' tests (test_lb.c, test_hlb.c, test_flow.c,
 * test_traffic.c) check theirs with it.
 */
#ifndef OFAN_TEST_REGISTRY_CHECK_H
#define OFAN_TEST_REGISTRY_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

/* entry(i) gives entry i's name and summary; n entries. */
static inline void
t_check_describe(void (*describe)(FILE *f), unsigned int n,
		 void (*entry)(unsigned int i, const char **name,
			       const char **summary))
{
	char *text = NULL, *want = NULL;
	size_t size = 0, want_size = 0;
	FILE *f = open_memstream(&text, &size);
	FILE *w = open_memstream(&want, &want_size);
	const char *name, *summary;
	int width = 0;
	unsigned int i;

	ck_assert(f != NULL && w != NULL);
	describe(f);
	fclose(f);
	for (i = 0; i < n; i++) {
		entry(i, &name, &summary);
		if ((int)strlen(name) > width)
			width = (int)strlen(name);
	}
	for (i = 0; i < n; i++) {
		entry(i, &name, &summary);
		ck_assert_ptr_nonnull(summary);
		fprintf(w, "  %-*s  %s\n", width, name, summary);
	}
	fclose(w);
	ck_assert_str_eq(text, want);
	free(text);
	free(want);
}

#endif /* OFAN_TEST_REGISTRY_CHECK_H */
