/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the htsim connection-matrix reader
 * (hs_traffic_parse_cm(), workload/hs_cm.c and workload/hs_cm_file.c), from memory.
 *
 * A rejected input must say where: its message starts with the name and a
 * line ("fuzz.cm:N: ") or is about the whole file ("fuzz.cm: "), and
 * leaves the traffic empty.  An accepted one must hold what every user of
 * the traffic relies on: ranks and sizes in range, every dependency a
 * flow into this flow's source, every trigger reference an index, the
 * ideal schedule computable, and every trigger activated as many times as
 * flows report to it without handing out a flow id out of range.  Then
 * everything is freed (ASan checks the leaks).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cm.h"
#include "hs_traffic.h"

static void
fuzz_check_traffic(const struct hs_traffic *t)
{
	uint64_t *send = calloc(t->nb_flows + 1, sizeof(uint64_t));
	uint64_t *recv = calloc(t->nb_flows + 1, sizeof(uint64_t));
	uint64_t *begin = calloc(t->nb_flows + 1, sizeof(uint64_t));
	struct hs_trigger_state st;
	const uint32_t *go;
	uint32_t i, k, n;

	if (send == NULL || recv == NULL || begin == NULL)
		abort();
	for (i = 0; i < t->nb_flows; i++) {
		const struct hs_flow_spec *f = &t->flows[i];
		uint32_t tg[3] = { f->trigger, f->send_done_trigger,
				   f->recv_done_trigger };

		if (f->id != i || f->src >= t->nb_ranks ||
		    f->dst >= t->nb_ranks || f->size == 0)
			abort();
		if (f->dep != HS_NO_DEP &&
		    (f->dep >= t->nb_flows || t->flows[f->dep].dst != f->src))
			abort();
		for (k = 0; k < 3; k++)
			if (tg[k] != HS_NO_TRIGGER && tg[k] >= t->nb_triggers)
				abort();
		send[i] = recv[i] = 1000 + f->size % 1000;
	}
	if (hs_traffic_ideal_begin(t, send, recv, 0, begin) != 0)
		abort();
	if (hs_trigger_state_init(&st, t) != 0)
		abort();
	/* Every report a flow end makes, in flow order. */
	for (i = 0; i < t->nb_flows; i++) {
		const struct hs_flow_spec *f = &t->flows[i];
		uint32_t tg[2] = { f->send_done_trigger, f->recv_done_trigger };

		for (k = 0; k < 2; k++) {
			if (tg[k] == HS_NO_TRIGGER)
				continue;
			n = hs_trigger_activate(t, &st, tg[k], &go);
			while (n-- > 0)
				if (go[n] >= t->nb_flows)
					abort();
		}
	}
	hs_trigger_state_fini(&st);
	free(send);
	free(recv);
	free(begin);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char name[] = "fuzz.cm";
	struct hs_traffic t;
	char err[512] = "";
	int rc;

	rc = hs_traffic_parse_cm(name, (const char *)data, size, 0, &t, err,
				 sizeof(err));
	if (rc == 0) {
		fuzz_check_traffic(&t);
		hs_traffic_free(&t);
		return 0;
	}
	/* Rejected: located, and nothing left behind. */
	if (strncmp(err, name, sizeof(name) - 1) != 0 ||
	    (err[sizeof(name) - 1] != ':') || t.flows != NULL ||
	    t.nb_flows != 0)
		abort();
	hs_traffic_free(&t);
	return 0;
}
