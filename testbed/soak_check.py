#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The checks and figures of testbed/soak.sh.

  soak_check.py DIR MINUTES SWITCH_RC SACK_RC ERASURE_RC

DIR holds switch.json, switch-driver.json and, per recovery model R,
hosts-R/ (testbed.sh's results) and hosts-R-driver.json.  Prints the
figures and every failed check, writes DIR/soak.json, exits 1 if any
check failed.
"""
import glob
import json
import os
import sys

# Memory is flat if its last sample is at most this much above the sample
# at a quarter of the process's run (after warm-up: pools, rings, caches).
RSS_SLACK_KIB = 2048
RSS_SLACK_FRAC = 0.02

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        check(False, f"{path}: {e}")
        return None


def switch_checks(name, s):
    """Mempool back; per port routed = sent + dropped + queued; in all
    received (+ ICMP made) = sent + dropped + queued."""
    if s is None:
        return {}
    check(s["mempool_in_use_end"] == s["mempool_in_use_start"],
          f"{name}: mempool in use {s['mempool_in_use_start']} at start, "
          f"{s['mempool_in_use_end']} at the end")
    ports = s["ports"]
    for p in ports:
        routed = p["picked"] + p["arp_replies"] + p["icmp_time_exceeded"]
        out = p["tx"] + p["drop"] + p["queue_len_at_exit"]
        check(routed == out,
              f"{name}: port {p['port']}: routed {routed} != sent {p['tx']} "
              f"+ dropped {p['drop']} + queued {p['queue_len_at_exit']}")
    rx = sum(p["rx"] for p in ports)
    tx = sum(p["tx"] for p in ports)
    made = sum(p["icmp_time_exceeded"] for p in ports)
    queued = sum(p["queue_len_at_exit"] for p in ports)
    dropped = sum(s["drops"].values())
    check(rx + made == tx + dropped + queued,
          f"{name}: received {rx} + made {made} != sent {tx} + dropped "
          f"{dropped} + queued {queued}")
    return {"rx": rx, "tx": tx, "dropped": dropped,
            "drops": {k: v for k, v in s["drops"].items() if v}}


def rss_checks(where, samples):
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
        r = out[proc] = {"start_kib": ss[0][1], "warm_kib": warm[1],
                         "end_kib": end[1], "max_kib": max(x[1] for x in ss),
                         "private_warm_kib": warm[2],
                         "private_end_kib": end[2],
                         "shared_end_kib": end[3], "samples": len(ss),
                         "seconds": round(t1 - t0, 1)}
        check(end[2] <= warm[2] + max(RSS_SLACK_KIB, warm[2] * RSS_SLACK_FRAC),
              f"{where}: {proc}: private memory grew from {warm[2]} KiB "
              f"after warm-up to {end[2]} KiB")
        if t1 - t0 >= 60:
            check(end[1] <= warm[1] + max(RSS_SLACK_KIB, warm[1] * RSS_SLACK_FRAC),
                  f"{where}: {proc}: RSS grew from {warm[1]} KiB after "
                  f"warm-up to {end[1]} KiB")
    check(out != {}, f"{where}: no process's memory was sampled")
    return out


def fmt_rss(r):
    return ", ".join(f"{p} {v['start_kib'] / 1024:.1f} -> {v['warm_kib'] / 1024:.1f} "
                     f"-> {v['end_kib'] / 1024:.1f} MiB (private "
                     f"{v['private_warm_kib'] / 1024:.1f} -> "
                     f"{v['private_end_kib'] / 1024:.1f})" for p, v in r.items())


def main():
    d, minutes = sys.argv[1], float(sys.argv[2])
    sw_rc, rcs = int(sys.argv[3]), {"sack": int(sys.argv[4]),
                                    "erasure": int(sys.argv[5])}
    fig = {"minutes": minutes}

    # 1. the switch
    check(sw_rc == 0, f"switch: ofan-switch exit status {sw_rc} "
          "(3: mbufs not returned)")
    drv = load(f"{d}/switch-driver.json") or {}
    for e in drv.get("errors", []):
        check(False, f"switch driver: {e}")
    sw = switch_checks("switch", load(f"{d}/switch.json"))
    caps = drv.get("captures", [])
    check(len(caps) > 0, "switch: no capture was taken")
    fig["switch"] = dict(sw, seconds=drv.get("seconds") or 0,
                         faults=drv.get("faults", {}),
                         faults_total=drv.get("faults_total", 0),
                         telemetry_reads=drv.get("telemetry_reads", 0),
                         captures=len(caps),
                         packets_captured=sum(c["packets"] for c in caps),
                         capture_attach_retries=len(
                             drv.get("capture_attach_retries", [])),
                         rss=rss_checks("switch", drv.get("rss_kib", {})))
    s = fig["switch"]
    print(f"switch: {s.get('seconds', 0):.0f} s, {s.get('rx', 0)} packets received, "
          f"{s.get('tx', 0)} sent, {s.get('dropped', 0)} dropped "
          f"({', '.join(f'{k} {v}' for k, v in s.get('drops', {}).items())})")
    print(f"switch: {s['faults_total']} faults injected "
          f"({', '.join(f'{k} {v}' for k, v in sorted(s['faults'].items()))}), "
          f"{s['telemetry_reads']} telemetry reads, {s['captures']} captures "
          f"({s['packets_captured']} packets; "
          f"{s['capture_attach_retries']} retried: dumpcap did not attach)")
    for text in drv.get("capture_attach_retries", []):
        print("switch: a capture that did not attach, retried:\n    " +
              text.strip().replace("\n", "\n    "))
    print(f"switch: RSS start -> after warm-up -> end: {fmt_rss(s['rss'])}")

    # 2, 3. the hosts
    for rec, rc in rcs.items():
        where = f"hosts ({rec})"
        res = f"{d}/hosts-{rec}"
        check(rc == 0, f"{where}: testbed.sh exit status {rc} "
              "(1: not every byte delivered, 3: mbufs not returned)")
        drv = load(f"{res}-driver.json") or {}
        for e in drv.get("errors", []):
            check(False, f"{where} driver: {e}")
        h = load(f"{res}/hosts-all.json")
        f = {"faults": drv.get("faults", {}),
             "faults_total": drv.get("faults_total", 0),
             "seconds": drv.get("seconds") or 0}
        if h is not None:
            check(h["flows_completed"] == h["flows_total"] > 0,
                  f"{where}: {h['flows_completed']} of {h['flows_total']} flows complete")
            check(h["corrupt_pkts"] == 0 and h["incomplete_receptions"] == 0,
                  f"{where}: corrupt {h['corrupt_pkts']}, incomplete "
                  f"{h['incomplete_receptions']}")
            check(h["mempool_in_use_end"] == h["mempool_in_use_start"],
                  f"{where}: ofan-host's mempool not back")
            f.update(flows=h["flows_total"], retx=h["data_retx"],
                     timeouts=h["timeouts"], wall_s=h["wall_s"],
                     bytes_verified=sum(x["goodput_bytes"] for x in h["hosts"]))
        for log in sorted(glob.glob(f"{res}/*.log")):
            for line in open(log):
                if "exited with status" in line:
                    check(False, f"{where}: {line.strip()}")
        sws = {}
        for p in sorted(glob.glob(f"{res}/*.json")):
            n = os.path.basename(p)[:-5]
            if not n.startswith("hosts-"):
                sws[n] = switch_checks(f"{where}: {n}", load(p))
        check(len(sws) == 4, f"{where}: {len(sws)} switch results, expected 4")
        f["switches"] = sws
        f["rss"] = rss_checks(where, drv.get("rss_kib", {}))
        fig[f"hosts_{rec}"] = f
        print(f"{where}: {f.get('flows', 0)} flows, {f.get('bytes_verified', 0)} "
              f"bytes verified, {f.get('retx', 0)} retransmissions, "
              f"{f.get('timeouts', 0)} timeouts, {f['faults_total']} uplink "
              f"faults ({', '.join(f'{k} {v}' for k, v in sorted(f['faults'].items()))}) "
              f"in {f.get('wall_s', 0):.0f} s")
        print(f"{where}: RSS start -> after warm-up -> end: {fmt_rss(f['rss'])}")

    fig["failures"] = failures
    with open(f"{d}/soak.json", "w") as out:
        json.dump(fig, out, indent=1)
    for x in failures:
        print(f"FAIL: {x}")
    print(f"soak: {'PASS' if not failures else 'FAIL'} "
          f"({len(failures)} check(s) failed); figures in {d}/soak.json")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
