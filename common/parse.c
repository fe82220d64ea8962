/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bounds-checked frame parser (see ofan_parse.h).
 *
 * It runs once per packet at the head of every pipeline, so it is a
 * straight line of bounds checks: each header is checked to lie inside the
 * frame (and inside the IPv4 total length, which may be shorter than the
 * frame because of Ethernet padding) before a single byte of it is read.
 * Multi-byte fields are assembled byte by byte, so the frame needs no
 * alignment.  The only loop is the optional checksum over the IPv4 header
 * (at most 60 bytes).
 */
#include <stddef.h>
#include <string.h>

#include "ofan_parse.h"
#include "ofan_wire.h"

#define OFAN_VLAN_TAG_SIZE	4
#define OFAN_ARP_BODY_SIZE	28
#define OFAN_ARP_HTYPE_ETHER	1
#define OFAN_IPV4_FRAG_OFFSET_MASK	0x1fff
#define OFAN_IPV4_MF		0x2000
/* Bytes of an L4 header that hold the source and destination ports. */
#define OFAN_L4_PORTS_SIZE	4

static const char *const ofan_drop_names[OFAN_DROP_MAX] = {
#define OFAN_DROP_NAME(e, n, h) [OFAN_DROP_##e] = n,
	OFAN_DROP_REASONS(OFAN_DROP_NAME)
#undef OFAN_DROP_NAME
};

static const char *const ofan_drop_helps[OFAN_DROP_MAX] = {
#define OFAN_DROP_HELP(e, n, h) [OFAN_DROP_##e] = h,
	OFAN_DROP_REASONS(OFAN_DROP_HELP)
#undef OFAN_DROP_HELP
};

const char *
ofan_drop_name(enum ofan_drop reason)
{
	if ((unsigned int)reason >= OFAN_DROP_MAX)
		return "unknown";
	return ofan_drop_names[reason];
}

const char *
ofan_drop_help(enum ofan_drop reason)
{
	if ((unsigned int)reason >= OFAN_DROP_MAX)
		return "not a drop reason";
	return ofan_drop_helps[reason];
}

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

/* ARP body at frame + l3; len has been checked to cover the Ethernet part. */
static int
parse_arp(const uint8_t *frame, uint32_t len, uint32_t l3,
	       struct ofan_pkt_info *info)
{
	const uint8_t *arp = frame + l3;
	uint16_t oper;

	if (len - l3 < OFAN_ARP_BODY_SIZE)
		return OFAN_DROP_ARP_MALFORMED;
	oper = rd16(arp + offsetof(struct ofan_arp, oper));
	if (rd16(arp + offsetof(struct ofan_arp, htype)) !=
	    OFAN_ARP_HTYPE_ETHER ||
	    rd16(arp + offsetof(struct ofan_arp, ptype)) !=
	    OFAN_ETHER_TYPE_IPV4 ||
	    arp[offsetof(struct ofan_arp, hlen)] != 6 ||
	    arp[offsetof(struct ofan_arp, plen)] != 4 ||
	    (oper != OFAN_ARP_OP_REQUEST && oper != OFAN_ARP_OP_REPLY))
		return OFAN_DROP_ARP_MALFORMED;

	info->kind = OFAN_KIND_ARP;
	info->l3_offset = (uint16_t)l3;
	info->arp_oper = oper;
	info->arp_spa = rd32(arp + offsetof(struct ofan_arp, spa));
	info->arp_tpa = rd32(arp + offsetof(struct ofan_arp, tpa));
	memcpy(info->arp_sha, arp + offsetof(struct ofan_arp, sha),
	       sizeof(info->arp_sha));
	return OFAN_PARSE_OK;
}

/*
 * UDP at frame + l4 with ip_payload bytes of IPv4 payload, all inside the
 * frame.  RoCEv2 (destination port 4791) is decoded down to the BTH, and
 * for ACKs the presence of the AETH and feedback extension is checked.
 */
