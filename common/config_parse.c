/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed configuration getters and the plain value parsers behind them (see
 * ofan_config.h).  The getters use only the public interface of config.c:
 * ofan_cfg_get_str() to fetch (and mark as read) the raw value and
 * ofan_cfg_fail() to report a bad one.
 *
 * Numbers with units ("2.5G", "1.5us", "4KiB") are parsed as exact
 * decimals: the integer and fraction digits are kept as integers and
 * scaled with 128-bit arithmetic, so "2.5G" is exactly 2500000000 and no
 * binary floating point rounding can creep in.  Parsers return -EINVAL for
 * bad syntax and, internally, -ERANGE when the value does not fit, so the
 * getters can tell "not a number" from "too large".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofan_config.h"

/* Fraction digits kept exactly; later ones only matter for rounding. */
#define CFG_MAX_FRAC_DIGITS 18
#define CFG_EXPECT_SIZE 1024
#define CFG_NUM_SIZE 48

/* Maps the unit text after a number to its multiplier; 0 or -EINVAL. */
typedef int (*cfg_unit_fn)(const char *unit, uint64_t *mult);

static int
cfg_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	bool overflow = false;
	const char *p;

	if (*s == '\0')
		return -EINVAL;
	for (p = s; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			overflow = true;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (overflow)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * "DIGITS[.DIGITS]UNIT" times the unit's multiplier, rounded to the
 * nearest integer (half up).  With exact set, a result that is not a whole
 * number is -EDOM.
 */
static int
cfg_parse_scaled(const char *s, cfg_unit_fn unit_fn, bool exact,
		 uint64_t *out)
{
	const char *p = s, *int_end, *frac = NULL, *frac_end = NULL;
	unsigned __int128 num, total = 0;
	uint64_t mult, f = 0, scale = 1;
	bool dropped = false;

	while (isdigit((unsigned char)*p))
		p++;
	if (p == s)
		return -EINVAL;
	int_end = p;
	if (*p == '.') {
		frac = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == frac)
			return -EINVAL;
		frac_end = p;
	}
	if (unit_fn(p, &mult) < 0)
		return -EINVAL;

	for (p = s; p < int_end; p++) {
		total = total * 10 + (unsigned int)(*p - '0');
		if (total > UINT64_MAX)
			return -ERANGE;
	}
	total *= mult;
	for (p = frac; p != NULL && p < frac_end; p++) {
		if (p - frac < CFG_MAX_FRAC_DIGITS) {
			f = f * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		} else if (*p != '0') {
			dropped = true;
		}
	}
	num = (unsigned __int128)f * mult;
	if (exact && (num % scale != 0 || dropped))
		return -EDOM;
	total += num / scale;
	if ((num % scale) * 2 >= scale)
		total++;
	if (total > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)total;
	return 0;
}

/*
 * K/M/G/T (powers of 1000, either case), then bits in any common
 * spelling: nothing, b, bit, bits, bps, b/s, bit/s, bits/s.  A capital B
 * is bytes, never taken for bits.
 */
static int
cfg_rate_unit(const char *u, uint64_t *mult)
{
	static const char prefixes[] = "kmgt";
	static const char *const bits[] = {
		"", "b", "bit", "bits", "bps", "b/s", "bit/s", "bits/s",
	};
	const char *p = *u != '\0' ? strchr(prefixes, tolower(*u)) : NULL;
	size_t i;

	*mult = 1;
	if (p != NULL) {
		for (i = 0; i <= (size_t)(p - prefixes); i++)
			*mult *= 1000;
		u++;
	}
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (strcmp(u, bits[i]) == 0 ||
		    (strcasecmp(u, bits[i]) == 0 && strchr(u, 'B') == NULL))
			return 0;
	return -EINVAL;
}

static int
cfg_time_unit(const char *u, uint64_t *mult)
{
	static const struct {
		const char *name;
		uint64_t mult;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(u, units[i].name) == 0) {
			*mult = units[i].mult;
			return 0;
		}
	}
	return -EINVAL;
}

