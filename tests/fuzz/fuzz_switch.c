/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the switch engine (switch/engine/sw_engine.h): the
 * worker's input pipeline (the burst path and the scalar reference),
 * egress queues with ECN, trimming and return to sender, PFC on lossless
 * ports, direct output, link failures and the control plane, on EAL with
 * one mempool, in virtual time.
 *
 * Each input is a small program, so that the fuzzer reaches queues and
 * ports in every state instead of guessing configurations byte by byte:
 *
 *   1. A header of FZ_HDR_SIZE bytes (missing bytes read as 0) builds a
 *      switch: its policy (one byte, straight from the lb registry:
 *      fuzz_switch_modes.c, so a policy registered later is fuzzed too),
 *      2-8 ports, 1-2 workers, checksum verification, ICMP rate, tier,
 *      queue levels, direct output for ports without a queue, 1-4
 *      next-hop groups over the ports (weights 1-2), the group and
 *      destination key of each of a fixed set of routes (with or without
 *      a default route), which ports have an address and a configured
 *      peer MAC, a lossy port, detection delays; per port (6 bytes) the
 *      queue on or off, its capacity in packets and bytes, ECN, shaping,
 *      trimming (off, header, full: from the mode names), rts (no,
 *      overflow, always), ACKs on the control queue, the victim rule,
 *      the control queue's size, PFC (its mode, priority, quanta, xoff,
 *      xon, headroom) and the link rate its pauses count in.  Only what
 *      the loader accepts: trim and PFC need the queue and exclude each
 *      other, rts needs trim, xon < xoff.  A scheduled failure and a
 *      reroute, and where the schedule starts (now, later, earlier,
 *      held), may come with it.
 *   2. The rest is operations (FZ_OP_*): frames into a burst -- RoCEv2
 *      data and ACKs built from fuzzed fields (addresses from the routes'
 *      prefixes, the switch's own, unrouted; EV, PSN, size, TOS, TTL,
 *      opcode incl. CNP, BTH marks trimmed / returned / any, NAK
 *      syndromes and feedback flags, VLAN tags, bad checksums, padding,
 *      two segments), PFC and 802.3x pause frames with any class-enable
 *      vector, quanta per class, VLAN tag, length and destination, ARP,
 *      raw bytes -- then the burst into a port (either worker, either
 *      input path); time steps with control ticks; draining a port
 *      (peek and commit as ofan-switch does, with a device that takes
 *      part of a burst, or a frame at a time as ofan-fabric's serialiser
 *      does, started and finished later); a port's link down, black
 *      hole, degraded, stalled or up, at once or as a telemetry request
 *      the next control tick applies; how much a direct port's device
 *      takes; a member's weight.
 *
 * Every frame the harness builds carries its index in its IPv4 ID (top
 * bit set; raw frames have it cleared), so what leaves is matched with
 * what came in.  Checked after every operation (abort() on a violation,
 * which libFuzzer reports as a crash):
 *   - conservation, the switch's own counters alone: received + made
 *     (ICMP, PFC frames) = sent + dropped under named reasons + queued +
 *     pauses consumed; per port, routed to it (picks, ARP and ICMP
 *     replies, returned headers, its PFC frames) = sent + dropped there
 *     + queued (soak_check.py's identity, PFC and rts included); the
 *     drops counted at ports sum to the drops by reason; what the
 *     switch counts as received and sent is what the harness gave and
 *     got, frame for frame and byte for byte;
 *   - per burst, each frame's fate as ofan_parse() and the FIB say: a
 *     parser drop under its reason, TTL expiry answered or counted as
 *     limited, a pause obeyed on a lossless port for its priority (and
 *     its end exactly quanta x 512 bit times at the link's rate away)
 *     or pause_ignored, ARP answered or not_for_us, IPv4 to the switch
 *     not_for_us, unrouted no_route, the rest picked (or no_live_member);
 *     never bad_pick;
 *   - what leaves: from the port's MAC; a forwarded frame to a member of
 *     its route's group, TTL one less, checksum valid, CE only on an
 *     ECN-capable frame, EV, QP, PSN, opcode, ACK feedback and data
 *     payload unchanged; marks only ever added; a trimmed frame keeps
 *     its headers (cut to them exactly, or whole with trim_size = full)
 *     and is marked; a returned header goes back toward its source
 *     (addresses swapped, a member of the group routing its sender,
 *     marked trimmed and returned); trimmed or returned only where a
 *     port trims or returns; each frame leaves once;
 *   - a PFC frame the switch sends comes from a lossless port, for its
 *     priority alone, with its quanta or 0;
 *   - the engine's log lines (link changes, routing, reroutes) are one
 *     line each, at the time of the tick that made them;
 *   - nothing but the switch's own PFC frame leaves a port whose egress
 *     is paused, until the pause ends (a frame a serialiser had started
 *     finishes); a started frame is the one its finish finds first;
 *   - pause accounting: pfc_paused_ns, which counts pauses as they
 *     run, never decreases (as every counter), and with what the pause
 *     in force has run the time paused so far never exceeds the time;
 *   - a lossless port drops for headroom only when its worker holds
 *     near the port's limit (xoff + headroom, less the burst's longest
 *     frame), and a worker with nothing left to send has resumed every
 *     lossless port whose link works (its last PFC frame a resume);
 *   - no counter decreases; queues stay within their capacity;
 *   - mbufs: the pool holds what the queues hold (and at most a PFC
 *     frame per port and worker), and every mbuf is back in the pool at
 *     teardown (rte_mempool_in_use_count).
 *
 * EAL starts once (LLVMFuzzerInitialize) with --no-huge, a small memory,
 * --no-shconf and --no-telemetry, a file prefix of its own, the main lcore
 * free to run on any CPU; its runtime directory is removed at exit, and
 * already after start-up, since a crashing input ends the process without
 * running exit handlers.  The FIB (an rte_lpm of 64 MB) is made once per
 * route set, with every port address of the largest switch, and shared by
 * each input's engine (sw_engine_create_shared()).  FUZZ_SWITCH_TRACE=1
 * in the environment prints the program as it runs.
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
#include <rte_lpm.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "fuzz_switch_modes.h"
#include "lb.h"
#include "ofan_fs.h"
#include "fuzz_eal.h"
#include "ofan_parse.h"
#include "ofan_wire.h"
#include "sw_config.h"
#include "sw_engine.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_PORTS 8
#define FZ_MAX_WORKERS 2
#define FZ_MAX_GROUPS 4
#define FZ_NB_MBUFS 8191
#define FZ_GLOBAL_HDR 24
#define FZ_PORT_HDR 6
#define FZ_HDR_SIZE (FZ_GLOBAL_HDR + FZ_MAX_PORTS * FZ_PORT_HDR)
#define FZ_MAX_OPS 256
#define FZ_BURST 96		/* past SW_DIRECT_BURST: a direct port flushes mid-burst */
#define FZ_SEG_MAX 2048		/* the pool's data room */
#define FZ_FRAME_MAX (2 * FZ_SEG_MAX)
#define FZ_MAX_RECS 4096	/* frames tracked per input */
#define FZ_TAG 0x8000		/* IPv4 ID of a tracked frame */
#define FZ_BTH_OP_CNP 0x81
#define FZ_VLAN 4
#define FZ_RATE_100G 100000000000ull

#define FZ_IP(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
/* Port p's address, inside a route of its own (10.0.p.0/24, 10.0.4/22). */
#define FZ_PORT_IP(p) FZ_IP(10, 0, (p), 254)

/*
 * The harness's own checks are not coverage the fuzzer should chase:
 * not instrumented.
 */
#define FZ_NO_COV __attribute__((no_sanitize("coverage")))

/* The routes, the same every input (the FIB is shared); the group and key
 * of each come from the header. */
static const struct {
	uint32_t prefix;
	uint8_t depth;
} fz_routes[] = {
	{ FZ_IP(10, 0, 0, 0), 24 },
	{ FZ_IP(10, 0, 1, 0), 24 },
	{ FZ_IP(10, 0, 2, 0), 24 },
	{ FZ_IP(10, 0, 3, 0), 24 },
	{ FZ_IP(10, 0, 4, 0), 22 },
	{ FZ_IP(10, 1, 0, 0), 16 },
	{ FZ_IP(10, 1, 128, 0), 17 },
	{ FZ_IP(10, 2, 0, 0), 16 },
	{ 0, 0 },		/* the default route: FIB variant 1 only */
};
#define FZ_NB_ROUTES (sizeof(fz_routes) / sizeof(fz_routes[0]))

/* ---- process-wide state ---- */

static struct rte_mempool *fz_pool;
static struct rte_lpm *fz_fib[2];	/* without, with the default route */
static struct sw_config *fz_cfg;
static bool fz_trace;

/*
 * What the inputs reached, printed at exit with FUZZ_SWITCH_STATS=1 (run
 * over a corpus: is each check fed?).
 */
static struct {
	uint64_t inputs, frames_in, frames_out, tracked_out, trimmed_cut;
	uint64_t trimmed_full, returned, pfc_out, pauses_obeyed;
	uint64_t paused_peeks, started, finished, direct_out;
} fz_stats;
static bool fz_stats_on;

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

/* A violated invariant: say which (always) and stop. */
static void __attribute__((noreturn, format(printf, 1, 2)))
fz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "fuzz_switch: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

static void
fz_atexit(void)
{
	unsigned int i;

	if (fz_stats_on)
		fprintf(stderr, "fuzz_switch: %" PRIu64 " inputs, %" PRIu64 " frames in, %" PRIu64 " out (%" PRIu64 " directly), %" PRIu64 " tracked out, %" PRIu64 " trimmed to headers, %" PRIu64 " trimmed whole, %" PRIu64 " returned, %" PRIu64 " PFC frames out, %" PRIu64 " pauses obeyed, %" PRIu64 " peeks while paused, %" PRIu64 " frames started, %" PRIu64 " finished\n",
			fz_stats.inputs, fz_stats.frames_in,
			fz_stats.frames_out, fz_stats.direct_out,
			fz_stats.tracked_out, fz_stats.trimmed_cut,
			fz_stats.trimmed_full, fz_stats.returned,
			fz_stats.pfc_out, fz_stats.pauses_obeyed,
			fz_stats.paused_peeks, fz_stats.started,
			fz_stats.finished);

	for (i = 0; i < 2; i++)
		if (fz_fib[i] != NULL)
			sw_fib_free(fz_fib[i]);
	if (fz_pool != NULL)
		rte_mempool_free(fz_pool);
	free(fz_cfg);
	fz_eal_stop();
}

/* The routes of FIB variant v, and every port's address, into c. */
static void
fz_cfg_routes(struct sw_config *c, unsigned int v)
{
	unsigned int i;

	c->nb_routes = v ? FZ_NB_ROUTES : FZ_NB_ROUTES - 1;
	for (i = 0; i < c->nb_routes; i++) {
		c->routes[i].prefix = fz_routes[i].prefix;
		c->routes[i].depth = fz_routes[i].depth;
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256] = "";
	unsigned int v, p;

	(void)argc;
	(void)argv;
	fz_trace = getenv("FUZZ_SWITCH_TRACE") != NULL;
	fz_stats_on = getenv("FUZZ_SWITCH_STATS") != NULL;
	fz_eal_start("fuzz_switch", "256");
	atexit(fz_atexit);
	fz_pool = rte_pktmbuf_pool_create("fz_pool", FZ_NB_MBUFS, 0, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE,
					  SOCKET_ID_ANY);
	fz_cfg = calloc(1, sizeof(*fz_cfg));
	if (fz_pool == NULL || fz_cfg == NULL) {
		fprintf(stderr, "fuzz_switch: no mbuf pool or memory: %s\n",
			rte_strerror(rte_errno));
		exit(1);
	}
	for (v = 0; v < 2; v++) {
		sw_config_defaults(fz_cfg);
		fz_cfg->nb_ports = FZ_MAX_PORTS;
		for (p = 0; p < FZ_MAX_PORTS; p++)
			fz_cfg->ports[p].ip = FZ_PORT_IP(p);
		fz_cfg_routes(fz_cfg, v);
		fz_fib[v] = sw_fib_create(fz_cfg, SOCKET_ID_ANY, err,
					  sizeof(err));
		if (fz_fib[v] == NULL) {
			fprintf(stderr, "fuzz_switch: %s\n", err);
			exit(1);
		}
	}
	return 0;
}

/* ---- one input's world ---- */

/* What the harness knows of a frame it built (FZ_TAG | index in its ID). */
struct fz_rec {
	uint32_t src_ip, dst_ip, qp, psn;
	uint16_t len;		/* the whole frame */
	uint16_t hdr_end;	/* the end of its BTH */
	uint16_t ev;
	uint8_t l3, kind, tos, ttl, mark, opcode;
	bool csum_ok;		/* built with a valid IPv4 checksum */
	bool pattern;		/* data: the payload is ofan_payload_fill()'s */
	uint8_t outs;		/* times it left */
	uint8_t tail[OFAN_AETH_SIZE + OFAN_ACK_EXT_SIZE];	/* an ACK's */
};

/* What one burst should do, from ofan_parse() and the FIB. */
struct fz_expect {
	uint32_t reason[OFAN_DROP_MAX];
	uint32_t ttl;		/* TTL expired: answered or limited */
	uint32_t pause_ok;	/* pauses obeyed */
	uint32_t arp_for_us;	/* ARP requests for the in-port's address */
	uint32_t routed;	/* to be picked for */
	bool pause_set;
	uint64_t pause_until;
};

struct fz_world {
	struct sw_config *cfg;
	struct sw_engine *eng;
	struct sw_worker *w[FZ_MAX_WORKERS];
	uint16_t nb_workers;
	uint16_t nb_ports;
	uint64_t now;
	struct rte_lpm *fib;
	bool scalar;		/* input by sw_worker_input_scalar() */
	bool direct;		/* ports without a queue transmit directly */
	bool any_pfc, any_trim, any_rts, any_trim_header, any_trim_full;
	bool chained;		/* a frame of several segments went in */
	uint8_t mac[FZ_MAX_PORTS][6];
	bool pfc_sw[FZ_MAX_PORTS];	/* a software lossless port */
	uint64_t pfc_rate[FZ_MAX_PORTS];
	uint32_t budget[FZ_MAX_PORTS];	/* a direct port's device: frames it takes per call */
	/* The burst being collected, for in_port. */
	struct rte_mbuf *pend[FZ_BURST];
	uint16_t nb_pend;
	uint16_t pend_segs;
	/* A serialiser's frame, started (peeked) and not yet finished. */
	struct rte_mbuf *held[FZ_MAX_WORKERS][FZ_MAX_PORTS];
	/* What the harness gave and got. */
	uint64_t frames_in;
	uint64_t out_pkts[FZ_MAX_PORTS], out_bytes[FZ_MAX_PORTS];
	uint64_t out_pauses[FZ_MAX_PORTS], out_resumes[FZ_MAX_PORTS];
	int64_t paused_so_far[FZ_MAX_PORTS];
	/* The last PFC frame each worker sent from a port: 0 none, 1 a
	 * resume, 2 a pause; 3 once the port's link failed after it. */
	uint8_t last_pfc[FZ_MAX_WORKERS][FZ_MAX_PORTS];
	uint16_t out_worker;	/* whose frames fz_out() sees */
	struct sw_totals prev, cur;
	uint32_t nb_rec;
	struct fz_rec rec[FZ_MAX_RECS];
	uint8_t buf[FZ_FRAME_MAX + 64];		/* a frame being built */
	uint8_t out[FZ_FRAME_MAX + 64];		/* a frame that left, linear */
};

static struct fz_world fz_w;

static uint16_t fz_tx(void *arg, uint16_t port, struct rte_mbuf **pkts,
		      uint16_t n);

/* The engine's report of a link change: one line, of a port it has. */
FZ_NO_COV static void
fz_engine_log(void *arg, uint64_t now_ns, const char *msg)
{
	const struct fz_world *w = arg;

	if (msg == NULL || msg[0] == '\0' || strchr(msg, '\n') != NULL ||
	    now_ns != w->now)
		fz_fail("the engine logged '%s' at %" PRIu64 " (now %" PRIu64 ")",
			msg != NULL ? msg : "(null)", now_ns, w->now);
	fz_log("  log: %s\n", msg);
}

/* ---- the switch from the header ---- */

/*
 * Queue capacities, packets: zeros in the header give 64; 300 outgrows
 * the first ring (SW_QUEUE_FIRST_RING).
 */
static const uint32_t fz_caps[8] = { 64, 1, 2, 3, 4, 8, 16, 300 };
static const uint64_t fz_rates[8] = {
	1000000000ull, 10000000000ull, 25000000000ull, 40000000000ull,
	FZ_RATE_100G, 200000000000ull, 400000000000ull, 1600000000000ull,
};

/* Port p's queue from its 6 header bytes. */
static void
fz_port_queue(struct fz_world *w, uint16_t p, const uint8_t *h)
{
	struct sw_queue_config *q = &w->cfg->ports[p].queue;
	static const uint64_t xoffs[4] = { 64, 1000, 3000, 48000 };
	static const uint64_t rooms[4] = { 0, 100, 2000, 100000 };
	static const uint32_t ctrl_caps[4] = { 0, 1, 2, 5 };

	q->enabled = (h[0] & 7) != 7;	/* zeros: a queue */
	q->capacity_pkts = fz_caps[h[0] >> 3 & 7];
	q->capacity_bytes = h[5] & 0x80 ? 3000 : 4u << 20;
	q->ecn = h[0] >> 6 & 1;
	q->ecn_kmin_bytes = h[1] & 0x40 ? 0 : 500;
	q->ecn_kmax_bytes = q->ecn_kmin_bytes + (h[1] & 0x80 ? 1 : 4000);
	q->ecn_pmax = h[2] & 0x80 ? 1.0 : 0.3;
	q->rate_bps = h[0] & 0x80 ? fz_rates[h[5] >> 4 & 7] : 0;
	if (!q->enabled)
		return;
	q->trim = fz_sw_modes_trim(h[1] & 3);
	if (q->trim != SW_TRIM_OFF) {
		q->rts = fz_sw_modes_rts(h[1] >> 2 & 3);
		q->ctrl_acks = h[1] >> 4 & 1;
		q->trim_either = h[1] >> 5 & 1;
		q->ctrl_capacity_pkts = ctrl_caps[h[2] >> 5 & 3];
		w->any_trim = true;
		w->any_rts |= q->rts != SW_RTS_NO;
		w->any_trim_header |= q->trim == SW_TRIM_HEADER;
		w->any_trim_full |= q->trim == SW_TRIM_FULL;
		return;
	}
	q->pfc = h[2] & 1;
	if (!q->pfc)
		return;
	q->pfc_mode = fz_sw_modes_pfc_mode(h[2] >> 1 & 3);
	q->pfc_priority = h[2] >> 3 & 3;	/* 0-3: priority 3 is the default */
	q->pfc_quanta = (uint16_t)(h[3] << 8 | h[4]);
	if (q->pfc_quanta == 0)
		q->pfc_quanta = 1;
	q->pfc_xoff_bytes = xoffs[h[5] & 3];
	q->pfc_xon_bytes = q->pfc_xoff_bytes * (h[5] >> 2 & 1) / 2;
	q->pfc_headroom_bytes = rooms[h[1] >> 6 & 3];
	w->pfc_sw[p] = q->pfc_mode != SW_PFC_NIC;
	w->any_pfc |= w->pfc_sw[p];
}

/* The switch of the header h (FZ_HDR_SIZE bytes). */
static void
fz_build_switch(struct fz_world *w, const uint8_t *h)
{
	static const uint32_t icmp_rates[4] = { 0, 1, 1000, 1000000000 };
	static const uint64_t delays[4] = { 0, 1000, 10000, 100000 };
	struct sw_config *c = w->cfg;
	uint8_t macs[SW_MAX_PORTS][6];
	char err[256] = "";
	uint16_t p, g, j;
	unsigned int r;

	sw_config_defaults(c);
	c->policy = fz_sw_modes_policy(h[0]);
	w->nb_ports = (uint16_t)(2 + h[1] % 7);
	w->nb_workers = h[2] & 1 ? 2 : 1;
	c->verify_checksum = h[2] >> 1 & 1;
	c->icmp_rate = icmp_rates[h[2] >> 2 & 3];
	w->direct = h[2] >> 4 & 1;
	w->fib = fz_fib[h[2] >> 5 & 1];
	w->scalar = h[2] >> 6 & 1;
	c->tier = (uint8_t)(h[3] % 3);
	if (h[3] & 0x10) {
		c->levels.nb_thresholds = 3;
		c->levels.nb_levels = 4;
		c->levels.threshold[0] = 50000;
		c->levels.threshold[1] = 100000;
		c->levels.threshold[2] = 200000;
	} else if (h[3] & 0x20) {
		c->levels.nb_levels = 2;
	}
	c->seed = (uint64_t)h[4] << 24 | h[5] << 16 | h[6] << 8 | h[7];
	c->detect_delay_ns = delays[h[3] >> 6 & 3];
	c->reconverge_delay_ns = delays[(h[3] >> 6) ^ 1];
	c->nb_ports = w->nb_ports;
	for (p = 0; p < w->nb_ports; p++) {
		struct sw_port_config *pc = &c->ports[p];

		snprintf(pc->dev, sizeof(pc->dev), "net_fuzz%u", p);
		pc->ip = h[18] >> p & 1 ? FZ_PORT_IP(p) : 0;
		pc->mac[0] = 0x02;
		pc->mac[5] = (uint8_t)p;
		pc->mac_set = true;
		memcpy(w->mac[p], pc->mac, 6);
		if (!(h[19] >> p & 1)) {
			pc->peer_mac[0] = 0x02;
			pc->peer_mac[4] = 0x01;
			pc->peer_mac[5] = (uint8_t)p;
			pc->peer_mac_set = true;
		}
		pc->nb_rx_queues = 1;
		pc->nb_rxd = 1024;
		pc->nb_txd = 1024;
		sw_queue_config_defaults(&pc->queue);
		w->pfc_rate[p] = FZ_RATE_100G;
		w->budget[p] = UINT32_MAX;
		fz_port_queue(w, p, h + FZ_GLOBAL_HDR + p * FZ_PORT_HDR);
	}
	/* Groups: members from a mask over the ports, at least one. */
	c->nb_groups = (uint16_t)(1 + h[8] % FZ_MAX_GROUPS);
	for (g = 0; g < c->nb_groups; g++) {
		struct sw_group_config *gc = &c->groups[g];
		uint8_t mask = h[9 + g];

		snprintf(gc->name, sizeof(gc->name), "g%u", g);
		for (j = 0; j < w->nb_ports; j++) {
			if (!(mask >> j & 1))
				continue;
			gc->port[gc->nb_members] = j;
			gc->weight[gc->nb_members++] =
				(uint16_t)(1 + (h[13] >> (j % 8) & 1));
		}
		if (gc->nb_members == 0) {
			gc->port[0] = (uint16_t)(g % w->nb_ports);
			gc->weight[0] = 1;
			gc->nb_members = 1;
		}
	}
	fz_cfg_routes(c, w->fib == fz_fib[1]);
	c->nb_dst_keys = 1;
	for (r = 0; r < c->nb_routes; r++) {
		uint8_t b = h[14 + r % 4] >> (r / 4 * 2);

		c->routes[r].group = (uint16_t)(b % c->nb_groups);
		c->routes[r].dst_key = (r * (h[17] | 1u)) % 5;
		if (c->routes[r].dst_key + 1 > c->nb_dst_keys)
			c->nb_dst_keys = c->routes[r].dst_key + 1;
	}
	/* A lossy port ([drop.*], random). */
	if (h[20] & 0x80) {
		struct sw_drop_config *d = &c->drops[c->nb_drops++];

		snprintf(d->name, sizeof(d->name), "drop.fuzz");
		d->port = (uint16_t)(h[20] % w->nb_ports);
		ofan_loss_defaults(&d->loss);
		d->loss.mode = OFAN_LOSS_RANDOM;
		d->loss.rate = (h[20] >> 3 & 7) / 8.0 + 0.125;
	}
	/* A scheduled failure and a reroute ([failure.*], [reroute.*]). */
	if (h[21] & 0x80) {
		struct sw_failure_config *f = &c->failures[c->nb_failures++];

		snprintf(f->name, sizeof(f->name), "failure.fuzz");
		f->port = (uint16_t)(h[21] % w->nb_ports);
		f->mode = fz_sw_modes_link(h[21] >> 3 & 7);
		if (f->mode == SW_LINK_UP)
			f->mode = SW_LINK_DOWN;
		f->rate_bps = fz_rates[h[22] & 7];
		f->at_ns = (uint64_t)(h[22] >> 3 & 3) * 10000;
		f->duration_ns = (uint64_t)(h[22] >> 5) * 20000;
	}
	if (h[23] & 0x80) {
		struct sw_reroute_config *rr = &c->reroutes[c->nb_reroutes++];
		const struct sw_group_config *gc;

		snprintf(rr->name, sizeof(rr->name), "reroute.fuzz");
		rr->group = (uint16_t)(h[23] % c->nb_groups);
		rr->at_ns = (uint64_t)(h[23] >> 4 & 3) * 10000;
		gc = &c->groups[rr->group];
		for (j = 0; j < gc->nb_members; j++)
			rr->weight[j] = (uint16_t)(h[13] >> (j % 8) & 1 ?
						   j % 3 : 1);
	}
	for (p = 0; p < SW_MAX_PORTS; p++) {
		memset(macs[p], 0, 6);
		macs[p][0] = 0x02;
		macs[p][5] = (uint8_t)p;
	}
	w->eng = sw_engine_create_shared(c, w->nb_workers,
					 (const uint8_t (*)[6])macs,
					 SOCKET_ID_ANY, w->fib, err,
					 sizeof(err));
	if (w->eng == NULL)
		fz_fail("sw_engine_create_shared: %s", err);
	for (p = 0; p < w->nb_ports; p++) {
		const uint8_t *ph = h + FZ_GLOBAL_HDR + p * FZ_PORT_HDR;

		if (!c->ports[p].queue.pfc)
			continue;
		w->pfc_rate[p] = fz_rates[ph[5] >> 4 & 7];
		sw_engine_set_pfc_link(w->eng, p, w->pfc_rate[p],
				       ph[4] & 1 ? 1000 : 0, 9216);
	}
	sw_engine_set_log(w->eng, fz_engine_log, w);
	/* The schedule from the engine's start, later, or held. */
	if (h[23] & 0x40)
		sw_engine_set_schedule_start(w->eng, h[23] & 0x08 ?
					     SW_SCHEDULE_HELD :
					     (h[23] & 4 ? -20000 : 20000));
	for (j = 0; j < w->nb_workers; j++) {
		w->w[j] = sw_engine_worker(w->eng, j);
		if (w->direct)
			sw_worker_set_direct_tx(w->w[j], fz_tx, w);
	}
	fz_log("switch: policy %s, %u ports, %u workers, %u groups, %u routes%s%s%s%s\n",
	       c->policy->name, w->nb_ports, w->nb_workers, c->nb_groups,
	       c->nb_routes, w->any_trim ? ", trim" : "",
	       w->any_rts ? ", rts" : "", w->any_pfc ? ", pfc" : "",
	       w->direct ? ", direct" : "");
}

/* ---- what leaves the switch ---- */

static uint16_t
fz_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Whether port is a member of the group that routes ip. */
FZ_NO_COV static bool
fz_routes_via(const struct fz_world *w, uint32_t ip, uint16_t port)
{
	const struct sw_group_config *g;
	uint32_t hop;
	uint16_t i;

	if (rte_lpm_lookup(w->fib, ip, &hop) != 0 || hop >= w->cfg->nb_routes)
		return false;
	g = &w->cfg->groups[w->cfg->routes[hop].group];
	for (i = 0; i < g->nb_members; i++)
		if (g->port[i] == port)
			return true;
	return false;
}

/* A PFC frame the switch sent from port p. */
FZ_NO_COV static void
fz_check_pfc_out(struct fz_world *w, uint16_t p, const uint8_t *f,
		 uint32_t len, const struct ofan_pkt_info *info)
{
	const struct sw_queue_config *q = &w->cfg->ports[p].queue;
	const uint8_t *body = f + info->l3_offset;
	uint16_t quanta;
	unsigned int i;

	if (!w->pfc_sw[p])
		fz_fail("port %u sent a MAC control frame but is not a software lossless port",
			p);
	if (len != OFAN_PFC_FRAME_SIZE || info->l3_offset != OFAN_ETH_HDR_SIZE ||
	    memcmp(f, ofan_pfc_dst_mac, 6) != 0 ||
	    fz_rd16(body) != OFAN_MAC_CTRL_OP_PFC ||
	    body[2] != 0 || body[3] != 1u << q->pfc_priority)
		fz_fail("port %u: a PFC frame not for its priority %u alone (len %u, vector %#x)",
			p, q->pfc_priority, len, body[3]);
	for (i = 0; i < OFAN_PFC_PRIORITIES; i++)
		if (i != q->pfc_priority && fz_rd16(body + 4 + 2 * i) != 0)
			fz_fail("port %u: PFC frame with quanta for class %u", p,
				i);
	quanta = fz_rd16(body + 4 + 2 * q->pfc_priority);
	if (quanta != 0 && quanta != q->pfc_quanta)
		fz_fail("port %u: PFC quanta %u, neither 0 nor pfc_quanta %u",
			p, quanta, q->pfc_quanta);
	if (quanta == 0)
		w->out_resumes[p]++;
	else
		w->out_pauses[p]++;
	w->last_pfc[w->out_worker][p] = quanta == 0 ? 1 : 2;
	fz_stats.pfc_out++;
}

/* A frame the harness built (record r) that left by port p. */
FZ_NO_COV static void
fz_check_tracked(struct fz_world *w, uint16_t p, const uint8_t *f,
		 uint32_t len, const struct ofan_pkt_info *info,
		 struct fz_rec *r)
{
	const uint8_t *bth = f + info->l4_offset + OFAN_UDP_HDR_SIZE;
	const uint8_t *ip = f + info->l3_offset;
	uint8_t mark = info->bth_mark, added = mark & ~r->mark;
	uint8_t ecn = info->tos & OFAN_ECN_MASK, ecn0 = r->tos & OFAN_ECN_MASK;
	bool trimmed = added & OFAN_BTH_MARK_TRIMMED;
	bool returned = added & OFAN_BTH_MARK_RETURNED;
	unsigned int idx = (unsigned int)(r - w->rec);

	if (++r->outs > 1)
		fz_fail("frame %u left twice (port %u)", idx, p);
	fz_stats.tracked_out++;
	fz_stats.returned += returned;
	fz_stats.trimmed_cut += trimmed && len != r->len;
	fz_stats.trimmed_full += trimmed && len == r->len;
	if (info->kind != r->kind || info->l3_offset != r->l3 ||
	    info->src_port != r->ev ||
	    info->dst_port != OFAN_UDP_PORT_ROCEV2 || info->dest_qp != r->qp ||
	    info->psn != r->psn || info->bth_opcode != r->opcode)
		fz_fail("frame %u left port %u changed (kind %u/%u, EV %u/%u, QP %u/%u, PSN %u/%u, opcode %#x/%#x)",
			idx, p, info->kind, r->kind, info->src_port, r->ev,
			info->dest_qp, r->qp, info->psn, r->psn,
			info->bth_opcode, r->opcode);
	if ((mark & r->mark) != r->mark ||
	    (added & ~(OFAN_BTH_MARK_TRIMMED | OFAN_BTH_MARK_RETURNED)) != 0)
		fz_fail("frame %u: marks %#x became %#x", idx, r->mark, mark);
	if (returned) {
		if (!w->any_rts || !(mark & OFAN_BTH_MARK_TRIMMED) ||
		    r->kind != OFAN_KIND_DATA ||
		    info->src_ip != r->dst_ip || info->dst_ip != r->src_ip ||
		    !fz_routes_via(w, r->src_ip, p))
			fz_fail("frame %u returned by port %u but not toward its sender %08x (now %08x -> %08x, marks %#x)",
				idx, p, r->src_ip, info->src_ip, info->dst_ip,
				mark);
	} else if (info->src_ip != r->src_ip || info->dst_ip != r->dst_ip ||
		   !fz_routes_via(w, r->dst_ip, p)) {
		fz_fail("frame %u to %08x left by port %u, not its route's group (now %08x -> %08x)",
			idx, r->dst_ip, p, info->src_ip, info->dst_ip);
	}
	if (trimmed) {
		bool cut = len == r->hdr_end && len != r->len;

		if (!w->any_trim || r->kind != OFAN_KIND_DATA ||
		    (cut && !w->any_trim_header) ||
		    (!cut && len != r->len) ||
		    (!cut && r->len > r->hdr_end && !w->any_trim_full) ||
		    (cut && (info->payload_size != 0 ||
			     info->ip_total_length != r->hdr_end - r->l3)))
			fz_fail("frame %u trimmed badly at port %u: %u bytes of %u (headers %u, payload %u)",
				idx, p, len, r->len, r->hdr_end,
				info->payload_size);
	} else if (len != r->len) {
		fz_fail("frame %u left port %u with %u bytes of %u, not trimmed",
			idx, p, len, r->len);
	}
	if (ip[8] != (uint8_t)(r->ttl - 1))
		fz_fail("frame %u: TTL %u, sent with %u", idx, ip[8], r->ttl);
	if ((info->tos & ~OFAN_ECN_MASK) != (r->tos & ~OFAN_ECN_MASK) ||
	    (ecn != ecn0 && (ecn0 == OFAN_ECN_NOT_ECT || ecn != OFAN_ECN_CE)))
		fz_fail("frame %u: TOS %#x, sent with %#x", idx, info->tos,
			r->tos);
	if (r->csum_ok &&
	    ofan_ipv4_checksum((const struct ofan_ipv4_hdr *)ip,
			       (ip[0] & 0xfu) * 4u) != 0)
		fz_fail("frame %u left port %u with a bad IPv4 checksum", idx,
			p);
	if (r->kind == OFAN_KIND_ACK &&
	    memcmp(bth + OFAN_BTH_SIZE, r->tail, sizeof(r->tail)) != 0)
		fz_fail("frame %u: ACK feedback changed", idx);
	if (r->kind == OFAN_KIND_DATA && r->pattern && !trimmed &&
	    ofan_payload_check(f + info->payload_offset, r->qp, r->psn,
			       info->payload_size) != 0)
		fz_fail("frame %u: payload changed", idx);
}

/*
 * Every frame the switch hands over, from port p: counted, checked, freed.
 */
FZ_NO_COV static void
fz_out(struct fz_world *w, uint16_t p, struct rte_mbuf *m)
{
	const struct sw_port_config *pc = &w->cfg->ports[p];
	struct ofan_pkt_info info;
	const struct rte_mbuf *s;
	uint32_t len = m->pkt_len, sum = 0, segs = 0, id;
	const uint8_t *f;

	for (s = m; s != NULL; s = s->next) {
		sum += s->data_len;
		segs++;
	}
	if (sum != len || segs != m->nb_segs || len > FZ_FRAME_MAX || len < 14)
		fz_fail("port %u: a frame of %u bytes in %u segments (%u, %u)",
			p, len, m->nb_segs, sum, segs);
	f = rte_pktmbuf_read(m, 0, len, w->out);
	if (f != w->out)
		memcpy(w->out, f, len);
	f = w->out;
	fz_stats.frames_out++;
	w->out_pkts[p]++;
	w->out_bytes[p] += len;
	if (memcmp(f + 6, w->mac[p], 6) != 0)
		fz_fail("port %u sent a frame from another MAC", p);
	if (ofan_parse(f, len, OFAN_PARSE_F_NO_TTL_CHECK, &info) !=
	    OFAN_PARSE_OK)
		goto done;	/* a raw frame's, forwarded as it came */
	if (info.kind == OFAN_KIND_PAUSE) {
		fz_check_pfc_out(w, p, f, len, &info);
		goto done;
	}
	if (info.kind == OFAN_KIND_ARP)
		goto done;
	if (pc->peer_mac_set && info.proto != OFAN_IPPROTO_ICMP &&
	    memcmp(f, pc->peer_mac, 6) != 0)
		fz_fail("port %u sent a frame to another MAC than its peer's",
			p);
	id = fz_rd16(f + info.l3_offset + 4);
	if ((info.kind == OFAN_KIND_DATA || info.kind == OFAN_KIND_ACK) &&
	    (id & FZ_TAG) && (id & ~FZ_TAG) < w->nb_rec)
		fz_check_tracked(w, p, f, len, &info, &w->rec[id & ~FZ_TAG]);
done:
	fz_log("  out port %u: %u bytes\n", p, len);
	rte_pktmbuf_free(m);
}

/* A direct port's device: takes what its budget allows. */
static uint16_t
fz_tx(void *arg, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	struct fz_world *w = arg;
	uint16_t i, k = n;

	if (w->budget[port] < k)
		k = (uint16_t)w->budget[port];
	fz_stats.direct_out += k;
	for (i = 0; i < k; i++)
		fz_out(w, port, pkts[i]);
	return k;
}

/* ---- frames into the switch ---- */

/* An mbuf of frame f, in two segments when split is inside it. */
static struct rte_mbuf *
fz_mbuf(struct fz_world *w, const uint8_t *f, uint32_t len, uint32_t split)
{
	struct rte_mbuf *m, *tail;
	uint32_t first = len;
	char *p;

	if (len > FZ_SEG_MAX && (split == 0 || split >= len))
		split = len / 2;
	if (split != 0 && split < len)
		first = split;
	if (first > FZ_SEG_MAX || len - first > FZ_SEG_MAX)
		return NULL;
	m = rte_pktmbuf_alloc(fz_pool);
	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, (uint16_t)first);
	if (p == NULL && first != 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, f, first);
	if (first == len)
		return m;
	tail = rte_pktmbuf_alloc(fz_pool);
	p = tail == NULL ? NULL :
		rte_pktmbuf_append(tail, (uint16_t)(len - first));
	if (p == NULL || rte_pktmbuf_chain(m, tail) != 0) {
		rte_pktmbuf_free(tail);
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, f + first, len - first);
	w->chained = true;
	return m;
}

