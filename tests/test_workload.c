/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The workload engine (workload/hs_workload*.c) on the ideal network, where
 * every flow arrives a fixed time after its release and is acknowledged a
 * little later, so every node's start and end can be worked out by hand:
 * a compute node delays its dependants by its duration, a rank computes
 * one node at a time, a collective ends when its last flow ends, the
 * iterations chain per rank, and the results (iteration time, rank
 * wait, algbw and busbw) follow.  And the errors a bad job gets.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "hs_traffic.h"
#include "hs_workload.h"
#include "job_shape_conformance.h"
#include "unit_suite.h"

/* The ideal network of these tests: arrival and acknowledgement. */
#define T_RECV 10
#define T_ACK 15

struct t_wl {
	struct hs_workload w;
	struct hs_traffic t;
	uint64_t *start, *end, *release;
	struct hs_wl_results res;
};

static int
t_node(struct hs_workload *w, uint8_t kind, uint32_t rank, uint64_t x,
       const char *name, const uint32_t *deps, uint32_t nb_deps)
{
	struct hs_wl_node n = { .kind = kind, .rank = rank };
	int id;

	if (kind == HS_WL_COMP)
		n.dur_ns = x;
	else
		n.size = x;
	id = hs_wl_add_node(w, &n, name, deps, nb_deps);
	ck_assert_int_ge(id, 0);
	return id;
}

/* A point-to-point node: to or from peer. */
static int
t_p2p(struct hs_workload *w, uint8_t kind, uint32_t rank, uint32_t peer,
      uint64_t size, const char *name, const uint32_t *deps, uint32_t nb)
{
	struct hs_wl_node n = { .kind = kind, .rank = rank, .peer = peer,
				.size = size };
	int id = hs_wl_add_node(w, &n, name, deps, nb);

	ck_assert_int_ge(id, 0);
	return id;
}

static int
t_coll(struct hs_workload *w, uint32_t rank, uint8_t coll, uint32_t comm,
       uint64_t size, const char *name, const uint32_t *deps, uint32_t nb)
{
	struct hs_wl_node n = { .kind = HS_WL_COLL, .rank = rank,
				.coll = coll, .comm = comm, .size = size };
	int id = hs_wl_add_node(w, &n, name, deps, nb);

	ck_assert_int_ge(id, 0);
	return id;
}

/*
 * Flow f's acknowledgement and arrival times where f < t_nb_slow (else
 * T_ACK and T_RECV).
 */
static const uint64_t *t_slow_ack, *t_slow_recv;
static uint32_t t_nb_slow;

/* Build, run on the ideal network, and take the results. */
static void
t_run(struct t_wl *x)
{
	uint64_t *send, *recv;
	char err[256] = "";
	uint32_t f;

	ck_assert_msg(hs_wl_build(&x->w, &x->t, err, sizeof(err)) == 0,
		      "%s", err);
	send = malloc(sizeof(*send) * (x->w.nb_flows + 1));
	recv = malloc(sizeof(*recv) * (x->w.nb_flows + 1));
	x->start = malloc(sizeof(uint64_t) * x->w.nb_nodes);
	x->end = malloc(sizeof(uint64_t) * x->w.nb_nodes);
	x->release = malloc(sizeof(uint64_t) * (x->w.nb_flows + 1));
	ck_assert(send && recv && x->start && x->end && x->release);
	for (f = 0; f < x->w.nb_flows; f++) {
		recv[f] = f < t_nb_slow ? t_slow_recv[f] : T_RECV;
		send[f] = f < t_nb_slow ? t_slow_ack[f] : T_ACK;
		/* Every flow is the workload's, held for its release. */
		ck_assert_uint_eq(x->t.flows[f].wl_op,
				  x->w.flows[f].op + 1);
	}
	ck_assert_int_eq(hs_wl_ideal(&x->w, send, recv, x->start, x->end,
				     x->release), 0);
	/* The run is its own ideal here. */
	ck_assert_int_eq(hs_wl_results(&x->w, x->start, x->end, x->start,
				       x->end, &x->res), 0);
	free(send);
	free(recv);
}

static void
t_free(struct t_wl *x)
{
	hs_wl_results_free(&x->res);
	hs_traffic_free(&x->t);
	hs_wl_free(&x->w);
	free(x->start);
	free(x->end);
	free(x->release);
}

