/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Training jobs from a few numbers: [job.NAME] sections, their placement
 * on the hosts, and the built-in model shapes that turn them into a
 * workload (hs_workload.h).  [traffic] pattern = jobs runs them.
 *
 * A job has dp x tp x pp ranks (data, tensor and pipeline parallel; rank
 * = (d x pp + s) x tp + t, so a tensor-parallel group is adjacent and a
 * packed job keeps it under one ToR, as practice does).  Per layer and
 * micro-batch of T = seq_len x micro_batch tokens (h = hidden, f = ffn,
 * b = bytes_per_param, also the activations' bytes per value):
 *   - compute: forward 2 T (4 h^2 + 3 h f) + 4 T seq_len h FLOP over tp
 *     (attention and a SwiGLU MLP; the attention scores' 4 T s h), an
 *     MoE layer's MLP x top_k; backward twice the forward; at
 *     tflops x 10^12 FLOP/s per rank;
 *   - tensor parallel: an all-reduce of T h b bytes after the attention
 *     and after the MLP, forward and backward (Megatron-LM);
 *   - MoE (model = moe, ep > 1): an all-to-all of T h b top_k bytes to
 *     dispatch the tokens to the experts and one to combine them, forward
 *     and backward, over ep ranks of the data-parallel dimension;
 *   - pipeline: the activation (T h b bytes) to the next stage after a
 *     stage's forward, its gradient back after the backward, in the 1F1B
 *     order (warm-up forwards, one forward one backward, cool-down);
 *   - data parallel: the gradients (the stage's parameters / tp, x b) in
 *     grad_buckets all-reduces over dp ranks (MoE experts' over the dp /
 *     ep ranks holding the same experts), each after the last backward of
 *     its layers when overlap = yes, else after the whole backward; then
 *     the optimizer step (12 FLOP a parameter).
 * Embeddings and the output layer are left out (a stage is its layers).
 *
 * Pure C, no EAL.
 */
#ifndef OFAN_HS_JOB_H
#define OFAN_HS_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hs_pattern.h"
#include "ofan_config.h"

struct hs_workload;

#define HS_MAX_JOBS 16
#define HS_JOB_NAME_SIZE 32
/* The most hosts an explicit placement lists. */
#define HS_JOB_MAX_LIST 1024

/*
 * dense, moe: the built-in shapes above; chakra: the job's Chakra
 * execution traces (hs_chakra.h), one file per rank.
 */
enum hs_job_model { HS_JOB_DENSE = 0, HS_JOB_MOE, HS_JOB_CHAKRA,
		    HS_JOB_SHAPE, HS_JOB_MODEL_NB };
extern const char *const hs_job_model_names[];

/*
 * Where a job's ranks go, among the hosts earlier jobs left: packed --
 * the lowest free hosts (ToR by ToR, pod by pod); spread -- round robin
 * over the ToRs; random -- seeded; list -- `hosts`.
 */
enum hs_job_place { HS_PLACE_PACKED = 0, HS_PLACE_SPREAD, HS_PLACE_RANDOM,
		    HS_PLACE_LIST, HS_PLACE_NB };
extern const char *const hs_job_place_names[];

/* A registered shape's settings: at most this many bytes. */
#define HS_JOB_SHAPE_SETTINGS_MAX 1024

struct hs_job_params;

/*
 * A job shape: what [job.NAME] model = <name> builds.  The built-in
 * shapes (dense, moe, chakra) read their keys with the job's (their
 * cross-key rules mix the shape's and the placement's); a registered
 * shape owns its settings block (settings_size bytes of the job's
 * shape_set), its defaults() and a parse() of its own keys in the job's
 * section, which the job loader calls after the job's own keys
 * (iterations, start, placement, seed, hosts) and before the rules of
 * the ranks against the hosts and the placement.  Required: name,
 * summary, ranks() and build(); parse() when settings_size > 0.
 */
struct hs_job_shape_ops {
	const char *name;	/* [job.NAME] model = <name> */
	const char *summary;	/* one line for the docs and messages */
	size_t settings_size;	/* <= HS_JOB_SHAPE_SETTINGS_MAX; 0: none */
	void (*defaults)(void *settings);
	/* Its keys of section sec: 0, or -EINVAL with the message in cfg
	 * ("FILE:SECTION:KEY: ..."). */
	int (*parse)(struct ofan_cfg *cfg, const char *sec, void *settings);
	/* The job's ranks (at least 1). */
	uint64_t (*ranks)(const struct hs_job_params *j);
	/*
	 * The job's nodes into w, whose last job (hs_wl_add_job) is this
	 * one, its ranks 0 .. ranks() - 1 (hs_wl_add_comm, hs_wl_add_node):
	 * 0, or -EINVAL with "job NAME: ..." in err, or -ENOMEM.
	 */
	int (*build)(struct hs_workload *w, const struct hs_job_params *j,
		     char *err, size_t err_size);
};

/* Built-in shapes plus room for registered ones. */
#define HS_MAX_JOB_SHAPES 16

/* NULL-terminated: dense, moe, chakra, then any registered. */
extern const struct hs_job_shape_ops
	*hs_job_shape_registry[HS_MAX_JOB_SHAPES + 1];

/*
 * Add a shape before any configuration is read: 0, -EEXIST (the name is
 * taken, in any case), -ENOSPC, or -EINVAL (a required member missing,
 * settings over the block or without a parse()).
 */
int hs_job_shape_register(const struct hs_job_shape_ops *ops);

/* By name (any case); NULL if unknown. */
const struct hs_job_shape_ops *hs_job_shape_find(const char *name);

/* The registered names, NULL-terminated, into names (HS_MAX_JOB_SHAPES +
 * 1 entries); returns how many. */
unsigned int hs_job_shape_name_list(const char **names);

/* Index of ops in the registry, -1 if it is not there. */
int hs_job_shape_index(const struct hs_job_shape_ops *ops);

/* "  name  summary" per shape (--help). */
void hs_job_shape_describe(FILE *f);

struct hs_job_params {
	char name[HS_JOB_NAME_SIZE];
	uint8_t model;		/* enum hs_job_model */
	/* Its shape: the built-in one of model, or a registered one
	 * (model HS_JOB_SHAPE), whose settings shape_set holds. */
	const struct hs_job_shape_ops *shape;
	_Alignas(16) unsigned char shape_set[HS_JOB_SHAPE_SETTINGS_MAX];
	uint32_t dp, tp, pp, ep;
	uint32_t layers;
	uint64_t hidden, ffn, seq_len;
	uint32_t micro_batch;	/* sequences per micro-batch */
	uint32_t micro_batches;	/* per iteration */
	uint32_t bytes_per_param;
	uint32_t grad_buckets;
	bool overlap;
	uint64_t flops;		/* FLOP/s a rank sustains ([job] tflops) */
	uint32_t experts, top_k;
	uint32_t iterations;
	uint64_t start_ns;	/* after the traffic start */
	uint8_t placement;	/* enum hs_job_place */
	uint64_t seed;		/* random placement */
	bool seed_set;		/* else the traffic's seed */
	uint32_t nb_hosts;	/* placement = list */
	uint32_t hosts[HS_JOB_MAX_LIST];
	/* model = chakra: its ranks and its traces' PREFIX (PREFIX.R.et). */
	uint32_t ranks;
	char trace[512];
};

/* The ranks of a job: its shape's (dp x tp x pp, its trace's, ...). */
static inline uint64_t
hs_job_ranks(const struct hs_job_params *j)
{
	return j->shape->ranks(j);
}

void hs_job_defaults(struct hs_job_params *j);

/*
 * Read every [job.NAME] section into jobs (at most HS_MAX_JOBS); returns
 * how many, or -EINVAL with the message in cfg ("FILE:job.NAME:KEY: ...":
 * a degree that does not divide, a job larger than the hosts, ...).
 * nb_hosts: the hosts the jobs share.  A key wrong by itself, or in a
 * rule of two keys (pp dividing layers), is reported before a rule of a
 * product of them (dp x tp x pp <= nb_hosts).
 */
int hs_job_from_cfg(struct ofan_cfg *cfg, uint32_t nb_hosts,
		    struct hs_job_params *jobs);
/*
 * The same, with hosts_from[0 .. nb_from - 1] the keys nb_hosts comes
 * from ([ranks] count; ofan-fabric's topology), which a job too large
 * for the hosts blames when an override set one (ofan_cfg_blame()).
 */
int hs_job_from_cfg_keys(struct ofan_cfg *cfg, uint32_t nb_hosts,
			 const struct ofan_cfg_key *hosts_from, int nb_from,
			 struct hs_job_params *jobs);

/*
 * Place the jobs on nb_hosts hosts (tor_size hosts a ToR; 0: one ToR;
 * seed: random placement's, unless a job sets its own) and build their
 * workload into w (initialised here).  0, or -EINVAL
 * with "job NAME: ..." in err, or -ENOMEM.
 */
int hs_job_workload(const struct hs_job_params *jobs, uint32_t nb_jobs,
		    uint32_t nb_hosts, uint32_t tor_size, uint64_t seed,
		    struct hs_workload *w, char *err, size_t err_size);

/* [traffic] pattern = jobs (hs_pattern.c's registry): its settings. */
struct hs_jobs_settings {
	uint32_t nb;
	struct hs_job_params jobs[HS_MAX_JOBS];
};

/* The jobs in block when pattern is jobs (block its settings), else NULL. */
const struct hs_jobs_settings *
hs_jobs_of(const struct hs_pattern_ops *pattern,
	   const struct hs_pattern_settings *block);

#endif /* OFAN_HS_JOB_H */
