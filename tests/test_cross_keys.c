/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rules of several keys (ofan_config.h, "Cross-key checks") in the
 * programs' loaders: a broken rule names the key an override set (the
 * command line, a sweep's value) when the others came from the file,
 * phrased from that key's side; a key written in the file over one left
 * at its default; and a key wrong by itself before any product of it.
 * Each case is a config text and overrides, and the whole message the
 * loader must give.  ofan-switch and ofan-host take no overrides
 * themselves; their loaders read [queue], [host], [traffic] and [job.*]
 * for ofan-fabric too, whose overrides are applied here as it applies
 * them ("command line: SEC.KEY=VALUE").  Linked without DPDK (the
 * fabric model library holds all three loaders).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fab_model.h"
#include "hs_config.h"
#include "ofan_config.h"
#include "sw_config.h"
#include "unit_suite.h"

#define T_ERR_SIZE 1024
#define T_MAX_OV 3

struct t_case {
	const char *text;		/* the file, t.ini (a base is added) */
	const char *ov[T_MAX_OV];	/* "section.key=value", NULL-ended */
	const char *want;		/* the message, whole */
};

/* The number of overrides of c. */
static int
t_nb_ov(const struct t_case *c)
{
	int n = 0;

	while (n < T_MAX_OV && c->ov[n] != NULL)
		n++;
	return n;
}

/*
 * Load base and c->text as t.ini, apply c's overrides as ofan-fabric
 * does (the section is everything before the last dot), run fill; the
 * message into err ("" when it loads).
 */
static void
t_load(const char *base, const struct t_case *c,
       int (*fill)(struct ofan_cfg *cfg, void *arg), void *arg, char *err)
{
	char text[4096], origin[256], sec[128];
	struct ofan_cfg *cfg;
	int i;

	snprintf(text, sizeof(text), "%s%s", base, c->text);
	cfg = ofan_cfg_load_mem("t.ini", text, strlen(text), err, T_ERR_SIZE);
	ck_assert_msg(cfg != NULL, "%s", err);
	for (i = 0; i < t_nb_ov(c); i++) {
		const char *eq = strchr(c->ov[i], '='), *dot;

		ck_assert_ptr_nonnull(eq);
		snprintf(sec, sizeof(sec), "%.*s", (int)(eq - c->ov[i]),
			 c->ov[i]);
		dot = strrchr(sec, '.');
		ck_assert_ptr_nonnull(dot);
		sec[dot - sec] = '\0';
		snprintf(origin, sizeof(origin), "command line: %s", c->ov[i]);
		ck_assert_int_eq(ofan_cfg_set_from(cfg, sec,
						   sec + strlen(sec) + 1,
						   eq + 1, origin), 0);
	}
	err[0] = '\0';
	if (fill(cfg, arg) != 0)
		snprintf(err, T_ERR_SIZE, "%s", ofan_cfg_error(cfg));
	ofan_cfg_free(cfg);
}

/*
 * Check every case, reporting each that gives another message: one
 * test per program, which fails if any of its cases does.
 */
static void
t_check_all(const char *what, const struct t_case *cases, size_t n,
	    void (*load)(const struct t_case *c, char *err))
{
	char err[T_ERR_SIZE];
	unsigned int bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		load(&cases[i], err);
		if (strcmp(err, cases[i].want) == 0)
			continue;
		fprintf(stderr, "%s case %zu (%s%s):\n  got  '%s'\n  want '%s'\n",
			what, i, cases[i].ov[0] != NULL ? cases[i].ov[0] : "",
			cases[i].ov[0] != NULL ? "" : "file only", err,
			cases[i].want);
		bad++;
	}
	ck_assert_msg(bad == 0, "%u of %zu %s cases give another message",
		      bad, n, what);
}

/* ---- ofan-switch's loader ---- */

static const char t_switch_base[] =
	"[switch]\npolicy = ecmp\n"
	"[port.0]\ndev = net_null0\n[port.1]\ndev = net_null1\n"
	"[route.a]\nprefix = 10.0.0.0/24\nport = 1\n";

