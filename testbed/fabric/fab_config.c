/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The experiment file of ofan-fabric.  Sections:
 *   [fabric]          topology, links, schemes, routing delays, limits;
 *   [queue]           every switch port's egress queue and the queue
 *                     levels policies see (the switch's keys);
 *   [ofan] [flowlet] ...  switch policy settings (the switch's);
 *   [host] [host.<policy>]  transport and host policy settings (the
 *                     host agent's keys; the policy, rate and MTU come from
 *                     [fabric]);
 *   [traffic]         the collective (the host agent's keys);
 *   [failure.NAME]    a link failure: link, mode, at, duration, rate;
 *   [sweep.NAME]      a sweep dimension: keys, values.
 * Sweeps are applied as overrides on the raw file, so a swept key is
 * checked exactly like a written one, and every combination is loaded and
 * validated (topology and failure links included) before a run starts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fab.h"
#include "hlb.h"
#include "hs_traffic.h"
#include "lb.h"
#include "ofan_config.h"

#define FAB_SEC "fabric"

const char *const fab_topology_names[] = {
	"fattree", "leafspine", "b2b", NULL
};

const char *const fab_placement_names[] = { "linear", "random", NULL };

/* A sweep dimension as written: keys and their values. */
struct fab_sweep {
	char name[FAB_NAME_SIZE];
	uint16_t nb_keys;
	char keys[4][2 * FAB_NAME_SIZE];	/* "fabric.reconverge_delay" */
	uint16_t nb_values;
	char values[FAB_MAX_SWEEP_VALUES][FAB_NAME_SIZE];
};

/* Trim blanks at both ends in place; returns s. */
static char *
fab_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = 0;
	return s;
}

/*
 * Apply "section.key=value" to cfg.  The section is everything before the
 * last dot of the left side ("host.reps.freeze_time" is [host.reps]).
 */
static int
fab_apply_override(struct ofan_cfg *cfg, const char *ov, char *err,
		   unsigned int err_size)
{
	char buf[256], *eq, *dot, *key, *sec;

	if (strlen(ov) >= sizeof(buf)) {
		snprintf(err, err_size, "override '%.40s...' is too long; expected section.key=value",
			 ov);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", ov);
	eq = strchr(buf, '=');
	if (eq == NULL) {
		snprintf(err, err_size, "override '%s' has no '='; expected section.key=value, e.g. fabric.k=4",
			 ov);
		return -EINVAL;
	}
	*eq = 0;
	dot = strrchr(buf, '.');
	if (dot == NULL || dot == buf || dot[1] == 0) {
		snprintf(err, err_size, "override '%s' names no section; expected section.key=value, e.g. traffic.size=1MiB",
			 ov);
		return -EINVAL;
	}
	*dot = 0;
	sec = fab_trim(buf);
	key = fab_trim(dot + 1);
	if (ofan_cfg_set(cfg, sec, key, fab_trim(eq + 1)) != 0) {
		snprintf(err, err_size, "override '%s' cannot be applied", ov);
		return -EINVAL;
	}
	return 0;
}

/* Split s at commas into up to max trimmed parts; returns the count. */
static int
fab_split(char *s, char **parts, int max)
{
	int n = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(s, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			return max + 1;
		parts[n++] = fab_trim(tok);
	}
	return n;
}

/*
 * A scheme: "ecmp" (ECMP with fixed EVs), "ops" / "reps" / "plb" / "mp"
 * (host spraying through ECMP), a switch policy alone ("spray" is
 * spray+fixed), or "switch+host" for anything else.
 */
static int
fab_parse_scheme(struct ofan_cfg *cfg, const char *word, struct fab_scheme *s)
{
	char sw[FAB_NAME_SIZE], *plus;
	const char *host = "fixed";

	if (strlen(word) == 0 || strlen(word) >= sizeof(sw))
		goto bad;
	snprintf(sw, sizeof(sw), "%s", word);
	plus = strchr(sw, '+');
	if (plus != NULL) {
		*plus = 0;
		host = plus + 1;
	} else if (lb_find(sw) == NULL && hlb_find(sw) != NULL) {
		host = word;
		snprintf(sw, sizeof(sw), "ecmp");
	}
	s->sw_policy = lb_find(sw);
	s->host_policy = hlb_find(host);
	if (s->sw_policy == NULL || s->host_policy == NULL)
		goto bad;
	if (plus == NULL)
		snprintf(s->name, sizeof(s->name), "%s", word);
	else if (strcmp(host, "fixed") == 0)
		snprintf(s->name, sizeof(s->name), "%s", sw);
	else if (strcmp(sw, "ecmp") == 0)
		snprintf(s->name, sizeof(s->name), "%s", host);
	else
		snprintf(s->name, sizeof(s->name), "%s", word);
	return 0;
bad:
	return ofan_cfg_fail(cfg, FAB_SEC, "schemes",
		"'%s' is not a scheme; expected ecmp, ops, reps, plb, mp, a switch policy (spray, rr, adaptive, flowlet, ofan) or SWITCH+HOST such as spray+ops",
		word);
}

static int
fab_parse_schemes(struct ofan_cfg *cfg, struct fab_params *p)
{
	const char *list = "ecmp, ops, reps, spray, adaptive, rr, ofan";
	char buf[1024], *parts[FAB_MAX_SCHEMES + 1];
	int n, i, j;

	if (ofan_cfg_get_str(cfg, FAB_SEC, "schemes", 0, &list))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", list);
	n = fab_split(buf, parts, FAB_MAX_SCHEMES);
	if (n == 0 || n > FAB_MAX_SCHEMES)
		return ofan_cfg_fail(cfg, FAB_SEC, "schemes",
			"'%s' lists %s schemes; expected 1 to %d, comma separated",
			list, n == 0 ? "no" : "too many", FAB_MAX_SCHEMES);
	for (i = 0; i < n; i++) {
		if (fab_parse_scheme(cfg, parts[i], &p->schemes[i]))
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (strcmp(p->schemes[j].name,
				   p->schemes[i].name) == 0)
				return ofan_cfg_fail(cfg, FAB_SEC, "schemes",
					"'%s' is listed twice; expected each scheme once",
					parts[i]);
	}
	p->nb_schemes = (uint16_t)n;
	return 0;
}

static int
fab_parse_topology(struct ofan_cfg *cfg, struct fab_params *p)
{
	int topo = p->topo, place = p->placement;
	double over = 1.0;
	bool over_set;

	if (ofan_cfg_get_enum(cfg, FAB_SEC, "topology", 0, fab_topology_names,
			      &topo) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "k", 0, 2, FAB_MAX_K, &p->k) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "leaves", 0, 1, SW_MAX_PORTS,
			     &p->leaves) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "spines", 0, 1,
			     SW_MAX_PORTS - 1, &p->spines) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "hosts_per_leaf", 0, 1,
			     SW_MAX_PORTS - 1, &p->hosts_per_leaf) ||
	    ofan_cfg_get_rate(cfg, FAB_SEC, "rate", 0, 1000000,
			      10000ull * 1000000000ull, &p->rate_bps) ||
	    ofan_cfg_get_double(cfg, FAB_SEC, "oversubscription", 0, 0.01,
				100.0, &over) ||
	    ofan_cfg_get_enum(cfg, FAB_SEC, "placement", 0,
			      fab_placement_names, &place))
		return -EINVAL;
	p->topo = (enum fab_topology)topo;
	p->placement = (enum fab_placement)place;
	if (p->topo == FAB_TOPO_FATTREE && p->k % 2 != 0)
		return ofan_cfg_fail(cfg, FAB_SEC, "k",
			"'%u' is odd; expected an even k from 2 to %d", p->k,
			FAB_MAX_K);
	if (p->topo == FAB_TOPO_LEAFSPINE &&
	    p->hosts_per_leaf + p->spines > SW_MAX_PORTS)
		return ofan_cfg_fail(cfg, FAB_SEC, "spines",
			"'%u' spines and %u hosts per leaf need %u leaf ports; expected at most %d",
			p->spines, p->hosts_per_leaf,
			p->spines + p->hosts_per_leaf, SW_MAX_PORTS);
	over_set = ofan_cfg_has_key(cfg, FAB_SEC, "oversubscription");
	p->uplink_rate_bps = p->rate_bps;
	if (over_set && ofan_cfg_has_key(cfg, FAB_SEC, "uplink_rate"))
		return ofan_cfg_fail(cfg, FAB_SEC, "uplink_rate",
			"is set together with oversubscription; expected one of them");
	if (ofan_cfg_get_rate(cfg, FAB_SEC, "uplink_rate", 0, 1000000,
			      10000ull * 1000000000ull, &p->uplink_rate_bps))
		return -EINVAL;
	if (over_set && p->topo == FAB_TOPO_LEAFSPINE)
		/* Host capacity of a leaf over its uplink capacity. */
		p->uplink_rate_bps = (uint64_t)((double)p->rate_bps *
			p->hosts_per_leaf / (p->spines * over) + 0.5);
	else if (over_set && p->topo == FAB_TOPO_FATTREE)
		p->uplink_rate_bps = (uint64_t)((double)p->rate_bps / over +
						0.5);
	return 0;
}

