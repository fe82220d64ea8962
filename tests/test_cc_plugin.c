/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A congestion controller defined only in this file, as
 * docs/architecture.md ("A congestion-control model") shows: "aimd"
 * keeps a window of packets, [cc.aimd] max_window at the start and at
 * most, multiplied by [cc.aimd] beta on every ACK that echoes a mark (1
 * at least), grown by 1 / window per clean ACK, 1 after a timeout.  It
 * registers with hs_cc_register() before any configuration is read
 * (which refuses it without a name or a summary, with a window test that
 * disagrees with windowed, or with settings that do not fit), keeps the
 * contract every controller keeps (tests/lib/cc_conformance.h), parses
 * its own [cc.aimd] section through ofan-fabric's loader, whichever
 * controller runs, and runs a k = 4 fat tree's permutation as [host] cc =
 * aimd: every flow completes, and a window of one packet makes the
 * longest flow far longer than a window of 64.  Nothing outside this
 * file knows it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <check.h>
#include <rte_common.h>

#include "cc_conformance.h"
#include "fab.h"
#include "hs_cc.h"
#include "ofan_config.h"

#include "plugin_suite.h"

#define AIMD_MAX_WINDOW (1u << 20)

/* ---- the controller ---- */

struct aimd_settings {
	uint32_t max_window;	/* [cc.aimd] max_window: packets (64) */
	double beta;		/* [cc.aimd] beta: the cut on a mark (0.5) */
};

static void
aimd_defaults(void *settings)
{
	struct aimd_settings *s = settings;

	s->max_window = 64;
	s->beta = 0.5;
}

static int
aimd_parse(struct ofan_cfg *cfg, const char *section, void *settings)
{
	struct aimd_settings *s = settings;

	if (ofan_cfg_get_u32(cfg, section, "max_window", 0, 1,
			     AIMD_MAX_WINDOW, &s->max_window) ||
	    ofan_cfg_get_double(cfg, section, "beta", 0, 0.01, 0.99,
				&s->beta))
		return -EINVAL;
	return 0;
}

/* A flow's window, packets, and its packets' payload bytes. */
struct aimd_state {
	double cwnd;
	uint16_t mss;
};

static void
aimd_start(void *st, const void *settings, const struct hs_cc_flow *f)
{
	struct aimd_state *w = st;

	w->cwnd = ((const struct aimd_settings *)settings)->max_window;
	w->mss = f->mss;
}

static bool
aimd_may_send(const void *st, const void *settings,
	      const struct hs_cc_flight *f)
{
	RTE_SET_USED(settings);
	return f->pkts < (uint32_t)((const struct aimd_state *)st)->cwnd;
}

static double
aimd_window(const void *st, const void *settings)
{
	const struct aimd_state *w = st;

	RTE_SET_USED(settings);
	return (double)(uint32_t)w->cwnd * w->mss;
}

static void
aimd_on_ack(void *st, const void *settings, const struct hs_cc_ack *a)
{
	const struct aimd_settings *s = settings;
	struct aimd_state *w = st;

	if (a->ce)
		w->cwnd = RTE_MAX(1.0, w->cwnd * s->beta);
	else
		w->cwnd = RTE_MIN((double)s->max_window,
				  w->cwnd + 1.0 / w->cwnd);
}

static void
aimd_on_timeout(void *st, const void *settings, uint64_t now_ns)
{
	RTE_SET_USED(settings);
	RTE_SET_USED(now_ns);
	((struct aimd_state *)st)->cwnd = 1.0;
}

static const struct hs_cc_ops aimd_ops = {
	.name = "aimd",
	.summary = "a window: times beta on a CE echo, +1/window per clean ACK, 1 after a timeout",
	.windowed = true,
	.settings_size = sizeof(struct aimd_settings),
	.state_size = sizeof(struct aimd_state),
	.defaults = aimd_defaults,
	.parse = aimd_parse,
	.start = aimd_start,
	.may_send = aimd_may_send,
	.window = aimd_window,
	.on_ack = aimd_on_ack,
	.on_timeout = aimd_on_timeout,
};

/* ---- the tests ---- */

/* Registered, and refused without what every controller must have. */
START_TEST(test_registers)
{
	struct hs_cc_ops bad[T_NAME_FAULTS + 3];

	ck_assert_ptr_eq(hs_cc_find("AIMD"), &aimd_ops);
	ck_assert_int_eq(hs_cc_register(&aimd_ops), -EEXIST);
	T_FAULTY(bad, RTE_DIM(bad), aimd_ops, "twice");
	bad[T_NAME_FAULTS + 0].may_send = NULL;	/* windowed, no test */
	bad[T_NAME_FAULTS + 1].windowed = false; /* a test, not windowed */
	bad[T_NAME_FAULTS + 2].settings_size = HS_CC_SETTINGS_MAX + 1;
	T_CHECK_REFUSED(hs_cc_register, bad, RTE_DIM(bad));
	ck_assert_ptr_null(hs_cc_find("twice"));
	bad[0] = aimd_ops;
	bad[0].name = "Rate";
	ck_assert_int_eq(hs_cc_register(&bad[0]), -EEXIST);
}
END_TEST

