/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-pcapgen: write pcap files of ofan traffic for golden tests,
 * benchmarks and fuzz corpora.
 *
 *   flows      N well-formed packets, round-robin over K flows, with an
 *              ACK every J-th packet if asked for.
 *   malformed  one frame per drop reason the parser can return, plus a few
 *              good frames; a CSV of what was written goes to stdout.
 *   seeds      the frames of "malformed" as one raw file each, to seed a
 *              fuzzer's corpus.
 *
 * Everything is deterministic: the same arguments give the same bytes.
 * Every frame written by "malformed" is checked against the parser before
 * it is written, so the CSV says what the parser will really report.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofan_config.h"
#include "ofan_parse.h"
#include "ofan_pcap.h"
#include "ofan_rng.h"
#include "ofan_wire.h"
#include "ofan_version.h"

#define PROG			"ofan-pcapgen"
#define FRAME_MIN_SIZE		64
#define FRAME_MAX_SIZE		9216
#define FRAME_BUF_SIZE		(FRAME_MAX_SIZE + 64)
/* Frames are stamped this far apart, starting at time 0. */
#define GAP_NS			1000
#define PSN_MASK		0xffffff
#define ETH_MIN_FRAME		60

#define IPV4(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static const char usage_text[] =
"Usage:\n"
"  " PROG " flows --out FILE --count N [options]\n"
"  " PROG " malformed --out FILE\n"
"  " PROG " seeds --out-dir DIR\n"
"  " PROG " --help\n"
"  " PROG " --version\n"
"\n"
"flows: N well-formed ofan packets (RoCEv2 SEND ONLY data, RC ACKs),\n"
"round-robin over K flows.  Flow f (0-based) has EV (UDP source port)\n"
"ev-base + f, destination QP f + 1 and destination address\n"
"dst-net + (f %% dst-count) + 1; its PSNs increase by one per data packet.\n"
"ACKs of flow f carry the same addresses and EV as its data (so one route\n"
"carries the whole trace) and acknowledge the flow's last data packet.\n"
"Frames are stamped 1 us apart from time 0.\n"
"  --out FILE         pcap file to write (nanosecond timestamps)\n"
"  --count N          number of packets, 1..1000000000\n"
"  --flows K          number of flows, 1..65535 (default 1)\n"
"  --size BYTES       data frame size from the Ethernet header to the end\n"
"                     of the payload (no FCS), %d..%d (default 1024);\n"
"                     ACK frames are always %d bytes\n"
"  --src-ip A         source address (default 10.0.0.1)\n"
"  --dst-net A.B.C.0  base of the destination addresses (default 10.1.0.0)\n"
"  --dst-count M      number of destination addresses, 1..65535\n"
"                     (default 1)\n"
"  --ev-base E        EV of flow 0; ev-base + K - 1 must be <= 65535\n"
"                     (default 49152)\n"
"  --acks-every J     make every J-th packet an ACK (default: no ACKs)\n"
"  --ack-flags F      the ACKs' feedback flags: 1 CE, 2 COUNT (default 0)\n"
"  --ack-sack X       the ACKs' SACK bitmap, 0..2^64-1 (default 0)\n"
"  --ecn MODE         ECN codepoint: ect0, not-ect, ect1 or ce\n"
"                     (default ect0)\n"
"  --seed S           start each flow at a PSN drawn from seed S (default:\n"
"                     every flow starts at PSN 0); PSNs wrap at 2^24\n"
"  --src-mac M        source MAC (default 02:00:00:00:00:01)\n"
"  --dst-mac M        destination MAC (default 02:00:00:00:00:02)\n"
"\n"
"malformed: one frame per drop reason the parser can return (runt,\n"
"not_ipv4, arp_malformed, ip_truncated, bad_version, bad_ihl,\n"
"bad_total_length, bad_ip_checksum, ttl_expired, udp_truncated,\n"
"bth_truncated, ack_truncated; two frames for bad_ihl, bad_total_length\n"
"and ttl_expired) and some good frames (data, ACK, ARP request and\n"
"reply).  Prints a CSV 'reason,count' of what was written, 'good' last.\n"
"bad_ip_checksum is reported only when the parser verifies checksums.\n"
"\n"
"seeds: write the frames of 'malformed' into DIR, one raw file each, as a\n"
"fuzzing corpus.\n"
"\n"
"Numbers are decimal; a bad or out-of-range value is an error.\n";

