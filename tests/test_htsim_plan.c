/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reader and mapper of uet-htsim's plans (tools/htsim-plan/): the 8
 * shipped plans read to their 95 experiments; every experiment maps but
 * the two whose .topo ofan cannot build; the numbers htsim_uec derives
 * (RTT, queue, ECN, RTO, ACK spacing) come out as its main_uec.cpp works
 * them out; a bad plan names FILE:LINE: PARAM; -conn_reuse folds a
 * flow's messages.  OFAN_SRC is the source tree.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "htsim_plan.h"
#include "unit_suite.h"

static char t_dir[4096];

static void
t_uec_dir(void)
{
	const char *src = getenv("OFAN_SRC");

	ck_assert_ptr_nonnull(src);
	snprintf(t_dir, sizeof(t_dir), "%s/testbed/uec", src);
}

static int
t_parse_file(const char *name, struct hp_plan *p, char *err, size_t n)
{
	char path[4200], *buf;
	FILE *f;
	long len;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", t_dir, name);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	rc = hp_plan_parse(name, buf, (size_t)len, p, err, n);
	free(buf);
	return rc;
}

static int
t_parse_text(const char *text, struct hp_plan *p, char *err, size_t n)
{
	return hp_plan_parse("plan.txt", text, strlen(text), p, err, n);
}

/* Does r set key=value exactly? */
static bool
t_has(const struct hp_run *r, const char *kv)
{
	uint32_t i;

	for (i = 0; i < r->nb_overrides; i++)
		if (strcmp(r->overrides[i], kv) == 0)
			return true;
	return false;
}

/* The one experiment of text, mapped from the shipped folder. */
static int
t_map_text(const char *text, struct hp_run *r, char *err, size_t n)
{
	struct hp_plan p;
	int rc;

	ck_assert_msg(t_parse_text(text, &p, err, n) == 0, "%s", err);
	ck_assert_uint_eq(p.nb, 1);
	rc = hp_map(&p.x[0], "plan.txt", t_dir, r, err, n);
	hp_plan_free(&p);
	return rc;
}

START_TEST(test_shipped_plans)
{
	static const struct { const char *name; uint32_t nb; } plans[] = {
		{ "validate_uec_sender.txt", 15 },
		{ "validate_uec_rcv.txt", 15 },
		{ "validate_uec_both.txt", 15 },
		{ "validate_uec_connreuse.txt", 12 },
		{ "validate_load_balancing_snd.txt", 10 },
		{ "validate_load_balancing_rcv.txt", 10 },
		{ "validate_load_balancing_failed_snd.txt", 9 },
		{ "validate_load_balancing_failed_rcv.txt", 9 },
	};
	uint32_t i, k, total = 0, mapped = 0, topo = 0, rccc = 0;
	static struct hp_run r;
	struct hp_plan p;
	char err[4096];

	t_uec_dir();
	for (i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
		ck_assert_msg(t_parse_file(plans[i].name, &p, err,
					   sizeof(err)) == 0, "%s", err);
		ck_assert_uint_eq(p.nb, plans[i].nb);
		for (k = 0; k < p.nb; k++) {
			ck_assert(p.x[k].has_tail);
			if (hp_map(&p.x[k], plans[i].name, t_dir, &r, err,
				   sizeof(err)) == 0) {
				mapped++;
				continue;
			}
			topo += strstr(err, ": -topo: ") != NULL;
			rccc += strstr(err, "RCCC") != NULL;
		}
		total += p.nb;
		hp_plan_free(&p);
	}
	ck_assert_uint_eq(total, 95);
	/* Every experiment maps, the oversubscribed leaf-spines too. */
	ck_assert_uint_eq(rccc, 0);
	ck_assert_uint_eq(topo, 0);
	ck_assert_uint_eq(mapped, 95);
}
END_TEST

/*
 * htsim_uec's defaults (main_uec.cpp:51-67, 642-711): a 14.02272 us
 * network RTT, 43 packets of BDP, a 1-BDP queue, ECN at 9 and 35
 * packets, an RTO of 15 + 178450 x 48 / 1e5 us, an ACK per 16384 bytes.
 */
