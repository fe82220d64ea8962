/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan: destination-based rotation (DR).
 *
 * Where it sits: the load-balancing stage of the switch pipeline.  For
 * each destination key and packet kind (data, ACK) the instance keeps a
 * rotation pointer into its group's cycle; each packet takes the member
 * under the pointer and advances it.  So the packets this instance sends
 * toward one destination are spread exactly evenly over the live members:
 * at every prefix of the stream the per-member counts differ by at most
 * one (unweighted).  That keeps downstream queues bounded at full load,
 * where random spraying's queues grow like a random walk.  Pointers are
 * per instance, that is per lcore, so with k lcores the bound is k.
 *
 * The cycle of a group: the members are shuffled once ([ofan] shuffle),
 * with an rng seeded from (seed, group id), so every rebuild of the group
 * gives the same order.  The live members' weights are divided by their
 * gcd and the cycle is the interleaved weighted round robin
 *	for r in 0 .. max_w - 1:
 *		for m in shuffled order with w_m > r: emit m
 * Round r holds each member at most once, so every member is served before
 * any is served twice; a member can still follow itself across a round
 * boundary.  Dead members (weight 0) never appear.  A cycle is at most
 * LB_OFAN_MAX_CYCLE entries: larger weights are scaled down to
 * max(1, w * (LB_OFAN_MAX_CYCLE - nb_live) / sum), which keeps every live
 * member and the proportions to within one entry each.
 *
 * Pointers: the first packet to a destination sets both its pointers, the
 * data pointer at a seeded random position ([ofan] random_start) and the
 * ACK pointer half a cycle further, so that data and ACKs toward one
 * destination do not start on the same member.  A pointer remembers the
 * group version and cycle length it refers to; after group_changed() its
 * next packet rescales the position to the new cycle (pos * new / old,
 * which keeps the data/ACK offset and the spread of starts) before
 * picking, so a dead member is skipped from the very next packet.  With
 * [ofan] nudge_cycles = N, every N full cycles a pointer skips one extra
 * position, shifting its phase against other switches' rotations; the
 * skip happens when every member has had its share, so evenness holds.
 *
 * Trade-off: per-destination state (32 bytes per destination key) and
 * packet reordering within a flow, for exact evenness per destination.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lb.h"
#include "lb_ofan.h"
#include "ofan_config.h"
#include "ofan_rng.h"

#define LB_OFAN_MAX_CYCLE 1024
#define LB_OFAN_MAX_NUDGE 1000000
#define LB_OFAN_SHUFFLE_STREAM 0x4f66616e00000000ull
#define LB_OFAN_START_STREAM 0x5374617274ull

struct lb_ofan_group {
	uint32_t version;	/* 0: group_changed() never called */
	uint16_t len;		/* cycle length, 0 when nothing is live */
	uint16_t nb_order;
	uint8_t order[LB_MAX_MEMBERS];	/* shuffled member indexes */
	uint8_t cycle[LB_OFAN_MAX_CYCLE];
} __attribute__((aligned(64)));

/* One per (destination key, kind); 16 bytes. */
struct lb_ofan_ptr {
	uint32_t version;	/* group version pos refers to */
	uint16_t pos;		/* next position in the cycle */
	uint16_t len;		/* cycle length at that version, 0 = unused */
	uint16_t left;		/* packets left in the current full cycle */
	uint16_t group;
	uint32_t cycles;	/* full cycles since the last nudge */
};

struct lb_ofan {
	uint64_t seed;
	uint32_t start_salt;
	uint32_t nudge_cycles;
	uint8_t shuffle;
	uint8_t random_start;
	uint32_t nb_groups;
	uint32_t nb_dst_keys;
	uint32_t version_seq;	/* source of group versions */
	uint64_t nb_dsts;	/* destinations seen */
	uint64_t nb_nudges;
	struct lb_ofan_group *groups;
	struct lb_ofan_ptr *ptrs;	/* [dst_key * LB_NB_KINDS + kind] */
} __attribute__((aligned(64)));

static void
lb_ofan_defaults(void *settings)
{
	struct lb_ofan_settings *s = settings;

	s->nudge_cycles = 0;
	s->shuffle = 1;
	s->random_start = 1;
}

static int
lb_ofan_parse(struct ofan_cfg *cfg, void *settings)
{
	struct lb_ofan_settings *s = settings;
	uint32_t nudge = s->nudge_cycles;
	bool shuffle = s->shuffle != 0;
	bool random_start = s->random_start != 0;
	int ret;

	ret = ofan_cfg_get_u32(cfg, "ofan", "nudge_cycles", 0, 0,
			       LB_OFAN_MAX_NUDGE, &nudge);
	if (ret < 0)
		return ret;
	ret = ofan_cfg_get_bool(cfg, "ofan", "shuffle", 0, &shuffle);
	if (ret < 0)
		return ret;
	ret = ofan_cfg_get_bool(cfg, "ofan", "random_start", 0,
				&random_start);
	if (ret < 0)
		return ret;
	s->nudge_cycles = nudge;
	s->shuffle = shuffle;
	s->random_start = random_start;
	return 0;
}

