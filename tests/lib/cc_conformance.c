/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The congestion-control contract as a Check test case (cc_conformance.h).
 *
 * A flow's controller serves one sender here, as in the host: its state
 * is a zeroed struct hs_cc_state between two guard areas that must stay
 * untouched, every member gets the controller's settings block, a NULL
 * member is skipped, and what happens to the flow comes from a script of
 * its own (an ofan_rng): new packets the sender would send, ACKs of the
 * packets in flight (a quarter marked), timeouts that leave nothing in
 * flight (as SACK's RTO judges every packet out lost).  The script depends
 * on the controller only through what may_send() allows, so the same seed
 * replays a run exactly.  A receiver-driven controller (pulls) is told
 * of each packet sent and gets a packet's credit back in a PULL for each
 * one that arrives, ACKed or NACKed, as its receiver's pacer would grant.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "cc_conformance.h"
#include "hs_cc.h"
#include "ofan_config.h"
#include "ofan_rng.h"
#include "settings_conformance.h"

#define CCC_MAX_CASES 32
#define CCC_GUARD 64
#define CCC_GUARD_BYTE 0xa5
#define CCC_STEPS 20000
#define CCC_SEED 0xcc5eedull
#define CCC_CAP 256		/* packets in flight the tests fill at most */
#define CCC_MAX_ACKS 1000000	/* clean ACKs a window may take to recover */

/* What cc_conformance_tcase() was given, for the tests to find by _i. */
struct ccc_case {
	const struct hs_cc_ops *ops;
	struct hs_cc_settings settings;
	char section[sizeof(HS_CC_SECTION) + HS_CC_NAME_MAX];
	char name[128];
};

static struct ccc_case ccc_cases[CCC_MAX_CASES];
static unsigned int ccc_nb_cases;

/* The flow every case runs: 100G, a 10 us base RTT, 4096-byte payloads. */
#define CCC_RATE 100000000000ull
#define CCC_BASE_RTT_NS 10000ull
#define CCC_MSS 4096
#define CCC_STEP_NS 50		/* virtual time between two steps */

/* One flow: its controller's state and what is in flight. */
struct ccc_flow {
	const struct ccc_case *c;
	struct hs_cc_settings settings;
	const void *set;		/* settings.bytes, or NULL: none */
	unsigned char *block;		/* guard, state, guard */
	void *st;			/* state_size bytes */
	uint32_t in_flight;
	uint64_t now_ns;
	uint64_t granted;		/* pulls: bytes of credit sent back */
	uint64_t trace;			/* FNV-1a of every decision */
};

static void
ccc_check_guard(const struct ccc_flow *f, const char *member)
{
	const unsigned char *after = f->block + CCC_GUARD +
		f->c->ops->state_size;
	unsigned int i;

	for (i = 0; i < CCC_GUARD; i++)
		if (f->block[i] != CCC_GUARD_BYTE ||
		    after[i] != CCC_GUARD_BYTE)
			ck_abort_msg("%s: %s() wrote outside the flow's %zu bytes of state",
				     f->c->ops->name, member,
				     f->c->ops->state_size);
}

static void
ccc_trace(struct ccc_flow *f, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < 8; i++) {
		f->trace ^= (v >> (8 * i)) & 0xff;
		f->trace *= 0x100000001b3ull;
	}
}

/* A flow starts (its state zeroed, then start()). */
static void
ccc_start(struct ccc_flow *f, const struct ccc_case *c)
{
	size_t len = 2 * CCC_GUARD + c->ops->state_size;
	const struct hs_cc_flow fl = {
		.rate_bps = CCC_RATE, .base_rtt_ns = CCC_BASE_RTT_NS,
		.mss = CCC_MSS, .size = 1ull << 30, .now_ns = 1000,
	};

	memset(f, 0, sizeof(*f));
	f->c = c;
	f->settings = c->settings;
	f->set = c->ops->settings_size > 0 ? f->settings.bytes : NULL;
	f->block = aligned_alloc(16, (len + 15) & ~(size_t)15);
	ck_assert_ptr_nonnull(f->block);
	memset(f->block, CCC_GUARD_BYTE, len);
	f->st = f->block + CCC_GUARD;
	memset(f->st, 0, c->ops->state_size);
	f->now_ns = fl.now_ns;
	f->trace = 0xcbf29ce484222325ull;
	if (c->ops->start != NULL) {
		c->ops->start(f->st, f->set, &fl);
		ccc_check_guard(f, "start");
	}
}

static void
ccc_stop(struct ccc_flow *f)
{
	free(f->block);
	f->block = NULL;
}

static struct hs_cc_flight
ccc_flight(const struct ccc_flow *f)
{
	return (struct hs_cc_flight){
		.pkts = f->in_flight,
		.bytes = (uint64_t)f->in_flight * CCC_MSS,
	};
}

/* A packet left: a controller that counts them (on_sent) is told. */
static void
ccc_sent(struct ccc_flow *f)
{
	const struct hs_cc_ops *ops = f->c->ops;

	f->in_flight++;
	if (ops->on_sent != NULL) {
		ops->on_sent(f->st, f->set, CCC_MSS, false, f->now_ns);
		ccc_check_guard(f, "on_sent");
	}
}

