/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-fabric's mbuf pool: a large reservation of virtual memory (backed
 * by transparent huge pages where the kernel allows it: a run touches
 * mbufs all over the pool, and with 4 KB pages nearly every hop missed
 * the TLB) of which only what runs use is populated.  It starts with a
 * share and grows between windows, before it could run dry
 * (fab_pool_reserve), so a run's memory follows the mbufs it holds at
 * once rather than the worst case the pool is sized for.  The fabric never
 * does DMA, so the pool needs no IOVA.  If the reservation fails it falls
 * back to an ordinary, fully populated pool in EAL memory.
 */
#ifndef OFAN_FAB_POOL_H
#define OFAN_FAB_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rte_mempool;

/* Free mbufs a run keeps beyond what one window can take (fab_sim.c). */
#define FAB_POOL_RESERVE 4096u

struct fab_pool {
	struct rte_mempool *mp;
	uint8_t *addr;		/* the reservation; NULL: an EAL pool */
	size_t len;
	size_t used;		/* bytes of it populated */
	uint32_t max;		/* mbufs at most */
	uint32_t grown;		/* times it grew */
};

/*
 * A pool of up to n mbufs of room bytes of data, the ring multi-thread
 * safe when threads.  Returns 0, or -ENOMEM (rte_errno set).
 */
int fab_pool_create(struct fab_pool *fp, uint32_t n, uint16_t room,
		    bool threads);

/*
 * Make sure at least need mbufs are free (populating more of the
 * reservation, as far as it goes).  Call it where no other thread takes
 * or returns mbufs (between windows).
 */
void fab_pool_reserve(struct fab_pool *fp, uint32_t need);

/* Mbufs taken from mp and not returned (its populated part only). */
unsigned int fab_pool_in_use(const struct rte_mempool *mp);

/* Populated size in MB (timing.csv, the memory table). */
double fab_pool_mb(const struct fab_pool *fp);

void fab_pool_free(struct fab_pool *fp);

#endif /* OFAN_FAB_POOL_H */
