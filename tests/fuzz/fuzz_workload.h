/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What fuzz_chakra and fuzz_jobs hold of a workload that built: run with
 * every flow taking a few ns (hs_wl_ideal()), every node of every
 * iteration ends (the engine refuses ranks that wait on each other in a
 * circle), every flow is released and goes between two distinct hosts
 * of the workload with some bytes, and the results hold: no rank's wait
 * exceeds its iteration, no iteration time without its end.  abort()s
 * otherwise, for libFuzzer.
 */
#ifndef OFAN_FUZZ_WORKLOAD_H
#define OFAN_FUZZ_WORKLOAD_H

#include <stdint.h>
#include <stdlib.h>

#include "hs_traffic.h"
#include "hs_workload.h"

static inline void
fuzz_run(struct hs_workload *w, const struct hs_traffic *t)
{
	uint64_t *send = calloc(t->nb_flows + 1, sizeof(uint64_t));
	uint64_t *recv = calloc(t->nb_flows + 1, sizeof(uint64_t));
	uint64_t *rel = calloc(t->nb_flows + 1, sizeof(uint64_t));
	uint64_t *start = calloc(w->nb_nodes + 1, sizeof(uint64_t));
	uint64_t *end = calloc(w->nb_nodes + 1, sizeof(uint64_t));
	struct hs_wl_results res;
	uint32_t i;

	if (!send || !recv || !rel || !start || !end)
		abort();
	for (i = 0; i < t->nb_flows; i++) {
		const struct hs_flow_spec *f = &t->flows[i];

		if (f->src >= t->nb_ranks || f->dst >= t->nb_ranks ||
		    f->src == f->dst || f->size == 0)
			abort();
		recv[i] = 10 + f->size % 7;
		send[i] = recv[i] + 5;
	}
	if (hs_wl_ideal(w, send, recv, start, end, rel) != 0)
		abort();
	for (i = 0; i < w->nb_nodes; i++)
		if (end[i] == UINT64_MAX || start[i] > end[i])
			abort();
	for (i = 0; i < t->nb_flows; i++)
		if (rel[i] == UINT64_MAX)
			abort();
	if (hs_wl_results(w, start, end, start, end, &res) != 0)
		abort();
	for (i = 0; i < res.nb_ranks; i++) {
		const struct hs_wl_rank_result *r = &res.ranks[i];
		uint32_t k;

		for (k = 0; k < res.nb_iters; k++)
			if (res.iters[k].job == r->job &&
			    res.iters[k].iteration == r->iteration &&
			    r->wait_ns > res.iters[k].iter_ns)
				abort();
	}
	for (i = 0; i < res.nb_iters; i++)
		if (res.iters[i].end_ns == 0 && res.iters[i].iter_ns != 0)
			abort();
	hs_wl_results_free(&res);
	free(send);
	free(recv);
	free(rel);
	free(start);
	free(end);
}

#endif /* OFAN_FUZZ_WORKLOAD_H */
