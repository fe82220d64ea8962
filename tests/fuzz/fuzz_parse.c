/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the frame parser, on what peers send a switch.
 *
 * Every input is parsed with each combination of parse flags.  Besides
 * the sanitizers catching reads past the input, the harness checks what a
 * caller relies on (abort() on a violation, which libFuzzer reports as a
 * crash):
 *   - the result is OK or a parser drop reason (those before no_route),
 *     and on OK every offset and size points inside the frame;
 *   - the switch's fast path accepts nothing that ofan_parse() rejects,
 *     with the same values, and the host's the same whole struct;
 *   - MAC control (EtherType 0x8808, after at most one 802.1Q tag): the
 *     frame is a pause exactly when its opcode is PFC (0x0101) with the
 *     20-byte body or 802.3x pause (0x0001) with its 4 bytes, else
 *     mac_control_malformed, whatever the destination MAC, the quanta
 *     and the class-enable vector; ofan_pfc_quanta() for every priority
 *     0-7 (and beyond) agrees with the body read here: a PFC frame's
 *     class p is enabled by bit p of the vector's low byte (the high
 *     byte is reserved and ignored) with its own quanta, an 802.3x pause
 *     enables every priority with its one quanta;
 *   - ofan_pfc_quanta_ns() of the input's quanta and a rate taken from
 *     its bytes (any 64-bit rate; 0 is 100 Gb/s) is exactly the rounded
 *     up 128-bit quotient, so it never overflows, never decreases with
 *     the quanta and never increases with the rate;
 *   - RoCEv2 (UDP to 4791): the kind is ACK exactly for the RC ACK
 *     opcode (0x11), data for every other opcode, whatever the BTH's
 *     mark byte says (trimmed, returned, marks ofan does not define are
 *     read, not judged), and the mark, QP and PSN are the BTH's bytes.
 *     An ACK needs its AETH and feedback extension whole; their
 *     contents (a NAK syndrome, CE or COUNT flags, SACK) are the host's
 *     to read, never a reason to drop.  A RoCEv2 CNP (opcode 0x81) is
 *     data to ofan, on both fast paths and the full parser alike:
 *     ofan has no DCQCN yet (whatever classifies CNPs once it has one
 *     must keep this agreement).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofan_parse.h"
