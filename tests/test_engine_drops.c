/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine: parser and pipeline drops (every named reason, ICMP time
 * exceeded, checksums, no live member, a policy picking a bad member) and
 * ARP.
 * (fixtures and helpers: engine_t.h, test_engine.c).
 */
#include "engine_t.h"

/* ==== 4. parser and pipeline drops ==== */


/* A valid data frame to leaf 1 with a 32-byte payload; returns its size. */
uint32_t
t_base_frame(uint8_t *buf, size_t size, uint32_t dst_ip, uint8_t kind,
	     uint16_t payload)
{
	struct ofan_pkt_spec sp;

	t_spec(&sp, 0, T_HOST_IP(0), dst_ip, 5000, 1);
	sp.payload_size = payload;
	return t_build(buf, size, &sp, kind);
}

/* Append a valid frame to bad[] that the caller then breaks for why. */
static struct t_bad *
t_bad_add(struct t_bad *bad, unsigned int *n, enum ofan_drop why,
	  uint32_t dst_ip, uint8_t kind, uint16_t payload)
{
	struct t_bad *b = &bad[(*n)++];

	b->why = why;
	b->len = t_base_frame(b->frame, sizeof(b->frame), dst_ip, kind,
			      payload);
	return b;
}

/* Fill bad[] with one frame per malformation; returns how many. */
unsigned int
t_bad_frames(struct t_bad *bad)
{
	const uint32_t l3 = OFAN_ETH_HDR_SIZE;
	const uint32_t l4 = l3 + OFAN_IPV4_HDR_SIZE;
	const uint32_t leaf1 = T_LEAF_NET(1) | 1;
	unsigned int n = 0;
	struct t_bad *b;
	uint8_t mac[6];
	int len;

	/* Shorter than an Ethernet header. */
	b = t_bad_add(bad, &n, OFAN_DROP_RUNT, leaf1, LB_KIND_DATA, 32);
	b->len = 10;
	/* IPv6. */
	b = t_bad_add(bad, &n, OFAN_DROP_NOT_IPV4, leaf1, LB_KIND_DATA, 32);
	t_put16(b->frame + 12, OFAN_ETHER_TYPE_IPV6);
	memset(b->frame + l3, 0, b->len - l3);
	b->frame[l3] = 0x60;
	/* LLDP: neither IPv4 nor ARP. */
	b = t_bad_add(bad, &n, OFAN_DROP_NOT_IPV4, leaf1, LB_KIND_DATA, 32);
	t_put16(b->frame + 12, 0x88cc);
	/* An IPv6 header behind the IPv4 EtherType. */
	b = t_bad_add(bad, &n, OFAN_DROP_BAD_VERSION, leaf1, LB_KIND_DATA, 32);
	b->frame[l3] = 0x65;
	t_fix_csum(b->frame);
	/* IHL below five words. */
	b = t_bad_add(bad, &n, OFAN_DROP_BAD_IHL, leaf1, LB_KIND_DATA, 32);
	b->frame[l3] = 0x44;
	/* IHL of 60 bytes with 40 bytes after the Ethernet header. */
	b = t_bad_add(bad, &n, OFAN_DROP_BAD_IHL, leaf1, LB_KIND_DATA, 0);
	b->frame[l3] = 0x4f;
	/* Total length one byte past the frame. */
	b = t_bad_add(bad, &n, OFAN_DROP_BAD_TOTAL_LENGTH, leaf1, LB_KIND_DATA,
		      32);
	t_put16(b->frame + l3 + 2, (uint16_t)(b->len - l3 + 1));
	t_fix_csum(b->frame);
	/* Total length shorter than the header. */
	b = t_bad_add(bad, &n, OFAN_DROP_BAD_TOTAL_LENGTH, leaf1, LB_KIND_DATA,
		      32);
	t_put16(b->frame + l3 + 2, 19);
	t_fix_csum(b->frame);
	/* TTL 1: cannot be forwarded. */
	b = t_bad_add(bad, &n, OFAN_DROP_TTL_EXPIRED, leaf1, LB_KIND_DATA, 32);
	b->frame[l3 + 8] = 1;
	t_fix_csum(b->frame);
	/* IPv4 payload of 4 bytes: no room for UDP (the rest is padding). */
	b = t_bad_add(bad, &n, OFAN_DROP_UDP_TRUNCATED, leaf1, LB_KIND_DATA,
		      32);
	t_put16(b->frame + l3 + 2, OFAN_IPV4_HDR_SIZE + 4);
	t_fix_csum(b->frame);
	/* UDP length beyond the IPv4 payload. */
	b = t_bad_add(bad, &n, OFAN_DROP_UDP_TRUNCATED, leaf1, LB_KIND_DATA,
		      32);
	t_put16(b->frame + l4 + 4, 1000);
	/* RoCEv2 with 6 of the 12 BTH bytes. */
	b = t_bad_add(bad, &n, OFAN_DROP_BTH_TRUNCATED, leaf1, LB_KIND_DATA,
		      32);
	t_put16(b->frame + l3 + 2, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE + 6);
	t_put16(b->frame + l4 + 4, OFAN_UDP_HDR_SIZE + 6);
	t_fix_csum(b->frame);
	/* An ACK with its AETH but without the feedback extension. */
	b = t_bad_add(bad, &n, OFAN_DROP_ACK_TRUNCATED, leaf1, LB_KIND_ACK, 0);
	t_put16(b->frame + l3 + 2, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE +
		OFAN_BTH_SIZE + OFAN_AETH_SIZE);
	t_put16(b->frame + l4 + 4, OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE +
		OFAN_AETH_SIZE);
	t_fix_csum(b->frame);
	b->len = l4 + OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE + OFAN_AETH_SIZE;
	/* The frame ends inside the IPv4 header. */
	b = t_bad_add(bad, &n, OFAN_DROP_IP_TRUNCATED, leaf1, LB_KIND_DATA, 32);
	b->len = l3 + 10;
	/* ARP cut after 20 of its 28 bytes. */
	b = t_bad_add(bad, &n, OFAN_DROP_ARP_MALFORMED, leaf1, LB_KIND_DATA,
		      32);
	t_peer_mac(0, mac);
	len = ofan_build_arp(b->frame, sizeof(b->frame), OFAN_ARP_OP_REQUEST,
			     mac, T_HOST_IP(0), NULL, T_SWITCH_IP(0));
	ck_assert_int_eq(len, l3 + 28);
	b->len = l3 + 20;
	/* Well formed, but no route: there is no default route. */
	t_bad_add(bad, &n, OFAN_DROP_NO_ROUTE, T_IP(192, 168, 1, 1),
		  LB_KIND_DATA, 32);
	/* Well formed, but for the switch itself. */
	t_bad_add(bad, &n, OFAN_DROP_NOT_FOR_US, T_SWITCH_IP(1), LB_KIND_DATA,
		  32);
	return n;
}

