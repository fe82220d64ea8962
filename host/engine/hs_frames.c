/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames of the host engine (hs_frames.h).
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "hs_frames.h"

#define HS_ETH_MIN 60	/* Ethernet minimum without FCS */

static void
hs_fill_spec(const struct hs_frame_ctx *fx, struct ofan_pkt_spec *sp,
	     uint32_t dst_ip, uint16_t ev, uint32_t flow, uint32_t psn)
{
	memset(sp, 0, sizeof(*sp));
	memcpy(sp->src_mac, fx->mac, 6);
	memcpy(sp->dst_mac, fx->dst_mac, 6);
	sp->src_ip = fx->ip;
	sp->dst_ip = dst_ip;
	sp->ev = ev;
	sp->ttl = 64;
	sp->dest_qp = flow + HS_QP_OFFSET;
	sp->psn = psn;
	sp->tos = fx->set->ecn;
}

/* Pad to the Ethernet minimum and set the lengths; returns the length. */
static int
hs_frame_finish(struct rte_mbuf *m, int len, uint32_t slot)
{
	if (len < HS_ETH_MIN) {
		memset(rte_pktmbuf_mtod_offset(m, uint8_t *, len), 0,
		       HS_ETH_MIN - len);
		len = HS_ETH_MIN;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	m->hash.usr = slot;
	return len;
}

void
hs_frame_template(const struct hs_frame_ctx *fx, struct hs_frame_tmpl *t,
		  const struct hs_flow_spec *f, uint32_t nic_slot)
{
	const struct hs_host_settings *c = fx->set;
	struct ofan_pkt_spec sp;
	uint8_t *buf = malloc(OFAN_DATA_HDRS_SIZE + c->mss);

	memset(t->hdr, 0, sizeof(t->hdr));
	t->dst_ip = hs_rank_ip(c, f->dst);
	t->nic_slot = nic_slot;
	if (buf == NULL)
		return;
	hs_fill_spec(fx, &sp, t->dst_ip, 0, f->id, 0);
	sp.payload_size = c->mss;
	if (ofan_build_data(buf, OFAN_DATA_HDRS_SIZE + c->mss, &sp) > 0)
		memcpy(t->hdr, buf, sizeof(t->hdr));
	free(buf);
}

uint32_t
hs_frame_wire_size(const struct hs_frame_tmpl *t, uint16_t payload)
{
	(void)t;
	return RTE_MAX((uint32_t)OFAN_DATA_HDRS_SIZE + payload,
		       (uint32_t)HS_ETH_MIN) + OFAN_WIRE_OVERHEAD;
}

int
hs_frame_data(const struct hs_frame_ctx *fx, const struct hs_frame_tmpl *t,
	      const struct hs_flow_spec *f, struct rte_mbuf *m, uint16_t ev,
	      uint32_t psn, uint16_t payload)
{
	const uint32_t udp = OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE;
	const uint32_t bth = udp + OFAN_UDP_HDR_SIZE;
	uint16_t mss = fx->set->mss;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct ofan_pkt_spec sp;
	int len;

	if (likely(payload == mss && rte_pktmbuf_tailroom(m) >=
		   OFAN_DATA_HDRS_SIZE + mss)) {
		memcpy(p, t->hdr, sizeof(t->hdr));
		p[udp] = (uint8_t)(ev >> 8);
		p[udp + 1] = (uint8_t)ev;
		/* BTH PSN: 24 bits after the ack-request byte. */
		p[bth + 9] = (uint8_t)(psn >> 16);
		p[bth + 10] = (uint8_t)(psn >> 8);
		p[bth + 11] = (uint8_t)psn;
		ofan_payload_fill(p + OFAN_DATA_HDRS_SIZE, f->id + HS_QP_OFFSET,
				  psn & 0xffffff, mss);
		len = OFAN_DATA_HDRS_SIZE + mss;
	} else {
		hs_fill_spec(fx, &sp, t->dst_ip, ev, f->id, psn);
		sp.payload_size = payload;
		len = ofan_build_data(p, rte_pktmbuf_tailroom(m), &sp);
		if (len < 0)
			return -1;
	}
	return hs_frame_finish(m, len, t->nic_slot);
}

void
hs_frame_ack_template(const struct hs_frame_ctx *fx, struct hs_ack_tmpl *t,
		      const struct hs_flow_spec *f)
{
	static const struct ofan_ack_ext zero;
	struct ofan_pkt_spec sp;

	hs_fill_spec(fx, &sp, hs_rank_ip(fx->set, f->src), 0, f->id, 0);
	t->ok = ofan_build_ack(t->hdr, sizeof(t->hdr), &sp, &zero) ==
		(int)sizeof(t->hdr);
}

struct rte_mbuf *
hs_frame_ack(const struct hs_frame_ctx *fx, struct rte_mempool *pool,
	     const struct hs_ack_req *a)
{
	const uint32_t udp = OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE;
	const uint32_t bth = udp + OFAN_UDP_HDR_SIZE;
	struct ofan_ack_ext ext = {
		.echo_ev = a->echo_ev,
		.flags = (uint8_t)((a->a.ce ? OFAN_ACK_F_CE : 0) |
				   (a->count ? OFAN_ACK_F_COUNT : 0) |
				   (a->a.pull ? OFAN_ACK_F_PULL : 0) |
				   (a->a.last_hop ? OFAN_ACK_F_LAST_HOP : 0)),
		.pull_queue = a->a.pull_queue,
		.echo_psn = a->a.echo_psn,
		.cum_psn = a->a.cum,
		.sack = a->a.sack,
	};
	struct ofan_pkt_spec sp;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	int len;

	if (m == NULL)
		return NULL;
	if (likely(a->tmpl != NULL && a->tmpl->ok &&
		   rte_pktmbuf_tailroom(m) >= sizeof(a->tmpl->hdr))) {
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
		struct ofan_ack_ext *x = (struct ofan_ack_ext *)(p + bth +
			OFAN_BTH_SIZE + OFAN_AETH_SIZE);

		memcpy(p, a->tmpl->hdr, sizeof(a->tmpl->hdr));
		/* The ACK's EV, the echoed PSN (24 bits). */
		p[udp] = (uint8_t)(a->ev >> 8);
		p[udp + 1] = (uint8_t)a->ev;
		p[bth + 9] = (uint8_t)(a->a.echo_psn >> 16);
		p[bth + 10] = (uint8_t)(a->a.echo_psn >> 8);
		p[bth + 11] = (uint8_t)a->a.echo_psn;
		x->echo_ev = rte_cpu_to_be_16(ext.echo_ev);
		x->flags = ext.flags;
		x->pull_queue = ext.pull_queue;
		x->echo_psn = rte_cpu_to_be_32(ext.echo_psn);
		x->cum_psn = rte_cpu_to_be_32(ext.cum_psn);
		x->sack = rte_cpu_to_be_64(ext.sack);
		p[bth + OFAN_BTH_SIZE] = a->a.nack ? OFAN_AETH_SYN_NAK_SEQ :
						    OFAN_AETH_SYN_ACK;
		hs_frame_finish(m, (int)sizeof(a->tmpl->hdr), a->nic_slot);
		return m;
	}
	/* The ACK's EV: the data packet's unless its policy says otherwise. */
	hs_fill_spec(fx, &sp, hs_rank_ip(fx->set, a->src), a->ev, a->flow,
		     a->a.echo_psn);
	len = ofan_build_ack(rte_pktmbuf_mtod(m, uint8_t *),
			     rte_pktmbuf_tailroom(m), &sp, &ext);
	if (len < 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	/* A NACK is an ACK with the AETH's NAK syndrome (ofan_wire.h). */
	rte_pktmbuf_mtod(m, uint8_t *)[bth + OFAN_BTH_SIZE] = a->a.nack ?
		OFAN_AETH_SYN_NAK_SEQ : OFAN_AETH_SYN_ACK;
	hs_frame_finish(m, len, a->nic_slot);
	return m;
}

struct rte_mbuf *
hs_frame_arp_announce(const struct hs_frame_ctx *fx, struct rte_mempool *pool)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	int len;

	if (m == NULL)
		return NULL;
	len = ofan_build_arp(rte_pktmbuf_mtod(m, uint8_t *),
			     rte_pktmbuf_tailroom(m), OFAN_ARP_OP_REQUEST,
			     fx->mac, fx->ip, NULL, fx->ip);
	if (len < 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(rte_pktmbuf_mtod(m, struct ofan_eth_hdr *)->dst, bcast, 6);
	hs_frame_finish(m, len, fx->arp_slot);
	return m;
}

void
hs_frame_arp_reply(const struct hs_frame_ctx *fx, struct rte_mbuf *m,
		   const struct ofan_pkt_info *pi)
{
	struct ofan_eth_hdr *eth = rte_pktmbuf_mtod(m, struct ofan_eth_hdr *);
	struct ofan_arp *arp =
		rte_pktmbuf_mtod_offset(m, struct ofan_arp *, pi->l3_offset);

	memcpy(eth->dst, pi->arp_sha, 6);
	memcpy(eth->src, fx->mac, 6);
	arp->oper = rte_cpu_to_be_16(OFAN_ARP_OP_REPLY);
	memcpy(arp->tha, pi->arp_sha, 6);
	arp->tpa = rte_cpu_to_be_32(pi->arp_spa);
	memcpy(arp->sha, fx->mac, 6);
	arp->spa = rte_cpu_to_be_32(fx->ip);
	m->hash.usr = fx->arp_slot;
}
