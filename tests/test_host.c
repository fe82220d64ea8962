/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the host engine (host/engine/hs_host.c with its transport, its
 * load-balancing policies and hs_results.c), in-process on EAL with
 * --no-huge and no ports at all, through the switch engine where a fabric
 * is needed.
 *
 * A tiny virtual-time network plays the wires.  Hosts and switches are
 * engine instances; a link joins two ends (a host, or a switch port) and
 * delays every packet by 2 us of propagation: what hs_host_output()
 * returns, or what a switch port's sw_worker_tx_peek() releases
 * (committed as sent), reaches the other end's hs_host_input() or
 * sw_worker_input() 2 us later.  Rates come from the hosts' pacers
 * (10 Gb/s) and the switches' shapers (every switch port drains at
 * 10 Gb/s, so queues form where load exceeds that).  The clock advances
 * in 1 us ticks while anything is queued or on a wire, and jumps to the
 * hosts' next event when the network is idle.  Every component runs in a
 * fixed order with fixed seeds, so a run is reproducible and the counts
 * asserted below are exact properties of the code, not luck.
 *
 * Host configurations are written to a temporary file and loaded with
 * hs_config_load(), as ofan-host does, so the path facts the loader
 * derives (MSS, the policies' base RTT and BDP) are the real ones.
 * Ranks: rank r has 10.0.r.1 (ip_base 10.0.0.1, one rank per /24).
 *
 * Topologies:
 *   b2b   rank 0 <-> rank 1, one link.
 *   leaf  rank 0 <-> L0 port 0; L0 port p <-> L1 port p (p = 1..4, the
 *         uplink group of both); L1 port 0 <-> rank 1.  Each leaf routes
 *         its own rank's /24 to port 0 (destination key = that rank) and
 *         the other /24 over the uplinks (key = the other rank).
 *
 * Every test checks that the pool's in-use count returns to its value
 * before the test once hosts and switches are freed.  EAL starts once per
 * process, so Check must not fork: main() forces CK_NOFORK.  A failing
 * test's network is freed by t_teardown(), so one failure does not
 * cascade.  main() removes /var/run/dpdk/<prefix>, which rte_eal_cleanup()
 * leaves behind.
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

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "hlb.h"
#include "hlb_mp.h"
#include "hs_config.h"
#include "hs_erasure.h"
#include "hs_frames.h"
#include "hs_host.h"
#include "hs_results.h"
#include "hs_summary.h"
#include "hs_traffic.h"
#include "lb.h"
#include "ofan_clock.h"
#include "ofan_parse.h"
#include "ofan_wire.h"
#include "sw_config.h"
#include "sw_engine.h"
#include "sw_queue.h"
#include "eal_suite.h"

#define T_US OFAN_NS_PER_US
#define T_MS OFAN_NS_PER_MS
#define T_STEP_NS T_US			/* tick while anything is queued */
#define T_START_NS (10 * T_US)		/* hosts start here, not at 0 */
#define T_BURST 32
#define T_NB_MBUFS 16383
#define T_MAX_HOSTS 2
#define T_MAX_SWITCHES 2
#define T_NB_UPLINKS 4
#define T_UPLINK0 1			/* first uplink port of a leaf */
#define T_NB_LEAF_PORTS (T_UPLINK0 + T_NB_UPLINKS)
#define T_LINK_RATE 10000000000ull	/* every switch port, and the hosts */
#define T_LINK_DELAY_NS (2 * T_US)	/* propagation, every link */
#define T_WIRE_CAP 256			/* packets in flight per direction */
#define T_SW_SEED 0x5eed0000ull
#define T_FLOW_SIZE (2u << 20)		/* the one flow of the leaf tests */

#define T_IP(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define T_RANK_NET(r) T_IP(10, 0, (r), 0)

/* Created by main() once EAL is up; hosts and tests take mbufs here. */
static struct rte_mempool *t_pool;

static const char *const t_host_policies[] = {
	"fixed", "ops", "reps", "plb", "mp", "flowlet",
};

/* ---- the network ---- */

enum t_end_kind { T_END_NONE = 0, T_END_HOST, T_END_SWITCH };

/* One end of a link: a host (node = its index) or a switch port. */
struct t_end {
	uint8_t kind;
	uint8_t node;
	uint16_t port;
};

/*
 * One direction of a link: packets in flight, each due at the far end
 * T_LINK_DELAY_NS after it was sent.  The delay is constant, so a FIFO.
 */
struct t_wire {
	struct t_end to;
	uint32_t head;
	uint32_t tail;
	struct rte_mbuf *pkt[T_WIRE_CAP];
	uint64_t due[T_WIRE_CAP];
};

struct t_net {
	char cfg_path[64];		/* cfg.path points here */
	struct hs_config cfg;
	struct hs_traffic traffic;
	uint16_t nb_hosts;
	struct hs_host *host[T_MAX_HOSTS];	/* host i is rank i */
	struct t_wire host_wire[T_MAX_HOSTS];	/* from host i */
	uint16_t nb_sw;
	struct sw_config *scfg[T_MAX_SWITCHES];	/* owned */
	struct sw_engine *sw[T_MAX_SWITCHES];
	struct sw_worker *w[T_MAX_SWITCHES];
	struct t_wire sw_wire[T_MAX_SWITCHES][T_NB_LEAF_PORTS];
	unsigned int pool_start;	/* mbufs in use before the network */
	uint64_t now;
	uint64_t wake_ns;		/* a control event to not jump over */
	uint64_t done_ns;		/* every host done (0: not yet) */
	uint64_t nb_ticks;		/* t_step() calls */
	/* Tamper: flip a payload byte of the corrupt_nth data packet
	 * delivered to a host (1-based; 0: never). */
	uint64_t corrupt_nth;
	uint64_t nb_data_to_hosts;
	uint32_t corrupted_flow;
};

/* The network of the running test, freed by t_teardown() if it fails. */
static struct t_net *t_live;

/* Packets on the wire are lost when the network is torn down. */
static void
t_wire_clear(struct t_wire *wire)
{
	while (wire->head != wire->tail)
		rte_pktmbuf_free(wire->pkt[wire->head++ % T_WIRE_CAP]);
}

static void
t_net_free(struct t_net *net)
{
	uint16_t i, p;

	for (i = 0; i < T_MAX_HOSTS; i++)
		t_wire_clear(&net->host_wire[i]);
	for (i = 0; i < T_MAX_SWITCHES; i++)
		for (p = 0; p < T_NB_LEAF_PORTS; p++)
			t_wire_clear(&net->sw_wire[i][p]);
	for (i = 0; i < net->nb_hosts; i++)
		hs_host_free(net->host[i]);
	for (i = 0; i < net->nb_sw; i++) {
		sw_engine_free_queues(net->sw[i]);
		sw_engine_free(net->sw[i]);
		free(net->scfg[i]);
	}
	hs_traffic_free(&net->traffic);
	if (t_live == net)
		t_live = NULL;
	free(net);
}

static void
t_teardown(void)
{
	if (t_live != NULL)
		t_net_free(t_live);
}

/* Free the network and check that every mbuf came back to the pool. */
static void
t_net_done(struct t_net *net)
{
	unsigned int start = net->pool_start;

	t_net_free(net);
	ck_assert_uint_eq(rte_mempool_in_use_count(t_pool), start);
}

/*
 * A network whose hosts run host policy `policy` on traffic `traffic`
 * (the [traffic] section's lines).  The configuration goes through
 * hs_config_load().  base_rtt is the back-to-back round trip (two 2 us
 * wires and a tick); through the leaves it is about 13 us.
 */
static struct t_net *
t_net_new(const char *policy, const char *traffic)
{
	struct t_net *net = calloc(1, sizeof(*net));
	char err[512] = "";
	FILE *f;
	int fd, rc;

	ck_assert_ptr_nonnull(net);
	ck_assert_ptr_null(t_live);
	t_live = net;
	net->pool_start = rte_mempool_in_use_count(t_pool);
	snprintf(net->cfg_path, sizeof(net->cfg_path),
		 "/tmp/ofan_test_host_XXXXXX");
	fd = mkstemp(net->cfg_path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"[host]\n"
		"policy = %s\n"
		"seed = 11\n"
		"rate = 10G\n"
		"mtu = 1500\n"
		"min_rto = 200us\n"
		"reorder_window = 20us\n"
		"base_rtt = 5us\n"
		"stats_interval = 0\n"
		"[ranks]\n"
		"count = 2\n"
		"[traffic]\n"
		"seed = 3\n"
		"%s\n"
		"[port.0]\n"
		"dev = ringpair:t:a\n"
		"rank = 0\n"
		"[port.1]\n"
		"dev = ringpair:t:b\n"
		"rank = 1\n", policy, traffic);
	ck_assert_int_eq(fclose(f), 0);
	rc = hs_config_load(net->cfg_path, &net->cfg, err, sizeof(err));
	unlink(net->cfg_path);
	ck_assert_msg(rc == 0, "hs_config_load: %s", err);
	ck_assert_str_eq(net->cfg.set.policy->name, policy);
	rc = hs_pattern_build(&net->cfg.traffic, &net->traffic, NULL, err,
			      sizeof(err));
	ck_assert_msg(rc == 0, "hs_pattern_build: %s", err);
	return net;
}

/* Create and start both ranks' hosts (at T_START_NS). */
static void
t_net_hosts(struct t_net *net)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	char err[256] = "";
	uint16_t r;

	net->now = T_START_NS;
	for (r = 0; r < T_MAX_HOSTS; r++) {
		struct hs_host_params hp = {
			.set = &net->cfg.set,
			.traffic = &net->traffic,
			.rank = r,
			.mac = { 0x02, 0, 0, 0, 0xaa, (uint8_t)r },
			.pool = t_pool,
		};

		memcpy(hp.dst_mac, bcast, 6);
		net->host[r] = hs_host_create(&hp, err, sizeof(err));
		ck_assert_msg(net->host[r] != NULL, "hs_host_create: %s", err);
		ck_assert_uint_eq(hs_host_rank(net->host[r]), r);
		net->nb_hosts++;
	}
	for (r = 0; r < net->nb_hosts; r++)
		hs_host_start(net->host[r], net->now);
}

static struct t_end
t_host_end(uint16_t rank)
{
	return (struct t_end){ .kind = T_END_HOST, .node = (uint8_t)rank };
}

static struct t_end
t_sw_end(uint16_t sw, uint16_t port)
{
	return (struct t_end){ .kind = T_END_SWITCH, .node = (uint8_t)sw,
			       .port = port };
}

