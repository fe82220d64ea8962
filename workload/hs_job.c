/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Training jobs from a few numbers (hs_job.h): the [job.NAME] sections,
 * the presets, the placement and the dense and MoE shapes.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hs_chakra.h"
#include "hs_job.h"
#include "hs_traffic.h"
#include "hs_workload.h"
#include "ofan_config.h"
#include "ofan_registry.h"
#include "ofan_rng.h"

const char *const hs_job_model_names[] = { "dense", "moe", "chakra", NULL };
const char *const hs_job_place_names[] = {
	"packed", "spread", "random", "list", NULL
};

#define RTE_DIM_JOB(a) (sizeof(a) / sizeof((a)[0]))

/* RNG stream of random placement (ASCII "place"). */
#define HS_PLACE_STREAM 0x706c616365ull

/*
 * Presets: the shapes of two published models (what a layer is), which a
 * section may shrink with its own keys (layers, seq_len: a run moves
 * every byte as packets).
 *   llama2-7b: Llama 2 (Touvron et al., 2023, arXiv 2307.09288, Table
 *     1 and the released config.json): hidden 4096, 32 layers, SwiGLU
 *     MLP of 11008, context 4096.
 *   mixtral-8x7b: Mixtral of Experts (Jiang et al., 2024, arXiv
 *     2401.04088, Table 1): hidden 4096, 32 layers, 8 experts of a
 *     14336 SwiGLU MLP, 2 experts a token, context 32768 (trained here
 *     at 4096).
 * Both at 2 bytes a value (bf16).
 */
struct hs_job_preset {
	const char *name;
	uint8_t model;
	uint32_t layers;
	uint64_t hidden, ffn, seq_len;
	uint32_t experts, top_k;
};

static const struct hs_job_preset hs_job_presets[] = {
	{ "llama2-7b", HS_JOB_DENSE, 32, 4096, 11008, 4096, 0, 0 },
	{ "mixtral-8x7b", HS_JOB_MOE, 32, 4096, 14336, 4096, 8, 2 },
};

static const char *const hs_job_preset_names[] = {
	"none", "llama2-7b", "mixtral-8x7b", NULL
};

void
hs_job_defaults(struct hs_job_params *j)
{
	memset(j, 0, sizeof(*j));
	j->model = HS_JOB_DENSE;
	j->shape = hs_job_shape_registry[HS_JOB_DENSE];
	j->dp = j->tp = j->pp = j->ep = 1;
	j->layers = 4;
	j->hidden = 1024;
	j->ffn = 0;		/* Llama's rule from hidden */
	j->seq_len = 1024;
	j->micro_batch = 1;
	j->micro_batches = 1;
	j->bytes_per_param = 2;
	j->grad_buckets = 1;
	j->overlap = true;
	j->flops = 100000000000000ull;	/* 100 TFLOP/s sustained */
	j->experts = 8;
	j->top_k = 2;
	j->iterations = 1;
	j->placement = HS_PLACE_PACKED;
}

/* Llama's MLP width: 2/3 of 4 h, rounded up to a multiple of 256. */
static uint64_t
hs_job_ffn(const struct hs_job_params *j)
{
	uint64_t f = j->ffn;

	if (f == 0)
		f = (8 * j->hidden / 3 + 255) / 256 * 256;
	return f;
}

/* The keys of the built-in shapes, which a trace replaces. */
static const char *const hs_job_shape_keys[] = {
	"preset", "dp", "tp", "pp", "ep", "layers", "hidden", "ffn",
	"seq_len", "micro_batch", "micro_batches", "bytes_per_param",
	"grad_buckets", "overlap", "tflops", "experts", "top_k", NULL
};

/*
 * A trace of as many files as the job has ranks: no PREFIX.0.et is the
 * trace key's fault, any other count the ranks key's, or the trace's
 * when an override set it and not ranks (ofan_cfg_blame()).
 */
static int
hs_job_trace_files(struct ofan_cfg *cfg, const char *sec,
		   const struct hs_job_params *j)
{
	uint32_t n = hs_chakra_count(j->trace);
	char msg[1400];

	if (n == 0)
		return ofan_cfg_fail(cfg, sec, "trace",
			"'%s': no file %s.0.et; expected the PREFIX of the trace's files (PREFIX.0.et, PREFIX.1.et, ...)",
			j->trace, j->trace);
	if (n != j->ranks && ofan_cfg_blame2(cfg, sec, "ranks", "trace") == 1)
		return ofan_cfg_fail(cfg, sec, "trace",
			"'%s' has %u files (%s.0.et .. %s.%u.et), %s than ranks = %u; expected a trace of %u files, or ranks = %u",
			j->trace, n, j->trace, j->trace, n - 1,
			n < j->ranks ? "fewer" : "more", j->ranks, j->ranks, n);
	if (n < j->ranks)
		return ofan_cfg_fail(cfg, sec, "ranks",
			"'%u' ranks, but the trace has %u files (%s.0.et .. %s.%u.et; no %s.%u.et); expected ranks = %u, or the missing files",
			j->ranks, n, j->trace, j->trace, n - 1, j->trace, n, n);
	if (n > j->ranks)
		return ofan_cfg_fail(cfg, sec, "ranks",
			"'%u' ranks, but the trace has %u files (%s.0.et .. %s.%u.et); expected ranks = %u",
			j->ranks, n, j->trace, j->trace, n - 1, n);
	if (hs_chakra_files(j->trace, j->ranks, msg, sizeof(msg)) != 0)
		return ofan_cfg_fail(cfg, sec, "trace", "'%s': %s", j->trace,
				     msg);
	return 0;
}

/*
 * Cross-key rules of a job (ofan_config.h, "Cross-key checks"): a value
 * the section leaves out but its preset gives comes from the preset's
 * key, so that rules name what the user wrote.
 */
struct hs_job_keys {
	struct ofan_cfg *cfg;
	const char *sec;
	int preset;		/* index in hs_job_preset_names, 0: none */
};

/* The key a value of key comes from: key, or preset. */
static const char *
hs_job_src(const struct hs_job_keys *k, const char *key)
{
	static const char *const shape[] = {
		"model", "layers", "hidden", "ffn", "seq_len", NULL
	};
	const struct hs_job_preset *p;
	unsigned int i;

	if (k->preset == 0 || ofan_cfg_has_key(k->cfg, k->sec, key))
		return key;
	p = &hs_job_presets[k->preset - 1];
	if (p->experts != 0 &&
	    (strcmp(key, "experts") == 0 || strcmp(key, "top_k") == 0))
		return "preset";
	for (i = 0; shape[i] != NULL; i++)
		if (strcmp(key, shape[i]) == 0)
			return "preset";
	return key;
}

/*
 * Which of names[0 .. n-1] (the section's keys, through hs_job_src())
 * and then extra[0 .. nb_extra-1] a broken rule blames: an index into
 * names, or n + i for extra[i].
 */
static int
hs_job_blame(const struct hs_job_keys *k, const char *const *names, int n,
	     const struct ofan_cfg_key *extra, int nb_extra)
{
	struct ofan_cfg_key keys[32];
	int i, nb = 0;

	for (i = 0; i < n && nb < (int)RTE_DIM_JOB(keys); i++)
		keys[nb++] = (struct ofan_cfg_key){ k->sec,
						     hs_job_src(k, names[i]) };
	for (i = 0; i < nb_extra && nb < (int)RTE_DIM_JOB(keys); i++)
		keys[nb++] = extra[i];
	return ofan_cfg_blame(k->cfg, keys, nb);
}

