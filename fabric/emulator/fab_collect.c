/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collecting a fabric run's results (fab_sim_collect(), fab_sim.h): the
 * queue windows in order, the engines' counters and drops by reason,
 * every MPI rank's part merged on rank 0, and per flow its completion
 * against its ideal (fab_oneway_ns, fab.h), then the run's summary and
 * conservation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "fab_sim.h"
#include "hs_host.h"
#include "hs_summary.h"
#include "ofan_clock.h"
#include "ofan_wire.h"
#include "sw_engine.h"

/* ---- results ---- */

static int
fab_cmp_qwin(const void *a, const void *b)
{
	const struct fab_qwin *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return (int)x->end - (int)y->end;
}

/* Every thread's queue windows, in one canonical order. */
static void
fab_collect_qwin(struct fab_sim *s)
{
	struct fab_run *r = s->r;
	uint32_t n = 0, i;

	for (i = 0; i < s->parts.nb_thr; i++)
		n += s->thr[i].nb_qwin;
	r->qwin = malloc((n + 1) * sizeof(*r->qwin));
	if (r->qwin == NULL)
		return;
	for (i = 0; i < s->parts.nb_thr; i++) {
		/* A thread that saw no queue has no array (memcpy from NULL
		 * is undefined even for 0 bytes). */
		if (s->thr[i].nb_qwin == 0)
			continue;
		memcpy(&r->qwin[r->nb_qwin], s->thr[i].qwin,
		       s->thr[i].nb_qwin * sizeof(*r->qwin));
		r->nb_qwin += s->thr[i].nb_qwin;
	}
	r->qwin_cap = n + 1;
	qsort(r->qwin, r->nb_qwin, sizeof(*r->qwin), fab_cmp_qwin);
}

/* hs_host_policy_dump()'s emit: sum a counter into the run's. */
static void
fab_policy_add(void *arg, const char *key, uint64_t value)
{
	struct fab_run *r = arg;
	unsigned int i;

	for (i = 0; i < r->nb_policy; i++)
		if (strcmp(r->policy[i].key, key) == 0) {
			r->policy[i].value += value;
			return;
		}
	if (r->nb_policy < FAB_MAX_POLICY_COUNTERS) {
		snprintf(r->policy[i].key, sizeof(r->policy[i].key), "%s", key);
		r->policy[r->nb_policy++].value = value;
	}
}

/* This rank's hosts', switches' and threads' counters, into s->r. */
static int
fab_collect_counters(struct fab_sim *s)
{
	struct fab_run *r = s->r;
	struct sw_totals *tot = malloc(sizeof(*tot));
	uint32_t f, i;
	uint16_t port;

	if (tot == NULL)
		return -ENOMEM;
	for (i = 0; i < s->t->nb_hosts; i++) {
		const struct hs_host_stats *st;

		if (s->net.hosts[i].h == NULL)
			continue;	/* another rank's */
		st = hs_host_stats(s->net.hosts[i].h);
#define FAB_HOST_SUM(field, what) r->hosts.field += st->field;
		HS_HOST_COUNTERS(FAB_HOST_SUM)
#undef FAB_HOST_SUM
		hs_host_policy_dump(s->net.hosts[i].h, fab_policy_add, r);
	}
	for (i = 0; i < s->t->nb_switches; i++) {
		if (s->net.sw[i].eng == NULL)
			continue;
		sw_engine_totals(s->net.sw[i].eng, tot);
		for (f = 0; f < OFAN_DROP_MAX; f++)
			r->drops[f] += tot->drops[f];
		for (port = 0; port < s->net.sw[i].nb_ports; port++) {
			const struct fab_dir *d = &s->net.dirs[s->net.sw[i].dir[port]];
			const struct sw_queue_stats *q = &tot->queue[port];

			r->ecn_marks += q->ecn_marked;
			r->trimmed += q->trimmed_pkts;
			r->ctrl_drops += q->ctrl_drop_pkts;
			r->headers_returned += tot->port[port].headers_returned;
			r->pfc_pauses += tot->port[port].pfc_pauses_sent;
			r->pfc_resumes += tot->port[port].pfc_resumes_sent;
			r->pfc_paused_ns += tot->port[port].pfc_paused_ns;
			/* PFC frames start and end at switches: for the
			 * conservation, injected when sent, delivered when
			 * a switch acted on one (hosts' count as theirs). */
			r->injected += tot->port[port].pfc_pauses_sent +
				tot->port[port].pfc_resumes_sent;
			r->delivered += tot->port[port].pfc_pauses_received;
			r->max_queue[d->layer] = RTE_MAX(r->max_queue[d->layer],
							 q->max_pkts);
			r->max_queue_all = RTE_MAX(r->max_queue_all,
						   q->max_pkts);
			r->max_queue_bytes[d->layer] = RTE_MAX(
				r->max_queue_bytes[d->layer], q->max_bytes);
			r->max_queue_bytes_all = RTE_MAX(
				r->max_queue_bytes_all, q->max_bytes);
		}
	}
	for (i = 0; i < s->parts.nb_thr; i++) {
		r->drops[OFAN_DROP_SHUTDOWN] += s->thr[i].lost;
		r->drops[OFAN_DROP_INJECTED] += s->thr[i].dropped_on_purpose;
		r->drops[OFAN_DROP_BLACKHOLE] += s->thr[i].blackholed;
	}
	free(tot);
	return 0;
}

