/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job-shape contract, job_shape_conformance.h says what it holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "hs_job.h"
#include "hs_traffic.h"
#include "hs_workload.h"
#include "job_shape_conformance.h"
#include "ofan_config.h"

#define JC_MAX_CASES 16
#define JC_HOSTS 64
#define JC_TOR 4
#define JC_SEED 11

struct jc_case {
	const struct hs_job_shape_ops *ops;
	const char *keys;
	char name[96];
};

static struct jc_case jc_cases[JC_MAX_CASES];
static unsigned int jc_nb_cases;

/* Load nb_jobs jobs of the case over nb_hosts: the loader's result. */
static int
jc_load(const struct jc_case *c, unsigned int nb_jobs, uint32_t nb_hosts,
	struct hs_job_params *jobs, char *err, size_t err_size)
{
	char text[4096] = "";
	struct ofan_cfg *cfg;
	unsigned int i;
	int n;

	for (i = 0; i < nb_jobs; i++) {
		size_t len = strlen(text);

		snprintf(text + len, sizeof(text) - len,
			 "[job.j%u]\nmodel = %s\n%s\n", i, c->ops->name,
			 c->keys);
	}
	cfg = ofan_cfg_load_mem("conformance.ini", text, strlen(text), err,
				(unsigned int)err_size);
	ck_assert_msg(cfg != NULL, "%s: %s", c->ops->name, err);
	n = hs_job_from_cfg(cfg, nb_hosts, jobs);
	if (n < 0)
		snprintf(err, err_size, "%s", ofan_cfg_error(cfg));
	ofan_cfg_free(cfg);
	return n;
}

/* Its workload and traffic, built; 0 or the builder's error. */
static int
jc_build(const struct hs_job_params *jobs, unsigned int nb_jobs,
	 struct hs_workload *w, struct hs_traffic *t, char *err,
	 size_t err_size)
{
	int rc = hs_job_workload(jobs, nb_jobs, JC_HOSTS, JC_TOR, JC_SEED, w,
				 err, err_size);

	if (rc == 0)
		rc = hs_wl_build(w, t, err, (unsigned int)err_size);
	return rc;
}

START_TEST(jc_test_settings)
{
	const struct jc_case *c = &jc_cases[_i];
	const struct hs_job_shape_ops *ops = c->ops;
	unsigned char want[HS_JOB_SHAPE_SETTINGS_MAX + 64];
	unsigned char got[HS_JOB_SHAPE_SETTINGS_MAX + 64];
	struct ofan_cfg *cfg;
	char err[256];
	size_t i;

	ck_assert_uint_le(ops->settings_size, HS_JOB_SHAPE_SETTINGS_MAX);
	memset(want, 0x5a, sizeof(want));
	memset(want, 0, ops->settings_size);
	if (ops->defaults != NULL)
		ops->defaults(want);
	for (i = ops->settings_size; i < sizeof(want); i++)
		ck_assert_msg(want[i] == 0x5a,
			      "%s: defaults() wrote byte %zu of a %zu-byte block",
			      ops->name, i, ops->settings_size);
	if (ops->parse == NULL)
		return;
	cfg = ofan_cfg_load_mem("conformance.ini", "[job.x]\n", 8, err,
				sizeof(err));
	ck_assert_msg(cfg != NULL, "%s", err);
	memcpy(got, want, sizeof(got));
	ck_assert_msg(ops->parse(cfg, "job.x", got) == 0,
		      "%s: parse() of a section without its keys failed: %s",
		      ops->name, ofan_cfg_error(cfg));
	ck_assert_msg(memcmp(want, got, sizeof(got)) == 0,
		      "%s: parse() without its keys changed the defaults",
		      ops->name);
	ofan_cfg_free(cfg);
}
END_TEST