static void
t_set_peer(struct t_net *net, struct t_end a, struct t_end b)
{
	if (a.kind == T_END_HOST) {
		net->host_wire[a.node].to = b;
	} else {
		ck_assert_uint_lt(a.port, T_NB_LEAF_PORTS);
		net->sw_wire[a.node][a.port].to = b;
	}
}

static void
t_link(struct t_net *net, struct t_end a, struct t_end b)
{
	t_set_peer(net, a, b);
	t_set_peer(net, b, a);
}

/* ---- switches ---- */

static void
t_net_cfg_port(struct sw_config *c, uint16_t sw)
{
	uint16_t p = c->nb_ports++;
	struct sw_port_config *pc = &c->ports[p];

	snprintf(pc->dev, sizeof(pc->dev), "net_null%u", p);
	pc->peer_mac[0] = 0x02;
	pc->peer_mac[4] = (uint8_t)(0x10 + sw);
	pc->peer_mac[5] = (uint8_t)p;
	pc->peer_mac_set = true;
	pc->nb_rx_queues = 1;
	pc->nb_rxd = 1024;
	pc->nb_txd = 1024;
	sw_queue_config_defaults(&pc->queue);
	pc->queue.rate_bps = T_LINK_RATE;
}

static void
t_cfg_group(struct sw_config *c, const char *name, uint16_t first,
	    uint16_t n)
{
	struct sw_group_config *g = &c->groups[c->nb_groups++];
	uint16_t i;

	snprintf(g->name, sizeof(g->name), "%s", name);
	g->nb_members = n;
	for (i = 0; i < n; i++) {
		g->port[i] = first + i;
		g->weight[i] = 1;
	}
}

static void
t_cfg_route(struct sw_config *c, uint32_t prefix, uint16_t group,
	    uint32_t key)
{
	struct sw_route_config *r = &c->routes[c->nb_routes++];

	r->prefix = prefix;
	r->depth = 24;
	r->group = group;
	r->dst_key = key;
	if (key + 1 > c->nb_dst_keys)
		c->nb_dst_keys = key + 1;
}

/*
 * Leaf `sw` of the leaf topology: rank `sw` on port 0, the uplink group on
 * ports 1-4, switch policy `policy`, black holes withdrawn after
 * reconverge_ns.
 */
static uint16_t
t_net_leaf(struct t_net *net, const char *policy, uint64_t reconverge_ns)
{
	uint16_t sw = net->nb_sw, p;
	struct sw_config *c = calloc(1, sizeof(*c));
	uint8_t macs[SW_MAX_PORTS][6];
	char err[256] = "";

	ck_assert_uint_lt(sw, T_MAX_SWITCHES);
	ck_assert_ptr_nonnull(c);
	sw_config_defaults(c);
	c->policy = lb_find(policy);
	ck_assert_msg(c->policy != NULL, "switch policy %s", policy);
	c->seed = T_SW_SEED + sw;
	c->reconverge_delay_ns = reconverge_ns;
	for (p = 0; p < T_NB_LEAF_PORTS; p++)
		t_net_cfg_port(c, sw);
	t_cfg_group(c, "host", 0, 1);
	t_cfg_group(c, "up", T_UPLINK0, T_NB_UPLINKS);
	t_cfg_route(c, T_RANK_NET(sw), 0, sw);
	t_cfg_route(c, T_RANK_NET(1 - sw), 1, 1 - sw);
	memset(macs, 0, sizeof(macs));
	for (p = 0; p < SW_MAX_PORTS; p++) {
		macs[p][0] = 0x02;
		macs[p][4] = (uint8_t)(0x20 + sw);
		macs[p][5] = (uint8_t)p;
	}
	net->scfg[sw] = c;
	net->sw[sw] = sw_engine_create(c, 1, (const uint8_t (*)[6])macs,
				       SOCKET_ID_ANY, err, sizeof(err));
	ck_assert_msg(net->sw[sw] != NULL, "sw_engine_create: %s", err);
	net->w[sw] = sw_engine_worker(net->sw[sw], 0);
	net->nb_sw++;
	return sw;
}

/* The leaf topology of the top comment, hosts started. */
static void
t_net_leaves(struct t_net *net, const char *sw_policy, uint64_t reconverge)
{
	uint16_t p;

	t_net_leaf(net, sw_policy, reconverge);
	t_net_leaf(net, sw_policy, reconverge);
	t_net_hosts(net);
	t_link(net, t_host_end(0), t_sw_end(0, 0));
	t_link(net, t_host_end(1), t_sw_end(1, 0));
	for (p = T_UPLINK0; p < T_NB_LEAF_PORTS; p++)
		t_link(net, t_sw_end(0, p), t_sw_end(1, p));
}

/* ---- running it ---- */

/* Flip one payload byte of the corrupt_nth data packet to a host. */
static void
t_tamper(struct t_net *net, struct rte_mbuf **pkts, uint16_t n)
{
	struct ofan_pkt_info pi;
	uint16_t i;

	for (i = 0; i < n; i++) {
		uint8_t *frame = rte_pktmbuf_mtod(pkts[i], uint8_t *);

		if (ofan_parse(frame, rte_pktmbuf_data_len(pkts[i]),
			       OFAN_PARSE_F_NO_TTL_CHECK, &pi) != OFAN_PARSE_OK ||
		    pi.kind != OFAN_KIND_DATA || pi.payload_size == 0)
			continue;
		if (++net->nb_data_to_hosts != net->corrupt_nth)
			continue;
		frame[pi.payload_offset + pi.payload_size / 2] ^= 0x5a;
		net->corrupted_flow = pi.dest_qp;
	}
}

/* Hand a burst to the end `to` at now. */
static void
t_deliver(struct t_net *net, struct t_end to, struct rte_mbuf **pkts,
	  uint16_t n)
{
	if (n == 0)
		return;
	if (to.kind == T_END_HOST) {
		if (net->corrupt_nth != 0)
			t_tamper(net, pkts, n);
		hs_host_input(net->host[to.node], pkts, n, net->now);
	} else {
		sw_worker_input(net->w[to.node], to.port, pkts, n, net->now);
	}
}

/* Put a burst on a wire; every link of a test is connected. */
static void
t_send(struct t_net *net, struct t_wire *wire, struct rte_mbuf **pkts,
       uint16_t n)
{
	uint16_t i;

	ck_assert_msg(wire->to.kind != T_END_NONE, "a packet into no link");
	ck_assert_uint_le(wire->tail - wire->head + n, T_WIRE_CAP);
	for (i = 0; i < n; i++) {
		wire->pkt[wire->tail % T_WIRE_CAP] = pkts[i];
		wire->due[wire->tail % T_WIRE_CAP] = net->now + T_LINK_DELAY_NS;
		wire->tail++;
	}
}

/* Deliver what has reached the far end of a wire by now. */
static void
t_arrive(struct t_net *net, struct t_wire *wire)
{
	struct rte_mbuf *pkts[T_BURST];
	uint16_t n = 0;

	while (wire->head != wire->tail &&
	       wire->due[wire->head % T_WIRE_CAP] <= net->now) {
		pkts[n++] = wire->pkt[wire->head++ % T_WIRE_CAP];
		if (n == T_BURST) {
			t_deliver(net, wire->to, pkts, n);
			n = 0;
		}
	}
	t_deliver(net, wire->to, pkts, n);
}

/*
 * One tick at net->now: control planes, arrivals, then every host's
 * output, then every switch port's due packets, onto their wires.
 */
static void
t_step(struct t_net *net)
{
	struct rte_mbuf *pkts[T_BURST];
	uint16_t i, p, n;

	for (i = 0; i < net->nb_sw; i++)
		sw_engine_control(net->sw[i], net->now);
	for (i = 0; i < net->nb_hosts; i++)
		t_arrive(net, &net->host_wire[i]);
	for (i = 0; i < net->nb_sw; i++)
		for (p = 0; p < net->scfg[i]->nb_ports; p++)
			t_arrive(net, &net->sw_wire[i][p]);
	for (i = 0; i < net->nb_hosts; i++) {
		do {
			n = hs_host_output(net->host[i], net->now, pkts,
					   T_BURST);
			ck_assert_uint_le(n, T_BURST);
			t_send(net, &net->host_wire[i], pkts, n);
		} while (n == T_BURST);
	}
	for (i = 0; i < net->nb_sw; i++) {
		for (p = 0; p < net->scfg[i]->nb_ports; p++) {
			do {
				n = sw_worker_tx_peek(net->w[i], p, net->now,
						      pkts, T_BURST);
				if (n == 0)
					break;
				sw_worker_tx_commit(net->w[i], p, net->now,
						    pkts, n, n);
				t_send(net, &net->sw_wire[i][p], pkts, n);
			} while (n == T_BURST);
		}
	}
	net->nb_ticks++;
}

/* Packets queued in switches or on wires. */
static uint32_t
t_queued(const struct t_net *net)
{
	uint32_t n = 0;
	uint16_t i, p;

	for (i = 0; i < T_MAX_HOSTS; i++)
		n += net->host_wire[i].tail - net->host_wire[i].head;
	for (i = 0; i < net->nb_sw; i++)
		for (p = 0; p < net->scfg[i]->nb_ports; p++)
			n += sw_queue_len(&net->w[i]->queue[p]) +
				net->sw_wire[i][p].tail -
				net->sw_wire[i][p].head;
	return n;
}

/* The next time anything can happen: a tick, or a jump when idle. */
static uint64_t
t_next_time(const struct t_net *net)
{
	uint64_t tick = net->now + T_STEP_NS, t = UINT64_MAX;
	uint16_t i;

	if (t_queued(net) != 0)
		return tick;
	for (i = 0; i < net->nb_hosts; i++)
		t = RTE_MIN(t, hs_host_next_event(net->host[i]));
	if (net->wake_ns > net->now)
		t = RTE_MIN(t, net->wake_ns);
	return t <= tick || t == UINT64_MAX ? tick : t;
}

static bool
t_all_done(const struct t_net *net)
{
	uint16_t i;

	for (i = 0; i < net->nb_hosts; i++)
		if (!hs_host_tx_done(net->host[i]) ||
		    !hs_host_rx_done(net->host[i]))
			return false;
	return true;
}

/*
 * Run until every host is done or until (virtual) `limit` after the start;
 * then let the network settle: nothing queued, no output pending.
 */
