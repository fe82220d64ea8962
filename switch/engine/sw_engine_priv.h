/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the switch engine: the engine's state, shared by its control
 * side (sw_engine.c: construction, failures, group snapshots, totals) and
 * its data path (sw_worker.c: the per-burst pipeline, transmit).  Not an
 * interface: only those files include it; everyone else uses
 * sw_engine.h.
 */
#ifndef OFAN_SW_ENGINE_PRIV_H
#define OFAN_SW_ENGINE_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_lpm.h>

#include "sw_engine.h"

/* Route index reserved for the switch's own addresses (local delivery). */
#define SW_ROUTE_LOCAL (SW_MAX_ROUTES)

/* Per-port failure bookkeeping of the control plane. */
struct sw_port_ctl {
	uint64_t withdraw_at;	/* 0 = nothing pending */
	uint64_t restore_at;
	bool withdrawn;
};

/*
 * A scheduled change from the config: a link change of its failure list
 * or a reroute (new weights of a group).
 */
struct sw_event {
	uint64_t at_ns;		/* since the schedule's start */
	bool reroute;		/* index is into cfg.reroutes, else failures */
	uint16_t index;
	uint16_t port;
	uint8_t mode;
	uint64_t rate_bps;
	bool done;
};

/* PFC settings of a port, from its [queue] keys and its link (sw_pfc.c). */
struct sw_pfc_cfg {
	bool on;		/* a software lossless port */
	uint8_t prio;
	uint16_t quanta;
	uint64_t xoff, xon;
	uint64_t headroom;
	uint64_t limit;		/* xoff + headroom: beyond, pfc_headroom drops */
	uint64_t refresh_ns;	/* a pause is sent again after half its time */
	uint64_t rate_bps;	/* the link's, for received quanta */
};

struct sw_engine {
	struct sw_config cfg;
	struct rte_lpm *fib;
	bool fib_owned;		/* false: shared with other engines */
	uint16_t route_group[SW_MAX_ROUTES + 1];
	uint32_t route_key[SW_MAX_ROUTES + 1];
	uint32_t hash_seed;
	unsigned int parse_flags;

	/* Groups: master copy (control), two snapshots (workers). */
	struct lb_group *master;
	uint16_t *base_weight;	/* [group * LB_MAX_MEMBERS + member] */
	struct lb_group *snap[2];
	volatile uint32_t gen;
	bool dirty;

	struct sw_port_state port[SW_MAX_PORTS];
	/* Ports whose link is stalled (port[].link == SW_LINK_STALL), for
	 * the workers' look once per burst (a stall that begins within a
	 * burst applies from the next, as any control change does). */
	volatile sw_portmask stalled;
	struct sw_port_ctl ctl[SW_MAX_PORTS];
	struct sw_event events[2 * SW_MAX_FAILURES + SW_MAX_REROUTES];
	uint16_t nb_events;
	int64_t sched_start_ns;	/* the schedule's time 0 (engine time) */

	/* One pending request from another thread (telemetry). */
	volatile uint32_t req_pending;
	uint16_t req_port;
	uint8_t req_mode;
	uint64_t req_rate;

	uint16_t nb_workers;
	struct sw_worker *workers;
	struct sw_pfc_cfg pfc[SW_MAX_PORTS];

	/* Where link changes are reported (sw_engine_set_log), or NULL. */
	sw_log_fn log;
	void *log_arg;
};

static size_t
sw_groups_size(const struct sw_engine *eng)
{
	return sizeof(struct lb_group) * (eng->cfg.nb_groups ? eng->cfg.nb_groups : 1);
}

/* Copy the master groups into snapshot gen & 1 and publish it. */
static inline void
sw_worker_sync(struct sw_worker *w)
{
	struct sw_engine *eng = w->eng;
	uint32_t gen = __atomic_load_n(&eng->gen, __ATOMIC_ACQUIRE);
	uint16_t i;

	if (likely(gen == w->groups_gen))
		return;
	memcpy(w->groups, eng->snap[gen & 1], sw_groups_size(eng));
	for (i = 0; i < eng->cfg.nb_groups; i++)
		if (eng->cfg.policy->group_changed != NULL)
			eng->cfg.policy->group_changed(w->lb_state,
						       &w->groups[i]);
	w->groups_gen = gen;
	__atomic_store_n(&w->acked_gen, gen, __ATOMIC_RELEASE);
}

/* PFC (sw_pfc.c), for the data path. */
void sw_pfc_init(struct sw_engine *eng);
int sw_pfc_worker_init(struct sw_worker *w);
void sw_pfc_worker_fini(struct sw_worker *w);
void sw_pfc_rx(struct sw_worker *w, uint16_t in_port, struct rte_mbuf *m,
	       const struct ofan_pkt_info *info, uint64_t now_ns);
void sw_pfc_queued(struct sw_worker *w, uint16_t in_port,
		   const struct sw_queue *q, uint64_t now_ns);
void sw_pfc_left(struct sw_worker *w, uint8_t in_port, uint32_t len);
uint16_t sw_pfc_peek(struct sw_worker *w, uint16_t port, uint64_t now_ns,
		     struct rte_mbuf **pkts, uint16_t max);
bool sw_pfc_commit(struct sw_worker *w, uint16_t port, uint16_t nb_sent);

/* Whether a frame of len bytes from in_port is beyond its headroom. */
static inline bool
sw_pfc_over(const struct sw_worker *w, uint16_t in_port, uint32_t len)
{
	return w->pfc[in_port].in_bytes + len > w->eng->pfc[in_port].limit;
}

#endif /* OFAN_SW_ENGINE_PRIV_H */
