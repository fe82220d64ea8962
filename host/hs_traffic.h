/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic: which rank sends how many bytes to which, when, and after what.
 *
 * A traffic pattern expands to a flat list of flows over N ranks.  A flow
 * may start at a time, or only once its source has *received* another
 * flow completely (ring all-reduce: step i+1 of a rank starts after it has
 * received step i), which is how dependent collectives are expressed.
 * Iterations repeat the collective, each one after the previous has
 * completed at every rank involved.  The list is the same for every host
 * (same seed, same list); each host runs the flows whose source it is.
 *
 * Pure C, no EAL: patterns and the .cm parser are unit tested alone.
 */
#ifndef OFAN_HS_TRAFFIC_H
#define OFAN_HS_TRAFFIC_H

#include <stdint.h>

#define HS_NO_DEP UINT32_MAX

enum hs_pattern {
	HS_PATTERN_PERMUTATION,	/* each rank to one other, a random derangement */
	HS_PATTERN_ALLTOALL,	/* every rank to every other */
	HS_PATTERN_RING_ALLREDUCE, /* 2(N-1) dependent ring steps of size/N */
	HS_PATTERN_ALLGATHER,	/* N-1 dependent ring steps of size/N */
	HS_PATTERN_REDUCE_SCATTER, /* N-1 dependent ring steps of size/N */
	HS_PATTERN_INCAST,	/* k ranks to rank 0 (incast_degree) */
	HS_PATTERN_TORNADO,	/* rank i to i + N/2 */
	HS_PATTERN_CM,		/* htsim connection-matrix file */
	HS_PATTERN_NB
};

/* Names of enum hs_pattern, NULL-terminated (config values). */
extern const char *const hs_pattern_names[];

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
	uint32_t iteration;	/* 0-based */
	uint32_t step;		/* ring step within the iteration, else 0 */
};

struct hs_traffic_params {
	enum hs_pattern pattern;
	uint32_t nb_ranks;
	uint64_t size;		/* bytes: per flow, or per rank's buffer for ring collectives */
	uint32_t iterations;	/* >= 1 */
	uint64_t seed;		/* permutation choice */
	uint32_t incast_degree;	/* senders for incast, < nb_ranks */
	uint64_t start_ns;	/* start of the first iteration */
	const char *cm_path;	/* HS_PATTERN_CM */
};

struct hs_traffic {
	uint32_t nb_ranks;
	uint32_t nb_flows;
	struct hs_flow_spec *flows;	/* nb_flows entries */
};

/*
 * Expand params into t (t->flows allocated; free with hs_traffic_free).
 * For ring collectives the per-step size is size / nb_ranks rounded up.
 * Returns 0, or -EINVAL with a message in err (for .cm files:
 * "FILE:LINE: <what is wrong>; expected <what>"); -ENOMEM, or -errno
 * when the .cm file cannot be read.  On failure t is left empty.
 */
int hs_traffic_build(const struct hs_traffic_params *params,
		     struct hs_traffic *t, char *err, unsigned int err_size);
void hs_traffic_free(struct hs_traffic *t);

/*
 * Parse an htsim connection-matrix file: a header "Nodes N" and
 * "Connections C" (either order; C must match the lines that follow), then
 * one line per connection "SRC->DST start T size B" with T in the units
 * htsim uses (a plain number is microseconds; a unit suffix ns/us/ms/s is
 * also accepted) and B in bytes; optional trailing fields "id X" and
 * "after X" (start once connection X, which ends at SRC, was received);
 * htsim's trigger forms are rejected with a pointer to "after" (see
 * hs_traffic.c).  Blank lines and # comments are ignored.  Every
 * malformed line is rejected with its line number: returns 0, -EINVAL
 * with the message in err, -errno if the file cannot be read, -ENOMEM.
 * On failure t is left empty (safe to hs_traffic_free).
 */
int hs_traffic_load_cm(const char *path, uint32_t nb_ranks_expected,
		       struct hs_traffic *t, char *err,
		       unsigned int err_size);

#endif /* OFAN_HS_TRAFFIC_H */
