/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch engine: construction, the per-burst pipeline of a worker and
 * the control plane (failures, group snapshots).  See sw_engine.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ofan_parse.h"
#include "ofan_rng.h"
#include "ofan_wire.h"
#include "sw_engine.h"
#include "sw_parse_fast.h"

/* Route index reserved for the switch's own addresses (local delivery). */
#define SW_ROUTE_LOCAL (SW_MAX_ROUTES)

/* Per-port failure bookkeeping of the control plane. */
struct sw_port_ctl {
	uint64_t withdraw_at;	/* 0 = nothing pending */
	uint64_t restore_at;
	bool withdrawn;
};

/* A scheduled link change from the config's failure list. */
struct sw_event {
	uint64_t at_ns;
	uint16_t port;
	uint8_t mode;
	uint64_t rate_bps;
	bool done;
};

struct sw_engine {
	struct sw_config cfg;
	struct rte_lpm *fib;
	bool fib_owned;		/* false: shared with other engines */
	uint16_t route_group[SW_MAX_ROUTES + 1];
	uint32_t route_key[SW_MAX_ROUTES + 1];
	uint32_t hash_seed;
	unsigned int parse_flags;

	/* Groups: master copy (control), two snapshots (workers). */
	struct lb_group *master;
	uint16_t *base_weight;	/* [group * LB_MAX_MEMBERS + member] */
	struct lb_group *snap[2];
	volatile uint32_t gen;
	bool dirty;

	struct sw_port_state port[SW_MAX_PORTS];
	struct sw_port_ctl ctl[SW_MAX_PORTS];
	struct sw_event events[2 * SW_MAX_FAILURES];
	uint16_t nb_events;

	/* One pending request from another thread (telemetry). */
	volatile uint32_t req_pending;
	uint16_t req_port;
	uint8_t req_mode;
	uint64_t req_rate;

	uint16_t nb_workers;
	struct sw_worker *workers;
};

static size_t
sw_groups_size(const struct sw_engine *eng)
{
	return sizeof(struct lb_group) * (eng->cfg.nb_groups ? eng->cfg.nb_groups : 1);
}

/* Copy the master groups into snapshot gen & 1 and publish it. */
static void
sw_engine_publish(struct sw_engine *eng)
{
	uint32_t next = eng->gen + 1;
	struct lb_group *s = eng->snap[next & 1];
	uint16_t i;

	for (i = 0; i < eng->nb_workers; i++)
		if (eng->workers[i].acked_gen != eng->gen)
			return;	/* someone still reads the other snapshot */
	for (i = 0; i < eng->cfg.nb_groups; i++)
		lb_group_refresh(&eng->master[i]);
	memcpy(s, eng->master, sw_groups_size(eng));
	__atomic_store_n(&eng->gen, next, __ATOMIC_RELEASE);
	eng->dirty = false;
}

/* Adopt the newest snapshot, if any, and tell the policy. */
static inline void
sw_worker_sync(struct sw_worker *w)
{
	struct sw_engine *eng = w->eng;
	uint32_t gen = __atomic_load_n(&eng->gen, __ATOMIC_ACQUIRE);
	uint16_t i;

	if (likely(gen == w->groups_gen))
		return;
	memcpy(w->groups, eng->snap[gen & 1], sw_groups_size(eng));
	for (i = 0; i < eng->cfg.nb_groups; i++)
		if (eng->cfg.policy->group_changed != NULL)
			eng->cfg.policy->group_changed(w->lb_state,
						       &w->groups[i]);
	w->groups_gen = gen;
	__atomic_store_n(&w->acked_gen, gen, __ATOMIC_RELEASE);
}

