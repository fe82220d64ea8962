/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_pause.h>
#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "ofan_config.h"
#include "ofan_port.h"
#include "sw_tel_args.h"
#include "sw_telemetry.h"

/* The engine served; NULL outside its lifetime.  See the header. */
static struct sw_engine *volatile sw_tel_engine;
/* Port p's ethdev id, for its device counters (NULL: none). */
static uint16_t sw_tel_ethdev[SW_MAX_ETHPORTS];
static bool sw_tel_has_ethdev;
/* Callbacks running now; unregister waits for them to finish. */
static volatile uint32_t sw_tel_busy;

static void
sw_tel_enter(void)
{
	__atomic_fetch_add(&sw_tel_busy, 1, __ATOMIC_ACQUIRE);
}

static int
sw_tel_leave(int rc)
{
	__atomic_fetch_sub(&sw_tel_busy, 1, __ATOMIC_RELEASE);
	return rc;
}

static struct sw_totals *
sw_tel_totals(void)
{
	struct sw_totals *t;

	if (sw_tel_engine == NULL)
		return NULL;
	t = malloc(sizeof(*t));
	if (t != NULL)
		sw_engine_totals(sw_tel_engine, t);
	return t;
}

static int
sw_tel_ports_do(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct sw_config *c;
	struct sw_totals *t = sw_tel_totals();
	uint16_t p;

	if (t == NULL)
		return -ENODEV;
	c = sw_engine_config(sw_tel_engine);
	rte_tel_data_start_dict(d);
	for (p = 0; p < c->nb_ports; p++) {
		struct rte_tel_data *pd = rte_tel_data_alloc();
		const struct sw_port_state *ps = sw_engine_port(sw_tel_engine, p);
		char name[16];

		if (pd == NULL)
			break;
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_string(pd, "dev", c->ports[p].dev);
		rte_tel_data_add_dict_string(pd, "link",
					     sw_link_state_names[ps->link]);
#define SW_TEL_PORT(field, key, what) \
		rte_tel_data_add_dict_u64(pd, key, t->port[p].field);
		SW_PORT_COUNTERS(SW_TEL_PORT)
#undef SW_TEL_PORT
#define SW_TEL_QUEUE(field, key, how, what) \
		rte_tel_data_add_dict_u64(pd, key, t->queue[p].field);
		SW_QUEUE_COUNTERS(SW_TEL_QUEUE)
#undef SW_TEL_QUEUE
		rte_tel_data_add_dict_u64(pd, "queue_len", t->queue_len[p]);
		rte_tel_data_add_dict_u64(pd, "picked", t->picks[p]);
		if (sw_tel_has_ethdev) {
			struct ofan_dev_stats ds;

			ofan_port_dev_stats(sw_tel_ethdev[p], &ds);
			rte_tel_data_add_dict_u64(pd, "ethdev", ds.ethdev);
#define SW_TEL_DEV(field, what) \
			rte_tel_data_add_dict_u64(pd, "dev_" #field, ds.field);
			OFAN_DEV_COUNTERS(SW_TEL_DEV)
#undef SW_TEL_DEV
		}
		snprintf(name, sizeof(name), "%u", p);
		rte_tel_data_add_dict_container(d, name, pd, 0);
	}
	free(t);
	return 0;
}

static int
sw_tel_queues_do(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct sw_config *c;
	struct sw_totals *t = sw_tel_totals();
	uint16_t p, b;

	if (t == NULL)
		return -ENODEV;
	c = sw_engine_config(sw_tel_engine);
	rte_tel_data_start_dict(d);
	for (p = 0; p < c->nb_ports; p++) {
		struct rte_tel_data *qd = rte_tel_data_alloc();
		struct rte_tel_data *h = rte_tel_data_alloc();
		char name[16];

		if (qd == NULL || h == NULL) {
			rte_tel_data_free(qd);
			rte_tel_data_free(h);
			break;
		}
		rte_tel_data_start_dict(qd);
		rte_tel_data_add_dict_u64(qd, "len", t->queue_len[p]);
#define SW_TEL_QUEUE(field, key, how, what) \
		rte_tel_data_add_dict_u64(qd, key, t->queue[p].field);
		SW_QUEUE_COUNTERS(SW_TEL_QUEUE)
#undef SW_TEL_QUEUE
		rte_tel_data_add_dict_u64(qd, "capacity_pkts",
					  c->ports[p].queue.capacity_pkts);
		rte_tel_data_start_array(h, RTE_TEL_U64_VAL);
		for (b = 0; b < SW_QUEUE_HIST_BINS; b++)
			rte_tel_data_add_array_u64(h, t->queue[p].hist[b]);
		rte_tel_data_add_dict_container(qd, "hist", h, 0);
		snprintf(name, sizeof(name), "%u", p);
		rte_tel_data_add_dict_container(d, name, qd, 0);
	}
	free(t);
	return 0;
}

static int
sw_tel_drops_do(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct sw_totals *t = sw_tel_totals();
	int r;

	if (t == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	for (r = 0; r < OFAN_DROP_MAX; r++)
		rte_tel_data_add_dict_u64(d, ofan_drop_name(r), t->drops[r]);
	free(t);
	return 0;
}

struct sw_tel_emit_arg {
	struct rte_tel_data *d;
};

static void
sw_tel_emit(void *arg, const char *key, uint64_t value)
{
	rte_tel_data_add_dict_u64(arg, key, value);
}

static int
sw_tel_policy_do(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct sw_engine *eng = sw_tel_engine;
	const struct sw_config *c;
	uint16_t w;

	if (eng == NULL)
		return -ENODEV;
	c = sw_engine_config(eng);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "policy", c->policy->name);
	rte_tel_data_add_dict_u64(d, "seed", c->seed);
	rte_tel_data_add_dict_u64(d, "workers", sw_engine_nb_workers(eng));
	for (w = 0; w < sw_engine_nb_workers(eng) && c->policy->dump; w++) {
		struct rte_tel_data *wd = rte_tel_data_alloc();
		char name[16];

		if (wd == NULL)
			break;
		rte_tel_data_start_dict(wd);
		sw_worker_dump_policy(sw_engine_worker(eng, w), sw_tel_emit,
				      wd);
		snprintf(name, sizeof(name), "worker%u", w);
		rte_tel_data_add_dict_container(d, name, wd, 0);
	}
	return 0;
}

static int
sw_tel_groups_do(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct sw_engine *eng = sw_tel_engine;
	const struct sw_config *c;
	uint16_t g, m;

	if (eng == NULL)
		return -ENODEV;
	c = sw_engine_config(eng);
	rte_tel_data_start_dict(d);
	for (g = 0; g < c->nb_groups && g < 250; g++) {
		const struct lb_group *grp = sw_engine_group(eng, g);
		struct rte_tel_data *gd = rte_tel_data_alloc();
		char buf[512];
		int off = 0;

		if (gd == NULL)
			break;
		for (m = 0; m < grp->nb_members && off < (int)sizeof(buf) - 16;
		     m++)
			off += snprintf(buf + off, sizeof(buf) - off, "%s%u:%u",
					m ? " " : "", grp->port[m],
					grp->weight[m]);
		buf[off] = '\0';
		rte_tel_data_start_dict(gd);
		rte_tel_data_add_dict_string(gd, "members_port_weight", buf);
		rte_tel_data_add_dict_u64(gd, "live", grp->nb_live);
		rte_tel_data_add_dict_container(d, c->groups[g].name, gd, 0);
	}
	return 0;
}

/* Wait up to a second for no request to be pending; 0 or -EBUSY. */
static int
sw_tel_wait_applied(void)
{
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		if (!sw_engine_request_pending(sw_tel_engine))
			return 0;
		rte_delay_us_sleep(1000);
	}
	return -EBUSY;
}

