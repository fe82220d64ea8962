/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the reader of uet-htsim's validation plans
 * (hp_plan_parse() and hp_map(), tools/htsim-plan/htsim_plan.c), from
 * memory.
 *
 * A rejected plan must say where: its message starts with the name and a
 * line ("fuzz.txt:N: ") or is about the whole file ("fuzz.txt: "), and
 * leaves the plan empty.  An accepted one must hold what the runner
 * relies on: at least one experiment, each with a matrix path and a
 * name, its parameter words and targets within their bounds and their
 * lines within the file, in order.  Each experiment with a relative
 * matrix path is then mapped under a folder that does not exist, so the
 * mapping fails on the matrix or on a parameter, naming the file; then
 * everything is freed (ASan checks the leaks).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htsim_plan.h"

#define NAME "fuzz.txt"

static uint32_t
fuzz_lines(const uint8_t *data, size_t size)
{
	uint32_t n = 1;
	size_t i;

	for (i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

/* err names NAME and a line in [1, lines], or NAME alone. */
static void
fuzz_check_where(const char *err, uint32_t lines)
{
	unsigned long line;
	char *end;

	if (strncmp(err, NAME ":", sizeof(NAME)) != 0)
		abort();
	if (err[sizeof(NAME)] == ' ')
		return;
	line = strtoul(err + sizeof(NAME), &end, 10);
	if (end == err + sizeof(NAME) || *end != ':' || line < 1 ||
	    line > lines)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t lines = fuzz_lines(data, size), i, k, last = 0;
	static struct hp_run run;
	struct hp_plan p;
	char err[4096];

	if (hp_plan_parse(NAME, (const char *)data, size, &p, err,
			  sizeof(err)) != 0) {
		fuzz_check_where(err, lines);
		if (p.nb != 0 || p.x != NULL)
			abort();
		return 0;
	}
	if (p.nb == 0)
		abort();
	for (i = 0; i < p.nb; i++) {
		const struct hp_experiment *x = &p.x[i];

		if (x->matrix == NULL || x->matrix[0] == '\0' ||
		    x->name == NULL || x->line <= last || x->line > lines ||
		    x->nb_words > HP_MAX_ARGS || x->nb_fct > HP_MAX_FCT ||
		    (x->has_tail && (x->tail_us < 0 ||
				     x->tail_line <= x->line ||
				     x->tail_line > lines)))
			abort();
		last = x->line;
		for (k = 0; k < x->nb_words; k++)
			if (x->words[k].text == NULL ||
			    x->words[k].text[0] == '\0' ||
			    x->words[k].line <= x->line ||
			    x->words[k].line > lines)
				abort();
		for (k = 0; k < x->nb_fct; k++)
			if (x->fct[k].flow == NULL || x->fct[k].us < 0)
				abort();
		/*
		 * No such folder: the mapping must fail, and say where.  (An
		 * absolute path would be opened as it is: not here.)
		 */
		if (x->matrix[0] == '/')
			continue;
		if (hp_map(x, NAME, "/nonexistent-ofan-fuzz", &run, err,
			   sizeof(err)) == 0)
			abort();
		if (run.nb_overrides > HP_MAX_OVERRIDES)
			abort();
		if (strncmp(err, NAME ":", sizeof(NAME)) != 0)
			abort();
	}
	hp_plan_free(&p);
	return 0;
}
