/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A host policy defined only in this file, as docs/architecture.md
 * ("Extending ofan") shows for a switch policy: "cycle" gives each
 * connection a random base EV and sends packet i on EV base + i mod
 * width ([host.cycle] width; wrapping inside the EV range), so width 1
 * is plain ECMP and a wide cycle sprays.  It registers with
 * hlb_register() before any configuration is read (which refuses it
 * without a required member), keeps the contract every host policy keeps
 * (tests/lib/hlb_conformance.h), parses its own [host.cycle] section through
 * ofan-fabric's loader, and runs a k = 4 fat tree's permutation as the
 * scheme "cycle" (ECMP switches, cycle at the hosts).  Nothing outside
 * this file knows it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "fab.h"
#include "hlb.h"
#include "hlb_conformance.h"
#include "lb.h"
#include "ofan_config.h"
#include "ofan_wire.h"

#include "plugin_suite.h"

#define T_MAX_WIDTH 1024

/* ---- the policy ---- */

struct cycle_settings {
	uint32_t width;		/* [host.cycle] width: EVs per cycle (8) */
};

/* One connection's state. */
struct cycle {
	uint16_t base;		/* the cycle's first EV */
	uint32_t next;		/* packets sent so far */
	uint64_t nb_acks;
	uint64_t nb_strays;	/* ACKs echoing an EV outside the cycle */
};

static void
cycle_defaults(void *settings)
{
	((struct cycle_settings *)settings)->width = 8;
}

static int
cycle_parse(struct ofan_cfg *cfg, void *settings)
{
	struct cycle_settings *s = settings;

	return ofan_cfg_get_u32(cfg, "host.cycle", "width", 0, 1, T_MAX_WIDTH,
				&s->width) < 0 ? -EINVAL : 0;
}

/* The cycle's length: its width, or the whole range if that is smaller. */
static uint32_t
cycle_len(const struct hlb_params *p)
{
	const struct cycle_settings *s = p->settings;
	uint32_t range = (uint32_t)p->ev_max - p->ev_min + 1;

	return s->width < range ? s->width : range;
}

static void
cycle_init(void *state, const struct hlb_params *p, struct ofan_rng *rng,
	   uint64_t now_ns)
{
	struct cycle *st = state;

	RTE_SET_USED(now_ns);
	st->base = hlb_random_ev(p, rng);
}

/* The EV at offset k of the cycle, wrapping inside [ev_min, ev_max]. */
static uint16_t
cycle_ev(const struct cycle *st, const struct hlb_params *p, uint32_t k)
{
	uint32_t range = (uint32_t)p->ev_max - p->ev_min + 1;

	return (uint16_t)(p->ev_min + (st->base - p->ev_min + k) % range);
}

static uint16_t
cycle_next_ev(void *state, const struct hlb_params *p, struct ofan_rng *rng,
	      uint64_t now_ns)
{
	struct cycle *st = state;

	RTE_SET_USED(rng);
	RTE_SET_USED(now_ns);
	return cycle_ev(st, p, st->next++ % cycle_len(p));
}

static void
cycle_on_ack(void *state, const struct hlb_params *p, struct ofan_rng *rng,
	     uint16_t ev, bool ce, uint64_t rtt_ns, uint64_t now_ns)
{
	struct cycle *st = state;
	uint32_t range = (uint32_t)p->ev_max - p->ev_min + 1;

	RTE_SET_USED(rng);
	RTE_SET_USED(ce);
	RTE_SET_USED(rtt_ns);
	RTE_SET_USED(now_ns);
	st->nb_acks++;
	if (ev < p->ev_min || ev > p->ev_max ||
	    (uint32_t)(ev - p->ev_min + range - (st->base - p->ev_min)) %
	    range >= cycle_len(p))
		st->nb_strays++;
}

/* Feedback does not move the cycle. */
static void
cycle_on_timeout(void *state, const struct hlb_params *p,
		 struct ofan_rng *rng, uint64_t now_ns)
{
	RTE_SET_USED(state);
	RTE_SET_USED(p);
	RTE_SET_USED(rng);
	RTE_SET_USED(now_ns);
}

static void
cycle_dump(const void *state,
	   void (*emit)(void *arg, const char *key, uint64_t value), void *arg)
{
	const struct cycle *st = state;

	emit(arg, "packets", st->next);
	emit(arg, "acks", st->nb_acks);
	emit(arg, "strays", st->nb_strays);
}

static const struct hlb_ops cycle_ops = {
	.name = "cycle",
	.summary = "packet i on EV base + i mod width, base random per connection",
	.settings_size = sizeof(struct cycle_settings),
	.defaults = cycle_defaults,
	.parse = cycle_parse,
	.state_size = sizeof(struct cycle),
	.init = cycle_init,
	.next_ev = cycle_next_ev,
	.on_ack = cycle_on_ack,
	.on_timeout = cycle_on_timeout,
	/* no on_path_timeout: erasure recovery then keeps no per-EV timers */
	.dump = cycle_dump,
};

/* ---- the tests ---- */

/*
 * Registered, and refused without any required member (checked first:
 * each case's name is free, so a missing check would register it).
 */
