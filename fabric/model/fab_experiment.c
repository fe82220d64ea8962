/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loading an ofan-fabric experiment (fab.h): command-line overrides, the
 * [sweep.NAME] dimensions expanded into combinations, each combination's
 * file parsed (fab_config.c), a .cm file's failures checked against the
 * topology, and one parameter set per seed.  The text is a file or, for
 * tests and the fuzzer, held in memory; either way each combination
 * parses it afresh, so that a swept key is checked as if written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fab_model.h"
#include "fab_config_priv.h"
#include "hs_cm.h"
#include "hs_pattern.h"
#include "hs_traffic.h"
#include "hs_workload.h"
#include "ofan_config.h"

/* What shapes a topology's links and their names. */
struct fab_shape {
	enum fab_topology topo;
	uint32_t k, leaves, spines, hosts_per_leaf;
	enum fab_placement placement;
	uint64_t seed;			/* of a random placement */
	uint64_t rate_bps, uplink_rate_bps;
};

/*
 * One experiment's loading: where its text is (the file path, or len
 * bytes at text in memory that messages call path), what every
 * combination gets on top, and the links-only topology of the last
 * combination that needed one, kept while the next has the same shape: a
 * sweep seldom changes it, and building a k = 24 one for each of 256
 * combinations took most of a second.
 */
struct fab_loader {
	const char *path;
	bool in_memory;
	const char *text;
	size_t len;
	char *const *ov;
	int nb_ov;
	bool seed_set;
	uint64_t seed;
	bool check_links;
	bool have_topo;
	struct fab_shape shape;
	struct fab_topo topo;
};

#define FAB_MAX_VARIANT_KEYS 64	/* settings of one [variant.NAME] */

/* A sweep dimension as written: keys and their values. */
struct fab_sweep {
	char name[FAB_NAME_SIZE];
	bool variants;		/* values name [variant.NAME] sections */
	uint16_t nb_keys;
	char keys[4][2 * FAB_NAME_SIZE];	/* "fabric.reconverge_delay" */
	uint16_t nb_values;
	char values[FAB_MAX_SWEEP_VALUES][FAB_NAME_SIZE];
};

/*
 * Where a variant's setting splits: "variant.NAME.section.key" is key
 * "section.key" of [variant.NAME], NAME the longest name of a
 * [variant.*] section the left side begins with (else its first part).
 * The dot before the key, NULL when lhs is no variant's setting.
 */
static char *
fab_variant_split(const struct ofan_cfg *cfg, char *lhs)
{
	const char *secs[256];
	char *dot = NULL;
	size_t best = 0;
	int n, i;

	if (strncasecmp(lhs, "variant.", 8) != 0)
		return NULL;
	n = ofan_cfg_sections(cfg, "variant.", secs, (int)FAB_DIM(secs));
	for (i = 0; i < n && i < (int)FAB_DIM(secs); i++) {
		size_t len = strlen(secs[i]);

		if (len > best && strncasecmp(lhs, secs[i], len) == 0 &&
		    lhs[len] == '.' && strchr(lhs + len + 1, '.') != NULL) {
			best = len;
			dot = lhs + len;
		}
	}
	if (dot == NULL) {
		dot = strchr(lhs + 8, '.');
		if (dot != NULL && strchr(dot + 1, '.') == NULL)
			dot = NULL;	/* variant.NAME.key: not a setting */
	}
	return dot;
}

/*
 * Apply "section.key=value" to cfg.  The section is everything before the
 * last dot of the left side ("host.reps.freeze_time" is [host.reps]),
 * but for a variant's setting: "variant.tcp.host.rate_coef" is the key
 * host.rate_coef of [variant.tcp] (fab_variant_split()).
 */
