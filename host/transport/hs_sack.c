/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reliable transport of one flow (hs_sack.h): sender and receiver state
 * machines, no EAL.
 *
 * Every sent PSN is in exactly one of three states: in flight (on the send
 * list), queued for retransmission (bit in tx->queued, entry in tx->retx)
 * or acknowledged (bit in tx->acked, final).  All work per ACK is bounded
 * by the packets it changes, never by the flow size, because a fabric
 * simulation runs this for millions of ACKs:
 *
 * - The send list links the packets in flight in the order they were
 *   (last) sent.  Send times only grow along it, so RACK's rule "lost if
 *   sent more than reorder_window_ns before the latest-sent acknowledged
 *   packet" only has to look at the head: it pops heads while they are old
 *   enough and stops at the first that is not.  A retransmission is
 *   unlinked and appended at the tail with its new send time, so if it is
 *   lost as well it is judged again, by packets sent after it.  An ACK
 *   unlinks what it acknowledges in O(1) (the list is doubly linked).
 *   rack_scan is the list head.
 *
 * - The retransmission queue is a FIFO ring.  An ACK for a queued packet
 *   (the original was late, not lost) just clears its queued bit; the
 *   stale ring entry is dropped when it reaches the head, which happens
 *   after every ACK and send, so hs_tx_next() reads a live head in O(1).
 *   A stale entry belongs to an acknowledged PSN, which is never queued
 *   again, so the ring holds each PSN at most once: nb_pkts + 1 slots.
 *
 * - An ACK acknowledges cum_psn, its SACK bits and its echoed PSN (the
 *   packet that triggered it, so the receiver has it): while a hole is
 *   older than the 64-PSN SACK window, the echo is what keeps RACK going.
 *   A retransmitted packet acknowledged less than the minimum RTT after
 *   its resend was an earlier copy arriving; its send time does not move
 *   RACK, or one spurious retransmission would make everything sent
 *   before it look lost (the ambiguity rule of RFC 8985).
 *
 * - nb_retx counts retransmissions actually sent (like nb_sent), not
 *   packets judged lost: a packet queued and then acknowledged before it
 *   was re-sent costs no bandwidth and is not counted.
 *
 * - The retransmission timer measures rto_ns from the last ACK that made
 *   progress, or from the send that put a packet in flight when nothing
 *   was (a flow that starts late, or resends after everything in flight
 *   was judged lost, must not time out at once).  It runs only while
 *   something is in flight: queued packets are waiting for the pacer, not
 *   for the network.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hs_sack.h"
#include "hs_transport.h"
#include "ofan_config.h"

static inline bool
bit_test(const uint64_t *bits, uint32_t i)
{
	return (bits[i >> 6] >> (i & 63)) & 1;
}

static inline void
bit_set(uint64_t *bits, uint32_t i)
{
	bits[i >> 6] |= 1ull << (i & 63);
}

static inline void
bit_clear(uint64_t *bits, uint32_t i)
{
	bits[i >> 6] &= ~(1ull << (i & 63));
}

static inline size_t
nb_words(uint32_t nb_bits)
{
	return ((size_t)nb_bits + 63) / 64;
}

/*
 * Per-PSN arrays of a long flow are large (a 2^24-packet flow's
 * retransmission ring is 64 MB, each chunk of its sender state 2 MB) and
 * are written one PSN after the other as the flow is sent.  Small ones
 * come from calloc.  Large ones are anonymous mappings,
 * zero until touched, on 2 MB boundaries and advised as transparent huge
 * pages: the first touch then costs one fault per 2 MB instead of one per
 * 4 KiB page and one TLB entry covers 2 MB of consecutive PSNs.  Without
 * THP (or if the kernel declines) the mapping still works with 4 KiB pages.
 */
#define HS_BIG_ALLOC (2u << 20)

static size_t
big_len(size_t len)
{
	return (len + HS_BIG_ALLOC - 1) & ~((size_t)HS_BIG_ALLOC - 1);
}

