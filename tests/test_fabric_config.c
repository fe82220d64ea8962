/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fabric: configuration errors (each kind of mistake refused with
 * file:section:key), experiments from memory, variants, and the topology
 * (links-only, route weights after failures).
 * (helpers and fixtures: fabric_t.h, test_fabric.c).
 */
#include "fabric_t.h"

/* ==== 5. configuration errors ==== */

/*
 * One kind of mistake each, in an otherwise valid experiment (the
 * template below, which loads): fab_experiment_load() returns -EINVAL
 * with "FILE:SECTION:KEY: " and the bad value in its message.
 */
struct t_bad_case {
	const char *k;		/* [fabric] k */
	const char *schemes;	/* [fabric] schemes */
	const char *fabric;	/* more lines of [fabric] */
	const char *tail;	/* more sections */
	const char *override;	/* a command-line override, or NULL */
	const char *where;	/* "section:key" the message must name */
	const char *value;	/* and this, quoted as written */
};

static const char t_bad_template[] =
	"; written by tests/test_fabric.c\n"
	"[fabric]\n"
	"topology = fattree\n"
	"k = %s\n"
	"schemes = %s\n"
	"%s"
	"[traffic]\n"
	"pattern = permutation\n"
	"size = 256KiB\n"
	"%s";

static const struct t_bad_case t_bad_cases[] = {
	/* 0: the template as is: loads. */
	{ "4", "ecmp, ofan", "", "", NULL, NULL, NULL },
	{ "5", "ecmp, ofan", "", "", NULL, "fabric:k", "'5'" },
	{ "4", "ecmp, warp", "", "", NULL, "fabric:schemes", "'warp'" },
	{ "4", "ecmp, ofan", "",
	  "[failure.cut]\nlink = agg9-core0\nat = 10us\n", NULL,
	  "failure.cut:link", "'agg9-core0'" },
	/* ... and the message names real links of this topology. */
	{ "4", "ecmp, ofan", "",
	  "[failure.cut]\nlink = agg1-core5\nat = 10us\n", NULL,
	  "failure.cut:link",
	  "such as h0-tor0, tor0-agg0, agg0-core0 (48 links: ofan-fabric --config FILE --list-links" },
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = tor0-core0\nframe = 1\n", NULL,
	  "drop.x:link", "such as h0-tor0, tor0-agg0" },
	/* A list names links; first_links takes no more than it lists. */
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink = agg0-core0 agg0-core9\nat = 1us\n",
	  NULL, "failure.x:link", "'agg0-core9'" },
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = core0-agg0 core1-agg0\nmode = random\nrate = 0.1\nfirst_links = 3\n",
	  NULL, "drop.x:first_links", "expected 0 (all) to 2" },
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink =  \nat = 1us\n",
	  NULL, "failure.x:link", NULL },
	/* One way is the wire's; routing takes back what returns. */
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink = agg0-core0\nmode = down\nat = 1us\none_way = yes\n",
	  NULL, "failure.x:one_way", "expected no with mode = down" },
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink = agg0-core0\nmode = stall\nat = 1us\nroute_back = 5us\n",
	  NULL, "failure.x:route_back", "expected a duration too" },
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink = agg0-core0\nmode = queue\nat = 1us\n",
	  NULL, "failure.x:mode", "stall" },
	/* A lossy link's keys are its mode's, and it must lose. */
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = core0-agg0\nmode = random\n", NULL,
	  "drop.x:rate", NULL },
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = core0-agg0\nmode = random\nrate = 0\n", NULL,
	  "drop.x:rate", "expected a probability in (0, 1]" },
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = core0-agg0\nmode = bursts\nframe = 3\n", NULL,
	  "drop.x:frame", "is a key of mode = frames, not of mode = bursts" },
	{ "4", "ecmp, ofan", "",
	  "[drop.x]\nlink = core0-agg0\nmode = flaky\n", NULL,
	  "drop.x:mode", "frames" },
	{ "4", "ecmp, ofan", "", "[queue]\nrate = 10G\n", NULL,
	  "queue:rate", NULL },
	{ "4", "ecmp, ofan", "", "[host]\npolicy = ops\n", NULL,
	  "host:policy", NULL },
	{ "4", "ecmp, ofan", "colour = blue\n", "", NULL, "fabric:colour",
	  NULL },
	{ "4", "ecmp, ofan", "",
	  "[sweep.d]\nkeys = fabric.delay, fabric.k\nvalues = 1us/4, 2us\n",
	  NULL, "sweep.d:values", "'2us'" },
	/* An override is checked like the file, and blamed on it. */
	{ "4", "ecmp, ofan", "", "", "fabric.k=7", "fabric:k", "'7'" },
	/* An override's mistake is blamed on the override, not the file. */
	{ "4", "ecmp, ofan", "", "", "traffic.sise=1MiB", "traffic:sise",
	  "unknown key; allowed keys in [traffic]: pattern, size" },
	/* The allowed keys offer only what the fabric takes (policy, rate,
	 * mtu, tor_size and pod_size are the fabric's own). */
	{ "4", "ecmp, ofan", "", "", "host.colour=1", "host:colour",
	  "allowed keys in [host]: seed, rate_coef, ack_every," },
	{ "4", "ecmp, ofan", "", "", "traffic.colour=1", "traffic:colour",
	  "allowed keys in [traffic]: pattern, size, iterations, seed, start, incast_degree, cm_file" },
	/* Each combination's links are its own topology's (k = 6 has no
	 * agg5-core3, k = 4 does). */
	{ "4", "ecmp, ofan", "",
	  "[failure.x]\nlink = agg5-core3\nat = 1us\n"
	  "[sweep.k]\nkeys = fabric.k\nvalues = 4, 4, 6\n", NULL,
	  "failure.x:link", "'agg5-core3' is not a link of this fattree" },
	/* A sweep key must be one an override can  */
	{ "4", "ecmp, ofan", "",
	  "[sweep.d]\nkeys = fabric.delay = 1us\nvalues = 2us\n", NULL,
	  "sweep.d:keys", "'fabric.delay = 1us' is not section.key" },
	{ "4", "ecmp, ofan", "",
	  "[sweep.d]\nkeys = fabric.delay, traffic.a:b, fabric.\n"
	  "values = 1us/1/2\n", NULL,
	  "sweep.d:keys", "'traffic.a:b' is not section.key" },
	/* The frame model: a data frame must cost at least a byte, a pacing
	 * slot a minimum frame; traffic_seed is one of two words. */
	{ "4", "ecmp, ofan", "data_wire_bytes = 10\n", "", NULL,
	  "fabric:data_wire_bytes", "'10' leaves a 60-byte data frame" },
	{ "4", "ecmp, ofan", "", "[host]\npace_bytes = 63\n", NULL,
	  "host:pace_bytes", "'63' is less than a minimum frame" },
	{ "4", "ecmp, ofan", "traffic_seed = sometimes\n", "", NULL,
	  "fabric:traffic_seed", "'sometimes'" },
	/* A sweep's on its section and the value it applied. */
	{ "4", "ecmp, ofan", "",
	  "[sweep.load]\nkeys = host.rate_coef\nvalues = 0.5, 7\n", NULL,
	  "sweep.load:values: host.rate_coef=7", "'7' is out of range" },
	/* Per-layer queues: a layer of this topology, a fabric's queue. */
	{ "4", "ecmp, ofan", "", "[queue.spine_down]\ntrim = yes\n", NULL,
	  "queue.spine_down", "unknown section" },
	{ "4", "ecmp, ofan", "", "[queue.agg_up]\nrate = 10G\n", NULL,
	  "queue.agg_up:rate", "shaping rate" },
	/* A queue that holds no full frame, or marks above what it holds. */
	{ "4", "ecmp, ofan", "", "[queue]\nqueue_bytes = 4000\n", NULL,
	  "queue:queue_bytes", "'4000' bytes holds no full data frame, which the queue counts as 4110 bytes; expected at least 4110" },
	{ "4", "ecmp, ofan", "",
	  "[queue]\nqueue_bytes = 64KiB\necn = yes\necn_kmin = 64KiB\n",
	  NULL, "queue:ecn_kmin", "'65536' bytes is not below queue_bytes (65536)" },
	{ "4", "ecmp, ofan", "", "[queue.tor_down]\nqueue_bytes = 2KiB\n",
	  NULL, "queue.tor_down:queue_bytes", "holds no full data frame" },
	{ "4", "ecmp, ofan", "", "[queue.tor_down]\nrts = always\n", NULL,
	  "queue.tor_down:rts", "set while trim = no" },
	{ "4", "ecmp, ofan", "", "[queue]\npfc = yes\npfc_mode = nic\n", NULL,
	  "queue:pfc_mode", "'nic'" },
	/* Variant sweeps: each names a [variant.NAME] of section.key lines. */
	{ "4", "ecmp, ofan", "",
	  "[sweep.stack]\nvariants = a, b\n[variant.a]\nhost.recovery = tcp\n",
	  NULL, "sweep.stack:variants", "'b' has no [variant.b] section" },
	{ "4", "ecmp, ofan", "",
	  "[sweep.stack]\nvariants = a\n[variant.a]\nrecovery = tcp\n",
	  NULL, "variant.a:recovery", "is not section.key" },
	{ "4", "ecmp, ofan", "",
	  "[sweep.stack]\nvariants = a\nkeys = host.recovery\n[variant.a]\nhost.recovery = tcp\n",
	  NULL, "sweep.stack:variants", "either variants or keys" },
	{ "4", "ecmp, ofan", "",
	  "[sweep.stack]\nvariants = a\n[variant.a]\nhost.recovery = tcpp\n",
	  NULL, "variant.a:host.recovery: host.recovery=tcpp", "'tcpp'" },
};