static void
t_job(struct t_wl *x, uint32_t nb_hosts, uint32_t nb_ranks,
      uint32_t iterations)
{
	uint32_t hosts[16], r;
	char err[256];

	memset(x, 0, sizeof(*x));
	hs_wl_init(&x->w, nb_hosts);
	for (r = 0; r < nb_ranks; r++)
		hosts[r] = nb_hosts - 1 - r;	/* placed backwards */
	ck_assert_int_eq(hs_wl_add_job(&x->w, "job", nb_ranks, hosts,
				       iterations, 0, err, sizeof(err)), 0);
}

/*
 * rank 0: c0 (100 ns) -> send 1000 B to rank 1 -> c1 (50 ns)
 * rank 1: recv from rank 0 -> c2 (70 ns)
 */
static void
t_pipeline(struct t_wl *x, uint32_t iterations)
{
	uint32_t c0, s, r;

	t_job(x, 4, 2, iterations);
	c0 = (uint32_t)t_node(&x->w, HS_WL_COMP, 0, 100, "c0", NULL, 0);
	s = (uint32_t)t_p2p(&x->w, HS_WL_SEND, 0, 1, 1000, "send", &c0, 1);
	t_node(&x->w, HS_WL_COMP, 0, 50, "c1", &s, 1);
	r = (uint32_t)t_p2p(&x->w, HS_WL_RECV, 1, 0, 1000, "recv", NULL, 0);
	t_node(&x->w, HS_WL_COMP, 1, 70, "c2", &r, 1);
}

START_TEST(test_compute_delays_dependants)
{
	struct t_wl x;

	t_pipeline(&x, 1);
	t_run(&x);
	ck_assert_uint_eq(x.w.nb_flows, 1);
	/* On hosts placed backwards: rank 0 is host 3, rank 1 host 2. */
	ck_assert_uint_eq(x.t.flows[0].src, 3);
	ck_assert_uint_eq(x.t.flows[0].dst, 2);
	ck_assert_uint_eq(x.t.flows[0].size, 1000);
	/* c0 0-100; the send from 100, acknowledged at 115; c1 115-165. */
	ck_assert_uint_eq(x.start[0], 0);
	ck_assert_uint_eq(x.end[0], 100);
	ck_assert_uint_eq(x.release[0], 100);
	ck_assert_uint_eq(x.start[1], 100);
	ck_assert_uint_eq(x.end[1], 100 + T_ACK);
	ck_assert_uint_eq(x.start[2], 100 + T_ACK);
	ck_assert_uint_eq(x.end[2], 100 + T_ACK + 50);
	/* recv from 0, ends on arrival at 110; c2 110-180. */
	ck_assert_uint_eq(x.start[3], 0);
	ck_assert_uint_eq(x.end[3], 100 + T_RECV);
	ck_assert_uint_eq(x.end[4], 100 + T_RECV + 70);
	/* The iteration: the later rank; each rank's wait is what it did
	 * not compute of it (rank 0 idles from 165 to 180 too). */
	ck_assert_uint_eq(x.res.nb_iters, 1);
	ck_assert_uint_eq(x.res.iters[0].iter_ns, 180);
	ck_assert_uint_eq(x.res.iters[0].end_ns, 180);
	ck_assert_uint_eq(x.res.iters[0].compute_ns, 150);
	ck_assert_uint_eq(x.res.ranks[0].compute_ns, 150);
	ck_assert_uint_eq(x.res.ranks[0].wait_ns, 180 - 150);
	ck_assert_uint_eq(x.res.ranks[1].wait_ns, 180 - 70);
	ck_assert_uint_eq(x.res.iters[0].wait_max_ns, 110);
	/* The send/recv pair: 100 to 115, 1000 B. */
	ck_assert_uint_eq(x.res.nb_ops, 1);
	ck_assert_uint_eq(x.res.ops[0].start_ns, 0);
	ck_assert_uint_eq(x.res.ops[0].end_ns, 115);
	t_free(&x);
}
END_TEST

