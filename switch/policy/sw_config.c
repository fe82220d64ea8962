/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loader for the switch configuration (see sw_config.h and the commented
 * examples in configs/).  Sections:
 *   [switch]        name, policy, seed, burst, stats_interval, ...
 *   [queue]         defaults for every port's egress queue
 *   [port.N]        one per port, N = 0 .. 31, with optional queue overrides
 *   [group.NAME]    a next-hop group: members (port numbers), weights
 *   [route.NAME]    prefix -> group (or port) and destination key
 *   [failures]      detect_delay, reconverge_delay
 *   [failure.NAME]  a scheduled failure of a port
 *   [reroute.NAME]  scheduled new weights of a group (routing converged)
 *   [<policy>]      knobs of one policy, parsed by the policy itself
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofan_config.h"
#include "sw_config.h"

const char *const sw_link_state_names[] = {
	"up", "down", "blackhole", "degraded", "stall", NULL
};

/* [queue] trim_size, from SW_TRIM_HEADER (index + 1). */
const char *const sw_trim_size_names[] = { "header", "full", NULL };
const char *const sw_rts_names[] = { "no", "overflow", "always", NULL };
static const char *const sw_trim_victim_names[] = { "arriving", "either", NULL };
const char *const sw_pfc_mode_names[] = { "auto", "nic", "software", NULL };

void
sw_queue_config_defaults(struct sw_queue_config *q)
{
	q->enabled = true;
	q->capacity_pkts = 1024;
	q->capacity_bytes = 4u << 20;
	q->ecn = true;
	q->ecn_kmin_bytes = 64u << 10;
	q->ecn_kmax_bytes = 256u << 10;
	q->ecn_pmax = 0.2;
	q->rate_bps = 0;
	q->trim = SW_TRIM_OFF;
	q->rts = SW_RTS_NO;
	q->ctrl_acks = true;
	q->trim_either = true;
	q->ctrl_capacity_pkts = 0;
	q->ctrl_capacity_bytes = 0;
	q->pfc = false;
	q->pfc_mode = SW_PFC_AUTO;
	q->pfc_priority = 3;
	q->pfc_quanta = 0xffff;
	q->pfc_xoff_bytes = 48000;	/* htsim's 12 x 4000-byte MTU */
	q->pfc_xon_bytes = 24000;	/* and 6 */
	q->pfc_headroom_bytes = 0;
	ofan_frame_model_ethernet(&q->frame);
}

void
sw_config_defaults(struct sw_config *c)
{
	memset(c, 0, sizeof(*c));
	sw_config_defaults_zeroed(c);
}

void
sw_config_defaults_zeroed(struct sw_config *c)
{
	snprintf(c->name, sizeof(c->name), "switch");
	lb_settings_defaults(&c->lb);
	lb_levels_defaults(&c->levels);
	c->policy = lb_find("ecmp");
	c->seed = 1;
	c->burst = 32;
	c->verify_checksum = false;
	c->icmp_rate = 1000;
	c->stats_interval_ns = 1000000000ull;
	c->detect_delay_ns = 10000;		/* 10 us */
	c->reconverge_delay_ns = 100000;	/* 100 us */
}

/*
 * The trimming keys of section sec (architecture.md, "Trimming").  Trimming
 * needs the software queue (it is where a frame overflows); the other
 * keys mean something only with it, so setting one without it is a
 * mistake worth naming.
 */
static int
sw_config_trim_from_cfg(struct ofan_cfg *cfg, const char *sec,
			struct sw_queue_config *q)
{
	bool trim = q->trim != SW_TRIM_OFF, acks = q->ctrl_acks;
	bool either = q->trim_either;
	int size = q->trim == SW_TRIM_FULL ? 1 : 0, rts = q->rts;
	int victim = either ? 1 : 0;
	static const char *const only[] = {
		"trim_size", "rts", "trim_victim", "ctrl_acks",
		"ctrl_queue_packets", "ctrl_queue_bytes", NULL
	};
	unsigned int i;

	if (ofan_cfg_get_bool(cfg, sec, "trim", 0, &trim) ||
	    ofan_cfg_get_enum(cfg, sec, "trim_size", 0, sw_trim_size_names,
			      &size) ||
	    ofan_cfg_get_enum(cfg, sec, "rts", 0, sw_rts_names, &rts) ||
	    ofan_cfg_get_enum(cfg, sec, "trim_victim", 0,
			      sw_trim_victim_names, &victim) ||
	    ofan_cfg_get_bool(cfg, sec, "ctrl_acks", 0, &acks) ||
	    ofan_cfg_get_u32(cfg, sec, "ctrl_queue_packets", 0, 0, 1u << 16,
			     &q->ctrl_capacity_pkts) ||
	    ofan_cfg_get_size(cfg, sec, "ctrl_queue_bytes", 0, 0, 1ull << 32,
			      &q->ctrl_capacity_bytes))
		return -EINVAL;
	if (trim && !q->enabled) {
		if (ofan_cfg_blame2(cfg, sec, "trim", "queue") == 1)
			return ofan_cfg_fail(cfg, sec, "queue",
				"'%s' with trim = yes; expected queue = yes (a frame is trimmed where it would overflow the software queue), or trim = no",
				ofan_cfg_value(cfg, sec, "queue"));
		return ofan_cfg_fail(cfg, sec, "trim",
			"'yes' with queue = no; expected queue = yes (a frame is trimmed where it would overflow the software queue)");
	}
	for (i = 0; !trim && only[i] != NULL; i++) {
		if (!ofan_cfg_has_key(cfg, sec, only[i]))
			continue;
		if (ofan_cfg_blame2(cfg, sec, only[i], "trim") == 1)
			return ofan_cfg_fail(cfg, sec, "trim",
				"'%s' with %s set; expected trim = yes, or no %s",
				ofan_cfg_value(cfg, sec, "trim"), only[i],
				only[i]);
		return ofan_cfg_fail(cfg, sec, only[i],
			"set while trim = no; expected trim = yes, or no %s", only[i]);
	}
	q->trim = !trim ? SW_TRIM_OFF : size == 1 ? SW_TRIM_FULL :
		SW_TRIM_HEADER;
	q->rts = (uint8_t)rts;
	q->ctrl_acks = acks;
	q->trim_either = victim == 1;
	return 0;
}

