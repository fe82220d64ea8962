/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host-policy contract as a Check test case (hlb_conformance.h).
 *
 * A policy serves one connection here, as in the host: its state is a
 * zeroed block of exactly state_size bytes (between two guard areas that
 * must stay untouched), the host's RNG is passed to every hook, and the
 * feedback is drawn from a script generator of its own: ACKs echo one of
 * the last 16 EVs sent, a quarter CE-marked, a fifth without an RTT
 * sample, one in 50 with an EV outside the range (a corrupt echo); some
 * steps are timeouts, a few long pauses.  The script depends on the EVs
 * the policy chose only through what the ACKs echo, so the same seeds
 * replay a run exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "hlb.h"
#include "hlb_conformance.h"
#include "ofan_config.h"
#include "ofan_rng.h"
#include "settings_conformance.h"

#define HLBC_MAX_CASES 32
#define HLBC_GUARD 64
#define HLBC_GUARD_BYTE 0xa5
#define HLBC_STEPS 5000
#define HLBC_SEED 0x5eedba5eull
#define HLBC_BASE_RTT 10000ull		/* ns */
#define HLBC_MS 1000000ull
#define HLBC_MAX_KEYS 32

/* What hlb_conformance_tcase() was given, for the tests to find by _i. */
struct hlbc_case {
	const struct hlb_ops *ops;
	struct hlb_settings settings;
	char name[64];
};

static struct hlbc_case hlbc_cases[HLBC_MAX_CASES];
static unsigned int hlbc_nb_cases;

/* One connection and what the host shows its policy. */
struct hlbc_conn {
	const struct hlbc_case *c;
	struct hlb_settings settings;
	struct hlb_params p;
	struct ofan_rng rng;		/* the host's, passed to every hook */
	struct ofan_rng script;		/* draws the feedback, nothing else */
	uint64_t now;
	unsigned char *block;		/* guard, state_size bytes, guard */
	void *state;
	uint16_t sent[16];		/* the last EVs sent, for ACKs to echo */
	unsigned int nb_sent;
	unsigned int step;
};

static uint32_t
hlbc_below(struct hlbc_conn *x, uint32_t n)
{
	return ofan_rng_below(&x->script, n);
}

/* A zeroed state of state_size bytes between two guard areas. */
static unsigned char *
hlbc_block(const struct hlb_ops *ops)
{
	unsigned char *b = malloc(2 * HLBC_GUARD + ops->state_size);

	ck_assert_ptr_nonnull(b);
	memset(b, HLBC_GUARD_BYTE, 2 * HLBC_GUARD + ops->state_size);
	memset(b + HLBC_GUARD, 0, ops->state_size);
	return b;
}

/* Both guard areas of block b are untouched after hook ran. */
static void
hlbc_check_guard(const struct hlb_ops *ops, const unsigned char *b,
		 const char *hook)
{
	const unsigned char *after = b + HLBC_GUARD + ops->state_size;
	unsigned int i;

	/* No ck_assert per byte: each marks a point, a write in fork mode. */
	for (i = 0; i < HLBC_GUARD; i++)
		if (b[i] != HLBC_GUARD_BYTE || after[i] != HLBC_GUARD_BYTE)
			ck_abort_msg("%s: %s() wrote outside its %zu bytes of state",
				     ops->name, hook, ops->state_size);
}

static void
hlbc_start(struct hlbc_conn *x, const struct hlbc_case *c, uint16_t ev_min,
	   uint16_t ev_max, uint32_t bdp_pkts, uint64_t seed,
	   uint64_t script_seed)
{
	memset(x, 0, sizeof(*x));
	x->c = c;
	x->settings = c->settings;
	x->p.ev_min = ev_min;
	x->p.ev_max = ev_max;
	x->p.base_rtt_ns = HLBC_BASE_RTT;
	x->p.bdp_pkts = bdp_pkts;
	x->p.settings = c->ops->settings_size > 0 ? x->settings.bytes : NULL;
	x->block = hlbc_block(c->ops);
	x->state = x->block + HLBC_GUARD;
	ofan_rng_seed(&x->rng, seed, 1);
	ofan_rng_seed(&x->script, script_seed, 3);
	x->now = 1000;
	c->ops->init(x->state, &x->p, &x->rng, x->now);
	hlbc_check_guard(c->ops, x->block, "init");
}

static void
hlbc_stop(struct hlbc_conn *x)
{
	free(x->block);
	x->block = NULL;
	x->state = NULL;
}

/* next_ev(), checked against the range. */
static uint16_t
hlbc_next_ev(struct hlbc_conn *x)
{
	const struct hlb_ops *ops = x->c->ops;
	uint16_t ev = ops->next_ev(x->state, &x->p, &x->rng, x->now);

	hlbc_check_guard(ops, x->block, "next_ev");
	if (ev < x->p.ev_min || ev > x->p.ev_max)
		ck_abort_msg("%s: step %u: EV %u outside [%u, %u]", ops->name,
			     x->step, ev, x->p.ev_min, x->p.ev_max);
	return ev;
}