static void *
zalloc(size_t nb, size_t size)
{
	size_t len = nb * size;
	size_t map_len;
	uint8_t *p;
	uintptr_t start;
	size_t head;

	if (len < HS_BIG_ALLOC)
		return calloc(nb, size);
	len = big_len(len);
	map_len = len + HS_BIG_ALLOC;
	p = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* Keep the 2 MB-aligned part, give back the rest. */
	start = ((uintptr_t)p + HS_BIG_ALLOC - 1) & ~(uintptr_t)(HS_BIG_ALLOC - 1);
	head = start - (uintptr_t)p;
	if (head > 0)
		munmap(p, head);
	if (map_len - head - len > 0)
		munmap((uint8_t *)start + len, map_len - head - len);
#ifdef MADV_HUGEPAGE
	(void)madvise((void *)start, len, MADV_HUGEPAGE);
#endif
	return (void *)start;
}

static void
zfree(void *p, size_t nb, size_t size)
{
	size_t len = nb * size;

	if (p == NULL)
		return;
	if (len < HS_BIG_ALLOC)
		free(p);
	else
		munmap(p, big_len(len));
}

/* Packets of mss bytes needed for size bytes, 0 if either is 0. */
static uint64_t
nb_pkts_of(uint64_t size, uint16_t mss)
{
	if (size == 0 || mss == 0)
		return 0;
	return size / mss + (size % mss != 0);
}

/* PSNs in chunk i of tx (the last one may be short). */
static uint32_t
chunk_len(const struct hs_tx *tx, uint32_t i)
{
	uint32_t first = i << HS_PSN_CHUNK_SHIFT;

	return tx->nb_pkts - first < HS_PSN_CHUNK ? tx->nb_pkts - first :
		HS_PSN_CHUNK;
}

static void
chunk_free(struct hs_psn_chunk *c, uint32_t len)
{
	zfree(c->e, len, sizeof(*c->e));
	zfree(c->nb_tx, len, sizeof(*c->nb_tx));
	c->e = NULL;
	c->nb_tx = NULL;
}

/*
 * Make the next chunk, the one starting at made_below (new PSNs are sent
 * in order, so chunks are made in order): the spare if there is one and
 * the chunk is full (only full chunks are given up; every chunk but the
 * last is full), else new memory.  Send times and links are written
 * before they are read; the counts start at 0.
 */
static __attribute__((noinline)) int
chunk_make_next(struct hs_tx *tx)
{
	uint32_t i = tx->made_below >> HS_PSN_CHUNK_SHIFT;
	struct hs_psn_chunk *c = &tx->chunk[i];
	uint32_t len = chunk_len(tx, i);

	if (tx->spare.e != NULL && len == HS_PSN_CHUNK) {
		*c = tx->spare;
		tx->spare.e = NULL;
		tx->spare.nb_tx = NULL;
		memset(c->nb_tx, 0, len * sizeof(*c->nb_tx));
	} else {
		c->e = zalloc(len, sizeof(*c->e));
		c->nb_tx = zalloc(len, sizeof(*c->nb_tx));
		if (c->e == NULL || c->nb_tx == NULL) {
			chunk_free(c, len);
			tx->nb_chunk_fail++;
			return -ENOMEM;
		}
	}
	tx->made_below += len;
	return 0;
}

/*
 * psn's chunk, made if psn is the first PSN of the next one (psn is at
 * most next_new, which is at most made_below); NULL when out of memory.
 */
static inline struct hs_psn_chunk *
chunk_of(struct hs_tx *tx, uint32_t psn)
{
	if (__builtin_expect(psn >= tx->made_below, 0) &&
	    chunk_make_next(tx) != 0)
		return NULL;
	return &tx->chunk[psn >> HS_PSN_CHUNK_SHIFT];
}

/*
 * Give up the chunks whose PSNs, and the next chunk's, are all
 * acknowledged: nothing reads them any more but a late echo's RTT sample
 * (hs_tx_on_ack() takes none from a chunk that is gone).  The first one
 * is kept as the spare.
 */
static void
chunks_give_up(struct hs_tx *tx)
{
	while (((uint64_t)tx->chunks_given_up + 2) << HS_PSN_CHUNK_SHIFT <=
	       tx->cum_acked) {
		struct hs_psn_chunk *c = &tx->chunk[tx->chunks_given_up++];

		if (c->e == NULL)
			continue;
		if (tx->spare.e == NULL) {
			tx->spare = *c;
			c->e = NULL;
			c->nb_tx = NULL;
		} else {
			chunk_free(c, HS_PSN_CHUNK);
		}
	}
}