struct rte_lpm *
sw_fib_create(const struct sw_config *c, int socket, char *err,
	      unsigned int err_size)
{
	struct rte_lpm_config lc = {
		.max_rules = c->nb_routes + c->nb_ports + 17,
		/* One tbl8 group per route longer than /24, at most. */
		.number_tbl8s = RTE_MAX(256u, c->nb_routes + c->nb_ports),
	};
	static uint32_t nb_fibs;
	struct rte_lpm *fib;
	char name[64];
	uint32_t i;
	int rc;

	snprintf(name, sizeof(name), "ofan_fib_%u", nb_fibs++);
	fib = rte_lpm_create(name, socket, &lc);
	if (fib == NULL) {
		snprintf(err, err_size, "cannot create the FIB (rte_lpm): %s",
			 rte_strerror(rte_errno));
		return NULL;
	}
	/*
	 * rte_lpm takes depths 1 to 32 only: a default route (/0) goes in
	 * as its two /1 halves, before every other route, so that a /1 of
	 * the configuration still replaces its half.  The next hop is the
	 * route's index; each engine maps it to its own group and key.
	 */
	for (i = 0; i < 2 * c->nb_routes; i++) {
		const struct sw_route_config *r = &c->routes[i % c->nb_routes];
		uint32_t id = i % c->nb_routes;

		if ((r->depth == 0) != (i < c->nb_routes))
			continue;
		if (r->depth == 0) {
			rc = rte_lpm_add(fib, 0, 1, id);
			if (rc == 0)
				rc = rte_lpm_add(fib, UINT32_C(1) << 31, 1, id);
		} else {
			rc = rte_lpm_add(fib, r->prefix, r->depth, id);
		}
		if (rc < 0) {
			snprintf(err, err_size, "%s: route %u: rte_lpm_add failed: %s",
				 c->path ? c->path : "config", id,
				 strerror(-rc));
			goto fail;
		}
	}
	/* The switch's own addresses are delivered locally (not forwarded). */
	for (i = 0; i < c->nb_ports; i++) {
		if (c->ports[i].ip == 0)
			continue;
		rc = rte_lpm_add(fib, c->ports[i].ip, 32, SW_ROUTE_LOCAL);
		if (rc < 0) {
			snprintf(err, err_size, "port %u: cannot add its address to the FIB: %s",
				 i, strerror(-rc));
			goto fail;
		}
	}
	return fib;
fail:
	rte_lpm_free(fib);
	return NULL;
}

void
sw_fib_free(struct rte_lpm *fib)
{
	rte_lpm_free(fib);
}

static int
sw_engine_build_fib(struct sw_engine *eng, struct rte_lpm *shared,
		    int socket, char *err, unsigned int err_size)
{
	const struct sw_config *c = &eng->cfg;
	uint32_t i;

	for (i = 0; i < c->nb_routes; i++) {
		eng->route_group[i] = c->routes[i].group;
		eng->route_key[i] = c->routes[i].dst_key;
	}
	if (shared != NULL) {
		eng->fib = shared;
		return 0;
	}
	eng->fib = sw_fib_create(c, socket, err, err_size);
	eng->fib_owned = eng->fib != NULL;
	return eng->fib != NULL ? 0 : -ENOMEM;
}

static int
sw_engine_init_worker(struct sw_engine *eng, struct sw_worker *w,
		      uint16_t id, int socket, char *err,
		      unsigned int err_size)
{
	const struct sw_config *c = &eng->cfg;
	struct lb_params p = { .settings = lb_settings_of(&c->lb, c->policy) };
	uint16_t i;
	int rc;

	w->eng = eng;
	w->id = id;
	ofan_rng_seed(&w->rng, c->seed, 0x5157000u + id);
	w->hash_seed = eng->hash_seed;
	w->groups = rte_zmalloc_socket("sw_groups", sw_groups_size(eng),
				       RTE_CACHE_LINE_SIZE, socket);
	if (w->groups == NULL) {
		snprintf(err, err_size, "out of memory for groups");
		return -ENOMEM;
	}
	for (i = 0; i < c->nb_ports; i++) {
		rc = sw_queue_init(&w->queue[i], &c->ports[i].queue, c->burst,
				   socket);
		if (rc != 0) {
			snprintf(err, err_size, "out of memory for the egress queue of port %u",
				 i);
			return rc;
		}
		w->port_cap[i] = w->queue[i].cap_pkts;
		w->port_cap_bytes[i] = w->queue[i].cap_bytes;
	}
	/*
	 * Each worker's policy instance gets its own stream of the switch
	 * seed; ECMP hashes with the per-switch hash seed and so agrees
	 * across workers.
	 */
	p.seed = c->seed * 0x9e3779b97f4a7c15ull + id;
	p.nb_groups = c->nb_groups;
	p.nb_dst_keys = c->nb_dst_keys;
	p.nb_ports = c->nb_ports;
	rc = c->policy->create(&p, &w->lb_state);
	if (rc != 0) {
		snprintf(err, err_size, "policy %s: cannot create: %s",
			 c->policy->name, strerror(-rc));
		return rc;
	}
	/* Force the first sync to copy the groups and inform the policy. */
	w->groups_gen = UINT32_MAX;
	w->acked_gen = UINT32_MAX;
	sw_worker_sync(w);
	return 0;
}

