/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Results of ofan-fabric, in the --out directory:
 *   summary.json    every run: scheme, sweep values, slowdowns, FCT,
 *                   collective time, max queue per layer, drops by reason,
 *                   ECN marks, retransmissions, conservation;
 *   runs.csv        the same, one row per run (what the plots read);
 *   flows.csv       one row per flow per run;
 *   queues.csv      max occupancy of each switch port per time window
 *                   (windows where it held a packet);
 *   queue-time.csv  max occupancy per layer (and "all") per window;
 *   table.txt       the printed table;
 *   timing.csv      wall time, events and packet-hops per run.
 * Everything but timing.csv and the wall-time column of the table is a
 * pure function of the configuration and the seed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_common.h>

#include "fab.h"
#include "ofan_json.h"

struct fab_out_run {
	struct fab_run r;	/* without flows and windows */
	const struct fab_params *p;
};

struct fab_out {
	char dir[512];
	const struct fab_experiment *x;
	FILE *flows, *queues, *qtime;
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
	fprintf(o->flows, "run,combo,scheme,flow,src,dst,size,start_us,fct_us,ideal_us,slowdown,retx,timeouts,max_reorder\n");
	fprintf(o->queues, "run,combo,scheme,t_us,link,switch,port,layer,max_pkts\n");
	fprintf(o->qtime, "run,combo,scheme,t_us,layer,max_pkts\n");
	return o;
}

static void
fab_out_qtime(struct fab_out *o, uint32_t run, const struct fab_params *p,
	      const struct fab_topo *t, const struct fab_run *r)
{
	const char *scheme = p->schemes[r->scheme].name;
	uint32_t nw = r->nb_windows, i, w;
	uint32_t *lmax = calloc((size_t)nw * (FAB_L_NB + 1), sizeof(*lmax));
	int l;

	if (lmax == NULL)
		return;
	for (i = 0; i < r->nb_qwin; i++) {
		const struct fab_qwin *q = &r->qwin[i];
		const struct fab_link_desc *k = &t->links[q->link];
		uint32_t *row;

		if (q->window >= nw)
			continue;
		row = &lmax[(size_t)q->window * (FAB_L_NB + 1)];
		row[k->layer[q->end]] = RTE_MAX(row[k->layer[q->end]],
						q->max_pkts);
		row[FAB_L_NB] = RTE_MAX(row[FAB_L_NB], q->max_pkts);
		fprintf(o->queues, "%u,%u,%s,%.3f,%s,%s,%u,%s,%u\n", run,
			r->combo, scheme,
			(double)q->window * p->queue_window_ns / 1e3, k->name,
			t->sw[k->node[q->end]].name, k->port[q->end],
			fab_layer_name(t->kind, k->layer[q->end]),
			q->max_pkts);
	}
	for (w = 0; w < nw; w++) {
		const uint32_t *row = &lmax[(size_t)w * (FAB_L_NB + 1)];
		double t_us = (double)w * p->queue_window_ns / 1e3;

		for (l = 0; l < FAB_L_NB; l++) {
			const char *name = fab_layer_name(t->kind, l);

			if (name == NULL || l == FAB_L_HOST)
				continue;
			fprintf(o->qtime, "%u,%u,%s,%.3f,%s,%u\n", run,
				r->combo, scheme, t_us, name, row[l]);
		}
		fprintf(o->qtime, "%u,%u,%s,%.3f,all,%u\n", run, r->combo,
			scheme, t_us, row[FAB_L_NB]);
	}
	free(lmax);
}

int
fab_out_run(struct fab_out *o, const struct fab_params *p,
	    const struct fab_topo *t, const struct fab_run *r)
{
	const char *scheme = p->schemes[r->scheme].name;
	uint32_t run = o->nb_runs, f;

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
	o->runs[run].p = p;
	o->nb_runs++;
	for (f = 0; f < r->nb_flows && r->flows != NULL; f++) {
		const struct fab_flow_result *fr = &r->flows[f];
		fprintf(o->flows, "%u,%u,%s,%u,%u,%u,%" PRIu64 ",%.3f,%.3f,%.3f,%.4f,%" PRIu64 ",%" PRIu64 ",%u\n",
			run, r->combo, scheme, f, fr->src, fr->dst, fr->size,
			(double)fr->start_ns / 1e3, (double)fr->fct_ns / 1e3,
			(double)fr->ideal_ns / 1e3, fr->slowdown, fr->retx,
			fr->timeouts, fr->max_reorder);
	}
	fab_out_qtime(o, run, p, t, r);
	return ferror(o->flows) || ferror(o->queues) || ferror(o->qtime) ?
		-EIO : 0;
}