/*
 * The text of the value of names[b] (through hs_job_src()) as written,
 * or number when it is left out, into buf.
 */
static const char *
hs_job_text(const struct hs_job_keys *k, const char *name, uint64_t number,
	    char *buf, size_t size)
{
	const char *v = ofan_cfg_value(k->cfg, k->sec, hs_job_src(k, name));

	if (v != NULL)
		snprintf(buf, size, "%s", v);
	else
		snprintf(buf, size, "%" PRIu64, number);
	return buf;
}

/* model = chakra: ranks and trace, and none of the shape's keys. */
static int
hs_job_chakra(const struct hs_job_keys *k, struct hs_job_params *j)
{
	struct ofan_cfg *cfg = k->cfg;
	const char *sec = k->sec, *trace = NULL, *model;
	int i;

	if (ofan_cfg_get_u32(cfg, sec, "ranks", 0, 1, HS_MAX_RANKS,
			     &j->ranks) ||
	    ofan_cfg_get_str(cfg, sec, "trace", 0, &trace))
		return -EINVAL;
	model = hs_job_src(k, "model");
	if (j->model != HS_JOB_CHAKRA) {
		const char *key = trace != NULL ? "trace" : "ranks";

		if (trace == NULL && !ofan_cfg_has_key(cfg, sec, "ranks"))
			return 0;
		if (ofan_cfg_blame2(cfg, sec, key, model) == 1)
			return ofan_cfg_fail(cfg, sec, model,
				"'%s' with %s set; expected model = chakra, or no %s",
				ofan_cfg_value(cfg, sec, model), key, key);
		return ofan_cfg_fail(cfg, sec, key,
			"is given with model = %s; expected model = chakra",
			j->shape->name);
	}
	for (i = 0; hs_job_shape_keys[i] != NULL; i++) {
		const char *key = hs_job_shape_keys[i];

		if (!ofan_cfg_has_key(cfg, sec, key))
			continue;
		if (ofan_cfg_blame2(cfg, sec, key, "model") == 1)
			return ofan_cfg_fail(cfg, sec, "model",
				"'%s' with %s set; expected the trace to give the job's shape (no %s), or another model",
				ofan_cfg_value(cfg, sec, "model"), key, key);
		return ofan_cfg_fail(cfg, sec, key,
			"is given with model = chakra; expected the trace to give the job's shape (keys: ranks, trace, iterations, start, placement, hosts, seed)");
	}
	if (trace == NULL || !ofan_cfg_has_key(cfg, sec, "ranks")) {
		const char *key = trace == NULL ? "trace" : "ranks";

		/* Missing for a model an override chose: its mistake. */
		if (ofan_cfg_overridden(cfg, sec, "model"))
			return ofan_cfg_fail(cfg, sec, "model",
				"'%s' without %s; expected %s too, or another model",
				ofan_cfg_value(cfg, sec, "model"), key, key);
		return ofan_cfg_fail(cfg, sec, key,
			"missing; expected %s with model = chakra",
			trace == NULL ? "the traces' PREFIX (files PREFIX.0.et, PREFIX.1.et, ...)" :
			"the number of ranks (trace files)");
	}
	if (ofan_cfg_path_of(cfg, sec, "trace", trace, j->trace,
			     sizeof(j->trace)) != 0)
		return -EINVAL;
	return hs_job_trace_files(cfg, sec, j);
}

/*
 * A registered shape: the built-in shapes' keys mean nothing to it, its
 * own settings are its parse()'s.
 */
static int
hs_job_registered(const struct hs_job_keys *k, struct hs_job_params *j)
{
	const struct hs_job_shape_ops *ops = j->shape;
	struct ofan_cfg *cfg = k->cfg;
	const char *sec = k->sec;
	int i;

	if (j->model != HS_JOB_SHAPE)
		return 0;
	for (i = 0; hs_job_shape_keys[i] != NULL; i++) {
		const char *key = hs_job_shape_keys[i];

		if (!ofan_cfg_has_key(cfg, sec, key))
			continue;
		if (ofan_cfg_blame2(cfg, sec, key, "model") == 1)
			return ofan_cfg_fail(cfg, sec, "model",
				"'%s' with %s set; expected no %s, or a built-in model",
				ops->name, key, key);
		return ofan_cfg_fail(cfg, sec, key,
			"is given with model = %s, whose settings are its own; expected no %s",
			ops->name, key);
	}
	memset(j->shape_set, 0, ops->settings_size);
	if (ops->defaults != NULL)
		ops->defaults(j->shape_set);
	return ops->parse != NULL ? ops->parse(cfg, sec, j->shape_set) : 0;
}

/* The most bytes one message of a built-in shape may have. */
#define HS_JOB_MAX_MSG (1ull << 40)
/* The longest compute node: an hour. */
#define HS_JOB_MAX_NS (3600ull * 1000000000ull)

static uint64_t hs_job_ffn(const struct hs_job_params *j);

/*
 * Sizes and durations of the built-in shape within what the engine
 * counts: a message at most 1 TiB (activations x top_k, a stage's
 * gradients), a compute node at most an hour (a layer's backward, the
 * optimizer).  Each is a rule of a product of keys: on hidden (tflops),
 * or on the key of the product an override set.
 */
/* A job's value of a key of its shape, for a message. */
static uint64_t
hs_job_number(const struct hs_job_params *j, const char *key)
{
	return strcmp(key, "hidden") == 0 ? j->hidden :
	       strcmp(key, "ffn") == 0 ? hs_job_ffn(j) :
	       strcmp(key, "seq_len") == 0 ? j->seq_len :
	       strcmp(key, "micro_batch") == 0 ? j->micro_batch :
	       strcmp(key, "bytes_per_param") == 0 ? j->bytes_per_param :
	       strcmp(key, "layers") == 0 ? j->layers :
	       strcmp(key, "pp") == 0 ? j->pp :
	       strcmp(key, "top_k") == 0 ? j->top_k : j->experts;
}

