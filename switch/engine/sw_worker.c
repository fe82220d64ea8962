/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch engine's data path (sw_engine.h): a worker's per-burst
 * pipeline -- parse, ARP, FIB lookup, the policy's pick, rewrite, egress
 * queue -- and its transmit side.  Control (sw_engine.c) changes what it
 * sees only through group snapshots and port states.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_lpm.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_vect.h>

#include "ofan_parse.h"
#include "ofan_rng.h"
#include "ofan_wire.h"
#include "sw_engine_priv.h"
#include "sw_parse_fast.h"

/*
 * Where drops are counted (sw_engine.h, SW_PORT_COUNTERS): once, under
 * their reason and at one port.  A frame dropped before an egress port
 * was picked for it counts at its input ...
 */
static inline void
sw_worker_drop(struct sw_worker *w, uint16_t in_port, struct rte_mbuf *m,
	       enum ofan_drop reason)
{
	w->drops[reason]++;
	w->port_st[in_port].drops++;
	rte_pktmbuf_free(m);
}

/*
 * ... one dropped at port, its egress, counts there; its input learns
 * that an arrival of its was dropped (rx_dropped_at_egress, not a drop
 * count).
 */
static inline void
sw_worker_drop_egress(struct sw_worker *w, uint16_t in_port, uint16_t port,
		      struct rte_mbuf *m, enum ofan_drop reason)
{
	w->drops[reason]++;
	w->port_st[port].egress_drops++;
	w->port_st[in_port].rx_dropped_at_egress++;
	rte_pktmbuf_free(m);
}

/*
 * A packet was queued at now.  If it found the queue empty the link was
 * idle, so the shaper may start it no earlier than now: an idle link banks
 * no credit (see sw_queue_peek()).
 */
static inline void
sw_worker_queued(struct sw_queue *q, uint64_t now_ns)
{
	if (sw_queue_len(q) == 1 && q->next_tx_ns < now_ns)
		q->next_tx_ns = now_ns;
}

/* Whether frames to port go straight to the device in this input. */
static inline bool
sw_worker_is_direct(const struct sw_worker *w, uint16_t port)
{
	return (w->direct_now >> port & 1) != 0;
}

/*
 * Hand port's collected frames to the driver.  What a disabled queue's
 * peek and commit would count is counted here: the frames a failed link
 * loses, what the device took (tx, dequeued) and what it did not
 * (tx_full).  The queue is then empty, as a disabled queue is after its
 * commit.
 */
static void
sw_direct_flush(struct sw_worker *w, uint16_t port)
{
	struct sw_direct *d = &w->direct[port];
	struct sw_queue *q = &w->queue[port];
	struct sw_port_stats *st = &w->port_st[port];
	uint8_t link = w->eng->port[port].link;
	uint32_t unsent_bytes = 0;
	uint16_t i, sent;

	w->direct_mask &= ~(SW_PORT_BIT(port));
	if (d->n == 0)
		return;
	/*
	 * As a disabled queue counts its enqueues: the i-th frame found i
	 * queued (the Ethernet frame model: a frame counts its bytes).  The
	 * bins are linear in i, so a burst within the first bin, as every
	 * burst of a queue of more than a few bursts' capacity is, counts
	 * at once.
	 */
	if (likely(sw_queue_hist_bin(q, d->n - 1) == 0))
		q->st.hist[0] += d->n;
	else
		for (i = 0; i < d->n; i++)
			q->st.hist[sw_queue_hist_bin(q, i)]++;
	q->st.enq_pkts += d->n;
	q->st.enq_bytes += d->bytes;
	if (d->n > q->st.max_pkts)
		q->st.max_pkts = d->n;
	if (d->bytes > q->st.max_bytes)
		q->st.max_bytes = d->bytes;
	w->touched |= SW_PORT_BIT(port);
	if (unlikely(link == SW_LINK_DOWN || link == SW_LINK_BLACKHOLE)) {
		enum ofan_drop why = link == SW_LINK_DOWN ?
			OFAN_DROP_LINK_DOWN : OFAN_DROP_BLACKHOLE;

		for (i = 0; i < d->n; i++)
			rte_pktmbuf_free(d->pkts[i]);
		w->drops[why] += d->n;
		st->egress_drops += d->n;
	} else {
		sent = w->tx_fn(w->tx_arg, port, d->pkts, d->n);
		for (i = sent; i < d->n; i++) {
			unsent_bytes += d->pkts[i]->pkt_len;
			rte_pktmbuf_free(d->pkts[i]);
		}
		st->tx_pkts += sent;
		st->tx_bytes += d->bytes - unsent_bytes;
		q->st.deq_pkts += sent;
		q->st.deq_bytes += d->bytes - unsent_bytes;
		if (sent != d->n) {
			w->drops[OFAN_DROP_TX_FULL] += d->n - sent;
			st->egress_drops += d->n - sent;
		}
	}
	d->n = 0;
	d->bytes = 0;
	w->port_len[port] = 0;
	w->port_bytes[port] = 0;
	w->port_level[port] = sw_queue_level(q, &w->eng->cfg.levels);
}

/* Collect m for port's direct output (counted when it is flushed). */
static inline void
sw_direct_add(struct sw_worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct sw_direct *d = &w->direct[port];

	d->pkts[d->n++] = m;
	d->bytes += m->pkt_len;
	w->direct_mask |= SW_PORT_BIT(port);
	if (unlikely(d->n == SW_DIRECT_BURST))
		sw_direct_flush(w, port);
}

/*
 * Output of a frame the switch answers with (ARP, ICMP): port's queue,
 * or its direct output.  False if the queue is full (the caller frees).
 */
