/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the switch load-balancing policies (switch/policy/lb_*.c), in the
 * style of Open vSwitch's tests/test-multipath.c: no EAL, no packets, only
 * the metadata a policy sees.  Every policy first runs the contract any
 * policy keeps (tests/lib/lb_conformance.h: a seeded run is reproducible, a
 * dead member is never picked, LB_NONE exactly for dead groups, instances
 * are independent), with its defaults and, for ofan and flowlet, with
 * their knobs at other settings.  Then what users rely on from the
 * built-ins: picks do not depend on the burst size, the spread over
 * members is even (relative standard deviation of per-member counts),
 * weights are honoured, ecmp moves as few flows as possible when a member
 * dies, and ofan rotates exactly evenly per destination.
 *
 * Bounds on random spreads: N packets thrown uniformly over n members give
 * per-member counts c_i whose relative standard deviation is
 * sqrt(X2 / N), where X2 = sum (c_i - N/n)^2 / (N/n) is Pearson's
 * statistic, chi-square with n - 1 degrees of freedom.  The bound is
 * sqrt(q / N) with q the 1 - 1e-4 quantile of that distribution, so a fair
 * policy fails with probability 1e-4 (and the seeds are fixed anyway),
 * while one member getting 5% too much or too little of 100000 packets
 * over 8 members already fails.  Deterministic policies get the bound
 * their construction guarantees.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lb.h"
#include "lb_conformance.h"
#include "lb_flowlet.h"
#include "lb_ofan.h"
#include "lb_sr.h"
#include "ofan_config.h"
#include "ofan_rng.h"
#include "registry_check.h"
#include "t_helpers.h"
#include "unit_suite.h"

#define T_NB_GROUPS 4
#define T_NB_DSTS 64
#define T_NB_PORTS (T_NB_GROUPS * LB_MAX_MEMBERS)
#define T_SEED 0x0fa11234ull
#define T_GAP_NS 50000ull

/* One policy instance and the world it sees. */
struct harness {
	const struct lb_ops *ops;
	void *state;
	struct lb_params p;
	struct lb_settings_table set;	/* every policy's settings */
	struct lb_levels levels;	/* the engine's queue levels */
	struct lb_group grp[T_NB_GROUPS];
	uint8_t level[T_NB_PORTS];
	struct lb_view view;
};

static const struct lb_ops *
policy(int i)
{
	ck_assert_ptr_nonnull(lb_registry[i]);
	return lb_registry[i];
}

static int
nb_policies(void)
{
	int n = 0;

	while (lb_registry[n] != NULL)
		n++;
	return n;
}

/* The policy's settings block in h, for the test to tweak. */
static void *
h_settings(struct harness *h)
{
	unsigned int i;

	for (i = 0; lb_registry[i] != NULL; i++)
		if (lb_registry[i] == h->ops)
			return h->set.of[i].bytes;
	ck_abort_msg("%s is not registered", h->ops->name);
	return NULL;
}

#define H_FLOWLET(h) ((struct lb_flowlet_settings *)h_settings(h))
#define H_OFAN(h) ((struct lb_ofan_settings *)h_settings(h))

/* Defaults for ops, ready for the test to tweak h->p before h_start(). */
static void
h_params(struct harness *h, const struct lb_ops *ops, uint64_t seed)
{
	memset(h, 0, sizeof(*h));
	h->ops = ops;
	lb_settings_defaults(&h->set);
	lb_levels_defaults(&h->levels);
	h->p.settings = lb_settings_of(&h->set, ops);
	h->p.seed = seed;
	h->p.nb_groups = T_NB_GROUPS;
	h->p.nb_dst_keys = T_NB_DSTS;
	h->p.nb_ports = T_NB_PORTS;
	h->view.port_level = h->level;
	h->view.levels = &h->levels;
}

static void
h_start(struct harness *h)
{
	uint16_t g;

	ck_assert_int_eq(h->ops->create(&h->p, &h->state), 0);
	ck_assert_ptr_nonnull(h->state);
	for (g = 0; g < T_NB_GROUPS; g++)
		h->grp[g].id = g;
}

static void
h_stop(struct harness *h)
{
	h->ops->destroy(h->state);
	h->state = NULL;
}

/* Set group gid to nb members (weights NULL: all 1) and announce it. */
static void
h_group(struct harness *h, uint16_t gid, uint16_t nb,
	const uint16_t *weights)
{
	struct lb_group *grp = &h->grp[gid];
	uint16_t i;

	grp->nb_members = nb;
	for (i = 0; i < nb; i++) {
		grp->port[i] = (uint16_t)(gid * LB_MAX_MEMBERS + i);
		grp->weight[i] = weights != NULL ? weights[i] : 1;
	}
	lb_group_refresh(grp);
	if (h->ops->group_changed != NULL)
		h->ops->group_changed(h->state, grp);
}

static void
h_weight(struct harness *h, uint16_t gid, uint16_t member, uint16_t w)
{
	h->grp[gid].weight[member] = w;
	lb_group_refresh(&h->grp[gid]);
	if (h->ops->group_changed != NULL)
		h->ops->group_changed(h->state, &h->grp[gid]);
}

static uint16_t
h_pick1(struct harness *h, uint16_t gid, uint32_t hash, uint32_t dst,
	uint8_t kind, uint64_t now)
{
	struct lb_pkt pkt = {
		.grp = &h->grp[gid],
		.flow_hash = hash,
		.dst_key = dst,
		.kind = kind,
	};
	uint16_t out = 0x7777;

	h->ops->pick(h->state, &pkt, 1, &h->view, now, &out);
	return out;
}

static uint16_t
h_level(struct harness *h, uint16_t gid, uint16_t member)
{
	return h->level[h->grp[gid].port[member]];
}

static uint64_t
h_dump(struct harness *h, const char *key)
{
	struct t_dump d = { .nb = 0 };

	ck_assert_ptr_nonnull(h->ops->dump);
	h->ops->dump(h->state, t_dump_emit, &d);
	return t_dump_value(&d, h->ops->name, key);
}


/* max - min of counts[m] over the live members m of grp. */
static uint64_t
spread_live(const uint64_t *counts, const struct lb_group *grp)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	uint16_t k;

	for (k = 0; k < grp->nb_live; k++) {
		uint64_t c = counts[grp->live[k]];

		if (c < lo)
			lo = c;
		if (c > hi)
			hi = c;
	}
	return hi - lo;
}

static uint64_t
max_minus_min(const uint64_t *counts, unsigned int n)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (counts[i] < lo)
			lo = counts[i];
		if (counts[i] > hi)
			hi = counts[i];
	}
	return hi - lo;
}

/*
 * The mixed stream of the generic tests: two groups (8 members of weight
 * 1; 5 members of weights 1,2,3,1,2), 500 flows, 32 destinations, both
 * kinds.  It comes in bursts of random size; queue levels and time change
 * between bursts.  The stream is a function of traffic_seed only; with
 * split set each burst is handed to pick() one packet at a time.
 */
#define T_STREAM 10000

static void
h_mixed_groups(struct harness *h)
{
	static const uint16_t w1[] = { 1, 2, 3, 1, 2 };

	h_group(h, 0, 8, NULL);
	h_group(h, 1, 5, w1);
}

static void
run_stream(struct harness *h, uint64_t traffic_seed, int split,
	   uint16_t *out)
{
	struct ofan_rng rng;
	struct lb_pkt pkts[64];
	uint64_t now = 1000;
	unsigned int done = 0;

	ofan_rng_seed(&rng, traffic_seed, 1);
	while (done < T_STREAM) {
		unsigned int n = 1 + ofan_rng_below(&rng, 64);
		unsigned int i;

		if (n > T_STREAM - done)
			n = T_STREAM - done;
		for (i = 0; i < T_NB_PORTS; i++)
			h->level[i] = (uint8_t)ofan_rng_below(&rng, 4);
		now += ofan_rng_below(&rng, 20000);
		for (i = 0; i < n; i++) {
			pkts[i].grp = &h->grp[ofan_rng_below(&rng, 2)];
			pkts[i].flow_hash = ofan_hash_mix32(
				1 + ofan_rng_below(&rng, 500));
			pkts[i].dst_key = ofan_rng_below(&rng, 32);
			pkts[i].kind = (uint8_t)ofan_rng_below(&rng, 2);
		}
		if (split)
			for (i = 0; i < n; i++)
				h->ops->pick(h->state, &pkts[i], 1, &h->view,
					     now, out + done + i);
		else
			h->ops->pick(h->state, pkts, (uint16_t)n, &h->view,
				     now, out + done);
		done += n;
	}
}

static void
stream_of(const struct lb_ops *ops, uint64_t seed, int split,
	  uint16_t *out)
{
	struct harness h;

	h_params(&h, ops, seed);
	h_start(&h);
	h_mixed_groups(&h);
	run_stream(&h, 77, split, out);
	h_stop(&h);
}

/* ---------------------------------------------------------------- */
/* Registry and helpers. */

START_TEST(test_registry_find)
{
	static const char *const names[] = {
		"ecmp", "spray", "rr", "adaptive", "flowlet", "ofan",
		"ecmp_ar", "rr_ecmp", "fib_llss", "sr",
	};
	unsigned int i, j;

	ck_assert_int_eq(nb_policies(), 10);
	for (i = 0; i < 10; i++) {
		const struct lb_ops *ops = lb_find(names[i]);

		ck_assert_ptr_eq(ops, lb_registry[i]);
		ck_assert_str_eq(ops->name, names[i]);
		ck_assert_uint_gt(strlen(ops->summary), 10);
		ck_assert_ptr_nonnull(ops->create);
		ck_assert_ptr_nonnull(ops->destroy);
		/* group_changed, parse, defaults and dump may be NULL. */
		ck_assert(ops->settings_size <= LB_SETTINGS_MAX);
		ck_assert(ops->settings_size == 0 || ops->parse != NULL);
		ck_assert_ptr_nonnull(ops->pick);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(lb_registry[j]->name, ops->name);
	}
	ck_assert_ptr_null(lb_find("nope"));
	ck_assert_ptr_null(lb_find("ofa"));
	ck_assert_ptr_null(lb_find(""));
	ck_assert_ptr_null(lb_find(NULL));
}
END_TEST

