/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MLCommons Chakra execution traces in and out of a workload
 * (hs_chakra.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chakra_et.pb-c.h"
#include "hs_chakra.h"
#include "hs_traffic.h"
#include "hs_workload.h"

/* Chakra's version string in the files ofan writes. */
#define HS_CHAKRA_VERSION "0.0.4"
/* A message longer than this is taken for a broken file. */
#define HS_CHAKRA_MAX_MSG (64u << 20)
/* The longest compute node: an hour. */
#define HS_CHAKRA_MAX_US (3600ull * 1000000ull)
/* The GlobalMetadata attribute that describes the process groups. */
#define HS_CHAKRA_GROUPS "process_groups"
/* The name of the METADATA node PyTorch's traces describe them in. */
#define HS_CHAKRA_PG_INIT "process_group:init"

static const char *const hs_chakra_type_names[] = {
	"INVALID_NODE", "METADATA_NODE", "MEM_LOAD_NODE", "MEM_STORE_NODE",
	"COMP_NODE", "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE",
};

static const char *const hs_chakra_coll_names[] = {
	"ALL_REDUCE", "REDUCE", "ALL_GATHER", "GATHER", "SCATTER",
	"BROADCAST", "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK",
	"BARRIER",
};
#define HS_CHAKRA_NB_COLL 10

/* Chakra's collective -> ours, -1 where there is none. */
static int
hs_chakra_coll(int64_t t)
{
	switch (t) {
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE:
		return HS_COLL_ALLREDUCE;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER:
		return HS_COLL_ALLGATHER;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER:
		return HS_COLL_REDUCE_SCATTER;
	case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL:
		return HS_COLL_ALLTOALL;
	default:
		return -1;
	}
}

static const int hs_chakra_of_coll[HS_COLL_NB] = {
	[HS_COLL_ALLREDUCE] = CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE,
	[HS_COLL_REDUCE_SCATTER] =
		CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER,
	[HS_COLL_ALLGATHER] = CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER,
	[HS_COLL_ALLTOALL] = CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL,
};

/* ---- reading ---- */

/* One rank's file: its messages unpacked. */
struct hs_chakra_file {
	char path[600];
	size_t nb_nodes;
	ChakraProtoMsg__Node **nodes;
	/* Its GlobalMetadata's process_groups attribute, NULL if none. */
	char *groups;
};

/* Read a varint at *pos of buf (len); false at a clean end or garbage. */
static bool
hs_chakra_varint(const uint8_t *buf, size_t len, size_t *pos, uint64_t *v,
		 bool *bad)
{
	uint64_t x = 0;
	unsigned int shift = 0;

	*bad = false;
	if (*pos >= len)
		return false;
	while (*pos < len && shift < 64) {
		uint8_t b = buf[(*pos)++];

		x |= (uint64_t)(b & 0x7f) << shift;
		if ((b & 0x80) == 0) {
			*v = x;
			return true;
		}
		shift += 7;
	}
	*bad = true;
	return false;
}

static void
hs_chakra_file_free(struct hs_chakra_file *f)
{
	size_t i;

	for (i = 0; i < f->nb_nodes; i++)
		chakra_proto_msg__node__free_unpacked(f->nodes[i], NULL);
	free(f->nodes);
	free(f->groups);
	f->nodes = NULL;
	f->groups = NULL;
	f->nb_nodes = 0;
}

/* Keep g's process_groups attribute (a string), if it has one. */
static int
hs_chakra_meta_groups(struct hs_chakra_file *f,
		      const ChakraProtoMsg__GlobalMetadata *g)
{
	size_t i;

	for (i = 0; i < g->n_attr; i++)
		if (g->attr[i]->name != NULL &&
		    strcmp(g->attr[i]->name, HS_CHAKRA_GROUPS) == 0 &&
		    g->attr[i]->value_case ==
		    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL &&
		    f->groups == NULL) {
			f->groups = strdup(g->attr[i]->string_val);
			return f->groups == NULL ? -ENOMEM : 0;
		}
	return 0;
}

/* The whole file at f->path into *buf (len bytes; the caller frees). */
static int
hs_chakra_slurp(const struct hs_chakra_file *f, uint8_t **buf, size_t *len,
		char *err, size_t err_size)
{
	FILE *fp = fopen(f->path, "rb");
	size_t cap = 0, n;
	int rc;

	*buf = NULL;
	*len = 0;
	if (fp == NULL) {
		rc = -errno;
		snprintf(err, err_size, "%s: %s; expected a Chakra trace file per rank",
			 f->path, strerror(errno));
		return rc;
	}
	do {
		if (*len == cap) {
			uint8_t *q = realloc(*buf, cap = cap ? 2 * cap : 65536);

			if (q == NULL) {
				free(*buf);
				*buf = NULL;
				fclose(fp);
				return -ENOMEM;
			}
			*buf = q;
		}
		n = fread(*buf + *len, 1, cap - *len, fp);
		*len += n;
	} while (n > 0);
	fclose(fp);
	return 0;
}

/* f's messages from buf (len bytes), named f->path in messages. */
static int
hs_chakra_parse(struct hs_chakra_file *f, const uint8_t *buf, size_t len,
		char *err, size_t err_size)
{
	size_t pos = 0;
	uint64_t size;
	bool bad = false, first = true;
	int rc = 0;

	for (;;) {
		/* Where the message begins: its length. */
		size_t at = pos;

		if (rc != 0 || !hs_chakra_varint(buf, len, &pos, &size, &bad))
			break;

		if (size > HS_CHAKRA_MAX_MSG || size > len - pos) {
			snprintf(err, err_size, "%s: byte %zu: a message of %" PRIu64 " bytes with %zu left; expected a Chakra trace (length-prefixed protobuf messages)",
				 f->path, at, size, len - pos);
			rc = -EINVAL;
			break;
		}
		if (first) {
			ChakraProtoMsg__GlobalMetadata *g =
				chakra_proto_msg__global_metadata__unpack(
					NULL, size, buf + pos);

			if (g == NULL) {
				snprintf(err, err_size, "%s: byte %zu: the first message is not a GlobalMetadata; expected a Chakra trace",
					 f->path, at);
				rc = -EINVAL;
				break;
			}
			rc = hs_chakra_meta_groups(f, g);
			chakra_proto_msg__global_metadata__free_unpacked(g,
									 NULL);
			first = false;
		} else {
			ChakraProtoMsg__Node *x = chakra_proto_msg__node__unpack(
				NULL, size, buf + pos);
			ChakraProtoMsg__Node **q;

			if (x == NULL) {
				snprintf(err, err_size, "%s: byte %zu: node %zu does not parse; expected a Chakra Node message",
					 f->path, at, f->nb_nodes);
				rc = -EINVAL;
				break;
			}
			q = realloc(f->nodes, sizeof(*q) * (f->nb_nodes + 1));
			if (q == NULL) {
				chakra_proto_msg__node__free_unpacked(x, NULL);
				rc = -ENOMEM;
				break;
			}
			f->nodes = q;
			f->nodes[f->nb_nodes++] = x;
		}
		pos += size;
	}
	if (rc == 0 && (bad || first)) {
		snprintf(err, err_size, first && !bad ?
			 "%s: empty; expected a Chakra trace (a GlobalMetadata, then nodes)" :
			 "%s: a broken length at its end; expected a Chakra trace",
			 f->path);
		rc = -EINVAL;
	}
	return rc;
}

/* The attribute name of x, NULL if it has none. */
static const ChakraProtoMsg__AttributeProto *
hs_chakra_attr(const ChakraProtoMsg__Node *x, const char *name)
{
	size_t i;

	for (i = 0; i < x->n_attr; i++)
		if (x->attr[i]->name != NULL &&
		    strcmp(x->attr[i]->name, name) == 0)
			return x->attr[i];
	return NULL;
}

/* An integer attribute: true with *v, false when absent or not one. */
static bool
hs_chakra_int(const ChakraProtoMsg__Node *x, const char *name, int64_t *v)
{
	const ChakraProtoMsg__AttributeProto *a = hs_chakra_attr(x, name);

	if (a == NULL)
		return false;
	switch (a->value_case) {
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
		*v = a->int32_val;
		return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
		*v = a->int64_val;
		return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
		*v = a->uint32_val;
		return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
		*v = a->uint64_val > INT64_MAX ? INT64_MAX :
			(int64_t)a->uint64_val;
		return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL:
		*v = a->sint32_val;
		return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL:
		*v = a->sint64_val;
		return true;
	default:
		return false;
	}
}

static const char *
hs_chakra_pg(const ChakraProtoMsg__Node *x)
{
	const ChakraProtoMsg__AttributeProto *a = hs_chakra_attr(x, "pg_name");

	if (a == NULL ||
	    a->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
		return NULL;
	return a->string_val;
}

/* A communicator by pg_name: its name and members (ascending). */
struct hs_chakra_pg {
	char *name;		/* NULL: every rank */
	uint32_t nb;
	uint32_t *ranks;
	int comm;		/* in the job, once added */
};

static int
hs_chakra_pg_index(struct hs_chakra_pg **pgs, uint32_t *nb, const char *name,
		   uint32_t rank)
{
	struct hs_chakra_pg *p;
	uint32_t i;

	for (i = 0; i < *nb; i++)
		if ((name == NULL && (*pgs)[i].name == NULL) ||
		    (name != NULL && (*pgs)[i].name != NULL &&
		     strcmp(name, (*pgs)[i].name) == 0))
			break;
	if (i == *nb) {
		p = realloc(*pgs, sizeof(*p) * (*nb + 1));
		if (p == NULL)
			return -ENOMEM;
		*pgs = p;
		p = &(*pgs)[(*nb)++];
		memset(p, 0, sizeof(*p));
		p->comm = -1;
		if (name != NULL && (p->name = strdup(name)) == NULL)
			return -ENOMEM;
	}
	p = &(*pgs)[i];
	if (p->nb == 0 || p->ranks[p->nb - 1] != rank) {
		uint32_t *q = realloc(p->ranks, sizeof(*q) * (p->nb + 1));

		if (q == NULL)
			return -ENOMEM;
		p->ranks = q;
		p->ranks[p->nb++] = rank;
	}
	return (int)i;
}

/* Counts of what was not mapped, for hs_workload.unmapped. */
struct hs_chakra_unmapped {
	uint32_t type[8];
	uint32_t coll[HS_CHAKRA_NB_COLL];
};

static void
hs_chakra_report(struct hs_workload *w, const struct hs_chakra_unmapped *u)
{
	size_t len = strlen(w->unmapped), cap = sizeof(w->unmapped);
	int i;

	/* snprintf says what it would have written: stay in the buffer. */
	for (i = 0; i < 8; i++)
		if (u->type[i] != 0) {
			w->nb_unmapped += u->type[i];
			if (len < cap)
				len += (size_t)snprintf(w->unmapped + len,
					cap - len, "%s%u %s", len ? ", " : "",
					u->type[i], hs_chakra_type_names[i]);
		}
	for (i = 0; i < HS_CHAKRA_NB_COLL; i++)
		if (u->coll[i] != 0) {
			w->nb_unmapped += u->coll[i];
			if (len < cap)
				len += (size_t)snprintf(w->unmapped + len,
					cap - len, "%s%u %s collective",
					len ? ", " : "", u->coll[i],
					hs_chakra_coll_names[i]);
		}
}

#define HS_CHAKRA_AT "%s: node %" PRIu64 " (%s): "
#define HS_CHAKRA_AT_ARGS(f, x) (f)->path, (x)->id, (x)->name

/* A node's id and its place in the file, sorted by id. */
struct hs_chakra_id {
	uint64_t id;
	uint32_t at;
};

static int
hs_chakra_cmp_id(const void *a, const void *b)
{
	const struct hs_chakra_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* The place of node id in the file, or UINT32_MAX. */
static uint32_t
hs_chakra_find(const struct hs_chakra_id *ids, uint32_t n, uint64_t id)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo].id == id ? ids[lo].at : UINT32_MAX;
}

/*
 * f's node ids sorted, each with its place in the file, into *out (the
 * caller frees); -EINVAL with a message when two nodes share an id.
 */
static int
hs_chakra_ids(const struct hs_chakra_file *f, struct hs_chakra_id **out,
	      char *err, size_t err_size)
{
	uint32_t nn = (uint32_t)f->nb_nodes, i;
	struct hs_chakra_id *ids = malloc(sizeof(*ids) * (nn + 1));

	*out = NULL;
	if (ids == NULL)
		return -ENOMEM;
	for (i = 0; i < nn; i++)
		ids[i] = (struct hs_chakra_id){ f->nodes[i]->id, i };
	qsort(ids, nn, sizeof(*ids), hs_chakra_cmp_id);
	for (i = 1; i < nn; i++)
		if (ids[i].id == ids[i - 1].id) {
			const ChakraProtoMsg__Node *x = f->nodes[ids[i].at];

			snprintf(err, err_size, HS_CHAKRA_AT "its id is also node %u's; expected unique ids",
				 HS_CHAKRA_AT_ARGS(f, x), ids[i - 1].at);
			free(ids);
			return -EINVAL;
		}
	*out = ids;
	return 0;
}

/* A buffer of dependencies, reused from node to node. */
struct hs_chakra_deps {
	uint32_t *at;
	uint32_t nb, cap;
};

/*
 * x's control and data dependencies (ids of earlier or later nodes of
 * f) as the job's node indexes (base plus the place in f), each once,
 * into d; -EINVAL with a message when one names no node of f.
 */
static int
hs_chakra_deps(const struct hs_chakra_file *f, const ChakraProtoMsg__Node *x,
	       const struct hs_chakra_id *ids, uint32_t base,
	       struct hs_chakra_deps *d, char *err, size_t err_size)
{
	size_t nb_deps = x->n_ctrl_deps + x->n_data_deps, k;
	uint32_t at, v;

	d->nb = 0;
	if (nb_deps > d->cap) {
		uint32_t *q = realloc(d->at, sizeof(*q) * (uint32_t)nb_deps);

		if (q == NULL)
			return -ENOMEM;
		d->at = q;
		d->cap = (uint32_t)nb_deps;
	}
	for (k = 0; k < nb_deps; k++) {
		uint64_t id = k < x->n_ctrl_deps ? x->ctrl_deps[k] :
			x->data_deps[k - x->n_ctrl_deps];

		at = hs_chakra_find(ids, (uint32_t)f->nb_nodes, id);
		if (at == UINT32_MAX) {
			snprintf(err, err_size, HS_CHAKRA_AT "depends on node %" PRIu64 ", which the file lacks; expected ids of its own nodes",
				 HS_CHAKRA_AT_ARGS(f, x), id);
			return -EINVAL;
		}
		for (at += base, v = 0; v < d->nb; v++)
			if (d->at[v] == at)
				break;
		if (v == d->nb)
			d->at[d->nb++] = at;
	}
	return 0;
}

/* A COMP_NODE's duration into n: ofan_duration_ns, else its microseconds. */
static int
hs_chakra_comp(const struct hs_chakra_file *f, const ChakraProtoMsg__Node *x,
	       struct hs_wl_node *n, char *err, size_t err_size)
{
	int64_t v;

	n->dur_ns = x->duration_micros * 1000u;
	if (hs_chakra_int(x, "ofan_duration_ns", &v) && v >= 0)
		n->dur_ns = (uint64_t)v;
	else if (x->duration_micros > HS_CHAKRA_MAX_US)
		n->dur_ns = UINT64_MAX;
	if (n->dur_ns > HS_CHAKRA_MAX_US * 1000u) {
		snprintf(err, err_size, HS_CHAKRA_AT "a compute node of more than an hour; expected at most %llu us",
			 HS_CHAKRA_AT_ARGS(f, x),
			 (unsigned long long)HS_CHAKRA_MAX_US);
		return -EINVAL;
	}
	return 0;
}

/*
 * A COMM_COLL_NODE into n: its collective and the communicator its
 * pg_name names in pgs.  A collective ofan has none for is counted in u
 * and n stays a compute node of no time.
 */
static int
hs_chakra_coll_node(const struct hs_chakra_file *f,
		    const ChakraProtoMsg__Node *x,
		    const struct hs_chakra_pg *pgs, uint32_t nb_pgs,
		    struct hs_chakra_unmapped *u, struct hs_wl_node *n,
		    char *err, size_t err_size)
{
	const char *pg = hs_chakra_pg(x);
	int64_t v;
	uint32_t k;
	int coll;

	if (!hs_chakra_int(x, "comm_type", &v)) {
		snprintf(err, err_size, HS_CHAKRA_AT "a COMM_COLL_NODE without comm_type; expected an integer attribute comm_type",
			 HS_CHAKRA_AT_ARGS(f, x));
		return -EINVAL;
	}
	if (v < 0 || v >= HS_CHAKRA_NB_COLL) {
		snprintf(err, err_size, HS_CHAKRA_AT "comm_type %" PRId64 " is no collective; expected 0 (ALL_REDUCE) to %d (BARRIER)",
			 HS_CHAKRA_AT_ARGS(f, x), v, HS_CHAKRA_NB_COLL - 1);
		return -EINVAL;
	}
	coll = hs_chakra_coll(v);
	if (coll < 0) {
		u->coll[v]++;
		return 0;
	}
	n->kind = HS_WL_COLL;
	n->coll = (uint8_t)coll;
	/* hs_chakra_build made a communicator of every pg_name here. */
	for (k = 0; k < nb_pgs; k++)
		if ((pg == NULL && pgs[k].name == NULL) ||
		    (pg != NULL && pgs[k].name != NULL &&
		     strcmp(pg, pgs[k].name) == 0))
			break;
	n->comm = (uint32_t)pgs[k].comm;
	return 0;
}

/* A COMM_SEND_NODE or COMM_RECV_NODE into n: its peer and tag. */
static int
hs_chakra_p2p(const struct hs_chakra_file *f, const ChakraProtoMsg__Node *x,
	      struct hs_wl_node *n, char *err, size_t err_size)
{
	const bool send =
		x->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE;
	const char *peer = send ? "comm_dst" : "comm_src";
	int64_t v;

	if (!hs_chakra_int(x, peer, &v) || v < 0) {
		snprintf(err, err_size, HS_CHAKRA_AT "a %s without %s; expected the peer's rank as an integer attribute",
			 HS_CHAKRA_AT_ARGS(f, x),
			 hs_chakra_type_names[x->type], peer);
		return -EINVAL;
	}
	n->kind = send ? HS_WL_SEND : HS_WL_RECV;
	n->peer = v > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)v;
	if (hs_chakra_int(x, "comm_tag", &v))
		n->tag = (uint32_t)v;
	return 0;
}