static inline bool
sw_worker_out(struct sw_worker *w, uint16_t port, struct rte_mbuf *m,
	      uint16_t l3_offset, uint64_t now_ns)
{
	if (sw_worker_is_direct(w, port)) {
		sw_direct_add(w, port, m);
		return true;
	}
	if (!sw_queue_enqueue(&w->queue[port], m, OFAN_KIND_OTHER, l3_offset,
			      false, &w->rng))
		return false;
	sw_worker_queued(&w->queue[port], now_ns);
	w->touched |= SW_PORT_BIT(port);
	return true;
}

/*
 * ARP: answer requests for the in-port's address in place, and learn the
 * peer's MAC from anything the peer says (unless configured).
 */
static void
sw_worker_arp(struct sw_worker *w, uint16_t in_port, struct rte_mbuf *m,
	      const struct ofan_pkt_info *info, uint64_t now_ns)
{
	struct sw_engine *eng = w->eng;
	struct sw_port_state *ps = &eng->port[in_port];
	uint32_t my_ip = eng->cfg.ports[in_port].ip;
	struct ofan_eth_hdr *eth;
	struct ofan_arp *arp;

	if (!eng->cfg.ports[in_port].peer_mac_set && info->arp_spa != 0) {
		memcpy(ps->peer_mac, info->arp_sha, 6);
		ps->peer_known = 1;
	}
	if (info->arp_oper != OFAN_ARP_OP_REQUEST || my_ip == 0 ||
	    info->arp_tpa != my_ip) {
		sw_worker_drop(w, in_port, m, OFAN_DROP_NOT_FOR_US);
		return;
	}
	eth = rte_pktmbuf_mtod(m, struct ofan_eth_hdr *);
	arp = rte_pktmbuf_mtod_offset(m, struct ofan_arp *, info->l3_offset);
	memcpy(eth->dst, info->arp_sha, 6);
	memcpy(eth->src, ps->mac, 6);
	arp->oper = rte_cpu_to_be_16(OFAN_ARP_OP_REPLY);
	memcpy(arp->tha, info->arp_sha, 6);
	arp->tpa = rte_cpu_to_be_32(info->arp_spa);
	memcpy(arp->sha, ps->mac, 6);
	arp->spa = rte_cpu_to_be_32(my_ip);
	/* Made, whether the port's queue takes it or drops it (an egress
	 * drop there): routed to the port either way. */
	w->port_st[in_port].arp_replies++;
	if (!sw_worker_out(w, in_port, m, info->l3_offset, now_ns))
		sw_worker_drop_egress(w, in_port, in_port, m,
				      OFAN_DROP_QUEUE_FULL);
}

/*
 * ICMP time exceeded (RFC 792) for a packet whose TTL expired here: from
 * the in-port's address (or, on a port without one, the lowest-numbered
 * port's that has one, as routers do), back out of the in-port to the
 * sender's MAC, quoting the packet's IPv4 header and its first 8 bytes
 * beyond.  A token bucket of [switch] icmp_rate replies per second (burst
 * SW_ICMP_BURST) per forwarding lcore limits them; nothing answers an ICMP
 * error (RFC 1122).  What gets no reply is counted (icmp_limited).
 */
#define SW_ICMP_BURST 50
#define SW_ICMP_QUOTE 8
#define SW_ICMP_HDR_SIZE 8
#define SW_ICMP_TIME_EXCEEDED 11

static bool
sw_icmp_token(struct sw_worker *w, uint64_t now_ns)
{
	uint32_t rate = w->eng->cfg.icmp_rate;
	uint64_t add;

	if (rate == 0)
		return false;
	if (w->icmp_tokens_at == 0)
		w->icmp_tokens = SW_ICMP_BURST;
	add = (now_ns - w->icmp_tokens_at) * rate / 1000000000ull;
	if (w->icmp_tokens_at == 0 || add > 0) {
		w->icmp_tokens = (uint32_t)RTE_MIN((uint64_t)SW_ICMP_BURST,
						   w->icmp_tokens + add);
		w->icmp_tokens_at = now_ns;
	}
	if (w->icmp_tokens == 0)
		return false;
	w->icmp_tokens--;
	return true;
}

/* The address a reply from in_port comes from; 0: none configured. */
static uint32_t
sw_icmp_source(const struct sw_engine *eng, uint16_t in_port)
{
	uint16_t p;

	if (eng->cfg.ports[in_port].ip != 0)
		return eng->cfg.ports[in_port].ip;
	for (p = 0; p < eng->cfg.nb_ports; p++)
		if (eng->cfg.ports[p].ip != 0)
			return eng->cfg.ports[p].ip;
	return 0;
}

