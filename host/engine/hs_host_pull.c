/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receiver's side of a receiver-driven congestion control
 * (hs_cc.h, pulls; UEC's RCCC): one pacer per host, as uet-htsim's
 * UecPullPacer (htsim/sim/uec.cpp:3045-3170 at 40ccb05), grants credit
 * to the senders of its flows in PULLs at 99 % of its link: the flow at
 * the head of the queue gets up to 64 quanta (16 KiB), goes to the back
 * while it still wants more, and the next PULL waits for the time those
 * quanta take at that rate (4 quanta's when it granted none).
 *
 * What a flow wants is worked out here, from what arrives, not carried
 * in its packets as uet-htsim's pull target is: every byte that arrived
 * (data, duplicates, trimmed headers counted whole: the sender spent
 * them) and every byte still missing (payload and a 64-byte header per
 * packet not yet received: it must be sent at least once more), less
 * what its sender spent before any feedback (its packets marked
 * OFAN_BTH_MARK_SPEC) up to its first credit (1.5 BDP: past it, the
 * sender ran into debt, which uet-htsim's pull target asks back), less
 * what was granted; and never so much that the sender would hold more
 * than 2.5 BDP of credit and packets in flight (uet-htsim caps its pull
 * target at its largest window).  uet-htsim's idle flows' unrequested "slow" pulls
 * are not modelled (docs/uec.md).
 *
 * uet-htsim's sender sends an RTS when a timeout finds it without
 * credit, and its receiver pulls again.  Here the receiver keeps the
 * watch: every RTO it looks at its unfinished flows, and one that sent
 * nothing for an RTO (its PULL lost, or what it sent on it) has what
 * it holds written off as lost and granted again, a packet at least.
 *
 * On an oversubscribed fabric (the cc's pull_params) the pacer's rate
 * follows uet-htsim's OversubscribedCC (hs_rccc.h, struct hs_rccc_osc):
 * every interval, from the start until the host's flows are all in, it
 * looks at what arrived, marked and trimmed (on the last hop or
 * elsewhere, OFAN_BTH_MARK_LAST_HOP) and grants at that share of 99 %.
 */
#include <math.h>

#include "hs_host_priv.h"

#define PULL_QUANTUM OFAN_PULL_QUANTUM	/* uecpacket.h:31 */
#define PULL_GRANT 64		/* quanta per PULL (uec.cpp:32-36) */
#define PULL_IDLE 4		/* quanta of wait after an empty PULL (3126) */
#define PULL_RATE 0.99		/* of the link (main_uec.cpp:754) */
#define PULL_HEADER 64		/* bytes a packet spends beyond payload */

/*
 * The next interval's length: 1.5 network RTTs, x 0.75 .. 1.25 at random
 * (oversubscribed_cc.h:25-28; OversubscribedCC::_base_rtt is the
 * network's largest unloaded RTT, [host] base_rtt here).
 */
static uint64_t
hs_osc_interval(struct hs_host *h)
{
	double u = ofan_rng_unit(&h->osc_rng);

	return RTE_MAX((uint64_t)((0.75 + u / 2) * 1.5 *
				  (double)h->set->base_rtt_ns), (uint64_t)1);
}

int
hs_pull_init(struct hs_host *h)
{
	const struct hs_host_settings *c = h->set;
	struct hs_pull_params pp = {
		.first_bdp = 1.5, .max_bdp = 2.5, .oversubscription = 0,
	};

	if (!c->cc->pulls)
		return 0;
	h->pull_fifo = calloc(h->nb_rflows ? h->nb_rflows : 1,
			      sizeof(*h->pull_fifo));
	if (h->pull_fifo == NULL)
		return -ENOMEM;
	h->pull_tpq_ps = PULL_QUANTUM * 8.0 * 1e12 /
		((double)c->rate_bps * PULL_RATE);
	if (c->cc->pull_params != NULL)
		c->cc->pull_params(h->cc_settings, &pp);
	/* As the sender's (hs_rccc.c, rccc_start): at least two packets'
	 * worth, however small the BDP, and a first credit of one. */
	h->pull_max = (int64_t)(pp.max_bdp * (double)c->base_rtt_ns / 1e9 *
				((double)c->rate_bps / 8.0));
	h->pull_max = RTE_MAX(h->pull_max,
			      (int64_t)(2 * ((uint64_t)c->mss + PULL_HEADER)));
	h->pull_first = (int64_t)(pp.first_bdp * (double)c->base_rtt_ns /
				  1e9 * ((double)c->rate_bps / 8.0));
	h->pull_first = RTE_MAX(h->pull_first,
				(int64_t)((uint64_t)c->mss + PULL_HEADER));
	h->pull_silence_ns = RTE_MAX(c->min_rto_ns, 2 * c->base_rtt_ns);
	if (h->pull_silence_ns == 0)
		h->pull_silence_ns = 1;
	h->pull_check_ns = UINT64_MAX;
	h->osc_next_ns = UINT64_MAX;
	if (pp.oversubscription > 0) {
		h->osc_on = true;
		hs_rccc_osc_init(&h->osc, pp.oversubscription);
		ofan_rng_seed(&h->osc_rng, c->seed, 0x05c00000ull + h->rank);
		h->osc_next_ns = hs_osc_interval(h);
	}
	return 0;
}

/* What flow r's sender spent on its first credit (its debt past it not). */
static inline int64_t
hs_pull_spec(const struct hs_host *h, const struct hs_pull_rx *p)
{
	return RTE_MIN((int64_t)p->spec_bytes, h->pull_first);
}

/*
 * What flow r's sender holds as far as its receiver knows: credit not
 * yet spent and packets in flight (granted and spent first, less what
 * arrived or was written off as lost).
 */
static inline int64_t
hs_pull_held(const struct hs_host *h, const struct hs_pull_rx *p)
{
	return (int64_t)p->granted * PULL_QUANTUM + hs_pull_spec(h, p) -
		(int64_t)p->arrived_bytes - (int64_t)p->lost_bytes;
}

/*
 * Quanta flow r wants now (0: none, and none once all of it is in):
 * what arrived (all of it was spent) and what is still missing (it must
 * come at least once more), less what the sender spent on its first
 * credit and what was granted.
 */
static uint32_t
hs_pull_demand(const struct hs_host *h, const struct hs_rflow *r)
{
	const struct hs_pull_rx *p = &r->pull;
	uint64_t mss = h->set->mss, size = r->spec->size;
	uint64_t pkts = (size + mss - 1) / mss;
	uint64_t have, missing;
	int64_t want, room;

	if (r->complete)
		return 0;	/* all in: what it spent is no one's need */
	have = hs_receiver_count(&r->rx);
	missing = (size - RTE_MIN(r->goodput, size)) +
		(pkts - RTE_MIN(have, pkts)) * PULL_HEADER;
	want = (int64_t)(p->arrived_bytes + missing + p->extra_bytes) -
		hs_pull_spec(h, p) - (int64_t)p->granted * PULL_QUANTUM;
	room = h->pull_max - hs_pull_held(h, p);
	if (want > room)
		want = room;
	return want <= 0 ? 0 :
		(uint32_t)((want + PULL_QUANTUM - 1) / PULL_QUANTUM);
}

/* Flow ri joins the back of the pacer's queue if it wants credit. */
static void
hs_pull_request(struct hs_host *h, uint32_t ri, double now_ps)
{
	struct hs_rflow *r = &h->rflows[ri];

	if (r->pull.in_list || r->complete || hs_pull_demand(h, r) == 0)
		return;
	if (h->pull_count == 0 && h->pull_next_ps < now_ps)
		h->pull_next_ps = now_ps;
	h->pull_fifo[(h->pull_head + h->pull_count++) % h->nb_rflows] = ri;
	r->pull.in_list = true;
}

void
hs_pull_arrived(struct hs_host *h, uint32_t ri, uint32_t payload,
		uint16_t ev, uint8_t mark, bool ce, uint64_t now)
{
	struct hs_pull_rx *p = &h->rflows[ri].pull;
	uint32_t bytes = payload + PULL_HEADER;
	bool spec = (mark & OFAN_BTH_MARK_SPEC) != 0;
	bool trimmed = (mark & OFAN_BTH_MARK_TRIMMED) != 0;

	if (h->pull_fifo == NULL)
		return;
	if (h->osc_on) {
		h->osc_pkts++;
		h->osc_ce += ce;
		if (trimmed && (mark & OFAN_BTH_MARK_LAST_HOP))
			h->osc_trim_last++;
		else if (trimmed)
			h->osc_trim_other++;
	}
	if (trimmed) {
		bytes = h->set->mss + PULL_HEADER;	/* a full one, cut */
		p->trims++;
	}
	p->arrived_bytes += bytes;
	if (spec)
		p->spec_bytes += bytes;
	p->ev = ev;
	p->last_ns = now;
	if (h->pull_check_ns == UINT64_MAX)
		h->pull_check_ns = now + h->pull_silence_ns;
	hs_pull_request(h, ri, (double)now * 1000.0);
}

/*
 * The rate control's intervals that ended by now; it stops when every
 * flow to the host is in (uet-htsim's runs on, but nothing arrives
 * then, and the run ends with the flows).
 */
static void
hs_osc_run(struct hs_host *h, uint64_t now)
{
	uint32_t i;

	while (h->osc_next_ns <= now) {
		hs_rccc_osc_step(&h->osc, h->osc_pkts, h->osc_ce,
				 h->osc_trim_last, h->osc_trim_other);
		h->osc_pkts = h->osc_ce = 0;
		h->osc_trim_last = h->osc_trim_other = 0;
		for (i = 0; i < h->nb_rflows; i++)
			if (!h->rflows[i].complete && !h->rflows[i].foreign)
				break;
		if (i == h->nb_rflows) {
			h->osc_next_ns = UINT64_MAX;
			return;
		}
		h->osc_next_ns += hs_osc_interval(h);
	}
}

void
hs_pull_check(struct hs_host *h, uint64_t now)
{
	bool watch = false;
	int64_t held, wo;
	uint32_t i;

	if (h->osc_on)
		hs_osc_run(h, now);
	if (now < h->pull_check_ns)
		return;
	for (i = 0; i < h->nb_rflows; i++) {
		struct hs_rflow *r = &h->rflows[i];
		struct hs_pull_rx *p = &r->pull;

		if (r->complete || r->foreign || p->last_ns == 0)
			continue;
		watch = true;
		if (p->in_list || now - p->last_ns < h->pull_silence_ns)
			continue;
		/*
		 * Silent for an RTO: what it was granted and never sent
		 * here is written off as lost (its sender's timeout judges
		 * it so) and granted again, a packet at least.
		 */
		held = hs_pull_held(h, p);
		wo = RTE_MAX(held, (int64_t)h->set->mss + PULL_HEADER);
		p->lost_bytes += (uint64_t)RTE_MAX(held, (int64_t)0);
		p->extra_bytes += (uint64_t)wo;
		p->last_ns = now;
		hs_pull_request(h, i, (double)now * 1000.0);
	}
	h->pull_check_ns = watch ? now + h->pull_silence_ns : UINT64_MAX;
}

/* When the next PULL is due, in whole ns (the engine's clock). */
static inline uint64_t
hs_pull_due_ns(const struct hs_host *h)
{
	return (uint64_t)ceil(h->pull_next_ps / 1000.0);
}

void
hs_pull_run(struct hs_host *h, uint64_t now)
{
	double now_ps = (double)now * 1000.0;

	while (h->pull_count > 0 && hs_pull_due_ns(h) <= now) {
		uint32_t ri = h->pull_fifo[h->pull_head];
		struct hs_rflow *r = &h->rflows[ri];
		uint32_t g = RTE_MIN(hs_pull_demand(h, r), (uint32_t)PULL_GRANT);

		h->pull_head = (h->pull_head + 1) % h->nb_rflows;
		h->pull_count--;
		r->pull.in_list = false;
		if (g > 0) {
			r->pull.granted += g;
			hs_queue_pull(h, r);
		}
		h->pull_next_ps += (double)(g > 0 ? g : PULL_IDLE) *
			h->pull_tpq_ps / (h->osc_on ? h->osc.rate : 1.0);
		hs_pull_request(h, ri, now_ps);
	}
}

uint64_t
hs_pull_next_ns(const struct hs_host *h)
{
	uint64_t t = RTE_MIN(h->pull_check_ns, h->osc_next_ns);

	if (h->pull_count > 0)
		t = RTE_MIN(t, hs_pull_due_ns(h));
	return t;
}
