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
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "fab.h"
#include "fab_sim.h"
#include "hs_pattern.h"
#include "hs_summary.h"
#include "hs_traffic.h"
#include "ofan_fs.h"
#include "ofan_parse.h"
#include "ofan_wire.h"
/* Two lcores: test_threads_identical splits runs over two threads. */
#define T_EAL_LCORES "0-1"
#include "eal_suite.h"

#define T_US 1000ull
#define T_EAL_POOL_MBUFS 63	/* t_eal_run_suite()'s pool: unused */
#define T_NB_MBUFS 32767	/* the fabric pool, >= any fab_pool_size() */
#define T_MAX_MTU 4096
#define T_MBUF_ROOM (RTE_PKTMBUF_HEADROOM + OFAN_ETH_HDR_SIZE + T_MAX_MTU + 64)
#define T_MAX_TMP 4
#define T_PATH_SIZE 512

/* t_eal_run_suite()'s pool: default mbufs, too small for the fabric. */
static struct rte_mempool *t_pool;
/* The fabric runs' pool, made by t_pool_up() for each test case. */
static struct rte_mempool *t_fab_pool;

/* Temporary files and directories of the running test. */
static char t_tmp[T_MAX_TMP][T_PATH_SIZE];

/* ---- fixtures ---- */

static void
t_pool_up(void)
{
	t_fab_pool = rte_pktmbuf_pool_create("t_fabric", T_NB_MBUFS, 0, 0,
					     T_MBUF_ROOM, SOCKET_ID_ANY);
	if (t_fab_pool == NULL)
		fprintf(stderr, "test_fabric: no pool of %u mbufs: %s\n",
			T_NB_MBUFS, rte_strerror(rte_errno));
}

static void
t_pool_down(void)
{
	rte_mempool_free(t_fab_pool);
	t_fab_pool = NULL;
}

/* Remove path, a file or a directory tree; no error if it is gone. */
static void
t_rm(const char *path)
{
	if (ofan_remove_tree(path) != 0)
		fprintf(stderr, "test_fabric: cannot remove %s\n", path);
}

