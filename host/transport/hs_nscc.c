/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NSCC (hs_nscc.h), after uet-htsim's UecSrc (htsim/sim/uec.cpp at
 * 40ccb05; the lines cited are that file's).  Times are picoseconds and
 * sizes whole-packet bytes, with uet-htsim's integer truncations, so a
 * flow's window moves as uet-htsim's does on the same samples.
 *
 * Per ACK (updateCwndOnAck_NSCC, 1310-1357), with delay the sample's
 * queuing delay (RTT - base RTT) and B the bytes it acknowledged:
 *  - quick adapt first: at an epoch's end (base RTT + target), after a
 *    NACK or a delay over 4 x target, a flow that got less than
 *    maxwnd >> qa_gate through sets its window to what it got;
 *  - no mark, delay >= target: fair increase, fi x B into the batch;
 *  - no mark, delay < target: fast increase (window += B x fi_scale at
 *    once) while the delay stays under 1 us for a window's bytes, else
 *    proportional increase, alpha x B x (target - delay) into the batch;
 *  - mark, delay >= target: multiplicative decrease by the average
 *    delay's excess, at most once per base RTT, never below half;
 *  - mark, delay < target: nothing (the path is congested, not the flow).
 * The batch is applied (inc / window, and eta once per network RTT)
 * after 8 packets' bytes or a network RTT.  A NACK takes its packet's
 * bytes off and asks for quick adapt; a timeout one packet's.
 */
#include <stddef.h>
#include <stdint.h>

#include "hs_nscc.h"
#include "ofan_config.h"

#define PS_PER_NS 1000ull
/* The average delay a marked ACK's missing sample counts as (1402-1423). */
#define NSCC_AVG_FLOOR_DIV 4

static void
nscc_defaults(void *settings)
{
	struct hs_nscc_settings *s = settings;

	s->target_delay_ns = 0;
	s->target_rtts = 0.75;			/* uec.cpp:104-112 */
	s->ref_rate_bps = 100000000000ull;	/* uec.cpp:93 */
	s->ref_rtt_ns = 12000;			/* uec.cpp:94 */
	s->gamma = 0.8;				/* uec.cpp:129 */
	s->delay_alpha = 0.0125;		/* uec.cpp:132 */
	s->max_bdp = 1.5;			/* uec.cpp:166 */
	s->fast_delay_ns = 1000;		/* uec.cpp:1222 */
	s->qa_gate = 3;				/* uec.cpp:115 */
	s->header = 64;				/* uec.cpp:28 */
	s->window_pkts = 0;
	s->adjust_pkts = 8;			/* uec.cpp:135 */
	s->quick_adapt = true;			/* uec.cpp:74 */
	s->base_rtt_on_nack = true;		/* uec.cpp:76 */
}

static int
nscc_parse(struct ofan_cfg *cfg, const char *sec, void *settings)
{
	struct hs_nscc_settings *s = settings;

	if (ofan_cfg_get_time(cfg, sec, "target_delay", 0, 0, 1000000000ull,
			      &s->target_delay_ns) != 0 ||
	    ofan_cfg_get_double(cfg, sec, "target_rtts", 0, 0.01, 100.0,
				&s->target_rtts) != 0 ||
	    ofan_cfg_get_rate(cfg, sec, "reference_rate", 0, 1000000ull,
			      10000000000000ull, &s->ref_rate_bps) != 0 ||
	    ofan_cfg_get_time(cfg, sec, "reference_rtt", 0, 1, 1000000000ull,
			      &s->ref_rtt_ns) != 0 ||
	    ofan_cfg_get_double(cfg, sec, "gamma", 0, 0.0, 1.0,
				&s->gamma) != 0 ||
	    ofan_cfg_get_double(cfg, sec, "delay_alpha", 0, 0.0001, 1.0,
				&s->delay_alpha) != 0 ||
	    ofan_cfg_get_double(cfg, sec, "max_bdp", 0, 0.01, 1000.0,
				&s->max_bdp) != 0 ||
	    ofan_cfg_get_time(cfg, sec, "fast_delay", 0, 0, 1000000000ull,
			      &s->fast_delay_ns) != 0 ||
	    ofan_cfg_get_u32(cfg, sec, "qa_gate", 0, 0, 30, &s->qa_gate) != 0 ||
	    ofan_cfg_get_u32(cfg, sec, "header", 0, 0, 4096, &s->header) != 0 ||
	    ofan_cfg_get_u32(cfg, sec, "window", 0, 0, 1u << 20,
			     &s->window_pkts) != 0 ||
	    ofan_cfg_get_u32(cfg, sec, "adjust_packets", 0, 1, 1u << 16,
			     &s->adjust_pkts) != 0 ||
	    ofan_cfg_get_bool(cfg, sec, "quick_adapt", 0,
			      &s->quick_adapt) != 0 ||
	    ofan_cfg_get_bool(cfg, sec, "base_rtt_on_nack", 0,
			      &s->base_rtt_on_nack) != 0)
		return -1;
	return 0;
}

