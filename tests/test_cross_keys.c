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
	/* A key of one model or pacing, and the command line's choice. */
	{ "[host]\nrecovery = tcp\ndupacks = 3\n[ranks]\ncount = 4\n"
	  "[traffic]\npattern = alltoall\n", { "host.recovery=sack" },
	  "command line: host.recovery=sack: 'sack' with dupacks set; expected recovery = tcp, or no dupacks" },
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

static Suite *
cross_keys_suite(void)
{
	Suite *s = suite_create("cross_keys");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_switch_rules);
	tcase_add_test(tc, test_host_rules);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_unit_run_suite("cross-keys", cross_keys_suite());
}
