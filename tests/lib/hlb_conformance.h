/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host-policy contract (host/transport/hlb.h) as a Check test case that any
 * policy runs: tests/test_hlb.c runs it for every built-in policy, and a
 * policy's own test (tests/test_host_policy_plugin.c) for its policy.  It
 * needs no EAL and no registration: the policy sees what a connection of
 * the host would show it, the EV range, time, ACKs and timeouts.
 *
 * It checks what holds for any policy, not how well one steers:
 *  - settings: parse() over a configuration without the policy's section
 *    leaves its block as it was;
 *  - every EV is in [ev_min, ev_max], over the full 16-bit range, the
 *    host's, tiny ranges, a single EV and the range's ends, with
 *    bandwidth-delay products of 16, 4 and 0 packets, whatever the
 *    feedback: marked and unmarked ACKs, ACKs without an RTT sample or
 *    echoing an EV outside the range, timeouts, path timeouts (when the
 *    policy has on_path_timeout), long pauses;
 *  - no hook writes outside the connection's state_size bytes;
 *  - determinism: the same seed and the same feedback give the same EVs;
 *  - connections are independent: another connection's calls in between
 *    change none of a connection's EVs;
 *  - dump(), when there is one, names its counters, and a zeroed state
 *    (the host dumps one to learn the keys) gives the same keys in the
 *    same order, each 0.
 */
#ifndef OFAN_TESTS_HLB_CONFORMANCE_H
#define OFAN_TESTS_HLB_CONFORMANCE_H

#include <check.h>

#include "hlb.h"

/*
 * A test case that runs the contract's checks on ops with the settings
 * block settings (ops->settings_size bytes, copied), or with the block
 * its defaults() fill when settings is NULL.  Call it before the suite
 * runs; at most 32 cases per program.
 */
TCase *hlb_conformance_tcase(const struct hlb_ops *ops, const void *settings);

#endif /* OFAN_TESTS_HLB_CONFORMANCE_H */