START_TEST(jc_test_builds)
{
	const struct jc_case *c = &jc_cases[_i];
	struct hs_job_params *jobs = calloc(2, sizeof(*jobs));
	struct hs_workload w, w2;
	struct hs_traffic t, t2;
	char err[1024] = "";
	uint64_t ranks;
	uint32_t i, k;
	uint8_t *mine = calloc(JC_HOSTS, 1);

	ck_assert(jobs != NULL && mine != NULL);
	ck_assert_msg(jc_load(c, 1, JC_HOSTS, jobs, err, sizeof(err)) == 1,
		      "%s: %s", c->ops->name, err);
	ck_assert_ptr_eq(jobs[0].shape, c->ops);
	ranks = hs_job_ranks(&jobs[0]);
	ck_assert_msg(ranks >= 1 && ranks <= JC_HOSTS, "%s: %" PRIu64 " ranks",
		      c->ops->name, ranks);
	ck_assert_msg(jc_build(jobs, 1, &w, &t, err, sizeof(err)) == 0,
		      "%s: %s", c->ops->name, err);
	ck_assert_uint_eq(w.nb_jobs, 1);
	ck_assert_uint_eq(w.jobs[0].nb_ranks, ranks);
	for (k = 0; k < w.jobs[0].nb_ranks; k++)
		mine[w.jobs[0].host[k]] = 1;
	for (i = 0; i < t.nb_flows; i++) {
		const struct hs_flow_spec *f = &t.flows[i];

		ck_assert_msg(f->src != f->dst && mine[f->src] && mine[f->dst],
			      "%s: flow %u is %u -> %u, not between two of its hosts",
			      c->ops->name, i, f->src, f->dst);
		ck_assert_uint_gt(f->size, 0);
	}
	/* The same section, the same flows. */
	ck_assert(jc_build(jobs, 1, &w2, &t2, err, sizeof(err)) == 0);
	ck_assert_uint_eq(t.nb_flows, t2.nb_flows);
	ck_assert(t.nb_flows == 0 ||
		  memcmp(t.flows, t2.flows, sizeof(*t.flows) * t.nb_flows) == 0);
	hs_traffic_free(&t);
	hs_traffic_free(&t2);
	hs_wl_free(&w);
	hs_wl_free(&w2);
	free(mine);
	free(jobs);
}
END_TEST

START_TEST(jc_test_two_jobs)
{
	const struct jc_case *c = &jc_cases[_i];
	struct hs_job_params *jobs = calloc(2, sizeof(*jobs));
	uint8_t *used = calloc(JC_HOSTS, 1);
	struct hs_workload w;
	struct hs_traffic t;
	char err[1024] = "";
	uint32_t j, k;

	ck_assert(jobs != NULL && used != NULL);
	if (jc_load(c, 1, JC_HOSTS, jobs, err, sizeof(err)) != 1 ||
	    2 * hs_job_ranks(&jobs[0]) > JC_HOSTS) {
		free(jobs);
		free(used);
		return;		/* two do not fit: jc_test_builds holds one */
	}
	ck_assert_msg(jc_load(c, 2, JC_HOSTS, jobs, err, sizeof(err)) == 2,
		      "%s: %s", c->ops->name, err);
	ck_assert_msg(jc_build(jobs, 2, &w, &t, err, sizeof(err)) == 0,
		      "%s: %s", c->ops->name, err);
	for (j = 0; j < 2; j++)
		for (k = 0; k < w.jobs[j].nb_ranks; k++) {
			ck_assert_msg(!used[w.jobs[j].host[k]],
				      "%s: two jobs share host %u", c->ops->name,
				      w.jobs[j].host[k]);
			used[w.jobs[j].host[k]] = 1;
		}
	hs_traffic_free(&t);
	hs_wl_free(&w);
	free(jobs);
	free(used);
}
END_TEST

START_TEST(jc_test_too_large)
{
	const struct jc_case *c = &jc_cases[_i];
	struct hs_job_params *jobs = calloc(1, sizeof(*jobs));
	char err[1024] = "";
	uint64_t ranks;

	ck_assert(jobs != NULL);
	ck_assert(jc_load(c, 1, JC_HOSTS, jobs, err, sizeof(err)) == 1);
	ranks = hs_job_ranks(&jobs[0]);
	if (ranks > 1) {
		ck_assert_int_lt(jc_load(c, 1, (uint32_t)ranks - 1, jobs, err,
					 sizeof(err)), 0);
		ck_assert_msg(strstr(err, "conformance.ini:job.j0:") != NULL,
			      "%s: refused without naming a key: %s",
			      c->ops->name, err);
	}
	free(jobs);
}
END_TEST

TCase *
job_shape_conformance_tcase(const struct hs_job_shape_ops *ops,
			    const char *keys)
{
	const unsigned int k = jc_nb_cases;
	struct jc_case *c = &jc_cases[k];
	TCase *tc;

	if (k == JC_MAX_CASES || ops == NULL || keys == NULL) {
		fprintf(stderr, "job_shape_conformance_tcase: no room, no shape or no keys\n");
		abort();
	}
	c->ops = ops;
	c->keys = keys;
	snprintf(c->name, sizeof(c->name), "conformance %s", ops->name);
	tc = tcase_create(c->name);
	tcase_set_timeout(tc, 60);
	jc_nb_cases++;
	tcase_add_loop_test(tc, jc_test_settings, k, k + 1);
	tcase_add_loop_test(tc, jc_test_builds, k, k + 1);
	tcase_add_loop_test(tc, jc_test_two_jobs, k, k + 1);
	tcase_add_loop_test(tc, jc_test_too_large, k, k + 1);
	return tc;
}
