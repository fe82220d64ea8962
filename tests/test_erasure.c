/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the erasure-coded constant-rate transport (hs_erasure.h), the
 * study's loss-recovery model, alone: no EAL, no packets, time given by
 * the test.  Each rule of htsim's sender is exercised on its own:
 * needed = ceil(size / symbol) + k, fresh PSNs, the count in every ACK,
 * losses made up from (highest PSN acknowledged + 1 - count), the stop
 * once enough is sent and the resend on every slot one smoothed RTT
 * later, the RTT estimator, the feedback-only timeout; and the receiver's
 * distinct count, duplicates, growing bitmap and ACK rules.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "hs_erasure.h"
#include "unit_suite.h"

#define MSS 4096
#define US 1000ull

START_TEST(test_needed)
{
	struct hs_etx tx;

	/* 2 MiB in 4096-byte symbols: 512, + k = 3. */
	ck_assert_int_eq(hs_etx_init(&tx, 2u << 20, MSS, 3, 10 * US, 2 * US,
				     0), 0);
	ck_assert_uint_eq(tx.nb_needed, 515);
	ck_assert_uint_eq(tx.symbol, MSS);
	hs_etx_fini(&tx);
	/* A partial last symbol is a whole packet; k = 0. */
	ck_assert_int_eq(hs_etx_init(&tx, 3 * MSS + 1, MSS, 0, 10 * US,
				     2 * US, 0), 0);
	ck_assert_uint_eq(tx.nb_needed, 4);
	hs_etx_fini(&tx);
	/* Smaller than a symbol: one packet of the flow's size. */
	ck_assert_int_eq(hs_etx_init(&tx, 100, MSS, 2, 10 * US, 2 * US, 0),
			 0);
	ck_assert_uint_eq(tx.nb_needed, 3);
	ck_assert_uint_eq(tx.symbol, 100);
	hs_etx_fini(&tx);
	ck_assert_int_eq(hs_etx_init(&tx, 0, MSS, 3, 10 * US, 2 * US, 0),
			 -EINVAL);
	ck_assert_uint_eq(hs_erasure_data_pkts(5 * MSS, MSS), 5);
}
END_TEST

/* Send every slot: PSN 0, 1, 2, ... until enough is sent, then wait. */
static uint32_t
send_until_stop(struct hs_etx *tx, uint64_t *now, uint64_t slot)
{
	uint32_t psn, n = 0;

	while ((psn = hs_etx_next(tx, *now)) != HS_PSN_NONE) {
		ck_assert_uint_eq(psn, n);
		ck_assert_int_eq(hs_etx_sent(tx, psn, *now), 0);
		n++;
		*now += slot;
	}
	return n;
}

START_TEST(test_lossless)
{
	struct hs_etx tx;
	struct hs_erx rx;
	struct hs_eack_info a;
	uint64_t now = 1000, rtt;
	bool ack;
	uint32_t i, n;

	ck_assert_int_eq(hs_etx_init(&tx, 8 * MSS, MSS, 2, 10 * US, 2 * US,
				     now), 0);
	ck_assert_int_eq(hs_erx_init(&rx, 10, 1), 0);
	n = send_until_stop(&tx, &now, 100);
	ck_assert_uint_eq(n, 10);
	ck_assert(tx.final_set);
	/* The slot that found nothing to send is when it stopped. */
	ck_assert_uint_eq(tx.final_ns, 1000 + 10 * 100);
	/* Every packet arrives, every one is ACKed with the count. */
	for (i = 0; i < 10; i++) {
		ck_assert(hs_erx_on_data(&rx, i, false, &ack, &a));
		ck_assert(ack);
		ck_assert_uint_eq(a.count, i + 1);
		ck_assert_uint_eq(a.echo_psn, i);
		ck_assert_uint_eq(hs_etx_on_ack(&tx, a.count, a.echo_psn,
						false, 1000 + i * 100 + 5 * US,
						&rtt), 1);
		ck_assert_uint_eq(rtt, 5 * US);
	}
	ck_assert(hs_erx_done(&rx));
	ck_assert(hs_etx_done(&tx));
	ck_assert_uint_eq(tx.nb_sent, 10);
	ck_assert_uint_eq(tx.nb_extra, 0);
	ck_assert_uint_eq(hs_etx_next(&tx, now), HS_PSN_NONE);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), UINT64_MAX);
	/* srtt converged towards the samples (gain 1/8). */
	ck_assert_uint_eq(tx.srtt_ns, 5 * US);
	hs_erx_fini(&rx);
	hs_etx_fini(&tx);
}
END_TEST

