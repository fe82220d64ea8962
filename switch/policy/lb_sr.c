/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sr: source routing by the EV (lb_sr.h).  The member of a packet is a
 * digit of its path index, so a host that rotates its path index (drb)
 * rotates its packets over every path of the fabric, and the switches
 * keep no state per flow or destination.
 */
#include <errno.h>
#include <stdlib.h>

#include "lb.h"
#include "lb_sr.h"
#include "ofan_config.h"

#define LB_SR_MAX_RADIX LB_MAX_MEMBERS

struct lb_sr {
	uint32_t div;		/* radix^tier */
	uint32_t radix;
	uint16_t ev_base;
	uint64_t wrapped;	/* digits past the members, or dead */
};

static void
lb_sr_defaults(void *settings)
{
	struct lb_sr_settings *s = settings;

	s->radix = 0;
	s->ev_base = 49152;	/* ofan-host's default ev_min */
}

static int
lb_sr_parse(struct ofan_cfg *cfg, void *settings)
{
	struct lb_sr_settings *s = settings;
	uint32_t radix = s->radix, base = s->ev_base;

	if (ofan_cfg_get_u32(cfg, "sr", "radix", 0, 0, LB_SR_MAX_RADIX,
			     &radix) ||
	    ofan_cfg_get_u32(cfg, "sr", "ev_base", 0, 0, 65535, &base))
		return -EINVAL;
	if (radix == 1)
		return ofan_cfg_fail(cfg, "sr", "radix",
			"'1' has one path; expected 0 (ofan-fabric: from the topology) or 2..%u",
			LB_SR_MAX_RADIX);
	if (ofan_cfg_has_key(cfg, "sr", "ev_base"))
		s->ev_base_set = 1;
	s->radix = radix;
	s->ev_base = (uint16_t)base;
	return 0;
}

static int
lb_sr_create(const struct lb_params *p, void **state)
{
	const struct lb_sr_settings *s = p->settings;
	struct lb_sr *st;
	uint32_t t;

	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	/* Without a radix (a bare switch config): one digit per tier of
	 * LB_MAX_MEMBERS, so that a ToR alone still routes by the EV. */
	st->radix = s != NULL && s->radix != 0 ? s->radix : LB_SR_MAX_RADIX;
	st->ev_base = s != NULL ? s->ev_base : 49152;
	st->div = 1;
	for (t = 0; t < p->tier; t++)
		st->div *= st->radix;
	*state = st;
	return 0;
}

static void
lb_sr_destroy(void *state)
{
	free(state);
}

static void
lb_sr_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
	   const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct lb_sr *st = state;
	uint16_t i;

	(void)view;
	(void)now_ns;
	for (i = 0; i < n; i++) {
		const struct lb_group *grp = pkts[i].grp;
		uint32_t path = (uint16_t)(pkts[i].flow_hash - st->ev_base);
		uint32_t d = path / st->div % st->radix;

		if (grp->nb_live == 0) {
			out[i] = LB_NONE;
			continue;
		}
		if (d < grp->nb_members && grp->weight[d] > 0) {
			out[i] = (uint16_t)d;
			continue;
		}
		st->wrapped += grp->nb_members > 1;
		out[i] = grp->live[d % grp->nb_live];
	}
}

static void
lb_sr_dump(void *state,
	   void (*emit)(void *arg, const char *key, uint64_t value),
	   void *arg)
{
	const struct lb_sr *st = state;

	emit(arg, "wrapped", st->wrapped);
}

const struct lb_ops lb_sr_ops = {
	.name = "sr",
	.summary = "source routing: member = a digit of the EV's path index (host-side DR)",
	.flow_key_ev = true,
	.settings_size = sizeof(struct lb_sr_settings),
	.defaults = lb_sr_defaults,
	.parse = lb_sr_parse,
	.create = lb_sr_create,
	.destroy = lb_sr_destroy,
	.pick = lb_sr_pick,
	.dump = lb_sr_dump,
};
