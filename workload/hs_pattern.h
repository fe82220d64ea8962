/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The producers of the traffic as modules: each pattern says what it is
 * (its config name, a line about it, whether it needs the fabric's
 * topology), owns its settings (their size, defaults, and a parse of its
 * own [traffic] keys and sections), checks them, and makes flows: a
 * generated pattern one iteration at a time (the driver,
 * hs_pattern_build(), numbers them, repeats them per iteration and
 * chains the iterations), a whole-traffic one (an htsim matrix:
 * hs_cm.h; training jobs: hs_job.h) all at once, with the workload its
 * flows belong to when it has one.  [traffic] pattern = <name> picks one;
 * hs_pattern_build() and the config loader (hs_config.c) both check a
 * pattern's parameters with hs_pattern_check(), so a rule is written once
 * and a bad value is reported by its [traffic] key.
 *
 * Adding a pattern: a `const struct hs_pattern_ops`, a line in
 * hs_pattern.c's registry or an hs_pattern_register() call before any
 * configuration is read, and a test.  docs/architecture.md walks through
 * it; tests/test_pattern_plugin.c defines and runs one, with a setting of
 * its own, that nothing else knows.
 *
 * Pure C, no EAL.
 */
#ifndef OFAN_HS_PATTERN_H
#define OFAN_HS_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ofan_config.h"

struct hs_traffic;
struct hs_flow_spec;
struct hs_workload;
struct hs_pattern_ops;

/* Built-in patterns plus room for registered ones. */
#define HS_MAX_PATTERNS 32

/*
 * A pattern's settings: a block of its own, settings_size bytes, that
 * only the pattern reads.  Its defaults() and parse() fill it and every
 * hook gets it back in hs_traffic_params.settings.  The largest built-in
 * block is the training jobs' (hs_job.h).
 */
#define HS_PATTERN_SETTINGS_MAX (96u * 1024u)
struct hs_pattern_settings {
	_Alignas(16) unsigned char b[HS_PATTERN_SETTINGS_MAX];
};

/* What every pattern is given. */
struct hs_traffic_params {
	const struct hs_pattern_ops *pattern;
	/* Its settings block (hs_pattern_settings), NULL for a pattern
	 * without settings; not owned. */
	const void *settings;
	uint32_t nb_ranks;
	uint64_t size;		/* bytes: per flow, or per rank's buffer for ring collectives */
	uint32_t iterations;	/* >= 1 */
	uint64_t seed;		/* the traffic's random choices */
	uint64_t start_ns;	/* start of the first iteration */
	/* The topology's hosts per ToR and per pod, 0: unknown. */
	uint32_t tor_size;
	uint32_t pod_size;
};

/* What a pattern's parse() is told besides the config. */
struct hs_pattern_cfg {
	uint32_t nb_ranks;
	/* The keys nb_ranks comes from ([ranks] count; ofan-fabric's
	 * topology), which a rule on the rank count blames. */
	const struct ofan_cfg_key *ranks_from;
	int nb_ranks_from;
};

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
	 * Its traffic is read from a file when it is built: ofan-fabric
	 * builds it while loading, so that the file's mistakes and its
	 * failure lines are checked before EAL starts.
	 */
	bool reads_file;
	/* Bytes of its settings block (<= HS_PATTERN_SETTINGS_MAX); 0: none. */
	size_t settings_size;
	/* Fill the block with the defaults (NULL: zeros). */
	void (*defaults)(void *settings);
	/*
	 * Read its settings from cfg: its own [traffic] keys, which are
	 * read (and so checked) whatever the pattern, and its own sections
	 * (sections, below), read only when it is chosen.  0, or -EINVAL
	 * with the message in cfg (ofan_cfg_fail: "FILE:SECTION:KEY: ...").
	 * NULL: nothing to read.
	 */
	int (*parse)(struct ofan_cfg *cfg, const struct hs_pattern_cfg *ctx,
		     void *settings);
	/* The prefix of the sections only it reads ("job."), or NULL: such
	 * a section with another pattern is refused. */
	const char *sections;
	/* Its [traffic] keys whose rules compare them with the rank count,
	 * NULL-terminated (NULL: none): an override of the rank count is
	 * blamed for them (ofan_cfg_blame()). */
	const char *const *ranks_keys;
	/* Config text that makes a use of it, for --config-reference
	 * (e.g. its sections); NULL: none needed. */
	const char *example;
	/* Where a whole-traffic pattern's traffic comes from, for messages
	 * ("the [job.NAME] sections"). */
	const char *origin;
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
	 * file's flows, triggers and failures), and, for a pattern whose
	 * flows belong to a workload (hs_workload.h), that workload in *wl
	 * (allocated; the caller owns it; wl NULL: the caller runs no
	 * workload, and such a pattern refuses).  0, or -EINVAL with
	 * "FILE:LINE: ..." in err, -errno, -ENOMEM; t left empty and *wl
	 * untouched then.
	 */
	int (*build)(const struct hs_traffic_params *p, struct hs_traffic *t,
		     struct hs_workload **wl, char *err, unsigned int err_size);
};

/* [traffic] pattern = incast: its settings. */
struct hs_incast_settings {
	uint32_t degree;	/* [traffic] incast_degree: senders, < the ranks */
};

/* The built-in whole-traffic patterns (hs_cm.h, hs_job.h). */
extern const struct hs_pattern_ops hs_pattern_cm;
extern const struct hs_pattern_ops hs_pattern_jobs;

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
 * Fill block with ops' defaults and read ops' settings from cfg; read
 * the other patterns' [traffic] keys too (checked, not kept), and refuse
 * another pattern's sections: 0, or -EINVAL with the message in cfg.
 */
int hs_pattern_settings_from_cfg(struct ofan_cfg *cfg, const char *section,
				 const struct hs_pattern_ops *ops,
				 const struct hs_pattern_cfg *ctx,
				 struct hs_pattern_settings *block);

/*
 * Expand p into t (t->flows allocated; free with hs_traffic_free), and
 * into *wl the workload its flows belong to, or NULL (wl may be NULL for
 * a caller that runs no workload: such a pattern is then refused).  For
 * ring collectives the per-step size is size / nb_ranks rounded up.
 * Returns 0, or -EINVAL with a message in err (for .cm files:
 * "FILE:LINE: <what is wrong>; expected <what>"); -ENOMEM, or -errno
 * when a file cannot be read.  On failure t is left empty.
 */
int hs_pattern_build(const struct hs_traffic_params *p, struct hs_traffic *t,
		     struct hs_workload **wl, char *err, unsigned int err_size);

/* Whether key is one of ops's ranks_keys. */
bool hs_pattern_ranks_key(const struct hs_pattern_ops *ops, const char *key);

/*
 * Check p's pattern-specific parameters (the topology's sizes when the
 * pattern needs them, then its own check()): 0, or -EINVAL with *key the
 * [traffic] key at fault and the message in msg.
 */
int hs_pattern_check(const struct hs_traffic_params *p, const char **key,
		     char *msg, unsigned int msg_size);

#endif /* OFAN_HS_PATTERN_H */
