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
 *              fuzzer's corpus, and the PFC, pause, trimmed, returned,
 *              NACK and CNP frames a switch's peers send
 *              (pcapgen_frames.c).
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
#include "pcapgen_frames.h"

#define PROG			"ofan-pcapgen"
#define FRAME_MIN_SIZE		64
#define FRAME_MAX_SIZE		9216
#define FRAME_BUF_SIZE		PCAPGEN_FRAME_BUF_SIZE
/* Frames are stamped this far apart, starting at time 0. */
#define GAP_NS			1000
#define PSN_MASK		0xffffff

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
"not_ipv4, mac_control_malformed, arp_malformed, ip_truncated,\n"
"bad_version, bad_ihl, bad_total_length, bad_ip_checksum, ttl_expired,\n"
"udp_truncated, bth_truncated, ack_truncated; four frames for\n"
"mac_control_malformed, two for bad_ihl, bad_total_length and\n"
"ttl_expired) and some good frames (data, ACK, ARP request and reply).\n"
"Prints a CSV 'reason,count' of what was written, 'good' last.\n"
"bad_ip_checksum is reported only when the parser verifies checksums.\n"
"\n"
"seeds: write the frames of 'malformed' into DIR, one raw file each, as a\n"
"fuzzing corpus, and what a switch's peers send besides data: PFC frames\n"
"(several class-enable vectors and quanta, one VLAN-tagged), 802.3x\n"
"pauses, trimmed and returned headers, a mark ofan does not define,\n"
"a NACK, ACKs with CE and COUNT, a RoCEv2 CNP, a VLAN-tagged data frame.\n"
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

/* Build crafted frame i into f, or say why the table is wrong. */
static int
build_crafted(unsigned int i, uint8_t *f)
{
	char err[256];
	int len = pcapgen_frame_build(i, f, err, sizeof(err));

	if (len < 0)
		fprintf(stderr, PROG ": internal error: %s\n", err);
	return len;
}

static int
run_malformed(const char *path)
{
	uint8_t frame[PCAPGEN_FRAME_BUF_SIZE];
	struct ofan_pcap_writer *w;
	unsigned int counts[pcapgen_nb_frames];
	unsigned int first[pcapgen_nb_frames];
	unsigned int i, j, nb = 0;
	int len;
	int ret;

	memset(counts, 0, sizeof(counts));
	ret = open_writer(path, &w);
	if (ret < 0)
		return ret;
	for (i = 0; i < pcapgen_nb_frames; i++) {
		first[i] = i;
		if (pcapgen_frames[i].seed_only)
			continue;
		len = build_crafted(i, frame);
		if (len < 0) {
			ofan_pcap_writer_close(w);
			return len;
		}
		ofan_pcap_write(w, frame, (uint32_t)len,
				(uint64_t)nb++ * GAP_NS);
		/* Count per reason, under the reason's first table row. */
		for (j = 0; strcmp(pcapgen_frames[j].reason,
				   pcapgen_frames[i].reason); j++)
			;
		first[i] = j;
		counts[j]++;
	}
	ret = close_writer(path, w);
	if (ret < 0)
		return ret;

	printf("reason,count\n");
	for (i = 0; i < pcapgen_nb_frames; i++)
		if (first[i] == i && counts[i] != 0)
			printf("%s,%u\n", pcapgen_frames[i].reason, counts[i]);
	return 0;
}

static int
run_seeds(const char *dir)
{
	uint8_t frame[PCAPGEN_FRAME_BUF_SIZE];
	char path[4096];
	unsigned int i;
	FILE *fp;
	int len;

	for (i = 0; i < pcapgen_nb_frames; i++) {
		len = build_crafted(i, frame);
		if (len < 0)
			return len;
		snprintf(path, sizeof(path), "%s/%02u-%s-%s.bin", dir, i,
			 pcapgen_frames[i].reason, pcapgen_frames[i].what);
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