static void
usage(FILE *out)
{
	fprintf(out, usage_text, FRAME_MIN_SIZE, FRAME_MAX_SIZE,
		OFAN_ACK_FRAME_SIZE);
}

/* Settings of the "flows" command. */
struct flows_opts {
	const char *out;
	uint64_t count;
	uint64_t nb_flows;
	uint64_t size;
	uint32_t src_ip;
	uint32_t dst_net;
	uint64_t dst_count;
	uint64_t ev_base;
	uint64_t acks_every;	/* 0: no ACKs */
	uint64_t ack_flags;	/* OFAN_ACK_F_* of every ACK */
	uint64_t ack_sack;	/* SACK bitmap of every ACK */
	uint8_t ecn;
	int has_seed;
	uint64_t seed;
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
};

static int
bad_value(const char *opt, const char *value, const char *expected)
{
	fprintf(stderr, PROG ": --%s: '%s' is not valid; expected %s\n",
		opt, value, expected);
	return -EINVAL;
}

static int
get_u64(const char *opt, const char *value, uint64_t min, uint64_t max,
	uint64_t *out)
{
	char expected[96];
	uint64_t v;

	snprintf(expected, sizeof(expected), "a decimal number in %" PRIu64
		 "..%" PRIu64, min, max);
	if (ofan_parse_u64(value, &v) < 0 || v < min || v > max)
		return bad_value(opt, value, expected);
	*out = v;
	return 0;
}

static int
get_ipv4(const char *opt, const char *value, uint32_t *out)
{
	if (ofan_parse_ipv4(value, out) < 0)
		return bad_value(opt, value, "a dotted-quad IPv4 address");
	return 0;
}

static int
get_mac(const char *opt, const char *value, uint8_t mac[6])
{
	if (ofan_parse_mac(value, mac) < 0)
		return bad_value(opt, value,
				 "a MAC address like 02:00:00:00:00:01");
	return 0;
}

static int
get_ecn(const char *value, uint8_t *out)
{
	static const struct {
		const char *name;
		uint8_t ecn;
	} modes[] = {
		{ "ect0", OFAN_ECN_ECT0 },
		{ "not-ect", OFAN_ECN_NOT_ECT },
		{ "ect1", OFAN_ECN_ECT1 },
		{ "ce", OFAN_ECN_CE },
	};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(value, modes[i].name) == 0) {
			*out = modes[i].ecn;
			return 0;
		}
	}
	return bad_value("ecn", value, "one of ect0, not-ect, ect1, ce");
}

enum {
	OPT_OUT = 256,
	OPT_OUT_DIR,
	OPT_COUNT,
	OPT_FLOWS,
	OPT_SIZE,
	OPT_SRC_IP,
	OPT_DST_NET,
	OPT_DST_COUNT,
	OPT_EV_BASE,
	OPT_ACKS_EVERY,
	OPT_ACK_FLAGS,
	OPT_ACK_SACK,
	OPT_ECN,
	OPT_SEED,
	OPT_SRC_MAC,
	OPT_DST_MAC,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{ "out", required_argument, NULL, OPT_OUT },
	{ "out-dir", required_argument, NULL, OPT_OUT_DIR },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "src-ip", required_argument, NULL, OPT_SRC_IP },
	{ "dst-net", required_argument, NULL, OPT_DST_NET },
	{ "dst-count", required_argument, NULL, OPT_DST_COUNT },
	{ "ev-base", required_argument, NULL, OPT_EV_BASE },
	{ "acks-every", required_argument, NULL, OPT_ACKS_EVERY },
	{ "ack-flags", required_argument, NULL, OPT_ACK_FLAGS },
	{ "ack-sack", required_argument, NULL, OPT_ACK_SACK },
	{ "ecn", required_argument, NULL, OPT_ECN },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "src-mac", required_argument, NULL, OPT_SRC_MAC },
	{ "dst-mac", required_argument, NULL, OPT_DST_MAC },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* Options each command accepts, as a list of OPT_* values ending in 0. */
static const int flows_allowed[] = {
	OPT_OUT, OPT_COUNT, OPT_FLOWS, OPT_SIZE, OPT_SRC_IP, OPT_DST_NET,
	OPT_DST_COUNT, OPT_EV_BASE, OPT_ACKS_EVERY, OPT_ACK_FLAGS,
	OPT_ACK_SACK, OPT_ECN, OPT_SEED,
	OPT_SRC_MAC, OPT_DST_MAC, 0
};
static const int malformed_allowed[] = { OPT_OUT, 0 };
static const int seeds_allowed[] = { OPT_OUT_DIR, 0 };

