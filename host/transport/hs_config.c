/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loader for the host agent's configuration; see hs_config.h and the
 * commented examples configs/host-*.ini.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofan_config.h"
#include "ofan_wire.h"
#include "hs_config.h"
#include "hs_pattern.h"
#include "hlb.h"
#include "hs_cc.h"
#include "hs_transport.h"

const char *const hs_pacing_names[] = { "host", "flow", NULL };
const char *const hs_ce_echo_names[] = { "data", "ack", NULL };
const char *const hs_resend_path_names[] = { "own", "next", NULL };

#define RTE_DIM_HS(a) (sizeof(a) / sizeof((a)[0]))

static const char *const hs_ecn_names[] = {
	"not-ect", "ect1", "ect0", NULL
};

void
hs_config_derive(struct hs_config *c)
{
	struct hs_host_settings *s = &c->set;
	double bdp;

	s->mss = (uint16_t)(s->mtu - OFAN_IPV4_HDR_SIZE - OFAN_UDP_HDR_SIZE -
			    OFAN_BTH_SIZE);
	s->pace_extra = s->pace_bytes == 0 ? 0 : (int32_t)s->pace_bytes -
		(int32_t)(OFAN_ETH_HDR_SIZE + s->mtu + OFAN_WIRE_OVERHEAD);
	/*
	 * The path facts the policies read (hlb.h): REPS freezes against the
	 * base RTT, flowlet's default gap is half of it, PLB and REPS count
	 * in BDPs of full frames' pacing slots (with preamble, SFD, IFG and
	 * FCS: 24 bytes, unless pace_bytes says otherwise).
	 */
	bdp = (double)s->rate_bps * s->rate_coef * (double)s->base_rtt_ns /
		8e9 / (double)hs_pace_slot(s, OFAN_ETH_HDR_SIZE + s->mtu +
					   OFAN_WIRE_OVERHEAD);
	s->hlb.base_rtt_ns = s->base_rtt_ns;
	s->hlb.bdp_pkts = bdp < 1.0 ? 1 : bdp > (double)(1u << 24) ?
		1u << 24 : (uint32_t)bdp + ((double)(uint32_t)bdp < bdp);
}

void
hs_config_defaults(struct hs_config *c)
{
	struct hs_host_settings *s = &c->set;

	memset(c, 0, sizeof(*c));
	hlb_settings_defaults(&s->hlb_set);
	s->hlb.ev_min = 49152;
	s->hlb.ev_max = 65535;
	s->policy = hlb_find("fixed");
	s->seed = 1;
	s->rate_bps = 10000000000ull;
	s->rate_coef = 1.0;
	s->mtu = 4096;
	s->ack_every = 1;
	s->min_rto_ns = 1000000;		/* 1 ms */
	s->reorder_window_ns = 100000;		/* 100 us */
	s->base_rtt_ns = 20000;			/* 20 us */
	s->cc = hs_cc_registry[0];	/* rate */
	hs_cc_settings_defaults(&s->cc_set);
	s->recovery = hs_recovery_registry[0];	/* sack */
	hs_recovery_settings_defaults(&s->recovery_set);
	s->pacing = HS_PACING_HOST;
	s->pacing_jitter = 0.0;
	s->ecn = OFAN_ECN_ECT0;
	s->verify_payload = true;
	s->stats_interval_ns = 1000000000ull;
	s->ip_base = 0x0a000001;		/* 10.0.0.1 */
	s->per_subnet = 1;
	c->traffic.pattern = hs_pattern_default();
	c->traffic.size = 1u << 20;
	c->traffic.iterations = 1;
	c->traffic.seed = 1;
	hs_config_derive(c);
}

/* Read a u32 into a narrower field (u16) through a temporary. */
static int
hs_get_u16(struct ofan_cfg *cfg, const char *sec, const char *key,
	   uint32_t min, uint32_t max, uint16_t *out)
{
	uint32_t v = *out;

	if (ofan_cfg_get_u32(cfg, sec, key, 0, min, max, &v))
		return -EINVAL;
	*out = (uint16_t)v;
	return 0;
}

/*
 * [host] keys that moved to a model's own section, and where to: read
 * from [host] for this release (the value is copied to each of its new
 * places, so it is checked there, and each is reported as moved: c->moved),
 * refused when a new place holds the key too.  ofan-fabric's overrides
 * and sweeps of host.KEY go the same way.
 */
