/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topologies of ofan-fabric and the switch configurations they imply.
 *
 * Fat tree (k even): k pods of k/2 ToRs and k/2 aggregation switches,
 * (k/2)^2 cores, k/2 hosts per ToR (k = 8: 128 hosts, 80 switches).
 *   ToR   ports 0..k/2-1 hosts, k/2+a agg a of its pod;
 *   agg   ports 0..k/2-1 ToR e of its pod, k/2+j core a*k/2+j;
 *   core  port q: the aggregation switch c/(k/2) of pod q.
 * Leaf-spine: leaf ports 0..H-1 hosts, H+s spine s; spine port i: leaf i.
 * b2b: two hosts on one link, no switch (the link model, alone).
 *
 * Addresses: rank r is hs_rank_ip() with one /24 per ToR.  Every switch has
 * the same route list, one /32 per host in rank order, so the fabric
 * shares one rte_lpm between all switches (sw_engine_create_shared());
 * what differs per switch is each route's group and destination key:
 *   ToR   to its own hosts: a one-port group each; to another ToR: that
 *         ToR's uplink group, key = destination ToR (ofan rotates per ToR);
 *   agg   to its pod: a one-port group per ToR; to another pod: that pod's
 *         uplink group, key = destination pod;
 *   core  to pod q: its one port, key q.
 * One group per destination key: after a failure, fab_topo_weights() sets
 * each member's weight to its live paths towards the group's destination
 * (a ToR for a ToR; every ToR of the pod for an aggregation switch, whose
 * packets to a ToR cut off below it are steered away by the ToRs' own
 * weights, as every path to that ToR through that aggregation index is).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fab_model.h"
#include "hs_traffic.h"
#include "ofan_clock.h"
#include "ofan_frame.h"
#include "ofan_rng.h"
#include "ofan_wire.h"

const char *
fab_layer_name(enum fab_topology topo, enum fab_layer l)
{
	static const char *const fat[FAB_L_NB] = {
		"tor_up", "agg_up", "core_down", "agg_down", "tor_down", "host"
	};
	static const char *const ls[FAB_L_NB] = {
		"leaf_up", NULL, "spine_down", NULL, "leaf_down", "host"
	};

	if (l >= FAB_L_NB)
		return NULL;
	if (topo == FAB_TOPO_FATTREE)
		return fat[l];
	if (topo == FAB_TOPO_LEAFSPINE)
		return ls[l];
	return l == FAB_L_HOST ? "host" : NULL;
}

static uint32_t
fab_add_switch(struct fab_topo *t, const char *prefix, uint32_t idx,
	       uint8_t role, uint32_t pod)
{
	struct fab_switch_desc *s = &t->sw[t->nb_switches];

	snprintf(s->name, sizeof(s->name), "%s%u", prefix, idx);
	s->role = role;
	s->pod = pod;
	s->index = idx;
	return t->nb_switches++;
}

/* A link from end 0 (lower layer) to end 1. */
static void
fab_add_link(struct fab_topo *t, bool host0, uint32_t n0, uint16_t p0,
	     uint8_t l0, uint32_t n1, uint16_t p1, uint8_t l1, uint64_t rate)
{
	uint32_t id = t->nb_links++;
	struct fab_link_desc *k = &t->links[id];

	k->node[0] = n0;
	k->is_host[0] = host0;
	k->port[0] = p0;
	k->layer[0] = l0;
	k->node[1] = n1;
	k->is_host[1] = false;
	k->port[1] = p1;
	k->layer[1] = l1;
	k->rate_bps = rate;
	if (host0) {
		snprintf(k->name, sizeof(k->name), "h%u-%s", n0,
			 t->sw[n1].name);
		t->host_link[n0] = id;
	} else {
		snprintf(k->name, sizeof(k->name), "%s-%s", t->sw[n0].name,
			 t->sw[n1].name);
		t->sw[n0].link[p0] = id;
		if (t->sw[n0].nb_ports <= p0)
			t->sw[n0].nb_ports = p0 + 1;
	}
	t->sw[n1].link[p1] = id;
	if (t->sw[n1].nb_ports <= p1)
		t->sw[n1].nb_ports = p1 + 1;
}