int
hs_tx_init(struct hs_tx *tx, uint64_t size, uint16_t mss,
	   uint64_t reorder_window_ns, uint64_t rto_ns, uint64_t now_ns)
{
	uint64_t nb_pkts = nb_pkts_of(size, mss);
	size_t words;

	memset(tx, 0, sizeof(*tx));
	if (nb_pkts == 0 || nb_pkts > HS_MAX_PKTS)
		return -EINVAL;
	tx->size = size;
	tx->mss = mss;
	tx->nb_pkts = (uint32_t)nb_pkts;
	tx->reorder_window_ns = reorder_window_ns;
	tx->rto_ns = rto_ns;
	tx->last_progress_ns = now_ns;
	tx->rack_scan = HS_PSN_NONE;
	tx->sent_tail = HS_PSN_NONE;
	tx->min_rtt_ns = UINT64_MAX;

	words = nb_words(tx->nb_pkts);
	tx->acked = zalloc(words, sizeof(*tx->acked));
	tx->queued = zalloc(words, sizeof(*tx->queued));
	tx->nb_chunks = (tx->nb_pkts + HS_PSN_CHUNK - 1) >> HS_PSN_CHUNK_SHIFT;
	tx->chunk = calloc(tx->nb_chunks, sizeof(*tx->chunk));
	/* One spare slot tells a full ring from an empty one. */
	tx->retx = zalloc(nb_pkts + 1, sizeof(*tx->retx));
	if (tx->acked == NULL || tx->queued == NULL || tx->chunk == NULL ||
	    tx->retx == NULL || chunk_make_next(tx) != 0) {
		hs_tx_fini(tx);
		return -ENOMEM;
	}
	return 0;
}

void
hs_tx_fini(struct hs_tx *tx)
{
	size_t words = nb_words(tx->nb_pkts);
	uint32_t i;

	zfree(tx->acked, words, sizeof(*tx->acked));
	zfree(tx->queued, words, sizeof(*tx->queued));
	for (i = 0; tx->chunk != NULL && i < tx->nb_chunks; i++)
		chunk_free(&tx->chunk[i], chunk_len(tx, i));
	free(tx->chunk);
	chunk_free(&tx->spare, HS_PSN_CHUNK);
	zfree(tx->retx, (size_t)tx->nb_pkts + 1, sizeof(*tx->retx));
	tx->acked = NULL;
	tx->queued = NULL;
	tx->chunk = NULL;
	tx->retx = NULL;
}

uint16_t
hs_tx_payload_size(const struct hs_tx *tx, uint32_t psn)
{
	if (psn >= tx->nb_pkts)
		return 0;
	if (psn + 1 < tx->nb_pkts)
		return tx->mss;
	return (uint16_t)(tx->size - (uint64_t)psn * tx->mss);
}

static inline uint32_t
retx_advance(const struct hs_tx *tx, uint32_t i)
{
	return i == tx->nb_pkts ? 0 : i + 1;
}

/* Drop ring entries at the head whose packet was acknowledged meanwhile. */
static void
retx_purge(struct hs_tx *tx)
{
	while (tx->retx_head != tx->retx_tail &&
	       !bit_test(tx->queued, tx->retx[tx->retx_head]))
		tx->retx_head = retx_advance(tx, tx->retx_head);
}

/*
 * Take psn, which is queued, out of the ring.  It is the head whenever the
 * caller sends what hs_tx_next() said; otherwise (a caller sending in its
 * own order) the entries behind it close the gap, which costs a scan but
 * keeps every PSN in the ring at most once.
 */
static void
retx_remove(struct hs_tx *tx, uint32_t psn)
{
	uint32_t i = tx->retx_head;
	uint32_t j;

	bit_clear(tx->queued, psn);
	if (tx->retx[i] != psn) {
		while (tx->retx[i] != psn)
			i = retx_advance(tx, i);
		for (j = retx_advance(tx, i); j != tx->retx_tail;
		     j = retx_advance(tx, j)) {
			tx->retx[i] = tx->retx[j];
			i = j;
		}
		tx->retx_tail = i;
	}
	retx_purge(tx);
}

static void
sent_unlink(struct hs_tx *tx, uint32_t psn)
{
	uint32_t prev = hs_tx_psn(tx, psn)->prev;
	uint32_t next = hs_tx_psn(tx, psn)->next;

	if (prev == HS_PSN_NONE)
		tx->rack_scan = next;
	else
		hs_tx_psn(tx, prev)->next = next;
	if (next == HS_PSN_NONE) {
		tx->sent_tail = prev;
		tx->tail_e = prev == HS_PSN_NONE ? NULL : hs_tx_psn(tx, prev);
	} else {
		hs_tx_psn(tx, next)->prev = prev;
	}
	tx->nb_in_flight--;
}

