/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spray: switch-based random packet spraying.  Each packet goes to a live
 * member of its group chosen at random: uniformly, or in proportion to
 * the members' weights once routing has weighted them (WCMP after a
 * failure, as the study's simulator's weighted FIB does).
 *
 * Where it sits: the load-balancing stage of the switch pipeline; it reads
 * nothing but the group's live list.  The random stream comes from
 * lb_params.seed (per switch and lcore), so a run is reproducible.
 *
 * Trade-off: the long-run spread is even and needs no state, but over a
 * short window the counts per member wander like a random walk, so the
 * downstream queues grow with load and time (what ofan's rotation avoids),
 * and packets of one flow are reordered.
 */
#include <errno.h>
#include <stdlib.h>

#include "lb.h"
#include "ofan_rng.h"

/* Stream id for ofan_rng_seed(), so that policies draw unrelated streams. */
#define LB_SPRAY_STREAM 0x5370726179ull

struct lb_spray {
	struct ofan_rng rng;
} __attribute__((aligned(64)));

static int
lb_spray_create(const struct lb_params *p, void **state)
{
	struct lb_spray *st;

	if (posix_memalign((void **)&st, 64, sizeof(*st)) != 0)
		return -ENOMEM;
	ofan_rng_seed(&st->rng, p->seed, LB_SPRAY_STREAM);
	*state = st;
	return 0;
}

static void
lb_spray_destroy(void *state)
{
	free(state);
}

static void
lb_spray_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
	      const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct lb_spray *st = state;
	struct ofan_rng rng = st->rng;	/* in registers for the burst */
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct lb_group *grp = pkts[i].grp;

		if (grp->nb_live == 0) {
			out[i] = LB_NONE;
			continue;
		}
		out[i] = lb_group_random(grp, &rng);
	}
	st->rng = rng;
}

const struct lb_ops lb_spray_ops = {
	.name = "spray",
	.summary = "uniform random member per packet",
	.uses_flow_hash = false,
	.uses_queue_levels = false,
	.parse = NULL,
	.create = lb_spray_create,
	.destroy = lb_spray_destroy,
	.pick = lb_spray_pick,
	.dump = NULL,
};