/*
 * A receiver-driven controller's receiver grants pkts packets' credit
 * (payload and a 64-byte header each) in a PULL of the quanta granted so
 * far: two for each packet that reaches it, whole or trimmed (its pacer
 * runs at the link's rate, ahead of what returns, so a flow's credit
 * grows until the controller's own bound), one when the flow has nothing
 * out (its pacer serves a flow that waits).
 */
static void
ccc_pull(struct ccc_flow *f, unsigned int pkts)
{
	const struct hs_cc_ops *ops = f->c->ops;

	if (!ops->pulls)
		return;
	f->granted += (uint64_t)pkts * (CCC_MSS + 64);
	ops->on_pull(f->st, f->set, (uint32_t)((f->granted + 255) / 256),
		     f->now_ns);
	ccc_check_guard(f, "on_pull");
}

/*
 * May a new packet leave now?  Held to the window: a windowed controller
 * says yes only below it, and always with nothing in flight.
 */
static bool
ccc_may_send(struct ccc_flow *f)
{
	const struct hs_cc_ops *ops = f->c->ops;
	struct hs_cc_flight fl = ccc_flight(f);
	bool yes = true;

	if (ops->pulls && f->in_flight == 0)
		ccc_pull(f, 1);	/* a flow that waits gets its PULL */
	if (ops->may_send != NULL) {
		yes = ops->may_send(f->st, f->set, &fl);
		ccc_check_guard(f, "may_send");
	}
	if (ops->windowed) {
		double w = ops->window(f->st, f->set);

		ck_assert_msg(isfinite(w) && w >= (double)CCC_MSS,
			      "%s: a window of %g bytes (a packet: %u)",
			      ops->name, w, CCC_MSS);
		ck_assert_msg(!yes || (double)fl.bytes < w,
			      "%s: a packet let out with %" PRIu64 " bytes in flight, window %g",
			      ops->name, fl.bytes, w);
	}
	ck_assert_msg(yes || f->in_flight > 0,
		      "%s: no packet may leave with none in flight: the flow stalls",
		      ops->name);
	ccc_trace(f, (uint64_t)f->in_flight << 1 | yes);
	return yes;
}

/*
 * An ACK of one packet in flight: a clean one comes back at the base
 * RTT, a marked one queued for a base RTT more.
 */
static void
ccc_ack(struct ccc_flow *f, bool ce)
{
	const struct hs_cc_ops *ops = f->c->ops;
	struct hs_cc_ack a = {
		.now_ns = f->now_ns,
		.rtt_ns = ce ? 2 * CCC_BASE_RTT_NS : CCC_BASE_RTT_NS,
		.acked_pkts = 1, .acked_bytes = CCC_MSS, .ce = ce,
	};

	if (f->in_flight > 0)
		f->in_flight--;
	a.flight = ccc_flight(f);
	if (ops->on_ack != NULL) {
		ops->on_ack(f->st, f->set, &a);
		ccc_check_guard(f, "on_ack");
	}
	ccc_pull(f, 2);
	ccc_trace(f, ce);
}

/*
 * A NACK of one packet in flight (a switch trimmed it), its round trip
 * the base RTT (a shorter one may lower a delay-based controller's
 * base, and its largest window with it, for good).
 */
static void
ccc_nack(struct ccc_flow *f)
{
	const struct hs_cc_ops *ops = f->c->ops;
	struct hs_cc_ack a = {
		.now_ns = f->now_ns, .rtt_ns = CCC_BASE_RTT_NS,
		.nacked_pkts = 1, .nacked_bytes = CCC_MSS,
	};
	void (*fn)(void *, const void *, const struct hs_cc_ack *) =
		ops->on_nack != NULL ? ops->on_nack : ops->on_ack;

	f->in_flight--;
	a.flight = ccc_flight(f);
	if (fn != NULL) {
		fn(f->st, f->set, &a);
		ccc_check_guard(f, ops->on_nack != NULL ? "on_nack" : "on_ack");
	}
	ccc_pull(f, 2);
	ccc_trace(f, 0x4e00);
}

/* The retransmission timer fired: nothing is in flight any more. */
static void
ccc_timeout(struct ccc_flow *f)
{
	const struct hs_cc_ops *ops = f->c->ops;

	f->in_flight = 0;
	if (ops->on_timeout != NULL) {
		ops->on_timeout(f->st, f->set, f->now_ns);
		ccc_check_guard(f, "on_timeout");
	}
	ccc_trace(f, 0x7100);
}

/* Send new packets while allowed, up to CCC_CAP in flight; how many out. */
static uint32_t
ccc_fill(struct ccc_flow *f)
{
	while (f->in_flight < CCC_CAP && ccc_may_send(f))
		ccc_sent(f);
	return f->in_flight;
}

/*
 * A flow's life from seed: sends, ACKs, marks, NACKs, timeouts, in any
 * order, CCC_STEP_NS apart.
 */