START_TEST(test_drop_reasons)
{
	struct t_bad bad[32];
	struct rte_mbuf *pkts[RTE_DIM(bad)];
	uint64_t want[OFAN_DROP_MAX] = { 0 };
	unsigned int n, i, before;
	struct sw_totals t;
	struct t_switch s;
	int r;

	struct sw_config *c = t_cfg_leaf("ofan");

	c->icmp_rate = 0;	/* only drops here: test_icmp_time_exceeded */
	t_start(&s, c);
	n = t_bad_frames(bad);
	before = t_pool_used();
	for (i = 0; i < n; i++) {
		pkts[i] = t_mbuf(bad[i].frame, bad[i].len);
		want[bad[i].why]++;
	}
	sw_worker_input(s.w, 0, pkts, (uint16_t)n, 0);
	/* Every dropped mbuf went back to the pool at once. */
	ck_assert_uint_eq(t_pool_used(), before);
	ck_assert_uint_eq(t_drain_all(s.w, 0, NULL, NULL), 0);
	sw_engine_totals(s.eng, &t);
	for (r = 0; r < OFAN_DROP_MAX; r++)
		ck_assert_msg(t.drops[r] == want[r], "%s: %" PRIu64
			      " drops, expected %" PRIu64,
			      ofan_drop_name((enum ofan_drop)r), t.drops[r],
			      want[r]);
	ck_assert_uint_eq(t.port[0].rx_pkts, n);
	ck_assert_uint_eq(t.port[0].drops, n);
	for (i = 0; i < T_NB_PORTS; i++) {
		ck_assert_uint_eq(t.port[i].tx_pkts, 0);
		ck_assert_uint_eq(t.picks[i], 0);
	}
	t_stop(&s);
}
END_TEST

