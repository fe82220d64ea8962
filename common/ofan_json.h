/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small streaming JSON writer for stats and results files.  It tracks
 * nesting and commas, escapes strings and writes numbers exactly (integers
 * as integers, doubles with %.9g, non-finite doubles as null).  Writes go
 * to a FILE; errors are sticky and reported by ofan_json_finish().
 */
#ifndef OFAN_JSON_H
#define OFAN_JSON_H

#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>

#define OFAN_JSON_MAX_DEPTH 16

struct ofan_json {
	FILE *f;
	int depth;
	bool need_comma[OFAN_JSON_MAX_DEPTH];
	bool pretty;
	int error;
};

/* Start writing to f (not closed by the writer). */
void ofan_json_init(struct ofan_json *j, FILE *f, bool pretty);

/*
 * Objects and arrays.  key is the member name inside an object and must
 * be NULL inside an array or at top level.
 */
void ofan_json_obj_begin(struct ofan_json *j, const char *key);
void ofan_json_obj_end(struct ofan_json *j);
void ofan_json_arr_begin(struct ofan_json *j, const char *key);
void ofan_json_arr_end(struct ofan_json *j);

void ofan_json_u64(struct ofan_json *j, const char *key, uint64_t v);
void ofan_json_i64(struct ofan_json *j, const char *key, int64_t v);
void ofan_json_double(struct ofan_json *j, const char *key, double v);
void ofan_json_bool(struct ofan_json *j, const char *key, bool v);
void ofan_json_str(struct ofan_json *j, const char *key, const char *v);

/*
 * Finish (newline, flush).  Returns 0, -EIO if any write failed, or
 * -EINVAL if objects or arrays were left open.
 */
int ofan_json_finish(struct ofan_json *j);

#endif /* OFAN_JSON_H */