static void fz_flush(struct fz_world *w, uint16_t in_port, uint16_t wi,
		     bool scalar);

/* Add frame f to the burst (flushing a full one into port 0 first). */
static void
fz_add(struct fz_world *w, const uint8_t *f, uint32_t len, uint32_t split)
{
	struct rte_mbuf *m;

	if (w->nb_pend == FZ_BURST)
		fz_flush(w, 0, 0, w->scalar);
	m = fz_mbuf(w, f, len, split);
	if (m == NULL)
		return;
	w->pend[w->nb_pend++] = m;
	w->pend_segs += m->nb_segs;
}

/* An address: the routes' prefixes, the switch's own, unrouted, any. */
static uint32_t
fz_addr(struct fz_in *in)
{
	uint8_t s = fz_u8(in), b = fz_u8(in);

	switch (s % 8) {
	case 0:
		return FZ_IP(10, 0, s >> 3 & 7, b);
	case 1:
		return FZ_IP(10, 1, s >> 3, b);
	case 2:
		return FZ_IP(10, 1, 128 | s >> 3, b);
	case 3:
		return FZ_IP(10, 2, s >> 3, b);
	case 4:
		return FZ_PORT_IP(s >> 3 & 7);
	case 5:
		return FZ_IP(192, 168, s >> 3, b);
	case 6:
		return fz_u32(in);
	default:
		return FZ_IP(10, 0, b & 7, 1 + (s >> 3));
	}
}