struct hs_moved_key {
	const char *key;		/* its [host] name */
	const char *to_key;		/* its name in its new sections */
	const char *to[4];		/* its new sections, NULL-terminated */
};

static const struct hs_moved_key hs_moved_keys[] = {
	{ "dupacks", "dupacks", { "recovery.tcp" } },
	{ "fast_retransmit", "fast_retransmit", { "recovery.tcp" } },
	{ "sack_limit", "sack_limit", { "recovery.tcp" } },
	{ "initial_rto", "initial_rto",
	  { "recovery.tcp", "recovery.trim", "recovery.gbn" } },
	{ "erasure_k", "k", { "recovery.erasure" } },
	{ "window", "window", { "cc.ecn_window" } },
};

/* "[a] key", "[a] and [b] key", "[a], [b] and [c] key" into out. */
static void
hs_moved_where(const struct hs_moved_key *m, char *out, size_t size)
{
	size_t len = 0;
	int j, n = 0;

	while (m->to[n] != NULL)
		n++;
	out[0] = '\0';
	for (j = 0; j < n && len < size; j++) {
		snprintf(out + len, size - len, "%s[%s]",
			 j == 0 ? "" : j == n - 1 ? " and " : ", ", m->to[j]);
		len = strlen(out);
	}
	if (len < size)
		snprintf(out + len, size - len, " %s", m->to_key);
}

/* One moved key: copied to its new places, or refused. */
static int
hs_config_move(struct ofan_cfg *cfg, struct hs_config *c,
	       const struct hs_moved_key *m)
{
	static const char *const host = "host";
	char origin[256], where[128];
	const char *value, *o;
	size_t len;
	int j;

	hs_moved_where(m, where, sizeof(where));
	if (!ofan_cfg_has_key(cfg, host, m->key)) {
		char expect[192];

		/* --config-reference lists it with its new place. */
		snprintf(expect, sizeof(expect),
			 "moved to %s; read from here for this release", where);
		ofan_cfg_ref_note(host, m->key, 0, expect, NULL);
		return 0;
	}
	value = ofan_cfg_value(cfg, host, m->key);
	o = ofan_cfg_origin(cfg, host, m->key);
	if (o != NULL)
		snprintf(origin, sizeof(origin), "%s", o);
	else
		snprintf(origin, sizeof(origin), "%s:%s:%s", ofan_cfg_path(cfg),
			 host, m->key);
	for (j = 0; m->to[j] != NULL; j++) {
		const struct ofan_cfg_key keys[] = {
			{ host, m->key }, { m->to[j], m->to_key },
		};
		const char *there = ofan_cfg_origin(cfg, m->to[j], m->to_key);

		if (!ofan_cfg_has_key(cfg, m->to[j], m->to_key))
			continue;
		/* Moved already (the loader ran on this cfg before). */
		if (there != NULL && strcmp(there, origin) == 0)
			return 0;
		if (ofan_cfg_blame(cfg, keys, 2) == 1)
			return ofan_cfg_fail(cfg, m->to[j], m->to_key,
				"'%s' is set as [host] %s too, its place before it moved here; expected it here only",
				ofan_cfg_value(cfg, m->to[j], m->to_key),
				m->key);
		if (m->to[1] == NULL)
			return ofan_cfg_fail(cfg, host, m->key,
				"'%s' moved to %s, which is set too; expected it there only",
				value, where);
		return ofan_cfg_fail(cfg, host, m->key,
			"'%s' moved to %s, and [%s] sets it too; expected it in the new places only",
			value, where, m->to[j]);
	}
	for (j = 0; m->to[j] != NULL; j++)
		if (ofan_cfg_set_from(cfg, m->to[j], m->to_key, value,
				      origin) != 0)
			return ofan_cfg_fail(cfg, host, m->key,
				"'%s' cannot be moved to [%s]", value,
				m->to[j]);
	/* Read: no unknown key. */
	(void)ofan_cfg_get_str(cfg, host, m->key, 0, &value);
	/* A line each, whole or not at all. */
	len = strlen(c->moved);
	if (snprintf(c->moved + len, sizeof(c->moved) - len,
		     "%s: moved to %s; read from [host] for this release only\n",
		     origin, where) >= (int)(sizeof(c->moved) - len))
		c->moved[len] = '\0';
	return 0;
}

/*
 * The recovery models' and the congestion controllers' settings, each
 * from its own section, after the keys that moved there from [host].
 */