/* Add another rank's counters (fab_collect_counters) to r's. */
static void
fab_run_merge(struct fab_run *r, const struct fab_run *o)
{
	uint32_t i, l;

#define FAB_RUN_ADD(field, what) r->field += o->field;
	FAB_RUN_COUNTERS(FAB_RUN_ADD)
#undef FAB_RUN_ADD
#define FAB_HOST_ADD(field, what) r->hosts.field += o->hosts.field;
	HS_HOST_COUNTERS(FAB_HOST_ADD)
#undef FAB_HOST_ADD
	for (i = 0; i < OFAN_DROP_MAX; i++)
		r->drops[i] += o->drops[i];
	for (l = 0; l < FAB_L_NB; l++) {
		r->max_queue[l] = RTE_MAX(r->max_queue[l], o->max_queue[l]);
		r->max_queue_bytes[l] = RTE_MAX(r->max_queue_bytes[l],
						o->max_queue_bytes[l]);
	}
	r->max_queue_all = RTE_MAX(r->max_queue_all, o->max_queue_all);
	r->max_queue_bytes_all = RTE_MAX(r->max_queue_bytes_all,
					 o->max_queue_bytes_all);
	/* In the order keys first appear, rank after rank (host order). */
	for (i = 0; i < o->nb_policy; i++)
		fab_policy_add(r, o->policy[i].key, o->policy[i].value);
	r->events += o->events;
	r->hops += o->hops;
	r->injected += o->injected;
	r->delivered += o->delivered;
	r->peak_rss_mb = RTE_MAX(r->peak_rss_mb, o->peak_rss_mb);
}

/*
 * --spread parts: rank 0 gathers every rank's counters, flow results and
 * queue windows and merges them into what one process would have.
 */
static int
fab_collect_merge(struct fab_sim *s, struct hs_flow_result *res)
{
	const struct fab_mpi *j = s->mpi.job;
	struct fab_run *r = s->r;
	uint32_t n = s->load.traffic.nb_flows, f, nq;
	struct fab_xbuf mine = { 0 }, *all;
	int k, rc = 0;

	all = calloc((size_t)j->size, sizeof(*all));
	if (all == NULL)
		return -ENOMEM;
	if (fab_xbuf_put(&mine, r, sizeof(*r)) != 0 ||
	    fab_xbuf_put(&mine, res, n * sizeof(*res)) != 0 ||
	    fab_xbuf_put(&mine, r->qwin, r->nb_qwin * sizeof(*r->qwin)) != 0)
		rc = -ENOMEM;	/* still take part: the others wait */
	fab_mpi_gather(j, mine.b, mine.len, all);
	for (k = 1; j->rank == 0 && k < j->size; k++) {
		const uint8_t *b = all[k].b;
		struct fab_run o;
		struct fab_qwin *q;

		if (all[k].len < sizeof(o) + n * sizeof(*res)) {
			rc = -EIO;
			continue;
		}
		memcpy(&o, b, sizeof(o));
		b += sizeof(o);
		fab_run_merge(r, &o);
		for (f = 0; f < n; f++) {
			struct hs_flow_result x;

			memcpy(&x, b + f * sizeof(x), sizeof(x));
			hs_flow_result_merge(&res[f], &x);
		}
		b += n * sizeof(*res);
		nq = o.nb_qwin;
		q = realloc(r->qwin, (r->nb_qwin + nq + 1) * sizeof(*q));
		if (q == NULL) {
			rc = -ENOMEM;
			continue;
		}
		memcpy(&q[r->nb_qwin], b, nq * sizeof(*q));
		r->qwin = q;
		r->nb_qwin += nq;
		r->qwin_cap = r->nb_qwin + 1;
	}
	if (j->rank == 0 && r->qwin != NULL)
		qsort(r->qwin, r->nb_qwin, sizeof(*r->qwin), fab_cmp_qwin);
	for (k = 0; k < j->size; k++)
		fab_xbuf_free(&all[k]);
	free(all);
	fab_xbuf_free(&mine);
	return rc;
}

