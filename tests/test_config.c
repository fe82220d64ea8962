/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the strict configuration loader (ofan_config.h) and the JSON
 * writer (ofan_json.h).
 *
 * INI files are written from the test into a fresh temporary directory,
 * which becomes the working directory, so error messages name short
 * relative paths ("t.ini") and can be compared exactly.  Each file is
 * removed as soon as it is loaded: the loader keeps its own copy.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "ofan_config.h"
#include "ofan_json.h"
#include "unit_suite.h"

#define ERR_SIZE 1024
#define SENTINEL 12345

static struct ofan_cfg *
load_text(const char *name, const char *text)
{
	char err[ERR_SIZE] = "";
	struct ofan_cfg *cfg;
	FILE *f;

	f = fopen(name, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	cfg = ofan_cfg_load(name, err, sizeof(err));
	unlink(name);
	ck_assert_msg(cfg != NULL, "load failed: %s", err);
	ck_assert_str_eq(ofan_cfg_error(cfg), "");
	return cfg;
}

/* Load text that must be rejected; returns the message. */
static void
load_bad_text(const char *name, const char *text, char *err, size_t size)
{
	struct ofan_cfg *cfg;
	FILE *f;

	f = fopen(name, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	cfg = ofan_cfg_load(name, err, size);
	unlink(name);
	ck_assert_ptr_null(cfg);
}

/* Write the len bytes at text, NUL bytes included, to the file name. */
static void
write_bytes(const char *name, const char *text, size_t len)
{
	FILE *f = fopen(name, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static const char good_ini[] =
	"; A leaf switch.\n"
	"[switch]\n"
	"name = \"leaf 1\"\n"
	"policy = Spray\n"
	"ports = 4\n"
	"seed = 010\n"
	"ecn = yes\n"
	"debug = Off\n"
	"alpha = 0.25\n"
	"rate = 100G          ; inline comment\n"
	"shaped = 2.5G\n"
	"host_rate = 400Mbps\n"
	"uplink_rate = 10Gb/s\n"
	"plain_rate = 1000000\n"
	"delay = 1us\n"
	"timeout = 2.5ms\n"
	"idle = 0\n"
	"buffer = 4KiB\n"
	"mtu = 9000   # hash comment\n"
	"ip = 10.0.0.1\n"
	"prefix = 10.1.0.0/16\n"
	"default = 0.0.0.0/0\n"
	"host = 192.168.1.7/32\n"
	"mac = 02:00:00:00:00:0A\n"
	"uplinks = 4, 5,6 ,7\n"
	"quoted = \"a ; b\"\n"
	"empty =\n"
	"\n"
	"[Port.1]\n"
	"rate = 100G\n"
	"[port.2]\n"
	"rate = 40G\n";

static const char *const policies[] = { "ecmp", "spray", "ofan", NULL };

START_TEST(test_good_file)
{
	struct ofan_cfg *cfg = load_text("leaf.ini", good_ini);
	const char *s = NULL, *names[4];
	uint64_t v64 = 0;
	uint32_t v32 = 0, addr = 0, list[8] = { 0 }, count = 0;
	uint8_t len = 0, mac[6] = { 0 };
	const uint8_t want_mac[6] = { 2, 0, 0, 0, 0, 0x0a };
	double d = 0;
	bool b = false;
	int e = -1, i, n;

	ck_assert_str_eq(ofan_cfg_path(cfg), "leaf.ini");
	ck_assert(ofan_cfg_get_str(cfg, "switch", "name", OFAN_CFG_REQUIRED,
				   &s) == 0 && strcmp(s, "leaf 1") == 0);
	ck_assert_int_eq(ofan_cfg_get_enum(cfg, "switch", "policy",
					   OFAN_CFG_REQUIRED, policies, &e), 0);
	ck_assert_int_eq(e, 1);
	ck_assert_int_eq(ofan_cfg_get_u32(cfg, "switch", "ports", 0, 1, 4096,
					  &v32), 0);
	ck_assert_uint_eq(v32, 4);
	ck_assert_int_eq(ofan_cfg_get_u64(cfg, "switch", "seed", 0, 0,
					  UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 10);
	ck_assert_int_eq(ofan_cfg_get_bool(cfg, "switch", "ecn", 0, &b), 0);
	ck_assert(b);
	ck_assert_int_eq(ofan_cfg_get_bool(cfg, "switch", "debug", 0, &b), 0);
	ck_assert(!b);
	ck_assert_int_eq(ofan_cfg_get_double(cfg, "switch", "alpha", 0, 0, 1,
					     &d), 0);
	ck_assert_double_eq(d, 0.25);

	ck_assert_int_eq(ofan_cfg_get_rate(cfg, "switch", "rate", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 100000000000ULL);
	ck_assert_int_eq(ofan_cfg_get_rate(cfg, "switch", "shaped", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 2500000000ULL);
	ck_assert_int_eq(ofan_cfg_get_rate(cfg, "switch", "host_rate", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 400000000ULL);
	ck_assert_int_eq(ofan_cfg_get_rate(cfg, "switch", "uplink_rate", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 10000000000ULL);
	ck_assert_int_eq(ofan_cfg_get_rate(cfg, "switch", "plain_rate", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 1000000);

	ck_assert_int_eq(ofan_cfg_get_time(cfg, "switch", "delay", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 1000);
	ck_assert_int_eq(ofan_cfg_get_time(cfg, "switch", "timeout", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 2500000);
	v64 = SENTINEL;
	ck_assert_int_eq(ofan_cfg_get_time(cfg, "switch", "idle", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 0);
	ck_assert_int_eq(ofan_cfg_get_size(cfg, "switch", "buffer", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 4096);
	ck_assert_int_eq(ofan_cfg_get_size(cfg, "switch", "mtu", 0, 64, 9216,
					   &v64), 0);
	ck_assert_uint_eq(v64, 9000);

	ck_assert_int_eq(ofan_cfg_get_ipv4(cfg, "switch", "ip", 0, &addr), 0);
	ck_assert_uint_eq(addr, 0x0a000001);
	ck_assert_int_eq(ofan_cfg_get_prefix(cfg, "switch", "prefix", 0, &addr,
					     &len), 0);
	ck_assert_uint_eq(addr, 0x0a010000);
	ck_assert_uint_eq(len, 16);
	ck_assert_int_eq(ofan_cfg_get_prefix(cfg, "switch", "default", 0,
					     &addr, &len), 0);
	ck_assert_uint_eq(addr, 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_int_eq(ofan_cfg_get_prefix(cfg, "switch", "host", 0, &addr,
					     &len), 0);
	ck_assert_uint_eq(addr, 0xc0a80107);
	ck_assert_uint_eq(len, 32);
	ck_assert_int_eq(ofan_cfg_get_mac(cfg, "switch", "mac", 0, mac), 0);
	ck_assert_mem_eq(mac, want_mac, 6);
	ck_assert_int_eq(ofan_cfg_get_u32_list(cfg, "switch", "uplinks", 0, 0,
					       15, list, 8, &count), 0);
	ck_assert_uint_eq(count, 4);
	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(list[i], (uint32_t)(4 + i));
	ck_assert(ofan_cfg_get_str(cfg, "switch", "quoted", 0, &s) == 0 &&
		  strcmp(s, "a ; b") == 0);
	ck_assert(ofan_cfg_get_str(cfg, "switch", "empty", 0, &s) == 0 &&
		  strcmp(s, "") == 0);

	/* Section names come back lower-cased, in file order. */
	n = ofan_cfg_sections(cfg, "port.", names, 4);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(names[0], "port.1");
	ck_assert_str_eq(names[1], "port.2");
	ck_assert_int_eq(ofan_cfg_get_rate(cfg, "PORT.1", "Rate", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 100000000000ULL);
	ck_assert_int_eq(ofan_cfg_get_rate(cfg, names[1], "rate", 0, 0,
					   UINT64_MAX, &v64), 0);
	ck_assert_uint_eq(v64, 40000000000ULL);

	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), 0);
	ck_assert_str_eq(ofan_cfg_error(cfg), "");
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_absent_keeps_default)
{
	struct ofan_cfg *cfg = load_text("t.ini", "[t]\nk = 1\n");
	const char *s = "default";
	uint64_t v64 = SENTINEL;
	uint32_t v32 = 7, addr = SENTINEL, list[2] = { 1, 2 }, count = 3;
	uint8_t len = 9, mac[6] = { 7 };
	double d = 0.5;
	bool b = true;
	int e = 2;

	ck_assert_int_eq(ofan_cfg_get_u64(cfg, "t", "x", 0, 0, 10, &v64), 0);
	ck_assert_uint_eq(v64, SENTINEL);
	ck_assert_int_eq(ofan_cfg_get_u32(cfg, "nosuch", "x", 0, 0, 10, &v32),
			 0);
	ck_assert_uint_eq(v32, 7);
	ck_assert_int_eq(ofan_cfg_get_str(cfg, "t", "x", 0, &s), 0);
	ck_assert_str_eq(s, "default");
	ck_assert_int_eq(ofan_cfg_get_bool(cfg, "t", "x", 0, &b), 0);
	ck_assert(b);
	ck_assert_int_eq(ofan_cfg_get_enum(cfg, "t", "x", 0, policies, &e), 0);
	ck_assert_int_eq(e, 2);
	ck_assert_int_eq(ofan_cfg_get_rate(cfg, "t", "x", 0, 0, 10, &v64), 0);
	ck_assert_int_eq(ofan_cfg_get_time(cfg, "t", "x", 0, 0, 10, &v64), 0);
	ck_assert_int_eq(ofan_cfg_get_size(cfg, "t", "x", 0, 0, 10, &v64), 0);
	ck_assert_uint_eq(v64, SENTINEL);
	ck_assert_int_eq(ofan_cfg_get_double(cfg, "t", "x", 0, 0, 1, &d), 0);
	ck_assert_double_eq(d, 0.5);
	ck_assert_int_eq(ofan_cfg_get_ipv4(cfg, "t", "x", 0, &addr), 0);
	ck_assert_int_eq(ofan_cfg_get_prefix(cfg, "t", "x", 0, &addr, &len),
			 0);
	ck_assert_uint_eq(addr, SENTINEL);
	ck_assert_uint_eq(len, 9);
	ck_assert_int_eq(ofan_cfg_get_mac(cfg, "t", "x", 0, mac), 0);
	ck_assert_uint_eq(mac[0], 7);
	ck_assert_int_eq(ofan_cfg_get_u32_list(cfg, "t", "x", 0, 0, 10, list,
					       2, &count), 0);
	ck_assert_uint_eq(count, 3);
	ck_assert_uint_eq(list[0], 1);
	ck_assert_str_eq(ofan_cfg_error(cfg), "");
	ofan_cfg_free(cfg);
}
END_TEST

enum kind {
	K_STR, K_U32, K_U64, K_DOUBLE, K_BOOL, K_ENUM, K_RATE, K_TIME,
	K_SIZE, K_IPV4, K_PREFIX, K_MAC, K_LIST,
};

/*
 * Run the getter of this kind on t:k with the ranges used by the tables
 * below; numeric results (and the enum index, the bool, the prefix
 * address, the first list element) go to *val.
 */
static int
get_kind(struct ofan_cfg *cfg, enum kind kind, unsigned int flags,
	 uint64_t *val)
{
	uint32_t v32 = 0, list[4] = { 0 }, count = 0;
	uint8_t len = 0, mac[6] = { 0 };
	const char *s = NULL;
	uint64_t v64 = 0;
	double d = 0;
	bool b = false;
	int e = 0, rc = -1;

	switch (kind) {
	case K_STR:
		rc = ofan_cfg_get_str(cfg, "t", "k", flags, &s);
		v64 = s != NULL ? strlen(s) : SENTINEL;
		break;
	case K_U32:
		rc = ofan_cfg_get_u32(cfg, "t", "k", flags, 1, 4096, &v32);
		v64 = v32;
		break;
	case K_U64:
		rc = ofan_cfg_get_u64(cfg, "t", "k", flags, 0, UINT64_MAX,
				      &v64);
		break;
	case K_DOUBLE:
		rc = ofan_cfg_get_double(cfg, "t", "k", flags, 0, 1, &d);
		v64 = (uint64_t)(d * 1000);
		break;
	case K_BOOL:
		rc = ofan_cfg_get_bool(cfg, "t", "k", flags, &b);
		v64 = b;
		break;
	case K_ENUM:
		rc = ofan_cfg_get_enum(cfg, "t", "k", flags, policies, &e);
		v64 = (uint64_t)e;
		break;
	case K_RATE:
		rc = ofan_cfg_get_rate(cfg, "t", "k", flags, 1000,
				       400000000000ULL, &v64);
		break;
	case K_TIME:
		rc = ofan_cfg_get_time(cfg, "t", "k", flags, 0, 1000000000,
				       &v64);
		break;
	case K_SIZE:
		rc = ofan_cfg_get_size(cfg, "t", "k", flags, 64, 16384, &v64);
		break;
	case K_IPV4:
		rc = ofan_cfg_get_ipv4(cfg, "t", "k", flags, &v32);
		v64 = v32;
		break;
	case K_PREFIX:
		rc = ofan_cfg_get_prefix(cfg, "t", "k", flags, &v32, &len);
		v64 = (uint64_t)v32 << 8 | len;
		break;
	case K_MAC:
		rc = ofan_cfg_get_mac(cfg, "t", "k", flags, mac);
		v64 = mac[5];
		break;
	case K_LIST:
		rc = ofan_cfg_get_u32_list(cfg, "t", "k", flags, 0, 15, list,
					   4, &count);
		v64 = (uint64_t)count << 32 | list[count > 0 ? count - 1 : 0];
		break;
	}
	if (rc == 0 && ofan_cfg_has_key(cfg, "t", "k"))
		*val = v64;
	return rc;
}

struct good_case {
	enum kind kind;
	const char *value;
	uint64_t want;
};

static const struct good_case good_cases[] = {
	{ K_U32, "010", 10 },
	{ K_U32, "4096", 4096 },
	{ K_U64, "18446744073709551615", UINT64_MAX },
	{ K_U64, "0", 0 },
	{ K_DOUBLE, "1e-1", 100 },
	{ K_DOUBLE, "1", 1000 },
	{ K_BOOL, "TRUE", 1 },
	{ K_BOOL, "on", 1 },
	{ K_BOOL, "0", 0 },
	{ K_ENUM, "ofan", 2 },
	{ K_RATE, "100G", 100000000000ULL },
	{ K_RATE, "2.5G", 2500000000ULL },
	{ K_RATE, "400Mbps", 400000000 },
	{ K_RATE, "25gbps", 25000000000ULL },
	{ K_RATE, "1.5K", 1500 },
	{ K_RATE, "1000b/s", 1000 },
	{ K_RATE, "100Gb", 100000000000ULL },
	{ K_RATE, "100gb", 100000000000ULL },
	{ K_RATE, "100Gbit", 100000000000ULL },
	{ K_RATE, "10Gbit/s", 10000000000ULL },
	{ K_RATE, "10Gbits/s", 10000000000ULL },
	{ K_RATE, "10Gb/s", 10000000000ULL },
	{ K_RATE, "0.4T", 400000000000ULL },
	{ K_TIME, "1us", 1000 },
	{ K_TIME, "2.5ms", 2500000 },
	{ K_TIME, "100ns", 100 },
	{ K_TIME, "1s", 1000000000 },
	{ K_TIME, "0", 0 },
	{ K_TIME, "1.0005us", 1001 },
	{ K_TIME, "0.4ns", 0 },
	{ K_TIME, "0.000000001s", 1 },
	{ K_SIZE, "4KiB", 4096 },
	{ K_SIZE, "9000", 9000 },
	{ K_SIZE, "9000B", 9000 },
	{ K_SIZE, "4K", 4000 },
	{ K_SIZE, "4kb", 4000 },
	{ K_SIZE, "1.5KiB", 1536 },
	{ K_SIZE, "0.016MB", 16000 },
	{ K_IPV4, "255.255.255.255", 0xffffffff },
	{ K_IPV4, "0.0.0.0", 0 },
	{ K_PREFIX, "192.168.0.0/24", (uint64_t)0xc0a80000 << 8 | 24 },
	{ K_MAC, "aa:BB:cc:dd:ee:fF", 0xff },
	{ K_LIST, "15", (uint64_t)1 << 32 | 15 },
	{ K_LIST, " 1 ,2,\t3, 0 ", (uint64_t)4 << 32 | 0 },
	{ K_STR, "\"\"", 0 },
	{ K_STR, "\"  x  \"", 5 },
};

START_TEST(test_good_value)
{
	const struct good_case *c = &good_cases[_i];
	struct ofan_cfg *cfg;
	char text[256];
	uint64_t v = SENTINEL;

	snprintf(text, sizeof(text), "[t]\nk = %s\n", c->value);
	cfg = load_text("t.ini", text);
	ck_assert_msg(get_kind(cfg, c->kind, OFAN_CFG_REQUIRED, &v) == 0,
		      "'%s': %s", c->value, ofan_cfg_error(cfg));
	ck_assert_msg(v == c->want, "'%s' gave %llu", c->value,
		      (unsigned long long)v);
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), 0);
	ofan_cfg_free(cfg);
}
END_TEST

struct bad_case {
	enum kind kind;
	const char *value;
	const char *msg;
};

#define E_U32 "expected an integer in [1, 4096]"
#define E_U64 "expected an integer in [0, 18446744073709551615]"
#define E_DOUBLE "expected a number in [0, 1]"
#define E_RATE_SYNTAX "expected a number with an optional K/M/G/T suffix " \
	"(bits/s: none, b, bit, bps, b/s or bit/s), e.g. 100G or 100Gbps"
#define E_TIME_SYNTAX "expected a number with a unit ns, us, ms or s, " \
	"e.g. 2.5us"
#define E_SIZE_SYNTAX "expected bytes with an optional suffix B, K/KB, " \
	"M/MB, G/GB, T/TB (powers of 1000) or KiB, MiB, GiB, TiB " \
	"(powers of 1024), e.g. 4KiB"
#define E_IPV4 "expected a dotted quad a.b.c.d with each part in [0, 255] " \
	"and no leading zeros"
#define E_PREFIX "expected a.b.c.d/len with len in [0, 32], e.g. 10.1.0.0/16"
#define E_MAC "expected six hex bytes separated by ':', " \
	"e.g. 02:00:00:00:00:01"
#define E_LIST "expected a comma-separated list of at most 4 integers in " \
	"[0, 15]"

static const struct bad_case bad_cases[] = {
	{ K_U32, "12abc", "t.ini:t:k: '12abc' is not an integer; " E_U32 },
	{ K_U32, "0x10", "t.ini:t:k: '0x10' is not an integer; " E_U32 },
	{ K_U32, "-1", "t.ini:t:k: '-1' is not an integer; " E_U32 },
	{ K_U32, "+5", "t.ini:t:k: '+5' is not an integer; " E_U32 },
	{ K_U32, "1 2", "t.ini:t:k: '1 2' is not an integer; " E_U32 },
	{ K_U32, "", "t.ini:t:k: '' is empty; " E_U32 },
	{ K_U32, "4097", "t.ini:t:k: '4097' is out of range; " E_U32 },
	{ K_U32, "0", "t.ini:t:k: '0' is out of range; " E_U32 },
	{ K_U32, "99999999999999999999",
	  "t.ini:t:k: '99999999999999999999' is out of range; " E_U32 },
	{ K_U64, "18446744073709551616",
	  "t.ini:t:k: '18446744073709551616' is out of range; " E_U64 },
	{ K_U64, "1.5", "t.ini:t:k: '1.5' is not an integer; " E_U64 },
	{ K_DOUBLE, "nan", "t.ini:t:k: 'nan' is not a finite number; "
	  E_DOUBLE },
	{ K_DOUBLE, "-inf", "t.ini:t:k: '-inf' is not a finite number; "
	  E_DOUBLE },
	{ K_DOUBLE, "1e999", "t.ini:t:k: '1e999' is not a finite number; "
	  E_DOUBLE },
	{ K_DOUBLE, "0x1p-2", "t.ini:t:k: '0x1p-2' is not a finite number; "
	  E_DOUBLE },
	{ K_DOUBLE, "0.5x", "t.ini:t:k: '0.5x' is not a finite number; "
	  E_DOUBLE },
	{ K_DOUBLE, "1.5", "t.ini:t:k: '1.5' is out of range; " E_DOUBLE },
	{ K_BOOL, "maybe", "t.ini:t:k: 'maybe' is not a boolean; expected "
	  "yes/no, true/false, on/off or 1/0" },
	{ K_ENUM, "random", "t.ini:t:k: 'random' is unknown; expected one of "
	  "ecmp, spray, ofan" },
	{ K_ENUM, "", "t.ini:t:k: '' is empty; expected one of ecmp, spray, "
	  "ofan" },
	{ K_RATE, "12abc", "t.ini:t:k: '12abc' is not a rate; "
	  E_RATE_SYNTAX },
	{ K_RATE, "100Gbyte", "t.ini:t:k: '100Gbyte' is not a rate; "
	  E_RATE_SYNTAX },
	{ K_RATE, "100GB", "t.ini:t:k: '100GB' is in bytes (B); expected a "
	  "rate in bits/s: 100G, 100Gb, 100Gbps or 100Gbit/s" },
	{ K_RATE, "10GBps", "t.ini:t:k: '10GBps' is in bytes (B); expected a "
	  "rate in bits/s: 100G, 100Gb, 100Gbps or 100Gbit/s" },
	{ K_RATE, "G", "t.ini:t:k: 'G' is not a rate; " E_RATE_SYNTAX },
	{ K_RATE, "1.G", "t.ini:t:k: '1.G' is not a rate; " E_RATE_SYNTAX },
	{ K_RATE, "-1G", "t.ini:t:k: '-1G' is not a rate; " E_RATE_SYNTAX },
	{ K_RATE, "800G", "t.ini:t:k: '800G' is out of range; expected a "
	  "rate in [1K, 400G] bits/s" },
	{ K_RATE, "99999999999T", "t.ini:t:k: '99999999999T' is out of "
	  "range; expected a rate in [1K, 400G] bits/s" },
	{ K_TIME, "5", "t.ini:t:k: '5' is not a duration; " E_TIME_SYNTAX },
	{ K_TIME, "1m", "t.ini:t:k: '1m' is not a duration; " E_TIME_SYNTAX },
	{ K_TIME, "2s", "t.ini:t:k: '2s' is out of range; expected a "
	  "duration in [0, 1s]" },
	{ K_SIZE, "4XB", "t.ini:t:k: '4XB' is not a size; " E_SIZE_SYNTAX },
	{ K_SIZE, "4Ki", "t.ini:t:k: '4Ki' is not a size; " E_SIZE_SYNTAX },
	{ K_SIZE, "100.5B", "t.ini:t:k: '100.5B' is not a whole number of "
	  "bytes; expected a size in [64, 16KiB] bytes" },
	{ K_SIZE, "32", "t.ini:t:k: '32' is out of range; expected a size in "
	  "[64, 16KiB] bytes" },
	{ K_IPV4, "10.0.0", "t.ini:t:k: '10.0.0' is not an IPv4 address; "
	  E_IPV4 },
	{ K_IPV4, "10.0.0.256", "t.ini:t:k: '10.0.0.256' is not an IPv4 "
	  "address; " E_IPV4 },
	{ K_IPV4, "10.0.0.1x", "t.ini:t:k: '10.0.0.1x' is not an IPv4 "
	  "address; " E_IPV4 },
	{ K_IPV4, "10.01.0.1", "t.ini:t:k: '10.01.0.1' is not an IPv4 "
	  "address; " E_IPV4 },
	{ K_IPV4, "x10.0.0.1", "t.ini:t:k: 'x10.0.0.1' is not an IPv4 "
	  "address; " E_IPV4 },
	{ K_PREFIX, "10.1.2.0/16", "t.ini:t:k: '10.1.2.0/16' has host bits "
	  "set; expected the network address 10.1.0.0/16" },
	{ K_PREFIX, "10.1.0.0/33", "t.ini:t:k: '10.1.0.0/33' is not an IPv4 "
	  "prefix; " E_PREFIX },
	{ K_PREFIX, "10.1.0.0", "t.ini:t:k: '10.1.0.0' is not an IPv4 "
	  "prefix; " E_PREFIX },
	{ K_PREFIX, "10.1.0.0/", "t.ini:t:k: '10.1.0.0/' is not an IPv4 "
	  "prefix; " E_PREFIX },
	{ K_MAC, "02:00:00:00:00", "t.ini:t:k: '02:00:00:00:00' is not a MAC "
	  "address; " E_MAC },
	{ K_MAC, "02:00:00:00:00:0g", "t.ini:t:k: '02:00:00:00:00:0g' is not "
	  "a MAC address; " E_MAC },
	{ K_MAC, "02-00-00-00-00-01", "t.ini:t:k: '02-00-00-00-00-01' is not "
	  "a MAC address; " E_MAC },
	{ K_LIST, "4,,5", "t.ini:t:k: '4,,5' has an empty element; " E_LIST },
	{ K_LIST, "4,", "t.ini:t:k: '4,' has an empty element; " E_LIST },
	{ K_LIST, "", "t.ini:t:k: '' is empty; " E_LIST },
	{ K_LIST, "4, x", "t.ini:t:k: '4, x' has 'x', which is not an "
	  "integer; " E_LIST },
	{ K_LIST, "4, 16", "t.ini:t:k: '4, 16' has 16, which is out of "
	  "range; " E_LIST },
	{ K_LIST, "1,2,3,4,5", "t.ini:t:k: '1,2,3,4,5' has 5 values; "
	  E_LIST },
};

START_TEST(test_bad_value)
{
	const struct bad_case *c = &bad_cases[_i];
	struct ofan_cfg *cfg;
	char text[256];
	uint64_t v = SENTINEL;

	snprintf(text, sizeof(text), "[t]\nk = %s\n", c->value);
	cfg = load_text("t.ini", text);
	ck_assert_int_eq(get_kind(cfg, c->kind, OFAN_CFG_REQUIRED, &v),
			 -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), c->msg);
	ck_assert_uint_eq(v, SENTINEL);
	/* A bad value was still read: it is not also an unknown key. */
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), 0);
	ofan_cfg_free(cfg);
}
END_TEST

struct missing_case {
	enum kind kind;
	const char *msg;
};

static const struct missing_case missing_cases[] = {
	{ K_STR, "t.ini:t:k: missing; expected a string" },
	{ K_U32, "t.ini:t:k: missing; " E_U32 },
	{ K_ENUM, "t.ini:t:k: missing; expected one of ecmp, spray, ofan" },
	{ K_BOOL, "t.ini:t:k: missing; expected yes/no, true/false, on/off "
	  "or 1/0" },
	{ K_RATE, "t.ini:t:k: missing; expected a rate in [1K, 400G] "
	  "bits/s" },
	{ K_TIME, "t.ini:t:k: missing; expected a duration in [0, 1s]" },
	{ K_SIZE, "t.ini:t:k: missing; expected a size in [64, 16KiB] "
	  "bytes" },
	{ K_PREFIX, "t.ini:t:k: missing; " E_PREFIX },
	{ K_LIST, "t.ini:t:k: missing; " E_LIST },
};

START_TEST(test_missing_required)
{
	const struct missing_case *c = &missing_cases[_i];
	struct ofan_cfg *cfg = load_text("t.ini", "[t]\nother = 1\n");
	uint64_t v = SENTINEL;

	ck_assert_int_eq(get_kind(cfg, c->kind, OFAN_CFG_REQUIRED, &v),
			 -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), c->msg);
	ck_assert_uint_eq(v, SENTINEL);
	ck_assert_int_eq(get_kind(cfg, c->kind, 0, &v), 0);
	ck_assert_uint_eq(v, SENTINEL);
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_unknown_key)
{
	struct ofan_cfg *cfg = load_text("leaf.ini", "[switch]\n"
					 "policy = ecmp\nports = 4\n"
					 "polcy = spray\n");
	uint32_t v = 0;
	int e = 0;

	ck_assert_int_eq(ofan_cfg_get_enum(cfg, "switch", "policy", 0,
					   policies, &e), 0);
	ck_assert_int_eq(ofan_cfg_get_u32(cfg, "switch", "ports", 0, 1, 64,
					  &v), 0);
	ck_assert_int_eq(ofan_cfg_get_u32(cfg, "switch", "mtu", 0, 1, 64, &v),
			 0);
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "leaf.ini:switch:polcy: unknown "
			 "key; allowed keys in [switch]: policy, ports, mtu");
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_unknown_section)
{
	struct ofan_cfg *cfg = load_text("leaf.ini", "[switch]\nports = 4\n"
					 "[swtich]\nports = 4\n");
	uint32_t v = 0;

	ck_assert_int_eq(ofan_cfg_get_u32(cfg, "switch", "ports", 0, 1, 64,
					  &v), 0);
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg),
			 "leaf.ini:swtich: unknown section; did you mean [switch]?");
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_key_outside_section)
{
	struct ofan_cfg *cfg = load_text("t.ini", "stray = 1\n[t]\nk = 1\n");
	uint32_t v = 0;

	ck_assert_int_eq(ofan_cfg_get_u32(cfg, "t", "k", 0, 1, 64, &v), 0);
	ck_assert_int_eq(ofan_cfg_sections(cfg, "", NULL, 0), 1);
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "t.ini: key 'stray' is outside "
			 "any section; expected it under a [section]");
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_mark_section)
{
	struct ofan_cfg *cfg = load_text("t.ini", "[switch]\npolicy = ecmp\n"
					 "[spray]\nbatch = 4\n[empty]\n");
	int e = 0;

	ck_assert_int_eq(ofan_cfg_get_enum(cfg, "switch", "policy", 0,
					   policies, &e), 0);
	ofan_cfg_mark_section(cfg, "spray");
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "t.ini:empty: unknown section; expected one of [switch], [spray]");
	ofan_cfg_mark_section(cfg, "EMPTY");
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), 0);
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_syntax_error)
{
	char err[ERR_SIZE] = "";

	load_bad_text("bad.ini", "[a]\nx = 1\ngarbage\n", err, sizeof(err));
	ck_assert_str_eq(err, "bad.ini:3: 'garbage' is not valid INI; "
			 "expected [section], key = value or a comment");
	load_bad_text("bad2.ini", "[a]\n= 5\n", err, sizeof(err));
	ck_assert_str_eq(err, "bad2.ini:2: '= 5' is not valid INI; "
			 "expected [section], key = value or a comment");
}
END_TEST

START_TEST(test_missing_file)
{
	char err[ERR_SIZE] = "";

	ck_assert_ptr_null(ofan_cfg_load("nope.ini", err, sizeof(err)));
	ck_assert_str_eq(err, "nope.ini: cannot read: No such file or "
			 "directory");
	ck_assert_int_eq(mkdir("dir.ini", 0700), 0);
	ck_assert_ptr_null(ofan_cfg_load("dir.ini", err, sizeof(err)));
	rmdir("dir.ini");
	ck_assert_str_eq(err, "dir.ini: cannot read: Is a directory");
}
END_TEST

START_TEST(test_set_override)
{
	struct ofan_cfg *cfg = load_text("t.ini", "[switch]\nports = 4\n");
	const char *s = NULL;
	uint32_t v = 0;

	ck_assert_int_eq(ofan_cfg_set(cfg, "switch", "ports", "8"), 0);
	ck_assert_int_eq(ofan_cfg_set(cfg, "Extra", "Name", "x"), 0);
	ck_assert(ofan_cfg_has_section(cfg, "extra"));
	ck_assert(ofan_cfg_has_key(cfg, "EXTRA", "name"));
	ck_assert(!ofan_cfg_has_key(cfg, "extra", "other"));
	ck_assert(!ofan_cfg_has_section(cfg, "other"));
	ck_assert_int_eq(ofan_cfg_get_u32(cfg, "switch", "ports", 0, 1, 64,
					  &v), 0);
	ck_assert_uint_eq(v, 8);
	/* A command-line override is checked like a key of the file. */
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg),
			 "t.ini:extra: unknown section; expected one of [switch]");
	ck_assert_int_eq(ofan_cfg_get_str(cfg, "extra", "name", 0, &s), 0);
	ck_assert_str_eq(s, "x");
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), 0);
	ck_assert_int_eq(ofan_cfg_set(cfg, "switch", "bad", "12abc"), 0);
	ck_assert_int_eq(ofan_cfg_get_u32(cfg, "switch", "bad", 0, 1, 64, &v),
			 -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "t.ini:switch:bad: '12abc' is "
			 "not an integer; expected an integer in [1, 64]");
	ck_assert_int_eq(ofan_cfg_set(cfg, "switch", "", "1"), -EINVAL);
	ofan_cfg_free(cfg);

	/* A section only an override names is the override's: its errors
	 * say where it came from, not the file. */
	cfg = load_text("t.ini", "[switch]\nports = 4\n");
	ck_assert_int_eq(ofan_cfg_set_from(cfg, "swich", "ports", "8",
					   "command line: swich.ports=8"), 0);
	ck_assert_int_eq(ofan_cfg_get_u32(cfg, "switch", "ports", 0, 1, 64,
					  &v), 0);
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "command line: swich.ports=8: "
			 "[swich]: unknown section; did you mean [switch]?");
	ck_assert_int_eq(ofan_cfg_get_u32(cfg, "swich", "other", OFAN_CFG_REQUIRED,
					  1, 64, &v), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "command line: swich.ports=8: "
			 "[swich] other: missing; expected an integer in [1, 64]");
	ofan_cfg_free(cfg);
}
END_TEST