static int
hs_config_models(struct ofan_cfg *cfg, struct hs_config *c)
{
	size_t i;

	for (i = 0; i < RTE_DIM_HS(hs_moved_keys); i++)
		if (hs_config_move(cfg, c, &hs_moved_keys[i]) != 0)
			return -EINVAL;
	if (hs_recovery_settings_from_cfg(cfg, &c->set.recovery_set) != 0 ||
	    hs_cc_settings_from_cfg(cfg, &c->set.cc_set) != 0)
		return -EINVAL;
	return 0;
}

void
hs_config_moved_warn(const char *moved, const char *prog, FILE *f)
{
	const char *line = moved, *nl;

	for (; *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		if (nl == NULL) {
			fprintf(f, "%s: warning: %s\n", prog, line);
			break;
		}
		fprintf(f, "%s: warning: %.*s\n", prog, (int)(nl - line),
			line);
	}
}

static int
hs_config_host(struct ofan_cfg *cfg, struct hs_config *c,
	       unsigned int flags)
{
	const bool caller_sets = (flags & HS_CFG_CALLER_SETS) != 0;
	const unsigned int policy_flags = flags & OFAN_CFG_REQUIRED;
	static const char *const sec = "host";
	const char *names[HLB_MAX_POLICIES + 1];
	const char *cc_names[HS_MAX_CC + 1];
	const char *rec_names[HS_MAX_RECOVERY + 1];
	int i, n, cc = hs_cc_index(c->set.cc), ecn = c->set.ecn;
	int rec = hs_recovery_index(c->set.recovery);
	int pacing = c->set.pacing, ce_echo = c->set.ce_echo;
	int resend_path = c->set.resend_path;

	for (n = 0; hlb_registry[n] != NULL && n < HLB_MAX_POLICIES; n++)
		names[n] = hlb_registry[n]->name;
	names[n] = NULL;
	hs_cc_name_list(cc_names);
	hs_recovery_name_list(rec_names);
	i = 0;
	if (caller_sets || (!(policy_flags & OFAN_CFG_REQUIRED) &&
			    !ofan_cfg_has_key(cfg, sec, "policy")))
		i = -1;
	else if (ofan_cfg_get_enum(cfg, sec, "policy", policy_flags, names,
				   &i))
		return -EINVAL;
	if (i >= 0)
		c->set.policy = hlb_find(names[i]);
	if (ofan_cfg_get_u64(cfg, sec, "seed", 0, 0, UINT64_MAX, &c->set.seed) ||
	    (!caller_sets &&
	     ofan_cfg_get_rate(cfg, sec, "rate", 0, 1000000,
			       10000ull * 1000000000ull, &c->set.rate_bps)) ||
	    ofan_cfg_get_double(cfg, sec, "rate_coef", 0, 0.001, 1.0,
				&c->set.rate_coef) ||
	    (!caller_sets && hs_get_u16(cfg, sec, "mtu", 50, 9000, &c->set.mtu)) ||
	    hs_get_u16(cfg, sec, "ack_every", 1, 64, &c->set.ack_every) ||
	    ofan_cfg_get_time(cfg, sec, "min_rto", 0, 1000, 60ull * 1000000000ull,
			      &c->set.min_rto_ns) ||
	    ofan_cfg_get_time(cfg, sec, "reorder_window", 0, 0,
			      60ull * 1000000000ull, &c->set.reorder_window_ns) ||
	    ofan_cfg_get_time(cfg, sec, "base_rtt", 0, 1, 60ull * 1000000000ull,
			      &c->set.base_rtt_ns) ||
	    ofan_cfg_get_enum(cfg, sec, "cc", 0, cc_names, &cc) ||
	    ofan_cfg_get_enum(cfg, sec, "ecn", 0, hs_ecn_names, &ecn) ||
	    ofan_cfg_get_enum(cfg, sec, "ce_echo", 0, hs_ce_echo_names,
			      &ce_echo) ||
	    ofan_cfg_get_enum(cfg, sec, "recovery", 0, rec_names, &rec) ||
	    ofan_cfg_get_enum(cfg, sec, "resend_path", 0,
			      hs_resend_path_names, &resend_path) ||
	    ofan_cfg_get_enum(cfg, sec, "pacing", 0, hs_pacing_names,
			      &pacing) ||
	    ofan_cfg_get_double(cfg, sec, "pacing_jitter", 0, 0.0, 0.5,
				&c->set.pacing_jitter) ||
	    ofan_cfg_get_u32(cfg, sec, "pace_bytes", 0, 0, 65535,
			     &c->set.pace_bytes) ||
	    ofan_cfg_get_bool(cfg, sec, "verify_payload", 0,
			      &c->set.verify_payload) ||
	    ofan_cfg_get_time(cfg, sec, "stats_interval", 0, 0,
			      3600ull * 1000000000ull, &c->set.stats_interval_ns) ||
	    hs_get_u16(cfg, sec, "ev_min", 1, 65535, &c->set.hlb.ev_min) ||
	    hs_get_u16(cfg, sec, "ev_max", 1, 65535, &c->set.hlb.ev_max))
		return -EINVAL;
	c->set.cc = hs_cc_registry[cc];
	c->set.ecn = (uint8_t)ecn;
	c->set.recovery = hs_recovery_registry[rec];
	if (!hs_cc_recovery_fit(c->set.cc, c->set.recovery)) {
		const char *key = ofan_cfg_blame2(cfg, sec, "recovery", "cc") == 1 ?
			"recovery" : "cc";

		return ofan_cfg_fail(cfg, sec, key,
			"cc = %s is receiver-driven and runs over recovery = sack (UEC's transport), not %s; expected recovery = sack, or another cc",
			c->set.cc->name, c->set.recovery->name);
	}
	c->set.pacing = (enum hs_pacing)pacing;
	c->set.resend_path = (enum hs_resend_path)resend_path;
	c->set.ce_echo = (enum hs_ce_echo)ce_echo;
	if (c->set.pacing_jitter > 0 && c->set.pacing != HS_PACING_FLOW &&
	    ofan_cfg_blame2(cfg, sec, "pacing_jitter", "pacing") == 1)
		return ofan_cfg_fail(cfg, sec, "pacing",
			"'%s' with pacing_jitter = %g; expected pacing = flow (per-flow pacers), or no jitter",
			hs_pacing_names[c->set.pacing], c->set.pacing_jitter);
	if (c->set.pacing_jitter > 0 && c->set.pacing != HS_PACING_FLOW)
		return ofan_cfg_fail(cfg, sec, "pacing_jitter",
			"'%g' needs per-flow pacers; expected pacing = flow, or no jitter",
			c->set.pacing_jitter);
	if (c->set.pace_bytes != 0 && c->set.pace_bytes < 64)
		return ofan_cfg_fail(cfg, sec, "pace_bytes",
			"'%u' is less than a minimum frame; expected 0 (a frame's wire bytes) or 64 to 65535",
			c->set.pace_bytes);
	if (c->set.hlb.ev_max < c->set.hlb.ev_min &&
	    ofan_cfg_blame2(cfg, sec, "ev_max", "ev_min") == 1)
		return ofan_cfg_fail(cfg, sec, "ev_min",
			"'%u' is above ev_max (%u); expected ev_min <= ev_max",
			c->set.hlb.ev_min, c->set.hlb.ev_max);
	if (c->set.hlb.ev_max < c->set.hlb.ev_min)
		return ofan_cfg_fail(cfg, sec, "ev_max",
			"'%u' is below ev_min (%u); expected ev_min <= ev_max",
			c->set.hlb.ev_max, c->set.hlb.ev_min);
	hs_config_derive(c);
	return hs_config_models(cfg, c);
}

