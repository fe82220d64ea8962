/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the plugin tests share (test_policy_plugin.c,
 * test_host_policy_plugin.c, test_recovery_plugin.c, test_cc_plugin.c,
 * test_pattern_plugin.c): each defines a module only it knows, registers it
 * before any configuration is read, and runs it in ofan-fabric on the k = 4
 * fat tree of tests/data/fabric/permutation-k4.ini, with a pool of its own.
 */
#ifndef OFAN_TEST_PLUGIN_SUITE_H
#define OFAN_TEST_PLUGIN_SUITE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "fab.h"
#include "ofan_wire.h"

#include "eal_suite.h"
#include "registry_check.h"

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

/* An override that must be refused, and what the message must say. */
struct t_refused {
	const char *ov;
	const char *want;
};

/* With override first before it, each of bad[0 .. n) fails to load. */
static inline void
t_expect_refused(const char *first, const struct t_refused *bad,
		 unsigned int n)
{
	const char *ov[2] = { first };
	struct fab_experiment x;
	char err[1024];
	unsigned int i;

	for (i = 0; i < n; i++) {
		ov[1] = bad[i].ov;
		ck_assert_int_ne(t_load(&x, ov, 2, err, sizeof(err)), 0);
		ck_assert_msg(strstr(err, bad[i].want) != NULL,
			      "%s: '%s' lacks '%s'", bad[i].ov, err,
			      bad[i].want);
	}
}

/*
 * Scheme s of the k = 4 permutation with overrides, run into *r (the
 * caller frees r); the experiment is loaded into *x, which the caller
 * frees too.
 */
static inline void
t_run_scheme(const char *const *ov, int nb_ov, uint16_t s,
	     struct fab_experiment *x, struct fab_run *r)
{
	const struct fab_params *p;
	struct fab_topo t;
	char err[1024];

	ck_assert_msg(t_load(x, ov, nb_ov, err, sizeof(err)) == 0, "%s",
		      err);
	p = &x->combos[0];
	ck_assert_uint_lt(s, p->nb_schemes);
	ck_assert_uint_le(fab_pool_size(p), T_NB_MBUFS);
	ck_assert_msg(fab_topo_build(p, p->schemes[s].sw_policy, &t, err,
				     sizeof(err)) == 0, "%s", err);
	ck_assert_msg(fab_run(p, s, &t, t_pool, NULL, r, err,
			      sizeof(err)) == 0, "%s", err);
	fab_topo_free(&t);
}

/*
 * Suite suite_name with one case named after the plugin: the pool as its
 * fixture, 120 s for fabric runs, tests (NULL-terminated) in order.
 */
static inline Suite *
t_plugin_suite(const char *suite_name, const char *plugin,
	       const TTest *const *tests)
{
	Suite *s = suite_create(suite_name);
	TCase *tc = tcase_create(plugin);

	tcase_add_unchecked_fixture(tc, t_pool_up, t_pool_down);
	tcase_set_timeout(tc, 120);
	for (; *tests != NULL; tests++)
		tcase_add_test(tc, *tests);
	suite_add_tcase(s, tc);
	return s;
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
