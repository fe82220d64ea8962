/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One run of ofan-fabric: a discrete-event loop in virtual nanoseconds.
 *
 * Every link direction is an emulated port (DESIGN section 2): a serialiser
 * that sends one frame at a time at the link rate (frame + 24 bytes of
 * preamble, SFD, FCS and gap, rounded up to the nanosecond per frame, as
 * the switch's shaper and the host's pacer count), then a wire that
 * delivers each frame `delay` after its last bit left (store and forward:
 * a switch sees a frame once it has arrived completely).  A switch port's
 * serialiser drains the switch engine's egress queue (sw_worker_tx_peek /
 * commit), a host's drains its NIC queue, fed by hs_host_output().
 *
 * Events, in a queue ordered by (time, kind, node or link) so a run is
 * reproducible to the byte (fab_evq.h):
 *   ARRIVE  the head frame of a wire reached its far end;
 *   TX      a serialiser became free and its queue is not empty;
 *   HOST    a host's next event (pacing slot, timer, flow start);
 *   CTL     a scheduled failure, its detection, routing's reconvergence,
 *           or a restoration.
 * An idle serialiser starts at once when a frame is queued; a wire keeps
 * one ARRIVE queued, for its head (the delay is constant, so a wire is a
 * FIFO).  So a frame costs about two events per hop.
 *
 * Threads ([fabric] threads): the fabric is cut into parts (pods, or
 * groups of leaves and spines), one per thread, each with its own event
 * queue.  Time advances in windows no longer than the lookahead, a link's
 * delay plus the shortest frame's serialisation: a frame sent over a link
 * between two parts in one window cannot arrive before the next, so the
 * threads run a window independently, then meet at a barrier; frames that
 * crossed are handed over (in link order) at the start of the next window,
 * and the control plane (failures, routing) runs at window ends, alone.
 * Because the event order is canonical (fab_evq.h) and windows are the
 * same for any thread count, the results do not depend on it: a run on
 * two threads is byte-identical to the same run on one.
 *
 * Failures: down and blackhole are the switch engine's own link states on
 * the switch end(s) of the link (the engine drops and counts what it sends
 * into or receives from a failed port; a down port leaves its own groups
 * after detect_delay); after reconverge_delay the fabric recomputes every
 * switch's live-path weights (fab_topo_weights) -- the routing protocol
 * converging.  degraded is the link's rate, so it stays exact here.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include "fab.h"
#include "fab_evq.h"
#include "hs_host.h"
#include "hs_results.h"
#include "ofan_clock.h"
#include "ofan_wire.h"
#include "sw_engine.h"

#define FAB_BURST 32
#define FAB_T0_NS 1000			/* the traffic starts here */
#define FAB_CTL_PHASES 8		/* control event index: failure * 8 + phase */
#define FAB_MAX_CTL (4 * FAB_MAX_FAILURES)
#define FAB_EV_SHIFT 28			/* event `what`: kind << 28 | index */
#define FAB_EV_INDEX(what) ((what) & ((1u << FAB_EV_SHIFT) - 1))
#define FAB_EV_KIND(what) ((what) >> FAB_EV_SHIFT)

/*
 * Kinds of events, in the order simultaneous events run (fab_evq.h): the
 * control plane first (as a barrier does in a split run), then arrivals
 * (a frame is queued before a serialiser that frees up at the same
 * instant picks the next one), then serialisers, then hosts.
 */
enum fab_ev_type { FAB_EV_CTL = 0, FAB_EV_ARRIVE, FAB_EV_TX, FAB_EV_HOST };

/* Control phases of a failure (index = failure * FAB_CTL_PHASES + phase). */
enum fab_ctl_phase {
	FAB_CTL_FAIL = 0,	/* the link fails */
	FAB_CTL_TICK,		/* switch control planes act (detection) */
	FAB_CTL_ROUTE,		/* routing reconverged: new weights */
	FAB_CTL_RESTORE,	/* the link comes back */
};


/* Frames in order, each with a time (due, for a wire). */
struct fab_slot {
	struct rte_mbuf *m;
	uint64_t t;
};

struct fab_fifo {
	struct fab_slot *e;
	uint32_t head, tail, mask;
};

/*
 * One direction of a link, the sender's side: the egress at one end and
 * its serialiser.  Written only by the thread that owns the sender.
 */
struct fab_dir {
	uint64_t busy_until;	/* the serialiser is free from then */
	uint64_t rate_bps;
	uint64_t delay_ns;
	struct fab_fifo nic;	/* host egress only */
	struct fab_fifo out[2];	/* to another thread, by window parity */
	uint32_t from;		/* host rank or switch index */
	uint16_t from_port;
	uint8_t from_host;
	uint8_t tx_pending;
	uint8_t layer;
	uint8_t cross;		/* the receiver is another thread's */
	uint8_t tx_owner, rx_owner;	/* threads */
	uint32_t win;		/* current queue window and its maximum */
	uint32_t win_max;
	uint32_t last_len;	/* the last frame's length and time: most */
	uint64_t last_ser;	/* frames are full data frames or ACKs */
} __rte_cache_aligned;

/* The receiver's side: the wire's far end.  Its owner's only. */
struct fab_rx {
	struct fab_fifo wire;
	uint32_t to;		/* host rank or switch index */
	uint16_t to_port;
	uint8_t to_host;
	uint8_t rx_pending;
} __rte_cache_aligned;

struct fab_hnode {
	struct hs_host *h;
	uint32_t dir;
	uint64_t wake_at;	/* the pending HOST event, UINT64_MAX: none */
	bool done;
};

struct fab_snode {
	struct sw_engine *eng;
	struct sw_worker *w;
	uint16_t nb_ports;
	uint32_t dir[SW_MAX_PORTS];
};

struct fab_sim;

/* One thread's part of the run. */
struct fab_thr {
	struct fab_sim *s;
	uint16_t id;
	unsigned int lcore;
	struct fab_evq *q;
	uint64_t now;
	uint32_t nb_net_ev;	/* ARRIVE and TX events queued */
	bool failed;		/* out of memory for an event */
	uint32_t win;		/* queue window of now ... */
	uint64_t win_end;	/* ... which ends here */
	uint64_t injected, delivered, hops, events, lost;
	uint32_t nb_hosts_done;
	uint64_t last_done_ns;	/* when its last host finished */
	struct fab_qwin *qwin;
	uint32_t nb_qwin, qwin_cap;
	uint32_t *in_dirs;	/* links from other threads into this one */
	uint32_t nb_in;
} __rte_cache_aligned;

struct fab_barrier {
	uint32_t n;
	volatile uint32_t count;
	volatile uint32_t gen;
};

/* A control event (failure phases), run at a window's end. */
struct fab_ctl {
	uint64_t t;
	uint32_t idx;
};

