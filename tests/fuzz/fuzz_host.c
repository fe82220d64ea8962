/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the host engine's input path (host/engine/hs_host_rx.c
 * with the transports behind it, hs_sack.c, hs_erasure.c and
 * hs_cumack.c, and the host policies' feedback), on EAL with one mempool.
 *
 * Each input is a small program, so that the fuzzer reaches flows in
 * every state quickly instead of guessing frames byte by byte:
 *
 *   1. A header (FZ_HDR_SIZE bytes; missing bytes read as 0) picks the
 *      recovery model, the congestion controller and the host policy
 *      from their registries (fuzz_host_modes.h: every registered one,
 *      FUZZ_HOST_MODES=1 prints the list), the policy's settings
 *      variant, tcp's dupacks, fast retransmit and sack_limit, sack's
 *      acks (rfc5681 or uec), the
 *      initial RTO, pacing, ECN window, CE echo, ACK frequency, MTU,
 *      erasure k, RTO, reorder window, EV range, 2-4 hosts and 1-6 tiny
 *      flows (1-8 packets, a few 60-130; start times, a dependency, an
 *      htsim oneshot trigger), a wire delay and a lossy wire: a drop
 *      mask over the first 32 frames, a black hole on a quarter of the
 *      EVs for a while (so that REPS, whose recent RTTs stay low,
 *      freezes on the timeout), CE marks and reordering; and whether the
 *      wire trims what it drops, as a trimming switch: data cut to its
 *      header (or only marked), marked trimmed and carried on to its
 *      receiver, or with rts marked returned and sent back to its
 *      sender, or each in turn.
 *   2. The hosts start and run in virtual time over that wire for a
 *      prefix the header chooses: flows end up waiting, sending,
 *      recovering, frozen (REPS), thawed or complete.
 *   3. The rest is a sequence of operations (FZ_OP_*): time steps, raw
 *      frames, data frames and ACKs built with ofan_build_data() /
 *      ofan_build_ack() from fuzzed fields for the scenario's real flows
 *      (PSNs relative to what the sender really sent, cumulative PSNs far
 *      ahead or wrapping, SACK bitmaps, echoed EVs and PSNs, CE and COUNT
 *      flags, real, other or unknown addresses and QPs), replays of
 *      frames seen earlier (duplicates after completion), ARP, chained
 *      mbufs, and tampering with frames on the wire (drop, duplicate,
 *      flip a byte, delay, trim); feedback shaped as the model's
 *      receiver sends it: NACKs (trim's of a trimmed PSN, gbn's of the
 *      PSN it expects) inside, at and past the sender's window, copies
 *      of the receiver's last ACK (tcp's duplicate ACKs, fast
 *      retransmit), stale ACKs and ACKs far ahead; trimmed and returned
 *      headers of real and unknown flows, of PSNs in and out of range;
 *      PFC and 802.3x pause frames of any quanta, for the hosts'
 *      priority (3) and not.  Frames go to a host one at a time or
 *      collected into one burst.
 *
 * The harness watches everything that crosses the wire and checks after
 * every frame, burst and step, and every 8 network events within a step
 * (abort() on a violation, which libFuzzer reports as a crash;
 * FUZZ_HOST_TRACE=1 in the environment prints the program as it runs):
 *   - every received frame is accounted for once (hs_host_rx.c's
 *     dispatch): rx_pkts and rx_bytes grow by what was given; the parser
 *     drop reasons by the frames ofan_parse() rejects (and multi-segment
 *     frames under bad_total_length, frames for another address or port
 *     under not_for_us); acks_received by the ACKs; each data frame lands
 *     in exactly one of new (a receiver's distinct count), dup_pkts,
 *     corrupt_pkts, unknown_flow; an ACK adds at most one of
 *     unknown_flow, ack_mismatch, its flow's acks; an ARP request for
 *     the host adds one of arp_replies and queue_full, any other ARP
 *     frame not_for_us; dup_pkts are the receivers' duplicates;
 *     trimmed_rx and returned_rx count the headers by their mark,
 *     pfc_pauses_received the pause frames for priority 3 (the others
 *     pause_ignored); nacks_received at most the NACKs given, nacks_sent
 *     at most the trimmed headers and data frames given, and at least
 *     the NACKs that left;
 *   - what a host sends is what it counts: tx_pkts, tx_bytes, acks_sent,
 *     data_sent, and each flow's data_sent equal the frames seen; new
 *     data leaves in PSN order;
 *   - no counter ever decreases;
 *   - PFC: nothing leaves a host before its last pause frame's time has
 *     run (each frame reloads the timer, IEEE 802.1Qbb, so a shorter
 *     pause ends a longer one early); pfc_paused_ns is the time paused
 *     so far: at least the pauses that ran before the last frame, at
 *     most that and what the last one ran by now;
 *   - goodput: a host's goodput_bytes never exceeds the payload of the
 *     data frames it was given, nor the size of its flows; a receiver's
 *     distinct packets never exceed the data frames of that flow it was
 *     given (nor, with SACK, its packets); with the payload verified,
 *     goodput is exactly the bytes of the distinct packets received;
 *   - what a receiver ACKs it has: a cumulative ACK's PSN plus its SACK
 *     bits, or a counting ACK's count, is at most the distinct packets
 *     it received; the receiver was given every PSN below the cumulative
 *     one and each PSN it SACKs, and no SACK bit lies past the flow's
 *     end; a receiver that takes packets in order only (gbn) has no
 *     more than the in-order prefix of the PSNs it was given;
 *   - completion: a flow acknowledged in full had every packet it needs
 *     sent at least once (no ACK completes a flow with unsent data);
 *     done times, once set, never change; hs_host_tx_done() and
 *     hs_host_rx_done() never go back and say what the flows say;
 *     hs_host_progress() has acked_bytes <= total_bytes, never
 *     decreasing, equal once every flow is acknowledged, and at most the
 *     bytes of the distinct packets sent; a trigger's flow end is
 *     reported once per flow and side;
 *   - liveness: after hs_host_output() returned less than asked (and
 *     found mbufs), hs_host_next_event() is later than now, and hosts do
 *     not ask for an event every ns with nothing to do (a driver would
 *     spin); at the end, on a perfect wire, every flow ends unless a
 *     crafted frame may have forged feedback (an ACK may acknowledge
 *     what its receiver never had; the transport trusts ACKs).  Feedback
 *     shaped as the receiver's (NACKs, duplicate and stale ACKs but
 *     those far ahead, and flow 0's sent for an unknown pick on a QP
 *     that names another flow of its sender), trimmed and returned
 *     headers and pauses forge nothing: flows must still end;
 *   - every mbuf is back in the pool once hosts and wires are freed.
 *
 * EAL starts once (LLVMFuzzerInitialize) with --no-huge, a small memory,
 * --no-shconf and --no-telemetry, a file prefix of its own, the main lcore
 * free to run on any CPU; its runtime directory is removed at exit, and
 * already after start-up, since a crashing input ends the process without
 * running exit handlers.  The host configuration is loaded once with
 * hs_config_load() (one per policy-settings variant); each input then
 * sets the [host] values it varies, inside the loader's ranges, and calls
 * hs_config_derive() as the loader does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "fuzz_host_modes.h"
#include "hlb.h"
#include "hs_cc.h"
#include "hs_config.h"
#include "hs_cumack.h"
#include "hs_ecn_window.h"
#include "hs_erasure.h"
#include "hs_host.h"
#include "hs_sack.h"
#include "hs_traffic.h"
#include "hs_transport.h"
#include "ofan_fs.h"
#include "fuzz_eal.h"
#include "ofan_parse.h"
#include "ofan_wire.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_HOSTS 4
#define FZ_MAX_FLOWS 6
#define FZ_NB_MBUFS 4095
#define FZ_BURST 32
#define FZ_WIRE_CAP 512		/* frames in flight on the whole wire */
#define FZ_MAX_EVENTS 3000	/* network steps per input */
#define FZ_END_EVENTS 4000	/* more to let every flow end */
#define FZ_END_NS (10 * 1000 * 1000 * 1000ull)	/* and virtual time */
#define FZ_MAX_OPS 400		/* operations per input */
#define FZ_PSN_BITS 4096	/* PSNs tracked per flow (tiny flows) */
#define FZ_REPLAY 16		/* frames kept for replays */
#define FZ_REPLAY_SIZE 640	/* longest frame kept */
#define FZ_FRAME_MAX 2048
#define FZ_QP_OFFSET 2		/* flow f uses QP f + 2 (hs_frames.h) */
#define FZ_US 1000ull
#define FZ_T0_NS (10 * FZ_US)	/* hosts start here (or at 0) */
#define FZ_NB_VARIANTS 3	/* policy-settings variants loaded */

#define FZ_ETH_IP (OFAN_ETH_HDR_SIZE)
#define FZ_BTH_OFF (OFAN_ETH_HDR_SIZE + OFAN_IPV4_HDR_SIZE + OFAN_UDP_HDR_SIZE)

/*
 * The harness's own checks are not coverage the fuzzer should chase, and
 * their comparisons traced cost about a third of the time: not
 * instrumented.
 */
#define FZ_NO_COV __attribute__((no_sanitize("coverage")))

/* ---- process-wide state (EAL, pool, loaded configurations) ---- */

static struct rte_mempool *fz_pool;
static struct hs_config fz_base[FZ_NB_VARIANTS];
static bool fz_trace;

/* The policy sections of each variant, on top of FZ_INI_HOST. */
static const char *const fz_variant_ini[FZ_NB_VARIANTS] = {
	"[host.reps]\nfreeze_time = 20us\n"
	"[host.plb]\ncongested_rounds = 1\nce_threshold = 0.1\n"
	"[host.mp]\nsubflows = 2\n"
	"[host.flowlet]\ngap = 1us\n",
	"[host.reps]\nfreeze_time = 200us\nfreeze_rtt_factor = 3\n"
	"[host.plb]\ncongested_rounds = 2\n"
	"[host.mp]\nsubflows = 8\n",
	"",			/* every default (REPS freezes for 10 ms) */
};

#define FZ_INI_HOST \
	"[host]\npolicy = reps\nseed = 7\nrate = 10G\nmtu = 1500\n" \
	"min_rto = 20us\nreorder_window = 5us\nbase_rtt = 5us\n" \
	"stats_interval = 0\n" \
	"[ranks]\ncount = 4\n" \
	"[traffic]\npattern = alltoall\nsize = 4KiB\n" \
	"[port.0]\ndev = net_null0\nrank = 0\n"

