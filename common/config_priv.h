/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration object's inside, shared by config.c (lookup,
 * overrides, the asked keys and the unknown-key check) and config_load.c
 * (reading a file or a text through iniparser).  Not for other modules:
 * they use ofan_config.h.
 */
#ifndef OFAN_CONFIG_PRIV_H
#define OFAN_CONFIG_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofan_config.h"

#define RTE_DIM_CFG(a) (sizeof(a) / sizeof((a)[0]))

#define CFG_ERR_SIZE 4096
#define CFG_CAPTURE_SIZE 1200
#define CFG_MIN_SLOTS 64

struct cfg_entry {
	char *key;
	char *value;
	char *origin;	/* NULL: the file; else what set it (an override) */
};

struct cfg_section {
	char *name;
	char *origin;	/* NULL: the file; else the override that made it */
	struct cfg_entry *entries;
	int nb_entries;
	int max_entries;
};

/* A (section, key) pair a getter asked for; key is NULL for a mark. */
struct cfg_asked {
	char *sec;
	char *key;
};

/*
 * What a slot of the index finds: a section by name, an entry by section
 * and key, an asked pair, a marked section, or a section some of whose
 * keys a getter asked for.
 */
enum cfg_kind {
	CFG_K_SECTION,
	CFG_K_ENTRY,
	CFG_K_ASKED,
	CFG_K_MARK,
	CFG_K_ANY,
};

/*
 * One slot of the index (open addressing).  sec and key point at the
 * strings of the section, entry or asked pair the slot finds, which live
 * as long as cfg; pos is its place in its array.
 */
struct cfg_slot {
	const char *sec;	/* NULL: an empty slot */
	const char *key;	/* NULL for a section, a mark or "any" */
	uint32_t hash;
	uint8_t kind;
	int pos;
};

struct ofan_cfg {
	char *path;
	struct cfg_section *sections;
	int nb_sections;
	int max_sections;
	struct cfg_asked *asked;
	int nb_asked;
	int max_asked;
	struct cfg_slot *slots;
	uint32_t nb_slots;	/* a power of two, or 0 */
	uint32_t nb_used;
	char err[CFG_ERR_SIZE];
};

/* The section called name (or its first len bytes); NULL if none. */
struct cfg_section *cfg_find_section_len(const struct ofan_cfg *cfg,
					 const char *sec, size_t len);
struct cfg_section *cfg_find_section(const struct ofan_cfg *cfg,
				     const char *sec);
/* A new, empty section called name; NULL when out of memory. */
struct cfg_section *cfg_add_section(struct ofan_cfg *cfg, const char *name);
/*
 * Set key to value in section s (added, or replaced when replace), origin
 * NULL for the file, else what set it.  0 or -ENOMEM.
 */
int cfg_put(struct ofan_cfg *cfg, struct cfg_section *s, const char *key,
	    const char *value, bool replace, const char *origin);

#endif /* OFAN_CONFIG_PRIV_H */
