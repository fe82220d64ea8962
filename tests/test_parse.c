/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the wire format builders, the frame parser and the pcap
 * writer and reader.
 *
 * Builders are checked byte for byte against frames written out by hand,
 * so a change of the wire format shows up here first.  The parser is fed
 * every kind of frame it accepts, one crafted frame per drop reason it can
 * return, and every truncation of a data packet and of an ACK; frames are
 * copied into buffers of exactly their length so that a build with
 * -Db_sanitize=address catches any read past the end.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "ofan_parse.h"
#include "ofan_pcap.h"
#include "ofan_wire.h"
#include "sw_parse_fast.h"
#include "unit_suite.h"

#define FRAME_MAX	2048
#define IP(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/* Offsets in an untagged ofan frame. */
#define L3	OFAN_ETH_HDR_SIZE
#define L4	(L3 + OFAN_IPV4_HDR_SIZE)
#define BTH	(L4 + OFAN_UDP_HDR_SIZE)
#define PAYLOAD	(BTH + OFAN_BTH_SIZE)

static const uint8_t mac_a[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mac_b[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

/* The spec whose frames are written out by hand below. */
static struct ofan_pkt_spec
std_spec(void)
{
	struct ofan_pkt_spec spec = {
		.src_ip = IP(10, 0, 0, 1),
		.dst_ip = IP(10, 1, 0, 2),
		.ev = 0xc001,
		.ttl = 0,
		.tos = 10 << 2 | OFAN_ECN_ECT0,
		/* The high bits are not part of a QP or PSN. */
		.dest_qp = 0x12abcdef,
		.psn = 0x01234567,
		.payload_size = 16,
	};

	memcpy(spec.src_mac, mac_a, 6);
	memcpy(spec.dst_mac, mac_b, 6);
	return spec;
}

static const struct ofan_ack_ext std_ext = {
	.echo_ev = 0xc123,
	.flags = OFAN_ACK_F_CE,
	.echo_psn = 0x00345678,
	.cum_psn = 0x00345670,
	.sack = 0x8000000000000081ull,
};

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Recompute the IPv4 header checksum of a frame we have just edited. */
static void
fix_csum(uint8_t *f, unsigned int l3)
{
	struct ofan_ipv4_hdr *ip = (struct ofan_ipv4_hdr *)(f + l3);

	ip->checksum = 0;
	ip->checksum = ofan_ipv4_checksum(ip, (ip->version_ihl & 0xf) * 4u);
}

static int
make_data(uint8_t *f, uint16_t payload_size)
{
	struct ofan_pkt_spec spec = std_spec();
	int len;

	spec.payload_size = payload_size;
	len = ofan_build_data(f, FRAME_MAX, &spec);
	ck_assert_int_eq(len, OFAN_DATA_HDRS_SIZE + payload_size);
	return len;
}

static int
make_ack(uint8_t *f)
{
	struct ofan_pkt_spec spec = std_spec();
	int len;

	len = ofan_build_ack(f, FRAME_MAX, &spec, &std_ext);
	ck_assert_int_eq(len, OFAN_ACK_FRAME_SIZE);
	return len;
}

/*
 * Insert a VLAN tag with the given TPID after the MAC addresses; the old
 * EtherType becomes the inner one.  Returns the new length.
 */
static int
add_vlan(uint8_t *f, int len, uint16_t tpid)
{
	memmove(f + 16, f + 12, (size_t)len - 12);
	wr16(f + 12, tpid);
	wr16(f + 14, 0x0064);	/* priority 0, VLAN 100 */
	return len + 4;
}

/*
 * Parse a copy of the frame held in a buffer of exactly len bytes, so that
 * AddressSanitizer sees any read past the end.
 */
static int
parse_exact(const uint8_t *f, uint32_t len, unsigned int flags,
	    struct ofan_pkt_info *info)
{
	uint8_t *copy = malloc(len);
	int ret;

	ck_assert(copy != NULL || len == 0);
	if (len > 0)
		memcpy(copy, f, len);
	ret = ofan_parse(copy, len, flags, info);
	free(copy);
	return ret;
}

/* Builders. */

START_TEST(test_checksum_known_header)
{
	/* A header with a well-known checksum (0xb861). */
	uint8_t h[20] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
	};
	const struct ofan_ipv4_hdr *ip = (const struct ofan_ipv4_hdr *)h;

	ck_assert_uint_eq(ntohs(ofan_ipv4_checksum(ip, 20)), 0xb861);
	h[10] = 0xb8;
	h[11] = 0x61;
	ck_assert_uint_eq(ofan_ipv4_checksum(ip, 20), 0);
	h[19] ^= 1;
	ck_assert_uint_ne(ofan_ipv4_checksum(ip, 20), 0);
}
END_TEST

START_TEST(test_build_data_bytes)
{
	static const uint8_t expect[OFAN_DATA_HDRS_SIZE] = {
		/* Ethernet: dst, src, IPv4. */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
		/* IPv4: 20 bytes, DSCP 10 ECT(0), 56 bytes, DF, TTL 64, UDP. */
		0x45, 0x2a, 0x00, 0x38, 0x00, 0x00, 0x40, 0x00,
		0x40, 0x11, 0x26, 0x88, 10, 0, 0, 1, 10, 1, 0, 2,
		/* UDP: EV 0xc001 to 4791, 36 bytes, no checksum. */
		0xc0, 0x01, 0x12, 0xb7, 0x00, 0x24, 0x00, 0x00,
		/* BTH: SEND ONLY, pkey 0xffff, QP 0xabcdef, PSN 0x234567. */
		0x04, 0x00, 0xff, 0xff, 0x00, 0xab, 0xcd, 0xef,
		0x00, 0x23, 0x45, 0x67,
	};
	struct ofan_pkt_spec spec = std_spec();
	uint8_t f[FRAME_MAX];
	uint32_t i;
	int len;

	memset(f, 0xee, sizeof(f));
	len = ofan_build_data(f, sizeof(f), &spec);
	ck_assert_int_eq(len, OFAN_DATA_HDRS_SIZE + 16);
	ck_assert_mem_eq(f, expect, sizeof(expect));
	ck_assert_uint_eq(ofan_ipv4_checksum(
		(const struct ofan_ipv4_hdr *)(f + L3), 20), 0);
	for (i = 0; i < 16; i++)
		ck_assert_uint_eq(f[PAYLOAD + i],
				  ofan_payload_byte(0xabcdef, 0x234567, i));
	/* The builder writes nothing past the frame. */
	ck_assert_uint_eq(f[len], 0xee);

	/* A given TTL is kept; the checksum follows. */
	spec.ttl = 3;
	len = ofan_build_data(f, sizeof(f), &spec);
	ck_assert_uint_eq(f[L3 + 8], 3);
	ck_assert_uint_eq(ofan_ipv4_checksum(
		(const struct ofan_ipv4_hdr *)(f + L3), 20), 0);
}
END_TEST

/* Fill and check len bytes against the byte definition; corrupt some. */
static void
t_payload_len(uint8_t *buf, uint32_t len)
{
	uint32_t i;

	ofan_payload_fill(buf, 77, 1234, len);
	for (i = 0; i < len; i++)
		ck_assert_uint_eq(buf[i], ofan_payload_byte(77, 1234, i));
	ck_assert_uint_eq(ofan_payload_check(buf, 77, 1234, len), 0);
	if (len < 10)
		return;
	buf[3] ^= 0x01;
	buf[len - 1] ^= 0x80;
	ck_assert_uint_eq(ofan_payload_check(buf, 77, 1234, len), 2);
	/* Another packet's payload is not this one's. */
	ck_assert_uint_gt(ofan_payload_check(buf, 77, 1235, len), len / 2);
	/* A single wrong byte anywhere (every 8-byte lane) is found. */
	buf[3] ^= 0x01;
	buf[len - 1] ^= 0x80;
	for (i = 5; i < len; i += 9) {
		buf[i] ^= 0x10;
		ck_assert_uint_eq(ofan_payload_check(buf, 77, 1234, len), 1);
		buf[i] ^= 0x10;
	}
}

/*
 * The word-wise fill and check agree with the byte definition, for odd
 * lengths too, and the check counts exactly the corrupted bytes.
 */
START_TEST(test_payload_fill_check)
{
	static uint8_t buf[4101];
	uint32_t len;
	int pass;

	/* The AVX2 loops (when the CPU has them), then the 16-byte ones. */
	for (pass = 0; pass < 2; pass++) {
		ofan_payload_set_avx2(pass == 0);
		for (len = 0; len <= sizeof(buf); len += pass ? 373 : 37)
			t_payload_len(buf, len);
		/* Every tail length of the small payloads. */
		for (len = 0; len < 24; len++)
			t_payload_len(buf, len);
	}
	ofan_payload_set_avx2(true);
}
END_TEST

/*
 * Whatever the host's fast path (full, no TTL rule) accepts, ofan_parse()
 * with OFAN_PARSE_F_NO_TTL_CHECK accepts with the same struct, byte for
 * byte.
 */
static void
host_fast_matches_full(const uint8_t *f, uint32_t len, unsigned int *nb_fast)
{
	struct ofan_pkt_info a, b;

	memset(&a, 0xa5, sizeof(a));	/* every byte must be written */
	memset(&b, 0x5a, sizeof(b));
	if (!ofan_parse_fast(f, len, false, true, &a))
		return;
	(*nb_fast)++;
	ck_assert_int_eq(ofan_parse(f, len, OFAN_PARSE_F_NO_TTL_CHECK, &b),
			 OFAN_PARSE_OK);
	ck_assert(memcmp(&a, &b, sizeof(a)) == 0);
}

/* Whatever the switch's fast path accepts, ofan_parse() accepts alike. */
static void
fast_matches_full(const uint8_t *f, uint32_t len, unsigned int *nb_fast)
{
	struct ofan_pkt_info a, b;

	host_fast_matches_full(f, len, &nb_fast[1]);
	if (!sw_parse_fast(f, len, &a))
		return;
	(*nb_fast)++;
	ck_assert_int_eq(ofan_parse(f, len, 0, &b), OFAN_PARSE_OK);
	ck_assert_uint_eq(a.kind, b.kind);
	ck_assert_uint_eq(a.tos, b.tos);
	ck_assert_uint_eq(a.l3_offset, b.l3_offset);
	ck_assert_uint_eq(a.src_ip, b.src_ip);
	ck_assert_uint_eq(a.dst_ip, b.dst_ip);
	ck_assert_uint_eq(a.src_port, b.src_port);
	ck_assert_uint_eq(a.dst_port, b.dst_port);
	ck_assert_uint_eq(a.proto, b.proto);
}

START_TEST(test_fast_path_agrees)
{
	static const uint8_t flips[] = { 0x01, 0x02, 0x10, 0x40, 0x80, 0xff };
	struct ofan_pkt_spec spec = std_spec();
	uint8_t frames[2][128], f[128];
	unsigned int nb_fast[2] = { 0, 0 }, k, x;
	int len[2];
	uint32_t i, l;

	len[0] = ofan_build_data(frames[0], sizeof(frames[0]), &spec);
	len[1] = ofan_build_ack(frames[1], sizeof(frames[1]), &spec, &std_ext);
	for (k = 0; k < 2; k++) {
		ck_assert_int_gt(len[k], 0);
		/* The common frames take the fast path. */
		nb_fast[0] = nb_fast[1] = 0;
		fast_matches_full(frames[k], (uint32_t)len[k], nb_fast);
		ck_assert_uint_eq(nb_fast[0], 1);
		ck_assert_uint_eq(nb_fast[1], 1);
		/* Every truncation, and every byte mutated several ways. */
		for (l = 0; l <= (uint32_t)len[k]; l++)
			fast_matches_full(frames[k], l, nb_fast);
		for (i = 0; i < (uint32_t)len[k]; i++)
			for (x = 0; x < sizeof(flips); x++) {
				memcpy(f, frames[k], (size_t)len[k]);
				f[i] ^= flips[x];
				fast_matches_full(f, (uint32_t)len[k], nb_fast);
			}
		/* Mutations of payload and MACs stay on the fast path; the
		 * host's takes TTL 0 and 1 too. */
		ck_assert_uint_gt(nb_fast[0], 12 * sizeof(flips));
		ck_assert_uint_gt(nb_fast[1], nb_fast[0]);
	}
}
END_TEST

START_TEST(test_build_data_sizes)
{
	struct ofan_pkt_spec spec = std_spec();
	uint8_t f[FRAME_MAX];

	/* Exactly enough room works, one byte less does not. */
	ck_assert_int_eq(ofan_build_data(f, OFAN_DATA_HDRS_SIZE + 16, &spec),
			 OFAN_DATA_HDRS_SIZE + 16);
	ck_assert_int_eq(ofan_build_data(f, OFAN_DATA_HDRS_SIZE + 15, &spec),
			 -ENOSPC);
	spec.payload_size = 0;
	ck_assert_int_eq(ofan_build_data(f, sizeof(f), &spec),
			 OFAN_DATA_HDRS_SIZE);
	ck_assert_uint_eq(rd16(f + L4 + 4), OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE);
	spec.payload_size = 1000;
	ck_assert_int_eq(ofan_build_data(f, sizeof(f), &spec),
			 OFAN_DATA_HDRS_SIZE + 1000);
	ck_assert_uint_eq(rd16(f + L3 + 2), 1040);
	ck_assert_uint_eq(rd16(f + L4 + 4), 1020);
	/* An IPv4 packet cannot hold a 65535-byte payload. */
	spec.payload_size = UINT16_MAX;
	ck_assert_int_eq(ofan_build_data(f, sizeof(f), &spec), -EINVAL);
}
END_TEST

START_TEST(test_build_data_payload_varies)
{
	struct ofan_pkt_spec spec = std_spec();
	uint8_t a[FRAME_MAX];
	uint8_t b[FRAME_MAX];

	spec.payload_size = 64;
	ofan_build_data(a, sizeof(a), &spec);
	spec.psn++;
	ofan_build_data(b, sizeof(b), &spec);
	/* Payloads of two packets differ, so a swapped payload is caught. */
	ck_assert(memcmp(a + PAYLOAD, b + PAYLOAD, 64) != 0);
}
END_TEST

START_TEST(test_build_ack_bytes)
{
	static const uint8_t expect[OFAN_ACK_FRAME_SIZE] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00,
		/* IPv4: 64 bytes, from 10.1.0.2 back to 10.0.0.1. */
		0x45, 0x2a, 0x00, 0x40, 0x00, 0x00, 0x40, 0x00,
		0x40, 0x11, 0x26, 0x80, 10, 1, 0, 2, 10, 0, 0, 1,
		/* UDP: 44 bytes. */
		0xc0, 0x01, 0x12, 0xb7, 0x00, 0x2c, 0x00, 0x00,
		/* BTH: ACKNOWLEDGE. */
		0x11, 0x00, 0xff, 0xff, 0x00, 0xab, 0xcd, 0xef,
		0x00, 0x23, 0x45, 0x67,
		/* AETH: ACK, MSN 0. */
		0x00, 0x00, 0x00, 0x00,
		/* Extension: echoed EV, CE, PSNs, SACK big endian. */
		0xc1, 0x23, 0x01, 0x00, 0x00, 0x34, 0x56, 0x78,
		0x00, 0x34, 0x56, 0x70,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x81,
	};
	struct ofan_pkt_spec spec = std_spec();
	uint8_t f[FRAME_MAX];

	/* The ACK goes back: swap the addresses of the data packet. */
	memcpy(spec.src_mac, mac_b, 6);
	memcpy(spec.dst_mac, mac_a, 6);
	spec.src_ip = IP(10, 1, 0, 2);
	spec.dst_ip = IP(10, 0, 0, 1);
	ck_assert_int_eq(ofan_build_ack(f, sizeof(f), &spec, &std_ext),
			 OFAN_ACK_FRAME_SIZE);
	ck_assert_mem_eq(f, expect, sizeof(expect));
	ck_assert_int_eq(ofan_build_ack(f, OFAN_ACK_FRAME_SIZE - 1, &spec,
					&std_ext), -ENOSPC);
}
END_TEST

