/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The recovery-model contract as a Check test case
 * (recovery_conformance.h).
 *
 * One flow, driven as the host engine drives it: the sender is asked for
 * a packet at each pacing slot while it has one (tx_next(), then
 * tx_sent()), is woken by an ACK or when its timer is due (then
 * tx_check_timeout() first), and every data packet and ACK crosses a loop
 * with a fixed one-way delay, in order.  A packet may be dropped at its
 * first transmission.  Both ends' state sits between guard areas that
 * must stay untouched, and every ACK is held against what arrived.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "hs_transport.h"
#include "ofan_config.h"
#include "recovery_conformance.h"
#include "settings_conformance.h"

#define RECC_MAX_CASES 32
#define RECC_GUARD 64
#define RECC_GUARD_BYTE 0xa5
#define RECC_MSS 1000
#define RECC_DELAY 10000ull		/* ns, one way */
#define RECC_SLOT 1000ull		/* ns between two packets */
#define RECC_LIMIT 1000000000000ull	/* ns of virtual time a flow may take */
#define RECC_MAX_STEPS 2000000u
#define RECC_EVS 8			/* path-timer EVs used */

/* What recovery_conformance_tcase() was given, for the tests by _i. */
struct recc_case {
	const struct hs_recovery_ops *ops;
	struct hs_recovery_settings settings;
	bool recovers;
	char section[sizeof(HS_RECOVERY_SECTION) + HS_RECOVERY_NAME_MAX];
	char name[128];
};

static struct recc_case recc_cases[RECC_MAX_CASES];
static unsigned int recc_nb_cases;

/* A data packet or an ACK on the loop, arriving at at. */
struct recc_msg {
	uint64_t at;
	uint32_t psn;
	uint16_t payload;
	struct hs_ack_content ack;
};

/* One direction of the loop: messages in arrival order. */
struct recc_fifo {
	struct recc_msg *m;
	uint32_t head, tail, cap;
};

/* One flow, both ends, and what the loop saw. */
struct recc_flow {
	const struct recc_case *c;
	struct hs_recovery_settings settings;
	struct hs_transport_params p;
	unsigned char *txb, *rxb;	/* guard, state, guard */
	void *tx, *rx;
	uint64_t size;
	uint32_t nb_pkts;
	uint16_t last_payload;		/* the flow's last packet's */
	uint32_t drop_psn;		/* lost at its first send, or none */
	bool dropped;
	uint8_t *got;			/* per PSN: arrived */
	uint32_t got_cap;
	uint32_t nb_got;		/* distinct PSNs arrived */
	uint64_t nb_acked;		/* what the sender was told */
	struct recc_fifo data, acks;
	uint64_t now, next_send;
	bool tx_done, idle, any_new;
	uint32_t last_new;		/* the last new data's PSN */
	uint64_t trace;			/* FNV-1a of every event */
	unsigned int steps;
};

/* A zeroed state of size bytes between two guard areas, 16-aligned. */
static unsigned char *
recc_block(size_t size)
{
	size_t len = (2 * RECC_GUARD + size + 15) & ~(size_t)15;
	unsigned char *b = aligned_alloc(16, len);

	ck_assert_ptr_nonnull(b);
	memset(b, RECC_GUARD_BYTE, len);
	memset(b + RECC_GUARD, 0, size);
	return b;
}

/* Both guard areas of f's states are untouched after member ran. */
static void
recc_check_guards(const struct recc_flow *f, const char *member)
{
	const struct hs_recovery_ops *ops = f->c->ops;
	const unsigned char *blocks[2] = { f->txb, f->rxb };
	const size_t sizes[2] = { ops->tx_size, ops->rx_size };
	unsigned int k, i;

	/* No ck_assert per byte: each marks a point, a write in fork mode. */
	for (k = 0; k < 2; k++)
		for (i = 0; i < RECC_GUARD; i++)
			if (blocks[k][i] != RECC_GUARD_BYTE ||
			    blocks[k][RECC_GUARD + sizes[k] + i] !=
			    RECC_GUARD_BYTE)
				ck_abort_msg("%s: %s() wrote outside the %s's %zu bytes of state",
					     ops->name, member,
					     k == 0 ? "sender" : "receiver",
					     sizes[k]);
}

static void
recc_trace(struct recc_flow *f, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < 8; i++) {
		f->trace ^= (v >> (8 * i)) & 0xff;
		f->trace *= 0x100000001b3ull;
	}
}

