/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_fabric share (tests/test_fabric*.c, one
 * executable): the fabric runs' mbuf pool, temporary paths removed at
 * teardown, loading an experiment of tests/data/fabric, running one
 * scheme and checking it conserved every packet, and comparing outputs.
 * Each topic file adds its tests to the suite's test cases.
 */
#ifndef OFAN_TESTS_FABRIC_T_H
#define OFAN_TESTS_FABRIC_T_H

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "fab.h"
#include "fab_sim.h"
#include "hs_pattern.h"
#include "hs_summary.h"
#include "hs_traffic.h"
#include "ofan_fs.h"
#include "ofan_parse.h"
#include "ofan_wire.h"

#define T_US 1000ull
#define T_EAL_POOL_MBUFS 63	/* t_eal_run_suite()'s pool: unused */
#define T_NB_MBUFS 32767	/* the fabric pool, >= any fab_pool_size() */
#define T_MAX_MTU 4096
#define T_MBUF_ROOM (RTE_PKTMBUF_HEADROOM + OFAN_ETH_HDR_SIZE + T_MAX_MTU + 64)
#define T_MAX_TMP 4
#define T_PATH_SIZE 512

/* The fabric runs' pool, made by t_pool_up() for each test case. */
extern struct rte_mempool *t_fab_pool;

/* Temporary files and directories of the running test. */
extern char t_tmp[T_MAX_TMP][T_PATH_SIZE];

/* An experiment and the path it was loaded from (x.path points here). */
struct t_exp {
	char path[T_PATH_SIZE];
	struct fab_experiment x;
};

void t_pool_up(void);
void t_pool_down(void);
void t_rm(const char *path);
void t_tmp_add(const char *path);
void t_mkdtemp(char *dir);
void t_teardown(void);
void t_load(struct t_exp *e, const char *name, const char *const *ov, int nb_ov, bool seed_set, uint64_t seed);
void t_run_topo_opts(const struct fab_params *p, uint16_t s, struct fab_topo *t, const struct fab_run_opts *opts, struct fab_run *r);
void t_run_topo(const struct fab_params *p, uint16_t s, struct fab_topo *t, struct fab_run *r);
void t_run_free(struct fab_topo *t, struct fab_run *r);
void t_fabric_run(const struct fab_params *p, uint16_t s, struct fab_run *r);
uint16_t t_scheme(const struct fab_params *p, const char *name);
void t_run_file(const char *file, const char *const *ov, int nb_ov, const char *name, struct fab_run *r, bool keep);
void t_keep(struct fab_run *r, struct fab_run *keep);
void t_check_conserved(const struct fab_run *r, const char *what);
void t_out_all_opts(const struct t_exp *e, const char *dir, const struct fab_run_opts *opts);
void t_out_all(const struct t_exp *e, const char *dir);
char *t_slurp(const char *dir, const char *name, size_t *len);
bool t_same_file(const char *dir_a, const char *dir_b, const char *name);
unsigned int t_count_lines(const char *s);

/* The link model (test_fabric.c): one flow on one link, to the ns. */
struct t_link_case {
	const char *rate;	/* [fabric] rate */
	uint64_t rate_bps;
	uint32_t mtu;
	uint64_t size;		/* bytes of the flow */
};

/* What the model says of one case. */
struct t_link_model {
	uint32_t nb_frames;
	uint64_t ser_ns;	/* sum of the data frames' times */
	uint64_t wire_bytes;	/* of the data frames, with overhead */
	uint64_t ack_ns;	/* one ACK frame's time */
	uint64_t ack_wait_ns;	/* the last ACK behind the previous one */
	uint64_t t_rx, t_tx;
	uint64_t rtt_sum_ns;	/* each frame's start to its ACK's return */
	uint64_t last_frame;	/* the last data frame's bytes */
	uint64_t last_ns;	/* and its time on the link */
};
uint64_t t_frame_ns(uint64_t frame, uint64_t rate_bps);
void t_link_model(const struct t_link_case *c, uint64_t delay,
		  struct t_link_model *m);
/* Run file (with ov) on one thread and on two: the same files. */
void t_same_on_two_threads(const char *file, const char *const *ov,
			   int nb_ov, struct t_exp *keep);
/* A fresh temporary .cm file of text (test_fabric_science.c). */
void t_write_cm(char *path, size_t size, const char *text);

/* The topic files' tests, added to the suite's test cases in order. */
void t_fabric_loss_tests(TCase *tc);		/* test_fabric_failures.c */
void t_fabric_failure_tests(TCase *tc);
void t_fabric_science_tests(TCase *tc);		/* test_fabric_science.c */
void t_fabric_study_tests(TCase *tc);
void t_fabric_ideal_tests(TCase *tc);
void t_fabric_config_tests(TCase *tc);		/* test_fabric_config.c */
void t_fabric_topology_tests(TCase *tc);
void t_fabric_jobs_tests(TCase *tc);		/* test_fabric_jobs.c */

#endif /* OFAN_TESTS_FABRIC_T_H */
