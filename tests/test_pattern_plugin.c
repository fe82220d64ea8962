/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A traffic pattern defined only in this file, as docs/architecture.md
 * ("A traffic pattern") shows: "pairs" makes each rank send to the rank
 * pair_stride away inside blocks of 2 x pair_stride ranks (stride 1:
 * ranks 2i and 2i + 1 send to each other), and needs an even rank count.
 * Its setting, [traffic] pair_stride, is its own: its settings block,
 * defaults and parse.  It registers with hs_pattern_register() before
 * any configuration is read; the config loader then accepts [traffic]
 * pattern = pairs and pair_stride, reports its rules by the [traffic] key
 * at fault, the pattern contract holds for it
 * (tests/lib/pattern_conformance.h), and ofan-fabric runs it on a k = 4
 * fat tree.  Nothing outside this file knows it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "fab.h"
#include "hs_pattern.h"
#include "hs_traffic.h"
#include "ofan_config.h"
#include "pattern_conformance.h"
#include "ofan_wire.h"

#include "plugin_suite.h"


/* ---- the pattern ---- */

struct pairs_settings {
	uint32_t stride;	/* [traffic] pair_stride */
};

static void
pairs_defaults(void *settings)
{
	((struct pairs_settings *)settings)->stride = 1;
}

static int
pairs_parse(struct ofan_cfg *cfg, const struct hs_pattern_cfg *ctx,
	    void *settings)
{
	RTE_SET_USED(ctx);
	return ofan_cfg_get_u32(cfg, "traffic", "pair_stride", 0, 1, 1u << 19,
				&((struct pairs_settings *)settings)->stride);
}

static uint32_t
pairs_stride(const struct hs_traffic_params *p)
{
	return ((const struct pairs_settings *)p->settings)->stride;
}

static int
pairs_check(const struct hs_traffic_params *p, const char **key, char *msg,
	    unsigned int msg_size)
{
	uint32_t s = pairs_stride(p);

	if (p->nb_ranks % 2 != 0) {
		*key = "pattern";
		snprintf(msg, msg_size,
			 "'pairs' over %" PRIu32 " ranks; expected an even number of ranks",
			 p->nb_ranks);
		return -EINVAL;
	}
	if (p->nb_ranks % (2 * s) != 0) {
		*key = "pair_stride";
		snprintf(msg, msg_size,
			 "'%" PRIu32 "' with %" PRIu32 " ranks; expected a stride whose double divides the ranks",
			 s, p->nb_ranks);
		return -EINVAL;
	}
	return 0;
}

static uint64_t
pairs_nb_flows(const struct hs_traffic_params *p)
{
	return p->nb_ranks;
}

static void
pairs_fill(const struct hs_traffic_params *p, struct hs_flow_spec *f)
{
	uint32_t i, s = pairs_stride(p), b = 2 * s;

	for (i = 0; i < p->nb_ranks; i++) {
		f[i].src = i;
		f[i].dst = i / b * b + (i % b + s) % b;
		f[i].size = p->size;
	}
}

static const struct hs_pattern_ops pairs_ops = {
	.name = "pairs",
	.summary = "each rank to the rank pair_stride away, in blocks of 2 x pair_stride",
	.settings_size = sizeof(struct pairs_settings),
	.defaults = pairs_defaults,
	.parse = pairs_parse,
	.check = pairs_check,
	.nb_flows = pairs_nb_flows,
	.fill = pairs_fill,
};

/* ---- the tests ---- */

/* A build() for the case that has both ways of making flows. */
static int
t_build_unused(const struct hs_traffic_params *p, struct hs_traffic *t,
	       struct hs_workload **wl, char *err, unsigned int err_size)
{
	RTE_SET_USED(p);
	RTE_SET_USED(t);
	RTE_SET_USED(wl);
	RTE_SET_USED(err);
	RTE_SET_USED(err_size);
	return -ENOTSUP;
}

