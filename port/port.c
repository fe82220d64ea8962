/* SPDX-License-Identifier: BSD-3-Clause */
/* The EAL port layer (ofan_port.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_devargs.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_ring.h>

#include "ofan_port.h"

#define OFAN_RINGPAIR_PREFIX "ringpair:"
#define OFAN_RINGPAIR_SIZE 4096

/*
 * "ringpair:NAME:a" and "ringpair:NAME:b" are the two ends of an in-process
 * back-to-back link: two rte_rings crossed with rte_eth_from_rings(), the
 * only way to join two ports of one process (a plain net_ringN is a
 * loopback to itself).  Splits dev into NAME and the end ('a' or 'b').
 */
static int
ofan_ringpair_parse(const char *dev, char *name, size_t name_size, char *end)
{
	const char *p = dev + strlen(OFAN_RINGPAIR_PREFIX);
	const char *colon = strrchr(p, ':');
	size_t len;

	if (colon == NULL || colon == p || strlen(colon) != 2 ||
	    (colon[1] != 'a' && colon[1] != 'b'))
		return -EINVAL;
	len = (size_t)(colon - p);
	if (len >= name_size || len > 16)
		return -EINVAL;
	memcpy(name, p, len);
	name[len] = '\0';
	*end = colon[1];
	return 0;
}

static int
ofan_ringpair_create(const char *dev, uint16_t *port_id, char *err,
		   unsigned int err_size)
{
	char name[17], rname[2][RTE_RING_NAMESIZE], ename[64];
	struct rte_ring *r[2];
	char end;
	int i, rc;

	if (ofan_ringpair_parse(dev, name, sizeof(name), &end) != 0) {
		snprintf(err, err_size, "'%s' is not a ring pair end; expected ringpair:NAME:a or ringpair:NAME:b (NAME at most 16 characters)",
			 dev);
		return -EINVAL;
	}
	snprintf(rname[0], sizeof(rname[0]), "rp_%s_ab", name);
	snprintf(rname[1], sizeof(rname[1]), "rp_%s_ba", name);
	for (i = 0; i < 2; i++) {
		r[i] = rte_ring_lookup(rname[i]);
		if (r[i] == NULL)
			r[i] = rte_ring_create(rname[i], OFAN_RINGPAIR_SIZE,
					       rte_socket_id(),
					       RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r[i] == NULL) {
			snprintf(err, err_size, "'%s': cannot create ring %s: %s",
				 dev, rname[i], rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	snprintf(ename, sizeof(ename), "rp_%s_%c", name, end);
	/* End a sends on ab and receives on ba; end b the other way. */
	rc = rte_eth_from_rings(ename, &r[end == 'a' ? 1 : 0], 1,
				&r[end == 'a' ? 0 : 1], 1, rte_socket_id());
	if (rc < 0) {
		snprintf(err, err_size, "'%s': rte_eth_from_rings: %s", dev,
			 rte_strerror(rte_errno));
		return -ENODEV;
	}
	*port_id = (uint16_t)rc;
	return 0;
}

int
ofan_port_check(const char *dev, char *err, unsigned int err_size)
{
	struct rte_devargs da;
	uint16_t port_id;
	int rc;

	if (rte_eth_dev_get_port_by_name(dev, &port_id) == 0)
		return 0;
	if (strncmp(dev, OFAN_RINGPAIR_PREFIX, strlen(OFAN_RINGPAIR_PREFIX)) == 0) {
		char name[17], end;

		if (ofan_ringpair_parse(dev, name, sizeof(name), &end) == 0)
			return 0;
		snprintf(err, err_size, "'%s' is not a ring pair end; expected ringpair:NAME:a or ringpair:NAME:b (NAME at most 16 characters)",
			 dev);
		return -EINVAL;
	}
	/* Parsing finds the bus and, for a vdev, the driver; no probe. */
	rc = rte_devargs_parse(&da, dev);
	/* rte_devargs_reset() is experimental in 22.11; it frees only data. */
	free(da.data);
	if (rc != 0) {
		snprintf(err, err_size, "'%s' is not a device any bus knows; expected an ethdev name such as a PCI address bound to vfio-pci (see dpdk-devbind.py --status) or vdev devargs such as net_ring0, net_null0,no-rx=1, net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap",
			 dev);
		return rc;
	}
	return 0;
}

int
ofan_port_resolve(const char *dev, uint16_t *port_id, char *err,
		  unsigned int err_size)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	const char *comma = strchr(dev, ',');
	size_t len = comma ? (size_t)(comma - dev) : strlen(dev);
	int rc;

	if (len == 0 || len >= sizeof(name)) {
		snprintf(err, err_size, "'%s' has no device name before the first comma",
			 dev);
		return -EINVAL;
	}
	if (strncmp(dev, OFAN_RINGPAIR_PREFIX, strlen(OFAN_RINGPAIR_PREFIX)) == 0)
		return ofan_ringpair_create(dev, port_id, err, err_size);
	memcpy(name, dev, len);
	name[len] = '\0';
	if (rte_eth_dev_get_port_by_name(name, port_id) == 0)
		return 0;
	rc = rte_dev_probe(dev);
	if (rc != 0) {
		snprintf(err, err_size, "'%s' could not be probed (%s); expected an ethdev name such as a PCI address bound to vfio-pci (see dpdk-devbind.py --status) or vdev devargs such as net_ring0, net_null0,no-rx=1, net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap",
			 dev, strerror(-rc));
		return rc;
	}
	if (rte_eth_dev_get_port_by_name(name, port_id) != 0) {
		snprintf(err, err_size, "'%s' was probed but created no ethdev named '%s'",
			 dev, name);
		return -ENODEV;
	}
	return 0;
}

/* Entry i of the RSS redirection table -> queue i % nb_rxq. */
static int
ofan_port_reta_round_robin(uint16_t port_id, uint16_t reta_size,
			   uint16_t nb_rxq)
{
	struct rte_eth_rss_reta_entry64 reta[RTE_ETH_RSS_RETA_SIZE_512 /
					     RTE_ETH_RETA_GROUP_SIZE];
	uint16_t i;

	if (reta_size > RTE_ETH_RSS_RETA_SIZE_512)
		return -ENOTSUP;
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < reta_size; i++) {
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask |=
			1ull << (i % RTE_ETH_RETA_GROUP_SIZE);
		reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i %
			RTE_ETH_RETA_GROUP_SIZE] = i % nb_rxq;
	}
	return rte_eth_dev_rss_reta_update(port_id, reta, reta_size);
}

