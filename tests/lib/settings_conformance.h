/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The settings half of the conformance suites (lb_conformance.c,
 * hlb_conformance.c, recovery_conformance.c, cc_conformance.c): a
 * module's settings are an opaque block of size bytes in a slot of max
 * bytes; its defaults() and parse() must stay in it, and parse() (when it
 * has one) over a configuration without the module's section must change
 * nothing, neither the defaults nor settings it was given.  A parse()
 * told its section (a recovery model's, a controller's) also refuses a
 * bad value of each of its keys naming FILE:SECTION:KEY, and reads no
 * other section.
 */
#ifndef OFAN_TEST_SETTINGS_CONFORMANCE_H
#define OFAN_TEST_SETTINGS_CONFORMANCE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "ofan_config.h"

/*
 * The checks of t_settings_conform() and t_settings_conform_section():
 * a policy's parse(cfg, settings), or a model's parse_section(cfg,
 * section, settings) over section.
 */
static inline void
t_settings_conform_any(const char *name, void (*defaults)(void *settings),
		       int (*parse)(struct ofan_cfg *cfg, void *settings),
		       int (*parse_section)(struct ofan_cfg *cfg,
					    const char *section,
					    void *settings),
		       const char *section, const unsigned char *given,
		       size_t size, size_t max)
{
	unsigned char *want = malloc(max), *got = malloc(max);
	struct ofan_cfg *cfg;
	char err[256];
	size_t i;
	int k, rc;

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
		if (parse == NULL && parse_section == NULL)
			continue;	/* no settings to read */
		memcpy(got, want, max);
		rc = parse != NULL ? parse(cfg, got) :
			parse_section(cfg, section, got);
		ck_assert_msg(rc == 0, "%s: parse() failed without a section: %s",
			      name, ofan_cfg_error(cfg));
		ck_assert_msg(memcmp(want, got, max) == 0,
			      "%s: parse() without a section changed the %s",
			      name, k == 0 ? "defaults" : "settings");
	}
	ofan_cfg_free(cfg);
	free(want);
	free(got);
}

/* given: max bytes of settings to parse over (the second round). */
static inline void
t_settings_conform(const char *name, void (*defaults)(void *settings),
		   int (*parse)(struct ofan_cfg *cfg, void *settings),
		   const unsigned char *given, size_t size, size_t max)
{
	t_settings_conform_any(name, defaults, parse, NULL, NULL, given, size,
			       max);
}

/* The same for a parse() told its section (recovery models, controllers). */
static inline void
t_settings_conform_section(const char *name,
			   void (*defaults)(void *settings),
			   int (*parse)(struct ofan_cfg *cfg,
					const char *section, void *settings),
			   const char *section, const unsigned char *given,
			   size_t size, size_t max)
{
	t_settings_conform_any(name, defaults, NULL, parse, section, given,
			       size, max);
}

