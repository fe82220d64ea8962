/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The queue levels the engine shows policies (lb.h, struct lb_levels):
 * their defaults and their keys, [queue] levels and level_thresholds.
 */
#include <errno.h>
#include <stdlib.h>

#include "lb.h"
#include "ofan_config.h"

#define LB_LEVELS_THRESHOLDS_EXPECT \
	"increasing fractions of the queue between 0 and 1, comma separated (at most 15), e.g. 0.05, 0.1, 0.2"

void
lb_levels_defaults(struct lb_levels *lv)
{
	lv->nb_levels = 8;
	lv->nb_thresholds = 0;
}

/* [sec] level_thresholds = 0.05, 0.1, 0.2 into lv. */
static int
lb_levels_parse_thresholds(struct ofan_cfg *cfg, const char *sec,
			   const char *text, struct lb_levels *lv)
{
	const char *c = text;
	double prev = 0.0;
	uint8_t n = 0;

	for (;;) {
		char *end;
		double f;

		while (*c == ' ')
			c++;
		f = strtod(c, &end);
		if (end == c || f <= prev || f >= 1.0 ||
		    n == LB_MAX_THRESHOLDS)
			return ofan_cfg_fail(cfg, sec, "level_thresholds",
				"'%s' is not a list of thresholds; expected "
				LB_LEVELS_THRESHOLDS_EXPECT, text);
		lv->threshold[n] = (uint32_t)(f * 1e6 + 0.5);
		if (lv->threshold[n] == 0 ||
		    (n > 0 && lv->threshold[n] <= lv->threshold[n - 1]))
			return ofan_cfg_fail(cfg, sec, "level_thresholds",
				"'%s': %g is too close to its neighbour; expected "
				LB_LEVELS_THRESHOLDS_EXPECT, text, f);
		n++;
		prev = f;
		c = end;
		while (*c == ' ')
			c++;
		if (*c == '\0')
			break;
		if (*c != ',')
			return ofan_cfg_fail(cfg, sec, "level_thresholds",
				"'%s' is not a list of thresholds; expected "
				LB_LEVELS_THRESHOLDS_EXPECT, text);
		c++;
	}
	lv->nb_thresholds = n;
	lv->nb_levels = (uint8_t)(n + 1);
	return 0;
}

int
lb_levels_from_cfg(struct ofan_cfg *cfg, const char *sec,
		   struct lb_levels *lv)
{
	uint32_t levels = lv->nb_levels;
	const char *text = NULL;
	int ret;

	ret = ofan_cfg_get_u32(cfg, sec, "levels", 0, 2, 16, &levels);
	if (ret < 0)
		return ret;
	ret = ofan_cfg_get_str(cfg, sec, "level_thresholds", 0, &text);
	if (ret < 0)
		return ret;
	if (text == NULL) {
		lv->nb_levels = (uint8_t)levels;
		lv->nb_thresholds = 0;
		return 0;
	}
	/* Each key's own errors first, then the two together. */
	ret = lb_levels_parse_thresholds(cfg, sec, text, lv);
	if (ret < 0 || !ofan_cfg_has_key(cfg, sec, "levels"))
		return ret;
	if (ofan_cfg_blame2(cfg, sec, "levels", "level_thresholds") == 1)
		return ofan_cfg_fail(cfg, sec, "level_thresholds",
			"'%s' with levels; expected one of levels (linear) and level_thresholds",
			text);
	return ofan_cfg_fail(cfg, sec, "levels",
		"'%u' with level_thresholds; expected one of levels (linear) and level_thresholds",
		levels);
}
