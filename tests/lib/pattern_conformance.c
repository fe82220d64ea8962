/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The traffic-pattern contract, pattern_conformance.h says what it holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "hs_pattern.h"
#include "hs_traffic.h"
#include "ofan_config.h"
#include "pattern_conformance.h"

#define PC_MAX_CASES 32
#define PC_SEED 7
/* The topology's sizes a pattern that needs them is given. */
#define PC_TOR 2
#define PC_POD 4

struct pc_case {
	const struct hs_pattern_ops *ops;
	char name[96];
	struct hs_pattern_settings set;
};

static struct pc_case pc_cases[PC_MAX_CASES];
static unsigned int pc_nb_cases;

static struct hs_traffic_params
pc_params(const struct pc_case *c, uint32_t ranks, uint32_t iterations)
{
	struct hs_traffic_params p = {
		.pattern = c->ops,
		.settings = c->ops->settings_size > 0 ? c->set.b : NULL,
		.nb_ranks = ranks, .size = 3000, .iterations = iterations,
		.seed = PC_SEED, .start_ns = 1000,
		.tor_size = PC_TOR, .pod_size = PC_POD,
	};

	return p;
}

/* Well-formed flows (pattern_conformance.h). */
static void
pc_check_flows(const char *name, const struct hs_traffic *t)
{
	uint32_t i;

	for (i = 0; i < t->nb_flows; i++) {
		const struct hs_flow_spec *f = &t->flows[i];

		ck_assert_msg(f->id == i, "%s: flow %u has id %u", name, i,
			      f->id);
		ck_assert_msg(f->src < t->nb_ranks && f->dst < t->nb_ranks &&
			      f->src != f->dst,
			      "%s: flow %u is %u -> %u over %u ranks", name, i,
			      f->src, f->dst, t->nb_ranks);
		ck_assert_msg(f->size > 0, "%s: flow %u has no bytes", name,
			      i);
		if (f->dep != HS_NO_DEP) {
			ck_assert_msg(f->dep < i, "%s: flow %u waits for a later flow %u",
				      name, i, f->dep);
			ck_assert_msg(t->flows[f->dep].dst == f->src,
				      "%s: flow %u waits for flow %u, which its source does not receive",
				      name, i, f->dep);
		}
		ck_assert_msg(i == 0 || f->iteration >= t->flows[i - 1].iteration,
			      "%s: flow %u's iteration goes back", name, i);
	}
}

static bool
pc_same(const struct hs_traffic *a, const struct hs_traffic *b)
{
	return a->nb_flows == b->nb_flows &&
	       memcmp(a->flows, b->flows, sizeof(*a->flows) * a->nb_flows) == 0;
}

/* Defaults within the block; parse() of a config without its keys keeps them. */
START_TEST(pc_test_settings)
{
	const struct pc_case *c = &pc_cases[_i];
	const struct hs_pattern_ops *ops = c->ops;
	const struct hs_pattern_cfg ctx = { .nb_ranks = 8 };
	unsigned char *want = malloc(HS_PATTERN_SETTINGS_MAX);
	unsigned char *got = malloc(HS_PATTERN_SETTINGS_MAX);
	struct ofan_cfg *cfg;
	char err[256];
	size_t i;

	ck_assert(want != NULL && got != NULL);
	ck_assert_uint_le(ops->settings_size, HS_PATTERN_SETTINGS_MAX);
	memset(want, 0x5a, HS_PATTERN_SETTINGS_MAX);
	memset(want, 0, ops->settings_size);
	if (ops->defaults != NULL)
		ops->defaults(want);
	for (i = ops->settings_size; i < HS_PATTERN_SETTINGS_MAX; i++)
		ck_assert_msg(want[i] == 0x5a,
			      "%s: defaults() wrote byte %zu of a %zu-byte block",
			      ops->name, i, ops->settings_size);
	if (ops->parse != NULL) {
		cfg = ofan_cfg_load_mem("conformance.ini", NULL, 0, err,
					sizeof(err));
		ck_assert_msg(cfg != NULL, "%s", err);
		memcpy(got, want, HS_PATTERN_SETTINGS_MAX);
		ck_assert_msg(ops->parse(cfg, &ctx, got) == 0,
			      "%s: parse() failed without its keys: %s",
			      ops->name, ofan_cfg_error(cfg));
		ck_assert_msg(memcmp(want, got, HS_PATTERN_SETTINGS_MAX) == 0,
			      "%s: parse() without its keys changed the defaults",
			      ops->name);
		ofan_cfg_free(cfg);
	}
	free(want);
	free(got);
}
END_TEST

