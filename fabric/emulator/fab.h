/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric: a whole fabric of switch and host engines in one process,
 * driven by emulated links and a virtual clock (docs/architecture.md,
 * "ofan-fabric").  The model (settings, experiment, topology) is
 * fab_model.h, without DPDK.
 *
 * The pieces, in the order a run uses them:
 *   fab_config.c  experiment INI -> struct fab_params (every value checked,
 *                 sweeps expanded into one params per combination);
 *   fab_topo.c    params -> topology: nodes, links, and the sw_config of
 *                 every switch (generated addresses, groups, routes and
 *                 destination keys), the live-path weights after failures;
 *   fab_build.c   one scheme on one topology: the engines, links and
 *                 threads, and the results collected at the end;
 *   fab_sim.c     its run in virtual time: a discrete event loop (events
 *                 in fab_evq.h) over link serialisation, propagation, host
 *                 pacing timers, timeouts and scheduled failures, split
 *                 over threads in windows;
 *   fab_out.c     results: summary.json, flows.csv, queues.csv,
 *                 queue-time.csv, runs.csv, timing.csv and the table.
 * The engines are the same libraries ofan-switch and ofan-host run on
 * NICs; only the ports (emulated links) and the clock (virtual) differ.
 *
 * Determinism: seeded engines, events in a canonical order (time, kind,
 * node or link), windows independent of the thread count; nothing reads
 * the wall clock except the progress line and timing.csv, which are kept
 * out of the results.  So results are byte-identical for any threads.
 */
#ifndef OFAN_FAB_H
#define OFAN_FAB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fab_model.h"
#include "hs_host.h"
#include "hs_job.h"
#include "hs_workload.h"

/* ---- one run (fab_sim.c) ---- */

/*
 * A run's counters, declared once: X(field, what).  The field's name is
 * its key in summary.json's runs and its column in runs.csv; adding one
 * is a line here and the code that counts it.
 */
#define FAB_RUN_COUNTERS(X) \
	X(ecn_marks, "CE marks set by the switches") \
	X(trimmed, "data frames the switches trimmed to their headers") \
	X(headers_returned, "trimmed headers the switches returned to their senders") \
	X(ctrl_drops, "headers and ACKs the switches' control queues had no room for") \
	X(pfc_pauses, "PFC pauses the switches sent upstream (xoff and refreshes)") \
	X(pfc_resumes, "PFC resumes (zero quanta) the switches sent upstream") \
	X(pfc_paused_ns, "time the switches' egress ports were paused, summed over ports, ns")

/*
 * A training job in one run: its iterations, those that ended and, over
 * those, the mean iteration time and the mean of the longest wait of any
 * rank (time it did not compute); the mean iteration time on the ideal
 * fabric (the same job, every flow in its ideal time) over them all; and
 * the ended iterations' time over their own ideal.
 */
struct fab_job_sum {
	uint32_t iterations, ended;
	double iter_us, ideal_us, wait_max_us;
	double slowdown;	/* iterations that ended / their ideals */
};

/* One flow's outcome. */
struct fab_flow_result {
	uint32_t src, dst;
	uint64_t size;
	uint64_t fct_ns;	/* 0: not completed */
	uint64_t ideal_ns;
	double slowdown;
	/*
	 * What its hosts measured (both sides; start_ns 0-based from the
	 * traffic start, rx_done_ns 0: never), with the counters of
	 * HS_FLOW_SEND_COUNTERS and HS_FLOW_RECV_COUNTERS (hs_host.h).
	 */
	struct hs_flow_result m;
};

/* A queue's maximum in one time window (queues.csv). */
struct fab_qwin {
	uint32_t window;
	uint32_t link;
	uint8_t end;		/* which end's egress */
	uint32_t max_pkts;
	uint64_t max_bytes;
};

struct fab_run {
	/* What ran. */
	uint32_t combo;
	uint16_t scheme;
	uint32_t seed_index;		/* 0 .. seeds - 1 */
	uint64_t seed;
	bool one_part;			/* triggers crossed parts: one thread */
	/* Flows. */
	uint32_t nb_flows;
	struct fab_flow_result *flows;
	uint32_t nb_completed;
	double max_slowdown, p99_slowdown, mean_fct_ns;
	uint64_t collective_ns, collective_ideal_ns;
	/*
	 * Network.  Queues count the frame being sent, as htsim's do; their
	 * size is in bytes (queue[l] / the full data frame is what tables
	 * show) and in frames of any size.
	 */
	uint64_t max_queue[FAB_L_NB];	/* frames, per layer */
	uint64_t max_queue_all;		/* every switch port */
	uint64_t max_queue_bytes[FAB_L_NB];
	uint64_t max_queue_bytes_all;
	uint32_t full_frame;		/* bytes of a full data frame */
	uint64_t drops[OFAN_DROP_MAX];
	uint64_t drops_total;
#define FAB_RUN_FIELD(field, what) uint64_t field;
	FAB_RUN_COUNTERS(FAB_RUN_FIELD)
#undef FAB_RUN_FIELD
	struct hs_host_stats hosts;	/* every host's counters, summed */
	/* Conservation: injected = delivered + dropped + queued. */
	uint64_t injected, delivered, dropped, queued_end;
	int64_t mbuf_leak;		/* in use after - before */
	/* The host policy's counters summed over its connections (REPS's
	 * freezes and path timeouts, PLB's repaths, ...), in dump order. */
	uint8_t nb_policy;
	struct {
		char key[24];
		uint64_t value;
	} policy[FAB_MAX_POLICY_COUNTERS];
	bool completed;			/* every flow done before the limit */
	bool interrupted;		/* stopped by fab_run_opts.interrupt */
	uint64_t sim_ns;		/* traffic start to the last completion */
	/* Queue windows (queues.csv). */
	uint32_t nb_qwin, qwin_cap;
	struct fab_qwin *qwin;
	/* Training jobs ([traffic] pattern = jobs): per node, iteration,
	 * operation and rank (jobs.csv, job-ops.csv, job-ranks.csv,
	 * job-nodes.csv); empty otherwise.  And per job, its means. */
	struct hs_wl_results jobs;
	uint32_t nb_jobs;
	struct fab_job_sum job_sum[HS_MAX_JOBS];
	uint32_t nb_windows;
	/* Cost (timing.csv only: not deterministic). */
	uint64_t events, hops;
	double wall_s;
	/* Where it ran: the ranks it took (1 unless --spread parts), the
	 * rank (-1: all of them), and the peak resident memory of the
	 * process so far, the largest over its ranks (MB). */
	uint32_t nb_ranks;
	int32_t rank;
	double peak_rss_mb;
	/* Where memory went (the largest rank's): the mbuf pool populated
	 * at the end, EAL heap in use once built (engines, queues, FIB). */
	double pool_mb, heap_mb;
};

