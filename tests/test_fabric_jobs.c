/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Training jobs on a fabric ([traffic] pattern = jobs): on one link with
 * nothing else on it, every node of a job ends when the link model (the
 * flow's arrival and its last ACK, to the ns) and the compute durations
 * say, iteration after iteration; two jobs in different pods do not
 * touch each other, two jobs sharing uplinks do; and the files a job
 * writes are the same on one thread and two.
 */
#include "fabric_t.h"
#include "hs_chakra.h"
#include "hs_workload.h"

/* The compute of the link job: before the send, after it, after the recv. */
#define T_A_NS 5000
#define T_B_NS 3000
#define T_C_NS 1000

/*
 * Write the link job's trace into dir/link: rank 0 computes A, sends size
 * bytes to rank 1, computes B; rank 1 receives them and computes C.
 */
static void
t_link_job_trace(const char *dir, uint64_t size, char *prefix, size_t psize)
{
	const uint32_t hosts[2] = { 0, 1 };
	struct hs_wl_node comp = { .kind = HS_WL_COMP };
	struct hs_wl_node send = { .kind = HS_WL_SEND, .rank = 0, .peer = 1,
				   .size = size };
	struct hs_wl_node recv = { .kind = HS_WL_RECV, .rank = 1, .peer = 0,
				   .size = size };
	struct hs_workload w;
	char err[256] = "";
	uint32_t a, s, r;

	snprintf(prefix, psize, "%.*s/link", (int)(psize - 6), dir);
	hs_wl_init(&w, 2);
	ck_assert_int_eq(hs_wl_add_job(&w, "link", 2, hosts, 1, 0, err,
				       sizeof(err)), 0);
	comp.rank = 0;
	comp.dur_ns = T_A_NS;
	a = (uint32_t)hs_wl_add_node(&w, &comp, "a", NULL, 0);
	s = (uint32_t)hs_wl_add_node(&w, &send, "send", &a, 1);
	comp.dur_ns = T_B_NS;
	hs_wl_add_node(&w, &comp, "b", &s, 1);
	r = (uint32_t)hs_wl_add_node(&w, &recv, "recv", NULL, 0);
	comp.rank = 1;
	comp.dur_ns = T_C_NS;
	hs_wl_add_node(&w, &comp, "c", &r, 1);
	ck_assert_msg(hs_chakra_write(&w, 0, prefix, err, sizeof(err)) == 0,
		      "%s", err);
	hs_wl_free(&w);
}

/*
 * b2b.ini's link (8G, 1 us) and its one direction with data, rank 1 ->
 * rank 0: the job's rank 0 on host 1.  The send's arrival and last ACK
 * are the link model's T_rx and T_tx after its release; nothing else is
 * on the wire (the previous iteration's ACKs are back before the next
 * send), so every node's time follows, to the ns.
 */
START_TEST(test_job_on_a_link)
{
	const struct t_link_case *c = &(const struct t_link_case){
		"8G", 8000000000ull, 4096, 10 * 4056 + 2 };
	char dir[T_PATH_SIZE], prefix[T_PATH_SIZE], ov[3][T_PATH_SIZE + 32];
	const char *ovp[9];
	const struct hs_wl_node_result *n;
	struct t_link_model m;
	struct t_exp e;
	struct fab_run r;
	uint64_t e0, f0, e1, f1;
	int k = 0;

	t_mkdtemp(dir);
	t_link_job_trace(dir, c->size, prefix, sizeof(prefix));
	snprintf(ov[0], sizeof(ov[0]), "job.link.trace=%s", prefix);
	snprintf(ov[1], sizeof(ov[1]), "fabric.rate=%s", c->rate);
	snprintf(ov[2], sizeof(ov[2]), "fabric.mtu=%u", c->mtu);
	ovp[k++] = ov[0];
	ovp[k++] = ov[1];
	ovp[k++] = ov[2];
	ovp[k++] = "traffic.pattern=jobs";
	ovp[k++] = "job.link.model=chakra";
	ovp[k++] = "job.link.ranks=2";
	ovp[k++] = "job.link.placement=list";
	ovp[k++] = "job.link.hosts=1,0";
	ovp[k++] = "job.link.iterations=2";
	t_load(&e, "b2b.ini", ovp, k, false, 0);
	t_link_model(c, e.x.combos[0].delay_ns, &m);
	t_fabric_run(&e.x.combos[0], 0, &r);
	t_check_conserved(&r, "link job");
	ck_assert(r.completed);
	ck_assert_uint_eq(r.nb_flows, 2);
	ck_assert_uint_eq(r.jobs.nb_nodes, 10);
	n = r.jobs.nodes;
	/* Iteration 0. */
	ck_assert_uint_eq(n[0].end_ns, T_A_NS);
	ck_assert_uint_eq(n[1].end_ns, T_A_NS + m.t_tx);
	e0 = T_A_NS + m.t_tx + T_B_NS;
	ck_assert_uint_eq(n[2].end_ns, e0);
	ck_assert_uint_eq(n[3].end_ns, T_A_NS + m.t_rx);
	f0 = T_A_NS + m.t_rx + T_C_NS;
	ck_assert_uint_eq(n[4].end_ns, f0);
	/* Iteration 1: rank 0 from e0; rank 1's recv waits for the data. */
	ck_assert_uint_eq(n[5].start_ns, e0);
	e1 = e0 + T_A_NS + m.t_tx + T_B_NS;
	ck_assert_uint_eq(n[7].end_ns, e1);
	ck_assert_uint_eq(n[8].start_ns, f0);
	f1 = e0 + T_A_NS + m.t_rx + T_C_NS;
	ck_assert_uint_eq(n[9].end_ns, f1);
	/* The job's iterations: the later rank's end, then the difference. */
	ck_assert_uint_eq(r.jobs.nb_iters, 2);
	ck_assert_uint_eq(r.jobs.iters[0].iter_ns, RTE_MAX(e0, f0));
	ck_assert_uint_eq(r.jobs.iters[1].iter_ns,
			  RTE_MAX(e1, f1) - RTE_MAX(e0, f0));
	ck_assert_uint_eq(r.jobs.iters[0].compute_ns, T_A_NS + T_B_NS);
	/* Rank 1 waits, of the iteration, for everything but C. */
	ck_assert_uint_eq(r.jobs.ranks[1].wait_ns,
			  RTE_MAX(e0, f0) - T_C_NS);
	ck_assert_uint_le(r.jobs.iters[0].wait_max_ns,
			  r.jobs.iters[0].iter_ns);
	ck_assert_uint_le(r.jobs.iters[1].wait_max_ns,
			  r.jobs.iters[1].iter_ns);
	/* The run ends with the job's last node. */
	ck_assert_uint_eq(r.sim_ns, RTE_MAX(e1, f1));
	ck_assert_uint_eq(r.nb_jobs, 1);
	fab_run_free(&r);
	fab_experiment_free(&e.x);
	t_rm(prefix);
}
END_TEST

/* A data-parallel job of 4 ranks on the hosts listed, named name. */
static int
t_dp_job(const char **ov, int k, const char *name, const char *hosts,
	 char buf[][96])
{
	snprintf(buf[0], 96, "job.%s.dp=4", name);
	snprintf(buf[1], 96, "job.%s.layers=2", name);
	snprintf(buf[2], 96, "job.%s.hidden=256", name);
	snprintf(buf[3], 96, "job.%s.seq_len=128", name);
	snprintf(buf[4], 96, "job.%s.iterations=2", name);
	snprintf(buf[5], 96, "job.%s.placement=list", name);
	snprintf(buf[6], 96, "job.%s.hosts=%s", name, hosts);
	for (int i = 0; i < 7; i++)
		ov[k++] = buf[i];
	return k;
}

/* Job a's iteration times with the jobs of ov (k = 4, ecmp). */
static void
t_job_a_iters(const char **ov, int k, uint64_t iters[2])
{
	struct fab_run r;

	ov[k++] = "traffic.pattern=jobs";
	ov[k++] = "fabric.schemes=ecmp";
	t_run_file("permutation-k4.ini", ov, k, "ecmp", &r, true);
	ck_assert(r.completed);
	ck_assert_uint_eq(r.jobs.iters[0].job, 0);
	iters[0] = r.jobs.iters[0].iter_ns;
	iters[1] = r.jobs.iters[1].iter_ns;
	ck_assert_uint_gt(iters[0], 0);
	fab_run_free(&r);
}

/*
 * Pod 0 is hosts 0-3, pod 1 hosts 4-7: job a in pod 0 runs the same with
 * job b in pod 1 as alone (no link in common).  Spread one host a pod,
 * a's ring crosses the cores, and b beside it on the same ToRs (hosts
 * 1, 5, 9, 13) shares a's uplinks: a slows down.
 */
START_TEST(test_jobs_share_only_their_links)
{
	char a[7][96], b[7][96];
	const char *ov[20];
	uint64_t alone[2], beside[2], spread[2], shared[2];
	int k;

	k = t_dp_job(ov, 0, "a", "0,1,2,3", a);
	t_job_a_iters(ov, k, alone);
	k = t_dp_job(ov, 0, "a", "0,1,2,3", a);
	k = t_dp_job(ov, k, "b", "4,5,6,7", b);
	t_job_a_iters(ov, k, beside);
	ck_assert_uint_eq(beside[0], alone[0]);
	ck_assert_uint_eq(beside[1], alone[1]);

	k = t_dp_job(ov, 0, "a", "0,4,8,12", a);
	t_job_a_iters(ov, k, spread);
	k = t_dp_job(ov, 0, "a", "0,4,8,12", a);
	k = t_dp_job(ov, k, "b", "1,5,9,13", b);
	t_job_a_iters(ov, k, shared);
	ck_assert_msg(shared[0] + shared[1] > spread[0] + spread[1],
		      "a spread: %" PRIu64 " + %" PRIu64 " ns alone, %"
		      PRIu64 " + %" PRIu64 " ns beside b", spread[0],
		      spread[1], shared[0], shared[1]);
}
END_TEST

/* The job files of a run on one thread and on two are the same. */
START_TEST(test_jobs_two_threads)
{
	static const char *const files[] = {
		"jobs.csv", "job-ops.csv", "job-ranks.csv", "job-nodes.csv",
		"summary.json", "runs.csv", "flows.csv", "queues.csv",
	};
	const char *ov[12] = {
		"traffic.pattern=jobs", "fabric.schemes=ecmp, ofan",
		"job.t.dp=2", "job.t.tp=2", "job.t.pp=2", "job.t.layers=2",
		"job.t.hidden=256", "job.t.seq_len=64", "job.t.micro_batches=2",
		"job.t.placement=spread", NULL, NULL,
	};
	char dir[2][T_PATH_SIZE];
	struct t_exp e[2];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		ov[10] = i == 0 ? "fabric.threads=1" : "fabric.threads=2";
		t_mkdtemp(dir[i]);
		t_load(&e[i], "permutation-k4.ini", ov, 11, false, 0);
		t_out_all(&e[i], dir[i]);
	}
	for (i = 0; i < RTE_DIM(files); i++)
		ck_assert_msg(t_same_file(dir[0], dir[1], files[i]),
			      "%s differs between 1 and 2 threads", files[i]);
	fab_experiment_free(&e[0].x);
	fab_experiment_free(&e[1].x);
}
END_TEST

void
t_fabric_jobs_tests(TCase *tc)
{
	tcase_add_test(tc, test_job_on_a_link);
	tcase_add_test(tc, test_jobs_share_only_their_links);
	tcase_add_test(tc, test_jobs_two_threads);
}