/* The ICMP time-exceeded reply the visitor saw (one frame). */
struct t_icmp {
	unsigned int nb;
	uint16_t port;
	uint8_t frame[T_FRAME_MAX];
	uint32_t len;
};

static void
t_icmp_out(void *arg, uint16_t port, struct rte_mbuf *m)
{
	struct t_icmp *x = arg;

	x->nb++;
	x->port = port;
	x->len = rte_pktmbuf_pkt_len(m);
	memcpy(x->frame, t_bytes(m, x->frame, sizeof(x->frame)), x->len);
}

/*
 * A packet whose TTL expires here is dropped (ttl_expired) and answered
 * with ICMP time exceeded out of its in-port: to the sender's MAC and
 * address, from the in-port's address (or the first port's that has one),
 * quoting its IPv4 header and 8 bytes, valid checksums; at most the burst
 * at once, the rest counted; none for an ICMP error or with icmp_rate 0.
 */
START_TEST(test_icmp_time_exceeded)
{
	const uint32_t l3 = OFAN_ETH_HDR_SIZE;
	uint8_t frame[256], mac[6];
	struct rte_mbuf *pkts[64];
	struct ofan_pkt_info info;
	struct t_icmp x;
	struct sw_totals t;
	struct t_switch s;
	struct sw_config *c;
	uint32_t len, i;
	uint16_t sum;
	int rate;

	len = t_base_frame(frame, sizeof(frame), T_LEAF_NET(1) | 1,
			   LB_KIND_DATA, 32);
	frame[l3 + 8] = 1;
	t_fix_csum(frame);
	for (rate = 0; rate <= 1; rate++) {
		c = t_cfg_leaf("ecmp");
		c->icmp_rate = rate ? 1000 : 0;
		t_start(&s, c);
		pkts[0] = t_mbuf(frame, len);
		sw_worker_input(s.w, 0, pkts, 1, 1000);
		memset(&x, 0, sizeof(x));
		t_drain_all(s.w, 1000, t_icmp_out, &x);
		sw_engine_totals(s.eng, &t);
		ck_assert_uint_eq(t.drops[OFAN_DROP_TTL_EXPIRED], 1);
		ck_assert_uint_eq(x.nb, (unsigned int)rate);
		ck_assert_uint_eq(t.port[0].icmp_sent, (uint64_t)rate);
		ck_assert_uint_eq(t.port[0].icmp_limited, (uint64_t)!rate);
		if (rate)
			break;
		t_stop(&s);
	}
	/* The reply, byte by byte. */
	ck_assert_uint_eq(x.port, 0);
	ck_assert_int_eq(ofan_parse(x.frame, x.len, OFAN_PARSE_F_VERIFY_CSUM,
				    &info), OFAN_PARSE_OK);
	t_peer_mac(0, mac);
	ck_assert(memcmp(x.frame, mac, 6) == 0);
	t_port_mac(0, mac);
	ck_assert(memcmp(x.frame + 6, mac, 6) == 0);
	ck_assert_uint_eq(info.proto, OFAN_IPPROTO_ICMP);
	ck_assert_uint_eq(info.src_ip, T_SWITCH_IP(0));
	ck_assert_uint_eq(info.dst_ip, T_HOST_IP(0));
	ck_assert_uint_eq(info.ttl, 64);
	ck_assert_uint_eq(x.len, l3 + 20 + 8 + 20 + 8);
	ck_assert_uint_eq(x.frame[l3 + 20], 11);	/* time exceeded */
	ck_assert_uint_eq(x.frame[l3 + 21], 0);	/* in transit */
	ck_assert(memcmp(x.frame + l3 + 28, frame + l3, 28) == 0);
	sum = (uint16_t)~rte_raw_cksum(x.frame + l3 + 20, 8 + 28);
	ck_assert_uint_eq(sum, 0);
	/* Uplink 0 has no address: the reply comes from port 0's. */
	pkts[0] = t_mbuf(frame, len);
	sw_worker_input(s.w, T_NB_HOSTS, pkts, 1, 2000);
	memset(&x, 0, sizeof(x));
	t_drain_all(s.w, 2000, t_icmp_out, &x);
	ck_assert_uint_eq(x.nb, 1);
	ck_assert_uint_eq(x.port, T_NB_HOSTS);
	ck_assert_int_eq(ofan_parse(x.frame, x.len, 0, &info), OFAN_PARSE_OK);
	ck_assert_uint_eq(info.src_ip, T_SWITCH_IP(0));
	/* An expiring ICMP error is not answered. */
	memcpy(frame, x.frame, x.len);
	frame[l3 + 8] = 1;
	t_fix_csum(frame);
	pkts[0] = t_mbuf(frame, x.len);
	sw_worker_input(s.w, 0, pkts, 1, 3000);
	ck_assert_uint_eq(t_drain_all(s.w, 3000, NULL, NULL), 0);
	/* 64 at once (a second later: a full bucket): the burst of 50. */
	len = t_base_frame(frame, sizeof(frame), T_LEAF_NET(1) | 1,
			   LB_KIND_DATA, 32);
	frame[l3 + 8] = 0;
	t_fix_csum(frame);
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = t_mbuf(frame, len);
	sw_worker_input(s.w, 0, pkts, RTE_DIM(pkts), 1000000000ull + 3000);
	ck_assert_uint_eq(t_drain_all(s.w, 1000000000ull + 3000, NULL, NULL),
			  50);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[0].icmp_sent, 1 + 50);
	ck_assert_uint_eq(t.port[0].icmp_limited, 1 + 14);
	ck_assert_uint_eq(t.drops[OFAN_DROP_TTL_EXPIRED], 3 + 64);
	t_stop(&s);
}
END_TEST