/* Insert an 802.1Q tag after the MACs of the frame of *len bytes at f. */
static void
fz_vlan(uint8_t *f, uint32_t *len, uint8_t pcp)
{
	memmove(f + 12 + FZ_VLAN, f + 12, *len - 12);
	f[12] = OFAN_ETHER_TYPE_VLAN >> 8;
	f[13] = OFAN_ETHER_TYPE_VLAN & 0xff;
	f[14] = (uint8_t)(pcp << 5);
	f[15] = 0;
	*len += FZ_VLAN;
}

/* The frame's IPv4 ID as the parser finds it (one VLAN tag at most). */
static uint8_t *
fz_ip_id(uint8_t *f, uint32_t len)
{
	uint32_t l3 = OFAN_ETH_HDR_SIZE;

	if (len >= 14 && fz_rd16(f + 12) == OFAN_ETHER_TYPE_VLAN)
		l3 += FZ_VLAN;
	return len >= l3 + 6 ? f + l3 + 4 : NULL;
}

/*
 * Track the RoCEv2 frame at w->buf: it gets its record's index as IPv4
 * ID (0 if it is not tracked) and its checksum, valid or not as asked.
 */
static void
fz_track(struct fz_world *w, uint32_t len, bool csum_ok)
{
	struct ofan_pkt_info info;
	struct ofan_ipv4_hdr *ip;
	uint8_t *id = fz_ip_id(w->buf, len);
	unsigned int ihl;
	struct fz_rec *r = NULL;
	uint16_t sum;

	if (id == NULL)
		return;
	if (w->nb_rec < FZ_MAX_RECS &&
	    ofan_parse(w->buf, len, OFAN_PARSE_F_NO_TTL_CHECK, &info) ==
	    OFAN_PARSE_OK &&
	    (info.kind == OFAN_KIND_DATA || info.kind == OFAN_KIND_ACK))
		r = &w->rec[w->nb_rec];
	id[0] = r != NULL ? (uint8_t)((FZ_TAG | w->nb_rec) >> 8) : 0;
	id[1] = r != NULL ? (uint8_t)w->nb_rec : 0;
	ip = (struct ofan_ipv4_hdr *)(id - 4);
	ihl = (ip->version_ihl & 0xfu) * 4u;
	if (ihl >= OFAN_IPV4_HDR_SIZE && (uint32_t)(id - 4 - w->buf) + ihl <= len) {
		ip->checksum = 0;
		sum = ofan_ipv4_checksum(ip, ihl);
		ip->checksum = csum_ok ? sum : (uint16_t)(sum ^ 0x0101);
	}
	if (r == NULL)
		return;
	w->nb_rec++;
	memset(r, 0, sizeof(*r));
	r->src_ip = info.src_ip;
	r->dst_ip = info.dst_ip;
	r->qp = info.dest_qp;
	r->psn = info.psn;
	r->len = (uint16_t)len;
	r->hdr_end = (uint16_t)(info.l4_offset + OFAN_UDP_HDR_SIZE + OFAN_BTH_SIZE);
	r->ev = info.src_port;
	r->l3 = (uint8_t)info.l3_offset;
	r->kind = info.kind;
	r->tos = info.tos;
	r->ttl = info.ttl;
	r->mark = info.bth_mark;
	r->opcode = info.bth_opcode;
	r->csum_ok = csum_ok;
	r->pattern = info.kind == OFAN_KIND_DATA &&
		ofan_payload_check(w->buf + info.payload_offset, r->qp, r->psn,
				   info.payload_size) == 0;
	if (info.kind == OFAN_KIND_ACK)
		memcpy(r->tail, w->buf + r->hdr_end, sizeof(r->tail));
}

