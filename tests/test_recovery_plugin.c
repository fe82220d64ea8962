/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A loss-recovery model defined only in this file, as docs/architecture.md
 * ("A recovery model") shows: "once" sends every packet exactly once and
 * recovers nothing; its receiver counts the distinct packets it got and
 * acknowledges each arrival with that count (a counting model, like
 * erasure).  A flow completes only if nothing is lost, which makes it the
 * baseline of "what did recovery cost".  Its one setting, [recovery.once]
 * window, caps the packets it has unacknowledged (0: none).  It registers
 * with hs_recovery_register() before any configuration is read, is
 * refused without its required members, keeps the contract every model
 * keeps (tests/lib/recovery_conformance.h), parses its own section
 * through ofan-fabric's loader, is [host] recovery = once there, and on a
 * k = 4 fat tree with ofan's switches (no drops) every flow completes
 * with each packet sent once, later under a window of one packet.
 * Nothing outside this file knows it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <rte_common.h>

#include "hs_transport.h"
#include "ofan_config.h"
#include "plugin_suite.h"
#include "recovery_conformance.h"

#define ONCE_MAX_WINDOW (1u << 20)

/* ---- the model ---- */

struct once_settings {
	uint32_t window;	/* [recovery.once] window: unacknowledged at most (0: any) */
};

struct once_tx {
	uint32_t nb_pkts;
	uint32_t next;		/* lowest never-sent PSN */
	uint32_t acked;		/* the receiver's last count */
	uint32_t window;	/* its settings' */
	uint16_t mss;
	uint64_t size;
};

struct once_rx {
	uint32_t nb_pkts;
	uint32_t count;
	uint64_t dups;
	uint64_t ce;
	uint8_t *seen;		/* per PSN */
};

/* No window by default: every packet leaves at its slot. */
static void
once_defaults(void *settings)
{
	((struct once_settings *)settings)->window = 0;
}

static int
once_parse(struct ofan_cfg *cfg, const char *section, void *settings)
{
	struct once_settings *s = settings;

	return ofan_cfg_get_u32(cfg, section, "window", 0, 0, ONCE_MAX_WINDOW,
				&s->window) < 0 ? -EINVAL : 0;
}

static uint32_t
once_nb_pkts(const struct hs_transport_params *p, uint64_t size)
{
	return p->mss == 0 ? 0 : (uint32_t)((size + p->mss - 1) / p->mss);
}

static int
once_tx_init(void *tx, const struct hs_transport_params *p, uint64_t size,
	     uint64_t now)
{
	struct once_tx *t = tx;

	RTE_SET_USED(now);
	memset(t, 0, sizeof(*t));
	t->nb_pkts = once_nb_pkts(p, size);
	t->window = ((const struct once_settings *)p->settings)->window;
	t->mss = p->mss;
	t->size = size;
	return t->nb_pkts > 0 ? 0 : -EINVAL;
}

static void
once_tx_fini(void *tx)
{
	RTE_SET_USED(tx);
}

static uint16_t
once_tx_payload(const void *tx, uint32_t psn)
{
	const struct once_tx *t = tx;

	return psn + 1 < t->nb_pkts ? t->mss :
		(uint16_t)(t->size - (uint64_t)psn * t->mss);
}

/* Every packet new data, none resent; none beyond the window. */
static void
once_tx_next(void *tx, uint64_t now, struct hs_tx_pkt *pkt)
{
	const struct once_tx *t = tx;

	RTE_SET_USED(now);
	pkt->psn = t->next < t->nb_pkts &&
		(t->window == 0 || t->next - t->acked < t->window) ?
		t->next : HS_PSN_NONE;
	if (pkt->psn == HS_PSN_NONE)
		return;
	pkt->payload = once_tx_payload(tx, pkt->psn);
	pkt->resend = false;
	pkt->repair = false;
	pkt->grows = true;
}

static void
once_tx_sent(void *tx, uint32_t psn, uint64_t now)
{
	struct once_tx *t = tx;

	RTE_SET_USED(now);
	if (psn == t->next)
		t->next++;
}

static void
once_tx_on_ack(void *tx, const struct hs_ack_content *a, uint64_t now,
	       struct hs_tx_acked *r)
{
	struct once_tx *t = tx;

	RTE_SET_USED(now);
	r->rtt_ns = 0;
	r->acked = 0;
	if (a->cum > t->acked && a->cum <= t->next) {
		r->acked = a->cum - t->acked;
		t->acked = a->cum;
	}
	r->done = t->acked == t->nb_pkts;
}

static bool
once_tx_check_timeout(void *tx, uint64_t now)
{
	RTE_SET_USED(tx);
	RTE_SET_USED(now);
	return false;
}

static uint64_t
once_tx_timer_ns(const void *tx)
{
	RTE_SET_USED(tx);
	return UINT64_MAX;
}

static uint32_t
once_tx_in_flight(const void *tx)
{
	const struct once_tx *t = tx;

	return t->next - t->acked;
}

static uint64_t
once_tx_acked_bytes(const void *tx)
{
	const struct once_tx *t = tx;

	return (uint64_t)t->acked * t->mss;
}

