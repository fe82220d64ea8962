/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MLCommons Chakra execution traces (ET) in and out of a workload
 * (hs_workload.h), with protobuf-c (host/chakra/chakra_et.proto: Chakra's
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
 */
#ifndef OFAN_HS_CHAKRA_H
#define OFAN_HS_CHAKRA_H

#include <stddef.h>
#include <stdint.h>

struct hs_workload;

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
 * Write job's nodes (one iteration, as added: before hs_wl_build()) as
 * PREFIX.R.et, one file per rank.  0, or -errno with the message in err.
 */
int hs_chakra_write(const struct hs_workload *w, uint32_t job,
		    const char *prefix, char *err, size_t err_size);

#endif /* OFAN_HS_CHAKRA_H */
