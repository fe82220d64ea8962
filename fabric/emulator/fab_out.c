/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Results of ofan-fabric, in the --out directory:
 *   summary.json    every run: scheme, sweep values, slowdowns, FCT,
 *                   collective time, max queue per layer, drops by reason,
 *                   ECN marks, retransmissions, conservation;
 *   runs.csv        the same, one row per run (what the plots read);
 *                   with [fabric] seeds = N, one row per seed, and the
 *                   table and summary.json give each scheme's mean and
 *                   95 % confidence interval over the seeds;
 *   flows.csv       one row per flow per run;
 *   queues.csv      max occupancy of each switch port per time window
 *                   (windows where it held a packet);
 *   queue-time.csv  max occupancy per layer (and "all") per window;
 *   table.txt       the printed table;
 *   timing.csv      wall time, events, packet-hops and peak memory per run.
 * Everything but timing.csv and the wall-time column of the table is a
 * pure function of the configuration and the seed.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>

#include "fab.h"
#include "fab_out_jobs.h"
#include "hs_cm.h"
#include "hs_job.h"
#include "hs_pattern.h"
#include "ofan_json.h"
#include "ofan_vcs.h"
#include "ofan_wire.h"

struct fab_out_run {
	struct fab_run r;	/* without flows and windows */
	const struct fab_params *p;
};

struct fab_out {
	char dir[512];
	const struct fab_experiment *x;
	char cwd[1024];		/* fab_out_describe()'s */
	const struct fab_run_id *id;	/* fab_out_describe()'s, or NULL */
	FILE *flows, *queues, *qtime;
	struct fab_jobs_out jobs;	/* training jobs' files */
	uint32_t nb_runs, cap_runs;
	struct fab_out_run *runs;
};

static FILE *
fab_out_file(const struct fab_out *o, const char *name, char *err,
	     unsigned int err_size)
{
	char path[640];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", o->dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		snprintf(err, err_size, "cannot write %s: %s", path,
			 strerror(errno));
	return f;
}

/* s single-quoted for a POSIX shell when it needs quoting. */
static void
fab_out_shell_word(FILE *f, const char *s)
{
	const char *c;

	if (s[0] != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    "_-./=,:+%@") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (c = s; *c != '\0'; c++) {
		if (*c == '\'')
			fputs("'\\''", f);
		else
			fputc(*c, f);
	}
	fputc('\'', f);
}

int
fab_out_describe(struct fab_out *o, int argc, char *const *argv,
		 const struct fab_run_id *id, char *err, unsigned int err_size)
{
	char ident[FAB_RUN_ID_LEN + 1];
	FILE *f;
	int i, rc;

	o->id = id;
	if (getcwd(o->cwd, sizeof(o->cwd)) == NULL)
		o->cwd[0] = '\0';
	f = fab_out_file(o, "command.txt", err, err_size);
	if (f == NULL)
		return -EIO;
	fputs("cd ", f);
	fab_out_shell_word(f, o->cwd);
	fputs(" &&", f);
	for (i = 0; i < argc; i++) {
		fputc(' ', f);
		fab_out_shell_word(f, argv[i]);
	}
	fputc('\n', f);
	if (fclose(f) != 0) {
		snprintf(err, err_size, "cannot write %s/command.txt", o->dir);
		return -EIO;
	}
	/*
	 * The same as JSON, with the version.  Not in summary.json, which
	 * stays byte-identical for any thread or rank count.
	 */
	f = fab_out_file(o, "run.json", err, err_size);
	if (f == NULL)
		return -EIO;
	fab_run_identity(id, ident);
	{
		struct ofan_json j;

		ofan_json_init(&j, f, true);
		ofan_json_obj_begin(&j, NULL);
		ofan_json_str(&j, "version", OFAN_VERSION);
		ofan_json_str(&j, "cwd", o->cwd);
		ofan_json_arr_begin(&j, "command");
		for (i = 0; i < argc; i++)
			ofan_json_str(&j, NULL, argv[i]);
		ofan_json_arr_end(&j);
		ofan_json_str(&j, "config", o->x->path);
		ofan_json_arr_begin(&j, "overrides");
		for (i = 0; i < id->nb_overrides; i++)
			ofan_json_str(&j, NULL, id->overrides[i]);
		ofan_json_arr_end(&j);
		ofan_json_str(&j, "identity", ident);
		ofan_json_obj_end(&j);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		snprintf(err, err_size, "cannot write %s/run.json", o->dir);
		return -EIO;
	}
	/* The experiment as run: the file with the overrides applied. */
	f = fab_out_file(o, "config.ini", err, err_size);
	if (f == NULL)
		return -EIO;
	rc = fab_experiment_write_resolved(id, f, err, err_size);
	if (fclose(f) != 0 && rc == 0) {
		snprintf(err, err_size, "cannot write %s/config.ini", o->dir);
		rc = -EIO;
	}
	return rc;
}

