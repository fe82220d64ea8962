/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building a run of ofan-fabric: the engines (one shared FIB, a switch
 * engine per switch, a host engine per rank), the links and which thread
 * owns what; tearing it down (every frame left anywhere is freed and
 * counted as queued); and collecting the results: per-flow completion
 * against its ideal, queue maxima per layer, drops by reason,
 * conservation.  The ideal model is documented at fab_oneway_ns (fab.h).
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
fab_full_frame_queue_bytes(const struct fab_params *p)
{
	return ofan_frame_queue_bytes(&p->queue.frame, OFAN_KIND_DATA,
				      OFAN_ETH_HDR_SIZE + p->host.mtu);
}

uint64_t
fab_oneway_ns(const struct fab_params *p, uint32_t hops)
{
	return fab_oneway_frame_ns(p, hops, OFAN_ETH_HDR_SIZE + p->host.mtu);
}

uint64_t
fab_oneway_frame_ns(const struct fab_params *p, uint32_t hops,
		    uint64_t frame_size)
{
	uint64_t frame = ofan_frame_wire_bytes(&p->queue.frame, OFAN_KIND_DATA,
		(uint32_t)RTE_MAX(frame_size, (uint64_t)60));

	if (hops < 2)
		return hops * p->delay_ns;
	return hops * p->delay_ns + ofan_tx_time_ns(frame, p->rate_bps) +
		(hops - 2) * ofan_tx_time_ns(frame, p->uplink_rate_bps);
}

uint64_t
fab_ack_back_ns(const struct fab_params *p, uint32_t hops)
{
	uint64_t frame = ofan_frame_wire_bytes(&p->queue.frame, OFAN_KIND_ACK,
					       RTE_MAX(OFAN_ACK_FRAME_SIZE, 60));
	uint32_t host_links = hops < 2 ? hops : 2;

	return hops * p->delay_ns +
		host_links * ofan_tx_time_ns(frame, p->rate_bps) +
		(hops - host_links) * ofan_tx_time_ns(frame, p->uplink_rate_bps);
}

uint32_t
fab_pool_size(const struct fab_params *p)
{
	uint64_t ports, links, hosts, n;
	uint64_t frame = fab_full_frame_queue_bytes(p) +
		p->queue.frame.overhead;
	uint64_t per_wire;

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
	n = ports * RTE_MIN(RTE_MIN((uint64_t)p->queue.capacity_pkts,
				    2 * (p->queue.capacity_bytes /
					 fab_full_frame_queue_bytes(p)) + 8),
			    (uint64_t)512) +
		links * 2 * per_wire + hosts * 256 + 4096;
	return (uint32_t)RTE_MIN(n, (uint64_t)(1u << 22));
}

/*
 * Which part owns each node: whole pods (fat tree) or groups of leaves
 * (leaf-spine) with their hosts, and an even share of the cores/spines.
 * Parts are numbered over the whole job (rank x threads + thread).
 */
static void
fab_partition(struct fab_sim *s)
{
	const struct fab_topo *t = s->t;
	uint32_t n = s->nb_parts, i, nb_top = 0, nb_low = 0;

	for (i = 0; i < t->nb_switches; i++) {
		if (t->sw[i].role == FAB_ROLE_CORE)
			nb_top++;
		else
			nb_low = RTE_MAX(nb_low, t->sw[i].pod + 1);
	}
	for (i = 0; i < t->nb_switches; i++) {
		const struct fab_switch_desc *d = &t->sw[i];

		s->sw_owner[i] = (uint16_t)(d->role == FAB_ROLE_CORE ?
			d->index * n / RTE_MAX(nb_top, 1u) :
			d->pod * n / RTE_MAX(nb_low, 1u));
	}
	for (i = 0; i < t->nb_hosts; i++)
		s->host_owner[i] = t->host_tor[i] == FAB_NONE ? 0 :
			s->sw_owner[t->host_tor[i]];
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
	return hs_traffic_trigger_split(&s->traffic, s->host_owner,
					&split) == 0 &&
		split == HS_NO_TRIGGER;
}

