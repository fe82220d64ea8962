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
 */
#include <errno.h>
#include <stdlib.h>

#include "lb.h"
#include "ofan_rng.h"

#define LB_RR_STREAM 0x5252ull

struct lb_rr {
	uint64_t counter;
} __attribute__((aligned(64)));

static int
lb_rr_create(const struct lb_params *p, void **state)
{
	struct ofan_rng rng;
	struct lb_rr *st;

	if (posix_memalign((void **)&st, 64, sizeof(*st)) != 0)
		return -ENOMEM;
	ofan_rng_seed(&rng, p->seed, LB_RR_STREAM);
	st->counter = ofan_rng_next(&rng) >> 32;
	*state = st;
	return 0;
}

static void
lb_rr_destroy(void *state)
{
	free(state);
}

static void
lb_rr_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
	   const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct lb_rr *st = state;
	uint64_t counter = st->counter;
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct lb_group *grp = pkts[i].grp;

		if (grp->nb_live == 0) {
			out[i] = LB_NONE;
			continue;
		}
		out[i] = grp->weighted ?
			lb_group_at_weight(grp, (uint32_t)(counter++ %
						grp->total_weight)) :
			grp->live[counter++ % grp->nb_live];
	}
	st->counter = counter;
}

const struct lb_ops lb_rr_ops = {
	.name = "rr",
	.summary = "one round-robin counter shared by all destinations",
	.uses_flow_hash = false,
	.uses_queue_levels = false,
	.parse = NULL,
	.create = lb_rr_create,
	.destroy = lb_rr_destroy,
	.pick = lb_rr_pick,
	.dump = NULL,
};
