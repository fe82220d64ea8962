/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's fast path in front of ofan_parse(): the common RoCEv2
 * frame with TTL above 1, filling only what the switch reads
 * (common/ofan_parse_fast.h, which the host shares with full = true).
 */
#ifndef OFAN_SW_PARSE_FAST_H
#define OFAN_SW_PARSE_FAST_H

#include "ofan_parse_fast.h"

static inline bool
sw_parse_fast(const uint8_t *f, uint32_t len, struct ofan_pkt_info *info)
{
	return ofan_parse_fast(f, len, true, false, info);
}

#endif /* OFAN_SW_PARSE_FAST_H */
