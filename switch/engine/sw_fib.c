/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's FIB (sw_engine.h): an rte_lpm whose next hop is the route's
 * index, shared by engines with the same routes (ofan-fabric's switches of
 * one role), plus the switch's own addresses for local delivery.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lpm.h>

#include "sw_engine_priv.h"

struct rte_lpm *
sw_fib_create(const struct sw_config *c, int socket, char *err,
	      unsigned int err_size)
{
	struct rte_lpm_config lc = {
		.max_rules = c->nb_routes + c->nb_ports + 17,
		/* One tbl8 group per route longer than /24, at most. */
		.number_tbl8s = RTE_MAX(256u, c->nb_routes + c->nb_ports),
	};
	struct rte_lpm *fib;
	char name[64];
	uint32_t i, n;
	int rc;

	/* rte_lpm names are unique per process: take the first free one. */
	for (n = 0;; n++) {
		snprintf(name, sizeof(name), "ofan_fib_%u", n);
		if (rte_lpm_find_existing(name) == NULL)
			break;
	}
	fib = rte_lpm_create(name, socket, &lc);
	if (fib == NULL) {
		snprintf(err, err_size, "cannot create the FIB (rte_lpm): %s",
			 rte_strerror(rte_errno));
		return NULL;
	}
	/*
	 * rte_lpm takes depths 1 to 32 only: a default route (/0) goes in
	 * as its two /1 halves, before every other route, so that a /1 of
	 * the configuration still replaces its half.  The next hop is the
	 * route's index; each engine maps it to its own group and key.
	 */
	for (i = 0; i < 2 * c->nb_routes; i++) {
		const struct sw_route_config *r = &c->routes[i % c->nb_routes];
		uint32_t id = i % c->nb_routes;

		if ((r->depth == 0) != (i < c->nb_routes))
			continue;
		if (r->depth == 0) {
			rc = rte_lpm_add(fib, 0, 1, id);
			if (rc == 0)
				rc = rte_lpm_add(fib, UINT32_C(1) << 31, 1, id);
		} else {
			rc = rte_lpm_add(fib, r->prefix, r->depth, id);
		}
		if (rc < 0) {
			snprintf(err, err_size, "%s: route %u: rte_lpm_add failed: %s",
				 c->path ? c->path : "config", id,
				 strerror(-rc));
			goto fail;
		}
	}
	/* The switch's own addresses are delivered locally (not forwarded). */
	for (i = 0; i < c->nb_ports; i++) {
		if (c->ports[i].ip == 0)
			continue;
		rc = rte_lpm_add(fib, c->ports[i].ip, 32, SW_ROUTE_LOCAL);
		if (rc < 0) {
			snprintf(err, err_size, "port %u: cannot add its address to the FIB: %s",
				 i, strerror(-rc));
			goto fail;
		}
	}
	return fib;
fail:
	rte_lpm_free(fib);
	return NULL;
}

void
sw_fib_free(struct rte_lpm *fib)
{
	rte_lpm_free(fib);
}

