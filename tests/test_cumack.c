/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cumulative-ACK transports alone (host/transport/hs_cumack.h): tcp's fast
 * retransmit after duplicate ACKs and its RTO, trim's NACKs and returned
 * headers, gbn's rewind to exactly the lost PSN, with exact counts.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "hs_cumack.h"
#include "unit_suite.h"

#define T_MSS 1000
#define T_US 1000ull

static void
t_tx(struct hs_ca_tx *tx, enum hs_ca_mode mode, uint32_t nb_pkts)
{
	const struct hs_ca_params p = {
		.mode = mode, .mss = T_MSS, .dupacks = 3,
		.fast_retransmit = true, .sack_limit = 0,
		.initial_rto_ns = 100 * T_US, .min_rto_ns = 10 * T_US,
	};

	ck_assert_int_eq(hs_ca_tx_init(tx, &p, (uint64_t)nb_pkts * T_MSS), 0);
}

/* Send what the sender says is next at now; it must have something. */
static uint32_t
t_send(struct hs_ca_tx *tx, uint64_t now)
{
	uint32_t psn = hs_ca_tx_next(tx);

	ck_assert_uint_ne(psn, HS_PSN_NONE);
	hs_ca_tx_sent(tx, psn, now);
	return psn;
}

static uint32_t
t_ack(struct hs_ca_tx *tx, uint32_t cum, uint64_t sack, uint32_t echo,
      uint64_t now)
{
	uint64_t rtt;

	return hs_ca_tx_on_ack(tx, cum, sack, echo, false, now, &rtt);
}

/*
 * PSNs 0..5 sent a microsecond apart, 1 lost: the ACK of 0 at 10 us, then
 * nb_dup duplicates, each SACKing one more of 2, 3, ...
 */
static void
t_hole_at_1(struct hs_ca_tx *tx, uint32_t nb_dup)
{
	uint32_t i;

	for (i = 0; i < 6; i++)
		t_send(tx, i * T_US);
	t_ack(tx, 1, 0, 0, 10 * T_US);
	for (i = 0; i < nb_dup; i++)
		t_ack(tx, 1, (UINT64_C(2) << i) - 1, 2 + i, (11 + i) * T_US);
}

/* tcp: three duplicate ACKs give one fast retransmit, of the hole. */
START_TEST(test_tcp_three_dupacks)
{
	struct hs_ca_tx tx;
	uint32_t i;

	t_tx(&tx, HS_CA_TCP, 10);
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(t_send(&tx, i * T_US), i);
	/* 0 arrives, 1 is lost, 2..5 arrive: ACKs 1, then dupacks. */
	ck_assert_uint_eq(t_ack(&tx, 1, 0, 0, 10 * T_US), 1);
	ck_assert_uint_eq(t_ack(&tx, 1, 0x1, 2, 11 * T_US), 0);
	ck_assert_uint_eq(t_ack(&tx, 1, 0x3, 3, 12 * T_US), 0);
	/* Two duplicates: nothing resent yet. */
	ck_assert_uint_eq(hs_ca_tx_next(&tx), 6);
	ck_assert_uint_eq(tx.nb_fast_retx, 0);
	ck_assert_uint_eq(t_ack(&tx, 1, 0x7, 4, 13 * T_US), 0);
	/* The third: PSN 1 goes before new data, once. */
	ck_assert_uint_eq(tx.nb_fast_retx, 1);
	ck_assert_uint_eq(t_send(&tx, 14 * T_US), 1);
	ck_assert_uint_eq(tx.nb_retx, 1);
	ck_assert_uint_eq(hs_ca_tx_next(&tx), 6);
	/* A fourth duplicate in fast recovery resends nothing more. */
	ck_assert_uint_eq(t_ack(&tx, 1, 0xf, 5, 15 * T_US), 0);
	ck_assert_uint_eq(hs_ca_tx_next(&tx), 6);
	ck_assert_uint_eq(tx.nb_fast_retx, 1);
	/* The resend arrives: everything up to 5 is acknowledged. */
	ck_assert_uint_eq(t_ack(&tx, 6, 0, 1, 20 * T_US), 5);
	ck_assert(!tx.in_recovery);
	ck_assert_uint_eq(tx.nb_timeouts, 0);
	hs_ca_tx_fini(&tx);
}
END_TEST

