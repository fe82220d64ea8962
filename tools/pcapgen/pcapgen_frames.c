/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-pcapgen's crafted frames (pcapgen_frames.h).  Each maker writes
 * one frame into f (PCAPGEN_FRAME_BUF_SIZE bytes, zeroed) and returns
 * its length.  All start from the same data packet, ACK, ARP or PFC frame
 * and change one thing; all but bad_ip_checksum keep a valid IPv4
 * checksum.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ofan_parse.h"
#include "ofan_wire.h"
#include "pcapgen_frames.h"

#define ETH_MIN_FRAME		60
#define VLAN_TAG_SIZE		4

#define IPV4(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static struct ofan_ipv4_hdr *
ip_of(uint8_t *f)
{
	return (struct ofan_ipv4_hdr *)(f + OFAN_ETH_HDR_SIZE);
}

static void
fix_csum(uint8_t *f)
{
	struct ofan_ipv4_hdr *ip = ip_of(f);

	ip->checksum = 0;
	ip->checksum = ofan_ipv4_checksum(ip, (ip->version_ihl & 0xf) * 4u);
}

static struct ofan_pkt_spec
base_spec(uint16_t payload_size)
{
	struct ofan_pkt_spec spec = {
		.src_ip = IPV4(10, 0, 0, 1),
		.dst_ip = IPV4(10, 1, 0, 1),
		.ev = 49152,
		.tos = OFAN_ECN_ECT0,
		.dest_qp = 1,
		.psn = 0,
		.payload_size = payload_size,
	};

	memcpy(spec.src_mac, mac_a, 6);
	memcpy(spec.dst_mac, mac_b, 6);
	return spec;
}

/* A data frame of exactly the Ethernet minimum (60 bytes, no FCS). */
static int
data_min(uint8_t *f)
{
	struct ofan_pkt_spec spec = base_spec(ETH_MIN_FRAME -
					      OFAN_DATA_HDRS_SIZE);

	return ofan_build_data(f, PCAPGEN_FRAME_BUF_SIZE, &spec);
}

/* Set the IPv4 total length (and the UDP length to match) of f. */
static void
set_ip_len(uint8_t *f, uint16_t ip_len)
{
	struct ofan_ipv4_hdr *ip = ip_of(f);
	struct ofan_udp_hdr *udp = (struct ofan_udp_hdr *)(ip + 1);

	ip->total_length = htons(ip_len);
	if (ip_len >= OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE)
		udp->length = htons(ip_len - OFAN_IPV4_HDR_SIZE);
	fix_csum(f);
}

static int
pad(int len)
{
	return len < ETH_MIN_FRAME ? ETH_MIN_FRAME : len;
}

static int
make_runt(uint8_t *f)
{
	data_min(f);
	return 12;
}

static int
make_ipv6(uint8_t *f)
{
	static const uint8_t hdr[40 + 8] = {
		0x60, 0, 0, 0, 0x00, 0x10, OFAN_IPPROTO_UDP, 64,
		0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		0xc0, 0x00, 0x12, 0xb7, 0x00, 0x10, 0x00, 0x00,
	};

	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	wr16(f + 12, OFAN_ETHER_TYPE_IPV6);
	memcpy(f + OFAN_ETH_HDR_SIZE, hdr, sizeof(hdr));
	return OFAN_ETH_HDR_SIZE + (int)sizeof(hdr) + 8;
}

static int
make_arp_request(uint8_t *f)
{
	static const uint8_t unknown[6];

	return pad(ofan_build_arp(f, PCAPGEN_FRAME_BUF_SIZE, OFAN_ARP_OP_REQUEST,
				  mac_a, IPV4(10, 0, 0, 1), unknown,
				  IPV4(10, 0, 0, 254)));
}

static int
make_arp_reply(uint8_t *f)
{
	return pad(ofan_build_arp(f, PCAPGEN_FRAME_BUF_SIZE, OFAN_ARP_OP_REPLY,
				  mac_b, IPV4(10, 0, 0, 254), mac_a,
				  IPV4(10, 0, 0, 1)));
}

static int
make_arp_bad_htype(uint8_t *f)
{
	int len = make_arp_request(f);

	wr16(f + OFAN_ETH_HDR_SIZE, 6);
	return len;
}

static int
make_ip_truncated(uint8_t *f)
{
	data_min(f);
	return OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE - 1;
}

static int
make_bad_version(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->version_ihl = 6 << 4 | 5;
	fix_csum(f);
	return len;
}

static int
make_ihl_4(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->version_ihl = 4 << 4 | 4;
	fix_csum(f);
	return len;
}

