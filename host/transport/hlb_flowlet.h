/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flowlet host policy's settings ([host.flowlet] section), for its tests
 * and for anyone building an hlb_params by hand; the host never reads them.
 */
#ifndef OFAN_HLB_FLOWLET_H
#define OFAN_HLB_FLOWLET_H

#include <stdint.h>

struct hlb_flowlet_settings {
	uint64_t gap_ns;		/* 0: half the base RTT */
};

#endif /* OFAN_HLB_FLOWLET_H */
