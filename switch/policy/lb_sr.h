/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sr: source routing by the EV ([sr] section).  A host that routes its
 * own packets (host-side DR, ofan-host's drb) writes a path index p into
 * the EV, EV = ev_base + p; a switch of tier t takes member digit t of p
 * in base radix, (p / radix^t) % radix, of the packet's group.  In a
 * k-ary fat tree with radix k/2, p is htsim's core index: the ToR's
 * digit picks the aggregation switch (the core's position in the pod),
 * the aggregation switch's digit its uplink (which core of that
 * position); a leaf-spine with radix = spines picks the spine at the
 * leaf.  A digit past the group's members, or naming a dead member, is
 * taken modulo the live members instead (counted as `wrapped`): the host
 * does not see failures, as htsim's host DR does not.
 */
#ifndef OFAN_LB_SR_H
#define OFAN_LB_SR_H

#include <stdint.h>

struct lb_sr_settings {
	uint32_t radix;		/* members per digit; 0: ofan-fabric sets it */
	uint16_t ev_base;	/* EV of path 0 (ofan-host's ev_min) */
	uint8_t ev_base_set;	/* [sr] ev_base given (else the fabric's) */
};

#endif /* OFAN_LB_SR_H */