/*
 * x as a workload node of rank into n, all but its name and
 * dependencies.  A node type ofan has no node for is counted in u and
 * becomes a compute node of no time.
 */
static int
hs_chakra_node(const struct hs_chakra_file *f, const ChakraProtoMsg__Node *x,
	       uint32_t rank, const struct hs_chakra_pg *pgs, uint32_t nb_pgs,
	       struct hs_chakra_unmapped *u, struct hs_wl_node *n, char *err,
	       size_t err_size)
{
	int64_t v;
	int rc = 0;

	*n = (struct hs_wl_node){ .kind = HS_WL_COMP };
	switch ((int)x->type) {
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE:
		rc = hs_chakra_comp(f, x, n, err, err_size);
		break;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE:
		rc = hs_chakra_coll_node(f, x, pgs, nb_pgs, u, n, err,
					 err_size);
		break;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE:
		rc = hs_chakra_p2p(f, x, n, err, err_size);
		break;
	default:
		u->type[(unsigned int)x->type < 8 ? x->type : 0]++;
		break;
	}
	if (rc != 0)
		return rc;
	if (n->kind != HS_WL_COMP) {
		if (!hs_chakra_int(x, "comm_size", &v) || v <= 0) {
			snprintf(err, err_size, HS_CHAKRA_AT "a %s without a comm_size of at least 1 byte; expected an integer attribute comm_size",
				 HS_CHAKRA_AT_ARGS(f, x),
				 hs_chakra_type_names[x->type]);
			return -EINVAL;
		}
		n->size = (uint64_t)v;
	}
	n->rank = rank;
	return 0;
}