static int
make_ihl_15(uint8_t *f)
{
	/* 60 bytes of header would end at 74, past the 60-byte frame. */
	int len = data_min(f);

	ip_of(f)->version_ihl = 4 << 4 | 15;
	return len;
}

static int
make_total_length_small(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->total_length = htons(OFAN_IPV4_HDR_SIZE - 1);
	fix_csum(f);
	return len;
}

static int
make_total_length_large(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->total_length = htons((uint16_t)(len -
						  OFAN_ETH_HDR_SIZE + 1));
	fix_csum(f);
	return len;
}

static int
make_bad_checksum(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->checksum ^= htons(0x0001);
	return len;
}

static int
make_ttl_1(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->ttl = 1;
	fix_csum(f);
	return len;
}

static int
make_ttl_0(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->ttl = 0;
	fix_csum(f);
	return len;
}

static int
make_udp_truncated(uint8_t *f)
{
	/* IPv4 ends 4 bytes into UDP; the rest is Ethernet padding. */
	int len = data_min(f);

	set_ip_len(f, OFAN_IPV4_HDR_SIZE + 4);
	return len;
}

static int
make_bth_truncated(uint8_t *f)
{
	int len = data_min(f);

	set_ip_len(f, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE + 8);
	return len;
}

static int
make_ack(uint8_t *f)
{
	struct ofan_pkt_spec spec = base_spec(0);
	struct ofan_ack_ext ext = {
		.echo_ev = spec.ev,
		.echo_psn = 7,
		.cum_psn = 8,
	};

	return ofan_build_ack(f, PCAPGEN_FRAME_BUF_SIZE, &spec, &ext);
}

static int
make_ack_truncated(uint8_t *f)
{
	int len = make_ack(f);

	/* AETH and 10 of the 20 bytes of the feedback extension. */
	set_ip_len(f, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE +
		   OFAN_AETH_SIZE + 10);
	return len - 10;
}

static int
make_data(uint8_t *f)
{
	struct ofan_pkt_spec spec = base_spec(128 - OFAN_DATA_HDRS_SIZE);

	return ofan_build_data(f, PCAPGEN_FRAME_BUF_SIZE, &spec);
}


/* ---- MAC control: PFC (802.1Qbb) and pause (802.3x) ---- */

/* A PFC frame from mac_a: quanta for the classes in cev, 0 elsewhere. */
static int
pfc(uint8_t *f, uint8_t cev, uint16_t quanta)
{
	return ofan_build_pfc(f, PCAPGEN_FRAME_BUF_SIZE, mac_a, cev, quanta);
}

static int
make_pfc_p3(uint8_t *f)
{
	return pfc(f, 1u << 3, 0xffff);
}

/* Every class resumed at once. */
static int
make_pfc_all_resume(uint8_t *f)
{
	return pfc(f, 0xff, 0);
}

/* No class enabled: quanta in the body that no receiver may obey. */
static int
make_pfc_none(uint8_t *f)
{
	int len = pfc(f, 0, 0);
	unsigned int p;

	for (p = 0; p < OFAN_PFC_PRIORITIES; p++)
		wr16(f + OFAN_ETH_HDR_SIZE + 4 + 2 * p, 0x100);
	return len;
}

/* Classes 0 and 5 for 1000 quanta; class 3 disabled but not zero. */
static int
make_pfc_p0_p5(uint8_t *f)
{
	int len = pfc(f, 1u << 0 | 1u << 5, 1000);

	wr16(f + OFAN_ETH_HDR_SIZE + 4 + 2 * 3, 0x7fff);
	return len;
}

/* An 802.3x pause: opcode 0x0001 and one quanta for the whole link. */
static int
pause_8023x(uint8_t *f, uint16_t quanta)
{
	int len = pfc(f, 0, 0);

	memset(f + OFAN_ETH_HDR_SIZE, 0, ETH_MIN_FRAME - OFAN_ETH_HDR_SIZE);
	wr16(f + OFAN_ETH_HDR_SIZE, OFAN_MAC_CTRL_OP_PAUSE);
	wr16(f + OFAN_ETH_HDR_SIZE + 2, quanta);
	return len;
}

static int
make_pause(uint8_t *f)
{
	return pause_8023x(f, 0x1234);
}

static int
make_pause_zero(uint8_t *f)
{
	return pause_8023x(f, 0);
}

