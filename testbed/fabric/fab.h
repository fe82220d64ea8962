/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric: a whole fabric of switch and host engines in one process,
 * driven by emulated links and a virtual clock (architecture.md §2, §3).
 *
 * The pieces, in the order a run uses them:
 *   fab_config.c  experiment INI -> struct fab_params (every value checked,
 *                 sweeps expanded into one params per combination);
 *   fab_topo.c    params -> topology: nodes, links, and the sw_config of
 *                 every switch (generated addresses, groups, routes and
 *                 destination keys), the live-path weights after failures;
 *   fab_build.c   one scheme on one topology: the engines, links and
 *                 threads, and the results collected at the end;
 *   fab_sim.c     its run in virtual time: a discrete event loop (events
 *                 in fab_evq.h) over link serialisation, propagation, host
 *                 pacing timers, timeouts and scheduled failures, split
 *                 over threads in windows;
 *   fab_out.c     results: summary.json, flows.csv, queues.csv,
 *                 queue-time.csv, runs.csv, timing.csv and the table.
 * The engines are the same libraries ofan-switch and ofan-host run on
 * NICs; only the ports (emulated links) and the clock (virtual) differ.
 *
 * Determinism: seeded engines, events in a canonical order (time, kind,
 * node or link), windows independent of the thread count; nothing reads
 * the wall clock except the progress line and timing.csv, which are kept
 * out of the results.  So results are byte-identical for any threads.
 */
#ifndef OFAN_FAB_H
#define OFAN_FAB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fab_outdir.h"
#include "hs_config.h"
#include "hs_host.h"
#include "ofan_loss.h"
#include "ofan_parse.h"
#include "sw_config.h"

#define FAB_NAME_SIZE 64
#define FAB_MAX_SCHEMES 16
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
	 * data frame and an ACK count in queues and on links; 0 and 0 is
	 * Ethernet (their bytes, and 24 more on a link).
	 */
	uint32_t data_wire_bytes, ack_wire_bytes;
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
 * through that member towards the group's destination (architecture.md §5).
 */
void fab_topo_weights(const struct fab_topo *t,
		      void (*set)(void *arg, uint32_t sw, uint16_t group,
				  uint16_t port, uint16_t weight),
		      void *arg);

/* ---- one run (fab_sim.c) ---- */

/*
 * A run's counters, declared once: X(field, what).  The field's name is
 * its key in summary.json's runs and its column in runs.csv; adding one
 * is a line here and the code that counts it.
 */
#define FAB_RUN_COUNTERS(X) \
	X(ecn_marks, "CE marks set by the switches") \
	X(trimmed, "data frames the switches trimmed to their headers") \
	X(headers_returned, "trimmed headers the switches returned to their senders") \
	X(ctrl_drops, "headers and ACKs the switches' control queues had no room for") \
	X(pfc_pauses, "PFC pauses the switches sent upstream (xoff and refreshes)") \
	X(pfc_resumes, "PFC resumes (zero quanta) the switches sent upstream") \
	X(pfc_paused_ns, "time the switches' egress ports were paused, summed over ports, ns")

/* One flow's outcome. */
struct fab_flow_result {
	uint32_t src, dst;
	uint64_t size;
	uint64_t fct_ns;	/* 0: not completed */
	uint64_t ideal_ns;
	double slowdown;
	/*
	 * What its hosts measured (both sides; start_ns 0-based from the
	 * traffic start, rx_done_ns 0: never), with the counters of
	 * HS_FLOW_SEND_COUNTERS and HS_FLOW_RECV_COUNTERS (hs_host.h).
	 */
	struct hs_flow_result m;
};

/* A queue's maximum in one time window (queues.csv). */
struct fab_qwin {
	uint32_t window;
	uint32_t link;
	uint8_t end;		/* which end's egress */
	uint32_t max_pkts;
	uint64_t max_bytes;
};