START_TEST(test_iterations_chain_per_rank)
{
	struct t_wl x;
	uint32_t n;

	t_pipeline(&x, 2);
	t_run(&x);
	ck_assert_uint_eq(x.w.nb_nodes, 10);
	ck_assert_uint_eq(x.w.nb_flows, 2);
	n = 5;		/* iteration 1's c0 */
	/* Rank 0 starts again when its own iteration ended (165). */
	ck_assert_uint_eq(x.start[n], 165);
	ck_assert_uint_eq(x.release[1], 265);
	ck_assert_uint_eq(x.end[n + 2], 265 + T_ACK + 50);
	/* Rank 1's recv waits for rank 1's iteration 0 (180), ends on
	 * arrival (275); c2 275-345. */
	ck_assert_uint_eq(x.start[n + 3], 180);
	ck_assert_uint_eq(x.end[n + 3], 265 + T_RECV);
	ck_assert_uint_eq(x.end[n + 4], 265 + T_RECV + 70);
	ck_assert_uint_eq(x.res.iters[1].end_ns, 345);
	ck_assert_uint_eq(x.res.iters[1].iter_ns, 345 - 180);
	/*
	 * Rank 0's second iteration: its own from 165 to 330; the job's
	 * from 180 to 345, in which it computes c0 from 180 to 265 and c1
	 * (280 to 330).  Its first: c0 and c1, and c0 again from 165.
	 */
	ck_assert_uint_eq(x.res.ranks[2].begin_ns, 165);
	ck_assert_uint_eq(x.res.ranks[2].end_ns, 330);
	ck_assert_uint_eq(x.res.ranks[2].wait_ns, 345 - 180 - (85 + 50));
	ck_assert_uint_eq(x.res.ranks[0].wait_ns, 180 - 150 - 15);
	t_free(&x);
}
END_TEST

/*
 * A rank that ends one iteration early and the next one last: its wait
 * is counted within the job's iteration, never more than the iteration.
 *   rank 0: c0 (100) -> send to 1 -> c1 (50)
 *   rank 1: recv from 0 -> c2 (300)
 * Iteration 0 (flow 0 as usual): rank 0 ends at 165, rank 1 at 410.
 * Iteration 1 (flow 1 acknowledged 600 ns after its start): rank 0
 * sends at 265, has its ACK at 865 and ends at 915; rank 1 has the data
 * at 275 but begins at 410 and ends at 710.  The iteration is 410 to
 * 915: rank 0 computes 50 of it (c0 ran from 165 to 265, before it),
 * rank 1 300.  Rank 0's own span, 165 to 915, less its 150 of compute,
 * would be 600, more than the iteration's 505.
 */
START_TEST(test_wait_within_the_iteration)
{
	static const uint64_t ack[2] = { T_ACK, 600 };
	static const uint64_t recv[2] = { T_RECV, T_RECV };
	struct t_wl x;
	uint32_t c0, s, r, k;

	t_job(&x, 4, 2, 2);
	c0 = (uint32_t)t_node(&x.w, HS_WL_COMP, 0, 100, "c0", NULL, 0);
	s = (uint32_t)t_p2p(&x.w, HS_WL_SEND, 0, 1, 1000, "send", &c0, 1);
	t_node(&x.w, HS_WL_COMP, 0, 50, "c1", &s, 1);
	r = (uint32_t)t_p2p(&x.w, HS_WL_RECV, 1, 0, 1000, "recv", NULL, 0);
	t_node(&x.w, HS_WL_COMP, 1, 300, "c2", &r, 1);
	t_slow_ack = ack;
	t_slow_recv = recv;
	t_nb_slow = 2;
	t_run(&x);
	t_nb_slow = 0;
	ck_assert_uint_eq(x.res.iters[0].end_ns, 410);
	ck_assert_uint_eq(x.res.iters[1].end_ns, 915);
	ck_assert_uint_eq(x.res.iters[1].iter_ns, 505);
	ck_assert_uint_eq(x.res.ranks[2].begin_ns, 165);
	ck_assert_uint_eq(x.res.ranks[2].end_ns, 915);
	ck_assert_uint_eq(x.res.ranks[2].wait_ns, 505 - 50);
	ck_assert_uint_eq(x.res.ranks[3].wait_ns, 505 - 300);
	ck_assert_uint_eq(x.res.iters[1].wait_max_ns, 455);
	ck_assert_uint_eq(x.res.iters[1].wait_mean_ns, (455 + 205) / 2);
	/* Iteration 0: rank 0 computes 150 and, from 165, 100 of c0 again. */
	ck_assert_uint_eq(x.res.ranks[0].wait_ns, 410 - 250);
	ck_assert_uint_eq(x.res.ranks[1].wait_ns, 410 - 300);
	for (k = 0; k < x.res.nb_ranks; k++)
		ck_assert_uint_le(x.res.ranks[k].wait_ns,
				  x.res.iters[x.res.ranks[k].iteration].iter_ns);
	t_free(&x);
}
END_TEST