#include "ofan_wire.h"
#include "../../switch/engine/sw_parse_fast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_info(const uint8_t *data_of_check, const struct ofan_pkt_info *info,
	   size_t size)
{
	if (info->kind == OFAN_KIND_ARP) {
		if ((size_t)info->l3_offset + sizeof(struct ofan_arp) > size)
			abort();
		return;
	}
	if (info->kind == OFAN_KIND_PAUSE) {
		uint16_t quanta;

		if ((size_t)info->l3_offset + OFAN_PAUSE_BODY_SIZE > size)
			abort();
		/* Reading any priority stays inside the body it checked. */
		(void)ofan_pfc_quanta(data_of_check, info->l3_offset, 3,
				      &quanta);
		return;
	}
	if (info->kind > OFAN_KIND_PAUSE)
		abort();
	if ((size_t)info->l3_offset + info->ip_total_length > size ||
	    info->l4_offset < info->l3_offset + OFAN_IPV4_HDR_SIZE ||
	    info->l4_offset > info->l3_offset + info->ip_total_length)
		abort();
	if (info->kind == OFAN_KIND_OTHER)
		return;
	/* RoCEv2: BTH and payload (or AETH and extension) inside the IP. */
	if (info->dst_port != OFAN_UDP_PORT_ROCEV2 ||
	    info->payload_offset != info->l4_offset + OFAN_UDP_HDR_SIZE +
	    OFAN_BTH_SIZE ||
	    (size_t)info->payload_offset + info->payload_size !=
	    (size_t)info->l3_offset + info->ip_total_length)
		abort();
	if (info->kind == OFAN_KIND_ACK &&
	    info->payload_size < OFAN_AETH_SIZE + OFAN_ACK_EXT_SIZE)
		abort();
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* A RoCEv2 CNP's BTH opcode (congestion notification, DCQCN). */
#define FZ_BTH_OP_CNP 0x81

/*
 * MAC control, read independently of the parser: where the body starts
 * (after one 802.1Q tag at most), or 0 if the frame is not MAC control.
 */
static uint32_t
mac_ctrl_body(const uint8_t *f, size_t size)
{
	uint32_t l3 = OFAN_ETH_HDR_SIZE;
	uint16_t et;

	if (size < OFAN_ETH_HDR_SIZE)
		return 0;
	et = rd16(f + 12);
	if (et == OFAN_ETHER_TYPE_VLAN) {
		if (size < OFAN_ETH_HDR_SIZE + 4)
			return 0;
		et = rd16(f + 16);
		l3 += 4;
	}
	return et == OFAN_ETHER_TYPE_MAC_CTRL ? l3 : 0;
}

static void
check_mac_ctrl(const uint8_t *f, size_t size)
{
	struct ofan_pkt_info info;
	uint32_t l3 = mac_ctrl_body(f, size);
	uint16_t op, want, got;
	unsigned int p;
	bool pause, on;
	int ret;

	if (l3 == 0)
		return;
	op = size - l3 >= 2 ? rd16(f + l3) : 0xffff;
	pause = (op == OFAN_MAC_CTRL_OP_PFC && size - l3 >= OFAN_PFC_BODY_SIZE) ||
		(op == OFAN_MAC_CTRL_OP_PAUSE &&
		 size - l3 >= OFAN_PAUSE_BODY_SIZE);
	ret = ofan_parse(f, (uint32_t)size, OFAN_PARSE_F_VERIFY_CSUM, &info);
	if (!pause) {
		if (ret != OFAN_DROP_MAC_CTRL_MALFORMED)
			abort();
		return;
	}
	if (ret != OFAN_PARSE_OK || info.kind != OFAN_KIND_PAUSE ||
	    info.l3_offset != l3)
		abort();
	/* Every priority, and some past the eight PFC has. */
	for (p = 0; p < OFAN_PFC_PRIORITIES + 2; p++) {
		if (op == OFAN_MAC_CTRL_OP_PAUSE) {
			on = true;
			want = rd16(f + l3 + 2);
		} else {
			on = p < OFAN_PFC_PRIORITIES && (f[l3 + 3] >> p & 1);
			want = on ? rd16(f + l3 + 4 + 2 * p) : 0;
		}
		got = 0;
		if (ofan_pfc_quanta(f, l3, (uint8_t)p, &got) != on ||
		    (on && got != want))
			abort();
	}
}

/* ofan_pfc_quanta_ns() against 128-bit arithmetic, at two rates. */
static void
check_quanta_ns(const uint8_t *data, size_t size)
{
	uint64_t rate = 0, ns, ns_up, ns_faster;
	unsigned __int128 bit_ns, want;
	uint16_t quanta;
	size_t i;

	if (size < 2)
		return;
	quanta = rd16(data);
	for (i = 2; i < 10 && i < size; i++)
		rate = rate << 8 | data[i];
	/* Mostly rates a switch runs at (1 Mb/s .. 1.6 Tb/s); any at all. */
	if (size > 10 && data[10] < 0xc0)
		rate = 1000000ull + rate % 1600000000000ull;
	ns = ofan_pfc_quanta_ns(quanta, rate);
	bit_ns = (unsigned __int128)quanta * OFAN_PFC_QUANTUM_BITS *
		1000000000u;
	want = (bit_ns + (rate ? rate : 100000000000ull) - 1) /
		(rate ? rate : 100000000000ull);
	if (ns != want || (quanta == 0) != (ns == 0))
		abort();
	if (quanta < UINT16_MAX) {
		ns_up = ofan_pfc_quanta_ns((uint16_t)(quanta + 1), rate);
		if (ns_up < ns)
			abort();
	}
	if (rate != 0 && rate < UINT64_MAX) {
		ns_faster = ofan_pfc_quanta_ns(quanta, rate + 1);
		if (ns_faster > ns)
			abort();
	}
}

/*
 * RoCEv2 as parsed: the kind by the opcode alone, and the BTH's fields
 * as its bytes say (the mark byte included, of any value).
 */
static void
check_roce(const uint8_t *f, const struct ofan_pkt_info *info)
{
	const uint8_t *bth;

	if (info->kind != OFAN_KIND_DATA && info->kind != OFAN_KIND_ACK)
		return;
	bth = f + info->l4_offset + OFAN_UDP_HDR_SIZE;
	if (info->bth_opcode != bth[0] ||
	    info->kind != (bth[0] == OFAN_BTH_OP_RC_ACK ? OFAN_KIND_ACK :
						       OFAN_KIND_DATA) ||
	    (bth[0] == FZ_BTH_OP_CNP && info->kind != OFAN_KIND_DATA) ||
	    info->bth_mark != bth[OFAN_BTH_MARK_OFFSET] ||
	    info->dest_qp != ((uint32_t)bth[5] << 16 | bth[6] << 8 | bth[7]) ||
	    info->psn != ((uint32_t)bth[9] << 16 | bth[10] << 8 | bth[11]))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int flag_sets[] = {
		0,
		OFAN_PARSE_F_VERIFY_CSUM,
		OFAN_PARSE_F_NO_TTL_CHECK,
		OFAN_PARSE_F_VERIFY_CSUM | OFAN_PARSE_F_NO_TTL_CHECK,
	};
	struct ofan_pkt_info info;
	unsigned int i;
	int ret;

	if (size > UINT32_MAX)
		return 0;
	if (sw_parse_fast(data, (uint32_t)size, &info)) {
		struct ofan_pkt_info full;

		if (ofan_parse(data, (uint32_t)size, 0, &full) != OFAN_PARSE_OK ||
		    full.kind != info.kind || full.tos != info.tos ||
		    full.l3_offset != info.l3_offset ||
		    full.src_ip != info.src_ip || full.dst_ip != info.dst_ip ||
		    full.src_port != info.src_port ||
		    full.dst_port != info.dst_port || full.proto != info.proto)
			abort();
	}
	/* The host's fast path: the whole struct as the full parse's. */
	memset(&info, 0xa5, sizeof(info));
	if (ofan_parse_fast(data, (uint32_t)size, false, true, &info)) {
		struct ofan_pkt_info full;

		memset(&full, 0x5a, sizeof(full));
		if (ofan_parse(data, (uint32_t)size, OFAN_PARSE_F_NO_TTL_CHECK,
			       &full) != OFAN_PARSE_OK ||
		    memcmp(&full, &info, sizeof(full)) != 0)
			abort();
	}
	for (i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
		ret = ofan_parse(data, (uint32_t)size, flag_sets[i], &info);
		if (ret == OFAN_PARSE_OK) {
			check_info(data, &info, size);
			check_roce(data, &info);
		}
		else if (ret < 0 || ret >= OFAN_DROP_NO_ROUTE)
			abort();
	}
	check_mac_ctrl(data, size);
	check_quanta_ns(data, size);
	return 0;
}