/* The resolved config: what the getters read, loadable again. */
START_TEST(test_write_round_trip)
{
	struct ofan_cfg *cfg = load_text("t.ini",
		"top = 1\n[switch]\nports = 4\nname = \"a ; b\"\n"
		"[port.0]\ndev = net_null0\n");
	struct ofan_cfg *back;
	char *text = NULL, err[256];
	const char *s = NULL;
	size_t len = 0;
	uint32_t v = 0;
	FILE *f;

	ck_assert_int_eq(ofan_cfg_set_from(cfg, "switch", "ports", "8",
					   "command line: switch.ports=8"), 0);
	ck_assert_int_eq(ofan_cfg_set_from(cfg, "extra", "k", " x ",
					   "command line: extra.k= x "), 0);
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ofan_cfg_write(cfg, f), 0);
	fclose(f);
	ck_assert_str_eq(text,
		"top = 1\n\n[switch]\nports = 8\t; command line: switch.ports=8\n"
		"name = \"a ; b\"\n\n[port.0]\ndev = net_null0\n\n"
		"; made by command line: extra.k= x \n[extra]\n"
		"k = \" x \"\t; command line: extra.k= x \n");
	back = ofan_cfg_load_mem("back.ini", text, len, err, sizeof(err));
	ck_assert_msg(back != NULL, "%s", err);
	ck_assert_int_eq(ofan_cfg_get_u32(back, "switch", "ports", 0, 1, 64,
					  &v), 0);
	ck_assert_uint_eq(v, 8);
	ck_assert_int_eq(ofan_cfg_get_str(back, "switch", "name", 0, &s), 0);
	ck_assert_str_eq(s, "a ; b");
	ck_assert_int_eq(ofan_cfg_get_str(back, "extra", "k", 0, &s), 0);
	ck_assert_str_eq(s, " x ");
	ck_assert_int_eq(ofan_cfg_get_str(back, "port.0", "dev", 0, &s), 0);
	ck_assert_str_eq(s, "net_null0");
	ofan_cfg_free(back);
	ofan_cfg_free(cfg);
	free(text);
}
END_TEST

