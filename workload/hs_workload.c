/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Training jobs: building a workload (hs_workload.h) -- its nodes and
 * communicators, the checks, the unrolled iterations, the operations
 * matched across ranks and the flows they expand into.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hs_pattern.h"
#include "hs_traffic.h"
#include "hs_workload.h"

const char *const hs_wl_kind_names[] = {
	"compute", "collective", "send", "recv", NULL
};

const char *const hs_wl_coll_names[] = {
	"all_reduce", "reduce_scatter", "all_gather", "all_to_all", NULL
};

/* The pattern each collective expands through (hs_pattern.c). */
static const char *const hs_wl_coll_pattern[] = {
	"ring_allreduce", "reduce_scatter", "allgather", "alltoall"
};

static void __attribute__((format(printf, 3, 4)))
wl_fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
}

/* Grow *p (of *cap entries of size sz) to hold need; 0 or -ENOMEM. */
static int
wl_grow(void **p, uint32_t *cap, uint32_t need, size_t sz)
{
	uint32_t c = *cap != 0 ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c = c > UINT32_MAX / 2 ? need : c * 2;
	q = realloc(*p, (size_t)c * sz);
	if (q == NULL)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

void
hs_wl_init(struct hs_workload *w, uint32_t nb_hosts)
{
	memset(w, 0, sizeof(*w));
	w->nb_hosts = nb_hosts;
}

void
hs_wl_free(struct hs_workload *w)
{
	uint32_t j;

	for (j = 0; j < w->nb_jobs; j++) {
		free(w->jobs[j].host);
		free(w->jobs[j].order);
	}
	free(w->jobs);
	free(w->nodes);
	free(w->deps);
	free(w->kids);
	free(w->comms);
	free(w->comm_ranks);
	free(w->ops);
	free(w->members);
	free(w->member_node);
	free(w->flows);
	free(w->out_first);
	free(w->out_flows);
	free(w->fwd_first);
	free(w->fwd_flows);
	free(w->names);
	memset(w, 0, sizeof(*w));
}

const char *
hs_wl_name(const struct hs_workload *w, uint32_t node)
{
	return w->names != NULL ? w->names + w->nodes[node].name : "";
}

/* Offset of a copy of s in the names; UINT32_MAX if out of memory. */
static uint32_t
wl_intern(struct hs_workload *w, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off;

	if (w->names_len + n > w->names_cap) {
		size_t c = w->names_cap != 0 ? w->names_cap : 256;
		char *q;

		while (c < w->names_len + n)
			c *= 2;
		q = realloc(w->names, c);
		if (q == NULL)
			return UINT32_MAX;
		w->names = q;
		w->names_cap = c;
	}
	off = (uint32_t)w->names_len;
	memcpy(w->names + off, s, n);
	w->names_len += n;
	return off;
}

int
hs_wl_add_job(struct hs_workload *w, const char *name, uint32_t nb_ranks,
	      const uint32_t *hosts, uint32_t iterations, uint64_t start_ns,
	      char *err, size_t err_size)
{
	struct hs_wl_job *j, *q;
	uint32_t r, k;

	if (nb_ranks == 0 || iterations == 0) {
		wl_fail(err, err_size, "%s: %u ranks, %u iterations; expected at least 1 of each",
			name, nb_ranks, iterations);
		return -EINVAL;
	}
	for (r = 0; r < nb_ranks; r++) {
		if (hosts[r] >= w->nb_hosts) {
			wl_fail(err, err_size, "%s: rank %u is placed on host %u; expected a host below %u",
				name, r, hosts[r], w->nb_hosts);
			return -EINVAL;
		}
		for (k = 0; k < w->nb_jobs; k++) {
			uint32_t x;

			for (x = 0; x < w->jobs[k].nb_ranks; x++)
				if (w->jobs[k].host[x] == hosts[r]) {
					wl_fail(err, err_size, "%s: rank %u is placed on host %u, which job %s's rank %u has; expected one job a host",
						name, r, hosts[r],
						w->jobs[k].name, x);
					return -EINVAL;
				}
		}
		for (k = 0; k < r; k++)
			if (hosts[k] == hosts[r]) {
				wl_fail(err, err_size, "%s: ranks %u and %u are both placed on host %u; expected one rank a host",
					name, k, r, hosts[r]);
				return -EINVAL;
			}
	}
	q = realloc(w->jobs, sizeof(*q) * (w->nb_jobs + 1));
	if (q == NULL)
		return -ENOMEM;
	w->jobs = q;
	j = &w->jobs[w->nb_jobs];
	memset(j, 0, sizeof(*j));
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->nb_ranks = nb_ranks;
	j->iterations = iterations;
	j->start_ns = start_ns;
	j->node_first = w->nb_nodes;
	j->comm_first = w->nb_comms;
	j->host = malloc(sizeof(*j->host) * nb_ranks);
	if (j->host == NULL)
		return -ENOMEM;
	memcpy(j->host, hosts, sizeof(*j->host) * nb_ranks);
	return (int)w->nb_jobs++;
}

int
hs_wl_add_comm(struct hs_workload *w, const uint32_t *ranks, uint32_t nb)
{
	struct hs_wl_job *j = &w->jobs[w->nb_jobs - 1];

	if (wl_grow((void **)&w->comms, &w->cap_comms, w->nb_comms + 1,
		    sizeof(*w->comms)) != 0 ||
	    wl_grow((void **)&w->comm_ranks, &w->cap_comm_ranks,
		    w->nb_comm_ranks + nb, sizeof(*w->comm_ranks)) != 0)
		return -ENOMEM;
	w->comms[w->nb_comms].first = w->nb_comm_ranks;
	w->comms[w->nb_comms].nb = nb;
	memcpy(w->comm_ranks + w->nb_comm_ranks, ranks, sizeof(*ranks) * nb);
	w->nb_comm_ranks += nb;
	j->nb_comms++;
	return (int)(w->nb_comms++ - j->comm_first);
}

int
hs_wl_add_node(struct hs_workload *w, const struct hs_wl_node *n,
	       const char *name, const uint32_t *deps, uint32_t nb_deps)
{
	struct hs_wl_job *j = &w->jobs[w->nb_jobs - 1];
	struct hs_wl_node *x;
	uint32_t nm;

	if (wl_grow((void **)&w->nodes, &w->cap_nodes, w->nb_nodes + 1,
		    sizeof(*w->nodes)) != 0 ||
	    wl_grow((void **)&w->deps, &w->cap_deps, w->nb_deps + nb_deps,
		    sizeof(*w->deps)) != 0)
		return -ENOMEM;
	nm = wl_intern(w, name);
	if (nm == UINT32_MAX)
		return -ENOMEM;
	x = &w->nodes[w->nb_nodes];
	*x = *n;
	x->job = w->nb_jobs - 1;
	x->iteration = 0;
	x->op = HS_WL_NONE;
	x->name = nm;
	x->dep_first = w->nb_deps;
	x->nb_deps = nb_deps;
	x->kid_first = x->nb_kids = 0;
	if (nb_deps > 0)
		memcpy(w->deps + w->nb_deps, deps, sizeof(*deps) * nb_deps);
	w->nb_deps += nb_deps;
	j->nb_nodes++;
	return (int)(w->nb_nodes++ - j->node_first);
}

double
hs_wl_busbw_factor(uint8_t kind, uint8_t coll, uint32_t n)
{
	if (kind != HS_WL_COLL || n < 2)
		return 1.0;
	if (coll == HS_COLL_ALLREDUCE)
		return 2.0 * (n - 1) / n;
	return (double)(n - 1) / n;
}

/* ---- checks ---- */

/* The node's place in messages: "JOB: node NAME (rank R)". */
#define WL_AT "%s: node %s (rank %u)"
#define WL_AT_ARGS(w, j, i) (j)->name, hs_wl_name(w, i), (w)->nodes[i].rank

static bool
wl_in_comm(const struct hs_workload *w, const struct hs_wl_job *j,
	   uint32_t comm, uint32_t rank, uint32_t *pos)
{
	const struct hs_wl_comm *c = &w->comms[j->comm_first + comm];
	uint32_t i;

	for (i = 0; i < c->nb; i++)
		if (w->comm_ranks[c->first + i] == rank) {
			*pos = i;
			return true;
		}
	return false;
}

/* A min-heap of node indexes in h (*nb of them). */
static void
wl_heap_push(uint32_t *h, uint32_t *nb, uint32_t v)
{
	uint32_t i = (*nb)++;

	while (i > 0 && v < h[(i - 1) / 2]) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static uint32_t
wl_heap_pop(uint32_t *h, uint32_t *nb)
{
	uint32_t top = h[0], last = h[--*nb], i = 0, c;

	while ((c = 2 * i + 1) < *nb) {
		if (c + 1 < *nb && h[c + 1] < h[c])
			c++;
		if (h[c] >= last)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*nb > 0)
		h[i] = last;
	return top;
}

/* Node i of job j: rank, kind, collective, peer and size in range. */
static int
wl_check_node(const struct hs_workload *w, const struct hs_wl_job *j,
	      uint32_t i, char *err, size_t err_size)
{
	const struct hs_wl_node *x = &w->nodes[i];
	uint32_t pos;

	if (x->rank >= j->nb_ranks) {
		wl_fail(err, err_size, WL_AT ": rank %u; expected a rank below %u",
			WL_AT_ARGS(w, j, i), x->rank, j->nb_ranks);
		return -EINVAL;
	}
	if (x->kind >= HS_WL_KIND_NB) {
		wl_fail(err, err_size, WL_AT ": kind %u; expected compute, collective, send or recv",
			WL_AT_ARGS(w, j, i), x->kind);
		return -EINVAL;
	}
	if (x->kind == HS_WL_COLL &&
	    (x->coll >= HS_COLL_NB || x->comm >= j->nb_comms ||
	     !wl_in_comm(w, j, x->comm, x->rank, &pos))) {
		wl_fail(err, err_size, x->coll >= HS_COLL_NB ?
			WL_AT ": unknown collective %u; expected all_reduce, reduce_scatter, all_gather or all_to_all" :
			WL_AT ": communicator %u does not hold this rank; expected one of the job's %u communicators with it",
			WL_AT_ARGS(w, j, i), x->coll >= HS_COLL_NB ?
			x->coll : x->comm, j->nb_comms);
		return -EINVAL;
	}
	if ((x->kind == HS_WL_SEND || x->kind == HS_WL_RECV) &&
	    (x->peer >= j->nb_ranks || x->peer == x->rank)) {
		wl_fail(err, err_size, WL_AT ": peer %u; expected another rank below %u",
			WL_AT_ARGS(w, j, i), x->peer, j->nb_ranks);
		return -EINVAL;
	}
	if (x->kind != HS_WL_COMP && x->size == 0) {
		wl_fail(err, err_size, WL_AT ": size 0; expected at least 1 byte",
			WL_AT_ARGS(w, j, i));
		return -EINVAL;
	}
	return 0;
}

/* Node i of job j depends only on nodes of the job at its own rank. */
static int
wl_check_deps(const struct hs_workload *w, const struct hs_wl_job *j,
	      uint32_t i, char *err, size_t err_size)
{
	const struct hs_wl_node *x = &w->nodes[i];
	uint32_t b = j->node_first, k;

	for (k = 0; k < x->nb_deps; k++) {
		uint32_t d = w->deps[x->dep_first + k];

		if (d >= j->nb_nodes) {
			wl_fail(err, err_size, WL_AT ": depends on node %u; expected one of the job's %u nodes",
				WL_AT_ARGS(w, j, i), d, j->nb_nodes);
			return -EINVAL;
		}
		if (w->nodes[b + d].rank != x->rank) {
			wl_fail(err, err_size, WL_AT ": depends on %s of rank %u; expected nodes of its own rank (ranks meet through communication)",
				WL_AT_ARGS(w, j, i), hs_wl_name(w, b + d),
				w->nodes[b + d].rank);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Who waits for each of job j's nodes: kids[kfirst[d] .. kfirst[d + 1])
 * (kfirst zeroed, n + 2 of them; fill has room for n counts).
 */
static void
wl_job_kids(const struct hs_workload *w, const struct hs_wl_job *j,
	    uint32_t *kfirst, uint32_t *kids, uint32_t *fill)
{
	uint32_t b = j->node_first, n = j->nb_nodes, i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < w->nodes[b + i].nb_deps; k++)
			kfirst[w->deps[w->nodes[b + i].dep_first + k] + 1]++;
	for (i = 0; i < n; i++)
		kfirst[i + 1] += kfirst[i];
	for (i = 0; i < n; i++)
		fill[i] = 0;
	for (i = 0; i < n; i++) {
		const struct hs_wl_node *x = &w->nodes[b + i];

		for (k = 0; k < x->nb_deps; k++) {
			uint32_t d = w->deps[x->dep_first + k];

			kids[kfirst[d] + fill[d]++] = i;
		}
	}
}

/*
 * A node of job j on a dependency cycle, given the in-degrees Kahn's
 * algorithm left (those above 0 wait on the cycle): walk back through
 * waiting dependencies until a node comes round again.
 */
static uint32_t
wl_cycle_node(const struct hs_workload *w, const struct hs_wl_job *j,
	      const uint32_t *indeg)
{
	uint32_t b = j->node_first, n = j->nb_nodes, i, k;
	uint8_t *seen = calloc(n + 1, 1);

	for (i = 0; i < n && indeg[i] == 0; i++)
		;
	while (seen != NULL && !seen[i]) {
		const struct hs_wl_node *x = &w->nodes[b + i];

		seen[i] = 1;
		for (k = 0; k < x->nb_deps; k++)
			if (indeg[w->deps[x->dep_first + k]] > 0)
				break;
		i = w->deps[x->dep_first + k];
	}
	free(seen);
	return i;
}

/*
 * j->order: job j's nodes in dependency order, by Kahn's algorithm with
 * the lowest ready node first (the order operations are matched in; a
 * node list already in dependency order keeps its order).  What is left
 * over lies on a cycle: -EINVAL naming one of its nodes.
 */
static int
wl_order(const struct hs_workload *w, struct hs_wl_job *j, char *err,
	 size_t err_size)
{
	uint32_t n = j->nb_nodes, i, k, done = 0, top = 0;
	uint32_t *indeg = calloc(n + 1, sizeof(*indeg));
	uint32_t *heap = malloc(sizeof(*heap) * (n + 1));
	uint32_t *kfirst = calloc(n + 2, sizeof(*kfirst));
	uint32_t *kids = malloc(sizeof(*kids) * (w->nb_deps + 1));
	int rc = 0;

	if (indeg == NULL || heap == NULL || kfirst == NULL || kids == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/* wl_job_kids() borrows heap[] to count the kids it fills in. */
	wl_job_kids(w, j, kfirst, kids, heap);
	for (i = 0; i < n; i++)
		indeg[i] = w->nodes[j->node_first + i].nb_deps;
	for (i = 0; i < n; i++)
		if (indeg[i] == 0)
			wl_heap_push(heap, &top, i);
	while (top > 0) {
		uint32_t x = wl_heap_pop(heap, &top);

		j->order[done++] = x;
		for (k = kfirst[x]; k < kfirst[x + 1]; k++)
			if (--indeg[kids[k]] == 0)
				wl_heap_push(heap, &top, kids[k]);
	}
	if (done != n) {
		wl_fail(err, err_size, WL_AT ": lies on a dependency cycle; expected a DAG",
			WL_AT_ARGS(w, j, j->node_first +
				   wl_cycle_node(w, j, indeg)));
		rc = -EINVAL;
	}
out:
	free(indeg);
	free(heap);
	free(kfirst);
	free(kids);
	return rc;
}

/*
 * One job's first iteration: fields, dependencies, no cycle; j->order
 * filled with its nodes in dependency order.
 */
static int
wl_check_job(const struct hs_workload *w, struct hs_wl_job *j, char *err,
	     size_t err_size)
{
	uint32_t b = j->node_first, n = j->nb_nodes, i;
	int rc;

	if (n == 0) {
		wl_fail(err, err_size, "%s: no nodes; expected at least one",
			j->name);
		return -EINVAL;
	}
	free(j->order);
	j->order = malloc(sizeof(*j->order) * n);
	if (j->order == NULL)
		return -ENOMEM;
	for (i = b; i < b + n; i++) {
		rc = wl_check_node(w, j, i, err, err_size);
		if (rc == 0)
			rc = wl_check_deps(w, j, i, err, err_size);
		if (rc != 0)
			return rc;
	}
	return wl_order(w, j, err, err_size);
}

/* ---- unrolling ---- */

/*
 * Replace the first-iteration nodes by every iteration's: iteration k's
 * copy of node i depends on the copies of i's dependencies, and a node
 * without any on every node of iteration k - 1 at its rank that no node
 * waits for (its last ones).
 */
static int
wl_unroll(struct hs_workload *w, char *err, size_t err_size)
{
	struct hs_wl_node *nodes = NULL;
	uint32_t *deps = NULL, nb_nodes = 0, nb_deps = 0, j, it, i, k;
	uint32_t cap_deps = 0, *sink_first = NULL, *sinks = NULL;
	uint64_t cap_nodes = 0;
	uint8_t *is_sink = NULL;
	int rc = 0;

	/* Node and rank-iteration counts must fit the 32-bit indexes. */
	for (j = 0; j < w->nb_jobs; j++) {
		const struct hs_wl_job *jb = &w->jobs[j];

		cap_nodes += (uint64_t)jb->nb_nodes * jb->iterations;
		if (cap_nodes > UINT32_MAX - 1 ||
		    (uint64_t)jb->nb_ranks * jb->iterations > UINT32_MAX - 1) {
			wl_fail(err, err_size, "%s: %u nodes x %u iterations (or ranks x iterations) is more than %u; expected fewer iterations or a smaller job",
				jb->name, jb->nb_nodes, jb->iterations,
				UINT32_MAX - 1);
			return -EINVAL;
		}
	}
	nodes = malloc(sizeof(*nodes) * (cap_nodes + 1));
	is_sink = malloc(w->nb_nodes + 1);
	if (nodes == NULL || is_sink == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	memset(is_sink, 1, w->nb_nodes + 1);
	for (i = 0; i < w->nb_nodes; i++) {
		const struct hs_wl_node *x = &w->nodes[i];

		for (k = 0; k < x->nb_deps; k++)
			is_sink[w->jobs[x->job].node_first +
				w->deps[x->dep_first + k]] = 0;
	}
	for (j = 0; j < w->nb_jobs; j++) {
		struct hs_wl_job *jb = &w->jobs[j];
		uint32_t b = jb->node_first, n = jb->nb_nodes, r;
		uint32_t nb = nb_nodes;

		/* Each rank's last nodes (none waits for them): sinks[
		 * sink_first[r] ..), what its next iteration waits for. */
		free(sink_first);
		free(sinks);
		sink_first = calloc(jb->nb_ranks + 2, sizeof(*sink_first));
		sinks = malloc(sizeof(*sinks) * (n + 1));
		if (sink_first == NULL || sinks == NULL) {
			rc = -ENOMEM;
			goto fail;
		}
		for (i = 0; i < n; i++)
			sink_first[w->nodes[b + i].rank + 2] += is_sink[b + i];
		for (r = 0; r < jb->nb_ranks; r++)
			sink_first[r + 2] += sink_first[r + 1];
		for (i = 0; i < n; i++)
			if (is_sink[b + i])
				sinks[sink_first[w->nodes[b + i].rank + 1]++] = i;
		for (it = 0; it < jb->iterations; it++) {
			for (i = 0; i < n; i++) {
				const struct hs_wl_node *x = &w->nodes[b + i];
				struct hs_wl_node *y = &nodes[nb_nodes++];
				uint32_t s0 = sink_first[x->rank];
				uint32_t extra = x->nb_deps == 0 && it > 0 ?
					sink_first[x->rank + 1] - s0 : 0;

				*y = *x;
				y->iteration = it;
				y->dep_first = nb_deps;
				if (wl_grow((void **)&deps, &cap_deps,
					    nb_deps + x->nb_deps + extra,
					    sizeof(*deps)) != 0) {
					rc = -ENOMEM;
					goto fail;
				}
				for (k = 0; k < x->nb_deps; k++)
					deps[nb_deps++] = nb + it * n +
						w->deps[x->dep_first + k];
				for (k = 0; k < extra; k++)
					deps[nb_deps++] = nb + (it - 1) * n +
						sinks[s0 + k];
				y->nb_deps = nb_deps - y->dep_first;
			}
		}
		jb->node_first = nb;
		jb->nb_nodes = n * jb->iterations;
	}
	free(w->nodes);
	free(w->deps);
	free(is_sink);
	free(sink_first);
	free(sinks);
	w->nodes = nodes;
	w->nb_nodes = w->cap_nodes = nb_nodes;
	w->deps = deps;
	w->nb_deps = nb_deps;
	w->cap_deps = cap_deps;
	return 0;
fail:
	free(nodes);
	free(deps);
	free(is_sink);
	free(sink_first);
	free(sinks);
	return rc;
}

/* Who waits for each node (its kids, in node order). */
static int
wl_index_kids(struct hs_workload *w)
{
	uint32_t *fill, i, k;

	free(w->kids);
	w->kids = malloc(sizeof(*w->kids) * (w->nb_deps + 1));
	fill = calloc(w->nb_nodes + 1, sizeof(*fill));
	if (w->kids == NULL || fill == NULL) {
		free(fill);
		return -ENOMEM;
	}
	for (i = 0; i < w->nb_nodes; i++)
		w->nodes[i].nb_kids = 0;
	for (i = 0; i < w->nb_nodes; i++)
		for (k = 0; k < w->nodes[i].nb_deps; k++)
			w->nodes[w->deps[w->nodes[i].dep_first + k]].nb_kids++;
	for (i = 0, k = 0; i < w->nb_nodes; i++) {
		w->nodes[i].kid_first = k;
		k += w->nodes[i].nb_kids;
	}
	for (i = 0; i < w->nb_nodes; i++)
		for (k = 0; k < w->nodes[i].nb_deps; k++) {
			uint32_t d = w->deps[w->nodes[i].dep_first + k];

			w->kids[w->nodes[d].kid_first + fill[d]++] = i;
		}
	free(fill);
	return 0;
}

/* ---- operations ---- */

/* A send or receive for matching: (from, to, tag), then dependency
 * order (pos); node is the node. */
struct wl_p2p {
	uint32_t from, to, tag, pos, node;
};

static int
wl_cmp_p2p(const void *a, const void *b)
{
	const struct wl_p2p *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Room for the ops' members, two arrays grown together. */
struct wl_caps {
	uint32_t ops, members, member_node;
};

static int
wl_new_op(struct hs_workload *w, struct wl_caps *cap, uint32_t nb_members)
{
	uint32_t total;
	struct hs_wl_op *o;

	total = w->nb_ops == 0 ? 0 : w->ops[w->nb_ops - 1].member_first +
		w->ops[w->nb_ops - 1].nb_members;
	if (wl_grow((void **)&w->ops, &cap->ops, w->nb_ops + 1,
		    sizeof(*w->ops)) != 0 ||
	    wl_grow((void **)&w->members, &cap->members, total + nb_members,
		    sizeof(*w->members)) != 0 ||
	    wl_grow((void **)&w->member_node, &cap->member_node,
		    total + nb_members, sizeof(*w->member_node)) != 0)
		return -ENOMEM;
	o = &w->ops[w->nb_ops];
	memset(o, 0, sizeof(*o));
	o->member_first = total;
	o->nb_members = nb_members;
	return (int)w->nb_ops++;
}

/*
 * What wl_match() keeps while it matches one iteration (it) of job jx,
 * its ops grown within cap.  Per communicator c of the job: how many
 * COLL nodes each member has had so far (seen[seen_first[c] + pos], pos
 * the member's place in c) and the collectives made, in order
 * (made[c][0 .. nb_made[c]), room for cap_made[c]).  The sends and
 * receives, to pair once every node was seen: snd[0 .. nb_snd) and
 * rcv[0 .. nb_rcv), room for an iteration's nodes each.
 */
struct wl_match_state {
	uint32_t jx, it;
	struct wl_caps *cap;
	uint32_t *seen, *seen_first;
	uint32_t **made, *nb_made, *cap_made;
	struct wl_p2p *snd, *rcv;
	uint32_t nb_snd, nb_rcv;
};

/*
 * COLL node i joins its collective: the seq-th COLL node of a
 * communicator at a member is the communicator's seq-th collective, made
 * here (every member in the communicator's ring order, none with a node
 * yet) when i is the first member to reach it.  -EINVAL with err when
 * the collective or the size differs from an earlier member's, -ENOMEM.
 */
static int
wl_join_coll(struct hs_workload *w, struct wl_match_state *ms, uint32_t i,
	     char *err, size_t err_size)
{
	const struct hs_wl_job *j = &w->jobs[ms->jx];
	struct hs_wl_node *x = &w->nodes[i];
	const struct hs_wl_comm *cm = &w->comms[j->comm_first + x->comm];
	struct hs_wl_op *o;
	uint32_t pos = 0, seq, m;
	int op;

	wl_in_comm(w, j, x->comm, x->rank, &pos);
	seq = ms->seen[ms->seen_first[x->comm] + pos]++;
	if (seq == ms->nb_made[x->comm]) {
		op = wl_new_op(w, ms->cap, cm->nb);
		if (op < 0 ||
		    wl_grow((void **)&ms->made[x->comm],
			    &ms->cap_made[x->comm], ms->nb_made[x->comm] + 1,
			    sizeof(**ms->made)) != 0)
			return -ENOMEM;
		ms->made[x->comm][ms->nb_made[x->comm]++] = (uint32_t)op;
		o = &w->ops[op];
		o->job = ms->jx;
		o->iteration = ms->it;
		o->kind = HS_WL_COLL;
		o->coll = x->coll;
		o->size = x->size;
		o->name = x->name;
		for (m = 0; m < cm->nb; m++) {
			w->members[o->member_first + m] =
				w->comm_ranks[cm->first + m];
			w->member_node[o->member_first + m] = HS_WL_NONE;
		}
	}
	op = (int)ms->made[x->comm][seq];
	o = &w->ops[op];
	if (o->coll != x->coll || o->size != x->size) {
		wl_fail(err, err_size, WL_AT ": collective %u of communicator %u is %s of %" PRIu64 " bytes here but %s of %" PRIu64 " bytes at an earlier member; expected the same at every member",
			WL_AT_ARGS(w, j, i), seq, x->comm,
			hs_wl_coll_names[x->coll], x->size,
			hs_wl_coll_names[o->coll], o->size);
		return -EINVAL;
	}
	w->member_node[o->member_first + pos] = i;
	x->op = (uint32_t)op;
	return 0;
}

/*
 * The iteration's nodes in dependency order (j->order), so that the k-th
 * collective of a rank is the k-th its own dependencies allow, whatever
 * the node list's order: each COLL node joins its collective, each SEND
 * and RECV is put aside in ms->snd / ms->rcv for wl_pair_p2p().  0, or
 * the first error of wl_join_coll().
 */
static int
wl_match_nodes(struct hs_workload *w, struct wl_match_state *ms, char *err,
	       size_t err_size)
{
	const struct hs_wl_job *j = &w->jobs[ms->jx];
	uint32_t per = j->nb_nodes / j->iterations;
	uint32_t b = j->node_first + ms->it * per, i, k;
	int rc;

	for (k = 0; k < per; k++) {
		const struct hs_wl_node *x = &w->nodes[b + j->order[k]];

		i = b + j->order[k];
		if (x->kind == HS_WL_SEND) {
			ms->snd[ms->nb_snd++] = (struct wl_p2p){ x->rank,
				x->peer, x->tag, k, i };
			continue;
		}
		if (x->kind == HS_WL_RECV) {
			ms->rcv[ms->nb_rcv++] = (struct wl_p2p){ x->peer,
				x->rank, x->tag, k, i };
			continue;
		}
		if (x->kind != HS_WL_COLL)
			continue;
		rc = wl_join_coll(w, ms, i, err, err_size);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * Every member must have joined every collective the iteration made:
 * -EINVAL with err at the first member lacking a node (named by the
 * collective's node at its first member that has one), else 0.
 */
static int
wl_check_joined(const struct hs_workload *w, const struct wl_match_state *ms,
		char *err, size_t err_size)
{
	const struct hs_wl_job *j = &w->jobs[ms->jx];
	uint32_t c, k;

	for (c = 0; c < j->nb_comms; c++)
		for (k = 0; k < ms->nb_made[c]; k++) {
			const struct hs_wl_op *o = &w->ops[ms->made[c][k]];
			uint32_t m;

			for (m = 0; m < o->nb_members; m++) {
				uint32_t first = HS_WL_NONE, q;

				if (w->member_node[o->member_first + m] !=
				    HS_WL_NONE)
					continue;
				for (q = 0; q < o->nb_members && first ==
				     HS_WL_NONE; q++)
					first = w->member_node[o->member_first + q];
				wl_fail(err, err_size, WL_AT ": collective %u of communicator %u has no node at its member rank %u; expected every member to join it",
					WL_AT_ARGS(w, j, first), k, c,
					w->members[o->member_first + m]);
				return -EINVAL;
			}
		}
	return 0;
}

/*
 * The op of send s and the receive r it pairs with: s's size and name,
 * its two members the sender then the receiver.  0 or -ENOMEM.
 */
static int
wl_add_p2p_op(struct hs_workload *w, const struct wl_match_state *ms,
	      const struct wl_p2p *s, const struct wl_p2p *r)
{
	struct hs_wl_op *o;
	int op;

	op = wl_new_op(w, ms->cap, 2);
	if (op < 0)
		return -ENOMEM;
	o = &w->ops[op];
	o->job = ms->jx;
	o->iteration = ms->it;
	o->kind = HS_WL_SEND;
	o->size = w->nodes[s->node].size;
	o->name = w->nodes[s->node].name;
	w->members[o->member_first] = s->from;
	w->members[o->member_first + 1] = s->to;
	w->member_node[o->member_first] = s->node;
	w->member_node[o->member_first + 1] = r->node;
	w->nodes[s->node].op = (uint32_t)op;
	w->nodes[r->node].op = (uint32_t)op;
	return 0;
}

/*
 * Pair the iteration's sends with its receives: sorted by (from, to,
 * tag) then dependency order, the k-th send of a pair and tag goes with
 * its k-th receive, an op each.  -EINVAL with err at the first send or
 * receive left without a partner, or at a receive whose size is not its
 * send's; -ENOMEM.  Sorts ms->snd and ms->rcv.
 */
static int
wl_pair_p2p(struct hs_workload *w, struct wl_match_state *ms, char *err,
	    size_t err_size)
{
	const struct hs_wl_job *j = &w->jobs[ms->jx];
	struct wl_p2p *snd = ms->snd, *rcv = ms->rcv;
	uint32_t ns = ms->nb_snd, nr = ms->nb_rcv, i, k;

	qsort(snd, ns, sizeof(*snd), wl_cmp_p2p);
	qsort(rcv, nr, sizeof(*rcv), wl_cmp_p2p);
	for (i = 0, k = 0; i < ns || k < nr; i++, k++) {
		if (i >= ns || k >= nr ||
		    snd[i].from != rcv[k].from || snd[i].to != rcv[k].to ||
		    snd[i].tag != rcv[k].tag) {
			uint32_t at = i < ns && (k >= nr ||
				wl_cmp_p2p(&snd[i], &rcv[k]) < 0) ?
				snd[i].node : rcv[k].node;

			wl_fail(err, err_size, WL_AT ": %s has no matching %s (rank %u to %u, tag %u); expected the same number of sends and receives per pair and tag",
				WL_AT_ARGS(w, j, at),
				w->nodes[at].kind == HS_WL_SEND ? "send" : "recv",
				w->nodes[at].kind == HS_WL_SEND ? "recv" : "send",
				w->nodes[at].kind == HS_WL_SEND ?
				w->nodes[at].rank : w->nodes[at].peer,
				w->nodes[at].kind == HS_WL_SEND ?
				w->nodes[at].peer : w->nodes[at].rank,
				w->nodes[at].tag);
			return -EINVAL;
		}
		if (w->nodes[snd[i].node].size != w->nodes[rcv[k].node].size) {
			wl_fail(err, err_size, WL_AT ": receives %" PRIu64 " bytes, its send (%s) %" PRIu64 "; expected the same size",
				WL_AT_ARGS(w, j, rcv[k].node),
				w->nodes[rcv[k].node].size,
				hs_wl_name(w, snd[i].node),
				w->nodes[snd[i].node].size);
			return -EINVAL;
		}
		if (wl_add_p2p_op(w, ms, &snd[i], &rcv[k]) != 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Match iteration it of job jx: its collectives (wl_match_nodes(), then
 * wl_check_joined()) and its point-to-point pairs (wl_pair_p2p()), each
 * an op, grown within cap.  0, -EINVAL with err, or -ENOMEM.
 */
static int
wl_match(struct hs_workload *w, uint32_t jx, uint32_t it, struct wl_caps *cap,
	 char *err, size_t err_size)
{
	const struct hs_wl_job *j = &w->jobs[jx];
	uint32_t per = j->nb_nodes / j->iterations, c;
	struct wl_match_state ms;
	int rc;

	memset(&ms, 0, sizeof(ms));
	ms.jx = jx;
	ms.it = it;
	ms.cap = cap;
	ms.seen_first = calloc(j->nb_comms + 1, sizeof(*ms.seen_first));
	ms.made = calloc(j->nb_comms + 1, sizeof(*ms.made));
	ms.nb_made = calloc(j->nb_comms + 1, sizeof(*ms.nb_made));
	ms.cap_made = calloc(j->nb_comms + 1, sizeof(*ms.cap_made));
	ms.snd = malloc(sizeof(*ms.snd) * (per + 1));
	ms.rcv = malloc(sizeof(*ms.rcv) * (per + 1));
	if (ms.seen_first == NULL || ms.made == NULL || ms.nb_made == NULL ||
	    ms.cap_made == NULL || ms.snd == NULL || ms.rcv == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (c = 0; c < j->nb_comms; c++)
		ms.seen_first[c + 1] = ms.seen_first[c] +
			w->comms[j->comm_first + c].nb;
	ms.seen = calloc(ms.seen_first[j->nb_comms] + 1, sizeof(*ms.seen));
	if (ms.seen == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	rc = wl_match_nodes(w, &ms, err, err_size);
	if (rc == 0)
		rc = wl_check_joined(w, &ms, err, err_size);
	if (rc == 0)
		rc = wl_pair_p2p(w, &ms, err, err_size);
out:
	if (ms.made != NULL)
		for (c = 0; c < j->nb_comms; c++)
			free(ms.made[c]);
	free(ms.made);
	free(ms.nb_made);
	free(ms.cap_made);
	free(ms.seen);
	free(ms.seen_first);
	free(ms.snd);
	free(ms.rcv);
	return rc;
}

/* ---- flows ---- */

/* How many flows op expands into; UINT64_MAX if a pattern is missing. */
static uint64_t
wl_op_nb_flows(const struct hs_workload *w, const struct hs_wl_op *o,
	       struct hs_traffic_params *p)
{
	const struct hs_pattern_ops *ops;

	if (o->kind == HS_WL_SEND)
		return 1;
	if (o->nb_members < 2)
		return 0;
	ops = hs_pattern_find(hs_wl_coll_pattern[o->coll]);
	if (ops == NULL || ops->nb_flows == NULL)
		return UINT64_MAX;
	(void)w;
	memset(p, 0, sizeof(*p));
	p->pattern = ops;
	p->nb_ranks = o->nb_members;
	/* nccl-tests' size: the ring patterns cut it in N chunks; an
	 * all-to-all sends size / N to every other member. */
	p->size = o->coll == HS_COLL_ALLTOALL ?
		o->size / o->nb_members : o->size;
	if (p->size == 0)
		p->size = 1;
	p->iterations = 1;
	return ops->nb_flows(p);
}

/* Fill the flows of every op into t, and w->flows. */
static int
wl_expand(struct hs_workload *w, struct hs_traffic *t, char *err,
	  size_t err_size)
{
	struct hs_traffic_params p;
	uint64_t total = 0, n;
	struct hs_flow_spec *f;
	uint32_t o, i, at = 0;

	for (o = 0; o < w->nb_ops; o++) {
		n = wl_op_nb_flows(w, &w->ops[o], &p);
		if (n == UINT64_MAX || total + n > HS_MAX_FLOWS) {
			wl_fail(err, err_size, "%s: the jobs make more than %u flows; expected fewer ranks, layers or iterations",
				w->jobs[w->ops[o].job].name,
				(unsigned int)HS_MAX_FLOWS);
			return -EINVAL;
		}
		total += n;
	}
	f = calloc(total + 1, sizeof(*f));
	w->flows = calloc(total + 1, sizeof(*w->flows));
	if (f == NULL || w->flows == NULL) {
		free(f);
		return -ENOMEM;
	}
	for (o = 0; o < w->nb_ops; o++) {
		struct hs_wl_op *op = &w->ops[o];
		const struct hs_wl_job *j = &w->jobs[op->job];
		const uint32_t *mem = w->members + op->member_first;
		const uint32_t *mnode = w->member_node + op->member_first;

		n = wl_op_nb_flows(w, op, &p);
		op->flow_first = at;
		op->nb_flows = (uint32_t)n;
		for (i = at; i < at + n; i++) {
			f[i].dep = HS_NO_DEP;
			f[i].trigger = HS_NO_TRIGGER;
			f[i].send_done_trigger = HS_NO_TRIGGER;
			f[i].recv_done_trigger = HS_NO_TRIGGER;
		}
		if (op->kind == HS_WL_SEND) {
			f[at].src = 0;
			f[at].dst = 1;
			f[at].size = op->size;
		} else if (n > 0) {
			p.pattern->fill(&p, f + at);
		}
		for (i = at; i < at + n; i++) {
			struct hs_wl_flow *x = &w->flows[i];
			uint32_t ls = f[i].src, ld = f[i].dst;

			x->op = o;
			x->src_node = mnode[ls];
			x->dst_node = mnode[ld];
			x->dep = f[i].dep == HS_NO_DEP ? HS_WL_NONE :
				at + f[i].dep;
			f[i].id = i;
			f[i].src = j->host[mem[ls]];
			f[i].dst = j->host[mem[ld]];
			f[i].dep = HS_NO_DEP;
			f[i].iteration = op->iteration;
			f[i].start_ns = 0;
			f[i].wl_op = o + 1;
		}
		at += (uint32_t)n;
	}
	w->nb_flows = at;
	t->nb_ranks = w->nb_hosts;
	t->nb_flows = at;
	t->flows = f;
	return 0;
}

/* The flows each node sends, and those forwarding each flow. */
static int
wl_index_flows(struct hs_workload *w)
{
	uint32_t n = w->nb_nodes, nf = w->nb_flows, i, *fill;

	w->out_first = calloc(n + 2, sizeof(uint32_t));
	w->out_flows = malloc(sizeof(uint32_t) * (nf + 1));
	w->fwd_first = calloc(nf + 2, sizeof(uint32_t));
	w->fwd_flows = malloc(sizeof(uint32_t) * (nf + 1));
	fill = calloc((n > nf ? n : nf) + 1, sizeof(uint32_t));
	if (w->out_first == NULL || w->out_flows == NULL ||
	    w->fwd_first == NULL || w->fwd_flows == NULL || fill == NULL) {
		free(fill);
		return -ENOMEM;
	}
	for (i = 0; i < nf; i++) {
		w->out_first[w->flows[i].src_node + 1]++;
		if (w->flows[i].dep != HS_WL_NONE)
			w->fwd_first[w->flows[i].dep + 1]++;
	}
	for (i = 0; i < n; i++)
		w->out_first[i + 1] += w->out_first[i];
	for (i = 0; i < nf; i++)
		w->fwd_first[i + 1] += w->fwd_first[i];
	for (i = 0; i < nf; i++)
		w->out_flows[w->out_first[w->flows[i].src_node] +
			     fill[w->flows[i].src_node]++] = i;
	memset(fill, 0, sizeof(uint32_t) * ((n > nf ? n : nf) + 1));
	for (i = 0; i < nf; i++)
		if (w->flows[i].dep != HS_WL_NONE)
			w->fwd_flows[w->fwd_first[w->flows[i].dep] +
				     fill[w->flows[i].dep]++] = i;
	free(fill);
	return 0;
}

/*
 * Every node can end: each rank's DAG is acyclic, but ranks can still
 * wait on each other in a circle through their operations (rank 0
 * receives from 1 before sending to it, and 1 from 0 before sending to
 * it; two communicators' collectives in opposite orders).  The workload
 * run with every flow taking 1 ns finds it: a node that never ends.
 * Named is one that started and waits on its operation (else the first
 * that never started).
 */
static int
wl_check_progress(const struct hs_workload *w, char *err, size_t err_size)
{
	uint64_t *ns = malloc(sizeof(uint64_t) * ((size_t)w->nb_flows + 1));
	uint64_t *start = malloc(sizeof(uint64_t) * ((size_t)w->nb_nodes + 1));
	uint64_t *end = malloc(sizeof(uint64_t) * ((size_t)w->nb_nodes + 1));
	uint64_t *rel = malloc(sizeof(uint64_t) * ((size_t)w->nb_flows + 1));
	uint32_t i, stuck = HS_WL_NONE;
	int rc = -ENOMEM;

	if (ns == NULL || start == NULL || end == NULL || rel == NULL)
		goto out;
	for (i = 0; i < w->nb_flows; i++)
		ns[i] = 1;
	if (hs_wl_ideal(w, ns, ns, start, end, rel) != 0)
		goto out;
	rc = 0;
	for (i = 0; i < w->nb_nodes; i++) {
		if (end[i] != UINT64_MAX)
			continue;
		if (stuck == HS_WL_NONE)
			stuck = i;
		if (start[i] != UINT64_MAX) {
			stuck = i;
			break;
		}
	}
	if (stuck != HS_WL_NONE) {
		const struct hs_wl_job *j = &w->jobs[w->nodes[stuck].job];

		wl_fail(err, err_size, WL_AT ": iteration %u never ends: its ranks wait on each other in a circle (operations the ranks order differently); expected an order every rank can follow",
			WL_AT_ARGS(w, j, stuck), w->nodes[stuck].iteration);
		rc = -EINVAL;
	}
out:
	free(ns);
	free(start);
	free(end);
	free(rel);
	return rc;
}

int
hs_wl_build(struct hs_workload *w, struct hs_traffic *t, char *err,
	    size_t err_size)
{
	struct wl_caps cap = { 0, 0, 0 };
	uint32_t j, it;
	int rc;

	memset(t, 0, sizeof(*t));
	for (j = 0; j < w->nb_jobs; j++) {
		rc = wl_check_job(w, &w->jobs[j], err, err_size);
		if (rc != 0)
			return rc;
	}
	rc = wl_unroll(w, err, err_size);
	if (rc == 0)
		rc = wl_index_kids(w);
	for (j = 0; rc == 0 && j < w->nb_jobs; j++)
		for (it = 0; rc == 0 && it < w->jobs[j].iterations; it++)
			rc = wl_match(w, j, it, &cap, err, err_size);
	if (rc == 0)
		rc = wl_expand(w, t, err, err_size);
	if (rc == 0)
		rc = wl_index_flows(w);
	if (rc == 0 && hs_traffic_derive(t) != 0)
		rc = -ENOMEM;
	if (rc == 0)
		rc = wl_check_progress(w, err, err_size);
	if (rc == -ENOMEM)
		wl_fail(err, err_size, "jobs: out of memory");
	if (rc != 0)
		hs_traffic_free(t);
	return rc;
}
