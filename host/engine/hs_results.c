/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_pattern.h"
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

int
hs_results(struct hs_host *const *hosts, uint16_t nb_hosts,
	   const struct hs_config *cfg, const struct hs_traffic *t,
	   double wall_s, int64_t inuse_start, int64_t inuse_end,
	   const struct ofan_dev_stats *dev, const char *json_path,
	   const char *csv_path, struct hs_summary *sum)
{
	const uint32_t *conc = t->concurrency;
	uint64_t *ideal = calloc(t->nb_flows + 1, sizeof(uint64_t));
	uint64_t *ideal_rx = calloc(t->nb_flows + 1, sizeof(uint64_t));
	uint64_t *begin = calloc(t->nb_flows + 1, sizeof(uint64_t));
	struct hs_flow_times *times = calloc(t->nb_flows + 1, sizeof(*times));
	double *slow = calloc(t->nb_flows + 1, sizeof(double));
	/* Each flow as the local hosts saw it, merged once. */
	struct hs_flow_result *res = calloc(t->nb_flows + 1, sizeof(*res));
	struct hs_kv_table pol = { .n = 0 };
	struct hs_flow_summary fs;
	FILE *csv = NULL, *jf = NULL;
	struct ofan_json j;
	uint32_t i, nb_here = 0;
	uint16_t k;
	int rc = 0;

	memset(sum, 0, sizeof(*sum));
	if (conc == NULL || ideal == NULL || ideal_rx == NULL ||
	    begin == NULL || times == NULL || slow == NULL || res == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/*
	 * The unloaded path: the smallest RTT any local flow measured.  On a
	 * ring pair it is the software's turnaround, on a link it holds the
	 * frame's serialisation too, so a flow's ideal is the gaps before its
	 * last frame at the fastest its pacer sends plus that RTT
	 * (hs_flow_ideal_ns); the configured base_rtt is not a property of
	 * the path.
	 */
	sum->ideal_rtt_ns = UINT64_MAX;
	for (i = 0; i < t->nb_flows; i++) {
		hs_merge_flow_result(hosts, nb_hosts, i, &res[i]);
		if (res[i].sent_here && res[i].min_rtt_ns < sum->ideal_rtt_ns)
			sum->ideal_rtt_ns = res[i].min_rtt_ns;
	}
	if (sum->ideal_rtt_ns == UINT64_MAX)
		sum->ideal_rtt_ns = 0;
	/*
	 * Critical path of ideal times through deps and triggers: a flow is
	 * received half that RTT before its last ACK is back.
	 */
	for (i = 0; i < t->nb_flows; i++) {
		ideal[i] = hs_flow_ideal_ns(cfg, t, i, conc, sum->ideal_rtt_ns);
		ideal_rx[i] = ideal[i] - sum->ideal_rtt_ns / 2;
	}
	rc = hs_traffic_ideal_begin(t, ideal, ideal_rx,
				    hs_first_slot_late_ns(cfg, t, conc), begin);
	if (rc != 0)
		goto out;
	if (csv_path != NULL) {
		csv = fopen(csv_path, "w");
		if (csv == NULL) {
			rc = -errno;
			goto out;
		}
		fprintf(csv, "flow,src,dst,size,iteration,step,start_ns,done_ns,fct_ns,ideal_ns,slowdown,rx_done_ns,");
		hs_flow_result_csv_header(csv);
		fprintf(csv, "\n");
	}
	for (i = 0; i < t->nb_flows; i++) {
		const struct hs_flow_result r = res[i];

		if (r.received_here) {
			sum->corrupt_pkts += r.corrupt_pkts;
			if (r.rx_done_ns == 0)
				sum->incomplete_rx++;
		}
		if (!r.sent_here)
			continue;
		sum->nb_flows++;
		sum->data_retx += r.data_retx;
		sum->timeouts += r.timeouts;
		times[nb_here].start_ns = r.start_ns;
		times[nb_here].done_ns = r.done_ns;
		times[nb_here].ideal_ns = ideal[i];
		times[nb_here].ideal_begin_ns = begin[i];
		times[nb_here].src = t->flows[i].src;
		if (cfg->pacing == HS_PACING_HOST)
			times[nb_here].pacer_ns = hs_flow_lead_ns(cfg, t, i,
								  conc);
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
	for (i = 0, nb_here = 0; csv != NULL && i < t->nb_flows; i++) {
		const struct hs_flow_spec *f = &t->flows[i];
		const struct hs_flow_result r = res[i];
		double sd = 0;

		if (!r.sent_here && !r.received_here)
			continue;	/* no local host has it */
		if (r.sent_here)
			sd = slow[nb_here++];
		fprintf(csv, "%u,%u,%u,%llu,%u,%u,", i, f->src, f->dst,
			(unsigned long long)f->size, f->iteration, f->step);
		if (r.sent_here)
			fprintf(csv, "%llu,%llu,%llu,%llu,%.4f,",
				(unsigned long long)r.start_ns,
				(unsigned long long)r.done_ns,
				(unsigned long long)(r.done_ns != 0 ?
						     r.done_ns - r.start_ns : 0),
				(unsigned long long)ideal[i], sd);
		else
			fprintf(csv, ",,,%llu,,", (unsigned long long)ideal[i]);
		if (r.received_here)
			fprintf(csv, "%llu,", (unsigned long long)r.rx_done_ns);
		else
			fprintf(csv, ",");
		hs_flow_result_csv_row(csv, &r);
		fprintf(csv, "\n");
	}
	if (json_path == NULL)
		goto out;
	jf = fopen(json_path, "w");
	if (jf == NULL) {
		rc = -errno;
		goto out;
	}
	for (k = 0; k < nb_hosts; k++)
		hs_host_policy_dump(hosts[k], hs_kv_add, &pol);
	ofan_json_init(&j, jf, true);
	ofan_json_obj_begin(&j, NULL);
	ofan_json_str(&j, "policy", cfg->policy->name);
	ofan_json_str(&j, "pattern", cfg->traffic.pattern->name);
	ofan_json_str(&j, "recovery", cfg->recovery->name);
	ofan_json_str(&j, "pacing", hs_pacing_names[cfg->pacing]);
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
	ofan_json_double(&j, "wall_s", wall_s);
	ofan_json_i64(&j, "mempool_in_use_start", inuse_start);
	ofan_json_i64(&j, "mempool_in_use_end", inuse_end);
	ofan_json_obj_begin(&j, "policy_counters");
	for (i = 0; i < (uint32_t)pol.n; i++)
		ofan_json_u64(&j, pol.kv[i].key, pol.kv[i].value);
	ofan_json_obj_end(&j);
	if (dev != NULL) {
		ofan_json_arr_begin(&j, "ports");
		for (k = 0; k < cfg->nb_ports; k++) {
			if (!dev[k].valid)
				continue;
			ofan_json_obj_begin(&j, NULL);
			ofan_json_u64(&j, "port", k);
			ofan_json_u64(&j, "rank", cfg->ports[k].rank);
			ofan_json_str(&j, "dev", cfg->ports[k].dev);
			ofan_json_u64(&j, "ethdev", dev[k].ethdev);
			ofan_json_obj_begin(&j, "device");
#define HS_DEV_JSON(field, what) ofan_json_u64(&j, #field, dev[k].field);
			OFAN_DEV_COUNTERS(HS_DEV_JSON)
#undef HS_DEV_JSON
			ofan_json_obj_end(&j);
			ofan_json_obj_end(&j);
		}
		ofan_json_arr_end(&j);
	}
	ofan_json_arr_begin(&j, "hosts");
	for (k = 0; k < nb_hosts; k++) {
		const struct hs_host_stats *s = hs_host_stats(hosts[k]);
		uint16_t shard, nb_shards;
		int r;

		ofan_json_obj_begin(&j, NULL);
		ofan_json_u64(&j, "rank", hs_host_rank(hosts[k]));
		hs_host_shard_of(hosts[k], &shard, &nb_shards);
		if (nb_shards > 1) {
			/* One entry per shard of a rank on several lcores. */
			ofan_json_u64(&j, "shard", shard);
			ofan_json_u64(&j, "shards", nb_shards);
		}
#define HS_HOST_JSON(field, what) ofan_json_u64(&j, #field, s->field);
		HS_HOST_COUNTERS(HS_HOST_JSON)
#undef HS_HOST_JSON
		ofan_json_obj_begin(&j, "drops");
		for (r = 0; r < OFAN_DROP_MAX; r++)
			if (s->drops[r] != 0)
				ofan_json_u64(&j, ofan_drop_name(r), s->drops[r]);
		ofan_json_obj_end(&j);
		ofan_json_obj_end(&j);
	}
	ofan_json_arr_end(&j);
	ofan_json_obj_end(&j);
	rc = ofan_json_finish(&j);
out:
	if (csv != NULL && fclose(csv) != 0 && rc == 0)
		rc = -EIO;
	if (jf != NULL && fclose(jf) != 0 && rc == 0)
		rc = -EIO;
	free(ideal);
	free(ideal_rx);
	free(res);
	free(begin);
	free(times);
	free(slow);
	return rc;
}
