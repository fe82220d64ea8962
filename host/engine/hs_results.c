/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_results.h"
#include "hs_summary.h"
#include "ofan_clock.h"
#include "ofan_json.h"
#include "ofan_wire.h"


/*
 * Flow i as the local hosts saw it: each host merges its side(s) into r
 * (hs_host_flow_result); neither sent_here nor received_here when no
 * local host has the flow.
 */
static void
hs_merge_flow_result(struct hs_host *const *hosts, uint16_t nb_hosts,
		     uint32_t i, struct hs_flow_result *r)
{
	uint16_t k;

	memset(r, 0, sizeof(*r));
	for (k = 0; k < nb_hosts; k++)
		hs_host_flow_result(hosts[k], i, r);
}

/* The arrays of res for t's flows and nb_hosts hosts; 0 or -ENOMEM. */
static int
hs_results_alloc(struct hs_results *res, const struct hs_traffic *t,
		 uint16_t nb_hosts)
{
	memset(res, 0, sizeof(*res));
	res->nb_flows = t->nb_flows;
	res->nb_hosts = nb_hosts;
	res->flow = calloc(t->nb_flows + 1, sizeof(*res->flow));
	res->ideal_ns = calloc(t->nb_flows + 1, sizeof(*res->ideal_ns));
	res->slowdown = calloc(t->nb_flows + 1, sizeof(*res->slowdown));
	res->host = calloc((size_t)nb_hosts + 1, sizeof(*res->host));
	if (res->flow == NULL || res->ideal_ns == NULL ||
	    res->slowdown == NULL || res->host == NULL)
		return -ENOMEM;
	return 0;
}

/*
 * Each flow as the local hosts saw it, merged once, and the unloaded
 * path: the smallest RTT any local flow measured.  On a ring pair it is
 * the software's turnaround, on a link it holds the frame's serialisation
 * too, so a flow's ideal is the gaps before its last frame at the fastest
 * its pacer sends plus that RTT (hs_flow_ideal_ns); the configured
 * base_rtt is not a property of the path.
 */
static void
hs_results_merge_flows(struct hs_host *const *hosts, uint16_t nb_hosts,
		       struct hs_results *res)
{
	uint64_t rtt = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < res->nb_flows; i++) {
		hs_merge_flow_result(hosts, nb_hosts, i, &res->flow[i]);
		if (res->flow[i].sent_here && res->flow[i].min_rtt_ns < rtt)
			rtt = res->flow[i].min_rtt_ns;
	}
	res->sum.ideal_rtt_ns = rtt == UINT64_MAX ? 0 : rtt;
}

/*
 * Each flow's ideal against the measured path RTT, and when it begins in
 * the ideal schedule (begin): the critical path of ideal times through
 * deps and triggers, where a flow is received half that RTT before its
 * last ACK is back.  0 or -ENOMEM.
 */
static int
hs_results_ideals(const struct hs_host_settings *set, const struct hs_traffic *t,
		  struct hs_results *res, uint64_t *begin)
{
	const uint32_t *conc = t->concurrency;
	uint64_t rtt = res->sum.ideal_rtt_ns;
	uint64_t *ideal_rx = calloc(t->nb_flows + 1, sizeof(uint64_t));
	uint32_t i;
	int rc;

	if (ideal_rx == NULL)
		return -ENOMEM;
	for (i = 0; i < t->nb_flows; i++) {
		res->ideal_ns[i] = hs_flow_ideal_ns(set, t, i, conc, rtt);
		ideal_rx[i] = res->ideal_ns[i] - rtt / 2;
	}
	rc = hs_traffic_ideal_begin(t, res->ideal_ns, ideal_rx,
				    hs_first_slot_late_ns(set, t, conc), begin);
	free(ideal_rx);
	return rc;
}

/*
 * The summary of the flows sent here (their counters, their times against
 * their ideals: hs_flow_summarise) and each one's slowdown.  0 or -ENOMEM.
 */
