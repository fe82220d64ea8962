/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch engine's control side: construction and teardown, the
 * control plane (failures, weights, group snapshots) and totals.  The
 * data path is sw_worker.c, the FIB sw_fib.c.  See sw_engine.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ofan_parse.h"
#include "ofan_rng.h"
#include "ofan_wire.h"
#include "sw_engine_priv.h"
#include "sw_parse_fast.h"

static void
sw_engine_publish(struct sw_engine *eng)
{
	uint32_t next = eng->gen + 1;
	struct lb_group *s = eng->snap[next & 1];
	uint16_t i;

	for (i = 0; i < eng->nb_workers; i++)
		if (eng->workers[i].acked_gen != eng->gen)
			return;	/* someone still reads the other snapshot */
	for (i = 0; i < eng->cfg.nb_groups; i++)
		lb_group_refresh(&eng->master[i]);
	memcpy(s, eng->master, sw_groups_size(eng));
	__atomic_store_n(&eng->gen, next, __ATOMIC_RELEASE);
	eng->dirty = false;
}

/* Adopt the newest snapshot, if any, and tell the policy. */

static int
sw_engine_build_fib(struct sw_engine *eng, struct rte_lpm *shared,
		    int socket, char *err, unsigned int err_size)
{
	const struct sw_config *c = &eng->cfg;
	uint32_t i;

	for (i = 0; i < c->nb_routes; i++) {
		eng->route_group[i] = c->routes[i].group;
		eng->route_key[i] = c->routes[i].dst_key;
	}
	if (shared != NULL) {
		eng->fib = shared;
		return 0;
	}
	eng->fib = sw_fib_create(c, socket, err, err_size);
	eng->fib_owned = eng->fib != NULL;
	return eng->fib != NULL ? 0 : -ENOMEM;
}

static int
sw_engine_init_worker(struct sw_engine *eng, struct sw_worker *w,
		      uint16_t id, int socket, char *err,
		      unsigned int err_size)
{
	const struct sw_config *c = &eng->cfg;
	struct lb_params p = { .settings = lb_settings_of(&c->lb, c->policy) };
	uint16_t i;
	int rc;

	w->eng = eng;
	w->id = id;
	ofan_rng_seed(&w->rng, c->seed, 0x5157000u + id);
	/* Lossy ports: each worker its own stream per port. */
	for (i = 0; i < c->nb_drops; i++) {
		ofan_loss_start(&w->loss[c->drops[i].port], &c->drops[i].loss,
				c->seed, 0x1055000u + c->drops[i].port * 64u + id,
				0);
		w->loss_mask |= SW_PORT_BIT(c->drops[i].port);
	}
	w->hash_seed = eng->hash_seed;
	w->groups = rte_zmalloc_socket("sw_groups", sw_groups_size(eng),
				       RTE_CACHE_LINE_SIZE, socket);
	if (w->groups == NULL) {
		snprintf(err, err_size, "out of memory for groups");
		return -ENOMEM;
	}
	for (i = 0; i < c->nb_ports; i++) {
		rc = sw_queue_init(&w->queue[i], &c->ports[i].queue, c->burst,
				   socket);
		if (rc != 0) {
			snprintf(err, err_size, "out of memory for the egress queue of port %u",
				 i);
			return rc;
		}
		if (!w->queue[i].enabled)
			w->unqueued_mask |= SW_PORT_BIT(i);
		w->port_cap[i] = w->queue[i].cap_pkts;
		w->port_cap_bytes[i] = w->queue[i].cap_bytes;
	}
	/*
	 * Each worker's policy instance gets its own stream of the switch
	 * seed; ECMP hashes with the per-switch hash seed and so agrees
	 * across workers.
	 */
	p.seed = c->seed * 0x9e3779b97f4a7c15ull + id;
	p.nb_groups = c->nb_groups;
	p.nb_dst_keys = c->nb_dst_keys;
	p.nb_ports = c->nb_ports;
	p.tier = c->tier;
	rc = c->policy->create(&p, &w->lb_state);
	if (rc != 0) {
		snprintf(err, err_size, "policy %s: cannot create: %s",
			 c->policy->name, strerror(-rc));
		return rc;
	}
	if (sw_pfc_worker_init(w) != 0) {
		snprintf(err, err_size, "out of memory for the PFC ingress rings");
		return -ENOMEM;
	}
	/* Force the first sync to copy the groups and inform the policy. */
	w->groups_gen = UINT32_MAX;
	w->acked_gen = UINT32_MAX;
	sw_worker_sync(w);
	return 0;
}

