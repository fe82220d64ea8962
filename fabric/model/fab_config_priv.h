/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What fab_config.c (the experiment file's sections) gives
 * fab_experiment.c (overrides, sweeps, seeds).  Not an interface.
 */
#ifndef OFAN_FAB_CONFIG_PRIV_H
#define OFAN_FAB_CONFIG_PRIV_H

#include "fab_model.h"
#include "ofan_config.h"

#define FAB_SEC "fabric"

/* Trim blanks at both ends in place; returns s. */
char *fab_trim(char *s);
/* Split s at commas into at most max trimmed parts; returns how many. */
int fab_split(char *s, char **parts, int max);
/* Every section of cfg into p (defaults set); 0 or -EINVAL. */
int fab_parse(struct ofan_cfg *cfg, struct fab_params *p);
/* The defaults of every key, for the file at path. */
void fab_params_defaults(struct fab_params *p, const char *path);

#endif /* OFAN_FAB_CONFIG_PRIV_H */