/* Bytes a rate carries in t ps (uet-htsim's timeAsSec(t) x rate / 8). */
static inline double
nscc_bdp(uint64_t t_ps, uint64_t rate_bps)
{
	return (double)t_ps / 1e12 * ((double)rate_bps / 8.0);
}

/*
 * The constants of initNsccParams (uec.cpp:86-159), scaled by the
 * network's BDP and the target against the reference's 100G x 12 us:
 * a = BDP / reference BDP, b = target / reference RTT.
 */
static void
nscc_params(struct hs_nscc_state *n, const struct hs_nscc_settings *s,
	    const struct hs_cc_flow *f)
{
	double ref_bdp, a, b, mss = (double)n->mss;

	n->net_rtt = f->base_rtt_ns * PS_PER_NS;
	n->target = s->target_delay_ns > 0 ?
		s->target_delay_ns * PS_PER_NS :
		(uint64_t)(s->target_rtts * (double)n->net_rtt);
	ref_bdp = nscc_bdp(s->ref_rtt_ns * PS_PER_NS, s->ref_rate_bps);
	a = nscc_bdp(n->net_rtt, f->rate_bps) / ref_bdp;
	b = (double)n->target / (double)(s->ref_rtt_ns * PS_PER_NS);
	n->alpha = 4.0 * mss * a * b / (double)n->target;
	n->fi = 5.0 * mss * a;
	n->eta = 0.15 * mss * a;
	n->fi_scale = 0.25 * a;
	n->qa_threshold = 4 * n->target;
	n->adjust_bytes = (uint64_t)s->adjust_pkts * n->mtu;
}

static void
nscc_start(void *st, const void *settings, const struct hs_cc_flow *f)
{
	const struct hs_nscc_settings *s = settings;
	struct hs_nscc_state *n = st;

	n->mss = f->mss;
	n->mtu = f->mss + s->header;
	n->rate_bps = f->rate_bps;
	nscc_params(n, s, f);
	n->base_rtt = n->net_rtt;
	n->maxwnd = (int64_t)(s->max_bdp * nscc_bdp(n->base_rtt, n->rate_bps));
	if (n->maxwnd < (int64_t)n->mtu)
		n->maxwnd = n->mtu;
	n->cwnd = s->window_pkts > 0 ?
		(int64_t)s->window_pkts * n->mtu : n->maxwnd;
	if (n->cwnd > n->maxwnd)
		n->cwnd = n->maxwnd;
}

/* set_cwnd_bounds (1137-1143). */
static inline void
nscc_bound(struct hs_nscc_state *n)
{
	if (n->cwnd < (int64_t)n->mtu)
		n->cwnd = n->mtu;
	if (n->cwnd > n->maxwnd)
		n->cwnd = n->maxwnd > (int64_t)n->mtu ? n->maxwnd : n->mtu;
}

/* A smaller RTT lowers the base, the BDP and the largest window (1389-1400). */
static void
nscc_base_rtt(struct hs_nscc_state *n, const struct hs_nscc_settings *s,
	      uint64_t raw)
{
	if (raw == 0 || raw >= n->base_rtt)
		return;
	n->base_rtt = raw;
	n->maxwnd = (int64_t)(s->max_bdp * nscc_bdp(raw, n->rate_bps));
	if (n->maxwnd < (int64_t)n->mtu)
		n->maxwnd = n->mtu;
}

