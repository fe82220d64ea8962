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

/*
 * ofan-fabric's state from the arguments to the cleanup, shared by the
 * steps of main().
 */
struct fab_main {
	struct fab_opts o;
	struct fab_mpi job;
	struct fab_experiment x;	/* loaded by fab_load() */
	struct fab_run_id run_id;
	struct fab_run_opts ropts;
	struct fab_fib_cache fib_cache;
	struct fab_pool fpool;
	struct rte_mempool *pool;	/* fpool's, once made */
	struct fab_out *out;		/* rank 0's outputs, once open */
	char **cmd_argv;		/* the command as given (outputs) */
	int cmd_argc;
	bool spread_runs;		/* --spread runs (or auto's choice) */
	bool eal_ok;
	bool wrote;			/* fab_run_all() ran: plots follow */
	uint32_t pool_n;		/* mbufs of the pool */
	uint16_t room;			/* bytes of an mbuf's data room */
	char err[1024];
	char outdir[512];
	char rundir[512];		/* EAL's runtime directory */
	char prog[32];			/* "ofan-fabric" or "ofan-fabric[RANK]" */
	/* EAL's default arguments: they live as long as EAL. */
	char *eal_argv[16];
	char prefix[64];
	char mem[32];
	char lcores[256];
};

/*
 * --config-reference: every key of an experiment file, its range and
 * default, as Markdown on stdout.  Returns the exit status.
 */
