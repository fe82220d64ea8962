/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric: run an experiment (an INI file of configs/experiments) on a whole
 * emulated fabric in one process, in virtual time, and write the results
 * and plots.  main() only orchestrates: arguments, the experiment (every
 * sweep combination checked before anything starts), EAL with an embedded
 * default, one mempool, the runs, the output, the plots, cleanup.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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
#include "fab_job.h"
#include "fab_pool.h"
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
	enum fab_spread spread;	/* under mpirun: what the ranks share */
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
		"                   [--no-plot] [--list-links] [--spread auto|runs|parts]\n"
		"                   [section.key=value ...]\n"
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
		"  --spread HOW       under mpirun -n R: runs (each run on one rank, from a\n"
		"                     work queue), parts (every run split over the ranks)\n"
		"                     or auto (default: runs when there are at least R runs,\n"
		"                     else parts); the outputs are the same either way\n"
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
		{ "spread", required_argument, NULL, 'D' },
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
		case 'D':
			if (strcmp(optarg, "auto") == 0) {
				o->spread = FAB_SPREAD_AUTO;
			} else if (strcmp(optarg, "runs") == 0) {
				o->spread = FAB_SPREAD_RUNS;
			} else if (strcmp(optarg, "parts") == 0) {
				o->spread = FAB_SPREAD_PARTS;
			} else {
				fprintf(stderr, "ofan-fabric: --spread '%s'; expected auto, runs or parts\n",
					optarg);
				return -EINVAL;
			}
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

	if (fab_topo_build_links(p, &t, err, sizeof(err)) != 0) {
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

/* EAL memory for the largest combination: its pool plus engines, per rank. */
static unsigned int
fab_eal_mb(const struct fab_experiment *x, int nb_ranks, uint32_t *pool_n,
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
	/* --spread parts: a rank holds its parts' frames, about its share
	 * (half as many again for an uneven load, at most the whole). */
	if (nb_ranks > 1)
		*pool_n = RTE_MIN(*pool_n, (uint32_t)((uint64_t)*pool_n * 3 /
						      (2 * nb_ranks)) + 4096);
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
 * Remove EAL's runtime directory (/var/run/dpdk/<our prefix>), which
 * rte_eal_cleanup() leaves behind; only with our own embedded prefix.
 */
static void
fab_eal_rundir_remove(const char *dir)
{
	if (ofan_remove_tree(dir) != 0)
		fprintf(stderr, "ofan-fabric: could not remove %s\n", dir);
}

/* The runs of x in the order they are written: combination, scheme, seed. */
static uint32_t
fab_nb_runs(const struct fab_experiment *x)
{
	uint32_t c, n = 0;

	for (c = 0; c < x->nb_combos; c++)
		n += (uint32_t)x->combos[c].nb_schemes * x->combos[c].seeds;
	return n;
}

static void
fab_run_of(const struct fab_experiment *x, uint32_t i, uint32_t *c,
	   uint16_t *s, uint32_t *k)
{
	*s = 0;
	*k = 0;
	for (*c = 0; *c < x->nb_combos; (*c)++) {
		const struct fab_params *p = &x->combos[*c];
		uint32_t n = (uint32_t)p->nb_schemes * p->seeds;

		if (i < n) {
			*s = (uint16_t)(i / p->seeds);
			*k = i % p->seeds;
			return;
		}
		i -= n;
	}
}

/*
 * Seed k of scheme s of combination c: topology, run, checks.  When it
 * ran (*ran), t and r hold it for the caller to write and free.  Returns
 * the exit status so far (status, or worse).
 */
static int
fab_one_run(const struct fab_params *p, uint32_t c, uint16_t s, uint32_t k,
	    struct rte_mempool *pool, const struct fab_run_opts *ropts,
	    struct fab_topo *t, struct fab_run *r, bool *ran, int status)
{
	static bool noted_one_part;
	struct fab_params *q = malloc(sizeof(*q));
	const char *name = p->schemes[s].name;
	const char *prog = ropts->prog;
	char err[1024] = "";
	int rc;

	*ran = false;
	if (q == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 4;
	}
	fab_params_for_seed(p, k, q);
	if (fab_topo_build(q, q->schemes[s].sw_policy, t, err,
			   sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		free(q);
		return 4;
	}
	rc = fab_run(q, s, t, pool, ropts, r, err, sizeof(err));
	r->combo = c;
	r->seed_index = k;
	r->seed = q->seed;
	free(q);
	if (rc != 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, name, err);
		fab_run_free(r);
		fab_topo_free(t);
		return 4;
	}
	*ran = true;
	if (ropts->job != NULL && ropts->job->rank != 0)
		return status;	/* rank 0 holds the merged result and checks it */
	if (r->one_part && !noted_one_part && !ropts->quiet) {
		fprintf(stderr, "%s: note: triggers connect hosts of different parts; runs take one thread (the results do not depend on it)\n",
			prog);
		noted_one_part = true;
	}
	if (!r->completed && status == 0)
		status = 1;
	if (r->injected != r->delivered + r->dropped + r->queued_end) {
		fprintf(stderr, "%s: %s: conservation broken: %" PRIu64 " injected != %" PRIu64 " delivered + %" PRIu64 " dropped + %" PRIu64 " queued\n",
			prog, name, r->injected, r->delivered, r->dropped,
			r->queued_end);
		status = 1;
	}
	if (r->alloc_failed != 0)
		fprintf(stderr, "%s: %s: warning: the mbuf pool ran dry %" PRIu64 " times (hosts waited for mbufs); results may then depend on the thread count. Hint: set [fabric] mbufs above %u\n",
			prog, name, r->alloc_failed, fab_pool_size(p));
	if (r->mbuf_leak != 0) {
		fprintf(stderr, "%s: %s: %" PRId64 " mbufs leaked\n", prog, name,
			r->mbuf_leak);
		status = 3;
	}
	return status;
}

/* Write run r (topology t) of combination p; the status so far. */
static int
fab_write_run(struct fab_out *out, const struct fab_params *p,
	      const struct fab_topo *t, const struct fab_run *r,
	      const char *outdir, int status)
{
	if (fab_out_run(out, p, t, r) != 0) {
		fprintf(stderr, "ofan-fabric: cannot write results in %s\n",
			outdir);
		return status == 0 || status == 1 ? 2 : status;
	}
	return status;
}

/*
 * --spread runs: a run's result as rank 0 receives it.  The ranks run the
 * same build, so the structures travel as they are.
 */
struct fab_blob_hdr {
	uint32_t run;
	int32_t status;		/* the run's exit status contribution */
	uint32_t ran;		/* a fab_run, flows and queue windows follow */
};

static int
fab_blob_make(uint32_t run, int status, bool ran, const struct fab_run *r,
	      struct fab_xbuf *x)
{
	struct fab_blob_hdr h = { .run = run, .status = status, .ran = ran };

	x->len = 0;
	if (fab_xbuf_put(x, &h, sizeof(h)) != 0)
		return -ENOMEM;
	if (!ran)
		return 0;
	if (fab_xbuf_put(x, r, sizeof(*r)) != 0 ||
	    fab_xbuf_put(x, r->flows, r->flows == NULL ? 0 :
			 r->nb_flows * sizeof(*r->flows)) != 0 ||
	    fab_xbuf_put(x, r->qwin, r->qwin == NULL ? 0 :
			 r->nb_qwin * sizeof(*r->qwin)) != 0)
		return -ENOMEM;
	return 0;
}

/* r's arrays point into x (do not fab_run_free it). */
static void
fab_blob_read(const struct fab_xbuf *x, struct fab_blob_hdr *h,
	      struct fab_run *r)
{
	const uint8_t *b = x->b + sizeof(*h);

	memcpy(h, x->b, sizeof(*h));
	if (!h->ran)
		return;
	memcpy(r, b, sizeof(*r));
	b += sizeof(*r);
	r->flows = r->flows == NULL ? NULL : (struct fab_flow_result *)b;
	if (r->flows != NULL)
		b += r->nb_flows * sizeof(*r->flows);
	r->qwin = r->qwin == NULL ? NULL : (struct fab_qwin *)b;
}

/* Rank 0: write the results that are back, in run order, from *next. */
static int
fab_spread_write(struct fab_job *j, const struct fab_experiment *x,
		 struct fab_out *out, const char *outdir, uint32_t *next,
		 bool all_back, int status)
{
	while (*next < j->nb_runs && (j->have[*next] || all_back)) {
		uint32_t i = (*next)++, c, k;
		const struct fab_params *p;
		struct fab_blob_hdr h;
		struct fab_params *q;
		struct fab_topo t;
		struct fab_run r;
		char err[512];
		uint16_t s;

		if (!j->have[i])
			continue;	/* interrupted before it ran */
		fab_blob_read(&j->results[i], &h, &r);
		status = fab_job_worst(status, h.status);
		if (h.ran) {
			fab_run_of(x, i, &c, &s, &k);
			p = &x->combos[c];
			q = malloc(sizeof(*q));
			if (q == NULL)
				return 4;
			fab_params_for_seed(p, k, q);
			/* The topology only names links and layers here. */
			if (fab_topo_build(q, q->schemes[s].sw_policy, &t, err,
					   sizeof(err)) != 0) {
				fprintf(stderr, "ofan-fabric: %s\n", err);
				free(q);
				return 4;
			}
			status = fab_write_run(out, p, &t, &r, outdir, status);
			fab_topo_free(&t);
			free(q);
		}
		fab_xbuf_free(&j->results[i]);
	}
	return status;
}

/* fab_run_opts.between: rank 0 answers the other ranks between windows. */
static void
fab_serve_between(void *arg)
{
	struct fab_job *j = arg;

	if (fab_interrupted)
		fab_job_queue_close(j);
	fab_job_serve(j);
}

/*
 * --spread runs: every rank takes runs from rank 0's queue until none is
 * left; rank 0 writes the results in run order.  Returns the status.
 */
static int
fab_spread_runs(struct fab_job *j, const struct fab_experiment *x,
		struct rte_mempool *pool, struct fab_run_opts *ropts,
		struct fab_out *out, const char *outdir)
{
	struct fab_xbuf blob = { 0 };
	uint32_t run, next = 0, c, k;
	int status = 0;
	uint16_t s;

	if (fab_job_queue_open(j, fab_nb_runs(x)) != 0)
		return 4;
	if (j->rank == 0) {
		ropts->between = fab_serve_between;
		ropts->between_arg = j;
	}
	while (status != 4 && fab_job_next_run(j, &run)) {
		struct fab_topo t;
		struct fab_run r;
		bool ran;
		int st;

		fab_run_of(x, run, &c, &s, &k);
		/* Hand out runs before building this one (that takes a while
		 * for a big fabric; the others would wait). */
		fab_job_serve(j);
		st = fab_one_run(&x->combos[c], c, s, k, pool, ropts, &t, &r,
				 &ran, 0);
		if (fab_blob_make(run, st, ran, &r, &blob) != 0)
			st = 4;
		if (ran) {
			fab_run_free(&r);
			fab_topo_free(&t);
		}
		status = fab_job_worst(status, st);
		if (j->rank == 0) {
			fab_job_keep_result(j, run, &blob);
			fab_job_serve(j);
			status = fab_spread_write(j, x, out, outdir, &next,
						  false, status);
		} else {
			fab_job_send_result(j, run, blob.b, blob.len);
		}
		if (fab_interrupted) {
			fab_job_queue_close(j);
			if (j->rank != 0)
				break;
		}
	}
	if (j->rank == 0) {
		fab_job_queue_drain(j);
		status = fab_spread_write(j, x, out, outdir, &next, true,
					  status);
	}
	fab_xbuf_free(&blob);
	fab_job_queue_free(j);
	return status;
}

/* Runs one after another in this process (or, --spread parts, its parts). */
static int
fab_sequential_runs(const struct fab_experiment *x, struct rte_mempool *pool,
		    const struct fab_run_opts *ropts, struct fab_out *out,
		    const char *outdir, bool write)
{
	uint32_t n = fab_nb_runs(x), i, c, k;
	bool stop = false;
	int status = 0;
	uint16_t s;

	/* --spread parts: the ranks stop together, when a run says it was
	 * interrupted (its ranks agree on that), not each on its signal. */
	for (i = 0; i < n && status != 4 && !stop; i++) {
		struct fab_topo t;
		struct fab_run r;
		bool ran;

		fab_run_of(x, i, &c, &s, &k);
		status = fab_one_run(&x->combos[c], c, s, k, pool, ropts, &t,
				     &r, &ran, status);
		if (!ran)
			continue;
		stop = r.interrupted || (ropts->job == NULL && fab_interrupted);
		if (write)
			status = fab_write_run(out, &x->combos[c], &t, &r,
					       outdir, status);
		fab_run_free(&r);
		fab_topo_free(&t);
	}
	return status;
}

/*
 * EAL's lcores for this process: up to `threads` of them, one per CPU it
 * may use (threads never change results, so fewer CPUs run fewer).  Under
 * mpirun each rank is usually bound to its own cores; unbound ranks of
 * one machine take consecutive CPUs from rank x threads on, so that they
 * do not all pile onto CPU 0.
 */
static void
fab_lcores(const struct fab_job *j, uint16_t threads, char *buf, size_t size)
{
	cpu_set_t set;
	int cpus[CPU_SETSIZE], nb = 0, i, n, off = 0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t len = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &set))
				cpus[nb++] = i;
	if (nb == 0) {
		snprintf(buf, size, "0-%u", threads - 1);
		return;
	}
	if (threads > nb)
		threads = (uint16_t)nb;
	if (j->size > 1 && nb >= online)
		off = j->rank * threads;
	buf[0] = '\0';
	for (i = 0; i < threads; i++) {
		n = snprintf(buf + len, size - len, "%s%d@%d", i ? "," : "", i,
			     cpus[(off + i) % nb]);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
}

int
main(int argc, char **argv)
{
	struct fab_opts o = { 0 };
	struct fab_experiment x;
	struct rte_mempool *pool = NULL;
	struct fab_pool fpool = { 0 };
	struct ofan_phase phase;
	struct fab_out *out = NULL;
	struct fab_job job;
	char err[1024] = "", outdir[512], prefix[64], mem[32], lcores[256];
	char rundir[512] = "", prog[32];
	char *eal_argv[16];
	int eal_argc = 0, help, split, rc = 0, status = 0, saved[2] = { -1, -1 };
	uint32_t c, pool_n;
	uint16_t room, max_threads = 1;
	struct fab_fib_cache fib_cache = { .fib = NULL };
	struct fab_run_opts ropts = { .interrupt = &fab_interrupted,
				      .fib = &fib_cache };
	bool spread_runs = false, eal_ok = false, wrote = false;

	if (fab_job_init(&job, &argc, &argv, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-fabric: %s\n", err);
		return 2;
	}
	snprintf(prog, sizeof(prog), job.rank == 0 ? "ofan-fabric" :
		 "ofan-fabric[%d]", job.rank);
	ropts.prog = prog;
	ropts.rank = job.rank;
	/* Every rank reads the same arguments and files: only rank 0 tells
	 * of their mistakes (the others' stdout and stderr wait meanwhile). */
	if (job.rank != 0) {
		int null = open("/dev/null", O_WRONLY);

		fflush(stdout);
		fflush(stderr);
		saved[0] = dup(1);
		saved[1] = dup(2);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
	split = ofan_split_args(argc, argv, &help);
	if (split > 0) {
		/* The user chose EAL arguments: argv[1 .. split - 1]. */
		o.eal_argc = split;
		o.eal_argv = argv;
		argv[split] = argv[0];
		argc -= split;
		argv += split;
	}
	if (fab_parse_args(argc, argv, &o) != 0) {
		status = 2;
	} else if (fab_experiment_load_seeds(o.config, o.overrides,
					     o.nb_overrides, o.seed_set, o.seed,
					     o.seeds, !o.list_links, &x, err,
					     sizeof(err)) != 0) {
		fprintf(stderr, "ofan-fabric: %s\n", err);
		status = 2;
	}
	if (job.rank != 0) {
		fflush(stdout);
		fflush(stderr);
		dup2(saved[0], 1);
		dup2(saved[1], 2);
		close(saved[0]);
		close(saved[1]);
	}
	if (status != 0) {
		fab_job_fini(&job);
		return status;
	}
	if (o.list_links) {
		status = job.rank == 0 ? fab_list_links(&x.combos[0]) : 0;
		fab_experiment_free(&x);
		fab_job_fini(&job);
		return status;
	}
	if (job.size > 1) {
		spread_runs = o.spread == FAB_SPREAD_RUNS ||
			(o.spread == FAB_SPREAD_AUTO &&
			 fab_nb_runs(&x) >= (uint32_t)job.size);
		if (!spread_runs)
			ropts.job = &job;
	}
	snprintf(outdir, sizeof(outdir), "%s", o.out ? o.out : "");
	if (o.out == NULL)
		snprintf(outdir, sizeof(outdir), "results/%s",
			 x.combos[0].name);

	/* EAL: the user's arguments, or the embedded default. */
	for (c = 0; c < x.nb_combos; c++)
		max_threads = RTE_MAX(max_threads, x.combos[c].threads);
	fab_lcores(&job, max_threads, lcores, sizeof(lcores));
	snprintf(prefix, sizeof(prefix), "ofan-fabric-%d", (int)getpid());
	snprintf(mem, sizeof(mem), "%u", fab_eal_mb(&x, ropts.job != NULL ?
						  job.size : 1, &pool_n, &room));
	if (!o.quiet && job.rank == 0) {
		fprintf(stderr, "ofan-fabric: %s: %u combination(s) x %u scheme(s) x %u seed(s), results in %s\n",
			x.combos[0].name, x.nb_combos, x.combos[0].nb_schemes,
			x.combos[0].seeds, outdir);
		if (job.size > 1)
			fprintf(stderr, "ofan-fabric: %d ranks, %s\n", job.size,
				spread_runs ?
				"each run on one rank (--spread runs)" :
				"every run split over them (--spread parts)");
	}
	/* EAL maps its memory and the pool touches its first mbufs. */
	ofan_phase_begin(&phase, o.quiet ? NULL : stderr, prog,
			 "setting up %s MB of memory and %u mbufs", mem, pool_n);
	if (o.eal_argc > 0) {
		rc = rte_eal_init(o.eal_argc, o.eal_argv);
	} else {
		char *def[] = {
			argv[0], "--no-huge", "-m", mem, "--no-pci",
			"--lcores", lcores, "--file-prefix", prefix,
			"--no-telemetry", "--log-level", "lib.eal:error",
		};

		for (eal_argc = 0; eal_argc < (int)RTE_DIM(def); eal_argc++)
			eal_argv[eal_argc] = def[eal_argc];
		rc = rte_eal_init(eal_argc, eal_argv);
	}
	if (rc < 0) {
		ofan_phase_end(&phase);
		snprintf(err, sizeof(err), "EAL initialisation failed: %s. Hint: run as root; the default needs %s MB of memory (--no-huge); with your own EAL arguments pass --no-huge -m %s --no-pci",
			 rte_strerror(rte_errno), mem, mem);
		status = 4;
	} else {
		eal_ok = true;
		snprintf(rundir, sizeof(rundir), "%s",
			 rte_eal_get_runtime_dir());
		if (fab_pool_create(&fpool, pool_n, room,
				    rte_lcore_count() > 1) == 0)
			pool = fpool.mp;
		ropts.pool = &fpool;
		ofan_phase_end(&phase);
		if (pool == NULL) {
			snprintf(err, sizeof(err), "cannot create a pool of %u mbufs of %u bytes: %s. Hint: give EAL more memory (-m)",
				 pool_n, room, rte_strerror(rte_errno));
			status = 4;
		}
	}
	/* Every rank ready, or all stop with the first failing rank's error;
	 * then rank 0 opens the outputs, and again. */
	status = fab_job_agree(&job, status, err, sizeof(err));
	if (status == 0) {
		/* Every rank agrees again, whatever rank 0's outputs say. */
		if (job.rank == 0) {
			out = fab_out_open(outdir, &x, err, sizeof(err));
			if (out == NULL)
				status = 2;
		}
		status = fab_job_agree(&job, status, err, sizeof(err));
	}
	if (status != 0) {
		if (job.rank == 0)
			fprintf(stderr, "ofan-fabric: %s\n", err);
		goto pool_out;
	}
	ropts.quiet = o.quiet;
	signal(SIGINT, fab_on_signal);
	signal(SIGTERM, fab_on_signal);
	if (spread_runs)
		status = fab_spread_runs(&job, &x, pool, &ropts, out, outdir);
	else
		status = fab_sequential_runs(&x, pool, &ropts, out, outdir,
					     job.rank == 0);
	if (fab_interrupted) {
		if (job.rank == 0)
			fprintf(stderr, "ofan-fabric: interrupted; results so far in %s\n",
				outdir);
		status = 130;
	}
	if (job.rank == 0) {
		ofan_phase_begin(&phase, o.quiet ? NULL : stderr, prog,
				 "writing the summary and tables in %s", outdir);
		rc = fab_out_close(out, stdout);
		ofan_phase_end(&phase);
		if (rc != 0) {
			fprintf(stderr, "ofan-fabric: cannot write the summary in %s\n",
				outdir);
			if (status == 0)
				status = 2;
		}
	}
	status = fab_job_agree(&job, status, NULL, 0);
	wrote = true;
pool_out:
	/* Every run checked that its mbufs came back (fab_run's mbuf_leak). */
	/* The last FIB goes with EAL's memory (rte_eal_cleanup): rte_free()
	 * would first clear all 64 MB of it, faulting in the pages lookups
	 * never touched (0.17 s here, a k = 8 run's third). */
	free(fib_cache.sig);
	fab_pool_free(&fpool);
	if (eal_ok)
		rte_eal_cleanup();
	if (o.eal_argc == 0)
		fab_eal_rundir_remove(rundir);
	fab_experiment_free(&x);
	fab_job_fini(&job);
	if (o.plot && wrote && job.rank == 0)
		fab_plot(outdir);
	return status;
}