/* ---- summary ---- */

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
	ofan_json_double(j, "ideal_collective_us",
			 (double)r->ideal_collective_ns / 1e3);
	ofan_json_double(j, "sim_us", (double)r->sim_ns / 1e3);
	ofan_json_obj_begin(j, "max_queue_pkts");
	for (i = 0; i < FAB_L_NB; i++) {
		const char *name = fab_layer_name(p->topo, i);

		if (name != NULL && i != FAB_L_HOST)
			ofan_json_u64(j, name, r->max_queue[i]);
	}
	ofan_json_u64(j, "all", r->max_queue_all);
	ofan_json_obj_end(j);
	ofan_json_u64(j, "drops", r->drops_total);
	ofan_json_obj_begin(j, "drops_by_reason");
	for (i = 0; i < OFAN_DROP_MAX; i++)
		if (r->drops[i] != 0)
			ofan_json_u64(j, ofan_drop_name(i), r->drops[i]);
	ofan_json_obj_end(j);
	ofan_json_u64(j, "ecn_marks", r->ecn_marks);
	ofan_json_u64(j, "data_packets_sent", r->data_sent);
	ofan_json_u64(j, "retransmissions", r->retx);
	ofan_json_u64(j, "timeouts", r->timeouts);
	ofan_json_u64(j, "corrupt_payloads", r->corrupt);
	ofan_json_u64(j, "mbuf_alloc_failures", r->alloc_failed);
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
	ofan_json_obj_end(j);
}

static int
fab_out_summary(const struct fab_out *o)
{
	const struct fab_params *p0 = &o->x->combos[0];
	struct ofan_json j;
	char path[640];
	uint32_t i;
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
	ofan_json_u64(&j, "mtu", p0->host.mtu);
	ofan_json_u64(&j, "queue_pkts", p0->queue.capacity_pkts);
	ofan_json_str(&j, "pattern",
		      hs_pattern_names[p0->host.traffic.pattern]);
	ofan_json_u64(&j, "size", p0->host.traffic.size);
	ofan_json_double(&j, "rate_coef", p0->host.rate_coef);
	ofan_json_obj_end(&j);
	ofan_json_arr_begin(&j, "runs");
	for (i = 0; i < o->nb_runs; i++)
		fab_out_json_run(&j, &o->runs[i]);
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
	fprintf(f, "run,combo,scheme");
	for (d = 0; d < p0->nb_sweep; d++)
		fprintf(f, ",sweep_%s", p0->sweep_name[d]);
	fprintf(f, ",switch_policy,host_policy,flows,completed,max_slowdown,p99_slowdown,mean_fct_us,collective_us,ideal_collective_us");
	for (l = 0; l < FAB_L_NB; l++)
		if (fab_layer_name(p0->topo, l) != NULL && l != FAB_L_HOST)
			fprintf(f, ",q_%s", fab_layer_name(p0->topo, l));
	fprintf(f, ",q_max,drops,lost_pkts,ecn_marks,retx,timeouts,sim_us,collective_x\n");
	fprintf(tf, "run,combo,scheme,wall_s,events,packet_hops,mhops_per_s\n");
	for (i = 0; i < o->nb_runs; i++) {
		const struct fab_run *r = &o->runs[i].r;
		const struct fab_params *p = o->runs[i].p;
		const struct fab_scheme *sc = &p->schemes[r->scheme];

		fprintf(f, "%u,%u,%s", i, r->combo, sc->name);
		for (d = 0; d < p->nb_sweep; d++)
			fprintf(f, ",%s", p->sweep_value[d]);
		fprintf(f, ",%s,%s,%u,%u,%.4f,%.4f,%.3f,%.3f,%.3f",
			sc->sw_policy->name, sc->host_policy->name,
			r->nb_flows, r->nb_completed, r->max_slowdown,
			r->p99_slowdown, r->mean_fct_ns / 1e3,
			(double)r->collective_ns / 1e3,
			(double)r->ideal_collective_ns / 1e3);
		for (l = 0; l < FAB_L_NB; l++)
			if (fab_layer_name(p0->topo, l) != NULL &&
			    l != FAB_L_HOST)
				fprintf(f, ",%" PRIu64, r->max_queue[l]);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.4f\n",
			r->max_queue_all, r->drops_total,
			r->drops_total - r->drops[OFAN_DROP_NOT_FOR_US],
			r->ecn_marks, r->retx, r->timeouts,
			(double)r->sim_ns / 1e3,
			r->ideal_collective_ns ? (double)r->collective_ns /
			(double)r->ideal_collective_ns : 0.0);
		fprintf(tf, "%u,%u,%s,%.3f,%" PRIu64 ",%" PRIu64 ",%.3f\n", i,
			r->combo, sc->name, r->wall_s, r->events, r->hops,
			r->wall_s > 0 ? (double)r->hops / r->wall_s / 1e6 : 0);
	}
	if (fclose(f) != 0 || fclose(tf) != 0)
		return -EIO;
	return 0;
}

