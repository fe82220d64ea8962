/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan wire format (architecture.md, "The wire format"): what every ofan packet looks like.
 *
 * Packets are RoCEv2 shaped so that tshark's RRoCE dissector decodes them:
 *   Ethernet / IPv4 (DSCP + ECN) / UDP (dst 4791, src = entropy value) /
 *   BTH / payload
 * An ACK is a BTH with the RC ACKNOWLEDGE opcode followed by an AETH and the
 * ofan feedback extension (echoed EV, CE bit, cumulative PSN, SACK bitmap).
 *
 * Switches only need the 5-tuple, the ECN bits and whether a packet is data
 * or an ACK; hosts use the rest.  All multi-byte fields are big endian.
 * This header has no EAL dependency so that parsers, builders and fuzzers
 * can be used in plain unit tests.
 */
#ifndef OFAN_WIRE_H
#define OFAN_WIRE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define OFAN_ETHER_TYPE_IPV4	0x0800
#define OFAN_ETHER_TYPE_ARP	0x0806
#define OFAN_ETHER_TYPE_VLAN	0x8100
#define OFAN_ETHER_TYPE_IPV6	0x86dd
#define OFAN_ETHER_TYPE_MAC_CTRL	0x8808	/* IEEE 802.3 MAC control */

#define OFAN_IPPROTO_ICMP	1
#define OFAN_IPPROTO_TCP	6
#define OFAN_IPPROTO_UDP	17

/* RoCEv2 well-known UDP destination port. */
#define OFAN_UDP_PORT_ROCEV2	4791

/* IPv4 ECN codepoints (the two low bits of the TOS byte). */
#define OFAN_ECN_NOT_ECT	0x0
#define OFAN_ECN_ECT1		0x1
#define OFAN_ECN_ECT0		0x2
#define OFAN_ECN_CE		0x3
#define OFAN_ECN_MASK		0x3

/* BTH opcodes used by ofan (InfiniBand RC transport). */
#define OFAN_BTH_OP_RC_SEND_ONLY	0x04
#define OFAN_BTH_OP_RC_ACK		0x11

#define OFAN_ETH_HDR_SIZE	14
/*
 * What every frame costs on the wire beyond its bytes: preamble and SFD
 * (8), FCS (4) and the inter-frame gap (12).  Rates, pacers, shapers and
 * emulated links all count it.
 */
#define OFAN_WIRE_OVERHEAD	24
#define OFAN_IPV4_HDR_SIZE	20
#define OFAN_UDP_HDR_SIZE	8
#define OFAN_BTH_SIZE		12
#define OFAN_BTH_QP_MASK	0xffffff	/* 24-bit QP numbers and PSNs */
#define OFAN_BTH_PSN_MASK	0xffffff
#define OFAN_AETH_SIZE		4
#define OFAN_ACK_EXT_SIZE	20
/* Ethernet + IPv4 (no options) + UDP + BTH: offset of a data payload. */
#define OFAN_DATA_HDRS_SIZE \
	(OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE)
/* A whole ACK frame before Ethernet padding. */
#define OFAN_ACK_FRAME_SIZE \
	(OFAN_DATA_HDRS_SIZE + OFAN_AETH_SIZE + OFAN_ACK_EXT_SIZE)

struct ofan_eth_hdr {
	uint8_t dst[6];
	uint8_t src[6];
	uint16_t ether_type;
} __attribute__((packed));

struct ofan_ipv4_hdr {
	uint8_t version_ihl;
	uint8_t tos;		/* DSCP << 2 | ECN */
	uint16_t total_length;
	uint16_t packet_id;
	uint16_t fragment_offset;
	uint8_t ttl;
	uint8_t proto;
	uint16_t checksum;
	uint32_t src_addr;
	uint32_t dst_addr;
} __attribute__((packed));

struct ofan_udp_hdr {
	uint16_t src_port;	/* the entropy value (EV) */
	uint16_t dst_port;
	uint16_t length;
	uint16_t checksum;	/* 0: RoCEv2 leaves it unset */
} __attribute__((packed));

