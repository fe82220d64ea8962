/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lossy links, as ofan-fabric's wire and ofan-switch's egress ports lose
 * frames on purpose ([drop.NAME] mode = random or bursts), data and ACKs
 * alike:
 *  - random: each frame with probability rate;
 *  - bursts: htsim's flaky link (-flakylinks): a burst is due every
 *    `every`, the first at `first` (from the start); it starts with the
 *    first frame seen at or after that time and lasts `length`
 *    (exponentially distributed with that mean, as htsim draws it, or
 *    fixed), losing every frame seen by its end (the first after it
 *    passes); the next is due `every` after the burst began, or after it
 *    ended when it ran longer.
 * ofan-fabric asks at the end of a frame's serialisation (htsim decides
 * at the end of a packet's service too); ofan-switch as a frame enters
 * its egress port.  Each lossy link draws from its own random stream.
 */
#ifndef OFAN_LOSS_H
#define OFAN_LOSS_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "ofan_config.h"
#include "ofan_rng.h"

enum ofan_loss_mode { OFAN_LOSS_NONE = 0, OFAN_LOSS_RANDOM, OFAN_LOSS_BURSTS };

struct ofan_loss_cfg {
	uint8_t mode;			/* enum ofan_loss_mode */
	bool length_fixed;		/* else exponential */
	double rate;			/* random */
	uint64_t every_ns, first_ns, length_ns;	/* bursts */
};

/* One lossy link's state. */
struct ofan_loss {
	const struct ofan_loss_cfg *c;
	struct ofan_rng rng;
	uint64_t next_burst;	/* absolute: when the next burst is due */
	uint64_t burst_end;	/* absolute, while in_burst */
	bool in_burst;
};

/* htsim's flaky link: due every 100 us, 10 us long, the first at 100 us. */
static inline void
ofan_loss_defaults(struct ofan_loss_cfg *c)
{
	c->every_ns = 100 * 1000;
	c->length_ns = 10 * 1000;
	c->first_ns = UINT64_MAX;	/* = every, unless set */
	c->length_fixed = false;
	c->rate = 0;
}

/*
 * [sec]'s keys of mode c->mode (set by the caller): rate (required) for
 * random; every, length, length_fixed and first for bursts.  Returns 0 or
 * -EINVAL with the message in cfg.
 */
static inline int
ofan_loss_parse(struct ofan_cfg *cfg, const char *sec, struct ofan_loss_cfg *c)
{
	/* Missing for a mode an override chose: the override's mistake. */
	if (c->mode == OFAN_LOSS_RANDOM && !ofan_cfg_has_key(cfg, sec, "rate") &&
	    ofan_cfg_overridden(cfg, sec, "mode"))
		return ofan_cfg_fail(cfg, sec, "mode",
			"'%s' without a rate; expected rate = the probability of a loss too, or another mode",
			ofan_cfg_value(cfg, sec, "mode"));
	if (ofan_cfg_get_double(cfg, sec, "rate",
				c->mode == OFAN_LOSS_RANDOM ?
				OFAN_CFG_REQUIRED : 0, 0.0, 1.0, &c->rate) ||
	    ofan_cfg_get_time(cfg, sec, "every", 0, 1000,
			      3600ull * 1000000000ull, &c->every_ns) ||
	    ofan_cfg_get_time(cfg, sec, "length", 0, 1,
			      3600ull * 1000000000ull, &c->length_ns) ||
	    ofan_cfg_get_time(cfg, sec, "first", 0, 0,
			      3600ull * 1000000000ull, &c->first_ns) ||
	    ofan_cfg_get_bool(cfg, sec, "length_fixed", 0, &c->length_fixed))
		return -EINVAL;
	if (c->first_ns == UINT64_MAX)
		c->first_ns = c->every_ns;
	if (c->mode == OFAN_LOSS_RANDOM && c->rate <= 0.0)
		return ofan_cfg_fail(cfg, sec, "rate",
			"'%g' loses nothing; expected a probability in (0, 1]",
			c->rate);
	return 0;
}

/* Start l for c: its own stream (seed, stream), time counted from t0. */
static inline void
ofan_loss_start(struct ofan_loss *l, const struct ofan_loss_cfg *c,
		uint64_t seed, uint64_t stream, uint64_t t0)
{
	l->c = c;
	ofan_rng_seed(&l->rng, seed, stream);
	l->next_burst = t0 + c->first_ns;
	l->burst_end = 0;
	l->in_burst = false;
}

/* Whether l loses the frame seen at t. */
static inline bool
ofan_loss_hit(struct ofan_loss *l, uint64_t t)
{
	const struct ofan_loss_cfg *c = l->c;
	uint64_t len;

	if (c->mode == OFAN_LOSS_RANDOM)
		return ofan_rng_unit(&l->rng) < c->rate;
	if (l->in_burst) {
		if (t <= l->burst_end)
			return true;
		l->in_burst = false;	/* the first frame after it passes */
		return false;
	}
	if (t < l->next_burst)
		return false;
	len = c->length_ns;
	if (!c->length_fixed)
		len = (uint64_t)(-(double)c->length_ns *
				 log1p(-ofan_rng_unit(&l->rng)) + 0.5);
	l->in_burst = true;
	l->burst_end = t + len;
	l->next_burst = t + c->every_ns;
	if (l->burst_end > l->next_burst)
		l->next_burst = l->burst_end + c->every_ns;
	return true;
}

#endif /* OFAN_LOSS_H */
