/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in congestion-control models and their registry (hs_cc.h).
 *
 *  - rate: constant-rate senders, the study's (and htsim's constant CCA):
 *    the pacer alone decides; nothing per packet.
 *  - ecn_window: a window of packets in flight, [host] window at the
 *    start; an ACK with a congestion mark takes half a packet off (at
 *    least 1 stays), one without adds 1 / window (a packet per window's
 *    worth of ACKs, up to [host] window); a timeout sets it to 1.
 */
#include <errno.h>
#include <stddef.h>

#include "hs_cc.h"
#include "ofan_registry.h"

static const struct hs_cc_ops cc_rate = {
	.name = "rate",
	.summary = "constant-rate senders: the pacer alone decides",
};

static void
ecn_window_start(struct hs_cc_state *st, uint32_t window_pkts)
{
	st->cwnd = window_pkts;
}

static bool
ecn_window_may_send(const struct hs_cc_state *st, uint32_t in_flight)
{
	return in_flight < (uint32_t)st->cwnd;
}

static void
ecn_window_on_ack(struct hs_cc_state *st, bool ce, uint32_t window_pkts)
{
	if (ce)
		st->cwnd = st->cwnd - 0.5 > 1.0 ? st->cwnd - 0.5 : 1.0;
	else if (st->cwnd + 1.0 / st->cwnd < (double)window_pkts)
		st->cwnd = st->cwnd + 1.0 / st->cwnd;
	else
		st->cwnd = (double)window_pkts;
}

static void
ecn_window_on_timeout(struct hs_cc_state *st)
{
	st->cwnd = 1.0;
}

static const struct hs_cc_ops cc_ecn_window = {
	.name = "ecn_window",
	.summary = "a window of packets: -0.5 on a CE echo, +1/window per clean ACK, 1 after a timeout",
	.windowed = true,
	.start = ecn_window_start,
	.may_send = ecn_window_may_send,
	.on_ack = ecn_window_on_ack,
	.on_timeout = ecn_window_on_timeout,
};

const struct hs_cc_ops *hs_cc_registry[HS_MAX_CC + 1] = {
	&cc_rate,
	&cc_ecn_window,
	NULL,
};

OFAN_REGISTRY_API(hs_cc, struct hs_cc_ops, hs_cc_registry, HS_MAX_CC)

int
hs_cc_register(const struct hs_cc_ops *ops)
{
	if (!hs_cc_reg_named(ops) || ops->windowed != (ops->may_send != NULL))
		return -EINVAL;
	return hs_cc_reg_add(ops);
}

