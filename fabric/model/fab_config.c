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
 * This file parses those sections (fab_parse); fab_experiment.c applies
 * overrides and sweeps and loads the combinations.  Sweeps are applied as
 * overrides on the raw file, so a swept key is
 * checked exactly like a written one, and every combination is loaded and
 * validated (topology and failure links included) before a run starts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fab_model.h"
#include "fab_config_priv.h"
#include "hlb.h"
#include "hlb_drb.h"
#include "hs_traffic.h"
#include "lb.h"
#include "lb_sr.h"
#include "ofan_config.h"
#include "ofan_frame.h"
#include "ofan_wire.h"

const char *const fab_topology_names[] = {
	"fattree", "leafspine", "b2b", NULL
};

const char *const fab_placement_names[] = { "linear", "random", NULL };

const char *const fab_traffic_seed_names[] = { "per_seed", "fixed", NULL };

/* Trim blanks at both ends in place; returns s. */
char *
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

/* Split s at commas into up to max trimmed parts; returns the count. */
int
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
 * Source routing (sr switches, drb hosts) reads the fabric's paths from
 * the EV: radix members per tier and the tiers that choose, from the
 * topology unless [sr] radix / [host.drb] radix are set (a fat tree k/2
 * over two tiers, a leaf-spine its spines over one); sr's EV base is the
 * hosts' ev_min unless [sr] ev_base is 
 */
static void
fab_source_routes(struct fab_params *p)
{
	struct lb_sr_settings *sr =
		(struct lb_sr_settings *)lb_settings_of(&p->lb, lb_find("sr"));
	struct hlb_drb_settings *drb = (struct hlb_drb_settings *)
		hlb_settings_of(&p->host.set.hlb_set, hlb_find("drb"));
	uint32_t radix = p->topo == FAB_TOPO_FATTREE ? p->k / 2 :
		p->topo == FAB_TOPO_LEAFSPINE ? p->spines : 2;
	uint32_t tiers = p->topo == FAB_TOPO_FATTREE ? 2 : 1;

	if (sr != NULL && sr->radix == 0)
		sr->radix = radix;
	if (sr != NULL && !sr->ev_base_set)
		sr->ev_base = p->host.set.hlb.ev_min;
	if (drb != NULL && drb->radix == 0) {
		drb->radix = radix;
		drb->tiers = tiers;
	}
}

/*
 * A scheme: "ecmp" (ECMP with fixed EVs), "ops" / "reps" / "plb" / "mp"
 * (host spraying through ECMP), "drb" (through the switch policy it
 * names, sr), a switch policy alone ("spray" is spray+fixed), or
 * "switch+host" for anything else.
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
		snprintf(sw, sizeof(sw), "%s",
			 hlb_find(sw)->switch_policy != NULL ?
			 hlb_find(sw)->switch_policy : "ecmp");
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
		"'%s' is not a scheme; expected ecmp, a host policy (ops, reps, plb, mp, flowlet, drb), a switch policy (spray, rr, adaptive, flowlet, ofan, ecmp_ar, rr_ecmp, fib_llss, sr) or SWITCH+HOST such as spray+ops",
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
	/* Each key's own errors first, then the rules between them. */
	p->uplink_rate_bps = p->rate_bps;
	if (ofan_cfg_get_rate(cfg, FAB_SEC, "uplink_rate", 0, 1000000,
			      10000ull * 1000000000ull, &p->uplink_rate_bps))
		return -EINVAL;
	if (p->topo == FAB_TOPO_FATTREE && p->k % 2 != 0) {
		if (ofan_cfg_blame2(cfg, FAB_SEC, "k", "topology") == 1)
			return ofan_cfg_fail(cfg, FAB_SEC, "topology",
				"'%s' with an odd k (%u); expected an even k from 2 to %d for a fat tree, or another topology",
				ofan_cfg_value(cfg, FAB_SEC, "topology"), p->k,
				FAB_MAX_K);
		return ofan_cfg_fail(cfg, FAB_SEC, "k",
			"'%u' is odd; expected an even k from 2 to %d", p->k,
			FAB_MAX_K);
	}
	if (p->topo == FAB_TOPO_LEAFSPINE &&
	    p->hosts_per_leaf + p->spines > SW_MAX_PORTS) {
		const struct ofan_cfg_key keys[] = {
			{ FAB_SEC, "spines" }, { FAB_SEC, "hosts_per_leaf" },
			{ FAB_SEC, "topology" },
		};
		int b = ofan_cfg_blame(cfg, keys, 3);

		if (b == 1)
			return ofan_cfg_fail(cfg, FAB_SEC, "hosts_per_leaf",
				"'%u' hosts per leaf and %u spines need %u leaf ports; expected at most %d",
				p->hosts_per_leaf, p->spines,
				p->spines + p->hosts_per_leaf, SW_MAX_PORTS);
		if (b == 2)
			return ofan_cfg_fail(cfg, FAB_SEC, "topology",
				"'%s' with %u spines and %u hosts per leaf needs %u leaf ports; expected at most %d",
				ofan_cfg_value(cfg, FAB_SEC, "topology"),
				p->spines, p->hosts_per_leaf,
				p->spines + p->hosts_per_leaf, SW_MAX_PORTS);
		return ofan_cfg_fail(cfg, FAB_SEC, "spines",
			"'%u' spines and %u hosts per leaf need %u leaf ports; expected at most %d",
			p->spines, p->hosts_per_leaf,
			p->spines + p->hosts_per_leaf, SW_MAX_PORTS);
	}
	over_set = ofan_cfg_has_key(cfg, FAB_SEC, "oversubscription");
	if (over_set && ofan_cfg_has_key(cfg, FAB_SEC, "uplink_rate")) {
		if (ofan_cfg_blame2(cfg, FAB_SEC, "uplink_rate",
				    "oversubscription") == 1)
			return ofan_cfg_fail(cfg, FAB_SEC, "oversubscription",
				"is set together with uplink_rate; expected one of them");
		return ofan_cfg_fail(cfg, FAB_SEC, "uplink_rate",
			"is set together with oversubscription; expected one of them");
	}
	if (over_set && p->topo == FAB_TOPO_LEAFSPINE)
		/* Host capacity of a leaf over its uplink capacity. */
		p->uplink_rate_bps = (uint64_t)((double)p->rate_bps *
			p->hosts_per_leaf / (p->spines * over) + 0.5);
	else if (over_set && p->topo == FAB_TOPO_FATTREE)
		p->uplink_rate_bps = (uint64_t)((double)p->rate_bps / over +
						0.5);
	return 0;
}

