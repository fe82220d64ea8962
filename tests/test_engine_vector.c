/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine: the vector path against its scalar reference, every policy
 * and mode.
 * (fixtures and helpers: engine_t.h, test_engine.c).
 */
#include "engine_t.h"

/* ==== 12. the vector path against its scalar reference ==== */

/*
 * What the devices took, in order: per frame its port, length and bytes.
 * A device takes all, some or none of a call's frames, by a fixed cycle
 * per port (t_wire_room[]), so that both paths meet full devices at the
 * same frames.
 */
struct t_wire {
	uint8_t *buf;
	size_t len;
	size_t size;
	unsigned int calls[SW_MAX_PORTS];
	unsigned int frames;
};

static const uint16_t t_wire_room[] = { 64, 64, 5, 0, 64, 1, 64 };

static void
t_wire_put(struct t_wire *x, uint16_t port, struct rte_mbuf *m)
{
	uint8_t tmp[T_FRAME_MAX * 2];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *f = t_bytes(m, tmp, sizeof(tmp));

	if (x->len + len + 6 > x->size) {
		x->size = (x->size + len + 6) * 2;
		x->buf = realloc(x->buf, x->size);
		ck_assert_ptr_nonnull(x->buf);
	}
	memcpy(x->buf + x->len, &port, 2);
	memcpy(x->buf + x->len + 2, &len, 4);
	memcpy(x->buf + x->len + 6, f, len);
	x->len += len + 6;
	x->frames++;
	rte_pktmbuf_free(m);
}

/* The device: a sw_tx_fn, and what t_wire_drain() hands its frames to. */
static uint16_t
t_wire_tx(void *arg, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	struct t_wire *x = arg;
	uint16_t take, i;

	take = t_wire_room[x->calls[port]++ % RTE_DIM(t_wire_room)];
	if (take > n)
		take = n;
	for (i = 0; i < take; i++)
		t_wire_put(x, port, pkts[i]);
	return take;
}

/* The driver's transmit loop: every port's queue once, in port order. */
static void
t_wire_drain(struct sw_worker *w, uint16_t nb_ports, uint64_t now,
	     struct t_wire *x)
{
	struct rte_mbuf *pkts[T_BURST_MAX];
	uint16_t p, n, sent;

	for (p = 0; p < nb_ports; p++) {
		n = sw_worker_tx_peek(w, p, now, pkts, RTE_DIM(pkts));
		if (n == 0)
			continue;
		sent = t_wire_tx(x, p, pkts, n);
		sw_worker_tx_commit(w, p, now, pkts, n, sent);
	}
}

/*
 * A frame of the mix into buf: mostly data and ACKs to every kind of
 * destination (varied 5-tuples, sizes and ECN codepoints), and the frames
 * that leave the fast path: ARP, TTL 1, no route, for the switch,
 * malformed (t_bad_frames()), a VLAN tag, IPv4 options.  *chain: carry it
 * in a chain of mbufs.  Returns its length.
 */