static int
hs_results_summarise(const struct hs_host_settings *set, const struct hs_traffic *t,
		     const uint64_t *begin, struct hs_results *res)
{
	struct hs_flow_times *times = calloc(t->nb_flows + 1, sizeof(*times));
	double *slow = calloc(t->nb_flows + 1, sizeof(double));
	struct hs_summary *sum = &res->sum;
	struct hs_flow_summary fs;
	uint32_t i, nb_here = 0;
	int rc = -ENOMEM;

	if (times == NULL || slow == NULL)
		goto out;
	for (i = 0; i < t->nb_flows; i++) {
		const struct hs_flow_result *r = &res->flow[i];

		if (r->received_here) {
			sum->corrupt_pkts += r->corrupt_pkts;
			if (r->rx_done_ns == 0)
				sum->incomplete_rx++;
		}
		if (!r->sent_here)
			continue;
		sum->nb_flows++;
		sum->data_retx += r->data_retx;
		sum->timeouts += r->timeouts;
		times[nb_here].start_ns = r->start_ns;
		times[nb_here].done_ns = r->done_ns;
		times[nb_here].ideal_ns = res->ideal_ns[i];
		times[nb_here].ideal_begin_ns = begin[i];
		times[nb_here].src = t->flows[i].src;
		if (set->pacing == HS_PACING_HOST)
			times[nb_here].pacer_ns = hs_flow_lead_ns(set, t, i,
							t->concurrency);
		nb_here++;
	}
	rc = hs_flow_summarise(times, nb_here, slow, &fs);
	if (rc != 0)
		goto out;
	sum->nb_completed = fs.nb_completed;
	sum->max_slowdown = fs.max_slowdown;
	sum->p99_slowdown = fs.p99_slowdown;
	sum->mean_fct_ns = fs.mean_fct_ns;
	sum->collective_ns = fs.collective_ns;
	sum->collective_ideal_ns = fs.collective_ideal_ns;
	for (i = 0, nb_here = 0; i < t->nb_flows; i++)
		if (res->flow[i].sent_here)
			res->slowdown[i] = slow[nb_here++];
out:
	free(times);
	free(slow);
	return rc;
}

/* Each local host's rank, shard and counters, and the policies'. */
static void
hs_results_hosts(struct hs_host *const *hosts, struct hs_results *res)
{
	uint16_t k;

	for (k = 0; k < res->nb_hosts; k++) {
		struct hs_results_host *rh = &res->host[k];

		rh->rank = hs_host_rank(hosts[k]);
		hs_host_shard_of(hosts[k], &rh->shard, &rh->nb_shards);
		rh->stats = *hs_host_stats(hosts[k]);
		hs_host_policy_dump(hosts[k], hs_kv_add, &res->policy);
	}
}

int
hs_results_compute(struct hs_host *const *hosts, uint16_t nb_hosts,
		   const struct hs_host_settings *set, const struct hs_traffic *t,
		   struct hs_results *res)
{
	uint64_t *begin = NULL;
	int rc;

	rc = hs_results_alloc(res, t, nb_hosts);
	if (rc == 0 && t->concurrency == NULL)
		rc = -ENOMEM;
	if (rc == 0) {
		begin = calloc(t->nb_flows + 1, sizeof(uint64_t));
		rc = begin == NULL ? -ENOMEM : 0;
	}
	if (rc == 0) {
		hs_results_merge_flows(hosts, nb_hosts, res);
		rc = hs_results_ideals(set, t, res, begin);
	}
	if (rc == 0)
		rc = hs_results_summarise(set, t, begin, res);
	if (rc == 0)
		hs_results_hosts(hosts, res);
	free(begin);
	return rc;
}

void
hs_results_free(struct hs_results *res)
{
	free(res->flow);
	free(res->ideal_ns);
	free(res->slowdown);
	free(res->host);
	res->flow = NULL;
	res->ideal_ns = NULL;
	res->slowdown = NULL;
	res->host = NULL;
}