static const struct t_case t_switch_cases[] = {
	/* kmin <= kmax: the command line's kmin, not the file's kmax ... */
	{ "[queue]\necn_kmax = 64KiB\n", { "queue.ecn_kmin=1MiB" },
	  "command line: queue.ecn_kmin=1MiB: '1048576' bytes is above ecn_kmax (65536 bytes); expected ecn_kmin <= ecn_kmax" },
	/* ... the command line's kmax, not the file's kmin ... */
	{ "[queue]\necn_kmin = 64KiB\n", { "queue.ecn_kmax=32KiB" },
	  "command line: queue.ecn_kmax=32KiB: '32768' bytes is below ecn_kmin (65536 bytes); expected ecn_kmin <= ecn_kmax" },
	/* ... both in the file: the key the rule is stated from ... */
	{ "[queue]\necn_kmin = 64KiB\necn_kmax = 32KiB\n", { NULL },
	  "t.ini:queue:ecn_kmax: '32768' bytes is below ecn_kmin (65536 bytes); expected ecn_kmin <= ecn_kmax" },
	/* ... both on the command line: likewise ... */
	{ "", { "queue.ecn_kmin=64KiB", "queue.ecn_kmax=32KiB" },
	  "command line: queue.ecn_kmax=32KiB: '32768' bytes is below ecn_kmin (65536 bytes); expected ecn_kmin <= ecn_kmax" },
	/* ... the written kmin, not the default kmax it passes ... */
	{ "[port.0]\necn_kmin = 512KiB\n", { NULL },
	  "t.ini:port.0:ecn_kmin: '524288' bytes is above ecn_kmax (262144 bytes); expected ecn_kmin <= ecn_kmax" },
	/* ... and the command line's ecn that makes them matter. */
	{ "[queue]\necn = no\necn_kmin = 1MiB\necn_kmax = 64KiB\n",
	  { "queue.ecn=yes" },
	  "command line: queue.ecn=yes: 'yes' with ecn_kmin (1048576 bytes) above ecn_kmax (65536 bytes); expected ecn_kmin <= ecn_kmax, or ecn = no" },
	/* xon < xoff: the written xoff under the default xon. */
	{ "[queue]\npfc = yes\npfc_xoff = 20000\n", { NULL },
	  "t.ini:queue:pfc_xoff: '20000' bytes is not above pfc_xon (24000 bytes); expected pfc_xon < pfc_xoff" },
	{ "[queue]\npfc = yes\npfc_xoff = 32KiB\n", { "queue.pfc_xon=40000" },
	  "command line: queue.pfc_xon=40000: '40000' bytes is not below pfc_xoff (32768 bytes); expected pfc_xon < pfc_xoff" },
	/* A key of pfc or trim, and the switch the command line turned. */
	{ "[queue]\npfc = yes\npfc_xoff = 64KiB\n", { "queue.pfc=no" },
	  "command line: queue.pfc=no: 'no' with pfc_xoff set; expected pfc = yes, or no pfc_xoff" },
	{ "[port.0]\ntrim = yes\n", { "port.0.queue=no" },
	  "command line: port.0.queue=no: 'no' with trim = yes; expected queue = yes (a frame is trimmed where it would overflow the software queue), or trim = no" },
	{ "[port.0]\ntrim = yes\nrts = always\n", { "port.0.trim=no" },
	  "command line: port.0.trim=no: 'no' with rts set; expected trim = yes, or no rts" },
	/* Levels: one of two keys; each key's own mistake first. */
	{ "[queue]\nlevels = 4\n", { "queue.level_thresholds=0.5" },
	  "command line: queue.level_thresholds=0.5: '0.5' with levels; expected one of levels (linear) and level_thresholds" },
	{ "[queue]\nlevels = 4\nlevel_thresholds = 0.5, 0.2\n", { NULL },
	  "t.ini:queue:level_thresholds: '0.5, 0.2' is not a list of thresholds; expected increasing fractions of the queue between 0 and 1, comma separated (at most 15), e.g. 0.05, 0.1, 0.2" },
	/* A key missing for a mode the command line chose. */
	{ "[drop.x]\nport = 0\nmode = bursts\n", { "drop.x.mode=random" },
	  "command line: drop.x.mode=random: 'random' without a rate; expected rate = the probability of a loss too, or another mode" },
	{ "[failure.x]\nport = 1\nmode = down\nat = 1ms\n",
	  { "failure.x.mode=degraded" },
	  "command line: failure.x.mode=degraded: 'degraded' without a rate; expected rate = the degraded rate (e.g. 1G) too" },
	/* One of group and port; members for the weights. */
	{ "[group.up]\nmembers = 1\n", { "route.a.group=up" },
	  "command line: route.a.group=up: given together with port; expected exactly one of group = <name of a [group.NAME]> or port = <port number>" },
	{ "[group.up]\nmembers = 0, 1\nweights = 1, 2\n",
	  { "group.up.members=1" },
	  "command line: group.up.members=1: '1' lists 1 port(s) for 2 weights; expected one weight per member" },
	/* Two sections on one port: the one the command line set. */
	{ "[drop.a]\nport = 0\nmode = random\nrate = 0.1\n"
	  "[drop.b]\nport = 1\nmode = random\nrate = 0.1\n",
	  { "drop.a.port=1" },
	  "command line: drop.a.port=1: '1' is lossy in [drop.b] too; expected one per port" },
};

