/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rr_ecmp: round robin at the ToRs, ECMP above, htsim's RR_ECMP (-strat
 * rr_ecmp).  A switch of tier 0 ([switch] tier, lb_params.tier: a ToR or
 * leaf) runs rr's one counter shared by every destination; every other
 * tier hashes flows as ecmp does.  In a fat tree the aggregation switch's
 * choice of core is then per flow, while each ToR spreads its packets
 * evenly over its uplinks.
 *
 * [rr_ecmp] permute = P is rr's permute for the ToRs' rotation (lb_rr.c):
 * htsim's RR_ECMP shuffles a ToR's order every 5 x n picks (P = 5); 0,
 * the default, is the fixed rotation.
 */
#include <errno.h>
#include <stdlib.h>

#include "lb_rr.h"

extern const struct lb_ops lb_ecmp_ops;

static void
lb_rr_ecmp_defaults(void *settings)
{
	struct lb_rr_settings *s = settings;

	s->permute = 0;
}

static int
lb_rr_ecmp_parse(struct ofan_cfg *cfg, void *settings)
{
	return lb_rr_parse_section(cfg, "rr_ecmp", settings);
}

struct lb_rr_ecmp {
	const struct lb_ops *ops;	/* rr at tier 0, ecmp above */
	void *state;
};

static int
lb_rr_ecmp_create(const struct lb_params *p, void **state)
{
	struct lb_rr_ecmp *st = calloc(1, sizeof(*st));
	struct lb_params q = *p;
	int rc;

	if (st == NULL)
		return -ENOMEM;
	/* rr reads a block of its shape; ecmp has none. */
	st->ops = p->tier == 0 ? &lb_rr_ops : &lb_ecmp_ops;
	if (st->ops != &lb_rr_ops)
		q.settings = NULL;
	rc = st->ops->create(&q, &st->state);
	if (rc != 0) {
		free(st);
		return rc;
	}
	*state = st;
	return 0;
}

static void
lb_rr_ecmp_destroy(void *state)
{
	struct lb_rr_ecmp *st = state;

	st->ops->destroy(st->state);
	free(st);
}

static void
lb_rr_ecmp_group_changed(void *state, const struct lb_group *grp)
{
	struct lb_rr_ecmp *st = state;

	if (st->ops->group_changed != NULL)
		st->ops->group_changed(st->state, grp);
}

static void
lb_rr_ecmp_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
		const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct lb_rr_ecmp *st = state;

	st->ops->pick(st->state, pkts, n, view, now_ns, out);
}

const struct lb_ops lb_rr_ecmp_ops = {
	.name = "rr_ecmp",
	.summary = "rr at ToRs and leaves (tier 0), ecmp above (htsim's rr_ecmp)",
	.uses_flow_hash = true,
	.flow_hash_where_choice = true,
	.uses_queue_levels = false,
	.settings_size = sizeof(struct lb_rr_settings),
	.defaults = lb_rr_ecmp_defaults,
	.parse = lb_rr_ecmp_parse,
	.create = lb_rr_ecmp_create,
	.destroy = lb_rr_ecmp_destroy,
	.group_changed = lb_rr_ecmp_group_changed,
	.pick = lb_rr_ecmp_pick,
};