/* One rank's nodes into the job. */
static int
hs_chakra_rank(struct hs_workload *w, const struct hs_chakra_file *f,
	       uint32_t rank, const struct hs_chakra_pg *pgs, uint32_t nb_pgs,
	       struct hs_chakra_unmapped *u, char *err, size_t err_size)
{
	const struct hs_wl_job *j = &w->jobs[w->nb_jobs - 1];
	uint32_t base = j->nb_nodes;
	struct hs_chakra_deps deps = { NULL, 0, 0 };
	struct hs_chakra_id *ids;
	char name[64];
	size_t i;
	int rc;

	rc = hs_chakra_ids(f, &ids, err, err_size);
	for (i = 0; rc == 0 && i < f->nb_nodes; i++) {
		const ChakraProtoMsg__Node *x = f->nodes[i];
		struct hs_wl_node n;

		rc = hs_chakra_deps(f, x, ids, base, &deps, err, err_size);
		if (rc == 0)
			rc = hs_chakra_node(f, x, rank, pgs, nb_pgs, u, &n, err,
					    err_size);
		if (rc != 0)
			break;
		if (x->name == NULL || x->name[0] == '\0')
			snprintf(name, sizeof(name), "node%" PRIu64, x->id);
		if (hs_wl_add_node(w, &n, x->name != NULL &&
				   x->name[0] != '\0' ? x->name : name, deps.at,
				   deps.nb) < 0)
			rc = -ENOMEM;
	}
	free(deps.at);
	free(ids);
	return rc;
}

