/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Training jobs: a workload engine shared by ofan-fabric and ofan-host.
 *
 * A job is a DAG per rank of nodes:
 *   - COMP: a compute node; it holds its rank for its duration (a rank
 *     computes one node at a time, in the order its nodes became ready);
 *   - COLL: this rank's part of a collective (all-reduce, reduce-scatter,
 *     all-gather, all-to-all) over a communicator: the k-th COLL node of a
 *     communicator at every member is one collective;
 *   - SEND / RECV: point to point; the k-th SEND from a to b with a tag
 *     matches the k-th RECV at b from a with that tag.
 * A node's dependencies are nodes of its own rank (ranks meet only
 * through communication).  A node starts once its dependencies ended.
 *
 * Collectives expand into flows through the traffic patterns (hs_pattern.h:
 * ring_allreduce, reduce_scatter, allgather, alltoall) over the
 * communicator's ranks; a SEND/RECV pair is one flow.  Every flow of a
 * workload is external (hs_flow_spec.wl_op): a host holds it until the
 * engine releases it and reports both of its ends.  A flow is released
 * once its sender's node has started and, for a ring step, once the
 * chunk it forwards has arrived.  A rank's COLL node ends when its own
 * flows are acknowledged and the flows to it received; a SEND when its
 * flow is acknowledged, a RECV when its flow has arrived.
 *
 * Iterations: the node list is unrolled (a node per iteration); the
 * first nodes of iteration k + 1 at a rank wait for every node of
 * iteration k at that rank.
 *
 * The engine runs against a driver: whoever moves the flows (the fabric
 * in virtual time, ofan-host on ports, or hs_wl_ideal(): every flow in its
 * ideal time, for the slowdown's reference and the tests).
 *
 * Pure C, no EAL.
 */
#ifndef OFAN_HS_WORKLOAD_H
#define OFAN_HS_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hs_traffic;

#define HS_WL_NONE UINT32_MAX

enum hs_wl_kind { HS_WL_COMP = 0, HS_WL_COLL, HS_WL_SEND, HS_WL_RECV,
		  HS_WL_KIND_NB };
extern const char *const hs_wl_kind_names[];

enum hs_wl_coll { HS_COLL_ALLREDUCE = 0, HS_COLL_REDUCE_SCATTER,
		  HS_COLL_ALLGATHER, HS_COLL_ALLTOALL, HS_COLL_NB };
/* all_reduce, reduce_scatter, all_gather, all_to_all (NULL ended). */
extern const char *const hs_wl_coll_names[];

/* One node of one iteration. */
struct hs_wl_node {
	uint32_t job;
	uint32_t rank;		/* in the job */
	uint32_t iteration;
	uint8_t kind;		/* enum hs_wl_kind */
	uint8_t coll;		/* COLL: enum hs_wl_coll */
	uint64_t dur_ns;	/* COMP */
	uint64_t size;		/* COLL: nccl-tests' size; SEND/RECV: bytes */
	uint32_t comm;		/* COLL: communicator (in the job) */
	uint32_t peer;		/* SEND: destination; RECV: source (job ranks) */
	uint32_t tag;		/* SEND/RECV */
	uint32_t op;		/* COLL/SEND/RECV: its operation, once built */
	uint32_t name;		/* offset in hs_workload.names */
	uint32_t dep_first, nb_deps;	/* deps[dep_first ..) */
	uint32_t kid_first, nb_kids;	/* kids[kid_first ..): who waits */
};

/* A collective or a send/recv pair of one iteration. */
struct hs_wl_op {
	uint32_t job, iteration;
	uint8_t kind;		/* HS_WL_COLL or HS_WL_SEND */
	uint8_t coll;
	uint64_t size;
	uint32_t name;		/* its first node's name */
	uint32_t member_first, nb_members;	/* members[], member_node[] */
	uint32_t flow_first, nb_flows;		/* the traffic's flows */
};

/* A communicator: job ranks, in ring order. */
struct hs_wl_comm {
	uint32_t first, nb;	/* comm_ranks[first ..) */
};

struct hs_wl_job {
	char name[32];
	uint32_t nb_ranks;
	uint32_t iterations;
	uint64_t start_ns;
	uint32_t *host;		/* job rank -> traffic rank (a host) */
	uint32_t node_first, nb_nodes;	/* its nodes, every iteration */
	uint32_t comm_first, nb_comms;	/* hs_workload.comms */
	/* One iteration's nodes (indexes in it) in dependency order, the
	 * lowest ready first: the order operations are matched in. */
	uint32_t *order;
};

/* Per traffic flow: what the engine knows of it. */
struct hs_wl_flow {
	uint32_t op;
	uint32_t src_node, dst_node;	/* the nodes at its two ends */
	uint32_t dep;		/* flow whose arrival it forwards, or NONE */
};

struct hs_workload {
	uint32_t nb_hosts;	/* traffic ranks */
	uint32_t nb_jobs;
	struct hs_wl_job *jobs;
	uint32_t nb_nodes, cap_nodes;
	struct hs_wl_node *nodes;
	uint32_t nb_deps, cap_deps;
	uint32_t *deps;
	uint32_t *kids;		/* nb_deps entries, once built */
	uint32_t nb_comms, cap_comms;
	struct hs_wl_comm *comms;
	uint32_t nb_comm_ranks, cap_comm_ranks;
	uint32_t *comm_ranks;
	uint32_t nb_ops;
	struct hs_wl_op *ops;
	uint32_t *members;	/* job ranks of each op */
	uint32_t *member_node;	/* their nodes */
	uint32_t nb_flows;
	struct hs_wl_flow *flows;
	/* Per node, the flows it sends: out_flows[out_first[n] ..
	 * out_first[n + 1]); per flow, those forwarding it:
	 * fwd_flows[fwd_first[f] .. fwd_first[f + 1]). */
	uint32_t *out_first, *out_flows;
	uint32_t *fwd_first, *fwd_flows;
	char *names;
	size_t names_len, names_cap;
	/* Unmapped input, counted by kind for the report (Chakra). */
	uint32_t nb_unmapped;
	char unmapped[256];
};

/* ---- building ---- */

void hs_wl_init(struct hs_workload *w, uint32_t nb_hosts);
void hs_wl_free(struct hs_workload *w);

/*
 * Add a job of nb_ranks on hosts (copied; distinct traffic ranks below
 * nb_hosts, no host in two jobs), its nodes and communicators to follow.
 * Returns its index, or -EINVAL / -ENOMEM with a message in err.
 */
int hs_wl_add_job(struct hs_workload *w, const char *name, uint32_t nb_ranks,
		  const uint32_t *hosts, uint32_t iterations, uint64_t start_ns,
		  char *err, size_t err_size);

/* A communicator of the last job: its ranks in ring order.  Its index. */
int hs_wl_add_comm(struct hs_workload *w, const uint32_t *ranks, uint32_t nb);

/*
 * A node of the last job's first iteration, depending on the nb_deps
 * nodes deps (indexes returned by earlier calls, same rank).  n's job,
 * iteration and links are set here.  Returns its index or -ENOMEM.
 */
int hs_wl_add_node(struct hs_workload *w, const struct hs_wl_node *n,
		   const char *name, const uint32_t *deps, uint32_t nb_deps);

/*
 * Check every job and build: iterations unrolled, operations matched
 * (COLL by communicator and order, SEND with RECV), and t filled with
 * every flow (external, t->nb_ranks = nb_hosts).  Errors: "JOB: node
 * NAME (rank R): what; expected what" for a dependency cycle, a rank or
 * peer beyond the job, a dependency on another rank, a collective whose
 * members disagree (kind, size) or that a member lacks, a send without
 * its receive.  Returns 0, -EINVAL with err, or -ENOMEM.
 */
int hs_wl_build(struct hs_workload *w, struct hs_traffic *t, char *err,
		size_t err_size);

const char *hs_wl_name(const struct hs_workload *w, uint32_t node);

/* nccl-tests' bus bandwidth factor of a collective over n ranks. */
double hs_wl_busbw_factor(uint8_t kind, uint8_t coll, uint32_t n);

/* ---- running ---- */

/* Who moves the flows and keeps the time. */
struct hs_wl_driver {
	/* Start flow now (its sender's host holds it until then). */
	void (*release)(void *arg, uint32_t flow, uint64_t now);
	/* Call hs_wl_run_timer(host) at time at (one pending per host). */
	void (*timer)(void *arg, uint32_t host, uint64_t at);
	void *arg;
};

struct hs_wl_run {
	const struct hs_workload *w;
	struct hs_wl_driver drv;
	uint32_t *pending;	/* per node: dependencies not yet ended */
	uint32_t *left;		/* per node: flow ends it still waits for */
	uint8_t *state;		/* per node: waiting, ready, started, ended */
	uint64_t *start_ns, *end_ns;	/* per node */
	uint8_t *gate;		/* per flow: what it still waits for */
	/*
	 * Per host (its job rank): the COMP nodes ready to run, first come
	 * first served (cq[cq_first[h] + cq_head[h] .. + cq_tail[h]), room
	 * for every node of the rank), the node it computes (or NONE),
	 * whether its job started, and its nodes not yet ended.
	 */
	uint32_t *cq, *cq_first, *cq_head, *cq_tail;
	uint32_t *computing;
	uint8_t *host_started;
	uint32_t *nodes_left;
	uint32_t *job_of_host;	/* HS_WL_NONE: in no job */
	uint64_t t0;		/* the traffic start: times are from it */
	uint64_t last_now;	/* the latest time handed in */
};

int hs_wl_run_init(struct hs_wl_run *r, const struct hs_workload *w,
		   const struct hs_wl_driver *drv);
void hs_wl_run_fini(struct hs_wl_run *r);

/* The traffic starts at now: jobs starting now start. */
void hs_wl_run_start(struct hs_wl_run *r, uint64_t now);
/* A flow ended: received (its receiver has it all) or acknowledged. */
void hs_wl_run_flow_end(struct hs_wl_run *r, uint32_t flow, bool received,
			uint64_t now);
/* The timer of host fired (a compute node ended, or its job starts). */
void hs_wl_run_timer(struct hs_wl_run *r, uint32_t host, uint64_t now);
/* Every node of host's job rank has ended (true for a host in no job). */
bool hs_wl_run_host_done(const struct hs_wl_run *r, uint32_t host);

/*
 * The same workload with every flow taking its ideal time: received
 * recv_ns[f] after its release, acknowledged send_ns[f] after it.
 * Fills start_ns / end_ns per node (UINT64_MAX: never) and release[f]
 * per flow (UINT64_MAX: never).  0 or -ENOMEM.
 */
int hs_wl_ideal(const struct hs_workload *w, const uint64_t *send_ns,
		const uint64_t *recv_ns, uint64_t *start_ns, uint64_t *end_ns,
		uint64_t *release);

/* ---- results ---- */

/*
 * A node's name as a CSV field: its commas as semicolons, quotes and
 * line ends as blanks (Chakra names may hold any of them), so that the
 * columns stay where the header says (ofan-fabric's and ofan-host's job
 * files).
 */
void hs_wl_csv_name(FILE *f, const char *name);

/* One job's iteration. */
struct hs_wl_iter_result {
	uint32_t job, iteration;
	uint64_t end_ns;	/* since the traffic start; 0: not ended */
	uint64_t iter_ns;	/* end - the previous iteration's end */
	uint64_t ideal_ns;	/* the same on the ideal fabric */
	uint64_t compute_ns;	/* the most any rank computed */
	uint64_t wait_max_ns;	/* the most any rank waited (not computing) */
	uint64_t wait_mean_ns;
};

/* A name in the results (a node's, cut to fit). */
#define HS_WL_NAME_SIZE 48

/* One collective or send/recv of one iteration. */
struct hs_wl_op_result {
	uint32_t op;
	uint32_t job, iteration;
	uint8_t kind;			/* HS_WL_COLL or HS_WL_SEND */
	uint8_t coll;
	uint32_t nb_members;
	uint64_t size;
	char name[HS_WL_NAME_SIZE];	/* its first node's */
	uint64_t start_ns, end_ns;	/* first member start, last end */
	uint64_t ideal_ns;		/* its time on the ideal fabric */
	double algbw_gbps, busbw_gbps;	/* GB/s, nccl-tests: size / time */
};

/* One rank's iteration. */
struct hs_wl_rank_result {
	uint32_t job, rank, host, iteration;
	uint64_t begin_ns, end_ns;
	uint64_t compute_ns, wait_ns;
};

/* One node: the timeline of a rank. */
struct hs_wl_node_result {
	uint32_t job, rank, host, iteration;
	uint8_t kind;
	uint8_t coll;
	uint64_t start_ns, end_ns;	/* UINT64_MAX: never */
	char name[HS_WL_NAME_SIZE];
};

struct hs_wl_results {
	uint32_t nb_nodes;
	struct hs_wl_node_result *nodes;
	uint32_t nb_iters;
	struct hs_wl_iter_result *iters;
	uint32_t nb_ops;
	struct hs_wl_op_result *ops;
	uint32_t nb_ranks;
	struct hs_wl_rank_result *ranks;
};

/*
 * From a run's node times (start_ns / end_ns, UINT64_MAX where a node
 * did not start or end) and the ideal run's.  0 or -ENOMEM.
 */
int hs_wl_results(const struct hs_workload *w, const uint64_t *start_ns,
		  const uint64_t *end_ns, const uint64_t *ideal_start_ns,
		  const uint64_t *ideal_end_ns, struct hs_wl_results *res);
void hs_wl_results_free(struct hs_wl_results *res);

#endif /* OFAN_HS_WORKLOAD_H */
