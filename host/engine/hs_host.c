/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host engine: flows, pacing, ACKs, timers.  See hs_host.h.
 *
 * A sent flow is WAITING (for its start time, the reception of the flow
 * it depends on, or its trigger), ACTIVE, then DONE.  Its packets come
 * from its transport (hs_transport.h) when a pacer slot comes:
 *   - pacing = host: one slot stream at the host's rate, handed round
 *     robin to the active flows that can send;
 *   - pacing = flow: a slot stream per flow at its own rate, the flows
 *     due ordered in a heap by (slot time, flow index).
 * A flow that cannot send at its slot (everything out, waiting for ACKs
 * or timers) is blocked: its pacer sleeps until an ACK, a timer or its
 * activation wakes it, and banks no credit meanwhile.
 */
#include <inttypes.h>

#include "hs_host_priv.h"
#include "hs_shard.h"

/* ---- set-up ---- */

/* Do packets from rank r reach this shard (always, for a whole rank)? */
static bool
hs_host_shard_owns(const struct hs_host *h, uint32_t r)
{
	return hs_shard_of_ip(hs_rank_ip(h->set, r), h->shard.count,
			      h->shard.reta_size) == h->shard.index;
}

static int
hs_host_alloc(struct hs_host *h, const struct hs_traffic *t, char *err,
	      unsigned int err_size)
{
	const struct hs_host_settings *c = h->set;
	uint32_t ns, nr, slot = 0, a, b;
	const uint32_t *sent, *recv;

	if (h->rank >= t->nb_ranks) {
		ns = nr = 0;
		sent = recv = NULL;
	} else {
		ns = t->sent_first[h->rank + 1] - t->sent_first[h->rank];
		nr = t->recv_first[h->rank + 1] - t->recv_first[h->rank];
		sent = &t->sent[t->sent_first[h->rank]];
		recv = &t->recv[t->recv_first[h->rank]];
	}
	h->sflows = calloc(ns ? ns : 1, sizeof(*h->sflows));
	h->rflows = calloc(nr ? nr : 1, sizeof(*h->rflows));
	h->active = calloc(ns ? ns : 1, sizeof(*h->active));
	h->heap = calloc(ns ? ns : 1, sizeof(*h->heap));
	h->slot_sflow = malloc(sizeof(int32_t) * (ns + nr + 1));
	if (h->sflows == NULL || h->rflows == NULL || h->active == NULL ||
	    h->heap == NULL || h->slot_sflow == NULL)
		goto nomem;
	for (a = 0; a < ns + nr + 1; a++)
		h->slot_sflow[a] = -1;
	/*
	 * Its flows sent and received, merged in flow id order: the NIC
	 * slots follow it (hs_host_nic_slots); a flow to itself takes a
	 * sending slot, then a receiving one.
	 */
	for (a = b = 0; a < ns || b < nr;) {
		bool send = a < ns && (b >= nr || sent[a] <= recv[b]);
		const struct hs_flow_spec *f = &t->flows[send ? sent[a] :
							 recv[b]];

		if (send) {
			struct hs_sflow *s = &h->sflows[h->nb_sflows];

			s->spec = f;
			h->slot_sflow[slot] = (int32_t)h->nb_sflows;
			s->nic_slot = slot++;
			s->heap_pos = HS_NOT_IN_HEAP;
			s->min_rtt_ns = UINT64_MAX;
			h->nb_sflows++;
			a++;
			/* Its ACKs come from its destination. */
			if (hs_host_shard_owns(h, f->dst)) {
				h->total_bytes += f->size;
			} else {
				s->state = HS_FOREIGN;
				h->nb_foreign_s++;
			}
		} else {
			struct hs_rflow *r = &h->rflows[h->nb_rflows];

			r->spec = f;
			r->nic_slot = slot++;
			r->src_ip = hs_rank_ip(c, f->src);
			h->nb_rflows++;
			b++;
			if (!hs_host_shard_owns(h, f->src)) {
				r->foreign = true;
				h->nb_foreign_r++;
				continue;
			}
			if (hs_receiver_init(&r->rx, &h->tp, f->size,
					     c->ack_every) != 0)
				goto nomem;
			hs_frame_ack_template(&h->fx, &r->ack_tmpl, f);
		}
	}
	return 0;
nomem:
	snprintf(err, err_size, "rank %u: out of memory for %u flows",
		 h->rank, t->nb_flows);
	return -ENOMEM;
}

