/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the SACK transport (host/transport/hs_sack.c): sender and receiver
 * state machines without EAL.
 *
 * Hand-made sequences pin down exact values: packet sizes, which PSN is
 * sent next, what an ACK acknowledges, which packets RACK and the timeout
 * judge lost, RTT samples, the receiver's cumulative PSN, SACK bitmap,
 * echo and when it ACKs.  Then a sender and a receiver are run together
 * over a simulated channel in virtual time (seeded: loss, duplication,
 * reordering of data and ACKs, deterministic drops of chosen
 * transmissions) and every run must deliver each PSN exactly once, with
 * the timer, the RTT samples and the counters checked on the way.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cc.h"
#include "hs_ecn_window.h"
#include "hs_sack.h"
#include "ofan_rng.h"
#include "registry_check.h"
#include "unit_suite.h"

#define T_SEED 0x0f1a5eedull
#define T_DIM(a) (sizeof(a) / sizeof((a)[0]))

/* Send what the sender says is next; it must have something. */
static uint32_t
send_next(struct hs_tx *tx, uint64_t now_ns)
{
	uint32_t psn = hs_tx_next(tx);

	ck_assert_uint_ne(psn, HS_PSN_NONE);
	hs_tx_sent(tx, psn, now_ns);
	return psn;
}

static uint32_t
ack(struct hs_tx *tx, uint32_t cum, uint64_t sack, uint32_t echo,
    uint64_t now_ns)
{
	uint64_t rtt;

	return hs_tx_on_ack(tx, cum, sack, echo, false, now_ns, &rtt);
}

static bool
is_queued(const struct hs_tx *tx, uint32_t psn)
{
	return (tx->queued[psn / 64] >> (psn % 64)) & 1;
}

static bool
is_acked(const struct hs_tx *tx, uint32_t psn)
{
	return (tx->acked[psn / 64] >> (psn % 64)) & 1;
}

/* Entries in the retransmission ring, stale ones included. */
static uint32_t
retx_len(const struct hs_tx *tx)
{
	return (tx->retx_tail + tx->nb_pkts + 1 - tx->retx_head) %
		(tx->nb_pkts + 1);
}

/* Sender: sizes. */

START_TEST(test_tx_sizes)
{
	struct hs_tx tx;

	ck_assert_int_eq(hs_tx_init(&tx, 10000, 4096, 0, 1000, 0), 0);
	ck_assert_uint_eq(tx.nb_pkts, 3);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, 0), 4096);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, 1), 4096);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, 2), 1808);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, 3), 0);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, HS_PSN_NONE), 0);
	hs_tx_fini(&tx);

	ck_assert_int_eq(hs_tx_init(&tx, 8192, 4096, 0, 1000, 0), 0);
	ck_assert_uint_eq(tx.nb_pkts, 2);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, 0), 4096);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, 1), 4096);
	hs_tx_fini(&tx);

	ck_assert_int_eq(hs_tx_init(&tx, 1, 4096, 0, 1000, 0), 0);
	ck_assert_uint_eq(tx.nb_pkts, 1);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, 0), 1);
	hs_tx_fini(&tx);

	ck_assert_int_eq(hs_tx_init(&tx, 2 << 20, 4096, 0, 1000, 0), 0);
	ck_assert_uint_eq(tx.nb_pkts, 512);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, 511), 4096);
	hs_tx_fini(&tx);

	ck_assert_int_eq(hs_tx_init(&tx, 65535ull * 3 + 1, 65535, 0, 1000, 0),
			 0);
	ck_assert_uint_eq(tx.nb_pkts, 4);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, 2), 65535);
	ck_assert_uint_eq(hs_tx_payload_size(&tx, 3), 1);
	hs_tx_fini(&tx);

	ck_assert_int_eq(hs_tx_init(&tx, 0, 4096, 0, 1000, 0), -EINVAL);
	ck_assert_int_eq(hs_tx_init(&tx, 100, 0, 0, 1000, 0), -EINVAL);
	ck_assert_int_eq(hs_tx_init(&tx, (uint64_t)HS_MAX_PKTS * 10 + 1, 10,
				    0, 1000, 0), -EINVAL);
	ck_assert_int_eq(hs_tx_init(&tx, UINT64_MAX, 1, 0, 1000, 0), -EINVAL);
	/* fini after a failed init is harmless. */
	hs_tx_fini(&tx);
}
END_TEST

/* Sender: what goes next, in flight, and sends the sender must ignore. */
START_TEST(test_tx_next_and_sent)
{
	struct hs_tx tx;

	ck_assert_int_eq(hs_tx_init(&tx, 3 * 1000, 1000, 5, 1000, 0), 0);
	ck_assert_uint_eq(hs_tx_next(&tx), 0);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 0);
	/* Not sent yet: next stays, and sends out of order are ignored. */
	ck_assert_uint_eq(hs_tx_next(&tx), 0);
	hs_tx_sent(&tx, 1, 0);
	hs_tx_sent(&tx, 3, 0);
	hs_tx_sent(&tx, HS_PSN_NONE, 0);
	ck_assert_uint_eq(tx.nb_sent, 0);
	ck_assert_uint_eq(hs_tx_next(&tx), 0);

	ck_assert_uint_eq(send_next(&tx, 0), 0);
	ck_assert_uint_eq(send_next(&tx, 10), 1);
	ck_assert_uint_eq(send_next(&tx, 20), 2);
	ck_assert_uint_eq(hs_tx_next(&tx), HS_PSN_NONE);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 3);
	ck_assert_uint_eq(tx.nb_sent, 3);
	ck_assert_uint_eq(tx.nb_retx, 0);
	ck_assert_uint_eq(hs_tx_psn(&tx, 1)->sent_ns, 10);
	ck_assert_uint_eq(hs_tx_nb_tx(&tx, 2), 1);

	/* PSN 2 acknowledged: 0 and 1 were sent > 5 ns before it, lost. */
	ck_assert_uint_eq(ack(&tx, 0, 0x2, 2, 100), 1);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 0);
	ck_assert_uint_eq(hs_tx_next(&tx), 0);
	ck_assert_uint_eq(send_next(&tx, 110), 0);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 1);
	ck_assert_uint_eq(send_next(&tx, 120), 1);
	ck_assert_uint_eq(hs_tx_next(&tx), HS_PSN_NONE);
	ck_assert_uint_eq(tx.nb_sent, 5);
	ck_assert_uint_eq(tx.nb_retx, 2);
	ck_assert_uint_eq(hs_tx_nb_tx(&tx, 0), 2);
	ck_assert_uint_eq(hs_tx_psn(&tx, 0)->sent_ns, 110);

	/* An acknowledged PSN is never sent again, even if asked to. */
	hs_tx_sent(&tx, 2, 130);
	ck_assert_uint_eq(tx.nb_sent, 5);
	ck_assert_uint_eq(hs_tx_nb_tx(&tx, 2), 1);
	ck_assert_uint_eq(ack(&tx, 3, 0, 1, 200), 2);
	ck_assert(hs_tx_done(&tx));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 0);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), UINT64_MAX);
	hs_tx_fini(&tx);
}
END_TEST

/* Sender: cumulative and selective acknowledgements, counted once. */
START_TEST(test_tx_ack_cum_sack)
{
	struct hs_tx tx;
	uint32_t i;

	ck_assert_int_eq(hs_tx_init(&tx, 20 * 100, 100, 1000, 1000000, 0), 0);
	for (i = 0; i < 10; i++)
		send_next(&tx, 0);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 10);

	/* cum 3: PSNs 0-2; bit 0 is PSN 4 (3 is missing), bit 2 PSN 6. */
	ck_assert_uint_eq(ack(&tx, 3, 0x5, 6, 10), 5);
	ck_assert_uint_eq(tx.nb_acked, 5);
	ck_assert_uint_eq(tx.cum_acked, 3);
	ck_assert(!is_acked(&tx, 3));
	ck_assert(is_acked(&tx, 4));
	ck_assert(!is_acked(&tx, 5));
	ck_assert(is_acked(&tx, 6));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 5);
	/* The same ACK again (duplicated or reordered) changes nothing. */
	ck_assert_uint_eq(ack(&tx, 3, 0x5, 6, 11), 0);
	ck_assert_uint_eq(ack(&tx, 1, 0x0, 0, 12), 0);
	ck_assert_uint_eq(tx.nb_acked, 5);
	ck_assert_uint_eq(tx.nb_acks, 3);
	ck_assert_uint_eq(tx.cum_acked, 3);

	/* cum 7 covers 3 and 5 (new) and 4 and 6 (old); bit 0 is PSN 8. */
	ck_assert_uint_eq(ack(&tx, 7, 0x1, 8, 20), 3);
	ck_assert_uint_eq(tx.nb_acked, 8);
	ck_assert_uint_eq(tx.cum_acked, 7);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 2);

	/* Bits beyond what was sent (next_new 10) acknowledge nothing. */
	ck_assert_uint_eq(ack(&tx, 8, UINT64_MAX, 9, 30), 2);
	ck_assert_uint_eq(tx.nb_acked, 10);
	ck_assert_uint_eq(tx.cum_acked, 10);
	ck_assert(!is_acked(&tx, 10));
	/* So does a cumulative PSN beyond it, and garbage. */
	ck_assert_uint_eq(ack(&tx, 20, 0, 0, 40), 0);
	ck_assert_uint_eq(ack(&tx, UINT32_MAX, UINT64_MAX, UINT32_MAX, 40), 0);
	ck_assert_uint_eq(tx.nb_acked, 10);
	ck_assert_uint_eq(hs_tx_next(&tx), 10);
	ck_assert_uint_eq(tx.nb_retx, 0);
	hs_tx_fini(&tx);

	/* The echoed PSN is received, even beyond the SACK window. */
	ck_assert_int_eq(hs_tx_init(&tx, 100 * 100, 100, 1000, 1000000, 0),
			 0);
	for (i = 0; i < 90; i++)
		send_next(&tx, 0);
	ck_assert_uint_eq(ack(&tx, 0, 0, 80, 10), 1);
	ck_assert(is_acked(&tx, 80));
	ck_assert_uint_eq(ack(&tx, 0, 0, 80, 11), 0);
	ck_assert_uint_eq(ack(&tx, 0, 0, 90, 12), 0);
	ck_assert(!is_acked(&tx, 90));
	ck_assert_uint_eq(ack(&tx, 10, 0x1, 79, 13), 12);
	ck_assert_uint_eq(tx.nb_acked, 13);
	ck_assert_uint_eq(tx.cum_acked, 10);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 77);
	hs_tx_fini(&tx);
}
END_TEST

