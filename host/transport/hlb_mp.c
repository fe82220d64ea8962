/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mp: multipath with k subflows, as MPTCP or multi-QP RDMA would do it.
 *
 * A connection draws k distinct random EVs when it starts ([host.mp]
 * subflows, default 4) and sends its packets round robin over them, in
 * the drawn order: packet i takes EV i mod k.  The EVs never change.
 * When the EV range holds fewer than k EVs the connection uses every EV
 * of the range, so the EVs stay distinct.
 *
 * The k EVs are drawn with Floyd's algorithm (exactly k draws, no
 * rejection loop even when k is the whole range) and then shuffled,
 * because Floyd's order favours the top of the range late in the list.
 *
 * Trade-off: k paths instead of one, so a collision or a failure hits a
 * 1/k share of the connection; but the share on a failed or congested
 * subflow stays there, as nothing reacts to feedback.
 */
#include "hlb.h"
#include "hlb_mp.h"
#include "ofan_config.h"

struct hlb_mp {
	uint16_t ev[HLB_MP_MAX_SUBFLOWS];
	uint16_t nb_subflows;
	uint16_t next;			/* subflow of the next packet */
};

/* This policy's settings (hlb_params.settings). */
static inline const struct hlb_mp_settings *
hlb_mp_set(const struct hlb_params *p)
{
	return p->settings;
}

static void
hlb_mp_defaults(void *settings)
{
	struct hlb_mp_settings *s = settings;

	s->subflows = 4;
}

static int
hlb_mp_parse(struct ofan_cfg *cfg, void *settings)
{
	struct hlb_mp_settings *s = settings;
	uint32_t subflows = s->subflows;
	int ret;

	ret = ofan_cfg_get_u32(cfg, "host.mp", "subflows", 0, 1,
			       HLB_MP_MAX_SUBFLOWS, &subflows);
	if (ret < 0)
		return ret;
	s->subflows = (uint16_t)subflows;
	return 0;
}

static void
hlb_mp_init(void *state, const struct hlb_params *p, struct ofan_rng *rng,
	    uint64_t now_ns)
{
	struct hlb_mp *st = state;
	uint32_t range = (uint32_t)p->ev_max - p->ev_min + 1;
	uint32_t k = hlb_mp_set(p)->subflows;
	uint32_t j, i;
	uint16_t n = 0;

	/* A host bug (0 or too many subflows) still gives a valid state. */
	if (k == 0)
		k = 1;
	if (k > HLB_MP_MAX_SUBFLOWS)
		k = HLB_MP_MAX_SUBFLOWS;
	if (k > range)
		k = range;
	/*
	 * Floyd: for each j of the top k offsets draw t in [0, j]; if t is
	 * already taken take j, which cannot be (earlier picks are < j).
	 */
	for (j = range - k; j < range; j++) {
		uint16_t ev = (uint16_t)(p->ev_min +
					 ofan_rng_below(rng, j + 1));

		for (i = 0; i < n; i++)
			if (st->ev[i] == ev)
				break;
		if (i < n)
			ev = (uint16_t)(p->ev_min + j);
		st->ev[n++] = ev;
	}
	ofan_rng_shuffle_u16(rng, st->ev, n);
	st->nb_subflows = n;
	st->next = 0;
}

static uint16_t
hlb_mp_next_ev(void *state, const struct hlb_params *p,
	       struct ofan_rng *rng, uint64_t now_ns)
{
	struct hlb_mp *st = state;
	uint16_t ev = st->ev[st->next];

	if (++st->next == st->nb_subflows)
		st->next = 0;
	return ev;
}

/* The subflows are fixed: feedback is ignored. */
static void
hlb_mp_on_ack(void *state, const struct hlb_params *p, struct ofan_rng *rng,
	      uint16_t ev, bool ce, uint64_t rtt_ns, uint64_t now_ns)
{
}

static void
hlb_mp_on_timeout(void *state, const struct hlb_params *p,
		  struct ofan_rng *rng, uint64_t now_ns)
{
}

static void
hlb_mp_dump(const void *state,
	    void (*emit)(void *arg, const char *key, uint64_t value),
	    void *arg)
{
	const struct hlb_mp *st = state;

	emit(arg, "subflows", st->nb_subflows);
}

const struct hlb_ops hlb_mp_ops = {
	.name = "mp",
	.summary = "k subflows with fixed distinct EVs, packets round robin",
	.settings_size = sizeof(struct hlb_mp_settings),
	.defaults = hlb_mp_defaults,
	.parse = hlb_mp_parse,
	.state_size = sizeof(struct hlb_mp),
	.init = hlb_mp_init,
	.next_ev = hlb_mp_next_ev,
	.on_ack = hlb_mp_on_ack,
	.on_timeout = hlb_mp_on_timeout,
	.dump = hlb_mp_dump,
};
