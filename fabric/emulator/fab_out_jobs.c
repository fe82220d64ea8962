/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric's results of training jobs (fab_out_jobs.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fab_out_jobs.h"
#include "hs_workload.h"

/* A time in us, or empty for "never" (UINT64_MAX). */
/* Job k of p's [job.NAME] sections (p runs training jobs). */
static const struct hs_job_params *
fab_job_of(const struct fab_params *p, uint32_t k)
{
	return &hs_jobs_of(p->host.traffic.pattern,
			   &p->host.pattern_set)->jobs[k];
}

/* How many [job.NAME] sections p has (0: p runs no training jobs). */
static uint32_t
fab_nb_jobs(const struct fab_params *p)
{
	const struct hs_jobs_settings *js =
		hs_jobs_of(p->host.traffic.pattern, &p->host.pattern_set);

	return js == NULL ? 0 : js->nb;
}

static void
fab_us(FILE *f, uint64_t ns)
{
	if (ns != UINT64_MAX)
		fprintf(f, "%.3f", (double)ns / 1e3);
}

static FILE *
fab_jobs_file(const char *dir, const char *name, const char *header,
	      char *err, unsigned int err_size)
{
	char path[640];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, err_size, "cannot write %s: %s", path,
			 strerror(errno));
		return NULL;
	}
	fprintf(f, "run,combo,scheme,seed,%s\n", header);
	return f;
}

static int
fab_jobs_open(struct fab_jobs_out *jo, const char *dir, char *err,
	      unsigned int err_size)
{
	jo->jobs = fab_jobs_file(dir, "jobs.csv",
		"job,iteration,ranks,iter_us,ideal_us,slowdown,compute_us,wait_max_us,wait_mean_us,end_us",
		err, err_size);
	jo->ops = jo->jobs == NULL ? NULL : fab_jobs_file(dir, "job-ops.csv",
		"job,iteration,op,name,kind,ranks,size,start_us,end_us,time_us,ideal_us,algbw_gbps,busbw_gbps",
		err, err_size);
	jo->ranks = jo->ops == NULL ? NULL : fab_jobs_file(dir,
		"job-ranks.csv",
		"job,rank,host,iteration,begin_us,end_us,compute_us,wait_us",
		err, err_size);
	jo->nodes = jo->ranks == NULL ? NULL : fab_jobs_file(dir,
		"job-nodes.csv",
		"job,rank,host,iteration,node,kind,start_us,end_us",
		err, err_size);
	if (jo->nodes != NULL)
		return 0;
	fab_jobs_out_close(jo);
	return -EIO;
}

/* What an operation or node is: its collective, or send/recv/compute. */
static const char *
fab_jobs_kind(uint8_t kind, uint8_t coll)
{
	if (kind == HS_WL_COLL && coll < HS_COLL_NB)
		return hs_wl_coll_names[coll];
	return kind < HS_WL_KIND_NB ? hs_wl_kind_names[kind] : "?";
}

