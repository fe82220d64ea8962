/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host engine: one rank of a collective, independent of how its port
 * is backed and of what clock drives it.
 *
 * A host instance owns one address, the flows it sends (a reliable,
 * sprayable transport per flow: hs_transport.h, with a host load-balancing
 * policy choosing each packet's EV: hlb.h), the flows it receives, and its
 * counters.  Whoever drives it supplies packets and time:
 *   - ofan-host: ethdev bursts and the TSC clock;
 *   - ofan-fabric: emulated links and a virtual clock
 * through three calls: hs_host_input() (a received burst),
 * hs_host_output() (packets due now: ACKs first, then paced data) and
 * hs_host_next_event() (when output next has something to do).  Flows
 * that wait for an htsim trigger start when the driver, which keeps the
 * triggers (hs_traffic.h), calls hs_host_release(); the host reports the
 * flow ends that activate triggers through hs_host_params.on_flow_end.
 * A workload's flows (hs_flow_spec.wl_op) wait likewise for their
 * release by the workload engine (hs_workload.h), and both of their
 * ends are reported.
 *
 * Pacing ([host] pacing): host -- constant-rate senders share the host's
 * rate (link rate x rate_coef) round robin over the active flows, which
 * is each flow at rate / active flows; flow -- every flow has its own
 * pacer (the study's senders).  In the ecn_window mode each flow also
 * keeps a window of packets in flight that shrinks on CE echoes.
 *
 * Every frame built here is tagged with its flow's NIC slot in
 * mbuf->hash.usr (hs_host_nic_slots()): an emulated NIC can then serve
 * its flows round robin, as an RDMA NIC serves its queue pairs.  Drivers
 * do not read the field on transmit.
 */
#ifndef OFAN_HS_HOST_H
#define OFAN_HS_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "hs_host_settings.h"
#include "hs_traffic.h"
#include "ofan_parse.h"

struct hs_host;

/*
 * One rank on several lcores (ofan-host's [port.N] lcores): this host is
 * shard `index` of the rank's `count`.  It owns the send side of the
 * rank's flows whose destination address hashes to it and the receive
 * side of those whose source does (hs_shard.h): what an RSS NIC hashing
 * the IPv4 source delivers to its queue.  Shards share nothing on the
 * packet path; what crosses them goes through the driver:
 *   - a flow received here that a flow sent by another shard waits for
 *     (a dependency): release(release_arg, shard, flow, now) from inside
 *     hs_host_input(); the driver hands it over to that shard, which calls
 *     hs_host_release_dep() on its own lcore;
 *   - pacing = host: the rank's rate is shared over the flows every shard
 *     sends, counted in *rank_active (updated atomically), so a shard
 *     paces at rate x its active flows / the rank's.
 * Only shard 0 announces the rank (ARP); the driver gives it what is not
 * IPv4.
 */
struct hs_host_shard {
	uint16_t index;
	uint16_t count;
	uint16_t reta_size;	/* the redirection table the hash indexes */
	void (*release)(void *arg, uint16_t shard, uint32_t flow,
			uint64_t now_ns);
	void *release_arg;
	uint32_t *rank_active;	/* shared by the rank's shards */
};

struct hs_host_params {
	const struct hs_host_settings *set;
	const struct hs_traffic *traffic;	/* shared, read only */
	uint32_t rank;
	uint8_t mac[6];
	uint8_t dst_mac[6];	/* destination MAC of every frame sent */
	struct rte_mempool *pool;
	/* No gratuitous ARP at start (the fabric's switches know our MAC). */
	bool no_announce;
	/*
	 * Take data frames' mbufs from a small per-host stash refilled with
	 * rte_pktmbuf_alloc_bulk() (HS_MBUF_STASH at a time) instead of one
	 * rte_pktmbuf_alloc() each.  The stash holds up to HS_MBUF_STASH - 1
	 * mbufs of the pool between calls: a pool must be sized for that
	 * per host, and hs_host_return_mbufs() gives them back (before a
	 * leak check).  ofan-host sets it; ofan-fabric does not (its pool
	 * grows on demand, and virtual time does not wait for allocations).
	 */
	bool bulk_alloc;
	/*
	 * Called (may be NULL) when a flow of this host ends that activates
	 * a trigger: received is false when the sender saw flow fully
	 * acknowledged (its send_done_trigger), true when this host, its
	 * receiver, has it all (recv_done_trigger).  It runs inside
	 * hs_host_input() and may call hs_host_release() on any host, this
	 * one included, but not hs_host_output().
	 */
	void (*on_flow_end)(void *arg, uint32_t flow, bool received,
			    uint64_t now_ns);
	void *on_flow_end_arg;
	/*
	 * May be NULL.  A NIC that asks its flows for packets only when it
	 * has room (an RDMA NIC; htsim's send_callback): true if the NIC
	 * queue of slot (hs_host_nic_slots()) is full.  A flow whose queue
	 * is full skips its pacer slots, banking no credit, until the
	 * driver calls hs_host_nic_room().
	 */
	bool (*nic_full)(void *arg, uint32_t slot);
	void *nic_arg;
	/* NULL: the whole rank; else the shard this host is (copied). */
	const struct hs_host_shard *shard;
};

/* Mbufs a host with bulk_alloc keeps between calls, at most (minus one). */
#define HS_MBUF_STASH 32

/* Counters of one host. */
/*
 * A host's counters, declared once: X(field, what).  The field's name is
 * its key in ofan-host's JSON (hs_results.c), in ofan-fabric's
 * summary.json (a run's "host_counters", summed over its hosts) and in its
 * runs.csv (column host_<field>).  Adding a counter is one line here (and
 * the code that counts it).
 */
#define HS_HOST_COUNTERS(X) \
	X(tx_pkts, "frames sent") \
	X(tx_bytes, "bytes sent") \
	X(rx_pkts, "frames received") \
	X(rx_bytes, "bytes received") \
	X(data_sent, "data packets, retransmissions included") \
	X(data_retx, "resent (erasure: sent beyond the needed)") \
	X(acks_sent, "ACKs sent") \
	X(acks_received, "ACKs received") \
	X(goodput_bytes, "new payload bytes received and verified") \
	X(dup_pkts, "data packets received twice") \
	X(corrupt_pkts, "payload differed from the pattern") \
	X(unknown_flow, "RoCE packets of no flow of ours") \
	X(ack_mismatch, "ACKs of the other recovery model") \
	X(arp_replies, "ARP replies sent") \
	X(alloc_failed, "no mbuf for a packet to send") \
	X(timeouts, "retransmission timeouts") \
	X(trimmed_rx, "trimmed headers received (a switch cut the payload)") \
	X(nacks_sent, "NACKs sent (trimmed headers, gbn's out of order)") \
	X(nacks_received, "NACKs received") \
	X(returned_rx, "trimmed headers a switch returned to this sender") \
	X(pfc_pauses_received, "PFC frames for priority 3 received, resumes included") \
	X(pfc_paused_ns, "time the host's output was paused by PFC, ns")

struct hs_host_stats {
#define HS_HOST_FIELD(field, what) uint64_t field;
	HS_HOST_COUNTERS(HS_HOST_FIELD)
#undef HS_HOST_FIELD
	/* Frames dropped: parser reasons, not_for_us, queue_full (ARP). */
	uint64_t drops[OFAN_DROP_MAX];
};

/* What one flow did, from this host's side(s). */
/*
 * A flow's counters as its hosts measured them, declared once:
 * X(field, what), the sender's then the receiver's.  The field's name is
 * the quantity's one name in every output: it generates struct
 * hs_flow_result's counters, the merge of a flow's two sides
 * (hs_flow_result_merge()) and the columns of both binaries' per-flow CSV
 * (hs_flow_result_csv_header() and _row()).  Where a host counter
 * (HS_HOST_COUNTERS) counts the same thing over all flows, the name is
 * the same.
 */
#define HS_FLOW_SEND_COUNTERS(X) \
	X(data_sent, "data packets sent, retransmissions included") \
	X(data_retx, "of them resent (erasure: sent beyond those needed)") \
	X(timeouts, "retransmission timeouts") \
	X(acks_received, "ACKs its sender processed") \
	X(ce_acks, "of them echoing a congestion mark") \
	X(distinct_evs, "distinct EVs its data packets took")
#define HS_FLOW_RECV_COUNTERS(X) \
	X(data_received, "distinct data packets its receiver got") \
	X(max_reorder, "largest reordering, in packets") \
	X(dup_pkts, "data packets received twice") \
	X(ce_pkts, "data packets that arrived CE-marked") \
	X(corrupt_pkts, "payloads that differed from the pattern")

struct hs_flow_result {
	uint32_t id;
	bool sent_here;		/* the send-side fields are valid */
	bool received_here;	/* the receive-side fields are valid */
	/* Send side. */
	uint64_t start_ns;	/* when it began sending (since host start) */
	uint64_t done_ns;	/* when the last packet was acknowledged */
	uint64_t min_rtt_ns;	/* smallest RTT sample; UINT64_MAX: none */
	/*
	 * The mean packet delay (htsim's -pktdelay): RTT samples, each from
	 * a data packet's send to its ACK's arrival, summed and counted.
	 */
	uint64_t rtt_sum_ns;
	uint64_t rtt_samples;
	/* Receive side. */
	uint64_t rx_done_ns;	/* when it had every byte; 0: never */
#define HS_FLOW_RESULT_FIELD(field, what) uint64_t field;
	HS_FLOW_SEND_COUNTERS(HS_FLOW_RESULT_FIELD)
	HS_FLOW_RECV_COUNTERS(HS_FLOW_RESULT_FIELD)
#undef HS_FLOW_RESULT_FIELD
};

/* Take from's sides that are here into into (the other hosts' halves). */
void hs_flow_result_merge(struct hs_flow_result *into,
			  const struct hs_flow_result *from);

/*
 * The counters' CSV columns, comma-separated, no leading comma, then
 * mean_pkt_delay_ns: the mean RTT sample (a data packet's send to its
 * ACK's arrival; SACK takes no sample of a resent packet), empty without
 * one.
 */
void hs_flow_result_csv_header(FILE *f);

/* r's counters as hs_flow_result_csv_header() names them; a side that is
 * not here has empty columns. */
void hs_flow_result_csv_row(FILE *f, const struct hs_flow_result *r);

/* Create a host; NULL with a message in err. */
struct hs_host *hs_host_create(const struct hs_host_params *p, char *err,
			       unsigned int err_size);
/*
 * Give the mbufs of the host's stash (bulk_alloc) back to the pool; the
 * host refills it when it sends again.  hs_host_free() does it too.
 */
void hs_host_return_mbufs(struct hs_host *h);

void hs_host_free(struct hs_host *h);

/* Start the traffic at now (flow start times are relative to it). */
void hs_host_start(struct hs_host *h, uint64_t now_ns);

/*
 * Start flow (an id) now: it waited for its trigger, which fired, or
 * for its workload's engine.  Returns false if it is not a waiting flow
 * of this host.
 */
bool hs_host_release(struct hs_host *h, uint32_t flow, uint64_t now_ns);

/*
 * Another shard of this rank received the flow that flow (sent here)
 * depends on (struct hs_host_shard).  Returns false if flow is not a
 * waiting dependent flow sent here.
 */
bool hs_host_release_dep(struct hs_host *h, uint32_t flow, uint64_t now_ns);

/*
 * The NIC queue of slot has room again (see hs_host_params.nic_full).
 * Returns true if a flow that waited for it may send now.
 */
bool hs_host_nic_room(struct hs_host *h, uint32_t slot, uint64_t now_ns);

/* Consume a received burst (every mbuf is freed; pkts[] is scratch). */
void hs_host_input(struct hs_host *h, struct rte_mbuf **pkts, uint16_t n,
		   uint64_t now_ns);

/*
 * Packets to transmit at now, at most max: pending ACKs and ARP first,
 * then data as the pacer allows.  The caller owns and sends them.
 */
uint16_t hs_host_output(struct hs_host *h, uint64_t now_ns,
			struct rte_mbuf **pkts, uint16_t max);

/* The earliest time output() may have something new (UINT64_MAX: none). */
uint64_t hs_host_next_event(const struct hs_host *h);

/*
 * PFC: ofan-host's frames are priority HS_PFC_PRIORITY (the usual RoCE
 * class).  A PFC frame for it pauses the host's output -- data, ACKs and
 * all, as a NIC pauses a priority -- for its quanta at the link's rate,
 * zero quanta resume it; a host sends no pauses (it drains at line rate,
 * as htsim's hosts).  The driver holds its NIC queue until then too.
 */
#define HS_PFC_PRIORITY 3
uint64_t hs_host_paused_until(const struct hs_host *h);

/*
 * NIC slots of this host: one per flow it sends or receives, in flow id
 * order (data of a sent flow, ACKs of a received one), and a last one for
 * ARP.  Frames carry theirs in mbuf->hash.usr.
 */
uint32_t hs_host_nic_slots(const struct hs_host *h);

/* Every flow this host sends is acknowledged. */
bool hs_host_tx_done(const struct hs_host *h);
/* Every flow to this host is received completely. */
bool hs_host_rx_done(const struct hs_host *h);

const struct hs_host_stats *hs_host_stats(const struct hs_host *h);
uint32_t hs_host_rank(const struct hs_host *h);
/* Which shard of its rank this host is, of how many (0 of 1: whole). */
void hs_host_shard_of(const struct hs_host *h, uint16_t *index,
		      uint16_t *count);
/* Bytes this host has to send in total, and how many are acknowledged. */
void hs_host_progress(const struct hs_host *h, uint64_t *acked_bytes,
		      uint64_t *total_bytes);

/*
 * Merge this host's view of flow id into *r (fields of the side(s) this
 * host has; r->id is set).  Returns true if the flow touches this host.
 */
bool hs_host_flow_result(const struct hs_host *h, uint32_t id,
			 struct hs_flow_result *r);

/* Policy counters of this host's flows, summed: emit(arg, key, value). */
void hs_host_policy_dump(const struct hs_host *h,
			 void (*emit)(void *arg, const char *key,
				      uint64_t value),
			 void *arg);

/*
 * Policy counters summed by key, in the order the keys first came (keys
 * are copied; beyond HS_KV_MAX keys or 31 characters they are dropped or
 * cut).  hs_kv_add() is an emit for hs_host_policy_dump() and a policy's
 * dump(), with the table as arg.
 */
#define HS_KV_MAX 32
struct hs_kv_table {
	struct {
		char key[32];
		uint64_t value;
	} kv[HS_KV_MAX];
	int n;
};
void hs_kv_add(void *arg, const char *key, uint64_t value);

#endif /* OFAN_HS_HOST_H */
