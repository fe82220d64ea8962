/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic: which rank sends how many bytes to which, when, and after what.
 *
 * The traffic is a flat list of flows over N ranks, which its producers
 * make: a traffic pattern, an htsim matrix or training jobs (hs_pattern.h:
 * a module each, each with its own settings).  A flow
 * starts at a time, or once something it waits for has happened:
 *   - dep: its source has *received* another flow completely (the ring
 *     collectives: step i+1 of a rank starts after it has received step
 *     i), which a host follows alone;
 *   - trigger: an htsim trigger fired (a .cm file's `trigger X`).  A
 *     trigger is activated by the flows that name it as their
 *     send_done_trigger (the sender saw the whole flow acknowledged) or
 *     recv_done_trigger (the receiver has the whole flow); a oneshot
 *     starts all its flows on its one activation, a multishot the next
 *     of its flows (in file order) on each activation, a barrier all of
 *     them once it has been activated `count` times.  Triggers may cross
 *     hosts: whoever drives the hosts keeps their state (hs_trigger_*).
 *   - wl_op: the workload engine releases it (an operation of a training
 *     job whose dependencies are done).
 * These are how a flow may start, not fields of one producer: a
 * pattern or a matrix may use dep and triggers, and a host follows all
 * three alike (hs_flow_held()), so they stay on the flow.
 * Iterations repeat the collective, each one after the previous has
 * completed at every rank involved.  The list is the same for every host
 * (same seed, same list); each host runs the flows whose source it is.
 *
 * Pure C, no EAL.
 */
#ifndef OFAN_HS_TRAFFIC_H
#define OFAN_HS_TRAFFIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HS_NO_DEP UINT32_MAX
#define HS_NO_TRIGGER UINT32_MAX

/* a * b, or UINT64_MAX if that does not fit (flow counts). */
static inline uint64_t
hs_mul_sat(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

enum hs_trigger_kind {
	HS_TRIG_ONESHOT = 0,	/* starts every flow waiting on it, once */
	HS_TRIG_MULTISHOT,	/* each activation starts the next flow */
	HS_TRIG_BARRIER,	/* starts every flow after `count` activations */
	HS_TRIG_NB
};

extern const char *const hs_trigger_kind_names[];

struct hs_trigger {
	uint32_t id;		/* as in the file */
	uint8_t kind;		/* enum hs_trigger_kind */
	uint32_t count;		/* barrier: activations it waits for */
	/* The flows it starts: trigger_targets[first_target ..] in file order. */
	uint32_t first_target;
	uint32_t nb_targets;
	uint32_t nb_activators;	/* flows whose send or receive end fires it */
	uint64_t line;
};

/* An htsim failure line: a switch's link, mapped by the fabric. */
enum hs_switch_type { HS_SW_TOR = 0, HS_SW_AGG, HS_SW_CORE, HS_SW_NB };

extern const char *const hs_switch_type_names[];

struct hs_cm_failure {
	uint8_t switch_type;	/* enum hs_switch_type */
	uint32_t switch_id;
	uint32_t link_id;
	uint64_t line;
};

struct hs_flow_spec {
	uint32_t id;		/* index in the list */
	uint32_t src;		/* rank */
	uint32_t dst;		/* rank */
	uint64_t size;		/* bytes, > 0 */
	uint64_t start_ns;	/* earliest start (after dep, if any) */
	/*
	 * HS_NO_DEP, or the id of a flow whose destination is this flow's
	 * source: this flow starts only once that one was fully received.
	 */
	uint32_t dep;
	/* Triggers: indexes into hs_traffic.triggers, or HS_NO_TRIGGER. */
	uint32_t trigger;		/* starts when this fires (no start time) */
	uint32_t send_done_trigger;	/* activated when fully acknowledged */
	uint32_t recv_done_trigger;	/* activated when fully received */
	uint32_t iteration;	/* 0-based */
	uint32_t step;		/* ring step within the iteration, else 0 */
	/*
	 * 0, or 1 + the workload operation it belongs to (hs_workload.h):
	 * an external flow, held by its host until hs_host_release() and
	 * both of whose ends go to hs_host_params.on_flow_end.
	 */
	uint32_t wl_op;
};

/*
 * Whether flow f waits for hs_host_release() (its trigger, or its
 * workload), and whether its host reports its end -- received, or
 * acknowledged -- through hs_host_params.on_flow_end.
 */
static inline bool
hs_flow_held(const struct hs_flow_spec *f)
{
	return f->trigger != HS_NO_TRIGGER || f->wl_op != 0;
}

static inline bool
hs_flow_end_reported(const struct hs_flow_spec *f, bool received)
{
	return f->wl_op != 0 || (received ? f->recv_done_trigger :
				 f->send_done_trigger) != HS_NO_TRIGGER;
}

/* The most flows a traffic has (ids are 32-bit; UINT32_MAX is none). */
#define HS_MAX_FLOWS (UINT32_MAX - 1)

/* The most ranks a traffic has ([ranks] count, a .cm file's Nodes). */
#define HS_MAX_RANKS (1u << 20)

struct hs_traffic {
	uint32_t nb_ranks;
	uint32_t nb_flows;
	struct hs_flow_spec *flows;	/* nb_flows entries */
	uint32_t nb_triggers;
	struct hs_trigger *triggers;
	uint32_t *trigger_targets;	/* flow ids, grouped by trigger */
	uint32_t nb_failures;
	struct hs_cm_failure *failures;
	/*
	 * Per flow, how many flows share their source's rate with it: the
	 * flows one source releases together (same iteration, step and start
	 * time, or the same oneshot or barrier trigger; a multishot releases
	 * them one by one).  The ideal times and per-flow pacing use it.
	 */
	uint32_t *concurrency;
	/*
	 * Who sends and receives what, shared by the hosts so that a host's
	 * state is its own flows rather than the whole traffic's: rank r's
	 * flows in id order are sent[sent_first[r] .. sent_first[r + 1]) and
	 * recv[recv_first[r] .. recv_first[r + 1]); flow f is number
	 * src_pos[f] of its source's and dst_pos[f] of its destination's.
	 * The flows waiting for flow d (their dep) are child_first[d], then
	 * child_next[that] ..., in decreasing id order, HS_NO_DEP ending.
	 */
	uint32_t *sent_first, *sent, *recv_first, *recv;
	uint32_t *src_pos, *dst_pos;
	uint32_t *child_first, *child_next;
};

/* Free what t holds (t may be empty, or half built). */
void hs_traffic_free(struct hs_traffic *t);

/* Compute t->concurrency (the parsers and builders do); 0 or -ENOMEM. */
int hs_traffic_derive(struct hs_traffic *t);

/*
 * The ideal schedule: when each flow would begin if every flow took its
 * ideal time, through deps and triggers (a trigger fires at the ideal end
 * of the activation it waits for; activations are taken in time order, so
 * a multishot's k-th flow begins at its k-th activation).  send_ns[f]: the
 * ideal time from f's begin until its sender saw the last ACK; recv_ns[f]:
 * until its receiver had it all.  begin[f] is UINT64_MAX for a flow that
 * would never begin.
 *
 * late_ns: how long after its start time a flow may take its first slot
 * (pacing = flow's random offset), or 0.  The run's first flow begins
 * then at the latest, and a collective is timed from its first flow's
 * start, so the flows that wait for nothing begin here no earlier than
 * the earliest of their start times plus late_ns: the schedule is then a
 * lower bound from that first start, whichever flow takes it.  With one
 * start time for all of them it is only shifted by late_ns.  Returns 0
 * or -ENOMEM.
 */
int hs_traffic_ideal_begin(const struct hs_traffic *t, const uint64_t *send_ns,
			   const uint64_t *recv_ns, uint64_t late_ns,
			   uint64_t *begin);

/*
 * Trigger state of one run: one activation counter per trigger.  Whoever
 * drives the hosts activates a trigger when a host reports that a flow
 * with a send_done_trigger or recv_done_trigger has ended, and starts
 * the flows it returns at once (htsim: no delay).
 */
struct hs_trigger_state {
	uint32_t *activations;
};

int hs_trigger_state_init(struct hs_trigger_state *st,
			  const struct hs_traffic *t);
void hs_trigger_state_fini(struct hs_trigger_state *st);

/*
 * Activate trigger tr (an index).  Returns how many flows start now and
 * points *flows at their ids (inside t, valid as long as t).  A oneshot
 * fires once, a multishot hands out its flows one per activation, a
 * barrier fires on its count-th activation; other activations start
 * nothing.
 */
uint32_t hs_trigger_activate(const struct hs_traffic *t,
			     struct hs_trigger_state *st, uint32_t tr,
			     const uint32_t **flows);

/*
 * The flow-end half of the trigger rule, for whoever drives the hosts: flow
 * has been fully received (received) or fully acknowledged at its sender;
 * activate the trigger that end names, as hs_trigger_activate() does.
 */
uint32_t hs_trigger_flow_end(const struct hs_traffic *t,
			     struct hs_trigger_state *st, uint32_t flow,
			     bool received, const uint32_t **flows);

/*
 * Trigger ownership, for a driver that runs the ranks in parts (ofan-host:
 * its own ranks and the others; ofan-fabric: its threads' parts): a
 * trigger fires where a flow ends and starts flows where they begin, so it
 * can be followed only if every such rank (the senders of the flows it
 * starts, the senders and receivers of the flows that activate it) is in
 * one part.  part_of_rank[r] is rank r's part.  Returns 0 with *split the
 * lowest trigger index whose ranks span parts, HS_NO_TRIGGER if none, or
 * -ENOMEM.
 */
int hs_traffic_trigger_split(const struct hs_traffic *t,
			     const uint16_t *part_of_rank, uint32_t *split);

#endif /* OFAN_HS_TRAFFIC_H */
