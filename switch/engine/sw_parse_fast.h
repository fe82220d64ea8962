/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's fast path in front of ofan_parse(): the common RoCEv2
 * frame with TTL above 1, filling only what the switch reads (kind,
 * proto, tos, l3_offset, addresses, ports).  The same frame as
 * common/ofan_parse_fast.h accepts with ttl_check (the host's copy), with
 * the fixed fields checked as two masked 32-bit words and one 16-bit
 * port in memory order (no byte swaps) instead of a compare each, and
 * the lengths in three compares, since the switch parses every frame it
 * forwards.  Whatever it accepts,
 * ofan_parse() accepts with the same values (tests/test_parse.c and the
 * parser fuzzer check both fast paths against it).
 */
#ifndef OFAN_SW_PARSE_FAST_H
#define OFAN_SW_PARSE_FAST_H

#include "ofan_parse_fast.h"

/* The 32- and 16-bit values whose bytes in memory are b0 b1 (b2 b3). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SW_MEM32(b0, b1, b2, b3) ((uint32_t)(b0) | (uint32_t)(b1) << 8 | \
				  (uint32_t)(b2) << 16 | (uint32_t)(b3) << 24)
#define SW_MEM16(b0, b1) ((uint16_t)((b0) | (b1) << 8))
#else
#define SW_MEM32(b0, b1, b2, b3) ((uint32_t)(b3) | (uint32_t)(b2) << 8 | \
				  (uint32_t)(b1) << 16 | (uint32_t)(b0) << 24)
#define SW_MEM16(b0, b1) ((uint16_t)((b1) | (b0) << 8))
#endif

/* Bytes 12-15: EtherType IPv4, version 4 and IHL 5 (not the TOS). */
#define SW_FAST_A_MASK SW_MEM32(0xff, 0xff, 0xff, 0)
#define SW_FAST_A_WANT SW_MEM32(0x08, 0x00, 0x45, 0)
/* Bytes 20-23: no fragment (flags but DF, offset), protocol UDP. */
#define SW_FAST_B_MASK SW_MEM32(0x3f, 0xff, 0, 0xff)
#define SW_FAST_B_WANT SW_MEM32(0, 0, 0, OFAN_IPPROTO_UDP)
/* Of those, the TTL's bits above 1: a TTL of 0 or 1 expires here. */
#define SW_FAST_B_TTL2 SW_MEM32(0, 0, 0xfe, 0)
/* Bytes 36-37: the UDP destination port. */
#define SW_FAST_PORT SW_MEM16(OFAN_UDP_PORT_ROCEV2 >> 8, \
			      OFAN_UDP_PORT_ROCEV2 & 0xff)

static inline uint32_t
sw_mem32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t
sw_mem16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A big-endian 16-bit field. */
static inline uint32_t
sw_rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline bool
sw_parse_fast(const uint8_t *f, uint32_t len, struct ofan_pkt_info *info)
{
	uint32_t a, b, tot, udp_len;
	uint8_t opcode;

	if (len < OFAN_DATA_HDRS_SIZE)
		return false;
	a = sw_mem32(f + 12);
	b = sw_mem32(f + 20);
	if ((((a & SW_FAST_A_MASK) ^ SW_FAST_A_WANT) |
	     ((b & SW_FAST_B_MASK) ^ SW_FAST_B_WANT) |
	     (uint32_t)(sw_mem16(f + 36) ^ SW_FAST_PORT)) != 0 ||
	    (b & SW_FAST_B_TTL2) == 0)
		return false;
	tot = sw_rd16(f + 16);
	udp_len = sw_rd16(f + 38);
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
	info->tos = f[15];
	info->l3_offset = OFAN_ETH_HDR_SIZE;
	info->src_ip = ofan_fast_rd32(f + 26);
	info->dst_ip = ofan_fast_rd32(f + 30);
	info->src_port = (uint16_t)sw_rd16(f + 34);
	info->dst_port = OFAN_UDP_PORT_ROCEV2;
	return true;
}

#endif /* OFAN_SW_PARSE_FAST_H */