static int
t_switch_fill(struct ofan_cfg *cfg, void *arg)
{
	return sw_config_from_cfg(cfg, arg);
}

static void
t_switch_load(const struct t_case *c, char *err)
{
	struct sw_config *sw = calloc(1, sizeof(*sw));

	ck_assert_ptr_nonnull(sw);
	t_load(t_switch_base, c, t_switch_fill, sw, err);
	free(sw);
}

START_TEST(test_switch_rules)
{
	t_check_all("ofan-switch", t_switch_cases,
		    sizeof(t_switch_cases) / sizeof(t_switch_cases[0]),
		    t_switch_load);
}
END_TEST

/* ---- ofan-host's loader ---- */

static const char t_host_base[] =
	"[port.0]\ndev = net_null0\nrank = 0\n"
	"[host]\npolicy = reps\nrate = 1G\n";

static const struct t_case t_host_cases[] = {
	/* ev_min <= ev_max, both ways. */
	{ "[host]\nev_max = 60000\n[ranks]\ncount = 4\n"
	  "[traffic]\npattern = alltoall\n", { "host.ev_min=65000" },
	  "command line: host.ev_min=65000: '65000' is above ev_max (60000); expected ev_min <= ev_max" },
	{ "[host]\nev_min = 60000\nev_max = 50000\n[ranks]\ncount = 4\n"
	  "[traffic]\npattern = alltoall\n", { NULL },
	  "t.ini:host:ev_max: '50000' is below ev_min (60000); expected ev_min <= ev_max" },
	/* The written ip_base, not the default per_subnet. */
	{ "[ranks]\ncount = 4\nip_base = 10.0.0.255\n"
	  "[traffic]\npattern = alltoall\n", { NULL },
	  "t.ini:ranks:ip_base: '10.0.0.255' leaves room for 0 ranks a subnet before .254, fewer than per_subnet = 1; expected ip_base's last byte + per_subnet <= 255" },
	/*
	 * A key that moved from [host] to a model's section, set in both
	 * places: the command line's, or else the old place, is named.
	 */
	{ "[host]\nrecovery = tcp\ndupacks = 3\n[ranks]\ncount = 4\n"
	  "[traffic]\npattern = alltoall\n", { "recovery.tcp.dupacks=2" },
	  "command line: recovery.tcp.dupacks=2: '2' is set as [host] dupacks too, its place before it moved here; expected it here only" },
	{ "[host]\nrecovery = tcp\n[recovery.tcp]\ndupacks = 3\n"
	  "[ranks]\ncount = 4\n[traffic]\npattern = alltoall\n",
	  { "host.dupacks=2" },
	  "command line: host.dupacks=2: '2' moved to [recovery.tcp] dupacks, which is set too; expected it there only" },
	{ "[host]\ninitial_rto = 2ms\n[recovery.gbn]\ninitial_rto = 3ms\n"
	  "[ranks]\ncount = 4\n[traffic]\npattern = alltoall\n", { NULL },
	  "t.ini:host:initial_rto: '2ms' moved to [recovery.tcp], [recovery.trim] and [recovery.gbn] initial_rto, and [recovery.gbn] sets it too; expected it in the new places only" },
	/* Pacing, and the command line's choice. */
	{ "[host]\npacing = flow\npacing_jitter = 0.1\n[ranks]\ncount = 4\n"
	  "[traffic]\npattern = alltoall\n", { "host.pacing=host" },
	  "command line: host.pacing=host: 'host' with pacing_jitter = 0.1; expected pacing = flow (per-flow pacers), or no jitter" },
	/* A pattern's rule: the rank count the command line set ... */
	{ "[ranks]\ncount = 4\n[traffic]\npattern = incast\nincast_degree = 3\n",
	  { "ranks.count=3" },
	  "command line: ranks.count=3: '3' conflicts with [traffic] incast_degree: '3' senders with 3 ranks; expected 1 to 2 (fewer than the ranks)" },
	/* ... a key missing for the pattern the file chose, named so ... */
	{ "[ranks]\ncount = 4\n[traffic]\npattern = ring\n", { NULL },
	  "t.ini:traffic:pod_size: missing; expected the hosts per pod for pattern = ring" },
	/* ... and for the pattern the command line chose, the pattern. */
	{ "[ranks]\ncount = 4\n[traffic]\npattern = alltoall\n",
	  { "traffic.pattern=ring" },
	  "command line: traffic.pattern=ring: 'ring' conflicts with [traffic] pod_size: missing; expected the hosts per pod for pattern = ring" },
	/* A job: pp dividing layers before the ranks against the hosts ... */
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n"
	  "[job.a]\ndp = 4\nlayers = 4\npp = 3\n", { NULL },
	  "t.ini:job.a:pp: '3' does not divide layers = 4; expected a divisor of the layers (a stage is layers / pp of them)" },
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n[job.a]\npp = 2\n",
	  { "job.a.layers=3" },
	  "command line: job.a.layers=3: '3' is not a multiple of pp = 2; expected a multiple of pp (a stage is layers / pp of them)" },
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n[job.a]\npp = 3\n",
	  { "job.a.preset=llama2-7b" },
	  "command line: job.a.preset=llama2-7b: 'llama2-7b' has 32 layers, which pp = 3 does not divide; expected pp dividing the layers, or layers = a multiple of pp" },
	/* ... the ranks: the degree the command line set ... */
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n[job.a]\ndp = 4\n",
	  { "job.a.tp=2" },
	  "command line: job.a.tp=2: '2' makes dp x tp x pp = 4 x 2 x 1 = 8 ranks; expected at most the 4 hosts" },
	/* ... or the hosts it set ... */
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n[job.a]\ndp = 4\n",
	  { "ranks.count=2" },
	  "command line: ranks.count=2: '2' makes 2 hosts, fewer than the 4 ranks of [job.a]; expected at least 4 hosts (a host runs one rank)" },
	/* ... and over several jobs, the job it set. */
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n"
	  "[job.a]\ndp = 2\n[job.b]\ndp = 2\n", { "job.a.dp=3" },
	  "command line: job.a.dp=3: '3' makes the jobs up to [job.b] 5 ranks; expected at most the 4 hosts (a host runs one rank)" },
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n[job.a]\n"
	  "model = moe\ndp = 4\nep = 2\n", { "job.a.experts=3" },
	  "command line: job.a.experts=3: '3' is not a multiple of ep = 2; expected a multiple of ep (a rank holds experts / ep of them)" },
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n[job.a]\n"
	  "model = chakra\nranks = 2\ntrace = x\n", { "job.a.model=dense" },
	  "command line: job.a.model=dense: 'dense' with trace set; expected model = chakra, or no trace" },
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n[job.a]\nranks = 2\n",
	  { "job.a.model=chakra" },
	  "command line: job.a.model=chakra: 'chakra' without trace; expected trace too, or another model" },
	/* A product of sizes: on tflops, or the key the command line set. */
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n[job.a]\n"
	  "seq_len = 4194304\n", { "job.a.hidden=65536" },
	  "command line: job.a.hidden=65536: '65536' makes a compute node (a layer's backward, or the optimizer) longer than an hour; expected a faster rank or a smaller model" },
	{ "[ranks]\ncount = 4\n[traffic]\npattern = jobs\n[job.a]\n"
	  "seq_len = 4194304\nhidden = 65536\n", { NULL },
	  "t.ini:job.a:hidden: '65536' makes a compute node (a layer's backward, or the optimizer) longer than an hour; expected a faster rank or a smaller model" },
};

