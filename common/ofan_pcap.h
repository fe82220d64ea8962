/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap files through libpcap: a writer (nanosecond pcap, Ethernet link
 * type) for golden files, traces and generated test inputs, and a reader
 * that walks a file frame by frame.
 */
#ifndef OFAN_PCAP_H
#define OFAN_PCAP_H

#include <stdint.h>

struct ofan_pcap_writer;
struct ofan_pcap_reader;

/* Open path for writing; NULL with a message in err on failure. */
struct ofan_pcap_writer *ofan_pcap_writer_open(const char *path, char *err,
					       unsigned int err_size);
/* Append one frame with a timestamp in nanoseconds. */
void ofan_pcap_write(struct ofan_pcap_writer *w, const uint8_t *frame,
		     uint32_t len, uint64_t ts_ns);
/* Flush and close; returns 0 or -EIO. */
int ofan_pcap_writer_close(struct ofan_pcap_writer *w);

/* Open path for reading; NULL with a message in err on failure. */
struct ofan_pcap_reader *ofan_pcap_reader_open(const char *path, char *err,
					       unsigned int err_size);
/*
 * Next frame: returns 1 and sets *frame (valid until the next call),
 * *caplen, *wirelen, *ts_ns; 0 at end of file; -EIO on a read error.
 */
int ofan_pcap_read(struct ofan_pcap_reader *r, const uint8_t **frame,
		   uint32_t *caplen, uint32_t *wirelen, uint64_t *ts_ns);
void ofan_pcap_reader_close(struct ofan_pcap_reader *r);

#endif /* OFAN_PCAP_H */
