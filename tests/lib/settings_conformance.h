/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The settings half of the policy conformance suites (lb_conformance.c,
 * hlb_conformance.c): a policy's settings are an opaque block of size
 * bytes in a slot of max bytes; its defaults() and parse() must stay in
 * it, and parse() (when it has one) over a configuration without the
 * policy's section must change nothing, neither the defaults nor settings
 * it was given.
 */
#ifndef OFAN_TEST_SETTINGS_CONFORMANCE_H
#define OFAN_TEST_SETTINGS_CONFORMANCE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "ofan_config.h"

/* given: max bytes of settings to parse over (the second round). */
static inline void
t_settings_conform(const char *name, void (*defaults)(void *settings),
		   int (*parse)(struct ofan_cfg *cfg, void *settings),
		   const unsigned char *given, size_t size, size_t max)
{
	unsigned char *want = malloc(max), *got = malloc(max);
	struct ofan_cfg *cfg;
	char err[256];
	size_t i;
	int k;

	ck_assert(want != NULL && got != NULL);
	cfg = ofan_cfg_load_mem("conformance.ini", NULL, 0, err, sizeof(err));
	ck_assert_msg(cfg != NULL, "%s", err);
	for (k = 0; k < 2; k++) {
		if (k == 0) {
			memset(want, 0x5a, max);
			memset(want, 0, size);
			if (defaults != NULL)
				defaults(want);
			for (i = size; i < max; i++)
				ck_assert_msg(want[i] == 0x5a,
					      "%s: defaults() wrote byte %zu of a %zu-byte block",
					      name, i, size);
		} else {
			memcpy(want, given, max);
			memset(want + size, 0x5a, max - size);
		}
		if (parse == NULL)	/* no settings to read */
			continue;
		memcpy(got, want, max);
		ck_assert_msg(parse(cfg, got) == 0,
			      "%s: parse() failed without a section: %s",
			      name, ofan_cfg_error(cfg));
		ck_assert_msg(memcmp(want, got, max) == 0,
			      "%s: parse() without a section changed the %s",
			      name, k == 0 ? "defaults" : "settings");
	}
	ofan_cfg_free(cfg);
	free(want);
	free(got);
}

/*
 * A conformance case's settings and its Check case: bytes (max of them)
 * hold the policy's defaults, or the size bytes given; the case is named
 * "conformance POLICY[ (given settings)]" in name, which must live as long
 * as the case (Check keeps the pointer), with a 60 s timeout.
 */
static inline TCase *
t_conformance_tcase(const char *policy, char *name, size_t name_size,
		    unsigned char *bytes, size_t max,
		    void (*defaults)(void *settings), const void *given,
		    size_t size)
{
	TCase *tc;

	if (policy == NULL || size > max) {
		fprintf(stderr, "conformance: no policy, or settings too large\n");
		abort();
	}
	memset(bytes, 0, max);
	if (defaults != NULL)
		defaults(bytes);
	if (given != NULL)
		memcpy(bytes, given, size);
	snprintf(name, name_size, "conformance %s%s", policy,
		 given != NULL ? " (given settings)" : "");
	tc = tcase_create(name);
	tcase_set_timeout(tc, 60);
	return tc;
}

#endif /* OFAN_TEST_SETTINGS_CONFORMANCE_H */
