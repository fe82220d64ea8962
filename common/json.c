/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The streaming JSON writer (see ofan_json.h).
 *
 * Every value goes through ofan_json_prefix(), which writes the comma that
 * separates it from the previous member of the enclosing container, the
 * newline and indentation in pretty mode, and the member name.  Containers
 * only have to remember whether they already hold a member.  The first
 * failed write (or misuse such as nesting too deep) is kept in j->error and
 * later calls write nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "ofan_json.h"

static void
ofan_json_put(struct ofan_json *j, const char *s)
{
	if (j->error == 0 && fputs(s, j->f) == EOF)
		j->error = -EIO;
}

static void
ofan_json_indent(struct ofan_json *j)
{
	int i;

	if (!j->pretty)
		return;
	ofan_json_put(j, "\n");
	for (i = 0; i < j->depth; i++)
		ofan_json_put(j, "  ");
}

static void
ofan_json_string(struct ofan_json *j, const char *s)
{
	char esc[8];
	const unsigned char *p;

	ofan_json_put(j, "\"");
	for (p = (const unsigned char *)s; *p != '\0' && j->error == 0; p++) {
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			esc[2] = '\0';
		} else if (*p < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
		} else {
			esc[0] = (char)*p;
			esc[1] = '\0';
		}
		ofan_json_put(j, esc);
	}
	ofan_json_put(j, "\"");
}

/* Separator, indentation and "key": before a value. */
static void
ofan_json_prefix(struct ofan_json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->need_comma[j->depth])
			ofan_json_put(j, ",");
		ofan_json_indent(j);
	} else if (j->need_comma[0]) {
		/* Several top-level values: one per line (JSON Lines). */
		ofan_json_put(j, "\n");
	}
	j->need_comma[j->depth] = true;
	if (key != NULL) {
		ofan_json_string(j, key);
		ofan_json_put(j, j->pretty ? ": " : ":");
	}
}

static void
ofan_json_begin(struct ofan_json *j, const char *key, const char *open)
{
	ofan_json_prefix(j, key);
	if (j->depth + 1 >= OFAN_JSON_MAX_DEPTH) {
		if (j->error == 0)
			j->error = -EINVAL;
		return;
	}
	ofan_json_put(j, open);
	j->depth++;
	j->need_comma[j->depth] = false;
}

static void
ofan_json_end(struct ofan_json *j, const char *close)
{
	if (j->depth == 0) {
		if (j->error == 0)
			j->error = -EINVAL;
		return;
	}
	j->depth--;
	/* An empty container stays on one line: {} or []. */
	if (j->need_comma[j->depth + 1])
		ofan_json_indent(j);
	ofan_json_put(j, close);
}

void
ofan_json_init(struct ofan_json *j, FILE *f, bool pretty)
{
	int i;

	j->f = f;
	j->depth = 0;
	for (i = 0; i < OFAN_JSON_MAX_DEPTH; i++)
		j->need_comma[i] = false;
	j->pretty = pretty;
	j->error = 0;
}

void
ofan_json_obj_begin(struct ofan_json *j, const char *key)
{
	ofan_json_begin(j, key, "{");
}

void
ofan_json_obj_end(struct ofan_json *j)
{
	ofan_json_end(j, "}");
}

void
ofan_json_arr_begin(struct ofan_json *j, const char *key)
{
	ofan_json_begin(j, key, "[");
}

void
ofan_json_arr_end(struct ofan_json *j)
{
	ofan_json_end(j, "]");
}

void
ofan_json_u64(struct ofan_json *j, const char *key, uint64_t v)
{
	char buf[24];

	ofan_json_prefix(j, key);
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	ofan_json_put(j, buf);
}

void
ofan_json_i64(struct ofan_json *j, const char *key, int64_t v)
{
	char buf[24];

	ofan_json_prefix(j, key);
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	ofan_json_put(j, buf);
}

void
ofan_json_double(struct ofan_json *j, const char *key, double v)
{
	char buf[32];

	ofan_json_prefix(j, key);
	if (!isfinite(v)) {
		ofan_json_put(j, "null");
		return;
	}
	snprintf(buf, sizeof(buf), "%.9g", v);
	ofan_json_put(j, buf);
}

void
ofan_json_bool(struct ofan_json *j, const char *key, bool v)
{
	ofan_json_prefix(j, key);
	ofan_json_put(j, v ? "true" : "false");
}

void
ofan_json_str(struct ofan_json *j, const char *key, const char *v)
{
	ofan_json_prefix(j, key);
	if (v == NULL)
		ofan_json_put(j, "null");
	else
		ofan_json_string(j, v);
}

int
ofan_json_finish(struct ofan_json *j)
{
	/* Unclosed containers are a misuse: the output is not JSON. */
	if (j->depth != 0 && j->error == 0)
		j->error = -EINVAL;
	ofan_json_put(j, "\n");
	if (fflush(j->f) == EOF || ferror(j->f))
		if (j->error == 0)
			j->error = -EIO;
	return j->error;
}