struct fab_sim {
	const struct fab_params *p;
	struct fab_topo *t;
	struct fab_run *r;
	struct hs_config hcfg;
	struct hs_traffic traffic;
	struct rte_mempool *pool;
	struct rte_lpm *fib;
	uint64_t t0;
	uint64_t limit;		/* events before this run: time_limit + 1 */
	uint64_t lookahead;
	/* Windows, set by thread 0 between barriers. */
	struct fab_barrier bar;
	uint64_t w_end;
	uint32_t w_index;
	bool stop;
	uint64_t done_ns;
	uint16_t nb_ctl;
	struct fab_ctl ctl[FAB_MAX_CTL];
	/* Nodes. */
	uint32_t nb_dirs;
	struct fab_dir *dirs;
	struct fab_rx *rx;
	struct fab_hnode *hosts;
	struct fab_snode *sw;
	uint8_t *sw_owner;
	uint8_t *host_owner;
	uint16_t nb_thr;
	struct fab_thr thr[FAB_MAX_THREADS];
	bool quiet;
	const volatile int *interrupt;
	const char *scheme;
	struct timespec wall0, wall_last;
};

/* ---- events ---- */

static inline void
fab_push(struct fab_thr *th, uint64_t t, enum fab_ev_type type,
	 uint32_t idx)
{
	if (type == FAB_EV_ARRIVE || type == FAB_EV_TX)
		th->nb_net_ev++;
	if (unlikely(fab_evq_push(th->q, t, (uint32_t)type << FAB_EV_SHIFT | idx) != 0))
		th->failed = true;
}

static inline struct fab_ev
fab_pop(struct fab_thr *th)
{
	struct fab_ev ev = fab_evq_pop(th->q);

	if (FAB_EV_KIND(ev.what) == FAB_EV_ARRIVE ||
	    FAB_EV_KIND(ev.what) == FAB_EV_TX)
		th->nb_net_ev--;
	return ev;
}

/* A control event at t (thread 0, between windows). */
static void
fab_ctl_push(struct fab_sim *s, uint64_t t, uint32_t idx)
{
	if (s->nb_ctl < FAB_MAX_CTL)
		s->ctl[s->nb_ctl++] = (struct fab_ctl){ .t = t, .idx = idx };
}

/* The earliest control event by (time, index); -1 if none. */
static int
fab_ctl_next(const struct fab_sim *s)
{
	int i, best = -1;

	for (i = 0; i < s->nb_ctl; i++)
		if (best < 0 || s->ctl[i].t < s->ctl[best].t ||
		    (s->ctl[i].t == s->ctl[best].t &&
		     s->ctl[i].idx < s->ctl[best].idx))
			best = i;
	return best;
}

/* ---- FIFOs ---- */

static inline uint32_t
fab_fifo_len(const struct fab_fifo *f)
{
	return f->tail - f->head;
}

static int
fab_fifo_push(struct fab_fifo *f, struct rte_mbuf *m, uint64_t t)
{
	if (f->e == NULL || fab_fifo_len(f) == f->mask + 1) {
		uint32_t cap = f->e == NULL ? 64 : 2 * (f->mask + 1), i;
		struct fab_slot *ne = malloc(cap * sizeof(*ne));

		if (ne == NULL)
			return -ENOMEM;
		for (i = 0; i < fab_fifo_len(f); i++)
			ne[i] = f->e[(f->head + i) & f->mask];
		f->tail = fab_fifo_len(f);
		f->head = 0;
		free(f->e);
		f->e = ne;
		f->mask = cap - 1;
	}
	f->e[f->tail & f->mask] = (struct fab_slot){ .m = m, .t = t };
	f->tail++;
	return 0;
}

/* Free what is left (counted by the caller) and the storage. */
static uint32_t
fab_fifo_free(struct fab_fifo *f)
{
	uint32_t n = 0;

	while (f->head != f->tail) {
		rte_pktmbuf_free(f->e[f->head++ & f->mask].m);
		n++;
	}
	free(f->e);
	memset(f, 0, sizeof(*f));
	return n;
}

/* ---- queue windows ---- */

static void
fab_qwin_flush(struct fab_thr *th, uint32_t d)
{
	struct fab_dir *dir = &th->s->dirs[d];

	if (dir->win_max == 0)
		return;
	if (th->nb_qwin == th->qwin_cap) {
		uint32_t cap = th->qwin_cap ? 2 * th->qwin_cap : 4096;
		struct fab_qwin *q = realloc(th->qwin, cap * sizeof(*q));

		if (q == NULL)
			return;	/* the windows are incomplete, not wrong */
		th->qwin = q;
		th->qwin_cap = cap;
	}
	th->qwin[th->nb_qwin++] = (struct fab_qwin){
		.window = dir->win, .link = d / 2, .end = (uint8_t)(d & 1),
		.max_pkts = dir->win_max,
	};
	dir->win_max = 0;
}

static inline void
fab_qwin_note(struct fab_thr *th, uint32_t d, uint32_t len)
{
	struct fab_sim *s = th->s;
	struct fab_dir *dir = &s->dirs[d];
	uint32_t w;

	if (unlikely(th->now >= th->win_end)) {
		th->win = (uint32_t)((th->now - s->t0) /
				     s->p->queue_window_ns);
		th->win_end = s->t0 + (uint64_t)(th->win + 1) *
			s->p->queue_window_ns;
	}
	w = th->win;
	if (w != dir->win) {
		fab_qwin_flush(th, d);
		dir->win = w;
	}
	if (len > dir->win_max)
		dir->win_max = len;
}

/* ---- serialisers and wires ---- */

/* Put m on dir's wire now; it occupies the serialiser for its frame. */
static void
fab_wire_send(struct fab_thr *th, uint32_t d, struct rte_mbuf *m)
{
	struct fab_sim *s = th->s;
	struct fab_dir *dir = &s->dirs[d];
	struct fab_rx *rx;
	uint64_t ser, due;

	if (m->pkt_len != dir->last_len) {
		dir->last_len = m->pkt_len;
		dir->last_ser = ofan_tx_time_ns(m->pkt_len + FAB_WIRE_OVERHEAD,
						dir->rate_bps);
	}
	ser = dir->last_ser;
	due = th->now + ser + dir->delay_ns;
	dir->busy_until = th->now + ser;
	th->hops++;
	if (dir->cross) {
		/* Another thread's: handed over at the next window. */
		if (fab_fifo_push(&dir->out[s->w_index & 1], m, due) != 0) {
			rte_pktmbuf_free(m);
			th->lost++;
		}
		return;
	}
	rx = &s->rx[d];
	if (fab_fifo_push(&rx->wire, m, due) != 0) {
		rte_pktmbuf_free(m);	/* out of memory: counted lost */
		th->lost++;
		return;
	}
	if (!rx->rx_pending) {
		rx->rx_pending = 1;
		fab_push(th, due, FAB_EV_ARRIVE, d);
	}
}

