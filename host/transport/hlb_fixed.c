/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fixed: one random EV per connection, drawn when the connection starts
 * and used for every packet, retransmissions included.
 *
 * This is plain ECMP as the fabric sees it: every packet of a connection
 * hashes to the same path, so there is no reordering, but two large
 * connections that collide on a link stay collided for their lifetime and
 * a black-holed path is never left.  It is the baseline the other
 * policies are measured against.
 */
#include "hlb.h"

struct hlb_fixed {
	uint16_t ev;
};

static void
hlb_fixed_init(void *state, const struct hlb_params *p,
	       struct ofan_rng *rng, uint64_t now_ns)
{
	struct hlb_fixed *st = state;

	st->ev = hlb_random_ev(p, rng);
}

static uint16_t
hlb_fixed_next_ev(void *state, const struct hlb_params *p,
		  struct ofan_rng *rng, uint64_t now_ns)
{
	const struct hlb_fixed *st = state;

	return st->ev;
}

/* Feedback changes nothing: the path is fixed whatever happens on it. */
static void
hlb_fixed_on_ack(void *state, const struct hlb_params *p,
		 struct ofan_rng *rng, uint16_t ev, bool ce, uint64_t rtt_ns,
		 uint64_t now_ns)
{
}

static void
hlb_fixed_on_timeout(void *state, const struct hlb_params *p,
		     struct ofan_rng *rng, uint64_t now_ns)
{
}

static void
hlb_fixed_dump(const void *state,
	       void (*emit)(void *arg, const char *key, uint64_t value),
	       void *arg)
{
	const struct hlb_fixed *st = state;

	emit(arg, "ev", st->ev);
}

const struct hlb_ops hlb_fixed_ops = {
	.name = "fixed",
	.summary = "one random EV per connection (plain ECMP)",
	.parse = NULL,
	.state_size = sizeof(struct hlb_fixed),
	.init = hlb_fixed_init,
	.next_ev = hlb_fixed_next_ev,
	.on_ack = hlb_fixed_on_ack,
	.on_timeout = hlb_fixed_on_timeout,
	.dump = hlb_fixed_dump,
};