/* Each job's means over its iterations that ended. */
static void
fab_job_sums(const struct hs_workload *w, const struct hs_wl_results *res,
	     struct fab_run *r)
{
	uint32_t i, j;

	double ended_ideal[HS_MAX_JOBS] = { 0 };

	r->nb_jobs = RTE_MIN(w->nb_jobs, (uint32_t)HS_MAX_JOBS);
	memset(r->job_sum, 0, sizeof(r->job_sum));
	for (i = 0; i < res->nb_iters; i++) {
		const struct hs_wl_iter_result *it = &res->iters[i];
		struct fab_job_sum *js;

		if (it->job >= r->nb_jobs)
			continue;
		js = &r->job_sum[it->job];
		js->iterations++;
		js->ideal_us += (double)it->ideal_ns / 1e3;
		if (it->iter_ns == 0)
			continue;
		js->ended++;
		js->iter_us += (double)it->iter_ns / 1e3;
		js->wait_max_us += (double)it->wait_max_ns / 1e3;
		ended_ideal[it->job] += (double)it->ideal_ns / 1e3;
	}
	for (j = 0; j < r->nb_jobs; j++) {
		struct fab_job_sum *js = &r->job_sum[j];

		if (js->iterations > 0)
			js->ideal_us /= js->iterations;
		if (js->ended == 0)
			continue;
		if (ended_ideal[j] > 0)
			js->slowdown = js->iter_us / ended_ideal[j];
		js->iter_us /= js->ended;
		js->wait_max_us /= js->ended;
	}
}

/*
 * Training jobs: the same workload with every flow in its ideal time
 * (send_ns, recv_ns: acknowledged, received) is the reference; its
 * releases are the flows' ideal begins.  The results go to r->jobs.
 */
static int
fab_collect_jobs(struct fab_sim *s, const uint64_t *send_ns,
		 const uint64_t *recv_ns, uint64_t *begin)
{
	const struct hs_workload *w = s->load.workload;
	uint64_t *start = malloc(sizeof(uint64_t) * (w->nb_nodes + 1));
	uint64_t *end = malloc(sizeof(uint64_t) * (w->nb_nodes + 1));
	int rc = start == NULL || end == NULL ? -ENOMEM : 0;

	if (rc == 0)
		rc = hs_wl_ideal(w, send_ns, recv_ns, start, end, begin);
	if (rc == 0)
		rc = hs_wl_results(w, s->load.wl.start_ns, s->load.wl.end_ns, start, end,
				   &s->r->jobs);
	if (rc == 0)
		fab_job_sums(w, &s->r->jobs, s->r);
	free(start);
	free(end);
	return rc;
}

