/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration reference (ofan_config.h, "Reference"): while a
 * reference is recording, every typed getter notes the key it reads, what
 * it accepts (the same words as its error messages) and the value the
 * program holds when the key is absent.  A program loads example configs
 * that select every policy, pattern and model, then prints what was
 * noted: the reference is the loaders themselves, not a copy of them.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofan_config.h"

struct cfg_ref_key {
	char *sec;
	char *key;
	char *expect;
	char *def;		/* NULL: none (required, or set by the program) */
	bool required;		/* by some load */
	bool optional;		/* by some load */
	bool typed;		/* from a typed getter, not a plain string */
};

struct ofan_cfg_ref {
	struct cfg_ref_key *keys;
	int nb, max;
};

static struct ofan_cfg_ref *cfg_ref_active;

struct ofan_cfg_ref *
ofan_cfg_ref_new(void)
{
	return calloc(1, sizeof(struct ofan_cfg_ref));
}

void
ofan_cfg_ref_free(struct ofan_cfg_ref *r)
{
	int i;

	if (r == NULL)
		return;
	if (cfg_ref_active == r)
		cfg_ref_active = NULL;
	for (i = 0; i < r->nb; i++) {
		free(r->keys[i].sec);
		free(r->keys[i].key);
		free(r->keys[i].expect);
		free(r->keys[i].def);
	}
	free(r->keys);
	free(r);
}

void
ofan_cfg_ref_record(struct ofan_cfg_ref *r)
{
	cfg_ref_active = r;
}

bool
ofan_cfg_ref_recording(void)
{
	return cfg_ref_active != NULL;
}

/* A section's name as the reference shows it: [port.3] is [port.N]. */
static char *
cfg_ref_section(const char *sec)
{
	const char *dot = strrchr(sec, '.');
	char *s;

	if (dot != NULL && dot[1] != '\0' &&
	    strspn(dot + 1, "0123456789") == strlen(dot + 1)) {
		s = malloc((size_t)(dot - sec) + 3);
		if (s != NULL)
			snprintf(s, (size_t)(dot - sec) + 3, "%.*s.N",
				 (int)(dot - sec), sec);
	} else if (dot != NULL && strcasecmp(dot + 1, "name") == 0) {
		/* The reference loads call every named section NAME. */
		s = malloc((size_t)(dot - sec) + 6);
		if (s != NULL)
			snprintf(s, (size_t)(dot - sec) + 6, "%.*s.NAME",
				 (int)(dot - sec), sec);
	} else {
		s = strdup(sec);
	}
	return s;
}

void
ofan_cfg_ref_note(const char *sec, const char *key, unsigned int flags,
		  const char *expect, const char *def)
{
	struct ofan_cfg_ref *r = cfg_ref_active;
	bool typed = strcmp(expect, "a string") != 0;
	struct cfg_ref_key *k;
	char *s;
	int i;

	if (r == NULL)
		return;
	s = cfg_ref_section(sec);
	if (s == NULL)
		return;
	for (i = 0; i < r->nb; i++) {
		k = &r->keys[i];
		if (strcasecmp(k->sec, s) != 0 || strcasecmp(k->key, key) != 0)
			continue;
		free(s);
		/* The string a typed getter reads through says nothing new. */
		if (!typed && k->typed)
			return;
		/* A typed getter says more than the string it reads. */
		if (typed && !k->typed) {
			free(k->expect);
			k->expect = strdup(expect);
			k->typed = true;
			if (def != NULL && k->def == NULL)
				k->def = strdup(def);
		}
		k->required |= (flags & OFAN_CFG_REQUIRED) != 0;
		k->optional |= (flags & OFAN_CFG_REQUIRED) == 0;
		if (def != NULL && k->def == NULL &&
		    (flags & OFAN_CFG_REQUIRED) == 0)
			k->def = strdup(def);
		return;
	}
	if (r->nb == r->max) {
		int max = r->max ? 2 * r->max : 64;
		struct cfg_ref_key *n = realloc(r->keys, (size_t)max * sizeof(*n));

		if (n == NULL) {
			free(s);
			return;
		}
		r->keys = n;
		r->max = max;
	}
	k = &r->keys[r->nb++];
	k->sec = s;
	k->key = strdup(key);
	k->expect = strdup(expect);
	k->def = def != NULL ? strdup(def) : NULL;
	k->required = (flags & OFAN_CFG_REQUIRED) != 0;
	k->optional = !k->required;
	k->typed = typed;
	for (i = 0; k->key != NULL && k->key[i] != '\0'; i++)
		k->key[i] = (char)tolower((unsigned char)k->key[i]);
}

/* Order of the reference: sections by name, keys by name. */
static int
cfg_ref_cmp(const void *a, const void *b)
{
	const struct cfg_ref_key *x = a, *y = b;
	int c = strcmp(x->sec, y->sec);

	return c != 0 ? c : strcmp(x->key, y->key);
}

/* A table cell: '|' escaped, a newline as a space. */
static void
cfg_ref_cell(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

void
ofan_cfg_ref_write(struct ofan_cfg_ref *r, FILE *f)
{
	const char *sec = NULL;
	int i;

	qsort(r->keys, (size_t)r->nb, sizeof(*r->keys), cfg_ref_cmp);
	for (i = 0; i < r->nb; i++) {
		const struct cfg_ref_key *k = &r->keys[i];

		if (sec == NULL || strcmp(sec, k->sec) != 0) {
			sec = k->sec;
			fprintf(f, "%s### [%s]\n\n| key | accepts | when absent |\n|---|---|---|\n",
				i > 0 ? "\n" : "", sec);
		}
		fprintf(f, "| `%s` | ", k->key);
		cfg_ref_cell(f, k->expect);
		fputs(" | ", f);
		if (k->required && !k->optional)
			fputs("required", f);
		else if (k->required)
			fputs("required by some settings", f);
		if (k->required && k->optional && k->def != NULL &&
		    k->def[0] != '\0') {
			fputs(", else `", f);
			cfg_ref_cell(f, k->def);
			fputc('`', f);
		} else if (k->required)
			;
		else if (k->def != NULL && k->def[0] != '\0') {
			fputc('`', f);
			cfg_ref_cell(f, k->def);
			fputc('`', f);
		} else
			fputs("–", f);
		fputs(" |\n", f);
	}
}
