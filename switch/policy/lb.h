/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch load-balancing policies: the one pluggable stage of the switch
 * pipeline (docs/architecture.md, "The switch engine").
 *
 * After the FIB lookup each packet has a next-hop group (its candidate
 * egress members) and a destination key (destination ToR for a ToR,
 * destination pod for an aggregation switch).  A policy picks one member
 * per packet.  Policies see plain metadata, never mbufs, so they are unit
 * tested without EAL; they are called once per burst, not per packet.
 *
 * Adding a policy: one lb_<name>.c defining `const struct lb_ops
 * lb_<name>_ops` (its settings block, defaults and parse included), one
 * line in lb_registry.c (or an lb_register() call), its section in the
 * configs and a test file: docs/architecture.md walks through it.
 *
 * Ownership and threading: a policy instance (the void *state) belongs to
 * exactly one forwarding lcore.  Nothing in it is shared or locked; with
 * several lcores each has its own instance, seeded differently.
 */
#ifndef OFAN_LB_H
#define OFAN_LB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ofan_rng.h"

struct ofan_cfg;
struct lb_ops;

#define LB_MAX_MEMBERS 64
#define LB_NONE 0xffff		/* pick result when no member is live */

enum lb_kind { LB_KIND_DATA = 0, LB_KIND_ACK = 1, LB_NB_KINDS = 2 };

/*
 * A next-hop group.  Members are listed in configuration order; weight[i]
 * is the number of live paths through member i (0 = dead, skip it).  The
 * control plane changes weights and then calls lb_group_refresh(), which
 * recomputes the derived fields, and the policy's group_changed().
 */
struct lb_group {
	uint16_t id;			/* < lb_params.nb_groups */
	uint16_t nb_members;
	uint16_t port[LB_MAX_MEMBERS];	/* egress port of member i */
	uint16_t weight[LB_MAX_MEMBERS];
	/* Derived by lb_group_refresh(): */
	uint16_t nb_live;
	uint16_t live[LB_MAX_MEMBERS];	/* member indexes with weight > 0 */
	/*
	 * WCMP: the live members' weights divided by their gcd, summed in
	 * live order (live[j] owns [cum_weight[j - 1], cum_weight[j]) of
	 * total_weight).  weighted is false when they are all equal (the
	 * usual case, no failure): a policy then picks among live[] alone.
	 */
	bool weighted;
	uint32_t total_weight;
	uint32_t cum_weight[LB_MAX_MEMBERS];
	uint32_t version;		/* bumped by every refresh */
};

/* Recompute nb_live/live[] and the weights' sums from weight[], bump
 * version. */
void lb_group_refresh(struct lb_group *grp);

/* The greatest common divisor of a and b (gcd(0, b) = b). */
uint32_t lb_gcd(uint32_t a, uint32_t b);

/* The live member that owns weight offset r < total_weight. */
static inline uint16_t
lb_group_at_weight(const struct lb_group *grp, uint32_t r)
{
	uint16_t k = 0;

	while (k + 1 < grp->nb_live && grp->cum_weight[k] <= r)
		k++;
	return grp->live[k];
}

/*
 * A live member at random, in proportion to its weight (uniform when the
 * group is not weighted: one draw of ofan_rng_below(nb_live) either way).
 * The group has a live member.
 */
static inline uint16_t
lb_group_random(const struct lb_group *grp, struct ofan_rng *rng)
{
	if (!grp->weighted)
		return grp->live[ofan_rng_below(rng, grp->nb_live)];
	return lb_group_at_weight(grp, ofan_rng_below(rng, grp->total_weight));
}

/*
 * One of the nb (>= 1) members tied[] (indexes into grp->port[]) at
 * random, in proportion to their weights when the group is weighted.
 */
uint16_t lb_group_random_among(const struct lb_group *grp,
			       const uint16_t *tied, unsigned int nb,
			       struct ofan_rng *rng);

/* What a policy knows about one packet. */
struct lb_pkt {
	const struct lb_group *grp;
	uint32_t flow_hash;	/* seeded hash of the 5-tuple (EV included),
				 * 0 in a group of at most one live member
				 * for a flow_hash_where_choice policy; the
				 * EV itself for a flow_key_ev policy */
	uint32_t dst_key;	/* < lb_params.nb_dst_keys */
	uint16_t len;		/* frame bytes */
	uint8_t kind;		/* enum lb_kind; non-RoCE traffic is DATA */
};

#define LB_MAX_THRESHOLDS 15

