/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One rank on several lcores (host/engine/hs_shard.h, struct hs_host_shard):
 * the placement hash and the sharded host engine, in virtual time on EAL
 * with --no-huge and no ports.
 *
 * The hash: DPDK's rte_softrss with ofan's key against an independent
 * bit-by-bit Toeplitz (t_toeplitz, the scalar reference) and Microsoft's
 * published RSS verification vector for that key; the software
 * dispatcher's frame placement (plain, VLAN-tagged, ARP, runt) against
 * the placement of the source address.
 *
 * The engine: four ranks (10.0.0.1, 10.0.0.2, 10.0.1.1, 10.0.1.2, as
 * configs/experiments/testbed-small.ini) joined by an ideal hub: every
 * frame reaches the host of its destination address 2 us after it was
 * sent, whatever the load.  Rank 0 runs as two shards, the frames to it
 * handed to the shard its source hashes to, as ofan-host's dispatcher
 * does; a dependency released across shards is delivered at the next
 * tick, as ofan-host's message ring does.  With that key, rank 0's
 * shard 0 has its flows with 10.0.1.2 (rank 3) and shard 1 those with
 * ranks 1 and 2, so both work and a ring all-reduce (receive from rank 3,
 * then send to rank 1) crosses shards.  Every run is deterministic.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_thash.h>

#include "hs_config.h"
#include "hs_host.h"
#include "hs_results.h"
#include "hs_shard.h"
#include "hs_traffic.h"
#include "ofan_clock.h"
#include "ofan_parse.h"
#include "ofan_wire.h"
#include "eal_suite.h"

#define T_NB_MBUFS 16383
#define T_RANKS 4
#define T_SHARDS 2
#define T_BURST 32
#define T_US OFAN_NS_PER_US
#define T_DELAY_NS (2 * T_US)
#define T_HUB_CAP 16384
#define T_IP(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static struct rte_mempool *t_pool;

/* ---- the hash ---- */

/* Toeplitz, one input bit at a time: the scalar reference. */
static uint32_t
t_toeplitz(const uint8_t *data, unsigned int len)
{
	uint32_t h = 0, window;
	unsigned int i, b;

	/* The 32 key bits from bit i on; the key is 40 bytes. */
	for (i = 0; i < len * 8; i++) {
		if (!(data[i / 8] & (0x80 >> (i % 8))))
			continue;
		window = 0;
		for (b = 0; b < 32; b++)
			window = window << 1 |
				((hs_rss_key[(i + b) / 8] >> (7 - (i + b) % 8)) &
				 1);
		h ^= window;
	}
	return h;
}

START_TEST(test_hash)
{
	/* Microsoft's RSS verification suite, IPv4 only, first row. */
	uint32_t tuple[2] = { T_IP(66, 9, 149, 187), T_IP(161, 142, 100, 80) };
	static const uint32_t ips[] = {
		T_IP(10, 0, 0, 1), T_IP(10, 0, 0, 2), T_IP(10, 0, 1, 1),
		T_IP(10, 0, 1, 2), T_IP(192, 168, 7, 200), 0, UINT32_MAX,
	};
	unsigned int i;

	ck_assert_uint_eq(rte_softrss(tuple, 2, hs_rss_key), 0x323e8fc2);
	for (i = 0; i < RTE_DIM(ips); i++) {
		uint8_t be[4] = { (uint8_t)(ips[i] >> 24),
				  (uint8_t)(ips[i] >> 16),
				  (uint8_t)(ips[i] >> 8), (uint8_t)ips[i] };

		ck_assert_uint_eq(hs_shard_hash(ips[i]), t_toeplitz(be, 4));
		ck_assert_uint_eq(hs_shard_of_ip(ips[i], 3, 128),
				  (t_toeplitz(be, 4) % 128) % 3);
		ck_assert_uint_eq(hs_shard_of_ip(ips[i], 1, 128), 0);
	}
	/* The placement the engine tests below rely on. */
	ck_assert_uint_eq(hs_shard_hash(T_IP(10, 0, 0, 1)), 0x919d5c4a);
	ck_assert_uint_eq(hs_shard_of_ip(T_IP(10, 0, 0, 2), 2, 128), 1);
	ck_assert_uint_eq(hs_shard_of_ip(T_IP(10, 0, 1, 1), 2, 128), 1);
	ck_assert_uint_eq(hs_shard_of_ip(T_IP(10, 0, 1, 2), 2, 128), 0);
}
END_TEST

