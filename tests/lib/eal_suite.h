/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The main() of a Check suite that needs EAL: EAL starts once for the
 * process (--no-huge --no-pci, a file prefix of its own), one mbuf pool is
 * made, the suite runs without forking (a forked child must never touch
 * EAL), and EAL's runtime directory is removed at the end, which
 * rte_eal_cleanup() does not do.
 */
#ifndef OFAN_TESTS_EAL_SUITE_H
#define OFAN_TESTS_EAL_SUITE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

/* EAL lcores of the suite; a suite that runs threads defines more. */
#ifndef T_EAL_LCORES
#define T_EAL_LCORES "0"
#endif
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "ofan_fs.h"

/* EAL leaves its runtime directory behind: remove it. */
static void
t_eal_remove_runtime_dir(const char *dir)
{
	if (ofan_remove_tree(dir) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/*
 * Run suite under EAL with a pool of nb_mbufs mbufs stored in *pool for
 * the tests.  name is the program name (file prefix ofan_<name>_<pid>).
 * Returns the process exit status.
 */
static int
t_eal_run_suite(const char *name, Suite *suite, unsigned int nb_mbufs,
		struct rte_mempool **pool)
{
	char prefix[64], runtime_dir[512] = "";
	char *eal_argv[] = {
		(char *)name, (char *)"--no-huge", (char *)"-m", (char *)"512",
		(char *)"--no-pci", (char *)"--file-prefix", prefix,
		(char *)"-l", (char *)T_EAL_LCORES, (char *)"--log-level=error",
		NULL,
	};
	SRunner *sr;
	int nb_failed;

	snprintf(prefix, sizeof(prefix), "ofan_%s_%d", name, (int)getpid());
	if (rte_eal_init((int)(sizeof(eal_argv) / sizeof(eal_argv[0])) - 1,
			 eal_argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed: %s\n", name,
			rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	snprintf(runtime_dir, sizeof(runtime_dir), "%s",
		 rte_eal_get_runtime_dir());
	*pool = rte_pktmbuf_pool_create("t_pool", nb_mbufs, 0, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE,
					SOCKET_ID_ANY);
	if (*pool == NULL) {
		fprintf(stderr, "%s: no mbuf pool: %s\n", name,
			rte_strerror(rte_errno));
		rte_eal_cleanup();
		t_eal_remove_runtime_dir(runtime_dir);
		return EXIT_FAILURE;
	}
	sr = srunner_create(suite);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	nb_failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rte_mempool_free(*pool);
	rte_eal_cleanup();
	t_eal_remove_runtime_dir(runtime_dir);
	return nb_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* OFAN_TESTS_EAL_SUITE_H */
