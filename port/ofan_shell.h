/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The process shell of ofan-switch and ofan-host: what both EAL binaries
 * do around their own work, written once.  Their arguments split at "--"
 * (EAL's before, theirs after), --help answered without EAL, EAL started
 * with a one-line hint when it cannot be, SIGINT and SIGTERM turned into a
 * flag the loops poll, the mbuf-leak check, and the exit: EAL cleaned up
 * unless a port still needs it, and its runtime directory removed.
 *
 * A run ends with one of enum ofan_exit.  The signal flags are the one
 * piece of process-wide state: a handler can only reach a global.
 */
#ifndef OFAN_SHELL_H
#define OFAN_SHELL_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

/* Exit statuses of both EAL binaries (docs/switch.md: exit status). */
enum ofan_exit {
	OFAN_EXIT_OK = 0,	/* done: everything asked for happened */
	OFAN_EXIT_FAILED = 1,	/* the run failed or was stopped short */
	OFAN_EXIT_CONFIG = 2,	/* bad arguments, config or set-up */
	OFAN_EXIT_LEAK = 3,	/* mbufs not back in their pool at exit */
};

/* Set by SIGINT and SIGTERM once ofan_shell_eal_init() succeeded. */
extern volatile sig_atomic_t ofan_shell_quit;
/* How many of them arrived (--hold-exit waits for one more). */
extern volatile sig_atomic_t ofan_shell_signals;

struct ofan_shell {
	const char *prog;	/* "ofan-switch": every message starts so */
	int eal_argc;		/* argv[0 .. eal_argc) are EAL's */
	bool eal_up;
	/* A port must outlive the process's code (OFAN_PORT_QUIRK_EXIT_CLOSES):
	 * no rte_eal_cleanup() at exit.  Set from ofan_ports_close(). */
	bool keep_eal;
	char rundir[PATH_MAX];	/* EAL's runtime directory, removed at exit */
};

/*
 * Split argv at "--".  Returns 1 when --help or -h was asked for (usage
 * printed on stdout: exit 0), -1 when "--" is missing (said, with the
 * usage, on stderr: exit OFAN_EXIT_CONFIG), else 0 with sh->eal_argc set;
 * the program's own options are then argv[eal_argc ..].
 */
int ofan_shell_args(struct ofan_shell *sh, const char *prog, int argc,
		    char **argv, void (*usage)(FILE *f));

/*
 * Start EAL on argv[0 .. eal_argc), remember its runtime directory and
 * install the signal handlers.  Returns 0, or -1 after one line on stderr
 * that says what failed and how to fix the usual causes.
 */
int ofan_shell_eal_init(struct ofan_shell *sh, char **argv);

/*
 * The mbuf-leak rule: mp's in-use count at exit (end) must be what it was
 * before the ports started (start).  Returns true if so, else says
 * "PROG: mbuf leak: END mbufs in use at exit, START at start" on stderr.
 */
bool ofan_shell_no_leak(const struct ofan_shell *sh, int64_t start,
			int64_t end);

/* The end: EAL cleaned up (unless keep_eal), its runtime directory gone. */
void ofan_shell_exit(struct ofan_shell *sh);

#endif /* OFAN_SHELL_H */
