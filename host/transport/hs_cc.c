/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in congestion-control models and their registry (hs_cc.h).
 *
 *  - rate: constant-rate senders, the study's (and htsim's constant CCA):
 *    the pacer alone decides; nothing per packet.
 *  - ecn_window: a window of packets in flight, [cc.ecn_window] window
 *    at the start; an ACK with a congestion mark takes half a packet off
 *    (at least 1 stays), one without adds 1 / window (a packet per
 *    window's worth of ACKs, up to [cc.ecn_window] window); a timeout
 *    sets it to 1.
 *  - nscc: Ultra Ethernet's NSCC (hs_nscc.c).
 *  - rccc: Ultra Ethernet's RCCC (hs_rccc.c), credit its receivers pull.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hs_cc.h"
#include "hs_ecn_window.h"
#include "ofan_config.h"
#include "ofan_registry.h"

static const struct hs_cc_ops cc_rate = {
	.name = "rate",
	.summary = "constant-rate senders: the pacer alone decides",
};

static void
ecn_window_defaults(void *settings)
{
	((struct hs_ecn_window_settings *)settings)->window_pkts = 64;
}

static int
ecn_window_parse(struct ofan_cfg *cfg, const char *sec, void *settings)
{
	struct hs_ecn_window_settings *s = settings;

	return ofan_cfg_get_u32(cfg, sec, "window", 0, 1, 1u << 20,
				&s->window_pkts);
}

/* The largest window of settings. */
static inline uint32_t
ecn_window_max(const void *settings)
{
	return ((const struct hs_ecn_window_settings *)settings)->window_pkts;
}

static void
ecn_window_start(void *st, const void *settings, const struct hs_cc_flow *f)
{
	struct hs_ecn_window_state *w = st;

	w->cwnd = ecn_window_max(settings);
	w->mss = f->mss;
}

static bool
ecn_window_may_send(const void *st, const void *settings,
		    const struct hs_cc_flight *f)
{
	(void)settings;
	return f->pkts < (uint32_t)((const struct hs_ecn_window_state *)st)->cwnd;
}

static double
ecn_window_window(const void *st, const void *settings)
{
	const struct hs_ecn_window_state *w = st;

	(void)settings;
	return (double)(uint32_t)w->cwnd * w->mss;
}

static void
ecn_window_on_ack(void *st, const void *settings, const struct hs_cc_ack *a)
{
	struct hs_ecn_window_state *w = st;
	uint32_t window_pkts = ecn_window_max(settings);

	if (a->ce)
		w->cwnd = w->cwnd - 0.5 > 1.0 ? w->cwnd - 0.5 : 1.0;
	else if (w->cwnd + 1.0 / w->cwnd < (double)window_pkts)
		w->cwnd = w->cwnd + 1.0 / w->cwnd;
	else
		w->cwnd = (double)window_pkts;
}

static void
ecn_window_on_timeout(void *st, const void *settings, uint64_t now_ns)
{
	(void)settings;
	(void)now_ns;
	((struct hs_ecn_window_state *)st)->cwnd = 1.0;
}

static const struct hs_cc_ops cc_ecn_window = {
	.name = "ecn_window",
	.summary = "a window of packets: -0.5 on a CE echo, +1/window per clean ACK, 1 after a timeout",
	.windowed = true,
	.settings_size = sizeof(struct hs_ecn_window_settings),
	.state_size = sizeof(struct hs_ecn_window_state),
	.defaults = ecn_window_defaults,
	.parse = ecn_window_parse,
	.start = ecn_window_start,
	.may_send = ecn_window_may_send,
	.window = ecn_window_window,
	.on_ack = ecn_window_on_ack,
	.on_timeout = ecn_window_on_timeout,
};

/* NSCC, in hs_nscc.c; RCCC, in hs_rccc.c. */
extern const struct hs_cc_ops hs_cc_nscc;
extern const struct hs_cc_ops hs_cc_rccc;

const struct hs_cc_ops *hs_cc_registry[HS_MAX_CC + 1] = {
	&cc_rate,
	&cc_ecn_window,
	&hs_cc_nscc,
	&hs_cc_rccc,
	NULL,
};

OFAN_REGISTRY_API(hs_cc, struct hs_cc_ops, hs_cc_registry, HS_MAX_CC)

int
hs_cc_register(const struct hs_cc_ops *ops)
{
	if (!hs_cc_reg_named(ops) ||
	    (ops->windowed || ops->pulls) != (ops->may_send != NULL) ||
	    ops->windowed != (ops->window != NULL) ||
	    (ops->pulls && (ops->on_sent == NULL || ops->on_pull == NULL ||
			    ops->speculating == NULL)) ||
	    (ops->ack_request && ops->may_send == NULL) ||
	    ops->settings_size > HS_CC_SETTINGS_MAX ||
	    ops->state_size > HS_CC_STATE_MAX ||
	    strlen(ops->name) > HS_CC_NAME_MAX)
		return -EINVAL;
	return hs_cc_reg_add(ops);
}

void
hs_cc_settings_defaults(struct hs_cc_settings_table *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; hs_cc_registry[i] != NULL; i++)
		if (hs_cc_registry[i]->defaults != NULL)
			hs_cc_registry[i]->defaults(t->of[i].bytes);
}

int
hs_cc_settings_from_cfg(struct ofan_cfg *cfg, struct hs_cc_settings_table *t)
{
	char sec[sizeof(HS_CC_SECTION) + HS_CC_NAME_MAX];
	unsigned int i;

	for (i = 0; hs_cc_registry[i] != NULL; i++) {
		const struct hs_cc_ops *ops = hs_cc_registry[i];

		if (ops->parse == NULL)
			continue;
		snprintf(sec, sizeof(sec), HS_CC_SECTION "%s", ops->name);
		if (ops->parse(cfg, sec, t->of[i].bytes) != 0)
			return -EINVAL;
	}
	return 0;
}

const void *
hs_cc_settings_of(const struct hs_cc_settings_table *t,
		  const struct hs_cc_ops *ops)
{
	unsigned int i;

	for (i = 0; hs_cc_registry[i] != NULL; i++)
		if (hs_cc_registry[i] == ops)
			return ops->settings_size > 0 ? t->of[i].bytes : NULL;
	return NULL;
}

