/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The recovery-model contract (host/transport/hs_transport.h) as a Check
 * test case that any model runs: tests/test_recovery.c runs it for every
 * registered model, and a model's own test (tests/test_recovery_plugin.c)
 * for its model.  It needs no EAL and no registration: a sender and a
 * receiver of one flow are joined by an in-memory loop in virtual time
 * (a fixed one-way delay, one packet per pacing slot, an ACK whenever the
 * receiver says one is due), as the host engine would drive them.
 *
 * It checks what holds for any model, not how fast one recovers:
 *  - settings: defaults() and parse() stay in settings_size bytes;
 *    parse() over a configuration without the model's section changes
 *    nothing; each of its keys refuses a value no getter reads with a
 *    message naming FILE:SECTION:KEY and the value; it reads no other
 *    section;
 *  - no member writes outside tx_size or rx_size bytes of state;
 *  - a flow of one packet, of a short last packet and of 100 packets on
 *    a lossless loop completes at both ends with each packet sent once
 *    (no resend, no timeout), every payload what the receiver expects;
 *  - a flow that loses a packet (the second, or the last) completes, for
 *    a model that recovers; one that does not still ends;
 *  - the receiver never acknowledges more than it got: a count at most
 *    the distinct packets that arrived; a cumulative PSN, SACK bits and
 *    an echoed PSN only of packets that arrived;
 *  - new data leaves in PSN order, no packet shorter than the flow's
 *    last (the ideal time's assumption);
 *  - determinism: the same flow twice gives the same packets and ACKs at
 *    the same times.
 */
#ifndef OFAN_TESTS_RECOVERY_CONFORMANCE_H
#define OFAN_TESTS_RECOVERY_CONFORMANCE_H

#include <stdbool.h>

#include <check.h>

#include "hs_transport.h"

/*
 * A test case that runs the contract's checks on ops with the settings
 * block settings (ops->settings_size bytes, copied), or with the block its
 * defaults() fill when settings is NULL.  recovers: the model makes up
 * for lost packets (false: a flow that loses one need only end).  Call it
 * before the suite runs; at most 32 cases per program.
 */
TCase *recovery_conformance_tcase(const struct hs_recovery_ops *ops,
				  const void *settings, bool recovers);

#endif /* OFAN_TESTS_RECOVERY_CONFORMANCE_H */
