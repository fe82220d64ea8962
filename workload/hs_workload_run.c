/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Training jobs: running a workload against a driver (hs_workload.h), the
 * ideal run (every flow in its ideal time), and the job-level results.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_workload.h"

enum { WL_WAITING = 0, WL_READY, WL_STARTED, WL_ENDED };

/* A flow waits for its sender's node, and for what it forwards. */
#define WL_GATE_NODE 1

void
hs_wl_run_fini(struct hs_wl_run *r)
{
	free(r->pending);
	free(r->left);
	free(r->state);
	free(r->start_ns);
	free(r->end_ns);
	free(r->gate);
	free(r->cq);
	free(r->cq_first);
	free(r->cq_head);
	free(r->cq_tail);
	free(r->computing);
	free(r->host_started);
	free(r->nodes_left);
	free(r->job_of_host);
	memset(r, 0, sizeof(*r));
}

static uint32_t
wl_host(const struct hs_workload *w, uint32_t node)
{
	const struct hs_wl_node *x = &w->nodes[node];

	return w->jobs[x->job].host[x->rank];
}

int
hs_wl_run_init(struct hs_wl_run *r, const struct hs_workload *w,
	       const struct hs_wl_driver *drv)
{
	uint32_t n = w->nb_nodes, h = w->nb_hosts, i, at = 0;

	memset(r, 0, sizeof(*r));
	r->w = w;
	r->drv = *drv;
	r->pending = malloc(sizeof(uint32_t) * (n + 1));
	r->left = calloc(n + 1, sizeof(uint32_t));
	r->state = calloc(n + 1, 1);
	r->start_ns = malloc(sizeof(uint64_t) * (n + 1));
	r->end_ns = malloc(sizeof(uint64_t) * (n + 1));
	r->gate = malloc(w->nb_flows + 1);
	r->cq = malloc(sizeof(uint32_t) * (n + 1));
	r->cq_first = calloc(h + 1, sizeof(uint32_t));
	r->cq_head = calloc(h + 1, sizeof(uint32_t));
	r->cq_tail = calloc(h + 1, sizeof(uint32_t));
	r->computing = malloc(sizeof(uint32_t) * (h + 1));
	r->host_started = calloc(h + 1, 1);
	r->nodes_left = calloc(h + 1, sizeof(uint32_t));
	r->job_of_host = malloc(sizeof(uint32_t) * (h + 1));
	if (r->pending == NULL || r->left == NULL || r->state == NULL ||
	    r->start_ns == NULL || r->end_ns == NULL || r->gate == NULL ||
	    r->cq == NULL || r->cq_first == NULL || r->cq_head == NULL ||
	    r->cq_tail == NULL || r->computing == NULL ||
	    r->host_started == NULL || r->nodes_left == NULL ||
	    r->job_of_host == NULL) {
		hs_wl_run_fini(r);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		r->pending[i] = w->nodes[i].nb_deps;
		r->start_ns[i] = UINT64_MAX;
		r->end_ns[i] = UINT64_MAX;
		r->nodes_left[wl_host(w, i)]++;
	}
	/* Each host's slice of the compute queue: room for all its nodes. */
	for (i = 0; i < h; i++) {
		r->cq_first[i] = at;
		at += r->nodes_left[i];
		r->computing[i] = HS_WL_NONE;
		r->job_of_host[i] = HS_WL_NONE;
	}
	for (i = 0; i < w->nb_jobs; i++) {
		uint32_t k;

		for (k = 0; k < w->jobs[i].nb_ranks; k++)
			r->job_of_host[w->jobs[i].host[k]] = i;
	}
	for (i = 0; i < w->nb_flows; i++) {
		const struct hs_wl_flow *f = &w->flows[i];

		r->left[f->src_node]++;		/* its acknowledgement */
		r->left[f->dst_node]++;		/* its arrival */
		r->gate[i] = WL_GATE_NODE + (f->dep != HS_WL_NONE);
	}
	return 0;
}