START_TEST(test_registry_names)
{
	char buf[128];
	char small[12];

	ck_assert_str_eq(lb_names(buf, sizeof(buf)),
			 "ecmp, spray, rr, adaptive, flowlet, ofan, ecmp_ar, rr_ecmp, fib_llss, sr");
	/* Truncated, terminated, and nothing written past the buffer. */
	memset(small, 'X', sizeof(small));
	lb_names(small, 10);
	ck_assert_str_eq(small, "ecmp, spr");
	ck_assert_int_eq(small[10], 'X');
	ck_assert_int_eq(small[11], 'X');
}
END_TEST

/*
 * lb_register() refuses a policy that lacks a required member.  Each case
 * is spray's table under the name "Spray" with one thing wrong: the table
 * itself passes every check and is then refused only for its name, taken
 * in another case, so that a check that is missing shows as -EEXIST and
 * nothing is ever added to the registry.  Every built-in passes them.
 */
START_TEST(test_register_refuses)
{
	struct lb_ops base = *lb_find("spray"), bad[T_NAME_FAULTS + 4];
	struct lb_ops optional;
	char before[128], after[128];
	unsigned int i;

	lb_names(before, sizeof(before));
	base.name = "Spray";
	ck_assert_int_eq(lb_register(&base), -EEXIST);
	T_FAULTY(bad, T_DIM(bad), base, "free");
	bad[T_NAME_FAULTS + 0].create = NULL;
	bad[T_NAME_FAULTS + 1].destroy = NULL;
	bad[T_NAME_FAULTS + 2].pick = NULL;
	bad[T_NAME_FAULTS + 3].settings_size = LB_SETTINGS_MAX + 1;
	T_CHECK_REFUSED(lb_register, bad, T_DIM(bad));
	/* Every other member may be NULL; the settings may fill the block. */
	optional = base;
	optional.defaults = NULL;
	optional.parse = NULL;
	optional.group_changed = NULL;
	optional.dump = NULL;
	optional.settings_size = LB_SETTINGS_MAX;
	ck_assert_int_eq(lb_register(&optional), -EEXIST);
	for (i = 0; lb_registry[i] != NULL; i++)
		ck_assert_int_eq(lb_register(lb_registry[i]), -EEXIST);
	ck_assert_str_eq(lb_names(after, sizeof(after)), before);
}
END_TEST

/* What --help lists: every policy with its summary. */
START_TEST(test_registry_describe)
{
	T_CHECK_DESCRIBE(lb_describe, lb_registry);
}
END_TEST

START_TEST(test_params_defaults)
{
	const struct lb_ofan_settings *o;
	const struct lb_flowlet_settings *f;
	struct lb_settings_table st;
	struct lb_levels lv;

	memset(&st, 0xa5, sizeof(st));
	lb_settings_defaults(&st);
	o = lb_settings_of(&st, lb_find("ofan"));
	f = lb_settings_of(&st, lb_find("flowlet"));
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(o->nudge_cycles, 0);
	ck_assert_uint_eq(o->shuffle, 1);
	ck_assert_uint_eq(o->random_start, 1);
	ck_assert_uint_eq(f->gap_ns, 50000);
	ck_assert_uint_eq(f->table_size, 4096);
	ck_assert_uint_eq(f->repick, LB_FLOWLET_RANDOM);
	/* Policies without settings have no block. */
	ck_assert_ptr_null(lb_settings_of(&st, lb_find("spray")));
	memset(&lv, 0xa5, sizeof(lv));
	lb_levels_defaults(&lv);
	ck_assert_uint_eq(lv.nb_levels, 8);
	ck_assert_uint_eq(lv.nb_thresholds, 0);
}
END_TEST

START_TEST(test_group_refresh)
{
	struct lb_group grp;

	memset(&grp, 0, sizeof(grp));
	grp.nb_members = 5;
	grp.weight[0] = 1;
	grp.weight[2] = 3;
	grp.weight[4] = 1;
	grp.version = 41;
	lb_group_refresh(&grp);
	ck_assert_uint_eq(grp.nb_live, 3);
	ck_assert_uint_eq(grp.live[0], 0);
	ck_assert_uint_eq(grp.live[1], 2);
	ck_assert_uint_eq(grp.live[2], 4);
	ck_assert_uint_eq(grp.version, 42);
	grp.weight[2] = 0;
	lb_group_refresh(&grp);
	ck_assert_uint_eq(grp.nb_live, 2);
	ck_assert_uint_eq(grp.live[1], 4);
	ck_assert_uint_eq(grp.version, 43);
}
END_TEST

