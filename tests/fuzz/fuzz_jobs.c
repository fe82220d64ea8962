/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the training-job loader: [job.NAME] sections
 * (hs_job_from_cfg(), workload/hs_job.c), their placement and shapes
 * (hs_job_workload()) and the workload engine that runs them
 * (hs_wl_build(); workload/hs_workload*.c), from memory.  Each input is the
 * text of a config called DIR/fuzz.ini, placed on 16 hosts of 4 a ToR.
 * DIR is a folder the harness makes once (/tmp/ofan-fuzz-jobs-*, removed
 * at exit; a crash leaves it) and fills with a 4-rank Chakra trace,
 * t4.0.et .. t4.3.et (a small dense job, ofan's writer), that `model =
 * chakra` and `trace = t4` read.
 *
 * A refused config must say where: its message begins with
 * "DIR/fuzz.ini:" (a line, a section and key, the whole file) or comes
 * from an override; what the shapes or the engine refuse begins with the
 * job ("job NAME: ", "NAME: ") or a trace file of DIR.  One that builds
 * must run and hold what fuzz_workload.h checks.  Jobs of more than
 * FUZZ_MAX_NODES nodes a rank (layers x micro-batches x iterations) are
 * loaded and placed but not built, within libFuzzer's time per input.
 * Everything is freed (ASan checks the leaks).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_workload.h"
#include "hs_chakra.h"
#include "hs_job.h"
#include "ofan_config.h"

#define FUZZ_HOSTS 16
#define FUZZ_TOR 4
#define FUZZ_MAX_NODES 20000

static char fuzz_dir[64], fuzz_name[96];

static void
fuzz_cleanup(void)
{
	char path[128];
	int r;

	for (r = 0; r < 4; r++) {
		snprintf(path, sizeof(path), "%s/t4.%d.et", fuzz_dir, r);
		unlink(path);
	}
	rmdir(fuzz_dir);
}

/* DIR and its trace, once per process. */
static void
fuzz_setup(void)
{
	struct hs_job_params j;
	struct hs_workload w;
	char prefix[96], err[512];

	snprintf(fuzz_dir, sizeof(fuzz_dir), "/tmp/ofan-fuzz-jobs-XXXXXX");
	if (mkdtemp(fuzz_dir) == NULL)
		abort();
	atexit(fuzz_cleanup);
	hs_job_defaults(&j);
	snprintf(j.name, sizeof(j.name), "t4");
	j.dp = 2;
	j.tp = 2;
	j.layers = 2;
	j.hidden = 64;
	j.ffn = 128;
	j.seq_len = 16;
	j.micro_batches = 2;
	j.iterations = 1;
	snprintf(prefix, sizeof(prefix), "%s/t4", fuzz_dir);
	if (hs_job_workload(&j, 1, 4, 0, 1, &w, err, sizeof(err)) != 0 ||
	    hs_chakra_write(&w, 0, prefix, err, sizeof(err)) != 0)
		abort();
	hs_wl_free(&w);
	snprintf(fuzz_name, sizeof(fuzz_name), "%s/fuzz.ini", fuzz_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hs_job_params jobs[HS_MAX_JOBS];
	struct ofan_cfg *cfg;
	struct hs_workload w;
	struct hs_traffic t;
	char err[1024] = "";
	uint64_t nodes;
	int nb, i, rc;

	if (fuzz_name[0] == '\0')
		fuzz_setup();
	cfg = ofan_cfg_load_mem(fuzz_name, (const char *)data, size, err,
				sizeof(err));
	if (cfg == NULL) {
		if (strncmp(err, fuzz_name, strlen(fuzz_name)) != 0)
			abort();
		return 0;
	}
	nb = hs_job_from_cfg(cfg, FUZZ_HOSTS, jobs);
	if (nb < 0) {
		const char *e = ofan_cfg_error(cfg);

		if (strncmp(e, fuzz_name, strlen(fuzz_name)) != 0 ||
		    e[strlen(fuzz_name)] != ':')
			abort();
		ofan_cfg_free(cfg);
		return 0;
	}
	ofan_cfg_free(cfg);
	if (nb > HS_MAX_JOBS)
		abort();
	for (i = 0; i < nb; i++) {
		if (hs_job_ranks(&jobs[i]) == 0 ||
		    hs_job_ranks(&jobs[i]) > FUZZ_HOSTS)
			abort();
		nodes = jobs[i].model == HS_JOB_CHAKRA ? 64 :
			(uint64_t)jobs[i].layers * jobs[i].micro_batches *
			(jobs[i].grad_buckets + 8);
		if (nodes * jobs[i].iterations > FUZZ_MAX_NODES)
			return 0;
	}
	if (nb == 0)
		return 0;
	rc = hs_job_workload(jobs, (uint32_t)nb, FUZZ_HOSTS, FUZZ_TOR, 1, &w,
			     err, sizeof(err));
	if (rc == 0) {
		rc = hs_wl_build(&w, &t, err, sizeof(err));
		if (rc == 0) {
			fuzz_run(&w, &t);
			hs_traffic_free(&t);
		}
	}
	if (rc != 0 && rc != -EINVAL)
		abort();
	if (rc == -EINVAL && err[0] == '\0')
		abort();
	hs_wl_free(&w);
	return 0;
}