struct sw_engine *
sw_engine_create(const struct sw_config *cfg, uint16_t nb_workers,
		 const uint8_t (*port_macs)[6], int socket, char *err,
		 unsigned int err_size)
{
	return sw_engine_create_shared(cfg, nb_workers, port_macs, socket,
				       NULL, err, err_size);
}

struct sw_engine *
sw_engine_create_shared(const struct sw_config *cfg, uint16_t nb_workers,
			const uint8_t (*port_macs)[6], int socket,
			struct rte_lpm *fib, char *err, unsigned int err_size)
{
	struct sw_engine *eng;
	uint64_t x;
	uint16_t i, j;

	if (nb_workers == 0 || nb_workers > SW_MAX_WORKERS) {
		snprintf(err, err_size, "%u workers; expected 1 to %d",
			 nb_workers, SW_MAX_WORKERS);
		return NULL;
	}
	eng = rte_zmalloc_socket("sw_engine", sizeof(*eng), RTE_CACHE_LINE_SIZE,
				 socket);
	if (eng == NULL) {
		snprintf(err, err_size, "out of memory for the engine");
		return NULL;
	}
	sw_config_copy(&eng->cfg, cfg);	/* eng is all zero */
	x = cfg->seed;
	eng->hash_seed = (uint32_t)ofan_splitmix64(&x);
	eng->parse_flags = cfg->verify_checksum ? OFAN_PARSE_F_VERIFY_CSUM : 0;
	eng->nb_workers = nb_workers;
	if (sw_engine_build_fib(eng, fib, socket, err, err_size) != 0)
		goto fail;

	eng->master = rte_zmalloc_socket("sw_master", sw_groups_size(eng), 0,
					 socket);
	eng->snap[0] = rte_zmalloc_socket("sw_snap", sw_groups_size(eng), 0,
					  socket);
	eng->snap[1] = rte_zmalloc_socket("sw_snap", sw_groups_size(eng), 0,
					  socket);
	eng->base_weight = rte_zmalloc_socket("sw_weights",
		sizeof(uint16_t) * LB_MAX_MEMBERS * (cfg->nb_groups + 1), 0,
		socket);
	eng->workers = rte_zmalloc_socket("sw_workers",
		sizeof(struct sw_worker) * nb_workers, RTE_CACHE_LINE_SIZE,
		socket);
	if (eng->master == NULL || eng->snap[0] == NULL ||
	    eng->snap[1] == NULL || eng->base_weight == NULL ||
	    eng->workers == NULL) {
		snprintf(err, err_size, "out of memory for groups and workers");
		goto fail;
	}
	for (i = 0; i < cfg->nb_groups; i++) {
		struct lb_group *g = &eng->master[i];

		g->id = i;
		g->nb_members = cfg->groups[i].nb_members;
		for (j = 0; j < g->nb_members; j++) {
			g->port[j] = cfg->groups[i].port[j];
			g->weight[j] = cfg->groups[i].weight[j];
			eng->base_weight[i * LB_MAX_MEMBERS + j] = g->weight[j];
		}
		lb_group_refresh(g);
	}
	memcpy(eng->snap[0], eng->master, sw_groups_size(eng));
	eng->gen = 0;