START_TEST(test_build_arp_bytes)
{
	static const uint8_t expect[42] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06,
		0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 10, 0, 0, 1,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 10, 0, 0, 254,
	};
	static const uint8_t zero[6];
	uint8_t f[64];

	ck_assert_int_eq(ofan_build_arp(f, sizeof(f), OFAN_ARP_OP_REQUEST,
					mac_a, IP(10, 0, 0, 1), zero,
					IP(10, 0, 0, 254)), 42);
	ck_assert_mem_eq(f, expect, sizeof(expect));
	/* A reply is unicast to the target. */
	ck_assert_int_eq(ofan_build_arp(f, sizeof(f), OFAN_ARP_OP_REPLY,
					mac_b, IP(10, 0, 0, 254), mac_a,
					IP(10, 0, 0, 1)), 42);
	ck_assert_mem_eq(f, mac_a, 6);
	ck_assert_mem_eq(f + 6, mac_b, 6);
	ck_assert_uint_eq(rd16(f + 20), OFAN_ARP_OP_REPLY);
	ck_assert_int_eq(ofan_build_arp(f, 41, OFAN_ARP_OP_REPLY, mac_b, 1,
					mac_a, 2), -ENOSPC);
}
END_TEST

/* Round trips through the parser. */

/*
 * A PFC frame byte by byte (802.1Qbb: 01:80:C2:00:00:01, 0x8808, opcode
 * 0x0101, class-enable vector, eight quanta, padded to 60 bytes), parsed
 * as a pause whose quanta only its enabled priorities have; an 802.3x
 * pause (0x0001) gives its one quanta to every priority; quanta last 512
 * bit times each.
 */
