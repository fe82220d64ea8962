/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-htsim's plans read, and htsim_uec's parameters mapped to
 * ofan-fabric settings (htsim_plan.h).  The numbers htsim_uec derives
 * from its parameters (network RTT, BDP, queue size, ECN thresholds, the
 * RTO) are derived here the same way (datacenter/main_uec.cpp at
 * 40ccb05, lines cited) and given to ofan-fabric explicitly, so that a
 * parameter moves them as it moves htsim_uec's.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htsim_plan.h"

#define HP_HDR 64		/* UEC header bytes (uec.cpp:28) */
#define HP_IP_HDRS 40		/* ofan's IPv4 + UDP + BTH before a payload */
#define HP_MAX_PORTS 64		/* ofan-fabric's switch ports (SW_MAX_PORTS) */
#define HP_MAX_K 24		/* ofan-fabric's largest fat tree */
#define HP_MAX_PATHS 256	/* hlb_uec.h's HLB_UEC_MAX_PATHS */

/* ---- the reader ---- */

static void __attribute__((format(printf, 3, 4)))
hp_err(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
}

static char *
hp_strndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* s without leading and trailing blanks, as a new string. */
static char *
hp_trimdup(const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return hp_strndup(s, n);
}

static void
hp_experiment_free(struct hp_experiment *x)
{
	uint32_t i;

	free(x->name);
	free(x->matrix);
	free(x->binary);
	for (i = 0; i < x->nb_words; i++)
		free(x->words[i].text);
	for (i = 0; i < x->nb_fct; i++)
		free(x->fct[i].flow);
	memset(x, 0, sizeof(*x));
}

void
hp_plan_free(struct hp_plan *p)
{
	uint32_t i;

	for (i = 0; i < p->nb; i++)
		hp_experiment_free(&p->x[i]);
	free(p->x);
	p->x = NULL;
	p->nb = 0;
}

/* A number of microseconds: finite, not negative, nothing after it. */
static int
hp_us(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(*out) ||
	    *out < 0)
		return -1;
	return 0;
}

/* !Param's words appended to x. */
static int
hp_add_words(struct hp_experiment *x, const char *rest, uint32_t line,
	     const char *file, char *err, size_t n)
{
	const char *s = rest;

	for (;;) {
		const char *w;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			return 0;
		w = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
		if (x->nb_words == HP_MAX_ARGS) {
			hp_err(err, n, "%s:%u: more than %u parameter words in one experiment",
			       file, line, HP_MAX_ARGS);
			return -1;
		}
		x->words[x->nb_words].text = hp_strndup(w, (size_t)(s - w));
		if (x->words[x->nb_words].text == NULL) {
			hp_err(err, n, "%s:%u: out of memory", file, line);
			return -1;
		}
		x->words[x->nb_words++].line = line;
	}
}

/* One '!' line of experiment x: its keyword and what follows. */
static int
hp_bang(struct hp_experiment *x, char *s, uint32_t line, const char *file,
	char *err, size_t n)
{
	char *kw = s + 1, *rest = kw;

	while (*rest != '\0' && *rest != ' ' && *rest != '\t')
		rest++;
	if (*rest != '\0')
		*rest++ = '\0';
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (strcmp(kw, "Experiment") == 0) {
		free(x->name);
		x->name = strdup(rest);
		return x->name == NULL ? -1 : 0;
	}
	if (strcmp(kw, "Binary") == 0) {
		free(x->binary);
		x->binary = strdup(rest);
		return x->binary == NULL ? -1 : 0;
	}
	if (strcmp(kw, "Param") == 0)
		return hp_add_words(x, rest, line, file, err, n);
	if (strcmp(kw, "tailFCT") == 0) {
		if (x->has_tail || hp_us(rest, &x->tail_us) != 0) {
			hp_err(err, n, "%s:%u: !tailFCT: '%s' %s", file, line,
			       rest, x->has_tail ? "is a second target" :
			       "is not a time in microseconds (a number >= 0)");
			return -1;
		}
		x->has_tail = true;
		x->tail_line = line;
		return 0;
	}
	if (strcmp(kw, "FCT") == 0) {
		char *flow = rest, *us = rest;
		struct hp_fct *f;

		while (*us != '\0' && *us != ' ' && *us != '\t')
			us++;
		if (*us != '\0')
			*us++ = '\0';
		while (*us == ' ' || *us == '\t')
			us++;
		if (x->nb_fct == HP_MAX_FCT || *flow == '\0') {
			hp_err(err, n, "%s:%u: !FCT: %s", file, line,
			       *flow == '\0' ? "no flow named (!FCT FLOW US)" :
			       "too many flow targets");
			return -1;
		}
		f = &x->fct[x->nb_fct];
		if (hp_us(us, &f->us) != 0) {
			hp_err(err, n, "%s:%u: !FCT %s: '%s' is not a time in microseconds",
			       file, line, flow, us);
			return -1;
		}
		f->flow = strdup(flow);
		f->line = line;
		if (f->flow == NULL)
			return -1;
		x->nb_fct++;
		return 0;
	}
	hp_err(err, n, "%s:%u: '!%s' is not a plan keyword; expected !Experiment, !Binary, !Param, !tailFCT or !FCT",
	       file, line, kw);
	return -1;
}