static int
t_host_fill(struct ofan_cfg *cfg, void *arg)
{
	return hs_config_from_cfg(cfg, arg);
}

static void
t_host_load(const struct t_case *c, char *err)
{
	struct hs_config *hc = calloc(1, sizeof(*hc));

	ck_assert_ptr_nonnull(hc);
	t_load(t_host_base, c, t_host_fill, hc, err);
	free(hc);
}

START_TEST(test_host_rules)
{
	t_check_all("ofan-host", t_host_cases,
		    sizeof(t_host_cases) / sizeof(t_host_cases[0]),
		    t_host_load);
}
END_TEST

/* ---- ofan-fabric's loader ---- */

static const char t_fabric_base[] =
	"[fabric]\nschemes = ecmp\n";
static const char t_permutation[] =
	"[traffic]\npattern = permutation\nsize = 64KiB\n";

static const struct t_case t_fabric_cases[] = {
	/* kmin <= kmax, both ways; another key's override changes nothing. */
	{ "[queue]\necn_kmax = 64KiB\n", { "queue.ecn_kmin=1MiB" },
	  "command line: queue.ecn_kmin=1MiB: '1048576' bytes is above ecn_kmax (65536 bytes); expected ecn_kmin <= ecn_kmax" },
	{ "[queue]\necn_kmin = 1MiB\n", { "fabric.seed=2" },
	  "t.ini:queue:ecn_kmin: '1048576' bytes is above ecn_kmax (262144 bytes); expected ecn_kmin <= ecn_kmax" },
	/* A sweep's value is blamed like the command line's. */
	{ "[queue]\necn_kmax = 64KiB\n"
	  "[sweep.m]\nkeys = queue.ecn_kmin\nvalues = 32KiB, 1MiB\n", { NULL },
	  "t.ini:sweep.m:values: queue.ecn_kmin=1MiB: '1048576' bytes is above ecn_kmax (65536 bytes); expected ecn_kmin <= ecn_kmax (sweep m = 1MiB)" },
	/* The topology: k with the topology, threads with its parts. */
	{ "[fabric]\ntopology = leafspine\nk = 5\n", { "fabric.topology=fattree" },
	  "command line: fabric.topology=fattree: 'fattree' with an odd k (5); expected an even k from 2 to 24 for a fat tree, or another topology" },
	{ "[fabric]\nthreads = 4\n", { "fabric.k=2" },
	  "command line: fabric.k=2: '2' makes a fattree that cuts into 2 parts, fewer than threads = 4; expected at least as many parts (a fat tree's pods, the fewer of a leaf-spine's leaves and spines) as threads, or fewer threads" },
	{ "[fabric]\nuplink_rate = 50G\n", { "fabric.oversubscription=2" },
	  "command line: fabric.oversubscription=2: is set together with uplink_rate; expected one of them" },
	/* Each key's own mistake before the rule between them. */
	{ "[fabric]\noversubscription = 2\nuplink_rate = 10\n", { NULL },
	  "t.ini:fabric:uplink_rate: '10' is out of range; expected a rate in [1M, 10T] bits/s" },
	{ "[fabric]\nqueue_window = 10ns\n", { "fabric.time_limit=1s" },
	  "command line: fabric.time_limit=1s: '1s' makes 100000000 windows of queue_window (10 ns); expected at most 1000000 (a shorter time_limit or a longer window)" },
	/* A frame against the queues and the wire bytes. */
	{ "[queue]\nqueue_bytes = 8000\n", { "fabric.mtu=9000" },
	  "command line: fabric.mtu=9000: '9000' makes a full data frame count as 9014 bytes in a queue, more than [queue] queue_bytes (8000) holds; expected a frame that fits, or a larger queue_bytes" },
	{ "[fabric]\ndata_wire_bytes = 4100\n", { "fabric.mtu=9000" },
	  "command line: fabric.mtu=9000: '9000' is too large for data_wire_bytes = 4100 (a 60-byte data frame would cost less than a byte); expected at most 4145, or data_wire_bytes = 0" },
	/* A layer's written queue_bytes, not the ecn_kmin it inherits. */
	{ "[queue]\necn_kmin = 64KiB\n[queue.tor_down]\nqueue_bytes = 32KiB\n",
	  { NULL },
	  "t.ini:queue.tor_down:queue_bytes: '32768' bytes is not above ecn_kmin (65536), so nothing would be marked; expected more than 65536, or ecn = no" },
	/* Failures: a mode without its rate, a rate above the link's, a
	 * link twice. */
	{ "[failure.x]\nlink = agg0-core0\nat = 1us\n",
	  { "failure.x.mode=degraded" },
	  "command line: failure.x.mode=degraded: 'degraded' without a rate; expected rate = the degraded rate (e.g. 25G) too" },
	{ "[failure.x]\nlink = agg0-core0\nmode = degraded\nrate = 25G\nat = 1us\n",
	  { "fabric.rate=10G" },
	  "command line: fabric.rate=10G: '10G' makes link agg0-core0 10000000000 bit/s, not above the degraded rate of [failure.x] (25000000000 bit/s); expected a link rate above it, or a lower degraded rate" },
	{ "[failure.a]\nlink = agg0-core0\nat = 1us\n"
	  "[failure.b]\nlink = agg2-core0\nat = 1us\n",
	  { "failure.a.link=agg2-core0" },
	  "command line: failure.a.link=agg2-core0: 'agg2-core0' fails in [failure.b] too; expected one failure per link" },
	{ "[sweep.d]\nkeys = fabric.delay\nvalues = 1us, 2us\n",
	  { "sweep.d.keys=fabric.delay,fabric.seed" },
	  "command line: sweep.d.keys=fabric.delay,fabric.seed: 'fabric.delay,fabric.seed' names 2 key(s), but value '1us' has 1 part(s); expected one value per key, separated by '/'" },
};