/*
 * The PFC keys of section sec (architecture.md, "PFC").  A lossless port
 * counts what it brought into the software queues, so it needs them; a
 * queue that never overflows has nothing to trim, so PFC and trimming
 * exclude each other; the other keys mean something only with pfc.
 */
static int
sw_config_pfc_from_cfg(struct ofan_cfg *cfg, const char *sec,
		       struct sw_queue_config *q)
{
	static const char *const only[] = {
		"pfc_mode", "pfc_priority", "pfc_quanta", "pfc_xoff",
		"pfc_xon", "pfc_headroom", NULL
	};
	bool pfc = q->pfc;
	int mode = q->pfc_mode;
	uint32_t prio = q->pfc_priority, quanta = q->pfc_quanta;
	unsigned int i;

	if (ofan_cfg_get_bool(cfg, sec, "pfc", 0, &pfc) ||
	    ofan_cfg_get_enum(cfg, sec, "pfc_mode", 0, sw_pfc_mode_names,
			      &mode) ||
	    ofan_cfg_get_u32(cfg, sec, "pfc_priority", 0, 0, 7, &prio) ||
	    ofan_cfg_get_u32(cfg, sec, "pfc_quanta", 0, 1, 0xffff, &quanta) ||
	    ofan_cfg_get_size(cfg, sec, "pfc_xoff", 0, 64, 1ull << 32,
			      &q->pfc_xoff_bytes) ||
	    ofan_cfg_get_size(cfg, sec, "pfc_xon", 0, 0, 1ull << 32,
			      &q->pfc_xon_bytes) ||
	    ofan_cfg_get_size(cfg, sec, "pfc_headroom", 0, 0, 1ull << 32,
			      &q->pfc_headroom_bytes))
		return -EINVAL;
	for (i = 0; !pfc && only[i] != NULL; i++) {
		if (!ofan_cfg_has_key(cfg, sec, only[i]))
			continue;
		if (ofan_cfg_blame2(cfg, sec, only[i], "pfc") == 1)
			return ofan_cfg_fail(cfg, sec, "pfc",
				"'%s' with %s set; expected pfc = yes, or no %s",
				ofan_cfg_value(cfg, sec, "pfc"), only[i],
				only[i]);
		return ofan_cfg_fail(cfg, sec, only[i],
			"set while pfc = no; expected pfc = yes, or no %s", only[i]);
	}
	if (pfc && !q->enabled) {
		if (ofan_cfg_blame2(cfg, sec, "pfc", "queue") == 1)
			return ofan_cfg_fail(cfg, sec, "queue",
				"'%s' with pfc = yes; expected queue = yes (a lossless port counts the bytes it holds in the software queues), or pfc = no",
				ofan_cfg_value(cfg, sec, "queue"));
		return ofan_cfg_fail(cfg, sec, "pfc",
			"'yes' with queue = no; expected queue = yes (a lossless port counts the bytes it holds in the software queues)");
	}
	if (pfc && q->trim != SW_TRIM_OFF) {
		if (ofan_cfg_blame2(cfg, sec, "pfc", "trim") == 1)
			return ofan_cfg_fail(cfg, sec, "trim",
				"'%s' with pfc = yes; expected one of them (a lossless queue never overflows, so it never trims)",
				ofan_cfg_value(cfg, sec, "trim"));
		return ofan_cfg_fail(cfg, sec, "pfc",
			"'yes' with trim = yes; expected one of them (a lossless queue never overflows, so it never trims)");
	}
	if (pfc && q->pfc_xon_bytes >= q->pfc_xoff_bytes) {
		if (ofan_cfg_blame2(cfg, sec, "pfc_xon", "pfc_xoff") == 1)
			return ofan_cfg_fail(cfg, sec, "pfc_xoff",
				"'%llu' bytes is not above pfc_xon (%llu bytes); expected pfc_xon < pfc_xoff",
				(unsigned long long)q->pfc_xoff_bytes,
				(unsigned long long)q->pfc_xon_bytes);
		return ofan_cfg_fail(cfg, sec, "pfc_xon",
			"'%llu' bytes is not below pfc_xoff (%llu bytes); expected pfc_xon < pfc_xoff",
			(unsigned long long)q->pfc_xon_bytes,
			(unsigned long long)q->pfc_xoff_bytes);
	}
	q->pfc = pfc;
	q->pfc_mode = (uint8_t)mode;
	q->pfc_priority = (uint8_t)prio;
	q->pfc_quanta = (uint16_t)quanta;
	return 0;
}

