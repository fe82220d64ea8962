/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flowlet: keep the current EV while ACKs keep coming; after an ACK gap
 * longer than [host.flowlet] gap (0, the default: half the base RTT) the
 * next packet starts a new flowlet on a new random EV, different from the
 * current one.
 *
 * The gap is checked when a packet is sent, not when the next ACK comes
 * in: a packet is sent with a new EV if more than the gap has passed
 * since the later of the last ACK and the start of the current flowlet.
 * Checking at the next ACK would never move a connection whose path went
 * dark, since no ACK comes back from a black hole; checking at send time
 * moves its retransmission.  Counting from the flowlet's start too means
 * the packets that follow a move, sent before any ACK can come back, stay
 * on the new EV instead of each moving again.
 *
 * Before the first ACK there is no ACK gap yet, so a connection keeps its
 * first EV through its first round trip instead of moving at half the
 * base RTT for want of an ACK that cannot have arrived.  A retransmission
 * timeout starts a new flowlet at the next packet in any case (an RTO is
 * an ACK gap of at least the RTO), which also frees a connection whose
 * very first path is a black hole.
 *
 * Trade-off: ACK gaps of half an RTT mean the connection's in-flight
 * packets have drained, so a move rarely reorders; but a connection that
 * never pauses never moves, however congested its path.
 */
#include "hlb.h"
#include "hlb_flowlet.h"
#include "ofan_config.h"

#define HLB_FLOWLET_MAX_GAP_NS 1000000000ull	/* 1 s */

struct hlb_flowlet {
	uint64_t last_ns;	/* last ACK or flowlet start, the later */
	uint64_t nb_flowlets;	/* flowlets started, the first included */
	uint16_t ev;
	bool acked;		/* an ACK came: gaps are measured */
	bool move;		/* a timeout: the next packet moves */
};

/* This policy's settings (hlb_params.settings). */
static inline const struct hlb_flowlet_settings *
hlb_flowlet_set(const struct hlb_params *p)
{
	return p->settings;
}

static void
hlb_flowlet_defaults(void *settings)
{
	struct hlb_flowlet_settings *s = settings;

	s->gap_ns = 0;
}

static int
hlb_flowlet_parse(struct ofan_cfg *cfg, void *settings)
{
	struct hlb_flowlet_settings *s = settings;
	uint64_t gap_ns = s->gap_ns;
	int ret;

	ret = ofan_cfg_get_time(cfg, "host.flowlet", "gap", 0, 0,
				HLB_FLOWLET_MAX_GAP_NS, &gap_ns);
	if (ret < 0)
		return ret;
	s->gap_ns = gap_ns;
	return 0;
}

static void
hlb_flowlet_init(void *state, const struct hlb_params *p,
		 struct ofan_rng *rng, uint64_t now_ns)
{
	struct hlb_flowlet *st = state;

	st->ev = hlb_random_ev(p, rng);
	st->last_ns = now_ns;
	st->nb_flowlets = 1;
}

static uint16_t
hlb_flowlet_next_ev(void *state, const struct hlb_params *p,
		    struct ofan_rng *rng, uint64_t now_ns)
{
	struct hlb_flowlet *st = state;
	uint64_t gap_ns = hlb_flowlet_set(p)->gap_ns != 0 ? hlb_flowlet_set(p)->gap_ns :
			  p->base_rtt_ns / 2;

	if (st->move || (st->acked && now_ns - st->last_ns > gap_ns)) {
		st->ev = hlb_random_other_ev(p, rng, st->ev);
		st->last_ns = now_ns;
		st->move = false;
		st->nb_flowlets++;
	}
	return st->ev;
}

static void
hlb_flowlet_on_ack(void *state, const struct hlb_params *p,
		   struct ofan_rng *rng, uint16_t ev, bool ce,
		   uint64_t rtt_ns, uint64_t now_ns)
{
	struct hlb_flowlet *st = state;

	st->acked = true;
	if (now_ns > st->last_ns)
		st->last_ns = now_ns;
}

static void
hlb_flowlet_on_timeout(void *state, const struct hlb_params *p,
		       struct ofan_rng *rng, uint64_t now_ns)
{
	struct hlb_flowlet *st = state;

	st->move = true;
}

static void
hlb_flowlet_dump(const void *state,
		 void (*emit)(void *arg, const char *key, uint64_t value),
		 void *arg)
{
	const struct hlb_flowlet *st = state;

	emit(arg, "flowlets", st->nb_flowlets);
	emit(arg, "ev", st->ev);
}

const struct hlb_ops hlb_flowlet_ops = {
	.name = "flowlet",
	.summary = "new random EV after an ACK gap",
	.settings_size = sizeof(struct hlb_flowlet_settings),
	.defaults = hlb_flowlet_defaults,
	.parse = hlb_flowlet_parse,
	.state_size = sizeof(struct hlb_flowlet),
	.init = hlb_flowlet_init,
	.next_ev = hlb_flowlet_next_ev,
	.on_ack = hlb_flowlet_on_ack,
	.on_timeout = hlb_flowlet_on_timeout,
	.dump = hlb_flowlet_dump,
};
