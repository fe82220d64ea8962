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

/* Whether fn reaches value v from some byte. */
static int
fz_sw_reaches(uint8_t (*fn)(uint8_t), uint8_t v)
{
	unsigned int b;

	for (b = 0; b <= UINT8_MAX; b++)
		if (fn((uint8_t)b) == v)
			return 1;
	return 0;
}

/* "kind name" for each name of a NULL-terminated list fn reaches, the
 * value of names[i] being i + first. */
static void
fz_sw_print_names(FILE *f, const char *kind, uint8_t (*fn)(uint8_t),
		  const char *const *names, uint8_t first)
{
	unsigned int i;

	for (i = 0; names[i] != NULL; i++)
		if (fz_sw_reaches(fn, (uint8_t)(i + first)))
			fprintf(f, "%s %s\n", kind, names[i]);
}

void
fz_sw_modes_print(FILE *f)
{
	unsigned int i, b;

	for (i = 0; lb_registry[i] != NULL; i++)
		for (b = 0; b <= UINT8_MAX; b++)
			if (fz_sw_modes_policy((uint8_t)b) == lb_registry[i]) {
				fprintf(f, "policy %s\n", lb_registry[i]->name);
				break;
			}
	if (fz_sw_reaches(fz_sw_modes_trim, 0))
		fprintf(f, "trim off\n");
	fz_sw_print_names(f, "trim", fz_sw_modes_trim, sw_trim_size_names, 1);
	fz_sw_print_names(f, "rts", fz_sw_modes_rts, sw_rts_names, 0);
	fz_sw_print_names(f, "pfc", fz_sw_modes_pfc_mode, sw_pfc_mode_names, 0);
	fz_sw_print_names(f, "link", fz_sw_modes_link, sw_link_state_names, 0);
}