static void
fz_log(const char *fmt, ...)
{
	va_list ap;

	if (!fz_trace)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* A violated invariant: say which, then abort (libFuzzer's crash). */
#define FZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "fuzz_host: %s:%d: %s: ", __FILE__, \
				__LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

static void
fz_atexit(void)
{
	if (fz_pool != NULL) {
		rte_mempool_free(fz_pool);
		fz_pool = NULL;
	}
	fz_eal_stop();
}

static int
fz_load_config(unsigned int variant, struct hs_config *c)
{
	char path[] = "/tmp/fuzz_host_cfg_XXXXXX";
	char err[512] = "";
	FILE *f;
	int fd, rc;

	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		unlink(path);
		return -errno;
	}
	fprintf(f, "%s%s", FZ_INI_HOST, fz_variant_ini[variant]);
	fclose(f);
	rc = hs_config_load(path, c, err, sizeof(err));
	unlink(path);
	if (rc != 0)
		fprintf(stderr, "fuzz_host: variant %u: %s\n", variant, err);
	c->path = "fuzz_host.ini";
	return rc;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsigned int v;

	(void)argc;
	(void)argv;
	/* The list of modes it draws (the docs read it), and nothing else. */
	if (getenv("FUZZ_HOST_MODES") != NULL) {
		fz_modes_print(stdout);
		exit(fflush(stdout) == 0 ? 0 : 1);
	}
	fz_trace = getenv("FUZZ_HOST_TRACE") != NULL;
	fz_eal_start("fuzz_host", "128");
	atexit(fz_atexit);
	fz_pool = rte_pktmbuf_pool_create("fz_pool", FZ_NB_MBUFS, 0, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE,
					  SOCKET_ID_ANY);
	if (fz_pool == NULL) {
		fprintf(stderr, "fuzz_host: no mbuf pool: %s\n",
			rte_strerror(rte_errno));
		exit(1);
	}
	for (v = 0; v < FZ_NB_VARIANTS; v++)
		if (fz_load_config(v, &fz_base[v]) != 0)
			exit(1);
	return 0;
}

/* ---- one input's world ---- */

/* A frame on the wire, due at its destination host. */
struct fz_pkt {
	struct rte_mbuf *m;
	uint64_t due;
	uint8_t to;
};

/* What the harness saw of a flow. */
struct fz_flow {
	uint32_t nb_pkts;	/* packets its receiver needs (transport) */
	uint16_t payload;	/* erasure: the symbol; sack: mss */
	/* Sender side, from the frames it output. */
	uint64_t data_out;	/* data frames */
	uint32_t psn_hi;	/* highest PSN sent + 1 */
	uint32_t distinct_out;	/* distinct PSNs sent */
	uint64_t psn_out[FZ_PSN_BITS / 64];
	uint16_t evs[8];	/* last EVs it used */
	uint8_t nb_evs;
	/* Receiver side, frames given to its destination host. */
	uint64_t data_in;	/* data frames (any PSN, dups included) */
	uint64_t psn_in[FZ_PSN_BITS / 64];	/* their PSNs, any content */
	/*
	 * Its receiver's ACKs as they left: the highest cumulative PSN (a
	 * counting model's count), which the receiver had then, and the
	 * last ACK but NACKs whole, for duplicates of it.
	 */
	uint32_t ack_cum;
	bool acked;		/* last_ack is one */
	struct ofan_ack_ext last_ack;	/* host byte order */
	/* Reported once: a trigger's flow end per side. */
	uint8_t ends[2];
	/* Last results seen at its source and destination. */
	struct hs_flow_result sres;
	struct hs_flow_result rres;
};

struct fz_host_seen {
	struct hs_host_stats st;
	uint64_t acked;
	uint64_t total;
	bool tx_done;
	bool rx_done;
	/* Totals of what it output and was given. */
	uint64_t out_pkts, out_bytes, out_acks, out_data, out_nacks;
	uint64_t in_payload;	/* payload bytes of data frames given */
	/*
	 * Its PFC pause as IEEE 802.1Qbb has it, from the frames it was
	 * given: each reloads the timer (from, until); paused_ns is the time
	 * paused before the last reload.
	 */
	uint64_t pause_from, pause_until, paused_ns;
};

struct fz_world {
	struct hs_config cfg;
	struct hs_traffic traffic;
	struct hs_trigger_state trig;
	uint16_t nb_hosts;
	struct hs_host *host[FZ_MAX_HOSTS];
	struct fz_host_seen seen[FZ_MAX_HOSTS];
	struct fz_flow flow[FZ_MAX_FLOWS];
	uint64_t now;
	uint64_t t0;
	uint32_t events;
	uint32_t max_events;	/* the budget of events (grows at the end) */
	uint64_t nb_moved;	/* frames given to or sent by hosts */
	uint32_t idle_ns_steps;	/* events in a row 1 ns apart, nothing moved */
	/* A crafted frame may have forged an ACK or data: flows need not end. */
	bool forged;
	unsigned int pool_start;
	/* The wire: frames in flight, in due order. */
	struct fz_pkt wire[FZ_WIRE_CAP];
	uint32_t nb_wire;
	uint64_t delay_ns;
	/* Loss and marks while the scenario runs (FZ header). */
	uint32_t drop_mask;	/* frame i < 32 on the wire is dropped */
	uint32_t nb_carried;
	uint16_t bh_ev_mod;	/* black hole: ev % 4 == bh_ev, data only */
	uint16_t bh_ev;
	uint64_t bh_until;
	uint8_t ce_every;	/* CE on every n-th ECT data frame (0: none) */
	uint8_t reorder_every;	/* every n-th frame late by reorder_ns */
	uint64_t reorder_ns;
	/*
	 * A trimming switch: a data frame the rules drop is trimmed
	 * instead, its header to its receiver (FZ_TRIM_RX), returned to its
	 * sender (FZ_TRIM_RTS) or each in turn (FZ_TRIM_BOTH); trim_full
	 * only marks it, as trim_size = full.
	 */
	uint8_t trim;
	bool trim_full;
	uint32_t nb_trimmed;
	bool lossy;		/* the rules above apply (scenario phase) */
	/* Frames collected for one burst into burst_host. */
	struct rte_mbuf *burst[FZ_BURST];
	uint16_t nb_burst;
	uint8_t burst_host;
	/* Recent frames the hosts sent, for replays. */
	uint8_t replay[FZ_REPLAY][FZ_REPLAY_SIZE];
	uint16_t replay_len[FZ_REPLAY];
	uint32_t nb_replay;
	bool verify;
	bool counts;		/* the model's ACKs carry a count */
	bool in_order;		/* its receivers take packets in order */
};

enum fz_trim {
	FZ_TRIM_OFF = 0,	/* drop, as a queue that does not trim */
	FZ_TRIM_RX,		/* the header on to its receiver */
	FZ_TRIM_RTS,		/* returned to its sender (rts = always) */
	FZ_TRIM_BOTH,		/* each in turn */
};

static struct fz_world *fz_w;

FZ_NO_COV
static uint32_t
fz_rank_of_ip(const struct fz_world *w, uint32_t ip)
{
	uint32_t r;

	for (r = 0; r < w->nb_hosts; r++)
		if (hs_rank_ip(&w->cfg.set, r) == ip)
			return r;
	return UINT32_MAX;
}

static struct rte_mbuf *
fz_mbuf_of(const uint8_t *frame, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(fz_pool);
	char *p;

	if (m == NULL)
		return NULL;
	if (len > rte_pktmbuf_tailroom(m))
		len = rte_pktmbuf_tailroom(m);
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, frame, len);
	return m;
}

/* ---- the checks ---- */

/* Needed packets of flow f as its receiver counts them. */
/* The erasure model's rules apply (its symbols, counts, no resends). */
static bool
fz_erasure(const struct hs_config *c)
{
	return c->set.recovery == hs_recovery_find("erasure");
}

FZ_NO_COV
static bool
fz_rx_complete(const struct fz_world *w, uint32_t f,
	       const struct hs_flow_result *r)
{
	return r->data_received >= w->flow[f].nb_pkts;
}

FZ_NO_COV
static void
fz_results(const struct fz_world *w, uint32_t f, struct hs_flow_result *s,
	   struct hs_flow_result *r)
{
	const struct hs_flow_spec *spec = &w->traffic.flows[f];

	memset(s, 0, sizeof(*s));
	memset(r, 0, sizeof(*r));
	FZ_CHECK(hs_host_flow_result(w->host[spec->src], f, s) &&
		 s->sent_here, "flow %u not at its source", f);
	FZ_CHECK(hs_host_flow_result(w->host[spec->dst], f, r) &&
		 r->received_here, "flow %u not at its destination", f);
}

/* PSNs 0..n-1 were all given to flow fl's receiver: the largest n. */
FZ_NO_COV
static uint32_t
fz_prefix_in(const struct fz_flow *fl)
{
	uint32_t i;

	for (i = 0; i < FZ_PSN_BITS / 64; i++)
		if (~fl->psn_in[i] != 0)
			return i * 64 +
				(uint32_t)__builtin_ctzll(~fl->psn_in[i]);
	return FZ_PSN_BITS;
}

/* Bit i: PSN cum + 1 + i was given to flow fl's receiver (a SACK's). */
FZ_NO_COV
static uint64_t
fz_given_after(const struct fz_flow *fl, uint32_t cum)
{
	uint64_t b = 0, p;
	uint32_t i;

	for (i = 0; i < 64; i++) {
		p = (uint64_t)cum + 1 + i;
		if (p < FZ_PSN_BITS && (fl->psn_in[p / 64] >> (p % 64) & 1))
			b |= 1ull << i;
	}
	return b;
}

/* Goodput bytes a receiver must report for rx_pkts distinct packets. */
FZ_NO_COV
static void
fz_goodput_range(const struct fz_world *w, uint32_t f, uint32_t rx_pkts,
		 uint64_t *lo, uint64_t *hi)
{
	const struct hs_flow_spec *spec = &w->traffic.flows[f];
	uint64_t mss = w->cfg.set.mss, last;

	if (fz_erasure(&w->cfg)) {
		*lo = *hi = RTE_MIN(spec->size,
				    (uint64_t)rx_pkts * w->flow[f].payload);
		return;
	}
	/* Every packet is mss bytes but the last, which is shorter. */
	last = spec->size - (uint64_t)(w->flow[f].nb_pkts - 1) * mss;
	*hi = RTE_MIN(spec->size, (uint64_t)rx_pkts * mss);
	*lo = rx_pkts == 0 ? 0 : (uint64_t)(rx_pkts - 1) * mss + last;
	if (*lo > *hi)
		*lo = *hi;
}

/* Everything that must hold at any time (see the top comment). */
FZ_NO_COV
static void
fz_check_all(struct fz_world *w)
{
	uint64_t gp_lo[FZ_MAX_HOSTS] = { 0 }, gp_hi[FZ_MAX_HOSTS] = { 0 };
	uint64_t acked_max[FZ_MAX_HOSTS] = { 0 }, dups[FZ_MAX_HOSTS] = { 0 };
	bool all_rx[FZ_MAX_HOSTS], all_tx[FZ_MAX_HOSTS];
	uint32_t f, h, i;

	for (h = 0; h < w->nb_hosts; h++)
		all_rx[h] = all_tx[h] = true;
	for (f = 0; f < w->traffic.nb_flows; f++) {
		const struct hs_flow_spec *spec = &w->traffic.flows[f];
		struct fz_flow *fl = &w->flow[f];
		struct hs_flow_result s, r;
		uint64_t lo, hi, unit;

		fz_results(w, f, &s, &r);
		/* Sender: what it sent is what was seen on the wire. */
		FZ_CHECK(s.data_sent == fl->data_out,
			 "flow %u: data_sent %" PRIu64 ", %" PRIu64
			 " data frames seen", f, s.data_sent, fl->data_out);
		FZ_CHECK(s.acks_received >= fl->sres.acks_received && s.data_retx >= fl->sres.data_retx &&
			 s.timeouts >= fl->sres.timeouts &&
			 s.ce_acks >= fl->sres.ce_acks,
			 "flow %u: a sender counter went back", f);
		FZ_CHECK(fl->sres.done_ns == 0 || s.done_ns == fl->sres.done_ns,
			 "flow %u: done at %" PRIu64 ", now %" PRIu64, f,
			 fl->sres.done_ns, s.done_ns);
		if (s.done_ns != 0)
			FZ_CHECK(fl->distinct_out >= fl->nb_pkts,
				 "flow %u: acknowledged in full with %u of %u"
				 " packets ever sent", f, fl->distinct_out,
				 fl->nb_pkts);
		/* Receiver: never more than it was given. */
		FZ_CHECK(r.data_received <= fl->data_in,
			 "flow %u: %" PRIu64 " distinct packets of %" PRIu64
			 " data frames given", f, r.data_received, fl->data_in);
		if (!fz_erasure(&w->cfg))
			FZ_CHECK(r.data_received <= fl->nb_pkts,
				 "flow %u: %" PRIu64 " distinct packets of %u",
				 f, r.data_received, fl->nb_pkts);
		/* In order only (gbn): nothing taken past a hole. */
		if (w->in_order)
			FZ_CHECK(r.data_received <= fz_prefix_in(fl),
				 "flow %u: %" PRIu64 " packets taken in order,"
				 " given PSNs 0..%u in order", f,
				 r.data_received, fz_prefix_in(fl));
		FZ_CHECK(r.data_received >= fl->rres.data_received &&
			 r.dup_pkts >= fl->rres.dup_pkts &&
			 r.corrupt_pkts >= fl->rres.corrupt_pkts &&
			 r.ce_pkts >= fl->rres.ce_pkts,
			 "flow %u: a receiver counter went back", f);
		FZ_CHECK(fl->rres.rx_done_ns == 0 ||
			 r.rx_done_ns == fl->rres.rx_done_ns,
			 "flow %u: received at %" PRIu64 ", now %" PRIu64, f,
			 fl->rres.rx_done_ns, r.rx_done_ns);
		if (!fz_rx_complete(w, f, &r))
			all_rx[spec->dst] = false;
		/* A trigger's end reports match the flow's ends. */
		FZ_CHECK(fl->ends[1] <= 1 && fl->ends[0] <= 1,
			 "flow %u: end reported twice", f);
		if (spec->recv_done_trigger != HS_NO_TRIGGER)
			FZ_CHECK(fl->ends[1] == fz_rx_complete(w, f, &r),
				 "flow %u: receive end reported %u times,"
				 " %" PRIu64 " of %u packets", f, fl->ends[1],
				 r.data_received, fl->nb_pkts);
		dups[spec->dst] += r.dup_pkts;
		fz_goodput_range(w, f, r.data_received, &lo, &hi);
		gp_lo[spec->dst] += lo;
		gp_hi[spec->dst] += hi;
		/* Progress: at most the distinct packets sent. */
		unit = fz_erasure(&w->cfg) ? fl->payload :
			w->cfg.set.mss;
		acked_max[spec->src] += RTE_MIN(spec->size,
						(uint64_t)fl->distinct_out * unit);
		if (s.done_ns == 0)
			all_tx[spec->src] = false;
		fl->sres = s;
		fl->rres = r;
	}
	for (h = 0; h < w->nb_hosts; h++) {
		const struct hs_host_stats *st = hs_host_stats(w->host[h]);
		struct fz_host_seen *seen = &w->seen[h];
		const uint64_t *now_c = (const uint64_t *)st;
		const uint64_t *old_c = (const uint64_t *)&seen->st;
		uint64_t acked, total, size_in = 0;
		bool tx_done = hs_host_tx_done(w->host[h]);
		bool rx_done = hs_host_rx_done(w->host[h]);

		for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
			FZ_CHECK(now_c[i] >= old_c[i],
				 "host %u: counter %u went from %" PRIu64
				 " to %" PRIu64, h, i, old_c[i], now_c[i]);
		FZ_CHECK(st->tx_pkts == seen->out_pkts &&
			 st->tx_bytes == seen->out_bytes &&
			 st->acks_sent == seen->out_acks &&
			 st->data_sent == seen->out_data,
			 "host %u: counts %" PRIu64 " frames %" PRIu64
			 " bytes %" PRIu64 " ACKs %" PRIu64 " data sent; seen %"
			 PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, h,
			 st->tx_pkts, st->tx_bytes, st->acks_sent,
			 st->data_sent, seen->out_pkts, seen->out_bytes,
			 seen->out_acks, seen->out_data);
		for (f = 0; f < w->traffic.nb_flows; f++)
			if (w->traffic.flows[f].dst == h)
				size_in += w->traffic.flows[f].size;
		FZ_CHECK(st->goodput_bytes <= seen->in_payload &&
			 st->goodput_bytes <= size_in,
			 "host %u: goodput %" PRIu64 ", given %" PRIu64
			 " payload bytes, flows of %" PRIu64 " bytes", h,
			 st->goodput_bytes, seen->in_payload, size_in);
		/* NACKs are counted as they are queued, before they leave. */
		FZ_CHECK(seen->out_nacks <= st->nacks_sent,
			 "host %u: %" PRIu64 " NACKs out, %" PRIu64 " counted",
			 h, seen->out_nacks, st->nacks_sent);
		/*
		 * Paused time is time that passed under a pause: all of each
		 * one a later frame cut or that ran out, none ahead of now.
		 */
		FZ_CHECK(st->pfc_paused_ns >= seen->paused_ns &&
			 st->pfc_paused_ns <= seen->paused_ns +
			 ofan_pfc_pause_ran(seen->pause_from,
					    seen->pause_until, w->now),
			 "host %u: paused %" PRIu64 " ns; pauses before the"
			 " last %" PRIu64 " ns, the last from %" PRIu64 " to %"
			 PRIu64 ", now %" PRIu64, h, st->pfc_paused_ns,
			 seen->paused_ns, seen->pause_from, seen->pause_until,
			 w->now);
		/* Duplicates are its receivers' duplicates. */
		FZ_CHECK(st->dup_pkts == dups[h],
			 "host %u: %" PRIu64 " duplicates, its flows had %"
			 PRIu64, h, st->dup_pkts, dups[h]);
		if (w->verify)
			FZ_CHECK(st->goodput_bytes >= gp_lo[h] &&
				 st->goodput_bytes <= gp_hi[h],
				 "host %u: goodput %" PRIu64 ", the distinct"
				 " packets hold %" PRIu64 "..%" PRIu64, h,
				 st->goodput_bytes, gp_lo[h], gp_hi[h]);
		hs_host_progress(w->host[h], &acked, &total);
		FZ_CHECK(acked <= total && acked >= seen->acked &&
			 acked <= acked_max[h],
			 "host %u: acked %" PRIu64 " of %" PRIu64 " (was %"
			 PRIu64 ", distinct sent %" PRIu64 ")", h, acked,
			 total, seen->acked, acked_max[h]);
		FZ_CHECK(!seen->tx_done || tx_done, "host %u: tx undone", h);
		FZ_CHECK(!seen->rx_done || rx_done, "host %u: rx undone", h);
		FZ_CHECK(tx_done == all_tx[h],
			 "host %u: tx_done %d, every flow acknowledged %d", h,
			 tx_done, all_tx[h]);
		FZ_CHECK(rx_done == all_rx[h],
			 "host %u: rx_done %d, every flow received %d", h,
			 rx_done, all_rx[h]);
		if (tx_done)
			FZ_CHECK(acked == total, "host %u: done, acked %"
				 PRIu64 " of %" PRIu64, h, acked, total);
		seen->st = *st;
		seen->acked = acked;
		seen->total = total;
		seen->tx_done = tx_done;
		seen->rx_done = rx_done;
	}
}

