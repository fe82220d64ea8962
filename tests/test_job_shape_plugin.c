/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A job shape defined only in this file, as docs/architecture.md ("A job
 * shape") shows: "pingpong" is two ranks that send a message back and
 * forth, [job.NAME] rounds times, bytes each way.  Its settings are its
 * own (a block, defaults, a parse of its keys in the job's section).  It
 * registers with hs_job_shape_register() before any configuration is
 * read; the job loader then accepts [job.NAME] model = pingpong, reads
 * its keys, refuses the built-in shapes' keys and its own bad values by
 * key, the job-shape contract holds for it
 * (tests/lib/job_shape_conformance.h), and ofan-fabric runs it as a
 * training job on a k = 4 fat tree.  Nothing outside this file knows it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <rte_common.h>

#include "hs_job.h"
#include "hs_workload.h"
#include "job_shape_conformance.h"
#include "ofan_config.h"
#include "plugin_suite.h"

/* ---- the shape ---- */

struct pingpong_settings {
	uint32_t rounds;	/* [job.NAME] rounds */
	uint64_t bytes;		/* [job.NAME] bytes, each way */
};

static void
pingpong_defaults(void *settings)
{
	struct pingpong_settings *s = settings;

	s->rounds = 2;
	s->bytes = 64 * 1024;
}

static int
pingpong_parse(struct ofan_cfg *cfg, const char *sec, void *settings)
{
	struct pingpong_settings *s = settings;

	return ofan_cfg_get_u32(cfg, sec, "rounds", 0, 1, 1000, &s->rounds) ||
	       ofan_cfg_get_size(cfg, sec, "bytes", 0, 1, 1ull << 30,
				 &s->bytes) ? -EINVAL : 0;
}

static uint64_t
pingpong_ranks(const struct hs_job_params *j)
{
	RTE_SET_USED(j);
	return 2;
}

/* One message from rank a to rank b: its send and its receive. */
static int
pingpong_message(struct hs_workload *w, uint32_t a, uint32_t b,
		 uint32_t tag, uint64_t bytes, int32_t last[2])
{
	const struct hs_wl_node send = { .rank = a, .kind = HS_WL_SEND,
					 .peer = b, .tag = tag,
					 .size = bytes };
	const struct hs_wl_node recv = { .rank = b, .kind = HS_WL_RECV,
					 .peer = a, .tag = tag,
					 .size = bytes };
	uint32_t dep;
	int id;

	dep = (uint32_t)last[a];
	id = hs_wl_add_node(w, &send, "ping", &dep, last[a] >= 0);
	if (id < 0)
		return id;
	last[a] = id;
	dep = (uint32_t)last[b];
	id = hs_wl_add_node(w, &recv, "pong", &dep, last[b] >= 0);
	if (id < 0)
		return id;
	last[b] = id;
	return 0;
}

static int
pingpong_build(struct hs_workload *w, const struct hs_job_params *j,
	       char *err, size_t err_size)
{
	const struct pingpong_settings *s = (const void *)j->shape_set;
	int32_t last[2] = { -1, -1 };
	uint32_t r;
	int rc = 0;

	for (r = 0; rc == 0 && r < s->rounds; r++) {
		rc = pingpong_message(w, 0, 1, 2 * r, s->bytes, last);
		if (rc == 0)
			rc = pingpong_message(w, 1, 0, 2 * r + 1, s->bytes,
					      last);
	}
	if (rc != 0)
		snprintf(err, err_size, "job %s: out of memory", j->name);
	return rc;
}

static const struct hs_job_shape_ops pingpong_ops = {
	.name = "pingpong",
	.summary = "two ranks, a message back and forth, rounds times",
	.settings_size = sizeof(struct pingpong_settings),
	.defaults = pingpong_defaults,
	.parse = pingpong_parse,
	.ranks = pingpong_ranks,
	.build = pingpong_build,
};

/* ---- the tests ---- */

/* What hs_job_shape_register() refuses, and that pingpong is in. */
START_TEST(test_register_rules)
{
	struct hs_job_shape_ops bad[T_NAME_FAULTS + 4];

	T_FAULTY(bad, RTE_DIM(bad), pingpong_ops, "other");
	bad[T_NAME_FAULTS + 0].ranks = NULL;
	bad[T_NAME_FAULTS + 1].build = NULL;
	bad[T_NAME_FAULTS + 2].settings_size = HS_JOB_SHAPE_SETTINGS_MAX + 1;
	bad[T_NAME_FAULTS + 3].parse = NULL;	/* settings, no parse */
	T_CHECK_REFUSED(hs_job_shape_register, bad, RTE_DIM(bad));
	ck_assert_ptr_null(hs_job_shape_find("other"));
	ck_assert_int_eq(hs_job_shape_register(&pingpong_ops), -EEXIST);
	bad[0] = pingpong_ops;
	bad[0].name = "Dense";
	ck_assert_int_eq(hs_job_shape_register(&bad[0]), -EEXIST);
	ck_assert_ptr_eq(hs_job_shape_find("PingPong"), &pingpong_ops);
}
END_TEST

/* The loader reads its keys and names the key at fault. */
START_TEST(test_config)
{
	static const struct t_refused bad[] = {
		{ "job.pp.bytes=0", "job.pp.bytes=0" },
		{ "job.pp.rounds=2000", "job.pp.rounds=2000" },
		{ "job.pp.dp=2", "job.pp.dp=2: is given with model = pingpong" },
		{ "job.pp.colour=red", "job.pp.colour=red: unknown key" },
	};
	const char *ov[] = { "traffic.pattern=jobs", "job.pp.model=pingpong",
			     "job.pp.rounds=5", "job.pp.bytes=1MiB" };
	const struct hs_jobs_settings *js;
	const struct pingpong_settings *s;
	struct fab_experiment x;
	char err[1024];
	unsigned int i;

	ck_assert_msg(t_load(&x, ov, RTE_DIM(ov), err, sizeof(err)) == 0,
		      "%s", err);
	js = hs_jobs_of(x.combos[0].host.traffic.pattern,
			&x.combos[0].host.pattern_set);
	ck_assert_ptr_nonnull(js);
	ck_assert_uint_eq(js->nb, 1);
	ck_assert_ptr_eq(js->jobs[0].shape, &pingpong_ops);
	s = (const void *)js->jobs[0].shape_set;
	ck_assert_uint_eq(s->rounds, 5);
	ck_assert_uint_eq(s->bytes, 1u << 20);
	fab_experiment_free(&x);
	for (i = 0; i < RTE_DIM(bad); i++) {
		const char *ov2[] = { "traffic.pattern=jobs",
				      "job.pp.model=pingpong", bad[i].ov };

		ck_assert_int_ne(t_load(&x, ov2, RTE_DIM(ov2), err,
					sizeof(err)), 0);
		ck_assert_msg(strstr(err, bad[i].want) != NULL,
			      "%s: '%s' lacks '%s'", bad[i].ov, err,
			      bad[i].want);
	}
}
END_TEST

/*
 * It runs: every message is a flow of its own, one after the other (each
 * waits for the one before), and the job's one iteration is their sum.
 */
START_TEST(test_runs_in_fabric)
{
	const char *ov[] = { "traffic.pattern=jobs", "job.pp.model=pingpong",
			     "job.pp.rounds=3", "job.pp.bytes=64KiB",
			     "fabric.schemes=ofan" };
	struct fab_experiment x;
	struct fab_run r;

	t_run_scheme(ov, RTE_DIM(ov), 0, &x, &r);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.nb_flows, 6);
	ck_assert_uint_eq(r.nb_completed, 6);
	ck_assert_uint_eq(r.injected, r.delivered + r.dropped + r.queued_end);
	ck_assert_uint_eq(r.nb_jobs, 1);
	ck_assert_uint_eq(r.jobs.nb_iters, 1);
	ck_assert_uint_gt(r.jobs.iters[0].iter_ns, 0);
	fab_run_free(&r);
	fab_experiment_free(&x);
}
END_TEST

static Suite *
plugin_suite(void)
{
	const TTest *const tests[] = {
		test_register_rules, test_config, test_runs_in_fabric, NULL
	};
	Suite *s = t_plugin_suite("job_shape_plugin", "pingpong", tests);

	suite_add_tcase(s, job_shape_conformance_tcase(&pingpong_ops, ""));
	suite_add_tcase(s, job_shape_conformance_tcase(&pingpong_ops,
			   "rounds = 7\nbytes = 9000\n"));
	return s;
}

int
main(void)
{
	return t_plugin_main("test_job_shape_plugin",
			     hs_job_shape_register(&pingpong_ops),
			     plugin_suite);
}