int
ofan_port_start(uint16_t port_id, uint16_t nb_rxq, uint16_t *nb_txq_io,
		uint16_t nb_rxd, uint16_t nb_txd, struct rte_mempool *mp,
		struct ofan_port_rss *rss, char *err, unsigned int err_size)
{
	uint16_t nb_txq = *nb_txq_io;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	int socket = rte_eth_dev_socket_id(port_id);
	uint16_t q;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_info_get(port_id, &info);
	if (rc != 0) {
		snprintf(err, err_size, "cannot read device info: %s",
			 strerror(-rc));
		return rc;
	}
	if (rss != NULL && nb_rxq > 1) {
		rss->used = (info.flow_type_rss_offloads & rss->hf) ==
			rss->hf && info.reta_size > 0 &&
			nb_rxq <= info.max_rx_queues &&
			(rss->key_len == 0 ||
			 info.hash_key_size == rss->key_len);
		if (!rss->used && !rss->optional) {
			snprintf(err, err_size, "cannot steer by RSS: the device has %u RX queues and hashes types 0x%" PRIx64 " with a %u-entry table and a %u-byte key; expected %u queues, types 0x%" PRIx64 " (the IPv4 source alone) and a %u-byte key, or steer = software",
				 info.max_rx_queues, info.flow_type_rss_offloads,
				 info.reta_size, info.hash_key_size, nb_rxq,
				 rss->hf, rss->key_len);
			return -ENOTSUP;
		}
		if (!rss->used) {
			nb_rxq = 1;
		} else {
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			conf.rx_adv_conf.rss_conf.rss_hf = rss->hf;
			conf.rx_adv_conf.rss_conf.rss_key =
				(uint8_t *)(uintptr_t)rss->key;
			conf.rx_adv_conf.rss_conf.rss_key_len = rss->key_len;
			rss->reta_size = info.reta_size;
		}
	}
	if (nb_rxq > info.max_rx_queues) {
		snprintf(err, err_size, "needs %u RX queues but the device has %u; lower rx_queues",
			 nb_rxq, info.max_rx_queues);
		return -EINVAL;
	}
	/* Fewer TX queues than lcores: the caller shares them under a lock. */
	if (nb_txq > info.max_tx_queues)
		nb_txq = info.max_tx_queues;
	*nb_txq_io = nb_txq;
	if (!(rss != NULL && rss->used) && nb_rxq > 1 &&
	    info.flow_type_rss_offloads != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) &
			info.flow_type_rss_offloads;
	}
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	rc = rte_eth_dev_configure(port_id, nb_rxq, nb_txq, &conf);
	if (rc != 0) {
		snprintf(err, err_size, "rte_eth_dev_configure: %s",
			 strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &nb_rxd, &nb_txd);
	if (rc != 0) {
		snprintf(err, err_size, "descriptor counts: %s", strerror(-rc));
		return rc;
	}
	for (q = 0; q < nb_rxq; q++) {
		rc = rte_eth_rx_queue_setup(port_id, q, nb_rxd, socket, NULL,
					    mp);
		if (rc != 0) {
			snprintf(err, err_size, "RX queue %u: %s", q,
				 strerror(-rc));
			return rc;
		}
	}
	for (q = 0; q < nb_txq; q++) {
		struct rte_eth_txconf txc = info.default_txconf;

		txc.offloads = conf.txmode.offloads;
		rc = rte_eth_tx_queue_setup(port_id, q, nb_txd, socket, &txc);
		if (rc != 0) {
			snprintf(err, err_size, "TX queue %u: %s", q,
				 strerror(-rc));
			return rc;
		}
	}
	rc = rte_eth_dev_start(port_id);
	if (rc != 0) {
		snprintf(err, err_size, "rte_eth_dev_start: %s", strerror(-rc));
		return rc;
	}
	if (rss != NULL && rss->used) {
		rc = ofan_port_reta_round_robin(port_id, info.reta_size,
						nb_rxq);
		if (rc != 0) {
			snprintf(err, err_size, "RSS redirection table of %u entries: %s",
				 info.reta_size, strerror(-rc));
			return rc;
		}
	}
	/* Not every PMD has a promiscuous mode (net_ring); that is fine. */
	rte_eth_promiscuous_enable(port_id);
	return 0;
}