static uint32_t
t_mix_frame(struct ofan_rng *rng, const struct t_bad *bad,
	    unsigned int nb_bad, uint16_t in_port, uint8_t *buf,
	    bool *chain)
{
	static const uint8_t ecn[] = {
		OFAN_ECN_NOT_ECT, OFAN_ECN_ECT0, OFAN_ECN_ECT1, OFAN_ECN_CE,
	};
	const uint32_t l3 = OFAN_ETH_HDR_SIZE;
	uint32_t r = (uint32_t)ofan_rng_next(rng);
	uint32_t what = ofan_rng_below(rng, 100);
	uint32_t key = 1 + r % (T_NB_KEYS - 1), dst, len;
	struct ofan_pkt_spec sp;
	uint8_t mac[6];

	*chain = false;
	dst = r >> 8 & 1 ? T_LEAF_NET(key) | (1 + (r >> 9) % 250) :
			   T_HOST_IP(r >> 9 & 3);
	if (what >= 85 && what < 90) {
		const struct t_bad *b = &bad[r % nb_bad];

		memcpy(buf, b->frame, b->len);
		return b->len;
	}
	if (what >= 70 && what < 74) {
		t_peer_mac(in_port, mac);
		return (uint32_t)ofan_build_arp(buf, T_FRAME_MAX,
						OFAN_ARP_OP_REQUEST, mac,
						T_HOST_IP(in_port), NULL,
						T_SWITCH_IP(r % T_NB_PORTS));
	}
	if (what >= 78 && what < 82)
		dst = T_IP(192, 168, 1, r & 0xff);		/* no route */
	else if (what >= 82 && what < 85)
		dst = T_SWITCH_IP(r % T_NB_HOSTS);		/* for us */
	t_spec(&sp, in_port, T_HOST_IP(r >> 20 & 3), dst, (uint16_t)(r >> 16),
	       r >> 4);
	sp.tos = (uint8_t)(26 << 2 | ecn[r >> 12 & 3]);
	sp.payload_size = (uint16_t)ofan_rng_below(rng, 1200);
	len = t_build(buf, T_FRAME_MAX, &sp,
		      what >= 50 && what < 70 ? LB_KIND_ACK : LB_KIND_DATA);
	if (what >= 74 && what < 78) {
		buf[l3 + 8] = (uint8_t)(r & 1);			/* TTL 0 or 1 */
		t_fix_csum(buf);
	} else if (what >= 90 && what < 94) {
		/* Four NOP options: IHL 6. */
		memmove(buf + l3 + 24, buf + l3 + 20, len - l3 - 20);
		memset(buf + l3 + 20, 1, 4);
		len += 4;
		buf[l3] = 0x46;
		t_put16(buf + l3 + 2, (uint16_t)(len - l3));
		t_fix_csum(buf);
	} else if (what >= 94 && what < 97) {
		memmove(buf + 16, buf + 12, len - 12);
		t_put16(buf + 12, OFAN_ETHER_TYPE_VLAN);
		t_put16(buf + 14, (uint16_t)(r & 0xfff));
		len += 4;
	} else if (what >= 97) {
		*chain = true;
	}
	return len;
}

/* How the egress side is set up in test_vector_scalar. */
enum t_vec_mode {
	T_VEC_DIRECT,	/* no software queues: direct output */
	T_VEC_QUEUED,	/* every port queued, ECN, small, uplinks shaped */
	T_VEC_MIXED,	/* host ports direct, uplinks queued */
	T_VEC_MODES,
};

static struct sw_config *
t_vec_cfg(const char *policy, enum t_vec_mode mode)
{
	struct sw_config *c = t_cfg_leaf(policy);
	uint16_t p;

	c->icmp_rate = 1000000;
	for (p = 0; p < c->nb_ports; p++) {
		struct sw_queue_config *q = &c->ports[p].queue;

		q->enabled = mode == T_VEC_QUEUED ||
			(mode == T_VEC_MIXED && p >= T_UPLINK0);
		q->capacity_pkts = 24;
		q->ecn = true;
		q->ecn_kmin_bytes = 2000;
		q->ecn_kmax_bytes = 12000;
		q->ecn_pmax = 0.5;
		if (p >= T_UPLINK0)
			q->rate_bps = 10000000000ull;
	}
	return c;
}

/*
 * sw_worker_input() (the vector path, with direct output where a port has
 * no queue) and sw_worker_input_scalar() (every frame through the queues)
 * are given the same frames: a mix of every kind (t_mix_frame()) in
 * bursts of 1 to 32 on every port, an uplink black-holed and rerouted, a
 * host port down for a while, another uplink degraded.  Every frame the
 * devices take, byte for byte, and every counter must be the same, for
 * every policy and queue setting.
 */