/* Append psn, whose state is e, to the send list. */
static void
sent_append(struct hs_tx *tx, uint32_t psn, struct hs_psn_state *e)
{
	e->prev = tx->sent_tail;
	e->next = HS_PSN_NONE;
	if (tx->sent_tail == HS_PSN_NONE)
		tx->rack_scan = psn;
	else
		tx->tail_e->next = psn;
	tx->tail_e = e;
	tx->sent_tail = psn;
	tx->nb_in_flight++;
}

/* Judge psn (in flight) lost: off the send list, into the queue. */
static void
mark_lost(struct hs_tx *tx, uint32_t psn)
{
	sent_unlink(tx, psn);
	bit_set(tx->queued, psn);
	tx->retx[tx->retx_tail] = psn;
	tx->retx_tail = retx_advance(tx, tx->retx_tail);
}

bool
hs_tx_nack(struct hs_tx *tx, uint32_t psn)
{
	/* Only a packet in flight: not acknowledged, not queued already. */
	if (psn >= tx->next_new || bit_test(tx->acked, psn) ||
	    bit_test(tx->queued, psn) || chunk_of(tx, psn) == NULL)
		return false;
	mark_lost(tx, psn);
	return true;
}

uint32_t
hs_tx_next(struct hs_tx *tx)
{
	/* Every update that can stale the head purges it (retx_purge()). */
	if (tx->retx_head != tx->retx_tail)
		return tx->retx[tx->retx_head];
	if (__builtin_expect(tx->next_new < tx->made_below, 1))
		return tx->next_new;
	if (tx->next_new >= tx->nb_pkts || chunk_of(tx, tx->next_new) == NULL)
		return HS_PSN_NONE;
	return tx->next_new;
}

void
hs_tx_sent(struct hs_tx *tx, uint32_t psn, uint64_t now_ns)
{
	bool idle = tx->nb_in_flight == 0;
	struct hs_psn_chunk *c;
	struct hs_psn_state *e;
	uint8_t *nb_tx;

	if (psn >= tx->nb_pkts || psn > tx->next_new ||
	    bit_test(tx->acked, psn))
		return;
	c = chunk_of(tx, psn);
	if (c == NULL)
		return;	/* not recorded: as if it never left */
	e = &c->e[psn & HS_PSN_CHUNK_MASK];
	nb_tx = &c->nb_tx[psn & HS_PSN_CHUNK_MASK];
	if (psn == tx->next_new) {
		tx->next_new++;
	} else {
		/* Sent before and not acknowledged: queued or in flight. */
		if (bit_test(tx->queued, psn))
			retx_remove(tx, psn);
		else
			sent_unlink(tx, psn);
		tx->nb_retx++;
	}
	if (idle)
		tx->last_progress_ns = now_ns;
	sent_append(tx, psn, e);
	e->sent_ns = now_ns;
	if (*nb_tx < UINT8_MAX)
		(*nb_tx)++;
	tx->nb_sent++;
}

/* Acknowledge psn (sent); returns 1 if that is news. */
static uint32_t
ack_one(struct hs_tx *tx, uint32_t psn, uint64_t now_ns)
{
	uint64_t sent_ns;

	if (bit_test(tx->acked, psn))
		return 0;
	if (bit_test(tx->queued, psn))
		bit_clear(tx->queued, psn);	/* ring entry purged later */
	else
		sent_unlink(tx, psn);
	bit_set(tx->acked, psn);
	tx->nb_acked++;
	/*
	 * A retransmitted packet acknowledged sooner than the minimum RTT
	 * after its last send was received as an earlier copy (the
	 * retransmission was spurious).  Taking its new send time would make
	 * every packet sent up to then look lost although its ACK cannot be
	 * back yet, and one spurious retransmission would trigger a burst.
	 * RACK (RFC 8985) ignores such packets for the same reason.
	 */
	sent_ns = hs_tx_psn(tx, psn)->sent_ns;
	if (hs_tx_nb_tx(tx, psn) > 1 &&
	    (now_ns < sent_ns || now_ns - sent_ns < tx->min_rtt_ns))
		return 1;
	if (sent_ns > tx->rack_sent_ns)
		tx->rack_sent_ns = sent_ns;
	return 1;
}

