/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the configuration loader (ofan_config.h), from
 * memory: each input is the text of "fuzz.ini", loaded by
 * ofan_cfg_load_mem() (iniparser through a memfd: no file is written).
 *
 * A rejected text must say where: its message begins "fuzz.ini:LINE: " or
 * "fuzz.ini: ", never with the /proc path it was read through.
 *
 * An accepted one is read as a program reads its file, with bounded work
 * so that an input costs about what parsing it costs: the keys the file
 * has (those of its first FUZZ_MAX_SECTIONS sections, at most
 * FUZZ_MAX_KEYS in all) each go through every getter, with ranges picked
 * by a hash of the key's name.  A hash of the names also decides which
 * keys are left unread, which sections are marked and which get a missing
 * key asked, so the fuzzer steers all of it through the text.  Then:
 *   - a getter that accepts a value gives one within its range that the
 *     plain parser gives too, and that value written out again (in a unit
 *     with a fraction where there is one) reads back the same;
 *   - a getter that refuses returns -EINVAL with a one-line message that
 *     begins "fuzz.ini:SECTION:KEY: " (or the override's origin, for the
 *     one key the harness overrides); an absent key keeps the default
 *     unless it is required;
 *   - the unknown-key check reports the first section (in file order,
 *     the keys before any section first) that no getter read and nobody
 *     marked, or its first unread key, with the matching message, and
 *     succeeds when there is none.
 * The plain value parsers also get the raw input as one string.
 *
 * Speed: about 2700 inputs a second on one core with run-fuzz.sh's
 * smaller ASan quarantine (the file-based harness of before made about
 * 500 on the same corpus and machine); the getters are about 40 % of it,
 * the load with its system calls and the fuzzer itself the rest.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofan_config.h"

#define FUZZ_NAME "fuzz.ini"
#define FUZZ_ORIGIN "command line: fuzz"
#define FUZZ_MAX_SECTIONS 32
#define FUZZ_MAX_KEYS 16
#define FUZZ_MAX_VALUE 256
#define FUZZ_MAX_LIST 8
#define FUZZ_SENTINEL 12345
/* A section no file can have (iniparser ends a name at ']'). */
#define FUZZ_SCRATCH "fuzz]rt"
/* A key no file can have (iniparser ends a key at '='). */
#define FUZZ_ABSENT "no=key"

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_config:%d: %s\n",		\
				__LINE__, #cond);			\
			abort();					\
		}							\
	} while (0)

static const char *const fuzz_names[] = { "ecmp", "spray", "ofan", NULL };

/* What the harness did to one section, for the unknown-key check. */
struct fuzz_section {
	const char *name;
	bool marked;
	bool asked_any;		/* some key, present or not, was asked */
	int first_unread;	/* index of its first unread key, -1: none */
	int nb_keys;
};

struct fuzz_ctx {
	struct ofan_cfg *cfg;
	const char *over_sec;	/* the key set with FUZZ_ORIGIN */
	const char *over_key;
	uint32_t hash;		/* of the key being read */
};

static uint32_t
fuzz_hash(const char *a, const char *b)
{
	uint32_t h = 2166136261u;

	for (; *a != '\0'; a++)
		h = (h ^ (uint8_t)*a) * 16777619u;
	h = (h ^ 0xffu) * 16777619u;
	for (; b != NULL && *b != '\0'; b++)
		h = (h ^ (uint8_t)*b) * 16777619u;
	return h ^ h >> 15;
}

/* A refused sec:key says so where the user looks for it. */
static void
fuzz_check_refusal(const struct fuzz_ctx *x, const char *sec,
		   const char *key, int rc)
{
	const char *msg = ofan_cfg_error(x->cfg);
	char want[2 * 1100];

	FUZZ_CHECK(rc == -EINVAL);
	if (x->over_sec != NULL && strcmp(sec, x->over_sec) == 0 &&
	    strcmp(key, x->over_key) == 0)
		snprintf(want, sizeof(want), "%s: ", FUZZ_ORIGIN);
	else
		snprintf(want, sizeof(want), "%s:%s:%s: ", FUZZ_NAME, sec, key);
	FUZZ_CHECK(strncmp(msg, want, strlen(want)) == 0);
	FUZZ_CHECK(strchr(msg, '\n') == NULL);
}

/* Set the scratch key to text; the getters then read it back. */
static void
fuzz_scratch(struct ofan_cfg *cfg, const char *text)
{
	FUZZ_CHECK(ofan_cfg_set(cfg, FUZZ_SCRATCH, "v", text) == 0);
}

