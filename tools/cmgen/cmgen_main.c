/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-cmgen: write an htsim connection matrix (.cm), so that htsim and
 * ofan run the same traffic.
 *
 *   ofan-cmgen PATTERN --nodes N --out FILE [--size B] [--seed S]
 *              [--start PS] [--tor-size T] [--pod-size P]
 *
 * Patterns, each as the study's generator scripts (htsim's
 * connection_matrices/gen_*.py) write them, so that the same arguments
 * give the authors' files byte for byte:
 *   permutation      gen_permutation.py: srcs and dsts shuffled with
 *                    Python's random seeded with S, self-loops swapped
 *                    away (perm_128n_128c_s1_2MB.cm is seed 1);
 *   alltoall         the nodes in the seed-S shuffled order, each to the
 *                    next N-1 of that order (alltoall_128n_2MB.cm);
 *   serial_alltoall  gen_serial_alltoall.py: the same flows, each source's
 *                    chained by send_done triggers (oneshot), the first
 *                    at the start time;
 *   ring, podring, podring_ol, torring   the structured permutations
 *                    (ofan's traffic patterns, hs_traffic.c), ToRs of T
 *                    and pods of P hosts (default: a k-ary fat tree of N
 *                    hosts).
 * Python's random is reproduced exactly (MT19937 seeded by init_by_array
 * with the seed's 32-bit words, shuffle drawing getrandbits(bit_length)
 * until below the bound), which is what makes the files equal.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_pattern.h"
#include "hs_traffic.h"
#include "ofan_config.h"
#include "ofan_version.h"

/* ---- Python's random (CPython's _randommodule.c behaviour) ---- */

#define PY_N 624
#define PY_M 397

struct py_rand {
	uint32_t mt[PY_N];
	int mti;
};

static void
py_init_genrand(struct py_rand *r, uint32_t s)
{
	int i;

	r->mt[0] = s;
	for (i = 1; i < PY_N; i++)
		r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) +
			(uint32_t)i;
	r->mti = PY_N;
}

/* random.seed(n) for an integer 1 <= n < 2^64: init_by_array(words). */
static void
py_seed(struct py_rand *r, uint64_t n)
{
	uint32_t key[2] = { (uint32_t)n, (uint32_t)(n >> 32) };
	int len = key[1] ? 2 : 1, i = 1, j = 0, k;

	py_init_genrand(r, 19650218u);
	for (k = PY_N > len ? PY_N : len; k > 0; k--) {
		r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) *
					1664525u)) + key[j] + (uint32_t)j;
		i++;
		j++;
		if (i >= PY_N) {
			r->mt[0] = r->mt[PY_N - 1];
			i = 1;
		}
		if (j >= len)
			j = 0;
	}
	for (k = PY_N - 1; k > 0; k--) {
		r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) *
					1566083941u)) - (uint32_t)i;
		i++;
		if (i >= PY_N) {
			r->mt[0] = r->mt[PY_N - 1];
			i = 1;
		}
	}
	r->mt[0] = 0x80000000u;
}

