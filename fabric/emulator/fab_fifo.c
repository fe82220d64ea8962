/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame queues of a fabric run (fab_sim.h): a wire's FIFO of frames
 * in flight (or crossing to another thread) with their due times, grown
 * by doubling, and a host NIC's slots, one per flow, served round robin.
 */
#include <errno.h>
#include <stdlib.h>

#include <rte_mbuf.h>

#include "fab_sim.h"

int
fab_fifo_push(struct fab_fifo *f, struct rte_mbuf *m, uint64_t t)
{
	if (f->e == NULL || fab_fifo_len(f) == f->mask + 1) {
		uint32_t cap = f->e == NULL ? 64 : 2 * (f->mask + 1), i;
		struct fab_slot *ne = malloc(cap * sizeof(*ne));

		if (ne == NULL)
			return -ENOMEM;
		for (i = 0; i < fab_fifo_len(f); i++)
			ne[i] = f->e[(f->head + i) & f->mask];
		f->tail = fab_fifo_len(f);
		f->head = 0;
		free(f->e);
		f->e = ne;
		f->mask = cap - 1;
	}
	f->e[f->tail & f->mask] = (struct fab_slot){ .m = m, .t = t };
	f->tail++;
	return 0;
}

uint32_t
fab_fifo_free(struct fab_fifo *f)
{
	uint32_t n = 0;

	while (f->head != f->tail) {
		rte_pktmbuf_free(f->e[f->head++ & f->mask].m);
		n++;
	}
	free(f->e);
	memset(f, 0, sizeof(*f));
	return n;
}

/* ---- host NICs ---- */

int
fab_nic_init(struct fab_nic *n, uint32_t nb_slots)
{
	memset(n, 0, sizeof(*n));
	n->slot = calloc(nb_slots, sizeof(*n->slot));
	n->busy = calloc((nb_slots + 63) / 64, sizeof(*n->busy));
	if (n->slot == NULL || n->busy == NULL)
		return -ENOMEM;
	n->nb_slots = nb_slots;
	return 0;
}

int
fab_nic_push(struct fab_nic *n, struct rte_mbuf *m)
{
	uint32_t i = m->hash.usr < n->nb_slots ? m->hash.usr : n->nb_slots - 1;

	if (fab_fifo_push(&n->slot[i], m, 0) != 0)
		return -ENOMEM;
	n->busy[i / 64] |= 1ull << (i % 64);
	n->len++;
	return 0;
}

bool
fab_nic_full(void *nic, uint32_t slot)
{
	const struct fab_nic *n = nic;

	return n->limit != 0 && slot < n->nb_slots &&
		fab_fifo_len(&n->slot[slot]) >= n->limit;
}

struct rte_mbuf *
fab_nic_pop(struct fab_nic *n, uint32_t *slot)
{
	uint32_t words = (n->nb_slots + 63) / 64, w, k, i;
	struct fab_fifo *f;
	struct rte_mbuf *m;
	uint64_t bits;

	if (n->len == 0)
		return NULL;
	/* The first busy slot at or after pos, wrapping around. */
	w = n->pos / 64;
	bits = n->busy[w] & (~0ull << (n->pos % 64));
	for (k = 0; bits == 0 && k < words; k++) {
		w = (w + 1) % words;
		bits = n->busy[w];
	}
	i = w * 64 + (uint32_t)__builtin_ctzll(bits);
	f = &n->slot[i];
	m = f->e[f->head++ & f->mask].m;
	if (f->head == f->tail)
		n->busy[i / 64] &= ~(1ull << (i % 64));
	n->len--;
	n->pos = i + 1 == n->nb_slots ? 0 : i + 1;
	*slot = i;
	return m;
}

uint32_t
fab_nic_free(struct fab_nic *n)
{
	uint32_t i, left = 0;

	for (i = 0; i < n->nb_slots && n->slot != NULL; i++)
		left += fab_fifo_free(&n->slot[i]);
	free(n->slot);
	free(n->busy);
	memset(n, 0, sizeof(*n));
	return left;
}