/*
 * A loss the sender can see (a later PSN acknowledged, the count short)
 * is made up by one new packet at once, without waiting.
 */
START_TEST(test_visible_loss)
{
	struct hs_etx tx;
	uint64_t now = 0;
	uint32_t n;

	ck_assert_int_eq(hs_etx_init(&tx, 4 * MSS, MSS, 1, 10 * US, 2 * US,
				     now), 0);
	n = send_until_stop(&tx, &now, 100);
	ck_assert_uint_eq(n, 5);
	/* PSN 1 lost: ACKs of 0, 2, 3, 4 carry counts 1, 2, 3, 4. */
	hs_etx_on_ack(&tx, 1, 0, false, 10 * US, NULL);
	hs_etx_on_ack(&tx, 2, 2, false, 10 * US + 100, NULL);
	ck_assert_uint_eq(hs_etx_lost(&tx), 1);
	ck_assert_uint_eq(hs_etx_next(&tx, 10 * US + 150), 5);
	ck_assert_int_eq(hs_etx_sent(&tx, 5, 10 * US + 150), 0);
	ck_assert_uint_eq(tx.nb_extra, 1);
	/* Sent 6, lost 1: enough again. */
	ck_assert_uint_eq(hs_etx_next(&tx, 10 * US + 250), HS_PSN_NONE);
	hs_etx_on_ack(&tx, 3, 3, false, 10 * US + 200, NULL);
	hs_etx_on_ack(&tx, 4, 4, false, 10 * US + 300, NULL);
	ck_assert(!hs_etx_done(&tx));
	hs_etx_on_ack(&tx, 5, 5, false, 20 * US + 150, NULL);
	ck_assert(hs_etx_done(&tx));
	ck_assert_uint_eq(tx.nb_sent, 6);
	hs_etx_fini(&tx);
}
END_TEST

/*
 * A tail loss nobody sees (the last packet): the sender waits one
 * smoothed RTT after it stopped, then sends on every slot until the
 * final ACK.  No retransmission timer is involved.
 */
START_TEST(test_tail_loss)
{
	struct hs_etx tx;
	uint64_t now = 0, wake;
	uint32_t n, i;

	ck_assert_int_eq(hs_etx_init(&tx, 4 * MSS, MSS, 0, 10 * US, 1000 * US,
				     now), 0);
	n = send_until_stop(&tx, &now, 100);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(tx.final_ns, 400);
	/* PSNs 0..2 arrive, 3 is lost. */
	for (i = 0; i < 3; i++)
		hs_etx_on_ack(&tx, i + 1, i, false, i * 100 + 8 * US, NULL);
	ck_assert_uint_eq(hs_etx_lost(&tx), 0);
	/* srtt 8 us now: the wait ends at 400 + 8000 + 1. */
	ck_assert_uint_eq(tx.srtt_ns, 8 * US);
	wake = hs_etx_timer_ns(&tx);
	ck_assert_uint_eq(wake, 400 + 8 * US + 1);
	ck_assert_uint_eq(hs_etx_next(&tx, wake - 1), HS_PSN_NONE);
	ck_assert_uint_eq(hs_etx_next(&tx, wake), 4);
	hs_etx_sent(&tx, 4, wake);
	/* Every slot now, even with nothing missing in sight. */
	ck_assert_uint_eq(hs_etx_next(&tx, wake + 100), 5);
	hs_etx_sent(&tx, 5, wake + 100);
	/* The wait is over: the timer no longer reports it. */
	ck_assert_uint_gt(hs_etx_timer_ns(&tx), wake + 100);
	hs_etx_on_ack(&tx, 4, 4, false, wake + 8 * US, NULL);
	ck_assert(hs_etx_done(&tx));
	ck_assert_uint_eq(hs_etx_next(&tx, wake + 8 * US), HS_PSN_NONE);
	ck_assert_uint_eq(tx.nb_extra, 2);
	ck_assert_uint_eq(tx.nb_timeouts, 0);
	hs_etx_fini(&tx);
}
END_TEST

/*
 * Losses seen after the sender had sent enough let it send again at its
 * slots: it no longer waits, so its timer does not report the wait's end
 * (which passes while it sends, and would then call for attention at
 * every ns: found by fuzz_host).  Once it has sent enough again it waits
 * again, and the timer says until when.
 */