static void
lb_ofan_destroy(void *state)
{
	struct lb_ofan *st = state;

	if (st == NULL)
		return;
	free(st->groups);
	free(st->ptrs);
	free(st);
}

static int
lb_ofan_create(const struct lb_params *p, void **state)
{
	size_t groups_size = (size_t)p->nb_groups *
			     sizeof(struct lb_ofan_group);
	size_t ptrs_size = (size_t)p->nb_dst_keys * LB_NB_KINDS *
			   sizeof(struct lb_ofan_ptr);
	const struct lb_ofan_settings *s = p->settings;
	struct ofan_rng rng;
	struct lb_ofan *st;
	void *mem;

	if (p->nb_groups == 0 || p->nb_dst_keys == 0 || s == NULL)
		return -EINVAL;
	if (posix_memalign((void **)&st, 64, sizeof(*st)) != 0)
		return -ENOMEM;
	memset(st, 0, sizeof(*st));
	if (posix_memalign(&mem, 64, groups_size) != 0)
		goto nomem;
	memset(mem, 0, groups_size);
	st->groups = mem;
	if (posix_memalign(&mem, 64, ptrs_size) != 0)
		goto nomem;
	memset(mem, 0, ptrs_size);
	st->ptrs = mem;

	ofan_rng_seed(&rng, p->seed, LB_OFAN_START_STREAM);
	st->seed = p->seed;
	st->start_salt = (uint32_t)(ofan_rng_next(&rng) >> 32);
	st->nudge_cycles = s->nudge_cycles;
	st->shuffle = s->shuffle;
	st->random_start = s->random_start;
	st->nb_groups = p->nb_groups;
	st->nb_dst_keys = p->nb_dst_keys;
	*state = st;
	return 0;
nomem:
	lb_ofan_destroy(st);
	return -ENOMEM;
}

/* Divide the live weights w[] (indexed by member) by their gcd. */
static uint32_t
lb_ofan_reduce(const struct lb_group *grp, uint32_t *w)
{
	uint32_t g = 0, sum = 0;
	uint16_t k;

	for (k = 0; k < grp->nb_live; k++)
		g = lb_gcd(g, w[grp->live[k]]);
	for (k = 0; k < grp->nb_live; k++) {
		w[grp->live[k]] /= g;
		sum += w[grp->live[k]];
	}
	return sum;
}

static void
lb_ofan_build_cycle(struct lb_ofan_group *g, const struct lb_group *grp)
{
	uint32_t w[LB_MAX_MEMBERS] = { 0 };
	uint32_t sum, max_w = 0, r;
	uint16_t k, len = 0;

	for (k = 0; k < grp->nb_live; k++)
		w[grp->live[k]] = grp->weight[grp->live[k]];
	sum = lb_ofan_reduce(grp, w);
	if (sum > LB_OFAN_MAX_CYCLE) {
		/* max(1, floor(x)) <= x + 1, so the new sum is at most MAX. */
		uint64_t budget = LB_OFAN_MAX_CYCLE - grp->nb_live;

		for (k = 0; k < grp->nb_live; k++) {
			uint32_t *wm = &w[grp->live[k]];

			*wm = (uint32_t)(*wm * budget / sum);
			if (*wm == 0)
				*wm = 1;
		}
		lb_ofan_reduce(grp, w);
	}
	for (k = 0; k < grp->nb_live; k++)
		if (w[grp->live[k]] > max_w)
			max_w = w[grp->live[k]];
	for (r = 0; r < max_w; r++)
		for (k = 0; k < g->nb_order; k++)
			if (w[g->order[k]] > r)
				g->cycle[len++] = g->order[k];
	g->len = len;
}

static void
lb_ofan_group_changed(void *state, const struct lb_group *grp)
{
	struct lb_ofan *st = state;
	struct lb_ofan_group *g;
	uint16_t order[LB_MAX_MEMBERS];
	uint16_t k;

	/* An id outside the instance's range is a caller bug; ignore it. */
	if (grp->id >= st->nb_groups)
		return;
	g = &st->groups[grp->id];
	g->nb_order = grp->nb_members;
	for (k = 0; k < grp->nb_members; k++)
		order[k] = k;
	if (st->shuffle) {
		struct ofan_rng rng;

		ofan_rng_seed(&rng, st->seed, LB_OFAN_SHUFFLE_STREAM + grp->id);
		ofan_rng_shuffle_u16(&rng, order, grp->nb_members);
	}
	for (k = 0; k < grp->nb_members; k++)
		g->order[k] = (uint8_t)order[k];
	lb_ofan_build_cycle(g, grp);
	/* Never 0, which marks a group that was never set up. */
	if (++st->version_seq == 0)
		st->version_seq = 1;
	g->version = st->version_seq;
}

