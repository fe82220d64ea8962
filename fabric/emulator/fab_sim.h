/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside a run of ofan-fabric: the state its files share -- fab_run.c
 * (one run from start to results), fab_sim.c (the event loop, links,
 * threads), fab_control.c (failures and routing), fab_fifo.c (wire FIFOs
 * and NIC slots) and fab_build.c (building a fabric of engines, tearing it
 * down, collecting the results).  Not an interface: only those files
 * include it.  See fab_sim.c for how a run works.
 */
#ifndef OFAN_FAB_SIM_H
#define OFAN_FAB_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rte_common.h>
#include <rte_lpm.h>
#include <rte_mbuf.h>

#include "fab.h"
#include "fab_evq.h"
#include "fab_mpi.h"
#include "hs_host.h"
#include "hs_workload.h"
#include "sw_engine.h"

#define FAB_BURST 32
#define FAB_T0_NS 1000			/* the traffic starts here */
#define FAB_CTL_PHASES 8		/* control event index: failure * 8 + phase */
#define FAB_MAX_CTL (4 * FAB_MAX_FAILURES)
#define FAB_EV_SHIFT 28			/* event `what`: kind << 28 | index */
#define FAB_EV_INDEX(what) ((what) & ((1u << FAB_EV_SHIFT) - 1))
#define FAB_EV_KIND(what) ((what) >> FAB_EV_SHIFT)

/*
 * Kinds of events, in the order simultaneous events run (fab_evq.h): the
 * control plane first (as a barrier does in a split run), then arrivals
 * (a frame is queued before a serialiser that frees up at the same
 * instant picks the next one), then serialisers, then hosts.
 */
enum fab_ev_type {
	FAB_EV_CTL = 0, FAB_EV_ARRIVE, FAB_EV_TX, FAB_EV_HOST,
	FAB_EV_UNPAUSE,		/* a PFC pause of a switch port ends */
	FAB_EV_WORK,		/* a training job's host: a compute node
				 * ends, or its job starts (hs_workload.h) */
};

/* Control phases of a failure (index = failure * FAB_CTL_PHASES + phase). */
enum fab_ctl_phase {
	FAB_CTL_FAIL = 0,	/* the link fails */
	FAB_CTL_TICK,		/* switch control planes act (detection) */
	FAB_CTL_ROUTE,		/* routing reconverged: new weights */
	FAB_CTL_RESTORE,	/* the link comes back */
	FAB_CTL_ROUTE_BACK,	/* routing uses it again (route_back) */
};


/* Frames in order, each with a time (due, for a wire). */
struct fab_slot {
	struct rte_mbuf *m;
	uint64_t t;
};

struct fab_fifo {
	struct fab_slot *e;
	uint32_t head, tail, mask;
};

/*
 * One direction of a link, the sender's side: the egress at one end and
 * its serialiser.  Written only by the thread that owns the sender.
 */
struct fab_dir {
	uint64_t busy_until;	/* the serialiser is free from then */
	uint64_t rate_bps;
	uint64_t delay_ns;
	/* A switch port's frame being sent: it stays in the engine's queue
	 * (and counts there) until its last bit has left. */
	struct rte_mbuf *in_service;
	struct fab_fifo out[2];	/* to another thread, by window parity */
	uint32_t from;		/* host rank or switch index */
	uint16_t from_port;
	uint8_t from_host;
	uint8_t tx_pending;
	uint8_t layer;
	uint8_t cross;		/* the receiver is another part's */
	uint8_t tx_owner, rx_owner;	/* threads, when local */
	uint8_t tx_local, rx_local;	/* sender / receiver in this rank */
	uint16_t rx_rank;		/* the receiver's rank */
	uint32_t win;		/* current queue window and its maxima */
	uint32_t win_max;
	uint64_t win_max_bytes;
	uint32_t last_len;	/* the last frame's wire bytes and time: most */
	uint64_t last_ser;	/* frames are full data frames or ACKs */
	uint64_t nb_frames;	/* frames put on the wire */
	/* A black hole: frames are sent at the link's rate, then lost on
	 * the wire (htsim's drop-all queue); set and cleared by fab_control. */
	uint8_t hole;
	/* Stalled (FAB_FAIL_STALL): no frame starts; set by fab_control. */
	uint8_t stalled;
	/* PFC: the UNPAUSE event this paused switch port waits for, 0: none. */
	uint64_t unpause_at;
	uint64_t drop_first;	/* [drop.*]: frames drop_first .. drop_end - 1 */
	uint64_t drop_end;	/* 0: none */
	struct ofan_loss *loss;	/* [drop.*] random or bursts, NULL: none */
} __rte_cache_aligned;

