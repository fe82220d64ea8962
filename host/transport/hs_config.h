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
#include "hs_host_settings.h"
#include "hs_pattern.h"
#include "hs_traffic.h"
#include "ofan_config.h"

#define HS_MAX_PORTS 32
#define HS_DEV_SIZE 256
#define HS_PORT_MAX_LCORES 16	/* = HS_MAX_SHARDS */
/* Lcore ids a port may name: DPDK's RTE_MAX_LCORE (checked in hs_runtime.c). */
#define HS_MAX_LCORE 128
#define HS_PATH_SIZE 512
#define HS_MOVED_SIZE 1024


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
	/* What the host engine reads ([host], [ranks] and the models'). */
	struct hs_host_settings set;
	/*
	 * The [host] keys the loader read from their old place, which moved
	 * to a model's section: a line each, "WHERE: moved to [SEC] KEY; ...",
	 * for the program to warn of ("" when none).  hs_config_moved_warn().
	 */
	char moved[HS_MOVED_SIZE];

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
