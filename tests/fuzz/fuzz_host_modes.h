/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The modes fuzz_host draws (tests/fuzz/fuzz_host.c): a recovery model,
 * a congestion controller and a host policy, each picked by one header
 * byte straight from its registry, byte % the number registered.  A model
 * registered tomorrow is fuzzed without touching the harness, and
 * tests/test_fuzz_modes.c fails if any registered one is out of reach.
 *
 * No EAL and no state: the fuzzer, the unit test and the
 * fuzz-host-modes program (the docs' list) share these functions.
 */
#ifndef OFAN_FUZZ_HOST_MODES_H
#define OFAN_FUZZ_HOST_MODES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hlb.h"
#include "hs_cc.h"
#include "hs_transport.h"

/* hs_recovery_registry[b % the models registered]. */
const struct hs_recovery_ops *fz_modes_recovery(uint8_t b);
/* hs_cc_registry[b % the controllers registered]. */
const struct hs_cc_ops *fz_modes_cc(uint8_t b);
/* hlb_registry[b % the host policies registered]. */
const struct hlb_ops *fz_modes_policy(uint8_t b);

/*
 * Whether a recovery model's receiver takes packets in order only (gbn),
 * found by asking one: it refuses a flow's second packet before its
 * first.  Such a receiver never has more distinct packets than the
 * in-order prefix of the PSNs it was given.
 */
bool fz_modes_in_order(const struct hs_recovery_ops *ops);

/*
 * The modes the functions above reach over every byte value, in registry
 * order, one a line: "recovery NAME", "cc NAME", "policy NAME".
 */
void fz_modes_print(FILE *f);

#endif /* OFAN_FUZZ_HOST_MODES_H */
