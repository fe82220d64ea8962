/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registries of ofan's extension points (switch and host policies,
 * traffic patterns, congestion control), written once: a NULL-terminated
 * array of pointers to ops structs that each have `const char *name` and
 * `const char *summary`, the built-ins first.  OFAN_REGISTRY(prefix, type,
 * array, max) defines, for one of them:
 *
 *   bool prefix_reg_named(const type *ops) ops is there with a name and a
 *                                          summary, neither empty: what
 *                                          every register() checks first
 *   int prefix_reg_find(const char *name)  index by name, case-insensitive
 *                                          (the config reads names so), -1
 *   int prefix_reg_index(const type *ops)  index of ops, -1
 *   int prefix_reg_add(const type *ops)    append: 0, -EEXIST (the name in
 *                                          any case), -ENOSPC (max taken);
 *                                          the caller checks ops first
 *   unsigned int prefix_reg_names(const char **names)
 *                                          the names, NULL-terminated
 *                                          (max + 1 entries); how many
 *   void prefix_reg_list(char *buf, size_t size)
 *                                          "a, b, c" for messages
 *   void prefix_reg_describe(FILE *f)      "  name  summary" lines (--help)
 *
 * OFAN_REGISTRY_API(prefix, type, array, max) defines those and the
 * registry's public look-ups, which its header declares:
 *
 *   const type *prefix_find(const char *name)   NULL if unknown
 *   unsigned int prefix_name_list(const char **names)
 *   int prefix_index(const type *ops)
 *   void prefix_describe(FILE *f)
 *
 * Nothing here runs per packet: a registry is read at start-up.
 */
#ifndef OFAN_REGISTRY_H
#define OFAN_REGISTRY_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define OFAN_REGISTRY(prefix, type, array, max)				\
static inline bool							\
prefix##_reg_named(const type *ops)					\
{									\
	return ops != NULL && ops->name != NULL && ops->name[0] != '\0' && \
		ops->summary != NULL && ops->summary[0] != '\0';	\
}									\
									\
static inline int							\
prefix##_reg_find(const char *name)					\
{									\
	int i;								\
									\
	if (name == NULL)						\
		return -1;						\
	for (i = 0; (array)[i] != NULL; i++)				\
		if (strcasecmp((array)[i]->name, name) == 0)		\
			return i;					\
	return -1;							\
}									\
									\
static inline int							\
prefix##_reg_index(const type *ops)					\
{									\
	int i;								\
									\
	for (i = 0; (array)[i] != NULL; i++)				\
		if ((array)[i] == ops)					\
			return i;					\
	return -1;							\
}									\
									\
static inline int							\
prefix##_reg_add(const type *ops)					\
{									\
	unsigned int i;							\
									\
	if (prefix##_reg_find(ops->name) >= 0)				\
		return -EEXIST;						\
	for (i = 0; (array)[i] != NULL; i++)				\
		;							\
	if (i >= (max))							\
		return -ENOSPC;						\
	(array)[i] = ops;						\
	(array)[i + 1] = NULL;						\
	return 0;							\
}									\
									\
static inline unsigned int						\
prefix##_reg_names(const char **names)					\
{									\
	unsigned int i;							\
									\
	for (i = 0; (array)[i] != NULL; i++)				\
		names[i] = (array)[i]->name;				\
	names[i] = NULL;						\
	return i;							\
}									\
									\
static inline void							\
prefix##_reg_list(char *buf, size_t size)				\
{									\
	size_t used = 0;						\
	unsigned int i;							\
	int n;								\
									\
	if (size == 0)							\
		return;							\
	buf[0] = '\0';							\
	/* Names past the end of buf are dropped, never written. */	\
	for (i = 0; (array)[i] != NULL && used < size; i++) {		\
		n = snprintf(buf + used, size - used, "%s%s",		\
			     i == 0 ? "" : ", ", (array)[i]->name);	\
		if (n < 0)						\
			break;						\
		used += (size_t)n;					\
	}								\
}									\
									\
static inline void							\
prefix##_reg_describe(FILE *f)						\
{									\
	int width = 0;							\
	unsigned int i;							\
									\
	for (i = 0; (array)[i] != NULL; i++)				\
		if ((int)strlen((array)[i]->name) > width)		\
			width = (int)strlen((array)[i]->name);		\
	for (i = 0; (array)[i] != NULL; i++)				\
		fprintf(f, "  %-*s  %s\n", width, (array)[i]->name,	\
			(array)[i]->summary);				\
}

#define OFAN_REGISTRY_API(prefix, type, array, max)			\
OFAN_REGISTRY(prefix, type, array, max)					\
									\
const type *								\
prefix##_find(const char *name)						\
{									\
	int i = prefix##_reg_find(name);				\
									\
	return i >= 0 ? (array)[i] : NULL;				\
}									\
									\
unsigned int								\
prefix##_name_list(const char **names)					\
{									\
	return prefix##_reg_names(names);				\
}									\
									\
int									\
prefix##_index(const type *ops)						\
{									\
	return prefix##_reg_index(ops);					\
}									\
									\
void									\
prefix##_describe(FILE *f)						\
{									\
	prefix##_reg_describe(f);					\
}

#endif /* OFAN_REGISTRY_H */
