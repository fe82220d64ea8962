/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric --config-reference: every key an experiment file may hold,
 * what it accepts and its default, read from the loaders themselves
 * (ofan_config.h, "Reference").  A small experiment is loaded once per
 * topology, traffic pattern, loss-recovery model and congestion control,
 * with every registered scheme, a failure, a drop and a sweep, while the
 * reference records; nothing runs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fab_model.h"
#include "hlb.h"
#include "hs_cc.h"
#include "hs_pattern.h"
#include "hs_transport.h"
#include "lb.h"
#include "ofan_config.h"

#define FAB_REF_NAME "reference.ini"

static const char fab_ref_text[] =
	"[fabric]\n"
	"name = reference\n"
	"k = 4\n"
	"\n[traffic]\n"
	"pattern = permutation\n";

/* Load the reference experiment with n overrides; 0 or -EINVAL. */
/* The most settings a pattern's example makes. */
#define FAB_REF_MAX_OV 4

/*
 * A pattern's example (INI text, its keys in [traffic] until a section
 * line) as overrides, "section.key=value", into ov; returns how many.
 */
static int
fab_ref_overrides(const char *example, char ov[][128])
{
	char sec[64] = "traffic";
	const char *l = example;
	int n = 0;

	while (l != NULL && *l != '\0' && n < FAB_REF_MAX_OV) {
		size_t len = strcspn(l, "\n");
		char line[128];
		char *eq;

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		l += len + (l[len] == '\n');
		eq = strchr(line, '=');
		if (line[0] == '[') {
			snprintf(sec, sizeof(sec), "%.*s",
				 (int)strcspn(line + 1, "]"), line + 1);
		} else if (eq != NULL) {
			char *k = line, *v = eq + 1, *e = eq;

			while (e > k && e[-1] == ' ')
				e--;
			*e = '\0';
			while (*v == ' ')
				v++;
			if (snprintf(ov[n], 128, "%s.%s=%s", sec, k, v) < 128)
				n++;
		}
	}
	return n;
}

static int
fab_ref_load(char *const *ov, int n, char *err, unsigned int err_size)
{
	struct fab_experiment x = { 0 };
	int rc;

	rc = fab_experiment_load_mem(FAB_REF_NAME, fab_ref_text,
				     strlen(fab_ref_text), ov, n, false, 0, 0,
				     true, &x, err, err_size);
	fab_experiment_free(&x);
	return rc;
}

/* One override "section.key=value" built from two parts. */
static int
fab_ref_one(const char *key, const char *value, char *err,
	    unsigned int err_size)
{
	char buf[256];
	char *ov[1] = { buf };

	snprintf(buf, sizeof(buf), "%s=%s", key, value);
	return fab_ref_load(ov, 1, err, err_size);
}

int
fab_config_reference(FILE *f, char *err, unsigned int err_size)
{
	static char *const failure[] = {
		"failure.NAME.link=agg0-core0", "failure.NAME.at=50us",
		"drop.NAME.link=tor0-agg0", "drop.NAME.frame=10",
		"sweep.NAME.keys=traffic.size",
		"sweep.NAME.values=64KiB", "queue.tor_up.queue_packets=100",
	};
	static const char *const topologies[] = { "leafspine", "b2b" };
	struct ofan_cfg_ref *ref = ofan_cfg_ref_new();
	char schemes[512] = "fabric.schemes=";
	char *ov[1] = { schemes };
	unsigned int i;
	int rc = 0;

	if (ref == NULL) {
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	ofan_cfg_ref_record(ref);
	/* Every scheme: each switch policy, each host policy but fixed (ecmp). */
	for (i = 0; lb_registry[i] != NULL; i++)
		snprintf(schemes + strlen(schemes),
			 sizeof(schemes) - strlen(schemes), "%s%s",
			 i ? "," : "", lb_registry[i]->name);
	for (i = 0; hlb_registry[i] != NULL; i++)
		if (strcmp(hlb_registry[i]->name, "fixed") != 0 &&
		    lb_find(hlb_registry[i]->name) == NULL)
			snprintf(schemes + strlen(schemes),
				 sizeof(schemes) - strlen(schemes), ",%s",
				 hlb_registry[i]->name);
	rc = fab_ref_load(ov, 1, err, err_size);
	if (rc == 0)
		rc = fab_ref_load((char *const *)failure,
				  (int)(sizeof(failure) / sizeof(failure[0])),
				  err, err_size);
	for (i = 0; rc == 0 && i < sizeof(topologies) / sizeof(topologies[0]);
	     i++)
		rc = fab_ref_one("fabric.topology", topologies[i], err,
				 err_size);
	for (i = 0; rc == 0 && hs_recovery_registry[i] != NULL; i++)
		rc = fab_ref_one("host.recovery", hs_recovery_registry[i]->name,
				 err, err_size);
	for (i = 0; rc == 0 && hs_cc_registry[i] != NULL; i++)
		rc = fab_ref_one("host.cc", hs_cc_registry[i]->name, err,
				 err_size);
	/* A pattern that reads a file at load finds no traffic in its
	 * example's /dev/null: that load fails after its keys are noted,
	 * and only that error is forgiven. */
	for (i = 0; rc == 0 && hs_pattern_registry[i] != NULL; i++) {
		const struct hs_pattern_ops *ops = hs_pattern_registry[i];
		char ex[FAB_REF_MAX_OV][128];
		char *pov[1 + FAB_REF_MAX_OV] = { schemes };
		int n = fab_ref_overrides(ops->example, ex);

		for (int k = 0; k < n; k++)
			pov[1 + k] = ex[k];
		snprintf(schemes, sizeof(schemes), "traffic.pattern=%s",
			 ops->name);
		if (fab_ref_load(pov, 1 + n, err, err_size) != 0 &&
		    !(ops->reads_file && strstr(err, "/dev/null") != NULL))
			rc = -EINVAL;
	}
	/* The other form of a sweep, which the loads above cannot show. */
	ofan_cfg_ref_note("sweep.NAME", "variants", 0,
			  "names of [variant.NAME] sections, comma separated, each a list of section.key = value settings applied together (instead of keys and values)",
			  NULL);
	ofan_cfg_ref_record(NULL);
	if (rc == 0) {
		fprintf(f, "## ofan-fabric: experiment files\n\n"
			"Generated by `ofan-fabric --config-reference` from the loaders.\n"
			"\"When absent\" is the value the program holds when the key is not set.\n"
			"`[NAME.N]` stands for any number, `NAME` for any name.\n\n");
		ofan_cfg_ref_write(ref, f);
	}
	ofan_cfg_ref_free(ref);
	return rc;
}