START_TEST(test_create_rejects)
{
	struct harness h;
	void *state = NULL;

	h_params(&h, lb_find("ecmp"), 1);
	h.p.nb_groups = 0;
	ck_assert_int_eq(lb_find("ecmp")->create(&h.p, &state), -EINVAL);
	h_params(&h, lb_find("ofan"), 1);
	h.p.nb_dst_keys = 0;
	ck_assert_int_eq(lb_find("ofan")->create(&h.p, &state), -EINVAL);
	h_params(&h, lb_find("flowlet"), 1);
	H_FLOWLET(&h)->table_size = 1000;
	ck_assert_int_eq(lb_find("flowlet")->create(&h.p, &state), -EINVAL);
	ck_assert_ptr_null(state);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Every policy. */

/*
 * Beyond the contract (the conformance case checks that the same seed
 * gives the same picks): a stream handed over one packet at a time gives
 * the picks it gives in bursts, and another seed other picks -- except
 * ecmp's, which every lcore of a switch must agree on.
 */
START_TEST(test_all_bursts_and_seeds)
{
	const struct lb_ops *ops = policy(_i);
	uint16_t *a = calloc(T_STREAM, sizeof(*a));
	uint16_t *b = calloc(T_STREAM, sizeof(*b));
	uint16_t *c = calloc(T_STREAM, sizeof(*c));

	stream_of(ops, T_SEED, 0, a);
	stream_of(ops, T_SEED, 1, c);
	ck_assert_msg(memcmp(a, c, T_STREAM * sizeof(*a)) == 0,
		      "%s: picks depend on the burst size", ops->name);
	stream_of(ops, T_SEED + 1, 0, b);
	/* ecmp and sr follow the packet alone (its hash, its EV). */
	if (ops == lb_find("ecmp") || ops == lb_find("sr"))
		ck_assert_msg(memcmp(a, b, T_STREAM * sizeof(*a)) == 0,
			      "%s depends on the per-lcore seed", ops->name);
	else
		ck_assert_msg(memcmp(a, b, T_STREAM * sizeof(*a)) != 0,
			      "%s: another seed, same picks", ops->name);
	free(a);
	free(b);
	free(c);
}
END_TEST

/*
 * Evenness over 8 members.  Packet streams: 100000 packets, a fresh flow
 * hash per packet, 16 destinations, both kinds, empty queues (adaptive
 * breaks ties, flowlet starts a flowlet per new flow).  ecmp: 10000 flows.
 */
START_TEST(test_all_evenness)
{
	const struct lb_ops *ops = policy(_i);
	const unsigned int n = 8;
	const int per_flow = ops == lb_find("ecmp");
	const unsigned int nb = per_flow ? 10000 : 100000;
	uint64_t counts[8] = { 0 };
	struct harness h;
	struct ofan_rng rng;
	double sd, bound;
	unsigned int i;

	h_params(&h, ops, T_SEED);
	h_start(&h);
	h_group(&h, 0, (uint16_t)n, NULL);
	ofan_rng_seed(&rng, 9, 9);
	for (i = 0; i < nb; i++) {
		uint16_t m = h_pick1(&h, 0, (uint32_t)ofan_rng_next(&rng),
				     ofan_rng_below(&rng, 16),
				     (uint8_t)ofan_rng_below(&rng, 2),
				     1000 + i);

		ck_assert_uint_lt(m, n);
		counts[m]++;
	}
	sd = t_rel_sd(counts, n);
	if (ops == lb_find("rr"))
		/* One counter over one group: exact. */
		bound = 1e-12;
	else if (ops == lb_find("ofan"))
		/* 32 streams, each within one packet per member. */
		bound = 32.0 * n / nb;
	else
		bound = t_rel_sd_bound(n, nb);
	fprintf(stderr, "evenness %-8s %6u %s over %u members: "
		"rel sd %.5f (bound %.5f)\n", ops->name, nb,
		per_flow ? "flows" : "packets", n, sd, bound);
	ck_assert_msg(sd <= bound, "%s: rel sd %f above %f", ops->name, sd,
		      bound);
	h_stop(&h);
}
END_TEST

/*
 * WCMP: a group weighted 3:4:4:4 (a ToR towards a pod that lost one of an
 * aggregation switch's four core links, after routing converged) gets
 * each member's share of the traffic in proportion to its weight: rr and
 * ofan exactly over whole cycles, ecmp within its bucket quantisation
 * (1/256) of the flows, the random pickers (spray, adaptive's tie-break
 * on empty queues, flowlet's new flowlets) within the 1e-4 tail of a
 * binomial.  Weights that are all equal (8:8:8:8) are no weighting: the
 * same picks as 1:1:1:1.
 */
START_TEST(test_all_weighted)
{
	static const uint16_t w[4] = { 3, 4, 4, 4 };
	static const uint16_t w8[4] = { 8, 8, 8, 8 };
	const struct lb_ops *ops = policy(_i);
	const int per_flow = ops == lb_find("ecmp");
	const unsigned int nb = per_flow ? 30000 : 150000;
	uint64_t counts[4] = { 0 };
	struct harness h, h1, h8;
	struct ofan_rng rng, rng1;
	unsigned int i, k;

	/* sr goes where the host's EV says: weights are the host's affair
	 * (test_sr: a dead member's digit wraps). */
	if (ops == lb_find("sr"))
		return;
	h_params(&h, ops, T_SEED);
	h_start(&h);
	h_group(&h, 0, 4, w);
	ck_assert(h.grp[0].weighted);
	ck_assert_uint_eq(h.grp[0].total_weight, 15);
	ofan_rng_seed(&rng, 9, 9);
	for (i = 0; i < nb; i++) {
		uint16_t m = h_pick1(&h, 0, (uint32_t)ofan_rng_next(&rng), 0,
				     LB_KIND_DATA, 1000 + 100000ull * i);

		ck_assert_uint_lt(m, 4);
		counts[m]++;
	}
	for (k = 0; k < 4; k++) {
		double p = (double)w[k] / 15, want = p * nb;
		double tol = 4.0 * sqrt(nb * p * (1 - p));

		if (ops == lb_find("rr") || ops == lb_find("ofan"))
			tol = 15;	/* within one cycle of 15 */
		else if (per_flow)
			tol += (double)nb / 256;
		fprintf(stderr, "weighted %-8s member %u (weight %u): %" PRIu64
			" of %u, expected %.0f +- %.0f\n", ops->name, k, w[k],
			counts[k], nb, want, tol);
		ck_assert_msg(fabs((double)counts[k] - want) <= tol,
			      "%s: member %u weight %u got %" PRIu64
			      ", expected %.0f", ops->name, k, w[k],
			      counts[k], want);
	}
	h_stop(&h);

	/* Equal weights are the unweighted policy, pick for pick. */
	h_params(&h1, ops, T_SEED);
	h_start(&h1);
	h_group(&h1, 0, 4, NULL);
	h_params(&h8, ops, T_SEED);
	h_start(&h8);
	h_group(&h8, 0, 4, w8);
	ck_assert(!h8.grp[0].weighted);
	ofan_rng_seed(&rng1, 5, 5);
	for (i = 0; i < 20000; i++) {
		uint32_t hash = (uint32_t)ofan_rng_next(&rng1);

		ck_assert_uint_eq(h_pick1(&h1, 0, hash, i % 7, i & 1, 10 * i),
				  h_pick1(&h8, 0, hash, i % 7, i & 1, 10 * i));
	}
	h_stop(&h1);
	h_stop(&h8);
}
END_TEST

/* lb_group_refresh: weights over their gcd, summed over the live ones. */
START_TEST(test_group_weights)
{
	struct lb_group g;
	struct ofan_rng rng;
	uint16_t tied[2] = { 1, 3 };
	uint64_t c[4] = { 0 };
	unsigned int i;

	memset(&g, 0, sizeof(g));
	g.nb_members = 4;
	g.weight[0] = 6;
	g.weight[1] = 0;
	g.weight[2] = 9;
	g.weight[3] = 3;
	lb_group_refresh(&g);
	ck_assert_uint_eq(g.nb_live, 3);
	ck_assert(g.weighted);
	ck_assert_uint_eq(g.total_weight, 6);	/* 2 + 3 + 1 */
	ck_assert_uint_eq(g.cum_weight[0], 2);
	ck_assert_uint_eq(g.cum_weight[1], 5);
	ck_assert_uint_eq(g.cum_weight[2], 6);
	ck_assert_uint_eq(lb_group_at_weight(&g, 0), 0);
	ck_assert_uint_eq(lb_group_at_weight(&g, 1), 0);
	ck_assert_uint_eq(lb_group_at_weight(&g, 2), 2);
	ck_assert_uint_eq(lb_group_at_weight(&g, 4), 2);
	ck_assert_uint_eq(lb_group_at_weight(&g, 5), 3);
	/* A tie between members 1 (dead: weight 0) and 3 goes to 3; between
	 * 2 and 3 three to one. */
	ofan_rng_seed(&rng, 1, 1);
	ck_assert_uint_eq(lb_group_random_among(&g, tied, 2, &rng), 3);
	tied[0] = 2;
	for (i = 0; i < 40000; i++)
		c[lb_group_random_among(&g, tied, 2, &rng)]++;
	ck_assert_msg(fabs((double)c[2] / 40000 - 0.75) < 0.01,
		      "member 2 won %" PRIu64 " of 40000 ties", c[2]);
	/* One live member of any weight, or equal weights: unweighted. */
	g.weight[0] = 0;
	g.weight[2] = 0;
	lb_group_refresh(&g);
	ck_assert(!g.weighted);
	ck_assert_uint_eq(g.total_weight, 1);
	g.weight[0] = 5;
	g.weight[3] = 5;
	lb_group_refresh(&g);
	ck_assert(!g.weighted);
	ck_assert_uint_eq(g.total_weight, 2);
}
END_TEST

/* ---------------------------------------------------------------- */
/* ofan. */

/* An ofan instance with the given seed and knobs, no group yet. */
static void
ofan_start(struct harness *h, uint64_t seed, int shuffle, int random_start,
	   uint32_t nudge_cycles)
{
	h_params(h, lb_find("ofan"), seed);
	H_OFAN(h)->shuffle = (uint8_t)shuffle;
	H_OFAN(h)->random_start = (uint8_t)random_start;
	H_OFAN(h)->nudge_cycles = nudge_cycles;
	h_start(h);
}

START_TEST(test_ofan_exact_per_destination)
{
	/* counts[dst][kind][member] */
	static uint64_t counts[5][2][6];
	struct harness h;
	struct ofan_rng rng;
	unsigned int i;

	memset(counts, 0, sizeof(counts));
	ofan_start(&h, T_SEED, 1, 1, 0);
	h_group(&h, 0, 6, NULL);
	ofan_rng_seed(&rng, 3, 3);
	for (i = 0; i < 20000; i++) {
		uint32_t dst = ofan_rng_below(&rng, 5);
		uint8_t kind = (uint8_t)ofan_rng_below(&rng, 2);
		uint16_t m = h_pick1(&h, 0, (uint32_t)ofan_rng_next(&rng),
				     dst, kind, i);

		ck_assert_uint_lt(m, 6);
		counts[dst][kind][m]++;
		ck_assert_msg(max_minus_min(counts[dst][kind], 6) <= 1,
			      "packet %u: dst %u kind %u uneven", i, dst, kind);
	}
	ck_assert_uint_eq(h_dump(&h, "destinations"), 5);
	ck_assert_uint_eq(h_dump(&h, "cycle_len_max"), 6);
	h_stop(&h);
}
END_TEST

START_TEST(test_ofan_data_ack_independent)
{
	const uint32_t dst = 7;
	uint16_t data[16], ack[16], ack_only[16];
	struct harness a, b, c;
	struct ofan_rng rng;
	unsigned int nd = 0, na = 0, k;

	/* a: data only; b: data and ACKs mixed; c: ACKs only. */
	ofan_start(&a, T_SEED, 1, 1, 0);
	ofan_start(&b, T_SEED, 1, 1, 0);
	ofan_start(&c, T_SEED, 1, 1, 0);
	h_group(&a, 0, 8, NULL);
	h_group(&b, 0, 8, NULL);
	h_group(&c, 0, 8, NULL);
	for (k = 0; k < 16; k++) {
		data[k] = h_pick1(&a, 0, k, dst, LB_KIND_DATA, 0);
		ack_only[k] = h_pick1(&c, 0, k, dst, LB_KIND_ACK, 0);
	}
	ofan_rng_seed(&rng, 4, 4);
	while (nd < 16 || na < 16) {
		int is_ack = na < 16 &&
			     (nd == 16 || ofan_rng_below(&rng, 2) == 1);

		if (is_ack) {
			ack[na] = h_pick1(&b, 0, na, dst, LB_KIND_ACK, 0);
			ck_assert_uint_eq(ack[na], ack_only[na]);
			na++;
		} else {
			ck_assert_uint_eq(h_pick1(&b, 0, nd, dst,
						  LB_KIND_DATA, 0), data[nd]);
			nd++;
		}
	}
	/* data[k] is cycle[start + k]: ACKs start half a cycle (4) on. */
	for (k = 0; k + 4 < 16; k++)
		ck_assert_uint_eq(ack[k], data[k + 4]);
	ck_assert_uint_ne(ack[0], data[0]);
	h_stop(&a);
	h_stop(&b);
	h_stop(&c);
}
END_TEST

START_TEST(test_ofan_dead_skipped_at_once)
{
	uint16_t cycle[8];
	uint64_t counts[8] = { 0 };
	struct harness h;
	uint16_t victim, m;
	unsigned int i;

	ofan_start(&h, T_SEED, 1, 0, 0);
	h_group(&h, 0, 8, NULL);
	/* Without a random start the first 8 picks are the cycle. */
	for (i = 0; i < 8; i++)
		cycle[i] = h_pick1(&h, 0, 0, 0, LB_KIND_DATA, 0);
	for (i = 8; i < 13; i++)
		ck_assert_uint_eq(h_pick1(&h, 0, 0, 0, LB_KIND_DATA, 0),
				  cycle[i % 8]);
	/* Kill the member the next packet would have taken. */
	victim = cycle[13 % 8];
	h_weight(&h, 0, victim, 0);
	for (i = 0; i < 7000; i++) {
		m = h_pick1(&h, 0, 0, 0, LB_KIND_DATA, 0);
		ck_assert_uint_ne(m, victim);
		counts[m]++;
		ck_assert_msg(spread_live(counts, &h.grp[0]) <= 1,
			      "packet %u after the failure: uneven", i);
	}
	for (i = 0; i < 8; i++)
		ck_assert_uint_eq(counts[i], i == victim ? 0 : 1000);
	/* It returns: from then on all 8 share evenly again. */
	h_weight(&h, 0, victim, 1);
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < 8000; i++) {
		counts[h_pick1(&h, 0, 0, 0, LB_KIND_DATA, 0)]++;
		ck_assert_uint_le(max_minus_min(counts, 8), 1);
	}
	ck_assert_uint_eq(counts[victim], 1000);
	h_stop(&h);
}
END_TEST