/* The same with a [traffic] of their own (no t_permutation). */
static const struct t_case t_fabric_traffic_cases[] = {
	/* A pattern's rule: the topology's rank count or ToR size. */
	{ "[traffic]\npattern = incast\nincast_degree = 8\n", { "fabric.k=2" },
	  "command line: fabric.k=2: '2' conflicts with [traffic] incast_degree: '8' senders with 2 ranks; expected 1 to 1 (fewer than the ranks)" },
	{ "[fabric]\ntopology = leafspine\nleaves = 4\nspines = 2\n"
	  "hosts_per_leaf = 1\n[traffic]\npattern = ring\n", { NULL },
	  "t.ini:fabric:hosts_per_leaf: '1' conflicts with [traffic] tor_size: '1'; expected at least 2 hosts per ToR for pattern = ring" },
};

/* Load base + c->text (+ permutation traffic) with c's overrides. */
static void
t_fabric_load_with(const struct t_case *c, const char *traffic, char *err)
{
	char text[4096];
	struct fab_experiment x;
	int rc;

	snprintf(text, sizeof(text), "%s%s%s", t_fabric_base, c->text,
		 traffic);
	rc = fab_experiment_load_mem("t.ini", text, strlen(text),
				     (char *const *)c->ov, t_nb_ov(c), false,
				     0, 0, true, &x, err, T_ERR_SIZE);
	if (rc == 0) {
		err[0] = '\0';
		fab_experiment_free(&x);
	}
}

