/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Between the windows of a fabric run (fab_sim.h): the threads' barrier,
 * the control events due at a window's end, the decision to stop, the
 * frames handed over between MPI ranks, the progress lines, each thread's
 * life, and the start and run of a built fabric.  The windows themselves,
 * the events of one thread, are fab_sim.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>

#include "fab_pool.h"
#include "fab_sim.h"
#include "hs_host.h"
#include "ofan_clock.h"
#include "ofan_wire.h"
#include "sw_engine.h"

/*
 * A barrier for the threads of a run.  It spins (a window is short), then
 * yields, so a thread that lost its CPU to something else gets it back.
 */
static void
fab_barrier_wait(struct fab_barrier *b)
{
	uint32_t gen = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
	unsigned int spins = 0;

	if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) ==
	    __atomic_load_n(&b->n, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->gen, gen + 1, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == gen) {
		if (++spins < 20000)
			rte_pause();
		else
			sched_yield();
	}
}

double
fab_sim_wall_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) +
		(double)(b.tv_nsec - a->tv_nsec) * 1e-9;
}

/* Bytes acknowledged and to send, over this rank's hosts. */
static void
fab_progress_sums(const struct fab_sim *s, uint64_t *acked, uint64_t *total)
{
	uint64_t a, b;
	uint32_t i;

	*acked = *total = 0;
	for (i = 0; i < s->t->nb_hosts; i++) {
		if (s->net.hosts[i].h == NULL)
			continue;	/* another rank's */
		hs_host_progress(s->net.hosts[i].h, &a, &b);
		*acked += a;
		*total += b;
	}
}

/* The progress line (rank 0), from the job's sums. */
static void
fab_progress_print(struct fab_sim *s, uint64_t now, uint64_t acked,
		   uint64_t total, bool last)
{
	struct fab_progress *pg = &s->progress;

	if (pg->quiet || (s->mpi.job != NULL && s->mpi.job->rank != 0))
		return;
	clock_gettime(CLOCK_MONOTONIC, &pg->wall_last);
	fprintf(stderr, "%s: %-10s %10.1f us simulated, %5.1f%% of bytes acknowledged, %6.1f s wall%s\n",
		pg->prog, pg->scheme, (double)(now - s->loop.t0) / 1e3,
		total ? 100.0 * (double)acked / (double)total : 100.0,
		fab_sim_wall_since(&pg->wall0), last ? " (done)" : "");
}

/* Is a progress line due (rank 0's wall clock; the others never ask)? */
static bool
fab_progress_wanted(const struct fab_sim *s)
{
	const struct fab_progress *pg = &s->progress;

	if (pg->quiet || (s->mpi.job != NULL && s->mpi.job->rank != 0))
		return false;
	return fab_sim_wall_since(&pg->wall_last) >= 1.0;
}

/*
 * --spread parts: hand the frames this rank's parts sent to other ranks'
 * parts in window `parity` over, and take theirs into the wires' hand-over
 * FIFOs, where the receiving threads drain them at the next window as
 * frames from another thread.  Each wire's frames keep their order.
 */
struct fab_xrec {
	uint32_t dir;
	uint32_t len;
	uint64_t t;
};

