/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in traffic patterns and their registry (hs_pattern.h).
 *
 * Flow order and shapes, per iteration (ids are list indexes; the driver,
 * hs_pattern_build(), repeats an iteration and chains the iterations):
 *  - permutation: flow i is rank i -> d(i), where d is a derangement drawn
 *    uniformly (Fisher-Yates, redrawn while it has a fixed point; about
 *    e = 2.7 draws on average) from an RNG seeded with params->seed.  The
 *    same derangement is repeated in every iteration, so iterations differ
 *    only in time.
 *  - alltoall: N - 1 rounds; in round d (1 .. N-1) every rank i sends to
 *    (i + d) mod N, ids round-major.  Rank i thus meets i+1, i+2, ... in
 *    that order and no destination is hit by everybody at once.  All
 *    flows of an iteration share start_ns: the host paces them.  Rank r
 *    receives last (round N-1) from rank r+1, so its next iteration waits
 *    for that one flow, not for all N - 1 of them.
 *  - ring_allreduce: 2(N-1) steps, allgather and reduce_scatter N-1 steps;
 *    in step s rank r sends ceil(size / N) bytes to (r + 1) mod N, ids
 *    step-major.  Step s > 0 of rank r depends on step s - 1 from rank
 *    r - 1, i.e. on the chunk it must receive before forwarding.
 *  - incast: rank j (1 .. incast_degree) sends to rank 0, in that order.
 *    The senders receive nothing, so every iteration of every sender
 *    starts at start_ns: iterations of an incast overlap.
 *  - tornado: rank i sends to (i + floor(N/2)) mod N; for odd N that is
 *    the rank just before the opposite point of the ring.
 *  - cm: the file (hs_cm.c), once (iterations must be 1), every start
 *    time shifted by params->start_ns.
 *  - ring, podring, podring_ol, torring: the study's structured
 *    permutations, built by the rules of htsim's generators (its
 *    connection_matrices/gen_permutation_*.py) so that they equal the
 *    authors' .cm files; P = pod_size, T = tor_size hosts:
 *      ring        s -> s + 1 (mod N);
 *      podring     s -> s + P; past the last pod, d = ((s + P) mod N + 1)
 *                  mod P, so the last pod wraps into pod 0 rotated by one;
 *      podring_ol  "one less": the first host of each pod sends to its ToR
 *                  neighbour, the others to the same position in the next
 *                  pod (in the last pod d = (d_prev + 1) mod P, d_prev the
 *                  previous line's destination, as the generator does),
 *                  and a destination at position 1 moves to position 0;
 *      torring     the first host of each ToR sends to its neighbour, the
 *                  others to the same position in the next pod, moved to
 *                  the ToR's first host for the second host of a ToR.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_pattern.h"
#include "hs_traffic.h"
#include "ofan_registry.h"
#include "ofan_rng.h"

/* RNG stream of the permutation (ASCII "perm"), independent of others. */
#define HS_PERM_STREAM 0x7065726dull

static void
set_flow(struct hs_flow_spec *f, uint32_t src, uint32_t dst, uint64_t size)
{
	f->src = src;
	f->dst = dst;
	f->size = size;
}

static uint64_t
one_per_rank(const struct hs_traffic_params *p)
{
	return p->nb_ranks;
}

/* ---- permutation ---- */

static void
fill_permutation(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	uint32_t n = p->nb_ranks, i, j, tmp;
	struct ofan_rng rng;
	bool fixed;

	for (i = 0; i < n; i++)
		set_flow(&f[i], i, i, p->size);
	ofan_rng_seed(&rng, p->seed, HS_PERM_STREAM);
	/*
	 * Rejection keeps every derangement equally likely (Sattolo's
	 * algorithm would only ever give a single n-cycle).  A shuffle of
	 * any arrangement is uniform, so redraw from where we are.
	 */
	do {
		for (i = n; i > 1; i--) {
			j = ofan_rng_below(&rng, i);
			tmp = f[i - 1].dst;
			f[i - 1].dst = f[j].dst;
			f[j].dst = tmp;
		}
		fixed = false;
		for (i = 0; i < n && !fixed; i++)
			fixed = f[i].dst == i;
	} while (fixed);
}

static const struct hs_pattern_ops pattern_permutation = {
	.name = "permutation",
	.summary = "each rank to one other, a random derangement (seed)",
	.nb_flows = one_per_rank,
	.fill = fill_permutation,
};

/* ---- alltoall ---- */

static uint64_t
nb_alltoall(const struct hs_traffic_params *p)
{
	return (uint64_t)p->nb_ranks * (p->nb_ranks - 1);
}

static void
fill_alltoall(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	uint32_t n = p->nb_ranks, d, i;

	for (d = 1; d < n; d++)
		for (i = 0; i < n; i++)
			set_flow(&f[(uint64_t)(d - 1) * n + i], i, (i + d) % n,
				 p->size);
}

static const struct hs_pattern_ops pattern_alltoall = {
	.name = "alltoall",
	.summary = "every rank to every other, in N - 1 rounds",
	.nb_flows = nb_alltoall,
	.fill = fill_alltoall,
};

/* ---- the ring collectives ---- */

/* steps ring steps of size / N per rank, each waiting for the previous. */
static void
fill_ring_steps(const struct hs_traffic_params *p, struct hs_flow_spec *f,
		uint32_t steps)
{
	uint32_t n = p->nb_ranks, s, r;
	/* Rounded up so that N chunks cover the buffer; size >= 1. */
	uint64_t chunk = p->size / n + (p->size % n != 0);
	struct hs_flow_spec *x;

	for (s = 0; s < steps; s++) {
		for (r = 0; r < n; r++) {
			x = &f[(uint64_t)s * n + r];
			set_flow(x, r, (r + 1) % n, chunk);
			x->step = s;
			if (s > 0)
				x->dep = (s - 1) * n + (r + n - 1) % n;
		}
	}
}

static uint64_t
nb_ring_allreduce(const struct hs_traffic_params *p)
{
	return hs_mul_sat(2 * ((uint64_t)p->nb_ranks - 1), p->nb_ranks);
}

/* The driver checked that every flow id fits in 32 bits. */
static void
fill_ring_allreduce(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	fill_ring_steps(p, f, 2 * (p->nb_ranks - 1));
}

static uint64_t
nb_ring_half(const struct hs_traffic_params *p)
{
	return hs_mul_sat((uint64_t)p->nb_ranks - 1, p->nb_ranks);
}

static void
fill_ring_half(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	fill_ring_steps(p, f, p->nb_ranks - 1);
}

static const struct hs_pattern_ops pattern_ring_allreduce = {
	.name = "ring_allreduce",
	.summary = "2(N-1) dependent ring steps of size/N",
	.nb_flows = nb_ring_allreduce,
	.fill = fill_ring_allreduce,
};

static const struct hs_pattern_ops pattern_allgather = {
	.name = "allgather",
	.summary = "N-1 dependent ring steps of size/N",
	.nb_flows = nb_ring_half,
	.fill = fill_ring_half,
};

static const struct hs_pattern_ops pattern_reduce_scatter = {
	.name = "reduce_scatter",
	.summary = "N-1 dependent ring steps of size/N",
	.nb_flows = nb_ring_half,
	.fill = fill_ring_half,
};

/* ---- incast ---- */

static void
incast_defaults(void *settings)
{
	struct hs_incast_settings *s = settings;

	s->degree = 1;
}

static int
incast_parse(struct ofan_cfg *cfg, const struct hs_pattern_cfg *ctx,
	     void *settings)
{
	struct hs_incast_settings *s = settings;

	(void)ctx;
	return ofan_cfg_get_u32(cfg, "traffic", "incast_degree", 0, 1,
				1u << 20, &s->degree);
}

static uint32_t
incast_degree(const struct hs_traffic_params *p)
{
	return ((const struct hs_incast_settings *)p->settings)->degree;
}

static int
check_incast(const struct hs_traffic_params *p, const char **key, char *msg,
	     unsigned int msg_size)
{
	uint32_t degree = incast_degree(p);

	if (degree >= 1 && degree < p->nb_ranks)
		return 0;
	*key = "incast_degree";
	snprintf(msg, msg_size,
		 "'%" PRIu32 "' senders with %" PRIu32
		 " ranks; expected 1 to %" PRIu32 " (fewer than the ranks)",
		 degree, p->nb_ranks, p->nb_ranks - 1);
	return -EINVAL;
}

static uint64_t
nb_incast(const struct hs_traffic_params *p)
{
	return incast_degree(p);
}

static void
fill_incast(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	uint32_t j, degree = incast_degree(p);

	for (j = 0; j < degree; j++)
		set_flow(&f[j], j + 1, 0, p->size);
}

static const char *const incast_ranks_keys[] = { "incast_degree", NULL };

static const struct hs_pattern_ops pattern_incast = {
	.name = "incast",
	.ranks_keys = incast_ranks_keys,
	.summary = "incast_degree ranks to rank 0",
	.settings_size = sizeof(struct hs_incast_settings),
	.defaults = incast_defaults,
	.parse = incast_parse,
	.check = check_incast,
	.nb_flows = nb_incast,
	.fill = fill_incast,
};

/* ---- tornado ---- */

static void
fill_tornado(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	uint32_t n = p->nb_ranks, i;

	for (i = 0; i < n; i++)
		set_flow(&f[i], i, (i + n / 2) % n, p->size);
}

static const struct hs_pattern_ops pattern_tornado = {
	.name = "tornado",
	.summary = "rank i to i + N/2",
	.nb_flows = one_per_rank,
	.fill = fill_tornado,
};

/* ---- the study's structured permutations (see the top) ---- */

/* Destination of s; d is the previous line's (podring_ol reads it). */
typedef uint32_t (*structured_dst)(const struct hs_traffic_params *p,
				   uint32_t s, uint32_t d);

static void
fill_structured(const struct hs_traffic_params *p, struct hs_flow_spec *f,
		structured_dst dst)
{
	uint32_t s, d = 0;

	for (s = 0; s < p->nb_ranks; s++) {
		d = dst(p, s, d);
		set_flow(&f[s], s, d, p->size);
	}
}

static uint32_t
dst_ring(const struct hs_traffic_params *p, uint32_t s, uint32_t d)
{
	(void)d;
	return (s + 1) % p->nb_ranks;
}

static uint32_t
dst_podring(const struct hs_traffic_params *p, uint32_t s, uint32_t d)
{
	uint32_t n = p->nb_ranks, P = p->pod_size;

	d = s + P;
	return d < n ? d : (d % n + 1) % P;
}

static uint32_t
dst_podring_ol(const struct hs_traffic_params *p, uint32_t s, uint32_t d)
{
	uint32_t n = p->nb_ranks, P = p->pod_size;

	if (s % P == 0)
		return s + 1;
	d = s + P < n ? s + P : (d % n + 1) % P;
	return d % P == 1 ? d - 1 : d;
}

static uint32_t
dst_torring(const struct hs_traffic_params *p, uint32_t s, uint32_t d)
{
	uint32_t P = p->pod_size, T = p->tor_size, npods = p->nb_ranks / P;

	(void)d;
	if (s % T == 0)
		return s + 1;
	d = (s / P + 1) % npods * P + s % P;
	return s % T == 1 ? d - 1 : d;
}

#define HS_STRUCTURED(id, text)						\
	static void							\
	fill_##id(const struct hs_traffic_params *p, struct hs_flow_spec *f) \
	{								\
		fill_structured(p, f, dst_##id);			\
	}								\
	static const struct hs_pattern_ops pattern_##id = {		\
		.name = #id,						\
		.summary = text,					\
		.needs_topology = true,					\
		.nb_flows = one_per_rank,				\
		.fill = fill_##id,					\
	}

HS_STRUCTURED(ring, "rank i to i + 1");
HS_STRUCTURED(podring, "to the same position in the next pod");
HS_STRUCTURED(podring_ol, "pod ring, one intra-ToR flow per pod");
HS_STRUCTURED(torring, "pod ring, one intra-ToR flow per ToR");

/* Ids are uint32 and HS_NO_DEP is reserved. */

static int
hs_fail(char *err, unsigned int err_size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
hs_fail(char *err, unsigned int err_size, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && err_size > 0) {
		va_start(ap, fmt);
		vsnprintf(err, err_size, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}


/*
 * Copy iteration 0 (flows [0, n)) into iterations 1 .. iterations-1.  A
 * flow without a dependency inside its iteration waits for the flow its
 * source received last (in list order) in the previous iteration, or for
 * nothing if its source receives nothing.
 */
static int
hs_chain_iterations(const struct hs_traffic_params *p, struct hs_flow_spec *f,
		    uint32_t n, char *err, unsigned int err_size)
{
	uint32_t *last_recv, k, j;
	struct hs_flow_spec *x;
	uint64_t base;

	for (j = 0; j < n; j++) {
		f[j].id = j;
		f[j].iteration = 0;
		f[j].start_ns = p->start_ns;
	}
	if (p->iterations == 1)
		return 0;
	last_recv = malloc(sizeof(*last_recv) * p->nb_ranks);
	if (last_recv == NULL) {
		hs_fail(err, err_size, "traffic: cannot allocate %" PRIu32
			" ranks", p->nb_ranks);
		return -ENOMEM;
	}
	for (j = 0; j < p->nb_ranks; j++)
		last_recv[j] = HS_NO_DEP;
	for (j = 0; j < n; j++)
		last_recv[f[j].dst] = j;
	for (k = 1; k < p->iterations; k++) {
		base = (uint64_t)k * n;
		for (j = 0; j < n; j++) {
			x = &f[base + j];
			*x = f[j];
			x->id = (uint32_t)(base + j);
			x->iteration = k;
			if (f[j].dep != HS_NO_DEP)
				x->dep = (uint32_t)(base + f[j].dep);
			else if (last_recv[f[j].src] != HS_NO_DEP)
				x->dep = (uint32_t)(base - n +
						    last_recv[f[j].src]);
		}
	}
	free(last_recv);
	return 0;
}

int
hs_pattern_build(const struct hs_traffic_params *p, struct hs_traffic *t,
		 struct hs_workload **wl, char *err, unsigned int err_size)
{
	const struct hs_pattern_ops *ops = p->pattern;
	uint64_t per_iter, total, i;
	struct hs_flow_spec *f;
	const char *key = "";
	char msg[256];
	int rc;

	memset(t, 0, sizeof(*t));
	if (wl != NULL)
		*wl = NULL;
	if (ops == NULL || hs_pattern_index(ops) < 0) {
		char list[512];

		hs_pattern_list(list, sizeof(list));
		return hs_fail(err, err_size,
			       "traffic: %s pattern; expected one of %s",
			       ops == NULL ? "no" : "an unregistered", list);
	}
	if (p->nb_ranks < 2)
		return hs_fail(err, err_size,
			       "traffic: nb_ranks is %" PRIu32
			       "; expected at least 2 ranks",
			       p->nb_ranks);
	if (p->iterations < 1)
		return hs_fail(err, err_size,
			       "traffic: iterations is 0; expected at least 1");
	if (ops->build == NULL && p->size < 1)
		return hs_fail(err, err_size,
			       "traffic: size is 0; expected at least 1 byte");
	if (hs_pattern_check(p, &key, msg, sizeof(msg)) != 0)
		return hs_fail(err, err_size, "traffic:%s: %s", key, msg);
	if (ops->settings_size > 0 && p->settings == NULL)
		return hs_fail(err, err_size,
			       "traffic: pattern %s without its settings",
			       ops->name);
	if (ops->build != NULL)
		return ops->build(p, t, wl, err, err_size);

	per_iter = ops->nb_flows(p);
	total = hs_mul_sat(per_iter, p->iterations);
	if (total > HS_MAX_FLOWS)
		return hs_fail(err, err_size,
			       "traffic: %s over %" PRIu32 " ranks x %" PRIu32
			       " iterations makes more than %" PRIu32
			       " flows; expected fewer ranks or iterations",
			       ops->name, p->nb_ranks,
			       p->iterations, (uint32_t)HS_MAX_FLOWS);
	f = calloc(total, sizeof(*f));
	if (f == NULL) {
		hs_fail(err, err_size,
			"traffic: cannot allocate %" PRIu64 " flows", total);
		return -ENOMEM;
	}
	/* What fill() does not write: no dependency, no triggers. */
	for (i = 0; i < per_iter; i++) {
		f[i].dep = HS_NO_DEP;
		f[i].trigger = HS_NO_TRIGGER;
		f[i].send_done_trigger = HS_NO_TRIGGER;
		f[i].recv_done_trigger = HS_NO_TRIGGER;
	}
	ops->fill(p, f);
	rc = hs_chain_iterations(p, f, (uint32_t)per_iter, err, err_size);
	if (rc < 0) {
		free(f);
		return rc;
	}
	t->nb_ranks = p->nb_ranks;
	t->nb_flows = (uint32_t)total;
	t->flows = f;
	if (hs_traffic_derive(t) != 0) {
		hs_traffic_free(t);
		hs_fail(err, err_size, "traffic: out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* ---- the registry ---- */

const struct hs_pattern_ops *hs_pattern_registry[HS_MAX_PATTERNS + 1] = {
	&pattern_permutation,
	&pattern_alltoall,
	&pattern_ring_allreduce,
	&pattern_allgather,
	&pattern_reduce_scatter,
	&pattern_incast,
	&pattern_tornado,
	&hs_pattern_cm,
	&pattern_ring,
	&pattern_podring,
	&pattern_podring_ol,
	&pattern_torring,
	&hs_pattern_jobs,
	NULL,
};

OFAN_REGISTRY_API(hs_pattern, struct hs_pattern_ops, hs_pattern_registry,
	      HS_MAX_PATTERNS)

const struct hs_pattern_ops *
hs_pattern_default(void)
{
	return &pattern_permutation;
}

int
hs_pattern_register(const struct hs_pattern_ops *ops)
{
	bool generated, whole;

	if (!hs_pattern_reg_named(ops) ||
	    ops->settings_size > HS_PATTERN_SETTINGS_MAX ||
	    (ops->settings_size > 0 && ops->parse == NULL))
		return -EINVAL;
	generated = ops->nb_flows != NULL && ops->fill != NULL;
	whole = ops->build != NULL;
	/* One way of making flows: both of nb_flows() and fill(), or build(). */
	if (generated == whole ||
	    (whole && (ops->nb_flows != NULL || ops->fill != NULL)))
		return -EINVAL;
	return hs_pattern_reg_add(ops);
}

void
hs_pattern_list(char *buf, size_t size)
{
	hs_pattern_reg_list(buf, size);
}

static int
check_topology(const struct hs_traffic_params *p, const char **key, char *msg,
	       unsigned int msg_size)
{
	const char *name = p->pattern->name;

	if (p->pod_size == 0 || p->tor_size == 0) {
		*key = p->pod_size == 0 ? "pod_size" : "tor_size";
		snprintf(msg, msg_size,
			 "missing; expected the hosts per %s for pattern = %s",
			 p->pod_size == 0 ? "pod" : "ToR", name);
		return -EINVAL;
	}
	if (p->tor_size < 2) {
		*key = "tor_size";
		snprintf(msg, msg_size, "'%" PRIu32
			 "'; expected at least 2 hosts per ToR for pattern = %s",
			 p->tor_size, name);
		return -EINVAL;
	}
	if (p->pod_size % p->tor_size != 0 || p->nb_ranks % p->pod_size != 0) {
		*key = "pod_size";
		snprintf(msg, msg_size, "'%" PRIu32 "' with tor_size %" PRIu32
			 " and %" PRIu32
			 " ranks; expected tor_size dividing pod_size and pod_size dividing the rank count (pattern = %s)",
			 p->pod_size, p->tor_size, p->nb_ranks, name);
		return -EINVAL;
	}
	return 0;
}

int
hs_pattern_check(const struct hs_traffic_params *p, const char **key,
		 char *msg, unsigned int msg_size)
{
	const struct hs_pattern_ops *ops = p->pattern;

	if (ops->needs_topology &&
	    check_topology(p, key, msg, msg_size) != 0)
		return -EINVAL;
	return ops->check != NULL ? ops->check(p, key, msg, msg_size) : 0;
}

/*
 * Another pattern's sections: refused.  A section only overrides made is
 * theirs (ofan_config.h): the file's keys come first, so its first key
 * tells.
 */
static int
refuse_sections(struct ofan_cfg *cfg, const char *section,
		const struct hs_pattern_ops *ops)
{
	const char *first, *first_key = NULL;
	unsigned int i;

	for (i = 0; hs_pattern_registry[i] != NULL; i++) {
		const struct hs_pattern_ops *o = hs_pattern_registry[i];

		if (o == ops || o->sections == NULL ||
		    ofan_cfg_sections(cfg, o->sections, &first, 1) <= 0)
			continue;
		if (ofan_cfg_keys(cfg, first, &first_key, 1) > 0 &&
		    ofan_cfg_overridden(cfg, first, first_key) &&
		    !ofan_cfg_overridden(cfg, section, "pattern"))
			return ofan_cfg_fail(cfg, first, first_key,
				"[%s] is for pattern = %s, but pattern = %s; expected pattern = %s, or no [%s*] sections",
				first, o->name, ops->name, o->name, o->sections);
		return ofan_cfg_fail(cfg, section, "pattern",
			"'%s' with a [%s] section; expected pattern = %s to use it",
			ops->name, first, o->name);
	}
	return 0;
}

static int
parse_one(struct ofan_cfg *cfg, const struct hs_pattern_ops *o,
	  const struct hs_pattern_cfg *ctx, void *block)
{
	memset(block, 0, o->settings_size);
	if (o->defaults != NULL)
		o->defaults(block);
	return o->parse != NULL ? o->parse(cfg, ctx, block) : 0;
}

int
hs_pattern_settings_from_cfg(struct ofan_cfg *cfg, const char *section,
			     const struct hs_pattern_ops *ops,
			     const struct hs_pattern_cfg *ctx,
			     struct hs_pattern_settings *block)
{
	struct hs_pattern_settings *scratch = NULL;
	unsigned int i;
	int rc = refuse_sections(cfg, section, ops);

	/*
	 * Every pattern's [traffic] keys are read, in registry order, so
	 * that a bad value is an error whatever the pattern (a sweep over
	 * patterns keeps them) and the keys are listed alike; only ops's go
	 * to block.  A pattern with sections of its own is read only when
	 * chosen (its sections are refused otherwise).
	 */
	for (i = 0; rc == 0 && hs_pattern_registry[i] != NULL; i++) {
		const struct hs_pattern_ops *o = hs_pattern_registry[i];

		if (o == ops) {
			rc = parse_one(cfg, o, ctx, block->b);
			continue;
		}
		if (o->sections != NULL || o->parse == NULL)
			continue;
		if (scratch == NULL &&
		    (scratch = malloc(sizeof(*scratch))) == NULL)
			return ofan_cfg_fail(cfg, section, "pattern",
				"out of memory; expected to read the patterns' settings");
		rc = parse_one(cfg, o, ctx, scratch->b);
	}
	free(scratch);
	return rc != 0 ? -EINVAL : 0;
}

bool
hs_pattern_ranks_key(const struct hs_pattern_ops *ops, const char *key)
{
	unsigned int i;

	for (i = 0; ops->ranks_keys != NULL && ops->ranks_keys[i] != NULL; i++)
		if (strcmp(ops->ranks_keys[i], key) == 0)
			return true;
	return false;
}
