/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration object (see ofan_config.h): lookup, overrides and the
 * unknown-key check.  Loading is config_load.c (its inside is shared
 * through config_priv.h); the typed getters and value parsers live in
 * config_parse.c and use only the public interface.
 *
 * iniparser is used for the file syntax only.  Its dictionary is copied
 * once into plain arrays of sections and entries in file order, so that
 * lookups, overrides and the unknown-key report do not depend on its
 * "sec:key" naming (a section name may itself contain ':').  Every
 * (section, key) pair a getter asks for is remembered, present or not:
 * that list is both the "was read" mark and the list of allowed keys shown
 * when a key is unknown.
 *
 * A text held in memory is parsed by the same iniparser_load() through a
 * memfd and its /proc/self/fd path, so that iniparser stays the one
 * authority on the syntax; only the name in the messages differs.
 *
 * Sections, entries and the asked pairs are found through one hash index
 * of names (case-insensitive), not by scanning the arrays: a program asks
 * for a few hundred keys, but a fuzzer's input may hold thousands of
 * sections, and scans made loading and asking quadratic in their number
 * (3000 sections of two keys, loaded, read and checked: 0.50 s with scans,
 * 0.07 s with the index, most of it iniparser's own dictionary).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_priv.h"

static char *
cfg_strdup_lower(const char *s)
{
	char *copy = strdup(s);
	char *p;

	if (copy == NULL)
		return NULL;
	for (p = copy; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	return copy;
}

/* Make room for one more element of size elem in *arr. */
static int
cfg_grow(void **arr, int nb, int *max, size_t elem)
{
	void *bigger;
	int new_max;

	if (nb < *max)
		return 0;
	new_max = *max == 0 ? 8 : *max * 2;
	bigger = realloc(*arr, (size_t)new_max * elem);
	if (bigger == NULL)
		return -ENOMEM;
	*arr = bigger;
	*max = new_max;
	return 0;
}

/* FNV-1a of kind, the first sec_len bytes of sec and key, lower-cased. */
static uint32_t
cfg_hash(uint8_t kind, const char *sec, size_t sec_len, const char *key)
{
	uint32_t h = (2166136261u ^ kind) * 16777619u;
	size_t i;

	for (i = 0; i < sec_len; i++)
		h = (h ^ (uint8_t)tolower((unsigned char)sec[i])) * 16777619u;
	/* Apart: ("ab", "c") and ("a", "bc"); the names are compared anyway. */
	h = (h ^ 0xffu) * 16777619u;
	if (key != NULL)
		for (; *key != '\0'; key++)
			h = (h ^ (uint8_t)tolower((unsigned char)*key)) *
			    16777619u;
	return h;
}

/*
 * The slot of (kind, the first sec_len bytes of sec, key) with hash h, or
 * the empty slot where it would go.  The index must have slots.
 */
static struct cfg_slot *
cfg_slot(const struct ofan_cfg *cfg, uint8_t kind, const char *sec,
	 size_t sec_len, const char *key, uint32_t h)
{
	uint32_t mask = cfg->nb_slots - 1, i;
	struct cfg_slot *s;

	for (i = h & mask;; i = (i + 1) & mask) {
		s = &cfg->slots[i];
		if (s->sec == NULL)
			return s;
		if (s->hash == h && s->kind == kind &&
		    strncasecmp(s->sec, sec, sec_len) == 0 &&
		    s->sec[sec_len] == '\0' &&
		    (key == NULL || strcasecmp(s->key, key) == 0))
			return s;
	}
}

/* The position of (kind, sec[0..sec_len), key), -1 if it is not indexed. */
static int
cfg_find(const struct ofan_cfg *cfg, uint8_t kind, const char *sec,
	 size_t sec_len, const char *key)
{
	const struct cfg_slot *s;

	if (cfg->nb_slots == 0)
		return -1;
	s = cfg_slot(cfg, kind, sec, sec_len, key,
		     cfg_hash(kind, sec, sec_len, key));
	return s->sec != NULL ? s->pos : -1;
}

/*
 * Make sure n more names can be indexed without failing, so that an
 * element is never left half indexed: the index stays at most half full.
 */
static int
cfg_reserve(struct ofan_cfg *cfg, uint32_t n)
{
	uint32_t size = cfg->nb_slots == 0 ? CFG_MIN_SLOTS : cfg->nb_slots;
	struct cfg_slot *slots;
	uint32_t i, j;

	while (2 * (cfg->nb_used + n) > size)
		size *= 2;
	if (size == cfg->nb_slots)
		return 0;
	slots = calloc(size, sizeof(*slots));
	if (slots == NULL)
		return -ENOMEM;
	for (i = 0; i < cfg->nb_slots; i++) {
		if (cfg->slots[i].sec == NULL)
			continue;
		for (j = cfg->slots[i].hash & (size - 1); slots[j].sec != NULL;
		     j = (j + 1) & (size - 1))
			;
		slots[j] = cfg->slots[i];
	}
	free(cfg->slots);
	cfg->slots = slots;
	cfg->nb_slots = size;
	return 0;
}

/* Index a name that is not indexed yet; room must have been reserved. */
static void
cfg_index(struct ofan_cfg *cfg, uint8_t kind, const char *sec,
	  const char *key, int pos)
{
	size_t len = strlen(sec);
	uint32_t h = cfg_hash(kind, sec, len, key);
	struct cfg_slot *s = cfg_slot(cfg, kind, sec, len, key, h);

	s->sec = sec;
	s->key = key;
	s->hash = h;
	s->kind = kind;
	s->pos = pos;
	cfg->nb_used++;
}

/* The section whose name is the first len bytes of sec, NULL if none. */
struct cfg_section *
cfg_find_section_len(const struct ofan_cfg *cfg, const char *sec, size_t len)
{
	int pos = cfg_find(cfg, CFG_K_SECTION, sec, len, NULL);

	return pos < 0 ? NULL : &cfg->sections[pos];
}

struct cfg_section *
cfg_find_section(const struct ofan_cfg *cfg, const char *sec)
{
	return cfg_find_section_len(cfg, sec, strlen(sec));
}

static struct cfg_entry *
cfg_find_entry(const struct ofan_cfg *cfg, const struct cfg_section *s,
	       const char *key)
{
	int pos = cfg_find(cfg, CFG_K_ENTRY, s->name, strlen(s->name), key);

	return pos < 0 ? NULL : &s->entries[pos];
}

struct cfg_section *
cfg_add_section(struct ofan_cfg *cfg, const char *name)
{
	struct cfg_section *s;

	if (cfg_reserve(cfg, 1) < 0 ||
	    cfg_grow((void **)&cfg->sections, cfg->nb_sections,
		     &cfg->max_sections, sizeof(*s)) < 0)
		return NULL;
	s = &cfg->sections[cfg->nb_sections];
	memset(s, 0, sizeof(*s));
	s->name = cfg_strdup_lower(name);
	if (s->name == NULL)
		return NULL;
	cfg_index(cfg, CFG_K_SECTION, s->name, NULL, cfg->nb_sections);
	cfg->nb_sections++;
	return s;
}

/*
 * Add key = value to s or replace its value.  Surrounding double quotes
 * are removed when strip_quotes is set (values from the file).
 */
int
cfg_put(struct ofan_cfg *cfg, struct cfg_section *s, const char *key,
	const char *value, bool strip_quotes, const char *origin)
{
	struct cfg_entry *e = cfg_find_entry(cfg, s, key);
	size_t len = strlen(value);
	char *o = NULL;
	char *v;

	if (origin != NULL && (o = strdup(origin)) == NULL)
		return -ENOMEM;
	if (strip_quotes && len >= 2 && value[0] == '"' &&
	    value[len - 1] == '"') {
		v = strndup(value + 1, len - 2);
	} else {
		v = strdup(value);
	}
	if (v == NULL) {
		free(o);
		return -ENOMEM;
	}
	if (e != NULL) {
		free(e->value);
		free(e->origin);
		e->value = v;
		e->origin = o;
		return 0;
	}
	if (cfg_reserve(cfg, 1) < 0 ||
	    cfg_grow((void **)&s->entries, s->nb_entries, &s->max_entries,
		     sizeof(*e)) < 0) {
		free(v);
		free(o);
		return -ENOMEM;
	}
	e = &s->entries[s->nb_entries];
	e->value = v;
	e->origin = o;
	e->key = cfg_strdup_lower(key);
	if (e->key == NULL) {
		free(v);
		free(o);
		return -ENOMEM;
	}
	cfg_index(cfg, CFG_K_ENTRY, s->name, e->key, s->nb_entries);
	s->nb_entries++;
	return 0;
}

void
ofan_cfg_free(struct ofan_cfg *cfg)
{
	struct cfg_section *s;
	int i, j;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->nb_sections; i++) {
		s = &cfg->sections[i];
		for (j = 0; j < s->nb_entries; j++) {
			free(s->entries[j].key);
			free(s->entries[j].value);
			free(s->entries[j].origin);
		}
		free(s->entries);
		free(s->name);
		free(s->origin);
	}
	for (i = 0; i < cfg->nb_asked; i++) {
		free(cfg->asked[i].sec);
		free(cfg->asked[i].key);
	}
	free(cfg->sections);
	free(cfg->asked);
	free(cfg->slots);
	free(cfg->path);
	free(cfg);
}

const char *
ofan_cfg_path(const struct ofan_cfg *cfg)
{
	return cfg->path;
}

const char *
ofan_cfg_error(const struct ofan_cfg *cfg)
{
	return cfg->err;
}

const char *
ofan_cfg_origin(const struct ofan_cfg *cfg, const char *sec, const char *key)
{
	const struct cfg_section *s = cfg_find_section(cfg, sec);
	const struct cfg_entry *e = s != NULL ?
		cfg_find_entry(cfg, s, key) : NULL;

	return e != NULL ? e->origin : NULL;
}

/*
 * What a complaint about sec:key begins with, into buf: "FILE:SEC:KEY: ",
 * or the origin of a value an override set, or of a section only
 * overrides name.  Returns what snprintf() returns.
 */
static int
cfg_where(const struct ofan_cfg *cfg, const char *sec, const char *key,
	  char *buf, size_t size)
{
	const struct cfg_section *s;
	const struct cfg_entry *e = NULL;

	s = sec != NULL ? cfg_find_section(cfg, sec) : NULL;
	if (s != NULL && key != NULL)
		e = cfg_find_entry(cfg, s, key);
	if (e != NULL && e->origin != NULL)
		return snprintf(buf, size, "%s: ", e->origin);
	if (s != NULL && s->origin != NULL && key == NULL)
		return snprintf(buf, size, "%s: [%s]: ", s->origin, sec);
	if (s != NULL && s->origin != NULL)
		return snprintf(buf, size, "%s: [%s] %s: ", s->origin, sec,
				key);
	if (sec == NULL)
		return snprintf(buf, size, "%s: ", cfg->path);
	if (key == NULL)
		return snprintf(buf, size, "%s:%s: ", cfg->path, sec);
	return snprintf(buf, size, "%s:%s:%s: ", cfg->path, sec, key);
}

static int
cfg_vfail(struct ofan_cfg *cfg, const char *sec, const char *key,
	  const char *fmt, va_list ap)
{
	int n = cfg_where(cfg, sec, key, cfg->err, sizeof(cfg->err));

	if (n >= 0 && (size_t)n < sizeof(cfg->err))
		vsnprintf(cfg->err + n, sizeof(cfg->err) - (size_t)n, fmt, ap);
	return -EINVAL;
}

int
ofan_cfg_fail(struct ofan_cfg *cfg, const char *sec, const char *key,
	      const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cfg_vfail(cfg, sec, key, fmt, ap);
	va_end(ap);
	return rc;
}

const char *
ofan_cfg_value(const struct ofan_cfg *cfg, const char *sec, const char *key)
{
	const struct cfg_section *s = cfg_find_section(cfg, sec);
	const struct cfg_entry *e = s != NULL ? cfg_find_entry(cfg, s, key) :
					 NULL;

	return e != NULL ? e->value : NULL;
}

/* How strongly a broken rule blames sec:key (ofan_config.h). */
static int
cfg_blame_rank(const struct ofan_cfg *cfg, const char *sec, const char *key)
{
	const struct cfg_section *s = cfg_find_section(cfg, sec);
	const struct cfg_entry *e = s != NULL ? cfg_find_entry(cfg, s, key) :
					 NULL;

	return e == NULL ? 0 : e->origin == NULL ? 1 : 2;
}

bool
ofan_cfg_overridden(const struct ofan_cfg *cfg, const char *sec,
		    const char *key)
{
	return ofan_cfg_origin(cfg, sec, key) != NULL;
}

int
ofan_cfg_blame(const struct ofan_cfg *cfg, const struct ofan_cfg_key *keys,
	       int n)
{
	int i, best = 0, best_rank = -1, r;

	for (i = 0; i < n; i++) {
		r = cfg_blame_rank(cfg, keys[i].sec, keys[i].key);
		if (r > best_rank) {
			best = i;
			best_rank = r;
		}
	}
	return best;
}

int
ofan_cfg_blame2(const struct ofan_cfg *cfg, const char *sec, const char *a,
		const char *b)
{
	const struct ofan_cfg_key keys[2] = { { sec, a }, { sec, b } };

	return ofan_cfg_blame(cfg, keys, 2);
}

int
ofan_cfg_fail_keys(struct ofan_cfg *cfg, const struct ofan_cfg_key *keys,
		   int n, const char *fmt, ...)
{
	int i = ofan_cfg_blame(cfg, keys, n), len;
	va_list ap;

	va_start(ap, fmt);
	if (i == 0) {
		cfg_vfail(cfg, keys[0].sec, keys[0].key, fmt, ap);
		va_end(ap);
		return -EINVAL;
	}
	/* keys[i] is written (blamed over keys[0]): it has a value. */
	len = cfg_where(cfg, keys[i].sec, keys[i].key, cfg->err,
			sizeof(cfg->err));
	if (len >= 0 && (size_t)len < sizeof(cfg->err))
		len += snprintf(cfg->err + len, sizeof(cfg->err) - (size_t)len,
				"'%s' conflicts with [%s] %s: ",
				ofan_cfg_value(cfg, keys[i].sec, keys[i].key),
				keys[0].sec, keys[0].key);
	if (len >= 0 && (size_t)len < sizeof(cfg->err))
		vsnprintf(cfg->err + len, sizeof(cfg->err) - (size_t)len, fmt,
			  ap);
	va_end(ap);
	return -EINVAL;
}

int
ofan_cfg_set(struct ofan_cfg *cfg, const char *sec, const char *key,
	     const char *value)
{
	return ofan_cfg_set_from(cfg, sec, key, value, NULL);
}

int
ofan_cfg_set_from(struct ofan_cfg *cfg, const char *sec, const char *key,
		  const char *value, const char *origin)
{
	struct cfg_section *s;

	if (sec == NULL || key == NULL || value == NULL || key[0] == '\0' ||
	    strchr(key, ':') != NULL)
		return ofan_cfg_fail(cfg, sec != NULL ? sec : "",
				     key != NULL ? key : "",
				     "cannot set '%s'; expected a non-empty key "
				     "without ':' and a value",
				     value != NULL ? value : "(null)");
	s = cfg_find_section(cfg, sec);
	if (s == NULL) {
		s = cfg_add_section(cfg, sec);
		/* A section only an override names is the override's. */
		if (s != NULL && origin != NULL &&
		    (s->origin = strdup(origin)) == NULL)
			s = NULL;
	}
	if (s == NULL || cfg_put(cfg, s, key, value, false, origin) < 0)
		return ofan_cfg_fail(cfg, sec, key, "out of memory");
	return 0;
}

int
ofan_cfg_path_of(struct ofan_cfg *cfg, const char *sec, const char *key,
		 const char *value, char *out, size_t size)
{
	const struct cfg_section *s = cfg_find_section(cfg, sec);
	const struct cfg_entry *e = s != NULL ? cfg_find_entry(cfg, s, key) :
					 NULL;
	const char *slash = strrchr(cfg->path, '/');
	int n;

	if (value[0] == '/' || slash == NULL || (e != NULL && e->origin != NULL))
		n = snprintf(out, size, "%s", value);
	else
		n = snprintf(out, size, "%.*s/%s", (int)(slash - cfg->path),
			     cfg->path, value);
	if (n < 0 || (size_t)n >= size)
		return ofan_cfg_fail(cfg, sec, key,
			"'%.40s...': the path is too long; expected at most %zu characters",
			value, size - 1);
	return 0;
}

/* The folder of path (".") into dir. */
static void
cfg_dirname(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(dir, size, ".");
	else if (slash == path)
		snprintf(dir, size, "/");
	else
		snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

void
ofan_cfg_dev_name(const char *dev, char *out, size_t size)
{
	size_t n = strcspn(dev, ","), i;
	unsigned int b, d, f;
	char head[8], tail;

	if (size == 0)
		return;
	/* BB:DD.F without its domain: the same as 0000:BB:DD.F. */
	if (n == 7) {
		memcpy(head, dev, 7);
		head[7] = '\0';
	}
	if (n == 7 &&
	    sscanf(head, "%2x:%2x.%1x%c", &b, &d, &f, &tail) == 3) {
		snprintf(out, size, "0000:%s", head);
	} else {
		if (n >= size)
			n = size - 1;
		memcpy(out, dev, n);
		out[n] = '\0';
	}
	for (i = 0; out[i] != '\0'; i++)
		out[i] = (char)tolower((unsigned char)out[i]);
}

int
ofan_cfg_check_devices(struct ofan_cfg *cfg, const char *const *devs, int n)
{
	char a[256], b[256], sec[32];
	int i, j;

	for (i = 0; i < n; i++) {
		ofan_cfg_dev_name(devs[i], a, sizeof(a));
		for (j = 0; j < i; j++) {
			ofan_cfg_dev_name(devs[j], b, sizeof(b));
			if (strcmp(a, b) != 0)
				continue;
			snprintf(sec, sizeof(sec), "port.%d", i);
			return ofan_cfg_fail(cfg, sec, "dev",
				"'%s' is the same device as [port.%d]; expected each port on its own device",
				a, j);
		}
	}
	return 0;
}

int
ofan_cfg_devargs(struct ofan_cfg *cfg, const char *sec, const char *key,
		 const char *dev, char *out, size_t size)
{
	static const char *const files[] = { "rx_pcap", "tx_pcap", "socket" };
	char buf[1024], path[PATH_MAX], dir[PATH_MAX];
	char *tok, *save = NULL;
	size_t used = 0;
	unsigned int f;
	int n;

	if (strlen(dev) >= sizeof(buf))
		return ofan_cfg_fail(cfg, sec, key, "'%.40s...' is too long",
				     dev);
	snprintf(buf, sizeof(buf), "%s", dev);
	out[0] = '\0';
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		const char *arg = tok;
		char *eq = strchr(tok, '=');

		for (f = 0; eq != NULL && f < RTE_DIM_CFG(files); f++)
			if ((size_t)(eq - tok) == strlen(files[f]) &&
			    strncmp(tok, files[f], (size_t)(eq - tok)) == 0)
				break;
		if (eq != NULL && f < RTE_DIM_CFG(files)) {
			if (ofan_cfg_path_of(cfg, sec, key, eq + 1, path,
					     sizeof(path)) != 0)
				return -EINVAL;
			if (f == 0 && access(path, R_OK) != 0)
				return ofan_cfg_fail(cfg, sec, key,
					"rx_pcap '%s' cannot be read (%s); expected an existing capture (a relative path is relative to the config file's folder)",
					path, strerror(errno));
			cfg_dirname(path, dir, sizeof(dir));
			if (f > 0 && access(dir, W_OK) != 0)
				return ofan_cfg_fail(cfg, sec, key,
					"%s '%s': its folder cannot be written (%s); expected an existing, writable folder (a relative path is relative to the config file's folder)",
					files[f], path, strerror(errno));
			n = snprintf(out + used, size - used, "%s%s=%s",
				     used ? "," : "", files[f], path);
		} else {
			n = snprintf(out + used, size - used, "%s%s",
				     used ? "," : "", arg);
		}
		if (n < 0 || (size_t)n >= size - used)
			return ofan_cfg_fail(cfg, sec, key,
				"'%.40s...' is too long once its paths are resolved; expected at most %zu characters",
				dev, size - 1);
		used += (size_t)n;
	}
	return 0;
}

bool
ofan_cfg_has_section(const struct ofan_cfg *cfg, const char *sec)
{
	return cfg_find_section(cfg, sec) != NULL;
}

bool
ofan_cfg_has_key(const struct ofan_cfg *cfg, const char *sec,
		 const char *key)
{
	const struct cfg_section *s = cfg_find_section(cfg, sec);

	return s != NULL && cfg_find_entry(cfg, s, key) != NULL;
}

int
ofan_cfg_sections(const struct ofan_cfg *cfg, const char *prefix,
		  const char **names, int max)
{
	size_t len = strlen(prefix);
	const char *name;
	int i, n = 0;

	for (i = 0; i < cfg->nb_sections; i++) {
		name = cfg->sections[i].name;
		/*
		 * Keys before the first [section] are not a section, and
		 * "[port.]" names no port: left unread, the unknown-key
		 * check reports it where it is.
		 */
		if (name[0] == '\0' || strncasecmp(name, prefix, len) != 0 ||
		    (len > 0 && name[len] == '\0'))
			continue;
		if (n < max && names != NULL)
			names[n] = name;
		n++;
	}
	return n;
}

/* A value as INI text: quoted when iniparser would cut or trim it. */
static void
cfg_write_value(FILE *f, const char *v)
{
	size_t len = strlen(v);

	if (len > 0 && strpbrk(v, ";#\"") == NULL && !isspace((unsigned char)v[0]) &&
	    !isspace((unsigned char)v[len - 1]))
		fputs(v, f);
	else
		fprintf(f, "\"%s\"", v);
}

int
ofan_cfg_write(const struct ofan_cfg *cfg, FILE *f)
{
	int i, j;

	for (i = 0; i < cfg->nb_sections; i++) {
		const struct cfg_section *s = &cfg->sections[i];

		if (s->name[0] != '\0') {
			if (i > 0)
				fputc('\n', f);
			if (s->origin != NULL)
				fprintf(f, "; made by %s\n", s->origin);
			fprintf(f, "[%s]\n", s->name);
		}
		for (j = 0; j < s->nb_entries; j++) {
			const struct cfg_entry *e = &s->entries[j];

			fprintf(f, "%s = ", e->key);
			cfg_write_value(f, e->value);
			if (e->origin != NULL)
				fprintf(f, "\t; %s", e->origin);
			fputc('\n', f);
		}
	}
	return ferror(f) ? -EIO : 0;
}

int
ofan_cfg_keys(const struct ofan_cfg *cfg, const char *sec, const char **keys,
	      int max)
{
	const struct cfg_section *s = cfg_find_section(cfg, sec);
	int i;

	if (s == NULL)
		return 0;
	for (i = 0; i < s->nb_entries && i < max && keys != NULL; i++)
		keys[i] = s->entries[i].key;
	return s->nb_entries;
}

/*
 * Remember that sec:key (or the whole section if key is NULL) is known:
 * the pair is kept in the asked list and indexed, and so is the mark or
 * the fact that some key of sec was asked for.
 */
static int
cfg_remember(struct ofan_cfg *cfg, const char *sec, const char *key)
{
	uint8_t kind = key == NULL ? CFG_K_MARK : CFG_K_ASKED;
	size_t len = strlen(sec);
	struct cfg_asked *a;

	if (cfg_find(cfg, kind, sec, len, key) >= 0)
		return 0;
	if (cfg_reserve(cfg, 2) < 0 ||
	    cfg_grow((void **)&cfg->asked, cfg->nb_asked, &cfg->max_asked,
		     sizeof(*a)) < 0)
		return -ENOMEM;
	a = &cfg->asked[cfg->nb_asked];
	a->sec = cfg_strdup_lower(sec);
	a->key = key != NULL ? cfg_strdup_lower(key) : NULL;
	if (a->sec == NULL || (key != NULL && a->key == NULL)) {
		free(a->sec);
		free(a->key);
		return -ENOMEM;
	}
	cfg_index(cfg, kind, a->sec, a->key, cfg->nb_asked);
	if (key != NULL && cfg_find(cfg, CFG_K_ANY, sec, len, NULL) < 0)
		cfg_index(cfg, CFG_K_ANY, a->sec, NULL, cfg->nb_asked);
	cfg->nb_asked++;
	return 0;
}

void
ofan_cfg_mark_section(struct ofan_cfg *cfg, const char *sec)
{
	/* On allocation failure the section is later reported unknown. */
	(void)cfg_remember(cfg, sec, NULL);
}

int
ofan_cfg_get_str(struct ofan_cfg *cfg, const char *sec, const char *key,
		 unsigned int flags, const char **out)
{
	const struct cfg_section *s;
	const struct cfg_entry *e;

	if (ofan_cfg_ref_recording())
		ofan_cfg_ref_note(sec, key, flags, "a string", *out);
	if (cfg_remember(cfg, sec, key) < 0)
		return ofan_cfg_fail(cfg, sec, key, "out of memory");
	s = cfg_find_section(cfg, sec);
	e = s != NULL ? cfg_find_entry(cfg, s, key) : NULL;
	if (e != NULL) {
		*out = e->value;
		return 0;
	}
	if (flags & OFAN_CFG_REQUIRED)
		return ofan_cfg_fail(cfg, sec, key,
				     "missing; expected a string");
	return 0;
}

/*
 * Whether a getter asked for sec:key, or for any key of sec if key is
 * NULL; with marks set, whether sec was marked instead.
 */
static bool
cfg_was_asked(const struct ofan_cfg *cfg, const char *sec, const char *key,
	      bool marks)
{
	uint8_t kind = marks ? CFG_K_MARK :
		       key == NULL ? CFG_K_ANY : CFG_K_ASKED;

	return cfg_find(cfg, kind, sec, strlen(sec), key) >= 0;
}

/* "unknown key; allowed keys in [SEC]: a, b, c" for entry e of s. */
static int
cfg_unknown_key(struct ofan_cfg *cfg, const struct cfg_section *s,
		const struct cfg_entry *e)
{
	char list[CFG_ERR_SIZE] = "";
	size_t used = 0;
	int i, n;

	for (i = 0; i < cfg->nb_asked && used < sizeof(list); i++) {
		if (cfg->asked[i].key == NULL ||
		    strcmp(cfg->asked[i].sec, s->name) != 0)
			continue;
		n = snprintf(list + used, sizeof(list) - used, "%s%s",
			     used == 0 ? "" : ", ", cfg->asked[i].key);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return ofan_cfg_fail(cfg, s->name, e->key,
			     "unknown key; allowed keys in [%s]: %s", s->name,
			     used == 0 ? "(none)" : list);
}

/* The edit distance of a and b, at most 64 characters each (else 99). */
static int
cfg_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b), i, j;
	int row[65], prev, t, t2;

	if (la > 64 || lb > 64)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			t = row[j];
			t2 = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 :
				row[j - 1] + 1;
			if (prev + (a[i - 1] != b[j - 1]) < t2)
				t2 = prev + (a[i - 1] != b[j - 1]);
			row[j] = t2;
			prev = t;
		}
	}
	return row[lb];
}