/* ---- frames into a host, accounted ---- */

/* What the harness expects of a batch of frames given to one host. */
struct fz_expect {
	uint32_t n;
	uint64_t bytes;
	uint32_t drops[OFAN_DROP_MAX];	/* but queue_full */
	uint32_t arp;		/* ARP frames */
	uint32_t arp_us;	/* requests for the host's address */
	uint32_t data;
	uint32_t ack;
	uint32_t nacks;		/* of the ACKs, NACKs */
	uint32_t hdr;		/* trimmed or returned headers */
	uint32_t trimmed;	/* of them, trimmed only */
	uint32_t returned;	/* returned to their sender */
	uint32_t pauses;	/* PFC frames for the host's priority */
};

/* An ACK frame with the AETH's NAK syndrome (ofan_wire.h). */
FZ_NO_COV
static bool
fz_is_nack(const uint8_t *frame, const struct ofan_pkt_info *pi)
{
	return (frame[pi->payload_offset] & OFAN_AETH_SYN_NAK_MASK) ==
		OFAN_AETH_SYN_NAK_MASK;
}

FZ_NO_COV
static void
fz_classify(struct fz_world *w, uint16_t h, struct rte_mbuf *m,
	    struct fz_expect *e)
{
	const uint32_t ip = hs_rank_ip(&w->cfg.set, h);
	struct ofan_pkt_info pi;
	uint32_t f;
	int v;

	e->n++;
	e->bytes += m->pkt_len;
	if (m->nb_segs != 1) {
		e->drops[OFAN_DROP_BAD_TOTAL_LENGTH]++;
		return;
	}
	v = ofan_parse(rte_pktmbuf_mtod(m, const uint8_t *),
		       rte_pktmbuf_data_len(m), OFAN_PARSE_F_NO_TTL_CHECK, &pi);
	if (v != OFAN_PARSE_OK) {
		e->drops[v]++;
	} else if (pi.kind == OFAN_KIND_ARP) {
		e->arp++;
		if (pi.arp_oper == OFAN_ARP_OP_REQUEST && pi.arp_tpa == ip)
			e->arp_us++;
		else
			e->drops[OFAN_DROP_NOT_FOR_US]++;
	} else if (pi.kind == OFAN_KIND_PAUSE) {
		struct fz_host_seen *sn = &w->seen[h];
		uint16_t quanta;

		/* Obeyed (the host holds its output) or not its priority. */
		if (!ofan_pfc_quanta(rte_pktmbuf_mtod(m, const uint8_t *),
				     pi.l3_offset, HS_PFC_PRIORITY, &quanta)) {
			e->drops[OFAN_DROP_PAUSE_IGNORED]++;
			return;
		}
		/* The timer reloads: a shorter pause cuts a longer one. */
		e->pauses++;
		sn->paused_ns += ofan_pfc_pause_ran(sn->pause_from,
						    sn->pause_until, w->now);
		sn->pause_from = w->now;
		sn->pause_until = w->now +
			ofan_pfc_quanta_ns(quanta, w->cfg.set.rate_bps);
	} else if (pi.dst_ip != ip || pi.kind == OFAN_KIND_OTHER) {
		/* Not RoCEv2, even on port 4791 (TCP, a fragment). */
		e->drops[OFAN_DROP_NOT_FOR_US]++;
	} else if (pi.kind == OFAN_KIND_DATA &&
		   (pi.bth_mark & ~OFAN_BTH_MARK_SPEC) != 0) {
		/* A trimmed or returned header (NACKed, resent), or a mark
		 * the host does not know (SPEC alone is data). */
		if (pi.bth_mark & OFAN_BTH_MARK_RETURNED)
			e->returned++;
		else if (pi.bth_mark & OFAN_BTH_MARK_TRIMMED)
			e->trimmed++;
		else
			e->drops[OFAN_DROP_NOT_FOR_US]++;
		/* Either may be of an unknown flow. */
		e->hdr += (pi.bth_mark & (OFAN_BTH_MARK_TRIMMED |
					  OFAN_BTH_MARK_RETURNED)) != 0;
	} else if (pi.kind == OFAN_KIND_DATA) {
		e->data++;
		w->seen[h].in_payload += pi.payload_size;
		f = pi.dest_qp - FZ_QP_OFFSET;
		if (pi.dest_qp >= FZ_QP_OFFSET && f < w->traffic.nb_flows &&
		    w->traffic.flows[f].dst == h) {
			w->flow[f].data_in++;
			if (pi.psn < FZ_PSN_BITS)
				w->flow[f].psn_in[pi.psn / 64] |=
					1ull << (pi.psn % 64);
		}
	} else {
		e->ack++;
		e->nacks += fz_is_nack(rte_pktmbuf_mtod(m, const uint8_t *),
				       &pi);
	}
}

/*
 * Distinct packets this host's receivers have, and ACKs its senders took,
 * summed over its flows.
 */
FZ_NO_COV
static void
fz_host_sums(const struct fz_world *w, uint16_t h, uint64_t *distinct,
	     uint64_t *acks)
{
	uint32_t f;

	*distinct = *acks = 0;
	for (f = 0; f < w->traffic.nb_flows; f++) {
		const struct hs_flow_spec *spec = &w->traffic.flows[f];
		struct hs_flow_result r;

		if (spec->dst != h && spec->src != h)
			continue;
		memset(&r, 0, sizeof(r));
		hs_host_flow_result(w->host[h], f, &r);
		*distinct += r.received_here ? r.data_received : 0;
		*acks += r.sent_here ? r.acks_received : 0;
	}
}

static uint64_t
fz_rx_distinct(const struct fz_world *w, uint16_t h)
{
	uint64_t distinct, acks;

	fz_host_sums(w, h, &distinct, &acks);
	return distinct;
}

/* Give host h the frames pkts[0..n) at w->now and check the accounting. */
static void
fz_input(struct fz_world *w, uint16_t h, struct rte_mbuf **pkts, uint16_t n)
{
	const struct hs_host_stats *st = hs_host_stats(w->host[h]);
	struct hs_host_stats b = *st;
	struct fz_expect e;
	uint64_t distinct, acks, distinct2, acks2;
	uint64_t d_new, d_data, d_ack_out;
	uint16_t i;
	int v;

	if (n == 0)
		return;
	fz_host_sums(w, h, &distinct, &acks);
	w->nb_moved += n;
	memset(&e, 0, sizeof(e));
	for (i = 0; i < n; i++)
		fz_classify(w, h, pkts[i], &e);
	fz_log("  in  host %u: %u frames (%u data, %u ACKs, %u ARP) at %"
	       PRIu64 "\n", h, n, e.data, e.ack, e.arp, w->now);
	hs_host_input(w->host[h], pkts, n, w->now);
	FZ_CHECK(st->rx_pkts - b.rx_pkts == e.n &&
		 st->rx_bytes - b.rx_bytes == e.bytes,
		 "host %u: rx %" PRIu64 " frames %" PRIu64 " bytes, given %u"
		 " frames %" PRIu64 " bytes", h, st->rx_pkts - b.rx_pkts,
		 st->rx_bytes - b.rx_bytes, e.n, e.bytes);
	for (v = 0; v < OFAN_DROP_MAX; v++) {
		if (v == OFAN_DROP_QUEUE_FULL)
			continue;
		FZ_CHECK(st->drops[v] - b.drops[v] == e.drops[v],
			 "host %u: %" PRIu64 " drops %s, expected %u", h,
			 st->drops[v] - b.drops[v], ofan_drop_name(v),
			 e.drops[v]);
	}
	FZ_CHECK(st->acks_received - b.acks_received == e.ack,
		 "host %u: %" PRIu64 " ACKs received of %u", h,
		 st->acks_received - b.acks_received, e.ack);
	/* Requests for it: answered, or dropped with the replies queue full. */
	FZ_CHECK(st->arp_replies - b.arp_replies +
		 st->drops[OFAN_DROP_QUEUE_FULL] -
		 b.drops[OFAN_DROP_QUEUE_FULL] == e.arp_us,
		 "host %u: %" PRIu64 " ARP replies and %" PRIu64 " queue_full"
		 " drops for %u requests", h, st->arp_replies - b.arp_replies,
		 st->drops[OFAN_DROP_QUEUE_FULL] -
		 b.drops[OFAN_DROP_QUEUE_FULL], e.arp_us);
	/*
	 * Every data frame is new, a duplicate, corrupt or of an unknown
	 * flow; every ACK adds at most one of unknown_flow, ack_mismatch and
	 * its flow's ACKs.  Unknown ACKs and unknown data share a counter,
	 * with trimmed and returned headers of no flow of ours.
	 */
	fz_host_sums(w, h, &distinct2, &acks2);
	d_new = distinct2 - distinct;
	d_ack_out = (st->ack_mismatch - b.ack_mismatch) + (acks2 - acks);
	d_data = d_new + (st->dup_pkts - b.dup_pkts) +
		(st->corrupt_pkts - b.corrupt_pkts) +
		(st->unknown_flow - b.unknown_flow);
	FZ_CHECK(d_data >= e.data &&
		 d_data + d_ack_out <= e.data + e.ack + e.hdr,
		 "host %u: %u data frames and %u ACKs became %" PRIu64
		 " new, %" PRIu64 " dup, %" PRIu64 " corrupt, %" PRIu64
		 " unknown, %" PRIu64 " ACKs taken or mismatched", h, e.data,
		 e.ack, d_new, st->dup_pkts - b.dup_pkts,
		 st->corrupt_pkts - b.corrupt_pkts,
		 st->unknown_flow - b.unknown_flow, d_ack_out);
	/*
	 * Headers are counted by their mark, for any flow; pauses for the
	 * host's priority, resumes included.  NACKs taken are NACKs given;
	 * NACKs queued answer trimmed headers or (gbn) data out of order.
	 */
	FZ_CHECK(st->trimmed_rx - b.trimmed_rx == e.trimmed &&
		 st->returned_rx - b.returned_rx == e.returned,
		 "host %u: %" PRIu64 " trimmed and %" PRIu64 " returned"
		 " headers counted of %u and %u", h,
		 st->trimmed_rx - b.trimmed_rx,
		 st->returned_rx - b.returned_rx, e.trimmed, e.returned);
	FZ_CHECK(st->pfc_pauses_received - b.pfc_pauses_received == e.pauses,
		 "host %u: %" PRIu64 " pauses counted of %u", h,
		 st->pfc_pauses_received - b.pfc_pauses_received, e.pauses);
	FZ_CHECK(st->nacks_received - b.nacks_received <= e.nacks,
		 "host %u: %" PRIu64 " NACKs received of %u given", h,
		 st->nacks_received - b.nacks_received, e.nacks);
	FZ_CHECK(st->nacks_sent - b.nacks_sent <= e.trimmed + e.data,
		 "host %u: %" PRIu64 " NACKs queued for %u trimmed headers"
		 " and %u data frames", h, st->nacks_sent - b.nacks_sent,
		 e.trimmed, e.data);
}

/* ---- the wire ---- */

static void
fz_wire_put(struct fz_world *w, struct rte_mbuf *m, uint8_t to, uint64_t due)
{
	uint32_t i;

	if (w->nb_wire == FZ_WIRE_CAP) {
		rte_pktmbuf_free(m);
		return;
	}
	/* Insertion in due order; equal times keep their sending order. */
	for (i = w->nb_wire; i > 0 && w->wire[i - 1].due > due; i--)
		w->wire[i] = w->wire[i - 1];
	w->wire[i] = (struct fz_pkt){ .m = m, .due = due, .to = to };
	w->nb_wire++;
}