/*
 * The delay average (update_delay, 1402-1423): an unmarked sample over
 * the target counts as a quarter of the base RTT.
 */
static void
nscc_avg(struct hs_nscc_state *n, const struct hs_nscc_settings *s,
	 uint64_t sample, bool ce)
{
	double x = !ce && sample > n->target ?
		(double)n->base_rtt / NSCC_AVG_FLOOR_DIV : (double)sample;

	n->avg_delay = (uint64_t)(s->delay_alpha * x +
				  (1.0 - s->delay_alpha) * (double)n->avg_delay);
}

/* quick_adapt (1145-1200): true when it set the window (or skips this ACK). */
static bool
nscc_quick_adapt(struct hs_nscc_state *n, const struct hs_nscc_settings *s,
		 bool loss, bool ce, uint64_t delay, uint64_t now,
		 uint64_t in_flight)
{
	bool r = false;

	if (!s->quick_adapt)
		return false;
	if (n->ignored < n->to_ignore && ce) {
		r = true;
	} else if (now > n->qa_end) {
		if (n->qa_end != 0 &&
		    (n->trigger_qa || loss || delay > n->qa_threshold) &&
		    n->achieved < (uint64_t)(n->maxwnd >> s->qa_gate)) {
			n->cwnd = n->achieved > n->mtu ?
				(int64_t)n->achieved : (int64_t)n->mtu;
			n->to_ignore = in_flight;
			n->ignored = 0;
			n->trigger_qa = false;
			r = true;
		}
		n->achieved = 0;
		n->qa_end = now + n->base_rtt + n->target;
	}
	if (r) {
		n->inc = 0;
		n->received = 0;
	}
	return r;
}

/* fast_increase (1221-1238): true while it grows the window itself. */
static bool
nscc_fast_increase(struct hs_nscc_state *n, const struct hs_nscc_settings *s,
		   uint64_t bytes, uint64_t delay)
{
	if (delay < s->fast_delay_ns * PS_PER_NS) {
		n->fi_count += (uint32_t)bytes;
		if ((int64_t)n->fi_count > n->cwnd || n->increase) {
			n->cwnd += (int64_t)((double)bytes * n->fi_scale);
			n->increase = true;
			return true;
		}
	} else {
		n->fi_count = 0;
	}
	n->increase = false;
	return false;
}

/* multiplicative_decrease (1240-1255), by the average delay. */
static void
nscc_decrease(struct hs_nscc_state *n, const struct hs_nscc_settings *s,
	      uint64_t now)
{
	double avg = (double)n->avg_delay, f;

	n->increase = false;
	n->fi_count = 0;
	if (n->avg_delay > n->target && now - n->last_dec > n->base_rtt) {
		f = 1.0 - s->gamma * (avg - (double)n->target) / avg;
		n->cwnd = (int64_t)((double)n->cwnd * (f > 0.5 ? f : 0.5));
		if (n->cwnd < (int64_t)n->mtu)
			n->cwnd = n->mtu;
		n->last_dec = now;
	}
}

/* fulfill_adjustment (1257-1295): the batch, and eta once per RTT. */
static void
nscc_fulfill(struct hs_nscc_state *n, uint64_t now)
{
	n->cwnd += (int64_t)n->inc / n->cwnd;
	if (now - n->last_adjust >= n->net_rtt) {
		n->cwnd += (int64_t)n->eta;
		n->last_adjust = now;
	}
	n->inc = 0;
	n->received = 0;
}

/* inc is uet-htsim's uint32_t: each += converts the sum back. */
static inline void
nscc_inc_add(struct hs_nscc_state *n, double x)
{
	n->inc = (uint32_t)((double)n->inc + x);
}