static uint32_t
py_genrand(struct py_rand *r)
{
	static const uint32_t mag[2] = { 0, 0x9908b0dfu };
	uint32_t y;
	int k;

	if (r->mti >= PY_N) {
		for (k = 0; k < PY_N - PY_M; k++) {
			y = (r->mt[k] & 0x80000000u) | (r->mt[k + 1] & 0x7fffffffu);
			r->mt[k] = r->mt[k + PY_M] ^ (y >> 1) ^ mag[y & 1];
		}
		for (; k < PY_N - 1; k++) {
			y = (r->mt[k] & 0x80000000u) | (r->mt[k + 1] & 0x7fffffffu);
			r->mt[k] = r->mt[k + (PY_M - PY_N)] ^ (y >> 1) ^ mag[y & 1];
		}
		y = (r->mt[PY_N - 1] & 0x80000000u) | (r->mt[0] & 0x7fffffffu);
		r->mt[PY_N - 1] = r->mt[PY_M - 1] ^ (y >> 1) ^ mag[y & 1];
		r->mti = 0;
	}
	y = r->mt[r->mti++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

/* random._randbelow(n), 1 <= n < 2^32. */
static uint32_t
py_randbelow(struct py_rand *r, uint32_t n)
{
	int k = 32 - __builtin_clz(n);
	uint32_t x;

	do
		x = py_genrand(r) >> (32 - k);
	while (x >= n);
	return x;
}

/* random.shuffle(x). */
static void
py_shuffle(struct py_rand *r, uint32_t *x, uint32_t n)
{
	uint32_t i, j, t;

	for (i = n - 1; i >= 1; i--) {
		j = py_randbelow(r, i + 1);
		t = x[i];
		x[i] = x[j];
		x[j] = t;
	}
}

/* ---- the matrices ---- */

struct cg_opts {
	const char *pattern;
	const char *out;
	uint32_t nodes;
	uint64_t size;
	uint64_t seed;
	uint64_t start_ps;
	uint32_t tor_size, pod_size;
};

static void
cg_usage(FILE *f)
{
	fprintf(f,
		"usage: ofan-cmgen PATTERN --nodes N --out FILE [--size B] [--seed S]\n"
		"                  [--start PS] [--tor-size T] [--pod-size P]\n"
		"       ofan-cmgen --help | --version\n"
		"  Writes an htsim connection matrix, as the study's generators do.\n"
		"  PATTERN: permutation, alltoall, serial_alltoall (Python's random,\n"
		"  seed S >= 1, default 1), ring, podring, podring_ol, torring (ToRs of T\n"
		"  and pods of P hosts; default: those of a k-ary fat tree of N hosts).\n"
		"  --size B (bytes, units allowed: 2MiB; default 2097152), --start PS\n"
		"  (picoseconds, or a time with its unit: 1us; default 0).\n");
}

static uint32_t *
cg_shuffled(const struct cg_opts *o, struct py_rand *r)
{
	uint32_t *l = malloc(sizeof(*l) * o->nodes), i;

	if (l == NULL)
		return NULL;
	for (i = 0; i < o->nodes; i++)
		l[i] = i;
	py_seed(r, o->seed);
	py_shuffle(r, l, o->nodes);
	return l;
}

static int
cg_permutation(const struct cg_opts *o, FILE *f)
{
	uint32_t n = o->nodes, *s = malloc(sizeof(*s) * n), *d, i, t;
	struct py_rand r;

	d = malloc(sizeof(*d) * n);
	if (s == NULL || d == NULL) {
		free(s);
		free(d);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		s[i] = d[i] = i;
	py_seed(&r, o->seed);
	py_shuffle(&r, s, n);
	py_shuffle(&r, d, n);
	for (i = 0; i < n; i++)
		if (s[i] == d[i]) {
			t = d[i];
			d[i] = d[(i + 1) % n];
			d[(i + 1) % n] = t;
		}
	fprintf(f, "Nodes %u\nConnections %u\n", n, n);
	for (i = 0; i < n; i++)
		fprintf(f, "%u->%u id %u start %" PRIu64 " size %" PRIu64 "\n",
			s[i], d[i], i + 1, o->start_ps, o->size);
	free(s);
	free(d);
	return 0;
}

static int
cg_alltoall(const struct cg_opts *o, FILE *f, bool serial)
{
	uint32_t n = o->nodes, id = 0, trig = 1, s, d;
	struct py_rand r;
	uint32_t *l = cg_shuffled(o, &r);

	if (l == NULL)
		return -ENOMEM;
	fprintf(f, "Nodes %u\nConnections %u\n", n, n * (n - 1));
	if (serial)
		fprintf(f, "Triggers %u\n", n * (n - 2));
	for (s = 0; s < n; s++)
		for (d = 1; d < n; d++) {
			fprintf(f, "%u->%u id %u", l[s], l[(s + d) % n], ++id);
			if (!serial || d == 1)
				fprintf(f, " start %" PRIu64, o->start_ps);
			else
				fprintf(f, " trigger %u", trig++);
			fprintf(f, " size %" PRIu64, o->size);
			if (serial && d != n - 1)
				fprintf(f, " send_done_trigger %u", trig);
			fprintf(f, "\n");
		}
	for (s = 1; serial && s < trig; s++)
		fprintf(f, "trigger id %u oneshot\n", s);
	free(l);
	return 0;
}

static int
cg_structured(const struct cg_opts *o, const struct hs_pattern_ops *pat,
	      FILE *f)
{
	struct hs_traffic_params p = {
		.pattern = pat, .nb_ranks = o->nodes, .size = o->size,
		.iterations = 1, .tor_size = o->tor_size,
		.pod_size = o->pod_size,
	};
	struct hs_traffic t;
	char err[512];
	uint32_t i;

	if (hs_pattern_build(&p, &t, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-cmgen: %s\n", err);
		return -EINVAL;
	}
	fprintf(f, "Nodes %u\nConnections %u\n", o->nodes, t.nb_flows);
	for (i = 0; i < t.nb_flows; i++)
		fprintf(f, "%u->%u id %u start %" PRIu64 " size %" PRIu64 "\n",
			t.flows[i].src, t.flows[i].dst, i + 1, o->start_ps,
			o->size);
	hs_traffic_free(&t);
	return 0;
}

/* A k-ary fat tree of n hosts: k^3 / 4 = n, or 0. */
static uint32_t
cg_fattree_k(uint32_t n)
{
	uint32_t k;

	for (k = 2; k * k * k / 4 <= n && k < 1024; k += 2)
		if (k * k * k / 4 == n)
			return k;
	return 0;
}

static int
cg_parse(int argc, char **argv, struct cg_opts *o)
{
	static const struct option longopts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "out", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "start", required_argument, NULL, 't' },
		{ "tor-size", required_argument, NULL, 'T' },
		{ "pod-size", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	o->size = 2097152;
	o->seed = 1;
	opterr = 0;	/* its own messages, naming the option */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		const char *name = NULL;
		int rc;

		for (v = 0; longopts[v].name != NULL; v++)
			if (longopts[v].val == c)
				name = longopts[v].name;
		if (c == 'h') {
			cg_usage(stdout);
			exit(0);
		}
		if (c == '?') {
			fprintf(stderr, "ofan-cmgen: %s: unknown option, or its value is missing (--help lists them)\n",
				argv[optind - 1]);
			return -EINVAL;
		}
		if (c == 'o') {
			o->out = optarg;
			continue;
		}
		/* --size takes units (2MiB), --start times (1us: in ps). */
		if (c == 'b') {
			rc = ofan_parse_size(optarg, &v);
		} else if (c == 't') {
			rc = ofan_parse_u64(optarg, &v);
			if (rc != 0 && ofan_parse_time(optarg, &v) == 0) {
				rc = v > UINT64_MAX / 1000 ? -ERANGE : 0;
				v *= 1000;	/* ns to ps */
			}
		} else {
			rc = ofan_parse_u64(optarg, &v);
		}
		if (rc != 0) {
			fprintf(stderr, "ofan-cmgen: --%s '%s': expected %s\n",
				name, optarg,
				c == 'b' ? "bytes, with or without a unit (2097152, 2MiB)" :
				c == 't' ? "picoseconds, or a time with its unit (1us)" :
				"a decimal integer");
			return -EINVAL;
		}
		switch (c) {
		case 'n':
			if (v < 2 || v > 1u << 20) {
				fprintf(stderr, "ofan-cmgen: --nodes '%s': expected 2 to 1048576\n",
					optarg);
				return -EINVAL;
			}
			o->nodes = (uint32_t)v;
			break;
		case 'b':
			if (v == 0 || v > 2147483647u) {
				fprintf(stderr, "ofan-cmgen: --size '%s': expected 1 to 2147483647 bytes (htsim's limit)\n",
					optarg);
				return -EINVAL;
			}
			o->size = v;
			break;
		case 's':
			if (v == 0) {
				fprintf(stderr, "ofan-cmgen: --seed '%s': expected 1 or more (htsim's 0 is unseeded)\n",
					optarg);
				return -EINVAL;
			}
			o->seed = v;
			break;
		case 't':
			o->start_ps = v;
			break;
		case 'T':
			o->tor_size = (uint32_t)v;
			break;
		case 'P':
			o->pod_size = (uint32_t)v;
			break;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "ofan-cmgen: no PATTERN; expected one of permutation, alltoall, serial_alltoall, ring, podring, podring_ol, torring\n");
		return -EINVAL;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "ofan-cmgen: '%s': one PATTERN only; expected options after it to start with --\n",
			argv[optind + 1]);
		return -EINVAL;
	}
	if (o->nodes == 0) {
		fprintf(stderr, "ofan-cmgen: --nodes: missing; expected 2 to 1048576\n");
		return -EINVAL;
	}
	if (o->out == NULL) {
		fprintf(stderr, "ofan-cmgen: --out: missing; expected the matrix file to write\n");
		return -EINVAL;
	}
	o->pattern = argv[optind];
	return 0;
}

int
main(int argc, char **argv)
{
	struct cg_opts o = { 0 };
	uint32_t k;
	const struct hs_pattern_ops *pat;
	unsigned int i;
	int rc;
	FILE *f;

	if (ofan_version_asked(argc, argv))
		return ofan_version_print("ofan-cmgen");
	if (cg_parse(argc, argv, &o) != 0)
		return 2;
	k = cg_fattree_k(o.nodes);
	if (o.tor_size == 0)
		o.tor_size = k ? k / 2 : 0;
	if (o.pod_size == 0)
		o.pod_size = k ? k * k / 4 : 0;
	/* The structured permutations: the patterns that follow the topology. */
	pat = hs_pattern_find(o.pattern);
	if (pat != NULL && !pat->needs_topology)
		pat = NULL;
	if (strcmp(o.pattern, "permutation") != 0 &&
	    strcmp(o.pattern, "alltoall") != 0 &&
	    strcmp(o.pattern, "serial_alltoall") != 0 && pat == NULL) {
		fprintf(stderr, "ofan-cmgen: unknown pattern '%s'; expected permutation, alltoall, serial_alltoall",
			o.pattern);
		for (i = 0; hs_pattern_registry[i] != NULL; i++)
			if (hs_pattern_registry[i]->needs_topology)
				fprintf(stderr, ", %s",
					hs_pattern_registry[i]->name);
		fprintf(stderr, "\n");
		return 2;
	}
	f = fopen(o.out, "w");
	if (f == NULL) {
		fprintf(stderr, "ofan-cmgen: cannot write %s: %s\n", o.out,
			strerror(errno));
		return 1;
	}
	if (strcmp(o.pattern, "permutation") == 0)
		rc = cg_permutation(&o, f);
	else if (strcmp(o.pattern, "alltoall") == 0)
		rc = cg_alltoall(&o, f, false);
	else if (strcmp(o.pattern, "serial_alltoall") == 0)
		rc = cg_alltoall(&o, f, true);
	else
		rc = cg_structured(&o, pat, f);
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	if (rc != 0) {
		remove(o.out);
		return rc == -EINVAL ? 2 : 1;
	}
	return 0;
}
