/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ofan_clock.h"
#include "ofan_wire.h"
#include "sw_queue.h"

int
sw_queue_init(struct sw_queue *q, const struct sw_queue_config *cfg,
	      uint16_t burst, int socket)
{
	uint32_t size;

	memset(q, 0, sizeof(*q));
	q->permille = 1000;
	q->enabled = cfg->enabled;
	if (cfg->enabled) {
		q->cap_pkts = cfg->capacity_pkts;
		q->cap_bytes = cfg->capacity_bytes;
		q->ecn = cfg->ecn;
		q->kmin = cfg->ecn_kmin_bytes;
		q->kmax = cfg->ecn_kmax_bytes;
		q->pmax = cfg->ecn_pmax;
		q->to_host = cfg->to_host;
		q->rate_bps = cfg->rate_bps;
		q->frame = cfg->frame;
		q->cap0_bytes = q->cap_bytes;
		q->kmin0 = q->kmin;
		q->kmax0 = q->kmax;
	} else {
		/* A staging buffer: one receive burst per input port fits
		 * (only ofan-switch has one: a fabric's queues are on). */
		q->cap_pkts = (uint32_t)burst * SW_MAX_ETHPORTS;
		q->cap_bytes = UINT64_MAX;
		ofan_frame_model_ethernet(&q->frame);
	}
	/*
	 * Rounded up with 40 fractional bits: exact for len < cap <= 2^20
	 * (the error len / 2^40 stays below the 1 / cap gap to the next bin).
	 */
	q->hist_mult = (((uint64_t)SW_QUEUE_HIST_BINS << 40) + q->cap_pkts - 1) /
		q->cap_pkts;
	/*
	 * The ring starts small and doubles when it fills below capacity
	 * (sw_queue_grow): a deep queue that bytes bound long before its
	 * packet capacity never holds its thousands of slots, and a fabric
	 * has thousands of such queues.
	 */
	size = RTE_MIN(rte_align32pow2(q->cap_pkts + 1), SW_QUEUE_FIRST_RING);
	q->socket = socket;
	q->ring = rte_malloc_socket("sw_queue", size * sizeof(*q->ring),
				    RTE_CACHE_LINE_SIZE, socket);
	q->len_ring = rte_malloc_socket("sw_queue_len",
					size * sizeof(*q->len_ring),
					RTE_CACHE_LINE_SIZE, socket);
	if (q->ring == NULL || q->len_ring == NULL) {
		rte_free(q->ring);
		rte_free(q->len_ring);
		q->ring = NULL;
		q->len_ring = NULL;
		return -ENOMEM;
	}
	q->mask = size - 1;
	if (cfg->enabled && cfg->trim != SW_TRIM_OFF) {
		struct sw_ctrlq *c = &q->ctrl;

		q->trim = cfg->trim;
		q->rts = cfg->rts;
		q->ctrl_acks = cfg->ctrl_acks;
		q->trim_either = cfg->trim_either;
		c->cap_pkts = cfg->ctrl_capacity_pkts != 0 ?
			cfg->ctrl_capacity_pkts : 2 * q->cap_pkts;
		c->cap_bytes = cfg->ctrl_capacity_bytes != 0 ?
			cfg->ctrl_capacity_bytes : 2 * q->cap_bytes;
		/* Fixed: a control queue holds headers, a few at a time. */
		size = rte_align32pow2(c->cap_pkts + 1);
		c->ring = rte_malloc_socket("sw_ctrlq", size * sizeof(*c->ring),
					    RTE_CACHE_LINE_SIZE, socket);
		c->len_ring = rte_malloc_socket("sw_ctrlq_len",
						size * sizeof(*c->len_ring),
						RTE_CACHE_LINE_SIZE, socket);
		if (c->ring == NULL || c->len_ring == NULL) {
			rte_free(c->ring);
			rte_free(c->len_ring);
			rte_free(q->ring);
			rte_free(q->len_ring);
			memset(q, 0, sizeof(*q));
			return -ENOMEM;
		}
		c->mask = size - 1;
	}
	return 0;
}

int
sw_queue_track_ingress(struct sw_queue *q)
{
	q->in_ring = rte_malloc_socket("sw_queue_in",
				       (q->mask + 1) * sizeof(*q->in_ring),
				       RTE_CACHE_LINE_SIZE, q->socket);
	return q->in_ring == NULL ? -ENOMEM : 0;
}

