/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's configuration model and its loader.
 *
 * sw_config_load() reads an INI file completely and validates it -- every
 * value, every cross reference (group members are ports, routes name
 * groups), and unknown keys -- before anything touches EAL or a port, so a
 * mistake costs nothing.  The result is a plain struct with no DPDK types;
 * ofan-switch turns it into ethdev ports and an engine, ofan-fabric builds
 * the same struct from a topology instead of a file.
 */
#ifndef OFAN_SW_CONFIG_H
#define OFAN_SW_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "lb.h"
#include "ofan_frame.h"
#include "ofan_loss.h"

struct ofan_cfg;

/*
 * An engine's ports: a switch of ofan-fabric has up to 64 (a leaf of 32
 * hosts and 8 spines is 40).  ofan-switch drives DPDK ports, at most
 * RTE_MAX_ETHPORTS of Debian's DPDK: its [port.N] sections stop at
 * SW_MAX_ETHPORTS.  A set of ports is a 64-bit mask (sw_portmask).
 */
#define SW_MAX_PORTS 64
#define SW_MAX_ETHPORTS 32
typedef uint64_t sw_portmask;
#define SW_PORT_BIT(p) (UINT64_C(1) << (p))
#define SW_MAX_GROUPS 320	/* a k = 24 fat tree's ToR: 12 hosts + 287 other ToRs */
#define SW_MAX_ROUTES 4096
#define SW_MAX_FAILURES 64
#define SW_MAX_REROUTES 64
#define SW_MAX_DST_KEYS 65536
#define SW_NAME_SIZE 64
#define SW_DEV_SIZE 256

/* What a trimming queue does with an overflowing data frame ([queue] trim_size). */
enum sw_trim {
	SW_TRIM_OFF = 0,
	SW_TRIM_HEADER,		/* cut to its headers (rte_pktmbuf_trim) */
	SW_TRIM_FULL,		/* only marked: keeps its size (htsim's constcca) */
};
extern const char *const sw_trim_size_names[];	/* "header", "full" */

/* Return to sender ([queue] rts): which trimmed headers go back. */
enum sw_rts {
	SW_RTS_NO = 0,
	SW_RTS_OVERFLOW,	/* those the control queue has no room for (NDP, htsim) */
	SW_RTS_ALWAYS,		/* every one */
};
extern const char *const sw_rts_names[];	/* "no", "overflow", "always" */

/* Who runs PFC on a lossless port ([queue] pfc_mode). */
enum sw_pfc_mode {
	SW_PFC_AUTO = 0,	/* the NIC where it can, the engine otherwise */
	SW_PFC_NIC,		/* the NIC (rte_eth_dev_priority_flow_ctrl_set) */
	SW_PFC_SOFTWARE,	/* the engine: its buffers, its pause frames */
};
extern const char *const sw_pfc_mode_names[];	/* "auto", "nic", "software" */