/* An Ethernet frame of type type (tagged: behind a VLAN tag) from ip. */
static unsigned int
t_frame(uint8_t *f, uint16_t type, bool tagged, uint32_t ip)
{
	unsigned int off = 12;

	memset(f, 0, 64);
	if (tagged) {
		f[off++] = 0x81;
		f[off++] = 0x00;
		f[off++] = 0x00;
		f[off++] = 0x05;
	}
	f[off++] = (uint8_t)(type >> 8);
	f[off++] = (uint8_t)type;
	f[off] = 0x45;
	f[off + 12] = (uint8_t)(ip >> 24);
	f[off + 13] = (uint8_t)(ip >> 16);
	f[off + 14] = (uint8_t)(ip >> 8);
	f[off + 15] = (uint8_t)ip;
	return off + 20;
}

START_TEST(test_dispatch)
{
	uint8_t f[64];
	uint32_t ip, r;
	unsigned int len;

	for (r = 0; r < 64; r++) {
		ip = T_IP(10, 1, r / 8, r % 8 + 1);
		len = t_frame(f, OFAN_ETHER_TYPE_IPV4, false, ip);
		ck_assert_uint_eq(hs_shard_of_frame(f, len, 4, 128),
				  hs_shard_of_ip(ip, 4, 128));
		len = t_frame(f, OFAN_ETHER_TYPE_IPV4, true, ip);
		ck_assert_uint_eq(hs_shard_of_frame(f, len, 4, 128),
				  hs_shard_of_ip(ip, 4, 128));
		/* A frame one byte short of its IPv4 header: shard 0. */
		ck_assert_uint_eq(hs_shard_of_frame(f, len - 1, 4, 128), 0);
	}
	/* Shard 0 answers ARP and counts what it cannot parse. */
	ip = T_IP(10, 0, 0, 2);	/* shard 1 of 2 */
	len = t_frame(f, OFAN_ETHER_TYPE_ARP, false, ip);
	ck_assert_uint_eq(hs_shard_of_frame(f, len, 2, 128), 0);
	len = t_frame(f, OFAN_ETHER_TYPE_IPV6, false, ip);
	ck_assert_uint_eq(hs_shard_of_frame(f, len, 2, 128), 0);
	ck_assert_uint_eq(hs_shard_of_frame(f, 10, 2, 128), 0);
	len = t_frame(f, OFAN_ETHER_TYPE_IPV4, false, ip);
	ck_assert_uint_eq(hs_shard_of_frame(f, len, 2, 128), 1);
	ck_assert_uint_eq(hs_shard_of_frame(f, len, 1, 128), 0);
}
END_TEST

/* ---- the engine over an ideal hub ---- */

/* A dependency handed to another shard, started at the next tick. */
struct t_release {
	uint16_t shard;
	uint32_t flow;
};

struct t_hub {
	struct hs_config cfg;
	struct hs_traffic traffic;
	/* hosts[0..nb_shards) are rank 0's shards, then ranks 1..3. */
	struct hs_host *hosts[T_SHARDS + T_RANKS];
	uint16_t nb_hosts;
	uint16_t nb_shards;	/* of rank 0: 1 (whole) or T_SHARDS */
	uint32_t rank_active;
	struct hs_host_shard sh[T_SHARDS];
	struct t_release rel[1024];
	uint32_t nb_rel;
	uint32_t nb_released;	/* cross-shard dependencies, in total */
	uint32_t head, tail;
	struct rte_mbuf *pkt[T_HUB_CAP];
	uint64_t due[T_HUB_CAP];
	uint64_t now;
	unsigned int pool_start;
};

static struct t_hub *t_live;

static void
t_on_release(void *arg, uint16_t shard, uint32_t flow, uint64_t now)
{
	struct t_hub *hub = arg;

	(void)now;
	ck_assert_uint_lt(hub->nb_rel, RTE_DIM(hub->rel));
	hub->rel[hub->nb_rel++] = (struct t_release){ shard, flow };
	hub->nb_released++;
}