/* Record a frame host h sent: counts, flows, checks of ACK content. */
FZ_NO_COV
static void
fz_seen_out(struct fz_world *w, uint16_t h, struct rte_mbuf *m,
	    const struct ofan_pkt_info *pi, int v)
{
	struct fz_host_seen *seen = &w->seen[h];
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t f = pi->dest_qp - FZ_QP_OFFSET;
	struct fz_flow *fl;

	seen->out_pkts++;
	seen->out_bytes += m->pkt_len;
	w->nb_moved++;
	if (w->nb_replay < UINT32_MAX && m->pkt_len <= FZ_REPLAY_SIZE) {
		uint32_t k = w->nb_replay++ % FZ_REPLAY;

		memcpy(w->replay[k], frame, m->pkt_len);
		w->replay_len[k] = (uint16_t)m->pkt_len;
	}
	if (v != OFAN_PARSE_OK || pi->kind == OFAN_KIND_ARP ||
	    pi->kind == OFAN_KIND_OTHER)
		return;
	FZ_CHECK(pi->dest_qp >= FZ_QP_OFFSET && f < w->traffic.nb_flows,
		 "host %u sent QP %u", h, pi->dest_qp);
	fl = &w->flow[f];
	if (pi->kind == OFAN_KIND_DATA) {
		FZ_CHECK(w->traffic.flows[f].src == h,
			 "host %u sent data of flow %u", h, f);
		seen->out_data++;
		fl->data_out++;
		/* New data goes out in PSN order (hs_transport.h, tx_next). */
		FZ_CHECK(pi->psn <= fl->psn_hi,
			 "flow %u: PSN %u sent, %u never", f, pi->psn,
			 fl->psn_hi);
		if (pi->psn + 1 > fl->psn_hi)
			fl->psn_hi = pi->psn + 1;
		if (pi->psn >= FZ_PSN_BITS) {
			fl->distinct_out++;	/* beyond what is tracked */
		} else if (!(fl->psn_out[pi->psn / 64] &
			     (1ull << (pi->psn % 64)))) {
			fl->psn_out[pi->psn / 64] |= 1ull << (pi->psn % 64);
			fl->distinct_out++;
		}
		fl->evs[fl->nb_evs++ % RTE_DIM(fl->evs)] = pi->src_port;
	} else {
		const struct ofan_ack_ext *x = (const struct ofan_ack_ext *)
			(frame + pi->payload_offset + OFAN_AETH_SIZE);
		uint32_t cum = rte_be_to_cpu_32(x->cum_psn);
		uint64_t sack;
		struct hs_flow_result r;

		memcpy(&sack, &x->sack, sizeof(sack));
		sack = rte_be_to_cpu_64(sack);
		FZ_CHECK(w->traffic.flows[f].dst == h,
			 "host %u sent an ACK of flow %u", h, f);
		seen->out_acks++;
		seen->out_nacks += fz_is_nack(frame, pi);
		if (x->flags & OFAN_ACK_F_PULL) {
			/* Credit, not an acknowledgement: a receiver-driven
			 * cc's receiver grants it (hs_host_pull.c). */
			FZ_CHECK(w->cfg.set.cc->pulls,
				 "flow %u: a PULL without a receiver-driven cc",
				 f);
			return;
		}
		memset(&r, 0, sizeof(r));
		hs_host_flow_result(w->host[h], f, &r);
		/* What it acknowledges, it has. */
		if (w->counts) {
			FZ_CHECK(x->flags & OFAN_ACK_F_COUNT,
				 "flow %u: erasure ACK without COUNT", f);
			FZ_CHECK(cum <= r.data_received && sack == 0,
				 "flow %u: ACK counts %u of %" PRIu64
				 " received", f, cum, r.data_received);
		} else {
			FZ_CHECK(!(x->flags & OFAN_ACK_F_COUNT),
				 "flow %u: SACK ACK with COUNT", f);
			FZ_CHECK((uint64_t)cum + __builtin_popcountll(sack) <=
				 r.data_received,
				 "flow %u: ACK cum %u sack %#" PRIx64 " with %"
				 PRIu64 " received", f, cum, sack,
				 r.data_received);
			FZ_CHECK(sack == 0 ||
				 (uint64_t)cum + 1 + 63 -
				 __builtin_clzll(sack) < fl->nb_pkts,
				 "flow %u: ACK cum %u sack %#" PRIx64
				 " past %u packets", f, cum, sack, fl->nb_pkts);
			/*
			 * Cumulative: it was given every PSN below cum, in
			 * order, and each PSN it SACKs.
			 */
			FZ_CHECK(cum <= fz_prefix_in(fl),
				 "flow %u: ACK cum %u, given PSNs 0..%u in"
				 " order", f, cum, fz_prefix_in(fl));
			FZ_CHECK((sack & ~fz_given_after(fl, cum)) == 0,
				 "flow %u: ACK cum %u SACKs %#" PRIx64 ", given"
				 " %#" PRIx64, f, cum, sack,
				 fz_given_after(fl, cum));
		}
		if (cum > fl->ack_cum)
			fl->ack_cum = cum;
		/* A NACK's echo is a PSN the receiver lacks: not kept. */
		if (fz_is_nack(frame, pi))
			return;
		fl->acked = true;
		fl->last_ack = (struct ofan_ack_ext){
			.echo_ev = rte_be_to_cpu_16(x->echo_ev),
			.flags = x->flags,
			.echo_psn = rte_be_to_cpu_32(x->echo_psn),
			.cum_psn = cum,
			.sack = sack,
		};
	}
}

/*
 * Trim data frame m (parsed as pi) as a trimming switch does
 * (switch/engine/sw_queue.c, sw_trim(); sw_worker.c, sw_worker_return()): cut
 * to its headers unless full, IPv4 and UDP lengths and the IPv4 checksum
 * after the cut, marked trimmed; with rts, addresses swapped and marked
 * returned too.  *to becomes the rank it now goes to.  False if it is no
 * frame a switch trims (not data, or marked already).
 */
static bool
fz_trim(struct fz_world *w, struct rte_mbuf *m, const struct ofan_pkt_info *pi,
	bool full, bool rts, bool last_hop, uint32_t *to)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	struct ofan_ipv4_hdr *ip = (struct ofan_ipv4_hdr *)(f + pi->l3_offset);
	struct ofan_udp_hdr *udp = (struct ofan_udp_hdr *)(f + pi->l4_offset);
	uint32_t hdr = pi->l4_offset + OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE;
	uint32_t a;

	if (pi->kind != OFAN_KIND_DATA ||
	    (pi->bth_mark & ~OFAN_BTH_MARK_SPEC) != 0 || m->nb_segs != 1)
		return false;
	if (!full && m->pkt_len > hdr) {
		if (rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - hdr)) != 0)
			return false;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(hdr -
							      pi->l3_offset));
		udp->length = rte_cpu_to_be_16(OFAN_UDP_HDR_SIZE +
					       OFAN_BTH_SIZE);
		udp->checksum = 0;
	}
	f[hdr - OFAN_BTH_SIZE + OFAN_BTH_MARK_OFFSET] |= OFAN_BTH_MARK_TRIMMED |
		(last_hop ? OFAN_BTH_MARK_LAST_HOP : 0);
	*to = fz_rank_of_ip(w, pi->dst_ip);
	if (rts) {
		a = ip->src_addr;
		ip->src_addr = ip->dst_addr;
		ip->dst_addr = a;
		f[hdr - OFAN_BTH_SIZE + OFAN_BTH_MARK_OFFSET] |=
			OFAN_BTH_MARK_RETURNED;
		*to = fz_rank_of_ip(w, pi->src_ip);
	}
	ip->checksum = 0;
	ip->checksum = ofan_ipv4_checksum(ip, (ip->version_ihl & 0x0f) * 4u);
	fz_log("  wire: trimmed PSN %u of QP %u%s%s\n", pi->psn, pi->dest_qp,
	       full ? " (marked only)" : "", rts ? ", returned" : "");
	return true;
}

/* What the scenario's wire does with a frame. */
enum fz_fate {
	FZ_CARRY,
	FZ_DROP,
	FZ_CUT,		/* a trimming switch's drop: fz_trim() */
};

/* A frame the rules drop: trimmed instead if the switch trims data. */
static enum fz_fate
fz_drop(const struct fz_world *w, const struct ofan_pkt_info *pi)
{
	return w->trim != FZ_TRIM_OFF && pi->kind == OFAN_KIND_DATA &&
		(pi->bth_mark & ~OFAN_BTH_MARK_SPEC) == 0 ? FZ_CUT : FZ_DROP;
}

/* The loss, mark and delay rules of the scenario, for one frame. */
static enum fz_fate
fz_wire_rules(struct fz_world *w, struct rte_mbuf *m,
	      const struct ofan_pkt_info *pi, uint64_t *due)
{
	uint32_t i = w->nb_carried++;
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);

	if (!w->lossy)
		return FZ_CARRY;
	if (i < 32 && (w->drop_mask >> i) & 1)
		return fz_drop(w, pi);
	if (pi->kind == OFAN_KIND_DATA && w->bh_ev_mod != 0 &&
	    w->now < w->bh_until && pi->src_port % w->bh_ev_mod == w->bh_ev)
		return fz_drop(w, pi);
	if (pi->kind == OFAN_KIND_DATA && w->ce_every != 0 &&
	    i % w->ce_every == 0 && (pi->tos & OFAN_ECN_MASK) != 0) {
		frame[FZ_ETH_IP + 1] |= OFAN_ECN_CE;
		/* Hosts do not verify the checksum; keep it right anyway. */
		((struct ofan_ipv4_hdr *)(frame + FZ_ETH_IP))->checksum = 0;
		((struct ofan_ipv4_hdr *)(frame + FZ_ETH_IP))->checksum =
			ofan_ipv4_checksum((const struct ofan_ipv4_hdr *)
					   (frame + FZ_ETH_IP),
					   OFAN_IPV4_HDR_SIZE);
	}
	if (w->reorder_every != 0 && i % w->reorder_every == 0)
		*due += w->reorder_ns;
	return FZ_CARRY;
}

/* Host h's output at now onto the wire (rules apply in the scenario). */
static void
fz_output(struct fz_world *w, uint16_t h)
{
	struct rte_mbuf *pkts[FZ_BURST];
	struct ofan_pkt_info pi;
	uint16_t n, i;
	uint64_t alloc_failed = hs_host_stats(w->host[h])->alloc_failed;
	const struct fz_host_seen *seen = &w->seen[h];

	/* Paused by the last PFC frame: its timer says until when. */
	if (w->now < seen->pause_until)
		FZ_CHECK(hs_host_paused_until(w->host[h]) == seen->pause_until,
			 "host %u: paused until %" PRIu64 ", the last pause"
			 " says %" PRIu64, h,
			 hs_host_paused_until(w->host[h]), seen->pause_until);
	do {
		n = hs_host_output(w->host[h], w->now, pkts, FZ_BURST);
		FZ_CHECK(n <= FZ_BURST, "output %u", n);
		FZ_CHECK(n == 0 || w->now >= seen->pause_until,
			 "host %u: %u frames out at %" PRIu64 ", paused until %"
			 PRIu64, h, n, w->now, seen->pause_until);
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			uint64_t due = w->now + w->delay_ns;
			enum fz_fate fate = FZ_DROP;
			uint32_t to;
			int v;

			v = ofan_parse(rte_pktmbuf_mtod(m, const uint8_t *),
				       rte_pktmbuf_data_len(m),
				       OFAN_PARSE_F_NO_TTL_CHECK, &pi);
			fz_seen_out(w, h, m, &pi, v);
			if (v == OFAN_PARSE_OK)
				fate = fz_wire_rules(w, m, &pi, &due);
			if (fate == FZ_CUT) {
				bool rts = w->trim == FZ_TRIM_RTS ||
					(w->trim == FZ_TRIM_BOTH &&
					 w->nb_trimmed++ % 2 == 1);

				/* Half of them on the last hop. */
				if (!fz_trim(w, m, &pi, w->trim_full, rts,
					     (pi.psn & 1) != 0, &to) ||
				    to == UINT32_MAX)
					rte_pktmbuf_free(m);
				else
					fz_wire_put(w, m, (uint8_t)to, due);
				continue;
			}
			if (fate == FZ_DROP) {
				rte_pktmbuf_free(m);
				continue;
			}
			if (pi.kind == OFAN_KIND_ARP) {
				/* To every other host. */
				for (to = 0; to < w->nb_hosts; to++) {
					struct rte_mbuf *c;

					if (to == h)
						continue;
					c = fz_mbuf_of(rte_pktmbuf_mtod(m,
						const uint8_t *), m->pkt_len);
					if (c != NULL)
						fz_wire_put(w, c, (uint8_t)to,
							    due);
				}
				rte_pktmbuf_free(m);
				continue;
			}
			to = fz_rank_of_ip(w, pi.dst_ip);
			if (to == UINT32_MAX) {
				rte_pktmbuf_free(m);
				continue;
			}
			fz_wire_put(w, m, (uint8_t)to, due);
		}
	} while (n == FZ_BURST);
	/* Output stopped short with mbufs to spare: nothing more is due. */
	if (hs_host_stats(w->host[h])->alloc_failed == alloc_failed)
		FZ_CHECK(hs_host_next_event(w->host[h]) > w->now,
			 "host %u: next event %" PRIu64 " at %" PRIu64
			 " after its output", h,
			 hs_host_next_event(w->host[h]), w->now);
}

/* Deliver what is due by now, in due order, one burst per host. */
static void
fz_deliver(struct fz_world *w)
{
	struct rte_mbuf *pkts[FZ_MAX_HOSTS][FZ_BURST];
	uint16_t nb[FZ_MAX_HOSTS] = { 0 }, h;
	uint32_t k = 0, i;

	while (k < w->nb_wire && w->wire[k].due <= w->now) {
		h = w->wire[k].to;
		if (nb[h] == FZ_BURST) {
			fz_input(w, h, pkts[h], nb[h]);
			nb[h] = 0;
		}
		pkts[h][nb[h]++] = w->wire[k].m;
		k++;
	}
	for (i = k; i < w->nb_wire; i++)
		w->wire[i - k] = w->wire[i];
	w->nb_wire -= k;
	for (h = 0; h < w->nb_hosts; h++)
		fz_input(w, h, pkts[h], nb[h]);
}