/* With verify_checksum a corrupted header is dropped; without, forwarded. */
START_TEST(test_drop_checksum)
{
	uint8_t frame[256];
	struct sw_totals t;
	struct t_switch s;
	uint32_t len;
	int verify;

	len = t_base_frame(frame, sizeof(frame), T_LEAF_NET(1) | 1,
			   LB_KIND_DATA, 32);
	frame[OFAN_ETH_HDR_SIZE + 10] ^= 0x5a;
	for (verify = 0; verify <= 1; verify++) {
		struct sw_config *c = t_cfg_leaf("ofan");
		struct rte_mbuf *m;

		c->verify_checksum = verify;
		t_start(&s, c);
		m = t_mbuf(frame, len);
		sw_worker_input(s.w, 0, &m, 1, 0);
		ck_assert_uint_eq(t_drain_all(s.w, 0, NULL, NULL),
				  verify ? 0 : 1);
		sw_engine_totals(s.eng, &t);
		ck_assert_uint_eq(t.drops[OFAN_DROP_BAD_CHECKSUM], verify);
		ck_assert_uint_eq(t_drops_sum(&t), verify);
		t_stop(&s);
	}
}
END_TEST

/* A group whose members are all dead: no_live_member. */
START_TEST(test_drop_no_member)
{
	struct sw_config *c = t_cfg_leaf(t_policies[_i]);
	struct t_switch s;
	struct sw_totals t;
	struct rte_mbuf *m;
	uint8_t frame[256];
	uint16_t p;

	for (p = 0; p < T_NB_UPLINKS; p++)
		c->groups[T_GROUP_UP].weight[p] = 0;
	t_start(&s, c);
	m = t_mbuf(frame, t_base_frame(frame, sizeof(frame), T_LEAF_NET(2) | 9,
				       LB_KIND_DATA, 32));
	sw_worker_input(s.w, 0, &m, 1, 0);
	ck_assert_uint_eq(t_drain_all(s.w, 0, NULL, NULL), 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_NO_MEMBER], 1);
	ck_assert_uint_eq(t_drops_sum(&t), 1);
	t_stop(&s);
}
END_TEST