START_TEST(test_sections_prefix)
{
	struct ofan_cfg *cfg = load_text("t.ini", "[port.2]\n[portal]\n"
					 "[port.10]\n[host.1]\n[port.1]\n");
	const char *names[8] = { NULL };

	ck_assert_int_eq(ofan_cfg_sections(cfg, "PORT.", names, 8), 3);
	ck_assert_str_eq(names[0], "port.2");
	ck_assert_str_eq(names[1], "port.10");
	ck_assert_str_eq(names[2], "port.1");
	ck_assert_ptr_null(names[3]);
	names[1] = NULL;
	ck_assert_int_eq(ofan_cfg_sections(cfg, "port.", names, 1), 3);
	ck_assert_ptr_null(names[1]);
	ck_assert_int_eq(ofan_cfg_sections(cfg, "", names, 8), 5);
	ck_assert_str_eq(names[1], "portal");
	ck_assert_str_eq(names[3], "host.1");
	ck_assert_int_eq(ofan_cfg_sections(cfg, "nic.", names, 8), 0);
	ofan_cfg_free(cfg);
	/* "[sweep.]" names nothing: not listed, reported as unknown. */
	cfg = load_text("t.ini", "[sweep.]\nkeys = a.b\n[sweep.x]\n");
	ck_assert_int_eq(ofan_cfg_sections(cfg, "sweep.", names, 8), 1);
	ck_assert_str_eq(names[0], "sweep.x");
	ofan_cfg_mark_section(cfg, "sweep.x");
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "t.ini:sweep.: unknown section; did you mean [sweep.x]?");
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_fail)
{
	struct ofan_cfg *cfg = load_text("t.ini", "[t]\n");

	ck_assert_int_eq(ofan_cfg_fail(cfg, "t", "k", "%d is odd", 3),
			 -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "t.ini:t:k: 3 is odd");
	ofan_cfg_free(cfg);
}
END_TEST

