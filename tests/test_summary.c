/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow summary (host/transport/hs_summary.c) that ofan-host and ofan-fabric
 * both report: the nearest-rank percentile on small vectors, and the
 * slowdowns, mean FCT and collective times of a few flows.
 */
#include <stdint.h>
#include <stdlib.h>

#include <check.h>

#include "hs_summary.h"
#include "unit_suite.h"

/* 1, 2, ..., n */
static double *
t_ramp(uint32_t n)
{
	double *v = malloc(n * sizeof(*v));
	uint32_t i;

	ck_assert_ptr_nonnull(v);
	for (i = 0; i < n; i++)
		v[i] = i + 1;
	return v;
}

START_TEST(test_percentile_nearest_rank)
{
	double *v;

	v = t_ramp(1);
	ck_assert(hs_percentile(v, 1, 99) == 1);
	ck_assert(hs_percentile(v, 1, 50) == 1);
	free(v);
	/* n = 10: rank ceil(9.9) = 10, the largest; the median is rank 5. */
	v = t_ramp(10);
	ck_assert(hs_percentile(v, 10, 99) == 10);
	ck_assert(hs_percentile(v, 10, 90) == 9);
	ck_assert(hs_percentile(v, 10, 50) == 5);
	ck_assert(hs_percentile(v, 10, 100) == 10);
	free(v);
	/* n = 100: rank 99, one below the largest. */
	v = t_ramp(100);
	ck_assert(hs_percentile(v, 100, 99) == 99);
	ck_assert(hs_percentile(v, 100, 1) == 1);
	ck_assert(hs_percentile(v, 100, 100) == 100);
	free(v);
	/* n = 1000: rank 990. */
	v = t_ramp(1000);
	ck_assert(hs_percentile(v, 1000, 99) == 990);
	free(v);
}
END_TEST

START_TEST(test_summary_flows)
{
	/* start, done, ideal, ideal begin (no pacer_ns: pacing = flow) */
	const struct hs_flow_times f[] = {
		{ 0, 200, 100, 0, 0, 0 },		/* slowdown 2 */
		{ 10, 110, 100, 0, 0, 0 },		/* 1 */
		{ 500, 0, 100, 300, 0, 0 },	/* incomplete: no slowdown */
		{ 50, 450, 100, 100, 0, 0 },	/* 4, ideal end 200 */
		{ 0, 0, 100, UINT64_MAX, 0, 0 },	/* never begins ideally */
	};
	double sd[5];
	struct hs_flow_summary s;

	ck_assert_int_eq(hs_flow_summarise(f, 5, sd, &s), 0);
	ck_assert_uint_eq(s.nb_flows, 5);
	ck_assert_uint_eq(s.nb_completed, 3);
	ck_assert(s.max_slowdown == 4);
	/* Three values: rank ceil(2.97) = 3. */
	ck_assert(s.p99_slowdown == 4);
	ck_assert(s.mean_fct_ns == (200.0 + 100 + 400) / 3);
	ck_assert_uint_eq(s.collective_ns, 450);
	/* The incomplete flow's ideal counts: 0 .. 300 + 100. */
	ck_assert_uint_eq(s.collective_ideal_ns, 400);
	ck_assert(sd[0] == 2 && sd[1] == 1 && sd[2] == 0 && sd[3] == 4 &&
		  sd[4] == 0);
}
END_TEST

START_TEST(test_summary_none)
{
	const struct hs_flow_times f[] = { { 0, 0, 100, 0, 0, 0 } };
	struct hs_flow_summary s;

	ck_assert_int_eq(hs_flow_summarise(f, 1, NULL, &s), 0);
	ck_assert_uint_eq(s.nb_completed, 0);
	ck_assert(s.max_slowdown == 0 && s.p99_slowdown == 0);
	ck_assert_uint_eq(s.collective_ns, 0);
	ck_assert_uint_eq(s.collective_ideal_ns, 100);
	ck_assert_int_eq(hs_flow_summarise(NULL, 0, NULL, &s), 0);
	ck_assert_uint_eq(s.nb_flows, 0);
	ck_assert_uint_eq(s.collective_ideal_ns, 0);
}
END_TEST

/*
 * One pacer per host: source 1 sends three flows whose frames but the
 * last take 100, 100 and 40 ns in its pacer, with 30, 50 and 20 ns of
 * ideal after that.  However the pacer interleaves them, the last of
 * their packets leaves 240 ns after the first and its flow needs 20 ns
 * more at least, so the collective's ideal is 260, not the longest flow's
 * 150.  Source 2's only flow has none (a single frame); an incomplete
 * flow and one with no pacer_ns count for nothing.
 */
START_TEST(test_summary_pacer_floor)
{
	/* start, done, ideal, ideal begin, src, pacer_ns */
	const struct hs_flow_times f[] = {
		{ 0, 400, 130, 0, 1, 100 },
		{ 0, 420, 150, 0, 1, 100 },
		{ 0, 410, 60, 0, 1, 40 },
		{ 0, 0, 1000, 0, 1, 900 },	/* incomplete */
		{ 0, 300, 120, 0, 2, 0 },
		{ 5, 300, 120, 0, 3, 0 },	/* pacing = flow: not in it */
	};
	struct hs_flow_summary s;

	ck_assert_int_eq(hs_flow_summarise(f, 3, NULL, &s), 0);
	ck_assert_uint_eq(s.collective_ideal_ns, 100 + 100 + 40 + 20);
	/*
	 * The incomplete flow's ideal end (1000) is longer still; its
	 * pacer_ns is not in the floor, which would be 1160 with it.
	 */
	ck_assert_int_eq(hs_flow_summarise(f, 6, NULL, &s), 0);
	ck_assert_uint_eq(s.collective_ideal_ns, 1000);
	/* Without the incomplete flow, the floor again. */
	ck_assert_int_eq(hs_flow_summarise(&f[4], 2, NULL, &s), 0);
	ck_assert_uint_eq(s.collective_ideal_ns, 120);
}
END_TEST

static Suite *
summary_suite(void)
{
	Suite *s = suite_create("summary");
	TCase *tc = tcase_create("summary");

	tcase_add_test(tc, test_percentile_nearest_rank);
	tcase_add_test(tc, test_summary_flows);
	tcase_add_test(tc, test_summary_none);
	tcase_add_test(tc, test_summary_pacer_floor);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(summary_suite());
}