/* Its block in the config of combination 0 of x. */
static const struct aimd_settings *
t_aimd(const struct fab_experiment *x)
{
	return hs_cc_settings_of(&x->combos[0].host.set.cc_set, &aimd_ops);
}

/*
 * [host] cc = aimd, and its own [cc.aimd] section read whichever
 * controller runs: from an override, checked, unknown keys refused.
 */
START_TEST(test_config)
{
	static const struct t_refused bad[] = {
		{ "cc.aimd.beta=1",
		  "command line: cc.aimd.beta=1: '1' is out of range; expected a number in [0.01, 0.99]" },
		{ "cc.aimd.max_window=0", "'0' is out of range" },
		{ "cc.aimd.colour=red",
		  "allowed keys in [cc.aimd]: max_window, beta" },
	};
	const char *ok[] = { "host.cc=aimd", "cc.aimd.max_window=8",
			     "cc.aimd.beta=0.25" };
	const char *unknown[] = { "host.cc=aimdd" };
	struct fab_experiment x;
	char err[1024];

	ck_assert_msg(t_load(&x, ok, 1, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_eq(x.combos[0].host.set.cc, &aimd_ops);
	ck_assert_uint_eq(t_aimd(&x)->max_window, 64);
	ck_assert(t_aimd(&x)->beta == 0.5);
	fab_experiment_free(&x);
	ck_assert_msg(t_load(&x, ok, 3, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(t_aimd(&x)->max_window, 8);
	ck_assert(t_aimd(&x)->beta == 0.25);
	fab_experiment_free(&x);
	/* Another controller runs: the section is read all the same. */
	ck_assert_msg(t_load(&x, ok + 1, 2, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_ptr_eq(x.combos[0].host.set.cc, hs_cc_find("rate"));
	ck_assert_uint_eq(t_aimd(&x)->max_window, 8);
	fab_experiment_free(&x);
	t_expect_refused("host.cc=rate", bad, RTE_DIM(bad));
	ck_assert_int_ne(t_load(&x, unknown, 1, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "'aimdd' is unknown; expected one of rate, ecn_window, nscc, rccc, aimd") != NULL,
		      "%s", err);
}
END_TEST

/*
 * It runs: every flow of the permutation completes over ofan's switches,
 * each packet received; a window of one packet holds each flow to a
 * packet per round trip, so the longest flow takes far longer than with
 * a window of 64.
 */
START_TEST(test_runs_in_fabric)
{
	const char *ov[] = { "host.cc=aimd", "fabric.schemes=ofan",
			     "traffic.size=256KiB", "cc.aimd.max_window=64" };
	static const char *const windows[] = {
		"cc.aimd.max_window=64", "cc.aimd.max_window=1",
	};
	uint64_t longest[2], need;
	struct fab_experiment x;
	struct fab_run r;
	unsigned int w;
	uint32_t f;

	for (w = 0; w < 2; w++) {
		ov[3] = windows[w];
		t_run_scheme(ov, RTE_DIM(ov), 0, &x, &r);
		ck_assert_ptr_eq(x.combos[0].host.set.cc, &aimd_ops);
		ck_assert(r.completed);
		ck_assert_uint_eq(r.nb_completed, 16);
		need = (256 * 1024 + x.combos[0].host.set.mss - 1) /
			x.combos[0].host.set.mss;
		longest[w] = 0;
		for (f = 0; f < r.nb_flows; f++) {
			ck_assert_uint_eq(r.flows[f].m.data_received, need);
			if (r.flows[f].fct_ns > longest[w])
				longest[w] = r.flows[f].fct_ns;
		}
		fab_run_free(&r);
		fab_experiment_free(&x);
	}
	fprintf(stderr, "aimd on permutation-k4: longest flow %" PRIu64 " ns, %" PRIu64 " ns with max_window = 1\n",
		longest[0], longest[1]);
	ck_assert_uint_gt(longest[1], 2 * longest[0]);
}
END_TEST

static Suite *
plugin_suite(void)
{
	static const struct aimd_settings one = {
		.max_window = 1, .beta = 0.5,
	};
	static const struct aimd_settings widest = {
		.max_window = AIMD_MAX_WINDOW, .beta = 0.01,
	};
	const TTest *const tests[] = {
		test_registers, test_config, test_runs_in_fabric, NULL
	};
	Suite *s = t_plugin_suite("cc_plugin", "aimd", tests);

	suite_add_tcase(s, cc_conformance_tcase(&aimd_ops, NULL));
	suite_add_tcase(s, cc_conformance_tcase(&aimd_ops, &one));
	suite_add_tcase(s, cc_conformance_tcase(&aimd_ops, &widest));
	return s;
}

int
main(void)
{
	return t_plugin_main("test_cc_plugin", hs_cc_register(&aimd_ops),
			     plugin_suite);
}