START_TEST(test_pfc_frame)
{
	static const uint8_t src[6] = { 2, 0, 0, 0, 0, 7 };
	uint8_t f[OFAN_PFC_FRAME_SIZE];
	struct ofan_pkt_info info;
	uint16_t quanta;
	unsigned int i;

	ck_assert_int_eq(ofan_build_pfc(f, sizeof(f), src, 0x09, 0xabcd),
			 OFAN_PFC_FRAME_SIZE);
	ck_assert_int_eq(ofan_build_pfc(f, sizeof(f) - 1, src, 1, 1), -1);
	ck_assert_mem_eq(f, ofan_pfc_dst_mac, 6);
	ck_assert_mem_eq(f + 6, src, 6);
	ck_assert_uint_eq(f[12], 0x88);
	ck_assert_uint_eq(f[13], 0x08);
	ck_assert_uint_eq(f[14], 0x01);
	ck_assert_uint_eq(f[15], 0x01);
	ck_assert_uint_eq(f[16], 0x00);
	ck_assert_uint_eq(f[17], 0x09);			/* priorities 0 and 3 */
	for (i = 0; i < 8; i++) {
		bool on = i == 0 || i == 3;

		ck_assert_uint_eq(f[18 + 2 * i], on ? 0xab : 0);
		ck_assert_uint_eq(f[19 + 2 * i], on ? 0xcd : 0);
	}
	for (i = 34; i < sizeof(f); i++)
		ck_assert_uint_eq(f[i], 0);		/* padding */
	ck_assert_int_eq(ofan_parse(f, sizeof(f), 0, &info), OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_PAUSE);
	ck_assert_uint_eq(info.l3_offset, OFAN_ETH_HDR_SIZE);
	ck_assert(ofan_pfc_quanta(f, info.l3_offset, 3, &quanta));
	ck_assert_uint_eq(quanta, 0xabcd);
	ck_assert(!ofan_pfc_quanta(f, info.l3_offset, 4, &quanta));
	/* 802.3x: one quanta for the whole link. */
	f[15] = 0x01;
	f[14] = 0x00;
	f[16] = 0x01;
	f[17] = 0x00;
	ck_assert_int_eq(ofan_parse(f, sizeof(f), 0, &info), OFAN_PARSE_OK);
	ck_assert(ofan_pfc_quanta(f, info.l3_offset, 6, &quanta));
	ck_assert_uint_eq(quanta, 0x0100);
	/* 0xffff quanta at 100 Gb/s: 33,553,920 bits, 335,540 ns (up). */
	ck_assert_uint_eq(ofan_pfc_quanta_ns(0xffff, 100000000000ull), 335540);
	ck_assert_uint_eq(ofan_pfc_quanta_ns(1, 400000000000ull), 2);
	ck_assert_uint_eq(ofan_pfc_quanta_ns(0, 100000000000ull), 0);
	ck_assert_uint_eq(ofan_pfc_quanta_ns(1, 0), 6);	/* 100 Gb/s */
	/*
	 * Rates near 2^64 once wrapped the rounding (bits x 1e9 + rate - 1)
	 * to a pause of 0 ns: a resume.  Any pause lasts at least 1 ns.
	 */
	ck_assert_uint_eq(ofan_pfc_quanta_ns(0xffff, UINT64_MAX), 1);
	ck_assert_uint_eq(ofan_pfc_quanta_ns(1, UINT64_MAX - 1000), 1);
	ck_assert_uint_eq(ofan_pfc_quanta_ns(0xffff, 1), 33553920000000000ull);
}
END_TEST