START_TEST(test_rank_computes_one_at_a_time)
{
	struct t_wl x;
	uint32_t a, b;

	t_job(&x, 1, 1, 1);
	/* Both ready at 0: a first (first come), then b. */
	a = (uint32_t)t_node(&x.w, HS_WL_COMP, 0, 100, "a", NULL, 0);
	b = (uint32_t)t_node(&x.w, HS_WL_COMP, 0, 50, "b", NULL, 0);
	/* c waits for b only, and for the rank. */
	t_node(&x.w, HS_WL_COMP, 0, 7, "c", &b, 1);
	t_run(&x);
	ck_assert_uint_eq(x.end[a], 100);
	ck_assert_uint_eq(x.start[b], 100);
	ck_assert_uint_eq(x.end[b], 150);
	ck_assert_uint_eq(x.start[2], 150);
	ck_assert_uint_eq(x.res.iters[0].iter_ns, 157);
	ck_assert_uint_eq(x.res.ranks[0].wait_ns, 0);
	t_free(&x);
}
END_TEST

/*
 * A ring all-reduce of 300 B over 3 ranks: 4 steps of 100 B.  With every
 * rank in at 0, step s leaves at s x T_RECV and the last arrives at 40,
 * acknowledged at 45: every member ends at 45.  With rank 2 computing
 * 100 ns first, the chains through rank 2 wait for it (worked out in
 * the comments below).
 */
START_TEST(test_collective_ends_with_its_last_flow)
{
	const uint32_t ring[3] = { 0, 1, 2 };
	struct t_wl x;
	uint32_t r, c;
	double alg;

	t_job(&x, 3, 3, 1);
	ck_assert_int_eq(hs_wl_add_comm(&x.w, ring, 3), 0);
	for (r = 0; r < 3; r++)
		t_coll(&x.w, r, HS_COLL_ALLREDUCE, 0, 300, "ar", NULL, 0);
	t_run(&x);
	ck_assert_uint_eq(x.w.nb_flows, 4 * 3);
	for (r = 0; r < 3; r++)
		ck_assert_uint_eq(x.end[r], 3 * T_RECV + T_ACK);
	ck_assert_uint_eq(x.t.flows[0].size, 100);
	ck_assert_uint_eq(x.res.ops[0].end_ns - x.res.ops[0].start_ns, 45);
	alg = 300.0 / 45;
	ck_assert(x.res.ops[0].algbw_gbps == alg);
	ck_assert(x.res.ops[0].busbw_gbps == alg * 2 * 2 / 3);
	t_free(&x);

	t_job(&x, 3, 3, 1);
	ck_assert_int_eq(hs_wl_add_comm(&x.w, ring, 3), 0);
	t_coll(&x.w, 0, HS_COLL_ALLREDUCE, 0, 300, "ar", NULL, 0);
	t_coll(&x.w, 1, HS_COLL_ALLREDUCE, 0, 300, "ar", NULL, 0);
	c = (uint32_t)t_node(&x.w, HS_WL_COMP, 2, 100, "c", NULL, 0);
	t_coll(&x.w, 2, HS_COLL_ALLREDUCE, 0, 300, "ar", &c, 1);
	t_run(&x);
	/*
	 * Rank 2 joins at 100; its step 3 (after 0's step 0 at 100, 1's
	 * step 1 at 110 ...) leaves at 130: acknowledged at 145.  Rank 0
	 * gets its last chunk at 140, rank 1 at 120 (its own last send is
	 * acknowledged at 135).
	 */
	ck_assert_uint_eq(x.start[3], 100);
	ck_assert_uint_eq(x.end[0], 140);
	ck_assert_uint_eq(x.end[1], 135);
	ck_assert_uint_eq(x.end[3], 145);
	ck_assert_uint_eq(x.res.ops[0].start_ns, 0);
	ck_assert_uint_eq(x.res.ops[0].end_ns, 145);
	ck_assert_uint_eq(x.res.iters[0].iter_ns, 145);
	t_free(&x);
}
END_TEST