/* InfiniBand Base Transport Header, 12 bytes. */
struct ofan_bth {
	uint8_t opcode;
	uint8_t flags;		/* SE, M, pad count, transport version */
	uint16_t pkey;
	uint32_t dest_qp;	/* high 8 bits: ofan's marks; low 24 bits QP */
	uint32_t psn;		/* high bit: ack request (OFAN_BTH_ACK_REQ); low 24 bits PSN */
} __attribute__((packed));

/*
 * ofan's marks, in the BTH's reserved byte (byte 4: the high byte of
 * dest_qp), which RoCEv2 endpoints send as zero and switches leave alone.
 * A trimming switch (architecture.md, "Trimming") sets TRIMMED on a data packet
 * it cut to its headers (or, with trim_size = full, only marked); the
 * receiver NACKs its PSN.  RETURNED: the switch also sent it back to its
 * sender (return to sender), addresses swapped; the sender resends it.
 */
#define OFAN_BTH_MARK_OFFSET	4	/* the byte, from the BTH's start */
#define OFAN_BTH_MARK_TRIMMED	0x01
#define OFAN_BTH_MARK_RETURNED	0x02
/*
 * SPEC: a receiver-driven sender sent it on the credit it starts with,
 * before any feedback (UEC's DATA_SPEC); its receiver counts it as
 * credit already spent (hs_cc.h, pulls).  Switches leave it alone.
 */
#define OFAN_BTH_MARK_SPEC	0x04
/*
 * LAST_HOP: with TRIMMED, the switch cut it in the queue of a port that
 * faces a host, its last hop (the receiver's own link was full, not the
 * fabric).  The receiver says so in its NACK (OFAN_ACK_F_LAST_HOP), as
 * UEC's NACK does; uet-htsim's path selection takes it as good feedback
 * and NSCC under a receiver's credit keeps its window.
 */
#define OFAN_BTH_MARK_LAST_HOP	0x08

/*
 * The BTH's ack request (the A bit, the high bit of byte 8): the sender
 * wants this packet ACKed at once, as UEC's AR: it may send no more for
 * now (its window or credit is used up), or it is a resend.  Set by
 * congestion controls with hs_cc_ops.ack_request.
 */
#define OFAN_BTH_ACK_REQ_OFFSET	8
#define OFAN_BTH_ACK_REQ	0x80

/*
 * AETH syndromes (the high byte of syndrome_msn), as InfiniBand has
 * them: an ACK (0) or a NAK, PSN sequence error (0x60).  A NAK names a
 * PSN in the feedback extension's echo_psn: the trimmed packet's (trim),
 * or the one the receiver expects next (gbn).
 */
#define OFAN_AETH_SYN_ACK	0x00
#define OFAN_AETH_SYN_NAK_SEQ	0x60
#define OFAN_AETH_SYN_NAK_MASK	0x60	/* both bits: a NAK */

/*
 * Priority flow control (IEEE 802.1Qbb), a MAC control frame: to
 * 01:80:C2:00:00:01, EtherType 0x8808, opcode 0x0101, a class-enable
 * vector (bit p: the quanta of priority p are valid) and eight quanta,
 * one per priority, in units of 512 bit times at the link's rate; zero
 * quanta resume the priority at once.  Padded to the 60-byte minimum.
 * The older 802.3x pause (opcode 0x0001, one quanta for the whole link)
 * is read as a PFC frame that enables every priority.
 */
#define OFAN_MAC_CTRL_OP_PAUSE	0x0001
#define OFAN_MAC_CTRL_OP_PFC	0x0101
#define OFAN_PFC_PRIORITIES	8
#define OFAN_PFC_FRAME_SIZE	60	/* without the FCS */
#define OFAN_PFC_BODY_SIZE	20	/* opcode, vector, 8 quanta */
#define OFAN_PAUSE_BODY_SIZE	4	/* opcode, one quanta */
#define OFAN_PFC_QUANTUM_BITS	512	/* one quanta, in bit times */

extern const uint8_t ofan_pfc_dst_mac[6];	/* 01:80:C2:00:00:01 */

/* ACK Extended Transport Header. */
struct ofan_aeth {
	uint32_t syndrome_msn;	/* syndrome << 24 | message sequence number */
} __attribute__((packed));

/* Flag in ofan_ack_ext.flags: the data packet that triggered the ACK was CE. */
#define OFAN_ACK_F_CE	0x01
/*
 * Flag: cum_psn carries the count of distinct packets received (the
 * erasure recovery model, hs_erasure.h) and sack is 0.
 */
