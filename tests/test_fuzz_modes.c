/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_host's modes (tests/fuzz/fuzz_host_modes.h): every registered
 * recovery model, congestion controller and host policy is reached by
 * some header byte, one registered here after the built-ins too, so a
 * model nobody added to the fuzzer's list still gets fuzzed; and the
 * in-order probe tells gbn from the models that take any order.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_host_modes.h"
#include "unit_suite.h"

/* Registered by the tests below, copies of built-ins under new names. */
static struct hs_recovery_ops t_recovery;
static struct hs_cc_ops t_cc;
static struct hlb_ops t_policy;

static bool
t_recovery_reached(const struct hs_recovery_ops *ops)
{
	unsigned int b;

	for (b = 0; b <= UINT8_MAX; b++)
		if (fz_modes_recovery((uint8_t)b) == ops)
			return true;
	return false;
}

static bool
t_cc_reached(const struct hs_cc_ops *ops)
{
	unsigned int b;

	for (b = 0; b <= UINT8_MAX; b++)
		if (fz_modes_cc((uint8_t)b) == ops)
			return true;
	return false;
}

static bool
t_policy_reached(const struct hlb_ops *ops)
{
	unsigned int b;

	for (b = 0; b <= UINT8_MAX; b++)
		if (fz_modes_policy((uint8_t)b) == ops)
			return true;
	return false;
}

/* Every entry of each registry, as it stands, is drawn by some byte. */
static void
t_all_reached(void)
{
	unsigned int i;

	for (i = 0; hs_recovery_registry[i] != NULL; i++)
		ck_assert_msg(t_recovery_reached(hs_recovery_registry[i]),
			      "recovery %s is not fuzzed",
			      hs_recovery_registry[i]->name);
	for (i = 0; hs_cc_registry[i] != NULL; i++)
		ck_assert_msg(t_cc_reached(hs_cc_registry[i]),
			      "cc %s is not fuzzed", hs_cc_registry[i]->name);
	for (i = 0; hlb_registry[i] != NULL; i++)
		ck_assert_msg(t_policy_reached(hlb_registry[i]),
			      "host policy %s is not fuzzed",
			      hlb_registry[i]->name);
}

START_TEST(test_builtins_reached)
{
	/* Built-in ones by name, then every registered one. */
	ck_assert(t_recovery_reached(hs_recovery_find("tcp")));
	ck_assert(t_recovery_reached(hs_recovery_find("trim")));
	ck_assert(t_recovery_reached(hs_recovery_find("gbn")));
	ck_assert(t_policy_reached(hlb_find("drb")));
	t_all_reached();
}
END_TEST

START_TEST(test_registered_reached)
{
	/* One more of each kind, as a plug-in would register it. */
	t_recovery = *hs_recovery_find("tcp");
	t_recovery.name = "fz_test_recovery";
	ck_assert_int_eq(hs_recovery_register(&t_recovery), 0);
	t_cc = *hs_cc_find("ecn_window");
	t_cc.name = "fz_test_cc";
	ck_assert_int_eq(hs_cc_register(&t_cc), 0);
	t_policy = *hlb_find("drb");
	t_policy.name = "fz_test_policy";
	ck_assert_int_eq(hlb_register(&t_policy), 0);
	ck_assert(t_recovery_reached(&t_recovery));
	ck_assert(t_cc_reached(&t_cc));
	ck_assert(t_policy_reached(&t_policy));
	t_all_reached();
}
END_TEST

/* The list the docs read names each registered mode once, as drawn. */
START_TEST(test_print)
{
	char buf[4096], line[128];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	unsigned int i, n = 0;

	ck_assert_ptr_nonnull(f);
	fz_modes_print(f);
	fclose(f);
	for (i = 0; hs_recovery_registry[i] != NULL; i++, n++) {
		snprintf(line, sizeof(line), "recovery %s\n",
			 hs_recovery_registry[i]->name);
		ck_assert_ptr_nonnull(strstr(buf, line));
	}
	for (i = 0; hs_cc_registry[i] != NULL; i++, n++) {
		snprintf(line, sizeof(line), "cc %s\n",
			 hs_cc_registry[i]->name);
		ck_assert_ptr_nonnull(strstr(buf, line));
	}
	for (i = 0; hlb_registry[i] != NULL; i++, n++) {
		snprintf(line, sizeof(line), "policy %s\n",
			 hlb_registry[i]->name);
		ck_assert_ptr_nonnull(strstr(buf, line));
	}
	for (i = 0; buf[i] != '\0'; i++)
		n -= buf[i] == '\n';
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(test_in_order)
{
	ck_assert(fz_modes_in_order(hs_recovery_find("gbn")));
	ck_assert(!fz_modes_in_order(hs_recovery_find("tcp")));
	ck_assert(!fz_modes_in_order(hs_recovery_find("trim")));
	ck_assert(!fz_modes_in_order(hs_recovery_find("sack")));
	ck_assert(!fz_modes_in_order(hs_recovery_find("erasure")));
}
END_TEST

static Suite *
fuzz_modes_suite(void)
{
	Suite *s = suite_create("fuzz_modes");
	TCase *tc = tcase_create("fuzz_modes");

	tcase_add_test(tc, test_builtins_reached);
	tcase_add_test(tc, test_print);
	tcase_add_test(tc, test_in_order);
	/* Last: it registers for good (in a forked test, only there). */
	tcase_add_test(tc, test_registered_reached);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(fuzz_modes_suite());
}