struct rte_mbuf *
sw_queue_pop(struct sw_queue *q)
{
	struct sw_ctrlq *c = &q->ctrl;
	struct rte_mbuf *m;

	q->latch = 0;
	if (c->head != c->tail) {
		m = c->ring[c->head & c->mask];
		c->bytes -= c->len_ring[c->head & c->mask];
		c->head++;
		return m;
	}
	if (q->ring == NULL || q->head == q->tail)
		return NULL;
	m = q->ring[q->head & q->mask];
	q->bytes -= q->len_ring[q->head & q->mask];
	q->head++;
	return m;
}

bool
sw_queue_grow(struct sw_queue *q)
{
	uint32_t size = 2 * (q->mask + 1), i;
	struct rte_mbuf **ring = rte_malloc_socket("sw_queue",
						   size * sizeof(*ring),
						   RTE_CACHE_LINE_SIZE,
						   q->socket);
	uint32_t *lens = rte_malloc_socket("sw_queue_len",
					   size * sizeof(*lens),
					   RTE_CACHE_LINE_SIZE, q->socket);
	uint8_t *ins = q->in_ring == NULL ? NULL :
		rte_malloc_socket("sw_queue_in", size, RTE_CACHE_LINE_SIZE,
				  q->socket);

	if (ring == NULL || lens == NULL ||
	    (q->in_ring != NULL && ins == NULL)) {
		rte_free(ring);
		rte_free(lens);
		rte_free(ins);
		return false;
	}
	for (i = q->head; i != q->tail; i++) {
		ring[i & (size - 1)] = q->ring[i & q->mask];
		lens[i & (size - 1)] = q->len_ring[i & q->mask];
		if (ins != NULL)
			ins[i & (size - 1)] = q->in_ring[i & q->mask];
	}
	rte_free(q->ring);
	rte_free(q->len_ring);
	rte_free(q->in_ring);
	q->ring = ring;
	q->len_ring = lens;
	q->in_ring = ins;
	q->mask = size - 1;
	return true;
}

uint32_t
sw_queue_fini(struct sw_queue *q)
{
	struct rte_mbuf *m;
	uint32_t n = 0;

	if (q->ring == NULL)
		return 0;
	while ((m = sw_queue_pop(q)) != NULL) {
		rte_pktmbuf_free(m);
		n++;
	}
	rte_free(q->ring);
	rte_free(q->len_ring);
	rte_free(q->in_ring);
	rte_free(q->ctrl.ring);
	rte_free(q->ctrl.len_ring);
	q->ring = NULL;
	q->len_ring = NULL;
	q->in_ring = NULL;
	q->ctrl.ring = NULL;
	q->ctrl.len_ring = NULL;
	return n;
}

void
sw_queue_mark_ce(struct rte_mbuf *m, uint16_t l3_offset)
{
	struct ofan_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct ofan_ipv4_hdr *, l3_offset);
	uint16_t old_word = rte_be_to_cpu_16(*(uint16_t *)ip);
	uint16_t new_word;
	uint32_t sum;

	ip->tos |= OFAN_ECN_CE;
	new_word = rte_be_to_cpu_16(*(uint16_t *)ip);
	sum = (uint16_t)~rte_be_to_cpu_16(ip->checksum);
	sum += (uint16_t)~old_word;
	sum += new_word;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->checksum = rte_cpu_to_be_16((uint16_t)~sum);
}

/* ---- trimming ---- */

/*
 * Where m's IPv4 header and BTH start, from its own bytes (Ethernet, any
 * VLAN tags, IPv4 with options, UDP); false if its first segment does
 * not hold them.
 */
static bool
sw_trim_offsets(const struct rte_mbuf *m, uint32_t *l3, uint32_t *bth)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), off = OFAN_ETH_HDR_SIZE;

	while (off + 4 <= len && f[off - 2] == 0x81 && f[off - 1] == 0x00)
		off += 4;
	if (off >= len)
		return false;
	*l3 = off;
	*bth = off + (uint32_t)(f[off] & 0x0f) * 4 + OFAN_UDP_HDR_SIZE;
	return *bth + OFAN_BTH_SIZE <= len;
}

/* Whether the frame whose BTH is at bth carries mark. */
static inline bool
sw_trim_marked(const struct rte_mbuf *m, uint32_t bth, uint8_t mark)
{
	return (rte_pktmbuf_mtod(m, const uint8_t *)
		[bth + OFAN_BTH_MARK_OFFSET] & mark) != 0;
}