static uint64_t
fz_next_time(const struct fz_world *w)
{
	uint64_t t = w->nb_wire > 0 ? w->wire[0].due : UINT64_MAX;
	uint16_t h;

	for (h = 0; h < w->nb_hosts; h++)
		t = RTE_MIN(t, hs_host_next_event(w->host[h]));
	return t;
}

/*
 * Run the network until end (at most max_events steps): deliveries and
 * every host's output at each time something happens.
 */
static void
fz_run(struct fz_world *w, uint64_t end, uint32_t max_events)
{
	uint64_t t, moved;
	bool tick, idle = false;
	uint16_t h;

	while (max_events-- > 0 && w->events < w->max_events) {
		t = fz_next_time(w);
		if (t == UINT64_MAX || t > end) {
			idle = true;
			break;
		}
		tick = t == w->now + 1;
		if (t > w->now)
			w->now = t;
		w->events++;
		moved = w->nb_moved;
		fz_deliver(w);
		for (h = 0; h < w->nb_hosts; h++)
			fz_output(w, h);
		/*
		 * An event a ns after the last at which no frame moved, again
		 * and again: a host asks to be woken every ns (a timer in the
		 * past) and its driver spins.
		 */
		w->idle_ns_steps = tick && w->nb_moved == moved ?
			w->idle_ns_steps + 1 : 0;
		FZ_CHECK(w->idle_ns_steps < 100,
			 "hosts wake every ns with nothing to do, at %" PRIu64,
			 w->now);
		/* Every frame is accounted at once; the rest every 8. */
		if ((w->events & 7) == 0)
			fz_check_all(w);
	}
	fz_check_all(w);
	/* Nothing more until end: time passes (not when out of events). */
	if (idle && end != UINT64_MAX && end > w->now)
		w->now = end;
}

/* ---- set-up ---- */

static void
fz_log_policy(void *arg, const char *key, uint64_t value)
{
	if (value != 0 && (strcmp(key, "freezes") == 0 ||
			   strcmp(key, "frozen") == 0 ||
			   strcmp(key, "path_timeouts") == 0 ||
			   strcmp(key, "repaths_timeout") == 0 ||
			   strcmp(key, "frozen_packets") == 0))
		fz_log(" %s %" PRIu64, key, value);
	(void)arg;
}

/* With FUZZ_HOST_TRACE: each flow's state and the policies' counters. */
static void
fz_log_state(const struct fz_world *w)
{
	uint32_t f;
	uint16_t h;

	if (!fz_trace)
		return;
	for (f = 0; f < w->traffic.nb_flows; f++) {
		struct hs_flow_result s, r;

		fz_results(w, f, &s, &r);
		fz_log("  flow %u: sent %" PRIu64 " retx %" PRIu64 " timeouts %"
		       PRIu64 " acks %" PRIu64 " %s; received %u of %u %s\n",
		       f, s.data_sent, s.data_retx, s.timeouts, s.acks_received,
		       s.done_ns ? "done" : "not done", r.data_received,
		       w->flow[f].nb_pkts, r.rx_done_ns ? "done" : "not done");
	}
	for (h = 0; h < w->nb_hosts; h++) {
		const struct hs_host_stats *st = hs_host_stats(w->host[h]);

		fz_log("  host %u: trimmed_rx %" PRIu64 " returned_rx %" PRIu64
		       " nacks_sent %" PRIu64 " nacks_received %" PRIu64
		       " timeouts %" PRIu64 " pauses %" PRIu64 " paused_ns %"
		       PRIu64 "; policy:", h, st->trimmed_rx, st->returned_rx,
		       st->nacks_sent, st->nacks_received, st->timeouts,
		       st->pfc_pauses_received, st->pfc_paused_ns);
		hs_host_policy_dump(w->host[h], fz_log_policy, NULL);
		fz_log("\n");
	}
}

/* A trigger's flow end (hs_host_params.on_flow_end). */
static void
fz_on_flow_end(void *arg, uint32_t flow, bool received, uint64_t now)
{
	struct fz_world *w = arg;
	const struct hs_flow_spec *f = &w->traffic.flows[flow];
	const uint32_t *go;
	uint32_t tr, n, i;

	FZ_CHECK(flow < w->traffic.nb_flows, "flow end of %u", flow);
	w->flow[flow].ends[received]++;
	FZ_CHECK(w->flow[flow].ends[received] == 1,
		 "flow %u: %s end reported again", flow,
		 received ? "receive" : "send");
	tr = received ? f->recv_done_trigger : f->send_done_trigger;
	FZ_CHECK(tr != HS_NO_TRIGGER, "flow %u: an end without trigger",
		 flow);
	n = hs_trigger_activate(&w->traffic, &w->trig, tr, &go);
	for (i = 0; i < n; i++)
		hs_host_release(w->host[w->traffic.flows[go[i]].src], go[i],
				now);
}

static const uint16_t fz_mtus[8] = { 64, 100, 128, 200, 300, 600, 1000, 1500 };
static const uint64_t fz_rto_us[8] = { 5, 10, 20, 40, 80, 160, 500, 1000 };
static const uint32_t fz_ev_width[8] = { 0, 1, 3, 7, 15, 255, 4095, 16383 };
/* tcp's settings, inside the loader's ranges (hs_config.c). */
static const uint32_t fz_dupacks[8] = { 3, 1, 2, 4, 6, 10, 100, 65536 };
static const uint32_t fz_sack_limit[8] = { 0, 1, 2, 3, 5, 10, 32, 63 };
static const uint64_t fz_initial_rto_us[8] = {
	1000, 1, 3, 10, 30, 100, 300, 3000,
};

/*
 * The header: configuration, traffic and wire (see the top comment),
 * then 4 bytes per flow (source; destination, start, dependency,
 * trigger; packets; size of the last one).  The modes come from their
 * registries (fuzz_host_modes.h), a byte each, so that every registered
 * one is drawn; bytes 16-20 of zeros keep the meaning bytes 0-15 had
 * alone (the seeds of before have them inserted).  Header bytes:
 *   0  bit 0 recovery (with 16), 1 pacing flow, 2 cc (with 17),
 *      3 ce_echo ack, 4-5 3: no payload check, 1: not ECN-capable;
 *      6 start at 0, 7 pacing jitter
 *   1  policy (bits 0-2, with 18), resend_path next (7)
 *   2  MTU (bits 0-2), hosts (bits 3-7, 2 + n % 3)
 *   3  flows (bits 0-2, 1 + n % 6), erasure k (bits 3-4)
 *   4  wire delay (bits 0-2), base RTT: real, / 4, x 4 (bits 6-7)
 *   5  min RTO (bits 0-2), longer scenario (3-4), window (5-7)
 *   6  EV range width (bits 0-2), reorder window (bits 3-5)
 *   7  scenario length (bits 0-5), no ARP (6), no drop mask (7)
 *   8-11 drop mask        12 black hole (EVs, duration)
 *   13 CE marks, reordering      14 ev_min (bits 0-5), ack_every (6-7)
 *   15 trigger (bits 0-1), policy settings variant (bits 2-7)
 *   16 recovery: hs_recovery_registry[(byte + bit 0 of 0) % n] (0 sack,
 *      1 erasure, 2 tcp, 3 trim, 4 gbn, then registered ones)
 *   17 cc: hs_cc_registry[(byte + bit 2 of 0) % n] (rate, ecn_window)
 *   18 policy: hlb_registry[(byte + p) % n], p from bits 0-2 of byte 1
 *      (0-5 themselves, 6: 1, 7: 2)
 *   19 tcp, trim, gbn: dupacks (bits 0-2), no fast_retransmit (3),
 *      sack_limit (4-6)
 *   20 initial_rto (bits 0-2), trimming (3-4: off, headers to their
 *      receivers, returned to their senders, each in turn), trim_size
 *      full (5)
 * Every byte value means something: every input makes a scenario.
 * Returns 0 or -ENOMEM.
 */
#define FZ_HDR_SIZE 21

/* The cumulative-ACK models, whose settings blocks fz_setup() fills. */
static const char *const fz_cumack[] = { "tcp", "trim", "gbn" };

/* The settings block of built-in recovery model name in c. */
static void *
fz_recovery_set(struct hs_config *c, const char *name)
{
	return (void *)hs_recovery_settings_of(&c->set.recovery_set,
					       hs_recovery_find(name));
}

