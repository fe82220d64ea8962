/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plb: Protective Load Balancing.
 *
 * A connection stays on one EV, like fixed, until the path looks bad:
 * it counts its ACKs in rounds of bdp_pkts ACKs (at least one) and the
 * CE-marked ones among them.  A round is congested when the CE fraction
 * is above ce_threshold (0.25); after congested_rounds (1) congested
 * rounds in a row the connection moves to a new random EV, different from
 * the current one, and starts counting afresh.  A clean round resets the
 * run.  A retransmission timeout moves it at once: the path may be dead,
 * and waiting for a round of ACKs that never come would wait forever.
 *
 * Only ACKs that echo the current EV count.  Right after a move, up to a
 * window of ACKs still return from the old path, CE-marked by the very
 * congestion that caused the move; counted, they would blame the new path
 * and trigger a second move for nothing.
 *
 * Trade-off: no reordering except at a move (once per congestion event,
 * not per packet), but it reacts only to persistent congestion and
 * cannot split one connection over several paths.
 */
#include "hlb.h"
#include "hlb_plb.h"
#include "ofan_config.h"

#define HLB_PLB_MAX_ROUNDS 1000

struct hlb_plb {
	uint64_t nb_repaths;		/* moves after congested rounds */
	uint64_t nb_repaths_timeout;	/* moves after a timeout */
	uint32_t nb_acks;		/* ACKs of the current round */
	uint32_t nb_ce;			/* of which CE-marked */
	uint32_t nb_congested;		/* congested rounds in a row */
	uint16_t ev;
};

/* This policy's settings (hlb_params.settings). */
static inline const struct hlb_plb_settings *
hlb_plb_set(const struct hlb_params *p)
{
	return p->settings;
}

static void
hlb_plb_defaults(void *settings)
{
	struct hlb_plb_settings *s = settings;

	s->ce_threshold = 0.25;
	s->congested_rounds = 1;
}

static int
hlb_plb_parse(struct ofan_cfg *cfg, void *settings)
{
	struct hlb_plb_settings *s = settings;
	double threshold = s->ce_threshold;
	uint32_t rounds = s->congested_rounds;
	int ret;

	ret = ofan_cfg_get_double(cfg, "host.plb", "ce_threshold", 0, 0.0,
				  1.0, &threshold);
	if (ret < 0)
		return ret;
	ret = ofan_cfg_get_u32(cfg, "host.plb", "congested_rounds", 0, 1,
			       HLB_PLB_MAX_ROUNDS, &rounds);
	if (ret < 0)
		return ret;
	s->ce_threshold = threshold;
	s->congested_rounds = rounds;
	return 0;
}

static void
hlb_plb_init(void *state, const struct hlb_params *p, struct ofan_rng *rng,
	     uint64_t now_ns)
{
	struct hlb_plb *st = state;

	st->ev = hlb_random_ev(p, rng);
}

static void
hlb_plb_repath(struct hlb_plb *st, const struct hlb_params *p,
	       struct ofan_rng *rng)
{
	st->ev = hlb_random_other_ev(p, rng, st->ev);
	st->nb_acks = 0;
	st->nb_ce = 0;
	st->nb_congested = 0;
}

static uint16_t
hlb_plb_next_ev(void *state, const struct hlb_params *p,
		struct ofan_rng *rng, uint64_t now_ns)
{
	const struct hlb_plb *st = state;

	return st->ev;
}

static void
hlb_plb_on_ack(void *state, const struct hlb_params *p,
	       struct ofan_rng *rng, uint16_t ev, bool ce, uint64_t rtt_ns,
	       uint64_t now_ns)
{
	struct hlb_plb *st = state;
	uint32_t round = p->bdp_pkts > 0 ? p->bdp_pkts : 1;
	bool congested;

	if (ev != st->ev)
		return;
	st->nb_acks++;
	st->nb_ce += ce;
	if (st->nb_acks < round)
		return;
	congested = (double)st->nb_ce >
		    hlb_plb_set(p)->ce_threshold * (double)st->nb_acks;
	st->nb_acks = 0;
	st->nb_ce = 0;
	if (!congested) {
		st->nb_congested = 0;
		return;
	}
	if (++st->nb_congested < hlb_plb_set(p)->congested_rounds)
		return;
	hlb_plb_repath(st, p, rng);
	st->nb_repaths++;
}

static void
hlb_plb_on_timeout(void *state, const struct hlb_params *p,
		   struct ofan_rng *rng, uint64_t now_ns)
{
	struct hlb_plb *st = state;

	hlb_plb_repath(st, p, rng);
	st->nb_repaths_timeout++;
}

static void
hlb_plb_dump(const void *state,
	     void (*emit)(void *arg, const char *key, uint64_t value),
	     void *arg)
{
	const struct hlb_plb *st = state;

	emit(arg, "repaths", st->nb_repaths);
	emit(arg, "repaths_timeout", st->nb_repaths_timeout);
	emit(arg, "ev", st->ev);
}

const struct hlb_ops hlb_plb_ops = {
	.name = "plb",
	.summary = "one EV, moved after congested rounds of ACKs or a timeout",
	.settings_size = sizeof(struct hlb_plb_settings),
	.defaults = hlb_plb_defaults,
	.parse = hlb_plb_parse,
	.state_size = sizeof(struct hlb_plb),
	.init = hlb_plb_init,
	.next_ev = hlb_plb_next_ev,
	.on_ack = hlb_plb_on_ack,
	.on_timeout = hlb_plb_on_timeout,
	.dump = hlb_plb_dump,
};
