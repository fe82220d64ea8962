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
#include "fab_runs.h"
#include "ofan_clock.h"
#include "ofan_config.h"
#include "fab_mpi.h"
#include "fab_pool.h"
#include "ofan_fs.h"
#include "ofan_phase.h"
#include "ofan_version.h"

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
	bool replace;		/* --replace: another run's --out may go */
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
		"usage: ofan-fabric --config FILE [--out DIR [--replace]] [--seed N] [--seeds N]\n"
		"                   [--quiet] [--no-plot] [--list-links]\n"
		"                   [--spread auto|runs|parts]\n"
		"                   [section.key=value ...]\n"
		"       ofan-fabric --help | --version | --config-reference\n"
		"  Runs the experiment FILE (e.g. configs/experiments/permutation-k8.ini) on an\n"
		"  emulated fabric of ofan switch and host engines in virtual time, prints the\n"
		"  comparison table and writes summary.json, runs.csv, flows.csv, queues.csv,\n"
		"  queue-time.csv, table.txt, timing.csv and PNG plots into DIR\n"
		"  (default results/<experiment name>, with +<override>... for a run with\n"
		"  overrides, --seed or --seeds), with command.txt, config.ini (the\n"
		"  experiment as run) and run.json saying how they were made.\n"
		"  --replace          clear DIR even if it holds another run's results\n"
		"                     (a run always replaces its own earlier results;\n"
		"                     a folder with files ofan-fabric does not write is\n"
		"                     never cleared)\n"
		"  --seed N           the [fabric] seed (switches, hosts, traffic)\n"
		"  --seeds N          run every scheme N times, seeds seed .. seed+N-1, and\n"
		"                     report means with 95%% confidence intervals ([fabric] seeds)\n"
		"  --quiet            print nothing but errors (the table is in DIR/table.txt)\n"
		"  --no-plot          do not run testbed/plot.sh (gnuplot)\n"
		"  --list-links       print the links of the (first) topology, the names\n"
		"                     [failure.*] and [drop.*] take, and exit\n"
		"  --config-reference every key of an experiment file, its range and\n"
		"                     default, as Markdown (docs/config-reference.md)\n"
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
		{ "replace", no_argument, NULL, 'R' },
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
		case 'R':
			o->replace = true;
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
					p->host.set.mtu + 64);

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

/*
 * Run testbed/plot.sh OUT (found next to the sources of this binary);
 * quiet: without its "plot:" lines (errors still on stderr).
 */
static void
fab_plot(const char *out, bool quiet)
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
		/* build/fabric/ofan-fabric -> testbed/plot.sh */
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
		if (quiet && freopen("/dev/null", "w", stdout) == NULL)
			_exit(127);
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

/*
 * EAL's lcores for this process: up to `threads` of them, one per CPU it
 * may use (threads never change results, so fewer CPUs run fewer).  Under
 * mpirun each rank is usually bound to its own cores; unbound ranks of
 * one machine take consecutive CPUs from rank x threads on, so that they
 * do not all pile onto CPU 0.
 */
static void
fab_lcores(const struct fab_mpi *j, uint16_t threads, char *buf, size_t size)
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
	struct fab_run_id run_id;
	struct fab_mpi job;
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
	char **cmd_argv = NULL;
	int cmd_argc = 0;

	if (ofan_version_asked(argc, argv))
		return ofan_version_print("ofan-fabric");
	if (argc == 2 && strcmp(argv[1], "--config-reference") == 0) {
		if (fab_config_reference(stdout, err, sizeof(err)) != 0) {
			fprintf(stderr, "ofan-fabric: --config-reference: %s\n",
				err);
			return 1;
		}
		return 0;
	}
	if (fab_mpi_init(&job, &argc, &argv, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-fabric: %s\n", err);
		return 2;
	}
	/* The command as given, for the outputs (the split below edits
	 * argv's array). */
	cmd_argc = argc;
	cmd_argv = calloc((size_t)argc + 1, sizeof(*cmd_argv));
	if (cmd_argv != NULL)
		memcpy(cmd_argv, argv, (size_t)argc * sizeof(*cmd_argv));
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
	} else {
		hs_config_moved_warn(x.moved, "ofan-fabric", stderr);
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
		fab_mpi_fini(&job);
		free(cmd_argv);
		return status;
	}
	if (o.list_links) {
		status = job.rank == 0 ? fab_list_links(&x.combos[0]) : 0;
		fab_experiment_free(&x);
		fab_mpi_fini(&job);
		free(cmd_argv);
		return status;
	}
	if (job.size > 1) {
		spread_runs = o.spread == FAB_SPREAD_RUNS ||
			(o.spread == FAB_SPREAD_AUTO &&
			 fab_nb_runs(&x) >= (uint32_t)job.size);
		if (!spread_runs)
			ropts.job = &job;
	}
	run_id = (struct fab_run_id){
		.config = o.config, .overrides = o.overrides,
		.nb_overrides = o.nb_overrides, .seed_set = o.seed_set,
		.seed = o.seed, .seeds = o.seeds,
	};
	snprintf(outdir, sizeof(outdir), "%s", o.out ? o.out : "");
	if (o.out == NULL)
		fab_outdir_default(x.combos[0].name, &run_id, outdir,
				   sizeof(outdir));
	/* Another run's results stay unless --replace: checked before
	 * anything starts, cleared only once every rank is ready. */
	if (job.rank == 0) {
		char ident[FAB_RUN_ID_LEN + 1];

		fab_run_identity(&run_id, ident);
		if (fab_outdir_check(outdir, ident, o.replace, err,
				     sizeof(err)) != 0)
			status = 2;
	}
	status = fab_mpi_agree(&job, status, err, sizeof(err));
	if (status != 0) {
		if (job.rank == 0)
			fprintf(stderr, "ofan-fabric: %s\n", err);
		fab_experiment_free(&x);
		fab_mpi_fini(&job);
		free(cmd_argv);
		return status;
	}

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
	status = fab_mpi_agree(&job, status, err, sizeof(err));
	if (status == 0) {
		/* Every rank agrees again, whatever rank 0's outputs say. */
		if (job.rank == 0) {
			out = fab_out_open(outdir, &x, err, sizeof(err));
			if (out == NULL ||
			    (cmd_argv != NULL &&
			     fab_out_describe(out, cmd_argc, cmd_argv,
					      &run_id, err, sizeof(err)) != 0))
				status = 2;
		}
		status = fab_mpi_agree(&job, status, err, sizeof(err));
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
		rc = fab_out_close(out, o.quiet ? NULL : stdout);
		ofan_phase_end(&phase);
		if (rc != 0) {
			fprintf(stderr, "ofan-fabric: cannot write the summary in %s\n",
				outdir);
			if (status == 0)
				status = 2;
		}
	}
	status = fab_mpi_agree(&job, status, NULL, 0);
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
	fab_mpi_fini(&job);
	if (o.plot && wrote && job.rank == 0)
		fab_plot(outdir, o.quiet);
	free(cmd_argv);
	return status;
}