static int
fab_apply_override(struct ofan_cfg *cfg, const char *ov, const char *from,
		   char *err, unsigned int err_size)
{
	char buf[256], origin[512], *eq, *dot, *key, *sec;

	if (strlen(ov) >= sizeof(buf)) {
		snprintf(err, err_size, "override '%.40s...' is too long; expected section.key=value",
			 ov);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", ov);
	eq = strchr(buf, '=');
	if (eq == NULL) {
		snprintf(err, err_size, "override '%s' has no '='; expected section.key=value, e.g. fabric.k=4",
			 ov);
		return -EINVAL;
	}
	*eq = 0;
	dot = fab_variant_split(cfg, fab_trim(buf));
	if (dot == NULL)
		dot = strrchr(buf, '.');
	if (dot == NULL || dot == buf || dot[1] == 0) {
		snprintf(err, err_size, "override '%s' names no section; expected section.key=value, e.g. traffic.size=1MiB",
			 ov);
		return -EINVAL;
	}
	*dot = 0;
	sec = fab_trim(buf);
	key = fab_trim(dot + 1);
	snprintf(origin, sizeof(origin), "%s: %s", from, ov);
	if (ofan_cfg_set_from(cfg, sec, key, fab_trim(eq + 1), origin) != 0) {
		snprintf(err, err_size, "override '%s' cannot be applied", ov);
		return -EINVAL;
	}
	return 0;
}

/*
 * Whether k (trimmed) is a key fab_apply_override() can set: "sec.key"
 * split at the last dot, neither part empty, no '=' (which would end
 * the key) and no ':' in the key (which ofan_cfg_set_from() refuses).
 */
static bool
fab_is_section_key(const char *k)
{
	const char *dot = strrchr(k, '.');

	return dot != NULL && dot != k && dot[1] != '\0' &&
	       strchr(k, '=') == NULL && strchr(dot, ':') == NULL;
}

/*
 * A sweep over named variants: `variants = a, b` in [sweep.NAME], each a
 * [variant.a] section of section.key = value settings, applied together
 * (a recovery stack sets a queue, a host model and a load at once).
 * fab_check_variant_sections() checks every variant's keys; a value is
 * checked when a combination applies it.
 */
static int
fab_parse_variants(struct ofan_cfg *cfg, const char *sec,
		   struct fab_sweep *s)
{
	char buf[1024], *parts[FAB_MAX_SWEEP_VALUES + 1], vsec[160];
	const char *values = NULL;
	int nv, j;

	if (ofan_cfg_has_key(cfg, sec, "keys") ||
	    ofan_cfg_has_key(cfg, sec, "values")) {
		const struct ofan_cfg_key keys[] = {
			{ sec, "variants" }, { sec, "keys" }, { sec, "values" },
		};
		int b = ofan_cfg_blame(cfg, keys, 3);

		if (b > 0)
			return ofan_cfg_fail(cfg, sec, keys[b].key,
				"set with variants; expected either variants or keys and values");
		return ofan_cfg_fail(cfg, sec, "variants",
			"set with keys/values; expected either variants or keys and values");
	}
	if (ofan_cfg_get_str(cfg, sec, "variants", OFAN_CFG_REQUIRED,
			     &values))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", values);
	nv = fab_split(buf, parts, FAB_MAX_SWEEP_VALUES);
	if (nv == 0 || nv > FAB_MAX_SWEEP_VALUES)
		return ofan_cfg_fail(cfg, sec, "variants",
			"'%s'; expected 1 to %d comma-separated names of [variant.NAME] sections",
			values, FAB_MAX_SWEEP_VALUES);
	s->variants = true;
	for (j = 0; j < nv; j++) {
		if (strlen(parts[j]) >= sizeof(s->values[j]) ||
		    strchr(parts[j], '/') != NULL)
			return ofan_cfg_fail(cfg, sec, "variants",
				"'%s' is not a variant name; expected the NAME of a [variant.NAME] section",
				parts[j]);
		snprintf(vsec, sizeof(vsec), "variant.%s", parts[j]);
		if (ofan_cfg_keys(cfg, vsec, NULL, 0) == 0)
			return ofan_cfg_fail(cfg, sec, "variants",
				"'%s' has no [%s] section (or it is empty); expected one with section.key = value lines",
				parts[j], vsec);
		snprintf(s->values[j], sizeof(s->values[j]), "%s", parts[j]);
	}
	s->nb_values = (uint16_t)nv;
	return 0;
}

/*
 * Every [variant.NAME] section, whether a sweep names it now or not (an
 * override may narrow a sweep to some of its variants): its keys must
 * be section.key, and it counts as known.
 */
static int
fab_check_variant_sections(struct ofan_cfg *cfg)
{
	const char *secs[256], *keys[FAB_MAX_VARIANT_KEYS];
	int n, i, k, nk;

	n = ofan_cfg_sections(cfg, "variant.", secs, (int)FAB_DIM(secs));
	if (n > (int)FAB_DIM(secs))
		return ofan_cfg_fail(cfg, secs[0], NULL,
			"%d [variant.*] sections; expected at most %d", n,
			(int)FAB_DIM(secs));
	for (i = 0; i < n; i++) {
		nk = ofan_cfg_keys(cfg, secs[i], keys, (int)FAB_DIM(keys));
		if (nk > (int)FAB_DIM(keys))
			return ofan_cfg_fail(cfg, secs[i], keys[0],
				"%d settings; expected at most %d", nk,
				(int)FAB_DIM(keys));
		for (k = 0; k < nk; k++)
			if (!fab_is_section_key(keys[k]))
				return ofan_cfg_fail(cfg, secs[i], keys[k],
					"is not section.key; expected e.g. host.recovery = tcp");
		ofan_cfg_mark_section(cfg, secs[i]);
	}
	return 0;
}

/* [sweep.NAME] sections, in file order (read, so they count as known). */
static int
fab_parse_sweeps(struct ofan_cfg *cfg, struct fab_sweep *sw, int *nb)
{
	const char *secs[FAB_MAX_SWEEP_DIMS + 1];
	int n, i, j;

	n = ofan_cfg_sections(cfg, "sweep.", secs, FAB_MAX_SWEEP_DIMS + 1);
	if (n > FAB_MAX_SWEEP_DIMS)
		return ofan_cfg_fail(cfg, secs[FAB_MAX_SWEEP_DIMS], "keys",
			"too many sweep dimensions; expected at most %d",
			FAB_MAX_SWEEP_DIMS);
	for (i = 0; i < n; i++) {
		struct fab_sweep *s = &sw[i];
		const char *keys = NULL, *values = NULL;
		char buf[1024], *parts[FAB_MAX_SWEEP_VALUES + 1];
		int nk, nv;

		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", secs[i] + 6);
		if (ofan_cfg_has_key(cfg, secs[i], "variants")) {
			if (fab_parse_variants(cfg, secs[i], s) != 0)
				return -EINVAL;
			continue;
		}
		if (ofan_cfg_get_str(cfg, secs[i], "keys", OFAN_CFG_REQUIRED,
				     &keys) ||
		    ofan_cfg_get_str(cfg, secs[i], "values",
				     OFAN_CFG_REQUIRED, &values))
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%s", keys);
		nk = fab_split(buf, parts, 4);
		if (nk == 0 || nk > 4)
			return ofan_cfg_fail(cfg, secs[i], "keys",
				"'%s'; expected 1 to 4 comma-separated section.key names",
				keys);
		for (j = 0; j < nk; j++) {
			if (!fab_is_section_key(parts[j]) ||
			    strlen(parts[j]) >= sizeof(s->keys[j]))
				return ofan_cfg_fail(cfg, secs[i], "keys",
					"'%s' is not section.key; expected e.g. fabric.reconverge_delay",
					parts[j]);
			snprintf(s->keys[j], sizeof(s->keys[j]), "%s",
				 parts[j]);
		}
		s->nb_keys = (uint16_t)nk;
		snprintf(buf, sizeof(buf), "%s", values);
		nv = fab_split(buf, parts, FAB_MAX_SWEEP_VALUES);
		if (nv == 0 || nv > FAB_MAX_SWEEP_VALUES)
			return ofan_cfg_fail(cfg, secs[i], "values",
				"'%s'; expected 1 to %d comma-separated values (a/b/c for several keys)",
				values, FAB_MAX_SWEEP_VALUES);
		for (j = 0; j < nv; j++) {
			int slashes = 0, empty;
			const char *c;

			for (c = parts[j]; *c; c++)
				slashes += *c == '/';
			empty = parts[j][0] == '/' || parts[j][0] == 0 ||
				parts[j][strlen(parts[j]) - 1] == '/' ||
				strstr(parts[j], "//") != NULL;
			if (empty)
				return ofan_cfg_fail(cfg, secs[i], "values",
					"'%s' has an empty part; expected one value per key, separated by '/'",
					parts[j]);
			if (slashes + 1 != nk &&
			    ofan_cfg_blame2(cfg, secs[i], "values",
					    "keys") == 1)
				return ofan_cfg_fail(cfg, secs[i], "keys",
					"'%s' names %d key(s), but value '%s' has %d part(s); expected one value per key, separated by '/'",
					keys, nk, parts[j], slashes + 1);
			if (slashes + 1 != nk ||
			    strlen(parts[j]) >= sizeof(s->values[j]))
				return ofan_cfg_fail(cfg, secs[i], "values",
					"'%s' has %d part(s) for %d key(s); expected one value per key, separated by '/'",
					parts[j], slashes + 1, nk);
			snprintf(s->values[j], sizeof(s->values[j]), "%s",
				 parts[j]);
		}
		s->nb_values = (uint16_t)nv;
	}
	*nb = n;
	return fab_check_variant_sections(cfg);
}

/*
 * Apply value number v of sweep s ("8/8/16" over its keys) to cfg, and
 * note each "section.key=value" in p.
 */
/*
 * Where a sweep's or variant's setting sec:key came from: the override
 * that set it ("command line: variant.tcp.host.rate_coef=0.9"), else
 * FILE:sec:key.
 */
static void
fab_sweep_from(const struct ofan_cfg *cfg, const char *sec, const char *key,
	       char *from, size_t size)
{
	const char *o = ofan_cfg_origin(cfg, sec, key);

	if (o != NULL)
		snprintf(from, size, "%s", o);
	else
		snprintf(from, size, "%s:%s:%s", ofan_cfg_path(cfg), sec, key);
}

static int
fab_apply_sweep(struct ofan_cfg *cfg, const struct fab_sweep *s, int v,
		struct fab_params *p, char *err, unsigned int err_size)
{
	char vals[FAB_NAME_SIZE], vsec[160], *save = NULL, *tok;
	char ov[256], from[300];
	int k = 0;

	if (s->variants) {
		const char *keys[FAB_MAX_VARIANT_KEYS], *val;
		int nk, i;

		snprintf(vsec, sizeof(vsec), "variant.%s", s->values[v]);
		/* fab_check_variant_sections() bounded nk. */
		nk = ofan_cfg_keys(cfg, vsec, keys, (int)FAB_DIM(keys));
		for (i = 0; i < nk; i++) {
			if (ofan_cfg_get_str(cfg, vsec, keys[i], 0, &val) != 0)
				return -EINVAL;
			fab_sweep_from(cfg, vsec, keys[i], from, sizeof(from));
			snprintf(ov, sizeof(ov), "%s=%s", keys[i], val);
			if (fab_apply_override(cfg, ov, from, err,
					       err_size) != 0)
				return -EINVAL;
			if (p->nb_sweep_sets == FAB_DIM(p->sweep_set)) {
				snprintf(err, err_size, "%s: more than %u settings in one combination's sweeps; expected fewer",
					 from, (unsigned int)FAB_DIM(p->sweep_set));
				return -EINVAL;
			}
			snprintf(p->sweep_set[p->nb_sweep_sets++],
				 sizeof(p->sweep_set[0]), "%s", ov);
		}
		return 0;
	}
	snprintf(vsec, sizeof(vsec), "sweep.%s", s->name);
	fab_sweep_from(cfg, vsec, "values", from, sizeof(from));
	snprintf(vals, sizeof(vals), "%s", s->values[v]);
	for (tok = strtok_r(vals, "/", &save); tok != NULL && k < s->nb_keys;
	     tok = strtok_r(NULL, "/", &save), k++) {
		snprintf(ov, sizeof(ov), "%s=%s", s->keys[k], fab_trim(tok));
		if (fab_apply_override(cfg, ov, from, err, err_size) != 0)
			return -EINVAL;
		if (p->nb_sweep_sets < FAB_DIM(p->sweep_set))
			snprintf(p->sweep_set[p->nb_sweep_sets++],
				 sizeof(p->sweep_set[0]), "%s", ov);
	}
	return 0;
}

/*
 * The links-only topology of p, built or kept in l; NULL with a message
 * in err if p's topology cannot be built.
 */
static const struct fab_topo *
fab_loader_topo(struct fab_loader *l, const struct fab_params *p, char *err,
		unsigned int err_size)
{
	struct fab_shape shape;

	memset(&shape, 0, sizeof(shape));
	shape.topo = p->topo;
	shape.k = p->k;
	shape.leaves = p->leaves;
	shape.spines = p->spines;
	shape.hosts_per_leaf = p->hosts_per_leaf;
	shape.placement = p->placement;
	shape.seed = p->placement == FAB_PLACE_RANDOM ? p->matrix_seed : 0;
	shape.rate_bps = p->rate_bps;
	shape.uplink_rate_bps = p->uplink_rate_bps;
	if (l->have_topo && memcmp(&shape, &l->shape, sizeof(shape)) == 0)
		return &l->topo;
	if (l->have_topo)
		fab_topo_free(&l->topo);
	l->have_topo = false;
	if (fab_topo_build_links(p, &l->topo, err, err_size) != 0)
		return NULL;
	l->shape = shape;
	l->have_topo = true;
	return &l->topo;
}

/*
 * A .cm file's failure lines: each a link gone from the start, added to
 * p's failures (every mistake reported before EAL starts,
 * "FILE:LINE: ...").
 */
static int
fab_add_traffic_failures(struct fab_loader *l, struct ofan_cfg *cfg,
			 struct fab_params *p, const struct hs_traffic *tr,
			 char *err, unsigned int err_size)
{
	const char *file = hs_cm_path_of(p->host.traffic.pattern,
					  &p->host.pattern_set);
	const struct fab_topo *t = NULL;
	char msg[512];
	uint32_t i, j;

	if (tr->nb_failures > 0 &&
	    (t = fab_loader_topo(l, p, msg, sizeof(msg))) == NULL)
		return ofan_cfg_fail(cfg, FAB_SEC, "topology", "%s", msg);
	for (i = 0; i < tr->nb_failures; i++) {
		const struct hs_cm_failure *cf = &tr->failures[i];
		struct fab_failure *f;
		uint32_t link = FAB_NONE;

		if (p->nb_failures == FAB_MAX_FAILURES)
			snprintf(msg, sizeof(msg), "failure beyond the %d a run can have; expected at most %d failures in all",
				 FAB_MAX_FAILURES, FAB_MAX_FAILURES);
		else
			link = fab_topo_cm_link(p, t, cf, msg, sizeof(msg));
		/* One failure per link, the file's sections and lines alike. */
		for (j = 0; link != FAB_NONE && j < p->nb_failures; j++)
			if (fab_topo_find_link(t, p->failures[j].link) == link) {
				snprintf(msg, sizeof(msg), "link %s already fails in [%s]; expected one failure per link",
					 t->links[link].name,
					 p->failures[j].sec);
				link = FAB_NONE;
			}
		if (link == FAB_NONE) {
			snprintf(err, err_size, "%s:%llu: %s (%s of %s)",
				 file != NULL ? file : "traffic",
				 (unsigned long long)cf->line, msg,
				 p->host.traffic.pattern->origin,
				 ofan_cfg_path(cfg));
			return -EINVAL;
		}
		f = &p->failures[p->nb_failures++];
		memset(f, 0, sizeof(*f));
		snprintf(f->link, sizeof(f->link), "%s", t->links[link].name);
		f->mode = SW_LINK_DOWN;
		f->at_start = true;
		f->reroute = true;
		snprintf(f->sec, sizeof(f->sec), "cm:%llu",
			 (unsigned long long)cf->line);
	}
	return 0;
}

/*
 * A whole-traffic pattern (a .cm file, training jobs): build it now --
 * the file read, its Nodes against the fabric's hosts; the jobs placed,
 * their traces read, collectives matched, no dependency cycle -- so that
 * every mistake is reported before EAL starts, and the traffic's failure
 * lines become p's failures.
 */
static int
fab_check_traffic(struct fab_loader *l, struct ofan_cfg *cfg,
		  struct fab_params *p, char *err, unsigned int err_size)
{
	const struct hs_pattern_ops *ops = p->host.traffic.pattern;
	struct hs_workload *wl = NULL;
	struct hs_traffic tr;
	char msg[512];
	int rc;

	/* The pattern's own rules were checked with it. */
	if (ops->build == NULL)
		return 0;
	p->host.traffic.settings = &p->host.pattern_set;
	rc = hs_pattern_build(&p->host.traffic, &tr, &wl, msg, sizeof(msg));
	p->host.traffic.settings = NULL;	/* fab_sim_build() sets it */
	if (rc != 0) {
		snprintf(err, err_size, "%s (%s of %s)", msg, ops->origin,
			 ofan_cfg_path(cfg));
		return -EINVAL;
	}
	rc = fab_add_traffic_failures(l, cfg, p, &tr, err, err_size);
	hs_traffic_free(&tr);
	if (wl != NULL) {
		hs_wl_free(wl);
		free(wl);
	}
	return rc;
}

/*
 * A link that section sec and an earlier one both name: blamed on sec
 * ("'NAME' already fails in [EARLIER]"), or on the earlier section when
 * an override set its link and not sec's (ofan_cfg_blame()).
 */
static int
fab_blame_twice(struct ofan_cfg *cfg, const char *sec, const char *earlier,
		const char *name, const char *what, const char *expect)
{
	const struct ofan_cfg_key keys[] = {
		{ sec, "link" }, { earlier, "link" },
	};

	if (ofan_cfg_blame(cfg, keys, 2) == 1)
		return ofan_cfg_fail(cfg, earlier, "link",
			"'%s' %s in [%s] too; expected %s", name, what, sec,
			expect);
	return ofan_cfg_fail(cfg, sec, "link",
		"'%s' already %s in [%s]; expected %s", name, what, earlier,
		expect);
}

/*
 * Check that every failure and drop names a link of the topology, each
 * link (drop: link direction) at most once.
 */
static int
fab_check_links(struct fab_loader *l, struct ofan_cfg *cfg,
		const struct fab_params *p)
{
	uint32_t dirs[FAB_MAX_DROPS], links[FAB_MAX_FAILURES];
	const struct fab_topo *t;
	char err[256] = "";
	int rc = 0;
	char ex[512];
	uint16_t i, j;

	if (p->nb_failures == 0 && p->nb_drops == 0)
		return 0;
	t = fab_loader_topo(l, p, err, sizeof(err));
	if (t == NULL)
		return ofan_cfg_fail(cfg, FAB_SEC, "topology", "%s", err);
	for (i = 0; i < p->nb_drops && rc == 0; i++) {
		uint32_t d = fab_topo_find_dir(t, p->drops[i].link);

		if (d == FAB_NONE) {
			rc = ofan_cfg_fail(cfg, p->drops[i].sec, "link",
				"'%s' is not a link of this %s; expected FROM-TO such as %s",
				p->drops[i].link, fab_topology_names[p->topo],
				fab_topo_link_examples(t, ex, sizeof(ex)));
			break;
		}
		dirs[i] = d;
		for (j = 0; j < i && rc == 0; j++)
			if (dirs[j] == d)
				rc = fab_blame_twice(cfg, p->drops[i].sec,
					p->drops[j].sec, p->drops[i].link,
					"drops frames",
					"one [drop.*] per link direction");
	}
	for (i = 0; i < p->nb_failures && rc == 0; i++) {
		const struct fab_failure *f = &p->failures[i];
		uint32_t link = fab_topo_find_link(t, f->link);

		if (link == FAB_NONE) {
			rc = ofan_cfg_fail(cfg, f->sec, "link",
				"'%s' is not a link of this %s; expected NODE-NODE such as %s",
				f->link, fab_topology_names[p->topo],
				fab_topo_link_examples(t, ex, sizeof(ex)));
			break;
		}
		/* A faster link would shorten the threads' lookahead. */
		if (f->mode == SW_LINK_DEGRADED &&
		    f->rate_bps >= t->links[link].rate_bps) {
			/* A host's link has [fabric] rate, the others the
			 * uplinks' rate (uplink_rate, oversubscription). */
			const struct ofan_cfg_key keys[] = {
				{ f->sec, "rate" }, { FAB_SEC, "rate" },
				{ FAB_SEC, "uplink_rate" },
				{ FAB_SEC, "oversubscription" },
			};
			int b = ofan_cfg_blame(cfg, keys,
				t->links[link].is_host[0] ? 2 : 4);

			if (b > 0) {
				rc = ofan_cfg_fail(cfg, FAB_SEC, keys[b].key,
					"'%s' makes link %s %llu bit/s, not above the degraded rate of [%s] (%llu bit/s); expected a link rate above it, or a lower degraded rate",
					ofan_cfg_value(cfg, FAB_SEC, keys[b].key),
					f->link,
					(unsigned long long)t->links[link].rate_bps,
					f->sec,
					(unsigned long long)f->rate_bps);
				break;
			}
			rc = ofan_cfg_fail(cfg, f->sec, "rate",
				"'%llu' bit/s is not below the link's %llu bit/s; expected a degraded (lower) rate",
				(unsigned long long)f->rate_bps,
				(unsigned long long)t->links[link].rate_bps);
			break;
		}
		links[i] = link;
		for (j = 0; j < i && rc == 0; j++)
			if (links[j] == link)
				rc = fab_blame_twice(cfg, f->sec,
					p->failures[j].sec, f->link, "fails",
					"one failure per link");
	}
	return rc;
}

/*
 * Load one combination: the file, the overrides, the sweep values of
 * combination c (value index per dimension), then parse and check.
 */
/*
 * The command line onto cfg: the overrides in order, then --seed and
 * (seeds > 0) --seeds as [fabric] keys, each marked with where it came
 * from.  0, or -EINVAL with the message in err (or in cfg).
 */
static int
fab_apply_command_line(struct ofan_cfg *cfg, char *const *ov, int nb_ov,
		       bool seed_set, uint64_t seed, uint32_t seeds,
		       char *err, unsigned int err_size)
{
	char buf[64], origin[96];
	int i, rc = 0;

	for (i = 0; i < nb_ov && rc == 0; i++)
		rc = fab_apply_override(cfg, ov[i], "command line", err,
					err_size);
	if (rc == 0 && seed_set) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)seed);
		snprintf(origin, sizeof(origin), "command line: --seed %s", buf);
		rc = ofan_cfg_set_from(cfg, FAB_SEC, "seed", buf, origin);
	}
	if (rc == 0 && seeds > 0) {
		snprintf(buf, sizeof(buf), "%u", seeds);
		snprintf(origin, sizeof(origin), "command line: --seeds %s", buf);
		rc = ofan_cfg_set_from(cfg, FAB_SEC, "seeds", buf, origin);
	}
	return rc;
}

