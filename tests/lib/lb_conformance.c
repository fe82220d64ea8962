/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch-policy contract as a Check test case (lb_conformance.h).
 *
 * A policy lives here in a small world of its own, the part of the
 * engine it sees: six next-hop groups over 32 ports (of 8, 5 weighted,
 * 1, 2, LB_MAX_MEMBERS and 4 members), 40 destination keys, and a view of
 * queue levels, lengths and bytes that changes every burst.  The world's
 * life is drawn from its own generator, never from the policy's picks, so
 * two runs with the same life seed show a policy exactly the same things.
 * Every pick of every life is checked against its group as it was then.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "lb.h"
#include "lb_conformance.h"
#include "ofan_config.h"
#include "ofan_rng.h"
#include "settings_conformance.h"

#define LBC_MAX_CASES 32
#define LBC_NB_GROUPS 6
#define LBC_NB_DST_KEYS 40
#define LBC_NB_PORTS 32
#define LBC_STEPS 400
#define LBC_BURST_MAX 64
#define LBC_OUT_MAX (LBC_STEPS * LBC_BURST_MAX)
#define LBC_SEED 0x5eed0fa1ull

/* What lb_conformance_tcase() was given, for the tests to find by _i. */
struct lbc_case {
	const struct lb_ops *ops;
	struct lb_settings settings;
	char name[64];
};

static struct lbc_case lbc_cases[LBC_MAX_CASES];
static unsigned int lbc_nb_cases;

/* One policy instance and the world it sees. */
struct lbc_world {
	const struct lbc_case *c;
	void *state;
	struct lb_settings settings;
	struct lb_params p;
	struct lb_levels levels;
	struct lb_group grp[LBC_NB_GROUPS];
	uint8_t level[LBC_NB_PORTS];
	uint32_t len[LBC_NB_PORTS];
	uint32_t cap[LBC_NB_PORTS];
	uint64_t bytes[LBC_NB_PORTS];
	uint64_t cap_bytes[LBC_NB_PORTS];
	struct lb_view view;
	struct ofan_rng life;	/* draws the world's life, nothing else */
	uint64_t now;
	unsigned int step;
	/* Packets of a group without a choice carry flow hash 0, as the
	 * engine gives them to a flow_hash_where_choice policy. */
	bool zero_single;
};

static const uint16_t lbc_sizes[LBC_NB_GROUPS] = {
	8, 5, 1, 2, LB_MAX_MEMBERS, 4,
};
static const uint16_t lbc_weights5[5] = { 1, 2, 3, 1, 2 };

static uint32_t
lbc_below(struct lbc_world *w, uint32_t n)
{
	return ofan_rng_below(&w->life, n);
}

/* Tell the policy that group g changed, as the engine does. */
static void
lbc_changed(struct lbc_world *w, uint16_t g)
{
	lb_group_refresh(&w->grp[g]);
	if (w->c->ops->group_changed != NULL)
		w->c->ops->group_changed(w->state, &w->grp[g]);
}

/*
 * Group g with nb members; those from index first on get a port and a
 * weight (weights NULL: 1 each).  Entries past nb keep what they held:
 * a policy must not look there.
 */
static void
lbc_group_set(struct lbc_world *w, uint16_t g, uint16_t nb, uint16_t first,
	      const uint16_t *weights)
{
	struct lb_group *grp = &w->grp[g];
	uint16_t i;

	grp->nb_members = nb;
	for (i = first; i < nb; i++) {
		grp->port[i] = (uint16_t)((5 * g + i) % LBC_NB_PORTS);
		grp->weight[i] = weights != NULL ? weights[i] : 1;
	}
	lbc_changed(w, g);
}

static void
lbc_start(struct lbc_world *w, const struct lbc_case *c, uint64_t seed,
	  uint64_t life_seed)
{
	uint16_t g;

	memset(w, 0, sizeof(*w));
	w->c = c;
	w->settings = c->settings;
	w->p.seed = seed;
	w->p.nb_groups = LBC_NB_GROUPS;
	w->p.nb_dst_keys = LBC_NB_DST_KEYS;
	w->p.nb_ports = LBC_NB_PORTS;
	w->p.settings = c->ops->settings_size > 0 ? w->settings.bytes : NULL;
	lb_levels_defaults(&w->levels);
	w->view = (struct lb_view){
		.port_level = w->level,
		.levels = &w->levels,
		.port_len = w->len,
		.port_cap = w->cap,
		.port_bytes = w->bytes,
		.port_cap_bytes = w->cap_bytes,
	};
	ofan_rng_seed(&w->life, life_seed, 7);
	w->now = 1000;
	ck_assert_msg(c->ops->create(&w->p, &w->state) == 0,
		      "%s: create() refused the parameters", c->ops->name);
	/* Every group is announced before the first pick, as the engine does. */
	for (g = 0; g < LBC_NB_GROUPS; g++) {
		w->grp[g].id = g;
		lbc_group_set(w, g, lbc_sizes[g], 0,
			      g == 1 ? lbc_weights5 : NULL);
	}
}

