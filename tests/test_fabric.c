/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of ofan-fabric's library (fabric/: fab_config.c,
 * fab_topo.c, fab_sim.c, fab_out.c), in-process on EAL with --no-huge and
 * no ports: whole fabrics of switch and host engines in virtual time.
 *
 * The experiments are the commented INI files of tests/data/fabric (found
 * through OFAN_TEST_DATA), loaded with fab_experiment_load() exactly as
 * ofan-fabric loads them, single keys overridden per test; the config
 * error tests write their files to /tmp.  Every run is driven the way
 * ofan-fabric's main() drives it: fab_topo_build() with the scheme's
 * switch policy, fab_run() quiet (no options), then struct fab_run is inspected.
 *
 *   1. determinism   the same seed writes the same files, byte for byte;
 *                    another seed writes other results; a run split over
 *                    two threads writes the same files as on one;
 *   2. conservation  every packet injected is delivered, dropped or still
 *                    queued, for every scheme, also when a run is cut
 *                    short; no mbuf leaks;
 *   3. link model    one flow on one link finishes exactly when the
 *                    documented serialisation model says, to the ns;
 *   4. science       docs/architecture.md, "What the tests hold" on 16 hosts: ECMP collisions,
 *                    queue scaling of spray vs ofan, REPS vs a black hole;
 *   5. config        each kind of mistake is refused with file:section:key.
 * This file holds the fixtures and helpers (fabric_t.h), 1 to 3 and the
 * suite; test_fabric_failures.c lossy links and failure modes,
 * test_fabric_science.c 4 and the study's model, test_fabric_config.c 5.
 * Everything is virtual time with fixed seeds, so every number asserted
 * is an exact property of the code; nothing reads the wall clock.  The
 * whole suite simulates about 60 runs of 2 or 16 hosts in a few seconds.
 *
 * Data frames of 4096-byte MTU do not fit the default mbufs of
 * t_eal_run_suite()'s pool, so the fabric runs take their mbufs from a
 * pool of their own (t_fab_pool), created per test case and large enough
 * for fab_pool_size() of every experiment here (checked before each
 * run).  EAL starts once per process, so Check must not fork (CK_FORK=no;
 * t_eal_run_suite() forces it).  A failing test's temporary
 * files are removed by t_teardown().
 */
#include "fabric_t.h"
/* Two lcores: test_threads_identical splits runs over two threads. */
#define T_EAL_LCORES "0-1"
#include "eal_suite.h"

/* t_eal_run_suite()'s pool: default mbufs, too small for the fabric. */
static struct rte_mempool *t_pool;
/* The fabric runs' pool, made by t_pool_up() for each test case. */
struct rte_mempool *t_fab_pool;

/* Temporary files and directories of the running test. */
char t_tmp[T_MAX_TMP][T_PATH_SIZE];

/* ---- fixtures ---- */

void
t_pool_up(void)
{
	t_fab_pool = rte_pktmbuf_pool_create("t_fabric", T_NB_MBUFS, 0, 0,
					     T_MBUF_ROOM, SOCKET_ID_ANY);
	if (t_fab_pool == NULL)
		fprintf(stderr, "test_fabric: no pool of %u mbufs: %s\n",
			T_NB_MBUFS, rte_strerror(rte_errno));
}

void
t_pool_down(void)
{
	rte_mempool_free(t_fab_pool);
	t_fab_pool = NULL;
}

/* Remove path, a file or a directory tree; no error if it is gone. */
void
t_rm(const char *path)
{
	if (ofan_remove_tree(path) != 0)
		fprintf(stderr, "test_fabric: cannot remove %s\n", path);
}

/* Remember a temporary path so that t_teardown() removes it. */
void
t_tmp_add(const char *path)
{
	size_t len = strlen(path);
	int i;

	ck_assert_uint_lt(len, T_PATH_SIZE);
	for (i = 0; i < T_MAX_TMP; i++) {
		if (t_tmp[i][0] == '\0') {
			memcpy(t_tmp[i], path, len + 1);
			return;
		}
	}
	ck_abort_msg("more than %d temporary paths", T_MAX_TMP);
}

/* Make a new temporary directory in dir (T_PATH_SIZE bytes), removed by
 * t_teardown(). */