static int
fab_load_combo(struct fab_loader *l, const int *vidx, struct fab_params *p,
	       struct fab_sweep *sweeps, int *nb_sweeps, char *err,
	       unsigned int err_size)
{
	struct ofan_cfg *cfg = l->in_memory ?
		ofan_cfg_load_mem(l->path, l->text, l->len, err, err_size) :
		ofan_cfg_load(l->path, err, err_size);
	int i, rc;

	if (cfg == NULL)
		return -EINVAL;
	fab_params_defaults(p, l->path);
	/* --seeds is the combinations' own (fab_experiment_load_with()). */
	rc = fab_apply_command_line(cfg, l->ov, l->nb_ov, l->seed_set, l->seed,
				    0, err, err_size);
	if (rc != 0)
		goto out;
	if (fab_parse_sweeps(cfg, sweeps, nb_sweeps) != 0) {
		rc = -EINVAL;
		goto fail;
	}
	for (i = 0; vidx != NULL && i < *nb_sweeps && rc == 0; i++) {
		rc = fab_apply_sweep(cfg, &sweeps[i], vidx[i], p, err,
				     err_size);
		snprintf(p->sweep_name[i], sizeof(p->sweep_name[i]), "%s",
			 sweeps[i].name);
		snprintf(p->sweep_value[i], sizeof(p->sweep_value[i]), "%s",
			 sweeps[i].values[vidx[i]]);
	}
	if (rc != 0)
		goto out;
	p->nb_sweep = (uint16_t)*nb_sweeps;
	if (fab_parse(cfg, p) != 0 ||
	    (l->check_links && fab_check_links(l, cfg, p) != 0) ||
	    ofan_cfg_check_unknown(cfg) != 0) {
		rc = -EINVAL;
		goto fail;
	}
	/* A cm error is its own file's, FILE:LINE (err is set); likewise a
	 * job's or its trace's. */
	err[0] = '\0';
	if (fab_check_traffic(l, cfg, p, err, err_size) != 0) {
		rc = -EINVAL;
		if (err[0] == '\0')
			goto fail;
	}
	goto out;
fail:
	snprintf(err, err_size, "%s", ofan_cfg_error(cfg));
out:
	ofan_cfg_free(cfg);
	return rc;
}