static void
nscc_on_ack(void *st, const void *settings, const struct hs_cc_ack *a)
{
	const struct hs_nscc_settings *s = settings;
	struct hs_nscc_state *n = st;
	uint64_t now = a->now_ns * PS_PER_NS, raw = a->rtt_ns * PS_PER_NS;
	uint64_t bytes = (uint64_t)a->acked_pkts * n->mtu, delay;
	uint64_t in_flight = (uint64_t)a->flight.pkts * n->mtu;

	/* processAck (904-1059): the bytes, then the delay sample. */
	n->achieved += bytes;
	n->received += bytes;
	n->ignored += bytes;
	if (raw != 0) {
		nscc_base_rtt(n, s, raw);
		nscc_avg(n, s, raw - n->base_rtt, a->ce);
		delay = raw - n->base_rtt;
	} else {
		delay = n->avg_delay;
	}
	if (nscc_quick_adapt(n, s, false, a->ce, delay, now, in_flight))
		return;
	if (!a->ce && delay >= n->target)
		nscc_inc_add(n, n->fi * (double)bytes);
	else if (!a->ce && !nscc_fast_increase(n, s, bytes, delay))
		nscc_inc_add(n, n->alpha * (double)bytes *
				(double)(n->target - delay));
	else if (a->ce && delay >= n->target)
		nscc_decrease(n, s, now);
	nscc_bound(n);
	if (n->received > n->adjust_bytes || now - n->last_adjust > n->net_rtt)
		nscc_fulfill(n, now);
	nscc_bound(n);
}

/*
 * updateCwndOnNack_NSCC (1359-1384) and processNack's base RTT
 * (1524-1610): under a receiver's credit a last hop's trim leaves the
 * window (1380).
 */
void
hs_nscc_nack(void *st, const void *settings, const struct hs_cc_ack *a,
	     bool receiver_driven)
{
	const struct hs_nscc_settings *s = settings;
	struct hs_nscc_state *n = st;
	uint64_t now = a->now_ns * PS_PER_NS;
	uint64_t bytes = (uint64_t)a->nacked_pkts * n->mtu;

	if (a->nacked_pkts == 0)
		return;	/* not a packet in flight: uet-htsim finds no record */
	if (s->base_rtt_on_nack)
		nscc_base_rtt(n, s, a->rtt_ns * PS_PER_NS);
	n->ignored += bytes;
	nscc_avg(n, s, n->net_rtt, true);
	n->trigger_qa = true;
	if (nscc_quick_adapt(n, s, true, true, 0, now,
			     (uint64_t)a->flight.pkts * n->mtu))
		return;
	if (receiver_driven && a->last_hop)
		return;
	n->cwnd -= (int64_t)bytes;
	nscc_bound(n);
}

static void
nscc_on_nack(void *st, const void *settings, const struct hs_cc_ack *a)
{
	hs_nscc_nack(st, settings, a, false);
}

/* mark_packet_for_retransmission (1297-1304): a packet's bytes off. */
static void
nscc_on_timeout(void *st, const void *settings, uint64_t now_ns)
{
	struct hs_nscc_state *n = st;

	(void)settings;
	(void)now_ns;
	n->cwnd -= n->mtu;
	if (n->cwnd < (int64_t)n->mtu)
		n->cwnd = n->mtu;
}

/* can_send_NSCC (1130-1135): a whole packet fits beside what is out. */
static bool
nscc_may_send(const void *st, const void *settings,
	      const struct hs_cc_flight *f)
{
	const struct hs_nscc_state *n = st;

	(void)settings;
	return f->pkts == 0 ||
	       n->cwnd >= ((int64_t)f->pkts + 1) * n->mtu;
}

static double
nscc_window(const void *st, const void *settings)
{
	const struct hs_nscc_state *n = st;

	(void)settings;
	return (double)n->cwnd * n->mss / n->mtu;
}

const struct hs_cc_ops hs_cc_nscc = {
	.name = "nscc",
	.summary = "Ultra Ethernet's NSCC: a byte window on delay, ECN and trim NACKs, with quick adapt",
	.windowed = true,
	.gates_resends = true,
	.settings_size = sizeof(struct hs_nscc_settings),
	.state_size = sizeof(struct hs_nscc_state),
	.defaults = nscc_defaults,
	.parse = nscc_parse,
	.start = nscc_start,
	.may_send = nscc_may_send,
	.window = nscc_window,
	.on_ack = nscc_on_ack,
	.on_nack = nscc_on_nack,
	.ack_request = true,
	.on_timeout = nscc_on_timeout,
};