static void
t_net_run(struct t_net *net, uint64_t limit)
{
	uint64_t end = T_START_NS + limit;
	unsigned int settle;
	uint16_t i;

	for (;;) {
		t_step(net);
		if (t_all_done(net))
			break;
		ck_assert_msg(net->now < end,
			      "not done after %" PRIu64 " us of virtual time",
			      (uint64_t)(limit / T_US));
		net->now = t_next_time(net);
	}
	net->done_ns = net->now;
	for (settle = 0; settle < 1000; settle++) {
		bool quiet = t_queued(net) == 0;

		for (i = 0; i < net->nb_hosts; i++)
			quiet = quiet &&
				hs_host_next_event(net->host[i]) > net->now;
		if (quiet)
			break;
		t_step(net);
		net->now += T_STEP_NS;
	}
	ck_assert_uint_lt(settle, 1000);
}

/* Payload bytes of the flows to rank r. */
static uint64_t
t_bytes_to(const struct t_net *net, uint32_t r)
{
	uint64_t sum = 0;
	uint32_t f;

	for (f = 0; f < net->traffic.nb_flows; f++)
		if (net->traffic.flows[f].dst == r)
			sum += net->traffic.flows[f].size;
	return sum;
}

/*
 * hs_results()'s summary is hs_flow_summarise()'s on the flows' measured
 * times and ideals, the function ofan-fabric calls too (test_fabric's
 * test_summary_shared checks that side).
 */
static void
t_check_summary_shared(struct t_net *net, const struct hs_summary *sum)
{
	uint32_t n = net->traffic.nb_flows, f;
	struct hs_flow_times *times = calloc(n + 1, sizeof(*times));
	struct hs_flow_summary s;

	ck_assert_ptr_nonnull(times);
	for (f = 0; f < n; f++) {
		const struct hs_flow_spec *spec = &net->traffic.flows[f];
		struct hs_flow_result r;

		memset(&r, 0, sizeof(r));
		ck_assert(hs_host_flow_result(net->host[spec->src], f, &r));
		times[f].start_ns = r.start_ns;
		times[f].done_ns = r.done_ns;
		times[f].ideal_ns = hs_flow_ideal_ns(&net->cfg.set, &net->traffic,
						     f, net->traffic.concurrency,
						     sum->ideal_rtt_ns);
		times[f].ideal_begin_ns = UINT64_MAX;
	}
	ck_assert_int_eq(hs_flow_summarise(times, n, NULL, &s), 0);
	ck_assert_uint_eq(s.nb_completed, sum->nb_completed);
	ck_assert(s.max_slowdown == sum->max_slowdown);
	ck_assert(s.p99_slowdown == sum->p99_slowdown);
	ck_assert(s.mean_fct_ns == sum->mean_fct_ns);
	ck_assert_uint_eq(s.collective_ns, sum->collective_ns);
	free(times);
}

/*
 * Every flow delivered completely, verified and acknowledged, seen from
 * the hosts' counters, from each flow's results and from hs_results()'s
 * summary.  nb_corrupt: payload corruptions the test caused on purpose.
 */
static void
t_check_delivered(struct t_net *net, uint64_t nb_corrupt,
		  struct hs_summary *sum)
{
	uint64_t corrupt = 0, retx = 0;
	uint32_t f;
	uint16_t i;

	for (i = 0; i < net->nb_hosts; i++) {
		const struct hs_host_stats *st = hs_host_stats(net->host[i]);
		uint64_t acked, total;

		ck_assert(hs_host_tx_done(net->host[i]));
		ck_assert(hs_host_rx_done(net->host[i]));
		ck_assert_uint_eq(st->goodput_bytes, t_bytes_to(net, i));
		ck_assert_uint_eq(st->unknown_flow, 0);
		ck_assert_uint_eq(st->alloc_failed, 0);
		hs_host_progress(net->host[i], &acked, &total);
		ck_assert_uint_eq(acked, total);
		corrupt += st->corrupt_pkts;
		retx += st->data_retx;
	}
	ck_assert_uint_eq(corrupt, nb_corrupt);
	for (f = 0; f < net->traffic.nb_flows; f++) {
		const struct hs_flow_spec *spec = &net->traffic.flows[f];
		struct hs_flow_result s, r;

		memset(&s, 0, sizeof(s));
		memset(&r, 0, sizeof(r));
		ck_assert(hs_host_flow_result(net->host[spec->src], f, &s));
		ck_assert(hs_host_flow_result(net->host[spec->dst], f, &r));
		ck_assert(s.sent_here);
		ck_assert(r.received_here);
		ck_assert_msg(s.done_ns > 0 && s.done_ns >= s.start_ns,
			      "flow %u: start %" PRIu64 " done %" PRIu64, f,
			      s.start_ns, s.done_ns);
		ck_assert_uint_gt(r.rx_done_ns, 0);
		/* The last ACK leaves after the last packet arrived. */
		ck_assert_uint_le(r.rx_done_ns, s.done_ns);
		ck_assert_uint_ge(s.data_sent,
				  (spec->size + net->cfg.set.mss - 1) /
				  net->cfg.set.mss);
		ck_assert_uint_ge(s.distinct_evs, 1);
	}
	ck_assert_int_eq(hs_results(net->host, net->nb_hosts, &net->cfg.set,
				    &net->traffic, &(const struct hs_results_run){ 0 },
				    NULL, NULL, sum),
			 0);
	t_check_summary_shared(net, sum);
	ck_assert_uint_eq(sum->nb_flows, net->traffic.nb_flows);
	ck_assert_uint_eq(sum->nb_completed, net->traffic.nb_flows);
	ck_assert_uint_eq(sum->incomplete_rx, 0);
	ck_assert_uint_eq(sum->corrupt_pkts, nb_corrupt);
	ck_assert_uint_eq(sum->data_retx, retx);
	ck_assert(sum->collective_ns > 0);
}

/* ==== 1. back to back, every host policy ==== */

static const char *const t_b2b_traffic[] = {
	"pattern = alltoall\nsize = 256KiB\niterations = 2",
	/* 2 dependent steps of 256 KiB per rank and iteration. */
	"pattern = ring_allreduce\nsize = 512KiB\niterations = 2",
};

/*
 * Two ranks back to back run an all-to-all and a ring all-reduce (two
 * iterations each; the all-reduce's steps wait for each other) under
 * every host policy: every byte arrives verified and acknowledged.  The
 * wire is perfect and in order, so nothing may be retransmitted or
 * duplicated, and what one host sends is exactly what the other gets.
 */
START_TEST(test_b2b)
{
	const char *policy = t_host_policies[_i / RTE_DIM(t_b2b_traffic)];
	const char *traffic = t_b2b_traffic[_i % RTE_DIM(t_b2b_traffic)];
	const struct hs_host_stats *a, *b;
	struct hs_summary sum;
	struct t_net *net;
	uint32_t f;

	net = t_net_new(policy, traffic);
	ck_assert_uint_eq(net->traffic.nb_ranks, 2);
	ck_assert_uint_eq(net->traffic.nb_flows,
			  _i % RTE_DIM(t_b2b_traffic) == 0 ? 4 : 8);
	t_net_hosts(net);
	t_link(net, t_host_end(0), t_host_end(1));
	t_net_run(net, 20 * T_MS);
	t_check_delivered(net, 0, &sum);
	a = hs_host_stats(net->host[0]);
	b = hs_host_stats(net->host[1]);
	ck_assert_uint_eq(a->tx_pkts, b->rx_pkts);
	ck_assert_uint_eq(b->tx_pkts, a->rx_pkts);
	ck_assert_uint_eq(a->data_retx + b->data_retx, 0);
	ck_assert_uint_eq(a->dup_pkts + b->dup_pkts, 0);
	ck_assert_uint_eq(a->timeouts + b->timeouts, 0);
	ck_assert_uint_eq(a->acks_received, b->acks_sent);
	ck_assert_uint_eq(b->acks_received, a->acks_sent);
	/*
	 * The ideal holds the path's own round trip, two 2 us wires and the
	 * ticks between, and no phantom one (base_rtt is 5 us): each flow,
	 * alone on its link, runs at its ideal, never faster.
	 */
	ck_assert_msg(sum.ideal_rtt_ns >= 4000 && sum.ideal_rtt_ns <= 6000,
		      "ideal RTT %" PRIu64 " ns", sum.ideal_rtt_ns);
	for (f = 0; f < net->traffic.nb_flows; f++) {
		const struct hs_flow_spec *spec = &net->traffic.flows[f];
		struct hs_flow_result r;
		double sd;

		memset(&r, 0, sizeof(r));
		hs_host_flow_result(net->host[spec->src], f, &r);
		sd = (double)(r.done_ns - r.start_ns) /
			(double)hs_flow_ideal_ns(&net->cfg.set, &net->traffic, f,
						 net->traffic.concurrency,
						 sum.ideal_rtt_ns);
		ck_assert_msg(sd >= 0.999 && sd < 1.05,
			      "%s: flow %u slowdown %.4f", policy, f, sd);
	}
	/* The pacer runs the collective at its ideal time (within 5%). */
	ck_assert_msg(sum.collective_ns * 20 < sum.collective_ideal_ns * 21,
		      "%s: collective %" PRIu64 " ns, ideal %" PRIu64 " ns",
		      policy, sum.collective_ns, sum.collective_ideal_ns);
	/* The EVs each policy used, per flow. */
	for (f = 0; f < net->traffic.nb_flows; f++) {
		const struct hs_flow_spec *spec = &net->traffic.flows[f];
		struct hs_flow_result r;

		memset(&r, 0, sizeof(r));
		hs_host_flow_result(net->host[spec->src], f, &r);
		if (strcmp(policy, "fixed") == 0 ||
		    strcmp(policy, "plb") == 0 ||
		    strcmp(policy, "flowlet") == 0)
			/* No congestion, no ACK gap, no timeout: no move. */
			ck_assert_msg(r.distinct_evs == 1,
				      "%s: flow %u used %" PRIu64 " EVs",
				      policy, f, r.distinct_evs);
		else if (strcmp(policy, "mp") == 0)
			ck_assert_uint_eq(r.distinct_evs,
					  ((const struct hlb_mp_settings *)
					   hlb_settings_of(&net->cfg.set.hlb_set,
							   hlb_find("mp")))->subflows);
		else if (strcmp(policy, "ops") == 0)
			ck_assert_uint_gt(r.distinct_evs, r.data_sent * 9 / 10);
		else	/* reps: every ACK vouches for its EV, reused */
			ck_assert_msg(r.distinct_evs < r.data_sent / 4,
				      "reps: flow %u used %" PRIu64 " EVs for %"
				      PRIu64 " packets", f, r.distinct_evs,
				      r.data_sent);
	}
	t_net_done(net);
}
END_TEST