static void
recc_push(struct recc_fifo *q, const struct recc_msg *m)
{
	if (q->tail == q->cap) {
		if (q->head > 0) {
			memmove(q->m, q->m + q->head,
				(q->tail - q->head) * sizeof(*q->m));
			q->tail -= q->head;
			q->head = 0;
		} else {
			q->cap = q->cap ? 2 * q->cap : 256;
			q->m = realloc(q->m, q->cap * sizeof(*q->m));
			ck_assert_ptr_nonnull(q->m);
		}
	}
	q->m[q->tail++] = *m;
}

static const struct recc_msg *
recc_head(const struct recc_fifo *q)
{
	return q->head < q->tail ? &q->m[q->head] : NULL;
}

/* Set up a flow of size bytes; drop_psn is lost once (HS_PSN_NONE: none). */
static void
recc_start(struct recc_flow *f, const struct recc_case *c, uint64_t size,
	   uint32_t drop_psn)
{
	const struct hs_recovery_ops *ops = c->ops;
	int rc;

	memset(f, 0, sizeof(*f));
	f->c = c;
	f->settings = c->settings;
	f->p = (struct hs_transport_params){
		.recovery = ops,
		.mss = RECC_MSS,
		.reorder_window_ns = 5000,
		.rto_ns = 100000,
		.min_rto_ns = 100000,
		.base_rtt_ns = 2 * RECC_DELAY,
		.settings = ops->settings_size > 0 ? f->settings.bytes : NULL,
	};
	f->size = size;
	f->nb_pkts = ops->nb_pkts(&f->p, size);
	ck_assert_msg(f->nb_pkts >= (size + RECC_MSS - 1) / RECC_MSS,
		      "%s: nb_pkts() of %llu bytes is %u, fewer than the data's",
		      ops->name, (unsigned long long)size, f->nb_pkts);
	f->last_payload = (uint16_t)(size - (size - 1) / RECC_MSS * RECC_MSS);
	f->drop_psn = drop_psn;
	f->got_cap = 4 * f->nb_pkts + 1024;
	f->got = calloc(f->got_cap, 1);
	ck_assert_ptr_nonnull(f->got);
	f->txb = recc_block(ops->tx_size);
	f->rxb = recc_block(ops->rx_size);
	f->tx = f->txb + RECC_GUARD;
	f->rx = f->rxb + RECC_GUARD;
	f->trace = 0xcbf29ce484222325ull;
	f->now = 1000;
	f->next_send = f->now;
	rc = ops->tx_init(f->tx, &f->p, size, f->now);
	ck_assert_msg(rc == 0, "%s: tx_init() of %llu bytes: %d", ops->name,
		      (unsigned long long)size, rc);
	recc_check_guards(f, "tx_init");
	rc = ops->rx_init(f->rx, &f->p, f->nb_pkts, 1);
	ck_assert_msg(rc == 0, "%s: rx_init() of %u packets: %d", ops->name,
		      f->nb_pkts, rc);
	recc_check_guards(f, "rx_init");
}

static void
recc_stop(struct recc_flow *f)
{
	f->c->ops->tx_fini(f->tx);
	f->c->ops->rx_fini(f->rx);
	recc_check_guards(f, "fini");
	free(f->txb);
	free(f->rxb);
	free(f->got);
	free(f->data.m);
	free(f->acks.m);
}

/* Whether PSN psn arrived (any PSN the loop never carried: no). */
static bool
recc_got(const struct recc_flow *f, uint32_t psn)
{
	return psn < f->got_cap && f->got[psn];
}

/* The receiver acknowledges nothing it did not get. */
static void
recc_check_ack(const struct recc_flow *f, const struct hs_ack_content *a)
{
	const char *name = f->c->ops->name;
	uint32_t psn;
	unsigned int i;

	if (f->c->ops->counts) {
		ck_assert_msg(a->cum <= f->nb_got,
			      "%s: an ACK counts %u packets, %u arrived", name,
			      a->cum, f->nb_got);
		return;
	}
	for (psn = 0; psn < a->cum; psn++)
		ck_assert_msg(recc_got(f, psn),
			      "%s: an ACK's cumulative PSN %u covers PSN %u, which never arrived",
			      name, a->cum, psn);
	if (a->nack)
		return;		/* echo_psn names what it wants */
	for (i = 0; i < 64; i++)
		if (a->sack >> i & 1)
			ck_assert_msg(recc_got(f, a->cum + 1 + i),
				      "%s: an ACK's SACK bit %u (PSN %u) never arrived",
				      name, i, a->cum + 1 + i);
	ck_assert_msg(recc_got(f, a->echo_psn),
		      "%s: an ACK echoes PSN %u, which never arrived", name,
		      a->echo_psn);
}