struct hs_host *
hs_host_create(const struct hs_host_params *p, char *err,
	       unsigned int err_size)
{
	const struct hs_host_settings *c = p->set;
	struct hs_host *h;

	if (p->traffic->nb_flows >= (1u << 24) - HS_QP_OFFSET) {
		snprintf(err, err_size, "%u flows do not fit 24-bit QP numbers",
			 p->traffic->nb_flows);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	h->set = c;
	h->hlb = c->hlb;
	h->hlb.settings = hlb_settings_of(&c->hlb_set, c->policy);
	h->traffic = p->traffic;
	h->rank = p->rank;
	h->ip = hs_rank_ip(c, p->rank);
	h->fx.set = c;
	h->fx.ip = h->ip;
	memcpy(h->fx.mac, p->mac, 6);
	memcpy(h->fx.dst_mac, p->dst_mac, 6);
	h->pool = p->pool;
	h->no_announce = p->no_announce;
	h->bulk_alloc = p->bulk_alloc;
	h->on_flow_end = p->on_flow_end;
	h->on_flow_end_arg = p->on_flow_end_arg;
	h->nic_full = p->nic_full;
	h->nic_arg = p->nic_arg;
	if (p->shard != NULL && p->shard->count > 1) {
		if (p->shard->index >= p->shard->count ||
		    p->shard->count > HS_MAX_SHARDS ||
		    p->shard->reta_size == 0 ||
		    p->shard->rank_active == NULL ||
		    p->shard->release == NULL) {
			snprintf(err, err_size, "rank %u: shard %u of %u: expected an index below the count, at most %u shards, a redirection table, a shared active count and a release callback",
				 p->rank, p->shard->index, p->shard->count,
				 HS_MAX_SHARDS);
			free(h);
			return NULL;
		}
		h->shard = *p->shard;
		/* Only shard 0 speaks ARP for the rank. */
		h->no_announce = h->no_announce || h->shard.index != 0;
	} else {
		h->shard = (struct hs_host_shard){ .count = 1, .reta_size = 1 };
	}
	h->rate_bps = (uint64_t)((double)c->rate_bps * c->rate_coef);
	h->tp = (struct hs_transport_params){
		.recovery = c->recovery,
		.mss = c->mss,
		.reorder_window_ns = c->reorder_window_ns,
		.rto_ns = RTE_MAX(c->min_rto_ns, 2 * c->base_rtt_ns),
		.min_rto_ns = c->min_rto_ns,
		.base_rtt_ns = c->base_rtt_ns,
		.windowed = c->cc->windowed,
		.settings = hs_recovery_settings_of(&c->recovery_set,
						    c->recovery),
	};
	h->cc_settings = hs_cc_settings_of(&c->cc_set, c->cc);
	h->path_timers = c->recovery->tx_path_sent != NULL &&
		c->policy->on_path_timeout != NULL;
	ofan_rng_seed(&h->rng, c->seed, 0x40570000ull + p->rank);
	h->timer_ns = UINT64_MAX;
	h->next_start_ns = UINT64_MAX;
	if (hs_host_alloc(h, p->traffic, err, err_size) != 0) {
		hs_host_free(h);
		return NULL;
	}
	if (hs_pull_init(h) != 0) {
		snprintf(err, err_size, "out of memory");
		hs_host_free(h);
		return NULL;
	}
	h->fx.arp_slot = hs_host_nic_slots(h) - 1;
	return h;
}

void
hs_host_return_mbufs(struct hs_host *h)
{
	if (h->nb_stash > 0)
		rte_pktmbuf_free_bulk(h->stash, h->nb_stash);
	h->nb_stash = 0;
}

void
hs_host_free(struct hs_host *h)
{
	uint32_t i;

	if (h == NULL)
		return;
	hs_host_return_mbufs(h);
	for (i = 0; i < h->nb_sflows; i++) {
		if (h->sflows[i].state != HS_WAITING &&
		    h->sflows[i].state != HS_FOREIGN)
			hs_sender_fini(&h->sflows[i].tx);
		free(h->sflows[i].lb);
		free(h->sflows[i].evs_seen);
	}
	for (i = 0; i < h->nb_rflows; i++)
		if (!h->rflows[i].foreign)
			hs_receiver_fini(&h->rflows[i].rx);
	for (i = 0; i < h->nb_arp_reply; i++)
		rte_pktmbuf_free(h->arp_reply[i]);
	free(h->sflows);
	free(h->rflows);
	free(h->active);
	free(h->heap);
	free(h->pull_fifo);
	free(h->slot_sflow);
	free(h);
}

/* ---- flows ---- */

/* A flow becomes active: transport state, policy state, pacing. */
void
hs_flow_activate(struct hs_host *h, uint32_t si, uint64_t now)
{
	const struct hs_host_settings *c = h->set;
	struct hs_sflow *s = &h->sflows[si];
	uint64_t gap;

	s->lb = calloc(1, c->policy->state_size ? c->policy->state_size : 1);
	s->evs_seen = calloc(((size_t)hs_ev_range(c) + 1 + 63) / 64,
			     sizeof(uint64_t));
	if (s->lb == NULL || s->evs_seen == NULL ||
	    hs_sender_init(&s->tx, &h->tp, s->spec->size, now) != 0) {
		/* Out of memory: the flow never completes; the run fails. */
		hs_sender_fini(&s->tx);
		free(s->lb);
		free(s->evs_seen);
		s->lb = NULL;
		s->evs_seen = NULL;
		s->state = HS_DONE;
		h->st.alloc_failed++;
		return;
	}
	c->policy->init(s->lb, &h->hlb, &h->rng, now);
	s->ev_kept = false;
	hs_frame_template(&h->fx, &s->tmpl, s->spec, s->nic_slot);
	if (c->cc->start != NULL) {
		struct hs_cc_flow f = {
			.rate_bps = c->rate_bps,
			.base_rtt_ns = c->base_rtt_ns,
			.mss = c->mss,
			.size = s->spec->size,
			.now_ns = now,
		};

		memset(&s->cc, 0, c->cc->state_size);
		s->cc_wait_ns = 0;
		s->cc_waits = 0;
		s->pull_queue = 0;
		c->cc->start(s->cc.bytes, h->cc_settings, &f);
	}
	s->state = HS_ACTIVE;
	s->start_ns = now;
	h->active[h->nb_active++] = si;
	hs_rank_active_add(h, 1);
	if (c->pacing == HS_PACING_FLOW) {
		/* The first slot at a random offset within the first gap. */
		gap = hs_flow_gap(h, s, hs_frame_wire_size(&s->tmpl,
			hs_sender_payload(&s->tx, 0)));
		s->pace_at = now + (gap > 1 ? ofan_rng_below(&h->rng,
			(uint32_t)RTE_MIN(gap, (uint64_t)UINT32_MAX)) : 0);
		s->start_ns = s->pace_at;
		s->blocked = true;
		hs_wake(h, si, s->pace_at);
		return;
	}
	if (h->nb_active == 1 && h->pace_ns < now)
		h->pace_ns = now;	/* an idle pacer banks no credit */
	hs_wake(h, si, now);
}

/*
 * Activate flows whose start time has come -- those waiting for nothing
 * else, and those whose dependency arrived before it -- and recompute
 * the next one.
 */
void
hs_host_start_due(struct hs_host *h, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	uint32_t i;

	if (now < h->next_start_ns)
		return;
	for (i = 0; i < h->nb_sflows; i++) {
		struct hs_sflow *s = &h->sflows[i];

		if (s->state != HS_WAITING ||
		    (s->spec->dep != HS_NO_DEP && !s->released) ||
		    hs_flow_held(s->spec))
			continue;
		if (s->start_at <= now)
			hs_flow_activate(h, i, now);
		else if (s->start_at < next)
			next = s->start_at;
	}
	h->next_start_ns = next;
}

void
hs_host_start(struct hs_host *h, uint64_t now_ns)
{
	uint32_t i;

	h->t0 = now_ns;
	h->started = true;
	h->announce = !h->no_announce;
	h->pace_ns = now_ns;
	h->next_start_ns = now_ns;
	for (i = 0; i < h->nb_sflows; i++)
		h->sflows[i].start_at = now_ns + h->sflows[i].spec->start_ns;
	hs_host_start_due(h, now_ns);
}

bool
hs_host_release(struct hs_host *h, uint32_t flow, uint64_t now_ns)
{
	struct hs_sflow *s;

	if (!h->started || flow >= h->traffic->nb_flows ||
	    hs_sflow_of(h, flow) < 0)
		return false;
	s = &h->sflows[hs_sflow_of(h, flow)];
	if (s->state != HS_WAITING || !hs_flow_held(s->spec))
		return false;
	hs_flow_activate(h, (uint32_t)hs_sflow_of(h, flow), now_ns);
	return true;
}

/*
 * The flow sent s depends on was received (here or by another shard): it
 * starts now, or at its own start time if that is later.
 */
void
hs_dep_release(struct hs_host *h, uint32_t si, uint64_t now)
{
	struct hs_sflow *s = &h->sflows[si];
	uint64_t at = h->t0 + s->spec->start_ns;

	if (s->state != HS_WAITING)
		return;
	if (at <= now) {
		hs_flow_activate(h, si, now);
	} else {
		/* Released, but not before its own start time. */
		s->released = true;
		s->start_at = at;
		if (at < h->next_start_ns)
			h->next_start_ns = at;
	}
}

bool
hs_host_release_dep(struct hs_host *h, uint32_t flow, uint64_t now_ns)
{
	int32_t si = hs_sflow_of(h, flow);

	if (!h->started || si < 0 || h->sflows[si].state != HS_WAITING ||
	    h->sflows[si].spec->dep == HS_NO_DEP)
		return false;
	hs_dep_release(h, (uint32_t)si, now_ns);
	return true;
}

/* ---- results ---- */

uint32_t
hs_host_nic_slots(const struct hs_host *h)
{
	return h->nb_sflows + h->nb_rflows + 1;
}

bool
hs_host_tx_done(const struct hs_host *h)
{
	return h->nb_done + h->nb_foreign_s == h->nb_sflows;
}

bool
hs_host_rx_done(const struct hs_host *h)
{
	return h->nb_rx_done + h->nb_foreign_r == h->nb_rflows;
}

const struct hs_host_stats *
hs_host_stats(const struct hs_host *h)
{
	return &h->st;
}

uint32_t
hs_host_rank(const struct hs_host *h)
{
	return h->rank;
}

void
hs_host_shard_of(const struct hs_host *h, uint16_t *index, uint16_t *count)
{
	*index = h->shard.index;
	*count = h->shard.count;
}

void
hs_host_progress(const struct hs_host *h, uint64_t *acked_bytes,
		 uint64_t *total_bytes)
{
	uint64_t acked = 0;
	uint32_t i;

	for (i = 0; i < h->nb_sflows; i++) {
		const struct hs_sflow *s = &h->sflows[i];

		if (s->complete)
			acked += s->spec->size;
		else if (s->state == HS_ACTIVE)
			acked += hs_sender_acked_bytes(&s->tx, s->spec->size);
	}
	*acked_bytes = acked;
	*total_bytes = h->total_bytes;
}

/*
 * When a flow ended, since the host's start, for its result, where 0
 * means never: an end in the very ns of the start (an ACK with no round
 * trip at all) is 1 ns.
 */
static uint64_t
hs_end_since_start(const struct hs_host *h, uint64_t t)
{
	return t > h->t0 ? t - h->t0 : 1;
}

bool
hs_host_flow_result(const struct hs_host *h, uint32_t id,
		    struct hs_flow_result *r)
{
	bool touched = false;

	r->id = id;
	if (id >= h->traffic->nb_flows)
		return false;
	if (hs_sflow_of(h, id) >= 0) {
		const struct hs_sflow *s = &h->sflows[hs_sflow_of(h, id)];

		r->sent_here = true;
		r->start_ns = s->state != HS_WAITING ? s->start_ns - h->t0 : 0;
		r->done_ns = s->complete ? hs_end_since_start(h, s->done_ns) :
			0;
		if (s->state != HS_WAITING)
			hs_sender_counters(&s->tx, &r->data_sent,
					   &r->data_retx, &r->timeouts);
		r->acks_received = s->acks;
		r->ce_acks = s->ce_acks;
		r->distinct_evs = s->distinct_evs;
		r->min_rtt_ns = s->min_rtt_ns;
		r->rtt_sum_ns = s->rtt_sum_ns;
		r->rtt_samples = s->rtt_samples;
		touched = true;
	}
	if (hs_rflow_of(h, id) >= 0) {
		const struct hs_rflow *f = &h->rflows[hs_rflow_of(h, id)];

		r->received_here = true;
		r->rx_done_ns = f->complete ?
			hs_end_since_start(h, f->done_ns) : 0;
		uint32_t max_reorder;

		r->data_received = hs_receiver_count(&f->rx);
		hs_receiver_counters(&f->rx, &max_reorder, &r->dup_pkts,
				     &r->ce_pkts);
		r->max_reorder = max_reorder;
		r->corrupt_pkts = f->corrupt;
		touched = true;
	}
	return touched;
}

void
hs_flow_result_merge(struct hs_flow_result *into,
		     const struct hs_flow_result *from)
{
#define HS_FLOW_TAKE(field, what) into->field = from->field;
	if (from->sent_here) {
		into->sent_here = true;
		into->start_ns = from->start_ns;
		into->done_ns = from->done_ns;
		into->min_rtt_ns = from->min_rtt_ns;
		into->rtt_sum_ns = from->rtt_sum_ns;
		into->rtt_samples = from->rtt_samples;
		HS_FLOW_SEND_COUNTERS(HS_FLOW_TAKE)
	}
	if (from->received_here) {
		into->received_here = true;
		into->rx_done_ns = from->rx_done_ns;
		HS_FLOW_RECV_COUNTERS(HS_FLOW_TAKE)
	}
#undef HS_FLOW_TAKE
}

void
hs_flow_result_csv_header(FILE *f)
{
	const char *sep = "";

#define HS_FLOW_NAME(field, what) { fprintf(f, "%s" #field, sep); sep = ","; }
	HS_FLOW_SEND_COUNTERS(HS_FLOW_NAME)
	HS_FLOW_RECV_COUNTERS(HS_FLOW_NAME)
#undef HS_FLOW_NAME
	fprintf(f, ",mean_pkt_delay_ns");
}

void
hs_flow_result_csv_row(FILE *f, const struct hs_flow_result *r)
{
	const char *sep = "";

#define HS_FLOW_VALUE(side, field)					\
	{								\
		if (side)						\
			fprintf(f, "%s%" PRIu64, sep, r->field);	\
		else							\
			fprintf(f, "%s", sep);				\
		sep = ",";						\
	}
#define HS_FLOW_SEND(field, what) HS_FLOW_VALUE(r->sent_here, field)
#define HS_FLOW_RECV(field, what) HS_FLOW_VALUE(r->received_here, field)
	HS_FLOW_SEND_COUNTERS(HS_FLOW_SEND)
	HS_FLOW_RECV_COUNTERS(HS_FLOW_RECV)
#undef HS_FLOW_RECV
#undef HS_FLOW_SEND
#undef HS_FLOW_VALUE
	/* Empty without a sample, as htsim's has none to divide by. */
	if (r->sent_here && r->rtt_samples != 0)
		fprintf(f, ",%" PRIu64, r->rtt_sum_ns / r->rtt_samples);
	else
		fprintf(f, ",");
}

void
hs_kv_add(void *arg, const char *key, uint64_t value)
{
	struct hs_kv_table *t = arg;
	int i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->kv[i].key, key) == 0) {
			t->kv[i].value += value;
			return;
		}
	if (t->n < HS_KV_MAX) {
		snprintf(t->kv[t->n].key, sizeof(t->kv[t->n].key), "%s", key);
		t->kv[t->n++].value = value;
	}
}

