/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast path in front of ofan_parse(), for the switch and the host.
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

static inline uint32_t
ofan_fast_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

/*
 * The common frame -- untagged IPv4 without options or fragmentation, UDP
 * to 4791 with a whole BTH (and, for an ACK, its AETH and feedback
 * extension) -- recognised in a few comparisons.  ttl_check: a switch's
 * rule, TTL above 1 (ofan_parse() without OFAN_PARSE_F_NO_TTL_CHECK); a
 * host passes false (ofan_parse() with it).  full: every field as
 * ofan_parse() fills it, the struct byte for byte (a host reads the BTH
 * and the payload); otherwise only what a switch reads (kind, proto, tos,
 * l3_offset, addresses, ports).  Both are constants at every call, so
 * each caller gets its own specialised copy.  Everything it accepts,
 * ofan_parse() accepts with those values; all else (and checksum
 * verification) goes to ofan_parse(), which has the named drop reasons.
 */
static inline bool
ofan_parse_fast(const uint8_t *f, uint32_t len, bool ttl_check, bool full,
		struct ofan_pkt_info *info)
{
	uint32_t tot, udp_len;
	uint8_t opcode;

	if (len < OFAN_DATA_HDRS_SIZE || f[12] != 0x08 || f[13] != 0x00 ||
	    f[14] != 0x45 || (f[20] & 0x3f) != 0 || f[21] != 0 ||
	    (ttl_check && f[22] <= 1) || f[23] != OFAN_IPPROTO_UDP ||
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
	if (full)
		memset(info, 0, sizeof(*info));
	info->kind = opcode == OFAN_BTH_OP_RC_ACK ? OFAN_KIND_ACK :
						    OFAN_KIND_DATA;
	info->proto = OFAN_IPPROTO_UDP;
	info->tos = f[15];
	info->l3_offset = OFAN_ETH_HDR_SIZE;
	info->src_ip = ofan_fast_rd32(f + 26);
	info->dst_ip = ofan_fast_rd32(f + 30);
	info->src_port = (uint16_t)(f[34] << 8 | f[35]);
	info->dst_port = OFAN_UDP_PORT_ROCEV2;
	if (full) {
		const uint32_t l4 = OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE;

		info->ttl = f[22];
		info->l4_offset = (uint16_t)l4;
		info->ip_total_length = (uint16_t)tot;
		info->bth_opcode = opcode;
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