/*
 * Read the queue keys of section sec into q (which holds the defaults) and
 * check that they make sense together.
 */
int
sw_config_queue_from_cfg(struct ofan_cfg *cfg, const char *sec,
			 struct sw_queue_config *q)
{
	if (ofan_cfg_get_bool(cfg, sec, "queue", 0, &q->enabled) ||
	    ofan_cfg_get_u32(cfg, sec, "queue_packets", 0, 1, 1u << 20,
			     &q->capacity_pkts) ||
	    ofan_cfg_get_size(cfg, sec, "queue_bytes", 0, 64, 1ull << 32,
			      &q->capacity_bytes) ||
	    ofan_cfg_get_bool(cfg, sec, "ecn", 0, &q->ecn) ||
	    ofan_cfg_get_size(cfg, sec, "ecn_kmin", 0, 0, 1ull << 32,
			      &q->ecn_kmin_bytes) ||
	    ofan_cfg_get_size(cfg, sec, "ecn_kmax", 0, 0, 1ull << 32,
			      &q->ecn_kmax_bytes) ||
	    ofan_cfg_get_double(cfg, sec, "ecn_pmax", 0, 0.0, 1.0,
				&q->ecn_pmax) ||
	    ofan_cfg_get_rate(cfg, sec, "rate", 0, 0, 10000ull * 1000000000ull,
			      &q->rate_bps))
		return -EINVAL;
	if (q->ecn && q->ecn_kmax_bytes < q->ecn_kmin_bytes) {
		const struct ofan_cfg_key keys[] = {
			{ sec, "ecn_kmax" }, { sec, "ecn_kmin" }, { sec, "ecn" },
		};
		int k = ofan_cfg_blame(cfg, keys, 3);

		if (k == 1)
			return ofan_cfg_fail(cfg, sec, "ecn_kmin",
				"'%llu' bytes is above ecn_kmax (%llu bytes); expected ecn_kmin <= ecn_kmax",
				(unsigned long long)q->ecn_kmin_bytes,
				(unsigned long long)q->ecn_kmax_bytes);
		if (k == 2)
			return ofan_cfg_fail(cfg, sec, "ecn",
				"'%s' with ecn_kmin (%llu bytes) above ecn_kmax (%llu bytes); expected ecn_kmin <= ecn_kmax, or ecn = no",
				ofan_cfg_value(cfg, sec, "ecn"),
				(unsigned long long)q->ecn_kmin_bytes,
				(unsigned long long)q->ecn_kmax_bytes);
		return ofan_cfg_fail(cfg, sec, "ecn_kmax",
			"'%llu' bytes is below ecn_kmin (%llu bytes); expected ecn_kmin <= ecn_kmax",
			(unsigned long long)q->ecn_kmax_bytes,
			(unsigned long long)q->ecn_kmin_bytes);
	}
	if (sw_config_trim_from_cfg(cfg, sec, q))
		return -EINVAL;
	return sw_config_pfc_from_cfg(cfg, sec, q);
}

static int
sw_config_switch(struct ofan_cfg *cfg, struct sw_config *c)
{
	static const char *const sec = "switch";
	const char *names[LB_MAX_POLICIES + 1];
	const char *name = c->name;
	uint32_t burst = c->burst, tier = c->tier;
	int i, n;

	/* Build the list of policy names for the enum getter. */
	for (n = 0; lb_registry[n] != NULL && n < LB_MAX_POLICIES; n++)
		names[n] = lb_registry[n]->name;
	names[n] = NULL;
	if (ofan_cfg_get_str(cfg, sec, "name", 0, &name))
		return -EINVAL;
	snprintf(c->name, sizeof(c->name), "%s", name);
	i = 0;
	if (ofan_cfg_get_enum(cfg, sec, "policy", OFAN_CFG_REQUIRED, names, &i))
		return -EINVAL;
	c->policy = lb_find(names[i]);
	if (ofan_cfg_get_u64(cfg, sec, "seed", 0, 0, UINT64_MAX, &c->seed) ||
	    ofan_cfg_get_u32(cfg, sec, "burst", 0, 1, 512, &burst) ||
	    ofan_cfg_get_bool(cfg, sec, "verify_checksum", 0,
			      &c->verify_checksum) ||
	    ofan_cfg_get_time(cfg, sec, "stats_interval", 0, 0,
			      3600ull * 1000000000ull, &c->stats_interval_ns) ||
	    ofan_cfg_get_u32(cfg, sec, "mbufs", 0, 0, 1u << 24, &c->nb_mbufs) ||
	    ofan_cfg_get_u32(cfg, sec, "icmp_rate", 0, 0, 1000000,
			     &c->icmp_rate) ||
	    ofan_cfg_get_u32(cfg, sec, "tier", 0, 0, 2, &tier))
		return -EINVAL;
	c->burst = (uint16_t)burst;
	c->tier = (uint8_t)tier;
	return 0;
}

