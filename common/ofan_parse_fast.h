/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast path in front of ofan_parse(), for the host (the switch has
 * its own, switch/engine/sw_parse_fast.h, for the same frame and fewer fields).
 * Header only and free of EAL so that the unit tests and the parser
 * fuzzer check the one property that matters: whatever it accepts,
 * ofan_parse() accepts with the same values.
 */
#ifndef OFAN_PARSE_FAST_H
#define OFAN_PARSE_FAST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ofan_parse.h"
#include "ofan_wire.h"

/* Big-endian words at any alignment (one load and a byte swap each). */
static inline uint32_t
ofan_fast_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline uint64_t
ofan_fast_rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/*
 * The common frame -- untagged IPv4 without options or fragmentation, UDP
 * to 4791 with a whole BTH (and, for an ACK, its AETH and feedback
 * extension) -- recognised in a few comparisons of whole words.
 * ttl_check: a switch's rule, TTL above 1 (ofan_parse() without
 * OFAN_PARSE_F_NO_TTL_CHECK); the host passes false (ofan_parse() with
 * it).
 * full: every field as ofan_parse() fills it, the struct byte for byte (a
 * host reads the BTH and the payload); otherwise only what a switch reads
 * (kind, proto, tos, l3_offset, addresses, ports).  Both are constants at
 * every call, so each caller gets its own specialised copy.  Everything
 * it accepts, ofan_parse() accepts with those values; all else (and
 * checksum verification) goes to ofan_parse(), which has the named drop
 * reasons.
 */
static inline bool
ofan_parse_fast(const uint8_t *f, uint32_t len, bool ttl_check, bool full,
		struct ofan_pkt_info *info)
{
	uint64_t eth_ip, ip2;
	uint32_t tot, udp_len, udp;
	uint8_t opcode;

	if (len < OFAN_DATA_HDRS_SIZE)
		return false;
	/* Bytes 12-19: EtherType, version and IHL, TOS, total length, ID. */
	eth_ip = ofan_fast_rd64(f + 12);
	/* Bytes 20-27: flags and fragment offset, TTL, protocol, ... */
	ip2 = ofan_fast_rd64(f + 20);
	/* Bytes 36-39: UDP destination port and length. */
	udp = ofan_fast_rd32(f + 36);
	if ((eth_ip >> 40) != 0x080045u || ((ip2 >> 48) & 0x3fffu) != 0 ||
	    (ttl_check && ((ip2 >> 40) & 0xffu) <= 1) ||
	    ((ip2 >> 32) & 0xffu) != OFAN_IPPROTO_UDP ||
	    (udp >> 16) != OFAN_UDP_PORT_ROCEV2)
		return false;
	tot = (uint32_t)(eth_ip >> 16) & 0xffffu;
	udp_len = udp & 0xffffu;
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
	if (full)
		memset(info, 0, sizeof(*info));
	info->kind = opcode == OFAN_BTH_OP_RC_ACK ? OFAN_KIND_ACK :
						    OFAN_KIND_DATA;
	info->proto = OFAN_IPPROTO_UDP;
	info->tos = (uint8_t)(eth_ip >> 32);
	info->l3_offset = OFAN_ETH_HDR_SIZE;
	info->src_ip = ofan_fast_rd32(f + 26);
	info->dst_ip = ofan_fast_rd32(f + 30);
	info->src_port = (uint16_t)(ofan_fast_rd32(f + 32));
	info->dst_port = OFAN_UDP_PORT_ROCEV2;
	if (full) {
		const uint32_t l4 = OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE;

		info->ttl = (uint8_t)(ip2 >> 40);
		info->l4_offset = (uint16_t)l4;
		info->ip_total_length = (uint16_t)tot;
		info->bth_opcode = opcode;
		info->bth_mark = f[l4 + OFAN_UDP_HDR_SIZE +
				   OFAN_BTH_MARK_OFFSET];
		info->dest_qp = ofan_fast_rd32(f + l4 + OFAN_UDP_HDR_SIZE + 4) &
			OFAN_BTH_QP_MASK;
		info->psn = ofan_fast_rd32(f + l4 + OFAN_UDP_HDR_SIZE + 8) &
			OFAN_BTH_PSN_MASK;
		info->payload_offset = (uint16_t)(l4 + OFAN_UDP_HDR_SIZE +
						  OFAN_BTH_SIZE);
		/* As ofan_parse(): what the IPv4 length leaves after the BTH. */
		info->payload_size = (uint16_t)(tot - OFAN_IPV4_HDR_SIZE -
						OFAN_UDP_HDR_SIZE -
						OFAN_BTH_SIZE);
	}
	return true;
}

#endif /* OFAN_PARSE_FAST_H */
