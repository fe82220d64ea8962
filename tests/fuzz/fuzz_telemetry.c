/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the arguments of ofan-switch's telemetry commands
 * (switch/sw_tel_args.h): /ofan/fail,PORT,MODE[,RATE] and
 * /ofan/restore,PORT, as a telemetry client may send them.  Accepted
 * arguments must be in range (a 16-bit port, a mode of the list) and
 * /ofan/restore's rewrite must parse as the fail command's "PORT,up".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../switch/sw_tel_args.h"

static const char *const fuzz_modes[] = {
	"up", "down", "blackhole", "degraded", NULL,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char params[2 * SW_TEL_ARGS_MAX], out[64];
	uint64_t port = 0, rate = 0, port2 = 0, rate2 = 0;
	int mode = -1, mode2 = -1;

	/* Telemetry hands over a NUL-terminated string. */
	if (size >= sizeof(params))
		size = sizeof(params) - 1;
	memcpy(params, data, size);
	params[size] = '\0';
	if (sw_tel_fail_args(params, fuzz_modes, &port, &mode, &rate) == 0 &&
	    (port > UINT16_MAX || mode < 0 || mode > 3))
		abort();
	if (sw_tel_restore_args(params, out, sizeof(out)) == 0 &&
	    sw_tel_fail_args(out, fuzz_modes, &port2, &mode2, &rate2) == 0 &&
	    (mode2 != 0 || rate2 != 0 || port2 > UINT16_MAX))
		abort();
	return 0;
}