/* A new experiment for the matrix path s at line. */
static struct hp_experiment *
hp_open(struct hp_plan *p, uint32_t *cap, const char *s, size_t len,
	uint32_t line)
{
	struct hp_experiment *x;

	if (p->nb == *cap) {
		uint32_t c = *cap ? *cap * 2 : 16;
		struct hp_experiment *nx = realloc(p->x, c * sizeof(*nx));

		if (nx == NULL)
			return NULL;
		p->x = nx;
		*cap = c;
	}
	x = &p->x[p->nb];
	memset(x, 0, sizeof(*x));
	x->matrix = hp_trimdup(s, len);
	x->name = strdup("");
	x->line = line;
	if (x->matrix == NULL || x->name == NULL) {
		hp_experiment_free(x);
		return NULL;
	}
	p->nb++;
	return x;
}

int
hp_plan_parse(const char *file, const char *text, size_t len,
	      struct hp_plan *p, char *err, size_t err_size)
{
	struct hp_experiment *x = NULL;
	uint32_t line = 0, cap = 0;
	size_t at = 0;

	memset(p, 0, sizeof(*p));
	while (at < len) {
		size_t end = at, n;
		char *s;

		while (end < len && text[end] != '\n')
			end++;
		line++;
		n = end - at;
		if (memchr(text + at, '\0', n) != NULL) {
			hp_err(err, err_size, "%s:%u: a NUL byte in the line",
			       file, line);
			goto fail;
		}
		s = hp_trimdup(text + at, n);
		at = end + 1;
		if (s == NULL)
			goto oom;
		if (s[0] == '\0' || s[0] == '#') {
			free(s);
			continue;
		}
		if (s[0] == '!') {
			if (x == NULL) {
				hp_err(err, err_size, "%s:%u: '%s' before any experiment (a connection matrix's path opens one)",
				       file, line, s);
				free(s);
				goto fail;
			}
			if (hp_bang(x, s, line, file, err, err_size) != 0) {
				free(s);
				goto fail;
			}
			free(s);
			continue;
		}
		x = hp_open(p, &cap, s, strlen(s), line);
		free(s);
		if (x == NULL)
			goto oom;
	}
	if (p->nb == 0) {
		hp_err(err, err_size, "%s: no experiment (a connection matrix's path, then its ! lines)",
		       file);
		goto fail;
	}
	return 0;
oom:
	hp_err(err, err_size, "%s:%u: out of memory", file, line);
fail:
	hp_plan_free(p);
	return -1;
}

/* ---- the mapping ---- */

/* htsim_uec's settings as one experiment's parameters leave them. */
struct hp_cfg {
	uint64_t linkspeed_bps;		/* -linkspeed (Mb/s), 100G */
	uint32_t mtu;			/* -mtu, 4150 with the header */
	double hop_us;			/* -hop_latency, 1 */
	uint32_t tiers;			/* -tiers, 3 */
	double end_us;			/* -end, 1000 */
	int64_t q_pkts;			/* -q, -1: from the BDP */
	int64_t ecn_lo, ecn_hi;		/* -ecn, -1: from the BDP */
	bool trim;			/* !-disable_trim */
	const char *policy;		/* -load_balancing_algo, mixed */
	int64_t paths;			/* -paths, -1: the policy's 64 */
	int64_t sack_threshold;		/* -sack_threshold, 16384 */
	int64_t cwnd_pkts;		/* -cwnd, -1 */
	double target_us;		/* -target_q_delay, 0: NSCC's own */
	int64_t qa_gate;		/* -qa_gate, -1 */
	int64_t trimsize;		/* -trimsize: a cut packet's bytes, 64 */
	int64_t failed;			/* -failed, 0 */
	int64_t nodes;			/* -nodes, 0 */
	int64_t seed;			/* -seed, -1 */
	bool conn_reuse;
	bool sender_cc;			/* NSCC (default on, main_uec.cpp:111) */
	bool receiver_cc;		/* RCCC (default off) */
	bool no_osc;			/* -force_disable_oversubscribed_cc */
	const char *topo;		/* -topo */
	uint32_t topo_line;
};

/* The block being mapped, for the messages. */
struct hp_ctx {
	const struct hp_experiment *x;
	const char *file;
	const char *dir;
	char *err;
	size_t err_size;
	struct hp_run *r;
};

static int __attribute__((format(printf, 3, 4)))
hp_bad(const struct hp_ctx *c, const struct hp_word *w, const char *fmt, ...)
{
	char why[2560];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (w != NULL)
		hp_err(c->err, c->err_size, "%s:%u: %s: %s", c->file, w->line,
		       w->text, why);
	else
		hp_err(c->err, c->err_size, "%s:%u: %s", c->file, c->x->line,
		       why);
	return -1;
}

static int __attribute__((format(printf, 2, 3)))
hp_set(struct hp_ctx *c, const char *fmt, ...)
{
	struct hp_run *r = c->r;
	va_list ap;
	int len;

	if (r->nb_overrides == HP_MAX_OVERRIDES) {
		hp_err(c->err, c->err_size, "%s:%u: too many settings",
		       c->file, c->x->line);
		return -1;
	}
	va_start(ap, fmt);
	len = vsnprintf(r->overrides[r->nb_overrides], HP_OVERRIDE_LEN, fmt,
			ap);
	va_end(ap);
	if (len < 0 || len >= HP_OVERRIDE_LEN) {
		hp_err(c->err, c->err_size, "%s:%u: a setting too long",
		       c->file, c->x->line);
		return -1;
	}
	r->nb_overrides++;
	return 0;
}

/* text as an integer in [0, 1000000]. */
static int
hp_int_text(const char *text, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (*end != '\0' || end == text || errno != 0 || v < 0 || v > 1000000)
		return -1;
	*out = v;
	return 0;
}

