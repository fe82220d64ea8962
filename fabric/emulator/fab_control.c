/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control plane of a fabric run (fab_sim.h): scheduled failures, their
 * detection, routing's reconvergence and restorations.  Control events
 * run on thread 0 between windows, alone (fab_sim.c's fab_coordinate).
 * down is the switch engine's own link state on the switch end(s) of the
 * link; a black hole is the wire's: both directions keep sending at the
 * link's rate from their queues and lose every frame on the way, as
 * htsim's drop-all queue does (so a queue towards the hole fills, marks
 * and is seen by adaptive routing like any other); after reconverge_delay
 * every switch's live-path weights are recomputed (fab_topo_weights).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fab_sim.h"
#include "sw_engine.h"

/* A control event at t (thread 0, between windows). */
void
fab_ctl_push(struct fab_ctl_queue *q, uint64_t t, uint32_t idx)
{
	if (q->nb < FAB_MAX_CTL)
		q->ev[q->nb++] = (struct fab_ctl){ .t = t, .idx = idx };
}

/* The earliest control event by (time, index); -1 if none. */
int
fab_ctl_next(const struct fab_ctl_queue *q)
{
	int i, best = -1;

	for (i = 0; i < q->nb; i++)
		if (best < 0 || q->ev[i].t < q->ev[best].t ||
		    (q->ev[i].t == q->ev[best].t &&
		     q->ev[i].idx < q->ev[best].idx))
			best = i;
	return best;
}

/* Take control event c (fab_ctl_next's) off the queue. */
struct fab_ctl
fab_ctl_take(struct fab_ctl_queue *q, int c)
{
	struct fab_ctl ev = q->ev[c];

	q->ev[c] = q->ev[--q->nb];
	return ev;
}

/* ---- failures and routing ---- */

static void
fab_set_weight(void *arg, uint32_t sw, uint16_t group, uint16_t port,
	       uint16_t weight)
{
	struct fab_sim *s = arg;

	if (s->net.sw[sw].eng != NULL)	/* else another rank's */
		sw_engine_set_weight(s->net.sw[sw].eng, group, port, weight);
}

/* Run a switch's control plane and let its worker adopt the result. */
static void
fab_sw_control(struct fab_sim *s, uint32_t sw, uint64_t now)
{
	struct fab_snode *n = &s->net.sw[sw];

	if (n->eng == NULL)
		return;	/* another rank's: it runs the same event there */
	sw_engine_control(n->eng, now);
	sw_worker_input(n->w, 0, NULL, 0, now);	/* adopt, acknowledge */
	sw_engine_control(n->eng, now);		/* publish what waited */
	sw_worker_input(n->w, 0, NULL, 0, now);
}

/* Routing uses link again: every switch's weights count its paths. */
static void
fab_route_back(struct fab_sim *s, uint32_t link, uint64_t now)
{
	uint32_t i;

	s->t->alive[link] = true;
	fab_topo_weights(s->t, fab_set_weight, s);
	for (i = 0; i < s->t->nb_switches; i++)
		fab_sw_control(s, i, now);
}

/*
 * A control event at now: every thread waits at the barrier, so this may
 * touch any switch of this rank (every rank runs the same events, each on
 * its own switches); frames it moves go through their owners' queues.
 */