/* A payload byte changed on the wire is caught, and the packet resent. */
START_TEST(test_b2b_corrupt)
{
	struct hs_summary sum;
	struct hs_flow_result r;
	struct t_net *net;
	uint32_t f;

	net = t_net_new("ops", t_b2b_traffic[0]);
	t_net_hosts(net);
	t_link(net, t_host_end(0), t_host_end(1));
	net->corrupt_nth = 100;
	t_net_run(net, 20 * T_MS);
	ck_assert_uint_gt(net->nb_data_to_hosts, 100);
	t_check_delivered(net, 1, &sum);
	/* Not acknowledged, so retransmitted: the bytes still all arrive. */
	ck_assert_uint_ge(sum.data_retx, 1);
	f = net->corrupted_flow - 2;	/* QP = flow + 2 (hs_host.c) */
	ck_assert_uint_lt(f, net->traffic.nb_flows);
	memset(&r, 0, sizeof(r));
	hs_host_flow_result(net->host[net->traffic.flows[f].dst], f, &r);
	ck_assert_uint_eq(r.corrupt_pkts, 1);
	t_net_done(net);
}
END_TEST

/* ==== 2. one flow through two leaves and four parallel links ==== */

static struct sw_totals t_tot[T_MAX_SWITCHES];

/*
 * One flow of T_FLOW_SIZE bytes, rank 0 -> rank 1, from a .cm file;
 * extra: more config lines after [traffic]'s ("" for none).
 */
static struct t_net *
t_net_one_flow_cfg(const char *host_policy, const char *extra)
{
	char cm[] = "/tmp/ofan_test_host_cm_XXXXXX";
	char traffic[256];
	struct t_net *net;
	FILE *f;
	int fd;

	fd = mkstemp(cm);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "Nodes 2\nConnections 1\n0->1 start 0 size %u\n",
		T_FLOW_SIZE);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(traffic, sizeof(traffic), "pattern = cm\ncm_file = %s\n%s",
		 cm, extra);
	net = t_net_new(host_policy, traffic);
	unlink(cm);
	ck_assert_uint_eq(net->traffic.nb_flows, 1);
	ck_assert_uint_eq(net->traffic.flows[0].src, 0);
	ck_assert_uint_eq(net->traffic.flows[0].dst, 1);
	return net;
}

static struct t_net *
t_net_one_flow(const char *host_policy)
{
	return t_net_one_flow_cfg(host_policy, "");
}

/* Packets leaf sw's policy sent out of each uplink (picks). */
static void
t_uplink_picks(struct t_net *net, uint16_t sw, uint64_t *picks,
	       uint64_t *sum, uint64_t *min, uint64_t *max)
{
	uint16_t p;

	sw_engine_totals(net->sw[sw], &t_tot[sw]);
	*sum = 0;
	*min = UINT64_MAX;
	*max = 0;
	for (p = 0; p < T_NB_UPLINKS; p++) {
		picks[p] = t_tot[sw].picks[T_UPLINK0 + p];
		*sum += picks[p];
		*min = RTE_MIN(*min, picks[p]);
		*max = RTE_MAX(*max, picks[p]);
	}
}

/*
 * The flow through the leaves under switch policy sw_policy and host
 * policy host_policy, lossless: returns the network, run and checked,
 * for the caller to look at the spread.
 */
static struct t_net *
t_leaf_run(const char *sw_policy, const char *host_policy)
{
	struct hs_summary sum;
	struct t_net *net = t_net_one_flow(host_policy);
	uint16_t s;

	t_net_leaves(net, sw_policy, 100 * T_US);
	t_net_run(net, 50 * T_MS);
	t_check_delivered(net, 0, &sum);
	ck_assert_uint_eq(sum.data_retx, 0);
	printf("%s+%s: FCT %.0f us, slowdown %.3f\n", sw_policy, host_policy,
	       sum.mean_fct_ns / 1e3, sum.max_slowdown);
	/* Four 10G uplinks for one 10G host: no queue, the ideal time. */
	ck_assert_msg(sum.max_slowdown < 1.05, "slowdown %.3f",
		      sum.max_slowdown);
	for (s = 0; s < net->nb_sw; s++) {
		sw_engine_totals(net->sw[s], &t_tot[s]);
		ck_assert_uint_eq(t_tot[s].drops[OFAN_DROP_QUEUE_FULL], 0);
		ck_assert_uint_eq(t_tot[s].drops[OFAN_DROP_NO_ROUTE], 0);
	}
	return net;
}

/*
 * RCCC's first credit spent to the last byte and a packet beyond (a
 * debt: credit may fall below 0 by less than a packet): the receiver
 * grants that packet back, so the flow ends in its ideal time (through
 * the leaves' four uplinks, no queue) rather than an RTO late, its last
 * packet waiting for credit its receiver thought it had.  first_bdp =
 * 0.5 of the 13 us path: the first credit ends long before the first
 * PULL comes.
 */
START_TEST(test_rccc_first_credit_debt)
{
	struct hs_summary sum;
	struct t_net *net;

	net = t_net_one_flow_cfg("mixed", "[cc.rccc]\nfirst_bdp = 0.5");
	net->cfg.set.cc = hs_cc_find("rccc");
	net->cfg.set.base_rtt_ns = 13 * T_US;
	t_net_leaves(net, "ecmp", 100 * T_US);
	t_net_run(net, 50 * T_MS);
	t_check_delivered(net, 0, &sum);
	ck_assert_uint_eq(sum.data_retx, 0);
	ck_assert_uint_eq(hs_host_stats(net->host[0])->timeouts, 0);
	ck_assert_msg(sum.max_slowdown < 1.05, "slowdown %.3f",
		      sum.max_slowdown);
	t_net_done(net);
}
END_TEST

/* Data picks at L0 and ACK picks at L1 against what the hosts sent. */
static void
t_leaf_counts(struct t_net *net, uint64_t *up0, uint64_t *up1,
	      uint64_t sums[2], uint64_t mins[2], uint64_t maxs[2])
{
	const struct hs_host_stats *a = hs_host_stats(net->host[0]);
	const struct hs_host_stats *b = hs_host_stats(net->host[1]);

	t_uplink_picks(net, 0, up0, &sums[0], &mins[0], &maxs[0]);
	t_uplink_picks(net, 1, up1, &sums[1], &mins[1], &maxs[1]);
	/* Rank 0 only sends data, rank 1 only ACKs; ARP is not forwarded. */
	ck_assert_uint_eq(sums[0], a->data_sent);
	ck_assert_uint_eq(sums[1], b->acks_sent);
	ck_assert_uint_eq(a->acks_sent, 0);
	ck_assert_uint_eq(b->data_sent, 0);
	ck_assert_uint_ge(a->data_sent, T_FLOW_SIZE / net->cfg.set.mss);
}

/* ECMP, host sprays (ops): one flow's packets use all four uplinks. */
START_TEST(test_leaf_ecmp_ops)
{
	uint64_t up0[T_NB_UPLINKS], up1[T_NB_UPLINKS], sums[2], mins[2];
	uint64_t maxs[2], mean;
	struct t_net *net = t_leaf_run("ecmp", "ops");
	int s;

	t_leaf_counts(net, up0, up1, sums, mins, maxs);
	printf("ecmp+ops: L0 data per uplink %" PRIu64 " %" PRIu64 " %"
	       PRIu64 " %" PRIu64 ", L1 ACKs %" PRIu64 " %" PRIu64 " %"
	       PRIu64 " %" PRIu64 "\n", up0[0], up0[1], up0[2], up0[3],
	       up1[0], up1[1], up1[2], up1[3]);
	for (s = 0; s < 2; s++) {
		mean = sums[s] / T_NB_UPLINKS;
		ck_assert_msg(mins[s] * 4 >= mean * 3 && maxs[s] * 4 <= mean * 5,
			      "leaf %d: uplink counts %" PRIu64 "..%" PRIu64
			      ", mean %" PRIu64, s, mins[s], maxs[s], mean);
	}
	t_net_done(net);
}
END_TEST

/* ECMP, one EV per flow (fixed): the flow stays on one uplink. */
START_TEST(test_leaf_ecmp_fixed)
{
	uint64_t up0[T_NB_UPLINKS], up1[T_NB_UPLINKS], sums[2], mins[2];
	uint64_t maxs[2];
	struct t_net *net = t_leaf_run("ecmp", "fixed");
	int s;

	t_leaf_counts(net, up0, up1, sums, mins, maxs);
	printf("ecmp+fixed: L0 data per uplink %" PRIu64 " %" PRIu64 " %"
	       PRIu64 " %" PRIu64 "\n", up0[0], up0[1], up0[2], up0[3]);
	for (s = 0; s < 2; s++) {
		ck_assert_uint_eq(maxs[s], sums[s]);
		ck_assert_uint_eq(mins[s], 0);
	}
	t_net_done(net);
}
END_TEST

/* Ofan, one EV per flow: the switch rotates, counts differ by <= 1. */
START_TEST(test_leaf_ofan_fixed)
{
	uint64_t up0[T_NB_UPLINKS], up1[T_NB_UPLINKS], sums[2], mins[2];
	uint64_t maxs[2];
	struct t_net *net = t_leaf_run("ofan", "fixed");
	struct hs_flow_result r;
	int s;

	t_leaf_counts(net, up0, up1, sums, mins, maxs);
	printf("ofan+fixed: L0 data per uplink %" PRIu64 " %" PRIu64 " %"
	       PRIu64 " %" PRIu64 ", L1 ACKs %" PRIu64 " %" PRIu64 " %"
	       PRIu64 " %" PRIu64 "\n", up0[0], up0[1], up0[2], up0[3],
	       up1[0], up1[1], up1[2], up1[3]);
	/* One destination key and one kind per leaf: data at L0, ACKs at L1. */
	for (s = 0; s < 2; s++)
		ck_assert_uint_le(maxs[s] - mins[s], 1);
	memset(&r, 0, sizeof(r));
	hs_host_flow_result(net->host[0], 0, &r);
	ck_assert_uint_eq(r.distinct_evs, 1);
	t_net_done(net);
}
END_TEST

/* ==== 3. a black-holed uplink ==== */

