/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch engine's transmit side (sw_engine.h): a worker's egress
 * queues drained in bursts -- by ofan-switch's port TX or ofan-fabric's
 * link serialisers through peek and commit -- a failed link's queue
 * emptied into its drop reason, the direct TX hook, and the policy's
 * counters.  The per-burst receive pipeline is sw_worker.c.
 */
#include <rte_common.h>
#include <rte_mbuf.h>

#include "ofan_parse.h"
#include "sw_engine_priv.h"

void
sw_worker_set_direct_tx(struct sw_worker *w, sw_tx_fn fn, void *arg)
{
	w->tx_fn = fn;
	w->tx_arg = arg;
}

/* Empty the queue of a failed link, counting every packet as lost. */
static void
sw_worker_flush_failed(struct sw_worker *w, uint16_t port,
		       enum ofan_drop reason)
{
	struct sw_queue *q = &w->queue[port];
	struct rte_mbuf *m;

	while (q->in_ring != NULL && sw_queue_data_len(q) != 0) {
		uint8_t in = sw_queue_head_in(q, 0);

		if (in != SW_QUEUE_IN_NONE)
			sw_pfc_left(w, in, q->len_ring[q->head & q->mask]);
		m = sw_queue_pop(q);
		w->drops[reason]++;
		w->port_st[port].egress_drops++;
		rte_pktmbuf_free(m);
	}
	while ((m = sw_queue_pop(q)) != NULL) {
		w->drops[reason]++;
		w->port_st[port].egress_drops++;
		rte_pktmbuf_free(m);
	}
	w->port_level[port] = 0;
	w->port_len[port] = 0;
	w->port_bytes[port] = 0;
}

uint16_t
sw_worker_tx_peek(struct sw_worker *w, uint16_t port, uint64_t now_ns,
		  struct rte_mbuf **pkts, uint16_t max)
{
	const struct sw_port_state *ps = &w->eng->port[port];
	struct sw_queue *q = &w->queue[port];
	uint8_t link = ps->link;

	if (sw_worker_tx_idle(w, port))
		return 0;
	if (unlikely(link == SW_LINK_DOWN || link == SW_LINK_BLACKHOLE)) {
		sw_worker_flush_failed(w, port, link == SW_LINK_DOWN ?
				       OFAN_DROP_LINK_DOWN :
				       OFAN_DROP_BLACKHOLE);
		w->pfc[port].pending = -1;	/* no one to pause */
		return 0;
	}
	if (unlikely(link == SW_LINK_STALL))
		return 0;	/* nothing leaves: the queue fills */
	if (unlikely(q->rate_bps != ps->rate_bps))
		sw_queue_set_rate(q, ps->rate_bps);
	if (unlikely(q->permille != ps->queue_permille))
		sw_queue_set_scale(q, ps->queue_permille);
	if (max > SW_MAX_BURST)
		max = SW_MAX_BURST;
	if (unlikely(w->pfc_any))
		return sw_pfc_peek(w, port, now_ns, pkts, max);
	return sw_queue_peek(q, now_ns, pkts, w->peek_len, max);
}

void
sw_worker_tx_commit(struct sw_worker *w, uint16_t port, uint64_t now_ns,
		    struct rte_mbuf **pkts, uint16_t nb_peeked,
		    uint16_t nb_sent)
{
	struct sw_queue *q = &w->queue[port];
	struct sw_port_stats *st = &w->port_st[port];
	uint16_t nb_dropped, i;

	if (unlikely(w->pfc_any) && sw_pfc_commit(w, port, nb_sent))
		return;
	sw_queue_commit(q, now_ns, w->peek_len, nb_peeked, nb_sent,
			&nb_dropped);
	st->tx_pkts += nb_sent;
	for (i = 0; i < nb_sent; i++)
		st->tx_bytes += w->peek_len[i];
	if (nb_dropped != 0) {
		for (i = nb_sent; i < nb_peeked; i++)
			rte_pktmbuf_free(pkts[i]);
		w->drops[OFAN_DROP_TX_FULL] += nb_dropped;
		st->egress_drops += nb_dropped;
	}
	w->port_level[port] = sw_queue_level(q, &w->eng->cfg.levels);
	w->port_len[port] = sw_queue_len(q);
	w->port_bytes[port] = q->bytes;
}

void
sw_worker_dump_policy(const struct sw_worker *w,
		      void (*emit)(void *arg, const char *key, uint64_t value),
		      void *arg)
{
	const struct lb_ops *ops = w->eng->cfg.policy;

	if (ops->dump != NULL)
		ops->dump(w->lb_state, emit, arg);
}