static int
fz_setup(struct fz_world *w, struct fz_in *in)
{
	struct hs_config *c = &w->cfg;
	const struct hs_ca_settings *tcp = fz_recovery_set(c, "tcp");
	uint8_t hdr[FZ_HDR_SIZE];
	uint32_t nb_flows, f, i, trig_from = UINT32_MAX, nb_targets = 0;
	uint32_t wait_trig[FZ_MAX_FLOWS];
	struct hs_traffic *t = &w->traffic;
	struct hs_transport_params tp;
	char err[256];
	uint16_t h;

	for (i = 0; i < FZ_HDR_SIZE; i++)
		hdr[i] = fz_u8(in);
	*c = fz_base[(hdr[15] >> 2) % FZ_NB_VARIANTS];
	/* 6 and 7 in byte 1: ops and reps again (reps has the most states). */
	c->set.policy = fz_modes_policy((uint8_t)(hdr[18] + ((hdr[1] & 7) < 6 ?
							hdr[1] & 7 :
							(hdr[1] & 7) - 5)));
	c->set.recovery = fz_modes_recovery((uint8_t)(hdr[16] + (hdr[0] & 1)));
	/* tcp's keys, and initial_rto for trim and gbn too. */
	for (i = 0; i < RTE_DIM(fz_cumack); i++) {
		struct hs_ca_settings *ca = fz_recovery_set(c, fz_cumack[i]);

		ca->dupacks = fz_dupacks[hdr[19] & 7];
		ca->fast_retransmit = !(hdr[19] & 8);
		ca->sack_limit = fz_sack_limit[(hdr[19] >> 4) & 7];
		ca->initial_rto_ns = fz_initial_rto_us[hdr[20] & 7] * FZ_US;
	}
	/* sack's receiver ACKs as RFC 5681 asks or as UEC's does. */
	((struct hs_sack_settings *)fz_recovery_set(c, "sack"))->acks =
		hdr[19] & 0x80 ? HS_SACK_ACKS_UEC : HS_SACK_ACKS_RFC5681;
	c->set.resend_path = hdr[1] & 0x80 ? HS_RESEND_NEXT : HS_RESEND_OWN;
	c->set.pacing = hdr[0] & 2 ? HS_PACING_FLOW : HS_PACING_HOST;
	c->set.pacing_jitter = c->set.pacing == HS_PACING_FLOW && (hdr[0] & 0x80) ?
		0.25 : 0.0;
	c->set.cc = fz_modes_cc((uint8_t)(hdr[17] + ((hdr[0] >> 2) & 1)));
	/* A receiver-driven cc runs over SACK only (the loader refuses). */
	if (!hs_cc_recovery_fit(c->set.cc, c->set.recovery))
		c->set.cc = hs_cc_find("nscc");
	((struct hs_ecn_window_settings *)hs_cc_settings_of(&c->set.cc_set,
		hs_cc_find("ecn_window")))->window_pkts = 1 + (hdr[5] >> 5);
	c->set.ce_echo = hdr[0] & 8 ? HS_CE_ECHO_ACK : HS_CE_ECHO_DATA;
	c->set.verify_payload = (hdr[0] & 0x30) != 0x30;
	c->set.ecn = (hdr[0] & 0x30) == 0x10 ? OFAN_ECN_NOT_ECT : OFAN_ECN_ECT0;
	c->set.ack_every = (uint16_t)(1 + (hdr[14] >> 6));
	c->set.mtu = fz_mtus[hdr[2] & 7];
	((struct hs_erasure_settings *)fz_recovery_set(c, "erasure"))->k =
		(hdr[3] >> 3) & 3;
	c->set.min_rto_ns = fz_rto_us[hdr[5] & 7] * FZ_US;
	c->set.reorder_window_ns = (uint64_t)((hdr[6] >> 3) & 7) * FZ_US;
	c->set.hlb.ev_min = (uint16_t)(49152 + (hdr[14] & 0x3f));
	/*
	 * The widest range ends at 65535: an ev_max that wrapped below
	 * ev_min is a configuration the loader refuses, and the host's debug
	 * check stops at the first EV a policy draws from it.
	 */
	c->set.hlb.ev_max = (uint16_t)RTE_MIN(UINT16_MAX, (uint32_t)c->set.hlb.ev_min +
					  fz_ev_width[hdr[6] & 7]);
	w->delay_ns = (1 + (hdr[4] & 7)) * FZ_US / 2;
	/* The real round trip, or a base RTT far below or above it. */
	c->set.base_rtt_ns = 2 * w->delay_ns + FZ_US / 2;
	if ((hdr[4] >> 6) == 1)
		c->set.base_rtt_ns /= 4;
	else if ((hdr[4] >> 6) == 2)
		c->set.base_rtt_ns *= 4;
	hs_config_derive(c);
	w->verify = c->set.verify_payload;
	w->counts = c->set.recovery->counts;
	w->in_order = fz_modes_in_order(c->set.recovery);
	w->t0 = hdr[0] & 0x40 ? 0 : FZ_T0_NS;
	w->now = w->t0;

	/* The wire's rules while the scenario runs. */
	w->drop_mask = (uint32_t)hdr[8] << 24 | (uint32_t)hdr[9] << 16 |
		(uint32_t)hdr[10] << 8 | hdr[11];
	if (hdr[7] & 0x80)
		w->drop_mask = 0;
	w->bh_ev_mod = hdr[12] & 3 ? 4 : 0;
	w->bh_ev = (hdr[12] >> 2) & 3;
	w->bh_until = w->t0 + (uint64_t)(hdr[12] >> 4) * 10 * FZ_US;
	w->ce_every = hdr[13] & 7;
	w->reorder_every = (hdr[13] >> 3) & 7;
	w->reorder_ns = (uint64_t)(hdr[13] >> 6) * FZ_US + FZ_US / 4;
	w->trim = (hdr[20] >> 3) & 3;
	w->trim_full = (hdr[20] & 0x20) != 0;
	w->lossy = true;

	/* Traffic: nb_flows tiny flows over 2-4 hosts. */
	w->nb_hosts = (uint16_t)(2 + (hdr[2] >> 3) % 3);
	nb_flows = 1 + (hdr[3] & 7) % FZ_MAX_FLOWS;
	t->nb_ranks = w->nb_hosts;
	t->nb_flows = nb_flows;
	t->flows = calloc(nb_flows, sizeof(*t->flows));
	if (t->flows == NULL)
		return -ENOMEM;
	for (f = 0; f < nb_flows; f++) {
		struct hs_flow_spec *s = &t->flows[f];
		uint8_t a = fz_u8(in), b = fz_u8(in), sz = fz_u8(in);
		uint8_t rem = fz_u8(in);
		/* 1-8 packets, or 60-130: past the 64-PSN SACK window. */
		uint64_t pkts = sz < 0xf8 ? 1 + sz % 8 : 60 + (sz % 8) * 10;
		int32_t d;

		s->id = f;
		s->src = a % w->nb_hosts;
		s->dst = (s->src + 1 + b % (w->nb_hosts - 1)) % w->nb_hosts;
		s->size = (pkts - 1) * c->set.mss + 1 + (uint64_t)rem * c->set.mss / 256;
		s->start_ns = (uint64_t)((b >> 2) & 3) * 3 * FZ_US;
		s->dep = HS_NO_DEP;
		s->trigger = HS_NO_TRIGGER;
		s->send_done_trigger = HS_NO_TRIGGER;
		s->recv_done_trigger = HS_NO_TRIGGER;
		/* Wait for the newest earlier flow into our source. */
		if (b & 0x10)
			for (d = (int32_t)f - 1; d >= 0; d--)
				if (t->flows[d].dst == s->src) {
					s->dep = (uint32_t)d;
					break;
				}
		if ((hdr[15] & 1) && f == 0)
			trig_from = 0;
		else if ((hdr[15] & 1) && s->dep == HS_NO_DEP && (b & 0x20))
			wait_trig[nb_targets++] = f;
	}
	/* One oneshot trigger: flow 0's end starts the flows that wait. */
	if (trig_from != UINT32_MAX && nb_targets > 0) {
		t->triggers = calloc(1, sizeof(*t->triggers));
		t->trigger_targets = calloc(nb_targets, sizeof(uint32_t));
		if (t->triggers == NULL || t->trigger_targets == NULL)
			return -ENOMEM;
		t->nb_triggers = 1;
		t->triggers[0].kind = HS_TRIG_ONESHOT;
		t->triggers[0].count = 1;
		t->triggers[0].nb_targets = nb_targets;
		t->triggers[0].nb_activators = 1;
		if (hdr[15] & 2)
			t->flows[0].recv_done_trigger = 0;
		else
			t->flows[0].send_done_trigger = 0;
		for (i = 0; i < nb_targets; i++) {
			f = wait_trig[i];
			t->flows[f].trigger = 0;
			t->flows[f].start_ns = 0;
			t->trigger_targets[i] = f;
		}
	}
	if (hs_traffic_derive(t) != 0)
		return -ENOMEM;
	if (hs_trigger_state_init(&w->trig, t) != 0)
		return -ENOMEM;

	tp = (struct hs_transport_params){
		.recovery = c->set.recovery, .mss = c->set.mss,
		.settings = hs_recovery_settings_of(&c->set.recovery_set,
						    c->set.recovery),
	};
	for (f = 0; f < nb_flows; f++) {
		w->flow[f].nb_pkts = hs_transport_nb_pkts(&tp,
							  t->flows[f].size);
		w->flow[f].payload = fz_erasure(c) ?
			(uint16_t)RTE_MIN(t->flows[f].size, (uint64_t)c->set.mss) :
			c->set.mss;
	}
	for (h = 0; h < w->nb_hosts; h++) {
		struct hs_host_params hp = {
			.set = &c->set,
			.traffic = t,
			.rank = h,
			.mac = { 0x02, 0, 0, 0, 0xaa, (uint8_t)h },
			.dst_mac = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
			.pool = fz_pool,
			.no_announce = (hdr[7] & 0x40) != 0,
			.on_flow_end = fz_on_flow_end,
			.on_flow_end_arg = w,
		};

		w->host[h] = hs_host_create(&hp, err, sizeof(err));
		FZ_CHECK(w->host[h] != NULL, "hs_host_create: %s", err);
	}
	fz_log("setup: %s %s pacing %s cc %s mtu %u mss %u ack_every %u k %u"
	       " rto %" PRIu64 " delay %" PRIu64 " base_rtt %" PRIu64
	       " hosts %u flows %u verify %d t0 %" PRIu64 "\n",
	       c->set.recovery->name, c->set.policy->name,
	       hs_pacing_names[c->set.pacing], c->set.cc->name, c->set.mtu, c->set.mss,
	       c->set.ack_every,
	       ((const struct hs_erasure_settings *)
		fz_recovery_set(c, "erasure"))->k, c->set.min_rto_ns, w->delay_ns,
	       c->set.base_rtt_ns, w->nb_hosts, nb_flows, w->verify, w->t0);
	fz_log("  dupacks %u fast_retransmit %d sack_limit %u initial_rto %"
	       PRIu64 " trim %s%s\n", tcp->dupacks, tcp->fast_retransmit,
	       tcp->sack_limit, tcp->initial_rto_ns,
	       (const char *const[]){ "off", "rx", "rts", "both" }[w->trim],
	       w->trim_full ? " full" : "");
	for (f = 0; f < nb_flows; f++)
		fz_log("  flow %u: %u->%u %" PRIu64 " B (%u pkts) start %"
		       PRIu64 " dep %d trigger %d/%d/%d\n", f,
		       t->flows[f].src, t->flows[f].dst, t->flows[f].size,
		       w->flow[f].nb_pkts, t->flows[f].start_ns,
		       (int)t->flows[f].dep, (int)t->flows[f].trigger,
		       (int)t->flows[f].send_done_trigger,
		       (int)t->flows[f].recv_done_trigger);
	for (h = 0; h < w->nb_hosts; h++)
		hs_host_start(w->host[h], w->t0);
	fz_check_all(w);
	/* The scenario: the prefix the header chose. */
	fz_run(w, w->t0 + (uint64_t)(hdr[7] & 0x3f) * 4 * FZ_US +
	       (uint64_t)((hdr[5] >> 3) & 3) * 100 * FZ_US, FZ_MAX_EVENTS);
	w->lossy = false;
	fz_log("scenario done at %" PRIu64 " after %u events\n", w->now,
	       w->events);
	fz_log_state(w);
	return 0;
}

/* ---- injected frames ---- */

enum fz_op {
	FZ_OP_STEP = 0,		/* advance time, run the network */
	FZ_OP_RAW,		/* a frame of raw bytes */
	FZ_OP_DATA,		/* a data frame from fuzzed fields */
	FZ_OP_ACK,		/* an ACK from fuzzed fields */
	FZ_OP_WIRE,		/* tamper with a frame on the wire */
	FZ_OP_REPLAY,		/* a frame a host sent earlier, again */
	FZ_OP_ARP,		/* an ARP request or reply */
	FZ_OP_CHAIN,		/* a valid frame in two segments */
	FZ_OP_FLUSH,		/* give the collected burst */
	FZ_OP_FEEDBACK,		/* NACKs, duplicate, stale, early ACKs */
	FZ_OP_HEADER,		/* a trimmed or returned header */
	FZ_OP_PAUSE,		/* a PFC or 802.3x pause frame */
	FZ_OP_NB
};
/* Bit of the op byte: collect the frame into the burst. */
#define FZ_OP_F_BURST 0x80

/* Give the collected burst to its host. */
static void
fz_flush(struct fz_world *w)
{
	uint16_t n = w->nb_burst;

	if (n == 0)
		return;
	w->nb_burst = 0;
	fz_input(w, w->burst_host, w->burst, n);
	fz_check_all(w);
}

/* Give one injected frame to host h, now or in the burst. */
static void
fz_inject(struct fz_world *w, uint16_t h, struct rte_mbuf *m, bool burst)
{
	if (m == NULL)
		return;
	if (burst && (w->nb_burst == 0 || w->burst_host == h) &&
	    w->nb_burst < FZ_BURST) {
		w->burst_host = (uint8_t)h;
		w->burst[w->nb_burst++] = m;
		return;
	}
	fz_flush(w);
	fz_input(w, h, &m, 1);
	fz_check_all(w);
}

/* A PSN chosen relative to what flow f's sender really did. */
static uint32_t
fz_pick_psn(const struct fz_world *w, uint32_t f, struct fz_in *in)
{
	static const uint32_t special[8] = {
		0, 1, 0xffffff, 0x1000000, 0x7fffffff, 0xffffffff,
		0xfffffffe, 0x800000,
	};
	const struct fz_flow *fl = &w->flow[f];
	uint8_t mode = fz_u8(in);
	uint32_t v = fz_u32(in), i;

	switch (mode % 6) {
	case 0:
		return v % (fl->nb_pkts + 2);
	case 1:
		return fl->psn_hi + (uint32_t)(int32_t)(int8_t)v;
	case 2:
		/* A PSN it sent (a lost one, a duplicate). */
		for (i = 0; i < fl->psn_hi && i < FZ_PSN_BITS; i++) {
			uint32_t p = (i + v) % RTE_MIN(fl->psn_hi,
						       (uint32_t)FZ_PSN_BITS);

			if (fl->psn_out[p / 64] & (1ull << (p % 64)))
				return p;
		}
		return 0;
	case 3:
		return special[v % 8];
	case 4:
		return fl->nb_pkts + (uint32_t)(int32_t)(int8_t)v;
	default:
		return v;
	}
}

/* Addresses of a crafted frame of flow f from `from` to `to` (ranks). */
static void
fz_pick_addrs(const struct fz_world *w, struct ofan_pkt_spec *sp,
	      uint32_t from, uint32_t to, uint8_t mode, uint32_t raw)
{
	sp->src_ip = hs_rank_ip(&w->cfg.set, from);
	sp->dst_ip = hs_rank_ip(&w->cfg.set, to);
	switch (mode % 8) {
	case 5:	/* another rank's source address */
		sp->src_ip = hs_rank_ip(&w->cfg.set, (from + 1 + raw % 3) %
					w->nb_hosts);
		break;
	case 6:	/* an unknown source */
		sp->src_ip = raw;
		break;
	case 7:	/* for another address */
		sp->dst_ip = raw % 2 ? raw : hs_rank_ip(&w->cfg.set, (to + 1) %
							w->nb_hosts);
		break;
	default:
		break;
	}
	sp->src_mac[0] = 0x02;
	sp->src_mac[5] = (uint8_t)from;
	memset(sp->dst_mac, 0xff, 6);
	sp->ttl = (uint8_t)((mode >> 3) & 0xf);	/* 0 is 64 */
}

/* Flip up to 3 bytes of frame (len bytes) at fuzzed offsets. */
static void
fz_patch(uint8_t *frame, int len, struct fz_in *in)
{
	uint8_t n = fz_u8(in) % 4, i;

	for (i = 0; i < n && len > 0; i++) {
		uint16_t off = fz_u16(in);

		frame[off % len] ^= fz_u8(in);
	}
}

/*
 * Which flow a crafted frame is about: a real one (most values), or an
 * unknown QP.  Returns the flow, or nb_flows with *qp set.
 */
static uint32_t
fz_pick_flow(const struct fz_world *w, struct fz_in *in, uint32_t *qp)
{
	uint8_t b = fz_u8(in);
	uint32_t n = w->traffic.nb_flows;

	if (b % 8 != 7) {
		*qp = b % n + FZ_QP_OFFSET;
		return b % n;
	}
	*qp = (b >> 3) % 4 == 0 ? fz_u32(in) & OFAN_BTH_QP_MASK :
		n + FZ_QP_OFFSET + ((b >> 3) % 4 == 1 ? 0 : (b >> 5));
	if ((b >> 3) % 4 == 2)
		*qp = b >> 6;	/* QP 0..3: below the offset */
	return n;
}