uint32_t
hs_tx_on_ack(struct hs_tx *tx, uint32_t cum_psn, uint64_t sack,
	     uint32_t echo_psn, bool ce, uint64_t now_ns, uint64_t *rtt_ns)
{
	/* A receiver cannot have what was never sent: clamp to next_new. */
	uint32_t cum = cum_psn < tx->next_new ? cum_psn : tx->next_new;
	uint32_t newly = 0;
	uint64_t rtt = 0;
	uint32_t psn;
	uint32_t head;

	tx->nb_acks++;
	if (ce)
		tx->nb_ce_acks++;
	if (hs_tx_has_psn(tx, echo_psn) && hs_tx_nb_tx(tx, echo_psn) == 1 &&
	    now_ns >= hs_tx_psn(tx, echo_psn)->sent_ns) {
		rtt = now_ns - hs_tx_psn(tx, echo_psn)->sent_ns;
		if (rtt < tx->min_rtt_ns)
			tx->min_rtt_ns = rtt;
	}
	if (rtt_ns != NULL)
		*rtt_ns = rtt;

	/*
	 * Everything below cum_acked is acknowledged already and cum_acked
	 * ends up at or above cum, so each PSN is walked here once per flow.
	 */
	for (psn = tx->cum_acked; psn < cum; psn++)
		newly += ack_one(tx, psn, now_ns);
	while (sack != 0) {
		uint64_t p = (uint64_t)cum_psn + 1 + __builtin_ctzll(sack);

		if (p >= tx->next_new)
			break;	/* bits go up: the rest is beyond too */
		newly += ack_one(tx, (uint32_t)p, now_ns);
		sack &= sack - 1;
	}
	/*
	 * The echoed packet triggered this ACK, so the receiver has it.  It
	 * matters when a hole is older than the SACK window: the bitmap then
	 * says nothing about recent packets, the echo still does, and RACK
	 * keeps detecting losses without waiting for the timer.
	 */
	if (echo_psn < tx->next_new)
		newly += ack_one(tx, echo_psn, now_ns);
	while (tx->cum_acked < tx->nb_pkts &&
	       bit_test(tx->acked, tx->cum_acked))
		tx->cum_acked++;
	if (tx->nb_chunks > 2)
		chunks_give_up(tx);
	if (newly > 0)
		tx->last_progress_ns = now_ns;

	/* RACK on the send list: oldest first, stop at the first too young. */
	head = tx->rack_scan;
	while (head != HS_PSN_NONE &&
	       hs_tx_psn(tx, head)->sent_ns < tx->rack_sent_ns &&
	       tx->rack_sent_ns - hs_tx_psn(tx, head)->sent_ns >
	       tx->reorder_window_ns) {
		mark_lost(tx, head);
		head = tx->rack_scan;
	}
	retx_purge(tx);
	return newly;
}

bool
hs_tx_check_timeout(struct hs_tx *tx, uint64_t now_ns)
{
	uint32_t psn;
	bool queued_any = false;

	if (tx->nb_in_flight == 0 || now_ns < tx->last_progress_ns ||
	    now_ns - tx->last_progress_ns < tx->rto_ns)
		return false;
	/*
	 * The oldest unacknowledged packet is what blocks the flow (and the
	 * tail of a flow has no later packets that RACK could judge it by).
	 * It was sent (something younger is in flight) and is queued
	 * already or in flight.
	 */
	psn = tx->cum_acked;
	if (!bit_test(tx->queued, psn)) {
		mark_lost(tx, psn);
		queued_any = true;
	}
	/* Whatever has been out for a whole RTO is given up as well. */
	psn = tx->rack_scan;
	while (psn != HS_PSN_NONE && hs_tx_psn(tx, psn)->sent_ns <= now_ns &&
	       now_ns - hs_tx_psn(tx, psn)->sent_ns >= tx->rto_ns) {
		mark_lost(tx, psn);
		queued_any = true;
		psn = tx->rack_scan;
	}
	/* cum_acked already queued and the rest young: retry the oldest. */
	if (!queued_any)
		mark_lost(tx, tx->rack_scan);
	tx->nb_timeouts++;
	tx->last_progress_ns = now_ns;
	return true;
}