static int
fab_parse_failures(struct ofan_cfg *cfg, struct fab_params *p)
{
	static const char *const modes[] = {
		"up", "down", "blackhole", "degraded", NULL
	};
	const char *secs[FAB_MAX_FAILURES + 1];
	int n, i;

	n = ofan_cfg_sections(cfg, "failure.", secs, FAB_MAX_FAILURES + 1);
	if (n > FAB_MAX_FAILURES)
		return ofan_cfg_fail(cfg, secs[FAB_MAX_FAILURES], "link",
			"too many failures; expected at most %d",
			FAB_MAX_FAILURES);
	for (i = 0; i < n; i++) {
		struct fab_failure *f = &p->failures[i];
		const char *link = NULL;
		int mode = SW_LINK_BLACKHOLE;

		if (ofan_cfg_get_str(cfg, secs[i], "link", OFAN_CFG_REQUIRED,
				     &link) ||
		    ofan_cfg_get_enum(cfg, secs[i], "mode", 0, modes, &mode) ||
		    ofan_cfg_get_time(cfg, secs[i], "at", OFAN_CFG_REQUIRED, 0,
				      3600ull * 1000000000ull, &f->at_ns) ||
		    ofan_cfg_get_time(cfg, secs[i], "duration", 0, 0,
				      3600ull * 1000000000ull,
				      &f->duration_ns) ||
		    ofan_cfg_get_rate(cfg, secs[i], "rate", 0, 0,
				      10000ull * 1000000000ull, &f->rate_bps))
			return -EINVAL;
		if (mode == SW_LINK_UP)
			return ofan_cfg_fail(cfg, secs[i], "mode",
				"'up' is not a failure; expected down, blackhole or degraded");
		if (mode == SW_LINK_DEGRADED && f->rate_bps == 0)
			return ofan_cfg_fail(cfg, secs[i], "rate",
				"missing; expected the degraded rate (e.g. 25G) for mode = degraded");
		if (strlen(link) >= sizeof(f->link))
			return ofan_cfg_fail(cfg, secs[i], "link",
				"'%s' is too long; expected a link name such as agg3-core5",
				link);
		snprintf(f->link, sizeof(f->link), "%s", link);
		snprintf(f->sec, sizeof(f->sec), "%s", secs[i]);
		f->mode = (uint8_t)mode;
	}
	p->nb_failures = (uint16_t)n;
	return 0;
}

