/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MLCommons Chakra execution traces (ET) in and out of a workload
 * (hs_workload.h), with protobuf-c (workload/chakra/chakra_et.proto: Chakra's
 * message, field and enum numbers).
 *
 * A job's trace is one file per rank, PREFIX.RANK.et: a GlobalMetadata,
 * then its nodes, each message preceded by its length as a varint.  What
 * a node becomes:
 *   COMP_NODE       a compute node of duration_micros (or, when the node
 *                   has it, the attribute ofan_duration_ns: what ofan's
 *                   own writer adds so that nanoseconds survive);
 *   COMM_COLL_NODE  a collective: attributes comm_type (ALL_REDUCE,
 *                   REDUCE_SCATTER, ALL_GATHER, ALL_TO_ALL) and comm_size
 *                   (bytes, nccl-tests' size), over the ranks whose nodes
 *                   name the same pg_name (every rank when absent);
 *   COMM_SEND_NODE  a send: comm_dst, comm_size, comm_tag (0 if absent);
 *   COMM_RECV_NODE  a receive: comm_src, comm_size, comm_tag.
 * ctrl_deps and data_deps both become dependencies (ids of nodes of the
 * same file); a comm_type beyond Chakra's collectives is an error.  What is not mapped -- METADATA, MEM_LOAD, MEM_STORE and
 * INVALID nodes, and the collectives REDUCE, GATHER, SCATTER, BROADCAST,
 * REDUCE_SCATTER_BLOCK and BARRIER -- runs as a step of no time that
 * keeps its dependencies, and is counted in hs_workload.unmapped.
 *
 * The rank count is the job's, and the trace must agree with it: a file
 * for every rank and none beyond (PREFIX.RANKS.et present is an error),
 * and the process groups the trace describes -- PyTorch's pg configs
 * ({"pg_name", "pg_size", "ranks"}) in a METADATA node named
 * "## process_group:init ##" (its inputs' values, as Chakra's converter
 * keeps them) or in the GlobalMetadata attribute process_groups (ofan's
 * writer) -- must fit in the job's ranks and agree with the nodes: a rank
 * naming a described group is one of its members, and the members are
 * the communicator.  Groups no file describes are the ranks naming them.
 */
#ifndef OFAN_HS_CHAKRA_H
#define OFAN_HS_CHAKRA_H

#include <stddef.h>
#include <stdint.h>

struct hs_workload;

/* How many files PREFIX.0.et, PREFIX.1.et, ... exist before one is missing. */
uint32_t hs_chakra_count(const char *prefix);

/*
 * Whether PREFIX.0.et .. PREFIX.(ranks-1).et can be read and
 * PREFIX.ranks.et does not exist.  0; -errno (the first missing file,
 * named in err); -E2BIG when the trace has more files (how many, in err).
 */
int hs_chakra_files(const char *prefix, uint32_t ranks, char *err,
		    size_t err_size);

/*
 * Read PREFIX.R.et for every rank R of the workload's last job (added
 * with hs_wl_add_job(), no nodes yet) into its nodes and communicators.
 * Returns 0, -EINVAL with "FILE: what; expected what" or "FILE: node ID
 * (NAME): what; expected what" in err, -errno when a file cannot be
 * read, -ENOMEM.
 */
int hs_chakra_read(struct hs_workload *w, const char *prefix, char *err,
		   size_t err_size);

/*
 * hs_chakra_read() from memory: rank R's file is the lens[R] bytes at
 * bufs[R], called names[R] in messages, for every rank of the last job.
 * No file is looked at (the fuzzer's way in).
 */
int hs_chakra_read_mem(struct hs_workload *w, const char *const *names,
		       const uint8_t *const *bufs, const size_t *lens,
		       char *err, size_t err_size);

/*
 * Write job's nodes (one iteration, as added: before hs_wl_build()) as
 * PREFIX.R.et, one file per rank, each with the communicators its rank
 * is in described in its GlobalMetadata (process_groups).  0, or -errno
 * with the message in err.
 */
int hs_chakra_write(const struct hs_workload *w, uint32_t job,
		    const char *prefix, char *err, size_t err_size);

#endif /* OFAN_HS_CHAKRA_H */
