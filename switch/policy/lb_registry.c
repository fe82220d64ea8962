/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table of switch load-balancing policies and the few helpers shared
 * by the engine and every policy: registration and lookup by name, the
 * policies' settings blocks and the refresh of a next-hop group's
 * derived fields.
 *
 * The engine chooses a policy once, by name, at start-up (testpmd's
 * forwarding engines work the same way); nothing here runs per packet.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lb.h"
#include "ofan_registry.h"

extern const struct lb_ops lb_ecmp_ops;
extern const struct lb_ops lb_spray_ops;
extern const struct lb_ops lb_rr_ops;
extern const struct lb_ops lb_adaptive_ops;
extern const struct lb_ops lb_flowlet_ops;
extern const struct lb_ops lb_ofan_ops;
extern const struct lb_ops lb_ecmp_ar_ops;
extern const struct lb_ops lb_rr_ecmp_ops;
extern const struct lb_ops lb_fib_llss_ops;
extern const struct lb_ops lb_sr_ops;

const struct lb_ops *lb_registry[LB_MAX_POLICIES + 1] = {
	&lb_ecmp_ops,
	&lb_spray_ops,
	&lb_rr_ops,
	&lb_adaptive_ops,
	&lb_flowlet_ops,
	&lb_ofan_ops,
	&lb_ecmp_ar_ops,
	&lb_rr_ecmp_ops,
	&lb_fib_llss_ops,
	&lb_sr_ops,
	NULL,
};

OFAN_REGISTRY_API(lb, struct lb_ops, lb_registry, LB_MAX_POLICIES)

int
lb_register(const struct lb_ops *ops)
{
	if (!lb_reg_named(ops) ||
	    ops->create == NULL || ops->destroy == NULL || ops->pick == NULL ||
	    ops->settings_size > LB_SETTINGS_MAX)
		return -EINVAL;
	/* Names are matched in any case (the config reads them so). */
	return lb_reg_add(ops);
}

const char *
lb_names(char *buf, unsigned int size)
{
	lb_reg_list(buf, size);
	return buf;
}

void
lb_settings_defaults(struct lb_settings_table *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; lb_registry[i] != NULL; i++)
		if (lb_registry[i]->defaults != NULL)
			lb_registry[i]->defaults(t->of[i].bytes);
}

int
lb_settings_from_cfg(struct ofan_cfg *cfg, struct lb_settings_table *t)
{
	unsigned int i;

	for (i = 0; lb_registry[i] != NULL; i++)
		if (lb_registry[i]->parse != NULL &&
		    lb_registry[i]->parse(cfg, t->of[i].bytes) != 0)
			return -EINVAL;
	return 0;
}

const void *
lb_settings_of(const struct lb_settings_table *t, const struct lb_ops *ops)
{
	unsigned int i;

	for (i = 0; lb_registry[i] != NULL; i++)
		if (lb_registry[i] == ops)
			return ops->settings_size > 0 ? t->of[i].bytes : NULL;
	return NULL;
}

uint32_t
lb_gcd(uint32_t a, uint32_t b)
{
	while (b != 0) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The gcd of the live members' weights (1 when none is live). */
static uint32_t
lb_group_gcd(const struct lb_group *grp)
{
	uint32_t g = 0;
	uint16_t k;

	for (k = 0; k < grp->nb_live; k++)
		g = lb_gcd(grp->weight[grp->live[k]], g);
	return g == 0 ? 1 : g;
}

/* total_weight, cum_weight[] and weighted from the live members. */
static void
lb_group_sum_weights(struct lb_group *grp)
{
	uint32_t g = lb_group_gcd(grp), sum = 0;
	uint16_t k;

	for (k = 0; k < grp->nb_live; k++) {
		sum += grp->weight[grp->live[k]] / g;
		grp->cum_weight[k] = sum;
	}
	grp->total_weight = sum;
	grp->weighted = sum != grp->nb_live;
}

void
lb_group_refresh(struct lb_group *grp)
{
	uint16_t nb_live = 0;
	uint16_t i;

	/* A larger group is a caller bug; never read past the arrays. */
	if (grp->nb_members > LB_MAX_MEMBERS)
		grp->nb_members = LB_MAX_MEMBERS;
	for (i = 0; i < grp->nb_members; i++)
		if (grp->weight[i] > 0)
			grp->live[nb_live++] = i;
	grp->nb_live = nb_live;
	lb_group_sum_weights(grp);
	grp->version++;
}

uint16_t
lb_group_random_among(const struct lb_group *grp, const uint16_t *tied,
		      unsigned int nb, struct ofan_rng *rng)
{
	uint32_t sum = 0, r, g = lb_group_gcd(grp);
	unsigned int k;

	if (!grp->weighted || nb == 1)
		return nb == 1 ? tied[0] : tied[ofan_rng_below(rng, nb)];
	for (k = 0; k < nb; k++)
		sum += grp->weight[tied[k]] / g;
	r = ofan_rng_below(rng, sum);
	for (k = 0; k + 1 < nb; k++) {
		uint32_t w = grp->weight[tied[k]] / g;

		if (r < w)
			break;
		r -= w;
	}
	return tied[k];
}
