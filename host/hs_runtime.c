/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-host's runtime (hs_app.h): a rank's shards on their lcores, the
 * rings between them, flows handed to the shard that sends them, the
 * ports, the per-lcore loops, progress lines, the common start and the
 * run until done, timeout or signal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "hs_app.h"
#include "ofan_port.h"
#include "ofan_shell.h"
#include "ofan_wire.h"

_Static_assert(HS_MAX_LCORE == RTE_MAX_LCORE,
	       "hs_config.h's HS_MAX_LCORE is DPDK's RTE_MAX_LCORE");

/*
 * Start flow on shard of the rank that sends it (any lcore may call
 * this): at once on one lcore, else through the shard's message ring.
 */
static void
hs_hand_over(struct hs_app *app, uint32_t flow, uint16_t shard,
	     uint64_t kind, uint64_t now)
{
	const struct hs_flow_spec *f = &app->traffic.flows[flow];
	struct hs_shard_rt *sr =
		&app->port[app->host_of_rank[f->src]].shard[shard];
	uint64_t msg = kind | flow;

	if (!app->threaded) {
		if (kind == HS_MSG_DEP)
			hs_host_release_dep(sr->h, flow, now);
		else
			hs_host_release(sr->h, flow, now);
		return;
	}
	/* Sized for every flow the rank sends: each starts once. */
	if (rte_ring_mp_enqueue_elem(sr->msgs, &msg, sizeof(msg)) != 0)
		fprintf(stderr, "ofan-host: flow %u could not be handed to its shard; it will not start\n",
			flow);
}

/* A shard received what a flow sent by another shard depends on. */
static void
hs_on_dep_release(void *arg, uint16_t shard, uint32_t flow, uint64_t now)
{
	hs_hand_over(arg, flow, shard, HS_MSG_DEP, now);
}

/*
 * A local flow ended that activates a trigger: start what it releases
 * (every such flow is local: hs_check_triggers()).
 */
static void
hs_app_on_flow_end(void *arg, uint32_t flow, bool received, uint64_t now)
{
	struct hs_app *app = arg;
	const struct hs_flow_spec *f = &app->traffic.flows[flow];
	const uint32_t *go;
	uint32_t n, i;

	rte_spinlock_lock(&app->trig_lock);
	if (app->has_wl) {
		hs_wl_run_flow_end(&app->wl, flow, received, now);
		rte_spinlock_unlock(&app->trig_lock);
		return;
	}
	n = hs_trigger_activate(&app->traffic, &app->trig, received ?
				f->recv_done_trigger : f->send_done_trigger,
				&go);
	for (i = 0; i < n; i++) {
		const struct hs_flow_spec *g = &app->traffic.flows[go[i]];
		const struct hs_port_rt *pr;

		if (app->host_of_rank[g->src] < 0)
			continue;
		/* Its send side lives where its ACKs come from. */
		pr = &app->port[app->host_of_rank[g->src]];
		hs_hand_over(app, go[i], hs_shard_of_ip(hs_rank_ip(&app->cfg->set,
			g->dst), pr->nb_shards, pr->reta_size), 0, now);
	}
	rte_spinlock_unlock(&app->trig_lock);
}

/* ---- training jobs ---- */

/* The workload starts flow: hand it to its shard, if its rank is ours. */
static void
hs_app_wl_release(void *arg, uint32_t flow, uint64_t now)
{
	struct hs_app *app = arg;
	const struct hs_flow_spec *g = &app->traffic.flows[flow];
	const struct hs_port_rt *pr;

	if (app->host_of_rank[g->src] < 0)
		return;
	pr = &app->port[app->host_of_rank[g->src]];
	hs_hand_over(app, flow, hs_shard_of_ip(hs_rank_ip(&app->cfg->set, g->dst),
					       pr->nb_shards, pr->reta_size),
		     0, now);
}

/* The workload's compute timer of rank host, if the rank is ours. */
static void
hs_app_wl_timer(void *arg, uint32_t host, uint64_t at)
{
	struct hs_app *app = arg;

	if (app->host_of_rank[host] >= 0)
		__atomic_store_n(&app->wl_timer[host], at, __ATOMIC_RELEASE);
}

