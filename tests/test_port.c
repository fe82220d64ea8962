/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EAL port layer (port/ofan_port.h) on virtual ports: which devs it
 * accepts before probing anything, ofan_ports_open()'s order (check every
 * dev, resolve every dev, then start) and its messages, the same-device
 * check, a ring pair carrying frames back to back, and every mbuf back in
 * the pool once the ports are closed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <check.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ofan_port.h"

#include "eal_suite.h"

#define T_NB_MBUFS 8191

static struct rte_mempool *t_pool;

START_TEST(test_check)
{
	char err[512] = "";

	ck_assert_int_eq(ofan_port_check("net_null0", err, sizeof(err)), 0);
	ck_assert_int_eq(ofan_port_check("net_ring0", err, sizeof(err)), 0);
	ck_assert_int_eq(ofan_port_check("ringpair:x:a", err, sizeof(err)), 0);
	ck_assert_int_ne(ofan_port_check("ringpair:x:c", err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "expected ringpair:NAME:a or ringpair:NAME:b"));
	ck_assert_int_ne(ofan_port_check("no such device", err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "'no such device' is not a device any bus knows"));
	/* Checking probes nothing. */
	{
		uint16_t id;

		ck_assert_int_ne(rte_eth_dev_get_port_by_name("net_null0", &id), 0);
	}
}
END_TEST

/* A bad dev in port 1 fails before port 0 is probed or started. */
START_TEST(test_open_checks_first)
{
	const struct ofan_port_conf conf[] = {
		{ .dev = "net_null7", .nb_rxq = 1, .nb_txq = 1,
		  .nb_rxd = 256, .nb_txd = 256 },
		{ .dev = "ringpair:y:z", .nb_rxq = 1, .nb_txq = 1,
		  .nb_rxd = 256, .nb_txd = 256 },
	};
	uint16_t ids[2], txq[2];
	bool started[2] = { true, true };
	char err[512] = "";
	uint16_t id;

	ck_assert_int_ne(ofan_ports_open(conf, 2, t_pool, ids, txq, started,
					 err, sizeof(err)), 0);
	ck_assert_msg(strncmp(err, "port.1:dev: 'ringpair:y:z'", 26) == 0,
		      "message: %s", err);
	ck_assert(!started[0] && !started[1]);
	ck_assert_int_ne(rte_eth_dev_get_port_by_name("net_null7", &id), 0);
}
END_TEST

START_TEST(test_open_same_device)
{
	const struct ofan_port_conf conf[] = {
		{ .dev = "net_null8", .nb_rxq = 1, .nb_txq = 1,
		  .nb_rxd = 256, .nb_txd = 256 },
		{ .dev = "net_null8,size=64", .nb_rxq = 1, .nb_txq = 1,
		  .nb_rxd = 256, .nb_txd = 256 },
	};
	uint16_t ids[2], txq[2];
	bool started[2];
	char err[512] = "";

	ck_assert_int_eq(ofan_ports_open(conf, 2, t_pool, ids, txq, started,
					 err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "port.1:dev: 'net_null8,size=64' is the same device as port.0; expected each port on its own device");
	ck_assert(!started[0] && !started[1]);
}
END_TEST

/*
 * A ring pair joins two ports back to back: what one sends the other
 * receives, unchanged; TX queues beyond the device's are cut to what it
 * has; closing returns every mbuf, those still waiting in a ring too.
 */
START_TEST(test_ringpair_b2b)
{
	const struct ofan_port_conf conf[] = {
		{ .dev = "ringpair:b2b:a", .nb_rxq = 1, .nb_txq = 1,
		  .nb_rxd = 256, .nb_txd = 256 },
		{ .dev = "ringpair:b2b:b", .nb_rxq = 1, .nb_txq = 1,
		  .nb_rxd = 256, .nb_txd = 256 },
	};
	unsigned int in_use0 = rte_mempool_in_use_count(t_pool);
	struct rte_mbuf *tx[8], *rx[16];
	uint16_t ids[2], txq[2], i, n;
	bool started[2];
	char err[512] = "";

	ck_assert_msg(ofan_ports_open(conf, 2, t_pool, ids, txq, started, err,
				      sizeof(err)) == 0, "%s", err);
	ck_assert(started[0] && started[1]);
	ck_assert_uint_ne(ids[0], ids[1]);
	ck_assert_uint_eq(txq[0], 1);
	for (i = 0; i < 8; i++) {
		tx[i] = rte_pktmbuf_alloc(t_pool);
		ck_assert_ptr_nonnull(tx[i]);
		memset(rte_pktmbuf_append(tx[i], 64), (int)i, 64);
	}
	ck_assert_uint_eq(rte_eth_tx_burst(ids[0], 0, tx, 8), 8);
	n = rte_eth_rx_burst(ids[1], 0, rx, 16);
	ck_assert_uint_eq(n, 8);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(rte_pktmbuf_pkt_len(rx[i]), 64);
		ck_assert_uint_eq(*rte_pktmbuf_mtod(rx[i], uint8_t *), i);
	}
	rte_pktmbuf_free_bulk(rx, n);
	/* Four left in flight towards port 0: close frees them. */
	for (i = 0; i < 4; i++) {
		tx[i] = rte_pktmbuf_alloc(t_pool);
		ck_assert_ptr_nonnull(tx[i]);
	}
	ck_assert_uint_eq(rte_eth_tx_burst(ids[1], 0, tx, 4), 4);
	ofan_ports_close(ids, started, 2);
	ck_assert(!started[0] && !started[1]);
	ck_assert_uint_eq(rte_mempool_in_use_count(t_pool), in_use0);
}
END_TEST

