/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of ofan-pcapgen's crafted frames (tools/pcapgen/
 * pcapgen_frames.c): what "malformed" and "seeds" promise the golden
 * test and the fuzzers.  Every parser drop reason has a frame in the
 * "malformed" pcap, so a reason added to OFAN_DROP_REASONS without one
 * fails here; each frame parses as its row says; and the seeds hold each
 * kind of frame a switch's peers send (PFC, pause, VLAN-tagged MAC
 * control, trimmed and returned headers, a NACK, a CNP), read back
 * independently of the parser where it matters.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ofan_parse.h"
#include "ofan_wire.h"
#include "pcapgen_frames.h"
#include "unit_suite.h"

static uint8_t t_frame[PCAPGEN_FRAME_BUF_SIZE];

/* Build row i and parse it as a switch verifying checksums would. */
static int
t_build(unsigned int i, struct ofan_pkt_info *info, int *len)
{
	char err[256] = "";

	*len = pcapgen_frame_build(i, t_frame, err, sizeof(err));
	ck_assert_msg(*len > 0, "row %u: %s", i, err);
	return ofan_parse(t_frame, (uint32_t)*len, OFAN_PARSE_F_VERIFY_CSUM,
			  info);
}

START_TEST(test_every_row_parses_as_it_says)
{
	struct ofan_pkt_info info;
	unsigned int i;
	int len, ret;

	ck_assert_uint_gt(pcapgen_nb_frames, 0);
	for (i = 0; i < pcapgen_nb_frames; i++) {
		ret = t_build(i, &info, &len);
		ck_assert_str_eq(ret == OFAN_PARSE_OK ? "good" :
				 ofan_drop_name(ret), pcapgen_frames[i].reason);
		ck_assert_uint_le((unsigned int)len, PCAPGEN_FRAME_BUF_SIZE);
	}
}
END_TEST

/*
 * The parser's reasons come first in OFAN_DROP_REASONS, up to no_route
 * (ofan_parse.h).  Each has a row that "malformed" writes.
 */
START_TEST(test_every_parser_reason_has_a_frame)
{
	unsigned int i;
	int r;

	for (r = 0; r < OFAN_DROP_NO_ROUTE; r++) {
		bool found = false;

		for (i = 0; i < pcapgen_nb_frames && !found; i++)
			found = !pcapgen_frames[i].seed_only &&
				strcmp(pcapgen_frames[i].reason,
				       ofan_drop_name(r)) == 0;
		ck_assert_msg(found, "parser drop reason %s has no frame in pcapgen_frames.c",
			      ofan_drop_name(r));
	}
	/* And no row names a reason the parser never returns. */
	for (i = 0; i < pcapgen_nb_frames; i++) {
		bool known = strcmp(pcapgen_frames[i].reason, "good") == 0;

		for (r = 0; r < OFAN_DROP_NO_ROUTE && !known; r++)
			known = strcmp(pcapgen_frames[i].reason,
				       ofan_drop_name(r)) == 0;
		ck_assert_msg(known, "row %s: '%s' is not a parser reason",
			      pcapgen_frames[i].what, pcapgen_frames[i].reason);
	}
}
END_TEST

/* What the seeds hold, counted over every row. */
struct t_kinds {
	unsigned int pfc, pause, vlan_mac_ctrl, pfc_no_class, resume;
	unsigned int trimmed, returned, unknown_mark, nack, cnp, ack_ce;
	unsigned int mac_ctrl_malformed;
	uint8_t vectors[8];
	unsigned int nb_vectors;
};

static void
t_note_vector(struct t_kinds *k, uint8_t cev)
{
	unsigned int i;

	for (i = 0; i < k->nb_vectors; i++)
		if (k->vectors[i] == cev)
			return;
	if (k->nb_vectors < sizeof(k->vectors))
		k->vectors[k->nb_vectors++] = cev;
}

START_TEST(test_seeds_hold_what_peers_send)
{
	struct t_kinds k;
	struct ofan_pkt_info info;
	unsigned int i;
	int len, ret;

	memset(&k, 0, sizeof(k));
	for (i = 0; i < pcapgen_nb_frames; i++) {
		const uint8_t *body, *bth;

		ret = t_build(i, &info, &len);
		if (ret == OFAN_DROP_MAC_CTRL_MALFORMED)
			k.mac_ctrl_malformed++;
		if (ret != OFAN_PARSE_OK)
			continue;
		if (info.kind == OFAN_KIND_PAUSE) {
			uint16_t op;

			body = t_frame + info.l3_offset;
			op = (uint16_t)(body[0] << 8 | body[1]);
			if (info.l3_offset != OFAN_ETH_HDR_SIZE)
				k.vlan_mac_ctrl++;
			if (op == OFAN_MAC_CTRL_OP_PAUSE) {
				k.pause++;
				continue;
			}
			ck_assert_uint_eq(op, OFAN_MAC_CTRL_OP_PFC);
			k.pfc++;
			t_note_vector(&k, body[3]);
			if (body[3] == 0)
				k.pfc_no_class++;
			else if (body[4] == 0 && body[5] == 0 &&
				 (body[3] & 1))
				k.resume++;
			continue;
		}
		if (info.kind != OFAN_KIND_DATA && info.kind != OFAN_KIND_ACK)
			continue;
		bth = t_frame + info.l4_offset + OFAN_UDP_HDR_SIZE;
		if (bth[0] == 0x81)
			k.cnp++;
		if (bth[OFAN_BTH_MARK_OFFSET] & OFAN_BTH_MARK_TRIMMED)
			k.trimmed++;
		if (bth[OFAN_BTH_MARK_OFFSET] & OFAN_BTH_MARK_RETURNED)
			k.returned++;
		if (bth[OFAN_BTH_MARK_OFFSET] &
		    ~(OFAN_BTH_MARK_TRIMMED | OFAN_BTH_MARK_RETURNED))
			k.unknown_mark++;
		if (info.kind == OFAN_KIND_ACK &&
		    (bth[OFAN_BTH_SIZE] & OFAN_AETH_SYN_NAK_MASK) != 0)
			k.nack++;
		if (info.kind == OFAN_KIND_ACK &&
		    (bth[OFAN_BTH_SIZE + OFAN_AETH_SIZE + 2] & OFAN_ACK_F_CE))
			k.ack_ce++;
	}
	ck_assert_uint_ge(k.pfc, 4);
	ck_assert_uint_ge(k.nb_vectors, 4);
	ck_assert_uint_ge(k.pfc_no_class, 1);
	ck_assert_uint_ge(k.resume, 1);
	ck_assert_uint_ge(k.pause, 2);
	ck_assert_uint_ge(k.vlan_mac_ctrl, 2);
	ck_assert_uint_ge(k.mac_ctrl_malformed, 4);
	ck_assert_uint_ge(k.trimmed, 2);
	ck_assert_uint_ge(k.returned, 1);
	ck_assert_uint_ge(k.unknown_mark, 1);
	ck_assert_uint_ge(k.nack, 1);
	ck_assert_uint_ge(k.ack_ce, 1);
	ck_assert_uint_eq(k.cnp, 1);
}
END_TEST

static Suite *
pcapgen_suite(void)
{
	Suite *s = suite_create("pcapgen");
	TCase *tc = tcase_create("frames");

	tcase_add_test(tc, test_every_row_parses_as_it_says);
	tcase_add_test(tc, test_every_parser_reason_has_a_frame);
	tcase_add_test(tc, test_seeds_hold_what_peers_send);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run_suite(pcapgen_suite());
}