int
hs_app_wl_init(struct hs_app *app)
{
	const struct hs_wl_driver drv = {
		.release = hs_app_wl_release, .timer = hs_app_wl_timer,
		.arg = app,
	};
	uint32_t r;

	if (app->workload == NULL)
		return 0;
	app->wl_timer = malloc(sizeof(uint64_t) * app->traffic.nb_ranks);
	if (app->wl_timer == NULL ||
	    hs_wl_run_init(&app->wl, app->workload, &drv) != 0) {
		free(app->wl_timer);
		app->wl_timer = NULL;
		return -ENOMEM;
	}
	for (r = 0; r < app->traffic.nb_ranks; r++)
		app->wl_timer[r] = UINT64_MAX;
	app->has_wl = true;
	return 0;
}

void
hs_app_free_traffic(struct hs_app *app)
{
	hs_traffic_free(&app->traffic);
	if (app->workload != NULL) {
		hs_wl_free(app->workload);
		free(app->workload);
		app->workload = NULL;
	}
}

void
hs_app_wl_fini(struct hs_app *app)
{
	if (app->has_wl)
		hs_wl_run_fini(&app->wl);
	free(app->wl_timer);
	app->wl_timer = NULL;
	app->has_wl = false;
}

/*
 * The main lcore: fire the compute timers that are due; lower *wake to
 * the next.  True when every rank of this process ended its job.
 */
static bool
hs_app_wl_poll(struct hs_app *app, uint64_t now, uint64_t *wake)
{
	bool done = true;
	uint16_t p;

	for (p = 0; p < app->cfg->nb_ports; p++) {
		uint32_t r = app->cfg->ports[p].rank;
		uint64_t at = __atomic_load_n(&app->wl_timer[r],
					      __ATOMIC_ACQUIRE);

		if (at <= now) {
			rte_spinlock_lock(&app->trig_lock);
			app->wl_timer[r] = UINT64_MAX;
			hs_wl_run_timer(&app->wl, r, now);
			rte_spinlock_unlock(&app->trig_lock);
			at = __atomic_load_n(&app->wl_timer[r],
					     __ATOMIC_ACQUIRE);
		}
		*wake = RTE_MIN(*wake, at);
		/* Written under the lock, read here without it: a rank is
		 * done for good once its count reached 0. */
		done = done && __atomic_load_n(&app->wl.nodes_left[r],
					       __ATOMIC_ACQUIRE) == 0;
	}
	return done;
}

int
hs_app_wl_results(struct hs_app *app, const char *prefix, int len)
{
	const struct hs_workload *w = app->workload;
	struct hs_wl_results res;
	char path[2][1100];
	FILE *f[2];
	uint32_t i, k;
	int rc;

	if (!app->has_wl)
		return 0;
	/* No ideal run here: the run is its own reference (ideal = it). */
	rc = hs_wl_results(w, app->wl.start_ns, app->wl.end_ns,
			   app->wl.start_ns, app->wl.end_ns, &res);
	if (rc != 0)
		return rc;
	f[0] = f[1] = NULL;
	if (prefix != NULL) {
		snprintf(path[0], sizeof(path[0]), "%.*s-jobs.csv", len, prefix);
		snprintf(path[1], sizeof(path[1]), "%.*s-job-nodes.csv", len,
			 prefix);
		f[0] = fopen(path[0], "w");
		f[1] = f[0] == NULL ? NULL : fopen(path[1], "w");
		if (f[1] == NULL) {
			rc = -errno;
			if (f[0] != NULL)
				fclose(f[0]);
			hs_wl_results_free(&res);
			return rc;
		}
		fprintf(f[0], "job,iteration,ranks,iter_us,compute_us,wait_max_us,wait_mean_us,end_us\n");
	}
	/* The iterations whose ranks all ran here: said, and in the CSV. */
	for (i = 0; i < res.nb_iters; i++) {
		const struct hs_wl_iter_result *it = &res.iters[i];
		const struct hs_wl_job *jb = &w->jobs[it->job];
		bool all = true;

		for (k = 0; k < jb->nb_ranks; k++)
			all = all && app->host_of_rank[jb->host[k]] >= 0;
		if (!all)
			continue;
		if (it->iter_ns == 0) {
			printf("job %s iteration %u: did not end\n", jb->name,
			       it->iteration);
			continue;
		}
		printf("job %s iteration %u: %.3f us (compute %.3f us, longest wait %.3f us)\n",
		       jb->name, it->iteration, (double)it->iter_ns / 1e3,
		       (double)it->compute_ns / 1e3,
		       (double)it->wait_max_ns / 1e3);
		if (f[0] != NULL)
			fprintf(f[0], "%s,%u,%u,%.3f,%.3f,%.3f,%.3f,%.3f\n",
				jb->name, it->iteration, jb->nb_ranks,
				(double)it->iter_ns / 1e3,
				(double)it->compute_ns / 1e3,
				(double)it->wait_max_ns / 1e3,
				(double)it->wait_mean_ns / 1e3,
				(double)it->end_ns / 1e3);
	}
	rc = 0;
	if (prefix != NULL) {
		fprintf(f[1], "job,rank,host,iteration,node,kind,start_us,end_us\n");
		for (i = 0; i < res.nb_nodes; i++) {
			const struct hs_wl_node_result *q = &res.nodes[i];

			if (app->host_of_rank[q->host] < 0)
				continue;
			fprintf(f[1], "%s,%u,%u,%u,", w->jobs[q->job].name,
				q->rank, q->host, q->iteration);
			hs_wl_csv_name(f[1], q->name);
			fprintf(f[1], ",%s,", q->kind == HS_WL_COLL ?
				hs_wl_coll_names[q->coll] :
				hs_wl_kind_names[q->kind]);
			if (q->start_ns != UINT64_MAX)
				fprintf(f[1], "%.3f", (double)q->start_ns / 1e3);
			fputc(',', f[1]);
			if (q->end_ns != UINT64_MAX)
				fprintf(f[1], "%.3f", (double)q->end_ns / 1e3);
			fputc('\n', f[1]);
		}
		if (fclose(f[0]) != 0)
			rc = -EIO;
		if (fclose(f[1]) != 0)
			rc = -EIO;
	}
	hs_wl_results_free(&res);
	return rc;
}