/*
 * Cross-key rules: the key an override set, over a key the file has,
 * over a key left out; among keys alike, the first listed.  The
 * complaint of ofan_cfg_fail_keys() is the first key's unless another
 * is blamed, then it begins with that key and its value.
 */
START_TEST(test_blame)
{
	struct ofan_cfg *cfg = load_text("t.ini", "[t]\na = 1\nb = 2\n");
	const struct ofan_cfg_key ab[] = { { "t", "a" }, { "t", "b" } };
	const struct ofan_cfg_key xa[] = { { "t", "x" }, { "t", "a" } };
	const struct ofan_cfg_key xy[] = { { "t", "x" }, { "u", "y" } };
	const struct ofan_cfg_key bca[] = {
		{ "t", "b" }, { "t", "c" }, { "t", "a" },
	};
	const struct ofan_cfg_key bdc[] = {
		{ "t", "b" }, { "new", "d" }, { "t", "c" },
	};

	/* The file's keys: the first listed; a written key over one left
	 * out. */
	ck_assert_int_eq(ofan_cfg_blame(cfg, ab, 2), 0);
	ck_assert_int_eq(ofan_cfg_blame2(cfg, "t", "b", "a"), 0);
	ck_assert_int_eq(ofan_cfg_blame(cfg, xa, 2), 1);
	ck_assert_int_eq(ofan_cfg_blame(cfg, xy, 2), 0);
	ck_assert(!ofan_cfg_overridden(cfg, "t", "a"));
	ck_assert(!ofan_cfg_overridden(cfg, "t", "x"));
	ck_assert(!ofan_cfg_overridden(cfg, "u", "y"));
	ck_assert_str_eq(ofan_cfg_value(cfg, "t", "b"), "2");
	ck_assert_ptr_null(ofan_cfg_value(cfg, "t", "x"));
	ck_assert_ptr_null(ofan_cfg_value(cfg, "u", "y"));

	/* An override, of a new key and of the file's a: over the file. */
	ck_assert_int_eq(ofan_cfg_set_from(cfg, "t", "c", "3",
					   "command line: t.c=3"), 0);
	ck_assert(ofan_cfg_overridden(cfg, "t", "c"));
	ck_assert_int_eq(ofan_cfg_blame(cfg, bca, 3), 1);
	ck_assert_int_eq(ofan_cfg_blame2(cfg, "t", "b", "c"), 1);
	ck_assert_int_eq(ofan_cfg_blame2(cfg, "t", "c", "b"), 0);
	ck_assert_int_eq(ofan_cfg_set_from(cfg, "t", "a", "5",
					   "command line: t.a=5"), 0);
	ck_assert(ofan_cfg_overridden(cfg, "t", "a"));
	ck_assert_str_eq(ofan_cfg_value(cfg, "t", "a"), "5");
	/* Two overrides: the first listed of them. */
	ck_assert_int_eq(ofan_cfg_blame(cfg, bca, 3), 1);
	/* A section only an override made: its keys are the override's. */
	ck_assert_int_eq(ofan_cfg_set_from(cfg, "new", "d", "4",
					   "command line: new.d=4"), 0);
	ck_assert(ofan_cfg_overridden(cfg, "new", "d"));
	ck_assert_int_eq(ofan_cfg_blame(cfg, bdc, 3), 1);

	/* The complaint: the first key's, or phrased from the blamed one. */
	ck_assert_int_eq(ofan_cfg_fail_keys(cfg, bca, 1, "'%d' is odd; "
					    "expected an even b", 2), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg),
			 "t.ini:t:b: '2' is odd; expected an even b");
	ck_assert_int_eq(ofan_cfg_fail_keys(cfg, bca, 3, "'%d' is odd; "
					    "expected an even b", 2), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg),
			 "command line: t.c=3: '3' conflicts with [t] b: "
			 "'2' is odd; expected an even b");
	ck_assert_int_eq(ofan_cfg_fail_keys(cfg, xa, 2, "missing"), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg),
			 "command line: t.a=5: '5' conflicts with [t] x: "
			 "missing");
	ofan_cfg_free(cfg);
}
END_TEST