/* The host a frame to ip from src_ip goes to (-1: none). */
static int
t_host_of(const struct t_hub *hub, const uint8_t *frame, uint32_t len)
{
	struct ofan_pkt_info pi;
	uint32_t r;

	if (ofan_parse(frame, len, OFAN_PARSE_F_NO_TTL_CHECK, &pi) !=
	    OFAN_PARSE_OK || pi.kind == OFAN_KIND_ARP)
		return -1;
	for (r = 0; r < T_RANKS; r++)
		if (hs_rank_ip(&hub->cfg.set, r) == pi.dst_ip)
			break;
	ck_assert_uint_lt(r, T_RANKS);
	if (r > 0)
		return hub->nb_shards + (int)r - 1;
	return hs_shard_of_frame(frame, len, hub->nb_shards,
				 HS_SOFT_RETA_SIZE);
}

static struct t_hub *
t_hub_new(const char *traffic, uint16_t nb_shards)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct t_hub *hub = calloc(1, sizeof(*hub));
	char path[64] = "/tmp/ofan_test_shard_XXXXXX", err[512] = "";
	uint16_t i;
	FILE *f;
	int fd, rc;

	ck_assert_ptr_nonnull(hub);
	ck_assert_ptr_null(t_live);
	t_live = hub;
	hub->pool_start = rte_mempool_in_use_count(t_pool);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"[host]\npolicy = ops\nseed = 5\nrate = 10G\nmtu = 1500\n"
		"min_rto = 200us\nreorder_window = 20us\nbase_rtt = 5us\n"
		"stats_interval = 0\n"
		"[ranks]\ncount = %u\nip_base = 10.0.0.1\nper_subnet = 2\n"
		"[traffic]\nseed = 3\n%s\n", T_RANKS, traffic);
	for (i = 0; i < T_RANKS; i++)
		fprintf(f, "[port.%u]\ndev = net_null%u\nrank = %u\n", i, i, i);
	ck_assert_int_eq(fclose(f), 0);
	rc = hs_config_load(path, &hub->cfg, err, sizeof(err));
	unlink(path);
	ck_assert_msg(rc == 0, "hs_config_load: %s", err);
	rc = hs_pattern_build(&hub->cfg.traffic, &hub->traffic, NULL, err,
			      sizeof(err));
	ck_assert_msg(rc == 0, "hs_pattern_build: %s", err);
	hub->nb_shards = nb_shards;
	hub->now = 10 * T_US;
	for (i = 0; i < nb_shards + T_RANKS - 1; i++) {
		struct hs_host_params hp = {
			.set = &hub->cfg.set,
			.traffic = &hub->traffic,
			.rank = i < nb_shards ? 0 : (uint32_t)(i - nb_shards + 1),
			.mac = { 0x02, 0, 0, 0, 0xaa, (uint8_t)i },
			.pool = t_pool,
		};

		if (i < nb_shards && nb_shards > 1) {
			hub->sh[i] = (struct hs_host_shard){
				.index = i, .count = nb_shards,
				.reta_size = HS_SOFT_RETA_SIZE,
				.release = t_on_release, .release_arg = hub,
				.rank_active = &hub->rank_active,
			};
			hp.shard = &hub->sh[i];
		}
		memcpy(hp.dst_mac, bcast, 6);
		hub->hosts[i] = hs_host_create(&hp, err, sizeof(err));
		ck_assert_msg(hub->hosts[i] != NULL, "hs_host_create: %s", err);
		hub->nb_hosts++;
	}
	for (i = 0; i < hub->nb_hosts; i++)
		hs_host_start(hub->hosts[i], hub->now);
	return hub;
}

static void
t_hub_free(struct t_hub *hub)
{
	uint16_t i;

	if (hub == NULL)
		return;
	while (hub->head != hub->tail)
		rte_pktmbuf_free(hub->pkt[hub->head++ % T_HUB_CAP]);
	for (i = 0; i < hub->nb_hosts; i++)
		hs_host_free(hub->hosts[i]);
	hs_traffic_free(&hub->traffic);
	free(hub);
	if (t_live == hub)
		t_live = NULL;
}

static void
t_teardown(void)
{
	t_hub_free(t_live);
}

static bool
t_hub_done(const struct t_hub *hub)
{
	uint16_t i;

	for (i = 0; i < hub->nb_hosts; i++)
		if (!hs_host_tx_done(hub->hosts[i]) ||
		    !hs_host_rx_done(hub->hosts[i]))
			return false;
	return true;
}

