/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "fab_pool.h"

#define FAB_HUGE (2u << 20)
/* What a pool populates first, and at least per growth. */
#define FAB_POOL_FIRST 8192u

static size_t
fab_pool_elt_bytes(const struct rte_mempool *mp)
{
	return mp->header_size + mp->elt_size + mp->trailer_size;
}

/* rte_pktmbuf_init for the objects from index *first on. */
static void
fab_pool_init_new(struct rte_mempool *mp, void *arg, void *obj,
		  unsigned int idx)
{
	if (idx >= *(const unsigned int *)arg)
		rte_pktmbuf_init(mp, NULL, obj, idx);
}

/* Populate about nb more mbufs; the number added. */
static uint32_t
fab_pool_add(struct fab_pool *fp, uint32_t nb)
{
	struct rte_mempool *mp = fp->mp;
	unsigned int first = mp->populated_size;
	size_t bytes, left = fp->len - fp->used;
	int n;

	if (nb > mp->size - mp->populated_size)
		nb = mp->size - mp->populated_size;
	if (nb == 0 || left == 0)
		return 0;
	/* Whole huge pages, the last chunk everything left. */
	bytes = RTE_ALIGN_CEIL((size_t)nb * fab_pool_elt_bytes(mp) +
			       RTE_CACHE_LINE_SIZE, FAB_HUGE);
	if (bytes > left || mp->populated_size + nb >= mp->size)
		bytes = left;
	n = rte_mempool_populate_virt(mp, (char *)fp->addr + fp->used, bytes,
				      0, NULL, NULL);
	if (n <= 0)
		return 0;
	fp->used += bytes;
	rte_mempool_obj_iter(mp, fab_pool_init_new, &first);
	return (uint32_t)n;
}

int
fab_pool_create(struct fab_pool *fp, uint32_t n, uint16_t room, bool threads)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = room,
		.mbuf_priv_size = 0,
	};
	struct rte_mempool *mp;
	size_t elt = sizeof(struct rte_mbuf) + room;

	memset(fp, 0, sizeof(*fp));
	fp->max = n;
	mp = rte_mempool_create_empty("fabric", n, (unsigned int)elt,
				      RTE_MEMPOOL_CACHE_MAX_SIZE, sizeof(priv),
				      SOCKET_ID_ANY, 0);
	if (mp == NULL)
		goto fallback;
	/* The largest per-lcore cache, so that recently freed (cache-hot)
	 * mbufs are reused first; one thread takes the cheapest ring. */
	if (rte_mempool_set_ops_byname(mp, threads ? "ring_mp_mc" :
				       "ring_sp_sc", NULL) != 0)
		goto fail;
	rte_pktmbuf_pool_init(mp, &priv);
	fp->mp = mp;
	/* Every chunk may waste up to an element and a cache line. */
	fp->len = RTE_ALIGN_CEIL((size_t)n * fab_pool_elt_bytes(mp) +
				 64 * (fab_pool_elt_bytes(mp) + FAB_HUGE),
				 FAB_HUGE);
	fp->addr = mmap(NULL, fp->len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (fp->addr == MAP_FAILED) {
		fp->addr = NULL;
		goto fail;
	}
	madvise(fp->addr, fp->len, MADV_HUGEPAGE);
	if (fab_pool_add(fp, RTE_MIN(n, FAB_POOL_FIRST)) == 0)
		goto fail;
	return 0;
fail:
	rte_mempool_free(mp);
	if (fp->addr != NULL)
		munmap(fp->addr, fp->len);
	memset(fp, 0, sizeof(*fp));
	fp->max = n;
fallback:
	fp->mp = rte_pktmbuf_pool_create("fabric", n, 256, 0, room,
					 SOCKET_ID_ANY);
	return fp->mp == NULL ? -ENOMEM : 0;
}

void
fab_pool_reserve(struct fab_pool *fp, uint32_t need)
{
	struct rte_mempool *mp = fp->mp;

	if (fp->addr == NULL || mp->populated_size >= mp->size)
		return;
	/* Our pool's ring alone (it has ring ops: fab_pool_create), without
	 * the lcore caches that rte_mempool_avail_count() loops over, is a
	 * lower bound, and enough nearly always. */
	if (rte_ring_count((const struct rte_ring *)mp->pool_data) >= need)
		return;
	while (rte_mempool_avail_count(mp) < need &&
	       mp->populated_size < mp->size) {
		/* Geometric: half as many again, at least what is missing. */
		uint32_t more = RTE_MAX(need - rte_mempool_avail_count(mp),
					RTE_MAX(FAB_POOL_FIRST,
						mp->populated_size / 2));

		if (fab_pool_add(fp, more) == 0)
			return;
		fp->grown++;
	}
}

unsigned int
fab_pool_in_use(const struct rte_mempool *mp)
{
	return mp->populated_size - rte_mempool_avail_count(mp);
}

double
fab_pool_mb(const struct fab_pool *fp)
{
	if (fp->mp == NULL)
		return 0;
	return (double)fp->mp->populated_size *
		(double)fab_pool_elt_bytes(fp->mp) / (1024.0 * 1024.0);
}

void
fab_pool_free(struct fab_pool *fp)
{
	if (fp->mp != NULL)
		rte_mempool_free(fp->mp);
	if (fp->addr != NULL)
		munmap(fp->addr, fp->len);
	memset(fp, 0, sizeof(*fp));
}