static void
recc_deliver_data(struct recc_flow *f, const struct recc_msg *m)
{
	const struct hs_recovery_ops *ops = f->c->ops;
	struct hs_ack_content ack;
	struct recc_msg out;
	bool send_ack = false;
	uint16_t want;

	want = ops->rx_expect(f->rx, m->psn, f->size, RECC_MSS);
	recc_check_guards(f, "rx_expect");
	ck_assert_msg(want == m->payload,
		      "%s: PSN %u left with %u bytes, its receiver expects %u",
		      ops->name, m->psn, m->payload, want);
	ck_assert_uint_lt(m->psn, f->got_cap);
	if (!f->got[m->psn]) {
		f->got[m->psn] = 1;
		f->nb_got++;
	}
	memset(&ack, 0, sizeof(ack));
	(void)ops->rx_on_data(f->rx, m->psn, false, &send_ack, &ack);
	recc_check_guards(f, "rx_on_data");
	ck_assert_msg(ops->rx_count(f->rx) <= f->nb_got,
		      "%s: the receiver counts %u packets, %u arrived",
		      ops->name, ops->rx_count(f->rx), f->nb_got);
	recc_trace(f, (uint64_t)m->psn << 1 | send_ack);
	if (!send_ack)
		return;
	recc_check_ack(f, &ack);
	memset(&out, 0, sizeof(out));
	out.at = f->now + RECC_DELAY;
	out.ack = ack;
	recc_push(&f->acks, &out);
	recc_trace(f, ack.cum);
	recc_trace(f, ack.sack);
	recc_trace(f, (uint64_t)ack.echo_psn << 1 | ack.nack);
}

static void
recc_deliver_ack(struct recc_flow *f, const struct recc_msg *m)
{
	const struct hs_recovery_ops *ops = f->c->ops;
	struct hs_tx_acked r;

	memset(&r, 0, sizeof(r));
	ops->tx_on_ack(f->tx, &m->ack, f->now, &r);
	recc_check_guards(f, "tx_on_ack");
	if (ops->tx_path_acked != NULL) {
		ops->tx_path_acked(f->tx, (uint16_t)(m->ack.echo_psn % RECC_EVS));
		recc_check_guards(f, "tx_path_acked");
	}
	f->nb_acked += r.acked;
	ck_assert_msg(f->nb_acked <= f->nb_got,
		      "%s: the sender was told of %llu packets acknowledged, %u arrived",
		      ops->name, (unsigned long long)f->nb_acked, f->nb_got);
	recc_trace(f, r.acked);
	recc_trace(f, r.rtt_ns);
	if (r.done)
		f->tx_done = true;
	f->idle = false;	/* an ACK wakes the sender */
}

/* One pacing slot: the packet the sender has, sent (or lost). */
static void
recc_send(struct recc_flow *f)
{
	const struct hs_recovery_ops *ops = f->c->ops;
	struct hs_tx_pkt pkt;
	struct recc_msg m;
	uint16_t ev;

	memset(&pkt, 0, sizeof(pkt));
	ops->tx_next(f->tx, f->now, &pkt);
	recc_check_guards(f, "tx_next");
	if (pkt.psn == HS_PSN_NONE) {
		f->idle = true;	/* until an ACK or its timer */
		return;
	}
	ck_assert_msg(pkt.payload >= f->last_payload,
		      "%s: PSN %u of %u bytes, shorter than the flow's last packet (%u)",
		      ops->name, pkt.psn, pkt.payload, f->last_payload);
	ck_assert_msg(pkt.payload == ops->tx_payload(f->tx, pkt.psn),
		      "%s: tx_next() gives PSN %u %u bytes, tx_payload() %u",
		      ops->name, pkt.psn, pkt.payload,
		      ops->tx_payload(f->tx, pkt.psn));
	if (!pkt.resend) {
		ck_assert_msg(!f->any_new || pkt.psn > f->last_new,
			      "%s: new data PSN %u after new data PSN %u",
			      ops->name, pkt.psn, f->last_new);
		f->any_new = true;
		f->last_new = pkt.psn;
	}
	ev = (uint16_t)(pkt.psn % RECC_EVS);
	if (ops->tx_path_expired != NULL) {
		(void)ops->tx_path_expired(f->tx, ev, f->now);
		recc_check_guards(f, "tx_path_expired");
	}
	ops->tx_sent(f->tx, pkt.psn, f->now);
	recc_check_guards(f, "tx_sent");
	if (ops->tx_path_sent != NULL) {
		ops->tx_path_sent(f->tx, ev, f->now);
		recc_check_guards(f, "tx_path_sent");
	}
	recc_trace(f, f->now);
	recc_trace(f, (uint64_t)pkt.psn << 3 | pkt.resend << 2 |
		   pkt.repair << 1 | pkt.grows);
	f->next_send = f->now + RECC_SLOT;
	if (pkt.psn == f->drop_psn && !f->dropped) {
		f->dropped = true;
		return;
	}
	memset(&m, 0, sizeof(m));
	m.at = f->now + RECC_DELAY;
	m.psn = pkt.psn;
	m.payload = pkt.payload;
	recc_push(&f->data, &m);
}

