/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ultra Ethernet's path selection as uet-htsim has it (htsim/sim/uec_mp.cpp
 * at 40ccb05; docs/uec.md): four host policies over a connection's
 * `paths` EVs (a power of two, at most the EV range's; [host.<name>]
 * paths, uet-htsim's -paths).
 *
 *  - oblivious: sweeps the paths in an XOR-permuted order, every path once
 *    per sweep, a new permutation each sweep (UecMpOblivious, 7-44).
 *  - bitmap: the same sweep, skipping paths with a penalty: a CE echo adds
 *    1, a NACK 4, a timeout 15 (the most), never above 15; each call takes
 *    one point off the first penalised path it skips (UecMpBitmap, 47-135).
 *    uet-htsim reports a timeout on EV 0 (it keeps no EV per packet), so
 *    a timeout penalises the first path; so here.
 *  - mixed: reuses the EV of a good ACK (no CE) when one waits, first in
 *    first out, else asks bitmap (UecMpMixed, 264-288; uet-htsim's default).
 *  - reps_uec: REPS as uet-htsim's UecMpReps (137-196): the EVs of good
 *    ACKs in an 8-slot ring, each used once, a random EV when none is
 *    fresh; a timeout freezes it for 10 ms, cycling over the remembered
 *    EVs; the first feedback after that empties the ring and the next 16
 *    packets explore.  It differs from the study's reps (hlb_reps.c),
 *    which freezes only while RTTs are low and explores a BDP after.
 *
 * ofan's switches hash the whole 5-tuple, so uet-htsim's random upper EV
 * bits per connection (which only decorrelate connections) are left out:
 * path i is EV ev_min + i.
 */
#include <string.h>

#include "hlb.h"
#include "hlb_uec.h"
#include "ofan_config.h"

#define UEC_MAX_PENALTY 15	/* uec_mp.cpp:55 */
#define UEC_PEN_ECN 1		/* uec_mp.cpp:85-90 */
#define UEC_PEN_NACK 4
#define UEC_PEN_TIMEOUT 15

/* The sweep of oblivious and bitmap. */
struct uec_sweep {
	uint32_t mask;		/* paths - 1 */
	uint32_t idx;
	uint32_t xor;
};

struct uec_bitmap {
	struct uec_sweep w;
	uint8_t pen[HLB_UEC_MAX_PATHS];
	uint64_t nb_skipped;
};

struct uec_mixed {
	struct uec_bitmap b;
	uint16_t fifo[HLB_UEC_MIXED_FIFO];
	uint32_t head, count;
	uint64_t nb_reused;
};

struct uec_reps {
	uint32_t mask;
	uint16_t value[HLB_UEC_REPS_SLOTS];
	bool valid[HLB_UEC_REPS_SLOTS];
	uint32_t head, count, fresh, head_frozen;
	uint32_t explore;
	bool frozen;
	uint64_t thaw_ns;
	uint64_t nb_freezes;
};

static void
uec_defaults(void *settings)
{
	struct hlb_uec_settings *s = settings;

	s->paths = 64;			/* main_uec.cpp:75 */
	s->explore = 16;		/* uec_mp.cpp:167 */
	s->freeze_ns = 10000000ull;	/* buffer_reps.cpp:81: 10 ms */
}

/* [host.<name>] paths, a power of two. */
static int
uec_parse_paths(struct ofan_cfg *cfg, const char *sec,
		struct hlb_uec_settings *s)
{
	int ret = ofan_cfg_get_u32(cfg, sec, "paths", 0, 1, HLB_UEC_MAX_PATHS,
				   &s->paths);

	if (ret == 0 && (s->paths & (s->paths - 1)) != 0)
		return ofan_cfg_fail(cfg, sec, "paths", "%u is not a power of two (1, 2, 4, ... %u)",
				     s->paths, HLB_UEC_MAX_PATHS);
	return ret;
}

static int
oblivious_parse(struct ofan_cfg *cfg, void *settings)
{
	return uec_parse_paths(cfg, "host.oblivious", settings);
}

static int
bitmap_parse(struct ofan_cfg *cfg, void *settings)
{
	return uec_parse_paths(cfg, "host.bitmap", settings);
}

static int
mixed_parse(struct ofan_cfg *cfg, void *settings)
{
	return uec_parse_paths(cfg, "host.mixed", settings);
}

static int
reps_uec_parse(struct ofan_cfg *cfg, void *settings)
{
	struct hlb_uec_settings *s = settings;

	if (uec_parse_paths(cfg, "host.reps_uec", s) != 0 ||
	    ofan_cfg_get_u32(cfg, "host.reps_uec", "explore", 0, 0, 1u << 20,
			     &s->explore) != 0 ||
	    ofan_cfg_get_time(cfg, "host.reps_uec", "freeze_time", 0, 1000,
			      10000000000ull, &s->freeze_ns) != 0)
		return -1;
	return 0;
}

/* The connection's paths: the settings', at most the EV range's power of two. */
static uint32_t
uec_paths(const struct hlb_params *p)
{
	const struct hlb_uec_settings *s = p->settings;
	uint32_t range = (uint32_t)p->ev_max - p->ev_min + 1, n = s->paths;

	while (n > range)
		n >>= 1;
	return n;
}

static inline uint16_t
uec_ev(const struct hlb_params *p, uint32_t path)
{
	return (uint16_t)(p->ev_min + path);
}

static void
sweep_init(struct uec_sweep *w, const struct hlb_params *p,
	   struct ofan_rng *rng)
{
	w->mask = uec_paths(p) - 1;
	w->idx = 0;
	w->xor = ofan_rng_below(rng, w->mask + 1);
}

/* The path at the sweep's position. */
static inline uint32_t
sweep_path(const struct uec_sweep *w)
{
	return (w->idx ^ w->xor) & w->mask;
}

/* One step on; a new permutation at each sweep's end. */
static inline void
sweep_advance(struct uec_sweep *w, struct ofan_rng *rng)
{
	if (++w->idx > w->mask) {
		w->idx = 0;
		w->xor = ofan_rng_below(rng, w->mask + 1);
	}
}

/* ---- oblivious ---- */

static void
oblivious_init(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	       uint64_t now_ns)
{
	(void)now_ns;
	sweep_init(st, p, rng);
}

static uint16_t
oblivious_next_ev(void *st, const struct hlb_params *p, struct ofan_rng *rng,
		  uint64_t now_ns)
{
	struct uec_sweep *w = st;
	uint32_t path = sweep_path(w);

	(void)now_ns;
	sweep_advance(w, rng);
	return uec_ev(p, path);
}

static void
uec_ignore_ack(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	       uint16_t ev, bool ce, uint64_t rtt_ns, uint64_t now_ns)
{
	(void)st, (void)p, (void)rng, (void)ev, (void)ce, (void)rtt_ns;
	(void)now_ns;
}

static void
uec_ignore_timeout(void *st, const struct hlb_params *p,
		   struct ofan_rng *rng, uint64_t now_ns)
{
	(void)st, (void)p, (void)rng, (void)now_ns;
}

/* ---- bitmap ---- */

static void
bitmap_init(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	    uint64_t now_ns)
{
	(void)now_ns;
	sweep_init(&((struct uec_bitmap *)st)->w, p, rng);
}

static uint16_t
bitmap_next_ev(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	       uint64_t now_ns)
{
	struct uec_bitmap *b = st;
	uint32_t e = sweep_path(&b->w), tried = 0;
	bool first = true;

	(void)now_ns;
	while (b->pen[e] > 0) {
		if (first)
			b->pen[e]--;	/* only the first skipped path decays */
		first = false;
		b->nb_skipped++;
		if (++tried > b->w.mask + 1)
			break;	/* every path penalised: take this one */
		sweep_advance(&b->w, rng);
		e = sweep_path(&b->w);
	}
	sweep_advance(&b->w, rng);
	return uec_ev(p, e);
}

static void
bitmap_penalise(struct uec_bitmap *b, const struct hlb_params *p,
		uint16_t ev, unsigned int pen)
{
	uint32_t i = ((uint32_t)(uint16_t)(ev - p->ev_min)) & b->w.mask;
	unsigned int v = b->pen[i] + pen;

	b->pen[i] = (uint8_t)(v < UEC_MAX_PENALTY ? v : UEC_MAX_PENALTY);
}

static void
bitmap_on_ack(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	      uint16_t ev, bool ce, uint64_t rtt_ns, uint64_t now_ns)
{
	(void)rng, (void)rtt_ns, (void)now_ns;
	if (ce)
		bitmap_penalise(st, p, ev, UEC_PEN_ECN);
}

static void
bitmap_on_nack(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	       uint16_t ev, bool ce, uint64_t now_ns)
{
	(void)rng, (void)ce, (void)now_ns;
	bitmap_penalise(st, p, ev, UEC_PEN_NACK);
}

/* A timeout comes as uet-htsim's UNKNOWN_EV, 0: the first path. */
static void
bitmap_on_timeout(void *st, const struct hlb_params *p, struct ofan_rng *rng,
		  uint64_t now_ns)
{
	(void)rng, (void)now_ns;
	bitmap_penalise(st, p, p->ev_min, UEC_PEN_TIMEOUT);
}

static void
bitmap_dump(const void *st, void (*emit)(void *, const char *, uint64_t),
	    void *arg)
{
	emit(arg, "skipped", ((const struct uec_bitmap *)st)->nb_skipped);
}

/* ---- mixed ---- */

static void
mixed_init(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	   uint64_t now_ns)
{
	bitmap_init(&((struct uec_mixed *)st)->b, p, rng, now_ns);
}

static uint16_t
mixed_next_ev(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	      uint64_t now_ns)
{
	struct uec_mixed *m = st;
	uint16_t ev;

	if (m->count == 0)
		return bitmap_next_ev(&m->b, p, rng, now_ns);
	ev = m->fifo[m->head];
	m->head = (m->head + 1) % HLB_UEC_MIXED_FIFO;
	m->count--;
	m->nb_reused++;
	return ev;
}

/* A good EV waits for reuse (the newest is left out when the queue is full). */
static void
mixed_keep(struct uec_mixed *m, uint16_t ev)
{
	if (m->count == HLB_UEC_MIXED_FIFO)
		return;
	m->fifo[(m->head + m->count) % HLB_UEC_MIXED_FIFO] = ev;
	m->count++;
}

static void
mixed_on_ack(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	     uint16_t ev, bool ce, uint64_t rtt_ns, uint64_t now_ns)
{
	struct uec_mixed *m = st;

	bitmap_on_ack(&m->b, p, rng, ev, ce, rtt_ns, now_ns);
	if (!ce && ev >= p->ev_min && ev <= p->ev_max)
		mixed_keep(m, ev);
}

static void
mixed_on_nack(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	      uint16_t ev, bool ce, uint64_t now_ns)
{
	bitmap_on_nack(&((struct uec_mixed *)st)->b, p, rng, ev, ce, now_ns);
}

static void
mixed_on_timeout(void *st, const struct hlb_params *p, struct ofan_rng *rng,
		 uint64_t now_ns)
{
	bitmap_on_timeout(&((struct uec_mixed *)st)->b, p, rng, now_ns);
}

static void
mixed_dump(const void *st, void (*emit)(void *, const char *, uint64_t),
	   void *arg)
{
	const struct uec_mixed *m = st;

	emit(arg, "skipped", m->b.nb_skipped);
	emit(arg, "reused", m->nb_reused);
}

/* ---- reps_uec ---- */

static void
reps_uec_init(void *st, const struct hlb_params *p, struct ofan_rng *rng,
	      uint64_t now_ns)
{
	(void)rng, (void)now_ns;
	((struct uec_reps *)st)->mask = uec_paths(p) - 1;
}

static void
reps_uec_reset(struct uec_reps *r)
{
	memset(r->value, 0, sizeof(r->value));
	memset(r->valid, 0, sizeof(r->valid));
	r->head = r->count = r->fresh = r->head_frozen = 0;
}

static uint16_t
reps_uec_next_ev(void *st, const struct hlb_params *p, struct ofan_rng *rng,
		 uint64_t now_ns)
{
	struct uec_reps *r = st;
	uint32_t slot;
	uint16_t v;

	(void)now_ns;
	if (r->explore > 0) {
		r->explore--;
		return uec_ev(p, ofan_rng_below(rng, r->mask + 1));
	}
	if (r->frozen) {
		/* Round robin over the remembered, valid or not (155-185). */
		if (r->count == 0)
			return uec_ev(p, ofan_rng_below(rng, r->mask + 1));
		slot = r->head_frozen;
		v = r->value[slot];
		if (r->valid[slot]) {
			r->valid[slot] = false;
			r->fresh--;
		}
		r->head_frozen = (r->head_frozen + 1) % r->count;
		return v;
	}
	if (r->fresh == 0)
		return uec_ev(p, ofan_rng_below(rng, r->mask + 1));
	/* The oldest fresh one (117-151). */
	slot = (r->head + HLB_UEC_REPS_SLOTS - r->fresh) % HLB_UEC_REPS_SLOTS;
	r->valid[slot] = false;
	r->fresh--;
	return r->value[slot];
}

/* Feedback first thaws a freeze that has run out (uec_mp.cpp:164-168). */
static void
reps_uec_thaw(struct uec_reps *r, const struct hlb_params *p, uint64_t now_ns)
{
	const struct hlb_uec_settings *s = p->settings;

	if (r->frozen && now_ns > r->thaw_ns) {
		r->frozen = false;
		reps_uec_reset(r);
		r->explore = s->explore;
	}
}

static void
reps_uec_on_ack(void *st, const struct hlb_params *p, struct ofan_rng *rng,
		uint16_t ev, bool ce, uint64_t rtt_ns, uint64_t now_ns)
{
	struct uec_reps *r = st;

	(void)rng, (void)rtt_ns;
	reps_uec_thaw(r, p, now_ns);
	if (ce || ev < p->ev_min || ev > p->ev_max)
		return;
	/* add() (buffer_reps.cpp:98-114): the oldest is overwritten. */
	if (!r->valid[r->head])
		r->fresh++;
	r->value[r->head] = ev;
	r->valid[r->head] = true;
	r->head = (r->head + 1) % HLB_UEC_REPS_SLOTS;
	if (r->fresh > HLB_UEC_REPS_SLOTS)
		r->fresh = HLB_UEC_REPS_SLOTS;
	if (r->count < HLB_UEC_REPS_SLOTS)
		r->count++;
}

static void
reps_uec_on_nack(void *st, const struct hlb_params *p, struct ofan_rng *rng,
		 uint16_t ev, bool ce, uint64_t now_ns)
{
	(void)rng, (void)ev, (void)ce;
	reps_uec_thaw(st, p, now_ns);
}

static void
reps_uec_on_timeout(void *st, const struct hlb_params *p,
		    struct ofan_rng *rng, uint64_t now_ns)
{
	const struct hlb_uec_settings *s = p->settings;
	struct uec_reps *r = st;

	(void)rng;
	if (!r->frozen && r->explore == 0) {
		r->frozen = true;
		r->thaw_ns = now_ns + s->freeze_ns;
		r->nb_freezes++;
	}
	reps_uec_thaw(r, p, now_ns);
}

static void
reps_uec_dump(const void *st, void (*emit)(void *, const char *, uint64_t),
	      void *arg)
{
	emit(arg, "freezes", ((const struct uec_reps *)st)->nb_freezes);
}

const struct hlb_ops hlb_oblivious_ops = {
	.name = "oblivious",
	.summary = "uet-htsim's oblivious spraying: every path once per sweep, a new XOR order each sweep",
	.settings_size = sizeof(struct hlb_uec_settings),
	.defaults = uec_defaults,
	.parse = oblivious_parse,
	.state_size = sizeof(struct uec_sweep),
	.init = oblivious_init,
	.next_ev = oblivious_next_ev,
	.on_ack = uec_ignore_ack,
	.on_timeout = uec_ignore_timeout,
};

const struct hlb_ops hlb_bitmap_ops = {
	.name = "bitmap",
	.summary = "uet-htsim's bitmap: the oblivious sweep skipping paths penalised by CE (1), NACK (4), timeout (15)",
	.settings_size = sizeof(struct hlb_uec_settings),
	.defaults = uec_defaults,
	.parse = bitmap_parse,
	.state_size = sizeof(struct uec_bitmap),
	.init = bitmap_init,
	.next_ev = bitmap_next_ev,
	.on_ack = bitmap_on_ack,
	.on_nack = bitmap_on_nack,
	.on_timeout = bitmap_on_timeout,
	.dump = bitmap_dump,
};

const struct hlb_ops hlb_mixed_ops = {
	.name = "mixed",
	.summary = "uet-htsim's default: reuse the EVs of good ACKs, else bitmap",
	.settings_size = sizeof(struct hlb_uec_settings),
	.defaults = uec_defaults,
	.parse = mixed_parse,
	.state_size = sizeof(struct uec_mixed),
	.init = mixed_init,
	.next_ev = mixed_next_ev,
	.on_ack = mixed_on_ack,
	.on_nack = mixed_on_nack,
	.on_timeout = mixed_on_timeout,
	.dump = mixed_dump,
};

const struct hlb_ops hlb_reps_uec_ops = {
	.name = "reps_uec",
	.summary = "REPS as uet-htsim has it: an 8-EV ring used once each; a timeout freezes it 10 ms",
	.settings_size = sizeof(struct hlb_uec_settings),
	.defaults = uec_defaults,
	.parse = reps_uec_parse,
	.state_size = sizeof(struct uec_reps),
	.init = reps_uec_init,
	.next_ev = reps_uec_next_ev,
	.on_ack = reps_uec_on_ack,
	.on_nack = reps_uec_on_nack,
	.on_timeout = reps_uec_on_timeout,
	.dump = reps_uec_dump,
};