/*
 * The pause timer as 802.1Qbb reloads it: a pause of 5000 ns at 1000 cut
 * at 1100 by one of 50 ns (to 1150) ran 100 ns, and the short one 50 ns
 * once it ran out; a resume (from == until) or a pause not yet begun
 * ran nothing.  The old count (what a pause granted, less what a later
 * frame took back) went from 5000 down to 150 on the way.
 */
START_TEST(test_pfc_pause_ran)
{
	uint64_t sum = 0;

	ck_assert_uint_eq(ofan_pfc_pause_ran(0, 0, 1000), 0);
	/* The long pause, cut after 100 ns. */
	sum += ofan_pfc_pause_ran(1000, 6000, 1100);
	ck_assert_uint_eq(sum, 100);
	/* The short one, seen to run out later: all of its 50 ns. */
	ck_assert_uint_eq(ofan_pfc_pause_ran(1100, 1150, 1120), 20);
	sum += ofan_pfc_pause_ran(1100, 1150, 9000);
	ck_assert_uint_eq(sum, 150);
	/* A resume, and a pause from a time still to come. */
	ck_assert_uint_eq(ofan_pfc_pause_ran(2000, 2000, 3000), 0);
	ck_assert_uint_eq(ofan_pfc_pause_ran(2000, 2500, 2000), 0);
	ck_assert_uint_eq(ofan_pfc_pause_ran(2000, 2500, 1500), 0);
	ck_assert_uint_eq(ofan_pfc_pause_ran(0, UINT64_MAX, UINT64_MAX - 1),
			  UINT64_MAX - 1);
}
END_TEST

START_TEST(test_parse_data)
{
	struct ofan_pkt_spec spec = std_spec();
	struct ofan_pkt_info info;
	uint8_t f[FRAME_MAX];
	int len;

	spec.payload_size = 100;
	spec.ttl = 2;
	len = ofan_build_data(f, sizeof(f), &spec);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len,
				     OFAN_PARSE_F_VERIFY_CSUM, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_DATA);
	ck_assert_uint_eq(info.proto, OFAN_IPPROTO_UDP);
	ck_assert_uint_eq(info.ttl, 2);
	ck_assert_uint_eq(info.tos, 0x2a);
	ck_assert_uint_eq(info.l3_offset, L3);
	ck_assert_uint_eq(info.l4_offset, L4);
	ck_assert_uint_eq(info.ip_total_length, 20 + 8 + 12 + 100);
	ck_assert_uint_eq(info.src_port, 0xc001);
	ck_assert_uint_eq(info.dst_port, OFAN_UDP_PORT_ROCEV2);
	ck_assert_uint_eq(info.bth_opcode, OFAN_BTH_OP_RC_SEND_ONLY);
	ck_assert_uint_eq(info.src_ip, IP(10, 0, 0, 1));
	ck_assert_uint_eq(info.dst_ip, IP(10, 1, 0, 2));
	ck_assert_uint_eq(info.dest_qp, 0xabcdef);
	ck_assert_uint_eq(info.psn, 0x234567);
	ck_assert_uint_eq(info.payload_offset, PAYLOAD);
	ck_assert_uint_eq(info.payload_size, 100);
	ck_assert_uint_eq(info.arp_oper, 0);
	ck_assert_uint_eq(info.arp_spa, 0);
	ck_assert_uint_eq(f[info.payload_offset + 99],
			  ofan_payload_byte(info.dest_qp, info.psn, 99));
}
END_TEST

START_TEST(test_parse_ack)
{
	struct ofan_pkt_spec spec = std_spec();
	struct ofan_pkt_info info;
	struct ofan_ack_ext ext;
	uint8_t f[FRAME_MAX];
	int len;

	len = ofan_build_ack(f, sizeof(f), &spec, &std_ext);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len,
				     OFAN_PARSE_F_VERIFY_CSUM, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_ACK);
	ck_assert_uint_eq(info.bth_opcode, OFAN_BTH_OP_RC_ACK);
	ck_assert_uint_eq(info.ttl, 64);
	ck_assert_uint_eq(info.ip_total_length, 64);
	ck_assert_uint_eq(info.src_port, 0xc001);
	ck_assert_uint_eq(info.dst_port, OFAN_UDP_PORT_ROCEV2);
	ck_assert_uint_eq(info.dest_qp, 0xabcdef);
	ck_assert_uint_eq(info.psn, 0x234567);
	ck_assert_uint_eq(info.payload_offset, PAYLOAD);
	ck_assert_uint_eq(info.payload_size,
			  OFAN_AETH_SIZE + OFAN_ACK_EXT_SIZE);

	/* Decode the extension after the AETH back into host order. */
	memcpy(&ext, f + info.payload_offset + OFAN_AETH_SIZE, sizeof(ext));
	ck_assert_uint_eq(ntohs(ext.echo_ev), std_ext.echo_ev);
	ck_assert_uint_eq(ext.flags, std_ext.flags);
	ck_assert_uint_eq(ntohl(ext.echo_psn), std_ext.echo_psn);
	ck_assert_uint_eq(ntohl(ext.cum_psn), std_ext.cum_psn);
	ck_assert_uint_eq(be64toh(ext.sack), std_ext.sack);

	/* Ethernet padding to 80 bytes changes nothing. */
	memset(f + len, 0, 2);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len + 2, 0, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_ACK);
	ck_assert_uint_eq(info.payload_size,
			  OFAN_AETH_SIZE + OFAN_ACK_EXT_SIZE);
}
END_TEST

