/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The modes fuzz_switch draws (tests/fuzz/fuzz_switch.c): the switch
 * policy, each picked by one header byte straight from the lb registry
 * (byte % the policies registered), and the queue and link modes each
 * from its own list of names (byte % the modes there are).  A policy
 * registered tomorrow, or a trim, rts, PFC or link mode added to its
 * names, is fuzzed without touching the harness, and
 * tests/test_fuzz_switch_modes.c fails if any is out of reach.
 *
 * No EAL and no state: the fuzzer and the unit test share these
 * functions.
 */
#ifndef OFAN_FUZZ_SWITCH_MODES_H
#define OFAN_FUZZ_SWITCH_MODES_H

#include <stdint.h>
#include <stdio.h>

#include "lb.h"
#include "sw_config.h"

/* lb_registry[b % the policies registered]. */
const struct lb_ops *fz_sw_modes_policy(uint8_t b);
/* enum sw_trim: off, or one of sw_trim_size_names (header, full). */
uint8_t fz_sw_modes_trim(uint8_t b);
/* enum sw_rts, one of sw_rts_names. */
uint8_t fz_sw_modes_rts(uint8_t b);
/* enum sw_pfc_mode, one of sw_pfc_mode_names. */
uint8_t fz_sw_modes_pfc_mode(uint8_t b);
/* enum sw_link_state, one of sw_link_state_names. */
uint8_t fz_sw_modes_link(uint8_t b);

/*
 * The modes the functions above reach over every byte value, in registry
 * or name order, one a line: "policy NAME", "trim off|NAME", "rts NAME",
 * "pfc NAME", "link NAME" (tests/fuzz/fuzz-switch-modes, for the docs).
 */
void fz_sw_modes_print(FILE *f);

#endif /* OFAN_FUZZ_SWITCH_MODES_H */
