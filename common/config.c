/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration object (see ofan_config.h): loading, lookup, overrides
 * and the unknown-key check.  The typed getters and value parsers live in
 * config_parse.c and use only the public interface below.
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
#include <sys/mman.h>
#include <unistd.h>

#include <iniparser/iniparser.h>

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

/*
 * iniparser reports syntax errors through a process-wide callback that
 * takes no context pointer.  The only way to keep its message (which has
 * the line number) is a thread-local pointer to a capture on the stack of
 * the loader; it is set only for the duration of iniparser_load().
 */
struct cfg_capture {
	const char *path;	/* what iniparser opened */
	const char *name;	/* what the message says instead */
	char msg[CFG_CAPTURE_SIZE];
};

static __thread struct cfg_capture *cfg_capture;

static int
cfg_capture_cb(const char *fmt, ...)
{
	struct cfg_capture *c = cfg_capture;
	char raw[CFG_CAPTURE_SIZE];
	const char *at = NULL;
	va_list ap;

	/* Keep the first message only: later ones follow from it. */
	if (c == NULL || c->msg[0] != '\0')
		return 0;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* A text from memory is read through a /proc path nobody wrote. */
	if (strcmp(c->path, c->name) != 0)
		at = strstr(raw, c->path);
	if (at == NULL)
		snprintf(c->msg, sizeof(c->msg), "%s", raw);
	else
		snprintf(c->msg, sizeof(c->msg), "%.*s%s%s", (int)(at - raw),
			 raw, c->name, at + strlen(c->path));
	return 0;
}

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
static struct cfg_section *
cfg_find_section_len(const struct ofan_cfg *cfg, const char *sec, size_t len)
{
	int pos = cfg_find(cfg, CFG_K_SECTION, sec, len, NULL);

	return pos < 0 ? NULL : &cfg->sections[pos];
}

static struct cfg_section *
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

static struct cfg_section *
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
static int
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

/*
 * Copy iniparser's dictionary (entries in file order; a section is an
 * entry with a NULL value, a key is "section:key") into cfg.  A key
 * belongs to the longest section name that prefixes it (among the
 * sections before it); keys before any section get the section "".
 * Returns -EINVAL for a section with a blank name: iniparser makes "[ ]"
 * (and "[]" before any section) a section "", whose keys the unknown-key
 * check would then call outside any section.
 */