static void
fab_build_fattree(const struct fab_params *p, struct fab_topo *t)
{
	uint32_t k = p->k, half = k / 2, nb_tors = k * half;
	uint32_t pod, i, j, r;

	for (i = 0; i < nb_tors; i++)
		fab_add_switch(t, "tor", i, FAB_ROLE_TOR, i / half);
	for (i = 0; i < nb_tors; i++)
		fab_add_switch(t, "agg", i, FAB_ROLE_AGG, i / half);
	for (i = 0; i < half * half; i++)
		fab_add_switch(t, "core", i, FAB_ROLE_CORE, FAB_NONE);
	for (r = 0; r < t->nb_hosts; r++) {
		t->host_tor[r] = t->host_pos[r] / half;
		t->host_port[r] = (uint16_t)(t->host_pos[r] % half);
		fab_add_link(t, true, r, 0, FAB_L_HOST, t->host_tor[r],
			     t->host_port[r], FAB_L_TOR_DOWN, p->rate_bps);
	}
	for (pod = 0; pod < k; pod++)
		for (i = 0; i < half; i++)
			for (j = 0; j < half; j++)
				fab_add_link(t, false, pod * half + i,
					     (uint16_t)(half + j), FAB_L_TOR_UP,
					     nb_tors + pod * half + j,
					     (uint16_t)i, FAB_L_AGG_DOWN,
					     p->uplink_rate_bps);
	for (pod = 0; pod < k; pod++)
		for (i = 0; i < half; i++)
			for (j = 0; j < half; j++)
				fab_add_link(t, false, nb_tors + pod * half + i,
					     (uint16_t)(half + j), FAB_L_AGG_UP,
					     2 * nb_tors + i * half + j,
					     (uint16_t)pod, FAB_L_CORE_DOWN,
					     p->uplink_rate_bps);
}

static void
fab_build_leafspine(const struct fab_params *p, struct fab_topo *t)
{
	uint32_t h = p->hosts_per_leaf, i, s, r;

	for (i = 0; i < p->leaves; i++)
		fab_add_switch(t, "leaf", i, FAB_ROLE_TOR, i);
	for (s = 0; s < p->spines; s++)
		fab_add_switch(t, "spine", s, FAB_ROLE_CORE, FAB_NONE);
	for (r = 0; r < t->nb_hosts; r++) {
		t->host_tor[r] = t->host_pos[r] / h;
		t->host_port[r] = (uint16_t)(t->host_pos[r] % h);
		fab_add_link(t, true, r, 0, FAB_L_HOST, t->host_tor[r],
			     t->host_port[r], FAB_L_TOR_DOWN, p->rate_bps);
	}
	for (i = 0; i < p->leaves; i++)
		for (s = 0; s < p->spines; s++)
			fab_add_link(t, false, i, (uint16_t)(h + s),
				     FAB_L_TOR_UP, p->leaves + s, (uint16_t)i,
				     FAB_L_CORE_DOWN, p->uplink_rate_bps);
}

/*
 * Where each rank sits: in rank order (rank r on ToR r / hosts_per_tor),
 * or at a seeded random position (the traffic's seed, matrix_seed), so
 * that ring neighbours are spread over the fabric as a scheduler that
 * ignores topology would place them.
 */
static void
fab_placement(const struct fab_params *p, struct fab_topo *t)
{
	struct ofan_rng rng;
	uint32_t r, j, tmp;

	for (r = 0; r < t->nb_hosts; r++)
		t->host_pos[r] = r;
	if (p->placement != FAB_PLACE_RANDOM)
		return;
	ofan_rng_seed(&rng, p->matrix_seed, 0x91ace);
	for (r = t->nb_hosts - 1; r > 0; r--) {
		j = ofan_rng_below(&rng, r + 1);
		tmp = t->host_pos[r];
		t->host_pos[r] = t->host_pos[j];
		t->host_pos[j] = tmp;
	}
}

