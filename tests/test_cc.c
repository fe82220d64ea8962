/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every registered congestion controller keeps the contract of
 * host/transport/hs_cc.h (tests/lib/cc_conformance.h): with its
 * defaults, ecn_window with the smallest and the largest window, and
 * NSCC from one packet without quick adapt.
 * The built-ins' arithmetic is test_sack's case "cc".
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cc_conformance.h"
#include "hs_cc.h"
#include "hs_ecn_window.h"
#include "hs_nscc.h"
#include "unit_suite.h"

int
main(void)
{
	static const struct hs_ecn_window_settings one = { .window_pkts = 1 };
	static const struct hs_ecn_window_settings widest = {
		.window_pkts = 1u << 20,
	};
	struct hs_nscc_settings nscc_small;
	Suite *s = suite_create("cc");
	unsigned int i;

	for (i = 0; hs_cc_registry[i] != NULL; i++)
		suite_add_tcase(s, cc_conformance_tcase(hs_cc_registry[i],
							NULL));
	if (hs_cc_find("ecn_window") == NULL)
		abort();
	suite_add_tcase(s, cc_conformance_tcase(hs_cc_find("ecn_window"),
						&one));
	suite_add_tcase(s, cc_conformance_tcase(hs_cc_find("ecn_window"),
						&widest));
	/* NSCC from one packet, without quick adapt, a 1 us target. */
	memset(&nscc_small, 0, sizeof(nscc_small));
	hs_cc_nscc.defaults(&nscc_small);
	nscc_small.window_pkts = 1;
	nscc_small.quick_adapt = false;
	nscc_small.target_delay_ns = 1000;
	suite_add_tcase(s, cc_conformance_tcase(&hs_cc_nscc, &nscc_small));
	return t_run_suite(s);
}