static int
fab_parse_drops(struct ofan_cfg *cfg, struct fab_params *p)
{
	const char *secs[FAB_MAX_DROPS + 1];
	int n, i;

	n = ofan_cfg_sections(cfg, "drop.", secs, FAB_MAX_DROPS + 1);
	if (n > FAB_MAX_DROPS)
		return ofan_cfg_fail(cfg, secs[FAB_MAX_DROPS], "link",
			"too many [drop.*] sections; expected at most %d",
			FAB_MAX_DROPS);
	for (i = 0; i < n; i++) {
		struct fab_drop *d = &p->drops[i];
		const char *link = NULL;

		d->count = 1;
		if (ofan_cfg_get_str(cfg, secs[i], "link", OFAN_CFG_REQUIRED,
				     &link) ||
		    ofan_cfg_get_u64(cfg, secs[i], "frame", OFAN_CFG_REQUIRED,
				     1, UINT64_MAX / 2, &d->frame) ||
		    ofan_cfg_get_u32(cfg, secs[i], "count", 0, 1, 1u << 30,
				     &d->count))
			return -EINVAL;
		if (strlen(link) >= sizeof(d->link))
			return ofan_cfg_fail(cfg, secs[i], "link",
				"'%s' is too long; expected a link name such as h0-leaf0",
				link);
		snprintf(d->link, sizeof(d->link), "%s", link);
		snprintf(d->sec, sizeof(d->sec), "%s", secs[i]);
	}
	p->nb_drops = (uint16_t)n;
	return 0;
}

