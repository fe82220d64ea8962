/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric's runs (fab_runs.h): every (combination, scheme, seed) of an
 * experiment built, run, checked and written, one after another in this
 * process or handed out to the ranks of an MPI job (--spread runs), whose
 * results rank 0 writes in run order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "fab.h"
#include "fab_mpi.h"
#include "fab_runs.h"

/* The runs of x in the order they are written: combination, scheme, seed. */
uint32_t
fab_nb_runs(const struct fab_experiment *x)
{
	uint32_t c, n = 0;

	for (c = 0; c < x->nb_combos; c++)
		n += (uint32_t)x->combos[c].nb_schemes * x->combos[c].seeds;
	return n;
}

static void
fab_run_of(const struct fab_experiment *x, uint32_t i, uint32_t *c,
	   uint16_t *s, uint32_t *k)
{
	*s = 0;
	*k = 0;
	for (*c = 0; *c < x->nb_combos; (*c)++) {
		const struct fab_params *p = &x->combos[*c];
		uint32_t n = (uint32_t)p->nb_schemes * p->seeds;

		if (i < n) {
			*s = (uint16_t)(i / p->seeds);
			*k = i % p->seeds;
			return;
		}
		i -= n;
	}
}

/*
 * Seed k of scheme s of combination c: topology, run, checks.  When it
 * ran (*ran), t and r hold it for the caller to write and free.  Returns
 * the exit status so far (status, or worse).
 */
static int
fab_one_run(const struct fab_params *p, uint32_t c, uint16_t s, uint32_t k,
	    struct rte_mempool *pool, const struct fab_run_opts *ropts,
	    struct fab_topo *t, struct fab_run *r, bool *ran, int status)
{
	static bool noted_one_part;
	struct fab_params *q = malloc(sizeof(*q));
	const char *name = p->schemes[s].name;
	const char *prog = ropts->prog;
	char err[1024] = "";
	int rc;

	*ran = false;
	if (q == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 4;
	}
	fab_params_for_seed(p, k, q);
	if (fab_topo_build(q, q->schemes[s].sw_policy, t, err,
			   sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		free(q);
		return 4;
	}
	rc = fab_run(q, s, t, pool, ropts, r, err, sizeof(err));
	r->combo = c;
	r->seed_index = k;
	r->seed = q->seed;
	free(q);
	if (rc != 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, name, err);
		fab_run_free(r);
		fab_topo_free(t);
		return 4;
	}
	*ran = true;
	if (ropts->job != NULL && ropts->job->rank != 0)
		return status;	/* rank 0 holds the merged result and checks it */
	if (r->one_part && !noted_one_part && !ropts->quiet) {
		fprintf(stderr, "%s: note: triggers connect hosts of different parts; runs take one thread (the results do not depend on it)\n",
			prog);
		noted_one_part = true;
	}
	if (!r->completed && status == 0)
		status = 1;
	if (r->injected != r->delivered + r->dropped + r->queued_end) {
		fprintf(stderr, "%s: %s: conservation broken: %" PRIu64 " injected != %" PRIu64 " delivered + %" PRIu64 " dropped + %" PRIu64 " queued\n",
			prog, name, r->injected, r->delivered, r->dropped,
			r->queued_end);
		status = 1;
	}
	if (r->hosts.alloc_failed != 0)
		fprintf(stderr, "%s: %s: warning: the mbuf pool ran dry %" PRIu64 " times (hosts waited for mbufs); results may then depend on the thread count. Hint: set [fabric] mbufs above %u\n",
			prog, name, r->hosts.alloc_failed, fab_pool_size(p));
	if (r->mbuf_leak != 0) {
		fprintf(stderr, "%s: %s: %" PRId64 " mbufs leaked\n", prog, name,
			r->mbuf_leak);
		status = 3;
	}
	return status;
}

/* Write run r (topology t) of combination p; the status so far. */
static int
fab_write_run(struct fab_out *out, const struct fab_params *p,
	      const struct fab_topo *t, const struct fab_run *r,
	      const char *outdir, int status)
{
	if (fab_out_run(out, p, t, r) != 0) {
		fprintf(stderr, "ofan-fabric: cannot write results in %s\n",
			outdir);
		return status == 0 || status == 1 ? 2 : status;
	}
	return status;
}

/*
 * --spread runs: a run's result as rank 0 receives it.  The ranks run the
 * same build, so the structures travel as they are.
 */