uint64_t
hs_tx_timer_ns(const struct hs_tx *tx)
{
	if (tx->nb_in_flight == 0)
		return UINT64_MAX;
	if (tx->rto_ns > UINT64_MAX - tx->last_progress_ns)
		return UINT64_MAX;
	return tx->last_progress_ns + tx->rto_ns;
}

uint32_t
hs_tx_in_flight(const struct hs_tx *tx)
{
	return tx->nb_in_flight;
}

int
hs_rx_init(struct hs_rx *rx, uint32_t nb_pkts, uint16_t ack_every)
{
	memset(rx, 0, sizeof(*rx));
	if (nb_pkts == 0 || nb_pkts > HS_MAX_PKTS || ack_every == 0)
		return -EINVAL;
	rx->bits = zalloc(nb_words(nb_pkts), sizeof(*rx->bits));
	if (rx->bits == NULL)
		return -ENOMEM;
	rx->nb_pkts = nb_pkts;
	rx->ack_every = ack_every;
	return 0;
}

void
hs_rx_fini(struct hs_rx *rx)
{
	zfree(rx->bits, nb_words(rx->nb_pkts), sizeof(*rx->bits));
	rx->bits = NULL;
}

/* Bit i: PSN cum + 1 + i received (bits past nb_pkts are never set). */
static uint64_t
rx_sack(const struct hs_rx *rx)
{
	uint64_t start = (uint64_t)rx->cum + 1;
	uint64_t word = start >> 6;
	unsigned int off = start & 63;
	uint64_t sack;

	if (start >= rx->nb_pkts)
		return 0;
	sack = rx->bits[word] >> off;
	if (off != 0 && word + 1 < nb_words(rx->nb_pkts))
		sack |= rx->bits[word + 1] << (64 - off);
	return sack;
}

/* An ACK now, echoing psn (and its CE mark): the count starts again. */
static void
rx_ack(struct hs_rx *rx, uint32_t psn, bool ce, struct hs_ack_info *ack)
{
	ack->cum_psn = rx->cum;
	ack->sack = rx_sack(rx);
	ack->echo_psn = psn;
	ack->ce = ce;
	rx->since_ack = 0;
}

bool
hs_rx_on_data(struct hs_rx *rx, uint32_t psn, bool ce, bool *send_ack,
	      struct hs_ack_info *ack)
{
	bool is_new;
	bool at_once;

	*send_ack = false;
	if (psn >= rx->nb_pkts) {
		/* No valid PSN to echo: a corrupt or foreign packet. */
		rx->nb_out_of_range++;
		return false;
	}
	if (ce)
		rx->nb_ce++;
	rx->since_ack++;
	if (bit_test(rx->bits, psn)) {
		/*
		 * The sender retransmitted (or the network duplicated): an
		 * ACK may have been lost, so tell it at once.
		 */
		rx->nb_dups++;
		is_new = false;
		at_once = true;
	} else {
		/*
		 * In order means the next PSN with no hole before it.  A
		 * packet beyond a hole or filling one is ACKed at once so
		 * the sender's SACK view stays fresh (as RFC 5681 asks).
		 */
		bool in_order = psn == rx->cum && psn == rx->highest;
		bool at_cum = psn == rx->cum;

		is_new = true;
		bit_set(rx->bits, psn);
		rx->nb_received++;
		if (psn < rx->highest) {
			uint32_t reorder = rx->highest - 1 - psn;

			if (reorder > rx->max_reorder)
				rx->max_reorder = reorder;
		} else {
			rx->highest = psn + 1;
		}
		while (rx->cum < rx->nb_pkts && bit_test(rx->bits, rx->cum))
			rx->cum++;
		if (!rx->uec_acks) {
			at_once = !in_order || ce || hs_rx_done(rx) ||
				rx->since_ack >= rx->ack_every;
		} else {
			/* The first packet; an ack request's holes filled. */
			bool request = rx->ack_pending && at_cum &&
				rx->cum == rx->highest;

			at_once = rx->nb_received == 1 || request || ce ||
				hs_rx_done(rx) || rx->since_ack >= rx->ack_every;
			if (request)
				rx->ack_pending = false;
		}
	}
	if (at_once) {
		rx_ack(rx, psn, ce, ack);
		*send_ack = true;
	}
	return is_new;
}

