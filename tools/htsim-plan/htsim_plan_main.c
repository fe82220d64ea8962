/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-htsim-plan: run a uet-htsim validation plan (its
 * datacenter/validate_*.txt) in ofan-fabric and judge each experiment as
 * its validate.py does, then print "N passed, N failed" over the tail
 * targets (docs/uec.md, "The plan runner").
 *
 *   ofan-htsim-plan [--fabric PATH] [--base CONFIG] [--out DIR]
 *                   [--keep-going] [--dry-run] PLAN
 *
 * Matrices and .topo files resolve as htsim_uec's do, relative to the
 * folder it runs in, or as given when absolute.  Every experiment is
 * mapped before any runs: a parameter ofan cannot honour, a missing
 * matrix or a topology it cannot build stops the plan with exit status 2
 * naming FILE:LINE: PARAM; --keep-going instead reports such an
 * experiment as a failed target and runs the others.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "htsim_plan.h"
#include "ofan_version.h"

struct hpm_opts {
	const char *fabric;
	const char *base;
	const char *out;
	const char *plan;
	bool keep_going;
	bool dry_run;
};

/* What a run's flows.csv says. */
struct hpm_result {
	uint32_t done;		/* flows that completed */
	double first_us;	/* the earliest finish */
	double tail_us;		/* the latest finish */
};

static void
hpm_usage(FILE *f)
{
	fprintf(f,
		"usage: ofan-htsim-plan [--fabric PATH] [--base CONFIG] [--out DIR]\n"
		"                       [--keep-going] [--dry-run] PLAN\n"
		"Run a uet-htsim validation plan in ofan-fabric; PASS/FAIL per target as\n"
		"uet-htsim's validate.py prints them, then 'N passed, N failed'.\n"
		"  --fabric PATH   ofan-fabric (default: beside this program, ../fabric/)\n"
		"  --base CONFIG   the settings every experiment starts from (default:\n"
		"                  uet-htsim.ini in the plan's folder)\n"
		"  --out DIR       results, one folder per experiment (default: a new\n"
		"                  folder under /tmp)\n"
		"  --keep-going    an experiment ofan cannot map fails its target and the\n"
		"                  others run (default: the plan exits 2 before running)\n"
		"  --dry-run       map every experiment and print the commands only\n"
		"Exit status: 0 every target passed, 1 one failed, 2 a bad plan or option,\n"
		"130 interrupted (SIGINT, SIGTERM: the run in progress is stopped too).\n");
}

static int
hpm_args(int argc, char **argv, struct hpm_opts *o)
{
	static const struct option lo[] = {
		{ "fabric", required_argument, NULL, 'f' },
		{ "base", required_argument, NULL, 'b' },
		{ "out", required_argument, NULL, 'o' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'f': o->fabric = optarg; break;
		case 'b': o->base = optarg; break;
		case 'o': o->out = optarg; break;
		case 'k': o->keep_going = true; break;
		case 'n': o->dry_run = true; break;
		case 'h': hpm_usage(stdout); exit(0);
		default: hpm_usage(stderr); return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "ofan-htsim-plan: one PLAN file expected\n");
		hpm_usage(stderr);
		return -1;
	}
	o->plan = argv[optind];
	return 0;
}

static char *
hpm_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* The earliest and latest finish and the count, from a run's flows.csv. */
static int
hpm_read_flows(const char *dir, struct hpm_result *res)
{
	char path[PATH_MAX + 32], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/flows.csv", dir);
	f = fopen(path, "r");
	memset(res, 0, sizeof(*res));
	if (f == NULL)
		return -1;
	if (fgets(line, sizeof(line), f) == NULL) {
		fclose(f);
		return -1;
	}
	/* run,combo,scheme,seed,flow,src,dst,size,start_us,fct_us,... */
	while (fgets(line, sizeof(line), f) != NULL) {
		char *field[11], *save = NULL, *t = line, *p;
		unsigned int i = 0;
		double start, fct, end;

		while (i < 11 && (p = strsep(&t, ",")) != NULL)
			field[i++] = p;
		(void)save;
		if (i < 10 || field[9][0] == '\0')
			continue;
		start = strtod(field[8], &p);
		fct = strtod(field[9], &p);
		if ((*p != '\0' && *p != ',') || fct <= 0)
			continue;
		end = start + fct;
		if (res->done == 0 || end < res->first_us)
			res->first_us = end;
		if (end > res->tail_us)
			res->tail_us = end;
		res->done++;
	}
	fclose(f);
	return 0;
}

/* The ofan-fabric running now, and whether SIGINT or SIGTERM came. */
static volatile pid_t hpm_child;
static volatile sig_atomic_t hpm_stop;