START_TEST(test_ofan_weighted)
{
	static const uint16_t w211[] = { 2, 1, 1 };
	static const uint16_t w422[] = { 4, 2, 2 };
	uint16_t seq[4000], seq2[4000];
	struct harness h, h2;
	unsigned int i, k, run = 1;

	ofan_start(&h, T_SEED, 1, 0, 0);
	ofan_start(&h2, T_SEED, 1, 0, 0);
	h_group(&h, 0, 3, w211);
	h_group(&h2, 0, 3, w422);
	/* Weights are divided by their gcd: 4,2,2 is the same cycle. */
	ck_assert_uint_eq(h_dump(&h, "cycle_len_max"), 4);
	ck_assert_uint_eq(h_dump(&h2, "cycle_len_max"), 4);
	for (i = 0; i < 4000; i++) {
		seq[i] = h_pick1(&h, 0, 0, 0, LB_KIND_DATA, 0);
		seq2[i] = h_pick1(&h2, 0, 0, 0, LB_KIND_DATA, 0);
	}
	ck_assert(memcmp(seq, seq2, sizeof(seq)) == 0);
	/* Any 4 consecutive packets (a rotation of the cycle) are 2:1:1. */
	for (i = 0; i + 4 <= 4000; i++) {
		uint64_t c[3] = { 0 };

		for (k = 0; k < 4; k++)
			c[seq[i + k]]++;
		ck_assert_uint_eq(c[0], 2);
		ck_assert_uint_eq(c[1], 1);
		ck_assert_uint_eq(c[2], 1);
	}
	/*
	 * Interleaving: the first round serves every member once before
	 * anyone twice (plain WRR would send 0,0,1,2).  A member can follow
	 * itself only across a round boundary, so runs are at most 2 long.
	 */
	ck_assert_uint_ne(seq[0], seq[1]);
	ck_assert_uint_ne(seq[1], seq[2]);
	ck_assert_uint_ne(seq[0], seq[2]);
	ck_assert_uint_eq(seq[3], 0);
	for (i = 1; i < 4000; i++) {
		run = seq[i] == seq[i - 1] ? run + 1 : 1;
		ck_assert_uint_le(run, 2);
	}
	h_stop(&h);
	h_stop(&h2);
}
END_TEST

START_TEST(test_ofan_weight_scaling)
{
	uint16_t w[LB_MAX_MEMBERS];
	uint64_t counts[LB_MAX_MEMBERS] = { 0 };
	struct harness h;
	uint64_t len;
	unsigned int i;

	for (i = 0; i < LB_MAX_MEMBERS; i++)
		w[i] = 1;
	w[0] = 60000;
	ofan_start(&h, T_SEED, 1, 0, 0);
	h_group(&h, 0, LB_MAX_MEMBERS, w);
	len = h_dump(&h, "cycle_len_max");
	/* 60000 : 63 scaled into 1024 - 64: 958 + 63 ones. */
	ck_assert_uint_eq(len, 958 + 63);
	for (i = 0; i < len; i++)
		counts[h_pick1(&h, 0, 0, 0, LB_KIND_DATA, 0)]++;
	ck_assert_uint_eq(counts[0], 958);
	for (i = 1; i < LB_MAX_MEMBERS; i++)
		ck_assert_uint_eq(counts[i], 1);
	h_stop(&h);
}
END_TEST

START_TEST(test_ofan_shuffle)
{
	uint16_t order[3][8];
	uint16_t seen;
	struct harness h;
	unsigned int s, i;

	for (s = 0; s < 3; s++) {
		/* Seeds 1 and 2 shuffled; the third run unshuffled. */
		ofan_start(&h, 1 + s, s < 2, 0, 0);
		h_group(&h, 0, 8, NULL);
		seen = 0;
		for (i = 0; i < 8; i++) {
			order[s][i] = h_pick1(&h, 0, 0, 0, LB_KIND_DATA, 0);
			seen |= (uint16_t)(1u << order[s][i]);
		}
		ck_assert_uint_eq(seen, 0xff);
		/* A rebuild of the group keeps the order and the rotation. */
		h_group(&h, 0, 8, NULL);
		for (i = 0; i < 16; i++)
			ck_assert_uint_eq(h_pick1(&h, 0, 0, 0, LB_KIND_DATA, 0),
					  order[s][i % 8]);
		h_stop(&h);
	}
	ck_assert(memcmp(order[0], order[1], sizeof(order[0])) != 0);
	for (i = 0; i < 8; i++)
		ck_assert_uint_eq(order[2][i], i);
}
END_TEST

START_TEST(test_ofan_random_start)
{
	uint16_t seen = 0;
	struct harness h;
	uint32_t dst;

	ofan_start(&h, T_SEED, 0, 1, 0);
	h_group(&h, 0, 8, NULL);
	for (dst = 0; dst < T_NB_DSTS; dst++)
		seen |= (uint16_t)(1u << h_pick1(&h, 0, 0, dst,
						 LB_KIND_DATA, 0));
	/* 64 destinations start on every one of the 8 members. */
	ck_assert_uint_eq(seen, 0xff);
	h_stop(&h);

	ofan_start(&h, T_SEED, 0, 0, 0);
	h_group(&h, 0, 8, NULL);
	for (dst = 0; dst < T_NB_DSTS; dst++)
		ck_assert_uint_eq(h_pick1(&h, 0, 0, dst, LB_KIND_DATA, 0), 0);
	h_stop(&h);
}
END_TEST

START_TEST(test_ofan_nudge)
{
	const unsigned int len = 5, every = 2;
	uint64_t counts[5] = { 0 };
	struct harness h;
	unsigned int k;

	ofan_start(&h, T_SEED, 0, 0, every);
	h_group(&h, 0, (uint16_t)len, NULL);
	for (k = 0; k < 100; k++) {
		uint16_t m = h_pick1(&h, 0, 0, 0, LB_KIND_DATA, 0);
		/* Unshuffled, from 0, one extra step per 2 full cycles. */
		uint16_t expect = (uint16_t)((k + k / (every * len)) % len);

		ck_assert_msg(m == expect, "packet %u: %u, expected %u", k, m,
			      expect);
		counts[m]++;
		ck_assert_uint_le(max_minus_min(counts, len), 1);
	}
	/* Without the nudge packet 10 would be member 0 again. */
	ck_assert_uint_eq((10 + 10 / (every * len)) % len, 1);
	ck_assert_uint_eq(h_dump(&h, "nudges"), 100 / (every * len));
	h_stop(&h);
}
END_TEST

/* ---------------------------------------------------------------- */
/* ecmp. */

#define T_FLOWS 10000

static uint32_t
flow_hash(uint32_t f, uint16_t ev)
{
	return ofan_hash_5tuple(0xabcd, 0x0a000000 + f, 0x0a100000 + f / 7,
				ev, 4791, 17);
}

/* Group 0's member for each of the T_FLOWS flows (EV 1) into out. */
static void
ecmp_flows(struct harness *h, uint16_t *out)
{
	unsigned int f;

	for (f = 0; f < T_FLOWS; f++)
		out[f] = h_pick1(h, 0, flow_hash(f, 1), 0, 0, 0);
}

START_TEST(test_ecmp_stable)
{
	static uint16_t first[T_FLOWS];
	struct harness h;
	struct lb_pkt pkts[64];
	uint16_t out[64];
	int f;

	h_params(&h, lb_find("ecmp"), T_SEED);
	h_start(&h);
	h_group(&h, 0, 8, NULL);
	h_group(&h, 1, 3, NULL);
	for (f = 0; f < T_FLOWS; f++)
		first[f] = h_pick1(&h, 0, flow_hash((uint32_t)f, 1000), 0,
				   LB_KIND_DATA, 0);
	/* Reversed, in bursts, interleaved with another group. */
	for (f = T_FLOWS - 1; f >= 0; f -= 32) {
		int k;

		for (k = 0; k < 64; k++) {
			int flow = f - k / 2 >= 0 ? f - k / 2 : 0;

			pkts[k].grp = &h.grp[k & 1];
			pkts[k].flow_hash = flow_hash((uint32_t)flow, 1000);
			pkts[k].dst_key = 0;
			pkts[k].kind = LB_KIND_DATA;
		}
		lb_find("ecmp")->pick(h.state, pkts, 64, &h.view, 0, out);
		for (k = 0; k < 64; k += 2) {
			int flow = f - k / 2 >= 0 ? f - k / 2 : 0;

			ck_assert_uint_eq(out[k], first[flow]);
		}
	}
	h_stop(&h);
}
END_TEST

START_TEST(test_ecmp_ev_change)
{
	struct harness h;
	unsigned int f, moved = 0;
	double frac;

	h_params(&h, lb_find("ecmp"), T_SEED);
	h_start(&h);
	h_group(&h, 0, 8, NULL);
	for (f = 0; f < T_FLOWS; f++)
		if (h_pick1(&h, 0, flow_hash(f, 1000), 0, 0, 0) !=
		    h_pick1(&h, 0, flow_hash(f, 1001), 0, 0, 0))
			moved++;
	frac = (double)moved / T_FLOWS;
	fprintf(stderr, "ecmp: new EV moves %.4f of flows (7/8 = 0.875)\n",
		frac);
	/* 7/8 expected; the standard deviation is 0.0033. */
	ck_assert_msg(fabs(frac - 0.875) < 0.02, "moved %f", frac);
	h_stop(&h);
}
END_TEST

START_TEST(test_ecmp_disruption)
{
	static uint16_t before[T_FLOWS], after[T_FLOWS];
	uint64_t got[8] = { 0 };
	struct harness h;
	unsigned int f, moved = 0, on_dead = 0;
	double frac;

	h_params(&h, lb_find("ecmp"), T_SEED);
	h_start(&h);
	h_group(&h, 0, 8, NULL);
	ecmp_flows(&h, before);

	h_weight(&h, 0, 2, 0);
	for (f = 0; f < T_FLOWS; f++) {
		after[f] = h_pick1(&h, 0, flow_hash(f, 1), 0, 0, 0);
		ck_assert_uint_ne(after[f], 2);
		if (before[f] == 2) {
			on_dead++;
			got[after[f]]++;
		} else {
			/* Flows on live members keep their member. */
			ck_assert_uint_eq(after[f], before[f]);
		}
		moved += after[f] != before[f];
	}
	ck_assert_uint_eq(moved, on_dead);
	frac = (double)moved / T_FLOWS;
	fprintf(stderr, "ecmp: 1 of 8 members dies: %.4f of flows move "
		"(1/8 = 0.125)\n", frac);
	ck_assert_msg(fabs(frac - 0.125) < 0.025, "moved %f", frac);
	/* Its buckets are dealt round robin: every survivor takes some. */
	for (f = 0; f < 8; f++)
		if (f != 2)
			ck_assert_uint_gt(got[f], on_dead / 14);

	/* A second failure moves only the flows on that member. */
	h_weight(&h, 0, 5, 0);
	for (f = 0; f < T_FLOWS; f++) {
		uint16_t m = h_pick1(&h, 0, flow_hash(f, 1), 0, 0, 0);

		ck_assert(m != 2 && m != 5);
		if (after[f] != 5)
			ck_assert_uint_eq(m, after[f]);
	}
	/* Both return: every flow is back where it started. */
	h_weight(&h, 0, 2, 1);
	h_weight(&h, 0, 5, 1);
	for (f = 0; f < T_FLOWS; f++)
		ck_assert_uint_eq(h_pick1(&h, 0, flow_hash(f, 1), 0, 0, 0),
				  before[f]);
	h_stop(&h);
}
END_TEST