/*
 * One step of the connection's life: a packet (its EV to *ev; returns
 * 1), an ACK or a timeout (returns 0).  A packet's EV may find its path
 * timed out, as erasure recovery's per-EV timers would: the host then
 * calls on_path_timeout() and next_ev() again.
 */
static unsigned int
hlbc_step(struct hlbc_conn *x, uint16_t *ev)
{
	const struct hlb_ops *ops = x->c->ops;
	uint32_t what = hlbc_below(x, 1000);
	uint64_t rtt;
	uint16_t echo;

	x->step++;
	x->now += hlbc_below(x, 3000);
	if (hlbc_below(x, 100) == 0)
		x->now += 50000 + hlbc_below(x, 2 * HLBC_MS);
	if (what < 500) {
		*ev = hlbc_next_ev(x);
		if (ops->on_path_timeout != NULL && hlbc_below(x, 20) == 0) {
			ops->on_path_timeout(x->state, &x->p, &x->rng, *ev,
					     x->now);
			hlbc_check_guard(ops, x->block, "on_path_timeout");
			*ev = hlbc_next_ev(x);
		}
		x->sent[x->nb_sent++ % 16] = *ev;
		return 1;
	}
	if (what < 990 && x->nb_sent > 0) {
		echo = x->sent[hlbc_below(x, x->nb_sent < 16 ? x->nb_sent : 16)];
		rtt = 5000 + hlbc_below(x, 13000);
		if (hlbc_below(x, 50) == 0)
			echo = x->p.ev_min > 0 ? x->p.ev_min - 1 :
						 x->p.ev_max + 1;
		if (hlbc_below(x, 5) == 0)
			rtt = 0;
		ops->on_ack(x->state, &x->p, &x->rng, echo,
			    hlbc_below(x, 4) == 0, rtt, x->now);
		hlbc_check_guard(ops, x->block, "on_ack");
		return 0;
	}
	ops->on_timeout(x->state, &x->p, &x->rng, x->now);
	hlbc_check_guard(ops, x->block, "on_timeout");
	return 0;
}

/* A whole life over the host's range; returns how many EVs went to out. */
static unsigned int
hlbc_life(const struct hlbc_case *c, uint64_t seed, uint64_t script_seed,
	  uint16_t *out)
{
	struct hlbc_conn x;
	unsigned int nb = 0, s;

	hlbc_start(&x, c, 49152, 65535, 16, seed, script_seed);
	for (s = 0; s < HLBC_STEPS; s++)
		nb += hlbc_step(&x, out + nb);
	hlbc_stop(&x);
	return nb;
}

/*
 * parse() over a configuration without the policy's section changes
 * nothing, neither the defaults nor the settings the case was given, and
 * neither it nor defaults() writes past settings_size.
 */
START_TEST(hlbc_test_settings)
{
	const struct hlbc_case *c = &hlbc_cases[_i];

	t_settings_conform(c->ops->name, c->ops->defaults, c->ops->parse,
			   c->settings.bytes, c->ops->settings_size, HLB_SETTINGS_MAX);
}
END_TEST

/*
 * Every EV in range (hlbc_next_ev() checks each) and every hook within
 * the state (hlbc_check_guard()), over every range and BDP.
 */
START_TEST(hlbc_test_in_range)
{
	static const uint16_t ranges[][2] = {
		{ 0, 65535 }, { 49152, 65535 }, { 1000, 1003 },
		{ 1000, 1000 }, { 65534, 65535 }, { 0, 2 },
	};
	static const uint32_t bdps[] = { 16, 4, 0 };
	const struct hlbc_case *c = &hlbc_cases[_i];
	unsigned int r, b, s;
	struct hlbc_conn x;
	uint16_t ev;

	for (r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		for (b = 0; b < sizeof(bdps) / sizeof(bdps[0]); b++) {
			hlbc_start(&x, c, ranges[r][0], ranges[r][1], bdps[b],
				   HLBC_SEED + r, 10 * r + b);
			for (s = 0; s < HLBC_STEPS; s++)
				hlbc_step(&x, &ev);
			hlbc_stop(&x);
		}
	}
}
END_TEST

/* The same seed and feedback: the same EVs. */
START_TEST(hlbc_test_determinism)
{
	static uint16_t a[HLBC_STEPS], b[HLBC_STEPS];
	const struct hlbc_case *c = &hlbc_cases[_i];
	unsigned int na, nb;

	na = hlbc_life(c, HLBC_SEED, 1, a);
	nb = hlbc_life(c, HLBC_SEED, 1, b);
	ck_assert_uint_eq(na, nb);
	ck_assert_msg(memcmp(a, b, na * sizeof(a[0])) == 0,
		      "%s: same seed, same feedback, different EVs",
		      c->ops->name);
}
END_TEST

