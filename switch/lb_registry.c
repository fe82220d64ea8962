/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table of switch load-balancing policies and the few helpers shared
 * by the engine and every policy: lookup by name, default knobs and the
 * refresh of a next-hop group's derived fields.
 *
 * The engine chooses a policy once, by name, at start-up (testpmd's
 * forwarding engines work the same way); nothing here runs per packet.
 */
#include <stdio.h>
#include <string.h>

#include "lb.h"

const struct lb_ops *const lb_registry[] = {
	&lb_ecmp_ops,
	&lb_spray_ops,
	&lb_rr_ops,
	&lb_adaptive_ops,
	&lb_flowlet_ops,
	&lb_ofan_ops,
	NULL,
};

const struct lb_ops *
lb_find(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return NULL;
	for (i = 0; lb_registry[i] != NULL; i++)
		if (strcmp(lb_registry[i]->name, name) == 0)
			return lb_registry[i];
	return NULL;
}

const char *
lb_names(char *buf, unsigned int size)
{
	unsigned int used = 0;
	unsigned int i;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	/*
	 * snprintf truncates safely; once the buffer is full the remaining
	 * names are dropped rather than written past the end.
	 */
	for (i = 0; lb_registry[i] != NULL && used < size; i++) {
		int len = snprintf(buf + used, size - used, "%s%s",
				   i == 0 ? "" : ", ", lb_registry[i]->name);

		if (len < 0)
			break;
		used += (unsigned int)len;
	}
	return buf;
}

/*
 * Only the policy knobs are set: the seed and the table sizes belong to
 * the engine, which fills them after parsing, so they are left untouched.
 */
void
lb_params_defaults(struct lb_params *p)
{
	p->ofan.nudge_cycles = 0;
	p->ofan.shuffle = 1;
	p->ofan.random_start = 1;
	p->flowlet.gap_ns = 50 * 1000;
	p->flowlet.table_size = 4096;
	p->flowlet.repick = LB_FLOWLET_RANDOM;
	p->adaptive.levels.nb_levels = 8;
	p->adaptive.levels.nb_thresholds = 0;
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
	grp->version++;
}