	for (i = 0; i < cfg->nb_ports; i++) {
		struct sw_port_state *ps = &eng->port[i];

		memcpy(ps->mac, cfg->ports[i].mac_set ? cfg->ports[i].mac :
		       port_macs[i], 6);
		if (cfg->ports[i].peer_mac_set) {
			memcpy(ps->peer_mac, cfg->ports[i].peer_mac, 6);
			ps->peer_known = 1;
		} else {
			memset(ps->peer_mac, 0xff, 6);
		}
		ps->link = SW_LINK_UP;
		ps->rate_bps = cfg->ports[i].queue.rate_bps;
		ps->queue_permille = 1000;
	}
	for (i = 0; i < cfg->nb_failures; i++) {
		const struct sw_failure_config *f = &cfg->failures[i];
		struct sw_event *e = &eng->events[eng->nb_events++];

		e->at_ns = f->at_ns;
		e->index = (uint16_t)i;
		e->port = f->port;
		e->mode = f->mode;
		e->rate_bps = f->rate_bps;
		if (f->duration_ns != 0) {
			e = &eng->events[eng->nb_events++];
			e->at_ns = f->at_ns + f->duration_ns;
			e->index = (uint16_t)i;
			e->port = f->port;
			e->mode = SW_LINK_UP;
		}
	}
	for (i = 0; i < cfg->nb_reroutes; i++) {
		struct sw_event *e = &eng->events[eng->nb_events++];

		e->at_ns = cfg->reroutes[i].at_ns;
		e->reroute = true;
		e->index = (uint16_t)i;
	}
	sw_pfc_init(eng);
	for (i = 0; i < nb_workers; i++)
		if (sw_engine_init_worker(eng, &eng->workers[i], i, socket,
					  err, err_size) != 0)
			goto fail;
	return eng;
fail:
	sw_engine_free(eng);
	return NULL;
}

uint32_t
sw_engine_free_queues(struct sw_engine *eng)
{
	uint32_t freed = 0;
	uint16_t i, p;

	for (i = 0; eng->workers != NULL && i < eng->nb_workers; i++) {
		struct sw_worker *w = &eng->workers[i];

		for (p = 0; p < eng->cfg.nb_ports; p++) {
			struct sw_queue *q = &w->queue[p];
			struct rte_mbuf *m;

			while (q->ring != NULL && (m = sw_queue_pop(q)) != NULL) {
				rte_pktmbuf_free(m);
				w->port_st[p].egress_drops++;
				w->drops[OFAN_DROP_SHUTDOWN]++;
				freed++;
			}
			q->bytes = 0;
			w->pfc[p].in_bytes = 0;
			w->pfc[p].xoff = false;
			w->pfc[p].latch = false;
		}
		sw_pfc_worker_fini(w);
	}
	return freed;
}

uint32_t
sw_engine_free(struct sw_engine *eng)
{
	uint32_t freed;
	uint16_t i, p;

	if (eng == NULL)
		return 0;
	freed = sw_engine_free_queues(eng);
	for (i = 0; eng->workers != NULL && i < eng->nb_workers; i++) {
		struct sw_worker *w = &eng->workers[i];

		for (p = 0; p < eng->cfg.nb_ports; p++)
			sw_queue_fini(&w->queue[p]);
		if (w->lb_state != NULL)
			eng->cfg.policy->destroy(w->lb_state);
		rte_free(w->groups);
	}
	rte_free(eng->workers);
	rte_free(eng->master);
	rte_free(eng->snap[0]);
	rte_free(eng->snap[1]);
	rte_free(eng->base_weight);
	if (eng->fib_owned)
		rte_lpm_free(eng->fib);
	rte_free(eng);
	return freed;
}

const struct sw_config *
sw_engine_config(const struct sw_engine *eng)
{
	return &eng->cfg;
}

struct sw_worker *
sw_engine_worker(struct sw_engine *eng, uint16_t id)
{
	return id < eng->nb_workers ? &eng->workers[id] : NULL;
}

uint16_t
sw_engine_nb_workers(const struct sw_engine *eng)
{
	return eng->nb_workers;
}

struct sw_port_state *
sw_engine_port(struct sw_engine *eng, uint16_t port)
{
	return port < eng->cfg.nb_ports ? &eng->port[port] : NULL;
}

const struct lb_group *
sw_engine_group(struct sw_engine *eng, uint16_t g)
{
	return g < eng->cfg.nb_groups ? &eng->master[g] : NULL;
}

