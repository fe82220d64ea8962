/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-switch: one switch engine on DPDK ethdev ports, in wall-clock time.
 *
 *   ofan-switch [EAL args] -- --config FILE [--stats-json FILE]
 *               [--duration SEC] [--stop-when-idle SEC] [--check-config]
 *
 * main() only orchestrates: arguments, config (validated completely before
 * EAL touches a port), EAL, mempool, ports, engine, telemetry, launch,
 * wait, drain, teardown, stats.  Forwarding is in sw_fwd_loop(); the
 * pipeline itself is the engine's.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>
#include <rte_spinlock.h>

#include "lb.h"
#include "ofan_clock.h"
#include "ofan_config.h"
#include "sw_config.h"
#include "sw_engine.h"
#include "sw_rx_rr.h"
#include "ofan_fs.h"
#include "ofan_port.h"
#include "ofan_shell.h"
#include "ofan_start.h"
#include "sw_stats.h"
#include "sw_telemetry.h"
#include "ofan_version.h"

#define SW_MAX_RXQ_PER_WORKER (SW_MAX_ETHPORTS * 16)


struct sw_app {
	const char *config_path;
	const char *stats_json;
	double duration_s;	/* 0 = until a signal */
	double idle_s;		/* 0 = never stop on idleness */
	uint32_t idle_sleep_us;	/* sleep this long after an empty round */
	bool start_set;		/* --start-at given, moment not known yet */
	bool hold_exit;		/* --hold-exit */
	int exit_code;		/* set by the main loop, else 0 */
	struct ofan_start start;	/* the schedule's start (epoch) */
	bool check_only;
	struct sw_config *cfg;
	struct sw_engine *eng;
	struct rte_mempool *pool;
	uint16_t port_id[SW_MAX_ETHPORTS];
	/* The devices' own counters, read just before the ports close. */
	struct ofan_dev_stats dev_stats[SW_MAX_ETHPORTS];
	bool port_started[SW_MAX_ETHPORTS];
	/*
	 * TX queues per port: one per forwarding lcore when the device has
	 * enough, otherwise lcores share them and take tx_lock around the
	 * burst (net_pcap, for one, has a single TX queue per file).
	 */
	uint16_t nb_txq[SW_MAX_ETHPORTS];
	bool tx_shared[SW_MAX_ETHPORTS];
	rte_spinlock_t tx_lock[SW_MAX_ETHPORTS][SW_MAX_WORKERS];
	struct ofan_clock clock;
	uint16_t nb_workers;	/* forwarding lcores (sw_open_pool) */
	int64_t inuse_start;	/* the pool's mbufs in use before the ports */
	uint64_t t0;		/* when forwarding started (sw_run), else 0 */
	bool pdump_on;		/* rte_pdump_init() succeeded */
	int hold_need;		/* --hold-exit: signals to wait for, 0: none */
};

/* What one forwarding lcore polls. */
struct sw_fwd_ctx {
	struct sw_app *app;
	struct sw_worker *w;
	uint16_t nb_rxq;
	uint16_t rx_port[SW_MAX_RXQ_PER_WORKER];	/* engine port */
	uint16_t rx_queue[SW_MAX_RXQ_PER_WORKER];
	uint16_t rx_next;	/* where the next round starts (sw_rx_rr.h) */
	bool is_main;		/* also runs control and stats */
	volatile uint64_t last_rx_ns;
};

static inline uint64_t
sw_now_ns(const struct sw_app *app)
{
	return ofan_clock_tsc_to_ns(&app->clock, rte_rdtsc());
}

/* The engine's link log: one line on stderr, with the switch's time. */
static void
sw_log_line(void *arg, uint64_t now_ns, const char *msg)
{
	RTE_SET_USED(arg);
	fprintf(stderr, "ofan-switch: t=%.6fs %s\n", (double)now_ns / 1e9, msg);
}