/* tcp without fast retransmit (htsim's -nofr): duplicates do nothing. */
START_TEST(test_tcp_nofr)
{
	const struct hs_ca_params p = {
		.mode = HS_CA_TCP, .mss = T_MSS, .dupacks = 3,
		.fast_retransmit = false,
		.initial_rto_ns = 100 * T_US, .min_rto_ns = 10 * T_US,
	};
	struct hs_ca_tx tx;

	ck_assert_int_eq(hs_ca_tx_init(&tx, &p, 10 * T_MSS), 0);
	t_hole_at_1(&tx, 4);
	ck_assert_uint_eq(tx.nb_fast_retx, 0);
	ck_assert_uint_eq(hs_ca_tx_next(&tx), 6);
	hs_ca_tx_fini(&tx);
}
END_TEST

/* tcp: a lost retransmission is recovered by the RTO, going back N. */
START_TEST(test_tcp_rto_recovers_lost_retx)
{
	struct hs_ca_tx tx;
	uint64_t deadline, rto;

	t_tx(&tx, HS_CA_TCP, 8);
	t_hole_at_1(&tx, 3);
	ck_assert_uint_eq(t_send(&tx, 14 * T_US), 1);	/* lost again */
	deadline = hs_ca_tx_timer_ns(&tx);
	rto = tx.rto_ns;
	ck_assert_uint_ne(deadline, UINT64_MAX);
	ck_assert(!hs_ca_tx_check_timeout(&tx, deadline - 1));
	ck_assert(hs_ca_tx_check_timeout(&tx, deadline));
	ck_assert_uint_eq(tx.nb_timeouts, 1);
	ck_assert_uint_eq(tx.rto_ns, 2 * rto);
	/* Go back N: from the cumulative PSN, in order. */
	ck_assert_uint_eq(t_send(&tx, deadline), 1);
	ck_assert_uint_eq(t_send(&tx, deadline + 1), 2);
	ck_assert_uint_eq(t_ack(&tx, 6, 0, 1, deadline + 5 * T_US), 5);
	ck_assert_uint_eq(tx.cum, 6);
	hs_ca_tx_fini(&tx);
}
END_TEST

/*
 * A flow whose resends all vanish (a black hole) backs off, doubling its
 * RTO at each timeout up to max_rto and no further, so that it tries
 * again at least every max_rto once the path is back; without the bound
 * the tenth timeout waits 100 ms x 2^10.  A sample above max_rto is
 * bounded too.
 */
START_TEST(test_rto_backoff_bounded)
{
	const struct hs_ca_params p = {
		.mode = HS_CA_TRIM, .mss = T_MSS, .dupacks = 3,
		.initial_rto_ns = 100 * T_US, .min_rto_ns = 10 * T_US,
		.max_rto_ns = 1000 * T_US,
	};
	const uint64_t want[] = { 200, 400, 800, 1000, 1000, 1000 };
	struct hs_ca_tx tx;
	uint64_t now = 0;
	unsigned int i;

	ck_assert_int_eq(hs_ca_tx_init(&tx, &p, 4 * T_MSS), 0);
	ck_assert_uint_eq(t_send(&tx, now), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		now = hs_ca_tx_timer_ns(&tx);
		ck_assert(hs_ca_tx_check_timeout(&tx, now));
		ck_assert_uint_eq(tx.rto_ns, want[i] * T_US);
		ck_assert_uint_eq(t_send(&tx, now), 0);	/* lost again */
	}
	ck_assert_uint_eq(hs_ca_tx_timer_ns(&tx), now + 1000 * T_US);
	/* PSN 1, sent once, acknowledged after 5 ms (a stalled process):
	 * its sample would make the RTO 15 ms; it is max_rto. */
	ck_assert_uint_eq(t_send(&tx, now), 1);
	ck_assert_uint_eq(t_ack(&tx, 2, 0, 1, now + 5000 * T_US), 2);
	ck_assert_uint_eq(tx.srtt_ns, 5000 * T_US);
	ck_assert_uint_eq(tx.rto_ns, 1000 * T_US);
	hs_ca_tx_fini(&tx);
}
END_TEST

