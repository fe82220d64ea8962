/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The traffic-pattern contract (workload/hs_pattern.h) as a Check test
 * case that any pattern runs: tests/test_traffic.c runs it for every
 * registered pattern, and a pattern's own test
 * (tests/test_pattern_plugin.c) for its pattern.  No EAL.
 *
 * It checks what holds for any pattern, not what traffic it makes:
 *  - settings: defaults() fill no more than settings_size bytes, and
 *    parse() over a configuration that names none of its keys keeps the
 *    defaults;
 *  - over rank counts from 2 up (with the topology's sizes a pattern that
 *    needs them is given), a build either succeeds or is refused by
 *    check() with a [traffic] key and a message; a build that succeeds
 *    gives well-formed flows: ids in order, both ends ranks of the
 *    traffic and different, sizes above 0, every dependency an earlier
 *    flow whose destination is the flow's source, iterations in order;
 *  - a generated pattern's flows are nb_flows() x iterations;
 *  - determinism: the same parameters give the same flows;
 *  - a refused build leaves the traffic empty.
 * A whole-traffic pattern (a file's, training jobs') given neither file
 * nor sections is refused by its checks here: its traffic is held by its
 * own tests (test_cm.c, test_workload.c, test_chakra.c).
 */
#ifndef OFAN_TESTS_PATTERN_CONFORMANCE_H
#define OFAN_TESTS_PATTERN_CONFORMANCE_H

#include <check.h>

#include "hs_pattern.h"

/*
 * A test case that runs the contract's checks on ops with the settings
 * block settings (ops->settings_size bytes, copied), or with the block
 * its defaults() fill when settings is NULL.  At most 32 cases per
 * program.
 */
TCase *pattern_conformance_tcase(const struct hs_pattern_ops *ops,
				 const void *settings);

#endif /* OFAN_TESTS_PATTERN_CONFORMANCE_H */
