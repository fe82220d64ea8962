/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * adaptive: adaptive routing on local queue occupancy, as in NVIDIA-style
 * AR.  Each packet goes to the live member whose egress queue has the
 * lowest occupancy level (view->port_level[grp->port[m]]); ties are broken
 * uniformly at random among the tied members.
 *
 * Where it sits: the load-balancing stage of the switch pipeline.  The
 * engine quantises each queue into [adaptive] levels (lb_params) and keeps
 * view->port_level current as it enqueues; this policy only reads it.
 *
 * Levels ([adaptive] levels or thresholds, lb_levels): linear by default
 * (8 levels; anything queued is above empty), or the occupancy
 * thresholds of the study's simulator (htsim's packet AR: 5, 10 and 20 %
 * of the queue, so short queues tie with empty ones and the tie-break
 * spreads them).  Packets and bytes are both measured; the capacity that
 * binds first decides.
 *
 * Trade-off: it reacts to congestion it can see, but only locally: a
 * queue downstream is invisible.  Coarse levels make ties common, which
 * the random tie-break then spreads.  The engine's levels do not move
 * within a burst, so when the view carries queue lengths the policy adds
 * its own picks of the burst before quantising; otherwise every packet of
 * a burst whose minimum is unique would go to the same member.
 */
#include <errno.h>
#include <stdlib.h>

#include "lb.h"
#include "ofan_config.h"
#include "ofan_rng.h"

#define LB_ADAPTIVE_STREAM 0x4164617074ull

struct lb_adaptive {
	struct ofan_rng rng;
	uint64_t nb_ties;	/* picks that broke a tie at random */
	uint16_t nb_ports;
	uint32_t *burst_picks;	/* [nb_ports] picks in the current burst */
	uint64_t *burst_bytes;	/* [nb_ports] their bytes */
} __attribute__((aligned(64)));

#define LB_ADAPTIVE_THRESHOLDS_EXPECT \
	"increasing fractions of the queue between 0 and 1, comma separated (at most 15), e.g. 0.05, 0.1, 0.2"

/* [adaptive] thresholds = 0.05, 0.1, 0.2 into lv. */
static int
lb_adaptive_parse_thresholds(struct ofan_cfg *cfg, const char *text,
			     struct lb_levels *lv)
{
	const char *c = text;
	double prev = 0.0;
	uint8_t n = 0;

	for (;;) {
		char *end;
		double f;

		while (*c == ' ')
			c++;
		f = strtod(c, &end);
		if (end == c || f <= prev || f >= 1.0 ||
		    n == LB_MAX_THRESHOLDS)
			return ofan_cfg_fail(cfg, "adaptive", "thresholds",
				"'%s' is not a list of thresholds; expected "
				LB_ADAPTIVE_THRESHOLDS_EXPECT, text);
		lv->threshold[n] = (uint32_t)(f * 1e6 + 0.5);
		if (lv->threshold[n] == 0 ||
		    (n > 0 && lv->threshold[n] <= lv->threshold[n - 1]))
			return ofan_cfg_fail(cfg, "adaptive", "thresholds",
				"'%s': %g is too close to its neighbour; expected "
				LB_ADAPTIVE_THRESHOLDS_EXPECT, text, f);
		n++;
		prev = f;
		c = end;
		while (*c == ' ')
			c++;
		if (*c == '\0')
			break;
		if (*c != ',')
			return ofan_cfg_fail(cfg, "adaptive", "thresholds",
				"'%s' is not a list of thresholds; expected "
				LB_ADAPTIVE_THRESHOLDS_EXPECT, text);
		c++;
	}
	lv->nb_thresholds = n;
	lv->nb_levels = (uint8_t)(n + 1);
	return 0;
}

static int
lb_adaptive_parse(struct ofan_cfg *cfg, struct lb_params *p)
{
	struct lb_levels *lv = &p->adaptive.levels;
	uint32_t levels = lv->nb_levels;
	const char *text = NULL;
	int ret;

	ret = ofan_cfg_get_u32(cfg, "adaptive", "levels", 0, 2, 16, &levels);
	if (ret < 0)
		return ret;
	ret = ofan_cfg_get_str(cfg, "adaptive", "thresholds", 0, &text);
	if (ret < 0)
		return ret;
	if (text == NULL) {
		lv->nb_levels = (uint8_t)levels;
		lv->nb_thresholds = 0;
		return 0;
	}
	if (ofan_cfg_has_key(cfg, "adaptive", "levels"))
		return ofan_cfg_fail(cfg, "adaptive", "levels",
			"'%u' with thresholds; expected one of levels (linear) and thresholds",
			levels);
	return lb_adaptive_parse_thresholds(cfg, text, lv);
}