/*
 * The getters of numbers with units and their plain parsers; a value
 * written back as thousands of this unit with three decimals must read
 * back the same.
 */
static const struct {
	int (*get)(struct ofan_cfg *cfg, const char *sec, const char *key,
		   unsigned int flags, uint64_t min, uint64_t max,
		   uint64_t *out);
	int (*parse)(const char *s, uint64_t *out);
	const char *unit;
} fuzz_scaled[] = {
	{ ofan_cfg_get_rate, ofan_parse_rate, "K" },
	{ ofan_cfg_get_time, ofan_parse_time, "us" },
	{ ofan_cfg_get_size, ofan_parse_size, "KB" },
};

/* The number getters: u64, u32, double, rate, time and size. */
static void
fuzz_numbers(const struct fuzz_ctx *x, const char *sec, const char *key,
	     const char *v)
{
	struct ofan_cfg *cfg = x->cfg;
	uint64_t lo = x->hash % 4, hi = x->hash & 16 ? 1000 : UINT64_MAX;
	uint64_t n = FUZZ_SENTINEL, p = 0, back = 0;
	uint32_t n32 = FUZZ_SENTINEL;
	double d = FUZZ_SENTINEL, dp = 0, dlo = -1e9, dhi = 1e9;
	char buf[64];
	size_t i;
	int rc;

	rc = ofan_cfg_get_u64(cfg, sec, key, 0, lo, hi, &n);
	if (rc == 0)
		FUZZ_CHECK(n >= lo && n <= hi && ofan_parse_u64(v, &p) == 0 &&
			   p == n);
	else
		fuzz_check_refusal(x, sec, key, rc);
	rc = ofan_cfg_get_u32(cfg, sec, key, 0, (uint32_t)lo, UINT32_MAX,
			      &n32);
	if (rc == 0)
		FUZZ_CHECK(ofan_parse_u64(v, &p) == 0 && p == n32);
	else
		fuzz_check_refusal(x, sec, key, rc);

	rc = ofan_cfg_get_double(cfg, sec, key, 0, dlo, dhi, &d);
	if (rc == 0) {
		FUZZ_CHECK(isfinite(d) && d >= dlo && d <= dhi &&
			   ofan_parse_double(v, &dp) == 0 && dp == d);
		snprintf(buf, sizeof(buf), "%.17g", d);
		FUZZ_CHECK(ofan_parse_double(buf, &dp) == 0 && dp == d);
	} else {
		fuzz_check_refusal(x, sec, key, rc);
	}

	for (i = 0; i < sizeof(fuzz_scaled) / sizeof(fuzz_scaled[0]); i++) {
		rc = fuzz_scaled[i].get(cfg, sec, key, 0, lo, hi, &n);
		if (rc != 0) {
			fuzz_check_refusal(x, sec, key, rc);
			continue;
		}
		FUZZ_CHECK(n >= lo && n <= hi &&
			   fuzz_scaled[i].parse(v, &p) == 0 && p == n);
		snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64 "%s",
			 n / 1000, n % 1000, fuzz_scaled[i].unit);
		FUZZ_CHECK(fuzz_scaled[i].parse(buf, &back) == 0 && back == n);
	}
}

