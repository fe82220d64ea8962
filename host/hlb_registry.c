/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table of host load-balancing policies, lookup by name and the
 * default knobs.
 *
 * The host chooses one policy by name at start-up (host_policy = <name>)
 * and gives every connection its own state_size bytes of state; nothing
 * here runs per packet.
 */
#include <string.h>

#include "hlb.h"

const struct hlb_ops *const hlb_registry[] = {
	&hlb_fixed_ops,
	&hlb_ops_ops,
	&hlb_reps_ops,
	&hlb_plb_ops,
	&hlb_mp_ops,
	&hlb_flowlet_ops,
	NULL,
};

const struct hlb_ops *
hlb_find(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return NULL;
	for (i = 0; hlb_registry[i] != NULL; i++)
		if (strcmp(hlb_registry[i]->name, name) == 0)
			return hlb_registry[i];
	return NULL;
}

/*
 * Only the policy knobs are set: the EV range, base RTT and BDP are facts
 * about the fabric that the host fills in, so they are left untouched.
 */
void
hlb_params_defaults(struct hlb_params *p)
{
	p->ops.permuted = false;
	p->reps.freeze_ns = 10 * 1000 * 1000;
	p->reps.freeze_rtt_factor = 1.65;
	p->plb.ce_threshold = 0.25;
	p->plb.congested_rounds = 1;
	p->mp.subflows = 4;
	p->flowlet.gap_ns = 0;
}
