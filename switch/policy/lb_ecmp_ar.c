/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ecmp_ar: ECMP with adaptive escape, htsim's ECMP_ADAPTIVE (-strat
 * ecmp_ar).  Each packet first takes its ECMP member (the flow hash
 * through ecmp's bucket table, so weights and failures act as in ecmp).
 * Then, for half of the packets (an independent coin flip per packet),
 * when that member's queue is at the worst level among the group's live
 * members, the packet goes instead to one of the members at the best
 * level, at random (in proportion to their weights when the group is
 * weighted).  The levels are the engine's quantised queue levels
 * (lb_view); htsim's are 5, 10 and 20 % of the queue, which
 * [queue] level_thresholds = 0.05, 0.1, 0.2 reproduces.
 *
 * So when every queue is at the same level (all empty, say) the hashed
 * member is "the worst", and half of the packets are sprayed over the
 * whole group: htsim does the same.  A flow's packets can therefore be
 * reordered, unlike ecmp's.
 *
 * State: an ecmp instance and a random stream (this lcore's).
 */
#include <errno.h>
#include <stdlib.h>

#include "lb.h"
#include "ofan_rng.h"

#define LB_ECMP_AR_STREAM 0xecaaull

extern const struct lb_ops lb_ecmp_ops;

struct lb_ecmp_ar {
	void *ecmp;
	struct ofan_rng rng;
	uint64_t escaped;	/* packets sent to a best member instead */
};

static int
lb_ecmp_ar_create(const struct lb_params *p, void **state)
{
	struct lb_ecmp_ar *st = calloc(1, sizeof(*st));
	int rc;

	if (st == NULL)
		return -ENOMEM;
	rc = lb_ecmp_ops.create(p, &st->ecmp);
	if (rc != 0) {
		free(st);
		return rc;
	}
	ofan_rng_seed(&st->rng, p->seed, LB_ECMP_AR_STREAM);
	*state = st;
	return 0;
}

static void
lb_ecmp_ar_destroy(void *state)
{
	struct lb_ecmp_ar *st = state;

	lb_ecmp_ops.destroy(st->ecmp);
	free(st);
}

static void
lb_ecmp_ar_group_changed(void *state, const struct lb_group *grp)
{
	struct lb_ecmp_ar *st = state;

	lb_ecmp_ops.group_changed(st->ecmp, grp);
}

/*
 * out, hashed to member h of grp: h unless its level is the worst of the
 * live members', then a member at the best level.
 */
static uint16_t
lb_ecmp_ar_escape(struct lb_ecmp_ar *st, const struct lb_group *grp,
		  const uint8_t *level, uint16_t h, struct ofan_rng *rng)
{
	uint16_t best[LB_MAX_MEMBERS];
	uint8_t lo = UINT8_MAX, hi = 0, l;
	unsigned int nb = 0, j;

	for (j = 0; j < grp->nb_live; j++) {
		l = level[grp->port[grp->live[j]]];
		if (l < lo)
			lo = l;
		if (l > hi)
			hi = l;
	}
	if (level[grp->port[h]] != hi)
		return h;
	for (j = 0; j < grp->nb_live; j++)
		if (level[grp->port[grp->live[j]]] == lo)
			best[nb++] = grp->live[j];
	st->escaped++;
	return lb_group_random_among(grp, best, nb, rng);
}

static void
lb_ecmp_ar_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
		const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct lb_ecmp_ar *st = state;
	struct ofan_rng rng = st->rng;	/* in registers for the burst */
	uint16_t i;

	lb_ecmp_ops.pick(st->ecmp, pkts, n, view, now_ns, out);
	for (i = 0; i < n; i++) {
		/* The coin first: the stream does not depend on the picks. */
		bool flip = (ofan_rng_next(&rng) >> 63) != 0;

		if (out[i] == LB_NONE || !flip || pkts[i].grp->nb_live < 2)
			continue;
		out[i] = lb_ecmp_ar_escape(st, pkts[i].grp, view->port_level,
					   out[i], &rng);
	}
	st->rng = rng;
}

static void
lb_ecmp_ar_dump(void *state,
		void (*emit)(void *arg, const char *key, uint64_t value),
		void *arg)
{
	const struct lb_ecmp_ar *st = state;

	emit(arg, "escaped", st->escaped);
}

const struct lb_ops lb_ecmp_ar_ops = {
	.name = "ecmp_ar",
	.summary = "ECMP, but half the packets leave a worst-level queue for a best one (htsim's ecmp_ar)",
	.uses_flow_hash = true,
	.flow_hash_where_choice = true,
	.uses_queue_levels = true,
	.create = lb_ecmp_ar_create,
	.destroy = lb_ecmp_ar_destroy,
	.group_changed = lb_ecmp_ar_group_changed,
	.pick = lb_ecmp_ar_pick,
	.dump = lb_ecmp_ar_dump,
};