static int
hs_config_ranks(struct ofan_cfg *cfg, struct hs_config *c)
{
	if (ofan_cfg_get_u32(cfg, "ranks", "count", OFAN_CFG_REQUIRED, 2,
			     HS_MAX_RANKS, &c->traffic.nb_ranks) ||
	    ofan_cfg_get_ipv4(cfg, "ranks", "ip_base", 0, &c->set.ip_base) ||
	    ofan_cfg_get_u32(cfg, "ranks", "per_subnet", 0, 1, 254,
			     &c->set.per_subnet))
		return -EINVAL;
	if ((c->set.ip_base & 0xff) + c->set.per_subnet > 255 &&
	    ofan_cfg_blame2(cfg, "ranks", "per_subnet", "ip_base") == 1)
		return ofan_cfg_fail(cfg, "ranks", "ip_base",
			"'%s' leaves room for %u ranks a subnet before .254, fewer than per_subnet = %u; expected ip_base's last byte + per_subnet <= 255",
			ofan_cfg_value(cfg, "ranks", "ip_base"),
			255 - (c->set.ip_base & 0xff), c->set.per_subnet);
	if ((c->set.ip_base & 0xff) + c->set.per_subnet > 255)
		return ofan_cfg_fail(cfg, "ranks", "per_subnet",
			"'%u' ranks per subnet from host byte %u pass .254; expected ip_base's last byte + per_subnet <= 255",
			c->set.per_subnet, c->set.ip_base & 0xff);
	return 0;
}