void
ofan_port_dev_stats(uint16_t port_id, struct ofan_dev_stats *s)
{
	struct rte_eth_stats st;

	memset(s, 0, sizeof(*s));
	s->ethdev = port_id;
	if (rte_eth_stats_get(port_id, &st) != 0)
		return;
	s->valid = true;
	s->ipackets = st.ipackets;
	s->opackets = st.opackets;
	s->imissed = st.imissed;
	s->ierrors = st.ierrors;
	s->oerrors = st.oerrors;
	s->rx_nombuf = st.rx_nombuf;
}

void
ofan_port_close(uint16_t port_id)
{
	struct rte_eth_dev_info info;
	struct rte_mbuf *pkts[64];
	unsigned int i;
	uint16_t q, n;

	/*
	 * Free what is still waiting to be received: a PMD frees its own
	 * descriptors at close, but a ring pair's rings hold the peer's
	 * packets, which would otherwise never return to the pool.
	 */
	if (rte_eth_dev_info_get(port_id, &info) == 0)
		for (q = 0; q < info.nb_rx_queues; q++)
			/* Bounded: some PMDs (net_null) receive forever. */
			for (i = 0; i < OFAN_RINGPAIR_SIZE / RTE_DIM(pkts) + 1;
			     i++) {
				n = rte_eth_rx_burst(port_id, q, pkts,
						     RTE_DIM(pkts));
				if (n == 0)
					break;
				rte_pktmbuf_free_bulk(pkts, n);
			}
	rte_eth_dev_stop(port_id);
	rte_eth_dev_close(port_id);
}

/* Drivers and their quirks (ofan_port.h); the one place that names them. */
static const struct {
	const char *driver;
	uint32_t quirks;
} ofan_port_quirk_table[] = {
	{ "net_memif", OFAN_PORT_QUIRK_PAIRED_QUEUES |
		       OFAN_PORT_QUIRK_EXIT_CLOSES },
	{ "net_ring", OFAN_PORT_QUIRK_PAIRED_QUEUES },	/* ring pairs too */
};

/* The quirks of a driver by name (NULL: none). */
static uint32_t
ofan_driver_quirks(const char *driver)
{
	unsigned int i;

	for (i = 0; driver != NULL && i < RTE_DIM(ofan_port_quirk_table); i++)
		if (strcmp(driver, ofan_port_quirk_table[i].driver) == 0)
			return ofan_port_quirk_table[i].quirks;
	return 0;
}

uint32_t
ofan_port_quirks(uint16_t port_id)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(port_id, &info) != 0)
		return 0;
	return ofan_driver_quirks(info.driver_name);
}