static int
hs_job_too_big(const struct hs_job_keys *k, const struct hs_job_params *j)
{
	/* The keys of each product, the one the rule is stated from first. */
	static const char *const act_keys[] = {
		"hidden", "seq_len", "micro_batch", "bytes_per_param", "top_k",
	};
	static const char *const grad_keys[] = {
		"hidden", "ffn", "layers", "pp", "bytes_per_param", "experts",
	};
	static const char *const time_keys[] = {
		"tflops", "hidden", "ffn", "seq_len", "micro_batch", "layers",
		"pp", "top_k", "experts",
	};
	const bool moe = j->model == HS_JOB_MOE;
	unsigned __int128 T = (unsigned __int128)j->seq_len * j->micro_batch;
	unsigned __int128 h = j->hidden, f = hs_job_ffn(j), mlp = 3 * h * f;
	unsigned __int128 act = T * h * j->bytes_per_param;
	unsigned __int128 params = (4 * h * h + mlp * (moe ? j->experts : 1)) *
				   (j->layers / j->pp);
	unsigned __int128 layer = (2 * T * (4 * h * h + mlp *
				   (moe ? j->top_k : 1)) +
				   4 * T * j->seq_len * h) * 2;
	unsigned __int128 ns_layer = layer * 1000000000u / j->flops;
	unsigned __int128 ns_opt = 12 * params * 1000000000u / j->flops;
	const char *const *names, *what, *expect, *v;
	char text[64];
	int n, b;

	if (act * (moe ? j->top_k : 1) > HS_JOB_MAX_MSG ||
	    params * j->bytes_per_param > HS_JOB_MAX_MSG) {
		bool by_act = act * (moe ? j->top_k : 1) > HS_JOB_MAX_MSG;

		names = by_act ? act_keys : grad_keys;
		n = by_act ? (moe ? 5 : 4) : (moe ? 6 : 5);
		what = "a message of more than 1 TiB (activations x top_k, or a stage's gradients)";
		expect = "a smaller model or shorter sequences";
	} else if (ns_layer > HS_JOB_MAX_NS || ns_opt > HS_JOB_MAX_NS) {
		names = time_keys;
		n = moe ? 9 : 7;
		what = "a compute node (a layer's backward, or the optimizer) longer than an hour";
		expect = "a faster rank or a smaller model";
	} else {
		return 0;
	}
	b = hs_job_blame(k, names, n, NULL, 0);
	v = ofan_cfg_value(k->cfg, k->sec, "tflops");
	if (strcmp(names[b], "tflops") != 0)
		hs_job_text(k, names[b], hs_job_number(j, names[b]), text,
			    sizeof(text));
	else if (v != NULL)
		snprintf(text, sizeof(text), "%s", v);
	else
		snprintf(text, sizeof(text), "%g", (double)j->flops / 1e12);
	return ofan_cfg_fail(k->cfg, k->sec, hs_job_src(k, names[b]),
			     "'%s' makes %s; expected %s", text, what, expect);
}

/* MoE's rules: ep dividing dp and the experts, top_k at most the experts. */
static int
hs_job_moe_rules(const struct hs_job_keys *k, const struct hs_job_params *j)
{
	static const char *const dp_keys[] = { "ep", "dp" };
	static const char *const ex_keys[] = { "ep", "experts" };
	static const char *const top_keys[] = { "top_k", "experts" };
	bool by_preset = strcmp(hs_job_src(k, "experts"), "preset") == 0;
	struct ofan_cfg *cfg = k->cfg;
	const char *sec = k->sec;
	int b;

	if (j->dp % j->ep != 0 && hs_job_blame(k, dp_keys, 2, NULL,
						0) == 1)
		return ofan_cfg_fail(cfg, sec, "dp",
			"'%u' is not a multiple of ep = %u; expected a multiple of ep (expert parallelism runs over the data-parallel ranks)",
			j->dp, j->ep);
	if (j->dp % j->ep != 0)
		return ofan_cfg_fail(cfg, sec, "ep",
			"'%u' does not divide dp = %u; expected a divisor of dp (expert parallelism runs over the data-parallel ranks)",
			j->ep, j->dp);
	b = hs_job_blame(k, ex_keys, 2, NULL, 0);
	if (j->experts % j->ep != 0 && b == 1 && by_preset)
		return ofan_cfg_fail(cfg, sec, "preset",
			"'%s' has %u experts, which ep = %u does not divide; expected ep dividing the experts, or experts = a multiple of ep",
			ofan_cfg_value(cfg, sec, "preset"), j->experts,
			j->ep);
	if (j->experts % j->ep != 0 && b == 1)
		return ofan_cfg_fail(cfg, sec, "experts",
			"'%u' is not a multiple of ep = %u; expected a multiple of ep (a rank holds experts / ep of them)",
			j->experts, j->ep);
	if (j->experts % j->ep != 0)
		return ofan_cfg_fail(cfg, sec, "ep",
			"'%u' does not divide experts = %u; expected a divisor of the experts",
			j->ep, j->experts);
	b = hs_job_blame(k, top_keys, 2, NULL, 0);
	if (j->top_k > j->experts && b == 1 && by_preset)
		return ofan_cfg_fail(cfg, sec, "preset",
			"'%s' has %u experts, fewer than top_k = %u; expected top_k at most the experts",
			ofan_cfg_value(cfg, sec, "preset"), j->experts,
			j->top_k);
	if (j->top_k > j->experts && b == 1)
		return ofan_cfg_fail(cfg, sec, "experts",
			"'%u' is fewer than top_k = %u; expected at least top_k experts",
			j->experts, j->top_k);
	if (j->top_k > j->experts &&
	    strcmp(hs_job_src(k, "top_k"), "top_k") != 0)
		return ofan_cfg_fail(cfg, sec, "preset",
			"'%s' makes top_k = %u, more than experts = %u; expected top_k at most the experts",
			ofan_cfg_value(cfg, sec, "preset"), j->top_k,
			j->experts);
	if (j->top_k > j->experts)
		return ofan_cfg_fail(cfg, sec, "top_k",
			"'%u' is more than experts = %u; expected at most the experts",
			j->top_k, j->experts);
	return 0;
}

/* ep other than 1 with a model that is not moe. */
static int
hs_job_ep_rules(const struct hs_job_keys *k, const struct hs_job_params *j)
{
	const char *model = hs_job_src(k, "model");
	struct ofan_cfg *cfg = k->cfg;
	const char *sec = k->sec;

	if (!ofan_cfg_has_key(cfg, sec, "ep") || j->ep == 1)
		return 0;
	if (ofan_cfg_blame2(cfg, sec, "ep", model) == 1 &&
	    strcmp(model, "model") == 0)
		return ofan_cfg_fail(cfg, sec, model,
			"'%s' with ep = %u; expected model = moe, or ep = 1",
			ofan_cfg_value(cfg, sec, model), j->ep);
	if (ofan_cfg_blame2(cfg, sec, "ep", model) == 1)
		return ofan_cfg_fail(cfg, sec, model,
			"'%s' makes model = %s, with ep = %u; expected model = moe, or ep = 1",
			ofan_cfg_value(cfg, sec, model),
			j->shape->name, j->ep);
	return ofan_cfg_fail(cfg, sec, "ep",
		"'%u' with model = %s; expected 1, or model = moe",
		j->ep, j->shape->name);
}

/*
 * The rules between a job's keys, each key's own range checked before:
 * first those of two keys (a model's keys, pp dividing layers, ep, the
 * placement's hosts), then those of products (the ranks against the
 * hosts, the sizes), so that a key wrong by itself is named as such.
 */