/* Egress queue settings of one port (docs/architecture.md, "The switch engine"). */
struct sw_queue_config {
	bool enabled;		/* false: no software queue, tx straight */
	uint32_t capacity_pkts;
	uint64_t capacity_bytes;
	uint64_t ecn_kmin_bytes;	/* marking starts above this */
	uint64_t ecn_kmax_bytes;	/* always mark above this */
	double ecn_pmax;	/* marking probability at kmax */
	bool ecn;		/* ECN marking on */
	uint64_t rate_bps;	/* shaping rate; 0 = as fast as tx accepts */
	/* Trimming (architecture.md, "Trimming"): off unless trim != SW_TRIM_OFF. */
	uint8_t trim;		/* enum sw_trim */
	uint8_t rts;		/* enum sw_rts */
	bool ctrl_acks;		/* ACKs and NACKs on the control queue */
	bool trim_either;	/* trim the newest queued frame half the time */
	/*
	 * The port faces a host: what it trims is trimmed on its last hop
	 * (OFAN_BTH_MARK_LAST_HOP).  ofan-fabric sets it on the ToR's (a
	 * leaf's) ports down; ofan-switch from [port.N] to_host.
	 */
	bool to_host;
	uint32_t ctrl_capacity_pkts;	/* 0: twice capacity_pkts */
	uint64_t ctrl_capacity_bytes;	/* 0: twice capacity_bytes */
	/*
	 * PFC (architecture.md, "PFC"): this port is a lossless ingress (it
	 * pauses its upstream when the bytes it brought in and the switch
	 * still holds pass pfc_xoff, resumes it below pfc_xon) and its
	 * egress obeys the pauses its peer sends, for pfc_priority.
	 */
	bool pfc;
	uint8_t pfc_mode;	/* enum sw_pfc_mode */
	uint8_t pfc_priority;	/* 0 .. 7 */
	uint16_t pfc_quanta;	/* of the pauses sent, 512 bit times each */
	uint64_t pfc_xoff_bytes;
	uint64_t pfc_xon_bytes;
	uint64_t pfc_headroom_bytes;	/* 0: from the link's BDP */
	/*
	 * How frames count in the queue and on the wire (ofan_frame.h):
	 * Ethernet unless ofan-fabric models a simulator's packet sizes.
	 */
	struct ofan_frame_model frame;
};

struct sw_port_config {
	char dev[SW_DEV_SIZE];	/* ethdev name or vdev devargs */
	uint32_t ip;		/* host order; 0 = none (no ARP replies) */
	uint8_t mac[6];
	bool mac_set;		/* false: use the device's MAC */
	uint8_t peer_mac[6];
	bool peer_mac_set;	/* false: learned from ARP, else broadcast */
	uint16_t nb_rx_queues;
	uint16_t nb_rxd;
	uint16_t nb_txd;
	struct sw_queue_config queue;
};

struct sw_group_config {
	char name[SW_NAME_SIZE];
	uint16_t nb_members;
	uint16_t port[LB_MAX_MEMBERS];
	uint16_t weight[LB_MAX_MEMBERS];
};

struct sw_route_config {
	uint32_t prefix;	/* host order */
	uint8_t depth;
	uint16_t group;		/* index into groups */
	uint32_t dst_key;
};

enum sw_link_state {
	SW_LINK_UP = 0,
	SW_LINK_DOWN,		/* both ends see it after detect_delay */
	SW_LINK_BLACKHOLE,	/* drops silently until reconvergence */
	SW_LINK_DEGRADED,	/* runs at a lower rate */
	/*
	 * Sends nothing (htsim's -ftype queue: the rate drops to 10 bit/s):
	 * the egress queue keeps what it holds, fills and tail-drops; routing
	 * removes it reconverge_delay later, as a black hole.
	 */
	SW_LINK_STALL,
	SW_LINK_NB_STATES
};

/* Names of enum sw_link_state, NULL-terminated, for config and telemetry. */
extern const char *const sw_link_state_names[];

/*
 * A lossy egress port ([drop.NAME]): frames entering port's egress are
 * lost (counted as injected) as common/ofan_loss.h's random or bursts
 * model says, the bursts timed from the schedule's start.
 */
#define SW_MAX_DROPS SW_MAX_PORTS

struct sw_drop_config {
	char name[SW_NAME_SIZE];	/* "drop.NAME", for messages */
	uint16_t port;
	struct ofan_loss_cfg loss;
};

struct sw_failure_config {
	char name[SW_NAME_SIZE];	/* "failure.NAME", for the log */
	uint16_t port;
	uint8_t mode;		/* enum sw_link_state, not UP */
	uint64_t at_ns;		/* since start */
	uint64_t duration_ns;	/* 0 = until the end */
	uint64_t rate_bps;	/* DEGRADED only */
};

/*
 * Routing elsewhere in the fabric converged ([reroute.NAME]): at at_ns the
 * members of group get these weights (live paths through each; 0 takes a
 * member out).  A multi-process testbed's generator writes them, from
 * ofan-fabric's own routing, into the switches far from a failed link,
 * which cannot see it themselves.
 */
