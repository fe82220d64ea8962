/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame model: what a frame costs in a queue and on a link
 * (architecture.md, "Ports").  No EAL.
 *
 * A queue counts len + adjust[kind] bytes of a frame of len bytes and kind
 * (enum ofan_pkt_kind: data, ACK, other); a link sends those bytes plus
 * overhead.  Two models:
 *  - Ethernet (ofan_frame_model_ethernet(), every default and what a NIC
 *    does): a queue counts the frame, a link adds 24 bytes of preamble,
 *    SFD, FCS and gap;
 *  - explicit sizes (ofan-fabric's [fabric] data_wire_bytes,
 *    ack_wire_bytes and header_wire_bytes, which match a simulator's
 *    packets: htsim's data packet is its 4096 bytes, its ACK 82): a full
 *    data frame counts its given size and a shorter one as much less as
 *    it is shorter, an ACK its size, a data frame a trimming switch cut
 *    to its headers its size (or, not given, its bytes and 24), any other
 *    frame its bytes and 24, in queues and on links alike (nothing is
 *    added on a link).
 * The trade-off: the explicit model is not what real Ethernet does, but a
 * comparison with a simulator differs by the 1-2 % of every frame that is
 * header and gap otherwise, which moves a spraying queue at full load a
 * lot (a 2 % headroom bounds it, none lets it grow without end).
 */
#ifndef OFAN_FRAME_H
#define OFAN_FRAME_H

#include <stdint.h>

#include "ofan_parse.h"

/*
 * Kinds of frames the model costs: enum ofan_pkt_kind's data, ACK and
 * other, and a data frame a trimming switch cut to its headers.
 */
#define OFAN_FRAME_HEADER 3
#define OFAN_FRAME_NB_KINDS 4
/* A cut header's bytes: Ethernet, IPv4, UDP and BTH, nothing after. */
#define OFAN_FRAME_HEADER_BYTES 54

struct ofan_frame_model {
	int32_t adjust[OFAN_FRAME_NB_KINDS];	/* queue bytes - frame bytes */
	uint32_t overhead;	/* link bytes - queue bytes */
};

/* The Ethernet model: adjust 0, overhead 24. */
void ofan_frame_model_ethernet(struct ofan_frame_model *m);

/*
 * The explicit model for full data frames of full_frame bytes: data_bytes
 * for one of them, ack_bytes for an ACK (ack_frame bytes long),
 * header_bytes for a cut header (OFAN_FRAME_HEADER_BYTES long); a size of
 * 0 keeps that kind's Ethernet cost (its bytes and 24).  Returns 0, or
 * -EINVAL if a data frame of the Ethernet minimum would count less than
 * one byte.
 */
int ofan_frame_model_sizes(struct ofan_frame_model *m, uint32_t full_frame,
			   uint32_t data_bytes, uint32_t ack_frame,
			   uint32_t ack_bytes, uint32_t header_bytes);

/* Bytes a queue counts for a frame of len bytes and kind (< 4). */
static inline uint32_t
ofan_frame_queue_bytes(const struct ofan_frame_model *m, uint8_t kind,
		       uint32_t len)
{
	return (uint32_t)((int64_t)len + m->adjust[kind]);
}

/* Bytes a link sends for a frame of len bytes and kind. */
static inline uint32_t
ofan_frame_wire_bytes(const struct ofan_frame_model *m, uint8_t kind,
		      uint32_t len)
{
	return ofan_frame_queue_bytes(m, kind, len) + m->overhead;
}

/*
 * The kind of a frame an ofan host built (data, ACK or other), from its
 * fixed offsets, without the parser's checks: what an emulated link that
 * carries a host's frames needs to cost them.
 */
uint8_t ofan_frame_kind(const uint8_t *frame, uint32_t len);

#endif /* OFAN_FRAME_H */