/* Links on the path from host a to host b. */
static uint8_t
fab_hops(const struct fab_params *p, const struct fab_topo *t, uint32_t a,
	 uint32_t b)
{
	if (t->kind == FAB_TOPO_B2B)
		return 1;
	if (t->host_tor[a] == t->host_tor[b])
		return 2;
	if (t->kind == FAB_TOPO_LEAFSPINE)
		return 4;
	return t->host_tor[a] / (p->k / 2) == t->host_tor[b] / (p->k / 2) ?
		4 : 6;
}

/* ---- switch configurations ---- */

static void
fab_mac(uint8_t mac[6], bool host, uint32_t node, uint16_t port)
{
	mac[0] = 0x02;
	mac[1] = host ? 0x01 : 0x00;
	mac[2] = (uint8_t)(node >> 16);
	mac[3] = (uint8_t)(node >> 8);
	mac[4] = (uint8_t)node;
	mac[5] = (uint8_t)port;
}

static uint16_t
fab_group(struct sw_config *c, const char *name, uint16_t first,
	  uint16_t n)
{
	uint16_t g = c->nb_groups++, i;
	struct sw_group_config *gc = &c->groups[g];

	snprintf(gc->name, sizeof(gc->name), "%s", name);
	gc->nb_members = n;
	for (i = 0; i < n; i++) {
		gc->port[i] = first + i;
		gc->weight[i] = 1;
	}
	return g;
}

static void
fab_route(struct sw_config *c, uint32_t rank, const struct hs_config *h,
	  uint16_t group, uint32_t key)
{
	struct sw_route_config *r = &c->routes[rank];

	r->prefix = hs_rank_ip(&h->set, rank);
	r->depth = 32;
	r->group = group;
	r->dst_key = key;
	if (key + 1 > c->nb_dst_keys)
		c->nb_dst_keys = key + 1;
	if (rank + 1 > c->nb_routes)
		c->nb_routes = rank + 1;
}

/* Index of "the other" x among n when self is skipped. */
static inline uint16_t
fab_other(uint32_t x, uint32_t self)
{
	return (uint16_t)(x < self ? x : x - 1);
}