#ifdef NDEBUG
/*
 * A faulty policy, registered by main(): every pick names no member of
 * the group, in turns just past its members, at the end of the group's
 * arrays, far beyond them and one below LB_NONE.  Debug builds stop at
 * the first (sw_worker_check_picks()), so it exists in release builds
 * only, where the engine must drop each such packet as bad_pick instead
 * of reading a port from beyond the group.
 */
static void
t_rogue_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
	     const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	unsigned int *turn = state;
	uint16_t i;

	for (i = 0; i < n; i++) {
		const uint16_t bad[] = {
			pkts[i].grp->nb_members, LB_MAX_MEMBERS - 1,
			LB_MAX_MEMBERS, 0x7777, LB_NONE - 1,
		};

		out[i] = bad[(*turn)++ % RTE_DIM(bad)];
	}
}

static int
t_rogue_create(const struct lb_params *p, void **state)
{
	*state = calloc(1, sizeof(unsigned int));
	return *state == NULL ? -ENOMEM : 0;
}

const struct lb_ops t_rogue_ops = {
	.name = "t_rogue",
	.summary = "picks past the group's members (a policy bug)",
	.create = t_rogue_create,
	.destroy = free,
	.pick = t_rogue_pick,
};

/*
 * Out-of-range picks, through the vector and the scalar input, to the
 * uplink group (4 members) and to a host's group (1 member): every
 * packet is dropped as bad_pick, nothing leaves and no port counts a
 * pick.
 */
START_TEST(test_drop_bad_pick)
{
	struct sw_config *c = t_cfg_leaf("t_rogue");
	struct rte_mbuf *m[10];
	struct t_switch s;
	struct sw_totals t;
	uint8_t frame[256];
	uint64_t picks = 0;
	unsigned int k, i;

	t_start(&s, c);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < RTE_DIM(m); i++)
			m[i] = t_mbuf(frame, t_base_frame(frame, sizeof(frame),
					i % 2 ? T_HOST_IP(1) :
						T_LEAF_NET(2) | 9,
					LB_KIND_DATA, 32));
		if (k == 0)
			sw_worker_input(s.w, 0, m, RTE_DIM(m), 0);
		else
			sw_worker_input_scalar(s.w, 0, m, RTE_DIM(m), 0);
	}
	ck_assert_uint_eq(t_drain_all(s.w, 0, NULL, NULL), 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_BAD_PICK], 2 * RTE_DIM(m));
	ck_assert_uint_eq(t_drops_sum(&t), 2 * RTE_DIM(m));
	for (i = 0; i < T_NB_PORTS; i++)
		picks += t.picks[i];
	ck_assert_uint_eq(picks, 0);
	t_stop(&s);
}
END_TEST
#endif

/* ==== 5. ARP ==== */

/* An ARP request or reply from the peer of in_port, as an mbuf. */
static struct rte_mbuf *
t_arp(uint16_t oper, const uint8_t sha[6], uint32_t spa, uint32_t tpa)
{
	uint8_t buf[64];
	int len = ofan_build_arp(buf, sizeof(buf), oper, sha, spa, NULL, tpa);

	ck_assert_int_eq(len, OFAN_ETH_HDR_SIZE + 28);
	return t_mbuf(buf, (uint32_t)len);
}

