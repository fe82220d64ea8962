/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fab_run(): one run of a scheme on a built topology, from start to
 * results.  It sets the run up, builds its engines and links
 * (fab_build.c), runs the event loop to the end (fab_sim.c), collects the
 * results (fab_build.c) and tears everything down, counting any mbuf
 * that did not come back.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include "fab_pool.h"
#include "fab_sim.h"
#include "ofan_phase.h"

/* The process's peak resident memory so far, in MB (getrusage). */
static double
fab_peak_rss_mb(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_maxrss / 1024.0;	/* KB on Linux */
}

/*
 * s set up for a run of scheme on t from p and opts (which may be NULL):
 * its inputs, its hooks, and its parts: threads (as many as p asks and
 * lcores allow), over the MPI job's ranks if there is one.
 */
static void
fab_run_setup(struct fab_sim *s, const struct fab_params *p, uint16_t scheme,
	      struct fab_topo *t, struct rte_mempool *pool,
	      const struct fab_run_opts *opts, struct fab_run *r)
{
	s->p = p;
	s->t = t;
	s->r = r;
	s->mem.pool = pool;
	s->progress.quiet = opts == NULL || opts->quiet;
	s->loop.interrupt = opts != NULL ? opts->interrupt : NULL;
	s->progress.prog = opts != NULL && opts->prog != NULL ? opts->prog :
		"ofan-fabric";
	s->loop.between = opts != NULL ? opts->between : NULL;
	s->loop.between_arg = opts != NULL ? opts->between_arg : NULL;
	s->mem.grow = opts != NULL ? opts->pool : NULL;
	s->mem.fib_cache = opts != NULL ? opts->fib : NULL;
	s->progress.scheme = p->schemes[scheme].name;
	/* Results do not depend on the thread count: fewer lcores than
	 * threads only makes the run slower.  Links without delay give no
	 * lookahead to run parts apart. */
	s->parts.nb_thr = t->kind == FAB_TOPO_B2B || p->delay_ns == 0 ? 1 :
		(uint16_t)RTE_MIN((unsigned int)p->threads, rte_lcore_count());
	/* Parts over ranks: as many threads on every rank (the fewest any
	 * has), or one part on rank 0 when links give no lookahead. */
	s->mpi.job = opts != NULL && opts->job != NULL && opts->job->size > 1 ?
		opts->job : NULL;
	s->parts.part0 = 0;
	s->parts.nb_parts = s->parts.nb_thr;
	s->parts.thr_per_rank = s->parts.nb_thr;
	if (s->mpi.job != NULL) {
		uint64_t fewest = UINT16_MAX - s->parts.nb_thr;

		fab_mpi_reduce(s->mpi.job, NULL, 0, &fewest, 1);
		s->parts.nb_thr = (uint16_t)(UINT16_MAX - fewest);
		s->parts.thr_per_rank = s->parts.nb_thr;
		if (t->kind == FAB_TOPO_B2B || p->delay_ns == 0) {
			s->parts.nb_parts = 1;
			s->parts.nb_thr = 1;
			s->parts.thr_per_rank = 1;
		} else {
			s->parts.nb_parts = (uint16_t)(s->parts.nb_thr *
						       s->mpi.job->size);
		}
		s->parts.part0 = (uint16_t)(s->mpi.job->rank *
					    s->parts.thr_per_rank);
	}
	s->loop.t0 = FAB_T0_NS;
	s->loop.limit = s->loop.t0 + p->time_limit_ns + 1;	/* the limit itself runs */
	/* A frame sent between threads arrives a window later at the soonest:
	 * a switch port hands it to the wire at the end of its service, one
	 * delay before it arrives.  Windows are the same for any thread
	 * count. */
	s->loop.lookahead = p->delay_ns > 0 ? p->delay_ns : 1;
	s->loop.bar.n = s->parts.nb_thr;
	clock_gettime(CLOCK_MONOTONIC, &s->progress.wall0);
	s->progress.wall_last = s->progress.wall0;
}

/* The DPDK heap allocated on every socket, in MB. */
static double
fab_heap_mb(void)
{
	double heap_mb = 0;
	struct rte_malloc_socket_stats st;
	unsigned int sock;

	for (sock = 0; sock < RTE_MAX_NUMA_NODES; sock++)
		if (rte_malloc_get_socket_stats((int)sock, &st) == 0)
			heap_mb += (double)st.heap_allocsz_bytes /
				(1024.0 * 1024.0);
	return heap_mb;
}