/* trim: a NACK resends exactly its PSN, first; so does a returned header. */
START_TEST(test_trim_nack)
{
	struct hs_ca_tx tx;
	uint64_t rtt;
	uint32_t i;

	t_tx(&tx, HS_CA_TRIM, 10);
	for (i = 0; i < 5; i++)
		t_send(&tx, i * T_US);
	/* PSN 2 was trimmed: the receiver has 0, 1 and NACKs 2. */
	ck_assert_uint_eq(hs_ca_tx_on_ack(&tx, 2, 0, 2, true, 6 * T_US, &rtt),
			  2);
	ck_assert_uint_eq(rtt, 0);
	ck_assert_uint_eq(tx.nb_nacks, 1);
	ck_assert_uint_eq(t_send(&tx, 7 * T_US), 2);
	ck_assert_uint_eq(hs_ca_tx_next(&tx), 5);
	/* No fast retransmit on duplicates in trim. */
	for (i = 0; i < 5; i++)
		t_ack(&tx, 2, 0x3, 3 + (i & 1), (8 + i) * T_US);
	ck_assert_uint_eq(hs_ca_tx_next(&tx), 5);
	/* A switch returns the header of 4: resent at once. */
	hs_ca_tx_on_nack(&tx, 4, 14 * T_US);
	ck_assert_uint_eq(t_send(&tx, 15 * T_US), 4);
	ck_assert_uint_eq(tx.nb_retx, 2);
	/* A NACK of something acknowledged or never sent: nothing. */
	hs_ca_tx_on_nack(&tx, 0, 16 * T_US);
	hs_ca_tx_on_nack(&tx, 9, 16 * T_US);
	ck_assert_uint_eq(hs_ca_tx_next(&tx), 5);
	hs_ca_tx_fini(&tx);
}
END_TEST

/*
 * trim after a timeout: the go-back-N pass resends from cum in order; a
 * NACK of a PSN the pass has reached is resent out of order (a repair),
 * one it has not reached is left to the pass (htsim's constant_cca).
 */
START_TEST(test_trim_nack_after_rewind)
{
	struct hs_ca_tx tx;
	uint64_t deadline;
	uint32_t i;

	t_tx(&tx, HS_CA_TRIM, 10);
	for (i = 0; i < 8; i++)
		t_send(&tx, i * T_US);
	t_ack(&tx, 2, 0, 1, 10 * T_US);
	ck_assert(!hs_ca_tx_is_repair(&tx, 8));	/* new data */
	deadline = hs_ca_tx_timer_ns(&tx);
	ck_assert(hs_ca_tx_check_timeout(&tx, deadline));
	/* The pass: 2 and 3 again, in order, no repairs. */
	for (i = 2; i < 4; i++) {
		ck_assert_uint_eq(hs_ca_tx_next(&tx), i);
		ck_assert(hs_ca_tx_is_resend(&tx, i));
		ck_assert(!hs_ca_tx_is_repair(&tx, i));
		t_send(&tx, deadline + i);
	}
	/* 6 is beyond the pass: nothing changes. */
	hs_ca_tx_on_nack(&tx, 6, deadline + 5);
	ck_assert_uint_eq(tx.nb_nacks, 1);
	ck_assert(!hs_ca_tx_is_repair(&tx, 6));
	ck_assert_uint_eq(hs_ca_tx_next(&tx), 4);
	/* 3 was sent in this pass: resent first, as a repair. */
	hs_ca_tx_on_nack(&tx, 3, deadline + 6);
	ck_assert(hs_ca_tx_is_repair(&tx, 3));
	ck_assert_uint_eq(t_send(&tx, deadline + 7), 3);
	ck_assert(!hs_ca_tx_is_repair(&tx, 3));
	ck_assert_uint_eq(hs_ca_tx_next(&tx), 4);
	hs_ca_tx_fini(&tx);
}
END_TEST

