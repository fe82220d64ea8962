/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the htsim connection-matrix reader (hs_cm.c) and of the
 * trigger state a run keeps (hs_trigger_activate).
 *
 * Every line form htsim's ConnectionMatrix::load() reads is checked field
 * by field, and every malformed case with its exact message and line
 * number.  Files are written into a fresh temporary directory, which
 * becomes the working directory, so messages name "t.cm"; the shipped
 * good file is found through OFAN_TEST_DATA.  Most cases go through the
 * file reader, the rest through the in-memory parser it wraps (which the
 * fuzzer drives), so both are covered.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "hs_cm.h"
#include "hs_pattern.h"
#include "hs_traffic.h"
#include "unit_suite.h"

#define ERR_SIZE 1024
#define CM_NAME "t.cm"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NO HS_NO_TRIGGER

/* Write text (len bytes, or up to its NUL when len is 0) to CM_NAME. */
static void
write_cm(const char *text, size_t len)
{
	FILE *f = fopen(CM_NAME, "w");

	ck_assert_ptr_nonnull(f);
	if (len == 0)
		len = strlen(text);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static int
load_text(const char *text, size_t len, uint32_t ranks, struct hs_traffic *t,
	  char *err)
{
	int rc;

	write_cm(text, len);
	rc = hs_traffic_load_cm(CM_NAME, ranks, t, err, ERR_SIZE);
	unlink(CM_NAME);
	return rc;
}

struct flow_expect {
	uint32_t src, dst;
	uint64_t start_ns, size;
	uint32_t trigger, send_done, recv_done;	/* trigger ids, 0: none */
};

/* The trigger id of index i, 0 for none. */
static uint32_t
trig_id(const struct hs_traffic *t, uint32_t i)
{
	if (i == NO)
		return 0;
	ck_assert_uint_lt(i, t->nb_triggers);
	return t->triggers[i].id;
}

static void
check_flows(const struct hs_traffic *t, const struct flow_expect *e,
	    uint32_t n)
{
	uint32_t i;

	ck_assert_uint_eq(t->nb_flows, n);
	for (i = 0; i < n; i++) {
		const struct hs_flow_spec *f = &t->flows[i];

		ck_assert_uint_eq(f->id, i);
		ck_assert_uint_eq(f->src, e[i].src);
		ck_assert_uint_eq(f->dst, e[i].dst);
		ck_assert_uint_eq(f->size, e[i].size);
		ck_assert_uint_eq(f->dep, HS_NO_DEP);
		ck_assert_uint_eq(trig_id(t, f->trigger), e[i].trigger);
		ck_assert_uint_eq(trig_id(t, f->send_done_trigger),
				  e[i].send_done);
		ck_assert_uint_eq(trig_id(t, f->recv_done_trigger),
				  e[i].recv_done);
		if (f->trigger == NO)
			ck_assert_uint_eq(f->start_ns, e[i].start_ns);
	}
}

/* A trigger by id: kind, count, its flows (indexes) in file order. */
static void
check_trigger(const struct hs_traffic *t, uint32_t id, int kind,
	      uint32_t count, const uint32_t *flows, uint32_t nb_flows,
	      uint32_t nb_activators)
{
	uint32_t i, k;

	for (i = 0; i < t->nb_triggers && t->triggers[i].id != id; i++)
		;
	ck_assert_msg(i < t->nb_triggers, "no trigger %u", id);
	ck_assert_int_eq(t->triggers[i].kind, kind);
	ck_assert_uint_eq(t->triggers[i].count, count);
	ck_assert_uint_eq(t->triggers[i].nb_targets, nb_flows);
	ck_assert_uint_eq(t->triggers[i].nb_activators, nb_activators);
	for (k = 0; k < nb_flows; k++)
		ck_assert_uint_eq(
			t->trigger_targets[t->triggers[i].first_target + k],
			flows[k]);
}

static const char *
data_path(const char *name, char *buf, size_t size)
{
	const char *data = getenv("OFAN_TEST_DATA");

	ck_assert_msg(data != NULL, "OFAN_TEST_DATA is not set");
	snprintf(buf, size, "%s/cm/%s", data, name);
	return buf;
}

/* tests/data/cm/good.cm, every field of every line. */
START_TEST(test_cm_good)
{
	static const struct flow_expect e[] = {
		{ 0, 1, 0, 1000, 0, 1, 0 },
		{ 1, 2, 1500, 2000, 0, 0, 2 },
		{ 2, 3, 250, 4096, 0, 0, 0 },
		{ 3, 0, 0, 100, 1, 0, 0 },
		{ 0, 2, 0, 5, 2, 3, 0 },
		{ 1, 3, 0, 1000000, 3, 0, 0 },
		/* 123456789 ps is 123456.789 ns: exact, not a float's. */
		{ 3, 1, 123457, 64, 0, 0, 0 },
	};
	static const uint32_t t1[] = { 3 }, t2[] = { 4 }, t3[] = { 5 };
	char path[PATH_MAX], err[ERR_SIZE] = "";
	struct hs_traffic t;
	int rc;

	rc = hs_traffic_load_cm(data_path("good.cm", path, sizeof(path)), 4,
				&t, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_uint_eq(t.nb_ranks, 4);
	check_flows(&t, e, ARRAY_SIZE(e));
	ck_assert_uint_eq(t.nb_triggers, 3);
	check_trigger(&t, 1, HS_TRIG_ONESHOT, 0, t1, 1, 1);
	check_trigger(&t, 2, HS_TRIG_MULTISHOT, 0, t2, 1, 1);
	check_trigger(&t, 3, HS_TRIG_BARRIER, 1, t3, 1, 1);
	ck_assert_uint_eq(t.nb_failures, 2);
	ck_assert_uint_eq(t.failures[0].switch_type, HS_SW_AGG);
	ck_assert_uint_eq(t.failures[0].switch_id, 5);
	ck_assert_uint_eq(t.failures[0].link_id, 1);
	ck_assert_uint_eq(t.failures[0].line, 20);
	ck_assert_uint_eq(t.failures[1].switch_type, HS_SW_TOR);
	ck_assert_uint_eq(t.failures[1].switch_id, 2);
	ck_assert_uint_eq(t.failures[1].link_id, 0);
	/* Concurrency: each flow alone at its source and time. */
	ck_assert_ptr_nonnull(t.concurrency);
	ck_assert_uint_eq(t.concurrency[0], 1);
	hs_traffic_free(&t);

	/* No expected node count: the file's. */
	rc = hs_traffic_load_cm(path, 0, &t, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_uint_eq(t.nb_ranks, 4);
	hs_traffic_free(&t);
}
END_TEST

/* Through the pattern table: start times shifted by the run's start. */
START_TEST(test_cm_build)
{
	struct hs_traffic_params p = {
		.nb_ranks = 4, .iterations = 1, .start_ns = 5000,
	};
	static struct hs_cm_settings set;
	char err[ERR_SIZE] = "";
	struct hs_traffic t;

	p.pattern = hs_pattern_find("cm");
	data_path("good.cm", set.path, sizeof(set.path));
	p.settings = &set;
	ck_assert_int_eq(hs_pattern_build(&p, &t, NULL, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.flows[1].start_ns, 6500);
	ck_assert_uint_eq(t.flows[6].start_ns, 128457);
	hs_traffic_free(&t);
	p.nb_ranks = 6;
	ck_assert_int_eq(hs_pattern_build(&p, &t, NULL, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_null(t.flows);
	/* good.cm's Nodes line is line 7. */
	ck_assert_msg(strstr(err, "good.cm:7: node count does not match the "
			     "testbed 'Nodes 4'; expected Nodes 6, one per "
			     "host of the testbed") != NULL, "%s", err);
	p.nb_ranks = 4;
	p.iterations = 2;
	ck_assert_int_eq(hs_pattern_build(&p, &t, NULL, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "traffic:iterations: '2' with a .cm file, which "
			 "is replayed once; expected 1");
}
END_TEST

/* Files that must parse, and what their last flow is. */
struct good_case {
	const char *text;
	uint32_t nb_flows;
	struct flow_expect last;
};

static const struct good_case good_cases[] = {
	/* htsim's own output: start 0, ids in order. */
	{ "Nodes 3\nConnections 2\n0->1 id 1 start 0 size 9\n"
	  "1->2 id 2 start 0 size 2097152\n",
	  2, { 1, 2, 0, 2097152, 0, 0, 0 } },
	/* Fields in any order; id optional without a trigger. */
	{ "Nodes 3\nConnections 1\n2->0 size 10 prio 7 start 1000\n",
	  1, { 2, 0, 1, 10, 0, 0, 0 } },
	/* Picoseconds: rounded to the nearest ns, half up. */
	{ "Nodes 2\nConnections 1\n1->0 start 1499 size 1\n",
	  1, { 1, 0, 1, 1, 0, 0, 0 } },
	{ "Nodes 2\nConnections 1\n1->0 start 1500 size 1\n",
	  1, { 1, 0, 2, 1, 0, 0, 0 } },
	{ "Nodes 2\nConnections 1\n1->0 start 499 size 1\n",
	  1, { 1, 0, 0, 1, 0, 0, 0 } },
	/* Above 2^24 ps htsim's float would round; here it is exact. */
	{ "Nodes 2\nConnections 1\n1->0 start 16777217000 size 1\n",
	  1, { 1, 0, 16777217, 1, 0, 0, 0 } },
	/* A unit is the extension. */
	{ "Nodes 2\nConnections 1\n1->0 start 2.5us size 1\n",
	  1, { 1, 0, 2500, 1, 0, 0, 0 } },
	{ "Nodes 2\nConnections 1\n1->0 start 3ms size 1\n",
	  1, { 1, 0, 3000000, 1, 0, 0, 0 } },
	/* The largest size htsim's int holds; prio's extremes. */
	{ "Nodes 2\nConnections 1\n1->0 start 0 size 2147483647 prio "
	  "-2147483648\n",
	  1, { 1, 0, 0, 2147483647, 0, 0, 0 } },
	/* One trailing space (htsim drops it), empty lines, no final LF. */
	{ "Nodes 2 \n\nConnections 1\n\n0->1 start 0 size 5 \n\n",
	  1, { 0, 1, 0, 5, 0, 0, 0 } },
	{ "Nodes 2\nConnections 1\n0->1 start 0 size 5",
	  1, { 0, 1, 0, 5, 0, 0, 0 } },
	/* Explicit zero counts; triggers defined before or after use. */
	{ "Nodes 2\nConnections 1\nTriggers 0\nFailures 0\n"
	  "0->1 start 0 size 5\n",
	  1, { 0, 1, 0, 5, 0, 0, 0 } },
	{ "Nodes 2\nConnections 2\nTriggers 1\ntrigger id 9 oneshot\n"
	  "0->1 id 1 start 0 size 5 recv_done_trigger 9\n"
	  "1->0 id 2 trigger 9 size 6\n",
	  2, { 1, 0, 0, 6, 9, 0, 0 } },
	/* htsim's serial all-to-all chain (gen_serial_alltoall.py). */
	{ "Nodes 3\nConnections 2\nTriggers 1\n"
	  "0->1 id 1 start 0 size 8 send_done_trigger 1\n"
	  "0->2 id 2 trigger 1 size 8\ntrigger id 1 oneshot\n",
	  2, { 0, 2, 0, 8, 1, 0, 0 } },
	/* A barrier of two senders; a flow may fire two triggers. */
	{ "Nodes 4\nConnections 3\nTriggers 2\n"
	  "0->3 id 1 start 0 size 8 send_done_trigger 5 recv_done_trigger 6\n"
	  "1->3 id 2 start 0 size 8 send_done_trigger 5\n"
	  "3->2 id 3 trigger 5 size 8 send_done_trigger 6\n"
	  "trigger id 5 barrier count 2\ntrigger id 6 multishot\n",
	  3, { 3, 2, 0, 8, 5, 6, 0 } },
};

START_TEST(test_cm_good_variants)
{
	const struct good_case *c = &good_cases[_i];
	const struct hs_flow_spec *f;
	char err[ERR_SIZE] = "";
	struct hs_traffic t;
	int rc;

	rc = load_text(c->text, 0, 0, &t, err);
	ck_assert_msg(rc == 0, "case %d: rc %d: %s", _i, rc, err);
	ck_assert_uint_eq(t.nb_flows, c->nb_flows);
	f = &t.flows[t.nb_flows - 1];
	ck_assert_uint_eq(f->src, c->last.src);
	ck_assert_uint_eq(f->dst, c->last.dst);
	ck_assert_uint_eq(f->size, c->last.size);
	ck_assert_uint_eq(trig_id(&t, f->trigger), c->last.trigger);
	ck_assert_uint_eq(trig_id(&t, f->send_done_trigger),
			  c->last.send_done);
	if (f->trigger == NO)
		ck_assert_uint_eq(f->start_ns, c->last.start_ns);
	hs_traffic_free(&t);
}
END_TEST

/* Malformed files: line 0 means a whole-file message ("t.cm: ..."). */
struct bad_case {
	const char *text;
	size_t len;		/* 0: up to the NUL */
	uint32_t ranks;		/* the testbed's, 0: none */
	unsigned int line;
	const char *message;
};

#define H "Nodes 4\nConnections 1\n"
#define H2 "Nodes 4\nConnections 2\n"
#define HT(n) "Nodes 4\nConnections 2\nTriggers " #n "\n"
#define FLOW_FIELDS "expected id, start, size, trigger, send_done_trigger, " \
	"recv_done_trigger or prio"
#define RANK_EXPECT "expected an integer below 4"
#define TIME_EXPECT "expected whole picoseconds (2500000) or a time with " \
	"a unit (2.5us, 250ns)"
#define SIZE_EXPECT "expected a whole number of bytes from 1 to 2147483647"
#define ID_EXPECT "expected an integer from 1 to 2147483647"
#define SPACES "expected fields separated by single spaces, as htsim " \
	"splits them"
#define TRIG_EXPECT "expected trigger id N oneshot|multishot|barrier " \
	"[count K]"
#define FAIL_EXPECT "expected failure switch_type TOR|AGG|CORE switch_id S " \
	"link_id L"

static const struct bad_case bad_cases[] = {
	/* The header. */
	{ "", 0, 0, 0, "no 'Nodes' line; expected 'Nodes N' in the header" },
	{ "# only a comment\n\n", 0, 0, 0,
	  "no 'Nodes' line; expected 'Nodes N' in the header" },
	{ "Nodes 4\n", 0, 0, 0,
	  "no 'Connections' line; expected 'Connections C' in the header" },
	{ "0->1 start 0 size 10\n", 0, 0, 1,
	  "line before the header is complete '0->1 start 0 size 10'; "
	  "expected 'Nodes N' and 'Connections C' first" },
	{ "Nodes 4\ntrigger id 1 oneshot\n", 0, 0, 2,
	  "line before the header is complete 'trigger id 1 oneshot'; "
	  "expected 'Nodes N' and 'Connections C' first" },
	{ H "0->1 start 0 size 10\nConnections 1\n", 0, 0, 4,
	  "header line 'Connections' after the first flow, trigger or failure "
	  "line 'Connections 1'; expected the header (Nodes, Connections, "
	  "Triggers, Failures) first" },
	{ H "0->1 start 0 size 10\n# late\n", 0, 0, 4,
	  "comment after the first flow, trigger or failure line '# late'; "
	  "expected comments only in the header, as htsim reads them" },
	{ "Nodes 1\n", 0, 0, 1,
	  "bad Nodes count '1'; expected an integer from 2 to 1048576" },
	{ "Nodes four\n", 0, 0, 1,
	  "bad Nodes count 'four'; expected an integer from 2 to 1048576" },
	{ "Nodes 12abc\n", 0, 0, 1,
	  "bad Nodes count '12abc'; expected an integer from 2 to 1048576" },
	{ "Nodes 2147483648\n", 0, 0, 1,
	  "bad Nodes count '2147483648'; expected an integer from 2 to "
	  "1048576" },
	/* No per-rank tables of gigabytes for a one-line file. */
	{ "Nodes 55555554\n", 0, 0, 1,
	  "bad Nodes count '55555554'; expected an integer from 2 to "
	  "1048576" },
	{ "Connections 0\n", 0, 0, 1,
	  "bad Connections count '0'; expected an integer from 1 to "
	  "2147483647" },
	{ "Triggers -1\n", 0, 0, 1,
	  "bad Triggers count '-1'; expected an integer from 0 to 2147483647" },
	{ "Nodes\n", 0, 0, 1, "bad header line 'Nodes'; expected 'Nodes N'" },
	{ "Nodes 4 5\n", 0, 0, 1,
	  "bad header line 'Nodes 4 5'; expected 'Nodes N'" },
	{ "Failures 1 x\n", 0, 0, 1,
	  "bad header line 'Failures 1 x'; expected 'Failures F'" },
	{ "Nodes 4\nNodes 4\n", 0, 0, 2,
	  "second 'Nodes' line 'Nodes 4'; expected one 'Nodes' line" },
	{ "Nodes 4\n", 0, 8, 1,
	  "node count does not match the testbed 'Nodes 4'; expected Nodes "
	  "8, one per host of the testbed" },
	{ "nodes 4\n", 0, 0, 1,
	  "unrecognised line 'nodes 4'; expected a header line (Nodes, "
	  "Connections, Triggers, Failures), a # comment in the header, a "
	  "flow 'SRC->DST ...', 'trigger ...' or 'failure ...'" },
	/* Counts, checked at the end. */
	{ H2 "0->1 start 0 size 10\n", 0, 0, 0,
	  "Connections says 2 but the file has 1 flow lines; expected them "
	  "to agree" },
	{ H "0->1 start 0 size 10\ntrigger id 1 oneshot\n", 0, 0, 0,
	  "Triggers says 0 (no such line) but the file has 1 trigger lines; "
	  "expected them to agree" },
	{ "Nodes 4\nConnections 1\nFailures 2\n0->1 start 0 size 10\n"
	  "failure switch_type AGG switch_id 0 link_id 0\n", 0, 0, 0,
	  "Failures says 2 but the file has 1 failure lines; expected them "
	  "to agree" },
	/* Fields and spaces, as htsim splits them. */
	{ "Nodes\t4\n", 0, 0, 1, "tab in line 'Nodes\t4'; " SPACES },
	{ "Nodes 4\r\n", 0, 0, 1,
	  "carriage return (a CRLF line end) after 'Nodes 4'; expected LF "
	  "line ends (htsim reads the CR into the last field; convert with "
	  "sed -i 's/\\r$//')" },
	{ " Nodes 4\n", 0, 0, 1,
	  "empty field (a leading or doubled space) in ' Nodes 4'; " SPACES },
	{ "Nodes  4\n", 0, 0, 1,
	  "empty field (a leading or doubled space) in 'Nodes  4'; " SPACES },
	{ "Nodes 4  \n", 0, 0, 1,
	  "empty field (a leading or doubled space) in 'Nodes 4 '; " SPACES },
	{ " \n", 0, 0, 1,
	  "empty field (a leading or doubled space) in ''; " SPACES },
	{ "Nodes 4\nCon\0nections 1\n", 23, 0, 2,
	  "NUL byte in line 'Con'; expected a text file" },
	/* Endpoints. */
	{ H "0->4 start 0 size 10\n", 0, 0, 3,
	  "destination rank out of range '4'; " RANK_EXPECT },
	{ H "7->1 start 0 size 10\n", 0, 0, 3,
	  "source rank out of range '7'; " RANK_EXPECT },
	{ H "a->1 start 0 size 10\n", 0, 0, 3,
	  "bad source rank 'a'; " RANK_EXPECT },
	{ H "1-> start 0 size 10\n", 0, 0, 3,
	  "bad destination rank ''; " RANK_EXPECT },
	{ H "->1 start 0 size 10\n", 0, 0, 3,
	  "bad endpoints '->1'; expected SRC->DST with no blanks" },
	{ H "-1->2 start 0 size 10\n", 0, 0, 3,
	  "bad source rank '-1'; " RANK_EXPECT },
	{ H "1->2->3 start 0 size 10\n", 0, 0, 3,
	  "bad destination rank '2->3'; " RANK_EXPECT },
	{ H "2->2 start 0 size 10\n", 0, 0, 3,
	  "flow from a rank to itself '2->2'; expected two different ranks" },
	/* Flow fields. */
	{ H "0->1 start 0 size 10 junk 1\n", 0, 0, 3,
	  "unknown field 'junk'; " FLOW_FIELDS },
	{ H "0->1 start 0 size 10 after 3\n", 0, 0, 3,
	  "unknown field 'after'; " FLOW_FIELDS },
	{ H "0->1 start 0 start 1 size 10\n", 0, 0, 3,
	  "second 'start' field 'start'; expected each field at most once" },
	{ H "0->1 start 0 size\n", 0, 0, 3,
	  "no value after 'size' '0->1 start 0 size'; expected size B" },
	{ H "0->1 start 0 size 10 id\n", 0, 0, 3,
	  "no value after 'id' '0->1 start 0 size 10 id'; expected id I" },
	{ H "0->1 start 0 size 10 id 0\n", 0, 0, 3, "bad id '0'; " ID_EXPECT },
	{ H "0->1 start 0 size 10 id -1\n", 0, 0, 3, "bad id '-1'; " ID_EXPECT },
	{ H "0->1 start 0 size 10 id 2147483648\n", 0, 0, 3,
	  "bad id '2147483648'; " ID_EXPECT },
	{ H2 "0->1 start 0 size 10 id 3\n\n1->2 start 0 size 10 id 3\n",
	  0, 0, 5, "id already used on line 3 '3'; expected a unique id" },
	{ H "0->1 start 1e6 size 10\n", 0, 0, 3,
	  "bad start time '1e6'; " TIME_EXPECT },
	{ H "0->1 start 2500000.5 size 10\n", 0, 0, 3,
	  "bad start time '2500000.5'; " TIME_EXPECT },
	{ H "0->1 start -1 size 10\n", 0, 0, 3,
	  "bad start time '-1'; " TIME_EXPECT },
	{ H "0->1 start 5min size 10\n", 0, 0, 3,
	  "bad start time '5min'; " TIME_EXPECT },
	{ H "0->1 start 99999999999999999999 size 10\n", 0, 0, 3,
	  "bad start time '99999999999999999999'; " TIME_EXPECT },
	{ H "0->1 start 0 size 0\n", 0, 0, 3, "bad size '0'; " SIZE_EXPECT },
	{ H "0->1 start 0 size 4KiB\n", 0, 0, 3,
	  "bad size '4KiB'; " SIZE_EXPECT },
	{ H "0->1 start 0 size 2147483648\n", 0, 0, 3,
	  "bad size '2147483648'; " SIZE_EXPECT },
	{ H "0->1 start 0 size 10 prio x\n", 0, 0, 3,
	  "bad prio 'x'; expected an integer from -2147483648 to 2147483647" },
	{ H "0->1 size 10\n", 0, 0, 3,
	  "no start and no trigger '0->1 size 10'; expected 'start T' or "
	  "'trigger X' (a flow starts at a time or when a trigger fires)" },
	{ H "0->1 start 0\n", 0, 0, 3,
	  "no size '0->1 start 0'; expected SRC->DST [id I] [start T] "
	  "[size B] [trigger X] [send_done_trigger Y] [recv_done_trigger Z] "
	  "[prio P]" },
	{ "Nodes 4\nConnections 1\nTriggers 1\n"
	  "0->1 id 1 start 0 trigger 1 size 10\ntrigger id 1 oneshot\n",
	  0, 0, 4, "both a start and a trigger '0->1 id 1 start 0 trigger 1 "
	  "size 10'; expected one of them (htsim drops a start written "
	  "before the trigger and rejects one after it)" },
	{ "Nodes 4\nConnections 1\nTriggers 1\n"
	  "0->1 trigger 1 id 1 size 10\ntrigger id 1 oneshot\n", 0, 0, 4,
	  "trigger before the flow's id 'trigger'; expected 'id I' before "
	  "'trigger X', as htsim needs it" },
	{ "Nodes 4\nConnections 1\nTriggers 1\n"
	  "0->1 trigger 1 size 10\ntrigger id 1 oneshot\n", 0, 0, 4,
	  "trigger before the flow's id 'trigger'; expected 'id I' before "
	  "'trigger X', as htsim needs it" },
	{ H "0->1 id 1 trigger 0 size 10\n", 0, 0, 3,
	  "bad trigger '0'; expected a trigger id from 1 to 2147483647" },
	{ H "0->1 start 0 size 10 send_done_trigger 4\n", 0, 0, 3,
	  "send_done_trigger names an undefined trigger '4'; expected a "
	  "trigger defined by a line 'trigger id N ...'" },
	{ H "0->1 id 2 trigger 4 size 10\n", 0, 0, 3,
	  "trigger names an undefined trigger '4'; expected a trigger defined "
	  "by a line 'trigger id N ...'" },
	/* Trigger lines. */
	{ HT(1) "trigger oneshot\n", 0, 0, 4,
	  "trigger without an id 'trigger oneshot'; " TRIG_EXPECT },
	{ HT(1) "trigger id 1\n", 0, 0, 4,
	  "trigger without a type 'trigger id 1'; " TRIG_EXPECT },
	{ HT(1) "trigger id 0 oneshot\n", 0, 0, 4,
	  "bad trigger id '0'; " ID_EXPECT },
	{ HT(1) "trigger id 1 oneshot multishot\n", 0, 0, 4,
	  "second trigger type 'multishot'; expected one of oneshot, "
	  "multishot or barrier" },
	{ HT(1) "trigger id 1 barrier\n", 0, 0, 4,
	  "barrier without a count 'trigger id 1 barrier'; expected 'count "
	  "K', the activations it waits for (htsim aborts on a barrier of "
	  "count 0)" },
	{ HT(1) "trigger id 1 barrier count 0\n", 0, 0, 4,
	  "bad count '0'; expected an integer from 1 to 2147483647" },
	{ HT(1) "trigger id 1 oneshot count 2\n", 0, 0, 4,
	  "count on a trigger that is not a barrier 'trigger id 1 oneshot "
	  "count 2'; expected count only with barrier (htsim ignores it "
	  "elsewhere)" },
	{ HT(1) "trigger id 1 oneshot when 3\n", 0, 0, 4,
	  "unknown field 'when'; expected id N, count K, oneshot, multishot "
	  "or barrier" },
	{ HT(1) "trigger id\n", 0, 0, 4,
	  "no value after 'id' 'trigger id'; " TRIG_EXPECT },
	{ HT(2) "trigger id 1 oneshot\ntrigger id 1 barrier count 1\n", 0, 0,
	  5, "trigger id already defined on line 4 '1'; expected each "
	  "trigger defined once" },
	/* What htsim would abort on or never finish. */
	{ HT(1) "0->1 id 1 trigger 1 size 10\n1->2 start 0 size 10\n"
	  "trigger id 1 oneshot\n", 0, 0, 6,
	  "trigger starts flows (the first on line 4) but no flow activates "
	  "it '1'; expected a flow with send_done_trigger 1 or "
	  "recv_done_trigger 1" },
	{ HT(1) "0->1 start 0 size 10 send_done_trigger 1\n"
	  "1->2 start 0 size 10 send_done_trigger 1\ntrigger id 1 oneshot\n",
	  0, 0, 6, "oneshot trigger is activated by 2 flow ends (htsim aborts "
	  "on the second) '1'; expected one activation, or 'barrier count 2' "
	  "to wait for all of them" },
	{ HT(1) "0->1 start 0 size 10 send_done_trigger 1\n"
	  "1->2 start 0 size 10\ntrigger id 1 oneshot\n", 0, 0, 6,
	  "oneshot trigger starts no flow (htsim aborts when it fires) '1'; "
	  "expected a flow with 'trigger 1'" },
	{ HT(1) "0->1 start 0 size 10 send_done_trigger 1\n"
	  "1->2 id 2 trigger 1 size 10\ntrigger id 1 barrier count 2\n",
	  0, 0, 6, "barrier of count 2 is activated by 1 flow ends '1'; "
	  "expected count 1 (htsim aborts on too many activations and never "
	  "fires with too few)" },
	{ "Nodes 4\nConnections 3\nTriggers 1\n"
	  "0->1 start 0 size 10 send_done_trigger 1\n"
	  "1->2 id 2 trigger 1 size 10\n2->3 id 3 trigger 1 size 10\n"
	  "trigger id 1 multishot\n", 0, 0, 7,
	  "multishot trigger starts 2 flows but is activated by 1 flow ends "
	  "'1'; expected at least one activation per flow it starts" },
	{ HT(2) "0->1 id 1 trigger 1 size 10 send_done_trigger 2\n"
	  "1->2 id 2 trigger 2 size 10 send_done_trigger 1\n"
	  "trigger id 1 oneshot\ntrigger id 2 oneshot\n", 0, 0, 4,
	  "flow can never start: its trigger waits for flows that wait for "
	  "it '1'; expected triggers without a cycle" },
	/* Failure lines. */
	{ "Nodes 4\nConnections 1\nFailures 1\n0->1 start 0 size 10\n"
	  "failure switch_type AGG switch_id 1\n", 0, 0, 5,
	  "failure without link_id 'failure switch_type AGG switch_id 1'; "
	  FAIL_EXPECT },
	{ "Nodes 4\nConnections 1\nFailures 1\n0->1 start 0 size 10\n"
	  "failure switch_type SPINE switch_id 1 link_id 0\n", 0, 0, 5,
	  "bad switch_type 'SPINE'; expected TOR, AGG or CORE" },
	{ "Nodes 4\nConnections 1\nFailures 1\n0->1 start 0 size 10\n"
	  "failure switch_type tor switch_id 1 link_id 0\n", 0, 0, 5,
	  "bad switch_type 'tor'; expected TOR, AGG or CORE" },
	{ "Nodes 4\nConnections 1\nFailures 1\n0->1 start 0 size 10\n"
	  "failure switch_type AGG switch_id x link_id 0\n", 0, 0, 5,
	  "bad switch_id 'x'; expected an integer from 0 to 2147483647" },
	{ "Nodes 4\nConnections 1\nFailures 1\n0->1 start 0 size 10\n"
	  "failure switch_type AGG switch_id 1 switch_id 2 link_id 0\n", 0, 0,
	  5, "second 'switch_id' field 'switch_id'; expected each field once" },
	{ "Nodes 4\nConnections 1\nFailures 1\n0->1 start 0 size 10\n"
	  "failure switch_type AGG at 5 link_id 0\n", 0, 0, 5,
	  "unknown field 'at'; expected switch_type, switch_id or link_id" },
	/* Line numbers count comments, blank lines. */
	{ "# c\n\nNodes 4\n\n# x\nConnections 1\n\n0->9 start 0 size 1\n",
	  0, 0, 8, "destination rank out of range '9'; " RANK_EXPECT },
};

START_TEST(test_cm_bad)
{
	const struct bad_case *c = &bad_cases[_i];
	char err[ERR_SIZE] = "", expect[ERR_SIZE];
	struct hs_traffic t;
	int rc;

	/* Even cases through the file reader, odd ones from memory. */
	if (_i % 2 == 0) {
		rc = load_text(c->text, c->len, c->ranks, &t, err);
	} else {
		size_t len = c->len ? c->len : strlen(c->text);

		rc = hs_traffic_parse_cm(CM_NAME, c->text, len, c->ranks, &t,
					 err, sizeof(err));
	}
	if (c->line == 0)
		snprintf(expect, sizeof(expect), "%s: %s", CM_NAME,
			 c->message);
	else
		snprintf(expect, sizeof(expect), "%s:%u: %s", CM_NAME,
			 c->line, c->message);
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_str_eq(err, expect);
	ck_assert_ptr_null(t.flows);
	ck_assert_ptr_null(t.triggers);
	ck_assert_uint_eq(t.nb_flows, 0);
	hs_traffic_free(&t);
}
END_TEST

/* A long offending text is cut so that the expectation still shows. */
START_TEST(test_cm_long_text)
{
	char text[512], err[ERR_SIZE] = "", expect[ERR_SIZE], junk[201];
	struct hs_traffic t;

	memset(junk, 'z', sizeof(junk) - 1);
	junk[sizeof(junk) - 1] = '\0';
	snprintf(text, sizeof(text), H "0->1 start 0 size 10 %s 1\n", junk);
	ck_assert_int_eq(load_text(text, 0, 0, &t, err), -EINVAL);
	snprintf(expect, sizeof(expect),
		 "t.cm:3: unknown field '%.80s...'; " FLOW_FIELDS, junk);
	ck_assert_str_eq(err, expect);

	/* More fields than any line has: 33. */
	snprintf(text, sizeof(text), H "0->1%s\n",
		 " id 1 id 1 id 1 id 1 id 1 id 1 id 1 id 1 id 1 id 1"
		 " id 1 id 1 id 1 id 1 id 1 id 1");
	ck_assert_int_eq(load_text(text, 0, 0, &t, err), -EINVAL);
	ck_assert_msg(strncmp(err, "t.cm:3: too many fields in '0->1 id 1",
			      37) == 0, "%s", err);

	/* A small buffer gets a cut message, never an overflow. */
	write_cm(H "0->1 start 0 size 0\n", 0);
	ck_assert_int_eq(hs_traffic_load_cm(CM_NAME, 0, &t, err, 12),
			 -EINVAL);
	unlink(CM_NAME);
	ck_assert_str_eq(err, "t.cm:3: bad");
}
END_TEST

START_TEST(test_cm_missing_file)
{
	char err[ERR_SIZE] = "";
	struct hs_traffic t;

	ck_assert_int_eq(hs_traffic_load_cm("absent.cm", 4, &t, err,
					    sizeof(err)), -ENOENT);
	ck_assert_str_eq(err, "absent.cm: cannot open (No such file or "
			 "directory); expected a readable .cm file");
	ck_assert_ptr_null(t.flows);
}
END_TEST

/* Many ids and a long trigger chain: the tables grow and find them all. */
START_TEST(test_cm_many)
{
	const uint32_t nb = 5000;
	char err[ERR_SIZE] = "";
	struct hs_traffic t;
	uint32_t i;
	FILE *f;
	int rc;

	f = fopen(CM_NAME, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "Nodes 2\nConnections %u\nTriggers %u\n", nb, nb - 1);
	/* A ping-pong chain: each flow when the previous one is received. */
	for (i = 0; i < nb; i++) {
		fprintf(f, "%u->%u id %u %s%u size 1", i % 2, 1 - i % 2,
			i * 7919 + 3, i ? "trigger " : "start ", i);
		if (i + 1 < nb)
			fprintf(f, " recv_done_trigger %u", i + 1);
		fprintf(f, "\n");
	}
	for (i = 1; i < nb; i++)
		fprintf(f, "trigger id %u oneshot\n", i);
	ck_assert_int_eq(fclose(f), 0);
	rc = hs_traffic_load_cm(CM_NAME, 2, &t, err, sizeof(err));
	unlink(CM_NAME);
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_uint_eq(t.nb_flows, nb);
	ck_assert_uint_eq(t.flows[0].trigger, NO);
	for (i = 1; i < nb; i++) {
		ck_assert_uint_eq(trig_id(&t, t.flows[i].trigger), i);
		ck_assert_uint_eq(trig_id(&t, t.flows[i - 1].recv_done_trigger),
				  i);
	}
	hs_traffic_free(&t);
}
END_TEST

/*
 * A run's trigger state: a oneshot starts all its flows once, a
 * multishot one per activation in file order, a barrier all of them on
 * its count-th activation.  Activations past that start nothing.
 */
START_TEST(test_trigger_activate)
{
	static const char text[] =
		"Nodes 4\nConnections 9\nTriggers 3\n"
		"0->1 start 0 size 1 send_done_trigger 1 recv_done_trigger 2\n"
		"1->2 start 0 size 1 send_done_trigger 2\n"
		"2->3 start 0 size 1 send_done_trigger 3\n"
		"3->0 start 0 size 1 send_done_trigger 3\n"
		"0->2 id 1 trigger 1 size 1\n1->3 id 2 trigger 1 size 1\n"
		"2->0 id 3 trigger 2 size 1\n3->1 id 4 trigger 2 size 1\n"
		"0->3 id 5 trigger 3 size 1\n"
		"trigger id 1 oneshot\ntrigger id 2 multishot\n"
		"trigger id 3 barrier count 2\n";
	char err[ERR_SIZE] = "";
	struct hs_trigger_state st;
	const uint32_t *go;
	struct hs_traffic t;

	ck_assert_int_eq(hs_traffic_parse_cm("m.cm", text, strlen(text), 4,
					     &t, err, sizeof(err)), 0);
	ck_assert_int_eq(hs_trigger_state_init(&st, &t), 0);
	/* Trigger indexes follow the trigger lines: 0, 1, 2. */
	ck_assert_uint_eq(hs_trigger_activate(&t, &st, 0, &go), 2);
	ck_assert_uint_eq(go[0], 4);
	ck_assert_uint_eq(go[1], 5);
	ck_assert_uint_eq(hs_trigger_activate(&t, &st, 0, &go), 0);
	ck_assert_uint_eq(hs_trigger_activate(&t, &st, 1, &go), 1);
	ck_assert_uint_eq(go[0], 6);
	ck_assert_uint_eq(hs_trigger_activate(&t, &st, 1, &go), 1);
	ck_assert_uint_eq(go[0], 7);
	ck_assert_uint_eq(hs_trigger_activate(&t, &st, 2, &go), 0);
	ck_assert_uint_eq(hs_trigger_activate(&t, &st, 2, &go), 1);
	ck_assert_uint_eq(go[0], 8);
	ck_assert_uint_eq(hs_trigger_activate(&t, &st, 2, &go), 0);
	ck_assert_uint_eq(hs_trigger_activate(&t, &st, 9, &go), 0);
	/* Flows a trigger starts at different sources do not share. */
	ck_assert_uint_eq(t.concurrency[8], 1);
	ck_assert_uint_eq(t.concurrency[4], 1);
	hs_trigger_state_fini(&st);
	hs_traffic_free(&t);
}
END_TEST

/*
 * Trigger ownership (hs_traffic_trigger_split()): trigger 1 is activated
 * at ranks 0 (the sender of flow 0) and 1 (the receiver of flow 1) and
 * starts a flow at rank 2; trigger 2 is activated at rank 3 (the receiver
 * of flow 2) and starts a flow at rank 2.  And a flow end activates the
 * trigger that end names (hs_trigger_flow_end()).
 */
START_TEST(test_trigger_split)
{
	static const char text[] =
		"Nodes 4\nConnections 4\nTriggers 2\n"
		"0->2 start 0 size 1 send_done_trigger 1\n"
		"3->1 start 0 size 1 recv_done_trigger 1\n"
		"2->3 id 1 trigger 1 size 1 recv_done_trigger 2\n"
		"2->0 id 2 trigger 2 size 1\n"
		"trigger id 1 barrier count 2\ntrigger id 2 oneshot\n";
	static const struct {
		uint16_t part[4];
		uint32_t split;		/* trigger index, HS_NO_TRIGGER */
	} cases[] = {
		{ { 0, 0, 0, 0 }, HS_NO_TRIGGER },	/* one process */
		{ { 1, 1, 1, 1 }, HS_NO_TRIGGER },
		{ { 0, 1, 0, 0 }, 0 },	/* trigger 1's activators apart */
		{ { 1, 1, 0, 0 }, 0 },	/* trigger 1 starts elsewhere */
		{ { 0, 0, 0, 1 }, 1 },	/* only trigger 2 spans parts */
		{ { 1, 1, 1, 0 }, 1 },
		{ { 0, 1, 1, 0 }, 0 },	/* both: the lowest is said */
	};
	char err[ERR_SIZE] = "";
	struct hs_trigger_state st;
	const uint32_t *go;
	struct hs_traffic t;
	uint32_t split;
	unsigned int i;

	ck_assert_int_eq(hs_traffic_parse_cm("m.cm", text, strlen(text), 4,
					     &t, err, sizeof(err)), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ck_assert_int_eq(hs_traffic_trigger_split(&t, cases[i].part,
							  &split), 0);
		ck_assert_msg(split == cases[i].split,
			      "case %u: trigger %u said, expected %u", i, split,
			      cases[i].split);
	}
	ck_assert_int_eq(hs_trigger_state_init(&st, &t), 0);
	/* Flow 0's acknowledgement and flow 1's reception: the barrier. */
	ck_assert_uint_eq(hs_trigger_flow_end(&t, &st, 0, true, &go), 0);
	ck_assert_uint_eq(hs_trigger_flow_end(&t, &st, 0, false, &go), 0);
	ck_assert_uint_eq(hs_trigger_flow_end(&t, &st, 1, false, &go), 0);
	ck_assert_uint_eq(hs_trigger_flow_end(&t, &st, 1, true, &go), 1);
	ck_assert_uint_eq(go[0], 2);
	/* Flow 2 received starts flow 3. */
	ck_assert_uint_eq(hs_trigger_flow_end(&t, &st, 2, true, &go), 1);
	ck_assert_uint_eq(go[0], 3);
	hs_trigger_state_fini(&st);
	hs_traffic_free(&t);
}
END_TEST

/*
 * The ideal schedule follows triggers in time order: a multishot's k-th
 * flow begins at its k-th activation, a barrier at the last.
 */
START_TEST(test_trigger_ideal)
{
	static const char text[] =
		"Nodes 4\nConnections 5\nTriggers 2\n"
		"0->1 start 0 size 1 send_done_trigger 1\n"
		"1->2 start 10000 size 1 send_done_trigger 1\n"
		"2->3 id 1 trigger 1 size 1 send_done_trigger 2\n"
		"3->0 id 2 trigger 1 size 1 send_done_trigger 2\n"
		"0->2 id 3 trigger 2 size 1\n"
		"trigger id 1 multishot\ntrigger id 2 barrier count 2\n";
	uint64_t send[5] = { 30, 5, 7, 9, 1 }, recv[5] = { 0 }, begin[5];
	char err[ERR_SIZE] = "";
	struct hs_traffic t;

	ck_assert_int_eq(hs_traffic_parse_cm("m.cm", text, strlen(text), 4,
					     &t, err, sizeof(err)), 0);
	ck_assert_int_eq(hs_traffic_ideal_begin(&t, send, recv, 0, begin), 0);
	ck_assert_uint_eq(begin[0], 0);
	ck_assert_uint_eq(begin[1], 10);
	/* Activations at 30 (flow 0) and 15 (flow 1): in time order. */
	ck_assert_uint_eq(begin[2], 15);
	ck_assert_uint_eq(begin[3], 30);
	/* The barrier: ends at 22 and 39. */
	ck_assert_uint_eq(begin[4], 39);
	hs_traffic_free(&t);
}
END_TEST

static Suite *
cm_suite(void)
{
	Suite *s = suite_create("cm");
	TCase *tc = tcase_create("cm");

	tcase_add_test(tc, test_cm_good);
	tcase_add_test(tc, test_cm_build);
	tcase_add_loop_test(tc, test_cm_good_variants, 0,
			    ARRAY_SIZE(good_cases));
	tcase_add_loop_test(tc, test_cm_bad, 0, ARRAY_SIZE(bad_cases));
	tcase_add_test(tc, test_cm_long_text);
	tcase_add_test(tc, test_cm_missing_file);
	tcase_add_test(tc, test_cm_many);
	tcase_add_test(tc, test_trigger_activate);
	tcase_add_test(tc, test_trigger_ideal);
	tcase_add_test(tc, test_trigger_split);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_unit_run_suite("cm", cm_suite());
}