void
fab_params_for_seed(const struct fab_params *p, uint32_t i,
		    struct fab_params *out)
{
	*out = *p;
	out->seed = p->seed + i;
	out->matrix_seed = p->traffic_seed == FAB_TRAFFIC_FIXED ?
		p->matrix_seed : out->seed;
	if (!p->host_seed_set)
		out->host.set.seed = out->seed;
	if (!p->traffic_seed_set)
		out->host.traffic.seed = out->matrix_seed;
	out->host.traffic.settings = NULL;	/* fab_sim_build() sets it */
}

/* The lines of moved not yet in x->moved, appended while they fit. */
static void
fab_moved_merge(struct fab_experiment *x, const char *moved)
{
	const char *line, *nl, *seen;
	size_t len, n;

	for (line = moved; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		n = (size_t)(nl - line) + 1;	/* with its newline */
		for (seen = x->moved; *seen != '\0';
		     seen = strchr(seen, '\n') + 1)
			if (strncmp(seen, line, n) == 0)
				break;
		len = strlen(x->moved);
		if (*seen == '\0' && len + n < sizeof(x->moved)) {
			memcpy(x->moved + len, line, n);
			x->moved[len + n] = '\0';
		}
	}
}

static int
fab_experiment_load_checked(struct fab_loader *l, struct fab_experiment *x,
			    char *err, unsigned int err_size)
{
	struct fab_sweep sweeps[FAB_MAX_SWEEP_DIMS];
	int vidx[FAB_MAX_SWEEP_DIMS] = { 0 };
	struct fab_params *first;
	int nb_sweeps = 0, d, rc;
	uint32_t c, n = 1;

	memset(x, 0, sizeof(*x));
	x->path = l->path;
	first = calloc(1, sizeof(*first));
	if (first == NULL)
		return -ENOMEM;
	/* A first pass finds the sweeps (and checks the file as written). */
	rc = fab_load_combo(l, NULL, first, sweeps, &nb_sweeps, err,
			    err_size);
	if (rc == 0)
		fab_moved_merge(x, first->host.moved);
	free(first);
	if (rc != 0)
		return rc;
	for (d = 0; d < nb_sweeps; d++)
		n *= sweeps[d].nb_values;
	x->combos = calloc(n, sizeof(*x->combos));
	if (x->combos == NULL)
		return -ENOMEM;
	x->nb_combos = n;
	for (c = 0; c < n; c++) {
		uint32_t rest = c;

		/* The first dimension outermost. */
		for (d = nb_sweeps - 1; d >= 0; d--) {
			vidx[d] = (int)(rest % sweeps[d].nb_values);
			rest /= sweeps[d].nb_values;
		}
		rc = fab_load_combo(l, vidx, &x->combos[c], sweeps,
				    &nb_sweeps, err, err_size);
		if (rc != 0) {
			for (d = 0; d < nb_sweeps; d++) {
				char where[160];

				snprintf(where, sizeof(where), "%s%s = %s%s",
					 d == 0 ? " (sweep " : ", ",
					 sweeps[d].name,
					 sweeps[d].values[vidx[d]],
					 d == nb_sweeps - 1 ? ")" : "");
				if (strlen(err) + strlen(where) < err_size)
					strcat(err, where);
			}
			fab_experiment_free(x);
			return rc;
		}
		x->combos[c].host.traffic.settings = NULL;
		fab_moved_merge(x, x->combos[c].host.moved);
	}
	return 0;
}