/* ---- the process groups a trace describes ---- */

/*
 * A process group as a trace describes it: PyTorch's pg config
 * ({"pg_name": ..., "pg_size": N, "ranks": [...]}), from the file whose
 * path is where.  nb == 0: the members are not listed, only their count.
 */
struct hs_chakra_desc {
	char name[64];
	uint32_t size;
	uint32_t nb;
	uint32_t *ranks;
	const char *where;
};

static int
hs_chakra_cmp_u32(const void *a, const void *b)
{
	const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Skip blanks and the backslashes of escaped quotes. */
static const char *
hs_chakra_skip(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
	       *p == '\\')
		p++;
	return p;
}

/* After a key at p: its ':' and what follows, NULL without one. */
static const char *
hs_chakra_colon(const char *p)
{
	p = hs_chakra_skip(p);
	return *p == ':' ? hs_chakra_skip(p + 1) : NULL;
}

/* A non-negative integer below 2^32 at p: its end, NULL if none. */
static const char *
hs_chakra_uint(const char *p, uint32_t *v)
{
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return NULL;
	while (*p >= '0' && *p <= '9') {
		x = x * 10 + (uint64_t)(*p++ - '0');
		if (x > UINT32_MAX)
			return NULL;
	}
	*v = (uint32_t)x;
	return p;
}