/* [sweep.NAME] sections, in file order (read, so they count as known). */
static int
fab_parse_sweeps(struct ofan_cfg *cfg, struct fab_sweep *sw, int *nb)
{
	const char *secs[FAB_MAX_SWEEP_DIMS + 1];
	int n, i, j;

	n = ofan_cfg_sections(cfg, "sweep.", secs, FAB_MAX_SWEEP_DIMS + 1);
	if (n > FAB_MAX_SWEEP_DIMS)
		return ofan_cfg_fail(cfg, secs[FAB_MAX_SWEEP_DIMS], "keys",
			"too many sweep dimensions; expected at most %d",
			FAB_MAX_SWEEP_DIMS);
	for (i = 0; i < n; i++) {
		struct fab_sweep *s = &sw[i];
		const char *keys = NULL, *values = NULL;
		char buf[1024], *parts[FAB_MAX_SWEEP_VALUES + 1];
		int nk, nv;

		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", secs[i] + 6);
		if (ofan_cfg_get_str(cfg, secs[i], "keys", OFAN_CFG_REQUIRED,
				     &keys) ||
		    ofan_cfg_get_str(cfg, secs[i], "values",
				     OFAN_CFG_REQUIRED, &values))
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%s", keys);
		nk = fab_split(buf, parts, 4);
		if (nk == 0 || nk > 4)
			return ofan_cfg_fail(cfg, secs[i], "keys",
				"'%s'; expected 1 to 4 comma-separated section.key names",
				keys);
		for (j = 0; j < nk; j++) {
			if (strchr(parts[j], '.') == NULL ||
			    strlen(parts[j]) >= sizeof(s->keys[j]))
				return ofan_cfg_fail(cfg, secs[i], "keys",
					"'%s' is not section.key; expected e.g. fabric.reconverge_delay",
					parts[j]);
			snprintf(s->keys[j], sizeof(s->keys[j]), "%s",
				 parts[j]);
		}
		s->nb_keys = (uint16_t)nk;
		snprintf(buf, sizeof(buf), "%s", values);
		nv = fab_split(buf, parts, FAB_MAX_SWEEP_VALUES);
		if (nv == 0 || nv > FAB_MAX_SWEEP_VALUES)
			return ofan_cfg_fail(cfg, secs[i], "values",
				"'%s'; expected 1 to %d comma-separated values (a/b/c for several keys)",
				values, FAB_MAX_SWEEP_VALUES);
		for (j = 0; j < nv; j++) {
			int slashes = 0, empty;
			const char *c;

			for (c = parts[j]; *c; c++)
				slashes += *c == '/';
			empty = parts[j][0] == '/' || parts[j][0] == 0 ||
				parts[j][strlen(parts[j]) - 1] == '/' ||
				strstr(parts[j], "//") != NULL;
			if (empty)
				return ofan_cfg_fail(cfg, secs[i], "values",
					"'%s' has an empty part; expected one value per key, separated by '/'",
					parts[j]);
			if (slashes + 1 != nk ||
			    strlen(parts[j]) >= sizeof(s->values[j]))
				return ofan_cfg_fail(cfg, secs[i], "values",
					"'%s' has %d part(s) for %d key(s); expected one value per key, separated by '/'",
					parts[j], slashes + 1, nk);
			snprintf(s->values[j], sizeof(s->values[j]), "%s",
				 parts[j]);
		}
		s->nb_values = (uint16_t)nv;
	}
	*nb = n;
	return 0;
}

/* Apply value number v of sweep s ("8/8/16" over its keys) to cfg. */
static int
fab_apply_sweep(struct ofan_cfg *cfg, const struct fab_sweep *s, int v,
		char *err, unsigned int err_size)
{
	char vals[FAB_NAME_SIZE], *save = NULL, *tok;
	char ov[256];
	int k = 0;

	snprintf(vals, sizeof(vals), "%s", s->values[v]);
	for (tok = strtok_r(vals, "/", &save); tok != NULL && k < s->nb_keys;
	     tok = strtok_r(NULL, "/", &save), k++) {
		snprintf(ov, sizeof(ov), "%s=%s", s->keys[k], fab_trim(tok));
		if (fab_apply_override(cfg, ov, err, err_size) != 0)
			return -EINVAL;
	}
	return 0;
}