struct sw_reroute_config {
	char name[SW_NAME_SIZE];	/* "reroute.NAME", for the log */
	uint16_t group;
	uint64_t at_ns;		/* since start */
	uint16_t weight[LB_MAX_MEMBERS];	/* one per member of group */
};

struct sw_config {
	const char *path;	/* config file, for messages */
	char name[SW_NAME_SIZE];
	const struct lb_ops *policy;
	struct lb_settings_table lb;	/* every policy's own settings */
	struct lb_levels levels;	/* queue levels shown to policies */
	uint64_t seed;
	/*
	 * Where the switch sits ([switch] tier): 0 a ToR or leaf (hosts
	 * below it), 1 an aggregation switch, 2 a core switch or spine, as
	 * policies that act by tier read it (lb_params.tier).
	 */
	uint8_t tier;
	uint16_t burst;
	bool verify_checksum;
	/* ICMP time-exceeded replies per second per forwarding lcore, burst
	 * SW_ICMP_BURST (0 = never answer TTL expiry). */
	uint32_t icmp_rate;
	uint64_t stats_interval_ns;	/* 0 = no status lines */
	uint64_t detect_delay_ns;	/* link down -> groups updated */
	uint64_t reconverge_delay_ns;	/* black hole -> groups updated */
	uint32_t nb_mbufs;		/* 0 = sized automatically */

	uint16_t nb_ports;
	struct sw_port_config ports[SW_MAX_PORTS];
	uint16_t nb_groups;
	struct sw_group_config groups[SW_MAX_GROUPS];
	uint32_t nb_routes;
	struct sw_route_config routes[SW_MAX_ROUTES];
	uint32_t nb_dst_keys;	/* 1 + the largest dst_key */
	uint16_t nb_failures;
	struct sw_failure_config failures[SW_MAX_FAILURES];
	uint16_t nb_reroutes;
	struct sw_reroute_config reroutes[SW_MAX_REROUTES];
	uint16_t nb_drops;
	struct sw_drop_config drops[SW_MAX_DROPS];
};

/* Defaults for a queue and a port, used by the loader and by the fabric. */
void sw_queue_config_defaults(struct sw_queue_config *q);
void sw_config_defaults(struct sw_config *c);
/* The same on a configuration that is all zero already (calloc'ed): it
 * writes only what is not zero, so the pages of the unused tables are
 * never touched. */
void sw_config_defaults_zeroed(struct sw_config *c);

/*
 * Copy src into dst, which is all zero (zmalloc'ed): every field but the
 * unused entries of the routes, groups, failures and reroutes tables (a
 * configuration is 185 KB, most of it tables sized for the largest
 * switch; copying it whole made every engine of a fabric fault in pages
 * of zeros).
 */
void sw_config_copy(struct sw_config *dst, const struct sw_config *src);

/*
 * Load and validate path into c (which the caller allocates; it is large).
 * Returns 0, or -EINVAL with a "file:section:key: ..." message in err.
 */
int sw_config_load(const char *path, struct sw_config *c, char *err,
		   unsigned int err_size);

/*
 * The same from an already loaded ofan_cfg (the caller may have applied
 * overrides).  Runs the unknown-key check.
 */
int sw_config_from_cfg(struct ofan_cfg *cfg, struct sw_config *c);

/*
 * Pieces of the loader that ofan-fabric reuses: the queue keys of section
 * sec into q (which holds the defaults); every policy's own section is
 * lb_settings_from_cfg() and the queue levels lb_levels_from_cfg().
 * Return 0 or -EINVAL (message in the cfg).
 */
int sw_config_queue_from_cfg(struct ofan_cfg *cfg, const char *sec,
			     struct sw_queue_config *q);

/* Look a group up by name; -1 if none. */
/*
 * Every key of a switch config, what it accepts and its default, as
 * Markdown tables into f (ofan-switch --config-reference).  0, or -errno
 * with the message in err.
 */
int sw_config_reference(FILE *f, char *err, unsigned int err_size);

int sw_config_find_group(const struct sw_config *c, const char *name);

#endif /* OFAN_SW_CONFIG_H */