/* An ICMP error itself (destination unreachable ... parameter problem). */
static bool
sw_is_icmp_error(const uint8_t *f, const struct ofan_pkt_info *info,
		 uint32_t len)
{
	uint8_t type;

	if (info->proto != OFAN_IPPROTO_ICMP || info->l4_offset >= len)
		return false;
	type = f[info->l4_offset];
	return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

static void
sw_worker_time_exceeded(struct sw_worker *w, uint16_t in_port,
			const struct rte_mbuf *m, uint64_t now_ns)
{
	struct sw_engine *eng = w->eng;
	struct sw_port_stats *st = &w->port_st[in_port];
	uint32_t src = sw_icmp_source(eng, in_port), len, quote, l3;
	struct ofan_pkt_info info;
	struct ofan_ipv4_hdr *ip;
	struct rte_mbuf *r;
	const uint8_t *f;
	uint8_t *p, *icmp;
	uint16_t sum;

	len = rte_pktmbuf_data_len(m);
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	if (m->nb_segs != 1 || src == 0 ||
	    ofan_parse(f, len, OFAN_PARSE_F_NO_TTL_CHECK, &info) !=
	    OFAN_PARSE_OK || info.kind == OFAN_KIND_ARP ||
	    sw_is_icmp_error(f, &info, len) || !sw_icmp_token(w, now_ns)) {
		st->icmp_limited++;
		return;
	}
	l3 = info.l3_offset;
	quote = RTE_MIN((uint32_t)(info.l4_offset - l3) + SW_ICMP_QUOTE,
			(uint32_t)info.ip_total_length);
	r = rte_pktmbuf_alloc(m->pool);
	if (r == NULL) {
		st->icmp_limited++;
		return;
	}
	p = (uint8_t *)rte_pktmbuf_append(r, (uint16_t)(l3 +
		OFAN_IPV4_HDR_SIZE + SW_ICMP_HDR_SIZE + quote));
	if (p == NULL) {
		rte_pktmbuf_free(r);
		st->icmp_limited++;
		return;
	}
	/* Ethernet (and VLAN tag) back to the sender. */
	memcpy(p, f + 6, 6);
	memcpy(p + 6, eng->port[in_port].mac, 6);
	memcpy(p + 12, f + 12, l3 - 12);
	ip = (struct ofan_ipv4_hdr *)(p + l3);
	memset(ip, 0, OFAN_IPV4_HDR_SIZE);
	ip->version_ihl = 0x45;
	ip->tos = 0xc0;		/* internetwork control, not ECN-capable */
	ip->total_length = rte_cpu_to_be_16((uint16_t)(OFAN_IPV4_HDR_SIZE +
						       SW_ICMP_HDR_SIZE + quote));
	ip->ttl = 64;
	ip->proto = OFAN_IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(info.src_ip);
	ip->checksum = ofan_ipv4_checksum(ip, OFAN_IPV4_HDR_SIZE);
	icmp = (uint8_t *)(ip + 1);
	memset(icmp, 0, SW_ICMP_HDR_SIZE);
	icmp[0] = SW_ICMP_TIME_EXCEEDED;	/* code 0: TTL exceeded in transit */
	memcpy(icmp + SW_ICMP_HDR_SIZE, f + l3, quote);
	sum = (uint16_t)~rte_raw_cksum(icmp, SW_ICMP_HDR_SIZE + quote);
	memcpy(icmp + 2, &sum, 2);
	if (!sw_worker_out(w, in_port, r, (uint16_t)l3, now_ns)) {
		rte_pktmbuf_free(r);
		st->icmp_limited++;
		return;
	}
	st->icmp_sent++;
}

/*
 * Parse a frame chained over several mbufs (jumbo frames from PMDs with
 * small buffers).  Every header the parser reads lies within the first
 * SW_PARSE_HDR_SIZE bytes (VLAN + a 60-byte IPv4 header + UDP + BTH + ACK
 * extension < 128), so those are copied out and the lengths are checked
 * against the whole frame.  The rewrite stage writes the Ethernet and IPv4
 * headers in place, so they must lie in the first segment, as must an
 * ARP body (answered in place) and a pause's (read in place): a MAC
 * control frame whose body does not is mac_control_malformed, not
 * ip_truncated.
 */
#define SW_PARSE_HDR_SIZE 128

static int
sw_parse_chained(const struct rte_mbuf *m, unsigned int flags,
		 struct ofan_pkt_info *info)
{
	uint8_t hdr[SW_PARSE_HDR_SIZE] = { 0 };
	uint32_t n = RTE_MIN(m->pkt_len, (uint32_t)SW_PARSE_HDR_SIZE);
	const uint8_t *p = rte_pktmbuf_read(m, 0, n, hdr);
	int v;

	if (p == NULL)
		return OFAN_DROP_RUNT;
	if (p != hdr)
		memcpy(hdr, p, n);
	v = ofan_parse(hdr, m->pkt_len, flags, info);
	if (v != OFAN_PARSE_OK)
		return v;
	if (info->kind == OFAN_KIND_ARP)
		return rte_pktmbuf_data_len(m) < info->l3_offset +
			sizeof(struct ofan_arp) ? OFAN_DROP_ARP_MALFORMED : v;
	/* A pause's body is read in place too (sw_pfc_rx). */
	if (info->kind == OFAN_KIND_PAUSE)
		return rte_pktmbuf_data_len(m) < info->l3_offset +
			((hdr[info->l3_offset] << 8 | hdr[info->l3_offset + 1]) ==
			 OFAN_MAC_CTRL_OP_PFC ? OFAN_PFC_BODY_SIZE :
			 OFAN_PAUSE_BODY_SIZE) ?
			OFAN_DROP_MAC_CTRL_MALFORMED : v;
	return rte_pktmbuf_data_len(m) < info->l3_offset + OFAN_IPV4_HDR_SIZE ?
		OFAN_DROP_IP_TRUNCATED : v;
}

/* Rewrite for the egress port: MACs, TTL - 1, incremental checksum. */
static inline void
sw_rewrite(struct rte_mbuf *m, uint16_t l3_offset,
	   const struct sw_port_state *ps)
{
	struct ofan_eth_hdr *eth = rte_pktmbuf_mtod(m, struct ofan_eth_hdr *);
	struct ofan_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct ofan_ipv4_hdr *, l3_offset);
	uint32_t sum;

	memcpy(eth, ps->eth_addrs, sizeof(ps->eth_addrs));
	ip->ttl--;
	/* RFC 1624: the TTL is the high byte of its 16-bit word. */
	sum = (uint32_t)ip->checksum + rte_cpu_to_be_16(0x0100);
	ip->checksum = (uint16_t)(sum + (sum >> 16));
}

/* What a policy may read of the worker's egress ports. */
static inline struct lb_view
sw_worker_view(const struct sw_worker *w)
{
	return (struct lb_view){
		.port_level = w->port_level,
		.levels = &w->eng->cfg.levels,
		.port_len = w->port_len,
		.port_cap = w->port_cap,
		.port_bytes = w->port_bytes,
		.port_cap_bytes = w->port_cap_bytes,
	};
}

