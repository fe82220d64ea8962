/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include "ofan_frame.h"
#include "ofan_wire.h"

void
ofan_frame_model_ethernet(struct ofan_frame_model *m)
{
	unsigned int k;

	for (k = 0; k < OFAN_FRAME_NB_KINDS; k++)
		m->adjust[k] = 0;
	m->overhead = OFAN_WIRE_OVERHEAD;
}

int
ofan_frame_model_sizes(struct ofan_frame_model *m, uint32_t full_frame,
		       uint32_t data_bytes, uint32_t ack_frame,
		       uint32_t ack_bytes, uint32_t header_bytes)
{
	ofan_frame_model_ethernet(m);
	if (data_bytes == 0 && ack_bytes == 0 && header_bytes == 0)
		return 0;
	m->adjust[OFAN_KIND_DATA] = data_bytes != 0 ?
		(int32_t)data_bytes - (int32_t)full_frame : OFAN_WIRE_OVERHEAD;
	m->adjust[OFAN_KIND_ACK] = ack_bytes != 0 ?
		(int32_t)ack_bytes - (int32_t)ack_frame : OFAN_WIRE_OVERHEAD;
	m->adjust[OFAN_KIND_OTHER] = OFAN_WIRE_OVERHEAD;
	m->adjust[OFAN_FRAME_HEADER] = header_bytes != 0 ?
		(int32_t)header_bytes - OFAN_FRAME_HEADER_BYTES :
		OFAN_WIRE_OVERHEAD;
	m->overhead = 0;
	/* The shortest frames, padded to the Ethernet minimum, cost > 0. */
	if (60 + m->adjust[OFAN_KIND_DATA] < 1 ||
	    (int64_t)ack_frame + m->adjust[OFAN_KIND_ACK] < 1)
		return -EINVAL;
	return 0;
}

uint8_t
ofan_frame_kind(const uint8_t *f, uint32_t len)
{
	const uint32_t udp = OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE;
	const uint32_t bth = udp + OFAN_UDP_HDR_SIZE;

	if (len < bth + 1 || f[12] != (OFAN_ETHER_TYPE_IPV4 >> 8) ||
	    f[13] != (OFAN_ETHER_TYPE_IPV4 & 0xff) ||
	    f[OFAN_ETH_HDR_SIZE] != 0x45 ||
	    f[OFAN_ETH_HDR_SIZE + 9] != OFAN_IPPROTO_UDP ||
	    f[udp + 2] != (OFAN_UDP_PORT_ROCEV2 >> 8) ||
	    f[udp + 3] != (OFAN_UDP_PORT_ROCEV2 & 0xff))
		return OFAN_KIND_OTHER;
	return f[bth] == OFAN_BTH_OP_RC_ACK ? OFAN_KIND_ACK : OFAN_KIND_DATA;
}
