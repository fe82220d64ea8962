/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rr: one round-robin counter per switch instance, shared by every
 * destination and every group: member = live[counter++ % nb_live].  Once
 * routing has weighted a group (WCMP after a failure) the counter runs
 * over its total weight and each member takes as many consecutive turns
 * as its weight (htsim's weighted FIB, which repeats each entry).
 *
 * Where it sits: the load-balancing stage of the switch pipeline.  It is
 * the ablation of ofan: the same rotation, but not per destination.  The
 * aggregate leaving the switch is spread exactly evenly, yet the packets
 * toward any one destination are not: with two destinations alternating
 * over two members, each destination always gets the same member.  So
 * downstream queues, which see one destination's share, are not bounded.
 *
 * The counter starts at a seeded value so that switches do not all start
 * in phase.  It is 64 bits wide so that it never wraps in a run, since a
 * wrap would break the rotation when nb_live is not a power of two.
 *
 * [rr] permute = P (htsim's RR, fat_tree_switch.cpp): members are taken
 * in an order that is shuffled now and then.  A ToR (tier 0) has one
 * order for all its groups (htsim's shared _uproutes), shuffled at the
 * start; a switch above keeps an order per group, starting as the
 * group's own.  The shared counter starts at 0, only groups of two or
 * more members use it (htsim skips single routes), and once it reaches
 * P x the live members of the group being picked for it goes back to 0
 * and that order is shuffled.  Within P rounds every member gets P
 * turns; at the seams one may get two in a row while another waits.
 * P = 5 is htsim's; 0 (the default) is the fixed rotation above.  A
 * weighted group keeps its weighted rotation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lb_rr.h"
#include "ofan_config.h"
#include "ofan_rng.h"

#define LB_RR_STREAM 0x5252ull

/* A group's member order under permute (indexes into its live[]). */
struct lb_rr_order {
	uint32_t version;	/* the group's, when the order was made */
	uint16_t nb;		/* its nb_live then; 0: not made yet */
	uint16_t at[LB_MAX_MEMBERS];
};

struct lb_rr {
	uint64_t counter;
	uint32_t permute;
	uint32_t nb_groups;
	bool shared;		/* a ToR: one order for every group */
	struct ofan_rng rng;	/* the shuffles */
	struct lb_rr_order *order;	/* per group, permute only */
} __attribute__((aligned(64)));

static void
lb_rr_defaults(void *settings)
{
	struct lb_rr_settings *s = settings;

	s->permute = 0;
}

int
lb_rr_parse_section(struct ofan_cfg *cfg, const char *section,
		    struct lb_rr_settings *s)
{
	return ofan_cfg_get_u32(cfg, section, "permute", 0, 0,
				LB_RR_MAX_PERMUTE, &s->permute);
}

static int
lb_rr_parse(struct ofan_cfg *cfg, void *settings)
{
	return lb_rr_parse_section(cfg, "rr", settings);
}

static int
lb_rr_create(const struct lb_params *p, void **state)
{
	const struct lb_rr_settings *s = p->settings;
	struct ofan_rng rng;
	struct lb_rr *st;

	if (posix_memalign((void **)&st, 64, sizeof(*st)) != 0)
		return -ENOMEM;
	memset(st, 0, sizeof(*st));
	ofan_rng_seed(&rng, p->seed, LB_RR_STREAM);
	st->counter = ofan_rng_next(&rng) >> 32;
	st->permute = s != NULL ? s->permute : 0;
	if (st->permute != 0) {
		st->counter = 0;	/* htsim's _crt_route */
		st->rng = rng;
		st->nb_groups = p->nb_groups;
		st->shared = p->tier == 0;
		st->order = calloc(p->nb_groups ? p->nb_groups : 1,
				   sizeof(*st->order));
		if (st->order == NULL) {
			free(st);
			return -ENOMEM;
		}
	}
	*state = st;
	return 0;
}

static void
lb_rr_destroy(void *state)
{
	struct lb_rr *st = state;

	free(st->order);
	free(st);
}

/* Shuffle o's n entries (htsim's permute_paths: Fisher-Yates from the end). */
static void
lb_rr_shuffle(struct lb_rr *st, struct lb_rr_order *o)
{
	uint16_t i, n = o->nb;

	for (i = 0; i + 1 < n; i++) {
		uint16_t ix = (uint16_t)ofan_rng_below(&st->rng,
						       (uint32_t)(n - i));
		uint16_t t = o->at[ix];

		o->at[ix] = o->at[n - 1 - i];
		o->at[n - 1 - i] = t;
	}
}

/* The member htsim's RR takes for a packet of group grp. */
static uint16_t
lb_rr_permuted(struct lb_rr *st, const struct lb_group *grp)
{
	struct lb_rr_order *o = &st->order[st->shared ? 0 :
					   grp->id < st->nb_groups ?
					   grp->id : 0];
	uint16_t i;

	if (grp->nb_live == 1)
		return grp->live[0];	/* no choice: the counter stays */
	if (o->nb != grp->nb_live ||
	    (!st->shared && o->version != grp->version)) {
		/* New, or its live members changed: a fresh order (a
		 * ToR's shuffled, as htsim permutes its up routes). */
		o->nb = grp->nb_live;
		o->version = grp->version;
		for (i = 0; i < o->nb; i++)
			o->at[i] = i;
		if (st->shared)
			lb_rr_shuffle(st, o);
	}
	if (st->counter >= (uint64_t)st->permute * grp->nb_live) {
		st->counter = 0;
		lb_rr_shuffle(st, o);
	}
	return grp->live[o->at[st->counter++ % grp->nb_live]];
}

static void
lb_rr_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
	   const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct lb_rr *st = state;
	uint64_t counter = st->counter;
	uint16_t i;

	if (st->permute != 0) {
		for (i = 0; i < n; i++) {
			const struct lb_group *grp = pkts[i].grp;

			if (grp->nb_live == 0)
				out[i] = LB_NONE;
			else if (grp->weighted)
				out[i] = lb_group_at_weight(grp,
					(uint32_t)(st->counter++ %
						   grp->total_weight));
			else
				out[i] = lb_rr_permuted(st, grp);
		}
		return;
	}
	/* The fixed rotation: one counter, a division per packet. */
	for (i = 0; i < n; i++) {
		const struct lb_group *grp = pkts[i].grp;
		const uint16_t nb_live = grp->nb_live;

		if (__builtin_expect(nb_live != 0 && !grp->weighted, 1))
			out[i] = grp->live[counter++ % nb_live];
		else if (nb_live == 0)
			out[i] = LB_NONE;
		else
			out[i] = lb_group_at_weight(grp, (uint32_t)(counter++ %
						    grp->total_weight));
	}
	st->counter = counter;
}

const struct lb_ops lb_rr_ops = {
	.name = "rr",
	.summary = "one round-robin counter shared by all destinations",
	.uses_flow_hash = false,
	.uses_queue_levels = false,
	.settings_size = sizeof(struct lb_rr_settings),
	.defaults = lb_rr_defaults,
	.parse = lb_rr_parse,
	.create = lb_rr_create,
	.destroy = lb_rr_destroy,
	.pick = lb_rr_pick,
	.dump = NULL,
};