START_TEST(test_vector_scalar)
{
	const char *policy = t_policies[_i / T_VEC_MODES];
	const enum t_vec_mode mode = (enum t_vec_mode)(_i % T_VEC_MODES);
	const uint16_t hole = T_UPLINK0 + 1, slow = T_UPLINK0 + 3;
	const uint16_t down = 3;
	struct t_bad bad[32];
	struct t_wire wire[2];
	struct t_switch s[2];
	struct sw_totals t[2];
	struct rte_mbuf *pkts[2][T_BURST_MAX];
	uint8_t frame[T_FRAME_MAX];
	struct ofan_rng rng;
	unsigned int nb_bad, b, e, r;
	uint64_t now = 0;
	uint16_t i, n, in_port;
	bool chain;

	nb_bad = t_bad_frames(bad);
	memset(wire, 0, sizeof(wire));
	for (e = 0; e < 2; e++)
		t_start(&s[e], t_vec_cfg(policy, mode));
	sw_worker_set_direct_tx(s[0].w, t_wire_tx, &wire[0]);
	ofan_rng_seed(&rng, T_SEED + _i, 0x5ec7);
	for (b = 0; b < 600; b++) {
		in_port = (uint16_t)ofan_rng_below(&rng, T_NB_PORTS);
		n = (uint16_t)(1 + ofan_rng_below(&rng, T_BURST_MAX));
		for (i = 0; i < n; i++) {
			uint32_t len = t_mix_frame(&rng, bad, nb_bad, in_port,
						   frame, &chain);

			for (e = 0; e < 2; e++)
				pkts[e][i] = chain ? t_chain(frame, len, 64) :
					t_mbuf(frame, len);
		}
		for (e = 0; e < 2; e++) {
			if (b == 150)
				ck_assert_int_eq(sw_engine_set_link(s[e].eng,
					hole, SW_LINK_BLACKHOLE, 0, now), 0);
			if (b == 250)
				ck_assert_int_eq(sw_engine_set_link(s[e].eng,
					down, SW_LINK_DOWN, 0, now), 0);
			if (b == 300)
				ck_assert_int_eq(sw_engine_set_link(s[e].eng,
					slow, SW_LINK_DEGRADED, 2000000000ull,
					now), 0);
			if (b == 400)
				ck_assert_int_eq(sw_engine_set_link(s[e].eng,
					down, SW_LINK_UP, 0, now), 0);
			sw_engine_control(s[e].eng, now);
			if (e == 0)
				sw_worker_input(s[e].w, in_port, pkts[e], n,
						now);
			else
				sw_worker_input_scalar(s[e].w, in_port,
						       pkts[e], n, now);
			t_wire_drain(s[e].w, T_NB_PORTS, now, &wire[e]);
		}
		now += T_US;
	}
	for (e = 0; e < 2; e++) {
		memset(&t[e], 0, sizeof(t[e]));
		sw_engine_totals(s[e].eng, &t[e]);
	}
	ck_assert_uint_eq(wire[0].frames, wire[1].frames);
	ck_assert_uint_eq(wire[0].len, wire[1].len);
	ck_assert_msg(memcmp(wire[0].buf, wire[1].buf, wire[0].len) == 0,
		      "%s, mode %d: the devices got different bytes", policy,
		      mode);
	for (r = 0; r < OFAN_DROP_MAX; r++)
		ck_assert_msg(t[0].drops[r] == t[1].drops[r],
			      "%s, mode %d: %s %" PRIu64 " vector, %" PRIu64
			      " scalar", policy, mode,
			      ofan_drop_name((enum ofan_drop)r), t[0].drops[r],
			      t[1].drops[r]);
	ck_assert_msg(memcmp(&t[0], &t[1], sizeof(t[0])) == 0,
		      "%s, mode %d: port or queue counters differ", policy,
		      mode);
	/* The mix reached every stage it is meant to. */
	ck_assert_uint_gt(wire[0].frames, 2000);
	ck_assert_uint_gt(t[0].port[0].arp_replies, 0);
	ck_assert_uint_gt(t[0].port[0].icmp_sent, 0);
	if (mode != T_VEC_QUEUED)
		ck_assert_uint_gt(t[0].drops[OFAN_DROP_TX_FULL], 0);
	ck_assert_uint_gt(t[0].drops[OFAN_DROP_BLACKHOLE], 0);
	ck_assert_uint_gt(t[0].drops[OFAN_DROP_LINK_DOWN], 0);
	ck_assert_uint_gt(t[0].drops[OFAN_DROP_NO_ROUTE], 0);
	ck_assert_uint_gt(t[0].drops[OFAN_DROP_NOT_FOR_US], 0);
	ck_assert_uint_gt(t[0].drops[OFAN_DROP_TTL_EXPIRED], 0);
	ck_assert_uint_gt(t[0].drops[OFAN_DROP_BAD_IHL], 0);
	if (mode != T_VEC_DIRECT) {
		ck_assert_uint_gt(t[0].drops[OFAN_DROP_QUEUE_FULL], 0);
		ck_assert_uint_gt(t[0].queue[T_UPLINK0].ecn_marked, 0);
	}
	for (e = 0; e < 2; e++) {
		sw_engine_free_queues(s[e].eng);
		free(wire[e].buf);
	}
	t_stop(&s[1]);
	t_stop(&s[0]);
}
END_TEST

void
t_engine_vector_tests(struct t_engine_tcases *t)
{
	tcase_add_loop_test(t->vector, test_vector_scalar, 0,
			    RTE_DIM(t_policies) * T_VEC_MODES);
}