START_TEST(test_derived)
{
	static struct hp_run r;
	char err[4096];

	t_uec_dir();
	ck_assert_msg(t_map_text("connection_matrices/one.cm \n!Param -end 1000\n!tailFCT 190\n",
				 &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(r.nodes, 16);
	ck_assert_uint_eq(r.connections, 1);
	ck_assert(t_has(&r, "fabric.k=4"));
	ck_assert(t_has(&r, "fabric.schemes=mixed"));
	ck_assert(t_has(&r, "queue.queue_bytes=178450"));
	ck_assert(t_has(&r, "queue.ecn_kmin=37350"));
	ck_assert(t_has(&r, "queue.ecn_kmax=145250"));
	ck_assert(t_has(&r, "host.base_rtt=14022.720ns"));
	ck_assert(t_has(&r, "host.min_rto=100656.000ns"));
	ck_assert(t_has(&r, "host.ack_every=4"));
	ck_assert(t_has(&r, "fabric.time_limit=1000.000us"));
	ck_assert(t_has(&r, "fabric.mtu=4126"));
	ck_assert(t_has(&r, "fabric.data_wire_bytes=4150"));
	/* A trimmed packet costs htsim's trim size: 64 bytes, or -trimsize. */
	ck_assert(t_has(&r, "fabric.header_wire_bytes=64"));
	ck_assert(t_map_text("connection_matrices/one.cm \n!Param -trimsize 96\n",
			     &r, err, sizeof(err)) == 0);
	ck_assert(t_has(&r, "fabric.header_wire_bytes=96"));
	ck_assert(!t_has(&r, "fabric.header_wire_bytes=64"));

	/* -q 500: 2075000-byte queues, the RTO 15 + 996 us, ECN kept. */
	ck_assert(t_map_text("connection_matrices/perm_1024n_1024c_0u_2000000b.cm\n"
			     "!Param -q 500 -sack_threshold 4000\n"
			     "!Param -load_balancing_algo reps -paths 128 -failed 8\n",
			     &r, err, sizeof(err)) == 0);
	ck_assert(t_has(&r, "fabric.k=16"));
	ck_assert(t_has(&r, "queue.queue_bytes=2075000"));
	ck_assert(t_has(&r, "queue.ecn_kmin=37350"));
	ck_assert(t_has(&r, "host.min_rto=1011000.000ns"));
	ck_assert(t_has(&r, "host.ack_every=1"));
	ck_assert(t_has(&r, "fabric.schemes=reps_uec"));
	ck_assert(t_has(&r, "host.reps_uec.paths=128"));
	/* Aggregation switch 0's 8 core links, core to aggregation, at 25 %. */
	ck_assert(t_has(&r, "failure.htsim_failed.link=core0-agg0 core1-agg0 core2-agg0 core3-agg0 core4-agg0 core5-agg0 core6-agg0 core7-agg0"));
	ck_assert(t_has(&r, "failure.htsim_failed.rate=25000000000"));
	ck_assert(t_has(&r, "failure.htsim_failed.one_way=yes"));
	ck_assert(t_has(&r, "failure.htsim_failed.queue_scale=0.25"));

	/* Without trimming: 5 BDPs of queue and NSCC aims at one RTT. */
	ck_assert(t_map_text("connection_matrices/one.cm\n!Param -disable_trim -cwnd 50\n",
			     &r, err, sizeof(err)) == 0);
	ck_assert(t_has(&r, "queue.queue_bytes=892250"));
	ck_assert(t_has(&r, "queue.trim=no"));
	ck_assert(t_has(&r, "cc.nscc.target_rtts=1"));
	ck_assert(t_has(&r, "cc.nscc.window=50"));

	/* Receiver CC alone (RCCC), and with the sender's (both). */
	ck_assert(t_map_text("connection_matrices/one.cm\n!Param -receiver_cc_only -cwnd 50\n",
			     &r, err, sizeof(err)) == 0);
	ck_assert(t_has(&r, "host.cc=rccc"));
	ck_assert(t_has(&r, "cc.rccc.nscc=no"));
	ck_assert(t_has(&r, "cc.rccc.window=50"));
	ck_assert(t_has(&r, "queue.tor_down.ecn=no"));
	ck_assert(t_map_text("connection_matrices/one.cm\n!Param -sender_cc -receiver_cc\n",
			     &r, err, sizeof(err)) == 0);
	ck_assert(t_has(&r, "cc.rccc.nscc=yes"));
	ck_assert(t_map_text("connection_matrices/one.cm\n!Param -receiver_cc_only -sender_cc_only\n",
			     &r, err, sizeof(err)) == 0);
	ck_assert(!t_has(&r, "host.cc=rccc"));
}
END_TEST

/* What a bad plan says: FILE:LINE: PARAM: why. */
START_TEST(test_bad_plans)
{
	static const struct { const char *text, *expect; } bad[] = {
		{ "!Param -end 10\n", "plan.txt:1: '!Param -end 10' before any experiment" },
		{ "one.cm\n!Foo bar\n", "plan.txt:2: '!Foo' is not a plan keyword" },
		{ "one.cm\n!tailFCT soon\n", "plan.txt:2: !tailFCT: 'soon' is not a time" },
		{ "one.cm\n!tailFCT 5\n!tailFCT 6\n", "plan.txt:3: !tailFCT: '6' is a second target" },
		{ "# nothing\n\n", "plan.txt: no experiment" },
	};
	static const struct { const char *text, *expect; } unmappable[] = {
		{ "connection_matrices/one.cm\n!Param -end 100\n!Param -frobnicate 3\n",
		  "plan.txt:3: -frobnicate: not an htsim_uec parameter ofan knows" },
		{ "connection_matrices/one.cm\n!Param -sleek\n",
		  "plan.txt:2: -sleek: htsim_uec has it, ofan does not map it: SLEEK" },
		{ "connection_matrices/none.cm\n!Param -end 100\n",
		  "plan.txt:1: cannot open the connection matrix connection_matrices/none.cm (" },
		{ "connection_matrices/one.cm\n!Param -paths\n",
		  "plan.txt:2: -paths: needs a value" },
		{ "connection_matrices/one.cm\n!Param -paths 1000\n",
		  "plan.txt:2: -paths: '1000' is not an integer in [1, 256]" },
		{ "connection_matrices/one.cm\n!Param -load_balancing_algo ecmp\n",
		  "plan.txt:2: -load_balancing_algo: 'ecmp': ofan maps bitmap" },
		{ "connection_matrices/one.cm\n!Param -topo topologies/none.topo\n",
		  "plan.txt:2: -topo: cannot open" },
		{ "connection_matrices/one.cm\n!Binary ./htsim_ndp\n",
		  "plan.txt:1: !Binary ./htsim_ndp: ofan runs htsim_uec's plans only" },
	};
	static struct hp_run r;
	struct hp_plan p;
	char err[4096];
	unsigned int i;

	t_uec_dir();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_ne(t_parse_text(bad[i].text, &p, err, sizeof(err)), 0);
		ck_assert_msg(strncmp(err, bad[i].expect, strlen(bad[i].expect)) == 0,
			      "got '%s', expected '%s...'", err, bad[i].expect);
		ck_assert_uint_eq(p.nb, 0);
	}
	for (i = 0; i < sizeof(unmappable) / sizeof(unmappable[0]); i++) {
		ck_assert_int_ne(t_map_text(unmappable[i].text, &r, err,
					    sizeof(err)), 0);
		ck_assert_msg(strstr(err, unmappable[i].expect) == err,
			      "got '%s', expected '%s...'", err,
			      unmappable[i].expect);
	}
	/* Leaves of 64 hosts and 8 spine links: 72 ports, over 64. */
	{
		char topo[] = "/tmp/ofan_t_wide_XXXXXX", text[256];
		int fd = mkstemp(topo);
		FILE *f;

		ck_assert_int_ge(fd, 0);
		f = fdopen(fd, "w");
		ck_assert_ptr_nonnull(f);
		fputs("Nodes 1024\nTiers 2\nPodsize 1024\n\nTier 0\n"
		      "Downlink_speed_Gbps 100\nRadix_Down 64\nRadix_Up 8\n"
		      "Downlink_Latency_ns 1000\nOversubscribed 8\n"
		      "Switch_Latency_ns 0\n\nTier 1\n"
		      "Downlink_speed_Gbps 100\nRadix_Down 16\n"
		      "Downlink_Latency_ns 1000\nSwitch_Latency_ns 0\n", f);
		fclose(f);
		snprintf(text, sizeof(text),
			 "connection_matrices/perm_1024n_1024c_0u_2000000b.cm\n!Param -topo %s\n",
			 topo);
		ck_assert_int_ne(t_map_text(text, &r, err, sizeof(err)), 0);
		unlink(topo);
		ck_assert_msg(strstr(err, "plan.txt:2: -topo: ") == err &&
			      strstr(err, "needs 72 ports; ofan-fabric's switches have at most 64") != NULL,
			      "got '%s'", err);
	}
}
END_TEST

/* -conn_reuse: ten messages of one flow become one flow of their bytes. */
START_TEST(test_fold)
{
	char in[4200], out[] = "/tmp/ofan_t_fold_XXXXXX", err[1024];
	char line[256];
	uint32_t flows = 0;
	int fd = mkstemp(out);
	FILE *f;
	int n = 0;

	t_uec_dir();
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(in, sizeof(in), "%s/connection_matrices/test_cr_1f10m10p.cm",
		 t_dir);
	ck_assert_msg(hp_fold_messages(in, out, &flows, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(flows, 1);
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (n == 0)
			ck_assert_str_eq(line, "Nodes 2\n");
		if (n == 1)
			ck_assert_str_eq(line, "Connections 1\n");
		if (n == 2)
			ck_assert_str_eq(line, "0->1 id 1 start 0 size 408600\n");
		n++;
	}
	fclose(f);
	unlink(out);
	ck_assert_int_eq(n, 3);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("htsim_plan");
	TCase *tc = tcase_create("plan");

	tcase_add_test(tc, test_shipped_plans);
	tcase_add_test(tc, test_derived);
	tcase_add_test(tc, test_bad_plans);
	tcase_add_test(tc, test_fold);
	suite_add_tcase(s, tc);
	return t_run_suite(s);
}