static void
lbc_stop(struct lbc_world *w)
{
	w->c->ops->destroy(w->state);
	w->state = NULL;
}

/*
 * One change of one group: every member dies, every member comes back,
 * the group takes a new size (new members alive), or one member dies or
 * comes back with a weight of 1 to 3.
 */
static void
lbc_change(struct lbc_world *w)
{
	uint16_t g = (uint16_t)lbc_below(w, LBC_NB_GROUPS);
	struct lb_group *grp = &w->grp[g];
	uint16_t nb = grp->nb_members, i, m;
	uint16_t weights[LB_MAX_MEMBERS];

	switch (lbc_below(w, 8)) {
	case 0:
		for (i = 0; i < nb; i++)
			grp->weight[i] = 0;
		lbc_changed(w, g);
		break;
	case 1:
		for (i = 0; i < nb; i++)
			grp->weight[i] = 1;
		lbc_changed(w, g);
		break;
	case 2:
		for (i = 0; i < LB_MAX_MEMBERS; i++)
			weights[i] = (uint16_t)(1 + lbc_below(w, 3));
		lbc_group_set(w, g, (uint16_t)(1 + lbc_below(w,
							      LB_MAX_MEMBERS)),
			      nb, weights);
		break;
	default:
		m = (uint16_t)lbc_below(w, nb);
		grp->weight[m] = grp->weight[m] != 0 ? 0 :
			(uint16_t)(1 + lbc_below(w, 3));
		lbc_changed(w, g);
		break;
	}
}

/*
 * Check out[0..n-1] against the groups of pkts as they are now.  (No
 * ck_assert per pick: each marks a point, a write in fork mode.)
 */
static void
lbc_check_picks(const struct lbc_world *w, const struct lb_pkt *pkts,
		const uint16_t *out, uint16_t n)
{
	const char *name = w->c->ops->name;
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct lb_group *grp = pkts[i].grp;

		if (grp->nb_live == 0) {
			if (out[i] != LB_NONE)
				ck_abort_msg("%s: step %u packet %u: group %u has no live member, picked %u instead of LB_NONE",
					     name, w->step, i, grp->id,
					     out[i]);
			continue;
		}
		if (out[i] >= grp->nb_members)
			ck_abort_msg("%s: step %u packet %u: picked %u, group %u has %u members (%u live)",
				     name, w->step, i, out[i], grp->id,
				     grp->nb_members, grp->nb_live);
		if (grp->weight[out[i]] == 0)
			ck_abort_msg("%s: step %u packet %u: picked dead member %u of group %u",
				     name, w->step, i, out[i], grp->id);
	}
}

/*
 * One step of the life: maybe a group change, then new queue levels, time
 * and a burst of 1 to LBC_BURST_MAX packets over every group, flow and
 * destination key, whose picks go to out.  Returns how many.
 */
static uint16_t
lbc_step(struct lbc_world *w, uint16_t *out)
{
	struct lb_pkt pkts[LBC_BURST_MAX];
	uint16_t n, i;
	uint32_t p;

	w->step++;
	if (lbc_below(w, 4) == 0)
		lbc_change(w);
	for (p = 0; p < LBC_NB_PORTS; p++) {
		w->cap[p] = 64 + lbc_below(w, 1024);
		w->len[p] = lbc_below(w, w->cap[p] + 1);
		w->bytes[p] = (uint64_t)w->len[p] * (64 + lbc_below(w, 1500));
		w->cap_bytes[p] = lbc_below(w, 4) == 0 ? UINT64_MAX :
			(uint64_t)w->cap[p] * 1500;
		w->level[p] = lb_queue_level(w->len[p], w->cap[p], w->bytes[p],
					     w->cap_bytes[p], &w->levels);
	}
	w->now += lbc_below(w, 20000);
	if (lbc_below(w, 50) == 0)
		w->now += (1 + lbc_below(w, 1000)) * 1000000ull;
	n = (uint16_t)(1 + lbc_below(w, LBC_BURST_MAX));
	for (i = 0; i < n; i++) {
		pkts[i].grp = &w->grp[lbc_below(w, LBC_NB_GROUPS)];
		pkts[i].flow_hash = ofan_hash_mix32(1 + lbc_below(w, 300));
		pkts[i].dst_key = lbc_below(w, LBC_NB_DST_KEYS);
		pkts[i].len = (uint16_t)(64 + lbc_below(w, 9000 - 64 + 1));
		pkts[i].kind = (uint8_t)lbc_below(w, LB_NB_KINDS);
		if (w->zero_single && pkts[i].grp->nb_live <= 1)
			pkts[i].flow_hash = 0;
	}
	memset(out, 0x77, n * sizeof(*out));
	w->c->ops->pick(w->state, pkts, n, &w->view, w->now, out);
	lbc_check_picks(w, pkts, out, n);
	return n;
}

