/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan_phase (common/phase.c): a slow phase speaks once it outlasts a
 * second, each second, and says when it ended; a quick one says nothing.
 * The slow case does not sleep a fixed time: it waits until the
 * watchdog's first line is there (up to 20 s), so a loaded machine only
 * makes it slower.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "ofan_phase.h"
#include "unit_suite.h"

/* What was written to f so far, in buf. */
static void
t_read_all(FILE *f, char *buf, size_t size)
{
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fseek(f, 0, SEEK_END);
}

static double
t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

START_TEST(test_phase_slow)
{
	FILE *f = tmpfile();
	struct ofan_phase ph;
	char buf[1024];
	double t0 = t_now();
	int i;

	ck_assert_ptr_nonnull(f);
	ofan_phase_begin(&ph, f, "prog", "loading %d things", 3);
	for (i = 0; i < 2000; i++) {
		t_read_all(f, buf, sizeof(buf));
		if (buf[0] != '\0')
			break;
		usleep(10000);
	}
	ofan_phase_end(&ph);
	ck_assert_msg(t_now() - t0 >= 1.0, "spoke before a second had passed");
	t_read_all(f, buf, sizeof(buf));
	ck_assert_msg(strncmp(buf, "prog: loading 3 things (1 s)\n", 29) == 0,
		      "first line: '%s'", buf);
	ck_assert_msg(strstr(buf, "\nprog: loading 3 things: done in ") != NULL,
		      "no closing line: '%s'", buf);
	ck_assert_msg(buf[strlen(buf) - 1] == '\n', "'%s'", buf);
	fclose(f);
}
END_TEST

START_TEST(test_phase_quick)
{
	FILE *f = tmpfile();
	struct ofan_phase ph;
	char buf[256];
	double t0 = t_now();

	ck_assert_ptr_nonnull(f);
	ofan_phase_begin(&ph, f, "prog", "nothing much");
	ofan_phase_end(&ph);
	t_read_all(f, buf, sizeof(buf));
	/* Only a machine stalled for a second could make it speak. */
	if (t_now() - t0 < 1.0)
		ck_assert_msg(buf[0] == '\0', "a quick phase spoke: '%s'", buf);
	/* No output stream: silent, and ending it is harmless, twice too. */
	ofan_phase_begin(&ph, NULL, "prog", "quiet");
	ofan_phase_end(&ph);
	ofan_phase_end(&ph);
	fclose(f);
}
END_TEST

static Suite *
phase_suite(void)
{
	Suite *s = suite_create("phase");
	TCase *tc = tcase_create("phase");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_phase_slow);
	tcase_add_test(tc, test_phase_quick);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(phase_suite());
}
