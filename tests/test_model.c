/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric's model alone (fabric/model/fab_model.h, libofan_fabric_model):
 * this test links it and Check, no DPDK, which is what shows the model
 * builds without DPDK.  An experiment loads with its overrides and seeds,
 * its topology has the links of a fat tree, its config as run loads again
 * to the same params, a run's folder is its own, the config reference
 * names every section, and the recovery models' and congestion
 * controllers' sections are set by the file, overrides, sweeps and
 * variants (a key that moved there from [host] too, reported once).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fab_model.h"
#include "hs_cc.h"
#include "hs_cumack.h"
#include "hs_ecn_window.h"
#include "hs_erasure.h"
#include "unit_suite.h"

/* configs/experiments/NAME.ini of the source tree. */
static const char *
t_experiment(const char *name)
{
	static char path[512];
	const char *src = getenv("OFAN_SRC");

	ck_assert_ptr_nonnull(src);
	snprintf(path, sizeof(path), "%s/configs/experiments/%s.ini", src,
		 name);
	return path;
}

START_TEST(test_load_and_topology)
{
	char *ov[] = { "fabric.k=4", "fabric.schemes=ecmp,ofan,drb" };
	struct fab_experiment x = { 0 };
	struct fab_topo t;
	char err[1024];

	ck_assert_msg(fab_experiment_load_seeds(t_experiment("permutation-k8"),
						ov, 2, true, 7, 3, true, &x,
						err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(x.nb_combos, 1);
	ck_assert_str_eq(x.combos[0].name, "permutation-k8");
	ck_assert_uint_eq(x.combos[0].k, 4);
	ck_assert_uint_eq(x.combos[0].seed, 7);
	ck_assert_uint_eq(x.combos[0].seeds, 3);
	ck_assert_uint_eq(x.combos[0].nb_schemes, 3);
	ck_assert_str_eq(x.combos[0].schemes[2].name, "drb");
	/* k = 4: 16 host links, 16 ToR-agg, 16 agg-core. */
	ck_assert_msg(fab_topo_build_links(&x.combos[0], &t, err,
					   sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(t.nb_hosts, 16);
	ck_assert_uint_eq(t.nb_links, 48);
	ck_assert_uint_ne(fab_topo_find_link(&t, "agg0-core0"), FAB_NONE);
	ck_assert_uint_eq(fab_topo_find_link(&t, "agg1-core5"), FAB_NONE);
	fab_topo_free(&t);
	fab_experiment_free(&x);

	/* A mistake names the override. */
	ov[0] = "fabric.k=5";
	ck_assert_int_ne(fab_experiment_load(t_experiment("permutation-k8"),
					     ov, 1, false, 0, &x, err,
					     sizeof(err)), 0);
	ck_assert_msg(strstr(err, "command line: fabric.k=5") != NULL, "%s",
		      err);
}
END_TEST

/* The config as run loads to the same params as the file + overrides. */
START_TEST(test_resolved_config)
{
	char *ov[] = { "fabric.k=4", "traffic.size=64KiB",
		       "failure.x.link=agg0-core0", "failure.x.at=5us" };
	const struct fab_run_id id = {
		.config = t_experiment("permutation-k8"), .overrides = ov,
		.nb_overrides = 4, .seed_set = true, .seed = 9, .seeds = 2,
	};
	struct fab_experiment a = { 0 }, b = { 0 };
	char err[1024];
	FILE *f = fopen("resolved.ini", "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_msg(fab_experiment_write_resolved(&id, f, err,
						    sizeof(err)) == 0, "%s", err);
	fclose(f);
	ck_assert_msg(fab_experiment_load_seeds(id.config, ov, 4, true, 9, 2,
						true, &a, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_msg(fab_experiment_load("resolved.ini", NULL, 0, false, 0,
					  &b, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(b.combos[0].k, 4);
	ck_assert_uint_eq(b.combos[0].seed, 9);
	ck_assert_uint_eq(b.combos[0].seeds, 2);
	ck_assert_uint_eq(b.combos[0].host.traffic.size, 64 * 1024);
	ck_assert_uint_eq(b.combos[0].nb_failures, 1);
	ck_assert_uint_eq(b.combos[0].failures[0].at_ns, 5000);
	/* The same as the file with the overrides, key by key that matters. */
	ck_assert_uint_eq(a.combos[0].k, b.combos[0].k);
	ck_assert_uint_eq(a.combos[0].rate_bps, b.combos[0].rate_bps);
	ck_assert_uint_eq(a.combos[0].nb_schemes, b.combos[0].nb_schemes);
	ck_assert_int_eq(memcmp(&a.combos[0].queue, &b.combos[0].queue,
				sizeof(a.combos[0].queue)), 0);
	ck_assert_int_eq(memcmp(&a.combos[0].failures[0].at_ns,
				&b.combos[0].failures[0].at_ns,
				sizeof(a.combos[0].failures[0].at_ns)), 0);
	ck_assert_str_eq(b.combos[0].failures[0].link, "agg0-core0");
	fab_experiment_free(&a);
	fab_experiment_free(&b);
	unlink("resolved.ini");
}
END_TEST

START_TEST(test_outdir)
{
	char *ov[] = { "fabric.k=4", "traffic.size=64KiB" };
	struct fab_run_id id = {
		.config = t_experiment("permutation-k8"), .overrides = ov,
		.nb_overrides = 2,
	};
	char dir[512], a[FAB_RUN_ID_LEN + 1], b[FAB_RUN_ID_LEN + 1];
	char err[1024], *many[12];
	int i;
	FILE *f;

	fab_outdir_default("permutation-k8", &id, dir, sizeof(dir));
	ck_assert_str_eq(dir, "results/permutation-k8+fabric.k=4+traffic.size=64KiB");
	id.nb_overrides = 0;
	fab_outdir_default("permutation-k8", &id, dir, sizeof(dir));
	ck_assert_str_eq(dir, "results/permutation-k8");
	id.seed_set = true;
	id.seed = 3;
	fab_outdir_default("permutation-k8", &id, dir, sizeof(dir));
	ck_assert_str_eq(dir, "results/permutation-k8+seed=3");
	/* Too long a name: the identity instead. */
	for (i = 0; i < 12; i++)
		many[i] = "traffic.cm_file=/some/long/path/matrix.cm";
	id.overrides = many;
	id.nb_overrides = 12;
	fab_outdir_default("x", &id, dir, sizeof(dir));
	fab_run_identity(&id, a);
	ck_assert_uint_eq(strlen(dir), strlen("results/x+") + FAB_RUN_ID_LEN);
	ck_assert_str_eq(dir + strlen("results/x+"), a);

	/* Identities: the same run is the same, another is another. */
	id.overrides = ov;
	id.nb_overrides = 2;
	fab_run_identity(&id, a);
	fab_run_identity(&id, b);
	ck_assert_str_eq(a, b);
	id.nb_overrides = 1;
	fab_run_identity(&id, b);
	ck_assert_str_ne(a, b);

	/* A folder: missing, ours, another's, a stranger's. */
	ck_assert_int_eq(fab_outdir_check("out", a, false, err, sizeof(err)), 0);
	ck_assert_int_eq(mkdir("out", 0755), 0);
	f = fopen("out/run.json", "w");
	fprintf(f, "{\n  \"identity\": \"%s\"\n}\n", a);
	fclose(f);
	f = fopen("out/old.png", "w");
	fclose(f);
	ck_assert_int_eq(fab_outdir_check("out", a, false, err, sizeof(err)), 0);
	ck_assert_int_eq(fab_outdir_check("out", b, false, err, sizeof(err)),
			 -EEXIST);
	ck_assert_msg(strstr(err, "holds the results of another run") != NULL,
		      "%s", err);
	ck_assert_int_eq(fab_outdir_check("out", b, true, err, sizeof(err)), 0);
	ck_assert_int_eq(fab_outdir_clear("out", err, sizeof(err)), 0);
	ck_assert_int_eq(access("out/old.png", F_OK), -1);
	f = fopen("out/notes.md", "w");
	fclose(f);
	ck_assert_int_eq(fab_outdir_check("out", a, true, err, sizeof(err)),
			 -EEXIST);
	ck_assert_msg(strstr(err, "'notes.md', which ofan-fabric does not write") != NULL,
		      "%s", err);
	ck_assert_int_eq(fab_outdir_clear("out", err, sizeof(err)), 0);
	ck_assert_int_eq(access("out/notes.md", F_OK), 0);
	unlink("out/notes.md");
	rmdir("out");
}
END_TEST

START_TEST(test_reference)
{
	static const char *const sections[] = {
		"### [fabric]", "### [queue]", "### [queue.tor_up]", "### [traffic]",
		"### [host]", "### [host.reps]", "### [ofan]", "### [failure.NAME]",
		"### [drop.NAME]", "### [sweep.NAME]", "### [recovery.tcp]",
		"### [recovery.erasure]", "### [cc.ecn_window]",
	};
	char *text = NULL, err[1024];
	size_t len = 0;
	unsigned int i;
	FILE *f = open_memstream(&text, &len);

	ck_assert_msg(fab_config_reference(f, err, sizeof(err)) == 0, "%s", err);
	fclose(f);
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		ck_assert_msg(strstr(text, sections[i]) != NULL, "no %s",
			      sections[i]);
	ck_assert_ptr_nonnull(strstr(text,
		"| `k` | an integer in [2, 24] | `4` |"));
	ck_assert(!ofan_cfg_ref_recording());
	free(text);
}
END_TEST

/* A small experiment, its sweeps and variants after it. */
#define T_SMALL "[fabric]\nk = 4\nschemes = ecmp\n" \
	"[traffic]\npattern = permutation\nsize = 64KiB\n"

/* Load text with overrides ov (NULL-terminated); 0 or -EINVAL. */
static int
t_load_text(const char *text, const char *const *ov,
	    struct fab_experiment *x, char *err, size_t err_size)
{
	int n = 0;

	while (ov != NULL && ov[n] != NULL)
		n++;
	err[0] = '\0';
	return fab_experiment_load_mem("/tmp/settings.ini", text, strlen(text),
				       (char *const *)ov, n, false, 0, 0, true,
				       x, err, (unsigned int)err_size);
}

/* Model name's settings block in combination c of x. */
static const void *
t_rec(const struct fab_experiment *x, uint32_t c, const char *name)
{
	return hs_recovery_settings_of(&x->combos[c].host.set.recovery_set,
				       hs_recovery_find(name));
}

#define T_TCP(x, c) ((const struct hs_ca_settings *)t_rec(x, c, "tcp"))
#define T_TRIM(x, c) ((const struct hs_ca_settings *)t_rec(x, c, "trim"))
#define T_ERA(x, c) ((const struct hs_erasure_settings *)t_rec(x, c, "erasure"))
#define T_WIN(x, c) ((const struct hs_ecn_window_settings *)		\
	hs_cc_settings_of(&(x)->combos[c].host.set.cc_set, hs_cc_find("ecn_window")))

/*
 * [recovery.<name>] keys from the file, an override, a sweep and a
 * variant; the [host] keys they were read from there too, each place
 * reported once however many combinations read it; both places refused.
 * [cc.<name>] as well.
 */
START_TEST(test_recovery_settings)
{
	static const char sweeps[] = T_SMALL
		"[recovery.tcp]\ndupacks = 5\n"
		"[sweep.d]\nkeys = recovery.tcp.dupacks\nvalues = 2, 4\n"
		"[sweep.stack]\nvariants = a, b\n"
		"[variant.a]\nhost.recovery = trim\n"
		"recovery.trim.initial_rto = 2ms\n"
		"[variant.b]\nhost.recovery = erasure\nrecovery.erasure.k = 7\n";
	static const char old[] = T_SMALL
		"[host]\nerasure_k = 1\ninitial_rto = 3ms\n"
		"[sweep.d]\nkeys = host.dupacks\nvalues = 2, 4\n"
		"[sweep.stack]\nvariants = a\n"
		"[variant.a]\nhost.sack_limit = 9\n";
	static const char *const ov_new[] = { "recovery.tcp.dupacks=6", NULL };
	static const char *const ov_old[] = { "host.dupacks=6", NULL };
	static const char *const ov_window[] = { "host.window=11", NULL };
	static const char *const ov_both[] = {
		"recovery.tcp.dupacks=6", "host.dupacks=7", NULL,
	};
	struct fab_experiment x;
	char err[1024];

	/* The defaults, then the file's and an override's. */
	ck_assert_msg(t_load_text(T_SMALL, NULL, &x, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(T_TCP(&x, 0)->dupacks, 3);
	ck_assert_uint_eq(T_ERA(&x, 0)->k, 3);
	ck_assert_str_eq(x.moved, "");
	fab_experiment_free(&x);
	ck_assert_msg(t_load_text(T_SMALL, ov_new, &x, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(T_TCP(&x, 0)->dupacks, 6);
	ck_assert_str_eq(x.moved, "");
	fab_experiment_free(&x);

	/* A sweep of the new key, variants of two models' keys. */
	ck_assert_msg(t_load_text(sweeps, NULL, &x, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(x.nb_combos, 4);
	ck_assert_uint_eq(T_TCP(&x, 0)->dupacks, 2);
	ck_assert_uint_eq(T_TCP(&x, 2)->dupacks, 4);
	ck_assert_str_eq(x.combos[0].host.set.recovery->name, "trim");
	ck_assert_uint_eq(T_TRIM(&x, 0)->initial_rto_ns, 2000000);
	ck_assert_uint_eq(T_ERA(&x, 0)->k, 3);
	ck_assert_str_eq(x.combos[1].host.set.recovery->name, "erasure");
	ck_assert_uint_eq(T_ERA(&x, 1)->k, 7);
	ck_assert_uint_eq(T_TRIM(&x, 1)->initial_rto_ns, 1000000);
	ck_assert_str_eq(x.moved, "");
	fab_experiment_free(&x);

	/* The old [host] keys, as an override, a sweep, a variant. */
	ck_assert_msg(t_load_text(T_SMALL, ov_old, &x, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(T_TCP(&x, 0)->dupacks, 6);
	ck_assert_str_eq(x.moved,
		"command line: host.dupacks=6: moved to [recovery.tcp] dupacks; read from [host] for this release only\n");
	fab_experiment_free(&x);
	ck_assert_msg(t_load_text(old, NULL, &x, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(x.nb_combos, 2);
	ck_assert_uint_eq(T_TCP(&x, 0)->dupacks, 2);
	ck_assert_uint_eq(T_TCP(&x, 1)->dupacks, 4);
	ck_assert_uint_eq(T_TCP(&x, 1)->sack_limit, 9);
	ck_assert_uint_eq(T_TCP(&x, 1)->initial_rto_ns, 3000000);
	ck_assert_uint_eq(T_TRIM(&x, 1)->initial_rto_ns, 3000000);
	ck_assert_uint_eq(T_ERA(&x, 1)->k, 1);
	ck_assert_str_eq(x.moved,
		"/tmp/settings.ini:host:initial_rto: moved to [recovery.tcp], [recovery.trim] and [recovery.gbn] initial_rto; read from [host] for this release only\n"
		"/tmp/settings.ini:host:erasure_k: moved to [recovery.erasure] k; read from [host] for this release only\n"
		"/tmp/settings.ini:sweep.d:values: host.dupacks=2: moved to [recovery.tcp] dupacks; read from [host] for this release only\n"
		"/tmp/settings.ini:variant.a:host.sack_limit: host.sack_limit=9: moved to [recovery.tcp] sack_limit; read from [host] for this release only\n"
		"/tmp/settings.ini:sweep.d:values: host.dupacks=4: moved to [recovery.tcp] dupacks; read from [host] for this release only\n");
	fab_experiment_free(&x);

	/* A controller's section likewise, and [host] window. */
	ck_assert_msg(t_load_text(T_SMALL "[cc.ecn_window]\nwindow = 9\n",
				  NULL, &x, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(T_WIN(&x, 0)->window_pkts, 9);
	fab_experiment_free(&x);
	ck_assert_msg(t_load_text(T_SMALL, ov_window, &x, err,
				  sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(T_WIN(&x, 0)->window_pkts, 11);
	ck_assert_str_eq(x.moved,
		"command line: host.window=11: moved to [cc.ecn_window] window; read from [host] for this release only\n");
	fab_experiment_free(&x);

	/* Both places: refused, on the [host] one. */
	ck_assert_int_eq(t_load_text(T_SMALL, ov_both, &x, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "command line: host.dupacks=7: '7' moved to [recovery.tcp] dupacks, which is set too; expected it there only");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("model");

	tcase_add_test(tc, test_load_and_topology);
	tcase_add_test(tc, test_resolved_config);
	tcase_add_test(tc, test_outdir);
	tcase_add_test(tc, test_reference);
	tcase_add_test(tc, test_recovery_settings);
	suite_add_tcase(s, tc);
	return t_unit_run_suite("model", s);
}