/* Remember a temporary path so that t_teardown() removes it. */
static void
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
static void
t_mkdtemp(char *dir)
{
	snprintf(dir, T_PATH_SIZE, "/tmp/ofan_test_fabric_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	t_tmp_add(dir);
}

static void
t_teardown(void)
{
	int i;

	for (i = 0; i < T_MAX_TMP; i++) {
		t_rm(t_tmp[i]);
		t_tmp[i][0] = '\0';
	}
}

/* ---- experiments and runs ---- */

/* An experiment and the path it was loaded from (x.path points here). */
struct t_exp {
	char path[T_PATH_SIZE];
	struct fab_experiment x;
};

/* Load tests/data/fabric/name with overrides; must succeed, one combo. */
static void
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
static void
t_run_topo_opts(const struct fab_params *p, uint16_t s, struct fab_topo *t,
		const struct fab_run_opts *opts, struct fab_run *r)
{
	char err[512] = "";
	int rc;

	ck_assert_ptr_nonnull(t_fab_pool);
	ck_assert_uint_le(p->host.mtu, T_MAX_MTU);
	ck_assert_uint_le(fab_pool_size(p), T_NB_MBUFS);
	rc = fab_topo_build(p, p->schemes[s].sw_policy, t, err, sizeof(err));
	ck_assert_msg(rc == 0, "fab_topo_build: %s", err);
	rc = fab_run(p, s, t, t_fab_pool, opts, r, err, sizeof(err));
	ck_assert_msg(rc == 0, "fab_run %s: %s", p->schemes[s].name, err);
	r->combo = 0;
}

static void
t_run_topo(const struct fab_params *p, uint16_t s, struct fab_topo *t,
	   struct fab_run *r)
{
	t_run_topo_opts(p, s, t, NULL, r);
}

static void
t_run_free(struct fab_topo *t, struct fab_run *r)
{
	fab_run_free(r);
	fab_topo_free(t);
}

/* Run scheme s of p; only the results are kept. */
static void
t_fabric_run(const struct fab_params *p, uint16_t s, struct fab_run *r)
{
	struct fab_topo t;

	t_run_topo(p, s, &t, r);
	fab_topo_free(&t);
}

/* The scheme called name in p. */
static uint16_t
t_scheme(const struct fab_params *p, const char *name)
{
	uint16_t s;

	for (s = 0; s < p->nb_schemes; s++)
		if (strcmp(p->schemes[s].name, name) == 0)
			return s;
	ck_abort_msg("no scheme %s", name);
	return 0;
}

static void t_check_conserved(const struct fab_run *r, const char *what);

/*
 * Scheme name of file with overrides, run and checked for conservation;
 * the run is kept in *keep (the caller frees it) or freed.
 */
static void
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
static void
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
static void
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
static void
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

static void
t_out_all(const struct t_exp *e, const char *dir)
{
	t_out_all_opts(e, dir, NULL);
}

/* The contents of dir/name (NUL-terminated, malloc'ed) and its length. */
static char *
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
static bool
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

static unsigned int
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
static void
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

/* ==== lossy links ([drop.*] random and bursts) ==== */

/* A loss state for d, t0 = 0. */
static void
t_loss_start(struct ofan_loss *l, const struct ofan_loss_cfg *d,
	     uint64_t seed)
{
	ofan_loss_start(l, d, seed, 1, 0);
}

/*
 * Bursts as htsim's flaky link has them, on frames ending every 1 us
 * from 1 to 1000 us: due at 100 us, a burst loses the frames ending from
 * then to 10 us later (the first one after it passes), and the next is
 * due 100 us after it began; 10 bursts of 11 frames but the last (only
 * the frame at 1000 us).  A link idle when a burst is due: the burst
 * starts with the next frame (150 us), and the next is due 100 us after
 * that.  A burst longer than the period: the next is due a period after
 * it ended.
 */
START_TEST(test_loss_bursts)
{
	struct ofan_loss_cfg d = {
		.mode = OFAN_LOSS_BURSTS, .every_ns = 100 * T_US,
		.length_ns = 10 * T_US, .first_ns = 100 * T_US,
		.length_fixed = true,
	};
	struct ofan_loss l;
	uint64_t t, lost = 0;

	t_loss_start(&l, &d, 1);
	for (t = 1; t <= 1000; t++) {
		bool hit = ofan_loss_hit(&l, t * T_US);
		bool want = t >= 100 && t % 100 <= 10;

		ck_assert_msg(hit == want, "frame ending at %" PRIu64
			      " us: lost %d, expected %d", t, hit, want);
		lost += hit;
	}
	ck_assert_uint_eq(lost, 9 * 11 + 1);

	/* Idle when due. */
	t_loss_start(&l, &d, 1);
	ck_assert(!ofan_loss_hit(&l, 95 * T_US));
	ck_assert(ofan_loss_hit(&l, 150 * T_US));
	ck_assert(ofan_loss_hit(&l, 160 * T_US));
	ck_assert(!ofan_loss_hit(&l, 161 * T_US));
	ck_assert(!ofan_loss_hit(&l, 249 * T_US));
	ck_assert(ofan_loss_hit(&l, 250 * T_US));

	/* Longer than the period. */
	d.length_ns = 150 * T_US;
	t_loss_start(&l, &d, 1);
	ck_assert(ofan_loss_hit(&l, 100 * T_US));
	ck_assert(ofan_loss_hit(&l, 250 * T_US));
	ck_assert(!ofan_loss_hit(&l, 251 * T_US));
	ck_assert(!ofan_loss_hit(&l, 349 * T_US));
	ck_assert(ofan_loss_hit(&l, 350 * T_US));
}
END_TEST

/*
 * Burst lengths are exponential with the configured mean, as htsim draws
 * them (100,000 bursts: mean within 1 %, e^-1 of them past the mean and
 * e^-3 past three times it, within 0.01); a random loss rate loses its
 * share of frames (10^6 draws at 1 %: within 5 % of 10,000).  The same
 * seed gives the same losses.
 */
START_TEST(test_loss_distributions)
{
	struct ofan_loss_cfg d = {
		.mode = OFAN_LOSS_BURSTS, .every_ns = 100 * T_US,
		.length_ns = 10 * T_US, .first_ns = 0,
	};
	struct ofan_loss_cfg r = { .mode = OFAN_LOSS_RANDOM, .rate = 0.01 };
	struct ofan_loss l, l2;
	uint64_t i, len, sum = 0, past1 = 0, past3 = 0, lost = 0, t;
	const uint64_t n = 100000;

	t_loss_start(&l, &d, 7);
	for (i = 0; i < n; i++) {
		t = l.next_burst;
		ck_assert(ofan_loss_hit(&l, t));
		len = l.burst_end - t;
		sum += len;
		past1 += len > d.length_ns;
		past3 += len > 3 * d.length_ns;
		l.in_burst = false;
	}
	ck_assert_msg(fabs((double)sum / n / d.length_ns - 1) < 0.01,
		      "mean burst %.1f ns", (double)sum / n);
	ck_assert_msg(fabs((double)past1 / n - exp(-1)) < 0.01, "%" PRIu64,
		      past1);
	ck_assert_msg(fabs((double)past3 / n - exp(-3)) < 0.01, "%" PRIu64,
		      past3);

	t_loss_start(&l, &r, 7);
	t_loss_start(&l2, &r, 7);
	for (i = 0; i < 1000000; i++) {
		bool hit = ofan_loss_hit(&l, i);

		ck_assert(hit == ofan_loss_hit(&l2, i));
		lost += hit;
	}
	ck_assert_msg(lost > 9500 && lost < 10500, "%" PRIu64, lost);
}
END_TEST

/*
 * In a fabric: the k = 4 permutation with htsim's flaky link on
 * core0 -> agg0 and a random 0.5 % on agg1 -> core2; erasure recovery
 * completes every flow; what is lost is counted as injected, and only
 * there; two threads give the same files as one.
 */
START_TEST(test_loss_fabric)
{
	static const char *const ov[] = {
		"fabric.schemes=ecmp, spray, ofan", "traffic.size=1MiB",
		"drop.flaky.link=core0-agg0", "drop.flaky.mode=bursts",
		"drop.flaky.first=20us", "drop.rand.link=agg1-core2",
		"drop.rand.mode=random", "drop.rand.rate=0.005",
	};
	struct t_exp e;
	struct fab_run r;
	unsigned int s;

	t_same_on_two_threads("permutation-k4.ini", ov, RTE_DIM(ov), &e);
	for (s = 0; s < e.x.combos[0].nb_schemes; s++) {
		t_fabric_run(&e.x.combos[0], (uint16_t)s, &r);
		t_check_conserved(&r, "lossy links");
		ck_assert(r.completed);
		if (s != t_scheme(&e.x.combos[0], "ecmp"))
			ck_assert_uint_eq(r.drops_total,
					  r.drops[OFAN_DROP_INJECTED]);
		ck_assert_uint_gt(r.drops[OFAN_DROP_INJECTED], 0);
		fab_run_free(&r);
	}
	fab_experiment_free(&e.x);
	t_teardown();
}
END_TEST

/* ==== failure modes: stall, one way, routing taking a link back ==== */

/* One flow, h1 -> h0 (both on tor0), 1 MiB over SACK, with overrides. */
static uint64_t
t_stall_fct(const char *const *extra, int nb_extra, struct fab_run *keep)
{
	const char *ov[12] = {
		"fabric.schemes=ecmp", "traffic.pattern=incast",
		"traffic.incast_degree=1", "traffic.size=1MiB",
		"host.recovery=sack",
	};
	struct fab_run r;
	uint64_t fct;
	int k = 5, i;

	for (i = 0; i < nb_extra; i++)
		ov[k++] = extra[i];
	t_run_file("permutation-k4.ini", ov, k, "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.nb_flows, 1);
	fct = r.flows[0].fct_ns;
	t_keep(&r, keep);
	return fct;
}

/*
 * A stalled link (htsim's -ftype queue) starts no frame while it lasts
 * and loses none: h1's uplink stalled one way for 30 us delays its only
 * flow by the stall less what of its frame in service had still to go
 * (under a frame, 334 ns here), without a drop, a resend or a timeout.
 * The other way stalled (the ACKs' way): the data keeps flowing and the
 * ACKs held back arrive before the flow ends, so it ends when it would
 * have.  Both ways of an aggregation
 * switch's core link stalled under spraying: the queues towards it fill
 * to their capacity and tail-drop, nothing is lost on the wire, routing
 * removes it and every flow completes.
 */
START_TEST(test_stall)
{
	static const char *const data_way[] = {
		"failure.s.link=h1-tor0", "failure.s.mode=stall",
		"failure.s.at=10us", "failure.s.duration=30us",
		"failure.s.one_way=yes", "failure.s.reroute=no",
	};
	static const char *const ack_way[] = {
		"failure.s.link=tor0-h1", "failure.s.mode=stall",
		"failure.s.at=10us", "failure.s.duration=30us",
		"failure.s.one_way=yes", "failure.s.reroute=no",
	};
	static const char *const core[] = {
		"fabric.schemes=spray", "traffic.size=512KiB",
		"failure.s.link=agg0-core0", "failure.s.mode=stall",
		"failure.s.at=10us", "fabric.reconverge_delay=100us",
	};
	uint64_t base, stalled, acks;
	struct fab_run r;
	struct t_exp e;

	base = t_stall_fct(NULL, 0, NULL);
	stalled = t_stall_fct(data_way, RTE_DIM(data_way), &r);
	ck_assert_msg(stalled - base <= 30 * T_US &&
		      stalled - base >= 30 * T_US - 334,
		      "a 30 us stall delayed the flow by %" PRIu64 " ns",
		      stalled - base);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_eq(r.hosts.data_retx, 0);
	ck_assert_uint_eq(r.hosts.timeouts, 0);
	fab_run_free(&r);
	acks = t_stall_fct(ack_way, RTE_DIM(ack_way), NULL);
	ck_assert_msg(acks == base, "ACKs stalled 30 us: done at %" PRIu64
		      " ns, %" PRIu64 " ns without", acks, base);

	t_load(&e, "permutation-k4.ini", core, RTE_DIM(core), false, 0);
	t_fabric_run(&e.x.combos[0], 0, &r);
	t_check_conserved(&r, "a stalled core link");
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops[OFAN_DROP_BLACKHOLE], 0);
	ck_assert_uint_ge(r.max_queue[FAB_L_AGG_UP], 50);
	ck_assert_uint_gt(r.drops[OFAN_DROP_QUEUE_FULL], 0);
	fab_run_free(&r);
	fab_experiment_free(&e.x);
}
END_TEST

/*
 * Trimming (architecture.md, "Trimming"): a 2-to-1 incast into a 2-frame queue.
 * Every overflow becomes a header at the receiver, which NACKs it, and
 * the sender resends exactly that packet: every byte delivered, nothing
 * dropped, no RTO, and trimmed = headers received = NACKs = resends.
 * With return to sender every header goes back to its sender instead.
 * Without trimming the same incast drops what overflows.  Byte-identical
 * on one and two threads.
 */
START_TEST(test_trim_incast)
{
	static const char *const rts[] = { "queue.rts=always" };
	static const char *const full[] = { "queue.trim_size=full" };
	static const char *const off[] = {
		"queue.trim=no", "host.recovery=sack",
	};
	static const char *const last[] = {
		"queue.trim=no", "queue.leaf_down.trim=yes",
	};
	static const char *const up[] = {
		"queue.trim=no", "queue.leaf_up.trim=yes",
	};
	const uint64_t goodput = 2 * 256 * 1024;
	struct fab_run r;

	t_run_file("incast-trim.ini", NULL, 0, "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_eq(r.hosts.timeouts, 0);
	ck_assert_uint_eq(r.hosts.goodput_bytes, goodput);
	ck_assert_uint_gt(r.trimmed, 20);
	ck_assert_uint_eq(r.hosts.trimmed_rx, r.trimmed);
	ck_assert_uint_eq(r.hosts.nacks_sent, r.trimmed);
	ck_assert_uint_eq(r.hosts.nacks_received, r.trimmed);
	ck_assert_uint_eq(r.hosts.data_retx, r.trimmed);
	ck_assert_uint_eq(r.hosts.dup_pkts, 0);
	ck_assert_uint_eq(r.headers_returned, 0);
	ck_assert_uint_eq(r.ctrl_drops, 0);
	fab_run_free(&r);

	t_run_file("incast-trim.ini", rts, RTE_DIM(rts), "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_eq(r.hosts.timeouts, 0);
	ck_assert_uint_eq(r.hosts.goodput_bytes, goodput);
	ck_assert_uint_gt(r.trimmed, 20);
	ck_assert_uint_eq(r.headers_returned, r.trimmed);
	ck_assert_uint_eq(r.hosts.returned_rx, r.trimmed);
	ck_assert_uint_eq(r.hosts.trimmed_rx, 0);
	ck_assert_uint_eq(r.hosts.nacks_sent, 0);
	ck_assert_uint_eq(r.hosts.data_retx, r.trimmed);
	fab_run_free(&r);

	/* Marked, not cut: the same accounting, on a busier link. */
	t_run_file("incast-trim.ini", full, RTE_DIM(full), "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.hosts.goodput_bytes, goodput);
	ck_assert_uint_gt(r.trimmed, 20);
	ck_assert_uint_eq(r.hosts.trimmed_rx + r.ctrl_drops, r.trimmed);
	fab_run_free(&r);

	t_run_file("incast-trim.ini", off, RTE_DIM(off), "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.trimmed, 0);
	ck_assert_uint_gt(r.drops[OFAN_DROP_QUEUE_FULL], 20);
	fab_run_free(&r);

	/* Trimming where the incast meets (the last hop) is all it takes;
	 * trimming only the leaves' uplinks trims nothing of it. */
	t_run_file("incast-trim.ini", last, RTE_DIM(last), "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_gt(r.trimmed, 20);
	ck_assert_uint_eq(r.hosts.data_retx, r.trimmed);
	fab_run_free(&r);
	t_run_file("incast-trim.ini", up, RTE_DIM(up), "ecmp", &r, true);
	ck_assert_uint_eq(r.trimmed, 0);
	ck_assert_uint_gt(r.drops[OFAN_DROP_QUEUE_FULL], 20);
	fab_run_free(&r);

	t_same_on_two_threads("incast-trim.ini", rts, RTE_DIM(rts), NULL);
}
END_TEST

/*
 * A lossless fabric (PFC) under a 3-to-1 incast with go-back-N: nothing
 * is lost, pauses go upstream -- to hosts too -- and every one is
 * resumed; each queue stays below what its ingress ports may hold, each
 * xoff plus the headroom (2 x 1 us x 100 Gb/s = 25,000 bytes, a full
 * frame of 4,110 + 24 either side and the pause's 84: 33,352); go-back-N
 * never rewinds, as nothing arrives out of order.  Without PFC, on the
 * same 8-frame queues, the incast drops and go-back-N resends.  The same
 * on two threads.
 */
START_TEST(test_pfc_incast)
{
	static const char *const lossy[] = {
		"queue.pfc=no", "queue.queue_packets=8",
	};
	static const char *const spray[] = { "fabric.schemes=spray" };
	const uint64_t goodput = 3 * 256 * 1024, per_in = 48000 + 33352;
	struct fab_run r;

	t_run_file("incast-pfc.ini", NULL, 0, "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_eq(r.hosts.goodput_bytes, goodput);
	ck_assert_uint_gt(r.pfc_pauses, 0);
	ck_assert_uint_eq(r.pfc_resumes, r.pfc_pauses);
	ck_assert_uint_gt(r.pfc_paused_ns, 0);
	ck_assert_uint_gt(r.hosts.pfc_pauses_received, 0);
	ck_assert_uint_gt(r.hosts.pfc_paused_ns, 0);
	ck_assert_uint_eq(r.hosts.nacks_sent, 0);
	ck_assert_uint_eq(r.hosts.data_retx, 0);
	ck_assert_uint_eq(r.hosts.timeouts, 0);
	/* Leaf 0's port to host 0 holds what host 1 and two spines bring. */
	ck_assert_uint_le(r.max_queue_bytes[FAB_L_TOR_DOWN], 3 * per_in);
	/* Leaf 1's uplinks, what hosts 2 and 3 bring. */
	ck_assert_uint_le(r.max_queue_bytes[FAB_L_TOR_UP], 2 * per_in);
	ck_assert_uint_gt(r.max_queue_bytes[FAB_L_TOR_DOWN], 48000);
	fab_run_free(&r);

	/* Spraying reorders: go-back-N NACKs and rewinds, still lossless. */
	t_run_file("incast-pfc.ini", spray, RTE_DIM(spray), "spray", &r,
		   true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.drops_total, 0);
	ck_assert_uint_eq(r.hosts.goodput_bytes, goodput);
	fab_run_free(&r);

	t_run_file("incast-pfc.ini", lossy, RTE_DIM(lossy), "ecmp", &r, true);
	ck_assert_uint_eq(r.pfc_pauses, 0);
	ck_assert_uint_gt(r.drops[OFAN_DROP_QUEUE_FULL], 0);
	ck_assert_uint_gt(r.hosts.data_retx, 0);
	fab_run_free(&r);

	t_same_on_two_threads("incast-pfc.ini", NULL, 0, NULL);
}
END_TEST

/*
 * One way: h1's uplink degraded to half its rate from the start, that way
 * only, takes its flow about twice as long; the same degradation of the
 * other way (the ACKs') delays it by under a microsecond.  A section's
 * blank-separated links make one failure each, first_links the first N.
 */
START_TEST(test_degraded_one_way)
{
	static const char *const data_way[] = {
		"failure.d.link=h1-tor0", "failure.d.mode=degraded",
		"failure.d.rate=50G", "failure.d.at=0",
		"failure.d.one_way=yes", "failure.d.reroute=no",
	};
	static const char *const ack_way[] = {
		"failure.d.link=tor0-h1", "failure.d.mode=degraded",
		"failure.d.rate=50G", "failure.d.at=0",
		"failure.d.one_way=yes", "failure.d.reroute=no",
	};
	static const char *const list[] = {
		"failure.d.link=core0-agg0 core1-agg0  core2-agg1",
		"failure.d.mode=degraded", "failure.d.rate=10G", "failure.d.at=0",
		"failure.d.one_way=yes", "drop.l.link=agg0-core0 agg1-core2",
		"drop.l.mode=random", "drop.l.rate=0.5", "drop.l.first_links=1",
	};
	uint64_t base, slow, acks;
	struct t_exp e;

	base = t_stall_fct(NULL, 0, NULL);
	slow = t_stall_fct(data_way, RTE_DIM(data_way), NULL);
	acks = t_stall_fct(ack_way, RTE_DIM(ack_way), NULL);
	ck_assert_msg(slow > 19 * base / 10 && slow < 21 * base / 10,
		      "half the rate one way: %" PRIu64 " ns, %" PRIu64
		      " at full rate", slow, base);
	ck_assert_msg(acks >= base && acks - base < T_US,
		      "the ACKs' way at half rate: %" PRIu64 " ns, %" PRIu64
		      " at full rate", acks, base);

	t_load(&e, "permutation-k4.ini", list, RTE_DIM(list), false, 0);
	ck_assert_uint_eq(e.x.combos[0].nb_failures, 3);
	ck_assert_str_eq(e.x.combos[0].failures[1].link, "core1-agg0");
	ck_assert_str_eq(e.x.combos[0].failures[2].link, "core2-agg1");
	ck_assert_str_eq(e.x.combos[0].failures[2].sec, "failure.d");
	ck_assert(e.x.combos[0].failures[2].one_way);
	ck_assert_uint_eq(e.x.combos[0].nb_drops, 1);
	ck_assert_str_eq(e.x.combos[0].drops[0].link, "agg0-core0");
	fab_experiment_free(&e.x);
}
END_TEST

/*
 * Routing takes a returned link back route_back after it returned
 * (htsim's -fdonetime): a black hole on agg0-core0 from 10 to 30 us,
 * routed around 5 us after it began, is still out of the routes 20 us
 * after it returned and back 1 ns after route_back = 40 us; with
 * route_back = 0 it is back the moment it returns.
 */
START_TEST(test_route_back)
{
	static const struct {
		const char *route_back, *cut;
		bool alive;
	} c[] = {
		{ "failure.h.route_back=40us", "fabric.time_limit=50us", false },
		{ "failure.h.route_back=40us", "fabric.time_limit=70001ns", true },
		{ "failure.h.route_back=0", "fabric.time_limit=30001ns", true },
		{ "failure.h.route_back=0", "fabric.time_limit=29999ns", false },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++) {
		const char *ov[] = {
			"fabric.schemes=spray", "traffic.size=1MiB",
			"failure.h.link=agg0-core0", "failure.h.mode=blackhole",
			"failure.h.at=10us", "failure.h.duration=20us",
			"fabric.reconverge_delay=5us", c[i].route_back,
			c[i].cut,
		};
		struct fab_topo t;
		struct fab_run r;
		struct t_exp e;

		t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
		t_run_topo(&e.x.combos[0], 0, &t, &r);
		ck_assert(!r.completed);
		ck_assert_msg(t.alive[fab_topo_find_link(&t, "agg0-core0")] ==
			      c[i].alive, "%s, %s: in the routes %d, expected %d",
			      c[i].route_back, c[i].cut, !c[i].alive,
			      c[i].alive);
		t_run_free(&t, &r);
		fab_experiment_free(&e.x);
	}
}
END_TEST

/* ==== host-side DR (drb hosts, sr switches) ==== */

/*
 * Host-side DR on the k = 4 fat tree at full load: every flow's data
 * packets take all 4 paths' EVs (sr turns them into the 4 cores,
 * test_sr), and its queues stay O(1) as switch DR's (ofan) do: at most 4
 * frames on any port for 256 KiB and for 4 MiB flows, where spraying's
 * largest queue at least doubles.  The scheme "drb" runs
 * through sr, the switch policy drb names.
 */
START_TEST(test_host_dr)
{
	static const char *const sizes[] = {
		"traffic.size=256KiB", "traffic.size=4MiB",
	};
	double spray_q[2] = { 0 }, q;
	unsigned int i, f;
	uint16_t s;

	for (i = 0; i < 2; i++) {
		const char *ov[] = { "fabric.schemes=ofan, drb, spray",
				     sizes[i] };
		struct t_exp e;
		struct fab_run r;
		const struct fab_params *p;

		t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
		p = &e.x.combos[0];
		ck_assert_ptr_eq(p->schemes[t_scheme(p, "drb")].sw_policy,
				 lb_find("sr"));
		for (s = 0; s < p->nb_schemes; s++) {
			t_fabric_run(p, s, &r);
			t_check_conserved(&r, p->schemes[s].name);
			ck_assert(r.completed);
			ck_assert_uint_eq(r.drops_total, 0);
			/* In full frames' worth of bytes, as tables. */
			q = (double)r.max_queue_bytes_all / r.full_frame;
			if (s == t_scheme(p, "spray"))
				spray_q[i] = q;
			else
				ck_assert_msg(q <= 4.0, "%s %s: a queue of %.1f frames",
					      p->schemes[s].name, sizes[i], q);
			if (s == t_scheme(p, "drb"))
				for (f = 0; f < r.nb_flows; f++)
					ck_assert_uint_eq(r.flows[f].m.distinct_evs,
							  4);
			fab_run_free(&r);
		}
		fab_experiment_free(&e.x);
	}
	ck_assert_msg(spray_q[1] >= 2 * spray_q[0],
		      "spray: %.1f -> %.1f frames", spray_q[0],
		      spray_q[1]);
}
END_TEST

/*
 * The simulator's other strategies in a fabric (k = 4 permutation,
 * 1 MiB, full load): each completes, conserved; fib_llss, a per-
 * destination round robin, keeps its queues as small as ofan's (4 full
 * frames); rr_ecmp hashes above the ToRs and so collides there: its
 * aggregation uplinks queue more than its ToR uplinks.
 */
START_TEST(test_study_schemes)
{
	static const char *const ov[] = {
		"fabric.schemes=ecmp_ar, rr_ecmp, fib_llss", "traffic.size=1MiB",
	};
	struct fab_run r;
	double q;

	t_run_file("permutation-k4.ini", ov, RTE_DIM(ov), "fib_llss", &r, true);
	ck_assert(r.completed);
	q = (double)r.max_queue_bytes_all / r.full_frame;
	ck_assert_msg(q <= 4.0, "fib_llss: a queue of %.1f frames", q);
	fab_run_free(&r);
	t_run_file("permutation-k4.ini", ov, RTE_DIM(ov), "rr_ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_msg(r.max_queue_bytes[FAB_L_AGG_UP] >
		      r.max_queue_bytes[FAB_L_TOR_UP],
		      "rr_ecmp: agg up %" PRIu64 " B, tor up %" PRIu64 " B",
		      r.max_queue_bytes[FAB_L_AGG_UP],
		      r.max_queue_bytes[FAB_L_TOR_UP]);
	fab_run_free(&r);
	t_run_file("permutation-k4.ini", ov, RTE_DIM(ov), "ecmp_ar", &r, true);
	ck_assert(r.completed);
	fab_run_free(&r);
}
END_TEST

/* ==== 2. conservation ==== */

/*
 * Every scheme on the k=4 permutation (512 KiB flows): every flow
 * completes (before the 10 ms limit), nothing is left anywhere at the end
 * and every packet is accounted for.  No flow beats its ideal time (its
 * bytes at the link rate, one full frame's store and forward along the
 * path, an ACK's way back): the ideal is a lower bound but for a sprayed
 * short last frame overtaking the full ones (under 1.2 us of ~50 us
 * here), and at full load every flow is slowed by more than that --
 * measured minimum slowdown 1.0099 (ecmp), 1.015 (flowlet), 1.02 (ops).
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
struct t_link_case {
	const char *rate;	/* [fabric] rate */
	uint64_t rate_bps;
	uint32_t mtu;
	uint64_t size;		/* bytes of the flow */
};

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

/* What the model says of one case. */
struct t_link_model {
	uint32_t nb_frames;
	uint64_t ser_ns;	/* sum of the data frames' times */
	uint64_t wire_bytes;	/* of the data frames, with overhead */
	uint64_t ack_ns;	/* one ACK frame's time */
	uint64_t ack_wait_ns;	/* the last ACK behind the previous one */
	uint64_t t_rx, t_tx;
	uint64_t rtt_sum_ns;	/* each frame's start to its ACK's return */
};

/* A frame's time on a link of rate bps: whole ns, rounded up. */
static uint64_t
t_frame_ns(uint64_t frame, uint64_t rate_bps)
{
	uint64_t bits = (frame + OFAN_WIRE_OVERHEAD) * 8;

	return (bits * 1000000000ull + rate_bps - 1) / rate_bps;
}

static void
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
		m->ser_ns += t_frame_ns(frame, c->rate_bps);
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
	ck_assert_uint_eq(e->x.combos[0].host.mtu, c->mtu);
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
	 * The ideal: the flow's wire bytes at the rate (floored), one way
	 * and back (fab_oneway_ns / fab_ack_back_ns, one link each).  Only
	 * the per-frame rounding (none at 8G) and the last ACK's wait
	 * separate the two.
	 */
	ck_assert_uint_eq(fab_oneway_ns(p, 1), delay);
	ck_assert_uint_eq(fab_ack_back_ns(p, 1), delay + m.ack_ns);
	tx_ideal = m.wire_bytes * 8 * 1000000000ull / c->rate_bps;
	ck_assert_uint_eq(fr->ideal_ns, tx_ideal + fab_oneway_ns(p, 1) +
			  fab_ack_back_ns(p, 1));
	ck_assert_uint_eq(fr->fct_ns - fr->ideal_ns,
			  m.ser_ns - tx_ideal + m.ack_wait_ns);
	if (c->rate_bps == 8000000000ull)
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
 * 43780 ns.  The ideal counts every frame at its slot (the flow's bytes
 * at the paced rate, then the path): 82 ns more than the last frame
 * needed.
 * Sizes without a slot: every 4134 ns (its frame and 24), 43384 ns.  A
 * slot alone, with Ethernet's costs (4134 and 102 on the link): 43838.
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
	if (strcmp(c->pace, "4178") == 0 && strcmp(c->data, "4096") == 0)
		ck_assert_uint_eq(r.flows[0].ideal_ns, c->fct_ns + 82);
	fab_run_free(&r);
	fab_experiment_free(&e.x);
}
END_TEST

/* ==== 4. the science (docs/architecture.md, "What the tests hold") ==== */

/*
 * ECMP's collisions: on the k=4 permutation at full rate, two flows that
 * hash onto one uplink share it for their whole life, so ECMP's worst
 * flow is far slower than any sprayed one, while spraying (host ops,
 * switch spray, ofan) stays near the ideal.  Measured max slowdowns
 * (seed 1, 512 KiB): ecmp 6.28, ops 1.14, spray 1.16, ofan 1.04.
 */
START_TEST(test_ecmp_collisions)
{
	static const char *const ov[] = {
		"fabric.schemes=ecmp, ops, spray, ofan",
	};
	static const char *const sprayers[] = { "ops", "spray", "ofan" };
	struct t_exp e;
	const struct fab_params *p;
	double ecmp;
	unsigned int i;
	struct fab_run r;

	t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
	p = &e.x.combos[0];
	t_fabric_run(p, t_scheme(p, "ecmp"), &r);
	ck_assert(r.completed);
	ecmp = r.max_slowdown;
	fab_run_free(&r);
	ck_assert_msg(ecmp > 2.0, "ecmp max slowdown %.3f", ecmp);
	for (i = 0; i < RTE_DIM(sprayers); i++) {
		t_fabric_run(p, t_scheme(p, sprayers[i]), &r);
		ck_assert(r.completed);
		ck_assert_msg(r.max_slowdown < 1.5, "%s max slowdown %.3f",
			      sprayers[i], r.max_slowdown);
		ck_assert_msg(ecmp > 1.5 * r.max_slowdown,
			      "ecmp %.3f is not well above %s %.3f", ecmp,
			      sprayers[i], r.max_slowdown);
		ck_assert_uint_eq(r.drops_total, 0);
		fab_run_free(&r);
	}
	fab_experiment_free(&e.x);
}
END_TEST

/* The largest per-window maximum of r's queue windows. */
static uint32_t
t_qwin_max(const struct fab_run *r)
{
	uint32_t i, m = 0;

	for (i = 0; i < r->nb_qwin; i++)
		m = RTE_MAX(m, r->qwin[i].max_pkts);
	return m;
}

/*
 * Queue scaling at full load (queues-leafspine.ini: every flow crosses
 * the spine at the full link rate, ACKs sharing the NICs): random
 * spraying's queues are a random walk, so the longer the run the higher
 * its maximum -- 8 MiB flows (~0.73 ms) see at least 1.5 times the queue
 * of 1 MiB flows (~0.1 ms).  ofan's rotation spreads each switch's
 * packets to a destination exactly evenly, so its queues stay within a
 * few packets however long the run.  spray must not drop (the queues hold
 * 256), or its maxima would be clipped.  The queue windows of queues.csv
 * agree with the engines' own maxima.  Here the maxima are in frames of
 * any size (ACKs count one each); test_queue_scaling_study counts bytes.
 */
#define T_OFAN_QUEUE_BOUND 8

START_TEST(test_queue_scaling)
{
	static const char *const sizes[] = {
		"traffic.size=1MiB", "traffic.size=8MiB",
	};
	uint64_t q[2][2];	/* [size][spray, ofan] */
	unsigned int z, k;

	for (z = 0; z < 2; z++) {
		const char *ov[] = { sizes[z] };
		const struct fab_params *p;
		struct t_exp e;

		t_load(&e, "queues-leafspine.ini", ov, 1, false, 0);
		p = &e.x.combos[0];
		ck_assert_uint_eq(p->topo, FAB_TOPO_LEAFSPINE);
		for (k = 0; k < 2; k++) {
			const char *name = k == 0 ? "spray" : "ofan";
			struct fab_run r;

			t_fabric_run(p, t_scheme(p, name), &r);
			t_check_conserved(&r, name);
			ck_assert_msg(r.completed, "%s %s", name, sizes[z]);
			ck_assert_uint_eq(r.drops_total, 0);
			ck_assert_uint_eq(t_qwin_max(&r), r.max_queue_all);
			q[z][k] = r.max_queue_all;
			fab_run_free(&r);
		}
		fab_experiment_free(&e.x);
	}
	ck_assert_msg(2 * q[1][0] >= 3 * q[0][0],
		      "spray's max queue: %" PRIu64 " packets with 1 MiB "
		      "flows, %" PRIu64 " with 8 MiB", q[0][0], q[1][0]);
	ck_assert_msg(q[0][1] <= T_OFAN_QUEUE_BOUND &&
		      q[1][1] <= T_OFAN_QUEUE_BOUND,
		      "ofan's max queue: %" PRIu64 " and %" PRIu64 " packets",
		      q[0][1], q[1][1]);
	ck_assert_msg(q[1][1] <= q[0][1] + 1,
		      "ofan's max queue grew from %" PRIu64 " to %" PRIu64,
		      q[0][1], q[1][1]);
	ck_assert_uint_gt(q[1][0], 4 * q[1][1]);
}
END_TEST

/*
 * Packets scheme `name` of blackhole-k4.ini lost in the black hole by
 * limit_ns after the start (0: the whole run, into *r_full if not NULL).
 */
static uint64_t
t_blackhole_lost(const char *name, uint64_t limit_ns, struct fab_run *r_full)
{
	char ov[64];
	const char *ovp[1] = { ov };
	struct fab_run r;
	uint64_t lost;

	snprintf(ov, sizeof(ov), "fabric.time_limit=%" PRIu64 "ns", limit_ns);
	t_run_file("blackhole-k4.ini", ovp, limit_ns != 0 ? 1 : 0, name, &r,
		   true);
	lost = r.drops[OFAN_DROP_BLACKHOLE];
	t_keep(&r, r_full);
	return lost;
}

/*
 * A black hole (blackhole-k4.ini: agg0-core0 drops everything from 20 us,
 * routing reconverges 700 us later).  REPS, on the hosts, sees the EVs
 * through the hole time out, freezes on the good ones and stops feeding
 * the hole: it loses nothing more after half the reconvergence time and
 * every flow completes before the reconvergence.  Switch spraying and ofan
 * keep sending a share of every retransmission round into the hole until
 * the switches route around it (losses in the second half, none after),
 * so they finish only after.  Without the failure (the same permutation
 * in permutation-k4.ini) all three finish in under half the
 * reconvergence time, so the failure is what delays them.
 *
 * Measured (seed 1), packets lost in the hole by 370 us / by 720 us /
 * in all, and the end: REPS 691 / 691 / 691, done at 424 us; ofan
 * 1864 / 1941 / 1941, 926 us; spray 1919 / 1976 / 1976, 1138 us (and one
 * packet in flight to core0 dropped as no_live_member after the
 * reconvergence).  Without the failure: 201, 190, 206 us.  A
 * reconvergence at 1 ms passes too (ofan 1150 us, spray 1130 us) but
 * with a thin margin: spray and ofan finish when a chain of RTOs happens
 * to get the last lost packet through.
 */
START_TEST(test_blackhole)
{
	static const char *const ov_ctl[] = {
		"fabric.schemes=reps, ofan, spray", "traffic.size=2MiB",
	};
	static const char *const names[] = { "reps", "ofan", "spray" };
	uint64_t reconverged, half, lost, lost_half, lost_rc;
	const struct fab_params *p;
	struct t_exp e;
	struct fab_run r;
	unsigned int i;

	t_load(&e, "blackhole-k4.ini", NULL, 0, false, 0);
	p = &e.x.combos[0];
	reconverged = p->failures[0].at_ns + p->reconverge_delay_ns;
	half = p->failures[0].at_ns + p->reconverge_delay_ns / 2;
	fab_experiment_free(&e.x);

	for (i = 0; i < RTE_DIM(names); i++) {
		lost = t_blackhole_lost(names[i], 0, &r);
		/* The link carries traffic of every scheme. */
		ck_assert_msg(lost > 0, "%s: nothing fell into the black hole",
			      names[i]);
		if (i == 0)
			ck_assert_msg(r.completed && r.sim_ns < reconverged,
				      "reps: done %d at %" PRIu64
				      " ns, reconverged at %" PRIu64,
				      r.completed, r.sim_ns, reconverged);
		else
			ck_assert_msg(!r.completed || r.sim_ns > reconverged,
				      "%s: done at %" PRIu64
				      " ns, before the reconvergence at %"
				      PRIu64, names[i], r.sim_ns, reconverged);
		fab_run_free(&r);

		lost_half = t_blackhole_lost(names[i], half, NULL);
		lost_rc = t_blackhole_lost(names[i], reconverged, NULL);
		ck_assert_msg(lost_rc == lost, "%s lost %" PRIu64 " packets in "
			      "the hole by the reconvergence, %" PRIu64
			      " in all", names[i], lost_rc, lost);
		if (i == 0)
			ck_assert_msg(lost_half == lost, "reps lost %"
				      PRIu64 " packets by %" PRIu64
				      " ns, %" PRIu64 " in all", lost_half,
				      half, lost);
		else
			ck_assert_msg(lost_half < lost_rc, "%s lost nothing "
				      "between %" PRIu64 " ns and the "
				      "reconvergence", names[i], half);
	}

	t_load(&e, "permutation-k4.ini", ov_ctl, RTE_DIM(ov_ctl), false, 0);
	p = &e.x.combos[0];
	ck_assert_uint_eq(p->nb_failures, 0);
	for (i = 0; i < RTE_DIM(names); i++) {
		t_fabric_run(p, t_scheme(p, names[i]), &r);
		ck_assert(r.completed);
		ck_assert_uint_eq(r.drops[OFAN_DROP_BLACKHOLE], 0);
		ck_assert_msg(2 * r.sim_ns < reconverged,
			      "%s without failure: done at %" PRIu64 " ns",
			      names[i], r.sim_ns);
		fab_run_free(&r);
	}
	fab_experiment_free(&e.x);
}
END_TEST

/* ==== 6. the study's model: htsim matrices, triggers, erasure ==== */

/* Write text to a fresh temporary .cm file (removed by t_teardown()). */
static void
t_write_cm(char *path, size_t size, const char *text)
{
	int fd;

	snprintf(path, size, "/tmp/ofan-test-fabric-XXXXXX.cm");
	fd = mkstemps(path, 3);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(write(fd, text, strlen(text)), strlen(text));
	ck_assert_int_eq(close(fd), 0);
	t_tmp_add(path);
}

/*
 * An htsim matrix with triggers runs on b2b.ini, and a flow that waits
 * for a trigger starts at the very nanosecond it fires: flow 1 (1->0)
 * when flow 0 is received (recv_done_trigger, a oneshot), flow 2 when
 * flow 1 is acknowledged (send_done_trigger, a barrier of one).  Flow
 * 0's reception is the link model's T_rx.
 */
START_TEST(test_cm_triggers)
{
	static const char text[] =
		"Nodes 2\nConnections 3\nTriggers 2\n"
		"1->0 id 1 start 0 size 40960 recv_done_trigger 1\n"
		"0->1 id 2 trigger 1 size 20480 send_done_trigger 2\n"
		"1->0 id 3 trigger 2 size 8192\n"
		"trigger id 1 oneshot\ntrigger id 2 barrier count 1\n";
	static const struct t_link_case c = {
		"8G", 8000000000ull, 4096, 40960
	};
	char path[T_PATH_SIZE], ov[2][T_PATH_SIZE + 32];
	const char *ovp[2] = { ov[0], ov[1] };
	const struct fab_flow_result *f;
	struct t_link_model m;
	struct t_exp e;
	struct fab_run r;

	t_write_cm(path, sizeof(path), text);
	snprintf(ov[0], sizeof(ov[0]), "traffic.pattern=cm");
	snprintf(ov[1], sizeof(ov[1]), "traffic.cm_file=%s", path);
	t_load(&e, "b2b.ini", ovp, 2, false, 0);
	t_fabric_run(&e.x.combos[0], 0, &r);
	t_check_conserved(&r, "triggers");
	ck_assert(r.completed);
	ck_assert_uint_eq(r.nb_flows, 3);
	f = r.flows;
	t_link_model(&c, e.x.combos[0].delay_ns, &m);
	ck_assert_uint_eq(f[0].m.start_ns, 0);
	ck_assert_uint_eq(f[0].m.rx_done_ns, m.t_rx);
	ck_assert_uint_eq(f[1].m.start_ns, f[0].m.rx_done_ns);
	ck_assert_uint_eq(f[2].m.start_ns, f[1].m.start_ns + f[1].fct_ns);
	ck_assert_uint_gt(f[2].fct_ns, 0);
	/* The ideal collective follows the same chain. */
	ck_assert_uint_ge(r.collective_ideal_ns, f[0].ideal_ns +
			  f[1].ideal_ns + f[2].ideal_ns - 2 * T_US);
	fab_run_free(&r);
	fab_experiment_free(&e.x);
}
END_TEST

/*
 * Triggers between hosts of different parts: the run takes one part (it
 * says so in one_part), and its files are those of a run on one thread.
 * A barrier on leaf 3 waits for flows from leaves 0 and 1.
 */
START_TEST(test_cm_triggers_parts)
{
	static const char text[] =
		"Nodes 16\nConnections 3\nTriggers 1\n"
		"0->5 id 1 start 0 size 65536 send_done_trigger 9\n"
		"4->9 id 2 start 0 size 131072 send_done_trigger 9\n"
		"12->2 id 3 trigger 9 size 65536\n"
		"trigger id 9 barrier count 2\n";
	char path[T_PATH_SIZE], ov[3][T_PATH_SIZE + 32];
	const char *ovp[3] = { ov[0], ov[1], ov[2] };
	uint64_t start[2];
	unsigned int thr;

	t_write_cm(path, sizeof(path), text);
	snprintf(ov[0], sizeof(ov[0]), "traffic.pattern=cm");
	snprintf(ov[1], sizeof(ov[1]), "traffic.cm_file=%s", path);
	for (thr = 1; thr <= 2; thr++) {
		const struct fab_params *p;
		struct t_exp e;
		struct fab_run r;

		snprintf(ov[2], sizeof(ov[2]), "fabric.threads=%u", thr);
		t_load(&e, "queues-leafspine.ini", ovp, 3, false, 0);
		p = &e.x.combos[0];
		t_fabric_run(p, t_scheme(p, "ofan"), &r);
		t_check_conserved(&r, "triggers across parts");
		ck_assert(r.completed);
		ck_assert(r.one_part == (thr == 2));
		ck_assert_uint_eq(r.flows[2].m.start_ns,
				  RTE_MAX(r.flows[0].m.start_ns +
					  r.flows[0].fct_ns,
					  r.flows[1].m.start_ns +
					  r.flows[1].fct_ns));
		start[thr - 1] = r.flows[2].m.start_ns;
		fab_run_free(&r);
		fab_experiment_free(&e.x);
	}
	ck_assert_uint_eq(start[0], start[1]);
}
END_TEST

/*
 * htsim's failure lines name a link in htsim's numbering and take it away
 * before the traffic starts, with routing aware of it: nothing is lost.
 * On k = 4: AGG 5 link 1 is agg5's uplink 1 (htsim's core 1 + 2 = 3, here
 * core3); TOR 2 link 0 is tor2's uplink to agg2; CORE 3 link 2 is htsim's
 * core 3 (the aggs at position 1) to pod 2: agg5 and, here, core3; CORE 2
 * link 0 is htsim's core 2 (position 0, its uplink 1) to pod 0: agg0 and
 * core1.
 */
START_TEST(test_cm_failures)
{
	static const struct {
		uint8_t type;
		uint32_t id, link;
		const char *name;
	} maps[] = {
		{ HS_SW_AGG, 5, 1, "agg5-core3" },
		{ HS_SW_AGG, 0, 0, "agg0-core0" },
		{ HS_SW_TOR, 2, 0, "tor2-agg2" },
		{ HS_SW_CORE, 3, 2, "agg5-core3" },
		{ HS_SW_CORE, 2, 0, "agg0-core1" },
	};
	static const char text[] =
		"Nodes 16\nConnections 16\nFailures 2\n"
		"failure switch_type AGG switch_id 5 link_id 1\n"
		"failure switch_type TOR switch_id 0 link_id 0\n";
	char path[T_PATH_SIZE], ov[2][T_PATH_SIZE + 32], err[256];
	char full[2048], msg[1024] = "", want[2 * T_PATH_SIZE];
	const char *ovp[2] = { ov[0], ov[1] };
	const char *ls[3] = { ov[0], ov[1], "fabric.topology=leafspine" };
	struct hs_cm_failure cf = { 0 };
	struct fab_experiment x;
	const struct fab_params *p;
	struct fab_topo t;
	struct t_exp e;
	struct fab_run r;
	unsigned int i;
	size_t used;

	used = (size_t)snprintf(full, sizeof(full), "%s", text);
	for (i = 0; i < 16; i++)
		used += (size_t)snprintf(full + used, sizeof(full) - used,
					 "%u->%u start 0 size 131072\n", i,
					 (i + 5) % 16);
	t_write_cm(path, sizeof(path), full);
	snprintf(ov[0], sizeof(ov[0]), "traffic.pattern=cm");
	snprintf(ov[1], sizeof(ov[1]), "traffic.cm_file=%s", path);
	t_load(&e, "permutation-k4.ini", ovp, 2, false, 0);
	p = &e.x.combos[0];
	ck_assert_uint_eq(p->nb_failures, 2);
	ck_assert(p->failures[0].at_start);
	ck_assert_str_eq(p->failures[0].link, "agg5-core3");
	ck_assert_str_eq(p->failures[1].link, "tor0-agg0");
	ck_assert_int_eq(fab_topo_build(p, p->schemes[0].sw_policy, &t, err,
					sizeof(err)), 0);
	for (i = 0; i < RTE_DIM(maps); i++) {
		uint32_t l;

		cf.switch_type = maps[i].type;
		cf.switch_id = maps[i].id;
		cf.link_id = maps[i].link;
		l = fab_topo_cm_link(p, &t, &cf, err, sizeof(err));
		ck_assert_msg(l != FAB_NONE, "%u %u %u: %s", maps[i].type,
			      maps[i].id, maps[i].link, err);
		ck_assert_str_eq(t.links[l].name, maps[i].name);
	}
	cf.switch_type = HS_SW_AGG;
	cf.switch_id = 8;
	ck_assert_uint_eq(fab_topo_cm_link(p, &t, &cf, err, sizeof(err)),
			  FAB_NONE);
	ck_assert_str_eq(err, "switch_id 8 of switch_type AGG; expected 0 to 7 in this fattree");
	fab_topo_free(&t);
	for (i = 0; i < p->nb_schemes; i++) {
		t_fabric_run(p, (uint16_t)i, &r);
		t_check_conserved(&r, p->schemes[i].name);
		ck_assert_msg(r.completed, "%s", p->schemes[i].name);
		ck_assert_msg(r.drops[OFAN_DROP_LINK_DOWN] == 0,
			      "%s sent into a link that was never there",
			      p->schemes[i].name);
		fab_run_free(&r);
	}
	/* A leaf-spine of 16 hosts has no AGG: refused where it stands. */
	ck_assert_int_eq(fab_experiment_load(e.path, (char *const *)ls, 3,
					     false, 0, &x, msg, sizeof(msg)),
			 -EINVAL);
	snprintf(want, sizeof(want), "%s:4: switch_type AGG on a leaf-spine;",
		 path);
	ck_assert_msg(strncmp(msg, want, strlen(want)) == 0, "%s", msg);
	snprintf(want, sizeof(want), "(the [traffic] cm_file of %s)", e.path);
	ck_assert_msg(strstr(msg, want) != NULL, "%s", msg);
	/* A section failing a link the file's lines fail too: refused at
	 * the line (found by fuzz_experiment). */
	{
		const char *dup[5] = { ov[0], ov[1], "failure.late.link=agg5-core3",
				       "failure.late.mode=down",
				       "failure.late.at=5us" };

		ck_assert_int_eq(fab_experiment_load(e.path, (char *const *)dup,
						     5, false, 0, &x, msg,
						     sizeof(msg)), -EINVAL);
		snprintf(want, sizeof(want), "%s:4: link agg5-core3 already fails in [failure.late]; expected one failure per link",
			 path);
		ck_assert_msg(strncmp(msg, want, strlen(want)) == 0, "%s",
			      msg);
	}
	fab_experiment_free(&e.x);
}
END_TEST

/*
 * The study's loss recovery against SACK, one flow on b2b.ini with its
 * last data frame dropped ([drop.x]).  Erasure: the sender had sent
 * enough, waits one smoothed RTT, sends more; the flow ends about an RTT
 * later than without the drop, without a timeout.  A drop in the middle (frame 40) costs one more packet: the
 * receiver gets exactly ceil(size / payload) + k distinct packets.  SACK:
 * no later packet reveals a tail loss, so it waits for the RTO (min_rto =
 * 1 ms): the same drop costs at least that, as it always has.
 */
static void
t_drop_run(const char *recovery, const char *frame, struct fab_run *r)
{
	char ov[8][96];
	const char *ovp[8];
	unsigned int i, n = 0;
	struct t_exp e;

	snprintf(ov[n++], sizeof(ov[0]), "host.recovery=%s", recovery);
	snprintf(ov[n++], sizeof(ov[0]), "traffic.size=409600");
	if (frame != NULL) {
		snprintf(ov[n++], sizeof(ov[0]), "drop.x.link=h1-h0");
		snprintf(ov[n++], sizeof(ov[0]), "drop.x.frame=%s", frame);
	}
	for (i = 0; i < n; i++)
		ovp[i] = ov[i];
	t_load(&e, "b2b.ini", ovp, n, false, 0);
	t_fabric_run(&e.x.combos[0], 0, r);
	t_check_conserved(r, recovery);
	ck_assert(r->completed);
	ck_assert_uint_eq(r->drops[OFAN_DROP_INJECTED], frame ? 1 : 0);
	fab_experiment_free(&e.x);
}

START_TEST(test_erasure_vs_sack)
{
	/* 409600 bytes in 4056-byte payloads: 101 packets, + k = 3. */
	const uint32_t data = 101, needed = 104;
	struct fab_run clean, drop;
	uint64_t rtt, extra;
	char last[16];

	t_drop_run("erasure", NULL, &clean);
	ck_assert_uint_eq(clean.flows[0].m.data_received, needed);
	ck_assert_uint_eq(clean.hosts.data_sent, needed);
	snprintf(last, sizeof(last), "%u", needed);
	t_drop_run("erasure", last, &drop);
	/*
	 * b2b at 8G: a data frame, an ACK and 2 us of propagation, 6.2 us.
	 * The drop costs the wait (the smoothed RTT) and one more packet.
	 */
	rtt = t_frame_ns(OFAN_ETH_HDR_SIZE + 4096, 8000000000ull) +
		t_frame_ns(OFAN_ACK_FRAME_SIZE, 8000000000ull) + 2 * T_US;
	extra = drop.flows[0].fct_ns - clean.flows[0].fct_ns;
	ck_assert_msg(extra >= rtt && extra <= 2 * rtt,
		      "erasure: the tail drop cost %" PRIu64 " ns, RTT %"
		      PRIu64, extra, rtt);
	/* Every slot sends until the final ACK: one more than needed here
	 * (a slot is 4.1 us, the ACK 6.2 us away). */
	ck_assert_uint_eq(drop.flows[0].m.data_received, needed + 1);
	ck_assert_uint_eq(drop.hosts.timeouts, 0);
	fab_run_free(&drop);

	/* In the middle: the gap shows in the next ACK, one new packet
	 * makes it up, the receiver gets exactly what it needs. */
	t_drop_run("erasure", "40", &drop);
	ck_assert_uint_eq(drop.flows[0].m.data_received, needed);
	ck_assert_uint_eq(drop.hosts.data_retx, 1);
	ck_assert_uint_eq(drop.hosts.data_sent, needed + 1);
	extra = drop.flows[0].fct_ns - clean.flows[0].fct_ns;
	ck_assert_msg(extra <= rtt, "erasure: the drop cost %" PRIu64 " ns",
		      extra);
	fab_run_free(&clean);
	fab_run_free(&drop);

	t_drop_run("sack", NULL, &clean);
	ck_assert_uint_eq(clean.flows[0].m.data_received, data);
	snprintf(last, sizeof(last), "%u", data);
	t_drop_run("sack", last, &drop);
	extra = drop.flows[0].fct_ns - clean.flows[0].fct_ns;
	ck_assert_msg(extra >= 1000 * T_US,
		      "sack: the tail drop cost only %" PRIu64 " ns", extra);
	ck_assert_uint_ge(drop.hosts.timeouts, 1);
	ck_assert_uint_eq(drop.flows[0].m.data_received, data);
	fab_run_free(&clean);
	fab_run_free(&drop);
}
END_TEST

/*
 * Which mark a sender sees ([host] ce_echo), on leaf 0 of
 * queues-leafspine.ini with ECN above 16 KiB: flows 1->0 and 2->0 share
 * the leaf's port to host 0 at twice its rate, so their data is marked;
 * flows 0->1 and 3->1 do the same to host 1, the port the ACKs of 1->0
 * go down, while the ACKs of 2->0 go down a port that carries nothing
 * else.  ce_echo = data: both flows to host 0 see their data's marks.
 * ce_echo = ack (the study's simulator): 1->0 sees the marks of its ACKs'
 * congested port, 2->0 sees none, however marked its data.
 */
static void
t_ce_echo_run(const char *echo, struct fab_run *r)
{
	static const char text[] =
		"Nodes 16\nConnections 4\n"
		"1->0 id 1 start 0 size 262144\n"
		"2->0 id 2 start 0 size 262144\n"
		"0->1 id 3 start 0 size 262144\n"
		"3->1 id 4 start 0 size 262144\n";
	char path[T_PATH_SIZE], ov[8][T_PATH_SIZE + 32];
	const char *ovp[8];
	unsigned int i;
	struct t_exp e;

	t_write_cm(path, sizeof(path), text);
	snprintf(ov[0], sizeof(ov[0]), "traffic.pattern=cm");
	snprintf(ov[1], sizeof(ov[1]), "traffic.cm_file=%s", path);
	snprintf(ov[2], sizeof(ov[2]), "queue.ecn=yes");
	snprintf(ov[3], sizeof(ov[3]), "queue.ecn_kmin=16KiB");
	snprintf(ov[4], sizeof(ov[4]), "queue.ecn_kmax=16KiB");
	snprintf(ov[5], sizeof(ov[5]), "host.ce_echo=%s", echo);
	snprintf(ov[6], sizeof(ov[6]), "fabric.schemes=ofan");
	snprintf(ov[7], sizeof(ov[7]), "host.recovery=erasure");
	for (i = 0; i < 8; i++)
		ovp[i] = ov[i];
	t_load(&e, "queues-leafspine.ini", ovp, 8, false, 0);
	t_fabric_run(&e.x.combos[0], 0, r);
	t_check_conserved(r, echo);
	ck_assert(r->completed);
	ck_assert_uint_gt(r->ecn_marks, 0);
	fab_experiment_free(&e.x);
}

START_TEST(test_ce_echo)
{
	struct fab_run data, ack;
	uint32_t f;

	t_ce_echo_run("data", &data);
	t_ce_echo_run("ack", &ack);
	/* The same traffic and marks: only what the senders read differs. */
	ck_assert_uint_eq(data.ecn_marks, ack.ecn_marks);
	for (f = 0; f < 4; f++) {
		ck_assert_uint_eq(data.flows[f].fct_ns, ack.flows[f].fct_ns);
		ck_assert_uint_gt(data.flows[f].m.ce_acks, 0);
		ck_assert_uint_le(data.flows[f].m.ce_acks, data.flows[f].m.acks_received);
	}
	ck_assert_uint_gt(ack.flows[0].m.ce_acks, 0);
	ck_assert_uint_eq(ack.flows[1].m.ce_acks, 0);
	ck_assert_uint_gt(ack.flows[1].m.acks_received, 60);
	fab_run_free(&data);
	fab_run_free(&ack);
}
END_TEST

/* A policy counter of a run (0 when the policy has no such counter). */
static uint64_t
t_policy_counter(const struct fab_run *r, const char *key)
{
	unsigned int i;

	for (i = 0; i < r->nb_policy; i++)
		if (strcmp(r->policy[i].key, key) == 0)
			return r->policy[i].value;
	return 0;
}

/*
 * REPS's timeouts under the black hole of blackhole-k4.ini, with 8 EVs so
 * that lost EVs come round again.  Erasure recovery: path timeouts (the
 * EV chosen still has a packet out after an RTO) freeze it, the
 * connection-level feedback timer does not reach it.  SACK: the RTO
 * freezes it, and there are no path timers.  The full-rate permutation's
 * queues hold RTTs of up to about 4 base RTTs, so freezing is allowed
 * below 5 (freeze_rtt_factor): every timeout while not frozen freezes.
 */
START_TEST(test_reps_path_timeouts)
{
	static const char *const ov[2][5] = {
		{ "host.recovery=erasure", "host.ev_min=49152",
		  "host.ev_max=49159", "host.min_rto=20us",
		  "host.reps.freeze_rtt_factor=5" },
		{ "host.recovery=sack", "host.ev_min=49152",
		  "host.ev_max=49159", "host.min_rto=20us",
		  "host.reps.freeze_rtt_factor=5" },
	};
	uint64_t pt[2], fz[2];
	unsigned int m;

	for (m = 0; m < 2; m++) {
		const struct fab_params *p;
		struct t_exp e;
		struct fab_run r;

		t_load(&e, "blackhole-k4.ini", ov[m], 5, false, 0);
		p = &e.x.combos[0];
		t_fabric_run(p, t_scheme(p, "reps"), &r);
		t_check_conserved(&r, ov[m][0]);
		ck_assert(r.completed);
		ck_assert_uint_gt(r.drops[OFAN_DROP_BLACKHOLE], 0);
		pt[m] = t_policy_counter(&r, "path_timeouts");
		fz[m] = t_policy_counter(&r, "freezes");
		ck_assert_uint_gt(t_policy_counter(&r, "recycled"), 0);
		fab_run_free(&r);
		fab_experiment_free(&e.x);
	}
	ck_assert_uint_gt(pt[0], 0);
	ck_assert_uint_gt(fz[0], 0);
	ck_assert_uint_le(fz[0], pt[0]);
	ck_assert_uint_eq(pt[1], 0);
	ck_assert_uint_gt(fz[1], 0);
}
END_TEST

/*
 * ofan-fabric's flow summary is hs_flow_summarise()'s on its own flows,
 * the function ofan-host's hs_results() calls too (test_host checks that
 * side): the k = 4 all-to-all's 240 flows, where the nearest-rank p99
 * (rank 238) is not the maximum.
 */
START_TEST(test_summary_shared)
{
	const char *ov[] = { "traffic.pattern=alltoall", "traffic.size=16KiB" };
	struct hs_flow_times *times;
	struct hs_flow_summary s;
	const struct fab_params *p;
	struct fab_run r;
	struct t_exp e;
	double *sd;
	uint32_t f;

	t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
	p = &e.x.combos[0];
	t_fabric_run(p, t_scheme(p, "spray"), &r);
	ck_assert_uint_eq(r.nb_flows, 240);
	ck_assert_uint_eq(r.nb_completed, 240);
	times = calloc(r.nb_flows, sizeof(*times));
	sd = calloc(r.nb_flows, sizeof(*sd));
	ck_assert(times != NULL && sd != NULL);
	for (f = 0; f < r.nb_flows; f++) {
		times[f].start_ns = r.flows[f].m.start_ns;
		times[f].done_ns = r.flows[f].m.start_ns + r.flows[f].fct_ns;
		times[f].ideal_ns = r.flows[f].ideal_ns;
		times[f].ideal_begin_ns = UINT64_MAX;
	}
	ck_assert_int_eq(hs_flow_summarise(times, r.nb_flows, sd, &s), 0);
	ck_assert_uint_eq(s.nb_completed, r.nb_completed);
	ck_assert(s.max_slowdown == r.max_slowdown);
	ck_assert(s.p99_slowdown == r.p99_slowdown);
	ck_assert(s.p99_slowdown < s.max_slowdown);
	ck_assert(s.mean_fct_ns == r.mean_fct_ns);
	ck_assert_uint_eq(s.collective_ns, r.collective_ns);
	for (f = 0; f < r.nb_flows; f++)
		ck_assert(sd[f] == r.flows[f].slowdown);
	free(times);
	free(sd);
	fab_run_free(&r);
	fab_experiment_free(&e.x);
}
END_TEST

/*
 * The study's queue finding with its model (erasure recovery, per-flow
 * pacers with htsim's jitter, the full link rate, deep queues) on the
 * k = 4 permutation: random spraying's maximum queue
 * grows with the length of the run, ofan's stays within a few full
 * frames however long (in bytes, the frame being sent included, as htsim
 * counts).  Measured (seed 1), full frames: spray 21.3 / 43.7 (512 KiB /
 * 4 MiB ... 124 at 16 MiB), ofan 3.1 / 3.0.
 */
START_TEST(test_queue_scaling_study)
{
	static const char *const sizes[] = {
		"traffic.size=512KiB", "traffic.size=8MiB",
	};
	double q[2][2];		/* [size][spray, ofan] */
	unsigned int z, k;

	for (z = 0; z < 2; z++) {
		const char *ov[] = {
			sizes[z], "host.recovery=erasure", "host.pacing=flow",
			"host.pacing_jitter=0.01", "host.rate_coef=1.0",
			"queue.queue_packets=250", "queue.queue_bytes=1GiB",
		};
		const struct fab_params *p;
		struct t_exp e;

		t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
		p = &e.x.combos[0];
		for (k = 0; k < 2; k++) {
			const char *name = k == 0 ? "spray" : "ofan";
			struct fab_run r;
			int l;

			t_fabric_run(p, t_scheme(p, name), &r);
			t_check_conserved(&r, name);
			ck_assert_msg(r.completed, "%s %s", name, sizes[z]);
			ck_assert_uint_eq(r.drops_total, 0);
			q[z][k] = (double)r.max_queue_bytes_all / r.full_frame;
			/* ofan's bound holds on every layer. */
			for (l = 0; k == 1 && l < FAB_L_HOST; l++)
				ck_assert_msg((double)r.max_queue_bytes[l] /
					      r.full_frame <=
					      T_OFAN_QUEUE_BOUND,
					      "ofan %s layer %d: %.1f frames",
					      sizes[z], l,
					      (double)r.max_queue_bytes[l] /
					      r.full_frame);
			fab_run_free(&r);
		}
		fab_experiment_free(&e.x);
	}
	ck_assert_msg(q[1][0] >= 2 * q[0][0] && q[1][0] > T_OFAN_QUEUE_BOUND,
		      "spray's max queue: %.1f frames with 512 KiB flows, "
		      "%.1f with 8 MiB", q[0][0], q[1][0]);
	ck_assert_msg(q[1][1] <= q[0][1] + 1,
		      "ofan's max queue grew from %.1f to %.1f", q[0][1],
		      q[1][1]);
}
END_TEST

/*
 * The study's failure experiment in small (alltoall-fail-k4.ini: the
 * all-to-all of 512 KiB under htsim's frame model at 0.9 of the link
 * rate, agg0-core0 black-holed at 50 us, routing removing it 50 or
 * 400 us later).  What an oblivious sprayer loses is derived: the 48
 * flows from pod 0's 4 hosts to the 12 others and the 48 back each send a
 * data packet every 15 x 334.24 ns / 0.9 (15 flows a host, the 4178-byte
 * slot, 1.005 for the mean jitter), and an ACK for each that arrived; a
 * packet between pod 0 and another pod takes the failed link with
 * probability 1/4 (the ToR and the aggregation switch each pick one of
 * two), so the hole eats F(R) = 96 x (1 + 3/4) / 4 x R / 5.5985 us
 * packets: 375 in 50 us, 3001 in 400 us.  OPS (a fresh random EV per
 * packet) must lose F(R) within 5 %, ofan's rotation at least 0.9 F(R).
 * REPS reuses only EVs whose packet and ACK both came back, so once the
 * hole has cost it its first EVs it loses only what it explores: it must
 * deliver every byte, lose under a quarter of F(400 us), add under a
 * quarter of what the oblivious sprayer adds from 50 to 400 us, and its
 * slowest flow must finish before ofan's when routing is slow, as in the
 * study (host-based wins under a failure).  No flow, with the packets
 * it made losses up with, sends faster than its pacer allows.
 * Measured: OPS 368 / 2985,
 * ofan 395 / 3016, REPS 247 / 490; max slowdown at 400 us REPS 1.067,
 * ofan 1.555.
 */
START_TEST(test_failure_alltoall)
{
	static const char *const delays[] = {
		"fabric.reconverge_delay=50us", "fabric.reconverge_delay=400us",
	};
	static const double r_us[] = { 50, 400 };
	static const char *const names[] = { "reps", "ops", "ofan" };
	uint64_t lost[2][3];
	double sd[2][3], f[2];
	unsigned int d, k;
	uint32_t i;

	for (d = 0; d < 2; d++) {
		const char *ov[] = {
			delays[d], "host.rate_coef=0.9", "traffic.size=512KiB",
			"fabric.schemes=reps, ops, ofan",
		};
		const struct fab_params *p;
		struct t_exp e;

		f[d] = 96 * 1.75 / 4 * r_us[d] /
			(15 * 0.33424 * 1.005 / 0.9);
		t_load(&e, "alltoall-fail-k4.ini", ov, RTE_DIM(ov), false, 0);
		p = &e.x.combos[0];
		ck_assert_str_eq(p->host.traffic.pattern->name, "alltoall");
		for (k = 0; k < 3; k++) {
			struct fab_run r;

			t_fabric_run(p, t_scheme(p, names[k]), &r);
			t_check_conserved(&r, names[k]);
			ck_assert_msg(r.completed, "%s, %s", names[k],
				      delays[d]);
			ck_assert_uint_eq(r.nb_completed, 240);
			/*
			 * Make-up packets keep to the flow's pace: its n
			 * packets took at least n - 1 gaps of 15 slots of
			 * 4178 bytes at 90 Gb/s (htsim's sender sends them
			 * at its pacer's ticks too).
			 */
			for (i = 0; i < r.nb_flows; i++) {
				const struct fab_flow_result *fr = &r.flows[i];
				uint64_t n = (fr->size + 4055) / 4056 + fr->m.data_retx;

				ck_assert_msg((n - 1) * 15 * 4178 * 8 / 90 <=
					      fr->fct_ns, "%s flow %u: %" PRIu64
					      " packets in %" PRIu64 " ns",
					      names[k], i, n, fr->fct_ns);
			}
			lost[d][k] = r.drops[OFAN_DROP_BLACKHOLE];
			sd[d][k] = r.max_slowdown;
			fprintf(stderr, "alltoall k=4, %s: %s lost %" PRIu64
				" in the hole (oblivious: %.0f), %" PRIu64
				" dropped in all, max slowdown %.3f\n",
				delays[d], names[k], lost[d][k], f[d],
				r.drops_total, sd[d][k]);
			fab_run_free(&r);
		}
		fab_experiment_free(&e.x);
		ck_assert_msg(fabs((double)lost[d][1] - f[d]) <= 0.05 * f[d],
			      "ops lost %" PRIu64 ", oblivious %.0f",
			      lost[d][1], f[d]);
		ck_assert_msg((double)lost[d][2] >= 0.9 * f[d],
			      "ofan lost %" PRIu64 ", oblivious %.0f",
			      lost[d][2], f[d]);
	}
	ck_assert_msg((double)lost[1][0] < f[1] / 4,
		      "reps lost %" PRIu64 " of an oblivious %.0f", lost[1][0],
		      f[1]);
	ck_assert_msg((double)(lost[1][0] - lost[0][0]) <
		      (f[1] - f[0]) / 4, "reps lost %" PRIu64 " more in "
		      "350 us", lost[1][0] - lost[0][0]);
	ck_assert_msg(sd[1][0] < sd[1][2], "reps %.3f, ofan %.3f at 400 us",
		      sd[1][0], sd[1][2]);
}
END_TEST

/*
 * Pacing headroom decides whether random spraying's queues grow with the
 * run (htsim's frame model on the k = 4 permutation, deep queues, no
 * jitter).  A data frame is 4096 bytes on the wire and its ACK 82, so a
 * 4178-byte pacing slot fills every link exactly (data one way, ACKs of
 * the reverse flows the other): a critical random walk, whose maximum
 * grows like the square root of the run -- about 2.8 times for 8 times
 * longer flows.  A 4263-byte slot (4178 / 0.98) leaves 2 % of every link
 * idle: the walk drifts back, its maximum settles within a few hundred
 * slots (about (sd^2 / 2 x drift) x the log of the run), and 8 times
 * longer flows raise it far less.  Mean of 4 seeds' largest queues, in
 * full frames.  Measured: 0 %: 102.3 -> 333.8 (3.3x); 2 %: 64.4 -> 97.8
 * (1.5x).
 */
START_TEST(test_pacing_headroom)
{
	static const char *const sizes[] = {
		"traffic.size=16MiB", "traffic.size=128MiB",
	};
	static const char *const slots[] = {
		"host.pace_bytes=4178", "host.pace_bytes=4263",
	};
	double q[2][2] = { { 0 } };	/* [headroom][size] */
	unsigned int h, z, k;

	for (h = 0; h < 2; h++)
		for (z = 0; z < 2; z++) {
			const char *ov[] = {
				sizes[z], slots[h], "fabric.schemes=spray",
				"fabric.data_wire_bytes=4096",
				"fabric.ack_wire_bytes=82",
				"host.recovery=erasure", "host.pacing=flow",
				"host.pacing_jitter=0", "host.rate_coef=1.0",
				"queue.queue_packets=4000",
				"queue.queue_bytes=1GiB", "fabric.mbufs=30000",
				"fabric.time_limit=100ms",
			};
			const struct fab_params *p;
			struct t_exp e;

			t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov),
			       false, 0);
			p = &e.x.combos[0];
			ck_assert_uint_eq(p->host.mtu, 4096);
			for (k = 0; k < 4; k++) {
				struct fab_params qp;
				struct fab_run r;

				fab_params_for_seed(p, k, &qp);
				t_fabric_run(&qp, 0, &r);
				t_check_conserved(&r, slots[h]);
				ck_assert(r.completed);
				ck_assert_uint_eq(r.drops_total, 0);
				ck_assert_uint_eq(r.full_frame, 4096);
				q[h][z] += (double)r.max_queue_bytes_all /
					r.full_frame / 4;
				fab_run_free(&r);
			}
			fab_experiment_free(&e.x);
		}
	fprintf(stderr, "headroom 0 %%: %.1f -> %.1f frames; 2 %%: %.1f -> "
		"%.1f\n", q[0][0], q[0][1], q[1][0], q[1][1]);
	ck_assert_msg(q[0][1] >= 2.2 * q[0][0],
		      "no headroom: the largest queue %.1f -> %.1f frames",
		      q[0][0], q[0][1]);
	ck_assert_msg(q[1][1] <= 1.8 * q[1][0] &&
		      q[1][1] / q[1][0] < 0.6 * (q[0][1] / q[0][0]),
		      "2 %% headroom: the largest queue %.1f -> %.1f frames",
		      q[1][0], q[1][1]);
}
END_TEST

/*
 * The study's finding that host and switch spraying are alike without
 * failures holds once loss recovery is taken out of the comparison: on
 * the k = 4 permutation with shallow queues (16 full frames), erasure
 * recovery puts OPS and switch spray within 10 % of each other, while
 * with SACK and a 200 us RTO a few tail drops decide (one flow waits for
 * the timeout).  Measured (seed 1): erasure ops 1.19, spray 1.14; SACK
 * ops 4.94, spray 1.12.
 */
START_TEST(test_ops_vs_spray)
{
	double sd[2][2];	/* [sack, erasure][ops, spray] */
	unsigned int m, k;

	for (m = 0; m < 2; m++) {
		const char *ov[] = {
			m == 0 ? "host.recovery=sack" : "host.recovery=erasure",
			"queue.queue_packets=100", "queue.queue_bytes=65760",
			"queue.ecn=no", "fabric.schemes=ops, spray",
		};
		const struct fab_params *p;
		struct t_exp e;

		t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
		p = &e.x.combos[0];
		ck_assert_uint_eq(p->host.min_rto_ns, 200 * T_US);
		for (k = 0; k < 2; k++) {
			struct fab_run r;

			t_fabric_run(p, (uint16_t)k, &r);
			t_check_conserved(&r, p->schemes[k].name);
			ck_assert(r.completed);
			ck_assert_uint_gt(r.drops[OFAN_DROP_QUEUE_FULL] +
					  (k == 1 ? 1 : 0), 0);
			sd[m][k] = r.max_slowdown;
			fab_run_free(&r);
		}
		fab_experiment_free(&e.x);
	}
	ck_assert_msg(sd[1][0] <= 1.1 * sd[1][1] && sd[1][1] <= 1.1 * sd[1][0],
		      "erasure: ops %.3f, spray %.3f", sd[1][0], sd[1][1]);
	ck_assert_msg(sd[0][0] > 1.5 * sd[0][1],
		      "sack: ops %.3f, spray %.3f: no timeout decided",
		      sd[0][0], sd[0][1]);
}
END_TEST

/*
 * Seeds: [fabric] seeds = N runs every scheme N times (seed, seed + 1,
 * ...), one runs.csv row each; other seeds draw other permutations, so
 * the max slowdowns differ, and the 95 % confidence interval of their
 * mean shrinks as seeds are added.
 */
START_TEST(test_seeds)
{
	static const char *const ov[] = {
		"fabric.schemes=ops, ofan", "traffic.size=128KiB",
		"fabric.seeds=10",
	};
	char dir[] = "/tmp/ofan-test-fabric-seeds-XXXXXX", *runs;
	const struct fab_params *p;
	double sd[10], ci3[2], ci10[2];
	struct fab_out *o;
	struct t_exp e;
	char err[256];
	size_t len;
	uint16_t s;
	uint32_t k;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	t_tmp_add(dir);
	t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
	p = &e.x.combos[0];
	ck_assert_uint_eq(p->seeds, 10);
	o = fab_out_open(dir, &e.x, err, sizeof(err));
	ck_assert_msg(o != NULL, "%s", err);
	for (s = 0; s < p->nb_schemes; s++)
		for (k = 0; k < p->seeds; k++) {
			struct fab_params q;
			struct fab_topo t;
			struct fab_run r;

			fab_params_for_seed(p, k, &q);
			ck_assert_uint_eq(q.seed, p->seed + k);
			ck_assert_uint_eq(q.host.traffic.seed, q.seed);
			t_run_topo(&q, s, &t, &r);
			r.seed_index = k;
			r.seed = q.seed;
			ck_assert(r.completed);
			if (s == 0)
				sd[k] = r.max_slowdown;
			ck_assert_int_eq(fab_out_run(o, p, &t, &r), 0);
			t_run_free(&t, &r);
		}
	ck_assert_int_eq(fab_out_close(o, NULL), 0);
	runs = t_slurp(dir, "runs.csv", &len);
	ck_assert_uint_eq(t_count_lines(runs), 1 + 2 * 10);
	free(runs);
	for (k = 1; k < 10 && sd[k] == sd[0]; k++)
		;
	ck_assert_msg(k < 10, "every seed gave ops the same max slowdown");
	fab_mean_ci(sd, 3, ci3);
	fab_mean_ci(sd, 10, ci10);
	ck_assert_double_gt(ci3[1], 0);
	ck_assert_msg(ci10[1] < ci3[1], "CI over 10 seeds %.4f, over 3 %.4f",
		      ci10[1], ci3[1]);
	fab_experiment_free(&e.x);
}
END_TEST

/*
 * [fabric] traffic_seed = fixed: N seeds run one matrix, as the study's
 * runs repeat one .cm file: every seed's flows have the same sources,
 * destinations and sizes (and a random placement stays put), while the
 * switches' salts and the hosts' random choices still change, so the
 * runs differ.  per_seed (the default) draws a new permutation per seed.
 */
START_TEST(test_traffic_seed_fixed)
{
	static const char *const fixed[] = {
		"fabric.schemes=ops", "traffic.size=128KiB", "fabric.seeds=4",
		"fabric.traffic_seed=fixed", "fabric.placement=random",
	};
	const struct fab_params *p;
	struct fab_run r[4];
	uint32_t f, k, nb_diff_sd = 0, nb_diff_dst = 0;
	struct t_exp e;
	int mode;

	for (mode = 0; mode < 2; mode++) {
		t_load(&e, "permutation-k4.ini", fixed,
		       mode == 0 ? RTE_DIM(fixed) : RTE_DIM(fixed) - 2, false,
		       0);
		p = &e.x.combos[0];
		ck_assert_uint_eq(p->traffic_seed, mode == 0 ?
				  FAB_TRAFFIC_FIXED : FAB_TRAFFIC_PER_SEED);
		for (k = 0; k < 4; k++) {
			struct fab_params q;

			fab_params_for_seed(p, k, &q);
			ck_assert_uint_eq(q.seed, p->seed + k);
			ck_assert_uint_eq(q.host.seed, q.seed);
			ck_assert_uint_eq(q.host.traffic.seed, mode == 0 ?
					  p->seed : q.seed);
			t_fabric_run(&q, 0, &r[k]);
			ck_assert(r[k].completed);
		}
		for (k = 1; k < 4; k++) {
			ck_assert_uint_eq(r[k].nb_flows, r[0].nb_flows);
			for (f = 0; f < r[0].nb_flows; f++) {
				const struct fab_flow_result *a = &r[0].flows[f];
				const struct fab_flow_result *b = &r[k].flows[f];

				if (mode == 0) {
					ck_assert_uint_eq(a->src, b->src);
					ck_assert_uint_eq(a->dst, b->dst);
					ck_assert_uint_eq(a->size, b->size);
				} else {
					nb_diff_dst += a->dst != b->dst;
				}
			}
			if (mode == 0)
				nb_diff_sd += r[k].max_slowdown !=
					r[0].max_slowdown;
		}
		for (k = 0; k < 4; k++)
			fab_run_free(&r[k]);
		fab_experiment_free(&e.x);
	}
	ck_assert_msg(nb_diff_sd > 0, "fixed traffic: every seed gave the "
		      "same max slowdown");
	ck_assert_msg(nb_diff_dst > 0, "per_seed: one permutation for all");
}
END_TEST

/* ==== 5. configuration errors ==== */

/*
 * One kind of mistake each, in an otherwise valid experiment (the
 * template below, which loads): fab_experiment_load() returns -EINVAL
 * with "FILE:SECTION:KEY: " and the bad value in its message.
 */
struct t_bad_case {
	const char *k;		/* [fabric] k */
	const char *schemes;	/* [fabric] schemes */
	const char *fabric;	/* more lines of [fabric] */
	const char *tail;	/* more sections */
	const char *override;	/* a command-line override, or NULL */
	const char *where;	/* "section:key" the message must name */
	const char *value;	/* and this, quoted as written */
};

static const char t_bad_template[] =
	"; written by tests/test_fabric.c\n"
	"[fabric]\n"
	"topology = fattree\n"
	"k = %s\n"
	"schemes = %s\n"
	"%s"
	"[traffic]\n"
	"pattern = permutation\n"
	"size = 256KiB\n"
	"%s";

static const struct t_bad_case t_bad_cases[] = {
	/* 0: the template as is: loads. */
	{ "4", "ecmp, ofan", "", "", NULL, NULL, NULL },
	{ "5", "ecmp, ofan", "", "", NULL, "fabric:k", "'5'" },
	{ "4", "ecmp, warp", "", "", NULL, "fabric:schemes", "'warp'" },
	{ "4", "ecmp, ofan", "",
	  "[failure.cut]\nlink = agg9-core0\nat = 10us\n", NULL,
	  "failure.cut:link", "'agg9-core0'" },
	/* ... and the message names real links of this topology. */
	{ "4", "ecmp, ofan", "",
	  "[failure.cut]\nlink = agg1-core5\nat = 10us\n", NULL,
	  "failure.cut:link",
	  "such as h0-tor0, tor0-agg0, agg0-core0 (48 links: ofan-fabric --config FILE --list-links" },
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = tor0-core0\nframe = 1\n", NULL,
	  "drop.x:link", "such as h0-tor0, tor0-agg0" },
	/* A list names links; first_links takes no more than it lists. */
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink = agg0-core0 agg0-core9\nat = 1us\n",
	  NULL, "failure.x:link", "'agg0-core9'" },
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = core0-agg0 core1-agg0\nmode = random\nrate = 0.1\nfirst_links = 3\n",
	  NULL, "drop.x:first_links", "expected 0 (all) to 2" },
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink =  \nat = 1us\n",
	  NULL, "failure.x:link", NULL },
	/* One way is the wire's; routing takes back what returns. */
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink = agg0-core0\nmode = down\nat = 1us\none_way = yes\n",
	  NULL, "failure.x:one_way", "expected no with mode = down" },
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink = agg0-core0\nmode = stall\nat = 1us\nroute_back = 5us\n",
	  NULL, "failure.x:route_back", "expected a duration too" },
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink = agg0-core0\nmode = queue\nat = 1us\n",
	  NULL, "failure.x:mode", "stall" },
	/* A lossy link's keys are its mode's, and it must lose. */
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = core0-agg0\nmode = random\n", NULL,
	  "drop.x:rate", NULL },
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = core0-agg0\nmode = random\nrate = 0\n", NULL,
	  "drop.x:rate", "expected a probability in (0, 1]" },
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = core0-agg0\nmode = bursts\nframe = 3\n", NULL,
	  "drop.x:frame", "is a key of mode = frames, not of mode = bursts" },
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = core0-agg0\nmode = flaky\n", NULL,
	  "drop.x:mode", "frames" },
	{ "4", "ecmp, ofan", "", "[queue]\nrate = 10G\n", NULL,
	  "queue:rate", NULL },
	{ "4", "ecmp, ofan", "", "[host]\npolicy = ops\n", NULL,
	  "host:policy", NULL },
	{ "4", "ecmp, ofan", "colour = blue\n", "", NULL, "fabric:colour",
	  NULL },
	{ "4", "ecmp, ofan", "",
	  "[sweep.d]\nkeys = fabric.delay, fabric.k\nvalues = 1us/4, 2us\n",
	  NULL, "sweep.d:values", "'2us'" },
	/* An override is checked like the file, and blamed on it. */
	{ "4", "ecmp, ofan", "", "", "fabric.k=7", "fabric:k", "'7'" },
	/* An override's mistake is blamed on the override, not the file. */
	{ "4", "ecmp, ofan", "", "", "traffic.sise=1MiB", "traffic:sise",
	  "unknown key; allowed keys in [traffic]: pattern, size" },
	/* The allowed keys offer only what the fabric takes (policy, rate,
	 * mtu, tor_size and pod_size are the fabric's own). */
	{ "4", "ecmp, ofan", "", "", "host.colour=1", "host:colour",
	  "allowed keys in [host]: seed, rate_coef, ack_every," },
	{ "4", "ecmp, ofan", "", "", "traffic.colour=1", "traffic:colour",
	  "allowed keys in [traffic]: pattern, size, iterations, seed, incast_degree, start, cm_file" },
	/* Each combination's links are its own topology's (k = 6 has no
	 * agg5-core3, k = 4 does). */
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink = agg5-core3\nat = 1us\n"
	  "[sweep.k]\nkeys = fabric.k\nvalues = 4, 4, 6\n", NULL,
	  "failure.x:link", "'agg5-core3' is not a link of this fattree" },
	/* A sweep key must be one an override can set. */
	{ "4", "ecmp, ofan", "",
	  "[sweep.d]\nkeys = fabric.delay = 1us\nvalues = 2us\n", NULL,
	  "sweep.d:keys", "'fabric.delay = 1us' is not section.key" },
	{ "4", "ecmp, ofan", "",
	  "[sweep.d]\nkeys = fabric.delay, traffic.a:b, fabric.\n"
	  "values = 1us/1/2\n", NULL,
	  "sweep.d:keys", "'traffic.a:b' is not section.key" },
	/* The frame model: a data frame must cost at least a byte, a pacing
	 * slot a minimum frame; traffic_seed is one of two words. */
	{ "4", "ecmp, ofan", "data_wire_bytes = 10\n", "", NULL,
	  "fabric:data_wire_bytes", "'10' leaves a 60-byte data frame" },
	{ "4", "ecmp, ofan", "", "[host]\npace_bytes = 63\n", NULL,
	  "host:pace_bytes", "'63' is less than a minimum frame" },
	{ "4", "ecmp, ofan", "traffic_seed = sometimes\n", "", NULL,
	  "fabric:traffic_seed", "'sometimes'" },
	/* A sweep's on its section and the value it applied. */
	{ "4", "ecmp, ofan", "",
	  "[sweep.load]\nkeys = host.rate_coef\nvalues = 0.5, 7\n", NULL,
	  "sweep.load:values: host.rate_coef=7", "'7' is out of range" },
	/* Per-layer queues: a layer of this topology, a fabric's queue. */
	{ "4", "ecmp, ofan", "", "[queue.spine_down]\ntrim = yes\n", NULL,
	  "queue.spine_down", "unknown section" },
	{ "4", "ecmp, ofan", "", "[queue.agg_up]\nrate = 10G\n", NULL,
	  "queue.agg_up:rate", "shaping rate" },
	/* A queue that holds no full frame, or marks above what it holds. */
	{ "4", "ecmp, ofan", "", "[queue]\nqueue_bytes = 4000\n", NULL,
	  "queue:queue_bytes", "'4000' bytes holds no full data frame, which the queue counts as 4110 bytes; expected at least 4110" },
	{ "4", "ecmp, ofan", "",
	  "[queue]\nqueue_bytes = 64KiB\necn = yes\necn_kmin = 64KiB\n",
	  NULL, "queue:ecn_kmin", "'65536' bytes is not below queue_bytes (65536)" },
	{ "4", "ecmp, ofan", "", "[queue.tor_down]\nqueue_bytes = 2KiB\n",
	  NULL, "queue.tor_down:queue_bytes", "holds no full data frame" },
	{ "4", "ecmp, ofan", "", "[queue.tor_down]\nrts = always\n", NULL,
	  "queue.tor_down:rts", "set while trim = no" },
	{ "4", "ecmp, ofan", "", "[queue]\npfc = yes\npfc_mode = nic\n", NULL,
	  "queue:pfc_mode", "'nic'" },
	/* Variant sweeps: each names a [variant.NAME] of section.key lines. */
	{ "4", "ecmp, ofan", "",
	  "[sweep.stack]\nvariants = a, b\n[variant.a]\nhost.recovery = tcp\n",
	  NULL, "sweep.stack:variants", "'b' has no [variant.b] section" },
	{ "4", "ecmp, ofan", "",
	  "[sweep.stack]\nvariants = a\n[variant.a]\nrecovery = tcp\n",
	  NULL, "variant.a:recovery", "is not section.key" },
	{ "4", "ecmp, ofan", "",
	  "[sweep.stack]\nvariants = a\nkeys = host.recovery\n[variant.a]\nhost.recovery = tcp\n",
	  NULL, "sweep.stack:variants", "either variants or keys" },
	{ "4", "ecmp, ofan", "",
	  "[sweep.stack]\nvariants = a\n[variant.a]\nhost.recovery = tcpp\n",
	  NULL, "variant.a:host.recovery: host.recovery=tcpp", "'tcpp'" },
};

