/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job (fab_mpi.h): MPI when built with it and started by mpirun, a
 * job of one otherwise.  Waits poll with short sleeps instead of MPI's
 * busy wait, so that ranks sharing cores (mpirun --oversubscribe) leave
 * them to the ranks that compute.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef OFAN_HAVE_MPI
#include <mpi.h>
#endif

#include "fab_mpi.h"

int
fab_xbuf_put(struct fab_xbuf *x, const void *p, size_t n)
{
	if (x->len + n > x->cap) {
		size_t cap = x->cap ? x->cap : 4096;
		uint8_t *b;

		while (cap < x->len + n)
			cap *= 2;
		b = realloc(x->b, cap);
		if (b == NULL)
			return -ENOMEM;
		x->b = b;
		x->cap = cap;
	}
	if (n > 0)
		memcpy(x->b + x->len, p, n);
	x->len += n;
	return 0;
}

void
fab_xbuf_free(struct fab_xbuf *x)
{
	free(x->b);
	x->b = NULL;
	x->len = x->cap = 0;
}

bool
fab_mpi_launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") != NULL ||
		getenv("PMIX_RANK") != NULL || getenv("PMI_RANK") != NULL;
}

/* The severity order of exit statuses: 0 < 1 < 2 < 3 < 130 < 4. */
static int
fab_severity(int status)
{
	switch (status) {
	case 0: return 0;
	case 1: return 1;
	case 2: return 2;
	case 3: return 3;
	case 130: return 4;
	default: return 5;
	}
}

int
fab_mpi_worst(int a, int b)
{
	return fab_severity(b) > fab_severity(a) ? b : a;
}

#ifdef OFAN_HAVE_MPI

/* Room for n bytes, len = n (the content is undefined). */
static int
fab_xbuf_size(struct fab_xbuf *x, size_t n)
{
	x->len = 0;
	if (fab_xbuf_put(x, NULL, 0) != 0)
		return -ENOMEM;
	if (n > x->cap) {
		uint8_t *b = realloc(x->b, n);

		if (b == NULL)
			return -ENOMEM;
		x->b = b;
		x->cap = n;
	}
	x->len = n;
	return 0;
}

static int
fab_status_of(int severity, int fallback)
{
	static const int st[] = { 0, 1, 2, 3, 130 };

	return severity < 5 ? st[severity] : fallback;
}

enum { FAB_TAG_REQ = 1, FAB_TAG_RUN, FAB_TAG_RESULT, FAB_TAG_X };

/* Wait for r without spinning a core: test, sleep 20 us, test... */
static void
fab_mpi_wait(MPI_Request *r)
{
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = 20000 };
	int done = 0;

	for (;;) {
		MPI_Test(r, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		nanosleep(&nap, NULL);
	}
}

static void
fab_mpi_waitall(int n, MPI_Request *r)
{
	int i;

	for (i = 0; i < n; i++)
		fab_mpi_wait(&r[i]);
}

int
fab_mpi_init(struct fab_mpi *j, int *argc, char ***argv, char *err,
	     size_t err_size)
{
	memset(j, 0, sizeof(*j));
	j->size = 1;
	if (!fab_mpi_launched())
		return 0;
	if (MPI_Init(argc, argv) != MPI_SUCCESS) {
		snprintf(err, err_size, "MPI_Init failed");
		return -1;
	}
	j->mpi = true;
	MPI_Comm_rank(MPI_COMM_WORLD, &j->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &j->size);
	j->x_len_out = calloc((size_t)j->size, sizeof(uint64_t));
	j->x_len_in = calloc((size_t)j->size, sizeof(uint64_t));
	j->x_req = calloc(2 * (size_t)j->size, sizeof(MPI_Request));
	if (j->x_len_out == NULL || j->x_len_in == NULL || j->x_req == NULL) {
		snprintf(err, err_size, "out of memory for %d ranks", j->size);
		MPI_Abort(MPI_COMM_WORLD, 4);
	}
	return 0;
}