/*
 * RoCEv2 data (ack false) or ACKs from fuzzed fields: count frames of
 * consecutive PSNs, each tracked.
 */
static void
fz_op_roce(struct fz_world *w, struct fz_in *in, bool ack)
{
	static const uint16_t payloads[9] = {
		0, 1, 16, 64, 200, 1000, 1500, 1800, 4000
	};
	static const uint8_t ttls[4] = { 64, 2, 1, 0 };
	struct ofan_pkt_spec spec = { .src_mac = { 0x02, 0, 0, 0, 9, 1 } };
	struct ofan_ack_ext ext = { 0 };
	uint8_t *bth, ttl_sel, flags, op = 0, mark = 0, syn = 0, count;
	uint32_t len, split = 0, k;
	bool csum_ok;
	int n;

	spec.dst_ip = fz_addr(in);
	spec.src_ip = fz_addr(in);
	spec.ev = fz_u16(in);
	spec.psn = fz_u32(in) & OFAN_BTH_PSN_MASK;
	spec.dest_qp = 1 + fz_u8(in);
	spec.payload_size = payloads[fz_u8(in) % 9];
	spec.tos = fz_u8(in);
	ttl_sel = fz_u8(in);
	flags = fz_u8(in);
	count = (uint8_t)(1 + fz_u8(in) % 4);
	switch (flags & 3) {
	case 0:
		op = ack ? OFAN_BTH_OP_RC_ACK : OFAN_BTH_OP_RC_SEND_ONLY;
		break;
	case 1:
		op = ack ? OFAN_BTH_OP_RC_ACK : FZ_BTH_OP_CNP;
		break;
	case 2:
		op = fz_u8(in);
		break;
	default:
		op = ack ? OFAN_BTH_OP_RC_SEND_ONLY : OFAN_BTH_OP_RC_ACK;
		break;
	}
	switch (flags >> 2 & 3) {
	case 1:
		mark = OFAN_BTH_MARK_TRIMMED;
		break;
	case 2:
		mark = OFAN_BTH_MARK_TRIMMED | OFAN_BTH_MARK_RETURNED;
		break;
	case 3:
		mark = fz_u8(in);
		break;
	default:
		break;
	}
	if (flags & 0x20)
		split = fz_u8(in);
	if (ack) {
		syn = fz_u8(in);
		syn = syn < 0x80 ? OFAN_AETH_SYN_ACK : syn < 0xc0 ?
			OFAN_AETH_SYN_NAK_SEQ : syn;
		ext.echo_ev = fz_u16(in);
		ext.flags = fz_u8(in);
		ext.echo_psn = fz_u32(in);
		ext.cum_psn = fz_u32(in);
		ext.sack = (uint64_t)fz_u32(in) << 17 | fz_u8(in);
	}
	csum_ok = !(flags & 0x40);
	for (k = 0; k < count; k++) {
		spec.psn = (spec.psn + (k != 0)) & OFAN_BTH_PSN_MASK;
		n = ack ? ofan_build_ack(w->buf, FZ_FRAME_MAX, &spec, &ext) :
			ofan_build_data(w->buf, FZ_FRAME_MAX, &spec);
		if (n < 0)
			return;
		len = (uint32_t)n;
		bth = w->buf + OFAN_DATA_HDRS_SIZE - OFAN_BTH_SIZE;
		bth[0] = op;
		bth[OFAN_BTH_MARK_OFFSET] = mark;
		if (ack)
			bth[OFAN_BTH_SIZE] = syn;
		w->buf[OFAN_ETH_HDR_SIZE + 8] = ttl_sel < 0xf0 ?
			ttls[ttl_sel % 4] : ttl_sel;
		if ((flags & 0x80) && len < 60) {
			memset(w->buf + len, 0, 60 - len);
			len = 60;
		}
		if (flags & 0x10)
			fz_vlan(w->buf, &len, flags >> 5);
		fz_track(w, len, csum_ok);
		fz_add(w, w->buf, len, split);
	}
}

