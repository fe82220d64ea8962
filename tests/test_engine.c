/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the switch engine (switch/sw_engine.c, sw_queue.c and the loader
 * in sw_config.c), in-process on EAL with --no-huge and no ports at all.
 *
 * The tests play the driver: they build frames into mbufs, hand bursts to
 * sw_worker_input(), take what may leave with sw_worker_tx_peek() and
 * sw_worker_tx_commit() as a device would, and run the control plane with
 * sw_engine_control().  Time is virtual (each call is given its now) and
 * every random choice comes from a fixed seed, so a run is reproducible
 * and the assertions are exact: which port each packet leaves on, the
 * rewritten headers, how a policy spreads packets, what each named drop
 * counter says, how many packets a shaper releases by a given time.  Each
 * test also checks that the engine frees or hands back every mbuf it was
 * given: the pool's in-use count returns to its value before the test.
 *
 * Topology of most tests, a leaf switch (t_cfg_leaf()):
 *   ports 0-3  local hosts 10.0.0.1 .. 10.0.0.4 (port p has the switch
 *              address 10.0.0.(254 - p) and answers ARP for it);
 *   ports 4-7  uplinks, next-hop group 0 ("up");
 *   routes     10.0.0.(h+1)/32 -> port h, destination key 0 (this leaf);
 *              10.0.k.0/24 -> group up, destination key k (leaf k, 1..3).
 * Port p's own MAC is 02:00:00:00:00:pp, its peer's 02:00:00:00:01:pp.
 * Queue tests use a line (t_cfg_line()): port 0 in, port 1 out.
 *
 * EAL starts once per process, so Check must not fork: main() forces
 * CK_NOFORK.  A failing test's engines are freed by t_teardown(), and each
 * test compares the pool against its own starting count, so one failure
 * does not cascade.  main() removes /var/run/dpdk/<prefix>, which
 * rte_eal_cleanup() leaves behind.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lb.h"
#include "ofan_clock.h"
#include "ofan_parse.h"
#include "ofan_rng.h"
#include "ofan_wire.h"
#include "sw_config.h"
#include "sw_engine.h"
#include "eal_suite.h"

#define T_SEED 0x0fa11234ull
#define T_NB_HOSTS 4
#define T_NB_UPLINKS 4
#define T_NB_PORTS (T_NB_HOSTS + T_NB_UPLINKS)
#define T_UPLINK0 T_NB_HOSTS		/* first uplink port */
#define T_GROUP_UP 0
#define T_NB_KEYS 4			/* 0 = this leaf, 1..3 = leaf k */
#define T_LINE_OUT 1			/* egress port of t_cfg_line() */
#define T_NB_MBUFS 8191
#define T_BURST_MAX 32
#define T_FRAME_MAX 1600
#define T_NONE 0xffff
#define T_ANY_UPLINK 0xfffe
#define T_US OFAN_NS_PER_US
#define T_MS OFAN_NS_PER_MS

#define T_IP(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define T_HOST_IP(h) T_IP(10, 0, 0, 1 + (h))
#define T_SWITCH_IP(p) T_IP(10, 0, 0, 254 - (p))
#define T_LEAF_NET(k) T_IP(10, 0, (k), 0)

/* Created by main() once EAL is up; every test takes its mbufs here. */
static struct rte_mempool *t_pool;

static const char *const t_policies[] = {
	"ecmp", "spray", "rr", "adaptive", "flowlet", "ofan", "ecmp_ar",
	"rr_ecmp", "fib_llss", "sr",
};

/* Policies that must never pick a withdrawn member (see test_fail_down). */
static const char *const t_failover_policies[] = { "ofan", "ecmp", "spray" };

/* ---- configurations ---- */

static void
t_port_mac(uint16_t port, uint8_t mac[6])
{
	static const uint8_t base[6] = { 0x02, 0, 0, 0, 0, 0 };

	memcpy(mac, base, 6);
	mac[5] = (uint8_t)port;
}

static void
t_peer_mac(uint16_t port, uint8_t mac[6])
{
	t_port_mac(port, mac);
	mac[4] = 0x01;
}

/* Defaults, the policy and the test seed; no ports yet.  Heap: it is big. */
static struct sw_config *
t_cfg_new(const char *policy)
{
	struct sw_config *c = calloc(1, sizeof(*c));

	ck_assert_ptr_nonnull(c);
	sw_config_defaults(c);
	c->policy = lb_find(policy);
	ck_assert_msg(c->policy != NULL, "policy %s is not registered", policy);
	c->seed = T_SEED;
	return c;
}

/* Append a port with default queue settings and a configured peer MAC. */
static uint16_t
t_sw_cfg_port(struct sw_config *c, uint32_t ip)
{
	uint16_t p = c->nb_ports++;
	struct sw_port_config *pc = &c->ports[p];

	ck_assert_uint_lt(p, SW_MAX_PORTS);
	snprintf(pc->dev, sizeof(pc->dev), "net_null%u", p);
	pc->ip = ip;
	t_peer_mac(p, pc->peer_mac);
	pc->peer_mac_set = true;
	pc->nb_rx_queues = 1;
	pc->nb_rxd = 1024;
	pc->nb_txd = 1024;
	sw_queue_config_defaults(&pc->queue);
	return p;
}

/* Append a group of n members of weight 1; returns its index. */
static uint16_t
t_cfg_group(struct sw_config *c, const char *name, const uint16_t *ports,
	    uint16_t n)
{
	uint16_t g = c->nb_groups++;
	struct sw_group_config *gc = &c->groups[g];
	uint16_t i;

	snprintf(gc->name, sizeof(gc->name), "%s", name);
	gc->nb_members = n;
	for (i = 0; i < n; i++) {
		gc->port[i] = ports[i];
		gc->weight[i] = 1;
	}
	return g;
}

static void
t_cfg_route(struct sw_config *c, uint32_t prefix, uint8_t depth,
	    uint16_t group, uint32_t key)
{
	struct sw_route_config *r = &c->routes[c->nb_routes++];

	r->prefix = prefix;
	r->depth = depth;
	r->group = group;
	r->dst_key = key;
	if (key + 1 > c->nb_dst_keys)
		c->nb_dst_keys = key + 1;
}

/* The leaf of the top comment. */
static struct sw_config *
t_cfg_leaf(const char *policy)
{
	struct sw_config *c = t_cfg_new(policy);
	uint16_t up[T_NB_UPLINKS];
	char name[SW_NAME_SIZE];
	uint16_t p, g;

	for (p = 0; p < T_NB_HOSTS; p++)
		t_sw_cfg_port(c, T_SWITCH_IP(p));
	for (p = 0; p < T_NB_UPLINKS; p++)
		up[p] = t_sw_cfg_port(c, 0);
	ck_assert_uint_eq(t_cfg_group(c, "up", up, T_NB_UPLINKS), T_GROUP_UP);
	for (p = 0; p < T_NB_HOSTS; p++) {
		snprintf(name, sizeof(name), "port.%u", p);
		g = t_cfg_group(c, name, &p, 1);
		t_cfg_route(c, T_HOST_IP(p), 32, g, 0);
	}
	for (p = 1; p < T_NB_KEYS; p++)
		t_cfg_route(c, T_LEAF_NET(p), 24, T_GROUP_UP, p);
	return c;
}

/* Port 0 (host 0) and port 1; 10.0.1.0/24 leaves through port 1. */
static struct sw_config *
t_cfg_line(void)
{
	struct sw_config *c = t_cfg_new("ecmp");
	uint16_t in = t_sw_cfg_port(c, T_SWITCH_IP(0));
	uint16_t out = t_sw_cfg_port(c, 0);

	t_cfg_route(c, T_HOST_IP(0), 32, t_cfg_group(c, "port.0", &in, 1), 0);
	t_cfg_route(c, T_LEAF_NET(1), 24, t_cfg_group(c, "port.1", &out, 1),
		    1);
	return c;
}

/* ---- an engine under test ---- */

struct t_switch {
	struct sw_config *cfg;		/* owned */
	struct sw_engine *eng;
	struct sw_worker *w;		/* worker 0 */
	unsigned int pool_start;	/* mbufs in use before the engine */
};

/*
 * Engines of the running test.  A failed assertion leaves the test at
 * once (a longjmp: its stack is gone); t_teardown() then frees what it
 * left, so that later tests still find memory for their FIB (an rte_lpm
 * takes 64 MB) and mbufs.  Copies, not pointers to the test's t_switch.
 */
static struct t_switch t_live[4];

static void
t_track(const struct t_switch *s, bool live)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(t_live); i++) {
		if (live && t_live[i].eng == NULL) {
			t_live[i] = *s;
			return;
		}
		if (!live && t_live[i].eng == s->eng) {
			memset(&t_live[i], 0, sizeof(t_live[i]));
			return;
		}
	}
	ck_abort_msg("t_live[] is full or lost an engine");
}

static void
t_teardown(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(t_live); i++) {
		if (t_live[i].eng == NULL)
			continue;
		sw_engine_free(t_live[i].eng);
		free(t_live[i].cfg);
		memset(&t_live[i], 0, sizeof(t_live[i]));
	}
}

static void
t_start_workers(struct t_switch *s, struct sw_config *cfg,
		uint16_t nb_workers)
{
	uint8_t macs[SW_MAX_PORTS][6];
	char err[256] = "";
	uint16_t p;

	for (p = 0; p < SW_MAX_PORTS; p++)
		t_port_mac(p, macs[p]);
	s->cfg = cfg;
	s->pool_start = rte_mempool_in_use_count(t_pool);
	s->eng = sw_engine_create(cfg, nb_workers,
				  (const uint8_t (*)[6])macs, SOCKET_ID_ANY,
				  err, sizeof(err));
	ck_assert_msg(s->eng != NULL, "sw_engine_create: %s", err);
	t_track(s, true);
	s->w = sw_engine_worker(s->eng, 0);
	ck_assert_ptr_nonnull(s->w);
}

static void
t_start(struct t_switch *s, struct sw_config *cfg)
{
	t_start_workers(s, cfg, 1);
}

static unsigned int
t_pool_used(void)
{
	return rte_mempool_in_use_count(t_pool);
}

/* Shut down as ofan-switch does, and check that no mbuf leaked. */
static void
t_stop(struct t_switch *s)
{
	t_track(s, false);
	sw_engine_free_queues(s->eng);
	ck_assert_uint_eq(sw_engine_free(s->eng), 0);
	free(s->cfg);
	ck_assert_uint_eq(t_pool_used(), s->pool_start);
}

static uint64_t
t_drops_sum(const struct sw_totals *t)
{
	uint64_t sum = 0;
	int r;

	for (r = 0; r < OFAN_DROP_MAX; r++)
		sum += t->drops[r];
	return sum;
}

/* ---- frames ---- */

/* A packet arriving on in_port from its peer, addressed to the switch. */
static void
t_spec(struct ofan_pkt_spec *sp, uint16_t in_port, uint32_t src_ip,
       uint32_t dst_ip, uint16_t ev, uint32_t psn)
{
	memset(sp, 0, sizeof(*sp));
	t_peer_mac(in_port, sp->src_mac);
	t_port_mac(in_port, sp->dst_mac);
	sp->src_ip = src_ip;
	sp->dst_ip = dst_ip;
	sp->ev = ev;
	sp->dest_qp = 0x100 + in_port;
	sp->psn = psn;
}

static uint32_t
t_build(uint8_t *buf, size_t size, const struct ofan_pkt_spec *sp,
	uint8_t kind)
{
	struct ofan_ack_ext ext = {
		.echo_ev = sp->ev,
		.echo_psn = sp->psn,
		.cum_psn = sp->psn,
	};
	int len = kind == LB_KIND_ACK ? ofan_build_ack(buf, size, sp, &ext) :
					ofan_build_data(buf, size, sp);

	ck_assert_int_gt(len, 0);
	return (uint32_t)len;
}

static struct rte_mbuf *
t_mbuf(const void *frame, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(t_pool);
	char *p;

	ck_assert_ptr_nonnull(m);
	p = rte_pktmbuf_append(m, (uint16_t)len);
	ck_assert_ptr_nonnull(p);
	memcpy(p, frame, len);
	return m;
}

static struct rte_mbuf *
t_pkt(const struct ofan_pkt_spec *sp, uint8_t kind)
{
	uint8_t buf[T_FRAME_MAX];

	return t_mbuf(buf, t_build(buf, sizeof(buf), sp, kind));
}

/* A data frame of exactly size bytes from host 0 (port 0) to dst_ip. */
static struct rte_mbuf *
t_sized(uint32_t dst_ip, uint32_t psn, uint8_t tos, uint32_t size)
{
	struct ofan_pkt_spec sp;

	ck_assert_uint_ge(size, OFAN_DATA_HDRS_SIZE);
	t_spec(&sp, 0, T_HOST_IP(0), dst_ip, 4000, psn);
	sp.tos = tos;
	sp.payload_size = (uint16_t)(size - OFAN_DATA_HDRS_SIZE);
	return t_pkt(&sp, LB_KIND_DATA);
}

/* Recompute the IPv4 header checksum of a frame after editing it. */
static void
t_fix_csum(uint8_t *frame)
{
	struct ofan_ipv4_hdr *ip =
		(struct ofan_ipv4_hdr *)(frame + OFAN_ETH_HDR_SIZE);

	ip->checksum = 0;
	ip->checksum = ofan_ipv4_checksum(ip, (ip->version_ihl & 0xf) * 4u);
}