/* Start the next frame of a switch port if its serialiser is free. */
static void
fab_sw_tx(struct fab_thr *th, uint32_t d)
{
	struct fab_dir *dir = &th->s->dirs[d];
	struct sw_worker *w = th->s->sw[dir->from].w;
	struct rte_mbuf *m;
	uint32_t len = w->port_len[dir->from_port];

	if (len == 0 || dir->tx_pending)
		return;
	if (dir->busy_until > th->now) {
		dir->tx_pending = 1;
		fab_push(th, dir->busy_until, FAB_EV_TX, d);
		return;
	}
	fab_qwin_note(th, d, len);
	if (sw_worker_tx_peek(w, dir->from_port, th->now, &m, 1) != 1)
		return;	/* a failed link: the engine dropped its queue */
	sw_worker_tx_commit(w, dir->from_port, th->now, &m, 1, 1);
	fab_wire_send(th, d, m);
	if (w->port_len[dir->from_port] > 0) {
		dir->tx_pending = 1;
		fab_push(th, dir->busy_until, FAB_EV_TX, d);
	}
}

/* Start the next frame of a host's NIC if its serialiser is free. */
static void
fab_host_tx(struct fab_thr *th, uint32_t d)
{
	struct fab_dir *dir = &th->s->dirs[d];
	struct fab_fifo *nic = &dir->nic;

	if (fab_fifo_len(nic) == 0 || dir->tx_pending)
		return;
	if (dir->busy_until > th->now) {
		dir->tx_pending = 1;
		fab_push(th, dir->busy_until, FAB_EV_TX, d);
		return;
	}
	fab_wire_send(th, d, nic->e[nic->head++ & nic->mask].m);
	if (fab_fifo_len(nic) > 0) {
		dir->tx_pending = 1;
		fab_push(th, dir->busy_until, FAB_EV_TX, d);
	}
}

/* Let the host send what is due and book its next event. */
static void
fab_host_kick(struct fab_thr *th, uint32_t rank)
{
	struct fab_hnode *hn = &th->s->hosts[rank];
	struct fab_dir *dir = &th->s->dirs[hn->dir];
	struct rte_mbuf *pkts[FAB_BURST];
	uint64_t next;
	uint16_t n, i;

	do {
		n = hs_host_output(hn->h, th->now, pkts, FAB_BURST);
		for (i = 0; i < n; i++) {
			if (fab_fifo_push(&dir->nic, pkts[i], th->now) != 0) {
				rte_pktmbuf_free(pkts[i]);
				th->lost++;
			}
		}
		th->injected += n;
	} while (n == FAB_BURST);
	fab_host_tx(th, hn->dir);
	next = hs_host_next_event(hn->h);
	if (next == UINT64_MAX)
		return;
	if (next <= th->now)
		next = th->now + 1;	/* output stopped short (no mbuf) */
	if (next < hn->wake_at) {
		hn->wake_at = next;
		fab_push(th, next, FAB_EV_HOST, rank);
	}
}

static void
fab_host_check_done(struct fab_thr *th, uint32_t rank)
{
	struct fab_hnode *hn = &th->s->hosts[rank];

	if (!hn->done && hs_host_tx_done(hn->h) && hs_host_rx_done(hn->h)) {
		hn->done = true;
		th->nb_hosts_done++;
		th->last_done_ns = RTE_MAX(th->last_done_ns, th->now);
	}
}

/* Deliver what has reached the end of wire d by now. */
static void
fab_arrive(struct fab_thr *th, uint32_t d)
{
	struct fab_sim *s = th->s;
	struct fab_rx *rx = &s->rx[d];
	struct fab_fifo *wire = &rx->wire;
	struct rte_mbuf *pkts[FAB_BURST];
	uint16_t n = 0, p;

	rx->rx_pending = 0;
	while (n < FAB_BURST && wire->head != wire->tail &&
	       wire->e[wire->head & wire->mask].t <= th->now)
		pkts[n++] = wire->e[wire->head++ & wire->mask].m;
	if (wire->head != wire->tail) {
		rx->rx_pending = 1;
		fab_push(th, wire->e[wire->head & wire->mask].t,
			 FAB_EV_ARRIVE, d);
	}
	if (rx->to_host) {
		th->delivered += n;
		hs_host_input(s->hosts[rx->to].h, pkts, n, th->now);
		fab_host_kick(th, rx->to);
		fab_host_check_done(th, rx->to);
		return;
	}
	{
		struct fab_snode *sw = &s->sw[rx->to];
		uint32_t before[SW_MAX_PORTS];

		/* Only the queues the burst went to need a look. */
		memcpy(before, sw->w->port_len, sw->nb_ports * sizeof(before[0]));
		sw_worker_input(sw->w, rx->to_port, pkts, n, th->now);
		for (p = 0; p < sw->nb_ports; p++) {
			uint32_t len = sw->w->port_len[p];

			if (len == before[p])
				continue;
			fab_qwin_note(th, sw->dir[p], len);
			if (!s->dirs[sw->dir[p]].tx_pending)
				fab_sw_tx(th, sw->dir[p]);
		}
	}
}

/* Take over the frames other threads sent to us in window `parity`. */
static void
fab_drain(struct fab_thr *th, uint32_t parity)
{
	struct fab_sim *s = th->s;
	uint32_t i;

	for (i = 0; i < th->nb_in; i++) {
		uint32_t d = th->in_dirs[i];
		struct fab_fifo *out = &s->dirs[d].out[parity];
		struct fab_rx *rx = &s->rx[d];

		if (out->head == out->tail)
			continue;
		while (out->head != out->tail) {
			struct fab_slot e = out->e[out->head++ & out->mask];

			if (fab_fifo_push(&rx->wire, e.m, e.t) != 0) {
				rte_pktmbuf_free(e.m);
				th->lost++;
			}
		}
		if (!rx->rx_pending && rx->wire.head != rx->wire.tail) {
			rx->rx_pending = 1;
			fab_push(th, rx->wire.e[rx->wire.head & rx->wire.mask].t,
				 FAB_EV_ARRIVE, d);
		}
	}
}

/* ---- failures and routing ---- */

static void
fab_set_weight(void *arg, uint32_t sw, uint16_t group, uint16_t port,
	       uint16_t weight)
{
	struct fab_sim *s = arg;

	sw_engine_set_weight(s->sw[sw].eng, group, port, weight);
}