/* PFC or 802.3x pause frames from the port's peer. */
static void
fz_op_pause(struct fz_world *w, struct fz_in *in)
{
	uint8_t flags = fz_u8(in), cev = fz_u8(in), var = fz_u8(in);
	uint16_t quanta = fz_u16(in), op;
	uint8_t count = (uint8_t)(1 + fz_u8(in) % 3), *body;
	uint32_t len, split = 0, i, k;

	op = flags & 1 ? OFAN_MAC_CTRL_OP_PAUSE : OFAN_MAC_CTRL_OP_PFC;
	if (flags & 0x80)
		op = fz_u16(in);
	if (flags & 8)
		split = fz_u8(in);
	for (k = 0; k < count; k++) {
		memset(w->buf, 0, 64);
		memcpy(w->buf, ofan_pfc_dst_mac, 6);
		if (flags & 4)
			w->buf[5] = var;	/* another destination */
		w->buf[6] = 0x02;
		w->buf[10] = 0x01;
		w->buf[11] = 0xfe;
		w->buf[12] = OFAN_ETHER_TYPE_MAC_CTRL >> 8;
		w->buf[13] = OFAN_ETHER_TYPE_MAC_CTRL & 0xff;
		body = w->buf + OFAN_ETH_HDR_SIZE;
		body[0] = (uint8_t)(op >> 8);
		body[1] = (uint8_t)op;
		if (op == OFAN_MAC_CTRL_OP_PAUSE) {
			body[2] = (uint8_t)(quanta >> 8);
			body[3] = (uint8_t)quanta;
		} else {
			/* The vector's high byte is reserved: any value. */
			body[2] = flags & 0x40 ? var : 0;
			body[3] = cev;
			for (i = 0; i < OFAN_PFC_PRIORITIES; i++) {
				uint16_t q = flags & 0x40 ?
					(uint16_t)(quanta ^ (var * i)) : quanta;

				body[4 + 2 * i] = (uint8_t)(q >> 8);
				body[5 + 2 * i] = (uint8_t)q;
			}
		}
		switch (flags >> 4 & 3) {
		case 0:
			len = OFAN_PFC_FRAME_SIZE;
			break;
		case 1:
			len = OFAN_ETH_HDR_SIZE + (op == OFAN_MAC_CTRL_OP_PAUSE ?
				OFAN_PAUSE_BODY_SIZE : OFAN_PFC_BODY_SIZE);
			break;
		case 2:
			len = OFAN_ETH_HDR_SIZE + var % 21;
			break;
		default:
			len = 64;
			break;
		}
		if (flags & 2)
			fz_vlan(w->buf, &len, cev & 7);
		fz_add(w, w->buf, len, split);
		quanta = (uint16_t)(quanta + var);
	}
}

/* ARP from a peer: a request or reply, for the switch or not. */
static void
fz_op_arp(struct fz_world *w, struct fz_in *in)
{
	static const uint8_t tha[6];
	uint8_t flags = fz_u8(in), sha[6] = { 0x02, 0, 0, 0, 0x09, 0 };
	uint32_t spa = fz_addr(in), tpa = fz_addr(in), len;
	uint16_t oper = flags & 1 ? OFAN_ARP_OP_REPLY : OFAN_ARP_OP_REQUEST;
	int n;

	if (flags & 2)
		oper = fz_u8(in);
	if (flags & 4)
		spa = 0;
	sha[5] = flags;
	n = ofan_build_arp(w->buf, FZ_FRAME_MAX, oper, sha, spa, tha, tpa);
	if (n < 0)
		return;
	len = (uint32_t)n;
	if (flags & 8) {
		memset(w->buf + len, 0, 60 - len);
		len = 60;
	}
	if (flags & 0x10)
		fz_vlan(w->buf, &len, 0);
	if (flags & 0x20)
		w->buf[OFAN_ETH_HDR_SIZE + (flags & 0x10 ? FZ_VLAN : 0) + 1] ^=
			flags;	/* htype or ptype wrong */
	fz_add(w, w->buf, len, flags & 0x40 ? fz_u8(in) : 0);
}

/* Raw bytes (their IPv4 ID's top bit cleared: they are not tracked). */
static void
fz_op_raw(struct fz_world *w, struct fz_in *in)
{
	uint8_t flags = fz_u8(in);
	uint32_t len = (uint32_t)(flags & 7) << 8 | fz_u8(in), i;
	uint8_t *id;

	for (i = 0; i < len; i++)
		w->buf[i] = fz_u8(in);
	id = fz_ip_id(w->buf, len);
	if (id != NULL)
		id[0] &= (uint8_t)~(FZ_TAG >> 8);
	fz_add(w, w->buf, len, flags & 8 ? fz_u8(in) : 0);
}

/* ---- what a burst should do ---- */

/* Classes enabled and quanta of a pause body, read here (fuzz_parse's). */
static bool
fz_pause_quanta(const uint8_t *body, uint8_t prio, uint16_t *quanta)
{
	if (fz_rd16(body) == OFAN_MAC_CTRL_OP_PAUSE) {
		*quanta = fz_rd16(body + 2);
		return true;
	}
	if (!(body[3] >> prio & 1))
		return false;
	*quanta = fz_rd16(body + 4 + 2 * prio);
	return true;
}