/* Pass the signal to the run in progress (ours, by PID) and stop after it. */
static void
hpm_on_signal(int sig)
{
	hpm_stop = sig;
	if (hpm_child > 0)
		kill(hpm_child, sig);
}

/* Run ofan-fabric with argv, its output to log; its exit status. */
static int
hpm_spawn(char *const *argv, const char *log)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		FILE *l = freopen(log, "w", stdout);

		if (l == NULL || dup2(fileno(stdout), 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, "ofan-htsim-plan: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	hpm_child = pid;
	if (hpm_stop)
		kill(pid, hpm_stop);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			hpm_child = 0;
			return -1;
		}
	hpm_child = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* One experiment: run, judge, print; true when its tail target passed. */
static bool
hpm_experiment(const struct hpm_opts *o, const struct hp_experiment *x,
	       const struct hp_run *r, uint32_t idx, const char *dir)
{
	char odir[PATH_MAX + 16], log[PATH_MAX + 16], cm[PATH_MAX + 16];
	char folded[PATH_MAX + 16];
	char pattern[] = "traffic.pattern=cm", cmset[PATH_MAX + 64];
	char err[1024], *argv[HP_MAX_OVERRIDES + 16];
	struct hpm_result res;
	uint32_t flows = r->connections;
	unsigned int a = 0, i;
	bool pass;
	int rc;

	snprintf(odir, sizeof(odir), "%s/%03u", o->out, idx);
	snprintf(log, sizeof(log), "%s/%03u.log", o->out, idx);
	if (x->matrix[0] == '/' || dir[0] == '\0')
		snprintf(cm, sizeof(cm), "%s", x->matrix);
	else
		snprintf(cm, sizeof(cm), "%s/%s", dir, x->matrix);
	if (r->conn_reuse) {
		snprintf(folded, sizeof(folded), "%s/%03u.cm", o->out, idx);
		if (hp_fold_messages(cm, folded, &flows, err, sizeof(err)) != 0) {
			printf("[FAIL] not run: %s\n", err);
			return false;
		}
		snprintf(cm, sizeof(cm), "%s", folded);
	}
	snprintf(cmset, sizeof(cmset), "traffic.cm_file=%s", cm);
	argv[a++] = (char *)o->fabric;
	argv[a++] = "--config";
	argv[a++] = (char *)o->base;
	argv[a++] = "--out";
	argv[a++] = odir;
	argv[a++] = "--replace";
	argv[a++] = "--quiet";
	argv[a++] = "--no-plot";
	argv[a++] = pattern;
	argv[a++] = cmset;
	for (i = 0; i < r->nb_overrides; i++)
		argv[a++] = (char *)r->overrides[i];
	argv[a] = NULL;
	printf("Running");
	for (i = 0; i < a; i++)
		printf(" %s", argv[i]);
	printf("\n");
	fflush(stdout);
	if (o->dry_run)
		return true;
	rc = hpm_spawn(argv, log);
	if (hpm_stop) {
		printf("interrupted: %s\n", log);
		return false;
	}
	if (rc != 0 && rc != 1) {
		printf("Error processing file  %s: ofan-fabric exited %d (%s)\n",
		       x->matrix, rc, log);
		if (x->has_tail)
			printf("[FAIL] Tail FCT not measured; the target was %g us\n",
			       x->tail_us);
		return false;
	}
	if (hpm_read_flows(odir, &res) != 0) {
		printf("Error processing file  %s: no %s/flows.csv\n", x->matrix,
		       odir);
		return false;
	}
	/* A folded flow done is all its messages done (validate.py sums them). */
	if (r->conn_reuse && res.done == flows)
		res.done = r->connections;
	pass = !x->has_tail || x->tail_us <= 0 || res.tail_us <= x->tail_us;
	if (pass)
		printf("[PASS] Tail FCT %g us below the target of %g us\n",
		       res.tail_us, x->has_tail ? x->tail_us : 0.0);
	else
		printf("[FAIL] Tail FCT %g us above the target of %g us\n",
		       res.tail_us, x->tail_us);
	if (res.done == r->connections)
		printf("[PASS] Connection count %u\n", res.done);
	else
		printf("[FAIL] Total connections in connection matrix was  %u  but only  %u finished\n",
		       r->connections, res.done);
	if (res.done > 0 && res.first_us > 0)
		printf("FCT Spread %g -> %g ratio %g\n", res.first_us,
		       res.tail_us, res.tail_us / res.first_us);
	return pass && res.done == r->connections;
}

/* The runner's own folder's ../fabric/ofan-fabric. */
static void
hpm_default_fabric(const char *argv0, char *out, size_t n)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len <= 0) {
		snprintf(self, sizeof(self), "%s", argv0);
		len = (ssize_t)strlen(self);
	}
	self[len] = '\0';
	snprintf(out, n, "%s/../fabric/ofan-fabric", dirname(self));
}

