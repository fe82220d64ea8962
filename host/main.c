/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-host: one or more host instances (ranks) on DPDK ethdev ports,
 * running a collective in wall-clock time.
 *
 *   ofan-host [EAL args] -- --config FILE [--results FILE.json]
 *             [--timeout SEC] [--check-config]
 *
 * Exits 0 only when every byte of every flow touching the local ranks was
 * delivered, verified against its pattern and acknowledged.  main() only
 * orchestrates; the transport is the host engine's (hs_host.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "hs_app.h"
#include "hs_cm.h"
#include "hs_pattern.h"
#include "hs_results.h"
#include "ofan_config.h"
#include "ofan_port.h"
#include "ofan_shell.h"
#include "ofan_version.h"

/*
 * What this process can follow of a .cm file: no failure lines (they are
 * a fabric's), and triggers whose every flow end and started flow is on
 * a rank of this process (a trigger entirely elsewhere is not ours).
 * Returns 0 or -EINVAL with a message.
 */
static int
hs_check_triggers(struct hs_app *app, char *err, size_t size)
{
	const struct hs_traffic *t = &app->traffic;
	const char *cm = hs_cm_path_of(app->cfg->traffic.pattern,
				       &app->cfg->pattern_set);
	uint16_t *part;		/* 0: a rank of this process, 1: not */
	uint32_t r, split;
	int rc;

	if (t->nb_failures > 0) {
		snprintf(err, size, "%s:%llu: a failure line; expected no failures for ofan-host (they are the fabric's: run the matrix in ofan-fabric)",
			 cm, (unsigned long long)t->failures[0].line);
		return -EINVAL;
	}
	part = malloc(sizeof(*part) * t->nb_ranks);
	if (part == NULL)
		return -ENOMEM;
	for (r = 0; r < t->nb_ranks; r++)
		part[r] = app->host_of_rank[r] >= 0 ? 0 : 1;
	rc = hs_traffic_trigger_split(t, part, &split);
	free(part);
	if (rc != 0)
		return rc;
	if (split == HS_NO_TRIGGER)
		return 0;
	snprintf(err, size, "%s:%llu: trigger %u joins ranks of this ofan-host with ranks it does not run; expected every flow that activates or waits for a trigger on ranks of one ofan-host process",
		 cm, (unsigned long long)t->triggers[split].line,
		 t->triggers[split].id);
	return -EINVAL;
}

/*
 * --list: every registered host policy, traffic pattern, loss-recovery
 * model and congestion controller, one "KIND NAME" line each, KIND the
 * config key that picks it ([host] policy, [traffic] pattern, [host]
 * recovery, [host] cc), in registry order.  Read by scripts that must
 * cover every one of them (testbed/soak.sh); before EAL, no config.
 */
static void
hs_list(FILE *f)
{
	/* Room for the largest registry's names and their NULL. */
	const char *names[HS_MAX_PATTERNS + 1];
	unsigned int i, n;

	_Static_assert(HLB_MAX_POLICIES <= HS_MAX_PATTERNS &&
		       HS_MAX_RECOVERY <= HS_MAX_PATTERNS &&
		       HS_MAX_CC <= HS_MAX_PATTERNS,
		       "names[] holds the largest registry");

	n = hlb_name_list(names);
	for (i = 0; i < n; i++)
		fprintf(f, "policy %s\n", names[i]);
	n = hs_pattern_name_list(names);
	for (i = 0; i < n; i++)
		fprintf(f, "pattern %s\n", names[i]);
	n = hs_recovery_name_list(names);
	for (i = 0; i < n; i++)
		fprintf(f, "recovery %s\n", names[i]);
	n = hs_cc_name_list(names);
	for (i = 0; i < n; i++)
		fprintf(f, "cc %s\n", names[i]);
}