/* Everything but the sweeps: one combination's params from cfg. */
static int
fab_parse(struct ofan_cfg *cfg, struct fab_params *p)
{
	static const char *const host_owned[] = { "policy", "rate", "mtu" };
	const char *name = NULL;
	uint32_t mtu = 4096, threads = p->threads, parts;
	unsigned int i;

	if (ofan_cfg_get_str(cfg, FAB_SEC, "name", 0, &name) ||
	    fab_parse_topology(cfg, p) ||
	    ofan_cfg_get_time(cfg, FAB_SEC, "delay", 0, 0,
			      1000000000ull, &p->delay_ns) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "mtu", 0, 256, 9000, &mtu) ||
	    ofan_cfg_get_u64(cfg, FAB_SEC, "seed", 0, 0, UINT64_MAX, &p->seed) ||
	    ofan_cfg_get_time(cfg, FAB_SEC, "detect_delay", 0, 0,
			      3600ull * 1000000000ull, &p->detect_delay_ns) ||
	    ofan_cfg_get_time(cfg, FAB_SEC, "reconverge_delay", 0, 0,
			      3600ull * 1000000000ull,
			      &p->reconverge_delay_ns) ||
	    ofan_cfg_get_time(cfg, FAB_SEC, "time_limit", 0, 1000,
			      3600ull * 1000000000ull, &p->time_limit_ns) ||
	    ofan_cfg_get_time(cfg, FAB_SEC, "queue_window", 0, 10,
			      3600ull * 1000000000ull, &p->queue_window_ns) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "threads", 0, 1, FAB_MAX_THREADS,
			     &threads) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "seeds", 0, 1, FAB_MAX_SEEDS,
			     &p->seeds) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "nic_queue", 0, 0, 1u << 20,
			     &p->nic_queue) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "mbufs", 0, 0, 1u << 24,
			     &p->mbufs) ||
	    fab_parse_schemes(cfg, p))
		return -EINVAL;
	if (name != NULL)
		snprintf(p->name, sizeof(p->name), "%s", name);
	if (p->time_limit_ns / p->queue_window_ns > FAB_MAX_WINDOWS)
		return ofan_cfg_fail(cfg, FAB_SEC, "queue_window",
			"'%llu' ns makes %llu windows in time_limit; expected at most %u (a longer window)",
			(unsigned long long)p->queue_window_ns,
			(unsigned long long)(p->time_limit_ns /
					     p->queue_window_ns),
			FAB_MAX_WINDOWS);
	/* Threads own whole pods (fat tree) or leaves (leaf-spine). */
	parts = p->topo == FAB_TOPO_FATTREE ? p->k :
		p->topo == FAB_TOPO_LEAFSPINE ?
		(p->leaves < p->spines ? p->leaves : p->spines) : 1u;
	if (threads > parts)
		return ofan_cfg_fail(cfg, FAB_SEC, "threads",
			"'%u' is more than this %s can be cut into; expected at most %u",
			threads, fab_topology_names[p->topo], parts);
	p->threads = (uint16_t)threads;

	/* Switch side: the switch's own [queue] and policy sections. */
	if (sw_config_queue_from_cfg(cfg, "queue", &p->queue) ||
	    lb_levels_from_cfg(cfg, "queue", &p->levels) ||
	    lb_settings_from_cfg(cfg, &p->lb))
		return -EINVAL;
	if (!p->queue.enabled)
		return ofan_cfg_fail(cfg, "queue", "queue",
			"'no' has no meaning in a fabric; expected yes (links drain the queues at their rate)");
	if (p->queue.rate_bps != 0)
		return ofan_cfg_fail(cfg, "queue", "rate",
			"'%llu' bit/s is a shaping rate; expected no rate here (set link rates with [fabric] rate / uplink_rate)",
			(unsigned long long)p->queue.rate_bps);

	/* Host side: the host agent's [host], [host.*] and [traffic]. */
	for (i = 0; i < sizeof(host_owned) / sizeof(host_owned[0]); i++) {
		const char *v = "";

		if (!ofan_cfg_has_key(cfg, "host", host_owned[i]))
			continue;
		ofan_cfg_get_str(cfg, "host", host_owned[i], 0, &v);
		return ofan_cfg_fail(cfg, "host", host_owned[i],
			"'%s' is set by the fabric; expected no %s here (set [fabric] %s)",
			v, host_owned[i], i == 0 ? "schemes" : host_owned[i]);
	}
	p->base_rtt_set = ofan_cfg_has_key(cfg, "host", "base_rtt");
	p->host_seed_set = ofan_cfg_has_key(cfg, "host", "seed");
	p->traffic_seed_set = ofan_cfg_has_key(cfg, "traffic", "seed");
	if (hs_config_host_from_cfg(cfg, &p->host, 0))
		return -EINVAL;
	p->host.rate_bps = p->rate_bps;
	p->host.mtu = (uint16_t)mtu;
	if (!ofan_cfg_has_key(cfg, "host", "seed"))
		p->host.seed = p->seed;
	/* The structured permutations' ToRs and pods are the topology's. */
	switch (p->topo) {
	case FAB_TOPO_FATTREE:
		p->host.traffic.nb_ranks = p->k * p->k * p->k / 4;
		p->host.per_subnet = p->k / 2;
		p->host.traffic.tor_size = p->k / 2;
		p->host.traffic.pod_size = p->k * p->k / 4;
		break;
	case FAB_TOPO_LEAFSPINE:
		p->host.traffic.nb_ranks = p->leaves * p->hosts_per_leaf;
		p->host.per_subnet = p->hosts_per_leaf;
		p->host.traffic.tor_size = p->hosts_per_leaf;
		p->host.traffic.pod_size = p->hosts_per_leaf;
		break;
	default:
		p->host.traffic.nb_ranks = 2;
		p->host.per_subnet = 2;
		p->host.traffic.tor_size = 2;
		p->host.traffic.pod_size = 2;
		break;
	}
	for (i = 0; i < 2; i++) {
		static const char *const sizes[2] = { "tor_size", "pod_size" };
		const char *v = "";

		if (!ofan_cfg_has_key(cfg, "traffic", sizes[i]))
			continue;
		ofan_cfg_get_str(cfg, "traffic", sizes[i], 0, &v);
		return ofan_cfg_fail(cfg, "traffic", sizes[i],
			"'%s' is set by the fabric; expected no %s here (the topology's ToRs and pods)",
			v, sizes[i]);
	}
	p->host.ip_base = (10u << 24) | 1;
	p->host.traffic.seed = p->seed;
	if (hs_config_traffic_from_cfg(cfg, &p->host))
		return -EINVAL;
	if (fab_parse_failures(cfg, p) || fab_parse_drops(cfg, p))
		return -EINVAL;
	if (p->topo == FAB_TOPO_B2B && p->nb_failures > 0)
		return ofan_cfg_fail(cfg, p->failures[0].sec, "link",
			"'%s' is a host-to-host link; expected failures only with topology = fattree or leafspine",
			p->failures[0].link);
	return 0;
}