struct sw_engine *
sw_engine_create(const struct sw_config *cfg, uint16_t nb_workers,
		 const uint8_t (*port_macs)[6], int socket, char *err,
		 unsigned int err_size)
{
	return sw_engine_create_shared(cfg, nb_workers, port_macs, socket,
				       NULL, err, err_size);
}

struct sw_engine *
sw_engine_create_shared(const struct sw_config *cfg, uint16_t nb_workers,
			const uint8_t (*port_macs)[6], int socket,
			struct rte_lpm *fib, char *err, unsigned int err_size)
{
	struct sw_engine *eng;
	uint64_t x;
	uint16_t i, j;

	if (nb_workers == 0 || nb_workers > SW_MAX_WORKERS) {
		snprintf(err, err_size, "%u workers; expected 1 to %d",
			 nb_workers, SW_MAX_WORKERS);
		return NULL;
	}
	eng = rte_zmalloc_socket("sw_engine", sizeof(*eng), RTE_CACHE_LINE_SIZE,
				 socket);
	if (eng == NULL) {
		snprintf(err, err_size, "out of memory for the engine");
		return NULL;
	}
	eng->cfg = *cfg;
	x = cfg->seed;
	eng->hash_seed = (uint32_t)ofan_splitmix64(&x);
	eng->parse_flags = cfg->verify_checksum ? OFAN_PARSE_F_VERIFY_CSUM : 0;
	eng->nb_workers = nb_workers;
	if (sw_engine_build_fib(eng, fib, socket, err, err_size) != 0)
		goto fail;

	eng->master = rte_zmalloc_socket("sw_master", sw_groups_size(eng), 0,
					 socket);
	eng->snap[0] = rte_zmalloc_socket("sw_snap", sw_groups_size(eng), 0,
					  socket);
	eng->snap[1] = rte_zmalloc_socket("sw_snap", sw_groups_size(eng), 0,
					  socket);
	eng->base_weight = rte_zmalloc_socket("sw_weights",
		sizeof(uint16_t) * LB_MAX_MEMBERS * (cfg->nb_groups + 1), 0,
		socket);
	eng->workers = rte_zmalloc_socket("sw_workers",
		sizeof(struct sw_worker) * nb_workers, RTE_CACHE_LINE_SIZE,
		socket);
	if (eng->master == NULL || eng->snap[0] == NULL ||
	    eng->snap[1] == NULL || eng->base_weight == NULL ||
	    eng->workers == NULL) {
		snprintf(err, err_size, "out of memory for groups and workers");
		goto fail;
	}
	for (i = 0; i < cfg->nb_groups; i++) {
		struct lb_group *g = &eng->master[i];

		g->id = i;
		g->nb_members = cfg->groups[i].nb_members;
		for (j = 0; j < g->nb_members; j++) {
			g->port[j] = cfg->groups[i].port[j];
			g->weight[j] = cfg->groups[i].weight[j];
			eng->base_weight[i * LB_MAX_MEMBERS + j] = g->weight[j];
		}
		lb_group_refresh(g);
	}
	memcpy(eng->snap[0], eng->master, sw_groups_size(eng));
	eng->gen = 0;

	for (i = 0; i < cfg->nb_ports; i++) {
		struct sw_port_state *ps = &eng->port[i];

		memcpy(ps->mac, cfg->ports[i].mac_set ? cfg->ports[i].mac :
		       port_macs[i], 6);
		if (cfg->ports[i].peer_mac_set) {
			memcpy(ps->peer_mac, cfg->ports[i].peer_mac, 6);
			ps->peer_known = 1;
		} else {
			memset(ps->peer_mac, 0xff, 6);
		}
		ps->link = SW_LINK_UP;
		ps->rate_bps = cfg->ports[i].queue.rate_bps;
	}
	for (i = 0; i < cfg->nb_failures; i++) {
		const struct sw_failure_config *f = &cfg->failures[i];
		struct sw_event *e = &eng->events[eng->nb_events++];

		e->at_ns = f->at_ns;
		e->port = f->port;
		e->mode = f->mode;
		e->rate_bps = f->rate_bps;
		if (f->duration_ns != 0) {
			e = &eng->events[eng->nb_events++];
			e->at_ns = f->at_ns + f->duration_ns;
			e->port = f->port;
			e->mode = SW_LINK_UP;
		}
	}
	for (i = 0; i < nb_workers; i++)
		if (sw_engine_init_worker(eng, &eng->workers[i], i, socket,
					  err, err_size) != 0)
			goto fail;
	return eng;
fail:
	sw_engine_free(eng);
	return NULL;
}