/* Sender: RTT samples are exact, 0 when ambiguous or meaningless. */
START_TEST(test_tx_rtt)
{
	struct hs_tx tx;
	uint64_t rtt = 12345;

	ck_assert_int_eq(hs_tx_init(&tx, 4 * 100, 100, 10, 1000000, 0), 0);
	send_next(&tx, 100);
	send_next(&tx, 150);
	send_next(&tx, 160);
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 1, 0, 0, false, 350, &rtt), 1);
	ck_assert_uint_eq(rtt, 250);
	/* A late duplicate ACK still measures its echo exactly. */
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 1, 0, 0, true, 400, &rtt), 0);
	ck_assert_uint_eq(rtt, 300);
	ck_assert_uint_eq(tx.nb_ce_acks, 1);
	/* PSN 1 sent twice: whose ACK is this?  No sample. */
	hs_tx_sent(&tx, 1, 500);
	ck_assert_uint_eq(tx.nb_retx, 1);
	rtt = 12345;
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 2, 0, 1, false, 600, &rtt), 1);
	ck_assert_uint_eq(rtt, 0);
	/* Never sent, out of range: no sample either. */
	rtt = 12345;
	hs_tx_on_ack(&tx, 2, 0, 3, false, 700, &rtt);
	ck_assert_uint_eq(rtt, 0);
	rtt = 12345;
	hs_tx_on_ack(&tx, 2, 0, 4, false, 700, &rtt);
	ck_assert_uint_eq(rtt, 0);
	/* rtt_ns may be NULL. */
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 3, 0, 2, false, 800, NULL), 1);
	ck_assert_uint_eq(tx.nb_acks, 6);
	ck_assert_uint_eq(tx.nb_ce_acks, 1);
	hs_tx_fini(&tx);
}
END_TEST

/*
 * Sender: RACK.  Ten packets 10 ns apart, window 20 ns: an ACK for the
 * packet sent at t loses exactly the packets sent before t - 20.
 */
START_TEST(test_tx_rack)
{
	struct hs_tx tx;
	uint32_t i;

	ck_assert_int_eq(hs_tx_init(&tx, 10 * 100, 100, 20, 1000000, 0), 0);
	for (i = 0; i < 10; i++)
		send_next(&tx, i * 10);
	/* PSN 2 (t 20): PSN 0 is exactly 20 ns older, not lost. */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 1, 2, 100), 1);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 9);
	ck_assert_uint_eq(hs_tx_next(&tx), HS_PSN_NONE);
	/* PSN 3 (t 30): 0 lost, 1 not. */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 2 | 1ull << 1, 3, 110), 1);
	ck_assert(is_queued(&tx, 0));
	ck_assert(!is_queued(&tx, 1));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 7);
	ck_assert_uint_eq(tx.rack_sent_ns, 30);
	ck_assert_uint_eq(hs_tx_next(&tx), 0);
	/* An older ACK arriving late does not move RACK back. */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 1, 2, 115), 0);
	ck_assert_uint_eq(tx.rack_sent_ns, 30);
	/* PSN 6 (t 60): 1 (t 10) lost; 4 (t 40) and 5 not. */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 5 | 1ull << 2 | 1ull << 1, 6,
			      120), 1);
	ck_assert(is_queued(&tx, 1));
	ck_assert(!is_queued(&tx, 4));
	ck_assert(!is_queued(&tx, 5));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 5);
	/* PSN 7 (t 70): 4 (t 40) lost, 5 (t 50) not. */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 6, 7, 130), 1);
	ck_assert(is_queued(&tx, 4));
	ck_assert(!is_queued(&tx, 5));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 3);
	ck_assert_uint_eq(tx.nb_retx, 0);

	/* Oldest queued first, then new data (none left). */
	ck_assert_uint_eq(send_next(&tx, 200), 0);
	ck_assert_uint_eq(send_next(&tx, 210), 1);
	ck_assert_uint_eq(send_next(&tx, 220), 4);
	ck_assert_uint_eq(hs_tx_next(&tx), HS_PSN_NONE);
	ck_assert_uint_eq(tx.nb_retx, 3);
	ck_assert_uint_eq(tx.nb_sent, 13);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 6);
	/* PSN 1's retransmission (t 210) loses 5, 8 and 9 (t 50-90)... */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 0, 1, 300), 1);
	ck_assert(is_queued(&tx, 5));
	ck_assert(is_queued(&tx, 8));
	ck_assert(is_queued(&tx, 9));
	/* ...but not PSN 0, resent at 200: judged by its new send time. */
	ck_assert(!is_queued(&tx, 0));
	ck_assert(!is_queued(&tx, 4));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 2);
	ck_assert_uint_eq(hs_tx_next(&tx), 5);
	hs_tx_fini(&tx);
}
END_TEST

/* Sender: a lost retransmission is judged again by later packets. */
START_TEST(test_tx_rack_rejudge)
{
	struct hs_tx tx;
	uint32_t i;

	ck_assert_int_eq(hs_tx_init(&tx, 20 * 100, 100, 25, 1000000, 0), 0);
	for (i = 0; i < 5; i++)
		send_next(&tx, i * 10);
	/* PSNs 2-4 acked (t 40): 0 and 1 lost. */
	ck_assert_uint_eq(ack(&tx, 0, 0xe, 4, 100), 3);
	ck_assert(is_queued(&tx, 0));
	ck_assert(is_queued(&tx, 1));
	ck_assert_uint_eq(send_next(&tx, 110), 0);
	ck_assert_uint_eq(send_next(&tx, 120), 1);
	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(send_next(&tx, 130 + i * 10), 5 + i);
	/* PSN 5 (t 130) acked: 0's retransmission (t 110) not lost yet. */
	ck_assert_uint_eq(ack(&tx, 0, 0x1e, 5, 200), 1);
	ck_assert(!is_queued(&tx, 0));
	ck_assert_uint_eq(hs_tx_next(&tx), 9);
	/* PSN 6 (t 140) acked: 0 (t 110) lost again, 1 (t 120) not. */
	ck_assert_uint_eq(ack(&tx, 0, 0x3e, 6, 210), 1);
	ck_assert(is_queued(&tx, 0));
	ck_assert(!is_queued(&tx, 1));
	ck_assert_uint_eq(hs_tx_next(&tx), 0);
	ck_assert_uint_eq(send_next(&tx, 220), 0);
	ck_assert_uint_eq(hs_tx_nb_tx(&tx, 0), 3);
	ck_assert_uint_eq(hs_tx_nb_tx(&tx, 1), 2);
	ck_assert_uint_eq(tx.nb_retx, 3);
	ck_assert_uint_eq(tx.nb_timeouts, 0);
	hs_tx_fini(&tx);
}
END_TEST

/* Sender: a queued packet acknowledged meanwhile is never sent. */
START_TEST(test_tx_queued_then_acked)
{
	struct hs_tx tx;
	uint32_t i;

	ck_assert_int_eq(hs_tx_init(&tx, 6 * 100, 100, 5, 1000000, 0), 0);
	for (i = 0; i < 4; i++)
		send_next(&tx, i * 10);
	/* PSN 3 acked: 0, 1 and 2 queued in that order. */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 2, 3, 100), 1);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 0);
	ck_assert_uint_eq(hs_tx_next(&tx), 0);
	/* The original of 1 was late, not lost. */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 0 | 1ull << 2, 1, 110), 1);
	ck_assert(!is_queued(&tx, 1));
	ck_assert_uint_eq(send_next(&tx, 120), 0);
	ck_assert_uint_eq(hs_tx_next(&tx), 2);
	/* The head acked: the next one is 4 (new), not 2 and not 1. */
	ck_assert_uint_eq(ack(&tx, 4, 0, 2, 130), 2);
	ck_assert_uint_eq(hs_tx_next(&tx), 4);
	ck_assert_uint_eq(send_next(&tx, 140), 4);
	ck_assert_uint_eq(send_next(&tx, 150), 5);
	ck_assert_uint_eq(hs_tx_next(&tx), HS_PSN_NONE);
	ck_assert_uint_eq(tx.nb_retx, 1);
	ck_assert_uint_eq(tx.nb_sent, 7);
	ck_assert_uint_eq(tx.retx_head, tx.retx_tail);
	ck_assert_uint_eq(ack(&tx, 6, 0, 5, 200), 2);
	ck_assert(hs_tx_done(&tx));
	hs_tx_fini(&tx);
}
END_TEST

/* Sender: the retransmission timer, oldest packet plus old ones. */
START_TEST(test_tx_rto)
{
	struct hs_tx tx;
	uint32_t i;

	ck_assert_int_eq(hs_tx_init(&tx, 4 * 100, 100, 5, 1000, 0), 0);
	/* Nothing in flight: no timer, no timeout. */
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), UINT64_MAX);
	ck_assert(!hs_tx_check_timeout(&tx, 5000));
	/* The timer starts with the first send, not at init. */
	for (i = 0; i < 4; i++)
		send_next(&tx, 500 + i * 10);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 1500);
	ck_assert(!hs_tx_check_timeout(&tx, 1499));
	/* Progress restarts it; an ACK without progress does not. */
	ck_assert_uint_eq(ack(&tx, 1, 0, 0, 600), 1);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 1600);
	ck_assert_uint_eq(ack(&tx, 1, 0, 0, 700), 0);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 1600);
	ck_assert(!hs_tx_check_timeout(&tx, 1599));
	ck_assert_uint_eq(tx.nb_timeouts, 0);
	ck_assert(hs_tx_check_timeout(&tx, 1600));
	ck_assert_uint_eq(tx.nb_timeouts, 1);
	/* All three were sent more than an RTO ago. */
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 0);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), UINT64_MAX);
	ck_assert(!hs_tx_check_timeout(&tx, 100000));
	ck_assert_uint_eq(send_next(&tx, 1700), 1);
	/* The timer restarts from the send that put something in flight. */
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 2700);
	ck_assert_uint_eq(send_next(&tx, 1710), 2);
	ck_assert_uint_eq(send_next(&tx, 1720), 3);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 2700);
	ck_assert_uint_eq(hs_tx_next(&tx), HS_PSN_NONE);
	ck_assert_uint_eq(tx.nb_retx, 3);
	ck_assert_uint_eq(ack(&tx, 4, 0, 3, 1800), 3);
	ck_assert(hs_tx_done(&tx));
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), UINT64_MAX);
	ck_assert(!hs_tx_check_timeout(&tx, 1000000));
	ck_assert_uint_eq(tx.nb_timeouts, 1);
	hs_tx_fini(&tx);
}
END_TEST