/* s in lower case, as iniparser names sections (in place). */
static inline void
t_lower(char *s)
{
	for (; *s != '\0'; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* A configuration of text, as conformance.ini. */
static inline struct ofan_cfg *
t_settings_cfg(const char *text)
{
	char err[256];
	struct ofan_cfg *cfg = ofan_cfg_load_mem("conformance.ini", text,
						 strlen(text), err,
						 sizeof(err));

	ck_assert_msg(cfg != NULL, "%s", err);
	return cfg;
}

#define T_SETTINGS_MAX_KEYS 32

/*
 * The keys parse() reads in section, asked, not named: over a section
 * holding only a key no model has, the unknown-key check lists the keys
 * the getters asked for ("allowed keys in [SEC]: a, b").  Into keys
 * (T_SETTINGS_MAX_KEYS, each up to 63 characters); how many.
 */
static inline unsigned int
t_settings_keys(int (*parse)(struct ofan_cfg *cfg, const char *section,
			     void *settings),
		const char *section, const unsigned char *given, size_t max,
		char keys[][64])
{
	char text[256], want[160], *list, *save = NULL, *tok;
	unsigned char *got = malloc(max);
	unsigned int n = 0;
	struct ofan_cfg *cfg;

	ck_assert_ptr_nonnull(got);
	memcpy(got, given, max);
	snprintf(text, sizeof(text), "[%s]\nconformance_probe = 1\n", section);
	cfg = t_settings_cfg(text);
	ck_assert_msg(parse(cfg, section, got) == 0,
		      "[%s]: parse() failed on a key it has not: %s", section,
		      ofan_cfg_error(cfg));
	ck_assert_int_ne(ofan_cfg_check_unknown(cfg), 0);
	snprintf(want, sizeof(want), "allowed keys in [%s]: ", section);
	list = strstr(ofan_cfg_error(cfg), want);
	if (list != NULL && strcmp(list + strlen(want), "(none)") != 0) {
		list = strdup(list + strlen(want));
		ck_assert_ptr_nonnull(list);
		for (tok = strtok_r(list, ", ", &save); tok != NULL;
		     tok = strtok_r(NULL, ", ", &save)) {
			ck_assert_uint_lt(n, T_SETTINGS_MAX_KEYS);
			snprintf(keys[n++], 64, "%s", tok);
		}
		free(list);
	}
	ofan_cfg_free(cfg);
	free(got);
	return n;
}

/*
 * What a model's parse() (recovery model, congestion controller) does
 * with its keys, each found by t_settings_keys(): a value no getter reads
 * ('~bad~': not a number, a duration, a yes/no or a name) is refused with
 * a message that names FILE:SECTION:KEY and the value; the same keys
 * in another section, bad values and all, are not read and change
 * nothing.  given: the settings parsed over (max bytes).
 */
static inline void
t_settings_keys_conform(const char *name,
			int (*parse)(struct ofan_cfg *cfg, const char *section,
				     void *settings),
			const char *section, const unsigned char *given,
			size_t max)
{
	char keys[T_SETTINGS_MAX_KEYS][64], text[4096], where[4200];
	unsigned char *got = malloc(max);
	unsigned int n, i;
	struct ofan_cfg *cfg;
	size_t len;

	ck_assert_ptr_nonnull(got);
	n = t_settings_keys(parse, section, given, max, keys);
	for (i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "[%s]\n%s = ~bad~\n", section,
			 keys[i]);
		cfg = t_settings_cfg(text);
		memcpy(got, given, max);
		ck_assert_msg(parse(cfg, section, got) != 0,
			      "%s: [%s] %s = ~bad~ was taken", name, section,
			      keys[i]);
		snprintf(where, sizeof(where), "conformance.ini:%s:%s: ",
			 section, keys[i]);
		ck_assert_msg(strstr(ofan_cfg_error(cfg), where) ==
			      ofan_cfg_error(cfg) &&
			      strstr(ofan_cfg_error(cfg), "'~bad~'") != NULL,
			      "%s: [%s] %s = ~bad~: the message '%s' does not begin with '%s' and name the value",
			      name, section, keys[i], ofan_cfg_error(cfg),
			      where);
		ofan_cfg_free(cfg);
	}
	/* Every key, wrong, in a section of another name. */
	len = (size_t)snprintf(text, sizeof(text), "[%s.other]\n", section);
	for (i = 0; i < n && len < sizeof(text); i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%s = ~bad~\n", keys[i]);
	cfg = t_settings_cfg(text);
	memcpy(got, given, max);
	ck_assert_msg(parse(cfg, section, got) == 0,
		      "%s: parse() of [%s] read [%s.other]: %s", name, section,
		      section, ofan_cfg_error(cfg));
	ck_assert_msg(memcmp(got, given, max) == 0,
		      "%s: parse() of [%s] changed its settings from [%s.other]",
		      name, section, section);
	ofan_cfg_free(cfg);
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