struct fab_out *
fab_out_open(const char *dir, const struct fab_experiment *x, char *err,
	     unsigned int err_size)
{
	struct fab_out *o = calloc(1, sizeof(*o));
	char tmp[512], *c;

	if (o == NULL) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	snprintf(o->dir, sizeof(o->dir), "%s", dir);
	o->x = x;
	/* mkdir -p */
	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (c = tmp + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = 0;
		mkdir(tmp, 0755);
		*c = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
		snprintf(err, err_size, "cannot create %s: %s", dir,
			 strerror(errno));
		free(o);
		return NULL;
	}
	/* An earlier run's files (fab_outdir_check() allowed it). */
	if (fab_outdir_clear(dir, err, err_size) != 0) {
		free(o);
		return NULL;
	}
	o->flows = fab_out_file(o, "flows.csv", err, err_size);
	o->queues = o->flows ? fab_out_file(o, "queues.csv", err, err_size) :
		NULL;
	o->qtime = o->queues ? fab_out_file(o, "queue-time.csv", err,
					    err_size) : NULL;
	if (o->qtime == NULL) {
		if (o->flows)
			fclose(o->flows);
		if (o->queues)
			fclose(o->queues);
		free(o);
		return NULL;
	}
	fprintf(o->flows, "run,combo,scheme,seed,flow,src,dst,size,start_us,fct_us,ideal_us,slowdown,rx_done_us,");
	hs_flow_result_csv_header(o->flows);
	fprintf(o->flows, "\n");
	fprintf(o->queues, "run,combo,scheme,seed,t_us,link,switch,port,layer,max_pkts,max_bytes,max_full\n");
	fprintf(o->qtime, "run,combo,scheme,seed,t_us,layer,max_pkts,max_bytes,max_full\n");
	return o;
}

/* Bytes as full data frames, the unit of the tables and plots. */
static inline double
fab_full(const struct fab_run *r, uint64_t bytes)
{
	return r->full_frame ? (double)bytes / r->full_frame : 0.0;
}

/*
 * Each window's largest queue per layer and over every layer ("all",
 * index FAB_L_NB), in frames and bytes: cells of FAB_L_NB + 1 per window
 * of r's nb_windows.
 */
struct fab_qtime {
	uint32_t nb_windows;
	uint32_t *max_pkts;
	uint64_t *max_bytes;
};

static void
fab_qtime_free(struct fab_qtime *qt)
{
	free(qt->max_pkts);
	free(qt->max_bytes);
}

/* r's queue windows folded into qt, by layer; 0 or -ENOMEM. */
static int
fab_qtime_compute(const struct fab_topo *t, const struct fab_run *r,
		  struct fab_qtime *qt)
{
	size_t cells = (size_t)r->nb_windows * (FAB_L_NB + 1);
	uint32_t i;

	qt->nb_windows = r->nb_windows;
	qt->max_pkts = calloc(cells, sizeof(*qt->max_pkts));
	qt->max_bytes = calloc(cells, sizeof(*qt->max_bytes));
	if (qt->max_pkts == NULL || qt->max_bytes == NULL) {
		fab_qtime_free(qt);
		return -ENOMEM;
	}
	for (i = 0; i < r->nb_qwin; i++) {
		const struct fab_qwin *q = &r->qwin[i];
		const struct fab_link_desc *k = &t->links[q->link];
		size_t row = (size_t)q->window * (FAB_L_NB + 1);
		uint8_t lay = k->layer[q->end];
		uint32_t *lmax = &qt->max_pkts[row];
		uint64_t *bmax = &qt->max_bytes[row];

		if (q->window >= qt->nb_windows)
			continue;
		lmax[lay] = RTE_MAX(lmax[lay], q->max_pkts);
		lmax[FAB_L_NB] = RTE_MAX(lmax[FAB_L_NB], q->max_pkts);
		bmax[lay] = RTE_MAX(bmax[lay], q->max_bytes);
		bmax[FAB_L_NB] = RTE_MAX(bmax[FAB_L_NB], q->max_bytes);
	}
	return 0;
}

/* queues.csv: a row per switch port and window where it held a frame. */
static void
fab_out_queues(struct fab_out *o, uint32_t run, const struct fab_params *p,
	       const struct fab_topo *t, const struct fab_run *r)
{
	const char *scheme = p->schemes[r->scheme].name;
	uint32_t i;

	for (i = 0; i < r->nb_qwin; i++) {
		const struct fab_qwin *q = &r->qwin[i];
		const struct fab_link_desc *k = &t->links[q->link];
		uint8_t lay = k->layer[q->end];

		if (q->window >= r->nb_windows)
			continue;
		fprintf(o->queues, "%u,%u,%s,%" PRIu64 ",%.3f,%s,%s,%u,%s,%u,%" PRIu64 ",%.3f\n",
			run, r->combo, scheme, r->seed,
			(double)q->window * p->queue_window_ns / 1e3, k->name,
			t->sw[k->node[q->end]].name, k->port[q->end],
			fab_layer_name(t->kind, lay), q->max_pkts,
			q->max_bytes, fab_full(r, q->max_bytes));
	}
}