/*
 * Routing after a failure (fab_topo_weights), on a k=4 fat tree without
 * running it: with agg0-core0 dead, every member's weight is its number
 * of live paths.  k=4: ToR t in pod t/2, agg a in pod a/2 (index a%2),
 * core c on agg index c/2 of every pod; ToR ports 2-3 go to its pod's
 * aggs 0-1, agg ports 2-3 to cores 2*(a%2) and 2*(a%2)+1.
 */
struct t_weight {
	uint16_t w[64][SW_MAX_GROUPS][4];	/* [switch][group][port - 2] */
};

static void
t_weight_set(void *arg, uint32_t sw, uint16_t group, uint16_t port,
	     uint16_t weight)
{
	struct t_weight *tw = arg;

	if (port >= 2)
		tw->w[sw][group][port - 2] = weight;
}

/* The group switch sw uses towards host rank `rank`. */
static uint16_t
t_group_to(const struct fab_topo *t, uint32_t sw, uint32_t rank)
{
	return t->cfg[sw].routes[rank].group;
}

/*
 * The links-only topology the loader checks link names against is the
 * full one without switch configurations: the same nodes, links, names,
 * ports and rates, for a fat tree and a leaf-spine.
 */
START_TEST(test_topo_links_only)
{
	static const char *const ovs[2][4] = {
		{ "fabric.k=4", "fabric.uplink_rate=40G", NULL, NULL },
		{ "fabric.topology=leafspine", "fabric.leaves=3",
		  "fabric.spines=2", "fabric.hosts_per_leaf=5" },
	};
	struct fab_topo full, links;
	const struct fab_params *p;
	char err[256] = "";
	struct t_exp e;
	uint32_t i, n;

	for (n = 0; n < 2; n++) {
		t_load(&e, "permutation-k4.ini", ovs[n], ovs[n][2] ? 4 : 2,
		       false, 0);
		p = &e.x.combos[0];
		ck_assert_int_eq(fab_topo_build(p, p->schemes[0].sw_policy,
						&full, err, sizeof(err)), 0);
		ck_assert_int_eq(fab_topo_build_links(p, &links, err,
						      sizeof(err)), 0);
		ck_assert_ptr_null(links.hops);
		ck_assert_ptr_null(links.cfg);
		ck_assert_uint_eq(links.nb_hosts, full.nb_hosts);
		ck_assert_uint_eq(links.nb_switches, full.nb_switches);
		ck_assert_uint_eq(links.nb_links, full.nb_links);
		ck_assert_uint_gt(links.nb_links, 16);
		for (i = 0; i < full.nb_links; i++)
			ck_assert(memcmp(&links.links[i], &full.links[i],
					 sizeof(full.links[i])) == 0);
		for (i = 0; i < full.nb_switches; i++)
			ck_assert(memcmp(&links.sw[i], &full.sw[i],
					 sizeof(full.sw[i])) == 0);
		ck_assert(memcmp(links.host_pos, full.host_pos,
				 full.nb_hosts * sizeof(*full.host_pos)) == 0);
		fab_topo_free(&full);
		fab_topo_free(&links);
		fab_experiment_free(&e.x);
	}
}
END_TEST

