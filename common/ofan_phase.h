/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A phase of a program that may take a while (EAL's memory, a deep
 * fabric's queues, writing results), announced once it outlasts a
 * second: a watchdog thread prints "PROG: WHAT (N s)" on stderr each
 * second until the phase ends, then "PROG: WHAT: done in X s".  A phase
 * that ends within the first second prints nothing, so short runs stay
 * quiet.  The program's own output and results are untouched.
 */
#ifndef OFAN_PHASE_H
#define OFAN_PHASE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

struct ofan_phase {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct timespec t0;	/* CLOCK_MONOTONIC at begin */
	FILE *out;
	bool running;		/* a watchdog thread was started */
	bool done;
	unsigned int nb_lines;	/* lines printed so far */
	char what[192];		/* "PROG: WHAT" */
};

/*
 * Begin a phase described by printf's fmt (without the program name).
 * out == NULL (e.g. --quiet) or a failure to start the thread makes the
 * phase silent; the program goes on either way.
 */
void ofan_phase_begin(struct ofan_phase *ph, FILE *out, const char *prog,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* End it: stop the watchdog and, if it spoke, say how long it took. */
void ofan_phase_end(struct ofan_phase *ph);

#endif /* OFAN_PHASE_H */