/* The comparison table, to out (the terminal) and to table.txt. */
static void
fab_out_table(const struct fab_out *o, FILE *out)
{
	const struct fab_params *p0 = &o->x->combos[0];
	char path[640];
	FILE *f[2];
	uint32_t i;
	int l, d, k;

	snprintf(path, sizeof(path), "%s/table.txt", o->dir);
	f[0] = out;
	f[1] = fopen(path, "w");
	for (k = 0; k < 2; k++) {
		FILE *t = f[k];

		if (t == NULL)
			continue;
		fprintf(t, "%-10s", "scheme");
		for (d = 0; d < p0->nb_sweep; d++)
			fprintf(t, " %10.10s", p0->sweep_name[d]);
		fprintf(t, " %8s %8s %9s %9s %6s", "max_sd", "p99_sd", "fct_us",
			"coll_us", "coll_x");
		for (l = 0; l < FAB_L_NB; l++)
			if (fab_layer_name(p0->topo, l) != NULL &&
			    l != FAB_L_HOST)
				fprintf(t, " %10.10s", fab_layer_name(p0->topo, l));
		fprintf(t, " %8s %8s %8s %7s\n", "drops", "ecn", "retx",
			"wall_s");
		for (i = 0; i < o->nb_runs; i++) {
			const struct fab_run *r = &o->runs[i].r;
			const struct fab_params *p = o->runs[i].p;

			fprintf(t, "%-10s", p->schemes[r->scheme].name);
			for (d = 0; d < p->nb_sweep; d++)
				fprintf(t, " %10.10s", p->sweep_value[d]);
			fprintf(t, " %8.2f %8.2f %9.1f %9.1f %6.2f",
				r->max_slowdown, r->p99_slowdown,
				r->mean_fct_ns / 1e3,
				(double)r->collective_ns / 1e3,
				r->ideal_collective_ns ?
				(double)r->collective_ns /
				(double)r->ideal_collective_ns : 0.0);
			for (l = 0; l < FAB_L_NB; l++)
				if (fab_layer_name(p0->topo, l) != NULL &&
				    l != FAB_L_HOST)
					fprintf(t, " %10" PRIu64,
						r->max_queue[l]);
			fprintf(t, " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %7.2f%s\n",
				r->drops_total, r->ecn_marks, r->retx,
				r->wall_s, r->completed ? "" :
				r->interrupted ? "  INTERRUPTED" :
				"  INCOMPLETE (time_limit)");
		}
		fprintf(t, "max_sd/p99_sd: flow completion time / ideal (bytes at the paced rate + path RTT); fct_us: mean FCT;\n"
			   "coll_us: first start to last completion; coll_x: that / its ideal (critical path of ideal flows);\n"
			   "layer columns: max egress queue (packets); drops: packets dropped, by reason in summary.json\n");
	}
	if (f[1] != NULL)
		fclose(f[1]);
}

int
fab_out_close(struct fab_out *o, FILE *table)
{
	int rc = 0;

	if (fclose(o->flows) != 0 || fclose(o->queues) != 0 ||
	    fclose(o->qtime) != 0)
		rc = -EIO;
	if (rc == 0)
		rc = fab_out_summary(o);
	if (rc == 0)
		rc = fab_out_runs_csv(o);
	if (table != NULL)
		fab_out_table(o, table);
	free(o->runs);
	free(o);
	return rc;
}