/*
 * Sender: a timeout queues the oldest packet and what is older than an
 * RTO, not younger packets; RACK recovers those once the retransmission
 * is acknowledged, at least a minimum RTT after it was sent.
 */
START_TEST(test_tx_rto_then_rack)
{
	struct hs_tx tx;
	uint64_t rtt;

	ck_assert_int_eq(hs_tx_init(&tx, 3 * 100, 100, 50, 1000, 0), 0);
	ck_assert_uint_eq(tx.min_rtt_ns, UINT64_MAX);
	send_next(&tx, 0);
	send_next(&tx, 10);
	/* PSN 1 acked: 0 only 10 ns older, not lost. */
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 0, 1ull << 0, 1, false, 110, &rtt),
			  1);
	ck_assert_uint_eq(rtt, 100);
	ck_assert_uint_eq(tx.min_rtt_ns, 100);
	ck_assert(!is_queued(&tx, 0));
	ck_assert_uint_eq(send_next(&tx, 1000), 2);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 1110);
	ck_assert(!hs_tx_check_timeout(&tx, 1109));
	ck_assert(hs_tx_check_timeout(&tx, 1110));
	ck_assert(is_queued(&tx, 0));
	ck_assert(!is_queued(&tx, 2));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 1);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 2110);
	ck_assert_uint_eq(send_next(&tx, 1115), 0);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 2110);
	/* 0's retransmission acked one min RTT later: 2 (t 1000) lost. */
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 2, 0, 0, false, 1215, &rtt), 1);
	ck_assert_uint_eq(rtt, 0);
	ck_assert_uint_eq(tx.min_rtt_ns, 100);
	ck_assert_uint_eq(tx.rack_sent_ns, 1115);
	ck_assert(is_queued(&tx, 2));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 0);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), UINT64_MAX);
	ck_assert_uint_eq(send_next(&tx, 1220), 2);
	ck_assert_uint_eq(tx.nb_timeouts, 1);
	ck_assert_uint_eq(tx.nb_retx, 2);
	hs_tx_fini(&tx);
}
END_TEST

/*
 * Sender: a retransmitted packet acknowledged sooner than the minimum RTT
 * after its resend was received as the original: the retransmission was
 * spurious and its send time must not make younger packets look lost.
 */
START_TEST(test_tx_rack_ambiguous)
{
	struct hs_tx tx;
	uint64_t rtt;

	ck_assert_int_eq(hs_tx_init(&tx, 3 * 100, 100, 50, 1000, 0), 0);
	send_next(&tx, 0);
	send_next(&tx, 10);
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 0, 1ull << 0, 1, false, 110, &rtt),
			  1);
	ck_assert_uint_eq(send_next(&tx, 1000), 2);
	ck_assert(hs_tx_check_timeout(&tx, 1110));
	ck_assert_uint_eq(send_next(&tx, 1115), 0);
	/* 85 ns after the resend, min RTT 100: the original's ACK. */
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 2, 0, 0, false, 1200, &rtt), 1);
	ck_assert_uint_eq(tx.rack_sent_ns, 10);
	ck_assert(!is_queued(&tx, 2));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 1);
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 3, 0, 2, false, 1300, &rtt), 1);
	ck_assert_uint_eq(rtt, 300);
	ck_assert(hs_tx_done(&tx));
	ck_assert_uint_eq(tx.nb_retx, 1);
	hs_tx_fini(&tx);
}
END_TEST

/*
 * Sender: when the oldest packet is queued already and everything in
 * flight is young (a forced retransmission renewed it), a timeout
 * retransmits the oldest packet in flight.
 */
START_TEST(test_tx_rto_fallback)
{
	struct hs_tx tx;

	ck_assert_int_eq(hs_tx_init(&tx, 3 * 100, 100, 5, 1000, 0), 0);
	send_next(&tx, 0);
	send_next(&tx, 10);
	send_next(&tx, 20);
	/* PSN 1 acked at 100: 0 lost, 2 (younger than 1) in flight. */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 0, 1, 100), 1);
	ck_assert(is_queued(&tx, 0));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 1);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 1100);
	/* The caller resends 2 (in flight) on its own: a retransmission. */
	hs_tx_sent(&tx, 2, 500);
	ck_assert_uint_eq(tx.nb_retx, 1);
	ck_assert_uint_eq(hs_tx_psn(&tx, 2)->sent_ns, 500);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 1);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 1100);
	ck_assert(!hs_tx_check_timeout(&tx, 1099));
	ck_assert(hs_tx_check_timeout(&tx, 1100));
	ck_assert(is_queued(&tx, 2));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 0);
	ck_assert_uint_eq(send_next(&tx, 1200), 0);
	ck_assert_uint_eq(send_next(&tx, 1210), 2);
	ck_assert_uint_eq(hs_tx_next(&tx), HS_PSN_NONE);
	ck_assert_uint_eq(tx.nb_timeouts, 1);
	ck_assert_uint_eq(tx.nb_retx, 3);
	hs_tx_fini(&tx);
}
END_TEST

/*
 * Sender: the oldest unacknowledged packet goes at a timeout even when it
 * was resent recently (so it is young and last in send order).
 */
START_TEST(test_tx_rto_oldest)
{
	struct hs_tx tx;

	ck_assert_int_eq(hs_tx_init(&tx, 3 * 100, 100, 1000, 1000, 0), 0);
	send_next(&tx, 0);
	send_next(&tx, 10);
	send_next(&tx, 20);
	/* PSN 2 acked: a large window, nothing lost yet. */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 1, 2, 100), 1);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 2);
	hs_tx_sent(&tx, 0, 900);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 1100);
	ck_assert(hs_tx_check_timeout(&tx, 1100));
	/* 1 is older than an RTO; 0 (t 900) is not, but it is the oldest. */
	ck_assert(is_queued(&tx, 1));
	ck_assert(is_queued(&tx, 0));
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 0);
	ck_assert_uint_eq(hs_tx_next(&tx), 0);
	hs_tx_fini(&tx);
}
END_TEST

/* Sender: a queued retransmission sent out of queue order. */
START_TEST(test_tx_retx_out_of_order)
{
	struct hs_tx tx;
	uint32_t i;

	ck_assert_int_eq(hs_tx_init(&tx, 4 * 100, 100, 5, 1000, 0), 0);
	for (i = 0; i < 4; i++)
		send_next(&tx, i * 10);
	/* PSN 3 acked: 0, 1, 2 queued, nothing in flight, no timer. */
	ck_assert_uint_eq(ack(&tx, 0, 1ull << 2, 3, 100), 1);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 0);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), UINT64_MAX);
	ck_assert_uint_eq(hs_tx_next(&tx), 0);
	ck_assert_uint_eq(retx_len(&tx), 3);
	hs_tx_sent(&tx, 1, 200);
	ck_assert(!is_queued(&tx, 1));
	/* Taken out of the ring, not left behind as a stale entry. */
	ck_assert_uint_eq(retx_len(&tx), 2);
	ck_assert_uint_eq(tx.nb_retx, 1);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 1);
	ck_assert_uint_eq(hs_tx_timer_ns(&tx), 1200);
	ck_assert_uint_eq(send_next(&tx, 210), 0);
	ck_assert_uint_eq(send_next(&tx, 220), 2);
	ck_assert_uint_eq(hs_tx_next(&tx), HS_PSN_NONE);
	ck_assert_uint_eq(tx.retx_head, tx.retx_tail);
	ck_assert_uint_eq(tx.nb_retx, 3);
	ck_assert_uint_eq(hs_tx_nb_tx(&tx, 1), 2);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 3);
	ck_assert_uint_eq(ack(&tx, 4, 0, 2, 300), 3);
	ck_assert(hs_tx_done(&tx));
	hs_tx_fini(&tx);
}
END_TEST

/* Sender: forced retransmissions of a packet in flight; nb_tx saturates. */
START_TEST(test_tx_forced_retx)
{
	struct hs_tx tx;
	uint64_t rtt;
	uint32_t i;

	ck_assert_int_eq(hs_tx_init(&tx, 2 * 100, 100, 5, 1000, 0), 0);
	send_next(&tx, 0);
	send_next(&tx, 10);
	for (i = 0; i < 300; i++)
		hs_tx_sent(&tx, 0, 20 + i);
	ck_assert_uint_eq(hs_tx_nb_tx(&tx, 0), UINT8_MAX);
	ck_assert_uint_eq(tx.nb_retx, 300);
	ck_assert_uint_eq(tx.nb_sent, 302);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), 2);
	/*
	 * 0 now sent last (t 319), but with no RTT sample yet its ACK may
	 * be for any copy: it does not advance RACK, 1 (t 10) stays.
	 */
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 1, 0, 0, false, 400, &rtt), 1);
	ck_assert_uint_eq(rtt, 0);
	ck_assert_uint_eq(tx.min_rtt_ns, UINT64_MAX);
	ck_assert_uint_eq(tx.rack_sent_ns, 0);
	ck_assert(!is_queued(&tx, 1));
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 2, 0, 1, false, 500, &rtt), 1);
	ck_assert_uint_eq(rtt, 490);
	ck_assert(hs_tx_done(&tx));
	hs_tx_fini(&tx);
}
END_TEST