START_TEST(test_wait_ends_with_losses)
{
	struct hs_etx tx;
	uint64_t now = 0;

	ck_assert_int_eq(hs_etx_init(&tx, 4 * MSS, MSS, 0, 10 * US, 1000 * US,
				     now), 0);
	ck_assert_uint_eq(send_until_stop(&tx, &now, 100), 4);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), 400 + 10 * US + 1);
	/* PSN 3 acknowledged with a count of 2: PSNs 0..3 hold 2 losses. */
	hs_etx_on_ack(&tx, 2, 3, false, 2 * US, NULL);
	ck_assert_uint_eq(hs_etx_lost(&tx), 2);
	ck_assert_uint_eq(tx.srtt_ns, 2 * US - 300);
	/* Sending, not waiting: only the feedback timer remains. */
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), UINT64_MAX);
	ck_assert_uint_eq(hs_etx_next(&tx, 2 * US), 4);
	ck_assert_int_eq(hs_etx_sent(&tx, 4, 2 * US), 0);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), 2 * US + 1000 * US);
	/* Past the old wait's end (400 + srtt): still a slot to send. */
	ck_assert_uint_eq(hs_etx_next(&tx, 5 * US), 5);
	ck_assert_int_eq(hs_etx_sent(&tx, 5, 5 * US), 0);
	/* Enough again, and the wait is long over: every slot sends. */
	ck_assert_uint_eq(hs_etx_next(&tx, 6 * US), 6);
	ck_assert(tx.tail);
	hs_etx_fini(&tx);
}
END_TEST

/*
 * The end of the wait is the sender's timer until the host checks the
 * sender at or after it (and so wakes the flow); then the timer is the
 * next one, the feedback timer, and the wait ends at the next slot.
 * Reported after the check, the end -- in the past -- hid the feedback
 * timer, which a flow held by its window needs (found by fuzz_host).
 */
START_TEST(test_wait_end_checked)
{
	struct hs_etx tx;
	uint64_t now = 0, end = 400 + 10 * US + 1;

	ck_assert_int_eq(hs_etx_init(&tx, 4 * MSS, MSS, 0, 10 * US, 100 * US,
				     now), 0);
	ck_assert_uint_eq(send_until_stop(&tx, &now, 100), 4);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), end);
	/* A check before the end changes nothing. */
	ck_assert(!hs_etx_check_timeout(&tx, end - 1));
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), end);
	/* At the end: the feedback timer (no ACK since the first send). */
	ck_assert(!hs_etx_check_timeout(&tx, end));
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), 100 * US);
	ck_assert(!tx.tail);
	/* The next slot ends the wait, as before. */
	ck_assert_uint_eq(hs_etx_next(&tx, end + 50), 4);
	ck_assert(tx.tail);
	hs_etx_fini(&tx);
}
END_TEST

/* Before any RTT sample the wait is the base RTT given at init. */
START_TEST(test_base_rtt_before_sample)
{
	struct hs_etx tx;
	uint64_t now = 0;

	ck_assert_int_eq(hs_etx_init(&tx, 2 * MSS, MSS, 0, 3 * US, US, now),
			 0);
	ck_assert_uint_eq(send_until_stop(&tx, &now, 100), 2);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), 200 + 3 * US + 1);
	hs_etx_fini(&tx);
}
END_TEST

/* RFC 6298 estimator: srtt 7/8, rttvar 3/4, rto = srtt + 4 rttvar >= min. */
START_TEST(test_rtt)
{
	struct hs_etx tx;
	uint64_t now = 0;

	ck_assert_int_eq(hs_etx_init(&tx, 8 * MSS, MSS, 0, 10 * US, 2 * US,
				     now), 0);
	send_until_stop(&tx, &now, 100);
	hs_etx_on_ack(&tx, 1, 0, false, 0 + 8000, NULL);
	ck_assert_uint_eq(tx.srtt_ns, 8000);
	ck_assert_uint_eq(tx.rttvar_ns, 4000);
	ck_assert_uint_eq(tx.rto_ns, 8000 + 4 * 4000);
	hs_etx_on_ack(&tx, 2, 1, false, 100 + 16000, NULL);
	ck_assert_uint_eq(tx.rttvar_ns, (3 * 4000 + 8000) / 4);
	ck_assert_uint_eq(tx.srtt_ns, (7 * 8000 + 16000) / 8);
	ck_assert_uint_eq(tx.rto_ns, tx.srtt_ns + 4 * tx.rttvar_ns);
	hs_etx_fini(&tx);
	/* The floor. */
	ck_assert_int_eq(hs_etx_init(&tx, 8 * MSS, MSS, 0, 10 * US,
				     500 * US, 0), 0);
	now = 0;
	send_until_stop(&tx, &now, 100);
	hs_etx_on_ack(&tx, 1, 0, false, 1000, NULL);
	ck_assert_uint_eq(tx.rto_ns, 500 * US);
	hs_etx_fini(&tx);
}
END_TEST