/* One microsecond: releases, arrivals, then every host's output. */
static void
t_hub_step(struct t_hub *hub)
{
	struct rte_mbuf *pkts[T_BURST];
	uint32_t i;
	uint16_t k, n;

	for (i = 0; i < hub->nb_rel; i++) {
		ck_assert_uint_lt(hub->rel[i].shard, hub->nb_shards);
		ck_assert(hs_host_release_dep(hub->hosts[hub->rel[i].shard],
					      hub->rel[i].flow, hub->now));
	}
	hub->nb_rel = 0;
	while (hub->head != hub->tail &&
	       hub->due[hub->head % T_HUB_CAP] <= hub->now) {
		struct rte_mbuf *m = hub->pkt[hub->head++ % T_HUB_CAP];
		int to = t_host_of(hub, rte_pktmbuf_mtod(m, uint8_t *),
				   rte_pktmbuf_data_len(m));

		if (to < 0)
			rte_pktmbuf_free(m);
		else
			hs_host_input(hub->hosts[to], &m, 1, hub->now);
	}
	for (k = 0; k < hub->nb_hosts; k++) {
		do {
			n = hs_host_output(hub->hosts[k], hub->now, pkts,
					   T_BURST);
			for (i = 0; i < n; i++) {
				ck_assert_uint_lt(hub->tail - hub->head,
						  T_HUB_CAP);
				hub->pkt[hub->tail % T_HUB_CAP] = pkts[i];
				hub->due[hub->tail % T_HUB_CAP] =
					hub->now + T_DELAY_NS;
				hub->tail++;
			}
		} while (n == T_BURST);
	}
	hub->now += T_US;
}

/* Run to completion (at most limit_us of virtual time), then settle. */
static void
t_hub_run(struct t_hub *hub, uint64_t limit_us)
{
	uint64_t end = hub->now + limit_us * T_US;
	unsigned int settle;

	while (!t_hub_done(hub)) {
		ck_assert_msg(hub->now < end, "not done after %" PRIu64 " us",
			      limit_us);
		t_hub_step(hub);
	}
	for (settle = 0; settle < 100 && hub->head != hub->tail; settle++)
		t_hub_step(hub);
	ck_assert_uint_eq(hub->head, hub->tail);
}

/*
 * Every byte delivered once and verified; nothing strayed; each of rank
 * 0's shards sent (bit 0 of sides) and received (bit 1) if asked.
 * Returns when rank 0's last sent flow was acknowledged.
 */
static uint64_t
t_hub_check(struct t_hub *hub, const unsigned int *sides)
{
	struct hs_summary sum;
	uint64_t goodput = 0, bytes = 0, last = 0;
	struct hs_flow_result r;
	uint32_t f;
	uint16_t i;

	for (f = 0; f < hub->traffic.nb_flows; f++)
		bytes += hub->traffic.flows[f].size;
	for (i = 0; i < hub->nb_hosts; i++) {
		const struct hs_host_stats *st = hs_host_stats(hub->hosts[i]);

		ck_assert_uint_eq(st->unknown_flow, 0);
		ck_assert_uint_eq(st->corrupt_pkts, 0);
		ck_assert_uint_eq(st->ack_mismatch, 0);
		goodput += st->goodput_bytes;
		if (i < hub->nb_shards && hub->nb_shards > 1) {
			ck_assert_uint_eq(st->data_sent > 0, sides[i] & 1);
			ck_assert_uint_eq(st->acks_received > 0, sides[i] & 1);
			ck_assert_uint_eq(st->goodput_bytes > 0,
					  (sides[i] >> 1) & 1);
		}
	}
	ck_assert_uint_eq(goodput, bytes);
	ck_assert_int_eq(hs_results(hub->hosts, hub->nb_hosts, &hub->cfg.set,
				    &hub->traffic, &(const struct hs_results_run){ 0 },
				    NULL, NULL, &sum), 0);
	ck_assert_uint_eq(sum.nb_flows, hub->traffic.nb_flows);
	ck_assert_uint_eq(sum.nb_completed, hub->traffic.nb_flows);
	ck_assert_uint_eq(sum.incomplete_rx, 0);
	/* Rank 0's last sent flow acknowledged. */
	for (f = 0; f < hub->traffic.nb_flows; f++) {
		memset(&r, 0, sizeof(r));
		for (i = 0; i < hub->nb_shards; i++)
			hs_host_flow_result(hub->hosts[i], f, &r);
		if (r.sent_here)
			last = RTE_MAX(last, r.done_ns);
	}
	ck_assert_uint_gt(last, 0);
	return last;
}

