/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The arguments of ofan-switch's telemetry commands that take any
 * (sw_telemetry.c), header only and free of EAL so that the fuzzer runs
 * them alone (tests/fuzz/fuzz_telemetry.c).  The other commands take none
 * and ignore what they get.
 */
#ifndef OFAN_SW_TEL_ARGS_H
#define OFAN_SW_TEL_ARGS_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ofan_config.h"

#define SW_TEL_ARGS_MAX 128	/* longer parameters are refused */

/*
 * "/ofan/fail,PORT,MODE[,RATE]" (and /ofan/restore's "PORT,up"): PORT a
 * number, MODE one of modes (NULL-terminated; *mode its index), RATE a
 * rate ("10G").  Returns 0 or -EINVAL: the caller answers with its usage.
 * Whether PORT exists and RATE fits is the engine's to say.
 */
static inline int
sw_tel_fail_args(const char *params, const char *const *modes,
		 uint64_t *port, int *mode, uint64_t *rate)
{
	char buf[SW_TEL_ARGS_MAX], *port_s, *mode_s, *rate_s, *save = NULL;

	*rate = 0;
	if (params == NULL || strlen(params) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", params);
	port_s = strtok_r(buf, ",", &save);
	mode_s = strtok_r(NULL, ",", &save);
	rate_s = strtok_r(NULL, ",", &save);
	/* A port number wider than 16 bits would wrap onto a real port. */
	if (port_s == NULL || mode_s == NULL ||
	    ofan_parse_u64(port_s, port) || *port > UINT16_MAX)
		return -EINVAL;
	for (*mode = 0; modes[*mode] != NULL; (*mode)++)
		if (strcmp(mode_s, modes[*mode]) == 0)
			break;
	if (modes[*mode] == NULL)
		return -EINVAL;
	if (rate_s != NULL && ofan_parse_rate(rate_s, rate))
		return -EINVAL;
	return 0;
}

/*
 * "/ofan/restore,PORT" as the fail command's "PORT,up" in out (out_size
 * bytes).  PORT alone: anything after it (",down") would otherwise become
 * the fail command's mode (fuzz_telemetry found "/ofan/restore,3,down"
 * failing port 3).  Returns 0 or -EINVAL.
 */
static inline int
sw_tel_restore_args(const char *params, char *out, size_t out_size)
{
	uint64_t port;

	if (params == NULL || strlen(params) > 16 ||
	    ofan_parse_u64(params, &port) || port > UINT16_MAX)
		return -EINVAL;
	snprintf(out, out_size, "%" PRIu64 ",up", port);
	return 0;
}

#endif /* OFAN_SW_TEL_ARGS_H */