static void
sw_usage(FILE *f)
{
	fprintf(f,
		"usage: ofan-switch [EAL args] -- --config FILE [options]\n"
		"  --config FILE        switch configuration (see configs/)\n"
		"  --stats-json FILE    write JSON statistics at exit\n"
		"  --duration SEC       stop after SEC seconds\n"
		"  --stop-when-idle SEC stop once nothing was received for SEC\n"
		"                       seconds and every egress queue is empty\n"
		"  --idle-sleep US      low-CPU mode: after a round that received nothing\n"
		"                       and left every egress queue empty, sleep US\n"
		"                       microseconds (1..10000) instead of polling on;\n"
		"                       for several switches sharing few cores\n"
		"  --start-at EPOCH|@FILE  the schedule ([failure.*], [reroute.*])\n"
		"                       counts from this moment, in seconds since the Unix\n"
		"                       epoch (e.g. $(date -d '+10 sec' +%%s.%%N)), not from\n"
		"                       the switch's start: one start for every process of\n"
		"                       a testbed; @FILE: read it from FILE, a line, once\n"
		"                       FILE appears\n"
		"  --hold-exit          once stopped (by a signal, --duration or\n"
		"                       --stop-when-idle), stop polling but keep the ports\n"
		"                       until a further SIGINT or SIGTERM (at most 60 s),\n"
		"                       so that memif peers stop polling before any goes\n"
		"                       away (testbed/testbed.sh)\n"
		"  --check-config       validate the configuration and exit\n"
		"  --help               this text\n"
		"  --version            the version and exit\n"
		"  --config-reference   every config key, its range and default (Markdown)\n"
		"EAL example without hugepages or NICs:\n"
		"  ofan-switch --no-huge -m 512 --no-pci --file-prefix sw0 -l 0 -- --config configs/leaf-4x4.ini\n"
		"policies ([switch] policy = NAME):\n");
	lb_describe(f);
}

static int
sw_parse_seconds(const char *opt, const char *s, double *out)
{
	uint64_t ns;

	if (ofan_parse_double(s, out) == 0 && *out >= 0)
		return 0;
	if (ofan_parse_time(s, &ns) == 0) {
		*out = (double)ns / 1e9;
		return 0;
	}
	fprintf(stderr, "ofan-switch: %s: '%s' is not a duration; expected seconds (e.g. 5 or 0.5) or a time with unit (e.g. 500ms)\n",
		opt, s);
	return -EINVAL;
}