/* The word after w, as an integer in [min, max]. */
static int
hp_int_arg(const struct hp_ctx *c, uint32_t *i, int64_t min, int64_t max,
	   int64_t *out)
{
	const struct hp_word *w = &c->x->words[*i];
	char *end;
	long long v;

	if (*i + 1 >= c->x->nb_words)
		return hp_bad(c, w, "needs a value");
	errno = 0;
	v = strtoll(c->x->words[*i + 1].text, &end, 10);
	if (*end != '\0' || end == c->x->words[*i + 1].text || errno != 0 ||
	    v < min || v > max)
		return hp_bad(c, w, "'%s' is not an integer in [%lld, %lld]",
			      c->x->words[*i + 1].text, (long long)min,
			      (long long)max);
	*out = v;
	(*i)++;
	return 0;
}

/* The word after w, as a number in [min, max]. */
static int
hp_num_arg(const struct hp_ctx *c, uint32_t *i, double min, double max,
	   double *out)
{
	const struct hp_word *w = &c->x->words[*i];
	char *end;

	if (*i + 1 >= c->x->nb_words)
		return hp_bad(c, w, "needs a value");
	errno = 0;
	*out = strtod(c->x->words[*i + 1].text, &end);
	if (*end != '\0' || end == c->x->words[*i + 1].text || errno != 0 ||
	    !isfinite(*out) || *out < min || *out > max)
		return hp_bad(c, w, "'%s' is not a number in [%g, %g]",
			      c->x->words[*i + 1].text, min, max);
	(*i)++;
	return 0;
}

/* htsim_uec's parameters ofan has no counterpart for, and why. */
static const struct {
	const char *name;
	const char *why;
} hp_unmapped[] = {
	{ "-sender_cc_algo", "ofan's UEC sender runs NSCC only (dctcp and constant are not mapped)" },
	{ "-planes", "multi-plane fabrics are not mapped" },
	{ "-strat", "htsim's switch strategies are not mapped (ofan's switches hash per packet, as ECMP)" },
	{ "-queue_type", "htsim's queue types are not mapped (ofan's queue trims as composite)" },
	{ "-host_queue_type", "htsim's host queue types are not mapped" },
	{ "-queue_size_bdp_factor", "not mapped" },
	{ "-switch_latency", "switch latency is not mapped (ofan's switches take no time)" },
	{ "-enable_accurate_base_rtt", "per-pair base RTTs are not mapped" },
	{ "-disable_base_rtt_update_on_nack", "not mapped" },
	{ "-sleek", "SLEEK loss recovery is not in ofan" },
	{ "-pcie", "the PCIe model is not in ofan" },
	{ "-oversubscribed_cc", "the oversubscription CC without an oversubscribed .topo is not mapped" },
	{ "-Ai", "the oversubscription CC's constants are not mapped" },
	{ "-Md", "the oversubscription CC's constants are not mapped" },
	{ "-alpha", "the oversubscription CC's constants are not mapped" },
	{ "-ar_sticky_delta", "adaptive routing is not mapped" },
	{ "-ar_granularity", "adaptive routing is not mapped" },
	{ "-ar_method", "adaptive routing is not mapped" },
	{ "-tm", "the matrix is the block's first line" },
	{ "-o", "ofan writes its own results" },
	{ "-log", "ofan writes its own results" },
	{ "-logtime", "ofan writes its own results" },
	{ "-logtime_us", "ofan writes its own results" },
	{ "-debug", "not mapped" },
};

static const char *const hp_mapped_list =
	"-end, -paths, -sender_cc_only, -sender_cc, -receiver_cc_only, "
	"-receiver_cc, -load_balancing_algo, "
	"-failed, -sack_threshold, -q, -conn_reuse, -cwnd, -disable_trim, "
	"-target_q_delay, -linkspeed, -mtu, -hop_latency, -tiers, -ecn, "
	"-nodes, -seed, -qa_gate, -trimsize, -topo";

/* -load_balancing_algo's value to an ofan host policy. */
static int
hp_policy(const struct hp_ctx *c, uint32_t *i, struct hp_cfg *g)
{
	const struct hp_word *w = &c->x->words[*i];
	const char *v;

	if (*i + 1 >= c->x->nb_words)
		return hp_bad(c, w, "needs a value");
	v = c->x->words[++*i].text;
	if (strcmp(v, "bitmap") == 0 || strcmp(v, "oblivious") == 0 ||
	    strcmp(v, "mixed") == 0)
		g->policy = v;
	else if (strcmp(v, "reps") == 0)
		g->policy = "reps_uec";
	else
		return hp_bad(c, w, "'%s': ofan maps bitmap, oblivious, mixed and reps%s",
			      v, strcmp(v, "reps_legacy") == 0 ?
			      " (not reps_legacy)" : "");
	return 0;
}