static void
fab_switch_routes(const struct fab_params *p, const struct fab_topo *t,
		  uint32_t s, struct sw_config *c)
{
	const struct fab_switch_desc *d = &t->sw[s];
	uint32_t half = p->k / 2, nb_tors, r, i;
	char name[SW_NAME_SIZE];
	uint16_t ndown;

	if (t->kind == FAB_TOPO_LEAFSPINE) {
		half = p->hosts_per_leaf;	/* hosts per leaf */
		nb_tors = p->leaves;
	} else {
		nb_tors = p->k * half;
	}
	if (d->role == FAB_ROLE_TOR) {
		uint16_t nup = (uint16_t)(d->nb_ports - half);

		for (i = 0; i < half; i++) {
			snprintf(name, sizeof(name), "host%u", i);
			fab_group(c, name, (uint16_t)i, 1);
		}
		for (i = 0; i < nb_tors; i++) {
			if (i == d->index)
				continue;
			snprintf(name, sizeof(name), "to-%.48s", t->sw[i].name);
			fab_group(c, name, (uint16_t)half, nup);
		}
		for (r = 0; r < t->nb_hosts; r++) {
			uint32_t tor = t->host_tor[r];

			if (tor == d->index)
				fab_route(c, r, &p->host, t->host_port[r],
					  nb_tors + t->host_port[r]);
			else
				fab_route(c, r, &p->host, (uint16_t)(half +
					  fab_other(tor, d->index)), tor);
		}
	} else if (d->role == FAB_ROLE_AGG) {
		for (i = 0; i < half; i++) {
			snprintf(name, sizeof(name), "down-tor%u",
				 d->pod * half + i);
			fab_group(c, name, (uint16_t)i, 1);
		}
		for (i = 0; i < p->k; i++) {
			if (i == d->pod)
				continue;
			snprintf(name, sizeof(name), "to-pod%u", i);
			fab_group(c, name, (uint16_t)half, (uint16_t)half);
		}
		for (r = 0; r < t->nb_hosts; r++) {
			uint32_t tor = t->host_tor[r], pod = tor / half;

			if (pod == d->pod)
				fab_route(c, r, &p->host,
					  (uint16_t)(tor % half),
					  p->k + tor % half);
			else
				fab_route(c, r, &p->host, (uint16_t)(half +
					  fab_other(pod, d->pod)), pod);
		}
	} else {
		/* A core (fat tree: one port per pod) or a spine (per leaf). */
		ndown = d->nb_ports;
		for (i = 0; i < ndown; i++) {
			snprintf(name, sizeof(name), "down%u", i);
			fab_group(c, name, (uint16_t)i, 1);
		}
		for (r = 0; r < t->nb_hosts; r++) {
			uint32_t q = t->kind == FAB_TOPO_LEAFSPINE ?
				t->host_tor[r] : t->host_tor[r] / half;

			fab_route(c, r, &p->host, (uint16_t)q, q);
		}
	}
}

static void
fab_switch_config(const struct fab_params *p, const struct fab_topo *t,
		  const struct lb_ops *policy, uint32_t s, struct sw_config *c)
{
	const struct fab_switch_desc *d = &t->sw[s];
	uint64_t x = p->seed;
	uint16_t i;

	sw_config_defaults_zeroed(c);	/* c is calloc'ed (fab_topo_build) */
	c->path = "ofan-fabric";
	snprintf(c->name, sizeof(c->name), "%s", d->name);
	c->policy = policy;
	/* A leaf-spine's spines are its top tier, as a fat tree's cores. */
	c->tier = d->role == FAB_ROLE_TOR ? 0 : d->role == FAB_ROLE_AGG ? 1 : 2;
	c->lb = p->lb;
	c->levels = p->levels;
	/* Mix the fabric seed before the index: seeds 1 and 3 must not just
	 * swap switch seeds. */
	x = ofan_splitmix64(&x) + s;
	c->seed = ofan_splitmix64(&x);
	c->stats_interval_ns = 0;
	c->detect_delay_ns = p->detect_delay_ns;
	c->reconverge_delay_ns = p->reconverge_delay_ns;
	c->nb_ports = d->nb_ports;
	for (i = 0; i < d->nb_ports; i++) {
		struct sw_port_config *pc = &c->ports[i];
		const struct fab_link_desc *k = &t->links[d->link[i]];
		int far = k->node[0] == s && !k->is_host[0] &&
			k->port[0] == i ? 1 : 0;

		snprintf(pc->dev, sizeof(pc->dev), "%s", k->name);
		fab_mac(pc->mac, false, s, i);
		pc->mac_set = true;
		fab_mac(pc->peer_mac, k->is_host[far], k->node[far],
			k->port[far]);
		pc->peer_mac_set = true;
		pc->nb_rx_queues = 1;
		pc->queue = p->queue_layer[k->layer[1 - far]];
		pc->queue.to_host = k->is_host[far];
	}
	fab_switch_routes(p, t, s, c);
}