uint32_t
sw_engine_free_queues(struct sw_engine *eng)
{
	uint32_t freed = 0;
	uint16_t i, p;

	for (i = 0; eng->workers != NULL && i < eng->nb_workers; i++) {
		struct sw_worker *w = &eng->workers[i];

		for (p = 0; p < eng->cfg.nb_ports; p++) {
			struct sw_queue *q = &w->queue[p];

			while (q->ring != NULL && q->head != q->tail) {
				rte_pktmbuf_free(q->ring[q->head & q->mask]);
				q->head++;
				w->port_st[p].egress_drops++;
				w->drops[OFAN_DROP_SHUTDOWN]++;
				freed++;
			}
			q->bytes = 0;
		}
	}
	return freed;
}

uint32_t
sw_engine_free(struct sw_engine *eng)
{
	uint32_t freed;
	uint16_t i, p;

	if (eng == NULL)
		return 0;
	freed = sw_engine_free_queues(eng);
	for (i = 0; eng->workers != NULL && i < eng->nb_workers; i++) {
		struct sw_worker *w = &eng->workers[i];

		for (p = 0; p < eng->cfg.nb_ports; p++)
			sw_queue_fini(&w->queue[p]);
		if (w->lb_state != NULL)
			eng->cfg.policy->destroy(w->lb_state);
		rte_free(w->groups);
	}
	rte_free(eng->workers);
	rte_free(eng->master);
	rte_free(eng->snap[0]);
	rte_free(eng->snap[1]);
	rte_free(eng->base_weight);
	if (eng->fib_owned)
		rte_lpm_free(eng->fib);
	rte_free(eng);
	return freed;
}

const struct sw_config *
sw_engine_config(const struct sw_engine *eng)
{
	return &eng->cfg;
}

struct sw_worker *
sw_engine_worker(struct sw_engine *eng, uint16_t id)
{
	return id < eng->nb_workers ? &eng->workers[id] : NULL;
}

uint16_t
sw_engine_nb_workers(const struct sw_engine *eng)
{
	return eng->nb_workers;
}

struct sw_port_state *
sw_engine_port(struct sw_engine *eng, uint16_t port)
{
	return port < eng->cfg.nb_ports ? &eng->port[port] : NULL;
}

const struct lb_group *
sw_engine_group(struct sw_engine *eng, uint16_t g)
{
	return g < eng->cfg.nb_groups ? &eng->master[g] : NULL;
}

/* ---- data path ---- */

static inline void
sw_worker_drop(struct sw_worker *w, uint16_t in_port, struct rte_mbuf *m,
	       enum ofan_drop reason)
{
	w->drops[reason]++;
	w->port_st[in_port].drops++;
	rte_pktmbuf_free(m);
}

/*
 * A packet was queued at now.  If it found the queue empty the link was
 * idle, so the shaper may start it no earlier than now: an idle link banks
 * no credit (see sw_queue_peek()).
 */
static inline void
sw_worker_queued(struct sw_queue *q, uint64_t now_ns)
{
	if (sw_queue_len(q) == 1 && q->next_tx_ns < now_ns)
		q->next_tx_ns = now_ns;
}

/*
 * ARP: answer requests for the in-port's address in place, and learn the
 * peer's MAC from anything the peer says (unless configured).
 */
static void
sw_worker_arp(struct sw_worker *w, uint16_t in_port, struct rte_mbuf *m,
	      const struct ofan_pkt_info *info, uint64_t now_ns)
{
	struct sw_engine *eng = w->eng;
	struct sw_port_state *ps = &eng->port[in_port];
	uint32_t my_ip = eng->cfg.ports[in_port].ip;
	struct ofan_eth_hdr *eth;
	struct ofan_arp *arp;

	if (!eng->cfg.ports[in_port].peer_mac_set && info->arp_spa != 0) {
		memcpy(ps->peer_mac, info->arp_sha, 6);
		ps->peer_known = 1;
	}
	if (info->arp_oper != OFAN_ARP_OP_REQUEST || my_ip == 0 ||
	    info->arp_tpa != my_ip) {
		sw_worker_drop(w, in_port, m, OFAN_DROP_NOT_FOR_US);
		return;
	}
	eth = rte_pktmbuf_mtod(m, struct ofan_eth_hdr *);
	arp = rte_pktmbuf_mtod_offset(m, struct ofan_arp *, info->l3_offset);
	memcpy(eth->dst, info->arp_sha, 6);
	memcpy(eth->src, ps->mac, 6);
	arp->oper = rte_cpu_to_be_16(OFAN_ARP_OP_REPLY);
	memcpy(arp->tha, info->arp_sha, 6);
	arp->tpa = rte_cpu_to_be_32(info->arp_spa);
	memcpy(arp->sha, ps->mac, 6);
	arp->spa = rte_cpu_to_be_32(my_ip);
	if (!sw_queue_enqueue(&w->queue[in_port], m, info->l3_offset, false,
			      &w->rng)) {
		w->port_st[in_port].egress_drops++;
		sw_worker_drop(w, in_port, m, OFAN_DROP_QUEUE_FULL);
		return;
	}
	sw_worker_queued(&w->queue[in_port], now_ns);
	w->port_st[in_port].arp_replies++;
}

