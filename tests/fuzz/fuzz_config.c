/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the configuration loader (ofan_config.h).
 *
 * iniparser only reads files, so each input is written to one per-process
 * file under /tmp (rewritten every run) and loaded.  Then every getter
 * type runs on a few fixed names and on every section the file has, the
 * unknown-key check runs, and the result is freed, so that leaks and
 * out-of-bounds accesses anywhere in the loader show up.  The plain value
 * parsers also get the raw input as a string.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofan_config.h"

#define FUZZ_MAX_SECTIONS 64
#define FUZZ_MAX_VALUE 256

static char fuzz_path[64];

static void
fuzz_cleanup(void)
{
	unlink(fuzz_path);
}

static const char *const fuzz_names[] = { "ecmp", "spray", "ofan", NULL };

static const char *const fuzz_keys[] = {
	"k", "rate", "ports", "policy", "ip", "x",
};

/* Every getter on sec:key; results are only used to keep them alive. */
static unsigned int
fuzz_getters(struct ofan_cfg *cfg, const char *sec, const char *key)
{
	uint32_t v32 = 0, list[8], count = 0, addr = 0;
	uint8_t len = 0, mac[6] = { 0 };
	const char *s = NULL;
	unsigned int sum = 0;
	uint64_t v64 = 0;
	double d = 0;
	bool b = false;
	int e = 0;

	sum += ofan_cfg_get_str(cfg, sec, key, 0, &s) == 0 && s != NULL ?
	       (unsigned int)strlen(s) : 0;
	sum += ofan_cfg_get_u64(cfg, sec, key, 0, 1, 1000, &v64) == 0;
	sum += ofan_cfg_get_u32(cfg, sec, key, OFAN_CFG_REQUIRED, 0,
				UINT32_MAX, &v32) == 0;
	sum += ofan_cfg_get_double(cfg, sec, key, 0, -1e9, 1e9, &d) == 0;
	sum += ofan_cfg_get_bool(cfg, sec, key, 0, &b) == 0;
	sum += ofan_cfg_get_enum(cfg, sec, key, OFAN_CFG_REQUIRED, fuzz_names,
				 &e) == 0;
	sum += ofan_cfg_get_rate(cfg, sec, key, 0, 0, UINT64_MAX, &v64) == 0;
	sum += ofan_cfg_get_time(cfg, sec, key, 0, 1, 1000000000, &v64) == 0;
	sum += ofan_cfg_get_size(cfg, sec, key, 0, 64, UINT64_MAX, &v64) == 0;
	sum += ofan_cfg_get_ipv4(cfg, sec, key, 0, &addr) == 0;
	sum += ofan_cfg_get_prefix(cfg, sec, key, 0, &addr, &len) == 0;
	sum += ofan_cfg_get_mac(cfg, sec, key, 0, mac) == 0;
	sum += ofan_cfg_get_u32_list(cfg, sec, key, 0, 0, 100, list, 8,
				     &count) == 0;
	sum += (unsigned int)strlen(ofan_cfg_error(cfg));
	return sum;
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *names[FUZZ_MAX_SECTIONS];
	char err[512];
	struct ofan_cfg *cfg;
	unsigned int sum = 0;
	size_t i;
	int n, k;
	FILE *f;

	if (fuzz_path[0] == '\0') {
		snprintf(fuzz_path, sizeof(fuzz_path),
			 "/tmp/ofan-fuzz-config-%ld.ini", (long)getpid());
		atexit(fuzz_cleanup);
	}
	fuzz_parsers(data, size);

	f = fopen(fuzz_path, "w");
	if (f == NULL)
		return 0;
	if (size > 0 && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	if (fclose(f) != 0)
		return 0;

	cfg = ofan_cfg_load(fuzz_path, err, sizeof(err));
	if (cfg == NULL)
		return 0;
	(void)ofan_cfg_set(cfg, "switch", "ports", "4");
	for (i = 0; i < sizeof(fuzz_keys) / sizeof(fuzz_keys[0]); i++) {
		sum += fuzz_getters(cfg, "switch", fuzz_keys[i]);
		sum += fuzz_getters(cfg, "port.1", fuzz_keys[i]);
	}
	n = ofan_cfg_sections(cfg, "", names, FUZZ_MAX_SECTIONS);
	for (k = 0; k < n && k < FUZZ_MAX_SECTIONS; k++) {
		for (i = 0; i < sizeof(fuzz_keys) / sizeof(fuzz_keys[0]); i++)
			sum += fuzz_getters(cfg, names[k], fuzz_keys[i]);
		sum += ofan_cfg_has_section(cfg, names[k]);
		sum += ofan_cfg_has_key(cfg, names[k], "k");
		if (k % 2 == 0)
			ofan_cfg_mark_section(cfg, names[k]);
	}
	sum += ofan_cfg_sections(cfg, "port.", names, FUZZ_MAX_SECTIONS);
	if (ofan_cfg_check_unknown(cfg) == -EINVAL)
		sum += (unsigned int)strlen(ofan_cfg_error(cfg));
	ofan_cfg_free(cfg);
	/* Make sum observable so the calls cannot be optimised away. */
	if (sum == 0xdeadbeef)
		abort();
	return 0;
}