/*
 * Receiver, acks = uec (uet-htsim's UecSink::processData): the first
 * packet, CE, a duplicate, the last packet, an ack request and every
 * ack_every ACK at once, reordering alone not; an ack request that left
 * holes behind it is ACKed again when they fill.  acks = rfc5681 ACKs
 * every packet past a hole.
 */
START_TEST(test_rx_uec_acks)
{
	struct hs_rx rx;
	struct hs_ack_info a;
	bool send;

	ck_assert_int_eq(hs_rx_init(&rx, 12, 4), 0);
	hs_rx_set_uec(&rx, true);
	ck_assert(hs_rx_on_data(&rx, 0, false, &send, &a));
	ck_assert_msg(send, "the first packet");
	ck_assert_uint_eq(a.cum_psn, 1);
	/* 2 and 3 past the hole at 1: no ACK (rfc5681 would send two). */
	ck_assert(hs_rx_on_data(&rx, 2, false, &send, &a));
	ck_assert(!send);
	ck_assert(hs_rx_on_data(&rx, 3, false, &send, &a));
	ck_assert(!send);
	/* 5 asks: ACKed now, and again once 1 and 4 are in. */
	ck_assert(hs_rx_on_data(&rx, 5, false, &send, &a));
	ck_assert(!send);
	ck_assert(hs_rx_ack_request(&rx, 5, send, &a));
	ck_assert_uint_eq(a.cum_psn, 1);
	ck_assert_uint_eq(a.echo_psn, 5);
	ck_assert_uint_eq(a.sack, 0xb);	/* 2, 3 and 5 */
	ck_assert(rx.ack_pending);
	ck_assert(hs_rx_on_data(&rx, 1, false, &send, &a));
	ck_assert_msg(!send, "4 is still missing");
	ck_assert(hs_rx_on_data(&rx, 4, false, &send, &a));
	ck_assert_msg(send, "the ack request's holes filled");
	ck_assert_uint_eq(a.cum_psn, 6);
	ck_assert(!rx.ack_pending);
	/* 7 past a hole: nothing; CE at once; a duplicate at once. */
	ck_assert(hs_rx_on_data(&rx, 7, false, &send, &a));
	ck_assert(!send);
	ck_assert(hs_rx_on_data(&rx, 8, true, &send, &a));
	ck_assert(send);
	ck_assert(a.ce);
	ck_assert(!hs_rx_on_data(&rx, 8, false, &send, &a));
	ck_assert(send);
	/* An ack request already due keeps the ACK that is due. */
	ck_assert(hs_rx_on_data(&rx, 9, true, &send, &a));
	ck_assert(send);
	ck_assert(!hs_rx_ack_request(&rx, 9, send, &a));
	ck_assert(a.ce);
	ck_assert(rx.ack_pending);	/* 6 is missing */
	/* 10 past the hole at 6: nothing; 6 fills the request's hole. */
	ck_assert(hs_rx_on_data(&rx, 10, false, &send, &a));
	ck_assert(!send);
	ck_assert(hs_rx_on_data(&rx, 6, false, &send, &a));
	ck_assert(send);
	ck_assert_uint_eq(a.cum_psn, 11);
	/* The last packet: at once. */
	ck_assert(hs_rx_on_data(&rx, 11, false, &send, &a));
	ck_assert(send);
	ck_assert(hs_rx_done(&rx));
	hs_rx_fini(&rx);

	/* rfc5681: every packet past a hole at once. */
	ck_assert_int_eq(hs_rx_init(&rx, 12, 4), 0);
	ck_assert(hs_rx_on_data(&rx, 0, false, &send, &a));
	ck_assert(!send);
	ck_assert(hs_rx_on_data(&rx, 2, false, &send, &a));
	ck_assert(send);
	ck_assert(hs_rx_on_data(&rx, 3, false, &send, &a));
	ck_assert(send);
	ck_assert(hs_rx_ack_request(&rx, 3, false, &a));
	ck_assert(!rx.ack_pending);
	hs_rx_fini(&rx);
}
END_TEST

/* Receiver: bitmap, cum, SACK and echo for a hand-made sequence. */
START_TEST(test_rx_sequence)
{
	struct hs_rx rx;
	struct hs_ack_info a;
	bool send;

	ck_assert_int_eq(hs_rx_init(&rx, 10, 1), 0);
	ck_assert(hs_rx_on_data(&rx, 0, false, &send, &a));
	ck_assert(send);
	ck_assert_uint_eq(a.cum_psn, 1);
	ck_assert_uint_eq(a.sack, 0);
	ck_assert_uint_eq(a.echo_psn, 0);
	ck_assert(!a.ce);
	/* PSN 2: cum stays 1 (PSN 1 missing), bit 0 is PSN 2. */
	ck_assert(hs_rx_on_data(&rx, 2, false, &send, &a));
	ck_assert(send);
	ck_assert_uint_eq(a.cum_psn, 1);
	ck_assert_uint_eq(a.sack, 0x1);
	ck_assert_uint_eq(a.echo_psn, 2);
	ck_assert(hs_rx_on_data(&rx, 4, true, &send, &a));
	ck_assert_uint_eq(a.cum_psn, 1);
	ck_assert_uint_eq(a.sack, 0x5);
	ck_assert_uint_eq(a.echo_psn, 4);
	ck_assert(a.ce);
	ck_assert_uint_eq(rx.max_reorder, 0);
	/* PSN 1 fills the hole: cum 3, PSN 4 is bit 0 now. */
	ck_assert(hs_rx_on_data(&rx, 1, false, &send, &a));
	ck_assert_uint_eq(a.cum_psn, 3);
	ck_assert_uint_eq(a.sack, 0x1);
	ck_assert_uint_eq(a.echo_psn, 1);
	ck_assert(!a.ce);
	ck_assert_uint_eq(rx.max_reorder, 3);
	/* A duplicate: not goodput, counted, ACKed with the same state. */
	ck_assert(!hs_rx_on_data(&rx, 2, true, &send, &a));
	ck_assert(send);
	ck_assert_uint_eq(a.cum_psn, 3);
	ck_assert_uint_eq(a.sack, 0x1);
	ck_assert_uint_eq(a.echo_psn, 2);
	ck_assert(a.ce);
	ck_assert_uint_eq(rx.nb_dups, 1);
	ck_assert_uint_eq(rx.nb_ce, 2);
	ck_assert(hs_rx_on_data(&rx, 3, false, &send, &a));
	ck_assert_uint_eq(a.cum_psn, 5);
	ck_assert_uint_eq(a.sack, 0);
	ck_assert_uint_eq(rx.max_reorder, 3);
	ck_assert_uint_eq(rx.nb_received, 5);
	ck_assert_uint_eq(rx.highest, 5);
	/* PSN 9 then 8: SACK reaches the end of the flow and stops there. */
	ck_assert(hs_rx_on_data(&rx, 9, false, &send, &a));
	ck_assert_uint_eq(a.cum_psn, 5);
	ck_assert_uint_eq(a.sack, 1ull << 3);
	ck_assert(hs_rx_on_data(&rx, 8, false, &send, &a));
	ck_assert_uint_eq(a.sack, 1ull << 3 | 1ull << 2);
	ck_assert_uint_eq(rx.max_reorder, 3);
	ck_assert(hs_rx_on_data(&rx, 5, false, &send, &a));
	ck_assert(hs_rx_on_data(&rx, 7, false, &send, &a));
	ck_assert_uint_eq(a.cum_psn, 6);
	ck_assert_uint_eq(a.sack, 0x7);
	ck_assert_uint_eq(rx.max_reorder, 4);
	ck_assert(!hs_rx_done(&rx));
	ck_assert(hs_rx_on_data(&rx, 6, false, &send, &a));
	ck_assert(hs_rx_done(&rx));
	ck_assert_uint_eq(a.cum_psn, 10);
	ck_assert_uint_eq(a.sack, 0);
	ck_assert_uint_eq(rx.nb_received, 10);
	/* After the end: duplicates still ACKed, nonsense ignored. */
	ck_assert(!hs_rx_on_data(&rx, 0, false, &send, &a));
	ck_assert(send);
	ck_assert_uint_eq(a.cum_psn, 10);
	ck_assert_uint_eq(a.echo_psn, 0);
	ck_assert_uint_eq(rx.nb_dups, 2);
	a.cum_psn = 77;
	ck_assert(!hs_rx_on_data(&rx, 10, true, &send, &a));
	ck_assert(!send);
	ck_assert_uint_eq(a.cum_psn, 77);
	ck_assert(!hs_rx_on_data(&rx, HS_PSN_NONE, false, &send, &a));
	ck_assert_uint_eq(rx.nb_out_of_range, 2);
	ck_assert_uint_eq(rx.nb_dups, 2);
	ck_assert_uint_eq(rx.nb_ce, 2);
	ck_assert_uint_eq(rx.nb_received, 10);
	hs_rx_fini(&rx);

	ck_assert_int_eq(hs_rx_init(&rx, 0, 1), -EINVAL);
	ck_assert_int_eq(hs_rx_init(&rx, 10, 0), -EINVAL);
	ck_assert_int_eq(hs_rx_init(&rx, HS_MAX_PKTS + 1, 1), -EINVAL);
	hs_rx_fini(&rx);
}
END_TEST

