/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mp host policy's settings ([host.mp] section), for its tests
 * and for anyone building an hlb_params by hand; the host never reads them.
 */
#ifndef OFAN_HLB_MP_H
#define OFAN_HLB_MP_H

#include <stdint.h>

#define HLB_MP_MAX_SUBFLOWS 64

struct hlb_mp_settings {
	uint16_t subflows;		/* k fixed EVs, round robin (4) */
};

#endif /* OFAN_HLB_MP_H */