static void wl_node_ready(struct hs_wl_run *r, uint32_t n, uint64_t now);

/*
 * The engine's time never goes back: a driver whose callers read their
 * clocks before taking its lock (ofan-host's lcores) may hand in an
 * earlier time than the last one.
 */
static uint64_t
wl_now(struct hs_wl_run *r, uint64_t now)
{
	if (now < r->last_now)
		return r->last_now;
	r->last_now = now;
	return now;
}

static void
wl_node_end(struct hs_wl_run *r, uint32_t n, uint64_t now)
{
	const struct hs_workload *w = r->w;
	const struct hs_wl_node *x = &w->nodes[n];
	uint32_t k;

	r->state[n] = WL_ENDED;
	r->end_ns[n] = now - r->t0;
	r->nodes_left[wl_host(w, n)]--;
	for (k = 0; k < x->nb_kids; k++) {
		uint32_t c = w->kids[x->kid_first + k];

		if (--r->pending[c] == 0)
			wl_node_ready(r, c, now);
	}
}

static void
wl_flow_ungate(struct hs_wl_run *r, uint32_t f, uint64_t now)
{
	if (--r->gate[f] == 0)
		r->drv.release(r->drv.arg, f, now);
}

/* Start a COMP node on its idle host. */
static void
wl_compute(struct hs_wl_run *r, uint32_t host, uint32_t n, uint64_t now)
{
	r->computing[host] = n;
	r->state[n] = WL_STARTED;
	r->start_ns[n] = now - r->t0;
	r->drv.timer(r->drv.arg, host, now + r->w->nodes[n].dur_ns);
}

static void
wl_node_ready(struct hs_wl_run *r, uint32_t n, uint64_t now)
{
	const struct hs_workload *w = r->w;
	const struct hs_wl_node *x = &w->nodes[n];
	uint32_t host = wl_host(w, n), k;

	r->state[n] = WL_READY;
	if (x->kind == HS_WL_COMP) {
		if (r->computing[host] == HS_WL_NONE)
			wl_compute(r, host, n, now);
		else
			r->cq[r->cq_first[host] + r->cq_tail[host]++] = n;
		return;
	}
	r->state[n] = WL_STARTED;
	r->start_ns[n] = now - r->t0;
	for (k = w->out_first[n]; k < w->out_first[n + 1]; k++)
		wl_flow_ungate(r, w->out_flows[k], now);
	if (r->left[n] == 0)
		wl_node_end(r, n, now);
}

/* Host's job rank starts: its nodes without dependencies are ready. */
static void
wl_host_start(struct hs_wl_run *r, uint32_t host, uint64_t now)
{
	const struct hs_workload *w = r->w;
	uint32_t j, i;

	r->host_started[host] = 1;
	for (j = 0; j < w->nb_jobs; j++) {
		const struct hs_wl_job *jb = &w->jobs[j];

		/* Its job only: a host runs one rank. */
		if (r->job_of_host[host] != j)
			continue;
		for (i = jb->node_first; i < jb->node_first + jb->nb_nodes;
		     i++)
			if (r->state[i] == WL_WAITING && r->pending[i] == 0 &&
			    wl_host(w, i) == host)
				wl_node_ready(r, i, now);
	}
}

void
hs_wl_run_start(struct hs_wl_run *r, uint64_t now)
{
	const struct hs_workload *w = r->w;
	uint32_t j, k, i;

	r->t0 = now;
	r->last_now = now;
	for (j = 0; j < w->nb_jobs; j++) {
		const struct hs_wl_job *jb = &w->jobs[j];

		if (jb->start_ns != 0) {
			for (k = 0; k < jb->nb_ranks; k++)
				r->drv.timer(r->drv.arg, jb->host[k],
					     now + jb->start_ns);
			continue;
		}
		for (k = 0; k < jb->nb_ranks; k++)
			r->host_started[jb->host[k]] = 1;
		for (i = jb->node_first; i < jb->node_first + jb->nb_nodes;
		     i++)
			if (r->state[i] == WL_WAITING && r->pending[i] == 0)
				wl_node_ready(r, i, now);
	}
}

