/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drb: host-side destination-based rotation, htsim's -hostlb drb.  Each
 * connection rotates its data packets over every path to its destination,
 * one step per packet (a retransmission or an extra coded packet
 * included), from a random start: path p = (start + count) % P, written
 * into the EV as ev_min + p for the switches' source-routing policy (sr,
 * switch/policy/lb_sr.h) to follow digit by digit.  With radix k/2 and two
 * tiers, P = (k/2)^2 is every core of a k-ary fat tree; towards a
 * destination in the same pod the ToR's digit alone matters, and it
 * cycles over the pod's aggregation switches evenly too.
 *
 * ACKs rotate as well, at their own offset: the receiver sends each ACK
 * on path (p + offset) % P of the data packet's p, the offset a per-flow
 * constant in 1 .. P - 1, so an ACK never shares its data packet's path
 * index -- htsim's separate random ACK pointer, which stays a constant
 * distance from the data pointer while nothing is lost.
 *
 * Feedback changes nothing: like htsim's host DR, drb never routes around
 * a failure (sr wraps a digit that names a dead member).
 */
#include <errno.h>

#include "hlb.h"
#include "hlb_drb.h"
#include "ofan_config.h"

#define HLB_DRB_MAX_PATHS 65536u

struct hlb_drb {
	uint32_t start;		/* the random first path */
	uint32_t count;		/* data packets sent */
	uint32_t paths;		/* how many, from the settings, at init */
};

uint32_t
hlb_drb_paths(const struct hlb_drb_settings *s, uint32_t ev_range)
{
	uint64_t p = 1;
	uint32_t t;

	if (s->radix == 0)	/* unknown paths: every EV of the range */
		return ev_range;
	for (t = 0; t < s->tiers && p < HLB_DRB_MAX_PATHS; t++)
		p *= s->radix;
	if (p > ev_range)
		p = ev_range;
	return (uint32_t)(p == 0 ? 1 : p);
}

static uint32_t
hlb_drb_nb_paths(const struct hlb_params *p)
{
	const struct hlb_drb_settings *s = p->settings;
	uint32_t range = (uint32_t)p->ev_max - p->ev_min + 1;

	return s != NULL ? hlb_drb_paths(s, range) : range;
}

static void
hlb_drb_defaults(void *settings)
{
	struct hlb_drb_settings *s = settings;

	s->radix = 0;
	s->tiers = 2;
}

static int
hlb_drb_parse(struct ofan_cfg *cfg, void *settings)
{
	struct hlb_drb_settings *s = settings;
	uint32_t radix = s->radix, tiers = s->tiers;

	if (ofan_cfg_get_u32(cfg, "host.drb", "radix", 0, 0, 64, &radix) ||
	    ofan_cfg_get_u32(cfg, "host.drb", "tiers", 0, 1, 3, &tiers))
		return -EINVAL;
	if (radix == 1)
		return ofan_cfg_fail(cfg, "host.drb", "radix",
			"'1' has one path; expected 0 (ofan-fabric: from the topology) or 2..64");
	s->radix = radix;
	s->tiers = tiers;
	return 0;
}

static void
hlb_drb_init(void *state, const struct hlb_params *p, struct ofan_rng *rng,
	     uint64_t now_ns)
{
	struct hlb_drb *st = state;

	st->paths = hlb_drb_nb_paths(p);
	st->start = ofan_rng_below(rng, st->paths);
	st->count = 0;
}

static uint16_t
hlb_drb_next_ev(void *state, const struct hlb_params *p,
		struct ofan_rng *rng, uint64_t now_ns)
{
	struct hlb_drb *st = state;

	return (uint16_t)(p->ev_min + (st->start + st->count++) % st->paths);
}

/*
 * The ACK of a data packet sent on ev: path (p + offset) % P, offset in
 * 1 .. P - 1 from the flow's salt.
 */
static uint16_t
hlb_drb_ack_ev(const struct hlb_params *p, uint32_t salt, uint16_t ev)
{
	uint32_t n = hlb_drb_nb_paths(p);
	uint32_t path = (uint16_t)(ev - p->ev_min) % n;

	if (n < 2)
		return ev;
	return (uint16_t)(p->ev_min + (path + 1 + salt % (n - 1)) % n);
}

static void
hlb_drb_on_ack(void *state, const struct hlb_params *p, struct ofan_rng *rng,
	       uint16_t ev, bool ce, uint64_t rtt_ns, uint64_t now_ns)
{
}

static void
hlb_drb_on_timeout(void *state, const struct hlb_params *p,
		   struct ofan_rng *rng, uint64_t now_ns)
{
}

static void
hlb_drb_dump(const void *state,
	     void (*emit)(void *arg, const char *key, uint64_t value),
	     void *arg)
{
	const struct hlb_drb *st = state;

	emit(arg, "start", st->start);
	emit(arg, "sent", st->count);
}

const struct hlb_ops hlb_drb_ops = {
	.name = "drb",
	.summary = "host-side DR: each packet on the next path, source-routed by the EV through sr switches (htsim's drb)",
	.switch_policy = "sr",
	.settings_size = sizeof(struct hlb_drb_settings),
	.defaults = hlb_drb_defaults,
	.parse = hlb_drb_parse,
	.state_size = sizeof(struct hlb_drb),
	.init = hlb_drb_init,
	.next_ev = hlb_drb_next_ev,
	.ack_ev = hlb_drb_ack_ev,
	.on_ack = hlb_drb_on_ack,
	.on_timeout = hlb_drb_on_timeout,
	.dump = hlb_drb_dump,
};
