#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tables of testbed/testbed.sh, from the JSON of its processes.

  testbed_table.py run DIR MODE HOST_RC   one run: the hosts' line, and a
                                          line per switch
  testbed_table.py runs DIR...            one line per run of a sweep

Where frames were lost: in a device (its RX ring full, bad frames, no
mbuf), in a device's TX ring (tx_full: ports without a software queue), in
an egress queue (queue_full), at a failed link (blackhole, link_down,
no_live_member: what a failure cost), or for another named reason.
"""
import glob
import json
import os
import sys

FAILED = ("blackhole", "link_down", "no_live_member")


def dev_lost(ports):
    """Frames a device lost before any software saw them."""
    return sum(p["device"]["imissed"] + p["device"]["ierrors"] + p["device"]["rx_nombuf"]
               for p in ports if "device" in p)


def load(f):
    """A process's JSON, or None (said on stderr) if it is missing or cut
    short: a process that crashed; the table goes on without it."""
    try:
        with open(f) as fh:
            return json.load(fh)
    except (OSError, ValueError) as e:
        print(f"testbed_table.py: {f}: {e}", file=sys.stderr)
        return None


def switches(d):
    """The switches' JSON of run folder d, by name."""
    for f in sorted(glob.glob(f"{d}/*.json")):
        if not os.path.basename(f).startswith("hosts-"):
            s = load(f)
            if s is not None:
                yield s


def losses(s):
    """(device, txring, queue, failed, other) frames lost by switch s."""
    drops = s.get("drops", {}) if isinstance(s.get("drops"), dict) else {}
    ring, queue = drops.get("tx_full", 0), drops.get("queue_full", 0)
    failed = sum(drops.get(r, 0) for r in FAILED)
    other = sum(drops.values()) - ring - queue - failed
    return dev_lost(s["ports"]), ring, queue, failed, other


def hosts(d):
    return [h for h in (load(f) for f in sorted(glob.glob(f"{d}/hosts-*.json")))
            if h is not None]


def run_table(d, mode, rc):
    plan = open(f"{d}/plan.txt").readline()
    scheme = plan.split("scheme ")[1].split(",")[0] if "scheme " in plan else "?"
    print(f"\n{os.path.basename(d)}: {mode} links, scheme {scheme}")
    for h in hosts(d):
        print(f"hosts: {h['flows_completed']}/{h['flows_sent_here']} flows completed, "
              f"max slowdown {h['max_slowdown']:.2f}, p99 {h['p99_slowdown']:.2f}, "
              f"mean FCT {h['mean_fct_ns'] / 1e3:.1f} us, collective {h['collective_ns'] / 1e3:.1f} us "
              f"(ideal {h['collective_ideal_ns'] / 1e3:.1f}), data_retx {h['data_retx']}, "
              f"timeouts {h['timeouts']}, corrupt_pkts {h['corrupt_pkts']}, wall {h['wall_s']:.2f} s")
        if h.get("ports"):
            print(f"hosts' devices lost {dev_lost(h['ports'])} frames on receive")
    print(f"{'switch':<10} {'policy':<9} {'rx':>9} {'tx':>9} {'qmax':>5} {'ecn':>7} "
          f"{'device':>7} {'txring':>7} {'queue':>7} {'other':>7} {'failed':>7}  "
          "uplink spread (packets per port)")
    for s in switches(d):
        ports = s["ports"]
        dev, ring, queue, failed, other = losses(s)
        print(f"{s['switch']:<10} {s['policy']:<9} {sum(p['rx'] for p in ports):>9} "
              f"{sum(p['tx'] for p in ports):>9} {max(p['queue_max_pkts'] for p in ports):>5} "
              f"{sum(p['ecn_marked'] for p in ports):>7} {dev:>7} {ring:>7} "
              f"{queue:>7} {other:>7} {failed:>7}  "
              + " ".join(str(p["tx"]) for p in ports))
    why = {0: "", 1: "not every byte delivered", 2: "bad input",
           3: "mbufs not returned (af_xdp: a known DPDK 22.11 issue)"}.get(rc, "failed")
    print(f"results: {d}" + (f"  (ofan-host exit status {rc}: {why})" if rc else ""))


def runs_table(dirs):
    print(f"\n{'run':<32} {'flows':>7} {'max sd':>7} {'coll us':>9} {'data_retx':>9} "
          f"{'timeouts':>8} {'failed':>7} {'queue':>6} {'device':>6} {'wall s':>6}")
    for d in dirs:
        hs = hosts(d)
        done = sum(h["flows_completed"] for h in hs)
        total = sum(h["flows_sent_here"] for h in hs)
        lost = [losses(s) for s in switches(d)]
        print(f"{os.path.basename(d)[:32]:<32} {f'{done}/{total}':>7} "
              f"{max((h['max_slowdown'] for h in hs), default=0):>7.2f} "
              f"{max((h['collective_ns'] for h in hs), default=0) / 1e3:>9.1f} "
              f"{sum(h['data_retx'] for h in hs):>9} "
              f"{sum(h['timeouts'] for h in hs):>8} "
              f"{sum(x[3] for x in lost):>7} {sum(x[2] for x in lost):>6} "
              f"{sum(x[0] for x in lost):>6} "
              f"{max((h['wall_s'] for h in hs), default=0):>6.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "run":
        run_table(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) >= 3 and sys.argv[1] == "runs":
        runs_table(sys.argv[2:])
    else:
        sys.exit(__doc__)