static int
hs_job_rules(const struct hs_job_keys *k, const struct hs_job_params *j,
	     uint32_t nb_hosts, const struct ofan_cfg_key *hosts_from,
	     int nb_from)
{
	static const char *const rank_keys[] = { "dp", "tp", "pp", "ranks" };
	struct ofan_cfg *cfg = k->cfg;
	const char *sec = k->sec;
	uint64_t ranks = hs_job_ranks(j);
	int b;

	if (j->layers % j->pp != 0) {
		static const char *const keys[] = { "pp", "layers" };

		b = hs_job_blame(k, keys, 2, NULL, 0);
		if (b == 1 && strcmp(hs_job_src(k, "layers"), "preset") == 0)
			return ofan_cfg_fail(cfg, sec, "preset",
				"'%s' has %u layers, which pp = %u does not divide; expected pp dividing the layers, or layers = a multiple of pp",
				ofan_cfg_value(cfg, sec, "preset"), j->layers,
				j->pp);
		if (b == 1)
			return ofan_cfg_fail(cfg, sec, "layers",
				"'%u' is not a multiple of pp = %u; expected a multiple of pp (a stage is layers / pp of them)",
				j->layers, j->pp);
		return ofan_cfg_fail(cfg, sec, "pp",
			"'%u' does not divide layers = %u; expected a divisor of the layers (a stage is layers / pp of them)",
			j->pp, j->layers);
	}
	if (j->model == HS_JOB_MOE ? hs_job_moe_rules(k, j) != 0 :
	    hs_job_ep_rules(k, j) != 0)
		return -EINVAL;
	if (j->placement != HS_PLACE_LIST && j->nb_hosts != 0) {
		if (ofan_cfg_blame2(cfg, sec, "hosts", "placement") == 1)
			return ofan_cfg_fail(cfg, sec, "placement",
				"'%s' with hosts set; expected placement = list, or no hosts",
				ofan_cfg_value(cfg, sec, "placement"));
		return ofan_cfg_fail(cfg, sec, "hosts",
			"is given with placement = %s; expected placement = list",
			hs_job_place_names[j->placement]);
	}
	/* The products: the job's ranks, its sizes. */
	if (ranks > nb_hosts) {
		b = hs_job_blame(k, rank_keys, 4, hosts_from, nb_from);
		if (b >= 4)
			return ofan_cfg_fail(cfg, hosts_from[b - 4].sec,
				hosts_from[b - 4].key,
				"'%s' makes %u hosts, fewer than the %" PRIu64 " ranks of [%s]; expected at least %" PRIu64 " hosts (a host runs one rank)",
				ofan_cfg_value(cfg, hosts_from[b - 4].sec,
					       hosts_from[b - 4].key),
				nb_hosts, ranks, sec, ranks);
		if (j->model == HS_JOB_CHAKRA)
			return ofan_cfg_fail(cfg, sec, "ranks",
				"'%u' ranks; expected at most the %u hosts",
				j->ranks, nb_hosts);
		if (j->model == HS_JOB_SHAPE)
			return ofan_cfg_fail(cfg, sec, "model",
				"'%s' makes %" PRIu64 " ranks; expected at most the %u hosts",
				j->shape->name, ranks, nb_hosts);
		if (b == 3)	/* all of dp, tp and pp left out */
			b = 0;
		return ofan_cfg_fail(cfg, sec, rank_keys[b],
			"'%u' makes dp x tp x pp = %u x %u x %u = %" PRIu64 " ranks; expected at most the %u hosts",
			b == 0 ? j->dp : b == 1 ? j->tp : j->pp, j->dp, j->tp,
			j->pp, ranks, nb_hosts);
	}
	if (j->placement == HS_PLACE_LIST && j->nb_hosts != ranks) {
		static const char *const keys[] = {
			"hosts", "placement", "dp", "tp", "pp", "ranks",
		};

		b = hs_job_blame(k, keys, 6, NULL, 0);
		if (b == 1)
			return ofan_cfg_fail(cfg, sec, "placement",
				"'%s' with hosts listing %u hosts for %" PRIu64 " ranks; expected one host a rank, or another placement",
				ofan_cfg_value(cfg, sec, "placement"),
				j->nb_hosts, ranks);
		if (b >= 2)
			return ofan_cfg_fail(cfg, sec, keys[b],
				"'%s' makes %" PRIu64 " ranks, but hosts lists %u; expected one host a rank with placement = list",
				ofan_cfg_value(cfg, sec, keys[b]), ranks,
				j->nb_hosts);
		return ofan_cfg_fail(cfg, sec, "hosts",
			"lists %u hosts for %" PRIu64 " ranks; expected one host a rank with placement = list",
			j->nb_hosts, ranks);
	}
	if (j->model == HS_JOB_DENSE || j->model == HS_JOB_MOE)
		return hs_job_too_big(k, j);
	return 0;
}

static int
hs_job_one(struct ofan_cfg *cfg, const char *sec, uint32_t nb_hosts,
	   const struct ofan_cfg_key *hosts_from, int nb_from,
	   struct hs_job_params *j)
{
	int model = HS_JOB_DENSE, place = HS_PLACE_PACKED, preset = 0;
	const char *name = sec + strlen("job.");
	const char *shapes[HS_MAX_JOB_SHAPES + 1];
	struct hs_job_keys k = { .cfg = cfg, .sec = sec };
	double tflops;

	hs_job_defaults(j);
	if (strlen(name) >= sizeof(j->name))
		return ofan_cfg_fail(cfg, sec, "", "the name '%s' is too long; expected at most %zu characters",
				     name, sizeof(j->name) - 1);
	snprintf(j->name, sizeof(j->name), "%s", name);
	if (ofan_cfg_get_enum(cfg, sec, "preset", 0, hs_job_preset_names,
			      &preset))
		return -EINVAL;
	k.preset = preset;
	if (preset > 0) {
		const struct hs_job_preset *p = &hs_job_presets[preset - 1];

		j->model = p->model;
		j->layers = p->layers;
		j->hidden = p->hidden;
		j->ffn = p->ffn;
		j->seq_len = p->seq_len;
		if (p->experts != 0) {
			j->experts = p->experts;
			j->top_k = p->top_k;
		}
	}
	model = j->model;
	tflops = (double)j->flops / 1e12;
	hs_job_shape_name_list(shapes);
	if (ofan_cfg_get_enum(cfg, sec, "model", 0, shapes, &model) ||
	    ofan_cfg_get_u32(cfg, sec, "dp", 0, 1, 1u << 20, &j->dp) ||
	    ofan_cfg_get_u32(cfg, sec, "tp", 0, 1, 1u << 20, &j->tp) ||
	    ofan_cfg_get_u32(cfg, sec, "pp", 0, 1, 1u << 20, &j->pp) ||
	    ofan_cfg_get_u32(cfg, sec, "ep", 0, 1, 1u << 20, &j->ep) ||
	    ofan_cfg_get_u32(cfg, sec, "layers", 0, 1, 100000, &j->layers) ||
	    ofan_cfg_get_u64(cfg, sec, "hidden", 0, 1, 1u << 20, &j->hidden) ||
	    ofan_cfg_get_u64(cfg, sec, "ffn", 0, 1, 1u << 22, &j->ffn) ||
	    ofan_cfg_get_u64(cfg, sec, "seq_len", 0, 1, 1u << 22,
			     &j->seq_len) ||
	    ofan_cfg_get_u32(cfg, sec, "micro_batch", 0, 1, 1u << 16,
			     &j->micro_batch) ||
	    ofan_cfg_get_u32(cfg, sec, "micro_batches", 0, 1, 1u << 16,
			     &j->micro_batches) ||
	    ofan_cfg_get_u32(cfg, sec, "bytes_per_param", 0, 1, 8,
			     &j->bytes_per_param) ||
	    ofan_cfg_get_u32(cfg, sec, "grad_buckets", 0, 1, 1024,
			     &j->grad_buckets) ||
	    ofan_cfg_get_bool(cfg, sec, "overlap", 0, &j->overlap) ||
	    ofan_cfg_get_double(cfg, sec, "tflops", 0, 0.000001, 1000000.0,
				&tflops) ||
	    ofan_cfg_get_u32(cfg, sec, "experts", 0, 1, 1u << 16,
			     &j->experts) ||
	    ofan_cfg_get_u32(cfg, sec, "top_k", 0, 1, 1u << 16, &j->top_k) ||
	    ofan_cfg_get_u32(cfg, sec, "iterations", 0, 1, 100000,
			     &j->iterations) ||
	    ofan_cfg_get_time(cfg, sec, "start", 0, 0,
			      3600ull * 1000000000ull, &j->start_ns) ||
	    ofan_cfg_get_enum(cfg, sec, "placement", 0, hs_job_place_names,
			      &place) ||
	    ofan_cfg_get_u64(cfg, sec, "seed", 0, 0, UINT64_MAX, &j->seed) ||
	    ofan_cfg_get_u32_list(cfg, sec, "hosts", 0, 0, UINT32_MAX - 1,
				  j->hosts, HS_JOB_MAX_LIST, &j->nb_hosts))
		return -EINVAL;
	j->model = (uint8_t)(model < HS_JOB_SHAPE ? model : HS_JOB_SHAPE);
	j->shape = hs_job_shape_registry[model];
	j->placement = (uint8_t)place;
	if ((j->model != HS_JOB_SHAPE && hs_job_chakra(&k, j) != 0) ||
	    hs_job_registered(&k, j) != 0)
		return -EINVAL;
	j->flops = (uint64_t)llround(tflops * 1e12);
	j->seed_set = ofan_cfg_has_key(cfg, sec, "seed");
	return hs_job_rules(&k, j, nb_hosts, hosts_from, nb_from);
}