START_TEST(test_route_weights)
{
	static const char *const ov[] = { "fabric.schemes=ofan" };
	struct t_weight *tw = calloc(1, sizeof(*tw));
	const struct fab_params *p;
	struct fab_topo t;
	struct t_exp e;
	char err[256] = "";
	uint32_t link, tor2 = 2, agg2 = 8 + 2, agg3 = 8 + 3, agg0 = 8;
	uint16_t g;

	ck_assert_ptr_nonnull(tw);
	t_load(&e, "permutation-k4.ini", ov, RTE_DIM(ov), false, 0);
	p = &e.x.combos[0];
	ck_assert_int_eq(fab_topo_build(p, p->schemes[0].sw_policy, &t, err,
					sizeof(err)), 0);
	link = fab_topo_find_link(&t, "core0-agg0");
	ck_assert_uint_ne(link, FAB_NONE);
	ck_assert_str_eq(t.links[link].name, "agg0-core0");
	t.alive[link] = false;
	fab_topo_weights(&t, t_weight_set, tw);

	/* ToR 2 (pod 1) to host 0 (ToR 0, pod 0): through agg 2 (index 0,
	 * cores 0-1: core 0 is cut off from pod 0's agg 0) 1 path, through
	 * agg 3 (cores 2-3) 2 paths. */
	g = t_group_to(&t, tor2, 0);
	ck_assert_uint_eq(tw->w[tor2][g][0], 1);
	ck_assert_uint_eq(tw->w[tor2][g][1], 2);
	/* Agg 2 (pod 1, index 0) to pod 0: core 0 leads nowhere (0), core 1
	 * reaches both of pod 0's ToRs (2); agg 3 is untouched (2, 2). */
	g = t_group_to(&t, agg2, 0);
	ck_assert_uint_eq(tw->w[agg2][g][0], 0);
	ck_assert_uint_eq(tw->w[agg2][g][1], 2);
	g = t_group_to(&t, agg3, 0);
	ck_assert_uint_eq(tw->w[agg3][g][0], 2);
	ck_assert_uint_eq(tw->w[agg3][g][1], 2);
	/* Agg 0 itself (pod 0) to pod 1: its dead uplink 0, core 1 2. */
	g = t_group_to(&t, agg0, 4);
	ck_assert_uint_eq(tw->w[agg0][g][0], 0);
	ck_assert_uint_eq(tw->w[agg0][g][1], 2);
	/* Inside a pod nothing changes: ToR 2 to host 6 (ToR 3, pod 1). */
	g = t_group_to(&t, tor2, 6);
	ck_assert_uint_eq(tw->w[tor2][g][0], 1);
	ck_assert_uint_eq(tw->w[tor2][g][1], 1);

	fab_topo_free(&t);
	fab_experiment_free(&e.x);
	free(tw);
}
END_TEST