static int
lb_adaptive_create(const struct lb_params *p, void **state)
{
	struct lb_adaptive *st;

	if (posix_memalign((void **)&st, 64, sizeof(*st)) != 0)
		return -ENOMEM;
	ofan_rng_seed(&st->rng, p->seed, LB_ADAPTIVE_STREAM);
	st->nb_ties = 0;
	st->nb_ports = p->nb_ports;
	st->burst_picks = calloc(p->nb_ports ? p->nb_ports : 1,
				 sizeof(*st->burst_picks));
	st->burst_bytes = calloc(p->nb_ports ? p->nb_ports : 1,
				 sizeof(*st->burst_bytes));
	if (st->burst_picks == NULL || st->burst_bytes == NULL) {
		free(st->burst_picks);
		free(st->burst_bytes);
		free(st);
		return -ENOMEM;
	}
	*state = st;
	return 0;
}

static void
lb_adaptive_destroy(void *state)
{
	struct lb_adaptive *st = state;

	free(st->burst_picks);
	free(st->burst_bytes);
	free(st);
}

/* Nothing is derived from the group: pick() reads its live list. */
static void
lb_adaptive_group_changed(void *state, const struct lb_group *grp)
{
}

/* Without a view every queue looks empty: a uniform random pick. */
static void
lb_adaptive_pick_blind(struct lb_adaptive *st, const struct lb_pkt *pkts,
		       uint16_t n, uint16_t *out)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct lb_group *grp = pkts[i].grp;

		if (grp->nb_live == 0)
			out[i] = LB_NONE;
		else
			out[i] = grp->live[ofan_rng_below(&st->rng,
							  grp->nb_live)];
	}
}

static void
lb_adaptive_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
		 const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct lb_adaptive *st = state;
	const uint8_t *level;
	uint16_t tied[LB_MAX_MEMBERS];
	uint16_t i;

	if (view == NULL || view->port_level == NULL) {
		lb_adaptive_pick_blind(st, pkts, n, out);
		return;
	}
	level = view->port_level;
	for (i = 0; i < n; i++) {
		const struct lb_group *grp = pkts[i].grp;
		uint16_t nb_live = grp->nb_live;
		uint8_t lvl[LB_MAX_MEMBERS];
		unsigned int best = UINT8_MAX;
		unsigned int nb_tied = 0;
		uint16_t k;

		/*
		 * Two branch-free passes, the minimum and then the members
		 * at it: 27 instead of 32 ns per packet over 8 members
		 * (one branchy pass) in a 64-packet burst micro-benchmark.
		 */
		if (view->port_len != NULL && view->port_bytes != NULL) {
			for (k = 0; k < nb_live; k++) {
				uint16_t port = grp->port[grp->live[k]];

				lvl[k] = lb_queue_level(view->port_len[port] +
					st->burst_picks[port],
					view->port_cap[port],
					view->port_bytes[port] +
					st->burst_bytes[port],
					view->port_cap_bytes[port],
					view->levels);
			}
		} else if (view->port_len != NULL) {
			for (k = 0; k < nb_live; k++) {
				uint16_t port = grp->port[grp->live[k]];

				lvl[k] = lb_queue_level(view->port_len[port] +
					st->burst_picks[port],
					view->port_cap[port], 0, UINT64_MAX,
					view->levels);
			}
		} else {
			for (k = 0; k < nb_live; k++)
				lvl[k] = level[grp->port[grp->live[k]]];
		}
		for (k = 0; k < nb_live; k++)
			best = lvl[k] < best ? lvl[k] : best;
		for (k = 0; k < nb_live; k++) {
			tied[nb_tied] = grp->live[k];
			nb_tied += lvl[k] == best;
		}
		if (nb_tied == 0) {
			out[i] = LB_NONE;
		} else if (nb_tied == 1) {
			out[i] = tied[0];
		} else {
			out[i] = tied[ofan_rng_below(&st->rng, nb_tied)];
			st->nb_ties++;
		}
		if (out[i] != LB_NONE && grp->port[out[i]] < st->nb_ports) {
			st->burst_picks[grp->port[out[i]]]++;
			st->burst_bytes[grp->port[out[i]]] += pkts[i].len;
		}
	}
	/* The engine's lengths include this burst from the next call on. */
	for (i = 0; i < n; i++)
		if (out[i] != LB_NONE &&
		    pkts[i].grp->port[out[i]] < st->nb_ports) {
			st->burst_picks[pkts[i].grp->port[out[i]]] = 0;
			st->burst_bytes[pkts[i].grp->port[out[i]]] = 0;
		}
}

static void
lb_adaptive_dump(void *state,
		 void (*emit)(void *arg, const char *key, uint64_t value),
		 void *arg)
{
	const struct lb_adaptive *st = state;

	emit(arg, "ties", st->nb_ties);
}

const struct lb_ops lb_adaptive_ops = {
	.name = "adaptive",
	.summary = "least occupied egress queue, random among ties",
	.uses_flow_hash = false,
	.uses_queue_levels = true,
	.parse = lb_adaptive_parse,
	.create = lb_adaptive_create,
	.destroy = lb_adaptive_destroy,
	.group_changed = lb_adaptive_group_changed,
	.pick = lb_adaptive_pick,
	.dump = lb_adaptive_dump,
};