/* A frame's length as a policy reads it (lb_pkt.len: at most 65535). */
static inline uint16_t
sw_len16(const struct rte_mbuf *m)
{
	return m->pkt_len > UINT16_MAX ? UINT16_MAX : (uint16_t)m->pkt_len;
}

/* What the policy reads of a frame of kind with route index hop. */
static inline void
sw_worker_meta(struct sw_worker *w, const struct sw_engine *eng,
	       struct lb_pkt *meta, const struct rte_mbuf *m, uint32_t hop,
	       uint8_t kind, uint32_t flow_hash)
{
	meta->flow_hash = flow_hash;
	meta->kind = kind == OFAN_KIND_ACK ? LB_KIND_ACK : LB_KIND_DATA;
	meta->grp = &w->groups[eng->route_group[hop]];
	meta->dst_key = eng->route_key[hop];
	meta->len = sw_len16(m);
}

#ifndef NDEBUG
/*
 * Debug builds: every pick keeps pick()'s contract (lb.h), a live member
 * of the packet's group, or LB_NONE when and only when the group has
 * none.  A policy that breaks it stops the switch here, by name, instead
 * of sending packets down a dead path or dropping them as bad_pick.
 */
static void
sw_worker_check_picks(const struct sw_engine *eng, const struct lb_pkt *meta,
		      const uint16_t *pick, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct lb_group *g = meta[i].grp;
		bool ok = pick[i] == LB_NONE ? g->nb_live == 0 :
			pick[i] < g->nb_members && g->weight[pick[i]] > 0;

		if (!ok)
			rte_panic("policy %s picked member %u for packet %u of %u; group %u has %u members, %u live\n",
				  eng->cfg.policy->name, pick[i], i, n, g->id,
				  g->nb_members, g->nb_live);
	}
}
#else
/* Release builds check nothing here: sw_worker_forward() drops bad picks. */
static inline void
sw_worker_check_picks(const struct sw_engine *eng, const struct lb_pkt *meta,
		      const uint16_t *pick, uint16_t n)
{
}
#endif

/* After a frame was queued on port: the engine's view of the port. */
static inline void
sw_worker_note_queued(struct sw_worker *w, const struct sw_engine *eng,
		      uint16_t port, bool levels_needed, uint64_t now_ns)
{
	struct sw_queue *q = &w->queue[port];

	sw_worker_queued(q, now_ns);
	w->touched |= SW_PORT_BIT(port);
	w->port_len[port] = sw_queue_len(q);
	w->port_bytes[port] = q->bytes;
	if (levels_needed)
		w->port_level[port] = sw_queue_level(q, &eng->cfg.levels);
}

/*
 * Return to sender (architecture.md, "Trimming"): a trimmed header m goes back
 * to its sender, its addresses swapped and marked returned, routed by
 * its new destination through the FIB (the port it came in on is not
 * known for a queued frame that was trimmed in another's place), to a
 * live member of the route's group chosen by its EV; the switches on the
 * way route it on.  The IPv4 checksum does not change (a swap keeps the
 * sum), nor the TTL (this hop was counted).  In the port's control queue
 * when it trims, else its data queue or direct output.
 */
static void
sw_worker_return(struct sw_worker *w, const struct sw_engine *eng,
		 uint16_t in_port, struct rte_mbuf *m, bool levels_needed,
		 uint64_t now_ns)
{
	struct ofan_pkt_info pi;
	struct ofan_ipv4_hdr *ip;
	const struct lb_group *g;
	struct rte_mbuf *other;
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t a, hop, k;
	uint16_t port = 0, i;
	enum sw_enq_result r;

	if (ofan_parse(f, rte_pktmbuf_data_len(m), OFAN_PARSE_F_NO_TTL_CHECK,
		       &pi) != OFAN_PARSE_OK || pi.kind != OFAN_KIND_DATA ||
	    rte_lpm_lookup(eng->fib, pi.src_ip, &hop) != 0 ||
	    hop >= SW_ROUTE_LOCAL) {
		sw_worker_drop(w, in_port, m, OFAN_DROP_NO_ROUTE);
		return;
	}
	g = &w->groups[eng->route_group[hop]];
	if (g->nb_live == 0) {
		sw_worker_drop(w, in_port, m, OFAN_DROP_NO_MEMBER);
		return;
	}
	k = pi.src_port % g->nb_live;
	for (i = 0; i < g->nb_members; i++)
		if (g->weight[i] > 0 && k-- == 0) {
			port = g->port[i];
			break;
		}
	ip = (struct ofan_ipv4_hdr *)(f + pi.l3_offset);
	a = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = a;
	f[pi.l4_offset + OFAN_UDP_HDR_SIZE + OFAN_BTH_MARK_OFFSET] |=
		OFAN_BTH_MARK_RETURNED;
	memcpy(f, eng->port[port].eth_addrs, sizeof(eng->port[port].eth_addrs));
	w->port_st[port].headers_returned++;
	if (sw_worker_is_direct(w, port)) {
		sw_direct_add(w, port, m);
		return;
	}
	r = sw_queue_trims(&w->queue[port]) ?
		sw_queue_enqueue_ctl(&w->queue[port], m, OFAN_KIND_DATA,
				     pi.l3_offset, false, &w->rng, &other) :
		(sw_queue_enqueue(&w->queue[port], m, OFAN_KIND_DATA,
				  pi.l3_offset, false, &w->rng) ?
		 SW_ENQ_QUEUED : SW_ENQ_DROPPED);
	if (r == SW_ENQ_QUEUED) {
		sw_worker_note_queued(w, eng, port, levels_needed, now_ns);
		return;
	}
	/* A returned header is never returned twice: it is dropped. */
	sw_worker_drop_egress(w, in_port, port, m, r == SW_ENQ_DROPPED ?
			      OFAN_DROP_QUEUE_FULL : OFAN_DROP_CTRL_FULL);
}

