/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whose results a --out folder holds (fab_outdir.h): a run's identity,
 * the default folder of a run with overrides, and the check that keeps
 * one run from writing over another's files.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fab_outdir.h"

/* The files ofan-fabric and testbed/plot.sh write into a --out folder. */
static const char *const fab_out_files[] = {
	"summary.json", "runs.csv", "flows.csv", "queues.csv",
	"queue-time.csv", "table.txt", "timing.csv", "command.txt",
	"config.ini", "run.json", "jobs.csv", "job-ops.csv", "job-ranks.csv",
	"job-nodes.csv", NULL,
};

static bool
fab_out_file_ours(const char *name)
{
	size_t len = strlen(name);
	int i;

	for (i = 0; fab_out_files[i] != NULL; i++)
		if (strcmp(name, fab_out_files[i]) == 0)
			return true;
	return len > 4 && strcmp(name + len - 4, ".png") == 0;
}

/* FNV-1a, 64 bits, over len bytes (a NUL included where it separates). */
static uint64_t
fab_fnv(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void
fab_run_identity(const struct fab_run_id *id, char out[FAB_RUN_ID_LEN + 1])
{
	char path[PATH_MAX], buf[64];
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;

	if (realpath(id->config, path) == NULL)
		snprintf(path, sizeof(path), "%s", id->config);
	h = fab_fnv(h, path, strlen(path) + 1);
	for (i = 0; i < id->nb_overrides; i++)
		h = fab_fnv(h, id->overrides[i], strlen(id->overrides[i]) + 1);
	snprintf(buf, sizeof(buf), "--seed %s%" PRIu64 " --seeds %" PRIu32,
		 id->seed_set ? "" : "-", id->seed_set ? id->seed : 0,
		 id->seeds);
	h = fab_fnv(h, buf, strlen(buf) + 1);
	snprintf(out, FAB_RUN_ID_LEN + 1, "%016" PRIx64, h);
}

/* s with what a folder name should not hold as '_'; at most size - 1. */
static size_t
fab_out_word(char *out, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s != '\0' && n + 1 < size; s++)
		out[n++] = strchr("abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				  "._=,-", *s) != NULL ? *s : '_';
	out[n] = '\0';
	return n;
}

void
fab_outdir_default(const char *name, const struct fab_run_id *id, char *out,
		   size_t size)
{
	char tail[FAB_OUTDIR_TAIL_MAX + 64], word[256], id16[FAB_RUN_ID_LEN + 1];
	size_t n = 0;
	int i;

	tail[0] = '\0';
	for (i = 0; i < id->nb_overrides; i++) {
		fab_out_word(word, sizeof(word), id->overrides[i]);
		n += (size_t)snprintf(tail + n, n < sizeof(tail) ?
				      sizeof(tail) - n : 0, "+%s", word);
		if (n >= sizeof(tail))
			break;
	}
	if (id->seed_set && n < sizeof(tail))
		n += (size_t)snprintf(tail + n, sizeof(tail) - n,
				      "+seed=%" PRIu64, id->seed);
	if (id->seeds > 0 && n < sizeof(tail))
		n += (size_t)snprintf(tail + n, sizeof(tail) - n,
				      "+seeds=%" PRIu32, id->seeds);
	if (n > FAB_OUTDIR_TAIL_MAX) {
		/* Too long for a name a person reads: the run's identity. */
		fab_run_identity(id, id16);
		snprintf(tail, sizeof(tail), "+%s", id16);
	}
	snprintf(out, size, "results/%s%s", name, tail);
}

/* The identity run.json in dir records, or "" if none. */
static void
fab_outdir_identity(const char *dir, char out[FAB_RUN_ID_LEN + 1])
{
	static const char key[] = "\"identity\": \"";
	char path[PATH_MAX], line[512], *p;
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/run.json", dir);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		p = strstr(line, key);
		if (p == NULL)
			continue;
		p += sizeof(key) - 1;
		if (strlen(p) > FAB_RUN_ID_LEN && p[FAB_RUN_ID_LEN] == '"')
			snprintf(out, FAB_RUN_ID_LEN + 1, "%.*s",
				 FAB_RUN_ID_LEN, p);
		break;
	}
	fclose(f);
}

/* The first line of dir/command.txt (the other run's command), or "". */
static void
fab_outdir_command(const char *dir, char *out, size_t size)
{
	char path[PATH_MAX];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/command.txt", dir);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	if (fgets(out, (int)size, f) == NULL)
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

int
fab_outdir_check(const char *dir, const char *identity, bool replace,
		 char *err, size_t size)
{
	char path[PATH_MAX], other[FAB_RUN_ID_LEN + 1], cmd[400];
	struct dirent *d;
	struct stat st;
	int nb_ours = 0;
	DIR *dp = opendir(dir);

	if (dp == NULL) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, size, "--out '%s': %s; expected a folder ofan-fabric can write",
			 dir, strerror(errno));
		return -errno;
	}
	while ((d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
		    !fab_out_file_ours(d->d_name)) {
			snprintf(err, size, "--out '%s' holds '%s', which ofan-fabric does not write; expected an empty folder or one of ofan-fabric's (nothing was changed)",
				 dir, d->d_name);
			closedir(dp);
			return -EEXIST;
		}
		nb_ours++;
	}
	closedir(dp);
	if (nb_ours == 0 || replace)
		return 0;
	fab_outdir_identity(dir, other);
	if (strcmp(other, identity) == 0)
		return 0;
	fab_outdir_command(dir, cmd, sizeof(cmd));
	snprintf(err, size, "--out '%s' holds the results of another run (%s%s); pass --replace to clear them, or choose another --out (nothing was changed)",
		 dir, cmd[0] != '\0' ? "command.txt: " : "an earlier ofan-fabric without run.json",
		 cmd);
	return -EEXIST;
}

int
fab_outdir_clear(const char *dir, char *err, size_t size)
{
	char path[PATH_MAX];
	struct dirent *d;
	int rc = 0;
	DIR *dp = opendir(dir);

	if (dp == NULL)
		return errno == ENOENT ? 0 : -errno;
	while ((d = readdir(dp)) != NULL) {
		if (!fab_out_file_ours(d->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (unlink(path) != 0 && errno != ENOENT && rc == 0) {
			rc = -errno;
			snprintf(err, size, "cannot remove %s: %s", path,
				 strerror(errno));
		}
	}
	closedir(dp);
	return rc;
}