static int
opt_allowed(const int *allowed, int opt)
{
	for (; *allowed != 0; allowed++)
		if (*allowed == opt)
			return 1;
	return 0;
}

static const char *
opt_name(int opt)
{
	const struct option *lo;

	for (lo = long_opts; lo->name != NULL; lo++)
		if (lo->val == opt)
			return lo->name;
	return "?";
}

/*
 * Parse the options after the command name into o (defaults already set).
 * Returns 0, 1 for --help, or -EINVAL with a message on stderr.
 */
static int
parse_opts(int argc, char **argv, const char *cmd, const int *allowed,
	   struct flows_opts *o, const char **out_dir)
{
	int opt;
	int ret = 0;

	opterr = 0;
	optind = 1;
	while (ret == 0 &&
	       (opt = getopt_long(argc, argv, "+", long_opts, NULL)) != -1) {
		if (opt == OPT_HELP)
			return 1;
		if (opt == '?' || opt == ':') {
			fprintf(stderr, PROG " %s: unknown option or missing "
				"value: '%s'\n", cmd, argv[optind - 1]);
			return -EINVAL;
		}
		if (!opt_allowed(allowed, opt)) {
			fprintf(stderr, PROG " %s: option --%s does not apply "
				"to this command\n", cmd, opt_name(opt));
			return -EINVAL;
		}
		switch (opt) {
		case OPT_OUT:
			o->out = optarg;
			break;
		case OPT_OUT_DIR:
			*out_dir = optarg;
			break;
		case OPT_COUNT:
			ret = get_u64("count", optarg, 1, 1000000000,
				      &o->count);
			break;
		case OPT_FLOWS:
			ret = get_u64("flows", optarg, 1, UINT16_MAX,
				      &o->nb_flows);
			break;
		case OPT_SIZE:
			ret = get_u64("size", optarg, FRAME_MIN_SIZE,
				      FRAME_MAX_SIZE, &o->size);
			break;
		case OPT_SRC_IP:
			ret = get_ipv4("src-ip", optarg, &o->src_ip);
			break;
		case OPT_DST_NET:
			ret = get_ipv4("dst-net", optarg, &o->dst_net);
			break;
		case OPT_DST_COUNT:
			ret = get_u64("dst-count", optarg, 1, UINT16_MAX,
				      &o->dst_count);
			break;
		case OPT_EV_BASE:
			ret = get_u64("ev-base", optarg, 0, UINT16_MAX,
				      &o->ev_base);
			break;
		case OPT_ACKS_EVERY:
			ret = get_u64("acks-every", optarg, 1, UINT32_MAX,
				      &o->acks_every);
			break;
		case OPT_ACK_FLAGS:
			ret = get_u64("ack-flags", optarg, 0, 3, &o->ack_flags);
			break;
		case OPT_ACK_SACK:
			ret = get_u64("ack-sack", optarg, 0, UINT64_MAX,
				      &o->ack_sack);
			break;
		case OPT_ECN:
			ret = get_ecn(optarg, &o->ecn);
			break;
		case OPT_SEED:
			ret = get_u64("seed", optarg, 0, UINT64_MAX, &o->seed);
			o->has_seed = 1;
			break;
		case OPT_SRC_MAC:
			ret = get_mac("src-mac", optarg, o->src_mac);
			break;
		case OPT_DST_MAC:
			ret = get_mac("dst-mac", optarg, o->dst_mac);
			break;
		}
	}
	if (ret == 0 && optind < argc) {
		fprintf(stderr, PROG " %s: unexpected argument '%s'\n", cmd,
			argv[optind]);
		return -EINVAL;
	}
	return ret;
}

static void
flows_defaults(struct flows_opts *o)
{
	static const uint8_t src_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t dst_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

	memset(o, 0, sizeof(*o));
	o->nb_flows = 1;
	o->size = 1024;
	o->src_ip = IPV4(10, 0, 0, 1);
	o->dst_net = IPV4(10, 1, 0, 0);
	o->dst_count = 1;
	o->ev_base = 49152;
	o->ecn = OFAN_ECN_ECT0;
	memcpy(o->src_mac, src_mac, 6);
	memcpy(o->dst_mac, dst_mac, 6);
}