/* Run a switch's control plane and let its worker adopt the result. */
static void
fab_sw_control(struct fab_sim *s, uint32_t sw, uint64_t now)
{
	struct fab_snode *n = &s->sw[sw];

	sw_engine_control(n->eng, now);
	sw_worker_input(n->w, 0, NULL, 0, now);	/* adopt, acknowledge */
	sw_engine_control(n->eng, now);		/* publish what waited */
	sw_worker_input(n->w, 0, NULL, 0, now);
}

/*
 * A control event at now: every thread waits at the barrier, so this may
 * touch any switch; frames it moves go through their owners' queues.
 */
static void
fab_control(struct fab_sim *s, uint32_t idx, uint64_t now)
{
	const struct fab_failure *f = &s->p->failures[idx / FAB_CTL_PHASES];
	uint32_t link = fab_topo_find_link(s->t, f->link);
	const struct fab_link_desc *k = &s->t->links[link];
	enum fab_ctl_phase phase = (enum fab_ctl_phase)(idx % FAB_CTL_PHASES);
	uint32_t i, e;

	switch (phase) {
	case FAB_CTL_FAIL:
	case FAB_CTL_RESTORE:
		for (e = 0; e < 2; e++) {
			struct fab_dir *dir = &s->dirs[link * 2 + e];

			if (f->mode == SW_LINK_DEGRADED) {
				dir->rate_bps = phase == FAB_CTL_FAIL ?
					f->rate_bps : k->rate_bps;
				dir->last_len = 0;	/* times change */
				continue;
			}
			if (k->is_host[e])
				continue;
			sw_engine_set_link(s->sw[k->node[e]].eng, k->port[e],
				phase == FAB_CTL_FAIL ? f->mode : SW_LINK_UP,
				0, now);
			fab_sw_control(s, k->node[e], now);
			/* Drain (and so drop) a queue towards a dead link. */
			fab_sw_tx(&s->thr[s->dirs[link * 2 + e].tx_owner],
				  link * 2 + e);
		}
		if (f->mode == SW_LINK_DEGRADED)
			break;
		if (phase == FAB_CTL_FAIL) {
			fab_ctl_push(s, now + s->p->detect_delay_ns,
				     idx / FAB_CTL_PHASES * FAB_CTL_PHASES + FAB_CTL_TICK);
			fab_ctl_push(s, now + s->p->reconverge_delay_ns,
				     idx / FAB_CTL_PHASES * FAB_CTL_PHASES + FAB_CTL_ROUTE);
		} else {
			s->t->alive[link] = true;
			fab_topo_weights(s->t, fab_set_weight, s);
			for (i = 0; i < s->t->nb_switches; i++)
				fab_sw_control(s, i, now);
			fab_ctl_push(s, now + s->p->detect_delay_ns,
				     idx / FAB_CTL_PHASES * FAB_CTL_PHASES + FAB_CTL_TICK);
		}
		break;
	case FAB_CTL_TICK:
		for (e = 0; e < 2; e++)
			if (!k->is_host[e])
				fab_sw_control(s, k->node[e], now);
		break;
	case FAB_CTL_ROUTE:
		if (f->duration_ns != 0 &&
		    now >= s->t0 + f->at_ns + f->duration_ns)
			break;	/* restored before routing converged */
		s->t->alive[link] = false;
		fab_topo_weights(s->t, fab_set_weight, s);
		for (i = 0; i < s->t->nb_switches; i++)
			fab_sw_control(s, i, now);
		break;
	}
}

/* ---- set-up and tear-down ---- */

uint64_t
fab_oneway_ns(const struct fab_params *p, uint32_t hops)
{
	return fab_oneway_frame_ns(p, hops, OFAN_ETH_HDR_SIZE + p->host.mtu);
}

uint64_t
fab_oneway_frame_ns(const struct fab_params *p, uint32_t hops,
		    uint64_t frame_size)
{
	uint64_t frame = RTE_MAX(frame_size, (uint64_t)60) + FAB_WIRE_OVERHEAD;

	if (hops < 2)
		return hops * p->delay_ns;
	return hops * p->delay_ns + ofan_tx_time_ns(frame, p->rate_bps) +
		(hops - 2) * ofan_tx_time_ns(frame, p->uplink_rate_bps);
}

uint64_t
fab_ack_back_ns(const struct fab_params *p, uint32_t hops)
{
	uint64_t frame = RTE_MAX(OFAN_ACK_FRAME_SIZE, 60) + FAB_WIRE_OVERHEAD;
	uint32_t host_links = hops < 2 ? hops : 2;

	return hops * p->delay_ns +
		host_links * ofan_tx_time_ns(frame, p->rate_bps) +
		(hops - host_links) * ofan_tx_time_ns(frame, p->uplink_rate_bps);
}

uint32_t
fab_pool_size(const struct fab_params *p)
{
	uint64_t ports, links, hosts, n;
	uint64_t frame = OFAN_ETH_HDR_SIZE + p->host.mtu + FAB_WIRE_OVERHEAD;
	uint64_t per_wire;

	switch (p->topo) {
	case FAB_TOPO_FATTREE:
		hosts = (uint64_t)p->k * p->k * p->k / 4;
		ports = hosts * 5;	/* ToR, agg, core: 2 + 2 + 1 per host */
		links = hosts * 3;
		break;
	case FAB_TOPO_LEAFSPINE:
		hosts = (uint64_t)p->leaves * p->hosts_per_leaf;
		links = hosts + (uint64_t)p->leaves * p->spines;
		ports = hosts + 2ull * p->leaves * p->spines;
		break;
	default:
		hosts = 2;
		links = 1;
		ports = 0;
		break;
	}
	/* Full frames in flight on a wire, twice over, plus ACKs. */
	per_wire = 2 * (uint64_t)((double)p->delay_ns *
		(double)RTE_MAX(p->rate_bps, p->uplink_rate_bps) / 8e9 /
		(double)frame + 2) + 16;
	n = ports * p->queue.capacity_pkts + links * 2 * per_wire +
		hosts * 256 + 4096;
	return (uint32_t)RTE_MIN(n, (uint64_t)(1u << 22));
}

/*
 * Which thread owns each node: whole pods (fat tree) or groups of leaves
 * (leaf-spine) with their hosts, and an even share of the cores/spines.
 */
static void
fab_partition(struct fab_sim *s)
{
	const struct fab_topo *t = s->t;
	uint32_t n = s->nb_thr, i, nb_top = 0, nb_low = 0;

	for (i = 0; i < t->nb_switches; i++) {
		if (t->sw[i].role == FAB_ROLE_CORE)
			nb_top++;
		else
			nb_low = RTE_MAX(nb_low, t->sw[i].pod + 1);
	}
	for (i = 0; i < t->nb_switches; i++) {
		const struct fab_switch_desc *d = &t->sw[i];

		s->sw_owner[i] = (uint8_t)(d->role == FAB_ROLE_CORE ?
			d->index * n / RTE_MAX(nb_top, 1u) :
			d->pod * n / RTE_MAX(nb_low, 1u));
	}
	for (i = 0; i < t->nb_hosts; i++)
		s->host_owner[i] = t->host_tor[i] == FAB_NONE ? 0 :
			s->sw_owner[t->host_tor[i]];
}