/* Built or refused by a key, over rank counts; flows well formed. */
START_TEST(pc_test_flows)
{
	const struct pc_case *c = &pc_cases[_i];
	static const uint32_t ranks[] = { 2, 3, 4, 8, 12, 16 };
	unsigned int r, built = 0;

	for (r = 0; r < sizeof(ranks) / sizeof(ranks[0]); r++) {
		struct hs_traffic_params p = pc_params(c, ranks[r], 3);
		struct hs_traffic t;
		const char *key = NULL;
		char err[1024] = "", msg[512] = "";
		int rc;

		if (c->ops->build != NULL)
			p.iterations = 1;
		rc = hs_pattern_build(&p, &t, NULL, err, sizeof(err));
		if (rc != 0) {
			ck_assert_msg(rc == -EINVAL, "%s over %u ranks: rc %d: %s",
				      c->ops->name, ranks[r], rc, err);
			ck_assert_msg(err[0] != '\0', "%s: refused without a message",
				      c->ops->name);
			ck_assert_ptr_null(t.flows);
			ck_assert_uint_eq(t.nb_flows, 0);
			/* A generated pattern is refused by its checks. */
			if (c->ops->build == NULL)
				ck_assert_msg(hs_pattern_check(&p, &key, msg,
							       sizeof(msg)) != 0 &&
					      key != NULL && msg[0] != '\0',
					      "%s over %u ranks: refused (%s) but its checks pass",
					      c->ops->name, ranks[r], err);
			continue;
		}
		built++;
		ck_assert_uint_eq(t.nb_ranks, ranks[r]);
		if (c->ops->build == NULL)
			ck_assert_uint_eq(t.nb_flows,
					  c->ops->nb_flows(&p) * p.iterations);
		pc_check_flows(c->ops->name, &t);
		hs_traffic_free(&t);
	}
	ck_assert_msg(built > 0 || c->ops->build != NULL,
		      "%s: built over none of the rank counts", c->ops->name);
}
END_TEST

/* The same parameters, the same flows. */
START_TEST(pc_test_determinism)
{
	const struct pc_case *c = &pc_cases[_i];
	struct hs_traffic_params p = pc_params(c, 8, 2);
	struct hs_traffic a, b;
	char err[1024];

	if (c->ops->build != NULL)
		p.iterations = 1;
	if (hs_pattern_build(&p, &a, NULL, err, sizeof(err)) != 0)
		return;		/* refused: pc_test_flows holds that */
	ck_assert_msg(hs_pattern_build(&p, &b, NULL, err, sizeof(err)) == 0,
		      "%s: built once, refused the second time: %s",
		      c->ops->name, err);
	ck_assert_msg(pc_same(&a, &b), "%s: two builds differ", c->ops->name);
	hs_traffic_free(&a);
	hs_traffic_free(&b);
}
END_TEST

TCase *
pattern_conformance_tcase(const struct hs_pattern_ops *ops,
			  const void *settings)
{
	const unsigned int k = pc_nb_cases;
	struct pc_case *c = &pc_cases[k];
	TCase *tc;

	if (k == PC_MAX_CASES || ops == NULL ||
	    ops->settings_size > HS_PATTERN_SETTINGS_MAX) {
		fprintf(stderr, "pattern_conformance_tcase: no room, no pattern or settings too large\n");
		abort();
	}
	c->ops = ops;
	memset(&c->set, 0, sizeof(c->set));
	if (ops->defaults != NULL)
		ops->defaults(c->set.b);
	if (settings != NULL)
		memcpy(c->set.b, settings, ops->settings_size);
	snprintf(c->name, sizeof(c->name), "conformance %s%s", ops->name,
		 settings != NULL ? " (given settings)" : "");
	tc = tcase_create(c->name);
	tcase_set_timeout(tc, 60);
	pc_nb_cases++;
	tcase_add_loop_test(tc, pc_test_settings, k, k + 1);
	tcase_add_loop_test(tc, pc_test_flows, k, k + 1);
	tcase_add_loop_test(tc, pc_test_determinism, k, k + 1);
	return tc;
}
