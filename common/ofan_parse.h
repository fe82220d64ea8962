/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bounds-checked packet parser and the named drop reasons.
 *
 * It sits first in every packet path (switch and host): given the bytes of
 * one frame it either fills an ofan_pkt_info or returns the reason the frame
 * must be dropped.  It never reads past len, never writes to the frame and
 * needs no EAL, so it can be fuzzed on its own.
 *
 * Every drop anywhere in ofan has a name in OFAN_DROP_REASONS; counters are
 * arrays indexed by enum ofan_drop and printed with ofan_drop_name().
 */
#ifndef OFAN_PARSE_H
#define OFAN_PARSE_H

#include <stdint.h>

/*
 * X(enum suffix, "name in stats", "one-line explanation").
 * Parser reasons first, then pipeline reasons used by the engines.
 */
#define OFAN_DROP_REASONS(X) \
	X(RUNT, "runt", "frame shorter than an Ethernet header") \
	X(NOT_IPV4, "not_ipv4", "EtherType is neither IPv4, ARP nor MAC control") \
	X(MAC_CTRL_MALFORMED, "mac_control_malformed", "MAC control frame truncated, or an opcode other than pause (0x0001) or PFC (0x0101)") \
	X(ARP_MALFORMED, "arp_malformed", "ARP frame truncated or not IPv4-over-Ethernet") \
	X(IP_TRUNCATED, "ip_truncated", "frame ends inside the IPv4 header") \
	X(BAD_VERSION, "bad_version", "IP version field is not 4") \
	X(BAD_IHL, "bad_ihl", "IHL below 5 or past the end of the frame") \
	X(BAD_TOTAL_LENGTH, "bad_total_length", "IPv4 total length below the header or beyond the frame") \
	X(BAD_CHECKSUM, "bad_ip_checksum", "IPv4 header checksum does not verify") \
	X(TTL_EXPIRED, "ttl_expired", "TTL is 0 or 1, cannot be forwarded") \
	X(UDP_TRUNCATED, "udp_truncated", "UDP header missing or UDP length inconsistent") \
	X(BTH_TRUNCATED, "bth_truncated", "RoCEv2 packet shorter than its BTH") \
	X(ACK_TRUNCATED, "ack_truncated", "RoCEv2 ACK without AETH and feedback extension") \
	X(NO_ROUTE, "no_route", "no FIB entry for the destination") \
	X(NO_MEMBER, "no_live_member", "every member of the next-hop group is dead") \
	X(BAD_PICK, "bad_pick", "the switch policy picked no member of the group (a policy bug)") \
	X(QUEUE_FULL, "queue_full", "egress queue full (tail drop)") \
	X(CTRL_FULL, "ctrl_queue_full", "the control queue of a trimming port had no room for a header or ACK") \
	X(LINK_DOWN, "link_down", "egress link is down") \
	X(BLACKHOLE, "blackhole", "egress link silently drops (black hole)") \
	X(TX_FULL, "tx_full", "device TX ring full and the port has no software queue") \
	X(SHUTDOWN, "shutdown", "still queued when the switch stopped") \
	X(NOT_FOR_US, "not_for_us", "ARP or local traffic not addressed to this node") \
	X(INJECTED, "injected", "dropped on purpose by an ofan-fabric [drop.NAME] section") \
	X(PAUSE_IGNORED, "pause_ignored", "a pause or PFC frame received on a port without pfc = yes") \
	X(PFC_HEADROOM, "pfc_headroom", "a lossless ingress port's buffered bytes passed pfc_xoff + pfc_headroom (the headroom is too small)")

enum ofan_drop {
#define OFAN_DROP_ENUM(e, n, h) OFAN_DROP_##e,
	OFAN_DROP_REASONS(OFAN_DROP_ENUM)
#undef OFAN_DROP_ENUM
	OFAN_DROP_MAX
};

/* Stable short name of a drop reason ("ttl_expired"), for stats and JSON. */
const char *ofan_drop_name(enum ofan_drop reason);
/* One-line human explanation of a drop reason. */
const char *ofan_drop_help(enum ofan_drop reason);

/* What a frame is, once parsed. */
enum ofan_pkt_kind {
	/* RoCEv2 data: any BTH opcode but the RC ACK, a CNP (0x81) too --
	 * ofan has no DCQCN yet, so to the switch a CNP is data
	 * (trimmed, rotated with data); tests/fuzz/fuzz_parse.c holds the
	 * fast paths to the same. */
	OFAN_KIND_DATA = 0,
	OFAN_KIND_ACK = 1,	/* RoCEv2 ACK with the feedback extension */
	OFAN_KIND_OTHER = 2,	/* other IPv4 (TCP, ICMP, non-RoCE UDP) */
	OFAN_KIND_ARP = 3,	/* ARP; arp_* fields are valid */
	OFAN_KIND_PAUSE = 4,	/* pause or PFC; its body at l3_offset (ofan_pfc_quanta) */
};

/*
 * Parsed view of one frame.  Addresses and ports in host byte order.
 * Offsets are from the start of the frame.  Fields past what the kind
 * implies (e.g. psn for OTHER) are zero.
 */
struct ofan_pkt_info {
	uint8_t kind;		/* enum ofan_pkt_kind */
	uint8_t proto;		/* IPv4 protocol */
	uint8_t ttl;
	uint8_t tos;		/* DSCP << 2 | ECN */
	uint16_t l3_offset;	/* start of the IPv4 header or ARP body */
	uint16_t l4_offset;	/* start of the UDP/TCP/ICMP header */
	uint16_t ip_total_length;
	uint16_t src_port;	/* for RoCEv2, the entropy value */
	uint16_t dst_port;
	uint8_t bth_opcode;
	uint8_t bth_mark;	/* the BTH's reserved byte: OFAN_BTH_MARK_* */
	uint32_t src_ip;
	uint32_t dst_ip;
	uint32_t dest_qp;
	uint32_t psn;
	uint16_t payload_offset; /* data: first payload byte; ACK: the AETH */
	uint16_t payload_size;	/* data: bytes of payload per IPv4 length */
	uint16_t arp_oper;
	uint32_t arp_spa;
	uint32_t arp_tpa;
	uint8_t arp_sha[6];
};

/* Parse options. */
#define OFAN_PARSE_F_VERIFY_CSUM 0x1	/* verify the IPv4 header checksum */
#define OFAN_PARSE_F_NO_TTL_CHECK 0x2	/* a host: do not require TTL > 1 */

/*
 * Parse one frame of len bytes.  Returns -1 and fills *info when the frame
 * is well formed, otherwise the drop reason (>= 0) and *info is undefined.
 * The TTL check (TTL <= 1 is TTL_EXPIRED) is a forwarding rule and applies
 * unless OFAN_PARSE_F_NO_TTL_CHECK is given.
 */
int ofan_parse(const uint8_t *frame, uint32_t len, unsigned int flags,
	       struct ofan_pkt_info *info);

#define OFAN_PARSE_OK (-1)

#endif /* OFAN_PARSE_H */