static void
fab_sim_free(struct fab_sim *s)
{
	uint32_t i, k;

	for (i = 0; i < s->nb_dirs && s->dirs != NULL; i++) {
		s->r->queued_end += fab_fifo_free(&s->dirs[i].nic);
		for (k = 0; k < 2; k++)
			s->r->queued_end += fab_fifo_free(&s->dirs[i].out[k]);
	}
	for (i = 0; i < s->nb_dirs && s->rx != NULL; i++)
		s->r->queued_end += fab_fifo_free(&s->rx[i].wire);
	for (i = 0; i < s->t->nb_switches && s->sw != NULL; i++) {
		if (s->sw[i].eng == NULL)
			continue;
		s->r->queued_end += sw_engine_free_queues(s->sw[i].eng);
		sw_engine_free(s->sw[i].eng);
	}
	for (i = 0; i < s->t->nb_hosts && s->hosts != NULL; i++)
		hs_host_free(s->hosts[i].h);
	if (s->fib != NULL)
		sw_fib_free(s->fib);
	hs_traffic_free(&s->traffic);
	for (k = 0; k < s->nb_thr; k++) {
		struct fab_thr *th = &s->thr[k];

		if (th->q != NULL)
			fab_evq_fini(th->q);
		free(th->q);
		free(th->qwin);
		free(th->in_dirs);
	}
	rte_free(s->dirs);
	rte_free(s->rx);
	free(s->hosts);
	free(s->sw);
	free(s->sw_owner);
	free(s->host_owner);
}

static int
fab_sim_build(struct fab_sim *s, uint16_t scheme, char *err,
	      unsigned int err_size)
{
	const struct fab_params *p = s->p;
	struct fab_topo *t = s->t;
	uint32_t i, l, e, hops_max = 0;
	uint8_t macs[SW_MAX_PORTS][6];

	/* The hosts' configuration: the scheme's policy, the fabric's RTT. */
	s->hcfg = p->host;
	s->hcfg.path = "ofan-fabric";
	s->hcfg.policy = p->schemes[scheme].host_policy;
	s->hcfg.stats_interval_ns = 0;
	for (i = 0; i < (uint32_t)t->nb_hosts * t->nb_hosts; i++)
		hops_max = RTE_MAX(hops_max, (uint32_t)t->hops[i]);
	if (!p->base_rtt_set)
		s->hcfg.base_rtt_ns = fab_oneway_ns(p, hops_max) +
			ofan_tx_time_ns(OFAN_ETH_HDR_SIZE + p->host.mtu +
					FAB_WIRE_OVERHEAD, p->rate_bps) +
			fab_ack_back_ns(p, hops_max);
	hs_config_derive(&s->hcfg);
	if (hs_traffic_build(&s->hcfg.traffic, &s->traffic, err,
			     err_size) != 0)
		return -EINVAL;

	s->nb_dirs = 2 * t->nb_links;
	s->dirs = rte_zmalloc_socket("fab_dirs", s->nb_dirs * sizeof(*s->dirs),
				     RTE_CACHE_LINE_SIZE, SOCKET_ID_ANY);
	s->rx = rte_zmalloc_socket("fab_rx", s->nb_dirs * sizeof(*s->rx),
				   RTE_CACHE_LINE_SIZE, SOCKET_ID_ANY);
	s->hosts = calloc(t->nb_hosts, sizeof(*s->hosts));
	s->sw = calloc(t->nb_switches + 1, sizeof(*s->sw));
	s->sw_owner = calloc(t->nb_switches + 1, 1);
	s->host_owner = calloc(t->nb_hosts, 1);
	if (s->dirs == NULL || s->rx == NULL || s->hosts == NULL ||
	    s->sw == NULL || s->sw_owner == NULL || s->host_owner == NULL) {
		snprintf(err, err_size, "out of memory for the fabric");
		return -ENOMEM;
	}
	fab_partition(s);
	for (i = 0; i < s->nb_thr; i++) {
		struct fab_thr *th = &s->thr[i];

		th->s = s;
		th->id = (uint16_t)i;
		th->q = malloc(sizeof(*th->q));
		th->in_dirs = calloc(s->nb_dirs, sizeof(*th->in_dirs));
		if (th->q == NULL || th->in_dirs == NULL) {
			snprintf(err, err_size, "out of memory for the event queues");
			return -ENOMEM;
		}
		fab_evq_init(th->q, s->t0);
		th->now = s->t0;
	}
	for (l = 0; l < t->nb_links; l++) {
		const struct fab_link_desc *k = &t->links[l];

		for (e = 0; e < 2; e++) {
			uint32_t id = 2 * l + e;
			struct fab_dir *d = &s->dirs[id];
			struct fab_rx *rx = &s->rx[id];

			d->rate_bps = k->rate_bps;
			d->delay_ns = p->delay_ns;
			d->from = k->node[e];
			d->from_port = k->port[e];
			d->from_host = k->is_host[e];
			d->layer = k->layer[e];
			d->win = UINT32_MAX;
			rx->to = k->node[1 - e];
			rx->to_port = k->port[1 - e];
			rx->to_host = k->is_host[1 - e];
			d->tx_owner = d->from_host ? s->host_owner[d->from] :
				s->sw_owner[d->from];
			d->rx_owner = rx->to_host ? s->host_owner[rx->to] :
				s->sw_owner[rx->to];
			d->cross = d->tx_owner != d->rx_owner;
			if (d->cross) {
				struct fab_thr *th = &s->thr[d->rx_owner];

				th->in_dirs[th->nb_in++] = id;
			}
			if (d->from_host)
				s->hosts[d->from].dir = id;
			else
				s->sw[d->from].dir[d->from_port] = id;
		}
	}

	/* Switches: one shared FIB, one worker each. */
	if (t->nb_switches > 0) {
		s->fib = sw_fib_create(&t->cfg[0], SOCKET_ID_ANY, err,
				       err_size);
		if (s->fib == NULL)
			return -ENOMEM;
	}
	for (i = 0; i < t->nb_switches; i++) {
		const struct sw_config *c = &t->cfg[i];
		uint16_t port;

		for (port = 0; port < c->nb_ports; port++)
			memcpy(macs[port], c->ports[port].mac, 6);
		s->sw[i].eng = sw_engine_create_shared(c, 1,
			(const uint8_t (*)[6])macs, SOCKET_ID_ANY, s->fib,
			err, err_size);
		if (s->sw[i].eng == NULL)
			return -ENOMEM;
		s->sw[i].w = sw_engine_worker(s->sw[i].eng, 0);
		s->sw[i].nb_ports = c->nb_ports;
	}

	/* Hosts. */
	for (i = 0; i < t->nb_hosts; i++) {
		const struct fab_link_desc *k = &t->links[t->host_link[i]];
		struct hs_host_params hp = {
			.cfg = &s->hcfg,
			.traffic = &s->traffic,
			.rank = i,
			.pool = s->pool,
			.no_announce = true,
		};

		hp.mac[0] = 0x02;
		hp.mac[1] = 0x01;
		hp.mac[2] = (uint8_t)(i >> 16);
		hp.mac[3] = (uint8_t)(i >> 8);
		hp.mac[4] = (uint8_t)i;
		if (t->kind == FAB_TOPO_B2B) {
			memcpy(hp.dst_mac, hp.mac, 6);
			hp.dst_mac[4] = (uint8_t)(1 - i);
		} else {
			memcpy(hp.dst_mac, t->cfg[k->node[1]].ports[k->port[1]].mac,
			       6);
		}
		s->hosts[i].h = hs_host_create(&hp, err, err_size);
		if (s->hosts[i].h == NULL)
			return -ENOMEM;
		s->hosts[i].wake_at = UINT64_MAX;
	}
	return 0;
}