bool
hs_rx_ack_request(struct hs_rx *rx, uint32_t psn, bool due,
		  struct hs_ack_info *ack)
{
	/*
	 * Ultra Ethernet's receiver ACKs again once the packets before it
	 * are in (uet-htsim 40ccb05, uec.cpp:2676-2702: _ack_request).
	 */
	if (rx->uec_acks && psn < rx->nb_pkts && rx->cum < rx->highest)
		rx->ack_pending = true;
	if (due || psn >= rx->nb_pkts)
		return false;
	rx_ack(rx, psn, false, ack);
	return true;
}

_Static_assert(sizeof(struct hs_tx) <= HS_RECOVERY_TX_STATE,
	       "sack's sender outgrew HS_RECOVERY_TX_STATE");
_Static_assert(sizeof(struct hs_rx) <= HS_RECOVERY_RX_STATE,
	       "sack's receiver outgrew HS_RECOVERY_RX_STATE");

/* ---- sack as a loss-recovery model (hs_transport.h) ---- */

static int
sack_tx_init(void *tx, const struct hs_transport_params *p, uint64_t size,
	     uint64_t now)
{
	return hs_tx_init(tx, size, p->mss, p->reorder_window_ns, p->rto_ns,
			  now);
}

static void
sack_tx_fini(void *tx)
{
	hs_tx_fini(tx);
}

/* A PSN sent before is a retransmission, and sack has no repairs apart. */
static void
sack_tx_next(void *tx, uint64_t now, struct hs_tx_pkt *pkt)
{
	struct hs_tx *t = tx;

	(void)now;
	pkt->psn = hs_tx_next(t);
	if (pkt->psn == HS_PSN_NONE)
		return;
	pkt->payload = hs_tx_payload_size(t, pkt->psn);
	pkt->resend = pkt->psn < t->next_new;
	pkt->repair = pkt->resend;
	pkt->grows = !pkt->resend;
}

static uint16_t
sack_tx_payload(const void *tx, uint32_t psn)
{
	return hs_tx_payload_size(tx, psn);
}

static void
sack_tx_sent(void *tx, uint32_t psn, uint64_t now)
{
	hs_tx_sent(tx, psn, now);
}

static void
sack_tx_on_ack(void *tx, const struct hs_ack_content *a, uint64_t now,
	       struct hs_tx_acked *r)
{
	if (__builtin_expect(a->nack, 0)) {
		/* Its PSN was trimmed, not received: no acknowledgement. */
		r->rtt_ns = 0;
		r->acked = 0;
		r->nack_rtt_ns = hs_tx_has_psn(tx, a->echo_psn) &&
			now >= hs_tx_psn(tx, a->echo_psn)->sent_ns ?
			now - hs_tx_psn(tx, a->echo_psn)->sent_ns : 0;
		r->nacked = hs_tx_nack(tx, a->echo_psn);
	} else {
		r->acked = hs_tx_on_ack(tx, a->cum, a->sack, a->echo_psn,
					a->ce, now, &r->rtt_ns);
	}
	r->done = hs_tx_done(tx);
}

static void
sack_tx_on_returned(void *tx, uint32_t psn, uint64_t now)
{
	(void)now;
	hs_tx_nack(tx, psn);
}

static bool
sack_tx_check_timeout(void *tx, uint64_t now)
{
	return hs_tx_check_timeout(tx, now);
}

static uint64_t
sack_tx_timer_ns(const void *tx)
{
	return hs_tx_timer_ns(tx);
}

static uint32_t
sack_tx_in_flight(const void *tx)
{
	return hs_tx_in_flight(tx);
}

static uint64_t
sack_tx_acked_bytes(const void *tx)
{
	const struct hs_tx *t = tx;

	return (uint64_t)t->nb_acked * t->mss;
}

static void
sack_tx_counters(const void *tx, uint64_t *sent, uint64_t *retx,
		 uint64_t *timeouts)
{
	const struct hs_tx *t = tx;

	*sent = t->nb_sent;
	*retx = t->nb_retx;
	*timeouts = t->nb_timeouts;
}

static void
sack_defaults(void *settings)
{
	((struct hs_sack_settings *)settings)->acks = HS_SACK_ACKS_RFC5681;
}

static int
sack_parse(struct ofan_cfg *cfg, const char *sec, void *settings)
{
	static const char *const names[] = { "rfc5681", "uec", NULL };
	struct hs_sack_settings *s = settings;
	int v = s->acks;

	if (ofan_cfg_get_enum(cfg, sec, "acks", 0, names, &v) != 0)
		return -1;
	s->acks = (uint8_t)v;
	return 0;
}