/* Key "name" (quoted, perhaps escaped) in [p, end): just after it. */
static const char *
hs_chakra_key(const char *p, const char *end, const char *name)
{
	size_t n = strlen(name);

	for (; p + n + 2 <= end; p++)
		if (*p == '"' && strncmp(p + 1, name, n) == 0 &&
		    (p[n + 1] == '"' || (p[n + 1] == '\\' && p[n + 2] == '"')))
			return p + n + (p[n + 1] == '"' ? 2 : 3);
	return NULL;
}

static void
hs_chakra_descs_free(struct hs_chakra_desc *d, uint32_t nb)
{
	uint32_t i;

	for (i = 0; i < nb; i++)
		free(d[i].ranks);
	free(d);
}

/*
 * Parse text, a list of pg configs as PyTorch writes them (in its
 * "## process_group:init ##" node's inputs, or ofan's process_groups
 * attribute), into *d (*nb of them so far).  Described twice, a group
 * must be described the same.  0, -EINVAL with the message, -ENOMEM.
 */
static int
hs_chakra_descs_parse(const char *text, const char *where,
		      struct hs_chakra_desc **d, uint32_t *nb, char *err,
		      size_t err_size)
{
	const char *p = text, *end = text + strlen(text);

	while ((p = hs_chakra_key(p, end, "pg_name")) != NULL) {
		const char *obj_end = strchr(p, '}'), *q;
		struct hs_chakra_desc x = { .where = where };
		uint32_t cap = 0, i, k;
		size_t len;

		if (obj_end == NULL)
			obj_end = end;
		q = hs_chakra_colon(p);
		if (q == NULL || *q != '"')
			goto bad;
		len = strcspn(q + 1, "\"\\");
		if (len == 0 || len >= sizeof(x.name))
			goto bad;
		memcpy(x.name, q + 1, len);
		q = hs_chakra_key(p, obj_end, "ranks");
		if (q != NULL) {
			q = hs_chakra_colon(q);
			if (q == NULL || *q != '[')
				goto bad;
			for (q = hs_chakra_skip(q + 1); *q != ']';) {
				uint32_t r;

				q = hs_chakra_uint(q, &r);
				if (q == NULL || x.nb >= HS_MAX_RANKS) {
					free(x.ranks);
					goto bad;
				}
				if (x.nb == cap) {
					uint32_t *n = realloc(x.ranks,
						sizeof(*n) * (cap = cap ? 2 * cap : 16));

					if (n == NULL) {
						free(x.ranks);
						return -ENOMEM;
					}
					x.ranks = n;
				}
				x.ranks[x.nb++] = r;
				q = hs_chakra_skip(q);
				if (*q == ',')
					q = hs_chakra_skip(q + 1);
				else if (*q != ']') {
					free(x.ranks);
					goto bad;
				}
			}
		}
		x.size = x.nb;
		q = hs_chakra_key(p, obj_end, "pg_size");
		if (q != NULL && ((q = hs_chakra_colon(q)) == NULL ||
				  hs_chakra_uint(q, &x.size) == NULL)) {
			free(x.ranks);
			goto bad;
		}
		p = obj_end;
		for (i = 0; i < *nb; i++)
			if (strcmp((*d)[i].name, x.name) == 0)
				break;
		if (i < *nb) {
			const struct hs_chakra_desc *y = &(*d)[i];
			bool same = y->size == x.size && y->nb == x.nb;

			for (k = 0; same && k < x.nb; k++)
				same = y->ranks[k] == x.ranks[k];
			free(x.ranks);
			if (!same) {
				snprintf(err, err_size, "%s: process group '%s' is described otherwise than in %s; expected one description of each group",
					 where, y->name, y->where);
				return -EINVAL;
			}
			continue;
		}
		{
			struct hs_chakra_desc *n = realloc(*d,
				sizeof(*n) * (*nb + 1));

			if (n == NULL) {
				free(x.ranks);
				return -ENOMEM;
			}
			*d = n;
			n[(*nb)++] = x;
		}
	}
	return 0;
bad:
	snprintf(err, err_size, "%s: a process group description that does not parse; expected PyTorch's pg configs ({\"pg_name\": \"NAME\", \"pg_size\": N, \"ranks\": [R, ...]}, names of at most 63 characters)",
		 where);
	return -EINVAL;
}

/*
 * Check the groups described against a job of nr ranks: every member a
 * rank of the job, listed once, as many as pg_size.
 */