/* Insert an 802.1Q tag (priority pcp, VLAN 0) after the MACs of f. */
static int
vlan_tag(uint8_t *f, int len, uint8_t pcp)
{
	memmove(f + 12 + VLAN_TAG_SIZE, f + 12, (size_t)len - 12);
	wr16(f + 12, OFAN_ETHER_TYPE_VLAN);
	wr16(f + 14, (uint16_t)(pcp << 13));
	return len + VLAN_TAG_SIZE;
}

static int
make_vlan_pfc(uint8_t *f)
{
	return vlan_tag(f, pfc(f, 1u << 3, 500), 3);
}

static int
make_vlan_pause(uint8_t *f)
{
	return vlan_tag(f, pause_8023x(f, 0xffff), 7);
}

/* An opcode other than pause and PFC (0x0002: a 802.3 GATE-like one). */
static int
make_mac_ctrl_opcode(uint8_t *f)
{
	int len = pfc(f, 1u << 3, 0xffff);

	wr16(f + OFAN_ETH_HDR_SIZE, 0x0002);
	return len;
}

/* A PFC frame that ends one byte before its last quanta does. */
static int
make_mac_ctrl_pfc_short(uint8_t *f)
{
	pfc(f, 1u << 3, 0xffff);
	return OFAN_ETH_HDR_SIZE + OFAN_PFC_BODY_SIZE - 1;
}

/* A pause that ends inside its quanta. */
static int
make_mac_ctrl_pause_short(uint8_t *f)
{
	pause_8023x(f, 0xffff);
	return OFAN_ETH_HDR_SIZE + OFAN_PAUSE_BODY_SIZE - 1;
}

/* One byte of opcode. */
static int
make_mac_ctrl_no_opcode(uint8_t *f)
{
	pfc(f, 1u << 3, 0xffff);
	return OFAN_ETH_HDR_SIZE + 1;
}

/* ---- RoCEv2 headers a switch marks, and feedback ---- */

/* The BTH of a frame without VLAN tag or IPv4 options. */
static uint8_t *
bth_of(uint8_t *f)
{
	return f + OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE;
}

/* A data frame cut to its headers and marked trimmed, as a switch does. */
static int
make_trimmed(uint8_t *f)
{
	int len = make_data(f);

	(void)len;
	bth_of(f)[OFAN_BTH_MARK_OFFSET] |= OFAN_BTH_MARK_TRIMMED;
	set_ip_len(f, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE);
	memset(f + OFAN_DATA_HDRS_SIZE, 0, ETH_MIN_FRAME - OFAN_DATA_HDRS_SIZE);
	return ETH_MIN_FRAME;
}

/* Trimmed, then returned to its sender: addresses swapped. */
static int
make_returned(uint8_t *f)
{
	int len = make_trimmed(f);
	struct ofan_ipv4_hdr *ip = ip_of(f);
	uint32_t a = ip->src_addr;

	ip->src_addr = ip->dst_addr;
	ip->dst_addr = a;
	fix_csum(f);
	bth_of(f)[OFAN_BTH_MARK_OFFSET] |= OFAN_BTH_MARK_RETURNED;
	return len;
}

/* Full size, marked trimmed (trim_size = full). */
static int
make_trimmed_full(uint8_t *f)
{
	int len = make_data(f);

	bth_of(f)[OFAN_BTH_MARK_OFFSET] |= OFAN_BTH_MARK_TRIMMED;
	return len;
}

/* A mark ofan does not define: endpoints send 0, switches pass it on. */
static int
make_unknown_mark(uint8_t *f)
{
	int len = make_data(f);

	bth_of(f)[OFAN_BTH_MARK_OFFSET] = 0x80;
	return len;
}

/* A NACK: the AETH's syndrome a PSN sequence error, for PSN 7. */
static int
make_nack(uint8_t *f)
{
	int len = make_ack(f);

	bth_of(f)[OFAN_BTH_SIZE] = OFAN_AETH_SYN_NAK_SEQ;
	return len;
}

/* An ACK echoing CE, and one carrying a count (erasure). */
static int
make_ack_flags(uint8_t *f, uint8_t flags)
{
	int len = make_ack(f);

	bth_of(f)[OFAN_BTH_SIZE + OFAN_AETH_SIZE +
		  offsetof(struct ofan_ack_ext, flags)] = flags;
	return len;
}

static int
make_ack_ce(uint8_t *f)
{
	return make_ack_flags(f, OFAN_ACK_F_CE);
}

static int
make_ack_count(uint8_t *f)
{
	return make_ack_flags(f, OFAN_ACK_F_COUNT);
}

/*
 * A RoCEv2 CNP (BTH opcode 0x81, 16 reserved bytes): congestion
 * notification to a DCQCN sender.  ofan does not act on CNPs (no DCQCN yet);
 * its parser reads one as data.
 */