/* One parameter at words[*i] (and its values) into g. */
static int
hp_param(struct hp_ctx *c, uint32_t *i, struct hp_cfg *g)
{
	const struct hp_word *w = &c->x->words[*i];
	const char *p = w->text;
	int64_t v;
	unsigned int k;

	if (strcmp(p, "-end") == 0)
		return hp_num_arg(c, i, 1, 3.6e9, &g->end_us);
	if (strcmp(p, "-paths") == 0)
		return hp_int_arg(c, i, 1, HP_MAX_PATHS, &g->paths);
	/* main_uec.cpp:163-216: each flag turns its side on; _only, off the other. */
	if (strcmp(p, "-sender_cc_only") == 0 ||
	    strcmp(p, "-receiver_cc_only") == 0) {
		g->sender_cc = p[1] == 's';
		g->receiver_cc = p[1] == 'r';
		return 0;
	}
	if (strcmp(p, "-sender_cc") == 0 || strcmp(p, "-receiver_cc") == 0) {
		if (p[1] == 's')
			g->sender_cc = true;
		else
			g->receiver_cc = true;
		return 0;
	}
	if (strcmp(p, "-load_balancing_algo") == 0)
		return hp_policy(c, i, g);
	if (strcmp(p, "-force_disable_oversubscribed_cc") == 0) {
		g->no_osc = true;
		return 0;
	}
	if (strcmp(p, "-failed") == 0)
		return hp_int_arg(c, i, 0, 1024, &g->failed);
	if (strcmp(p, "-sack_threshold") == 0)
		return hp_int_arg(c, i, 1, 65535, &g->sack_threshold);
	if (strcmp(p, "-q") == 0)
		return hp_int_arg(c, i, 1, 1000000, &g->q_pkts);
	if (strcmp(p, "-conn_reuse") == 0) {
		g->conn_reuse = true;
		return 0;
	}
	if (strcmp(p, "-cwnd") == 0)
		return hp_int_arg(c, i, 1, 1 << 20, &g->cwnd_pkts);
	if (strcmp(p, "-disable_trim") == 0) {
		g->trim = false;
		return 0;
	}
	if (strcmp(p, "-target_q_delay") == 0)
		return hp_num_arg(c, i, 0.001, 1e6, &g->target_us);
	if (strcmp(p, "-linkspeed") == 0) {
		if (hp_int_arg(c, i, 1000, 10000000, &v) != 0)
			return -1;
		g->linkspeed_bps = (uint64_t)v * 1000000ull;
		return 0;
	}
	if (strcmp(p, "-mtu") == 0) {
		if (hp_int_arg(c, i, 256 + HP_HDR - HP_IP_HDRS, 9000, &v) != 0)
			return -1;
		g->mtu = (uint32_t)v;
		return 0;
	}
	if (strcmp(p, "-hop_latency") == 0)
		return hp_num_arg(c, i, 0, 1e6, &g->hop_us);
	if (strcmp(p, "-tiers") == 0) {
		if (hp_int_arg(c, i, 2, 3, &v) != 0)
			return -1;
		g->tiers = (uint32_t)v;
		return 0;
	}
	if (strcmp(p, "-ecn") == 0) {
		/* Two values, low and high, in packets (main_uec.cpp:370-372). */
		if (*i + 2 >= c->x->nb_words ||
		    hp_int_text(c->x->words[*i + 1].text, &g->ecn_lo) != 0 ||
		    hp_int_text(c->x->words[*i + 2].text, &g->ecn_hi) != 0 ||
		    g->ecn_lo > g->ecn_hi)
			return hp_bad(c, w, "needs two packet counts, low <= high");
		*i += 2;
		return 0;
	}
	if (strcmp(p, "-nodes") == 0)
		return hp_int_arg(c, i, 1, 1 << 20, &g->nodes);
	if (strcmp(p, "-seed") == 0)
		return hp_int_arg(c, i, 0, INT64_MAX, &g->seed);
	if (strcmp(p, "-qa_gate") == 0)
		return hp_int_arg(c, i, 0, 30, &g->qa_gate);
	if (strcmp(p, "-trimsize") == 0)	/* what a cut packet costs */
		return hp_int_arg(c, i, 1, 9000, &g->trimsize);
	if (strcmp(p, "-topo") == 0) {
		if (*i + 1 >= c->x->nb_words)
			return hp_bad(c, w, "needs a file");
		g->topo = c->x->words[++*i].text;
		g->topo_line = w->line;
		return 0;
	}
	for (k = 0; k < sizeof(hp_unmapped) / sizeof(hp_unmapped[0]); k++)
		if (strcmp(p, hp_unmapped[k].name) == 0)
			return hp_bad(c, w, "htsim_uec has it, ofan does not map it: %s",
				      hp_unmapped[k].why);
	return hp_bad(c, w, "not an htsim_uec parameter ofan knows; it maps %s",
		      hp_mapped_list);
}

/* path as htsim_uec opens it: relative to dir unless absolute. */
static void
hp_path(const char *dir, const char *path, char *out, size_t n)
{
	if (path[0] == '/' || dir == NULL || dir[0] == '\0')
		snprintf(out, n, "%s", path);
	else
		snprintf(out, n, "%s/%s", dir, path);
}

/* A matrix's Nodes and Connections (its header). */
static int
hp_matrix_header(struct hp_ctx *c, const char *path)
{
	char buf[1024];
	FILE *f = fopen(path, "r");
	int64_t nodes = -1, conns = -1;

	if (f == NULL)
		return hp_bad(c, NULL, "cannot open the connection matrix %s (%s): %s",
			      c->x->matrix, path, strerror(errno));
	while (fgets(buf, sizeof(buf), f) != NULL) {
		long long v;

		if (sscanf(buf, "Nodes %lld", &v) == 1)
			nodes = v;
		else if (sscanf(buf, "Connections %lld", &v) == 1)
			conns = v;
		else if (strstr(buf, "->") != NULL)
			break;
	}
	fclose(f);
	if (nodes <= 0 || conns <= 0)
		return hp_bad(c, NULL, "%s: no 'Nodes N' and 'Connections C' header",
			      c->x->matrix);
	c->r->nodes = (uint32_t)nodes;
	c->r->connections = (uint32_t)conns;
	return 0;
}

/* What ofan-fabric reads of a 2-tier .topo file (fat_tree_topology.cpp:556-719). */
struct hp_topo {
	int64_t nodes, tiers, podsize;
	int64_t speed[3], radix_down[3], radix_up[3], latency_ns[3];
	int64_t switch_ns[3], queue_down[3], queue_up[3], bundle[3];
	double oversub[3];
};