/*
 * A [failure.*] or [drop.*] section's link, or its links separated by
 * blanks, of which [sec] first_links (0: all) are taken: one entry per
 * link, each a copy of tmpl (entry_size bytes, its link name at the
 * offset of name0 in entries[0]) appended to entries (*nb of max taken).
 */
static int
fab_link_list(struct ofan_cfg *cfg, const char *sec, const char *list,
	      const char *example, char *name0, size_t name_size,
	      size_t entry_size, void *entries, unsigned int *nb,
	      unsigned int max, const void *tmpl)
{
	const size_t off = (size_t)(name0 - (char *)entries);
	const char *w = list;
	unsigned int before = *nb, listed = 0;
	uint32_t first = 0;
	size_t len;

	if (ofan_cfg_get_u32(cfg, sec, "first_links", 0, 0, 1024, &first))
		return -EINVAL;
	for (;;) {
		char *e;

		w += strspn(w, " \t");
		if (*w == '\0')
			break;
		listed++;
		if (first != 0 && *nb - before == first) {
			w += strcspn(w, " \t");
			continue;	/* listed, not taken */
		}
		len = strcspn(w, " \t");
		if (len >= name_size)
			return ofan_cfg_fail(cfg, sec, "link",
				"'%.*s' is too long; expected a link name such as %s",
				(int)len, w, example);
		if (*nb >= max)
			return ofan_cfg_fail(cfg, sec, "link",
				"'%s' makes more than %u; expected at most %u links in all such sections",
				list, max, max);
		e = (char *)entries + (size_t)*nb * entry_size;
		memcpy(e, tmpl, entry_size);
		memcpy(e + off, w, len);
		e[off + len] = '\0';
		(*nb)++;
		w += len;
	}
	if (*nb == before)
		return ofan_cfg_fail(cfg, sec, "link",
			"'%s' names no link; expected one or more such as %s",
			list, example);
	if (first > listed && ofan_cfg_blame2(cfg, sec, "first_links",
					      "link") == 1)
		return ofan_cfg_fail(cfg, sec, "link",
			"'%s' lists %u link(s), fewer than first_links = %u; expected at least %u",
			list, listed, first, first);
	if (first > listed)
		return ofan_cfg_fail(cfg, sec, "first_links",
			"'%u' is more than the %u link(s) listed; expected 0 (all) to %u",
			first, listed, listed);
	return 0;
}