/*
 * The feedback timer: packets out, no ACK for one RTO: it says so once
 * per RTO and resends nothing.  No timer with nothing out.
 */
START_TEST(test_feedback_timeout)
{
	struct hs_etx tx;
	uint64_t now = 0, t;

	ck_assert_int_eq(hs_etx_init(&tx, 64 * MSS, MSS, 0, 10 * US, 20 * US,
				     0), 0);
	/* rto before samples: base + 4 * base/2 = 30 us. */
	ck_assert_uint_eq(tx.rto_ns, 30 * US);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), UINT64_MAX);
	ck_assert_uint_eq(hs_etx_next(&tx, now), 0);
	hs_etx_sent(&tx, 0, 5 * US);
	t = hs_etx_timer_ns(&tx);
	ck_assert_uint_eq(t, 35 * US);
	ck_assert(!hs_etx_check_timeout(&tx, t - 1));
	ck_assert(hs_etx_check_timeout(&tx, t));
	ck_assert(!hs_etx_check_timeout(&tx, t + 1));
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), t + 30 * US);
	ck_assert_uint_eq(tx.nb_timeouts, 1);
	ck_assert_uint_eq(tx.nb_sent, 1);
	/* An ACK for everything out: nothing out, no timer. */
	hs_etx_on_ack(&tx, 1, 0, false, t + 10, NULL);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), UINT64_MAX);
	hs_etx_fini(&tx);
}
END_TEST

/*
 * Under a window (cc = ecn_window) the sender counts in flight what it
 * sent and does not know received or lost: packets the ACKs show lost
 * leave the count, and so does everything out when the feedback timer
 * fires, which runs while anything is in flight, even when the last ACK
 * came after the last send.  A window full of lost packets used to stay
 * full for ever (found by fuzz_host).  Without a window none of this
 * changes the timer (the study's sender).
 */
START_TEST(test_window_in_flight)
{
	struct hs_etx tx;
	uint64_t now = 0;
	uint32_t i;

	ck_assert_int_eq(hs_etx_init(&tx, 8 * MSS, MSS, 0, 10 * US, 20 * US,
				     now), 0);
	hs_etx_set_windowed(&tx, true);
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(hs_etx_next(&tx, now), i);
		ck_assert_int_eq(hs_etx_sent(&tx, i, now), 0);
		now += 100;
	}
	ck_assert_uint_eq(hs_etx_in_flight(&tx), 4);
	/* PSN 3 arrives, 0..2 were lost: nothing is in flight any more. */
	hs_etx_on_ack(&tx, 1, 3, false, 10 * US, NULL);
	ck_assert_uint_eq(hs_etx_lost(&tx), 3);
	ck_assert_uint_eq(hs_etx_in_flight(&tx), 0);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), UINT64_MAX);
	/* Two more, both lost; the last ACK came before them. */
	hs_etx_sent(&tx, 4, 11 * US);
	hs_etx_sent(&tx, 5, 11 * US + 100);
	ck_assert_uint_eq(hs_etx_in_flight(&tx), 2);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), 11 * US + tx.rto_ns);
	/* A late ACK of PSN 3 again (a duplicate): the timer still runs. */
	hs_etx_on_ack(&tx, 1, 3, false, 12 * US, NULL);
	ck_assert_uint_eq(hs_etx_in_flight(&tx), 2);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), 12 * US + tx.rto_ns);
	ck_assert(hs_etx_check_timeout(&tx, 12 * US + tx.rto_ns));
	/* Given up: the window may send again. */
	ck_assert_uint_eq(hs_etx_in_flight(&tx), 0);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), UINT64_MAX);
	hs_etx_fini(&tx);

	/* No window: the timer runs only with packets sent since an ACK. */
	now = 0;
	ck_assert_int_eq(hs_etx_init(&tx, 8 * MSS, MSS, 0, 10 * US, 20 * US,
				     now), 0);
	hs_etx_sent(&tx, 0, 0);
	hs_etx_sent(&tx, 1, 100);
	hs_etx_on_ack(&tx, 1, 0, false, 10 * US, NULL);
	ck_assert_uint_eq(hs_etx_timer_ns(&tx), UINT64_MAX);
	hs_etx_fini(&tx);
}
END_TEST