/* Port sections are "port.N" with N the port number, dense from 0. */
static int
sw_config_ports(struct ofan_cfg *cfg, struct sw_config *c,
		const struct sw_queue_config *qdef)
{
	const char *secs[SW_MAX_ETHPORTS + 1];
	bool seen[SW_MAX_ETHPORTS] = { false };
	int n, i;

	n = ofan_cfg_sections(cfg, "port.", secs, SW_MAX_ETHPORTS + 1);
	if (n == 0)
		return ofan_cfg_fail(cfg, "port.0", "dev",
			"missing; expected at least one [port.N] section with dev = <ethdev name or vdev devargs>");
	if (n > SW_MAX_ETHPORTS)
		return ofan_cfg_fail(cfg, secs[SW_MAX_ETHPORTS], "dev",
			"too many ports; expected at most %d ([port.0] .. [port.%d])",
			SW_MAX_ETHPORTS, SW_MAX_ETHPORTS - 1);
	for (i = 0; i < n; i++) {
		const char *sec = secs[i];
		struct sw_port_config *p;
		const char *dev = NULL;
		bool to_host;
		uint64_t id;
		uint32_t v;

		if (ofan_parse_u64(sec + 5, &id) != 0 || id >= SW_MAX_ETHPORTS)
			return ofan_cfg_fail(cfg, sec, "dev",
				"section name '%s' has no valid port number; expected [port.N] with N in [0, %d]",
				sec, SW_MAX_ETHPORTS - 1);
		if (seen[id])
			return ofan_cfg_fail(cfg, sec, "dev",
				"port %llu is defined twice; expected one [port.N] section per port",
				(unsigned long long)id);
		seen[id] = true;
		p = &c->ports[id];
		p->queue = *qdef;
		p->nb_rx_queues = 1;
		p->nb_rxd = 1024;
		p->nb_txd = 1024;
		if (ofan_cfg_get_str(cfg, sec, "dev", OFAN_CFG_REQUIRED, &dev))
			return -EINVAL;
		if (strlen(dev) >= sizeof(p->dev))
			return ofan_cfg_fail(cfg, sec, "dev",
				"'%.40s...' is too long; expected at most %zu characters",
				dev, sizeof(p->dev) - 1);
		/* Its files: relative to the config, and there. */
		if (ofan_cfg_devargs(cfg, sec, "dev", dev, p->dev,
				     sizeof(p->dev)) != 0)
			return -EINVAL;
		p->mac_set = ofan_cfg_has_key(cfg, sec, "mac");
		p->peer_mac_set = ofan_cfg_has_key(cfg, sec, "peer_mac");
		if (ofan_cfg_get_ipv4(cfg, sec, "ip", 0, &p->ip) ||
		    ofan_cfg_get_mac(cfg, sec, "mac", 0, p->mac) ||
		    ofan_cfg_get_mac(cfg, sec, "peer_mac", 0, p->peer_mac))
			return -EINVAL;
		to_host = false;	/* the port's own, not [queue]'s */
		v = p->nb_rx_queues;
		if (ofan_cfg_get_u32(cfg, sec, "rx_queues", 0, 1, 16, &v))
			return -EINVAL;
		p->nb_rx_queues = (uint16_t)v;
		v = p->nb_rxd;
		if (ofan_cfg_get_u32(cfg, sec, "rx_descriptors", 0, 64, 16384,
				     &v))
			return -EINVAL;
		p->nb_rxd = (uint16_t)v;
		v = p->nb_txd;
		if (ofan_cfg_get_u32(cfg, sec, "tx_descriptors", 0, 64, 16384,
				     &v))
			return -EINVAL;
		p->nb_txd = (uint16_t)v;
		if (sw_config_queue_from_cfg(cfg, sec, &p->queue) ||
		    ofan_cfg_get_bool(cfg, sec, "to_host", 0, &to_host))
			return -EINVAL;
		p->queue.to_host = to_host;
	}
	for (i = 0; i < n; i++)
		if (!seen[i])
			return ofan_cfg_fail(cfg, secs[n - 1], "dev",
				"ports must be numbered densely from 0; [port.%d] is missing", i);
	{
		/* Two ports on one device: refused here too (--check-config). */
		const char *devs[SW_MAX_PORTS];

		for (i = 0; i < n; i++)
			devs[i] = c->ports[i].dev;
		if (ofan_cfg_check_devices(cfg, devs, n))
			return -EINVAL;
	}
	c->nb_ports = (uint16_t)n;
	return 0;
}

