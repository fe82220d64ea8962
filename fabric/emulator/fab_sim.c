/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One run of ofan-fabric: a discrete-event loop in virtual nanoseconds.
 *
 * Every link direction is an emulated port (architecture.md, "Ports"): a serialiser
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
 * delay: a frame leaves a switch port when its last bit has been sent, so
 * one sent over a link between two parts in one window cannot arrive
 * before the next (a host's NIC, which hands a frame over when its first
 * bit leaves, adds its serialisation to that), so the
 * threads run a window independently, then meet at a barrier; frames that
 * crossed are handed over (in link order) at the start of the next window,
 * and the control plane (failures, routing) runs at window ends, alone
 * (fab_coord.c: what happens between windows).  Because the event order is canonical (fab_evq.h) and windows are the
 * same for any thread count, the results do not depend on it: a run on
 * two threads is byte-identical to the same run on one.
 *
 * Failures: down is the switch engine's own link state on the switch
 * end(s) of the link (the engine drops and counts what it sends into or
 * receives from a failed port; a down port leaves its own groups after
 * detect_delay); a black hole is the wire's (fab_dir.hole: frames leave
 * at the link's rate and are lost on the way, counted as blackhole
 * drops, as htsim's drop-all queue serialises and then frees them); after
 * reconverge_delay the fabric recomputes every switch's live-path weights
 * (fab_topo_weights) -- the routing protocol converging.  degraded is the
 * link's rate, so it stays exact here.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include "fab_pool.h"
#include "fab_sim.h"
#include "hs_host.h"
#include "ofan_clock.h"
#include "ofan_frame.h"
#include "ofan_wire.h"
#include "sw_engine.h"

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

/* ---- queue windows ---- */

/* Keep direction d's largest queue of its current window, and reset it. */
void
fab_qwin_flush(struct fab_thr *th, uint32_t d)
{
	struct fab_dir *dir = &th->s->net.dirs[d];

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
		.max_pkts = dir->win_max, .max_bytes = dir->win_max_bytes,
	};
	dir->win_max = 0;
	dir->win_max_bytes = 0;
}

static inline void
fab_qwin_note(struct fab_thr *th, uint32_t d, uint32_t len, uint64_t bytes)
{
	struct fab_sim *s = th->s;
	struct fab_dir *dir = &s->net.dirs[d];
	uint32_t w;

	if (unlikely(th->now >= th->win_end)) {
		th->win = (uint32_t)((th->now - s->loop.t0) /
				     s->p->queue_window_ns);
		th->win_end = s->loop.t0 + (uint64_t)(th->win + 1) *
			s->p->queue_window_ns;
	}
	w = th->win;
	if (w != dir->win) {
		fab_qwin_flush(th, d);
		dir->win = w;
	}
	if (len > dir->win_max)
		dir->win_max = len;
	if (bytes > dir->win_max_bytes)
		dir->win_max_bytes = bytes;
}

/* ---- serialisers and wires ---- */