static int
fab_parse_failures(struct ofan_cfg *cfg, struct fab_params *p)
{
	const char *const *modes = sw_link_state_names;
	const char *secs[FAB_MAX_FAILURES + 1];
	unsigned int nb = 0;
	int n, i;

	n = ofan_cfg_sections(cfg, "failure.", secs, FAB_MAX_FAILURES + 1);
	if (n > FAB_MAX_FAILURES)
		return ofan_cfg_fail(cfg, secs[FAB_MAX_FAILURES], "link",
			"too many failures; expected at most %d",
			FAB_MAX_FAILURES);
	for (i = 0; i < n; i++) {
		struct fab_failure tmpl = { 0 }, *f = &tmpl;
		const char *link = NULL;
		int mode = SW_LINK_BLACKHOLE;
		bool enabled = true;
		double scale = 1.0;

		f->reroute = true;
		if (ofan_cfg_get_str(cfg, secs[i], "link", OFAN_CFG_REQUIRED,
				     &link) ||
		    ofan_cfg_get_bool(cfg, secs[i], "enabled", 0, &enabled) ||
		    ofan_cfg_get_bool(cfg, secs[i], "reroute", 0,
				      &f->reroute) ||
		    ofan_cfg_get_enum(cfg, secs[i], "mode", 0, modes, &mode) ||
		    ofan_cfg_get_time(cfg, secs[i], "at", OFAN_CFG_REQUIRED, 0,
				      3600ull * 1000000000ull, &f->at_ns) ||
		    ofan_cfg_get_time(cfg, secs[i], "duration", 0, 0,
				      3600ull * 1000000000ull,
				      &f->duration_ns) ||
		    ofan_cfg_get_rate(cfg, secs[i], "rate", 0, 0,
				      10000ull * 1000000000ull, &f->rate_bps) ||
		    ofan_cfg_get_bool(cfg, secs[i], "one_way", 0,
				      &f->one_way) ||
		    ofan_cfg_get_time(cfg, secs[i], "route_back", 0, 0,
				      3600ull * 1000000000ull,
				      &f->route_back_ns) ||
		    ofan_cfg_get_double(cfg, secs[i], "queue_scale", 0, 0.001,
					1.0, &scale))
			return -EINVAL;
		f->queue_permille = (uint16_t)(scale * 1000.0 + 0.5);
		if (scale != 1.0 && mode != SW_LINK_DEGRADED)
			return ofan_cfg_fail(cfg, secs[i], "queue_scale",
				"'%s' is for mode = degraded (its queue shrinks with its rate); expected 1 or no queue_scale with mode = %s",
				ofan_cfg_value(cfg, secs[i], "queue_scale"),
				modes[mode]);
		if (mode == SW_LINK_UP)
			return ofan_cfg_fail(cfg, secs[i], "mode",
				"'up' is not a failure; expected down, blackhole, degraded or stall");
		if (f->one_way && mode == SW_LINK_DOWN) {
			if (ofan_cfg_blame2(cfg, secs[i], "one_way",
					    "mode") == 1)
				return ofan_cfg_fail(cfg, secs[i], "mode",
					"'%s' with one_way = yes; expected one of the wire's modes (blackhole, degraded, stall) for one way, or one_way = no (both switch ends see a link go down)",
					ofan_cfg_value(cfg, secs[i], "mode"));
			return ofan_cfg_fail(cfg, secs[i], "one_way",
				"is for the wire's modes; expected no with mode = down (both switch ends see a link go down)");
		}
		if (f->route_back_ns != 0 && f->duration_ns == 0) {
			if (ofan_cfg_blame2(cfg, secs[i], "route_back",
					    "duration") == 1)
				return ofan_cfg_fail(cfg, secs[i], "duration",
					"'%s' keeps the link failed, so route_back has nothing to take back; expected a duration, or no route_back",
					ofan_cfg_value(cfg, secs[i], "duration"));
			return ofan_cfg_fail(cfg, secs[i], "route_back",
				"needs the link to return; expected a duration too");
		}
		if (mode == SW_LINK_DEGRADED && f->rate_bps == 0 &&
		    ofan_cfg_overridden(cfg, secs[i], "mode") &&
		    !ofan_cfg_has_key(cfg, secs[i], "rate"))
			return ofan_cfg_fail(cfg, secs[i], "mode",
				"'%s' without a rate; expected rate = the degraded rate (e.g. 25G) too",
				ofan_cfg_value(cfg, secs[i], "mode"));
		if (mode == SW_LINK_DEGRADED && f->rate_bps == 0 &&
		    ofan_cfg_has_key(cfg, secs[i], "rate"))
			return ofan_cfg_fail(cfg, secs[i], "rate",
				"'%s' is no rate; expected the degraded rate (e.g. 25G) for mode = degraded",
				ofan_cfg_value(cfg, secs[i], "rate"));
		if (mode == SW_LINK_DEGRADED && f->rate_bps == 0)
			return ofan_cfg_fail(cfg, secs[i], "rate",
				"missing; expected the degraded rate (e.g. 25G) for mode = degraded");
		/* Checked, but nothing fails: a sweep's point without it. */
		if (!enabled)
			continue;
		snprintf(f->sec, sizeof(f->sec), "%s", secs[i]);
		f->mode = (uint8_t)mode;
		/* One failure per link of the list, all alike. */
		if (fab_link_list(cfg, secs[i], link, "agg3-core5",
				  p->failures[0].link, sizeof(p->failures[0].link),
				  sizeof(p->failures[0]), p->failures, &nb,
				  FAB_MAX_FAILURES, f))
			return -EINVAL;
	}
	p->nb_failures = (uint16_t)nb;
	return 0;
}