static void
fab_params_defaults(struct fab_params *p, const char *path)
{
	const char *base = strrchr(path, '/');
	char *dot;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", base ? base + 1 : path);
	dot = strrchr(p->name, '.');
	if (dot != NULL && strcmp(dot, ".ini") == 0)
		*dot = 0;
	p->topo = FAB_TOPO_FATTREE;
	p->k = 4;
	p->leaves = 4;
	p->spines = 4;
	p->hosts_per_leaf = 4;
	p->rate_bps = 100ull * 1000000000ull;
	p->delay_ns = 1000;
	p->seed = 1;
	p->detect_delay_ns = 10000;
	p->reconverge_delay_ns = 100000;
	p->time_limit_ns = 1000000000ull;
	p->queue_window_ns = 10000;
	p->threads = 1;
	p->seeds = 1;
	p->nic_queue = 3;
	sw_queue_config_defaults(&p->queue);
	p->queue.capacity_pkts = 100;
	p->queue.capacity_bytes = 1ull << 30;	/* packets decide */
	lb_settings_defaults(&p->lb);
	lb_levels_defaults(&p->levels);
	hs_config_defaults(&p->host);
}

/*
 * A .cm file: read it now (every mistake is reported before EAL starts,
 * "FILE:LINE: ..."), its Nodes against the fabric's hosts, and its
 * failure lines added to p's failures as links gone from the start.
 */
static int
fab_check_cm(struct ofan_cfg *cfg, struct fab_params *p, char *err,
	     unsigned int err_size)
{
	struct hs_traffic tr;
	struct fab_topo t;
	char msg[512];
	int rc = 0;
	uint32_t i;

	if (p->host.traffic.pattern != HS_PATTERN_CM)
		return 0;
	if (p->host.traffic.iterations != 1)
		return ofan_cfg_fail(cfg, "traffic", "iterations",
			"'%u' with a .cm file, which is replayed once; expected 1",
			p->host.traffic.iterations);
	if (hs_traffic_load_cm(p->host.cm_path, p->host.traffic.nb_ranks, &tr,
			       msg, sizeof(msg)) != 0) {
		snprintf(err, err_size, "%s (the [traffic] cm_file of %s)", msg,
			 ofan_cfg_path(cfg));
		return -EINVAL;
	}
	if (tr.nb_failures > 0 && fab_topo_build(p, p->schemes[0].sw_policy,
						 &t, msg, sizeof(msg)) != 0) {
		hs_traffic_free(&tr);
		return ofan_cfg_fail(cfg, FAB_SEC, "topology", "%s", msg);
	}
	for (i = 0; i < tr.nb_failures && rc == 0; i++) {
		const struct hs_cm_failure *cf = &tr.failures[i];
		struct fab_failure *f;
		uint32_t link;

		if (p->nb_failures == FAB_MAX_FAILURES) {
			snprintf(err, err_size, "%s:%llu: failure beyond the %d a run can have; expected at most %d failures in all",
				 p->host.cm_path,
				 (unsigned long long)cf->line,
				 FAB_MAX_FAILURES, FAB_MAX_FAILURES);
			rc = -EINVAL;
			break;
		}
		link = fab_topo_cm_link(p, &t, cf, msg, sizeof(msg));
		if (link == FAB_NONE) {
			snprintf(err, err_size, "%s:%llu: %s", p->host.cm_path,
				 (unsigned long long)cf->line, msg);
			rc = -EINVAL;
			break;
		}
		f = &p->failures[p->nb_failures++];
		memset(f, 0, sizeof(*f));
		snprintf(f->link, sizeof(f->link), "%s", t.links[link].name);
		f->mode = SW_LINK_DOWN;
		f->at_start = true;
		snprintf(f->sec, sizeof(f->sec), "cm:%llu",
			 (unsigned long long)cf->line);
	}
	if (tr.nb_failures > 0)
		fab_topo_free(&t);
	hs_traffic_free(&tr);
	return rc;
}