/*
 * Load text from a file called name and from memory under the same name:
 * both must be accepted or rejected alike, with the same message (in
 * err), and no message may show the /proc path the text is read through.
 */
static void
load_both(const char *name, const char *text, size_t len,
	  struct ofan_cfg **file, struct ofan_cfg **mem, char *err,
	  size_t size)
{
	char err_mem[ERR_SIZE] = "";

	write_bytes(name, text, len);
	*file = ofan_cfg_load(name, err, size);
	unlink(name);
	*mem = ofan_cfg_load_mem(name, text, len, err_mem, sizeof(err_mem));
	ck_assert_str_eq(err_mem, err);
	ck_assert_int_eq(*file == NULL, *mem == NULL);
	ck_assert_ptr_null(strstr(err_mem, "/proc"));
}

/* a and b have the same sections, keys and values, in the same order. */
static void
assert_same_cfg(struct ofan_cfg *a, struct ofan_cfg *b)
{
	const char *sa[64], *sb[64], *ka[64], *kb[64], *va, *vb, *sec;
	int nb_sec = ofan_cfg_sections(a, "", sa, 64), i, j, nb_keys;

	ck_assert_int_le(nb_sec, 64);
	ck_assert_int_eq(ofan_cfg_sections(b, "", sb, 64), nb_sec);
	ck_assert_str_eq(ofan_cfg_path(a), ofan_cfg_path(b));
	/* -1: the keys before any section. */
	for (i = -1; i < nb_sec; i++) {
		sec = i < 0 ? "" : sa[i];
		if (i >= 0)
			ck_assert_str_eq(sa[i], sb[i]);
		nb_keys = ofan_cfg_keys(a, sec, ka, 64);
		ck_assert_int_le(nb_keys, 64);
		ck_assert_int_eq(ofan_cfg_keys(b, sec, kb, 64), nb_keys);
		for (j = 0; j < nb_keys; j++) {
			ck_assert_str_eq(ka[j], kb[j]);
			va = vb = NULL;
			ck_assert_int_eq(ofan_cfg_get_str(a, sec, ka[j], 0,
							  &va), 0);
			ck_assert_int_eq(ofan_cfg_get_str(b, sec, kb[j], 0,
							  &vb), 0);
			ck_assert_str_eq(va, vb);
		}
	}
}

