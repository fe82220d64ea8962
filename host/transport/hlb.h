/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host-side load balancing: how a sender chooses the entropy value (EV,
 * the UDP source port) of each data packet (docs/architecture.md, "The host engine").
 *
 * Switches hash the 5-tuple, so the EV is the host's handle on the path:
 * keeping one EV is plain ECMP, a fresh EV per packet is oblivious
 * spraying, recycling the EVs of uncongested ACKs is REPS.  Policies are
 * per connection and small; they see plain feedback (echoed EV, CE bit,
 * RTT sample, timeouts), never packets, so they are unit tested without
 * EAL.
 *
 * Adding a policy: one hlb_<name>.c defining `const struct hlb_ops
 * hlb_<name>_ops` (its settings block, defaults and parse included), a
 * line in hlb_registry.c (or an hlb_register() call), its config section,
 * a test: docs/architecture.md walks through it.
 *
 * Ownership: the connection owns state_size bytes of policy state (zeroed
 * before init()); the host owns the RNG and passes it in.  Nothing is
 * shared between connections or threads.
 */
#ifndef OFAN_HLB_H
#define OFAN_HLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ofan_rng.h"

struct ofan_cfg;

/*
 * A policy's settings live in a block of its own, settings_size bytes of
 * an hlb_settings, that only the policy reads: its defaults() and parse()
 * fill it, and every hook gets it back in hlb_params.settings.
 */
#define HLB_MAX_POLICIES 16
#define HLB_SETTINGS_MAX 64

struct hlb_settings {
	_Alignas(8) unsigned char bytes[HLB_SETTINGS_MAX];
};

/* The settings of every registered policy, by registry position. */
struct hlb_settings_table {
	struct hlb_settings of[HLB_MAX_POLICIES];
};

struct hlb_ops;

/* Each registered policy's defaults() into its block (zeroed first). */
void hlb_settings_defaults(struct hlb_settings_table *t);

/*
 * Every registered policy's parse() over its own section, selected or
 * not.  Returns 0 or -EINVAL with the message recorded in cfg.
 */
int hlb_settings_from_cfg(struct ofan_cfg *cfg, struct hlb_settings_table *t);

/* The block of ops in t; NULL when ops has none or is not registered. */
const void *hlb_settings_of(const struct hlb_settings_table *t,
			    const struct hlb_ops *ops);

/*
 * What the policies of a host's connections share: the path facts the
 * host fills in (EV range, base RTT, BDP) and the chosen policy's
 * settings block.
 */
struct hlb_params {
	uint16_t ev_min;		/* EVs are in [ev_min, ev_max] */
	uint16_t ev_max;
	uint64_t base_rtt_ns;		/* unloaded round trip of a data packet */
	uint32_t bdp_pkts;		/* packets in one bandwidth-delay product */
	const void *settings;		/* the policy's block, or NULL */
};

/* Uniform random EV in [p->ev_min, p->ev_max]. */
static inline uint16_t
hlb_random_ev(const struct hlb_params *p, struct ofan_rng *rng)
{
	return (uint16_t)(p->ev_min +
		ofan_rng_below(rng, (uint32_t)p->ev_max - p->ev_min + 1));
}

/*
 * Uniform random EV in [p->ev_min, p->ev_max] other than cur, for a
 * policy that moves off a path and must not land on it again.  With a
 * single EV in the range there is no other: returns cur.
 */
static inline uint16_t
hlb_random_other_ev(const struct hlb_params *p, struct ofan_rng *rng,
		    uint16_t cur)
{
	uint32_t range = (uint32_t)p->ev_max - p->ev_min + 1;
	uint32_t r;

	if (range < 2)
		return cur;
	/* Draw among the range - 1 others, then step over cur. */
	r = ofan_rng_below(rng, range - 1);
	if (cur >= p->ev_min && r >= (uint32_t)(cur - p->ev_min))
		r++;
	return (uint16_t)(p->ev_min + r);
}

/*
 * A host policy.  name, summary, init, next_ev, on_ack and on_timeout are
 * required (hlb_register() refuses a policy without them, or with an
 * empty name or summary); every other member may be 0 or NULL, and the
 * host then skips it.  A policy's own test runs tests/lib/hlb_conformance.h's
 * checks of this contract on it.
 */