/* ---- control plane ---- */

static void
sw_engine_apply_weights(struct sw_engine *eng, uint16_t port)
{
	uint16_t g, m;

	for (g = 0; g < eng->cfg.nb_groups; g++) {
		struct lb_group *grp = &eng->master[g];

		for (m = 0; m < grp->nb_members; m++) {
			if (grp->port[m] != port)
				continue;
			grp->weight[m] = eng->ctl[port].withdrawn ? 0 :
				eng->base_weight[g * LB_MAX_MEMBERS + m];
			eng->dirty = true;
		}
	}
}

int
sw_engine_set_queue_scale(struct sw_engine *eng, uint16_t port,
			  uint16_t permille)
{
	if (port >= eng->cfg.nb_ports || permille == 0 || permille > 1000)
		return -EINVAL;
	eng->port[port].queue_permille = permille;
	return 0;
}

int
sw_engine_set_link(struct sw_engine *eng, uint16_t port,
		   enum sw_link_state mode, uint64_t rate_bps, uint64_t now_ns)
{
	struct sw_port_state *ps;
	struct sw_port_ctl *ctl;

	if (port >= eng->cfg.nb_ports || mode >= SW_LINK_NB_STATES)
		return -EINVAL;
	if (mode == SW_LINK_DEGRADED && rate_bps == 0)
		return -EINVAL;
	ps = &eng->port[port];
	ctl = &eng->ctl[port];
	ps->failed_at_ns = now_ns;
	switch (mode) {
	case SW_LINK_UP:
	case SW_LINK_DEGRADED:
		/* The link carries traffic again (degraded: more slowly). */
		ps->rate_bps = mode == SW_LINK_UP ?
			eng->cfg.ports[port].queue.rate_bps : rate_bps;
		ctl->withdraw_at = 0;
		if (ctl->withdrawn)
			ctl->restore_at = now_ns + eng->cfg.detect_delay_ns;
		break;
	case SW_LINK_DOWN:
		ctl->restore_at = 0;
		if (!ctl->withdrawn)
			ctl->withdraw_at = now_ns + eng->cfg.detect_delay_ns;
		break;
	case SW_LINK_BLACKHOLE:
	case SW_LINK_STALL:
		/* Routing removes it; the link's end does not notice. */
		ctl->restore_at = 0;
		if (!ctl->withdrawn)
			ctl->withdraw_at = now_ns +
				eng->cfg.reconverge_delay_ns;
		break;
	default:
		return -EINVAL;
	}
	/* A pending time of 0 means none: keep "at time 0" representable. */
	if (ctl->withdraw_at == 0 && (mode == SW_LINK_DOWN ||
	    mode == SW_LINK_BLACKHOLE || mode == SW_LINK_STALL) &&
	    !ctl->withdrawn)
		ctl->withdraw_at = 1;
	__atomic_store_n(&ps->link, (uint8_t)mode, __ATOMIC_RELEASE);
	/* One control thread changes links: a plain read suffices. */
	__atomic_store_n(&eng->stalled, mode == SW_LINK_STALL ?
			 eng->stalled | SW_PORT_BIT(port) :
			 eng->stalled & ~(SW_PORT_BIT(port)),
			 __ATOMIC_RELEASE);
	return 0;
}

int
sw_engine_request(struct sw_engine *eng, uint16_t port,
		  enum sw_link_state mode, uint64_t rate_bps)
{
	if (port >= eng->cfg.nb_ports || mode >= SW_LINK_NB_STATES ||
	    (mode == SW_LINK_DEGRADED && rate_bps == 0))
		return -EINVAL;
	if (__atomic_load_n(&eng->req_pending, __ATOMIC_ACQUIRE))
		return -EBUSY;
	eng->req_port = port;
	eng->req_mode = (uint8_t)mode;
	eng->req_rate = rate_bps;
	__atomic_store_n(&eng->req_pending, 1, __ATOMIC_RELEASE);
	return 0;
}