static void
t_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The whole frame of m, however many segments, in buf if need be. */
static const uint8_t *
t_bytes(const struct rte_mbuf *m, uint8_t *buf, size_t size)
{
	const uint8_t *p;

	ck_assert_uint_le(rte_pktmbuf_pkt_len(m), size);
	p = rte_pktmbuf_read(m, 0, rte_pktmbuf_pkt_len(m), buf);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* Parse a frame the switch sent; it must be well formed. */
static void
t_parse(const struct rte_mbuf *m, struct ofan_pkt_info *info)
{
	uint8_t buf[T_FRAME_MAX];
	int v = ofan_parse(t_bytes(m, buf, sizeof(buf)),
			   rte_pktmbuf_pkt_len(m),
			   OFAN_PARSE_F_VERIFY_CSUM | OFAN_PARSE_F_NO_TTL_CHECK,
			   info);

	ck_assert_msg(v == OFAN_PARSE_OK, "the switch sent a bad frame: %s",
		      ofan_drop_name((enum ofan_drop)v));
}

/*
 * m is the frame orig (len bytes) forwarded out of the port whose state is
 * ps: MACs rewritten, TTL one less, checksum valid, CE possibly set on an
 * ECN-capable packet, and every other byte (addresses, UDP, BTH, payload)
 * untouched.
 */
static void
t_check_rewrite(const struct rte_mbuf *m, const uint8_t *orig, uint32_t len,
		const struct sw_port_state *ps)
{
	uint8_t buf[T_FRAME_MAX];
	const uint8_t *out = t_bytes(m, buf, sizeof(buf));
	const uint8_t *ip = out + OFAN_ETH_HDR_SIZE;
	const uint8_t *oip = orig + OFAN_ETH_HDR_SIZE;

	ck_assert_uint_eq(rte_pktmbuf_pkt_len(m), len);
	ck_assert_msg(memcmp(out, ps->peer_mac, 6) == 0,
		      "destination MAC is not the egress port's peer");
	ck_assert_msg(memcmp(out + 6, ps->mac, 6) == 0,
		      "source MAC is not the egress port's MAC");
	ck_assert(memcmp(out + 12, orig + 12, 2) == 0);
	ck_assert_uint_eq(ip[0], oip[0]);
	if (ip[1] != oip[1])
		ck_assert_msg((oip[1] & OFAN_ECN_MASK) != OFAN_ECN_NOT_ECT &&
			      ip[1] == (oip[1] | OFAN_ECN_CE),
			      "TOS 0x%02x became 0x%02x", oip[1], ip[1]);
	ck_assert(memcmp(ip + 2, oip + 2, 6) == 0);
	ck_assert_uint_eq(ip[8], oip[8] - 1u);
	ck_assert_uint_eq(ip[9], oip[9]);
	ck_assert_msg(ofan_ipv4_checksum((const struct ofan_ipv4_hdr *)ip,
					 OFAN_IPV4_HDR_SIZE) == 0,
		      "IPv4 checksum no longer verifies");
	ck_assert_msg(memcmp(ip + 12, oip + 12,
			     len - OFAN_ETH_HDR_SIZE - 12) == 0,
		      "addresses, UDP, BTH or payload changed");
}

/* ---- the driver side: draining egress queues ---- */

/* Called for every packet a drain takes, before it is freed. */
typedef void (*t_visit_fn)(void *arg, uint16_t port, struct rte_mbuf *m);

/*
 * Act as a device that takes everything: send what port of w may send at
 * now, at most max packets (0: no limit), show each to visit (may be NULL)
 * and free it.  Returns how many left.
 */
static unsigned int
t_drain_max(struct sw_worker *w, uint16_t port, uint64_t now,
	    unsigned int max, t_visit_fn visit, void *arg)
{
	struct rte_mbuf *pkts[64];
	unsigned int total = 0;
	uint16_t n, i, want;

	for (;;) {
		want = RTE_DIM(pkts);
		if (max != 0 && max - total < want)
			want = (uint16_t)(max - total);
		if (want == 0)
			break;
		n = sw_worker_tx_peek(w, port, now, pkts, want);
		ck_assert_uint_le(n, want);
		if (n == 0)
			break;
		sw_worker_tx_commit(w, port, now, pkts, n, n);
		for (i = 0; i < n; i++) {
			if (visit != NULL)
				visit(arg, port, pkts[i]);
			rte_pktmbuf_free(pkts[i]);
		}
		total += n;
	}
	return total;
}

static unsigned int
t_drain(struct sw_worker *w, uint16_t port, uint64_t now, t_visit_fn visit,
	void *arg)
{
	return t_drain_max(w, port, now, 0, visit, arg);
}

static unsigned int
t_drain_all(struct sw_worker *w, uint64_t now, t_visit_fn visit, void *arg)
{
	uint16_t p, nb_ports = sw_engine_config(w->eng)->nb_ports;
	unsigned int total = 0;

	for (p = 0; p < nb_ports; p++)
		total += t_drain(w, p, now, visit, arg);
	return total;
}

/* A visitor that remembers the last port and how many it saw. */
struct t_seen {
	uint16_t port;
	unsigned int nb;
	unsigned int nb_ce;
};

static void
t_seen_out(void *arg, uint16_t port, struct rte_mbuf *m)
{
	struct t_seen *seen = arg;
	struct ofan_pkt_info info;

	t_parse(m, &info);
	seen->port = port;
	seen->nb++;
	if ((info.tos & OFAN_ECN_MASK) == OFAN_ECN_CE)
		seen->nb_ce++;
}

/* ---- a log of every packet sent, matched with what leaves ---- */

#define T_LOG_SIZE 4096
#define T_LOG_FRAME 512

/* Packet i of the log carries PSN i, which identifies it on the way out. */
struct t_log {
	struct sw_engine *eng;
	uint32_t nb;
	uint32_t nb_out;
	uint32_t nb_port[SW_MAX_PORTS];	/* packets out per port */
	uint64_t bytes_port[SW_MAX_PORTS];
	uint16_t want[T_LOG_SIZE];	/* egress port, or T_ANY_UPLINK */
	uint16_t out[T_LOG_SIZE];	/* egress port seen, T_NONE before */
	uint8_t kind[T_LOG_SIZE];
	uint8_t key[T_LOG_SIZE];
	uint32_t flow[T_LOG_SIZE];
	uint16_t len[T_LOG_SIZE];
	uint8_t frame[T_LOG_SIZE][T_LOG_FRAME];
};

static struct t_log *
t_log_new(struct sw_engine *eng)
{
	struct t_log *log = calloc(1, sizeof(*log));

	ck_assert_ptr_nonnull(log);
	log->eng = eng;
	memset(log->out, 0xff, sizeof(log->out));
	return log;
}

/* Record a packet (its PSN becomes its log index) and make its mbuf. */
static struct rte_mbuf *
t_log_add(struct t_log *log, const struct ofan_pkt_spec *spec, uint8_t kind,
	  uint8_t key, uint32_t flow, uint16_t want)
{
	struct ofan_pkt_spec sp = *spec;
	uint32_t i = log->nb++;

	ck_assert_uint_lt(i, T_LOG_SIZE);
	sp.psn = i;
	log->len[i] = (uint16_t)t_build(log->frame[i], T_LOG_FRAME, &sp, kind);
	log->kind[i] = kind;
	log->key[i] = key;
	log->flow[i] = flow;
	log->want[i] = want;
	return t_mbuf(log->frame[i], log->len[i]);
}

/* Visitor: match a departing packet with its log entry and check it. */
static void
t_log_out(void *arg, uint16_t port, struct rte_mbuf *m)
{
	struct t_log *log = arg;
	struct ofan_pkt_info info;
	uint32_t i;

	t_parse(m, &info);
	i = info.psn;
	ck_assert_msg(i < log->nb, "unknown packet %u left port %u", i, port);
	ck_assert_msg(log->out[i] == T_NONE,
		      "packet %u left twice (ports %u and %u)", i, log->out[i],
		      port);
	ck_assert_uint_eq(info.kind, log->kind[i]);
	if (log->want[i] == T_ANY_UPLINK)
		ck_assert_msg(port >= T_UPLINK0 && port < T_NB_PORTS,
			      "packet %u to leaf %u left on port %u", i,
			      log->key[i], port);
	else
		ck_assert_msg(port == log->want[i],
			      "packet %u left on port %u, expected %u", i,
			      port, log->want[i]);
	t_check_rewrite(m, log->frame[i], log->len[i],
			sw_engine_port(log->eng, port));
	log->out[i] = port;
	log->nb_out++;
	log->nb_port[port]++;
	log->bytes_port[port] += log->len[i];
}

/* Every logged packet from `from` on left exactly once. */
static void
t_log_check_delivered(const struct t_log *log, uint32_t from)
{
	uint32_t i;

	for (i = from; i < log->nb; i++)
		ck_assert_msg(log->out[i] != T_NONE, "packet %u never left", i);
}

/*
 * ofan's promise, checked on the logged packets [from, to) in sending
 * order: for each destination key and kind, the per-uplink counts differ
 * by at most one after every packet, over the uplinks in live_mask (bit u
 * = port T_UPLINK0 + u); the others get nothing.
 */
static void
t_check_rotation(const struct t_log *log, uint32_t from, uint32_t to,
		 uint32_t live_mask)
{
	uint32_t cnt[T_NB_KEYS][LB_NB_KINDS][T_NB_UPLINKS];
	uint32_t i, u, lo, hi;

	memset(cnt, 0, sizeof(cnt));
	for (i = from; i < to; i++) {
		uint32_t *c = cnt[log->key[i]][log->kind[i]];

		if (log->key[i] == 0)
			continue;
		ck_assert_msg(log->out[i] != T_NONE, "packet %u never left", i);
		u = log->out[i] - T_UPLINK0;
		ck_assert_msg(live_mask & 1u << u,
			      "packet %u left on withdrawn port %u", i,
			      log->out[i]);
		c[u]++;
		lo = UINT32_MAX;
		hi = 0;
		for (u = 0; u < T_NB_UPLINKS; u++) {
			if (!(live_mask & 1u << u))
				continue;
			lo = RTE_MIN(lo, c[u]);
			hi = RTE_MAX(hi, c[u]);
		}
		ck_assert_msg(hi - lo <= 1,
			      "key %u %s: counts differ by %u after packet %u",
			      log->key[i], log->kind[i] ? "ack" : "data",
			      hi - lo, i);
	}
}

/* ---- traffic ---- */

/*
 * Random traffic from the local hosts.  Each packet goes to a destination
 * key drawn from keys[] (0: a local host, k: a host behind leaf k), is an
 * ACK with probability ack_pct %, and is ECT(0) or Not-ECT.  With nb_flows
 * > 0 packets belong to that many fixed 5-tuples (flow f comes from host
 * f % 4), otherwise every packet has a new 5-tuple.
 */
struct t_gen {
	struct ofan_rng rng;
	uint8_t keys[T_NB_KEYS];
	uint8_t nb_keys;
	uint8_t ack_pct;
	uint16_t max_payload;
	uint32_t nb_flows;
};

static void
t_gen_init(struct t_gen *g, uint64_t seed, const uint8_t *keys,
	   uint8_t nb_keys, uint8_t ack_pct, uint32_t nb_flows)
{
	memset(g, 0, sizeof(*g));
	ofan_rng_seed(&g->rng, seed, 0x7e57);
	memcpy(g->keys, keys, nb_keys);
	g->nb_keys = nb_keys;
	g->ack_pct = ack_pct;
	g->max_payload = 400;
	g->nb_flows = nb_flows;
}

/* One burst of 1..32 packets from a random host port, logged, at now. */
static uint16_t
t_gen_burst(struct sw_worker *w, struct t_log *log, struct t_gen *g,
	    uint64_t now)
{
	struct rte_mbuf *pkts[T_BURST_MAX];
	uint16_t in_port = (uint16_t)ofan_rng_below(&g->rng, T_NB_HOSTS);
	uint16_t n = (uint16_t)(1 + ofan_rng_below(&g->rng, T_BURST_MAX));
	struct ofan_pkt_spec sp;
	uint16_t i;

	if (n > T_LOG_SIZE - log->nb)
		n = (uint16_t)(T_LOG_SIZE - log->nb);
	for (i = 0; i < n; i++) {
		uint32_t flow, r, dst;
		uint8_t key, kind;
		uint16_t want;

		if (g->nb_flows != 0) {
			flow = in_port + T_NB_HOSTS * ofan_rng_below(&g->rng,
					g->nb_flows / T_NB_HOSTS);
			r = ofan_hash_mix32(flow + 1);
		} else {
			flow = log->nb;
			r = (uint32_t)ofan_rng_next(&g->rng);
		}
		key = g->keys[r % g->nb_keys];
		if (key == 0) {
			want = (uint16_t)((r >> 4) % T_NB_HOSTS);
			dst = T_HOST_IP(want);
		} else {
			want = T_ANY_UPLINK;
			dst = T_LEAF_NET(key) | (1 + (r >> 4) % 250);
		}
		kind = ofan_rng_below(&g->rng, 100) < g->ack_pct ?
			LB_KIND_ACK : LB_KIND_DATA;
		t_spec(&sp, in_port, T_HOST_IP(in_port), dst,
		       (uint16_t)(r >> 16), 0);
		sp.tos = 26 << 2 | ((r >> 12 & 1) ? OFAN_ECN_ECT0 :
						     OFAN_ECN_NOT_ECT);
		sp.payload_size = (uint16_t)ofan_rng_below(&g->rng,
							   g->max_payload + 1u);
		pkts[i] = t_log_add(log, &sp, kind, key, flow, want);
	}
	sw_worker_input(w, in_port, pkts, n, now);
	return n;
}

/*
 * Send until the log holds nb packets: a burst every microsecond, and
 * after each burst every port drained (checked by t_log_out).
 */
static void
t_switch_run(struct t_switch *s, struct t_log *log, struct t_gen *g, uint32_t nb,
      uint64_t *now)
{
	while (log->nb < nb) {
		t_gen_burst(s->w, log, g, *now);
		t_drain_all(s->w, *now, t_log_out, log);
		*now += T_US;
	}
}

/* Index of port in group g's member list. */
static uint16_t
t_member(struct t_switch *s, uint16_t g, uint16_t port)
{
	const struct lb_group *grp = sw_engine_group(s->eng, g);
	uint16_t m;

	ck_assert_ptr_nonnull(grp);
	for (m = 0; m < grp->nb_members; m++)
		if (grp->port[m] == port)
			return m;
	ck_abort_msg("port %u is not a member of group %u", port, g);
	return 0;
}

static uint16_t
t_weight(struct t_switch *s, uint16_t port)
{
	return sw_engine_group(s->eng, T_GROUP_UP)->weight[
		t_member(s, T_GROUP_UP, port)];
}

/* ==== 1. forwarding, every policy ==== */

START_TEST(test_fwd_policy)
{
	static const uint8_t keys[] = { 0, 1, 2, 3 };
	const char *name = t_policies[_i];
	uint64_t now = 0, sum_tx = 0, sum_rx = 0, rx_bytes = 0;
	struct t_log *log, *log2;
	struct t_switch s, s2;
	struct sw_totals t;
	struct t_gen g;
	uint32_t i;
	uint16_t p;

	t_start(&s, t_cfg_leaf(name));
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED + (uint64_t)_i, keys, RTE_DIM(keys), 20, 0);
	t_switch_run(&s, log, &g, 2000, &now);

	t_log_check_delivered(log, 0);
	ck_assert_uint_eq(log->nb_out, log->nb);
	sw_engine_totals(s.eng, &t);
	ck_assert_msg(t_drops_sum(&t) == 0, "%s dropped packets", name);
	for (p = 0; p < T_NB_PORTS; p++) {
		ck_assert_uint_eq(t.port[p].tx_pkts, log->nb_port[p]);
		ck_assert_uint_eq(t.port[p].tx_bytes, log->bytes_port[p]);
		ck_assert_uint_eq(t.picks[p], log->nb_port[p]);
		ck_assert_uint_eq(t.queue_len[p], 0);
		sum_tx += t.port[p].tx_pkts;
		sum_rx += t.port[p].rx_pkts;
		rx_bytes += t.port[p].rx_bytes;
	}
	for (i = 0; i < log->nb; i++)
		rx_bytes -= log->len[i];
	ck_assert_uint_eq(sum_rx, log->nb);
	ck_assert_uint_eq(sum_tx, log->nb);
	ck_assert_uint_eq(rx_bytes, 0);
	for (p = T_UPLINK0; p < T_NB_PORTS; p++)
		ck_assert_msg(log->nb_port[p] > 0, "%s never used uplink %u",
			      name, p);

	/* The same seeds give the same egress port, packet by packet. */
	t_start(&s2, t_cfg_leaf(name));
	log2 = t_log_new(s2.eng);
	t_gen_init(&g, T_SEED + (uint64_t)_i, keys, RTE_DIM(keys), 20, 0);
	now = 0;
	t_switch_run(&s2, log2, &g, log->nb, &now);
	for (i = 0; i < log->nb; i++)
		ck_assert_msg(log2->out[i] == log->out[i],
			      "%s: packet %u left on port %u, then on %u", name,
			      i, log->out[i], log2->out[i]);
	free(log2);
	t_stop(&s2);
	free(log);
	t_stop(&s);
}
END_TEST

