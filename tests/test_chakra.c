/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Chakra execution traces (workload/hs_chakra.c): a job built from a few
 * numbers, written by ofan's writer and read back, is the same DAG and
 * expands into the same flows; ASTRA-sim's example traces read unchanged
 * and run; what is not mapped is reported, not dropped; broken traces
 * get an error naming the file (and the node).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "chakra_et.pb-c.h"
#include "hs_chakra.h"
#include "hs_job.h"
#include "hs_traffic.h"
#include "hs_workload.h"
#include "job_shape_conformance.h"
#include "unit_suite.h"

/* A small job of every kind of node: dp 2, tp 2, pp 2, 2 micro-batches. */
static void
t_small_job(struct hs_job_params *j, uint8_t model)
{
	hs_job_defaults(j);
	snprintf(j->name, sizeof(j->name), "small");
	j->model = model;
	j->dp = 2;
	j->tp = 2;
	j->pp = 2;
	j->ep = model == HS_JOB_MOE ? 2 : 1;
	j->experts = 4;
	j->layers = 2;
	j->hidden = 64;
	j->seq_len = 32;
	j->micro_batches = 2;
	j->grad_buckets = 2;
	j->iterations = 1;
}

/* A one-job workload from prefix's traces, on hosts 0 .. ranks - 1. */
static int
t_read(struct hs_workload *w, const char *prefix, uint32_t ranks, char *err,
       size_t err_size)
{
	uint32_t hosts[64], i;

	for (i = 0; i < ranks; i++)
		hosts[i] = i;
	hs_wl_init(w, ranks);
	ck_assert_int_eq(hs_wl_add_job(w, "trace", ranks, hosts, 1, 0, err,
				       err_size), 0);
	return hs_chakra_read(w, prefix, err, err_size);
}

static void
t_remove(const char *prefix, uint32_t ranks)
{
	char path[256];
	uint32_t r;

	for (r = 0; r < ranks; r++) {
		snprintf(path, sizeof(path), "%s.%u.et", prefix, r);
		unlink(path);
	}
}

