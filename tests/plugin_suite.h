/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the plugin tests share (test_policy_plugin.c, test_host_policy_plugin.c,
 * test_pattern_plugin.c): each defines a module only it knows, registers it
 * before any configuration is read, and runs it in ofan-fabric on the k = 4
 * fat tree of tests/data/fabric/permutation-k4.ini, with a pool of its own.
 */
#ifndef OFAN_TEST_PLUGIN_SUITE_H
#define OFAN_TEST_PLUGIN_SUITE_H

#include <stdio.h>
#include <stdlib.h>

#include <check.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "fab.h"
#include "ofan_wire.h"

#include "eal_suite.h"

#define T_EAL_POOL_MBUFS 63
#define T_NB_MBUFS 32767
#define T_MBUF_ROOM (RTE_PKTMBUF_HEADROOM + OFAN_ETH_HDR_SIZE + 4096 + 64)

/* The runs' pool (t_pool_up(), a tcase's fixture). */
static struct rte_mempool *t_pool;

/* Load the k = 4 permutation with overrides; returns fab_experiment_load's. */
static inline int
t_load(struct fab_experiment *x, const char *const *ov, int nb_ov, char *err,
       size_t err_size)
{
	static char path[512];
	const char *dir = getenv("OFAN_TEST_DATA");

	snprintf(path, sizeof(path), "%s/fabric/permutation-k4.ini",
		 dir != NULL ? dir : "tests/data");
	err[0] = '\0';
	return fab_experiment_load(path, (char *const *)ov, nb_ov, false, 0,
				   x, err, (unsigned int)err_size);
}

static inline void
t_pool_up(void)
{
	t_pool = rte_pktmbuf_pool_create("t_plugin", T_NB_MBUFS, 0, 0,
					 T_MBUF_ROOM, SOCKET_ID_ANY);
	if (t_pool == NULL)
		fprintf(stderr, "plugin test: no pool: %s\n",
			rte_strerror(rte_errno));
}

static inline void
t_pool_down(void)
{
	rte_mempool_free(t_pool);
	t_pool = NULL;
}

/* A test case with the pool as its fixture and 120 s for fabric runs. */
static inline TCase *
t_plugin_tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_unchecked_fixture(tc, t_pool_up, t_pool_down);
	tcase_set_timeout(tc, 120);
	return tc;
}

/*
 * A plugin test's main(): registered is what the module's register() call
 * returned, made before any configuration is read, as a plugin would;
 * then suite under EAL.
 */
static inline int
t_plugin_main(const char *name, int registered, Suite *(*suite)(void))
{
	static struct rte_mempool *eal_pool;

	if (registered != 0) {
		fprintf(stderr, "%s: registering its module failed: %d\n",
			name, registered);
		return EXIT_FAILURE;
	}
	return t_eal_run_suite(name, suite(), T_EAL_POOL_MBUFS, &eal_pool);
}

#endif /* OFAN_TEST_PLUGIN_SUITE_H */