/* One flow's row of the CSV: its spec, times, reception and counters. */
static void
hs_results_csv_row(FILE *csv, const struct hs_results *res,
		   const struct hs_traffic *t, uint32_t i)
{
	const struct hs_flow_spec *f = &t->flows[i];
	const struct hs_flow_result *r = &res->flow[i];

	fprintf(csv, "%u,%u,%u,%llu,%u,%u,", i, f->src, f->dst,
		(unsigned long long)f->size, f->iteration, f->step);
	if (r->sent_here)
		fprintf(csv, "%llu,%llu,%llu,%llu,%.4f,",
			(unsigned long long)r->start_ns,
			(unsigned long long)r->done_ns,
			(unsigned long long)(r->done_ns != 0 ?
					     r->done_ns - r->start_ns : 0),
			(unsigned long long)res->ideal_ns[i],
			res->slowdown[i]);
	else
		fprintf(csv, ",,,%llu,,", (unsigned long long)res->ideal_ns[i]);
	if (r->received_here)
		fprintf(csv, "%llu,", (unsigned long long)r->rx_done_ns);
	else
		fprintf(csv, ",");
	hs_flow_result_csv_row(csv, r);
	fprintf(csv, "\n");
}

int
hs_results_write_csv(const struct hs_results *res,
		     const struct hs_traffic *t, const char *path)
{
	FILE *csv = fopen(path, "w");
	uint32_t i;

	if (csv == NULL)
		return -errno;
	fprintf(csv, "flow,src,dst,size,iteration,step,start_ns,done_ns,fct_ns,ideal_ns,slowdown,rx_done_ns,");
	hs_flow_result_csv_header(csv);
	fprintf(csv, "\n");
	for (i = 0; i < res->nb_flows; i++)
		if (res->flow[i].sent_here || res->flow[i].received_here)
			hs_results_csv_row(csv, res, t, i);
	return fclose(csv) != 0 ? -EIO : 0;
}

/* "ports": each valid port's rank, device and device counters. */
static void
hs_results_json_ports(struct ofan_json *j, const struct hs_results_run *run)
{
	const struct ofan_dev_stats *dev = run->dev;
	uint16_t k;

	ofan_json_arr_begin(j, "ports");
	for (k = 0; k < run->nb_ports; k++) {
		if (!dev[k].valid)
			continue;
		ofan_json_obj_begin(j, NULL);
		ofan_json_u64(j, "port", k);
		ofan_json_u64(j, "rank", run->ports[k].rank);
		ofan_json_str(j, "dev", run->ports[k].dev);
		ofan_json_u64(j, "ethdev", dev[k].ethdev);
		ofan_json_obj_begin(j, "device");
#define HS_DEV_JSON(field, what) ofan_json_u64(j, #field, dev[k].field);
		OFAN_DEV_COUNTERS(HS_DEV_JSON)
#undef HS_DEV_JSON
		ofan_json_obj_end(j);
		ofan_json_obj_end(j);
	}
	ofan_json_arr_end(j);
}

/* "hosts": each local host's (or shard's) counters and drops by reason. */
static void
hs_results_json_hosts(struct ofan_json *j, const struct hs_results *res)
{
	uint16_t k;
	int r;

	ofan_json_arr_begin(j, "hosts");
	for (k = 0; k < res->nb_hosts; k++) {
		const struct hs_results_host *rh = &res->host[k];
		const struct hs_host_stats *s = &rh->stats;

		ofan_json_obj_begin(j, NULL);
		ofan_json_u64(j, "rank", rh->rank);
		if (rh->nb_shards > 1) {
			/* One entry per shard of a rank on several lcores. */
			ofan_json_u64(j, "shard", rh->shard);
			ofan_json_u64(j, "shards", rh->nb_shards);
		}
#define HS_HOST_JSON(field, what) ofan_json_u64(j, #field, s->field);
		HS_HOST_COUNTERS(HS_HOST_JSON)
#undef HS_HOST_JSON
		ofan_json_obj_begin(j, "drops");
		for (r = 0; r < OFAN_DROP_MAX; r++)
			if (s->drops[r] != 0)
				ofan_json_u64(j, ofan_drop_name(r), s->drops[r]);
		ofan_json_obj_end(j);
		ofan_json_obj_end(j);
	}
	ofan_json_arr_end(j);
}