/* The experiment l loads, with --seeds N (0: as the text says). */
static int
fab_experiment_load_with(struct fab_loader *l, uint32_t seeds,
			 struct fab_experiment *x, char *err,
			 unsigned int err_size)
{
	int rc = fab_experiment_load_checked(l, x, err, err_size);
	uint32_t c;

	if (l->have_topo)
		fab_topo_free(&l->topo);
	if (rc != 0 || seeds == 0)
		return rc;
	for (c = 0; c < x->nb_combos; c++)
		x->combos[c].seeds = seeds;
	return 0;
}

int
fab_experiment_load(const char *path, char *const *overrides,
		    int nb_overrides, bool seed_set, uint64_t seed,
		    struct fab_experiment *x, char *err, unsigned int err_size)
{
	return fab_experiment_load_seeds(path, overrides, nb_overrides,
					 seed_set, seed, 0, true, x, err,
					 err_size);
}

int
fab_experiment_load_seeds(const char *path, char *const *overrides,
			  int nb_overrides, bool seed_set, uint64_t seed,
			  uint32_t seeds, bool check_links,
			  struct fab_experiment *x, char *err,
			  unsigned int err_size)
{
	struct fab_loader l = {
		.path = path, .ov = overrides, .nb_ov = nb_overrides,
		.seed_set = seed_set, .seed = seed, .check_links = check_links,
	};

	return fab_experiment_load_with(&l, seeds, x, err, err_size);
}