/*
 * The enqueue of a trimming port (sw_queue_enqueue_ctl): queued, a
 * frame dropped (the arriving one or the victim that was trimmed in its
 * place) under its reason, or a trimmed header returned to its sender.
 */
static void
sw_worker_forward_ctl(struct sw_worker *w, const struct sw_engine *eng,
		      uint16_t in_port, uint16_t port, struct rte_mbuf *m,
		      uint16_t l3, uint8_t kind, bool ect, bool levels_needed,
		      uint64_t now_ns)
{
	struct rte_mbuf *other;
	enum sw_enq_result r = sw_queue_enqueue_ctl(&w->queue[port], m, kind,
						    l3, ect, &w->rng, &other);

	if (r == SW_ENQ_QUEUED || other != m)
		sw_worker_note_queued(w, eng, port, levels_needed, now_ns);
	switch (r) {
	case SW_ENQ_QUEUED:
		return;
	case SW_ENQ_RETURN:
		/* It leaves this port's books here: picked for it, neither
		 * sent, dropped nor queued by it. */
		w->port_st[port].headers_turned++;
		sw_worker_return(w, eng, in_port, other, levels_needed, now_ns);
		return;
	default:
		sw_worker_drop_egress(w, in_port, port, other,
				      r == SW_ENQ_DROPPED ?
				      OFAN_DROP_QUEUE_FULL : OFAN_DROP_CTRL_FULL);
	}
}

/*
 * The last stage for one frame the policy picked for: rewrite it for its
 * port and queue it there, or collect it for the port's direct output
 * (direct: w->direct_now, read once per burst by the caller).
 */
static inline void
sw_worker_forward(struct sw_worker *w, const struct sw_engine *eng,
		  uint16_t in_port, struct rte_mbuf *m,
		  const struct lb_pkt *meta, uint16_t pick, uint16_t l3,
		  uint8_t kind, bool ect, sw_portmask direct, bool levels_needed,
		  uint64_t now_ns)
{
	struct sw_queue *q;
	uint16_t port;

	/*
	 * One compare catches both picks that name no member: LB_NONE (no
	 * live member) and, from a faulty policy, an index past the group's
	 * members, whose port would be read from beyond them.
	 */
	if (unlikely(pick >= meta->grp->nb_members)) {
		sw_worker_drop(w, in_port, m, pick == LB_NONE ?
			       OFAN_DROP_NO_MEMBER : OFAN_DROP_BAD_PICK);
		return;
	}
	port = meta->grp->port[pick];
	w->picks[port]++;
	if (unlikely(w->loss_mask >> port & 1) &&
	    ofan_loss_hit(&w->loss[port], now_ns)) {
		sw_worker_drop_egress(w, in_port, port, m, OFAN_DROP_INJECTED);
		return;
	}
	sw_rewrite(m, l3, &eng->port[port]);
	if (direct >> port & 1) {
		/* A stalled port sends nothing, and there is no queue to
		 * hold its frames: the device would refuse them. */
		if (unlikely(eng->port[port].link == SW_LINK_STALL)) {
			sw_worker_drop_egress(w, in_port, port, m,
					      OFAN_DROP_TX_FULL);
			return;
		}
		sw_direct_add(w, port, m);
		return;
	}
	q = &w->queue[port];
	if (unlikely(sw_queue_trims(q))) {
		sw_worker_forward_ctl(w, eng, in_port, port, m, l3, kind, ect,
				      levels_needed, now_ns);
		return;
	}
	if (unlikely(w->pfc_in_mask >> in_port & 1) &&
	    sw_pfc_over(w, in_port, m->pkt_len)) {
		sw_worker_drop_egress(w, in_port, port, m,
				      OFAN_DROP_PFC_HEADROOM);
		return;
	}
	if (unlikely(!sw_queue_enqueue(q, m, kind, l3, ect, &w->rng))) {
		sw_worker_drop_egress(w, in_port, port, m,
				      OFAN_DROP_QUEUE_FULL);
		return;
	}
	if (unlikely(w->pfc_in_mask >> in_port & 1) && q->in_ring != NULL)
		sw_pfc_queued(w, in_port, q, now_ns);
	sw_worker_note_queued(w, eng, port, levels_needed, now_ns);
}

