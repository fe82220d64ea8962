/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ops: oblivious packet spraying from the host.  Every data packet gets
 * its own EV, so the switches' hash spreads one connection's packets over
 * all paths, whatever the feedback says.
 *
 * Two modes.  By default each EV is drawn uniformly at random from
 * [ev_min, ev_max].  With [host.ops] permuted = yes the connection walks
 * a seeded random permutation of the whole EV range instead, so no EV
 * repeats until every EV of the range has been used once; then a new
 * permutation starts.  That removes the birthday collisions of random
 * draws over short windows, at the cost of nothing but a few hash rounds
 * per packet.
 *
 * The permutation is never stored (the range holds up to 65536 EVs and a
 * connection's state must stay small).  Packet i of a cycle takes
 * E(i), where E is a 4-round Feistel network over the smallest domain of
 * 2h bits that holds the range, keyed by four random words drawn at the
 * start of each cycle; values outside the range are walked through E
 * again until one falls inside (cycle walking), which keeps E a
 * permutation of the range itself.  The domain is less than 4 times the
 * range, so a packet costs fewer than 4 walks on average.  A Feistel
 * network is used rather than an affine map (a * i + b) mod m because the
 * affine map steps by the same stride a from every packet to the next,
 * which is a pattern, not a shuffle.
 *
 * Trade-off: the best spread a sender can make without feedback, and the
 * most reordering; a failed path keeps receiving its share of packets.
 */
#include "hlb.h"
#include "hlb_ops.h"
#include "ofan_config.h"

#define HLB_OPS_ROUNDS 4

struct hlb_ops_state {
	uint32_t key[HLB_OPS_ROUNDS];	/* this cycle's permutation */
	uint32_t idx;			/* next position in the cycle */
	uint64_t nb_cycles;		/* permutations started */
};

/* This policy's settings (hlb_params.settings). */
static inline const struct hlb_ops_settings *
hlb_ops_set(const struct hlb_params *p)
{
	return p->settings;
}

static void
hlb_ops_defaults(void *settings)
{
	struct hlb_ops_settings *s = settings;

	s->permuted = false;
}

static int
hlb_ops_parse(struct ofan_cfg *cfg, void *settings)
{
	struct hlb_ops_settings *s = settings;
	bool permuted = s->permuted;
	int ret;

	ret = ofan_cfg_get_bool(cfg, "host.ops", "permuted", 0, &permuted);
	if (ret < 0)
		return ret;
	s->permuted = permuted;
	return 0;
}

static void
hlb_ops_new_cycle(struct hlb_ops_state *st, struct ofan_rng *rng)
{
	unsigned int r;

	for (r = 0; r < HLB_OPS_ROUNDS; r++)
		st->key[r] = (uint32_t)(ofan_rng_next(rng) >> 32);
	st->idx = 0;
	st->nb_cycles++;
}

static void
hlb_ops_init(void *state, const struct hlb_params *p, struct ofan_rng *rng,
	     uint64_t now_ns)
{
	struct hlb_ops_state *st = state;

	if (hlb_ops_set(p)->permuted)
		hlb_ops_new_cycle(st, rng);
}

/* Half the bit width of the Feistel domain that holds [0, range). */
static unsigned int
hlb_ops_half_bits(uint32_t range)
{
	unsigned int bits = 0;

	while ((1u << bits) < range)
		bits++;
	return bits < 2 ? 1 : (bits + 1) / 2;
}

/* The Feistel permutation of [0, 2^(2 * half)) under key. */
static uint32_t
hlb_ops_feistel(const uint32_t *key, unsigned int half, uint32_t x)
{
	uint32_t mask = (1u << half) - 1;
	uint32_t left = x >> half, right = x & mask;
	unsigned int r;

	for (r = 0; r < HLB_OPS_ROUNDS; r++) {
		uint32_t t = left ^ (ofan_hash_mix32(right ^ key[r]) & mask);

		left = right;
		right = t;
	}
	return left << half | right;
}

static uint16_t
hlb_ops_next_ev(void *state, const struct hlb_params *p,
		struct ofan_rng *rng, uint64_t now_ns)
{
	struct hlb_ops_state *st = state;
	uint32_t range = (uint32_t)p->ev_max - p->ev_min + 1;
	unsigned int half;
	uint32_t x;

	if (!hlb_ops_set(p)->permuted)
		return hlb_random_ev(p, rng);
	if (st->idx >= range)
		hlb_ops_new_cycle(st, rng);
	half = hlb_ops_half_bits(range);
	/* E is a permutation of the domain, so the walk returns to it. */
	x = st->idx++;
	do
		x = hlb_ops_feistel(st->key, half, x);
	while (x >= range);
	return (uint16_t)(p->ev_min + x);
}

/* Oblivious: feedback is ignored by design. */
static void
hlb_ops_on_ack(void *state, const struct hlb_params *p,
	       struct ofan_rng *rng, uint16_t ev, bool ce, uint64_t rtt_ns,
	       uint64_t now_ns)
{
}

static void
hlb_ops_on_timeout(void *state, const struct hlb_params *p,
		   struct ofan_rng *rng, uint64_t now_ns)
{
}

static void
hlb_ops_dump(const void *state,
	     void (*emit)(void *arg, const char *key, uint64_t value),
	     void *arg)
{
	const struct hlb_ops_state *st = state;

	emit(arg, "cycles", st->nb_cycles);
}

const struct hlb_ops hlb_ops_ops = {
	.name = "ops",
	.summary = "oblivious spraying: a new EV per packet",
	.settings_size = sizeof(struct hlb_ops_settings),
	.defaults = hlb_ops_defaults,
	.parse = hlb_ops_parse,
	.state_size = sizeof(struct hlb_ops_state),
	.init = hlb_ops_init,
	.next_ev = hlb_ops_next_ev,
	.on_ack = hlb_ops_on_ack,
	.on_timeout = hlb_ops_on_timeout,
	.dump = hlb_ops_dump,
};