/* ---- results ---- */

static int
fab_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
fab_cmp_qwin(const void *a, const void *b)
{
	const struct fab_qwin *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return (int)x->end - (int)y->end;
}

/* Every thread's queue windows, in one canonical order. */
static void
fab_collect_qwin(struct fab_sim *s)
{
	struct fab_run *r = s->r;
	uint32_t n = 0, i;

	for (i = 0; i < s->nb_thr; i++)
		n += s->thr[i].nb_qwin;
	r->qwin = malloc((n + 1) * sizeof(*r->qwin));
	if (r->qwin == NULL)
		return;
	for (i = 0; i < s->nb_thr; i++) {
		memcpy(&r->qwin[r->nb_qwin], s->thr[i].qwin,
		       s->thr[i].nb_qwin * sizeof(*r->qwin));
		r->nb_qwin += s->thr[i].nb_qwin;
	}
	r->qwin_cap = n + 1;
	qsort(r->qwin, r->nb_qwin, sizeof(*r->qwin), fab_cmp_qwin);
}

static int
fab_collect(struct fab_sim *s)
{
	const struct fab_params *p = s->p;
	const struct hs_traffic *tr = &s->traffic;
	struct fab_run *r = s->r;
	struct hs_config ideal_cfg = s->hcfg;
	uint32_t *conc = hs_flow_concurrency(tr);
	uint64_t *rx_end = calloc(tr->nb_flows + 1, sizeof(*rx_end));
	double *slow = calloc(tr->nb_flows + 1, sizeof(*slow));
	uint64_t first = UINT64_MAX, last = 0, ideal_last = 0, fct_sum = 0;
	struct sw_totals *tot = malloc(sizeof(*tot));
	uint64_t first_spec = UINT64_MAX;
	uint32_t f, i, nb_slow = 0;
	uint16_t port;
	int rc = 0;

	ideal_cfg.base_rtt_ns = 0;	/* paths differ: added per flow */
	r->nb_flows = tr->nb_flows;
	r->flows = calloc(tr->nb_flows + 1, sizeof(*r->flows));
	if (conc == NULL || rx_end == NULL || slow == NULL || tot == NULL ||
	    r->flows == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (f = 0; f < tr->nb_flows; f++) {
		const struct hs_flow_spec *sp = &tr->flows[f];
		struct fab_flow_result *fr = &r->flows[f];
		struct hs_flow_result res;
		uint32_t hops = s->t->hops[sp->src * s->t->nb_hosts + sp->dst];
		uint64_t tx = hs_flow_ideal_ns(&ideal_cfg, tr, f, conc);
		uint64_t frame = RTE_MIN(OFAN_DATA_HDRS_SIZE + sp->size,
					 OFAN_ETH_HDR_SIZE + (uint64_t)p->host.mtu);
		uint64_t oneway = fab_oneway_frame_ns(p, hops, frame);
		uint64_t start;

		memset(&res, 0, sizeof(res));
		hs_host_flow_result(s->hosts[sp->src].h, f, &res);
		hs_host_flow_result(s->hosts[sp->dst].h, f, &res);
		/* Ideal: when it could start, its bytes, the path there and
		 * back; a dependent flow starts when its input arrived. */
		start = sp->start_ns;
		first_spec = RTE_MIN(first_spec, start);
		if (sp->dep != HS_NO_DEP && rx_end[sp->dep] > start)
			start = rx_end[sp->dep];
		rx_end[f] = start + tx + oneway;
		fr->ideal_ns = tx + oneway + fab_ack_back_ns(p, hops);
		ideal_last = RTE_MAX(ideal_last, start + fr->ideal_ns);
		fr->src = sp->src;
		fr->dst = sp->dst;
		fr->size = sp->size;
		fr->start_ns = res.start_ns;
		fr->retx = res.retx;
		fr->timeouts = res.timeouts;
		fr->max_reorder = res.max_reorder;
		if (res.done_ns == 0 || !res.sent_here)
			continue;
		fr->fct_ns = res.done_ns - res.start_ns;
		fr->slowdown = (double)fr->fct_ns / (double)fr->ideal_ns;
		slow[nb_slow++] = fr->slowdown;
		fct_sum += fr->fct_ns;
		first = RTE_MIN(first, res.start_ns);
		last = RTE_MAX(last, res.done_ns);
	}
	r->nb_completed = nb_slow;
	if (nb_slow > 0) {
		qsort(slow, nb_slow, sizeof(*slow), fab_cmp_double);
		r->max_slowdown = slow[nb_slow - 1];
		r->p99_slowdown = slow[(uint32_t)ceil(0.99 * nb_slow) - 1];
		r->mean_fct_ns = (double)fct_sum / nb_slow;
		r->collective_ns = last - first;
	}
	/* Measured like collective_ns: from the first start. */
	r->ideal_collective_ns = ideal_last - (first_spec == UINT64_MAX ? 0 :
					       first_spec);
	for (i = 0; i < s->t->nb_hosts; i++) {
		const struct hs_host_stats *st = hs_host_stats(s->hosts[i].h);

		r->retx += st->data_retx;
		r->timeouts += st->timeouts;
		r->data_sent += st->data_sent;
		r->corrupt += st->corrupt_pkts;
	}
	for (i = 0; i < s->t->nb_switches; i++) {
		sw_engine_totals(s->sw[i].eng, tot);
		for (f = 0; f < OFAN_DROP_MAX; f++)
			r->drops[f] += tot->drops[f];
		for (port = 0; port < s->sw[i].nb_ports; port++) {
			const struct fab_dir *d = &s->dirs[s->sw[i].dir[port]];

			r->ecn_marks += tot->queue[port].ecn_marked;
			r->max_queue[d->layer] = RTE_MAX(r->max_queue[d->layer],
				tot->queue[port].max_pkts);
			r->max_queue_all = RTE_MAX(r->max_queue_all,
						   tot->queue[port].max_pkts);
		}
	}
	for (i = 0; i < s->nb_thr; i++)
		r->drops[OFAN_DROP_SHUTDOWN] += s->thr[i].lost;
	for (f = 0; f < OFAN_DROP_MAX; f++)
		r->drops_total += r->drops[f];
	r->dropped = r->drops_total;
out:
	free(conc);
	free(rx_end);
	free(slow);
	free(tot);
	return rc;
}

/* ---- the loop ---- */

/*
 * Start loading what upcoming events will touch.  A frame's mbuf was last
 * touched a hop ago, thousands of events back, so without this every hop
 * waits for memory (perf: the first read of the mbuf was half of
 * sw_worker_input()).  Two stages: for the event after next, the wire
 * slot that names its frame; for the next event, the frame's mbuf and
 * headers (at the default headroom).
 */
static inline void
fab_prefetch_far(const struct fab_sim *s, const struct fab_ev *ev)
{
	uint32_t idx = FAB_EV_INDEX(ev->what);
	const struct fab_fifo *w;

	if (FAB_EV_KIND(ev->what) != FAB_EV_ARRIVE)
		return;
	w = &s->rx[idx].wire;
	rte_prefetch0(&w->e[w->head & w->mask]);
}

static inline void
fab_prefetch_near(const struct fab_sim *s, const struct fab_ev *ev)
{
	uint32_t idx = FAB_EV_INDEX(ev->what);
	const struct fab_fifo *w;
	const struct fab_dir *d;
	const uint8_t *m;

	switch (FAB_EV_KIND(ev->what)) {
	case FAB_EV_ARRIVE:
		w = &s->rx[idx].wire;
		m = (const uint8_t *)w->e[w->head & w->mask].m;
		rte_prefetch0(m);
		rte_prefetch0(m + sizeof(struct rte_mbuf) +
			      RTE_PKTMBUF_HEADROOM);
		break;
	case FAB_EV_TX:
		d = &s->dirs[idx];
		if (!d->from_host) {
			const struct sw_queue *q =
				&s->sw[d->from].w->queue[d->from_port];

			if (q->head != q->tail)
				rte_prefetch0(q->ring[q->head & q->mask]);
		}
		break;
	default:
		break;
	}
}

/* Run th's events before w_end. */
static void
fab_thr_window(struct fab_thr *th, uint64_t w_end)
{
	struct fab_sim *s = th->s;

	while (th->q->nb > 0 && !th->failed) {
		const struct fab_ev *next = fab_evq_peek(th->q);
		struct fab_ev ev;
		uint32_t idx;

		if (next->t >= w_end)
			break;
		ev = fab_pop(th);
		next = fab_evq_peek(th->q);
		if (next != NULL) {
			const struct fab_ev *after =
				fab_evq_peek_second(th->q);

			fab_prefetch_near(s, next);
			if (after != NULL)
				fab_prefetch_far(s, after);
		}
		idx = FAB_EV_INDEX(ev.what);
		th->now = ev.t;
		th->events++;
		switch (FAB_EV_KIND(ev.what)) {
		case FAB_EV_ARRIVE:
			fab_arrive(th, idx);
			break;
		case FAB_EV_TX:
			s->dirs[idx].tx_pending = 0;
			if (s->dirs[idx].from_host)
				fab_host_tx(th, idx);
			else
				fab_sw_tx(th, idx);
			break;
		case FAB_EV_HOST:
			if (ev.t != s->hosts[idx].wake_at)
				break;	/* superseded by an earlier one */
			s->hosts[idx].wake_at = UINT64_MAX;
			fab_host_kick(th, idx);
			fab_host_check_done(th, idx);
			break;
		default:
			break;	/* control events are not queued here */
		}
	}
}

/*
 * A barrier for the threads of a run.  It spins (a window is short), then
 * yields, so a thread that lost its CPU to something else gets it back.
 */
static void
fab_barrier_wait(struct fab_barrier *b)
{
	uint32_t gen = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
	unsigned int spins = 0;

	if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) ==
	    __atomic_load_n(&b->n, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->gen, gen + 1, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == gen) {
		if (++spins < 20000)
			rte_pause();
		else
			sched_yield();
	}
}