/* ==== 2. ofan: exact rotation per destination, data and ACK apart ==== */

START_TEST(test_ofan_exact)
{
	static const uint8_t keys[] = { 1, 2, 3 };
	struct t_log *log, *solo;
	struct t_switch s, s2;
	struct t_gen g;
	uint64_t now = 0;
	uint32_t i, k, nb_solo = 0;

	t_start(&s, t_cfg_leaf("ofan"));
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED, keys, RTE_DIM(keys), 30, 0);
	t_switch_run(&s, log, &g, 3000, &now);
	t_log_check_delivered(log, 0);
	t_check_rotation(log, 0, log->nb, 0xf);

	/*
	 * The ACK pointer of a destination starts half a cycle (two of four
	 * members) after its data pointer.
	 */
	for (k = 1; k < T_NB_KEYS; k++) {
		uint16_t first[LB_NB_KINDS] = { T_NONE, T_NONE };

		for (i = 0; i < log->nb; i++)
			if (log->key[i] == k && first[log->kind[i]] == T_NONE)
				first[log->kind[i]] = log->out[i];
		ck_assert_uint_ne(first[LB_KIND_DATA], T_NONE);
		ck_assert_uint_ne(first[LB_KIND_ACK], T_NONE);
		ck_assert_uint_ne(first[LB_KIND_DATA], first[LB_KIND_ACK]);
	}

	/*
	 * Independence: the data packets to leaf 1 alone, one at a time
	 * through a fresh switch of the same seed, leave on exactly the same
	 * ports as they did mixed with ACKs and other destinations.
	 */
	t_start(&s2, t_cfg_leaf("ofan"));
	solo = t_log_new(s2.eng);
	for (i = 0; i < log->nb; i++) {
		struct rte_mbuf *m;
		struct t_seen seen = { .port = T_NONE };

		if (log->key[i] != 1 || log->kind[i] != LB_KIND_DATA)
			continue;
		m = t_mbuf(log->frame[i], log->len[i]);
		sw_worker_input(s2.w, 0, &m, 1, now);
		ck_assert_uint_eq(t_drain_all(s2.w, now, t_seen_out, &seen), 1);
		ck_assert_msg(seen.port == log->out[i],
			      "data packet %u: port %u alone, %u mixed", i,
			      seen.port, log->out[i]);
		nb_solo++;
	}
	ck_assert_uint_gt(nb_solo, 500);
	free(solo);
	t_stop(&s2);
	free(log);
	t_stop(&s);
}
END_TEST

/* ==== 3. ecmp: flows stay, entropy values spread ==== */

START_TEST(test_ecmp_flow_sticks)
{
	static const uint8_t keys[] = { 1, 2, 3 };
	uint16_t flow_port[64];
	uint32_t used = 0, i;
	struct t_switch s;
	struct t_log *log;
	struct t_gen g;
	uint64_t now = 0;

	t_start(&s, t_cfg_leaf("ecmp"));
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED, keys, RTE_DIM(keys), 20, RTE_DIM(flow_port));
	t_switch_run(&s, log, &g, 3000, &now);
	t_log_check_delivered(log, 0);
	memset(flow_port, 0xff, sizeof(flow_port));
	for (i = 0; i < log->nb; i++) {
		uint32_t f = log->flow[i];

		ck_assert_uint_lt(f, RTE_DIM(flow_port));
		if (flow_port[f] == T_NONE)
			flow_port[f] = log->out[i];
		ck_assert_msg(log->out[i] == flow_port[f],
			      "flow %u left on ports %u and %u", f,
			      flow_port[f], log->out[i]);
		used |= 1u << log->out[i];
	}
	ck_assert_uint_eq(used, 0xf0);
	free(log);
	t_stop(&s);
}
END_TEST

/* Port each of 64 EVs of one host pair takes through a switch of seed. */
static void
t_ecmp_ev_ports(uint64_t seed, uint16_t *port, unsigned int nb_ev)
{
	struct sw_config *c = t_cfg_leaf("ecmp");
	struct ofan_pkt_spec sp;
	struct t_switch s;
	unsigned int ev;

	c->seed = seed;
	t_start(&s, c);
	for (ev = 0; ev < nb_ev; ev++) {
		struct t_seen seen = { .port = T_NONE };
		struct rte_mbuf *m;

		t_spec(&sp, 0, T_HOST_IP(0), T_LEAF_NET(1) | 7,
		       (uint16_t)(49152 + ev * 7), ev);
		m = t_pkt(&sp, LB_KIND_DATA);
		sw_worker_input(s.w, 0, &m, 1, ev * T_US);
		ck_assert_uint_eq(t_drain_all(s.w, ev * T_US, t_seen_out,
					      &seen), 1);
		port[ev] = seen.port;
	}
	t_stop(&s);
}

START_TEST(test_ecmp_ev_spread)
{
	uint16_t a[64], again[64], other[64];
	unsigned int cnt[T_NB_PORTS] = { 0 };
	unsigned int ev, p, nb_diff = 0;

	t_ecmp_ev_ports(T_SEED, a, RTE_DIM(a));
	t_ecmp_ev_ports(T_SEED, again, RTE_DIM(again));
	t_ecmp_ev_ports(T_SEED + 1, other, RTE_DIM(other));
	for (ev = 0; ev < RTE_DIM(a); ev++) {
		ck_assert_uint_ge(a[ev], T_UPLINK0);
		ck_assert_uint_lt(a[ev], T_NB_PORTS);
		cnt[a[ev]]++;
		ck_assert_uint_eq(a[ev], again[ev]);
		nb_diff += a[ev] != other[ev];
	}
	/* 64 EVs over 4 uplinks: each gets some, none more than half. */
	for (p = T_UPLINK0; p < T_NB_PORTS; p++) {
		ck_assert_uint_gt(cnt[p], 0);
		ck_assert_uint_le(cnt[p], 32);
	}
	/* The switch seed is in the hash (no polarisation across tiers). */
	ck_assert_uint_gt(nb_diff, 16);
}
END_TEST

/* Frame of len bytes split into mbufs of at most seg bytes each. */
static struct rte_mbuf *
t_chain(const uint8_t *frame, uint32_t len, uint32_t seg)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t off;

	for (off = 0; off < len; off += seg) {
		m = t_mbuf(frame + off, RTE_MIN(seg, len - off));
		if (head == NULL)
			head = m;
		else
			ck_assert_int_eq(rte_pktmbuf_chain(head, m), 0);
	}
	return head;
}

/*
 * A jumbo frame in a chain of mbufs is forwarded like any other, as long
 * as the headers the switch rewrites lie in the first segment.
 */
START_TEST(test_fwd_chained)
{
	uint8_t frame[T_FRAME_MAX];
	struct ofan_pkt_spec sp;
	struct rte_mbuf *m, *pkts[2];
	struct sw_totals t;
	struct t_switch s;
	unsigned int before;
	uint32_t len;
	uint16_t p;

	t_start(&s, t_cfg_leaf("ofan"));
	before = t_pool_used();
	t_spec(&sp, 0, T_HOST_IP(0), T_LEAF_NET(3) | 3, 1234, 77);
	sp.tos = OFAN_ECN_ECT0;
	sp.payload_size = 1400;
	len = t_build(frame, sizeof(frame), &sp, LB_KIND_DATA);
	m = t_chain(frame, len, 100);
	ck_assert_uint_eq(m->nb_segs, 15);
	ck_assert_uint_eq(t_pool_used(), before + 15);
	sw_worker_input(s.w, 0, &m, 1, 0);
	for (p = 0; p < T_NB_PORTS; p++) {
		if (sw_worker_tx_peek(s.w, p, 0, pkts, 2) == 0)
			continue;
		ck_assert_uint_ge(p, T_UPLINK0);
		sw_worker_tx_commit(s.w, p, 0, pkts, 1, 1);
		ck_assert_uint_eq(pkts[0]->nb_segs, 15);
		t_check_rewrite(pkts[0], frame, len, sw_engine_port(s.eng, p));
		rte_pktmbuf_free(pkts[0]);
	}
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[0].rx_bytes, len);
	ck_assert_uint_eq(t.port[T_UPLINK0].tx_bytes +
			  t.port[T_UPLINK0 + 1].tx_bytes +
			  t.port[T_UPLINK0 + 2].tx_bytes +
			  t.port[T_UPLINK0 + 3].tx_bytes, len);

	/* The IPv4 header split over two segments: dropped, all freed. */
	m = t_chain(frame, len, OFAN_ETH_HDR_SIZE + 10);
	sw_worker_input(s.w, 0, &m, 1, 0);
	ck_assert_uint_eq(t_pool_used(), before);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_IP_TRUNCATED], 1);
	ck_assert_uint_eq(t_drops_sum(&t), 1);
	t_stop(&s);
}
END_TEST

/* ==== 4. parser and pipeline drops ==== */

struct t_bad {
	enum ofan_drop why;
	uint32_t len;
	uint8_t frame[256];
};

/* A valid data frame to leaf 1 with a 32-byte payload; returns its size. */
static uint32_t
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
static unsigned int
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

static const struct lb_ops t_rogue_ops = {
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

/* ==== 6. egress queue: limits, ECN, statistics ==== */

/* Input n data frames of size bytes to leaf 1 on port 0 at now. */
static void
t_send_sized(struct t_switch *s, unsigned int n, uint32_t size,
	     uint32_t first_psn, uint64_t now)
{
	struct rte_mbuf *pkts[SW_MAX_BURST];
	unsigned int i;

	ck_assert_uint_le(n, SW_MAX_BURST);
	for (i = 0; i < n; i++)
		pkts[i] = t_sized(T_LEAF_NET(1) | 1, first_psn + i,
				  OFAN_ECN_NOT_ECT, size);
	sw_worker_input(s->w, 0, pkts, (uint16_t)n, now);
}

/* Visitor: the PSNs leave in order, starting at *arg. */
static void
t_in_order(void *arg, uint16_t port, struct rte_mbuf *m)
{
	uint32_t *next = arg;
	struct ofan_pkt_info info;

	t_parse(m, &info);
	ck_assert_uint_eq(info.psn, *next);
	(*next)++;
}

START_TEST(test_queue_packets)
{
	struct sw_config *c = t_cfg_line();
	struct sw_totals t;
	struct t_switch s;
	uint32_t next = 0;
	unsigned int before;

	c->ports[T_LINE_OUT].queue.capacity_pkts = 8;
	t_start(&s, c);
	before = t_pool_used();
	t_send_sized(&s, 20, 200, 0, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 8);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 12);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_pkts, 12);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_bytes, 12 * 200);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].enq_pkts, 8);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_pkts, 8);
	ck_assert_uint_eq(t.port[T_LINE_OUT].egress_drops, 12);
	ck_assert_uint_eq(t.port[0].drops, 12);
	ck_assert_uint_eq(t_pool_used(), before + 8);
	/* Tail drop: the first eight stay, in order. */
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, t_in_order, &next), 8);
	ck_assert_uint_eq(t_pool_used(), before);
	/* Drained, it takes eight again. */
	t_send_sized(&s, 9, 200, 100, T_US);
	next = 100;
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, T_US, t_in_order, &next), 8);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 13);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].deq_pkts, 16);
	ck_assert_uint_eq(t.port[T_LINE_OUT].tx_pkts, 16);
	t_stop(&s);
}
END_TEST

START_TEST(test_queue_bytes)
{
	struct sw_config *c = t_cfg_line();
	struct rte_mbuf *pkts[1];
	struct sw_totals t;
	struct t_switch s;

	c->ports[T_LINE_OUT].queue.capacity_bytes = 5000;
	t_start(&s, c);
	/* 5 x 1000 bytes fill it exactly; the sixth does not fit. */
	t_send_sized(&s, 8, 1000, 0, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 5);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_bytes, 5000);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_pkts, 3);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_bytes, 3000);
	/* Not even 100 bytes more. */
	t_send_sized(&s, 1, 100, 8, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 4);
	/* One leaves: 1000 bytes fit again, 1001 would not. */
	ck_assert_uint_eq(sw_worker_tx_peek(s.w, T_LINE_OUT, 0, pkts, 1), 1);
	sw_worker_tx_commit(s.w, T_LINE_OUT, 0, pkts, 1, 1);
	rte_pktmbuf_free(pkts[0]);
	t_send_sized(&s, 1, 1001, 9, 0);
	t_send_sized(&s, 1, 1000, 10, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 5);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 5);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_bytes, 5000);
	t_stop(&s);
}
END_TEST

struct t_ecn_check {
	uint32_t nb;
	uint32_t nb_ce;
};

/*
 * Visitor of test_queue_ecn: packet i arrived to i * 1000 queued bytes.
 * kmin = 4000, kmax = 8000: no mark at or below 4000 bytes (i <= 4), a
 * certain mark above 8000 (i >= 9), Not-ECT (odd i) never.
 */
static void
t_ecn_out(void *arg, uint16_t port, struct rte_mbuf *m)
{
	struct t_ecn_check *chk = arg;
	struct ofan_pkt_info info;
	uint8_t ecn, dscp;

	t_parse(m, &info);	/* the checksum must still verify */
	ecn = info.tos & OFAN_ECN_MASK;
	dscp = info.tos >> 2;
	ck_assert_uint_eq(dscp, 10);
	if (info.psn % 2 == 1)
		ck_assert_msg(ecn == OFAN_ECN_NOT_ECT,
			      "Not-ECT packet %u was marked", info.psn);
	else if (info.psn <= 4)
		ck_assert_msg(ecn == OFAN_ECN_ECT0,
			      "packet %u marked at or below kmin", info.psn);
	else if (info.psn >= 9)
		ck_assert_msg(ecn == OFAN_ECN_CE,
			      "packet %u not marked above kmax", info.psn);
	chk->nb++;
	chk->nb_ce += ecn == OFAN_ECN_CE;
}

/* The division-free histogram bin is exactly len * bins / capacity. */
START_TEST(test_queue_hist_bin)
{
	static const uint32_t caps[] = { 1, 3, 40, 1000, 65535, 1u << 20 };
	struct sw_queue_config qc;
	struct sw_queue q;
	unsigned int i;
	uint32_t len;

	sw_queue_config_defaults(&qc);
	for (i = 0; i < RTE_DIM(caps); i++) {
		qc.capacity_pkts = caps[i];
		ck_assert_int_eq(sw_queue_init(&q, &qc, 32, SOCKET_ID_ANY), 0);
		for (len = 0; len < caps[i]; len++)
			ck_assert_uint_eq(sw_queue_hist_bin(&q, len),
				(uint64_t)len * SW_QUEUE_HIST_BINS / caps[i]);
		ck_assert_uint_eq(sw_queue_fini(&q), 0);
	}
}
END_TEST

/*
 * htsim's CompositeQueue rule with ACKs in the data queue (trim_either,
 * ctrl_acks = no): on overflow a coin picks the arriving frame or the
 * newest queued one.  A data frame arriving at 3 data frames and an ACK
 * (the newest): either it is trimmed (the control queue holds it), or
 * the ACK is dropped -- an ACK cannot be trimmed -- and the data frame
 * takes its place past the byte bound.  An ACK arriving at a full queue:
 * dropped, or the newest data frame is trimmed and the ACK queued.
 * Every seed gives one of exactly these outcomes, and both appear.
 */