/* A whole life, alone; returns how many picks went to out. */
static unsigned int
lbc_life_as(const struct lbc_case *c, uint64_t seed, uint64_t life_seed,
	    bool zero_single, uint16_t *out)
{
	struct lbc_world w;
	unsigned int nb = 0, s;

	lbc_start(&w, c, seed, life_seed);
	w.zero_single = zero_single;
	for (s = 0; s < LBC_STEPS; s++)
		nb += lbc_step(&w, out + nb);
	lbc_stop(&w);
	return nb;
}

static unsigned int
lbc_life(const struct lbc_case *c, uint64_t seed, uint64_t life_seed,
	 uint16_t *out)
{
	return lbc_life_as(c, seed, life_seed, false, out);
}

static uint16_t *
lbc_out(void)
{
	uint16_t *out = calloc(LBC_OUT_MAX, sizeof(*out));

	ck_assert_ptr_nonnull(out);
	return out;
}

/*
 * parse() over a configuration without the policy's section changes
 * nothing, neither the defaults nor the settings the case was given, and
 * neither it nor defaults() writes past settings_size.
 */
START_TEST(lbc_test_settings)
{
	const struct lbc_case *c = &lbc_cases[_i];

	t_settings_conform(c->ops->name, c->ops->defaults, c->ops->parse,
			   c->settings.bytes, c->ops->settings_size, LB_SETTINGS_MAX);
}
END_TEST

/*
 * Two lives of c with the same seed and life, the second with
 * zero_single (lbc_world): the same picks, or fail saying what.
 */
static void
lbc_same_picks(const struct lbc_case *c, uint64_t life_seed,
	       bool zero_single, const char *what)
{
	uint16_t *a = lbc_out(), *b = lbc_out();
	unsigned int na, nb;

	na = lbc_life_as(c, LBC_SEED, life_seed, false, a);
	nb = lbc_life_as(c, LBC_SEED, life_seed, zero_single, b);
	ck_assert_uint_eq(na, nb);
	ck_assert_msg(memcmp(a, b, na * sizeof(*a)) == 0, "%s: %s",
		      c->ops->name, what);
	free(a);
	free(b);
}

/* The same seed and life: the same picks. */
START_TEST(lbc_test_determinism)
{
	lbc_same_picks(&lbc_cases[_i], 1, false,
		       "same seed, same life, different picks");
}
END_TEST

/*
 * A flow_hash_where_choice policy picks the same whether or not packets
 * of a group without a choice (one live member, or none) carry their
 * hash: the engine computes it only where there is a choice.
 */
START_TEST(lbc_test_hash_where_choice)
{
	lbc_same_picks(&lbc_cases[_i], 3, true,
		       "picks depend on the flow hash of groups without a choice: clear flow_hash_where_choice");
}
END_TEST

static void
lbc_dump_emit(void *arg, const char *key, uint64_t value)
{
	const char *name = arg;

	ck_assert_msg(key != NULL && key[0] != '\0',
		      "%s: dump() emitted a value (%llu) without a name", name,
		      (unsigned long long)value);
}

/*
 * Live members only, LB_NONE exactly for dead groups (lbc_step() checks
 * each pick), over lives with other seeds; dump() names its counters.
 */
START_TEST(lbc_test_live_picks)
{
	const struct lbc_case *c = &lbc_cases[_i];
	uint16_t *out = lbc_out();
	struct lbc_world w;
	uint64_t life;
	unsigned int s;

	for (life = 2; life < 6; life++)
		lbc_life(c, LBC_SEED + life, life, out);
	lbc_start(&w, c, LBC_SEED, 6);
	for (s = 0; s < LBC_STEPS; s++)
		lbc_step(&w, out);
	if (c->ops->dump != NULL)
		c->ops->dump(w.state, lbc_dump_emit, (void *)c->ops->name);
	lbc_stop(&w);
	free(out);
}
END_TEST

