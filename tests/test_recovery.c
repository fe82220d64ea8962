/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every registered loss-recovery model keeps the contract of
 * host/transport/hs_transport.h (tests/lib/recovery_conformance.h): with
 * its defaults, and with its settings at their edges.  How each model
 * recovers is its own test's business (test_sack, test_cumack,
 * test_erasure); this is what the engine and the config rely on from any.
 */
#include <check.h>
#include <stdlib.h>

#include "hs_cumack.h"
#include "hs_erasure.h"
#include "hs_sack.h"
#include "hs_transport.h"
#include "recovery_conformance.h"
#include "unit_suite.h"

/* Model name's block in t, to set by hand. */
static void *
t_set(struct hs_recovery_settings_table *t, const char *name)
{
	void *s = (void *)hs_recovery_settings_of(t, hs_recovery_find(name));

	if (s == NULL)
		abort();
	return s;
}

int
main(void)
{
	static struct hs_recovery_settings_table set;
	Suite *s = suite_create("recovery");
	struct hs_ca_settings *tcp, *gbn;
	unsigned int i;

	/* Every model, as the loader gives it: it recovers. */
	for (i = 0; hs_recovery_registry[i] != NULL; i++)
		suite_add_tcase(s, recovery_conformance_tcase(
			hs_recovery_registry[i], NULL, true));
	/*
	 * Their settings at the edges (a first RTO shorter than the loop's
	 * round trip would resend what is not lost: 30 us, not 1 us).
	 */
	hs_recovery_settings_defaults(&set);
	tcp = t_set(&set, "tcp");
	tcp->dupacks = 1;
	tcp->sack_limit = 63;
	tcp->initial_rto_ns = 30000;
	suite_add_tcase(s, recovery_conformance_tcase(hs_recovery_find("tcp"),
						      tcp, true));
	tcp->fast_retransmit = false;
	tcp->initial_rto_ns = 60000000000ull;
	suite_add_tcase(s, recovery_conformance_tcase(hs_recovery_find("tcp"),
						      tcp, true));
	gbn = t_set(&set, "gbn");
	gbn->initial_rto_ns = 30000;
	suite_add_tcase(s, recovery_conformance_tcase(hs_recovery_find("gbn"),
						      gbn, true));
	((struct hs_sack_settings *)t_set(&set, "sack"))->acks =
		HS_SACK_ACKS_UEC;
	suite_add_tcase(s, recovery_conformance_tcase(hs_recovery_find("sack"),
						      t_set(&set, "sack"), true));
	((struct hs_erasure_settings *)t_set(&set, "erasure"))->k = 0;
	suite_add_tcase(s, recovery_conformance_tcase(
		hs_recovery_find("erasure"), t_set(&set, "erasure"), true));
	return t_run_suite(s);
}