/* One key as where a value comes from. */
static void
hs_from_key(struct hs_cfg_from *f, const char *sec, const char *key)
{
	f->keys[0].sec = sec;
	f->keys[0].key = key;
	f->nb = 1;
}

/* keys[n ..] += from's keys, at most max in all; the new count. */
static int
hs_keys_add(struct ofan_cfg_key *keys, int n, int max,
	    const struct hs_cfg_from *from)
{
	int i;

	for (i = 0; i < from->nb && n < max; i++)
		keys[n++] = from->keys[i];
	return n;
}

/*
 * A pattern's check failed on [traffic] key: blame it, or the key of a
 * value its rule involves (ofan_cfg_fail_keys()): the rank count for the
 * pattern's ranks_keys (incast_degree) and pod_size, the ToR and pod
 * sizes for tor_size and pod_size, then
 * the pattern itself.  A key the check finds missing is named so
 * unless an override set one of the others.
 */
static int
hs_config_pattern_fail(struct ofan_cfg *cfg, const struct hs_config *c,
		       const char *key, const char *msg)
{
	struct ofan_cfg_key keys[2 + 3 * HS_CFG_MAX_FROM] = {
		{ "traffic", key },
	};
	int n = 1;

	if (hs_pattern_ranks_key(c->traffic.pattern, key) ||
	    strcmp(key, "pod_size") == 0)
		n = hs_keys_add(keys, n, (int)RTE_DIM_HS(keys), &c->ranks_from);
	if (strcmp(key, "tor_size") == 0 || strcmp(key, "pod_size") == 0)
		n = hs_keys_add(keys, n, (int)RTE_DIM_HS(keys), &c->tor_from);
	if (strcmp(key, "pod_size") == 0)
		n = hs_keys_add(keys, n, (int)RTE_DIM_HS(keys), &c->pod_from);
	keys[n++] = (struct ofan_cfg_key){ "traffic", "pattern" };
	if (strncmp(msg, "missing", strlen("missing")) == 0) {
		int i;

		for (i = 1; i < n; i++)
			if (ofan_cfg_overridden(cfg, keys[i].sec, keys[i].key))
				break;
		if (i == n)
			n = 1;
	}
	return ofan_cfg_fail_keys(cfg, keys, n, "%s", msg);
}