/* Receiver: the SACK window is 64 PSNs after cum, across words. */
START_TEST(test_rx_sack_window)
{
	struct hs_rx rx;
	struct hs_ack_info a;
	bool send;
	uint32_t i;

	ck_assert_int_eq(hs_rx_init(&rx, 200, 1), 0);
	for (i = 0; i < 200; i++)
		if (i != 5 && i != 37 && i != 70)
			hs_rx_on_data(&rx, i, false, &send, &a);
	ck_assert_uint_eq(a.cum_psn, 5);
	/* Bits 0..63 are PSNs 6..69: all but 37 (bit 31); 70 is beyond. */
	ck_assert_uint_eq(a.sack, ~(1ull << 31));
	hs_rx_on_data(&rx, 5, false, &send, &a);
	ck_assert_uint_eq(a.cum_psn, 37);
	/* PSNs 38..101: all but 70 (bit 32). */
	ck_assert_uint_eq(a.sack, ~(1ull << 32));
	hs_rx_on_data(&rx, 37, false, &send, &a);
	ck_assert_uint_eq(a.cum_psn, 70);
	/* PSNs 71..134. */
	ck_assert_uint_eq(a.sack, UINT64_MAX);
	hs_rx_on_data(&rx, 70, false, &send, &a);
	ck_assert_uint_eq(a.cum_psn, 200);
	ck_assert_uint_eq(a.sack, 0);
	hs_rx_fini(&rx);

	/* Holes at word boundaries: 63 and 127, SACK from 64 and from 128. */
	ck_assert_int_eq(hs_rx_init(&rx, 150, 1), 0);
	for (i = 0; i < 150; i++)
		if (i != 63 && i != 127 && i != 130)
			hs_rx_on_data(&rx, i, false, &send, &a);
	ck_assert_uint_eq(a.cum_psn, 63);
	ck_assert_uint_eq(a.sack, ~(1ull << 63));
	hs_rx_on_data(&rx, 63, false, &send, &a);
	ck_assert_uint_eq(a.cum_psn, 127);
	/* PSNs 128..149 (22 of them) but 130. */
	ck_assert_uint_eq(a.sack, ((1ull << 22) - 1) & ~(1ull << 2));
	hs_rx_on_data(&rx, 127, false, &send, &a);
	ck_assert_uint_eq(a.cum_psn, 130);
	ck_assert_uint_eq(a.sack, (1ull << 19) - 1);
	hs_rx_fini(&rx);
}
END_TEST

/* Receiver: ACK every N, and at once for CE, duplicates, disorder, end. */
START_TEST(test_rx_ack_policy)
{
	struct hs_rx rx;
	struct hs_ack_info a;
	bool send;
	uint32_t i;

	ck_assert_int_eq(hs_rx_init(&rx, 20, 4), 0);
	for (i = 0; i < 8; i++) {
		hs_rx_on_data(&rx, i, false, &send, &a);
		ck_assert_msg(send == (i % 4 == 3), "psn %u", i);
		ck_assert_uint_eq(rx.since_ack, (i + 1) % 4);
	}
	ck_assert_uint_eq(a.cum_psn, 8);
	ck_assert_uint_eq(a.echo_psn, 7);
	/* In order but CE: at once, and the count restarts. */
	hs_rx_on_data(&rx, 8, false, &send, &a);
	ck_assert(!send);
	hs_rx_on_data(&rx, 9, true, &send, &a);
	ck_assert(send);
	ck_assert(a.ce);
	ck_assert_uint_eq(a.echo_psn, 9);
	ck_assert_uint_eq(rx.since_ack, 0);
	hs_rx_on_data(&rx, 10, false, &send, &a);
	ck_assert(!send);
	/* A duplicate: at once. */
	hs_rx_on_data(&rx, 3, false, &send, &a);
	ck_assert(send);
	ck_assert_uint_eq(a.cum_psn, 11);
	ck_assert_uint_eq(a.echo_psn, 3);
	/* A gap below: at once; and the packet filling it: at once. */
	hs_rx_on_data(&rx, 11, false, &send, &a);
	ck_assert(!send);
	hs_rx_on_data(&rx, 13, false, &send, &a);
	ck_assert(send);
	ck_assert_uint_eq(a.cum_psn, 12);
	ck_assert_uint_eq(a.sack, 0x1);
	hs_rx_on_data(&rx, 14, false, &send, &a);
	ck_assert(send);
	hs_rx_on_data(&rx, 12, false, &send, &a);
	ck_assert(send);
	ck_assert_uint_eq(a.cum_psn, 15);
	ck_assert_uint_eq(a.sack, 0);
	/* In order again: quiet until the fourth. */
	hs_rx_on_data(&rx, 15, false, &send, &a);
	ck_assert(!send);
	hs_rx_on_data(&rx, 16, false, &send, &a);
	ck_assert(!send);
	hs_rx_on_data(&rx, 17, false, &send, &a);
	ck_assert(!send);
	hs_rx_fini(&rx);

	/* The last packet completes the flow: at once, not at the fourth. */

	ck_assert_int_eq(hs_rx_init(&rx, 6, 4), 0);
	for (i = 0; i < 6; i++) {
		hs_rx_on_data(&rx, i, false, &send, &a);
		ck_assert_msg(send == (i == 3 || i == 5), "psn %u", i);
	}
	ck_assert_uint_eq(a.cum_psn, 6);
	ck_assert_uint_eq(a.echo_psn, 5);
	hs_rx_fini(&rx);
}
END_TEST

/* The simulated channel between one sender and one receiver. */

/* Drop transmission number nth_tx (1 = the original) of psn. */
struct sim_drop {
	uint32_t psn;
	uint8_t nth_tx;
};

struct sim_params {
	uint64_t size;
	uint16_t mss;
	uint16_t ack_every;
	uint64_t reorder_window_ns;
	uint64_t rto_ns;
	uint64_t gap_ns;	/* pacing: one data packet per gap */
	uint64_t delay_ns;	/* one-way base delay, both directions */
	uint32_t jitter_ns;	/* data: delay + uniform [0, jitter) */
	uint32_t ack_jitter_ns;
	double loss;		/* data packets */
	double ack_loss;
	double dup;		/* data packets delivered twice */
	double ce;		/* data packets CE-marked */
	uint32_t max_in_flight;	/* window in packets, 0: none */
	const struct sim_drop *drops;
	unsigned int nb_drops;
	uint64_t seed;
};

struct sim_ev {
	uint64_t t;
	uint64_t seq;
	bool is_ack;
	uint32_t psn;		/* data: its PSN; ACK: unused */
	bool ce;		/* data: CE-marked */
	uint64_t data_sent_ns;	/* data (or the data an ACK echoes): sent */
	struct hs_ack_info ack;
};

struct sim_heap {
	struct sim_ev *v;
	size_t n;
	size_t cap;
	uint64_t seq;
};

struct sim_result {
	uint64_t goodput;
	uint64_t end_ns;
	uint64_t first_timeout_ns;
	uint32_t *delivered;	/* per PSN: times it was new at the rx */
	uint8_t *nb_tx;		/* per PSN: transmissions the sim saw */
	uint64_t nb_newly;	/* sum of hs_tx_on_ack() results */
	uint64_t nb_dropped;	/* data transmissions the channel lost */
	uint64_t nb_ce_marked;
	uint64_t nb_ce_acks;	/* ACKs delivered that echo CE */
	uint64_t nb_rtt_samples;
	uint64_t nb_timer_checks;
};