/* Check that every failure names a link of the topology. */
static int
fab_check_links(struct ofan_cfg *cfg, const struct fab_params *p)
{
	struct fab_topo t;
	char err[256] = "";
	int rc = 0;
	uint16_t i;

	if (p->nb_failures == 0 && p->nb_drops == 0)
		return 0;
	if (fab_topo_build(p, p->schemes[0].sw_policy, &t, err,
			   sizeof(err)) != 0)
		return ofan_cfg_fail(cfg, FAB_SEC, "topology", "%s", err);
	for (i = 0; i < p->nb_drops && rc == 0; i++) {
		uint32_t d = fab_topo_find_dir(&t, p->drops[i].link);
		uint16_t j;

		if (d == FAB_NONE) {
			rc = ofan_cfg_fail(cfg, p->drops[i].sec, "link",
				"'%s' is not a link of this %s; expected FROM-TO such as %s",
				p->drops[i].link, fab_topology_names[p->topo],
				t.links[0].name);
			break;
		}
		for (j = 0; j < i; j++)
			if (fab_topo_find_dir(&t, p->drops[j].link) == d)
				rc = ofan_cfg_fail(cfg, p->drops[i].sec, "link",
					"'%s' already drops frames in [%s]; expected one [drop.*] per link direction",
					p->drops[i].link, p->drops[j].sec);
	}
	for (i = 0; i < p->nb_failures && rc == 0; i++) {
		const struct fab_failure *f = &p->failures[i];
		uint32_t link = fab_topo_find_link(&t, f->link);
		uint16_t j;

		if (link == FAB_NONE) {
			rc = ofan_cfg_fail(cfg, f->sec, "link",
				"'%s' is not a link of this %s; expected NODE-NODE such as %s",
				f->link, fab_topology_names[p->topo],
				t.links[t.nb_links - 1].name);
			break;
		}
		/* A faster link would shorten the threads' lookahead. */
		if (f->mode == SW_LINK_DEGRADED &&
		    f->rate_bps >= t.links[link].rate_bps) {
			rc = ofan_cfg_fail(cfg, f->sec, "rate",
				"'%llu' bit/s is not below the link's %llu bit/s; expected a degraded (lower) rate",
				(unsigned long long)f->rate_bps,
				(unsigned long long)t.links[link].rate_bps);
			break;
		}
		for (j = 0; j < i; j++)
			if (fab_topo_find_link(&t, p->failures[j].link) == link)
				rc = ofan_cfg_fail(cfg, f->sec, "link",
					"'%s' already fails in [%s]; expected one failure per link",
					f->link, p->failures[j].sec);
	}
	fab_topo_free(&t);
	return rc;
}

/*
 * Load one combination: the file, the overrides, the sweep values of
 * combination c (value index per dimension), then parse and check.
 */