uint32_t
fab_control(struct fab_sim *s, uint32_t idx, uint64_t now, uint32_t drain[2])
{
	uint32_t nb_drain = 0;
	const struct fab_failure *f = &s->p->failures[idx / FAB_CTL_PHASES];
	uint32_t link = fab_topo_find_link(s->t, f->link);
	const struct fab_link_desc *k = &s->t->links[link];
	enum fab_ctl_phase phase = (enum fab_ctl_phase)(idx % FAB_CTL_PHASES);
	uint32_t first = f->one_way ? fab_topo_find_dir(s->t, f->link) : 0;
	uint32_t i, e;

	switch (phase) {
	case FAB_CTL_FAIL:
	case FAB_CTL_RESTORE:
		for (e = 0; e < 2; e++) {
			struct fab_dir *dir = &s->net.dirs[link * 2 + e];

			if (f->one_way && link * 2 + e != first)
				continue;	/* the other way works */
			if (f->mode == FAB_FAIL_STALL) {
				/* The queue waits; on return it is served
				 * again (the caller starts it). */
				dir->stalled = phase == FAB_CTL_FAIL;
				if (!dir->stalled)
					drain[nb_drain++] = link * 2 + e;
				continue;
			}
			if (f->mode == SW_LINK_DEGRADED) {
				dir->rate_bps = phase == FAB_CTL_FAIL ?
					f->rate_bps : k->rate_bps;
				dir->last_len = 0;	/* times change */
				/* The sending switch's queue shrinks with it. */
				if (f->queue_permille != 1000 &&
				    !dir->from_host && dir->tx_local &&
				    s->net.sw[dir->from].eng != NULL)
					sw_engine_set_queue_scale(
						s->net.sw[dir->from].eng,
						dir->from_port,
						phase == FAB_CTL_FAIL ?
						f->queue_permille : 1000);
				continue;
			}
			if (f->mode == SW_LINK_BLACKHOLE) {
				/* Both ways, host end included; the ends'
				 * queues keep sending into it (htsim). */
				dir->hole = phase == FAB_CTL_FAIL;
				continue;
			}
			if (k->is_host[e] || s->net.sw[k->node[e]].eng == NULL)
				continue;	/* a host, or another rank's */
			sw_engine_set_link(s->net.sw[k->node[e]].eng, k->port[e],
				phase == FAB_CTL_FAIL ? f->mode : SW_LINK_UP,
				0, now);
			fab_sw_control(s, k->node[e], now);
			/* The caller drains (and so drops) a queue towards
			 * a dead link. */
			drain[nb_drain++] = link * 2 + e;
		}
		if (f->mode == SW_LINK_DEGRADED)
			break;
		if (phase == FAB_CTL_FAIL) {
			fab_ctl_push(&s->ctl, now + s->p->detect_delay_ns,
				     idx / FAB_CTL_PHASES * FAB_CTL_PHASES + FAB_CTL_TICK);
			if (f->reroute)
				fab_ctl_push(&s->ctl, now + s->p->reconverge_delay_ns,
					     idx / FAB_CTL_PHASES * FAB_CTL_PHASES +
					     FAB_CTL_ROUTE);
		} else {
			if (f->route_back_ns != 0)
				fab_ctl_push(&s->ctl, now + f->route_back_ns,
					     idx / FAB_CTL_PHASES * FAB_CTL_PHASES +
					     FAB_CTL_ROUTE_BACK);
			else
				fab_route_back(s, link, now);
			fab_ctl_push(&s->ctl, now + s->p->detect_delay_ns,
				     idx / FAB_CTL_PHASES * FAB_CTL_PHASES + FAB_CTL_TICK);
		}
		break;
	case FAB_CTL_ROUTE_BACK:
		fab_route_back(s, link, now);
		break;
	case FAB_CTL_TICK:
		for (e = 0; e < 2; e++)
			if (!k->is_host[e])
				fab_sw_control(s, k->node[e], now);
		break;
	case FAB_CTL_ROUTE:
		if (f->duration_ns != 0 &&
		    now >= s->loop.t0 + f->at_ns + f->duration_ns)
			break;	/* restored before routing converged */
		s->t->alive[link] = false;
		fab_topo_weights(s->t, fab_set_weight, s);
		for (i = 0; i < s->t->nb_switches; i++)
			fab_sw_control(s, i, now);
		break;
	}
	return nb_drain;
}

/*
 * Links gone before the traffic starts (a .cm file's failure lines, which
 * htsim applies by removing the link): down at their switch ends, and
 * routing converged around them, at t0.
 */
void
fab_fail_at_start(struct fab_sim *s)
{
	uint32_t i, e, any = 0;

	for (i = 0; i < s->p->nb_failures; i++) {
		const struct fab_failure *f = &s->p->failures[i];
		uint32_t link;
		const struct fab_link_desc *k;

		if (!f->at_start)
			continue;
		link = fab_topo_find_link(s->t, f->link);
		k = &s->t->links[link];
		for (e = 0; e < 2; e++)
			if (!k->is_host[e] && s->net.sw[k->node[e]].eng != NULL)
				sw_engine_set_link(s->net.sw[k->node[e]].eng,
						   k->port[e], SW_LINK_DOWN, 0,
						   s->loop.t0);
		s->t->alive[link] = false;
		any++;
	}
	if (any == 0)
		return;
	fab_topo_weights(s->t, fab_set_weight, s);
	for (i = 0; i < s->t->nb_switches; i++)
		fab_sw_control(s, i, s->loop.t0);
}