/* The other getters: bool, enum, IPv4, prefix, MAC and lists. */
static void
fuzz_words(const struct fuzz_ctx *x, const char *sec, const char *key,
	   const char *v)
{
	static const char *const words[] = {
		"no", "false", "off", "0", "yes", "true", "on", "1", NULL
	};
	struct ofan_cfg *cfg = x->cfg;
	uint32_t addr = 0, back = 0, list[FUZZ_MAX_LIST], count = 0, i;
	uint32_t max = x->hash & 32 ? 100 : UINT32_MAX, max_count;
	uint8_t len = 0, back_len = 0, mac[6], mac2[6];
	char buf[FUZZ_MAX_LIST * 12 + 8];
	size_t used = 0;
	bool b = false;
	int rc, e = -1, w = -1;

	rc = ofan_cfg_get_bool(cfg, sec, key, 0, &b);
	if (rc == 0)
		FUZZ_CHECK(ofan_cfg_get_enum(cfg, sec, key, 0, words,
					     &w) == 0 && b == (w >= 4));
	else
		fuzz_check_refusal(x, sec, key, rc);
	rc = ofan_cfg_get_enum(cfg, sec, key, 0, fuzz_names, &e);
	if (rc == 0)
		FUZZ_CHECK(e >= 0 && e < 3 &&
			   strcasecmp(v, fuzz_names[e]) == 0);
	else
		fuzz_check_refusal(x, sec, key, rc);

	rc = ofan_cfg_get_ipv4(cfg, sec, key, 0, &addr);
	if (rc == 0) {
		snprintf(buf, sizeof(buf), "%u.%u.%u.%u", addr >> 24,
			 addr >> 16 & 0xff, addr >> 8 & 0xff, addr & 0xff);
		FUZZ_CHECK(strcmp(buf, v) == 0);
	} else {
		fuzz_check_refusal(x, sec, key, rc);
	}
	rc = ofan_cfg_get_prefix(cfg, sec, key, 0, &addr, &len);
	if (rc == 0) {
		FUZZ_CHECK(len <= 32 &&
			   (len == 32 || (addr & (UINT32_MAX >> len)) == 0));
		snprintf(buf, sizeof(buf), "%u.%u.%u.%u/%u", addr >> 24,
			 addr >> 16 & 0xff, addr >> 8 & 0xff, addr & 0xff,
			 len);
		fuzz_scratch(cfg, buf);
		FUZZ_CHECK(ofan_cfg_get_prefix(cfg, FUZZ_SCRATCH, "v", 0, &back,
					       &back_len) == 0 &&
			   back == addr && back_len == len);
	} else {
		fuzz_check_refusal(x, sec, key, rc);
	}
	rc = ofan_cfg_get_mac(cfg, sec, key, 0, mac);
	if (rc == 0) {
		snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x",
			 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
		FUZZ_CHECK(ofan_parse_mac(buf, mac2) == 0 &&
			   memcmp(mac, mac2, 6) == 0 &&
			   strcasecmp(buf, v) == 0);
	} else {
		fuzz_check_refusal(x, sec, key, rc);
	}

	max_count = 1 + x->hash % FUZZ_MAX_LIST;
	rc = ofan_cfg_get_u32_list(cfg, sec, key, 0, 0, max, list, max_count,
				   &count);
	if (rc != 0) {
		fuzz_check_refusal(x, sec, key, rc);
		return;
	}
	FUZZ_CHECK(count >= 1 && count <= max_count);
	for (i = 0; i < count; i++) {
		FUZZ_CHECK(list[i] <= max);
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%u",
					 i == 0 ? "" : " ,", list[i]);
	}
	fuzz_scratch(cfg, buf);
	FUZZ_CHECK(ofan_cfg_get_u32_list(cfg, FUZZ_SCRATCH, "v", 0, 0, max,
					 list, max_count, &back) == 0 &&
		   back == count);
}

/* Every getter on sec:key, which the file has. */
static void
fuzz_key(struct fuzz_ctx *x, const char *sec, const char *key)
{
	char path[64], dev[FUZZ_MAX_VALUE];
	const char *v = NULL;
	int rc;

	x->hash = fuzz_hash(sec, key);
	FUZZ_CHECK(ofan_cfg_has_key(x->cfg, sec, key));
	FUZZ_CHECK(ofan_cfg_get_str(x->cfg, sec, key, OFAN_CFG_REQUIRED,
				    &v) == 0 && v != NULL);
	fuzz_numbers(x, sec, key, v);
	fuzz_words(x, sec, key, v);
	/* No folder in FUZZ_NAME: a relative path stays as written. */
	rc = ofan_cfg_path_of(x->cfg, sec, key, v, path, sizeof(path));
	if (rc == 0)
		FUZZ_CHECK(strcmp(path, v) == 0);
	else
		fuzz_check_refusal(x, sec, key, rc);
	rc = ofan_cfg_devargs(x->cfg, sec, key, v, dev, sizeof(dev));
	if (rc != 0)
		fuzz_check_refusal(x, sec, key, rc);
}

/* A key the file cannot have: absent keeps the default, required fails. */
static void
fuzz_absent(struct fuzz_ctx *x, const char *sec)
{
	uint64_t n = FUZZ_SENTINEL;
	const char *s = NULL;

	FUZZ_CHECK(ofan_cfg_get_str(x->cfg, sec, FUZZ_ABSENT, 0, &s) == 0 &&
		   s == NULL);
	FUZZ_CHECK(ofan_cfg_get_time(x->cfg, sec, FUZZ_ABSENT, 0, 0, 10,
				     &n) == 0 && n == FUZZ_SENTINEL);
	fuzz_check_refusal(x, sec, FUZZ_ABSENT,
			   ofan_cfg_get_size(x->cfg, sec, FUZZ_ABSENT,
					     OFAN_CFG_REQUIRED, 0, 10, &n));
}