static double
fab_wall_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) +
		(double)(b.tv_nsec - a->tv_nsec) * 1e-9;
}

static void
fab_progress(struct fab_sim *s, uint64_t now, bool last)
{
	uint64_t acked = 0, total = 0, a, b;
	uint32_t i;

	if (s->quiet)
		return;
	if (!last && fab_wall_since(&s->wall_last) < 1.0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &s->wall_last);
	for (i = 0; i < s->t->nb_hosts; i++) {
		hs_host_progress(s->hosts[i].h, &a, &b);
		acked += a;
		total += b;
	}
	fprintf(stderr, "ofan-fabric: %-10s %10.1f us simulated, %5.1f%% of bytes acknowledged, %6.1f s wall%s\n",
		s->scheme, (double)(now - s->t0) / 1e3,
		total ? 100.0 * (double)acked / (double)total : 100.0,
		fab_wall_since(&s->wall0), last ? " (done)" : "");
}

/*
 * Between windows (every thread waits at the barrier): run the control
 * events due at the window's end, decide whether the run is over, and set
 * the next window.  Thread 0 only.
 */
static void
fab_coordinate(struct fab_sim *s)
{
	uint64_t w_start = s->w_end, w_end, net = 0;
	uint32_t done = 0, i;
	bool failed = false;
	int c;

	while ((c = fab_ctl_next(s)) >= 0 && s->ctl[c].t <= w_start) {
		struct fab_ctl ctl = s->ctl[c];

		s->ctl[c] = s->ctl[--s->nb_ctl];
		for (i = 0; i < s->nb_thr; i++)
			s->thr[i].now = w_start;
		fab_control(s, ctl.idx, w_start);
	}
	for (i = 0; i < s->nb_thr; i++) {
		done += s->thr[i].nb_hosts_done;
		net += s->thr[i].nb_net_ev;
		failed = failed || s->thr[i].failed;
	}
	/* Frames still to hand over count as in the network. */
	for (i = 0; i < s->nb_dirs; i++)
		if (s->dirs[i].cross)
			net += fab_fifo_len(&s->dirs[i].out[s->w_index & 1]);
	if (done == s->t->nb_hosts && s->done_ns == 0)
		for (i = 0; i < s->nb_thr; i++)
			s->done_ns = RTE_MAX(s->done_ns, s->thr[i].last_done_ns);
	if ((s->done_ns != 0 && net == 0) || w_start >= s->limit || failed ||
	    (s->interrupt != NULL && *s->interrupt)) {
		s->stop = true;
		return;
	}
	fab_progress(s, w_start, false);
	w_end = RTE_MIN(w_start + s->lookahead, s->limit);
	c = fab_ctl_next(s);
	if (c >= 0 && s->ctl[c].t < w_end)
		w_end = s->ctl[c].t;
	s->w_index++;
	s->w_end = w_end;
}