const char *const fab_drop_mode_names[] = { "frames", "random", "bursts", NULL };

/*
 * A [drop.*] section's keys are its mode's: a key of another mode names
 * the mode it belongs to.
 */
static int
fab_drop_keys_of_mode(struct ofan_cfg *cfg, const char *sec, int mode)
{
	static const struct {
		const char *key;
		int mode;
	} keys[] = {
		{ "frame", FAB_DROP_FRAMES }, { "count", FAB_DROP_FRAMES },
		{ "rate", FAB_DROP_RANDOM },
		{ "every", FAB_DROP_BURSTS }, { "length", FAB_DROP_BURSTS },
		{ "first", FAB_DROP_BURSTS },
		{ "length_fixed", FAB_DROP_BURSTS },
	};
	unsigned int i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (keys[i].mode == mode ||
		    !ofan_cfg_has_key(cfg, sec, keys[i].key))
			continue;
		if (ofan_cfg_blame2(cfg, sec, keys[i].key, "mode") == 1)
			return ofan_cfg_fail(cfg, sec, "mode",
				"'%s' with %s set, a key of mode = %s; expected mode = %s, or no %s",
				ofan_cfg_value(cfg, sec, "mode"), keys[i].key,
				fab_drop_mode_names[keys[i].mode],
				fab_drop_mode_names[keys[i].mode], keys[i].key);
		return ofan_cfg_fail(cfg, sec, keys[i].key,
			"is a key of mode = %s, not of mode = %s",
			fab_drop_mode_names[keys[i].mode],
			fab_drop_mode_names[mode]);
	}
	return 0;
}

static int
fab_parse_drops(struct ofan_cfg *cfg, struct fab_params *p)
{
	const char *secs[FAB_MAX_DROPS + 1];
	unsigned int nb = 0;
	int n, i;

	n = ofan_cfg_sections(cfg, "drop.", secs, FAB_MAX_DROPS + 1);
	if (n > FAB_MAX_DROPS)
		return ofan_cfg_fail(cfg, secs[FAB_MAX_DROPS], "link",
			"too many [drop.*] sections; expected at most %d",
			FAB_MAX_DROPS);
	for (i = 0; i < n; i++) {
		struct fab_drop tmpl = { 0 }, *d = &tmpl;
		const char *link = NULL;
		int mode = FAB_DROP_FRAMES;

		d->count = 1;
		ofan_loss_defaults(&d->loss);
		if (ofan_cfg_get_str(cfg, secs[i], "link", OFAN_CFG_REQUIRED,
				     &link) ||
		    ofan_cfg_get_enum(cfg, secs[i], "mode", 0,
				      fab_drop_mode_names, &mode))
			return -EINVAL;
		d->mode = (uint8_t)mode;
		d->loss.mode = (uint8_t)mode;
		if (mode == FAB_DROP_FRAMES &&
		    !ofan_cfg_has_key(cfg, secs[i], "frame") &&
		    ofan_cfg_overridden(cfg, secs[i], "mode"))
			return ofan_cfg_fail(cfg, secs[i], "mode",
				"'%s' without a frame; expected frame = the first frame to drop too, or another mode",
				ofan_cfg_value(cfg, secs[i], "mode"));
		if (fab_drop_keys_of_mode(cfg, secs[i], mode) ||
		    ofan_cfg_get_u64(cfg, secs[i], "frame",
				     mode == FAB_DROP_FRAMES ?
				     OFAN_CFG_REQUIRED : 0,
				     1, UINT64_MAX / 2, &d->frame) ||
		    ofan_cfg_get_u32(cfg, secs[i], "count", 0, 1, 1u << 30,
				     &d->count) ||
		    (mode != FAB_DROP_FRAMES &&
		     ofan_loss_parse(cfg, secs[i], &d->loss)))
			return -EINVAL;
		snprintf(d->sec, sizeof(d->sec), "%s", secs[i]);
		/* One lossy direction per link of the list, all alike. */
		if (fab_link_list(cfg, secs[i], link, "h0-leaf0",
				  p->drops[0].link, sizeof(p->drops[0].link),
				  sizeof(p->drops[0]), p->drops, &nb,
				  FAB_MAX_DROPS, d))
			return -EINVAL;
	}
	p->nb_drops = (uint16_t)nb;
	return 0;
}