struct fab_blob_hdr {
	uint32_t run;
	int32_t status;		/* the run's exit status contribution */
	uint32_t ran;		/* a fab_run, flows and queue windows follow */
};

static int
fab_blob_make(uint32_t run, int status, bool ran, const struct fab_run *r,
	      struct fab_xbuf *x)
{
	struct fab_blob_hdr h = { .run = run, .status = status, .ran = ran };

	x->len = 0;
	if (fab_xbuf_put(x, &h, sizeof(h)) != 0)
		return -ENOMEM;
	if (!ran)
		return 0;
	if (fab_xbuf_put(x, r, sizeof(*r)) != 0 ||
	    fab_xbuf_put(x, r->flows, r->flows == NULL ? 0 :
			 r->nb_flows * sizeof(*r->flows)) != 0 ||
	    fab_xbuf_put(x, r->qwin, r->qwin == NULL ? 0 :
			 r->nb_qwin * sizeof(*r->qwin)) != 0 ||
	    fab_xbuf_put(x, r->jobs.nodes, r->jobs.nodes == NULL ? 0 :
			 r->jobs.nb_nodes * sizeof(*r->jobs.nodes)) != 0 ||
	    fab_xbuf_put(x, r->jobs.iters, r->jobs.iters == NULL ? 0 :
			 r->jobs.nb_iters * sizeof(*r->jobs.iters)) != 0 ||
	    fab_xbuf_put(x, r->jobs.ops, r->jobs.ops == NULL ? 0 :
			 r->jobs.nb_ops * sizeof(*r->jobs.ops)) != 0 ||
	    fab_xbuf_put(x, r->jobs.ranks, r->jobs.ranks == NULL ? 0 :
			 r->jobs.nb_ranks * sizeof(*r->jobs.ranks)) != 0)
		return -ENOMEM;
	return 0;
}

/* r's arrays point into x (do not fab_run_free it). */
static void
fab_blob_read(const struct fab_xbuf *x, struct fab_blob_hdr *h,
	      struct fab_run *r)
{
	const uint8_t *b = x->b + sizeof(*h);

	memcpy(h, x->b, sizeof(*h));
	if (!h->ran)
		return;
	memcpy(r, b, sizeof(*r));
	b += sizeof(*r);
	r->flows = r->flows == NULL ? NULL : (struct fab_flow_result *)b;
	if (r->flows != NULL)
		b += r->nb_flows * sizeof(*r->flows);
	r->qwin = r->qwin == NULL ? NULL : (struct fab_qwin *)b;
	if (r->qwin != NULL)
		b += r->nb_qwin * sizeof(*r->qwin);
	/* The jobs' arrays, each where it was not NULL. */
#define FAB_BLOB_ARRAY(field, nb)					\
	do {								\
		if (r->jobs.field != NULL) {				\
			r->jobs.field = (void *)b;			\
			b += r->jobs.nb * sizeof(*r->jobs.field);	\
		}							\
	} while (0)
	FAB_BLOB_ARRAY(nodes, nb_nodes);
	FAB_BLOB_ARRAY(iters, nb_iters);
	FAB_BLOB_ARRAY(ops, nb_ops);
	FAB_BLOB_ARRAY(ranks, nb_ranks);
#undef FAB_BLOB_ARRAY
}

/* Rank 0: write the results that are back, in run order, from *next. */
static int
fab_spread_write(struct fab_mpi *j, const struct fab_experiment *x,
		 struct fab_out *out, const char *outdir, uint32_t *next,
		 bool all_back, int status)
{
	while (*next < j->nb_runs && (j->have[*next] || all_back)) {
		uint32_t i = (*next)++, c, k;
		const struct fab_params *p;
		struct fab_blob_hdr h;
		struct fab_params *q;
		struct fab_topo t;
		struct fab_run r;
		char err[512];
		uint16_t s;

		if (!j->have[i])
			continue;	/* interrupted before it ran */
		fab_blob_read(&j->results[i], &h, &r);
		status = fab_mpi_worst(status, h.status);
		if (h.ran) {
			fab_run_of(x, i, &c, &s, &k);
			p = &x->combos[c];
			q = malloc(sizeof(*q));
			if (q == NULL)
				return 4;
			fab_params_for_seed(p, k, q);
			/* The topology only names links and layers here. */
			if (fab_topo_build(q, q->schemes[s].sw_policy, &t, err,
					   sizeof(err)) != 0) {
				fprintf(stderr, "ofan-fabric: %s\n", err);
				free(q);
				return 4;
			}
			status = fab_write_run(out, p, &t, &r, outdir, status);
			fab_topo_free(&t);
			free(q);
		}
		fab_xbuf_free(&j->results[i]);
	}
	return status;
}