int
sw_engine_set_weight(struct sw_engine *eng, uint16_t group, uint16_t port,
		     uint16_t weight)
{
	struct lb_group *grp;
	uint16_t m;

	if (group >= eng->cfg.nb_groups)
		return -EINVAL;
	grp = &eng->master[group];
	for (m = 0; m < grp->nb_members; m++) {
		if (grp->port[m] != port)
			continue;
		eng->base_weight[group * LB_MAX_MEMBERS + m] = weight;
		grp->weight[m] = eng->ctl[port].withdrawn ? 0 : weight;
		eng->dirty = true;
		return 0;
	}
	return -ENOENT;
}

void
sw_engine_set_log(struct sw_engine *eng, sw_log_fn log, void *arg)
{
	eng->log = log;
	eng->log_arg = arg;
}

bool
sw_engine_request_pending(const struct sw_engine *eng)
{
	return __atomic_load_n(&eng->req_pending, __ATOMIC_ACQUIRE) != 0;
}

/* Report a link change of port: its new state and why. */
static void
sw_engine_log_link(struct sw_engine *eng, uint16_t port, uint8_t mode,
		   uint64_t rate_bps, const char *why, uint64_t now_ns)
{
	char msg[256];

	if (eng->log == NULL)
		return;
	if (mode == SW_LINK_DEGRADED)
		snprintf(msg, sizeof(msg), "port %u (%s): degraded to %.3f Gb/s (%s)",
			 port, eng->cfg.ports[port].dev, (double)rate_bps / 1e9,
			 why);
	else
		snprintf(msg, sizeof(msg), "port %u (%s): %s (%s)", port,
			 eng->cfg.ports[port].dev, sw_link_state_names[mode],
			 why);
	eng->log(eng->log_arg, now_ns, msg);
}

static void
sw_engine_log_groups(struct sw_engine *eng, uint16_t port, bool out,
		     uint64_t now_ns)
{
	char msg[160];

	if (eng->log == NULL)
		return;
	snprintf(msg, sizeof(msg), "port %u (%s): %s its groups (routing)",
		 port, eng->cfg.ports[port].dev, out ? "out of" : "back in");
	eng->log(eng->log_arg, now_ns, msg);
}

/* Apply a scheduled reroute: every member of its group gets its weight. */
static void
sw_engine_reroute(struct sw_engine *eng, const struct sw_reroute_config *r,
		  uint64_t now_ns)
{
	const struct lb_group *grp = &eng->master[r->group];
	char msg[SW_NAME_SIZE * 2 + 6 * LB_MAX_MEMBERS + 64];
	int len;
	uint16_t m;

	len = snprintf(msg, sizeof(msg), "group %s: weights",
		       eng->cfg.groups[r->group].name);
	for (m = 0; m < grp->nb_members; m++) {
		sw_engine_set_weight(eng, r->group, grp->port[m], r->weight[m]);
		if (len > 0 && (size_t)len < sizeof(msg))
			len += snprintf(msg + len, sizeof(msg) - len, "%s %u",
					m ? "," : "", r->weight[m]);
	}
	if (eng->log == NULL)
		return;
	if (len > 0 && (size_t)len < sizeof(msg))
		snprintf(msg + len, sizeof(msg) - len, " (scheduled, [%s])",
			 r->name);
	eng->log(eng->log_arg, now_ns, msg);
}

void
sw_engine_set_schedule_start(struct sw_engine *eng, int64_t start_ns)
{
	uint16_t i, d;

	eng->sched_start_ns = start_ns;
	if (start_ns == SW_SCHEDULE_HELD)
		return;
	/* Lossy ports' bursts count from the schedule's start too. */
	for (i = 0; i < eng->nb_workers; i++)
		for (d = 0; d < eng->cfg.nb_drops; d++) {
			struct ofan_loss *l =
				&eng->workers[i].loss[eng->cfg.drops[d].port];
			int64_t due = start_ns +
				(int64_t)eng->cfg.drops[d].loss.first_ns;

			l->next_burst = due > 0 ? (uint64_t)due : 0;
		}
}