static void
once_tx_counters(const void *tx, uint64_t *sent, uint64_t *retx,
		 uint64_t *timeouts)
{
	const struct once_tx *t = tx;

	*sent = t->next;
	*retx = 0;
	*timeouts = 0;
}

static int
once_rx_init(void *rx, const struct hs_transport_params *p, uint32_t nb_pkts,
	     uint16_t ack_every)
{
	struct once_rx *r = rx;

	RTE_SET_USED(p);
	RTE_SET_USED(ack_every);	/* every arrival is acknowledged */
	memset(r, 0, sizeof(*r));
	r->nb_pkts = nb_pkts;
	r->seen = calloc(nb_pkts + 1, 1);
	return r->seen != NULL ? 0 : -ENOMEM;
}

static void
once_rx_fini(void *rx)
{
	struct once_rx *r = rx;

	free(r->seen);
	r->seen = NULL;
}

static bool
once_rx_on_data(void *rx, uint32_t psn, bool ce, bool *send_ack,
		struct hs_ack_content *ack)
{
	struct once_rx *r = rx;
	bool is_new = psn < r->nb_pkts && !r->seen[psn];

	*send_ack = psn < r->nb_pkts;
	if (!*send_ack)
		return false;
	if (is_new) {
		r->seen[psn] = 1;
		r->count++;
	} else {
		r->dups++;
	}
	r->ce += ce;
	ack->cum = r->count;
	ack->sack = 0;
	ack->echo_psn = psn;
	ack->ce = ce;
	return is_new;
}

static bool
once_rx_done(const void *rx)
{
	const struct once_rx *r = rx;

	return r->count == r->nb_pkts;
}

static uint32_t
once_rx_count(const void *rx)
{
	return ((const struct once_rx *)rx)->count;
}

static uint16_t
once_rx_expect(const void *rx, uint32_t psn, uint64_t size, uint16_t mss)
{
	const struct once_rx *r = rx;

	if (psn >= r->nb_pkts)
		return 0;
	return psn + 1 == r->nb_pkts ?
		(uint16_t)(size - (uint64_t)psn * mss) : mss;
}

static void
once_rx_counters(const void *rx, uint32_t *max_reorder, uint64_t *dups,
		 uint64_t *ce)
{
	const struct once_rx *r = rx;

	*max_reorder = 0;
	*dups = r->dups;
	*ce = r->ce;
}

static const struct hs_recovery_ops once_ops = {
	.name = "once",
	.summary = "every packet once, nothing recovered (a lossless baseline)",
	.counts = true,
	.tx_size = sizeof(struct once_tx),
	.rx_size = sizeof(struct once_rx),
	.settings_size = sizeof(struct once_settings),
	.defaults = once_defaults,
	.parse = once_parse,
	.nb_pkts = once_nb_pkts,
	.tx_init = once_tx_init,
	.tx_fini = once_tx_fini,
	.tx_next = once_tx_next,
	.tx_sent = once_tx_sent,
	.tx_payload = once_tx_payload,
	.tx_on_ack = once_tx_on_ack,
	.tx_check_timeout = once_tx_check_timeout,
	.tx_timer_ns = once_tx_timer_ns,
	.tx_in_flight = once_tx_in_flight,
	.tx_acked_bytes = once_tx_acked_bytes,
	.tx_counters = once_tx_counters,
	/* no path timers */
	.rx_init = once_rx_init,
	.rx_fini = once_rx_fini,
	.rx_on_data = once_rx_on_data,
	.rx_done = once_rx_done,
	.rx_count = once_rx_count,
	.rx_expect = once_rx_expect,
	.rx_counters = once_rx_counters,
};

/* ---- the tests ---- */

static bool
t_path_expired(void *tx, uint16_t ev, uint64_t now)
{
	RTE_SET_USED(tx);
	RTE_SET_USED(ev);
	RTE_SET_USED(now);
	return false;
}

/* Registered, and refused without what every model must have. */
START_TEST(test_registers)
{
	struct hs_recovery_ops bad[T_NAME_FAULTS + 8];

	ck_assert_ptr_eq(hs_recovery_find("ONCE"), &once_ops);
	ck_assert_int_eq(hs_recovery_register(&once_ops), -EEXIST);
	T_FAULTY(bad, RTE_DIM(bad), once_ops, "twice");
	bad[T_NAME_FAULTS + 0].tx_on_ack = NULL;
	bad[T_NAME_FAULTS + 1].rx_on_data = NULL;
	bad[T_NAME_FAULTS + 2].tx_timer_ns = NULL;
	bad[T_NAME_FAULTS + 3].rx_expect = NULL;
	bad[T_NAME_FAULTS + 4].tx_size = HS_RECOVERY_TX_STATE + 1;
	bad[T_NAME_FAULTS + 5].rx_size = HS_RECOVERY_RX_STATE + 1;
	/* one of the three path timers */
	bad[T_NAME_FAULTS + 6].tx_path_expired = t_path_expired;
	bad[T_NAME_FAULTS + 7].settings_size = HS_RECOVERY_SETTINGS_MAX + 1;
	T_CHECK_REFUSED(hs_recovery_register, bad, RTE_DIM(bad));
	ck_assert_ptr_null(hs_recovery_find("twice"));
	bad[0] = once_ops;
	bad[0].name = "SACK";
	ck_assert_int_eq(hs_recovery_register(&bad[0]), -EEXIST);
}
END_TEST