START_TEST(test_trim_victim_ack)
{
	const uint32_t full = 1514;
	struct rte_mbuf *ret, *m;
	struct sw_queue_config qc;
	struct ofan_pkt_spec sp;
	unsigned int seen = 0, seed, i;
	struct sw_queue q;
	struct ofan_rng rng;
	enum sw_enq_result r;

	sw_queue_config_defaults(&qc);
	qc.enabled = true;
	qc.ecn = false;
	qc.trim = SW_TRIM_FULL;
	qc.trim_either = true;
	qc.ctrl_acks = false;
	qc.capacity_pkts = 100;
	t_spec(&sp, 0, T_HOST_IP(0), T_LEAF_NET(1) | 1, 4000, 1);
	for (seed = 1; seed <= 64; seed++) {
		bool ack_arrives = seed % 2 == 0;

		/* 3 data + an ACK fit; 4 data do not; with the ACK
		 * arriving, 4 data fit and the ACK does not. */
		qc.capacity_bytes = ack_arrives ? 4 * full + 40 :
			3 * full + OFAN_ACK_FRAME_SIZE + 100;
		ck_assert_int_eq(sw_queue_init(&q, &qc, 32, SOCKET_ID_ANY), 0);
		ofan_rng_seed(&rng, seed, 0);
		for (i = 0; i < (ack_arrives ? 4u : 3u); i++)
			ck_assert_int_eq(sw_queue_enqueue_ctl(&q,
				t_sized(T_LEAF_NET(1) | 1, i, 0, full),
				OFAN_KIND_DATA, OFAN_ETH_HDR_SIZE, false, &rng,
				&ret), SW_ENQ_QUEUED);
		if (!ack_arrives) {
			ck_assert_int_eq(sw_queue_enqueue_ctl(&q,
				t_pkt(&sp, LB_KIND_ACK), OFAN_KIND_ACK,
				OFAN_ETH_HDR_SIZE, false, &rng, &ret),
				SW_ENQ_QUEUED);
			m = t_sized(T_LEAF_NET(1) | 1, 9, 0, full);
			r = sw_queue_enqueue_ctl(&q, m, OFAN_KIND_DATA,
						 OFAN_ETH_HDR_SIZE, false, &rng,
						 &ret);
		} else {
			m = t_pkt(&sp, LB_KIND_ACK);
			r = sw_queue_enqueue_ctl(&q, m, OFAN_KIND_ACK,
						 OFAN_ETH_HDR_SIZE, false, &rng,
						 &ret);
		}
		ck_assert_uint_eq(sw_queue_data_len(&q), 4);
		if (r == SW_ENQ_QUEUED) {
			/* Data: the arriving frame trimmed; ACK: the newest
			 * data frame trimmed, the ACK in its place. */
			ck_assert_uint_eq(q.st.trimmed_pkts, 1);
			ck_assert_uint_eq(q.ctrl.tail - q.ctrl.head, 1);
			ck_assert_uint_eq(q.st.drop_pkts, 0);
			ck_assert_uint_le(q.bytes, q.cap_bytes);
			seen |= ack_arrives ? 1 : 2;
		} else {
			ck_assert_int_eq(r, SW_ENQ_DROPPED);
			ck_assert_uint_eq(q.st.trimmed_pkts, 0);
			ck_assert_uint_eq(q.st.drop_pkts, 1);
			ck_assert_uint_eq(ret->pkt_len, OFAN_ACK_FRAME_SIZE);
			if (ack_arrives) {
				ck_assert_ptr_eq(ret, m);
				seen |= 4;
			} else {
				/* The queued ACK went; 4 data frames stay. */
				ck_assert_ptr_ne(ret, m);
				ck_assert_uint_eq(q.bytes, 4 * full);
				ck_assert_uint_gt(q.bytes, q.cap_bytes);
				seen |= 8;
			}
			rte_pktmbuf_free(ret);
		}
		ck_assert_uint_eq(sw_queue_fini(&q), 4 + (r == SW_ENQ_QUEUED));
	}
	ck_assert_uint_eq(seen, 15);
}
END_TEST

/*
 * The frame model of a queue (ofan_frame.h): under explicit sizes (full
 * 1514-byte data frames count 1460 bytes, 78-byte ACKs 82) a queue
 * counts, caps, marks and shapes each frame at its model size: a data
 * frame as much under 1460 as it is shorter than 1514, an ACK 82, any
 * other frame its bytes and 24; with the Ethernet model, the same frames
 * count their bytes.  A byte cap of 1460 + 82 + 946 then holds a full
 * frame, an ACK and a 1000-byte frame, and drops a 60-byte one (6).
 */
START_TEST(test_queue_frame_model)
{
	struct sw_config *c = t_cfg_line();
	struct sw_queue_config *q = &c->ports[T_LINE_OUT].queue;
	struct ofan_pkt_spec sp;
	struct rte_mbuf *pkts[4];
	struct sw_totals t;
	struct t_switch s;

	ck_assert_int_eq(ofan_frame_model_sizes(&q->frame, 1514, 1460,
						OFAN_ACK_FRAME_SIZE, 82), 0);
	ck_assert_int_eq(q->frame.adjust[OFAN_KIND_DATA], -54);
	ck_assert_int_eq(q->frame.adjust[OFAN_KIND_ACK], 4);
	ck_assert_int_eq(q->frame.adjust[OFAN_KIND_OTHER], 24);
	ck_assert_uint_eq(q->frame.overhead, 0);
	q->capacity_pkts = 100;
	q->capacity_bytes = 1460 + 82 + 946;
	q->ecn = false;
	t_start(&s, c);
	pkts[0] = t_sized(T_LEAF_NET(1) | 1, 0, 0, 1514);
	t_spec(&sp, 0, T_HOST_IP(0), T_LEAF_NET(1) | 1, 4000, 1);
	pkts[1] = t_pkt(&sp, LB_KIND_ACK);
	ck_assert_uint_eq(pkts[1]->pkt_len, OFAN_ACK_FRAME_SIZE);
	pkts[2] = t_sized(T_LEAF_NET(1) | 1, 2, 0, 1000);
	pkts[3] = t_sized(T_LEAF_NET(1) | 1, 3, 0, 60);
	sw_worker_input(s.w, 0, pkts, 4, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_pkts, 3);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_bytes, 1460 + 82 + 946);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_pkts, 1);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].drop_bytes, 6);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, NULL, NULL), 3);
	t_stop(&s);

	/* Ethernet: the same frames count their bytes. */
	c = t_cfg_line();
	q = &c->ports[T_LINE_OUT].queue;
	q->capacity_pkts = 100;
	q->ecn = false;
	t_start(&s, c);
	pkts[0] = t_sized(T_LEAF_NET(1) | 1, 0, 0, 1514);
	pkts[1] = t_pkt(&sp, LB_KIND_ACK);
	sw_worker_input(s.w, 0, pkts, 2, 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_bytes,
			  1514 + OFAN_ACK_FRAME_SIZE);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, NULL, NULL), 2);
	t_stop(&s);
}
END_TEST

START_TEST(test_queue_ecn)
{
	struct sw_config *c = t_cfg_line();
	struct sw_queue_config *q = &c->ports[T_LINE_OUT].queue;
	struct rte_mbuf *pkts[30];
	struct t_ecn_check chk = { 0, 0 };
	unsigned int hist[SW_QUEUE_HIST_BINS] = { 0 };
	struct sw_totals t;
	struct t_switch s;
	unsigned int i, b;

	q->capacity_pkts = 40;
	q->ecn_kmin_bytes = 4000;
	q->ecn_kmax_bytes = 8000;
	/* Low, so that the ramp alone would not mark everything above kmax. */
	q->ecn_pmax = 0.1;
	t_start(&s, c);
	/* Alternately ECT(0) and Not-ECT, DSCP 10, into an undrained queue. */
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = t_sized(T_LEAF_NET(1) | 1, i, 10 << 2 |
				  (i % 2 ? OFAN_ECN_NOT_ECT : OFAN_ECN_ECT0),
				  1000);
	sw_worker_input(s.w, 0, pkts, RTE_DIM(pkts), 0);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_pkts, 30);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].max_bytes, 30000);
	/*
	 * Bin b counts arrivals that found an occupancy in [b/16, (b+1)/16)
	 * of the capacity; these found 0 .. 29 packets of 40.
	 */
	for (i = 0; i < RTE_DIM(pkts); i++)
		hist[i * SW_QUEUE_HIST_BINS / 40]++;
	for (b = 0; b < SW_QUEUE_HIST_BINS; b++)
		ck_assert_msg(t.queue[T_LINE_OUT].hist[b] == hist[b],
			      "histogram bin %u: %" PRIu64 ", expected %u", b,
			      t.queue[T_LINE_OUT].hist[b], hist[b]);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, t_ecn_out, &chk), 30);
	ck_assert_uint_ge(chk.nb_ce, 10);	/* ECT, i = 10 .. 28 */
	ck_assert_uint_le(chk.nb_ce, 12);	/* and maybe i = 6, 8 */
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].ecn_marked, chk.nb_ce);
	t_stop(&s);
}
END_TEST

/*
 * Between kmin and kmax the marking probability rises linearly to pmax.
 * The queue is held at 6000 bytes (one packet in, one out): with kmin =
 * 4000, kmax = 8000 and pmax = 0.5 every ECT arrival is marked with
 * probability 0.25.  Of 4000 arrivals the count is binomial (mean 1000,
 * sd 27.4); the bound is 5 sd.
 */
START_TEST(test_queue_ecn_probability)
{
	struct sw_config *c = t_cfg_line();
	struct sw_queue_config *q = &c->ports[T_LINE_OUT].queue;
	struct t_seen seen = { .port = T_NONE };
	struct sw_totals t;
	struct t_switch s;
	struct rte_mbuf *m;
	unsigned int i;

	q->ecn_kmin_bytes = 4000;
	q->ecn_kmax_bytes = 8000;
	q->ecn_pmax = 0.5;
	t_start(&s, c);
	t_send_sized(&s, 6, 1000, 0, 0);
	for (i = 0; i < 4000; i++) {
		m = t_sized(T_LEAF_NET(1) | 1, 6 + i, OFAN_ECN_ECT0, 1000);
		sw_worker_input(s.w, 0, &m, 1, i * T_US);
		ck_assert_uint_eq(t_drain_max(s.w, T_LINE_OUT, i * T_US, 1,
					      t_seen_out, &seen), 1);
	}
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, i * T_US, t_seen_out, &seen),
			  6);
	ck_assert_uint_ge(seen.nb_ce, 1000 - 137);
	ck_assert_uint_le(seen.nb_ce, 1000 + 137);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.queue[T_LINE_OUT].ecn_marked, seen.nb_ce);
	t_stop(&s);
}
END_TEST

/* ==== 7. shaping ==== */

/*
 * At 1 Gb/s a 1000-byte frame occupies (1000 + OFAN_WIRE_OVERHEAD 24) * 8 =
 * 8192 bit times, 8192 ns exactly (ofan_tx_time_ns() has nothing to round).
 * A backlogged shaped queue starts packet k at t0 + k * 8192 ns, t0 being
 * the arrival of the first, and a poll at now releases every packet whose
 * start time is <= now.
 */
#define T_SHAPE_RATE 1000000000ull
#define T_SHAPE_SIZE 1000u
#define T_SHAPE_TX_NS 8192u

static void
t_shaped_line(struct t_switch *s)
{
	struct sw_config *c = t_cfg_line();

	c->ports[T_LINE_OUT].queue.rate_bps = T_SHAPE_RATE;
	t_start(s, c);
}

/* Input n 1000-byte frames in bursts of at most SW_MAX_BURST. */
static void
t_send_many(struct t_switch *s, unsigned int n, uint64_t now)
{
	unsigned int done = 0, k;

	while (done < n) {
		k = RTE_MIN(n - done, (unsigned int)SW_MAX_BURST);
		t_send_sized(s, k, T_SHAPE_SIZE, done, now);
		done += k;
	}
}

/* Starts of packets 0, 1, ... at t0 + k * 8192 that are <= now. */
static unsigned int
t_starts_by(uint64_t t0, uint64_t now)
{
	return now < t0 ? 0 : (unsigned int)((now - t0) / T_SHAPE_TX_NS + 1);
}

START_TEST(test_shape_fine_polls)
{
	struct t_switch s;
	unsigned int sent = 0;
	uint64_t now;
	uint32_t next = 0;
	struct sw_totals t;

	ck_assert_uint_eq(T_SHAPE_TX_NS,
			  ofan_tx_time_ns(T_SHAPE_SIZE + OFAN_WIRE_OVERHEAD,
					  T_SHAPE_RATE));
	t_shaped_line(&s);
	t_send_many(&s, 40, 0);
	/*
	 * Polling every microsecond for 100 us releases the packets starting
	 * at 0, 8192, ..., 98304 ns: 13 (100 us / 8192 ns = 12.2, and the
	 * first one goes at once).
	 */
	for (now = 0; now < 100 * T_US; now += T_US) {
		sent += t_drain(s.w, T_LINE_OUT, now, t_in_order, &next);
		ck_assert_uint_eq(sent, t_starts_by(0, now));
	}
	ck_assert_uint_eq(sent, 13);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[T_LINE_OUT].tx_bytes, 13 * T_SHAPE_SIZE);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 27);
	/* The 40th starts at 39 * 8192 = 319488 ns, not before. */
	for (; sent < 40; now += T_US)
		sent += t_drain(s.w, T_LINE_OUT, now, t_in_order, &next);
	ck_assert_uint_eq(now - T_US, 320 * T_US);
	t_stop(&s);
}
END_TEST

/* Coarse or late polls release the backlog at the rate, no slower. */
START_TEST(test_shape_coarse_polls)
{
	struct t_switch s;
	unsigned int sent = 0, got;
	uint32_t next = 0;
	uint64_t now;

	t_shaped_line(&s);
	t_send_many(&s, 200, 0);
	for (now = 0; now < OFAN_NS_PER_MS; now += 10 * T_US) {
		sent += t_drain(s.w, T_LINE_OUT, now, t_in_order, &next);
		ck_assert_uint_eq(sent, t_starts_by(0, now));
	}
	ck_assert_uint_eq(sent, 121);	/* 990 us / 8192 ns = 120.8 */
	t_stop(&s);

	/* One poll 100 us after the arrival takes all 13 due. */
	t_shaped_line(&s);
	t_send_many(&s, 40, 0);
	got = t_drain(s.w, T_LINE_OUT, 100 * T_US, NULL, NULL);
	ck_assert_uint_eq(got, 13);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 100 * T_US, NULL, NULL), 0);
	t_stop(&s);
}
END_TEST

/* An idle link banks no credit; a busy one delays a new arrival. */
START_TEST(test_shape_idle)
{
	struct t_switch s;
	const uint64_t t1 = OFAN_NS_PER_MS;

	t_shaped_line(&s);
	t_send_many(&s, 1, 0);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, NULL, NULL), 1);
	/* The link sends until 8192 ns: a packet at 1 us waits for it. */
	t_send_many(&s, 1, T_US);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, T_US, NULL, NULL), 0);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, T_SHAPE_TX_NS - 1, NULL,
				  NULL), 0);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, T_SHAPE_TX_NS, NULL, NULL),
			  1);
	/*
	 * Idle from 16384 ns to 1 ms: 40 packets arriving then start at
	 * 1 ms + k * 8192 ns, as if the link had never been used.
	 */
	t_send_many(&s, 40, t1);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, t1, NULL, NULL), 1);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, t1 + 50 * T_US, NULL, NULL),
			  t_starts_by(t1, t1 + 50 * T_US) - 1);
	ck_assert_uint_eq(t_starts_by(t1, t1 + 50 * T_US), 7);
	t_stop(&s);
}
END_TEST