static void
hs_usage(FILE *f)
{
	fprintf(f,
		"usage: ofan-host [EAL args] -- --config FILE [options]\n"
		"  --config FILE      host configuration (see configs/host-*.ini)\n"
		"  --results FILE     summary JSON; per-flow CSV next to it (-flows.csv)\n"
		"  --timeout SEC      give up (exit 1) after SEC seconds\n"
		"  --idle-sleep US    low-CPU mode: when a round received and sent nothing,\n"
		"                     sleep until the next pacing slot or timer, at most\n"
		"                     US microseconds (1..10000)\n"
		"  --start-at EPOCH|@FILE  start the traffic at this moment, in seconds\n"
		"                     since the Unix epoch (e.g. $(date -d '+10 sec'\n"
		"                     +%%s.%%N)), not once the ports are up: one start for\n"
		"                     every process of a testbed; @FILE: read it from FILE,\n"
		"                     a line, once FILE appears\n"
		"  --hold-exit        once the traffic is over (or a signal stopped it),\n"
		"                     stop polling but keep the ports until a further\n"
		"                     SIGINT or SIGTERM (at most 60 s), so that memif\n"
		"                     peers stop polling before any goes away\n"
		"                     (testbed/testbed.sh)\n"
		"  --check-config     validate the configuration and traffic, then exit\n"
		"  --help             this text\n"
		"  --version          the version and exit\n"
		"  --config-reference every config key, its range and default (Markdown)\n"
		"  --list             the registered policies, patterns, recovery models\n"
		"                     and congestion controllers, \"KIND NAME\" a line\n"
		"                     (KIND: policy, pattern, recovery, cc)\n"
		"EAL example without hugepages or NICs:\n"
		"  ofan-host --no-huge -m 512 --no-pci --file-prefix h0 -l 0 -- --config configs/host-b2b.ini\n"
		"host policies ([host] policy = NAME):\n");
	hlb_describe(f);
	fprintf(f, "traffic patterns ([traffic] pattern = NAME):\n");
	hs_pattern_describe(f);
	fprintf(f, "loss recovery ([host] recovery = NAME):\n");
	hs_recovery_describe(f);
	fprintf(f, "congestion control ([host] cc = NAME):\n");
	hs_cc_describe(f);
}