/* Run f until both ends are done or nothing more can happen. */
static bool
recc_run(struct recc_flow *f)
{
	const struct hs_recovery_ops *ops = f->c->ops;
	const struct recc_msg *m;
	uint64_t next, t;

	for (;;) {
		while ((m = recc_head(&f->data)) != NULL && m->at <= f->now) {
			struct recc_msg d = *m;

			f->data.head++;
			recc_deliver_data(f, &d);
		}
		while ((m = recc_head(&f->acks)) != NULL && m->at <= f->now) {
			struct recc_msg a = *m;

			f->acks.head++;
			recc_deliver_ack(f, &a);
		}
		if (f->tx_done)
			break;
		/* The host's timer: due, checked, and the flow woken. */
		t = ops->tx_timer_ns(f->tx);
		if (ops->tx_check_timeout(f->tx, f->now))
			recc_trace(f, f->now ^ 0x7100);
		recc_check_guards(f, "tx_check_timeout");
		if (t <= f->now)
			f->idle = false;
		if (!f->idle && f->now >= f->next_send)
			recc_send(f);
		next = UINT64_MAX;
		if ((m = recc_head(&f->data)) != NULL)
			next = m->at;
		if ((m = recc_head(&f->acks)) != NULL && m->at < next)
			next = m->at;
		if (!f->idle && f->next_send < next)
			next = f->next_send;
		t = ops->tx_timer_ns(f->tx);
		if (t != UINT64_MAX && (t > f->now ? t : f->now + 1) < next)
			next = t > f->now ? t : f->now + 1;
		if (next == UINT64_MAX)
			break;		/* nothing will happen: stuck */
		ck_assert_uint_gt(next, f->now);
		f->now = next;
		if (++f->steps > RECC_MAX_STEPS || f->now > RECC_LIMIT)
			break;
	}
	return f->tx_done && ops->rx_done(f->rx);
}

/* A flow of size bytes on a lossless loop: done, each packet sent once. */
static void
recc_lossless(const struct recc_case *c, uint64_t size)
{
	const struct hs_recovery_ops *ops = c->ops;
	uint64_t sent, retx, timeouts, dups, ce;
	uint32_t reorder;
	struct recc_flow f;

	recc_start(&f, c, size, HS_PSN_NONE);
	ck_assert_msg(recc_run(&f),
		      "%s: a flow of %llu bytes on a lossless loop did not complete (sender %s, receiver %s, %u steps)",
		      ops->name, (unsigned long long)size,
		      f.tx_done ? "done" : "not done",
		      ops->rx_done(f.rx) ? "done" : "not done", f.steps);
	ops->tx_counters(f.tx, &sent, &retx, &timeouts);
	ck_assert_msg(sent == f.nb_pkts && retx == 0 && timeouts == 0,
		      "%s: %llu bytes, %u packets on a lossless loop: %llu sent, %llu resent, %llu timeouts",
		      ops->name, (unsigned long long)size, f.nb_pkts,
		      (unsigned long long)sent, (unsigned long long)retx,
		      (unsigned long long)timeouts);
	ck_assert_uint_eq(f.nb_got, f.nb_pkts);
	ck_assert_uint_eq(ops->rx_count(f.rx), f.nb_pkts);
	ck_assert_uint_ge(ops->tx_acked_bytes(f.tx), size);
	ck_assert_uint_eq(ops->tx_in_flight(f.tx), 0);
	ops->rx_counters(f.rx, &reorder, &dups, &ce);
	ck_assert_msg(reorder == 0 && dups == 0 && ce == 0,
		      "%s: a lossless loop in order, unmarked: max_reorder %u, dups %llu, ce %llu",
		      ops->name, reorder, (unsigned long long)dups,
		      (unsigned long long)ce);
	recc_stop(&f);
}

