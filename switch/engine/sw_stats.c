/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ofan_json.h"
#include "sw_stats.h"

void
sw_stats_status_line(FILE *f, struct sw_engine *eng, struct sw_totals *prev,
		     double t_s, double dt_s)
{
	const struct sw_config *c = sw_engine_config(eng);
	struct sw_totals *now = malloc(sizeof(*now));
	uint64_t rx = 0, tx = 0, prx = 0, ptx = 0, drop = 0, ecn = 0;
	uint64_t qmax = 0;
	uint16_t p, r;

	if (now == NULL)
		return;
	sw_engine_totals(eng, now);
	for (p = 0; p < c->nb_ports; p++) {
		rx += now->port[p].rx_pkts;
		tx += now->port[p].tx_pkts;
		prx += prev->port[p].rx_pkts;
		ptx += prev->port[p].tx_pkts;
		ecn += now->queue[p].ecn_marked;
		if (now->queue[p].max_pkts > qmax)
			qmax = now->queue[p].max_pkts;
	}
	for (r = 0; r < OFAN_DROP_MAX; r++)
		drop += now->drops[r];
	if (dt_s <= 0)
		dt_s = 1;
	fprintf(f, "%s t=%.1fs rx %.3f Mpps tx %.3f Mpps | rx %llu tx %llu drop %llu ecn %llu qmax %llu\n",
		c->name, t_s, (double)(rx - prx) / dt_s / 1e6,
		(double)(tx - ptx) / dt_s / 1e6, (unsigned long long)rx,
		(unsigned long long)tx, (unsigned long long)drop,
		(unsigned long long)ecn, (unsigned long long)qmax);
	fflush(f);
	*prev = *now;
	free(now);
}

static void
sw_stats_policy_emit(void *arg, const char *key, uint64_t value)
{
	ofan_json_u64(arg, key, value);
}

int
sw_stats_write_json(FILE *f, struct sw_engine *eng,
		    const struct sw_stats_extra *x)
{
	const struct sw_config *c = sw_engine_config(eng);
	struct sw_totals *t = malloc(sizeof(*t));
	struct ofan_json j;
	uint16_t p, r, b, w;

	if (t == NULL)
		return -ENOMEM;
	sw_engine_totals(eng, t);
	ofan_json_init(&j, f, true);
	ofan_json_obj_begin(&j, NULL);
	ofan_json_str(&j, "switch", c->name);
	ofan_json_str(&j, "policy", c->policy->name);
	ofan_json_u64(&j, "seed", c->seed);
	ofan_json_u64(&j, "workers", x->nb_workers);
	ofan_json_double(&j, "elapsed_s", x->elapsed_s);
	ofan_json_i64(&j, "mempool_in_use_start", x->mempool_in_use_start);
	ofan_json_i64(&j, "mempool_in_use_end", x->mempool_in_use_end);

	ofan_json_arr_begin(&j, "ports");
	for (p = 0; p < c->nb_ports; p++) {
		const struct sw_port_stats *s = &t->port[p];
		const struct sw_queue_stats *q = &t->queue[p];
		const struct sw_port_state *ps = sw_engine_port(eng, p);

		ofan_json_obj_begin(&j, NULL);
		ofan_json_u64(&j, "port", p);
		if (x->port_devs != NULL)
			ofan_json_str(&j, "dev", x->port_devs[p]);
		ofan_json_str(&j, "link", sw_link_state_names[ps->link]);
#define SW_PORT_JSON(field, key, what) ofan_json_u64(&j, key, s->field);
		SW_PORT_COUNTERS(SW_PORT_JSON)
#undef SW_PORT_JSON
		ofan_json_u64(&j, "picked", t->picks[p]);
#define SW_QUEUE_JSON(field, key, how, what) ofan_json_u64(&j, key, q->field);
		SW_QUEUE_COUNTERS(SW_QUEUE_JSON)
#undef SW_QUEUE_JSON
		ofan_json_u64(&j, "queue_len_at_exit", t->queue_len[p]);
		if (x->dev != NULL && x->dev[p].valid) {
			const struct ofan_dev_stats *d = &x->dev[p];

			ofan_json_u64(&j, "ethdev", d->ethdev);
			ofan_json_obj_begin(&j, "device");
#define SW_DEV_JSON(field, what) ofan_json_u64(&j, #field, d->field);
			OFAN_DEV_COUNTERS(SW_DEV_JSON)
#undef SW_DEV_JSON
			ofan_json_obj_end(&j);
		}
		ofan_json_arr_begin(&j, "queue_hist");
		for (b = 0; b < SW_QUEUE_HIST_BINS; b++)
			ofan_json_u64(&j, NULL, q->hist[b]);
		ofan_json_arr_end(&j);
		ofan_json_obj_end(&j);
	}
	ofan_json_arr_end(&j);

	ofan_json_obj_begin(&j, "drops");
	for (r = 0; r < OFAN_DROP_MAX; r++)
		ofan_json_u64(&j, ofan_drop_name(r), t->drops[r]);
	ofan_json_obj_end(&j);

	ofan_json_arr_begin(&j, "policy_state");
	for (w = 0; w < x->nb_workers; w++) {
		ofan_json_obj_begin(&j, NULL);
		ofan_json_u64(&j, "worker", w);
		sw_worker_dump_policy(sw_engine_worker(eng, w),
				      sw_stats_policy_emit, &j);
		ofan_json_obj_end(&j);
	}
	ofan_json_arr_end(&j);
	ofan_json_obj_end(&j);
	free(t);
	return ofan_json_finish(&j);
}