/* A data packet from host 1 to host 0; returns its destination MAC. */
static void
t_to_host0_mac(struct t_switch *s, uint64_t now, uint8_t mac[6])
{
	struct rte_mbuf *pkts[1];
	struct ofan_pkt_spec sp;
	struct rte_mbuf *m;
	uint16_t n;

	t_spec(&sp, 1, T_HOST_IP(1), T_HOST_IP(0), 7000, 1);
	m = t_pkt(&sp, LB_KIND_DATA);
	sw_worker_input(s->w, 1, &m, 1, now);
	n = sw_worker_tx_peek(s->w, 0, now, pkts, 1);
	ck_assert_uint_eq(n, 1);
	sw_worker_tx_commit(s->w, 0, now, pkts, 1, 1);
	memcpy(mac, rte_pktmbuf_mtod(pkts[0], const uint8_t *), 6);
	rte_pktmbuf_free(pkts[0]);
}

START_TEST(test_arp)
{
	static const uint8_t host[6] = { 0x02, 0xaa, 0, 0, 0, 1 };
	static const uint8_t host2[6] = { 0x02, 0xaa, 0, 0, 0, 2 };
	static const uint8_t other[6] = { 0x02, 0xbb, 0, 0, 0, 4 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct sw_config *c = t_cfg_leaf("ofan");
	const struct ofan_arp *arp;
	const struct ofan_eth_hdr *eth;
	struct rte_mbuf *m, *pkts[4];
	struct sw_totals t;
	struct t_switch s;
	uint8_t mac[6], peer4[6];
	uint16_t n;

	/* Port 0's peer is not configured: learned from ARP. */
	c->ports[0].peer_mac_set = false;
	t_start(&s, c);
	ck_assert_uint_eq(sw_engine_port(s.eng, 0)->peer_known, 0);
	t_to_host0_mac(&s, 0, mac);
	ck_assert_msg(memcmp(mac, bcast, 6) == 0,
		      "unknown peer: expected broadcast");

	/* A request for port 0's address is answered out of port 0. */
	m = t_arp(OFAN_ARP_OP_REQUEST, host, T_HOST_IP(0), T_SWITCH_IP(0));
	sw_worker_input(s.w, 0, &m, 1, T_US);
	for (n = 1; n < T_NB_PORTS; n++)
		ck_assert_uint_eq(t_drain(s.w, n, T_US, NULL, NULL), 0);
	n = sw_worker_tx_peek(s.w, 0, T_US, pkts, RTE_DIM(pkts));
	ck_assert_uint_eq(n, 1);
	sw_worker_tx_commit(s.w, 0, T_US, pkts, 1, 1);
	ck_assert_uint_eq(rte_pktmbuf_data_len(pkts[0]),
			  OFAN_ETH_HDR_SIZE + 28);
	eth = rte_pktmbuf_mtod(pkts[0], const struct ofan_eth_hdr *);
	arp = (const struct ofan_arp *)(eth + 1);
	t_port_mac(0, mac);
	ck_assert(memcmp(eth->dst, host, 6) == 0);
	ck_assert(memcmp(eth->src, mac, 6) == 0);
	ck_assert_uint_eq(rte_be_to_cpu_16(eth->ether_type),
			  OFAN_ETHER_TYPE_ARP);
	ck_assert_uint_eq(rte_be_to_cpu_16(arp->htype), 1);
	ck_assert_uint_eq(rte_be_to_cpu_16(arp->ptype), OFAN_ETHER_TYPE_IPV4);
	ck_assert_uint_eq(arp->hlen, 6);
	ck_assert_uint_eq(arp->plen, 4);
	ck_assert_uint_eq(rte_be_to_cpu_16(arp->oper), OFAN_ARP_OP_REPLY);
	ck_assert(memcmp(arp->sha, mac, 6) == 0);
	ck_assert_uint_eq(rte_be_to_cpu_32(arp->spa), T_SWITCH_IP(0));
	ck_assert(memcmp(arp->tha, host, 6) == 0);
	ck_assert_uint_eq(rte_be_to_cpu_32(arp->tpa), T_HOST_IP(0));
	rte_pktmbuf_free(pkts[0]);

	/* The peer's MAC was learned and is used from now on. */
	ck_assert_uint_eq(sw_engine_port(s.eng, 0)->peer_known, 1);
	t_to_host0_mac(&s, 2 * T_US, mac);
	ck_assert(memcmp(mac, host, 6) == 0);

	/* Not our address, or not the in-port's address: not_for_us. */
	m = t_arp(OFAN_ARP_OP_REQUEST, host, T_HOST_IP(0), T_IP(10, 0, 0, 200));
	sw_worker_input(s.w, 0, &m, 1, 3 * T_US);
	m = t_arp(OFAN_ARP_OP_REQUEST, other, T_HOST_IP(1), T_SWITCH_IP(0));
	sw_worker_input(s.w, 1, &m, 1, 3 * T_US);
	ck_assert_uint_eq(t_drain_all(s.w, 3 * T_US, NULL, NULL), 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_NOT_FOR_US], 2);
	ck_assert_uint_eq(t.port[0].arp_replies, 1);
	ck_assert_uint_eq(t.port[1].arp_replies, 0);

	/* A reply from a new MAC is not answered but re-learned. */
	m = t_arp(OFAN_ARP_OP_REPLY, host2, T_HOST_IP(0), T_SWITCH_IP(0));
	sw_worker_input(s.w, 0, &m, 1, 4 * T_US);
	t_to_host0_mac(&s, 4 * T_US, mac);
	ck_assert(memcmp(mac, host2, 6) == 0);

	/* A configured peer MAC is never overwritten (port 4, no address). */
	memcpy(peer4, sw_engine_port(s.eng, 4)->peer_mac, 6);
	m = t_arp(OFAN_ARP_OP_REQUEST, other, T_IP(10, 9, 9, 9),
		  T_IP(10, 9, 9, 1));
	sw_worker_input(s.w, 4, &m, 1, 5 * T_US);
	ck_assert(memcmp(sw_engine_port(s.eng, 4)->peer_mac, peer4, 6) == 0);
	ck_assert_uint_eq(t_drain_all(s.w, 5 * T_US, NULL, NULL), 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_NOT_FOR_US], 4);
	ck_assert_uint_eq(t_drops_sum(&t), 4);
	t_stop(&s);
}
END_TEST

