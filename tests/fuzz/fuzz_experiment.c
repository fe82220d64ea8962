/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for ofan-fabric's experiment loader
 * (fab_experiment_load_mem(): fabric/model/fab_experiment.c,
 * fab_config.c, fab_topo.c and the switch's and the host's readers of
 * their sections), from memory: each input is the text of an experiment
 * called DIR/fuzz.ini, sweeps, failures, drops and .cm files included.
 * DIR is a folder the harness makes once (/tmp/ofan-fuzz-exp-*, removed
 * at exit; a crash leaves it) and fills with two connection matrices a
 * relative cm_file finds there: fail-k4.cm (16 hosts, two htsim failure
 * lines: a k = 4 fat tree) and b2b.cm (2 hosts).
 *
 * A rejected experiment must say where: its message begins with
 * "DIR/fuzz.ini:" (a line, a section and key, or the whole file), or it
 * is about the connection matrix "of DIR/fuzz.ini"; nothing is left
 * allocated (ASan checks the leaks).
 *
 * An accepted one must hold what a run relies on, in every combination:
 * as many combinations as the product of the [sweep.*] sizes, each with
 * its sweep values; a topology within its limits (k even up to
 * FAB_MAX_K, a leaf's ports within SW_MAX_PORTS, ranks the topology's
 * hosts); rates, times, threads, seeds and schemes in range; every
 * failure a failure (not "up") on a link of the topology, degraded below
 * that link's rate, each link once; every drop on a link direction, each
 * once.  The links are checked in the first and the last combination
 * (all the others would make one input cost as much as its combinations
 * times its failures times the links of a k = 24 fat tree).  When the
 * first combination has at most FUZZ_MAX_FULL_HOSTS hosts its whole
 * topology is built, switch configurations included, with its failed
 * links dead, and every live-path weight must name a real group member
 * (only then: a switch configuration is 170 KB to clear, and a k = 8 fat
 * tree's 80 of them made that check most of the time).
 *
 * The loader's own cost is bounded since it checks links against a
 * links-only topology kept across combinations of the same shape (it
 * built a full one per combination: 0.7 s each for k = 24); what stays
 * legitimately large, 257 parses of a 16 x 16 sweep, takes about 0.3 s
 * per input here (0.5 s for k = 24).  Most inputs take about 1 ms.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fab_model.h"
#include "ofan_config.h"

#define FUZZ_MAX_FULL_HOSTS 16

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_experiment:%d: %s\n",	\
				__LINE__, #cond);			\
			abort();					\
		}							\
	} while (0)

static char fuzz_dir[64];
static char fuzz_name[96];

static const struct {
	const char *file;
	const char *text;
} fuzz_cms[] = {
	{ "fail-k4.cm",
	  "Nodes 16\nConnections 3\nFailures 2\n"
	  "0->5 id 1 start 0 size 4096\n"
	  "3->12 id 2 start 0 size 8192\n"
	  "15->0 id 3 start 1us size 100\n"
	  "failure switch_type AGG switch_id 1 link_id 1\n"
	  "failure switch_type TOR switch_id 0 link_id 0\n" },
	{ "b2b.cm", "Nodes 2\nConnections 1\n0->1 id 1 start 0 size 4096\n" },
};

static void
fuzz_cleanup(void)
{
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(fuzz_cms) / sizeof(fuzz_cms[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir,
			 fuzz_cms[i].file);
		unlink(path);
	}
	rmdir(fuzz_dir);
}

/* DIR and its connection matrices, once per process. */
static void
fuzz_setup(void)
{
	char path[128];
	size_t i;
	FILE *f;

	snprintf(fuzz_dir, sizeof(fuzz_dir), "/tmp/ofan-fuzz-exp-XXXXXX");
	FUZZ_CHECK(mkdtemp(fuzz_dir) != NULL);
	atexit(fuzz_cleanup);
	for (i = 0; i < sizeof(fuzz_cms) / sizeof(fuzz_cms[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir,
			 fuzz_cms[i].file);
		f = fopen(path, "w");
		FUZZ_CHECK(f != NULL && fputs(fuzz_cms[i].text, f) >= 0 &&
			   fclose(f) == 0);
	}
	snprintf(fuzz_name, sizeof(fuzz_name), "%s/fuzz.ini", fuzz_dir);
}

/* The number of comma-separated values (or variants) of every [sweep.*],
 * multiplied. */
static uint32_t
fuzz_sweep_product(const uint8_t *data, size_t size, uint16_t *nb_dims)
{
	const char *secs[FAB_MAX_SWEEP_DIMS + 1], *values, *v;
	struct ofan_cfg *cfg;
	uint32_t product = 1, count;
	int n, i;

	cfg = ofan_cfg_load_mem(fuzz_name, (const char *)data, size, NULL, 0);
	FUZZ_CHECK(cfg != NULL);
	n = ofan_cfg_sections(cfg, "sweep.", secs, FAB_MAX_SWEEP_DIMS + 1);
	FUZZ_CHECK(n <= FAB_MAX_SWEEP_DIMS);
	for (i = 0; i < n; i++) {
		values = NULL;
		/* A sweep of variants has a value per variant named. */
		if (ofan_cfg_has_key(cfg, secs[i], "variants"))
			FUZZ_CHECK(ofan_cfg_get_str(cfg, secs[i], "variants", 0,
						    &values) == 0 &&
				   values != NULL);
		else
			FUZZ_CHECK(ofan_cfg_get_str(cfg, secs[i], "values", 0,
						    &values) == 0 &&
				   values != NULL);
		/* Runs of anything but commas, as the loader splits them. */
		for (count = 0, v = values; *v != '\0'; v++)
			if (*v != ',' && (v == values || v[-1] == ','))
				count++;
		FUZZ_CHECK(count >= 1 && count <= FAB_MAX_SWEEP_VALUES);
		product *= count;
	}
	*nb_dims = (uint16_t)n;
	ofan_cfg_free(cfg);
	return product;
}

static uint32_t
fuzz_hosts(const struct fab_params *p)
{
	if (p->topo == FAB_TOPO_FATTREE)
		return p->k * p->k * p->k / 4;
	if (p->topo == FAB_TOPO_LEAFSPINE)
		return p->leaves * p->hosts_per_leaf;
	return 2;
}

/* Every value one run of p relies on, within its range. */
static void
fuzz_check_params(const struct fab_params *p, uint16_t nb_dims)
{
	uint32_t parts, i, j;

	FUZZ_CHECK(p->topo < FAB_TOPO_NB);
	FUZZ_CHECK(p->placement == FAB_PLACE_LINEAR ||
		   p->placement == FAB_PLACE_RANDOM);
	if (p->topo == FAB_TOPO_FATTREE)
		FUZZ_CHECK(p->k >= 2 && p->k <= FAB_MAX_K && p->k % 2 == 0);
	if (p->topo == FAB_TOPO_LEAFSPINE)
		FUZZ_CHECK(p->leaves >= 1 && p->leaves <= SW_MAX_PORTS &&
			   p->spines >= 1 && p->hosts_per_leaf >= 1 &&
			   p->spines + p->hosts_per_leaf <= SW_MAX_PORTS);
	FUZZ_CHECK(p->host.traffic.nb_ranks == fuzz_hosts(p) &&
		   p->host.traffic.nb_ranks <= SW_MAX_ROUTES);
	FUZZ_CHECK(p->rate_bps >= 1000000 && p->uplink_rate_bps > 0 &&
		   p->host.set.rate_bps == p->rate_bps);
	FUZZ_CHECK(p->host.set.mtu >= 256 && p->host.set.mtu <= 9000);
	FUZZ_CHECK(p->delay_ns <= 1000000000ull);
	FUZZ_CHECK(p->time_limit_ns >= 1000 && p->queue_window_ns >= 10 &&
		   p->time_limit_ns / p->queue_window_ns <= FAB_MAX_WINDOWS);
	parts = p->topo == FAB_TOPO_FATTREE ? p->k :
		p->topo == FAB_TOPO_LEAFSPINE ?
		(p->leaves < p->spines ? p->leaves : p->spines) : 1;
	FUZZ_CHECK(p->threads >= 1 && p->threads <= FAB_MAX_THREADS &&
		   p->threads <= parts);
	FUZZ_CHECK(p->seeds >= 1 && p->seeds <= FAB_MAX_SEEDS);
	FUZZ_CHECK(p->queue.enabled && p->queue.rate_bps == 0);
	FUZZ_CHECK(p->host.traffic.settings == NULL);
	FUZZ_CHECK(p->nb_schemes >= 1 && p->nb_schemes <= FAB_MAX_SCHEMES);
	for (i = 0; i < p->nb_schemes; i++) {
		FUZZ_CHECK(p->schemes[i].sw_policy != NULL &&
			   p->schemes[i].host_policy != NULL &&
			   p->schemes[i].name[0] != '\0');
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(p->schemes[i].name,
					  p->schemes[j].name) != 0);
	}
	FUZZ_CHECK(p->nb_failures <= FAB_MAX_FAILURES &&
		   p->nb_drops <= FAB_MAX_DROPS);
	FUZZ_CHECK(p->topo != FAB_TOPO_B2B || p->nb_failures == 0);
	for (i = 0; i < p->nb_failures; i++)
		FUZZ_CHECK(p->failures[i].mode != SW_LINK_UP &&
			   p->failures[i].mode < SW_LINK_NB_STATES &&
			   (p->failures[i].mode != SW_LINK_DEGRADED ||
			    p->failures[i].rate_bps > 0));
	for (i = 0; i < p->nb_drops; i++) {
		const struct fab_drop *d = &p->drops[i];

		/* Counted frames, or a lossy link that loses something. */
		FUZZ_CHECK(d->count >= 1 && d->loss.mode == d->mode);
		FUZZ_CHECK(d->mode != FAB_DROP_FRAMES || d->frame >= 1);
		FUZZ_CHECK(d->mode != FAB_DROP_RANDOM ||
			   (d->loss.rate > 0 && d->loss.rate <= 1));
		FUZZ_CHECK(d->mode != FAB_DROP_BURSTS ||
			   (d->loss.every_ns >= 1000 && d->loss.length_ns >= 1 &&
			    d->loss.first_ns != UINT64_MAX));
	}
	FUZZ_CHECK(p->nb_sweep == nb_dims);
	for (i = 0; i < nb_dims; i++)
		FUZZ_CHECK(p->sweep_name[i][0] != '\0' &&
			   p->sweep_value[i][0] != '\0');
}

/* Every failure and drop of p on a link of its topology, each once. */
static void
fuzz_check_links(const struct fab_params *p)
{
	uint32_t links[FAB_MAX_FAILURES], dirs[FAB_MAX_DROPS], i, j;
	struct fab_topo t;
	char err[256];

	if (p->nb_failures == 0 && p->nb_drops == 0)
		return;
	FUZZ_CHECK(fab_topo_build_links(p, &t, err, sizeof(err)) == 0);
	for (i = 0; i < p->nb_failures; i++) {
		links[i] = fab_topo_find_link(&t, p->failures[i].link);
		FUZZ_CHECK(links[i] < t.nb_links);
		FUZZ_CHECK(p->failures[i].mode != SW_LINK_DEGRADED ||
			   p->failures[i].rate_bps <
			   t.links[links[i]].rate_bps);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(links[j] != links[i]);
	}
	for (i = 0; i < p->nb_drops; i++) {
		dirs[i] = fab_topo_find_dir(&t, p->drops[i].link);
		FUZZ_CHECK(dirs[i] < 2 * t.nb_links);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(dirs[j] != dirs[i]);
	}
	fab_topo_free(&t);
}

/* A live-path weight names a member of a group of a switch. */
static void
fuzz_weight(void *arg, uint32_t sw, uint16_t group, uint16_t port,
	    uint16_t weight)
{
	const struct fab_topo *t = arg;

	FUZZ_CHECK(sw < t->nb_switches);
	FUZZ_CHECK(group < t->cfg[sw].nb_groups);
	FUZZ_CHECK(port < t->cfg[sw].nb_ports);
	(void)weight;
}

/* The whole topology of a small p, its failed links dead. */
static void
fuzz_check_topology(const struct fab_params *p)
{
	struct fab_topo t;
	char err[256];
	uint16_t i;

	if (fuzz_hosts(p) > FUZZ_MAX_FULL_HOSTS)
		return;
	FUZZ_CHECK(fab_topo_build(p, p->schemes[0].sw_policy, &t, err,
				  sizeof(err)) == 0);
	FUZZ_CHECK(t.nb_hosts == p->host.traffic.nb_ranks);
	for (i = 0; i < p->nb_failures; i++)
		t.alive[fab_topo_find_link(&t, p->failures[i].link)] = false;
	fab_topo_weights(&t, fuzz_weight, &t);
	fab_topo_free(&t);
}

/*
 * A rejected experiment says where: in the file, or in the connection
 * matrix it names.
 */
static void
fuzz_check_rejected(const char *err)
{
	char cm[sizeof(fuzz_name) + 32];

	snprintf(cm, sizeof(cm), "(the [traffic] cm_file of %s)", fuzz_name);
	FUZZ_CHECK((strncmp(err, fuzz_name, strlen(fuzz_name)) == 0 &&
		    err[strlen(fuzz_name)] == ':') ||
		   strstr(err, cm) != NULL);
	FUZZ_CHECK(strchr(err, '\n') == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_experiment x;
	char err[1024] = "";
	uint16_t nb_dims = 0;
	uint32_t c;
	int rc;

	if (fuzz_name[0] == '\0')
		fuzz_setup();
	rc = fab_experiment_load_mem(fuzz_name, (const char *)data, size,
				     NULL, 0, false, 0, 0, true, &x, err,
				     sizeof(err));
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(x.combos == NULL && x.nb_combos == 0);
		fuzz_check_rejected(err);
		return 0;
	}
	FUZZ_CHECK(x.path == fuzz_name);
	FUZZ_CHECK(x.nb_combos == fuzz_sweep_product(data, size, &nb_dims));
	for (c = 0; c < x.nb_combos; c++)
		fuzz_check_params(&x.combos[c], nb_dims);
	fuzz_check_links(&x.combos[0]);
	fuzz_check_links(&x.combos[x.nb_combos - 1]);
	fuzz_check_topology(&x.combos[0]);
	fab_experiment_free(&x);
	return 0;
}