/*
 * WCMP disruption: when routing weights a member of four 3 (from 4), its
 * share of the buckets falls to 51 of 256 (largest remainders: 51.2, and
 * 68.27 for the others, one of which takes the 256th) and only the 13
 * buckets it gives up move, each to a member still short of its share;
 * every other flow keeps its member.  Back to 4: the table before.
 */
START_TEST(test_ecmp_weighted_disruption)
{
	static uint16_t before[T_FLOWS], after[T_FLOWS];
	static const uint16_t w[4] = { 4, 4, 4, 4 };
	struct harness h;
	unsigned int f, b, moved = 0, on0 = 0;

	h_params(&h, lb_find("ecmp"), T_SEED);
	h_start(&h);
	h_group(&h, 0, 4, w);
	ecmp_flows(&h, before);
	h_weight(&h, 0, 0, 3);
	ecmp_flows(&h, after);
	for (f = 0; f < T_FLOWS; f++) {
		if (after[f] != before[f]) {
			ck_assert_uint_eq(before[f], 0);
			moved++;
		}
		on0 += after[f] == 0;
	}
	/* Buckets: flows with hash & 255 = b share bucket b. */
	for (b = 0, f = 0; b < 256; b++) {
		uint16_t m0 = h_pick1(&h, 0, b, 0, 0, 0);

		f += m0 == 0;
	}
	ck_assert_uint_eq(f, 51);
	ck_assert_msg(moved > 0 && fabs((double)on0 / T_FLOWS - 0.2) < 0.03,
		      "%u flows moved, %u on member 0", moved, on0);
	h_weight(&h, 0, 0, 4);
	ecmp_flows(&h, after);
	ck_assert(memcmp(after, before, sizeof(before)) == 0);
	h_stop(&h);
}
END_TEST

/* ---------------------------------------------------------------- */
/* rr: the ablation of ofan. */

/*
 * Two destinations A, B alternating A B A B ... over two members.  rr's
 * shared counter gives A every even count and B every odd one, so each
 * destination always uses the same member; ofan alternates both.
 */
START_TEST(test_rr_shared_counter)
{
	uint64_t rr_a[2] = { 0 }, ofan_a[2] = { 0 }, ofan_b[2] = { 0 };
	uint64_t rr_b[2] = { 0 };
	struct harness r, o;
	unsigned int i;

	h_params(&r, lb_find("rr"), T_SEED);
	h_start(&r);
	h_group(&r, 0, 2, NULL);
	ofan_start(&o, T_SEED, 1, 1, 0);
	h_group(&o, 0, 2, NULL);
	for (i = 0; i < 1000; i++) {
		uint32_t dst = i & 1;

		if (dst == 0) {
			rr_a[h_pick1(&r, 0, 1, dst, 0, 0)]++;
			ofan_a[h_pick1(&o, 0, 1, dst, 0, 0)]++;
		} else {
			rr_b[h_pick1(&r, 0, 2, dst, 0, 0)]++;
			ofan_b[h_pick1(&o, 0, 2, dst, 0, 0)]++;
		}
	}
	/* rr: the aggregate is exact, each destination is one-sided. */
	ck_assert_uint_eq(rr_a[0] + rr_b[0], 500);
	ck_assert_uint_eq(max_minus_min(rr_a, 2), 500);
	ck_assert_uint_eq(max_minus_min(rr_b, 2), 500);
	ck_assert_uint_eq(ofan_a[0], 250);
	ck_assert_uint_eq(ofan_b[0], 250);

	/* The counter is shared by groups too: alternating two groups of 4
	 * leaves each group on half its members. */
	h_group(&r, 1, 4, NULL);
	h_group(&r, 2, 4, NULL);
	{
		uint64_t g1[4] = { 0 };

		for (i = 0; i < 1000; i++) {
			g1[h_pick1(&r, 1, 1, 0, 0, 0)]++;
			h_pick1(&r, 2, 1, 0, 0, 0);
		}
		ck_assert_uint_eq(max_minus_min(g1, 4), 500);
	}
	h_stop(&r);
	h_stop(&o);
}
END_TEST

/*
 * [rr] permute = 5, htsim's RR: the shared counter goes back to 0 after
 * 5 rounds of the group and the order is shuffled, so within each 20
 * picks of 4-member groups every member gets exactly 5, in one order
 * repeated -- at a ToR one order for all its groups, and a single route
 * takes no turn; the order changes from cycle to cycle (4! orders: the
 * same one again 1 time in 24); the same seed picks the same members.
 * Above the ToR a group's first order is its own.
 */
START_TEST(test_rr_permute)
{
	uint16_t first[50][4];
	unsigned int run, c, i, changes = 0;

	for (run = 0; run < 2; run++) {
		struct ofan_cfg *cfg = t_cfg_from("test_lb", "[rr]\npermute = 5\n");
		struct harness r;

		h_params(&r, lb_find("rr"), T_SEED);
		ck_assert_int_eq(lb_settings_from_cfg(cfg, &r.set), 0);
		ofan_cfg_free(cfg);
		h_start(&r);
		h_group(&r, 0, 4, NULL);
		h_group(&r, 1, 4, NULL);
		h_group(&r, 2, 1, NULL);
		for (c = 0; c < 50; c++) {
			uint64_t cnt[4] = { 0 };
			uint16_t pick[20];

			for (i = 0; i < 20; i++) {
				/* A ToR: its groups share one order and
				 * single routes take no turn (htsim). */
				ck_assert_uint_eq(h_pick1(&r, 2, 1, 0, 0, 0),
						  0);
				pick[i] = h_pick1(&r, i & 1, 1 + (i & 1), 0,
						  0, 0);
				ck_assert_uint_lt(pick[i], 4);
				cnt[pick[i]]++;
				ck_assert_uint_eq(pick[i], pick[i % 4]);
			}
			ck_assert_uint_eq(max_minus_min(cnt, 4), 0);
			if (run == 0) {
				memcpy(first[c], pick, sizeof(first[c]));
				changes += c > 0 &&
					memcmp(first[c], first[c - 1],
					       sizeof(first[c])) != 0;
			} else {
				ck_assert_mem_eq(first[c], pick,
						 sizeof(first[c]));
			}
		}
		h_stop(&r);
	}
	ck_assert_uint_ge(changes, 40);

	/* Above the ToR each group has its own order, first as given. */
	{
		struct ofan_cfg *cfg = t_cfg_from("test_lb", "[rr]\npermute = 5\n");
		struct harness r;

		h_params(&r, lb_find("rr"), T_SEED);
		r.p.tier = 1;
		ck_assert_int_eq(lb_settings_from_cfg(cfg, &r.set), 0);
		ofan_cfg_free(cfg);
		h_start(&r);
		h_group(&r, 0, 4, NULL);
		for (i = 0; i < 20; i++)
			ck_assert_uint_eq(h_pick1(&r, 0, 1, 0, 0, 0), i % 4);
		h_stop(&r);
	}
}
END_TEST

/*
 * [rr_ecmp] permute = 5: its ToRs pick exactly as rr with [rr] permute =
 * 5 (the same seed, the same members, one order per 5 rounds); without
 * it they rotate in a fixed order, as rr does by default.
 */
START_TEST(test_rr_ecmp_permute)
{
	static const char *const texts[] = {
		"[rr_ecmp]\npermute = 5\n", "[rr]\npermute = 5\n", "",
	};
	static const char *const names[] = { "rr_ecmp", "rr", "rr_ecmp" };
	uint16_t pick[3][200];
	unsigned int k, i, fixed = 1;

	for (k = 0; k < 3; k++) {
		struct ofan_cfg *cfg = t_cfg_from("test_lb", texts[k]);
		struct harness r;

		h_params(&r, lb_find(names[k]), T_SEED);
		ck_assert_int_eq(lb_settings_from_cfg(cfg, &r.set), 0);
		ofan_cfg_free(cfg);
		h_start(&r);
		h_group(&r, 0, 4, NULL);
		for (i = 0; i < 200; i++)
			pick[k][i] = h_pick1(&r, 0, 1, 0, 0, 0);
		h_stop(&r);
	}
	ck_assert_mem_eq(pick[0], pick[1], sizeof(pick[0]));
	for (i = 4; i < 200; i++)
		fixed &= pick[2][i] == pick[2][i - 4];
	ck_assert_uint_eq(fixed, 1);
	ck_assert(memcmp(pick[0], pick[2], sizeof(pick[0])) != 0);
}
END_TEST

/* ---------------------------------------------------------------- */
/* adaptive. */

START_TEST(test_adaptive_least_level)
{
	struct harness h;
	struct ofan_rng rng;
	unsigned int i, k;

	h_params(&h, lb_find("adaptive"), T_SEED);
	h_start(&h);
	h_group(&h, 0, 8, NULL);
	h_weight(&h, 0, 3, 0);
	ofan_rng_seed(&rng, 6, 6);
	for (i = 0; i < 10000; i++) {
		uint16_t min = UINT16_MAX, m;

		for (k = 0; k < 8; k++)
			h.level[h.grp[0].port[k]] =
				(uint8_t)ofan_rng_below(&rng, 8);
		h.level[h.grp[0].port[3]] = 0;	/* dead, and empty */
		for (k = 0; k < 8; k++)
			if (k != 3 && h_level(&h, 0, (uint16_t)k) < min)
				min = h_level(&h, 0, (uint16_t)k);
		m = h_pick1(&h, 0, i, 0, 0, 0);
		ck_assert_uint_ne(m, 3);
		ck_assert_uint_eq(h_level(&h, 0, m), min);
	}
	h_stop(&h);
}
END_TEST

/*
 * Levels do not move within a burst; with queue lengths in the view the
 * policy counts its own picks, so a burst into empty queues is dealt out
 * evenly instead of all landing on one member (or at random).
 */
