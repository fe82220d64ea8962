/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The crafted frames of ofan-pcapgen's "malformed" and "seeds": one or
 * more frames per drop reason the parser can return, good frames of
 * every kind it accepts, and, for seeds only, the frames a switch's
 * peers send that a golden replay need not hold (PFC and pause frames,
 * trimmed and returned headers, NACKs, a CNP).
 *
 * A table rather than code in pcapgen.c so that tests/test_pcapgen.c
 * can hold the table to its promise without running the program: every
 * parser drop reason has a frame, each frame parses as its row says, and
 * the seeds carry each kind of frame a fuzzer should start from.
 */
#ifndef OFAN_PCAPGEN_FRAMES_H
#define OFAN_PCAPGEN_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes a maker may write (a jumbo frame and some). */
#define PCAPGEN_FRAME_BUF_SIZE (9216 + 64)

struct pcapgen_frame {
	const char *reason;	/* drop name, or "good" */
	const char *what;	/* file name part for "seeds" */
	/* Write the frame into f (zeroed, PCAPGEN_FRAME_BUF_SIZE bytes);
	 * returns its length. */
	int (*make)(uint8_t *f);
	/* Written by "seeds" only, not in the "malformed" pcap (whose
	 * golden test replays it through a switch without PFC). */
	bool seed_only;
};

extern const struct pcapgen_frame pcapgen_frames[];
extern const unsigned int pcapgen_nb_frames;

/*
 * Build frame i into f and check that the parser (verifying checksums,
 * as a switch with verify_checksum) reports what the table says.
 * Returns the length, or -EPROTO with a message in err if the frame does
 * not do what it should: a bug in the table.
 */
int pcapgen_frame_build(unsigned int i, uint8_t *f, char *err,
			size_t err_size);

#endif /* OFAN_PCAPGEN_FRAMES_H */