START_TEST(test_mem_equals_file)
{
	char err[ERR_SIZE] = "";
	struct ofan_cfg *file, *mem;
	uint32_t v = 0;
	int e = -1;

	load_both("same.ini", good_ini, strlen(good_ini), &file, &mem, err,
		  sizeof(err));
	ck_assert_ptr_nonnull(file);
	ck_assert_int_eq(ofan_cfg_sections(mem, "", NULL, 0), 3);
	assert_same_cfg(file, mem);
	ck_assert_int_eq(ofan_cfg_check_unknown(mem), 0);
	ofan_cfg_free(file);
	ofan_cfg_free(mem);

	/* The same getters leave the same key unknown, the same bad value. */
	load_both("same.ini", good_ini, strlen(good_ini), &file, &mem, err,
		  sizeof(err));
	ck_assert_int_eq(ofan_cfg_get_enum(file, "switch", "policy", 0,
					   policies, &e), 0);
	ck_assert_int_eq(ofan_cfg_get_enum(mem, "switch", "policy", 0,
					   policies, &e), 0);
	ck_assert_int_eq(ofan_cfg_check_unknown(file), -EINVAL);
	ck_assert_int_eq(ofan_cfg_check_unknown(mem), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(mem), "same.ini:switch:name: unknown "
			 "key; allowed keys in [switch]: policy");
	ck_assert_str_eq(ofan_cfg_error(mem), ofan_cfg_error(file));
	ck_assert_int_eq(ofan_cfg_get_u32(file, "switch", "policy", 0, 1, 64,
					  &v), -EINVAL);
	ck_assert_int_eq(ofan_cfg_get_u32(mem, "switch", "policy", 0, 1, 64,
					  &v), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(mem), "same.ini:switch:policy: "
			 "'Spray' is not an integer; expected an integer in "
			 "[1, 64]");
	ck_assert_str_eq(ofan_cfg_error(mem), ofan_cfg_error(file));
	ofan_cfg_free(file);
	ofan_cfg_free(mem);
}
END_TEST

START_TEST(test_mem_syntax_error)
{
	static const char bad[] = "[a]\nx = 1\ngarbage\n";
	char err[ERR_SIZE] = "", line[1100];
	struct ofan_cfg *file, *mem;

	ck_assert_ptr_null(ofan_cfg_load_mem("exp/m.ini", bad, strlen(bad),
					     err, sizeof(err)));
	ck_assert_str_eq(err, "exp/m.ini:3: 'garbage' is not valid INI; "
			 "expected [section], key = value or a comment");
	load_both("bad.ini", bad, strlen(bad), &file, &mem, err, sizeof(err));
	ck_assert_ptr_null(file);
	ck_assert_str_eq(err, "bad.ini:3: 'garbage' is not valid INI; "
			 "expected [section], key = value or a comment");

	/* iniparser reads lines of up to 1022 characters. */
	memset(line, 'v', sizeof(line));
	memcpy(line, "[a]\nk = ", 8);
	memcpy(line + 4 + 1022, "\nz = 1\n", 7);
	load_both("long.ini", line, 4 + 1022 + 7, &file, &mem, err,
		  sizeof(err));
	ck_assert_msg(mem != NULL, "%s", err);
	assert_same_cfg(file, mem);
	ofan_cfg_free(file);
	ofan_cfg_free(mem);
	line[4 + 1022] = 'v';
	memcpy(line + 4 + 1023, "\nz = 1\n", 7);
	load_both("long.ini", line, 4 + 1023 + 7, &file, &mem, err,
		  sizeof(err));
	ck_assert_ptr_null(mem);
	ck_assert_str_eq(err, "long.ini:2: the line is too long or holds a "
			 "NUL byte; expected text lines of at most 1022 "
			 "characters");
}
END_TEST

/*
 * A key set twice in one section is refused, naming both lines, from a
 * file and from memory alike: also when the section is opened again,
 * whatever the case; the same key in two sections, and a continued
 * value whose next line holds '=', are not repeats.
 */
START_TEST(test_repeated_key)
{
	static const struct {
		const char *text;
		const char *err;	/* NULL: accepted */
	} cases[] = {
		{ "[a]\nx = 1\ny = 2\nx = 3\n",
		  "rep.ini:4: [a] x is set again (first on line 2); expected "
		  "each key once in a section" },
		{ "[a]\nx = 1\n[b]\nx = 2\n[A]\n; again\nX = 3\n",
		  "rep.ini:7: [a] x is set again (first on line 2); expected "
		  "each key once in a section" },
		{ "[a]\nx = 1\n[b]\nx = 2\n", NULL },
		{ "[a]\nx = one \\\n  y = two\ny = 3\n", NULL },
	};
	char err[ERR_SIZE];
	struct ofan_cfg *file, *mem;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		load_both("rep.ini", cases[i].text, strlen(cases[i].text),
			  &file, &mem, err, sizeof(err));
		if (cases[i].err == NULL) {
			ck_assert_msg(mem != NULL, "case %u: %s", i, err);
		} else {
			ck_assert_ptr_null(mem);
			ck_assert_str_eq(err, cases[i].err);
		}
		ofan_cfg_free(file);
		ofan_cfg_free(mem);
	}
}
END_TEST

/*
 * Two ports on one device, told before EAL: the device is the name
 * before the first ',', a PCI address with its domain, any case; the
 * two ends of a ring pair are two devices.
 */