/* The receiver's side: the wire's far end.  Its owner's only. */
struct fab_rx {
	struct fab_fifo wire;
	uint32_t to;		/* host rank or switch index */
	uint16_t to_port;
	uint8_t to_host;
	uint8_t rx_pending;
} __rte_cache_aligned;

/*
 * A host's NIC: a FIFO per NIC slot (hs_host_nic_slots(): the data of each
 * flow it sends, the ACKs of each flow it receives, ARP), served round
 * robin one frame per turn in slot (flow id) order from where the last
 * turn ended -- an RDMA NIC serving its queue pairs, htsim's
 * ConstFairScheduler.  A bitmap finds the next busy slot.
 */
struct fab_nic {
	struct fab_fifo *slot;
	uint64_t *busy;
	uint32_t nb_slots;
	uint32_t pos;		/* the next slot to look at */
	uint32_t len;		/* frames queued */
	uint32_t limit;		/* frames per data slot ([fabric] nic_queue) */
};

struct fab_hnode {
	struct hs_host *h;
	struct fab_nic nic;
	uint32_t dir;
	uint64_t wake_at;	/* the pending HOST event, UINT64_MAX: none */
	bool done;
};

struct fab_snode {
	struct sw_engine *eng;
	struct sw_worker *w;
	uint16_t nb_ports;
	uint32_t dir[SW_MAX_PORTS];
};

struct fab_sim;

/*
 * The fabric a run drives: each link direction's sender side (dirs[d]) and
 * receiver side (rx[d]), directions 2 x link + end; the hosts by rank and
 * the switches by index, with their engines (NULL where another MPI rank
 * runs them).  fab_build.c builds and frees it, fab_sim.c's events drive
 * it, fab_control.c's failures change its links.  The per-frame code
 * indexes these arrays straight from struct fab_sim (no pointer to this).
 */
struct fab_net {
	uint32_t nb_dirs;
	struct fab_dir *dirs;
	struct fab_rx *rx;
	struct fab_hnode *hosts;
	struct fab_snode *sw;
	/* The frame model costs data and ACKs apart (not Ethernet): a
	 * host's frames are told apart on their way to the wire. */
	bool frame_kinds;
	/* The lossy directions' ([drop.*]): each its own stream of the
	 * run's seed, so what is lost is the same for any thread count. */
	struct ofan_loss loss[FAB_MAX_DROPS];
};

/*
 * What the hosts send: their configuration (the scheme's policy, the
 * fabric's RTT), the traffic and its triggers, and a training job's run.
 * fab_build.c sets it up and frees it, fab_sim.c's flow ends drive the
 * triggers and the workload (fab_sim_flow_end, fab_wl_release,
 * fab_wl_timer), fab_collect.c reads the flows' ideals from it.
 */
struct fab_load {
	struct hs_config hcfg;
	struct hs_traffic traffic;
	/* Training jobs: the workload the traffic's flows belong to, or NULL
	 * (owned). */
	struct hs_workload *workload;
	struct hs_trigger_state trig;
	/* Training jobs: the workload's run, here when has_wl (the rank
	 * with the one part: a workload always runs as one). */
	struct hs_wl_run wl;
	bool has_wl;
};

/*
 * The parts the fabric is cut into (pods, or groups of leaves and spines
 * with their hosts), one per thread, numbered over the MPI job: rank x
 * threads + thread.  fab_run.c sizes them (threads per rank), fab_build.c
 * gives every node its part (fab_partition) and falls back to one part
 * when triggers or a workload cross parts; fab_part_local() and
 * fab_part_thr() answer whether a part is this rank's and whose thread.
 */
struct fab_parts {
	uint16_t *sw_owner;	/* per switch, its part */
	uint16_t *host_owner;	/* per host, its part */
	uint16_t nb_thr;	/* threads of this rank */
	/* This rank runs parts part0 .. part0 + nb_thr - 1 of nb_parts
	 * (--spread parts); a job of one has part0 = 0, nb_parts =
	 * nb_thr. */
	uint16_t part0, nb_parts, thr_per_rank;
	bool one_part;		/* triggers cross parts: one thread */
};

/*
 * The MPI job a run's parts are split over (--spread parts; job NULL when
 * this process runs them all) and, per rank, the frames to hand over at a
 * window's end and those handed over.  fab_run.c joins the job,
 * fab_build.c sizes the buffers and fab_sim_free() frees them,
 * fab_coord.c's fab_exchange() moves the frames and its fab_coordinate()
 * reduces the window's decision over the job, and fab_collect.c merges
 * every rank's results on rank 0.
 */
struct fab_split {
	const struct fab_mpi *job;
	struct fab_xbuf *out, *in;	/* per rank */
};

