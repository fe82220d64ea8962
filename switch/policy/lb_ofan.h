/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan's settings ([ofan] section), for its tests and for anyone building
 * an lb_params by hand; the engine never reads them.
 */
#ifndef OFAN_LB_OFAN_H
#define OFAN_LB_OFAN_H

#include <stdint.h>

struct lb_ofan_settings {
	/* Advance the pointer by one extra every N full cycles (0 = off). */
	uint32_t nudge_cycles;
	/* Shuffle the member order once per switch (default yes). */
	uint8_t shuffle;
	/* Random start per destination (default yes). */
	uint8_t random_start;
};

#endif /* OFAN_LB_OFAN_H */