START_TEST(test_adaptive_burst_accounting)
{
	static uint32_t len[T_NB_PORTS], cap[T_NB_PORTS];
	struct lb_pkt pkts[8];
	uint16_t out[8], count[4] = { 0 };
	struct harness h;
	unsigned int i;

	h_params(&h, lb_find("adaptive"), T_SEED);
	/* Capacity 7 with 8 levels: one level per queued packet. */
	for (i = 0; i < T_NB_PORTS; i++)
		cap[i] = 7;
	h.view.port_len = len;
	h.view.port_cap = cap;
	h_start(&h);
	h_group(&h, 0, 4, NULL);
	for (i = 0; i < 8; i++)
		pkts[i] = (struct lb_pkt){ .grp = &h.grp[0], .flow_hash = i };
	h.ops->pick(h.state, pkts, 8, &h.view, 0, out);
	for (i = 0; i < 8; i++) {
		ck_assert_uint_lt(out[i], 4);
		count[out[i]]++;
	}
	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(count[i], 2);
	/* The next burst starts from the engine's lengths again. */
	len[h.grp[0].port[0]] = 7;	/* the top level */
	h.ops->pick(h.state, pkts, 3, &h.view, 0, out);
	for (i = 0; i < 3; i++)
		ck_assert_uint_ne(out[i], 0);
	h_stop(&h);
}
END_TEST

START_TEST(test_adaptive_ties)
{
	uint64_t counts[8] = { 0 }, tied[3];
	struct harness h;
	unsigned int i;
	double sd;

	h_params(&h, lb_find("adaptive"), T_SEED);
	h_start(&h);
	h_group(&h, 0, 8, NULL);
	for (i = 0; i < 8; i++)
		h.level[h.grp[0].port[i]] = 5;
	h.level[h.grp[0].port[1]] = 2;
	h.level[h.grp[0].port[4]] = 2;
	h.level[h.grp[0].port[6]] = 2;
	for (i = 0; i < 30000; i++)
		counts[h_pick1(&h, 0, i, 0, 0, 0)]++;
	ck_assert_uint_eq(counts[1] + counts[4] + counts[6], 30000);
	tied[0] = counts[1];
	tied[1] = counts[4];
	tied[2] = counts[6];
	sd = t_rel_sd(tied, 3);
	fprintf(stderr, "adaptive: 3-way tie over 30000 picks: rel sd %.5f\n",
		sd);
	ck_assert_double_le(sd, t_rel_sd_bound(3, 30000));
	ck_assert_uint_eq(h_dump(&h, "ties"), 30000);
	/* A unique minimum takes everything and breaks no tie. */
	h.level[h.grp[0].port[4]] = 1;
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(h_pick1(&h, 0, i, 0, 0, 0), 4);
	ck_assert_uint_eq(h_dump(&h, "ties"), 30000);
	h_stop(&h);
}
END_TEST

/* ---------------------------------------------------------------- */
/* flowlet. */

/* Hash of flow i < 4096: distinct flows never share a table bucket. */
static uint32_t
flowlet_hash(uint32_t i)
{
	return ofan_hash_mix32(i) << 12 | i;
}

static void
flowlet_start(struct harness *h, uint8_t repick)
{
	h_params(h, lb_find("flowlet"), T_SEED);
	H_FLOWLET(h)->gap_ns = T_GAP_NS;
	H_FLOWLET(h)->repick = repick;
	h_start(h);
	h_group(h, 0, 8, NULL);
}

START_TEST(test_flowlet_gap)
{
	struct harness h;
	uint64_t now = 1000;
	uint16_t m, first;
	unsigned int i, changed = 0;

	flowlet_start(&h, LB_FLOWLET_RANDOM);
	first = h_pick1(&h, 0, 0x1234, 0, 0, now);
	for (i = 0; i < 99; i++) {
		now += T_GAP_NS / 2;
		ck_assert_uint_eq(h_pick1(&h, 0, 0x1234, 0, 0, now), first);
	}
	/* Exactly the gap still continues the flowlet; one more ns ends it. */
	now += T_GAP_NS;
	ck_assert_uint_eq(h_pick1(&h, 0, 0x1234, 0, 0, now), first);
	ck_assert_uint_eq(h_dump(&h, "flowlets"), 1);
	ck_assert_uint_eq(h_dump(&h, "hits"), 100);
	now += T_GAP_NS + 1;
	h_pick1(&h, 0, 0x1234, 0, 0, now);
	ck_assert_uint_eq(h_dump(&h, "flowlets"), 2);
	ck_assert_uint_eq(h_dump(&h, "hits"), 100);

	/* After a gap, 1000 flows repick: about 7/8 change member. */
	for (i = 0; i < 1000; i++)
		h_pick1(&h, 0, flowlet_hash(i), 0, 0, now);
	for (i = 0; i < 1000; i++) {
		uint32_t hash = flowlet_hash(i);

		m = h_pick1(&h, 0, hash, 0, 0, now + 10);
		if (h_pick1(&h, 0, hash, 0, 0, now + 2 * T_GAP_NS) != m)
			changed++;
	}
	ck_assert_uint_gt(changed, 800);
	ck_assert_uint_lt(changed, 950);
	h_stop(&h);
}
END_TEST

START_TEST(test_flowlet_member_dies)
{
	static uint16_t before[200];
	struct harness h;
	uint64_t flowlets;
	uint16_t victim;
	unsigned int i, nb_victim = 0;

	flowlet_start(&h, LB_FLOWLET_RANDOM);
	for (i = 0; i < 200; i++)
		before[i] = h_pick1(&h, 0, flowlet_hash(i), 0, 0, 1000);
	victim = before[0];
	h_weight(&h, 0, victim, 0);
	flowlets = h_dump(&h, "flowlets");
	for (i = 0; i < 200; i++) {
		uint16_t m = h_pick1(&h, 0, flowlet_hash(i), 0, 0, 2000);

		ck_assert_uint_ne(m, victim);
		if (before[i] == victim)
			nb_victim++;
		else
			ck_assert_uint_eq(m, before[i]);
	}
	/* Only the victim's flows started new flowlets, within the gap. */
	ck_assert_uint_gt(nb_victim, 0);
	ck_assert_uint_eq(h_dump(&h, "flowlets"), flowlets + nb_victim);
	h_stop(&h);
}
END_TEST

START_TEST(test_flowlet_least_loaded)
{
	struct harness h;
	unsigned int i, k;

	flowlet_start(&h, LB_FLOWLET_LEAST_LOADED);
	for (k = 0; k < 8; k++)
		h.level[h.grp[0].port[k]] = 4;
	h.level[h.grp[0].port[3]] = 1;
	for (i = 0; i < 500; i++)
		ck_assert_uint_eq(h_pick1(&h, 0, flowlet_hash(i), 0, 0,
					  1000), 3);
	/* Member 5 becomes the least loaded: running flowlets stay. */
	h.level[h.grp[0].port[5]] = 0;
	for (i = 0; i < 500; i++)
		ck_assert_uint_eq(h_pick1(&h, 0, flowlet_hash(i), 0, 0,
					  2000), 3);
	for (i = 500; i < 1000; i++)
		ck_assert_uint_eq(h_pick1(&h, 0, flowlet_hash(i), 0, 0,
					  2000), 5);
	h_stop(&h);

	/* Random repick ignores the levels. */
	flowlet_start(&h, LB_FLOWLET_RANDOM);
	h.level[h.grp[0].port[3]] = 0;
	k = 0;
	for (i = 0; i < 500; i++)
		k += h_pick1(&h, 0, flowlet_hash(i), 0, 0, 1000) != 3;
	ck_assert_uint_gt(k, 400);
	h_stop(&h);
}
END_TEST

START_TEST(test_flowlet_evictions)
{
	struct harness h;
	unsigned int i;

	h_params(&h, lb_find("flowlet"), T_SEED);
	H_FLOWLET(&h)->table_size = 64;
	h_start(&h);
	h_group(&h, 0, 8, NULL);
	/* Two flows sharing bucket 5 evict each other at every packet. */
	for (i = 0; i < 10; i++) {
		h_pick1(&h, 0, 0x100 | 5, 0, 0, 1000 + i);
		h_pick1(&h, 0, 0x200 | 5, 0, 0, 1000 + i);
	}
	ck_assert_uint_eq(h_dump(&h, "flowlets"), 20);
	ck_assert_uint_eq(h_dump(&h, "evictions"), 19);
	ck_assert_uint_eq(h_dump(&h, "hits"), 0);
	/* Flows in different buckets do not. */
	for (i = 0; i < 10; i++) {
		h_pick1(&h, 0, 0x100 | 6, 0, 0, 2000 + i);
		h_pick1(&h, 0, 0x200 | 7, 0, 0, 2000 + i);
	}
	ck_assert_uint_eq(h_dump(&h, "flowlets"), 22);
	ck_assert_uint_eq(h_dump(&h, "hits"), 18);
	h_stop(&h);
}
END_TEST

/* ---------------------------------------------------------------- */
/* parse(): each policy reads and validates its own section. */


/*
 * Run every registered parse() and the engine's [queue] levels over text;
 * returns the first error.
 */
static int
parse_all(const char *text, struct lb_settings_table *st,
	  struct lb_levels *lv, char *msg, size_t size)
{
	struct ofan_cfg *cfg = t_cfg_from("test_lb", text);
	int ret;

	lb_settings_defaults(st);
	lb_levels_defaults(lv);
	ret = lb_settings_from_cfg(cfg, st);
	if (ret == 0)
		ret = lb_levels_from_cfg(cfg, "queue", lv);
	if (ret == 0)
		ret = ofan_cfg_check_unknown(cfg);
	snprintf(msg, size, "%s", ofan_cfg_error(cfg));
	ofan_cfg_free(cfg);
	return ret;
}

