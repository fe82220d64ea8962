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
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "hs_config.h"
#include "hs_host.h"
#include "hs_results.h"
#include "hs_traffic.h"
#include "ofan_clock.h"
#include "ofan_config.h"
#include "ofan_wire.h"
#include "ofan_fs.h"
#include "ofan_port.h"

#define HS_BURST 32

static volatile sig_atomic_t hs_quit;

static void
hs_on_signal(int sig)
{
	(void)sig;
	hs_quit = 1;
}

struct hs_app {
	const char *config_path;
	const char *results;
	double timeout_s;
	uint32_t idle_sleep_us;	/* low-CPU mode: sleep up to this when idle */
	bool check_only;
	struct hs_config *cfg;
	struct hs_traffic traffic;
	struct rte_mempool *pool;
	uint16_t port_id[HS_MAX_PORTS];
	bool port_started[HS_MAX_PORTS];
	struct hs_host *hosts[HS_MAX_PORTS];
	int32_t *host_of_rank;	/* rank -> index in hosts, -1: not ours */
	struct hs_trigger_state trig;
	struct ofan_clock clock;
	uint64_t tx_dropped;	/* built but refused by the device */
};

/*
 * A local flow ended that activates a trigger: start what it releases
 * (every such flow is local: hs_check_triggers()).
 */
static void
hs_on_flow_end(void *arg, uint32_t flow, bool received, uint64_t now)
{
	struct hs_app *app = arg;
	const struct hs_flow_spec *f = &app->traffic.flows[flow];
	const uint32_t *go;
	uint32_t n, i;

	n = hs_trigger_activate(&app->traffic, &app->trig, received ?
				f->recv_done_trigger : f->send_done_trigger,
				&go);
	for (i = 0; i < n; i++) {
		int32_t h = app->host_of_rank[app->traffic.flows[go[i]].src];

		if (h >= 0)
			hs_host_release(app->hosts[h], go[i], now);
	}
}

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
	const char *cm = app->cfg->cm_path;
	uint8_t *seen;		/* per trigger: 1 local part, 2 remote part */
	uint32_t i, k;
	int rc = 0;

	if (t->nb_failures > 0) {
		snprintf(err, size, "%s:%llu: a failure line; expected no failures for ofan-host (they are the fabric's: run the matrix in ofan-fabric)",
			 cm, (unsigned long long)t->failures[0].line);
		return -EINVAL;
	}
	seen = calloc(t->nb_triggers + 1, 1);
	if (seen == NULL)
		return -ENOMEM;
	for (i = 0; i < t->nb_flows; i++) {
		const struct hs_flow_spec *f = &t->flows[i];
		uint32_t tg[3] = { f->trigger, f->send_done_trigger,
				   f->recv_done_trigger };
		uint32_t rank[3] = { f->src, f->src, f->dst };

		for (k = 0; k < 3; k++)
			if (tg[k] != HS_NO_TRIGGER)
				seen[tg[k]] |= app->host_of_rank[rank[k]] >= 0 ?
					1 : 2;
	}
	for (i = 0; i < t->nb_triggers && rc == 0; i++)
		if (seen[i] == 3) {
			snprintf(err, size, "%s:%llu: trigger %u joins ranks of this ofan-host with ranks it does not run; expected every flow that activates or waits for a trigger on ranks of one ofan-host process",
				 cm, (unsigned long long)t->triggers[i].line,
				 t->triggers[i].id);
			rc = -EINVAL;
		}
	free(seen);
	return rc;
}

static inline uint64_t
hs_now_ns(const struct hs_app *app)
{
	return ofan_clock_tsc_to_ns(&app->clock, rte_rdtsc());
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
		"  --check-config     validate the configuration and traffic, then exit\n"
		"  --help             this text\n"
		"EAL example without hugepages or NICs:\n"
		"  ofan-host --no-huge -m 512 --no-pci --file-prefix h0 -l 0 -- --config configs/host-b2b.ini\n");
}

static int
hs_parse_args(struct hs_app *app, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "results", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "idle-sleep", required_argument, NULL, 's' },
		{ "check-config", no_argument, NULL, 'k' },
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