/* Cross-option checks of "flows". */
static int
flows_check(const struct flows_opts *o)
{
	if (o->out == NULL) {
		fprintf(stderr, PROG " flows: --out FILE is required\n");
		return -EINVAL;
	}
	if (o->count == 0) {
		fprintf(stderr, PROG " flows: --count N is required\n");
		return -EINVAL;
	}
	if (o->ev_base + o->nb_flows - 1 > UINT16_MAX) {
		fprintf(stderr, PROG " flows: --ev-base %" PRIu64 " with %"
			PRIu64 " flows gives EVs past 65535\n", o->ev_base,
			o->nb_flows);
		return -EINVAL;
	}
	if ((uint64_t)o->dst_net + o->dst_count > UINT32_MAX) {
		fprintf(stderr, PROG " flows: --dst-count %" PRIu64
			" addresses past --dst-net run beyond "
			"255.255.255.255\n", o->dst_count);
		return -EINVAL;
	}
	return 0;
}

static int
open_writer(const char *path, struct ofan_pcap_writer **w)
{
	char err[512];

	*w = ofan_pcap_writer_open(path, err, sizeof(err));
	if (*w == NULL) {
		fprintf(stderr, PROG ": %s\n", err);
		return -EIO;
	}
	return 0;
}

static int
close_writer(const char *path, struct ofan_pcap_writer *w)
{
	if (ofan_pcap_writer_close(w) < 0) {
		fprintf(stderr, PROG ": %s: write error\n", path);
		return -EIO;
	}
	return 0;
}

static int
run_flows(const struct flows_opts *o)
{
	struct ofan_pcap_writer *w;
	struct ofan_pkt_spec spec;
	struct ofan_ack_ext ext;
	struct ofan_rng rng;
	uint32_t *next_psn;
	uint8_t *frame;
	uint64_t i;
	uint32_t f;
	int len;
	int ret;

	next_psn = calloc(o->nb_flows, sizeof(*next_psn));
	frame = malloc(FRAME_BUF_SIZE);
	if (next_psn == NULL || frame == NULL) {
		fprintf(stderr, PROG " flows: out of memory\n");
		free(next_psn);
		free(frame);
		return -ENOMEM;
	}
	for (f = 0; o->has_seed && f < o->nb_flows; f++) {
		ofan_rng_seed(&rng, o->seed, f);
		next_psn[f] = (uint32_t)ofan_rng_next(&rng) & PSN_MASK;
	}
	ret = open_writer(o->out, &w);
	if (ret < 0)
		goto out;

	memset(&spec, 0, sizeof(spec));
	memcpy(spec.src_mac, o->src_mac, 6);
	memcpy(spec.dst_mac, o->dst_mac, 6);
	spec.src_ip = o->src_ip;
	spec.tos = o->ecn;
	spec.payload_size = (uint16_t)(o->size - OFAN_DATA_HDRS_SIZE);
	for (i = 0; i < o->count; i++) {
		f = (uint32_t)(i % o->nb_flows);
		spec.dst_ip = o->dst_net + (uint32_t)(f % o->dst_count) + 1;
		spec.ev = (uint16_t)(o->ev_base + f);
		spec.dest_qp = f + 1;
		if (o->acks_every != 0 && (i + 1) % o->acks_every == 0) {
			/* Acknowledge the flow's last data packet. */
			spec.psn = (next_psn[f] - 1) & PSN_MASK;
			ext = (struct ofan_ack_ext){
				.echo_ev = spec.ev,
				.flags = (uint8_t)o->ack_flags,
				.echo_psn = spec.psn,
				.cum_psn = next_psn[f],
				.sack = o->ack_sack,
			};
			len = ofan_build_ack(frame, FRAME_BUF_SIZE, &spec,
					     &ext);
		} else {
			spec.psn = next_psn[f];
			next_psn[f] = (next_psn[f] + 1) & PSN_MASK;
			len = ofan_build_data(frame, FRAME_BUF_SIZE, &spec);
		}
		if (len < 0) {
			fprintf(stderr, PROG " flows: cannot build packet %"
				PRIu64 ": %s\n", i, strerror(-len));
			ofan_pcap_writer_close(w);
			ret = len;
			goto out;
		}
		ofan_pcap_write(w, frame, (uint32_t)len, i * GAP_NS);
	}
	ret = close_writer(o->out, w);
out:
	free(next_psn);
	free(frame);
	return ret;
}

