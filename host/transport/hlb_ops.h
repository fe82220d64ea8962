/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ops host policy's settings ([host.ops] section), for its tests
 * and for anyone building an hlb_params by hand; the host never reads them.
 */
#ifndef OFAN_HLB_OPS_H
#define OFAN_HLB_OPS_H

#include <stdbool.h>
#include <stdint.h>

struct hlb_ops_settings {
	/* Cycle through a seeded permutation of the EV range instead of
	 * drawing each EV at random (no). */
	bool permuted;
};

#endif /* OFAN_HLB_OPS_H */
