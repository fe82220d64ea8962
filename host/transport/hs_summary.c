/* SPDX-License-Identifier: BSD-3-Clause */
/* The flow summary (hs_summary.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_host_settings.h"
#include "hs_summary.h"
#include "hs_traffic.h"
#include "ofan_clock.h"
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

/*
 * The longest any source's pacer needs for the completed flows of it
 * that have a pacer_ns (hs_flow_times): its last packet leaves at least
 * their pacer_ns after the source's first start, one of their last
 * frames after all the others' (or a resend, later still), and that
 * frame's flow needs at least the rest of its ideal.  0 when no flow
 * counts; -ENOMEM.
 */
static int
hs_pacer_floor(const struct hs_flow_times *flows, uint32_t n,
	       uint64_t *floor_ns)
{
	uint64_t *lead, *tail;
	uint32_t i, nb_src = 0;

	*floor_ns = 0;
	for (i = 0; i < n; i++)
		if (flows[i].pacer_ns != 0 && flows[i].done_ns != 0 &&
		    flows[i].src >= nb_src)
			nb_src = flows[i].src + 1;
	if (nb_src == 0)
		return 0;
	lead = calloc(nb_src, sizeof(*lead));
	tail = malloc(nb_src * sizeof(*tail));
	if (lead == NULL || tail == NULL) {
		free(lead);
		free(tail);
		return -ENOMEM;
	}
	for (i = 0; i < nb_src; i++)
		tail[i] = UINT64_MAX;
	for (i = 0; i < n; i++) {
		const struct hs_flow_times *f = &flows[i];
		uint64_t rest;

		if (f->pacer_ns == 0 || f->done_ns == 0)
			continue;
		rest = f->ideal_ns > f->pacer_ns ? f->ideal_ns - f->pacer_ns : 0;
		lead[f->src] += f->pacer_ns;
		if (rest < tail[f->src])
			tail[f->src] = rest;
	}
	for (i = 0; i < nb_src; i++)
		if (tail[i] != UINT64_MAX && lead[i] + tail[i] > *floor_ns)
			*floor_ns = lead[i] + tail[i];
	free(lead);
	free(tail);
	return 0;
}

int
hs_flow_summarise(const struct hs_flow_times *flows, uint32_t n,
		  double *slowdown, struct hs_flow_summary *sum)
{
	double *slow = malloc((n + 1) * sizeof(*slow));
	uint64_t first = UINT64_MAX, last = 0, fct_sum = 0;
	uint64_t first_ideal = UINT64_MAX, ideal_last = 0, floor_ns;
	uint32_t i, nb = 0;

	memset(sum, 0, sizeof(*sum));
	if (slow == NULL || hs_pacer_floor(flows, n, &floor_ns) != 0) {
		free(slow);
		return -ENOMEM;
	}
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
	if (floor_ns > sum->collective_ideal_ns)
		sum->collective_ideal_ns = floor_ns;
	free(slow);
	return 0;
}

/* ---- the ideal time model ---- */

/* The pacing slot of a data frame of frame bytes (hs_pace_slot()). */
static uint64_t
hs_frame_slot(const struct hs_host_settings *c, uint64_t frame)
{
	return hs_pace_slot(c, (uint32_t)(frame < 60 ? 60 : frame) +
			    OFAN_WIRE_OVERHEAD);
}

uint32_t
hs_flow_last_frame_size(const struct hs_host_settings *c, uint64_t size)
{
	uint64_t last = size % c->mss;
	uint64_t frame = last == 0 ? OFAN_ETH_HDR_SIZE + (uint64_t)c->mtu :
		OFAN_DATA_HDRS_SIZE + last;

	if (size == 0)
		return 0;
	return (uint32_t)(frame < 60 ? 60 : frame);
}

/*
 * Bytes f paces: every frame with headers and overhead on the wire, or
 * the pacing slot pace_bytes gives it.
 */
uint64_t
hs_flow_wire_bytes(const struct hs_host_settings *c, uint64_t size)
{
	uint64_t nb_full = size / c->mss, last = size % c->mss;
	uint64_t bytes = nb_full *
		hs_frame_slot(c, OFAN_ETH_HDR_SIZE + (uint64_t)c->mtu);

	if (last != 0)
		bytes += hs_frame_slot(c, OFAN_DATA_HDRS_SIZE + last);
	return bytes;
}

/*
 * ns to pace bytes at the fastest rate flow f's pacer can reach: its
 * share of the host's paced rate with a pacer per flow, all of it with
 * one pacer per host (hs_summary.h).
 */
static uint64_t
hs_paced_ns(const struct hs_host_settings *c, const uint32_t *concurrency,
	    uint32_t f, uint64_t bytes)
{
	uint32_t share = c->pacing == HS_PACING_FLOW && concurrency != NULL ?
		concurrency[f] : 1;
	double rate = (double)c->rate_bps * c->rate_coef / (share ? share : 1);

	return (uint64_t)((double)bytes * 8e9 / rate);
}

uint64_t
hs_flow_lead_ns(const struct hs_host_settings *c, const struct hs_traffic *t,
		uint32_t f, const uint32_t *concurrency)
{
	uint64_t size = t->flows[f].size;
	uint32_t last = hs_flow_last_frame_size(c, size);

	if (size == 0)
		return 0;
	return hs_paced_ns(c, concurrency, f, hs_flow_wire_bytes(c, size) -
			   hs_frame_slot(c, last));
}

uint64_t
hs_first_slot_late_ns(const struct hs_host_settings *c, const struct hs_traffic *t,
		      const uint32_t *concurrency)
{
	/* The pacer's rate and gap as hs_host.c and hs_flow_gap() have them. */
	uint64_t rate = (uint64_t)((double)c->rate_bps * c->rate_coef);
	uint64_t slot = hs_frame_slot(c, OFAN_ETH_HDR_SIZE + (uint64_t)c->mtu);
	uint32_t f, conc = 1;

	if (c->pacing != HS_PACING_FLOW || rate == 0)
		return 0;
	for (f = 0; concurrency != NULL && f < t->nb_flows; f++)
		if (concurrency[f] > conc)
			conc = concurrency[f];
	return conc * ofan_tx_time_ns(slot, rate);
}

uint64_t
hs_flow_ideal_ns(const struct hs_host_settings *c, const struct hs_traffic *t,
		 uint32_t f, const uint32_t *concurrency, uint64_t path_rtt_ns)
{
	return hs_flow_lead_ns(c, t, f, concurrency) + path_rtt_ns;
}