struct fab_run {
	/* What ran. */
	uint32_t combo;
	uint16_t scheme;
	uint32_t seed_index;		/* 0 .. seeds - 1 */
	uint64_t seed;
	bool one_part;			/* triggers crossed parts: one thread */
	/* Flows. */
	uint32_t nb_flows;
	struct fab_flow_result *flows;
	uint32_t nb_completed;
	double max_slowdown, p99_slowdown, mean_fct_ns;
	uint64_t collective_ns, collective_ideal_ns;
	/*
	 * Network.  Queues count the frame being sent, as htsim's do; their
	 * size is in bytes (queue[l] / the full data frame is what tables
	 * show) and in frames of any size.
	 */
	uint64_t max_queue[FAB_L_NB];	/* frames, per layer */
	uint64_t max_queue_all;		/* every switch port */
	uint64_t max_queue_bytes[FAB_L_NB];
	uint64_t max_queue_bytes_all;
	uint32_t full_frame;		/* bytes of a full data frame */
	uint64_t drops[OFAN_DROP_MAX];
	uint64_t drops_total;
#define FAB_RUN_FIELD(field, what) uint64_t field;
	FAB_RUN_COUNTERS(FAB_RUN_FIELD)
#undef FAB_RUN_FIELD
	struct hs_host_stats hosts;	/* every host's counters, summed */
	/* Conservation: injected = delivered + dropped + queued. */
	uint64_t injected, delivered, dropped, queued_end;
	int64_t mbuf_leak;		/* in use after - before */
	/* The host policy's counters summed over its connections (REPS's
	 * freezes and path timeouts, PLB's repaths, ...), in dump order. */
	uint8_t nb_policy;
	struct {
		char key[24];
		uint64_t value;
	} policy[FAB_MAX_POLICY_COUNTERS];
	bool completed;			/* every flow done before the limit */
	bool interrupted;		/* stopped by fab_run_opts.interrupt */
	uint64_t sim_ns;		/* traffic start to the last completion */
	/* Queue windows (queues.csv). */
	uint32_t nb_qwin, qwin_cap;
	struct fab_qwin *qwin;
	uint32_t nb_windows;
	/* Cost (timing.csv only: not deterministic). */
	uint64_t events, hops;
	double wall_s;
	/* Where it ran: the ranks it took (1 unless --spread parts), the
	 * rank (-1: all of them), and the peak resident memory of the
	 * process so far, the largest over its ranks (MB). */
	uint32_t nb_ranks;
	int32_t rank;
	double peak_rss_mb;
	/* Where memory went (the largest rank's): the mbuf pool populated
	 * at the end, EAL heap in use once built (engines, queues, FIB). */
	double pool_mb, heap_mb;
};

struct rte_mempool;
struct fab_job;
struct fab_pool;

/* How a run reports and stops. */
/*
 * The switches' shared FIB (one rte_lpm, fab_topo.c), kept from one run of
 * a process to the next while the routes stay the same.  An rte_lpm holds
 * 2^24 first-level entries, 64 MB, and rte_free() clears what it frees,
 * faulting in every page of the table that lookups never touched: freeing
 * it took a third of a k = 8 permutation's run.  Owned by the caller of
 * fab_run() (fab_run_opts.fib); fab_fib_cache_free() releases it (a new
 * routing replaces it; ofan-fabric leaves the last one to rte_eal_cleanup).
 */
struct fab_fib_cache {
	struct rte_lpm *fib;	/* NULL: none yet */
	uint64_t *sig;		/* the routes and addresses it was built from */
	uint32_t nb_sig;
	uint32_t nb_built;	/* tables built (a new one per new routing) */
};

void fab_fib_cache_free(struct fab_fib_cache *c);

