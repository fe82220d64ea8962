/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ecmp: equal-cost multipath by flow hash, through a bucket table in the
 * style of VPP's load_balance (bucket = hash & (nb_buckets - 1)).
 *
 * Where it sits: the load-balancing stage of the switch pipeline.  The
 * member of a packet depends only on its flow_hash and on which members of
 * its group are live, so a flow keeps its member (no reordering) and
 * host-side spraying works by changing the EV, which changes flow_hash.
 *
 * Seed: ecmp deliberately ignores lb_params.seed.  That seed is mixed with
 * the lcore, but every lcore of one switch must send a given flow to the
 * same member.  The per-switch seed that keeps switches of different tiers
 * from making correlated choices (hash polarisation) is already inside
 * flow_hash, which the engine computes with ofan_hash_5tuple() and the
 * switch's seed.
 *
 * Table: each group has LB_ECMP_NB_BUCKETS buckets of one member each.
 * Bucket b has a fixed preference list of members: its home member
 * h = b % n (n = nb_members), then the other members in the order h+1,
 * h+2, ... rotated by q = b / n.  The bucket is served by the first live
 * member of its list.  So the table is a pure function of the live set:
 *  - with every member live the buckets are spread exactly evenly;
 *  - when a member dies only the buckets it served move (minimal
 *    disruption), and with one member down its buckets are dealt round
 *    robin over the others, because q runs through consecutive values;
 *  - when it returns the table is exactly the one before the failure, so
 *    its flows come back to it, and lcores never disagree, however they
 *    saw the history.
 *
 * Weights (WCMP): once routing weights a group's live members unequally
 * (after a failure, the live paths through each), each member gets a
 * share of the buckets in proportion to its weight (largest remainders),
 * and a bucket keeps its unweighted member while that member's share has
 * room, so that only the buckets the weights take away move.
 *
 * Trade-off: no reordering, but large flows collide on one member (the
 * ECMP problem this testbed measures).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lb.h"

/* 256 buckets spread up to 64 members within 1/256 of even. */
#define LB_ECMP_NB_BUCKETS 256
#define LB_ECMP_BUCKET_MASK (LB_ECMP_NB_BUCKETS - 1)

struct lb_ecmp_table {
	uint8_t member[LB_ECMP_NB_BUCKETS];
} __attribute__((aligned(64)));

struct lb_ecmp {
	uint32_t nb_groups;
	struct lb_ecmp_table *tables;	/* one per group id */
};

static int
lb_ecmp_create(const struct lb_params *p, void **state)
{
	struct lb_ecmp *st;
	void *mem;

	if (p->nb_groups == 0)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	if (posix_memalign(&mem, 64,
			   (size_t)p->nb_groups * sizeof(*st->tables)) != 0) {
		free(st);
		return -ENOMEM;
	}
	memset(mem, 0, (size_t)p->nb_groups * sizeof(*st->tables));
	st->tables = mem;
	st->nb_groups = p->nb_groups;
	*state = st;
	return 0;
}

static void
lb_ecmp_destroy(void *state)
{
	struct lb_ecmp *st = state;

	if (st == NULL)
		return;
	free(st->tables);
	free(st);
}

/* First live member in bucket b's preference list (see the top comment). */
static uint8_t
lb_ecmp_bucket_member(const struct lb_group *grp, unsigned int b)
{
	unsigned int n = grp->nb_members;
	unsigned int home = b % n;
	unsigned int q = b / n;
	unsigned int i;

	if (grp->weight[home] > 0 || n == 1)
		return (uint8_t)home;
	for (i = 0; i < n - 1; i++) {
		unsigned int m = (home + 1 + (q + i) % (n - 1)) % n;

		if (grp->weight[m] > 0)
			return (uint8_t)m;
	}
	/* Nothing live: pick() answers LB_NONE before reading the table. */
	return (uint8_t)home;
}

/*
 * A weighted group's table: each live member's share of the buckets is
 * its weight's, largest remainders first (ties to the earlier member);
 * the unweighted table's buckets stay where their member's share has
 * room, and the others go, in bucket order, to the members still short.
 */
static void
lb_ecmp_weigh(const struct lb_group *grp, struct lb_ecmp_table *t)
{
	uint32_t quota[LB_MAX_MEMBERS] = { 0 }, rem[LB_MAX_MEMBERS];
	uint32_t given = 0, prev = 0;
	uint16_t k, m;
	unsigned int b;
	bool moved[LB_ECMP_NB_BUCKETS];

	for (k = 0; k < grp->nb_live; k++) {
		uint32_t w = grp->cum_weight[k] - prev;
		uint32_t share = w * LB_ECMP_NB_BUCKETS;

		prev = grp->cum_weight[k];
		m = grp->live[k];
		quota[m] = share / grp->total_weight;
		rem[k] = share % grp->total_weight;
		given += quota[m];
	}
	while (given < LB_ECMP_NB_BUCKETS) {
		uint16_t best = 0;

		for (k = 1; k < grp->nb_live; k++)
			if (rem[k] > rem[best])
				best = k;
		quota[grp->live[best]]++;
		rem[best] = 0;
		given++;
	}
	for (b = 0; b < LB_ECMP_NB_BUCKETS; b++) {
		m = t->member[b];
		moved[b] = quota[m] == 0;
		if (!moved[b])
			quota[m]--;
	}
	k = 0;
	for (b = 0; b < LB_ECMP_NB_BUCKETS; b++) {
		if (!moved[b])
			continue;
		while (quota[grp->live[k]] == 0)
			k++;
		t->member[b] = (uint8_t)grp->live[k];
		quota[grp->live[k]]--;
	}
}

static void
lb_ecmp_group_changed(void *state, const struct lb_group *grp)
{
	struct lb_ecmp *st = state;
	struct lb_ecmp_table *t;
	unsigned int b;

	/* An id outside the instance's range is a caller bug; ignore it. */
	if (grp->id >= st->nb_groups || grp->nb_members == 0)
		return;
	t = &st->tables[grp->id];
	for (b = 0; b < LB_ECMP_NB_BUCKETS; b++)
		t->member[b] = lb_ecmp_bucket_member(grp, b);
	if (grp->weighted)
		lb_ecmp_weigh(grp, t);
}

static void
lb_ecmp_pick(void *state, const struct lb_pkt *pkts, uint16_t n,
	     const struct lb_view *view, uint64_t now_ns, uint16_t *out)
{
	const struct lb_ecmp *st = state;
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct lb_group *grp = pkts[i].grp;

		if (grp->nb_live == 0) {
			out[i] = LB_NONE;
			continue;
		}
		out[i] = st->tables[grp->id].member[pkts[i].flow_hash &
						    LB_ECMP_BUCKET_MASK];
	}
}

const struct lb_ops lb_ecmp_ops = {
	.name = "ecmp",
	.summary = "per-flow hash onto a bucket table (no reordering)",
	.uses_flow_hash = true,
	.flow_hash_where_choice = true,
	.uses_queue_levels = false,
	.parse = NULL,
	.create = lb_ecmp_create,
	.destroy = lb_ecmp_destroy,
	.group_changed = lb_ecmp_group_changed,
	.pick = lb_ecmp_pick,
	.dump = NULL,
};