/*
 * Load the text of file path from memory under the same name: the same
 * result (rc, message or every combination) as the file gave in rc, err
 * and x.
 */
static void
t_same_from_memory(const char *path, const char *text, const char *const *ov,
		   int nb_ov, int rc, const char *err,
		   const struct fab_experiment *x)
{
	struct fab_experiment m;
	char err_mem[1024] = "";
	uint32_t c;

	ck_assert_int_eq(fab_experiment_load_mem(path, text, strlen(text),
						 (char *const *)ov, nb_ov,
						 false, 0, 0, true, &m,
						 err_mem, sizeof(err_mem)),
			 rc);
	if (rc != 0) {
		ck_assert_str_eq(err_mem, err);
		return;
	}
	ck_assert_str_eq(m.path, x->path);
	ck_assert_uint_eq(m.nb_combos, x->nb_combos);
	for (c = 0; c < x->nb_combos; c++)
		ck_assert_msg(memcmp(&m.combos[c], &x->combos[c],
				     sizeof(m.combos[c])) == 0,
			      "combination %u differs", c);
	fab_experiment_free(&m);
}

START_TEST(test_config_errors)
{
	const struct t_bad_case *c = &t_bad_cases[_i];
	char path[] = "/tmp/ofan_test_fabric_XXXXXX.ini";
	char err[1024] = "", where[T_PATH_SIZE + 64], text[2048];
	const char *ov[1] = { c->override };
	struct fab_experiment x;
	FILE *f;
	int fd, rc;

	fd = mkstemps(path, 4);
	ck_assert_int_ge(fd, 0);
	t_tmp_add(path);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	snprintf(text, sizeof(text), t_bad_template, c->k, c->schemes,
		 c->fabric, c->tail);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);

	rc = fab_experiment_load(path, (char *const *)ov,
				 c->override != NULL ? 1 : 0, false, 0, &x,
				 err, sizeof(err));
	/* The same text from memory, under the file's name, loads alike. */
	t_same_from_memory(path, text, ov, c->override != NULL ? 1 : 0, rc,
			   err, &x);
	if (c->where == NULL) {
		ck_assert_msg(rc == 0, "the template: %s", err);
		ck_assert_uint_eq(x.nb_combos, 1);
		ck_assert_uint_eq(x.combos[0].k, 4);
		ck_assert_uint_eq(x.combos[0].nb_schemes, 2);
		fab_experiment_free(&x);
	} else {
		ck_assert_int_eq(rc, -EINVAL);
		if (c->override != NULL)
			snprintf(where, sizeof(where), "command line: %s: ",
				 c->override);
		else
			snprintf(where, sizeof(where), "%s:%s: ", path,
				 c->where);
		ck_assert_msg(strstr(err, where) == err,
			      "'%s' does not start with '%s'", err, where);
		if (c->value != NULL)
			ck_assert_msg(strstr(err, c->value) != NULL,
				      "'%s' does not quote %s", err, c->value);
	}
	t_teardown();
}
END_TEST