/*
 * [fabric] data_wire_bytes, ack_wire_bytes and header_wire_bytes: the
 * frame model every queue and link of the fabric uses (mtu is the IPv4
 * size of a full data frame).
 */
/*
 * What a fabric's queue cannot be: off, shaped (links have rates), too
 * small for one full data frame (full bytes; it would drop every one), or
 * marking above what it can hold (it would never mark).
 */
static int
fab_queue_fabric_ok(struct ofan_cfg *cfg, const char *sec,
		    const struct sw_queue_config *q, uint32_t full)
{
	uint32_t frame = ofan_frame_queue_bytes(&q->frame, OFAN_KIND_DATA,
						full);

	if (!q->enabled)
		return ofan_cfg_fail(cfg, sec, "queue",
			"'no' has no meaning in a fabric; expected yes (links drain the queues at their rate)");
	if (q->rate_bps != 0)
		return ofan_cfg_fail(cfg, sec, "rate",
			"'%llu' bit/s is a shaping rate; expected no rate here (set link rates with [fabric] rate / uplink_rate)",
			(unsigned long long)q->rate_bps);
	if (q->pfc && q->pfc_mode == SW_PFC_NIC)
		return ofan_cfg_fail(cfg, sec, "pfc_mode",
			"'nic' in a fabric of emulated links; expected auto or software");
	if (q->capacity_bytes < frame) {
		const struct ofan_cfg_key keys[] = {
			{ sec, "queue_bytes" }, { FAB_SEC, "mtu" },
			{ FAB_SEC, "data_wire_bytes" },
		};
		int b = ofan_cfg_blame(cfg, keys, 3);

		if (b > 0)
			return ofan_cfg_fail(cfg, FAB_SEC, keys[b].key,
				"'%s' makes a full data frame count as %u bytes in a queue, more than [%s] queue_bytes (%llu) holds; expected a frame that fits, or a larger queue_bytes",
				ofan_cfg_value(cfg, FAB_SEC, keys[b].key),
				frame, sec,
				(unsigned long long)q->capacity_bytes);
		return ofan_cfg_fail(cfg, sec, "queue_bytes",
			"'%llu' bytes holds no full data frame, which the queue counts as %u bytes; expected at least %u",
			(unsigned long long)q->capacity_bytes, frame, frame);
	}
	if (q->ecn && q->ecn_kmin_bytes >= q->capacity_bytes) {
		const struct ofan_cfg_key keys[] = {
			{ sec, "ecn_kmin" }, { sec, "queue_bytes" },
			{ sec, "ecn" },
		};
		int b = ofan_cfg_blame(cfg, keys, 3);

		if (b == 1)
			return ofan_cfg_fail(cfg, sec, "queue_bytes",
				"'%llu' bytes is not above ecn_kmin (%llu), so nothing would be marked; expected more than %llu, or ecn = no",
				(unsigned long long)q->capacity_bytes,
				(unsigned long long)q->ecn_kmin_bytes,
				(unsigned long long)q->ecn_kmin_bytes);
		if (b == 2)
			return ofan_cfg_fail(cfg, sec, "ecn",
				"'%s' marks nothing: ecn_kmin (%llu bytes) is not below queue_bytes (%llu); expected ecn = no, or ecn_kmin below queue_bytes",
				ofan_cfg_value(cfg, sec, "ecn"),
				(unsigned long long)q->ecn_kmin_bytes,
				(unsigned long long)q->capacity_bytes);
		return ofan_cfg_fail(cfg, sec, "ecn_kmin",
			"'%llu' bytes is not below queue_bytes (%llu), so nothing would be marked; expected less than %llu, or ecn = no",
			(unsigned long long)q->ecn_kmin_bytes,
			(unsigned long long)q->capacity_bytes,
			(unsigned long long)q->capacity_bytes);
	}
	return 0;
}