struct hlb_ops {
	const char *name;	/* as in the config: [host] policy = <name> */
	/* One line for --help and the docs (hlb_describe()). */
	const char *summary;
	/*
	 * The switch policy it needs, or NULL (any): an ofan-fabric scheme
	 * that names only this policy runs it through that switch policy
	 * (ecmp otherwise).
	 */
	const char *switch_policy;
	/* Bytes of the policy's settings block (<= HLB_SETTINGS_MAX); 0: none. */
	size_t settings_size;
	/* Fill the block, zeroed, with the defaults.  May be NULL (zeros). */
	void (*defaults)(void *settings);
	/*
	 * Read and validate this policy's [host.<name>] section into its
	 * block (the section may be absent).  Called for every registered
	 * policy at start-up.  May be NULL.  Returns 0 or -EINVAL with the
	 * message recorded in cfg.
	 */
	int (*parse)(struct ofan_cfg *cfg, void *settings);
	/*
	 * Bytes of per-connection state; 0: none.  No hook writes outside
	 * them.
	 */
	size_t state_size;
	/* A connection starts: set up st (zeroed, state_size bytes). */
	void (*init)(void *st, const struct hlb_params *p,
		     struct ofan_rng *rng, uint64_t now_ns);
	/*
	 * The EV of the next data packet of this connection (a first
	 * transmission or a retransmission), in [p->ev_min, p->ev_max]
	 * (debug builds of the host check it).  Called once per packet sent.
	 */
	uint16_t (*next_ev)(void *st, const struct hlb_params *p,
			    struct ofan_rng *rng, uint64_t now_ns);
	/*
	 * May be NULL (an ACK takes its data packet's EV).  The EV the
	 * receiver puts on the ACK of a data packet that came on ev; salt is
	 * a per-flow constant.  Called on the receiving host, which keeps no
	 * state of the connection: it may only compute.
	 */
	uint16_t (*ack_ev)(const struct hlb_params *p, uint32_t salt,
			   uint16_t ev);
	/*
	 * An ACK arrived for this connection.  ev and ce are echoed from the
	 * data packet that triggered it; rtt_ns is the RTT sample of that
	 * packet (0 if it was a retransmission and so ambiguous).
	 */
	void (*on_ack)(void *st, const struct hlb_params *p,
		       struct ofan_rng *rng, uint16_t ev, bool ce,
		       uint64_t rtt_ns, uint64_t now_ns);
	/*
	 * A NACK arrived: the data packet sent on ev was trimmed (ce: its
	 * header carried a mark).  May be NULL: on_ack() gets it, with an
	 * RTT of 0.
	 */
	void (*on_nack)(void *st, const struct hlb_params *p,
			struct ofan_rng *rng, uint16_t ev, bool ce,
			uint64_t now_ns);
	/*
	 * The connection's retransmission timer fired (SACK recovery), or
	 * with erasure recovery no ACK came for an RTO while packets were
	 * out -- unless the policy has on_path_timeout, which then replaces
	 * it with erasure recovery.
	 */
	void (*on_timeout)(void *st, const struct hlb_params *p,
			   struct ofan_rng *rng, uint64_t now_ns);
	/*
	 * Erasure recovery only; may be NULL.  next_ev() just chose ev, and
	 * a packet sent on ev has gone unacknowledged for longer than the
	 * RTO (the sender's per-EV timers, as the study's sender keeps them
	 * for REPS); the host then calls next_ev() again.
	 */
	void (*on_path_timeout)(void *st, const struct hlb_params *p,
				struct ofan_rng *rng, uint16_t ev,
				uint64_t now_ns);
	/*
	 * Report counters: emit(arg, key, value).  May be NULL.  The host
	 * first dumps a zeroed state, never init()ed, to learn the keys: it
	 * must give the keys of any other state, in the same order, each 0.
	 */
	void (*dump)(const void *st,
		     void (*emit)(void *arg, const char *key, uint64_t value),
		     void *arg);
};

/*
 * NULL-terminated registry: the built-in policies in documentation order
 * (hlb_registry.c), then any hlb_register() added.
 */
extern const struct hlb_ops *hlb_registry[HLB_MAX_POLICIES + 1];

/*
 * Add a policy before any configuration is read.  Returns 0, -EEXIST
 * when the name is taken (in any case: the config reads names so),
 * -ENOSPC when the registry is full, -EINVAL when ops lacks a required
 * member (name, summary, init, next_ev, on_ack, on_timeout), its name or
 * summary is empty, or its settings do not fit.
 */
int hlb_register(const struct hlb_ops *ops);

/* Look a policy up by name; NULL if unknown. */
const struct hlb_ops *hlb_find(const char *name);

/* The registered names into names (NULL-terminated); how many. */
unsigned int hlb_name_list(const char **names);

/* A registered policy's index in the registry, -1 if not registered. */
int hlb_index(const struct hlb_ops *ops);

/*
 * The registered policies to f, one "  <name>  <summary>" line each, the
 * names padded to one column, in registry order (for --help).
 */
void hlb_describe(FILE *f);

#endif /* OFAN_HLB_H */