int
fab_experiment_load_mem(const char *name, const char *text, size_t len,
			char *const *overrides, int nb_overrides,
			bool seed_set, uint64_t seed, uint32_t seeds,
			bool check_links, struct fab_experiment *x, char *err,
			unsigned int err_size)
{
	struct fab_loader l = {
		.path = name, .in_memory = true, .text = text, .len = len,
		.ov = overrides, .nb_ov = nb_overrides, .seed_set = seed_set,
		.seed = seed, .check_links = check_links,
	};

	return fab_experiment_load_with(&l, seeds, x, err, err_size);
}

int
fab_experiment_write_resolved(const struct fab_run_id *id, FILE *f,
			      char *err, unsigned int err_size)
{
	struct ofan_cfg *cfg = ofan_cfg_load(id->config, err, err_size);
	int rc;

	if (cfg == NULL)
		return -EINVAL;
	rc = fab_apply_command_line(cfg, id->overrides, id->nb_overrides,
				    id->seed_set, id->seed, id->seeds, err,
				    err_size);
	if (rc == 0) {
		fprintf(f, "; The experiment as run: %s\n"
			"; with the command line's overrides applied and marked.\n"
			"; Relative paths are relative to that file's folder;\n"
			"; command.txt runs it again.\n\n",
			id->config);
		rc = ofan_cfg_write(cfg, f);
		if (rc != 0)
			snprintf(err, err_size, "cannot write the resolved config");
	}
	ofan_cfg_free(cfg);
	return rc;
}

void
fab_experiment_free(struct fab_experiment *x)
{
	free(x->combos);
	x->combos = NULL;
	x->nb_combos = 0;
}