static bool
ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void
heap_push(struct sim_heap *h, struct sim_ev *e)
{
	size_t i;

	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 1024;
		h->v = realloc(h->v, h->cap * sizeof(*h->v));
		ck_assert_ptr_nonnull(h->v);
	}
	e->seq = h->seq++;
	i = h->n++;
	while (i > 0 && ev_before(e, &h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = *e;
}

static struct sim_ev
heap_pop(struct sim_heap *h)
{
	struct sim_ev top = h->v[0];
	struct sim_ev last = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && ev_before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!ev_before(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n > 0)
		h->v[i] = last;
	return top;
}

static bool
sim_dropped(const struct sim_params *p, uint32_t psn, uint8_t nth_tx)
{
	unsigned int i;

	for (i = 0; i < p->nb_drops; i++)
		if (p->drops[i].psn == psn && p->drops[i].nth_tx == nth_tx)
			return true;
	return false;
}

static void
sim_send(const struct sim_params *p, struct hs_tx *tx, struct sim_heap *h,
	 struct ofan_rng *rng, struct sim_result *r, uint64_t now,
	 uint64_t *timer_ref)
{
	uint32_t psn = hs_tx_next(tx);
	struct sim_ev e;
	int copies = 1;

	/* Never an acknowledged packet. */
	ck_assert(!is_acked(tx, psn));
	if (hs_tx_in_flight(tx) == 0)
		*timer_ref = now;
	hs_tx_sent(tx, psn, now);
	if (r->nb_tx[psn] < UINT8_MAX)
		r->nb_tx[psn]++;
	ck_assert_uint_eq(hs_tx_nb_tx(tx, psn), r->nb_tx[psn]);
	if (sim_dropped(p, psn, r->nb_tx[psn]) ||
	    ofan_rng_unit(rng) < p->loss) {
		r->nb_dropped++;
		return;
	}
	if (ofan_rng_unit(rng) < p->dup)
		copies = 2;
	memset(&e, 0, sizeof(e));
	e.psn = psn;
	e.data_sent_ns = now;
	e.ce = ofan_rng_unit(rng) < p->ce;
	while (copies-- > 0) {
		e.t = now + p->delay_ns;
		if (p->jitter_ns > 0)
			e.t += ofan_rng_below(rng, p->jitter_ns);
		heap_push(h, &e);
	}
}

static void
sim_data_arrives(const struct sim_params *p, const struct hs_tx *tx,
		 struct hs_rx *rx, struct sim_heap *h, struct ofan_rng *rng,
		 struct sim_result *r, const struct sim_ev *d)
{
	struct hs_ack_info a;
	struct sim_ev e;
	bool send;

	if (d->ce)
		r->nb_ce_marked++;
	if (hs_rx_on_data(rx, d->psn, d->ce, &send, &a)) {
		r->delivered[d->psn]++;
		r->goodput += hs_tx_payload_size(tx, d->psn);
	} else {
		/* False only for what was delivered before. */
		ck_assert_uint_eq(r->delivered[d->psn], 1);
	}
	if (!send || ofan_rng_unit(rng) < p->ack_loss)
		return;
	ck_assert_uint_eq(a.echo_psn, d->psn);
	ck_assert_int_eq(a.ce, d->ce);
	memset(&e, 0, sizeof(e));
	e.is_ack = true;
	e.ack = a;
	e.data_sent_ns = d->data_sent_ns;
	e.t = d->t + p->delay_ns;
	if (p->ack_jitter_ns > 0)
		e.t += ofan_rng_below(rng, p->ack_jitter_ns);
	heap_push(h, &e);
}

static void
sim_ack_arrives(struct hs_tx *tx, struct sim_result *r,
		const struct sim_ev *e, uint64_t *timer_ref)
{
	uint32_t echo = e->ack.echo_psn;
	uint64_t rtt = 12345;
	uint32_t newly;

	newly = hs_tx_on_ack(tx, e->ack.cum_psn, e->ack.sack, echo,
			     e->ack.ce, e->t, &rtt);
	if (r->nb_tx[echo] == 1) {
		ck_assert_uint_eq(rtt, e->t - e->data_sent_ns);
		r->nb_rtt_samples++;
	} else {
		ck_assert_uint_eq(rtt, 0);
	}
	if (e->ack.ce)
		r->nb_ce_acks++;
	if (newly > 0)
		*timer_ref = e->t;
	r->nb_newly += newly;
}

/*
 * Run a flow to completion (every PSN acknowledged and nothing left in
 * the channel).  Events at the same time go in order: arrivals, the
 * timer, a send.  tx and rx are left for the caller to inspect and fini.
 */
static void
sim_run(const struct sim_params *p, struct hs_tx *tx, struct hs_rx *rx,
	struct sim_result *r)
{
	struct sim_heap h = { 0 };
	struct ofan_rng rng;
	uint64_t now = 0;
	uint64_t next_send = 0;
	uint64_t timer_ref = 0;
	uint64_t steps = 0;
	uint64_t max_steps;

	ofan_rng_seed(&rng, p->seed, 0);
	memset(r, 0, sizeof(*r));
	r->first_timeout_ns = UINT64_MAX;
	ck_assert_int_eq(hs_tx_init(tx, p->size, p->mss, p->reorder_window_ns,
				    p->rto_ns, 0), 0);
	ck_assert_int_eq(hs_rx_init(rx, tx->nb_pkts, p->ack_every), 0);
	r->delivered = calloc(tx->nb_pkts, sizeof(*r->delivered));
	r->nb_tx = calloc(tx->nb_pkts, sizeof(*r->nb_tx));
	ck_assert_ptr_nonnull(r->delivered);
	ck_assert_ptr_nonnull(r->nb_tx);
	max_steps = 1000ull * tx->nb_pkts + 100000;

	while (!hs_tx_done(tx) || h.n > 0) {
		uint64_t t_send = UINT64_MAX;
		uint64_t t_ev = h.n > 0 ? h.v[0].t : UINT64_MAX;
		uint64_t t_timer = hs_tx_timer_ns(tx);
		uint64_t t;

		ck_assert_uint_lt(++steps, max_steps);
		/* The timer runs from progress or from a send into silence. */
		if (hs_tx_in_flight(tx) > 0)
			ck_assert_uint_eq(t_timer, timer_ref + p->rto_ns);
		else
			ck_assert_uint_eq(t_timer, UINT64_MAX);
		if (hs_tx_next(tx) != HS_PSN_NONE &&
		    (p->max_in_flight == 0 ||
		     hs_tx_in_flight(tx) < p->max_in_flight))
			t_send = next_send > now ? next_send : now;
		t = t_ev;
		if (t_timer < t)
			t = t_timer;
		if (t_send < t)
			t = t_send;
		/* Something must always be pending until the end. */
		ck_assert_uint_ne(t, UINT64_MAX);
		ck_assert_uint_ge(t, now);
		now = t;
		if (t == t_ev) {
			struct sim_ev e = heap_pop(&h);

			if (e.is_ack)
				sim_ack_arrives(tx, r, &e, &timer_ref);
			else
				sim_data_arrives(p, tx, rx, &h, &rng, r, &e);
		} else if (t == t_timer) {
			/* It fires exactly then, not a nanosecond earlier. */
			ck_assert(!hs_tx_check_timeout(tx, now - 1));
			ck_assert(hs_tx_check_timeout(tx, now));
			if (r->first_timeout_ns == UINT64_MAX)
				r->first_timeout_ns = now;
			timer_ref = now;
			r->nb_timer_checks++;
		} else {
			sim_send(p, tx, &h, &rng, r, now, &timer_ref);
			next_send = now + p->gap_ns;
		}
	}
	r->end_ns = now;
	free(h.v);
}

/* What every run must satisfy, whatever the channel did. */
static void
sim_check_exact(const struct sim_params *p, struct hs_tx *tx,
		const struct hs_rx *rx, const struct sim_result *r)
{
	uint64_t sum_tx = 0;
	uint32_t i;

	ck_assert(hs_tx_done(tx));
	ck_assert(hs_rx_done(rx));
	ck_assert_uint_eq(tx->nb_acked, tx->nb_pkts);
	ck_assert_uint_eq(r->nb_newly, tx->nb_pkts);
	ck_assert_uint_eq(tx->cum_acked, tx->nb_pkts);
	ck_assert_uint_eq(rx->cum, rx->nb_pkts);
	ck_assert_uint_eq(r->goodput, p->size);
	for (i = 0; i < tx->nb_pkts; i++) {
		ck_assert_msg(r->delivered[i] == 1, "psn %u delivered %u",
			      i, r->delivered[i]);
		sum_tx += hs_tx_nb_tx(tx, i);
	}
	ck_assert_uint_eq(tx->nb_sent, tx->nb_pkts + tx->nb_retx);
	ck_assert_uint_eq(sum_tx, tx->nb_sent);
	ck_assert_uint_eq(hs_tx_in_flight(tx), 0);
	ck_assert_uint_eq(hs_tx_next(tx), HS_PSN_NONE);
	ck_assert_uint_eq(hs_tx_timer_ns(tx), UINT64_MAX);
	ck_assert_uint_eq(tx->nb_timeouts, r->nb_timer_checks);
	ck_assert_uint_eq(rx->nb_ce, r->nb_ce_marked);
	ck_assert_uint_eq(tx->nb_ce_acks, r->nb_ce_acks);
}

static void
sim_free(struct hs_tx *tx, struct hs_rx *rx, struct sim_result *r)
{
	hs_tx_fini(tx);
	hs_rx_fini(rx);
	free(r->delivered);
	free(r->nb_tx);
}

/* 2 MiB in 4 KiB packets, 100 ns apart, 10 us one way. */
static struct sim_params
sim_base(void)
{
	struct sim_params p = {
		.size = 2 << 20,
		.mss = 4096,
		.ack_every = 1,
		.reorder_window_ns = 5000,
		.rto_ns = 200000,
		.gap_ns = 100,
		.delay_ns = 10000,
		.seed = T_SEED,
	};

	return p;
}

/*
 * Reordering of data (and ACKs) within the reorder window and no loss:
 * not a single retransmission or timeout, although packets overtake each
 * other by tens of positions.
 */
START_TEST(test_sim_reorder_no_spurious)
{
	static const uint16_t ack_every[] = { 1, 4, 16 };
	struct sim_params p = sim_base();
	struct sim_result r;
	struct hs_tx tx;
	struct hs_rx rx;
	unsigned int i;

	p.jitter_ns = 4000;
	p.ack_jitter_ns = 4000;
	p.ce = 0.1;
	for (i = 0; i < 3; i++) {
		p.ack_every = ack_every[i];
		p.seed = T_SEED + i;
		sim_run(&p, &tx, &rx, &r);
		sim_check_exact(&p, &tx, &rx, &r);
		ck_assert_uint_eq(tx.nb_pkts, 512);
		ck_assert_uint_eq(tx.nb_retx, 0);
		ck_assert_uint_eq(tx.nb_timeouts, 0);
		ck_assert_uint_eq(tx.nb_sent, 512);
		ck_assert_uint_eq(rx.nb_dups, 0);
		ck_assert_uint_ge(rx.max_reorder, 10);
		ck_assert_uint_gt(r.nb_ce_acks, 0);
		/* Every ACK a single transmission: each one a sample. */
		ck_assert_uint_eq(r.nb_rtt_samples, tx.nb_acks);
		sim_free(&tx, &rx, &r);
	}
}
END_TEST

/*
 * The same reordering with a window smaller than it: spurious
 * retransmissions (the receiver sees duplicates), still exact delivery.
 * This is what the window is for.
 */
START_TEST(test_sim_reorder_beyond_window)
{
	struct sim_params p = sim_base();
	struct sim_result r;
	struct hs_tx tx;
	struct hs_rx rx;

	p.jitter_ns = 4000;
	p.ack_jitter_ns = 4000;
	p.reorder_window_ns = 1000;
	sim_run(&p, &tx, &rx, &r);
	sim_check_exact(&p, &tx, &rx, &r);
	ck_assert_uint_gt(tx.nb_retx, 0);
	ck_assert_uint_gt(rx.nb_dups, 0);
	ck_assert_uint_eq(tx.nb_timeouts, 0);
	sim_free(&tx, &rx, &r);
}
END_TEST

/* Losses in the middle: RACK recovers each with one retransmission. */
START_TEST(test_sim_rack_recovery)
{
	static const struct sim_drop drops[] = {
		{ 0, 1 }, { 3, 1 }, { 300, 1 }, { 301, 1 }, { 400, 1 },
		{ 100, 1 }, { 100, 2 },	/* the retransmission lost too */
	};
	struct sim_params p = sim_base();
	struct sim_result r;
	struct hs_tx tx;
	struct hs_rx rx;
	uint32_t i;

	p.drops = drops;
	p.nb_drops = T_DIM(drops);
	sim_run(&p, &tx, &rx, &r);
	sim_check_exact(&p, &tx, &rx, &r);
	ck_assert_uint_eq(tx.nb_timeouts, 0);
	ck_assert_uint_eq(tx.nb_retx, 7);
	for (i = 0; i < tx.nb_pkts; i++) {
		uint8_t expect = 1;

		if (i == 0 || i == 3 || i == 300 || i == 301 || i == 400)
			expect = 2;
		else if (i == 100)
			expect = 3;
		ck_assert_msg(hs_tx_nb_tx(&tx, i) == expect, "psn %u sent %u", i,
			      hs_tx_nb_tx(&tx, i));
	}
	ck_assert_uint_eq(rx.nb_dups, 0);
	sim_free(&tx, &rx, &r);
}
END_TEST

/*
 * The last packets lost: nothing later can show it, the timeout does,
 * exactly one RTO after the last progress (ACK of PSN 508, sent at
 * 50800, back at 70800).
 */
START_TEST(test_sim_tail_loss_rto)
{
	static const struct sim_drop drops[] = {
		{ 509, 1 }, { 510, 1 }, { 511, 1 },
	};
	static const struct sim_drop last[] = { { 511, 1 }, { 511, 2 } };
	struct sim_params p = sim_base();
	struct sim_result r;
	struct hs_tx tx;
	struct hs_rx rx;

	p.drops = drops;
	p.nb_drops = T_DIM(drops);
	sim_run(&p, &tx, &rx, &r);
	sim_check_exact(&p, &tx, &rx, &r);
	ck_assert_uint_eq(tx.nb_timeouts, 1);
	ck_assert_uint_eq(r.first_timeout_ns, 70800 + p.rto_ns);
	ck_assert_uint_eq(tx.nb_retx, 3);
	/* Retransmissions 100 ns apart, the last ACK one RTT later. */
	ck_assert_uint_eq(r.end_ns, 70800 + p.rto_ns + 200 + 20000);
	sim_free(&tx, &rx, &r);

	/* Only the very last one, and its retransmission too: two RTOs. */
	p.drops = last;
	p.nb_drops = T_DIM(last);
	sim_run(&p, &tx, &rx, &r);
	sim_check_exact(&p, &tx, &rx, &r);
	ck_assert_uint_eq(tx.nb_timeouts, 2);
	ck_assert_uint_eq(r.first_timeout_ns, 71000 + p.rto_ns);
	ck_assert_uint_eq(tx.nb_retx, 2);
	ck_assert_uint_eq(r.end_ns, 71000 + 2 * p.rto_ns + 20000);
	sim_free(&tx, &rx, &r);
}
END_TEST

/*
 * Random loss of data and ACKs, duplication, reordering, CE, windowed
 * and not, several sizes and seeds: always exact delivery.
 */
START_TEST(test_sim_random)
{
	static const struct {
		uint64_t size;
		uint16_t mss;
		uint16_t ack_every;
		double loss;
		uint32_t max_in_flight;
	} cases[] = {
		{ 2 << 20, 4096, 1, 0.05, 0 },
		{ 2 << 20, 4096, 4, 0.05, 32 },
		{ 1000000, 4096, 2, 0.02, 0 },	/* last packet 576 bytes */
		{ 10000, 4096, 1, 0.3, 0 },
		{ 1, 4096, 1, 0.5, 0 },
		{ 300 * 1500, 1500, 8, 0.3, 16 },
		{ 64 * 1024, 1024, 1, 0.1, 0 },	/* exactly 64 packets */
	};
	struct sim_params p = sim_base();
	struct sim_result r;
	struct hs_tx tx;
	struct hs_rx rx;
	uint64_t total_retx = 0;
	uint64_t total_dups = 0;
	unsigned int i;
	unsigned int s;

	p.jitter_ns = 3000;
	p.ack_jitter_ns = 3000;
	p.dup = 0.02;
	p.ce = 0.05;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (s = 0; s < 4; s++) {
			p.size = cases[i].size;
			p.mss = cases[i].mss;
			p.ack_every = cases[i].ack_every;
			p.loss = cases[i].loss;
			p.ack_loss = cases[i].loss;
			p.max_in_flight = cases[i].max_in_flight;
			p.seed = T_SEED * (i + 1) + s;
			sim_run(&p, &tx, &rx, &r);
			sim_check_exact(&p, &tx, &rx, &r);
			if (cases[i].max_in_flight == 0 && p.size > 100000)
				ck_assert_uint_gt(tx.nb_retx, 0);
			total_retx += tx.nb_retx;
			total_dups += rx.nb_dups;
			sim_free(&tx, &rx, &r);
		}
	}
	ck_assert_uint_gt(total_retx, 100);
	ck_assert_uint_gt(total_dups, 100);
}
END_TEST