/*
 * The frames of "malformed" and "seeds".  Each maker writes one frame into
 * f (FRAME_BUF_SIZE bytes, zeroed) and returns its length.  All start from
 * the same data packet, ACK or ARP and change one thing; all but
 * bad_ip_checksum keep a valid IPv4 checksum.
 */
struct crafted {
	const char *reason;	/* drop name, or "good" */
	const char *what;	/* file name part for "seeds" */
	int (*make)(uint8_t *f);
};

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static struct ofan_ipv4_hdr *
ip_of(uint8_t *f)
{
	return (struct ofan_ipv4_hdr *)(f + OFAN_ETH_HDR_SIZE);
}

static void
fix_csum(uint8_t *f)
{
	struct ofan_ipv4_hdr *ip = ip_of(f);

	ip->checksum = 0;
	ip->checksum = ofan_ipv4_checksum(ip, (ip->version_ihl & 0xf) * 4u);
}

static struct ofan_pkt_spec
base_spec(uint16_t payload_size)
{
	struct ofan_pkt_spec spec = {
		.src_ip = IPV4(10, 0, 0, 1),
		.dst_ip = IPV4(10, 1, 0, 1),
		.ev = 49152,
		.tos = OFAN_ECN_ECT0,
		.dest_qp = 1,
		.psn = 0,
		.payload_size = payload_size,
	};

	memcpy(spec.src_mac, mac_a, 6);
	memcpy(spec.dst_mac, mac_b, 6);
	return spec;
}

/* A data frame of exactly the Ethernet minimum (60 bytes, no FCS). */
static int
data_min(uint8_t *f)
{
	struct ofan_pkt_spec spec = base_spec(ETH_MIN_FRAME -
					      OFAN_DATA_HDRS_SIZE);

	return ofan_build_data(f, FRAME_BUF_SIZE, &spec);
}

/* Set the IPv4 total length (and the UDP length to match) of f. */
static void
set_ip_len(uint8_t *f, uint16_t ip_len)
{
	struct ofan_ipv4_hdr *ip = ip_of(f);
	struct ofan_udp_hdr *udp = (struct ofan_udp_hdr *)(ip + 1);

	ip->total_length = htons(ip_len);
	if (ip_len >= OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE)
		udp->length = htons(ip_len - OFAN_IPV4_HDR_SIZE);
	fix_csum(f);
}

static int
pad(int len)
{
	return len < ETH_MIN_FRAME ? ETH_MIN_FRAME : len;
}

static int
make_runt(uint8_t *f)
{
	data_min(f);
	return 12;
}

static int
make_ipv6(uint8_t *f)
{
	static const uint8_t hdr[40 + 8] = {
		0x60, 0, 0, 0, 0x00, 0x10, OFAN_IPPROTO_UDP, 64,
		0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		0xc0, 0x00, 0x12, 0xb7, 0x00, 0x10, 0x00, 0x00,
	};

	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	wr16(f + 12, OFAN_ETHER_TYPE_IPV6);
	memcpy(f + OFAN_ETH_HDR_SIZE, hdr, sizeof(hdr));
	return OFAN_ETH_HDR_SIZE + (int)sizeof(hdr) + 8;
}

static int
make_arp_request(uint8_t *f)
{
	static const uint8_t unknown[6];

	return pad(ofan_build_arp(f, FRAME_BUF_SIZE, OFAN_ARP_OP_REQUEST,
				  mac_a, IPV4(10, 0, 0, 1), unknown,
				  IPV4(10, 0, 0, 254)));
}

static int
make_arp_reply(uint8_t *f)
{
	return pad(ofan_build_arp(f, FRAME_BUF_SIZE, OFAN_ARP_OP_REPLY,
				  mac_b, IPV4(10, 0, 0, 254), mac_a,
				  IPV4(10, 0, 0, 1)));
}

static int
make_arp_bad_htype(uint8_t *f)
{
	int len = make_arp_request(f);

	wr16(f + OFAN_ETH_HDR_SIZE, 6);
	return len;
}

static int
make_ip_truncated(uint8_t *f)
{
	data_min(f);
	return OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE - 1;
}

static int
make_bad_version(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->version_ihl = 6 << 4 | 5;
	fix_csum(f);
	return len;
}