#define OFAN_ACK_F_COUNT	0x02
/*
 * Flag: a PULL, not an acknowledgement.  The receiver grants its sender
 * credit: cum_psn is the credit granted so far, in 256-byte quanta (UEC's
 * pull, hs_cc.h, pulls).
 */
#define OFAN_ACK_F_PULL	0x04
#define OFAN_PULL_QUANTUM	256
/* Flag on a NACK: the packet was trimmed on its last hop (OFAN_BTH_MARK_LAST_HOP). */
#define OFAN_ACK_F_LAST_HOP	0x08

/*
 * The ofan feedback extension, after the AETH of an ACK.  It carries the
 * path feedback that host load balancers (REPS, PLB) need: the EV and CE
 * bit of the packet that triggered this ACK, plus SACK state.
 */
struct ofan_ack_ext {
	uint16_t echo_ev;	/* UDP source port of the triggering packet */
	uint8_t flags;		/* OFAN_ACK_F_* */
	/*
	 * A receiver-driven flow's receiver (hs_cc.h, pulls): the bit
	 * length of how many flows wait for its credit, so a sender knows
	 * how long a round of its PULLs may take; 0 otherwise.
	 */
	uint8_t pull_queue;
	uint32_t echo_psn;	/* PSN of the triggering data packet */
	uint32_t cum_psn;	/* every PSN below this one was received
				 * (OFAN_ACK_F_COUNT: packets received) */
	uint64_t sack;		/* bit i set: PSN cum_psn + 1 + i was received */
} __attribute__((packed));

_Static_assert(sizeof(struct ofan_eth_hdr) == OFAN_ETH_HDR_SIZE, "eth");
_Static_assert(sizeof(struct ofan_ipv4_hdr) == OFAN_IPV4_HDR_SIZE, "ipv4");
_Static_assert(sizeof(struct ofan_udp_hdr) == OFAN_UDP_HDR_SIZE, "udp");
_Static_assert(sizeof(struct ofan_bth) == OFAN_BTH_SIZE, "bth");
_Static_assert(sizeof(struct ofan_ack_ext) == OFAN_ACK_EXT_SIZE, "ackext");

/* ARP for IPv4 over Ethernet, 28 bytes after the Ethernet header. */
struct ofan_arp {
	uint16_t htype;
	uint16_t ptype;
	uint8_t hlen;
	uint8_t plen;
	uint16_t oper;		/* 1 request, 2 reply */
	uint8_t sha[6];
	uint32_t spa;
	uint8_t tha[6];
	uint32_t tpa;
} __attribute__((packed));

#define OFAN_ARP_OP_REQUEST	1
#define OFAN_ARP_OP_REPLY	2

/*
 * Everything a builder needs to know to write one ofan packet.  Addresses
 * and ports are in host byte order here; builders convert.
 */
struct ofan_pkt_spec {
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	uint32_t src_ip;
	uint32_t dst_ip;
	uint16_t ev;		/* UDP source port */
	uint8_t ttl;		/* 0 means 64 */
	uint8_t tos;		/* DSCP << 2 | ECN */
	uint32_t dest_qp;
	uint32_t psn;		/* low 24 bits go into the BTH */
	uint16_t payload_size;	/* data packets only */
};

/*
 * Write a data packet (opcode RC SEND ONLY) into buf.  The payload is
 * filled with ofan_payload_byte(dest_qp, psn, i) so receivers can verify it.
 * Returns the frame size, or -ENOSPC if buf_size is too small.
 */
int ofan_build_data(uint8_t *buf, size_t buf_size,
		    const struct ofan_pkt_spec *spec);

/*
 * Write an ACK into buf: BTH with RC ACK opcode, AETH, and the feedback
 * extension given in host byte order.  Returns the frame size (before any
 * padding the NIC adds), or -ENOSPC.
 */
int ofan_build_ack(uint8_t *buf, size_t buf_size,
		   const struct ofan_pkt_spec *spec,
		   const struct ofan_ack_ext *ext_host_order);

/* Write an ARP request or reply (oper) into buf; returns 42 or -ENOSPC. */
int ofan_build_arp(uint8_t *buf, size_t buf_size, uint16_t oper,
		   const uint8_t sha[6], uint32_t spa,
		   const uint8_t tha[6], uint32_t tpa);

