/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every registry (OFAN_REGISTRY) must do, for the registries' tests
 * and the plugin tests: its --help lines (describe) are one
 * "  name  summary" line per entry in registry order, names padded to the
 * longest; its register() refuses what lacks a name or a summary.
 */
#ifndef OFAN_TEST_REGISTRY_CHECK_H
#define OFAN_TEST_REGISTRY_CHECK_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#define T_DESCRIBE_MAX 64
#define T_DIM(a) (sizeof(a) / sizeof((a)[0]))

/* names[i], summaries[i]: entry i's; n entries. */
static inline void
t_check_describe(void (*describe)(FILE *f), unsigned int n,
		 const char *const *names, const char *const *summaries)
{
	char *text = NULL, *want = NULL;
	size_t size = 0, want_size = 0;
	FILE *f = open_memstream(&text, &size);
	FILE *w = open_memstream(&want, &want_size);
	int width = 0;
	unsigned int i;

	ck_assert(f != NULL && w != NULL);
	describe(f);
	fclose(f);
	for (i = 0; i < n; i++)
		if ((int)strlen(names[i]) > width)
			width = (int)strlen(names[i]);
	for (i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(summaries[i]);
		fprintf(w, "  %-*s  %s\n", width, names[i], summaries[i]);
	}
	fclose(w);
	ck_assert_str_eq(text, want);
	free(text);
	free(want);
}

/*
 * describe() lists every entry of registry (a NULL-terminated array of
 * pointers to ops with name and summary, as OFAN_REGISTRY keeps them).
 */
#define T_CHECK_DESCRIBE(describe, registry)				\
	do {								\
		const char *t_names_[T_DESCRIBE_MAX];			\
		const char *t_summaries_[T_DESCRIBE_MAX];		\
		unsigned int t_n_;					\
									\
		for (t_n_ = 0; (registry)[t_n_] != NULL; t_n_++) {	\
			ck_assert_uint_lt(t_n_, T_DESCRIBE_MAX);	\
			t_names_[t_n_] = (registry)[t_n_]->name;	\
			t_summaries_[t_n_] = (registry)[t_n_]->summary;	\
		}							\
		t_check_describe((describe), t_n_, t_names_, t_summaries_); \
	} while (0)

/*
 * bad[] (n entries) as base named free_name (a name nobody has taken:
 * only the fault counts), the first T_NAME_FAULTS with their name or
 * summary NULL or empty, which every register() refuses.  The caller gives
 * each entry after them a fault of its own, then T_CHECK_REFUSED.
 */
#define T_NAME_FAULTS 4
#define T_FAULTY(bad, n, base, free_name)				\
	do {								\
		unsigned int t_j_;					\
									\
		for (t_j_ = 0; t_j_ < (n); t_j_++) {			\
			(bad)[t_j_] = (base);				\
			(bad)[t_j_].name = (free_name);			\
		}							\
		(bad)[0].name = NULL;					\
		(bad)[1].name = "";					\
		(bad)[2].summary = NULL;				\
		(bad)[3].summary = "";					\
	} while (0)

/*
 * reg() refuses NULL and each of the n entries of bad[] (a policy that
 * registers, with one member wrong in each) with -EINVAL.
 */
#define T_CHECK_REFUSED(reg, bad, n)					\
	do {								\
		unsigned int t_i_;					\
									\
		ck_assert_int_eq(reg(NULL), -EINVAL);			\
		for (t_i_ = 0; t_i_ < (n); t_i_++)			\
			ck_assert_msg(reg(&(bad)[t_i_]) == -EINVAL,	\
				      "case %u: %d", t_i_,		\
				      reg(&(bad)[t_i_]));		\
	} while (0)

#endif /* OFAN_TEST_REGISTRY_CHECK_H */
