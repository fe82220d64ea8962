/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One run of ofan-fabric: a discrete-event loop in virtual nanoseconds.
 *
 * Every link direction is an emulated port (architecture.md §3): a serialiser
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
 * and the control plane (failures, routing) runs at window ends, alone.
 * Because the event order is canonical (fab_evq.h) and windows are the
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
		.max_pkts = dir->win_max, .max_bytes = dir->win_max_bytes,
	};
	dir->win_max = 0;
	dir->win_max_bytes = 0;
}

static inline void
fab_qwin_note(struct fab_thr *th, uint32_t d, uint32_t len, uint64_t bytes)
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
	if (bytes > dir->win_max_bytes)
		dir->win_max_bytes = bytes;
}

/* ---- serialisers and wires ---- */

/* Hand m to dir's wire: it reaches the far end at due. */
static void
fab_wire_put(struct fab_thr *th, uint32_t d, struct rte_mbuf *m, uint64_t due)
{
	struct fab_sim *s = th->s;
	struct fab_dir *dir = &s->dirs[d];
	struct fab_rx *rx;

	dir->nb_frames++;
	if (unlikely(dir->nb_frames >= dir->drop_first &&
		     dir->nb_frames < dir->drop_end)) {
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

	if (s->frame_kinds)
		kind = ofan_frame_kind(rte_pktmbuf_mtod(m, const uint8_t *),
				       rte_pktmbuf_data_len(m));
	return fab_ser_wire_ns(dir, ofan_frame_wire_bytes(fm, kind,
							  m->pkt_len));
}

/* Put m on dir's wire now; it occupies the serialiser for its frame. */
static void
fab_wire_send(struct fab_thr *th, uint32_t d, struct rte_mbuf *m)
{
	struct fab_dir *dir = &th->s->dirs[d];
	uint64_t ser = fab_ser_ns(th->s, dir, m);

	dir->busy_until = th->now + ser;
	fab_wire_put(th, d, m, dir->busy_until + dir->delay_ns);
}

static inline void
fab_sw_note(struct fab_thr *th, uint32_t d)
{
	const struct fab_dir *dir = &th->s->dirs[d];
	const struct sw_worker *w = th->s->sw[dir->from].w;

	fab_qwin_note(th, d, sw_worker_queue_len(w, dir->from_port),
		      sw_worker_port_bytes(w, dir->from_port));
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
static void
fab_sw_tx(struct fab_thr *th, uint32_t d)
{
	struct fab_dir *dir = &th->s->dirs[d];
	struct sw_worker *w = th->s->sw[dir->from].w;
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
		}
		dir->in_service = NULL;
	}
	if (sw_worker_queue_len(w, dir->from_port) == 0)
		return;
	if (sw_worker_tx_peek(w, dir->from_port, th->now, &m, 1) != 1)
		return;	/* a failed link: the engine dropped its queue */
	fab_sw_note(th, d);
	dir->in_service = m;
	/* The length from the queue: the frame itself may have gone cold. */
	dir->busy_until = th->now + fab_ser_len_ns(th->s, dir,
						   sw_worker_peeked_len(w, 0));
	dir->tx_pending = 1;
	fab_push(th, dir->busy_until, FAB_EV_TX, d);
}