/* "PORT,MODE[,RATE]" -> request, applied before the answer.  */
static int
sw_tel_fail_do(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint64_t port, rate;
	int mode, rc;

	if (sw_tel_engine == NULL)
		return -ENODEV;
	if (sw_tel_fail_args(params, sw_link_state_names, &port, &mode,
			     &rate) != 0)
		goto usage;
	/*
	 * The switch applies a request at its next control tick (about a
	 * millisecond); wait for an earlier one to be applied, then for this
	 * one, so that /ofan/fail followed by /ofan/restore both apply.
	 */
	rc = sw_tel_wait_applied();
	if (rc == 0)
		rc = sw_engine_request(sw_tel_engine, (uint16_t)port, mode,
				       rate);
	if (rc == 0)
		rc = sw_tel_wait_applied();
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "result", rc == 0 ? "applied" :
		rc == -EBUSY ? "pending: the switch has not reached its next control tick within 1 s" :
		"invalid port or rate");
	return 0;
usage:
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error",
		"usage: /ofan/fail,PORT,up|down|blackhole|degraded[,RATE]");
	return 0;
}

static int sw_tel_fail(const char *cmd, const char *params,
		       struct rte_tel_data *d);

static int
sw_tel_restore(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char buf[64];

	if (sw_tel_restore_args(params, buf, sizeof(buf)) != 0) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "error",
					     "usage: /ofan/restore,PORT");
		return 0;
	}
	return sw_tel_fail(cmd, buf, d);
}

