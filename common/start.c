/* SPDX-License-Identifier: BSD-3-Clause */
/* The common start of a testbed's processes (see ofan_start.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ofan_config.h"
#include "ofan_start.h"

int
ofan_start_parse(const char *arg, struct ofan_start *s)
{
	memset(s, 0, sizeof(*s));
	if (arg[0] == '@') {
		if (arg[1] == '\0' || strlen(arg + 1) >= sizeof(s->path))
			return -EINVAL;
		snprintf(s->path, sizeof(s->path), "%s", arg + 1);
		return 0;
	}
	return ofan_parse_epoch(arg, &s->at_ns) != 0 || s->at_ns == 0 ?
	       -EINVAL : 0;
}

int
ofan_start_poll(struct ofan_start *s, char *err, size_t err_size)
{
	char text[64] = "";
	size_t len;
	FILE *f;

	if (s->at_ns != 0)
		return 1;
	f = fopen(s->path, "r");
	if (f == NULL) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, err_size, "%s: cannot read: %s", s->path,
			 strerror(errno));
		return -errno;
	}
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	/* Written but not ended yet (no atomic rename): ask again. */
	if (len == 0 || text[len - 1] != '\n')
		return len == sizeof(text) - 1 ? -EINVAL : 0;
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	if (ofan_parse_epoch(text, &s->at_ns) != 0 || s->at_ns == 0) {
		s->at_ns = 0;
		snprintf(err, err_size, "%s: '%s' is not a moment; expected seconds since the Unix epoch, e.g. 1764633600.25",
			 s->path, text);
		return -EINVAL;
	}
	return 1;
}