/* One frame from host 0 to 10.0.1.9 (out of port 1) at now. */
static void
t_line_send(struct t_switch *s, uint64_t now)
{
	struct ofan_pkt_spec sp;
	struct rte_mbuf *m;

	t_spec(&sp, 0, T_HOST_IP(0), T_IP(10, 0, 1, 9), 9, 0);
	m = t_pkt(&sp, LB_KIND_DATA);
	sw_worker_input(s->w, 0, &m, 1, now);
}

/* A device that takes every frame: counts and frees them. */
static uint16_t
t_count_tx(void *arg, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	unsigned int *nb = arg;
	uint16_t i;

	RTE_SET_USED(port);
	for (i = 0; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
	*nb += n;
	return n;
}

/*
 * A stalled port (htsim's -ftype queue) sends nothing: its queue keeps
 * what it holds and fills, then tail-drops; routing removes it
 * reconverge_delay later, as a black hole; back up, it sends what it
 * held.  Without a queue there is nothing to hold: its frames are lost
 * as the device would refuse them (tx_full).
 */
START_TEST(test_stall_port)
{
	struct sw_config *c = t_cfg_line();
	struct t_seen seen = { 0 };
	struct sw_totals t;
	struct t_switch s;
	unsigned int i, cap;
	uint64_t now = T_US;

	c->ports[1].queue.capacity_pkts = 16;
	t_start(&s, c);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_STALL, 0, now),
			 0);
	cap = 16;
	for (i = 0; i < cap + 5; i++)
		t_line_send(&s, now + i);
	ck_assert_uint_eq(t_drain_all(s.w, now + 100, t_seen_out, &seen), 0);
	ck_assert_uint_eq(sw_worker_queue_len(s.w, 1), cap);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_QUEUE_FULL], 5);
	ck_assert_uint_eq(t.port[1].tx_pkts, 0);
	/* Routing removes it after reconverge_delay, not before. */
	sw_engine_control(s.eng, now +
			  sw_engine_config(s.eng)->reconverge_delay_ns - 1);
	ck_assert(!sw_engine_port(s.eng, 1)->removed);
	sw_engine_control(s.eng, now +
			  sw_engine_config(s.eng)->reconverge_delay_ns);
	ck_assert(sw_engine_port(s.eng, 1)->removed);
	/* Back up: what it held leaves. */
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_UP, 0,
					    now + 200 * T_US), 0);
	ck_assert_uint_eq(t_drain_all(s.w, now + 200 * T_US, t_seen_out,
				      &seen), cap);
	ck_assert_uint_eq(seen.port, 1);
	t_stop(&s);

	/* No queue (ofan-switch sends such a port's frames directly): lost
	 * as tx_full while stalled, sent once it is back. */
	c = t_cfg_line();
	c->ports[1].queue.enabled = false;
	t_start(&s, c);
	sw_worker_set_direct_tx(s.w, t_count_tx, &cap);
	cap = 0;
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_STALL, 0, now),
			 0);
	for (i = 0; i < 3; i++)
		t_line_send(&s, now + i);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_TX_FULL], 3);
	ck_assert_uint_eq(t.port[1].egress_drops, 3);
	ck_assert_uint_eq(cap, 0);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_UP, 0, now + 10),
			 0);
	t_line_send(&s, now + 11);
	ck_assert_uint_eq(cap, 1);
	t_stop(&s);
}
END_TEST

/* ==== PFC (switch/sw_pfc.c) ==== */

/* Take port's pending PFC frame: its quanta for priority 3, -1: none. */
static int
t_pfc_take(struct t_switch *s, uint16_t port, uint64_t now)
{
	struct ofan_pkt_info info;
	struct rte_mbuf *m;
	const uint8_t *f;
	uint16_t quanta;
	uint8_t mac[6];

	if (!sw_worker_tx_ready(s->w, port) ||
	    sw_worker_tx_peek(s->w, port, now, &m, 1) != 1)
		return -1;
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	if (ofan_parse(f, rte_pktmbuf_data_len(m), 0, &info) != OFAN_PARSE_OK ||
	    info.kind != OFAN_KIND_PAUSE) {
		/* A queued frame: leave it queued. */
		sw_worker_tx_commit(s->w, port, now, &m, 1, 0);
		return -1;
	}
	ck_assert_uint_eq(rte_pktmbuf_data_len(m), OFAN_PFC_FRAME_SIZE);
	ck_assert_int_eq(memcmp(f, ofan_pfc_dst_mac, 6), 0);
	t_port_mac(port, mac);
	ck_assert_int_eq(memcmp(f + 6, mac, 6), 0);
	ck_assert_uint_eq(f[15], 0x01);		/* opcode 0x0101 */
	ck_assert_uint_eq(f[17], 1u << 3);	/* class-enable: priority 3 */
	ck_assert(ofan_pfc_quanta(f, info.l3_offset, 3, &quanta));
	sw_worker_tx_commit(s->w, port, now, &m, 1, 1);
	rte_pktmbuf_free(m);
	return quanta;
}

/* A PFC frame from port's peer: quanta for the priorities in cev. */
static void
t_pfc_rx(struct t_switch *s, uint16_t port, uint8_t cev, uint16_t quanta,
	 uint64_t now)
{
	uint8_t buf[OFAN_PFC_FRAME_SIZE], mac[6];
	struct rte_mbuf *m;

	t_peer_mac(port, mac);
	ck_assert_int_eq(ofan_build_pfc(buf, sizeof(buf), mac, cev, quanta),
			 OFAN_PFC_FRAME_SIZE);
	m = t_mbuf(buf, sizeof(buf));
	sw_worker_input(s->w, port, &m, 1, now);
}

/*
 * A lossless ingress: port 0 brings 200-byte frames into port 1's queue,
 * whose link is stalled.  pfc_xoff 2000 / pfc_xon 1000 bytes: the 11th
 * frame (2200 bytes held) sends one pause (pfc_quanta) out of port 0;
 * more frames send none until half the quanta's time has passed (the
 * refresh); draining port 1 sends the resume (zero quanta) only below
 * 1000 bytes, once.  pfc_headroom 1000: the frame that would take the
 * port past 3000 bytes is dropped (pfc_headroom).
 */
START_TEST(test_pfc_hysteresis)
{
	struct sw_config *c = t_cfg_line();
	struct t_seen seen = { 0 };
	struct sw_totals t;
	struct t_switch s;
	uint64_t now = T_US, xoff, xon, room, half;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct sw_queue_config *q = &c->ports[i].queue;

		q->ecn = false;
		q->pfc = true;
		q->pfc_xoff_bytes = 2000;
		q->pfc_xon_bytes = 1000;
		q->pfc_headroom_bytes = 1000;
		q->pfc_quanta = 1000;	/* 5.12 us at 100 Gb/s */
	}
	t_start(&s, c);
	sw_engine_pfc_limits(s.eng, 0, &xoff, &xon, &room);
	ck_assert_uint_eq(xoff, 2000);
	ck_assert_uint_eq(xon, 1000);
	ck_assert_uint_eq(room, 1000);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_STALL, 0, now),
			 0);
	t_send_sized(&s, 10, 200, 0, now);		/* 2000: not above */
	ck_assert_uint_eq(sw_worker_take_kicks(s.w), 0);
	ck_assert_int_eq(t_pfc_take(&s, 0, now), -1);
	t_send_sized(&s, 1, 200, 10, now);		/* 2200: xoff */
	ck_assert_uint_eq(sw_worker_take_kicks(s.w), 1u << 0);
	ck_assert_int_eq(t_pfc_take(&s, 0, now), 1000);
	t_send_sized(&s, 4, 200, 11, now + 1);		/* 3000: no new pause */
	ck_assert_int_eq(t_pfc_take(&s, 0, now + 1), -1);
	t_send_sized(&s, 1, 200, 15, now + 2);		/* past the headroom */
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_PFC_HEADROOM], 1);
	ck_assert_uint_eq(t.queue_len[1], 15);
	ck_assert_uint_eq(t.port[0].pfc_pauses_sent, 1);
	/* Still above xon half the quanta later: the pause is refreshed. */
	half = ofan_pfc_quanta_ns(1000, 100000000000ull) / 2;
	ck_assert_uint_eq(half, 2560);
	t_send_sized(&s, 1, 200, 16, now + half - 1);	/* dropped, no refresh */
	ck_assert_int_eq(t_pfc_take(&s, 0, now + half), -1);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 1, SW_LINK_UP, 0,
					    now + half), 0);
	/* Drain to 1000 bytes: at xon, not below it -- no resume yet. */
	ck_assert_uint_eq(t_drain_max(s.w, 1, now + half, 10, t_seen_out,
				      &seen), 10);
	ck_assert_int_eq(t_pfc_take(&s, 0, now + half), -1);
	/* One frame in: 1200; the refresh comes with it. */
	t_send_sized(&s, 1, 200, 17, now + half + 10);
	ck_assert_int_eq(t_pfc_take(&s, 0, now + half + 10), 1000);
	ck_assert_uint_eq(t_drain_max(s.w, 1, now + half + 20, 2, NULL, NULL), 2);
	ck_assert_int_eq(t_pfc_take(&s, 0, now + half + 20), 0);	/* 800 */
	ck_assert_uint_eq(t_drain(s.w, 1, now + half + 30, NULL, NULL), 4);
	ck_assert_int_eq(t_pfc_take(&s, 0, now + half + 30), -1);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[0].pfc_pauses_sent, 2);
	ck_assert_uint_eq(t.port[0].pfc_resumes_sent, 1);
	ck_assert_uint_eq(t.drops[OFAN_DROP_PFC_HEADROOM], 2);
	/* Pause frames count as sent on their port, and nothing leaked. */
	ck_assert_uint_eq(t.port[0].tx_pkts, 3);
	t_stop(&s);
}
END_TEST

/*
 * A received pause stops that egress for its quanta (1000 x 512 bit
 * times = 5120 ns at 100 Gb/s), then it sends again; a pause of another
 * priority is ignored (pause_ignored), a zero-quanta frame resumes at
 * once; pfc_paused_ns is the time granted less what a resume took back.
 * A frame the port had started (peeked) still leaves when paused.
 */
START_TEST(test_pfc_pause_rx)
{
	struct sw_config *c = t_cfg_line();
	struct sw_totals t;
	struct t_switch s;
	struct rte_mbuf *m;
	uint64_t now = 10 * T_US;

	c->ports[0].queue.pfc = true;
	c->ports[1].queue.pfc = true;
	t_start(&s, c);
	t_pfc_rx(&s, 1, 1u << 3, 1000, now);
	ck_assert_uint_eq(sw_worker_take_kicks(s.w), 1u << 1);
	ck_assert_uint_eq(sw_worker_paused_until(s.w, 1), now + 5120);
	t_send_sized(&s, 3, 200, 0, now);
	ck_assert(sw_worker_tx_ready(s.w, 1));
	ck_assert_uint_eq(t_drain(s.w, 1, now + 5119, NULL, NULL), 0);
	ck_assert_uint_eq(t_drain_max(s.w, 1, now + 5120, 1, NULL, NULL), 1);
	/* Another priority: ignored. */
	t_pfc_rx(&s, 1, 1u << 5, 1000, now + 6000);
	ck_assert_uint_eq(t_drain_max(s.w, 1, now + 6000, 1, NULL, NULL), 1);
	/* A started frame finishes although a pause came in meanwhile. */
	ck_assert_uint_eq(sw_worker_tx_peek(s.w, 1, now + 7000, &m, 1), 1);
	t_pfc_rx(&s, 1, 1u << 3, 1000, now + 7001);
	ck_assert_uint_eq(sw_worker_tx_peek(s.w, 1, now + 7002, &m, 1), 1);
	sw_worker_tx_commit(s.w, 1, now + 7002, &m, 1, 1);
	rte_pktmbuf_free(m);
	/* Paused again: nothing more would leave; a resume at +8000. */
	t_send_sized(&s, 1, 200, 3, now + 7003);
	ck_assert_uint_eq(t_drain(s.w, 1, now + 7999, NULL, NULL), 0);
	t_pfc_rx(&s, 1, 1u << 3, 0, now + 8000);
	ck_assert_uint_eq(t_drain(s.w, 1, now + 8000, NULL, NULL), 1);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[1].pfc_pauses_received, 3);
	ck_assert_uint_eq(t.drops[OFAN_DROP_PAUSE_IGNORED], 1);
	ck_assert_uint_eq(t.port[1].pfc_paused_ns, 5120 + 999);
	t_stop(&s);

	/* Without pfc on the port, a pause is not ours to obey. */
	c = t_cfg_line();
	t_start(&s, c);
	t_pfc_rx(&s, 1, 1u << 3, 1000, now);
	t_send_sized(&s, 1, 200, 0, now);
	ck_assert_uint_eq(t_drain(s.w, 1, now, NULL, NULL), 1);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_PAUSE_IGNORED], 1);
	t_stop(&s);
}
END_TEST

/*
 * A lossy egress port ([drop.NAME], common/ofan_loss.h): random loses
 * its share (1,000 frames at 0.5: within 4 sigma of 500), the same for
 * the same seed; bursts as htsim's flaky link, timed from the schedule's
 * start: frames every microsecond, bursts due every 100 us from 100 us
 * with a fixed 10 us length lose 11 frames each, the first frame after
 * one passes; the schedule starting 50 us later shifts them by 50 us.
 * Every lost frame is counted as injected, on the port's egress drops.
 */
START_TEST(test_drop_port)
{
	struct sw_config *c;
	struct sw_totals t;
	struct t_switch s;
	uint64_t lost[2] = { 0 };
	unsigned int i, k;

	for (k = 0; k < 2; k++) {
		c = t_cfg_line();
		c->nb_drops = 1;
		c->drops[0].port = 1;
		ofan_loss_defaults(&c->drops[0].loss);
		c->drops[0].loss.mode = OFAN_LOSS_RANDOM;
		c->drops[0].loss.rate = 0.5;
		t_start(&s, c);
		for (i = 0; i < 1000; i++)
			t_line_send(&s, T_US + i);
		sw_engine_totals(s.eng, &t);
		lost[k] = t.drops[OFAN_DROP_INJECTED];
		ck_assert_uint_eq(t.port[1].egress_drops, lost[k]);
		ck_assert_uint_eq(t_drain_all(s.w, 10 * T_MS, NULL, NULL),
				  1000 - lost[k]);
		t_stop(&s);
	}
	ck_assert_uint_eq(lost[0], lost[1]);
	ck_assert_msg(lost[0] > 436 && lost[0] < 564, "%" PRIu64, lost[0]);

	for (k = 0; k < 2; k++) {
		uint64_t origin = k * 50 * T_US, want = 0;

		c = t_cfg_line();
		c->nb_drops = 1;
		c->drops[0].port = 1;
		ofan_loss_defaults(&c->drops[0].loss);
		c->drops[0].loss.mode = OFAN_LOSS_BURSTS;
		c->drops[0].loss.length_fixed = true;
		c->drops[0].loss.first_ns = 100 * T_US;
		t_start(&s, c);
		sw_engine_set_schedule_start(s.eng, (int64_t)origin);
		for (i = 1; i <= 400; i++) {
			uint64_t at = i * T_US;

			sw_engine_totals(s.eng, &t);
			want = t.drops[OFAN_DROP_INJECTED];
			t_line_send(&s, at);
			sw_engine_totals(s.eng, &t);
			ck_assert_msg(t.drops[OFAN_DROP_INJECTED] - want ==
				      (at >= origin + 100 * T_US &&
				       (at - origin) % (100 * T_US) <= 10 * T_US),
				      "origin %u us, frame at %u us",
				      (unsigned int)(origin / T_US), i);
			t_drain_all(s.w, at, NULL, NULL);
		}
		t_stop(&s);
	}
}
END_TEST