/*
 * A large flow with reordering within the window, data loss and no ACK
 * loss: every retransmission answers exactly one lost transmission (none
 * is spurious, none missing), found by RACK except at the very tail.
 * While a hole is older than the SACK window, later packets are
 * acknowledged by their own echo only, so ACK reordering adds to data
 * reordering: the jitters together stay below the window.
 */
START_TEST(test_sim_large)
{
	static const uint16_t ack_every[] = { 1, 2 };
	struct sim_params p = sim_base();
	struct sim_result r;
	struct hs_tx tx;
	struct hs_rx rx;
	unsigned int i;

	p.size = 20000ull * 4096;
	p.jitter_ns = 2000;
	p.ack_jitter_ns = 2000;
	p.loss = 0.01;
	for (i = 0; i < T_DIM(ack_every); i++) {
		p.ack_every = ack_every[i];
		p.seed = T_SEED + i;
		sim_run(&p, &tx, &rx, &r);
		sim_check_exact(&p, &tx, &rx, &r);
		ck_assert_uint_ge(r.nb_dropped, 150);
		ck_assert_uint_eq(tx.nb_retx, r.nb_dropped);
		ck_assert_uint_eq(rx.nb_dups, 0);
		ck_assert_uint_le(tx.nb_timeouts, 2);
		ck_assert_uint_ge(rx.max_reorder, 10);
		sim_free(&tx, &rx, &r);
	}
}
END_TEST

/*
 * A long flow's per-PSN state comes in chunks of HS_PSN_CHUNK PSNs, each
 * a 2 MB-aligned anonymous mapping (huge pages where the kernel gives
 * them), made when their first PSN is sent: the first at the start, the
 * others not before.  They hold state at both ends of a chunk and behave
 * as a small flow's.
 */
START_TEST(test_tx_large_arrays)
{
	const uint32_t n = 1u << 20;	/* 8 chunks */
	struct hs_tx tx;
	uint32_t psn;

	ck_assert_int_eq(hs_tx_init(&tx, (uint64_t)n * 1000, 1000, 100, 1000000,
				    0), 0);
	ck_assert_uint_eq(tx.nb_pkts, n);
	ck_assert_uint_eq(tx.nb_chunks, n / HS_PSN_CHUNK);
	ck_assert_uint_eq((uintptr_t)tx.chunk[0].e % (2u << 20), 0);
	ck_assert(hs_tx_has_psn(&tx, HS_PSN_CHUNK - 1));
	ck_assert(!hs_tx_has_psn(&tx, HS_PSN_CHUNK));
	ck_assert(!hs_tx_has_psn(&tx, n));
	ck_assert_uint_eq(hs_tx_psn(&tx, 17)->sent_ns, 0);
	ck_assert_uint_eq(hs_tx_nb_tx(&tx, n - 1), 0);
	for (psn = 0; psn < n; psn++) {
		ck_assert_uint_eq(hs_tx_next(&tx), psn);
		hs_tx_sent(&tx, psn, 10 + psn);
	}
	ck_assert(hs_tx_has_psn(&tx, n - 1));
	ck_assert_uint_eq((uintptr_t)tx.chunk[7].e % (2u << 20), 0);
	ck_assert_uint_eq(hs_tx_psn(&tx, n - 1)->sent_ns, 10 + n - 1);
	ck_assert_uint_eq(hs_tx_psn(&tx, n - 1)->prev, n - 2);
	ck_assert_uint_eq(hs_tx_psn(&tx, n - 1)->next, HS_PSN_NONE);
	/* Links across a chunk boundary. */
	ck_assert_uint_eq(hs_tx_psn(&tx, HS_PSN_CHUNK)->prev, HS_PSN_CHUNK - 1);
	ck_assert_uint_eq(hs_tx_psn(&tx, HS_PSN_CHUNK - 1)->next, HS_PSN_CHUNK);
	ck_assert_uint_eq(hs_tx_in_flight(&tx), n);
	/* Everything but PSN 5 arrives; the last ACK echoes the last PSN. */
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 5, 0, 4, false, 10 + n + 500,
				       NULL), 5);
	ck_assert_uint_eq(hs_tx_on_ack(&tx, 5, ~0ull, n - 1, false,
				       10 + n + 600, NULL), 65);
	/* RACK: PSN 5 was sent long before the latest acknowledged one. */
	ck_assert_uint_eq(hs_tx_next(&tx), 5);
	hs_tx_sent(&tx, 5, 10 + n + 700);
	ck_assert_uint_eq(hs_tx_nb_tx(&tx, 5), 2);
	ck_assert_uint_eq(tx.nb_retx, 1);
	ck_assert_uint_eq(hs_tx_psn(&tx, tx.sent_tail)->sent_ns, 10 + n + 700);
	ck_assert_uint_eq(tx.nb_chunk_fail, 0);
	hs_tx_fini(&tx);
	ck_assert_ptr_null(tx.chunk);
}
END_TEST

/*
 * A long flow's state follows its packets in flight: with 1,000 packets
 * in flight at any time, at most three chunks exist (the one being sent,
 * the one acknowledged and the one before it), a chunk whose packets and
 * the next chunk's are all acknowledged is given up and its memory is the
 * next new chunk's, with every count back at 0, and RTT samples, the
 * retransmission count and completion are what they are with the whole
 * flow's state.  A late echo of a PSN whose chunk is gone gives no RTT
 * sample and changes nothing.
 */