int
hs_results_write_json(const struct hs_results *res,
		      const struct hs_host_settings *set, const struct hs_traffic *t,
		      const struct hs_results_run *run, const char *path)
{
	const struct hs_summary *sum = &res->sum;
	FILE *jf = fopen(path, "w");
	struct ofan_json j;
	int i, rc;

	if (jf == NULL)
		return -errno;
	ofan_json_init(&j, jf, true);
	ofan_json_obj_begin(&j, NULL);
	ofan_json_str(&j, "policy", set->policy->name);
	ofan_json_str(&j, "pattern", run->pattern);
	ofan_json_str(&j, "recovery", set->recovery->name);
	ofan_json_str(&j, "pacing", hs_pacing_names[set->pacing]);
	ofan_json_u64(&j, "ranks", t->nb_ranks);
	ofan_json_u64(&j, "flows_total", t->nb_flows);
	ofan_json_u64(&j, "flows_sent_here", sum->nb_flows);
	ofan_json_u64(&j, "flows_completed", sum->nb_completed);
	ofan_json_double(&j, "max_slowdown", sum->max_slowdown);
	ofan_json_double(&j, "p99_slowdown", sum->p99_slowdown);
	ofan_json_double(&j, "mean_fct_ns", sum->mean_fct_ns);
	ofan_json_u64(&j, "collective_ns", sum->collective_ns);
	ofan_json_u64(&j, "collective_ideal_ns", sum->collective_ideal_ns);
	ofan_json_u64(&j, "ideal_rtt_ns", sum->ideal_rtt_ns);
	ofan_json_u64(&j, "data_retx", sum->data_retx);
	ofan_json_u64(&j, "timeouts", sum->timeouts);
	ofan_json_u64(&j, "corrupt_pkts", sum->corrupt_pkts);
	ofan_json_u64(&j, "incomplete_receptions", sum->incomplete_rx);
	ofan_json_double(&j, "wall_s", run->wall_s);
	ofan_json_i64(&j, "mempool_in_use_start", run->mempool_in_use_start);
	ofan_json_i64(&j, "mempool_in_use_end", run->mempool_in_use_end);
	ofan_json_obj_begin(&j, "policy_counters");
	for (i = 0; i < res->policy.n; i++)
		ofan_json_u64(&j, res->policy.kv[i].key,
			      res->policy.kv[i].value);
	ofan_json_obj_end(&j);
	if (run->dev != NULL)
		hs_results_json_ports(&j, run);
	hs_results_json_hosts(&j, res);
	ofan_json_obj_end(&j);
	rc = ofan_json_finish(&j);
	if (fclose(jf) != 0 && rc == 0)
		rc = -EIO;
	return rc;
}

int
hs_results(struct hs_host *const *hosts, uint16_t nb_hosts,
	   const struct hs_host_settings *set, const struct hs_traffic *t,
	   const struct hs_results_run *run, const char *json_path,
	   const char *csv_path, struct hs_summary *sum)
{
	struct hs_results res;
	int rc;

	rc = hs_results_compute(hosts, nb_hosts, set, t, &res);
	*sum = rc == 0 ? res.sum : (struct hs_summary){ 0 };
	if (rc == 0 && csv_path != NULL)
		rc = hs_results_write_csv(&res, t, csv_path);
	if (rc == 0 && json_path != NULL)
		rc = hs_results_write_json(&res, set, t, run, json_path);
	hs_results_free(&res);
	return rc;
}
