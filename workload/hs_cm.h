/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * htsim connection matrices: the reader (hs_cm.c: lines; hs_cm_file.c:
 * the whole file) and the pattern that replays one, [traffic] pattern =
 * cm with its own setting, cm_file.
 *
 * Pure C, no EAL.
 */
#ifndef OFAN_HS_CM_H
#define OFAN_HS_CM_H

#include <stddef.h>
#include <stdint.h>

#include "hs_pattern.h"
#include "hs_traffic.h"

/*
 * Read an htsim connection-matrix file as htsim's ConnectionMatrix::load()
 * reads it, but stricter where htsim is sloppy (hs_cm.c lists every rule):
 *
 *	Nodes N
 *	Connections C
 *	Triggers T			(optional, 0 when absent)
 *	Failures F			(optional, 0 when absent)
 *	SRC->DST [id I] [start T] [size B] [trigger X]
 *		 [send_done_trigger Y] [recv_done_trigger Z] [prio P]
 *	trigger id N oneshot|multishot|barrier [count K]
 *	failure switch_type TOR|AGG|CORE switch_id S link_id L
 *
 * Start times are picoseconds (an explicit unit, "5us", is an extension).
 * nb_ranks_expected, when not 0, must equal N.  Returns 0, -EINVAL with
 * "FILE:LINE: what 'text'; expected what" in err, -errno if the file
 * cannot be read, -ENOMEM.  On failure t is left empty (safe to free).
 */
int hs_traffic_load_cm(const char *path, uint32_t nb_ranks_expected,
		       struct hs_traffic *t, char *err,
		       unsigned int err_size);

/* The same from memory (name is used in messages); text need not end in NUL. */
int hs_traffic_parse_cm(const char *name, const char *text, size_t len,
			uint32_t nb_ranks_expected, struct hs_traffic *t,
			char *err, unsigned int err_size);

/* [traffic] pattern = cm: its settings (the file, resolved). */
struct hs_cm_settings {
	char path[512];
};

/* The matrix file in block when pattern is cm (block its settings), else
 * NULL. */
const char *hs_cm_path_of(const struct hs_pattern_ops *pattern,
			  const struct hs_pattern_settings *block);

#endif /* OFAN_HS_CM_H */
