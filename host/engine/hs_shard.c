/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow placement over a rank's shards by the RSS hash of the IPv4 source
 * address (hs_shard.h).
 */
#include <rte_byteorder.h>
#include <rte_thash.h>

#include "hs_shard.h"
#include "ofan_wire.h"

/*
 * Any fixed key works as long as ofan-host programs the same one into the
 * NIC; this is the key many NIC drivers default to (Microsoft's RSS
 * verification key), so a NIC that ignores the key still matches.
 */
const uint8_t hs_rss_key[HS_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

uint32_t
hs_shard_hash(uint32_t ip)
{
	/* The 4-byte input tuple of RSS on the IPv4 source only. */
	uint32_t tuple = ip;

	return rte_softrss(&tuple, 1, hs_rss_key);
}

uint16_t
hs_shard_of_frame(const uint8_t *frame, uint32_t len, uint16_t count,
		  uint16_t reta_size)
{
	uint32_t off = OFAN_ETH_HDR_SIZE, ip;
	uint16_t type;

	if (count <= 1 || len < OFAN_ETH_HDR_SIZE)
		return 0;
	type = (uint16_t)(frame[12] << 8 | frame[13]);
	if (type == OFAN_ETHER_TYPE_VLAN && len >= OFAN_ETH_HDR_SIZE + 4) {
		type = (uint16_t)(frame[16] << 8 | frame[17]);
		off += 4;
	}
	/* The source address sits at bytes 12..15 of the IPv4 header. */
	if (type != OFAN_ETHER_TYPE_IPV4 || len < off + 20)
		return 0;
	ip = (uint32_t)frame[off + 12] << 24 | (uint32_t)frame[off + 13] << 16 |
		(uint32_t)frame[off + 14] << 8 | frame[off + 15];
	return hs_shard_of_ip(ip, count, reta_size);
}