static int
sw_parse_args(struct sw_app *app, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "stats-json", required_argument, NULL, 'j' },
		{ "duration", required_argument, NULL, 'd' },
		{ "stop-when-idle", required_argument, NULL, 'i' },
		{ "check-config", no_argument, NULL, 'k' },
		{ "idle-sleep", required_argument, NULL, 's' },
		{ "start-at", required_argument, NULL, 'a' },
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
				fprintf(stderr, "ofan-switch: --start-at '%s' is not a moment; expected seconds since the Unix epoch, e.g. 1764633600.25 (date +%%s.%%N), or @FILE\n",
					optarg);
				return -EINVAL;
			}
			app->start_set = true;
			break;
		case 'j':
			app->stats_json = optarg;
			break;
		case 'd':
			if (sw_parse_seconds("--duration", optarg,
					     &app->duration_s))
				return -EINVAL;
			break;
		case 'i':
			if (sw_parse_seconds("--stop-when-idle", optarg,
					     &app->idle_s))
				return -EINVAL;
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
				fprintf(stderr, "ofan-switch: --idle-sleep '%s' is not a number of microseconds; expected 1 to 10000\n",
					optarg);
				return -EINVAL;
			}
			app->idle_sleep_us = (uint32_t)us;
			break;
		}
		case 'h':
			sw_usage(stdout);
			exit(0);
		default:
			sw_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ofan-switch: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	if (app->config_path == NULL) {
		fprintf(stderr, "ofan-switch: --config FILE is required (after --)\n");
		sw_usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* One burst to port's device from worker wid: its own TX queue, or a shared one. */
static inline uint16_t
sw_tx_burst(struct sw_app *app, uint16_t wid, uint16_t p,
	    struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t q, sent;

	if (likely(!app->tx_shared[p]))
		return rte_eth_tx_burst(app->port_id[p], wid, pkts, n);
	q = wid % app->nb_txq[p];
	rte_spinlock_lock(&app->tx_lock[p][q]);
	sent = rte_eth_tx_burst(app->port_id[p], q, pkts, n);
	rte_spinlock_unlock(&app->tx_lock[p][q]);
	return sent;
}

/* The engine's direct output ([queue] enabled = no): straight to the device. */
static uint16_t
sw_direct_tx(void *arg, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	struct sw_fwd_ctx *ctx = arg;

	return sw_tx_burst(ctx->app, sw_worker_id(ctx->w), port, pkts, n);
}

/* Drain every egress queue of w once: as much as the shaper and NIC allow. */
static inline void
sw_fwd_tx(struct sw_app *app, struct sw_worker *w, uint64_t now)
{
	struct rte_mbuf *pkts[SW_MAX_BURST];
	uint16_t p, n, sent;

	for (p = 0; p < app->cfg->nb_ports; p++) {
		if (sw_worker_tx_idle(w, p))
			continue;
		n = sw_worker_tx_peek(w, p, now, pkts, app->cfg->burst);
		if (n == 0)
			continue;
		sent = sw_tx_burst(app, sw_worker_id(w), p, pkts, n);
		sw_worker_tx_commit(w, p, now, pkts, n, sent);
	}
}

static bool
sw_queues_empty(const struct sw_worker *w, uint16_t nb_ports)
{
	uint16_t p;

	for (p = 0; p < nb_ports; p++)
		if (sw_worker_queue_len(w, p) != 0)
			return false;
	return true;
}

/* One polling round of a forwarding lcore, for sw_fwd_rx(). */
struct sw_fwd_round {
	struct sw_fwd_ctx *ctx;
	struct rte_mbuf **pkts;
	uint16_t burst;
	uint64_t now;
};

/* RX queue i of the lcore: a burst into the engine (sw_rx_poll_fn). */
static inline uint16_t
sw_fwd_rx(void *arg, uint16_t i)
{
	const struct sw_fwd_round *r = arg;
	struct sw_fwd_ctx *ctx = r->ctx;
	uint16_t n = rte_eth_rx_burst(ctx->app->port_id[ctx->rx_port[i]],
				      ctx->rx_queue[i], r->pkts, r->burst);

	if (n != 0) {
		ctx->last_rx_ns = r->now;
		sw_worker_input(ctx->w, ctx->rx_port[i], r->pkts, n, r->now);
	}
	return n;
}

/*
 * One polling round of a forwarding lcore: a burst from every RX queue,
 * round robin (sw_rx_rr.h: under overload the inputs share the egress
 * queues' room, and the drops, evenly), then TX.  Returns the packets
 * received.
 */
static inline uint32_t
sw_fwd_once(struct sw_fwd_ctx *ctx, uint64_t now)
{
	struct rte_mbuf *pkts[SW_MAX_BURST];
	struct sw_fwd_round r = {
		.ctx = ctx,
		.pkts = pkts,
		.burst = ctx->app->cfg->burst,
		.now = now,
	};
	uint32_t total;

	total = sw_rx_rr_round(&ctx->rx_next, ctx->nb_rxq, sw_fwd_rx, &r);
	sw_fwd_tx(ctx->app, ctx->w, now);
	return total;
}

/*
 * Low-CPU mode: after an empty round with nothing queued, give the core
 * away for a while (a sleep, not a spin), so that several switches and
 * hosts can share two cores.  Latency grows by up to the sleep.
 */
static inline void
sw_fwd_idle(const struct sw_fwd_ctx *ctx, uint32_t nb_rx)
{
	const struct sw_app *app = ctx->app;

	if (app->idle_sleep_us == 0 || nb_rx != 0 ||
	    !sw_queues_empty(ctx->w, app->cfg->nb_ports))
		return;
	rte_delay_us_sleep(app->idle_sleep_us);
}

/* Body of a worker lcore. */
static int
sw_fwd_loop(void *arg)
{
	struct sw_fwd_ctx *ctx = arg;

	while (!ofan_shell_quit)
		sw_fwd_idle(ctx, sw_fwd_once(ctx, sw_now_ns(ctx->app)));
	return 0;
}

/*
 * Drain what is still queued after the stop, bounded: a shaped queue of a
 * slow link might take long, and anything left is freed (and counted) by
 * sw_engine_free().
 */
static void
sw_fwd_drain(struct sw_app *app, struct sw_worker *w)
{
	uint64_t start = sw_now_ns(app), now;

	do {
		now = sw_now_ns(app);
		sw_fwd_tx(app, w, now);
	} while (!sw_queues_empty(w, app->cfg->nb_ports) &&
		 now - start < 100 * OFAN_NS_PER_MS);
}

/*
 * --start-at: once the moment is known, the schedule counts from it (on
 * this switch's clock); until then it waits.  Returns 1 once known, 0 if
 * not yet (@FILE is not there), -EINVAL if @FILE holds no moment.
 */
static int
sw_poll_start(struct sw_app *app)
{
	char err[OFAN_START_PATH_SIZE + 128];
	int64_t start;
	int rc = ofan_start_poll(&app->start, err, sizeof(err));

	if (rc <= 0) {
		if (rc < 0)
			fprintf(stderr, "ofan-switch: --start-at %s\n", err);
		sw_engine_set_schedule_start(app->eng, SW_SCHEDULE_HELD);
		return rc;
	}
	start = ofan_clock_at_epoch(sw_now_ns(app), ofan_epoch_ns(),
				    app->start.at_ns);
	sw_engine_set_schedule_start(app->eng, start);
	app->start_set = false;
	fprintf(stderr, "%s: the schedule starts at t=%.6fs (--start-at)\n",
		app->cfg->name, (double)start / 1e9);
	return 1;
}

/*
 * The main lcore: forwards too when there are no worker lcores, runs the
 * control plane, prints status lines and ends the run.
 */
static void
sw_main_loop(struct sw_app *app, struct sw_fwd_ctx *ctxs, uint16_t nb_ctx,
	     struct sw_fwd_ctx *main_ctx)
{
	const uint64_t interval = app->cfg->stats_interval_ns;
	uint64_t start = sw_now_ns(app), now, next_stat = start + interval;
	uint64_t last_stat = start, idle_ns = (uint64_t)(app->idle_s * 1e9);
	uint64_t end = app->duration_s > 0 ?
		start + (uint64_t)(app->duration_s * 1e9) : UINT64_MAX;
	struct sw_totals *prev = calloc(1, sizeof(*prev));
	uint16_t i;

	uint64_t last_ctl = 0, last_start_poll = start;

	while (!ofan_shell_quit) {
		now = sw_now_ns(app);
		if (main_ctx != NULL)
			sw_fwd_idle(main_ctx, sw_fwd_once(main_ctx, now));
		else
			rte_delay_us_sleep(50);
		/* Waiting for @FILE: a look every 10 ms. */
		if (app->start_set &&
		    now - last_start_poll >= 10 * OFAN_NS_PER_MS) {
			last_start_poll = now;
			if (sw_poll_start(app) < 0) {
				app->exit_code = OFAN_EXIT_CONFIG;
				ofan_shell_quit = 1;	/* the workers too */
				break;
			}
		}
		if (now - last_ctl >= 10 * OFAN_NS_PER_US) {
			sw_engine_control(app->eng, now);
			last_ctl = now;
		}
		if (interval > 0 && now >= next_stat && prev != NULL) {
			sw_stats_status_line(stderr, app->eng, prev,
					     (double)(now - start) / 1e9,
					     (double)(now - last_stat) / 1e9);
			last_stat = now;
			next_stat += interval;
		}
		if (now >= end)
			break;
		if (idle_ns > 0) {
			bool idle = true;

			for (i = 0; i < nb_ctx && idle; i++)
				idle = now - ctxs[i].last_rx_ns >= idle_ns &&
				       sw_queues_empty(ctxs[i].w,
						       app->cfg->nb_ports);
			if (idle)
				break;
		}
	}
	ofan_shell_quit = 1;
	free(prev);
}

static int
sw_create_pool(struct sw_app *app, uint16_t nb_workers)
{
	const struct sw_config *c = app->cfg;
	uint64_t n = c->nb_mbufs;
	uint16_t p;

	if (n == 0) {
		for (p = 0; p < c->nb_ports; p++) {
			const struct sw_port_config *pc = &c->ports[p];

			n += (uint64_t)pc->nb_rxd * pc->nb_rx_queues;
			n += (uint64_t)pc->nb_txd * nb_workers;
			n += (uint64_t)(pc->queue.enabled ?
				pc->queue.capacity_pkts :
				(uint32_t)c->burst * SW_MAX_ETHPORTS) * nb_workers;
		}
		n += (uint64_t)nb_workers * (512 + 2 * SW_MAX_BURST);
		if (n > (1u << 22))
			n = 1u << 22;
	}
	app->pool = rte_pktmbuf_pool_create("ofan_sw_pool", (unsigned int)n,
					    256, 0,
					    RTE_MBUF_DEFAULT_BUF_SIZE,
					    rte_socket_id());
	if (app->pool == NULL) {
		fprintf(stderr, "ofan-switch: cannot create a pool of %llu mbufs: %s. Hint: with --no-huge give EAL more memory (-m 1024), or mount hugepages (mount -t hugetlbfs nodev /dev/hugepages; echo 1024 > /proc/sys/vm/nr_hugepages), or lower [switch] mbufs / queue sizes\n",
			(unsigned long long)n, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

static int
sw_setup_ports(struct sw_app *app, uint16_t nb_workers, uint8_t (*macs)[6])
{
	const struct sw_config *c = app->cfg;
	struct ofan_port_conf pc[SW_MAX_ETHPORTS];
	char err[512];
	uint16_t p, q;
	int rc;

	for (p = 0; p < c->nb_ports; p++)
		pc[p] = (struct ofan_port_conf){
			.dev = c->ports[p].dev,
			.nb_rxq = c->ports[p].nb_rx_queues,
			.nb_txq = nb_workers,
			.nb_rxd = c->ports[p].nb_rxd,
			.nb_txd = c->ports[p].nb_txd,
		};
	rc = ofan_ports_open(pc, c->nb_ports, app->pool, app->port_id,
			     app->nb_txq, app->port_started, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "ofan-switch: %s:%s\n", c->path, err);
		return rc;
	}
	for (p = 0; p < c->nb_ports; p++) {
		struct rte_ether_addr a;

		app->tx_shared[p] = app->nb_txq[p] < nb_workers;
		for (q = 0; q < SW_MAX_WORKERS; q++)
			rte_spinlock_init(&app->tx_lock[p][q]);
		rte_eth_macaddr_get(app->port_id[p], &a);
		memcpy(macs[p], a.addr_bytes, 6);
	}
	return 0;
}

/*
 * PFC on the lossless ports ([queue] pfc = yes): the NIC's own
 * (rte_eth_dev_priority_flow_ctrl_set) unless pfc_mode = software, the
 * engine's where the NIC has none (the virtual PMDs) and pfc_mode is
 * auto; each port's choice is logged.  The engine times pauses at the
 * link's speed (100 Gb/s when the device does not say).
 */
static int
sw_setup_pfc(struct sw_app *app)
{
	const struct sw_config *c = app->cfg;
	uint16_t p;

	for (p = 0; p < c->nb_ports; p++) {
		const struct sw_queue_config *q = &c->ports[p].queue;
		struct rte_eth_pfc_conf pfc;
		struct rte_eth_link link;
		uint64_t rate = 100000000000ull, xoff, xon, room;
		int rc = -ENOTSUP;

		if (!q->pfc)
			continue;
		if (rte_eth_link_get_nowait(app->port_id[p], &link) == 0 &&
		    link.link_speed != 0 &&
		    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
			rate = (uint64_t)link.link_speed * 1000000ull;
		if (q->rate_bps != 0)
			rate = q->rate_bps;
		sw_engine_set_pfc_link(app->eng, p, rate, 0, 9216);
		if (q->pfc_mode != SW_PFC_SOFTWARE) {
			memset(&pfc, 0, sizeof(pfc));
			pfc.fc.mode = RTE_ETH_FC_FULL;
			pfc.fc.high_water = (uint32_t)(q->pfc_xoff_bytes / 1024);
			pfc.fc.low_water = (uint32_t)(q->pfc_xon_bytes / 1024);
			pfc.fc.pause_time = q->pfc_quanta;
			pfc.fc.send_xon = 1;
			pfc.priority = q->pfc_priority;
			rc = rte_eth_dev_priority_flow_ctrl_set(app->port_id[p],
								&pfc);
		}
		if (rc == 0) {
			sw_engine_set_pfc_nic(app->eng, p);
			fprintf(stderr, "%s: port %u: PFC by the NIC (priority %u)\n",
				c->name, p, q->pfc_priority);
			continue;
		}
		if (q->pfc_mode == SW_PFC_NIC) {
			fprintf(stderr, "ofan-switch: %s:port.%u:pfc_mode: 'nic', but %s cannot: %s; expected pfc_mode = auto or software\n",
				c->path, p, c->ports[p].dev, strerror(-rc));
			return -ENOTSUP;
		}
		sw_engine_pfc_limits(app->eng, p, &xoff, &xon, &room);
		fprintf(stderr, "%s: port %u: PFC in software (priority %u, xoff %" PRIu64 " B, xon %" PRIu64 " B, headroom %" PRIu64 " B, the NIC's: %s)\n",
			c->name, p, q->pfc_priority, xoff, xon, room,
			q->pfc_mode == SW_PFC_SOFTWARE ? "not asked" :
			strerror(-rc));
	}
	return 0;
}

/* Hand out (port, RX queue) pairs round robin over the forwarding lcores. */
static void
sw_assign_queues(struct sw_app *app, struct sw_fwd_ctx *ctxs, uint16_t nb)
{
	const struct sw_config *c = app->cfg;
	uint16_t p, q, k = 0;

	for (p = 0; p < c->nb_ports; p++)
		for (q = 0; q < c->ports[p].nb_rx_queues; q++) {
			struct sw_fwd_ctx *x = &ctxs[k++ % nb];

			x->rx_port[x->nb_rxq] = p;
			x->rx_queue[x->nb_rxq] = q;
			x->nb_rxq++;
		}
}

/*
 * Where the packets went, on stderr at exit: a line per port and the drop
 * reasons that counted anything (the JSON has everything).
 */
static void
sw_print_summary(struct sw_app *app, double elapsed)
{
	struct sw_totals *t = malloc(sizeof(*t));
	uint16_t p;
	int r;

	if (t == NULL)
		return;
	sw_engine_totals(app->eng, t);
	fprintf(stderr, "%s: %.3f s; per port rx / tx / dropped:\n",
		app->cfg->name, elapsed);
	for (p = 0; p < app->cfg->nb_ports; p++) {
		const struct ofan_dev_stats *d = &app->dev_stats[p];

		/* Each drop once: at its input before a port was picked,
		 * else at its egress port. */
		fprintf(stderr, "  port %u (%s): rx %" PRIu64 " tx %" PRIu64
			" drop %" PRIu64, p, app->cfg->ports[p].dev,
			t->port[p].rx_pkts, t->port[p].tx_pkts,
			t->port[p].drops + t->port[p].egress_drops);
		if (t->port[p].rx_dropped_at_egress != 0)
			fprintf(stderr, "; of its rx, %" PRIu64
				" dropped at egress ports",
				t->port[p].rx_dropped_at_egress);
		/* What the device lost before the switch saw it. */
		if (d->valid && (ofan_dev_rx_lost(d) != 0 || d->oerrors != 0))
			fprintf(stderr, "; device: missed %" PRIu64
				" errors %" PRIu64 " no mbuf %" PRIu64
				" tx errors %" PRIu64, d->imissed, d->ierrors,
				d->rx_nombuf, d->oerrors);
		fputc('\n', stderr);
	}
	for (r = 0; r < OFAN_DROP_MAX; r++)
		if (t->drops[r] != 0)
			fprintf(stderr, "  dropped, %s: %" PRIu64 "\n",
				ofan_drop_name(r), t->drops[r]);
	free(t);
}

static void
sw_write_stats(struct sw_app *app, double elapsed, uint16_t nb_workers,
	       int64_t inuse_start, int64_t inuse_end)
{
	const char *devs[SW_MAX_ETHPORTS];
	struct sw_stats_extra x = {
		.elapsed_s = elapsed,
		.nb_workers = nb_workers,
		.mempool_in_use_start = inuse_start,
		.mempool_in_use_end = inuse_end,
		.port_devs = devs,
		.dev = app->dev_stats,
	};
	FILE *f;
	uint16_t p;

	for (p = 0; p < app->cfg->nb_ports; p++)
		devs[p] = app->cfg->ports[p].dev;
	if (app->stats_json == NULL)
		return;
	f = fopen(app->stats_json, "w");
	if (f == NULL) {
		fprintf(stderr, "ofan-switch: cannot write %s: %s\n",
			app->stats_json, strerror(errno));
		return;
	}
	if (sw_stats_write_json(f, app->eng, &x) != 0)
		fprintf(stderr, "ofan-switch: error writing %s\n",
			app->stats_json);
	fclose(f);
}

/*
 * --config-reference: every config key, its range and default, as
 * Markdown on stdout.  Returns the exit status.
 */
static int
sw_print_reference(void)
{
	char err[1024];

	if (sw_config_reference(stdout, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-switch: --config-reference: %s\n", err);
		return OFAN_EXIT_FAILED;
	}
	return OFAN_EXIT_OK;
}

/* sw_configure(): the configuration is good, on to EAL. */
#define SW_CONTINUE (-1)

/*
 * Everything before EAL: the arguments (split at "--" into sh) and the
 * whole configuration, loaded into app->cfg and validated.  Returns
 * SW_CONTINUE with app->cfg held for the caller to free, or the exit
 * status when the process ends here (--help, a mistake, --check-config),
 * with app->cfg already freed.
 */
static int
sw_configure(struct sw_app *app, struct ofan_shell *sh, int argc,
	     char **argv)
{
	char err[1024];
	int rc;

	/* Application arguments follow "--"; everything before is EAL's. */
	rc = ofan_shell_args(sh, "ofan-switch", argc, argv, sw_usage);
	if (rc != 0)
		return rc > 0 ? OFAN_EXIT_OK : OFAN_EXIT_CONFIG;
	if (sw_parse_args(app, argc - sh->eal_argc, argv + sh->eal_argc) != 0)
		return OFAN_EXIT_CONFIG;

	/* The whole configuration is validated before EAL starts. */
	app->cfg = malloc(sizeof(*app->cfg));
	if (app->cfg == NULL)
		return OFAN_EXIT_FAILED;
	if (sw_config_load(app->config_path, app->cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-switch: %s\n", err);
		free(app->cfg);
		return OFAN_EXIT_CONFIG;
	}
	if (app->check_only) {
		printf("%s: ok (%u ports, %u groups, %u routes, policy %s)\n",
		       app->config_path, app->cfg->nb_ports,
		       app->cfg->nb_groups, app->cfg->nb_routes,
		       app->cfg->policy->name);
		free(app->cfg);
		return OFAN_EXIT_OK;
	}
	return SW_CONTINUE;
}

/*
 * The forwarding lcores (every worker lcore, or the main one alone) and
 * the mbuf pool for them; app->nb_workers and app->inuse_start are set.
 * Returns the exit status: OFAN_EXIT_OK, or an error with no pool made
 * (nothing for sw_teardown() to do; EAL is the caller's).
 */
static int
sw_open_pool(struct sw_app *app)
{
	unsigned int lcore;

	app->nb_workers = 0;
	RTE_LCORE_FOREACH_WORKER(lcore)
		app->nb_workers++;
	if (app->nb_workers == 0)
		app->nb_workers = 1;	/* the main lcore forwards */
	if (app->nb_workers > SW_MAX_WORKERS) {
		fprintf(stderr, "ofan-switch: %u worker lcores; at most %d are supported\n",
			app->nb_workers, SW_MAX_WORKERS);
		return OFAN_EXIT_CONFIG;
	}
	if (sw_create_pool(app, app->nb_workers) != 0)
		return OFAN_EXIT_FAILED;
	app->inuse_start = rte_mempool_in_use_count(app->pool);
	return OFAN_EXIT_OK;
}

/*
 * Ports, engine, PFC, the schedule's start (--start-at), then telemetry
 * and packet capture, which the switch runs without if it must.  Returns
 * the exit status: OFAN_EXIT_OK, or an error with what is up so far (the
 * open ports, app->eng if made) left for sw_teardown() to release.
 */
static int
sw_bring_up(struct sw_app *app)
{
	uint8_t macs[SW_MAX_ETHPORTS][6];
	char err[1024];

	if (sw_setup_ports(app, app->nb_workers, macs) != 0)
		return OFAN_EXIT_CONFIG;
	app->eng = sw_engine_create(app->cfg, app->nb_workers,
				    (const uint8_t (*)[6])macs,
				    rte_socket_id(), err, sizeof(err));
	if (app->eng == NULL) {
		fprintf(stderr, "ofan-switch: %s\n", err);
		return OFAN_EXIT_FAILED;
	}
	sw_engine_set_log(app->eng, sw_log_line, NULL);
	if (sw_setup_pfc(app) != 0)
		return OFAN_EXIT_CONFIG;
	if (app->start_set && sw_poll_start(app) < 0)
		return OFAN_EXIT_CONFIG;
	if (sw_telemetry_register(app->eng, app->port_id) != 0)
		fprintf(stderr, "ofan-switch: telemetry commands unavailable\n");
	/* dpdk-dumpcap attaches as a secondary; that needs hugepages. */
	app->pdump_on = rte_pdump_init() == 0;
	if (!app->pdump_on)
		fprintf(stderr, "ofan-switch: packet capture (rte_pdump) unavailable: %s\n",
			rte_strerror(rte_errno));
	return OFAN_EXIT_OK;
}

/*
 * The run: a context per forwarding lcore, the workers launched (or the
 * main lcore forwarding alone), the main loop until the end, then the
 * wait for the workers, the drain of what is queued and the telemetry
 * commands gone.  Sets app->t0 and app->hold_need.  Returns the exit
 * status the main loop left (OFAN_EXIT_OK unless it failed).
 */
static int
sw_run(struct sw_app *app)
{
	static struct sw_fwd_ctx ctxs[SW_MAX_WORKERS];
	struct sw_fwd_ctx *main_ctx = NULL;
	unsigned int lcore;
	uint16_t wid;

	for (wid = 0; wid < app->nb_workers; wid++) {
		ctxs[wid].app = app;
		ctxs[wid].w = sw_engine_worker(app->eng, wid);
		sw_worker_set_direct_tx(ctxs[wid].w, sw_direct_tx, &ctxs[wid]);
	}
	sw_assign_queues(app, ctxs, app->nb_workers);
	fprintf(stderr, "%s: policy %s, %u ports, %u forwarding lcore(s)\n",
		app->cfg->name, app->cfg->policy->name, app->cfg->nb_ports,
		app->nb_workers);
	app->t0 = sw_now_ns(app);
	for (wid = 0; wid < app->nb_workers; wid++)
		ctxs[wid].last_rx_ns = app->t0;
	if (rte_lcore_count() == 1) {
		main_ctx = &ctxs[0];
		main_ctx->is_main = true;
	} else {
		wid = 0;
		RTE_LCORE_FOREACH_WORKER(lcore)
			rte_eal_remote_launch(sw_fwd_loop, &ctxs[wid++], lcore);
	}
	sw_main_loop(app, ctxs, app->nb_workers, main_ctx);
	/* --hold-exit: a signal stopped it, so the next one lets go. */
	app->hold_need = ofan_shell_signals > 0 ? 2 : 1;
	rte_eal_mp_wait_lcore();

	/* What is still queued goes out before sw_teardown() closes ports. */
	for (wid = 0; wid < app->nb_workers; wid++)
		sw_fwd_drain(app, ctxs[wid].w);
	sw_telemetry_unregister();
	return app->exit_code != 0 ? app->exit_code : OFAN_EXIT_OK;
}

/*
 * Undo sw_open_pool() and sw_bring_up(), however far they got: the
 * engine's queues freed, the devices' counters read, the ports held
 * (--hold-exit, after a run) and closed, capture stopped, the statistics
 * written and summed up, the leak check, the engine and pool freed.
 * Returns exit_code, or OFAN_EXIT_LEAK if mbufs leaked; EAL is left to
 * the caller (sh->keep_eal says whether a port still needs it).
 */
static int
sw_teardown(struct sw_app *app, struct ofan_shell *sh, int exit_code)
{
	int64_t inuse_end;
	uint16_t p;

	if (app->eng != NULL)
		sw_engine_free_queues(app->eng);
	for (p = 0; p < app->cfg->nb_ports; p++)
		if (app->port_started[p])
			ofan_port_dev_stats(app->port_id[p],
					    &app->dev_stats[p]);
	if (app->hold_exit && app->hold_need > 0)
		ofan_ports_hold("ofan-switch", &ofan_shell_signals,
				app->hold_need);
	sh->keep_eal = ofan_ports_close(app->port_id, app->port_started,
					app->cfg->nb_ports);
	/*
	 * After the ports: closing polls them once more, which runs an
	 * attached capture's callbacks; uninit frees what they use.
	 */
	if (app->pdump_on)
		rte_pdump_uninit();
	if (app->pool != NULL) {
		inuse_end = rte_mempool_in_use_count(app->pool);
		if (app->eng != NULL) {
			double el = (double)(sw_now_ns(app) - app->t0) / 1e9;

			sw_write_stats(app, el, app->nb_workers,
				       app->inuse_start, inuse_end);
			sw_print_summary(app, el);
		}
		if (!ofan_shell_no_leak(sh, app->inuse_start, inuse_end))
			exit_code = OFAN_EXIT_LEAK;
	}
	sw_engine_free(app->eng);
	rte_mempool_free(app->pool);
	return exit_code;
}

int
main(int argc, char **argv)
{
	struct ofan_shell sh = { 0 };
	struct sw_app app;
	int exit_code;

	if (ofan_version_asked(argc, argv))
		return ofan_version_print("ofan-switch");
	if (argc == 2 && strcmp(argv[1], "--config-reference") == 0)
		return sw_print_reference();
	memset(&app, 0, sizeof(app));
	exit_code = sw_configure(&app, &sh, argc, argv);
	if (exit_code != SW_CONTINUE)
		return exit_code;
	if (ofan_shell_eal_init(&sh, argv) != 0) {
		free(app.cfg);
		return OFAN_EXIT_FAILED;
	}
	ofan_clock_init_tsc(&app.clock, rte_get_tsc_hz(), rte_rdtsc());

	exit_code = sw_open_pool(&app);
	if (exit_code == OFAN_EXIT_OK) {
		exit_code = sw_bring_up(&app);
		if (exit_code == OFAN_EXIT_OK)
			exit_code = sw_run(&app);
		exit_code = sw_teardown(&app, &sh, exit_code);
	}
	ofan_shell_exit(&sh);
	free(app.cfg);
	return exit_code;
}
