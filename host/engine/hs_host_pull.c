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
 * in its packets as uet-htsim's pull target is: every byte of the flow
 * (payload and a 64-byte header per packet), one more packet for each
 * trimmed header (it will be resent), less what its sender spent before
 * any feedback (its packets marked OFAN_BTH_MARK_SPEC), less what was
 * granted; and never so much that the sender would hold more than 1.5
 * BDP of credit and packets in flight (uet-htsim caps its pull target at
 * its largest window).  uet-htsim's idle flows' unrequested "slow" pulls
 * are not modelled (docs/uec.md).
 */
#include "hs_host_priv.h"

#define PULL_QUANTUM OFAN_PULL_QUANTUM	/* uecpacket.h:31 */
#define PULL_GRANT 64		/* quanta per PULL (uec.cpp:32-36) */
#define PULL_IDLE 4		/* quanta of wait after an empty PULL (3126) */
#define PULL_RATE 0.99		/* of the link (main_uec.cpp:754) */
#define PULL_HEADER 64		/* bytes a packet spends beyond payload */
#define PULL_MAX_BDP 2.5	/* credit a sender holds (1.5 BDP) and a BDP in flight */

int
hs_pull_init(struct hs_host *h)
{
	const struct hs_host_settings *c = h->set;

	if (!c->cc->pulls)
		return 0;
	h->pull_fifo = calloc(h->nb_rflows ? h->nb_rflows : 1,
			      sizeof(*h->pull_fifo));
	if (h->pull_fifo == NULL)
		return -ENOMEM;
	h->pull_tpq_ps = PULL_QUANTUM * 8.0 * 1e12 /
		((double)c->rate_bps * PULL_RATE);
	h->pull_max = (int64_t)(PULL_MAX_BDP * (double)c->base_rtt_ns / 1e9 *
				((double)c->rate_bps / 8.0));
	return 0;
}

/* Quanta flow r wants now (0: none). */
static uint32_t
hs_pull_demand(const struct hs_host *h, const struct hs_rflow *r)
{
	const struct hs_pull_rx *p = &r->pull;
	uint64_t mss = h->set->mss, size = r->spec->size;
	uint64_t pkts = (size + mss - 1) / mss;
	int64_t target = (int64_t)(size + pkts * PULL_HEADER +
				   (uint64_t)p->trims * (mss + PULL_HEADER)) -
		(int64_t)p->spec_bytes;
	int64_t granted = (int64_t)p->granted * PULL_QUANTUM;
	int64_t want = target - granted;
	int64_t held = granted + (int64_t)p->spec_bytes -
		(int64_t)p->arrived_bytes;
	int64_t room = h->pull_max - held;

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
		uint16_t ev, bool spec, bool trimmed, uint64_t now)
{
	struct hs_pull_rx *p = &h->rflows[ri].pull;
	uint32_t bytes = payload + PULL_HEADER;

	if (h->pull_fifo == NULL)
		return;
	if (trimmed) {
		bytes = h->set->mss + PULL_HEADER;	/* a full one, cut */
		p->trims++;
	}
	p->arrived_bytes += bytes;
	if (spec)
		p->spec_bytes += bytes;
	p->ev = ev;
	hs_pull_request(h, ri, (double)now * 1000.0);
}

void
hs_pull_run(struct hs_host *h, uint64_t now)
{
	double now_ps = (double)now * 1000.0;

	while (h->pull_count > 0 && h->pull_next_ps <= now_ps) {
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
			h->pull_tpq_ps;
		hs_pull_request(h, ri, now_ps);
	}
}

uint64_t
hs_pull_next_ns(const struct hs_host *h)
{
	if (h->pull_count == 0)
		return UINT64_MAX;
	return (uint64_t)(h->pull_next_ps / 1000.0 + 0.999999);
}