START_TEST(test_tx_chunks_follow_flight)
{
	const uint32_t n = 6 * HS_PSN_CHUNK + 123, window = 1000;
	struct hs_psn_state *first = NULL;
	uint64_t rtt = 0, acked = 0;
	uint32_t psn, c, live, most = 0;
	struct hs_tx tx;

	ck_assert_int_eq(hs_tx_init(&tx, (uint64_t)n * 100, 100, 1000,
				    1000000000, 0), 0);
	first = tx.chunk[0].e;
	for (psn = 0; psn < n + window; psn++) {
		if (psn < n) {
			ck_assert_uint_eq(hs_tx_next(&tx), psn);
			hs_tx_sent(&tx, psn, 1000 + 10ull * psn);
			ck_assert_uint_eq(hs_tx_nb_tx(&tx, psn), 1);
			if (psn == 3 * HS_PSN_CHUNK)	/* chunk 0 reused */
				ck_assert_ptr_eq(tx.chunk[3].e, first);
		}
		if (psn >= window) {
			uint32_t a = psn - window;	/* in order, echoed */

			acked += hs_tx_on_ack(&tx, a + 1, 0, a, false,
					      1000 + 10ull * psn + 7, &rtt);
			ck_assert_uint_eq(rtt, 10ull * window + 7);
		}
		for (c = 0, live = 0; c < tx.nb_chunks; c++)
			live += tx.chunk[c].e != NULL;
		if (live > most)
			most = live;
	}
	ck_assert_uint_eq(most, 3);
	ck_assert_uint_eq(acked, n);
	ck_assert(hs_tx_done(&tx));
	ck_assert_uint_eq(tx.nb_sent, n);
	ck_assert_uint_eq(tx.nb_retx, 0);
	ck_assert(!hs_tx_has_psn(&tx, 0));
	ck_assert(hs_tx_has_psn(&tx, n - 1));
	ck_assert_uint_eq(hs_tx_on_ack(&tx, n, 0, 3, false, 1ull << 40, &rtt),
			  0);
	ck_assert_uint_eq(rtt, 0);
	ck_assert_uint_eq(tx.nb_chunk_fail, 0);
	hs_tx_fini(&tx);
}
END_TEST

/* ---- congestion control (hs_cc.h) ---- */

/* rate: no state, never holds a packet back, nothing per packet. */
START_TEST(test_cc_rate)
{
	const struct hs_cc_ops *cc = hs_cc_find("rate");

	ck_assert_ptr_nonnull(cc);
	ck_assert_ptr_eq(cc, hs_cc_registry[0]);	/* the default */
	ck_assert(!cc->windowed);
	ck_assert(cc->start == NULL && cc->may_send == NULL &&
		  cc->on_ack == NULL && cc->on_timeout == NULL);
	/* ofan-host --help's lines. */
	ck_assert_ptr_null(hs_cc_registry[4]);
	T_CHECK_DESCRIBE(hs_cc_describe, hs_cc_registry);
}
END_TEST

/*
 * ecn_window: [cc.ecn_window] window at the start; half a packet off per
 * CE echo down to 1, 1 / window on per clean ACK up to that window, 1
 * after a timeout; a new packet leaves only while fewer than the window
 * are out.
 */
/* ACK, CE echo or not, and flight of pkts packets for the tests. */
static const struct hs_cc_ack t_cc_ack = { .acked_pkts = 1 };
static const struct hs_cc_ack t_cc_ce = { .acked_pkts = 1, .ce = true };

static bool
t_cc_may(const struct hs_cc_ops *cc, const void *st, const void *set,
	 uint32_t pkts)
{
	struct hs_cc_flight f = { .pkts = pkts, .bytes = (uint64_t)pkts * 100 };

	return cc->may_send(st, set, &f);
}

START_TEST(test_cc_ecn_window)
{
	const struct hs_cc_ops *cc = hs_cc_find("ECN_Window");
	const struct hs_ecn_window_settings w8 = { .window_pkts = 8 };
	const struct hs_ecn_window_settings w4 = { .window_pkts = 4 };
	const struct hs_cc_flow fl = { .mss = 100 };
	struct hs_cc_settings_table set;
	struct hs_cc_state blk = { 0 };
	struct hs_ecn_window_state *st = (void *)blk.bytes;
	unsigned int i;

	ck_assert_ptr_nonnull(cc);
	ck_assert(cc->windowed);
	ck_assert_uint_eq(cc->settings_size, sizeof(w8));
	ck_assert_uint_eq(cc->state_size, sizeof(*st));
	hs_cc_settings_defaults(&set);
	ck_assert_uint_eq(((const struct hs_ecn_window_settings *)
			   hs_cc_settings_of(&set, cc))->window_pkts, 64);
	cc->start(st, &w8, &fl);
	ck_assert(st->cwnd == 8.0);
	ck_assert(cc->window(st, &w8) == 800.0);
	ck_assert(t_cc_may(cc, st, &w8, 7));
	ck_assert(!t_cc_may(cc, st, &w8, 8));
	cc->on_ack(st, &w8, &t_cc_ack);	/* at the cap already */
	ck_assert(st->cwnd == 8.0);
	cc->on_ack(st, &w8, &t_cc_ce);
	ck_assert(st->cwnd == 7.5);
	ck_assert(!t_cc_may(cc, st, &w8, 7));	/* 7.5 packets: 7 */
	ck_assert(cc->window(st, &w8) == 700.0);
	cc->on_ack(st, &w8, &t_cc_ack);
	ck_assert(st->cwnd == 7.5 + 1.0 / 7.5);
	for (i = 0; i < 40; i++)
		cc->on_ack(st, &w8, &t_cc_ce);
	ck_assert(st->cwnd == 1.0);
	ck_assert(t_cc_may(cc, st, &w8, 0));
	ck_assert(!t_cc_may(cc, st, &w8, 1));
	cc->start(st, &w4, &fl);
	cc->on_timeout(st, &w4, 0);
	ck_assert(st->cwnd == 1.0);
	cc->on_ack(st, &w4, &t_cc_ack);
	ck_assert(st->cwnd == 2.0);
}
END_TEST

static bool
t_cc_always(const void *st, const void *settings,
	    const struct hs_cc_flight *f)
{
	(void)st;
	(void)settings;
	(void)f;
	return true;
}

static double
t_cc_window(const void *st, const void *settings)
{
	(void)st;
	(void)settings;
	return 1e9;
}

/* What hs_cc_register() refuses, and a model added by a test. */
START_TEST(test_cc_register)
{
	static const struct hs_cc_ops ok = {
		.name = "t_open_window", .summary = "never holds back",
		.windowed = true, .may_send = t_cc_always,
		.window = t_cc_window,
	};
	struct hs_cc_ops bad = ok;
	const char *names[HS_MAX_CC + 1];

	bad.name = NULL;
	ck_assert_int_eq(hs_cc_register(&bad), -EINVAL);
	bad = ok;
	bad.summary = NULL;
	ck_assert_int_eq(hs_cc_register(&bad), -EINVAL);
	bad = ok;
	bad.windowed = false;	/* a window test without saying so */
	ck_assert_int_eq(hs_cc_register(&bad), -EINVAL);
	bad = ok;
	bad.may_send = NULL;	/* windowed without a window test */
	ck_assert_int_eq(hs_cc_register(&bad), -EINVAL);
	bad = ok;
	bad.window = NULL;	/* windowed without saying its window */
	ck_assert_int_eq(hs_cc_register(&bad), -EINVAL);
	bad = ok;
	bad.settings_size = HS_CC_SETTINGS_MAX + 1;
	ck_assert_int_eq(hs_cc_register(&bad), -EINVAL);
	bad = ok;
	bad.state_size = HS_CC_STATE_MAX + 1;
	ck_assert_int_eq(hs_cc_register(&bad), -EINVAL);
	bad = ok;
	bad.windowed = false;
	bad.window = NULL;
	bad.pulls = true;	/* receiver-driven without its hooks */
	ck_assert_int_eq(hs_cc_register(&bad), -EINVAL);
	bad = ok;
	bad.name = "Rate";
	ck_assert_int_eq(hs_cc_register(&bad), -EEXIST);
	ck_assert_int_eq(hs_cc_register(&ok), 0);
	ck_assert_ptr_eq(hs_cc_find("t_open_window"), &ok);
	ck_assert_uint_eq(hs_cc_name_list(names), 5);
	ck_assert_str_eq(names[4], "t_open_window");
	ck_assert_int_eq(hs_cc_index(&ok), 4);
	ck_assert_int_eq(hs_cc_register(&ok), -EEXIST);
}
END_TEST

static Suite *
flow_suite(void)
{
	Suite *s = suite_create("flow");
	TCase *tc;

	tc = tcase_create("tx");
	tcase_add_test(tc, test_tx_sizes);
	tcase_add_test(tc, test_tx_next_and_sent);
	tcase_add_test(tc, test_tx_ack_cum_sack);
	tcase_add_test(tc, test_tx_rtt);
	tcase_add_test(tc, test_tx_rack);
	tcase_add_test(tc, test_tx_rack_rejudge);
	tcase_add_test(tc, test_tx_rack_ambiguous);
	tcase_add_test(tc, test_tx_queued_then_acked);
	tcase_add_test(tc, test_tx_rto);
	tcase_add_test(tc, test_tx_rto_then_rack);
	tcase_add_test(tc, test_tx_rto_fallback);
	tcase_add_test(tc, test_tx_rto_oldest);
	tcase_add_test(tc, test_tx_retx_out_of_order);
	tcase_add_test(tc, test_tx_forced_retx);
	suite_add_tcase(s, tc);

	/* Flows of 2^20 packets and more: their state is megabytes, which a
	 * busy machine takes seconds to fault in (4 s is Check's default). */
	tc = tcase_create("tx_large");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_tx_large_arrays);
	tcase_add_test(tc, test_tx_chunks_follow_flight);
	suite_add_tcase(s, tc);

	tc = tcase_create("rx");
	tcase_add_test(tc, test_rx_sequence);
	tcase_add_test(tc, test_rx_uec_acks);
	tcase_add_test(tc, test_rx_sack_window);
	tcase_add_test(tc, test_rx_ack_policy);
	suite_add_tcase(s, tc);

	tc = tcase_create("cc");
	tcase_add_test(tc, test_cc_rate);
	tcase_add_test(tc, test_cc_ecn_window);
	tcase_add_test(tc, test_cc_register);
	suite_add_tcase(s, tc);

	tc = tcase_create("sim");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sim_reorder_no_spurious);
	tcase_add_test(tc, test_sim_reorder_beyond_window);
	tcase_add_test(tc, test_sim_rack_recovery);
	tcase_add_test(tc, test_sim_tail_loss_rto);
	tcase_add_test(tc, test_sim_random);
	tcase_add_test(tc, test_sim_large);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(flow_suite());
}
