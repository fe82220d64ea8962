/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The settings of uet-htsim's path-selection policies (hlb_uec.c):
 * oblivious, bitmap, mixed and reps_uec, each in its own [host.<name>]
 * section, for their tests; the host never reads them.
 */
#ifndef OFAN_HLB_UEC_H
#define OFAN_HLB_UEC_H

#include <stdint.h>

#define HLB_UEC_MAX_PATHS 256	/* a connection's paths at most */
#define HLB_UEC_REPS_SLOTS 8	/* reps_uec's remembered EVs */
#define HLB_UEC_MIXED_FIFO 64	/* mixed: good EVs waiting to be reused */

struct hlb_uec_settings {
	uint32_t paths;		/* EVs a connection uses (uet-htsim -paths): 64 */
	uint32_t explore;	/* reps_uec: random EVs after a freeze: 16 */
	uint64_t freeze_ns;	/* reps_uec: a timeout freezes for it: 10 ms */
};

#endif /* OFAN_HLB_UEC_H */