/*
 * Parse a frame chained over several mbufs (jumbo frames from PMDs with
 * small buffers).  Every header the parser reads lies within the first
 * SW_PARSE_HDR_SIZE bytes (VLAN + a 60-byte IPv4 header + UDP + BTH + ACK
 * extension < 128), so those are copied out and the lengths are checked
 * against the whole frame.  The rewrite stage writes the Ethernet and IPv4
 * headers in place, so they must lie in the first segment.
 */
#define SW_PARSE_HDR_SIZE 128

static int
sw_parse_chained(const struct rte_mbuf *m, unsigned int flags,
		 struct ofan_pkt_info *info)
{
	uint8_t hdr[SW_PARSE_HDR_SIZE] = { 0 };
	uint32_t n = RTE_MIN(m->pkt_len, (uint32_t)SW_PARSE_HDR_SIZE);
	const uint8_t *p = rte_pktmbuf_read(m, 0, n, hdr);
	int v;

	if (p == NULL)
		return OFAN_DROP_RUNT;
	if (p != hdr)
		memcpy(hdr, p, n);
	v = ofan_parse(hdr, m->pkt_len, flags, info);
	if (v != OFAN_PARSE_OK)
		return v;
	if (info->kind == OFAN_KIND_ARP)
		return rte_pktmbuf_data_len(m) < info->l3_offset +
			sizeof(struct ofan_arp) ? OFAN_DROP_ARP_MALFORMED : v;
	return rte_pktmbuf_data_len(m) < info->l3_offset + OFAN_IPV4_HDR_SIZE ?
		OFAN_DROP_IP_TRUNCATED : v;
}

/* Rewrite for the egress port: MACs, TTL - 1, incremental checksum. */
static inline void
sw_rewrite(struct rte_mbuf *m, uint16_t l3_offset,
	   const struct sw_port_state *ps)
{
	struct ofan_eth_hdr *eth = rte_pktmbuf_mtod(m, struct ofan_eth_hdr *);
	struct ofan_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct ofan_ipv4_hdr *, l3_offset);
	uint32_t sum;

	memcpy(eth->dst, ps->peer_mac, 6);
	memcpy(eth->src, ps->mac, 6);
	ip->ttl--;
	/* RFC 1624: the TTL is the high byte of its 16-bit word. */
	sum = (uint32_t)ip->checksum + rte_cpu_to_be_16(0x0100);
	ip->checksum = (uint16_t)(sum + (sum >> 16));
}