static int
hs_parse_args(struct hs_app *app, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "results", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "idle-sleep", required_argument, NULL, 's' },
		{ "start-at", required_argument, NULL, 'a' },
		{ "check-config", no_argument, NULL, 'k' },
		{ "hold-exit", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			app->config_path = optarg;
			break;
		case 'a':
			if (ofan_start_parse(optarg, &app->start) != 0) {
				fprintf(stderr, "ofan-host: --start-at '%s' is not a moment; expected seconds since the Unix epoch, e.g. 1764633600.25 (date +%%s.%%N), or @FILE\n",
					optarg);
				return -EINVAL;
			}
			app->start_set = true;
			break;
		case 'r':
			app->results = optarg;
			break;
		case 't':
			if (ofan_parse_double(optarg, &app->timeout_s) != 0 ||
			    app->timeout_s <= 0) {
				fprintf(stderr, "ofan-host: --timeout: '%s' is not a positive number of seconds\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'k':
			app->check_only = true;
			break;
		case 'H':
			app->hold_exit = true;
			break;
		case 's': {
			uint64_t us;

			if (ofan_parse_u64(optarg, &us) != 0 || us < 1 ||
			    us > 10000) {
				fprintf(stderr, "ofan-host: --idle-sleep '%s' is not a number of microseconds; expected 1 to 10000\n",
					optarg);
				return -EINVAL;
			}
			app->idle_sleep_us = (uint32_t)us;
			break;
		}
		case 'h':
			hs_usage(stdout);
			exit(0);
		default:
			hs_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ofan-host: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	if (app->config_path == NULL) {
		fprintf(stderr, "ofan-host: --config FILE is required (after --)\n");
		hs_usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/*
 * The run's results: the JSON at --results and the per-flow CSV beside
 * it (NAME-flows.csv), or only *sum without --results.  0 or -errno.
 */
static int
hs_write_results(const struct hs_app *app, double wall_s, int64_t inuse_start,
		 int64_t inuse_end, struct hs_summary *sum)
{
	struct hs_results_port ports[HS_MAX_PORTS];
	struct hs_results_run run = {
		.pattern = app->cfg->traffic.pattern->name,
		.wall_s = wall_s,
		.mempool_in_use_start = inuse_start,
		.mempool_in_use_end = inuse_end,
		.nb_ports = app->cfg->nb_ports,
		.ports = ports,
		.dev = app->dev_stats,
	};
	char csv[1024];
	uint16_t p;

	for (p = 0; p < app->cfg->nb_ports; p++) {
		ports[p].rank = app->cfg->ports[p].rank;
		ports[p].dev = app->cfg->ports[p].dev;
	}
	if (app->results != NULL) {
		const char *dot = strrchr(app->results, '.');
		int len = dot ? (int)(dot - app->results) :
			(int)strlen(app->results);

		snprintf(csv, sizeof(csv), "%.*s-flows.csv", len, app->results);
	}
	return hs_results(app->hosts, app->nb_hosts, &app->cfg->set,
			  &app->traffic, &run, app->results,
			  app->results != NULL ? csv : NULL, sum);
}

/*
 * --config-reference: every config key, its range and default, as
 * Markdown on stdout.  Returns the exit status.
 */
static int
hs_print_reference(void)
{
	char rerr[1024];

	if (hs_config_reference(stdout, rerr, sizeof(rerr)) != 0) {
		fprintf(stderr, "ofan-host: --config-reference: %s\n", rerr);
		return 1;
	}
	return 0;
}

/* Free what hs_configure() and hs_check() made, the config last. */
static void
hs_free_config(struct hs_app *app)
{
	hs_app_wl_fini(app);
	hs_trigger_state_fini(&app->trig);
	free(app->host_of_rank);
	hs_app_free_traffic(app);
	free(app->cfg);
}

/* hs_configure() and hs_check(): all is well so far, go on. */
#define HS_CONTINUE (-1)

/*
 * Everything before the checks: the arguments (split at "--" into sh),
 * the configuration, the traffic its pattern builds and which local port
 * runs each rank (app->host_of_rank).  Returns HS_CONTINUE, leaving all
 * of it for hs_free_config(), or the exit status when the process ends
 * here (--help, a mistake, no memory), app->cfg and the traffic freed.
 */
static int
hs_configure(struct hs_app *app, struct ofan_shell *sh, int argc,
	     char **argv)
{
	char err[1024];
	uint32_t r;
	uint16_t p;
	int rc;

	rc = ofan_shell_args(sh, "ofan-host", argc, argv, hs_usage);
	if (rc != 0)
		return rc > 0 ? OFAN_EXIT_OK : OFAN_EXIT_CONFIG;
	if (hs_parse_args(app, argc - sh->eal_argc, argv + sh->eal_argc) != 0)
		return OFAN_EXIT_CONFIG;
	app->cfg = malloc(sizeof(*app->cfg));
	if (app->cfg == NULL)
		return OFAN_EXIT_FAILED;
	if (hs_config_load(app->config_path, app->cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-host: %s\n", err);
		free(app->cfg);
		return OFAN_EXIT_CONFIG;
	}
	hs_config_moved_warn(app->cfg->moved, "ofan-host", stderr);
	if (hs_pattern_build(&app->cfg->traffic, &app->traffic,
			     &app->workload, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-host: %s:traffic:%s %s\n",
			app->config_path,
			app->cfg->traffic.pattern->reads_file ?
			"cm_file:" : "", err);
		free(app->cfg);
		return OFAN_EXIT_CONFIG;
	}
	app->host_of_rank = malloc(sizeof(int32_t) * app->traffic.nb_ranks);
	if (app->host_of_rank == NULL ||
	    hs_trigger_state_init(&app->trig, &app->traffic) != 0) {
		fprintf(stderr, "ofan-host: out of memory\n");
		hs_free_config(app);
		return OFAN_EXIT_FAILED;
	}
	for (r = 0; r < app->traffic.nb_ranks; r++)
		app->host_of_rank[r] = -1;
	for (p = 0; p < app->cfg->nb_ports; p++)
		app->host_of_rank[app->cfg->ports[p].rank] = p;
	return HS_CONTINUE;
}

/*
 * The training jobs' engine and what this process can follow of the
 * traffic (hs_check_triggers), then --check-config's answer.  Returns
 * HS_CONTINUE, or the exit status when the process ends here; either
 * way hs_free_config() frees what hs_configure() and this made.
 */
static int
hs_check(struct hs_app *app)
{
	char err[1024];

	if (hs_app_wl_init(app) != 0) {
		fprintf(stderr, "ofan-host: out of memory\n");
		return OFAN_EXIT_FAILED;
	}
	if (hs_check_triggers(app, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-host: %s\n", err);
		return OFAN_EXIT_CONFIG;
	}
	if (app->check_only) {
		printf("%s: ok (%u ranks, %u flows, %u local ranks, policy %s)\n",
		       app->config_path, app->traffic.nb_ranks,
		       app->traffic.nb_flows, app->cfg->nb_ports,
		       app->cfg->set.policy->name);
		return OFAN_EXIT_OK;
	}
	return HS_CONTINUE;
}

/*
 * Once EAL is up: the clock, the lcores' plan, the pool, ports, rings
 * and host engines, then the wait for --start-at.  Returns the exit
 * status, OFAN_EXIT_OK to run; what was set up is hs_teardown()'s.
 */
static int
hs_start(struct hs_app *app)
{
	ofan_clock_init_tsc(&app->clock, rte_get_tsc_hz(), rte_rdtsc());
	if (hs_app_plan_lcores(app) != 0 || hs_app_setup(app) != 0)
		return OFAN_EXIT_CONFIG;
	if (app->start_set && hs_app_wait_start(app) != 0)
		return ofan_shell_quit ? OFAN_EXIT_FAILED : OFAN_EXIT_CONFIG;
	return OFAN_EXIT_OK;
}

/*
 * After the run: each device's own counters (a line on stderr for one
 * that lost frames), the ports held (--hold-exit: until hold_need
 * signals) and closed, the rings between shards freed and every host's
 * mbufs back in the pool, so that the pool's count can be checked.
 */
static void
hs_close_ports(struct hs_app *app, struct ofan_shell *sh, int hold_need)
{
	uint16_t p, k;

	for (p = 0; p < app->cfg->nb_ports; p++) {
		const struct ofan_dev_stats *d = &app->dev_stats[p];

		ofan_port_dev_stats(app->port_id[p], &app->dev_stats[p]);
		if (d->valid && (ofan_dev_rx_lost(d) != 0 || d->oerrors != 0))
			fprintf(stderr, "ofan-host: port %u (rank %u): the device lost frames: missed %llu, errors %llu, no mbuf %llu, tx errors %llu\n",
				p, app->cfg->ports[p].rank,
				(unsigned long long)d->imissed,
				(unsigned long long)d->ierrors,
				(unsigned long long)d->rx_nombuf,
				(unsigned long long)d->oerrors);
	}
	if (app->hold_exit)
		ofan_ports_hold("ofan-host", &ofan_shell_signals, hold_need);
	sh->keep_eal = ofan_ports_close(app->port_id, app->port_started,
					app->cfg->nb_ports);
	hs_app_free_rings(app);
	for (k = 0; k < app->nb_hosts; k++)
		hs_host_return_mbufs(app->hosts[k]);
}

/*
 * Frames lost on the way out, summed over every port's shards: those the
 * device or a TX ring refused (returned), and those the software
 * dispatch dropped on a full shard ring (said on stderr if any).
 */
static uint64_t
hs_tx_dropped(const struct hs_app *app)
{
	uint64_t tx_dropped = 0, steer_full = 0;
	uint16_t p, k;

	for (p = 0; p < app->cfg->nb_ports; p++) {
		for (k = 0; k < app->port[p].nb_shards; k++)
			tx_dropped += app->port[p].shard[k].tx_dropped;
		steer_full += app->port[p].steer_full;
	}
	if (steer_full > 0)
		fprintf(stderr, "ofan-host: %llu frames dropped by the software dispatch: a shard's ring was full\n",
			(unsigned long long)steer_full);
	return tx_dropped;
}

/*
 * The training jobs' results (hs_app_wl_results), next to --results
 * with its extension cut off; a failure is said on stderr only.
 */
static void
hs_write_job_results(struct hs_app *app)
{
	const char *dot = app->results ? strrchr(app->results, '.') : NULL;
	int len = app->results == NULL ? 0 : dot ?
		(int)(dot - app->results) : (int)strlen(app->results);
	int rc = hs_app_wl_results(app, app->results, len);

	if (rc != 0)
		fprintf(stderr, "ofan-host: cannot write the jobs' results next to %s: %s\n",
			app->results, strerror(-rc));
}

/*
 * The run, from t0, and its report once the ports are closed: the
 * results files, the summary line on stdout and the mbuf-leak check.
 * Returns the exit status: OFAN_EXIT_OK only when every local flow
 * completed intact and no mbuf leaked.
 */
static int
hs_run_and_report(struct hs_app *app, struct ofan_shell *sh)
{
	/* The pool was empty before ports started. */
	const int64_t inuse_start = 0;
	struct hs_summary sum;
	int64_t inuse_end;
	uint64_t t0, tx_dropped;
	int rc, exit_code = OFAN_EXIT_OK;
	bool done;

	t0 = hs_app_now_ns(app);
	done = hs_app_run(app);
	/* --hold-exit: a signal stopped it, so the next one lets go. */
	hs_close_ports(app, sh, ofan_shell_signals > 0 ? 2 : 1);
	inuse_end = rte_mempool_in_use_count(app->pool);
	tx_dropped = hs_tx_dropped(app);
	rc = hs_write_results(app, (double)(hs_app_now_ns(app) - t0) / 1e9,
			      inuse_start, inuse_end, &sum);
	if (rc != 0)
		fprintf(stderr, "ofan-host: cannot write results to %s: %s\n",
			app->results, strerror(-rc));
	if (app->has_wl)
		hs_write_job_results(app);
	printf("%s %s: %u/%u flows complete, max slowdown %.2f, p99 %.2f, mean FCT %.1f us, data_retx %llu, timeouts %llu, corrupt_pkts %llu, refused by the device %llu\n",
	       app->cfg->set.policy->name, app->cfg->traffic.pattern->name,
	       sum.nb_completed, sum.nb_flows, sum.max_slowdown,
	       sum.p99_slowdown, sum.mean_fct_ns / 1e3,
	       (unsigned long long)sum.data_retx,
	       (unsigned long long)sum.timeouts,
	       (unsigned long long)sum.corrupt_pkts,
	       (unsigned long long)tx_dropped);
	if (!done || sum.corrupt_pkts != 0 || sum.incomplete_rx != 0 ||
	    sum.nb_completed != sum.nb_flows)
		exit_code = OFAN_EXIT_FAILED;
	if (!ofan_shell_no_leak(sh, inuse_start, inuse_end))
		exit_code = OFAN_EXIT_LEAK;
	return exit_code;
}

/*
 * Undo hs_start(), however far it got: the ports closed (a second time
 * after a run: a no-op then), the rings, host engines and pool freed,
 * and EAL's end (ofan_shell_exit).
 */
static void
hs_teardown(struct hs_app *app, struct ofan_shell *sh)
{
	uint16_t k;

	sh->keep_eal |= ofan_ports_close(app->port_id, app->port_started,
					 app->cfg->nb_ports);
	hs_app_free_rings(app);
	for (k = 0; k < app->nb_hosts; k++)
		hs_host_free(app->hosts[k]);
	rte_mempool_free(app->pool);
	ofan_shell_exit(sh);
}

int
main(int argc, char **argv)
{
	static struct hs_app app;	/* large: every lcore's and shard's */
	struct ofan_shell sh = { 0 };
	int exit_code;

	if (ofan_version_asked(argc, argv))
		return ofan_version_print("ofan-host");
	if (argc == 2 && strcmp(argv[1], "--config-reference") == 0)
		return hs_print_reference();
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		hs_list(stdout);
		return 0;
	}
	memset(&app, 0, sizeof(app));
	rte_spinlock_init(&app.trig_lock);
	exit_code = hs_configure(&app, &sh, argc, argv);
	if (exit_code != HS_CONTINUE)
		return exit_code;
	exit_code = hs_check(&app);
	if (exit_code == HS_CONTINUE) {
		if (ofan_shell_eal_init(&sh, argv) != 0) {
			exit_code = OFAN_EXIT_FAILED;
		} else {
			exit_code = hs_start(&app);
			if (exit_code == OFAN_EXIT_OK)
				exit_code = hs_run_and_report(&app, &sh);
			hs_teardown(&app, &sh);
		}
	}
	hs_free_config(&app);
	return exit_code;
}