/* ==== 8. failures ==== */

START_TEST(test_fail_down)
{
	static const uint8_t keys[] = { 1, 2, 3 };
	const char *name = t_failover_policies[_i];
	const uint16_t dead = T_UPLINK0 + 1;
	struct sw_totals t0, t;
	struct t_switch s;
	struct t_log *log;
	struct t_gen g;
	struct rte_mbuf *m;
	struct ofan_pkt_spec sp;
	uint64_t now = 0, detect, t_fail, t_up, lost;
	uint32_t from, i, nb_unsent = 0;
	uint16_t p;

	t_start(&s, t_cfg_leaf(name));
	detect = sw_engine_config(s.eng)->detect_delay_ns;
	ck_assert_uint_eq(detect, 10 * T_US);
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED + 17, keys, RTE_DIM(keys), 20, 0);
	t_switch_run(&s, log, &g, 400, &now);
	ck_assert_uint_gt(log->nb_port[dead], 0);

	/*
	 * The link fails with packets queued to it; until the failure is
	 * detected the policy keeps sending there.  All of those are lost as
	 * link_down, none leaves.
	 */
	sw_engine_totals(s.eng, &t0);
	from = log->nb;
	t_gen_burst(s.w, log, &g, now);
	t_gen_burst(s.w, log, &g, now);
	t_fail = now;
	ck_assert_int_eq(sw_engine_set_link(s.eng, dead, SW_LINK_DOWN, 0,
					    t_fail), 0);
	ck_assert_uint_eq(sw_engine_port(s.eng, dead)->link, SW_LINK_DOWN);
	for (i = 0; i < 5; i++) {
		now += T_US;
		t_gen_burst(s.w, log, &g, now);
		t_drain_all(s.w, now, t_log_out, log);
	}
	sw_engine_totals(s.eng, &t);
	lost = t.picks[dead] - t0.picks[dead];
	ck_assert_uint_gt(lost, 0);
	ck_assert_uint_eq(t.drops[OFAN_DROP_LINK_DOWN], lost);
	ck_assert_uint_eq(t.port[dead].egress_drops, lost);
	ck_assert_uint_eq(t.port[dead].tx_pkts, t0.port[dead].tx_pkts);
	ck_assert_uint_eq(t.queue_len[dead], 0);
	for (i = from; i < log->nb; i++)
		nb_unsent += log->out[i] == T_NONE;
	ck_assert_uint_eq(nb_unsent, lost);
	ck_assert_uint_eq(t_drops_sum(&t), lost);

	/* What arrives on the dead link is lost too. */
	t_spec(&sp, dead, T_IP(10, 0, 1, 5), T_HOST_IP(2), 9, 0);
	m = t_pkt(&sp, LB_KIND_DATA);
	sw_worker_input(s.w, dead, &m, 1, now);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_LINK_DOWN], lost + 1);
	ck_assert_uint_eq(t.port[dead].drops, 1);

	/* Withdrawn exactly detect_delay after the failure. */
	sw_engine_control(s.eng, t_fail + detect - 1);
	ck_assert_uint_eq(t_weight(&s, dead), 1);
	ck_assert(!sw_engine_port(s.eng, dead)->removed);
	sw_engine_control(s.eng, t_fail + detect);
	ck_assert_uint_eq(t_weight(&s, dead), 0);
	ck_assert_uint_eq(sw_engine_group(s.eng, T_GROUP_UP)->nb_live, 3);
	ck_assert(sw_engine_port(s.eng, dead)->removed);

	/* From the next burst on it is never picked and nothing is lost. */
	sw_engine_totals(s.eng, &t0);
	now = t_fail + detect;
	from = log->nb;
	t_switch_run(&s, log, &g, from + 1000, &now);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.picks[dead], t0.picks[dead]);
	ck_assert_uint_eq(t_drops_sum(&t), t_drops_sum(&t0));
	t_log_check_delivered(log, from);
	for (p = T_UPLINK0; p < T_NB_PORTS; p++)
		if (p != dead)
			ck_assert_uint_gt(t.port[p].tx_pkts,
					  t0.port[p].tx_pkts);
	if (strcmp(name, "ofan") == 0)
		t_check_rotation(log, from, log->nb, 0xf & ~(1u << 1));

	/* Up again: used only once detect_delay has passed. */
	t_up = now;
	ck_assert_int_eq(sw_engine_set_link(s.eng, dead, SW_LINK_UP, 0, t_up),
			 0);
	sw_engine_control(s.eng, t_up + detect - 1);
	ck_assert_uint_eq(t_weight(&s, dead), 0);
	from = log->nb;
	t_switch_run(&s, log, &g, from + 100, &now);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.picks[dead], t0.picks[dead]);
	sw_engine_control(s.eng, RTE_MAX(now, t_up + detect));
	ck_assert_uint_eq(t_weight(&s, dead), 1);
	ck_assert(!sw_engine_port(s.eng, dead)->removed);
	from = log->nb;
	t_switch_run(&s, log, &g, from + 1000, &now);
	t_log_check_delivered(log, from);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_gt(t.picks[dead], t0.picks[dead]);
	ck_assert_uint_gt(t.port[dead].tx_pkts, t0.port[dead].tx_pkts);
	ck_assert_uint_eq(t_drops_sum(&t), lost + 1);
	if (strcmp(name, "ofan") == 0)
		t_check_rotation(log, from, log->nb, 0xf);
	free(log);
	t_stop(&s);
}
END_TEST

START_TEST(test_fail_blackhole)
{
	static const uint8_t keys[] = { 1, 2, 3 };
	const uint16_t dead = T_UPLINK0 + 2;
	struct sw_totals t0, t;
	struct t_switch s;
	struct t_log *log;
	struct t_gen g;
	uint64_t now = 0, reconverge, t_fail, lost;
	uint32_t from;

	t_start(&s, t_cfg_leaf("ofan"));
	reconverge = sw_engine_config(s.eng)->reconverge_delay_ns;
	ck_assert_uint_eq(reconverge, 100 * T_US);
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED + 23, keys, RTE_DIM(keys), 20, 0);
	t_switch_run(&s, log, &g, 300, &now);
	sw_engine_totals(s.eng, &t0);
	t_fail = now;
	ck_assert_int_eq(sw_engine_set_link(s.eng, dead, SW_LINK_BLACKHOLE, 0,
					    t_fail), 0);
	/*
	 * Silently lost for the whole reconvergence delay, even though
	 * control ticks every microsecond and detect_delay (10 us) passes.
	 */
	while (now < t_fail + reconverge) {
		sw_engine_control(s.eng, now);
		ck_assert_uint_eq(t_weight(&s, dead), 1);
		t_gen_burst(s.w, log, &g, now);
		t_drain_all(s.w, now, t_log_out, log);
		now += T_US;
	}
	sw_engine_totals(s.eng, &t);
	lost = t.picks[dead] - t0.picks[dead];
	ck_assert_uint_gt(lost, 50);
	ck_assert_uint_eq(t.drops[OFAN_DROP_BLACKHOLE], lost);
	ck_assert_uint_eq(t.drops[OFAN_DROP_LINK_DOWN], 0);
	ck_assert_uint_eq(t.port[dead].tx_pkts, t0.port[dead].tx_pkts);
	sw_engine_control(s.eng, t_fail + reconverge);
	ck_assert_uint_eq(t_weight(&s, dead), 0);

	/* Routed around: no more losses. */
	from = log->nb;
	t_switch_run(&s, log, &g, from + 500, &now);
	t_log_check_delivered(log, from);
	t_check_rotation(log, from, log->nb, 0xf & ~(1u << 2));
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_BLACKHOLE], lost);
	ck_assert_uint_eq(t_drops_sum(&t), lost);
	free(log);
	t_stop(&s);
}
END_TEST

START_TEST(test_fail_degraded)
{
	struct sw_config *c = t_cfg_line();
	const uint64_t t1 = OFAN_NS_PER_MS;
	struct t_switch s;

	t_start(&s, c);
	/* Unshaped: everything leaves at once. */
	t_send_many(&s, 20, 0);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, NULL, NULL), 20);

	ck_assert_int_eq(sw_engine_set_link(s.eng, T_LINE_OUT,
					    SW_LINK_DEGRADED, T_SHAPE_RATE,
					    t1), 0);
	ck_assert_uint_eq(sw_engine_port(s.eng, T_LINE_OUT)->rate_bps,
			  T_SHAPE_RATE);
	ck_assert_uint_eq(sw_engine_port(s.eng, T_LINE_OUT)->link,
			  SW_LINK_DEGRADED);
	t_send_many(&s, 20, t1);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, t1, NULL, NULL), 1);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, t1 + 50 * T_US, NULL, NULL),
			  t_starts_by(t1, t1 + 50 * T_US) - 1);
	/* A degraded link stays in its groups. */
	sw_engine_control(s.eng, t1 + OFAN_NS_PER_MS);
	ck_assert(!sw_engine_port(s.eng, T_LINE_OUT)->removed);

	/* Restored: the configured rate (none) is back. */
	ck_assert_int_eq(sw_engine_set_link(s.eng, T_LINE_OUT, SW_LINK_UP, 0,
					    t1 + 50 * T_US), 0);
	ck_assert_uint_eq(sw_engine_port(s.eng, T_LINE_OUT)->rate_bps, 0);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, t1 + 50 * T_US, NULL, NULL),
			  20 - t_starts_by(t1, t1 + 50 * T_US));

	/*
	 * Down, then degraded before the failure was detected: the link
	 * carries traffic again, so the pending withdrawal is cancelled.
	 */
	ck_assert_int_eq(sw_engine_set_link(s.eng, T_LINE_OUT, SW_LINK_DOWN, 0,
					    2 * t1), 0);
	ck_assert_int_eq(sw_engine_set_link(s.eng, T_LINE_OUT,
					    SW_LINK_DEGRADED, T_SHAPE_RATE,
					    2 * t1 + 1), 0);
	sw_engine_control(s.eng, 3 * t1);
	ck_assert(!sw_engine_port(s.eng, T_LINE_OUT)->removed);
	ck_assert_uint_eq(sw_engine_port(s.eng, T_LINE_OUT)->rate_bps,
			  T_SHAPE_RATE);
	t_stop(&s);
}
END_TEST

/* The config's failure schedule fires through sw_engine_control(). */
START_TEST(test_fail_scheduled)
{
	static const uint8_t keys[] = { 1, 2, 3 };
	struct sw_config *c = t_cfg_leaf("ofan");
	const uint16_t down = T_UPLINK0 + 2, slow = T_UPLINK0 + 3;
	uint64_t picks49 = 0, picks59 = 0, picks159 = 0;
	struct sw_totals t;
	struct t_switch s;
	struct t_log *log;
	struct t_gen g;
	uint64_t now;

	c->failures[0].port = down;
	c->failures[0].mode = SW_LINK_DOWN;
	c->failures[0].at_ns = 50 * T_US;
	c->failures[0].duration_ns = 100 * T_US;
	c->failures[1].port = slow;
	c->failures[1].mode = SW_LINK_DEGRADED;
	c->failures[1].at_ns = 20 * T_US;
	c->failures[1].rate_bps = 8 * T_SHAPE_RATE;
	c->nb_failures = 2;
	t_start(&s, c);
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED + 5, keys, RTE_DIM(keys), 20, 0);
	g.max_payload = 64;
	/* The driver's loop: control tick, one burst, drain; every 1 us. */
	for (now = 0; now < 300 * T_US; now += T_US) {
		uint64_t us = now / T_US;

		sw_engine_control(s.eng, now);
		ck_assert_uint_eq(sw_engine_port(s.eng, down)->link,
				  us >= 50 && us < 150 ? SW_LINK_DOWN :
							 SW_LINK_UP);
		ck_assert_uint_eq(t_weight(&s, down),
				  us >= 60 && us < 160 ? 0 : 1);
		ck_assert_uint_eq(sw_engine_port(s.eng, slow)->link,
				  us >= 20 ? SW_LINK_DEGRADED : SW_LINK_UP);
		ck_assert_uint_eq(sw_engine_port(s.eng, slow)->rate_bps,
				  us >= 20 ? 8 * T_SHAPE_RATE : 0);
		ck_assert_uint_eq(t_weight(&s, slow), 1);
		t_gen_burst(s.w, log, &g, now);
		t_drain_all(s.w, now, t_log_out, log);
		sw_engine_totals(s.eng, &t);
		if (us == 49)
			picks49 = t.picks[down];
		if (us == 59)
			picks59 = t.picks[down];
		if (us == 159)
			picks159 = t.picks[down];
	}
	sw_engine_totals(s.eng, &t);
	/* Lost: what was sent to it between 50 and 59 us. */
	ck_assert_uint_gt(picks59, picks49);
	ck_assert_uint_eq(t.drops[OFAN_DROP_LINK_DOWN], picks59 - picks49);
	/* Withdrawn from 60 us to 159 us, used again from 160 us. */
	ck_assert_uint_eq(picks159, picks59);
	ck_assert_uint_gt(t.picks[down], picks159);
	free(log);
	t_stop(&s);
}
END_TEST

/* Requests from another thread, and what set_link refuses. */
START_TEST(test_fail_request)
{
	struct t_switch s;

	t_start(&s, t_cfg_leaf("ofan"));
	ck_assert_int_eq(sw_engine_request(s.eng, 5, SW_LINK_DOWN, 0), 0);
	ck_assert_int_eq(sw_engine_request(s.eng, 6, SW_LINK_DOWN, 0), -EBUSY);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_UP);
	sw_engine_control(s.eng, 1000);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_DOWN);
	ck_assert_uint_eq(sw_engine_port(s.eng, 6)->link, SW_LINK_UP);
	sw_engine_control(s.eng, 1000 + 10 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 0);
	ck_assert_int_eq(sw_engine_request(s.eng, 5, SW_LINK_UP, 0), 0);
	sw_engine_control(s.eng, 2000 + 10 * T_US);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_UP);
	sw_engine_control(s.eng, 2000 + 20 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 1);

	ck_assert_int_eq(sw_engine_request(s.eng, T_NB_PORTS, SW_LINK_DOWN, 0),
			 -EINVAL);
	ck_assert_int_eq(sw_engine_request(s.eng, 5, SW_LINK_DEGRADED, 0),
			 -EINVAL);
	ck_assert_int_eq(sw_engine_set_link(s.eng, T_NB_PORTS, SW_LINK_DOWN, 0,
					    0), -EINVAL);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 5, SW_LINK_DEGRADED, 0, 0),
			 -EINVAL);
	ck_assert_int_eq(sw_engine_set_link(s.eng, 5, SW_LINK_NB_STATES, 0, 0),
			 -EINVAL);
	ck_assert_int_eq(sw_engine_set_weight(s.eng, 99, 5, 1), -EINVAL);
	ck_assert_int_eq(sw_engine_set_weight(s.eng, T_GROUP_UP, 0, 1),
			 -ENOENT);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_UP);
	t_stop(&s);
}
END_TEST