static int
hs_chakra_descs_check(const struct hs_chakra_desc *d, uint32_t nb,
		      uint32_t nr, char *err, size_t err_size)
{
	uint32_t i, k, m;

	for (i = 0; i < nb; i++) {
		if (d[i].size > nr) {
			snprintf(err, err_size, "%s: process group '%s' has %u ranks; expected at most the job's %u (the trace was made for a larger job: give it as many ranks as it has files)",
				 d[i].where, d[i].name, d[i].size, nr);
			return -EINVAL;
		}
		if (d[i].nb != 0 && d[i].nb != d[i].size) {
			snprintf(err, err_size, "%s: process group '%s' lists %u ranks and a pg_size of %u; expected as many ranks as its size",
				 d[i].where, d[i].name, d[i].nb, d[i].size);
			return -EINVAL;
		}
		for (k = 0; k < d[i].nb; k++) {
			if (d[i].ranks[k] >= nr) {
				snprintf(err, err_size, "%s: process group '%s' has rank %u; expected ranks below the job's %u (the trace was made for a larger job: give it as many ranks as it has files)",
					 d[i].where, d[i].name, d[i].ranks[k],
					 nr);
				return -EINVAL;
			}
			for (m = 0; m < k; m++)
				if (d[i].ranks[m] == d[i].ranks[k]) {
					snprintf(err, err_size, "%s: process group '%s' lists rank %u twice; expected each member once",
						 d[i].where, d[i].name,
						 d[i].ranks[k]);
					return -EINVAL;
				}
		}
	}
	return 0;
}

/* Every group the files describe, in their metadata or a pg init node. */
static int
hs_chakra_descs(const struct hs_chakra_file *files, uint32_t nr,
		struct hs_chakra_desc **d, uint32_t *nb, char *err,
		size_t err_size)
{
	uint32_t r;
	size_t i;
	int rc = 0;

	for (r = 0; rc == 0 && r < nr; r++) {
		const struct hs_chakra_file *f = &files[r];

		if (f->groups != NULL)
			rc = hs_chakra_descs_parse(f->groups, f->path, d, nb,
						   err, err_size);
		for (i = 0; rc == 0 && i < f->nb_nodes; i++) {
			const ChakraProtoMsg__Node *x = f->nodes[i];

			if (x->type == CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE &&
			    x->name != NULL &&
			    strstr(x->name, HS_CHAKRA_PG_INIT) != NULL &&
			    x->inputs != NULL && x->inputs->values != NULL)
				rc = hs_chakra_descs_parse(x->inputs->values,
							   f->path, d, nb, err,
							   err_size);
		}
	}
	return rc;
}

/*
 * Match the communicators the nodes name against their descriptions: a
 * rank that names a described group must be one of its members, and a
 * described group's members are its communicator (a member that never
 * names it is then found missing by hs_wl_build()); a group described by
 * its size alone must be named by that many ranks.
 */
static int
hs_chakra_pgs_check(struct hs_chakra_pg *pgs, uint32_t nb_pgs,
		    const struct hs_chakra_desc *d, uint32_t nb,
		    const struct hs_chakra_file *files, char *err,
		    size_t err_size)
{
	uint32_t i, k, m;

	for (i = 0; i < nb_pgs; i++) {
		const struct hs_chakra_desc *x = NULL;
		uint32_t *all;

		for (k = 0; pgs[i].name != NULL && k < nb; k++)
			if (strcmp(d[k].name, pgs[i].name) == 0)
				x = &d[k];
		if (x == NULL)
			continue;
		if (x->nb == 0) {
			if (pgs[i].nb != x->size) {
				snprintf(err, err_size, "%s: process group '%s' is named by %u ranks' nodes; expected its pg_size, %u, as it describes it",
					 x->where, x->name, pgs[i].nb, x->size);
				return -EINVAL;
			}
			continue;
		}
		for (k = 0; k < pgs[i].nb; k++) {
			for (m = 0; m < x->nb; m++)
				if (x->ranks[m] == pgs[i].ranks[k])
					break;
			if (m == x->nb) {
				snprintf(err, err_size, "%s: names process group '%s', which does not have rank %u as %s describes it; expected only its members to name it",
					 files[pgs[i].ranks[k]].path, x->name,
					 pgs[i].ranks[k], x->where);
				return -EINVAL;
			}
		}
		all = realloc(pgs[i].ranks, sizeof(*all) * x->nb);
		if (all == NULL)
			return -ENOMEM;
		memcpy(all, x->ranks, sizeof(*all) * x->nb);
		/* Ascending, as the members found from the nodes are. */
		qsort(all, x->nb, sizeof(*all), hs_chakra_cmp_u32);
		pgs[i].ranks = all;
		pgs[i].nb = x->nb;
	}
	return 0;
}

uint32_t
hs_chakra_count(const char *prefix)
{
	char path[600];
	uint32_t n;

	for (n = 0; n < HS_MAX_RANKS; n++) {
		snprintf(path, sizeof(path), "%s.%u.et", prefix, n);
		if (access(path, F_OK) != 0)
			break;
	}
	return n;
}

int
hs_chakra_files(const char *prefix, uint32_t ranks, char *err,
		size_t err_size)
{
	char path[600];
	uint32_t r, n;
	int rc;

	for (r = 0; r < ranks; r++) {
		snprintf(path, sizeof(path), "%s.%u.et", prefix, r);
		if (access(path, R_OK) != 0) {
			rc = -errno;
			snprintf(err, err_size, "%s: %s; expected a trace file for each of the %u ranks (%s.0.et .. %s.%u.et)",
				 path, strerror(errno), ranks, prefix, prefix,
				 ranks - 1);
			return rc;
		}
	}
	n = hs_chakra_count(prefix);
	if (n > ranks) {
		snprintf(err, err_size, "%s.%u.et exists: the trace has %u ranks (%s.0.et .. %s.%u.et); expected ranks = %u, not %u",
			 prefix, ranks, n, prefix, prefix, n - 1, n, ranks);
		return -E2BIG;
	}
	return 0;
}

