#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The checks and figures of testbed/soak.sh.

  soak_check.py DIR MINUTES

DIR holds the plan, parts.json (testbed/soak_parts.py: each part's name,
kind, recovery model, controller, set-up and the counters that must show
it), and per part NAME-run.json (soak.sh: its exit status, seconds,
iterations) and NAME-driver.json (soak_driver.py: faults, RSS samples);
the switch part's switch.json, a testbed part's NAME/ (testbed.sh's
results).  Checks every part the plan lists, prints its figures and a
row per part, writes DIR/soak.json, exits 1 if any check failed.
"""
import csv
import glob
import json
import os
import sys

# Memory is flat if its last sample is at most this much above the sample
# at a quarter of the process's run (after warm-up: pools, rings, caches).
RSS_SLACK_KIB = 2048
RSS_SLACK_FRAC = 0.02
# Drops a lossless fabric must not have: what a full queue or headroom
# costs (a link down or black-holed loses frames on any fabric).
CONGESTION_DROPS = ("queue_full", "ctrl_queue_full", "pfc_headroom")
# Counters summed over a testbed's switches' ports and hosts.
SWITCH_PORT_SUMS = ("trimmed", "headers_returned", "pfc_pauses_sent",
                    "pfc_resumes_sent", "pfc_pauses_received", "ecn_marked")
HOST_SUMS = ("data_retx", "timeouts", "trimmed_rx", "nacks_sent",
             "nacks_received", "returned_rx", "pfc_pauses_received")


class Part:
    """The failed checks of one part."""

    def __init__(self, name):
        self.name = name
        self.failures = []

    def check(self, ok, what):
        if not ok:
            self.failures.append(what)
        return ok

    def load(self, path):
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            self.check(False, f"{path}: {e}")
            return None


def switch_checks(part, name, s):
    """Mempool back; per port routed = sent + dropped + queued (a port
    that returned trimmed headers to their senders (rts) sent fewer: in
    all, as many fewer as headers were returned, less returned headers
    dropped on their way back for no route); in all received + made
    (ICMP, PFC frames) = sent + dropped + queued + PFC frames acted on."""
    if s is None:
        return {}
    part.check(s["mempool_in_use_end"] == s["mempool_in_use_start"],
               f"{name}: mempool in use {s['mempool_in_use_start']} at "
               f"start, {s['mempool_in_use_end']} at the end")
    ports = s["ports"]
    returned = sum(p.get("headers_returned", 0) for p in ports)
    gap = 0
    for p in ports:
        made = p.get("pfc_pauses_sent", 0) + p.get("pfc_resumes_sent", 0)
        routed = (p["picked"] + p["arp_replies"] + p["icmp_time_exceeded"] +
                  p.get("headers_returned", 0) + made)
        out = p["tx"] + p["drop"] + p["queue_len_at_exit"]
        what = (f"{name}: port {p['port']}: routed {routed} (with "
                f"{p.get('headers_returned', 0)} returned headers, {made} "
                f"PFC frames) != sent {p['tx']} + dropped {p['drop']} + "
                f"queued {p['queue_len_at_exit']}")
        part.check(routed == out if returned == 0 else routed >= out, what)
        gap += routed - out
    if returned:
        lost = s["drops"].get("no_route", 0) + s["drops"].get(
            "no_live_member", 0)
        part.check(returned <= gap <= returned + lost,
                   f"{name}: routed - sent - dropped - queued over the "
                   f"ports is {gap}; expected the {returned} headers "
                   f"returned (and up to {lost} of them dropped for no "
                   "route)")
    rx = sum(p["rx"] for p in ports)
    tx = sum(p["tx"] for p in ports)
    made = sum(p["icmp_time_exceeded"] + p.get("pfc_pauses_sent", 0) +
               p.get("pfc_resumes_sent", 0) for p in ports)
    taken = sum(p.get("pfc_pauses_received", 0) for p in ports)
    queued = sum(p["queue_len_at_exit"] for p in ports)
    dropped = sum(s["drops"].values())
    part.check(rx + made == tx + dropped + queued + taken,
               f"{name}: received {rx} + made {made} != sent {tx} + "
               f"dropped {dropped} + queued {queued} + PFC frames acted "
               f"on {taken}")
    sums = {k: sum(p.get(k, 0) for p in ports) for k in SWITCH_PORT_SUMS}
    return dict(sums, rx=rx, tx=tx, dropped=dropped,
                drops={k: v for k, v in s["drops"].items() if v})


def rss_checks(part, samples):
    """Per process: resident memory at the start, after warm-up (a quarter
    of its run) and at the end, in KiB: in all (VmRSS) and private
    (RssAnon: the heap, where a leak of malloc'd state shows).  The rest
    is shared (RssShmem): EAL's memory (--no-huge) and memif's regions,
    touched as deeper queues first need them and bounded by EAL's -m.
    Private memory must be flat after warm-up; all of it too once the
    process ran a minute or more (a short run may still be warming up).
    """
    out = {}
    for proc, ss in sorted(samples.items()):
        if len(ss) < 4:
            continue    # too short-lived to tell (a process of a few s)
        t0, t1 = ss[0][0], ss[-1][0]
        warm = next(x for x in ss if x[0] >= t0 + (t1 - t0) / 4)
        end = ss[-1]
        out[proc] = {"start_kib": ss[0][1], "warm_kib": warm[1],
                     "end_kib": end[1], "max_kib": max(x[1] for x in ss),
                     "private_warm_kib": warm[2], "private_end_kib": end[2],
                     "shared_end_kib": end[3], "samples": len(ss),
                     "seconds": round(t1 - t0, 1)}
        part.check(end[2] <= warm[2] + max(RSS_SLACK_KIB,
                                           warm[2] * RSS_SLACK_FRAC),
                   f"{proc}: private memory grew from {warm[2]} KiB after "
                   f"warm-up to {end[2]} KiB")
        if t1 - t0 >= 60:
            part.check(end[1] <= warm[1] + max(RSS_SLACK_KIB,
                                               warm[1] * RSS_SLACK_FRAC),
                       f"{proc}: RSS grew from {warm[1]} KiB after warm-up "
                       f"to {end[1]} KiB")
    part.check(out != {}, "no process's memory was sampled")
    return out


def fmt_rss(r):
    return ", ".join(f"{p} {v['start_kib'] / 1024:.1f} -> {v['warm_kib'] / 1024:.1f} "
                     f"-> {v['end_kib'] / 1024:.1f} MiB (private "
                     f"{v['private_warm_kib'] / 1024:.1f} -> "
                     f"{v['private_end_kib'] / 1024:.1f})" for p, v in r.items())


def fmt_kv(d):
    return ", ".join(f"{k} {v}" for k, v in sorted(d.items()))


def switch_part(d, part, p, run):
    """The switch alone: its exit, the driver's reads and captures."""
    p.check(run["rc"] == 0, f"ofan-switch exit status {run['rc']} "
            "(3: mbufs not returned)")
    drv = p.load(f"{d}/switch-driver.json") or {}
    for e in drv.get("errors", []):
        p.check(False, f"driver: {e}")
    sw = switch_checks(p, "ofan-switch", p.load(f"{d}/switch.json"))
    caps = drv.get("captures", [])
    p.check(len(caps) > 0, "no capture was taken")
    f = dict(sw, seconds=drv.get("seconds") or 0,
             faults=drv.get("faults", {}),
             faults_total=drv.get("faults_total", 0),
             telemetry_reads=drv.get("telemetry_reads", 0),
             captures=len(caps),
             packets_captured=sum(c["packets"] for c in caps),
             capture_attach_retries=len(drv.get("capture_attach_retries", [])),
             rss=rss_checks(p, drv.get("rss_kib", {})))
    f["packets"] = f.get("rx", 0)
    f["features"] = {"telemetry_reads": f["telemetry_reads"],
                     "captures": f["captures"],
                     "packets_captured": f["packets_captured"]}
    print(f"switch: {f['seconds']:.0f} s, {f.get('rx', 0)} packets received, "
          f"{f.get('tx', 0)} sent, {f.get('dropped', 0)} dropped "
          f"({fmt_kv(f.get('drops', {}))})")
    print(f"switch: {f['faults_total']} faults injected "
          f"({fmt_kv(f['faults'])}), {f['telemetry_reads']} telemetry "
          f"reads, {f['captures']} captures ({f['packets_captured']} "
          f"packets; {f['capture_attach_retries']} retried: dumpcap did "
          "not attach)")
    for text in drv.get("capture_attach_retries", []):
        print("switch: a capture that did not attach, retried:\n    " +
              text.strip().replace("\n", "\n    "))
    print(f"switch: RSS start -> after warm-up -> end: {fmt_rss(f['rss'])}")
    return f


def job_iterations(p, res, want):
    """The iterations of the job(s) that ended: hosts-all-jobs.csv has a
    row for each (ofan-host writes only those); every one 0 .. want-1."""
    try:
        with open(f"{res}/hosts-all-jobs.csv") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        p.check(False, f"the job's iterations: {e}")
        return 0
    done = sorted(int(r["iteration"]) for r in rows)
    p.check(done == list(range(want or 0)),
            f"the job ended {len(done)} of its {want} iterations")
    return len(done)


def feature_checks(p, part, f, res, run):
    """The counters that show the part's set-up did what it is for."""
    sw, h = f["switch_sums"], f["host_sums"]
    feats = {}
    for name in part["features"]:
        if name == "trimmed":
            feats["trimmed"] = sw["trimmed"]
            feats["headers_returned"] = sw["headers_returned"]
            p.check(sw["trimmed"] > 0, "no frame was trimmed at the switches")
        elif name == "nacks_or_returned":
            feats["nacks_received"] = h["nacks_received"]
            feats["returned_rx"] = h["returned_rx"]
            p.check(h["nacks_received"] + h["returned_rx"] > 0,
                    "the senders got no NACK and no returned header")
        elif name == "pfc_pauses":
            feats["pfc_pauses_sent"] = sw["pfc_pauses_sent"]
            feats["host_pfc_pauses_received"] = h["pfc_pauses_received"]
            p.check(sw["pfc_pauses_sent"] > 0,
                    "the lossless switches sent no PFC pause")
        elif name == "no_congestion_drops":
            n = {k: sum(s.get("drops", {}).get(k, 0)
                        for s in f["switches"].values())
                 for k in CONGESTION_DROPS}
            feats["congestion_drops"] = sum(n.values())
            p.check(sum(n.values()) == 0,
                    f"a lossless fabric dropped for congestion: {fmt_kv(n)}")
        elif name == "job_iterations":
            feats["iterations"] = job_iterations(p, res, run["iterations"])
            feats["iterations_asked"] = run["iterations"]
        else:
            p.check(False, f"unknown feature check '{name}' in the plan")
    return feats


def testbed_part(d, part, p, run):
    """Hosts through 4 switches: every byte, exits, conservation, RSS,
    and the part's own counters."""
    name = part["name"]
    res = f"{d}/{name}"
    p.check(run["rc"] == 0, f"testbed.sh exit status {run['rc']} "
            "(1: not every byte delivered, 3: mbufs not returned)")
    drv = p.load(f"{res}-driver.json") or {}
    for e in drv.get("errors", []):
        p.check(False, f"driver: {e}")
    h = p.load(f"{res}/hosts-all.json")
    # seconds: the hosts' traffic (the driver's include the start-up).
    f = {"faults": drv.get("faults", {}),
         "faults_total": drv.get("faults_total", 0),
         "driver_seconds": drv.get("seconds") or 0, "seconds": 0,
         "host_sums": {}}
    if h is not None:
        p.check(h["flows_completed"] == h["flows_total"] > 0,
                f"{h['flows_completed']} of {h['flows_total']} flows complete")
        p.check(h["corrupt_pkts"] == 0 and h["incomplete_receptions"] == 0,
                f"corrupt {h['corrupt_pkts']}, incomplete "
                f"{h['incomplete_receptions']}")
        p.check(h["mempool_in_use_end"] == h["mempool_in_use_start"],
                "ofan-host's mempool not back")
        p.check(h["recovery"] == part["recovery"],
                f"ofan-host ran recovery {h['recovery']}, the plan "
                f"{part['recovery']}")
        f.update(flows=h["flows_total"], retx=h["data_retx"],
                 timeouts=h["timeouts"], seconds=h["wall_s"],
                 bytes_verified=sum(x["goodput_bytes"] for x in h["hosts"]),
                 host_sums={k: sum(x.get(k, 0) for x in h["hosts"])
                            for k in HOST_SUMS})
    try:
        with open(f"{res}/hosts-all.ini") as cfg:
            cc = [ln.split("=")[1].split(";")[0].strip() for ln in cfg
                  if ln.split("=")[0].strip() == "cc"]
        p.check(cc[-1:] == [part["cc"]],
                f"the hosts' config sets cc {cc[-1:]}, the plan {part['cc']}")
    except OSError as e:
        p.check(False, f"the hosts' config: {e}")
    for log in sorted(glob.glob(f"{res}/*.log")):
        for line in open(log):
            if "exited with status" in line:
                p.check(False, line.strip())
    sws = {}
    for path in sorted(glob.glob(f"{res}/*.json")):
        n = os.path.basename(path)[:-5]
        if not n.startswith("hosts-"):
            sws[n] = switch_checks(p, n, p.load(path))
    p.check(len(sws) == 4, f"{len(sws)} switch results, expected 4")
    f["switches"] = sws
    f["switch_sums"] = {k: sum(s.get(k, 0) for s in sws.values())
                        for k in SWITCH_PORT_SUMS}
    f["packets"] = sum(s.get("rx", 0) for s in sws.values())
    f["rss"] = rss_checks(p, drv.get("rss_kib", {}))
    f["features"] = dict(retx=f.get("retx", 0), timeouts=f.get("timeouts", 0))
    f["features"].update(feature_checks(p, part, f, res, run))
    print(f"{name}: {f.get('flows', 0)} flows, {f.get('bytes_verified', 0)} "
          f"bytes verified, {f['packets']} packets through the switches, "
          f"{f['faults_total']} uplink faults ({fmt_kv(f['faults'])}) in "
          f"{f['seconds']:.0f} s; {fmt_kv(f['features'])}")
    print(f"{name}: RSS start -> after warm-up -> end: {fmt_rss(f['rss'])}")
    return f


def row(r):
    """The summary's line of a part."""
    rss0 = sum(v["start_kib"] for v in r["rss"].values()) / 1024
    rss1 = sum(v["end_kib"] for v in r["rss"].values()) / 1024
    feats = ", ".join(f"{k} {v}" for k, v in r["features"].items())
    return (f"{r['name']:<14} {r['recovery'] or '-':<9} {r['cc'] or '-':<11}"
            f"{r['seconds']:>5.0f} {r['packets']:>11} {r['faults_total']:>6} "
            f"{r.get('bytes_verified', '-'):>11} {rss0:>7.1f} {rss1:>7.1f}  "
            f"{'PASS' if r['pass'] else 'FAIL'}  {feats}")


def main():
    d, minutes = sys.argv[1], float(sys.argv[2])
    top = Part("soak")
    plan = (top.load(f"{d}/parts.json") or {}).get("parts", [])
    top.check(plan != [], "no part in the plan")
    rows = []
    for part in plan:
        p = Part(part["name"])
        run = p.load(f"{d}/{part['name']}-run.json")
        r = {}
        if run is not None:
            r = (switch_part if part["kind"] == "switch" else
                 testbed_part)(d, part, p, run)
        r = dict({"seconds": 0, "packets": 0, "faults_total": 0, "rss": {},
                  "features": {}}, **r)
        r.update(name=part["name"], kind=part["kind"],
                 recovery=part["recovery"], cc=part["cc"], what=part["what"],
                 failures=p.failures, **{"pass": not p.failures})
        rows.append(r)
    failures = top.failures + [f"{r['name']}: {x}" for r in rows
                               for x in r["failures"]]
    print(f"\n{'part':<14} {'recovery':<9} {'cc':<11}{'s':>5} "
          f"{'packets':>11} {'faults':>6} {'bytes':>11} {'RSS0':>7} "
          f"{'RSS1':>7}  verdict, the part's counters")
    for r in rows:
        print(row(r))
    print("(s: seconds of traffic; packets: received by the switches; "
          "bytes: delivered and verified; RSS0, RSS1: every process's "
          "resident memory summed at the start and the end of the "
          "traffic, MiB)")
    with open(f"{d}/soak.json", "w") as out:
        json.dump({"minutes": minutes, "parts": rows, "failures": failures},
                  out, indent=1)
    for x in failures:
        print(f"FAIL: {x}")
    print(f"soak: {'PASS' if not failures else 'FAIL'} "
          f"({len(failures)} check(s) failed); figures in {d}/soak.json")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