/* ==== 9. a port without a software queue ==== */

START_TEST(test_noqueue_tx_full)
{
	struct sw_config *c = t_cfg_line();
	struct rte_mbuf *pkts[SW_MAX_BURST];
	unsigned int before, i;
	struct sw_totals t;
	struct t_switch s;
	uint16_t n;

	c->ports[T_LINE_OUT].queue.enabled = false;
	c->ports[T_LINE_OUT].queue.rate_bps = T_SHAPE_RATE;	/* ignored */
	t_start(&s, c);
	before = t_pool_used();
	t_send_sized(&s, 10, 1000, 0, 0);
	n = sw_worker_tx_peek(s.w, T_LINE_OUT, 0, pkts, RTE_DIM(pkts));
	ck_assert_uint_eq(n, 10);
	/* The device takes 4: the other 6 are dropped and freed. */
	sw_worker_tx_commit(s.w, T_LINE_OUT, 0, pkts, n, 4);
	ck_assert_uint_eq(t_pool_used(), before + 4);
	for (i = 0; i < 4; i++) {
		struct ofan_pkt_info info;

		t_parse(pkts[i], &info);
		ck_assert_uint_eq(info.psn, i);
		rte_pktmbuf_free(pkts[i]);
	}
	ck_assert_uint_eq(t_pool_used(), before);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_TX_FULL], 6);
	ck_assert_uint_eq(t.port[T_LINE_OUT].egress_drops, 6);
	ck_assert_uint_eq(t.port[T_LINE_OUT].tx_pkts, 4);
	ck_assert_uint_eq(t.port[T_LINE_OUT].tx_bytes, 4000);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 0);
	ck_assert_uint_eq(t_drops_sum(&t), 6);
	/* No ECN either, however full it gets. */
	ck_assert_uint_eq(t.queue[T_LINE_OUT].ecn_marked, 0);
	t_stop(&s);
}
END_TEST

/* With a queue, what the device did not take stays queued, in order. */
START_TEST(test_queue_partial_commit)
{
	struct rte_mbuf *pkts[SW_MAX_BURST];
	struct sw_totals t;
	struct t_switch s;
	uint32_t next = 4;
	uint16_t n, i;

	t_start(&s, t_cfg_line());
	t_send_sized(&s, 10, 1000, 0, 0);
	n = sw_worker_tx_peek(s.w, T_LINE_OUT, 0, pkts, RTE_DIM(pkts));
	ck_assert_uint_eq(n, 10);
	sw_worker_tx_commit(s.w, T_LINE_OUT, 0, pkts, n, 4);
	for (i = 0; i < 4; i++)
		rte_pktmbuf_free(pkts[i]);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t_drops_sum(&t), 0);
	ck_assert_uint_eq(t.queue_len[T_LINE_OUT], 6);
	ck_assert_uint_eq(t_drain(s.w, T_LINE_OUT, 0, t_in_order, &next), 6);
	t_stop(&s);
}
END_TEST

/* ==== 10. shutdown and the control plane's snapshots ==== */

START_TEST(test_shutdown_frees)
{
	static const uint8_t keys[] = { 0, 1, 2, 3 };
	struct sw_config *c = t_cfg_leaf("ofan");
	uint64_t queued = 0, freed;
	struct sw_totals t;
	struct t_switch s;
	struct t_log *log;
	struct t_gen g;
	unsigned int i;
	uint16_t p;

	c->ports[T_NB_PORTS - 1].queue.enabled = false;
	t_start(&s, c);
	log = t_log_new(s.eng);
	t_gen_init(&g, T_SEED + 3, keys, RTE_DIM(keys), 20, 0);
	for (i = 0; i < 20; i++)
		t_gen_burst(s.w, log, &g, i * T_US);
	sw_engine_totals(s.eng, &t);
	for (p = 0; p < T_NB_PORTS; p++)
		queued += t.queue_len[p];
	ck_assert_uint_eq(queued, log->nb);
	ck_assert_uint_gt(t.queue_len[T_NB_PORTS - 1], 0);
	ck_assert_uint_eq(t_pool_used(), s.pool_start + queued);
	ck_assert_uint_eq(sw_engine_free_queues(s.eng), queued);
	ck_assert_uint_eq(t_pool_used(), s.pool_start);
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.drops[OFAN_DROP_SHUTDOWN], queued);
	for (p = 0; p < T_NB_PORTS; p++)
		ck_assert_uint_eq(t.queue_len[p], 0);

	/* Still usable; sw_engine_free() frees what is left. */
	for (i = 0; i < 10; i++)
		t_gen_burst(s.w, log, &g, (20 + i) * T_US);
	t_drain(s.w, T_UPLINK0, 30 * T_US, NULL, NULL);
	sw_engine_totals(s.eng, &t);
	queued = 0;
	for (p = 0; p < T_NB_PORTS; p++)
		queued += t.queue_len[p];
	ck_assert_uint_gt(queued, 0);
	ck_assert_uint_eq(t_pool_used(), s.pool_start + queued);
	t_track(&s, false);
	freed = sw_engine_free(s.eng);
	ck_assert_uint_eq(freed, queued);
	ck_assert_uint_eq(t_pool_used(), s.pool_start);
	free(s.cfg);
	free(log);
}
END_TEST

/* 40 ofan packets to leaf 1 through worker w; counts per uplink in cnt. */
static void
t_worker_burst(struct sw_worker *w, uint64_t now, uint32_t *cnt)
{
	struct rte_mbuf *pkts[40];
	struct ofan_pkt_spec sp;
	struct t_seen seen;
	uint16_t i, p;

	for (i = 0; i < RTE_DIM(pkts); i++) {
		t_spec(&sp, 0, T_HOST_IP(0), T_LEAF_NET(1) | (1 + i), i, i);
		pkts[i] = t_pkt(&sp, LB_KIND_DATA);
	}
	sw_worker_input(w, 0, pkts, RTE_DIM(pkts), now);
	for (p = T_UPLINK0; p < T_NB_PORTS; p++) {
		memset(&seen, 0, sizeof(seen));
		cnt[p - T_UPLINK0] = t_drain(w, p, now, t_seen_out, &seen);
	}
}

/*
 * Two workers: a weight change reaches both, but a new snapshot is
 * published only once every worker has adopted the previous one.
 */
START_TEST(test_snapshot_workers)
{
	struct sw_worker *w1;
	struct sw_totals t;
	struct t_switch s;
	uint32_t cnt[T_NB_UPLINKS];
	uint64_t nb_tx = 0;
	uint16_t u;

	t_start_workers(&s, t_cfg_leaf("ofan"), 2);
	w1 = sw_engine_worker(s.eng, 1);
	ck_assert_ptr_nonnull(w1);
	ck_assert_ptr_null(sw_engine_worker(s.eng, 2));
	ck_assert_uint_eq(sw_engine_nb_workers(s.eng), 2);

	ck_assert_int_eq(sw_engine_set_weight(s.eng, T_GROUP_UP, T_UPLINK0, 0),
			 0);
	sw_engine_control(s.eng, T_US);
	ck_assert_uint_eq(t_weight(&s, T_UPLINK0), 0);
	t_worker_burst(s.w, T_US, cnt);
	ck_assert_uint_eq(cnt[0], 0);
	for (u = 1; u < T_NB_UPLINKS; u++)
		ck_assert_uint_ge(cnt[u], 13);

	/* Restored in the master copy, but worker 1 still holds gen 0. */
	ck_assert_int_eq(sw_engine_set_weight(s.eng, T_GROUP_UP, T_UPLINK0, 1),
			 0);
	sw_engine_control(s.eng, 2 * T_US);
	ck_assert_uint_eq(t_weight(&s, T_UPLINK0), 1);
	t_worker_burst(s.w, 2 * T_US, cnt);
	ck_assert_uint_eq(cnt[0], 0);
	t_worker_burst(w1, 2 * T_US, cnt);
	ck_assert_uint_eq(cnt[0], 0);
	/* Both have left gen 0: the next tick publishes. */
	sw_engine_control(s.eng, 3 * T_US);
	t_worker_burst(s.w, 3 * T_US, cnt);
	for (u = 0; u < T_NB_UPLINKS; u++)
		ck_assert_uint_eq(cnt[u], 10);
	t_worker_burst(w1, 3 * T_US, cnt);
	for (u = 0; u < T_NB_UPLINKS; u++)
		ck_assert_uint_eq(cnt[u], 10);

	/* Totals add both workers up. */
	sw_engine_totals(s.eng, &t);
	ck_assert_uint_eq(t.port[0].rx_pkts, 5 * 40);
	for (u = 0; u < T_NB_UPLINKS; u++)
		nb_tx += t.port[T_UPLINK0 + u].tx_pkts;
	ck_assert_uint_eq(nb_tx, 5 * 40);
	t_stop(&s);
}
END_TEST

/* ==== 11. the loader, end to end ==== */

static void
t_data_path(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("OFAN_TEST_DATA");

	snprintf(buf, size, "%s/engine/%s", dir != NULL ? dir : "tests/data",
		 name);
}

/* Forward one data packet to dst from port 0; returns the egress port. */
static uint16_t
t_forward_one(struct t_switch *s, uint32_t dst, uint64_t now, uint8_t mac[6])
{
	struct t_seen seen = { .port = T_NONE };
	struct ofan_pkt_spec sp;
	struct rte_mbuf *m;
	uint16_t p;

	t_spec(&sp, 0, T_HOST_IP(0), dst, 321, 0);
	m = t_pkt(&sp, LB_KIND_DATA);
	sw_worker_input(s->w, 0, &m, 1, now);
	for (p = 0; p < s->cfg->nb_ports; p++) {
		struct rte_mbuf *pkts[1];

		if (sw_worker_tx_peek(s->w, p, now, pkts, 1) != 1)
			continue;
		sw_worker_tx_commit(s->w, p, now, pkts, 1, 1);
		t_seen_out(&seen, p, pkts[0]);
		if (mac != NULL)
			memcpy(mac, rte_pktmbuf_mtod(pkts[0], uint8_t *), 6);
		rte_pktmbuf_free(pkts[0]);
	}
	ck_assert_uint_eq(seen.nb, 1);
	return seen.port;
}

/* The engine's control-plane log lines, kept for a test to read. */
struct t_ctl_log {
	uint32_t nb;
	uint64_t at_ns[8];
	char line[8][256];
};

static void
t_ctl_log_line(void *arg, uint64_t now_ns, const char *msg)
{
	struct t_ctl_log *l = arg;

	if (l->nb == RTE_DIM(l->line))
		return;
	l->at_ns[l->nb] = now_ns;
	snprintf(l->line[l->nb++], sizeof(l->line[0]), "%s", msg);
}

/*
 * [reroute.NAME] sets a whole group's weights at its time, counted from
 * the schedule's start (ofan-switch --start-at), and says so in the log.
 */
START_TEST(test_reroute_scheduled)
{
	static const uint16_t w[T_NB_UPLINKS] = { 1, 0, 2, 1 };
	struct sw_config *c = t_cfg_leaf("ofan");
	struct sw_reroute_config *r = &c->reroutes[0], saved;
	uint32_t cnt[T_NB_PORTS] = { 0 };
	struct t_ctl_log log = { 0 };
	const struct lb_group *grp;
	struct t_switch s;
	uint32_t i;
	uint16_t m;

	snprintf(r->name, sizeof(r->name), "reroute.hole-0");
	r->group = T_GROUP_UP;
	r->at_ns = 30 * T_US;
	memcpy(r->weight, w, sizeof(w));
	c->nb_reroutes = 1;
	saved = *r;
	t_start(&s, c);
	sw_engine_set_log(s.eng, t_ctl_log_line, &log);
	sw_engine_set_schedule_start(s.eng, 100 * T_US);
	/* Not at 30 us of the switch's own time, nor at 129 us. */
	sw_engine_control(s.eng, 30 * T_US);
	sw_engine_control(s.eng, 129 * T_US);
	grp = sw_engine_group(s.eng, T_GROUP_UP);
	for (m = 0; m < T_NB_UPLINKS; m++)
		ck_assert_uint_eq(grp->weight[m], 1);
	ck_assert_uint_eq(log.nb, 0);
	sw_engine_control(s.eng, 130 * T_US);
	for (m = 0; m < T_NB_UPLINKS; m++)
		ck_assert_uint_eq(grp->weight[m], w[m]);
	ck_assert_uint_eq(log.nb, 1);
	ck_assert_uint_eq(log.at_ns[0], 130 * T_US);
	ck_assert_str_eq(log.line[0], "group up: weights 1, 0, 2, 1 (scheduled, [reroute.hole-0])");
	/* Once only. */
	sw_engine_control(s.eng, 200 * T_US);
	ck_assert_uint_eq(log.nb, 1);
	t_stop(&s);

	/*
	 * Held (the moment not known yet): nothing, however late; a start
	 * 20 us before the engine's: due at 10 us of the engine's time.
	 */
	c = t_cfg_leaf("ofan");
	c->reroutes[0] = saved;
	c->nb_reroutes = 1;
	t_start(&s, c);
	log.nb = 0;
	sw_engine_set_log(s.eng, t_ctl_log_line, &log);
	sw_engine_set_schedule_start(s.eng, SW_SCHEDULE_HELD);
	sw_engine_control(s.eng, 3600 * T_MS * 1000);
	ck_assert_uint_eq(log.nb, 0);
	sw_engine_set_schedule_start(s.eng, -(int64_t)(20 * T_US));
	sw_engine_control(s.eng, 9 * T_US);
	ck_assert_uint_eq(log.nb, 0);
	sw_engine_control(s.eng, 10 * T_US);
	ck_assert_uint_eq(log.nb, 1);
	grp = sw_engine_group(s.eng, T_GROUP_UP);
	/* Ofan's cycle follows the weights: 40 packets give 10, 0, 20, 10. */
	for (i = 0; i < 40; i++)
		cnt[t_forward_one(&s, T_LEAF_NET(1) | (1 + i),
				  (200 + i) * T_US, NULL)]++;
	for (m = 0; m < T_NB_UPLINKS; m++)
		ck_assert_uint_eq(cnt[grp->port[m]], 10 * w[m]);
	t_stop(&s);
}
END_TEST

/*
 * sw_config_copy() into zeroed memory gives the loaded configuration
 * byte for byte (its tables' unused entries are zero), without writing
 * those unused entries: a canary there survives the copy.
 */