static int
sw_tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	sw_tel_enter();
	return sw_tel_leave(sw_tel_ports_do(cmd, params, d));
}

static int
sw_tel_queues(const char *cmd, const char *params, struct rte_tel_data *d)
{
	sw_tel_enter();
	return sw_tel_leave(sw_tel_queues_do(cmd, params, d));
}

static int
sw_tel_drops(const char *cmd, const char *params, struct rte_tel_data *d)
{
	sw_tel_enter();
	return sw_tel_leave(sw_tel_drops_do(cmd, params, d));
}

static int
sw_tel_policy(const char *cmd, const char *params, struct rte_tel_data *d)
{
	sw_tel_enter();
	return sw_tel_leave(sw_tel_policy_do(cmd, params, d));
}

static int
sw_tel_groups(const char *cmd, const char *params, struct rte_tel_data *d)
{
	sw_tel_enter();
	return sw_tel_leave(sw_tel_groups_do(cmd, params, d));
}

static int
sw_tel_fail(const char *cmd, const char *params, struct rte_tel_data *d)
{
	sw_tel_enter();
	return sw_tel_leave(sw_tel_fail_do(cmd, params, d));
}

int
sw_telemetry_register(struct sw_engine *eng, const uint16_t *ethdevs)
{
	static const struct {
		const char *cmd;
		telemetry_cb cb;
		const char *help;
	} cmds[] = {
		{ "/ofan/ports", sw_tel_ports,
		  "Per-port counters, link state, ethdev id and device counters (dev_*). No parameters." },
		{ "/ofan/queues", sw_tel_queues,
		  "Egress queues: length, maximum, histogram. No parameters." },
		{ "/ofan/drops", sw_tel_drops,
		  "Drop counters by named reason. No parameters." },
		{ "/ofan/policy", sw_tel_policy,
		  "Load-balancing policy and its per-worker state." },
		{ "/ofan/groups", sw_tel_groups,
		  "Next-hop groups with member weights." },
		{ "/ofan/fail", sw_tel_fail,
		  "Fail a link: PORT,down|blackhole|degraded[,RATE] (or up)." },
		{ "/ofan/restore", sw_tel_restore,
		  "Restore a link: PORT." },
	};
	unsigned int i;
	int rc;

	sw_tel_has_ethdev = ethdevs != NULL;
	for (i = 0; ethdevs != NULL &&
	     i < sw_engine_config(eng)->nb_ports; i++)
		sw_tel_ethdev[i] = ethdevs[i];
	sw_tel_engine = eng;
	for (i = 0; i < RTE_DIM(cmds); i++) {
		rc = rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].cb,
						cmds[i].help);
		/* Registering twice (tests) answers -EINVAL; keep going. */
		if (rc != 0 && rc != -EINVAL)
			return rc;
	}
	return 0;
}

void
sw_telemetry_unregister(void)
{
	sw_tel_engine = NULL;
	while (__atomic_load_n(&sw_tel_busy, __ATOMIC_ACQUIRE) != 0)
		rte_pause();
}