int
fab_topo_build_links(const struct fab_params *p, struct fab_topo *t,
		     char *err, unsigned int err_size)
{
	uint32_t max_sw, max_links, a;

	memset(t, 0, sizeof(*t));
	t->kind = p->topo;
	switch (p->topo) {
	case FAB_TOPO_FATTREE:
		t->nb_hosts = p->k * p->k * p->k / 4;
		t->hosts_per_tor = p->k / 2;
		max_sw = p->k * p->k + p->k * p->k / 4;
		max_links = t->nb_hosts * 3;
		break;
	case FAB_TOPO_LEAFSPINE:
		t->nb_hosts = p->leaves * p->hosts_per_leaf;
		t->hosts_per_tor = p->hosts_per_leaf;
		max_sw = p->leaves + p->spines;
		max_links = t->nb_hosts + p->leaves * p->spines;
		break;
	default:
		t->nb_hosts = 2;
		t->hosts_per_tor = 2;
		max_sw = 0;
		max_links = 1;
		break;
	}
	if (t->nb_hosts > SW_MAX_ROUTES) {
		snprintf(err, err_size, "%u hosts; at most %d fit the switches' route tables",
			 t->nb_hosts, SW_MAX_ROUTES);
		return -EINVAL;
	}
	t->sw = calloc(max_sw + 1, sizeof(*t->sw));
	t->links = calloc(max_links, sizeof(*t->links));
	t->host_link = calloc(t->nb_hosts, sizeof(*t->host_link));
	t->host_tor = calloc(t->nb_hosts, sizeof(*t->host_tor));
	t->host_port = calloc(t->nb_hosts, sizeof(*t->host_port));
	t->host_pos = calloc(t->nb_hosts, sizeof(*t->host_pos));
	t->alive = calloc(max_links, sizeof(*t->alive));
	if (t->sw == NULL || t->links == NULL || t->host_link == NULL ||
	    t->host_tor == NULL || t->host_port == NULL ||
	    t->host_pos == NULL || t->alive == NULL) {
		fab_topo_free(t);
		snprintf(err, err_size, "out of memory for the topology");
		return -ENOMEM;
	}
	fab_placement(p, t);
	if (p->topo == FAB_TOPO_FATTREE) {
		fab_build_fattree(p, t);
	} else if (p->topo == FAB_TOPO_LEAFSPINE) {
		fab_build_leafspine(p, t);
	} else {
		struct fab_link_desc *k = &t->links[t->nb_links++];

		snprintf(k->name, sizeof(k->name), "h0-h1");
		k->node[0] = 0;
		k->node[1] = 1;
		k->is_host[0] = k->is_host[1] = true;
		k->layer[0] = k->layer[1] = FAB_L_HOST;
		k->rate_bps = p->rate_bps;
		t->host_link[0] = t->host_link[1] = 0;
		t->host_tor[0] = t->host_tor[1] = FAB_NONE;
	}
	for (a = 0; a < t->nb_links; a++)
		t->alive[a] = true;
	return 0;
}

int
fab_topo_build(const struct fab_params *p, const struct lb_ops *policy,
	       struct fab_topo *t, char *err, unsigned int err_size)
{
	uint32_t s, a, b;
	int rc = fab_topo_build_links(p, t, err, err_size);

	if (rc != 0)
		return rc;
	t->hops = malloc((size_t)t->nb_hosts * t->nb_hosts);
	t->cfg = calloc(t->nb_switches + 1, sizeof(*t->cfg));
	if (t->hops == NULL || t->cfg == NULL) {
		fab_topo_free(t);
		snprintf(err, err_size, "out of memory for the topology");
		return -ENOMEM;
	}
	for (a = 0; a < t->nb_hosts; a++)
		for (b = 0; b < t->nb_hosts; b++)
			t->hops[a * t->nb_hosts + b] = fab_hops(p, t, a, b);
	for (s = 0; s < t->nb_switches; s++)
		fab_switch_config(p, t, policy, s, &t->cfg[s]);
	return 0;
}

void
fab_topo_free(struct fab_topo *t)
{
	free(t->sw);
	free(t->links);
	free(t->host_link);
	free(t->host_tor);
	free(t->host_port);
	free(t->host_pos);
	free(t->hops);
	free(t->cfg);
	free(t->alive);
	memset(t, 0, sizeof(*t));
}