/*
 * The jobs up to secs[i] have used ranks, more than nb_hosts: on a key
 * of their ranks (dp, tp, pp or ranks), secs[i]'s first, or on one of
 * hosts_from, whichever an override set (ofan_cfg_blame()).
 */
static int
hs_job_too_many(struct ofan_cfg *cfg, const char *const *secs, int i,
		uint64_t used, uint32_t nb_hosts,
		const struct ofan_cfg_key *hosts_from, int nb_from)
{
	static const char *const rank_keys[] = { "dp", "tp", "pp", "ranks" };
	struct ofan_cfg_key keys[4 * HS_MAX_JOBS + 16];
	int n = 0, m, r, b;

	for (m = i; m >= 0; m--)
		for (r = 0; r < 4; r++)
			keys[n++] = (struct ofan_cfg_key){ secs[m],
							   rank_keys[r] };
	for (m = 0; m < nb_from && n < (int)RTE_DIM_JOB(keys); m++)
		keys[n++] = hosts_from[m];
	b = ofan_cfg_blame(cfg, keys, n);
	if (b >= 4 * (i + 1))
		return ofan_cfg_fail(cfg, keys[b].sec, keys[b].key,
			"'%s' makes %u hosts, fewer than the %" PRIu64 " ranks of the jobs up to [%s]; expected at least %" PRIu64 " hosts (a host runs one rank)",
			ofan_cfg_value(cfg, keys[b].sec, keys[b].key),
			nb_hosts, used, secs[i], used);
	if (ofan_cfg_value(cfg, keys[b].sec, keys[b].key) == NULL)
		return ofan_cfg_fail(cfg, secs[i], "dp",
			"the jobs so far have %" PRIu64 " ranks; expected at most the %u hosts (a host runs one rank)",
			used, nb_hosts);
	return ofan_cfg_fail(cfg, keys[b].sec, keys[b].key,
		"'%s' makes the jobs up to [%s] %" PRIu64 " ranks; expected at most the %u hosts (a host runs one rank)",
		ofan_cfg_value(cfg, keys[b].sec, keys[b].key), secs[i], used,
		nb_hosts);
}

int
hs_job_from_cfg(struct ofan_cfg *cfg, uint32_t nb_hosts,
		struct hs_job_params *jobs)
{
	return hs_job_from_cfg_keys(cfg, nb_hosts, NULL, 0, jobs);
}

int
hs_job_from_cfg_keys(struct ofan_cfg *cfg, uint32_t nb_hosts,
		     const struct ofan_cfg_key *hosts_from, int nb_from,
		     struct hs_job_params *jobs)
{
	const char *secs[HS_MAX_JOBS + 1];
	uint64_t used = 0;
	int n, i;

	n = ofan_cfg_sections(cfg, "job.", secs, HS_MAX_JOBS + 1);
	if (n == 0)
		return ofan_cfg_fail(cfg, "traffic", "pattern",
			"'jobs' without a [job.NAME] section; expected at least one job");
	if (n > HS_MAX_JOBS)
		return ofan_cfg_fail(cfg, secs[HS_MAX_JOBS], "",
			"is job %d; expected at most %d jobs", n, HS_MAX_JOBS);
	for (i = 0; i < n; i++) {
		if (hs_job_one(cfg, secs[i], nb_hosts, hosts_from, nb_from,
			       &jobs[i]) != 0)
			return -EINVAL;
		used += hs_job_ranks(&jobs[i]);
		if (used > nb_hosts)
			return hs_job_too_many(cfg, secs, i, used, nb_hosts,
					       hosts_from, nb_from);
	}
	return n;
}

/* ---- placement ---- */

static int
hs_job_place(const struct hs_job_params *j, uint32_t nb_hosts,
	     uint32_t tor_size, uint64_t seed, uint8_t *taken, uint32_t *host,
	     char *err, size_t err_size)
{
	uint32_t n = (uint32_t)hs_job_ranks(j), nb_free = 0, i, k = 0;
	uint32_t *free_hosts;

	if (j->placement == HS_PLACE_LIST) {
		for (i = 0; i < n; i++) {
			if (j->hosts[i] >= nb_hosts || taken[j->hosts[i]]) {
				snprintf(err, err_size, "job %s: host %u (rank %u) %s; expected a free host below %u",
					 j->name, j->hosts[i], i,
					 j->hosts[i] >= nb_hosts ?
					 "does not exist" : "is taken",
					 nb_hosts);
				return -EINVAL;
			}
			taken[j->hosts[i]] = 1;
			host[i] = j->hosts[i];
		}
		return 0;
	}
	free_hosts = malloc(sizeof(*free_hosts) * (nb_hosts + 1));
	if (free_hosts == NULL)
		return -ENOMEM;
	for (i = 0; i < nb_hosts; i++)
		if (!taken[i])
			free_hosts[nb_free++] = i;
	if (nb_free < n) {
		snprintf(err, err_size, "job %s: %u ranks, %u hosts free; expected fewer ranks",
			 j->name, n, nb_free);
		free(free_hosts);
		return -EINVAL;
	}
	if (j->placement == HS_PLACE_RANDOM) {
		struct ofan_rng rng;

		ofan_rng_seed(&rng, j->seed_set ? j->seed : seed,
			      HS_PLACE_STREAM);
		for (i = nb_free; i > 1; i--) {
			uint32_t x = ofan_rng_below(&rng, i), t;

			t = free_hosts[i - 1];
			free_hosts[i - 1] = free_hosts[x];
			free_hosts[x] = t;
		}
	}
	if (j->placement == HS_PLACE_SPREAD) {
		uint32_t nb_tors, round, tor;

		if (tor_size == 0)
			tor_size = nb_hosts;
		nb_tors = (nb_hosts + tor_size - 1) / tor_size;
		/* The round-th free host of each ToR in turn. */
		for (round = 0; k < n && round < tor_size; round++)
			for (tor = 0; k < n && tor < nb_tors; tor++) {
				uint32_t seen = 0;

				for (i = 0; i < nb_free; i++)
					if (free_hosts[i] / tor_size == tor &&
					    seen++ == round)
						break;
				if (i < nb_free)
					host[k++] = free_hosts[i];
			}
	} else {
		for (k = 0; k < n; k++)
			host[k] = free_hosts[k];
	}
	for (i = 0; i < n; i++)
		taken[host[i]] = 1;
	free(free_hosts);
	return 0;
}

