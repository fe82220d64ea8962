/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric: run an experiment (an INI file of configs/experiments) on a whole
 * emulated fabric in one process, in virtual time, and write the results
 * and plots.  main() only orchestrates: arguments, the experiment (every
 * sweep combination checked before anything starts), EAL with an embedded
 * default, one mempool, the runs, the output, the plots, cleanup.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_memory.h>
#include <rte_mempool.h>

#include "fab.h"
#include "ofan_clock.h"
#include "ofan_config.h"
#include "ofan_fs.h"
#include "ofan_phase.h"

#define FAB_MAX_OVERRIDES 64

/* Set by SIGINT/SIGTERM: the running run stops, results so far are kept. */
static volatile int fab_interrupted;

static void
fab_on_signal(int sig)
{
	fab_interrupted = sig;
}

struct fab_opts {
	const char *config;
	const char *out;
	bool seed_set;
	uint64_t seed;
	uint32_t seeds;		/* --seeds N, 0: as the file says */
	bool quiet;
	bool plot;
	bool list_links;	/* print the topology's links and exit */
	int nb_overrides;
	char *overrides[FAB_MAX_OVERRIDES];
	int eal_argc;		/* user EAL arguments before "--", if any */
	char **eal_argv;
};

static void
fab_usage(FILE *f)
{
	fprintf(f,
		"usage: ofan-fabric --config FILE [--out DIR] [--seed N] [--seeds N] [--quiet]\n"
		"                   [--no-plot] [--list-links] [section.key=value ...]\n"
		"  Runs the experiment FILE (e.g. configs/experiments/permutation-k8.ini) on an\n"
		"  emulated fabric of ofan switch and host engines in virtual time, prints the\n"
		"  comparison table and writes summary.json, runs.csv, flows.csv, queues.csv,\n"
		"  queue-time.csv, table.txt, timing.csv and PNG plots into DIR\n"
		"  (default results/<experiment name>).\n"
		"  --seed N           the [fabric] seed (switches, hosts, traffic)\n"
		"  --seeds N          run every scheme N times, seeds seed .. seed+N-1, and\n"
		"                     report means with 95%% confidence intervals ([fabric] seeds)\n"
		"  --quiet            no progress lines on stderr\n"
		"  --no-plot          do not run testbed/plot.sh (gnuplot)\n"
		"  --list-links       print the links of the (first) topology, the names\n"
		"                     [failure.*] and [drop.*] take, and exit\n"
		"  section.key=value  override a key, e.g. fabric.k=4 traffic.size=256KiB\n"
		"  EAL starts with --no-huge --no-pci, one lcore per [fabric] threads and a\n"
		"  memory size fitting the experiment; to choose EAL options yourself put\n"
		"  them first, then --.\n"
		"exit status: 0 all runs completed and conserved every packet; 1 a run\n"
		"did not complete or lost track of a packet; 2 bad usage or configuration;\n"
		"3 mbufs leaked; 4 EAL or memory failure; 130 interrupted (SIGINT/SIGTERM:\n"
		"the results so far are written, EAL's files removed).\n");
}