static void
t_fabric_load(const struct t_case *c, char *err)
{
	t_fabric_load_with(c, t_permutation, err);
}

static void
t_fabric_traffic_load(const struct t_case *c, char *err)
{
	t_fabric_load_with(c, "", err);
}

/* configs/experiments/NAME of the source tree. */
static const char *
t_experiment(const char *name)
{
	static char path[512];
	const char *src = getenv("OFAN_SRC");

	ck_assert_ptr_nonnull(src);
	snprintf(path, sizeof(path), "%s/configs/experiments/%s", src, name);
	return path;
}

/* The shipped experiments with one override: a message that names it. */
struct t_shipped {
	const char *experiment;
	const char *ov;
	const char *want;
};

static const struct t_shipped t_shipped_cases[] = {
	/* pp = 3 is wrong by itself (4 layers), before dp x tp x pp. */
	{ "training/dense.ini", "job.llama.pp=3",
	  "command line: job.llama.pp=3: '3' does not divide layers = 4; expected a divisor of the layers (a stage is layers / pp of them)" },
	{ "training/dense.ini", "job.llama.dp=8",
	  "command line: job.llama.dp=8: '8' makes dp x tp x pp = 8 x 2 x 2 = 32 ranks; expected at most the 16 hosts" },
	{ "training/dense.ini", "fabric.k=2",
	  "command line: fabric.k=2: '2' makes 2 hosts, fewer than the 16 ranks of [job.llama]; expected at least 16 hosts (a host runs one rank)" },
	/* The command line's ecn_kmin, not the file's ecn_kmax. */
	{ "permutation-k8.ini", "queue.ecn_kmin=1MiB",
	  "command line: queue.ecn_kmin=1MiB: '1048576' bytes is above ecn_kmax (207500 bytes); expected ecn_kmin <= ecn_kmax" },
};