int
ofan_ports_open(const struct ofan_port_conf *conf, uint16_t n,
		struct rte_mempool *mp, uint16_t *ids, uint16_t *nb_txq,
		bool *started, char *err, unsigned int err_size)
{
	char why[512];
	uint16_t p, q;
	int rc;

	for (p = 0; p < n; p++)
		started[p] = false;
	/*
	 * Check every dev before probing any: probing already has effects
	 * (net_pcap creates its tx_pcap file), so an unknown driver in a
	 * later port must fail before an earlier port is probed.
	 */
	for (p = 0; p < n; p++) {
		rc = ofan_port_check(conf[p].dev, why, sizeof(why));
		if (rc != 0) {
			snprintf(err, err_size, "port.%u:dev: %s", p, why);
			return rc;
		}
	}
	/* Resolve every port: a bad dev fails before any port starts. */
	for (p = 0; p < n; p++) {
		rc = ofan_port_resolve(conf[p].dev, &ids[p], why, sizeof(why));
		if (rc != 0) {
			snprintf(err, err_size, "port.%u:dev: %s", p, why);
			return rc;
		}
		for (q = 0; q < p; q++)
			if (ids[q] == ids[p]) {
				snprintf(err, err_size,
					 "port.%u:dev: '%s' is the same device as port.%u; expected each port on its own device",
					 p, conf[p].dev, q);
				return -EINVAL;
			}
	}
	for (p = 0; p < n; p++) {
		nb_txq[p] = conf[p].nb_txq_paired > 0 &&
			(ofan_port_quirks(ids[p]) &
			 OFAN_PORT_QUIRK_PAIRED_QUEUES) != 0 ?
			conf[p].nb_txq_paired : conf[p].nb_txq;
		rc = ofan_port_start(ids[p], conf[p].nb_rxq, &nb_txq[p],
				     conf[p].nb_rxd, conf[p].nb_txd, mp,
				     conf[p].rss, why, sizeof(why));
		if (rc != 0) {
			snprintf(err, err_size, "port.%u (%s): %s", p,
				 conf[p].dev, why);
			return rc;
		}
		started[p] = true;
	}
	return 0;
}

/*
 * A memif port is neither stopped nor closed (ofan_port.h says why); only
 * the file of its listening socket goes, which memif's close would have
 * removed, so that the next run can listen there again.  Defaults as in
 * DPDK 22.11's memif: role server, socket /run/memif.sock, abstract.
 */
static void
ofan_memif_forget(const struct rte_eth_dev_info *info)
{
	const struct rte_devargs *da = rte_dev_devargs(info->device);
	const char *role, *sock, *abstract;
	struct rte_kvargs *kv;

	if (da == NULL || da->args == NULL)
		return;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return;
	role = rte_kvargs_get(kv, "role");
	sock = rte_kvargs_get(kv, "socket");
	abstract = rte_kvargs_get(kv, "socket-abstract");
	if ((role == NULL || strcmp(role, "server") == 0) &&
	    abstract != NULL && strcmp(abstract, "no") == 0)
		unlink(sock != NULL ? sock : "/run/memif.sock");
	rte_kvargs_free(kv);
}

bool
ofan_ports_close(const uint16_t *ids, bool *started, uint16_t n)
{
	struct rte_eth_dev_info info;
	bool kept = false, keep;
	uint16_t p;

	for (p = 0; p < n; p++)
		if (started[p]) {
			keep = rte_eth_dev_info_get(ids[p], &info) == 0 &&
				(ofan_driver_quirks(info.driver_name) &
				 OFAN_PORT_QUIRK_EXIT_CLOSES) != 0;
			if (keep)
				ofan_memif_forget(&info);
			else
				ofan_port_close(ids[p]);
			kept = kept || keep;
			started[p] = false;
		}
	return kept;
}

void
ofan_ports_hold(const char *prog, const volatile sig_atomic_t *signals,
		int need)
{
	const unsigned int max_s = 60;
	uint64_t end = rte_get_timer_cycles() + max_s * rte_get_timer_hz();

	fprintf(stderr, "%s: stopped polling; holding the ports until SIGINT or SIGTERM (--hold-exit)\n",
		prog);
	while (*signals < need) {
		if (rte_get_timer_cycles() >= end) {
			fprintf(stderr, "%s: no signal in %u s of holding the ports; going on\n",
				prog, max_s);
			return;
		}
		rte_delay_us_sleep(10000);
	}
}
