/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Clocks.  Engines never read the TSC: they are handed `now` (nanoseconds)
 * by whoever drives them.  ofan-switch and ofan-host use a wall clock on
 * the TSC; ofan-fabric uses a virtual clock it advances event by event, so
 * that the same seed gives the same result on any machine.
 */
#ifndef OFAN_CLOCK_H
#define OFAN_CLOCK_H

#include <stdint.h>
#include <time.h>

enum ofan_clock_kind {
	OFAN_CLOCK_TSC,		/* wall clock: nanoseconds since init */
	OFAN_CLOCK_VIRTUAL,	/* virtual nanoseconds, advanced explicitly */
};

struct ofan_clock {
	enum ofan_clock_kind kind;
	uint64_t tsc_hz;	/* TSC: cycles per second */
	uint64_t tsc_start;	/* TSC: cycle count at init */
	uint64_t ns_mult;	/* TSC: ns = (cycles * ns_mult) >> 32 */
	uint64_t virtual_ns;	/* VIRTUAL: current time */
};

/*
 * TSC clock.  tsc_hz and tsc_now come from rte_get_tsc_hz() and
 * rte_rdtsc() of the caller, keeping this header free of EAL.
 */
static inline void
ofan_clock_init_tsc(struct ofan_clock *c, uint64_t tsc_hz, uint64_t tsc_now)
{
	c->kind = OFAN_CLOCK_TSC;
	c->tsc_hz = tsc_hz;
	c->tsc_start = tsc_now;
	c->ns_mult = (uint64_t)(((unsigned __int128)1000000000u << 32) /
				tsc_hz);
	c->virtual_ns = 0;
}

static inline void
ofan_clock_init_virtual(struct ofan_clock *c)
{
	c->kind = OFAN_CLOCK_VIRTUAL;
	c->tsc_hz = 0;
	c->tsc_start = 0;
	c->virtual_ns = 0;
}

/*
 * Convert a TSC reading of a TSC clock to nanoseconds since init: a
 * multiply and a shift (no division on the data path), exact to better
 * than one part in 2^32.
 */
static inline uint64_t
ofan_clock_tsc_to_ns(const struct ofan_clock *c, uint64_t tsc)
{
	uint64_t d = tsc - c->tsc_start;

	return (uint64_t)(((unsigned __int128)d * c->ns_mult) >> 32);
}

/*
 * Now on the system's real-time clock, in nanoseconds since the Unix
 * epoch: the one clock that every process of a testbed shares (--start-at
 * of ofan-switch and ofan-host), unlike the TSC clocks above, each of
 * which counts from its own process's start.
 */
static inline uint64_t
ofan_epoch_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The reading of a clock at the real-time moment at_epoch_ns, given that
 * it read now_ns at real time epoch_now_ns: negative for a moment before
 * the clock started.
 */
static inline int64_t
ofan_clock_at_epoch(uint64_t now_ns, uint64_t epoch_now_ns,
		    uint64_t at_epoch_ns)
{
	return (int64_t)now_ns + (int64_t)(at_epoch_ns - epoch_now_ns);
}

/* Advance a virtual clock; time never goes backwards. */
static inline void
ofan_clock_advance_to(struct ofan_clock *c, uint64_t ns)
{
	if (ns > c->virtual_ns)
		c->virtual_ns = ns;
}

/*
 * Split "prog [EAL args] -- [app args]": returns the index of "--" (the
 * EAL's argc), or -1 if there is none.  Sets *help when --help or -h stands
 * before it, so a program can answer without starting EAL.
 */
static inline int
ofan_split_args(int argc, char **argv, int *help)
{
	int i, j;

	*help = 0;
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2] == 0) {
			for (j = 1; j < i; j++)
				if ((argv[j][0] == '-' && argv[j][1] == 'h' &&
				     argv[j][2] == 0) ||
				    __builtin_strcmp(argv[j], "--help") == 0)
					*help = 1;
			return i;
		}
	}
	for (j = 1; j < argc; j++)
		if (__builtin_strcmp(argv[j], "--help") == 0 ||
		    __builtin_strcmp(argv[j], "-h") == 0)
			*help = 1;
	return -1;
}

#define OFAN_NS_PER_US 1000ull
#define OFAN_NS_PER_MS 1000000ull
#define OFAN_NS_PER_S 1000000000ull

/*
 * Time to serialise size bytes at rate_bps, rounded up, in ns.  Frames
 * take the 64-bit division (a 128-bit one is a libgcc call, ~3x slower:
 * it was the hottest line of ofan-fabric's link model); sizes from 2 GB
 * up take the exact 128-bit path.
 */
static inline uint64_t
ofan_tx_time_ns(uint64_t size_bytes, uint64_t rate_bps)
{
	unsigned __int128 bits;

	if (__builtin_expect(size_bytes < (1ull << 31) &&
			     rate_bps < (1ull << 62), 1))
		return (size_bytes * 8 * OFAN_NS_PER_S + rate_bps - 1) /
			rate_bps;
	bits = (unsigned __int128)size_bytes * 8 * OFAN_NS_PER_S;
	return (uint64_t)((bits + rate_bps - 1) / rate_bps);
}

#endif /* OFAN_CLOCK_H */