static int
fab_load_combo(const char *path, char *const *ov, int nb_ov, bool seed_set,
	       uint64_t seed, const int *vidx, struct fab_params *p,
	       struct fab_sweep *sweeps, int *nb_sweeps, char *err,
	       unsigned int err_size)
{
	struct ofan_cfg *cfg = ofan_cfg_load(path, err, err_size);
	char buf[64];
	int i, rc = 0;

	if (cfg == NULL)
		return -EINVAL;
	fab_params_defaults(p, path);
	for (i = 0; i < nb_ov && rc == 0; i++)
		rc = fab_apply_override(cfg, ov[i], err, err_size);
	if (rc == 0 && seed_set) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)seed);
		rc = ofan_cfg_set(cfg, FAB_SEC, "seed", buf);
	}
	if (rc != 0)
		goto out;
	if (fab_parse_sweeps(cfg, sweeps, nb_sweeps) != 0) {
		rc = -EINVAL;
		goto fail;
	}
	for (i = 0; vidx != NULL && i < *nb_sweeps && rc == 0; i++) {
		rc = fab_apply_sweep(cfg, &sweeps[i], vidx[i], err, err_size);
		snprintf(p->sweep_name[i], sizeof(p->sweep_name[i]), "%s",
			 sweeps[i].name);
		snprintf(p->sweep_value[i], sizeof(p->sweep_value[i]), "%s",
			 sweeps[i].values[vidx[i]]);
	}
	if (rc != 0)
		goto out;
	p->nb_sweep = (uint16_t)*nb_sweeps;
	if (fab_parse(cfg, p) != 0 || fab_check_links(cfg, p) != 0 ||
	    ofan_cfg_check_unknown(cfg) != 0) {
		rc = -EINVAL;
		goto fail;
	}
	/* A cm error is its own file's, FILE:LINE (err is set). */
	err[0] = '\0';
	if (fab_check_cm(cfg, p, err, err_size) != 0) {
		rc = -EINVAL;
		if (err[0] == '\0')
			goto fail;
	}
	goto out;
fail:
	snprintf(err, err_size, "%s", ofan_cfg_error(cfg));
out:
	ofan_cfg_free(cfg);
	return rc;
}

void
fab_params_for_seed(const struct fab_params *p, uint32_t i,
		    struct fab_params *out)
{
	*out = *p;
	out->seed = p->seed + i;
	if (!p->host_seed_set)
		out->host.seed = out->seed;
	if (!p->traffic_seed_set)
		out->host.traffic.seed = out->seed;
	out->host.traffic.cm_path = NULL;	/* fab_sim_build() sets it */
}

int
fab_experiment_load_seeds(const char *path, char *const *overrides,
			  int nb_overrides, bool seed_set, uint64_t seed,
			  uint32_t seeds, struct fab_experiment *x, char *err,
			  unsigned int err_size)
{
	uint32_t c;
	int rc = fab_experiment_load(path, overrides, nb_overrides, seed_set,
				     seed, x, err, err_size);

	if (rc != 0 || seeds == 0)
		return rc;
	for (c = 0; c < x->nb_combos; c++)
		x->combos[c].seeds = seeds;
	return 0;
}

int
fab_experiment_load(const char *path, char *const *overrides,
		    int nb_overrides, bool seed_set, uint64_t seed,
		    struct fab_experiment *x, char *err, unsigned int err_size)
{
	struct fab_sweep sweeps[FAB_MAX_SWEEP_DIMS];
	int vidx[FAB_MAX_SWEEP_DIMS] = { 0 };
	struct fab_params *first;
	int nb_sweeps = 0, d, rc;
	uint32_t c, n = 1;

	memset(x, 0, sizeof(*x));
	x->path = path;
	first = calloc(1, sizeof(*first));
	if (first == NULL)
		return -ENOMEM;
	/* A first pass finds the sweeps (and checks the file as written). */
	rc = fab_load_combo(path, overrides, nb_overrides, seed_set, seed,
			    NULL, first, sweeps, &nb_sweeps, err, err_size);
	free(first);
	if (rc != 0)
		return rc;
	for (d = 0; d < nb_sweeps; d++)
		n *= sweeps[d].nb_values;
	x->combos = calloc(n, sizeof(*x->combos));
	if (x->combos == NULL)
		return -ENOMEM;
	x->nb_combos = n;
	for (c = 0; c < n; c++) {
		uint32_t rest = c;

		/* The first dimension outermost. */
		for (d = nb_sweeps - 1; d >= 0; d--) {
			vidx[d] = (int)(rest % sweeps[d].nb_values);
			rest /= sweeps[d].nb_values;
		}
		rc = fab_load_combo(path, overrides, nb_overrides, seed_set,
				    seed, vidx, &x->combos[c], sweeps,
				    &nb_sweeps, err, err_size);
		if (rc != 0) {
			for (d = 0; d < nb_sweeps; d++) {
				char where[160];

				snprintf(where, sizeof(where), "%s%s = %s%s",
					 d == 0 ? " (sweep " : ", ",
					 sweeps[d].name,
					 sweeps[d].values[vidx[d]],
					 d == nb_sweeps - 1 ? ")" : "");
				if (strlen(err) + strlen(where) < err_size)
					strcat(err, where);
			}
			fab_experiment_free(x);
			return rc;
		}
		x->combos[c].host.traffic.cm_path = NULL;
	}
	return 0;
}

void
fab_experiment_free(struct fab_experiment *x)
{
	free(x->combos);
	x->combos = NULL;
	x->nb_combos = 0;
}