START_TEST(test_parse_arp)
{
	static const uint8_t zero[6];
	struct ofan_pkt_info info;
	uint8_t f[64];
	int len;

	len = ofan_build_arp(f, sizeof(f), OFAN_ARP_OP_REQUEST, mac_a,
			     IP(10, 0, 0, 1), zero, IP(10, 0, 0, 254));
	ck_assert_int_eq(parse_exact(f, (uint32_t)len, 0, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_ARP);
	ck_assert_uint_eq(info.l3_offset, L3);
	ck_assert_uint_eq(info.arp_oper, OFAN_ARP_OP_REQUEST);
	ck_assert_uint_eq(info.arp_spa, IP(10, 0, 0, 1));
	ck_assert_uint_eq(info.arp_tpa, IP(10, 0, 0, 254));
	ck_assert_mem_eq(info.arp_sha, mac_a, 6);
	ck_assert_uint_eq(info.src_ip, 0);

	len = ofan_build_arp(f, sizeof(f), OFAN_ARP_OP_REPLY, mac_b,
			     IP(10, 0, 0, 254), mac_a, IP(10, 0, 0, 1));
	/* Padded to the Ethernet minimum, as it arrives from a NIC. */
	memset(f + len, 0, 60 - (size_t)len);
	ck_assert_int_eq(parse_exact(f, 60, OFAN_PARSE_F_VERIFY_CSUM, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_ARP);
	ck_assert_uint_eq(info.arp_oper, OFAN_ARP_OP_REPLY);
	ck_assert_uint_eq(info.arp_spa, IP(10, 0, 0, 254));
	ck_assert_uint_eq(info.arp_tpa, IP(10, 0, 0, 1));
	ck_assert_mem_eq(info.arp_sha, mac_b, 6);
}
END_TEST

START_TEST(test_parse_vlan)
{
	struct ofan_pkt_info info;
	uint8_t f[FRAME_MAX];
	int len;

	len = add_vlan(f, make_data(f, 32), OFAN_ETHER_TYPE_VLAN);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len,
				     OFAN_PARSE_F_VERIFY_CSUM, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_DATA);
	ck_assert_uint_eq(info.l3_offset, L3 + 4);
	ck_assert_uint_eq(info.l4_offset, L4 + 4);
	ck_assert_uint_eq(info.payload_offset, PAYLOAD + 4);
	ck_assert_uint_eq(info.payload_size, 32);
	ck_assert_uint_eq(info.dst_ip, IP(10, 1, 0, 2));
	ck_assert_uint_eq(info.psn, 0x234567);

	len = ofan_build_arp(f, sizeof(f), OFAN_ARP_OP_REPLY, mac_b,
			     IP(10, 0, 0, 254), mac_a, IP(10, 0, 0, 1));
	len = add_vlan(f, len, OFAN_ETHER_TYPE_VLAN);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len, 0, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_ARP);
	ck_assert_uint_eq(info.l3_offset, L3 + 4);
	ck_assert_uint_eq(info.arp_tpa, IP(10, 0, 0, 1));
}
END_TEST

/* Turn the data frame in f into protocol proto with l4_size bytes of L4. */
static int
make_l4(uint8_t *f, uint8_t proto, uint16_t l4_size)
{
	make_data(f, 64);
	f[L3 + 9] = proto;
	wr16(f + L3 + 2, (uint16_t)(OFAN_IPV4_HDR_SIZE + l4_size));
	fix_csum(f, L3);
	return L4 + l4_size;
}

START_TEST(test_parse_other)
{
	struct ofan_pkt_info info;
	uint8_t f[FRAME_MAX];
	int len;

	/* TCP: ports are read. */
	len = make_l4(f, OFAN_IPPROTO_TCP, 20);
	wr16(f + L4, 1234);
	wr16(f + L4 + 2, 80);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len,
				     OFAN_PARSE_F_VERIFY_CSUM, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_OTHER);
	ck_assert_uint_eq(info.proto, OFAN_IPPROTO_TCP);
	ck_assert_uint_eq(info.src_port, 1234);
	ck_assert_uint_eq(info.dst_port, 80);
	ck_assert_uint_eq(info.l4_offset, L4);
	ck_assert_uint_eq(info.psn, 0);

	/* TCP cut inside the ports is forwarded on L3 with ports 0. */
	len = make_l4(f, OFAN_IPPROTO_TCP, 3);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len, 0, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_OTHER);
	ck_assert_uint_eq(info.src_port, 0);
	ck_assert_uint_eq(info.dst_port, 0);

	/* ICMP. */
	len = make_l4(f, OFAN_IPPROTO_ICMP, 8);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len, 0, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_OTHER);
	ck_assert_uint_eq(info.proto, OFAN_IPPROTO_ICMP);
	ck_assert_uint_eq(info.src_port, 0);

	/* UDP to another port is not RoCE, however short. */
	len = make_data(f, 64);
	wr16(f + L4 + 2, 53);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len, 0, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_OTHER);
	ck_assert_uint_eq(info.dst_port, 53);
	ck_assert_uint_eq(info.src_port, 0xc001);
	ck_assert_uint_eq(info.dest_qp, 0);
	len = make_l4(f, OFAN_IPPROTO_UDP, 8);
	wr16(f + L4 + 2, 53);
	wr16(f + L4 + 4, 8);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len, 0, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_OTHER);

	/* A later fragment has no L4 header: OTHER with ports 0. */
	len = make_l4(f, OFAN_IPPROTO_UDP, 2);
	wr16(f + L3 + 6, 0x00b9);
	fix_csum(f, L3);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len,
				     OFAN_PARSE_F_VERIFY_CSUM, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_OTHER);
	ck_assert_uint_eq(info.src_port, 0);
	ck_assert_uint_eq(info.dst_port, 0);

	/*
	 * A first fragment (MF, offset 0) of a RoCE datagram: the UDP length
	 * covers the whole datagram, so it is OTHER with its ports.
	 */
	len = make_data(f, 64);
	wr16(f + L3 + 2, 20 + 8 + 12 + 16);
	wr16(f + L3 + 6, 0x2000);
	fix_csum(f, L3);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len, 0, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.kind, OFAN_KIND_OTHER);
	ck_assert_uint_eq(info.src_port, 0xc001);
	ck_assert_uint_eq(info.dst_port, OFAN_UDP_PORT_ROCEV2);
}
END_TEST

START_TEST(test_parse_flags)
{
	struct ofan_pkt_info info;
	uint8_t f[FRAME_MAX];
	int len;

	/* A host accepts TTL 1 when told to; a switch does not. */
	len = make_data(f, 8);
	f[L3 + 8] = 1;
	fix_csum(f, L3);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len, 0, &info),
			 OFAN_DROP_TTL_EXPIRED);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len,
				     OFAN_PARSE_F_NO_TTL_CHECK, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.ttl, 1);
	ck_assert_uint_eq(info.kind, OFAN_KIND_DATA);

	/* A bad checksum only matters when it is verified. */
	len = make_data(f, 8);
	f[L3 + 10] ^= 0x40;
	ck_assert_int_eq(parse_exact(f, (uint32_t)len, 0, &info),
			 OFAN_PARSE_OK);
	ck_assert_int_eq(parse_exact(f, (uint32_t)len,
				     OFAN_PARSE_F_VERIFY_CSUM, &info),
			 OFAN_DROP_BAD_CHECKSUM);

	/* Checksum over IPv4 options too. */
	len = make_data(f, 8);
	memmove(f + L4 + 4, f + L4, (size_t)len - L4);
	memset(f + L4, 1, 4);	/* four NOP options */
	f[L3] = 0x46;
	wr16(f + L3 + 2, (uint16_t)(rd16(f + L3 + 2) + 4));
	fix_csum(f, L3);
	len += 4;
	ck_assert_int_eq(parse_exact(f, (uint32_t)len,
				     OFAN_PARSE_F_VERIFY_CSUM, &info),
			 OFAN_PARSE_OK);
	ck_assert_uint_eq(info.l4_offset, L4 + 4);
	ck_assert_uint_eq(info.payload_offset, PAYLOAD + 4);
	ck_assert_uint_eq(info.payload_size, 8);
	f[L4] = 0;
	ck_assert_int_eq(parse_exact(f, (uint32_t)len,
				     OFAN_PARSE_F_VERIFY_CSUM, &info),
			 OFAN_DROP_BAD_CHECKSUM);
}
END_TEST