static int
fab_print_reference(void)
{
	char err[1024] = "";

	if (fab_config_reference(stdout, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-fabric: --config-reference: %s\n", err);
		return 1;
	}
	return 0;
}

/*
 * What the outputs and messages call this process: the command as given
 * (m->cmd_argv, NULL if out of memory; the split of fab_load() edits
 * argv's array) and the program's name, "ofan-fabric[RANK]" on ranks
 * other than 0.
 */
static void
fab_identify(struct fab_main *m, int argc, char **argv)
{
	m->cmd_argc = argc;
	m->cmd_argv = calloc((size_t)argc + 1, sizeof(*m->cmd_argv));
	if (m->cmd_argv != NULL)
		memcpy(m->cmd_argv, argv, (size_t)argc * sizeof(*m->cmd_argv));
	snprintf(m->prog, sizeof(m->prog), m->job.rank == 0 ? "ofan-fabric" :
		 "ofan-fabric[%d]", m->job.rank);
	m->ropts.prog = m->prog;
	m->ropts.rank = m->job.rank;
}

/*
 * Silence stdout and stderr (a rank other than 0, while it reads what
 * rank 0 reads too), keeping them in saved[] for fab_unmute().
 */
static void
fab_mute(int saved[2])
{
	int null = open("/dev/null", O_WRONLY);

	fflush(stdout);
	fflush(stderr);
	saved[0] = dup(1);
	saved[1] = dup(2);
	dup2(null, 1);
	dup2(null, 2);
	close(null);
}

/* Give back the stdout and stderr fab_mute() kept in saved[]. */
static void
fab_unmute(int saved[2])
{
	fflush(stdout);
	fflush(stderr);
	dup2(saved[0], 1);
	dup2(saved[1], 2);
	close(saved[0]);
	close(saved[1]);
}

/*
 * The arguments (EAL's before "--", if any, then ours) and the
 * experiment, every sweep combination checked.  Only rank 0 tells of
 * mistakes.  Returns 0 with m->x loaded (the caller frees it), or the
 * exit status 2 with nothing loaded.
 */
static int
fab_load(struct fab_main *m, int argc, char **argv)
{
	struct fab_opts *o = &m->o;
	int help, split, status = 0, saved[2] = { -1, -1 };

	/* Every rank reads the same arguments and files: only rank 0 tells
	 * of their mistakes (the others' stdout and stderr wait meanwhile). */
	if (m->job.rank != 0)
		fab_mute(saved);
	split = ofan_split_args(argc, argv, &help);
	if (split > 0) {
		/* The user chose EAL arguments: argv[1 .. split - 1]. */
		o->eal_argc = split;
		o->eal_argv = argv;
		argv[split] = argv[0];
		argc -= split;
		argv += split;
	}
	if (fab_parse_args(argc, argv, o) != 0) {
		status = 2;
	} else if (fab_experiment_load_seeds(o->config, o->overrides,
					     o->nb_overrides, o->seed_set,
					     o->seed, o->seeds, !o->list_links,
					     &m->x, m->err,
					     sizeof(m->err)) != 0) {
		fprintf(stderr, "ofan-fabric: %s\n", m->err);
		status = 2;
	} else {
		hs_config_moved_warn(m->x.moved, "ofan-fabric", stderr);
	}
	if (m->job.rank != 0)
		fab_unmute(saved);
	return status;
}

/*
 * Under mpirun, how the runs spread over the ranks; the output folder
 * (--out, or the default for the experiment and its overrides), which
 * must not hold another run's results unless --replace.  Returns the
 * status every rank agreed on: 0, or 2 with the message in m->err.
 */
static int
fab_plan(struct fab_main *m)
{
	const struct fab_opts *o = &m->o;
	int status = 0;

	if (m->job.size > 1) {
		m->spread_runs = o->spread == FAB_SPREAD_RUNS ||
			(o->spread == FAB_SPREAD_AUTO &&
			 fab_nb_runs(&m->x) >= (uint32_t)m->job.size);
		if (!m->spread_runs)
			m->ropts.job = &m->job;
	}
	m->run_id = (struct fab_run_id){
		.config = o->config, .overrides = o->overrides,
		.nb_overrides = o->nb_overrides, .seed_set = o->seed_set,
		.seed = o->seed, .seeds = o->seeds,
	};
	snprintf(m->outdir, sizeof(m->outdir), "%s", o->out ? o->out : "");
	if (o->out == NULL)
		fab_outdir_default(m->x.combos[0].name, &m->run_id, m->outdir,
				   sizeof(m->outdir));
	/* Another run's results stay unless --replace: checked before
	 * anything starts, cleared only once every rank is ready. */
	if (m->job.rank == 0) {
		char ident[FAB_RUN_ID_LEN + 1];

		fab_run_identity(&m->run_id, ident);
		if (fab_outdir_check(m->outdir, ident, o->replace, m->err,
				     sizeof(m->err)) != 0)
			status = 2;
	}
	return fab_mpi_agree(&m->job, status, m->err, sizeof(m->err));
}

/*
 * EAL's arguments -- the user's, or the embedded default: no hugepages,
 * no PCI, the lcores of the [fabric] threads, the memory the largest
 * combination needs, our own file prefix -- and, unless --quiet, what
 * is about to run (rank 0).
 */
static void
fab_eal_args(struct fab_main *m)
{
	uint16_t max_threads = 1;
	uint32_t c;

	for (c = 0; c < m->x.nb_combos; c++)
		max_threads = RTE_MAX(max_threads, m->x.combos[c].threads);
	fab_lcores(&m->job, max_threads, m->lcores, sizeof(m->lcores));
	snprintf(m->prefix, sizeof(m->prefix), "ofan-fabric-%d",
		 (int)getpid());
	snprintf(m->mem, sizeof(m->mem), "%u",
		 fab_eal_mb(&m->x, m->ropts.job != NULL ? m->job.size : 1,
			    &m->pool_n, &m->room));
	if (!m->o.quiet && m->job.rank == 0) {
		fprintf(stderr, "ofan-fabric: %s: %u combination(s) x %u scheme(s) x %u seed(s), results in %s\n",
			m->x.combos[0].name, m->x.nb_combos,
			m->x.combos[0].nb_schemes, m->x.combos[0].seeds,
			m->outdir);
		if (m->job.size > 1)
			fprintf(stderr, "ofan-fabric: %d ranks, %s\n",
				m->job.size, m->spread_runs ?
				"each run on one rank (--spread runs)" :
				"every run split over them (--spread parts)");
	}
}

/*
 * EAL (fab_eal_args()'s arguments; argv0 names the program) and the one
 * mbuf pool of every run.  Returns 0, or 4 with the message in m->err;
 * m->eal_ok and m->pool say how far it got, for fab_teardown().
 */
static int
fab_start_eal(struct fab_main *m, char *argv0)
{
	struct ofan_phase phase;
	int eal_argc = 0, rc;

	/* EAL maps its memory and the pool touches its first mbufs. */
	ofan_phase_begin(&phase, m->o.quiet ? NULL : stderr, m->prog,
			 "setting up %s MB of memory and %u mbufs", m->mem,
			 m->pool_n);
	if (m->o.eal_argc > 0) {
		rc = rte_eal_init(m->o.eal_argc, m->o.eal_argv);
	} else {
		char *def[] = {
			argv0, "--no-huge", "-m", m->mem, "--no-pci",
			"--lcores", m->lcores, "--file-prefix", m->prefix,
			"--no-telemetry", "--log-level", "lib.eal:error",
		};

		for (eal_argc = 0; eal_argc < (int)RTE_DIM(def); eal_argc++)
			m->eal_argv[eal_argc] = def[eal_argc];
		rc = rte_eal_init(eal_argc, m->eal_argv);
	}
	if (rc < 0) {
		ofan_phase_end(&phase);
		snprintf(m->err, sizeof(m->err), "EAL initialisation failed: %s. Hint: run as root; the default needs %s MB of memory (--no-huge); with your own EAL arguments pass --no-huge -m %s --no-pci",
			 rte_strerror(rte_errno), m->mem, m->mem);
		return 4;
	}
	m->eal_ok = true;
	snprintf(m->rundir, sizeof(m->rundir), "%s",
		 rte_eal_get_runtime_dir());
	if (fab_pool_create(&m->fpool, m->pool_n, m->room,
			    rte_lcore_count() > 1) == 0)
		m->pool = m->fpool.mp;
	m->ropts.pool = &m->fpool;
	ofan_phase_end(&phase);
	if (m->pool == NULL) {
		snprintf(m->err, sizeof(m->err), "cannot create a pool of %u mbufs of %u bytes: %s. Hint: give EAL more memory (-m)",
			 m->pool_n, m->room, rte_strerror(rte_errno));
		return 4;
	}
	return 0;
}

/*
 * Every rank ready (status: this one's), or all stop with the first
 * failing rank's error; then rank 0 opens the outputs, and again.
 * Returns the status every rank agreed on; rank 0 says why it is not 0.
 */
static int
fab_open_outputs(struct fab_main *m, int status)
{
	status = fab_mpi_agree(&m->job, status, m->err, sizeof(m->err));
	if (status == 0) {
		/* Every rank agrees again, whatever rank 0's outputs say. */
		if (m->job.rank == 0) {
			m->out = fab_out_open(m->outdir, &m->x, m->err,
					      sizeof(m->err));
			if (m->out != NULL && m->cmd_argv != NULL &&
			    fab_out_describe(m->out, m->cmd_argc, m->cmd_argv,
					     &m->run_id, m->err,
					     sizeof(m->err)) != 0) {
				fab_out_discard(m->out);
				m->out = NULL;
			}
			if (m->out == NULL)
				status = 2;
		}
		status = fab_mpi_agree(&m->job, status, m->err,
				       sizeof(m->err));
	}
	if (status != 0 && m->job.rank == 0)
		fprintf(stderr, "ofan-fabric: %s\n", m->err);
	return status;
}

/*
 * Every run (each on one rank, or each split over the ranks) until done
 * or interrupted (SIGINT, SIGTERM: 130), then rank 0 writes the summary
 * and tables.  Returns the status every rank agreed on; sets m->wrote.
 */
static int
fab_run_all(struct fab_main *m)
{
	struct ofan_phase phase;
	int status, rc;

	m->ropts.quiet = m->o.quiet;
	if (m->spread_runs)
		status = fab_spread_runs(&m->job, &m->x, m->pool, &m->ropts,
					 m->out, m->outdir);
	else
		status = fab_sequential_runs(&m->x, m->pool, &m->ropts, m->out,
					     m->outdir, m->job.rank == 0);
	if (fab_interrupted) {
		if (m->job.rank == 0)
			fprintf(stderr, "ofan-fabric: interrupted; results so far in %s\n",
				m->outdir);
		status = 130;
	}
	if (m->job.rank == 0) {
		ofan_phase_begin(&phase, m->o.quiet ? NULL : stderr, m->prog,
				 "writing the summary and tables in %s",
				 m->outdir);
		rc = fab_out_close(m->out, m->o.quiet ? NULL : stdout);
		ofan_phase_end(&phase);
		if (rc != 0) {
			fprintf(stderr, "ofan-fabric: cannot write the summary in %s\n",
				m->outdir);
			if (status == 0)
				status = 2;
		}
	}
	status = fab_mpi_agree(&m->job, status, NULL, 0);
	m->wrote = true;
	return status;
}

/*
 * The end once fab_plan() passed, however far the rest got: the FIB
 * cache, the pool, EAL and its runtime directory, the experiment, the
 * MPI job; then the plots (testbed/plot.sh) if the runs wrote results.
 */
static void
fab_teardown(struct fab_main *m)
{
	/* Every run checked that its mbufs came back (fab_run's mbuf_leak). */
	/* The last FIB goes with EAL's memory (rte_eal_cleanup): rte_free()
	 * would first clear all 64 MB of it, faulting in the pages lookups
	 * never touched (0.17 s here, a k = 8 run's third). */
	free(m->fib_cache.sig);
	fab_pool_free(&m->fpool);
	if (m->eal_ok)
		rte_eal_cleanup();
	if (m->o.eal_argc == 0)
		fab_eal_rundir_remove(m->rundir);
	fab_experiment_free(&m->x);
	fab_mpi_fini(&m->job);
	if (m->o.plot && m->wrote && m->job.rank == 0)
		fab_plot(m->outdir, m->o.quiet);
	free(m->cmd_argv);
}

/*
 * The end before EAL: the experiment if loaded, the MPI job, the
 * command's copy.  Returns status, the exit status.
 */
static int
fab_end_early(struct fab_main *m, int status, bool loaded)
{
	if (loaded)
		fab_experiment_free(&m->x);
	fab_mpi_fini(&m->job);
	free(m->cmd_argv);
	return status;
}

int
main(int argc, char **argv)
{
	struct fab_main m = { 0 };
	int status;

	m.ropts = (struct fab_run_opts){ .interrupt = &fab_interrupted,
					 .fib = &m.fib_cache };
	if (ofan_version_asked(argc, argv))
		return ofan_version_print("ofan-fabric");
	if (argc == 2 && strcmp(argv[1], "--config-reference") == 0)
		return fab_print_reference();
	if (fab_mpi_init(&m.job, &argc, &argv, m.err, sizeof(m.err)) != 0) {
		fprintf(stderr, "ofan-fabric: %s\n", m.err);
		return 2;
	}
	/*
	 * From here a signal stops the job cleanly: before the runs, at
	 * once (EAL's runtime folder removed), during them, after the run.
	 */
	signal(SIGINT, fab_on_signal);
	signal(SIGTERM, fab_on_signal);
	fab_identify(&m, argc, argv);
	status = fab_load(&m, argc, argv);
	if (status != 0)
		return fab_end_early(&m, status, false);
	if (m.o.list_links)
		return fab_end_early(&m, m.job.rank == 0 ?
				     fab_list_links(&m.x.combos[0]) : 0, true);
	status = fab_plan(&m);
	if (status != 0) {
		if (m.job.rank == 0)
			fprintf(stderr, "ofan-fabric: %s\n", m.err);
		return fab_end_early(&m, status, true);
	}
	fab_eal_args(&m);
	status = fab_open_outputs(&m, fab_start_eal(&m, argv[0]));
	if (status == 0 &&
	    fab_mpi_agree(&m.job, fab_interrupted ? 130 : 0, NULL, 0) != 0) {
		/* Stopped before any run: nothing written. */
		if (m.out != NULL)
			fab_out_discard(m.out);
		m.out = NULL;
		if (m.job.rank == 0)
			fprintf(stderr, "ofan-fabric: interrupted before any run\n");
		status = 130;
	} else if (status == 0) {
		status = fab_run_all(&m);
	}
	fab_teardown(&m);
	return status;
}
