/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The modes fuzz_host draws from the registries (fuzz_host_modes.h).
 */
#include <string.h>

#include "fuzz_host_modes.h"

/* Entries of a NULL-terminated registry (at least 1: the built-ins). */
static unsigned int
fz_modes_count(const void *const *registry)
{
	unsigned int n = 0;

	while (registry[n] != NULL)
		n++;
	return n;
}

const struct hs_recovery_ops *
fz_modes_recovery(uint8_t b)
{
	return hs_recovery_registry[b % fz_modes_count(
		(const void *const *)hs_recovery_registry)];
}

const struct hs_cc_ops *
fz_modes_cc(uint8_t b)
{
	return hs_cc_registry[b % fz_modes_count(
		(const void *const *)hs_cc_registry)];
}

const struct hlb_ops *
fz_modes_policy(uint8_t b)
{
	return hlb_registry[b % fz_modes_count(
		(const void *const *)hlb_registry)];
}

bool
fz_modes_in_order(const struct hs_recovery_ops *ops)
{
	struct hs_recovery_settings_table set;
	struct hs_transport_params p = { .recovery = ops, .mss = 1000 };
	struct hs_ack_content ack;
	struct hs_receiver r;
	bool send_ack, taken;

	hs_recovery_settings_defaults(&set);
	p.settings = hs_recovery_settings_of(&set, ops);
	/* Asked, not named: does it refuse the second packet first? */
	if (hs_receiver_init(&r, &p, 2 * p.mss, 1) != 0)
		return false;
	taken = hs_receiver_on_data(&r, 1, false, &send_ack, &ack);
	taken = taken || hs_receiver_count(&r) != 0;
	hs_receiver_fini(&r);
	return !taken;
}

/* The names fn reaches over the byte values, each once, in order. */
#define FZ_MODES_PRINT(f, kind, fn, registry)				\
	do {								\
		unsigned int i_, b_;					\
									\
		for (i_ = 0; (registry)[i_] != NULL; i_++)		\
			for (b_ = 0; b_ <= UINT8_MAX; b_++)		\
				if (fn((uint8_t)b_) == (registry)[i_]) { \
					fprintf(f, "%s %s\n", kind,	\
						(registry)[i_]->name);	\
					break;				\
				}					\
	} while (0)

void
fz_modes_print(FILE *f)
{
	FZ_MODES_PRINT(f, "recovery", fz_modes_recovery,
		       hs_recovery_registry);
	FZ_MODES_PRINT(f, "cc", fz_modes_cc, hs_cc_registry);
	FZ_MODES_PRINT(f, "policy", fz_modes_policy, hlb_registry);
}