/*
 * [queue.LAYER] sections (LAYER: tor_up, agg_up, core_down, agg_down,
 * tor_down in a fat tree; leaf_up, spine_down, leaf_down in a
 * leaf-spine): queue keys for the egress ports of one layer on top of
 * [queue] -- trimming only at the last hop, deeper queues elsewhere (the
 * study's -trimces, -trimced, -trimcomp).  A layer the topology does not
 * have is an unknown section.
 */
static int
fab_parse_queue_layers(struct ofan_cfg *cfg, struct fab_params *p,
		       uint32_t full)
{
	char sec[32];
	int l;

	p->queue_layer_set = 0;
	for (l = 0; l < FAB_L_NB; l++) {
		const char *name = fab_layer_name(p->topo, (enum fab_layer)l);

		p->queue_layer[l] = p->queue;
		if (name == NULL || l == FAB_L_HOST)
			continue;
		snprintf(sec, sizeof(sec), "queue.%s", name);
		if (!ofan_cfg_has_section(cfg, sec))
			continue;
		if (sw_config_queue_from_cfg(cfg, sec, &p->queue_layer[l]) ||
		    fab_queue_fabric_ok(cfg, sec, &p->queue_layer[l], full))
			return -EINVAL;
		p->queue_layer_set |= (uint8_t)(1u << l);
	}
	return 0;
}

static int
fab_parse_frame_model(struct ofan_cfg *cfg, struct fab_params *p,
		      uint32_t mtu)
{
	uint32_t full = OFAN_ETH_HDR_SIZE + mtu;

	if (ofan_frame_model_sizes(&p->queue.frame, full, p->data_wire_bytes,
				   OFAN_ACK_FRAME_SIZE, p->ack_wire_bytes,
				   p->header_wire_bytes) == 0)
		return 0;
	if (ofan_cfg_blame2(cfg, FAB_SEC, "data_wire_bytes", "mtu") == 1)
		return ofan_cfg_fail(cfg, FAB_SEC, "mtu",
			"'%u' is too large for data_wire_bytes = %u (a 60-byte data frame would cost less than a byte); expected at most %u, or data_wire_bytes = 0",
			mtu, p->data_wire_bytes,
			p->data_wire_bytes + 59u - OFAN_ETH_HDR_SIZE);
	return ofan_cfg_fail(cfg, FAB_SEC, "data_wire_bytes",
			"'%u' leaves a %u-byte data frame less than a byte; expected 0 (Ethernet) or at least %u with mtu %u",
			p->data_wire_bytes, 60u, full - 59u, mtu);
}

/*
 * What the hosts' rank count, ToR or pod size comes from: up to two
 * [fabric] keys (NULL: none) and the topology.
 */
static void
fab_from(struct hs_cfg_from *f, const char *a, const char *b)
{
	f->nb = 0;
	if (a != NULL)
		f->keys[f->nb++] = (struct ofan_cfg_key){ FAB_SEC, a };
	if (b != NULL)
		f->keys[f->nb++] = (struct ofan_cfg_key){ FAB_SEC, b };
	f->keys[f->nb++] = (struct ofan_cfg_key){ FAB_SEC, "topology" };
}

/*
 * [fabric]'s own keys, the schemes' included: the topology, links, seeds,
 * limits and the frame model's sizes.  mtu and threads are checked later
 * against other keys.
 */
static int
fab_parse_fabric(struct ofan_cfg *cfg, struct fab_params *p, uint32_t *mtu,
		 uint32_t *threads)
{
	const char *name = NULL;
	int tseed = p->traffic_seed;

	if (ofan_cfg_get_str(cfg, FAB_SEC, "name", 0, &name) ||
	    fab_parse_topology(cfg, p) ||
	    ofan_cfg_get_time(cfg, FAB_SEC, "delay", 0, 0,
			      1000000000ull, &p->delay_ns) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "mtu", 0, 256, 9000, mtu) ||
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
			     threads) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "seeds", 0, 1, FAB_MAX_SEEDS,
			     &p->seeds) ||
	    ofan_cfg_get_enum(cfg, FAB_SEC, "traffic_seed", 0,
			      fab_traffic_seed_names, &tseed) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "nic_queue", 0, 0, 1u << 20,
			     &p->nic_queue) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "mbufs", 0, 0, 1u << 24,
			     &p->mbufs) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "data_wire_bytes", 0, 0, 65535,
			     &p->data_wire_bytes) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "ack_wire_bytes", 0, 0, 65535,
			     &p->ack_wire_bytes) ||
	    ofan_cfg_get_u32(cfg, FAB_SEC, "header_wire_bytes", 0, 0, 65535,
			     &p->header_wire_bytes) ||
	    fab_parse_schemes(cfg, p))
		return -EINVAL;
	if (name != NULL)
		snprintf(p->name, sizeof(p->name), "%s", name);
	p->traffic_seed = (enum fab_traffic_seed)tseed;
	p->matrix_seed = p->seed;
	return 0;
}

