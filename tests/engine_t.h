/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_engine share (tests/test_engine*.c, one
 * executable): the configurations, an engine under test, frames, the
 * driver side draining egress queues, the log of every packet sent and
 * the traffic generator.  Each topic file adds its tests to the suite's
 * test cases (struct t_engine_tcases), in the suite's order.
 */
#ifndef OFAN_TESTS_ENGINE_T_H
#define OFAN_TESTS_ENGINE_T_H

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lb.h"
#include "ofan_clock.h"
#include "ofan_parse.h"
#include "ofan_rng.h"
#include "ofan_wire.h"
#include "sw_config.h"
#include "sw_engine.h"

#define T_SEED 0x0fa11234ull
#define T_NB_HOSTS 4
#define T_NB_UPLINKS 4
#define T_NB_PORTS (T_NB_HOSTS + T_NB_UPLINKS)
#define T_UPLINK0 T_NB_HOSTS		/* first uplink port */
#define T_GROUP_UP 0
#define T_NB_KEYS 4			/* 0 = this leaf, 1..3 = leaf k */
#define T_LINE_OUT 1			/* egress port of t_cfg_line() */
#define T_NB_MBUFS 8191
#define T_BURST_MAX 32
#define T_FRAME_MAX 1600
#define T_NONE 0xffff
#define T_ANY_UPLINK 0xfffe
#define T_US OFAN_NS_PER_US
#define T_MS OFAN_NS_PER_MS

#define T_IP(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define T_HOST_IP(h) T_IP(10, 0, 0, 1 + (h))
#define T_SWITCH_IP(p) T_IP(10, 0, 0, 254 - (p))
#define T_LEAF_NET(k) T_IP(10, 0, (k), 0)

/* Created by main() once EAL is up; every test takes its mbufs here. */
extern struct rte_mempool *t_pool;

static const char *const t_policies[] = {
	"ecmp", "spray", "rr", "adaptive", "flowlet", "ofan", "ecmp_ar",
	"rr_ecmp", "fib_llss", "sr",
};

/* Policies that must never pick a withdrawn member (see test_fail_down). */
static const char *const t_failover_policies[] = { "ofan", "ecmp", "spray" };

struct t_switch {
	struct sw_config *cfg;		/* owned */
	struct sw_engine *eng;
	struct sw_worker *w;		/* worker 0 */
	unsigned int pool_start;	/* mbufs in use before the engine */
};

typedef void (*t_visit_fn)(void *arg, uint16_t port, struct rte_mbuf *m);

struct t_seen {
	uint16_t port;
	unsigned int nb;
	unsigned int nb_ce;
};

#define T_LOG_SIZE 4096
#define T_LOG_FRAME 512

struct t_log {
	struct sw_engine *eng;
	uint32_t nb;
	uint32_t nb_out;
	uint32_t nb_port[SW_MAX_PORTS];	/* packets out per port */
	uint64_t bytes_port[SW_MAX_PORTS];
	uint16_t want[T_LOG_SIZE];	/* egress port, or T_ANY_UPLINK */
	uint16_t out[T_LOG_SIZE];	/* egress port seen, T_NONE before */
	uint8_t kind[T_LOG_SIZE];
	uint8_t key[T_LOG_SIZE];
	uint32_t flow[T_LOG_SIZE];
	uint16_t len[T_LOG_SIZE];
	uint8_t frame[T_LOG_SIZE][T_LOG_FRAME];
};

struct t_gen {
	struct ofan_rng rng;
	uint8_t keys[T_NB_KEYS];
	uint8_t nb_keys;
	uint8_t ack_pct;
	uint16_t max_payload;
	uint32_t nb_flows;
};

extern struct t_switch t_live[4];