/*
 * Quirks are the driver's, asked of the port: a ring pair's TX queue i is
 * its peer's RX queue i, so it gets the TX queues wanted for paired
 * devices; net_null has no quirk and gets what was asked for.
 */
START_TEST(test_quirks)
{
	const struct ofan_port_conf conf[] = {
		{ .dev = "ringpair:q:a", .nb_rxq = 1, .nb_txq = 4,
		  .nb_txq_paired = 1, .nb_rxd = 256, .nb_txd = 256 },
		{ .dev = "ringpair:q:b", .nb_rxq = 1, .nb_txq = 1,
		  .nb_rxd = 256, .nb_txd = 256 },
		{ .dev = "net_null10", .nb_rxq = 1, .nb_txq = 4,
		  .nb_txq_paired = 1, .nb_rxd = 256, .nb_txd = 256 },
	};
	uint16_t ids[3], txq[3];
	bool started[3];
	char err[512] = "";

	ck_assert_msg(ofan_ports_open(conf, 3, t_pool, ids, txq, started, err,
				      sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(ofan_port_quirks(ids[0]),
			  OFAN_PORT_QUIRK_PAIRED_QUEUES);
	ck_assert_uint_eq(ofan_port_quirks(ids[2]), 0);
	ck_assert_uint_eq(ofan_port_quirks(RTE_MAX_ETHPORTS), 0);
	ck_assert_uint_eq(ofan_port_quirks(ids[1]),
			  OFAN_PORT_QUIRK_PAIRED_QUEUES);
	ck_assert_uint_eq(txq[0], 1);	/* paired: nb_txq_paired */
	ck_assert_uint_eq(txq[2], 4);	/* no quirk: nb_txq_paired unused */
	/* No port here is closed by the exit: EAL may be cleaned up. */
	ck_assert(!ofan_ports_close(ids, started, 3));
	ck_assert(!started[0] && !started[1] && !started[2]);
}
END_TEST

/* net_null: a second open of the same dev finds the existing port. */
START_TEST(test_null_resolve_existing)
{
	uint16_t a, b;
	char err[512] = "";

	ck_assert_msg(ofan_port_resolve("net_null9", &a, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_int_eq(ofan_port_resolve("net_null9", &b, err, sizeof(err)), 0);
	ck_assert_uint_eq(a, b);
	ck_assert_int_ne(ofan_port_resolve(",x=1", &b, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "',x=1' has no device name before the first comma");
	/* Never started: ofan_port_close() is for started ports. */
	ck_assert_int_eq(rte_eth_dev_close(a), 0);
}
END_TEST

static Suite *
port_suite(void)
{
	Suite *s = suite_create("port");
	TCase *tc = tcase_create("port");

	tcase_add_test(tc, test_check);
	tcase_add_test(tc, test_open_checks_first);
	tcase_add_test(tc, test_open_same_device);
	tcase_add_test(tc, test_ringpair_b2b);
	tcase_add_test(tc, test_quirks);
	tcase_add_test(tc, test_null_resolve_existing);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_eal_run_suite("test_port", port_suite(), T_NB_MBUFS, &t_pool);
}