void
hs_flow_release(struct hs_host *h, struct hs_sflow *s)
{
	hs_sender_fini(&s->tx);
	if (s->lb != NULL && h->set->policy->dump != NULL)
		h->set->policy->dump(s->lb, hs_kv_add, &h->done_kv);
	free(s->lb);
	free(s->evs_seen);
	s->lb = NULL;
	s->evs_seen = NULL;
}

void
hs_host_policy_dump(const struct hs_host *h,
		    void (*emit)(void *arg, const char *key, uint64_t value),
		    void *arg)
{
	void *zero;
	uint32_t i;
	int k;

	if (h->set->policy->dump == NULL || h->nb_sflows == h->nb_foreign_s)
		return;
	/*
	 * A fresh state first, which counts nothing: its keys come in the
	 * policy's order even when no flow has started.  Then the finished
	 * flows, summed, and the flows still sent.  A caller summing by key
	 * sees the keys in the same order and the same sums as from a dump
	 * of every flow's own state.
	 */
	zero = calloc(1, h->set->policy->state_size ?
		      h->set->policy->state_size : 1);
	if (zero != NULL)
		h->set->policy->dump(zero, emit, arg);
	free(zero);
	for (k = 0; k < h->done_kv.n; k++)
		emit(arg, h->done_kv.kv[k].key, h->done_kv.kv[k].value);
	for (i = 0; i < h->nb_sflows; i++)
		if (h->sflows[i].lb != NULL)
			h->set->policy->dump(h->sflows[i].lb, emit, arg);
}