/* At most FAB_MAX_WINDOWS queue windows in the time limit. */
static int
fab_check_windows(struct ofan_cfg *cfg, const struct fab_params *p)
{
	if (p->time_limit_ns / p->queue_window_ns > FAB_MAX_WINDOWS &&
	    ofan_cfg_blame2(cfg, FAB_SEC, "queue_window", "time_limit") == 1)
		return ofan_cfg_fail(cfg, FAB_SEC, "time_limit",
			"'%s' makes %llu windows of queue_window (%llu ns); expected at most %u (a shorter time_limit or a longer window)",
			ofan_cfg_value(cfg, FAB_SEC, "time_limit"),
			(unsigned long long)(p->time_limit_ns /
					     p->queue_window_ns),
			(unsigned long long)p->queue_window_ns,
			FAB_MAX_WINDOWS);
	if (p->time_limit_ns / p->queue_window_ns > FAB_MAX_WINDOWS)
		return ofan_cfg_fail(cfg, FAB_SEC, "queue_window",
			"'%llu' ns makes %llu windows in time_limit; expected at most %u (a longer window)",
			(unsigned long long)p->queue_window_ns,
			(unsigned long long)(p->time_limit_ns /
					     p->queue_window_ns),
			FAB_MAX_WINDOWS);
	return 0;
}

/* Threads own whole pods (fat tree) or leaves (leaf-spine). */
static int
fab_check_threads(struct ofan_cfg *cfg, const struct fab_params *p,
		  uint32_t threads)
{
	uint32_t parts = p->topo == FAB_TOPO_FATTREE ? p->k :
		p->topo == FAB_TOPO_LEAFSPINE ?
		(p->leaves < p->spines ? p->leaves : p->spines) : 1u;

	if (threads > parts) {
		/* The key that sets the parts: k, or the fewer of leaves
		 * and spines. */
		const struct ofan_cfg_key keys[] = {
			{ FAB_SEC, "threads" }, { FAB_SEC, "topology" },
			{ FAB_SEC, p->topo == FAB_TOPO_FATTREE ? "k" :
				   p->leaves < p->spines ? "leaves" : "spines" },
		};
		int b = ofan_cfg_blame(cfg, keys,
				       p->topo == FAB_TOPO_B2B ? 2 : 3);

		if (b > 0)
			return ofan_cfg_fail(cfg, FAB_SEC, keys[b].key,
				"'%s' makes a %s that cuts into %u parts, fewer than threads = %u; expected at least as many parts (a fat tree's pods, the fewer of a leaf-spine's leaves and spines) as threads, or fewer threads",
				ofan_cfg_value(cfg, FAB_SEC, keys[b].key),
				fab_topology_names[p->topo], parts, threads);
		return ofan_cfg_fail(cfg, FAB_SEC, "threads",
			"'%u' is more than this %s can be cut into; expected at most %u",
			threads, fab_topology_names[p->topo], parts);
	}
	return 0;
}

/* Switch side: the switch's own [queue] and policy sections. */
static int
fab_parse_switch_side(struct ofan_cfg *cfg, struct fab_params *p,
		      uint32_t mtu)
{
	if (sw_config_queue_from_cfg(cfg, "queue", &p->queue) ||
	    fab_parse_frame_model(cfg, p, mtu) ||
	    lb_levels_from_cfg(cfg, "queue", &p->levels) ||
	    lb_settings_from_cfg(cfg, &p->lb))
		return -EINVAL;
	if (fab_queue_fabric_ok(cfg, "queue", &p->queue,
				OFAN_ETH_HDR_SIZE + mtu) ||
	    fab_parse_queue_layers(cfg, p, OFAN_ETH_HDR_SIZE + mtu))
		return -EINVAL;
	return 0;
}

/*
 * The hosts' ranks, subnets, ToRs and pods are the topology's, and so are
 * the keys they come from.
 */
