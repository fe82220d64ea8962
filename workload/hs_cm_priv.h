/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the .cm reader: the parser state and limits that hs_cm.c (one
 * line at a time) and hs_cm_file.c (the whole file: ids, triggers,
 * cycles, the entry points) share.  Not an interface.
 */
#ifndef OFAN_HS_CM_PRIV_H
#define OFAN_HS_CM_PRIV_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_cm.h"
#include "ofan_config.h"
#include "ofan_rng.h"

/* htsim keeps counts, ids and sizes in ints. */
#define CM_INT_MAX 2147483647u
/* The longest line form has 15 fields; more is reported, not split. */
#define CM_MAX_TOKENS 32
/* How much of an offending text an error message quotes. */
#define CM_QUOTE_MAX 80
#define CM_TEXT_SIZE 256
#define CM_WHAT_SIZE 200
#define CM_EXPECT_SIZE 200
#define CM_PS_PER_NS 1000u

#define CM_EXPECT_FLOW \
	"SRC->DST [id I] [start T] [size B] [trigger X] " \
	"[send_done_trigger Y] [recv_done_trigger Z] [prio P]"
#define CM_EXPECT_TRIGGER "trigger id N oneshot|multishot|barrier [count K]"
#define CM_EXPECT_FAILURE \
	"failure switch_type TOR|AGG|CORE switch_id S link_id L"
#define CM_EXPECT_TIME \
	"whole picoseconds (2500000) or a time with a unit (2.5us, 250ns)"
#define CM_EXPECT_SIZE_B "a whole number of bytes from 1 to 2147483647"
#define CM_EXPECT_ID "an integer from 1 to 2147483647"
#define CM_EXPECT_SPACES \
	"fields separated by single spaces, as htsim splits them"



enum cm_head { CM_NODES = 0, CM_CONNS, CM_TRIGS, CM_FAILS, CM_NB_HEAD };

extern const char *const cm_head_names[CM_NB_HEAD];

/* A flow's trigger references as written, resolved at the end. */
enum cm_ref { CM_REF_START = 0, CM_REF_SEND, CM_REF_RECV, CM_NB_REF };

extern const char *const cm_ref_names[CM_NB_REF];

struct cm_flow_extra {
	uint32_t ref[CM_NB_REF];	/* trigger ids, 0: none */
	uint64_t line;
};

/* Open addressing: id -> index (and the line it was defined on). */
struct cm_slot {
	uint32_t id;		/* 0: empty (ids are >= 1) */
	uint32_t index;
	uint64_t line;
};

struct cm_map {
	struct cm_slot *slot;
	uint32_t cap;		/* power of two */
	uint32_t n;
};

struct cm_parser {
	const char *name;
	uint32_t nb_ranks_expected;
	char *err;
	unsigned int err_size;

	uint64_t line;
	char *tok[CM_MAX_TOKENS];
	unsigned int nb_tok;

	bool in_body;
	bool have[CM_NB_HEAD];
	uint32_t head[CM_NB_HEAD];

	struct hs_flow_spec *flows;
	struct cm_flow_extra *extra;
	uint32_t nb_flows, flows_cap, extra_cap;
	struct hs_trigger *trigs;
	uint32_t nb_trigs, trigs_cap;
	struct hs_cm_failure *fails;
	uint32_t nb_fails, fails_cap;
	struct cm_map flow_ids;
	struct cm_map trig_ids;
};


/* ---- shared by hs_cm.c (lines) and hs_cm_file.c (the whole file) ---- */

/* "NAME:LINE: WHAT 'TEXT'; expected EXPECT"; returns -EINVAL. */
int cm_fail(struct cm_parser *p, const char *what, const char *text,
	    const char *expect);
/* The same about another line (trigger checks at the end of the file). */
int cm_fail_at(struct cm_parser *p, uint64_t line, const char *what,
	       const char *text, const char *expect);
/* "NAME: ..." about the file as a whole; returns -EINVAL. */
int cm_fail_file(struct cm_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The slot of id in m, NULL if absent. */
const struct cm_slot *cm_map_find(const struct cm_map *m, uint32_t id);
/* Parse line p->line, s[0 .. len) (NUL-terminated, writable). */
int cm_line(struct cm_parser *p, char *s, size_t len);

#endif /* OFAN_HS_CM_PRIV_H */