START_TEST(test_alltoall)
{
	static const char traffic[] = "pattern = alltoall\nsize = 512KiB\n";
	static const unsigned int both[T_SHARDS] = { 3, 3 };
	struct t_hub *hub;
	uint64_t whole, split;

	hub = t_hub_new(traffic, 1);
	t_hub_run(hub, 100000);
	whole = t_hub_check(hub, both);
	t_hub_free(hub);
	hub = t_hub_new(traffic, T_SHARDS);
	t_hub_run(hub, 100000);
	split = t_hub_check(hub, both);
	ck_assert_uint_eq(hub->nb_released, 0);	/* no dependencies */
	t_hub_free(hub);
	/*
	 * The shards share the rank's rate (pacing = host): rank 0 ends
	 * with its flows as a whole rank would, not 1.5x sooner (its shard 1
	 * pacing two flows at the full rate, its shard 0 one).
	 */
	ck_assert_msg(split * 100 > whole * 95 && split * 100 < whole * 105,
		      "rank 0 done at %" PRIu64 " ns in 2 shards, %" PRIu64
		      " ns whole", split, whole);
	ck_assert_uint_eq(rte_mempool_in_use_count(t_pool), 0);
}
END_TEST

START_TEST(test_ring_allreduce)
{
	/* Rank 0 receives from rank 3 (shard 0), sends to rank 1 (shard 1). */
	static const unsigned int sides[T_SHARDS] = { 2, 1 };
	struct t_hub *hub;

	hub = t_hub_new("pattern = ring_allreduce\nsize = 1MiB\n"
			"iterations = 2\n", T_SHARDS);
	t_hub_run(hub, 200000);
	t_hub_check(hub, sides);
	/* Every step but the first of rank 0 waits across the shards. */
	ck_assert_uint_gt(hub->nb_released, 0);
	t_hub_free(hub);
	ck_assert_uint_eq(rte_mempool_in_use_count(t_pool), 0);
}
END_TEST

/* A shard's flows are its own: nothing of another shard is reported. */
START_TEST(test_foreign_flows)
{
	struct t_hub *hub = t_hub_new("pattern = alltoall\nsize = 64KiB\n",
				      T_SHARDS);
	uint64_t acked, total, all = 0;
	struct hs_flow_result r;
	uint32_t f, sides[2] = { 0, 0 };
	uint16_t k;

	for (k = 0; k < T_SHARDS; k++) {
		hs_host_progress(hub->hosts[k], &acked, &total);
		all += total;
		for (f = 0; f < hub->traffic.nb_flows; f++) {
			memset(&r, 0, sizeof(r));
			if (!hs_host_flow_result(hub->hosts[k], f, &r))
				continue;
			sides[k] += r.sent_here + r.received_here;
			/* Data from its destination's side comes here. */
			if (r.sent_here)
				ck_assert_uint_eq(hs_shard_of_ip(hs_rank_ip(
					&hub->cfg.set, hub->traffic.flows[f].dst),
					T_SHARDS, HS_SOFT_RETA_SIZE), k);
			if (r.received_here)
				ck_assert_uint_eq(hs_shard_of_ip(hs_rank_ip(
					&hub->cfg.set, hub->traffic.flows[f].src),
					T_SHARDS, HS_SOFT_RETA_SIZE), k);
		}
	}
	/* Shard 0: rank 3's two sides; shard 1: ranks 1 and 2's four. */
	ck_assert_uint_eq(sides[0], 2);
	ck_assert_uint_eq(sides[1], 4);
	ck_assert_uint_eq(all, 3 * 64 * 1024);
	t_hub_free(hub);
}
END_TEST

static Suite *
shard_suite(void)
{
	Suite *s = suite_create("shard");
	TCase *tc = tcase_create("shard");

	tcase_add_checked_fixture(tc, NULL, t_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_hash);
	tcase_add_test(tc, test_dispatch);
	tcase_add_test(tc, test_foreign_flows);
	tcase_add_test(tc, test_alltoall);
	tcase_add_test(tc, test_ring_allreduce);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_eal_run_suite("test_shard", shard_suite(), T_NB_MBUFS,
			       &t_pool);
}