static int
sw_config_groups(struct ofan_cfg *cfg, struct sw_config *c)
{
	const char *secs[SW_MAX_GROUPS + 1];
	int n, i;

	n = ofan_cfg_sections(cfg, "group.", secs, SW_MAX_GROUPS + 1);
	if (n > SW_MAX_GROUPS)
		return ofan_cfg_fail(cfg, secs[SW_MAX_GROUPS], "members",
			"too many groups; expected at most %d", SW_MAX_GROUPS);
	for (i = 0; i < n; i++) {
		struct sw_group_config *g = &c->groups[c->nb_groups];
		uint32_t v[LB_MAX_MEMBERS], nv = 0, nw = 0, j, k;

		snprintf(g->name, sizeof(g->name), "%s", secs[i] + 6);
		if (ofan_cfg_get_u32_list(cfg, secs[i], "members",
					  OFAN_CFG_REQUIRED, 0, c->nb_ports - 1,
					  v, LB_MAX_MEMBERS, &nv))
			return -EINVAL;
		if (nv == 0)
			return ofan_cfg_fail(cfg, secs[i], "members",
				"empty; expected at least one port number");
		for (j = 0; j < nv; j++) {
			for (k = 0; k < j; k++)
				if (v[k] == v[j])
					return ofan_cfg_fail(cfg, secs[i], "members",
						"port %u is listed twice; expected distinct ports",
						v[j]);
			g->port[j] = (uint16_t)v[j];
			g->weight[j] = 1;
		}
		g->nb_members = (uint16_t)nv;
		if (ofan_cfg_has_key(cfg, secs[i], "weights")) {
			if (ofan_cfg_get_u32_list(cfg, secs[i], "weights", 0, 1,
						  1000, v, LB_MAX_MEMBERS, &nw))
				return -EINVAL;
			if (nw != nv && ofan_cfg_blame2(cfg, secs[i], "weights",
							"members") == 1)
				return ofan_cfg_fail(cfg, secs[i], "members",
					"'%s' lists %u port(s) for %u weights; expected one weight per member",
					ofan_cfg_value(cfg, secs[i], "members"),
					nv, nw);
			if (nw != nv)
				return ofan_cfg_fail(cfg, secs[i], "weights",
					"has %u values for %u members; expected one weight per member",
					nw, nv);
			for (j = 0; j < nw; j++)
				g->weight[j] = (uint16_t)v[j];
		} else {
			ofan_cfg_get_u32_list(cfg, secs[i], "weights", 0, 1,
					      1000, v, LB_MAX_MEMBERS, &nw);
		}
		c->nb_groups++;
	}
	return 0;
}

/*
 * A route names either a group or a single port.  A port route gets an
 * implicit one-member group ("port.N"), shared by every route to that port.
 */
static int
sw_config_port_group(struct sw_config *c, uint16_t port)
{
	char name[SW_NAME_SIZE];
	int g;

	snprintf(name, sizeof(name), "port.%u", port);
	g = sw_config_find_group(c, name);
	if (g >= 0)
		return g;
	if (c->nb_groups >= SW_MAX_GROUPS)
		return -ENOSPC;
	g = c->nb_groups++;
	snprintf(c->groups[g].name, sizeof(c->groups[g].name), "%s", name);
	c->groups[g].nb_members = 1;
	c->groups[g].port[0] = port;
	c->groups[g].weight[0] = 1;
	return g;
}

static int
sw_config_routes(struct ofan_cfg *cfg, struct sw_config *c)
{
	const char **secs;
	int n, i, rc = 0;

	n = ofan_cfg_sections(cfg, "route.", NULL, 0);
	if (n > SW_MAX_ROUTES)
		n = SW_MAX_ROUTES + 1;
	secs = calloc(n + 1, sizeof(*secs));
	if (secs == NULL)
		return -ENOMEM;
	ofan_cfg_sections(cfg, "route.", secs, n);
	if (n > SW_MAX_ROUTES) {
		rc = ofan_cfg_fail(cfg, secs[SW_MAX_ROUTES], "prefix",
			"too many routes; expected at most %d", SW_MAX_ROUTES);
		goto out;
	}
	for (i = 0; i < n && rc == 0; i++) {
		struct sw_route_config *r = &c->routes[c->nb_routes];
		const char *sec = secs[i];
		bool has_group = ofan_cfg_has_key(cfg, sec, "group");
		bool has_port = ofan_cfg_has_key(cfg, sec, "port");
		const char *gname = NULL;
		uint32_t port = 0, j;
		int g;

		r->dst_key = UINT32_MAX;	/* default assigned below */
		if (ofan_cfg_get_prefix(cfg, sec, "prefix", OFAN_CFG_REQUIRED,
					&r->prefix, &r->depth) ||
		    ofan_cfg_get_u32(cfg, sec, "dst_key", 0, 0,
				     SW_MAX_DST_KEYS - 1, &r->dst_key) ||
		    ofan_cfg_get_str(cfg, sec, "group", 0, &gname) ||
		    ofan_cfg_get_u32(cfg, sec, "port", 0, 0, c->nb_ports - 1,
				     &port)) {
			rc = -EINVAL;
			break;
		}
		if (has_group == has_port) {
			/* Both: the one an override set, else port. */
			bool group = !has_group ||
				ofan_cfg_blame2(cfg, sec, "port", "group") == 1;

			rc = ofan_cfg_fail(cfg, sec, group ? "group" : "port",
				"%s; expected exactly one of group = <name of a [group.NAME]> or port = <port number>",
				!has_group ? "missing" : group ?
				"given together with port" :
				"given together with group");
			break;
		}
		if (has_group) {
			g = sw_config_find_group(c, gname);
			if (g < 0) {
				rc = ofan_cfg_fail(cfg, sec, "group",
					"'%s' is not a group; expected the NAME of a [group.NAME] section",
					gname);
				break;
			}
		} else {
			g = sw_config_port_group(c, (uint16_t)port);
			if (g < 0) {
				rc = ofan_cfg_fail(cfg, sec, "port",
					"too many groups; expected at most %d groups including one per routed port",
					SW_MAX_GROUPS);
				break;
			}
		}
		for (j = 0; j < c->nb_routes; j++) {
			const struct ofan_cfg_key keys[] = {
				{ sec, "prefix" }, { secs[j], "prefix" },
			};

			if (c->routes[j].prefix != r->prefix ||
			    c->routes[j].depth != r->depth)
				continue;
			/* routes[j] is secs[j]'s: each route before is. */
			if (ofan_cfg_blame(cfg, keys, 2) == 1)
				rc = ofan_cfg_fail(cfg, secs[j], "prefix",
					"'%s' is also the prefix of [%s]; expected each prefix once",
					ofan_cfg_value(cfg, secs[j], "prefix"),
					sec);
			else
				rc = ofan_cfg_fail(cfg, sec, "prefix",
					"duplicates the prefix of [%s]; expected each prefix once",
					secs[j]);
			goto out;
		}
		r->group = (uint16_t)g;
		if (r->dst_key != UINT32_MAX && r->dst_key + 1 > c->nb_dst_keys)
			c->nb_dst_keys = r->dst_key + 1;
		c->nb_routes++;
	}
	/*
	 * A route without dst_key is its own destination: it gets a key
	 * above every explicit one, so that it never shares a rotation
	 * pointer with another destination by accident.
	 */
	for (i = 0; rc == 0 && i < (int)c->nb_routes; i++) {
		struct sw_route_config *r = &c->routes[i];

		if (r->dst_key != UINT32_MAX)
			continue;
		if (c->nb_dst_keys >= SW_MAX_DST_KEYS) {
			rc = ofan_cfg_fail(cfg, secs[i], "dst_key",
				"no destination key left for this route; expected explicit dst_key values below %d",
				SW_MAX_DST_KEYS);
			break;
		}
		r->dst_key = c->nb_dst_keys++;
	}
out:
	free(secs);
	return rc;
}

