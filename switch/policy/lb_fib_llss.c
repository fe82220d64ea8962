/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fib_llss: round robin over a destination's FIB entries, htsim's
 * FIB_LLSS (-strat fib_llss) in the mode it runs once a failure exists.
 * Each switch keeps a counter per destination key (the destination ToR
 * at a ToR, the destination pod above) and per kind (data, ACK), started
 * at a random value on first use; a packet takes entry counter % n of
 * its group's live members in member order and advances the counter.
 * Once routing weights the group (WCMP after a failure) each member
 * stands in the list as many consecutive times as its weight, as htsim's
 * weighted FIB repeats each entry.
 *
 * It differs from ofan (per destination too) in what it rotates over:
 * the FIB's list in order, each kind on its own, where ofan rotates a
 * shuffled order with its nudges.  htsim switches to this mode when any
 * failure is configured and runs its weighted LLSS schedule before; ofan
 * always runs this mode (docs/htsim.md).
 */
#include <errno.h>
#include <stdlib.h>

#include "lb.h"
#include "ofan_rng.h"

#define LB_FIB_LLSS_STREAM 0xf1bull

struct lb_fib_llss {
	uint32_t nb_keys;
	struct ofan_rng rng;
	uint64_t *ptr;		/* [dst_key * 2 + kind], started below */
	uint8_t *started;
};

static int
lb_fib_llss_create(const struct lb_params *p, void **state)
{
	struct lb_fib_llss *st;
	uint32_t n = p->nb_dst_keys > 0 ? p->nb_dst_keys : 1;

	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	st->nb_keys = n;
	st->ptr = calloc((size_t)n * LB_NB_KINDS, sizeof(*st->ptr));
	st->started = calloc((size_t)n * LB_NB_KINDS, 1);
	if (st->ptr == NULL || st->started == NULL) {
		free(st->ptr);
		free(st->started);
		free(st);
		return -ENOMEM;
	}
	ofan_rng_seed(&st->rng, p->seed, LB_FIB_LLSS_STREAM);
	*state = st;
	return 0;
}

static void
lb_fib_llss_destroy(void *state)
{
	struct lb_fib_llss *st = state;

	free(st->ptr);
	free(st->started);
	free(st);
}

static void
lb_fib_llss_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
	       const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct lb_fib_llss *st = state;
	uint16_t i;

	(void)view;
	(void)now_ns;
	for (i = 0; i < n; i++) {
		const struct lb_group *grp = pkts[i].grp;
		uint32_t slot = (pkts[i].dst_key % st->nb_keys) * LB_NB_KINDS +
			(pkts[i].kind == LB_KIND_ACK);
		uint64_t c;

		if (grp->nb_live == 0) {
			out[i] = LB_NONE;
			continue;
		}
		if (!st->started[slot]) {
			st->started[slot] = 1;
			st->ptr[slot] = ofan_rng_next(&st->rng) >> 32;
		}
		c = st->ptr[slot]++;
		out[i] = grp->weighted ?
			lb_group_at_weight(grp, (uint32_t)(c % grp->total_weight)) :
			grp->live[c % grp->nb_live];
	}
}

const struct lb_ops lb_fib_llss_ops = {
	.name = "fib_llss",
	.summary = "round robin over the FIB per destination and kind, weighted entries repeated (htsim's fib_llss)",
	.uses_flow_hash = false,
	.uses_queue_levels = false,
	.create = lb_fib_llss_create,
	.destroy = lb_fib_llss_destroy,
	.pick = lb_fib_llss_pick,
};
