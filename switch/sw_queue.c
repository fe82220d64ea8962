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
	q->enabled = cfg->enabled;
	if (cfg->enabled) {
		q->cap_pkts = cfg->capacity_pkts;
		q->cap_bytes = cfg->capacity_bytes;
		q->ecn = cfg->ecn;
		q->kmin = cfg->ecn_kmin_bytes;
		q->kmax = cfg->ecn_kmax_bytes;
		q->pmax = cfg->ecn_pmax;
		q->rate_bps = cfg->rate_bps;
		q->frame = cfg->frame;
	} else {
		/* A staging buffer: one receive burst per input port fits. */
		q->cap_pkts = (uint32_t)burst * SW_MAX_PORTS;
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
	return 0;
}

/* Double the ring, keeping the frames in order; false when out of memory. */
static bool
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

	if (ring == NULL || lens == NULL) {
		rte_free(ring);
		rte_free(lens);
		return false;
	}
	for (i = q->head; i != q->tail; i++) {
		ring[i & (size - 1)] = q->ring[i & q->mask];
		lens[i & (size - 1)] = q->len_ring[i & q->mask];
	}
	rte_free(q->ring);
	rte_free(q->len_ring);
	q->ring = ring;
	q->len_ring = lens;
	q->mask = size - 1;
	return true;
}

uint32_t
sw_queue_fini(struct sw_queue *q)
{
	uint32_t n = 0;

	if (q->ring == NULL)
		return 0;
	while (q->head != q->tail) {
		rte_pktmbuf_free(q->ring[q->head & q->mask]);
		q->head++;
		n++;
	}
	rte_free(q->ring);
	rte_free(q->len_ring);
	q->ring = NULL;
	q->len_ring = NULL;
	return n;
}

/* Set CE in place and fix the IPv4 checksum incrementally (RFC 1624). */
static inline void
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

/*
 * RED-like marking on the instantaneous queue in bytes at arrival: never
 * below kmin, always above kmax, linearly up to pmax in between.
 */
static inline bool
sw_queue_should_mark(const struct sw_queue *q, struct ofan_rng *rng)
{
	double p;

	if (q->bytes <= q->kmin)
		return false;
	if (q->bytes > q->kmax)
		return true;
	p = q->pmax * (double)(q->bytes - q->kmin) /
		(double)(q->kmax - q->kmin);
	return ofan_rng_unit(rng) < p;
}

bool
sw_queue_enqueue(struct sw_queue *q, struct rte_mbuf *m, uint8_t kind,
		 uint16_t l3_offset, bool ecn_capable, struct ofan_rng *rng)
{
	uint32_t len = sw_queue_len(q);
	uint32_t size = ofan_frame_queue_bytes(&q->frame, kind, m->pkt_len);
	uint32_t bin;

	if (len >= q->cap_pkts || q->bytes + size > q->cap_bytes ||
	    (unlikely(len > q->mask) && !sw_queue_grow(q))) {
		q->st.drop_pkts++;
		q->st.drop_bytes += size;
		return false;
	}
	if (q->ecn && ecn_capable && sw_queue_should_mark(q, rng)) {
		sw_queue_mark_ce(m, l3_offset);
		q->st.ecn_marked++;
	}
	/* len < cap_pkts, so the bin is below SW_QUEUE_HIST_BINS. */
	bin = sw_queue_hist_bin(q, len);
	q->st.hist[bin]++;
	q->ring[q->tail & q->mask] = m;
	q->len_ring[q->tail & q->mask] = size;
	q->tail++;
	q->bytes += size;
	q->st.enq_pkts++;
	q->st.enq_bytes += size;
	len++;
	if (len > q->st.max_pkts)
		q->st.max_pkts = len;
	if (q->bytes > q->st.max_bytes)
		q->st.max_bytes = q->bytes;
	return true;
}

uint16_t
sw_queue_peek(struct sw_queue *q, uint64_t now_ns, struct rte_mbuf **pkts,
	      uint32_t *lens, uint16_t max)
{
	uint32_t len = sw_queue_len(q);
	uint64_t t;
	uint16_t n;

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
