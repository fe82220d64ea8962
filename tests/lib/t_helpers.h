/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers the Check suites share (tests/lib): statistics of counts,
 * loading a config text through a file, and reading one counter of a
 * policy's dump().  Header-only, static inline: each suite is one
 * executable.
 */
#ifndef OFAN_TESTS_T_HELPERS_H
#define OFAN_TESTS_T_HELPERS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "ofan_config.h"

/*
 * Bound on the relative standard deviation of nb uniform throws over n
 * bins, exceeded with probability 1e-4: sqrt(q / nb), q the chi-square
 * quantile for n - 1 degrees of freedom (Wilson-Hilferty, which errs on
 * the large side for few degrees of freedom).
 */
static inline double
t_rel_sd_bound(unsigned int n, unsigned int nb)
{
	const double z = 3.719;	/* standard normal 1 - 1e-4 quantile */
	double k = n - 1;
	double c = 1 - 2 / (9 * k) + z * sqrt(2 / (9 * k));

	return sqrt(k * c * c * c / nb);
}

/* Relative standard deviation of counts[0..n-1]. */
static inline double
t_rel_sd(const uint64_t *counts, unsigned int n)
{
	double mean = 0, var = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		mean += (double)counts[i];
	mean /= n;
	for (i = 0; i < n; i++)
		var += ((double)counts[i] - mean) * ((double)counts[i] - mean);
	return sqrt(var / n) / mean;
}

/*
 * Write text to a fresh file /tmp/NAME_XXXXXX followed by suffix ("" or
 * an extension such as ".ini"); its path into path (size bytes).  The
 * caller removes it.  Any failure fails the test.
 */
static inline void
t_write_temp(char *path, size_t size, const char *name, const char *suffix,
	     const char *text)
{
	size_t len = strlen(text);
	int fd;

	ck_assert_int_lt(snprintf(path, size, "/tmp/%s_XXXXXX%s", name,
				  suffix), (int)size);
	fd = mkstemps(path, (int)strlen(suffix));
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq((size_t)write(fd, text, len), len);
	ck_assert_int_eq(close(fd), 0);
}

/*
 * Load text as a config file /tmp/<prefix>_XXXXXX (its name is in the
 * messages); the file is removed at once.  A failed load fails the test.
 */
static inline struct ofan_cfg *
t_cfg_from(const char *prefix, const char *text)
{
	char path[128], err[256];
	struct ofan_cfg *cfg;

	t_write_temp(path, sizeof(path), prefix, "", text);
	cfg = ofan_cfg_load(path, err, sizeof(err));
	unlink(path);
	ck_assert_msg(cfg != NULL, "load: %s", err);
	return cfg;
}

/* A policy's dump() into a small key/value list, to read counters back. */
struct t_dump {
	unsigned int nb;
	char key[16][32];
	uint64_t value[16];
};

static inline void
t_dump_emit(void *arg, const char *key, uint64_t value)
{
	struct t_dump *d = arg;

	ck_assert_uint_lt(d->nb, 16);
	snprintf(d->key[d->nb], sizeof(d->key[0]), "%s", key);
	d->value[d->nb++] = value;
}

/* The value of key in d; fails the test (naming who) if it is not there. */
static inline uint64_t
t_dump_value(const struct t_dump *d, const char *who, const char *key)
{
	unsigned int i;

	for (i = 0; i < d->nb; i++)
		if (strcmp(d->key[i], key) == 0)
			return d->value[i];
	ck_abort_msg("%s: dump has no key '%s'", who, key);
	return 0;
}

#endif /* OFAN_TESTS_T_HELPERS_H */