START_TEST(test_parse_knobs)
{
	const struct lb_flowlet_settings *fl;
	const struct lb_ofan_settings *of;
	struct lb_settings_table st;
	struct lb_levels lv;
	char msg[512];

	/* Absent sections keep the defaults. */
	fl = lb_settings_of(&st, lb_find("flowlet"));
	of = lb_settings_of(&st, lb_find("ofan"));
	ck_assert_int_eq(parse_all("", &st, &lv, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(fl->gap_ns, 50000);
	ck_assert_uint_eq(of->shuffle, 1);

	ck_assert_int_eq(parse_all("[ofan]\nnudge_cycles = 16\n"
				   "shuffle = no\nrandom_start = off\n"
				   "[flowlet]\ngap = 20us\n"
				   "table_size = 65536\n"
				   "repick = least_loaded\n"
				   "[queue]\nlevels = 4\n",
				   &st, &lv, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(of->nudge_cycles, 16);
	ck_assert_uint_eq(of->shuffle, 0);
	ck_assert_uint_eq(of->random_start, 0);
	ck_assert_uint_eq(fl->gap_ns, 20000);
	ck_assert_uint_eq(fl->table_size, 65536);
	ck_assert_uint_eq(fl->repick, LB_FLOWLET_LEAST_LOADED);
	ck_assert_uint_eq(lv.nb_levels, 4);
	ck_assert_uint_eq(lv.nb_thresholds, 0);

	ck_assert_int_eq(parse_all("[queue]\nlevel_thresholds = 0.05, 0.1,0.2\n",
				   &st, &lv, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(lv.nb_thresholds, 3);
	ck_assert_uint_eq(lv.nb_levels, 4);
	ck_assert_uint_eq(lv.threshold[0], 50000);
	ck_assert_uint_eq(lv.threshold[1], 100000);
	ck_assert_uint_eq(lv.threshold[2], 200000);
}
END_TEST

/*
 * Queue levels (lb_queue_level): linear -- anything queued is above
 * empty -- or htsim's thresholds, where a short queue ties with an empty
 * one; packets and bytes both count, the fuller decides.
 */
START_TEST(test_levels)
{
	struct lb_levels lin = { .nb_levels = 8 };
	struct lb_levels th = { .nb_levels = 4, .nb_thresholds = 3,
				.threshold = { 50000, 100000, 200000 } };

	/* Linear, 8 levels of a 99-packet queue. */
	ck_assert_uint_eq(lb_queue_level(0, 99, 0, UINT64_MAX, &lin), 0);
	ck_assert_uint_eq(lb_queue_level(1, 99, 0, UINT64_MAX, &lin), 1);
	ck_assert_uint_eq(lb_queue_level(50, 99, 0, UINT64_MAX, &lin), 4);
	ck_assert_uint_eq(lb_queue_level(99, 99, 0, UINT64_MAX, &lin), 7);
	/* Bytes bind first: 1 packet of 400000 bytes in a 415000 queue. */
	ck_assert_uint_eq(lb_queue_level(1, 4096, 400000, 415000, &lin), 7);
	/* Thresholds at 5, 10, 20 % of 415000 bytes (20750, 41500, 83000). */
	ck_assert_uint_eq(lb_queue_level(1, 4096, 4150, 415000, &th), 0);
	ck_assert_uint_eq(lb_queue_level(4, 4096, 20749, 415000, &th), 0);
	ck_assert_uint_eq(lb_queue_level(5, 4096, 20750, 415000, &th), 1);
	ck_assert_uint_eq(lb_queue_level(9, 4096, 41500, 415000, &th), 2);
	ck_assert_uint_eq(lb_queue_level(20, 4096, 83000, 415000, &th), 3);
	ck_assert_uint_eq(lb_queue_level(100, 4096, 415000, 415000, &th), 3);
	/* Packets bind: 25 % of a 100-packet queue of ACKs. */
	ck_assert_uint_eq(lb_queue_level(25, 100, 1950, 415000, &th), 3);
	ck_assert_uint_eq(lb_queue_level(0, 100, 0, 415000, &th), 0);
}
END_TEST

/*
 * With byte counts in the view, adaptive weighs queues by bytes: a queue
 * of few large frames is fuller than one of many ACKs; the frames the
 * burst itself sends count too.
 */
START_TEST(test_adaptive_bytes)
{
	static uint32_t len[T_NB_PORTS], cap[T_NB_PORTS];
	static uint64_t bytes[T_NB_PORTS], cap_bytes[T_NB_PORTS];
	struct lb_pkt pkts[4];
	uint16_t out[4];
	struct harness h;
	unsigned int i;

	h_params(&h, lb_find("adaptive"), T_SEED);
	for (i = 0; i < T_NB_PORTS; i++) {
		cap[i] = 4096;
		cap_bytes[i] = 41500;	/* 10 frames of 4150 */
	}
	h.view.port_len = len;
	h.view.port_cap = cap;
	h.view.port_bytes = bytes;
	h.view.port_cap_bytes = cap_bytes;
	h_start(&h);
	h_group(&h, 0, 2, NULL);
	/* Member 0: 20 ACKs (1560 bytes); member 1: 3 full frames. */
	len[h.grp[0].port[0]] = 20;
	bytes[h.grp[0].port[0]] = 1560;
	len[h.grp[0].port[1]] = 3;
	bytes[h.grp[0].port[1]] = 3 * 4150;
	for (i = 0; i < 4; i++)
		pkts[i] = (struct lb_pkt){ .grp = &h.grp[0], .len = 4150 };
	h.ops->pick(h.state, pkts, 4, &h.view, 0, out);
	/* 8 levels of 5187.5 bytes: member 0 is at level 1 (1560), member 1
	 * at 2 (12450); 0 takes frames until it is at level 2 or above. */
	ck_assert_uint_eq(out[0], 0);
	ck_assert_uint_eq(out[1], 0);
	h_stop(&h);
}
END_TEST

START_TEST(test_parse_errors)
{
	static const struct {
		const char *text;
		const char *where;	/* "section:key" in the message */
		const char *what;	/* and a word of the complaint */
	} bad[] = {
		{ "[flowlet]\ntable_size = 1000\n", "flowlet:table_size",
		  "power of two" },
		{ "[flowlet]\ntable_size = 32\n", "flowlet:table_size",
		  "32" },
		{ "[flowlet]\ngap = 2s\n", "flowlet:gap", "2s" },
		{ "[flowlet]\ngap = 0\n", "flowlet:gap", "0" },
		{ "[flowlet]\nrepick = nearest\n", "flowlet:repick",
		  "least_loaded" },
		{ "[queue]\nlevels = 1\n", "queue:levels", "1" },
		{ "[queue]\nlevels = 17\n", "queue:levels", "17" },
		{ "[queue]\nlevel_thresholds = 0.2, 0.1\n", "queue:level_thresholds",
		  "0.2, 0.1" },
		{ "[queue]\nlevel_thresholds = 0.05, 1.5\n", "queue:level_thresholds",
		  "increasing fractions" },
		{ "[queue]\nlevel_thresholds = 0.05 0.1\n", "queue:level_thresholds",
		  "0.05 0.1" },
		{ "[queue]\nlevel_thresholds =\n", "queue:level_thresholds", "" },
		{ "[queue]\nlevels = 4\nlevel_thresholds = 0.1\n",
		  "queue:levels", "one of levels" },
		{ "[ofan]\nnudge_cycles = 12abc\n", "ofan:nudge_cycles",
		  "12abc" },
		{ "[ofan]\nnudge_cycles = 1000001\n", "ofan:nudge_cycles",
		  "1000001" },
		{ "[ofan]\nshuffle = maybe\n", "ofan:shuffle", "maybe" },
		{ "[ofan]\nrotate = yes\n", "ofan:rotate", "unknown" },
	};
	struct lb_settings_table st;
	struct lb_levels lv;
	char msg[512];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse_all(bad[i].text, &st, &lv, msg, sizeof(msg)) ==
			      -EINVAL, "'%s' was accepted", bad[i].text);
		if (i == 0)
			fprintf(stderr, "parse: %s\n", msg);
		ck_assert_msg(strstr(msg, bad[i].where) != NULL &&
			      strstr(msg, bad[i].what) != NULL,
			      "'%s': message '%s'", bad[i].text, msg);
	}
}
END_TEST

/* ---------------------------------------------------------------- */
/* htsim's strategies: ecmp_ar, rr_ecmp, fib_llss. */

/*
 * ecmp_ar: a flow's packets keep their ECMP member unless the coin sends
 * them to a best-level member while theirs is at the worst level:
 *  - every queue at one level: the hashed member is the worst, so half
 *    of the packets leave it, spread evenly over the 8 members (a
 *    leaver lands on any member, its own included: 7/16 leave);
 *  - the hashed member below the worst level: no packet moves;
 *  - the hashed member the worst, member 5 alone the best: half go to 5.
 */
START_TEST(test_ecmp_ar)
{
	const unsigned int nb = 64000, n = 8;
	struct harness h, e;
	uint64_t counts[8] = { 0 }, moved = 0;
	uint16_t home, m;
	unsigned int i;
	uint32_t hash = 0x12345;

	h_params(&e, lb_find("ecmp"), T_SEED);
	h_start(&e);
	h_group(&e, 0, (uint16_t)n, NULL);
	home = h_pick1(&e, 0, hash, 0, LB_KIND_DATA, 0);
	h_stop(&e);

	h_params(&h, lb_find("ecmp_ar"), T_SEED);
	h_start(&h);
	h_group(&h, 0, (uint16_t)n, NULL);
	for (i = 0; i < nb; i++) {
		m = h_pick1(&h, 0, hash, 0, LB_KIND_DATA, i);
		counts[m]++;
		moved += m != home;
	}
	ck_assert_msg(fabs((double)moved / nb - 7.0 / 16) < 0.01,
		      "%" PRIu64 " of %u moved", moved, nb);
	for (i = 0; i < n; i++) {
		double want = i == home ? nb * 9.0 / 16 : nb / 16.0;

		ck_assert_msg(fabs((double)counts[i] - want) < 0.05 * want,
			      "member %u: %" PRIu64 ", expected %.0f", i,
			      counts[i], want);
	}
	/* The coin sent half of them through the escape (dump). */
	ck_assert_msg(fabs((double)h_dump(&h, "escaped") / nb - 0.5) < 0.01,
		      "escaped %" PRIu64 " of %u", h_dump(&h, "escaped"), nb);

	/* Below the worst: it stays. */
	h.level[h.grp[0].port[(home + 1) % n]] = 3;
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(h_pick1(&h, 0, hash, 0, LB_KIND_DATA, i), home);

	/* The worst, with one best member. */
	for (i = 0; i < n; i++)
		h.level[h.grp[0].port[i]] = i == 5 ? 0 : 2;
	h.level[h.grp[0].port[home]] = 2;
	if (home == 5)
		h.level[h.grp[0].port[4]] = 0;	/* another best */
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < nb; i++)
		counts[h_pick1(&h, 0, hash, 0, LB_KIND_DATA, i)]++;
	ck_assert_msg(fabs((double)counts[home == 5 ? 4 : 5] / nb - 0.5) < 0.01,
		      "%" PRIu64 " of %u to the best", counts[home == 5 ? 4 : 5],
		      nb);
	h_stop(&h);
}
END_TEST

/*
 * rr_ecmp: at tier 0 the picks are rr's, pick for pick; above, ecmp's.
 */
START_TEST(test_rr_ecmp)
{
	const char *const as[] = { "rr", "ecmp", "ecmp" };
	uint8_t tier;
	unsigned int i;

	for (tier = 0; tier < 3; tier++) {
		struct harness h, r;
		struct ofan_rng rng;

		h_params(&h, lb_find("rr_ecmp"), T_SEED);
		h_params(&r, lb_find(as[tier]), T_SEED);
		h.p.tier = r.p.tier = tier;
		h_start(&h);
		h_start(&r);
		h_group(&h, 0, 6, NULL);
		h_group(&r, 0, 6, NULL);
		ofan_rng_seed(&rng, 3, 3);
		for (i = 0; i < 10000; i++) {
			uint32_t hash = (uint32_t)ofan_rng_next(&rng);
			uint32_t dst = ofan_rng_below(&rng, 16);

			ck_assert_uint_eq(h_pick1(&h, 0, hash, dst, 0, i),
					  h_pick1(&r, 0, hash, dst, 0, i));
		}
		h_stop(&h);
		h_stop(&r);
	}
}
END_TEST

/*
 * fib_llss: per destination key and kind, consecutive packets take the
 * live members in order from a random start, whatever the other keys
 * and kinds do in between; a dead member leaves the list; weights repeat
 * a member in consecutive turns (3:1:2 gives a a a b c c).
 */
START_TEST(test_fib_llss)
{
	static const uint16_t w[3] = { 3, 1, 2 };
	static const uint16_t cycle[6] = { 0, 0, 0, 1, 2, 2 };
	struct harness h;
	struct ofan_rng rng;
	uint16_t last[16][2], m, seq[12];
	bool seen[16][2] = { { false } };
	unsigned int i, k, start;

	h_params(&h, lb_find("fib_llss"), T_SEED);
	h_start(&h);
	h_group(&h, 0, 5, NULL);
	ofan_rng_seed(&rng, 4, 4);
	for (i = 0; i < 20000; i++) {
		uint32_t dst = ofan_rng_below(&rng, 16);
		uint8_t kind = (uint8_t)ofan_rng_below(&rng, 2);

		m = h_pick1(&h, 0, (uint32_t)ofan_rng_next(&rng), dst, kind, i);
		ck_assert_uint_lt(m, 5);
		if (seen[dst][kind])
			ck_assert_uint_eq(m, (last[dst][kind] + 1) % 5);
		seen[dst][kind] = true;
		last[dst][kind] = m;
	}
	/* Member 2 dead: 0 1 3 4. */
	h_weight(&h, 0, 2, 0);
	m = h_pick1(&h, 0, 0, 1, 0, 0);
	for (i = 0; i < 100; i++) {
		uint16_t next = h_pick1(&h, 0, 0, 1, 0, 0);

		ck_assert_uint_ne(next, 2);
		ck_assert_uint_eq(next, m == 4 ? 0 : m == 1 ? 3 : m + 1);
		m = next;
	}
	h_stop(&h);

	h_params(&h, lb_find("fib_llss"), T_SEED);
	h_start(&h);
	h_group(&h, 0, 3, w);
	/* Twelve picks are two turns of the cycle from some start. */
	for (k = 0; k < 12; k++)
		seq[k] = h_pick1(&h, 0, 0, 7, 0, 0);
	for (start = 0; start < 6; start++) {
		for (k = 0; k < 12 && seq[k] == cycle[(start + k) % 6]; k++)
			;
		if (k == 12)
			break;
	}
	ck_assert_msg(start < 6, "3:1:2 is not a a a b c c");
	h_stop(&h);
}
END_TEST

/*
 * sr on a k = 4 fat tree (radix 2, the EV base 49152): a host rotating
 * its path index (drb) takes the ToR's uplink from digit 0 and the
 * aggregation switch's from digit 1, so every 4 packets cross the 4
 * (uplink, uplink) pairs -- the 4 cores -- once each.  A dead member's
 * digit wraps over the live ones; an EV below the base wraps too.
 */
START_TEST(test_sr)
{
	struct harness tor, agg;
	unsigned int i, k, seen;
	uint16_t a, b;

	h_params(&tor, lb_find("sr"), T_SEED);
	h_params(&agg, lb_find("sr"), T_SEED);
	((struct lb_sr_settings *)h_settings(&tor))->radix = 2;
	((struct lb_sr_settings *)h_settings(&agg))->radix = 2;
	agg.p.tier = 1;
	h_start(&tor);
	h_start(&agg);
	h_group(&tor, 0, 2, NULL);
	h_group(&agg, 0, 2, NULL);
	for (k = 0; k < 100; k++) {
		seen = 0;
		for (i = 0; i < 4; i++) {
			uint16_t ev = (uint16_t)(49152 + (3 + 4 * k + i) % 4);

			a = h_pick1(&tor, 0, ev, 0, LB_KIND_DATA, 0);
			b = h_pick1(&agg, 0, ev, 0, LB_KIND_DATA, 0);
			ck_assert_uint_eq(a, (3 + i) % 2);
			ck_assert_uint_eq(b, (3 + i) % 4 / 2);
			seen |= 1u << (a + 2 * b);
		}
		ck_assert_uint_eq(seen, 0xf);
	}
	ck_assert_uint_eq(h_dump(&tor, "wrapped"), 0);
	/* Member 1 dead: its digit wraps to the live member. */
	h_weight(&tor, 0, 1, 0);
	ck_assert_uint_eq(h_pick1(&tor, 0, 49153, 0, LB_KIND_DATA, 0), 0);
	ck_assert_uint_eq(h_dump(&tor, "wrapped"), 1);
	/* Below the base: (uint16_t)(ev - base), digit 65535 % 2 = 1. */
	h_weight(&tor, 0, 1, 1);
	ck_assert_uint_eq(h_pick1(&tor, 0, 49151, 0, LB_KIND_DATA, 0), 1);
	h_stop(&tor);
	h_stop(&agg);
}
END_TEST

/* ---------------------------------------------------------------- */

static Suite *
lb_suite(void)
{
	Suite *s = suite_create("lb");
	struct lb_settings_table set;
	struct lb_flowlet_settings *fl;
	struct lb_ofan_settings *of;
	TCase *tc;
	int i;

	tc = tcase_create("registry");
	tcase_add_test(tc, test_registry_find);
	tcase_add_test(tc, test_registry_names);
	tcase_add_test(tc, test_register_refuses);
	tcase_add_test(tc, test_registry_describe);
	tcase_add_test(tc, test_params_defaults);
	tcase_add_test(tc, test_group_refresh);
	tcase_add_test(tc, test_group_weights);
	tcase_add_test(tc, test_create_rejects);
	tcase_add_test(tc, test_ecmp_ar);
	tcase_add_test(tc, test_rr_ecmp);
	tcase_add_test(tc, test_fib_llss);
	tcase_add_test(tc, test_sr);
	suite_add_tcase(s, tc);

	for (i = 0; i < nb_policies(); i++)
		suite_add_tcase(s, lb_conformance_tcase(lb_registry[i], NULL));
	/* The knobs away from their defaults. */
	lb_settings_defaults(&set);
	of = (struct lb_ofan_settings *)lb_settings_of(&set, lb_find("ofan"));
	of->shuffle = 0;
	of->random_start = 0;
	of->nudge_cycles = 3;
	suite_add_tcase(s, lb_conformance_tcase(lb_find("ofan"), of));
	fl = (struct lb_flowlet_settings *)lb_settings_of(&set,
							  lb_find("flowlet"));
	fl->repick = LB_FLOWLET_LEAST_LOADED;
	fl->table_size = 64;
	fl->gap_ns = 1000;
	suite_add_tcase(s, lb_conformance_tcase(lb_find("flowlet"), fl));

	tc = tcase_create("all");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_all_bursts_and_seeds, 0, nb_policies());
	tcase_add_loop_test(tc, test_all_evenness, 0, nb_policies());
	tcase_add_loop_test(tc, test_all_weighted, 0, nb_policies());
	suite_add_tcase(s, tc);

	tc = tcase_create("ofan");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ofan_exact_per_destination);
	tcase_add_test(tc, test_ofan_data_ack_independent);
	tcase_add_test(tc, test_ofan_dead_skipped_at_once);
	tcase_add_test(tc, test_ofan_weighted);
	tcase_add_test(tc, test_ofan_weight_scaling);
	tcase_add_test(tc, test_ofan_shuffle);
	tcase_add_test(tc, test_ofan_random_start);
	tcase_add_test(tc, test_ofan_nudge);
	suite_add_tcase(s, tc);

	tc = tcase_create("ecmp");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ecmp_stable);
	tcase_add_test(tc, test_ecmp_ev_change);
	tcase_add_test(tc, test_ecmp_disruption);
	tcase_add_test(tc, test_ecmp_weighted_disruption);
	suite_add_tcase(s, tc);

	tc = tcase_create("rr_adaptive_flowlet");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rr_shared_counter);
	tcase_add_test(tc, test_rr_permute);
	tcase_add_test(tc, test_rr_ecmp_permute);
	tcase_add_test(tc, test_adaptive_least_level);
	tcase_add_test(tc, test_adaptive_ties);
	tcase_add_test(tc, test_adaptive_burst_accounting);
	tcase_add_test(tc, test_adaptive_bytes);
	tcase_add_test(tc, test_levels);
	tcase_add_test(tc, test_flowlet_gap);
	tcase_add_test(tc, test_flowlet_member_dies);
	tcase_add_test(tc, test_flowlet_least_loaded);
	tcase_add_test(tc, test_flowlet_evictions);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_knobs);
	tcase_add_test(tc, test_parse_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(lb_suite());
}