int
fab_jobs_out_run(struct fab_jobs_out *jo, const char *dir, uint32_t run,
		 const struct fab_params *p, const struct fab_run *r,
		 char *err, unsigned int err_size)
{
	const struct hs_wl_results *res = &r->jobs;
	const char *scheme = p->schemes[r->scheme].name;
	uint32_t i;

	if (r->nb_jobs == 0)
		return 0;
	if (jo->jobs == NULL && fab_jobs_open(jo, dir, err, err_size) != 0)
		return -EIO;
#define FAB_JOBS_ROW(f) fprintf(f, "%u,%u,%s,%" PRIu64 ",", run, r->combo, \
				scheme, r->seed)
	for (i = 0; i < res->nb_iters; i++) {
		const struct hs_wl_iter_result *it = &res->iters[i];
		const bool ended = it->iter_ns != 0;

		FAB_JOBS_ROW(jo->jobs);
		fprintf(jo->jobs, "%s,%u,%" PRIu64 ",", fab_job_of(p, it->job)->name,
			it->iteration, hs_job_ranks(fab_job_of(p, it->job)));
		if (ended)
			fprintf(jo->jobs, "%.3f,%.3f,%.4f,%.3f,%.3f,%.3f,%.3f\n",
				(double)it->iter_ns / 1e3,
				(double)it->ideal_ns / 1e3,
				it->ideal_ns ? (double)it->iter_ns /
				(double)it->ideal_ns : 0.0,
				(double)it->compute_ns / 1e3,
				(double)it->wait_max_ns / 1e3,
				(double)it->wait_mean_ns / 1e3,
				(double)it->end_ns / 1e3);
		else
			fprintf(jo->jobs, ",%.3f,,%.3f,,,\n",
				(double)it->ideal_ns / 1e3,
				(double)it->compute_ns / 1e3);
	}
	for (i = 0; i < res->nb_ops; i++) {
		const struct hs_wl_op_result *q = &res->ops[i];
		const bool ended = q->end_ns != 0 || q->start_ns != 0;

		FAB_JOBS_ROW(jo->ops);
		fprintf(jo->ops, "%s,%u,%u,", fab_job_of(p, q->job)->name,
			q->iteration, q->op);
		hs_wl_csv_name(jo->ops, q->name);
		fprintf(jo->ops, ",%s,%u,%" PRIu64 ",",
			q->kind == HS_WL_SEND ? "send_recv" :
			fab_jobs_kind(q->kind, q->coll), q->nb_members,
			q->size);
		if (ended)
			fprintf(jo->ops, "%.3f,%.3f,%.3f,%.3f,%.4f,%.4f\n",
				(double)q->start_ns / 1e3,
				(double)q->end_ns / 1e3,
				(double)(q->end_ns - q->start_ns) / 1e3,
				(double)q->ideal_ns / 1e3, q->algbw_gbps,
				q->busbw_gbps);
		else
			fprintf(jo->ops, ",,,%.3f,,\n",
				(double)q->ideal_ns / 1e3);
	}
	for (i = 0; i < res->nb_ranks; i++) {
		const struct hs_wl_rank_result *q = &res->ranks[i];

		FAB_JOBS_ROW(jo->ranks);
		fprintf(jo->ranks, "%s,%u,%u,%u,", fab_job_of(p, q->job)->name,
			q->rank, q->host, q->iteration);
		if (q->end_ns != 0)
			fprintf(jo->ranks, "%.3f,%.3f,%.3f,%.3f\n",
				(double)q->begin_ns / 1e3,
				(double)q->end_ns / 1e3,
				(double)q->compute_ns / 1e3,
				(double)q->wait_ns / 1e3);
		else
			fprintf(jo->ranks, ",,%.3f,\n",
				(double)q->compute_ns / 1e3);
	}
	for (i = 0; i < res->nb_nodes; i++) {
		const struct hs_wl_node_result *q = &res->nodes[i];

		FAB_JOBS_ROW(jo->nodes);
		fprintf(jo->nodes, "%s,%u,%u,%u,", fab_job_of(p, q->job)->name,
			q->rank, q->host, q->iteration);
		hs_wl_csv_name(jo->nodes, q->name);
		fprintf(jo->nodes, ",%s,", fab_jobs_kind(q->kind, q->coll));
		fab_us(jo->nodes, q->start_ns);
		fputc(',', jo->nodes);
		fab_us(jo->nodes, q->end_ns);
		fputc('\n', jo->nodes);
	}
#undef FAB_JOBS_ROW
	return ferror(jo->jobs) || ferror(jo->ops) || ferror(jo->ranks) ||
		ferror(jo->nodes) ? -EIO : 0;
}

int
fab_jobs_out_close(struct fab_jobs_out *jo)
{
	FILE **f[4] = { &jo->jobs, &jo->ops, &jo->ranks, &jo->nodes };
	int i, rc = 0;

	for (i = 0; i < 4; i++) {
		if (*f[i] != NULL && fclose(*f[i]) != 0)
			rc = -EIO;
		*f[i] = NULL;
	}
	return rc;
}

void
fab_jobs_out_params(struct ofan_json *j, const struct fab_params *p)
{
	uint32_t k;

	if (fab_nb_jobs(p) == 0)
		return;
	ofan_json_arr_begin(j, "jobs");
	for (k = 0; k < fab_nb_jobs(p); k++) {
		const struct hs_job_params *jb = fab_job_of(p, k);

		ofan_json_obj_begin(j, NULL);
		ofan_json_str(j, "name", jb->name);
		ofan_json_str(j, "model", jb->shape->name);
		ofan_json_u64(j, "ranks", hs_job_ranks(jb));
		/* A registered shape's settings are its own: not shown. */
		if (jb->model == HS_JOB_CHAKRA) {
			ofan_json_str(j, "trace", jb->trace);
		} else if (jb->model != HS_JOB_SHAPE) {
			ofan_json_u64(j, "dp", jb->dp);
			ofan_json_u64(j, "tp", jb->tp);
			ofan_json_u64(j, "pp", jb->pp);
			if (jb->model == HS_JOB_MOE) {
				ofan_json_u64(j, "ep", jb->ep);
				ofan_json_u64(j, "experts", jb->experts);
				ofan_json_u64(j, "top_k", jb->top_k);
			}
			ofan_json_u64(j, "layers", jb->layers);
			ofan_json_u64(j, "hidden", jb->hidden);
			ofan_json_u64(j, "seq_len", jb->seq_len);
			ofan_json_u64(j, "micro_batches", jb->micro_batches);
			ofan_json_double(j, "tflops", (double)jb->flops / 1e12);
		}
		ofan_json_u64(j, "iterations", jb->iterations);
		ofan_json_str(j, "placement",
			      hs_job_place_names[jb->placement]);
		ofan_json_obj_end(j);
	}
	ofan_json_arr_end(j);
}

