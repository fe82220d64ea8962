/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's own counters (rte_eth_stats), declared once:
 * X(field, what).  The field's name is its key in ofan-switch's and
 * ofan-host's JSON ("device" of each port) and, prefixed "dev_", in
 * /ofan/ports.  They say what the NIC (or virtual device) lost before any
 * software saw the frame: imissed (no room in the RX ring), ierrors (bad
 * frames), rx_nombuf (no mbuf to refill the ring), oerrors (transmit
 * failures).  Everything else a driver counts is in DPDK's own telemetry
 * (/ethdev/xstats,ID, ID = the port's "ethdev").  No EAL here: port/ fills
 * it (ofan_port_dev_stats()).
 */
#ifndef OFAN_DEVSTATS_H
#define OFAN_DEVSTATS_H

#include <stdbool.h>
#include <stdint.h>

#define OFAN_DEV_COUNTERS(X) \
	X(ipackets, "frames received by the device") \
	X(opackets, "frames sent by the device") \
	X(imissed, "frames the device dropped: its RX ring was full") \
	X(ierrors, "erroneous frames received") \
	X(oerrors, "frames the device failed to send") \
	X(rx_nombuf, "RX ring refills that found no mbuf")

struct ofan_dev_stats {
	bool valid;		/* the device answered */
	uint16_t ethdev;	/* its DPDK port id */
#define OFAN_DEV_FIELD(field, what) uint64_t field;
	OFAN_DEV_COUNTERS(OFAN_DEV_FIELD)
#undef OFAN_DEV_FIELD
};

/* What the device lost on receive: imissed + ierrors + rx_nombuf. */
static inline uint64_t
ofan_dev_rx_lost(const struct ofan_dev_stats *s)
{
	return s->imissed + s->ierrors + s->rx_nombuf;
}

#endif /* OFAN_DEVSTATS_H */