static int
make_ihl_4(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->version_ihl = 4 << 4 | 4;
	fix_csum(f);
	return len;
}

static int
make_ihl_15(uint8_t *f)
{
	/* 60 bytes of header would end at 74, past the 60-byte frame. */
	int len = data_min(f);

	ip_of(f)->version_ihl = 4 << 4 | 15;
	return len;
}

static int
make_total_length_small(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->total_length = htons(OFAN_IPV4_HDR_SIZE - 1);
	fix_csum(f);
	return len;
}

static int
make_total_length_large(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->total_length = htons((uint16_t)(len -
						  OFAN_ETH_HDR_SIZE + 1));
	fix_csum(f);
	return len;
}

static int
make_bad_checksum(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->checksum ^= htons(0x0001);
	return len;
}

static int
make_ttl_1(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->ttl = 1;
	fix_csum(f);
	return len;
}

static int
make_ttl_0(uint8_t *f)
{
	int len = data_min(f);

	ip_of(f)->ttl = 0;
	fix_csum(f);
	return len;
}

static int
make_udp_truncated(uint8_t *f)
{
	/* IPv4 ends 4 bytes into UDP; the rest is Ethernet padding. */
	int len = data_min(f);

	set_ip_len(f, OFAN_IPV4_HDR_SIZE + 4);
	return len;
}

static int
make_bth_truncated(uint8_t *f)
{
	int len = data_min(f);

	set_ip_len(f, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE + 8);
	return len;
}

static int
make_ack(uint8_t *f)
{
	struct ofan_pkt_spec spec = base_spec(0);
	struct ofan_ack_ext ext = {
		.echo_ev = spec.ev,
		.echo_psn = 7,
		.cum_psn = 8,
	};

	return ofan_build_ack(f, FRAME_BUF_SIZE, &spec, &ext);
}

static int
make_ack_truncated(uint8_t *f)
{
	int len = make_ack(f);

	/* AETH and 10 of the 20 bytes of the feedback extension. */
	set_ip_len(f, OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE +
		   OFAN_AETH_SIZE + 10);
	return len - 10;
}

static int
make_data(uint8_t *f)
{
	struct ofan_pkt_spec spec = base_spec(128 - OFAN_DATA_HDRS_SIZE);

	return ofan_build_data(f, FRAME_BUF_SIZE, &spec);
}

static const struct crafted crafted[] = {
	{ "runt", "runt", make_runt },
	{ "not_ipv4", "ipv6", make_ipv6 },
	{ "arp_malformed", "arp_htype", make_arp_bad_htype },
	{ "ip_truncated", "ip_truncated", make_ip_truncated },
	{ "bad_version", "version_6", make_bad_version },
	{ "bad_ihl", "ihl_4", make_ihl_4 },
	{ "bad_ihl", "ihl_15", make_ihl_15 },
	{ "bad_total_length", "total_length_small", make_total_length_small },
	{ "bad_total_length", "total_length_large", make_total_length_large },
	{ "bad_ip_checksum", "bad_checksum", make_bad_checksum },
	{ "ttl_expired", "ttl_1", make_ttl_1 },
	{ "ttl_expired", "ttl_0", make_ttl_0 },
	{ "udp_truncated", "udp_truncated", make_udp_truncated },
	{ "bth_truncated", "bth_truncated", make_bth_truncated },
	{ "ack_truncated", "ack_truncated", make_ack_truncated },
	{ "good", "data", make_data },
	{ "good", "ack", make_ack },
	{ "good", "arp_request", make_arp_request },
	{ "good", "arp_reply", make_arp_reply },
};

#define NB_CRAFTED ((int)(sizeof(crafted) / sizeof(crafted[0])))

/*
 * Build crafted frame i into f and check that the parser (verifying
 * checksums, as a switch) reports what the table says.  Returns the
 * length, or -EPROTO if the frame does not do what it should: a bug here.
 */
static int
build_crafted(int i, uint8_t *f)
{
	struct ofan_pkt_info info;
	const char *got;
	int len;
	int ret;

	memset(f, 0, FRAME_BUF_SIZE);
	len = crafted[i].make(f);
	if (len < 0)
		return len;
	ret = ofan_parse(f, (uint32_t)len, OFAN_PARSE_F_VERIFY_CSUM, &info);
	got = ret == OFAN_PARSE_OK ? "good" : ofan_drop_name(ret);
	if (strcmp(got, crafted[i].reason) != 0) {
		fprintf(stderr, PROG ": internal error: frame '%s' parses as "
			"%s, not %s\n", crafted[i].what, got,
			crafted[i].reason);
		return -EPROTO;
	}
	return len;
}