static void
fz_op_data(struct fz_world *w, struct fz_in *in, bool burst)
{
	uint8_t frame[FZ_FRAME_MAX];
	struct ofan_pkt_spec sp;
	uint32_t qp, f, psn, to, from, mss = w->cfg.set.mss;
	const struct hs_flow_spec *spec;
	uint8_t mode, pmode;
	int len;

	memset(&sp, 0, sizeof(sp));
	f = fz_pick_flow(w, in, &qp);
	spec = &w->traffic.flows[f < w->traffic.nb_flows ? f : 0];
	mode = fz_u8(in);
	/* To its receiver, or (mode bit 7) to its sender. */
	from = spec->src;
	to = mode & 0x80 ? spec->src : spec->dst;
	if (to == from)
		from = spec->dst;
	fz_pick_addrs(w, &sp, from, to, mode, fz_u32(in));
	psn = f < w->traffic.nb_flows ? fz_pick_psn(w, f, in) : fz_u32(in);
	/*
	 * An erasure receiver's bitmap grows with the PSNs (hs_erx_cover):
	 * one frame near 2^24 costs it 2 MiB, zeroed.  Allowed, but kept
	 * rare (mode bits 4-6 all set) so that inputs stay fast.
	 */
	if (fz_erasure(&w->cfg) && (mode & 0x70) != 0x70)
		psn %= 1u << 14;
	sp.dest_qp = qp;
	sp.psn = psn;
	sp.ev = fz_u16(in);
	sp.tos = fz_u8(in);
	pmode = fz_u8(in);
	/* The payload its PSN must have, or another size. */
	if (pmode % 4 != 3) {
		psn &= OFAN_BTH_PSN_MASK;
		if (fz_erasure(&w->cfg))
			sp.payload_size = (uint16_t)RTE_MIN(spec->size,
							    (uint64_t)mss);
		else if (f < w->traffic.nb_flows &&
			 psn + 1 == w->flow[f].nb_pkts)
			sp.payload_size = (uint16_t)(spec->size -
						     (uint64_t)psn * mss);
		else
			sp.payload_size = (uint16_t)mss;
	} else {
		sp.payload_size = (uint16_t)(fz_u16(in) % (mss + 64));
	}
	len = ofan_build_data(frame, sizeof(frame), &sp);
	if (len < 0)
		return;
	if (pmode & 4)		/* another data opcode */
		frame[FZ_BTH_OFF] = (uint8_t)(fz_u8(in) & ~0x10);
	if (pmode & 8)
		fz_patch(frame, len, in);
	if (len < 60 && (pmode & 16)) {
		memset(frame + len, 0, 60 - len);
		len = 60;
	}
	w->forged = true;
	fz_log("  op data flow %u qp %u psn %u ev %u tos %#x payload %u"
	       " to %u\n", f, qp, psn, sp.ev, sp.tos, sp.payload_size, to);
	fz_inject(w, (uint16_t)to, fz_mbuf_of(frame, (uint32_t)len), burst);
}

static void
fz_op_ack(struct fz_world *w, struct fz_in *in, bool burst)
{
	uint8_t frame[FZ_FRAME_MAX];
	struct ofan_pkt_spec sp;
	struct ofan_ack_ext ext;
	const struct hs_flow_spec *spec;
	const struct fz_flow *fl;
	uint32_t qp, f, to, from;
	uint8_t mode, smode, fl_byte;
	int len;

	memset(&sp, 0, sizeof(sp));
	memset(&ext, 0, sizeof(ext));
	f = fz_pick_flow(w, in, &qp);
	spec = &w->traffic.flows[f < w->traffic.nb_flows ? f : 0];
	fl = &w->flow[f < w->traffic.nb_flows ? f : 0];
	mode = fz_u8(in);
	/* To its sender, or (mode bit 7) to its receiver. */
	from = spec->dst;
	to = mode & 0x80 ? spec->dst : spec->src;
	if (to == from)
		from = spec->src;
	fz_pick_addrs(w, &sp, from, to, mode, fz_u32(in));
	sp.dest_qp = qp;
	ext.cum_psn = fz_pick_psn(w, f < w->traffic.nb_flows ? f : 0, in);
	ext.echo_psn = fz_pick_psn(w, f < w->traffic.nb_flows ? f : 0, in);
	sp.psn = ext.echo_psn;
	smode = fz_u8(in);
	switch (smode % 4) {
	case 0:
		ext.sack = 0;
		break;
	case 1:
		ext.sack = UINT64_MAX;
		break;
	case 2:	/* the PSNs it sent above cum */
		{
			uint32_t i, p;

			for (i = 0; i < 64; i++) {
				p = ext.cum_psn + 1 + i;
				if (p < FZ_PSN_BITS &&
				    (fl->psn_out[p / 64] & (1ull << (p % 64))))
					ext.sack |= 1ull << i;
			}
		}
		break;
	default:
		ext.sack = fz_u64(in);
		break;
	}
	/* The EV of one of its packets, or any. */
	ext.echo_ev = smode & 4 && fl->nb_evs > 0 ?
		fl->evs[fz_u8(in) % RTE_MIN(fl->nb_evs, (uint8_t)8)] :
		fz_u16(in);
	sp.ev = ext.echo_ev;
	fl_byte = fz_u8(in);
	/* The model's COUNT flag, the other's, or any flags. */
	ext.flags = (uint8_t)(fl_byte & OFAN_ACK_F_CE);
	if (fz_erasure(&w->cfg) != ((fl_byte & 6) == 6))
		ext.flags |= OFAN_ACK_F_COUNT;
	if (fl_byte & 8)
		ext.flags = fz_u8(in);
	sp.tos = (uint8_t)(fl_byte >> 4 & OFAN_ECN_MASK);
	len = ofan_build_ack(frame, sizeof(frame), &sp, &ext);
	if (len < 0)
		return;
	if (smode & 8)
		fz_patch(frame, len, in);
	if (len < 60 && (smode & 16)) {
		memset(frame + len, 0, 60 - len);
		len = 60;
	}
	w->forged = true;
	fz_log("  op ack flow %u qp %u cum %u sack %#" PRIx64 " echo %u/%u"
	       " flags %#x to %u\n", f, qp, ext.cum_psn, ext.sack,
	       ext.echo_psn, ext.echo_ev, ext.flags, to);
	fz_inject(w, (uint16_t)to, fz_mbuf_of(frame, (uint32_t)len), burst);
}

static void
fz_op_wire(struct fz_world *w, struct fz_in *in)
{
	uint8_t k = fz_u8(in), act = fz_u8(in);
	struct fz_pkt p;
	uint32_t i;

	if (w->nb_wire == 0)
		return;
	i = k % w->nb_wire;
	p = w->wire[i];
	/* Take it off; put it (or copies) back as the action says. */
	memmove(&w->wire[i], &w->wire[i + 1],
		(w->nb_wire - i - 1) * sizeof(w->wire[0]));
	w->nb_wire--;
	switch (act % 4) {
	case 0:
		fz_log("  op wire: drop\n");
		rte_pktmbuf_free(p.m);
		break;
	case 1:
		{
			struct rte_mbuf *c = fz_mbuf_of(
				rte_pktmbuf_mtod(p.m, uint8_t *), p.m->pkt_len);

			fz_log("  op wire: duplicate\n");
			if (c != NULL)
				fz_wire_put(w, c, p.to,
					    p.due + (act >> 2) * 100);
			fz_wire_put(w, p.m, p.to, p.due);
		}
		break;
	case 2:
		fz_log("  op wire: flip\n");
		w->forged = true;
		rte_pktmbuf_mtod(p.m, uint8_t *)[fz_u16(in) % p.m->data_len] ^=
			(uint8_t)(act | 1);
		fz_wire_put(w, p.m, p.to, p.due);
		break;
	default:
		fz_log("  op wire: delay\n");
		fz_wire_put(w, p.m, p.to, p.due + (act >> 2) * 500);
		break;
	}
}

static void
fz_op_replay(struct fz_world *w, struct fz_in *in, bool burst)
{
	uint8_t k = fz_u8(in), to = fz_u8(in);
	uint8_t frame[FZ_REPLAY_SIZE];
	struct ofan_pkt_info pi;
	uint32_t slot, len;

	if (w->nb_replay == 0)
		return;
	slot = (w->nb_replay - 1 - k % RTE_MIN(w->nb_replay,
					       (uint32_t)FZ_REPLAY)) %
		FZ_REPLAY;
	len = w->replay_len[slot];
	memcpy(frame, w->replay[slot], len);
	/* To its destination, or to any host. */
	if (!(to & 0x80) &&
	    ofan_parse(frame, len, OFAN_PARSE_F_NO_TTL_CHECK, &pi) ==
	    OFAN_PARSE_OK && fz_rank_of_ip(w, pi.dst_ip) != UINT32_MAX)
		to = (uint8_t)fz_rank_of_ip(w, pi.dst_ip);
	else
		to = (uint8_t)(to % w->nb_hosts);
	if (k & 0x80) {
		fz_patch(frame, (int)len, in);
		w->forged = true;
	}
	fz_log("  op replay slot %u to %u\n", slot, to);
	fz_inject(w, to, fz_mbuf_of(frame, len), burst);
}

static void
fz_op_raw(struct fz_world *w, struct fz_in *in, bool burst)
{
	uint8_t to = fz_u8(in) % w->nb_hosts;
	uint16_t len = fz_u8(in);
	uint8_t frame[256];
	uint16_t i;

	for (i = 0; i < len; i++)
		frame[i] = fz_u8(in);
	w->forged = true;
	fz_log("  op raw %u bytes to %u\n", len, to);
	fz_inject(w, to, fz_mbuf_of(frame, len), burst);
}

static void
fz_op_arp(struct fz_world *w, struct fz_in *in, bool burst)
{
	uint8_t to = fz_u8(in), b = fz_u8(in);
	uint8_t frame[64], sha[6] = { 0x02, 0, 0, 0, 0xbb, 0 };
	uint32_t tpa;
	int len;

	to %= w->nb_hosts;
	sha[5] = b;
	tpa = b & 1 ? fz_u32(in) : hs_rank_ip(&w->cfg.set, to);
	len = ofan_build_arp(frame, sizeof(frame),
			     b & 2 ? OFAN_ARP_OP_REPLY : OFAN_ARP_OP_REQUEST,
			     sha, 0x0a000063, NULL, tpa);
	if (len < 0)
		return;
	fz_log("  op arp to %u\n", to);
	fz_inject(w, to, fz_mbuf_of(frame, (uint32_t)len), burst);
}

/* The next frame a host would see, in two segments: dropped, freed. */
static void
fz_op_chain(struct fz_world *w, struct fz_in *in)
{
	uint8_t to = fz_u8(in) % w->nb_hosts, cut = fz_u8(in);
	struct rte_mbuf *a, *b;
	uint32_t k;

	if (w->nb_replay == 0)
		return;
	k = (w->nb_replay - 1) % FZ_REPLAY;
	cut = (uint8_t)(cut % (w->replay_len[k] + 1));
	a = fz_mbuf_of(w->replay[k], cut);
	b = fz_mbuf_of(w->replay[k] + cut, w->replay_len[k] - cut);
	if (a == NULL || b == NULL || rte_pktmbuf_chain(a, b) != 0) {
		rte_pktmbuf_free(a);
		rte_pktmbuf_free(b);
		return;
	}
	fz_log("  op chain to %u cut %u\n", to, cut);
	fz_flush(w);
	fz_input(w, to, &a, 1);
	fz_check_all(w);
}

/*
 * Feedback to flow f's sender shaped as its receiver sends it (the
 * model's COUNT flag, one of its EVs): a NACK, as trim's receiver sends
 * for a trimmed PSN and gbn's for the PSN it expects, naming a PSN inside
 * the sender's window, at its start or end, or past it; copies of the
 * receiver's last ACK (tcp's duplicate ACKs, its fast retransmit); an ACK
 * below it (stale); or one far ahead.  Only the last may acknowledge what
 * the receiver does not have: it alone counts as forged (and a NACK to
 * a counting model, whose receivers send none).
 */
static void
fz_op_feedback(struct fz_world *w, struct fz_in *in, bool burst)
{
	uint8_t b = fz_u8(in), k = fz_u8(in), frame[FZ_FRAME_MAX];
	const struct hs_flow_spec *spec;
	struct ofan_pkt_spec sp;
	struct ofan_ack_ext ext;
	const struct fz_flow *fl;
	uint32_t qp, f, copies = 1, i, span;
	bool nack = false;
	int len;

	f = fz_pick_flow(w, in, &qp);
	spec = &w->traffic.flows[f < w->traffic.nb_flows ? f : 0];
	fl = &w->flow[f < w->traffic.nb_flows ? f : 0];
	memset(&ext, 0, sizeof(ext));
	ext.flags = w->counts ? OFAN_ACK_F_COUNT : 0;
	ext.echo_ev = fl->nb_evs > 0 ?
		fl->evs[k % RTE_MIN(fl->nb_evs, (uint8_t)8)] :
		w->cfg.set.hlb.ev_min;
	switch (b % 4) {
	case 0:		/* a NACK */
		nack = true;
		ext.cum_psn = b & 4 ? fl->ack_cum - RTE_MIN(fl->ack_cum,
							    k % 4u) :
			fl->ack_cum;
		span = fl->psn_hi > fl->ack_cum ? fl->psn_hi - fl->ack_cum : 0;
		switch ((b >> 3) % 5) {
		case 0:	/* inside the window */
			ext.echo_psn = fl->ack_cum + k % (span + 1);
			break;
		case 1:	/* at its start (gbn's) */
			ext.echo_psn = fl->ack_cum;
			break;
		case 2:	/* at its end: never sent */
			ext.echo_psn = fl->psn_hi;
			break;
		case 3:	/* past it, or past the flow */
			ext.echo_psn = k & 1 ? fl->psn_hi + 1 + k / 2 :
				fl->nb_pkts + k / 2;
			break;
		default:
			ext.echo_psn = fz_pick_psn(w, f < w->traffic.nb_flows ?
						   f : 0, in);
			break;
		}
		break;
	case 1:		/* the last ACK again, and again */
		if (!fl->acked)
			return;
		ext = fl->last_ack;
		copies = 1 + k % 8;
		break;
	case 2:		/* stale: below what the receiver acknowledged */
		if (!fl->acked)
			return;
		ext = fl->last_ack;
		ext.cum_psn = fl->ack_cum - RTE_MIN(fl->ack_cum, 1 + k % 4u);
		ext.sack = 0;
		copies = 1 + (k >> 4) % 4;
		break;
	default:	/* ahead: past what was sent, or received */
		{
			const uint32_t ahead[8] = {
				fl->psn_hi, fl->psn_hi + 1, fl->psn_hi + 64,
				fl->nb_pkts, fl->nb_pkts + 1, 0xffffff,
				0x1000000, UINT32_MAX,
			};

			ext.cum_psn = ahead[k % 8];
			ext.sack = k & 8 ? UINT64_MAX : 0;
			ext.echo_psn = fl->psn_hi;
			w->forged = true;
		}
		break;
	}
	/* A counting model's receivers send no NACKs: one may say anything. */
	if (nack && w->counts)
		w->forged = true;
	/*
	 * An unknown pick may still name a real flow's QP (QPs 0-3, or a
	 * random one): the host finds the flow by QP alone, so flow 0's
	 * feedback acknowledges another flow of its sender, packets of it
	 * that its receiver may never have had.
	 */
	if (f == w->traffic.nb_flows && qp >= FZ_QP_OFFSET &&
	    qp - FZ_QP_OFFSET < w->traffic.nb_flows &&
	    qp != FZ_QP_OFFSET &&
	    w->traffic.flows[qp - FZ_QP_OFFSET].src == spec->src)
		w->forged = true;
	if (b & 0x80)
		ext.flags |= OFAN_ACK_F_CE;
	memset(&sp, 0, sizeof(sp));
	fz_pick_addrs(w, &sp, spec->dst, spec->src, 0, 0);
	sp.dest_qp = qp;
	sp.psn = ext.echo_psn;
	sp.ev = ext.echo_ev;
	sp.tos = b & 0x40 ? OFAN_ECN_CE : OFAN_ECN_ECT0;
	len = ofan_build_ack(frame, sizeof(frame), &sp, &ext);
	if (len < 0)
		return;
	if (nack)
		frame[OFAN_DATA_HDRS_SIZE] = OFAN_AETH_SYN_NAK_SEQ;
	fz_log("  op feedback flow %u qp %u %s x%u cum %u sack %#" PRIx64
	       " echo %u/%u flags %#x to %u\n", f, qp,
	       (const char *const[]){ "nack", "dup", "stale", "ahead" }[b % 4],
	       copies, ext.cum_psn, ext.sack, ext.echo_psn, ext.echo_ev,
	       ext.flags, spec->src);
	for (i = 0; i < copies; i++)
		fz_inject(w, (uint16_t)spec->src,
			  fz_mbuf_of(frame, (uint32_t)len), burst);
}