/*
 * gbn: one dropped frame (PSN 3 of 8) makes the receiver discard and NACK
 * what follows, and the sender rewind to exactly 3 and send 3..7 again.
 */
START_TEST(test_gbn_rewind)
{
	struct hs_ca_tx tx;
	struct hs_ca_rx rx;
	struct hs_ack_info a;
	bool send_ack, nack;
	uint32_t i, psn, nb_nacks = 0, delivered = 0;
	uint64_t now = 0, rtt;

	t_tx(&tx, HS_CA_GBN, 8);
	ck_assert_int_eq(hs_ca_rx_init(&rx, true, 8, 1), 0);
	/* The first pass: 0..7, PSN 3 lost; the ACKs come back after. */
	for (i = 0; i < 8; i++) {
		psn = t_send(&tx, now += T_US);
		if (psn == 3)
			continue;
		delivered += hs_ca_rx_on_data(&rx, psn, false, &send_ack, &a,
					      &nack);
		ck_assert(send_ack);
		if (psn > 3) {
			ck_assert(nack);
			ck_assert_uint_eq(a.echo_psn, 3);
			ck_assert_uint_eq(a.cum_psn, 3);
			nb_nacks++;
		}
		hs_ca_tx_on_ack(&tx, a.cum_psn, 0, a.echo_psn, nack, now, &rtt);
		if (nack)
			break;	/* the sender rewinds at the first NACK */
	}
	ck_assert_uint_eq(delivered, 3);
	ck_assert_uint_eq(nb_nacks, 1);
	ck_assert_uint_eq(rx.nb_discarded, 1);
	/* The rewind: exactly 3, then 4 .. 7, in order, each once. */
	for (i = 3; i < 8; i++) {
		psn = t_send(&tx, now += T_US);
		ck_assert_uint_eq(psn, i);
		delivered += hs_ca_rx_on_data(&rx, psn, false, &send_ack, &a,
					      &nack);
		ck_assert(!nack);
		hs_ca_tx_on_ack(&tx, a.cum_psn, 0, a.echo_psn, false, now,
				&rtt);
	}
	ck_assert_uint_eq(delivered, 8);
	ck_assert(hs_ca_tx_done(&tx));
	ck_assert_uint_eq(hs_ca_tx_next(&tx), HS_PSN_NONE);
	/* 5 first sends, 5 after the rewind; 3 and 4 were sent before. */
	ck_assert_uint_eq(tx.nb_sent, 10);
	ck_assert_uint_eq(tx.nb_retx, 2);
	ck_assert_uint_eq(tx.nb_timeouts, 0);
	hs_ca_rx_fini(&rx);
	hs_ca_tx_fini(&tx);
}
END_TEST

/* Bad parameters are refused. */
START_TEST(test_ca_init_errors)
{
	struct hs_ca_tx tx;
	const struct hs_ca_params p = { .mode = HS_CA_TCP, .mss = 0 };
	struct hs_ca_rx rx;

	ck_assert_int_eq(hs_ca_tx_init(&tx, &p, 1000), -EINVAL);
	t_tx(&tx, HS_CA_TCP, 1);
	hs_ca_tx_fini(&tx);
	ck_assert_int_eq(hs_ca_rx_init(&rx, true, 0, 1), -EINVAL);
}
END_TEST