int
main(int argc, char **argv)
{
	static char fabric[PATH_MAX], base[PATH_MAX], out[PATH_MAX];
	struct hpm_opts o = { 0 };
	struct hp_run *runs;
	struct hp_plan plan;
	char err[2048], dir[PATH_MAX], plandir[PATH_MAX], *text;
	uint32_t i, passed = 0, failed = 0, unmapped = 0;
	bool *ok;
	size_t len;

	if (ofan_version_asked(argc, argv))
		return ofan_version_print("ofan-htsim-plan");
	if (hpm_args(argc, argv, &o) != 0)
		return 2;
	text = hpm_slurp(o.plan, &len);
	if (text == NULL) {
		fprintf(stderr, "ofan-htsim-plan: cannot read %s: %s\n", o.plan,
			strerror(errno));
		return 2;
	}
	if (hp_plan_parse(o.plan, text, len, &plan, err, sizeof(err)) != 0) {
		fprintf(stderr, "ofan-htsim-plan: %s\n", err);
		free(text);
		return 2;
	}
	free(text);
	if (getcwd(dir, sizeof(dir)) == NULL)
		dir[0] = '\0';
	snprintf(plandir, sizeof(plandir), "%s", o.plan);
	if (o.fabric == NULL) {
		hpm_default_fabric(argv[0], fabric, sizeof(fabric));
		o.fabric = fabric;
	}
	if (o.base == NULL) {
		snprintf(base, sizeof(base), "%s/uet-htsim.ini", dirname(plandir));
		o.base = base;
	}
	if (access(o.fabric, X_OK) != 0 || access(o.base, R_OK) != 0) {
		fprintf(stderr, "ofan-htsim-plan: %s: %s (--fabric, --base)\n",
			access(o.fabric, X_OK) != 0 ? o.fabric : o.base,
			strerror(errno));
		hp_plan_free(&plan);
		return 2;
	}
	runs = calloc(plan.nb, sizeof(*runs));
	ok = calloc(plan.nb, sizeof(*ok));
	if (runs == NULL || ok == NULL) {
		fprintf(stderr, "ofan-htsim-plan: out of memory\n");
		return 2;
	}
	/* Map every experiment before any runs. */
	for (i = 0; i < plan.nb; i++) {
		ok[i] = hp_map(&plan.x[i], o.plan, dir, &runs[i], err,
			       sizeof(err)) == 0;
		if (!ok[i]) {
			fprintf(stderr, "ofan-htsim-plan: %s\n", err);
			unmapped++;
			if (!o.keep_going) {
				hp_plan_free(&plan);
				free(runs);
				free(ok);
				return 2;
			}
		}
	}
	if (o.out == NULL) {
		snprintf(out, sizeof(out), "/tmp/ofan-htsim-plan.XXXXXX");
		if (mkdtemp(out) == NULL) {
			fprintf(stderr, "ofan-htsim-plan: mkdtemp: %s\n", strerror(errno));
			return 2;
		}
		o.out = out;
	} else if (mkdir(o.out, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "ofan-htsim-plan: %s: %s\n", o.out, strerror(errno));
		return 2;
	}
	signal(SIGINT, hpm_on_signal);
	signal(SIGTERM, hpm_on_signal);
	printf("Using %s as experiment plan\n", o.plan);
	for (i = 0; i < plan.nb && !hpm_stop; i++) {
		const struct hp_experiment *x = &plan.x[i];
		bool pass;

		printf("\n\nExperiment: %s \n==========================================\n",
		       x->name);
		if (!ok[i]) {
			hp_map(x, o.plan, dir, &runs[i], err, sizeof(err));
			printf("[FAIL] not run: %s\n", err);
			pass = false;
		} else {
			pass = hpm_experiment(&o, x, &runs[i], i, dir);
		}
		if (x->has_tail) {
			passed += pass;
			failed += !pass;
		}
		fflush(stdout);
	}
	printf("\n%s: %u experiments, %u not mapped; results in %s\n", o.plan,
	       plan.nb, unmapped, o.out);
	if (hpm_stop)
		printf("interrupted in experiment %u of %u\n", i, plan.nb);
	printf("%u passed, %u failed\n", passed, failed);
	hp_plan_free(&plan);
	free(runs);
	free(ok);
	return hpm_stop ? 130 : failed > 0 ? 1 : 0;
}