/*
 * Where frames and routes live: the mbuf pool (growing between windows
 * when grow is set: fab_pool.h) and the switches' shared FIB (kept from
 * run to run in fib_cache when set).  fab_run.c takes them from its
 * caller, fab_build.c's fab_fib_get() picks or builds the FIB and
 * fab_sim_free() frees a FIB of the run's own, fab_coord.c sizes the
 * pool's need (fab_sim_start) and tops it up before each window.
 */
struct fab_mem {
	struct rte_mempool *pool;
	struct fab_pool *grow;	/* fab_run_opts.pool, NULL: pool is all */
	uint32_t pool_need;	/* mbufs to have free before each window */
	struct rte_lpm *fib;
	struct fab_fib_cache *fib_cache; /* NULL: fib is this run's own */
};

/*
 * The progress lines rank 0 prints about every second of wall time
 * ("PROG: scheme ... us simulated, ...% of bytes acknowledged"), and the
 * wall clock the run's time is measured on.  fab_run.c sets it from
 * fab_run_opts, fab_coord.c's fab_progress_*() print them.
 */
struct fab_progress {
	bool quiet;		/* no lines */
	const char *prog;	/* the lines' "PROG:" */
	const char *scheme;
	struct timespec wall0;	/* the run's start */
	struct timespec wall_last;	/* the last line */
	bool due;		/* rank 0 asked for a line this window */
};

/* One thread's part of the run. */
struct fab_thr {
	struct fab_sim *s;
	uint16_t id;
	unsigned int lcore;
	struct fab_evq *q;
	uint64_t now;
	uint32_t nb_net_ev;	/* ARRIVE and TX events queued */
	bool failed;		/* out of memory for an event */
	uint32_t win;		/* queue window of now ... */
	uint64_t win_end;	/* ... which ends here */
	uint64_t injected, delivered, hops, events, lost, dropped_on_purpose;
	uint64_t blackholed;	/* frames a black-holed wire lost */
	uint32_t nb_hosts_done;
	uint64_t last_done_ns;	/* when its last host finished */
	struct fab_qwin *qwin;
	uint32_t nb_qwin, qwin_cap;
	uint32_t *in_dirs;	/* links from other threads into this one */
	uint32_t nb_in;
} __rte_cache_aligned;

struct fab_barrier {
	uint32_t n;
	volatile uint32_t count;
	volatile uint32_t gen;
};

/*
 * The event loop's clock and windows.  Time starts at t0 and runs to
 * limit; the threads run windows no longer than lookahead (a link's
 * delay) apart and meet at bar between them, where thread 0 alone
 * (fab_coord.c's fab_coordinate) runs the control events, decides to
 * stop and sets the next window.  fab_run.c sets the clock and the
 * caller's hooks (fab_run_opts: interrupt, between).
 */
struct fab_loop {
	uint64_t t0;
	uint64_t limit;		/* events before this run: time_limit + 1 */
	uint64_t lookahead;
	/* Windows, set by thread 0 between barriers. */
	struct fab_barrier bar;
	uint64_t w_end;
	uint32_t w_index;
	bool stop;
	uint64_t done_ns;	/* the last host done, 0: not all yet */
	/* When *interrupt becomes non-zero the run stops at its next
	 * window; between(between_arg) runs between windows (NULL: not). */
	const volatile int *interrupt;
	void (*between)(void *arg);
	void *between_arg;
};

/* A control event (failure phases), run at a window's end. */
struct fab_ctl {
	uint64_t t;
	uint32_t idx;
};

/*
 * The control events due (failure phases), unordered: fab_ctl_next()
 * finds the earliest.  fab_control.c owns it: fab_coord.c's
 * fab_sim_start() books the failures, fab_coordinate() takes what is due
 * at a window's end, and fab_control() books each phase's next.
 */
struct fab_ctl_queue {
	uint16_t nb;
	struct fab_ctl ev[FAB_MAX_CTL];
};

struct fab_sim {
	const struct fab_params *p;
	struct fab_topo *t;
	struct fab_run *r;
	struct fab_net net;
	struct fab_load load;
	struct fab_parts parts;
	struct fab_loop loop;
	struct fab_ctl_queue ctl;
	struct fab_split mpi;
	struct fab_mem mem;
	struct fab_progress progress;
	struct fab_thr thr[FAB_MAX_THREADS];
};

/* ---- FIFOs and NIC slots (fab_fifo.c) ---- */

static inline uint32_t
fab_fifo_len(const struct fab_fifo *f)
{
	return f->tail - f->head;
}

/* Append m due at t; -ENOMEM if the FIFO cannot grow. */
int fab_fifo_push(struct fab_fifo *f, struct rte_mbuf *m, uint64_t t);
/* Free what is left (returned, for the caller to count) and the storage. */
uint32_t fab_fifo_free(struct fab_fifo *f);