/*
 * Routing after a failure (fab_topo_weights), on a k=4 fat tree without
 * running it: with agg0-core0 dead, every member's weight is its number
 * of live paths.  k=4: ToR t in pod t/2, agg a in pod a/2 (index a%2),
 * core c on agg index c/2 of every pod; ToR ports 2-3 go to its pod's
 * aggs 0-1, agg ports 2-3 to cores 2*(a%2) and 2*(a%2)+1.
 */
struct t_weight {
	uint16_t w[64][SW_MAX_GROUPS][4];	/* [switch][group][port - 2] */
};

static void
t_weight_set(void *arg, uint32_t sw, uint16_t group, uint16_t port,
	     uint16_t weight)
{
	struct t_weight *tw = arg;

	if (port >= 2)
		tw->w[sw][group][port - 2] = weight;
}

/* The group switch sw uses towards host rank `rank`. */
static uint16_t
t_group_to(const struct fab_topo *t, uint32_t sw, uint32_t rank)
{
	return t->cfg[sw].routes[rank].group;
}

/*
 * The links-only topology the loader checks link names against is the
 * full one without switch configurations: the same nodes, links, names,
 * ports and rates, for a fat tree and a leaf-spine.
 */
START_TEST(test_topo_links_only)
{
	static const char *const ovs[2][4] = {
		{ "fabric.k=4", "fabric.uplink_rate=40G", NULL, NULL },
		{ "fabric.topology=leafspine", "fabric.leaves=3",
		  "fabric.spines=2", "fabric.hosts_per_leaf=5" },
	};
	struct fab_topo full, links;
	const struct fab_params *p;
	char err[256] = "";
	struct t_exp e;
	uint32_t i, n;

	for (n = 0; n < 2; n++) {
		t_load(&e, "permutation-k4.ini", ovs[n], ovs[n][2] ? 4 : 2,
		       false, 0);
		p = &e.x.combos[0];
		ck_assert_int_eq(fab_topo_build(p, p->schemes[0].sw_policy,
						&full, err, sizeof(err)), 0);
		ck_assert_int_eq(fab_topo_build_links(p, &links, err,
						      sizeof(err)), 0);
		ck_assert_ptr_null(links.hops);
		ck_assert_ptr_null(links.cfg);
		ck_assert_uint_eq(links.nb_hosts, full.nb_hosts);
		ck_assert_uint_eq(links.nb_switches, full.nb_switches);
		ck_assert_uint_eq(links.nb_links, full.nb_links);
		ck_assert_uint_gt(links.nb_links, 16);
		for (i = 0; i < full.nb_links; i++)
			ck_assert(memcmp(&links.links[i], &full.links[i],
					 sizeof(full.links[i])) == 0);
		for (i = 0; i < full.nb_switches; i++)
			ck_assert(memcmp(&links.sw[i], &full.sw[i],
					 sizeof(full.sw[i])) == 0);
		ck_assert(memcmp(links.host_pos, full.host_pos,
				 full.nb_hosts * sizeof(*full.host_pos)) == 0);
		fab_topo_free(&full);
		fab_topo_free(&links);
		fab_experiment_free(&e.x);
	}
}
END_TEST