void
hs_wl_run_flow_end(struct hs_wl_run *r, uint32_t flow, bool received,
		   uint64_t now)
{
	const struct hs_workload *w = r->w;
	const struct hs_wl_flow *f;
	uint32_t n, k;

	if (flow >= w->nb_flows)
		return;
	now = wl_now(r, now);
	f = &w->flows[flow];
	n = received ? f->dst_node : f->src_node;
	if (received)
		for (k = w->fwd_first[flow]; k < w->fwd_first[flow + 1]; k++)
			wl_flow_ungate(r, w->fwd_flows[k], now);
	if (--r->left[n] == 0 && r->state[n] == WL_STARTED)
		wl_node_end(r, n, now);
}

void
hs_wl_run_timer(struct hs_wl_run *r, uint32_t host, uint64_t now)
{
	uint32_t n;

	if (host >= r->w->nb_hosts)
		return;
	now = wl_now(r, now);
	n = r->computing[host];
	if (!r->host_started[host]) {
		wl_host_start(r, host, now);
		return;
	}
	if (n == HS_WL_NONE)
		return;
	/* The queue's next first, then what this end makes ready. */
	r->computing[host] = HS_WL_NONE;
	if (r->cq_head[host] != r->cq_tail[host])
		wl_compute(r, host,
			   r->cq[r->cq_first[host] + r->cq_head[host]++], now);
	wl_node_end(r, n, now);
}

bool
hs_wl_run_host_done(const struct hs_wl_run *r, uint32_t host)
{
	return host >= r->w->nb_hosts || r->nodes_left[host] == 0;
}

/* ---- the ideal run ---- */

/* An event of the ideal run: (time, kind, index) in that order. */
struct wl_ev {
	uint64_t t;
	uint32_t kind;		/* 0 timer, 1 arrival, 2 acknowledgement */
	uint32_t idx;
};

struct wl_ideal {
	struct wl_ev *h;
	uint32_t nh;
	const uint64_t *send_ns, *recv_ns;
	uint64_t *release;
};

static bool
wl_ev_before(const struct wl_ev *a, const struct wl_ev *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->idx < b->idx;
}