void
sw_worker_input(struct sw_worker *w, uint16_t in_port,
		struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns)
{
	struct sw_engine *eng = w->eng;
	struct ofan_pkt_info info;
	struct lb_pkt meta[SW_MAX_BURST];
	struct rte_mbuf *fwd[SW_MAX_BURST];
	uint16_t l3[SW_MAX_BURST];
	uint8_t ect[SW_MAX_BURST];
	uint16_t pick[SW_MAX_BURST];
	uint64_t rx_bytes = 0;
	struct lb_view view = {
		.port_level = w->port_level,
		.levels = &eng->cfg.levels,
		.port_len = w->port_len,
		.port_cap = w->port_cap,
		.port_bytes = w->port_bytes,
		.port_cap_bytes = w->port_cap_bytes,
	};
	struct sw_port_stats *rx_st = &w->port_st[in_port];
	const bool hash_needed = eng->cfg.policy->uses_flow_hash;
	const bool levels_needed = eng->cfg.policy->uses_queue_levels;
	const bool fast_parse = eng->parse_flags == 0;
	uint16_t i, k = 0;

	sw_worker_sync(w);
	if (n > SW_MAX_BURST)
		n = SW_MAX_BURST;	/* callers never pass more */
	if (unlikely(eng->port[in_port].link == SW_LINK_DOWN ||
		     eng->port[in_port].link == SW_LINK_BLACKHOLE)) {
		enum ofan_drop why = eng->port[in_port].link == SW_LINK_DOWN ?
			OFAN_DROP_LINK_DOWN : OFAN_DROP_BLACKHOLE;

		for (i = 0; i < n; i++) {
			rx_st->rx_pkts++;
			rx_st->rx_bytes += pkts[i]->pkt_len;
			sw_worker_drop(w, in_port, pkts[i], why);
		}
		return;
	}

	/*
	 * One pass: parse, answer ARP, look the route up, and collect what
	 * the policy needs; everything else is dropped under its reason.
	 */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t hop;
		int v;

		rx_bytes += m->pkt_len;
		if (likely(m->nb_segs == 1)) {
			const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
			uint32_t len = rte_pktmbuf_data_len(m);

			v = fast_parse && sw_parse_fast(f, len, &info) ?
				OFAN_PARSE_OK :
				ofan_parse(f, len, eng->parse_flags, &info);
		} else {
			v = sw_parse_chained(m, eng->parse_flags, &info);
		}
		if (unlikely(v != OFAN_PARSE_OK)) {
			sw_worker_drop(w, in_port, m, (enum ofan_drop)v);
			continue;
		}
		if (unlikely(info.kind == OFAN_KIND_ARP)) {
			sw_worker_arp(w, in_port, m, &info, now_ns);
			continue;
		}
		if (unlikely(rte_lpm_lookup(eng->fib, info.dst_ip, &hop) != 0)) {
			sw_worker_drop(w, in_port, m, OFAN_DROP_NO_ROUTE);
			continue;
		}
		if (unlikely(hop == SW_ROUTE_LOCAL)) {
			sw_worker_drop(w, in_port, m, OFAN_DROP_NOT_FOR_US);
			continue;
		}
		fwd[k] = m;
		l3[k] = info.l3_offset;
		ect[k] = (info.tos & OFAN_ECN_MASK) != OFAN_ECN_NOT_ECT;
		meta[k].flow_hash = hash_needed ?
			ofan_hash_5tuple(w->hash_seed, info.src_ip,
					 info.dst_ip, info.src_port,
					 info.dst_port, info.proto) : 0;
		meta[k].kind = info.kind == OFAN_KIND_ACK ? LB_KIND_ACK :
							    LB_KIND_DATA;
		meta[k].grp = &w->groups[eng->route_group[hop]];
		meta[k].dst_key = eng->route_key[hop];
		meta[k].len = m->pkt_len > UINT16_MAX ? UINT16_MAX :
			(uint16_t)m->pkt_len;
		k++;
	}
	rx_st->rx_pkts += n;
	rx_st->rx_bytes += rx_bytes;
	if (k == 0)
		return;
	n = k;

	/* The one pluggable stage. */
	eng->cfg.policy->pick(w->lb_state, meta, n, &view, now_ns, pick);

	/* Rewrite and enqueue. */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = fwd[i];
		uint16_t port;
		struct sw_queue *q;

		if (unlikely(pick[i] == LB_NONE)) {
			sw_worker_drop(w, in_port, m, OFAN_DROP_NO_MEMBER);
			continue;
		}
		port = meta[i].grp->port[pick[i]];
		w->picks[port]++;
		sw_rewrite(m, l3[i], &eng->port[port]);
		q = &w->queue[port];
		if (unlikely(!sw_queue_enqueue(q, m, l3[i], ect[i],
					       &w->rng))) {
			w->port_st[port].egress_drops++;
			sw_worker_drop(w, in_port, m, OFAN_DROP_QUEUE_FULL);
			continue;
		}
		sw_worker_queued(q, now_ns);
		w->port_len[port] = sw_queue_len(q);
		w->port_bytes[port] = q->bytes;
		if (levels_needed)
			w->port_level[port] = sw_queue_level(q, view.levels);
	}
}

/* Empty the queue of a failed link, counting every packet as lost. */
static void
sw_worker_flush_failed(struct sw_worker *w, uint16_t port,
		       enum ofan_drop reason)
{
	struct sw_queue *q = &w->queue[port];