/* Its block in the config of combination 0 of x. */
static const struct once_settings *
t_once(const struct fab_experiment *x)
{
	return hs_recovery_settings_of(&x->combos[0].host.set.recovery_set,
				       &once_ops);
}

/*
 * The loader takes it by name and lists it when a name is unknown, and
 * reads its own [recovery.once] section, whichever model runs: from an
 * override, checked, with unknown keys refused.
 */
START_TEST(test_config)
{
	static const struct t_refused bad[] = {
		{ "recovery.once.window=x",
		  "command line: recovery.once.window=x: 'x' is not an integer; expected an integer in [0, 1048576]" },
		{ "recovery.once.window=1048577", "'1048577' is out of range" },
		{ "recovery.once.colour=red",
		  "allowed keys in [recovery.once]: window" },
	};
	const char *ok[] = { "host.recovery=once", "recovery.once.window=4" };
	const char *unknown[] = { "host.recovery=thrice" };
	struct fab_experiment x;
	char err[1024];

	ck_assert_msg(t_load(&x, ok, 1, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_eq(x.combos[0].host.set.recovery, &once_ops);
	ck_assert_uint_eq(t_once(&x)->window, 0);
	fab_experiment_free(&x);
	ck_assert_msg(t_load(&x, ok, 2, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(t_once(&x)->window, 4);
	fab_experiment_free(&x);
	/* Another model runs: the section is read all the same. */
	ck_assert_msg(t_load(&x, ok + 1, 1, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_ptr_eq(x.combos[0].host.set.recovery, hs_recovery_find("sack"));
	ck_assert_uint_eq(t_once(&x)->window, 4);
	fab_experiment_free(&x);
	t_expect_refused("host.recovery=sack", bad, RTE_DIM(bad));
	ck_assert_int_ne(t_load(&x, unknown, 1, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "'thrice' is unknown; expected one of sack, erasure, tcp, trim, gbn, once") != NULL,
		      "%s", err);
}
END_TEST

/*
 * It runs: ofan's switches drop nothing on this permutation, so every
 * flow completes, each packet sent exactly once and received once, and
 * the receivers' ACKs carry counts (a SACK sender would reject them).
 * With a window of one packet each flow waits a round trip per packet:
 * the same packets, the longest flow far longer.
 */
START_TEST(test_runs_in_fabric)
{
	const char *ov[] = { "host.recovery=once", "fabric.schemes=ofan",
			     "traffic.size=256KiB", "recovery.once.window=1" };
	uint64_t need, end[2];	/* the longest flow's time */
	struct fab_experiment x;
	struct fab_run r;
	unsigned int w;
	uint32_t f;

	for (w = 0; w < 2; w++) {
		t_run_scheme(ov, (int)RTE_DIM(ov) - (w == 0), 0, &x, &r);
		ck_assert_uint_eq(t_once(&x)->window, w);
		ck_assert(r.completed);
		ck_assert_uint_eq(r.nb_completed, 16);
		ck_assert_uint_eq(r.drops_total, 0);
		ck_assert_uint_eq(r.hosts.ack_mismatch, 0);
		need = (256 * 1024 + x.combos[0].host.set.mss - 1) /
			x.combos[0].host.set.mss;
		end[w] = 0;
		for (f = 0; f < r.nb_flows; f++) {
			ck_assert_uint_eq(r.flows[f].m.data_sent, need);
			ck_assert_uint_eq(r.flows[f].m.data_received, need);
			ck_assert_uint_eq(r.flows[f].m.data_retx, 0);
			ck_assert_uint_eq(r.flows[f].m.dup_pkts, 0);
			if (r.flows[f].fct_ns > end[w])
				end[w] = r.flows[f].fct_ns;
		}
		ck_assert_uint_eq(r.injected,
				  r.delivered + r.dropped + r.queued_end);
		fab_run_free(&r);
		fab_experiment_free(&x);
	}
	fprintf(stderr, "once on permutation-k4: longest flow %" PRIu64 " ns, %" PRIu64 " ns with window = 1\n",
		end[0], end[1]);
	ck_assert_uint_gt(end[1], 2 * end[0]);
}
END_TEST

static Suite *
plugin_suite(void)
{
	static const struct once_settings one = { .window = 1 };
	const TTest *const tests[] = {
		test_registers, test_config, test_runs_in_fabric, NULL
	};
	Suite *s = t_plugin_suite("recovery_plugin", "once", tests);

	/* It recovers nothing: a flow that loses a packet need only end. */
	suite_add_tcase(s, recovery_conformance_tcase(&once_ops, NULL, false));
	suite_add_tcase(s, recovery_conformance_tcase(&once_ops, &one, false));
	return s;
}

int
main(void)
{
	return t_plugin_main("test_recovery_plugin",
			     hs_recovery_register(&once_ops), plugin_suite);
}