/*
 * An ARP reply its port's full queue drops is a reply made and a drop
 * there: what was routed to the port (picks, ARP replies, ICMP) is what
 * it sent, dropped or holds (soak_check.py's identity), which
 * fuzz_switch found broken: the drop counted, the reply not.
 */
START_TEST(test_arp_reply_queue_full)
{
	static const uint8_t host[6] = { 0x02, 0xaa, 0, 0, 0, 1 };
	struct sw_config *c = t_cfg_line();
	struct rte_mbuf *m;
	struct sw_totals t;
	struct t_switch s;
	unsigned int i;

	c->ports[0].queue.capacity_pkts = 1;
	t_start(&s, c);
	for (i = 0; i < 2; i++) {
		m = t_arp(OFAN_ARP_OP_REQUEST, host, T_HOST_IP(0),
			  T_SWITCH_IP(0));
		sw_worker_input(s.w, 0, &m, 1, T_US);
	}
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue_len[0], 1);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 1);
	ck_assert_uint_eq(t.port[0].egress_drops, 1);
	ck_assert_uint_eq(t.port[0].arp_replies, 2);
	ck_assert_uint_eq(t.picks[0] + t.port[0].arp_replies +
			  t.port[0].icmp_sent, t.port[0].tx_pkts +
			  t.port[0].egress_drops + t.queue_len[0]);
	ck_assert_uint_eq(t_drain(s.w, 0, T_US, NULL, NULL), 1);
	t_stop(&s);
}
END_TEST

void
t_engine_drop_tests(struct t_engine_tcases *t)
{
	tcase_add_test(t->drops, test_drop_reasons);
	tcase_add_test(t->drops, test_icmp_time_exceeded);
	tcase_add_test(t->drops, test_drop_checksum);
	tcase_add_loop_test(t->drops, test_drop_no_member, 0,
			    RTE_DIM(t_policies));
#ifdef NDEBUG
	tcase_add_test(t->drops, test_drop_bad_pick);
#endif
	tcase_add_test(t->arp, test_arp);
	tcase_add_test(t->arp, test_arp_reply_queue_full);
}