static void
fab_host_topology(struct fab_params *p)
{
	switch (p->topo) {
	case FAB_TOPO_FATTREE:
		p->host.traffic.nb_ranks = p->k * p->k * p->k / 4;
		p->host.set.per_subnet = p->k / 2;
		p->host.traffic.tor_size = p->k / 2;
		p->host.traffic.pod_size = p->k * p->k / 4;
		fab_from(&p->host.ranks_from, "k", NULL);
		fab_from(&p->host.tor_from, "k", NULL);
		break;
	case FAB_TOPO_LEAFSPINE:
		p->host.traffic.nb_ranks = p->leaves * p->hosts_per_leaf;
		p->host.set.per_subnet = p->hosts_per_leaf;
		p->host.traffic.tor_size = p->hosts_per_leaf;
		p->host.traffic.pod_size = p->hosts_per_leaf;
		fab_from(&p->host.ranks_from, "leaves", "hosts_per_leaf");
		fab_from(&p->host.tor_from, "hosts_per_leaf", NULL);
		break;
	default:
		p->host.traffic.nb_ranks = 2;
		p->host.set.per_subnet = 2;
		p->host.traffic.tor_size = 2;
		p->host.traffic.pod_size = 2;
		fab_from(&p->host.ranks_from, NULL, NULL);
		fab_from(&p->host.tor_from, NULL, NULL);
		break;
	}
	p->host.pod_from = p->host.tor_from;
}

/*
 * Host side: the host agent's [host] and [host.*], but the keys the
 * fabric sets (policy, rate, mtu), then what the topology decides.
 */
static int
fab_parse_host_side(struct ofan_cfg *cfg, struct fab_params *p, uint32_t mtu)
{
	static const char *const host_owned[] = { "policy", "rate", "mtu" };
	unsigned int i;

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
	if (hs_config_host_from_cfg(cfg, &p->host, HS_CFG_CALLER_SETS))
		return -EINVAL;
	p->host.set.rate_bps = p->rate_bps;
	p->host.set.mtu = (uint16_t)mtu;
	if (!ofan_cfg_has_key(cfg, "host", "seed"))
		p->host.set.seed = p->seed;
	fab_host_topology(p);
	p->host.mtu_from.keys[0] = (struct ofan_cfg_key){ FAB_SEC, "mtu" };
	p->host.mtu_from.nb = 1;
	fab_source_routes(p);
	return 0;
}

/* [traffic], but the ToR and pod sizes, which are the topology's. */
static int
fab_parse_traffic_side(struct ofan_cfg *cfg, struct fab_params *p)
{
	static const char *const sizes[2] = { "tor_size", "pod_size" };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		const char *v = "";

		if (!ofan_cfg_has_key(cfg, "traffic", sizes[i]))
			continue;
		ofan_cfg_get_str(cfg, "traffic", sizes[i], 0, &v);
		return ofan_cfg_fail(cfg, "traffic", sizes[i],
			"'%s' is set by the fabric; expected no %s here (the topology's ToRs and pods)",
			v, sizes[i]);
	}
	p->host.set.ip_base = (10u << 24) | 1;
	p->host.traffic.seed = p->matrix_seed;
	if (hs_config_traffic_from_cfg(cfg, &p->host, HS_CFG_CALLER_SETS))
		return -EINVAL;
	return 0;
}

/* Failures need switch links: none in a back-to-back topology. */
static int
fab_check_b2b_failures(struct ofan_cfg *cfg, const struct fab_params *p)
{
	if (p->topo == FAB_TOPO_B2B && p->nb_failures > 0) {
		const struct ofan_cfg_key keys[] = {
			{ p->failures[0].sec, "link" }, { FAB_SEC, "topology" },
		};

		if (ofan_cfg_blame(cfg, keys, 2) == 1)
			return ofan_cfg_fail(cfg, FAB_SEC, "topology",
				"'%s' has no switch links for [%s] to fail; expected fattree or leafspine, or no failures",
				ofan_cfg_value(cfg, FAB_SEC, "topology"),
				p->failures[0].sec);
		return ofan_cfg_fail(cfg, p->failures[0].sec, "link",
			"'%s' is a host-to-host link; expected failures only with topology = fattree or leafspine",
			p->failures[0].link);
	}
	return 0;
}

/* Everything but the sweeps: one combination's params from cfg. */
int
fab_parse(struct ofan_cfg *cfg, struct fab_params *p)
{
	uint32_t mtu = 4096, threads = p->threads;

	if (fab_parse_fabric(cfg, p, &mtu, &threads) ||
	    fab_check_windows(cfg, p) || fab_check_threads(cfg, p, threads))
		return -EINVAL;
	p->threads = (uint16_t)threads;
	if (fab_parse_switch_side(cfg, p, mtu) ||
	    fab_parse_host_side(cfg, p, mtu) ||
	    fab_parse_traffic_side(cfg, p) ||
	    fab_parse_failures(cfg, p) || fab_parse_drops(cfg, p) ||
	    fab_check_b2b_failures(cfg, p))
		return -EINVAL;
	return 0;
}

void
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
	p->matrix_seed = 1;
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
