/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-htsim's validation plans (its datacenter/validate.py's input) read
 * as they are, and each experiment's htsim_uec parameters mapped to
 * ofan-fabric settings (docs/uec.md, "The plan runner").
 *
 * A plan is a list of experiments.  Each opens with the path of its
 * connection matrix on a line of its own, followed by lines that begin
 * with '!': `!Experiment NAME`, `!Binary PATH`, `!Param ARGS` (one or
 * more htsim_uec parameters), `!tailFCT US` (the latest flow's finish
 * time must not exceed it), `!FCT FLOW US`.  Lines that begin with '#'
 * and blank lines are skipped.
 *
 * Pure C, no EAL; the reader is fuzzed (tests/fuzz/fuzz_plan.c).
 */
#ifndef OFAN_HTSIM_PLAN_H
#define OFAN_HTSIM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HP_MAX_ARGS 48		/* parameter words of one experiment */
#define HP_MAX_FCT 16		/* !FCT targets of one experiment */
#define HP_MAX_OVERRIDES 48	/* ofan-fabric settings one maps to */
#define HP_OVERRIDE_LEN 512

/* A parameter word and the plan line it came from. */
struct hp_word {
	char *text;
	uint32_t line;
};

struct hp_fct {
	char *flow;
	double us;
	uint32_t line;
};

struct hp_experiment {
	char *name;		/* !Experiment; "" when absent */
	char *matrix;		/* the path on the block's first line */
	char *binary;		/* !Binary; NULL when absent */
	uint32_t line;		/* the matrix path's line */
	uint32_t nb_words;
	struct hp_word words[HP_MAX_ARGS];
	bool has_tail;
	double tail_us;		/* !tailFCT */
	uint32_t tail_line;
	uint32_t nb_fct;
	struct hp_fct fct[HP_MAX_FCT];
};

struct hp_plan {
	struct hp_experiment *x;
	uint32_t nb;
};

/*
 * Read a plan's text (len bytes, not NUL-terminated) from file.  Returns
 * 0, or -1 with "FILE:LINE: what" in err; p is then empty.
 */
int hp_plan_parse(const char *file, const char *text, size_t len,
		  struct hp_plan *p, char *err, size_t err_size);

void hp_plan_free(struct hp_plan *p);

/* What one experiment becomes in ofan-fabric. */
struct hp_run {
	uint32_t nb_overrides;
	char overrides[HP_MAX_OVERRIDES][HP_OVERRIDE_LEN];	/* sec.key=value */
	uint32_t nodes;		/* the matrix's Nodes */
	uint32_t connections;	/* its Connections: what validate.py counts */
	bool conn_reuse;	/* -conn_reuse: a flow's messages folded */
	double end_us;		/* -end */
};

/*
 * Map x's parameters (read from plan file `file`) to ofan-fabric
 * overrides, reading its matrix (and -topo file) relative to dir, or as
 * given when absolute.  Returns 0, or -1 with "FILE:LINE: PARAM: why" in
 * err: a parameter htsim_uec does not have, one ofan cannot honour, a
 * missing or unreadable matrix, a topology ofan cannot build.
 */
int hp_map(const struct hp_experiment *x, const char *file, const char *dir,
	   struct hp_run *r, char *err, size_t err_size);

/*
 * With -conn_reuse a flow's lines (one id, `msg` after the first) are its
 * messages, sent back to back on one connection: write the matrix with
 * each flow's messages as one flow of their total size to out, and the
 * number of those flows to *nb_flows.  Returns 0, or -1 with the reason
 * in err.
 */
int hp_fold_messages(const char *matrix, const char *out, uint32_t *nb_flows,
		     char *err, size_t err_size);

#endif /* OFAN_HTSIM_PLAN_H */