void
t_mkdtemp(char *dir)
{
	snprintf(dir, T_PATH_SIZE, "/tmp/ofan_test_fabric_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	t_tmp_add(dir);
}

void
t_teardown(void)
{
	int i;

	for (i = 0; i < T_MAX_TMP; i++) {
		t_rm(t_tmp[i]);
		t_tmp[i][0] = '\0';
	}
}

/* ---- experiments and runs ---- */


/* Load tests/data/fabric/name with overrides; must succeed, one combo. */
void
t_load(struct t_exp *e, const char *name, const char *const *ov, int nb_ov,
       bool seed_set, uint64_t seed)
{
	const char *dir = getenv("OFAN_TEST_DATA");
	char err[1024] = "";
	int rc;

	snprintf(e->path, sizeof(e->path), "%s/fabric/%s",
		 dir != NULL ? dir : "tests/data", name);
	rc = fab_experiment_load(e->path, (char *const *)ov, nb_ov, seed_set,
				 seed, &e->x, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s: %s", name, err);
	ck_assert_uint_eq(e->x.nb_combos, 1);
}

/*
 * Run scheme s of p on a fresh topology (left in *t for fab_out_run());
 * the run must start.  The caller frees both with t_run_free().
 */
void
t_run_topo_opts(const struct fab_params *p, uint16_t s, struct fab_topo *t,
		const struct fab_run_opts *opts, struct fab_run *r)
{
	char err[512] = "";
	int rc;

	ck_assert_ptr_nonnull(t_fab_pool);
	ck_assert_uint_le(p->host.set.mtu, T_MAX_MTU);
	ck_assert_uint_le(fab_pool_size(p), T_NB_MBUFS);
	rc = fab_topo_build(p, p->schemes[s].sw_policy, t, err, sizeof(err));
	ck_assert_msg(rc == 0, "fab_topo_build: %s", err);
	rc = fab_run(p, s, t, t_fab_pool, opts, r, err, sizeof(err));
	ck_assert_msg(rc == 0, "fab_run %s: %s", p->schemes[s].name, err);
	r->combo = 0;
}

void
t_run_topo(const struct fab_params *p, uint16_t s, struct fab_topo *t,
	   struct fab_run *r)
{
	t_run_topo_opts(p, s, t, NULL, r);
}

void
t_run_free(struct fab_topo *t, struct fab_run *r)
{
	fab_run_free(r);
	fab_topo_free(t);
}

/* Run scheme s of p; only the results are kept. */
void
t_fabric_run(const struct fab_params *p, uint16_t s, struct fab_run *r)
{
	struct fab_topo t;

	t_run_topo(p, s, &t, r);
	fab_topo_free(&t);
}

/* The scheme called name in p. */
uint16_t
t_scheme(const struct fab_params *p, const char *name)
{
	uint16_t s;

	for (s = 0; s < p->nb_schemes; s++)
		if (strcmp(p->schemes[s].name, name) == 0)
			return s;
	ck_abort_msg("no scheme %s", name);
	return 0;
}


/*
 * Scheme name of file with overrides, run and checked for conservation;
 * the run is kept in *keep (the caller frees it) or freed.
 */
void
t_run_file(const char *file, const char *const *ov, int nb_ov,
	   const char *name, struct fab_run *r, bool keep)
{
	const struct fab_params *p;
	struct t_exp e;

	t_load(&e, file, ov, nb_ov, false, 0);
	p = &e.x.combos[0];
	t_fabric_run(p, t_scheme(p, name), r);
	t_check_conserved(r, name);
	if (!keep)
		fab_run_free(r);
	fab_experiment_free(&e.x);
}

/* r into *keep (the caller frees it then), or freed. */
void
t_keep(struct fab_run *r, struct fab_run *keep)
{
	if (keep != NULL)
		*keep = *r;
	else
		fab_run_free(r);
}

/*
 * Every packet a host injected was delivered to a host, dropped by a
 * switch (with a reason) or is still on a wire, in a NIC or in a switch
 * queue when the run ended; every mbuf is back in the pool; no payload
 * arrived corrupted.
 */
void
t_check_conserved(const struct fab_run *r, const char *what)
{
	ck_assert_msg(r->injected == r->delivered + r->dropped + r->queued_end,
		      "%s: %" PRIu64 " injected != %" PRIu64 " delivered + %"
		      PRIu64 " dropped + %" PRIu64 " queued", what,
		      r->injected, r->delivered, r->dropped, r->queued_end);
	ck_assert_msg(r->dropped == r->drops_total, "%s: %" PRIu64 " != %"
		      PRIu64, what, r->dropped, r->drops_total);
	ck_assert_msg(r->mbuf_leak == 0, "%s: %" PRId64 " mbufs leaked", what,
		      r->mbuf_leak);
	ck_assert_msg(r->hosts.corrupt_pkts == 0, "%s: %" PRIu64 " corrupt payloads",
		      what, r->hosts.corrupt_pkts);
	ck_assert_uint_gt(r->injected, 0);
}

/* Run every scheme of x's only combination, writing the results in dir. */
void
t_out_all_opts(const struct t_exp *e, const char *dir,
	       const struct fab_run_opts *opts)
{
	const struct fab_params *p = &e->x.combos[0];
	char err[512] = "";
	struct fab_out *o;
	uint16_t s;

	o = fab_out_open(dir, &e->x, err, sizeof(err));
	ck_assert_msg(o != NULL, "fab_out_open: %s", err);
	for (s = 0; s < p->nb_schemes; s++) {
		struct fab_topo t;
		struct fab_run r;

		t_run_topo_opts(p, s, &t, opts, &r);
		ck_assert_int_eq(fab_out_run(o, p, &t, &r), 0);
		t_run_free(&t, &r);
	}
	ck_assert_int_eq(fab_out_close(o, NULL), 0);
}

void
t_out_all(const struct t_exp *e, const char *dir)
{
	t_out_all_opts(e, dir, NULL);
}

/* The contents of dir/name (NUL-terminated, malloc'ed) and its length. */
char *
t_slurp(const char *dir, const char *name, size_t *len)
{
	char path[T_PATH_SIZE + 64];
	char *buf;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Whether dir_a/name and dir_b/name hold the same bytes. */
bool
t_same_file(const char *dir_a, const char *dir_b, const char *name)
{
	size_t la, lb;
	char *a = t_slurp(dir_a, name, &la);
	char *b = t_slurp(dir_b, name, &lb);
	bool same = la == lb && memcmp(a, b, la) == 0;

	free(a);
	free(b);
	return same;
}

unsigned int
t_count_lines(const char *s)
{
	unsigned int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

/* ==== 1. determinism ==== */

/*
 * The files ofan-fabric keeps as results are a pure function of the
 * configuration and the seed: two runs of ECMP (switch hashes), REPS (the
 * hosts' random EVs and ECN) and ofan (the switches' shuffles and random
 * starts) with one seed write the same summary.json, runs.csv, flows.csv,
 * queues.csv and queue-time.csv, byte for byte.  Seed 2 draws another
 * permutation: other flows and other results.
 */
static const char *const t_det_files[] = {
	"summary.json", "runs.csv", "flows.csv", "queues.csv",
	"queue-time.csv",
};

START_TEST(test_determinism)
{
	static const char *const ov[] = {
		"fabric.schemes=ecmp, reps, ofan", "traffic.size=256KiB",
	};
	char dir[3][T_PATH_SIZE];
	struct t_exp e[2];
	char *a, *c, *runs_a, *runs_c;
	size_t la, lc;
	unsigned int i;

	for (i = 0; i < 3; i++)
		t_mkdtemp(dir[i]);
	t_load(&e[0], "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
	t_load(&e[1], "permutation-k4.ini", ov, RTE_DIM(ov), true, 2);
	ck_assert_uint_eq(e[0].x.combos[0].seed, 1);
	ck_assert_uint_eq(e[1].x.combos[0].seed, 2);
	t_out_all(&e[0], dir[0]);
	t_out_all(&e[0], dir[1]);
	t_out_all(&e[1], dir[2]);

	for (i = 0; i < RTE_DIM(t_det_files); i++)
		ck_assert_msg(t_same_file(dir[0], dir[1], t_det_files[i]),
			      "%s differs between two runs of one seed",
			      t_det_files[i]);
	/* The files hold what they should: a header and 3 x 16 flows. */
	a = t_slurp(dir[0], "flows.csv", &la);
	ck_assert_uint_eq(t_count_lines(a), 1 + 3 * 16);
	free(a);

	/* Another seed: another permutation, other results (not only the
	 * "seed" line of the summary). */
	ck_assert(!t_same_file(dir[0], dir[2], "flows.csv"));
	a = t_slurp(dir[0], "summary.json", &la);
	c = t_slurp(dir[2], "summary.json", &lc);
	runs_a = strstr(a, "\"runs\"");
	runs_c = strstr(c, "\"runs\"");
	ck_assert_ptr_nonnull(runs_a);
	ck_assert_ptr_nonnull(runs_c);
	ck_assert_str_ne(runs_a, runs_c);
	free(a);
	free(c);

	fab_experiment_free(&e[0].x);
	fab_experiment_free(&e[1].x);
	t_teardown();
}
END_TEST

/*
 * The FIB kept between runs (fab_run_opts.fib, as ofan-fabric keeps it):
 * runs of one routing share one table and write exactly what runs with
 * their own tables write; a fabric with other routes gets a table of its
 * own (a wrong one would lose its frames: the run completes, conserved),
 * and the first routing's next run builds it again.
 */
START_TEST(test_fib_cache)
{
	static const char *const ov4[] = {
		"fabric.schemes=ecmp, ofan", "traffic.size=256KiB",
	};
	static const char *const ov_ls[] = {
		"fabric.schemes=ofan", "traffic.size=64KiB", "fabric.leaves=2",
	};
	struct fab_fib_cache cache = { .fib = NULL };
	struct fab_run_opts opts = { .quiet = true, .fib = &cache };
	char dir[2][T_PATH_SIZE];
	struct fab_topo t;
	struct fab_run r;
	struct t_exp e[2];
	unsigned int i;

	for (i = 0; i < 2; i++)
		t_mkdtemp(dir[i]);
	t_load(&e[0], "permutation-k4.ini", ov4, RTE_DIM(ov4), false, 0);
	t_load(&e[1], "queues-leafspine.ini", ov_ls, RTE_DIM(ov_ls), false, 0);
	t_out_all_opts(&e[0], dir[0], &opts);
	ck_assert_uint_eq(cache.nb_built, 1);	/* two runs, one table */
	ck_assert_ptr_nonnull(cache.fib);
	t_out_all(&e[0], dir[1]);
	for (i = 0; i < RTE_DIM(t_det_files); i++)
		ck_assert_msg(t_same_file(dir[0], dir[1], t_det_files[i]),
			      "%s differs with the FIB kept between runs",
			      t_det_files[i]);
	/* Two leaves of four hosts: other routes, another table. */
	t_run_topo_opts(&e[1].x.combos[0], 0, &t, &opts, &r);
	ck_assert_uint_eq(cache.nb_built, 2);
	t_check_conserved(&r, "a leaf-spine after k = 4, FIB kept");
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops[OFAN_DROP_NO_ROUTE], 0);
	t_run_free(&t, &r);
	/* Back to the fat tree: built again (the cache keeps one table). */
	t_run_topo_opts(&e[0].x.combos[0], 0, &t, &opts, &r);
	ck_assert_uint_eq(cache.nb_built, 3);
	ck_assert(r.completed);
	t_run_free(&t, &r);
	fab_fib_cache_free(&cache);
	ck_assert_ptr_null(cache.fib);
	fab_experiment_free(&e[0].x);
	fab_experiment_free(&e[1].x);
	t_teardown();
}
END_TEST

/*
 * Threads: the same run cut into two parts on two lcores (pods 0-1 and
 * 2-3 with half the cores each, frames handed over between windows) gives
 * byte-identical results to one thread -- with a black hole, whose
 * failure, detection and reconvergence run between windows.  The split
 * must really happen: links between the parts exist and carry frames.
 */
START_TEST(test_threads_identical)
{
	static const char *const ov1[] = {
		"fabric.schemes=ecmp, reps, spray, ofan", "traffic.size=256KiB",
		"fabric.threads=1", "failure.hole.link=agg0-core0",
		"failure.hole.mode=blackhole", "failure.hole.at=20us",
	};
	static const char *const ov2[] = {
		"fabric.schemes=ecmp, reps, spray, ofan", "traffic.size=256KiB",
		"fabric.threads=2", "failure.hole.link=agg0-core0",
		"failure.hole.mode=blackhole", "failure.hole.at=20us",
	};
	char dir[2][T_PATH_SIZE];
	struct t_exp e[2];
	struct fab_run r;
	unsigned int i;

	ck_assert_uint_ge(rte_lcore_count(), 2);
	for (i = 0; i < 2; i++)
		t_mkdtemp(dir[i]);
	t_load(&e[0], "permutation-k4.ini", ov1, RTE_DIM(ov1), false, 0);
	t_load(&e[1], "permutation-k4.ini", ov2, RTE_DIM(ov2), false, 0);
	ck_assert_uint_eq(e[0].x.combos[0].threads, 1);
	ck_assert_uint_eq(e[1].x.combos[0].threads, 2);
	t_out_all(&e[0], dir[0]);
	t_out_all(&e[1], dir[1]);
	for (i = 0; i < RTE_DIM(t_det_files); i++)
		ck_assert_msg(t_same_file(dir[0], dir[1], t_det_files[i]),
			      "%s differs between 1 and 2 threads",
			      t_det_files[i]);
	/* The black hole bit and the run still completed, conserved. */
	t_fabric_run(&e[1].x.combos[0], t_scheme(&e[1].x.combos[0], "spray"), &r);
	t_check_conserved(&r, "2 threads, black hole");
	ck_assert(r.completed);
	ck_assert_uint_gt(r.drops[OFAN_DROP_BLACKHOLE], 0);
	fab_run_free(&r);
	fab_experiment_free(&e[0].x);
	fab_experiment_free(&e[1].x);
	t_teardown();
}
END_TEST

/*
 * file with the overrides ov (at most 12), written out on one thread and
 * on two: every deterministic file the same.  The one-thread experiment
 * stays loaded in *keep (the caller frees it), or is freed.
 */
void
t_same_on_two_threads(const char *file, const char *const *ov, int nb_ov,
		      struct t_exp *keep)
{
	const char *all[2][13];
	char dir[2][T_PATH_SIZE];
	struct t_exp local[2];
	/* The experiment keeps pointers into its t_exp: load in place. */
	struct t_exp *e[2] = { keep != NULL ? keep : &local[0], &local[1] };
	unsigned int i;
	int k;

	ck_assert_int_le(nb_ov, 12);
	for (i = 0; i < 2; i++) {
		for (k = 0; k < nb_ov; k++)
			all[i][k] = ov[k];
		all[i][k++] = i == 0 ? "fabric.threads=1" : "fabric.threads=2";
		t_mkdtemp(dir[i]);
		t_load(e[i], file, all[i], k, false, 0);
		t_out_all(e[i], dir[i]);
	}
	for (i = 0; i < RTE_DIM(t_det_files); i++)
		ck_assert_msg(t_same_file(dir[0], dir[1], t_det_files[i]),
			      "%s differs between 1 and 2 threads",
			      t_det_files[i]);
	if (keep == NULL)
		fab_experiment_free(&e[0]->x);
	fab_experiment_free(&e[1]->x);
}

/*
 * The same with the study's model (erasure recovery, per-flow pacers
 * with jitter, feedback timeouts from a 2 us RTO floor, byte-sized
 * queues, a .cm-free permutation at the full rate), where frames that
 * cross between parts leave at the end of their service: every file of
 * a run on two threads equals the run on one.
 */
START_TEST(test_threads_identical_study)
{
	static const char *const ov[] = {
		"fabric.schemes=ops, spray, adaptive, ofan",
		"traffic.size=2MiB", "host.recovery=erasure",
		"host.pacing=flow", "host.pacing_jitter=0.01",
		"host.min_rto=2us", "queue.queue_bytes=65760",
		"queue.queue_packets=250", "queue.ecn=no",
	};

	t_same_on_two_threads("permutation-k4.ini", ov, RTE_DIM(ov), NULL);
	t_teardown();
}
END_TEST

/*
 * Switches wider than 32 ports (SW_MAX_PORTS is 64): leaves of 40 hosts
 * and 8 spines are 48-port switches, their hosts 32-39 and all their
 * uplinks past bit 31 of every port mask.  Tornado (rank i to i + 8)
 * keeps 32 flows inside each leaf (some to ports 32-39) and sends 8 each
 * way across the spines; a lossless 60-to-1 incast (incast-pfc.ini)
 * pauses leaf 0's ingress ports, hosts 32-39 and the uplinks among
 * them.  Every flow completes, every packet is accounted for (the
 * incast loses none), and two threads give the same files as one.
 */
START_TEST(test_wide_switches)
{
	static const char *const lossy[] = {
		"fabric.schemes=ecmp, ofan", "traffic.size=64KiB",
		"fabric.leaves=2", "fabric.hosts_per_leaf=40",
		"fabric.spines=8", "fabric.uplink_rate=500G",
		"fabric.mbufs=32000",
	};
	static const char *const lossless[] = {
		"traffic.size=64KiB", "fabric.leaves=2",
		"fabric.hosts_per_leaf=40", "fabric.spines=8",
		"traffic.incast_degree=60", "fabric.mbufs=32000",
	};
	const struct fab_params *p;
	struct t_exp e;
	uint16_t s;

	t_same_on_two_threads("queues-leafspine.ini", lossy, RTE_DIM(lossy),
			      &e);
	p = &e.x.combos[0];
	ck_assert_uint_eq(p->hosts_per_leaf + p->spines, 48);
	for (s = 0; s < p->nb_schemes; s++) {
		struct fab_run r;

		t_fabric_run(p, s, &r);
		t_check_conserved(&r, p->schemes[s].name);
		ck_assert(r.completed);
		ck_assert_uint_eq(r.nb_flows, 80);
		ck_assert_uint_eq(r.nb_completed, 80);
		ck_assert_uint_eq(r.drops[OFAN_DROP_NO_ROUTE], 0);
		fab_run_free(&r);
	}
	fab_experiment_free(&e.x);

	t_same_on_two_threads("incast-pfc.ini", lossless,
			      RTE_DIM(lossless), &e);
	p = &e.x.combos[0];
	{
		struct fab_run r;

		t_fabric_run(p, 0, &r);
		t_check_conserved(&r, "lossless");
		ck_assert(r.completed);
		ck_assert_uint_eq(r.drops_total, 0);
		ck_assert_uint_gt(r.pfc_pauses, 0);
		ck_assert_uint_eq(r.pfc_resumes, r.pfc_pauses);
		fab_run_free(&r);
	}
	fab_experiment_free(&e.x);
	t_teardown();
}
END_TEST

/* ==== 2. conservation ==== */

/*
 * Every scheme on the k=4 permutation (512 KiB flows): every flow
 * completes (before the 10 ms limit), nothing is left anywhere at the end
 * and every packet is accounted for.  No flow beats its ideal time (the
 * frames before its last at the link rate, then the last frame's own
 * way: its serialisation, store and forward along the path, an ACK's way
 * back), a lower bound (test_ideal_lower_bound) -- measured minimum
 * slowdown 1.024 (ecmp) to 1.043 (ops).
 */
START_TEST(test_conservation)
{
	struct t_exp e;
	const struct fab_params *p;
	uint16_t s;
	uint32_t f;

	t_load(&e, "permutation-k4.ini", NULL, 0, false, 0);
	p = &e.x.combos[0];
	ck_assert_uint_ge(p->nb_schemes, 8);
	for (s = 0; s < p->nb_schemes; s++) {
		const char *name = p->schemes[s].name;
		struct fab_run r;

		t_fabric_run(p, s, &r);
		t_check_conserved(&r, name);
		ck_assert_msg(r.completed, "%s did not complete", name);
		ck_assert_uint_eq(r.nb_flows, 16);
		ck_assert_uint_eq(r.nb_completed, r.nb_flows);
		ck_assert_msg(r.queued_end == 0, "%s: %" PRIu64
			      " queued at the end", name, r.queued_end);
		/* 130 frames a flow (129 of 4056 bytes and the rest). */
		ck_assert_uint_eq(r.hosts.data_sent, 16 * 130 + r.hosts.data_retx);
		for (f = 0; f < r.nb_flows; f++) {
			const struct fab_flow_result *fr = &r.flows[f];

			ck_assert_msg(fr->fct_ns > 0, "%s: flow %u not done",
				      name, f);
			ck_assert_msg(fr->fct_ns >= fr->ideal_ns,
				      "%s: flow %u took %" PRIu64 " ns, ideal %"
				      PRIu64, name, f, fr->fct_ns,
				      fr->ideal_ns);
			ck_assert_uint_le(fr->m.start_ns + fr->fct_ns, r.sim_ns);
		}
		fab_run_free(&r);
	}
	fab_experiment_free(&e.x);
}
END_TEST

/*
 * Cut short 20 us after the start, when a 512 KiB flow (42 us at 100G)
 * is still sending: no run completes, packets are still on wires and in
 * queues, and the identity still holds with them counted; tearing the
 * fabric down frees every one of them.
 */
START_TEST(test_conservation_cut)
{
	static const char *const ov[] = { "fabric.time_limit=20us" };
	struct t_exp e;
	const struct fab_params *p;
	uint16_t s;

	t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
	p = &e.x.combos[0];
	ck_assert_uint_eq(p->time_limit_ns, 20 * T_US);
	for (s = 0; s < p->nb_schemes; s++) {
		const char *name = p->schemes[s].name;
		struct fab_run r;

		t_fabric_run(p, s, &r);
		t_check_conserved(&r, name);
		ck_assert_msg(!r.completed, "%s completed in 20 us", name);
		ck_assert_uint_eq(r.nb_completed, 0);
		ck_assert_msg(r.queued_end > 0, "%s: nothing queued at the cut",
			      name);
		ck_assert_uint_le(r.sim_ns, 20 * T_US);
		fab_run_free(&r);
	}
	fab_experiment_free(&e.x);
}
END_TEST

/* ==== 3. the link model ==== */

/*
 * The documented model (fab_sim.c): a frame occupies its link for
 * (frame + 24 bytes of preamble, SFD, FCS and gap) * 8 / rate, rounded up
 * to the ns per frame, then arrives `delay` after its last bit left.  On
 * b2b.ini (one flow, rank 1 -> rank 0, paced at the link rate, one ACK
 * per frame, sent as its frame arrives) that makes, from the flow's start:
 *   frame i arrives        a_i = sum of the frame times up to i + delay
 *   receiver has it all    T_rx = a_last
 *   ACK i leaves           when a_i has come and ACK i-1 has left the
 *                          receiver's NIC (one frame at a time)
 *   sender has the last    T_tx = last ACK's end + delay
 * so T_tx = T_rx + ACK frame + delay unless the last data frame is
 * shorter on the wire than an ACK (84 vs 102 bytes in case 0: its ACK
 * waits 18 ns behind the previous one).
 * The frames: size / mss full ones of OFAN_DATA_HDRS_SIZE + mss bytes
 * (mss = mtu - IPv4 - UDP - BTH), then the rest with its headers, padded
 * to 60 bytes; an ACK is OFAN_ACK_FRAME_SIZE bytes.  At 8G a byte is
 * 1 ns, so every frame takes a whole number of ns; at 100G they do not,
 * and each frame is rounded up on its own.
 */

static const struct t_link_case t_link_cases[] = {
	/* 10 full frames, the last one padded to 60 bytes. */
	{ "8G", 8000000000ull, 4096, 10 * 4056 + 2 },
	/* 179 full frames of 1514 bytes and one of 858. */
	{ "8G", 8000000000ull, 1500, 256 * 1024 },
	/* 64 full frames of 4110 bytes (330.72 ns each) and one of 2614. */
	{ "100G", 100000000000ull, 4096, 256 * 1024 },
	/* One frame, padded to 60 bytes (6.72 ns). */
	{ "100G", 100000000000ull, 1500, 1 },
};


/* A frame's time on a link of rate bps: whole ns, rounded up. */
uint64_t
t_frame_ns(uint64_t frame, uint64_t rate_bps)
{
	uint64_t bits = (frame + OFAN_WIRE_OVERHEAD) * 8;

	return (bits * 1000000000ull + rate_bps - 1) / rate_bps;
}

void
t_link_model(const struct t_link_case *c, uint64_t delay,
	     struct t_link_model *m)
{
	uint32_t mss = c->mtu - OFAN_IPV4_HDR_SIZE - OFAN_UDP_HDR_SIZE -
		OFAN_BTH_SIZE;
	uint64_t full = c->size / mss, rest = c->size % mss;
	uint64_t i, frame, arrive = 0, ack_end = 0;

	ck_assert_uint_eq(OFAN_DATA_HDRS_SIZE + mss,
			  OFAN_ETH_HDR_SIZE + c->mtu);
	memset(m, 0, sizeof(*m));
	m->nb_frames = (uint32_t)(full + (rest != 0));
	m->ack_ns = t_frame_ns(RTE_MAX(OFAN_ACK_FRAME_SIZE, 60), c->rate_bps);
	for (i = 0; i < m->nb_frames; i++) {
		uint64_t sent = m->ser_ns;

		frame = i < full ? OFAN_DATA_HDRS_SIZE + mss :
			RTE_MAX(OFAN_DATA_HDRS_SIZE + rest, 60ull);
		m->last_frame = frame;
		m->last_ns = t_frame_ns(frame, c->rate_bps);
		m->ser_ns += m->last_ns;
		m->wire_bytes += frame + OFAN_WIRE_OVERHEAD;
		arrive = m->ser_ns + delay;
		m->ack_wait_ns = ack_end > arrive ? ack_end - arrive : 0;
		ack_end = RTE_MAX(arrive, ack_end) + m->ack_ns;
		m->rtt_sum_ns += ack_end + delay - sent;
	}
	m->t_rx = arrive;
	m->t_tx = ack_end + delay;
}

/* Load b2b.ini for case c, with time_limit (ns) when not 0. */
static void
t_link_load(struct t_exp *e, const struct t_link_case *c, uint64_t limit_ns)
{
	char ov[4][64];
	const char *ovp[4] = { ov[0], ov[1], ov[2], ov[3] };

	snprintf(ov[0], sizeof(ov[0]), "fabric.rate=%s", c->rate);
	snprintf(ov[1], sizeof(ov[1]), "fabric.mtu=%u", c->mtu);
	snprintf(ov[2], sizeof(ov[2]), "traffic.size=%" PRIu64, c->size);
	snprintf(ov[3], sizeof(ov[3]), "fabric.time_limit=%" PRIu64 "ns",
		 limit_ns);
	t_load(e, "b2b.ini", ovp, limit_ns != 0 ? 4 : 3, false, 0);
	ck_assert_uint_eq(e->x.combos[0].rate_bps, c->rate_bps);
	ck_assert_uint_eq(e->x.combos[0].host.set.mtu, c->mtu);
}

START_TEST(test_link_model)
{
	const struct t_link_case *c = &t_link_cases[_i];
	const struct fab_params *p;
	const struct fab_flow_result *fr;
	struct t_link_model m;
	uint64_t delay, tx_ideal;
	struct t_exp e;
	struct fab_run r;
	uint32_t n;

	/* The whole flow. */
	t_link_load(&e, c, 0);
	p = &e.x.combos[0];
	ck_assert_uint_eq(p->topo, FAB_TOPO_B2B);
	delay = p->delay_ns;
	ck_assert_uint_eq(delay, T_US);
	t_link_model(c, delay, &m);
	n = m.nb_frames;
	t_fabric_run(p, 0, &r);
	t_check_conserved(&r, c->rate);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.nb_flows, 1);
	fr = &r.flows[0];
	ck_assert_uint_eq(fr->src, 1);
	ck_assert_uint_eq(fr->dst, 0);
	ck_assert_uint_eq(fr->size, c->size);
	ck_assert_uint_eq(fr->m.start_ns, 0);
	ck_assert_uint_eq(r.hosts.data_retx, 0);
	ck_assert_uint_eq(r.hosts.data_sent, n);
	ck_assert_uint_eq(r.injected, 2ull * n);	/* n frames, n ACKs */
	ck_assert_uint_eq(r.queued_end, 0);
	ck_assert_msg(fr->fct_ns == m.t_tx, "%s mtu %u size %" PRIu64
		      ": done at %" PRIu64 " ns, the model says %" PRIu64,
		      c->rate, c->mtu, c->size, fr->fct_ns, m.t_tx);
	ck_assert_uint_eq(r.sim_ns, m.t_tx);	/* the last event */
	/* The mean packet delay: every frame's RTT, each sampled once. */
	ck_assert_uint_eq(fr->m.rtt_samples, n);
	ck_assert_msg(fr->m.rtt_sum_ns == m.rtt_sum_ns,
		      "%s mtu %u: RTT samples sum to %" PRIu64
		      " ns, the model says %" PRIu64, c->rate, c->mtu,
		      fr->m.rtt_sum_ns, m.rtt_sum_ns);

	/*
	 * The ideal: the wire bytes of the frames before the last at the
	 * rate (floored), the last frame's own time on the link (rounded
	 * up), one way and back (fab_frame_path_ns / fab_ack_back_ns, one
	 * link each).  Only the per-frame rounding of the frames before the
	 * last (none at 8G) and the last ACK's wait separate the two.
	 */
	ck_assert_uint_eq(fab_oneway_ns(p, 1), delay);
	ck_assert_uint_eq(fab_ack_back_ns(p, 1), delay + m.ack_ns);
	ck_assert_uint_eq(fab_frame_path_ns(p, 1, m.last_frame),
			  m.last_ns + delay);
	tx_ideal = (m.wire_bytes - m.last_frame - OFAN_WIRE_OVERHEAD) * 8 *
		1000000000ull / c->rate_bps + m.last_ns;
	ck_assert_uint_eq(fr->ideal_ns, tx_ideal + delay +
			  fab_ack_back_ns(p, 1));
	ck_assert_uint_eq(fr->fct_ns - fr->ideal_ns,
			  m.ser_ns - tx_ideal + m.ack_wait_ns);
	if (c->rate_bps == 8000000000ull || n == 1)
		ck_assert_uint_eq(m.ser_ns, tx_ideal);
	else
		ck_assert_uint_gt(m.ser_ns, tx_ideal);
	fab_run_free(&r);
	fab_experiment_free(&e.x);

	/*
	 * The receiver: stopped at T_rx, its ACK of the last frame has just
	 * been sent (2n packets injected); stopped 1 ns earlier, not yet.
	 * (The time limit is relative to the traffic start, like T_rx.)
	 */
	t_link_load(&e, c, m.t_rx);
	t_fabric_run(&e.x.combos[0], 0, &r);
	t_check_conserved(&r, "cut at T_rx");
	ck_assert(!r.completed);
	ck_assert_uint_eq(r.injected, 2ull * n);
	ck_assert_uint_ge(r.queued_end, 1);		/* that ACK */
	fab_run_free(&r);
	fab_experiment_free(&e.x);

	t_link_load(&e, c, m.t_rx - 1);
	t_fabric_run(&e.x.combos[0], 0, &r);
	t_check_conserved(&r, "cut at T_rx - 1");
	ck_assert(!r.completed);
	ck_assert_uint_eq(r.injected, 2ull * n - 1);
	ck_assert_uint_eq(r.hosts.data_sent, n);
	fab_run_free(&r);
	fab_experiment_free(&e.x);
}
END_TEST

/*
 * The frame model and the pacing slot, to the nanosecond, on one 8 Gb/s
 * link (a byte a ns): 10 full frames of 4056-byte payloads (4110-byte
 * frames) and their ACKs.  htsim's model (data_wire_bytes 4096,
 * ack_wire_bytes 82, pace_bytes 4178): each frame takes 4096 ns on the
 * link, its ACK 82, and the sender starts one every 4178 ns, so the last
 * leaves at 9 x 4178 and its ACK is back 4096 + 1 us + 82 + 1 us later:
 * 43780 ns.  The ideal counts the slots before the last frame, then
 * that frame's own time on the link and the path: exactly that.
 * Sizes without a slot: every 4134 ns (its frame and 24), 43384 ns.  A
 * slot alone, with Ethernet's costs (4134 and 102 on the link): 43838.
 * A lone flow on an idle link takes its ideal to the ns in all three.
 * Queues count the model's bytes: a full frame is 4096 of them.
 */
struct t_frame_case {
	const char *data, *ack, *pace;
	uint64_t fct_ns;
	uint32_t full;
};

static const struct t_frame_case t_frame_cases[] = {
	{ "4096", "82", "4178", 9 * 4178 + 4096 + 1000 + 82 + 1000, 4096 },
	{ "4096", "82", "0", 9 * 4134 + 4096 + 1000 + 82 + 1000, 4096 },
	{ "0", "0", "4178", 9 * 4178 + 4134 + 1000 + 102 + 1000, 4110 },
};

START_TEST(test_frame_model)
{
	const struct t_frame_case *c = &t_frame_cases[_i];
	char ov[3][64];
	const char *ovp[] = {
		"fabric.mtu=4096", "traffic.size=40560", ov[0], ov[1], ov[2],
	};
	const struct fab_params *p;
	struct t_exp e;
	struct fab_run r;

	snprintf(ov[0], sizeof(ov[0]), "fabric.data_wire_bytes=%s", c->data);
	snprintf(ov[1], sizeof(ov[1]), "fabric.ack_wire_bytes=%s", c->ack);
	snprintf(ov[2], sizeof(ov[2]), "host.pace_bytes=%s", c->pace);
	t_load(&e, "b2b.ini", ovp, RTE_DIM(ovp), false, 0);
	p = &e.x.combos[0];
	t_fabric_run(p, 0, &r);
	t_check_conserved(&r, c->pace);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.hosts.data_sent, 10);
	ck_assert_uint_eq(r.full_frame, c->full);
	ck_assert_msg(r.flows[0].fct_ns == c->fct_ns,
		      "data %s ack %s pace %s: done at %" PRIu64
		      " ns, the model says %" PRIu64, c->data, c->ack,
		      c->pace, r.flows[0].fct_ns, c->fct_ns);
	ck_assert_uint_eq(r.flows[0].ideal_ns, c->fct_ns);
	fab_run_free(&r);
	fab_experiment_free(&e.x);
}
END_TEST

static Suite *
fabric_suite(void)
{
	Suite *s = suite_create("fabric");
	TCase *tc;

	tc = tcase_create("config");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	t_fabric_config_tests(tc);
	suite_add_tcase(s, tc);

	tc = tcase_create("link");
	tcase_add_unchecked_fixture(tc, t_pool_up, t_pool_down);
	tcase_add_loop_test(tc, test_link_model, 0, RTE_DIM(t_link_cases));
	tcase_add_loop_test(tc, test_frame_model, 0, RTE_DIM(t_frame_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("determinism");
	tcase_add_unchecked_fixture(tc, t_pool_up, t_pool_down);
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_determinism);
	tcase_add_test(tc, test_fib_cache);
	tcase_add_test(tc, test_threads_identical);
	tcase_add_test(tc, test_threads_identical_study);
	tcase_add_test(tc, test_wide_switches);
	t_fabric_loss_tests(tc);
	suite_add_tcase(s, tc);

	tc = tcase_create("conservation");
	tcase_add_unchecked_fixture(tc, t_pool_up, t_pool_down);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_conservation);
	tcase_add_test(tc, test_conservation_cut);
	suite_add_tcase(s, tc);

	tc = tcase_create("science");
	tcase_add_unchecked_fixture(tc, t_pool_up, t_pool_down);
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_set_timeout(tc, 120);
	t_fabric_science_tests(tc);
	t_fabric_failure_tests(tc);
	t_fabric_topology_tests(tc);
	t_fabric_study_tests(tc);
	t_fabric_jobs_tests(tc);
	suite_add_tcase(s, tc);

	/* The ideal as a lower bound: every stack, controller and pacing. */
	tc = tcase_create("ideal");
	tcase_add_unchecked_fixture(tc, t_pool_up, t_pool_down);
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_set_timeout(tc, 240);
	t_fabric_ideal_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_eal_run_suite("test_fabric", fabric_suite(),
			       T_EAL_POOL_MBUFS, &t_pool);
}