struct rte_mempool;
struct fab_mpi;
struct fab_pool;

/* How a run reports and stops. */
/*
 * The switches' shared FIB (one rte_lpm, fab_topo.c), kept from one run of
 * a process to the next while the routes stay the same.  An rte_lpm holds
 * 2^24 first-level entries, 64 MB, and rte_free() clears what it frees,
 * faulting in every page of the table that lookups never touched: freeing
 * it took a third of a k = 8 permutation's run.  Owned by the caller of
 * fab_run() (fab_run_opts.fib); fab_fib_cache_free() releases it (a new
 * routing replaces it; ofan-fabric leaves the last one to rte_eal_cleanup).
 */
struct fab_fib_cache {
	struct rte_lpm *fib;	/* NULL: none yet */
	uint64_t *sig;		/* the routes and addresses it was built from */
	uint32_t nb_sig;
	uint32_t nb_built;	/* tables built (a new one per new routing) */
};

void fab_fib_cache_free(struct fab_fib_cache *c);

struct fab_run_opts {
	bool quiet;			/* no progress lines */
	/* When it becomes non-zero (a signal handler), the run stops at its
	 * next window, incomplete; NULL: never. */
	const volatile int *interrupt;
	/* Progress lines begin "PROG:" (NULL: "ofan-fabric"). */
	const char *prog;
	/* Called between windows when not NULL (--spread runs: rank 0
	 * answers the other ranks). */
	void (*between)(void *arg);
	void *between_arg;
	int rank;			/* this process's rank (timing.csv) */
	/* --spread parts: the job whose ranks share every run (NULL or a
	 * job of one: this process runs it all). */
	const struct fab_mpi *job;
	/* A pool that grows between windows (fab_pool.h); NULL: the pool
	 * passed to fab_run is what there is. */
	struct fab_pool *pool;
	/* Keeps the switches' FIB between runs (NULL: each run builds and
	 * frees its own). */
	struct fab_fib_cache *fib;
};

/*
 * Run scheme s of p on topology t (fresh from fab_topo_build() with the
 * scheme's switch policy; its routing view changes with failures), mbufs
 * from pool, on min(p->threads, EAL lcores) threads; fills *r.  A
 * progress line goes to stderr about every second of wall time unless
 * opts->quiet (opts NULL: quiet, never interrupted).  Returns 0 (the run
 * may still be incomplete: r->completed), or -errno with a message in err
 * when it could not run or collect its results.
 */
int fab_run(const struct fab_params *p, uint16_t s, struct fab_topo *t,
	    struct rte_mempool *pool, const struct fab_run_opts *opts,
	    struct fab_run *r, char *err, unsigned int err_size);
void fab_run_free(struct fab_run *r);

/* Mean and 95 % confidence half-width (Student's t) of n values. */
void fab_mean_ci(const double *v, uint32_t n, double out[2]);

/* Mbufs a run of p may hold at once (pool sizing). */
uint32_t fab_pool_size(const struct fab_params *p);

/* ---- output (fab_out.c) ---- */

struct fab_out;

/*
 * Open the output files in dir (created; the files ofan-fabric writes
 * removed first, fab_outdir_clear()).  NULL with a message in err.
 */
struct fab_out *fab_out_open(const char *dir, const struct fab_experiment *x,
			     char *err, unsigned int err_size);
/*
 * How the outputs were made: argv as given (the whole command line, EAL
 * options included) and the run id (the file, its overrides, --seed,
 * --seeds).  Writes DIR/command.txt (the working directory and the
 * command, shell-quoted), DIR/config.ini (the experiment as run,
 * fab_experiment_write_resolved()) and DIR/run.json (the version, the
 * directory, the command, its overrides and the run's identity), at once;
 * summary.json, which stays the same for any thread or rank count, gets
 * the overrides but [fabric] threads.  id must outlive o.  0, or -errno
 * with a message in err.
 */
int fab_out_describe(struct fab_out *o, int argc, char *const *argv,
		     const struct fab_run_id *id, char *err,
		     unsigned int err_size);
/* Write one run's rows (flows, queues) and keep its summary. */
int fab_out_run(struct fab_out *o, const struct fab_params *p,
		const struct fab_topo *t, const struct fab_run *r);
/*
 * Write summary.json, runs.csv, timing.csv, table.txt; print the table
 * to table too, unless it is NULL (--quiet).
 */
int fab_out_close(struct fab_out *o, FILE *table);
/* Close the files of o and free it, writing nothing more (a failed start). */
void fab_out_discard(struct fab_out *o);

#endif /* OFAN_FAB_H */