/*
 * The fate of frame m arriving on in_port, into e: what ofan_parse()
 * says of it (of its first 128 bytes for a chained frame, whose headers
 * must then lie in the first segment: sw_worker.c's rule), then ARP,
 * pause or the FIB.
 */
FZ_NO_COV static void
fz_expect_frame(struct fz_world *w, uint16_t in_port,
		const struct rte_mbuf *m, struct fz_expect *e)
{
	const struct sw_config *c = w->cfg;
	unsigned int flags = c->verify_checksum ? OFAN_PARSE_F_VERIFY_CSUM : 0;
	uint32_t len = m->pkt_len, first = rte_pktmbuf_data_len(m), hop;
	struct ofan_pkt_info info;
	uint8_t hdr[128] = { 0 };
	const uint8_t *f;
	uint16_t quanta;
	int v;

	if (m->nb_segs == 1) {
		f = rte_pktmbuf_mtod(m, const uint8_t *);
		v = ofan_parse(f, first, flags, &info);
	} else {
		f = rte_pktmbuf_read(m, 0, RTE_MIN(len, 128u), hdr);
		if (f != hdr)
			memcpy(hdr, f, RTE_MIN(len, 128u));
		f = hdr;
		v = ofan_parse(hdr, len, flags, &info);
		if (v == OFAN_PARSE_OK && info.kind == OFAN_KIND_ARP)
			v = first < info.l3_offset + sizeof(struct ofan_arp) ?
				OFAN_DROP_ARP_MALFORMED : v;
		else if (v == OFAN_PARSE_OK && info.kind == OFAN_KIND_PAUSE)
			v = first < info.l3_offset + (fz_rd16(f + info.l3_offset) ==
				OFAN_MAC_CTRL_OP_PFC ? OFAN_PFC_BODY_SIZE :
				OFAN_PAUSE_BODY_SIZE) ?
				OFAN_DROP_MAC_CTRL_MALFORMED : v;
		else if (v == OFAN_PARSE_OK)
			v = first < info.l3_offset + OFAN_IPV4_HDR_SIZE ?
				OFAN_DROP_IP_TRUNCATED : v;
	}
	if (v != OFAN_PARSE_OK) {
		e->reason[v]++;
		e->ttl += v == OFAN_DROP_TTL_EXPIRED;
		return;
	}
	switch (info.kind) {
	case OFAN_KIND_ARP:
		if (info.arp_oper == OFAN_ARP_OP_REQUEST &&
		    c->ports[in_port].ip != 0 &&
		    info.arp_tpa == c->ports[in_port].ip)
			e->arp_for_us++;
		else
			e->reason[OFAN_DROP_NOT_FOR_US]++;
		return;
	case OFAN_KIND_PAUSE:
		if (w->pfc_sw[in_port] &&
		    fz_pause_quanta(f + info.l3_offset,
				    c->ports[in_port].queue.pfc_priority,
				    &quanta)) {
			e->pause_ok++;
			e->pause_set = true;
			e->pause_until = w->now +
				ofan_pfc_quanta_ns(quanta, w->pfc_rate[in_port]);
		} else {
			e->reason[OFAN_DROP_PAUSE_IGNORED]++;
		}
		return;
	default:
		if (rte_lpm_lookup(w->fib, info.dst_ip, &hop) != 0)
			e->reason[OFAN_DROP_NO_ROUTE]++;
		else if (hop >= c->nb_routes)
			e->reason[OFAN_DROP_NOT_FOR_US]++;
		else
			e->routed++;
	}
}

static uint64_t
fz_sum_picks(const struct sw_totals *t, uint16_t nb_ports)
{
	uint64_t s = 0;
	uint16_t p;

	for (p = 0; p < nb_ports; p++)
		s += t->picks[p];
	return s;
}

/* A port counter (at offset off in sw_port_stats) summed over the ports. */
static uint64_t
fz_sum_port(const struct sw_totals *t, uint16_t nb_ports, size_t off)
{
	uint64_t s = 0;
	uint16_t p;

	for (p = 0; p < nb_ports; p++)
		s += *(const uint64_t *)((const uint8_t *)&t->port[p] + off);
	return s;
}

/* The burst's counters against what e says, a before, b after. */
FZ_NO_COV static void
fz_check_burst(struct fz_world *w, uint16_t in, const struct fz_expect *e,
	       const struct sw_totals *a, const struct sw_totals *b,
	       uint16_t n)
{
	const struct sw_port_stats *pa = &a->port[in], *pb = &b->port[in];
	uint64_t routed_a, routed_b, turned;
	unsigned int r;

#define FZ_D(field) (b->field - a->field)
	if (pb->rx_pkts - pa->rx_pkts != n)
		fz_fail("port %u: rx grew by %" PRIu64 " for a burst of %u",
			in, pb->rx_pkts - pa->rx_pkts, n);
	for (r = 0; r < OFAN_DROP_NO_ROUTE; r++)
		if (FZ_D(drops[r]) != e->reason[r])
			fz_fail("port %u: %s grew by %" PRIu64 ", the parser says %u",
				in, ofan_drop_name(r), FZ_D(drops[r]),
				e->reason[r]);
	if (FZ_D(drops[OFAN_DROP_NOT_FOR_US]) != e->reason[OFAN_DROP_NOT_FOR_US] ||
	    FZ_D(drops[OFAN_DROP_PAUSE_IGNORED]) !=
	    e->reason[OFAN_DROP_PAUSE_IGNORED] ||
	    FZ_D(drops[OFAN_DROP_BAD_PICK]) != 0)
		fz_fail("port %u: not_for_us +%" PRIu64 " (want %u), pause_ignored +%" PRIu64 " (want %u), bad_pick +%" PRIu64,
			in, FZ_D(drops[OFAN_DROP_NOT_FOR_US]),
			e->reason[OFAN_DROP_NOT_FOR_US],
			FZ_D(drops[OFAN_DROP_PAUSE_IGNORED]),
			e->reason[OFAN_DROP_PAUSE_IGNORED],
			FZ_D(drops[OFAN_DROP_BAD_PICK]));
	if (pb->icmp_sent + pb->icmp_limited - pa->icmp_sent - pa->icmp_limited !=
	    e->ttl)
		fz_fail("port %u: %u TTLs expired, ICMP sent or limited +%" PRIu64,
			in, e->ttl, pb->icmp_sent + pb->icmp_limited -
			pa->icmp_sent - pa->icmp_limited);
	if (pb->pfc_pauses_received - pa->pfc_pauses_received != e->pause_ok)
		fz_fail("port %u: %u pauses to obey, pfc_pauses_received +%" PRIu64,
			in, e->pause_ok,
			pb->pfc_pauses_received - pa->pfc_pauses_received);
	if (pb->arp_replies - pa->arp_replies > e->arp_for_us ||
	    e->arp_for_us - (pb->arp_replies - pa->arp_replies) >
	    FZ_D(drops[OFAN_DROP_QUEUE_FULL]))
		fz_fail("port %u: %u ARP requests for it, %" PRIu64 " replies",
			in, e->arp_for_us, pb->arp_replies - pa->arp_replies);
	/*
	 * Routed frames are picked for, or have no live member; headers
	 * turned back with no way back (no route, no live member) add to
	 * those drops.
	 */
	routed_a = fz_sum_picks(a, w->nb_ports) +
		a->drops[OFAN_DROP_NO_ROUTE] + a->drops[OFAN_DROP_NO_MEMBER] +
		fz_sum_port(a, w->nb_ports, offsetof(struct sw_port_stats,
						     headers_returned));
	routed_b = fz_sum_picks(b, w->nb_ports) +
		b->drops[OFAN_DROP_NO_ROUTE] + b->drops[OFAN_DROP_NO_MEMBER] +
		fz_sum_port(b, w->nb_ports, offsetof(struct sw_port_stats,
						     headers_returned));
	turned = fz_sum_port(b, w->nb_ports, offsetof(struct sw_port_stats,
						      headers_turned)) -
		fz_sum_port(a, w->nb_ports, offsetof(struct sw_port_stats,
						     headers_turned));
	if (routed_b - routed_a != (uint64_t)e->routed +
	    e->reason[OFAN_DROP_NO_ROUTE] + turned)
		fz_fail("port %u: %u frames to route, %u unrouted, %" PRIu64 " headers turned back; picks + no_route + no_live_member + returned +%" PRIu64,
			in, e->routed, e->reason[OFAN_DROP_NO_ROUTE], turned,
			routed_b - routed_a);
#undef FZ_D
	if (e->pause_set) {
		const struct sw_port_state *ps = sw_engine_port(w->eng, in);

		if (ps->pause_until != e->pause_until || ps->pause_from != w->now)
			fz_fail("port %u: paused until %" PRIu64 " from %" PRIu64 ", the pause says %" PRIu64 " from %" PRIu64,
				in, ps->pause_until, ps->pause_from,
				e->pause_until, w->now);
	}
}

/*
 * A lossless port drops for headroom only past its limit: the bytes it
 * brought in that the worker holds are at most all the worker's queues
 * hold, and the frame dropped at most the burst's longest.
 */
FZ_NO_COV static void
fz_check_headroom(struct fz_world *w, uint16_t wi, uint16_t in,
		  const struct sw_totals *a, const struct sw_totals *b,
		  uint32_t longest)
{
	uint64_t xoff, xon, room, held = 0;
	uint16_t p;

	if (b->drops[OFAN_DROP_PFC_HEADROOM] == a->drops[OFAN_DROP_PFC_HEADROOM])
		return;
	if (!w->pfc_sw[in])
		fz_fail("pfc_headroom drops from port %u, which is not lossless",
			in);
	sw_engine_pfc_limits(w->eng, in, &xoff, &xon, &room);
	for (p = 0; p < w->nb_ports; p++)
		held += sw_worker_port_bytes(w->w[wi], p);
	if (held + longest <= xoff + room)
		fz_fail("port %u: pfc_headroom drops with %" PRIu64 " bytes queued, its limit %" PRIu64,
			in, held, xoff + room);
}

