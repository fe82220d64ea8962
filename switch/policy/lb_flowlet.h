/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flowlet's settings ([flowlet] section), for its tests and for anyone
 * building an lb_params by hand; the engine never reads them.
 */
#ifndef OFAN_LB_FLOWLET_H
#define OFAN_LB_FLOWLET_H

#include <stdint.h>

enum lb_flowlet_repick { LB_FLOWLET_RANDOM = 0, LB_FLOWLET_LEAST_LOADED = 1 };

struct lb_flowlet_settings {
	uint64_t gap_ns;	/* idle gap that ends a flowlet (50 us) */
	uint32_t table_size;	/* flow table entries, power of two (4096) */
	uint8_t repick;		/* enum lb_flowlet_repick (random) */
};

#endif /* OFAN_LB_FLOWLET_H */
