/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch engine: one software switch, independent of how its ports
 * are backed.
 *
 * An engine instance owns the forwarding state built from a sw_config: the
 * FIB (rte_lpm, prefix -> route -> next-hop group + destination key), the
 * next-hop groups, link states and failure schedule.  Packet work is done
 * by its workers, one per forwarding lcore, each with its own policy
 * instance, egress queues and counters, so the data path takes no lock.
 *
 * Whoever drives the engine supplies packets and time:
 *   - ofan-switch: ethdev rx bursts, the TSC clock, rte_eth_tx_burst;
 *   - ofan-fabric: emulated links and a virtual clock.
 * The pipeline of sw_worker_input() is, per burst, two passes around one
 * policy call (the burst or vector path, as DPDK's l3fwd):
 *   parse, ARP replies for our addresses, FIB and the policy's metadata
 *   (the flow hash only where a group has a choice) for each frame ->
 *   policy pick for the burst -> rewrite (MACs, TTL, checksum) and egress
 *   queue (ECN, tail drop), or straight to the device for a port without
 *   a queue.
 * Transmission from queues is pulled by the driver with
 * sw_worker_tx_peek() and sw_worker_tx_commit().
 * sw_worker_input_scalar() is the same pipeline a packet at a time, the
 * reference the vector path is tested against.
 *
 * The control plane (sw_engine_control(), failures, telemetry requests)
 * runs on one thread.  It changes group weights in a master copy and
 * publishes a new snapshot; each worker adopts it at the start of its next
 * burst and acknowledges, so a snapshot is reused only once every worker
 * has left it.
 */
#ifndef OFAN_SW_ENGINE_H
#define OFAN_SW_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "lb.h"
#include "ofan_parse.h"
#include "ofan_rng.h"
#include "sw_config.h"
#include "sw_queue.h"

#define SW_MAX_WORKERS 16
#define SW_MAX_BURST 512

struct sw_engine;

/*
 * A driver's transmit for direct output: hand n frames to port's device
 * (queue: the worker's); returns how many it took.  The rest stay the
 * caller's (the engine frees and counts them as tx_full).
 */
typedef uint16_t (*sw_tx_fn)(void *arg, uint16_t port,
			     struct rte_mbuf **pkts, uint16_t n);

/* Frames of one input burst on their way to a port without a queue. */
#define SW_DIRECT_BURST 64
struct sw_direct {
	uint16_t n;
	uint32_t bytes;
	struct rte_mbuf *pkts[SW_DIRECT_BURST];
};

/* Per-port counters of one worker. */
/*
 * The counters of a port, declared once: X(field, key, what).  Each worker
 * keeps its own; sw_engine_totals() sums them, and the JSON summary
 * (sw_stats.c) and /ofan/ports (sw_telemetry.c) write each under its key.
 * Adding a counter is one line here (and the code that counts it).
 *
 * A drop is counted once, where it happens: before an egress port was
 * picked (a malformed frame, no route, the input link down) at the input
 * (drops), after it at that egress port (egress_drops: its queue or
 * device was full, its link failed, loss injected there).  Summed over
 * the ports, drops + egress_drops is the sum of the drop reasons.
 * rx_dropped_at_egress splits the egress drops that happen as a frame is
 * routed to its port (queue full, injected loss, PFC headroom, a stalled
 * port) by the input whose arrival caused them (the frame itself, or the
 * queued one trimmed in its place): it is not more drops.  What a port
 * loses later, at its device (tx_full, a failed link) or at shutdown,
 * carries no input and is in no input's.
 */
#define SW_PORT_COUNTERS(X) \
	X(rx_pkts, "rx", "packets received") \
	X(rx_bytes, "rx_bytes", "bytes received") \
	X(tx_pkts, "tx", "packets sent") \
	X(tx_bytes, "tx_bytes", "bytes sent") \
	X(drops, "rx_drops", \
	  "drops of packets received here, before an egress port was picked") \
	X(egress_drops, "drop", \
	  "drops at this egress port: of packets routed to it, of its replies") \
	X(rx_dropped_at_egress, "rx_dropped_at_egress", \
	  "of the egress drops (drop), those that arrivals from here caused") \
	X(arp_replies, "arp_replies", \
	  "ARP replies made for this port's address (one its queue had no room for is also a drop here)") \
	X(icmp_sent, "icmp_time_exceeded", \
	  "ICMP time-exceeded replies sent from this port (TTL expired here)") \
	X(icmp_limited, "icmp_limited", \
	  "TTL-expired packets not answered: rate limit, no address, no mbuf") \
	X(headers_returned, "headers_returned", \
	  "trimmed headers sent back from this port to their senders (rts)") \
	X(headers_turned, "headers_turned_back", \
	  "trimmed headers of frames routed here handed back for their senders (rts; headers_returned at the port each leaves by, or a drop)") \
	X(pfc_pauses_sent, "pfc_pauses_sent", \
	  "PFC pauses sent upstream from this lossless port (xoff, and refreshes)") \
	X(pfc_resumes_sent, "pfc_resumes_sent", \
	  "PFC zero-quanta frames sent upstream from this port (xon)") \
	X(pfc_pauses_received, "pfc_pauses_received", \
	  "PFC frames for our priority received here, resumes included") \
	X(pfc_paused_ns, "pfc_paused_ns", \
	  "time this port's egress was paused, ns")

struct sw_port_stats {
#define SW_PORT_FIELD(field, key, what) uint64_t field;
	SW_PORT_COUNTERS(SW_PORT_FIELD)
#undef SW_PORT_FIELD
} __rte_cache_aligned;

/*
 * PFC state of one port in one worker (sw_pfc.c): as a lossless ingress,
 * the bytes it brought in that this worker still holds and whether its
 * upstream is paused; as an egress, the pause frame it has to send.
 */
struct sw_pfc_port {
	uint64_t in_bytes;	/* brought in here, still queued */
	uint64_t xoff_at;	/* when the last pause went upstream */
	struct rte_mbuf *frame;	/* a pause frame peeked, not yet sent */
	int32_t pending;	/* quanta to send from this port, -1: none */
	int32_t frame_quanta;	/* what frame carries */
	bool xoff;		/* the upstream is paused */
	bool latch;		/* the last peek began with a queued frame */
};

struct sw_worker {
	struct sw_engine *eng;
	uint16_t id;
	void *lb_state;
	struct ofan_rng rng;		/* ECN marking */
	/* ICMP time-exceeded replies: a token bucket ([switch] icmp_rate). */
	uint64_t icmp_tokens_at;	/* when the bucket was last filled */
	uint32_t icmp_tokens;
	uint32_t hash_seed;
	uint32_t groups_gen;		/* snapshot generation in use */
	struct lb_group *groups;	/* private copy of the snapshot */
	struct sw_queue queue[SW_MAX_PORTS];
	uint8_t port_level[SW_MAX_PORTS];
	uint32_t port_len[SW_MAX_PORTS];	/* packets queued per port */
	uint32_t port_cap[SW_MAX_PORTS];	/* queue capacity per port */
	uint64_t port_bytes[SW_MAX_PORTS];	/* bytes queued per port */
	uint64_t port_cap_bytes[SW_MAX_PORTS];	/* byte capacity (UINT64_MAX: none) */
	struct sw_port_stats port_st[SW_MAX_PORTS];
	uint64_t drops[OFAN_DROP_MAX];
	uint64_t picks[SW_MAX_PORTS];	/* policy decisions per egress port */
	sw_portmask touched;		/* ports queued to by the last input */
	uint32_t peek_len[SW_MAX_BURST];	/* lengths of the last peek */
	/*
	 * Direct transmit (sw_worker_set_direct_tx()): ports without a
	 * software queue collect a burst's frames here, and the input hands
	 * them to tx_fn before it returns.
	 */
	sw_tx_fn tx_fn;
	void *tx_arg;
	sw_portmask unqueued_mask;		/* ports whose queue is off */
	/* Lossy egress ports ([drop.*]), and their state. */
	sw_portmask loss_mask;
	struct ofan_loss loss[SW_MAX_PORTS];
	sw_portmask direct_now;		/* of those, sent directly by this input */
	sw_portmask direct_mask;		/* ports with frames in direct[] */
	struct sw_direct direct[SW_MAX_PORTS];
	/* PFC (sw_pfc.c): on when any port is a software lossless port. */
	bool pfc_any;
	sw_portmask pfc_in_mask;		/* lossless ingress ports */
	sw_portmask pfc_kick;		/* ports with a pause to send or a pause
					 * state change, for the driver */
	sw_portmask pfc_peeked;		/* ports whose last peek is a pause frame */
	struct rte_mempool *pfc_pool;	/* where pause frames come from */
	struct sw_pfc_port pfc[SW_MAX_PORTS];
	/* Set by the worker after it adopted a snapshot; read by control. */
	volatile uint32_t acked_gen;
} __rte_cache_aligned;

/* Live state of one port, written by control, read by workers. */
struct sw_port_state {
	union {
		struct {
			uint8_t peer_mac[6];
			uint8_t mac[6];
		};
		/* A forwarded frame's Ethernet addresses, in frame order. */
		uint8_t eth_addrs[12];
	};
	volatile uint8_t link;		/* enum sw_link_state */
	volatile uint8_t peer_known;
	volatile uint64_t rate_bps;	/* current shaping rate (0 = none) */
	/* Its queue's capacity and ECN thresholds, per mille (1000: as set). */
	volatile uint16_t queue_permille;
	/*
	 * PFC: the peer paused this egress from pause_from to pause_until
	 * (0: not paused), written by the worker that received the pause,
	 * pause_worker, which also counts the pause when it ran out.
	 */
	volatile uint64_t pause_until;
	uint64_t pause_from;
	uint16_t pause_worker;
	uint64_t failed_at_ns;		/* when the current failure began */
	bool removed;			/* paths through it withdrawn */
};

/*
 * Create an engine for cfg with nb_workers workers.  port_macs gives each
 * port's own MAC (from the device unless configured).  socket is the NUMA
 * node for allocations.  Returns NULL with a message in err.
 */
struct sw_engine *sw_engine_create(const struct sw_config *cfg,
				   uint16_t nb_workers,
				   const uint8_t (*port_macs)[6], int socket,
				   char *err, unsigned int err_size);
/*
 * The same with a FIB shared between engines (ofan-fabric: rte_lpm takes
 * 64 MB per table, so the switches of a fabric share one).  fib must come
 * from sw_fib_create() on a configuration with the same routes, in the
 * same order (its next hops are route indices; each engine maps them to
 * its own groups and keys), and no port addresses; the caller frees it
 * after every engine that uses it.
 */
struct rte_lpm;
struct sw_engine *sw_engine_create_shared(const struct sw_config *cfg,
					  uint16_t nb_workers,
					  const uint8_t (*port_macs)[6],
					  int socket, struct rte_lpm *fib,
					  char *err, unsigned int err_size);
/* A FIB of cfg's routes and port addresses; NULL with a message in err. */
struct rte_lpm *sw_fib_create(const struct sw_config *cfg, int socket,
			      char *err, unsigned int err_size);
void sw_fib_free(struct rte_lpm *fib);

/*
 * Free the engine, freeing every mbuf still queued (counted as drops).
 * Returns the number of queued mbufs freed.
 */
uint32_t sw_engine_free(struct sw_engine *eng);

/*
 * Free every mbuf still in an egress queue, counting each as a drop
 * (reason shutdown).  The engine stays usable.  Returns how many.
 */
uint32_t sw_engine_free_queues(struct sw_engine *eng);

const struct sw_config *sw_engine_config(const struct sw_engine *eng);
struct sw_worker *sw_engine_worker(struct sw_engine *eng, uint16_t id);
uint16_t sw_engine_nb_workers(const struct sw_engine *eng);
struct sw_port_state *sw_engine_port(struct sw_engine *eng, uint16_t port);

/*
 * Process a burst received on in_port at now: every mbuf is consumed
 * (queued for transmit, turned into an ARP reply, or freed and counted
 * under a drop reason).  Called only by the worker's own lcore.
 */
void sw_worker_input(struct sw_worker *w, uint16_t in_port,
		     struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns);

/*
 * The scalar reference of sw_worker_input(): one packet at a time through
 * every stage, every frame through the egress queue (never direct).  Same
 * outputs, bytes and counters as the vector path (test_engine's
 * equivalence test); kept as the definition the fast path is checked
 * against.
 */
void sw_worker_input_scalar(struct sw_worker *w, uint16_t in_port,
			    struct rte_mbuf **pkts, uint16_t n,
			    uint64_t now_ns);

/*
 * Direct transmit for ports whose queue is off ([queue] enabled = no):
 * sw_worker_input() then hands their frames to fn before it returns,
 * with no staging ring, and counts what fn does not take as tx_full (as
 * a disabled queue's commit does).  Frames to ports with a queue, and
 * all frames of sw_worker_input_scalar(), still go through
 * sw_worker_tx_peek()/sw_worker_tx_commit().  NULL turns it off.
 */
void sw_worker_set_direct_tx(struct sw_worker *w, sw_tx_fn fn, void *arg);

/*
 * Whether port has nothing to send: an empty queue and no pause frame
 * due.  sw_worker_tx_peek() would return 0 at once; a driver polling
 * every port checks this first, in line.
 */
static inline bool
sw_worker_tx_idle(const struct sw_worker *w, uint16_t port)
{
	return sw_queue_len(&w->queue[port]) == 0 && w->pfc[port].pending < 0;
}

/*
 * Packets of port's egress queue that may leave at now (shaping), at most
 * max; they stay queued until sw_worker_tx_commit() says how many the
 * device took.  Link failures are applied here: packets to a down or
 * black-holed link are dropped and counted, not returned.
 */
uint16_t sw_worker_tx_peek(struct sw_worker *w, uint16_t port,
			   uint64_t now_ns, struct rte_mbuf **pkts,
			   uint16_t max);
void sw_worker_tx_commit(struct sw_worker *w, uint16_t port,
			 uint64_t now_ns, struct rte_mbuf **pkts,
			 uint16_t nb_peeked, uint16_t nb_sent);

/*
 * What a worker's caller (ofan-switch's lcores, ofan-fabric's links) may
 * know about its queues; nothing outside the engine reads struct
 * sw_worker's fields.
 */
_Static_assert(SW_MAX_PORTS <= 64, "a port set is a 64-bit mask");

/* The policy instance's counters (lb_ops.dump), if it has any. */
void sw_worker_dump_policy(const struct sw_worker *w,
			   void (*emit)(void *arg, const char *key,
					uint64_t value),
			   void *arg);

/* The worker's index, 0 .. nb_workers - 1 (its TX queue). */
static inline uint16_t
sw_worker_id(const struct sw_worker *w)
{
	return w->id;
}

/* The ports whose egress queue the last sw_worker_input() added to. */
static inline sw_portmask
sw_worker_touched(const struct sw_worker *w)
{
	return w->touched;
}

/* Packets queued for port now, the frame being sent included. */
static inline uint32_t
sw_worker_queue_len(const struct sw_worker *w, uint16_t port)
{
	return w->port_len[port];
}

/* Bytes queued for port now. */
static inline uint64_t
sw_worker_port_bytes(const struct sw_worker *w, uint16_t port)
{
	return w->queue[port].bytes;
}

/* The packet at the head of port's queue (to prefetch), NULL if none. */
static inline const struct rte_mbuf *
sw_worker_queue_head(const struct sw_worker *w, uint16_t port)
{
	const struct sw_queue *q = &w->queue[port];

	if (q->ctrl.head != q->ctrl.tail)
		return q->ctrl.ring[q->ctrl.head & q->ctrl.mask];
	return q->head != q->tail ? q->ring[q->head & q->mask] : NULL;
}

/*
 * Whether port has something to send: queued frames, or a PFC frame.
 * A serialiser that finds nothing to peek while this holds is paused
 * (sw_worker_paused_until()).
 */
static inline bool
sw_worker_tx_ready(const struct sw_worker *w, uint16_t port)
{
	return w->port_len[port] != 0 || w->pfc[port].pending >= 0;
}

/*
 * The ports that need their serialiser looked at since the last call:
 * a PFC frame to send, or a pause received (ofan-fabric calls it after
 * every input and commit).
 */
static inline sw_portmask
sw_worker_take_kicks(struct sw_worker *w)
{
	sw_portmask k = w->pfc_kick;

	w->pfc_kick = 0;
	return k;
}

/* Until when port's egress is paused by its peer (PFC). */
uint64_t sw_worker_paused_until(const struct sw_worker *w, uint16_t port);

/*
 * PFC on port's link (sw_pfc.c): its rate (pause quanta are bit times
 * of it) and one-way delay, and the largest frame, for the headroom of
 * pfc_headroom = 0: what arrives after xoff before the pause takes
 * effect, 2 x delay x rate plus a frame either side and the pause.
 * Call before traffic; the default is 100 Gb/s, no delay, 9216 bytes.
 */
void sw_engine_set_pfc_link(struct sw_engine *eng, uint16_t port,
			    uint64_t rate_bps, uint64_t delay_ns,
			    uint32_t max_frame);
/*
 * The NIC runs PFC on port (ofan-switch, when
 * rte_eth_dev_priority_flow_ctrl_set() took it): the engine sends no
 * pauses of its own for it and counts nothing.
 */
void sw_engine_set_pfc_nic(struct sw_engine *eng, uint16_t port);
/* The headroom and thresholds port uses (for logs and docs). */
void sw_engine_pfc_limits(const struct sw_engine *eng, uint16_t port,
			  uint64_t *xoff, uint64_t *xon, uint64_t *headroom);

/* Start loading what the next sw_worker_tx_peek() of port reads. */
static inline void
sw_worker_prefetch_tx(const struct sw_worker *w, uint16_t port)
{
	rte_prefetch0(&w->queue[port]);
}

/*
 * The length of the i-th packet the last sw_worker_tx_peek() returned
 * (without touching the packet).
 */
static inline uint32_t
sw_worker_peeked_len(const struct sw_worker *w, uint16_t i)
{
	return w->peek_len[i];
}

/*
 * Where the engine reports what its control plane does to links: a
 * scheduled failure or restoration, a telemetry request, a port leaving
 * or rejoining its groups.  now_ns is the engine's time, msg one line
 * without a newline ("port 5 (net_null5): down (scheduled,
 * [failure.spine1])").  NULL (the default) reports nothing.
 */
typedef void (*sw_log_fn)(void *arg, uint64_t now_ns, const char *msg);
void sw_engine_set_log(struct sw_engine *eng, sw_log_fn log, void *arg);

/* True while a sw_engine_request() waits for the next control tick. */
bool sw_engine_request_pending(const struct sw_engine *eng);

/*
 * Where the config's schedule ([failure.*] at and duration, [reroute.*]
 * at) counts from, in engine time: 0 (the default) is the engine's own
 * start; ofan-switch --start-at moves it to a moment shared by every
 * process of a testbed, which may lie before the engine started
 * (negative: what is due by now happens at the next control tick).
 * SW_SCHEDULE_HELD holds the schedule until a later call gives the start
 * (the moment is not known yet).  May be called at any time from the
 * control thread; the next sw_engine_control() follows it.
 */
#define SW_SCHEDULE_HELD INT64_MAX
void sw_engine_set_schedule_start(struct sw_engine *eng, int64_t start_ns);

/*
 * Control plane tick: applies scheduled failures, restorations and
 * reroutes whose time has come, withdraws paths after the
 * detection/reconvergence delay and publishes group snapshots.  Call from one thread, often (each main
 * loop iteration or every few microseconds of virtual time).
 */
void sw_engine_control(struct sw_engine *eng, uint64_t now_ns);

/*
 * A degraded link's queue (fabric): port's byte capacity and ECN
 * thresholds at permille / 1000 of their configuration from its next
 * transmission on (1000 restores them).  Call from the control thread
 * only.  Returns 0 or -EINVAL.
 */
int sw_engine_set_queue_scale(struct sw_engine *eng, uint16_t port,
			      uint16_t permille);

/*
 * Runtime failure (telemetry command, fabric): set port's link state at
 * now.  mode UP restores it.  rate_bps is the degraded rate.  Thread-safe
 * against workers; call from the control thread only (telemetry requests
 * go through sw_engine_request()).  Returns 0 or -EINVAL.
 */
int sw_engine_set_link(struct sw_engine *eng, uint16_t port,
		       enum sw_link_state mode, uint64_t rate_bps,
		       uint64_t now_ns);

/*
 * Post a link change from any thread (e.g. the telemetry thread); the
 * control tick applies it.  Returns 0, -EBUSY if one is pending, -EINVAL.
 */
int sw_engine_request(struct sw_engine *eng, uint16_t port,
		      enum sw_link_state mode, uint64_t rate_bps);

/*
 * Set the weight (number of live paths) of member port in group, e.g. from
 * the fabric's routing; takes effect at the next publish (control tick).
 */
int sw_engine_set_weight(struct sw_engine *eng, uint16_t group,
			 uint16_t port, uint16_t weight);

/* Sum of every worker's counters, for stats and telemetry. */
struct sw_totals {
	struct sw_port_stats port[SW_MAX_PORTS];
	struct sw_queue_stats queue[SW_MAX_PORTS];
	uint64_t queue_len[SW_MAX_PORTS];	/* packets queued now */
	uint64_t drops[OFAN_DROP_MAX];
	uint64_t picks[SW_MAX_PORTS];
};
void sw_engine_totals(struct sw_engine *eng, struct sw_totals *t);

/* The master copy of group g (control thread view), NULL if none. */
const struct lb_group *sw_engine_group(struct sw_engine *eng, uint16_t g);

#endif /* OFAN_SW_ENGINE_H */