/* Per flow: completion against its ideal, and the run's summary. */
static int
fab_collect_flows(struct fab_sim *s, const struct hs_flow_result *res_all)
{
	const struct fab_params *p = s->p;
	const struct hs_traffic *tr = &s->load.traffic;
	struct fab_run *r = s->r;
	uint32_t n = tr->nb_flows;
	uint64_t *send_ns = calloc(n + 1, sizeof(*send_ns));
	uint64_t *recv_ns = calloc(n + 1, sizeof(*recv_ns));
	uint64_t *lead_ns = calloc(n + 1, sizeof(*lead_ns));
	uint64_t *begin = calloc(n + 1, sizeof(*begin));
	struct hs_flow_times *times = calloc(n + 1, sizeof(*times));
	double *slow = calloc(n + 1, sizeof(*slow));
	struct hs_flow_summary sum;
	uint32_t f;
	int rc = 0;

	r->nb_flows = n;
	r->flows = calloc(n + 1, sizeof(*r->flows));
	if (send_ns == NULL || recv_ns == NULL || lead_ns == NULL ||
	    begin == NULL || times == NULL || slow == NULL ||
	    r->flows == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/*
	 * Ideal (hs_summary.h): the gaps before its last frame at the fastest
	 * its pacer sends, that frame's way to the receiver (its
	 * serialisation at the NIC, store and forward at each switch) and an
	 * ACK's way back; a flow that waits begins in the ideal schedule when
	 * its input has arrived or its trigger fired there, the others no
	 * earlier than the first flow can have started
	 * (hs_traffic_ideal_begin).
	 */
	for (f = 0; f < n; f++) {
		const struct hs_flow_spec *sp = &tr->flows[f];
		uint32_t hops = s->t->hops[sp->src * s->t->nb_hosts + sp->dst];

		lead_ns[f] = hs_flow_lead_ns(&s->load.hcfg.set, tr, f, tr->concurrency);
		recv_ns[f] = lead_ns[f] + fab_frame_path_ns(p, hops,
			hs_flow_last_frame_size(&s->load.hcfg.set, sp->size));
		send_ns[f] = recv_ns[f] + fab_ack_back_ns(p, hops);
	}
	rc = hs_traffic_ideal_begin(tr, send_ns, recv_ns,
		hs_first_slot_late_ns(&s->load.hcfg.set, tr, tr->concurrency), begin);
	if (rc == 0 && s->load.has_wl)
		rc = fab_collect_jobs(s, send_ns, recv_ns, begin);
	if (rc != 0)
		goto out;
	for (f = 0; f < n; f++) {
		const struct hs_flow_spec *sp = &tr->flows[f];
		const struct hs_flow_result *res = &res_all[f];
		struct fab_flow_result *fr = &r->flows[f];

		fr->ideal_ns = send_ns[f];
		fr->src = sp->src;
		fr->dst = sp->dst;
		fr->size = sp->size;
		fr->m = *res;
		times[f].start_ns = res->start_ns;
		times[f].done_ns = res->sent_here ? res->done_ns : 0;
		times[f].ideal_ns = send_ns[f];
		times[f].ideal_begin_ns = begin[f];
		times[f].src = sp->src;
		if (s->load.hcfg.set.pacing == HS_PACING_HOST)
			times[f].pacer_ns = lead_ns[f];
		if (times[f].done_ns != 0)
			fr->fct_ns = res->done_ns - res->start_ns;
	}
	rc = hs_flow_summarise(times, n, slow, &sum);
	if (rc != 0)
		goto out;
	for (f = 0; f < n; f++)
		r->flows[f].slowdown = slow[f];
	r->nb_completed = sum.nb_completed;
	r->max_slowdown = sum.max_slowdown;
	r->p99_slowdown = sum.p99_slowdown;
	r->mean_fct_ns = sum.mean_fct_ns;
	r->collective_ns = sum.collective_ns;
	r->collective_ideal_ns = sum.collective_ideal_ns;
	r->full_frame = fab_full_frame_queue_bytes(p);
	for (f = 0; f < OFAN_DROP_MAX; f++)
		r->drops_total += r->drops[f];
	r->dropped = r->drops_total;
	r->one_part = s->parts.one_part;
out:
	free(send_ns);
	free(recv_ns);
	free(lead_ns);
	free(begin);
	free(times);
	free(slow);
	return rc;
}

int
fab_sim_collect(struct fab_sim *s)
{
	uint32_t n = s->load.traffic.nb_flows, f, i;
	struct hs_flow_result *res = calloc(n + 1, sizeof(*res));
	int rc = res == NULL ? -ENOMEM : 0;

	/* What this rank's hosts saw of each flow (both ends, if here). */
	for (f = 0; res != NULL && f < n; f++) {
		const struct hs_flow_spec *sp = &s->load.traffic.flows[f];
		uint32_t end[2] = { sp->src, sp->dst };

		for (i = 0; i < 2; i++)
			if (s->net.hosts[end[i]].h != NULL)
				hs_host_flow_result(s->net.hosts[end[i]].h, f,
						    &res[f]);
	}
	fab_collect_qwin(s);
	if (rc == 0)
		rc = fab_collect_counters(s);
	if (s->mpi.job != NULL && fab_collect_merge(s, res) != 0)
		rc = -ENOMEM;
	if (rc == 0 && (s->mpi.job == NULL || s->mpi.job->rank == 0))
		rc = fab_collect_flows(s, res);
	free(res);
	return rc;
}
