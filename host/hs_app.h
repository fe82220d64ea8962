/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-host's runtime (hs_runtime.c): the application state main.c fills
 * from the command line and the config, and what runs it -- the lcores
 * and shards of every rank, the rings between a rank's shards, the ports,
 * the loops, the common start and the end of the run.  Private to the
 * ofan-host binary; the host engine itself is hs_host.h.
 */
#ifndef OFAN_HS_APP_H
#define OFAN_HS_APP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "hs_config.h"
#include "hs_host.h"
#include "hs_shard.h"
#include "hs_traffic.h"
#include "hs_workload.h"
#include "ofan_clock.h"
#include "ofan_devstats.h"
#include "ofan_start.h"

#define HS_BURST 32
#define HS_SHARD_RING 1024	/* frames between a rank's shards */
#define HS_PUBLISH_NS (100 * OFAN_NS_PER_MS)	/* shards' progress */

/* A flow to start, handed to the shard that sends it (bit 63: a dep). */
#define HS_MSG_DEP (1ull << 63)
#define HS_NO_TXQ UINT16_MAX

struct hs_port_rt;

/*
 * One shard of a rank: a host engine on one lcore (hs_shard.h).  A whole
 * rank on the main lcore is shard 0 of 1.  What its lcore alone writes
 * and others read (progress, done, last reception) is published with
 * atomic stores.
 */
struct hs_shard_rt {
	struct hs_host *h;
	struct hs_port_rt *port;
	uint16_t index;
	unsigned int lcore;
	uint16_t rxq;		/* steer = rss: its RX queue */
	uint16_t txq;		/* its TX queue; HS_NO_TXQ: port->tx_ring */
	struct rte_ring *rx_ring;	/* software steering: frames for it */
	struct rte_ring *msgs;	/* flows to start, from any lcore */
	uint64_t tx_dropped;	/* refused by the device or the TX ring */
	uint64_t next_progress;	/* when it next publishes its progress */
	/* published */
	uint64_t pub_acked;
	uint64_t pub_total;
	uint64_t pub_retx;
	uint64_t pub_last_rx;
	bool pub_done;
};

/* A port: its rank and the shards it spreads over. */
struct hs_port_rt {
	uint16_t id;		/* ethdev */
	uint16_t nb_shards;
	bool software;		/* shard 0 polls every RX queue, hands out */
	uint16_t nb_rxq;
	uint16_t reta_size;
	struct rte_ring *tx_ring;	/* shards without a TX queue -> shard 0 */
	uint32_t rank_active;	/* the rank's active flows, every shard */
	uint64_t steer_full;	/* frames dropped on a full shard ring */
	struct hs_host_shard sh[HS_MAX_SHARDS];
	struct hs_shard_rt shard[HS_MAX_SHARDS];
};

/* What one lcore runs: shards of one or more ranks. */
struct hs_lcore {
	struct hs_app *app;
	unsigned int lcore;
	uint16_t nb;
	struct hs_shard_rt *shard[HS_MAX_PORTS];
};

struct hs_app {
	const char *config_path;
	const char *results;
	double timeout_s;
	uint32_t idle_sleep_us;	/* low-CPU mode: sleep up to this when idle */
	bool start_set;		/* --start-at: the traffic starts then */
	struct ofan_start start;
	bool hold_exit;		/* --hold-exit */
	bool check_only;
	struct hs_config *cfg;
	struct hs_traffic traffic;
	/* Training jobs: the workload the traffic's flows belong to, or NULL
	 * (this program owns it; hs_app_free_traffic). */
	struct hs_workload *workload;
	struct rte_mempool *pool;
	uint16_t port_id[HS_MAX_PORTS];
	bool port_started[HS_MAX_PORTS];
	/* The devices' own counters, read just before the ports close. */
	struct ofan_dev_stats dev_stats[HS_MAX_PORTS];
	struct hs_port_rt port[HS_MAX_PORTS];
	/* Every shard's host, ports in order, for the results. */
	struct hs_host *hosts[HS_MAX_PORTS * HS_MAX_SHARDS];
	uint16_t nb_hosts;
	int32_t *host_of_rank;	/* rank -> port index, -1: not ours */
	struct hs_trigger_state trig;
	rte_spinlock_t trig_lock;	/* triggers fire on any lcore */
	/*
	 * Training jobs ([traffic] pattern = jobs): the workload engine for
	 * this process's ranks (under trig_lock: flows end on any lcore),
	 * and per traffic rank the time its compute timer fires
	 * (UINT64_MAX: none), which the main lcore watches.
	 */
	struct hs_wl_run wl;
	bool has_wl;
	uint64_t *wl_timer;
	/* More than one lcore runs shards: flows start through messages. */
	bool threaded;
	struct hs_lcore lc[RTE_MAX_LCORE];
	volatile bool stop;	/* the main lcore ends the run */
	struct ofan_clock clock;
};

static inline uint64_t
hs_app_now_ns(const struct hs_app *app)
{
	return ofan_clock_tsc_to_ns(&app->clock, rte_rdtsc());
}

/*
 * [port.N] lcores name lcores EAL runs: checked before any port is
 * touched.  Fills each port's shard count and each shard's lcore, and
 * app->threaded.  0 or -EINVAL (said on stderr).
 */
int hs_app_plan_lcores(struct hs_app *app);

/*
 * The mbuf pool, the ports, the shards' rings and host engines.  0, or
 * -errno once it said why on stderr (what was set up stays, for the
 * teardown: hs_app_free_rings(), ofan_ports_close(), hs_host_free()).
 */
int hs_app_setup(struct hs_app *app);

/* The rings between shards (after the ports closed), idempotent. */
void hs_app_free_rings(struct hs_app *app);

/*
 * Training jobs: the workload engine for this process's ranks (it only
 * starts their flows and times their compute).  0 or -ENOMEM.
 */
int hs_app_wl_init(struct hs_app *app);
void hs_app_wl_fini(struct hs_app *app);

/* Free the traffic and the workload its flows belong to. */
void hs_app_free_traffic(struct hs_app *app);

/*
 * The jobs' results of this process's ranks: PREFIX-jobs.csv (each
 * iteration whose ranks are all here) and PREFIX-job-nodes.csv (the
 * timeline of every node here), and a line per job on stdout.  0 or
 * -errno.
 */
int hs_app_wl_results(struct hs_app *app, const char *prefix, int len);

/*
 * --start-at: wait, without polling the ports, for the testbed's common
 * start.  0 then, -EINTR on a signal, -EINVAL if @FILE holds no moment,
 * -ETIME if that moment had passed when it became known.
 */
int hs_app_wait_start(struct hs_app *app);

/*
 * Run every shard until done, timeout or signal (ofan_shell_quit): the
 * main lcore's own shards, the others on their worker lcores.  Returns
 * true if every local flow is done.
 */
bool hs_app_run(struct hs_app *app);

#endif /* OFAN_HS_APP_H */