int
hs_config_traffic_from_cfg(struct ofan_cfg *cfg, struct hs_config *c,
			   unsigned int flags)
{
	const bool caller_sets = (flags & HS_CFG_CALLER_SETS) != 0;
	static const char *const sec = "traffic";
	struct hs_traffic_params *t = &c->traffic;
	const char *names[HS_MAX_PATTERNS + 1];
	const char *key = "";
	struct hs_pattern_cfg ctx;
	char msg[256];
	int pattern;

	hs_pattern_name_list(names);
	pattern = hs_pattern_index(t->pattern);
	if (!caller_sets) {
		hs_from_key(&c->ranks_from, "ranks", "count");
		hs_from_key(&c->tor_from, sec, "tor_size");
		hs_from_key(&c->pod_from, sec, "pod_size");
		hs_from_key(&c->mtu_from, "host", "mtu");
	}

	if (ofan_cfg_get_enum(cfg, sec, "pattern", OFAN_CFG_REQUIRED,
			      names, &pattern) ||
	    ofan_cfg_get_size(cfg, sec, "size", 0, 1, 1ull << 40, &t->size) ||
	    ofan_cfg_get_u32(cfg, sec, "iterations", 0, 1, 1000000,
			     &t->iterations) ||
	    ofan_cfg_get_u64(cfg, sec, "seed", 0, 0, UINT64_MAX, &t->seed) ||
	    ofan_cfg_get_time(cfg, sec, "start", 0, 0, 3600ull * 1000000000ull,
			      &t->start_ns) ||
	    (!caller_sets &&
	     (ofan_cfg_get_u32(cfg, sec, "tor_size", 0, 2, 1u << 20,
			       &t->tor_size) ||
	      ofan_cfg_get_u32(cfg, sec, "pod_size", 0, 2, 1u << 20,
			       &t->pod_size))))
		return -EINVAL;
	{
		/*
		 * A flow's senders keep state per packet: at most
		 * HS_MAX_PKTS of them (with the recovery model's extra
		 * packets, erasure's k), so a size beyond that is refused
		 * here, not found out of memory.
		 */
		uint32_t mss = (uint32_t)c->set.mtu - OFAN_IPV4_HDR_SIZE -
			OFAN_UDP_HDR_SIZE - OFAN_BTH_SIZE;
		const struct hs_transport_params tp = {
			.recovery = c->set.recovery, .mss = (uint16_t)mss,
			.settings = hs_recovery_settings_of(&c->set.recovery_set,
							    c->set.recovery),
		};
		uint32_t one = hs_transport_nb_pkts(&tp, mss);
		uint64_t extra = one > 1 ? one - 1 : 0;
		uint64_t max_pkts = extra < HS_MAX_PKTS - 1 ?
			HS_MAX_PKTS - 1 - extra : 0;
		const char *text = "";
		/* A rule of size, the model (its extra packets) and mtu. */
		struct ofan_cfg_key keys[2 + HS_CFG_MAX_FROM] = {
			{ sec, "size" }, { "host", "recovery" },
		};

		if (t->size > max_pkts * mss) {
			ofan_cfg_get_str(cfg, sec, "size", 0, &text);
			return ofan_cfg_fail_keys(cfg, keys,
				hs_keys_add(keys, 2, (int)RTE_DIM_HS(keys),
					    &c->mtu_from),
				"'%s' is %llu packets of %u bytes; expected at most %llu packets a flow, %llu bytes with mtu %u",
				text, (unsigned long long)((t->size + mss - 1) / mss),
				mss, (unsigned long long)max_pkts,
				(unsigned long long)(max_pkts * mss), c->set.mtu);
		}
	}
	t->pattern = hs_pattern_registry[pattern];
	/* The pattern's own settings, and no other pattern's. */
	ctx = (struct hs_pattern_cfg){
		.nb_ranks = t->nb_ranks,
		.ranks_from = c->ranks_from.keys,
		.nb_ranks_from = c->ranks_from.nb,
	};
	if (hs_pattern_settings_from_cfg(cfg, sec, t->pattern, &ctx,
					 &c->pattern_set) != 0)
		return -EINVAL;
	t->settings = t->pattern->settings_size > 0 ? &c->pattern_set : NULL;
	/* The pattern's own rules, as hs_pattern_build() checks them. */
	if (hs_pattern_check(t, &key, msg, sizeof(msg)) != 0)
		return hs_config_pattern_fail(cfg, c, key, msg);
	return 0;
}

const char *const hs_steer_names[] = { "auto", "rss", "software", NULL };

/* [port.N] lcores and steer: one rank on several lcores. */
static int
hs_config_port_lcores(struct ofan_cfg *cfg, const char *sec,
		      struct hs_port_config *p)
{
	int steer = HS_STEER_AUTO;
	uint32_t i, j;

	if (ofan_cfg_get_u32_list(cfg, sec, "lcores", 0, 0,
				  HS_MAX_LCORE - 1, p->lcores,
				  HS_PORT_MAX_LCORES, &p->nb_lcores) ||
	    ofan_cfg_get_enum(cfg, sec, "steer", 0, hs_steer_names, &steer))
		return -EINVAL;
	p->steer = (uint8_t)steer;
	for (i = 0; i < p->nb_lcores; i++)
		for (j = 0; j < i; j++)
			if (p->lcores[i] == p->lcores[j])
				return ofan_cfg_fail(cfg, sec, "lcores",
					"lcore %u is listed twice; expected each lcore once (one shard of the rank each)",
					p->lcores[i]);
	return 0;
}

