/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host agent's configuration and its loader (the same strict rules as
 * the switch: every value checked, unknown keys rejected, messages name
 * file:section:key, nothing touches EAL or a port before it passed).
 *
 * Sections: [host] transport and pacing, [host.<policy>] policy knobs,
 * [recovery.<model>] and [cc.<model>] the recovery models' and the
 * congestion controllers' settings, [ranks] rank addressing, [traffic]
 * the collective, [port.N] one host instance (rank) per ethdev port.
 */
#ifndef OFAN_HS_CONFIG_H
#define OFAN_HS_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "hlb.h"
#include "hs_cc.h"
#include "hs_pattern.h"
#include "hs_traffic.h"
#include "hs_transport.h"
#include "ofan_config.h"

#define HS_MAX_PORTS 32
#define HS_DEV_SIZE 256
#define HS_PORT_MAX_LCORES 16	/* = HS_MAX_SHARDS */
/* Lcore ids a port may name: DPDK's RTE_MAX_LCORE (checked in hs_host.c). */
#define HS_MAX_LCORE 128
#define HS_PATH_SIZE 512
#define HS_MOVED_SIZE 1024


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

struct hs_port_config {
	char dev[HS_DEV_SIZE];
	uint32_t rank;
	uint8_t mac[6];
	bool mac_set;
	uint8_t gateway_mac[6];	/* destination MAC of every frame */
	bool gateway_mac_set;	/* false: broadcast (back to back, or a
				 * switch that learned us from our ARP) */
	/*
	 * The lcores the rank spreads over (hs_shard.h), one shard each;
	 * none: EAL's main lcore.  The first also dispatches in software.
	 */
	uint32_t lcores[HS_PORT_MAX_LCORES];
	uint32_t nb_lcores;
	uint8_t steer;		/* enum hs_steer */
};

/* How packets reach a rank's shards ([port.N] steer). */
enum hs_steer {
	HS_STEER_AUTO = 0,	/* rss if the device can, else software */
	HS_STEER_RSS,		/* the NIC's RSS on the IPv4 source */
	HS_STEER_SOFTWARE,	/* the first lcore polls and hands out */
};
extern const char *const hs_steer_names[];

/*
 * The keys a value comes from, for a check that involves the value to
 * blame the one an override set (ofan_cfg_blame()): keys[0 .. nb - 1].
 */
#define HS_CFG_MAX_FROM 3
struct hs_cfg_from {
	struct ofan_cfg_key keys[HS_CFG_MAX_FROM];
	uint8_t nb;
};

struct hs_config {
	const char *path;
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
	/*
	 * The [host] keys the loader read from their old place, which moved
	 * to a model's section: a line each, "WHERE: moved to [SEC] KEY; ...",
	 * for the program to warn of ("" when none).  hs_config_moved_warn().
	 */
	char moved[HS_MOVED_SIZE];
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

	struct hs_traffic_params traffic;
	/*
	 * What traffic.nb_ranks, tor_size, pod_size and mtu come from: with
	 * HS_CFG_CALLER_SETS the caller's keys (ofan-fabric: [fabric] k,
	 * topology, ...), set before hs_config_traffic_from_cfg(); else the
	 * loader's ([ranks] count, [traffic] tor_size and pod_size, [host]
	 * mtu).  Static strings.
	 */
	struct hs_cfg_from ranks_from, tor_from, pod_from, mtu_from;
	/* The pattern's own settings (hs_pattern.h; traffic.settings
	 * points here, and a copy of the config points it at its own). */
	struct hs_pattern_settings pattern_set;

	uint16_t nb_ports;
	struct hs_port_config ports[HS_MAX_PORTS];
};

/* The IPv4 address (host order) of rank r. */
static inline uint32_t
hs_rank_ip(const struct hs_config *c, uint32_t r)
{
	return c->ip_base + (r / c->per_subnet) * 256 + r % c->per_subnet;
}

/*
 * The pacing slot of a frame of wire bytes on the wire (its frame + 24):
 * those and pace_bytes' extra for a full frame, at least 1.
 */
static inline uint32_t
hs_pace_slot(const struct hs_config *c, uint32_t wire)
{
	int64_t b = (int64_t)wire + c->pace_extra;

	return b < 1 ? 1u : (uint32_t)b;
}

/* Defaults for every key, derived values included. */
void hs_config_defaults(struct hs_config *c);

/*
 * Recompute the derived values (mss, the policies' base RTT and BDP) after
 * mtu, rate, rate_coef or base_rtt changed (the loader does it).
 */
void hs_config_derive(struct hs_config *c);

/*
 * Every key of a host config, what it accepts and its default, as
 * Markdown tables into f (ofan-host --config-reference).  0, or -errno
 * with the message in err.
 */
int hs_config_reference(FILE *f, char *err, unsigned int err_size);

/*
 * Load and validate path into c; returns 0 or -EINVAL with a
 * "file:section:key: ..." message in err.
 */
int hs_config_load(const char *path, struct hs_config *c, char *err,
		   unsigned int err_size);
/*
 * Each line of moved (a struct hs_config's: the keys the loader read from
 * their old place) to f as "PROG: warning: LINE"; nothing when it is "".
 */
void hs_config_moved_warn(const char *moved, const char *prog, FILE *f);
int hs_config_from_cfg(struct ofan_cfg *cfg, struct hs_config *c);

/*
 * The caller sets [host] policy, rate and mtu and [traffic] tor_size and
 * pod_size itself (ofan-fabric: its [fabric] and topology): they are not
 * read and so are no allowed keys.
 */
#define HS_CFG_CALLER_SETS 0x100u

/*
 * Pieces of the loader that ofan-fabric reuses (c holds the defaults):
 * [host] and every [host.<policy>], [recovery.<model>] and [cc.<model>]
 * section (flags: OFAN_CFG_REQUIRED requires the policy key, 0 makes it
 * optional, HS_CFG_CALLER_SETS leaves it and rate and mtu out), and
 * [traffic] (set c->traffic.nb_ranks first; HS_CFG_CALLER_SETS leaves
 * tor_size and pod_size out).  Return 0 or -EINVAL (message in the
 * cfg).
 */
int hs_config_host_from_cfg(struct ofan_cfg *cfg, struct hs_config *c,
			    unsigned int flags);
int hs_config_traffic_from_cfg(struct ofan_cfg *cfg, struct hs_config *c,
			       unsigned int flags);

#endif /* OFAN_HS_CONFIG_H */