static void
ccc_script(struct ccc_flow *f, uint64_t seed)
{
	struct ofan_rng rng;
	unsigned int i;

	ofan_rng_seed(&rng, seed, 5);
	for (i = 0; i < CCC_STEPS; i++) {
		uint32_t what = ofan_rng_below(&rng, 100);

		f->now_ns += CCC_STEP_NS;
		if (what < 50) {
			if (f->in_flight < CCC_CAP && ccc_may_send(f))
				ccc_sent(f);
		} else if (what < 93) {
			if (f->in_flight > 0)
				ccc_ack(f, ofan_rng_below(&rng, 4) == 0);
		} else if (what < 95) {
			if (f->in_flight > 0)
				ccc_nack(f);
		} else if (what < 97) {
			ccc_timeout(f);
		} else {
			(void)ccc_fill(f);
		}
	}
}

START_TEST(ccc_test_settings)
{
	const struct ccc_case *c = &ccc_cases[_i];
	const struct hs_cc_ops *ops = c->ops;

	t_settings_conform_section(ops->name, ops->defaults, ops->parse,
				   c->section, c->settings.bytes,
				   ops->settings_size, HS_CC_SETTINGS_MAX);
	if (ops->parse != NULL)
		t_settings_keys_conform(ops->name, ops->parse, c->section,
					c->settings.bytes, HS_CC_SETTINGS_MAX);
}
END_TEST

/* Whatever happens, never more in flight than the window lets out. */
START_TEST(ccc_test_window)
{
	const struct ccc_case *c = &ccc_cases[_i];
	struct ccc_flow f;
	unsigned int s;

	for (s = 0; s < 4; s++) {
		ccc_start(&f, c);
		ccc_script(&f, CCC_SEED + s);
		ccc_stop(&f);
	}
}
END_TEST

/*
 * After a timeout and a run of marked ACKs, clean ACKs bring the window
 * back to what the flow started with (CCC_CAP at most): the sender keeps
 * it full, and each ACK frees a packet.
 */
START_TEST(ccc_test_recovers)
{
	const struct ccc_case *c = &ccc_cases[_i];
	uint32_t start, acks, i, out = 0;
	struct ccc_flow f;

	ccc_start(&f, c);
	start = ccc_fill(&f);
	ck_assert_uint_ge(start, 1);
	ccc_timeout(&f);
	(void)ccc_fill(&f);
	for (i = 0; i < 64; i++) {
		f.now_ns += CCC_STEP_NS;
		if (i % 8 == 7 && f.in_flight > 0)
			ccc_nack(&f);
		else
			ccc_ack(&f, true);
		(void)ccc_fill(&f);
	}
	for (acks = 0; acks < CCC_MAX_ACKS; acks++) {
		out = ccc_fill(&f);
		if (out >= start)
			break;
		f.now_ns += CCC_STEP_NS;
		ccc_ack(&f, false);
	}
	ck_assert_msg(acks < CCC_MAX_ACKS,
		      "%s: started with %u packets in flight; %u clean ACKs after a loss signal give back only %u",
		      c->ops->name, start, CCC_MAX_ACKS, out);
	ccc_stop(&f);
}
END_TEST

/* The same script twice: the same decisions, the same state. */
START_TEST(ccc_test_deterministic)
{
	const struct ccc_case *c = &ccc_cases[_i];
	unsigned char end[2][HS_CC_STATE_MAX];
	uint64_t trace[2];
	struct ccc_flow f;
	unsigned int k;

	for (k = 0; k < 2; k++) {
		ccc_start(&f, c);
		ccc_script(&f, CCC_SEED);
		trace[k] = f.trace;
		memcpy(end[k], f.st, c->ops->state_size);
		ccc_stop(&f);
	}
	ck_assert_msg(trace[0] == trace[1] &&
		      memcmp(end[0], end[1], c->ops->state_size) == 0,
		      "%s: the same script twice went two ways", c->ops->name);
}
END_TEST

TCase *
cc_conformance_tcase(const struct hs_cc_ops *ops, const void *settings)
{
	struct ccc_case *c;
	TCase *tc;
	int k;

	if (ops == NULL || ccc_nb_cases == CCC_MAX_CASES ||
	    ops->settings_size > HS_CC_SETTINGS_MAX) {
		fprintf(stderr, "cc_conformance: no controller, too many cases, or settings too large\n");
		abort();
	}
	k = (int)ccc_nb_cases++;
	c = &ccc_cases[k];
	c->ops = ops;
	snprintf(c->section, sizeof(c->section), HS_CC_SECTION "%s",
		 ops->name);
	t_lower(c->section);	/* as the loader names the section */
	tc = t_conformance_tcase(ops->name, c->name, sizeof(c->name),
				 c->settings.bytes, sizeof(c->settings.bytes),
				 ops->defaults, settings, ops->settings_size);
	tcase_add_loop_test(tc, ccc_test_settings, k, k + 1);
	tcase_add_loop_test(tc, ccc_test_window, k, k + 1);
	tcase_add_loop_test(tc, ccc_test_recovers, k, k + 1);
	tcase_add_loop_test(tc, ccc_test_deterministic, k, k + 1);
	return tc;
}
