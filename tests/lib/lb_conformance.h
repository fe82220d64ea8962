/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch-policy contract (switch/policy/lb.h) as a Check test case that any
 * policy runs: tests/test_lb.c runs it for every built-in policy, and a
 * policy's own test (tests/test_policy_plugin.c) for its policy.  It
 * needs no EAL and no registration: the policy sees what the engine
 * would show it, groups, packets' metadata, queue levels and time.
 *
 * It checks what holds for any policy, not how well one spreads:
 *  - settings: parse() over a configuration without the policy's
 *    section leaves its block as it was;
 *  - determinism: two instances created with the same seed and fed the
 *    same life (bursts of every size, every group and destination key,
 *    queue levels, time, members dying and coming back, weights
 *    changing, groups shrinking and growing, groups of one member and of
 *    LB_MAX_MEMBERS) pick the same members;
 *  - every pick of that life is a live member of its packet's group, and
 *    LB_NONE exactly when the group has none;
 *  - a group whose members all die is answered LB_NONE while another
 *    group is unaffected, and when one member returns it is the only
 *    answer;
 *  - instances are independent: another instance's picks in between
 *    change none of an instance's;
 *  - a flow_hash_where_choice policy picks the same when packets of a
 *    group without a choice carry hash 0;
 *  - dump(), when there is one, names every counter it emits.
 */
#ifndef OFAN_TESTS_LB_CONFORMANCE_H
#define OFAN_TESTS_LB_CONFORMANCE_H

#include <check.h>

#include "lb.h"

/*
 * A test case that runs the contract's checks on ops with the settings
 * block settings (ops->settings_size bytes, copied), or with the block
 * its defaults() fill when settings is NULL.  Call it before the suite
 * runs; at most 32 cases per program.
 */
TCase *lb_conformance_tcase(const struct lb_ops *ops, const void *settings);

#endif /* OFAN_TESTS_LB_CONFORMANCE_H */
