/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's fast path in front of ofan_parse(): the common RoCEv2
 * frame with TTL above 1, filling only what the switch reads (kind,
 * proto, tos, l3_offset, addresses, ports).  The same frame as
 * common/ofan_parse_fast.h accepts with ttl_check (the host's copy), with
 * the fixed fields checked as two masked 64-bit words and one 16-bit
 * port instead of a compare each, and the lengths in three compares:
 * the switch parses every frame it forwards.  Whatever it accepts,
 * ofan_parse() accepts with the same values (tests/test_parse.c and the
 * parser fuzzer check both fast paths against it).
 */
#ifndef OFAN_SW_PARSE_FAST_H
#define OFAN_SW_PARSE_FAST_H

#include "ofan_parse_fast.h"

/* Bytes 12-19 as a big-endian word: EtherType IPv4, version 4, IHL 5. */
#define SW_FAST_W0_MASK UINT64_C(0xffffff0000000000)
#define SW_FAST_W0_WANT UINT64_C(0x0800450000000000)
/* Bytes 20-27: no fragment (flags but DF, offset), protocol UDP. */
#define SW_FAST_W1_MASK UINT64_C(0x3fff00ff00000000)
#define SW_FAST_W1_WANT ((uint64_t)OFAN_IPPROTO_UDP << 32)
/* Of those, the TTL's bits above 1: a TTL of 0 or 1 expires here. */
#define SW_FAST_W1_TTL2 UINT64_C(0x0000fe0000000000)

static inline bool
sw_parse_fast(const uint8_t *f, uint32_t len, struct ofan_pkt_info *info)
{
	uint64_t w0, w1;
	uint32_t udp, tot, udp_len;
	uint8_t opcode;

	if (len < OFAN_DATA_HDRS_SIZE)
		return false;
	w0 = ofan_fast_rd64(f + 12);
	w1 = ofan_fast_rd64(f + 20);
	/* Bytes 36-39: UDP destination port and length. */
	udp = ofan_fast_rd32(f + 36);
	if ((((w0 & SW_FAST_W0_MASK) ^ SW_FAST_W0_WANT) |
	     ((w1 & SW_FAST_W1_MASK) ^ SW_FAST_W1_WANT) |
	     ((udp >> 16) ^ OFAN_UDP_PORT_ROCEV2)) != 0 ||
	    (w1 & SW_FAST_W1_TTL2) == 0)
		return false;
	tot = (uint32_t)(w0 >> 16) & 0xffffu;
	udp_len = udp & 0xffffu;
	opcode = f[42];
	/* A UDP length that holds the BTH and fits in the IPv4 length
	 * implies an IPv4 length that holds both. */
	if (tot + OFAN_ETH_HDR_SIZE > len ||
	    udp_len < OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE ||
	    udp_len + OFAN_IPV4_HDR_SIZE > tot)
		return false;
	if (opcode == OFAN_BTH_OP_RC_ACK &&
	    (udp_len < OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE + OFAN_AETH_SIZE +
		       OFAN_ACK_EXT_SIZE || len < OFAN_ACK_FRAME_SIZE))
		return false;
	info->kind = opcode == OFAN_BTH_OP_RC_ACK ? OFAN_KIND_ACK :
						    OFAN_KIND_DATA;
	info->proto = OFAN_IPPROTO_UDP;
	info->tos = (uint8_t)(w0 >> 32);
	info->l3_offset = OFAN_ETH_HDR_SIZE;
	info->src_ip = ofan_fast_rd32(f + 26);
	info->dst_ip = ofan_fast_rd32(f + 30);
	info->src_port = (uint16_t)(ofan_fast_rd32(f + 32));
	info->dst_port = OFAN_UDP_PORT_ROCEV2;
	return true;
}

#endif /* OFAN_SW_PARSE_FAST_H */