	while (q->head != q->tail) {
		struct rte_mbuf *m = q->ring[q->head & q->mask];

		q->bytes -= m->pkt_len;
		q->head++;
		w->drops[reason]++;
		w->port_st[port].egress_drops++;
		rte_pktmbuf_free(m);
	}
	w->port_level[port] = 0;
	w->port_len[port] = 0;
	w->port_bytes[port] = 0;
}

uint16_t
sw_worker_tx_peek(struct sw_worker *w, uint16_t port, uint64_t now_ns,
		  struct rte_mbuf **pkts, uint16_t max)
{
	const struct sw_port_state *ps = &w->eng->port[port];
	struct sw_queue *q = &w->queue[port];
	uint8_t link = ps->link;

	if (q->head == q->tail)
		return 0;
	if (unlikely(link == SW_LINK_DOWN || link == SW_LINK_BLACKHOLE)) {
		sw_worker_flush_failed(w, port, link == SW_LINK_DOWN ?
				       OFAN_DROP_LINK_DOWN :
				       OFAN_DROP_BLACKHOLE);
		return 0;
	}
	if (unlikely(q->rate_bps != ps->rate_bps))
		sw_queue_set_rate(q, ps->rate_bps);
	if (max > SW_MAX_BURST)
		max = SW_MAX_BURST;
	return sw_queue_peek(q, now_ns, pkts, w->peek_len, max);
}

void
sw_worker_tx_commit(struct sw_worker *w, uint16_t port, uint64_t now_ns,
		    struct rte_mbuf **pkts, uint16_t nb_peeked,
		    uint16_t nb_sent)
{
	struct sw_queue *q = &w->queue[port];
	struct sw_port_stats *st = &w->port_st[port];
	uint16_t nb_dropped, i;

	sw_queue_commit(q, now_ns, w->peek_len, nb_peeked, nb_sent,
			&nb_dropped);
	st->tx_pkts += nb_sent;
	for (i = 0; i < nb_sent; i++)
		st->tx_bytes += w->peek_len[i];
	if (nb_dropped != 0) {
		for (i = nb_sent; i < nb_peeked; i++)
			rte_pktmbuf_free(pkts[i]);
		w->drops[OFAN_DROP_TX_FULL] += nb_dropped;
		st->egress_drops += nb_dropped;
	}
	w->port_level[port] = sw_queue_level(q, &w->eng->cfg.levels);
	w->port_len[port] = sw_queue_len(q);
	w->port_bytes[port] = q->bytes;
}

/* ---- control plane ---- */

static void
sw_engine_apply_weights(struct sw_engine *eng, uint16_t port)
{
	uint16_t g, m;

	for (g = 0; g < eng->cfg.nb_groups; g++) {
		struct lb_group *grp = &eng->master[g];

		for (m = 0; m < grp->nb_members; m++) {
			if (grp->port[m] != port)
				continue;
			grp->weight[m] = eng->ctl[port].withdrawn ? 0 :
				eng->base_weight[g * LB_MAX_MEMBERS + m];
			eng->dirty = true;
		}
	}
}

int
sw_engine_set_link(struct sw_engine *eng, uint16_t port,
		   enum sw_link_state mode, uint64_t rate_bps, uint64_t now_ns)
{
	struct sw_port_state *ps;
	struct sw_port_ctl *ctl;

	if (port >= eng->cfg.nb_ports || mode >= SW_LINK_NB_STATES)
		return -EINVAL;
	if (mode == SW_LINK_DEGRADED && rate_bps == 0)
		return -EINVAL;
	ps = &eng->port[port];
	ctl = &eng->ctl[port];
	ps->failed_at_ns = now_ns;
	switch (mode) {
	case SW_LINK_UP:
	case SW_LINK_DEGRADED:
		/* The link carries traffic again (degraded: more slowly). */
		ps->rate_bps = mode == SW_LINK_UP ?
			eng->cfg.ports[port].queue.rate_bps : rate_bps;
		ctl->withdraw_at = 0;
		if (ctl->withdrawn)
			ctl->restore_at = now_ns + eng->cfg.detect_delay_ns;
		break;
	case SW_LINK_DOWN:
		ctl->restore_at = 0;
		if (!ctl->withdrawn)
			ctl->withdraw_at = now_ns + eng->cfg.detect_delay_ns;
		break;
	case SW_LINK_BLACKHOLE:
		ctl->restore_at = 0;
		if (!ctl->withdrawn)
			ctl->withdraw_at = now_ns +
				eng->cfg.reconverge_delay_ns;
		break;
	default:
		return -EINVAL;
	}
	/* A pending time of 0 means none: keep "at time 0" representable. */
	if (ctl->withdraw_at == 0 && (mode == SW_LINK_DOWN ||
	    mode == SW_LINK_BLACKHOLE) && !ctl->withdrawn)
		ctl->withdraw_at = 1;
	__atomic_store_n(&ps->link, (uint8_t)mode, __ATOMIC_RELEASE);
	return 0;
}