/*
 * A connection's EVs do not depend on another connection's: its life
 * alone and its life interleaved step by step with another connection's
 * (another seed and script, its own RNG) give the same EVs.
 */
START_TEST(hlbc_test_independent)
{
	static uint16_t alone[HLBC_STEPS], mixed[HLBC_STEPS];
	const struct hlbc_case *c = &hlbc_cases[_i];
	struct hlbc_conn a, b;
	unsigned int na, nb = 0, s;
	uint16_t other;

	na = hlbc_life(c, HLBC_SEED, 2, alone);
	hlbc_start(&a, c, 49152, 65535, 16, HLBC_SEED, 2);
	hlbc_start(&b, c, 49152, 65535, 16, HLBC_SEED + 1, 3);
	for (s = 0; s < HLBC_STEPS; s++) {
		hlbc_step(&b, &other);
		nb += hlbc_step(&a, mixed + nb);
	}
	hlbc_stop(&b);
	hlbc_stop(&a);
	ck_assert_uint_eq(na, nb);
	ck_assert_msg(memcmp(alone, mixed, na * sizeof(alone[0])) == 0,
		      "%s: another connection changed this one's EVs",
		      c->ops->name);
}
END_TEST

/* dump() into a list of keys and values. */
struct hlbc_dump {
	const char *name;
	unsigned int nb;
	char key[HLBC_MAX_KEYS][32];
	uint64_t value[HLBC_MAX_KEYS];
};

static void
hlbc_dump_emit(void *arg, const char *key, uint64_t value)
{
	struct hlbc_dump *d = arg;

	ck_assert_msg(key != NULL && key[0] != '\0',
		      "%s: dump() emitted a value without a name", d->name);
	ck_assert_uint_lt(d->nb, HLBC_MAX_KEYS);
	snprintf(d->key[d->nb], sizeof(d->key[0]), "%s", key);
	d->value[d->nb++] = value;
}

/*
 * The host dumps a zeroed state, never init()ed, first: it must give the
 * keys a used state gives, in the same order, each 0 (the host sums by
 * key).
 */
START_TEST(hlbc_test_dump)
{
	const struct hlbc_case *c = &hlbc_cases[_i];
	struct hlbc_dump zero = { .name = c->ops->name };
	struct hlbc_dump used = { .name = c->ops->name };
	unsigned char *fresh = hlbc_block(c->ops);
	struct hlbc_conn x;
	unsigned int s, k;
	uint16_t ev;

	c->ops->dump(fresh + HLBC_GUARD, hlbc_dump_emit, &zero);
	hlbc_check_guard(c->ops, fresh, "dump");
	free(fresh);
	hlbc_start(&x, c, 49152, 65535, 16, HLBC_SEED, 4);
	for (s = 0; s < HLBC_STEPS; s++)
		hlbc_step(&x, &ev);
	c->ops->dump(x.state, hlbc_dump_emit, &used);
	hlbc_check_guard(c->ops, x.block, "dump");
	hlbc_stop(&x);
	ck_assert_msg(zero.nb == used.nb,
		      "%s: a zeroed state dumps %u keys, a used one %u",
		      c->ops->name, zero.nb, used.nb);
	for (k = 0; k < zero.nb; k++) {
		ck_assert_msg(strcmp(zero.key[k], used.key[k]) == 0,
			      "%s: key %u is '%s' in a zeroed state, '%s' in a used one",
			      c->ops->name, k, zero.key[k], used.key[k]);
		ck_assert_msg(zero.value[k] == 0,
			      "%s: a zeroed state dumps %s = %llu",
			      c->ops->name, zero.key[k],
			      (unsigned long long)zero.value[k]);
	}
}
END_TEST

TCase *
hlb_conformance_tcase(const struct hlb_ops *ops, const void *settings)
{
	const unsigned int k = hlbc_nb_cases;
	struct hlbc_case *c = &hlbc_cases[k];
	TCase *tc;

	if (k == HLBC_MAX_CASES || ops == NULL) {
		fprintf(stderr, "hlb_conformance_tcase: no room or no policy\n");
		abort();
	}
	tc = t_conformance_tcase(ops->name, c->name, sizeof(c->name),
				 c->settings.bytes, sizeof(c->settings.bytes),
				 ops->defaults, settings, ops->settings_size);
	c->ops = ops;
	hlbc_nb_cases++;
	if (ops->parse != NULL)
		tcase_add_loop_test(tc, hlbc_test_settings, k, k + 1);
	tcase_add_loop_test(tc, hlbc_test_in_range, k, k + 1);
	tcase_add_loop_test(tc, hlbc_test_determinism, k, k + 1);
	tcase_add_loop_test(tc, hlbc_test_independent, k, k + 1);
	if (ops->dump != NULL)
		tcase_add_loop_test(tc, hlbc_test_dump, k, k + 1);
	return tc;
}
