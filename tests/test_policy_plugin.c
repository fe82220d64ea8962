/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch policy defined only in this file, as docs/architecture.md
 * ("Adding a policy") shows: "first" sends every packet to one live member
 * of its group, the member-th (modulo the live ones).  It registers with
 * lb_register() (which refuses it without a required member), keeps the
 * contract every policy keeps (tests/lib/lb_conformance.h), parses its own
 * [first] section -- the fabric's loader reports its bad values and
 * unknown keys like anyone's -- and forwards a whole k = 4 fat tree's
 * permutation in ofan-fabric.  Nothing outside this file knows it.
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
#include "lb.h"
#include "lb_conformance.h"
#include "ofan_config.h"
#include "ofan_wire.h"

#include "plugin_suite.h"


/* ---- the policy ---- */

struct first_settings {
	uint32_t member;	/* [first] member: which live member (0) */
};

struct first {
	uint32_t member;
	uint64_t nb_picks;
};

static void
first_defaults(void *settings)
{
	((struct first_settings *)settings)->member = 0;
}

static int
first_parse(struct ofan_cfg *cfg, void *settings)
{
	struct first_settings *s = settings;

	return ofan_cfg_get_u32(cfg, "first", "member", 0, 0,
				LB_MAX_MEMBERS - 1, &s->member) < 0 ?
		-EINVAL : 0;
}

static int
first_create(const struct lb_params *p, void **state)
{
	const struct first_settings *s = p->settings;
	struct first *st = calloc(1, sizeof(*st));

	if (st == NULL)
		return -ENOMEM;
	st->member = s->member;
	*state = st;
	return 0;
}

static void
first_destroy(void *state)
{
	free(state);
}

static void
first_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
	   const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	struct first *st = state;
	uint16_t i;

	RTE_SET_USED(view);
	RTE_SET_USED(now_ns);
	for (i = 0; i < n; i++) {
		const struct lb_group *g = pkts[i].grp;

		out[i] = g->nb_live == 0 ? LB_NONE :
			g->live[st->member % g->nb_live];
	}
	st->nb_picks += n;
}

static const struct lb_ops first_ops = {
	.name = "first",
	.summary = "one live member of the group, always the same",
	.settings_size = sizeof(struct first_settings),
	.defaults = first_defaults,
	.parse = first_parse,
	.create = first_create,
	.destroy = first_destroy,
	.pick = first_pick,
	/* no group_changed, no dump: the engine skips them */
};

/* ---- the tests ---- */

START_TEST(test_registers)
{
	/* Static: were it wrongly taken, the registry would keep it. */
	static struct lb_ops bad;
	char names[256];

	ck_assert_ptr_eq(lb_find("first"), &first_ops);
	ck_assert_int_eq(lb_register(&first_ops), -EEXIST);
	ck_assert_ptr_nonnull(strstr(lb_names(names, sizeof(names)),
				     ", first"));
	/* Without its summary, or its pick(), it would not have been. */
	bad = first_ops;
	bad.name = "second";
	bad.summary = NULL;
	ck_assert_int_eq(lb_register(&bad), -EINVAL);
	bad.summary = first_ops.summary;
	bad.pick = NULL;
	ck_assert_int_eq(lb_register(&bad), -EINVAL);
	ck_assert_ptr_null(lb_find("second"));
}
END_TEST

START_TEST(test_parses_its_section)
{
	static const struct t_refused bad[] = {
		/* An override's mistake names the override. */
		{ "first.member=64",
		  "command line: first.member=64: '64' is out of range; expected an integer in [0, 63]" },
		{ "first.member=x", "'x'" },
		{ "first.colour=red", "allowed keys in [first]: member" },
	};
	const char *ov[2] = { "fabric.schemes=first" };
	struct fab_experiment x;
	char err[1024];

	ov[1] = "first.member=1";
	ck_assert_msg(t_load(&x, ov, 2, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_eq(x.combos[0].schemes[0].sw_policy, &first_ops);
	fab_experiment_free(&x);
	t_expect_refused(ov[0], bad, RTE_DIM(bad));
}
END_TEST

/* Run the scheme called scheme of "first, spray" with override member. */
static void
t_policy_run(const char *member, const char *scheme, struct fab_run *r)
{
	const char *ov[] = { "fabric.schemes=first, spray", member };
	struct fab_experiment x;

	t_run_scheme(ov, RTE_DIM(ov), strcmp(scheme, "first") == 0 ? 0 : 1,
		     &x, r);
	ck_assert_str_eq(x.combos[0].schemes[r->scheme].name, scheme);
	fab_experiment_free(&x);
}

/*
 * It forwards: every flow of the permutation completes.  And it is the
 * policy that does: with all of a ToR's traffic on one uplink, the two
 * hosts under it share 100 Gb/s, so flows take about twice their ideal,
 * where spraying over both uplinks does not; member 0 and member 1 are
 * each a single path.
 */
START_TEST(test_forwards)
{
	struct fab_run r0, r1, rs;

	t_policy_run("first.member=0", "first", &r0);
	t_policy_run("first.member=1", "first", &r1);
	t_policy_run("first.member=0", "spray", &rs);
	ck_assert(r0.completed && r1.completed && rs.completed);
	ck_assert_uint_eq(r0.nb_completed, r0.nb_flows);
	ck_assert_uint_eq(r1.nb_completed, r1.nb_flows);
	ck_assert_msg(r0.max_slowdown > 1.6 && r1.max_slowdown > 1.6 &&
		      rs.max_slowdown < 1.4,
		      "max slowdown: first/0 %.2f, first/1 %.2f, spray %.2f",
		      r0.max_slowdown, r1.max_slowdown, rs.max_slowdown);
	fab_run_free(&r0);
	fab_run_free(&r1);
	fab_run_free(&rs);
}
END_TEST

static Suite *
plugin_suite(void)
{
	static const struct first_settings second = { .member = 1 };
	const TTest *const tests[] = {
		test_registers, test_parses_its_section, test_forwards, NULL
	};
	Suite *s = t_plugin_suite("policy_plugin", "first", tests);

	suite_add_tcase(s, lb_conformance_tcase(&first_ops, NULL));
	suite_add_tcase(s, lb_conformance_tcase(&first_ops, &second));
	return s;
}

int
main(void)
{
	return t_plugin_main("test_policy_plugin",
			     lb_register(&first_ops), plugin_suite);
}
