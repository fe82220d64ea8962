/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ecn_window congestion controller's settings ([cc.ecn_window]
 * section; hs_cc.c) and flow state, for its tests and for anyone filling
 * a settings table by hand; the host never reads them.
 */
#ifndef OFAN_HS_ECN_WINDOW_H
#define OFAN_HS_ECN_WINDOW_H

#include <stdint.h>

struct hs_ecn_window_settings {
	uint32_t window_pkts;	/* initial and largest window, packets (64) */
};

struct hs_ecn_window_state {
	double cwnd;		/* packets */
	uint16_t mss;		/* payload bytes of a full packet (window()) */
};

#endif /* OFAN_HS_ECN_WINDOW_H */