/* A marked frame's kind under the frame model: a cut header or data. */
static inline uint8_t
sw_trim_kind(const struct rte_mbuf *m, uint32_t bth)
{
	return m->pkt_len <= bth + OFAN_BTH_SIZE ? OFAN_FRAME_HEADER :
						  OFAN_KIND_DATA;
}

/*
 * Cut data frame m to its headers (SW_TRIM_HEADER) or leave its size
 * (SW_TRIM_FULL), and mark it trimmed.  IPv4 and UDP lengths and the
 * IPv4 checksum follow the cut; RoCEv2 sends no UDP checksum (a frame
 * that has one gets 0, which IPv4 allows).  False if m's headers are
 * not in its first segment (the caller drops it).
 */
static bool
sw_trim(struct sw_queue *q, struct rte_mbuf *m, uint32_t *bth_out)
{
	uint32_t l3, bth, hdr, cut = 0;
	uint8_t *f;

	if (!sw_trim_offsets(m, &l3, &bth))
		return false;
	hdr = bth + OFAN_BTH_SIZE;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	if (q->trim == SW_TRIM_HEADER && m->pkt_len > hdr) {
		struct ofan_ipv4_hdr *ip = (struct ofan_ipv4_hdr *)(f + l3);
		struct ofan_udp_hdr *udp =
			(struct ofan_udp_hdr *)(f + bth - OFAN_UDP_HDR_SIZE);

		cut = m->pkt_len - hdr;
		if (m->next != NULL) {
			/* The headers are in the first segment: drop the rest. */
			rte_pktmbuf_free(m->next);
			m->next = NULL;
			m->nb_segs = 1;
			m->pkt_len = m->data_len;
		}
		if (rte_pktmbuf_trim(m, (uint16_t)(m->data_len - hdr)) != 0)
			return false;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(hdr - l3));
		udp->length = rte_cpu_to_be_16(OFAN_UDP_HDR_SIZE +
					       OFAN_BTH_SIZE);
		udp->checksum = 0;
		ip->checksum = 0;
		ip->checksum = ofan_ipv4_checksum(ip,
					(ip->version_ihl & 0x0f) * 4u);
	}
	f[bth + OFAN_BTH_MARK_OFFSET] |= OFAN_BTH_MARK_TRIMMED |
		(q->to_host ? OFAN_BTH_MARK_LAST_HOP : 0);
	q->st.trimmed_pkts++;
	q->st.trimmed_bytes += cut;
	*bth_out = bth;
	return true;
}

/* Put m (of kind, as the frame model counts it) on the control queue. */
static bool
sw_ctrl_put(struct sw_queue *q, struct rte_mbuf *m, uint8_t kind)
{
	struct sw_ctrlq *c = &q->ctrl;
	uint32_t size = ofan_frame_queue_bytes(&q->frame, kind, m->pkt_len);
	uint32_t len = c->tail - c->head;

	if (len >= c->cap_pkts || c->bytes + size > c->cap_bytes)
		return false;
	c->ring[c->tail & c->mask] = m;
	c->len_ring[c->tail & c->mask] = size;
	c->tail++;
	c->bytes += size;
	q->st.ctrl_pkts++;
	if (len + 1 > q->st.ctrl_max_pkts)
		q->st.ctrl_max_pkts = len + 1;
	return true;
}

/*
 * A trimmed frame m for the control queue: queued; returned to its
 * sender (rts, and not returned once already); or dropped.
 */
static enum sw_enq_result
sw_ctrl_header(struct sw_queue *q, struct rte_mbuf *m, uint32_t bth,
	       struct rte_mbuf **ret)
{
	bool returned = sw_trim_marked(m, bth, OFAN_BTH_MARK_RETURNED);

	*ret = m;
	if (q->rts == SW_RTS_ALWAYS && !returned)
		return SW_ENQ_RETURN;
	if (sw_ctrl_put(q, m, sw_trim_kind(m, bth))) {
		*ret = NULL;
		return SW_ENQ_QUEUED;
	}
	if (q->rts == SW_RTS_OVERFLOW && !returned)
		return SW_ENQ_RETURN;
	q->st.ctrl_drop_pkts++;
	return SW_ENQ_CTRL_FULL;
}