START_TEST(test_route_weights)
{
	static const char *const ov[] = { "fabric.schemes=ofan" };
	struct t_weight *tw = calloc(1, sizeof(*tw));
	const struct fab_params *p;
	struct fab_topo t;
	struct t_exp e;
	char err[256] = "";
	uint32_t link, tor2 = 2, agg2 = 8 + 2, agg3 = 8 + 3, agg0 = 8;
	uint16_t g;

	ck_assert_ptr_nonnull(tw);
	t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
	p = &e.x.combos[0];
	ck_assert_int_eq(fab_topo_build(p, p->schemes[0].sw_policy, &t, err,
					sizeof(err)), 0);
	link = fab_topo_find_link(&t, "core0-agg0");
	ck_assert_uint_ne(link, FAB_NONE);
	ck_assert_str_eq(t.links[link].name, "agg0-core0");
	t.alive[link] = false;
	fab_topo_weights(&t, t_weight_set, tw);

	/* ToR 2 (pod 1) to host 0 (ToR 0, pod 0): through agg 2 (index 0,
	 * cores 0-1: core 0 is cut off from pod 0's agg 0) 1 path, through
	 * agg 3 (cores 2-3) 2 paths. */
	g = t_group_to(&t, tor2, 0);
	ck_assert_uint_eq(tw->w[tor2][g][0], 1);
	ck_assert_uint_eq(tw->w[tor2][g][1], 2);
	/* Agg 2 (pod 1, index 0) to pod 0: core 0 leads nowhere (0), core 1
	 * reaches both of pod 0's ToRs (2); agg 3 is untouched (2, 2). */
	g = t_group_to(&t, agg2, 0);
	ck_assert_uint_eq(tw->w[agg2][g][0], 0);
	ck_assert_uint_eq(tw->w[agg2][g][1], 2);
	g = t_group_to(&t, agg3, 0);
	ck_assert_uint_eq(tw->w[agg3][g][0], 2);
	ck_assert_uint_eq(tw->w[agg3][g][1], 2);
	/* Agg 0 itself (pod 0) to pod 1: its dead uplink 0, core 1 2. */
	g = t_group_to(&t, agg0, 4);
	ck_assert_uint_eq(tw->w[agg0][g][0], 0);
	ck_assert_uint_eq(tw->w[agg0][g][1], 2);
	/* Inside a pod nothing changes: ToR 2 to host 6 (ToR 3, pod 1). */
	g = t_group_to(&t, tor2, 6);
	ck_assert_uint_eq(tw->w[tor2][g][0], 1);
	ck_assert_uint_eq(tw->w[tor2][g][1], 1);

	fab_topo_free(&t);
	fab_experiment_free(&e.x);
	free(tw);
}
END_TEST

