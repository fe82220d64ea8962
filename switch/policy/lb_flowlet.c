/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flowlet: a flow keeps its member until it has been idle for longer than
 * the flowlet gap; the next packet then starts a new flowlet on a member
 * picked anew (at random, or the least loaded one; in proportion to the
 * members' weights, or among the tied least loaded, once routing has
 * weighted the group after a failure).
 *
 * Where it sits: the load-balancing stage of the switch pipeline.  State
 * is a direct-mapped flow table of [flowlet] table_size entries indexed by
 * flow_hash & (table_size - 1).  An entry remembers the full hash (tag),
 * the group, the member and when the flow was last seen.  A packet keeps
 * the entry's member only if the tag and group match, the member is still
 * live and the flow was seen no more than gap_ns ago; otherwise it starts
 * a new flowlet and overwrites the entry.  When a member dies its flows
 * therefore move at their next packet, without any sweep of the table.
 *
 * Trade-off: if the gap exceeds the difference in path delays, a flowlet
 * switch does not reorder packets; but RDMA-like traffic that never pauses
 * never switches, and two flows sharing an entry evict each other (each
 * eviction is a new flowlet, counted in "evictions").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lb.h"
#include "lb_flowlet.h"
#include "ofan_config.h"
#include "ofan_rng.h"

#define LB_FLOWLET_STREAM 0x466c6f776c6574ull
#define LB_FLOWLET_MIN_SIZE 64u
#define LB_FLOWLET_MAX_SIZE (1u << 22)
#define LB_FLOWLET_MAX_GAP_NS 1000000000ull

/* 16 bytes, so four entries share a cache line and none straddles two. */
struct lb_flowlet_entry {
	uint64_t last_seen_ns;
	uint32_t tag;		/* the flow's full hash */
	uint16_t group;
	uint16_t member;	/* LB_NONE: entry unused */
};

struct lb_flowlet {
	struct ofan_rng rng;
	uint64_t gap_ns;
	uint32_t mask;		/* table_size - 1 */
	uint8_t repick;		/* enum lb_flowlet_repick */
	uint64_t nb_flowlets;	/* packets that started a flowlet */
	uint64_t nb_hits;	/* packets that kept their flowlet's member */
	uint64_t nb_evictions;	/* flowlets cut short by another flow */
	struct lb_flowlet_entry *table;
} __attribute__((aligned(64)));

static void
lb_flowlet_defaults(void *settings)
{
	struct lb_flowlet_settings *s = settings;

	s->gap_ns = 50 * 1000;
	s->table_size = 4096;
	s->repick = LB_FLOWLET_RANDOM;
}

static int
lb_flowlet_parse(struct ofan_cfg *cfg, void *settings)
{
	struct lb_flowlet_settings *s = settings;
	static const char *const repick_names[] = {
		[LB_FLOWLET_RANDOM] = "random",
		[LB_FLOWLET_LEAST_LOADED] = "least_loaded",
		NULL,
	};
	uint64_t gap_ns = s->gap_ns;
	uint32_t size = s->table_size;
	int repick = s->repick;
	int ret;

	ret = ofan_cfg_get_time(cfg, "flowlet", "gap", 0, 1,
				LB_FLOWLET_MAX_GAP_NS, &gap_ns);
	if (ret < 0)
		return ret;
	ret = ofan_cfg_get_u32(cfg, "flowlet", "table_size", 0,
			       LB_FLOWLET_MIN_SIZE, LB_FLOWLET_MAX_SIZE, &size);
	if (ret < 0)
		return ret;
	if ((size & (size - 1)) != 0)
		return ofan_cfg_fail(cfg, "flowlet", "table_size",
				     "'%u' is not a power of two; expected a power of two in [%u, %u]",
				     size, LB_FLOWLET_MIN_SIZE,
				     LB_FLOWLET_MAX_SIZE);
	ret = ofan_cfg_get_enum(cfg, "flowlet", "repick", 0, repick_names,
				&repick);
	if (ret < 0)
		return ret;
	s->gap_ns = gap_ns;
	s->table_size = size;
	s->repick = (uint8_t)repick;
	return 0;
}

