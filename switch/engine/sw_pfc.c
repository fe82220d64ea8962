/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Priority flow control (IEEE 802.1Qbb) in the switch engine
 * (architecture.md, "PFC"), for ports with [queue] pfc = yes whose NIC
 * does not do it.
 *
 * Ingress side: a lossless port counts the bytes it brought in that its
 * worker still holds in any egress queue (each queued frame keeps its
 * ingress port beside it: sw_queue_track_ingress).  Above pfc_xoff it
 * sends its upstream a PFC frame with pfc_quanta for pfc_priority, again
 * every half of that time while it stays above pfc_xon, and a frame of
 * zero quanta once it falls below pfc_xon or holds nothing (so that
 * pfc_xon = 0, which the loader accepts, resumes an empty port).  What arrives beyond
 * pfc_xoff + headroom is dropped (pfc_headroom): the headroom, by
 * default the link's round trip at its rate and a frame either side, is
 * what the upstream can still send before the pause reaches it.
 *
 * Egress side: a PFC frame received on a port pauses its egress for the
 * quanta (512 bit times each at the link's rate; zero resumes at once),
 * from then: it reloads the pause timer, as IEEE 802.1Qbb's MAC does, so
 * a shorter pause ends a longer one early.  pfc_paused_ns counts the time
 * paused as it passes (ofan_pfc_pause_ran()): at the frame that reloads
 * the timer, and when the worker that received the pause sees it ran out.
 * A paused egress sends nothing but its own PFC frames; a frame it had
 * started (a peek not yet committed) finishes.  PFC frames leave ahead
 * of queued frames and are not queued themselves: the port keeps one
 * pending value, the newest, as a MAC does.
 *
 * Each worker counts its own queues: with several workers a port's
 * thresholds apply to each worker's share.  htsim's lossless queues
 * differ (docs/recovery.md): their pause is "until resumed", without
 * quanta, and reaches the upstream queue after the link's latency
 * without being serialised.
 */
#include <rte_common.h>
#include <rte_mbuf.h>

#include "ofan_wire.h"
#include "sw_engine_priv.h"

/* The bytes on the wire of a frame of len bytes (preamble, FCS, gap). */
#define SW_PFC_WIRE(len) ((uint64_t)(len) + 24)

static void
sw_pfc_set_link(struct sw_pfc_cfg *c, const struct sw_queue_config *q,
		uint64_t rate_bps, uint64_t delay_ns, uint32_t max_frame)
{
	c->rate_bps = rate_bps;
	c->headroom = q->pfc_headroom_bytes;
	if (c->headroom == 0)
		c->headroom = (2 * delay_ns * rate_bps + 8000000000ull - 1) /
			8000000000ull + 2 * SW_PFC_WIRE(max_frame) +
			SW_PFC_WIRE(OFAN_PFC_FRAME_SIZE);
	c->limit = c->xoff + c->headroom;
	c->refresh_ns = ofan_pfc_quanta_ns(c->quanta, rate_bps) / 2;
}

void
sw_pfc_init(struct sw_engine *eng)
{
	uint16_t p;

	for (p = 0; p < eng->cfg.nb_ports; p++) {
		const struct sw_queue_config *q = &eng->cfg.ports[p].queue;
		struct sw_pfc_cfg *c = &eng->pfc[p];

		memset(c, 0, sizeof(*c));
		c->on = q->pfc && q->pfc_mode != SW_PFC_NIC;
		c->prio = q->pfc_priority;
		c->quanta = q->pfc_quanta;
		c->xoff = q->pfc_xoff_bytes;
		c->xon = q->pfc_xon_bytes;
		sw_pfc_set_link(c, q, 100000000000ull, 0, 9216);
	}
}

void
sw_engine_set_pfc_link(struct sw_engine *eng, uint16_t port,
		       uint64_t rate_bps, uint64_t delay_ns,
		       uint32_t max_frame)
{
	if (port < eng->cfg.nb_ports && rate_bps != 0)
		sw_pfc_set_link(&eng->pfc[port], &eng->cfg.ports[port].queue,
				rate_bps, delay_ns, max_frame);
}

void
sw_engine_set_pfc_nic(struct sw_engine *eng, uint16_t port)
{
	uint16_t i, p;

	if (port >= eng->cfg.nb_ports)
		return;
	eng->pfc[port].on = false;
	for (i = 0; i < eng->nb_workers; i++) {
		struct sw_worker *w = &eng->workers[i];

		w->pfc_in_mask &= ~(SW_PORT_BIT(port));
		w->pfc_any = false;
		for (p = 0; p < eng->cfg.nb_ports; p++)
			w->pfc_any |= eng->pfc[p].on;
	}
}

void
sw_engine_pfc_limits(const struct sw_engine *eng, uint16_t port,
		     uint64_t *xoff, uint64_t *xon, uint64_t *headroom)
{
	*xoff = eng->pfc[port].xoff;
	*xon = eng->pfc[port].xon;
	*headroom = eng->pfc[port].headroom;
}

uint64_t
sw_worker_paused_until(const struct sw_worker *w, uint16_t port)
{
	return w->eng->port[port].pause_until;
}

int
sw_pfc_worker_init(struct sw_worker *w)
{
	const struct sw_engine *eng = w->eng;
	uint16_t p;

	for (p = 0; p < SW_MAX_PORTS; p++) {
		w->pfc[p].pending = -1;
		w->pfc[p].frame_quanta = -1;
	}
	for (p = 0; p < eng->cfg.nb_ports; p++)
		if (eng->pfc[p].on)
			w->pfc_in_mask |= SW_PORT_BIT(p);
	w->pfc_any = w->pfc_in_mask != 0;
	if (!w->pfc_any)
		return 0;
	/* Any egress queue may hold what a lossless port brought in. */
	for (p = 0; p < eng->cfg.nb_ports; p++)
		if (w->queue[p].enabled &&
		    sw_queue_track_ingress(&w->queue[p]) != 0)
			return -ENOMEM;
	return 0;
}

void
sw_pfc_worker_fini(struct sw_worker *w)
{
	uint16_t p;

	for (p = 0; p < SW_MAX_PORTS; p++) {
		rte_pktmbuf_free(w->pfc[p].frame);
		w->pfc[p].frame = NULL;
		w->pfc[p].frame_quanta = -1;
		w->pfc[p].pending = -1;
	}
	w->pfc_peeked = 0;
}

/* A PFC frame received on in_port: pause (or resume) its egress. */
void
sw_pfc_rx(struct sw_worker *w, uint16_t in_port, struct rte_mbuf *m,
	  const struct ofan_pkt_info *info, uint64_t now_ns)
{
	const struct sw_pfc_cfg *c = &w->eng->pfc[in_port];
	struct sw_port_state *ps = &w->eng->port[in_port];
	struct sw_port_stats *st = &w->port_st[in_port];
	uint16_t quanta;
	uint64_t dur;

	if (!c->on || !ofan_pfc_quanta(rte_pktmbuf_mtod(m, const uint8_t *),
				       info->l3_offset, c->prio, &quanta)) {
		w->drops[OFAN_DROP_PAUSE_IGNORED]++;
		st->drops++;
		rte_pktmbuf_free(m);
		return;
	}
	dur = ofan_pfc_quanta_ns(quanta, c->rate_bps);
	/* The timer reloads: what the pause it replaces ran is counted. */
	st->pfc_paused_ns += ofan_pfc_pause_ran(ps->pause_from,
						ps->pause_until, now_ns);
	ps->pause_from = now_ns;
	ps->pause_until = now_ns + dur;
	ps->pause_worker = w->id;
	st->pfc_pauses_received++;
	w->pfc_kick |= SW_PORT_BIT(in_port);
	rte_pktmbuf_free(m);
}

/* Port has a PFC frame of quanta to send (replacing any pending one). */
static inline void
sw_pfc_want(struct sw_worker *w, uint16_t port, int32_t quanta)
{
	w->pfc[port].pending = quanta;
	w->pfc_kick |= SW_PORT_BIT(port);
}

/* The frame just queued on q came in by lossless in_port. */
void
sw_pfc_queued(struct sw_worker *w, uint16_t in_port,
	      const struct sw_queue *q, uint64_t now_ns)
{
	const struct sw_pfc_cfg *c = &w->eng->pfc[in_port];
	struct sw_pfc_port *pp = &w->pfc[in_port];
	uint32_t slot = (q->tail - 1) & q->mask;

	q->in_ring[slot] = (uint8_t)in_port;
	pp->in_bytes += q->len_ring[slot];
	if (unlikely(w->pfc_pool == NULL))
		w->pfc_pool = q->ring[slot]->pool;
	if (!pp->xoff) {
		if (pp->in_bytes > c->xoff) {
			pp->xoff = true;
			pp->xoff_at = now_ns;
			sw_pfc_want(w, in_port, c->quanta);
		}
	} else if (now_ns - pp->xoff_at >= c->refresh_ns) {
		pp->xoff_at = now_ns;
		sw_pfc_want(w, in_port, c->quanta);
	}
}

/* A frame of len bytes that came in by in_port left its queue. */
void
sw_pfc_left(struct sw_worker *w, uint8_t in_port, uint32_t len)
{
	struct sw_pfc_port *pp = &w->pfc[in_port];

	pp->in_bytes -= len;
	/* Below xon, or holding nothing: pfc_xon = 0 resumes when empty. */
	if (pp->xoff && (pp->in_bytes < w->eng->pfc[in_port].xon ||
			 pp->in_bytes == 0)) {
		pp->xoff = false;
		sw_pfc_want(w, in_port, 0);
	}
}

/*
 * The peek of a worker with lossless ports (sw_worker_tx_peek): the
 * port's pending PFC frame alone, unless a queued frame was started
 * (latch); then, unless paused, the queue.  A paused port's started
 * frame still leaves.
 */
uint16_t
sw_pfc_peek(struct sw_worker *w, uint16_t port, uint64_t now_ns,
	    struct rte_mbuf **pkts, uint16_t max)
{
	struct sw_port_state *ps = &w->eng->port[port];
	struct sw_pfc_port *pp = &w->pfc[port];
	struct sw_queue *q = &w->queue[port];
	uint16_t n;

	w->pfc_peeked &= ~(SW_PORT_BIT(port));
	if (pp->pending >= 0 && !pp->latch) {
		if (pp->frame == NULL && w->pfc_pool != NULL) {
			pp->frame = rte_pktmbuf_alloc(w->pfc_pool);
			if (pp->frame != NULL &&
			    rte_pktmbuf_append(pp->frame,
					       OFAN_PFC_FRAME_SIZE) == NULL) {
				rte_pktmbuf_free(pp->frame);
				pp->frame = NULL;
			}
			pp->frame_quanta = -1;
		}
		if (pp->frame != NULL) {
			if (pp->frame_quanta != pp->pending) {
				ofan_build_pfc(rte_pktmbuf_mtod(pp->frame,
								uint8_t *),
					       OFAN_PFC_FRAME_SIZE,
					       w->eng->port[port].mac,
					       (uint8_t)(1u << w->eng->pfc[port].prio),
					       (uint16_t)pp->pending);
				pp->frame_quanta = pp->pending;
			}
			pkts[0] = pp->frame;
			w->peek_len[0] = OFAN_PFC_FRAME_SIZE;
			w->pfc_peeked |= SW_PORT_BIT(port);
			return 1;
		}
		/* No mbuf: the next peek tries again. */
	}
	if (unlikely(ps->pause_until > now_ns)) {
		if (!pp->latch)
			return 0;
		max = 1;
	} else if (unlikely(ps->pause_until != 0) &&
		   ps->pause_worker == w->id) {
		/* It ran out: all of it is time paused, counted once. */
		w->port_st[port].pfc_paused_ns +=
			ofan_pfc_pause_ran(ps->pause_from, ps->pause_until,
					   now_ns);
		ps->pause_until = 0;
	}
	if (sw_queue_len(q) == 0)
		return 0;
	n = sw_queue_peek(q, now_ns, pkts, w->peek_len, max);
	pp->latch = n > 0;
	return n;
}

/*
 * The commit of port on a worker with lossless ports: true if the peek
 * was the port's PFC frame (sent, or kept for the next peek), false if
 * it was queued frames, whose lossless ingress ports are credited here.
 */
bool
sw_pfc_commit(struct sw_worker *w, uint16_t port, uint16_t nb_sent)
{
	struct sw_pfc_port *pp = &w->pfc[port];
	struct sw_queue *q = &w->queue[port];
	uint16_t i, d;

	pp->latch = false;
	if (w->pfc_peeked >> port & 1) {
		struct sw_port_stats *st = &w->port_st[port];

		w->pfc_peeked &= ~(SW_PORT_BIT(port));
		if (nb_sent == 0)
			return true;
		if (pp->frame_quanta == 0)
			st->pfc_resumes_sent++;
		else
			st->pfc_pauses_sent++;
		st->tx_pkts++;
		st->tx_bytes += OFAN_PFC_FRAME_SIZE;
		pp->frame = NULL;
		pp->frame_quanta = -1;
		pp->pending = -1;
		return true;
	}
	if (q->in_ring == NULL)
		return false;
	/*
	 * The data frames sent are the first of the data queue, in order;
	 * a trimming queue's control frames (peek_ctrl) came in by no
	 * lossless port and have no slot there.
	 */
	for (i = 0, d = 0; i < nb_sent; i++) {
		uint8_t in;

		if (sw_queue_trims(q) && (q->peek_ctrl >> i & 1))
			continue;
		in = sw_queue_head_in(q, d++);
		if (in != SW_QUEUE_IN_NONE)
			sw_pfc_left(w, in, w->peek_len[i]);
	}
	return false;
}