/* ---- shapes ---- */

/* ns to compute flop FLOP at rate FLOP/s, rounded up. */
static uint64_t
hs_job_ns(unsigned __int128 flop, uint64_t rate)
{
	unsigned __int128 ns = (flop * 1000000000u + rate - 1) / rate;

	return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* One rank's program: each node after the previous one. */
struct hs_prog {
	struct hs_workload *w;
	uint32_t rank;
	int32_t prev;		/* the last node, -1 before the first */
	int rc;
};

/* Add a node after the program's last one and extra; its index. */
static int32_t
hs_prog_add(struct hs_prog *p, struct hs_wl_node n, const char *name,
	    const uint32_t *extra, uint32_t nb_extra, bool chain)
{
	uint32_t deps[8], nb = 0, i;
	int id;

	if (p->rc != 0)
		return -1;
	if (p->prev >= 0)
		deps[nb++] = (uint32_t)p->prev;
	for (i = 0; i < nb_extra && nb < 8; i++)
		deps[nb++] = extra[i];
	n.rank = p->rank;
	id = hs_wl_add_node(p->w, &n, name, deps, nb);
	if (id < 0) {
		p->rc = id;
		return -1;
	}
	if (chain)
		p->prev = id;
	return id;
}

static void
hs_prog_comp(struct hs_prog *p, uint64_t ns, const char *name)
{
	struct hs_wl_node n = { .kind = HS_WL_COMP, .dur_ns = ns };

	hs_prog_add(p, n, name, NULL, 0, true);
}

static void
hs_prog_coll(struct hs_prog *p, uint8_t coll, uint32_t comm, uint64_t size,
	     const char *name)
{
	struct hs_wl_node n = { .kind = HS_WL_COLL, .coll = coll,
				.comm = comm, .size = size };

	hs_prog_add(p, n, name, NULL, 0, true);
}

static void
hs_prog_p2p(struct hs_prog *p, uint8_t kind, uint32_t peer, uint32_t tag,
	    uint64_t size, const char *name)
{
	struct hs_wl_node n = { .kind = kind, .peer = peer, .tag = tag,
				.size = size };

	hs_prog_add(p, n, name, NULL, 0, true);
}

/* What every rank of a job shares: sizes, durations, communicators. */
struct hs_shape {
	const struct hs_job_params *j;
	bool moe;
	uint32_t stage_layers;
	uint64_t act;			/* bytes of one activation */
	uint64_t attn_f, mlp_f;		/* ns, forward; backward is 2x */
	uint64_t dense_params;		/* per rank and layer (over tp) */
	uint64_t expert_params;		/* per rank and layer (MoE) */
	/* Communicators by group, UINT32_MAX where the group is one rank. */
	uint32_t *tp_comm, *dp_comm, *ep_comm, *edp_comm;
};

static uint32_t
hs_rank_of(const struct hs_job_params *j, uint32_t d, uint32_t s, uint32_t t)
{
	return (d * j->pp + s) * j->tp + t;
}

/* Add the communicators: tensor, data, expert and expert-data groups. */
static int
hs_shape_comms(struct hs_workload *w, struct hs_shape *sh)
{
	const struct hs_job_params *j = sh->j;
	uint32_t nr = (uint32_t)hs_job_ranks(j), d, s, t, k, r;
	uint32_t *m = malloc(sizeof(*m) * (nr + 1));
	uint32_t edp = sh->moe ? j->dp / j->ep : j->dp;
	int c;

	sh->tp_comm = malloc(sizeof(uint32_t) * nr);
	sh->dp_comm = malloc(sizeof(uint32_t) * nr);
	sh->ep_comm = malloc(sizeof(uint32_t) * nr);
	sh->edp_comm = malloc(sizeof(uint32_t) * nr);
	if (m == NULL || sh->tp_comm == NULL || sh->dp_comm == NULL ||
	    sh->ep_comm == NULL || sh->edp_comm == NULL) {
		free(m);
		return -ENOMEM;
	}
	for (r = 0; r < nr; r++)
		sh->tp_comm[r] = sh->dp_comm[r] = sh->ep_comm[r] =
			sh->edp_comm[r] = UINT32_MAX;
	for (d = 0; d < j->dp; d++)
		for (s = 0; s < j->pp; s++) {
			if (j->tp < 2)
				break;
			for (t = 0; t < j->tp; t++)
				m[t] = hs_rank_of(j, d, s, t);
			if ((c = hs_wl_add_comm(w, m, j->tp)) < 0)
				goto oom;
			for (t = 0; t < j->tp; t++)
				sh->tp_comm[m[t]] = (uint32_t)c;
		}
	for (s = 0; s < j->pp; s++)
		for (t = 0; t < j->tp; t++) {
			if (j->dp >= 2) {
				for (d = 0; d < j->dp; d++)
					m[d] = hs_rank_of(j, d, s, t);
				if ((c = hs_wl_add_comm(w, m, j->dp)) < 0)
					goto oom;
				for (d = 0; d < j->dp; d++)
					sh->dp_comm[m[d]] = (uint32_t)c;
			}
			if (!sh->moe)
				continue;
			/* Experts: ep consecutive data-parallel ranks share
			 * their tokens; ranks ep apart hold the same experts. */
			for (k = 0; j->ep >= 2 && k < j->dp / j->ep; k++) {
				for (d = 0; d < j->ep; d++)
					m[d] = hs_rank_of(j, k * j->ep + d, s, t);
				if ((c = hs_wl_add_comm(w, m, j->ep)) < 0)
					goto oom;
				for (d = 0; d < j->ep; d++)
					sh->ep_comm[m[d]] = (uint32_t)c;
			}
			for (k = 0; edp >= 2 && k < j->ep; k++) {
				for (d = 0; d < edp; d++)
					m[d] = hs_rank_of(j, d * j->ep + k, s, t);
				if ((c = hs_wl_add_comm(w, m, edp)) < 0)
					goto oom;
				for (d = 0; d < edp; d++)
					sh->edp_comm[m[d]] = (uint32_t)c;
			}
		}
	free(m);
	return 0;
oom:
	free(m);
	return -ENOMEM;
}

/* One layer's forward (bwd = false) or backward on one rank. */
static void
hs_shape_layer(struct hs_prog *p, const struct hs_shape *sh, uint32_t r,
	       bool bwd, uint32_t mb, uint32_t l)
{
	const struct hs_job_params *j = sh->j;
	const uint64_t x = bwd ? 2 : 1;
	const char *dir = bwd ? "bwd" : "fwd";
	char name[96];

#define HS_NAME(what) (snprintf(name, sizeof(name), "%s.mb%u.l%u.%s", dir, \
				mb, l, what), name)
	if (!bwd)
		hs_prog_comp(p, sh->attn_f, HS_NAME("attn"));
	if (sh->tp_comm[r] != UINT32_MAX)
		hs_prog_coll(p, HS_COLL_ALLREDUCE, sh->tp_comm[r], sh->act,
			     HS_NAME("tp_allreduce"));
	if (sh->moe && sh->ep_comm[r] != UINT32_MAX)
		hs_prog_coll(p, HS_COLL_ALLTOALL, sh->ep_comm[r],
			     sh->act * j->top_k, HS_NAME(bwd ? "combine" :
							 "dispatch"));
	hs_prog_comp(p, sh->mlp_f * x, HS_NAME(sh->moe ? "experts" : "mlp"));
	if (sh->moe && sh->ep_comm[r] != UINT32_MAX)
		hs_prog_coll(p, HS_COLL_ALLTOALL, sh->ep_comm[r],
			     sh->act * j->top_k, HS_NAME(bwd ? "dispatch" :
							 "combine"));
	if (sh->tp_comm[r] != UINT32_MAX)
		hs_prog_coll(p, HS_COLL_ALLREDUCE, sh->tp_comm[r], sh->act,
			     HS_NAME("tp_allreduce2"));
	if (bwd)
		hs_prog_comp(p, sh->attn_f * x, HS_NAME("attn"));