/* Start the next frame of a host's NIC if its serialiser is free. */
static void
fab_host_tx(struct fab_thr *th, uint32_t d)
{
	struct fab_dir *dir = &th->s->dirs[d];
	struct fab_hnode *hn = &th->s->hosts[dir->from];
	struct fab_nic *nic = &hn->nic;
	uint32_t slot;

	if (nic->len == 0 || dir->tx_pending)
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

/*
 * A flow ended that activates a trigger (hs_host_params.on_flow_end):
 * the flows it starts begin now, at their hosts (in this thread's part:
 * fab_sim_build() keeps every trigger in one part), each host woken by a
 * HOST event now.
 */
void
fab_sim_flow_end(void *arg, uint32_t flow, bool received, uint64_t now)
{
	struct fab_sim *s = arg;
	const uint32_t *go;
	uint32_t n, i;

	n = hs_trigger_flow_end(&s->traffic, &s->trig, flow, received, &go);
	for (i = 0; i < n; i++) {
		uint32_t src = s->traffic.flows[go[i]].src;
		struct fab_hnode *hn = &s->hosts[src];

		if (!hs_host_release(hn->h, go[i], now) || hn->wake_at <= now)
			continue;
		hn->wake_at = now;
		fab_push(&s->thr[fab_part_thr(s, s->host_owner[src])], now,
			 FAB_EV_HOST, src);
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
		uint32_t touched;

		sw_worker_input(sw->w, rx->to_port, pkts, n, th->now);
		/* Only the queues the burst went to need a look. */
		touched = sw_worker_touched(sw->w);
		for (p = 0; p < sw->nb_ports; p++) {
			if (!(touched & (UINT32_C(1) << p)))
				continue;
			fab_sw_note(th, sw->dir[p]);
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
		/* A switch port's serialiser reads its queue, not the frame
		 * (the queue keeps lengths: sw_worker_peeked_len). */
		d = &s->dirs[idx];
		if (!d->from_host)
			sw_worker_prefetch_tx(s->sw[d->from].w, d->from_port);
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

double
fab_sim_wall_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) +
		(double)(b.tv_nsec - a->tv_nsec) * 1e-9;
}

/* Bytes acknowledged and to send, over this rank's hosts. */
static void
fab_progress_sums(const struct fab_sim *s, uint64_t *acked, uint64_t *total)
{
	uint64_t a, b;
	uint32_t i;

	*acked = *total = 0;
	for (i = 0; i < s->t->nb_hosts; i++) {
		if (s->hosts[i].h == NULL)
			continue;	/* another rank's */
		hs_host_progress(s->hosts[i].h, &a, &b);
		*acked += a;
		*total += b;
	}
}

/* The progress line (rank 0), from the job's sums. */
static void
fab_progress_print(struct fab_sim *s, uint64_t now, uint64_t acked,
		   uint64_t total, bool last)
{
	if (s->quiet || (s->job != NULL && s->job->rank != 0))
		return;
	clock_gettime(CLOCK_MONOTONIC, &s->wall_last);
	fprintf(stderr, "%s: %-10s %10.1f us simulated, %5.1f%% of bytes acknowledged, %6.1f s wall%s\n",
		s->prog, s->scheme, (double)(now - s->t0) / 1e3,
		total ? 100.0 * (double)acked / (double)total : 100.0,
		fab_sim_wall_since(&s->wall0), last ? " (done)" : "");
}

/* Is a progress line due (rank 0's wall clock; the others never ask)? */
static bool
fab_progress_wanted(const struct fab_sim *s)
{
	if (s->quiet || (s->job != NULL && s->job->rank != 0))
		return false;
	return fab_sim_wall_since(&s->wall_last) >= 1.0;
}

/*
 * --spread parts: hand the frames this rank's parts sent to other ranks'
 * parts in window `parity` over, and take theirs into the wires' hand-over
 * FIFOs, where the receiving threads drain them at the next window as
 * frames from another thread.  Each wire's frames keep their order.
 */
struct fab_xrec {
	uint32_t dir;
	uint32_t len;
	uint64_t t;
};

static void
fab_exchange(struct fab_sim *s, uint32_t parity)
{
	const struct fab_job *j = s->job;
	uint32_t d;
	int r;

	for (r = 0; r < j->size; r++)
		s->xout[r].len = 0;
	for (d = 0; d < s->nb_dirs; d++) {
		struct fab_dir *dir = &s->dirs[d];
		struct fab_fifo *out = &dir->out[parity];

		if (!dir->cross || !dir->tx_local || dir->rx_local)
			continue;
		while (out->head != out->tail) {
			struct fab_slot e = out->e[out->head++ & out->mask];
			struct fab_xrec x = {
				.dir = d, .len = e.m->pkt_len, .t = e.t,
			};
			struct fab_xbuf *b = &s->xout[dir->rx_rank];

			if (fab_xbuf_put(b, &x, sizeof(x)) != 0 ||
			    fab_xbuf_put(b, rte_pktmbuf_mtod(e.m, void *),
					 x.len) != 0)
				s->thr[0].failed = true;	/* ends the run */
			rte_pktmbuf_free(e.m);
		}
	}
	if (fab_job_exchange(j, s->xout, s->xin) != 0)
		s->thr[0].failed = true;
	for (r = 0; r < j->size; r++) {
		const uint8_t *b = s->xin[r].b, *end = b + s->xin[r].len;

		if (r == j->rank)
			continue;
		while (b + sizeof(struct fab_xrec) <= end) {
			struct fab_xrec x;
			struct rte_mbuf *m;

			memcpy(&x, b, sizeof(x));
			b += sizeof(x);
			m = rte_pktmbuf_alloc(s->pool);
			if (m == NULL || rte_pktmbuf_append(m, x.len) == NULL ||
			    fab_fifo_push(&s->dirs[x.dir].out[parity], m,
					  x.t) != 0) {
				rte_pktmbuf_free(m);
				s->thr[0].lost++;
			} else {
				memcpy(rte_pktmbuf_mtod(m, void *), b, x.len);
			}
			b += x.len;
		}
	}
}

/*
 * Between windows (every thread waits at the barrier): run the control
 * events due at the window's end, decide whether the run is over, and set
 * the next window.  Thread 0 only.
 */
static void
fab_coordinate(struct fab_sim *s)
{
	uint64_t w_start = s->w_end, w_end, net = 0, last_done = 0;
	uint64_t sum[4], max[5];
	uint32_t done = 0, i;
	bool failed = false;
	int c;

	/* Every rank runs the same control events, each on its switches. */
	while ((c = fab_ctl_next(s)) >= 0 && s->ctl[c].t <= w_start) {
		struct fab_ctl ctl = s->ctl[c];
		uint32_t drain[2], n, d;

		s->ctl[c] = s->ctl[--s->nb_ctl];
		for (i = 0; i < s->nb_thr; i++)
			s->thr[i].now = w_start;
		n = fab_control(s, ctl.idx, w_start, drain);
		for (d = 0; d < n; d++)
			if (s->dirs[drain[d]].tx_local)
				fab_sw_tx(&s->thr[s->dirs[drain[d]].tx_owner],
					  drain[d]);
	}
	for (i = 0; i < s->nb_thr; i++) {
		done += s->thr[i].nb_hosts_done;
		net += s->thr[i].nb_net_ev;
		failed = failed || s->thr[i].failed;
		last_done = RTE_MAX(last_done, s->thr[i].last_done_ns);
	}
	/* Frames still to hand over count as in the network (each on the
	 * rank that sent it: they move after this). */
	for (i = 0; i < s->nb_dirs; i++)
		if (s->dirs[i].cross && s->dirs[i].tx_local)
			net += fab_fifo_len(&s->dirs[i].out[s->w_index & 1]);
	/* The job decides as one: sums and maxima over its ranks. */
	sum[0] = done;
	sum[1] = net;
	sum[2] = sum[3] = 0;
	if (s->progress_due)
		fab_progress_sums(s, &sum[2], &sum[3]);
	max[0] = failed;
	max[1] = s->interrupt != NULL && *s->interrupt;
	max[2] = last_done;
	max[3] = s->progress_due;
	max[4] = fab_progress_wanted(s);
	if (s->job != NULL)
		fab_job_reduce(s->job, sum, 4, max, 5);
	if (max[3])
		fab_progress_print(s, w_start, sum[2], sum[3], false);
	s->progress_due = max[4] != 0;
	if (sum[0] == s->t->nb_hosts && s->done_ns == 0)
		s->done_ns = max[2];
	if ((s->done_ns != 0 && sum[1] == 0) || w_start >= s->limit ||
	    max[0] || max[1]) {
		s->stop = true;
		return;
	}
	if (s->between != NULL)
		s->between(s->between_arg);
	w_end = RTE_MIN(w_start + s->lookahead, s->limit);
	c = fab_ctl_next(s);
	if (c >= 0 && s->ctl[c].t < w_end)
		w_end = s->ctl[c].t;
	s->w_index++;
	s->w_end = w_end;
	if (s->job != NULL)
		fab_exchange(s, (s->w_index - 1) & 1);
	if (s->grow != NULL)
		fab_pool_reserve(s->grow, s->pool_need);
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

void
fab_sim_start(struct fab_sim *s)
{
	const struct fab_params *p = s->p;
	const struct fab_topo *t = s->t;
	uint32_t i;

	fab_fail_at_start(s);
	for (i = 0; i < p->nb_failures; i++) {
		if (p->failures[i].at_start)
			continue;
		fab_ctl_push(s, s->t0 + p->failures[i].at_ns,
			     i * FAB_CTL_PHASES + FAB_CTL_FAIL);
		if (p->failures[i].duration_ns != 0)
			fab_ctl_push(s, s->t0 + p->failures[i].at_ns +
				     p->failures[i].duration_ns,
				     i * FAB_CTL_PHASES + FAB_CTL_RESTORE);
	}
	/*
	 * A growing pool (fab_pool.h) has, before each window, more free
	 * mbufs than the window can take: each local host sends at most its
	 * link's worth of frames (counted as 1000 bytes each, or a full
	 * frame's wire bytes when the MTU makes that less) and as many ACKs
	 * (one mbuf at a time: fabric hosts keep no stash); free mbufs may sit
	 * in the threads' mempool caches (up to 1.5 x the cache size each),
	 * where another thread cannot take them; and a reserve.  Before the
	 * start, also the NICs' first fill (nic_queue frames per slot).  The
	 * reserve was 65,536 mbufs (290 MB of 4 KiB frames), which a
	 * permutation never comes near, and populating it (the kernel
	 * clearing its pages) took most of a k = 8 permutation's run.
	 */
	if (s->grow != NULL) {
		uint64_t frame = RTE_MIN(1000u, (uint32_t)p->host.mtu + 38u);
		uint64_t per_host = 2 * (p->rate_bps * s->lookahead / 8000000000ull
					 / frame + 2), first = 0, hosts = 0;

		for (i = 0; i < t->nb_hosts; i++) {
			if (s->hosts[i].h == NULL)
				continue;
			hosts++;
			first += (uint64_t)s->hosts[i].nic.nb_slots *
				RTE_MAX(p->nic_queue, 1u);
		}
		s->pool_need = (uint32_t)RTE_MIN(FAB_POOL_RESERVE +
			(uint64_t)s->nb_thr * RTE_MEMPOOL_CACHE_MAX_SIZE * 3 / 2 +
			hosts * per_host, (uint64_t)UINT32_MAX / 2);
		fab_pool_reserve(s->grow, (uint32_t)RTE_MIN(s->pool_need + first,
						(uint64_t)UINT32_MAX / 2));
	}
	for (i = 0; i < t->nb_hosts; i++)
		if (s->hosts[i].h != NULL)
			hs_host_start(s->hosts[i].h, s->t0);
	for (i = 0; i < t->nb_hosts; i++) {
		struct fab_thr *th;

		if (s->hosts[i].h == NULL)
			continue;	/* another rank's */
		th = &s->thr[fab_part_thr(s, s->host_owner[i])];
		fab_host_kick(th, i);
		fab_host_check_done(th, i);
	}
	/* The first window, after control events due at the start. */
	s->w_end = s->t0;
	s->w_index = 0;
	fab_coordinate(s);
}

int
fab_sim_go(struct fab_sim *s, char *err, unsigned int err_size)
{
	const struct fab_params *p = s->p;
	struct fab_run *r = s->r;
	unsigned int lcore = rte_lcore_id();
	uint32_t i, launched;
	uint64_t end;
	int rc = 0;

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
		return rc;	/* a thread did not start: nothing ran */

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
	if (s->job != NULL) {
		uint64_t intr = r->interrupted;

		fab_job_reduce(s->job, NULL, 0, &intr, 1);
		r->interrupted = !r->completed && intr != 0;
	}
	r->sim_ns = (s->done_ns ? s->done_ns : end) - s->t0;
	{
		uint64_t sums[2];

		fab_progress_sums(s, &sums[0], &sums[1]);
		if (s->job != NULL)
			fab_job_reduce(s->job, sums, 2, NULL, 0);
		fab_progress_print(s, s->done_ns ? s->done_ns : end, sums[0],
				   sums[1], true);
	}
	for (i = 0; i < s->nb_dirs; i++)
		if (!s->dirs[i].from_host && s->dirs[i].tx_local)
			fab_qwin_flush(&s->thr[s->dirs[i].tx_owner], i);
	r->nb_windows = (uint32_t)((end - s->t0) / p->queue_window_ns) + 1;
	return rc;
}
