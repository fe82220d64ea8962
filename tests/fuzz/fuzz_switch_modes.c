/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The modes fuzz_switch draws from the registry and the mode names
 * (fuzz_switch_modes.h).
 */
#include <stddef.h>

#include "fuzz_switch_modes.h"

/* Entries of a NULL-terminated table (at least 1). */
static unsigned int
fz_sw_count(const void *const *table)
{
	unsigned int n = 0;

	while (table[n] != NULL)
		n++;
	return n;
}

#define FZ_SW_COUNT(table) fz_sw_count((const void *const *)(table))

const struct lb_ops *
fz_sw_modes_policy(uint8_t b)
{
	return lb_registry[b % FZ_SW_COUNT(lb_registry)];
}

uint8_t
fz_sw_modes_trim(uint8_t b)
{
	/* SW_TRIM_OFF, then the sizes from SW_TRIM_HEADER (names + 1). */
	return (uint8_t)(b % (1 + FZ_SW_COUNT(sw_trim_size_names)));
}

uint8_t
fz_sw_modes_rts(uint8_t b)
{
	return (uint8_t)(b % FZ_SW_COUNT(sw_rts_names));
}

uint8_t
fz_sw_modes_pfc_mode(uint8_t b)
{
	return (uint8_t)(b % FZ_SW_COUNT(sw_pfc_mode_names));
}

uint8_t
fz_sw_modes_link(uint8_t b)
{
	return (uint8_t)(b % FZ_SW_COUNT(sw_link_state_names));
}