/* The unknown-key check against what the harness read, secs in order. */
static void
fuzz_check_unknown(const struct fuzz_ctx *x, const struct fuzz_section *secs,
		   int nb)
{
	const char *msg, *keys[FUZZ_MAX_KEYS + 1], *key;
	const struct fuzz_section *s = NULL;
	char want[2 * 1100];
	int i, rc;

	for (i = 0; i < nb && s == NULL; i++)
		if (!secs[i].marked &&
		    (!secs[i].asked_any || secs[i].first_unread >= 0))
			s = &secs[i];
	rc = ofan_cfg_check_unknown(x->cfg);
	msg = ofan_cfg_error(x->cfg);
	if (s == NULL) {
		FUZZ_CHECK(rc == 0);
		return;
	}
	FUZZ_CHECK(rc == -EINVAL);
	FUZZ_CHECK(ofan_cfg_keys(x->cfg, s->name, keys, FUZZ_MAX_KEYS + 1) ==
		   s->nb_keys && s->first_unread < s->nb_keys);
	if (!s->asked_any) {
		if (s->name[0] == '\0')
			snprintf(want, sizeof(want), "%s: key '%s' is outside "
				 "any section; expected it under a [section]",
				 FUZZ_NAME, keys[0]);
		else
			snprintf(want, sizeof(want), "%s:%s: unknown section",
				 FUZZ_NAME, s->name);
		FUZZ_CHECK(strncmp(msg, want, strlen(want)) == 0);
		msg += strlen(want);
		/* A suggestion names a section the harness read. */
		if (s->name[0] != '\0' &&
		    strncmp(msg, "; did you mean [", 16) == 0) {
			size_t len = strlen(msg + 16);
			bool known = false;

			FUZZ_CHECK(len >= 2 && strcmp(msg + 16 + len - 2,
						      "]?") == 0);
			char name[1100];

			/* One the harness read, or its scratch section. */
			FUZZ_CHECK(len - 2 < sizeof(name));
			memcpy(name, msg + 16, len - 2);
			name[len - 2] = '\0';
			for (i = 0; i < nb; i++)
				known = known || strcmp(secs[i].name, name) == 0;
			FUZZ_CHECK(known || strcmp(name, FUZZ_SCRATCH) == 0);
		} else if (s->name[0] != '\0' && msg[0] != '\0') {
			FUZZ_CHECK(strncmp(msg, "; expected one of [", 19) == 0);
		} else {
			FUZZ_CHECK(msg[0] == '\0');
		}
		return;
	}
	/* The first unread key, blamed on the override if it set it. */
	key = keys[s->first_unread];
	if (x->over_sec != NULL && strcmp(s->name, x->over_sec) == 0 &&
	    strcmp(key, x->over_key) == 0)
		snprintf(want, sizeof(want), "%s: unknown key; allowed keys "
			 "in [%s]: ", FUZZ_ORIGIN, s->name);
	else
		snprintf(want, sizeof(want), "%s:%s:%s: unknown key; allowed "
			 "keys in [%s]: ", FUZZ_NAME, s->name, key, s->name);
	FUZZ_CHECK(strncmp(msg, want, strlen(want)) == 0);
}

static void
fuzz_parsers(const uint8_t *data, size_t size)
{
	char s[FUZZ_MAX_VALUE];
	uint64_t v;
	uint32_t a;
	uint8_t mac[6];
	double d;

	if (size >= sizeof(s))
		size = sizeof(s) - 1;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)ofan_parse_u64(s, &v);
	(void)ofan_parse_double(s, &d);
	(void)ofan_parse_rate(s, &v);
	(void)ofan_parse_time(s, &v);
	(void)ofan_parse_size(s, &v);
	(void)ofan_parse_ipv4(s, &a);
	(void)ofan_parse_mac(s, mac);
}

/*
 * A rejected text names the file and, for a bad line, the line; the path
 * it was read through shows nowhere (unless the text holds it).
 */