/*
 * The core of hs_chakra_read() and hs_chakra_read_mem(): files[0 .. nr)
 * parsed, into the workload's last job.  Frees the files.
 */
static int
hs_chakra_build(struct hs_workload *w, struct hs_chakra_file *files,
		uint32_t nr, const char *name, char *err, size_t err_size)
{
	uint32_t r, i, nb_pgs = 0;
	struct hs_chakra_unmapped u;
	struct hs_chakra_pg *pgs = NULL;
	struct hs_chakra_desc *descs = NULL;
	uint32_t nb_descs = 0;
	int rc;

	memset(&u, 0, sizeof(u));
	rc = hs_chakra_descs(files, nr, &descs, &nb_descs, err, err_size);
	if (rc == 0)
		rc = hs_chakra_descs_check(descs, nb_descs, nr, err,
					   err_size);
	/* Communicators: who names each pg_name (none: every rank). */
	for (r = 0; rc == 0 && r < nr; r++)
		for (i = 0; rc == 0 && i < files[r].nb_nodes; i++)
			if (files[r].nodes[i]->type ==
			    CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) {
				const char *pg = hs_chakra_pg(files[r].nodes[i]);
				int x = hs_chakra_pg_index(&pgs, &nb_pgs, pg,
							   r);

				if (x < 0)
					rc = x;
			}
	if (rc == 0)
		rc = hs_chakra_pgs_check(pgs, nb_pgs, descs, nb_descs, files,
					 err, err_size);
	for (i = 0; rc == 0 && i < nb_pgs; i++) {
		if (pgs[i].name == NULL) {
			uint32_t *all = realloc(pgs[i].ranks,
						sizeof(*all) * nr);

			if (all == NULL) {
				rc = -ENOMEM;
				break;
			}
			for (r = 0; r < nr; r++)
				all[r] = r;
			pgs[i].ranks = all;
			pgs[i].nb = nr;
		}
		pgs[i].comm = hs_wl_add_comm(w, pgs[i].ranks, pgs[i].nb);
		if (pgs[i].comm < 0)
			rc = -ENOMEM;
	}
	for (r = 0; rc == 0 && r < nr; r++)
		rc = hs_chakra_rank(w, &files[r], r, pgs, nb_pgs, &u, err,
				    err_size);
	if (rc == 0)
		hs_chakra_report(w, &u);
	if (rc == -ENOMEM)
		snprintf(err, err_size, "%s: out of memory", name);
	for (r = 0; r < nr; r++)
		hs_chakra_file_free(&files[r]);
	for (i = 0; i < nb_pgs; i++) {
		free(pgs[i].name);
		free(pgs[i].ranks);
	}
	free(pgs);
	hs_chakra_descs_free(descs, nb_descs);
	free(files);
	return rc;
}

int
hs_chakra_read(struct hs_workload *w, const char *prefix, char *err,
	       size_t err_size)
{
	const struct hs_wl_job *j = &w->jobs[w->nb_jobs - 1];
	uint32_t nr = j->nb_ranks, r;
	struct hs_chakra_file *files = calloc(nr, sizeof(*files));
	int rc;

	if (files == NULL)
		return -ENOMEM;
	rc = hs_chakra_files(prefix, nr, err, err_size);
	for (r = 0; rc == 0 && r < nr; r++) {
		uint8_t *buf;
		size_t len;

		snprintf(files[r].path, sizeof(files[r].path), "%s.%u.et",
			 prefix, r);
		rc = hs_chakra_slurp(&files[r], &buf, &len, err, err_size);
		if (rc == 0)
			rc = hs_chakra_parse(&files[r], buf, len, err,
					     err_size);
		free(buf);
	}
	if (rc != 0) {
		for (r = 0; r < nr; r++)
			hs_chakra_file_free(&files[r]);
		free(files);
		if (rc == -ENOMEM)
			snprintf(err, err_size, "%s: out of memory", prefix);
		return rc;
	}
	return hs_chakra_build(w, files, nr, prefix, err, err_size);
}

int
hs_chakra_read_mem(struct hs_workload *w, const char *const *names,
		   const uint8_t *const *bufs, const size_t *lens, char *err,
		   size_t err_size)
{
	const struct hs_wl_job *j = &w->jobs[w->nb_jobs - 1];
	uint32_t nr = j->nb_ranks, r;
	struct hs_chakra_file *files = calloc(nr, sizeof(*files));
	int rc = 0;

	if (files == NULL)
		return -ENOMEM;
	for (r = 0; rc == 0 && r < nr; r++) {
		snprintf(files[r].path, sizeof(files[r].path), "%s", names[r]);
		rc = hs_chakra_parse(&files[r], bufs[r], lens[r], err,
				     err_size);
	}
	if (rc != 0) {
		for (r = 0; r < nr; r++)
			hs_chakra_file_free(&files[r]);
		free(files);
		if (rc == -ENOMEM)
			snprintf(err, err_size, "%s: out of memory", names[0]);
		return rc;
	}
	return hs_chakra_build(w, files, nr, names[0], err, err_size);
}

/* ---- writing ---- */

