#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The parts of testbed/soak.sh, derived from what ofan-host registers.

  soak_parts.py list --host OFAN_HOST [--parts A,B]
      one line per part: NAME RECOVERY CC WHAT ("-" where a part has
      none), in the order they run
  soak_parts.py plan --host OFAN_HOST [--parts A,B] --out PLAN.json
      the same parts, with everything soak.sh and soak_check.py need,
      as JSON; prints the lines of list
  soak_parts.py experiment --plan PLAN.json --part NAME --iterations N
                --base EXPERIMENT.ini --out OUT.ini
      the part's experiment: the base (testbed-small.ini) with the part's
      keys set

The parts: "switch" (ofan-switch alone at full rate, its faults through
telemetry); then one "hosts-R" part per recovery model R that
`ofan-host --list` prints, in its order -- so a model registered later
gets a part without a change here -- each on the memif testbed of the
base experiment while the leaves' uplinks flap; then "job", a training
job on the same testbed.  The congestion controllers `ofan-host --list`
prints are cycled over the testbed parts, so each is used by one at
least.  A model runs on the generic set-up (a lossy fabric: tail drop
and ECN as the base has them) unless SETUPS below gives it its own: the
switches it needs and the counters that show it worked (FEATURES).
Exit 2 on bad usage (an unknown part, no ofan-host).
"""
import argparse
import json
import subprocess
import sys

# The generic set-up of a testbed part: the base experiment as written.
GENERIC = {
    "what": "lossy fabric (tail drop, ECN), all-to-all of 64 KiB",
    "scheme": None,
    "keys": {},
    "features": [],
}

# A recovery model that needs switches of its own kind, and what must
# show that it ran so ([section] key = value on top of the base).
SETUPS = {
    "trim": {
        "what": "switches trim (8-frame queues, rts = overflow, "
                "8-frame control queues), all-to-all of 64 KiB",
        "scheme": None,
        "keys": {"queue": {"queue_packets": "8", "trim": "yes",
                           "rts": "overflow", "ctrl_queue_packets": "8"}},
        "features": ["trimmed", "nacks_or_returned"],
    },
    "gbn": {
        # ECMP: go-back-N discards every reordered packet (docs/recovery.md),
        # which RoCE fabrics avoid by not spraying.  The headroom covers
        # what a pause cannot stop on a software link: the two memif
        # rings of 1024 frames (a sender reads the pause behind what the
        # switch already sent it, the switch reads what was sent before).
        # The queues hold what three lossless inputs may bring, data and
        # ACKs.
        "what": "lossless fabric (PFC, xoff 12000 B, 4 MiB headroom), "
                "ECMP, all-to-all of 64 KiB",
        "scheme": "ecmp",
        "keys": {"queue": {"queue_packets": "8192", "queue_bytes": "16MiB",
                           "pfc": "yes", "pfc_xoff": "12000",
                           "pfc_xon": "6000", "pfc_headroom": "4MiB"}},
        "features": ["pfc_pauses", "no_congestion_drops"],
    },
}

# The training job's part: 4 ranks, 2-way data x 2-way tensor parallel,
# a small Llama-shaped model whose compute and collectives each take tens
# of milliseconds an iteration at 1 Gb/s.
JOB = {
    "what": "training job (dp 2 x tp 2, Llama-shaped, gradients "
            "overlapping the backward), lossy fabric",
    "scheme": None,
    "keys": {"traffic": {"pattern": "jobs", "size": None,
                         "iterations": None}},
    "job": {"preset": "llama2-7b", "hidden": "256", "ffn": "688",
            "layers": "2", "seq_len": "128", "micro_batches": "2",
            "dp": "2", "tp": "2", "grad_buckets": "2", "overlap": "yes",
            "tflops": "0.2", "placement": "packed"},
    "features": ["job_iterations"],
}

# What every testbed part sets: a repeated all-to-all of 64 KiB flows,
# this model and controller.
COMMON = {"traffic": {"pattern": "alltoall", "size": "64KiB"}}

SWITCH = {
    "name": "switch", "kind": "switch", "recovery": None, "cc": None,
    "what": "ofan-switch alone at full rate: telemetry faults every "
            "100 ms, reads, captures",
    "faults": "telemetry: down, blackhole, degraded, restore",
    "features": ["telemetry", "captures"],
}


def registered(host):
    """{kind: [names]} from `ofan-host --list`."""
    try:
        out = subprocess.run([host, "--list"], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"soak_parts.py: {host} --list: {e}")
    reg = {}
    for line in out.splitlines():
        w = line.split()
        if len(w) == 2:
            reg.setdefault(w[0], []).append(w[1])
    if not reg.get("recovery") or not reg.get("cc"):
        sys.exit(f"soak_parts.py: {host} --list names no recovery model "
                 "or congestion controller")
    return reg


# Controllers that run over one recovery model only: rccc (receiver-
# driven) over sack.
ONLY_OVER = {"rccc": "sack"}


def all_parts(host):
    reg = registered(host)
    ccs = reg["cc"]
    parts = [dict(SWITCH)]
    testbed = [("hosts-" + r, r, SETUPS.get(r, GENERIC))
               for r in reg["recovery"]]
    # The job runs the default model (the registry's first).
    testbed.append(("job", reg["recovery"][0], JOB))
    # A controller that runs over one recovery model only (the loader
    # refuses the others: hs_host_settings.h, hs_cc_recovery_fit) takes
    # the first part of that model; the others go round the rest.
    given = {}
    for cc, rec in ONLY_OVER.items():
        if cc in ccs:
            part = next((n for n, r, _ in testbed
                         if r == rec and n not in given), None)
            if part is not None:
                given[part] = cc
    free = [c for c in ccs if c not in ONLY_OVER]
    order = free
    k = 0
    for i, (name, rec, setup) in enumerate(testbed):
        if name in given:
            cc = given[name]
        else:
            cc = order[k % len(order)]
            k += 1
        keys = json.loads(json.dumps(COMMON))
        for sec, kv in setup["keys"].items():
            keys.setdefault(sec, {}).update(kv)
        keys.setdefault("host", {}).update(recovery=rec, cc=cc)
        parts.append({
            "name": name, "kind": "job" if setup is JOB else "hosts",
            "recovery": rec, "cc": cc, "what": setup["what"],
            "scheme": setup["scheme"], "keys": keys,
            "job": setup.get("job"),
            "faults": "uplinks of the leaves down or black-holed "
                      "50-150 ms, every 200 ms",
            "features": setup["features"]})
    return parts


def chosen(parts, names):
    if not names:
        return parts
    want = names.split(",")
    known = [p["name"] for p in parts]
    bad = [n for n in want if n not in known]
    if bad:
        print(f"soak_parts.py: unknown part(s) {', '.join(bad)}; expected "
              f"some of {', '.join(known)}", file=sys.stderr)
        sys.exit(2)
    return [p for p in parts if p["name"] in want]


def line(p):
    return f"{p['name']} {p['recovery'] or '-'} {p['cc'] or '-'} {p['what']}"


def experiment(part, iterations, base, out):
    """base with the part's keys set: a key of the base is replaced where
    it is (None: removed), a new one added at the end of its section, a
    new section at the end; the job's section and iterations last."""
    keys = json.loads(json.dumps(part["keys"]))
    keys.setdefault("fabric", {})["name"] = "soak-" + part["name"]
    if part["job"] is None:
        keys["traffic"]["iterations"] = str(iterations)
    lines, sec, done = [], None, set()

    def close(sec):
        for k, v in keys.get(sec, {}).items():
            if v is not None and (sec, k) not in done:
                lines.append(f"{k} = {v}\n")
                done.add((sec, k))

    with open(base) as f:
        for raw in f:
            s = raw.strip()
            if s.startswith("[") and "]" in s:
                close(sec)
                sec = s[1:s.index("]")]
            elif sec in keys and "=" in s and not s.startswith(";"):
                k = s.split("=", 1)[0].strip()
                if k in keys[sec]:
                    done.add((sec, k))
                    v = keys[sec][k]
                    if v is not None:
                        lines.append(f"{k} = {v} ; soak part {part['name']}\n")
                    continue
            lines.append(raw)
    close(sec)
    for s in keys:
        if any((s, k) not in done and v is not None
               for k, v in keys[s].items()):
            lines.append(f"\n[{s}]\n")
            close(s)
    if part["job"] is not None:
        lines.append("\n[job.soak]\n")
        for k, v in dict(part["job"], iterations=str(iterations)).items():
            lines.append(f"{k} = {v}\n")
    with open(out, "w") as f:
        f.writelines(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    for name in ("list", "plan"):
        s = sub.add_parser(name)
        s.add_argument("--host", required=True)
        s.add_argument("--parts", default="")
        if name == "plan":
            s.add_argument("--out", required=True)
    e = sub.add_parser("experiment")
    e.add_argument("--plan", required=True)
    e.add_argument("--part", required=True)
    e.add_argument("--iterations", type=int, required=True)
    e.add_argument("--base", required=True)
    e.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.what == "experiment":
        with open(a.plan) as f:
            parts = {p["name"]: p for p in json.load(f)["parts"]}
        if a.part not in parts:
            print(f"soak_parts.py: no part {a.part} in {a.plan}",
                  file=sys.stderr)
            sys.exit(2)
        experiment(parts[a.part], a.iterations, a.base, a.out)
        return
    parts = chosen(all_parts(a.host), a.parts)
    if a.what == "plan":
        with open(a.out, "w") as f:
            json.dump({"parts": parts}, f, indent=1)
    for p in parts:
        print(line(p))


if __name__ == "__main__":
    main()