/*
 * [port.N] lcores name lcores EAL runs: checked before any port is
 * touched.  Fills each port's shard count and each shard's lcore, and
 * app->threaded.
 */
int
hs_app_plan_lcores(struct hs_app *app)
{
	const struct hs_config *c = app->cfg;
	unsigned int main_lcore = rte_get_main_lcore();
	uint16_t p, k;

	for (p = 0; p < c->nb_ports; p++) {
		const struct hs_port_config *pc = &c->ports[p];
		struct hs_port_rt *pr = &app->port[p];

		pr->nb_shards = pc->nb_lcores > 0 ? (uint16_t)pc->nb_lcores : 1;
		for (k = 0; k < pr->nb_shards; k++) {
			struct hs_shard_rt *sr = &pr->shard[k];
			struct hs_lcore *lc;

			sr->lcore = pc->nb_lcores > 0 ? pc->lcores[k] :
				main_lcore;
			if (!rte_lcore_is_enabled(sr->lcore)) {
				fprintf(stderr, "ofan-host: %s:port.%u:lcores: lcore %u is not one of EAL's lcores; expected lcores given to EAL (-l), here %u of them from lcore %u\n",
					c->path, p, sr->lcore, rte_lcore_count(),
					main_lcore);
				return -EINVAL;
			}
			sr->port = pr;
			sr->index = k;
			app->threaded = app->threaded || sr->lcore != main_lcore;
			lc = &app->lc[sr->lcore];
			lc->app = app;
			lc->lcore = sr->lcore;
			lc->shard[lc->nb++] = sr;
		}
	}
	return 0;
}

/* An rte_ring for a shard, named after its port, shard and role. */
static struct rte_ring *
hs_ring(const char *role, uint16_t port, uint16_t shard, unsigned int size,
	unsigned int esize, unsigned int flags)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "hs_%s_%u_%u", role, port, shard);
	return esize == 0 ?
		rte_ring_create(name, size, rte_socket_id(), flags) :
		rte_ring_create_elem(name, esize, size, rte_socket_id(),
				     flags);
}

