/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RCCC's sender (hs_rccc.h), after uet-htsim's UecSrc at 40ccb05 (lines
 * of htsim/sim/uec.cpp).  The receiver's pacer is the host engine's
 * (host/engine/hs_host_pull.c).
 *
 *  - A flow starts with 1.5 BDP of credit (startConnection, 1707) and
 *    sends while it has any (can_send_RCCC, 1125-1128), a whole packet
 *    on the last byte, resends too; each packet spends its bytes with
 *    the header (spendCredit, 1838-1843).  What it sends so is
 *    speculative.
 *  - The first ACK, NACK or PULL ends speculation: credit left over is
 *    dropped, a debt kept (stopSpeculating, 1845-1857).
 *  - A PULL carries the credit granted so far; what is new is added
 *    (handlePull, 799-810), up to 2.5 BDP: uet-htsim holds 1.5 BDP at
 *    most, and asks for no more, but ofan's receiver cannot see the
 *    sender's credit and bounds credit and packets in flight together at
 *    2.5 BDP instead (hs_host_pull.c); a sender that dropped credit
 *    above 1.5 BDP would wait for credit its receiver thinks it has.
 *  - with nscc, NSCC's window must also let the packet out (uet-htsim's
 *    "both": isSendPermitted, 1770-1786).
 *  - A timeout with no credit left stands for uet-htsim's RTS (2173-2203),
 *    which asks the receiver for credit: the flow grants itself one
 *    packet's, so a packet lost without trace is resent.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hs_rccc.h"
#include "ofan_config.h"

#define RCCC_QUANTUM 256	/* uecpacket.h:31, UEC_PULL_QUANTUM */

static void
rccc_defaults(void *settings)
{
	struct hs_rccc_settings *s = settings;

	hs_cc_nscc.defaults(&s->nscc);
	s->first_bdp = 1.5;		/* uec.cpp:1707, 196-197 */
	s->max_bdp = 2.5;		/* hs_host_pull.c's bound */
	s->header = 64;			/* uec.cpp:28 */
	s->with_nscc = false;
	s->oversubscription = 0;
}

static int
rccc_parse(struct ofan_cfg *cfg, const char *sec, void *settings)
{
	struct hs_rccc_settings *s = settings;

	if (ofan_cfg_get_bool(cfg, sec, "nscc", 0, &s->with_nscc) != 0 ||
	    ofan_cfg_get_u32(cfg, sec, "window", 0, 0, 1u << 20,
			     &s->nscc.window_pkts) != 0 ||
	    ofan_cfg_get_double(cfg, sec, "first_bdp", 0, 0.01, 1000.0,
				&s->first_bdp) != 0 ||
	    ofan_cfg_get_double(cfg, sec, "max_bdp", 0, 0.01, 1000.0,
				&s->max_bdp) != 0 ||
	    ofan_cfg_get_u32(cfg, sec, "header", 0, 0, 4096, &s->header) != 0 ||
	    ofan_cfg_get_double(cfg, sec, "oversubscription", 0, 0.0, 1000.0,
				&s->oversubscription) != 0)
		return -1;
	s->nscc.header = s->header;
	return 0;
}

static void
rccc_start(void *st, const void *settings, const struct hs_cc_flow *f)
{
	const struct hs_rccc_settings *s = settings;
	struct hs_rccc_state *r = st;

	r->mss = f->mss;
	r->mtu = f->mss + s->header;
	r->max_credit = (int64_t)(s->max_bdp * (double)f->base_rtt_ns / 1e9 *
				  ((double)f->rate_bps / 8.0));
	r->first_credit = (int64_t)(s->first_bdp * (double)f->base_rtt_ns /
				    1e9 * ((double)f->rate_bps / 8.0));
	if (r->max_credit < 2 * (int64_t)r->mtu)
		r->max_credit = 2 * (int64_t)r->mtu;	/* as the receiver's */
	if (r->first_credit < (int64_t)r->mtu)
		r->first_credit = r->mtu;
	r->credit = r->first_credit;
	r->spec = true;
	if (s->with_nscc)
		hs_cc_nscc.start(&r->n, &s->nscc, f);
}

static bool
rccc_may_send(const void *st, const void *settings,
	      const struct hs_cc_flight *f)
{
	const struct hs_rccc_settings *s = settings;
	const struct hs_rccc_state *r = st;

	return r->credit > 0 &&
	       (!s->with_nscc || hs_cc_nscc.may_send(&r->n, &s->nscc, f));
}

static inline void
rccc_stop_spec(struct hs_rccc_state *r)
{
	if (r->spec) {
		r->spec = false;
		if (r->credit > 0)
			r->credit = 0;
	}
}

static void
rccc_on_ack(void *st, const void *settings, const struct hs_cc_ack *a)
{
	const struct hs_rccc_settings *s = settings;
	struct hs_rccc_state *r = st;

	if (s->with_nscc)
		hs_cc_nscc.on_ack(&r->n, &s->nscc, a);
	/* Feedback on what it sent (an ACK of nothing ends nothing). */
	if (a->acked_pkts > 0 || a->rtt_ns != 0)
		rccc_stop_spec(r);
}