/* The collected burst into in_port of worker wi. */
static void
fz_flush(struct fz_world *w, uint16_t in_port, uint16_t wi, bool scalar)
{
	static struct sw_totals before;
	struct fz_expect e;
	uint8_t link = sw_engine_port(w->eng, in_port)->link;
	uint16_t i, n = w->nb_pend;
	uint32_t longest = 0;

	if (n == 0)
		return;
	memset(&e, 0, sizeof(e));
	if (link == SW_LINK_DOWN || link == SW_LINK_BLACKHOLE)
		e.reason[link == SW_LINK_DOWN ? OFAN_DROP_LINK_DOWN :
			 OFAN_DROP_BLACKHOLE] = n;
	else
		for (i = 0; i < n; i++)
			fz_expect_frame(w, in_port, w->pend[i], &e);
	for (i = 0; i < n; i++)
		longest = RTE_MAX(longest, w->pend[i]->pkt_len);
	sw_engine_totals(w->eng, &before);
	fz_log("  burst of %u into port %u (worker %u, %s)\n", n, in_port, wi,
	       scalar ? "scalar" : "burst");
	w->nb_pend = 0;
	w->pend_segs = 0;
	w->frames_in += n;
	fz_stats.frames_in += n;
	fz_stats.pauses_obeyed += e.pause_ok;
	w->out_worker = wi;
	if (scalar)
		sw_worker_input_scalar(w->w[wi], in_port, w->pend, n, w->now);
	else
		sw_worker_input(w->w[wi], in_port, w->pend, n, w->now);
	sw_engine_totals(w->eng, &w->cur);
	if (link == SW_LINK_DOWN || link == SW_LINK_BLACKHOLE) {
		if (w->cur.drops[e.reason[OFAN_DROP_LINK_DOWN] ?
				 OFAN_DROP_LINK_DOWN : OFAN_DROP_BLACKHOLE] -
		    before.drops[e.reason[OFAN_DROP_LINK_DOWN] ?
				 OFAN_DROP_LINK_DOWN : OFAN_DROP_BLACKHOLE] != n)
			fz_fail("port %u is down: its burst of %u not dropped as such",
				in_port, n);
		return;
	}
	fz_check_burst(w, in_port, &e, &before, &w->cur, n);
	fz_check_headroom(w, wi, in_port, &before, &w->cur, longest);
}

/* ---- transmit ---- */

/* Whether frame m is a MAC control frame (the switch's PFC). */
static bool
fz_is_mac_ctrl(const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	return rte_pktmbuf_data_len(m) >= 14 &&
		fz_rd16(f + 12) == OFAN_ETHER_TYPE_MAC_CTRL;
}

/* Nothing but the switch's PFC frame leaves a port paused at now. */
FZ_NO_COV static void
fz_check_paused(struct fz_world *w, uint16_t wi, uint16_t p,
		uint64_t until, struct rte_mbuf **pkts, uint16_t n)
{
	if (until <= w->now)
		return;
	fz_stats.paused_peeks++;
	if (n == 0)
		return;
	if (n > 1 || !fz_is_mac_ctrl(pkts[0]))
		fz_fail("port %u (worker %u) paused until %" PRIu64 " gave %u frames at %" PRIu64,
			p, wi, until, n, w->now);
}

/*
 * Port p is about to be peeked: on a failed link the peek drops the PFC
 * frame the port had to send (sw_worker_tx_peek), so its last one sent
 * no longer says whether it resumed.
 */
static void
fz_note_peek(struct fz_world *w, uint16_t wi, uint16_t p)
{
	uint8_t link = sw_engine_port(w->eng, p)->link;

	if (link == SW_LINK_DOWN || link == SW_LINK_BLACKHOLE)
		w->last_pfc[wi][p] = 3;
}

/* Finish port p's started frame: it must still come first. */
static void
fz_finish(struct fz_world *w, uint16_t wi, uint16_t p)
{
	struct rte_mbuf *m = NULL, *held = w->held[wi][p];
	uint8_t link = sw_engine_port(w->eng, p)->link;
	uint16_t n;

	if (held == NULL)
		return;
	w->held[wi][p] = NULL;
	w->out_worker = wi;
	fz_note_peek(w, wi, p);
	n = sw_worker_tx_peek(w->w[wi], p, w->now, &m, 1);
	if (n == 0) {
		/* Lost with a failed link, or waiting out a stall. */
		if (link != SW_LINK_DOWN && link != SW_LINK_BLACKHOLE &&
		    link != SW_LINK_STALL)
			fz_fail("port %u (worker %u): its started frame is gone, link %s",
				p, wi, sw_link_state_names[link]);
		return;
	}
	if (m != held)
		fz_fail("port %u (worker %u): another frame than the one started comes first",
			p, wi);
	sw_worker_tx_commit(w->w[wi], p, w->now, &m, 1, 1);
	fz_stats.finished++;
	fz_out(w, p, m);
}

/*
 * Drain port p as ofan-switch does: peek up to max, the device takes
 * take of them (UINT16_MAX: all).
 */
static uint16_t
fz_drain(struct fz_world *w, uint16_t wi, uint16_t p, uint16_t max,
	 uint16_t take)
{
	struct rte_mbuf *pkts[64];
	uint64_t until;
	uint16_t n, i;

	fz_finish(w, wi, p);
	w->out_worker = wi;
	until = sw_worker_paused_until(w->w[wi], p);
	fz_note_peek(w, wi, p);
	n = sw_worker_tx_peek(w->w[wi], p, w->now, pkts, max);
	if (n > max)
		fz_fail("port %u: peeked %u of at most %u", p, n, max);
	fz_check_paused(w, wi, p, until, pkts, n);
	if (take > n)
		take = n;
	sw_worker_tx_commit(w->w[wi], p, w->now, pkts, n, take);
	for (i = 0; i < take; i++)
		fz_out(w, p, pkts[i]);
	return n;
}

/* Start port p's next frame, as a serialiser does. */
static void
fz_start(struct fz_world *w, uint16_t wi, uint16_t p)
{
	struct rte_mbuf *m = NULL;
	uint64_t until;

	if (w->held[wi][p] != NULL) {
		fz_finish(w, wi, p);
		return;
	}
	until = sw_worker_paused_until(w->w[wi], p);
	fz_note_peek(w, wi, p);
	if (sw_worker_tx_peek(w->w[wi], p, w->now, &m, 1) == 1) {
		fz_check_paused(w, wi, p, until, &m, 1);
		w->held[wi][p] = m;
		fz_stats.started++;
	}
}

/*
 * A worker with nothing left to send holds nothing a lossless port
 * brought in: each such port whose link works has resumed its upstream
 * (its last PFC frame, if any, was a resume).
 */
FZ_NO_COV static void
fz_check_resumed(struct fz_world *w, uint16_t wi)
{
	uint8_t link;
	uint16_t p;

	for (p = 0; p < w->nb_ports; p++)
		if (!sw_worker_tx_idle(w->w[wi], p))
			return;
	for (p = 0; p < w->nb_ports; p++) {
		link = sw_engine_port(w->eng, p)->link;
		if (w->last_pfc[wi][p] == 2 &&
		    (link == SW_LINK_UP || link == SW_LINK_DEGRADED))
			fz_fail("port %u (worker %u): paused its upstream and never resumed it, with nothing queued",
				p, wi);
	}
}

/* Every port of every worker until nothing more leaves now. */
static void
fz_drain_all(struct fz_world *w)
{
	uint16_t wi, p, round;

	for (wi = 0; wi < w->nb_workers; wi++)
		for (p = 0; p < w->nb_ports; p++)
			for (round = 0; round < 64; round++)
				if (fz_drain(w, wi, p, 64, UINT16_MAX) == 0)
					break;
	for (wi = 0; wi < w->nb_workers; wi++)
		fz_check_resumed(w, wi);
}

/* ---- after every operation ---- */

