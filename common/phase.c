/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <string.h>

#include "ofan_phase.h"

static double
ofan_phase_elapsed(const struct ofan_phase *ph)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - ph->t0.tv_sec) +
		(double)(now.tv_nsec - ph->t0.tv_nsec) * 1e-9;
}

/* Each whole second after t0 the phase has not ended: one line. */
static void *
ofan_phase_watch(void *arg)
{
	struct ofan_phase *ph = arg;
	struct timespec at;

	pthread_mutex_lock(&ph->lock);
	for (;;) {
		at = ph->t0;
		at.tv_sec += ph->nb_lines + 1;
		while (!ph->done &&
		       pthread_cond_timedwait(&ph->cond, &ph->lock, &at) == 0)
			;
		if (ph->done)
			break;
		fprintf(ph->out, "%s (%u s)\n", ph->what, ++ph->nb_lines);
		fflush(ph->out);
	}
	pthread_mutex_unlock(&ph->lock);
	return NULL;
}

void
ofan_phase_begin(struct ofan_phase *ph, FILE *out, const char *prog,
		 const char *fmt, ...)
{
	pthread_condattr_t ca;
	va_list ap;
	int n;

	memset(ph, 0, sizeof(*ph));
	if (out == NULL)
		return;
	n = snprintf(ph->what, sizeof(ph->what), "%s: ", prog);
	if (n < 0 || (size_t)n >= sizeof(ph->what))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(ph->what + n, sizeof(ph->what) - (size_t)n, fmt, ap);
	va_end(ap);
	ph->out = out;
	clock_gettime(CLOCK_MONOTONIC, &ph->t0);
	pthread_mutex_init(&ph->lock, NULL);
	/* The deadlines are CLOCK_MONOTONIC times, like t0. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ph->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&ph->thread, NULL, ofan_phase_watch, ph) == 0) {
		ph->running = true;
		return;
	}
	pthread_cond_destroy(&ph->cond);
	pthread_mutex_destroy(&ph->lock);
}

void
ofan_phase_end(struct ofan_phase *ph)
{
	if (!ph->running)
		return;
	pthread_mutex_lock(&ph->lock);
	ph->done = true;
	pthread_cond_signal(&ph->cond);
	pthread_mutex_unlock(&ph->lock);
	pthread_join(ph->thread, NULL);
	ph->running = false;
	if (ph->nb_lines > 0) {
		fprintf(ph->out, "%s: done in %.1f s\n", ph->what,
			ofan_phase_elapsed(ph));
		fflush(ph->out);
	}
	pthread_cond_destroy(&ph->cond);
	pthread_mutex_destroy(&ph->lock);
}