static int
sw_config_failures(struct ofan_cfg *cfg, struct sw_config *c)
{
	const char *secs[SW_MAX_FAILURES + 1];
	int n, i, mode;

	if (ofan_cfg_get_time(cfg, "failures", "detect_delay", 0, 0,
			      3600ull * 1000000000ull, &c->detect_delay_ns) ||
	    ofan_cfg_get_time(cfg, "failures", "reconverge_delay", 0, 0,
			      3600ull * 1000000000ull,
			      &c->reconverge_delay_ns))
		return -EINVAL;
	n = ofan_cfg_sections(cfg, "failure.", secs, SW_MAX_FAILURES + 1);
	if (n > SW_MAX_FAILURES)
		return ofan_cfg_fail(cfg, secs[SW_MAX_FAILURES], "port",
			"too many failures; expected at most %d",
			SW_MAX_FAILURES);
	for (i = 0; i < n; i++) {
		struct sw_failure_config *f = &c->failures[i];
		uint32_t port = 0;

		snprintf(f->name, sizeof(f->name), "%s", secs[i]);
		mode = SW_LINK_DOWN;
		if (ofan_cfg_get_u32(cfg, secs[i], "port", OFAN_CFG_REQUIRED,
				     0, c->nb_ports - 1, &port) ||
		    ofan_cfg_get_enum(cfg, secs[i], "mode", OFAN_CFG_REQUIRED,
				      sw_link_state_names, &mode) ||
		    ofan_cfg_get_time(cfg, secs[i], "at", OFAN_CFG_REQUIRED,
				      0, UINT64_MAX, &f->at_ns) ||
		    ofan_cfg_get_time(cfg, secs[i], "duration", 0, 0,
				      UINT64_MAX, &f->duration_ns) ||
		    ofan_cfg_get_rate(cfg, secs[i], "rate", 0, 1000,
				      10000ull * 1000000000ull, &f->rate_bps))
			return -EINVAL;
		if (mode == SW_LINK_UP)
			return ofan_cfg_fail(cfg, secs[i], "mode",
				"'up' is not a failure; expected one of down, blackhole, degraded, stall");
		if (mode == SW_LINK_DEGRADED && f->rate_bps == 0 &&
		    ofan_cfg_overridden(cfg, secs[i], "mode"))
			return ofan_cfg_fail(cfg, secs[i], "mode",
				"'%s' without a rate; expected rate = the degraded rate (e.g. 1G) too",
				ofan_cfg_value(cfg, secs[i], "mode"));
		if (mode == SW_LINK_DEGRADED && f->rate_bps == 0)
			return ofan_cfg_fail(cfg, secs[i], "rate",
				"missing; expected the degraded rate (e.g. 1G) for mode = degraded");
		f->port = (uint16_t)port;
		f->mode = (uint8_t)mode;
	}
	c->nb_failures = (uint16_t)n;
	return 0;
}