enum sw_enq_result
sw_queue_enqueue_ctl(struct sw_queue *q, struct rte_mbuf *m, uint8_t kind,
		     uint16_t l3_offset, bool ecn_capable, struct ofan_rng *rng,
		     struct rte_mbuf **ret)
{
	struct rte_mbuf *victim;
	uint32_t l3, bth, len, size, vsize;
	uint8_t vkind;

	*ret = NULL;
	if (kind == OFAN_KIND_ACK && q->ctrl_acks) {
		if (sw_ctrl_put(q, m, kind))
			return SW_ENQ_QUEUED;
		q->st.ctrl_drop_pkts++;
		*ret = m;
		return SW_ENQ_CTRL_FULL;
	}
	/* ACKs share the data queue (ctrl_acks = no): htsim's rule below
	 * picks among them too; an ACK cannot be trimmed, so a chosen one
	 * is dropped. */
	if (kind != OFAN_KIND_DATA &&
	    !(kind == OFAN_KIND_ACK && q->trim_either))
		goto plain;
	if (kind == OFAN_KIND_DATA && sw_trim_offsets(m, &l3, &bth) &&
	    sw_trim_marked(m, bth, OFAN_BTH_MARK_TRIMMED))
		return sw_ctrl_header(q, m, bth, ret);	/* trimmed upstream */
	len = sw_queue_data_len(q);
	size = ofan_frame_queue_bytes(&q->frame, kind, m->pkt_len);
	if (len < q->cap_pkts && q->bytes + size <= q->cap_bytes)
		goto plain;
	/*
	 * It does not fit.  The victim is the arriving frame, or, half the
	 * time (trim_either, htsim's CompositeQueue), the newest frame
	 * queued -- never the one a link has started sending (the latched
	 * head) -- whose place the arriving frame takes even when it is
	 * larger, so the bytes may pass the bound by the difference, as in
	 * htsim.
	 */
	victim = m;
	vkind = kind;
	vsize = size;
	if (q->trim_either && len > (q->latch == 1 ? 1u : 0u) &&
	    ofan_rng_unit(rng) < 0.5) {
		uint32_t slot = (q->tail - 1) & q->mask;

		victim = q->ring[slot];
		vsize = q->len_ring[slot];
		vkind = ofan_frame_kind(rte_pktmbuf_mtod(victim,
							 const uint8_t *),
					rte_pktmbuf_data_len(victim));
		/* It was queued and stays counted so (enqueues and their
		 * histogram never decrease); it leaves as trimmed or
		 * dropped. */
		q->tail--;
		q->bytes -= vsize;
		sw_queue_put(q, m, size, len - 1, l3_offset, ecn_capable, rng);
	}
	if (vkind != OFAN_KIND_DATA || !sw_trim(q, victim, &bth)) {
		q->st.drop_pkts++;
		q->st.drop_bytes += vsize;
		*ret = victim;
		return SW_ENQ_DROPPED;
	}
	return sw_ctrl_header(q, victim, bth, ret);
plain:
	if (sw_queue_enqueue(q, m, kind, l3_offset, ecn_capable, rng))
		return SW_ENQ_QUEUED;
	*ret = m;
	return SW_ENQ_DROPPED;
}

/* Append the frame at ring slot i of ring/lens to the peek (n frames). */
#define SW_PEEK_TAKE(ring_, lens_, i_)					\
	do {								\
		pkts[n] = (ring_)[i_];					\
		lens[n] = (lens_)[i_];					\
	} while (0)

/*
 * The peek of a trimming queue: the latched data frame first if the last
 * peek began with one, then control frames, then data, each in FIFO
 * order (so a commit pops prefixes of both FIFOs); shaped as the plain
 * peek.
 */