/* queue-time.csv: a row per window and switch layer, and "all". */
static void
fab_out_qtime(struct fab_out *o, uint32_t run, const struct fab_params *p,
	      const struct fab_topo *t, const struct fab_run *r,
	      const struct fab_qtime *qt)
{
	const char *scheme = p->schemes[r->scheme].name;
	uint32_t w;
	int l;

	for (w = 0; w < qt->nb_windows; w++) {
		size_t row = (size_t)w * (FAB_L_NB + 1);
		double t_us = (double)w * p->queue_window_ns / 1e3;

		for (l = 0; l <= FAB_L_NB; l++) {
			const char *name = l == FAB_L_NB ? "all" :
				fab_layer_name(t->kind, l);

			if (name == NULL || l == FAB_L_HOST)
				continue;
			fprintf(o->qtime, "%u,%u,%s,%" PRIu64 ",%.3f,%s,%u,%" PRIu64 ",%.3f\n",
				run, r->combo, scheme, r->seed, t_us, name,
				qt->max_pkts[row + l], qt->max_bytes[row + l],
				fab_full(r, qt->max_bytes[row + l]));
		}
	}
}

int
fab_out_run(struct fab_out *o, const struct fab_params *p,
	    const struct fab_topo *t, const struct fab_run *r)
{
	const char *scheme = p->schemes[r->scheme].name;
	uint32_t run = o->nb_runs, f;
	struct fab_qtime qt;

	if (o->nb_runs == o->cap_runs) {
		uint32_t cap = o->cap_runs ? 2 * o->cap_runs : 16;
		struct fab_out_run *n = realloc(o->runs, cap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		o->runs = n;
		o->cap_runs = cap;
	}
	o->runs[run].r = *r;
	o->runs[run].r.flows = NULL;
	o->runs[run].r.qwin = NULL;
	memset(&o->runs[run].r.jobs, 0, sizeof(o->runs[run].r.jobs));
	o->runs[run].p = p;
	o->nb_runs++;
	for (f = 0; f < r->nb_flows && r->flows != NULL; f++) {
		const struct fab_flow_result *fr = &r->flows[f];
		fprintf(o->flows, "%u,%u,%s,%" PRIu64 ",%u,%u,%u,%" PRIu64 ",%.3f,%.3f,%.3f,%.4f,%.3f,",
			run, r->combo, scheme, r->seed, f, fr->src, fr->dst,
			fr->size, (double)fr->m.start_ns / 1e3,
			(double)fr->fct_ns / 1e3, (double)fr->ideal_ns / 1e3,
			fr->slowdown, (double)fr->m.rx_done_ns / 1e3);
		hs_flow_result_csv_row(o->flows, &fr->m);
		fprintf(o->flows, "\n");
	}
	/* Without memory for the maxima the run has no queue rows. */
	if (fab_qtime_compute(t, r, &qt) == 0) {
		fab_out_queues(o, run, p, t, r);
		fab_out_qtime(o, run, p, t, r, &qt);
		fab_qtime_free(&qt);
	}
	{
		char err[512];

		if (fab_jobs_out_run(&o->jobs, o->dir, run, p, r, err,
				     sizeof(err)) != 0) {
			fprintf(stderr, "ofan-fabric: %s\n", err);
			return -EIO;
		}
	}
	return ferror(o->flows) || ferror(o->queues) || ferror(o->qtime) ?
		-EIO : 0;
}

/* ---- summary ---- */

/*
 * A scheme's runs in one combination, over its seeds: runs
 * [first, first + n) of o->runs (they are written seed after seed).
 */
struct fab_agg {
	uint32_t first, n;
	/* Mean and half-width of the 95 % confidence interval of the mean. */
	double max_sd[2], p99_sd[2], fct_us[2], coll_x[2];
	/* Means of the collective's time and of the counts, the total wall
	 * time, and per layer the largest queue of any seed (bytes). */
	double coll_us, drops, ecn_marks, data_retx, wall_s;
	uint64_t max_queue_bytes[FAB_L_NB];
	bool completed;		/* every seed's run */
	bool interrupted;	/* any seed's run */
};

/* Student's t quantile 0.975 for df degrees of freedom. */
static double
fab_t975(uint32_t df)
{
	static const double t[31] = {
		0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};
	const double z = 1.959964;

	if (df <= 30)
		return t[df];
	/* Cornish-Fisher: within 0.001 of the table from 30 on. */
	return z + (z * z * z + z) / (4.0 * df);
}

/* Mean and 95 % confidence half-width of n values (0 for one value). */
void
fab_mean_ci(const double *v, uint32_t n, double out[2])
{
	double sum = 0, ss = 0, m;
	uint32_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	m = n ? sum / n : 0;
	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	out[0] = m;
	out[1] = n > 1 ? fab_t975(n - 1) * sqrt(ss / (n - 1)) / sqrt(n) : 0;
}

static double
fab_coll_x(const struct fab_run *r)
{
	return r->collective_ideal_ns ? (double)r->collective_ns /
		(double)r->collective_ideal_ns : 0.0;
}

/* The table's means, totals and maxima of x's runs. */
static void
fab_agg_table(const struct fab_out *o, struct fab_agg *x)
{
	uint32_t k;
	int l;

	x->completed = true;
	for (k = 0; k < x->n; k++) {
		const struct fab_run *r = &o->runs[x->first + k].r;

		x->coll_us += (double)r->collective_ns / 1e3;
		x->drops += (double)r->drops_total;
		x->ecn_marks += (double)r->ecn_marks;
		x->data_retx += (double)r->hosts.data_retx;
		x->wall_s += r->wall_s;
		x->completed = x->completed && r->completed;
		x->interrupted = x->interrupted || r->interrupted;
		for (l = 0; l < FAB_L_NB; l++)
			x->max_queue_bytes[l] = RTE_MAX(x->max_queue_bytes[l],
							r->max_queue_bytes[l]);
	}
	x->coll_us /= x->n;
	x->drops /= x->n;
	x->ecn_marks /= x->n;
	x->data_retx /= x->n;
}

/* Group the runs by (combo, scheme); returns the groups (free them). */
static struct fab_agg *
fab_out_aggregate(const struct fab_out *o, uint32_t *nb)
{
	struct fab_agg *g = calloc(o->nb_runs + 1, sizeof(*g));
	double *v = malloc(sizeof(*v) * (o->nb_runs + 1));
	uint32_t i, j, k, n = 0;

	*nb = 0;
	if (g == NULL || v == NULL) {
		free(g);
		free(v);
		return NULL;
	}
	for (i = 0; i < o->nb_runs; i = j) {
		const struct fab_run *a = &o->runs[i].r;
		struct fab_agg *x = &g[n++];

		for (j = i + 1; j < o->nb_runs &&
		     o->runs[j].r.combo == a->combo &&
		     o->runs[j].r.scheme == a->scheme; j++)
			;
		x->first = i;
		x->n = j - i;
#define FAB_AGG(field, expr) \
		for (k = 0; k < x->n; k++) { \
			const struct fab_run *r = &o->runs[i + k].r; \
			v[k] = (expr); \
		} \
		fab_mean_ci(v, x->n, x->field)
		FAB_AGG(max_sd, r->max_slowdown);
		FAB_AGG(p99_sd, r->p99_slowdown);
		FAB_AGG(fct_us, r->mean_fct_ns / 1e3);
		FAB_AGG(coll_x, fab_coll_x(r));
#undef FAB_AGG
		fab_agg_table(o, x);
	}
	free(v);
	*nb = n;
	return g;
}

static void
fab_out_json_stat(struct ofan_json *j, const char *name, const double v[2])
{
	ofan_json_obj_begin(j, name);
	ofan_json_double(j, "mean", v[0]);
	ofan_json_double(j, "ci95", v[1]);
	ofan_json_obj_end(j);
}

/* Per layer: key -> f(r, layer), and "all". */
static void
fab_out_json_layers(struct ofan_json *j, const struct fab_params *p,
		    const struct fab_run *r, const char *name, int kind)
{
	int i;

	ofan_json_obj_begin(j, name);
	for (i = 0; i <= FAB_L_NB; i++) {
		const char *l = i == FAB_L_NB ? "all" :
			fab_layer_name(p->topo, i);
		uint64_t b = i == FAB_L_NB ? r->max_queue_bytes_all :
			r->max_queue_bytes[i];
		uint64_t f = i == FAB_L_NB ? r->max_queue_all : r->max_queue[i];

		if (l == NULL || i == FAB_L_HOST)
			continue;
		if (kind == 0)
			ofan_json_double(j, l, fab_full(r, b));
		else if (kind == 1)
			ofan_json_u64(j, l, b);
		else
			ofan_json_u64(j, l, f);
	}
	ofan_json_obj_end(j);
}

static void
fab_out_json_run(struct ofan_json *j, const struct fab_out_run *or)
{
	const struct fab_run *r = &or->r;
	const struct fab_params *p = or->p;
	const struct fab_scheme *sc = &p->schemes[r->scheme];
	int i;

	ofan_json_obj_begin(j, NULL);
	ofan_json_str(j, "scheme", sc->name);
	ofan_json_str(j, "switch_policy", sc->sw_policy->name);
	ofan_json_str(j, "host_policy", sc->host_policy->name);
	ofan_json_u64(j, "combo", r->combo);
	ofan_json_u64(j, "seed", r->seed);
	ofan_json_u64(j, "seed_index", r->seed_index);
	ofan_json_obj_begin(j, "sweep");
	for (i = 0; i < p->nb_sweep; i++)
		ofan_json_str(j, p->sweep_name[i], p->sweep_value[i]);
	ofan_json_obj_end(j);
	ofan_json_u64(j, "flows", r->nb_flows);
	ofan_json_u64(j, "completed", r->nb_completed);
	ofan_json_bool(j, "all_completed", r->completed);
	if (r->interrupted)
		ofan_json_bool(j, "interrupted", true);
	ofan_json_double(j, "max_slowdown", r->max_slowdown);
	ofan_json_double(j, "p99_slowdown", r->p99_slowdown);
	ofan_json_double(j, "mean_fct_us", r->mean_fct_ns / 1e3);
	ofan_json_double(j, "collective_us", (double)r->collective_ns / 1e3);
	ofan_json_double(j, "collective_ideal_us",
			 (double)r->collective_ideal_ns / 1e3);
	ofan_json_double(j, "sim_us", (double)r->sim_ns / 1e3);
	/* Full data frames' worth of bytes, the frame being sent included. */
	fab_out_json_layers(j, p, r, "max_queue", 0);
	fab_out_json_layers(j, p, r, "max_queue_bytes", 1);
	fab_out_json_layers(j, p, r, "max_queue_frames", 2);
	ofan_json_u64(j, "drops", r->drops_total);
	ofan_json_obj_begin(j, "drops_by_reason");
	for (i = 0; i < OFAN_DROP_MAX; i++)
		if (r->drops[i] != 0)
			ofan_json_u64(j, ofan_drop_name(i), r->drops[i]);
	ofan_json_obj_end(j);
#define FAB_RUN_JSON(field, what) ofan_json_u64(j, #field, r->field);
	FAB_RUN_COUNTERS(FAB_RUN_JSON)
#undef FAB_RUN_JSON
	ofan_json_obj_begin(j, "host_counters");
#define FAB_HOST_JSON(field, what) ofan_json_u64(j, #field, r->hosts.field);
	HS_HOST_COUNTERS(FAB_HOST_JSON)
#undef FAB_HOST_JSON
	ofan_json_obj_end(j);
	ofan_json_obj_begin(j, "policy_counters");
	for (i = 0; i < r->nb_policy; i++)
		ofan_json_u64(j, r->policy[i].key, r->policy[i].value);
	ofan_json_obj_end(j);
	ofan_json_u64(j, "packet_hops", r->hops);
	ofan_json_obj_begin(j, "conservation");
	ofan_json_u64(j, "injected", r->injected);
	ofan_json_u64(j, "delivered", r->delivered);
	ofan_json_u64(j, "dropped", r->dropped);
	ofan_json_u64(j, "queued_at_end", r->queued_end);
	ofan_json_bool(j, "holds", r->injected == r->delivered + r->dropped +
		       r->queued_end);
	ofan_json_i64(j, "mbuf_leak", r->mbuf_leak);
	ofan_json_obj_end(j);
	fab_jobs_out_json(j, p, r);
	ofan_json_obj_end(j);
}

/* Whether override ov sets [fabric] threads ("fabric.threads=2"). */
static bool
fab_out_is_threads(const char *ov)
{
	static const char key[] = "fabric.threads";
	size_t n = sizeof(key) - 1;

	while (*ov == ' ' || *ov == '\t')
		ov++;
	if (strncasecmp(ov, key, n) != 0)
		return false;
	ov += n;
	while (*ov == ' ' || *ov == '\t')
		ov++;
	return *ov == '=';
}

static int
fab_out_summary(const struct fab_out *o, const struct fab_agg *g,
		uint32_t nb_agg)
{
	const struct fab_params *p0 = &o->x->combos[0];
	struct ofan_json j;
	char path[640];
	uint32_t i;
	int d;
	FILE *f;

	snprintf(path, sizeof(path), "%s/summary.json", o->dir);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	ofan_json_init(&j, f, true);
	ofan_json_obj_begin(&j, NULL);
	ofan_json_str(&j, "experiment", p0->name);
	ofan_json_str(&j, "config", o->x->path);
	ofan_json_u64(&j, "seed", p0->seed);
	ofan_json_u64(&j, "seeds", p0->seeds);
	if (o->id != NULL) {
		/*
		 * The command line's overrides, added sections included, in
		 * order; but [fabric] threads, which changes no result (the
		 * file stays the same for any thread or rank count).
		 */
		ofan_json_arr_begin(&j, "overrides");
		for (d = 0; d < o->id->nb_overrides; d++)
			if (!fab_out_is_threads(o->id->overrides[d]))
				ofan_json_str(&j, NULL, o->id->overrides[d]);
		ofan_json_arr_end(&j);
	}
	ofan_json_obj_begin(&j, "fabric");
	ofan_json_str(&j, "topology", fab_topology_names[p0->topo]);
	if (p0->topo == FAB_TOPO_FATTREE)
		ofan_json_u64(&j, "k", p0->k);
	if (p0->topo == FAB_TOPO_LEAFSPINE) {
		ofan_json_u64(&j, "leaves", p0->leaves);
		ofan_json_u64(&j, "spines", p0->spines);
		ofan_json_u64(&j, "hosts_per_leaf", p0->hosts_per_leaf);
	}
	ofan_json_u64(&j, "hosts", p0->host.traffic.nb_ranks);
	ofan_json_u64(&j, "rate_bps", p0->rate_bps);
	ofan_json_u64(&j, "uplink_rate_bps", p0->uplink_rate_bps);
	ofan_json_u64(&j, "delay_ns", p0->delay_ns);
	ofan_json_u64(&j, "mtu", p0->host.set.mtu);
	ofan_json_u64(&j, "full_frame_bytes", fab_full_frame_queue_bytes(p0));
	ofan_json_u64(&j, "data_wire_bytes", p0->data_wire_bytes);
	ofan_json_u64(&j, "ack_wire_bytes", p0->ack_wire_bytes);
	/* Only when set, so that a run without it writes what it did. */
	if (p0->header_wire_bytes != 0)
		ofan_json_u64(&j, "header_wire_bytes",
			      p0->header_wire_bytes);
	ofan_json_u64(&j, "pace_bytes", p0->host.set.pace_bytes);
	ofan_json_u64(&j, "queue_pkts", p0->queue.capacity_pkts);
	ofan_json_u64(&j, "queue_bytes", p0->queue.capacity_bytes);
	ofan_json_double(&j, "queue_window_us",
			 (double)p0->queue_window_ns / 1e3);
	ofan_json_str(&j, "pattern", p0->host.traffic.pattern->name);
	if (hs_cm_path_of(p0->host.traffic.pattern, &p0->host.pattern_set) != NULL)
		ofan_json_str(&j, "cm_file",
			      hs_cm_path_of(p0->host.traffic.pattern,
					    &p0->host.pattern_set));
	if (hs_jobs_of(p0->host.traffic.pattern, &p0->host.pattern_set) == NULL)
		ofan_json_u64(&j, "size", p0->host.traffic.size);
	fab_jobs_out_params(&j, p0);
	ofan_json_double(&j, "rate_coef", p0->host.set.rate_coef);
	ofan_json_str(&j, "recovery", p0->host.set.recovery->name);
	ofan_json_str(&j, "pacing", hs_pacing_names[p0->host.set.pacing]);
	/* The failures of the first combination (a sweep may move them:
	 * each run's own are in its combination's sweep values). */
	ofan_json_arr_begin(&j, "failures");
	for (i = 0; i < p0->nb_failures; i++) {
		const struct fab_failure *fl = &p0->failures[i];

		ofan_json_obj_begin(&j, NULL);
		ofan_json_str(&j, "section", fl->sec);
		ofan_json_str(&j, "link", fl->link);
		ofan_json_str(&j, "mode", sw_link_state_names[fl->mode]);
		ofan_json_double(&j, "at_us", (double)fl->at_ns / 1e3);
		ofan_json_double(&j, "duration_us",
				 (double)fl->duration_ns / 1e3);
		ofan_json_bool(&j, "reroute", fl->reroute);
		ofan_json_bool(&j, "at_start", fl->at_start);
		ofan_json_obj_end(&j);
	}
	ofan_json_arr_end(&j);
	ofan_json_obj_end(&j);
	ofan_json_arr_begin(&j, "runs");
	for (i = 0; i < o->nb_runs; i++)
		fab_out_json_run(&j, &o->runs[i]);
	ofan_json_arr_end(&j);
	/* One entry per scheme and combination: over its seeds. */
	ofan_json_arr_begin(&j, "schemes");
	for (i = 0; i < nb_agg; i++) {
		const struct fab_out_run *a = &o->runs[g[i].first];

		ofan_json_obj_begin(&j, NULL);
		ofan_json_str(&j, "scheme", a->p->schemes[a->r.scheme].name);
		ofan_json_u64(&j, "combo", a->r.combo);
		ofan_json_obj_begin(&j, "sweep");
		for (d = 0; d < a->p->nb_sweep; d++)
			ofan_json_str(&j, a->p->sweep_name[d],
				      a->p->sweep_value[d]);
		ofan_json_obj_end(&j);
		ofan_json_u64(&j, "seeds", g[i].n);
		fab_out_json_stat(&j, "max_slowdown", g[i].max_sd);
		fab_out_json_stat(&j, "p99_slowdown", g[i].p99_sd);
		fab_out_json_stat(&j, "mean_fct_us", g[i].fct_us);
		fab_out_json_stat(&j, "collective_x", g[i].coll_x);
		ofan_json_obj_end(&j);
	}
	ofan_json_arr_end(&j);
	ofan_json_obj_end(&j);
	if (ofan_json_finish(&j) != 0 || fclose(f) != 0)
		return -EIO;
	return 0;
}

static int
fab_out_runs_csv(const struct fab_out *o)
{
	const struct fab_params *p0 = &o->x->combos[0];
	char path[640];
	uint32_t i;
	FILE *f, *tf;
	int l, d;

	snprintf(path, sizeof(path), "%s/runs.csv", o->dir);
	f = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/timing.csv", o->dir);
	tf = fopen(path, "w");
	if (f == NULL || tf == NULL) {
		if (f)
			fclose(f);
		if (tf)
			fclose(tf);
		return -errno;
	}
	fprintf(f, "run,combo,scheme,seed_index,seed");
	for (d = 0; d < p0->nb_sweep; d++)
		fprintf(f, ",sweep_%s", p0->sweep_name[d]);
	fprintf(f, ",switch_policy,host_policy,flows,completed,max_slowdown,p99_slowdown,mean_fct_us,collective_us,collective_ideal_us");
	for (l = 0; l < FAB_L_NB; l++)
		if (fab_layer_name(p0->topo, l) != NULL && l != FAB_L_HOST)
			fprintf(f, ",q_%s", fab_layer_name(p0->topo, l));
	fprintf(f, ",q_max,q_max_frames,drops,lost_pkts,sim_us,collective_x");
#define FAB_RUN_COLUMN(field, what) fprintf(f, "," #field);
	FAB_RUN_COUNTERS(FAB_RUN_COLUMN)
#undef FAB_RUN_COLUMN
#define FAB_HOST_COLUMN(field, what) fprintf(f, "," #field);
	HS_HOST_COUNTERS(FAB_HOST_COLUMN)
#undef FAB_HOST_COLUMN
	fprintf(f, "\n");
	fprintf(tf, "run,combo,scheme,seed,wall_s,events,packet_hops,mhops_per_s,ranks,rank,peak_rss_mb,pool_mb,heap_mb\n");
	for (i = 0; i < o->nb_runs; i++) {
		const struct fab_run *r = &o->runs[i].r;
		const struct fab_params *p = o->runs[i].p;
		const struct fab_scheme *sc = &p->schemes[r->scheme];

		fprintf(f, "%u,%u,%s,%u,%" PRIu64, i, r->combo, sc->name,
			r->seed_index, r->seed);
		for (d = 0; d < p->nb_sweep; d++)
			fprintf(f, ",%s", p->sweep_value[d]);
		fprintf(f, ",%s,%s,%u,%u,%.4f,%.4f,%.3f,%.3f,%.3f",
			sc->sw_policy->name, sc->host_policy->name,
			r->nb_flows, r->nb_completed, r->max_slowdown,
			r->p99_slowdown, r->mean_fct_ns / 1e3,
			(double)r->collective_ns / 1e3,
			(double)r->collective_ideal_ns / 1e3);
		for (l = 0; l < FAB_L_NB; l++)
			if (fab_layer_name(p0->topo, l) != NULL &&
			    l != FAB_L_HOST)
				fprintf(f, ",%.3f",
					fab_full(r, r->max_queue_bytes[l]));
		fprintf(f, ",%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.4f",
			fab_full(r, r->max_queue_bytes_all), r->max_queue_all,
			r->drops_total,
			r->drops_total - r->drops[OFAN_DROP_NOT_FOR_US],
			(double)r->sim_ns / 1e3, fab_coll_x(r));
#define FAB_RUN_VALUE(field, what) fprintf(f, ",%" PRIu64, r->field);
		FAB_RUN_COUNTERS(FAB_RUN_VALUE)
#undef FAB_RUN_VALUE
#define FAB_HOST_VALUE(field, what) fprintf(f, ",%" PRIu64, r->hosts.field);
		HS_HOST_COUNTERS(FAB_HOST_VALUE)
#undef FAB_HOST_VALUE
		fprintf(f, "\n");
		fprintf(tf, "%u,%u,%s,%" PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64 ",%.3f,%u,%d,%.1f,%.1f,%.1f\n",
			i, r->combo, sc->name, r->seed, r->wall_s, r->events,
			r->hops,
			r->wall_s > 0 ? (double)r->hops / r->wall_s / 1e6 : 0,
			r->nb_ranks, r->rank, r->peak_rss_mb, r->pool_mb,
			r->heap_mb);
	}
	if (fclose(f) != 0 || fclose(tf) != 0)
		return -EIO;
	return 0;
}

/* "1.12" or, over several seeds, "1.12+-0.03" (mean, 95 % CI). */
static const char *
fab_stat_text(const double v[2], uint32_t n, const char *fmt, char *buf,
	      size_t size)
{
	int k = snprintf(buf, size, fmt, v[0]);

	if (n > 1 && k > 0 && (size_t)k < size) {
		snprintf(buf + k, size - (size_t)k, "+-");
		snprintf(buf + k + 2, size - (size_t)k - 2, fmt, v[1]);
	}
	return buf;
}

/* The training jobs' table, after the comparison table. */
static void
fab_out_table_jobs(const struct fab_out *o, const struct fab_agg *g,
		   uint32_t nb_agg, FILE *t)
{
	const struct fab_run **runs = calloc(o->nb_runs + 1, sizeof(*runs));
	const struct fab_params **ps = calloc(o->nb_runs + 1, sizeof(*ps));
	uint32_t *first = calloc(nb_agg + 1, sizeof(*first));
	uint32_t *n = calloc(nb_agg + 1, sizeof(*n));
	uint32_t i;

	if (runs != NULL && ps != NULL && first != NULL && n != NULL &&
	    o->nb_runs > 0) {
		for (i = 0; i < o->nb_runs; i++) {
			runs[i] = &o->runs[i].r;
			ps[i] = o->runs[i].p;
		}
		for (i = 0; i < nb_agg; i++) {
			first[i] = g[i].first;
			n[i] = g[i].n;
		}
		fab_jobs_out_table(t, runs, ps, first, n, nb_agg);
	}
	free(runs);
	free(ps);
	free(first);
	free(n);
}

/*
 * The width of a table column headed by name: at least min, and wide
 * enough for the whole name (a leaf-spine's "spine_down" is 10).
 */
static int
fab_out_col_width(const char *name, int min)
{
	int len = (int)strlen(name);

	return len > min ? len : min;
}

/* The table's row of group a (column width w for the statistics). */
static void
fab_out_table_row(const struct fab_out *o, const struct fab_agg *a, int w,
		  FILE *t)
{
	const struct fab_params *p0 = &o->x->combos[0];
	const struct fab_run *r0 = &o->runs[a->first].r;
	const struct fab_params *p = o->runs[a->first].p;
	char b1[32], b2[32], b3[32];
	int l, d;

	fprintf(t, "%-10s", p->schemes[r0->scheme].name);
	for (d = 0; d < p->nb_sweep; d++) {
		int sw = fab_out_col_width(p0->sweep_name[d], 10);

		fprintf(t, " %*.*s", sw, sw, p->sweep_value[d]);
	}
	if (!a->completed) {
		/* Not every flow ended: their times are unknown, not 0
		 * ("–" is 3 bytes, 1 column). */
		fprintf(t, " %*s %*s %*s %*s %*s", w + 2, "–", w + 2, "–",
			w + 4, "–", 9 + 2, "–", 6 + 2, "–");
	} else {
		fprintf(t, " %*s %*s %*s %9.1f %6.2f", w,
			fab_stat_text(a->max_sd, a->n, "%.2f", b1, sizeof(b1)),
			w, fab_stat_text(a->p99_sd, a->n, "%.2f", b2,
					 sizeof(b2)),
			w + 2, fab_stat_text(a->fct_us, a->n, "%.1f", b3,
					     sizeof(b3)),
			a->coll_us, a->coll_x[0]);
	}
	for (l = 0; l < FAB_L_NB; l++)
		if (fab_layer_name(p0->topo, l) != NULL && l != FAB_L_HOST)
			fprintf(t, " %*.1f", fab_out_col_width(
				fab_layer_name(p0->topo, l), 9),
				fab_full(r0, a->max_queue_bytes[l]));
	fprintf(t, " %8.0f %9.0f %9.0f %7.2f%s\n", a->drops, a->ecn_marks,
		a->data_retx, a->wall_s, a->completed ? "" :
		a->interrupted ? "  INTERRUPTED" :
		"  INCOMPLETE (time_limit)");
}

/*
 * The comparison table, to out (the terminal) and to table.txt: a row
 * per scheme and combination; over several seeds the slowdowns and FCT
 * are means +- their 95 % confidence interval, the queues the largest of
 * any seed, the counts means.
 */
static void
fab_out_table(const struct fab_out *o, const struct fab_agg *g,
	      uint32_t nb_agg, FILE *out)
{
	const struct fab_params *p0 = &o->x->combos[0];
	int w = p0->seeds > 1 ? 12 : 8;
	char path[640];
	FILE *f[2];
	uint32_t i;
	int l, d, fi;

	snprintf(path, sizeof(path), "%s/table.txt", o->dir);
	f[0] = out;
	f[1] = fopen(path, "w");
	for (fi = 0; fi < 2; fi++) {
		FILE *t = f[fi];

		if (t == NULL)
			continue;
		fprintf(t, "%-10s", "scheme");
		for (d = 0; d < p0->nb_sweep; d++)
			fprintf(t, " %*s",
				fab_out_col_width(p0->sweep_name[d], 10),
				p0->sweep_name[d]);
		fprintf(t, " %*s %*s %*s %9s %6s", w, "max_sd", w, "p99_sd",
			w + 2, "fct_us", "coll_us", "coll_x");
		for (l = 0; l < FAB_L_NB; l++)
			if (fab_layer_name(p0->topo, l) != NULL &&
			    l != FAB_L_HOST)
				fprintf(t, " %*s", fab_out_col_width(
					fab_layer_name(p0->topo, l), 9),
					fab_layer_name(p0->topo, l));
		fprintf(t, " %8s %9s %9s %7s\n", "drops", "ecn_marks",
			"data_retx", "wall_s");
		for (i = 0; i < nb_agg; i++)
			fab_out_table_row(o, &g[i], w, t);
		fprintf(t, "max_sd/p99_sd: flow completion time / ideal (a lower bound: frames at the paced rate, the last one's RTT); fct_us: mean FCT;\n"
			   "coll_us: first start to last completion; coll_x: that / its ideal (critical path of ideal flows);\n"
			   "layer columns: max egress queue in full %u-byte frames' worth of bytes, the frame being sent included;\n"
			   "drops: packets dropped, by reason in summary.json; ecn_marks: packets CE-marked; data_retx: data packets resent;\n"
			   "–: not every flow ended (INCOMPLETE, INTERRUPTED), so its times are unknown",
			fab_full_frame_queue_bytes(p0));
		if (p0->seeds > 1)
			fprintf(t, ";\nover %u seeds: mean+-95%% confidence interval; queues: the largest; counts: means; wall_s: total",
				p0->seeds);
		fprintf(t, "\n");
		fab_out_table_jobs(o, g, nb_agg, t);
	}
	if (f[1] != NULL)
		fclose(f[1]);
}

void
fab_out_discard(struct fab_out *o)
{
	fclose(o->flows);
	fclose(o->queues);
	fclose(o->qtime);
	fab_jobs_out_close(&o->jobs);
	free(o->runs);
	free(o);
}

int
fab_out_close(struct fab_out *o, FILE *table)
{
	struct fab_agg *g;
	uint32_t nb_agg = 0;
	int rc = 0;

	if (fclose(o->flows) != 0 || fclose(o->queues) != 0 ||
	    fclose(o->qtime) != 0 || fab_jobs_out_close(&o->jobs) != 0)
		rc = -EIO;
	g = fab_out_aggregate(o, &nb_agg);
	if (g == NULL && o->nb_runs > 0)
		rc = -ENOMEM;
	if (rc == 0)
		rc = fab_out_summary(o, g, nb_agg);
	if (rc == 0)
		rc = fab_out_runs_csv(o);
	if (g != NULL)
		fab_out_table(o, g, nb_agg, table);
	free(g);
	free(o->runs);
	free(o);
	return rc;
}