static void
t_roundtrip(uint8_t model)
{
	struct hs_job_params j;
	struct hs_workload a, b;
	struct hs_traffic ta, tb;
	char err[512] = "", path[64];
	uint32_t i, k, nr;

	t_small_job(&j, model);
	nr = (uint32_t)hs_job_ranks(&j);
	ck_assert_int_eq(hs_job_workload(&j, 1, nr, 0, 1, &a, err,
					 sizeof(err)), 0);
	ck_assert_msg(hs_chakra_write(&a, 0, "small", err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_msg(t_read(&b, "small", nr, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_uint_eq(b.nb_unmapped, 0);
	ck_assert_uint_eq(a.nb_nodes, b.nb_nodes);
	for (i = 0; i < a.nb_nodes; i++) {
		const struct hs_wl_node *x = &a.nodes[i], *y = &b.nodes[i];

		ck_assert_str_eq(hs_wl_name(&a, i), hs_wl_name(&b, i));
		ck_assert_uint_eq(x->rank, y->rank);
		ck_assert_uint_eq(x->kind, y->kind);
		ck_assert_uint_eq(x->dur_ns, y->dur_ns);
		ck_assert_uint_eq(x->size, y->size);
		ck_assert_uint_eq(x->nb_deps, y->nb_deps);
		for (k = 0; k < x->nb_deps; k++)
			ck_assert_uint_eq(a.deps[x->dep_first + k],
					  b.deps[y->dep_first + k]);
		if (x->kind == HS_WL_COLL) {
			const struct hs_wl_comm *ca = &a.comms[x->comm];
			const struct hs_wl_comm *cb = &b.comms[y->comm];

			ck_assert_uint_eq(x->coll, y->coll);
			ck_assert_uint_eq(ca->nb, cb->nb);
			ck_assert_mem_eq(a.comm_ranks + ca->first,
					 b.comm_ranks + cb->first,
					 ca->nb * sizeof(uint32_t));
		}
		if (x->kind == HS_WL_SEND || x->kind == HS_WL_RECV) {
			ck_assert_uint_eq(x->peer, y->peer);
			ck_assert_uint_eq(x->tag, y->tag);
		}
	}
	/* The same flows. */
	ck_assert_int_eq(hs_wl_build(&a, &ta, err, sizeof(err)), 0);
	ck_assert_int_eq(hs_wl_build(&b, &tb, err, sizeof(err)), 0);
	ck_assert_uint_eq(ta.nb_flows, tb.nb_flows);
	ck_assert_uint_gt(ta.nb_flows, 0);
	for (i = 0; i < ta.nb_flows; i++) {
		ck_assert_uint_eq(ta.flows[i].src, tb.flows[i].src);
		ck_assert_uint_eq(ta.flows[i].dst, tb.flows[i].dst);
		ck_assert_uint_eq(ta.flows[i].size, tb.flows[i].size);
	}
	hs_traffic_free(&ta);
	hs_traffic_free(&tb);
	hs_wl_free(&a);
	hs_wl_free(&b);
	/*
	 * The writer describes the communicators: without its last file,
	 * the trace read as one rank fewer is refused by its groups.
	 */
	snprintf(path, sizeof(path), "small.%u.et", nr - 1);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(t_read(&b, "small", nr - 1, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "process group 'comm") != NULL, "%s", err);
	hs_wl_free(&b);
	t_remove("small", nr);
}

START_TEST(test_roundtrip_dense)
{
	t_roundtrip(HS_JOB_DENSE);
}
END_TEST

START_TEST(test_roundtrip_moe)
{
	t_roundtrip(HS_JOB_MOE);
}
END_TEST

/* ASTRA-sim's traces: one collective of 1 MiB a rank. */
static const struct {
	const char *dir, *name;
	uint32_t ranks;
	uint8_t coll;
	uint32_t flows;		/* the pattern's */
	uint64_t flow_size;
} t_astra[] = {
	{ "all_reduce/4npus_1MB", "all_reduce", 4, HS_COLL_ALLREDUCE,
	  2 * 3 * 4, 1u << 18 },
	{ "all_gather/8npus_1MB", "all_gather", 8, HS_COLL_ALLGATHER,
	  7 * 8, 1u << 17 },
	{ "reduce_scatter/4npus_1MB", "reduce_scatter", 4,
	  HS_COLL_REDUCE_SCATTER, 3 * 4, 1u << 18 },
	{ "all_to_all/4npus_1MB", "all_to_all", 4, HS_COLL_ALLTOALL,
	  3 * 4, 1u << 18 },
	{ "all_to_all/16npus_1MB", "all_to_all", 16, HS_COLL_ALLTOALL,
	  15 * 16, 1u << 16 },
};

START_TEST(test_astra_sim_traces)
{
	const char *data = getenv("OFAN_TEST_DATA");
	char prefix[512], err[512] = "";
	struct hs_workload w;
	struct hs_traffic t;
	uint64_t *ns, *start, *end, *rel;
	uint32_t r, f;

	ck_assert_ptr_nonnull(data);
	snprintf(prefix, sizeof(prefix), "%s/chakra/astra-sim/%s/%s", data,
		 t_astra[_i].dir, t_astra[_i].name);
	ck_assert_msg(t_read(&w, prefix, t_astra[_i].ranks, err,
			     sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(w.nb_unmapped, 0);
	ck_assert_uint_eq(w.nb_nodes, t_astra[_i].ranks);
	for (r = 0; r < w.nb_nodes; r++) {
		ck_assert_uint_eq(w.nodes[r].kind, HS_WL_COLL);
		ck_assert_uint_eq(w.nodes[r].coll, t_astra[_i].coll);
		ck_assert_uint_eq(w.nodes[r].size, 1u << 20);
		/* No pg_name: every rank. */
		ck_assert_uint_eq(w.comms[w.nodes[r].comm].nb,
				  t_astra[_i].ranks);
	}
	ck_assert_int_eq(hs_wl_build(&w, &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(w.nb_ops, 1);
	ck_assert_uint_eq(t.nb_flows, t_astra[_i].flows);
	for (f = 0; f < t.nb_flows; f++)
		ck_assert_uint_eq(t.flows[f].size, t_astra[_i].flow_size);
	/* It runs: every rank's part ends. */
	ns = calloc(t.nb_flows, sizeof(*ns));
	rel = calloc(t.nb_flows, sizeof(*rel));
	start = calloc(w.nb_nodes, sizeof(*start));
	end = calloc(w.nb_nodes, sizeof(*end));
	ck_assert(ns && rel && start && end);
	for (f = 0; f < t.nb_flows; f++)
		ns[f] = 100;
	ck_assert_int_eq(hs_wl_ideal(&w, ns, ns, start, end, rel), 0);
	for (r = 0; r < w.nb_nodes; r++)
		ck_assert_uint_ne(end[r], UINT64_MAX);
	free(ns);
	free(rel);
	free(start);
	free(end);
	hs_traffic_free(&t);
	hs_wl_free(&w);
}
END_TEST

/*
 * Write one rank's trace of nodes n[0 .. nb): a GlobalMetadata first,
 * with a process_groups attribute of groups when that is not NULL.
 */
static void
t_write_trace_groups(const char *path, ChakraProtoMsg__Node **n, size_t nb,
		     const char *groups)
{
	ChakraProtoMsg__GlobalMetadata g = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
	ChakraProtoMsg__AttributeProto a, *ap = &a;
	const ProtobufCMessage *m;
	FILE *fp = fopen(path, "wb");
	size_t i;

	ck_assert_ptr_nonnull(fp);
	g.version = (char *)"0.0.4";
	if (groups != NULL) {
		chakra_proto_msg__attribute_proto__init(&a);
		a.name = (char *)"process_groups";
		a.value_case =
			CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
		a.string_val = (char *)groups;
		g.n_attr = 1;
		g.attr = &ap;
	}
	for (i = 0; i <= nb; i++) {
		uint8_t buf[4096], head[2];
		size_t len, h;

		m = i == 0 ? &g.base : &n[i - 1]->base;
		len = protobuf_c_message_get_packed_size(m);
		ck_assert_uint_lt(len, sizeof(buf));
		protobuf_c_message_pack(m, buf);
		/* Its length as a varint of one or two bytes. */
		head[0] = (uint8_t)((len & 0x7f) | (len > 0x7f ? 0x80 : 0));
		head[1] = (uint8_t)(len >> 7);
		h = len > 0x7f ? 2 : 1;
		ck_assert_uint_eq(fwrite(head, 1, h, fp), h);
		ck_assert_uint_eq(fwrite(buf, 1, len, fp), len);
	}
	fclose(fp);
}

static void
t_write_trace(const char *path, ChakraProtoMsg__Node **n, size_t nb)
{
	t_write_trace_groups(path, n, nb, NULL);
}

static void
t_attr(ChakraProtoMsg__AttributeProto *a, const char *name, int64_t v)
{
	chakra_proto_msg__attribute_proto__init(a);
	a->name = (char *)name;
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	a->int64_val = v;
}

START_TEST(test_unmapped_reported)
{
	ChakraProtoMsg__Node meta = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__Node bcast = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__Node comp = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__Node *nodes[3] = { &meta, &bcast, &comp };
	ChakraProtoMsg__AttributeProto a[2], *ap[2] = { &a[0], &a[1] };
	uint64_t deps[2] = { 7, 8 };
	struct hs_workload w;
	char err[512] = "";

	meta.id = 7;
	meta.name = (char *)"meta";
	meta.type = CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE;
	bcast.id = 8;
	bcast.name = (char *)"bcast";
	bcast.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
	t_attr(&a[0], "comm_type",
	       CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BROADCAST);
	t_attr(&a[1], "comm_size", 4096);
	bcast.n_attr = 2;
	bcast.attr = ap;
	comp.id = 9;
	comp.name = (char *)"comp";
	comp.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
	comp.duration_micros = 3;
	comp.n_ctrl_deps = 1;
	comp.ctrl_deps = &deps[0];
	comp.n_data_deps = 1;
	comp.data_deps = &deps[1];
	t_write_trace("odd.0.et", nodes, 3);
	ck_assert_msg(t_read(&w, "odd", 1, err, sizeof(err)) == 0, "%s", err);
	unlink("odd.0.et");
	/* Kept as steps of no time, with their dependencies, and said. */
	ck_assert_uint_eq(w.nb_nodes, 3);
	ck_assert_uint_eq(w.nodes[0].kind, HS_WL_COMP);
	ck_assert_uint_eq(w.nodes[0].dur_ns, 0);
	ck_assert_uint_eq(w.nodes[1].dur_ns, 0);
	ck_assert_uint_eq(w.nodes[2].dur_ns, 3000);
	ck_assert_uint_eq(w.nodes[2].nb_deps, 2);
	ck_assert_uint_eq(w.nb_unmapped, 2);
	ck_assert_msg(strcmp(w.unmapped,
			     "1 METADATA_NODE, 1 BROADCAST collective") == 0,
		      "%s", w.unmapped);
	hs_wl_free(&w);
}
END_TEST

START_TEST(test_bad_traces)
{
	ChakraProtoMsg__Node x = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__Node y = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__Node *nodes[2] = { &x, &y };
	ChakraProtoMsg__AttributeProto a, *ap = &a;
	uint64_t dep = 99;
	struct hs_workload w;
	char err[512];
	FILE *fp;

	/* Missing files: the first that is missing is named. */
	x.id = 1;
	x.name = (char *)"x";
	x.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
	t_write_trace("two.0.et", nodes, 1);
	ck_assert_int_eq(t_read(&w, "two", 2, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "two.1.et: No such file") != NULL, "%s",
		      err);
	hs_wl_free(&w);

	/* Garbage that does not parse. */
	fp = fopen("two.1.et", "wb");
	ck_assert_ptr_nonnull(fp);
	fputs("\x05not a protobuf message at all", fp);
	fclose(fp);
	ck_assert_int_eq(t_read(&w, "two", 2, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "two.1.et: byte 0:") != NULL, "%s", err);
	hs_wl_free(&w);
	unlink("two.1.et");

	/* A dependency on a node the file lacks. */
	x.n_data_deps = 1;
	x.data_deps = &dep;
	t_write_trace("bad.0.et", nodes, 1);
	ck_assert_int_eq(t_read(&w, "bad", 1, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "bad.0.et: node 1 (x): depends on node 99, which the file lacks") !=
		      NULL, "%s", err);
	hs_wl_free(&w);

	/* Two nodes with one id. */
	x.n_data_deps = 0;
	y.id = 1;
	y.name = (char *)"y";
	y.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
	t_write_trace("bad.0.et", nodes, 2);
	ck_assert_int_eq(t_read(&w, "bad", 1, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "node 1 (y): its id is also node 0's") !=
		      NULL, "%s", err);
	hs_wl_free(&w);

	/* A collective without its size. */
	x.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
	t_attr(&a, "comm_type", CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE);
	x.n_attr = 1;
	x.attr = &ap;
	t_write_trace("bad.0.et", nodes, 1);
	ck_assert_int_eq(t_read(&w, "bad", 1, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "node 1 (x): a COMM_COLL_NODE without a comm_size") !=
		      NULL, "%s", err);
	hs_wl_free(&w);
	unlink("bad.0.et");
	unlink("two.0.et");
}
END_TEST

/* Rank r's file of a 4-rank trace: an all-reduce over pg_name pg. */
static void
t_write_coll(const char *prefix, uint32_t r, const char *pg,
	     ChakraProtoMsg__Node *meta, const char *groups)
{
	ChakraProtoMsg__Node x = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__Node *nodes[2] = { meta, &x };
	ChakraProtoMsg__AttributeProto a[3], *ap[3] = { &a[0], &a[1], &a[2] };
	char path[256];

	x.id = 1;
	x.name = (char *)"grad";
	x.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
	t_attr(&a[0], "comm_type",
	       CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE);
	t_attr(&a[1], "comm_size", 4096);
	chakra_proto_msg__attribute_proto__init(&a[2]);
	a[2].name = (char *)"pg_name";
	a[2].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a[2].string_val = (char *)pg;
	x.n_attr = 3;
	x.attr = ap;
	snprintf(path, sizeof(path), "%s.%u.et", prefix, r);
	if (meta != NULL)
		t_write_trace_groups(path, nodes, 2, groups);
	else
		t_write_trace_groups(path, nodes + 1, 1, groups);
}

START_TEST(test_rank_count)
{
	struct hs_workload w;
	char err[512] = "";
	uint32_t r;

	/* Four files read as two ranks: refused, saying how many there are. */
	for (r = 0; r < 4; r++)
		t_write_coll("four", r, "g", NULL, NULL);
	ck_assert_int_eq(t_read(&w, "four", 2, err, sizeof(err)), -E2BIG);
	ck_assert_msg(strstr(err, "four.2.et exists: the trace has 4 ranks (four.0.et .. four.3.et); expected ranks = 4, not 2") !=
		      NULL, "%s", err);
	hs_wl_free(&w);
	ck_assert_uint_eq(hs_chakra_count("four"), 4);
	ck_assert_uint_eq(hs_chakra_count("none"), 0);
	/* As four: one all-reduce over the four. */
	ck_assert_msg(t_read(&w, "four", 4, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(w.comms[w.nodes[0].comm].nb, 4);
	hs_wl_free(&w);
	t_remove("four", 4);
}
END_TEST

START_TEST(test_described_groups)
{
	/* PyTorch's pg configs in its init node, as the converter keeps them. */
	static const char pytorch[] =
		"['[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", \"pg_size\": 4, \"ranks\": [0, 1, 2, 3]}, "
		"{\"pg_name\": \"1\", \"pg_desc\": \"dp\", \"backend_config\": \"cuda:nccl\", \"pg_size\": 2, \"ranks\": [1, 3]}]']";
	ChakraProtoMsg__Node meta = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__IOInfo io = CHAKRA_PROTO_MSG__IOINFO__INIT;
	struct hs_workload w;
	struct hs_traffic t;
	char err[512] = "";
	uint32_t r;

	meta.id = 0;
	meta.name = (char *)"## process_group:init ##";
	meta.type = CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE;
	io.values = (char *)pytorch;
	meta.inputs = &io;

	/*
	 * Two of a trace's four ranks, as if the rest were lost: the files
	 * agree with ranks = 2, the group described does not.
	 */
	for (r = 0; r < 2; r++)
		t_write_coll("pg", r, "0", &meta, NULL);
	ck_assert_int_eq(t_read(&w, "pg", 2, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "pg.0.et: process group '0' has 4 ranks; expected at most the job's 2") !=
		      NULL, "%s", err);
	hs_wl_free(&w);

	/* All four: group "0" is the four, "1" ranks 1 and 3. */
	for (r = 0; r < 4; r++)
		t_write_coll("pg", r, r % 2 ? "1" : "0", &meta, NULL);
	/* Rank 0 and 2 name "0", whose members 1 and 3 never do. */
	ck_assert_msg(t_read(&w, "pg", 4, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(w.comms[w.nodes[1].comm].nb, 4);
	ck_assert_uint_eq(w.comms[w.nodes[3].comm].nb, 2);
	ck_assert_uint_eq(w.comm_ranks[w.comms[w.nodes[3].comm].first], 1);
	ck_assert_uint_eq(w.comm_ranks[w.comms[w.nodes[3].comm].first + 1],
			  3);
	ck_assert_int_ne(hs_wl_build(&w, &t, err, sizeof(err)), 0);
	hs_wl_free(&w);

	/* Rank 2 naming "1", which does not have it. */
	t_write_coll("pg", 2, "1", &meta, NULL);
	ck_assert_int_eq(t_read(&w, "pg", 4, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "pg.2.et: names process group '1', which does not have rank 2") !=
		      NULL, "%s", err);
	hs_wl_free(&w);

	/* Every rank in its group: it builds; described in metadata too. */
	for (r = 0; r < 4; r++)
		t_write_coll("pg", r, r % 2 ? "1" : "e",
			     NULL, r % 2 ? "[{\"pg_name\": \"1\", \"pg_size\": 2, \"ranks\": [1, 3]}]" :
			     "[{\"pg_name\": \"e\", \"pg_size\": 2, \"ranks\": [0, 2]}]");
	ck_assert_msg(t_read(&w, "pg", 4, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(hs_wl_build(&w, &t, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(w.nb_ops, 2);
	hs_traffic_free(&t);
	hs_wl_free(&w);

	/* One group described two ways. */
	t_write_coll("pg", 3, "1", NULL,
		     "[{\"pg_name\": \"1\", \"pg_size\": 2, \"ranks\": [1, 2]}]");
	ck_assert_int_eq(t_read(&w, "pg", 4, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "pg.3.et: process group '1' is described otherwise than in pg.1.et") !=
		      NULL, "%s", err);
	hs_wl_free(&w);

	/* A description that does not parse. */
	t_write_coll("pg", 3, "1", NULL, "[{\"pg_name\": \"1\", \"ranks\": [1, x]}]");
	ck_assert_int_eq(t_read(&w, "pg", 4, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "pg.3.et: a process group description that does not parse") !=
		      NULL, "%s", err);
	hs_wl_free(&w);
	t_remove("pg", 4);
}
END_TEST

/* The conformance case's traces: the small dense job's 8 ranks. */
static void
t_conf_traces_up(void)
{
	struct hs_job_params j;
	struct hs_workload w;
	char err[512] = "";

	t_small_job(&j, HS_JOB_DENSE);
	if (hs_job_workload(&j, 1, 8, 0, 1, &w, err, sizeof(err)) != 0 ||
	    hs_chakra_write(&w, 0, "conformance-trace", err,
			    sizeof(err)) != 0)
		fprintf(stderr, "test_chakra: conformance traces: %s\n", err);
	hs_wl_free(&w);
}

static void
t_conf_traces_down(void)
{
	t_remove("conformance-trace", 8);
}

static Suite *
chakra_suite(void)
{
	Suite *s = suite_create("chakra");
	TCase *tc = tcase_create("chakra");
	TCase *conf;

	tcase_add_test(tc, test_roundtrip_dense);
	tcase_add_test(tc, test_roundtrip_moe);
	tcase_add_loop_test(tc, test_astra_sim_traces, 0,
			    (int)(sizeof(t_astra) / sizeof(t_astra[0])));
	tcase_add_test(tc, test_unmapped_reported);
	tcase_add_test(tc, test_bad_traces);
	tcase_add_test(tc, test_rank_count);
	tcase_add_test(tc, test_described_groups);
	suite_add_tcase(s, tc);
	/* The job-shape contract on chakra: traces of the small dense job. */
	conf = job_shape_conformance_tcase(hs_job_shape_find("chakra"),
					   "ranks = 8\ntrace = conformance-trace\n");
	tcase_add_unchecked_fixture(conf, t_conf_traces_up,
				    t_conf_traces_down);
	suite_add_tcase(s, conf);
	return s;
}

int
main(void)
{
	return t_unit_run_suite("chakra", chakra_suite());
}
