/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What fuzz_switch draws (tests/fuzz/fuzz_switch_modes.c): every switch
 * policy in the lb registry is reached by some header byte, a policy
 * registered at run time too, and so is every trim, rts, PFC and link
 * mode; nothing drawn lies outside them.  A policy added to the registry
 * is fuzzed without a change to the harness, and a mapping that skipped
 * one fails here.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/fuzz_switch_modes.h"
#include "lb.h"
#include "sw_config.h"
#include "unit_suite.h"

/* Whether some byte value draws ops. */
static bool
t_policy_reached(const struct lb_ops *ops)
{
	unsigned int b;

	for (b = 0; b <= UINT8_MAX; b++)
		if (fz_sw_modes_policy((uint8_t)b) == ops)
			return true;
	return false;
}

START_TEST(test_every_policy_reached)
{
	unsigned int i, b;

	ck_assert_ptr_nonnull(lb_registry[0]);
	for (i = 0; lb_registry[i] != NULL; i++)
		ck_assert_msg(t_policy_reached(lb_registry[i]),
			      "policy %s is never drawn by fuzz_switch",
			      lb_registry[i]->name);
	/* And every byte draws a registered policy. */
	for (b = 0; b <= UINT8_MAX; b++)
		ck_assert_int_ge(lb_index(fz_sw_modes_policy((uint8_t)b)), 0);
}
END_TEST

/* A policy of this test alone: every packet to the first live member. */
static int
t_first_create(const struct lb_params *p, void **state)
{
	static int dummy;

	*state = &dummy;
	return 0;
}

static void
t_first_destroy(void *state)
{
}

static void
t_first_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
	     const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		out[i] = pkts[i].grp->nb_live ? pkts[i].grp->live[0] : LB_NONE;
}

static const struct lb_ops t_first_ops = {
	.name = "fuzz_modes_first",
	.summary = "the first live member (test_fuzz_switch_modes.c)",
	.create = t_first_create,
	.destroy = t_first_destroy,
	.pick = t_first_pick,
};

START_TEST(test_registered_policy_reached)
{
	ck_assert(!t_policy_reached(&t_first_ops));
	ck_assert_int_eq(lb_register(&t_first_ops), 0);
	ck_assert(t_policy_reached(&t_first_ops));
}
END_TEST

/* Entries of a NULL-terminated list of names. */
static unsigned int
t_count(const char *const *names)
{
	unsigned int n = 0;

	while (names[n] != NULL)
		n++;
	return n;
}

/* fn reaches exactly the values 0 .. nb - 1. */
static void
t_check_range(uint8_t (*fn)(uint8_t), unsigned int nb, const char *what)
{
	bool seen[256] = { false };
	unsigned int b, v;

	for (b = 0; b <= UINT8_MAX; b++) {
		v = fn((uint8_t)b);
		ck_assert_msg(v < nb, "%s: byte %u draws %u, past the %u modes",
			      what, b, v, nb);
		seen[v] = true;
	}
	for (v = 0; v < nb; v++)
		ck_assert_msg(seen[v], "%s: mode %u is never drawn", what, v);
}

/* Also from the low bits alone: the harness passes masked bytes. */
static void
t_check_low_bits(uint8_t (*fn)(uint8_t), unsigned int nb, unsigned int mask,
		 const char *what)
{
	bool seen[256] = { false };
	unsigned int b;

	for (b = 0; b <= mask; b++)
		seen[fn((uint8_t)b)] = true;
	for (b = 0; b < nb; b++)
		ck_assert_msg(seen[b], "%s: mode %u is never drawn from bits %#x",
			      what, b, mask);
}

START_TEST(test_every_queue_and_link_mode_reached)
{
	unsigned int nb_trim = 1 + t_count(sw_trim_size_names);

	ck_assert_uint_eq(nb_trim, SW_TRIM_FULL + 1);
	t_check_range(fz_sw_modes_trim, nb_trim, "trim");
	t_check_range(fz_sw_modes_rts, t_count(sw_rts_names), "rts");
	ck_assert_uint_eq(t_count(sw_rts_names), SW_RTS_ALWAYS + 1);
	t_check_range(fz_sw_modes_pfc_mode, t_count(sw_pfc_mode_names),
		      "pfc_mode");
	ck_assert_uint_eq(t_count(sw_pfc_mode_names), SW_PFC_SOFTWARE + 1);
	t_check_range(fz_sw_modes_link, t_count(sw_link_state_names), "link");
	ck_assert_uint_eq(t_count(sw_link_state_names), SW_LINK_NB_STATES);
	/* fuzz_switch.c's header gives each two or three bits. */
	t_check_low_bits(fz_sw_modes_trim, nb_trim, 3, "trim");
	t_check_low_bits(fz_sw_modes_rts, t_count(sw_rts_names), 3, "rts");
	t_check_low_bits(fz_sw_modes_pfc_mode, t_count(sw_pfc_mode_names), 3,
			 "pfc_mode");
	t_check_low_bits(fz_sw_modes_link, t_count(sw_link_state_names), 7,
			 "link");
}
END_TEST

static Suite *
fuzz_switch_modes_suite(void)
{
	Suite *s = suite_create("fuzz_switch_modes");
	TCase *tc = tcase_create("modes");

	tcase_add_test(tc, test_every_policy_reached);
	tcase_add_test(tc, test_every_queue_and_link_mode_reached);
	/* Last: it adds a policy to the registry. */
	tcase_add_test(tc, test_registered_policy_reached);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(fuzz_switch_modes_suite());
}