static int
parse_udp(const uint8_t *frame, uint32_t l4, uint32_t ip_payload,
	       struct ofan_pkt_info *info)
{
	const uint8_t *udp = frame + l4;
	const uint8_t *bth;
	uint32_t udp_len;
	uint32_t rest;

	if (ip_payload < OFAN_UDP_HDR_SIZE)
		return OFAN_DROP_UDP_TRUNCATED;
	udp_len = rd16(udp + offsetof(struct ofan_udp_hdr, length));
	if (udp_len < OFAN_UDP_HDR_SIZE || udp_len > ip_payload)
		return OFAN_DROP_UDP_TRUNCATED;
	info->src_port = rd16(udp);
	info->dst_port = rd16(udp + 2);
	if (info->dst_port != OFAN_UDP_PORT_ROCEV2) {
		info->kind = OFAN_KIND_OTHER;
		return OFAN_PARSE_OK;
	}

	rest = ip_payload - OFAN_UDP_HDR_SIZE;
	if (rest < OFAN_BTH_SIZE)
		return OFAN_DROP_BTH_TRUNCATED;
	bth = udp + OFAN_UDP_HDR_SIZE;
	info->bth_opcode = bth[0];
	info->bth_mark = bth[OFAN_BTH_MARK_OFFSET];
	info->dest_qp = rd32(bth + offsetof(struct ofan_bth, dest_qp)) &
		OFAN_BTH_QP_MASK;
	info->psn = rd32(bth + offsetof(struct ofan_bth, psn)) &
		OFAN_BTH_PSN_MASK;
	rest -= OFAN_BTH_SIZE;
	if (info->bth_opcode == OFAN_BTH_OP_RC_ACK) {
		if (rest < OFAN_AETH_SIZE + OFAN_ACK_EXT_SIZE)
			return OFAN_DROP_ACK_TRUNCATED;
		info->kind = OFAN_KIND_ACK;
	} else {
		info->kind = OFAN_KIND_DATA;
	}
	info->payload_offset = (uint16_t)(l4 + OFAN_UDP_HDR_SIZE +
					  OFAN_BTH_SIZE);
	info->payload_size = (uint16_t)rest;
	return OFAN_PARSE_OK;
}

/*
 * MAC control at frame + l3: a pause (802.3x) or PFC (802.1Qbb) frame
 * whose body is complete; any other opcode is not ours to act on.
 */
static int
parse_mac_ctrl(const uint8_t *frame, uint32_t len, uint32_t l3,
	       struct ofan_pkt_info *info)
{
	uint16_t op;

	if (len - l3 < 2)
		return OFAN_DROP_MAC_CTRL_MALFORMED;
	op = rd16(frame + l3);
	if (!(op == OFAN_MAC_CTRL_OP_PFC && len - l3 >= OFAN_PFC_BODY_SIZE) &&
	    !(op == OFAN_MAC_CTRL_OP_PAUSE &&
	      len - l3 >= OFAN_PAUSE_BODY_SIZE))
		return OFAN_DROP_MAC_CTRL_MALFORMED;
	info->kind = OFAN_KIND_PAUSE;
	info->l3_offset = (uint16_t)l3;
	return OFAN_PARSE_OK;
}