static int
hs_config_ports(struct ofan_cfg *cfg, struct hs_config *c)
{
	const char *secs[HS_MAX_PORTS + 1];
	bool seen[HS_MAX_PORTS] = { false };
	int n, i, j;

	n = ofan_cfg_sections(cfg, "port.", secs, HS_MAX_PORTS + 1);
	if (n == 0)
		return ofan_cfg_fail(cfg, "port.0", "dev",
			"missing; expected at least one [port.N] section with dev = <ethdev> and rank = <rank>");
	if (n > HS_MAX_PORTS)
		return ofan_cfg_fail(cfg, secs[HS_MAX_PORTS], "dev",
			"too many ports; expected at most %d", HS_MAX_PORTS);
	for (i = 0; i < n; i++) {
		const char *sec = secs[i];
		struct hs_port_config *p;
		const char *dev = NULL;
		uint64_t id;

		if (ofan_parse_u64(sec + 5, &id) != 0 || id >= HS_MAX_PORTS ||
		    seen[id])
			return ofan_cfg_fail(cfg, sec, "dev",
				"section name '%s' is not a new port number; expected [port.N], N in [0, %d], each once",
				sec, HS_MAX_PORTS - 1);
		seen[id] = true;
		p = &c->ports[id];
		if (ofan_cfg_get_str(cfg, sec, "dev", OFAN_CFG_REQUIRED, &dev) ||
		    ofan_cfg_get_u32(cfg, sec, "rank", OFAN_CFG_REQUIRED, 0,
				     c->traffic.nb_ranks - 1, &p->rank))
			return -EINVAL;
		if (strlen(dev) >= sizeof(p->dev))
			return ofan_cfg_fail(cfg, sec, "dev",
				"is too long; expected at most %zu characters",
				sizeof(p->dev) - 1);
		/* Its files: relative to the config, and there. */
		if (ofan_cfg_devargs(cfg, sec, "dev", dev, p->dev,
				     sizeof(p->dev)) != 0)
			return -EINVAL;
		p->mac_set = ofan_cfg_has_key(cfg, sec, "mac");
		p->gateway_mac_set = ofan_cfg_has_key(cfg, sec, "gateway_mac");
		if (ofan_cfg_get_mac(cfg, sec, "mac", 0, p->mac) ||
		    ofan_cfg_get_mac(cfg, sec, "gateway_mac", 0,
				     p->gateway_mac))
			return -EINVAL;
		if (hs_config_port_lcores(cfg, sec, p))
			return -EINVAL;
		for (j = 0; j < HS_MAX_PORTS; j++) {
			char other[16];
			const struct ofan_cfg_key keys[] = {
				{ sec, "rank" }, { other, "rank" },
			};

			if (j == (int)id || !seen[j] ||
			    c->ports[j].rank != p->rank)
				continue;
			snprintf(other, sizeof(other), "port.%d", j);
			if (ofan_cfg_blame(cfg, keys, 2) == 1)
				return ofan_cfg_fail(cfg, other, "rank",
					"'%u' is the rank of [%s] too; expected each rank on one port",
					p->rank, sec);
			return ofan_cfg_fail(cfg, sec, "rank",
				"'%u' is already the rank of [port.%d]; expected each rank on one port",
				p->rank, j);
		}
	}
	for (i = 0; i < n; i++)
		if (!seen[i])
			return ofan_cfg_fail(cfg, secs[n - 1], "dev",
				"ports must be numbered densely from 0; [port.%d] is missing", i);
	{
		/* Two ports on one device: refused here too (--check-config). */
		const char *devs[HS_MAX_PORTS];

		for (i = 0; i < n; i++)
			devs[i] = c->ports[i].dev;
		if (ofan_cfg_check_devices(cfg, devs, n))
			return -EINVAL;
	}
	c->nb_ports = (uint16_t)n;
	return 0;
}

/* As for the switch: every policy validates its own section. */
static int
hs_config_policies(struct ofan_cfg *cfg, struct hs_config *c)
{
	return hlb_settings_from_cfg(cfg, &c->set.hlb_set);
}

int
hs_config_host_from_cfg(struct ofan_cfg *cfg, struct hs_config *c,
			unsigned int flags)
{
	if (hs_config_host(cfg, c, flags) ||
	    hs_config_policies(cfg, c))
		return -EINVAL;
	return 0;
}

int
hs_config_from_cfg(struct ofan_cfg *cfg, struct hs_config *c)
{
	hs_config_defaults(c);
	c->path = ofan_cfg_path(cfg);
	if (hs_config_host(cfg, c, OFAN_CFG_REQUIRED) ||
	    hs_config_ranks(cfg, c) || hs_config_traffic_from_cfg(cfg, c, 0) ||
	    hs_config_ports(cfg, c) || hs_config_policies(cfg, c))
		return -EINVAL;
	return ofan_cfg_check_unknown(cfg);
}

static int
hs_config_fill(struct ofan_cfg *cfg, void *arg)
{
	return hs_config_from_cfg(cfg, arg);
}

