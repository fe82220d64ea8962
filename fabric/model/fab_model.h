/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric's model: what an experiment is, without DPDK (the emulator
 * that runs it is fab.h).  fab_config.c reads an experiment file into
 * struct fab_params, fab_experiment.c adds the command line's overrides,
 * sweeps and seeds, fab_topo.c turns params into a topology (nodes, links,
 * every switch's sw_config, the live-path weights after failures),
 * fab_outdir.c decides whose results a folder holds and fab_reference.c
 * prints every key (--config-reference).  ofan-testbed-gen and the
 * experiment fuzzer link this alone (libofan_fabric_model).
 */
#ifndef OFAN_FAB_MODEL_H
#define OFAN_FAB_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fab_outdir.h"
#include "hs_config.h"
#include "ofan_loss.h"
#include "ofan_parse.h"
#include "sw_config.h"

/* Elements of an array. */
#define FAB_DIM(a) (sizeof(a) / sizeof((a)[0]))

#define FAB_NAME_SIZE 64
#define FAB_MAX_SCHEMES 24
#define FAB_MAX_FAILURES 64
#define FAB_MAX_SWEEP_DIMS 3
#define FAB_MAX_SWEEP_VALUES 16
#define FAB_MAX_K 24		/* ToR groups (k/2 + k^2/2 - 1) within SW_MAX_GROUPS, hosts (k^3/4) within SW_MAX_ROUTES */
#define FAB_MAX_THREADS 8
#define FAB_MAX_WINDOWS 1000000	/* queue windows per run (time_limit / window) */
#define FAB_MAX_SEEDS 1000
#define FAB_MAX_POLICY_COUNTERS 16
#define FAB_MAX_DROPS 64

enum fab_topology {
	FAB_TOPO_FATTREE = 0,
	FAB_TOPO_LEAFSPINE,
	FAB_TOPO_B2B,		/* two hosts on one link (link model tests) */
	FAB_TOPO_NB
};
extern const char *const fab_topology_names[];

/* Whether each seed draws its own traffic ([fabric] traffic_seed). */
enum fab_traffic_seed { FAB_TRAFFIC_PER_SEED = 0, FAB_TRAFFIC_FIXED };
extern const char *const fab_traffic_seed_names[];

/* Where ranks sit: in order (ring neighbours share a ToR), or shuffled. */
enum fab_placement { FAB_PLACE_LINEAR = 0, FAB_PLACE_RANDOM };
extern const char *const fab_placement_names[];

/*
 * Where an egress queue sits, for the per-layer maxima.  A leaf-spine
 * uses TOR_UP (leaf up), CORE_DOWN (spine down) and TOR_DOWN (leaf down).
 */
enum fab_layer {
	FAB_L_TOR_UP = 0,
	FAB_L_AGG_UP,
	FAB_L_CORE_DOWN,
	FAB_L_AGG_DOWN,
	FAB_L_TOR_DOWN,
	FAB_L_HOST,		/* a host's NIC (not a switch queue) */
	FAB_L_NB
};

/* The layer's name in this topology, NULL when it has none. */
const char *fab_layer_name(enum fab_topology topo, enum fab_layer l);

struct fab_scheme {
	char name[FAB_NAME_SIZE];	/* ecmp, ops, reps, spray, ofan, ... */
	const struct lb_ops *sw_policy;
	const struct hlb_ops *host_policy;
};

/*
 * A stalled link (htsim's -ftype queue, whose rate drops to 10 bit/s) is
 * the wire's in ofan-fabric, as a black hole is: no frame starts on it
 * while it lasts (the frame on it finishes), and the queues before it
 * fill, mark and tail-drop.  ofan-switch's ports stall as SW_LINK_STALL.
 */
#define FAB_FAIL_STALL SW_LINK_STALL

struct fab_failure {
	char link[2 * FAB_NAME_SIZE];	/* "agg3-core5" */
	uint8_t mode;			/* enum sw_link_state (not UP) or
					 * FAB_FAIL_STALL */
	/*
	 * Only the direction from the first node named to the second
	 * ([failure.NAME] one_way = yes; the wire's modes: blackhole,
	 * degraded, stall), as htsim degrades its core-to-aggregation links.
	 */
	bool one_way;
	uint64_t at_ns;			/* since the traffic started */
	uint64_t duration_ns;		/* 0 = until the end */
	/*
	 * When routing takes the returned link back: route_back_ns after
	 * it returned (htsim's -fdonetime ROUTE time); 0: at once.
	 */
	uint64_t route_back_ns;
	uint64_t rate_bps;		/* DEGRADED only */
	/*
	 * DEGRADED: the sending switch's queue and ECN thresholds, per
	 * mille of their configuration ([failure.NAME] queue_scale; 1000:
	 * unchanged), as htsim shrinks a degraded link's queue.
	 */
	uint16_t queue_permille;
	/*
	 * Routing removes the link reconverge_delay after it failed (true,
	 * the default), or never ([failure.NAME] reroute = no: the study's
	 * persistent failures, whose routes are computed before them and
	 * never updated).
	 */
	bool reroute;
	/*
	 * An htsim failure line of the .cm file: the link is gone before
	 * the traffic starts and routing knows it (htsim removes the link).
	 */
	bool at_start;
	char sec[FAB_NAME_SIZE + 16];	/* its section, for messages */
};

/*
 * Frames dropped on purpose ([drop.NAME]) on the link direction from the
 * first named node to the second, data and ACKs alike, counted under
 * `injected`:
 *  - frames: the frame-th to the (frame + count - 1)-th frame its sender
 *    puts on it (counted from 1), for studying loss recovery;
 *  - random, bursts: a lossy link (common/ofan_loss.h), asked at the end
 *    of each frame's serialisation.
 */
enum fab_drop_mode {
	FAB_DROP_FRAMES = OFAN_LOSS_NONE,
	FAB_DROP_RANDOM = OFAN_LOSS_RANDOM,
	FAB_DROP_BURSTS = OFAN_LOSS_BURSTS,
};
extern const char *const fab_drop_mode_names[];

struct fab_drop {
	char link[2 * FAB_NAME_SIZE];	/* "h0-leaf0": from h0 to leaf0 */
	uint8_t mode;			/* enum fab_drop_mode */
	uint64_t frame;
	uint32_t count;
	struct ofan_loss_cfg loss;	/* random, bursts (its mode = mode) */
	char sec[FAB_NAME_SIZE + 16];
};

/* Everything one run needs, for one sweep combination. */
struct fab_params {
	char name[FAB_NAME_SIZE];	/* experiment name */
	enum fab_topology topo;
	uint32_t k;			/* fat tree */
	uint32_t leaves, spines, hosts_per_leaf;	/* leaf-spine */
	enum fab_placement placement;
	uint64_t rate_bps;		/* host links (and default for all) */
	uint64_t uplink_rate_bps;	/* switch-to-switch links */
	uint64_t delay_ns;		/* propagation, every link */
	uint64_t seed;
	uint64_t detect_delay_ns;	/* a down link leaves its switch's groups */
	uint64_t reconverge_delay_ns;	/* every switch routes around it */
	uint64_t time_limit_ns;		/* virtual; flows unfinished are reported */
	uint64_t queue_window_ns;	/* queues.csv time windows */
	uint16_t threads;		/* parts run in parallel (same results) */
	uint32_t nic_queue;		/* frames a flow may have in its NIC, 0: any */
	uint32_t mbufs;			/* the mbuf pool, 0: sized from the queues */
	/*
	 * The frame model (ofan_frame.h), kept in queue.frame: what a full
	 * data frame, an ACK and a trimmed header count in queues and on
	 * links; 0 is Ethernet (their bytes, and 24 more on a link).
	 */
	uint32_t data_wire_bytes, ack_wire_bytes, header_wire_bytes;
	uint32_t seeds;			/* runs per scheme: seed, seed + 1, ... */
	bool host_seed_set;		/* [host] seed given: the seeds keep it */
	bool traffic_seed_set;		/* [traffic] seed given: likewise */
	/*
	 * [fabric] traffic_seed: per_seed draws the traffic (a random
	 * pattern's matrix, a random placement) anew for every seed; fixed
	 * keeps the first seed's for all of them, as the study's runs
	 * repeat one matrix (only salts, pacing offsets and the hosts'
	 * random choices change).  matrix_seed is what draws it.
	 */
	enum fab_traffic_seed traffic_seed;
	uint64_t matrix_seed;
	struct sw_queue_config queue;	/* every switch port ([queue]) */
	/* Per layer of egress: [queue] and the layer's [queue.LAYER]. */
	struct sw_queue_config queue_layer[FAB_L_NB];
	uint8_t queue_layer_set;	/* bit l: [queue.LAYER l] exists */
	struct lb_settings_table lb;	/* switch policies' own settings */
	struct lb_levels levels;	/* queue levels the switches show policies */
	struct hs_config host;		/* transport, host policies, traffic */
	bool base_rtt_set;		/* else derived from the longest path */
	uint16_t nb_schemes;
	struct fab_scheme schemes[FAB_MAX_SCHEMES];
	uint16_t nb_failures;
	struct fab_failure failures[FAB_MAX_FAILURES];
	uint16_t nb_drops;
	struct fab_drop drops[FAB_MAX_DROPS];
	/* This combination's sweep values ("55us"), one per dimension. */
	uint16_t nb_sweep;
	char sweep_name[FAB_MAX_SWEEP_DIMS][FAB_NAME_SIZE];
	char sweep_value[FAB_MAX_SWEEP_DIMS][FAB_NAME_SIZE];
	/*
	 * What those values set, "section.key=value", in order: the testbed
	 * generator writes the ones of the sections it copies as written.
	 */
	uint16_t nb_sweep_sets;
	char sweep_set[FAB_MAX_SWEEP_DIMS * 16][256];
};

/*
 * The params of the i-th seed of p: seed + i for the switches, the hosts
 * and, with traffic_seed = per_seed, the traffic (a [host] or [traffic]
 * seed written in the file stays as written; a .cm file stays the same;
 * traffic_seed = fixed keeps p's traffic for every seed).
 */
void fab_params_for_seed(const struct fab_params *p, uint32_t i,
			 struct fab_params *out);

/*
 * An experiment: the file, the command-line overrides, and one params per
 * sweep combination (the cartesian product of the [sweep.NAME] sections,
 * the first dimension outermost).
 */
struct fab_experiment {
	const char *path;
	uint32_t nb_combos;
	struct fab_params *combos;
	/*
	 * The [host] keys read from their old place in any combination
	 * (struct hs_config's moved), each line once: for the program to
	 * warn of (hs_config_moved_warn()).
	 */
	char moved[HS_MOVED_SIZE];
};

/*
 * Load and validate path with overrides ("section.key=value", applied
 * before the sweeps) and, if seed_set, seed as [fabric] seed.  Every
 * combination is checked before anything starts.  Returns 0 or -EINVAL
 * with "file:section:key: ..." in err.
 */
int fab_experiment_load(const char *path, char *const *overrides,
			int nb_overrides, bool seed_set, uint64_t seed,
			struct fab_experiment *x, char *err,
			unsigned int err_size);
/*
 * The same with --seeds N (0: as the file says); check_links false skips
 * checking [failure.*] and [drop.*] links against the topology (for
 * --list-links, which is how a user finds the right names).
 */
int fab_experiment_load_seeds(const char *path, char *const *overrides,
			      int nb_overrides, bool seed_set, uint64_t seed,
			      uint32_t seeds, bool check_links,
			      struct fab_experiment *x, char *err,
			      unsigned int err_size);
/*
 * The same from the len bytes at text (which need not end in a NUL), as
 * if they were the file name (ofan_cfg_load_mem()): messages say name,
 * relative paths (a .cm file) are relative to name's folder, and
 * x->path points at name, which must outlive x.
 */
int fab_experiment_load_mem(const char *name, const char *text, size_t len,
			    char *const *overrides, int nb_overrides,
			    bool seed_set, uint64_t seed, uint32_t seeds,
			    bool check_links, struct fab_experiment *x,
			    char *err, unsigned int err_size);
void fab_experiment_free(struct fab_experiment *x);
/*
 * The experiment file of id as run, into f: its sections and keys with
 * id's overrides, --seed and --seeds applied and marked (ofan_cfg_write()),
 * no sweep applied.  0, or -EINVAL with the message in err.
 */
int fab_experiment_write_resolved(const struct fab_run_id *id, FILE *f,
				  char *err, unsigned int err_size);


/*
 * Every key of an experiment file, what it accepts and its default, as
 * Markdown tables into f (fab_reference.c).  0, or -errno with the
 * message in err.
 */
int fab_config_reference(FILE *f, char *err, unsigned int err_size);

/* ---- topology (fab_topo.c) ---- */

#define FAB_NONE UINT32_MAX

enum fab_role { FAB_ROLE_TOR = 0, FAB_ROLE_AGG, FAB_ROLE_CORE };

struct fab_switch_desc {
	char name[FAB_NAME_SIZE];	/* tor0, agg3, core5, leaf1, spine0 */
	uint8_t role;
	uint32_t pod;			/* fat tree: pod; leaf-spine: leaf index */
	uint32_t index;			/* within its role */
	uint16_t nb_ports;
	uint32_t link[SW_MAX_PORTS];	/* link of each port */
};

/* A link joins two ends; end 0 is the lower layer (host or ToR side). */
struct fab_link_desc {
	char name[2 * FAB_NAME_SIZE];	/* "agg3-core5" */
	uint32_t node[2];		/* switch index, or host rank */
	bool is_host[2];
	uint16_t port[2];		/* switch port (0 for a host) */
	uint8_t layer[2];		/* layer of the egress at end i */
	uint64_t rate_bps;
};

struct fab_topo {
	enum fab_topology kind;
	uint32_t nb_hosts;
	uint32_t nb_switches;
	uint32_t nb_links;
	uint32_t hosts_per_tor;
	struct fab_switch_desc *sw;	/* nb_switches */
	struct fab_link_desc *links;	/* nb_links */
	uint32_t *host_link;		/* rank -> its link */
	uint32_t *host_tor;		/* rank -> its ToR (FAB_NONE: b2b) */
	uint16_t *host_port;		/* rank -> its ToR port */
	uint32_t *host_pos;		/* rank -> ToR * hosts_per_tor + port */
	uint8_t *hops;			/* [src * nb_hosts + dst] links on the path */
	struct sw_config *cfg;		/* nb_switches, generated */
	bool *alive;			/* nb_links: routing's view */
};

/*
 * Build the topology of p: nodes, links, names, and each switch's
 * configuration for switch policy policy (seeded from p->seed and the
 * switch's index).  Returns 0 or -errno with a message in err.
 */
int fab_topo_build(const struct fab_params *p, const struct lb_ops *policy,
		   struct fab_topo *t, char *err, unsigned int err_size);
/*
 * Only the nodes and links of p's topology, with their names (hops and
 * cfg stay NULL): what [failure.*], [drop.*] and a .cm file's failures are
 * checked against.  The switch configurations are most of a fat tree's
 * cost: a k = 24 one took 0.7 s to build in full, once per sweep
 * combination, to check one failure's link name.
 */
int fab_topo_build_links(const struct fab_params *p, struct fab_topo *t,
			 char *err, unsigned int err_size);
void fab_topo_free(struct fab_topo *t);

/* The link called name ("a-b" or "b-a"), FAB_NONE if there is none. */
uint32_t fab_topo_find_link(const struct fab_topo *t, const char *name);
/*
 * A few of t's link names, one of each kind (host-ToR, ToR-agg, ...), and
 * how many there are, into buf, for messages; returns buf.
 */
const char *fab_topo_link_examples(const struct fab_topo *t, char *buf,
				   size_t size);
/*
 * The direction of a link named "a-b" from a to b: 2 * link + the end a
 * is at (0: the lower layer); FAB_NONE if there is no such link.
 */
uint32_t fab_topo_find_dir(const struct fab_topo *t, const char *name);

/*
 * The link an htsim failure line names, in htsim's fat-tree numbering
 * (host h on ToR h / (k/2); aggregation switch a's uplink l goes to
 * htsim's core (a mod k/2) + (k/2) l):
 *   TOR S link L    ToR S's uplink L, to the aggregation switch L of its pod;
 *   AGG S link L    aggregation switch S's uplink L;
 *   CORE S link L   htsim's core S's link to pod L.
 * On a leaf-spine TOR S link L is leaf S's link to spine L and CORE S
 * link L spine S's link to leaf L.  Returns the link, or FAB_NONE with
 * what is allowed in err.
 */
struct hs_cm_failure;
uint32_t fab_topo_cm_link(const struct fab_params *p, const struct fab_topo *t,
			  const struct hs_cm_failure *f, char *err,
			  unsigned int err_size);

/*
 * Call set(arg, switch, group, port, weight) for every group member of
 * every switch with its weight under t->alive: the number of live paths
 * through that member towards the group's destination (architecture.md, "The switch engine").
 */
void fab_topo_weights(const struct fab_topo *t,
		      void (*set)(void *arg, uint32_t sw, uint16_t group,
				  uint16_t port, uint16_t weight),
		      void *arg);

/* ---- the frame model's times (fab_topo.c) ---- */

/*
 * Unloaded times over `hops` links with nothing else in the network: one
 * full data frame's way from the end of its serialisation at its
 * source's NIC to the far host (store and forward at each switch), and
 * an ACK's way back (its serialisation at the receiver's NIC included).
 */
uint64_t fab_oneway_ns(const struct fab_params *p, uint32_t hops);
/* The same for a frame of frame_size bytes (a flow shorter than an MSS). */
uint64_t fab_oneway_frame_ns(const struct fab_params *p, uint32_t hops,
			     uint64_t frame_size);
/*
 * A frame of frame_size bytes from the start of its serialisation at its
 * source's NIC (the host's link rate) to the far host: the round trip of
 * a flow's last frame in its ideal is this and fab_ack_back_ns().
 */
uint64_t fab_frame_path_ns(const struct fab_params *p, uint32_t hops,
			   uint64_t frame_size);
uint64_t fab_ack_back_ns(const struct fab_params *p, uint32_t hops);
/* What a queue counts for a full data frame under p's frame model. */
uint32_t fab_full_frame_queue_bytes(const struct fab_params *p);

#endif /* OFAN_FAB_MODEL_H */