/*
 * Two jobs: a starts with the traffic, b 500 ns later (its start timer);
 * b's iteration counts from its start.
 */
START_TEST(test_job_start_time)
{
	const uint32_t ha = 0, hb = 1;
	struct t_wl x;
	char err[256];

	memset(&x, 0, sizeof(x));
	hs_wl_init(&x.w, 2);
	ck_assert_int_eq(hs_wl_add_job(&x.w, "a", 1, &ha, 1, 0, err,
				       sizeof(err)), 0);
	t_node(&x.w, HS_WL_COMP, 0, 100, "a0", NULL, 0);
	ck_assert_int_eq(hs_wl_add_job(&x.w, "b", 1, &hb, 2, 500, err,
				       sizeof(err)), 1);
	t_node(&x.w, HS_WL_COMP, 0, 70, "b0", NULL, 0);
	t_run(&x);
	ck_assert_uint_eq(x.start[0], 0);
	ck_assert_uint_eq(x.end[0], 100);
	ck_assert_uint_eq(x.start[1], 500);
	ck_assert_uint_eq(x.end[1], 570);
	ck_assert_uint_eq(x.start[2], 570);
	ck_assert_uint_eq(x.res.nb_iters, 3);
	ck_assert_uint_eq(x.res.iters[0].iter_ns, 100);
	ck_assert_uint_eq(x.res.iters[1].iter_ns, 70);	/* from 500 */
	ck_assert_uint_eq(x.res.iters[2].end_ns, 640);
	ck_assert_uint_eq(x.res.ranks[1].begin_ns, 500);
	t_free(&x);
}
END_TEST

/*
 * The k-th collective of a rank is the k-th its dependencies allow, not
 * the k-th in its list: rank 0 lists its second all-reduce (200 B,
 * after the first) before its first (100 B).
 */
START_TEST(test_collectives_in_dependency_order)
{
	const uint32_t pair[2] = { 0, 1 };
	struct t_wl x;
	uint32_t first;

	t_job(&x, 2, 2, 1);
	ck_assert_int_eq(hs_wl_add_comm(&x.w, pair, 2), 0);
	first = 1;
	t_coll(&x.w, 0, HS_COLL_ALLREDUCE, 0, 200, "second", &first, 1);
	t_coll(&x.w, 0, HS_COLL_ALLREDUCE, 0, 100, "first", NULL, 0);
	first = (uint32_t)t_coll(&x.w, 1, HS_COLL_ALLREDUCE, 0, 100, "first",
				 NULL, 0);
	t_coll(&x.w, 1, HS_COLL_ALLREDUCE, 0, 200, "second", &first, 1);
	t_run(&x);
	ck_assert_uint_eq(x.w.nb_ops, 2);
	ck_assert_uint_eq(x.w.ops[0].size, 100);
	ck_assert_uint_eq(x.w.member_node[x.w.ops[0].member_first], 1);
	ck_assert_uint_eq(x.w.ops[1].size, 200);
	ck_assert_uint_eq(x.w.member_node[x.w.ops[1].member_first], 0);
	/* Each rank's second waits for its first. */
	ck_assert_uint_ge(x.start[0], x.end[1]);
	t_free(&x);
}
END_TEST

START_TEST(test_busbw_factors)
{
	/* nccl-tests: all-reduce 2(n-1)/n, the others (n-1)/n. */
	ck_assert(hs_wl_busbw_factor(HS_WL_COLL, HS_COLL_ALLREDUCE, 8) ==
		  2.0 * 7 / 8);
	ck_assert(hs_wl_busbw_factor(HS_WL_COLL, HS_COLL_ALLGATHER, 8) ==
		  7.0 / 8);
	ck_assert(hs_wl_busbw_factor(HS_WL_COLL, HS_COLL_REDUCE_SCATTER, 4) ==
		  3.0 / 4);
	ck_assert(hs_wl_busbw_factor(HS_WL_COLL, HS_COLL_ALLTOALL, 4) ==
		  3.0 / 4);
	ck_assert(hs_wl_busbw_factor(HS_WL_SEND, 0, 2) == 1.0);
}
END_TEST