void
fab_mpi_fini(struct fab_mpi *j)
{
	if (j->mpi)
		MPI_Finalize();
	j->mpi = false;
	free(j->x_len_out);
	free(j->x_len_in);
	free(j->x_req);
	j->x_len_out = j->x_len_in = NULL;
	j->x_req = NULL;
}

int
fab_mpi_agree(const struct fab_mpi *j, int status, char *msg, size_t size)
{
	int sev = fab_severity(status), worst, first, me;

	if (j->size == 1)
		return status;
	MPI_Allreduce(&sev, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	me = status != 0 && status != 130 ? j->rank : j->size;
	MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first < j->size && msg != NULL && size > 0) {
		char *b = calloc(1, size);

		if (b != NULL) {
			if (j->rank == first)
				snprintf(b, size, "%s", msg);
			MPI_Bcast(b, (int)size, MPI_CHAR, first, MPI_COMM_WORLD);
			if (first > 0)
				snprintf(msg, size, "rank %d: %.*s", first,
					 (int)size - 16, b);
			else
				snprintf(msg, size, "%s", b);
			free(b);
		}
	}
	return fab_status_of(worst, status > 4 && status != 130 ? status : 4);
}

void
fab_mpi_reduce(const struct fab_mpi *j, uint64_t *sum, int nb_sum,
	       uint64_t *max, int nb_max)
{
	if (j->size == 1)
		return;
	if (nb_sum > 0)
		MPI_Allreduce(MPI_IN_PLACE, sum, nb_sum, MPI_UINT64_T, MPI_SUM,
			      MPI_COMM_WORLD);
	if (nb_max > 0)
		MPI_Allreduce(MPI_IN_PLACE, max, nb_max, MPI_UINT64_T, MPI_MAX,
			      MPI_COMM_WORLD);
}

int
fab_mpi_exchange(const struct fab_mpi *j, struct fab_xbuf *out,
		 struct fab_xbuf *in)
{
	uint64_t *len_out = j->x_len_out, *len_in = j->x_len_in;
	MPI_Request *req = j->x_req;
	int r, n = 0;

	if (j->size == 1)
		return 0;
	for (r = 0; r < j->size; r++)
		len_out[r] = r == j->rank ? 0 : out[r].len;
	MPI_Alltoall(len_out, 1, MPI_UINT64_T, len_in, 1, MPI_UINT64_T,
		     MPI_COMM_WORLD);
	for (r = 0; r < j->size; r++) {
		if (r == j->rank)
			continue;
		if (fab_xbuf_size(&in[r], len_in[r]) != 0)
			MPI_Abort(MPI_COMM_WORLD, 4);
		if (len_in[r] > 0)
			MPI_Irecv(in[r].b, (int)len_in[r], MPI_BYTE, r,
				  FAB_TAG_X, MPI_COMM_WORLD, &req[n++]);
		if (len_out[r] > 0)
			MPI_Isend(out[r].b, (int)len_out[r], MPI_BYTE, r,
				  FAB_TAG_X, MPI_COMM_WORLD, &req[n++]);
	}
	MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
	return 0;
}

int
fab_mpi_gather(const struct fab_mpi *j, const void *buf, size_t len,
	       struct fab_xbuf *all)
{
	uint64_t mine = len, *lens = NULL;
	MPI_Request *req = NULL;
	int r, n = 0;

	if (j->rank == 0) {
		all[0].len = 0;
		if (fab_xbuf_put(&all[0], buf, len) != 0)
			MPI_Abort(MPI_COMM_WORLD, 4);
	}
	if (j->size == 1)
		return 0;
	if (j->rank == 0) {
		lens = calloc((size_t)j->size, sizeof(*lens));
		req = calloc((size_t)j->size, sizeof(*req));
		if (lens == NULL || req == NULL)
			MPI_Abort(MPI_COMM_WORLD, 4);
	}
	MPI_Gather(&mine, 1, MPI_UINT64_T, lens, 1, MPI_UINT64_T, 0,
		   MPI_COMM_WORLD);
	if (j->rank != 0) {
		MPI_Request s;

		MPI_Isend(buf, (int)len, MPI_BYTE, 0, FAB_TAG_X,
			  MPI_COMM_WORLD, &s);
		fab_mpi_wait(&s);
		return 0;
	}
	for (r = 1; r < j->size; r++) {
		if (fab_xbuf_size(&all[r], lens[r]) != 0)
			MPI_Abort(MPI_COMM_WORLD, 4);
		MPI_Irecv(all[r].b, (int)lens[r], MPI_BYTE, r, FAB_TAG_X,
			  MPI_COMM_WORLD, &req[n++]);
	}
	fab_mpi_waitall(n, req);
	free(lens);
	free(req);
	return 0;
}

