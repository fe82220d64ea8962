/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's fast path in front of ofan_parse().  Header only and free
 * of EAL so that the unit tests and the parser fuzzer check the one
 * property that matters: whatever it accepts, ofan_parse() accepts with
 * the same values.
 */
#ifndef OFAN_SW_PARSE_FAST_H
#define OFAN_SW_PARSE_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "ofan_parse.h"
#include "ofan_wire.h"

/*
 * The common frame -- untagged IPv4 without options or fragmentation, TTL
 * above 1, UDP to 4791 with a whole BTH (and, for an ACK, its AETH and
 * feedback extension) -- recognised in a few comparisons.  It fills only
 * what the switch reads (kind, l3_offset, tos, addresses, ports, proto).
 * Everything it accepts, ofan_parse() accepts with the same values; all
 * else (and checksum verification) goes to ofan_parse(), which has the
 * named drop reasons.
 */
static inline bool
sw_parse_fast(const uint8_t *f, uint32_t len, struct ofan_pkt_info *info)
{
	uint32_t tot, udp_len;
	uint8_t opcode;

	if (len < OFAN_DATA_HDRS_SIZE || f[12] != 0x08 || f[13] != 0x00 ||
	    f[14] != 0x45 || (f[20] & 0x3f) != 0 || f[21] != 0 ||
	    f[22] <= 1 || f[23] != OFAN_IPPROTO_UDP ||
	    f[36] != (OFAN_UDP_PORT_ROCEV2 >> 8) ||
	    f[37] != (OFAN_UDP_PORT_ROCEV2 & 0xff))
		return false;
	tot = (uint32_t)f[16] << 8 | f[17];
	udp_len = (uint32_t)f[38] << 8 | f[39];
	opcode = f[42];
	if (tot + OFAN_ETH_HDR_SIZE > len ||
	    tot < OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE ||
	    udp_len < OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE ||
	    udp_len > tot - OFAN_IPV4_HDR_SIZE)
		return false;
	if (opcode == OFAN_BTH_OP_RC_ACK &&
	    (udp_len < OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE + OFAN_AETH_SIZE +
		       OFAN_ACK_EXT_SIZE || len < OFAN_ACK_FRAME_SIZE))
		return false;
	info->kind = opcode == OFAN_BTH_OP_RC_ACK ? OFAN_KIND_ACK :
						    OFAN_KIND_DATA;
	info->proto = OFAN_IPPROTO_UDP;
	info->tos = f[15];
	info->l3_offset = OFAN_ETH_HDR_SIZE;
	info->src_ip = (uint32_t)f[26] << 24 | (uint32_t)f[27] << 16 |
		(uint32_t)f[28] << 8 | f[29];
	info->dst_ip = (uint32_t)f[30] << 24 | (uint32_t)f[31] << 16 |
		(uint32_t)f[32] << 8 | f[33];
	info->src_port = (uint16_t)(f[34] << 8 | f[35]);
	info->dst_port = OFAN_UDP_PORT_ROCEV2;
	return true;
}

#endif /* OFAN_SW_PARSE_FAST_H */