START_TEST(recc_test_settings)
{
	const struct recc_case *c = &recc_cases[_i];
	const struct hs_recovery_ops *ops = c->ops;

	t_settings_conform_section(ops->name, ops->defaults, ops->parse,
				   c->section, c->settings.bytes,
				   ops->settings_size,
				   HS_RECOVERY_SETTINGS_MAX);
	if (ops->parse != NULL)
		t_settings_keys_conform(ops->name, ops->parse, c->section,
					c->settings.bytes,
					HS_RECOVERY_SETTINGS_MAX);
}
END_TEST

START_TEST(recc_test_lossless)
{
	const struct recc_case *c = &recc_cases[_i];

	recc_lossless(c, RECC_MSS);		/* one packet */
	recc_lossless(c, 2 * RECC_MSS + RECC_MSS / 2);	/* a short last one */
	recc_lossless(c, 100 * RECC_MSS);
	recc_lossless(c, 100);			/* less than a packet */
}
END_TEST

/*
 * A packet lost once, the second or the last: a model that recovers
 * completes the flow; any model's flow ends (done, or nothing more to
 * happen), with every ACK held to what arrived.
 */
START_TEST(recc_test_loss)
{
	const struct recc_case *c = &recc_cases[_i];
	const struct hs_recovery_ops *ops = c->ops;
	const uint64_t size = 100 * RECC_MSS;
	struct recc_flow f;
	unsigned int k;

	for (k = 0; k < 3; k++) {
		uint32_t n = ops->nb_pkts(&(struct hs_transport_params){
			.recovery = ops, .mss = RECC_MSS,
			.settings = ops->settings_size > 0 ?
				c->settings.bytes : NULL }, size);
		uint32_t drop = k == 0 ? 1 : k == 1 ? n - 1 : 0;
		bool done;

		recc_start(&f, c, size, drop);
		done = recc_run(&f);
		ck_assert(f.dropped);
		if (c->recovers)
			ck_assert_msg(done,
				      "%s: PSN %u lost once: the flow did not complete (sender %s, receiver %s, %u steps, %llu ns)",
				      ops->name, drop,
				      f.tx_done ? "done" : "not done",
				      ops->rx_done(f.rx) ? "done" : "not done",
				      f.steps, (unsigned long long)f.now);
		ck_assert_msg(f.steps <= RECC_MAX_STEPS && f.now <= RECC_LIMIT,
			      "%s: PSN %u lost once: still running after %u steps, %llu ns",
			      ops->name, drop, f.steps,
			      (unsigned long long)f.now);
		recc_stop(&f);
	}
}
END_TEST

/* The same flow with the same loss twice: the same events, the same end. */
START_TEST(recc_test_deterministic)
{
	const struct recc_case *c = &recc_cases[_i];
	uint64_t trace[2], at[2], sent[2], retx[2], timeouts[2];
	struct recc_flow f;
	unsigned int k;

	for (k = 0; k < 2; k++) {
		recc_start(&f, c, 64 * RECC_MSS + 17, 3);
		(void)recc_run(&f);
		trace[k] = f.trace;
		at[k] = f.now;
		c->ops->tx_counters(f.tx, &sent[k], &retx[k], &timeouts[k]);
		recc_stop(&f);
	}
	ck_assert_msg(trace[0] == trace[1] && at[0] == at[1] &&
		      sent[0] == sent[1] && retx[0] == retx[1] &&
		      timeouts[0] == timeouts[1],
		      "%s: the same flow twice went two ways", c->ops->name);
}
END_TEST

TCase *
recovery_conformance_tcase(const struct hs_recovery_ops *ops,
			   const void *settings, bool recovers)
{
	struct recc_case *c;
	int k;
	TCase *tc;

	if (ops == NULL || recc_nb_cases == RECC_MAX_CASES ||
	    ops->settings_size > HS_RECOVERY_SETTINGS_MAX) {
		fprintf(stderr, "recovery_conformance: no model, too many cases, or settings too large\n");
		abort();
	}
	k = (int)recc_nb_cases++;
	c = &recc_cases[k];
	c->ops = ops;
	c->recovers = recovers;
	snprintf(c->section, sizeof(c->section), HS_RECOVERY_SECTION "%s",
		 ops->name);
	t_lower(c->section);	/* as the loader names the section */
	tc = t_conformance_tcase(ops->name, c->name, sizeof(c->name),
				 c->settings.bytes, sizeof(c->settings.bytes),
				 ops->defaults, settings, ops->settings_size);
	tcase_add_loop_test(tc, recc_test_settings, k, k + 1);
	tcase_add_loop_test(tc, recc_test_lossless, k, k + 1);
	tcase_add_loop_test(tc, recc_test_loss, k, k + 1);
	tcase_add_loop_test(tc, recc_test_deterministic, k, k + 1);
	return tc;
}
