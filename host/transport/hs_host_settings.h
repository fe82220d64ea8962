/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the host engine reads of its configuration: the transport, the
 * pacing, the path facts and every policy's, recovery model's and
 * congestion controller's own settings, and how ranks are addressed.
 * hs_config.h loads them (struct hs_config's set) with the traffic and
 * the ports, which the engine does not read; ofan-fabric fills them from
 * its own keys.
 */
#ifndef OFAN_HS_HOST_SETTINGS_H
#define OFAN_HS_HOST_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "hlb.h"
#include "hs_cc.h"
#include "hs_transport.h"

/*
 * How a host shares its rate among its flows.  host: one pacer at rate x
 * rate_coef, round robin over the active flows (each at rate / active
 * flows).  flow: every flow paces itself at rate x rate_coef / the flows
 * its source released with it, from a random offset within its first gap,
 * each gap lengthened by a random 0 .. pacing_jitter of itself -- the
 * study's simulator's senders (constant_cca_erasure*.cpp).
 */
enum hs_pacing { HS_PACING_HOST = 0, HS_PACING_FLOW = 1 };

extern const char *const hs_pacing_names[];

/*
 * Which congestion mark a sender's policy sees in an ACK (ce_echo).
 * data: the CE bit of the data packet that triggered the ACK, echoed by
 * the receiver (ECN as RoCEv2 and TCP do it: the forward path's
 * congestion).  ack: the CE bit switches set on the ACK itself on its
 * way back (the reverse path's congestion) -- what the study's simulator
 * feeds REPS and PLB, whose receiver echoes no mark.
 */
enum hs_ce_echo { HS_CE_ECHO_DATA = 0, HS_CE_ECHO_ACK = 1 };

extern const char *const hs_ce_echo_names[];

/*
 * Which EV a retransmission goes on (resend_path).  own: its own, from
 * the policy, as any packet.  next: the EV the next new packet will take,
 * drawn then and kept for it -- the study's simulator's constant_cca
 * sender, whose path id moves only after new data, so a resend and the
 * packet after it share a path (docs/recovery.md).  A timeout forgets the
 * kept EV (constant_cca moves its path id then).
 */
enum hs_resend_path { HS_RESEND_OWN = 0, HS_RESEND_NEXT = 1 };

extern const char *const hs_resend_path_names[];

struct hs_host_settings {
	const struct hlb_ops *policy;
	/* Path facts for the policies; hosts add the policy's settings. */
	struct hlb_params hlb;
	struct hlb_settings_table hlb_set;	/* every policy's own settings */
	uint64_t seed;
	uint64_t rate_bps;	/* link rate the host paces against */
	double rate_coef;	/* fraction of it used */
	uint16_t mtu;		/* IPv4 packet size of a full data packet */
	uint16_t mss;		/* payload bytes per data packet (derived) */
	uint16_t ack_every;
	uint64_t min_rto_ns;
	uint64_t reorder_window_ns;
	uint64_t base_rtt_ns;
	const struct hs_cc_ops *cc;	/* [host] cc (hs_cc.h) */
	struct hs_cc_settings_table cc_set;	/* every controller's own */
	const struct hs_recovery_ops *recovery;	/* hs_transport.h */
	/* Every recovery model's own settings ([recovery.<name>]). */
	struct hs_recovery_settings_table recovery_set;
	enum hs_resend_path resend_path;
	enum hs_pacing pacing;
	double pacing_jitter;	/* pacing = flow: extra gap, fraction */
	/*
	 * The pacing slot of a full data frame, bytes at the paced rate;
	 * 0: its bytes on the wire (frame + 24).  Larger leaves headroom on
	 * the link (htsim paces 4178-byte slots for 4096-byte packets).
	 */
	uint32_t pace_bytes;
	int32_t pace_extra;	/* derived: slot - wire bytes of a full frame */
	uint8_t ecn;		/* ECN codepoint of data packets and ACKs */
	enum hs_ce_echo ce_echo;
	bool verify_payload;
	uint64_t stats_interval_ns;

	uint32_t ip_base;	/* rank r: ip_base + (r / per_subnet) * 256 + r % per_subnet */
	uint32_t per_subnet;
};

/*
 * Can cc run over recovery?  A receiver-driven cc (pulls) needs SACK's
 * transport: its flight sheds what is lost and its ACKs say which
 * packets arrived (UEC's own; hs_rccc.c).  Every other pair can.
 */
static inline bool
hs_cc_recovery_fit(const struct hs_cc_ops *cc,
		   const struct hs_recovery_ops *rec)
{
	return !cc->pulls || (rec->flight_sheds_lost && !rec->counts);
}

/* The IPv4 address (host order) of rank r. */
static inline uint32_t
hs_rank_ip(const struct hs_host_settings *c, uint32_t r)
{
	return c->ip_base + (r / c->per_subnet) * 256 + r % c->per_subnet;
}

/*
 * The pacing slot of a frame of wire bytes on the wire (its frame + 24):
 * those and pace_bytes' extra for a full frame, at least 1.
 */
static inline uint32_t
hs_pace_slot(const struct hs_host_settings *c, uint32_t wire)
{
	int64_t b = (int64_t)wire + c->pace_extra;

	return b < 1 ? 1u : (uint32_t)b;
}

#endif /* OFAN_HS_HOST_SETTINGS_H */
