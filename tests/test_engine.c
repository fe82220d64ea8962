/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the switch engine (switch/engine/sw_engine.c, sw_queue.c and the loader
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
 *
 * This file holds the fixtures and helpers (engine_t.h), forwarding (1 to
 * 3) and the suite; test_engine_drops.c the drops and ARP (4, 5),
 * test_engine_queues.c queues, shaping and PFC (6, 7),
 * test_engine_control.c failures, the queue-less port, shutdown and the
 * loader (8 to 11), test_engine_vector.c the vector path (12).
 */
#include "engine_t.h"
#include "eal_suite.h"

struct rte_mempool *t_pool;

/* ---- configurations ---- */

void
t_port_mac(uint16_t port, uint8_t mac[6])
{
	static const uint8_t base[6] = { 0x02, 0, 0, 0, 0, 0 };

	memcpy(mac, base, 6);
	mac[5] = (uint8_t)port;
}

void
t_peer_mac(uint16_t port, uint8_t mac[6])
{
	t_port_mac(port, mac);
	mac[4] = 0x01;
}

/* Defaults, the policy and the test seed; no ports yet.  Heap: it is big. */
struct sw_config *
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
uint16_t
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
uint16_t
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

void
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
struct sw_config *
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
struct sw_config *
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


/*
 * Engines of the running test.  A failed assertion leaves the test at
 * once (a longjmp: its stack is gone); t_teardown() then frees what it
 * left, so that later tests still find memory for their FIB (an rte_lpm
 * takes 64 MB) and mbufs.  Copies, not pointers to the test's t_switch.
 */
struct t_switch t_live[4];

void
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

void
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

void
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

void
t_start(struct t_switch *s, struct sw_config *cfg)
{
	t_start_workers(s, cfg, 1);
}

unsigned int
t_pool_used(void)
{
	return rte_mempool_in_use_count(t_pool);
}

/* Shut down as ofan-switch does, and check that no mbuf leaked. */
void
t_stop(struct t_switch *s)
{
	t_track(s, false);
	sw_engine_free_queues(s->eng);
	ck_assert_uint_eq(sw_engine_free(s->eng), 0);
	free(s->cfg);
	ck_assert_uint_eq(t_pool_used(), s->pool_start);
}

uint64_t
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
void
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

uint32_t
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

struct rte_mbuf *
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

struct rte_mbuf *
t_pkt(const struct ofan_pkt_spec *sp, uint8_t kind)
{
	uint8_t buf[T_FRAME_MAX];

	return t_mbuf(buf, t_build(buf, sizeof(buf), sp, kind));
}

/* A data frame of exactly size bytes from host 0 (port 0) to dst_ip. */
struct rte_mbuf *
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
void
t_fix_csum(uint8_t *frame)
{
	struct ofan_ipv4_hdr *ip =
		(struct ofan_ipv4_hdr *)(frame + OFAN_ETH_HDR_SIZE);

	ip->checksum = 0;
	ip->checksum = ofan_ipv4_checksum(ip, (ip->version_ihl & 0xf) * 4u);
}

void
t_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The whole frame of m, however many segments, in buf if need be. */
const uint8_t *
t_bytes(const struct rte_mbuf *m, uint8_t *buf, size_t size)
{
	const uint8_t *p;

	ck_assert_uint_le(rte_pktmbuf_pkt_len(m), size);
	p = rte_pktmbuf_read(m, 0, rte_pktmbuf_pkt_len(m), buf);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* Parse a frame the switch sent; it must be well formed. */
void
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
void
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

/*
 * Act as a device that takes everything: send what port of w may send at
 * now, at most max packets (0: no limit), show each to visit (may be NULL)
 * and free it.  Returns how many left.
 */
unsigned int
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

unsigned int
t_drain(struct sw_worker *w, uint16_t port, uint64_t now, t_visit_fn visit,
	void *arg)
{
	return t_drain_max(w, port, now, 0, visit, arg);
}

unsigned int
t_drain_all(struct sw_worker *w, uint64_t now, t_visit_fn visit, void *arg)
{
	uint16_t p, nb_ports = sw_engine_config(w->eng)->nb_ports;
	unsigned int total = 0;

	for (p = 0; p < nb_ports; p++)
		total += t_drain(w, p, now, visit, arg);
	return total;
}

/* A visitor that remembers the last port and how many it saw. */

void
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


/* Packet i of the log carries PSN i, which identifies it on the way out. */

struct t_log *
t_log_new(struct sw_engine *eng)
{
	struct t_log *log = calloc(1, sizeof(*log));

	ck_assert_ptr_nonnull(log);
	log->eng = eng;
	memset(log->out, 0xff, sizeof(log->out));
	return log;
}

/* Record a packet (its PSN becomes its log index) and make its mbuf. */
struct rte_mbuf *
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
void
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
void
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
void
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

void
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
uint16_t
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
void
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
uint16_t
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

uint16_t
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
struct rte_mbuf *
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

static Suite *
engine_suite(void)
{
	Suite *s = suite_create("engine");
	struct t_engine_tcases t;

	t.forwarding = tcase_create("forwarding");
	tcase_set_timeout(t.forwarding, 120);
	t.drops = tcase_create("drops");
	t.arp = tcase_create("arp");
	t.queue = tcase_create("queue");
	tcase_set_timeout(t.queue, 60);
	t.shaping = tcase_create("shaping");
	t.failures = tcase_create("failures");
	tcase_set_timeout(t.failures, 120);
	t.lifecycle = tcase_create("lifecycle");
	t.loader = tcase_create("loader");
	t.vector = tcase_create("vector");
	tcase_set_timeout(t.vector, 120);
	{
		TCase *all[] = { t.forwarding, t.drops, t.arp, t.queue,
				 t.shaping, t.failures, t.lifecycle, t.loader,
				 t.vector };
		unsigned int i;

		for (i = 0; i < RTE_DIM(all); i++) {
			tcase_add_checked_fixture(all[i], NULL, t_teardown);
			suite_add_tcase(s, all[i]);
		}
	}
	tcase_add_loop_test(t.forwarding, test_fwd_policy, 0,
			    RTE_DIM(t_policies));
	tcase_add_test(t.forwarding, test_ofan_exact);
	tcase_add_test(t.forwarding, test_ecmp_flow_sticks);
	tcase_add_test(t.forwarding, test_ecmp_ev_spread);
	tcase_add_test(t.forwarding, test_fwd_chained);
	t_engine_drop_tests(&t);
	t_engine_queue_tests(&t);
	t_engine_control_tests(&t);
	t_engine_vector_tests(&t);
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