/*
 * An ACK past what was sent acknowledges only what was sent, in every
 * mode: one packet out of 8, an ACK of 8 (or of 2^32 - 1) left the flow
 * done with 7 packets never sent (found by fuzz_host).
 */
START_TEST(test_ack_past_sent)
{
	static const enum hs_ca_mode modes[] = {
		HS_CA_TCP, HS_CA_TRIM, HS_CA_GBN,
	};
	struct hs_ca_tx tx;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		t_tx(&tx, modes[i], 8);
		ck_assert_uint_eq(t_send(&tx, 0), 0);
		ck_assert_uint_eq(t_ack(&tx, 8, UINT64_MAX, 1, 5 * T_US), 1);
		ck_assert(!hs_ca_tx_done(&tx));
		ck_assert_uint_eq(tx.cum, 1);
		ck_assert_uint_eq(hs_ca_tx_next(&tx), 1);
		ck_assert_uint_eq(t_ack(&tx, UINT32_MAX, 0, 0, 6 * T_US), 0);
		ck_assert(!hs_ca_tx_done(&tx));
		/* The next packet goes out in order, not past the ACK's. */
		ck_assert_uint_eq(t_send(&tx, 7 * T_US), 1);
		hs_ca_tx_fini(&tx);
	}
}
END_TEST

/*
 * Duplicate ACKs whose SACK names PSNs never sent: tcp with sack_limit
 * resends only holes below what it sent.  Six of 130 out, 1 lost, and
 * dupacks SACKing PSNs up to 97 had it send PSN 98 as a "hole" before
 * 6 (found by fuzz_host).
 */
START_TEST(test_sack_past_sent)
{
	const struct hs_ca_params p = {
		.mode = HS_CA_TCP, .mss = T_MSS, .dupacks = 3,
		.fast_retransmit = true, .sack_limit = 1,
		.initial_rto_ns = 100 * T_US, .min_rto_ns = 10 * T_US,
	};
	struct hs_ca_tx tx;
	uint32_t i;

	ck_assert_int_eq(hs_ca_tx_init(&tx, &p, 130ull * T_MSS), 0);
	for (i = 0; i < 6; i++)
		t_send(&tx, i * T_US);
	t_ack(&tx, 1, 0, 0, 10 * T_US);
	/* 2..5 SACKed (bits 0..3), and bit 60: PSN 62, never sent. */
	for (i = 0; i < 3; i++)
		t_ack(&tx, 1, 0xfull | UINT64_C(1) << 60, 2 + i,
		      (11 + i) * T_US);
	ck_assert_uint_eq(tx.nb_fast_retx, 1);
	/* Only the hole at 1 waits (not 6..61); then new data, in order. */
	ck_assert_uint_eq(tx.nb_pending, 1);
	ck_assert_uint_eq(t_send(&tx, 14 * T_US), 1);
	ck_assert_uint_eq(tx.nb_pending, 0);
	ck_assert_uint_eq(t_send(&tx, 15 * T_US), 6);
	hs_ca_tx_fini(&tx);
}
END_TEST

static Suite *
cumack_suite(void)
{
	Suite *s = suite_create("cumack");
	TCase *tc = tcase_create("cumack");

	tcase_add_test(tc, test_tcp_three_dupacks);
	tcase_add_test(tc, test_tcp_nofr);
	tcase_add_test(tc, test_tcp_rto_recovers_lost_retx);
	tcase_add_test(tc, test_rto_backoff_bounded);
	tcase_add_test(tc, test_trim_nack);
	tcase_add_test(tc, test_trim_nack_after_rewind);
	tcase_add_test(tc, test_gbn_rewind);
	tcase_add_test(tc, test_ca_init_errors);
	tcase_add_test(tc, test_ack_past_sent);
	tcase_add_test(tc, test_sack_past_sent);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(cumack_suite());
}