/* What hs_pattern_register() refuses, and that pairs is in. */
START_TEST(test_register_rules)
{
	struct hs_pattern_ops bad[T_NAME_FAULTS + 4];
	const char *names[HS_MAX_PATTERNS + 1];
	unsigned int n;

	T_FAULTY(bad, RTE_DIM(bad), pairs_ops, "other");
	/* neither way of making flows */
	bad[T_NAME_FAULTS + 0].fill = NULL;
	bad[T_NAME_FAULTS + 0].nb_flows = NULL;
	bad[T_NAME_FAULTS + 1].fill = NULL;	/* nb_flows() alone */
	bad[T_NAME_FAULTS + 2].nb_flows = NULL;	/* fill() alone */
	bad[T_NAME_FAULTS + 3].build = t_build_unused;	/* both ways */
	T_CHECK_REFUSED(hs_pattern_register, bad, RTE_DIM(bad));
	ck_assert_ptr_null(hs_pattern_find("other"));
	ck_assert_int_eq(hs_pattern_register(&pairs_ops), -EEXIST);
	/* Names are matched as the config matches them. */
	bad[0] = pairs_ops;
	bad[0].name = "AllToAll";
	ck_assert_int_eq(hs_pattern_register(&bad[0]), -EEXIST);
	ck_assert_ptr_eq(hs_pattern_find("pairs"), &pairs_ops);
	ck_assert_ptr_eq(hs_pattern_find("Pairs"), &pairs_ops);
	n = hs_pattern_name_list(names);
	ck_assert_str_eq(names[n - 1], "pairs");
	ck_assert_ptr_null(names[n]);
}
END_TEST