FZ_NO_COV static void
fz_check(struct fz_world *w)
{
	const struct sw_totals *a = &w->prev;
	struct sw_totals *b = &w->cur;
	uint64_t rx = 0, tx = 0, made = 0, consumed = 0, dropped = 0;
	uint64_t queued = 0, at_ports = 0, engine_held, max_pfc;
	uint64_t turned = 0, returned = 0;
	unsigned int r, k;
	uint16_t p;

	sw_engine_totals(w->eng, b);
	for (r = 0; r < OFAN_DROP_MAX; r++) {
		if (b->drops[r] < a->drops[r])
			fz_fail("drops %s decreased", ofan_drop_name(r));
		dropped += b->drops[r];
	}
	for (p = 0; p < w->nb_ports; p++) {
		const struct sw_port_stats *pa = &a->port[p], *pb = &b->port[p];
		const struct sw_queue_stats *qa = &a->queue[p], *qb = &b->queue[p];
		const struct sw_queue_config *qc = &w->cfg->ports[p].queue;
		uint64_t routed, out, cap, hist;

#define FZ_MONO(field, key, what) \
		if (pb->field < pa->field) \
			fz_fail("port %u: %s decreased", p, key);
		SW_PORT_COUNTERS(FZ_MONO)
#undef FZ_MONO
#define FZ_MONO_Q(field, key, how, what) \
		if (qb->field < qa->field) \
			fz_fail("port %u: %s decreased", p, key);
		SW_QUEUE_COUNTERS(FZ_MONO_Q)
#undef FZ_MONO_Q
		for (k = 0, hist = 0; k < SW_QUEUE_HIST_BINS; k++) {
			if (qb->hist[k] < qa->hist[k])
				fz_fail("port %u: histogram bin %u decreased",
					p, k);
			hist += qb->hist[k];
		}
		if (hist != qb->enq_pkts)
			fz_fail("port %u: %" PRIu64 " enqueues in the histogram, %" PRIu64 " counted",
				p, hist, qb->enq_pkts);
		if (b->picks[p] < a->picks[p])
			fz_fail("port %u: picks decreased", p);
		rx += pb->rx_pkts;
		tx += pb->tx_pkts;
		made += pb->icmp_sent + pb->pfc_pauses_sent +
			pb->pfc_resumes_sent;
		consumed += pb->pfc_pauses_received;
		queued += b->queue_len[p];
		at_ports += pb->drops + pb->egress_drops;
		/* What the harness got is what the port counts as sent. */
		if (pb->tx_pkts != w->out_pkts[p] ||
		    pb->tx_bytes != w->out_bytes[p] ||
		    pb->pfc_pauses_sent != w->out_pauses[p] ||
		    pb->pfc_resumes_sent != w->out_resumes[p])
			fz_fail("port %u: tx %" PRIu64 " (%" PRIu64 " bytes), pauses %" PRIu64 ", resumes %" PRIu64 "; the harness got %" PRIu64 " (%" PRIu64 " bytes), %" PRIu64 ", %" PRIu64,
				p, pb->tx_pkts, pb->tx_bytes,
				pb->pfc_pauses_sent, pb->pfc_resumes_sent,
				w->out_pkts[p], w->out_bytes[p],
				w->out_pauses[p], w->out_resumes[p]);
		/* Per port: routed to it = sent + dropped there + queued. */
		routed = b->picks[p] + pb->arp_replies + pb->icmp_sent +
			pb->headers_returned + pb->pfc_pauses_sent +
			pb->pfc_resumes_sent;
		out = pb->tx_pkts + pb->egress_drops + b->queue_len[p] +
			pb->headers_turned;
		if (routed != out)
			fz_fail("port %u: routed %" PRIu64 " (picked %" PRIu64 ", ARP %" PRIu64 ", ICMP %" PRIu64 ", returned %" PRIu64 ", PFC %" PRIu64 ") != sent %" PRIu64 " + dropped %" PRIu64 " + queued %" PRIu64 " + turned back %" PRIu64,
				p, routed, b->picks[p], pb->arp_replies,
				pb->icmp_sent, pb->headers_returned,
				pb->pfc_pauses_sent + pb->pfc_resumes_sent,
				pb->tx_pkts, pb->egress_drops, b->queue_len[p],
				pb->headers_turned);
		turned += pb->headers_turned;
		returned += pb->headers_returned;
		cap = qc->enabled ? qc->capacity_pkts + (qc->trim == SW_TRIM_OFF ?
			0 : qc->ctrl_capacity_pkts ? qc->ctrl_capacity_pkts :
			2 * qc->capacity_pkts) : (uint64_t)w->cfg->burst *
			SW_MAX_PORTS;
		if (b->queue_len[p] > cap * w->nb_workers)
			fz_fail("port %u: %" PRIu64 " queued, capacity %" PRIu64 " a worker",
				p, b->queue_len[p], cap);
		/* Pauses: the time paused so far only grows, within now. */
		if (w->pfc_sw[p]) {
			const struct sw_port_state *ps = sw_engine_port(w->eng, p);
			uint64_t rem = ps->pause_until > w->now ?
				ps->pause_until - w->now : 0;
			/*
			 * pfc_paused_ns holds the pauses that ran (up to a
			 * reload, or to their end once the worker saw it);
			 * the one in force has run since pause_from.
			 */
			int64_t so_far = (int64_t)(pb->pfc_paused_ns +
				(ps->pause_until != 0 ?
				 ofan_pfc_pause_ran(ps->pause_from,
						    ps->pause_until, w->now) :
				 0));

			if (so_far < w->paused_so_far[p] || so_far < 0 ||
			    (uint64_t)so_far > w->now ||
			    rem > ofan_pfc_quanta_ns(UINT16_MAX, w->pfc_rate[p]))
				fz_fail("port %u: paused %" PRId64 " ns so far (was %" PRId64 ", %" PRIu64 " to run) at %" PRIu64,
					p, so_far, w->paused_so_far[p], rem,
					w->now);
			w->paused_so_far[p] = so_far;
		} else if (pb->pfc_paused_ns != 0 || pb->pfc_pauses_received != 0) {
			fz_fail("port %u obeyed a pause without being lossless", p);
		}
	}
	/* A header turned back leaves by a port, or has no way back. */
	if (turned < returned || (!w->any_rts && turned != 0))
		fz_fail("%" PRIu64 " headers turned back, %" PRIu64 " returned",
			turned, returned);
	if (rx != w->frames_in)
		fz_fail("rx %" PRIu64 " for %" PRIu64 " frames given", rx,
			w->frames_in);
	if (at_ports != dropped)
		fz_fail("drops at ports %" PRIu64 " != drops by reason %" PRIu64,
			at_ports, dropped);
	if (rx + made != tx + dropped + queued + consumed)
		fz_fail("received %" PRIu64 " + made %" PRIu64 " != sent %" PRIu64 " + dropped %" PRIu64 " + queued %" PRIu64 " + pauses obeyed %" PRIu64,
			rx, made, tx, dropped, queued, consumed);
	/* The pool: what the queues hold, and a PFC frame a port at most. */
	engine_held = rte_mempool_in_use_count(fz_pool) - w->pend_segs;
	max_pfc = w->any_pfc ? (uint64_t)w->nb_ports * w->nb_workers : 0;
	if (engine_held < queued ||
	    (!w->chained && engine_held > queued + max_pfc))
		fz_fail("%" PRIu64 " mbufs in use for %" PRIu64 " queued (and %" PRIu64 " PFC frames at most)",
			engine_held, queued, max_pfc);
	w->prev = *b;
}

/* ---- operations ---- */

enum {
	FZ_OP_DATA,
	FZ_OP_ACK,
	FZ_OP_PAUSE,
	FZ_OP_ARP,
	FZ_OP_RAW,
	FZ_OP_FLUSH,
	FZ_OP_STEP,
	FZ_OP_DRAIN,
	FZ_OP_LINK,
	FZ_OP_PEER,
	FZ_OP_WEIGHT,
	FZ_NB_OPS
};

static void
fz_op_step(struct fz_world *w, struct fz_in *in)
{
	static const uint64_t steps[8] = {
		0, 1, 100, 1000, 5120, 100000, 1000000, 0
	};
	uint8_t b = fz_u8(in);
	uint64_t d = steps[b & 7];

	if ((b & 7) == 7)
		d = (uint64_t)fz_u16(in) << (b >> 3 & 15);
	w->now += d;
	sw_engine_control(w->eng, w->now);
	fz_log("  time %" PRIu64 "\n", w->now);
}

static void
fz_op_drain(struct fz_world *w, struct fz_in *in)
{
	uint8_t a = fz_u8(in);
	uint16_t p = (uint16_t)(a % w->nb_ports);
	uint16_t wi = (uint16_t)((a >> 3 & 1) % w->nb_workers);
	uint8_t max, take;

	switch (a >> 4 & 7) {
	case 0:
	case 1:
	case 2:
		max = (uint8_t)(1 + fz_u8(in) % 64);
		take = fz_u8(in);
		fz_drain(w, wi, p, max, take & 0x80 ? UINT16_MAX : take % 65);
		break;
	case 3:
	case 4:
		fz_start(w, wi, p);
		break;
	case 5:
		fz_finish(w, wi, p);
		break;
	default:
		fz_drain_all(w);
		break;
	}
}

static void
fz_op_link(struct fz_world *w, struct fz_in *in)
{
	uint8_t a = fz_u8(in), b = fz_u8(in);
	uint16_t p = (uint16_t)(a % w->nb_ports);
	uint8_t mode = fz_sw_modes_link(b & 7);

	if (a & 0x80) {
		/* As telemetry does: a request the next tick applies. */
		int rc = sw_engine_request(w->eng, p, mode,
					   fz_rates[b >> 3 & 7]);

		if (rc != 0 && (rc != -EBUSY ||
				!sw_engine_request_pending(w->eng)))
			fz_fail("sw_engine_request(%u, %s): %d", p,
				sw_link_state_names[mode], rc);
	} else if (sw_engine_set_link(w->eng, p, mode, fz_rates[b >> 3 & 7],
				      w->now) != 0) {
		fz_fail("sw_engine_set_link(%u, %s) refused", p,
			sw_link_state_names[mode]);
	}
	sw_engine_control(w->eng, w->now);
	fz_log("  port %u %s\n", p, sw_link_state_names[mode]);
}

static void
fz_op(struct fz_world *w, struct fz_in *in)
{
	uint8_t op = fz_u8(in), a;

	switch (op % FZ_NB_OPS) {
	case FZ_OP_DATA:
		fz_op_roce(w, in, false);
		break;
	case FZ_OP_ACK:
		fz_op_roce(w, in, true);
		break;
	case FZ_OP_PAUSE:
		fz_op_pause(w, in);
		break;
	case FZ_OP_ARP:
		fz_op_arp(w, in);
		break;
	case FZ_OP_RAW:
		fz_op_raw(w, in);
		break;
	case FZ_OP_FLUSH:
		a = fz_u8(in);
		fz_flush(w, (uint16_t)(a % w->nb_ports),
			 (uint16_t)((a >> 3 & 1) % w->nb_workers),
			 w->scalar ^ (a >> 4 & 1));
		break;
	case FZ_OP_STEP:
		fz_op_step(w, in);
		break;
	case FZ_OP_DRAIN:
		fz_op_drain(w, in);
		break;
	case FZ_OP_LINK:
		fz_op_link(w, in);
		break;
	case FZ_OP_PEER:
		a = fz_u8(in);
		w->budget[a % w->nb_ports] = a >> 6 == 3 ? UINT32_MAX : a >> 6;
		break;
	default:
		a = fz_u8(in);
		(void)sw_engine_set_weight(w->eng,
			(uint16_t)(a % w->cfg->nb_groups),
			(uint16_t)((a >> 2) % w->nb_ports),
			(uint16_t)(fz_u8(in) % 4));
		break;
	}
}

/* Frames still in the harness's hands, queues emptied, engine freed. */
static void
fz_teardown(struct fz_world *w)
{
	uint64_t queued;
	uint16_t wi, p;
	uint32_t freed;

	fz_flush(w, 0, 0, w->scalar);
	fz_check(w);
	for (wi = 0; wi < w->nb_workers; wi++)
		for (p = 0; p < w->nb_ports; p++)
			fz_finish(w, wi, p);
	fz_check(w);
	queued = 0;
	for (p = 0; p < w->nb_ports; p++)
		queued += w->prev.queue_len[p];
	freed = sw_engine_free_queues(w->eng);
	if (freed != queued)
		fz_fail("sw_engine_free_queues freed %u of %" PRIu64 " queued",
			freed, queued);
	fz_check(w);
	if (rte_mempool_in_use_count(fz_pool) != 0)
		fz_fail("%u mbufs still in use after the queues were freed",
			rte_mempool_in_use_count(fz_pool));
	if (sw_engine_free(w->eng) != 0)
		fz_fail("sw_engine_free found queued frames");
	w->eng = NULL;
	if (rte_mempool_in_use_count(fz_pool) != 0)
		fz_fail("%u mbufs not back in the pool",
			rte_mempool_in_use_count(fz_pool));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_world *w = &fz_w;
	uint8_t hdr[FZ_HDR_SIZE] = { 0 };
	struct fz_in in;
	unsigned int i;

	memcpy(hdr, data, RTE_MIN(size, sizeof(hdr)));
	in.p = data + RTE_MIN(size, sizeof(hdr));
	in.left = size - RTE_MIN(size, sizeof(hdr));
	/* The world is reset field by field: the records stay as they are. */
	memset(w, 0, offsetof(struct fz_world, prev));
	memset(&w->prev, 0, sizeof(w->prev));
	w->nb_rec = 0;
	w->cfg = fz_cfg;
	fz_build_switch(w, hdr);
	fz_stats.inputs++;
	fz_check(w);
	for (i = 0; i < FZ_MAX_OPS && in.left > 0; i++) {
		fz_op(w, &in);
		fz_check(w);
	}
	fz_teardown(w);
	return 0;
}