/*
 * One crafted frame per parser drop reason (some reasons have several
 * causes and several frames).  Each builder writes the frame into f and
 * returns its length; all but the bad checksum carry a valid checksum and
 * all are parsed with checksum verification on.
 */
struct drop_case {
	const char *name;
	enum ofan_drop expect;
	int (*make)(uint8_t *f);
};

static int
runt_empty(uint8_t *f)
{
	(void)f;
	return 0;
}

static int
runt_13(uint8_t *f)
{
	make_data(f, 8);
	return 13;
}

static int
runt_vlan(uint8_t *f)
{
	add_vlan(f, make_data(f, 8), OFAN_ETHER_TYPE_VLAN);
	return 17;
}

static int
not_ipv4_ipv6(uint8_t *f)
{
	int len = make_data(f, 20);

	wr16(f + 12, OFAN_ETHER_TYPE_IPV6);
	f[L3] = 0x60;
	return len;
}

static int
not_ipv4_lldp(uint8_t *f)
{
	int len = make_data(f, 20);

	wr16(f + 12, 0x88cc);
	return len;
}

/* MAC control: a PFC frame cut inside its quanta, and an unknown opcode. */
static int
mac_ctrl_short(uint8_t *f)
{
	static const uint8_t src[6] = { 2, 0, 0, 0, 0, 1 };

	ofan_build_pfc(f, OFAN_PFC_FRAME_SIZE, src, 1u << 3, 100);
	return OFAN_ETH_HDR_SIZE + OFAN_PFC_BODY_SIZE - 1;
}

static int
mac_ctrl_opcode(uint8_t *f)
{
	static const uint8_t src[6] = { 2, 0, 0, 0, 0, 1 };

	ofan_build_pfc(f, OFAN_PFC_FRAME_SIZE, src, 1u << 3, 100);
	f[OFAN_ETH_HDR_SIZE + 1] = 0x02;	/* 0x0102: not ours */
	return OFAN_PFC_FRAME_SIZE;
}

static int
not_ipv4_double_vlan(uint8_t *f)
{
	int len = make_data(f, 20);

	len = add_vlan(f, len, OFAN_ETHER_TYPE_VLAN);
	return add_vlan(f, len, OFAN_ETHER_TYPE_VLAN);
}

static int
not_ipv4_qinq(uint8_t *f)
{
	/* An 802.1ad service tag is not skipped. */
	return add_vlan(f, make_data(f, 20), 0x88a8);
}

static int
arp_good(uint8_t *f)
{
	return ofan_build_arp(f, FRAME_MAX, OFAN_ARP_OP_REQUEST, mac_a,
			      IP(10, 0, 0, 1), mac_b, IP(10, 0, 0, 2));
}

static int
arp_short(uint8_t *f)
{
	return arp_good(f) - 1;
}

static int
arp_htype(uint8_t *f)
{
	int len = arp_good(f);

	wr16(f + L3, 6);
	return len;
}

static int
arp_ptype(uint8_t *f)
{
	int len = arp_good(f);

	wr16(f + L3 + 2, OFAN_ETHER_TYPE_IPV6);
	return len;
}

static int
arp_hlen(uint8_t *f)
{
	int len = arp_good(f);

	f[L3 + 4] = 8;
	return len;
}

static int
arp_plen(uint8_t *f)
{
	int len = arp_good(f);

	f[L3 + 5] = 16;
	return len;
}

static int
arp_oper_3(uint8_t *f)
{
	int len = arp_good(f);

	wr16(f + L3 + 6, 3);
	return len;
}

static int
arp_oper_0(uint8_t *f)
{
	int len = arp_good(f);

	wr16(f + L3 + 6, 0);
	return len;
}

static int
ip_truncated(uint8_t *f)
{
	make_data(f, 8);
	return L3 + OFAN_IPV4_HDR_SIZE - 1;
}

static int
ip_truncated_vlan(uint8_t *f)
{
	add_vlan(f, make_data(f, 8), OFAN_ETHER_TYPE_VLAN);
	return L3 + 4 + OFAN_IPV4_HDR_SIZE - 1;
}

static int
bad_version(uint8_t *f)
{
	int len = make_data(f, 8);

	f[L3] = 0x65;
	fix_csum(f, L3);
	return len;
}

static int
bad_ihl_4(uint8_t *f)
{
	int len = make_data(f, 8);

	f[L3] = 0x44;
	fix_csum(f, L3);
	return len;
}

static int
bad_ihl_0(uint8_t *f)
{
	int len = make_data(f, 8);

	f[L3] = 0x40;
	return len;
}

static int
bad_ihl_15(uint8_t *f)
{
	/* 60 bytes of header from offset 14 need 74; the frame has 62. */
	int len = make_data(f, 8);

	f[L3] = 0x4f;
	return len;
}

static int
bad_total_length_small(uint8_t *f)
{
	int len = make_data(f, 8);

	wr16(f + L3 + 2, OFAN_IPV4_HDR_SIZE - 1);
	fix_csum(f, L3);
	return len;
}

static int
bad_total_length_large(uint8_t *f)
{
	int len = make_data(f, 8);

	wr16(f + L3 + 2, (uint16_t)(len - L3 + 1));
	fix_csum(f, L3);
	return len;
}

static int
bad_checksum(uint8_t *f)
{
	int len = make_data(f, 8);

	f[L3 + 11] ^= 0x01;
	return len;
}

static int
ttl_1(uint8_t *f)
{
	int len = make_data(f, 8);

	f[L3 + 8] = 1;
	fix_csum(f, L3);
	return len;
}

static int
ttl_0(uint8_t *f)
{
	int len = make_data(f, 8);

	f[L3 + 8] = 0;
	fix_csum(f, L3);
	return len;
}

static int
udp_no_header(uint8_t *f)
{
	/* IPv4 says 4 bytes of UDP; the rest of the frame is padding. */
	int len = make_data(f, 8);

	wr16(f + L3 + 2, OFAN_IPV4_HDR_SIZE + 4);
	fix_csum(f, L3);
	return len;
}

static int
udp_length_small(uint8_t *f)
{
	int len = make_data(f, 8);

	wr16(f + L4 + 4, 7);
	return len;
}

static int
udp_length_large(uint8_t *f)
{
	int len = make_data(f, 8);

	wr16(f + L4 + 4, (uint16_t)(rd16(f + L4 + 4) + 1));
	return len;
}

/* Cut the IPv4 packet in f to ip_len bytes, UDP length following. */
static int
shorten_ip(uint8_t *f, uint16_t ip_len)
{
	wr16(f + L3 + 2, ip_len);
	wr16(f + L4 + 4, (uint16_t)(ip_len - OFAN_IPV4_HDR_SIZE));
	fix_csum(f, L3);
	return L3 + ip_len;
}

