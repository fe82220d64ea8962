/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap files through libpcap (see ofan_pcap.h).
 *
 * Files are written with nanosecond timestamps (the "nanosecond pcap"
 * magic) and the Ethernet link type, and read back with nanosecond
 * precision whatever precision the file was written with, so timestamps
 * are always nanoseconds on our side.  Errors name the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "ofan_pcap.h"

#define OFAN_PCAP_SNAPLEN	65535
#define OFAN_NS_PER_S		1000000000ull

struct ofan_pcap_writer {
	pcap_t *dead;		/* pcap handle that only describes the file */
	pcap_dumper_t *dumper;
};

struct ofan_pcap_reader {
	pcap_t *pcap;
};

static void
ofan_pcap_err(char *err, unsigned int err_size, const char *path,
	      const char *what, const char *detail)
{
	size_t path_len = strlen(path);

	if (err == NULL || err_size == 0)
		return;
	/* libpcap often starts its message with the path already. */
	if (strncmp(detail, path, path_len) == 0 &&
	    strncmp(detail + path_len, ": ", 2) == 0)
		detail += path_len + 2;
	snprintf(err, err_size, "%s: %s: %s", path, what, detail);
}

struct ofan_pcap_writer *
ofan_pcap_writer_open(const char *path, char *err, unsigned int err_size)
{
	struct ofan_pcap_writer *w;

	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		ofan_pcap_err(err, err_size, path, "cannot write pcap",
			      strerror(ENOMEM));
		return NULL;
	}
	w->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB,
			OFAN_PCAP_SNAPLEN, PCAP_TSTAMP_PRECISION_NANO);
	if (w->dead == NULL) {
		ofan_pcap_err(err, err_size, path, "cannot write pcap",
			      "pcap_open_dead failed");
		free(w);
		return NULL;
	}
	w->dumper = pcap_dump_open(w->dead, path);
	if (w->dumper == NULL) {
		ofan_pcap_err(err, err_size, path, "cannot write pcap",
			      pcap_geterr(w->dead));
		pcap_close(w->dead);
		free(w);
		return NULL;
	}
	return w;
}

void
ofan_pcap_write(struct ofan_pcap_writer *w, const uint8_t *frame,
		uint32_t len, uint64_t ts_ns)
{
	struct pcap_pkthdr hdr;

	/* With nanosecond precision libpcap takes nanoseconds in tv_usec. */
	hdr.ts.tv_sec = (time_t)(ts_ns / OFAN_NS_PER_S);
	hdr.ts.tv_usec = (suseconds_t)(ts_ns % OFAN_NS_PER_S);
	hdr.caplen = len < OFAN_PCAP_SNAPLEN ? len : OFAN_PCAP_SNAPLEN;
	hdr.len = len;
	pcap_dump((u_char *)w->dumper, &hdr, frame);
}

int
ofan_pcap_writer_close(struct ofan_pcap_writer *w)
{
	int ret = 0;

	if (w == NULL)
		return 0;
	/* Write errors are sticky on the stream; report them once here. */
	if (pcap_dump_flush(w->dumper) != 0 ||
	    ferror(pcap_dump_file(w->dumper)))
		ret = -EIO;
	pcap_dump_close(w->dumper);
	pcap_close(w->dead);
	free(w);
	return ret;
}

struct ofan_pcap_reader *
ofan_pcap_reader_open(const char *path, char *err, unsigned int err_size)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct ofan_pcap_reader *r;

	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		ofan_pcap_err(err, err_size, path, "cannot read pcap",
			      strerror(ENOMEM));
		return NULL;
	}
	r->pcap = pcap_open_offline_with_tstamp_precision(path,
			PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (r->pcap == NULL) {
		ofan_pcap_err(err, err_size, path, "cannot read pcap",
			      errbuf);
		free(r);
		return NULL;
	}
	if (pcap_datalink(r->pcap) != DLT_EN10MB) {
		ofan_pcap_err(err, err_size, path, "cannot read pcap",
			      "link type is not Ethernet (DLT_EN10MB)");
		pcap_close(r->pcap);
		free(r);
		return NULL;
	}
	return r;
}

int
ofan_pcap_read(struct ofan_pcap_reader *r, const uint8_t **frame,
	       uint32_t *caplen, uint32_t *wirelen, uint64_t *ts_ns)
{
	struct pcap_pkthdr *hdr;
	const u_char *data;
	int ret;

	ret = pcap_next_ex(r->pcap, &hdr, &data);
	if (ret == PCAP_ERROR_BREAK)
		return 0;
	if (ret != 1)
		return -EIO;
	*frame = data;
	*caplen = hdr->caplen;
	*wirelen = hdr->len;
	*ts_ns = (uint64_t)hdr->ts.tv_sec * OFAN_NS_PER_S +
		(uint64_t)hdr->ts.tv_usec;
	return 1;
}

void
ofan_pcap_reader_close(struct ofan_pcap_reader *r)
{
	if (r == NULL)
		return;
	pcap_close(r->pcap);
	free(r);
}