/* Build x and expect an error containing what. */
static void
t_expect_error(struct t_wl *x, const char *what)
{
	char err[512] = "";

	ck_assert_int_eq(hs_wl_build(&x->w, &x->t, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, what) != NULL, "'%s' lacks '%s'", err,
		      what);
	hs_traffic_free(&x->t);
	hs_wl_free(&x->w);
}

START_TEST(test_bad_jobs)
{
	const uint32_t ring[2] = { 0, 1 }, two[2] = { 0, 0 };
	struct t_wl x;
	uint32_t a, b, d;
	char err[256];

	/* A cycle: a waits for b, b for a (b's index is 1). */
	t_job(&x, 2, 1, 1);
	d = 1;
	a = (uint32_t)t_node(&x.w, HS_WL_COMP, 0, 1, "a", &d, 1);
	t_node(&x.w, HS_WL_COMP, 0, 1, "b", &a, 1);
	t_expect_error(&x, "job: node a (rank 0): lies on a dependency cycle");

	/* A cycle behind a node that only waits for it: the cycle's node
	 * is named, not the waiting one. */
	t_job(&x, 2, 1, 1);
	d = 1;
	t_node(&x.w, HS_WL_COMP, 0, 1, "waits", &d, 1);
	d = 2;
	a = (uint32_t)t_node(&x.w, HS_WL_COMP, 0, 1, "a", &d, 1);
	t_node(&x.w, HS_WL_COMP, 0, 1, "b", &a, 1);
	t_expect_error(&x, "job: node a (rank 0): lies on a dependency cycle");

	/*
	 * Ranks that wait on each other in a circle: each receives before
	 * it sends.  Every rank's DAG is fine; together they never end.
	 */
	t_job(&x, 2, 2, 1);
	a = (uint32_t)t_p2p(&x.w, HS_WL_RECV, 0, 1, 100, "r0", NULL, 0);
	t_p2p(&x.w, HS_WL_SEND, 0, 1, 100, "s0", &a, 1);
	b = (uint32_t)t_p2p(&x.w, HS_WL_RECV, 1, 0, 100, "r1", NULL, 0);
	t_p2p(&x.w, HS_WL_SEND, 1, 0, 100, "s1", &b, 1);
	t_expect_error(&x, "job: node r0 (rank 0): iteration 0 never ends: its ranks wait on each other in a circle");

	/* Two communicators' collectives in opposite orders. */
	t_job(&x, 2, 2, 1);
	{
		const uint32_t both[2] = { 0, 1 };
		int c0 = hs_wl_add_comm(&x.w, both, 2);
		int c1 = hs_wl_add_comm(&x.w, both, 2);

		a = (uint32_t)t_coll(&x.w, 0, HS_COLL_ALLREDUCE,
				     (uint32_t)c0, 4096, "x", NULL, 0);
		t_coll(&x.w, 0, HS_COLL_ALLREDUCE, (uint32_t)c1, 4096, "y",
		       &a, 1);
		b = (uint32_t)t_coll(&x.w, 1, HS_COLL_ALLREDUCE,
				     (uint32_t)c1, 4096, "y", NULL, 0);
		t_coll(&x.w, 1, HS_COLL_ALLREDUCE, (uint32_t)c0, 4096, "x",
		       &b, 1);
	}
	t_expect_error(&x, "never ends: its ranks wait on each other in a circle");

	/* A job without nodes; more nodes than the indexes hold. */
	t_job(&x, 2, 1, 1);
	t_expect_error(&x, "job: no nodes; expected at least one");
	t_job(&x, 2, 1, 0x80000000u);
	t_node(&x.w, HS_WL_COMP, 0, 1, "a", NULL, 0);
	t_node(&x.w, HS_WL_COMP, 0, 1, "b", NULL, 0);
	t_expect_error(&x, "job: 2 nodes x 2147483648 iterations");

	/* A dependency on another rank. */
	t_job(&x, 2, 2, 1);
	a = (uint32_t)t_node(&x.w, HS_WL_COMP, 0, 1, "a", NULL, 0);
	t_node(&x.w, HS_WL_COMP, 1, 1, "b", &a, 1);
	t_expect_error(&x, "node b (rank 1): depends on a of rank 0");

	/* A rank beyond the job, a peer beyond it. */
	t_job(&x, 2, 2, 1);
	t_node(&x.w, HS_WL_COMP, 5, 1, "far", NULL, 0);
	t_expect_error(&x, "node far (rank 5): rank 5; expected a rank below 2");
	t_job(&x, 2, 2, 1);
	t_p2p(&x.w, HS_WL_SEND, 0, 9, 10, "s", NULL, 0);
	t_expect_error(&x, "node s (rank 0): peer 9");

	/* A send without its receive; sizes that differ. */
	t_job(&x, 2, 2, 1);
	t_p2p(&x.w, HS_WL_SEND, 0, 1, 10, "lonely", NULL, 0);
	t_expect_error(&x, "node lonely (rank 0): send has no matching recv");
	t_job(&x, 2, 2, 1);
	t_p2p(&x.w, HS_WL_SEND, 0, 1, 10, "s", NULL, 0);
	t_p2p(&x.w, HS_WL_RECV, 1, 0, 11, "r", NULL, 0);
	t_expect_error(&x, "node r (rank 1): receives 11 bytes, its send (s) 10");

	/* A collective the members disagree on, or a member lacks. */
	t_job(&x, 2, 2, 1);
	hs_wl_add_comm(&x.w, ring, 2);
	t_coll(&x.w, 0, HS_COLL_ALLREDUCE, 0, 10, "g0", NULL, 0);
	t_coll(&x.w, 1, HS_COLL_ALLGATHER, 0, 10, "g1", NULL, 0);
	t_expect_error(&x, "node g1 (rank 1): collective 0 of communicator 0 is all_gather");
	t_job(&x, 2, 2, 1);
	hs_wl_add_comm(&x.w, ring, 2);
	t_coll(&x.w, 0, HS_COLL_ALLREDUCE, 0, 10, "g0", NULL, 0);
	t_expect_error(&x, "has no node at its member rank 1");

	/* An unknown collective. */
	t_job(&x, 2, 2, 1);
	hs_wl_add_comm(&x.w, ring, 2);
	t_coll(&x.w, 0, 17, 0, 10, "odd", NULL, 0);
	t_expect_error(&x, "node odd (rank 0): unknown collective 17");

	/* Two ranks on one host; a host in two jobs. */
	hs_wl_init(&x.w, 4);
	ck_assert_int_eq(hs_wl_add_job(&x.w, "j", 2, two, 1, 0, err,
				       sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "ranks 0 and 1 are both placed on host 0") !=
		      NULL, "%s", err);
	ck_assert_int_eq(hs_wl_add_job(&x.w, "j", 2, ring, 1, 0, err,
				       sizeof(err)), 0);
	ck_assert_int_eq(hs_wl_add_job(&x.w, "k", 1, &ring[1], 1, 0, err,
				       sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "k: rank 0 is placed on host 1, which job j's rank 1 has") !=
		      NULL, "%s", err);
	hs_wl_free(&x.w);
	(void)b;
}
END_TEST