/*
 * A trimmed header as a switch makes it: of a real or an unknown flow,
 * for a PSN inside or out of its range, cut or only marked, on to the
 * receiver or returned to the sender (addresses swapped), or with a mark
 * the hosts do not know; or a frame on the wire trimmed where it is.
 */
static void
fz_op_header(struct fz_world *w, struct fz_in *in, bool burst)
{
	uint8_t b = fz_u8(in), frame[FZ_FRAME_MAX], mark;
	const struct hs_flow_spec *spec;
	struct ofan_pkt_spec sp;
	uint32_t qp, f, from, to;
	int len;

	if (b & 1) {
		uint8_t k = fz_u8(in);
		struct ofan_pkt_info pi;
		struct fz_pkt p;
		uint32_t i;

		if (w->nb_wire == 0)
			return;
		i = k % w->nb_wire;
		p = w->wire[i];
		if (ofan_parse(rte_pktmbuf_mtod(p.m, const uint8_t *),
			       rte_pktmbuf_data_len(p.m),
			       OFAN_PARSE_F_NO_TTL_CHECK,
			       &pi) != OFAN_PARSE_OK ||
		    !fz_trim(w, p.m, &pi, b & 2, b & 4, b & 8, &to))
			return;
		memmove(&w->wire[i], &w->wire[i + 1],
			(w->nb_wire - i - 1) * sizeof(w->wire[0]));
		w->nb_wire--;
		if (to == UINT32_MAX)
			rte_pktmbuf_free(p.m);
		else
			fz_wire_put(w, p.m, (uint8_t)to, p.due);
		return;
	}
	memset(&sp, 0, sizeof(sp));
	f = fz_pick_flow(w, in, &qp);
	spec = &w->traffic.flows[f < w->traffic.nb_flows ? f : 0];
	/* On to its receiver, or returned: from the receiver to the sender. */
	from = b & 2 ? spec->dst : spec->src;
	to = b & 2 ? spec->src : spec->dst;
	fz_pick_addrs(w, &sp, from, to, b >> 3, fz_u32(in));
	sp.dest_qp = qp;
	sp.psn = f < w->traffic.nb_flows ? fz_pick_psn(w, f, in) : fz_u32(in);
	sp.ev = fz_u16(in);
	sp.tos = OFAN_ECN_ECT0;
	/* Cut to the header, or (trim_size = full) only marked. */
	sp.payload_size = b & 4 ? (uint16_t)RTE_MIN(spec->size,
						    (uint64_t)w->cfg.set.mss) : 0;
	len = ofan_build_data(frame, sizeof(frame), &sp);
	if (len < 0)
		return;
	switch ((b >> 6) & 3) {
	case 0:
	case 1:
		mark = OFAN_BTH_MARK_TRIMMED |
			(b & 2 ? OFAN_BTH_MARK_RETURNED : 0) |
			(b & 0x20 ? OFAN_BTH_MARK_LAST_HOP : 0);
		break;
	case 2:		/* one mark alone: the host reads either */
		mark = b & 2 ? OFAN_BTH_MARK_RETURNED : OFAN_BTH_MARK_TRIMMED;
		break;
	default:	/* any marks */
		mark = fz_u8(in);
		break;
	}
	frame[FZ_BTH_OFF + OFAN_BTH_MARK_OFFSET] = mark;
	fz_log("  op header flow %u qp %u psn %u mark %#x payload %u to %u\n",
	       f, qp, sp.psn, mark, sp.payload_size, to);
	fz_inject(w, (uint16_t)to, fz_mbuf_of(frame, (uint32_t)len), burst);
}

/*
 * A PFC frame (ofan_build_pfc) or an 802.3x pause to a host: for its
 * priority (3) or not, any quanta (0 resumes).
 */
static void
fz_op_pause(struct fz_world *w, struct fz_in *in, bool burst)
{
	uint8_t to = fz_u8(in) % w->nb_hosts, b = fz_u8(in), frame[64];
	const uint8_t src[6] = { 0x02, 0, 0, 0, 0xcc, to };
	uint16_t quanta = fz_u16(in);
	uint8_t classes;

	switch (b & 3) {
	case 0:
		break;
	case 1:
		quanta = 0;	/* resume */
		break;
	case 2:
		quanta %= 64;	/* a short one */
		break;
	default:
		quanta = UINT16_MAX;
		break;
	}
	switch ((b >> 2) & 3) {
	case 0:
		classes = 1u << HS_PFC_PRIORITY;
		break;
	case 1:		/* another priority's */
		classes = (uint8_t)(fz_u8(in) & ~(1u << HS_PFC_PRIORITY));
		break;
	default:
		classes = fz_u8(in);
		break;
	}
	if (ofan_build_pfc(frame, sizeof(frame), src, classes, quanta) < 0)
		return;
	if (((b >> 2) & 3) == 3) {
		/* 802.3x: one quanta for the whole link. */
		memset(frame + OFAN_ETH_HDR_SIZE, 0, OFAN_PFC_BODY_SIZE);
		frame[OFAN_ETH_HDR_SIZE + 1] = OFAN_MAC_CTRL_OP_PAUSE;
		frame[OFAN_ETH_HDR_SIZE + 2] = (uint8_t)(quanta >> 8);
		frame[OFAN_ETH_HDR_SIZE + 3] = (uint8_t)quanta;
	}
	fz_log("  op pause to %u classes %#x quanta %u%s\n", to, classes,
	       quanta, ((b >> 2) & 3) == 3 ? " (802.3x)" : "");
	fz_inject(w, to, fz_mbuf_of(frame, OFAN_PFC_FRAME_SIZE), burst);
}

static void
fz_op_step(struct fz_world *w, uint8_t a)
{
	fz_flush(w);
	if (a < 0x80)		/* up to 32 us, every event on the way */
		fz_run(w, w->now + (uint64_t)a * 250, 64);
	else if (a < 0xe0)	/* a jump of up to 4.8 ms, for the timers */
		fz_run(w, w->now + (uint64_t)(a - 0x80) * 50 * FZ_US, 64);
	else			/* the next event only */
		fz_run(w, UINT64_MAX, 1);
	fz_log("  step %#x: now %" PRIu64 "\n", a, w->now);
}

/* Progress so far: packets every receiver has, bytes every sender knows. */
FZ_NO_COV
static uint64_t
fz_progress(const struct fz_world *w)
{
	uint64_t sum = 0, acked, total;
	uint16_t h;

	for (h = 0; h < w->nb_hosts; h++) {
		hs_host_progress(w->host[h], &acked, &total);
		sum += acked + fz_rx_distinct(w, h);
	}
	return sum;
}

static bool
fz_all_done(const struct fz_world *w)
{
	uint16_t h;

	for (h = 0; h < w->nb_hosts; h++)
		if (!hs_host_tx_done(w->host[h]) || !hs_host_rx_done(w->host[h]))
			return false;
	return true;
}

/*
 * The end: the wire is perfect now.  Unless a crafted frame may have
 * forged feedback (an ACK for packets never received ends a flow its
 * receiver never completes), flows must not be stuck: with nothing left
 * to happen every flow has ended, and a long run, or one whose next
 * event lies past its end, makes progress.  Slow is allowed: a window
 * smaller than ack_every moves a packet per timeout, and tcp, trim and
 * gbn double their RTO at each (without an RTT sample from a packet
 * sent once), so the next timeout may come after FZ_END_NS.
 */
static void
fz_end(struct fz_world *w)
{
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0xcc, 0xff };
	uint64_t end, before, next;
	bool idle = false, late = false;
	uint8_t frame[OFAN_PFC_FRAME_SIZE];
	uint16_t h;

	/*
	 * A paused host holds its ACKs too, while its peers time out and
	 * resend (a pause of 3.4 ms outlasts the end's events): the perfect
	 * wire's switches, their queues drained, resume every paused host.
	 */
	ofan_build_pfc(frame, sizeof(frame), src, 1u << HS_PFC_PRIORITY, 0);
	for (h = 0; h < w->nb_hosts; h++)
		if (w->seen[h].pause_until > w->now)
			fz_inject(w, h, fz_mbuf_of(frame, sizeof(frame)),
				  false);
	end = w->now + FZ_END_NS;
	before = fz_progress(w);
	/* Forged feedback: nothing to check at the end, a short run only. */
	w->max_events = w->events + (w->forged ? 256 : FZ_END_EVENTS);
	while (!fz_all_done(w) && w->events < w->max_events) {
		next = fz_next_time(w);
		if (next > end) {
			idle = next == UINT64_MAX;
			late = !idle;
			break;
		}
		fz_run(w, end, 64);
	}
	fz_log("end at %" PRIu64 " after %u events: %s%s\n", w->now,
	       w->events, fz_all_done(w) ? "every flow ended" :
	       idle ? "flows stuck" : late ? "next event past the end" :
	       "flows still going", w->forged ? " (forged frames)" : "");
	fz_log_state(w);
	if (w->forged || fz_all_done(w))
		return;
	FZ_CHECK(!idle, "flows never end on a perfect wire: nothing more"
		 " happens (at %" PRIu64 ", %u events)", w->now, w->events);
	FZ_CHECK(fz_progress(w) > before, "flows make no progress on a"
		 " perfect wire in %u events (at %" PRIu64 ")", FZ_END_EVENTS,
		 w->now);
}

static void
fz_ops(struct fz_world *w, struct fz_in *in)
{
	unsigned int nb_ops = 0;

	while (in->left > 0 && nb_ops++ < FZ_MAX_OPS) {
		uint8_t op = fz_u8(in);
		bool burst = (op & FZ_OP_F_BURST) != 0;

		switch ((op & 0x7f) % FZ_OP_NB) {
		case FZ_OP_RAW:
			fz_op_raw(w, in, burst);
			break;
		case FZ_OP_DATA:
			fz_op_data(w, in, burst);
			break;
		case FZ_OP_ACK:
			fz_op_ack(w, in, burst);
			break;
		case FZ_OP_WIRE:
			fz_op_wire(w, in);
			break;
		case FZ_OP_REPLAY:
			fz_op_replay(w, in, burst);
			break;
		case FZ_OP_ARP:
			fz_op_arp(w, in, burst);
			break;
		case FZ_OP_CHAIN:
			fz_op_chain(w, in);
			break;
		case FZ_OP_FLUSH:
			fz_flush(w);
			break;
		case FZ_OP_FEEDBACK:
			fz_op_feedback(w, in, burst);
			break;
		case FZ_OP_HEADER:
			fz_op_header(w, in, burst);
			break;
		case FZ_OP_PAUSE:
			fz_op_pause(w, in, burst);
			break;
		default:	/* FZ_OP_STEP */
			fz_op_step(w, fz_u8(in));
			break;
		}
	}
	fz_flush(w);
	fz_end(w);
}

/* Free everything; every mbuf must be back. */
static void
fz_teardown(struct fz_world *w)
{
	uint32_t i;
	uint16_t h;

	for (i = 0; i < w->nb_wire; i++)
		rte_pktmbuf_free(w->wire[i].m);
	for (i = 0; i < w->nb_burst; i++)
		rte_pktmbuf_free(w->burst[i]);
	for (h = 0; h < w->nb_hosts; h++)
		hs_host_free(w->host[h]);
	hs_trigger_state_fini(&w->trig);
	hs_traffic_free(&w->traffic);
	FZ_CHECK(rte_mempool_in_use_count(fz_pool) == w->pool_start,
		 "%u mbufs in use after the input, %u before",
		 rte_mempool_in_use_count(fz_pool), w->pool_start);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { .p = data, .left = size };

	if (fz_w == NULL) {
		fz_w = malloc(sizeof(*fz_w));
		if (fz_w == NULL)
			abort();
	}
	memset(fz_w, 0, sizeof(*fz_w));
	fz_w->pool_start = rte_mempool_in_use_count(fz_pool);
	fz_w->max_events = FZ_MAX_EVENTS;
	if (fz_setup(fz_w, &in) == 0)
		fz_ops(fz_w, &in);
	fz_teardown(fz_w);
	return 0;
}