static int
lb_flowlet_create(const struct lb_params *p, void **state)
{
	const struct lb_flowlet_settings *s = p->settings;
	uint32_t size = s != NULL ? s->table_size : 0;
	struct lb_flowlet *st;
	void *mem;
	uint32_t i;

	if (size == 0 || (size & (size - 1)) != 0 ||
	    s->repick > LB_FLOWLET_LEAST_LOADED)
		return -EINVAL;
	if (posix_memalign((void **)&st, 64, sizeof(*st)) != 0)
		return -ENOMEM;
	memset(st, 0, sizeof(*st));
	if (posix_memalign(&mem, 64, (size_t)size * sizeof(*st->table)) != 0) {
		free(st);
		return -ENOMEM;
	}
	st->table = mem;
	for (i = 0; i < size; i++) {
		st->table[i].last_seen_ns = 0;
		st->table[i].tag = 0;
		st->table[i].group = 0;
		st->table[i].member = LB_NONE;
	}
	ofan_rng_seed(&st->rng, p->seed, LB_FLOWLET_STREAM);
	st->gap_ns = s->gap_ns;
	st->mask = size - 1;
	st->repick = s->repick;
	*state = st;
	return 0;
}

static void
lb_flowlet_destroy(void *state)
{
	struct lb_flowlet *st = state;

	if (st == NULL)
		return;
	free(st->table);
	free(st);
}

/* Liveness is checked per packet against the group: nothing to rebuild. */
static void
lb_flowlet_group_changed(void *state, const struct lb_group *grp)
{
}

/* A new flowlet's member; grp has at least one live member. */
static uint16_t
lb_flowlet_repick(const struct lb_flowlet *st, const struct lb_group *grp,
		  const struct lb_view *view, struct ofan_rng *rng)
{
	uint16_t tied[LB_MAX_MEMBERS];
	unsigned int best = UINT8_MAX + 1;
	unsigned int nb_tied = 0;
	uint16_t k;

	if (st->repick == LB_FLOWLET_RANDOM || view == NULL ||
	    view->port_level == NULL)
		return lb_group_random(grp, rng);
	for (k = 0; k < grp->nb_live; k++) {
		uint16_t m = grp->live[k];
		unsigned int lvl = view->port_level[grp->port[m]];

		if (lvl < best) {
			best = lvl;
			nb_tied = 0;
		}
		if (lvl == best)
			tied[nb_tied++] = m;
	}
	return lb_group_random_among(grp, tied, nb_tied, rng);
}

static void
lb_flowlet_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
		const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct lb_flowlet *st = state;
	struct ofan_rng rng = st->rng;	/* in registers for the burst */
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct lb_group *grp = pkts[i].grp;
		uint32_t hash = pkts[i].flow_hash;
		struct lb_flowlet_entry *e = &st->table[hash & st->mask];
		int same_flow;

		if (grp->nb_live == 0) {
			out[i] = LB_NONE;
			continue;
		}
		same_flow = e->member != LB_NONE && e->tag == hash &&
			    e->group == grp->id;
		if (same_flow && e->member < grp->nb_members &&
		    grp->weight[e->member] > 0 &&
		    now_ns - e->last_seen_ns <= st->gap_ns) {
			st->nb_hits++;
		} else {
			if (e->member != LB_NONE && !same_flow &&
			    now_ns - e->last_seen_ns <= st->gap_ns)
				st->nb_evictions++;
			e->tag = hash;
			e->group = grp->id;
			e->member = lb_flowlet_repick(st, grp, view, &rng);
			st->nb_flowlets++;
		}
		e->last_seen_ns = now_ns;
		out[i] = e->member;
	}
	st->rng = rng;
}

static void
lb_flowlet_dump(void *state,
		void (*emit)(void *arg, const char *key, uint64_t value),
		void *arg)
{
	const struct lb_flowlet *st = state;

	emit(arg, "flowlets", st->nb_flowlets);
	emit(arg, "hits", st->nb_hits);
	emit(arg, "evictions", st->nb_evictions);
}

const struct lb_ops lb_flowlet_ops = {
	.name = "flowlet",
	.summary = "per-flow member until an idle gap, then repick",
	.uses_flow_hash = true,
	.uses_queue_levels = true,
	.settings_size = sizeof(struct lb_flowlet_settings),
	.defaults = lb_flowlet_defaults,
	.parse = lb_flowlet_parse,
	.create = lb_flowlet_create,
	.destroy = lb_flowlet_destroy,
	.group_changed = lb_flowlet_group_changed,
	.pick = lb_flowlet_pick,
	.dump = lb_flowlet_dump,
};