struct fab_run_opts {
	bool quiet;			/* no progress lines */
	/* When it becomes non-zero (a signal handler), the run stops at its
	 * next window, incomplete; NULL: never. */
	const volatile int *interrupt;
	/* Progress lines begin "PROG:" (NULL: "ofan-fabric"). */
	const char *prog;
	/* Called between windows when not NULL (--spread runs: rank 0
	 * answers the other ranks). */
	void (*between)(void *arg);
	void *between_arg;
	int rank;			/* this process's rank (timing.csv) */
	/* --spread parts: the job whose ranks share every run (NULL or a
	 * job of one: this process runs it all). */
	const struct fab_job *job;
	/* A pool that grows between windows (fab_pool.h); NULL: the pool
	 * passed to fab_run is what there is. */
	struct fab_pool *pool;
	/* Keeps the switches' FIB between runs (NULL: each run builds and
	 * frees its own). */
	struct fab_fib_cache *fib;
};

/*
 * Run scheme s of p on topology t (fresh from fab_topo_build() with the
 * scheme's switch policy; its routing view changes with failures), mbufs
 * from pool, on min(p->threads, EAL lcores) threads; fills *r.  A
 * progress line goes to stderr about every second of wall time unless
 * opts->quiet (opts NULL: quiet, never interrupted).  Returns 0 (the run
 * may still be incomplete: r->completed), or -errno with a message in err
 * when it could not run or collect its results.
 */
int fab_run(const struct fab_params *p, uint16_t s, struct fab_topo *t,
	    struct rte_mempool *pool, const struct fab_run_opts *opts,
	    struct fab_run *r, char *err, unsigned int err_size);
void fab_run_free(struct fab_run *r);

/* Mean and 95 % confidence half-width (Student's t) of n values. */
void fab_mean_ci(const double *v, uint32_t n, double out[2]);

/* Mbufs a run of p may hold at once (pool sizing). */
uint32_t fab_pool_size(const struct fab_params *p);

/*
 * Ideal times of a flow over `hops` links with nothing else in the
 * network: one full data frame's way from its source's NIC to the far
 * host (store and forward at each switch; the serialisation at the
 * source is the flow's bytes / rate), and an ACK's way back.
 */
uint64_t fab_oneway_ns(const struct fab_params *p, uint32_t hops);
/* The same for a frame of frame_size bytes (a flow shorter than an MSS). */
uint64_t fab_oneway_frame_ns(const struct fab_params *p, uint32_t hops,
			     uint64_t frame_size);
uint64_t fab_ack_back_ns(const struct fab_params *p, uint32_t hops);
/* What a queue counts for a full data frame under p's frame model. */
uint32_t fab_full_frame_queue_bytes(const struct fab_params *p);

/* ---- output (fab_out.c) ---- */

struct fab_out;

/*
 * Open the output files in dir (created; the files ofan-fabric writes
 * removed first, fab_outdir_clear()).  NULL with a message in err.
 */
struct fab_out *fab_out_open(const char *dir, const struct fab_experiment *x,
			     char *err, unsigned int err_size);
/*
 * How the outputs were made: argv as given (the whole command line, EAL
 * options included) and the run id (the file, its overrides, --seed,
 * --seeds).  Writes DIR/command.txt (the working directory and the
 * command, shell-quoted), DIR/config.ini (the experiment as run,
 * fab_experiment_write_resolved()) and DIR/run.json (the version, the
 * directory, the command, its overrides and the run's identity), at once;
 * summary.json, which stays the same for any thread or rank count, does
 * not hold them.  0, or -errno with a message in err.
 */
int fab_out_describe(struct fab_out *o, int argc, char *const *argv,
		     const struct fab_run_id *id, char *err,
		     unsigned int err_size);
/* Write one run's rows (flows, queues) and keep its summary. */
int fab_out_run(struct fab_out *o, const struct fab_params *p,
		const struct fab_topo *t, const struct fab_run *r);
/* Write summary.json, runs.csv, timing.csv, table.txt; print the table. */
int fab_out_close(struct fab_out *o, FILE *table);

#endif /* OFAN_FAB_H */