static int
run_malformed(const char *path)
{
	uint8_t frame[FRAME_BUF_SIZE];
	struct ofan_pcap_writer *w;
	int counts[NB_CRAFTED] = { 0 };
	int first[NB_CRAFTED];
	int i;
	int j;
	int len;
	int ret;

	ret = open_writer(path, &w);
	if (ret < 0)
		return ret;
	for (i = 0; i < NB_CRAFTED; i++) {
		len = build_crafted(i, frame);
		if (len < 0) {
			ofan_pcap_writer_close(w);
			return len;
		}
		ofan_pcap_write(w, frame, (uint32_t)len,
				(uint64_t)i * GAP_NS);
		/* Count per reason, under the reason's first table row. */
		for (j = 0; strcmp(crafted[j].reason, crafted[i].reason); j++)
			;
		first[i] = j;
		counts[j]++;
	}
	ret = close_writer(path, w);
	if (ret < 0)
		return ret;

	printf("reason,count\n");
	for (i = 0; i < NB_CRAFTED; i++)
		if (first[i] == i)
			printf("%s,%d\n", crafted[i].reason, counts[i]);
	return 0;
}

static int
run_seeds(const char *dir)
{
	uint8_t frame[FRAME_BUF_SIZE];
	char path[4096];
	FILE *fp;
	int len;
	int i;

	for (i = 0; i < NB_CRAFTED; i++) {
		len = build_crafted(i, frame);
		if (len < 0)
			return len;
		snprintf(path, sizeof(path), "%s/%02d-%s-%s.bin", dir, i,
			 crafted[i].reason, crafted[i].what);
		fp = fopen(path, "wb");
		if (fp == NULL) {
			fprintf(stderr, PROG " seeds: %s: %s\n", path,
				strerror(errno));
			return -errno;
		}
		if (fwrite(frame, 1, (size_t)len, fp) != (size_t)len ||
		    fclose(fp) != 0) {
			fprintf(stderr, PROG " seeds: %s: write error\n",
				path);
			return -EIO;
		}
	}
	return 0;
}

/* Run a parsed command; 0 or -errno with a message printed. */
static int
cmd_flows(struct flows_opts *o, const char *out_dir)
{
	int ret = flows_check(o);

	return ret < 0 ? ret : run_flows(o);
}

static int
cmd_malformed(struct flows_opts *o, const char *out_dir)
{
	if (o->out == NULL) {
		fprintf(stderr, PROG " malformed: --out FILE is required\n");
		return -EINVAL;
	}
	return run_malformed(o->out);
}

static int
cmd_seeds(struct flows_opts *o, const char *out_dir)
{
	if (out_dir == NULL) {
		fprintf(stderr, PROG " seeds: --out-dir DIR is required\n");
		return -EINVAL;
	}
	return run_seeds(out_dir);
}

static const struct command {
	const char *name;
	const int *allowed;
	int (*run)(struct flows_opts *o, const char *out_dir);
} commands[] = {
	{ "flows", flows_allowed, cmd_flows },
	{ "malformed", malformed_allowed, cmd_malformed },
	{ "seeds", seeds_allowed, cmd_seeds },
	{ NULL, NULL, NULL },
};

int
main(int argc, char **argv)
{
	const struct command *c;
	const char *out_dir = NULL;
	struct flows_opts o;
	int ret;

	if (ofan_version_asked(argc, argv))
		return ofan_version_print("ofan-pcapgen");
	if (argc < 2) {
		usage(stderr);
		return EXIT_FAILURE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_SUCCESS;
	}
	for (c = commands; c->name != NULL; c++)
		if (strcmp(argv[1], c->name) == 0)
			break;
	if (c->name == NULL) {
		fprintf(stderr, PROG ": unknown command '%s'; expected flows, "
			"malformed or seeds (see --help)\n", argv[1]);
		return EXIT_FAILURE;
	}
	flows_defaults(&o);
	ret = parse_opts(argc - 1, argv + 1, c->name, c->allowed, &o,
			 &out_dir);
	if (ret > 0) {
		usage(stdout);
		return EXIT_SUCCESS;
	}
	if (ret == 0)
		ret = c->run(&o, out_dir);
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