static void
fab_exchange(struct fab_sim *s, uint32_t parity)
{
	const struct fab_mpi *j = s->mpi.job;
	uint32_t d;
	int r;

	for (r = 0; r < j->size; r++)
		s->mpi.out[r].len = 0;
	for (d = 0; d < s->net.nb_dirs; d++) {
		struct fab_dir *dir = &s->net.dirs[d];
		struct fab_fifo *out = &dir->out[parity];

		if (!dir->cross || !dir->tx_local || dir->rx_local)
			continue;
		while (out->head != out->tail) {
			struct fab_slot e = out->e[out->head++ & out->mask];
			struct fab_xrec x = {
				.dir = d, .len = e.m->pkt_len, .t = e.t,
			};
			struct fab_xbuf *b = &s->mpi.out[dir->rx_rank];

			if (fab_xbuf_put(b, &x, sizeof(x)) != 0 ||
			    fab_xbuf_put(b, rte_pktmbuf_mtod(e.m, void *),
					 x.len) != 0)
				s->thr[0].failed = true;	/* ends the run */
			rte_pktmbuf_free(e.m);
		}
	}
	if (fab_mpi_exchange(j, s->mpi.out, s->mpi.in) != 0)
		s->thr[0].failed = true;
	for (r = 0; r < j->size; r++) {
		const uint8_t *b = s->mpi.in[r].b, *end = b + s->mpi.in[r].len;

		if (r == j->rank)
			continue;
		while (b + sizeof(struct fab_xrec) <= end) {
			struct fab_xrec x;
			struct rte_mbuf *m;

			memcpy(&x, b, sizeof(x));
			b += sizeof(x);
			m = rte_pktmbuf_alloc(s->mem.pool);
			if (m == NULL || rte_pktmbuf_append(m, x.len) == NULL ||
			    fab_fifo_push(&s->net.dirs[x.dir].out[parity], m,
					  x.t) != 0) {
				rte_pktmbuf_free(m);
				s->thr[0].lost++;
			} else {
				memcpy(rte_pktmbuf_mtod(m, void *), b, x.len);
			}
			b += x.len;
		}
	}
}

/*
 * Between windows (every thread waits at the barrier): run the control
 * events due at the window's end, decide whether the run is over, and set
 * the next window.  Thread 0 only.
 */
static void
fab_coordinate(struct fab_sim *s)
{
	uint64_t w_start = s->loop.w_end, w_end, net = 0, last_done = 0;
	uint64_t sum[4], max[5];
	uint32_t done = 0, i;
	bool failed = false;
	int c;

	/*
	 * Every rank runs the same control events, each on its switches;
	 * not those past the time limit (the limit is one past the last
	 * nanosecond that runs).
	 */
	while ((c = fab_ctl_next(&s->ctl)) >= 0 &&
	       s->ctl.ev[c].t <= w_start && s->ctl.ev[c].t < s->loop.limit) {
		struct fab_ctl ctl = fab_ctl_take(&s->ctl, c);
		uint32_t drain[2], n, d;

		for (i = 0; i < s->parts.nb_thr; i++)
			s->thr[i].now = w_start;
		n = fab_control(s, ctl.idx, w_start, drain);
		for (d = 0; d < n; d++)
			if (s->net.dirs[drain[d]].tx_local)
				fab_dir_tx(&s->thr[s->net.dirs[drain[d]].tx_owner],
					   drain[d]);
	}
	for (i = 0; i < s->parts.nb_thr; i++) {
		done += s->thr[i].nb_hosts_done;
		net += s->thr[i].nb_net_ev;
		failed = failed || s->thr[i].failed;
		last_done = RTE_MAX(last_done, s->thr[i].last_done_ns);
	}
	/* Frames still to hand over count as in the network (each on the
	 * rank that sent it: they move after this). */
	for (i = 0; i < s->net.nb_dirs; i++)
		if (s->net.dirs[i].cross && s->net.dirs[i].tx_local)
			net += fab_fifo_len(&s->net.dirs[i].out[s->loop.w_index & 1]);
	/* The job decides as one: sums and maxima over its ranks. */
	sum[0] = done;
	sum[1] = net;
	sum[2] = sum[3] = 0;
	if (s->progress.due)
		fab_progress_sums(s, &sum[2], &sum[3]);
	max[0] = failed;
	max[1] = s->loop.interrupt != NULL && *s->loop.interrupt;
	max[2] = last_done;
	max[3] = s->progress.due;
	max[4] = fab_progress_wanted(s);
	if (s->mpi.job != NULL)
		fab_mpi_reduce(s->mpi.job, sum, 4, max, 5);
	if (max[3])
		fab_progress_print(s, w_start, sum[2], sum[3], false);
	s->progress.due = max[4] != 0;
	if (sum[0] == s->t->nb_hosts && s->loop.done_ns == 0)
		s->loop.done_ns = max[2];
	if ((s->loop.done_ns != 0 && sum[1] == 0) || w_start >= s->loop.limit ||
	    max[0] || max[1]) {
		s->loop.stop = true;
		return;
	}
	if (s->loop.between != NULL)
		s->loop.between(s->loop.between_arg);
	w_end = RTE_MIN(w_start + s->loop.lookahead, s->loop.limit);
	c = fab_ctl_next(&s->ctl);
	if (c >= 0 && s->ctl.ev[c].t < w_end)
		w_end = s->ctl.ev[c].t;
	s->loop.w_index++;
	s->loop.w_end = w_end;
	if (s->mpi.job != NULL)
		fab_exchange(s, (s->loop.w_index - 1) & 1);
	if (s->mem.grow != NULL)
		fab_pool_reserve(s->mem.grow, s->mem.pool_need);
}