/* [drop.NAME]: a lossy egress port (port, mode random or bursts). */
static int
sw_config_drops(struct ofan_cfg *cfg, struct sw_config *c)
{
	static const char *const modes[] = { "random", "bursts", NULL };
	const char *secs[SW_MAX_DROPS + 1];
	int taken[SW_MAX_PORTS];	/* the [drop.*] of a port, or -1 */
	int n, i, mode;

	for (i = 0; i < SW_MAX_PORTS; i++)
		taken[i] = -1;
	n = ofan_cfg_sections(cfg, "drop.", secs, SW_MAX_DROPS + 1);
	if (n > SW_MAX_DROPS)
		return ofan_cfg_fail(cfg, secs[SW_MAX_DROPS], "port",
			"too many [drop.*] sections; expected at most %d",
			SW_MAX_DROPS);
	for (i = 0; i < n; i++) {
		struct sw_drop_config *d = &c->drops[i];
		uint32_t port = 0;

		snprintf(d->name, sizeof(d->name), "%s", secs[i]);
		ofan_loss_defaults(&d->loss);
		mode = 0;
		if (ofan_cfg_get_u32(cfg, secs[i], "port", OFAN_CFG_REQUIRED,
				     0, c->nb_ports - 1, &port) ||
		    ofan_cfg_get_enum(cfg, secs[i], "mode", OFAN_CFG_REQUIRED,
				      modes, &mode))
			return -EINVAL;
		d->loss.mode = mode == 0 ? OFAN_LOSS_RANDOM : OFAN_LOSS_BURSTS;
		if (ofan_loss_parse(cfg, secs[i], &d->loss))
			return -EINVAL;
		if (taken[port] >= 0) {
			const struct ofan_cfg_key keys[] = {
				{ secs[i], "port" }, { secs[taken[port]], "port" },
			};

			if (ofan_cfg_blame(cfg, keys, 2) == 1)
				return ofan_cfg_fail(cfg, secs[taken[port]],
					"port",
					"'%u' is lossy in [%s] too; expected one per port",
					port, secs[i]);
			return ofan_cfg_fail(cfg, secs[i], "port",
				"'%u' is lossy in another [drop.*] section already; expected one per port",
				port);
		}
		taken[port] = i;
		d->port = (uint16_t)port;
	}
	c->nb_drops = (uint16_t)n;
	return 0;
}

static int
sw_config_reroutes(struct ofan_cfg *cfg, struct sw_config *c)
{
	const char *secs[SW_MAX_REROUTES + 1];
	int n, i, g;

	n = ofan_cfg_sections(cfg, "reroute.", secs, SW_MAX_REROUTES + 1);
	if (n > SW_MAX_REROUTES)
		return ofan_cfg_fail(cfg, secs[SW_MAX_REROUTES], "group",
			"too many reroutes; expected at most %d",
			SW_MAX_REROUTES);
	for (i = 0; i < n; i++) {
		struct sw_reroute_config *r = &c->reroutes[i];
		uint32_t w[LB_MAX_MEMBERS], nw = 0, j;
		const char *gname = NULL;

		snprintf(r->name, sizeof(r->name), "%s", secs[i]);
		if (ofan_cfg_get_str(cfg, secs[i], "group", OFAN_CFG_REQUIRED,
				     &gname) ||
		    ofan_cfg_get_time(cfg, secs[i], "at", OFAN_CFG_REQUIRED,
				      0, UINT64_MAX, &r->at_ns) ||
		    ofan_cfg_get_u32_list(cfg, secs[i], "weights",
					  OFAN_CFG_REQUIRED, 0, 1000, w,
					  LB_MAX_MEMBERS, &nw))
			return -EINVAL;
		g = sw_config_find_group(c, gname);
		if (g < 0)
			return ofan_cfg_fail(cfg, secs[i], "group",
				"'%s' is not a group; expected the NAME of a [group.NAME] section",
				gname);
		if (nw != c->groups[g].nb_members &&
		    ofan_cfg_blame2(cfg, secs[i], "weights", "group") == 1)
			return ofan_cfg_fail(cfg, secs[i], "group",
				"'%s' has %u members, not the %u weights given; expected a group of one member a weight (0: out of the group)",
				gname, c->groups[g].nb_members, nw);
		if (nw != c->groups[g].nb_members)
			return ofan_cfg_fail(cfg, secs[i], "weights",
				"has %u values for the %u members of [group.%s]; expected one weight per member (0: out of the group)",
				nw, c->groups[g].nb_members, gname);
		r->group = (uint16_t)g;
		for (j = 0; j < nw; j++)
			r->weight[j] = (uint16_t)w[j];
	}
	c->nb_reroutes = (uint16_t)n;
	return 0;
}

int
sw_config_find_group(const struct sw_config *c, const char *name)
{
	int i;

	for (i = 0; i < c->nb_groups; i++)
		if (strcmp(c->groups[i].name, name) == 0)
			return i;
	return -1;
}

int
sw_config_from_cfg(struct ofan_cfg *cfg, struct sw_config *c)
{
	struct sw_queue_config qdef;

	sw_config_defaults(c);
	c->path = ofan_cfg_path(cfg);
	sw_queue_config_defaults(&qdef);
	if (sw_config_switch(cfg, c) || sw_config_queue_from_cfg(cfg, "queue", &qdef) ||
	    lb_levels_from_cfg(cfg, "queue", &c->levels) ||
	    sw_config_ports(cfg, c, &qdef) || sw_config_groups(cfg, c) ||
	    sw_config_routes(cfg, c) || sw_config_failures(cfg, c) ||
	    sw_config_reroutes(cfg, c) || sw_config_drops(cfg, c))
		return -EINVAL;
	/*
	 * Every policy validates its own section, selected or not; the keys
	 * it asks for become the allowed keys of that section, so a typo
	 * there is reported like anywhere else.
	 */
	if (lb_settings_from_cfg(cfg, &c->lb) != 0)
		return -EINVAL;
	if (c->nb_routes == 0)
		return ofan_cfg_fail(cfg, "route.default", "prefix",
			"missing; expected at least one [route.NAME] section");
	if (c->nb_dst_keys == 0)
		c->nb_dst_keys = 1;
	return ofan_cfg_check_unknown(cfg);
}

