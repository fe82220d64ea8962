/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI job ofan-fabric belongs to: one process, or one rank of an MPI job
 * (started by mpirun; Open MPI through meson's dependency('mpi')).  Built
 * without MPI, or started without mpirun, it is a job of one and every
 * call below is a no-op or the identity, so the rest of ofan-fabric has
 * no #ifdef.
 *
 * Two ways to use the ranks (fab.h, [fabric] and --spread):
 *   - runs:  the runs of an experiment (schemes x seeds x sweep points)
 *            go to ranks from a work queue that rank 0 serves between its
 *            own windows (fab_mpi_next_run, fab_mpi_serve); results come
 *            back to rank 0, which writes them in run order;
 *   - parts: one run's parts (pods, leaf groups) over the ranks; frames
 *            crossing ranks are exchanged at window ends
 *            (fab_mpi_exchange) and the window's coordination is one
 *            reduction (fab_mpi_reduce).
 * Every collective here is called by every rank in the same order.
 */
#ifndef OFAN_FAB_MPI_H
#define OFAN_FAB_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer (messages). */
struct fab_xbuf {
	uint8_t *b;
	size_t len, cap;
};

/* Append n bytes; -ENOMEM if it cannot grow. */
int fab_xbuf_put(struct fab_xbuf *x, const void *p, size_t n);
void fab_xbuf_free(struct fab_xbuf *x);

struct fab_mpi {
	int rank, size;
	bool mpi;		/* MPI_Init was called */
	/* --spread runs, rank 0: the work queue and what came back. */
	uint32_t nb_runs;
	uint32_t next_run;	/* the next run to hand out */
	bool closed;		/* no more runs are handed out */
	uint32_t outstanding;	/* handed to other ranks, not yet back */
	int workers_left;	/* ranks not yet told "no more" */
	struct fab_xbuf *results;	/* per run, once back */
	bool *have;
	/* fab_mpi_exchange's per-rank lengths and requests, allocated once
	 * (it runs every window). */
	uint64_t *x_len_out, *x_len_in;
	void *x_req;
};

/* What the ranks of a job share (--spread). */
enum fab_spread { FAB_SPREAD_AUTO = 0, FAB_SPREAD_RUNS, FAB_SPREAD_PARTS };

/* The worse of two exit statuses: 0 < 1 < 2 < 3 < 130 < 4. */
int fab_mpi_worst(int a, int b);

/* True when mpirun (or another PMI launcher) started this process. */
bool fab_mpi_launched(void);

/*
 * Join the job: MPI_Init when launched by mpirun and built with MPI, else
 * a job of one.  Returns 0, or -1 with a message in err (e.g. launched by
 * mpirun but built without MPI).
 */
int fab_mpi_init(struct fab_mpi *j, int *argc, char ***argv, char *err,
		 size_t err_size);
void fab_mpi_fini(struct fab_mpi *j);

/*
 * Every rank gives its status (0 = fine) and message; every rank gets the
 * worst status (130 for an interrupt wins over errors below 4), and msg
 * becomes the message of the lowest failing rank, "rank R: " prefixed
 * when R > 0.  A job of one returns status.
 */
int fab_mpi_agree(const struct fab_mpi *j, int status, char *msg,
		  size_t size);

/*
 * The window's reduction: sum[0 .. nb_sum) summed and max[0 .. nb_max)
 * maximised over the ranks, in place.
 */
void fab_mpi_reduce(const struct fab_mpi *j, uint64_t *sum, int nb_sum,
		    uint64_t *max, int nb_max);

/*
 * Send out[r] to rank r and receive in[r] from it, for every rank (the
 * own entries are not touched); in[] are reset and grown as needed.
 * Returns 0 or -ENOMEM.
 */
int fab_mpi_exchange(const struct fab_mpi *j, struct fab_xbuf *out,
		     struct fab_xbuf *in);

/*
 * Rank 0 gets every rank's buf in all[r] (all[0] = its own copy);
 * other ranks only send.  Returns 0 or -ENOMEM.
 */
int fab_mpi_gather(const struct fab_mpi *j, const void *buf, size_t len,
		   struct fab_xbuf *all);

/* Rank 0 sends len bytes of buf to every rank (which receive into x). */
int fab_mpi_bcast(const struct fab_mpi *j, struct fab_xbuf *x);

/* ---- --spread runs ---- */

/* Rank 0: start a work queue of nb_runs runs.  0 or -ENOMEM. */
int fab_mpi_queue_open(struct fab_mpi *j, uint32_t nb_runs);
/*
 * The next run for this rank: rank 0 takes it from the queue, the others
 * ask rank 0.  Returns false when there is none (queue empty or closed).
 */
bool fab_mpi_next_run(struct fab_mpi *j, uint32_t *run);
/* A rank other than 0 sends run's result to rank 0. */
int fab_mpi_send_result(struct fab_mpi *j, uint32_t run, const void *blob,
			size_t len);
/*
 * Rank 0: answer what has arrived (requests, results) without waiting;
 * its own results go in with fab_mpi_keep_result.  Safe to call often
 * (a run calls it between windows).
 */
void fab_mpi_serve(struct fab_mpi *j);
void fab_mpi_keep_result(struct fab_mpi *j, uint32_t run,
			 struct fab_xbuf *blob);
/* Rank 0: hand out nothing more (an interrupt); outstanding runs finish. */
void fab_mpi_queue_close(struct fab_mpi *j);
/*
 * Rank 0, once its own runs are over: serve until every rank has been
 * told there is no more and every run handed out has come back.
 */
void fab_mpi_queue_drain(struct fab_mpi *j);
void fab_mpi_queue_free(struct fab_mpi *j);

#endif /* OFAN_FAB_MPI_H */
