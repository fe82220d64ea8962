/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building a run of ofan-fabric: the engines (one shared FIB, a switch
 * engine per switch, a host engine per rank), the links and which thread
 * owns what; and tearing it down (every frame left anywhere is freed and
 * counted as queued).  Its results are collected in fab_collect.c.  The
 * ideal model is documented at fab_oneway_ns (fab.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "fab_sim.h"
#include "hs_host.h"
#include "hs_summary.h"
#include "ofan_clock.h"
#include "ofan_wire.h"
#include "sw_engine.h"

/* ---- set-up and tear-down ---- */

uint32_t
fab_pool_size(const struct fab_params *p)
{
	uint64_t ports, links, hosts, n;
	uint64_t frame = fab_full_frame_queue_bytes(p) +
		p->queue.frame.overhead;
	uint64_t per_wire, cap = 0;
	int l;

	switch (p->topo) {
	case FAB_TOPO_FATTREE:
		hosts = (uint64_t)p->k * p->k * p->k / 4;
		ports = hosts * 5;	/* ToR, agg, core: 2 + 2 + 1 per host */
		links = hosts * 3;
		break;
	case FAB_TOPO_LEAFSPINE:
		hosts = (uint64_t)p->leaves * p->hosts_per_leaf;
		links = hosts + (uint64_t)p->leaves * p->spines;
		ports = hosts + 2ull * p->leaves * p->spines;
		break;
	default:
		hosts = 2;
		links = 1;
		ports = 0;
		break;
	}
	/* Full frames in flight on a wire, twice over, plus ACKs. */
	per_wire = 2 * (uint64_t)((double)p->delay_ns *
		(double)RTE_MAX(p->rate_bps, p->uplink_rate_bps) / 8e9 /
		(double)frame + 2) + 16;
	if (p->mbufs != 0)
		return p->mbufs;
	/*
	 * A port holds at most its packets, or, when bytes decide, its bytes
	 * of full frames and as many ACKs (ACKs are a few per cent of the
	 * bytes, never the bulk of a full queue); deep queues never all fill
	 * at once, so each counts for at most 512 (runs that need more say
	 * so: the pool runs dry; [fabric] mbufs sets it).
	 */
	for (l = 0; l < FAB_L_NB; l++) {
		const struct sw_queue_config *q = &p->queue_layer[l];

		cap = RTE_MAX(cap, RTE_MIN(RTE_MIN((uint64_t)q->capacity_pkts,
				2 * (q->capacity_bytes /
				     fab_full_frame_queue_bytes(p)) + 8),
			(uint64_t)512));
	}
	n = ports * cap + links * 2 * per_wire + hosts * 256 + 4096;
	return (uint32_t)RTE_MIN(n, (uint64_t)(1u << 22));
}

/*
 * Which part owns each node: whole pods (fat tree) or groups of leaves
 * (leaf-spine) with their hosts, and an even share of the cores/spines.
 * Parts are numbered over the whole job (rank x threads + thread).
 */
static void
fab_partition(struct fab_parts *pt, const struct fab_topo *t)
{
	uint32_t n = pt->nb_parts, i, nb_top = 0, nb_low = 0;

	for (i = 0; i < t->nb_switches; i++) {
		if (t->sw[i].role == FAB_ROLE_CORE)
			nb_top++;
		else
			nb_low = RTE_MAX(nb_low, t->sw[i].pod + 1);
	}
	for (i = 0; i < t->nb_switches; i++) {
		const struct fab_switch_desc *d = &t->sw[i];

		pt->sw_owner[i] = (uint16_t)(d->role == FAB_ROLE_CORE ?
			d->index * n / RTE_MAX(nb_top, 1u) :
			d->pod * n / RTE_MAX(nb_low, 1u));
	}
	for (i = 0; i < t->nb_hosts; i++)
		pt->host_owner[i] = t->host_tor[i] == FAB_NONE ? 0 :
			pt->sw_owner[t->host_tor[i]];
}

/*
 * Triggers start flows at the instant a flow ends, possibly at another
 * host.  That is exact only when the trigger's hosts (where its flows end
 * and where the flows it starts begin) are in one part; otherwise the
 * run takes a single part (results do not depend on it).
 */
static bool
fab_triggers_local(const struct fab_sim *s)
{
	uint32_t split;

	/* Out of memory: one part, which is always exact. */
	return hs_traffic_trigger_split(&s->load.traffic, s->parts.host_owner,
					&split) == 0 &&
		split == HS_NO_TRIGGER;
}

void
fab_sim_free(struct fab_sim *s)
{
	uint32_t i, k;

	for (i = 0; i < s->t->nb_hosts && s->net.hosts != NULL; i++)
		s->r->queued_end += fab_nic_free(&s->net.hosts[i].nic);
	for (i = 0; i < s->net.nb_dirs && s->net.dirs != NULL; i++) {
		for (k = 0; k < 2; k++)
			s->r->queued_end += fab_fifo_free(&s->net.dirs[i].out[k]);
	}
	for (i = 0; i < s->net.nb_dirs && s->net.rx != NULL; i++)
		s->r->queued_end += fab_fifo_free(&s->net.rx[i].wire);
	for (i = 0; i < s->t->nb_switches && s->net.sw != NULL; i++) {
		if (s->net.sw[i].eng == NULL)
			continue;
		s->r->queued_end += sw_engine_free_queues(s->net.sw[i].eng);
		sw_engine_free(s->net.sw[i].eng);
	}
	for (i = 0; i < s->t->nb_hosts && s->net.hosts != NULL; i++)
		hs_host_free(s->net.hosts[i].h);
	if (s->mem.fib != NULL && s->mem.fib_cache == NULL)
		sw_fib_free(s->mem.fib);
	if (s->load.has_wl)
		hs_wl_run_fini(&s->load.wl);
	hs_traffic_free(&s->load.traffic);
	if (s->load.workload != NULL) {
		hs_wl_free(s->load.workload);
		free(s->load.workload);
		s->load.workload = NULL;
	}
	hs_trigger_state_fini(&s->load.trig);
	for (k = 0; s->mpi.job != NULL && k < (uint32_t)s->mpi.job->size; k++) {
		if (s->mpi.out != NULL)
			fab_xbuf_free(&s->mpi.out[k]);
		if (s->mpi.in != NULL)
			fab_xbuf_free(&s->mpi.in[k]);
	}
	free(s->mpi.out);
	free(s->mpi.in);
	for (k = 0; k < s->parts.nb_thr; k++) {
		struct fab_thr *th = &s->thr[k];

		if (th->q != NULL)
			fab_evq_fini(th->q);
		free(th->q);
		free(th->qwin);
		free(th->in_dirs);
	}
	rte_free(s->net.dirs);
	rte_free(s->net.rx);
	free(s->net.hosts);
	free(s->net.sw);
	free(s->parts.sw_owner);
	free(s->parts.host_owner);
}

/*
 * What a FIB built from c holds, in the order sw_fib_create() adds it:
 * each route's prefix and depth (its index is the next hop), then the
 * switch's own addresses.  NULL when out of memory.
 */
static uint64_t *
fab_fib_sig(const struct sw_config *c, uint32_t *n)
{
	uint64_t *sig = malloc(((size_t)c->nb_routes + c->nb_ports + 1) *
			       sizeof(*sig));
	uint32_t i, k = 0;

	if (sig == NULL)
		return NULL;
	for (i = 0; i < c->nb_routes; i++)
		sig[k++] = (uint64_t)c->routes[i].prefix << 8 |
			c->routes[i].depth;
	for (i = 0; i < c->nb_ports; i++)
		sig[k++] = UINT64_C(1) << 63 | c->ports[i].ip;
	*n = k;
	return sig;
}

/* The run's FIB: the cache's when it holds the same routes, else new. */
static int
fab_fib_get(struct fab_mem *mem, const struct sw_config *c, char *err,
	    unsigned int err_size)
{
	struct fab_fib_cache *fc = mem->fib_cache;
	uint64_t *sig;
	uint32_t n;

	if (fc == NULL) {
		mem->fib = sw_fib_create(c, SOCKET_ID_ANY, err, err_size);
		return mem->fib == NULL ? -ENOMEM : 0;
	}
	sig = fab_fib_sig(c, &n);
	if (sig == NULL) {
		snprintf(err, err_size, "out of memory for the FIB");
		return -ENOMEM;
	}
	if (fc->fib != NULL && fc->nb_sig == n &&
	    memcmp(fc->sig, sig, n * sizeof(*sig)) == 0) {
		free(sig);
		mem->fib = fc->fib;
		return 0;
	}
	fab_fib_cache_free(fc);
	mem->fib = sw_fib_create(c, SOCKET_ID_ANY, err, err_size);
	if (mem->fib == NULL) {
		free(sig);
		return -ENOMEM;
	}
	fc->fib = mem->fib;
	fc->sig = sig;
	fc->nb_sig = n;
	fc->nb_built++;
	return 0;
}

void
fab_fib_cache_free(struct fab_fib_cache *c)
{
	if (c->fib != NULL)
		sw_fib_free(c->fib);
	free(c->sig);
	c->fib = NULL;
	c->sig = NULL;
	c->nb_sig = 0;
}

/*
 * The hosts' configuration (the scheme's policy, the fabric's RTT), the
 * traffic the pattern builds from it, its workload if it has training
 * jobs, and the triggers' state.  -EINVAL with err set.
 */
static int
fab_build_load(struct fab_sim *s, uint16_t scheme, char *err,
	       unsigned int err_size)
{
	const struct fab_params *p = s->p;
	struct fab_topo *t = s->t;
	uint32_t i, hops_max = 0;

	s->net.frame_kinds = p->data_wire_bytes != 0 || p->ack_wire_bytes != 0;
	s->load.hcfg = p->host;
	s->load.hcfg.path = "ofan-fabric";
	s->load.hcfg.set.policy = p->schemes[scheme].host_policy;
	s->load.hcfg.set.stats_interval_ns = 0;
	for (i = 0; i < (uint32_t)t->nb_hosts * t->nb_hosts; i++)
		hops_max = RTE_MAX(hops_max, (uint32_t)t->hops[i]);
	if (!p->base_rtt_set)
		s->load.hcfg.set.base_rtt_ns = fab_oneway_ns(p, hops_max) +
			ofan_tx_time_ns(fab_full_frame_queue_bytes(p) +
					p->queue.frame.overhead, p->rate_bps) +
			fab_ack_back_ns(p, hops_max);
	hs_config_derive(&s->load.hcfg);
	/* The copies carry no pointer (fab_experiment.c): point at this one's. */
	if (s->load.hcfg.traffic.pattern->settings_size > 0)
		s->load.hcfg.traffic.settings = &s->load.hcfg.pattern_set;
	if (hs_pattern_build(&s->load.hcfg.traffic, &s->load.traffic,
			     &s->load.workload, err, err_size) != 0 ||
	    hs_trigger_state_init(&s->load.trig, &s->load.traffic) != 0)
		return -EINVAL;
	return 0;
}

/*
 * The links' directions, the nodes' tables and the parts they fall in:
 * several parts, unless triggers that cross parts or training jobs need
 * them all in one, on rank 0.  -ENOMEM with err set.
 */
static int
fab_build_parts(struct fab_sim *s, char *err, unsigned int err_size)
{
	struct fab_topo *t = s->t;

	s->net.nb_dirs = 2 * t->nb_links;
	s->net.dirs = rte_zmalloc_socket("fab_dirs", s->net.nb_dirs * sizeof(*s->net.dirs),
				     RTE_CACHE_LINE_SIZE, SOCKET_ID_ANY);
	s->net.rx = rte_zmalloc_socket("fab_rx", s->net.nb_dirs * sizeof(*s->net.rx),
				   RTE_CACHE_LINE_SIZE, SOCKET_ID_ANY);
	s->net.hosts = calloc(t->nb_hosts, sizeof(*s->net.hosts));
	s->net.sw = calloc(t->nb_switches + 1, sizeof(*s->net.sw));
	s->parts.sw_owner = calloc(t->nb_switches + 1, sizeof(*s->parts.sw_owner));
	s->parts.host_owner = calloc(t->nb_hosts, sizeof(*s->parts.host_owner));
	if (s->net.dirs == NULL || s->net.rx == NULL || s->net.hosts == NULL ||
	    s->net.sw == NULL || s->parts.sw_owner == NULL ||
	    s->parts.host_owner == NULL) {
		snprintf(err, err_size, "out of memory for the fabric");
		return -ENOMEM;
	}
	fab_partition(&s->parts, s->t);
	if (s->parts.nb_parts > 1 &&
	    ((s->load.traffic.nb_triggers > 0 && !fab_triggers_local(s)) ||
	     s->load.workload != NULL)) {
		/* One part, on rank 0 (the other ranks hold nothing). */
		s->parts.one_part = true;
		s->parts.nb_parts = 1;
		s->parts.nb_thr = 1;
		s->parts.thr_per_rank = 1;
		s->parts.part0 = (uint16_t)(s->mpi.job != NULL ?
					    s->mpi.job->rank : 0);
		s->loop.bar.n = 1;
		fab_partition(&s->parts, s->t);
	}
	return 0;
}

/*
 * Where the one part is, the training jobs' run; over MPI, the buffers
 * each window's frames are handed over in.  -ENOMEM with err set.
 */
static int
fab_build_jobs(struct fab_sim *s, char *err, unsigned int err_size)
{
	/* Training jobs: the workload runs where the one part is. */
	if (s->load.workload != NULL && fab_part_local(&s->parts, 0)) {
		const struct hs_wl_driver drv = {
			.release = fab_wl_release, .timer = fab_wl_timer,
			.arg = s,
		};

		if (hs_wl_run_init(&s->load.wl, s->load.workload, &drv) != 0) {
			snprintf(err, err_size, "out of memory for the jobs");
			return -ENOMEM;
		}
		s->load.has_wl = true;
	}
	if (s->mpi.job != NULL) {
		size_t n = (size_t)s->mpi.job->size;

		s->mpi.out = calloc(n, sizeof(*s->mpi.out));
		s->mpi.in = calloc(n, sizeof(*s->mpi.in));
		if (s->mpi.out == NULL || s->mpi.in == NULL) {
			snprintf(err, err_size, "out of memory for the fabric");
			return -ENOMEM;
		}
	}
	return 0;
}

/* Each local thread's event queue and inputs.  -ENOMEM with err set. */
static int
fab_build_threads(struct fab_sim *s, char *err, unsigned int err_size)
{
	uint32_t i;

	for (i = 0; i < s->parts.nb_thr; i++) {
		struct fab_thr *th = &s->thr[i];

		th->s = s;
		th->id = (uint16_t)i;
		th->q = malloc(sizeof(*th->q));
		th->in_dirs = calloc(s->net.nb_dirs, sizeof(*th->in_dirs));
		if (th->q == NULL || th->in_dirs == NULL) {
			snprintf(err, err_size, "out of memory for the event queues");
			return -ENOMEM;
		}
		fab_evq_init(th->q, s->loop.t0);
		th->now = s->loop.t0;
	}
	return 0;
}

/*
 * Each link direction's rate, delay and ends, which part sends and which
 * receives on it, and each node's outgoing directions.
 */
static void
fab_build_dirs(struct fab_sim *s)
{
	const struct fab_params *p = s->p;
	struct fab_topo *t = s->t;
	uint16_t tx_part, rx_part;
	uint32_t l, e;

	for (l = 0; l < t->nb_links; l++) {
		const struct fab_link_desc *k = &t->links[l];

		for (e = 0; e < 2; e++) {
			uint32_t id = 2 * l + e;
			struct fab_dir *d = &s->net.dirs[id];
			struct fab_rx *rx = &s->net.rx[id];

			d->rate_bps = k->rate_bps;
			d->delay_ns = p->delay_ns;
			d->from = k->node[e];
			d->from_port = k->port[e];
			d->from_host = k->is_host[e];
			d->layer = k->layer[e];
			d->win = UINT32_MAX;
			rx->to = k->node[1 - e];
			rx->to_port = k->port[1 - e];
			rx->to_host = k->is_host[1 - e];
			tx_part = d->from_host ? s->parts.host_owner[d->from] :
				s->parts.sw_owner[d->from];
			rx_part = rx->to_host ? s->parts.host_owner[rx->to] :
				s->parts.sw_owner[rx->to];
			d->tx_local = fab_part_local(&s->parts, tx_part);
			d->rx_local = fab_part_local(&s->parts, rx_part);
			d->tx_owner = d->tx_local ? fab_part_thr(&s->parts, tx_part) : 0;
			d->rx_owner = d->rx_local ? fab_part_thr(&s->parts, rx_part) : 0;
			d->rx_rank = (uint16_t)(rx_part / s->parts.thr_per_rank);
			d->cross = tx_part != rx_part;
			if (d->cross && d->rx_local) {
				struct fab_thr *th = &s->thr[d->rx_owner];

				th->in_dirs[th->nb_in++] = id;
			}
			if (d->from_host)
				s->net.hosts[d->from].dir = id;
			else
				s->net.sw[d->from].dir[d->from_port] = id;
		}
	}
}

/* The configured drops: frame ranges, or a loss model on a direction. */
static void
fab_build_drops(struct fab_sim *s)
{
	const struct fab_params *p = s->p;
	uint32_t i;

	for (i = 0; i < p->nb_drops; i++) {
		const struct fab_drop *dr = &p->drops[i];
		uint32_t id = fab_topo_find_dir(s->t, dr->link);
		struct fab_dir *d = &s->net.dirs[id];
		struct ofan_loss *l = &s->net.loss[i];

		if (dr->mode == FAB_DROP_FRAMES) {
			d->drop_first = dr->frame;
			d->drop_end = dr->frame + dr->count;
			continue;
		}
		/* The run's seed and the direction: any thread count. */
		ofan_loss_start(l, &dr->loss, p->seed, 0x6c6f7373ull << 32 | id,
				s->loop.t0);
		d->loss = l;
	}
}

/* The local switches' engines and their PFC links.  -ENOMEM, err set. */
static int
fab_build_switches(struct fab_sim *s, char *err, unsigned int err_size)
{
	const struct fab_params *p = s->p;
	struct fab_topo *t = s->t;
	uint8_t macs[SW_MAX_PORTS][6];
	uint32_t i;

	/* One shared FIB, one worker each. */
	if (t->nb_switches > 0 &&
	    fab_fib_get(&s->mem, &t->cfg[0], err, err_size) != 0)
		return -ENOMEM;
	for (i = 0; i < t->nb_switches; i++) {
		const struct sw_config *c = &t->cfg[i];
		uint16_t port;

		s->net.sw[i].nb_ports = c->nb_ports;
		if (!fab_part_local(&s->parts, s->parts.sw_owner[i]))
			continue;	/* another rank's */
		for (port = 0; port < c->nb_ports; port++)
			memcpy(macs[port], c->ports[port].mac, 6);
		s->net.sw[i].eng = sw_engine_create_shared(c, 1,
			(const uint8_t (*)[6])macs, SOCKET_ID_ANY, s->mem.fib,
			err, err_size);
		if (s->net.sw[i].eng == NULL)
			return -ENOMEM;
		s->net.sw[i].w = sw_engine_worker(s->net.sw[i].eng, 0);
		s->net.sw[i].nb_ports = c->nb_ports;
		/* PFC: quanta at the link's rate, headroom from its BDP. */
		for (port = 0; port < c->nb_ports; port++) {
			const struct fab_dir *d = &s->net.dirs[s->net.sw[i].dir[port]];

			sw_engine_set_pfc_link(s->net.sw[i].eng, port, d->rate_bps,
					       d->delay_ns,
					       fab_full_frame_queue_bytes(p));
		}
	}
	return 0;
}

/* The local hosts' engines and their NICs.  -ENOMEM with err set. */
static int
fab_build_hosts(struct fab_sim *s, char *err, unsigned int err_size)
{
	const struct fab_params *p = s->p;
	struct fab_topo *t = s->t;
	uint32_t i;

	for (i = 0; i < t->nb_hosts; i++) {
		const struct fab_link_desc *k = &t->links[t->host_link[i]];
		struct hs_host_params hp = {
			.set = &s->load.hcfg.set,
			.traffic = &s->load.traffic,
			.rank = i,
			.pool = s->mem.pool,
			.no_announce = true,
			.on_flow_end = fab_sim_flow_end,
			.on_flow_end_arg = s,
			.nic_full = fab_nic_full,
			.nic_arg = &s->net.hosts[i].nic,
		};

		s->net.hosts[i].wake_at = UINT64_MAX;
		if (!fab_part_local(&s->parts, s->parts.host_owner[i]))
			continue;	/* another rank's */

		hp.mac[0] = 0x02;
		hp.mac[1] = 0x01;
		hp.mac[2] = (uint8_t)(i >> 16);
		hp.mac[3] = (uint8_t)(i >> 8);
		hp.mac[4] = (uint8_t)i;
		if (t->kind == FAB_TOPO_B2B) {
			memcpy(hp.dst_mac, hp.mac, 6);
			hp.dst_mac[4] = (uint8_t)(1 - i);
		} else {
			memcpy(hp.dst_mac, t->cfg[k->node[1]].ports[k->port[1]].mac,
			       6);
		}
		s->net.hosts[i].h = hs_host_create(&hp, err, err_size);
		if (s->net.hosts[i].h == NULL)
			return -ENOMEM;
		if (fab_nic_init(&s->net.hosts[i].nic,
				 hs_host_nic_slots(s->net.hosts[i].h)) != 0) {
			snprintf(err, err_size, "out of memory for the NICs");
			return -ENOMEM;
		}
		s->net.hosts[i].nic.limit = p->nic_queue;
		s->net.hosts[i].wake_at = UINT64_MAX;
	}
	return 0;
}

int
fab_sim_build(struct fab_sim *s, uint16_t scheme, char *err,
	      unsigned int err_size)
{
	int rc;

	rc = fab_build_load(s, scheme, err, err_size);
	if (rc == 0)
		rc = fab_build_parts(s, err, err_size);
	if (rc == 0)
		rc = fab_build_jobs(s, err, err_size);
	if (rc == 0)
		rc = fab_build_threads(s, err, err_size);
	if (rc != 0)
		return rc;
	fab_build_dirs(s);
	fab_build_drops(s);
	rc = fab_build_switches(s, err, err_size);
	if (rc == 0)
		rc = fab_build_hosts(s, err, err_size);
	return rc;
}