/*
 * Per-EV path timers (htsim's _ev_timers): the first packet on an EV
 * starts its timer, later ones on the same EV do not restart it, an ACK
 * echoing the EV stops it, and a check after more than one RTO says
 * "expired" once.
 */
START_TEST(test_path_timers)
{
	struct hs_etx tx;

	ck_assert_int_eq(hs_etx_init(&tx, 64 * MSS, MSS, 0, 10 * US, 20 * US,
				     0), 0);
	ck_assert_uint_eq(tx.rto_ns, 30 * US);
	ck_assert(!hs_etx_path_expired(&tx, 7, 100 * US));	/* none */
	ck_assert_int_eq(hs_etx_path_sent(&tx, 7, 0), 0);
	ck_assert_int_eq(hs_etx_path_sent(&tx, 7, 20 * US), 0);
	ck_assert(!hs_etx_path_expired(&tx, 7, 30 * US));	/* = RTO */
	ck_assert(hs_etx_path_expired(&tx, 7, 30 * US + 1));
	ck_assert(!hs_etx_path_expired(&tx, 7, 100 * US));	/* stopped */
	ck_assert_uint_eq(tx.nb_path_timeouts, 1);
	ck_assert_int_eq(hs_etx_path_sent(&tx, 7, 100 * US), 0);
	hs_etx_path_acked(&tx, 7);
	ck_assert(!hs_etx_path_expired(&tx, 7, 200 * US));
	hs_etx_path_acked(&tx, 8);	/* no timer: nothing */
	/* EV 65535 (key 65536) and EV 0 are EVs like the others. */
	ck_assert_int_eq(hs_etx_path_sent(&tx, 65535, 0), 0);
	ck_assert_int_eq(hs_etx_path_sent(&tx, 0, 0), 0);
	ck_assert(hs_etx_path_expired(&tx, 65535, 31 * US));
	ck_assert(hs_etx_path_expired(&tx, 0, 31 * US));
	ck_assert_uint_eq(tx.evt_used, 0);
	hs_etx_fini(&tx);
}
END_TEST

/*
 * The table against a plain array over many EVs: it grows, and removals
 * (ACKs, expiries) in any order keep every other timer findable.
 */
START_TEST(test_path_timers_many)
{
	static uint64_t ref[4096];	/* 0: no timer, else sent + 1 */
	uint64_t x = 88172645463325252ull, now;
	struct hs_etx tx;
	unsigned int i, used = 0;

	ck_assert_int_eq(hs_etx_init(&tx, 64 * MSS, MSS, 0, 10 * US, 20 * US,
				     0), 0);
	for (i = 0; i < 4096; i++)
		ref[i] = 0;
	for (now = 1; now <= 200000; now++) {
		uint16_t ev;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ev = (uint16_t)(x % 4096);
		switch ((x >> 20) % 3) {
		case 0:
			ck_assert_int_eq(hs_etx_path_sent(&tx, ev, now), 0);
			if (ref[ev] == 0) {
				ref[ev] = now + 1;
				used++;
			}
			break;
		case 1:
			hs_etx_path_acked(&tx, ev);
			if (ref[ev] != 0)
				used--;
			ref[ev] = 0;
			break;
		default: {
			bool want = ref[ev] != 0 && now - (ref[ev] - 1) > tx.rto_ns;

			ck_assert(hs_etx_path_expired(&tx, ev, now) == want);
			if (want) {
				ref[ev] = 0;
				used--;
			}
		}
		}
		ck_assert_uint_eq(tx.evt_used, used);
	}
	ck_assert_uint_gt(tx.evt_cap, 1024);
	ck_assert_uint_gt(tx.nb_path_timeouts, 1000);
	hs_etx_fini(&tx);
}
END_TEST

