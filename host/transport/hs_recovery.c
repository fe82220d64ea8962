/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry of loss-recovery models (hs_transport.h) and their
 * settings blocks.  Each model defines its hs_recovery_ops next to its
 * state machine: sack in hs_sack.c, erasure in hs_erasure.c, tcp, trim
 * and gbn in hs_cumack.c.  Nothing here runs per packet.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hs_transport.h"
#include "ofan_registry.h"

/* The built-in models, each defined next to its state machine. */
extern const struct hs_recovery_ops hs_recovery_sack;		/* hs_sack.c */
extern const struct hs_recovery_ops hs_recovery_erasure;	/* hs_erasure.c */
extern const struct hs_recovery_ops hs_recovery_tcp;		/* hs_cumack.c */
extern const struct hs_recovery_ops hs_recovery_trim;
extern const struct hs_recovery_ops hs_recovery_gbn;

/* ---- the registry ---- */

const struct hs_recovery_ops *hs_recovery_registry[HS_MAX_RECOVERY + 1] = {
	&hs_recovery_sack,
	&hs_recovery_erasure,
	&hs_recovery_tcp,
	&hs_recovery_trim,
	&hs_recovery_gbn,
	NULL,
};

OFAN_REGISTRY_API(hs_recovery, struct hs_recovery_ops, hs_recovery_registry,
	      HS_MAX_RECOVERY)

int
hs_recovery_register(const struct hs_recovery_ops *ops)
{
	int nb_path;

	if (!hs_recovery_reg_named(ops) ||
	    ops->tx_size > HS_RECOVERY_TX_STATE ||
	    ops->rx_size > HS_RECOVERY_RX_STATE ||
	    ops->nb_pkts == NULL || ops->tx_init == NULL ||
	    ops->tx_fini == NULL || ops->tx_next == NULL ||
	    ops->tx_sent == NULL || ops->tx_payload == NULL ||
	    ops->tx_on_ack == NULL || ops->tx_check_timeout == NULL ||
	    ops->tx_timer_ns == NULL ||
	    ops->tx_in_flight == NULL || ops->tx_acked_bytes == NULL ||
	    ops->tx_counters == NULL || ops->rx_init == NULL ||
	    ops->rx_fini == NULL || ops->rx_on_data == NULL ||
	    ops->rx_done == NULL || ops->rx_count == NULL ||
	    ops->rx_expect == NULL || ops->rx_counters == NULL ||
	    ops->settings_size > HS_RECOVERY_SETTINGS_MAX ||
	    strlen(ops->name) > HS_RECOVERY_NAME_MAX)
		return -EINVAL;
	/* The path timers come as a set or not at all. */
	nb_path = (ops->tx_path_sent != NULL) +
		(ops->tx_path_acked != NULL) + (ops->tx_path_expired != NULL);
	if (nb_path != 0 && nb_path != 3)
		return -EINVAL;
	return hs_recovery_reg_add(ops);
}

uint32_t
hs_recovery_nb_pkts(const struct hs_transport_params *p, uint64_t size)
{
	return p->mss == 0 ? 0 : (uint32_t)((size + p->mss - 1) / p->mss);
}

void
hs_recovery_settings_defaults(struct hs_recovery_settings_table *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; hs_recovery_registry[i] != NULL; i++)
		if (hs_recovery_registry[i]->defaults != NULL)
			hs_recovery_registry[i]->defaults(t->of[i].bytes);
}

int
hs_recovery_settings_from_cfg(struct ofan_cfg *cfg,
			      struct hs_recovery_settings_table *t)
{
	char sec[sizeof(HS_RECOVERY_SECTION) + HS_RECOVERY_NAME_MAX];
	unsigned int i;

	for (i = 0; hs_recovery_registry[i] != NULL; i++) {
		const struct hs_recovery_ops *ops = hs_recovery_registry[i];

		if (ops->parse == NULL)
			continue;
		snprintf(sec, sizeof(sec), HS_RECOVERY_SECTION "%s", ops->name);
		if (ops->parse(cfg, sec, t->of[i].bytes) != 0)
			return -EINVAL;
	}
	return 0;
}

const void *
hs_recovery_settings_of(const struct hs_recovery_settings_table *t,
			const struct hs_recovery_ops *ops)
{
	unsigned int i;

	for (i = 0; hs_recovery_registry[i] != NULL; i++)
		if (hs_recovery_registry[i] == ops)
			return ops->settings_size > 0 ? t->of[i].bytes : NULL;
	return NULL;
}