int
sw_engine_request(struct sw_engine *eng, uint16_t port,
		  enum sw_link_state mode, uint64_t rate_bps)
{
	if (port >= eng->cfg.nb_ports || mode >= SW_LINK_NB_STATES ||
	    (mode == SW_LINK_DEGRADED && rate_bps == 0))
		return -EINVAL;
	if (__atomic_load_n(&eng->req_pending, __ATOMIC_ACQUIRE))
		return -EBUSY;
	eng->req_port = port;
	eng->req_mode = (uint8_t)mode;
	eng->req_rate = rate_bps;
	__atomic_store_n(&eng->req_pending, 1, __ATOMIC_RELEASE);
	return 0;
}

int
sw_engine_set_weight(struct sw_engine *eng, uint16_t group, uint16_t port,
		     uint16_t weight)
{
	struct lb_group *grp;
	uint16_t m;

	if (group >= eng->cfg.nb_groups)
		return -EINVAL;
	grp = &eng->master[group];
	for (m = 0; m < grp->nb_members; m++) {
		if (grp->port[m] != port)
			continue;
		eng->base_weight[group * LB_MAX_MEMBERS + m] = weight;
		grp->weight[m] = eng->ctl[port].withdrawn ? 0 : weight;
		eng->dirty = true;
		return 0;
	}
	return -ENOENT;
}

void
sw_engine_control(struct sw_engine *eng, uint64_t now_ns)
{
	uint16_t i;

	if (__atomic_load_n(&eng->req_pending, __ATOMIC_ACQUIRE)) {
		sw_engine_set_link(eng, eng->req_port, eng->req_mode,
				   eng->req_rate, now_ns);
		__atomic_store_n(&eng->req_pending, 0, __ATOMIC_RELEASE);
	}
	for (i = 0; i < eng->nb_events; i++) {
		struct sw_event *e = &eng->events[i];

		if (!e->done && now_ns >= e->at_ns) {
			e->done = true;
			sw_engine_set_link(eng, e->port, e->mode, e->rate_bps,
					   now_ns);
		}
	}
	for (i = 0; i < eng->cfg.nb_ports; i++) {
		struct sw_port_ctl *ctl = &eng->ctl[i];

		if (ctl->withdraw_at != 0 && now_ns >= ctl->withdraw_at) {
			ctl->withdraw_at = 0;
			ctl->withdrawn = true;
			eng->port[i].removed = true;
			sw_engine_apply_weights(eng, i);
		}
		if (ctl->restore_at != 0 && now_ns >= ctl->restore_at) {
			ctl->restore_at = 0;
			ctl->withdrawn = false;
			eng->port[i].removed = false;
			sw_engine_apply_weights(eng, i);
		}
	}
	if (eng->dirty)
		sw_engine_publish(eng);
}

void
sw_engine_totals(struct sw_engine *eng, struct sw_totals *t)
{
	uint16_t i, p, r, b;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < eng->nb_workers; i++) {
		const struct sw_worker *w = &eng->workers[i];

		for (r = 0; r < OFAN_DROP_MAX; r++)
			t->drops[r] += w->drops[r];
		for (p = 0; p < eng->cfg.nb_ports; p++) {
			const struct sw_port_stats *s = &w->port_st[p];
			const struct sw_queue_stats *q = &w->queue[p].st;

#define SW_PORT_SUM(field, key, what) t->port[p].field += s->field;
			SW_PORT_COUNTERS(SW_PORT_SUM)
#undef SW_PORT_SUM
#define SW_QUEUE_COMBINE(field, key, how, what) \
			t->queue[p].field = SW_COMBINE_##how(t->queue[p].field, q->field);
			SW_QUEUE_COUNTERS(SW_QUEUE_COMBINE)
#undef SW_QUEUE_COMBINE
			t->picks[p] += w->picks[p];
			for (b = 0; b < SW_QUEUE_HIST_BINS; b++)
				t->queue[p].hist[b] += q->hist[b];
			t->queue_len[p] += sw_queue_len(&w->queue[p]);
		}
	}
}