/*
 * How the engine turns a queue's occupancy into the level it shows
 * policies (lb_view; [queue] levels or level_thresholds, lb_levels.c):
 * the fuller of its packets against its packet capacity and its bytes
 * against its byte capacity, so that whichever capacity binds first
 * decides.
 *  - linear (nb_thresholds = 0): level = occupancy x nb_levels, and a
 *    queue holding anything is at least level 1;
 *  - thresholds: level = how many of threshold[] (increasing fractions
 *    of the capacity, in millionths) the occupancy has reached, so nb_levels =
 *    nb_thresholds + 1 and a short queue ties with an empty one (htsim's
 *    packet AR: 5, 10 and 20 % of the queue).
 */
struct lb_levels {
	uint8_t nb_levels;
	uint8_t nb_thresholds;
	uint32_t threshold[LB_MAX_THRESHOLDS];
};

/* The engine's default: 8 linear levels. */
void lb_levels_defaults(struct lb_levels *lv);

/*
 * Read [sec] levels (2..16, linear) or level_thresholds (a list of
 * fractions) into lv, which holds the defaults.  Returns 0 or -EINVAL
 * with the message recorded in cfg.
 */
int lb_levels_from_cfg(struct ofan_cfg *cfg, const char *sec,
		       struct lb_levels *lv);

/* The level of used out of cap (cap 0 or UINT64_MAX: no capacity). */
static inline uint8_t
lb_level_of(uint64_t used, uint64_t cap, const struct lb_levels *lv)
{
	uint64_t l;
	uint8_t i;

	if (used == 0 || cap == 0 || cap == UINT64_MAX)
		return 0;
	if (lv->nb_thresholds == 0) {
		l = used * lv->nb_levels / (cap + 1);
		if (l == 0)
			l = 1;	/* non-empty is never level 0 */
		return (uint8_t)(l >= lv->nb_levels ?
				 (uint64_t)lv->nb_levels - 1 : l);
	}
	for (i = 0; i < lv->nb_thresholds &&
	     used * 1000000u >= (uint64_t)lv->threshold[i] * cap; i++)
		;
	return i;
}

static inline uint8_t
lb_queue_level(uint64_t pkts, uint64_t cap_pkts, uint64_t bytes,
	       uint64_t cap_bytes, const struct lb_levels *lv)
{
	uint8_t a = lb_level_of(pkts, cap_pkts, lv);
	uint8_t b = lb_level_of(bytes, cap_bytes, lv);

	return a > b ? a : b;
}

/*
 * What a policy may know about the switch: the occupancy level of each
 * egress port's queue, quantised by the engine as *levels says (0 =
 * empty or short).  Updated by the engine as it enqueues.
 */
struct lb_view {
	const uint8_t *port_level;	/* indexed by port id */
	const struct lb_levels *levels;
	/*
	 * Packets queued now and queue capacity per port, or NULL; bytes
	 * queued and byte capacity (UINT64_MAX: none), or NULL.  The levels
	 * above do not move within a burst; with these a policy can count
	 * its own picks of the burst (adaptive does).
	 */
	const uint32_t *port_len;
	const uint32_t *port_cap;
	const uint64_t *port_bytes;
	const uint64_t *port_cap_bytes;
};

/*
 * A policy's settings live in a block of its own, settings_size bytes of
 * an lb_settings, that only the policy reads: its defaults() and parse()
 * fill it, its create() gets it back in lb_params.settings.
 */
#define LB_MAX_POLICIES 16
#define LB_SETTINGS_MAX 128

struct lb_settings {
	_Alignas(8) unsigned char bytes[LB_SETTINGS_MAX];
};

/* The settings of every registered policy, by registry position. */
struct lb_settings_table {
	struct lb_settings of[LB_MAX_POLICIES];
};

/* Each registered policy's defaults() into its block (zeroed first). */
void lb_settings_defaults(struct lb_settings_table *t);

/*
 * Every registered policy's parse() over its own section, selected or
 * not, so that a bad knob is reported either way.  Returns 0 or -EINVAL.
 */
int lb_settings_from_cfg(struct ofan_cfg *cfg, struct lb_settings_table *t);

/* The block of ops in t; NULL when ops is not registered. */
const void *lb_settings_of(const struct lb_settings_table *t,
			   const struct lb_ops *ops);

/* Creation parameters: sizes and the seed from the engine. */
struct lb_params {
	uint64_t seed;		/* per switch, already mixed with the lcore */
	uint32_t nb_groups;
	uint32_t nb_dst_keys;
	uint16_t nb_ports;
	/* The switch's tier ([switch] tier): 0 ToR or leaf, 1 aggregation,
	 * 2 core or spine. */
	uint8_t tier;
	const void *settings;	/* the policy's own block, or NULL if it has none */
};


