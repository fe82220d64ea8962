/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The congestion-control contract (host/transport/hs_cc.h) as a Check
 * test case that any controller runs: tests/test_cc.c runs it for every
 * registered controller, and a controller's own test
 * (tests/test_cc_plugin.c) for its controller.  It needs no EAL and no
 * registration: a flow's sender is a count of packets in flight, fed
 * ACKs (some marked), timeouts and pauses from a seeded script, and asks
 * may_send() before each new packet, as the host does.
 *
 * It checks what holds for any controller, not how well one shares:
 *  - settings: defaults() and parse() stay in settings_size bytes;
 *    parse() over a configuration without the controller's section
 *    changes nothing; each of its keys refuses a value no getter reads
 *    naming FILE:SECTION:KEY and the value; it reads no other section;
 *  - no member writes outside the flow's struct hs_cc_state;
 *  - it never exceeds its window: a windowed controller lets a packet
 *    leave only while fewer than cwnd are in flight, and keeps cwnd
 *    finite and at least 1; with nothing in flight any controller lets
 *    one leave (a flow never stalls);
 *  - it recovers after a loss signal: after a timeout and a run of
 *    marked ACKs, clean ACKs bring back the window it started with (or
 *    256 packets, the smaller);
 *  - determinism: the same script twice gives the same decisions and
 *    the same state.
 */
#ifndef OFAN_TESTS_CC_CONFORMANCE_H
#define OFAN_TESTS_CC_CONFORMANCE_H

#include <check.h>

#include "hs_cc.h"

/*
 * A test case that runs the contract's checks on ops with the settings
 * block settings (ops->settings_size bytes, copied), or with the block its
 * defaults() fill when settings is NULL.  Call it before the suite runs;
 * at most 32 cases per program.
 */
TCase *cc_conformance_tcase(const struct hs_cc_ops *ops, const void *settings);

#endif /* OFAN_TESTS_CC_CONFORMANCE_H */
