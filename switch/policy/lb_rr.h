/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rr's settings block (lb_rr.c), shared with rr_ecmp (lb_rr_ecmp.c),
 * whose ToRs run rr with a block of the same shape from [rr_ecmp].
 */
#ifndef OFAN_LB_RR_H
#define OFAN_LB_RR_H

#include <stdint.h>

#include "lb.h"

#define LB_RR_MAX_PERMUTE 1000

struct lb_rr_settings {
	uint32_t permute;	/* rounds between shuffles; 0: a fixed rotation */
};

/* Read [section] permute into s (0 .. LB_RR_MAX_PERMUTE). */
int lb_rr_parse_section(struct ofan_cfg *cfg, const char *section,
			struct lb_rr_settings *s);

extern const struct lb_ops lb_rr_ops;

#endif /* OFAN_LB_RR_H */
