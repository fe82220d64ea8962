/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EAL port layer of ofan-switch and ofan-host: resolve a configured
 * `dev` to a DPDK port (probing vdevs), refuse two ports on one device,
 * configure RX/TX queues, start, stop and close.  Any PMD works: physical
 * NICs and VFs, net_ring, net_null, net_pcap, net_memif, net_af_xdp /
 * net_af_packet on veths, and "ringpair:NAME:a|b", two crossed rings
 * joining two ports of one process back to back.  ofan_ports_open() is
 * the one call both binaries make; the steps are public for tests.
 */
#ifndef OFAN_PORT_H
#define OFAN_PORT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "ofan_devstats.h"

/*
 * Check, without probing, that dev names an existing ethdev or a device
 * some bus recognises (for a vdev: a known driver name).  Probing a vdev
 * may already create files (net_pcap opens its tx_pcap), so callers check
 * every port first and probe only when all pass.  Returns 0, or -errno
 * with a reason in err.
 */
int ofan_port_check(const char *dev, char *err, unsigned int err_size);

/*
 * Find the ethdev named by dev ("0000:03:00.0", "net_ring0", or vdev
 * devargs "net_pcap0,rx_pcap=in.pcap"): an existing port by name, else
 * probe it as a device.  Returns 0 and *port_id, or -errno with a reason in
 * err (what was tried and what is expected).
 */
int ofan_port_resolve(const char *dev, uint16_t *port_id, char *err,
		      unsigned int err_size);

/*
 * RSS as a host rank's shards need it (host/engine/hs_shard.h): the hash types
 * hf with this key, and a redirection table filled round robin (entry i
 * -> queue i % nb_rxq).  A device that cannot hash on all of hf, or has
 * no table, is refused -- or, when optional, gets one RX queue instead.
 * used and reta_size say what was done.
 */
struct ofan_port_rss {
	const uint8_t *key;
	uint8_t key_len;
	uint64_t hf;
	bool optional;
	bool used;		/* out: RSS with hf, nb_rxq queues */
	uint16_t reta_size;	/* out: the device's table size */
};

/*
 * Configure and start port_id with nb_rxq RX queues (RSS over IP/UDP when
 * more than one and supported, or as rss says when not NULL) and *nb_txq
 * TX queues, or as many as the device has if fewer (*nb_txq is updated).
 * Enables promiscuous mode (frames carry the switch's port MAC only after
 * ARP).  Returns 0 or -errno with a message in err.
 */
int ofan_port_start(uint16_t port_id, uint16_t nb_rxq, uint16_t *nb_txq,
		    uint16_t nb_rxd, uint16_t nb_txd, struct rte_mempool *mp,
		    struct ofan_port_rss *rss, char *err,
		    unsigned int err_size);

/* The device counters of port_id (s->valid false if it has none). */
void ofan_port_dev_stats(uint16_t port_id, struct ofan_dev_stats *s);

/* Stop and close port_id, returning its RX ring mbufs to the pool. */
void ofan_port_close(uint16_t port_id);

/*
 * Port quirks: what a driver does that the binaries must work around,
 * asked of a resolved port (ofan_port_quirks()) rather than guessed from
 * the configured dev string.  Adding one: a flag here, its drivers in
 * port.c's quirk table, and the code that honours it (docs/architecture.md
 * "A port quirk").
 */
/* TX queue i is the peer's RX queue i (memif, ring pairs): a second TX
 * queue would reach a peer queue nobody polls. */
#define OFAN_PORT_QUIRK_PAIRED_QUEUES (1u << 0)
/* Neither stopped nor closed; the process's exit ends it, and EAL must
 * not be cleaned up (ofan_ports_close() says why: DPDK 22.11's memif). */
#define OFAN_PORT_QUIRK_EXIT_CLOSES (1u << 1)

/* The quirks of port_id's driver (0: none, or no such port). */
uint32_t ofan_port_quirks(uint16_t port_id);

/* One port to open: its dev and its queues and descriptors. */
struct ofan_port_conf {
	const char *dev;
	uint16_t nb_rxq;
	uint16_t nb_txq;	/* wanted; fewer if the device has fewer */
	/* Wanted instead when the driver pairs queues
	 * (OFAN_PORT_QUIRK_PAIRED_QUEUES); 0: nb_txq. */
	uint16_t nb_txq_paired;
	uint16_t nb_rxd;
	uint16_t nb_txd;
	struct ofan_port_rss *rss;	/* NULL: as ofan_port_start says */
};

/*
 * Open n ports: check every dev (nothing probed yet), resolve every dev
 * (two ports on one device are refused), then start each.  ids[],
 * nb_txq[] (the TX queues each got) and started[] are filled.  Returns 0,
 * or -errno with "port.N:dev: why" or "port.N (DEV): why" in err, for the
 * caller to prefix with its config file; ports already started stay so
 * (started[] says which) for ofan_ports_close().
 */
int ofan_ports_open(const struct ofan_port_conf *conf, uint16_t n,
		    struct rte_mempool *mp, uint16_t *ids, uint16_t *nb_txq,
		    bool *started, char *err, unsigned int err_size);

/*
 * Close every started port of ids[0 .. n) and clear started[].  A port
 * with OFAN_PORT_QUIRK_EXIT_CLOSES (net_memif) is left open (only its
 * listening socket's file is removed): DPDK 22.11's memif tears a link down from EAL's interrupt
 * thread when the peer goes away, concurrently with anything this
 * process does to the port -- a close from here then frees the link's
 * memory twice -- so the process's exit ends the link instead.  Returns
 * true if there was a net_memif port, after which the caller must not
 * call rte_eal_cleanup() either: the interrupt thread still runs memif's
 * callbacks when a peer disconnects later, and once EAL's cleanup has
 * unmapped their memory that is a crash (seen at the end of about one
 * memif testbed run in three).  The process's memory goes with it, and
 * the caller removes the runtime directory as always.
 */
bool ofan_ports_close(const uint16_t *ids, bool *started, uint16_t n);

/*
 * --hold-exit: every lcore has stopped polling; keep the ports as they
 * are until *signals (the signals received so far) reaches need, for at
 * most 60 s, with a line on stderr that says so.  The same interrupt-
 * thread teardown of memif (above) unmaps a link's memory when its peer
 * exits, under an lcore that may be in the middle of a burst on it: a
 * crash (seen once in about thirty memif testbed runs).  So a testbed
 * stops every process's polling first -- hosts finish, switches get a
 * SIGINT, each holds -- and only then lets them go with another signal
 * (testbed/testbed.sh).
 */
void ofan_ports_hold(const char *prog, const volatile sig_atomic_t *signals,
		     int need);

#endif /* OFAN_PORT_H */