/*
 * Whether a scheduled event at at_ns (schedule time) is due at now_ns
 * (engine time); never while the schedule is held.
 */
static bool
sw_engine_due(const struct sw_engine *eng, uint64_t at_ns, uint64_t now_ns)
{
	int64_t origin = eng->sched_start_ns;

	if (origin == SW_SCHEDULE_HELD)
		return false;
	if (origin >= 0)
		return now_ns >= (uint64_t)origin &&
		       now_ns - (uint64_t)origin >= at_ns;
	/* A start before the engine's: now is later on the schedule. */
	return now_ns + (uint64_t)-origin >= at_ns ||
	       now_ns + (uint64_t)-origin < now_ns;
}

void
sw_engine_control(struct sw_engine *eng, uint64_t now_ns)
{
	uint16_t i;

	if (__atomic_load_n(&eng->req_pending, __ATOMIC_ACQUIRE)) {
		sw_engine_set_link(eng, eng->req_port, eng->req_mode,
				   eng->req_rate, now_ns);
		sw_engine_log_link(eng, eng->req_port, eng->req_mode,
				   eng->req_rate, "telemetry /ofan/fail", now_ns);
		__atomic_store_n(&eng->req_pending, 0, __ATOMIC_RELEASE);
	}
	for (i = 0; i < eng->nb_events; i++) {
		struct sw_event *e = &eng->events[i];
		char why[SW_NAME_SIZE + 16];

		if (e->done || !sw_engine_due(eng, e->at_ns, now_ns))
			continue;
		e->done = true;
		if (e->reroute) {
			sw_engine_reroute(eng, &eng->cfg.reroutes[e->index],
					  now_ns);
			continue;
		}
		sw_engine_set_link(eng, e->port, e->mode, e->rate_bps, now_ns);
		snprintf(why, sizeof(why), "scheduled, [%s]",
			 eng->cfg.failures[e->index].name);
		sw_engine_log_link(eng, e->port, e->mode, e->rate_bps, why,
				   now_ns);
	}
	for (i = 0; i < eng->cfg.nb_ports; i++) {
		struct sw_port_ctl *ctl = &eng->ctl[i];

		if (ctl->withdraw_at != 0 && now_ns >= ctl->withdraw_at) {
			ctl->withdraw_at = 0;
			ctl->withdrawn = true;
			eng->port[i].removed = true;
			sw_engine_apply_weights(eng, i);
			sw_engine_log_groups(eng, i, true, now_ns);
		}
		if (ctl->restore_at != 0 && now_ns >= ctl->restore_at) {
			ctl->restore_at = 0;
			ctl->withdrawn = false;
			eng->port[i].removed = false;
			sw_engine_apply_weights(eng, i);
			sw_engine_log_groups(eng, i, false, now_ns);
		}
	}
	if (eng->dirty)
		sw_engine_publish(eng);
}

void
sw_engine_totals(struct sw_engine *eng, struct sw_totals *t)
{
	uint16_t i, p, r, b;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < eng->nb_workers; i++) {
		const struct sw_worker *w = &eng->workers[i];

		for (r = 0; r < OFAN_DROP_MAX; r++)
			t->drops[r] += w->drops[r];
		for (p = 0; p < eng->cfg.nb_ports; p++) {
			const struct sw_port_stats *s = &w->port_st[p];
			const struct sw_queue_stats *q = &w->queue[p].st;

#define SW_PORT_SUM(field, key, what) t->port[p].field += s->field;
			SW_PORT_COUNTERS(SW_PORT_SUM)
#undef SW_PORT_SUM
#define SW_QUEUE_COMBINE(field, key, how, what) \
			t->queue[p].field = SW_COMBINE_##how(t->queue[p].field, q->field);
			SW_QUEUE_COUNTERS(SW_QUEUE_COMBINE)
#undef SW_QUEUE_COMBINE
			t->picks[p] += w->picks[p];
			for (b = 0; b < SW_QUEUE_HIST_BINS; b++)
				t->queue[p].hist[b] += q->hist[b];
			t->queue_len[p] += sw_queue_len(&w->queue[p]);
		}
	}
}