/* The driver numbers its flows and chains its iterations. */
START_TEST(test_builds)
{
	static const struct pairs_settings one = { .stride = 1 };
	struct hs_traffic_params p = {
		.pattern = &pairs_ops, .settings = &one, .nb_ranks = 6,
		.size = 1000, .iterations = 3, .start_ns = 50,
	};
	struct hs_traffic t;
	char err[256] = "";
	uint32_t i;

	ck_assert_msg(hs_pattern_build(&p, &t, NULL, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_uint_eq(t.nb_flows, 18);
	for (i = 0; i < t.nb_flows; i++) {
		const struct hs_flow_spec *f = &t.flows[i];

		ck_assert_uint_eq(f->id, i);
		ck_assert_uint_eq(f->src, i % 6);
		ck_assert_uint_eq(f->dst, (i % 6) ^ 1);
		ck_assert_uint_eq(f->size, 1000);
		ck_assert_uint_eq(f->iteration, i / 6);
		ck_assert_uint_eq(f->start_ns, 50);
		ck_assert_uint_eq(f->trigger, HS_NO_TRIGGER);
		/* The next iteration waits for what its source received. */
		ck_assert_uint_eq(f->dep, i < 6 ? HS_NO_DEP :
				  i - 6 - (i % 6) + ((i % 6) ^ 1));
		/* A rank's one flow at a time: the whole rate. */
		ck_assert_uint_eq(t.concurrency[i], 1);
	}
	hs_traffic_free(&t);
	p.nb_ranks = 7;
	ck_assert_int_eq(hs_pattern_build(&p, &t, NULL, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "traffic:pattern: 'pairs' over 7 ranks; "
			 "expected an even number of ranks");
	ck_assert_ptr_null(t.flows);
}
END_TEST

/* The loader names the key and the override; unknown names list pairs. */
START_TEST(test_config)
{
	const char *odd[] = { "traffic.pattern=pairs",
			      "fabric.topology=leafspine", "fabric.leaves=3",
			      "fabric.spines=2", "fabric.hosts_per_leaf=5" };
	const char *unknown[] = { "traffic.pattern=triples" };
	const char *stride2[] = { "traffic.pattern=pairs",
				  "traffic.pair_stride=2" };
	const char *stride3[] = { "traffic.pattern=pairs",
				  "traffic.pair_stride=3" };
	const char *stride0[] = { "traffic.pattern=pairs",
				  "traffic.pair_stride=0" };
	struct fab_experiment x;
	char err[1024];

	ck_assert_msg(t_load(&x, odd, 1, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_eq(x.combos[0].host.traffic.pattern, &pairs_ops);
	fab_experiment_free(&x);
	ck_assert_int_ne(t_load(&x, odd, RTE_DIM(odd), err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "traffic.pattern=pairs: 'pairs' over 15 "
			     "ranks; expected an even number of ranks") != NULL,
		      "%s", err);
	/* Its own setting: read into its block, its rule by its key. */
	ck_assert_msg(t_load(&x, stride2, RTE_DIM(stride2), err,
			     sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(((const struct pairs_settings *)
			   x.combos[0].host.pattern_set.b)->stride, 2);
	fab_experiment_free(&x);
	ck_assert_int_ne(t_load(&x, stride3, RTE_DIM(stride3), err,
				sizeof(err)), 0);
	ck_assert_msg(strstr(err, "traffic.pair_stride=3: '3' with 16 ranks; "
			     "expected a stride whose double divides the "
			     "ranks") != NULL, "%s", err);
	ck_assert_int_ne(t_load(&x, stride0, RTE_DIM(stride0), err,
				sizeof(err)), 0);
	ck_assert_msg(strstr(err, "pair_stride") != NULL, "%s", err);
	ck_assert_int_ne(t_load(&x, unknown, 1, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "'triples' is unknown; expected one of "
			     "permutation, ") != NULL &&
		      strstr(err, "torring, jobs, pairs") != NULL, "%s", err);
}
END_TEST

/*
 * It runs: on a k = 4 fat tree hosts 2i and 2i + 1 share a ToR, so every
 * flow completes at its ideal time and no frame climbs above the ToRs;
 * with pair_stride = 2 every flow leaves its ToR for the pod's other.
 */
START_TEST(test_runs_in_fabric)
{
	const char *ov[] = { "traffic.pattern=pairs",
			     "fabric.schemes=ecmp, ofan" };
	struct fab_experiment x;
	uint16_t s;

	for (s = 0; s < 2; s++) {
		struct fab_run r;

		t_run_scheme(ov, RTE_DIM(ov), s, &x, &r);
		ck_assert(r.completed);
		ck_assert_uint_eq(r.nb_flows, 16);
		ck_assert_uint_eq(r.nb_completed, 16);
		ck_assert_uint_eq(r.injected,
				  r.delivered + r.dropped + r.queued_end);
		ck_assert_uint_eq(r.max_queue[FAB_L_TOR_UP], 0);
		ck_assert_uint_eq(r.max_queue[FAB_L_AGG_UP], 0);
		ck_assert_uint_gt(r.max_queue[FAB_L_TOR_DOWN], 0);
		ck_assert_msg(r.max_slowdown < 1.05, "%s: max slowdown %.3f",
			      x.combos[0].schemes[s].name, r.max_slowdown);
		fab_run_free(&r);
		fab_experiment_free(&x);
	}
	{
		const char *ov2[] = { "traffic.pattern=pairs",
				      "traffic.pair_stride=2",
				      "fabric.schemes=ofan" };
		struct fab_run r;

		t_run_scheme(ov2, RTE_DIM(ov2), 0, &x, &r);
		ck_assert(r.completed);
		ck_assert_uint_eq(r.nb_completed, 16);
		ck_assert_uint_gt(r.max_queue[FAB_L_TOR_UP], 0);
		ck_assert_uint_eq(r.max_queue[FAB_L_AGG_UP], 0);
		fab_run_free(&r);
		fab_experiment_free(&x);
	}
}
END_TEST

static Suite *
plugin_suite(void)
{
	const TTest *const tests[] = {
		test_register_rules, test_builds, test_config,
		test_runs_in_fabric, NULL
	};

	static const struct pairs_settings two = { .stride = 2 };
	Suite *s = t_plugin_suite("pattern_plugin", "pairs", tests);

	suite_add_tcase(s, pattern_conformance_tcase(&pairs_ops, NULL));
	suite_add_tcase(s, pattern_conformance_tcase(&pairs_ops, &two));
	return s;
}

int
main(void)
{
	return t_plugin_main("test_pattern_plugin",
			     hs_pattern_register(&pairs_ops), plugin_suite);
}