static int
hs_setup(struct hs_app *app)
{
	const struct hs_config *c = app->cfg;
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	char err[512];
	uint32_t nb_mbufs = 8192 + c->nb_ports * 4096u;
	struct ofan_port_conf pc[HS_MAX_PORTS];
	uint16_t p, txq[HS_MAX_PORTS];
	int rc;

	/* One frame per mbuf: a full data frame must fit its data room. */
	app->pool = rte_pktmbuf_pool_create("ofan_host_pool", nb_mbufs, 256,
		0, (uint16_t)(RTE_PKTMBUF_HEADROOM +
			      RTE_MAX((unsigned int)RTE_MBUF_DEFAULT_DATAROOM,
				      OFAN_ETH_HDR_SIZE + c->mtu + 64u)),
		rte_socket_id());
	if (app->pool == NULL) {
		fprintf(stderr, "ofan-host: cannot create a pool of %u mbufs: %s. Hint: with --no-huge give EAL more memory (-m 1024) or mount hugepages\n",
			nb_mbufs, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (p = 0; p < c->nb_ports; p++)
		pc[p] = (struct ofan_port_conf){
			.dev = c->ports[p].dev,
			.nb_rxq = 1, .nb_txq = 1, .nb_rxd = 1024, .nb_txd = 1024,
		};
	rc = ofan_ports_open(pc, c->nb_ports, app->pool, app->port_id, txq,
			     app->port_started, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "ofan-host: %s:%s\n", c->path, err);
		return rc;
	}
	for (p = 0; p < c->nb_ports; p++) {
		struct hs_host_params hp = {
			.cfg = c,
			.traffic = &app->traffic,
			.rank = c->ports[p].rank,
			.pool = app->pool,
			.on_flow_end = hs_on_flow_end,
			.on_flow_end_arg = app,
		};
		struct rte_ether_addr a;

		/* Virtual devices may not support it; NICs need it for jumbo. */
		rte_eth_dev_set_mtu(app->port_id[p], c->mtu);
		rte_eth_macaddr_get(app->port_id[p], &a);
		memcpy(hp.mac, c->ports[p].mac_set ? c->ports[p].mac :
		       a.addr_bytes, 6);
		memcpy(hp.dst_mac, c->ports[p].gateway_mac_set ?
		       c->ports[p].gateway_mac : bcast, 6);
		app->hosts[p] = hs_host_create(&hp, err, sizeof(err));
		if (app->hosts[p] == NULL) {
			fprintf(stderr, "ofan-host: rank %u: %s\n", hp.rank,
				err);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Do flows of local ranks have peers in other processes? */
static bool
hs_has_remote_peers(const struct hs_app *app)
{
	const struct hs_config *c = app->cfg;
	bool *local = calloc(app->traffic.nb_ranks, sizeof(bool));
	bool remote = false;
	uint32_t i;
	uint16_t p;

	if (local == NULL)
		return true;
	for (p = 0; p < c->nb_ports; p++)
		local[c->ports[p].rank] = true;
	for (i = 0; i < app->traffic.nb_flows && !remote; i++) {
		const struct hs_flow_spec *f = &app->traffic.flows[i];

		remote = local[f->src] != local[f->dst];
	}
	free(local);
	return remote;
}

/*
 * A progress line: bytes acknowledged, and the rate over the last dt_s
 * seconds -- or, for the last line (dt_s = 0), the mean over the run.
 */
static void
hs_progress(struct hs_app *app, double t_s, uint64_t *prev_bytes,
	    double dt_s)
{
	bool last = dt_s <= 0;
	uint64_t acked = 0, total = 0, retx = 0, a, tot;
	uint16_t p;

	for (p = 0; p < app->cfg->nb_ports; p++) {
		hs_host_progress(app->hosts[p], &a, &tot);
		acked += a;
		total += tot;
		retx += hs_host_stats(app->hosts[p])->data_retx;
	}
	fprintf(stderr, "t=%.1fs %llu/%llu bytes (%.1f%%) %s%.3f Gb/s retx %llu\n",
		t_s, (unsigned long long)acked, (unsigned long long)total,
		total ? 100.0 * (double)acked / (double)total : 100.0,
		last ? "mean " : "",
		last ? (t_s > 0 ? (double)acked * 8 / t_s / 1e9 : 0) :
		(double)(acked - *prev_bytes) * 8 / dt_s / 1e9,
		(unsigned long long)retx);
	*prev_bytes = acked;
}

/* Poll every host until done, timeout or signal.  Returns true if done. */
static bool
hs_run(struct hs_app *app)
{
	const struct hs_config *c = app->cfg;
	struct rte_mbuf *pkts[HS_BURST];
	uint64_t start = hs_now_ns(app), now, last_rx = start;
	uint64_t next_stat = start + c->stats_interval_ns, last_stat = start;
	uint64_t end = app->timeout_s > 0 ?
		start + (uint64_t)(app->timeout_s * 1e9) : UINT64_MAX;
	uint64_t prev_bytes = 0, done_at = 0, wake;
	bool linger = hs_has_remote_peers(app), done = false, busy;
	uint16_t p, n, sent, i;

	for (p = 0; p < c->nb_ports; p++)
		hs_host_start(app->hosts[p], start);
	while (!hs_quit) {
		now = hs_now_ns(app);
		done = true;
		busy = false;
		wake = UINT64_MAX;
		for (p = 0; p < c->nb_ports; p++) {
			struct hs_host *h = app->hosts[p];

			n = rte_eth_rx_burst(app->port_id[p], 0, pkts, HS_BURST);
			if (n > 0) {
				last_rx = now;
				busy = true;
				hs_host_input(h, pkts, n, now);
			}
			n = hs_host_output(h, now, pkts, HS_BURST);
			busy = busy || n > 0;
			wake = RTE_MIN(wake, hs_host_next_event(h));
			if (n > 0) {
				sent = rte_eth_tx_burst(app->port_id[p], 0,
							pkts, n);
				for (i = sent; i < n; i++)
					rte_pktmbuf_free(pkts[i]);
				app->tx_dropped += n - sent;
			}
			done = done && hs_host_tx_done(h) && hs_host_rx_done(h);
		}
		if (c->stats_interval_ns > 0 && now >= next_stat) {
			hs_progress(app, (double)(now - start) / 1e9,
				    &prev_bytes, (double)(now - last_stat) / 1e9);
			last_stat = now;
			next_stat += c->stats_interval_ns;
		}
		if (done && done_at == 0)
			done_at = now;
		/*
		 * With peers in other processes, keep answering for a while:
		 * a remote sender may still need our ACKs.
		 */
		if (done && (!linger ||
			     (now - last_rx > 500 * OFAN_NS_PER_MS &&
			      now - done_at > 500 * OFAN_NS_PER_MS)))
			break;
		if (now >= end) {
			fprintf(stderr, "ofan-host: timeout after %.1f s with flows unfinished\n",
				app->timeout_s);
			break;
		}
		/* Low-CPU mode: nothing came or went; sleep until the next
		 * pacing slot or timer, at most idle_sleep_us. */
		if (app->idle_sleep_us > 0 && !busy && wake > now) {
			uint64_t us = (wake - now) / OFAN_NS_PER_US;

			if (us > app->idle_sleep_us)
				us = app->idle_sleep_us;
			if (us > 0)
				rte_delay_us_sleep((unsigned int)us);
		}
	}
	if (c->stats_interval_ns > 0)
		hs_progress(app, (double)(hs_now_ns(app) - start) / 1e9,
			    &prev_bytes, 0);
	return done;
}

int
main(int argc, char **argv)
{
	char rundir[PATH_MAX] = "";
	struct hs_app app;
	struct hs_summary sum;
	char err[1024], csv[1024];
	int eal_argc, help, rc, exit_code = 0;
	int64_t inuse_start = 0, inuse_end = 0;
	uint64_t t0;
	bool done;
	uint32_t r;
	uint16_t p;

	memset(&app, 0, sizeof(app));
	eal_argc = ofan_split_args(argc, argv, &help);
	if (help) {
		hs_usage(stdout);
		return 0;
	}
	if (eal_argc < 0) {
		fprintf(stderr, "ofan-host: missing '--' before the application options\n");
		hs_usage(stderr);
		return 2;
	}
	if (hs_parse_args(&app, argc - eal_argc, argv + eal_argc) != 0)
		return 2;
	app.cfg = malloc(sizeof(*app.cfg));
	if (app.cfg == NULL)
		return 1;
	if (hs_config_load(app.config_path, app.cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-host: %s\n", err);
		free(app.cfg);
		return 2;
	}
	if (hs_traffic_build(&app.cfg->traffic, &app.traffic, err,
			     sizeof(err)) != 0) {
		fprintf(stderr, "ofan-host: %s:traffic:%s %s\n",
			app.config_path,
			app.cfg->traffic.pattern == HS_PATTERN_CM ?
			"cm_file:" : "", err);
		free(app.cfg);
		return 2;
	}
	app.host_of_rank = malloc(sizeof(int32_t) * app.traffic.nb_ranks);
	if (app.host_of_rank == NULL ||
	    hs_trigger_state_init(&app.trig, &app.traffic) != 0) {
		fprintf(stderr, "ofan-host: out of memory\n");
		hs_traffic_free(&app.traffic);
		free(app.cfg);
		return 1;
	}
	for (r = 0; r < app.traffic.nb_ranks; r++)
		app.host_of_rank[r] = -1;
	for (p = 0; p < app.cfg->nb_ports; p++)
		app.host_of_rank[app.cfg->ports[p].rank] = p;
	if (hs_check_triggers(&app, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-host: %s\n", err);
		exit_code = 2;
		goto early_out;
	}
	if (app.check_only) {
		printf("%s: ok (%u ranks, %u flows, %u local ranks, policy %s)\n",
		       app.config_path, app.traffic.nb_ranks,
		       app.traffic.nb_flows, app.cfg->nb_ports,
		       app.cfg->policy->name);
		goto early_out;
	}
	rc = rte_eal_init(eal_argc, argv);
	if (rc < 0) {
		fprintf(stderr, "ofan-host: EAL initialisation failed: %s. Hint: run as root; without hugepages pass --no-huge -m 512 (and --no-pci without NICs); give each process its own --file-prefix\n",
			rte_strerror(rte_errno));
		hs_traffic_free(&app.traffic);
		free(app.cfg);
		return 1;
	}
	/* EAL leaves its runtime directory behind: removed at exit. */
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	signal(SIGINT, hs_on_signal);
	signal(SIGTERM, hs_on_signal);
	ofan_clock_init_tsc(&app.clock, rte_get_tsc_hz(), rte_rdtsc());
	if (hs_setup(&app) != 0) {
		exit_code = 2;
		goto out;
	}
	inuse_start = 0;	/* the pool was empty before ports started */
	t0 = hs_now_ns(&app);
	done = hs_run(&app);
	ofan_ports_close(app.port_id, app.port_started, app.cfg->nb_ports);
	inuse_end = rte_mempool_in_use_count(app.pool);
	csv[0] = '\0';
	if (app.results != NULL) {
		const char *dot = strrchr(app.results, '.');
		int len = dot ? (int)(dot - app.results) :
			(int)strlen(app.results);

		snprintf(csv, sizeof(csv), "%.*s-flows.csv", len, app.results);
	}
	rc = hs_results(app.hosts, app.cfg->nb_ports, app.cfg, &app.traffic,
			(double)(hs_now_ns(&app) - t0) / 1e9, inuse_start,
			inuse_end, app.results, app.results ? csv : NULL, &sum);
	if (rc != 0)
		fprintf(stderr, "ofan-host: cannot write results to %s: %s\n",
			app.results, strerror(-rc));
	printf("%s %s: %u/%u flows complete, max slowdown %.2f, p99 %.2f, mean FCT %.1f us, retx %llu, timeouts %llu, corrupt %llu, refused by the device %llu\n",
	       app.cfg->policy->name, hs_pattern_names[app.cfg->traffic.pattern],
	       sum.nb_completed, sum.nb_flows, sum.max_slowdown,
	       sum.p99_slowdown, sum.mean_fct_ns / 1e3,
	       (unsigned long long)sum.retx, (unsigned long long)sum.timeouts,
	       (unsigned long long)sum.corrupt,
	       (unsigned long long)app.tx_dropped);
	if (!done || sum.corrupt != 0 || sum.incomplete_rx != 0 ||
	    sum.nb_completed != sum.nb_flows)
		exit_code = 1;
	if (inuse_end != inuse_start) {
		fprintf(stderr, "ofan-host: mbuf leak: %lld mbufs in use at exit\n",
			(long long)inuse_end);
		exit_code = 3;
	}
out:
	ofan_ports_close(app.port_id, app.port_started, app.cfg->nb_ports);
	for (p = 0; p < app.cfg->nb_ports; p++)
		hs_host_free(app.hosts[p]);
	rte_mempool_free(app.pool);
	rte_eal_cleanup();
	if (rundir[0] != '\0' && ofan_remove_tree(rundir) != 0)
		fprintf(stderr, "ofan-host: could not remove %s\n", rundir);
early_out:
	hs_trigger_state_fini(&app.trig);
	free(app.host_of_rank);
	hs_traffic_free(&app.traffic);
	free(app.cfg);
	return exit_code;
}
