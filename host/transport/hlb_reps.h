/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reps host policy's settings ([host.reps] section), for its tests
 * and for anyone building an hlb_params by hand; the host never reads them.
 */
#ifndef OFAN_HLB_REPS_H
#define OFAN_HLB_REPS_H

#include <stdint.h>

#define HLB_REPS_SLOTS 8		/* EVs cached */

struct hlb_reps_settings {
	uint64_t freeze_ns;		/* freeze_time (10 ms) */
	double freeze_rtt_factor;	/* freeze only if max RTT < this x base (1.65) */
};

#endif /* OFAN_HLB_REPS_H */