/* Hand m to dir's wire: it reaches the far end at due. */
static void
fab_wire_put(struct fab_thr *th, uint32_t d, struct rte_mbuf *m, uint64_t due)
{
	struct fab_sim *s = th->s;
	struct fab_dir *dir = &s->net.dirs[d];
	struct fab_rx *rx;

	dir->nb_frames++;
	if (unlikely((dir->nb_frames >= dir->drop_first &&
		      dir->nb_frames < dir->drop_end) ||
		     (dir->loss != NULL &&
		      ofan_loss_hit(dir->loss, due - dir->delay_ns)))) {
		rte_pktmbuf_free(m);	/* [drop.*]: on purpose */
		th->dropped_on_purpose++;
		return;
	}
	if (unlikely(dir->hole)) {
		rte_pktmbuf_free(m);	/* sent, and lost on the way */
		th->blackholed++;
		return;
	}
	th->hops++;
	if (dir->cross) {
		/* Another thread's: handed over at the next window. */
		if (fab_fifo_push(&dir->out[s->loop.w_index & 1], m, due) != 0) {
			rte_pktmbuf_free(m);
			th->lost++;
		}
		return;
	}
	rx = &s->net.rx[d];
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

/* The serialisation time of wire bytes on dir (the last size's is
 * cached: most frames are full data frames or ACKs). */
static inline uint64_t
fab_ser_wire_ns(struct fab_dir *dir, uint32_t wire)
{
	if (wire != dir->last_len) {
		dir->last_len = wire;
		dir->last_ser = ofan_tx_time_ns(wire, dir->rate_bps);
	}
	return dir->last_ser;
}

/* The serialisation time of a frame a switch queue counted as len bytes. */
static inline uint64_t
fab_ser_len_ns(const struct fab_sim *s, struct fab_dir *dir, uint32_t len)
{
	return fab_ser_wire_ns(dir, len + s->p->queue.frame.overhead);
}

/* The serialisation time of a host's frame m, under the frame model. */
static inline uint64_t
fab_ser_ns(const struct fab_sim *s, struct fab_dir *dir,
	   const struct rte_mbuf *m)
{
	const struct ofan_frame_model *fm = &s->p->queue.frame;
	uint8_t kind = OFAN_KIND_OTHER;

	if (s->net.frame_kinds)
		kind = ofan_frame_kind(rte_pktmbuf_mtod(m, const uint8_t *),
				       rte_pktmbuf_data_len(m));
	return fab_ser_wire_ns(dir, ofan_frame_wire_bytes(fm, kind,
							  m->pkt_len));
}

/* Put m on dir's wire now; it occupies the serialiser for its frame. */
static void
fab_wire_send(struct fab_thr *th, uint32_t d, struct rte_mbuf *m)
{
	struct fab_dir *dir = &th->s->net.dirs[d];
	uint64_t ser = fab_ser_ns(th->s, dir, m);

	dir->busy_until = th->now + ser;
	fab_wire_put(th, d, m, dir->busy_until + dir->delay_ns);
}

static inline void
fab_sw_note(struct fab_thr *th, uint32_t d)
{
	const struct fab_dir *dir = &th->s->net.dirs[d];
	const struct sw_worker *w = th->s->net.sw[dir->from].w;

	fab_qwin_note(th, d, sw_worker_queue_len(w, dir->from_port),
		      sw_worker_port_bytes(w, dir->from_port));
}

static void fab_sw_tx_kicked(struct fab_thr *th, uint32_t d);

/*
 * Switch sw's ports in kicks (sw_worker_take_kicks: a PFC frame to send,
 * a pause begun or ended) get their serialiser looked at.
 */
static void
fab_sw_kick(struct fab_thr *th, uint32_t sw, sw_portmask kicks)
{
	const struct fab_snode *n = &th->s->net.sw[sw];

	while (kicks != 0) {
		uint16_t p = (uint16_t)rte_bsf64(kicks);

		kicks &= kicks - 1;
		if (p < n->nb_ports)
			fab_sw_tx_kicked(th, n->dir[p]);
	}
}

/*
 * A switch port's serialiser: at the end of a frame's service the frame
 * leaves the engine's queue for the wire, then the next one starts.  The
 * frame in service stays queued meanwhile, so a queue's occupancy, its
 * capacity and the policies' view of it count the frame being sent, as
 * in a store-and-forward switch (and in htsim).  If the link failed
 * meanwhile the engine has dropped the queue, the frame in service with
 * it.
 */
void
fab_sw_tx(struct fab_thr *th, uint32_t d)
{
	struct fab_dir *dir = &th->s->net.dirs[d];
	struct sw_worker *w = th->s->net.sw[dir->from].w;
	struct rte_mbuf *m;

	if (dir->tx_pending)
		return;
	if (dir->in_service != NULL) {
		if (dir->busy_until > th->now) {
			dir->tx_pending = 1;
			fab_push(th, dir->busy_until, FAB_EV_TX, d);
			return;
		}
		if (sw_worker_tx_peek(w, dir->from_port, th->now, &m, 1) == 1 &&
		    m == dir->in_service) {
			sw_worker_tx_commit(w, dir->from_port, th->now, &m, 1, 1);
			fab_wire_put(th, d, m, th->now + dir->delay_ns);
			dir->in_service = NULL;
			/* A kicked port may be this one: it starts its
			 * next frame there, and this call then stops. */
			if (unlikely(w->pfc_kick != 0))
				fab_sw_kick(th, dir->from, sw_worker_take_kicks(w));
			if (dir->tx_pending)
				return;
		}
		dir->in_service = NULL;
	}
	if (unlikely(dir->stalled) || !sw_worker_tx_ready(w, dir->from_port))
		return;
	if (sw_worker_tx_peek(w, dir->from_port, th->now, &m, 1) != 1) {
		/* A failed link (the engine dropped its queue), or paused. */
		uint64_t until = sw_worker_paused_until(w, dir->from_port);

		if (unlikely(until > th->now) && dir->unpause_at != until) {
			dir->unpause_at = until;
			fab_push(th, until, FAB_EV_UNPAUSE, d);
		}
		return;
	}
	fab_sw_note(th, d);
	dir->in_service = m;
	/* The length from the queue: the frame itself may have gone cold. */
	dir->busy_until = th->now + fab_ser_len_ns(th->s, dir,
						   sw_worker_peeked_len(w, 0));
	dir->tx_pending = 1;
	fab_push(th, dir->busy_until, FAB_EV_TX, d);
}

/* A kicked port: served now unless its serialiser has an event due. */
static void
fab_sw_tx_kicked(struct fab_thr *th, uint32_t d)
{
	if (!th->s->net.dirs[d].tx_pending)
		fab_sw_tx(th, d);
}

/* Start the next frame of a host's NIC if its serialiser is free. */
static void
fab_host_tx(struct fab_thr *th, uint32_t d)
{
	struct fab_dir *dir = &th->s->net.dirs[d];
	struct fab_hnode *hn = &th->s->net.hosts[dir->from];
	struct fab_nic *nic = &hn->nic;
	uint32_t slot;

	if (nic->len == 0 || dir->tx_pending || unlikely(dir->stalled))
		return;
	/* PFC paused: the host's HOST event at the pause's end resumes. */
	if (unlikely(hs_host_paused_until(hn->h) > th->now))
		return;
	if (dir->busy_until > th->now) {
		dir->tx_pending = 1;
		fab_push(th, dir->busy_until, FAB_EV_TX, d);
		return;
	}
	fab_wire_send(th, d, fab_nic_pop(nic, &slot));
	/* The flow may send again: the host learns it now. */
	if (nic->limit != 0 &&
	    fab_fifo_len(&nic->slot[slot]) + 1 == nic->limit &&
	    hs_host_nic_room(hn->h, slot, th->now)) {
		if (hn->wake_at > th->now) {
			hn->wake_at = th->now;
			fab_push(th, th->now, FAB_EV_HOST, dir->from);
		}
	}
	if (nic->len > 0) {
		dir->tx_pending = 1;
		fab_push(th, dir->busy_until, FAB_EV_TX, d);
	}
}

/* Serve dir's queue if its serialiser is free (after a control event). */
void
fab_dir_tx(struct fab_thr *th, uint32_t d)
{
	if (th->s->net.dirs[d].from_host)
		fab_host_tx(th, d);
	else
		fab_sw_tx(th, d);
}

/* Let the host send what is due and book its next event. */
void
fab_host_kick(struct fab_thr *th, uint32_t rank)
{
	struct fab_hnode *hn = &th->s->net.hosts[rank];
	struct fab_dir *dir = &th->s->net.dirs[hn->dir];
	struct rte_mbuf *pkts[FAB_BURST];
	uint64_t next;
	uint16_t n, i;

	do {
		n = hs_host_output(hn->h, th->now, pkts, FAB_BURST);
		for (i = 0; i < n; i++) {
			if (fab_nic_push(&hn->nic, pkts[i]) != 0) {
				rte_pktmbuf_free(pkts[i]);
				th->lost++;
			}
		}
		th->injected += n;
	} while (n == FAB_BURST);
	(void)dir;
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

/* Start flow now at its sender, woken by a HOST event now. */
void
fab_wl_release(void *arg, uint32_t flow, uint64_t now)
{
	struct fab_sim *s = arg;
	uint32_t src = s->load.traffic.flows[flow].src;
	struct fab_hnode *hn = &s->net.hosts[src];

	if (!hs_host_release(hn->h, flow, now) || hn->wake_at <= now)
		return;
	hn->wake_at = now;
	fab_push(fab_host_thr(s, src), now, FAB_EV_HOST, src);
}

/* The workload's timer for host: a WORK event at at. */
void
fab_wl_timer(void *arg, uint32_t host, uint64_t at)
{
	struct fab_sim *s = arg;

	fab_push(fab_host_thr(s, host), at, FAB_EV_WORK, host);
}

/*
 * A flow ended that activates a trigger (hs_host_params.on_flow_end):
 * the flows it starts begin now, at their hosts (in this thread's part:
 * fab_sim_build() keeps every trigger in one part).  A workload's flow
 * goes to the workload, which releases what it starts the same way.
 */
void
fab_sim_flow_end(void *arg, uint32_t flow, bool received, uint64_t now)
{
	struct fab_sim *s = arg;
	const uint32_t *go;
	uint32_t n, i;

	if (s->load.has_wl) {
		hs_wl_run_flow_end(&s->load.wl, flow, received, now);
		return;
	}
	n = hs_trigger_flow_end(&s->load.traffic, &s->load.trig, flow, received, &go);
	for (i = 0; i < n; i++)
		fab_wl_release(s, go[i], now);
}

void
fab_host_check_done(struct fab_thr *th, uint32_t rank)
{
	struct fab_hnode *hn = &th->s->net.hosts[rank];

	if (!hn->done && hs_host_tx_done(hn->h) && hs_host_rx_done(hn->h) &&
	    (!th->s->load.has_wl || hs_wl_run_host_done(&th->s->load.wl, rank))) {
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
	struct fab_rx *rx = &s->net.rx[d];
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
		hs_host_input(s->net.hosts[rx->to].h, pkts, n, th->now);
		fab_host_kick(th, rx->to);
		fab_host_check_done(th, rx->to);
		return;
	}
	{
		struct fab_snode *sw = &s->net.sw[rx->to];
		sw_portmask touched;

		sw_worker_input(sw->w, rx->to_port, pkts, n, th->now);
		/* Only the queues the burst went to need a look. */
		touched = sw_worker_touched(sw->w) |
			sw_worker_take_kicks(sw->w);
		for (p = 0; p < sw->nb_ports; p++) {
			if (!(touched & SW_PORT_BIT(p)))
				continue;
			fab_sw_note(th, sw->dir[p]);
			if (!s->net.dirs[sw->dir[p]].tx_pending)
				fab_sw_tx(th, sw->dir[p]);
		}
	}
}

/* Take over the frames other threads sent to us in window `parity`. */
void
fab_drain(struct fab_thr *th, uint32_t parity)
{
	struct fab_sim *s = th->s;
	uint32_t i;

	for (i = 0; i < th->nb_in; i++) {
		uint32_t d = th->in_dirs[i];
		struct fab_fifo *out = &s->net.dirs[d].out[parity];
		struct fab_rx *rx = &s->net.rx[d];

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
	w = &s->net.rx[idx].wire;
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
		w = &s->net.rx[idx].wire;
		m = (const uint8_t *)w->e[w->head & w->mask].m;
		rte_prefetch0(m);
		rte_prefetch0(m + sizeof(struct rte_mbuf) +
			      RTE_PKTMBUF_HEADROOM);
		break;
	case FAB_EV_TX:
		/* A switch port's serialiser reads its queue, not the frame
		 * (the queue keeps lengths: sw_worker_peeked_len). */
		d = &s->net.dirs[idx];
		if (!d->from_host)
			sw_worker_prefetch_tx(s->net.sw[d->from].w, d->from_port);
		break;
	default:
		break;
	}
}

/* Run th's events before w_end. */
void
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
			s->net.dirs[idx].tx_pending = 0;
			if (s->net.dirs[idx].from_host)
				fab_host_tx(th, idx);
			else
				fab_sw_tx(th, idx);
			break;
		case FAB_EV_HOST:
			if (ev.t != s->net.hosts[idx].wake_at)
				break;	/* superseded by an earlier one */
			s->net.hosts[idx].wake_at = UINT64_MAX;
			fab_host_kick(th, idx);
			fab_host_check_done(th, idx);
			break;
		case FAB_EV_UNPAUSE:
			if (ev.t != s->net.dirs[idx].unpause_at)
				break;	/* superseded */
			s->net.dirs[idx].unpause_at = 0;
			if (!s->net.dirs[idx].tx_pending)
				fab_sw_tx(th, idx);
			break;
		case FAB_EV_WORK:
			hs_wl_run_timer(&s->load.wl, idx, ev.t);
			fab_host_check_done(th, idx);
			break;
		default:
			break;	/* control events are not queued here */
		}
	}
}