#undef HS_NAME
}

/* Micro-batch mb through the rank's stage, forward or backward. */
static void
hs_shape_pass(struct hs_prog *p, const struct hs_shape *sh, uint32_t d,
	      uint32_t s, uint32_t t, bool bwd, uint32_t mb,
	      uint32_t *last_bwd)
{
	const struct hs_job_params *j = sh->j;
	uint32_t r = hs_rank_of(j, d, s, t), l, k;
	char name[64];

	if (!bwd && s > 0) {
		snprintf(name, sizeof(name), "fwd.mb%u.recv_act", mb);
		hs_prog_p2p(p, HS_WL_RECV, hs_rank_of(j, d, s - 1, t), 2 * mb,
			    sh->act, name);
	}
	if (bwd && s + 1 < j->pp) {
		snprintf(name, sizeof(name), "bwd.mb%u.recv_grad", mb);
		hs_prog_p2p(p, HS_WL_RECV, hs_rank_of(j, d, s + 1, t),
			    2 * mb + 1, sh->act, name);
	}
	for (k = 0; k < sh->stage_layers; k++) {
		l = bwd ? sh->stage_layers - 1 - k : k;
		hs_shape_layer(p, sh, r, bwd, mb, s * sh->stage_layers + l);
		if (bwd && last_bwd != NULL)
			last_bwd[l] = (uint32_t)p->prev;
	}
	if (!bwd && s + 1 < j->pp) {
		snprintf(name, sizeof(name), "fwd.mb%u.send_act", mb);
		hs_prog_p2p(p, HS_WL_SEND, hs_rank_of(j, d, s + 1, t), 2 * mb,
			    sh->act, name);
	}
	if (bwd && s > 0) {
		snprintf(name, sizeof(name), "bwd.mb%u.send_grad", mb);
		hs_prog_p2p(p, HS_WL_SEND, hs_rank_of(j, d, s - 1, t),
			    2 * mb + 1, sh->act, name);
	}
}

/* The gradient all-reduces and the optimizer step of one rank. */
static void
hs_shape_grads(struct hs_prog *p, const struct hs_shape *sh, uint32_t r,
	       const uint32_t *last_bwd)
{
	const struct hs_job_params *j = sh->j;
	uint32_t L = sh->stage_layers, nb = j->grad_buckets < L ?
		j->grad_buckets : L, k, after[2], nb_after;
	uint32_t waits[2 * 1024 + 1], nw = 0;
	int32_t end = p->prev, last[2] = { -1, -1 };
	char name[64];
	int id;

	for (k = 0; k < nb; k++) {
		/* Bucket k: the top layers first, as backward makes them. */
		uint32_t hi = L - k * L / nb, lo = L - (k + 1) * L / nb;
		uint32_t g;

		for (g = 0; g < 2; g++) {
			uint32_t comm = g == 0 ? sh->dp_comm[r] :
				sh->edp_comm[r];
			uint64_t per = g == 0 ? sh->dense_params :
				sh->expert_params;
			struct hs_wl_node n = {
				.kind = HS_WL_COLL, .coll = HS_COLL_ALLREDUCE,
				.comm = comm,
				.size = per * (hi - lo) * j->bytes_per_param,
			};

			if (comm == UINT32_MAX || n.size == 0)
				continue;
			nb_after = 0;
			after[nb_after++] = j->overlap ? last_bwd[lo] :
				(uint32_t)end;
			/* A stream's collectives run in order. */
			if (last[g] >= 0)
				after[nb_after++] = (uint32_t)last[g];
			snprintf(name, sizeof(name), "grad.b%u.%s", k,
				 g == 0 ? "dp_allreduce" : "expert_allreduce");
			{
				int32_t saved = p->prev;

				p->prev = -1;
				id = hs_prog_add(p, n, name, after, nb_after,
						 false);
				p->prev = saved;
			}
			if (id < 0)
				return;
			last[g] = id;
			if (nw < 2 * 1024)
				waits[nw++] = (uint32_t)id;
		}
	}
	/* The optimizer: after the backward and every bucket's reduce
	 * (only the last of each stream: they run in order). */
	nw = 0;
	for (k = 0; k < 2; k++)
		if (last[k] >= 0)
			waits[nw++] = (uint32_t)last[k];
	{
		struct hs_wl_node n = {
			.kind = HS_WL_COMP,
			.dur_ns = hs_job_ns((unsigned __int128)12 *
				(sh->dense_params + sh->expert_params) * L,
				j->flops),
		};

		hs_prog_add(p, n, "optimizer", waits, nw, true);
	}
}

/* One job's nodes, every rank's program in 1F1B order. */
static int
hs_shape_job(struct hs_workload *w, const struct hs_job_params *j)
{
	struct hs_shape sh = { .j = j, .moe = j->model == HS_JOB_MOE };
	uint64_t T = j->seq_len * j->micro_batch, h = j->hidden;
	uint64_t f = hs_job_ffn(j), mlp = 3 * h * f;
	uint32_t d, s, t, i, m = j->micro_batches;
	uint32_t *last_bwd;
	int rc;

	sh.stage_layers = j->layers / j->pp;
	sh.act = T * h * j->bytes_per_param;
	sh.attn_f = hs_job_ns(((unsigned __int128)2 * T * 4 * h * h +
			       (unsigned __int128)4 * T * j->seq_len * h) /
			      j->tp, j->flops);
	sh.mlp_f = hs_job_ns((unsigned __int128)2 * T * mlp *
			     (sh.moe ? j->top_k : 1) / j->tp, j->flops);
	sh.dense_params = (4 * h * h + (sh.moe ? 0 : mlp)) / j->tp;
	sh.expert_params = sh.moe ? (uint64_t)j->experts / j->ep * mlp /
		j->tp : 0;
	last_bwd = malloc(sizeof(*last_bwd) * (sh.stage_layers + 1));
	rc = last_bwd == NULL ? -ENOMEM : hs_shape_comms(w, &sh);
	for (d = 0; rc == 0 && d < j->dp; d++)
		for (s = 0; rc == 0 && s < j->pp; s++)
			for (t = 0; rc == 0 && t < j->tp; t++) {
				struct hs_prog p = {
					.w = w, .rank = hs_rank_of(j, d, s, t),
					.prev = -1,
				};
				uint32_t warm = j->pp - s - 1 < m ?
					j->pp - s - 1 : m;

				for (i = 0; i < warm; i++)
					hs_shape_pass(&p, &sh, d, s, t, false,
						      i, NULL);
				for (i = 0; i < m - warm; i++) {
					hs_shape_pass(&p, &sh, d, s, t, false,
						      warm + i, NULL);
					hs_shape_pass(&p, &sh, d, s, t, true,
						      i, last_bwd);
				}
				for (i = m - warm; i < m; i++)
					hs_shape_pass(&p, &sh, d, s, t, true,
						      i, last_bwd);
				hs_shape_grads(&p, &sh, p.rank, last_bwd);
				rc = p.rc;
			}
	free(last_bwd);
	free(sh.tp_comm);
	free(sh.dp_comm);
	free(sh.ep_comm);
	free(sh.edp_comm);
	return rc;
}