/*
 * r's figures of what the run cost, when it ran over the MPI job's ranks:
 * what each rank left and leaked, summed; its peak and memory, the
 * largest.
 */
static void
fab_run_reduce(struct fab_sim *s, struct fab_run *r)
{
	uint64_t sum[2] = { r->queued_end, (uint64_t)r->mbuf_leak };
	/* The largest, in 0.1 MB. */
	uint64_t max[3] = { (uint64_t)(r->peak_rss_mb * 10),
			    (uint64_t)(r->pool_mb * 10),
			    (uint64_t)(r->heap_mb * 10) };

	fab_mpi_reduce(s->mpi.job, sum, 2, max, 3);
	r->queued_end = sum[0];
	r->mbuf_leak = (int64_t)sum[1];
	r->peak_rss_mb = (double)max[0] / 10;
	r->pool_mb = (double)max[1] / 10;
	r->heap_mb = (double)max[2] / 10;
	r->nb_ranks = (uint32_t)s->mpi.job->size;
	r->rank = -1;
}

int
fab_run(const struct fab_params *p, uint16_t scheme, struct fab_topo *t,
	struct rte_mempool *pool, const struct fab_run_opts *opts,
	struct fab_run *r, char *err, unsigned int err_size)
{
	struct fab_sim *s = rte_zmalloc("fab_sim", sizeof(*s),
					RTE_CACHE_LINE_SIZE);
	unsigned int in_use0 = fab_pool_in_use(pool);
	struct ofan_phase phase;
	double heap_mb;
	int rc;

	memset(r, 0, sizeof(*r));
	r->scheme = scheme;
	if (s == NULL) {
		snprintf(err, err_size, "out of memory for the run");
		return -ENOMEM;
	}
	fab_run_setup(s, p, scheme, t, pool, opts, r);
	/* Deep queues and many hosts take their time to allocate and free;
	 * the run loop itself reports each second (fab_progress). */
	ofan_phase_begin(&phase, s->progress.quiet ? NULL : stderr,
			 s->progress.prog, "%-15s building %u switches and %u hosts",
			 s->progress.scheme, t->nb_switches, t->nb_hosts);
	rc = fab_sim_build(s, scheme, err, err_size);
	ofan_phase_end(&phase);
	heap_mb = fab_heap_mb();
	if (s->mpi.job != NULL) {
		/* Every rank built its share, or none runs. */
		uint64_t failed = rc != 0;

		fab_mpi_reduce(s->mpi.job, NULL, 0, &failed, 1);
		if (failed && rc == 0) {
			snprintf(err, err_size, "another rank could not build its part");
			rc = -ENOMEM;
		}
	}
	if (rc != 0)
		goto out;
	fab_sim_start(s);
	rc = fab_sim_go(s, err, err_size);
	ofan_phase_begin(&phase, s->progress.quiet ? NULL : stderr,
			 s->progress.prog,
			 "%-15s collecting the results and freeing the fabric",
			 s->progress.scheme);
	if (rc == -EBUSY)
		goto out;
	if (fab_sim_collect(s) != 0) {
		snprintf(err, err_size, "out of memory for the results");
		rc = -ENOMEM;
	}
out:
	fab_sim_free(s);
	malloc_trim(0);	/* the next run's peak starts from what is in use */
	ofan_phase_end(&phase);
	r->mbuf_leak = (int64_t)fab_pool_in_use(pool) -
		(int64_t)in_use0;
	r->wall_s = fab_sim_wall_since(&s->progress.wall0);
	r->nb_ranks = 1;
	r->rank = opts != NULL ? opts->rank : 0;
	r->peak_rss_mb = fab_peak_rss_mb();
	r->heap_mb = heap_mb;
	r->pool_mb = opts != NULL && opts->pool != NULL ?
		fab_pool_mb(opts->pool) : 0;
	if (s->mpi.job != NULL)
		fab_run_reduce(s, r);
	rte_free(s);
	return rc;
}

void
fab_run_free(struct fab_run *r)
{
	free(r->flows);
	free(r->qwin);
	r->flows = NULL;
	r->qwin = NULL;
	hs_wl_results_free(&r->jobs);
}