#define BTH_OP_CNP 0x81

static int
make_cnp(uint8_t *f)
{
	struct ofan_pkt_spec spec = base_spec(16);
	int len = ofan_build_data(f, PCAPGEN_FRAME_BUF_SIZE, &spec);

	bth_of(f)[0] = BTH_OP_CNP;
	memset(f + OFAN_DATA_HDRS_SIZE, 0, 16);
	return pad(len);
}

/* A data frame with an 802.1Q tag (the switch's slow parse). */
static int
make_vlan_data(uint8_t *f)
{
	return vlan_tag(f, make_data(f), 3);
}

const struct pcapgen_frame pcapgen_frames[] = {
	{ "runt", "runt", make_runt, false },
	{ "not_ipv4", "ipv6", make_ipv6, false },
	{ "mac_control_malformed", "mac_ctrl_opcode", make_mac_ctrl_opcode, false },
	{ "mac_control_malformed", "mac_ctrl_pfc_short", make_mac_ctrl_pfc_short, false },
	{ "mac_control_malformed", "mac_ctrl_pause_short", make_mac_ctrl_pause_short, false },
	{ "mac_control_malformed", "mac_ctrl_no_opcode", make_mac_ctrl_no_opcode, false },
	{ "arp_malformed", "arp_htype", make_arp_bad_htype, false },
	{ "ip_truncated", "ip_truncated", make_ip_truncated, false },
	{ "bad_version", "version_6", make_bad_version, false },
	{ "bad_ihl", "ihl_4", make_ihl_4, false },
	{ "bad_ihl", "ihl_15", make_ihl_15, false },
	{ "bad_total_length", "total_length_small", make_total_length_small, false },
	{ "bad_total_length", "total_length_large", make_total_length_large, false },
	{ "bad_ip_checksum", "bad_checksum", make_bad_checksum, false },
	{ "ttl_expired", "ttl_1", make_ttl_1, false },
	{ "ttl_expired", "ttl_0", make_ttl_0, false },
	{ "udp_truncated", "udp_truncated", make_udp_truncated, false },
	{ "bth_truncated", "bth_truncated", make_bth_truncated, false },
	{ "ack_truncated", "ack_truncated", make_ack_truncated, false },
	{ "good", "data", make_data, false },
	{ "good", "ack", make_ack, false },
	{ "good", "arp_request", make_arp_request, false },
	{ "good", "arp_reply", make_arp_reply, false },
	/* Seeds only: what peers send a switch besides data. */
	{ "good", "pfc_p3", make_pfc_p3, true },
	{ "good", "pfc_all_resume", make_pfc_all_resume, true },
	{ "good", "pfc_none", make_pfc_none, true },
	{ "good", "pfc_p0_p5", make_pfc_p0_p5, true },
	{ "good", "pause", make_pause, true },
	{ "good", "pause_zero", make_pause_zero, true },
	{ "good", "vlan_pfc", make_vlan_pfc, true },
	{ "good", "vlan_pause", make_vlan_pause, true },
	{ "good", "trimmed", make_trimmed, true },
	{ "good", "trimmed_full", make_trimmed_full, true },
	{ "good", "returned", make_returned, true },
	{ "good", "unknown_mark", make_unknown_mark, true },
	{ "good", "nack", make_nack, true },
	{ "good", "ack_ce", make_ack_ce, true },
	{ "good", "ack_count", make_ack_count, true },
	{ "good", "cnp", make_cnp, true },
	{ "good", "vlan_data", make_vlan_data, true },
};

const unsigned int pcapgen_nb_frames =
	sizeof(pcapgen_frames) / sizeof(pcapgen_frames[0]);

int
pcapgen_frame_build(unsigned int i, uint8_t *f, char *err, size_t err_size)
{
	const struct pcapgen_frame *c = &pcapgen_frames[i];
	struct ofan_pkt_info info;
	const char *got;
	int len, ret;

	memset(f, 0, PCAPGEN_FRAME_BUF_SIZE);
	len = c->make(f);
	if (len < 0) {
		snprintf(err, err_size, "frame '%s': %s", c->what,
			 strerror(-len));
		return len;
	}
	ret = ofan_parse(f, (uint32_t)len, OFAN_PARSE_F_VERIFY_CSUM, &info);
	got = ret == OFAN_PARSE_OK ? "good" : ofan_drop_name(ret);
	if (strcmp(got, c->reason) != 0) {
		snprintf(err, err_size, "frame '%s' parses as %s, not %s",
			 c->what, got, c->reason);
		return -EPROTO;
	}
	return len;
}