void
fab_sim_free(struct fab_sim *s)
{
	uint32_t i, k;

	for (i = 0; i < s->t->nb_hosts && s->hosts != NULL; i++)
		s->r->queued_end += fab_nic_free(&s->hosts[i].nic);
	for (i = 0; i < s->nb_dirs && s->dirs != NULL; i++) {
		for (k = 0; k < 2; k++)
			s->r->queued_end += fab_fifo_free(&s->dirs[i].out[k]);
	}
	for (i = 0; i < s->nb_dirs && s->rx != NULL; i++)
		s->r->queued_end += fab_fifo_free(&s->rx[i].wire);
	for (i = 0; i < s->t->nb_switches && s->sw != NULL; i++) {
		if (s->sw[i].eng == NULL)
			continue;
		s->r->queued_end += sw_engine_free_queues(s->sw[i].eng);
		sw_engine_free(s->sw[i].eng);
	}
	for (i = 0; i < s->t->nb_hosts && s->hosts != NULL; i++)
		hs_host_free(s->hosts[i].h);
	if (s->fib != NULL && s->fib_cache == NULL)
		sw_fib_free(s->fib);
	hs_traffic_free(&s->traffic);
	hs_trigger_state_fini(&s->trig);
	for (k = 0; s->job != NULL && k < (uint32_t)s->job->size; k++) {
		if (s->xout != NULL)
			fab_xbuf_free(&s->xout[k]);
		if (s->xin != NULL)
			fab_xbuf_free(&s->xin[k]);
	}
	free(s->xout);
	free(s->xin);
	for (k = 0; k < s->nb_thr; k++) {
		struct fab_thr *th = &s->thr[k];

		if (th->q != NULL)
			fab_evq_fini(th->q);
		free(th->q);
		free(th->qwin);
		free(th->in_dirs);
	}
	rte_free(s->dirs);
	rte_free(s->rx);
	free(s->hosts);
	free(s->sw);
	free(s->sw_owner);
	free(s->host_owner);
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
fab_fib_get(struct fab_sim *s, const struct sw_config *c, char *err,
	    unsigned int err_size)
{
	struct fab_fib_cache *fc = s->fib_cache;
	uint64_t *sig;
	uint32_t n;

	if (fc == NULL) {
		s->fib = sw_fib_create(c, SOCKET_ID_ANY, err, err_size);
		return s->fib == NULL ? -ENOMEM : 0;
	}
	sig = fab_fib_sig(c, &n);
	if (sig == NULL) {
		snprintf(err, err_size, "out of memory for the FIB");
		return -ENOMEM;
	}
	if (fc->fib != NULL && fc->nb_sig == n &&
	    memcmp(fc->sig, sig, n * sizeof(*sig)) == 0) {
		free(sig);
		s->fib = fc->fib;
		return 0;
	}
	fab_fib_cache_free(fc);
	s->fib = sw_fib_create(c, SOCKET_ID_ANY, err, err_size);
	if (s->fib == NULL) {
		free(sig);
		return -ENOMEM;
	}
	fc->fib = s->fib;
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

int
fab_sim_build(struct fab_sim *s, uint16_t scheme, char *err,
	      unsigned int err_size)
{
	const struct fab_params *p = s->p;
	struct fab_topo *t = s->t;
	uint32_t i, l, e, hops_max = 0;
	uint16_t tx_part, rx_part;
	uint8_t macs[SW_MAX_PORTS][6];

	s->frame_kinds = p->data_wire_bytes != 0 || p->ack_wire_bytes != 0;
	/* The hosts' configuration: the scheme's policy, the fabric's RTT. */
	s->hcfg = p->host;
	s->hcfg.path = "ofan-fabric";
	s->hcfg.policy = p->schemes[scheme].host_policy;
	s->hcfg.stats_interval_ns = 0;
	for (i = 0; i < (uint32_t)t->nb_hosts * t->nb_hosts; i++)
		hops_max = RTE_MAX(hops_max, (uint32_t)t->hops[i]);
	if (!p->base_rtt_set)
		s->hcfg.base_rtt_ns = fab_oneway_ns(p, hops_max) +
			ofan_tx_time_ns(fab_full_frame_queue_bytes(p) +
					p->queue.frame.overhead, p->rate_bps) +
			fab_ack_back_ns(p, hops_max);
	hs_config_derive(&s->hcfg);
	/* The copies carry no pointer (fab_experiment.c): point at this one's. */
	if (s->hcfg.cm_path[0] != '\0')
		s->hcfg.traffic.cm_path = s->hcfg.cm_path;
	if (hs_traffic_build(&s->hcfg.traffic, &s->traffic, err,
			     err_size) != 0 ||
	    hs_trigger_state_init(&s->trig, &s->traffic) != 0)
		return -EINVAL;

	s->nb_dirs = 2 * t->nb_links;
	s->dirs = rte_zmalloc_socket("fab_dirs", s->nb_dirs * sizeof(*s->dirs),
				     RTE_CACHE_LINE_SIZE, SOCKET_ID_ANY);
	s->rx = rte_zmalloc_socket("fab_rx", s->nb_dirs * sizeof(*s->rx),
				   RTE_CACHE_LINE_SIZE, SOCKET_ID_ANY);
	s->hosts = calloc(t->nb_hosts, sizeof(*s->hosts));
	s->sw = calloc(t->nb_switches + 1, sizeof(*s->sw));
	s->sw_owner = calloc(t->nb_switches + 1, sizeof(*s->sw_owner));
	s->host_owner = calloc(t->nb_hosts, sizeof(*s->host_owner));
	if (s->dirs == NULL || s->rx == NULL || s->hosts == NULL ||
	    s->sw == NULL || s->sw_owner == NULL || s->host_owner == NULL) {
		snprintf(err, err_size, "out of memory for the fabric");
		return -ENOMEM;
	}
	fab_partition(s);
	if (s->nb_parts > 1 && s->traffic.nb_triggers > 0 &&
	    !fab_triggers_local(s)) {
		/* One part, on rank 0 (the other ranks hold nothing). */
		s->one_part = true;
		s->nb_parts = 1;
		s->nb_thr = 1;
		s->thr_per_rank = 1;
		s->part0 = (uint16_t)(s->job != NULL ? s->job->rank : 0);
		s->bar.n = 1;
		fab_partition(s);
	}
	if (s->job != NULL) {
		s->xout = calloc((size_t)s->job->size, sizeof(*s->xout));
		s->xin = calloc((size_t)s->job->size, sizeof(*s->xin));
		if (s->xout == NULL || s->xin == NULL) {
			snprintf(err, err_size, "out of memory for the fabric");
			return -ENOMEM;
		}
	}
	for (i = 0; i < s->nb_thr; i++) {
		struct fab_thr *th = &s->thr[i];

		th->s = s;
		th->id = (uint16_t)i;
		th->q = malloc(sizeof(*th->q));
		th->in_dirs = calloc(s->nb_dirs, sizeof(*th->in_dirs));
		if (th->q == NULL || th->in_dirs == NULL) {
			snprintf(err, err_size, "out of memory for the event queues");
			return -ENOMEM;
		}
		fab_evq_init(th->q, s->t0);
		th->now = s->t0;
	}
	for (l = 0; l < t->nb_links; l++) {
		const struct fab_link_desc *k = &t->links[l];

		for (e = 0; e < 2; e++) {
			uint32_t id = 2 * l + e;
			struct fab_dir *d = &s->dirs[id];
			struct fab_rx *rx = &s->rx[id];

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
			tx_part = d->from_host ? s->host_owner[d->from] :
				s->sw_owner[d->from];
			rx_part = rx->to_host ? s->host_owner[rx->to] :
				s->sw_owner[rx->to];
			d->tx_local = fab_part_local(s, tx_part);
			d->rx_local = fab_part_local(s, rx_part);
			d->tx_owner = d->tx_local ? fab_part_thr(s, tx_part) : 0;
			d->rx_owner = d->rx_local ? fab_part_thr(s, rx_part) : 0;
			d->rx_rank = (uint16_t)(rx_part / s->thr_per_rank);
			d->cross = tx_part != rx_part;
			if (d->cross && d->rx_local) {
				struct fab_thr *th = &s->thr[d->rx_owner];

				th->in_dirs[th->nb_in++] = id;
			}
			if (d->from_host)
				s->hosts[d->from].dir = id;
			else
				s->sw[d->from].dir[d->from_port] = id;
		}
	}

	for (i = 0; i < p->nb_drops; i++) {
		struct fab_dir *d = &s->dirs[fab_topo_find_dir(t,
						p->drops[i].link)];

		d->drop_first = p->drops[i].frame;
		d->drop_end = p->drops[i].frame + p->drops[i].count;
	}

	/* Switches: one shared FIB, one worker each. */
	if (t->nb_switches > 0 &&
	    fab_fib_get(s, &t->cfg[0], err, err_size) != 0)
		return -ENOMEM;
	for (i = 0; i < t->nb_switches; i++) {
		const struct sw_config *c = &t->cfg[i];
		uint16_t port;

		s->sw[i].nb_ports = c->nb_ports;
		if (!fab_part_local(s, s->sw_owner[i]))
			continue;	/* another rank's */
		for (port = 0; port < c->nb_ports; port++)
			memcpy(macs[port], c->ports[port].mac, 6);
		s->sw[i].eng = sw_engine_create_shared(c, 1,
			(const uint8_t (*)[6])macs, SOCKET_ID_ANY, s->fib,
			err, err_size);
		if (s->sw[i].eng == NULL)
			return -ENOMEM;
		s->sw[i].w = sw_engine_worker(s->sw[i].eng, 0);
		s->sw[i].nb_ports = c->nb_ports;
	}

	/* Hosts. */
	for (i = 0; i < t->nb_hosts; i++) {
		const struct fab_link_desc *k = &t->links[t->host_link[i]];
		struct hs_host_params hp = {
			.cfg = &s->hcfg,
			.traffic = &s->traffic,
			.rank = i,
			.pool = s->pool,
			.no_announce = true,
			.on_flow_end = fab_sim_flow_end,
			.on_flow_end_arg = s,
			.nic_full = fab_nic_full,
			.nic_arg = &s->hosts[i].nic,
		};

		s->hosts[i].wake_at = UINT64_MAX;
		if (!fab_part_local(s, s->host_owner[i]))
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
		s->hosts[i].h = hs_host_create(&hp, err, err_size);
		if (s->hosts[i].h == NULL)
			return -ENOMEM;
		if (fab_nic_init(&s->hosts[i].nic,
				 hs_host_nic_slots(s->hosts[i].h)) != 0) {
			snprintf(err, err_size, "out of memory for the NICs");
			return -ENOMEM;
		}
		s->hosts[i].nic.limit = p->nic_queue;
		s->hosts[i].wake_at = UINT64_MAX;
	}
	return 0;
}

/* ---- results ---- */

static int
fab_cmp_qwin(const void *a, const void *b)
{
	const struct fab_qwin *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return (int)x->end - (int)y->end;
}

/* Every thread's queue windows, in one canonical order. */
static void
fab_collect_qwin(struct fab_sim *s)
{
	struct fab_run *r = s->r;
	uint32_t n = 0, i;

	for (i = 0; i < s->nb_thr; i++)
		n += s->thr[i].nb_qwin;
	r->qwin = malloc((n + 1) * sizeof(*r->qwin));
	if (r->qwin == NULL)
		return;
	for (i = 0; i < s->nb_thr; i++) {
		memcpy(&r->qwin[r->nb_qwin], s->thr[i].qwin,
		       s->thr[i].nb_qwin * sizeof(*r->qwin));
		r->nb_qwin += s->thr[i].nb_qwin;
	}
	r->qwin_cap = n + 1;
	qsort(r->qwin, r->nb_qwin, sizeof(*r->qwin), fab_cmp_qwin);
}

/* hs_host_policy_dump()'s emit: sum a counter into the run's. */
static void
fab_policy_add(void *arg, const char *key, uint64_t value)
{
	struct fab_run *r = arg;
	unsigned int i;

	for (i = 0; i < r->nb_policy; i++)
		if (strcmp(r->policy[i].key, key) == 0) {
			r->policy[i].value += value;
			return;
		}
	if (r->nb_policy < FAB_MAX_POLICY_COUNTERS) {
		snprintf(r->policy[i].key, sizeof(r->policy[i].key), "%s", key);
		r->policy[r->nb_policy++].value = value;
	}
}

/* This rank's hosts', switches' and threads' counters, into s->r. */
static int
fab_collect_counters(struct fab_sim *s)
{
	struct fab_run *r = s->r;
	struct sw_totals *tot = malloc(sizeof(*tot));
	uint32_t f, i;
	uint16_t port;

	if (tot == NULL)
		return -ENOMEM;
	for (i = 0; i < s->t->nb_hosts; i++) {
		const struct hs_host_stats *st;

		if (s->hosts[i].h == NULL)
			continue;	/* another rank's */
		st = hs_host_stats(s->hosts[i].h);
		r->retx += st->data_retx;
		r->timeouts += st->timeouts;
		r->data_sent += st->data_sent;
		r->corrupt += st->corrupt_pkts;
		r->alloc_failed += st->alloc_failed;
#define FAB_HOST_SUM(field, what) r->hosts.field += st->field;
		HS_HOST_COUNTERS(FAB_HOST_SUM)
#undef FAB_HOST_SUM
		hs_host_policy_dump(s->hosts[i].h, fab_policy_add, r);
	}
	for (i = 0; i < s->t->nb_switches; i++) {
		if (s->sw[i].eng == NULL)
			continue;
		sw_engine_totals(s->sw[i].eng, tot);
		for (f = 0; f < OFAN_DROP_MAX; f++)
			r->drops[f] += tot->drops[f];
		for (port = 0; port < s->sw[i].nb_ports; port++) {
			const struct fab_dir *d = &s->dirs[s->sw[i].dir[port]];
			const struct sw_queue_stats *q = &tot->queue[port];

			r->ecn_marks += q->ecn_marked;
			r->max_queue[d->layer] = RTE_MAX(r->max_queue[d->layer],
							 q->max_pkts);
			r->max_queue_all = RTE_MAX(r->max_queue_all,
						   q->max_pkts);
			r->max_queue_bytes[d->layer] = RTE_MAX(
				r->max_queue_bytes[d->layer], q->max_bytes);
			r->max_queue_bytes_all = RTE_MAX(
				r->max_queue_bytes_all, q->max_bytes);
		}
	}
	for (i = 0; i < s->nb_thr; i++) {
		r->drops[OFAN_DROP_SHUTDOWN] += s->thr[i].lost;
		r->drops[OFAN_DROP_INJECTED] += s->thr[i].dropped_on_purpose;
		r->drops[OFAN_DROP_BLACKHOLE] += s->thr[i].blackholed;
	}
	free(tot);
	return 0;
}

/* Add another rank's counters (fab_collect_counters) to r's. */
static void
fab_run_merge(struct fab_run *r, const struct fab_run *o)
{
	uint32_t i, l;

#define FAB_RUN_ADD(field, what) r->field += o->field;
	FAB_RUN_COUNTERS(FAB_RUN_ADD)
#undef FAB_RUN_ADD
#define FAB_HOST_ADD(field, what) r->hosts.field += o->hosts.field;
	HS_HOST_COUNTERS(FAB_HOST_ADD)
#undef FAB_HOST_ADD
	for (i = 0; i < OFAN_DROP_MAX; i++)
		r->drops[i] += o->drops[i];
	for (l = 0; l < FAB_L_NB; l++) {
		r->max_queue[l] = RTE_MAX(r->max_queue[l], o->max_queue[l]);
		r->max_queue_bytes[l] = RTE_MAX(r->max_queue_bytes[l],
						o->max_queue_bytes[l]);
	}
	r->max_queue_all = RTE_MAX(r->max_queue_all, o->max_queue_all);
	r->max_queue_bytes_all = RTE_MAX(r->max_queue_bytes_all,
					 o->max_queue_bytes_all);
	/* In the order keys first appear, rank after rank (host order). */
	for (i = 0; i < o->nb_policy; i++)
		fab_policy_add(r, o->policy[i].key, o->policy[i].value);
	r->events += o->events;
	r->hops += o->hops;
	r->injected += o->injected;
	r->delivered += o->delivered;
	r->peak_rss_mb = RTE_MAX(r->peak_rss_mb, o->peak_rss_mb);
}

/* Flow f as another rank saw it: its side(s) into res. */
static void
fab_flow_merge(struct hs_flow_result *res, const struct hs_flow_result *o)
{
	if (o->sent_here) {
		res->sent_here = true;
		res->start_ns = o->start_ns;
		res->done_ns = o->done_ns;
		res->pkts_sent = o->pkts_sent;
		res->retx = o->retx;
		res->timeouts = o->timeouts;
		res->acks = o->acks;
		res->ce_acks = o->ce_acks;
		res->distinct_evs = o->distinct_evs;
		res->min_rtt_ns = o->min_rtt_ns;
	}
	if (o->received_here) {
		res->received_here = true;
		res->rx_done_ns = o->rx_done_ns;
		res->rx_pkts = o->rx_pkts;
		res->max_reorder = o->max_reorder;
		res->dups = o->dups;
		res->ce_pkts = o->ce_pkts;
		res->corrupt = o->corrupt;
	}
}

/*
 * --spread parts: rank 0 gathers every rank's counters, flow results and
 * queue windows and merges them into what one process would have.
 */
static int
fab_collect_merge(struct fab_sim *s, struct hs_flow_result *res)
{
	const struct fab_job *j = s->job;
	struct fab_run *r = s->r;
	uint32_t n = s->traffic.nb_flows, f, nq;
	struct fab_xbuf mine = { 0 }, *all;
	int k, rc = 0;

	all = calloc((size_t)j->size, sizeof(*all));
	if (all == NULL)
		return -ENOMEM;
	if (fab_xbuf_put(&mine, r, sizeof(*r)) != 0 ||
	    fab_xbuf_put(&mine, res, n * sizeof(*res)) != 0 ||
	    fab_xbuf_put(&mine, r->qwin, r->nb_qwin * sizeof(*r->qwin)) != 0)
		rc = -ENOMEM;	/* still take part: the others wait */
	fab_job_gather(j, mine.b, mine.len, all);
	for (k = 1; j->rank == 0 && k < j->size; k++) {
		const uint8_t *b = all[k].b;
		struct fab_run o;
		struct fab_qwin *q;

		if (all[k].len < sizeof(o) + n * sizeof(*res)) {
			rc = -EIO;
			continue;
		}
		memcpy(&o, b, sizeof(o));
		b += sizeof(o);
		fab_run_merge(r, &o);
		for (f = 0; f < n; f++) {
			struct hs_flow_result x;

			memcpy(&x, b + f * sizeof(x), sizeof(x));
			fab_flow_merge(&res[f], &x);
		}
		b += n * sizeof(*res);
		nq = o.nb_qwin;
		q = realloc(r->qwin, (r->nb_qwin + nq + 1) * sizeof(*q));
		if (q == NULL) {
			rc = -ENOMEM;
			continue;
		}
		memcpy(&q[r->nb_qwin], b, nq * sizeof(*q));
		r->qwin = q;
		r->nb_qwin += nq;
		r->qwin_cap = r->nb_qwin + 1;
	}
	if (j->rank == 0 && r->qwin != NULL)
		qsort(r->qwin, r->nb_qwin, sizeof(*r->qwin), fab_cmp_qwin);
	for (k = 0; k < j->size; k++)
		fab_xbuf_free(&all[k]);
	free(all);
	fab_xbuf_free(&mine);
	return rc;
}

/* Per flow: completion against its ideal, and the run's summary. */
static int
fab_collect_flows(struct fab_sim *s, const struct hs_flow_result *res_all)
{
	const struct fab_params *p = s->p;
	const struct hs_traffic *tr = &s->traffic;
	struct fab_run *r = s->r;
	uint32_t n = tr->nb_flows;
	uint64_t *send_ns = calloc(n + 1, sizeof(*send_ns));
	uint64_t *recv_ns = calloc(n + 1, sizeof(*recv_ns));
	uint64_t *begin = calloc(n + 1, sizeof(*begin));
	struct hs_flow_times *times = calloc(n + 1, sizeof(*times));
	double *slow = calloc(n + 1, sizeof(*slow));
	struct hs_flow_summary sum;
	uint32_t f;
	int rc = 0;

	r->nb_flows = n;
	r->flows = calloc(n + 1, sizeof(*r->flows));
	if (send_ns == NULL || recv_ns == NULL || begin == NULL ||
	    times == NULL || slow == NULL || r->flows == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/*
	 * Ideal: the flow's bytes at its paced rate, the path there (one full
	 * frame stored and forwarded per switch) and an ACK's way back; a
	 * flow that waits begins in the ideal schedule when its input has
	 * arrived or its trigger fired there (hs_traffic_ideal_begin).
	 */
	for (f = 0; f < n; f++) {
		const struct hs_flow_spec *sp = &tr->flows[f];
		uint32_t hops = s->t->hops[sp->src * s->t->nb_hosts + sp->dst];
		uint64_t frame = RTE_MIN(OFAN_DATA_HDRS_SIZE + sp->size,
					 OFAN_ETH_HDR_SIZE + (uint64_t)p->host.mtu);

		recv_ns[f] = hs_flow_paced_ns(&s->hcfg, tr, f,
					      tr->concurrency) +
			fab_oneway_frame_ns(p, hops, frame);
		send_ns[f] = recv_ns[f] + fab_ack_back_ns(p, hops);
	}
	rc = hs_traffic_ideal_begin(tr, send_ns, recv_ns, begin);
	if (rc != 0)
		goto out;
	for (f = 0; f < n; f++) {
		const struct hs_flow_spec *sp = &tr->flows[f];
		const struct hs_flow_result *res = &res_all[f];
		struct fab_flow_result *fr = &r->flows[f];

		fr->ideal_ns = send_ns[f];
		fr->src = sp->src;
		fr->dst = sp->dst;
		fr->size = sp->size;
		fr->start_ns = res->start_ns;
		fr->retx = res->retx;
		fr->timeouts = res->timeouts;
		fr->max_reorder = res->max_reorder;
		fr->acks = res->acks;
		fr->ce_acks = res->ce_acks;
		fr->rx_pkts = res->rx_pkts;
		fr->rx_done_ns = res->rx_done_ns;
		times[f].start_ns = res->start_ns;
		times[f].done_ns = res->sent_here ? res->done_ns : 0;
		times[f].ideal_ns = send_ns[f];
		times[f].ideal_begin_ns = begin[f];
		if (times[f].done_ns != 0)
			fr->fct_ns = res->done_ns - res->start_ns;
	}
	rc = hs_flow_summarise(times, n, slow, &sum);
	if (rc != 0)
		goto out;
	for (f = 0; f < n; f++)
		r->flows[f].slowdown = slow[f];
	r->nb_completed = sum.nb_completed;
	r->max_slowdown = sum.max_slowdown;
	r->p99_slowdown = sum.p99_slowdown;
	r->mean_fct_ns = sum.mean_fct_ns;
	r->collective_ns = sum.collective_ns;
	r->ideal_collective_ns = sum.collective_ideal_ns;
	r->full_frame = fab_full_frame_queue_bytes(p);
	for (f = 0; f < OFAN_DROP_MAX; f++)
		r->drops_total += r->drops[f];
	r->dropped = r->drops_total;
	r->one_part = s->one_part;
out:
	free(send_ns);
	free(recv_ns);
	free(begin);
	free(times);
	free(slow);
	return rc;
}

int
fab_sim_collect(struct fab_sim *s)
{
	uint32_t n = s->traffic.nb_flows, f, i;
	struct hs_flow_result *res = calloc(n + 1, sizeof(*res));
	int rc = res == NULL ? -ENOMEM : 0;

	/* What this rank's hosts saw of each flow (both ends, if here). */
	for (f = 0; res != NULL && f < n; f++) {
		const struct hs_flow_spec *sp = &s->traffic.flows[f];
		uint32_t end[2] = { sp->src, sp->dst };

		for (i = 0; i < 2; i++)
			if (s->hosts[end[i]].h != NULL)
				hs_host_flow_result(s->hosts[end[i]].h, f,
						    &res[f]);
	}
	fab_collect_qwin(s);
	if (rc == 0)
		rc = fab_collect_counters(s);
	if (s->job != NULL && fab_collect_merge(s, res) != 0)
		rc = -ENOMEM;
	if (rc == 0 && (s->job == NULL || s->job->rank == 0))
		rc = fab_collect_flows(s, res);
	free(res);
	return rc;
}