static int
sack_rx_init(void *rx, const struct hs_transport_params *p, uint32_t nb_pkts,
	     uint16_t ack_every)
{
	const struct hs_sack_settings *s = p->settings;
	int rc = hs_rx_init(rx, nb_pkts, ack_every);

	if (rc == 0 && s != NULL)
		hs_rx_set_uec(rx, s->acks == HS_SACK_ACKS_UEC);
	return rc;
}

static void
sack_rx_fini(void *rx)
{
	hs_rx_fini(rx);
}

static bool
sack_rx_on_data(void *rx, uint32_t psn, bool ce, bool *send_ack,
		struct hs_ack_content *ack)
{
	struct hs_ack_info i;
	bool is_new = hs_rx_on_data(rx, psn, ce, send_ack, &i);

	if (*send_ack) {
		ack->cum = i.cum_psn;
		ack->sack = i.sack;
		ack->echo_psn = i.echo_psn;
		ack->ce = i.ce;
	}
	return is_new;
}

/* The sender asked for an ACK of psn at once (hs_rx_ack_request()). */
static bool
sack_rx_ack_now(void *rx, uint32_t psn, bool due, struct hs_ack_content *ack)
{
	struct hs_ack_info i;

	if (!hs_rx_ack_request(rx, psn, due, &i))
		return due;
	ack->cum = i.cum_psn;
	ack->sack = i.sack;
	ack->echo_psn = i.echo_psn;
	ack->ce = i.ce;
	return true;
}

/* A trimmed header: NACK its PSN. */
bool
hs_sack_rx_on_trimmed(void *rx, uint32_t psn, struct hs_ack_content *nack)
{
	const struct hs_rx *r = rx;

	if (psn >= r->nb_pkts)
		return false;
	nack->cum = r->cum;
	nack->sack = 0;
	nack->echo_psn = psn;
	nack->ce = false;
	nack->nack = true;
	return true;
}

static bool
sack_rx_done(const void *rx)
{
	return hs_rx_done(rx);
}

static uint32_t
sack_rx_count(const void *rx)
{
	return ((const struct hs_rx *)rx)->nb_received;
}

static uint16_t
sack_rx_expect(const void *rx, uint32_t psn, uint64_t size, uint16_t mss)
{
	const struct hs_rx *r = rx;

	if (psn >= r->nb_pkts)
		return 0;
	return psn + 1 == r->nb_pkts ?
		(uint16_t)(size - (uint64_t)psn * mss) : mss;
}

void
hs_sack_rx_counters(const void *rx, uint32_t *max_reorder, uint64_t *dups,
		 uint64_t *ce)
{
	const struct hs_rx *r = rx;

	*max_reorder = r->max_reorder;
	*dups = r->nb_dups;
	*ce = r->nb_ce;
}

const struct hs_recovery_ops hs_recovery_sack = {
	.name = "sack",
	.flight_sheds_lost = true,
	.summary = "a PSN per packet, SACK + RACK, a retransmission timeout (RDMA-like)",
	.tx_size = sizeof(struct hs_tx),
	.rx_size = sizeof(struct hs_rx),
	.settings_size = sizeof(struct hs_sack_settings),
	.defaults = sack_defaults,
	.parse = sack_parse,
	.nb_pkts = hs_recovery_nb_pkts,
	.tx_init = sack_tx_init,
	.tx_fini = sack_tx_fini,
	.tx_next = sack_tx_next,
	.tx_sent = sack_tx_sent,
	.tx_payload = sack_tx_payload,
	.tx_on_ack = sack_tx_on_ack,
	.tx_on_returned = sack_tx_on_returned,
	.tx_check_timeout = sack_tx_check_timeout,
	.tx_timer_ns = sack_tx_timer_ns,
	.tx_in_flight = sack_tx_in_flight,
	.tx_acked_bytes = sack_tx_acked_bytes,
	.tx_counters = sack_tx_counters,
	.rx_init = sack_rx_init,
	.rx_fini = sack_rx_fini,
	.rx_on_data = sack_rx_on_data,
	.rx_on_trimmed = hs_sack_rx_on_trimmed,
	.rx_ack_now = sack_rx_ack_now,
	.rx_done = sack_rx_done,
	.rx_count = sack_rx_count,
	.rx_expect = sack_rx_expect,
	.rx_counters = hs_sack_rx_counters,
};