struct t_loss {
	uint64_t blackholed;	/* packets the black hole ate, both leaves */
	uint64_t retx;
	uint64_t timeouts;
	uint64_t done_ns;	/* since the start */
	uint64_t data_sent;
	uint64_t freezes;	/* reps */
};

static void
t_policy_value(void *arg, const char *key, uint64_t value)
{
	struct t_loss *l = arg;

	if (strcmp(key, "freezes") == 0)
		l->freezes += value;
}

/*
 * The flow under ECMP while the link L0 port 1 <-> L1 port 1 black-holes
 * every packet (both ends) from the start until the switches withdraw it
 * after `reconverge`.
 */
static void
t_blackhole_run(const char *host_policy, uint64_t reconverge,
		struct t_loss *l)
{
	struct t_net *net = t_net_one_flow(host_policy);
	struct hs_summary sum;
	uint16_t s;

	memset(l, 0, sizeof(*l));
	t_net_leaves(net, "ecmp", reconverge);
	for (s = 0; s < net->nb_sw; s++)
		ck_assert_int_eq(sw_engine_set_link(net->sw[s], T_UPLINK0,
						    SW_LINK_BLACKHOLE, 0,
						    net->now), 0);
	net->wake_ns = net->now + reconverge;
	t_net_run(net, 100 * T_MS);
	t_check_delivered(net, 0, &sum);
	for (s = 0; s < net->nb_sw; s++) {
		sw_engine_totals(net->sw[s], &t_tot[s]);
		l->blackholed += t_tot[s].drops[OFAN_DROP_BLACKHOLE];
		ck_assert_uint_eq(t_tot[s].drops[OFAN_DROP_QUEUE_FULL], 0);
	}
	l->retx = sum.data_retx;
	l->timeouts = sum.timeouts;
	l->done_ns = net->done_ns - T_START_NS;
	l->data_sent = hs_host_stats(net->host[0])->data_sent;
	hs_host_policy_dump(net->host[0], t_policy_value, l);
	ck_assert_uint_eq(l->data_sent,
			  (T_FLOW_SIZE + net->cfg.set.mss - 1) / net->cfg.set.mss +
			  l->retx);
	printf("blackhole %s (reconverge %" PRIu64 " us): %" PRIu64
	       " packets lost, %" PRIu64 " data sent, %" PRIu64
	       " retransmissions, %" PRIu64 " timeouts, %" PRIu64
	       " freezes, done after %" PRIu64 " us\n", host_policy,
	       (uint64_t)(reconverge / T_US), l->blackholed, l->data_sent, l->retx,
	       l->timeouts, l->freezes, (uint64_t)(l->done_ns / T_US));
	t_net_done(net);
}

/*
 * Spraying hosts (ops, reps) lose packets to the black hole and recover
 * every byte by retransmission, all before routing reconverges; REPS
 * stops sending on EVs whose packets vanish, so it loses far fewer.
 */
START_TEST(test_leaf_blackhole)
{
	const uint64_t reconverge = 50 * T_MS;
	struct t_loss ops, reps;

	t_blackhole_run("ops", reconverge, &ops);
	t_blackhole_run("reps", reconverge, &reps);
	ck_assert_uint_gt(ops.blackholed, 0);
	ck_assert_uint_gt(reps.blackholed, 0);
	ck_assert_uint_gt(ops.retx, 0);
	ck_assert_uint_gt(reps.retx, 0);
	/* Both recover on their own, long before the withdrawal. */
	ck_assert_uint_lt(ops.done_ns, reconverge);
	ck_assert_uint_lt(reps.done_ns, reconverge);
	ck_assert_uint_lt(reps.done_ns, ops.done_ns);
	/* ops sends a quarter of its data into the hole, reps far less. */
	ck_assert_uint_gt(ops.blackholed, ops.data_sent / 8);
	ck_assert_msg(reps.blackholed * 2 < ops.blackholed,
		      "reps lost %" PRIu64 ", ops %" PRIu64, reps.blackholed,
		      ops.blackholed);
}
END_TEST

/* ==== 4. mbufs ==== */

/*
 * Stopped in the middle of a run -- packets queued in the switches, an ARP
 * reply waiting in a host -- freeing the hosts and switches returns every
 * mbuf to the pool.
 */
START_TEST(test_free_midway)
{
	uint8_t frame[64], sha[6] = { 0x02, 0, 0, 0, 0xbb, 1 };
	struct t_net *net = t_net_one_flow("ops");
	struct rte_mbuf *m;
	uint16_t p;
	int len;

	t_net_leaves(net, "ecmp", 100 * T_US);
	/* Slow uplinks: queues build at L0. */
	for (p = T_UPLINK0; p < T_NB_LEAF_PORTS; p++)
		ck_assert_int_eq(sw_engine_set_link(net->sw[0], p,
						    SW_LINK_DEGRADED,
						    T_LINK_RATE / 8,
						    net->now), 0);
	while (net->now < T_START_NS + 200 * T_US) {
		t_step(net);
		net->now = t_next_time(net);
	}
	ck_assert_uint_gt(t_queued(net), 10);
	ck_assert(!t_all_done(net));
	/* An ARP request for rank 1: the host keeps the reply until output. */
	len = ofan_build_arp(frame, sizeof(frame), OFAN_ARP_OP_REQUEST, sha,
			     T_IP(10, 0, 1, 99), NULL, hs_rank_ip(&net->cfg.set, 1));
	ck_assert_int_gt(len, 0);
	m = rte_pktmbuf_alloc(t_pool);
	ck_assert_ptr_nonnull(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
	hs_host_input(net->host[1], &m, 1, net->now);
	ck_assert_uint_eq(hs_host_stats(net->host[1])->arp_replies, 1);
	ck_assert(rte_mempool_in_use_count(t_pool) > net->pool_start + 10);
	t_net_done(net);
}
END_TEST

/*
 * Erasure recovery, one host pacer, two flows of rank 0 and no ACK ever:
 * the short flow has sent enough and waits one smoothed RTT while the
 * long one sends.  The wait ends between two pacer slots; the host wakes
 * there once and then sleeps until the next slot, at which the short
 * flow resends.  It used to ask to be woken again at every ns until that
 * slot (the timer still due after its check; found by fuzz_host): more
 * than a thousand wake-ups per wait here, and a hang where no slot came.
 */
START_TEST(test_erasure_wait_no_spin)
{
	char cm[] = "/tmp/ofan_test_host_cm_XXXXXX";
	char traffic[128];
	struct rte_mbuf *pkts[T_BURST];
	struct hs_flow_result r;
	struct t_net *net;
	struct hs_host *h;
	uint64_t now, next, wakeups = 0, idle = 0;
	uint16_t n;
	FILE *f;
	int fd;

	fd = mkstemp(cm);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "Nodes 2\nConnections 2\n0->1 start 0 size 3000\n"
		"0->1 start 0 size 200000\n");
	ck_assert_int_eq(fclose(f), 0);
	snprintf(traffic, sizeof(traffic), "pattern = cm\ncm_file = %s", cm);
	net = t_net_new("fixed", traffic);
	unlink(cm);
	net->cfg.set.recovery = hs_recovery_find("erasure");
	t_net_hosts(net);
	h = net->host[0];
	now = net->now;
	/* Until the long flow has sent 40 packets (the short one 6 + 2). */
	while (hs_host_stats(h)->data_sent < 48) {
		n = hs_host_output(h, now, pkts, T_BURST);
		rte_pktmbuf_free_bulk(pkts, n);
		wakeups++;
		next = hs_host_next_event(h);
		ck_assert_uint_gt(next, now);
		if (n == 0 && next == now + 1)
			idle++;
		now = next;
	}
	memset(&r, 0, sizeof(r));
	ck_assert(hs_host_flow_result(h, 0, &r));
	/* The short flow's 3 + k = 6 packets, then resends after the wait. */
	ck_assert_uint_gt(r.data_sent, 6);
	ck_assert_msg(idle == 0 && wakeups < 60,
		      "%" PRIu64 " wake-ups for 48 packets, %" PRIu64
		      " of them a ns apart with nothing sent", wakeups, idle);
	t_net_done(net);
}
END_TEST

/*
 * Erasure recovery: rank 0 has sent the 4 packets its flow needs and
 * waits; an ACK (count 1, echoing PSN 3) shows 3 losses.  The sender
 * makes them up at its next three slots, and its old wait ends between
 * the second and the third.  After every output the host's next event
 * lies ahead: the last make-up packet made the sender "sent enough"
 * again, and the host used to take the end of that wait, long past, as
 * its next timer (found by fuzz_host).
 */