/* A thread's life: windows until thread 0 says stop. */
static int
fab_thr_main(void *arg)
{
	struct fab_thr *th = arg;
	struct fab_sim *s = th->s;

	for (;;) {
		fab_barrier_wait(&s->loop.bar);	/* thread 0 set the window */
		if (s->loop.stop)
			break;
		fab_drain(th, (s->loop.w_index - 1) & 1);
		fab_thr_window(th, s->loop.w_end);
		fab_barrier_wait(&s->loop.bar);	/* everyone finished it */
		if (th->id == 0)
			fab_coordinate(s);
	}
	return 0;
}

/*
 * A growing pool (fab_pool.h) has, before each window, more free mbufs
 * than the window can take: each local host sends at most its link's
 * worth of frames (counted as 1000 bytes each, or a full frame's wire
 * bytes when the MTU makes that less) and as many ACKs (one mbuf at a
 * time: fabric hosts keep no stash); free mbufs may sit in the threads'
 * mempool caches (up to 1.5 x the cache size each), where another thread
 * cannot take them; and a reserve.  Before the start, also the NICs'
 * first fill (nic_queue frames per slot).  The reserve was 65,536 mbufs
 * (290 MB of 4 KiB frames), which a permutation never comes near, and
 * populating it (the kernel clearing its pages) took most of a k = 8
 * permutation's run.  Sets s->mem.pool_need and reserves the first fill.
 */
static void
fab_pool_plan(struct fab_sim *s)
{
	const struct fab_params *p = s->p;
	uint64_t frame = RTE_MIN(1000u, (uint32_t)p->host.set.mtu + 38u);
	uint64_t per_host = 2 * (p->rate_bps * s->loop.lookahead /
				 8000000000ull / frame + 2);
	uint64_t first = 0, hosts = 0;
	uint32_t i;

	for (i = 0; i < s->t->nb_hosts; i++) {
		if (s->net.hosts[i].h == NULL)
			continue;
		hosts++;
		first += (uint64_t)s->net.hosts[i].nic.nb_slots *
			RTE_MAX(p->nic_queue, 1u);
	}
	s->mem.pool_need = (uint32_t)RTE_MIN(FAB_POOL_RESERVE +
		(uint64_t)s->parts.nb_thr * RTE_MEMPOOL_CACHE_MAX_SIZE * 3 / 2 +
		hosts * per_host, (uint64_t)UINT32_MAX / 2);
	fab_pool_reserve(s->mem.grow, (uint32_t)RTE_MIN(
		s->mem.pool_need + first, (uint64_t)UINT32_MAX / 2));
}