static uint16_t
sw_queue_peek_ctl(struct sw_queue *q, uint64_t now_ns, struct rte_mbuf **pkts,
		  uint32_t *lens, uint16_t max)
{
	const struct sw_ctrlq *c = &q->ctrl;
	uint32_t ci = c->head, di = q->head;
	uint64_t t = q->next_tx_ns, bits = 0;
	bool shaped = q->rate_bps != 0;
	uint16_t n = 0;

	if (max > 64)
		max = 64;	/* peek_ctrl has a bit per frame */
	while (n < max && (!shaped || t <= now_ns)) {
		bool ctl = ci != c->tail &&
			!(n == 0 && q->latch == 1 && di != q->tail);

		if (ctl) {
			SW_PEEK_TAKE(c->ring, c->len_ring, ci & c->mask);
			ci++;
			bits |= UINT64_C(1) << n;
		} else if (di != q->tail) {
			SW_PEEK_TAKE(q->ring, q->len_ring, di & q->mask);
			di++;
		} else {
			break;
		}
		if (shaped)
			t += ofan_tx_time_ns(lens[n] + q->frame.overhead,
					     q->rate_bps);
		n++;
	}
	q->peek_ctrl = bits;
	if (n > 0)
		q->latch = bits & 1 ? 2 : 1;
	return n;
}

uint16_t
sw_queue_peek(struct sw_queue *q, uint64_t now_ns, struct rte_mbuf **pkts,
	      uint32_t *lens, uint16_t max)
{
	uint32_t len = sw_queue_data_len(q);
	uint64_t t;
	uint16_t n;

	if (unlikely(sw_queue_trims(q)))
		return sw_queue_peek_ctl(q, now_ns, pkts, lens, max);
	if (len < max)
		max = (uint16_t)len;
	if (q->rate_bps == 0) {
		for (n = 0; n < max; n++) {
			pkts[n] = q->ring[(q->head + n) & q->mask];
			lens[n] = q->len_ring[(q->head + n) & q->mask];
		}
		return max;
	}
	/*
	 * Shaped: packets leave back to back at the rate from when the link
	 * is free (next_tx_ns), and every one whose start time has come is
	 * released, however coarsely the driver polls.  An idle link banks
	 * no credit: a packet that finds the queue empty moves next_tx_ns up
	 * to its arrival (sw_engine.c, which knows the time).
	 */
	t = q->next_tx_ns;
	for (n = 0; n < max && t <= now_ns; n++) {
		pkts[n] = q->ring[(q->head + n) & q->mask];
		lens[n] = q->len_ring[(q->head + n) & q->mask];
		t += ofan_tx_time_ns(lens[n] + q->frame.overhead, q->rate_bps);
	}
	return n;
}

void
sw_queue_commit(struct sw_queue *q, uint64_t now_ns, const uint32_t *lens,
		uint16_t nb_peeked, uint16_t nb_sent, uint16_t *nb_dropped)
{
	uint16_t i, gone = nb_sent;
	uint64_t sent_bytes = 0;

	/* Sent mbufs belong to the driver now: only their lengths are read. */
	for (i = 0; i < nb_sent; i++)
		sent_bytes += lens[i];
	/* They started back to back from next_tx_ns (see sw_queue_peek()). */
	if (q->rate_bps != 0 && nb_sent > 0)
		q->next_tx_ns += ofan_tx_time_ns(sent_bytes +
				(uint64_t)nb_sent * q->frame.overhead,
				q->rate_bps);
	q->st.deq_pkts += nb_sent;
	q->st.deq_bytes += sent_bytes;
	*nb_dropped = 0;
	if (unlikely(sw_queue_trims(q))) {
		/* A trimming queue is enabled: nothing peeked is dropped. */
		for (i = 0; i < nb_sent; i++) {
			if (q->peek_ctrl >> i & 1) {
				q->ctrl.bytes -= lens[i];
				q->ctrl.head++;
			} else {
				q->bytes -= lens[i];
				q->head++;
			}
		}
		q->latch = 0;
		q->peek_ctrl = 0;
		return;
	}
	if (!q->enabled && nb_peeked > nb_sent) {
		*nb_dropped = nb_peeked - nb_sent;
		for (i = nb_sent; i < nb_peeked; i++)
			q->bytes -= lens[i];
		gone = nb_peeked;
	}
	q->bytes -= sent_bytes;
	q->head += gone;
}

void
sw_queue_set_rate(struct sw_queue *q, uint64_t rate_bps)
{
	if (q->enabled)
		q->rate_bps = rate_bps;
}

void
sw_queue_set_scale(struct sw_queue *q, uint16_t permille)
{
	q->permille = permille;
	if (!q->enabled)
		return;
	q->cap_bytes = q->cap0_bytes == UINT64_MAX ? UINT64_MAX :
		RTE_MAX(q->cap0_bytes * permille / 1000, (uint64_t)1);
	q->kmin = q->kmin0 * permille / 1000;
	q->kmax = q->kmax0 * permille / 1000;
}
