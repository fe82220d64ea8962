/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frames a host engine builds (hs_host.c's private helper): data
 * packets from a per-flow header template, ACKs, ARP announcements and
 * replies.  Every frame is at least the Ethernet minimum and carries the
 * NIC slot of its flow in mbuf->hash.usr (hs_host.h).
 */
#ifndef OFAN_HS_FRAMES_H
#define OFAN_HS_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "hs_host_settings.h"
#include "hs_traffic.h"
#include "hs_transport.h"
#include "ofan_parse.h"
#include "ofan_wire.h"

/* QP numbers 0 and 1 are special in InfiniBand; flow f uses QP f + 2. */
#define HS_QP_OFFSET 2

/* What every frame of one host shares. */
struct hs_frame_ctx {
	const struct hs_host_settings *set;
	uint32_t ip;
	uint8_t mac[6];
	uint8_t dst_mac[6];	/* destination MAC of every frame */
	uint32_t arp_slot;	/* NIC slot of ARP frames */
};

/*
 * Headers of a full-size data packet of one flow: every such packet
 * differs only in its EV and PSN (the IPv4 checksum covers neither), so
 * they are copied and patched instead of built field by field.
 */
struct hs_frame_tmpl {
	uint8_t hdr[OFAN_DATA_HDRS_SIZE];
	uint32_t dst_ip;
	uint32_t nic_slot;
};

/*
 * The ACK frame of one received flow with everything but the per-ACK
 * fields in place (addresses, QP, IPv4 checksum): an ACK copies it and
 * writes its EV, PSN and feedback.  ok is false if it could not be built
 * (ACKs are then built field by field).
 */
struct hs_ack_tmpl {
	uint8_t hdr[OFAN_ACK_FRAME_SIZE];
	bool ok;
};

/* An ACK to send. */
struct hs_ack_req {
	const struct hs_ack_tmpl *tmpl;	/* its flow's, or NULL */
	uint32_t flow;
	uint32_t src;		/* the flow's sender: the ACK's destination */
	uint32_t nic_slot;
	uint16_t echo_ev;	/* the data packet's, fed back */
	uint16_t ev;		/* the ACK's own (its UDP source port) */
	bool count;		/* erasure: a.cum is a count (OFAN_ACK_F_COUNT) */
	struct hs_ack_content a;
};

void hs_frame_template(const struct hs_frame_ctx *fx, struct hs_frame_tmpl *t,
		       const struct hs_flow_spec *f, uint32_t nic_slot);

/* Bytes on the wire of a data frame with payload bytes (with overhead). */
uint32_t hs_frame_wire_size(const struct hs_frame_tmpl *t, uint16_t payload);

/*
 * Write the data packet psn of flow f with payload bytes and EV ev into
 * m; returns its length (also set in m) or -1 if it does not fit.
 */
int hs_frame_data(const struct hs_frame_ctx *fx, const struct hs_frame_tmpl *t,
		  const struct hs_flow_spec *f, struct rte_mbuf *m, uint16_t ev,
		  uint32_t psn, uint16_t payload);

/* The ACK template of flow f, received by this host. */
void hs_frame_ack_template(const struct hs_frame_ctx *fx,
			   struct hs_ack_tmpl *t, const struct hs_flow_spec *f);

/*
 * An ACK frame, NULL if no mbuf: from a->tmpl when it has one, else field
 * by field; the bytes are the same (test_host checks).
 */
struct rte_mbuf *hs_frame_ack(const struct hs_frame_ctx *fx,
			      struct rte_mempool *pool,
			      const struct hs_ack_req *a);

/* A gratuitous ARP request (switches learn our MAC), NULL if no mbuf. */
struct rte_mbuf *hs_frame_arp_announce(const struct hs_frame_ctx *fx,
				       struct rte_mempool *pool);

/* Turn the ARP request in m (parsed as pi) into our reply, in place. */
void hs_frame_arp_reply(const struct hs_frame_ctx *fx, struct rte_mbuf *m,
			const struct ofan_pkt_info *pi);

#endif /* OFAN_HS_FRAMES_H */