const char *
fab_topo_link_examples(const struct fab_topo *t, char *buf, size_t size)
{
	uint32_t kinds[8], nb_kinds = 0, i, k;
	size_t used = 0;
	int n;

	buf[0] = '\0';
	/* The first link of each kind (host-ToR, ToR-agg, agg-core, ...). */
	for (i = 0; i < t->nb_links && nb_kinds < FAB_DIM(kinds); i++) {
		const struct fab_link_desc *l = &t->links[i];
		uint32_t kind = (uint32_t)l->is_host[0] << 17 |
			(uint32_t)l->is_host[1] << 16 |
			(uint32_t)l->layer[0] << 8 | l->layer[1];

		for (k = 0; k < nb_kinds && kinds[k] != kind; k++)
			;
		if (k < nb_kinds)
			continue;
		kinds[nb_kinds++] = kind;
		n = snprintf(buf + used, size - used, "%s%s",
			     used == 0 ? "" : ", ", l->name);
		if (n < 0 || (size_t)n >= size - used)
			return buf;
		used += (size_t)n;
	}
	snprintf(buf + used, size - used,
		 " (%u links: ofan-fabric --config FILE --list-links lists them)",
		 t->nb_links);
	return buf;
}

uint32_t
fab_topo_find_link(const struct fab_topo *t, const char *name)
{
	const char *dash = strchr(name, '-');
	char swapped[2 * FAB_NAME_SIZE + 2];
	uint32_t i;

	if (dash == NULL)
		return FAB_NONE;
	snprintf(swapped, sizeof(swapped), "%s-%.*s", dash + 1,
		 (int)(dash - name), name);
	for (i = 0; i < t->nb_links; i++)
		if (strcmp(t->links[i].name, name) == 0 ||
		    strcmp(t->links[i].name, swapped) == 0)
			return i;
	return FAB_NONE;
}

uint32_t
fab_topo_find_dir(const struct fab_topo *t, const char *name)
{
	uint32_t l = fab_topo_find_link(t, name);

	if (l == FAB_NONE)
		return FAB_NONE;
	return 2 * l + (strcmp(t->links[l].name, name) == 0 ? 0 : 1);
}

/* ---- live paths ---- */

static inline bool
fab_port_alive(const struct fab_topo *t, uint32_t s, uint16_t port)
{
	return t->alive[t->sw[s].link[port]];
}

/* Fat tree: live paths from agg a (in ToR te's pod) down to te. */
static uint32_t
fab_ft_agg_down(const struct fab_topo *t, uint32_t half, uint32_t a,
		uint32_t te)
{
	return fab_port_alive(t, a, (uint16_t)(te % half)) ? 1 : 0;
}

/* Fat tree: live paths from core c down to ToR te. */
static uint32_t
fab_ft_core(const struct fab_topo *t, uint32_t half, uint32_t c, uint32_t te)
{
	uint32_t nb_tors = 2 * half * half, pod = te / half;
	uint32_t agg = nb_tors + pod * half + (c - 2 * nb_tors) / half;

	if (!fab_port_alive(t, c, (uint16_t)pod))
		return 0;
	return fab_ft_agg_down(t, half, agg, te);
}

/* Fat tree: live paths from agg a (another pod) up and down to te. */
static uint32_t
fab_ft_agg_up(const struct fab_topo *t, uint32_t half, uint32_t a,
	      uint32_t te)
{
	uint32_t nb_tors = 2 * half * half, ai = (a - nb_tors) % half;
	uint32_t j, n = 0;

	for (j = 0; j < half; j++)
		if (fab_port_alive(t, a, (uint16_t)(half + j)))
			n += fab_ft_core(t, half, 2 * nb_tors + ai * half + j,
					 te);
	return n;
}

static uint16_t
fab_w(uint32_t n)
{
	return (uint16_t)(n > 0xffff ? 0xffff : n);
}