void
fab_jobs_out_json(struct ofan_json *j, const struct fab_params *p,
		  const struct fab_run *r)
{
	uint32_t k;

	if (r->nb_jobs == 0)
		return;
	ofan_json_arr_begin(j, "jobs");
	for (k = 0; k < r->nb_jobs; k++) {
		const struct fab_job_sum *js = &r->job_sum[k];

		ofan_json_obj_begin(j, NULL);
		ofan_json_str(j, "name", fab_job_of(p, k)->name);
		ofan_json_u64(j, "ranks", hs_job_ranks(fab_job_of(p, k)));
		ofan_json_u64(j, "iterations", js->iterations);
		ofan_json_u64(j, "iterations_ended", js->ended);
		ofan_json_double(j, "iter_us", js->iter_us);
		ofan_json_double(j, "ideal_us", js->ideal_us);
		ofan_json_double(j, "slowdown", js->slowdown);
		ofan_json_double(j, "wait_max_us", js->wait_max_us);
		ofan_json_obj_end(j);
	}
	ofan_json_arr_end(j);
}

/*
 * One job in one group of runs (a scheme and combination over its seeds):
 * the mean ideal iteration time over the seeds and, when every seed's
 * iterations all ended, the means of the iteration time and of the longest
 * wait.
 */
struct fab_jobs_mean {
	bool ended;
	double iter_us, ideal_us, wait_max_us;
};

static struct fab_jobs_mean
fab_jobs_group_mean(const struct fab_run *const *runs, uint32_t first,
		    uint32_t n, uint32_t jb)
{
	struct fab_jobs_mean m = { .ended = false };
	double it = 0, id = 0, wt = 0;
	uint32_t ended = 0, iters = 0, k;

	for (k = 0; k < n; k++) {
		const struct fab_job_sum *js = &runs[first + k]->job_sum[jb];

		iters += js->iterations;
		id += js->ideal_us;
		if (js->ended != js->iterations)
			continue;
		ended++;
		it += js->iter_us;
		wt += js->wait_max_us;
	}
	m.ideal_us = id / n;
	if (ended != n || iters == 0)
		return m;
	m.ended = true;
	m.iter_us = it / ended;
	m.wait_max_us = wt / ended;
	return m;
}

void
fab_jobs_out_table(FILE *t, const struct fab_run *const *runs,
		   const struct fab_params *const *params,
		   const uint32_t *first, const uint32_t *n,
		   uint32_t nb_groups)
{
	const struct fab_params *p0;
	uint32_t g, jb, nb_jobs;
	int d;

	if (nb_groups == 0 || runs[first[0]]->nb_jobs == 0)
		return;
	p0 = params[first[0]];
	nb_jobs = runs[first[0]]->nb_jobs;
	fprintf(t, "\n%-12s %-10s", "job", "scheme");
	for (d = 0; d < p0->nb_sweep; d++)
		fprintf(t, " %10.10s", p0->sweep_name[d]);
	fprintf(t, " %6s %12s %12s %7s %12s\n", "ranks", "iter_us",
		"ideal_us", "iter_x", "wait_max_us");
	for (jb = 0; jb < nb_jobs; jb++)
		for (g = 0; g < nb_groups; g++) {
			const struct fab_run *r0 = runs[first[g]];
			const struct fab_params *p = params[first[g]];
			struct fab_jobs_mean m =
				fab_jobs_group_mean(runs, first[g], n[g], jb);

			fprintf(t, "%-12.12s %-10s", fab_job_of(p, jb)->name,
				p->schemes[r0->scheme].name);
			for (d = 0; d < p->nb_sweep; d++)
				fprintf(t, " %10.10s", p->sweep_value[d]);
			fprintf(t, " %6" PRIu64, hs_job_ranks(fab_job_of(p, jb)));
			if (!m.ended)
				fprintf(t, " %14s %12.1f %9s %14s\n", "–",
					m.ideal_us, "–", "–");
			else
				fprintf(t, " %12.1f %12.1f %7.3f %12.1f\n",
					m.iter_us, m.ideal_us,
					m.ideal_us > 0 ?
					m.iter_us / m.ideal_us : 0.0,
					m.wait_max_us);
		}
	fprintf(t, "iter_us: mean iteration time (the last rank's end of an iteration to the next's); ideal_us: the same job\n"
		   "with every flow in its ideal time (a non-blocking fabric); iter_x: their ratio; wait_max_us: the longest time a\n"
		   "rank was not computing within an iteration (waiting on the network or on its peers); per job in jobs.csv,\n"
		   "per collective in job-ops.csv (algbw, busbw), per rank in job-ranks.csv, per node in job-nodes.csv\n");
}