static int
bth_short(uint8_t *f)
{
	make_data(f, 8);
	return shorten_ip(f, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE +
			  OFAN_BTH_SIZE - 1);
}

static int
bth_short_padded(uint8_t *f)
{
	/* The frame holds a BTH, but it lies past the IPv4 length. */
	int len = make_data(f, 8);

	shorten_ip(f, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE);
	return len;
}

static int
ack_no_ext(uint8_t *f)
{
	make_ack(f);
	return shorten_ip(f, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE +
			  OFAN_BTH_SIZE + OFAN_AETH_SIZE);
}

static int
ack_short_ext(uint8_t *f)
{
	make_ack(f);
	return shorten_ip(f, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE +
			  OFAN_BTH_SIZE + OFAN_AETH_SIZE +
			  OFAN_ACK_EXT_SIZE - 1);
}

static const struct drop_case drop_cases[] = {
	{ "runt_empty", OFAN_DROP_RUNT, runt_empty },
	{ "runt_13", OFAN_DROP_RUNT, runt_13 },
	{ "runt_vlan", OFAN_DROP_RUNT, runt_vlan },
	{ "ipv6", OFAN_DROP_NOT_IPV4, not_ipv4_ipv6 },
	{ "lldp", OFAN_DROP_NOT_IPV4, not_ipv4_lldp },
	{ "pfc_short", OFAN_DROP_MAC_CTRL_MALFORMED, mac_ctrl_short },
	{ "mac_ctrl_opcode", OFAN_DROP_MAC_CTRL_MALFORMED, mac_ctrl_opcode },
	{ "double_vlan", OFAN_DROP_NOT_IPV4, not_ipv4_double_vlan },
	{ "qinq", OFAN_DROP_NOT_IPV4, not_ipv4_qinq },
	{ "arp_short", OFAN_DROP_ARP_MALFORMED, arp_short },
	{ "arp_htype", OFAN_DROP_ARP_MALFORMED, arp_htype },
	{ "arp_ptype", OFAN_DROP_ARP_MALFORMED, arp_ptype },
	{ "arp_hlen", OFAN_DROP_ARP_MALFORMED, arp_hlen },
	{ "arp_plen", OFAN_DROP_ARP_MALFORMED, arp_plen },
	{ "arp_oper_3", OFAN_DROP_ARP_MALFORMED, arp_oper_3 },
	{ "arp_oper_0", OFAN_DROP_ARP_MALFORMED, arp_oper_0 },
	{ "ip_truncated", OFAN_DROP_IP_TRUNCATED, ip_truncated },
	{ "ip_truncated_vlan", OFAN_DROP_IP_TRUNCATED, ip_truncated_vlan },
	{ "bad_version", OFAN_DROP_BAD_VERSION, bad_version },
	{ "bad_ihl_4", OFAN_DROP_BAD_IHL, bad_ihl_4 },
	{ "bad_ihl_0", OFAN_DROP_BAD_IHL, bad_ihl_0 },
	{ "bad_ihl_15", OFAN_DROP_BAD_IHL, bad_ihl_15 },
	{ "total_length_small", OFAN_DROP_BAD_TOTAL_LENGTH,
	  bad_total_length_small },
	{ "total_length_large", OFAN_DROP_BAD_TOTAL_LENGTH,
	  bad_total_length_large },
	{ "bad_checksum", OFAN_DROP_BAD_CHECKSUM, bad_checksum },
	{ "ttl_1", OFAN_DROP_TTL_EXPIRED, ttl_1 },
	{ "ttl_0", OFAN_DROP_TTL_EXPIRED, ttl_0 },
	{ "udp_no_header", OFAN_DROP_UDP_TRUNCATED, udp_no_header },
	{ "udp_length_small", OFAN_DROP_UDP_TRUNCATED, udp_length_small },
	{ "udp_length_large", OFAN_DROP_UDP_TRUNCATED, udp_length_large },
	{ "bth_short", OFAN_DROP_BTH_TRUNCATED, bth_short },
	{ "bth_short_padded", OFAN_DROP_BTH_TRUNCATED, bth_short_padded },
	{ "ack_no_ext", OFAN_DROP_ACK_TRUNCATED, ack_no_ext },
	{ "ack_short_ext", OFAN_DROP_ACK_TRUNCATED, ack_short_ext },
};

#define NB_DROP_CASES ((int)(sizeof(drop_cases) / sizeof(drop_cases[0])))

START_TEST(test_drop_case)
{
	const struct drop_case *c = &drop_cases[_i];
	struct ofan_pkt_info info;
	uint8_t f[FRAME_MAX];
	int len;
	int ret;

	memset(f, 0, sizeof(f));
	len = c->make(f);
	ck_assert_int_ge(len, 0);
	ret = parse_exact(f, (uint32_t)len, OFAN_PARSE_F_VERIFY_CSUM, &info);
	ck_assert_msg(ret == (int)c->expect, "%s: got %s, expected %s",
		      c->name, ret < 0 ? "ok" : ofan_drop_name(ret),
		      ofan_drop_name(c->expect));
}
END_TEST

START_TEST(test_drop_cases_cover_parser)
{
	enum ofan_drop r;
	int i;

	/* The parser's reasons are the ones listed before NO_ROUTE. */
	for (r = 0; r < OFAN_DROP_NO_ROUTE; r++) {
		for (i = 0; i < NB_DROP_CASES; i++)
			if (drop_cases[i].expect == r)
				break;
		ck_assert_msg(i < NB_DROP_CASES, "no frame triggers %s",
			      ofan_drop_name(r));
	}
}
END_TEST

/*
 * Expected parse result of a data packet or ACK cut to len bytes without
 * touching its headers: the IPv4 total length then lies beyond the frame.
 */
static int
expect_cut(uint32_t len, uint32_t full)
{
	if (len < OFAN_ETH_HDR_SIZE)
		return OFAN_DROP_RUNT;
	if (len < L4)
		return OFAN_DROP_IP_TRUNCATED;
	if (len < full)
		return OFAN_DROP_BAD_TOTAL_LENGTH;
	return OFAN_PARSE_OK;
}

static void
check_cuts(const uint8_t *f, uint32_t full)
{
	struct ofan_pkt_info info;
	uint32_t len;
	int ret;

	for (len = 0; len <= full; len++) {
		ret = parse_exact(f, len, OFAN_PARSE_F_VERIFY_CSUM, &info);
		ck_assert_msg(ret == expect_cut(len, full),
			      "cut to %u: got %d", len, ret);
		ret = parse_exact(f, len, OFAN_PARSE_F_NO_TTL_CHECK, &info);
		ck_assert_int_eq(ret, expect_cut(len, full));
	}
}

START_TEST(test_truncate_data)
{
	uint8_t f[FRAME_MAX];

	check_cuts(f, (uint32_t)make_data(f, 100));
}
END_TEST

START_TEST(test_truncate_ack)
{
	uint8_t f[FRAME_MAX];

	check_cuts(f, (uint32_t)make_ack(f));
}
END_TEST