START_TEST(test_erasure_makeup_next_event)
{
	struct rte_mbuf *pkts[T_BURST], *m;
	struct ofan_pkt_spec sp;
	struct ofan_ack_ext ext;
	struct t_net *net;
	struct hs_host *h;
	uint8_t frame[128];
	uint64_t now, sent;
	uint16_t n;
	int len;

	/* 4 full packets of 1460 bytes; no extra packets. */
	net = t_net_new("fixed", "pattern = permutation\nsize = 5840");
	net->cfg.set.recovery = hs_recovery_find("erasure");
	((struct hs_erasure_settings *)hs_recovery_settings_of(
		&net->cfg.set.recovery_set, net->cfg.set.recovery))->k = 0;
	t_net_hosts(net);
	h = net->host[0];
	now = net->now;
	/* Send until the sender stops: 4 packets, then a slot finds none. */
	do {
		sent = hs_host_stats(h)->data_sent;
		n = hs_host_output(h, now, pkts, T_BURST);
		rte_pktmbuf_free_bulk(pkts, n);
		now = hs_host_next_event(h);
	} while (hs_host_stats(h)->data_sent > sent ||
		 hs_host_stats(h)->data_sent == 0);
	ck_assert_uint_eq(hs_host_stats(h)->data_sent, 4);
	/* Before its wait ends (base RTT 5 us): the ACK. */
	now = net->now + 5 * T_US;
	memset(&sp, 0, sizeof(sp));
	sp.src_ip = hs_rank_ip(&net->cfg.set, 1);
	sp.dst_ip = hs_rank_ip(&net->cfg.set, 0);
	sp.dest_qp = 0 + HS_QP_OFFSET;
	sp.psn = 3;
	sp.ev = 49152;
	memset(&ext, 0, sizeof(ext));
	ext.echo_ev = 49152;
	ext.flags = OFAN_ACK_F_COUNT;
	ext.echo_psn = 3;
	ext.cum_psn = 1;
	len = ofan_build_ack(frame, sizeof(frame), &sp, &ext);
	ck_assert_int_gt(len, 0);
	m = rte_pktmbuf_alloc(t_pool);
	ck_assert_ptr_nonnull(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
	hs_host_input(h, &m, 1, now);
	ck_assert_uint_eq(hs_host_stats(h)->acks_received, 1);
	while (hs_host_stats(h)->data_sent < 7) {
		n = hs_host_output(h, now, pkts, T_BURST);
		rte_pktmbuf_free_bulk(pkts, n);
		ck_assert_msg(hs_host_next_event(h) > now,
			      "%" PRIu64 " packets sent: next event %" PRIu64
			      " at %" PRIu64, hs_host_stats(h)->data_sent,
			      hs_host_next_event(h), now);
		now = hs_host_next_event(h);
	}
	t_net_done(net);
}
END_TEST

/*
 * Sends of rank 0's flow until it has sent upto data packets in all,
 * each one's PSN and EV in psn[] and ev[] from *n on.
 */
static void
t_sends(struct hs_host *h, uint64_t *now, uint64_t upto, uint32_t *psn,
	uint16_t *ev, unsigned int *n)
{
	struct rte_mbuf *pkts[T_BURST];
	struct ofan_pkt_info pi;
	uint16_t k, i;

	while (hs_host_stats(h)->data_sent < upto) {
		k = hs_host_output(h, *now, pkts, 1);
		for (i = 0; i < k; i++) {
			ck_assert_int_eq(ofan_parse(rte_pktmbuf_mtod(pkts[i],
				const uint8_t *), rte_pktmbuf_data_len(pkts[i]),
				0, &pi), OFAN_PARSE_OK);
			if (pi.kind == OFAN_KIND_DATA) {
				psn[*n] = pi.psn;
				ev[*n] = pi.src_port;
				(*n)++;
			}
		}
		rte_pktmbuf_free_bulk(pkts, k);
		*now = hs_host_next_event(h);
	}
}

/*
 * [host] resend_path: rank 0 (ops, trim) has sent PSNs 0..3 when PSN 1 is
 * NACKed.  With next, the resend of 1 goes on the EV that PSN 4, the next
 * new packet, then takes, and PSN 5 on a fresh one (htsim's constant_cca);
 * with own, the resend has its own EV.
 */
START_TEST(test_resend_path)
{
	unsigned int mode;

	for (mode = HS_RESEND_OWN; mode <= HS_RESEND_NEXT; mode++) {
		struct ofan_pkt_spec sp;
		struct ofan_ack_ext ext;
		uint32_t psn[8];
		uint16_t ev[8];
		unsigned int n = 0;
		uint8_t frame[128];
		struct rte_mbuf *m;
		struct t_net *net;
		struct hs_host *h;
		uint64_t now;
		int len;

		net = t_net_new("ops", "pattern = permutation\nsize = 14600");
		net->cfg.set.recovery = hs_recovery_find("trim");
		net->cfg.set.resend_path = (enum hs_resend_path)mode;
		t_net_hosts(net);
		h = net->host[0];
		now = net->now;
		t_sends(h, &now, 4, psn, ev, &n);
		/* The receiver got 0 and PSN 1's trimmed header: a NAK. */
		memset(&sp, 0, sizeof(sp));
		memset(&ext, 0, sizeof(ext));
		sp.src_ip = hs_rank_ip(&net->cfg.set, 1);
		sp.dst_ip = hs_rank_ip(&net->cfg.set, 0);
		sp.dest_qp = 0 + HS_QP_OFFSET;
		sp.psn = 1;
		sp.ev = ev[1];
		ext.echo_ev = ev[1];
		ext.echo_psn = 1;
		ext.cum_psn = 1;
		len = ofan_build_ack(frame, sizeof(frame), &sp, &ext);
		ck_assert_int_gt(len, 0);
		frame[OFAN_DATA_HDRS_SIZE] = OFAN_AETH_SYN_NAK_SEQ;
		m = rte_pktmbuf_alloc(t_pool);
		ck_assert_ptr_nonnull(m);
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
		hs_host_input(h, &m, 1, now);
		ck_assert_uint_eq(hs_host_stats(h)->nacks_received, 1);
		t_sends(h, &now, 7, psn, ev, &n);
		ck_assert_uint_eq(n, 7);
		ck_assert_uint_eq(psn[4], 1);
		ck_assert_uint_eq(psn[5], 4);
		ck_assert_uint_eq(psn[6], 5);
		if (mode == HS_RESEND_NEXT)
			ck_assert_uint_eq(ev[4], ev[5]);
		else
			ck_assert_uint_ne(ev[4], ev[5]);
		ck_assert_uint_ne(ev[5], ev[6]);
		t_net_done(net);
	}
}
END_TEST

/*
 * A frame of flow 0 (rank 0 -> 1) into host h at now: data or an ACK,
 * with bth_bits OR'ed into the BTH's byte bth_byte.
 */
static void
t_inject_bth(struct t_net *net, struct hs_host *h, bool ack, uint32_t psn,
	     uint32_t cum, uint16_t payload, unsigned int bth_byte,
	     uint8_t bth_bits, uint64_t now)
{
	struct ofan_pkt_spec sp;
	struct ofan_ack_ext ext;
	uint8_t frame[2048];
	struct rte_mbuf *m;
	int len;

	memset(&sp, 0, sizeof(sp));
	memset(&ext, 0, sizeof(ext));
	sp.src_ip = hs_rank_ip(&net->cfg.set, ack ? 1 : 0);
	sp.dst_ip = hs_rank_ip(&net->cfg.set, ack ? 0 : 1);
	sp.dest_qp = 0 + HS_QP_OFFSET;
	sp.psn = psn;
	sp.ev = 49152;
	sp.payload_size = payload;
	ext.echo_ev = 49152;
	ext.echo_psn = psn;
	ext.cum_psn = cum;
	ext.flags = net->cfg.set.recovery->counts ?
		OFAN_ACK_F_COUNT : 0;
	len = ack ? ofan_build_ack(frame, sizeof(frame), &sp, &ext) :
		ofan_build_data(frame, sizeof(frame), &sp);
	ck_assert_int_gt(len, 0);
	/* Bits the caller wants in the BTH (a mark, the ack request). */
	frame[OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE +
	      bth_byte] |= bth_bits;
	m = rte_pktmbuf_alloc(t_pool);
	ck_assert_ptr_nonnull(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
	hs_host_input(h, &m, 1, now);
}

/* A frame of flow 0 (rank 0 -> 1) into host h at now: data or an ACK. */
static void
t_inject(struct t_net *net, struct hs_host *h, bool ack, uint32_t psn,
	 uint32_t cum, uint16_t payload, uint64_t now)
{
	t_inject_bth(net, h, ack, psn, cum, payload, 0, 0, now);
}

/*
 * Flow 0's ACKs and NACKs host h sends now: NACKs with flag, PULLs (if
 * pulls is not NULL), and all.
 */
static unsigned int
t_acks_out(struct t_net *net, struct hs_host *h, uint32_t nack_psn,
	   uint8_t flag, bool flagged, unsigned int *nacks,
	   unsigned int *pulls)
{
	struct rte_mbuf *pkts[T_BURST];
	struct ofan_pkt_info pi;
	unsigned int acks = 0;
	uint16_t n, i;

	*nacks = 0;
	if (pulls != NULL)
		*pulls = 0;
	n = hs_host_output(h, net->now, pkts, T_BURST);
	for (i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		const struct ofan_ack_ext *ext;

		ck_assert_int_eq(ofan_parse(f, rte_pktmbuf_data_len(pkts[i]),
					    0, &pi), OFAN_PARSE_OK);
		if (pi.kind != OFAN_KIND_ACK)
			continue;
		acks++;
		ext = (const struct ofan_ack_ext *)(f + pi.payload_offset +
						    OFAN_AETH_SIZE);
		if (pulls != NULL && (ext->flags & OFAN_ACK_F_PULL))
			(*pulls)++;
		if ((f[pi.payload_offset] & OFAN_AETH_SYN_NAK_MASK) !=
		    OFAN_AETH_SYN_NAK_MASK)
			continue;
		ck_assert_uint_eq(rte_be_to_cpu_32(ext->echo_psn), nack_psn);
		ck_assert_uint_eq(ext->flags & flag, flagged ? flag : 0);
		(*nacks)++;
	}
	rte_pktmbuf_free_bulk(pkts, n);
	return acks;
}

/*
 * A trimmed header that says it was cut on its last hop
 * (OFAN_BTH_MARK_LAST_HOP) gets a NACK that says so too
 * (OFAN_ACK_F_LAST_HOP); one cut elsewhere, a plain NACK.
 */
START_TEST(test_nack_last_hop)
{
	int last;

	for (last = 0; last < 2; last++) {
		struct t_net *net;
		unsigned int nacks;

		net = t_net_new("mixed", "pattern = permutation\nsize = 14600");
		t_net_hosts(net);
		t_inject_bth(net, net->host[1], false, 1, 0, 0,
			     OFAN_BTH_MARK_OFFSET, OFAN_BTH_MARK_TRIMMED |
			     (last ? OFAN_BTH_MARK_LAST_HOP : 0), net->now);
		ck_assert_uint_eq(hs_host_stats(net->host[1])->trimmed_rx, 1);
		t_acks_out(net, net->host[1], 1, OFAN_ACK_F_LAST_HOP, last,
			   &nacks, NULL);
		ck_assert_uint_eq(nacks, 1);
		t_net_done(net);
	}
}
END_TEST

/*
 * A receiver-driven flow that completes while it waits in its receiver's
 * queue of flows that want credit gets no more: its packets all came in
 * beyond what was granted (self-granted, as after a timeout), and the
 * pacer granted what they cost back to a sender that is done, in a
 * 1023-to-1 incast 3.2 MB of credit that kept the rest waiting.
 */
START_TEST(test_pull_none_when_complete)
{
	int done;

	for (done = 0; done < 2; done++) {
		unsigned int nacks, pulls;
		struct t_net *net;
		uint32_t psn;

		net = t_net_new("mixed", "pattern = permutation\nsize = 14600");
		net->cfg.set.cc = hs_cc_find("rccc");
		t_net_hosts(net);
		for (psn = 0; psn < (done ? 10u : 9u); psn++)
			t_inject(net, net->host[1], false, psn, 0, 1460,
				 net->now);
		t_acks_out(net, net->host[1], 0, 0, false, &nacks, &pulls);
		ck_assert_uint_eq(nacks, 0);
		/* 9 of 10 in: it still wants its last one's credit. */
		ck_assert_uint_eq(pulls, done ? 0 : 1);
		t_net_done(net);
	}
}
END_TEST

/*
 * The BTH's ack request: a data packet that carries it is ACKed at once,
 * one that does not waits for ack_every (8) packets.  And a sender whose
 * controller asks (nscc: ack_request) sets it on the packet that fills
 * its window, not before.
 */
START_TEST(test_ack_request)
{
	int ar;

	for (ar = 0; ar < 2; ar++) {
		struct t_net *net;
		unsigned int nacks;

		net = t_net_new("mixed", "pattern = permutation\nsize = 14600");
		net->cfg.set.ack_every = 8;
		t_net_hosts(net);
		t_inject_bth(net, net->host[1], false, 0, 0, 1460,
			     OFAN_BTH_ACK_REQ_OFFSET, ar ? OFAN_BTH_ACK_REQ : 0,
			     net->now);
		ck_assert_uint_eq(t_acks_out(net, net->host[1], 0, 0, false,
					     &nacks, NULL), ar ? 1 : 0);
		ck_assert_uint_eq(nacks, 0);
		t_net_done(net);
	}
	/*
	 * An NSCC sender of a 4-packet window: only the 4th of 10 asks; of
	 * 3 packets, only the last does (uet-htsim asks when its backlog is
	 * empty).
	 */
	for (ar = 0; ar < 2; ar++) {
		struct rte_mbuf *pkts[T_BURST];
		struct ofan_pkt_info pi;
		struct t_net *net;
		unsigned int asked = 0, data = 0;
		uint64_t now;
		uint16_t n, i;

		net = t_net_new("mixed", ar == 0 ?
				"pattern = permutation\nsize = 14600\n"
				"[cc.nscc]\nwindow = 4" :
				"pattern = permutation\nsize = 4380\n"
				"[cc.nscc]\nwindow = 4");
		net->cfg.set.cc = hs_cc_find("nscc");
		t_net_hosts(net);
		now = net->now;
		/* Paced: a packet a call, until the window holds it back. */
		while (now != UINT64_MAX && now < net->now + 100000) {
			n = hs_host_output(net->host[0], now, pkts, T_BURST);
			for (i = 0; i < n; i++) {
				const uint8_t *f = rte_pktmbuf_mtod(pkts[i],
							const uint8_t *);

				ck_assert_int_eq(ofan_parse(f,
					rte_pktmbuf_data_len(pkts[i]), 0,
					&pi), OFAN_PARSE_OK);
				if (pi.kind != OFAN_KIND_DATA)
					continue;
				data++;
				if (f[pi.l4_offset + OFAN_UDP_HDR_SIZE +
				      OFAN_BTH_ACK_REQ_OFFSET] &
				    OFAN_BTH_ACK_REQ) {
					ck_assert_uint_eq(pi.psn, ar == 0 ? 3 : 2);
					asked++;
				}
			}
			rte_pktmbuf_free_bulk(pkts, n);
			now = RTE_MAX(hs_host_next_event(net->host[0]),
				      now + 1);
		}
		ck_assert_uint_eq(data, ar == 0 ? 4 : 3);
		ck_assert_uint_eq(asked, 1);
		t_net_done(net);
	}
}
END_TEST

/*
 * A flow acknowledged in the very ns its host started (an ACK with no
 * round trip at all) is done, and its result says so: 1 ns, since 0
 * means never.  And a host whose clock starts at 0 (a virtual one) that
 * has a flow completely at time 0 keeps it complete when one more of its
 * packets arrives: it counted the flow complete twice (rx_done went false
 * again) and reported its end twice (found by fuzz_host).
 */
START_TEST(test_done_at_start)
{
	struct rte_mbuf *pkts[T_BURST];
	struct hs_flow_result r;
	struct t_net *net;
	uint16_t n;
	uint32_t psn;

	/* SACK, one packet each way, acknowledged when it leaves. */
	net = t_net_new("fixed", "pattern = permutation\nsize = 100");
	t_net_hosts(net);
	n = hs_host_output(net->host[0], net->now, pkts, T_BURST);
	ck_assert_uint_eq(hs_host_stats(net->host[0])->data_sent, 1);
	rte_pktmbuf_free_bulk(pkts, n);
	t_inject(net, net->host[0], true, 0, 1, 0, net->now);
	ck_assert(hs_host_tx_done(net->host[0]));
	memset(&r, 0, sizeof(r));
	ck_assert(hs_host_flow_result(net->host[0], 0, &r));
	ck_assert_uint_eq(r.done_ns, 1);
	t_net_done(net);

	/* Erasure, host 1 started at 0: 1 + 3 packets at 0, one more at 5. */
	net = t_net_new("fixed", "pattern = permutation\nsize = 1460");
	net->cfg.set.recovery = hs_recovery_find("erasure");
	t_net_hosts(net);
	hs_host_free(net->host[1]);
	net->host[1] = NULL;
	{
		struct hs_host_params hp = {
			.set = &net->cfg.set, .traffic = &net->traffic, .rank = 1,
			.mac = { 0x02, 0, 0, 0, 0xaa, 1 }, .pool = t_pool,
			.dst_mac = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		};
		char err[256];

		net->host[1] = hs_host_create(&hp, err, sizeof(err));
		ck_assert_msg(net->host[1] != NULL, "%s", err);
	}
	hs_host_start(net->host[1], 0);
	for (psn = 0; psn < 4; psn++)
		t_inject(net, net->host[1], false, psn, 0, 1460, 0);
	ck_assert(hs_host_rx_done(net->host[1]));
	t_inject(net, net->host[1], false, 4, 0, 1460, 5);
	ck_assert(hs_host_rx_done(net->host[1]));
	memset(&r, 0, sizeof(r));
	ck_assert(hs_host_flow_result(net->host[1], 0, &r));
	ck_assert_uint_eq(r.data_received, 5);
	ck_assert_uint_eq(r.rx_done_ns, 1);
	t_net_done(net);
}
END_TEST

/*
 * A flow that waits for a flow into its source and for its own start
 * time: the flow it waits for is received long before that time, and it
 * starts at its start time.  It used to never start (hs_host_start_due
 * passed over every flow with a dependency; found by fuzz_host).
 */
START_TEST(test_dep_before_start)
{
	struct hs_traffic *t;
	struct hs_flow_result r;
	struct hs_summary sum;
	struct t_net *net;

	net = t_net_new("fixed", "pattern = permutation\nsize = 100");
	t = &net->traffic;
	hs_traffic_free(t);
	t->nb_ranks = 2;
	t->nb_flows = 2;
	t->flows = calloc(2, sizeof(*t->flows));
	ck_assert_ptr_nonnull(t->flows);
	t->flows[0] = (struct hs_flow_spec){
		.id = 0, .src = 1, .dst = 0, .size = 3000, .dep = HS_NO_DEP,
		.trigger = HS_NO_TRIGGER, .send_done_trigger = HS_NO_TRIGGER,
		.recv_done_trigger = HS_NO_TRIGGER,
	};
	t->flows[1] = (struct hs_flow_spec){
		.id = 1, .src = 0, .dst = 1, .size = 3000, .dep = 0,
		.start_ns = 50 * T_US, .trigger = HS_NO_TRIGGER,
		.send_done_trigger = HS_NO_TRIGGER,
		.recv_done_trigger = HS_NO_TRIGGER,
	};
	ck_assert_int_eq(hs_traffic_derive(t), 0);
	t_net_hosts(net);
	t_link(net, t_host_end(0), t_host_end(1));
	t_net_run(net, 1 * T_MS);
	t_check_delivered(net, 0, &sum);
	memset(&r, 0, sizeof(r));
	ck_assert(hs_host_flow_result(net->host[1], 0, &r));
	ck_assert_uint_lt(r.done_ns, 50 * T_US);
	memset(&r, 0, sizeof(r));
	ck_assert(hs_host_flow_result(net->host[0], 1, &r));
	ck_assert_uint_eq(r.start_ns, 50 * T_US);
	t_net_done(net);
}
END_TEST

/*
 * Every ARP frame a host receives is counted once, as the switch counts
 * them: a request for its address is answered (arp_replies); a reply, or
 * a request for another address, is not for it (not_for_us); a request
 * that finds the 16 replies not yet sent is dropped as by a full egress
 * queue (queue_full).  The last two were counted nowhere (found by
 * fuzz_host: rx_pkts exceeded what the counters accounted for).
 */
START_TEST(test_arp_counted)
{
	uint8_t frame[64], sha[6] = { 0x02, 0, 0, 0, 0xbb, 1 };
	const struct hs_host_stats *st;
	struct rte_mbuf *pkts[T_BURST], *m;
	struct t_net *net;
	struct hs_host *h;
	uint32_t ip, i;
	uint16_t n;
	int len;

	net = t_net_new("fixed", "pattern = permutation\nsize = 100");
	t_net_hosts(net);
	h = net->host[1];
	ip = hs_rank_ip(&net->cfg.set, 1);
	st = hs_host_stats(h);
	for (i = 0; i < 19; i++) {
		/* 17 requests for it, a request for another, a reply. */
		len = ofan_build_arp(frame, sizeof(frame),
				     i == 18 ? OFAN_ARP_OP_REPLY :
				     OFAN_ARP_OP_REQUEST, sha, T_IP(10, 0, 1, 99),
				     NULL, i == 17 ? ip + 1 : ip);
		ck_assert_int_gt(len, 0);
		m = rte_pktmbuf_alloc(t_pool);
		ck_assert_ptr_nonnull(m);
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
		hs_host_input(h, &m, 1, net->now);
	}
	ck_assert_uint_eq(st->rx_pkts, 19);
	ck_assert_uint_eq(st->arp_replies, 16);
	ck_assert_uint_eq(st->drops[OFAN_DROP_QUEUE_FULL], 1);
	ck_assert_uint_eq(st->drops[OFAN_DROP_NOT_FOR_US], 2);
	/* The 16 replies (and the announcement) go out. */
	n = hs_host_output(h, net->now, pkts, T_BURST);
	ck_assert_uint_ge(n, 17);
	rte_pktmbuf_free_bulk(pkts, n);
	t_net_done(net);
}
END_TEST

/*
 * A data packet with a PSN its flow does not have is corrupt, payload
 * checked or not, never a duplicate: without the check it was counted in
 * dup_pkts, which no receiver had (found by fuzz_host).
 */
START_TEST(test_psn_out_of_range)
{
	const struct hs_host_stats *st;
	struct hs_flow_result r;
	struct t_net *net;
	unsigned int verify;

	for (verify = 0; verify < 2; verify++) {
		/* SACK, 2 packets of 1460 bytes. */
		net = t_net_new("fixed", "pattern = permutation\nsize = 2920");
		net->cfg.set.verify_payload = verify;
		t_net_hosts(net);
		st = hs_host_stats(net->host[1]);
		t_inject(net, net->host[1], false, 2, 0, 1460, net->now);
		t_inject(net, net->host[1], false, 0xffffff, 0, 1460,
			 net->now);
		t_inject(net, net->host[1], false, 1, 0, 1460, net->now);
		t_inject(net, net->host[1], false, 1, 0, 1460, net->now);
		ck_assert_uint_eq(st->corrupt_pkts, 2);
		ck_assert_uint_eq(st->dup_pkts, 1);
		memset(&r, 0, sizeof(r));
		ck_assert(hs_host_flow_result(net->host[1], 0, &r));
		ck_assert_uint_eq(r.data_received, 1);
		ck_assert_uint_eq(r.dup_pkts, 1);
		t_net_done(net);
	}
}
END_TEST

/*
 * IPv4 for the host's address that is not RoCEv2 although its port is
 * 4791 -- TCP, or the first fragment of a UDP datagram -- is not for it
 * (not_for_us), like any other non-RoCE traffic.  It was counted nowhere
 * (found by fuzz_host).
 */
START_TEST(test_other_to_rocev2_port)
{
	const struct hs_host_stats *st;
	struct ofan_pkt_spec sp;
	struct t_net *net;
	uint8_t frame[256];
	unsigned int i;
	int len;

	net = t_net_new("fixed", "pattern = permutation\nsize = 100");
	t_net_hosts(net);
	st = hs_host_stats(net->host[1]);
	for (i = 0; i < 2; i++) {
		struct rte_mbuf *m;

		memset(&sp, 0, sizeof(sp));
		sp.src_ip = hs_rank_ip(&net->cfg.set, 0);
		sp.dst_ip = hs_rank_ip(&net->cfg.set, 1);
		sp.dest_qp = HS_QP_OFFSET;
		sp.ev = 49152;
		sp.payload_size = 100;
		len = ofan_build_data(frame, sizeof(frame), &sp);
		ck_assert_int_gt(len, 0);
		if (i == 0)	/* TCP to port 4791 */
			frame[OFAN_ETH_HDR_SIZE + 9] = OFAN_IPPROTO_TCP;
		else		/* UDP, more fragments follow */
			frame[OFAN_ETH_HDR_SIZE + 6] |= 0x20;
		m = rte_pktmbuf_alloc(t_pool);
		ck_assert_ptr_nonnull(m);
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
		hs_host_input(net->host[1], &m, 1, net->now);
	}
	ck_assert_uint_eq(st->rx_pkts, 2);
	ck_assert_uint_eq(st->drops[OFAN_DROP_NOT_FOR_US], 2);
	ck_assert_uint_eq(st->goodput_bytes + st->unknown_flow +
			  st->corrupt_pkts + st->dup_pkts, 0);
	t_net_done(net);
}
END_TEST

/* A frame of len bytes into host h at now. */
static void
t_host_frame(struct hs_host *h, const uint8_t *frame, int len, uint64_t now)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(t_pool);

	ck_assert_int_gt(len, 0);
	ck_assert_ptr_nonnull(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
	hs_host_input(h, &m, 1, now);
}

/*
 * A PFC frame reloads the host's pause timer (IEEE 802.1Qbb): 0xffff
 * quanta (3,355,392 ns at 10 Gb/s), then 100 ns later 10 quanta (512
 * ns) end the pause 612 ns after it began, and the host counts 612 ns
 * paused, 100 of them at the second frame, the rest once it runs out.
 * It counted 3,355,392 ns at the first frame, then 612 at the second:
 * a counter that went down (found by fuzz_host).
 */
START_TEST(test_pfc_shorter_pause)
{
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0xcc, 1 };
	uint8_t frame[64], sha[6] = { 0x02, 0, 0, 0, 0xbb, 1 };
	struct rte_mbuf *pkts[T_BURST];
	const struct hs_host_stats *st;
	struct t_net *net;
	struct hs_host *h;
	uint64_t t0;
	uint16_t n;

	net = t_net_new("fixed", "pattern = permutation\nsize = 100");
	t_net_hosts(net);
	h = net->host[1];
	st = hs_host_stats(h);
	t0 = net->now;
	/* What is due now leaves (its announcement, its data). */
	n = hs_host_output(h, t0, pkts, T_BURST);
	rte_pktmbuf_free_bulk(pkts, n);
	t_host_frame(h, frame, ofan_build_pfc(frame, sizeof(frame), src,
					      1u << HS_PFC_PRIORITY, 0xffff),
		     t0);
	ck_assert_uint_eq(hs_host_paused_until(h), t0 + 3355392);
	ck_assert_uint_eq(st->pfc_paused_ns, 0);
	t_host_frame(h, frame, ofan_build_pfc(frame, sizeof(frame), src,
					      1u << HS_PFC_PRIORITY, 10),
		     t0 + 100);
	ck_assert_uint_eq(hs_host_paused_until(h), t0 + 612);
	ck_assert_uint_eq(st->pfc_paused_ns, 100);
	ck_assert_uint_eq(st->pfc_pauses_received, 2);
	/* An ARP request: its reply waits for the pause's end. */
	t_host_frame(h, frame, ofan_build_arp(frame, sizeof(frame),
					      OFAN_ARP_OP_REQUEST, sha,
					      T_IP(10, 0, 1, 99), NULL,
					      hs_rank_ip(&net->cfg.set, 1)),
		     t0 + 200);
	ck_assert_uint_eq(hs_host_output(h, t0 + 611, pkts, T_BURST), 0);
	ck_assert_uint_eq(st->pfc_paused_ns, 100);
	n = hs_host_output(h, t0 + 612, pkts, T_BURST);
	ck_assert_uint_ge(n, 1);
	rte_pktmbuf_free_bulk(pkts, n);
	ck_assert_uint_eq(st->pfc_paused_ns, 612);
	ck_assert_uint_eq(hs_host_paused_until(h), 0);
	t_net_done(net);
}
END_TEST

/*
 * An ACK from its flow's template is the frame ofan_build_ack() builds
 * field by field, byte for byte, whatever the EV, PSNs, SACK and flags.
 */
START_TEST(test_ack_template)
{
	struct t_net *net = t_net_new("reps", "pattern = alltoall\nsize = 64KiB");
	struct hs_frame_ctx fx = {
		.set = &net->cfg.set, .ip = hs_rank_ip(&net->cfg.set, 1),
		.mac = { 0x02, 0, 0, 0, 0xaa, 1 },
		.dst_mac = { 0x02, 0, 0, 0, 0xbb, 7 },
	};
	const struct hs_flow_spec *f = &net->traffic.flows[0];
	struct hs_ack_tmpl t;
	struct ofan_rng rng;
	unsigned int i;

	ofan_rng_seed(&rng, 42, 0);
	hs_frame_ack_template(&fx, &t, f);
	ck_assert(t.ok);
	for (i = 0; i < 2000; i++) {
		struct hs_ack_req a = {
			.flow = f->id, .src = f->src,
			.nic_slot = (uint32_t)ofan_rng_next(&rng),
			.echo_ev = (uint16_t)ofan_rng_next(&rng),
			.count = i & 1,
			.a = {
				.ce = (i >> 1) & 1,
				.echo_psn = (uint32_t)ofan_rng_next(&rng) &
					(i < 1000 ? 0xffffff : UINT32_MAX),
				.cum = (uint32_t)ofan_rng_next(&rng),
				.sack = ofan_rng_next(&rng),
			},
		};
		struct rte_mbuf *x, *y;

		x = hs_frame_ack(&fx, t_pool, &a);	/* field by field */
		a.tmpl = &t;
		y = hs_frame_ack(&fx, t_pool, &a);
		ck_assert_ptr_nonnull(x);
		ck_assert_ptr_nonnull(y);
		ck_assert_uint_eq(x->data_len, y->data_len);
		ck_assert_uint_eq(x->pkt_len, y->pkt_len);
		ck_assert_uint_eq(x->hash.usr, y->hash.usr);
		ck_assert_msg(memcmp(rte_pktmbuf_mtod(x, void *),
				     rte_pktmbuf_mtod(y, void *),
				     x->data_len) == 0, "ACK %u differs", i);
		rte_pktmbuf_free(x);
		rte_pktmbuf_free(y);
	}
	t_net_free(net);
}
END_TEST

static Suite *
host_suite(void)
{
	Suite *s = suite_create("host");
	TCase *tc;

	tc = tcase_create("b2b");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_b2b, 0,
			    RTE_DIM(t_host_policies) * RTE_DIM(t_b2b_traffic));
	tcase_add_test(tc, test_b2b_corrupt);
	tcase_add_test(tc, test_ack_template);
	tcase_add_test(tc, test_erasure_wait_no_spin);
	tcase_add_test(tc, test_erasure_makeup_next_event);
	tcase_add_test(tc, test_resend_path);
	tcase_add_test(tc, test_nack_last_hop);
	tcase_add_test(tc, test_ack_request);
	tcase_add_test(tc, test_pull_none_when_complete);
	tcase_add_test(tc, test_rccc_first_credit_debt);
	tcase_add_test(tc, test_done_at_start);
	tcase_add_test(tc, test_dep_before_start);
	tcase_add_test(tc, test_arp_counted);
	tcase_add_test(tc, test_psn_out_of_range);
	tcase_add_test(tc, test_other_to_rocev2_port);
	tcase_add_test(tc, test_pfc_shorter_pause);
	suite_add_tcase(s, tc);

	tc = tcase_create("leaf");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_leaf_ecmp_ops);
	tcase_add_test(tc, test_leaf_ecmp_fixed);
	tcase_add_test(tc, test_leaf_ofan_fixed);
	tcase_add_test(tc, test_leaf_blackhole);
	suite_add_tcase(s, tc);

	tc = tcase_create("mbufs");
	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_add_test(tc, test_free_midway);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_eal_run_suite("test_host", host_suite(), T_NB_MBUFS, &t_pool);
}
