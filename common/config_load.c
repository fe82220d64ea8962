/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loading a configuration (ofan_config.h): a file, or a text in memory
 * through a memfd, read by iniparser and copied into the object's plain
 * arrays (config_priv.h); iniparser's messages turned into "NAME:LINE: ".
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

#include "config_priv.h"

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

/* One key seen by cfg_check_repeats(): section and key, lower case. */
struct cfg_seen {
	char *name;	/* "section:key" */
	int line;
};

/* s without leading and trailing blanks, in place. */
static char *
cfg_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
			 e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/*
 * iniparser keeps the last of a key set twice in one section, silently:
 * a config that says a value twice is refused instead, naming both lines.
 * The scan follows iniparser's lines: blanks trimmed, ';' and '#'
 * comments, "[section]", "key = value", a trailing '\' continuing a line;
 * sections and keys are case-insensitive, and a section opened again
 * continues the first.  0, -EINVAL with the message in err, or -ENOMEM.
 */
static int
cfg_check_repeats(const char *name, const char *path, char *err,
		  size_t err_size)
{
	struct cfg_seen *seen = NULL;
	size_t nb = 0, cap = 0, i;
	char line[2048], sec[1024] = "", *l, *eq, *p;
	int lineno = 0, rc = 0, start;
	bool cont = false;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;	/* iniparser read it; its reading says the rest */
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		l = cfg_trim(line);
		if (cont) {	/* a continued value: no key on this line */
			cont = l[0] != '\0' && l[strlen(l) - 1] == '\\';
			continue;
		}
		cont = l[0] != '\0' && l[strlen(l) - 1] == '\\';
		if (l[0] == '\0' || l[0] == ';' || l[0] == '#')
			continue;
		if (l[0] == '[') {
			p = strchr(l, ']');
			/* "[]" after a section is that section again. */
			if (p != NULL && cfg_trim(l + 1)[0] != ']') {
				*p = '\0';
				snprintf(sec, sizeof(sec), "%s", cfg_trim(l + 1));
				for (p = sec; *p != '\0'; p++)
					*p = (char)tolower((unsigned char)*p);
			}
			continue;
		}
		eq = strchr(l, '=');
		if (eq == NULL)
			continue;
		*eq = '\0';
		l = cfg_trim(l);
		for (p = l; *p != '\0'; p++)
			*p = (char)tolower((unsigned char)*p);
		if (nb == cap) {
			struct cfg_seen *n = realloc(seen, (cap = cap ? 2 * cap : 64) *
						     sizeof(*seen));

			if (n == NULL) {
				rc = -ENOMEM;
				break;
			}
			seen = n;
		}
		if (asprintf(&seen[nb].name, "%s:%s", sec, l) < 0) {
			rc = -ENOMEM;
			break;
		}
		start = lineno;
		for (i = 0; i < nb; i++)
			if (strcmp(seen[i].name, seen[nb].name) == 0)
				break;
		if (i < nb) {
			snprintf(err, err_size, "%s:%d: [%s] %s is set again "
				 "(first on line %d); expected each key once "
				 "in a section", name, start, sec, l,
				 seen[i].line);
			rc = -EINVAL;
		}
		seen[nb++].line = start;
	}
	fclose(f);
	for (i = 0; i < nb; i++)
		free(seen[i].name);
	free(seen);
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
	rc = cfg_check_repeats(name, path, err, err_size);
	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(err, err_size, "%s: out of memory", name);
		iniparser_freedict(d);
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