int fab_nic_init(struct fab_nic *n, uint32_t nb_slots);
/* Queue m in its slot (m->hash.usr); -ENOMEM if it cannot grow. */
int fab_nic_push(struct fab_nic *n, struct rte_mbuf *m);
/* The next frame round robin, NULL if empty; *slot is its slot. */
struct rte_mbuf *fab_nic_pop(struct fab_nic *n, uint32_t *slot);
/* hs_host_params.nic_full: the slot holds limit frames. */
bool fab_nic_full(void *nic, uint32_t slot);
uint32_t fab_nic_free(struct fab_nic *n);

/* Is part (global) one of this rank's?  Its thread, when it is. */
static inline bool
fab_part_local(const struct fab_parts *pt, uint16_t part)
{
	return part >= pt->part0 && part < pt->part0 + pt->nb_thr;
}

static inline uint8_t
fab_part_thr(const struct fab_parts *pt, uint16_t part)
{
	return (uint8_t)(part - pt->part0);
}

/* The thread of this rank that runs host rank (a host of this rank's). */
static inline struct fab_thr *
fab_host_thr(struct fab_sim *s, uint32_t rank)
{
	return &s->thr[fab_part_thr(&s->parts, s->parts.host_owner[rank])];
}

/* ---- one thread's events in a window (fab_sim.c) ---- */

/* The hosts' on_flow_end: activate the trigger, start its flows; or tell
 * the workload. */
void fab_sim_flow_end(void *arg, uint32_t flow, bool received, uint64_t now);
/* The workload's driver (hs_wl_driver): start a flow; wake a host. */
void fab_wl_release(void *arg, uint32_t flow, uint64_t now);
void fab_wl_timer(void *arg, uint32_t host, uint64_t at);
/* Take the frames other threads handed to th's wires in window parity. */
void fab_drain(struct fab_thr *th, uint32_t parity);
/* Run th's events up to w_end (the window's end, excluded). */
void fab_thr_window(struct fab_thr *th, uint64_t w_end);
/* Serialise what switch port direction d has queued (its owner thread). */
void fab_sw_tx(struct fab_thr *th, uint32_t d);
/* The same for any direction, a host's NIC included. */
void fab_dir_tx(struct fab_thr *th, uint32_t d);
/* Let host rank send what it may now, and schedule its next event. */
void fab_host_kick(struct fab_thr *th, uint32_t rank);
/* Count host rank done once it has sent and received everything. */
void fab_host_check_done(struct fab_thr *th, uint32_t rank);
/* Record direction d's largest queue of its current window (queue-time.csv). */
void fab_qwin_flush(struct fab_thr *th, uint32_t d);

/* ---- between windows (fab_coord.c) ---- */

/* Schedule the failures, start the hosts, run the first control window. */
void fab_sim_start(struct fab_sim *s);
/*
 * Run every part's thread to the end and fill s->r's counts and times.
 * Returns 0, -EBUSY when a thread could not start (nothing ran), or
 * -ENOMEM when a thread ran out of memory for events (the run ended).
 */
int fab_sim_go(struct fab_sim *s, char *err, unsigned int err_size);
/* Seconds of wall time since a. */
double fab_sim_wall_since(const struct timespec *a);

/* ---- the control plane (fab_control.c) ---- */

/* A control event at t (thread 0, between windows). */
void fab_ctl_push(struct fab_ctl_queue *q, uint64_t t, uint32_t idx);
/* The earliest control event by (time, index); -1 if none. */
int fab_ctl_next(const struct fab_ctl_queue *q);
/* Take control event c (fab_ctl_next's) off the queue. */
struct fab_ctl fab_ctl_take(struct fab_ctl_queue *q, int c);
/*
 * Run control event idx (failure * FAB_CTL_PHASES + phase) at now.  Fills
 * drain[] with the directions whose link changed state, for the caller to
 * serve (a dead link's queue drops; a stalled one's is sent again), and
 * returns how many.
 */
uint32_t fab_control(struct fab_sim *s, uint32_t idx, uint64_t now,
		     uint32_t drain[2]);
/* Links that fail from the start, routed around before anything runs. */
void fab_fail_at_start(struct fab_sim *s);

/* ---- building and results (fab_build.c) ---- */

/* Build the engines, links and threads of s for scheme (s->p, s->t set). */
int fab_sim_build(struct fab_sim *s, uint16_t scheme, char *err,
		  unsigned int err_size);
/* Free everything built, counting frames still anywhere as queued. */
void fab_sim_free(struct fab_sim *s);
/* Fill s->r from the hosts, switches and threads; 0 or -ENOMEM. */
int fab_sim_collect(struct fab_sim *s);

#endif /* OFAN_FAB_SIM_H */