/*
 * Load the text of file path from memory under the same name: the same
 * result (rc, message or every combination) as the file gave in rc, err
 * and x.
 */
static void
t_same_from_memory(const char *path, const char *text, const char *const *ov,
		   int nb_ov, int rc, const char *err,
		   const struct fab_experiment *x)
{
	struct fab_experiment m;
	char err_mem[1024] = "";
	uint32_t c;

	ck_assert_int_eq(fab_experiment_load_mem(path, text, strlen(text),
						 (char *const *)ov, nb_ov,
						 false, 0, 0, true, &m,
						 err_mem, sizeof(err_mem)),
			 rc);
	if (rc != 0) {
		ck_assert_str_eq(err_mem, err);
		return;
	}
	ck_assert_str_eq(m.path, x->path);
	ck_assert_uint_eq(m.nb_combos, x->nb_combos);
	for (c = 0; c < x->nb_combos; c++)
		ck_assert_msg(memcmp(&m.combos[c], &x->combos[c],
				     sizeof(m.combos[c])) == 0,
			      "combination %u differs", c);
	fab_experiment_free(&m);
}

START_TEST(test_config_errors)
{
	const struct t_bad_case *c = &t_bad_cases[_i];
	char path[] = "/tmp/ofan_test_fabric_XXXXXX.ini";
	char err[1024] = "", where[T_PATH_SIZE + 64], text[2048];
	const char *ov[1] = { c->override };
	struct fab_experiment x;
	FILE *f;
	int fd, rc;

	fd = mkstemps(path, 4);
	ck_assert_int_ge(fd, 0);
	t_tmp_add(path);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	snprintf(text, sizeof(text), t_bad_template, c->k, c->schemes,
		 c->fabric, c->tail);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);

	rc = fab_experiment_load(path, (char *const *)ov,
				 c->override != NULL ? 1 : 0, false, 0, &x,
				 err, sizeof(err));
	/* The same text from memory, under the file's name, loads alike. */
	t_same_from_memory(path, text, ov, c->override != NULL ? 1 : 0, rc,
			   err, &x);
	if (c->where == NULL) {
		ck_assert_msg(rc == 0, "the template: %s", err);
		ck_assert_uint_eq(x.nb_combos, 1);
		ck_assert_uint_eq(x.combos[0].k, 4);
		ck_assert_uint_eq(x.combos[0].nb_schemes, 2);
		fab_experiment_free(&x);
	} else {
		ck_assert_int_eq(rc, -EINVAL);
		if (c->override != NULL)
			snprintf(where, sizeof(where), "command line: %s: ",
				 c->override);
		else
			snprintf(where, sizeof(where), "%s:%s: ", path,
				 c->where);
		ck_assert_msg(strstr(err, where) == err,
			      "'%s' does not start with '%s'", err, where);
		if (c->value != NULL)
			ck_assert_msg(strstr(err, c->value) != NULL,
				      "'%s' does not quote %s", err, c->value);
	}
	t_teardown();
}
END_TEST