static void
t_shipped_load(const struct t_shipped *s, char *err)
{
	char *ov[1] = { (char *)s->ov };
	struct fab_experiment x;

	if (fab_experiment_load_seeds(t_experiment(s->experiment), ov, 1,
				      false, 0, 0, true, &x, err,
				      T_ERR_SIZE) == 0) {
		err[0] = '\0';
		fab_experiment_free(&x);
	}
}

START_TEST(test_fabric_rules)
{
	char err[T_ERR_SIZE];
	unsigned int bad = 0;
	size_t i;

	t_check_all("ofan-fabric", t_fabric_cases,
		    sizeof(t_fabric_cases) / sizeof(t_fabric_cases[0]),
		    t_fabric_load);
	t_check_all("ofan-fabric", t_fabric_traffic_cases,
		    sizeof(t_fabric_traffic_cases) /
		    sizeof(t_fabric_traffic_cases[0]),
		    t_fabric_traffic_load);
	for (i = 0; i < sizeof(t_shipped_cases) / sizeof(t_shipped_cases[0]);
	     i++) {
		t_shipped_load(&t_shipped_cases[i], err);
		if (strcmp(err, t_shipped_cases[i].want) == 0)
			continue;
		fprintf(stderr, "%s %s:\n  got  '%s'\n  want '%s'\n",
			t_shipped_cases[i].experiment, t_shipped_cases[i].ov,
			err, t_shipped_cases[i].want);
		bad++;
	}
	ck_assert_msg(bad == 0, "%u shipped experiments give another message",
		      bad);
}
END_TEST

/*
 * A trace of other files than the ranks the file gives (chakra.ini: 16):
 * the command line's trace, not the file's ranks.
 */
START_TEST(test_fabric_trace_files)
{
	char ov[600], want[T_ERR_SIZE + 2048], err[T_ERR_SIZE];
	struct t_shipped s = { "training/chakra.ini", ov, want };
	const char *src = getenv("OFAN_SRC");
	char prefix[512];

	ck_assert_ptr_nonnull(src);
	snprintf(prefix, sizeof(prefix),
		 "%s/tests/data/chakra/astra-sim/all_gather/8npus_1MB/all_gather",
		 src);
	snprintf(ov, sizeof(ov), "job.a2a.trace=%s", prefix);
	snprintf(want, sizeof(want),
		 "command line: job.a2a.trace=%s: '%s' has 8 files (%s.0.et .. %s.7.et), fewer than ranks = 16; expected a trace of 16 files, or ranks = 8",
		 prefix, prefix, prefix, prefix);
	t_shipped_load(&s, err);
	ck_assert_str_eq(err, want);
}
END_TEST

static Suite *
cross_keys_suite(void)
{
	Suite *s = suite_create("cross_keys");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_switch_rules);
	tcase_add_test(tc, test_host_rules);
	tcase_add_test(tc, test_fabric_rules);
	tcase_add_test(tc, test_fabric_trace_files);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_unit_run_suite("cross-keys", cross_keys_suite());
}