/* The rings a port's shards need (none for a whole rank on one lcore). */
static int
hs_setup_rings(struct hs_app *app, uint16_t p)
{
	struct hs_port_rt *pr = &app->port[p];
	const struct hs_traffic *t = &app->traffic;
	uint32_t rank = app->cfg->ports[p].rank;
	unsigned int sent = t->sent_first[rank + 1] - t->sent_first[rank];
	uint16_t k;

	for (k = 0; k < pr->nb_shards; k++) {
		struct hs_shard_rt *sr = &pr->shard[k];

		if (pr->software && k > 0)
			sr->rx_ring = hs_ring("rx", p, k, HS_SHARD_RING, 0,
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (app->threaded)
			/* Every flow the rank sends starts at most once. */
			sr->msgs = hs_ring("msg", p, k,
					   rte_align32pow2(sent + 1),
					   sizeof(uint64_t), RING_F_SC_DEQ);
		if ((pr->software && k > 0 && sr->rx_ring == NULL) ||
		    (app->threaded && sr->msgs == NULL))
			goto fail;
		if (sr->txq == HS_NO_TXQ && pr->tx_ring == NULL) {
			pr->tx_ring = hs_ring("tx", p, 0, HS_SHARD_RING, 0,
					      RING_F_SC_DEQ);
			if (pr->tx_ring == NULL)
				goto fail;
		}
	}
	return 0;
fail:
	fprintf(stderr, "ofan-host: port %u: cannot create its shards' rings: %s. Hint: with --no-huge give EAL more memory (-m 1024)\n",
		p, rte_strerror(rte_errno));
	return -ENOMEM;
}

void
hs_app_free_rings(struct hs_app *app)
{
	uint16_t p, k;

	for (p = 0; p < app->cfg->nb_ports; p++) {
		struct hs_port_rt *pr = &app->port[p];
		struct rte_mbuf *m;

		for (k = 0; k < pr->nb_shards; k++) {
			struct hs_shard_rt *sr = &pr->shard[k];

			while (sr->rx_ring != NULL &&
			       rte_ring_dequeue(sr->rx_ring, (void **)&m) == 0)
				rte_pktmbuf_free(m);
			rte_ring_free(sr->rx_ring);
			rte_ring_free(sr->msgs);
			sr->rx_ring = sr->msgs = NULL;
		}
		while (pr->tx_ring != NULL &&
		       rte_ring_dequeue(pr->tx_ring, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(pr->tx_ring);
		pr->tx_ring = NULL;
	}
}

/*
 * app's mbuf pool: the ports' descriptors, the shards' rings and stashes,
 * a full data frame in each mbuf.  -ENOMEM with a message on stderr.
 */
static int
hs_app_create_pool(struct hs_app *app)
{
	const struct hs_config *c = app->cfg;
	unsigned int nb_mbufs = 8192 + c->nb_ports * 4096u;
	uint16_t p;

	/* The shards' rings hold frames too, and each shard's stash. */
	for (p = 0; p < c->nb_ports; p++)
		nb_mbufs += app->port[p].nb_shards * (uint32_t)HS_MBUF_STASH;
	for (p = 0; p < c->nb_ports; p++)
		nb_mbufs += (app->port[p].nb_shards > 1) *
			(app->port[p].nb_shards + 1u) * HS_SHARD_RING;
	/* One frame per mbuf: a full data frame must fit its data room. */
	app->pool = rte_pktmbuf_pool_create("ofan_host_pool", nb_mbufs, 256,
		0, (uint16_t)(RTE_PKTMBUF_HEADROOM +
			      RTE_MAX((unsigned int)RTE_MBUF_DEFAULT_DATAROOM,
				      OFAN_ETH_HDR_SIZE + c->set.mtu + 64u)),
		rte_socket_id());
	if (app->pool == NULL) {
		fprintf(stderr, "ofan-host: cannot create a pool of %u mbufs: %s. Hint: with --no-huge give EAL more memory (-m 1024) or mount hugepages\n",
			nb_mbufs, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/*
 * Port p's hosts, one per shard, at its rank, with its MAC (mac unless
 * the config sets one).  -ENOMEM with a message on stderr.
 */
static int
hs_port_create_hosts(struct hs_app *app, uint16_t p,
		     const struct rte_ether_addr *mac)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const struct hs_config *c = app->cfg;
	struct hs_port_rt *pr = &app->port[p];
	char err[512];
	uint16_t k;

	for (k = 0; k < pr->nb_shards; k++) {
		struct hs_host_params hp = {
			.set = &c->set,
			.traffic = &app->traffic,
			.rank = c->ports[p].rank,
			.pool = app->pool,
			.bulk_alloc = true,
			.on_flow_end = hs_app_on_flow_end,
			.on_flow_end_arg = app,
			.shard = pr->nb_shards > 1 ? &pr->sh[k] : NULL,
		};

		pr->sh[k] = (struct hs_host_shard){
			.index = k, .count = pr->nb_shards,
			.reta_size = pr->reta_size,
			.release = hs_on_dep_release,
			.release_arg = app,
			.rank_active = &pr->rank_active,
		};
		memcpy(hp.mac, c->ports[p].mac_set ? c->ports[p].mac :
		       mac->addr_bytes, 6);
		memcpy(hp.dst_mac, c->ports[p].gateway_mac_set ?
		       c->ports[p].gateway_mac : bcast, 6);
		pr->shard[k].h = hs_host_create(&hp, err, sizeof(err));
		if (pr->shard[k].h == NULL) {
			fprintf(stderr, "ofan-host: rank %u: %s\n",
				hp.rank, err);
			return -ENOMEM;
		}
		app->hosts[app->nb_hosts++] = pr->shard[k].h;
	}
	return 0;
}

int
hs_app_setup(struct hs_app *app)
{
	const struct hs_config *c = app->cfg;
	char err[512];
	struct ofan_port_conf pc[HS_MAX_PORTS];
	struct ofan_port_rss rss[HS_MAX_PORTS];
	uint16_t p, k, txq[HS_MAX_PORTS];
	int rc;

	rc = hs_app_create_pool(app);
	if (rc != 0)
		return rc;
	for (p = 0; p < c->nb_ports; p++) {
		uint16_t l = app->port[p].nb_shards;
		bool want_rss = l > 1 && c->ports[p].steer != HS_STEER_SOFTWARE;

		/*
		 * RSS on the IPv4 source alone (UDP frames included: some
		 * NICs class them apart from "IPv4"), with our key.
		 */
		rss[p] = (struct ofan_port_rss){
			.key = hs_rss_key,
			.key_len = HS_RSS_KEY_LEN,
			.hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP |
				RTE_ETH_RSS_L3_SRC_ONLY,
			.optional = c->ports[p].steer == HS_STEER_AUTO,
		};
		pc[p] = (struct ofan_port_conf){
			.dev = c->ports[p].dev,
			.nb_rxq = want_rss ? l : 1,
			/* A TX queue per shard; where TX queue i is the
			 * peer's RX queue i (OFAN_PORT_QUIRK_PAIRED_QUEUES)
			 * the shards share queue 0 through the TX ring. */
			.nb_txq = l,
			.nb_txq_paired = 1,
			.nb_rxd = 1024, .nb_txd = 1024,
			.rss = want_rss ? &rss[p] : NULL,
		};
	}
	rc = ofan_ports_open(pc, c->nb_ports, app->pool, app->port_id, txq,
			     app->port_started, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "ofan-host: %s:%s\n", c->path, err);
		return rc;
	}
	for (p = 0; p < c->nb_ports; p++) {
		struct hs_port_rt *pr = &app->port[p];
		bool rss_on = pc[p].rss != NULL && rss[p].used;
		struct rte_ether_addr a;

		pr->id = app->port_id[p];
		/*
		 * Without RSS shard 0 polls the one RX queue and hands out
		 * by the same hash.  Each shard sends on a TX queue of its
		 * own when the device has one per shard, else through the TX
		 * ring shard 0 drains.
		 */
		pr->software = pr->nb_shards > 1 && !rss_on;
		pr->nb_rxq = rss_on ? pr->nb_shards : 1;
		pr->reta_size = rss_on ? rss[p].reta_size : HS_SOFT_RETA_SIZE;
		for (k = 0; k < pr->nb_shards; k++) {
			pr->shard[k].rxq = rss_on ? k : 0;
			pr->shard[k].txq = k == 0 ? 0 :
				txq[p] >= pr->nb_shards ? k : HS_NO_TXQ;
		}
		if (hs_setup_rings(app, p) != 0)
			return -ENOMEM;
		/* Virtual devices may not support it; NICs need it for jumbo. */
		rte_eth_dev_set_mtu(pr->id, c->set.mtu);
		rte_eth_macaddr_get(pr->id, &a);
		if (hs_port_create_hosts(app, p, &a) != 0)
			return -ENOMEM;
		if (pr->nb_shards > 1)
			printf("rank %u: %u lcores, steered by %s\n",
			       c->ports[p].rank, pr->nb_shards,
			       rss_on ? "the NIC's RSS on the IPv4 source" :
			       "software on the first lcore");
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

/* A shard publishes what the main lcore reads (see hs_shard_rt). */
static void
hs_publish(struct hs_shard_rt *sr, uint64_t now)
{
	uint64_t acked, total;

	hs_host_progress(sr->h, &acked, &total);
	__atomic_store_n(&sr->pub_acked, acked, __ATOMIC_RELAXED);
	__atomic_store_n(&sr->pub_total, total, __ATOMIC_RELAXED);
	__atomic_store_n(&sr->pub_retx, hs_host_stats(sr->h)->data_retx,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&sr->pub_done, hs_host_tx_done(sr->h) &&
			 hs_host_rx_done(sr->h), __ATOMIC_RELEASE);
	sr->next_progress = now + HS_PUBLISH_NS;
}

/*
 * Software steering, on shard 0's lcore: every frame of the port's RX
 * queues to the shard its IPv4 source hashes to.  Returns how many of
 * pkts are shard 0's own, to input.
 */
static uint16_t
hs_dispatch(struct hs_port_rt *pr, uint16_t q, struct rte_mbuf **pkts)
{
	struct rte_mbuf *to[HS_MAX_SHARDS][HS_BURST];
	uint16_t cnt[HS_MAX_SHARDS] = { 0 };
	uint16_t n, i, k, own = 0, put;

	n = rte_eth_rx_burst(pr->id, q, pkts, HS_BURST);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		k = hs_shard_of_frame(rte_pktmbuf_mtod(m, const uint8_t *),
				      rte_pktmbuf_data_len(m), pr->nb_shards,
				      pr->reta_size);
		if (k == 0)
			pkts[own++] = m;
		else
			to[k][cnt[k]++] = m;
	}
	for (k = 1; k < pr->nb_shards; k++) {
		if (cnt[k] == 0)
			continue;
		put = (uint16_t)rte_ring_sp_enqueue_burst(pr->shard[k].rx_ring,
			(void **)to[k], cnt[k], NULL);
		if (put < cnt[k]) {
			/* Its lcore is behind: dropped as a full NIC queue. */
			rte_pktmbuf_free_bulk(&to[k][put], cnt[k] - put);
			pr->steer_full += cnt[k] - put;
		}
	}
	return own;
}

/* Send n frames of shard sr: its TX queue, or the port's TX ring. */
static void
hs_shard_send(struct hs_shard_rt *sr, struct rte_mbuf **pkts, uint16_t n)
{
	struct hs_port_rt *pr = sr->port;
	uint16_t sent;

	if (n == 0)
		return;
	if (sr->txq != HS_NO_TXQ)
		sent = rte_eth_tx_burst(pr->id, sr->txq, pkts, n);
	else
		sent = (uint16_t)rte_ring_mp_enqueue_burst(pr->tx_ring,
			(void **)pkts, n, NULL);
	if (sent < n)
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	sr->tx_dropped += n - sent;
}

/*
 * One round of shard sr at now: receive (its queue, its ring, or every
 * queue when it dispatches), start handed-over flows, send.  Sets *busy
 * if anything moved and lowers *wake to its next event.
 */
static void
hs_shard_poll(struct hs_shard_rt *sr, uint64_t now, bool *busy,
	      uint64_t *wake)
{
	struct hs_port_rt *pr = sr->port;
	struct rte_mbuf *pkts[HS_BURST];
	uint64_t msg[HS_BURST];
	uint16_t n, i, q;

	for (q = 0; q < (pr->software && sr->index == 0 ? pr->nb_rxq : 1);
	     q++) {
		if (pr->software && sr->index == 0)
			n = hs_dispatch(pr, q, pkts);
		else if (pr->software)
			n = (uint16_t)rte_ring_sc_dequeue_burst(sr->rx_ring,
				(void **)pkts, HS_BURST, NULL);
		else
			n = rte_eth_rx_burst(pr->id, sr->rxq, pkts, HS_BURST);
		if (n > 0) {
			__atomic_store_n(&sr->pub_last_rx, now,
					 __ATOMIC_RELAXED);
			*busy = true;
			hs_host_input(sr->h, pkts, n, now);
		}
	}
	n = sr->msgs == NULL ? 0 : (uint16_t)rte_ring_sc_dequeue_burst_elem(
		sr->msgs, msg, sizeof(msg[0]), HS_BURST, NULL);
	for (i = 0; i < n; i++) {
		uint32_t flow = (uint32_t)msg[i];

		if (msg[i] & HS_MSG_DEP)
			hs_host_release_dep(sr->h, flow, now);
		else
			hs_host_release(sr->h, flow, now);
	}
	n = hs_host_output(sr->h, now, pkts, HS_BURST);
	*busy = *busy || n > 0;
	hs_shard_send(sr, pkts, n);
	/* The other shards' frames, on queue 0: a burst from each. */
	for (i = 1; sr->index == 0 && pr->tx_ring != NULL &&
	     i < pr->nb_shards; i++) {
		n = (uint16_t)rte_ring_sc_dequeue_burst(pr->tx_ring,
			(void **)pkts, HS_BURST, NULL);
		if (n == 0)
			break;
		*busy = true;
		hs_shard_send(sr, pkts, n);
	}
	*wake = RTE_MIN(*wake, hs_host_next_event(sr->h));
	if (now >= sr->next_progress)
		hs_publish(sr, now);
	else
		__atomic_store_n(&sr->pub_done, hs_host_tx_done(sr->h) &&
				 hs_host_rx_done(sr->h), __ATOMIC_RELEASE);
}

/* Low-CPU mode: sleep until wake, at most idle_sleep_us. */
static void
hs_idle(const struct hs_app *app, uint64_t now, uint64_t wake)
{
	uint64_t us;

	if (app->idle_sleep_us == 0 || wake <= now)
		return;
	us = (wake - now) / OFAN_NS_PER_US;
	if (us > app->idle_sleep_us)
		us = app->idle_sleep_us;
	if (us > 0)
		rte_delay_us_sleep((unsigned int)us);
}

/* A worker lcore: its shards until the main lcore says stop. */
static int
hs_lcore_loop(void *arg)
{
	struct hs_lcore *lc = arg;
	struct hs_app *app = lc->app;

	while (!__atomic_load_n(&app->stop, __ATOMIC_ACQUIRE)) {
		uint64_t now = hs_app_now_ns(app), wake = UINT64_MAX;
		bool busy = false;
		uint16_t i;

		for (i = 0; i < lc->nb; i++)
			hs_shard_poll(lc->shard[i], now, &busy, &wake);
		if (!busy)
			hs_idle(app, now, wake);
	}
	return 0;
}

/*
 * A progress line: bytes acknowledged, and the rate over the last dt_s
 * seconds -- or, for the last line (dt_s = 0), the mean over the run.
 * Reads what the shards published.
 */
static void
hs_progress(struct hs_app *app, double t_s, uint64_t *prev_bytes,
	    double dt_s)
{
	bool last = dt_s <= 0;
	uint64_t acked = 0, total = 0, retx = 0;
	uint16_t p, k;

	for (p = 0; p < app->cfg->nb_ports; p++)
		for (k = 0; k < app->port[p].nb_shards; k++) {
			const struct hs_shard_rt *sr = &app->port[p].shard[k];

			acked += __atomic_load_n(&sr->pub_acked,
						 __ATOMIC_RELAXED);
			total += __atomic_load_n(&sr->pub_total,
						 __ATOMIC_RELAXED);
			retx += __atomic_load_n(&sr->pub_retx,
						__ATOMIC_RELAXED);
		}
	fprintf(stderr, "t=%.1fs %llu/%llu bytes (%.1f%%) %s%.3f Gb/s data_retx %llu\n",
		t_s, (unsigned long long)acked, (unsigned long long)total,
		total ? 100.0 * (double)acked / (double)total : 100.0,
		last ? "mean " : "",
		last ? (t_s > 0 ? (double)acked * 8 / t_s / 1e9 : 0) :
		(double)(acked - *prev_bytes) * 8 / dt_s / 1e9,
		(unsigned long long)retx);
	*prev_bytes = acked;
}

/* Every shard done, and the latest reception of any (published). */
static bool
hs_all_done(struct hs_app *app, uint64_t *last_rx)
{
	bool done = true;
	uint16_t p, k;

	for (p = 0; p < app->cfg->nb_ports; p++)
		for (k = 0; k < app->port[p].nb_shards; k++) {
			struct hs_shard_rt *sr = &app->port[p].shard[k];

			done = done && __atomic_load_n(&sr->pub_done,
						       __ATOMIC_ACQUIRE);
			*last_rx = RTE_MAX(*last_rx, __atomic_load_n(
				&sr->pub_last_rx, __ATOMIC_RELAXED));
		}
	return done;
}

/*
 * --start-at: wait, without polling the ports, for the testbed's common
 * start (@FILE: first for FILE, looked at every millisecond).  Returns 0
 * then, -EINTR on a signal, -EINVAL if @FILE holds no moment, or -ETIME
 * if the moment had passed (by more than a millisecond) when it became
 * known: the traffic would start late against the switches' schedules.
 */
int
hs_app_wait_start(struct hs_app *app)
{
	char err[OFAN_START_PATH_SIZE + 128];
	uint64_t now, epoch;
	int64_t start;
	int rc;

	fprintf(stderr, "ofan-host: ports up; waiting for the start (--start-at)\n");
	while (!ofan_shell_quit && (rc = ofan_start_poll(&app->start, err,
						 sizeof(err))) == 0)
		rte_delay_us_sleep(1000);
	if (ofan_shell_quit)
		return -EINTR;
	if (rc < 0) {
		fprintf(stderr, "ofan-host: --start-at %s\n", err);
		return rc;
	}
	now = hs_app_now_ns(app);
	epoch = ofan_epoch_ns();
	if (epoch > app->start.at_ns &&
	    epoch - app->start.at_ns > OFAN_NS_PER_MS) {
		fprintf(stderr, "ofan-host: --start-at is %.3f s in the past once the ports are up; expected a later moment\n",
			(double)(epoch - app->start.at_ns) / 1e9);
		return -ETIME;
	}
	start = ofan_clock_at_epoch(now, epoch, app->start.at_ns);
	while (!ofan_shell_quit && (int64_t)(now = hs_app_now_ns(app)) < start)
		rte_delay_us_sleep((unsigned int)RTE_MIN(
			((uint64_t)start - now) / OFAN_NS_PER_US + 1,
			10000ull));
	return ofan_shell_quit ? -EINTR : 0;
}

/*
 * Run every shard until done, timeout or signal: the main lcore's own
 * shards here, the others on their worker lcores.  Returns true if done.
 */
bool
hs_app_run(struct hs_app *app)
{
	const struct hs_config *c = app->cfg;
	struct hs_lcore *own = &app->lc[rte_get_main_lcore()];
	uint64_t start = hs_app_now_ns(app), now, last_rx = start;
	uint64_t next_stat = start + c->set.stats_interval_ns, last_stat = start;
	uint64_t end = app->timeout_s > 0 ?
		start + (uint64_t)(app->timeout_s * 1e9) : UINT64_MAX;
	uint64_t prev_bytes = 0, done_at = 0, wake;
	bool linger = hs_has_remote_peers(app), done = false, busy;
	unsigned int l;
	uint16_t i, p, k;

	for (p = 0; p < c->nb_ports; p++)
		for (k = 0; k < app->port[p].nb_shards; k++) {
			hs_host_start(app->port[p].shard[k].h, start);
			hs_publish(&app->port[p].shard[k], start);
		}
	/* Training jobs: their first nodes start with the traffic. */
	if (app->has_wl) {
		rte_spinlock_lock(&app->trig_lock);
		hs_wl_run_start(&app->wl, start);
		rte_spinlock_unlock(&app->trig_lock);
	}
	RTE_LCORE_FOREACH_WORKER(l)
		if (app->lc[l].nb > 0)
			rte_eal_remote_launch(hs_lcore_loop, &app->lc[l], l);
	while (!ofan_shell_quit) {
		now = hs_app_now_ns(app);
		busy = false;
		wake = UINT64_MAX;
		for (i = 0; i < own->nb; i++)
			hs_shard_poll(own->shard[i], now, &busy, &wake);
		done = hs_all_done(app, &last_rx);
		/* A job's rank is done once its last node ended. */
		if (app->has_wl && !hs_app_wl_poll(app, now, &wake))
			done = false;
		if (c->set.stats_interval_ns > 0 && now >= next_stat) {
			hs_progress(app, (double)(now - start) / 1e9,
				    &prev_bytes, (double)(now - last_stat) / 1e9);
			last_stat = now;
			next_stat += c->set.stats_interval_ns;
		}
		if (done && done_at == 0)
			done_at = now;
		/*
		 * With peers in other processes, keep answering for a while:
		 * a remote sender may still need our ACKs.
		 */
		if (done && (!linger ||
			     (now - RTE_MIN(last_rx, now) >
			      500 * OFAN_NS_PER_MS &&
			      now - done_at > 500 * OFAN_NS_PER_MS)))
			break;
		if (now >= end) {
			fprintf(stderr, "ofan-host: timeout after %.1f s with flows unfinished\n",
				app->timeout_s);
			break;
		}
		/* Only control here: no need to spin. */
		if (own->nb == 0)
			rte_delay_us_sleep(100);
		else if (!busy)
			hs_idle(app, now, wake);
	}
	__atomic_store_n(&app->stop, true, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	now = hs_app_now_ns(app);
	for (p = 0; p < c->nb_ports; p++)
		for (k = 0; k < app->port[p].nb_shards; k++)
			hs_publish(&app->port[p].shard[k], now);
	if (c->set.stats_interval_ns > 0)
		hs_progress(app, (double)(now - start) / 1e9, &prev_bytes, 0);
	return done;
}
