/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Round-robin service of the inputs a forwarding lcore polls (its RX
 * queues), in front of sw_worker_input(): one polling round takes a
 * burst from each input, then the caller drains the egress queues.
 *
 * Polled in one fixed order, the input polled last finds the egress
 * queues the others just filled: under overload it takes every
 * queue_full drop while the others lose none (or, when the queues have
 * room for less than a burst a round, the input polled first gets
 * through and the others lose nearly everything).  Instead each round
 * starts after the input that had the previous round's first frames, so
 * every busy input is served first, and last, once in as many rounds as
 * there are busy inputs, however many idle ones lie between them.  (A
 * start one further on each round would not be even: an input polled
 * after idle ones would be last more often.)
 *
 * The trade-off: fairness between inputs is by rounds, not by bytes (a
 * burst is at most [switch] burst frames from each input, whatever their
 * sizes), which is what a round of equal bursts needs and costs a compare
 * per busy input and round, nothing per packet.
 */
#ifndef OFAN_SW_RX_RR_H
#define OFAN_SW_RX_RR_H

#include <stdint.h>

#include <rte_common.h>

/*
 * Poll input i (0 <= i < nb) once: take a burst and hand it to the
 * engine.  Returns the frames it had.
 */
typedef uint16_t (*sw_rx_poll_fn)(void *arg, uint16_t i);

/*
 * One round over nb inputs: poll(arg, i) for each i once, from *next on
 * (0 <= *next <= nb; nb is 0), then from 0.  *next, the caller's, 0 at
 * the start, becomes the input after the first that had frames; a round
 * where none had any leaves it.  Returns the frames of the round.
 *
 * Always inlined, so that a caller passing its own static poll function
 * calls it directly (no indirect call per burst).
 */
static __rte_always_inline uint32_t
sw_rx_rr_round(uint16_t *next, uint16_t nb, sw_rx_poll_fn poll, void *arg)
{
	const uint16_t first = *next;
	uint32_t total = 0;
	uint16_t i, n;

	for (i = first; i < nb; i++) {
		n = poll(arg, i);
		if (n != 0 && total == 0)
			*next = (uint16_t)(i + 1);
		total += n;
	}
	for (i = 0; i < first; i++) {
		n = poll(arg, i);
		if (n != 0 && total == 0)
			*next = (uint16_t)(i + 1);
		total += n;
	}
	return total;
}

#endif /* OFAN_SW_RX_RR_H */