/*
 * A policy.  Members are called from the control path (defaults, parse,
 * create, destroy, group_changed, dump) or the data path (pick) of the
 * lcore that owns the instance, never concurrently.  name, summary,
 * create, destroy and pick are required (lb_register() refuses a policy
 * without them, or with an empty name or summary); every other member
 * may be 0 or NULL, and the engine then skips it.  A policy's own test
 * runs tests/lib/lb_conformance.h's checks of this contract on it.
 */
struct lb_ops {
	const char *name;	/* as written in the config: policy = <name> */
	/* One line, shown by ofan-switch --help (lb_describe()). */
	const char *summary;
	/*
	 * What pick() reads, so the engine computes only that: the 5-tuple
	 * hash (a few dozen instructions per packet) and the queue levels.
	 */
	bool uses_flow_hash;
	bool uses_queue_levels;
	/*
	 * pick() reads the packet's EV (its UDP source port) in flow_hash
	 * instead of the hash: the policy routes by what the host wrote
	 * there (sr, source routing).  Implies nothing else is hashed.
	 */
	bool flow_key_ev;
	/*
	 * With uses_flow_hash: pick() reads the hash only for a packet whose
	 * group has more than one live member (ecmp: with one, every bucket
	 * is that member), so the engine's burst path computes it only there
	 * and gives every other packet flow_hash 0, as VPP's load-balance
	 * hashes only when it has more than one bucket.  False (the default)
	 * for a policy whose picks or state depend on the hash of every
	 * packet (flowlet's table remembers every flow).
	 */
	bool flow_hash_where_choice;
	/* Bytes of the policy's settings block (<= LB_SETTINGS_MAX); 0: none. */
	size_t settings_size;
	/* Fill the block, zeroed, with the defaults.  May be NULL (zeros). */
	void (*defaults)(void *settings);
	/*
	 * Read and validate the policy's own [<name>] section into its block
	 * (the section may be absent: defaults stay).  Called for every
	 * registered policy at start-up, so a bad knob is reported even for
	 * an unselected policy; the keys it asks for are the section's
	 * allowed keys.  May be NULL when the policy has no knobs.  Returns
	 * 0 or -EINVAL with the message recorded in cfg.
	 */
	int (*parse)(struct ofan_cfg *cfg, void *settings);
	/* Allocate an instance; returns 0 or -errno.  *state owned by caller. */
	int (*create)(const struct lb_params *p, void **state);
	void (*destroy)(void *state);
	/*
	 * A group's membership or weights changed (also called once for
	 * every group before the first pick).  Rebuild derived state.
	 */
	void (*group_changed)(void *state, const struct lb_group *grp);
	/*
	 * Pick a member for each of n packets: out[i] is the index of a
	 * live member of pkts[i].grp (below nb_members, weight above 0), or
	 * LB_NONE when and only when the group has no live member.  Debug
	 * builds of the engine check every pick; release builds drop a
	 * packet whose pick is out of range as bad_pick.
	 */
	void (*pick)(void *state, const struct lb_pkt *pkts, uint16_t n,
		     const struct lb_view *view, uint64_t now_ns,
		     uint16_t *out);
	/*
	 * Report state for telemetry and stats: calls emit(arg, key, value)
	 * for a handful of counters (e.g. flowlet table hits).  May be NULL.
	 */
	void (*dump)(void *state,
		     void (*emit)(void *arg, const char *key, uint64_t value),
		     void *arg);
};

/*
 * NULL-terminated registry of every policy: the built-in ones in
 * documentation order (lb_registry.c), then any lb_register() added.
 */
extern const struct lb_ops *lb_registry[LB_MAX_POLICIES + 1];

/*
 * Add a policy, before any configuration is read (a constructor may call
 * it).  Returns 0, -EEXIST when the name is taken (in any case: the
 * config reads names so), -ENOSPC when the registry is full, -EINVAL when
 * ops lacks a required member (name, summary, create, destroy, pick), its
 * name or summary is empty, or its settings do not fit.
 */
int lb_register(const struct lb_ops *ops);

/* Look a policy up by name; NULL if unknown. */
const struct lb_ops *lb_find(const char *name);

/* The registered names into names (NULL-terminated); how many. */
unsigned int lb_name_list(const char **names);

/* A registered policy's index in the registry, -1 if not registered. */
int lb_index(const struct lb_ops *ops);

/* The registered names, comma separated, into buf, for messages. */
const char *lb_names(char *buf, unsigned int size);

/*
 * The registered policies to f, one "  <name>  <summary>" line each, the
 * names padded to one column, in registry order (ofan-switch --help).
 */
void lb_describe(FILE *f);

#endif /* OFAN_LB_H */
