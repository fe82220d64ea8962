/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The common start of a testbed's processes (common/start.c,
 * ofan_clock_at_epoch): --start-at values, exactly; @FILE before and
 * after the file appears, and a file that holds no moment; the moment on
 * a process's own clock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "ofan_clock.h"
#include "ofan_start.h"
#include "unit_suite.h"

START_TEST(test_start_epoch)
{
	struct ofan_start s;

	ck_assert_int_eq(ofan_start_parse("1764633600.25", &s), 0);
	ck_assert_uint_eq(s.at_ns, 1764633600250000000ull);
	ck_assert_str_eq(s.path, "");
	/* Nine fraction digits, exactly: no binary rounding. */
	ck_assert_int_eq(ofan_start_parse("1764633600.000000001", &s), 0);
	ck_assert_uint_eq(s.at_ns, 1764633600000000001ull);
	ck_assert_int_eq(ofan_start_parse("17", &s), 0);
	ck_assert_uint_eq(s.at_ns, 17000000000ull);
	/* Known at once. */
	ck_assert_int_eq(ofan_start_poll(&s, NULL, 0), 1);
	/* Not moments: units, signs, blanks, nothing, zero, beyond 2^64 ns. */
	ck_assert_int_eq(ofan_start_parse("5s", &s), -EINVAL);
	ck_assert_int_eq(ofan_start_parse("-1", &s), -EINVAL);
	ck_assert_int_eq(ofan_start_parse(" 1", &s), -EINVAL);
	ck_assert_int_eq(ofan_start_parse("", &s), -EINVAL);
	ck_assert_int_eq(ofan_start_parse("0", &s), -EINVAL);
	ck_assert_int_eq(ofan_start_parse("1.2.3", &s), -EINVAL);
	ck_assert_int_eq(ofan_start_parse("99999999999999999999", &s),
			 -EINVAL);
	ck_assert_int_eq(ofan_start_parse("@", &s), -EINVAL);
}
END_TEST

START_TEST(test_start_file)
{
	char dir[] = "/tmp/ofan_test_start_XXXXXX", path[64], arg[80];
	char err[256] = "";
	struct ofan_start s;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/start", dir);
	snprintf(arg, sizeof(arg), "@%s", path);
	ck_assert_int_eq(ofan_start_parse(arg, &s), 0);
	ck_assert_str_eq(s.path, path);
	ck_assert_uint_eq(s.at_ns, 0);
	/* Not there yet: ask again later; nor while its line is unended. */
	ck_assert_int_eq(ofan_start_poll(&s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.at_ns, 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "17646");
	fclose(f);
	ck_assert_int_eq(ofan_start_poll(&s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.at_ns, 0);
	/* There, with a line end as a launcher writes it. */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "1764633600.5\n");
	fclose(f);
	ck_assert_int_eq(ofan_start_poll(&s, err, sizeof(err)), 1);
	ck_assert_uint_eq(s.at_ns, 1764633600500000000ull);
	/* Known: the file is not read again. */
	unlink(path);
	ck_assert_int_eq(ofan_start_poll(&s, err, sizeof(err)), 1);
	/* A file that holds no moment is named, with what it holds. */
	ck_assert_int_eq(ofan_start_parse(arg, &s), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "soon\n");
	fclose(f);
	ck_assert_int_eq(ofan_start_poll(&s, err, sizeof(err)), -EINVAL);
	ck_assert_uint_eq(s.at_ns, 0);
	ck_assert_msg(strstr(err, path) != NULL &&
		      strstr(err, "'soon' is not a moment") != NULL, "%s", err);
	unlink(path);
	/* A FILE that cannot be read is said, not waited for. */
	ck_assert_int_eq(ofan_start_parse("@/proc/self/mem/x", &s), 0);
	ck_assert_int_lt(ofan_start_poll(&s, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "/proc/self/mem/x: cannot read: ") != NULL,
		      "%s", err);
	rmdir(dir);
}
END_TEST

/* A moment on a clock that read now_ns at real time epoch_now_ns. */
START_TEST(test_start_clock)
{
	/* Ahead, now, behind, and before the clock's start (negative). */
	ck_assert_int_eq(ofan_clock_at_epoch(1000, 5000, 5300), 1300);
	ck_assert_int_eq(ofan_clock_at_epoch(1000, 5000, 5000), 1000);
	ck_assert_int_eq(ofan_clock_at_epoch(1000, 5000, 4500), 500);
	ck_assert_int_eq(ofan_clock_at_epoch(1000, 5000, 4000), 0);
	ck_assert_int_eq(ofan_clock_at_epoch(1000, 5000, 3000), -1000);
	/* Real epochs: a moment 2 s before a clock that started 1 s ago. */
	ck_assert_int_eq(ofan_clock_at_epoch(1000000000ull,
					     1764633600000000000ull,
					     1764633598000000000ull),
			 -1000000000ll);
	/* The real-time clock is in the 21st century. */
	ck_assert_uint_gt(ofan_epoch_ns(), 1600000000ull * 1000000000ull);
}
END_TEST

static Suite *
start_suite(void)
{
	Suite *s = suite_create("start");
	TCase *tc = tcase_create("start");

	tcase_add_test(tc, test_start_epoch);
	tcase_add_test(tc, test_start_file);
	tcase_add_test(tc, test_start_clock);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(start_suite());
}