static void
wl_push(struct wl_ideal *q, struct wl_ev e)
{
	uint32_t i = q->nh++;

	while (i > 0 && wl_ev_before(&e, &q->h[(i - 1) / 2])) {
		q->h[i] = q->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->h[i] = e;
}

static struct wl_ev
wl_pop(struct wl_ideal *q)
{
	struct wl_ev top = q->h[0], last = q->h[--q->nh];
	uint32_t i = 0, c;

	while ((c = 2 * i + 1) < q->nh) {
		if (c + 1 < q->nh && wl_ev_before(&q->h[c + 1], &q->h[c]))
			c++;
		if (!wl_ev_before(&q->h[c], &last))
			break;
		q->h[i] = q->h[c];
		i = c;
	}
	if (q->nh > 0)
		q->h[i] = last;
	return top;
}

static void
wl_ideal_release(void *arg, uint32_t flow, uint64_t now)
{
	struct wl_ideal *q = arg;

	q->release[flow] = now;
	wl_push(q, (struct wl_ev){ now + q->recv_ns[flow], 1, flow });
	wl_push(q, (struct wl_ev){ now + q->send_ns[flow], 2, flow });
}

static void
wl_ideal_timer(void *arg, uint32_t host, uint64_t at)
{
	wl_push(arg, (struct wl_ev){ at, 0, host });
}

int
hs_wl_ideal(const struct hs_workload *w, const uint64_t *send_ns,
	    const uint64_t *recv_ns, uint64_t *start_ns, uint64_t *end_ns,
	    uint64_t *release)
{
	struct wl_ideal q = {
		.send_ns = send_ns, .recv_ns = recv_ns, .release = release,
	};
	const struct hs_wl_driver drv = {
		.release = wl_ideal_release, .timer = wl_ideal_timer,
		.arg = &q,
	};
	struct hs_wl_run r;
	uint32_t i;

	/* At most two events a flow and one timer a host pending. */
	q.h = malloc(sizeof(*q.h) * (2 * (size_t)w->nb_flows + w->nb_hosts +
				     1));
	if (q.h == NULL || hs_wl_run_init(&r, w, &drv) != 0) {
		free(q.h);
		return -ENOMEM;
	}
	for (i = 0; i < w->nb_flows; i++)
		release[i] = UINT64_MAX;
	hs_wl_run_start(&r, 0);
	while (q.nh > 0) {
		struct wl_ev e = wl_pop(&q);

		if (e.kind == 0)
			hs_wl_run_timer(&r, e.idx, e.t);
		else
			hs_wl_run_flow_end(&r, e.idx, e.kind == 1, e.t);
	}
	memcpy(start_ns, r.start_ns, sizeof(uint64_t) * w->nb_nodes);
	memcpy(end_ns, r.end_ns, sizeof(uint64_t) * w->nb_nodes);
	hs_wl_run_fini(&r);
	free(q.h);
	return 0;
}

/* ---- results ---- */

void
hs_wl_csv_name(FILE *f, const char *s)
{
	for (; *s != '\0'; s++)
		fputc(*s == ',' ? ';' : *s == '"' || *s == '\n' ||
		      *s == '\r' ? ' ' : *s, f);
}

void
hs_wl_results_free(struct hs_wl_results *res)
{
	free(res->nodes);
	free(res->iters);
	free(res->ops);
	free(res->ranks);
	memset(res, 0, sizeof(*res));
}

/*
 * Per job rank and iteration: its last node's end (UINT64_MAX: some node
 * did not end) and its compute time, from the node times.
 */
static void
wl_rank_iters(const struct hs_workload *w, const struct hs_wl_job *jb,
	      const uint64_t *end_ns, uint64_t *rank_end, uint64_t *compute)
{
	uint32_t i, cells = jb->nb_ranks * jb->iterations;
	uint8_t *open = calloc(cells + 1, 1);

	for (i = 0; i < cells; i++)
		rank_end[i] = compute[i] = 0;
	for (i = jb->node_first; i < jb->node_first + jb->nb_nodes; i++) {
		const struct hs_wl_node *x = &w->nodes[i];
		uint32_t c = x->iteration * jb->nb_ranks + x->rank;

		if (end_ns[i] == UINT64_MAX) {
			if (open != NULL)
				open[c] = 1;
			continue;
		}
		if (end_ns[i] > rank_end[c])
			rank_end[c] = end_ns[i];
		if (x->kind == HS_WL_COMP)
			compute[c] += x->dur_ns;
	}
	for (i = 0; open != NULL && i < cells; i++)
		if (open[i])
			rank_end[i] = UINT64_MAX;
	free(open);
}

/*
 * The job's iteration from a to b: each rank's wait is the part of it the
 * rank spent not computing (its compute nodes of any iteration, each
 * over the dur_ns before its end, clipped to the window), so that it
 * never exceeds b - a.  ranks[0 .. nb_ranks) get wait_ns; busy has room
 * for a value a rank.  Returns the sum, the largest in *max.
 */
static uint64_t
wl_window_waits(const struct hs_workload *w, const struct hs_wl_job *jb,
		const uint64_t *end_ns, uint64_t a, uint64_t b,
		struct hs_wl_rank_result *ranks, uint64_t *busy,
		uint64_t *max)
{
	uint64_t sum = 0;
	uint32_t i, k;

	for (k = 0; k < jb->nb_ranks; k++)
		busy[k] = 0;
	for (i = jb->node_first; i < jb->node_first + jb->nb_nodes; i++) {
		const struct hs_wl_node *x = &w->nodes[i];
		uint64_t s, e;

		if (x->kind != HS_WL_COMP || end_ns[i] == UINT64_MAX ||
		    end_ns[i] <= a)
			continue;
		e = end_ns[i] < b ? end_ns[i] : b;
		s = end_ns[i] - x->dur_ns > a ? end_ns[i] - x->dur_ns : a;
		if (e > s)
			busy[x->rank] += e - s;
	}
	*max = 0;
	for (k = 0; k < jb->nb_ranks; k++) {
		ranks[k].wait_ns = busy[k] < b - a ? b - a - busy[k] : 0;
		sum += ranks[k].wait_ns;
		if (ranks[k].wait_ns > *max)
			*max = ranks[k].wait_ns;
	}
	return sum;
}

/*
 * The scratch of hs_wl_results(), a value per rank and iteration of the
 * largest job: the run's and the ideal run's last node ends and compute
 * times (wl_rank_iters()), and the busy time wl_window_waits() sums.
 */
struct wl_cells {
	uint64_t *rend, *comp, *iend, *icomp, *busy;
};

static void
wl_cells_free(struct wl_cells *sc)
{
	free(sc->rend);
	free(sc->comp);
	free(sc->iend);
	free(sc->icomp);
	free(sc->busy);
}

/*
 * res zeroed, its counts set and its arrays allocated (zeroed), and sc's
 * scratch allocated.  0, or -ENOMEM with res and sc freed.
 */
static int
wl_results_alloc(const struct hs_workload *w, struct hs_wl_results *res,
		 struct wl_cells *sc)
{
	uint32_t j, max_cells = 0;

	memset(res, 0, sizeof(*res));
	for (j = 0; j < w->nb_jobs; j++) {
		uint32_t cells = w->jobs[j].nb_ranks * w->jobs[j].iterations;

		res->nb_iters += w->jobs[j].iterations;
		res->nb_ranks += cells;
		if (cells > max_cells)
			max_cells = cells;
	}
	res->nb_ops = w->nb_ops;
	res->nb_nodes = w->nb_nodes;
	res->nodes = calloc(res->nb_nodes + 1, sizeof(*res->nodes));
	res->iters = calloc(res->nb_iters + 1, sizeof(*res->iters));
	res->ranks = calloc(res->nb_ranks + 1, sizeof(*res->ranks));
	res->ops = calloc(res->nb_ops + 1, sizeof(*res->ops));
	sc->rend = malloc(sizeof(uint64_t) * (max_cells + 1));
	sc->comp = malloc(sizeof(uint64_t) * (max_cells + 1));
	sc->iend = malloc(sizeof(uint64_t) * (max_cells + 1));
	sc->icomp = malloc(sizeof(uint64_t) * (max_cells + 1));
	sc->busy = malloc(sizeof(uint64_t) * (max_cells + 1));
	if (res->nodes == NULL || res->iters == NULL || res->ranks == NULL ||
	    res->ops == NULL || sc->busy == NULL || sc->rend == NULL ||
	    sc->comp == NULL || sc->iend == NULL || sc->icomp == NULL) {
		wl_cells_free(sc);
		hs_wl_results_free(res);
		return -ENOMEM;
	}
	return 0;
}

/* What the ranks of one iteration add up to (wl_iter_ranks()). */
struct wl_iter_sum {
	uint64_t end;		/* the last rank end */
	uint64_t iend_max;	/* the last rank end of the ideal run */
	uint64_t wait_sum;	/* the ranks' waits */
	bool open, iopen;	/* a rank did not end (run, ideal run) */
};

/*
 * Iteration it of job j (jb): each rank's result in rr[0 .. nb_ranks),
 * its begin the end of its previous iteration (the job's start for the
 * first), its wait what it did not compute of that; the most any rank
 * computed and waited into ir; the rest summed in *sum.  A rank that did
 * not end, or whose previous iteration did not, gets no times (the
 * iteration is open).  A rank without nodes ends as it begins: its end
 * in sc->rend is raised to its begin.
 */
static void
wl_iter_ranks(const struct hs_wl_job *jb, uint32_t j, uint32_t it,
	      struct wl_cells *sc, struct hs_wl_iter_result *ir,
	      struct hs_wl_rank_result *rr, struct wl_iter_sum *sum)
{
	uint64_t *rend = sc->rend, *comp = sc->comp, *iend = sc->iend;
	uint32_t k;

	memset(sum, 0, sizeof(*sum));
	for (k = 0; k < jb->nb_ranks; k++, rr++) {
		uint32_t c = it * jb->nb_ranks + k;
		uint64_t begin = it == 0 ? jb->start_ns :
			rend[c - jb->nb_ranks];

		rr->job = j;
		rr->rank = k;
		rr->host = jb->host[k];
		rr->iteration = it;
		rr->compute_ns = comp[c];
		if (ir->compute_ns < comp[c])
			ir->compute_ns = comp[c];
		if (iend[c] == UINT64_MAX)
			sum->iopen = true;
		else if (iend[c] > sum->iend_max)
			sum->iend_max = iend[c];
		if (rend[c] == UINT64_MAX || begin == UINT64_MAX) {
			sum->open = true;
			continue;
		}
		if (rend[c] < begin)
			rend[c] = begin;
		rr->begin_ns = begin;
		rr->end_ns = rend[c];
		rr->wait_ns = rend[c] - begin > comp[c] ?
			rend[c] - begin - comp[c] : 0;
		if (rend[c] > sum->end)
			sum->end = rend[c];
		if (rr->wait_ns > ir->wait_max_ns)
			ir->wait_max_ns = rr->wait_ns;
		sum->wait_sum += rr->wait_ns;
	}
}

/*
 * Job j's iteration results in ir[0 .. iterations) and its rank results
 * in rr[0 .. iterations x nb_ranks), iteration by iteration, from the
 * run's and the ideal run's node ends.  An iteration's time runs from
 * the previous one's end (the job's start for the first); once one is
 * open, none after it has a time.
 */
static void
wl_job_results(const struct hs_workload *w, uint32_t j,
	       const uint64_t *end_ns, const uint64_t *ideal_end_ns,
	       struct wl_cells *sc, struct hs_wl_iter_result *ir,
	       struct hs_wl_rank_result *rr)
{
	const struct hs_wl_job *jb = &w->jobs[j];
	/* The previous iteration's end, UINT64_MAX once one is open. */
	uint64_t prev = jb->start_ns, iprev = jb->start_ns;
	uint32_t it;

	wl_rank_iters(w, jb, end_ns, sc->rend, sc->comp);
	wl_rank_iters(w, jb, ideal_end_ns, sc->iend, sc->icomp);
	for (it = 0; it < jb->iterations; it++, ir++, rr += jb->nb_ranks) {
		struct wl_iter_sum sum;

		ir->job = j;
		ir->iteration = it;
		wl_iter_ranks(jb, j, it, sc, ir, rr, &sum);
		if (!sum.open && prev != UINT64_MAX) {
			ir->end_ns = sum.end;
			ir->iter_ns = sum.end - prev;
			/* Waits within the iteration: none exceeds it. */
			sum.wait_sum = wl_window_waits(w, jb, end_ns, prev,
				sum.end, rr, sc->busy, &ir->wait_max_ns);
			prev = sum.end;
		} else {
			prev = UINT64_MAX;
		}
		ir->wait_mean_ns = sum.wait_sum / jb->nb_ranks;
		if (!sum.iopen && iprev != UINT64_MAX) {
			ir->ideal_ns = sum.iend_max - iprev;
			iprev = sum.iend_max;
		} else {
			iprev = UINT64_MAX;
		}
	}
}

/* Each node's result in q[]: where it ran and its start and end. */
static void
wl_node_results(const struct hs_workload *w, const uint64_t *start_ns,
		const uint64_t *end_ns, struct hs_wl_node_result *q)
{
	uint32_t k;

	for (k = 0; k < w->nb_nodes; k++, q++) {
		const struct hs_wl_node *x = &w->nodes[k];

		q->job = x->job;
		q->rank = x->rank;
		q->host = w->jobs[x->job].host[x->rank];
		q->iteration = x->iteration;
		q->kind = x->kind;
		q->coll = x->coll;
		q->start_ns = start_ns[k];
		q->end_ns = end_ns[k];
		snprintf(q->name, sizeof(q->name), "%s", hs_wl_name(w, k));
	}
}

/*
 * Op o's result in q (zeroed): what it is, and over its members' nodes
 * its first start, last end and bandwidths (nccl-tests' algbw and busbw;
 * none unless every member's node ended, the bandwidths only if it took
 * time), and its time on the ideal fabric unless a member's node did not
 * end there.
 */
static void
wl_op_result(const struct hs_workload *w, uint32_t o,
	     const uint64_t *start_ns, const uint64_t *end_ns,
	     const uint64_t *ideal_start_ns, const uint64_t *ideal_end_ns,
	     struct hs_wl_op_result *q)
{
	const struct hs_wl_op *op = &w->ops[o];
	uint64_t s = UINT64_MAX, e = 0, is = UINT64_MAX, ie = 0;
	bool open = false, iopen = false;
	uint32_t k;

	q->op = o;
	q->job = op->job;
	q->iteration = op->iteration;
	q->kind = op->kind;
	q->coll = op->coll;
	q->nb_members = op->nb_members;
	q->size = op->size;
	snprintf(q->name, sizeof(q->name), "%s",
		 w->names != NULL ? w->names + op->name : "");
	for (k = 0; k < op->nb_members; k++) {
		uint32_t n = w->member_node[op->member_first + k];

		if (end_ns[n] == UINT64_MAX)
			open = true;
		else {
			s = start_ns[n] < s ? start_ns[n] : s;
			e = end_ns[n] > e ? end_ns[n] : e;
		}
		if (ideal_end_ns[n] == UINT64_MAX)
			iopen = true;
		else {
			is = ideal_start_ns[n] < is ? ideal_start_ns[n] : is;
			ie = ideal_end_ns[n] > ie ? ideal_end_ns[n] : ie;
		}
	}
	if (!open) {
		q->start_ns = s;
		q->end_ns = e;
		if (e > s) {
			q->algbw_gbps = (double)op->size / (double)(e - s);
			q->busbw_gbps = q->algbw_gbps *
				hs_wl_busbw_factor(op->kind, op->coll,
						   op->nb_members);
		}
	}
	if (!iopen)
		q->ideal_ns = ie - is;
}

int
hs_wl_results(const struct hs_workload *w, const uint64_t *start_ns,
	      const uint64_t *end_ns, const uint64_t *ideal_start_ns,
	      const uint64_t *ideal_end_ns, struct hs_wl_results *res)
{
	struct wl_cells sc;
	uint32_t j, o, ni = 0, nr = 0;

	if (wl_results_alloc(w, res, &sc) != 0)
		return -ENOMEM;
	for (j = 0; j < w->nb_jobs; j++) {
		wl_job_results(w, j, end_ns, ideal_end_ns, &sc,
			       &res->iters[ni], &res->ranks[nr]);
		ni += w->jobs[j].iterations;
		nr += w->jobs[j].iterations * w->jobs[j].nb_ranks;
	}
	wl_node_results(w, start_ns, end_ns, res->nodes);
	for (o = 0; o < w->nb_ops; o++)
		wl_op_result(w, o, start_ns, end_ns, ideal_start_ns,
			     ideal_end_ns, &res->ops[o]);
	wl_cells_free(&sc);
	return 0;
}