void
fab_sim_start(struct fab_sim *s)
{
	const struct fab_params *p = s->p;
	const struct fab_topo *t = s->t;
	uint32_t i;

	fab_fail_at_start(s);
	for (i = 0; i < p->nb_failures; i++) {
		if (p->failures[i].at_start)
			continue;
		fab_ctl_push(&s->ctl, s->loop.t0 + p->failures[i].at_ns,
			     i * FAB_CTL_PHASES + FAB_CTL_FAIL);
		if (p->failures[i].duration_ns != 0)
			fab_ctl_push(&s->ctl, s->loop.t0 + p->failures[i].at_ns +
				     p->failures[i].duration_ns,
				     i * FAB_CTL_PHASES + FAB_CTL_RESTORE);
	}
	if (s->mem.grow != NULL)
		fab_pool_plan(s);
	for (i = 0; i < t->nb_hosts; i++)
		if (s->net.hosts[i].h != NULL)
			hs_host_start(s->net.hosts[i].h, s->loop.t0);
	if (s->load.has_wl)
		hs_wl_run_start(&s->load.wl, s->loop.t0);
	for (i = 0; i < t->nb_hosts; i++) {
		struct fab_thr *th;

		if (s->net.hosts[i].h == NULL)
			continue;	/* another rank's */
		th = fab_host_thr(s, i);
		fab_host_kick(th, i);
		fab_host_check_done(th, i);
	}
	/* The first window, after control events due at the start. */
	s->loop.w_end = s->loop.t0;
	s->loop.w_index = 0;
	fab_coordinate(s);
}

int
fab_sim_go(struct fab_sim *s, char *err, unsigned int err_size)
{
	const struct fab_params *p = s->p;
	struct fab_run *r = s->r;
	unsigned int lcore = rte_lcore_id();
	uint32_t i, launched;
	uint64_t end;
	int rc = 0;

	for (i = 1; i < s->parts.nb_thr; i++) {
		lcore = rte_get_next_lcore(lcore, 1, 0);
		s->thr[i].lcore = lcore;
		if (rte_eal_remote_launch(fab_thr_main, &s->thr[i],
					  lcore) != 0) {
			/* Those launched meet thread 0 at the barrier and
			 * stop with it. */
			snprintf(err, err_size, "cannot start a thread on lcore %u",
				 lcore);
			rc = -EBUSY;
			s->loop.stop = true;
			__atomic_store_n(&s->loop.bar.n, i, __ATOMIC_RELEASE);
			break;
		}
	}
	launched = i;
	fab_thr_main(&s->thr[0]);
	for (i = 1; i < launched; i++)
		rte_eal_wait_lcore(s->thr[i].lcore);
	if (rc != 0)
		return rc;	/* a thread did not start: nothing ran */

	for (i = 0; i < s->parts.nb_thr; i++) {
		if (s->thr[i].failed) {
			snprintf(err, err_size, "out of memory for events");
			rc = -ENOMEM;
		}
		r->events += s->thr[i].events;
		r->hops += s->thr[i].hops;
		r->injected += s->thr[i].injected;
		r->delivered += s->thr[i].delivered;
	}
	end = RTE_MIN(s->loop.w_end, s->loop.t0 + p->time_limit_ns);
	r->completed = s->loop.done_ns != 0;
	r->interrupted = !r->completed && s->loop.interrupt != NULL &&
		*s->loop.interrupt;
	if (s->mpi.job != NULL) {
		uint64_t intr = r->interrupted;

		fab_mpi_reduce(s->mpi.job, NULL, 0, &intr, 1);
		r->interrupted = !r->completed && intr != 0;
	}
	r->sim_ns = (s->loop.done_ns ? s->loop.done_ns : end) - s->loop.t0;
	{
		uint64_t sums[2];

		fab_progress_sums(s, &sums[0], &sums[1]);
		if (s->mpi.job != NULL)
			fab_mpi_reduce(s->mpi.job, sums, 2, NULL, 0);
		fab_progress_print(s, s->loop.done_ns ? s->loop.done_ns : end, sums[0],
				   sums[1], true);
	}
	for (i = 0; i < s->net.nb_dirs; i++)
		if (!s->net.dirs[i].from_host && s->net.dirs[i].tx_local)
			fab_qwin_flush(&s->thr[s->net.dirs[i].tx_owner], i);
	r->nb_windows = (uint32_t)((end - s->loop.t0) / p->queue_window_ns) + 1;
	return rc;
}