/*
 * Live paths from switch s through its uplink `port` towards ToR te, under
 * t->alive.  A ToR's group serves one destination ToR; an aggregation
 * switch's group serves a whole pod, so its members count the paths to
 * every ToR of that pod.
 */
static uint32_t
fab_member_paths(const struct fab_topo *t, uint32_t s, uint16_t port,
		 uint32_t te)
{
	const struct fab_switch_desc *d = &t->sw[s];
	uint32_t half = t->hosts_per_tor, far, pod, e, n = 0;

	if (!fab_port_alive(t, s, port))
		return 0;
	far = t->links[d->link[port]].node[1];
	if (t->kind == FAB_TOPO_LEAFSPINE)
		return fab_port_alive(t, far, (uint16_t)te) ? 1 : 0;
	if (d->role == FAB_ROLE_TOR)
		return te / half == d->pod ? fab_ft_agg_down(t, half, far, te) :
			fab_ft_agg_up(t, half, far, te);
	pod = te / half;
	for (e = 0; e < half; e++)
		n += fab_ft_core(t, half, far, pod * half + e);
	return n;
}

void
fab_topo_weights(const struct fab_topo *t,
		 void (*set)(void *arg, uint32_t sw, uint16_t group,
			     uint16_t port, uint16_t weight),
		 void *arg)
{
	uint32_t s, i;

	for (s = 0; s < t->nb_switches; s++) {
		const struct sw_config *c = &t->cfg[s];
		uint32_t te_of[SW_MAX_GROUPS];
		uint16_t g, m;

		/* The destination ToR of each group, from its first route. */
		for (g = 0; g < c->nb_groups; g++)
			te_of[g] = FAB_NONE;
		for (i = 0; i < c->nb_routes; i++)
			if (te_of[c->routes[i].group] == FAB_NONE)
				te_of[c->routes[i].group] = t->host_tor[i];
		for (g = 0; g < c->nb_groups; g++) {
			const struct sw_group_config *gc = &c->groups[g];

			if (te_of[g] == FAB_NONE)
				continue;	/* no route uses it */
			for (m = 0; m < gc->nb_members; m++) {
				uint16_t port = gc->port[m];
				uint32_t w = gc->nb_members > 1 ?
					fab_member_paths(t, s, port, te_of[g]) :
					fab_port_alive(t, s, port);

				set(arg, s, g, port, fab_w(w));
			}
		}
	}
}

/* ---- htsim failure lines ---- */

static uint32_t
fab_cm_port(const struct fab_topo *t, uint32_t sw, uint16_t port)
{
	return t->sw[sw].link[port];
}