/* A thread's life: windows until thread 0 says stop. */
static int
fab_thr_main(void *arg)
{
	struct fab_thr *th = arg;
	struct fab_sim *s = th->s;

	for (;;) {
		fab_barrier_wait(&s->bar);	/* thread 0 set the window */
		if (s->stop)
			break;
		fab_drain(th, (s->w_index - 1) & 1);
		fab_thr_window(th, s->w_end);
		fab_barrier_wait(&s->bar);	/* everyone finished it */
		if (th->id == 0)
			fab_coordinate(s);
	}
	return 0;
}

int
fab_run(const struct fab_params *p, uint16_t scheme, struct fab_topo *t,
	struct rte_mempool *pool, const struct fab_run_opts *opts,
	struct fab_run *r, char *err, unsigned int err_size)
{
	struct fab_sim *s = rte_zmalloc("fab_sim", sizeof(*s),
					RTE_CACHE_LINE_SIZE);
	unsigned int in_use0 = rte_mempool_in_use_count(pool);
	unsigned int lcore = rte_lcore_id();
	uint32_t i, launched;
	uint64_t end;
	int rc;

	memset(r, 0, sizeof(*r));
	r->scheme = scheme;
	if (s == NULL) {
		snprintf(err, err_size, "out of memory for the run");
		return -ENOMEM;
	}
	s->p = p;
	s->t = t;
	s->r = r;
	s->pool = pool;
	s->quiet = opts == NULL || opts->quiet;
	s->interrupt = opts != NULL ? opts->interrupt : NULL;
	s->scheme = p->schemes[scheme].name;
	/* Results do not depend on the thread count: fewer lcores than
	 * threads only makes the run slower. */
	s->nb_thr = t->kind == FAB_TOPO_B2B ? 1 :
		(uint16_t)RTE_MIN((unsigned int)p->threads, rte_lcore_count());
	s->t0 = FAB_T0_NS;
	s->limit = s->t0 + p->time_limit_ns + 1;	/* the limit itself runs */
	/* A frame sent between threads arrives a window later at the soonest:
	 * the delay plus the shortest frame at the fastest rate. */
	s->lookahead = p->delay_ns + ofan_tx_time_ns(60 + FAB_WIRE_OVERHEAD,
		RTE_MAX(p->rate_bps, p->uplink_rate_bps));
	s->bar.n = s->nb_thr;
	clock_gettime(CLOCK_MONOTONIC, &s->wall0);
	s->wall_last = s->wall0;
	rc = fab_sim_build(s, scheme, err, err_size);
	if (rc != 0)
		goto out;
	for (i = 0; i < p->nb_failures; i++) {
		fab_ctl_push(s, s->t0 + p->failures[i].at_ns,
			     i * FAB_CTL_PHASES + FAB_CTL_FAIL);
		if (p->failures[i].duration_ns != 0)
			fab_ctl_push(s, s->t0 + p->failures[i].at_ns +
				     p->failures[i].duration_ns,
				     i * FAB_CTL_PHASES + FAB_CTL_RESTORE);
	}
	for (i = 0; i < t->nb_hosts; i++)
		hs_host_start(s->hosts[i].h, s->t0);
	for (i = 0; i < t->nb_hosts; i++) {
		struct fab_thr *th = &s->thr[s->host_owner[i]];

		fab_host_kick(th, i);
		fab_host_check_done(th, i);
	}
	/* The first window, after control events due at the start. */
	s->w_end = s->t0;
	s->w_index = 0;
	fab_coordinate(s);

	for (i = 1; i < s->nb_thr; i++) {
		lcore = rte_get_next_lcore(lcore, 1, 0);
		s->thr[i].lcore = lcore;
		if (rte_eal_remote_launch(fab_thr_main, &s->thr[i],
					  lcore) != 0) {
			/* Those launched meet thread 0 at the barrier and
			 * stop with it. */
			snprintf(err, err_size, "cannot start a thread on lcore %u",
				 lcore);
			rc = -EBUSY;
			s->stop = true;
			__atomic_store_n(&s->bar.n, i, __ATOMIC_RELEASE);
			break;
		}
	}
	launched = i;
	fab_thr_main(&s->thr[0]);
	for (i = 1; i < launched; i++)
		rte_eal_wait_lcore(s->thr[i].lcore);
	if (rc != 0)
		goto out;

	for (i = 0; i < s->nb_thr; i++) {
		if (s->thr[i].failed) {
			snprintf(err, err_size, "out of memory for events");
			rc = -ENOMEM;
		}
		r->events += s->thr[i].events;
		r->hops += s->thr[i].hops;
		r->injected += s->thr[i].injected;
		r->delivered += s->thr[i].delivered;
	}
	end = RTE_MIN(s->w_end, s->t0 + p->time_limit_ns);
	r->completed = s->done_ns != 0;
	r->interrupted = !r->completed && s->interrupt != NULL &&
		*s->interrupt;
	r->sim_ns = (s->done_ns ? s->done_ns : end) - s->t0;
	fab_progress(s, s->done_ns ? s->done_ns : end, true);
	for (i = 0; i < s->nb_dirs; i++)
		if (!s->dirs[i].from_host)
			fab_qwin_flush(&s->thr[s->dirs[i].tx_owner], i);
	r->nb_windows = (uint32_t)((end - s->t0) / p->queue_window_ns) + 1;
	fab_collect_qwin(s);
	if (fab_collect(s) != 0) {
		snprintf(err, err_size, "out of memory for the results");
		rc = -ENOMEM;
	}
out:
	fab_sim_free(s);
	r->mbuf_leak = (int64_t)rte_mempool_in_use_count(pool) -
		(int64_t)in_use0;
	r->wall_s = fab_wall_since(&s->wall0);
	rte_free(s);
	return rc;
}

void
fab_run_free(struct fab_run *r)
{
	free(r->flows);
	free(r->qwin);
	r->flows = NULL;
	r->qwin = NULL;
}