void t_port_mac(uint16_t port, uint8_t mac[6]);
void t_peer_mac(uint16_t port, uint8_t mac[6]);
struct sw_config *t_cfg_new(const char *policy);
uint16_t t_sw_cfg_port(struct sw_config *c, uint32_t ip);
uint16_t t_cfg_group(struct sw_config *c, const char *name, const uint16_t *ports, uint16_t n);
void t_cfg_route(struct sw_config *c, uint32_t prefix, uint8_t depth, uint16_t group, uint32_t key);
struct sw_config *t_cfg_leaf(const char *policy);
struct sw_config *t_cfg_line(void);
void t_track(const struct t_switch *s, bool live);
void t_teardown(void);
void t_start_workers(struct t_switch *s, struct sw_config *cfg, uint16_t nb_workers);
void t_start(struct t_switch *s, struct sw_config *cfg);
unsigned int t_pool_used(void);
void t_stop(struct t_switch *s);
uint64_t t_drops_sum(const struct sw_totals *t);
void t_spec(struct ofan_pkt_spec *sp, uint16_t in_port, uint32_t src_ip, uint32_t dst_ip, uint16_t ev, uint32_t psn);
uint32_t t_build(uint8_t *buf, size_t size, const struct ofan_pkt_spec *sp, uint8_t kind);
struct rte_mbuf *t_mbuf(const void *frame, uint32_t len);
struct rte_mbuf *t_pkt(const struct ofan_pkt_spec *sp, uint8_t kind);
struct rte_mbuf *t_sized(uint32_t dst_ip, uint32_t psn, uint8_t tos, uint32_t size);
void t_fix_csum(uint8_t *frame);
void t_put16(uint8_t *p, uint16_t v);
const uint8_t *t_bytes(const struct rte_mbuf *m, uint8_t *buf, size_t size);
void t_parse(const struct rte_mbuf *m, struct ofan_pkt_info *info);
void t_check_rewrite(const struct rte_mbuf *m, const uint8_t *orig, uint32_t len, const struct sw_port_state *ps);
unsigned int t_drain_max(struct sw_worker *w, uint16_t port, uint64_t now, unsigned int max, t_visit_fn visit, void *arg);
unsigned int t_drain(struct sw_worker *w, uint16_t port, uint64_t now, t_visit_fn visit, void *arg);
unsigned int t_drain_all(struct sw_worker *w, uint64_t now, t_visit_fn visit, void *arg);
void t_seen_out(void *arg, uint16_t port, struct rte_mbuf *m);
struct t_log *t_log_new(struct sw_engine *eng);
struct rte_mbuf *t_log_add(struct t_log *log, const struct ofan_pkt_spec *spec, uint8_t kind, uint8_t key, uint32_t flow, uint16_t want);
void t_log_out(void *arg, uint16_t port, struct rte_mbuf *m);
void t_log_check_delivered(const struct t_log *log, uint32_t from);
void t_check_rotation(const struct t_log *log, uint32_t from, uint32_t to, uint32_t live_mask);
void t_gen_init(struct t_gen *g, uint64_t seed, const uint8_t *keys, uint8_t nb_keys, uint8_t ack_pct, uint32_t nb_flows);
uint16_t t_gen_burst(struct sw_worker *w, struct t_log *log, struct t_gen *g, uint64_t now);
void t_switch_run(struct t_switch *s, struct t_log *log, struct t_gen *g, uint32_t nb, uint64_t *now);
uint16_t t_member(struct t_switch *s, uint16_t g, uint16_t port);
uint16_t t_weight(struct t_switch *s, uint16_t port);

#ifdef NDEBUG
/* A policy that picks a member out of range (test_engine_drops.c). */
extern const struct lb_ops t_rogue_ops;
#endif

/* Shared by the topic files (each defined in one of them). */
#define T_SHAPE_RATE 1000000000ull
struct t_bad {
	enum ofan_drop why;
	uint32_t len;
	uint8_t frame[256];
};
uint32_t t_base_frame(uint8_t *buf, size_t size, uint32_t dst_ip, uint8_t kind, uint16_t payload);
unsigned int t_bad_frames(struct t_bad *bad);
struct rte_mbuf *t_chain(const uint8_t *frame, uint32_t len, uint32_t seg);
void t_send_many(struct t_switch *s, unsigned int n, uint64_t now);
unsigned int t_starts_by(uint64_t t0, uint64_t now);
void t_send_sized(struct t_switch *s, unsigned int n, uint32_t size, uint32_t first_psn, uint64_t now);
void t_in_order(void *arg, uint16_t port, struct rte_mbuf *m);

/* The suite's test cases, made by test_engine.c. */
struct t_engine_tcases {
	TCase *forwarding, *drops, *arp, *queue, *shaping, *failures,
		*lifecycle, *loader, *vector;
};

void t_engine_drop_tests(struct t_engine_tcases *t);	/* test_engine_drops.c */
void t_engine_queue_tests(struct t_engine_tcases *t);	/* test_engine_queues.c */
void t_engine_control_tests(struct t_engine_tcases *t);	/* test_engine_control.c */
void t_engine_vector_tests(struct t_engine_tcases *t);	/* test_engine_vector.c */

#endif /* OFAN_TESTS_ENGINE_T_H */