uint32_t
fab_topo_cm_link(const struct fab_params *p, const struct fab_topo *t,
		 const struct hs_cm_failure *f, char *err, unsigned int err_size)
{
	const char *type = hs_switch_type_names[f->switch_type];
	uint32_t nb_sw, nb_links, half = p->k / 2, nb_tors = p->k * half;

	if (t->kind == FAB_TOPO_B2B) {
		snprintf(err, err_size, "failure of %s %u on a b2b link; expected failures only on a fattree or leafspine",
			 type, f->switch_id);
		return FAB_NONE;
	}
	if (t->kind == FAB_TOPO_LEAFSPINE) {
		if (f->switch_type == HS_SW_AGG) {
			snprintf(err, err_size, "switch_type AGG on a leaf-spine; expected TOR (a leaf) or CORE (a spine)");
			return FAB_NONE;
		}
		nb_sw = f->switch_type == HS_SW_TOR ? p->leaves : p->spines;
		nb_links = f->switch_type == HS_SW_TOR ? p->spines : p->leaves;
	} else {
		nb_sw = f->switch_type == HS_SW_CORE ? half * half : nb_tors;
		nb_links = f->switch_type == HS_SW_CORE ? p->k : half;
	}
	if (f->switch_id >= nb_sw) {
		snprintf(err, err_size, "switch_id %u of switch_type %s; expected 0 to %u in this %s",
			 f->switch_id, type, nb_sw - 1,
			 fab_topology_names[t->kind]);
		return FAB_NONE;
	}
	if (f->link_id >= nb_links) {
		snprintf(err, err_size, "link_id %u of %s %u; expected 0 to %u (%s)",
			 f->link_id, type, f->switch_id, nb_links - 1,
			 f->switch_type == HS_SW_CORE ?
			 (t->kind == FAB_TOPO_FATTREE ? "a pod" : "a leaf") :
			 "an uplink");
		return FAB_NONE;
	}
	if (t->kind == FAB_TOPO_LEAFSPINE)
		return f->switch_type == HS_SW_TOR ?
			fab_cm_port(t, f->switch_id, (uint16_t)(p->hosts_per_leaf +
							f->link_id)) :
			fab_cm_port(t, p->leaves + f->switch_id,
				    (uint16_t)f->link_id);
	switch (f->switch_type) {
	case HS_SW_TOR:
		return fab_cm_port(t, f->switch_id,
				   (uint16_t)(half + f->link_id));
	case HS_SW_AGG:
		return fab_cm_port(t, nb_tors + f->switch_id,
				   (uint16_t)(half + f->link_id));
	default:
		/* htsim's core c serves the aggregation switches at position
		 * c mod k/2 (through their uplink c / (k/2)); here that core
		 * is (c mod k/2) * k/2 + c / (k/2). */
		return fab_cm_port(t, 2 * nb_tors +
				   (f->switch_id % half) * half +
				   f->switch_id / half,
				   (uint16_t)f->link_id);
	}
}

/* ---- the frame model's times ---- */

uint32_t
fab_full_frame_queue_bytes(const struct fab_params *p)
{
	return ofan_frame_queue_bytes(&p->queue.frame, OFAN_KIND_DATA,
				      OFAN_ETH_HDR_SIZE + p->host.set.mtu);
}

uint64_t
fab_oneway_ns(const struct fab_params *p, uint32_t hops)
{
	return fab_oneway_frame_ns(p, hops, OFAN_ETH_HDR_SIZE + p->host.set.mtu);
}

uint64_t
fab_oneway_frame_ns(const struct fab_params *p, uint32_t hops,
		    uint64_t frame_size)
{
	uint64_t frame = ofan_frame_wire_bytes(&p->queue.frame, OFAN_KIND_DATA,
		(uint32_t)(frame_size > 60 ? frame_size : 60));

	if (hops < 2)
		return hops * p->delay_ns;
	return hops * p->delay_ns + ofan_tx_time_ns(frame, p->rate_bps) +
		(hops - 2) * ofan_tx_time_ns(frame, p->uplink_rate_bps);
}

uint64_t
fab_frame_path_ns(const struct fab_params *p, uint32_t hops,
		  uint64_t frame_size)
{
	uint64_t frame = ofan_frame_wire_bytes(&p->queue.frame, OFAN_KIND_DATA,
		(uint32_t)(frame_size > 60 ? frame_size : 60));

	return ofan_tx_time_ns(frame, p->rate_bps) +
		fab_oneway_frame_ns(p, hops, frame_size);
}

uint64_t
fab_ack_back_ns(const struct fab_params *p, uint32_t hops)
{
	uint64_t frame = ofan_frame_wire_bytes(&p->queue.frame, OFAN_KIND_ACK,
					       (OFAN_ACK_FRAME_SIZE > 60 ? OFAN_ACK_FRAME_SIZE : 60));
	uint32_t host_links = hops < 2 ? hops : 2;

	return hops * p->delay_ns +
		host_links * ofan_tx_time_ns(frame, p->rate_bps) +
		(hops - host_links) * ofan_tx_time_ns(frame, p->uplink_rate_bps);
}