static int
fab_parse_args(int argc, char **argv, struct fab_opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "seeds", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-plot", no_argument, NULL, 'P' },
		{ "list-links", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	o->plot = true;
	while ((c = getopt_long(argc, argv, "c:o:s:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 's':
			if (ofan_parse_u64(optarg, &o->seed) != 0) {
				fprintf(stderr, "ofan-fabric: --seed '%s' is not a number; expected a decimal integer\n",
					optarg);
				return -EINVAL;
			}
			o->seed_set = true;
			break;
		case 'S':
			if (ofan_parse_u64(optarg, &v) != 0 || v < 1 ||
			    v > FAB_MAX_SEEDS) {
				fprintf(stderr, "ofan-fabric: --seeds '%s'; expected an integer from 1 to %d\n",
					optarg, FAB_MAX_SEEDS);
				return -EINVAL;
			}
			o->seeds = (uint32_t)v;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'P':
			o->plot = false;
			break;
		case 'L':
			o->list_links = true;
			break;
		case 'h':
			fab_usage(stdout);
			exit(0);
		default:
			fab_usage(stderr);
			return -EINVAL;
		}
	}
	for (; optind < argc; optind++) {
		if (strchr(argv[optind], '=') == NULL ||
		    o->nb_overrides == FAB_MAX_OVERRIDES) {
			fprintf(stderr, "ofan-fabric: '%s' is not an override; expected section.key=value (at most %d)\n",
				argv[optind], FAB_MAX_OVERRIDES);
			return -EINVAL;
		}
		o->overrides[o->nb_overrides++] = argv[optind];
	}
	if (o->config == NULL) {
		fprintf(stderr, "ofan-fabric: --config FILE is required, e.g. --config configs/experiments/permutation-k8.ini\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * --list-links: every link of p's topology as failure and drop sections
 * name it (either end first works), with its rate.  No EAL needed.
 */
static int
fab_list_links(const struct fab_params *p)
{
	struct fab_topo t;
	char err[512];
	uint32_t i;

	if (fab_topo_build(p, p->schemes[0].sw_policy, &t, err,
			   sizeof(err)) != 0) {
		fprintf(stderr, "ofan-fabric: %s\n", err);
		return 2;
	}
	printf("# %s: %u links (%u hosts, %u switches); NAME RATE\n",
	       fab_topology_names[p->topo], t.nb_links, t.nb_hosts,
	       t.nb_switches);
	for (i = 0; i < t.nb_links; i++)
		printf("%s %gG\n", t.links[i].name,
		       (double)t.links[i].rate_bps / 1e9);
	fab_topo_free(&t);
	return 0;
}

/* EAL memory for the largest combination: its pool plus engines. */
static unsigned int
fab_eal_mb(const struct fab_experiment *x, uint32_t *pool_n,
	   uint16_t *room)
{
	uint64_t bytes = 0;
	uint32_t c;

	*pool_n = 0;
	*room = 0;
	for (c = 0; c < x->nb_combos; c++) {
		const struct fab_params *p = &x->combos[c];
		uint16_t r = (uint16_t)(RTE_PKTMBUF_HEADROOM + 14 +
					p->host.mtu + 64);

		*pool_n = RTE_MAX(*pool_n, fab_pool_size(p));
		*room = RTE_MAX(*room, r);
	}
	bytes = (uint64_t)*pool_n * (*room + 256);
	return (unsigned int)(bytes >> 20) + 768;
}

/* Run testbed/plot.sh OUT (found next to the sources of this binary). */
static void
fab_plot(const char *out)
{
	char exe[PATH_MAX], script[PATH_MAX + 64];
	const char *env = getenv("OFAN_PLOT");
	ssize_t n;
	pid_t pid;
	int status;

	if (env != NULL) {
		snprintf(script, sizeof(script), "%s", env);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return;
		exe[n] = 0;
		/* build/testbed/ofan-fabric -> testbed/plot.sh */
		snprintf(script, sizeof(script), "%s/../../testbed/plot.sh",
			 dirname(exe));
	}
	if (access(script, X_OK) != 0) {
		fprintf(stderr, "ofan-fabric: no plots: %s not found (set OFAN_PLOT)\n",
			script);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(script, script, out, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
}

/*
 * The mbuf pool, on memory of our own backed by transparent huge pages
 * where the kernel allows it (THP "madvise" mode; EAL's --no-huge memory
 * is a shared memfd, which THP does not cover).  A run touches mbufs all
 * over a pool of hundreds of MB: with 4 KB pages nearly every hop missed
 * the TLB.  The fabric never does DMA, so the pool needs no IOVA.  Falls
 * back to an ordinary pool in EAL memory.
 */
struct fab_pool_mem {
	void *addr;
	size_t len;
};

static struct rte_mempool *
fab_pool_create(uint32_t n, uint16_t room, bool threads,
		struct fab_pool_mem *mem)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = room,
		.mbuf_priv_size = 0,
	};
	const size_t huge = 2u << 20;
	struct rte_mempool *mp;
	size_t elt = sizeof(struct rte_mbuf) + room;

	mem->addr = NULL;
	mp = rte_mempool_create_empty("fabric", n, (unsigned int)elt,
				      RTE_MEMPOOL_CACHE_MAX_SIZE, sizeof(priv),
				      SOCKET_ID_ANY, 0);
	if (mp == NULL)
		goto fallback;
	/* The largest per-lcore cache, so that recently freed (cache-hot)
	 * mbufs are reused first; one thread takes the cheapest ring. */
	if (rte_mempool_set_ops_byname(mp, threads ? "ring_mp_mc" :
				       "ring_sp_sc", NULL) != 0)
		goto fail;
	rte_pktmbuf_pool_init(mp, &priv);
	mem->len = ((size_t)n * (mp->header_size + mp->elt_size +
				 mp->trailer_size) + 2 * huge) & ~(huge - 1);
	mem->addr = mmap(NULL, mem->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem->addr == MAP_FAILED) {
		mem->addr = NULL;
		goto fail;
	}
	madvise(mem->addr, mem->len, MADV_HUGEPAGE);
	if (rte_mempool_populate_virt(mp, mem->addr, mem->len, 0, NULL,
				      NULL) < (int)n)
		goto fail;
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
fail:
	rte_mempool_free(mp);
	if (mem->addr != NULL)
		munmap(mem->addr, mem->len);
	mem->addr = NULL;
fallback:
	return rte_pktmbuf_pool_create("fabric", n, 256, 0, room,
				       SOCKET_ID_ANY);
}

/*
 * Remove EAL's runtime directory (/var/run/dpdk/<our prefix>), which
 * rte_eal_cleanup() leaves behind; only with our own embedded prefix.
 */
static void
fab_eal_rundir_remove(const char *dir)
{
	if (ofan_remove_tree(dir) != 0)
		fprintf(stderr, "ofan-fabric: could not remove %s\n", dir);
}

/*
 * Seed k of scheme s of combination c: topology, run, results, checks.
 * Returns the exit status so far (status, or worse).
 */
static int
fab_one_run(const struct fab_params *p, uint32_t c, uint16_t s, uint32_t k,
	    struct rte_mempool *pool, const struct fab_run_opts *ropts,
	    struct fab_out *out, const char *outdir, int status)
{
	static bool noted_one_part;
	struct fab_params *q = malloc(sizeof(*q));
	const char *name = p->schemes[s].name;
	char err[1024] = "";
	struct fab_topo t;
	struct fab_run r;
	int rc;

	if (q == NULL) {
		fprintf(stderr, "ofan-fabric: out of memory\n");
		return 4;
	}
	fab_params_for_seed(p, k, q);
	if (fab_topo_build(q, q->schemes[s].sw_policy, &t, err,
			   sizeof(err)) != 0) {
		fprintf(stderr, "ofan-fabric: %s\n", err);
		free(q);
		return 4;
	}
	rc = fab_run(q, s, &t, pool, ropts, &r, err, sizeof(err));
	r.combo = c;
	r.seed_index = k;
	r.seed = q->seed;
	if (rc != 0) {
		fprintf(stderr, "ofan-fabric: %s: %s\n", name, err);
		status = 4;
	} else {
		if (r.one_part && !noted_one_part && !ropts->quiet) {
			fprintf(stderr, "ofan-fabric: note: triggers connect hosts of different parts; runs take one thread (the results do not depend on it)\n");
			noted_one_part = true;
		}
		if (fab_out_run(out, p, &t, &r) != 0) {
			fprintf(stderr, "ofan-fabric: cannot write results in %s\n",
				outdir);
			status = 2;
		}
		if (!r.completed && status == 0)
			status = 1;
		if (r.injected != r.delivered + r.dropped + r.queued_end) {
			fprintf(stderr, "ofan-fabric: %s: conservation broken: %" PRIu64 " injected != %" PRIu64 " delivered + %" PRIu64 " dropped + %" PRIu64 " queued\n",
				name, r.injected, r.delivered, r.dropped,
				r.queued_end);
			status = 1;
		}
		if (r.alloc_failed != 0)
			fprintf(stderr, "ofan-fabric: %s: warning: the mbuf pool ran dry %" PRIu64 " times (hosts waited for mbufs); results may then depend on the thread count. Hint: set [fabric] mbufs above %u\n",
				name, r.alloc_failed, fab_pool_size(p));
		if (r.mbuf_leak != 0) {
			fprintf(stderr, "ofan-fabric: %s: %" PRId64 " mbufs leaked\n",
				name, r.mbuf_leak);
			status = 3;
		}
	}
	fab_run_free(&r);
	fab_topo_free(&t);
	free(q);
	return status;
}

int
main(int argc, char **argv)
{
	struct fab_opts o = { 0 };
	struct fab_experiment x;
	struct rte_mempool *pool;
	struct fab_pool_mem pool_mem;
	struct ofan_phase phase;
	struct fab_out *out;
	char err[1024] = "", outdir[512], prefix[64], mem[32], lcores[16];
	char rundir[512] = "";
	char *eal_argv[16];
	int eal_argc = 0, help, split, rc = 0, status = 0;
	uint32_t c, k, pool_n;
	uint16_t room, s, max_threads = 1;
	struct fab_run_opts ropts = { .interrupt = &fab_interrupted };

	split = ofan_split_args(argc, argv, &help);
	if (split > 0) {
		/* The user chose EAL arguments: argv[1 .. split - 1]. */
		o.eal_argc = split;
		o.eal_argv = argv;
		argv[split] = argv[0];
		argc -= split;
		argv += split;
	}
	if (fab_parse_args(argc, argv, &o) != 0)
		return 2;
	if (fab_experiment_load_seeds(o.config, o.overrides, o.nb_overrides,
				      o.seed_set, o.seed, o.seeds,
				      !o.list_links, &x, err,
				      sizeof(err)) != 0) {
		fprintf(stderr, "ofan-fabric: %s\n", err);
		return 2;
	}
	if (o.list_links) {
		status = fab_list_links(&x.combos[0]);
		fab_experiment_free(&x);
		return status;
	}
	snprintf(outdir, sizeof(outdir), "%s", o.out ? o.out : "");
	if (o.out == NULL)
		snprintf(outdir, sizeof(outdir), "results/%s",
			 x.combos[0].name);

	/* EAL: the user's arguments, or the embedded default. */
	for (c = 0; c < x.nb_combos; c++)
		max_threads = RTE_MAX(max_threads, x.combos[c].threads);
	/* Threads never change results, so a smaller machine runs fewer. */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 0 &&
	    max_threads > sysconf(_SC_NPROCESSORS_ONLN))
		max_threads = (uint16_t)sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(lcores, sizeof(lcores), "0-%u", max_threads - 1);
	snprintf(prefix, sizeof(prefix), "ofan-fabric-%d", (int)getpid());
	snprintf(mem, sizeof(mem), "%u", fab_eal_mb(&x, &pool_n, &room));
	if (!o.quiet)
		fprintf(stderr, "ofan-fabric: %s: %u combination(s) x %u scheme(s) x %u seed(s), results in %s\n",
			x.combos[0].name, x.nb_combos, x.combos[0].nb_schemes,
			x.combos[0].seeds, outdir);
	/* EAL maps its memory and the pool touches every mbuf: seconds for
	 * the deep queues' hundreds of thousands. */
	ofan_phase_begin(&phase, o.quiet ? NULL : stderr, "ofan-fabric",
			 "setting up %s MB of memory and %u mbufs", mem, pool_n);
	if (o.eal_argc > 0) {
		rc = rte_eal_init(o.eal_argc, o.eal_argv);
	} else {
		char *def[] = {
			argv[0], "--no-huge", "-m", mem, "--no-pci", "-l", lcores,
			"--file-prefix", prefix, "--no-telemetry",
			"--log-level", "lib.eal:error",
		};

		for (eal_argc = 0; eal_argc < (int)RTE_DIM(def); eal_argc++)
			eal_argv[eal_argc] = def[eal_argc];
		rc = rte_eal_init(eal_argc, eal_argv);
	}
	if (rc < 0) {
		ofan_phase_end(&phase);
		fprintf(stderr, "ofan-fabric: EAL initialisation failed: %s. Hint: run as root; the default needs %s MB of memory (--no-huge); with your own EAL arguments pass --no-huge -m %s --no-pci\n",
			rte_strerror(rte_errno), mem, mem);
		fab_experiment_free(&x);
		return 4;
	}
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	pool = fab_pool_create(pool_n, room, rte_lcore_count() > 1, &pool_mem);
	ofan_phase_end(&phase);
	if (pool == NULL) {
		fprintf(stderr, "ofan-fabric: cannot create a pool of %u mbufs of %u bytes: %s. Hint: give EAL more memory (-m)\n",
			pool_n, room, rte_strerror(rte_errno));
		status = 4;
		goto eal_out;
	}
	out = fab_out_open(outdir, &x, err, sizeof(err));
	if (out == NULL) {
		fprintf(stderr, "ofan-fabric: %s\n", err);
		status = 2;
		goto pool_out;
	}
	ropts.quiet = o.quiet;
	signal(SIGINT, fab_on_signal);
	signal(SIGTERM, fab_on_signal);
	for (c = 0; c < x.nb_combos && status != 4; c++) {
		const struct fab_params *p = &x.combos[c];

		for (s = 0; s < p->nb_schemes; s++) {
			for (k = 0; k < p->seeds; k++) {
				status = fab_one_run(p, c, s, k, pool, &ropts,
						     out, outdir, status);
				if (status == 4 || fab_interrupted)
					break;
			}
			if (status == 4 || fab_interrupted)
				break;
		}
		if (fab_interrupted)
			break;
	}
	if (fab_interrupted) {
		fprintf(stderr, "ofan-fabric: interrupted; results so far in %s\n",
			outdir);
		status = 130;
	}
	ofan_phase_begin(&phase, o.quiet ? NULL : stderr, "ofan-fabric",
			 "writing the summary and tables in %s", outdir);
	rc = fab_out_close(out, stdout);
	ofan_phase_end(&phase);
	if (rc != 0) {
		fprintf(stderr, "ofan-fabric: cannot write the summary in %s\n",
			outdir);
		if (status == 0)
			status = 2;
	}
	if (o.plot)
		fab_plot(outdir);
pool_out:
	/* Every run checked that its mbufs came back (fab_run's mbuf_leak). */
	rte_mempool_free(pool);
	if (pool_mem.addr != NULL)
		munmap(pool_mem.addr, pool_mem.len);
eal_out:
	rte_eal_cleanup();
	if (o.eal_argc == 0)
		fab_eal_rundir_remove(rundir);
	fab_experiment_free(&x);
	return status;
}