/*
 * Cut the IPv4 packet itself, keeping IPv4 and UDP lengths and the
 * checksum consistent, so that the parser has to find the missing UDP
 * header, BTH or ACK extension from the lengths.
 */
START_TEST(test_truncate_consistent)
{
	struct ofan_pkt_info info;
	uint8_t f[FRAME_MAX];
	uint32_t ip_len;
	uint32_t full;
	int is_ack;
	int expect;
	int ret;
	int len;

	for (is_ack = 0; is_ack <= 1; is_ack++) {
		full = is_ack ? OFAN_ACK_FRAME_SIZE : OFAN_DATA_HDRS_SIZE + 40;
		for (ip_len = OFAN_IPV4_HDR_SIZE; ip_len <= full - L3;
		     ip_len++) {
			if (is_ack)
				make_ack(f);
			else
				make_data(f, 40);
			if (ip_len < OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE) {
				wr16(f + L3 + 2, (uint16_t)ip_len);
				fix_csum(f, L3);
				len = (int)(L3 + ip_len);
			} else {
				len = shorten_ip(f, (uint16_t)ip_len);
			}
			ret = parse_exact(f, (uint32_t)len,
					  OFAN_PARSE_F_VERIFY_CSUM, &info);
			if (ip_len < OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE)
				expect = OFAN_DROP_UDP_TRUNCATED;
			else if ((uint32_t)len < OFAN_DATA_HDRS_SIZE)
				expect = OFAN_DROP_BTH_TRUNCATED;
			else if (is_ack && (uint32_t)len < full)
				expect = OFAN_DROP_ACK_TRUNCATED;
			else
				expect = OFAN_PARSE_OK;
			ck_assert_msg(ret == expect, "%s ip_len %u: got %d",
				      is_ack ? "ack" : "data", ip_len, ret);
			if (ret == OFAN_PARSE_OK && !is_ack)
				ck_assert_uint_eq(info.payload_size,
						  (uint32_t)len - PAYLOAD);
		}
	}
}
END_TEST

START_TEST(test_drop_names)
{
	int i;
	int j;

	for (i = 0; i < OFAN_DROP_MAX; i++) {
		ck_assert_ptr_nonnull(ofan_drop_name(i));
		ck_assert_ptr_nonnull(ofan_drop_help(i));
		ck_assert_uint_gt(strlen(ofan_drop_name(i)), 0);
		ck_assert_uint_gt(strlen(ofan_drop_help(i)), 0);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(ofan_drop_name(i),
					 ofan_drop_name(j));
	}
	ck_assert_str_eq(ofan_drop_name(OFAN_DROP_TTL_EXPIRED),
			 "ttl_expired");
	ck_assert_str_eq(ofan_drop_name(OFAN_DROP_MAX), "unknown");
	ck_assert_str_eq(ofan_drop_name((enum ofan_drop)-1), "unknown");
}
END_TEST

/* pcap. */

static void
tmp_path(char *path, size_t size, const char *name)
{
	const char *dir = getenv("TMPDIR");

	snprintf(path, size, "%s/ofan-test-parse-%ld-%s",
		 dir != NULL ? dir : "/tmp", (long)getpid(), name);
}

START_TEST(test_pcap_round_trip)
{
	static const uint64_t ts[3] = {
		0, 1000000001ull, 1700000000123456789ull
	};
	struct ofan_pcap_writer *w;
	struct ofan_pcap_reader *r;
	uint8_t frames[3][FRAME_MAX];
	uint32_t lens[3];
	const uint8_t *frame;
	uint32_t caplen;
	uint32_t wirelen;
	uint64_t ts_ns;
	char path[256];
	char err[512];
	int i;

	tmp_path(path, sizeof(path), "rt.pcap");
	lens[0] = (uint32_t)make_data(frames[0], 1000);
	lens[1] = (uint32_t)make_ack(frames[1]);
	lens[2] = (uint32_t)arp_good(frames[2]);

	w = ofan_pcap_writer_open(path, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	for (i = 0; i < 3; i++)
		ofan_pcap_write(w, frames[i], lens[i], ts[i]);
	ck_assert_int_eq(ofan_pcap_writer_close(w), 0);

	r = ofan_pcap_reader_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(ofan_pcap_read(r, &frame, &caplen, &wirelen,
						&ts_ns), 1);
		ck_assert_uint_eq(caplen, lens[i]);
		ck_assert_uint_eq(wirelen, lens[i]);
		ck_assert_uint_eq(ts_ns, ts[i]);
		ck_assert_mem_eq(frame, frames[i], lens[i]);
	}
	ck_assert_int_eq(ofan_pcap_read(r, &frame, &caplen, &wirelen, &ts_ns),
			 0);
	ofan_pcap_reader_close(r);
	unlink(path);
}
END_TEST

START_TEST(test_pcap_errors)
{
	const char *missing = "/nonexistent-ofan-dir/x.pcap";
	char path[256];
	char err[512];
	FILE *fp;

	err[0] = '\0';
	ck_assert_ptr_null(ofan_pcap_writer_open(missing, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, missing));
	err[0] = '\0';
	ck_assert_ptr_null(ofan_pcap_reader_open(missing, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, missing));

	/* A file that is not a pcap. */
	tmp_path(path, sizeof(path), "junk.pcap");
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("not a pcap file at all\n", fp);
	fclose(fp);
	err[0] = '\0';
	ck_assert_ptr_null(ofan_pcap_reader_open(path, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, path));
	unlink(path);
}
END_TEST

static Suite *
parse_suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc;

	tc = tcase_create("wire");
	/*
	 * test_payload_fill_check flips bytes all along 4 KiB payloads: 0.7 s
	 * alone, over Check's 4 s default on a machine busy with a soak.
	 */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_checksum_known_header);
	tcase_add_test(tc, test_pfc_frame);
	tcase_add_test(tc, test_pfc_pause_ran);
	tcase_add_test(tc, test_build_data_bytes);
	tcase_add_test(tc, test_payload_fill_check);
	tcase_add_test(tc, test_fast_path_agrees);
	tcase_add_test(tc, test_build_data_sizes);
	tcase_add_test(tc, test_build_data_payload_varies);
	tcase_add_test(tc, test_build_ack_bytes);
	tcase_add_test(tc, test_build_arp_bytes);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_data);
	tcase_add_test(tc, test_parse_ack);
	tcase_add_test(tc, test_parse_arp);
	tcase_add_test(tc, test_parse_vlan);
	tcase_add_test(tc, test_parse_other);
	tcase_add_test(tc, test_parse_flags);
	tcase_add_test(tc, test_drop_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("drops");
	tcase_add_loop_test(tc, test_drop_case, 0, NB_DROP_CASES);
	tcase_add_test(tc, test_drop_cases_cover_parser);
	tcase_add_test(tc, test_truncate_data);
	tcase_add_test(tc, test_truncate_ack);
	tcase_add_test(tc, test_truncate_consistent);
	suite_add_tcase(s, tc);

	tc = tcase_create("pcap");
	tcase_add_test(tc, test_pcap_round_trip);
	tcase_add_test(tc, test_pcap_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(parse_suite());
}