START_TEST(test_same_device)
{
	const char *devs[3];
	struct ofan_cfg *cfg = load_text("d.ini", "[port.0]\n");
	char name[64];

	ofan_cfg_dev_name("01:00.0,txq_inline=1", name, sizeof(name));
	ck_assert_str_eq(name, "0000:01:00.0");
	ofan_cfg_dev_name("NET_NULL0,no-rx=1", name, sizeof(name));
	ck_assert_str_eq(name, "net_null0");
	devs[0] = "ringpair:t:a";
	devs[1] = "ringpair:t:b";
	devs[2] = "net_null0";
	ck_assert_int_eq(ofan_cfg_check_devices(cfg, devs, 3), 0);
	devs[0] = "0000:01:00.0";
	devs[2] = "01:00.0,rx_queues=2";
	ck_assert_int_eq(ofan_cfg_check_devices(cfg, devs, 3), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "d.ini:port.2:dev: '0000:01:00.0' "
			 "is the same device as [port.0]; expected each port "
			 "on its own device");
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_mem_nul_and_empty)
{
	/* iniparser skips a line that is one byte before its NUL. */
	static const char skipped[] = "[s]\nk = 1\nx\0y = 2\nz = 3";
	static const char nul[] = "[s]\nk = 1\nabc\0 = 2\nz = 3\n";
	char err[ERR_SIZE] = "";
	struct ofan_cfg *file, *mem;
	const char *keys[4];

	load_both("empty.ini", "", 0, &file, &mem, err, sizeof(err));
	ck_assert_ptr_nonnull(mem);
	assert_same_cfg(file, mem);
	ck_assert_int_eq(ofan_cfg_sections(mem, "", NULL, 0), 0);
	ck_assert_int_eq(ofan_cfg_check_unknown(mem), 0);
	ofan_cfg_free(file);
	ofan_cfg_free(mem);
	mem = ofan_cfg_load_mem("null.ini", NULL, 0, err, sizeof(err));
	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(ofan_cfg_check_unknown(mem), 0);
	ofan_cfg_free(mem);

	load_both("nul.ini", skipped, sizeof(skipped) - 1, &file, &mem, err,
		  sizeof(err));
	ck_assert_ptr_nonnull(mem);
	assert_same_cfg(file, mem);
	ck_assert_int_eq(ofan_cfg_keys(mem, "s", keys, 4), 2);
	ck_assert_str_eq(keys[1], "z");
	ofan_cfg_free(file);
	ofan_cfg_free(mem);
	load_both("nul.ini", nul, sizeof(nul) - 1, &file, &mem, err,
		  sizeof(err));
	ck_assert_ptr_null(mem);
	ck_assert_str_eq(err, "nul.ini:3: the line is too long or holds a NUL "
			 "byte; expected text lines of at most 1022 "
			 "characters");
}
END_TEST

START_TEST(test_blank_section)
{
	static const char *const bad[] = {
		"[a]\nx = 1\n[ ]\ny = 2\n", "[\t]\n", "[]\nk = 1\n",
	};
	char err[ERR_SIZE] = "";
	struct ofan_cfg *file, *mem;
	const char *keys[2];
	unsigned int i;

	/* iniparser makes these a section "": they must not load. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		load_both("blank.ini", bad[i], strlen(bad[i]), &file, &mem,
			  err, sizeof(err));
		ck_assert_ptr_null(mem);
		ck_assert_str_eq(err, "blank.ini: a section has a blank name "
				 "('[ ]', or '[]' before the first section); "
				 "expected [name]");
	}
	/* After a section, iniparser reads "[]" as that section again. */
	file = load_text("t.ini", "[a]\nx = 1\n[]\ny = 2\n");
	ck_assert_int_eq(ofan_cfg_keys(file, "a", keys, 2), 2);
	ck_assert_str_eq(keys[1], "y");
	ck_assert(!ofan_cfg_has_section(file, ""));
	ofan_cfg_free(file);
}
END_TEST

START_TEST(test_mem_paths)
{
	static const char text[] = "[t]\ncm = a.cm\nabs = /x/b.cm\n";
	char err[ERR_SIZE] = "", out[64];
	struct ofan_cfg *cfg;

	/* Relative to the name's folder, as for a file of that name. */
	cfg = ofan_cfg_load_mem("exp/m.ini", text, strlen(text), err,
				sizeof(err));
	ck_assert_ptr_nonnull(cfg);
	ck_assert_str_eq(ofan_cfg_path(cfg), "exp/m.ini");
	ck_assert_int_eq(ofan_cfg_path_of(cfg, "t", "cm", "a.cm", out,
					  sizeof(out)), 0);
	ck_assert_str_eq(out, "exp/a.cm");
	ck_assert_int_eq(ofan_cfg_path_of(cfg, "t", "abs", "/x/b.cm", out,
					  sizeof(out)), 0);
	ck_assert_str_eq(out, "/x/b.cm");
	ofan_cfg_free(cfg);
	/* No folder: the current directory. */
	cfg = ofan_cfg_load_mem("m.ini", text, strlen(text), err, sizeof(err));
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(ofan_cfg_path_of(cfg, "t", "cm", "a.cm", out,
					  sizeof(out)), 0);
	ck_assert_str_eq(out, "a.cm");
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_keys)
{
	struct ofan_cfg *cfg = load_text("t.ini", "stray = 1\n[s]\nB = 2\n"
					 "a = 1\n[e]\n");
	const char *keys[4] = { NULL };

	ck_assert_int_eq(ofan_cfg_set(cfg, "S", "c", "4"), 0);
	ck_assert_int_eq(ofan_cfg_keys(cfg, "s", keys, 4), 3);
	ck_assert_str_eq(keys[0], "b");
	ck_assert_str_eq(keys[1], "a");
	ck_assert_str_eq(keys[2], "c");
	keys[1] = NULL;
	ck_assert_int_eq(ofan_cfg_keys(cfg, "s", keys, 1), 3);
	ck_assert_ptr_null(keys[1]);
	ck_assert_int_eq(ofan_cfg_keys(cfg, "", keys, 4), 1);
	ck_assert_str_eq(keys[0], "stray");
	ck_assert_int_eq(ofan_cfg_keys(cfg, "e", keys, 4), 0);
	ck_assert_int_eq(ofan_cfg_keys(cfg, "none", NULL, 0), 0);
	/* Listing marks nothing as read. */
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "t.ini: key 'stray' is outside "
			 "any section; expected it under a [section]");
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_colon_sections)
{
	/*
	 * A key belongs to the longest section that prefixes it among the
	 * sections before it: "b:y" comes after [a:b], "b:c" before.
	 */
	struct ofan_cfg *cfg = load_text("t.ini", "[a]\nb:c = 1\n[a:b]\n"
					 "d = 3\n[a:b:x]\ne = 4\n[a]\n"
					 "b:y = 5\n");
	const char *keys[4] = { NULL };

	ck_assert_int_eq(ofan_cfg_keys(cfg, "a", keys, 4), 1);
	ck_assert_str_eq(keys[0], "b:c");
	ck_assert_int_eq(ofan_cfg_keys(cfg, "a:b", keys, 4), 2);
	ck_assert_str_eq(keys[0], "d");
	ck_assert_str_eq(keys[1], "y");
	ck_assert_int_eq(ofan_cfg_keys(cfg, "a:b:x", keys, 4), 1);
	ck_assert_str_eq(keys[0], "e");
	ofan_cfg_free(cfg);
}
END_TEST