/* Pick for n packets alternating between groups g0 and g1. */
static void
lbc_pick_two(struct lbc_world *w, uint16_t g0, uint16_t g1, uint16_t *out,
	     uint16_t n)
{
	struct lb_pkt pkts[LBC_BURST_MAX];
	uint16_t i;

	w->step++;
	w->now += 1000;
	for (i = 0; i < n; i++) {
		pkts[i].grp = &w->grp[i % 2 == 0 ? g0 : g1];
		pkts[i].flow_hash = ofan_hash_mix32(w->step * n + i);
		pkts[i].dst_key = (w->step + i) % LBC_NB_DST_KEYS;
		pkts[i].len = 1000;
		pkts[i].kind = (uint8_t)(i / 2 % LB_NB_KINDS);
	}
	w->c->ops->pick(w->state, pkts, n, &w->view, w->now, out);
	lbc_check_picks(w, pkts, out, n);
}

/*
 * Group 0 (8 members) dies entirely: LB_NONE for it while group 3 keeps
 * its members.  One member comes back, with a weight of 2: it is the only
 * answer.  It dies again: LB_NONE again.  lbc_pick_two() checks each
 * pick against its group.
 */
START_TEST(lbc_test_none_live)
{
	const struct lbc_case *c = &lbc_cases[_i];
	struct lbc_world w;
	uint16_t out[LBC_BURST_MAX];
	unsigned int k, i;

	lbc_start(&w, c, LBC_SEED, 7);
	for (i = 0; i < w.grp[0].nb_members; i++)
		w.grp[0].weight[i] = 0;
	lbc_changed(&w, 0);
	for (k = 0; k < 30; k++)
		lbc_pick_two(&w, 0, 3, out, LBC_BURST_MAX);
	w.grp[0].weight[5] = 2;
	lbc_changed(&w, 0);
	for (k = 0; k < 30; k++)
		lbc_pick_two(&w, 0, 3, out, LBC_BURST_MAX);
	w.grp[0].weight[5] = 0;
	lbc_changed(&w, 0);
	lbc_pick_two(&w, 0, 3, out, LBC_BURST_MAX);
	lbc_stop(&w);
}
END_TEST

/*
 * An instance's picks do not depend on another instance's: its life alone
 * and its life interleaved step by step with another instance (another
 * seed, another life) give the same picks.
 */
START_TEST(lbc_test_independent)
{
	const struct lbc_case *c = &lbc_cases[_i];
	uint16_t *alone = lbc_out(), *mixed = lbc_out();
	uint16_t other[LBC_BURST_MAX];
	struct lbc_world a, b;
	unsigned int na, nb = 0, s;

	na = lbc_life(c, LBC_SEED, 8, alone);
	lbc_start(&a, c, LBC_SEED, 8);
	lbc_start(&b, c, LBC_SEED + 1, 9);
	for (s = 0; s < LBC_STEPS; s++) {
		lbc_step(&b, other);
		nb += lbc_step(&a, mixed + nb);
	}
	lbc_stop(&b);
	lbc_stop(&a);
	ck_assert_uint_eq(na, nb);
	ck_assert_msg(memcmp(alone, mixed, na * sizeof(*alone)) == 0,
		      "%s: another instance's picks changed this one's",
		      c->ops->name);
	free(alone);
	free(mixed);
}
END_TEST

TCase *
lb_conformance_tcase(const struct lb_ops *ops, const void *settings)
{
	const unsigned int k = lbc_nb_cases;
	struct lbc_case *c = &lbc_cases[k];
	TCase *tc;

	if (k == LBC_MAX_CASES || ops == NULL) {
		fprintf(stderr, "lb_conformance_tcase: no room or no policy\n");
		abort();
	}
	tc = t_conformance_tcase(ops->name, c->name, sizeof(c->name),
				 c->settings.bytes, sizeof(c->settings.bytes),
				 ops->defaults, settings, ops->settings_size);
	c->ops = ops;
	lbc_nb_cases++;
	if (ops->parse != NULL)
		tcase_add_loop_test(tc, lbc_test_settings, k, k + 1);
	tcase_add_loop_test(tc, lbc_test_determinism, k, k + 1);
	if (ops->uses_flow_hash && ops->flow_hash_where_choice)
		tcase_add_loop_test(tc, lbc_test_hash_where_choice, k, k + 1);
	tcase_add_loop_test(tc, lbc_test_live_picks, k, k + 1);
	tcase_add_loop_test(tc, lbc_test_none_live, k, k + 1);
	tcase_add_loop_test(tc, lbc_test_independent, k, k + 1);
	return tc;
}
