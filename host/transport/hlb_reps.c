/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reps: Recycled Entropy Packet Spraying.
 *
 * A connection sprays its packets, but prefers EVs that are known to be
 * good: an ACK without CE says the path of its EV was uncongested a
 * round trip ago, so its EV goes into an 8-slot ring (the oldest entry is
 * overwritten when the ring is full).  Each data packet takes the oldest
 * cached EV and consumes it, so a good EV is used once per ACK that
 * vouched for it; with the ring empty the packet explores a random EV.  A
 * CE-marked ACK drops its EV: the congested path gets no more traffic
 * from this connection until a random draw lands on it again.  In steady
 * state every ACK recycles one EV into one packet, so the connection
 * keeps about a window of packets on the paths that deliver without
 * marks.
 *
 * Freezing, for failures.  A retransmission timeout while the recent RTTs
 * are low means packets vanished on an uncongested fabric: a black hole,
 * not a queue.  Recent RTTs are the last HLB_REPS_RTT_SAMPLES (8) nonzero
 * RTT samples of the connection's ACKs, whenever they came (a timeout
 * does not clear them, so they describe the fabric just before the losses
 * began); they are low when their maximum is below freeze_rtt_factor
 * (1.65) x base_rtt_ns, and with no sample yet they count as low.  The
 * connection then freezes for freeze_ns (10 ms) from the timeout: it
 * stops exploring (a random EV could be the black hole) and cycles over
 * the cached EVs, oldest first, without consuming them, since they are
 * the EVs last seen to work.  ACKs keep feeding the ring while frozen (a
 * non-CE ACK is fresh evidence; a CE ACK is still dropped), so the cycle
 * follows the working paths.  With an empty ring there is nothing to
 * cycle and a frozen packet takes a random EV.  Timeouts while frozen do
 * not extend the freeze.  When freeze_ns has passed the ring is cleared
 * (the failure may have changed which paths are good) and the next
 * bdp_pkts packets (at least one) explore random EVs while ACKs refill
 * the ring; only then does recycling resume.
 *
 * With erasure recovery there is no retransmission timeout; as in the
 * study's simulator, a path timeout takes its place: the EV just chosen
 * still has a packet out after an RTO (the sender's per-EV timers).  It
 * freezes as a timeout does, except while exploring after a freeze.
 *
 * Trade-off: adapts per packet to congestion with 8 EVs of state and no
 * switch support; it reorders like spraying and its knowledge is one
 * round trip old.
 */
#include "hlb.h"
#include "hlb_reps.h"
#include "ofan_config.h"

#define HLB_REPS_RTT_SAMPLES 8
#define HLB_REPS_MIN_FREEZE_NS 1000ull			/* 1 us */
#define HLB_REPS_MAX_FREEZE_NS 10000000000ull		/* 10 s */

struct hlb_reps {
	uint64_t rtt[HLB_REPS_RTT_SAMPLES]; /* last nonzero RTT samples */
	uint64_t thaw_ns;	/* when the current freeze ends */
	uint64_t nb_recycled;	/* packets that consumed a cached EV */
	uint64_t nb_explored;	/* packets that drew a random EV */
	uint64_t nb_ce_dropped;	/* CE-marked ACKs, EV not cached */
	uint64_t nb_freezes;
	uint64_t nb_path_timeouts;	/* erasure: EVs found timed out */
	uint64_t nb_frozen_packets; /* packets sent while frozen */
	uint32_t explore_left;	/* random packets left after a freeze */
	uint16_t ring[HLB_REPS_SLOTS];
	uint8_t head;		/* slot of the oldest cached EV */
	uint8_t nb_cached;
	uint8_t nb_rtt;		/* valid entries of rtt[] */
	uint8_t rtt_next;	/* slot of the next sample */
	uint8_t cycle_pos;	/* next cached EV to reuse while frozen */
	bool frozen;
};

/* This policy's settings (hlb_params.settings). */
static inline const struct hlb_reps_settings *
hlb_reps_set(const struct hlb_params *p)
{
	return p->settings;
}

static void
hlb_reps_defaults(void *settings)
{
	struct hlb_reps_settings *s = settings;

	s->freeze_ns = 10 * 1000 * 1000;
	s->freeze_rtt_factor = 1.65;
}

static int
hlb_reps_parse(struct ofan_cfg *cfg, void *settings)
{
	struct hlb_reps_settings *s = settings;
	uint64_t freeze_ns = s->freeze_ns;
	double factor = s->freeze_rtt_factor;
	int ret;

	ret = ofan_cfg_get_time(cfg, "host.reps", "freeze_time", 0,
				HLB_REPS_MIN_FREEZE_NS, HLB_REPS_MAX_FREEZE_NS,
				&freeze_ns);
	if (ret < 0)
		return ret;
	ret = ofan_cfg_get_double(cfg, "host.reps", "freeze_rtt_factor", 0,
				  1.0, 100.0, &factor);
	if (ret < 0)
		return ret;
	s->freeze_ns = freeze_ns;
	s->freeze_rtt_factor = factor;
	return 0;
}

static void
hlb_reps_init(void *state, const struct hlb_params *p,
	      struct ofan_rng *rng, uint64_t now_ns)
{
	/* The zeroed state is an empty ring, not frozen, no RTT sample. */
}

/* Cache ev as the newest entry, overwriting the oldest when full. */
static void
hlb_reps_cache(struct hlb_reps *st, uint16_t ev)
{
	if (st->nb_cached == HLB_REPS_SLOTS) {
		st->ring[st->head] = ev;
		st->head = (uint8_t)((st->head + 1) % HLB_REPS_SLOTS);
		return;
	}
	st->ring[(st->head + st->nb_cached) % HLB_REPS_SLOTS] = ev;
	st->nb_cached++;
}

/*
 * End a freeze whose time is up.  Every entry point calls this first, so
 * the freeze ends at the first event at or after thaw_ns.
 */
static void
hlb_reps_thaw(struct hlb_reps *st, const struct hlb_params *p,
	      uint64_t now_ns)
{
	if (!st->frozen || now_ns < st->thaw_ns)
		return;
	st->frozen = false;
	st->nb_cached = 0;
	st->head = 0;
	st->explore_left = p->bdp_pkts > 0 ? p->bdp_pkts : 1;
}

static uint16_t
hlb_reps_explore(struct hlb_reps *st, const struct hlb_params *p,
		 struct ofan_rng *rng)
{
	st->nb_explored++;
	return hlb_random_ev(p, rng);
}

static uint16_t
hlb_reps_next_ev(void *state, const struct hlb_params *p,
		 struct ofan_rng *rng, uint64_t now_ns)
{
	struct hlb_reps *st = state;
	uint16_t ev;

	hlb_reps_thaw(st, p, now_ns);
	if (st->frozen) {
		uint8_t i;

		st->nb_frozen_packets++;
		if (st->nb_cached == 0)
			return hlb_reps_explore(st, p, rng);
		/* ACKs may have grown the ring since the last packet. */
		i = st->cycle_pos % st->nb_cached;
		st->cycle_pos = (uint8_t)(i + 1);
		return st->ring[(st->head + i) % HLB_REPS_SLOTS];
	}
	if (st->explore_left > 0) {
		st->explore_left--;
		return hlb_reps_explore(st, p, rng);
	}
	if (st->nb_cached == 0)
		return hlb_reps_explore(st, p, rng);
	ev = st->ring[st->head];
	st->head = (uint8_t)((st->head + 1) % HLB_REPS_SLOTS);
	st->nb_cached--;
	st->nb_recycled++;
	return ev;
}

static void
hlb_reps_on_ack(void *state, const struct hlb_params *p,
		struct ofan_rng *rng, uint16_t ev, bool ce, uint64_t rtt_ns,
		uint64_t now_ns)
{
	struct hlb_reps *st = state;

	hlb_reps_thaw(st, p, now_ns);
	if (rtt_ns != 0) {
		st->rtt[st->rtt_next] = rtt_ns;
		st->rtt_next = (uint8_t)((st->rtt_next + 1) %
					 HLB_REPS_RTT_SAMPLES);
		if (st->nb_rtt < HLB_REPS_RTT_SAMPLES)
			st->nb_rtt++;
	}
	if (ce) {
		st->nb_ce_dropped++;
		return;
	}
	/* A corrupt echo must not smuggle an EV outside the range in. */
	if (ev < p->ev_min || ev > p->ev_max)
		return;
	hlb_reps_cache(st, ev);
}

/* True if the recent RTTs are low: no sample yet, or max < factor x base. */
static bool
hlb_reps_rtt_low(const struct hlb_reps *st, const struct hlb_params *p)
{
	uint64_t max = 0;
	uint8_t i;

	for (i = 0; i < st->nb_rtt; i++)
		if (st->rtt[i] > max)
			max = st->rtt[i];
	return st->nb_rtt == 0 ||
	       (double)max < hlb_reps_set(p)->freeze_rtt_factor * (double)p->base_rtt_ns;
}

/* Freeze, unless frozen already or the RTTs say congestion. */
static void
hlb_reps_freeze(struct hlb_reps *st, const struct hlb_params *p,
		uint64_t now_ns)
{
	/* High RTTs: the losses are congestion drops, spraying handles it. */
	if (st->frozen || !hlb_reps_rtt_low(st, p))
		return;
	st->frozen = true;
	st->thaw_ns = now_ns + hlb_reps_set(p)->freeze_ns;
	st->cycle_pos = 0;
	st->explore_left = 0;
	st->nb_freezes++;
}

static void
hlb_reps_on_timeout(void *state, const struct hlb_params *p,
		    struct ofan_rng *rng, uint64_t now_ns)
{
	struct hlb_reps *st = state;

	hlb_reps_thaw(st, p, now_ns);
	hlb_reps_freeze(st, p, now_ns);
}

/*
 * With erasure recovery: the EV just chosen still has a packet out after
 * an RTO.  As the study's REPS, a path timeout freezes -- but not while
 * exploring after a freeze -- and the host draws another EV.
 */
static void
hlb_reps_on_path_timeout(void *state, const struct hlb_params *p,
			 struct ofan_rng *rng, uint16_t ev, uint64_t now_ns)
{
	struct hlb_reps *st = state;

	hlb_reps_thaw(st, p, now_ns);
	st->nb_path_timeouts++;
	if (st->explore_left == 0)
		hlb_reps_freeze(st, p, now_ns);
}

static void
hlb_reps_dump(const void *state,
	      void (*emit)(void *arg, const char *key, uint64_t value),
	      void *arg)
{
	const struct hlb_reps *st = state;

	emit(arg, "recycled", st->nb_recycled);
	emit(arg, "explored", st->nb_explored);
	emit(arg, "ce_dropped", st->nb_ce_dropped);
	emit(arg, "freezes", st->nb_freezes);
	emit(arg, "path_timeouts", st->nb_path_timeouts);
	emit(arg, "frozen_packets", st->nb_frozen_packets);
	emit(arg, "cached", st->nb_cached);
	emit(arg, "frozen", st->frozen);
}

const struct hlb_ops hlb_reps_ops = {
	.name = "reps",
	.summary = "recycled entropy: reuse EVs of unmarked ACKs",
	.settings_size = sizeof(struct hlb_reps_settings),
	.defaults = hlb_reps_defaults,
	.parse = hlb_reps_parse,
	.state_size = sizeof(struct hlb_reps),
	.init = hlb_reps_init,
	.next_ev = hlb_reps_next_ev,
	.on_ack = hlb_reps_on_ack,
	.on_timeout = hlb_reps_on_timeout,
	.on_path_timeout = hlb_reps_on_path_timeout,
	.dump = hlb_reps_dump,
};