static int
cfg_import(struct ofan_cfg *cfg, const dictionary *d)
{
	struct cfg_section *best;
	const char *name, *colon;
	size_t best_len;
	int i, rc;

	for (i = 0; i < d->size; i++) {
		name = d->key[i];
		if (name == NULL)
			continue;
		if (d->val[i] == NULL) {
			if (name[0] == '\0')
				return -EINVAL;
			if (cfg_find_section(cfg, name) == NULL &&
			    cfg_add_section(cfg, name) == NULL)
				return -ENOMEM;
			continue;
		}
		/* The longest prefix is the one up to the last possible ':'. */
		best = NULL;
		best_len = strlen(name);
		while (best == NULL &&
		       (colon = memrchr(name, ':', best_len)) != NULL) {
			best_len = (size_t)(colon - name);
			best = cfg_find_section_len(cfg, name, best_len);
		}
		if (best == NULL) {
			best = cfg_find_section(cfg, "");
			if (best == NULL)
				best = cfg_add_section(cfg, "");
			if (best == NULL)
				return -ENOMEM;
			best_len = strcspn(name, ":");
		}
		if (name[best_len] == ':')
			best_len++;
		rc = cfg_put(cfg, best, name + best_len, d->val[i], true, NULL);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Turn iniparser's "iniparser: syntax error in NAME (LINE):\n-> TEXT\n"
 * and "iniparser: input line too long in NAME (LINE)\n" into one line
 * that begins "NAME:LINE: "; other messages are only joined onto one line.
 */
static void
cfg_syntax_message(const char *name, char *msg, char *err, size_t err_size)
{
	static const char too_long[] = "iniparser: input line too long";
	const char *arrow = strstr(msg, "):\n-> ");
	bool syntax = strstr(msg, "syntax error") != NULL && arrow != NULL;
	const char *end = syntax ? arrow : msg + strlen(msg);
	const char *paren = NULL;
	char *p;
	int line;

	/* The line number is in the last " (" (NAME may hold one too). */
	for (p = strstr(msg, " ("); p != NULL && p < end;
	     p = strstr(p + 1, " ("))
		paren = p;
	if (syntax && paren != NULL) {
		line = atoi(paren + 2);
		p = (char *)arrow + strlen("):\n-> ");
		p[strcspn(p, "\n")] = '\0';
		snprintf(err, err_size, "%s:%d: '%s' is not valid INI; "
			 "expected [section], key = value or a comment",
			 name, line, p);
		return;
	}
	/*
	 * iniparser reads a line of at most 1022 characters and its newline,
	 * and takes a NUL byte for the end of a line it then finds too long.
	 */
	if (strncmp(msg, too_long, strlen(too_long)) == 0 && paren != NULL) {
		snprintf(err, err_size, "%s:%d: the line is too long or holds "
			 "a NUL byte; expected text lines of at most 1022 "
			 "characters", name, atoi(paren + 2));
		return;
	}
	for (p = msg; *p != '\0'; p++)
		if (*p == '\n')
			*p = ' ';
	while (p > msg && p[-1] == ' ')
		*--p = '\0';
	if (strncmp(msg, "iniparser: ", strlen("iniparser: ")) == 0)
		msg += strlen("iniparser: ");
	snprintf(err, err_size, "%s: %s", name,
		 msg[0] != '\0' ? msg : "cannot be parsed");
}

/* Fail early, with the system's reason, if path cannot be read. */
static int
cfg_check_readable(const char *path, char *err, size_t err_size)
{
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (f == NULL) {
		rc = -errno;
	} else {
		if (fgetc(f) == EOF && ferror(f))
			rc = errno != 0 ? -errno : -EIO;
		fclose(f);
	}
	if (rc < 0)
		snprintf(err, err_size, "%s: cannot read: %s", path,
			 strerror(-rc));
	return rc;
}

/*
 * The loaders' common part: parse what iniparser reads at path into a
 * configuration called name (its messages and ofan_cfg_path() say name).
 */
static struct ofan_cfg *
cfg_parse(const char *name, const char *path, char *err, size_t err_size)
{
	struct cfg_capture capture = { .path = path, .name = name };
	struct ofan_cfg *cfg;
	dictionary *d;
	int rc;

	cfg_capture = &capture;
	iniparser_set_error_callback(cfg_capture_cb);
	d = iniparser_load(path);
	iniparser_set_error_callback(NULL);
	cfg_capture = NULL;
	if (d == NULL) {
		cfg_syntax_message(name, capture.msg, err, err_size);
		return NULL;
	}

	cfg = calloc(1, sizeof(*cfg));
	rc = cfg == NULL || (cfg->path = strdup(name)) == NULL ? -ENOMEM :
	     cfg_import(cfg, d);
	iniparser_freedict(d);
	if (rc == 0)
		return cfg;
	if (rc == -EINVAL)
		snprintf(err, err_size, "%s: a section has a blank name "
			 "('[ ]', or '[]' before the first section); "
			 "expected [name]", name);
	else
		snprintf(err, err_size, "%s: out of memory", name);
	ofan_cfg_free(cfg);
	return NULL;
}

struct ofan_cfg *
ofan_cfg_load(const char *path, char *err, size_t err_size)
{
	char dummy[1];

	if (err == NULL || err_size == 0) {
		err = dummy;
		err_size = sizeof(dummy);
	}
	err[0] = '\0';
	if (path == NULL) {
		snprintf(err, err_size, "no configuration file given");
		return NULL;
	}
	if (cfg_check_readable(path, err, err_size) < 0)
		return NULL;
	return cfg_parse(path, path, err, err_size);
}

/* Write all of text into fd; 0 or -errno. */
static int
cfg_write_all(int fd, const char *text, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, text, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

struct ofan_cfg *
ofan_cfg_load_mem(const char *name, const char *text, size_t len, char *err,
		  size_t err_size)
{
	struct ofan_cfg *cfg = NULL;
	char dummy[1], proc[64];
	int fd, rc;

	if (err == NULL || err_size == 0) {
		err = dummy;
		err_size = sizeof(dummy);
	}
	err[0] = '\0';
	if (name == NULL || (text == NULL && len > 0)) {
		snprintf(err, err_size, "no configuration text given");
		return NULL;
	}
	/* An anonymous file in memory: nothing touches a disk. */
	fd = memfd_create("ofan-cfg", MFD_CLOEXEC);
	rc = fd < 0 ? -errno : cfg_write_all(fd, text, len);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (rc < 0)
		snprintf(err, err_size, "%s: cannot be held in memory: %s",
			 name, strerror(-rc));
	else
		cfg = cfg_parse(name, proc, err, err_size);
	/* iniparser would only say it cannot open name. */
	if (rc == 0 && cfg == NULL && access(proc, R_OK) != 0)
		snprintf(err, err_size, "%s: cannot be read back through %s: "
			 "%s; expected /proc mounted", name, proc,
			 strerror(errno));
	if (fd >= 0)
		close(fd);
	return cfg;
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

static int
cfg_vfail(struct ofan_cfg *cfg, const char *sec, const char *key,
	  const char *fmt, va_list ap)
{
	const struct cfg_section *s;
	const struct cfg_entry *e = NULL;
	int n;

	/* A value an override set is blamed on the override, not the file. */
	if (sec != NULL && key != NULL && (s = cfg_find_section(cfg, sec)) != NULL)
		e = cfg_find_entry(cfg, s, key);
	if (e != NULL && e->origin != NULL)
		n = snprintf(cfg->err, sizeof(cfg->err), "%s: ", e->origin);
	else if (sec == NULL)
		n = snprintf(cfg->err, sizeof(cfg->err), "%s: ", cfg->path);
	else if (key == NULL)
		n = snprintf(cfg->err, sizeof(cfg->err), "%s:%s: ", cfg->path,
			     sec);
	else
		n = snprintf(cfg->err, sizeof(cfg->err), "%s:%s:%s: ",
			     cfg->path, sec, key);
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
	if (s == NULL)
		s = cfg_add_section(cfg, sec);
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
				return ofan_cfg_fail(cfg, s->name, NULL,
						     "unknown section");
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

int
ofan_cfg_load_with(const char *path,
		   int (*fill)(struct ofan_cfg *cfg, void *arg), void *arg,
		   char *err, size_t err_size)
{
	struct ofan_cfg *cfg = ofan_cfg_load(path, err, err_size);
	int rc;

	if (cfg == NULL)
		return -EINVAL;
	rc = fill(cfg, arg);
	if (rc != 0)
		snprintf(err, err_size, "%s", ofan_cfg_error(cfg));
	ofan_cfg_free(cfg);
	return rc;
}