/*
 * Build a PFC frame from src: the priorities in class_enable get quanta
 * (0 resumes them), the others 0.  Returns OFAN_PFC_FRAME_SIZE, or -1 if
 * buf_size is too small.
 */
int ofan_build_pfc(uint8_t *buf, size_t buf_size, const uint8_t src[6],
		   uint8_t class_enable, uint16_t quanta);

/*
 * The pause a MAC control frame that ofan_parse() accepted (kind
 * OFAN_KIND_PAUSE, body at l3) gives priority prio: true and *quanta if
 * its class is enabled (an 802.3x pause enables all), false otherwise.
 */
bool ofan_pfc_quanta(const uint8_t *frame, uint32_t l3, uint8_t prio,
		     uint16_t *quanta);

/*
 * Nanoseconds that quanta last at rate_bps (rounded up; 0 for 0; rate 0
 * is 100 Gb/s): exact for every rate, never decreasing in quanta, never
 * increasing in rate (tests/fuzz/fuzz_parse.c checks it against 128-bit
 * arithmetic).
 */
uint64_t ofan_pfc_quanta_ns(uint16_t quanta, uint64_t rate_bps);

/*
 * The pause timer of a priority (IEEE 802.1Qbb): every PFC frame for it
 * reloads the timer with the frame's quanta, so a shorter pause cuts a
 * longer one short and zero quanta resume at once.  Switches and hosts
 * count the time paused as it passes, never ahead of it, so the count
 * never decreases: when a frame reloads the timer, the part of the pause
 * [from, until) that ran by now; when they see a pause has run out, all
 * of it.  Returns that part (0 if from is not before until and now);
 * the caller then pauses from now until now + the new duration.
 */
static inline uint64_t
ofan_pfc_pause_ran(uint64_t from, uint64_t until, uint64_t now)
{
	if (until <= from || now <= from)
		return 0;
	return (now < until ? now : until) - from;
}

/*
 * The verifiable payload pattern.  Word k (8 bytes, little endian) of the
 * payload of packet (qp, psn) is ofan_payload_word(qp, psn, k): a per-packet
 * seed (a 64-bit mix of qp and psn) plus k times an odd constant, so a
 * flipped byte, a word out of place and a payload of another packet or
 * flow all fail the check.  Byte i is byte i % 8 of word i / 8.
 * Arithmetic rather than a hash per word so that a 4 KiB payload is filled
 * and checked with one add per word (vectorised): the hash per word cost
 * about 8 instructions per word, most of ofan-fabric's time on 4 KiB
 * frames.
 */
#define OFAN_PAYLOAD_STEP 0xbf58476d1ce4e5b9ull

static inline uint64_t
ofan_payload_seed(uint32_t qp, uint32_t psn)
{
	uint64_t x = ((uint64_t)qp << 32 | psn) * 0x9e3779b97f4a7c15ull;

	x ^= x >> 31;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 29);
}

static inline uint64_t
ofan_payload_word(uint32_t qp, uint32_t psn, uint32_t k)
{
	return ofan_payload_seed(qp, psn) + (uint64_t)k * OFAN_PAYLOAD_STEP;
}

static inline uint8_t
ofan_payload_byte(uint32_t qp, uint32_t psn, uint32_t i)
{
	return (uint8_t)(ofan_payload_word(qp, psn, i / 8) >> (8 * (i % 8)));
}

/* Fill len payload bytes of packet (qp, psn) at p. */
void ofan_payload_fill(uint8_t *p, uint32_t qp, uint32_t psn, uint32_t len);

/*
 * Use the 32-byte (AVX2) loops of fill and check if the CPU has them (the
 * default), or not: the tests compare both with the byte definition.
 * Returns whether they are used now.
 */
bool ofan_payload_set_avx2(bool on);

/* Number of the len payload bytes at p that differ from the pattern. */
uint32_t ofan_payload_check(const uint8_t *p, uint32_t qp, uint32_t psn,
			    uint32_t len);

/* RFC 1071 checksum of an IPv4 header of ihl_bytes; result in network order. */
uint16_t ofan_ipv4_checksum(const struct ofan_ipv4_hdr *ip, unsigned int ihl_bytes);

#endif /* OFAN_WIRE_H */
