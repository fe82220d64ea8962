/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic patterns as modules: one table of what each pattern is (its
 * config name, a line about it, whether it needs the fabric's topology,
 * its own checks) and how it makes flows, in one place (hs_pattern.c).
 * [traffic] pattern = <name> picks one; hs_traffic_build() and the config
 * loader (hs_config.c) both check a pattern's parameters with
 * hs_pattern_check(), so a rule is written once and a bad value is
 * reported by its [traffic] key.
 *
 * Adding a pattern: a `const struct hs_pattern_ops` with nb_flows() and
 * fill() (one iteration of flows; the driver numbers them, repeats them
 * per iteration and chains the iterations), a line in hs_pattern.c's
 * registry or an hs_pattern_register() call before any configuration is
 * read, and a test.  docs/architecture.md walks through it;
 * tests/test_traffic.c defines and runs one that nothing else knows.
 *
 * Pure C, no EAL.
 */
#ifndef OFAN_HS_PATTERN_H
#define OFAN_HS_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hs_traffic;
struct hs_traffic_params;
struct hs_flow_spec;

/* Built-in patterns plus room for registered ones. */
#define HS_MAX_PATTERNS 32

struct hs_pattern_ops {
	const char *name;	/* [traffic] pattern = <name> (required) */
	const char *summary;	/* one line for the docs and messages (required) */
	/*
	 * Its flows follow the fabric's ToRs and pods: [traffic] tor_size
	 * and pod_size must be set (ofan-fabric sets them from the
	 * topology), tor_size >= 2 dividing pod_size, pod_size dividing the
	 * rank count.  hs_pattern_check() checks that before check().
	 */
	bool needs_topology;
	/*
	 * Its flows come from the file [traffic] cm_file names (build()
	 * reads it); the fabric checks that file's failures against its
	 * topology and the outputs name it.
	 */
	bool reads_cm_file;
	/*
	 * The pattern's own rules on p (the common ones, at least 2 ranks,
	 * at least one iteration, size >= 1 unless build() is set, are
	 * checked before): 0, or -EINVAL with *key the [traffic] key at
	 * fault and msg "'<value>' ...; expected ..." (or "missing;
	 * expected ...").  NULL: no rules of its own.
	 */
	int (*check)(const struct hs_traffic_params *p, const char **key,
		     char *msg, unsigned int msg_size);
	/*
	 * A generated pattern: the flows of one iteration (at least 1 once
	 * the checks passed; UINT64_MAX if that does not fit), and fill()
	 * writing src, dst, size, step and dep of those flows into f (every
	 * other field is set before: no dep, no triggers), with dep either
	 * HS_NO_DEP or an index inside the iteration.
	 */
	uint64_t (*nb_flows)(const struct hs_traffic_params *p);
	void (*fill)(const struct hs_traffic_params *p,
		     struct hs_flow_spec *f);
	/*
	 * Instead of nb_flows() and fill(): the whole traffic at once (a
	 * file's flows, triggers and failures).  0, or -EINVAL with
	 * "FILE:LINE: ..." in err, -errno, -ENOMEM; t left empty then.
	 */
	int (*build)(const struct hs_traffic_params *p, struct hs_traffic *t,
		     char *err, unsigned int err_size);
};

/*
 * NULL-terminated registry: the built-in patterns in documentation order
 * (hs_pattern.c), then any hs_pattern_register() added.
 */
extern const struct hs_pattern_ops *hs_pattern_registry[HS_MAX_PATTERNS + 1];

/*
 * Add a pattern before any configuration is read.  Returns 0, -EEXIST when
 * the name is taken, -ENOSPC when the registry is full, -EINVAL when ops
 * lacks its name or summary, or has neither nb_flows() and fill() nor
 * build(), or both.
 */
int hs_pattern_register(const struct hs_pattern_ops *ops);

/* By name (case-insensitive, as the config reads it); NULL if unknown. */
const struct hs_pattern_ops *hs_pattern_find(const char *name);

/* The pattern [traffic] pattern defaults to (permutation). */
const struct hs_pattern_ops *hs_pattern_default(void);

/*
 * The registered names, NULL-terminated, into names (HS_MAX_PATTERNS + 1
 * entries), for the config's enum reader; returns how many.
 */
unsigned int hs_pattern_name_list(const char **names);

/* Index of ops in the registry, -1 if it is not there. */
int hs_pattern_index(const struct hs_pattern_ops *ops);

/* "  name  summary" per pattern (--help). */
void hs_pattern_describe(FILE *f);

/* "permutation, alltoall, ..." into buf, for messages. */
void hs_pattern_list(char *buf, size_t size);

/*
 * Check p's pattern-specific parameters (the topology's sizes when the
 * pattern needs them, then its own check()): 0, or -EINVAL with *key the
 * [traffic] key at fault and the message in msg.
 */
int hs_pattern_check(const struct hs_traffic_params *p, const char **key,
		     char *msg, unsigned int msg_size);

#endif /* OFAN_HS_PATTERN_H */