void
sw_worker_input_scalar(struct sw_worker *w, uint16_t in_port,
		       struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns)
{
	struct sw_engine *eng = w->eng;
	struct ofan_pkt_info info;
	struct lb_pkt meta[SW_MAX_BURST];
	struct rte_mbuf *fwd[SW_MAX_BURST];
	uint16_t l3[SW_MAX_BURST];
	uint8_t ect[SW_MAX_BURST];
	uint8_t fkind[SW_MAX_BURST];	/* data, ACK or other (frame model) */
	uint16_t pick[SW_MAX_BURST];
	uint64_t rx_bytes = 0;
	const struct lb_view view = sw_worker_view(w);
	struct sw_port_stats *rx_st = &w->port_st[in_port];
	const bool hash_needed = eng->cfg.policy->uses_flow_hash;
	const bool ev_key = eng->cfg.policy->flow_key_ev;
	const bool levels_needed = eng->cfg.policy->uses_queue_levels;
	const bool fast_parse = eng->parse_flags == 0;
	uint16_t i, k = 0;

	w->touched = 0;
	w->direct_now = 0;
	sw_worker_sync(w);
	if (n > SW_MAX_BURST)
		n = SW_MAX_BURST;	/* callers never pass more */
	if (unlikely(eng->port[in_port].link == SW_LINK_DOWN ||
		     eng->port[in_port].link == SW_LINK_BLACKHOLE)) {
		enum ofan_drop why = eng->port[in_port].link == SW_LINK_DOWN ?
			OFAN_DROP_LINK_DOWN : OFAN_DROP_BLACKHOLE;

		for (i = 0; i < n; i++) {
			rx_st->rx_pkts++;
			rx_st->rx_bytes += pkts[i]->pkt_len;
			sw_worker_drop(w, in_port, pkts[i], why);
		}
		return;
	}

	/*
	 * One pass: parse, answer ARP, look the route up, and collect what
	 * the policy needs; everything else is dropped under its reason.
	 */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t hop;
		int v;

		rx_bytes += m->pkt_len;
		if (likely(m->nb_segs == 1)) {
			const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
			uint32_t len = rte_pktmbuf_data_len(m);

			v = fast_parse && sw_parse_fast(f, len, &info) ?
				OFAN_PARSE_OK :
				ofan_parse(f, len, eng->parse_flags, &info);
		} else {
			v = sw_parse_chained(m, eng->parse_flags, &info);
		}
		if (unlikely(v != OFAN_PARSE_OK)) {
			if (v == OFAN_DROP_TTL_EXPIRED)
				sw_worker_time_exceeded(w, in_port, m, now_ns);
			sw_worker_drop(w, in_port, m, (enum ofan_drop)v);
			continue;
		}
		if (unlikely(info.kind == OFAN_KIND_ARP)) {
			sw_worker_arp(w, in_port, m, &info, now_ns);
			continue;
		}
		if (unlikely(info.kind == OFAN_KIND_PAUSE)) {
			sw_pfc_rx(w, in_port, m, &info, now_ns);
			continue;
		}
		if (unlikely(rte_lpm_lookup(eng->fib, info.dst_ip, &hop) != 0)) {
			sw_worker_drop(w, in_port, m, OFAN_DROP_NO_ROUTE);
			continue;
		}
		if (unlikely(hop == SW_ROUTE_LOCAL)) {
			sw_worker_drop(w, in_port, m, OFAN_DROP_NOT_FOR_US);
			continue;
		}
		fwd[k] = m;
		l3[k] = info.l3_offset;
		ect[k] = (info.tos & OFAN_ECN_MASK) != OFAN_ECN_NOT_ECT;
		fkind[k] = info.kind;
		sw_worker_meta(w, eng, &meta[k], m, hop, info.kind,
			       ev_key ? info.src_port : hash_needed ?
			       ofan_hash_5tuple(w->hash_seed, info.src_ip,
						info.dst_ip, info.src_port,
						info.dst_port, info.proto) : 0);
		k++;
	}
	rx_st->rx_pkts += n;
	rx_st->rx_bytes += rx_bytes;
	if (k == 0)
		return;
	n = k;

	/* The one pluggable stage. */
	eng->cfg.policy->pick(w->lb_state, meta, n, &view, now_ns, pick);
	sw_worker_check_picks(eng, meta, pick, n);

	/* Rewrite and enqueue. */
	for (i = 0; i < n; i++)
		sw_worker_forward(w, eng, in_port, fwd[i], &meta[i], pick[i], l3[i],
				  fkind[i], ect[i], 0, levels_needed, now_ns);
}

/* Frames ahead of the one being parsed whose headers are fetched. */
#define SW_PREFETCH_AHEAD 4

/*
 * The slow path of the burst input for one frame the fast parse did not
 * take: the full parser with its named drop reasons, TTL expiry and ARP.
 * Returns true if the frame is to be routed (info filled).
 */
static bool
sw_worker_parse_slow(struct sw_worker *w, uint16_t in_port,
		     struct rte_mbuf *m, struct ofan_pkt_info *info,
		     uint64_t now_ns)
{
	const unsigned int flags = w->eng->parse_flags;
	int v;

	if (likely(m->nb_segs == 1))
		v = ofan_parse(rte_pktmbuf_mtod(m, const uint8_t *),
			       rte_pktmbuf_data_len(m), flags, info);
	else
		v = sw_parse_chained(m, flags, info);
	if (unlikely(v != OFAN_PARSE_OK)) {
		if (v == OFAN_DROP_TTL_EXPIRED)
			sw_worker_time_exceeded(w, in_port, m, now_ns);
		sw_worker_drop(w, in_port, m, (enum ofan_drop)v);
		return false;
	}
	if (unlikely(info->kind == OFAN_KIND_ARP)) {
		sw_worker_arp(w, in_port, m, info, now_ns);
		return false;
	}
	if (unlikely(info->kind == OFAN_KIND_PAUSE)) {
		sw_pfc_rx(w, in_port, m, info, now_ns);
		return false;
	}
	return true;
}

/*
 * What forward reads of a routed frame besides its metadata: its l3
 * offset (Ethernet and at most one VLAN tag), its kind (the frame
 * model's: data, ACK or other) and its TOS byte (whether it is
 * ECN-capable), one array each.
 */
struct sw_fwd_info {
	uint8_t l3[SW_MAX_BURST];
	uint8_t kind[SW_MAX_BURST];
	uint8_t tos[SW_MAX_BURST];
};

static __rte_always_inline void
sw_fwd_info_set(struct sw_fwd_info *fi, uint16_t c,
		const struct ofan_pkt_info *info)
{
	fi->l3[c] = (uint8_t)info->l3_offset;
	fi->kind[c] = info->kind;
	fi->tos[c] = info->tos;
}

/* Whether frame i of the burst is ECN-capable. */
static __rte_always_inline bool
sw_fwd_info_ect(const struct sw_fwd_info *fi, uint16_t i)
{
	return (fi->tos[i] & OFAN_ECN_MASK) != OFAN_ECN_NOT_ECT;
}

/*
 * Rewrite frame i of the burst for port and queue it there: a port with
 * a queue that does not trim, no loss injected, and an input that is
 * not a lossless (PFC) port -- what sw_worker_forward() does for it.
 */