/*
 * Sweeps from memory: every combination as from the file, and a relative
 * cm_file found next to the name, as next to a file of that name.
 */
/*
 * A sweep of named variants applies each [variant.NAME]'s settings
 * together and names the combination after it; [queue.LAYER] sets one
 * layer's queues on top of [queue], and a variant can set it too.
 */
START_TEST(test_variants)
{
	static const char text[] =
		"[fabric]\nk = 4\nschemes = ecmp\n"
		"[traffic]\npattern = permutation\nsize = 64KiB\n"
		"[queue]\nqueue_packets = 8\n"
		"[queue.core_down]\nqueue_packets = 194\n"
		"[sweep.stack]\nvariants = trimces, roce\n"
		"[variant.trimces]\nqueue.tor_down.trim = yes\n"
		"host.recovery = trim\nhost.rate_coef = 0.9\n"
		"[variant.roce]\nqueue.pfc = yes\nqueue.queue_packets = 1000\n"
		"host.recovery = gbn\n";
	struct fab_experiment x;
	const struct fab_params *a, *b;
	char err[1024] = "";

	ck_assert_msg(fab_experiment_load_mem("/tmp/variants.ini", text,
					      strlen(text), NULL, 0, false, 0,
					      0, true, &x, err,
					      sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(x.nb_combos, 2);
	a = &x.combos[0];
	b = &x.combos[1];
	ck_assert_str_eq(a->sweep_name[0], "stack");
	ck_assert_str_eq(a->sweep_value[0], "trimces");
	ck_assert_str_eq(b->sweep_value[0], "roce");
	ck_assert_str_eq(a->host.recovery->name, "trim");
	ck_assert_str_eq(b->host.recovery->name, "gbn");
	ck_assert_uint_eq(a->queue.trim, SW_TRIM_OFF);
	ck_assert_uint_eq(a->queue_layer[FAB_L_TOR_DOWN].trim, SW_TRIM_HEADER);
	ck_assert_uint_eq(a->queue_layer[FAB_L_TOR_UP].trim, SW_TRIM_OFF);
	ck_assert_uint_eq(a->queue_layer[FAB_L_TOR_DOWN].capacity_pkts, 8);
	ck_assert_uint_eq(a->queue_layer[FAB_L_CORE_DOWN].capacity_pkts, 194);
	ck_assert(b->queue.pfc);
	ck_assert(b->queue_layer[FAB_L_AGG_UP].pfc);
	ck_assert_uint_eq(b->queue_layer[FAB_L_AGG_UP].capacity_pkts, 1000);
	/* [queue.core_down] still decides its own layer. */
	ck_assert_uint_eq(b->queue_layer[FAB_L_CORE_DOWN].capacity_pkts, 194);
	ck_assert(b->queue_layer[FAB_L_CORE_DOWN].pfc);
	ck_assert_uint_eq(a->nb_sweep_sets, 3);
	ck_assert_str_eq(a->sweep_set[0], "queue.tor_down.trim=yes");
	fab_experiment_free(&x);
}
END_TEST

START_TEST(test_load_mem)
{
	static const char sweeps[] =
		"[fabric]\nk = 4\nschemes = ecmp, ofan\n"
		"[traffic]\npattern = permutation\nsize = 64KiB\n"
		"[failure.cut]\nlink = agg0-core0\nat = 10us\n"
		"[sweep.delay]\nkeys = fabric.delay\nvalues = 1us, 2us, 3us\n"
		"[sweep.load]\nkeys = host.rate_coef, traffic.size\n"
		"values = 1.0/64KiB, 0.5/128KiB\n";
	const char *base;
	char path[] = "/tmp/ofan_test_fabric_XXXXXX.ini", err[1024] = "";
	char cm[T_PATH_SIZE], text[T_PATH_SIZE + 128], want[T_PATH_SIZE + 16];
	struct fab_experiment x;
	FILE *f;
	int fd;

	fd = mkstemps(path, 4);
	ck_assert_int_ge(fd, 0);
	t_tmp_add(path);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(sweeps, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fab_experiment_load(path, NULL, 0, false, 0, &x, err,
					     sizeof(err)), 0);
	ck_assert_uint_eq(x.nb_combos, 6);
	ck_assert_str_eq(x.combos[5].sweep_value[1], "0.5/128KiB");
	ck_assert_uint_eq(x.combos[5].delay_ns, 3000);
	t_same_from_memory(path, sweeps, NULL, 0, 0, err, &x);
	fab_experiment_free(&x);

	t_write_cm(cm, sizeof(cm), "Nodes 2\nConnections 1\n"
		   "0->1 id 1 start 0 size 4096\n");
	base = strrchr(cm, '/') + 1;
	snprintf(text, sizeof(text), "[fabric]\ntopology = b2b\n"
		 "schemes = ecmp\n[traffic]\npattern = cm\ncm_file = %s\n",
		 base);
	ck_assert_msg(fab_experiment_load_mem("/tmp/in-memory.ini", text,
					      strlen(text), NULL, 0, false, 0,
					      0, true, &x, err,
					      sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(x.path, "/tmp/in-memory.ini");
	ck_assert_str_eq(x.combos[0].name, "in-memory");
	fab_experiment_free(&x);
	/* Without a folder in the name, the current directory's. */
	ck_assert_int_eq(fab_experiment_load_mem("in-memory.ini", text,
						 strlen(text), NULL, 0, false,
						 0, 0, true, &x, err,
						 sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: cannot open", base);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
	t_teardown();
}
END_TEST

static Suite *
fabric_suite(void)
{
	Suite *s = suite_create("fabric");
	TCase *tc;

	tc = tcase_create("config");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_add_loop_test(tc, test_config_errors, 0, RTE_DIM(t_bad_cases));
	tcase_add_test(tc, test_load_mem);
	tcase_add_test(tc, test_variants);
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
	tcase_add_test(tc, test_loss_bursts);
	tcase_add_test(tc, test_loss_distributions);
	tcase_add_test(tc, test_loss_fabric);
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
	tcase_add_test(tc, test_ecmp_collisions);
	tcase_add_test(tc, test_queue_scaling);
	tcase_add_test(tc, test_blackhole);
	tcase_add_test(tc, test_stall);
	tcase_add_test(tc, test_trim_incast);
	tcase_add_test(tc, test_pfc_incast);
	tcase_add_test(tc, test_route_back);
	tcase_add_test(tc, test_degraded_one_way);
	tcase_add_test(tc, test_host_dr);
	tcase_add_test(tc, test_study_schemes);
	tcase_add_test(tc, test_route_weights);
	tcase_add_test(tc, test_topo_links_only);
	tcase_add_test(tc, test_cm_triggers);
	tcase_add_test(tc, test_cm_triggers_parts);
	tcase_add_test(tc, test_cm_failures);
	tcase_add_test(tc, test_erasure_vs_sack);
	tcase_add_test(tc, test_ce_echo);
	tcase_add_test(tc, test_reps_path_timeouts);
	tcase_add_test(tc, test_queue_scaling_study);
	tcase_add_test(tc, test_pacing_headroom);
	tcase_add_test(tc, test_failure_alltoall);
	tcase_add_test(tc, test_summary_shared);
	tcase_add_test(tc, test_ops_vs_spray);
	tcase_add_test(tc, test_seeds);
	tcase_add_test(tc, test_traffic_seed_fixed);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_eal_run_suite("test_fabric", fabric_suite(),
			       T_EAL_POOL_MBUFS, &t_pool);
}
