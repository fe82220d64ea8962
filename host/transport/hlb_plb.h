/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plb host policy's settings ([host.plb] section), for its tests
 * and for anyone building an hlb_params by hand; the host never reads them.
 */
#ifndef OFAN_HLB_PLB_H
#define OFAN_HLB_PLB_H

#include <stdint.h>

struct hlb_plb_settings {
	double ce_threshold;		/* a round is congested above this CE fraction (0.25) */
	uint32_t congested_rounds;	/* repath after this many in a row (1) */
};

#endif /* OFAN_HLB_PLB_H */
