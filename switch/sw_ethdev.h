/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ethdev port backend of ofan-switch (and later ofan-host): resolve a
 * configured `dev` to a DPDK port (probing vdevs), configure RX/TX queues,
 * start, stop and close.  Any PMD works: physical NICs and VFs, net_ring,
 * net_null, net_pcap, net_memif, net_af_xdp / net_af_packet on veths.
 */
#ifndef OFAN_SW_ETHDEV_H
#define OFAN_SW_ETHDEV_H

#include <stdint.h>

#include <rte_mempool.h>

/*
 * Check, without probing, that dev names an existing ethdev or a device
 * some bus recognises (for a vdev: a known driver name).  Probing a vdev
 * may already create files (net_pcap opens its tx_pcap), so callers check
 * every port first and probe only when all pass.  Returns 0, or -errno
 * with a reason in err.
 */
int sw_ethdev_check(const char *dev, char *err, unsigned int err_size);

/*
 * Find the ethdev named by dev ("0000:03:00.0", "net_ring0", or vdev
 * devargs "net_pcap0,rx_pcap=in.pcap"): an existing port by name, else
 * probe it as a device.  Returns 0 and *port_id, or -errno with a reason in
 * err (what was tried and what is expected).
 */
int sw_ethdev_resolve(const char *dev, uint16_t *port_id, char *err,
		      unsigned int err_size);

/*
 * Configure and start port_id with nb_rxq RX queues (RSS over IP/UDP when
 * more than one and supported) and *nb_txq TX queues, or as many as the
 * device has if fewer (*nb_txq is updated).  Enables promiscuous
 * mode (frames carry the switch's port MAC only after ARP).  Returns 0 or
 * -errno with a message in err.
 */
int sw_ethdev_start(uint16_t port_id, uint16_t nb_rxq, uint16_t *nb_txq,
		    uint16_t nb_rxd, uint16_t nb_txd, struct rte_mempool *mp,
		    char *err, unsigned int err_size);

/* Stop and close port_id, returning its RX ring mbufs to the pool. */
void sw_ethdev_close(uint16_t port_id);

#endif /* OFAN_SW_ETHDEV_H */
