/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-chakra: MLCommons Chakra execution traces of training jobs.
 *
 *   ofan-chakra write --config FILE --job NAME --out PREFIX
 *       the [job.NAME] section of FILE (an experiment or host config) as
 *       Chakra traces PREFIX.0.et .. PREFIX.(R-1).et, one per rank: a job
 *       built from a preset or a few numbers, for [job] model = chakra or
 *       any tool that reads Chakra;
 *   ofan-chakra show [--ranks R] PREFIX
 *       what ofan makes of a trace: per rank, its nodes as the workload
 *       engine runs them, and what it did not map; R is the number of
 *       files PREFIX.N.et when not given, and must be when given;
 *   ofan-chakra --version
 * Exit status: 0, 1 when a trace or config is bad (message on stderr),
 * 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_chakra.h"
#include "hs_job.h"
#include "hs_traffic.h"
#include "hs_workload.h"
#include "ofan_config.h"
#include "ofan_version.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: ofan-chakra write --config FILE --job NAME --out PREFIX\n"
		"       ofan-chakra show [--ranks R] PREFIX\n"
		"       ofan-chakra --version\n"
		"write: [job.NAME] of FILE as Chakra traces PREFIX.RANK.et, one per rank\n"
		"show:  the nodes ofan reads from PREFIX.0.et .. PREFIX.(R-1).et (R: as many\n"
		"       as there are; --ranks checks the count)\n");
}

/* Reads every [job.*] section; the rest of the file is not ours. */
struct chakra_load {
	struct hs_job_params *jobs;
	int nb;
};

static int
chakra_fill(struct ofan_cfg *cfg, void *arg)
{
	struct chakra_load *l = arg;

	l->nb = hs_job_from_cfg(cfg, HS_MAX_RANKS, l->jobs);
	return l->nb < 0 ? -EINVAL : 0;
}

static int
chakra_write(const char *config, const char *name, const char *prefix)
{
	struct chakra_load l = { .jobs = calloc(HS_MAX_JOBS,
						sizeof(*l.jobs)) };
	struct hs_workload w;
	char err[1024] = "";
	int i, rc;

	if (l.jobs == NULL)
		return 1;
	rc = ofan_cfg_load_with(config, chakra_fill, &l, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "ofan-chakra: %s\n", err);
		free(l.jobs);
		return 1;
	}
	for (i = 0; i < l.nb && strcmp(l.jobs[i].name, name) != 0; i++)
		;
	if (i == l.nb) {
		fprintf(stderr, "ofan-chakra: %s: no [job.%s]; expected one of its %d [job.NAME] sections\n",
			config, name, l.nb);
		free(l.jobs);
		return 1;
	}
	/* Placed alone and packed: a trace does not say where ranks run. */
	l.jobs[i].placement = HS_PLACE_PACKED;
	rc = hs_job_workload(&l.jobs[i], 1, (uint32_t)hs_job_ranks(&l.jobs[i]),
			     0, 0, &w, err, sizeof(err));
	if (rc == 0)
		rc = hs_chakra_write(&w, 0, prefix, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "ofan-chakra: %s\n", err);
	else
		printf("ofan-chakra: job %s: %u ranks, %u nodes: %s.0.et .. %s.%u.et\n",
		       name, w.jobs[0].nb_ranks, w.nb_nodes, prefix, prefix,
		       w.jobs[0].nb_ranks - 1);
	hs_wl_free(&w);
	free(l.jobs);
	return rc != 0;
}

static int
chakra_show(const char *prefix, uint32_t ranks)
{
	struct hs_workload w;
	struct hs_traffic t;
	uint32_t *hosts = malloc(sizeof(*hosts) * (ranks + 1)), i, k;
	char err[1024] = "";
	int rc;

	if (hosts == NULL)
		return 1;
	for (i = 0; i < ranks; i++)
		hosts[i] = i;
	hs_wl_init(&w, ranks);
	rc = hs_wl_add_job(&w, "trace", ranks, hosts, 1, 0, err, sizeof(err));
	if (rc >= 0)
		rc = hs_chakra_read(&w, prefix, err, sizeof(err));
	for (i = 0; rc == 0 && i < w.nb_nodes; i++) {
		const struct hs_wl_node *x = &w.nodes[i];

		printf("rank %u node %u %s: %s", x->rank, i, hs_wl_name(&w, i),
		       x->kind == HS_WL_COLL ? hs_wl_coll_names[x->coll] :
		       hs_wl_kind_names[x->kind]);
		if (x->kind == HS_WL_COMP)
			printf(" %" PRIu64 " ns", x->dur_ns);
		else
			printf(" %" PRIu64 " bytes", x->size);
		if (x->kind == HS_WL_SEND || x->kind == HS_WL_RECV)
			printf(" %s rank %u tag %u",
			       x->kind == HS_WL_SEND ? "to" : "from", x->peer,
			       x->tag);
		if (x->kind == HS_WL_COLL)
			printf(" over %u ranks",
			       w.comms[w.jobs[0].comm_first + x->comm].nb);
		for (k = 0; k < x->nb_deps; k++)
			printf("%s%u", k ? "," : " after ",
			       w.deps[x->dep_first + k]);
		printf("\n");
	}
	if (rc == 0) {
		printf("not mapped: %s\n", w.nb_unmapped ? w.unmapped :
		       "nothing");
		for (i = 0; i < w.jobs[0].nb_comms; i++) {
			const struct hs_wl_comm *m =
				&w.comms[w.jobs[0].comm_first + i];

			printf("communicator %u: %u ranks:", i, m->nb);
			for (k = 0; k < m->nb; k++)
				printf("%s%u", k ? "," : " ",
				       w.comm_ranks[m->first + k]);
			printf("\n");
		}
		/* And whether it builds: matched collectives, no cycle. */
		rc = hs_wl_build(&w, &t, err, sizeof(err));
		if (rc == 0) {
			printf("%u operations, %u flows\n", w.nb_ops,
			       w.nb_flows);
			hs_traffic_free(&t);
		}
	}
	if (rc != 0)
		fprintf(stderr, "ofan-chakra: %s\n", err);
	hs_wl_free(&w);
	free(hosts);
	return rc != 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "job", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "ranks", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *job = NULL, *out = NULL, *cmd;
	uint64_t ranks = 0;
	int c;

	if (ofan_version_asked(argc, argv))
		return ofan_version_print("ofan-chakra");
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'j':
			job = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'r':
			if (ofan_parse_u64(optarg, &ranks) != 0 || ranks == 0 ||
			    ranks > HS_MAX_RANKS) {
				fprintf(stderr, "ofan-chakra: --ranks '%s'; expected an integer in [1, %u]\n",
					optarg, HS_MAX_RANKS);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (strcmp(cmd, "write") == 0 && config && job && out &&
	    optind == argc)
		return chakra_write(config, job, out);
	if (strcmp(cmd, "show") == 0 && optind == argc - 1) {
		if (ranks == 0)
			ranks = hs_chakra_count(argv[optind]);
		if (ranks == 0) {
			fprintf(stderr, "ofan-chakra: %s: no file %s.0.et; expected the PREFIX of a trace's files (PREFIX.0.et, PREFIX.1.et, ...)\n",
				argv[optind], argv[optind]);
			return 1;
		}
		return chakra_show(argv[optind], (uint32_t)ranks);
	}
	usage(stderr);
	return 2;
}