/* Decimal units K/KB/M/MB/G/GB/T/TB, binary KiB/MiB/GiB/TiB. */
static int
cfg_size_unit(const char *u, uint64_t *mult)
{
	static const char prefixes[] = "kmgt";
	const char *p = *u != '\0' ? strchr(prefixes, tolower(*u)) : NULL;
	uint64_t base = 1000;
	int i;

	*mult = 1;
	if (p == NULL)
		return *u == '\0' || strcasecmp(u, "b") == 0 ? 0 : -EINVAL;
	u++;
	if (strcasecmp(u, "ib") == 0)
		base = 1024;
	else if (*u != '\0' && strcasecmp(u, "b") != 0)
		return -EINVAL;
	for (i = 0; i <= p - prefixes; i++)
		*mult *= base;
	return 0;
}

static int
cfg_parse_time(const char *s, uint64_t *out)
{
	if (strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	return cfg_parse_scaled(s, cfg_time_unit, false, out);
}

int
ofan_parse_u64(const char *s, uint64_t *out)
{
	return cfg_parse_u64(s, out) < 0 ? -EINVAL : 0;
}

int
ofan_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	/* strtod alone would take leading blanks, hex, "nan" and "inf". */
	if (*s != '-' && *s != '+' && *s != '.' && !isdigit((unsigned char)*s))
		return -EINVAL;
	if (strpbrk(s, "xX") != NULL)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

int
ofan_parse_rate(const char *s, uint64_t *out_bps)
{
	return cfg_parse_scaled(s, cfg_rate_unit, false, out_bps) < 0 ?
	       -EINVAL : 0;
}

int
ofan_parse_time(const char *s, uint64_t *out_ns)
{
	return cfg_parse_time(s, out_ns) < 0 ? -EINVAL : 0;
}

int
ofan_parse_epoch(const char *s, uint64_t *out_ns)
{
	char buf[CFG_NUM_SIZE];

	/* Digits and at most one dot; the time parser does the rest. */
	if (strspn(s, "0123456789.") != strlen(s) || strlen(s) + 2 > sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%ss", s);
	return cfg_parse_time(buf, out_ns) < 0 ? -EINVAL : 0;
}

int
ofan_parse_size(const char *s, uint64_t *out)
{
	return cfg_parse_scaled(s, cfg_size_unit, true, out) < 0 ?
	       -EINVAL : 0;
}

int
ofan_parse_ipv4(const char *s, uint32_t *out)
{
	uint32_t addr = 0, part;
	const char *p = s;
	int i, digits;

	for (i = 0; i < 4; i++) {
		if (i > 0 && *p++ != '.')
			return -EINVAL;
		part = 0;
		/* No leading zeros: inet_aton() would read "010" as octal. */
		for (digits = 0; isdigit((unsigned char)p[digits]); digits++) {
			if (digits == 3 || (digits == 1 && part == 0))
				return -EINVAL;
			part = part * 10 + (uint32_t)(p[digits] - '0');
		}
		if (digits == 0 || part > 255)
			return -EINVAL;
		addr = addr << 8 | part;
		p += digits;
	}
	if (*p != '\0')
		return -EINVAL;
	*out = addr;
	return 0;
}

static int
cfg_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -EINVAL;
}

int
ofan_parse_mac(const char *s, uint8_t mac[6])
{
	uint8_t tmp[6];
	int i, hi, lo;

	if (strlen(s) != 17)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		hi = cfg_hex_digit(s[3 * i]);
		lo = cfg_hex_digit(s[3 * i + 1]);
		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			return -EINVAL;
		tmp[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(mac, tmp, sizeof(tmp));
	return 0;
}

/*
 * Print v in the largest of the given power-of-ten units it reaches, with
 * the exact decimal fraction ("2.5G", "1500us").  units run largest first
 * and end with the unit 1.
 */
static void
cfg_format_decimal(char *buf, size_t size, uint64_t v,
		   const char *const *names, const uint64_t *mults)
{
	char frac[24];
	uint64_t m, rem;
	int i, k, digits;

	for (i = 0; mults[i] != 1 && v < mults[i]; i++)
		;
	m = mults[i];
	rem = v % m;
	if (v == 0 || rem == 0) {
		snprintf(buf, size, "%" PRIu64 "%s", v / m,
			 v == 0 ? "" : names[i]);
		return;
	}
	for (digits = 0; m > 1 && digits < (int)sizeof(frac) - 1; m /= 10)
		digits++;
	frac[digits] = '\0';
	for (k = digits - 1; k >= 0; k--, rem /= 10)
		frac[k] = (char)('0' + rem % 10);
	while (digits > 0 && frac[digits - 1] == '0')
		frac[--digits] = '\0';
	snprintf(buf, size, "%" PRIu64 ".%s%s", v / mults[i], frac, names[i]);
}

static void
cfg_format_rate(char *buf, size_t size, uint64_t v)
{
	static const char *const names[] = { "T", "G", "M", "K", "" };
	static const uint64_t mults[] = {
		1000000000000ULL, 1000000000, 1000000, 1000, 1
	};

	cfg_format_decimal(buf, size, v, names, mults);
}

static void
cfg_format_time(char *buf, size_t size, uint64_t v)
{
	static const char *const names[] = { "s", "ms", "us", "ns" };
	static const uint64_t mults[] = { 1000000000, 1000000, 1000, 1 };

	cfg_format_decimal(buf, size, v, names, mults);
}

static void
cfg_format_size(char *buf, size_t size, uint64_t v)
{
	static const char *const names[] = { "TiB", "GiB", "MiB", "KiB" };
	int i;

	for (i = 0; i < 4 && v != 0; i++) {
		if (v % (1ULL << (10 * (4 - i))) == 0) {
			snprintf(buf, size, "%" PRIu64 "%s",
				 v >> (10 * (4 - i)), names[i]);
			return;
		}
	}
	snprintf(buf, size, "%" PRIu64, v);
}

/*
 * Fetch sec:key.  Returns 0 with *value NULL when it is absent and not
 * required; a missing required key is reported with expect.
 */
static int
cfg_value(struct ofan_cfg *cfg, const char *sec, const char *key,
	  unsigned int flags, const char *expect, const char *def,
	  const char **value)
{
	int rc;

	ofan_cfg_ref_note(sec, key, flags, expect, def);
	*value = NULL;
	rc = ofan_cfg_get_str(cfg, sec, key, 0, value);
	if (rc < 0)
		return rc;
	if (*value == NULL && (flags & OFAN_CFG_REQUIRED))
		return ofan_cfg_fail(cfg, sec, key, "missing; expected %s",
				     expect);
	return 0;
}

/* "'VALUE' is not WHAT; expected EXPECT", or "'' is empty; ...". */
static int
cfg_bad(struct ofan_cfg *cfg, const char *sec, const char *key,
	const char *v, const char *what, const char *expect)
{
	if (*v == '\0')
		return ofan_cfg_fail(cfg, sec, key, "'' is empty; expected %s",
				     expect);
	return ofan_cfg_fail(cfg, sec, key, "'%s' is not %s; expected %s", v,
			     what, expect);
}

static int
cfg_out_of_range(struct ofan_cfg *cfg, const char *sec, const char *key,
		 const char *v, const char *expect)
{
	return ofan_cfg_fail(cfg, sec, key, "'%s' is out of range; expected %s",
			     v, expect);
}

int
ofan_cfg_get_u64(struct ofan_cfg *cfg, const char *sec, const char *key,
		 unsigned int flags, uint64_t min, uint64_t max,
		 uint64_t *out)
{
	char def[CFG_NUM_SIZE] = "";
	char expect[CFG_EXPECT_SIZE];
	const char *v;
	uint64_t n;
	int rc;

	snprintf(expect, sizeof(expect),
		 "an integer in [%" PRIu64 ", %" PRIu64 "]", min, max);
	if (ofan_cfg_ref_recording() && *out != UINT64_MAX)
		snprintf(def, sizeof(def), "%" PRIu64, *out);
	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	rc = cfg_parse_u64(v, &n);
	if (rc == -EINVAL)
		return cfg_bad(cfg, sec, key, v, "an integer", expect);
	if (rc < 0 || n < min || n > max)
		return cfg_out_of_range(cfg, sec, key, v, expect);
	*out = n;
	return 0;
}

int
ofan_cfg_get_u32(struct ofan_cfg *cfg, const char *sec, const char *key,
		 unsigned int flags, uint32_t min, uint32_t max,
		 uint32_t *out)
{
	/* The default, for the reference (UINT32_MAX: none, set later). */
	uint64_t n = *out == UINT32_MAX ? UINT64_MAX : *out;
	int rc;

	rc = ofan_cfg_get_u64(cfg, sec, key, flags, min, max, &n);
	if (rc == 0 && ofan_cfg_has_key(cfg, sec, key))
		*out = (uint32_t)n;
	return rc;
}

int
ofan_cfg_get_double(struct ofan_cfg *cfg, const char *sec,
		    const char *key, unsigned int flags, double min,
		    double max, double *out)
{
	char def[CFG_NUM_SIZE] = "";
	char expect[CFG_EXPECT_SIZE];
	const char *v;
	double d;
	int rc;

	snprintf(expect, sizeof(expect), "a number in [%g, %g]", min, max);
	if (ofan_cfg_ref_recording())
		snprintf(def, sizeof(def), "%g", *out);
	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	if (ofan_parse_double(v, &d) < 0)
		return cfg_bad(cfg, sec, key, v, "a finite number", expect);
	if (d < min || d > max)
		return cfg_out_of_range(cfg, sec, key, v, expect);
	*out = d;
	return 0;
}

int
ofan_cfg_get_bool(struct ofan_cfg *cfg, const char *sec, const char *key,
		  unsigned int flags, bool *out)
{
	const char *def = *out ? "yes" : "no";
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	const char *expect = "yes/no, true/false, on/off or 1/0";
	const char *v;
	int rc, i;

	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	for (i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0 || strcasecmp(v, no[i]) == 0) {
			*out = strcasecmp(v, yes[i]) == 0;
			return 0;
		}
	}
	return cfg_bad(cfg, sec, key, v, "a boolean", expect);
}

int
ofan_cfg_get_enum(struct ofan_cfg *cfg, const char *sec, const char *key,
		  unsigned int flags, const char *const *names, int *out)
{
	const char *def = NULL;
	char expect[CFG_EXPECT_SIZE] = "one of ";
	size_t used = strlen(expect);
	const char *v;
	int rc, i, n;

	for (i = 0; names[i] != NULL && used < sizeof(expect); i++) {
		n = snprintf(expect + used, sizeof(expect) - used, "%s%s",
			     i == 0 ? "" : ", ", names[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (ofan_cfg_ref_recording() && *out >= 0) {
		for (i = 0; names[i] != NULL && i < *out; i++)
			;
		def = names[i];
	}
	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	for (i = 0; names[i] != NULL; i++) {
		if (strcasecmp(v, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	if (*v == '\0')
		return cfg_bad(cfg, sec, key, v, "", expect);
	return ofan_cfg_fail(cfg, sec, key, "'%s' is unknown; expected %s", v,
			     expect);
}

int
ofan_cfg_get_rate(struct ofan_cfg *cfg, const char *sec, const char *key,
		  unsigned int flags, uint64_t min, uint64_t max,
		  uint64_t *out_bps)
{
	char def[CFG_NUM_SIZE] = "";
	char expect[CFG_EXPECT_SIZE], lo[CFG_NUM_SIZE], hi[CFG_NUM_SIZE];
	const char *v;
	uint64_t bps;
	int rc;

	cfg_format_rate(lo, sizeof(lo), min);
	cfg_format_rate(hi, sizeof(hi), max);
	snprintf(expect, sizeof(expect), "a rate in [%s, %s] bits/s", lo, hi);
	if (ofan_cfg_ref_recording())
		cfg_format_rate(def, sizeof(def), *out_bps);
	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	rc = cfg_parse_scaled(v, cfg_rate_unit, false, &bps);
	if (rc == -EINVAL && strchr(v, 'B') != NULL && isdigit((unsigned char)*v))
		return ofan_cfg_fail(cfg, sec, key,
				     "'%s' is in bytes (B); expected a rate in "
				     "bits/s: 100G, 100Gb, 100Gbps or 100Gbit/s",
				     v);
	if (rc == -EINVAL)
		return cfg_bad(cfg, sec, key, v, "a rate",
			       "a number with an optional K/M/G/T suffix "
			       "(bits/s: none, b, bit, bps, b/s or bit/s), "
			       "e.g. 100G or 100Gbps");
	if (rc < 0 || bps < min || bps > max)
		return cfg_out_of_range(cfg, sec, key, v, expect);
	*out_bps = bps;
	return 0;
}

int
ofan_cfg_get_time(struct ofan_cfg *cfg, const char *sec, const char *key,
		  unsigned int flags, uint64_t min_ns, uint64_t max_ns,
		  uint64_t *out_ns)
{
	char def[CFG_NUM_SIZE] = "";
	char expect[CFG_EXPECT_SIZE], lo[CFG_NUM_SIZE], hi[CFG_NUM_SIZE];
	const char *v;
	uint64_t ns;
	int rc;

	cfg_format_time(lo, sizeof(lo), min_ns);
	cfg_format_time(hi, sizeof(hi), max_ns);
	if (max_ns == UINT64_MAX)
		snprintf(expect, sizeof(expect), "a duration of %s or more", lo);
	else
		snprintf(expect, sizeof(expect), "a duration in [%s, %s]", lo,
			 hi);
	if (ofan_cfg_ref_recording() && *out_ns != UINT64_MAX)
		cfg_format_time(def, sizeof(def), *out_ns);
	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	rc = cfg_parse_time(v, &ns);
	if (rc == -EINVAL)
		return cfg_bad(cfg, sec, key, v, "a duration",
			       "a number with a unit ns, us, ms or s, "
			       "e.g. 2.5us");
	if (rc < 0 || ns < min_ns || ns > max_ns)
		return cfg_out_of_range(cfg, sec, key, v, expect);
	*out_ns = ns;
	return 0;
}

int
ofan_cfg_get_size(struct ofan_cfg *cfg, const char *sec, const char *key,
		  unsigned int flags, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	char def[CFG_NUM_SIZE] = "";
	char expect[CFG_EXPECT_SIZE], lo[CFG_NUM_SIZE], hi[CFG_NUM_SIZE];
	const char *v;
	uint64_t n;
	int rc;

	cfg_format_size(lo, sizeof(lo), min);
	cfg_format_size(hi, sizeof(hi), max);
	snprintf(expect, sizeof(expect), "a size in [%s, %s] bytes", lo, hi);
	if (ofan_cfg_ref_recording())
		cfg_format_size(def, sizeof(def), *out);
	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	rc = cfg_parse_scaled(v, cfg_size_unit, true, &n);
	if (rc == -EINVAL)
		return cfg_bad(cfg, sec, key, v, "a size",
			       "bytes with an optional suffix B, K/KB, M/MB, "
			       "G/GB, T/TB (powers of 1000) or KiB, MiB, GiB, "
			       "TiB (powers of 1024), e.g. 4KiB");
	if (rc == -EDOM)
		return cfg_bad(cfg, sec, key, v, "a whole number of bytes",
			       expect);
	if (rc < 0 || n < min || n > max)
		return cfg_out_of_range(cfg, sec, key, v, expect);
	*out = n;
	return 0;
}

int
ofan_cfg_get_ipv4(struct ofan_cfg *cfg, const char *sec, const char *key,
		  unsigned int flags, uint32_t *out)
{
	char def[20] = "";
	const char *expect = "a dotted quad a.b.c.d with each part in "
			     "[0, 255] and no leading zeros";
	const char *v;
	uint32_t addr;
	int rc;

	if (ofan_cfg_ref_recording())
		snprintf(def, sizeof(def), "%u.%u.%u.%u", *out >> 24,
			 *out >> 16 & 0xff, *out >> 8 & 0xff, *out & 0xff);
	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	if (ofan_parse_ipv4(v, &addr) < 0)
		return cfg_bad(cfg, sec, key, v, "an IPv4 address", expect);
	*out = addr;
	return 0;
}

int
ofan_cfg_get_prefix(struct ofan_cfg *cfg, const char *sec,
		    const char *key, unsigned int flags, uint32_t *addr,
		    uint8_t *len)
{
	const char *def = NULL;
	const char *expect = "a.b.c.d/len with len in [0, 32], "
			     "e.g. 10.1.0.0/16";
	char ip[16];
	const char *v, *slash, *l;
	uint32_t a, mask;
	uint64_t n;
	int rc;

	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	slash = strchr(v, '/');
	if (slash == NULL || (size_t)(slash - v) >= sizeof(ip))
		return cfg_bad(cfg, sec, key, v, "an IPv4 prefix", expect);
	memcpy(ip, v, (size_t)(slash - v));
	ip[slash - v] = '\0';
	l = slash + 1;
	if (ofan_parse_ipv4(ip, &a) < 0 || strlen(l) > 2 ||
	    (l[0] == '0' && l[1] != '\0') || cfg_parse_u64(l, &n) < 0 ||
	    n > 32)
		return cfg_bad(cfg, sec, key, v, "an IPv4 prefix", expect);
	mask = n == 0 ? 0 : UINT32_MAX << (32 - n);
	if ((a & ~mask) != 0)
		return ofan_cfg_fail(cfg, sec, key,
				     "'%s' has host bits set; expected the "
				     "network address %u.%u.%u.%u/%u", v,
				     (a & mask) >> 24, (a & mask) >> 16 & 0xff,
				     (a & mask) >> 8 & 0xff, a & mask & 0xff,
				     (unsigned int)n);
	*addr = a;
	*len = (uint8_t)n;
	return 0;
}

int
ofan_cfg_get_mac(struct ofan_cfg *cfg, const char *sec, const char *key,
		 unsigned int flags, uint8_t mac[6])
{
	const char *def = NULL;
	const char *expect = "six hex bytes separated by ':', "
			     "e.g. 02:00:00:00:00:01";
	const char *v;
	int rc;

	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	if (ofan_parse_mac(v, mac) < 0)
		return cfg_bad(cfg, sec, key, v, "a MAC address", expect);
	return 0;
}

int
ofan_cfg_get_u32_list(struct ofan_cfg *cfg, const char *sec,
		      const char *key, unsigned int flags, uint32_t min,
		      uint32_t max, uint32_t *out, uint32_t max_count,
		      uint32_t *count)
{
	const char *def = NULL;
	char expect[CFG_EXPECT_SIZE];
	char *copy, *elem, *next, *end;
	uint32_t nb = 0;
	const char *v;
	uint64_t n;
	int rc;

	snprintf(expect, sizeof(expect), "a comma-separated list of at most "
		 "%u integers in [%u, %u]", max_count, min, max);
	rc = cfg_value(cfg, sec, key, flags, expect, def, &v);
	if (rc < 0 || v == NULL)
		return rc;
	if (*v == '\0')
		return cfg_bad(cfg, sec, key, v, "", expect);
	copy = strdup(v);
	if (copy == NULL)
		return ofan_cfg_fail(cfg, sec, key, "out of memory");
	for (elem = copy; elem != NULL; elem = next) {
		next = strchr(elem, ',');
		if (next != NULL)
			*next++ = '\0';
		while (*elem == ' ' || *elem == '\t')
			elem++;
		end = elem + strlen(elem);
		while (end > elem && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*elem == '\0') {
			rc = ofan_cfg_fail(cfg, sec, key, "'%s' has an empty "
					   "element; expected %s", v, expect);
			break;
		}
		rc = cfg_parse_u64(elem, &n);
		if (rc == -EINVAL) {
			rc = ofan_cfg_fail(cfg, sec, key, "'%s' has '%s', which "
					   "is not an integer; expected %s", v,
					   elem, expect);
			break;
		}
		if (rc < 0 || n < min || n > max) {
			rc = ofan_cfg_fail(cfg, sec, key, "'%s' has %s, which "
					   "is out of range; expected %s", v,
					   elem, expect);
			break;
		}
		if (nb < max_count)
			out[nb] = (uint32_t)n;
		nb++;
	}
	free(copy);
	if (rc == 0 && nb > max_count)
		rc = ofan_cfg_fail(cfg, sec, key, "'%s' has %u values; "
				   "expected %s", v, nb, expect);
	if (rc == 0)
		*count = nb;
	return rc;
}