/* Whether the user asked the runs to stop (SIGINT, SIGTERM). */
static bool
fab_stop_asked(const struct fab_run_opts *o)
{
	return o->interrupt != NULL && *o->interrupt != 0;
}

/* What rank 0 needs between windows: the job, and whether to stop. */
struct fab_serve_arg {
	struct fab_mpi *j;
	const struct fab_run_opts *ropts;
};

/* fab_run_opts.between: rank 0 answers the other ranks between windows. */
static void
fab_serve_between(void *arg)
{
	const struct fab_serve_arg *a = arg;

	if (fab_stop_asked(a->ropts))
		fab_mpi_queue_close(a->j);
	fab_mpi_serve(a->j);
}

/*
 * --spread runs: every rank takes runs from rank 0's queue until none is
 * left; rank 0 writes the results in run order.  Returns the status.
 */
int
fab_spread_runs(struct fab_mpi *j, const struct fab_experiment *x,
		struct rte_mempool *pool, struct fab_run_opts *ropts,
		struct fab_out *out, const char *outdir)
{
	struct fab_serve_arg serve = { .j = j, .ropts = ropts };
	struct fab_xbuf blob = { 0 };
	uint32_t run, next = 0, c, k;
	int status = 0;
	uint16_t s;

	if (fab_mpi_queue_open(j, fab_nb_runs(x)) != 0)
		return 4;
	if (j->rank == 0) {
		ropts->between = fab_serve_between;
		ropts->between_arg = &serve;
	}
	while (status != 4 && fab_mpi_next_run(j, &run)) {
		struct fab_topo t;
		struct fab_run r;
		bool ran;
		int st;

		fab_run_of(x, run, &c, &s, &k);
		/* Hand out runs before building this one (that takes a while
		 * for a big fabric; the others would wait). */
		fab_mpi_serve(j);
		st = fab_one_run(&x->combos[c], c, s, k, pool, ropts, &t, &r,
				 &ran, 0);
		if (fab_blob_make(run, st, ran, &r, &blob) != 0)
			st = 4;
		if (ran) {
			fab_run_free(&r);
			fab_topo_free(&t);
		}
		status = fab_mpi_worst(status, st);
		if (j->rank == 0) {
			fab_mpi_keep_result(j, run, &blob);
			fab_mpi_serve(j);
			status = fab_spread_write(j, x, out, outdir, &next,
						  false, status);
		} else {
			fab_mpi_send_result(j, run, blob.b, blob.len);
		}
		if (fab_stop_asked(ropts)) {
			fab_mpi_queue_close(j);
			if (j->rank != 0)
				break;
		}
	}
	if (j->rank == 0) {
		fab_mpi_queue_drain(j);
		status = fab_spread_write(j, x, out, outdir, &next, true,
					  status);
	}
	fab_xbuf_free(&blob);
	fab_mpi_queue_free(j);
	return status;
}

/* Runs one after another in this process (or, --spread parts, its parts). */
int
fab_sequential_runs(const struct fab_experiment *x, struct rte_mempool *pool,
		    const struct fab_run_opts *ropts, struct fab_out *out,
		    const char *outdir, bool write)
{
	uint32_t n = fab_nb_runs(x), i, c, k;
	bool stop = false;
	int status = 0;
	uint16_t s;

	/* --spread parts: the ranks stop together, when a run says it was
	 * interrupted (its ranks agree on that), not each on its signal. */
	for (i = 0; i < n && status != 4 && !stop; i++) {
		struct fab_topo t;
		struct fab_run r;
		bool ran;

		fab_run_of(x, i, &c, &s, &k);
		status = fab_one_run(&x->combos[c], c, s, k, pool, ropts, &t,
				     &r, &ran, status);
		if (!ran)
			continue;
		stop = r.interrupted ||
			(ropts->job == NULL && fab_stop_asked(ropts));
		if (write)
			status = fab_write_run(out, &x->combos[c], &t, &r,
					       outdir, status);
		fab_run_free(&r);
		fab_topo_free(&t);
	}
	return status;
}

