/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The common start of a testbed's processes (--start-at of ofan-switch
 * and ofan-host).  Each process counts from its own start on its own TSC
 * clock; a schedule shared by several processes -- the hosts' traffic
 * and the switches' failures and reroutes -- needs one moment they all
 * know, on the clock they share, the system's real-time clock:
 *   EPOCH   seconds since the Unix epoch, e.g. "1764633600.25": for
 *           machines whose clocks agree (NTP, PTP), or a launcher that can
 *           tell how long its processes take to start;
 *   @FILE   the same, read from FILE once it appears, ended by a line
 *           end: a launcher writes it when every process is up, a little
 *           ahead of now, so that nobody misses the moment however slow
 *           the start was (testbed/testbed.sh; "echo T > FILE" works, a
 *           rename into place is safest).
 * EAL-free, so that it is unit-tested alone.
 */
#ifndef OFAN_START_H
#define OFAN_START_H

#include <stddef.h>
#include <stdint.h>

#define OFAN_START_PATH_SIZE 4096

struct ofan_start {
	uint64_t at_ns;		/* the moment, epoch ns; 0: not known yet */
	char path[OFAN_START_PATH_SIZE];	/* @FILE's FILE, or "" */
};

/* Parse a --start-at value into s.  Returns 0 or -EINVAL. */
int ofan_start_parse(const char *arg, struct ofan_start *s);

/*
 * Whether the moment is known: 1 (s->at_ns is set), 0 (FILE does not
 * exist yet, or holds no whole line yet: ask again later), -EINVAL if FILE
 * holds no moment ("FILE: 'TEXT' is not ..." in err) or -errno if it
 * cannot be read ("FILE: cannot read: why").
 */
int ofan_start_poll(struct ofan_start *s, char *err, size_t err_size);

#endif /* OFAN_START_H */