/*
 * "unknown section" for s, with the section a program reads that is
 * nearest its name when one is close (a typo), else the sections it reads.
 */
static int
cfg_unknown_section(struct ofan_cfg *cfg, const struct cfg_section *s)
{
	char list[CFG_ERR_SIZE] = "";
	const char *best = NULL;
	int i, k, d, best_d = 99, n;
	size_t used = 0;

	for (i = 0; i < cfg->nb_asked; i++) {
		const char *sec = cfg->asked[i].sec;

		if (sec == NULL || sec[0] == '\0')
			continue;
		for (k = 0; k < i; k++)	/* once each */
			if (cfg->asked[k].sec != NULL &&
			    strcmp(cfg->asked[k].sec, sec) == 0)
				break;
		if (k < i)
			continue;
		d = cfg_distance(s->name, sec);
		if (d < best_d) {
			best_d = d;
			best = sec;
		}
		if (used < sizeof(list)) {
			n = snprintf(list + used, sizeof(list) - used,
				     "%s[%s]", used == 0 ? "" : ", ", sec);
			if (n > 0)
				used += (size_t)n;
		}
	}
	if (best != NULL && best_d <= 2 && best_d < (int)strlen(s->name))
		return ofan_cfg_fail(cfg, s->name, NULL,
				     "unknown section; did you mean [%s]?",
				     best);
	if (used == 0)
		return ofan_cfg_fail(cfg, s->name, NULL, "unknown section");
	return ofan_cfg_fail(cfg, s->name, NULL,
			     "unknown section; expected one of %s", list);
}

int
ofan_cfg_check_unknown(struct ofan_cfg *cfg)
{
	const struct cfg_section *s;
	int i, j;

	for (i = 0; i < cfg->nb_sections; i++) {
		s = &cfg->sections[i];
		/* A marked section is accepted whole, read or not. */
		if (cfg_was_asked(cfg, s->name, NULL, true))
			continue;
		if (!cfg_was_asked(cfg, s->name, NULL, false)) {
			if (s->name[0] != '\0')
				return cfg_unknown_section(cfg, s);
			return ofan_cfg_fail(cfg, NULL, NULL,
					     "key '%s' is outside any section; "
					     "expected it under a [section]",
					     s->nb_entries > 0 ?
					     s->entries[0].key : "");
		}
		for (j = 0; j < s->nb_entries; j++)
			if (!cfg_was_asked(cfg, s->name, s->entries[j].key,
					   false))
				return cfg_unknown_key(cfg, s, &s->entries[j]);
	}
	return 0;
}