static void
rccc_on_nack(void *st, const void *settings, const struct hs_cc_ack *a)
{
	const struct hs_rccc_settings *s = settings;
	struct hs_rccc_state *r = st;

	if (s->with_nscc)
		hs_nscc_nack(&r->n, &s->nscc, a, true);
	if (a->nacked_pkts > 0)
		rccc_stop_spec(r);
}

static void
rccc_on_pull(void *st, const void *settings, uint32_t pull, uint64_t now_ns)
{
	struct hs_rccc_state *r = st;

	(void)settings;
	(void)now_ns;
	if ((int32_t)(pull - r->pull) <= 0)
		return;	/* an older PULL, overtaken */
	rccc_stop_spec(r);
	r->credit += (int64_t)(pull - r->pull) * RCCC_QUANTUM;
	if (r->credit > r->max_credit)
		r->credit = r->max_credit;
	r->pull = pull;
}

static void
rccc_on_sent(void *st, const void *settings, uint32_t payload, bool resend,
	     uint64_t now_ns)
{
	const struct hs_rccc_settings *s = settings;
	struct hs_rccc_state *r = st;

	(void)resend;
	(void)now_ns;
	r->credit -= (int64_t)payload + s->header;
}

/*
 * A returned header never reached the receiver, which so never counts
 * it: its credit comes back (ofan's return to sender; uet-htsim has
 * none).
 */
static void
rccc_on_returned(void *st, const void *settings, uint32_t payload,
		 uint64_t now_ns)
{
	const struct hs_rccc_settings *s = settings;
	struct hs_rccc_state *r = st;

	(void)now_ns;
	r->credit += (int64_t)payload + s->header;
}

static void
rccc_on_timeout(void *st, const void *settings, uint64_t now_ns)
{
	const struct hs_rccc_settings *s = settings;
	struct hs_rccc_state *r = st;

	if (s->with_nscc)
		hs_cc_nscc.on_timeout(&r->n, &s->nscc, now_ns);
	if (r->credit <= 0)
		r->credit = r->mtu;
}

static bool
rccc_speculating(const void *st)
{
	return ((const struct hs_rccc_state *)st)->spec;
}

static void
rccc_pull_params(const void *settings, struct hs_pull_params *p)
{
	const struct hs_rccc_settings *s = settings;

	p->first_bdp = s->first_bdp;
	p->max_bdp = s->max_bdp;
	p->oversubscription = s->oversubscription > 1.0 ?
		s->oversubscription : 0.0;
}

#define OSC_TARGET 0.3		/* oversubscribed_cc.cpp:6, _target_congestion */
#define OSC_AI 0.01		/* :7 */
#define OSC_MD 0.5		/* :8 */
#define OSC_MIN 0.01		/* :9 */
#define OSC_ALPHA 0.5		/* :10 */

void
hs_rccc_osc_init(struct hs_rccc_osc *o, double oversubscription)
{
	o->rate = 1.0;
	o->g = 0.0;
	o->inc = 0;
	/* setOversubscriptionRatio (oversubscribed_cc.h:44-48) */
	o->min_rate = oversubscription > 0 ? 0.9 / oversubscription : 1.0;
	if (o->min_rate < OSC_MIN)
		o->min_rate = OSC_MIN;
}

/* doCongestionControl (oversubscribed_cc.cpp:38-94). */
void
hs_rccc_osc_step(struct hs_rccc_osc *o, uint64_t pkts, uint64_t ce,
		 uint64_t trim_last, uint64_t trim_other)
{
	uint64_t trims = trim_last + trim_other;
	uint64_t whole = pkts > trims ? pkts - trims : 0;
	double frac = whole != 0 ? (double)ce / (double)whole : 0.0;
	bool decrease = false;

	if (trim_other > 0 && pkts > 0) {
		o->rate -= (double)trim_other / (double)pkts;
		decrease = true;
	}
	o->g = o->g * (1 - OSC_ALPHA) + OSC_ALPHA * frac;
	if (o->g > OSC_TARGET) {
		o->rate *= 1 - (o->g - OSC_TARGET) * OSC_MD;
		decrease = true;
	}
	if (!decrease) {
		o->rate += ce == 0 ? ldexp(OSC_AI, o->inc < 64 ? (int)o->inc : 64) :
			OSC_AI;
		o->inc++;
	} else {
		o->inc = 0;
	}
	if (o->rate < o->min_rate)
		o->rate = o->min_rate;
	if (o->rate > 1)
		o->rate = 1;
}

const struct hs_cc_ops hs_cc_rccc = {
	.name = "rccc",
	.summary = "Ultra Ethernet's RCCC: credit pulled by the receiver at its link's rate; nscc = yes adds NSCC's window",
	.gates_resends = true,
	.pulls = true,
	.ack_request = true,
	.settings_size = sizeof(struct hs_rccc_settings),
	.state_size = sizeof(struct hs_rccc_state),
	.defaults = rccc_defaults,
	.parse = rccc_parse,
	.start = rccc_start,
	.may_send = rccc_may_send,
	.on_ack = rccc_on_ack,
	.on_nack = rccc_on_nack,
	.on_timeout = rccc_on_timeout,
	.on_sent = rccc_on_sent,
	.on_returned = rccc_on_returned,
	.on_pull = rccc_on_pull,
	.speculating = rccc_speculating,
	.pull_params = rccc_pull_params,
};
