/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One rank on several lcores: which shard (lcore) owns which side of which
 * flow, by the hash a NIC's RSS computes on the IPv4 source address only.
 *
 * Every data packet of a flow comes from its source, every ACK from its
 * destination, whatever the EV (the UDP source port), so hashing the IPv4
 * source address alone puts a flow's data in one queue and its ACKs in
 * one queue.  The rank's shards therefore split its flows as the NIC
 * splits its packets: the receive side of a flow goes to the shard of
 * its source's address, the send side to the shard of its destination's
 * (where its ACKs come from).  The hash is DPDK's Toeplitz
 * (rte_softrss) over the 4-byte source address with hs_rss_key, the key
 * ofan-host programs into an RSS-capable NIC with RTE_ETH_RSS_IPV4 |
 * RTE_ETH_RSS_L3_SRC_ONLY; the hash picks an entry of a redirection table
 * of reta_size entries filled round robin (entry i -> shard i % count),
 * as ofan-host programs it.  Without RSS, ofan-host's dispatcher applies
 * hs_shard_of_frame() to each received frame in software: the same
 * placement.
 */
#ifndef OFAN_HS_SHARD_H
#define OFAN_HS_SHARD_H

#include <stdint.h>

#define HS_MAX_SHARDS 16	/* lcores one rank spreads over */
#define HS_RSS_KEY_LEN 40
#define HS_SOFT_RETA_SIZE 128	/* redirection table of the software dispatch */

/* The Toeplitz key ofan-host programs and hashes with. */
extern const uint8_t hs_rss_key[HS_RSS_KEY_LEN];

/* The RSS hash of a frame from IPv4 address ip (host order). */
uint32_t hs_shard_hash(uint32_t ip);

/* The shard of packets from ip: table entry hash % reta_size, i % count. */
static inline uint16_t
hs_shard_of_ip(uint32_t ip, uint16_t count, uint16_t reta_size)
{
	if (count <= 1)
		return 0;
	return (uint16_t)((hs_shard_hash(ip) % reta_size) % count);
}

/*
 * The shard of a received frame: by its IPv4 source address (behind at
 * most one VLAN tag); anything else (ARP, IPv6, runts) goes to shard 0,
 * which answers ARP and counts what it cannot parse.
 */
uint16_t hs_shard_of_frame(const uint8_t *frame, uint32_t len,
			   uint16_t count, uint16_t reta_size);

#endif /* OFAN_HS_SHARD_H */