START_TEST(test_registers)
{
	static struct hlb_ops bad[T_NAME_FAULTS + 4];

	ck_assert_ptr_eq(hlb_find("cycle"), &cycle_ops);
	ck_assert_int_eq(hlb_register(&cycle_ops), -EEXIST);
	T_FAULTY(bad, RTE_DIM(bad), cycle_ops, "second");
	bad[T_NAME_FAULTS + 0].init = NULL;
	bad[T_NAME_FAULTS + 1].next_ev = NULL;
	bad[T_NAME_FAULTS + 2].on_ack = NULL;
	bad[T_NAME_FAULTS + 3].on_timeout = NULL;
	T_CHECK_REFUSED(hlb_register, bad, RTE_DIM(bad));
	ck_assert_ptr_null(hlb_find("second"));
	bad[0] = cycle_ops;
	bad[0].name = "Cycle";
	ck_assert_int_eq(hlb_register(&bad[0]), -EEXIST);
}
END_TEST

START_TEST(test_parses_its_section)
{
	static const struct t_refused bad[] = {
		/* An override's mistake names the override. */
		{ "host.cycle.width=0",
		  "command line: host.cycle.width=0: '0' is out of range; expected an integer in [1, 1024]" },
		{ "host.cycle.width=x", "'x'" },
		{ "host.cycle.colour=red", "allowed keys in [host.cycle]: width" },
	};
	/* Alone, a host policy runs over ECMP switches; or SWITCH+HOST. */
	const char *ov[2] = { "fabric.schemes=cycle, spray+cycle" };
	const struct fab_scheme *sc;
	struct fab_experiment x;
	char err[1024];

	ov[1] = "host.cycle.width=64";
	ck_assert_msg(t_load(&x, ov, 2, err, sizeof(err)) == 0, "%s", err);
	sc = x.combos[0].schemes;
	ck_assert_ptr_eq(sc[0].host_policy, &cycle_ops);
	ck_assert_ptr_eq(sc[0].sw_policy, lb_find("ecmp"));
	ck_assert_ptr_eq(sc[1].host_policy, &cycle_ops);
	ck_assert_ptr_eq(sc[1].sw_policy, lb_find("spray"));
	fab_experiment_free(&x);
	t_expect_refused(ov[0], bad, RTE_DIM(bad));
}
END_TEST

/* Run the scheme "cycle" with override width ("host.cycle.width=N"). */
static void
t_host_policy_run(const char *width, struct fab_run *r)
{
	const char *ov[] = { "fabric.schemes=cycle", width };
	struct fab_experiment x;

	t_run_scheme(ov, RTE_DIM(ov), 0, &x, r);
	ck_assert_ptr_eq(x.combos[0].schemes[0].host_policy, &cycle_ops);
	fab_experiment_free(&x);
}

/* The policy's counter key, summed over its connections, in run r. */
static uint64_t
t_counter(const struct fab_run *r, const char *key)
{
	unsigned int i;

	for (i = 0; i < r->nb_policy; i++)
		if (strcmp(r->policy[i].key, key) == 0)
			return r->policy[i].value;
	ck_abort_msg("no policy counter '%s'", key);
	return 0;
}

/*
 * It carries the traffic: every flow of the permutation completes.  It
 * chose every data packet's EV and saw every ACK its flows processed,
 * and each ACK echoed an EV of its connection's cycle: the EVs it chose
 * are the ones that crossed the fabric.  And they steer it: with one EV
 * per connection (width 1) two flows that hash onto one uplink share it
 * for their whole life, as with ECMP, so the worst flow takes well over
 * twice its ideal; a cycle of 64 EVs spreads each flow over the paths
 * and keeps every flow near its ideal.
 */
START_TEST(test_steers)
{
	static const char *const widths[] = {
		"host.cycle.width=1", "host.cycle.width=64",
	};
	double sd[RTE_DIM(widths)];
	struct fab_run r;
	uint64_t acks;
	unsigned int w;
	uint32_t f;

	for (w = 0; w < RTE_DIM(widths); w++) {
		t_host_policy_run(widths[w], &r);
		ck_assert_uint_eq(r.nb_completed, r.nb_flows);
		/* Completed flows were acknowledged: acks > 0. */
		for (f = 0, acks = 0; f < r.nb_flows; f++)
			acks += r.flows[f].m.acks_received;
		ck_assert_uint_eq(t_counter(&r, "packets"), r.hosts.data_sent);
		ck_assert_uint_eq(t_counter(&r, "acks"), acks);
		ck_assert_uint_eq(t_counter(&r, "strays"), 0);
		sd[w] = r.max_slowdown;
		fab_run_free(&r);
	}
	fprintf(stderr, "cycle on permutation-k4: max slowdown %.3f (width 1), %.3f (width 64)\n",
		sd[0], sd[1]);
	ck_assert_msg(sd[0] > 2.0 && sd[1] < 1.5,
		      "max slowdown: width 1 %.3f, width 64 %.3f", sd[0],
		      sd[1]);
}
END_TEST

static Suite *
plugin_suite(void)
{
	static const struct cycle_settings one = { .width = 1 };
	static const struct cycle_settings widest = { .width = T_MAX_WIDTH };
	const TTest *const tests[] = {
		test_registers, test_parses_its_section, test_steers, NULL
	};
	Suite *s = t_plugin_suite("host_policy_plugin", "cycle", tests);

	suite_add_tcase(s, hlb_conformance_tcase(&cycle_ops, NULL));
	suite_add_tcase(s, hlb_conformance_tcase(&cycle_ops, &one));
	suite_add_tcase(s, hlb_conformance_tcase(&cycle_ops, &widest));
	return s;
}

int
main(void)
{
	return t_plugin_main("test_host_policy_plugin",
			     hlb_register(&cycle_ops), plugin_suite);
}