/*
 * Sweeps from memory: every combination as from the file, and a relative
 * cm_file found next to the name, as next to a file of that name.
 */
/*
 * A sweep of named variants applies each [variant.NAME]'s settings
 * together and names the combination after it; [queue.LAYER] sets one
 * layer's queues on top of [queue], and a variant can set it too.
 */
START_TEST(test_variants)
{
	static const char text[] =
		"[fabric]\nk = 4\nschemes = ecmp\n"
		"[traffic]\npattern = permutation\nsize = 64KiB\n"
		"[queue]\nqueue_packets = 8\n"
		"[queue.core_down]\nqueue_packets = 194\n"
		"[sweep.stack]\nvariants = trimces, roce\n"
		"[variant.trimces]\nqueue.tor_down.trim = yes\n"
		"host.recovery = trim\nhost.rate_coef = 0.9\n"
		"[variant.roce]\nqueue.pfc = yes\nqueue.queue_packets = 1000\n"
		"host.recovery = gbn\n";
	struct fab_experiment x;
	const struct fab_params *a, *b;
	char err[1024] = "";

	ck_assert_msg(fab_experiment_load_mem("/tmp/variants.ini", text,
					      strlen(text), NULL, 0, false, 0,
					      0, true, &x, err,
					      sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(x.nb_combos, 2);
	a = &x.combos[0];
	b = &x.combos[1];
	ck_assert_str_eq(a->sweep_name[0], "stack");
	ck_assert_str_eq(a->sweep_value[0], "trimces");
	ck_assert_str_eq(b->sweep_value[0], "roce");
	ck_assert_str_eq(a->host.set.recovery->name, "trim");
	ck_assert_str_eq(b->host.set.recovery->name, "gbn");
	ck_assert_uint_eq(a->queue.trim, SW_TRIM_OFF);
	ck_assert_uint_eq(a->queue_layer[FAB_L_TOR_DOWN].trim, SW_TRIM_HEADER);
	ck_assert_uint_eq(a->queue_layer[FAB_L_TOR_UP].trim, SW_TRIM_OFF);
	ck_assert_uint_eq(a->queue_layer[FAB_L_TOR_DOWN].capacity_pkts, 8);
	ck_assert_uint_eq(a->queue_layer[FAB_L_CORE_DOWN].capacity_pkts, 194);
	ck_assert(b->queue.pfc);
	ck_assert(b->queue_layer[FAB_L_AGG_UP].pfc);
	ck_assert_uint_eq(b->queue_layer[FAB_L_AGG_UP].capacity_pkts, 1000);
	/* [queue.core_down] still decides its own layer. */
	ck_assert_uint_eq(b->queue_layer[FAB_L_CORE_DOWN].capacity_pkts, 194);
	ck_assert(b->queue_layer[FAB_L_CORE_DOWN].pfc);
	ck_assert_uint_eq(a->nb_sweep_sets, 3);
	ck_assert_str_eq(a->sweep_set[0], "queue.tor_down.trim=yes");
	fab_experiment_free(&x);
}
END_TEST

/*
 * A variant's setting and a sweep's values from the command line:
 * variant.NAME.section.key=value sets key section.key of [variant.NAME]
 * (a new one too), and a bad value is blamed on the override.
 */
START_TEST(test_variant_overrides)
{
	static const char text[] =
		"[fabric]\nk = 4\nschemes = ecmp\n"
		"[traffic]\npattern = permutation\nsize = 64KiB\n"
		"[sweep.stack]\nvariants = a, b\n"
		"[variant.a]\nhost.recovery = trim\nhost.rate_coef = 0.9\n"
		"[variant.b]\nhost.recovery = gbn\n";
	static const char *const ok[] = {
		"variant.a.host.rate_coef=0.5",
		"variant.b.queue.queue_packets=77",
		"VARIANT.b.host.rate_coef = 0.25",
	};
	static const char *const bad[] = { "variant.b.host.recovery=tcpp" };
	static const char *const bad_sweep[] = { "sweep.stack.variants=a, c" };
	static const char *const not_key[] = { "variant.a.rate_coef=0.5" };
	struct fab_experiment x;
	char err[1024] = "";

	ck_assert_msg(fab_experiment_load_mem("/tmp/variants.ini", text,
					      strlen(text), (char *const *)ok, 3, false, 0,
					      0, true, &x, err,
					      sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(x.nb_combos, 2);
	ck_assert_str_eq(x.combos[0].host.set.recovery->name, "trim");
	ck_assert(x.combos[0].host.set.rate_coef == 0.5);
	ck_assert(x.combos[1].host.set.rate_coef == 0.25);
	ck_assert_uint_eq(x.combos[1].queue.capacity_pkts, 77);
	fab_experiment_free(&x);

	ck_assert_int_eq(fab_experiment_load_mem("/tmp/variants.ini", text,
						 strlen(text), (char *const *)bad, 1, false,
						 0, 0, true, &x, err,
						 sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "command line: variant.b.host.recovery=tcpp: host.recovery=tcpp: 'tcpp'") ==
		      err, "%s", err);
	ck_assert_int_eq(fab_experiment_load_mem("/tmp/variants.ini", text,
						 strlen(text), (char *const *)bad_sweep, 1,
						 false, 0, 0, true, &x, err,
						 sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "command line: sweep.stack.variants=a, c: 'c' has no [variant.c] section") ==
		      err, "%s", err);
	ck_assert_int_eq(fab_experiment_load_mem("/tmp/variants.ini", text,
						 strlen(text), (char *const *)not_key, 1,
						 false, 0, 0, true, &x, err,
						 sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "command line: variant.a.rate_coef=0.5: is not section.key") ==
		      err, "%s", err);
}
END_TEST

START_TEST(test_load_mem)
{
	static const char sweeps[] =
		"[fabric]\nk = 4\nschemes = ecmp, ofan\n"
		"[traffic]\npattern = permutation\nsize = 64KiB\n"
		"[failure.cut]\nlink = agg0-core0\nat = 10us\n"
		"[sweep.delay]\nkeys = fabric.delay\nvalues = 1us, 2us, 3us\n"
		"[sweep.load]\nkeys = host.rate_coef, traffic.size\n"
		"values = 1.0/64KiB, 0.5/128KiB\n";
	const char *base;
	char path[] = "/tmp/ofan_test_fabric_XXXXXX.ini", err[1024] = "";
	char cm[T_PATH_SIZE], text[T_PATH_SIZE + 128], want[T_PATH_SIZE + 16];
	struct fab_experiment x;
	FILE *f;
	int fd;

	fd = mkstemps(path, 4);
	ck_assert_int_ge(fd, 0);
	t_tmp_add(path);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(sweeps, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fab_experiment_load(path, NULL, 0, false, 0, &x, err,
					     sizeof(err)), 0);
	ck_assert_uint_eq(x.nb_combos, 6);
	ck_assert_str_eq(x.combos[5].sweep_value[1], "0.5/128KiB");
	ck_assert_uint_eq(x.combos[5].delay_ns, 3000);
	t_same_from_memory(path, sweeps, NULL, 0, 0, err, &x);
	fab_experiment_free(&x);

	t_write_cm(cm, sizeof(cm), "Nodes 2\nConnections 1\n"
		   "0->1 id 1 start 0 size 4096\n");
	base = strrchr(cm, '/') + 1;
	snprintf(text, sizeof(text), "[fabric]\ntopology = b2b\n"
		 "schemes = ecmp\n[traffic]\npattern = cm\ncm_file = %s\n",
		 base);
	ck_assert_msg(fab_experiment_load_mem("/tmp/in-memory.ini", text,
					      strlen(text), NULL, 0, false, 0,
					      0, true, &x, err,
					      sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(x.path, "/tmp/in-memory.ini");
	ck_assert_str_eq(x.combos[0].name, "in-memory");
	fab_experiment_free(&x);
	/* Without a folder in the name, the current directory's. */
	ck_assert_int_eq(fab_experiment_load_mem("in-memory.ini", text,
						 strlen(text), NULL, 0, false,
						 0, 0, true, &x, err,
						 sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: cannot open", base);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
	t_teardown();
}
END_TEST

void
t_fabric_config_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_config_errors, 0, RTE_DIM(t_bad_cases));
	tcase_add_test(tc, test_load_mem);
	tcase_add_test(tc, test_variants);
	tcase_add_test(tc, test_variant_overrides);
}

void
t_fabric_topology_tests(TCase *tc)
{
	tcase_add_test(tc, test_route_weights);
	tcase_add_test(tc, test_topo_links_only);
}
