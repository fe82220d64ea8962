/* SPDX-License-Identifier: BSD-3-Clause */
/* The flow summary (hs_summary.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_config.h"
#include "hs_summary.h"
#include "ofan_wire.h"

static int
hs_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
hs_percentile(const double *sorted, uint32_t n, double p)
{
	double rank = ceil(p / 100.0 * n);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[(uint32_t)rank - 1];
}

int
hs_flow_summarise(const struct hs_flow_times *flows, uint32_t n,
		  double *slowdown, struct hs_flow_summary *sum)
{
	double *slow = malloc((n + 1) * sizeof(*slow));
	uint64_t first = UINT64_MAX, last = 0, fct_sum = 0;
	uint64_t first_ideal = UINT64_MAX, ideal_last = 0;
	uint32_t i, nb = 0;

	memset(sum, 0, sizeof(*sum));
	if (slow == NULL)
		return -ENOMEM;
	sum->nb_flows = n;
	for (i = 0; i < n; i++) {
		const struct hs_flow_times *f = &flows[i];
		uint64_t fct;
		double sd;

		if (f->ideal_begin_ns != UINT64_MAX) {
			if (f->ideal_begin_ns < first_ideal)
				first_ideal = f->ideal_begin_ns;
			if (f->ideal_begin_ns + f->ideal_ns > ideal_last)
				ideal_last = f->ideal_begin_ns + f->ideal_ns;
		}
		if (slowdown != NULL)
			slowdown[i] = 0;
		if (f->done_ns == 0)
			continue;
		fct = f->done_ns - f->start_ns;
		sd = (double)fct / (double)f->ideal_ns;
		if (slowdown != NULL)
			slowdown[i] = sd;
		slow[nb++] = sd;
		fct_sum += fct;
		if (f->start_ns < first)
			first = f->start_ns;
		if (f->done_ns > last)
			last = f->done_ns;
	}
	sum->nb_completed = nb;
	if (nb > 0) {
		qsort(slow, nb, sizeof(*slow), hs_cmp_double);
		sum->max_slowdown = slow[nb - 1];
		sum->p99_slowdown = hs_percentile(slow, nb, 99);
		sum->mean_fct_ns = (double)fct_sum / nb;
		sum->collective_ns = last - first;
	}
	sum->collective_ideal_ns = first_ideal == UINT64_MAX ? 0 :
		ideal_last - first_ideal;
	free(slow);
	return 0;
}

/* ---- the ideal time model ---- */

/* The pacing slot of a data frame of frame bytes (hs_pace_slot()). */
static uint64_t
hs_frame_slot(const struct hs_config *c, uint64_t frame)
{
	return hs_pace_slot(c, (uint32_t)(frame < 60 ? 60 : frame) +
			    OFAN_WIRE_OVERHEAD);
}

/*
 * Bytes f paces: every frame with headers and overhead on the wire, or
 * the pacing slot pace_bytes gives it.
 */
uint64_t
hs_flow_wire_bytes(const struct hs_config *c, uint64_t size)
{
	uint64_t nb_full = size / c->mss, last = size % c->mss;
	uint64_t bytes = nb_full *
		hs_frame_slot(c, OFAN_ETH_HDR_SIZE + (uint64_t)c->mtu);

	if (last != 0)
		bytes += hs_frame_slot(c, OFAN_DATA_HDRS_SIZE + last);
	return bytes;
}

/* The pacing slot of f's last frame (0 for an empty flow). */
static uint64_t
hs_flow_last_frame_bytes(const struct hs_config *c, uint64_t size)
{
	uint64_t last = size % c->mss;

	if (size == 0)
		return 0;
	return hs_frame_slot(c, last == 0 ?
			     OFAN_ETH_HDR_SIZE + (uint64_t)c->mtu :
			     OFAN_DATA_HDRS_SIZE + last);
}

/* ns to send bytes at flow f's share of the paced rate. */
static uint64_t
hs_paced_ns(const struct hs_config *c, const uint32_t *concurrency,
	    uint32_t f, uint64_t bytes)
{
	double rate = (double)c->rate_bps * c->rate_coef /
		(concurrency[f] ? concurrency[f] : 1);

	return (uint64_t)((double)bytes * 8e9 / rate);
}

uint64_t
hs_flow_paced_ns(const struct hs_config *c, const struct hs_traffic *t,
		 uint32_t f, const uint32_t *concurrency)
{
	return hs_paced_ns(c, concurrency, f,
			   hs_flow_wire_bytes(c, t->flows[f].size));
}

uint64_t
hs_flow_ideal_ns(const struct hs_config *c, const struct hs_traffic *t,
		 uint32_t f, const uint32_t *concurrency, uint64_t path_rtt_ns)
{
	uint64_t size = t->flows[f].size;

	return hs_paced_ns(c, concurrency, f, hs_flow_wire_bytes(c, size) -
			   hs_flow_last_frame_bytes(c, size)) + path_rtt_ns;
}