static __rte_always_inline void
sw_worker_enqueue(struct sw_worker *w, const struct sw_engine *eng,
		  uint16_t in_port, uint16_t port, struct rte_mbuf *m,
		  const struct sw_fwd_info *fi, uint16_t i, bool levels_needed,
		  uint64_t now_ns)
{
	w->picks[port]++;
	sw_rewrite(m, fi->l3[i], &eng->port[port]);
	if (unlikely(!sw_queue_enqueue(&w->queue[port], m, fi->kind[i],
				       fi->l3[i], sw_fwd_info_ect(fi, i),
				       &w->rng))) {
		sw_worker_drop_egress(w, in_port, port, m,
				      OFAN_DROP_QUEUE_FULL);
		return;
	}
	sw_worker_note_queued(w, eng, port, levels_needed, now_ns);
}

/* The rest of the forward stage, for what the fast paths are not. */
static __rte_noinline void
sw_worker_forward_slow(struct sw_worker *w, const struct sw_engine *eng,
		       uint16_t in_port, struct rte_mbuf *m,
		       const struct lb_pkt *meta, uint16_t pick,
		       const struct sw_fwd_info *fi, uint16_t i,
		       sw_portmask direct, bool levels_needed, uint64_t now_ns)
{
	sw_worker_forward(w, eng, in_port, m, meta, pick, fi->l3[i],
			  fi->kind[i], sw_fwd_info_ect(fi, i), direct,
			  levels_needed, now_ns);
}

/* The flow key a policy reads, one copy of the burst path each. */
enum sw_key {
	SW_KEY_NONE,		/* the policy reads no flow key */
	SW_KEY_EV,		/* the EV (lb_ops.flow_key_ev) */
	SW_KEY_HASH,		/* the hash, where the group has a choice
				 * (lb_ops.flow_hash_where_choice) */
	SW_KEY_HASH_ALWAYS,	/* the hash of every frame */
};

static inline enum sw_key
sw_key_of(const struct lb_ops *policy)
{
	if (policy->flow_key_ev)
		return SW_KEY_EV;
	if (!policy->uses_flow_hash)
		return SW_KEY_NONE;
	return policy->flow_hash_where_choice ? SW_KEY_HASH :
		SW_KEY_HASH_ALWAYS;
}

/*
 * Route one parsed frame: its FIB entry, and what the policy reads of it
 * into *mt.  False if it was dropped (no route, or for the switch).  The
 * flow hash is computed here, after the FIB, and only where the policy
 * reads it: for every frame, or, for a policy that reads it only where
 * there is a choice (lb_ops.flow_hash_where_choice), for a group with
 * more than one live member.
 */
static __rte_always_inline bool
sw_worker_route(struct sw_worker *w, const struct sw_engine *eng,
		uint16_t in_port, struct rte_mbuf *m,
		const struct ofan_pkt_info *info, uint16_t len,
		const enum sw_key key, struct lb_pkt *mt)
{
	const struct lb_group *g;
	uint32_t hop;

	if (unlikely(rte_lpm_lookup(eng->fib, info->dst_ip, &hop) != 0)) {
		sw_worker_drop(w, in_port, m, OFAN_DROP_NO_ROUTE);
		return false;
	}
	if (unlikely(hop == SW_ROUTE_LOCAL)) {
		sw_worker_drop(w, in_port, m, OFAN_DROP_NOT_FOR_US);
		return false;
	}
	g = &w->groups[eng->route_group[hop]];
	mt->grp = g;
	mt->dst_key = eng->route_key[hop];
	mt->len = len;
	mt->kind = info->kind == OFAN_KIND_ACK ? LB_KIND_ACK : LB_KIND_DATA;
	if (key == SW_KEY_EV)
		mt->flow_hash = info->src_port;
	else if (key == SW_KEY_HASH_ALWAYS ||
		 (key == SW_KEY_HASH && g->nb_live > 1))
		mt->flow_hash = ofan_hash_5tuple(w->hash_seed, info->src_ip,
						 info->dst_ip, info->src_port,
						 info->dst_port, info->proto);
	else
		mt->flow_hash = 0;
	return true;
}


/*
 * Frames of a burst collected in line for one direct port, held in
 * registers while consecutive frames go to the same port (the usual
 * case): the port's direct output, its count and bytes, and the picks.
 */
struct sw_run {
	uint16_t port;		/* UINT16_MAX: none */
	uint16_t n;		/* the output's frames, the run's included */
	uint16_t n0;		/* its frames when the run began */
	uint32_t bytes;
	struct sw_direct *d;
};

static __rte_always_inline void
sw_run_begin(struct sw_worker *w, struct sw_run *r, uint16_t port)
{
	r->port = port;
	r->d = &w->direct[port];
	r->n = r->d->n;
	r->bytes = r->d->bytes;
	r->n0 = r->n;
}

/* Write the run back to its port's direct output and counters. */
static __rte_always_inline void
sw_run_end(struct sw_worker *w, struct sw_run *r)
{
	if (r->port == UINT16_MAX)
		return;
	w->picks[r->port] += (uint16_t)(r->n - r->n0);
	r->d->n = r->n;
	r->d->bytes = r->bytes;
	r->port = UINT16_MAX;
}

/*
 * The burst path (see sw_worker_input_scalar() for the same pipeline
 * with every stage a function of its own): one pass parses each frame,
 * looks its route up and fills what the policy reads; the policy picks
 * for the whole burst; a second pass rewrites each frame and, where its
 * port sends directly without injected loss or a stall, collects it in
 * line for the device, or, where its port has a queue that does not
 * trim, no injected loss and the input is not a lossless one, queues it
 * in line.  The rest (loss, PFC, trimming, stalls, bad picks) takes
 * sw_worker_forward().  What it sends, drops and counts, and
 * in which order, is the scalar path's: frames the switch answers (ARP,
 * ICMP) leave in the first pass, forwarded ones after the pick, each
 * group in arrival order.
 */
