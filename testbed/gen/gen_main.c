/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofan-testbed-gen: one experiment file (the format ofan-fabric reads), a
 * multi-process testbed out of it.  The topology, addresses, groups,
 * routes and destination keys are ofan-fabric's own (fab_topo.c); what
 * differs is the ports: veth pairs in network namespaces (net_af_packet),
 * net_memif sockets between processes, or physical ports / SR-IOV VFs of
 * several machines listed in an inventory.  It writes, in --out DIR:
 *   switch-NAME.ini   one ofan-switch configuration per switch;
 *   hosts-GROUP.ini   one ofan-host configuration per host process (all
 *                     hosts in one process for veth and memif; the hosts
 *                     of each machine for sriov);
 *   plan.txt          what the launcher does, one action per line:
 *                       netns NS | veth IF_A NS_A IF_B NS_B |
 *                       switch NAME NS LCORE CONFIG |
 *                       hosts NAME NS LCORE CONFIG | machine NAME SSH DIR
 * Sections [host], [host.*], [recovery.*], [cc.*], [traffic], [job.*], the
 * switch policies' sections and [queue] are copied from the experiment
 * file as they are (a job's Chakra traces named by their absolute path),
 * so every key means what it means to ofan-host and ofan-switch (with the
 * values of the run's sweep combination, --run N, written after them);
 * links become switch-shaped rates ([queue] rate).  [failure.NAME] sections
 * become the switches' own failure and reroute schedules (gen_sched.h).
 * A frame model ([fabric] data_wire_bytes, ack_wire_bytes) is refused:
 * real links cost what Ethernet costs; so are [queue.LAYER] sections.
 * --list-runs prints the sweep combinations, one per line.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fab_model.h"
#include "gen_sched.h"
#include "hs_cm.h"
#include "hs_job.h"
#include "hs_pattern.h"
#include "hs_traffic.h"
#include "lb.h"
#include "ofan_config.h"
#include "ofan_version.h"

enum gen_mode { GEN_VETH = 0, GEN_MEMIF, GEN_SRIOV };
static const char *const gen_mode_names[] = { "veth", "memif", "sriov", NULL };

struct gen_opts {
	const char *config;
	const char *out;
	const char *scheme;
	const char *tag;	/* prefix of interface and namespace names */
	const char *inventory;	/* sriov */
	const char *sock_dir;	/* memif */
	const char *pmd;	/* veth: af_packet or af_xdp */
	enum gen_mode mode;
	uint32_t run;		/* the sweep combination */
	bool list_runs;
};

/* Where a node runs with sriov: the inventory's view. */
struct gen_node {
	char machine[FAB_NAME_SIZE];
	char pci[SW_MAX_ETHPORTS][32];
	uint16_t nb_pci;
	uint32_t lcore;
};

struct gen {
	struct gen_opts o;
	const struct fab_params *p;
	const struct fab_scheme *sc;
	struct fab_topo t;
	struct gen_sched *sched;
	FILE *plan;
	/* sriov */
	struct ofan_cfg *inv;
	struct gen_node *sw_node;	/* per switch */
	struct gen_node *host_node;	/* per rank */
};

/*
 * Copy sections of the experiment file whose name matches, as written,
 * but for the lines rewrite() (may be NULL) writes itself.
 */
static int
gen_copy_sections(FILE *out, const char *path, bool (*want)(const char *sec),
		  bool (*rewrite)(FILE *out, const char *sec, const char *line,
				  const void *arg), const void *arg)
{
	char line[1024], sec[256] = "";
	bool on = false;
	FILE *in = fopen(path, "r");

	if (in == NULL)
		return -errno;
	while (fgets(line, sizeof(line), in) != NULL) {
		const char *l = line;
		const char *close;

		while (*l == ' ' || *l == '\t')
			l++;
		if (*l == '[' && (close = strchr(l, ']')) != NULL) {
			snprintf(sec, sizeof(sec), "%.*s", (int)(close - l - 1),
				 l + 1);
			on = want(sec);
			if (on)
				fputc('\n', out);
		}
		if (on && (rewrite == NULL || !rewrite(out, sec, l, arg)))
			fputs(line, out);
	}
	fclose(in);
	return 0;
}

/*
 * The run's sweep values of the sections want() takes, after the copies
 * of those sections: a key written twice keeps its last value.
 */
static void
gen_sweep_sets(FILE *out, const struct fab_params *p,
	       bool (*want)(const char *sec))
{
	char sec[sizeof(p->sweep_set[0])];
	uint16_t i;

	for (i = 0; i < p->nb_sweep_sets; i++) {
		const char *set = p->sweep_set[i];
		const char *eq = strchr(set, '=');
		const char *dot;

		if (eq == NULL)
			continue;
		snprintf(sec, sizeof(sec), "%.*s", (int)(eq - set), set);
		dot = strrchr(sec, '.');
		if (dot == NULL)
			continue;
		sec[dot - sec] = '\0';
		if (want(sec))
			fprintf(out, "\n; This run's sweep value.\n[%s]\n%.*s = %s\n",
				sec, (int)(eq - set) - (int)(dot - sec) - 1,
				set + (dot - sec) + 1, eq + 1);
	}
}

static bool
gen_want_host(const char *sec)
{
	return strcmp(sec, "host") == 0 || strncmp(sec, "host.", 5) == 0 ||
		strncmp(sec, "recovery.", 9) == 0 ||
		strncmp(sec, "cc.", 3) == 0 ||
		strcmp(sec, "traffic") == 0 || strncmp(sec, "job.", 4) == 0;
}

/*
 * A job made of Chakra traces names them relative to the experiment
 * file; the hosts' config lives elsewhere, so the copy of a [job.NAME]
 * section gets the traces' absolute PREFIX instead of the line that sets
 * it (the loader found PREFIX.0.et, so its folder exists).  True when
 * the line was written here.
 */
static bool
gen_job_trace(FILE *out, const char *sec, const char *line, const void *arg)
{
	const struct hs_config *h = arg;
	const struct hs_jobs_settings *js = hs_jobs_of(h->traffic.pattern,
						       &h->pattern_set);
	char dir[sizeof(js->jobs[0].trace)];
	const char *base;
	size_t n = strcspn(line, " \t=");
	char *abs;
	uint32_t i;

	if (strncmp(sec, "job.", 4) != 0 || n != 5 ||
	    strncmp(line, "trace", 5) != 0)
		return false;
	for (i = 0; js != NULL && i < js->nb; i++) {
		const struct hs_job_params *j = &js->jobs[i];

		if (strcmp(j->name, sec + 4) != 0 || j->model != HS_JOB_CHAKRA)
			continue;
		base = strrchr(j->trace, '/');
		snprintf(dir, sizeof(dir), "%.*s",
			 base == NULL ? 1 : (int)(base - j->trace),
			 base == NULL ? "." : j->trace);
		abs = realpath(dir[0] != '\0' ? dir : "/", NULL);
		fprintf(out, "trace = %s/%s ; the experiment's, from anywhere\n",
			abs != NULL ? abs : dir,
			base == NULL ? j->trace : base + 1);
		free(abs);
		return true;
	}
	return false;
}

static bool
gen_want_switch(const char *sec)
{
	int i;

	for (i = 0; lb_registry[i] != NULL; i++)
		if (strcmp(sec, lb_registry[i]->name) == 0)
			return true;
	return strcmp(sec, "queue") == 0;
}

static void
gen_mac(FILE *f, const char *key, const uint8_t m[6])
{
	fprintf(f, "%s = %02x:%02x:%02x:%02x:%02x:%02x\n", key, m[0], m[1],
		m[2], m[3], m[4], m[5]);
}

/* Interface name of link l's end e (<= 15 characters). */
static void
gen_ifname(const struct gen *g, uint32_t l, int e, char *buf, size_t size)
{
	snprintf(buf, size, "%.6sl%u%c", g->o.tag, l, e ? 'b' : 'a');
}

/* Namespace of a switch, and of the hosts. */
static void
gen_ns(const struct gen *g, bool host, uint32_t node, char *buf, size_t size)
{
	if (host)
		snprintf(buf, size, "%.8s-hosts", g->o.tag);
	else
		snprintf(buf, size, "%.8s-%.40s", g->o.tag, g->t.sw[node].name);
}

/* The ethdev of link l's end e, counted as the nb-th port of its process. */
static void
gen_dev(const struct gen *g, uint32_t l, int e, uint16_t nb, char *buf,
	size_t size)
{
	const struct fab_link_desc *k = &g->t.links[l];
	char ifn[32];

	switch (g->o.mode) {
	case GEN_VETH:
		gen_ifname(g, l, e, ifn, sizeof(ifn));
		/* af_packet's default 512-frame ring overflows silently on a
		 * busy 2-core machine; 2048 frames do not. */
		snprintf(buf, size, "net_%s%u,iface=%s%s", g->o.pmd, nb, ifn,
			 strcmp(g->o.pmd, "af_packet") == 0 ?
			 ",framecnt=2048" : "");
		break;
	case GEN_MEMIF:
		/* The upper end serves, the lower connects. */
		snprintf(buf, size,
			 "net_memif%u,role=%s,socket=%s/%sl%u.sock,socket-abstract=no",
			 nb, e ? "server" : "client", g->o.sock_dir, g->o.tag,
			 l);
		break;
	default: {
		const struct gen_node *n = k->is_host[e] ?
			&g->host_node[k->node[e]] : &g->sw_node[k->node[e]];
		uint16_t i = k->is_host[e] ? 0 : k->port[e];

		snprintf(buf, size, "%s", i < n->nb_pci ? n->pci[i] : "?");
		break;
	}
	}
}

static int
gen_switch(struct gen *g, uint32_t s, uint16_t lcore)
{
	const struct sw_config *c = &g->t.cfg[s];
	const struct fab_switch_desc *d = &g->t.sw[s];
	char path[600], dev[300], ns[96];
	uint16_t i, m;
	uint32_t r;
	FILE *f;

	snprintf(path, sizeof(path), "%s/switch-%s.ini", g->o.out, d->name);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	fprintf(f, "; %s of %s (%s), generated by ofan-testbed-gen for %s links.\n",
		d->name, g->p->name, g->o.config, gen_mode_names[g->o.mode]);
	fprintf(f, "[switch]\nname = %s\npolicy = %s\nseed = %llu\ntier = %u\nstats_interval = 0\n",
		d->name, g->sc->sw_policy->name,
		(unsigned long long)c->seed, c->tier);
	if (gen_copy_sections(f, g->o.config, gen_want_switch, NULL,
			      NULL) != 0)
		goto fail;
	gen_sweep_sets(f, g->p, gen_want_switch);
	fprintf(f, "\n; Every port shaped to its link's rate (links are faster).\n");
	for (i = 0; i < c->nb_ports; i++) {
		uint32_t l = d->link[i];
		const struct fab_link_desc *k = &g->t.links[l];
		int e = k->node[0] == s && !k->is_host[0] && k->port[0] == i ?
			0 : 1;

		gen_dev(g, l, e, i, dev, sizeof(dev));
		fprintf(f, "[port.%u]\ndev = %s\n", i, dev);
		if (g->o.mode != GEN_SRIOV) {
			gen_mac(f, "mac", c->ports[i].mac);
			gen_mac(f, "peer_mac", c->ports[i].peer_mac);
		}
		fprintf(f, "rate = %llu\n", (unsigned long long)k->rate_bps);
	}
	for (i = 0; i < c->nb_groups; i++) {
		const struct sw_group_config *gc = &c->groups[i];

		const uint16_t *w = gen_sched_weights(g->sched, s, i);
		bool ones = true;

		fprintf(f, "[group.%s]\nmembers = ", gc->name);
		for (m = 0; m < gc->nb_members; m++) {
			fprintf(f, "%s%u", m ? ", " : "", gc->port[m]);
			ones = ones && w[m] == 1;
		}
		fprintf(f, "\n");
		if (ones)
			continue;
		/* Live paths through each member (the shares, as 1s give). */
		fprintf(f, "weights = ");
		for (m = 0; m < gc->nb_members; m++)
			fprintf(f, "%s%u", m ? ", " : "", w[m]);
		fprintf(f, "\n");
	}
	for (r = 0; r < c->nb_routes; r++) {
		const struct sw_route_config *rc = &c->routes[r];

		fprintf(f, "[route.h%u]\nprefix = %u.%u.%u.%u/%u\ngroup = %s\ndst_key = %u\n",
			r, rc->prefix >> 24, (rc->prefix >> 16) & 255,
			(rc->prefix >> 8) & 255, rc->prefix & 255, rc->depth,
			c->groups[rc->group].name, rc->dst_key);
	}
	if (gen_sched_write(g->sched, s, f) != 0)
		goto fail;
	if (fclose(f) != 0)
		return -EIO;
	gen_ns(g, false, s, ns, sizeof(ns));
	if (g->o.mode == GEN_SRIOV)
		fprintf(g->plan, "switch %s %s %u switch-%s.ini\n", d->name,
			g->sw_node[s].machine, g->sw_node[s].lcore, d->name);
	else
		fprintf(g->plan, "switch %s %s %u switch-%s.ini\n", d->name,
			g->o.mode == GEN_VETH ? ns : "-", lcore, d->name);
	return 0;
fail:
	fclose(f);
	return -EIO;
}

/* One ofan-host configuration for the ranks r with pick(r) true. */
static int
gen_hosts(struct gen *g, const char *name, const char *machine,
	  uint16_t lcore, bool (*pick)(const struct gen *, uint32_t,
				       const char *), const char *key)
{
	const struct fab_topo *t = &g->t;
	const char *cm = hs_cm_path_of(g->p->host.traffic.pattern,
				       &g->p->host.pattern_set);
	char path[600], dev[300], ns[96];
	uint16_t nb = 0;
	uint32_t r;
	FILE *f;

	snprintf(path, sizeof(path), "%s/hosts-%s.ini", g->o.out, name);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	fprintf(f, "; Hosts of %s (%s), generated by ofan-testbed-gen for %s links.\n",
		g->p->name, g->o.config, gen_mode_names[g->o.mode]);
	if (gen_copy_sections(f, g->o.config, gen_want_host, gen_job_trace,
			      &g->p->host) != 0) {
		fclose(f);
		return -EIO;
	}
	gen_sweep_sets(f, g->p, gen_want_host);
	fprintf(f, "\n; Set by the experiment's [fabric] for the scheme %s:\n",
		g->sc->name);
	fprintf(f, "[host]\npolicy = %s\nrate = %llu\nmtu = %u\nseed = %llu\n",
		g->sc->host_policy->name, (unsigned long long)g->p->rate_bps,
		g->p->host.set.mtu, (unsigned long long)g->p->host.set.seed);
	fprintf(f, "[traffic]\nseed = %llu\n",
		(unsigned long long)g->p->host.traffic.seed);
	fprintf(f, "[ranks]\ncount = %u\nip_base = 10.0.0.1\nper_subnet = %u\n",
		t->nb_hosts, g->p->host.set.per_subnet);
	/* What ofan-fabric derives from the topology, ofan-host is told
	 * (jobs place their ranks ToR by ToR). */
	if (g->p->host.traffic.pattern->needs_topology ||
	    hs_jobs_of(g->p->host.traffic.pattern,
		       &g->p->host.pattern_set) != NULL)
		fprintf(f, "[traffic]\ntor_size = %u\npod_size = %u\n",
			g->p->host.traffic.tor_size,
			g->p->host.traffic.pod_size);
	if (cm != NULL) {
		char *abs = realpath(cm, NULL);

		fprintf(f, "[traffic]\ncm_file = %s\n", abs != NULL ? abs : cm);
		free(abs);
	}
	for (r = 0; r < t->nb_hosts; r++) {
		const struct fab_link_desc *k = &t->links[t->host_link[r]];

		if (!pick(g, r, key))
			continue;
		gen_dev(g, t->host_link[r], 0, nb, dev, sizeof(dev));
		fprintf(f, "[port.%u]\ndev = %s\nrank = %u\n", nb, dev, r);
		if (g->o.mode != GEN_SRIOV && t->kind != FAB_TOPO_B2B) {
			const uint8_t *gw =
				t->cfg[k->node[1]].ports[k->port[1]].peer_mac;

			gen_mac(f, "mac", gw);
			gen_mac(f, "gateway_mac",
				t->cfg[k->node[1]].ports[k->port[1]].mac);
		}
		nb++;
	}
	if (fclose(f) != 0)
		return -EIO;
	gen_ns(g, true, 0, ns, sizeof(ns));
	fprintf(g->plan, "hosts %s %s %u hosts-%s.ini\n", name,
		g->o.mode == GEN_SRIOV ? machine :
		g->o.mode == GEN_VETH ? ns : "-", lcore, name);
	return 0;
}

static bool
gen_pick_all(const struct gen *g, uint32_t r, const char *key)
{
	(void)g;
	(void)r;
	(void)key;
	return true;
}

static bool
gen_pick_machine(const struct gen *g, uint32_t r, const char *machine)
{
	return strcmp(g->host_node[r].machine, machine) == 0;
}

/* [sec] key's value (NULL: none) is one word: 0, or -EINVAL naming it. */
static int
gen_one_word(struct ofan_cfg *inv, const char *sec, const char *key,
	     const char *value)
{
	if (value == NULL || strchr(value, ' ') == NULL)
		return 0;
	return ofan_cfg_fail(inv, sec, key,
		"'%s' contains a space; expected a single word", value);
}

/*
 * The inventory (sriov): [machine.NAME] ssh = user@addr, dir = path,
 * bin = directory of the ofan binaries (default dir), eal = extra EAL
 * arguments, comma separated (e.g. --socket-mem,1024);
 * [node.NAME] machine = NAME, ports = PCI, PCI, ... (a switch's ports in
 * port order, or a host's one port), lcore = N.
 */
static int
gen_inventory(struct gen *g, char *err, size_t err_size)
{
	struct ofan_cfg *inv = ofan_cfg_load(g->o.inventory, err, err_size);
	const struct fab_topo *t = &g->t;
	uint32_t i, n = t->nb_switches + t->nb_hosts;
	int rc = 0;

	if (inv == NULL)
		return -EINVAL;
	g->inv = inv;
	g->sw_node = calloc(t->nb_switches + 1, sizeof(*g->sw_node));
	g->host_node = calloc(t->nb_hosts, sizeof(*g->host_node));
	if (g->sw_node == NULL || g->host_node == NULL)
		return -ENOMEM;
	for (i = 0; i < n && rc == 0; i++) {
		bool host = i >= t->nb_switches;
		struct gen_node *node = host ? &g->host_node[i - t->nb_switches] :
			&g->sw_node[i];
		char sec[96], msec[96];
		const char *machine = NULL, *ports = NULL;
		uint16_t want = host ? 1 : t->sw[i].nb_ports;
		char buf[2048], *save = NULL, *tok;

		if (host)
			snprintf(sec, sizeof(sec), "node.h%u",
				 i - t->nb_switches);
		else
			snprintf(sec, sizeof(sec), "node.%s", t->sw[i].name);
		if (ofan_cfg_get_str(inv, sec, "machine", OFAN_CFG_REQUIRED,
				     &machine) ||
		    ofan_cfg_get_str(inv, sec, "ports", OFAN_CFG_REQUIRED,
				     &ports) ||
		    ofan_cfg_get_u32(inv, sec, "lcore", 0, 0, 1023,
				     &node->lcore)) {
			rc = -EINVAL;
			break;
		}
		snprintf(msec, sizeof(msec), "machine.%s", machine);
		if (!ofan_cfg_has_section(inv, msec)) {
			rc = ofan_cfg_fail(inv, sec, "machine",
				"'%s' has no [%s] section; expected a machine of the inventory",
				machine, msec);
			break;
		}
		snprintf(node->machine, sizeof(node->machine), "%s", machine);
		snprintf(buf, sizeof(buf), "%s", ports);
		for (tok = strtok_r(buf, ", ", &save); tok != NULL;
		     tok = strtok_r(NULL, ", ", &save)) {
			if (node->nb_pci == SW_MAX_ETHPORTS)
				break;
			snprintf(node->pci[node->nb_pci++], 32, "%s", tok);
		}
		if (node->nb_pci != want)
			rc = ofan_cfg_fail(inv, sec, "ports",
				"'%s' lists %u port(s); expected %u (one per %s port, in port order)",
				ports, node->nb_pci, want,
				host ? "host" : "switch");
	}
	if (rc == 0) {
		/* Read the machines, so that unknown keys are caught. */
		const char *secs[64];
		int nm = ofan_cfg_sections(inv, "machine.", secs, 64), j;

		for (j = 0; j < nm && j < 64 && rc == 0; j++) {
			const char *ssh = NULL, *dir = NULL, *bin = NULL;
			const char *eal = "";

			if (ofan_cfg_get_str(inv, secs[j], "ssh",
					     OFAN_CFG_REQUIRED, &ssh) ||
			    ofan_cfg_get_str(inv, secs[j], "dir",
					     OFAN_CFG_REQUIRED, &dir) ||
			    ofan_cfg_get_str(inv, secs[j], "bin", 0, &bin) ||
			    ofan_cfg_get_str(inv, secs[j], "eal", 0, &eal)) {
				rc = -EINVAL;
				break;
			}
			if (gen_one_word(inv, secs[j], "ssh", ssh) ||
			    gen_one_word(inv, secs[j], "dir", dir) ||
			    gen_one_word(inv, secs[j], "bin", bin)) {
				rc = -EINVAL;
				break;
			}
			fprintf(g->plan, "machine %s %s %s %s %s\n",
				secs[j] + 8, ssh, dir, bin != NULL ? bin : dir,
				eal[0] != 0 ? eal : "-");
		}
		if (rc == 0)
			rc = ofan_cfg_check_unknown(inv);
	}
	if (rc != 0)
		snprintf(err, err_size, "%s", ofan_cfg_error(inv));
	return rc;
}

/* --list-runs: "N NAME=VALUE ..." per combination ("0 -": no sweeps). */
static void
gen_list_runs(const struct fab_experiment *x)
{
	uint32_t c;
	uint16_t d;

	for (c = 0; c < x->nb_combos; c++) {
		const struct fab_params *p = &x->combos[c];

		printf("%u", c);
		for (d = 0; d < p->nb_sweep; d++)
			printf(" %s=%s", p->sweep_name[d], p->sweep_value[d]);
		printf("%s\n", p->nb_sweep == 0 ? " -" : "");
	}
}

static void
gen_usage(FILE *f)
{
	fprintf(f,
		"usage: ofan-testbed-gen --config EXPERIMENT.ini --mode veth|memif|sriov --out DIR\n"
		"                        [--scheme NAME] [--tag TAG] [--sock-dir DIR]\n"
		"                        [--inventory FILE] [--pmd af_packet|af_xdp]\n"
		"       ofan-testbed-gen --help | --version\n"
		"  Writes one ofan-switch config per switch, ofan-host configs and plan.txt\n"
		"  (see testbed/testbed.sh, which runs them).\n"
		"  --scheme NAME      one of the experiment's schemes (default: the first)\n"
		"  --tag TAG          prefix of interface/namespace/socket names (<= 6 chars)\n"
		"  --sock-dir DIR     memif: directory of the sockets (default: --out)\n"
		"  --inventory FILE   sriov: machines and PCI addresses (see docs/testbed.md)\n"
		"  --pmd PMD          veth: af_packet (default) or af_xdp\n"
		"  --run N            the experiment's N-th sweep combination (default 0)\n"
		"  --list-runs        print the sweep combinations, \"N NAME=VALUE ...\"\n"
		"                     (\"0 -\" without sweeps), and exit\n");
}

/*
 * What only ofan-fabric's wire does, which a testbed's switches cannot:
 * failures that act one way or return to routing later.  Refused with
 * the section and key; 0 when none.  (Lossy links become the sending
 * switch's [drop.*]: gen_sched.c.)
 */
static int
gen_wire_only(const struct gen *g)
{
	const char *key = NULL, *why = NULL;
	uint16_t i;

	for (i = 0; i < g->p->nb_failures; i++) {
		const struct fab_failure *f = &g->p->failures[i];

		if (f->one_way) {
			key = "one_way";
			why = "'yes' is ofan-fabric's wire; expected no (a switch's port fails both ways)";
		} else if (f->route_back_ns != 0) {
			key = "route_back";
			why = "is ofan-fabric's routing; expected 0 (routing takes the link back when it returns)";
		}
		if (key != NULL) {
			fprintf(stderr, "ofan-testbed-gen: %s:%s:%s: %s in a testbed\n",
				g->o.config, f->sec, key, why);
			return -1;
		}
	}
	return 0;
}

/* gen_parse_args(), gen_check_opts(), gen_load(): go on. */
#define GEN_CONTINUE (-1)

/*
 * The command line into *o, defaults first.  Returns GEN_CONTINUE, or
 * the exit status when the process ends here: 0 after --help, 2 after a
 * bad option (said on stderr).
 */
static int
gen_parse_args(struct gen_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' },
		{ "out", required_argument, NULL, 'o' },
		{ "scheme", required_argument, NULL, 's' },
		{ "tag", required_argument, NULL, 't' },
		{ "sock-dir", required_argument, NULL, 'd' },
		{ "inventory", required_argument, NULL, 'i' },
		{ "pmd", required_argument, NULL, 'p' },
		{ "run", required_argument, NULL, 'r' },
		{ "list-runs", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i;

	o->tag = "oft";
	o->pmd = "af_packet";
	o->mode = GEN_VETH;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case 'o': o->out = optarg; break;
		case 's': o->scheme = optarg; break;
		case 't': o->tag = optarg; break;
		case 'd': o->sock_dir = optarg; break;
		case 'i': o->inventory = optarg; break;
		case 'p': o->pmd = optarg; break;
		case 'l': o->list_runs = true; break;
		case 'r': {
			uint64_t v;

			if (ofan_parse_u64(optarg, &v) != 0 || v > UINT32_MAX) {
				fprintf(stderr, "ofan-testbed-gen: --run '%s'; expected a combination number (--list-runs)\n",
					optarg);
				return 2;
			}
			o->run = (uint32_t)v;
			break;
		}
		case 'm':
			for (i = 0; gen_mode_names[i] != NULL; i++)
				if (strcmp(optarg, gen_mode_names[i]) == 0)
					break;
			if (gen_mode_names[i] == NULL) {
				fprintf(stderr, "ofan-testbed-gen: --mode '%s'; expected veth, memif or sriov\n",
					optarg);
				return 2;
			}
			o->mode = (enum gen_mode)i;
			break;
		case 'h':
			gen_usage(stdout);
			return 0;
		default:
			gen_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ofan-testbed-gen: '%s': unexpected argument; expected options only (it takes no overrides: write them in the experiment file)\n",
			argv[optind]);
		return 2;
	}
	return GEN_CONTINUE;
}

/*
 * The options together: --config and --out (--inventory with sriov)
 * given, --tag and --pmd valid; --sock-dir defaults to --out.  Returns
 * GEN_CONTINUE, or the exit status 2 after a message on stderr.
 */
static int
gen_check_opts(struct gen_opts *o)
{
	if (o->config == NULL || (o->out == NULL && !o->list_runs) ||
	    (o->mode == GEN_SRIOV && o->inventory == NULL &&
	     !o->list_runs)) {
		fprintf(stderr, "ofan-testbed-gen: --config and --out are required (and --inventory with --mode sriov)\n");
		return 2;
	}
	if (strlen(o->tag) > 6 || strspn(o->tag,
		"abcdefghijklmnopqrstuvwxyz0123456789") != strlen(o->tag)) {
		fprintf(stderr, "ofan-testbed-gen: --tag '%s'; expected 1 to 6 lower-case letters or digits\n",
			o->tag);
		return 2;
	}
	if (strcmp(o->pmd, "af_packet") != 0 && strcmp(o->pmd, "af_xdp") != 0) {
		fprintf(stderr, "ofan-testbed-gen: --pmd '%s'; expected af_packet or af_xdp\n",
			o->pmd);
		return 2;
	}
	if (o->sock_dir == NULL)
		o->sock_dir = o->out;
	return GEN_CONTINUE;
}

/*
 * The experiment file into *x, and --list-runs' answer or --run's
 * check.  Returns GEN_CONTINUE with *x loaded (the caller frees it), or
 * the exit status (0 after --list-runs, 2 on a mistake) with *x freed.
 */
static int
gen_load(const struct gen_opts *o, struct fab_experiment *x, char *err,
	 size_t err_size)
{
	if (fab_experiment_load(o->config, NULL, 0, false, 0, x, err,
				err_size) != 0) {
		fprintf(stderr, "ofan-testbed-gen: %s\n", err);
		return 2;
	}
	hs_config_moved_warn(x->moved, "ofan-testbed-gen", stderr);
	if (o->list_runs) {
		gen_list_runs(x);
		fab_experiment_free(x);
		return 0;
	}
	if (o->run >= x->nb_combos) {
		fprintf(stderr, "ofan-testbed-gen: --run %u; %s has %u combination(s), 0 to %u\n",
			o->run, o->config, x->nb_combos, x->nb_combos - 1);
		fab_experiment_free(x);
		return 2;
	}
	return GEN_CONTINUE;
}

/*
 * The run's combination (g->p) and scheme (g->sc), refused where a
 * testbed cannot follow them: ofan-fabric's frame model, per-layer
 * queues, the wire's own failures.  Returns 0, or 2 after a message on
 * stderr.
 */
static int
gen_pick_run(struct gen *g, const struct fab_experiment *x)
{
	int i;

	g->p = &x->combos[g->o.run];
	if (g->p->data_wire_bytes != 0 || g->p->ack_wire_bytes != 0 ||
	    g->p->header_wire_bytes != 0) {
		/* A testbed's links are real: frames cost what Ethernet costs. */
		const char *key = g->p->data_wire_bytes != 0 ?
			"data_wire_bytes" : g->p->ack_wire_bytes != 0 ?
			"ack_wire_bytes" : "header_wire_bytes";
		uint32_t v = g->p->data_wire_bytes != 0 ?
			g->p->data_wire_bytes : g->p->ack_wire_bytes != 0 ?
			g->p->ack_wire_bytes : g->p->header_wire_bytes;

		fprintf(stderr, "ofan-testbed-gen: %s:fabric:%s: '%u' is ofan-fabric's frame model, which real links cannot follow; expected 0 (frames cost their bytes and 24) in a testbed\n",
			g->o.config, key, v);
		return 2;
	}
	if (g->p->queue_layer_set != 0) {
		/* Per-layer queues would be per-port keys of each switch. */
		int l = __builtin_ctz(g->p->queue_layer_set);

		fprintf(stderr, "ofan-testbed-gen: %s:queue.%s: per-layer queue sections are ofan-fabric's; expected one [queue] for every switch in a testbed\n",
			g->o.config, fab_layer_name(g->p->topo,
						    (enum fab_layer)l));
		return 2;
	}
	if (gen_wire_only(g) != 0)
		return 2;
	g->sc = &g->p->schemes[0];
	for (i = 0; g->o.scheme != NULL && i < g->p->nb_schemes; i++)
		if (strcmp(g->p->schemes[i].name, g->o.scheme) == 0)
			g->sc = &g->p->schemes[i];
	if (g->o.scheme != NULL && strcmp(g->sc->name, g->o.scheme) != 0) {
		fprintf(stderr, "ofan-testbed-gen: --scheme '%s' is not in %s:fabric:schemes\n",
			g->o.scheme, g->o.config);
		return 2;
	}
	return 0;
}

/*
 * Once the topology is built: the switches' schedules (g->sched), the
 * --out folder and plan.txt (g->plan) with its header line.  Returns 0,
 * or 2 after a message on stderr with g->plan not open; g->sched (NULL
 * or made) is the caller's to free either way.
 */
static int
gen_open_plan(struct gen *g, uint32_t nb_combos, char *err, size_t err_size)
{
	char path[600];
	uint32_t nf, nr;

	g->sched = gen_sched_build(g->p, &g->t, err, err_size);
	if (g->sched == NULL) {
		fprintf(stderr, "ofan-testbed-gen: %s:%s\n", g->o.config, err);
		return 2;
	}
	if (mkdir(g->o.out, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "ofan-testbed-gen: cannot create %s: %s\n",
			g->o.out, strerror(errno));
		return 2;
	}
	snprintf(path, sizeof(path), "%s/plan.txt", g->o.out);
	g->plan = fopen(path, "w");
	if (g->plan == NULL) {
		fprintf(stderr, "ofan-testbed-gen: cannot write %s: %s\n",
			path, strerror(errno));
		return 2;
	}
	gen_sched_counts(g->sched, &nf, &nr);
	fprintf(g->plan, "# %s, scheme %s, %s links: %u switches, %u hosts, run %u of %u, %u failure(s), %u reroute(s)\n",
		g->p->name, g->sc->name, gen_mode_names[g->o.mode],
		g->t.nb_switches, g->t.nb_hosts, g->o.run, nb_combos, nf, nr);
	return 0;
}

/* veth: the plan's namespaces (each switch's, the hosts') and veth pairs. */
static void
gen_plan_veth(struct gen *g)
{
	char ns[96], ia[32], ib[32], na[96], nb[96];
	uint32_t s, l;

	for (s = 0; s < g->t.nb_switches; s++) {
		gen_ns(g, false, s, ns, sizeof(ns));
		fprintf(g->plan, "netns %s\n", ns);
	}
	gen_ns(g, true, 0, ns, sizeof(ns));
	fprintf(g->plan, "netns %s\n", ns);
	for (l = 0; l < g->t.nb_links; l++) {
		const struct fab_link_desc *k = &g->t.links[l];

		gen_ifname(g, l, 0, ia, sizeof(ia));
		gen_ifname(g, l, 1, ib, sizeof(ib));
		gen_ns(g, k->is_host[0], k->node[0], na, sizeof(na));
		gen_ns(g, k->is_host[1], k->node[1], nb, sizeof(nb));
		fprintf(g->plan, "veth %s %s %s %s\n", ia, na, ib, nb);
	}
}

/*
 * sriov: one ofan-host configuration per machine of the inventory that
 * runs hosts, on the lcore of its last host.  Returns 0 or 2.
 */
static int
gen_hosts_per_machine(struct gen *g)
{
	const char *secs[64];
	int nm = ofan_cfg_sections(g->inv, "machine.", secs, 64), j;
	int rc = 0;

	for (j = 0; j < nm && j < 64 && rc == 0; j++) {
		uint32_t r, lc = 0;
		bool any = false;

		for (r = 0; r < g->t.nb_hosts; r++)
			if (gen_pick_machine(g, r, secs[j] + 8)) {
				any = true;
				lc = g->host_node[r].lcore;
			}
		if (any && gen_hosts(g, secs[j] + 8, secs[j] + 8,
				     (uint16_t)lc, gen_pick_machine,
				     secs[j] + 8) != 0)
			rc = 2;
	}
	return rc;
}

/*
 * The body of plan.txt and the configurations: the inventory (sriov),
 * the namespaces and veth pairs (veth), one ofan-switch configuration
 * per switch, then the hosts'.  Returns 0, or 2 after a message on
 * stderr; closing g->plan is the caller's.
 */
static int
gen_write_plan(struct gen *g, char *err, size_t err_size)
{
	uint32_t s;
	int rc = 0;

	if (g->o.mode == GEN_SRIOV &&
	    gen_inventory(g, err, err_size) != 0) {
		fprintf(stderr, "ofan-testbed-gen: %s\n", err);
		return 2;
	}
	if (g->o.mode == GEN_VETH)
		gen_plan_veth(g);
	for (s = 0; s < g->t.nb_switches && rc == 0; s++)
		if (gen_switch(g, s, (uint16_t)(s % 2)) != 0)
			rc = 2;
	if (rc == 0 && g->o.mode != GEN_SRIOV) {
		if (gen_hosts(g, "all", NULL, 1, gen_pick_all, NULL) != 0)
			rc = 2;
	} else if (rc == 0) {
		rc = gen_hosts_per_machine(g);
	}
	if (rc != 0)
		fprintf(stderr, "ofan-testbed-gen: cannot write the configurations in %s\n",
			g->o.out);
	return rc;
}

int
main(int argc, char **argv)
{
	struct gen g;
	struct fab_experiment x;
	char err[1024] = "";
	int rc;

	if (ofan_version_asked(argc, argv))
		return ofan_version_print("ofan-testbed-gen");
	memset(&g, 0, sizeof(g));
	rc = gen_parse_args(&g.o, argc, argv);
	if (rc == GEN_CONTINUE)
		rc = gen_check_opts(&g.o);
	if (rc == GEN_CONTINUE)
		rc = gen_load(&g.o, &x, err, sizeof(err));
	if (rc != GEN_CONTINUE)
		return rc;
	rc = gen_pick_run(&g, &x);
	if (rc != 0)
		goto out;
	if (fab_topo_build(g.p, g.sc->sw_policy, &g.t, err,
			   sizeof(err)) != 0) {
		fprintf(stderr, "ofan-testbed-gen: %s\n", err);
		rc = 2;
		goto out;
	}
	rc = gen_open_plan(&g, x.nb_combos, err, sizeof(err));
	if (rc != 0)
		goto topo;
	rc = gen_write_plan(&g, err, sizeof(err));
	if (fclose(g.plan) != 0 && rc == 0)
		rc = 2;
topo:
	gen_sched_free(g.sched);
	fab_topo_free(&g.t);
out:
	if (g.inv != NULL)
		ofan_cfg_free(g.inv);
	free(g.sw_node);
	free(g.host_node);
	fab_experiment_free(&x);
	return rc;
}