static int
hp_topo_key(struct hp_topo *t, int tier, const char *k, const char *v)
{
	static const char *const keys[] = {
		"downlink_speed_gbps", "radix_down", "radix_up",
		"downlink_latency_ns", "switch_latency_ns", "queue_down",
		"queue_up", "bundle", "oversubscribed",
	};
	int64_t *slot[] = {
		&t->speed[tier], &t->radix_down[tier], &t->radix_up[tier],
		&t->latency_ns[tier], &t->switch_ns[tier],
		&t->queue_down[tier], &t->queue_up[tier], &t->bundle[tier],
	};
	unsigned int i;
	char *end;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcasecmp(k, keys[i]) == 0)
			break;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return -1;
	if (i == 8) {
		t->oversub[tier] = strtod(v, &end);
		return *end == '\0' && t->oversub[tier] > 0 ? 0 : -1;
	}
	*slot[i] = strtoll(v, &end, 10);
	return *end == '\0' && *slot[i] >= 0 ? 0 : -1;
}

/* Read a .topo file into t; a message in why on failure. */
static int
hp_topo_read(const char *path, struct hp_topo *t, char *why, size_t n)
{
	char buf[512];
	FILE *f = fopen(path, "r");
	int tier = -1;
	unsigned int line = 0;

	memset(t, 0, sizeof(*t));
	if (f == NULL) {
		snprintf(why, n, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(buf, sizeof(buf), f) != NULL) {
		char k[64], v[64];
		int got = sscanf(buf, "%63s %63s", k, v);

		line++;
		if (got <= 0 || k[0] == '#')
			continue;
		if (got != 2) {
			snprintf(why, n, "%s:%u: '%s' has no value", path, line, k);
			break;
		}
		if (strcasecmp(k, "tier") == 0) {
			tier = atoi(v);
			if (tier < 0 || tier > 2) {
				snprintf(why, n, "%s:%u: tier %s (0 to 2)", path, line, v);
				break;
			}
			t->oversub[tier] = 1;
			t->bundle[tier] = 1;
			continue;
		}
		if (tier < 0) {
			if (strcasecmp(k, "nodes") == 0)
				t->nodes = atoll(v);
			else if (strcasecmp(k, "tiers") == 0)
				t->tiers = atoll(v);
			else if (strcasecmp(k, "podsize") == 0)
				t->podsize = atoll(v);
			continue;	/* htsim ignores other header words */
		}
		if (hp_topo_key(t, tier, k, v) != 0) {
			snprintf(why, n, "%s:%u: %s %s: not a key htsim reads, or not a number",
				 path, line, k, v);
			break;
		}
	}
	fclose(f);
	if (why[0] != '\0')
		return -1;
	if (t->nodes <= 0 || (t->tiers != 2 && t->tiers != 3) ||
	    t->podsize <= 0) {
		snprintf(why, n, "%s: Nodes, Tiers (2 or 3) and Podsize are required",
			 path);
		return -1;
	}
	return 0;
}

/*
 * A 2-tier .topo as ofan-fabric's leaf-spine: leaves of radix_down[0]
 * hosts, each with a link to every spine.
 */
static int
hp_topo_map(struct hp_ctx *c, const struct hp_cfg *g, struct hp_word *w,
	    double *diam_us, uint32_t *diam_hops, uint32_t *nb_leaves,
	    double *oversub)
{
	struct hp_topo t;
	char path[1024], why[2048] = "";
	int64_t leaves, uplinks, spines;

	hp_path(c->dir, g->topo, path, sizeof(path));
	if (hp_topo_read(path, &t, why, sizeof(why)) != 0)
		return hp_bad(c, w, "%s", why);
	if (t.tiers != 2)
		return hp_bad(c, w, "%s: a 3-tier .topo: ofan builds 2-tier files only (its fat trees come from the matrix's Nodes)",
			      g->topo);
	if (t.radix_down[0] <= 0 || t.speed[0] <= 0 || t.speed[1] <= 0 ||
	    t.radix_down[1] <= 0 || t.oversub[0] <= 0)
		return hp_bad(c, w, "%s: a tier lacks Downlink_speed_Gbps, Radix_Down or Oversubscribed",
			      g->topo);
	if (t.nodes != c->r->nodes)
		return hp_bad(c, w, "%s: Nodes %lld, the matrix has %u", g->topo,
			      (long long)t.nodes, c->r->nodes);
	leaves = t.nodes / t.radix_down[0];
	uplinks = (int64_t)((double)t.nodes * (double)t.speed[0] /
			    ((double)t.speed[1] * t.oversub[0]));
	spines = uplinks / t.radix_down[1];
	if (leaves * t.radix_down[0] != t.nodes || spines < 1 ||
	    uplinks != leaves * spines)
		return hp_bad(c, w, "%s: %lld hosts in leaves of %lld with %lld uplinks over spines of radix %lld: not a leaf-spine with one link from each leaf to each spine",
			      g->topo, (long long)t.nodes,
			      (long long)t.radix_down[0], (long long)uplinks,
			      (long long)t.radix_down[1]);
	if (t.radix_down[0] + spines > HP_MAX_PORTS || leaves > HP_MAX_PORTS)
		return hp_bad(c, w, "%s: a leaf of %lld hosts and %lld spine links (and spines of %lld leaves) needs %lld ports; ofan-fabric's switches have at most %d",
			      g->topo, (long long)t.radix_down[0], (long long)spines,
			      (long long)leaves,
			      (long long)(t.radix_down[0] + spines > leaves ?
					  t.radix_down[0] + spines : leaves),
			      HP_MAX_PORTS);
	if (t.switch_ns[0] != 0 || t.switch_ns[1] != 0 ||
	    t.latency_ns[0] != t.latency_ns[1])
		return hp_bad(c, w, "%s: switch latency or two link latencies: ofan's links share one delay and its switches take none",
			      g->topo);
	*diam_us = 4.0 * (double)t.latency_ns[0] / 1000.0;
	*diam_hops = 4;
	*nb_leaves = (uint32_t)leaves;
	*oversub = t.oversub[0];
	return hp_set(c, "fabric.topology=leafspine") ||
	       hp_set(c, "fabric.leaves=%lld", (long long)leaves) ||
	       hp_set(c, "fabric.spines=%lld", (long long)spines) ||
	       hp_set(c, "fabric.hosts_per_leaf=%lld", (long long)t.radix_down[0]) ||
	       hp_set(c, "fabric.rate=%lldG", (long long)t.speed[0]) ||
	       hp_set(c, "fabric.uplink_rate=%lldG", (long long)t.speed[1]) ||
	       hp_set(c, "fabric.delay=%lldns", (long long)t.latency_ns[0]);
}

/* The fat tree htsim_uec builds for the matrix's Nodes (fat_tree_topology.cpp:438-515). */
static int
hp_fattree(struct hp_ctx *c, const struct hp_cfg *g, uint32_t *k)
{
	uint32_t n = c->r->nodes, kk;

	for (kk = 2; kk <= 64; kk += 2) {
		if (g->tiers == 3 && (uint64_t)kk * kk * kk / 4 >= n)
			break;
		if (g->tiers == 2 && (uint64_t)kk * kk / 2 >= n)
			break;
	}
	if (kk > 64 || (g->tiers == 3 && (uint64_t)kk * kk * kk / 4 != n) ||
	    (g->tiers == 2 && (uint64_t)kk * kk / 2 != n))
		return hp_bad(c, NULL, "%u nodes: htsim_uec builds a %u-tier fat tree for K^%s nodes only",
			      n, g->tiers, g->tiers == 3 ? "3/4" : "2/2");
	if (g->tiers == 3 && kk > HP_MAX_K)
		return hp_bad(c, NULL, "%u nodes need a k = %u fat tree; ofan-fabric builds k <= %d",
			      n, kk, HP_MAX_K);
	if (g->tiers == 2 && kk > HP_MAX_PORTS)
		return hp_bad(c, NULL, "%u nodes as 2 tiers need leaves of %u ports; ofan-fabric's switches have at most %d",
			      n, kk, HP_MAX_PORTS);
	*k = kk;
	return 0;
}

/*
 * -failed N (main_uec.cpp:391-394; fat_tree_topology.cpp:1013-1018 and
 * 914-939): links at a quarter of their rate, their queues and ECN
 * thresholds a quarter too (1174-1177, 1190-1191), from the start, never
 * rerouted.  3 tiers: the core-to-aggregation direction of aggregation
 * switch 0's uplinks first, then switch 1's; 2 tiers: every leaf's
 * links to spines 0 .. N-1, both ways.
 */
static int
hp_failed(struct hp_ctx *c, const struct hp_cfg *g, uint32_t k,
	  uint32_t leaves)
{
	char links[HP_OVERRIDE_LEN - 32];
	size_t at = 0;
	int64_t i;

	links[0] = '\0';
	for (i = 0; i < g->failed; i++) {
		uint32_t half = k / 2, agg, core;
		int len;

		if (g->tiers == 3 && g->topo == NULL) {
			agg = (uint32_t)i / half;
			core = (agg % half) * half + (uint32_t)i % half;
			if (agg >= k * k / 2)
				return hp_bad(c, NULL, "-failed %lld: more than the fabric's %u core links",
					      (long long)g->failed, k * k * k / 4);
			len = snprintf(links + at, sizeof(links) - at, "%score%u-agg%u",
				       at ? " " : "", core, agg);
		} else {
			len = 0;
			for (agg = 0; agg < leaves && len >= 0; agg++) {
				int l = snprintf(links + at, sizeof(links) - at,
						 "%sleaf%u-spine%lld", at ? " " : "",
						 agg, (long long)i);

				if (l < 0 || (size_t)l >= sizeof(links) - at)
					return hp_bad(c, NULL, "-failed %lld: too many links",
						      (long long)g->failed);
				at += (size_t)l;
			}
		}
		if (len < 0 || (size_t)len >= sizeof(links) - at)
			return hp_bad(c, NULL, "-failed %lld: too many links",
				      (long long)g->failed);
		at += (size_t)len;
	}
	if (g->failed == 0)
		return 0;
	return hp_set(c, "failure.htsim_failed.link=%s", links) ||
	       hp_set(c, "failure.htsim_failed.mode=degraded") ||
	       hp_set(c, "failure.htsim_failed.rate=%llu",
		      (unsigned long long)(g->linkspeed_bps / 4)) ||
	       hp_set(c, "failure.htsim_failed.queue_scale=0.25") ||
	       hp_set(c, "failure.htsim_failed.at=0") ||
	       hp_set(c, "failure.htsim_failed.reroute=no") ||
	       hp_set(c, "failure.htsim_failed.one_way=%s",
		      g->tiers == 3 && g->topo == NULL ? "yes" : "no");
}

/*
 * The numbers htsim_uec derives (main_uec.cpp:51-67, 642-711): the
 * network RTT over the diameter, the BDP in packets, the queue (1 BDP
 * with trimming, 5 without, or -q), ECN at 20 % and 80 % of the BDP, the
 * RTO 15 us + 48 x queue / rate.
 */
static int
hp_derived(struct hp_ctx *c, const struct hp_cfg *g, double diam_us,
	   uint32_t hops)
{
	double gbps = (double)g->linkspeed_bps / 1e9;
	double rtt_ps = 2.0 * diam_us * 1e6 +
		(double)g->mtu * 8.0 / gbps * 1000.0 * hops +
		(double)HP_HDR * 8.0 / gbps * 1000.0 * hops;
	double bdp = rtt_ps / 1e12 * ((double)g->linkspeed_bps / 8.0);
	uint64_t bdp_pkts = (uint64_t)ceil(bdp / g->mtu);
	uint64_t q = g->q_pkts > 0 ? (uint64_t)g->q_pkts * g->mtu :
		bdp_pkts * (g->trim ? 1 : 5) * g->mtu;
	uint64_t lo = g->ecn_lo >= 0 ? (uint64_t)g->ecn_lo :
		(uint64_t)ceil(0.2 * (double)bdp_pkts);
	uint64_t hi = g->ecn_hi >= 0 ? (uint64_t)g->ecn_hi :
		(uint64_t)ceil(0.8 * (double)bdp_pkts);
	double rto_us = 15.0 + (double)q * 48e6 / (double)g->linkspeed_bps;

	return hp_set(c, "queue.queue_bytes=%llu", (unsigned long long)q) ||
	       hp_set(c, "queue.ecn_kmin=%llu",
		      (unsigned long long)(lo * g->mtu)) ||
	       hp_set(c, "queue.ecn_kmax=%llu",
		      (unsigned long long)(hi * g->mtu)) ||
	       hp_set(c, "host.base_rtt=%.3fns", rtt_ps / 1000.0) ||
	       hp_set(c, "host.min_rto=%.3fns", rto_us * 1000.0);
}

/* Every setting of the experiment, its parameters read into g. */
static int
hp_emit(struct hp_ctx *c, struct hp_cfg *g)
{
	uint32_t k = 0, hops = 2 * g->tiers, leaves = 0;
	double diam_us = g->hop_us * 2 * g->tiers, oversub = 1;
	uint64_t mss = g->mtu - HP_HDR;

	if (g->nodes > 0 && (uint64_t)g->nodes != c->r->nodes)
		return hp_bad(c, NULL, "-nodes %lld, the matrix has %u",
			      (long long)g->nodes, c->r->nodes);
	if (g->topo != NULL) {
		struct hp_word tw = { .text = "-topo", .line = g->topo_line };

		if (hp_topo_map(c, g, &tw, &diam_us, &hops, &leaves,
				&oversub) != 0)
			return -1;
		g->tiers = 2;
	} else {
		if (hp_fattree(c, g, &k) != 0)
			return -1;
		if (g->tiers == 3 ? hp_set(c, "fabric.topology=fattree") ||
		    hp_set(c, "fabric.k=%u", k) :
		    hp_set(c, "fabric.topology=leafspine") ||
		    hp_set(c, "fabric.leaves=%u", k) ||
		    hp_set(c, "fabric.spines=%u", k / 2) ||
		    hp_set(c, "fabric.hosts_per_leaf=%u", k / 2))
			return -1;
		leaves = k;
		if (hp_set(c, "fabric.rate=%llu",
			   (unsigned long long)g->linkspeed_bps) ||
		    hp_set(c, "fabric.uplink_rate=%llu",
			   (unsigned long long)g->linkspeed_bps) ||
		    hp_set(c, "fabric.delay=%.3fns", g->hop_us * 1000.0))
			return -1;
	}
	if (hp_set(c, "fabric.mtu=%llu",
		   (unsigned long long)(mss + HP_IP_HDRS)) ||
	    hp_set(c, "fabric.data_wire_bytes=%u", g->mtu) ||
	    hp_set(c, "fabric.ack_wire_bytes=%u", HP_HDR) ||
	    hp_set(c, "fabric.header_wire_bytes=%lld",
		   (long long)g->trimsize) ||
	    hp_set(c, "fabric.time_limit=%.3fus", g->end_us) ||
	    hp_set(c, "fabric.schemes=%s", g->policy) ||
	    hp_set(c, "queue.trim=%s", g->trim ? "yes" : "no") ||
	    hp_set(c, "host.ack_every=%lld",
		   (long long)((g->sack_threshold + g->mtu - 1) / g->mtu)) ||
	    hp_derived(c, g, diam_us, hops) ||
	    hp_failed(c, g, k, leaves))
		return -1;
	if (g->paths > 0 && hp_set(c, "host.%s.paths=%lld", g->policy,
				   (long long)g->paths))
		return -1;
	/*
	 * Receiver CC: RCCC (with NSCC's window when the sender's is on too),
	 * and no ECN on the last hop (main_uec.cpp:708).
	 */
	if (g->receiver_cc &&
	    (hp_set(c, "host.cc=rccc") ||
	     hp_set(c, "cc.rccc.nscc=%s", g->sender_cc ? "yes" : "no") ||
	     hp_set(c, "queue.%s.ecn=no",
		    g->tiers == 3 && g->topo == NULL ? "tor_down" : "leaf_down")))
		return -1;
	/*
	 * An oversubscribed .topo with only the receiver driving: its
	 * pacers' oversubscription CC (main_uec.cpp:688-692).
	 */
	if (g->receiver_cc && !g->sender_cc && oversub > 1 && !g->no_osc &&
	    hp_set(c, "cc.rccc.oversubscription=%g", oversub))
		return -1;
	if (g->cwnd_pkts > 0 &&
	    hp_set(c, "cc.%s.window=%lld", g->receiver_cc ? "rccc" : "nscc",
		   (long long)g->cwnd_pkts))
		return -1;
	if (g->target_us > 0 &&
	    hp_set(c, "cc.nscc.target_delay=%.3fns", g->target_us * 1000.0))
		return -1;
	if (!g->trim && hp_set(c, "cc.nscc.target_rtts=1"))
		return -1;
	if (g->qa_gate >= 0 &&
	    hp_set(c, "cc.nscc.qa_gate=%lld", (long long)g->qa_gate))
		return -1;
	if (g->seed >= 0 && hp_set(c, "fabric.seed=%lld", (long long)g->seed))
		return -1;
	return 0;
}

int
hp_map(const struct hp_experiment *x, const char *file, const char *dir,
       struct hp_run *r, char *err, size_t err_size)
{
	struct hp_ctx c = { .x = x, .file = file, .dir = dir, .err = err,
			    .err_size = err_size, .r = r };
	struct hp_cfg g = {
		.linkspeed_bps = 100000000000ull, .mtu = 4150, .hop_us = 1.0,
		.tiers = 3, .end_us = 1000, .q_pkts = -1, .ecn_lo = -1,
		.ecn_hi = -1, .trim = true, .policy = "mixed", .paths = -1,
		.sender_cc = true,
		.sack_threshold = 16384, .cwnd_pkts = -1, .qa_gate = -1,
		.seed = -1, .trimsize = HP_HDR,
	};
	char path[1024];
	uint32_t i;

	memset(r, 0, sizeof(*r));
	if (x->binary != NULL && strstr(x->binary, "htsim_uec") == NULL)
		return hp_bad(&c, NULL, "!Binary %s: ofan runs htsim_uec's plans only",
			      x->binary);
	for (i = 0; i < x->nb_words; i++)
		if (hp_param(&c, &i, &g) != 0)
			return -1;
	hp_path(dir, x->matrix, path, sizeof(path));
	if (hp_matrix_header(&c, path) != 0)
		return -1;
	r->conn_reuse = g.conn_reuse;
	r->end_us = g.end_us;
	return hp_emit(&c, &g);
}

/* ---- -conn_reuse ---- */

int
hp_fold_messages(const char *matrix, const char *out, uint32_t *nb_flows,
		 char *err, size_t err_size)
{
	enum { MAXF = 4096 };
	static struct { long long id, size; char pair[64]; double start; } fl[MAXF];
	char buf[1024];
	FILE *in = fopen(matrix, "r"), *o;
	long long nodes = 0;
	unsigned int nb = 0, i, line = 0;

	if (in == NULL) {
		hp_err(err, err_size, "cannot open %s: %s", matrix, strerror(errno));
		return -1;
	}
	while (fgets(buf, sizeof(buf), in) != NULL) {
		char pair[64], *tok, *save = NULL;
		long long id = -1, size = -1;
		double start = 0;

		line++;
		if (sscanf(buf, "Nodes %lld", &nodes) == 1 ||
		    strstr(buf, "->") == NULL)
			continue;
		tok = strtok_r(buf, " \t\r\n", &save);
		snprintf(pair, sizeof(pair), "%s", tok);
		while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
			char *v = NULL;

			if (strcmp(tok, "msg") == 0)
				continue;	/* its optional number is skipped below */
			if (strcmp(tok, "id") == 0 || strcmp(tok, "size") == 0 ||
			    strcmp(tok, "start") == 0)
				v = strtok_r(NULL, " \t\r\n", &save);
			else if (isdigit((unsigned char)tok[0]))
				continue;	/* msg's number */
			else {
				hp_err(err, err_size, "%s:%u: '%s': a folded matrix takes id, msg, start and size only",
				       matrix, line, tok);
				fclose(in);
				return -1;
			}
			if (v == NULL)
				break;
			if (strcmp(tok, "id") == 0)
				id = atoll(v);
			else if (strcmp(tok, "size") == 0)
				size = atoll(v);
			else
				start = atof(v);
		}
		if (id <= 0 || size <= 0) {
			hp_err(err, err_size, "%s:%u: a message needs an id and a size",
			       matrix, line);
			fclose(in);
			return -1;
		}
		for (i = 0; i < nb && fl[i].id != id; i++)
			;
		if (i == nb) {
			if (nb == MAXF) {
				hp_err(err, err_size, "%s: more than %d flows", matrix, MAXF);
				fclose(in);
				return -1;
			}
			fl[nb].id = id;
			fl[nb].size = 0;
			fl[nb].start = start;
			snprintf(fl[nb].pair, sizeof(fl[nb].pair), "%s", pair);
			nb++;
		}
		fl[i].size += size;
	}
	fclose(in);
	o = fopen(out, "w");
	if (o == NULL || nodes <= 0 || nb == 0) {
		hp_err(err, err_size, "%s: %s", o == NULL ? out : matrix,
		       o == NULL ? strerror(errno) : "no Nodes or no flow");
		if (o != NULL)
			fclose(o);
		return -1;
	}
	*nb_flows = nb;
	fprintf(o, "Nodes %lld\nConnections %u\n", nodes, nb);
	for (i = 0; i < nb; i++)
		fprintf(o, "%s id %lld start %g size %lld\n", fl[i].pair,
			fl[i].id, fl[i].start, fl[i].size);
	return fclose(o) == 0 ? 0 : -1;
}