int
hs_config_load(const char *path, struct hs_config *c, char *err,
	       unsigned int err_size)
{
	int rc = ofan_cfg_load_with(path, hs_config_fill, c, err, err_size);

	/* Strings must outlive the loader's cfg: point at our copies. */
	c->path = path;
	if (c->traffic.settings != NULL)
		c->traffic.settings = &c->pattern_set;
	return rc;
}

/* The reference loads (hs_config_reference()): POLICY, RECOVERY, CC and
 * PATTERN filled in, two ranks on two ports. */
static const char hs_ref_text[] =
	"[host]\npolicy = %s\nrate = 100G\nrecovery = %s\ncc = %s\n"
	"[ranks]\ncount = 2\n"
	"[traffic]\npattern = %s\n%s"
	"[port.0]\ndev = net_null0\nrank = 0\n"
	"[port.1]\ndev = net_null1\nrank = 1\n";

/* Load one reference text; 0, or -EINVAL with the message in err. */
static int
hs_ref_load(struct hs_config *c, const char *text, char *err,
	    unsigned int err_size)
{
	struct ofan_cfg *cfg = ofan_cfg_load_mem("reference.ini", text,
						 strlen(text), err, err_size);
	int rc = 0;

	if (cfg == NULL)
		return -EINVAL;
	if (hs_config_from_cfg(cfg, c) != 0) {
		snprintf(err, err_size, "%s", ofan_cfg_error(cfg));
		rc = -EINVAL;
	}
	ofan_cfg_free(cfg);
	return rc;
}

int
hs_config_reference(FILE *f, char *err, unsigned int err_size)
{
	struct hs_config *c = calloc(1, sizeof(*c));
	struct ofan_cfg_ref *ref = ofan_cfg_ref_new();
	char text[sizeof(hs_ref_text) + 256];
	unsigned int i;
	int rc = 0;

	if (c == NULL || ref == NULL) {
		free(c);
		ofan_cfg_ref_free(ref);
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	ofan_cfg_ref_record(ref);
	/* Ranges the two ranks below would narrow. */
	ofan_cfg_ref_note("port.N", "rank", OFAN_CFG_REQUIRED,
			  "an integer in [0, [ranks] count - 1]", NULL);
	for (i = 0; rc == 0 && hlb_registry[i] != NULL; i++) {
		snprintf(text, sizeof(text), hs_ref_text,
			 hlb_registry[i]->name, "sack", "rate", "alltoall", "");
		rc = hs_ref_load(c, text, err, err_size);
	}
	for (i = 0; rc == 0 && hs_recovery_registry[i] != NULL; i++) {
		snprintf(text, sizeof(text), hs_ref_text, "fixed",
			 hs_recovery_registry[i]->name, "rate", "alltoall", "");
		rc = hs_ref_load(c, text, err, err_size);
	}
	for (i = 0; rc == 0 && hs_cc_registry[i] != NULL; i++) {
		snprintf(text, sizeof(text), hs_ref_text, "fixed", "sack",
			 hs_cc_registry[i]->name, "alltoall", "");
		rc = hs_ref_load(c, text, err, err_size);
	}
	/*
	 * A pattern may need the ToR and pod sizes (the ring patterns) or
	 * text of its own (its example).  A pattern that reads a file at
	 * load finds no traffic in its example's /dev/null: that load fails
	 * after its keys are noted, and only that error is forgiven.
	 */
	for (i = 0; rc == 0 && hs_pattern_registry[i] != NULL; i++) {
		static const char *const extras[] = {
			"", "tor_size = 2\npod_size = 2\n",
		};
		const struct hs_pattern_ops *ops = hs_pattern_registry[i];
		unsigned int e;

		for (e = 0; e < 2; e++) {
			snprintf(text, sizeof(text), hs_ref_text, "fixed",
				 "sack", "rate", ops->name,
				 ops->example != NULL ? ops->example :
				 extras[e]);
			if (hs_ref_load(c, text, err, err_size) == 0 ||
			    (ops->reads_file &&
			     strstr(err, "/dev/null") != NULL))
				break;
		}
		if (e == 2)
			rc = -EINVAL;
	}
	ofan_cfg_ref_record(NULL);
	if (rc == 0) {
		fprintf(f, "## ofan-host: host configs\n\n"
			"Generated by `ofan-host --config-reference` from the loaders.\n\n");
		ofan_cfg_ref_write(ref, f);
	}
	ofan_cfg_ref_free(ref);
	free(c);
	return rc;
}
