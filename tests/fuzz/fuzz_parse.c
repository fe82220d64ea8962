/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the frame parser.
 *
 * Every input is parsed with each combination of parse flags.  Besides
 * the sanitizers catching reads past the input, the harness checks what a
 * caller relies on: the result is OK or a parser drop reason, and on OK
 * every offset and size points inside the frame, and the switch's fast
 * path accepts nothing that ofan_parse() rejects, with the same values.
 * A violation aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ofan_parse.h"
#include "ofan_wire.h"
#include "../../switch/sw_parse_fast.h"

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
		if (ret == OFAN_PARSE_OK)
			check_info(data, &info, size);
		else if (ret < 0 || ret >= OFAN_DROP_NO_ROUTE)
			abort();
	}
	return 0;
}