static Suite *
workload_suite(void)
{
	Suite *s = suite_create("workload");
	TCase *tc = tcase_create("workload");

	tcase_add_test(tc, test_compute_delays_dependants);
	tcase_add_test(tc, test_iterations_chain_per_rank);
	tcase_add_test(tc, test_wait_within_the_iteration);
	tcase_add_test(tc, test_rank_computes_one_at_a_time);
	tcase_add_test(tc, test_collective_ends_with_its_last_flow);
	tcase_add_test(tc, test_job_start_time);
	tcase_add_test(tc, test_collectives_in_dependency_order);
	tcase_add_test(tc, test_busbw_factors);
	tcase_add_test(tc, test_bad_jobs);
	suite_add_tcase(s, tc);
	/* The job-shape contract, the built-in shapes (chakra's in
	 * test_chakra.c, on traces it writes). */
	suite_add_tcase(s, job_shape_conformance_tcase(
			   hs_job_shape_find("dense"),
			   "dp = 2\ntp = 2\npp = 2\nlayers = 2\nhidden = 64\n"
			   "seq_len = 32\nmicro_batches = 2\n"));
	suite_add_tcase(s, job_shape_conformance_tcase(
			   hs_job_shape_find("moe"),
			   "dp = 2\ntp = 1\npp = 2\nep = 2\nexperts = 4\n"
			   "layers = 2\nhidden = 64\nseq_len = 32\n"));
	return s;
}

int
main(void)
{
	return t_run_suite(workload_suite());
}
