/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The drb host policy's settings ([host.drb] section): the fabric's paths
 * as the switches' sr policy reads them from the EV (switch/policy/lb_sr.h),
 * radix members per tier over tiers tiers, radix^tiers paths.
 */
#ifndef OFAN_HLB_DRB_H
#define OFAN_HLB_DRB_H

#include <stdint.h>

struct hlb_drb_settings {
	uint32_t radix;		/* 0: ofan-fabric sets it from the topology;
				 * elsewhere every EV of the range in turn */
	uint32_t tiers;		/* digits of a path index (fat tree 2) */
};

/* The number of paths (radix^tiers), at most the EV range's size. */
uint32_t hlb_drb_paths(const struct hlb_drb_settings *s, uint32_t ev_range);

#endif /* OFAN_HLB_DRB_H */