static int
sw_config_fill(struct ofan_cfg *cfg, void *arg)
{
	return sw_config_from_cfg(cfg, arg);
}

int
sw_config_load(const char *path, struct sw_config *c, char *err,
	       unsigned int err_size)
{
	int rc = ofan_cfg_load_with(path, sw_config_fill, c, err, err_size);

	/* c->path must outlive the loader's cfg: keep the caller's string. */
	c->path = path;
	return rc;
}

/* Copy src into dst from byte `from` up to byte `to`. */
static void
sw_config_copy_range(struct sw_config *dst, const struct sw_config *src,
		     size_t from, size_t to)
{
	memcpy((uint8_t *)dst + from, (const uint8_t *)src + from, to - from);
}

/* Every byte of src but the unused entries of its tables. */
void
sw_config_copy(struct sw_config *dst, const struct sw_config *src)
{
#define SW_TABLE_END(t, nb) \
	(offsetof(struct sw_config, t) + (size_t)src->nb * sizeof(src->t[0]))
#define SW_TABLE_AFTER(t) \
	(offsetof(struct sw_config, t) + sizeof(src->t))
	sw_config_copy_range(dst, src, 0, SW_TABLE_END(groups, nb_groups));
	sw_config_copy_range(dst, src, SW_TABLE_AFTER(groups),
			     SW_TABLE_END(routes, nb_routes));
	sw_config_copy_range(dst, src, SW_TABLE_AFTER(routes),
			     SW_TABLE_END(failures, nb_failures));
	sw_config_copy_range(dst, src, SW_TABLE_AFTER(failures),
			     SW_TABLE_END(reroutes, nb_reroutes));
	sw_config_copy_range(dst, src, SW_TABLE_AFTER(reroutes),
			     sizeof(*src));
#undef SW_TABLE_END
#undef SW_TABLE_AFTER
}

/*
 * The reference loads (sw_config_reference()): two ports, a group, a
 * route, a failure, a drop and a reroute, with POLICY and the drop's MODE
 * filled in.
 */
static const char sw_ref_head[] = "[switch]\npolicy = %s\n";
static const char sw_ref_tail[] =
	"[group.NAME]\nmembers = 0, 1\n"
	"[route.NAME]\nprefix = 10.0.0.0/24\ngroup = name\n"
	"[failure.NAME]\nport = 1\nmode = down\nat = 1ms\n"
	"[drop.NAME]\nport = 0\nmode = %s\nrate = 0.01\n"
	"[reroute.NAME]\ngroup = name\nat = 2ms\nweights = 1, 1\n";

int
sw_config_reference(FILE *f, char *err, unsigned int err_size)
{
	static const char *const drops[] = { "random", "bursts" };
	struct sw_config *c = calloc(1, sizeof(*c));
	struct ofan_cfg_ref *ref = ofan_cfg_ref_new();
	char text[SW_MAX_ETHPORTS * 40 + 512];
	struct ofan_cfg *cfg;
	int i, d, rc = 0;

	if (c == NULL || ref == NULL) {
		free(c);
		ofan_cfg_ref_free(ref);
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	ofan_cfg_ref_record(ref);
	for (i = 0; rc == 0 && lb_registry[i] != NULL; i++) {
		for (d = 0; rc == 0 && d < 2; d++) {
			if (d > 0 && i > 0)
				break;
			/* Every port there can be: ranges of port numbers
			 * show their limit. */
			size_t n = (size_t)snprintf(text, sizeof(text),
						    sw_ref_head,
						    lb_registry[i]->name);
			int p;

			for (p = 0; p < SW_MAX_ETHPORTS; p++)
				n += (size_t)snprintf(text + n, sizeof(text) - n,
					"[port.%d]\ndev = net_null%d\n", p, p);
			snprintf(text + n, sizeof(text) - n, sw_ref_tail,
				 drops[d]);
			memset(c, 0, sizeof(*c));
			cfg = ofan_cfg_load_mem("reference.ini", text,
						strlen(text), err, err_size);
			if (cfg == NULL) {
				rc = -EINVAL;
				break;
			}
			if (sw_config_from_cfg(cfg, c) != 0) {
				snprintf(err, err_size, "%s", ofan_cfg_error(cfg));
				rc = -EINVAL;
			}
			ofan_cfg_free(cfg);
		}
	}
	ofan_cfg_ref_record(NULL);
	if (rc == 0) {
		fprintf(f, "## ofan-switch: switch configs\n\n"
			"Generated by `ofan-switch --config-reference` from the loaders.\n"
			"A `[port.N]` key marked so in [queue] may also be set per port.\n\n");
		ofan_cfg_ref_write(ref, f);
	}
	ofan_cfg_ref_free(ref);
	free(c);
	return rc;
}