static __rte_always_inline void
sw_worker_burst(struct sw_worker *w, uint16_t in_port,
		struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns,
		const enum sw_key key)
{
	struct sw_engine *eng = w->eng;
	const struct lb_ops *policy = eng->cfg.policy;
	struct rte_mbuf *fwd[SW_MAX_BURST];
	struct lb_pkt meta[SW_MAX_BURST];
	struct sw_fwd_info fi;
	uint16_t pick[SW_MAX_BURST];
	uint64_t rx_bytes = 0;
	struct sw_port_stats *rx_st = &w->port_st[in_port];
	const bool levels_needed = policy->uses_queue_levels;
	/* Frames of this many segments take the fast parse: 1, or none
	 * (nb_segs is never 0) when the parse has flags (checksums). */
	const uint16_t fast_segs = eng->parse_flags == 0 ? 1 : 0;
	struct sw_run run = { .port = UINT16_MAX };
	sw_portmask direct, fast, queued, added = 0;
	uint16_t i, c = 0;

	/*
	 * Parse (the common frame inline), route, and what the policy reads.
	 * A frame's headers are fetched SW_PREFETCH_AHEAD frames ahead.
	 */
	for (i = 0; i < RTE_MIN(n, (uint16_t)SW_PREFETCH_AHEAD); i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct ofan_pkt_info pi, si;
		const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
		const uint16_t len = rte_pktmbuf_data_len(m);

		if (likely(i + SW_PREFETCH_AHEAD < n))
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + SW_PREFETCH_AHEAD],
						       void *));
		rx_bytes += m->pkt_len;
		/* One segment: the frame's length is its segment's. */
		if (likely(m->nb_segs == fast_segs &&
			   sw_parse_fast(f, len, &pi))) {
			if (!sw_worker_route(w, eng, in_port, m, &pi, len, key,
					     &meta[c]))
				continue;
			sw_fwd_info_set(&fi, c, &pi);
		} else {
			if (!sw_worker_parse_slow(w, in_port, m, &si, now_ns) ||
			    !sw_worker_route(w, eng, in_port, m, &si,
					     sw_len16(m), key, &meta[c]))
				continue;
			sw_fwd_info_set(&fi, c, &si);
		}
		fwd[c++] = m;
	}
	rx_st->rx_pkts += n;
	rx_st->rx_bytes += rx_bytes;

	if (c != 0) {
		const struct lb_view view = sw_worker_view(w);

		policy->pick(w->lb_state, meta, c, &view, now_ns, pick);
		sw_worker_check_picks(eng, meta, pick, c);
	}

	/*
	 * Rewrite, then collect for the device or queue in line where
	 * nothing else applies; sw_worker_forward() for the rest.
	 */
	direct = w->direct_now;
	fast = direct & ~__atomic_load_n(&eng->stalled, __ATOMIC_ACQUIRE) &
		~w->loss_mask;
	/* Queued ports without loss, from an input PFC does not watch. */
	queued = w->pfc_in_mask >> in_port & 1 ? 0 : ~direct & ~w->loss_mask;
	for (i = 0; i < c; i++) {
		struct rte_mbuf *m = fwd[i];
		const struct lb_group *g = meta[i].grp;
		const uint16_t p = pick[i];
		uint16_t port;

		if (likely(p < g->nb_members)) {
			port = g->port[p];
			if (likely(fast >> port & 1)) {
				sw_rewrite(m, fi.l3[i], &eng->port[port]);
				if (unlikely(port != run.port)) {
					sw_run_end(w, &run);
					sw_run_begin(w, &run, port);
					added |= SW_PORT_BIT(port);
				}
				run.d->pkts[run.n++] = m;
				run.bytes += m->pkt_len;
				if (unlikely(run.n == SW_DIRECT_BURST)) {
					sw_run_end(w, &run);
					sw_direct_flush(w, port);
					sw_run_begin(w, &run, port);
				}
				continue;
			}
			if (likely(queued >> port & 1) &&
			    !sw_queue_trims(&w->queue[port])) {
				sw_worker_enqueue(w, eng, in_port, port, m, &fi,
						  i, levels_needed, now_ns);
				continue;
			}
		}
		sw_run_end(w, &run);
		sw_worker_forward_slow(w, eng, in_port, m, &meta[i], p, &fi, i,
				       direct, levels_needed, now_ns);
	}
	sw_run_end(w, &run);
	w->direct_mask |= added;
	while (w->direct_mask != 0)
		sw_direct_flush(w, (uint16_t)rte_bsf64(w->direct_mask));
}

void
sw_worker_input(struct sw_worker *w, uint16_t in_port,
		struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns)
{
	struct sw_engine *eng = w->eng;

	w->touched = 0;
	w->direct_now = w->tx_fn != NULL ? w->unqueued_mask : 0;
	sw_worker_sync(w);
	if (n > SW_MAX_BURST)
		n = SW_MAX_BURST;	/* callers never pass more */
	if (unlikely(eng->port[in_port].link == SW_LINK_DOWN ||
		     eng->port[in_port].link == SW_LINK_BLACKHOLE)) {
		sw_worker_input_scalar(w, in_port, pkts, n, now_ns);
		return;
	}
	/* One copy of the burst path per kind of flow key: no test of the
	 * policy's flags per packet. */
	switch (sw_key_of(eng->cfg.policy)) {
	case SW_KEY_NONE:
		sw_worker_burst(w, in_port, pkts, n, now_ns, SW_KEY_NONE);
		break;
	case SW_KEY_EV:
		sw_worker_burst(w, in_port, pkts, n, now_ns, SW_KEY_EV);
		break;
	case SW_KEY_HASH:
		sw_worker_burst(w, in_port, pkts, n, now_ns, SW_KEY_HASH);
		break;
	default:
		sw_worker_burst(w, in_port, pkts, n, now_ns,
				SW_KEY_HASH_ALWAYS);
		break;
	}
}