int
fab_mpi_bcast(const struct fab_mpi *j, struct fab_xbuf *x)
{
	uint64_t len = x->len;

	if (j->size == 1)
		return 0;
	MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if (j->rank != 0 && fab_xbuf_size(x, len) != 0)
		MPI_Abort(MPI_COMM_WORLD, 4);
	MPI_Bcast(x->b, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
	return 0;
}

/* ---- --spread runs ---- */

int
fab_mpi_queue_open(struct fab_mpi *j, uint32_t nb_runs)
{
	j->nb_runs = nb_runs;
	j->next_run = 0;
	j->closed = false;
	j->outstanding = 0;
	j->workers_left = j->size - 1;
	if (j->rank != 0)
		return 0;
	j->results = calloc(nb_runs + 1, sizeof(*j->results));
	j->have = calloc(nb_runs + 1, sizeof(*j->have));
	return j->results == NULL || j->have == NULL ? -ENOMEM : 0;
}

/* Rank 0: the next run of the queue, or -1. */
static int32_t
fab_mpi_take(struct fab_mpi *j)
{
	if (j->closed || j->next_run >= j->nb_runs)
		return -1;
	return (int32_t)j->next_run++;
}

bool
fab_mpi_next_run(struct fab_mpi *j, uint32_t *run)
{
	MPI_Request r;
	int32_t got;
	char nothing = 0;

	if (j->rank == 0) {
		got = fab_mpi_take(j);
	} else {
		MPI_Send(&nothing, 1, MPI_CHAR, 0, FAB_TAG_REQ,
			 MPI_COMM_WORLD);
		MPI_Irecv(&got, 1, MPI_INT32_T, 0, FAB_TAG_RUN,
			  MPI_COMM_WORLD, &r);
		fab_mpi_wait(&r);
	}
	if (got < 0)
		return false;
	*run = (uint32_t)got;
	return true;
}

int
fab_mpi_send_result(struct fab_mpi *j, uint32_t run, const void *blob,
		    size_t len)
{
	MPI_Request r;

	(void)run;	/* the blob's first 4 bytes say which run it is */
	MPI_Isend(blob, (int)len, MPI_BYTE, 0, FAB_TAG_RESULT,
		  MPI_COMM_WORLD, &r);
	fab_mpi_wait(&r);
	return 0;
}

/* One pending message answered; false if there was none. */
static bool
fab_mpi_serve_one(struct fab_mpi *j)
{
	MPI_Status st;
	int flag = 0, count;
	char nothing;

	MPI_Iprobe(MPI_ANY_SOURCE, FAB_TAG_REQ, MPI_COMM_WORLD, &flag, &st);
	if (!flag)
		MPI_Iprobe(MPI_ANY_SOURCE, FAB_TAG_RESULT, MPI_COMM_WORLD,
			   &flag, &st);
	if (!flag)
		return false;
	if (st.MPI_TAG == FAB_TAG_REQ) {
		int32_t run;

		MPI_Recv(&nothing, 1, MPI_CHAR, st.MPI_SOURCE, FAB_TAG_REQ,
			 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		run = fab_mpi_take(j);
		if (run >= 0)
			j->outstanding++;
		else
			j->workers_left--;
		MPI_Send(&run, 1, MPI_INT32_T, st.MPI_SOURCE, FAB_TAG_RUN,
			 MPI_COMM_WORLD);
	} else if (st.MPI_TAG == FAB_TAG_RESULT) {
		struct fab_xbuf x = { 0 };
		uint32_t run;

		MPI_Get_count(&st, MPI_BYTE, &count);
		if (fab_xbuf_size(&x, (size_t)count) != 0)
			MPI_Abort(MPI_COMM_WORLD, 4);
		MPI_Recv(x.b, count, MPI_BYTE, st.MPI_SOURCE, FAB_TAG_RESULT,
			 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		j->outstanding--;
		memcpy(&run, x.b, sizeof(run));
		fab_mpi_keep_result(j, run, &x);
		fab_xbuf_free(&x);
	}
	return true;
}

void
fab_mpi_serve(struct fab_mpi *j)
{
	if (j->rank != 0 || j->size == 1 || j->results == NULL)
		return;
	while (fab_mpi_serve_one(j))
		;
}

void
fab_mpi_queue_close(struct fab_mpi *j)
{
	j->closed = true;
}

void
fab_mpi_queue_drain(struct fab_mpi *j)
{
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = 200000 };

	if (j->rank != 0 || j->size == 1)
		return;
	while (j->workers_left > 0 || j->outstanding > 0)
		if (!fab_mpi_serve_one(j))
			nanosleep(&nap, NULL);
}

#else /* !OFAN_HAVE_MPI: a job of one */

int
fab_mpi_init(struct fab_mpi *j, int *argc, char ***argv, char *err,
	     size_t err_size)
{
	memset(j, 0, sizeof(*j));
	j->size = 1;
	if (fab_mpi_launched()) {
		snprintf(err, err_size, "started by mpirun, but this ofan-fabric was built without MPI. Hint: install libopenmpi-dev (scripts/install-deps.sh) and rebuild");
		return -1;
	}
	return 0;
}

void fab_mpi_fini(struct fab_mpi *j) { (void)j; }

int
fab_mpi_agree(const struct fab_mpi *j, int status, char *msg, size_t size)
{
	return status;
}

void
fab_mpi_reduce(const struct fab_mpi *j, uint64_t *sum, int nb_sum,
	       uint64_t *max, int nb_max)
{
}

int
fab_mpi_exchange(const struct fab_mpi *j, struct fab_xbuf *out,
		 struct fab_xbuf *in)
{
	return 0;
}

int
fab_mpi_gather(const struct fab_mpi *j, const void *buf, size_t len,
	       struct fab_xbuf *all)
{
	all[0].len = 0;
	return fab_xbuf_put(&all[0], buf, len);
}

int
fab_mpi_bcast(const struct fab_mpi *j, struct fab_xbuf *x)
{
	return 0;
}

int
fab_mpi_queue_open(struct fab_mpi *j, uint32_t nb_runs)
{
	j->nb_runs = nb_runs;
	j->next_run = 0;
	j->results = calloc(nb_runs + 1, sizeof(*j->results));
	j->have = calloc(nb_runs + 1, sizeof(*j->have));
	return j->results == NULL || j->have == NULL ? -ENOMEM : 0;
}

bool
fab_mpi_next_run(struct fab_mpi *j, uint32_t *run)
{
	if (j->closed || j->next_run >= j->nb_runs)
		return false;
	*run = j->next_run++;
	return true;
}

int
fab_mpi_send_result(struct fab_mpi *j, uint32_t run, const void *blob,
		    size_t len)
{
	return -ENOTSUP;
}

void fab_mpi_serve(struct fab_mpi *j) { (void)j; }
void fab_mpi_queue_close(struct fab_mpi *j) { j->closed = true; }
void fab_mpi_queue_drain(struct fab_mpi *j) { (void)j; }

#endif /* OFAN_HAVE_MPI */

void
fab_mpi_keep_result(struct fab_mpi *j, uint32_t run, struct fab_xbuf *blob)
{
	if (run >= j->nb_runs)
		return;
	fab_xbuf_free(&j->results[run]);
	j->results[run] = *blob;
	j->have[run] = true;
	memset(blob, 0, sizeof(*blob));
}

void
fab_mpi_queue_free(struct fab_mpi *j)
{
	uint32_t i;

	for (i = 0; j->results != NULL && i < j->nb_runs; i++)
		fab_xbuf_free(&j->results[i]);
	free(j->results);
	free(j->have);
	j->results = NULL;
	j->have = NULL;
}