START_TEST(test_config_copy)
{
	struct sw_config *c = calloc(1, sizeof(*c));
	struct sw_config *d = calloc(1, sizeof(*d));
	char path[512], err[512] = "";

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(d);
	t_data_path(path, sizeof(path), "leaf.ini");
	ck_assert_msg(sw_config_load(path, c, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_uint_gt(c->nb_groups, 0);
	ck_assert_uint_gt(c->nb_routes, 0);
	sw_config_copy(d, c);
	ck_assert_int_eq(memcmp(c, d, sizeof(*c)), 0);
	memset(d, 0, sizeof(*d));
	d->routes[SW_MAX_ROUTES - 1].depth = 17;
	d->groups[SW_MAX_GROUPS - 1].nb_members = 3;
	sw_config_copy(d, c);
	ck_assert_uint_eq(d->routes[SW_MAX_ROUTES - 1].depth, 17);
	ck_assert_uint_eq(d->groups[SW_MAX_GROUPS - 1].nb_members, 3);
	ck_assert_uint_eq(d->nb_reroutes, c->nb_reroutes);
	ck_assert_uint_eq(d->nb_dst_keys, c->nb_dst_keys);
	free(c);
	free(d);
}
END_TEST

START_TEST(test_loader_leaf)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct sw_config *c = calloc(1, sizeof(*c));
	char path[512], err[512] = "";
	uint32_t cnt[T_NB_PORTS] = { 0 };
	const struct sw_route_config *def = NULL;
	struct sw_totals t;
	struct t_switch s;
	uint8_t mac[6];
	uint32_t i;
	int up;

	ck_assert_ptr_nonnull(c);
	t_data_path(path, sizeof(path), "leaf.ini");
	ck_assert_msg(sw_config_load(path, c, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_str_eq(c->name, "leaf-test");
	ck_assert_ptr_eq(c->policy, lb_find("ofan"));
	ck_assert_uint_eq(c->seed, 7);
	ck_assert(c->verify_checksum);
	ck_assert_uint_eq(c->detect_delay_ns, 5 * T_US);
	ck_assert_uint_eq(c->reconverge_delay_ns, 50 * T_US);
	ck_assert_uint_eq(c->nb_ports, T_NB_PORTS);
	ck_assert_uint_eq(c->ports[0].ip, T_SWITCH_IP(0));
	ck_assert(c->ports[0].mac_set);
	ck_assert(!c->ports[1].peer_mac_set);
	ck_assert(c->ports[4].peer_mac_set);
	ck_assert_uint_eq(c->ports[0].queue.capacity_pkts, 256);
	ck_assert_uint_eq(c->ports[0].queue.ecn_kmin_bytes, 16 << 10);
	ck_assert_uint_eq(c->ports[7].queue.capacity_pkts, 64);
	ck_assert_uint_eq(c->ports[4].queue.rate_bps, 0);
	ck_assert_uint_eq(c->ports[7].queue.rate_bps, 10 * T_SHAPE_RATE);
	up = sw_config_find_group(c, "up");
	ck_assert_int_ge(up, 0);
	ck_assert_uint_eq(c->groups[up].nb_members, 4);
	ck_assert_uint_eq(c->groups[up].weight[2], 2);
	ck_assert_uint_eq(c->nb_routes, 7);
	for (i = 0; i < c->nb_routes; i++)
		if (c->routes[i].depth == 0)
			def = &c->routes[i];
	ck_assert_ptr_nonnull(def);
	ck_assert_uint_eq(def->dst_key, 9);
	/* Routes without dst_key get keys of their own above the explicit. */
	ck_assert_uint_eq(c->routes[0].dst_key, 0);
	ck_assert_uint_eq(c->routes[1].dst_key, 10);
	ck_assert_uint_eq(c->routes[2].dst_key, 11);
	ck_assert_uint_eq(c->routes[3].dst_key, 12);
	ck_assert_uint_eq(c->nb_dst_keys, 13);
	ck_assert_uint_eq(c->nb_failures, 1);
	ck_assert_uint_eq(c->failures[0].mode, SW_LINK_BLACKHOLE);
	ck_assert_uint_eq(c->failures[0].at_ns, 100 * T_US);

	t_start(&s, c);
	/* A local host whose MAC is not known yet: broadcast. */
	ck_assert_uint_eq(t_forward_one(&s, T_HOST_IP(1), 0, mac), 1);
	ck_assert(memcmp(mac, bcast, 6) == 0);
	/* The default route 0.0.0.0/0 leads to the uplinks. */
	ck_assert_uint_ge(t_forward_one(&s, T_IP(8, 8, 8, 8), 0, NULL),
			  T_UPLINK0);

	/*
	 * Weights 1, 1, 2, 1: ofan's cycle has five slots, two for port 6,
	 * so 50 packets to one leaf give exactly 10, 10, 20, 10.
	 */
	for (i = 0; i < 50; i++)
		cnt[t_forward_one(&s, T_LEAF_NET(1) | (1 + i), i * T_US,
				  NULL)]++;
	ck_assert_uint_eq(cnt[4], 10);
	ck_assert_uint_eq(cnt[5], 10);
	ck_assert_uint_eq(cnt[6], 20);
	ck_assert_uint_eq(cnt[7], 10);

	/* verify_checksum = yes. */
	{
		uint8_t frame[256];
		uint32_t len = t_base_frame(frame, sizeof(frame),
					    T_LEAF_NET(1) | 1, LB_KIND_DATA, 8);
		struct rte_mbuf *m;

		frame[OFAN_ETH_HDR_SIZE + 11] ^= 1;
		m = t_mbuf(frame, len);
		sw_worker_input(s.w, 0, &m, 1, 0);
		sw_engine_totals(s.eng, &t);
		ck_assert_uint_eq(t.drops[OFAN_DROP_BAD_CHECKSUM], 1);
	}

	/* [failure.up5]: port 5 black-holed from 100 us for 100 us. */
	sw_engine_control(s.eng, 99 * T_US);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_UP);
	sw_engine_control(s.eng, 100 * T_US);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_BLACKHOLE);
	sw_engine_control(s.eng, 149 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 1);
	sw_engine_control(s.eng, 150 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 0);
	sw_engine_control(s.eng, 200 * T_US);
	ck_assert_uint_eq(sw_engine_port(s.eng, 5)->link, SW_LINK_UP);
	sw_engine_control(s.eng, 204 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 0);
	sw_engine_control(s.eng, 205 * T_US);
	ck_assert_uint_eq(t_weight(&s, 5), 1);
	t_stop(&s);
}
END_TEST

/*
 * Load the config text into c through a temporary file, as ofan-switch
 * loads its file; path gets the file's name (gone again by the return).
 */
static int
t_load_text(struct sw_config *c, char path[32], char *err, size_t err_size,
	    const char *text)
{
	FILE *f;
	int fd, rc;

	snprintf(path, 32, "/tmp/ofan_test_engine_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	rc = sw_config_load(path, c, err, (unsigned int)err_size);
	unlink(path);
	return rc;
}

/* Every policy name loads through the INI loader; mistakes are named. */
START_TEST(test_loader_tmp)
{
	struct sw_config *c = calloc(1, sizeof(*c));
	char path[32], text[512], err[512] = "";
	int rc;

	ck_assert_ptr_nonnull(c);
	snprintf(text, sizeof(text), "[switch]\npolicy = %s\n"
		 "[port.0]\ndev = net_null0\n"
		 "[port.1]\ndev = net_null1\n%s"
		 "[route.r]\nprefix = 10.0.1.0/24\nport = 1\ndst_key = 3\n",
		 t_policies[_i], _i == 0 ? "colour = blue\n" : "");
	rc = t_load_text(c, path, err, sizeof(err), text);
	if (_i == 0) {
		/* An unknown key is named with file, section and key. */
		ck_assert_int_eq(rc, -EINVAL);
		ck_assert_msg(strstr(err, path) != NULL &&
			      strstr(err, "port.1") != NULL &&
			      strstr(err, "colour") != NULL, "message: %s",
			      err);
	} else {
		struct t_switch s;

		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_ptr_eq(c->policy, lb_find(t_policies[_i]));
		ck_assert_uint_eq(c->nb_dst_keys, 4);
		c->path = NULL;
		t_start(&s, c);
		ck_assert_uint_eq(t_forward_one(&s, T_LEAF_NET(1) | 1, 0, NULL),
				  1);
		t_stop(&s);
		return;
	}
	free(c);
}
END_TEST

/* [reroute.NAME] as written, and its mistakes named. */
/*
 * A three-port switch (group up = ports 1, 2; 10.0.1.0/24 through it)
 * with tail added, loaded as ofan-switch loads its file: it loads and
 * ok() checks it, or the message names the file and has want.
 */
static void
t_loader_case(const char *tail, const char *want,
	      void (*ok)(const struct sw_config *c))
{
	struct sw_config *c = calloc(1, sizeof(*c));
	char path[32], text[1024], err[512] = "";
	int rc;

	ck_assert_ptr_nonnull(c);
	snprintf(text, sizeof(text), "[switch]\npolicy = ofan\n"
		 "[port.0]\ndev = net_null0\n[port.1]\ndev = net_null1\n"
		 "[port.2]\ndev = net_null2\n"
		 "[group.up]\nmembers = 1, 2\n"
		 "[route.r]\nprefix = 10.0.1.0/24\ngroup = up\n%s", tail);
	rc = t_load_text(c, path, err, sizeof(err), text);
	if (want == NULL) {
		ck_assert_msg(rc == 0, "%s", err);
		ok(c);
	} else {
		ck_assert_int_eq(rc, -EINVAL);
		ck_assert_msg(strstr(err, path) != NULL &&
			      strstr(err, want) != NULL, "message: %s", err);
	}
	free(c);
}

static void
t_reroute_ok(const struct sw_config *c)
{
	ck_assert_uint_eq(c->nb_reroutes, 1);
	ck_assert_str_eq(c->reroutes[0].name, "reroute.r");
	ck_assert_uint_eq(c->reroutes[0].at_ns, 2 * T_MS);
	ck_assert_uint_eq(c->reroutes[0].group, sw_config_find_group(c, "up"));
	ck_assert_uint_eq(c->reroutes[0].weight[0], 0);
	ck_assert_uint_eq(c->reroutes[0].weight[1], 3);
}

START_TEST(test_loader_reroute)
{
	static const char *const cases[] = {
		"group = up\nweights = 0, 3\n",
		"group = down\nweights = 0, 3\n",
		"group = up\nweights = 1\n",
		"group = up\nweights = 1, 1001\n",
	};
	static const char *const want[] = {
		NULL,
		"reroute.r:group: 'down' is not a group",
		"reroute.r:weights: has 1 values for the 2 members of [group.up]",
		"reroute.r:weights",
	};
	char tail[256];

	snprintf(tail, sizeof(tail), "[reroute.r]\nat = 2ms\n%s", cases[_i]);
	t_loader_case(tail, want[_i], t_reroute_ok);
}
END_TEST

static void
t_drop_ok(const struct sw_config *c)
{
	ck_assert_uint_eq(c->nb_drops, 1);
	ck_assert_uint_eq(c->drops[0].port, 1);
	ck_assert_uint_eq(c->drops[0].loss.mode, OFAN_LOSS_BURSTS);
	ck_assert_uint_eq(c->drops[0].loss.every_ns, 50 * T_US);
	ck_assert_uint_eq(c->drops[0].loss.first_ns, 50 * T_US);
	ck_assert_uint_eq(c->drops[0].loss.length_ns, 5 * T_US);
	ck_assert(c->drops[0].loss.length_fixed);
	ck_assert_uint_eq(c->failures[0].mode, SW_LINK_STALL);
}

/*
 * [drop.NAME] (a lossy egress port) and mode = stall load as written, and
 * their mistakes are named.
 */
START_TEST(test_loader_drop)
{
	static const char *const cases[] = {
		"[drop.d]\nport = 1\nmode = bursts\nevery = 50us\nlength = 5us\nlength_fixed = yes\n[failure.s]\nport = 2\nmode = stall\nat = 1ms\n",
		"[drop.d]\nport = 1\nmode = random\n",
		"[drop.d]\nport = 1\nmode = random\nrate = 0\n",
		"[drop.d]\nport = 1\nmode = frames\n",
		"[drop.d]\nport = 3\nmode = random\nrate = 0.1\n",
		"[drop.d]\nport = 1\nmode = random\nrate = 0.1\n[drop.e]\nport = 1\nmode = bursts\n",
	};
	static const char *const want[] = {
		NULL,
		"drop.d:rate",
		"drop.d:rate: '0' loses nothing",
		"drop.d:mode: 'frames'",
		"drop.d:port: '3'",
		"drop.e:port: '1' is lossy in another [drop.*] section",
	};

	t_loader_case(cases[_i], want[_i], t_drop_ok);
}
END_TEST

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

static Suite *
engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc;

	tc = tcase_create("forwarding");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_fwd_policy, 0, RTE_DIM(t_policies));
	tcase_add_test(tc, test_ofan_exact);
	tcase_add_test(tc, test_ecmp_flow_sticks);
	tcase_add_test(tc, test_ecmp_ev_spread);
	tcase_add_test(tc, test_fwd_chained);
	suite_add_tcase(s, tc);

	tc = tcase_create("drops");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_add_test(tc, test_drop_reasons);
	tcase_add_test(tc, test_icmp_time_exceeded);
	tcase_add_test(tc, test_drop_checksum);
	tcase_add_loop_test(tc, test_drop_no_member, 0, RTE_DIM(t_policies));
#ifdef NDEBUG
	tcase_add_test(tc, test_drop_bad_pick);
#endif
	suite_add_tcase(s, tc);

	tc = tcase_create("arp");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_add_test(tc, test_arp);
	suite_add_tcase(s, tc);

	tc = tcase_create("queue");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_queue_packets);
	tcase_add_test(tc, test_queue_bytes);
	tcase_add_test(tc, test_queue_ecn);
	tcase_add_test(tc, test_queue_frame_model);
	tcase_add_test(tc, test_queue_hist_bin);
	tcase_add_test(tc, test_trim_victim_ack);
	tcase_add_test(tc, test_queue_ecn_probability);
	tcase_add_test(tc, test_queue_partial_commit);
	tcase_add_test(tc, test_noqueue_tx_full);
	suite_add_tcase(s, tc);

	tc = tcase_create("shaping");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_add_test(tc, test_shape_fine_polls);
	tcase_add_test(tc, test_shape_coarse_polls);
	tcase_add_test(tc, test_shape_idle);
	suite_add_tcase(s, tc);

	tc = tcase_create("failures");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_stall_port);
	tcase_add_test(tc, test_pfc_hysteresis);
	tcase_add_test(tc, test_pfc_pause_rx);
	tcase_add_test(tc, test_drop_port);
	tcase_add_loop_test(tc, test_fail_down, 0,
			    RTE_DIM(t_failover_policies));
	tcase_add_test(tc, test_fail_blackhole);
	tcase_add_test(tc, test_reroute_scheduled);
	tcase_add_test(tc, test_fail_degraded);
	tcase_add_test(tc, test_fail_scheduled);
	tcase_add_test(tc, test_fail_request);
	suite_add_tcase(s, tc);

	tc = tcase_create("lifecycle");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_add_test(tc, test_shutdown_frees);
	tcase_add_test(tc, test_snapshot_workers);
	suite_add_tcase(s, tc);

	tc = tcase_create("loader");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_add_test(tc, test_config_copy);
	tcase_add_test(tc, test_loader_leaf);
	tcase_add_loop_test(tc, test_loader_tmp, 0, RTE_DIM(t_policies));
	tcase_add_loop_test(tc, test_loader_reroute, 0, 4);
	tcase_add_loop_test(tc, test_loader_drop, 0, 6);
	suite_add_tcase(s, tc);

	tc = tcase_create("vector");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_vector_scalar, 0,
			    RTE_DIM(t_policies) * T_VEC_MODES);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
#ifdef NDEBUG
	/* Registered before any configuration is read, as a plugin would. */
	if (lb_register(&t_rogue_ops) != 0) {
		fprintf(stderr, "test_engine: lb_register failed\n");
		return EXIT_FAILURE;
	}
#endif
	return t_eal_run_suite("test_engine", engine_suite(), T_NB_MBUFS, &t_pool);
}
