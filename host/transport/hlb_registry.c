/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table of host load-balancing policies, registration and lookup by
 * name, and the policies' settings blocks.
 *
 * The host chooses one policy by name at start-up (host_policy = <name>)
 * and gives every connection its own state_size bytes of state; nothing
 * here runs per packet.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hlb.h"
#include "ofan_registry.h"

extern const struct hlb_ops hlb_fixed_ops;
extern const struct hlb_ops hlb_ops_ops;
extern const struct hlb_ops hlb_reps_ops;
extern const struct hlb_ops hlb_plb_ops;
extern const struct hlb_ops hlb_mp_ops;
extern const struct hlb_ops hlb_flowlet_ops;
extern const struct hlb_ops hlb_drb_ops;
extern const struct hlb_ops hlb_oblivious_ops;
extern const struct hlb_ops hlb_bitmap_ops;
extern const struct hlb_ops hlb_mixed_ops;
extern const struct hlb_ops hlb_reps_uec_ops;

const struct hlb_ops *hlb_registry[HLB_MAX_POLICIES + 1] = {
	&hlb_fixed_ops,
	&hlb_ops_ops,
	&hlb_reps_ops,
	&hlb_plb_ops,
	&hlb_mp_ops,
	&hlb_flowlet_ops,
	&hlb_drb_ops,
	&hlb_oblivious_ops,
	&hlb_bitmap_ops,
	&hlb_mixed_ops,
	&hlb_reps_uec_ops,
	NULL,
};

OFAN_REGISTRY_API(hlb, struct hlb_ops, hlb_registry, HLB_MAX_POLICIES)

int
hlb_register(const struct hlb_ops *ops)
{
	if (!hlb_reg_named(ops) ||
	    ops->init == NULL || ops->next_ev == NULL || ops->on_ack == NULL ||
	    ops->on_timeout == NULL || ops->settings_size > HLB_SETTINGS_MAX)
		return -EINVAL;
	/* Names are matched in any case (the config reads them so). */
	return hlb_reg_add(ops);
}

void
hlb_settings_defaults(struct hlb_settings_table *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; hlb_registry[i] != NULL; i++)
		if (hlb_registry[i]->defaults != NULL)
			hlb_registry[i]->defaults(t->of[i].bytes);
}

int
hlb_settings_from_cfg(struct ofan_cfg *cfg, struct hlb_settings_table *t)
{
	unsigned int i;

	for (i = 0; hlb_registry[i] != NULL; i++)
		if (hlb_registry[i]->parse != NULL &&
		    hlb_registry[i]->parse(cfg, t->of[i].bytes) != 0)
			return -EINVAL;
	return 0;
}

const void *
hlb_settings_of(const struct hlb_settings_table *t, const struct hlb_ops *ops)
{
	unsigned int i;

	for (i = 0; hlb_registry[i] != NULL; i++)
		if (hlb_registry[i] == ops)
			return ops->settings_size > 0 ? t->of[i].bytes : NULL;
	return NULL;
}