static void
fuzz_check_rejected(const char *err, const uint8_t *data, size_t size)
{
	static const char proc[] = "/proc/self/fd/";
	const char *p = err + strlen(FUZZ_NAME);

	FUZZ_CHECK(strncmp(err, FUZZ_NAME, strlen(FUZZ_NAME)) == 0);
	FUZZ_CHECK(strstr(err, proc) == NULL ||
		   memmem(data, size, proc, strlen(proc)) != NULL);
	if (*p == ':' && p[1] >= '1' && p[1] <= '9') {
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
		FUZZ_CHECK(p[0] == ':' && p[1] == ' ');
	} else {
		FUZZ_CHECK(p[0] == ':' && p[1] == ' ');
	}
}

/*
 * Read the keys of section s as the hashes of the names say, at most
 * *budget of them; mark it or ask a missing key too, or not.
 */
static void
fuzz_section(struct fuzz_ctx *x, struct fuzz_section *s, int *budget)
{
	const char *keys[FUZZ_MAX_KEYS];
	uint32_t h;
	int j, n;

	s->first_unread = -1;
	s->nb_keys = ofan_cfg_keys(x->cfg, s->name, keys, FUZZ_MAX_KEYS);
	n = s->nb_keys < FUZZ_MAX_KEYS ? s->nb_keys : FUZZ_MAX_KEYS;
	/* Section "" only has its keys read, or not. */
	h = s->name[0] == '\0' ? 0 : fuzz_hash(s->name, n > 0 ? keys[0] : NULL);
	if (h % 8 == 1) {
		ofan_cfg_mark_section(x->cfg, s->name);
		s->marked = true;
	}
	if (h % 4 == 2) {
		fuzz_absent(x, s->name);
		s->asked_any = true;
	}
	for (j = 0; j < s->nb_keys; j++) {
		if (j >= n || *budget == 0 ||
		    fuzz_hash(s->name, keys[j]) % 16 == 0) {
			if (s->first_unread < 0)
				s->first_unread = j;
			continue;
		}
		fuzz_key(x, s->name, keys[j]);
		s->asked_any = true;
		(*budget)--;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_section secs[FUZZ_MAX_SECTIONS + 2];
	const char *names[FUZZ_MAX_SECTIONS + 1], *keys[1];
	struct fuzz_ctx x = { 0 };
	int i, n, nb, rc, first, budget = FUZZ_MAX_KEYS;
	char err[512] = "";

	fuzz_parsers(data, size);
	x.cfg = ofan_cfg_load_mem(FUZZ_NAME, (const char *)data, size, err,
				  sizeof(err));
	if (x.cfg == NULL) {
		fuzz_check_rejected(err, data, size);
		return 0;
	}
	n = ofan_cfg_sections(x.cfg, "", names, FUZZ_MAX_SECTIONS + 1);
	nb = n < FUZZ_MAX_SECTIONS + 1 ? n : FUZZ_MAX_SECTIONS + 1;
	for (i = 0; i < nb; i++)
		FUZZ_CHECK(ofan_cfg_has_section(x.cfg, names[i]));

	/*
	 * The first key of the first section, overridden (any text will
	 * do), unless it holds a ':', which an override cannot set.
	 */
	if (n > 0 && ofan_cfg_keys(x.cfg, names[0], keys, 1) > 0) {
		rc = ofan_cfg_set_from(x.cfg, names[0], keys[0], names[nb - 1],
				       FUZZ_ORIGIN);
		FUZZ_CHECK(rc == (strchr(keys[0], ':') ? -EINVAL : 0));
		if (rc == 0) {
			x.over_sec = names[0];
			x.over_key = keys[0];
		}
	}

	/*
	 * The keys before any section come first, as section "", which
	 * holds some: a blank name ("[ ]") is no section.
	 */
	memset(secs, 0, sizeof(secs));
	first = ofan_cfg_has_section(x.cfg, "") ? 1 : 0;
	FUZZ_CHECK(!first || ofan_cfg_keys(x.cfg, "", NULL, 0) > 0);
	secs[0].name = "";
	for (i = 0; i < nb; i++)
		secs[first + i].name = names[i];
	for (i = 0; i < first + nb; i++) {
		/* The one past the bound is left unread. */
		if (i < first + FUZZ_MAX_SECTIONS)
			fuzz_section(&x, &secs[i], &budget);
		else
			secs[i].first_unread = -1;
	}
	fuzz_check_unknown(&x, secs, first + nb);
	ofan_cfg_free(x.cfg);
	return 0;
}