/* IPv4 at frame + l3; len has been checked to cover the Ethernet part. */
static int
parse_ipv4(const uint8_t *frame, uint32_t len, uint32_t l3,
		unsigned int flags, struct ofan_pkt_info *info)
{
	const uint8_t *ip = frame + l3;
	uint32_t ihl_size;
	uint32_t total_length;
	uint32_t ip_payload;
	uint32_t l4;
	uint16_t frag;

	if (len - l3 < OFAN_IPV4_HDR_SIZE)
		return OFAN_DROP_IP_TRUNCATED;
	if (ip[0] >> 4 != 4)
		return OFAN_DROP_BAD_VERSION;
	ihl_size = (uint32_t)(ip[0] & 0xf) * 4;
	if (ihl_size < OFAN_IPV4_HDR_SIZE || ihl_size > len - l3)
		return OFAN_DROP_BAD_IHL;
	total_length = rd16(ip + offsetof(struct ofan_ipv4_hdr,
					       total_length));
	if (total_length < ihl_size || total_length > len - l3)
		return OFAN_DROP_BAD_TOTAL_LENGTH;
	if ((flags & OFAN_PARSE_F_VERIFY_CSUM) &&
	    ofan_ipv4_checksum((const struct ofan_ipv4_hdr *)ip,
			       ihl_size) != 0)
		return OFAN_DROP_BAD_CHECKSUM;
	info->ttl = ip[offsetof(struct ofan_ipv4_hdr, ttl)];
	if (info->ttl <= 1 && !(flags & OFAN_PARSE_F_NO_TTL_CHECK))
		return OFAN_DROP_TTL_EXPIRED;

	info->proto = ip[offsetof(struct ofan_ipv4_hdr, proto)];
	info->tos = ip[offsetof(struct ofan_ipv4_hdr, tos)];
	info->l3_offset = (uint16_t)l3;
	info->ip_total_length = (uint16_t)total_length;
	info->src_ip = rd32(ip + offsetof(struct ofan_ipv4_hdr,
					       src_addr));
	info->dst_ip = rd32(ip + offsetof(struct ofan_ipv4_hdr,
					       dst_addr));
	l4 = l3 + ihl_size;
	info->l4_offset = (uint16_t)l4;
	info->kind = OFAN_KIND_OTHER;
	ip_payload = total_length - ihl_size;

	/*
	 * Later fragments carry no L4 header.  A first fragment of a larger
	 * datagram has one, but its UDP length describes the whole datagram,
	 * so only its ports are read.  RoCEv2 sets DF and never fragments.
	 */
	frag = rd16(ip + offsetof(struct ofan_ipv4_hdr,
				       fragment_offset));
	if (frag & OFAN_IPV4_FRAG_OFFSET_MASK)
		return OFAN_PARSE_OK;
	if (info->proto == OFAN_IPPROTO_UDP && !(frag & OFAN_IPV4_MF))
		return parse_udp(frame, l4, ip_payload, info);
	/*
	 * TCP, fragmented UDP: the ports are enough to hash the flow.  A
	 * truncated TCP header is not a drop, the switch forwards on L3.
	 */
	if ((info->proto == OFAN_IPPROTO_TCP ||
	     info->proto == OFAN_IPPROTO_UDP) &&
	    ip_payload >= OFAN_L4_PORTS_SIZE) {
		info->src_port = rd16(frame + l4);
		info->dst_port = rd16(frame + l4 + 2);
	}
	return OFAN_PARSE_OK;
}

int
ofan_parse(const uint8_t *frame, uint32_t len, unsigned int flags,
	   struct ofan_pkt_info *info)
{
	uint32_t l3 = OFAN_ETH_HDR_SIZE;
	uint16_t ether_type;

	if (len < OFAN_ETH_HDR_SIZE)
		return OFAN_DROP_RUNT;
	memset(info, 0, sizeof(*info));
	ether_type = rd16(frame + offsetof(struct ofan_eth_hdr,
						ether_type));
	/* One 802.1Q tag is skipped; a tag inside it is not IPv4. */
	if (ether_type == OFAN_ETHER_TYPE_VLAN) {
		if (len < OFAN_ETH_HDR_SIZE + OFAN_VLAN_TAG_SIZE)
			return OFAN_DROP_RUNT;
		ether_type = rd16(frame + OFAN_ETH_HDR_SIZE + 2);
		l3 += OFAN_VLAN_TAG_SIZE;
	}
	if (ether_type == OFAN_ETHER_TYPE_IPV4)
		return parse_ipv4(frame, len, l3, flags, info);
	if (ether_type == OFAN_ETHER_TYPE_ARP)
		return parse_arp(frame, len, l3, info);
	if (ether_type == OFAN_ETHER_TYPE_MAC_CTRL)
		return parse_mac_ctrl(frame, len, l3, info);
	return OFAN_DROP_NOT_IPV4;
}