static void
lb_ofan_ptr_set(struct lb_ofan_ptr *ptr, const struct lb_ofan_group *g,
		uint16_t group, uint16_t pos)
{
	ptr->version = g->version;
	ptr->pos = pos;
	ptr->len = g->len;
	ptr->left = g->len;
	ptr->group = group;
	ptr->cycles = 0;
}

/*
 * Slow path of pick(): the pointer has never been used, or its group
 * changed since.  g has a non-empty cycle.
 */
static void
lb_ofan_ptr_sync(struct lb_ofan *st, const struct lb_ofan_group *g,
		 uint16_t group, uint32_t dst_key, struct lb_ofan_ptr *ptr)
{
	struct lb_ofan_ptr *pair = &st->ptrs[(size_t)dst_key * LB_NB_KINDS];
	uint16_t start = 0;

	if (ptr->len == 0) {
		if (st->random_start) {
			uint32_t h = ofan_hash_mix32(st->start_salt ^ dst_key);

			start = (uint16_t)(((uint64_t)h * g->len) >> 32);
		}
		lb_ofan_ptr_set(&pair[LB_KIND_DATA], g, group, start);
		lb_ofan_ptr_set(&pair[LB_KIND_ACK], g, group,
				(uint16_t)((start + g->len / 2) % g->len));
		st->nb_dsts++;
		return;
	}
	lb_ofan_ptr_set(ptr, g, group,
			(uint16_t)((uint32_t)ptr->pos * g->len / ptr->len));
}

static void
lb_ofan_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
	     const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct lb_ofan *st = state;
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct lb_pkt *pkt = &pkts[i];
		uint16_t group = pkt->grp->id;
		const struct lb_ofan_group *g = &st->groups[group];
		struct lb_ofan_ptr *ptr;

		if (g->len == 0) {
			out[i] = LB_NONE;
			continue;
		}
		ptr = &st->ptrs[(size_t)pkt->dst_key * LB_NB_KINDS +
				(pkt->kind == LB_KIND_ACK)];
		if (ptr->version != g->version || ptr->group != group)
			lb_ofan_ptr_sync(st, g, group, pkt->dst_key, ptr);
		out[i] = g->cycle[ptr->pos];
		if (++ptr->pos == g->len)
			ptr->pos = 0;
		if (--ptr->left != 0)
			continue;
		/* A full cycle since the last boundary: every member served. */
		ptr->left = g->len;
		if (st->nudge_cycles != 0 &&
		    ++ptr->cycles == st->nudge_cycles) {
			ptr->cycles = 0;
			if (++ptr->pos == g->len)
				ptr->pos = 0;
			st->nb_nudges++;
		}
	}
}

static void
lb_ofan_dump(void *state,
	     void (*emit)(void *arg, const char *key, uint64_t value),
	     void *arg)
{
	const struct lb_ofan *st = state;
	uint64_t min_len = UINT64_MAX, max_len = 0, nb_groups = 0;
	uint32_t i;

	for (i = 0; i < st->nb_groups; i++) {
		const struct lb_ofan_group *g = &st->groups[i];

		if (g->version == 0)
			continue;
		nb_groups++;
		if (g->len < min_len)
			min_len = g->len;
		if (g->len > max_len)
			max_len = g->len;
	}
	emit(arg, "destinations", st->nb_dsts);
	emit(arg, "nudges", st->nb_nudges);
	emit(arg, "groups", nb_groups);
	emit(arg, "cycle_len_min", nb_groups != 0 ? min_len : 0);
	emit(arg, "cycle_len_max", max_len);
}

const struct lb_ops lb_ofan_ops = {
	.name = "ofan",
	.summary = "destination-based rotation, exactly even per destination",
	.uses_flow_hash = false,
	.uses_queue_levels = false,
	.settings_size = sizeof(struct lb_ofan_settings),
	.defaults = lb_ofan_defaults,
	.parse = lb_ofan_parse,
	.create = lb_ofan_create,
	.destroy = lb_ofan_destroy,
	.group_changed = lb_ofan_group_changed,
	.pick = lb_ofan_pick,
	.dump = lb_ofan_dump,
};
