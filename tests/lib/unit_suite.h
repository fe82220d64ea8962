/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The main() of a Check suite without EAL: t_run_suite() runs it where it
 * stands; t_unit_run_suite(), for suites that write files, runs it in a
 * temporary directory of its own ($TMPDIR or /tmp), so relative paths in
 * the tests land there, and removes that directory at the end (the tests
 * remove what they wrote).
 */
#ifndef OFAN_TESTS_UNIT_SUITE_H
#define OFAN_TESTS_UNIT_SUITE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <check.h>

/* Run suite; returns the process exit status. */
static inline int
t_run_suite(Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * Run suite in a fresh directory ofan-test-<name>-XXXXXX.  Returns the
 * process exit status.
 */
static inline int
t_unit_run_suite(const char *name, Suite *suite)
{
	char dir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	int rc;

	snprintf(dir, sizeof(dir), "%s/ofan-test-%s-XXXXXX",
		 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp", name);
	if (mkdtemp(dir) == NULL || chdir(dir) != 0) {
		perror(dir);
		return EXIT_FAILURE;
	}
	rc = t_run_suite(suite);
	if (chdir("/") != 0 || rmdir(dir) != 0)
		perror(dir);
	return rc;
}

#endif /* OFAN_TESTS_UNIT_SUITE_H */