int
hs_job_workload(const struct hs_job_params *jobs, uint32_t nb_jobs,
		uint32_t nb_hosts, uint32_t tor_size, uint64_t seed,
		struct hs_workload *w, char *err, size_t err_size)
{
	uint8_t *taken = calloc(nb_hosts + 1, 1);
	uint32_t *host = malloc(sizeof(*host) * (nb_hosts + 1));
	uint32_t k;
	int rc = 0;

	hs_wl_init(w, nb_hosts);
	if (taken == NULL || host == NULL)
		rc = -ENOMEM;
	for (k = 0; rc == 0 && k < nb_jobs; k++) {
		const struct hs_job_params *j = &jobs[k];

		rc = hs_job_place(j, nb_hosts, tor_size, seed, taken, host,
				  err, err_size);
		if (rc == 0) {
			rc = hs_wl_add_job(w, j->name,
					   (uint32_t)hs_job_ranks(j), host,
					   j->iterations, j->start_ns, err,
					   err_size);
			rc = rc < 0 ? rc : 0;
		}
		if (rc == 0)
			rc = j->shape->build(w, j, err, err_size);
	}
	if (rc == -ENOMEM)
		snprintf(err, err_size, "jobs: out of memory");
	free(taken);
	free(host);
	return rc;
}

/* ---- the shapes and their registry ---- */

static uint64_t
hs_builtin_ranks(const struct hs_job_params *j)
{
	return (uint64_t)j->dp * j->tp * j->pp;
}

static uint64_t
hs_chakra_ranks(const struct hs_job_params *j)
{
	return j->ranks;
}

static int
hs_builtin_build(struct hs_workload *w, const struct hs_job_params *j,
		 char *err, size_t err_size)
{
	(void)err;
	(void)err_size;
	return hs_shape_job(w, j);
}

static int
hs_chakra_build(struct hs_workload *w, const struct hs_job_params *j,
		char *err, size_t err_size)
{
	return hs_chakra_read(w, j->trace, err, err_size);
}

static const struct hs_job_shape_ops hs_shape_dense = {
	.name = "dense",
	.summary = "a dense transformer: data, tensor and pipeline parallel (the keys above)",
	.ranks = hs_builtin_ranks,
	.build = hs_builtin_build,
};

static const struct hs_job_shape_ops hs_shape_moe = {
	.name = "moe",
	.summary = "a mixture-of-experts transformer: dense's keys, ep, experts, top_k",
	.ranks = hs_builtin_ranks,
	.build = hs_builtin_build,
};

static const struct hs_job_shape_ops hs_shape_chakra = {
	.name = "chakra",
	.summary = "Chakra execution traces, one file a rank (ranks, trace)",
	.ranks = hs_chakra_ranks,
	.build = hs_chakra_build,
};

const struct hs_job_shape_ops *hs_job_shape_registry[HS_MAX_JOB_SHAPES + 1] = {
	&hs_shape_dense,	/* in enum hs_job_model's order */
	&hs_shape_moe,
	&hs_shape_chakra,
	NULL,
};

OFAN_REGISTRY_API(hs_job_shape, struct hs_job_shape_ops,
		  hs_job_shape_registry, HS_MAX_JOB_SHAPES)

int
hs_job_shape_register(const struct hs_job_shape_ops *ops)
{
	if (!hs_job_shape_reg_named(ops) || ops->ranks == NULL ||
	    ops->build == NULL ||
	    ops->settings_size > HS_JOB_SHAPE_SETTINGS_MAX ||
	    (ops->settings_size > 0 && ops->parse == NULL))
		return -EINVAL;
	return hs_job_shape_reg_add(ops);
}

/* ---- [traffic] pattern = jobs ---- */

_Static_assert(sizeof(struct hs_jobs_settings) <= HS_PATTERN_SETTINGS_MAX,
	       "the jobs' settings fit a pattern's block");

static const struct hs_jobs_settings *
jobs_of(const struct hs_traffic_params *p)
{
	return p->settings;
}

const struct hs_jobs_settings *
hs_jobs_of(const struct hs_pattern_ops *pattern,
	   const struct hs_pattern_settings *block)
{
	return pattern == &hs_pattern_jobs ?
		(const struct hs_jobs_settings *)block->b : NULL;
}

static int
parse_jobs(struct ofan_cfg *cfg, const struct hs_pattern_cfg *ctx,
	   void *settings)
{
	struct hs_jobs_settings *s = settings;
	const char *first;
	int n;

	/* None: check_jobs() says so, by [traffic] pattern. */
	if (ofan_cfg_sections(cfg, "job.", &first, 1) == 0)
		return 0;
	n = hs_job_from_cfg_keys(cfg, ctx->nb_ranks, ctx->ranks_from,
				 ctx->nb_ranks_from, s->jobs);
	if (n < 0)
		return -EINVAL;
	s->nb = (uint32_t)n;
	return 0;
}

static int
check_jobs(const struct hs_traffic_params *p, const char **key, char *msg,
	   unsigned int msg_size)
{
	if (jobs_of(p)->nb == 0) {
		*key = "pattern";
		snprintf(msg, msg_size, "'jobs' without a [job.NAME] section; expected at least one job");
		return -EINVAL;
	}
	return 0;
}

static int
build_jobs(const struct hs_traffic_params *p, struct hs_traffic *t,
	   struct hs_workload **wl, char *err, unsigned int err_size)
{
	const struct hs_jobs_settings *s = jobs_of(p);
	struct hs_workload *w;
	int rc;

	if (wl == NULL) {
		snprintf(err, err_size, "traffic: pattern jobs makes a workload, which this program does not run");
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	rc = hs_job_workload(s->jobs, s->nb, p->nb_ranks, p->tor_size,
			     p->seed, w, err, err_size);
	if (rc == 0)
		rc = hs_wl_build(w, t, err, err_size);
	if (rc != 0) {
		hs_wl_free(w);
		free(w);
		return rc;
	}
	*wl = w;
	return 0;
}

const struct hs_pattern_ops hs_pattern_jobs = {
	.name = "jobs",
	.summary = "training jobs ([job.NAME]): compute, collectives, dependencies",
	.settings_size = sizeof(struct hs_jobs_settings),
	.parse = parse_jobs,
	.sections = "job.",
	.example = "[job.NAME]\nmodel = dense\n",
	.origin = "the [job.NAME] sections",
	.check = check_jobs,
	.build = build_jobs,
};
