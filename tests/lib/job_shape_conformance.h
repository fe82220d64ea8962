/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job-shape contract (workload/hs_job.h) as a Check test case that
 * any shape runs: tests/test_workload.c runs it for dense and moe,
 * tests/test_chakra.c for chakra (on traces it writes), and a shape's
 * own test (tests/test_job_shape_plugin.c) for its shape.  No EAL.
 *
 * Given the shape and the keys of a [job.NAME] section that uses it, it
 * checks what holds for any shape, not what the job does:
 *  - settings: defaults() fill no more than settings_size bytes, and
 *    parse() of a section without its keys keeps the defaults;
 *  - the job loads through the job loader with that shape, its ranks at
 *    least 1 and at most the hosts;
 *  - its workload builds: every flow between two different hosts of the
 *    job, the traffic and its index well formed;
 *  - determinism: the same section, the same flows;
 *  - two such jobs share no host;
 *  - the hosts one fewer than its ranks: refused, naming a key.
 */
#ifndef OFAN_TESTS_JOB_SHAPE_CONFORMANCE_H
#define OFAN_TESTS_JOB_SHAPE_CONFORMANCE_H

#include <check.h>

#include "hs_job.h"

/*
 * A test case that runs the contract's checks on ops, a job of it being
 * "[job.NAME]\nmodel = <name>\n" then keys (its other lines, "" for
 * none; the text must outlive the case).  At most 16 cases a program.
 */
TCase *job_shape_conformance_tcase(const struct hs_job_shape_ops *ops,
				   const char *keys);

#endif /* OFAN_TESTS_JOB_SHAPE_CONFORMANCE_H */