static int
hs_chakra_put(FILE *fp, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t head[10], *buf = malloc(n + 1);
	size_t h = 0, v = n;
	int rc = 0;

	if (buf == NULL)
		return -ENOMEM;
	do {
		head[h++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
	protobuf_c_message_pack(m, buf);
	if (fwrite(head, 1, h, fp) != h || fwrite(buf, 1, n, fp) != n)
		rc = -EIO;
	free(buf);
	return rc;
}

/* An integer attribute, as Chakra's converters write them (int64). */
static void
hs_chakra_set_int(ChakraProtoMsg__AttributeProto *a, const char *name,
		  int64_t v)
{
	chakra_proto_msg__attribute_proto__init(a);
	a->name = (char *)name;
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	a->int64_val = v;
}

/*
 * The process_groups attribute of rank r's file: the job's communicators
 * r is in, as PyTorch describes its process groups ({"pg_name", "pg_desc",
 * "backend_config", "pg_size", "ranks"}), named as the nodes name them.
 * *text NULL when r is in none; the caller frees it.
 */
static int
hs_chakra_groups_attr(const struct hs_workload *w, const struct hs_wl_job *j,
		      uint32_t r, char **text, ChakraProtoMsg__AttributeProto *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	uint32_t c, k;
	bool any = false;

	*text = NULL;
	if (fp == NULL)
		return -ENOMEM;
	fputc('[', fp);
	for (c = 0; c < j->nb_comms; c++) {
		const struct hs_wl_comm *m = &w->comms[j->comm_first + c];
		const uint32_t *rk = &w->comm_ranks[m->first];
		bool in = false;

		for (k = 0; k < m->nb; k++)
			in = in || rk[k] == r;
		if (!in)
			continue;
		fprintf(fp, "%s{\"pg_name\": \"comm%u\", \"pg_desc\": \"\", \"backend_config\": \"\", \"pg_size\": %u, \"ranks\": [",
			any ? ", " : "", c, m->nb);
		for (k = 0; k < m->nb; k++)
			fprintf(fp, "%s%u", k ? ", " : "", rk[k]);
		fputs("]}", fp);
		any = true;
	}
	fputc(']', fp);
	if (fclose(fp) != 0) {
		free(buf);
		return -ENOMEM;
	}
	if (!any) {
		free(buf);
		return 0;
	}
	chakra_proto_msg__attribute_proto__init(a);
	a->name = (char *)HS_CHAKRA_GROUPS;
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a->string_val = buf;
	*text = buf;
	return 0;
}

int
hs_chakra_write(const struct hs_workload *w, uint32_t job,
		const char *prefix, char *err, size_t err_size)
{
	const struct hs_wl_job *j = &w->jobs[job];
	uint32_t r, i;
	int rc = 0;

	err[0] = '\0';
	for (r = 0; rc == 0 && r < j->nb_ranks; r++) {
		ChakraProtoMsg__GlobalMetadata g =
			CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
		ChakraProtoMsg__AttributeProto ga, *gap = &ga;
		char path[600], *groups = NULL;
		FILE *fp;

		snprintf(path, sizeof(path), "%s.%u.et", prefix, r);
		fp = fopen(path, "wb");
		if (fp == NULL) {
			rc = -errno;
			snprintf(err, err_size, "cannot write %s: %s", path,
				 strerror(errno));
			break;
		}
		g.version = (char *)HS_CHAKRA_VERSION;
		rc = hs_chakra_groups_attr(w, j, r, &groups, &ga);
		if (rc == 0 && groups != NULL) {
			g.n_attr = 1;
			g.attr = &gap;
		}
		if (rc == 0)
			rc = hs_chakra_put(fp, &g.base);
		free(groups);
		groups = NULL;
		for (i = 0; rc == 0 && i < j->nb_nodes; i++) {
			const uint32_t idx = j->node_first + i;
			const struct hs_wl_node *x = &w->nodes[idx];
			ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
			ChakraProtoMsg__AttributeProto a[5], *ap[5];
			uint64_t *deps;
			char pg[32];
			uint32_t k, na = 0;

			if (x->rank != r)
				continue;
			deps = malloc(sizeof(*deps) * (x->nb_deps + 1));
			if (deps == NULL) {
				rc = -ENOMEM;
				break;
			}
			/* Ids are the node's index in the job. */
			for (k = 0; k < x->nb_deps; k++)
				deps[k] = w->deps[x->dep_first + k];
			n.id = i;
			n.name = (char *)hs_wl_name(w, idx);
			n.n_data_deps = x->nb_deps;
			n.data_deps = deps;
			for (k = 0; k < 5; k++)
				ap[k] = &a[k];
			switch (x->kind) {
			case HS_WL_COMP:
				n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
				n.duration_micros = x->dur_ns / 1000;
				hs_chakra_set_int(&a[na++], "ofan_duration_ns",
						  (int64_t)x->dur_ns);
				break;
			case HS_WL_COLL:
				n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
				hs_chakra_set_int(&a[na++], "comm_type",
						  hs_chakra_of_coll[x->coll]);
				hs_chakra_set_int(&a[na++], "comm_size",
						  (int64_t)x->size);
				snprintf(pg, sizeof(pg), "comm%u", x->comm);
				chakra_proto_msg__attribute_proto__init(&a[na]);
				a[na].name = (char *)"pg_name";
				a[na].value_case =
					CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
				a[na++].string_val = pg;
				break;
			default:
				n.type = x->kind == HS_WL_SEND ?
					CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE :
					CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE;
				hs_chakra_set_int(&a[na++], x->kind == HS_WL_SEND ?
						  "comm_dst" : "comm_src",
						  x->peer);
				hs_chakra_set_int(&a[na++], "comm_size",
						  (int64_t)x->size);
				hs_chakra_set_int(&a[na++], "comm_tag", x->tag);
				break;
			}
			n.n_attr = na;
			n.attr = ap;
			rc = hs_chakra_put(fp, &n.base);
			free(deps);
		}
		if (fclose(fp) != 0 && rc == 0)
			rc = -EIO;
		if (rc != 0 && err[0] == '\0')
			snprintf(err, err_size, "cannot write %s", path);
	}
	return rc;
}