/* ACKs may arrive out of order: the largest count and PSN win. */
START_TEST(test_reordered_acks)
{
	struct hs_etx tx;
	uint64_t now = 0;

	ck_assert_int_eq(hs_etx_init(&tx, 4 * MSS, MSS, 0, 10 * US, 2 * US,
				     0), 0);
	send_until_stop(&tx, &now, 100);
	ck_assert_uint_eq(hs_etx_on_ack(&tx, 3, 2, false, 9000, NULL), 3);
	ck_assert_uint_eq(hs_etx_on_ack(&tx, 1, 0, false, 9001, NULL), 0);
	ck_assert_uint_eq(tx.received, 3);
	ck_assert_uint_eq(tx.highest, 3);
	/* A count beyond what was sent is clamped; an unsent PSN ignored. */
	ck_assert_uint_eq(hs_etx_on_ack(&tx, 99, 77, false, 9002, NULL), 1);
	ck_assert_uint_eq(tx.received, 4);
	ck_assert_uint_eq(tx.highest, 3);
	ck_assert(hs_etx_done(&tx));
	hs_etx_fini(&tx);
}
END_TEST

START_TEST(test_receiver)
{
	struct hs_erx rx;
	struct hs_eack_info a;
	bool ack;

	ck_assert_int_eq(hs_erx_init(&rx, 4, 2), 0);
	/* ACK every 2 packets; a PSN far beyond grows the bitmap. */
	ck_assert(hs_erx_on_data(&rx, 0, false, &ack, &a));
	ck_assert(!ack);
	ck_assert(hs_erx_on_data(&rx, 1000, false, &ack, &a));
	ck_assert(ack);
	ck_assert_uint_eq(a.count, 2);
	ck_assert_uint_eq(a.echo_psn, 1000);
	ck_assert_uint_ge(rx.nb_bits, 1001);
	/* A duplicate: not counted, ACKed at once. */
	ck_assert(!hs_erx_on_data(&rx, 1000, false, &ack, &a));
	ck_assert(ack);
	ck_assert_uint_eq(a.count, 2);
	ck_assert_uint_eq(rx.nb_dups, 1);
	/* CE: at once, echoed. */
	ck_assert(hs_erx_on_data(&rx, 5, true, &ack, &a));
	ck_assert(ack);
	ck_assert(a.ce);
	ck_assert_uint_eq(rx.max_reorder, 1000 - 5);
	/* The packet that completes it and every one after: at once. */
	ck_assert(hs_erx_on_data(&rx, 6, false, &ack, &a));
	ck_assert(ack);
	ck_assert(hs_erx_done(&rx));
	/* Complete: the bitmap is freed, the counters are the state. */
	ck_assert_ptr_null(rx.bits);
	ck_assert_uint_eq(rx.nb_bits, 0);
	/* A packet still in flight: new (no PSN is sent twice), at once. */
	ck_assert(hs_erx_on_data(&rx, 7, false, &ack, &a));
	ck_assert(ack);
	ck_assert_uint_eq(a.count, 5);
	ck_assert_uint_eq(a.echo_psn, 7);
	ck_assert(hs_erx_on_data(&rx, 3, true, &ack, &a));
	ck_assert(ack);
	ck_assert(a.ce);
	ck_assert_uint_eq(a.count, 6);
	ck_assert_uint_eq(rx.max_reorder, 1000 - 3);
	ck_assert_uint_eq(rx.highest, 1001);
	ck_assert_uint_eq(rx.nb_ce, 2);
	ck_assert_uint_eq(rx.nb_dups, 1);
	/* Beyond 24 bits: out of range, nothing allocated. */
	ck_assert(!hs_erx_on_data(&rx, HS_MAX_PKTS, false, &ack, &a));
	ck_assert(!ack);
	ck_assert_uint_eq(rx.nb_out_of_range, 1);
	hs_erx_fini(&rx);
}
END_TEST

static Suite *
erasure_suite(void)
{
	Suite *s = suite_create("erasure");
	TCase *tc = tcase_create("erasure");

	tcase_add_test(tc, test_needed);
	tcase_add_test(tc, test_lossless);
	tcase_add_test(tc, test_visible_loss);
	tcase_add_test(tc, test_tail_loss);
	tcase_add_test(tc, test_wait_ends_with_losses);
	tcase_add_test(tc, test_wait_end_checked);
	tcase_add_test(tc, test_base_rtt_before_sample);
	tcase_add_test(tc, test_rtt);
	tcase_add_test(tc, test_feedback_timeout);
	tcase_add_test(tc, test_window_in_flight);
	tcase_add_test(tc, test_path_timers);
	tcase_add_test(tc, test_path_timers_many);
	tcase_add_test(tc, test_reordered_acks);
	tcase_add_test(tc, test_receiver);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(erasure_suite());
}