/* Thousands of sections: each found, each key asked once, one left over. */
START_TEST(test_many_sections)
{
	enum { NB = 3000 };
	size_t size = NB * 32, used = 0;
	char *text = malloc(size), sec[16], key[16], err[ERR_SIZE] = "";
	struct ofan_cfg *cfg;
	uint32_t v = 0;
	int i;

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < NB; i++)
		used += (size_t)snprintf(text + used, size - used,
					 "[s%d]\nk = %d\nK%d = 1\n", i, i, i);
	write_bytes("many.ini", text, used);
	free(text);
	cfg = ofan_cfg_load("many.ini", err, sizeof(err));
	unlink("many.ini");
	ck_assert_msg(cfg != NULL, "%s", err);
	ck_assert_int_eq(ofan_cfg_sections(cfg, "s", NULL, 0), NB);
	for (i = 0; i < NB; i++) {
		snprintf(sec, sizeof(sec), "S%d", i);
		snprintf(key, sizeof(key), "k%d", i);
		ck_assert_int_eq(ofan_cfg_get_u32(cfg, sec, "k", 0, 0, NB, &v),
				 0);
		ck_assert_uint_eq(v, (uint32_t)i);
		if (i != NB / 2)
			ck_assert_int_eq(ofan_cfg_get_u32(cfg, sec, key, 0, 0,
							  NB, &v), 0);
	}
	ck_assert_int_eq(ofan_cfg_check_unknown(cfg), -EINVAL);
	ck_assert_str_eq(ofan_cfg_error(cfg), "many.ini:s1500:k1500: unknown "
			 "key; allowed keys in [s1500]: k");
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(test_plain_parsers)
{
	uint64_t v = SENTINEL;
	uint8_t mac[6] = { 0 };
	uint32_t a = 0;
	double d = 0;

	ck_assert_int_eq(ofan_parse_u64("007", &v), 0);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(ofan_parse_u64("18446744073709551616", &v), -EINVAL);
	ck_assert_int_eq(ofan_parse_u64(" 1", &v), -EINVAL);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(ofan_parse_double("-2.5e3", &d), 0);
	ck_assert_double_eq(d, -2500);
	ck_assert_int_eq(ofan_parse_double(" 1", &d), -EINVAL);
	ck_assert_int_eq(ofan_parse_double("inf", &d), -EINVAL);
	ck_assert_int_eq(ofan_parse_rate("2.5G", &v), 0);
	ck_assert_uint_eq(v, 2500000000ULL);
	ck_assert_int_eq(ofan_parse_rate("99999999999T", &v), -EINVAL);
	ck_assert_int_eq(ofan_parse_time("2.5us", &v), 0);
	ck_assert_uint_eq(v, 2500);
	ck_assert_int_eq(ofan_parse_time("2.5", &v), -EINVAL);
	ck_assert_int_eq(ofan_parse_size("2MiB", &v), 0);
	ck_assert_uint_eq(v, 2097152);
	ck_assert_int_eq(ofan_parse_size("1GiB", &v), 0);
	ck_assert_uint_eq(v, 1073741824);
	ck_assert_int_eq(ofan_parse_size("2MB", &v), 0);
	ck_assert_uint_eq(v, 2000000);
	ck_assert_int_eq(ofan_parse_size("1.5B", &v), -EINVAL);
	ck_assert_int_eq(ofan_parse_ipv4("1.2.3.4", &a), 0);
	ck_assert_uint_eq(a, 0x01020304);
	ck_assert_int_eq(ofan_parse_ipv4("1.2.3.4.5", &a), -EINVAL);
	ck_assert_int_eq(ofan_parse_mac("00:11:22:33:44:55", mac), 0);
	ck_assert_uint_eq(mac[1], 0x11);
	ck_assert_uint_eq(mac[5], 0x55);
	ck_assert_int_eq(ofan_parse_mac("00:11:22:33:44:55:", mac), -EINVAL);
}
END_TEST

/* Run writes through a JSON writer on a memory stream; returns text. */
static char *
json_text(void (*fn)(struct ofan_json *j), bool pretty, int *rc)
{
	struct ofan_json j;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	f = open_memstream(&buf, &size);
	ck_assert_ptr_nonnull(f);
	ofan_json_init(&j, f, pretty);
	fn(&j);
	*rc = ofan_json_finish(&j);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static void
json_sample(struct ofan_json *j)
{
	ofan_json_obj_begin(j, NULL);
	ofan_json_u64(j, "a", UINT64_MAX);
	ofan_json_i64(j, "b", INT64_MIN);
	ofan_json_arr_begin(j, "c");
	ofan_json_double(j, NULL, 0.1);
	ofan_json_double(j, NULL, 1.0 / 3);
	ofan_json_double(j, NULL, 1e20);
	ofan_json_double(j, NULL, NAN);
	ofan_json_double(j, NULL, -INFINITY);
	ofan_json_arr_end(j);
	ofan_json_str(j, "s\"", "q\"b\\n\n\x01\x1f/\xc3\xa9");
	ofan_json_obj_begin(j, "d");
	ofan_json_obj_end(j);
	ofan_json_arr_begin(j, "e");
	ofan_json_arr_end(j);
	ofan_json_obj_begin(j, "f");
	ofan_json_bool(j, "t", true);
	ofan_json_bool(j, "f", false);
	ofan_json_str(j, "n", NULL);
	ofan_json_obj_end(j);
	ofan_json_obj_end(j);
}

START_TEST(test_json_compact)
{
	int rc = -1;
	char *out = json_text(json_sample, false, &rc);

	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(out, "{\"a\":18446744073709551615,"
			 "\"b\":-9223372036854775808,"
			 "\"c\":[0.1,0.333333333,1e+20,null,null],"
			 "\"s\\\"\":\"q\\\"b\\\\n\\u000a\\u0001\\u001f/"
			 "\xc3\xa9\","
			 "\"d\":{},\"e\":[],"
			 "\"f\":{\"t\":true,\"f\":false,\"n\":null}}\n");
	free(out);
}
END_TEST

static void
json_small(struct ofan_json *j)
{
	ofan_json_obj_begin(j, NULL);
	ofan_json_u64(j, "a", 1);
	ofan_json_arr_begin(j, "b");
	ofan_json_double(j, NULL, 1.5);
	ofan_json_obj_begin(j, NULL);
	ofan_json_i64(j, "c", -1);
	ofan_json_obj_end(j);
	ofan_json_arr_end(j);
	ofan_json_obj_begin(j, "d");
	ofan_json_obj_end(j);
	ofan_json_obj_end(j);
}

START_TEST(test_json_pretty)
{
	int rc = -1;
	char *out = json_text(json_small, true, &rc);

	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(out, "{\n"
			 "  \"a\": 1,\n"
			 "  \"b\": [\n"
			 "    1.5,\n"
			 "    {\n"
			 "      \"c\": -1\n"
			 "    }\n"
			 "  ],\n"
			 "  \"d\": {}\n"
			 "}\n");
	free(out);
}
END_TEST

static void
json_unclosed(struct ofan_json *j)
{
	ofan_json_arr_begin(j, NULL);
	ofan_json_u64(j, NULL, 1);
}

static void
json_too_deep(struct ofan_json *j)
{
	int i;

	for (i = 0; i < OFAN_JSON_MAX_DEPTH + 1; i++)
		ofan_json_arr_begin(j, NULL);
	for (i = 0; i < OFAN_JSON_MAX_DEPTH + 1; i++)
		ofan_json_arr_end(j);
}

START_TEST(test_json_errors)
{
	struct ofan_json j;
	int rc = 0;
	char *out;
	FILE *f;

	out = json_text(json_unclosed, false, &rc);
	ck_assert_int_lt(rc, 0);
	free(out);
	out = json_text(json_too_deep, false, &rc);
	ck_assert_int_lt(rc, 0);
	free(out);

	/* Writes to /dev/full fail when flushed. */
	f = fopen("/dev/full", "w");
	ck_assert_ptr_nonnull(f);
	ofan_json_init(&j, f, false);
	ofan_json_u64(&j, NULL, 1);
	ck_assert_int_eq(ofan_json_finish(&j), -EIO);
	fclose(f);
}
END_TEST

static Suite *
config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");
	TCase *tj = tcase_create("json");

	tcase_add_test(tc, test_good_file);
	tcase_add_test(tc, test_absent_keeps_default);
	tcase_add_loop_test(tc, test_good_value, 0,
			    sizeof(good_cases) / sizeof(good_cases[0]));
	tcase_add_loop_test(tc, test_bad_value, 0,
			    sizeof(bad_cases) / sizeof(bad_cases[0]));
	tcase_add_loop_test(tc, test_missing_required, 0,
			    sizeof(missing_cases) / sizeof(missing_cases[0]));
	tcase_add_test(tc, test_unknown_key);
	tcase_add_test(tc, test_unknown_section);
	tcase_add_test(tc, test_key_outside_section);
	tcase_add_test(tc, test_mark_section);
	tcase_add_test(tc, test_syntax_error);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_set_override);
	tcase_add_test(tc, test_write_round_trip);
	tcase_add_test(tc, test_sections_prefix);
	tcase_add_test(tc, test_fail);
	tcase_add_test(tc, test_blame);
	tcase_add_test(tc, test_mem_equals_file);
	tcase_add_test(tc, test_mem_syntax_error);
	tcase_add_test(tc, test_mem_nul_and_empty);
	tcase_add_test(tc, test_repeated_key);
	tcase_add_test(tc, test_same_device);
	tcase_add_test(tc, test_mem_paths);
	tcase_add_test(tc, test_blank_section);
	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_colon_sections);
	tcase_add_test(tc, test_many_sections);
	tcase_add_test(tc, test_plain_parsers);
	suite_add_tcase(s, tc);

	tcase_add_test(tj, test_json_compact);
	tcase_add_test(tj, test_json_pretty);
	tcase_add_test(tj, test_json_errors);
	suite_add_tcase(s, tj);
	return s;
}

int
main(void)
{
	return t_unit_run_suite("config", config_suite());
}
