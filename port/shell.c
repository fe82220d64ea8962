/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The process shell of both EAL binaries (ofan_shell.h).
 */
#include <signal.h>
#include <stdio.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "ofan_clock.h"
#include "ofan_fs.h"
#include "ofan_shell.h"

volatile sig_atomic_t ofan_shell_quit;
volatile sig_atomic_t ofan_shell_signals;

static void
ofan_shell_on_signal(int sig)
{
	(void)sig;
	ofan_shell_signals = ofan_shell_signals + 1;
	ofan_shell_quit = 1;
}

int
ofan_shell_args(struct ofan_shell *sh, const char *prog, int argc,
		char **argv, void (*usage)(FILE *f))
{
	int help;

	sh->prog = prog;
	sh->eal_argc = ofan_split_args(argc, argv, &help);
	if (help) {
		usage(stdout);
		return 1;
	}
	if (sh->eal_argc < 0) {
		fprintf(stderr, "%s: missing '--' before the application options\n",
			prog);
		usage(stderr);
		return -1;
	}
	return 0;
}

int
ofan_shell_eal_init(struct ofan_shell *sh, char **argv)
{
	if (rte_eal_init(sh->eal_argc, argv) < 0) {
		fprintf(stderr, "%s: EAL initialisation failed: %s. Hint: run as root; without hugepages pass --no-huge -m 512 (and --no-pci without NICs), or mount hugepages; give each process its own --file-prefix\n",
			sh->prog, rte_strerror(rte_errno));
		return -1;
	}
	sh->eal_up = true;
	/* EAL leaves its runtime directory behind: removed at exit. */
	snprintf(sh->rundir, sizeof(sh->rundir), "%s",
		 rte_eal_get_runtime_dir());
	signal(SIGINT, ofan_shell_on_signal);
	signal(SIGTERM, ofan_shell_on_signal);
	return 0;
}

bool
ofan_shell_no_leak(const struct ofan_shell *sh, int64_t start, int64_t end)
{
	if (end == start)
		return true;
	fprintf(stderr, "%s: mbuf leak: %lld mbufs in use at exit, %lld at start\n",
		sh->prog, (long long)end, (long long)start);
	return false;
}

void
ofan_shell_exit(struct ofan_shell *sh)
{
	if (!sh->eal_up)
		return;
	if (!sh->keep_eal)	/* memif's callbacks need it (ofan_port.h) */
		rte_eal_cleanup();
	if (sh->rundir[0] != '\0' && ofan_remove_tree(sh->rundir) != 0)
		fprintf(stderr, "%s: could not remove %s\n", sh->prog,
			sh->rundir);
	sh->eal_up = false;
}
