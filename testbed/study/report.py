#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""report.py: the study's reproduction as one HTML page (testbed/study/reproduce.sh).

usage: report.py [--mode MODE] DIR

Reads DIR/<experiment>/summary.json and the PNG plots ofan-fabric wrote
next to it, for the experiments of configs/experiments/paper/, and writes
DIR/report.html: for each of the study's four findings a verdict computed
from the data (never written in advance) with the numbers that decide it,
then every experiment's table (mean and 95 % confidence interval over the
seeds) and plots.  A finding whose experiment is missing is "not run".

Every verdict comes from the schemes' means over their seeds and their
95 % confidence intervals by one rule (testbed/study/verdict.py, stated on
the page): a difference counts only where it exceeds the tie threshold
and the intervals do not overlap, a tie only where the intervals' far
ends are within it, anything else is not decisive (with the seeds that
would decide it); a finding holds where its rule is met with every
not-decisive comparison against it, does not hold where its rule fails
even with every one for it, and is not decisive otherwise.  The rules:
 1. spraying beats flow, flowlet and subflow load balancing: on the
    permutation at full load with the deepest queues and on every
    structured permutation, no spraying scheme's max slowdown is higher
    than a flow, flowlet or subflow scheme's, and in one case at least
    every one is lower (tie threshold 2 %);
 2. host and switch spraying are alike without failures (OPS and REPS
    each a tie with switch spray at 10 % on the permutation at full load),
    and host-based wins under a link failure (REPS's max slowdown lower
    than every switch-based scheme's at most reconvergence delays, and at
    the longest, on the all-to-all under a black hole, as the study
    decides it; the permutation under the same failure and the
    persistent failure are shown beside it, not deciding);
 3. no leading scheme has O(1) queues at full load: each of OPS, REPS,
    spray, adaptive and rr has its largest queue (each run's, over the
    seeds) grow by more than half from the shortest flows to the longest
    (queue-scaling); a scheme that stays bounded over flows that grow
    less than 8x leaves it not decisive;
 4. DR/ofan does, and gains over the other spraying schemes: ofan's largest
    queue stays within one full frame of its value for the shortest
    flows and at 8 or fewer, and its max slowdown is lower than every
    other spraying scheme's on the permutation at full load.
Training jobs (configs/experiments/training/): whether finding 1 holds on
the jobs' iteration time, by finding 1's rule over every case
(experiment, sweep point, job), and how far the ranking by iteration
time follows the ranking by the same runs' flow slowdown (Kendall's tau
per case).  Loss recovery (reliability.ini): whether the ranking of the
load balancers on the erasure stack holds on every other stack.
Queue sizes in labels (a queue sweep: size/ECN kmin/kmax) are in full
data frames' worth of bytes, as the fabric's tables give the queues.
Then, from the experiments that ran: the scaling experiment's max
slowdown and largest queue against k and against the flow size, and
host-side DR (drb) next to switch DR (ofan) wherever both ran.
Exit status 0, or 1 if no experiment was found.
"""
import argparse
import datetime
import glob
import html
import json
import os
import re
import subprocess
import sys

from verdict import (HIGHER, HOLDS, LOWER, TIE as TIED,
                     UNDECIDED, Stat, check_higher, check_not_higher,
                     check_tie, compare, group, most_seeds, rule_html,
                     seeds_text, settle)

EXPERIMENTS = ["permutation", "structured", "alltoall", "failure",
               "failure-permutation", "failure-persistent", "queue-scaling",
               "scaling", "degraded", "failure-types", "lossy",
               "lossy-random", "dr-variants", "subflows", "reliability",
               "nscc", "training-dense", "training-moe", "training-mixed"]
TRAINING = ["training-dense", "training-moe", "training-mixed"]
FLOW_LB = ["ecmp", "plb", "flowlet", "mp"]
SPRAYING = ["ops", "reps", "spray", "adaptive", "rr", "ofan"]
HOST_SPRAY = ["ops", "reps"]
SWITCH_SPRAY = ["spray", "adaptive", "rr", "ofan"]
LEADING = ["ops", "reps", "spray", "adaptive", "rr"]
# Tie thresholds (verdict.compare), one per kind of number.
TIE = 0.02            # times: max slowdown, mean FCT, iteration time
ALIKE = 0.10          # finding 2: host and switch spraying alike
GROWTH = 0.50         # finding 3: a queue grows by more than half
OFAN_SLACK = 1.0      # finding 4: ofan's queue within a full frame
OFAN_BOUND = 8.0      # finding 4: full frames
SIZE_RANGE = 8.0      # finding 3: flow sizes must span this factor to decide


def esc(s):
    return html.escape(str(s), quote=True)


def load(dirpath, name):
    path = os.path.join(dirpath, name, "summary.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        j = json.load(f)
    j["_dir"] = os.path.join(dirpath, name)
    return j


# The byte-sized queue keys a sweep may set, by the name a label gives
# them (their values are shown in full frames).
QUEUE_KEYS = {"queue.queue_bytes": "size", "queue.ecn_kmin": "ECN kmin",
              "queue.ecn_kmax": "ECN kmax"}


def sweep_keys(path):
    """The keys of each [sweep.NAME] of an experiment file: NAME -> keys
    ({} if the file cannot be read)."""
    out, sec = {}, None
    try:
        with open(path) as f:
            for line in f:
                line = line.split(";")[0].strip()
                if line.startswith("[") and line.endswith("]"):
                    sec = line[1:-1].strip()
                elif sec and sec.startswith("sweep.") and "=" in line:
                    k, v = (x.strip() for x in line.split("=", 1))
                    if k == "keys":
                        out[sec[len("sweep."):]] = \
                            [x.strip() for x in v.split(",") if x.strip()]
    except OSError:
        pass
    return out


def lead_number(v):
    m = re.match(r"[-+]?[0-9]*\.?[0-9]+", v)
    return float(m.group(0)) if m else None


class Exp:
    """One experiment's runs, grouped by sweep point and scheme."""

    def __init__(self, j):
        self.j = j
        self.dims = []
        for r in j["runs"]:
            for k in r["sweep"]:
                if k not in self.dims:
                    self.dims.append(k)
        self.points = []           # sweep points, in run order
        self.runs = {}             # (point, scheme) -> [runs]
        self.schemes = []
        for r in j["runs"]:
            pt = tuple(r["sweep"].get(d, "") for d in self.dims)
            if pt not in self.points:
                self.points.append(pt)
            if r["scheme"] not in self.schemes:
                self.schemes.append(r["scheme"])
            self.runs.setdefault((pt, r["scheme"]), []).append(r)
        self.stats = {}            # (point, scheme) -> aggregate entry
        for s in j.get("schemes", []):
            pt = tuple(s["sweep"].get(d, "") for d in self.dims)
            self.stats[(pt, s["scheme"])] = s
        # Sweeps of queue sizes: dimension -> the names of its keys.
        self.frame_dims = {}
        sweeps = sweep_keys(os.path.join(j.get("_dir", ""), "config.ini"))
        for d in self.dims:
            keys = sweeps.get(d, [])
            if keys and all(k in QUEUE_KEYS for k in keys):
                self.frame_dims[d] = [QUEUE_KEYS[k] for k in keys]
        self.frame = j.get("fabric", {}).get("full_frame_bytes") or 4096

    def mean(self, pt, scheme, key="max_slowdown"):
        s = self.stats.get((pt, scheme))
        return None if s is None else s[key]["mean"]

    def stat(self, pt, scheme, key="max_slowdown"):
        """key's mean and 95 % interval over the seeds (verdict.Stat), as
        ofan-fabric aggregated it; None if the scheme did not run there."""
        s = self.stats.get((pt, scheme))
        if s is None:
            return None
        return Stat(s[key]["mean"], s[key]["ci95"], s["seeds"])

    def stats_of(self, pt, schemes, key="max_slowdown"):
        """stat() of each of schemes that ran at pt, by name."""
        out = {}
        for sc in schemes:
            x = self.stat(pt, sc, key)
            if x is not None:
                out[sc] = x
        return out

    def qstat(self, pt, scheme, layer="all"):
        """Each run's largest queue (full frames' worth of bytes): mean
        and 95 % interval over the seeds; None if none ran."""
        rs = self.runs.get((pt, scheme), [])
        return Stat.of([r["max_queue"][layer] for r in rs
                        if r["max_queue"].get(layer) is not None])

    def value_text(self, d, v, unit=" frames"):
        """A sweep value as the report writes it: a queue sweep's bytes in
        full frames ("417800/208900/208900" -> "102.0/51.0/51.0 frames")."""
        if d not in self.frame_dims:
            return v
        parts = v.split("/")
        if not all(p.strip().isdigit() for p in parts):
            return v
        return "/".join(f"{int(p) / self.frame:.1f}" for p in parts) + unit

    def dim_text(self, d):
        """A sweep dimension's column heading."""
        if d not in self.frame_dims:
            return d
        return f"{d} ({'/'.join(self.frame_dims[d])}, full frames)"

    def point_text(self, pt):
        """A sweep point as a label: "load 1.0, queue 102.0/51.0/51.0
        frames"."""
        return ", ".join(f"{d} {self.value_text(d, x)}"
                         for d, x in zip(self.dims, pt))

    def qmax(self, pt, scheme, layer="all"):
        """Largest queue over the seeds, in full frames' worth of bytes."""
        rs = self.runs.get((pt, scheme), [])
        vals = [r["max_queue"].get(layer) for r in rs
                if r["max_queue"].get(layer) is not None]
        return max(vals) if vals else None

    def point(self, **want):
        """The sweep point whose values start like the wanted ones."""
        for pt in self.points:
            ok = True
            for d, v in want.items():
                if d not in self.dims:
                    continue
                got = pt[self.dims.index(d)]
                if lead_number(got) is not None and lead_number(v) is not None:
                    ok = ok and abs(lead_number(got) - lead_number(v)) < 1e-9
                else:
                    ok = ok and got == v
            if ok:
                return pt
        return None

    def full_load(self):
        """The point at load 1.0 with the deepest queue (the study's main
        case: htsim -ratecoef 1 -q 100), None if there is none."""
        best = None
        for pt in self.points:
            if "load" in self.dims and \
                    lead_number(pt[self.dims.index("load")]) != 1.0:
                continue
            q = lead_number(pt[self.dims.index("queue")]) \
                if "queue" in self.dims else 0
            if best is None or q > best[0]:
                best = (q, pt)
        return None if best is None else best[1]

    def completed(self):
        return all(r["all_completed"] for r in self.j["runs"])

    def failure_at_us(self):
        """The earliest failure during the traffic (µs), None if none;
        failures from the start (a .cm failure line) do not count."""
        ats = [f["at_us"] for f in self.j.get("fabric", {}).get("failures", [])
               if not f.get("at_start")]
        return min(ats) if ats else None

    def traffic_end_us(self):
        """The median run's end of traffic (first start to last
        completion), µs."""
        v = sorted(r["collective_us"] for r in self.j["runs"])
        return v[len(v) // 2] if v else None


def fmt(x, nd=2):
    return "—" if x is None else f"{x:.{nd}f}"


class Cell:
    """A table cell with a class: "wrap" for text that may wrap, or an
    outcome's colour ("yes" as the finding says, "no" against it, "tie",
    "nd" not decisive)."""

    def __init__(self, text, cls):
        self.text, self.cls = text, cls


def label(text):
    """A table's describing cell: the one that wraps at a narrow page."""
    return Cell(text, "wrap")


OUTCOME_CLS = {True: "yes", False: "no", "tie": "tie", None: "nd"}


def outcome_cell(text, check):
    """An outcome, coloured by its check (True, False, "tie", None)."""
    return Cell(text, OUTCOME_CLS[check])


# A verdict's comparison table: what is compared, the two sides (mean ±
# half-width, n), their difference, the outcome and, where it is not
# decisive, the seeds that would decide it.
COMPARE_HEAD = ["comparison", "scheme", "against", "difference", "outcome",
                "seeds to decide"]


def compare_row(what, name_a, name_b, c, word, check, seeds="", nd=2,
                unit=""):
    """One row of COMPARE_HEAD for Cmp c: check is True, False, "tie" or
    None (not decisive: the seeds that would decide it are shown, c's
    own unless seeds, a group's, is given)."""
    if check is None:
        seeds = seeds_text(c.seeds if seeds == "" else seeds)
    else:
        seeds = ""
    return [label(what), f"{name_a} {c.a.text(nd)}",
            f"{name_b} {c.b.text(nd)}", c.diff_text(nd, unit),
            Cell(word, OUTCOME_CLS[check]), Cell(seeds, "seeds")]


class Verdict:
    def __init__(self, title):
        self.title = title
        self.state = "not run"
        self.lines = []
        self.table = None      # (header, rows)
        self.missing = []      # experiments it needs that did not run

    def need(self, name, e):
        if e is None:
            self.missing.append(name)

    def settle(self, cond, checks):
        """The verdict from its checks by the one rule (verdict.settle);
        a finding that holds on what ran is incomplete if some of its
        experiments did not run."""
        state = settle(cond, checks)
        if state == HOLDS and self.missing:
            self.state = "incomplete"
            self.lines.append("Holds on what ran; not run: " +
                              ", ".join(self.missing) + ".")
        else:
            self.state = state
            if self.missing:
                self.lines.append("Not run: " + ", ".join(self.missing) +
                                  ".")
        return state


def group_word(g, lower, higher, tie="tie"):
    """A group comparison's outcome in words, and its colour's check."""
    if g["lower"]:
        return lower, True
    if g["not_higher"] is False:
        return higher, False
    if g["not_higher"]:
        return tie, "tie"
    return UNDECIDED, None


def group_row(what, g, lower, higher, tie="tie", nd=2):
    """A row for a group comparison (verdict.group): the pair that
    decides it, the outcome, the seeds that would decide every pair."""
    word, check = group_word(g, lower, higher, tie)
    x, y, c = g["shown"]
    return compare_row(what, x, y, c, word, check, g["seeds"], nd)


def spray_lines(what, metric):
    return (f"On {what}, every spraying scheme (of " + ", ".join(SPRAYING) +
            ") against every flow, flowlet or subflow scheme (of " +
            ", ".join(FLOW_LB) + f"), {metric}: spraying must be higher "
            "in no case and lower in one at least; a tie (within "
            f"{TIE * 100:g} %) is neither.  Each row shows the pair that decides "
            "its case.")


def finding1(perm, struct):
    v = Verdict("1. Spraying beats flow, flowlet and subflow load balancing")
    v.need("permutation", perm)
    v.need("structured", struct)
    cases = []
    if perm is not None:
        pt = perm.full_load()
        if pt is not None:
            cases.append(("permutation, " + perm.point_text(pt), perm, pt))
    if struct is not None:
        for pt in struct.points:
            cases.append((f"{pt[0]} (structured)", struct, pt))
    rows, not_higher, lower = [], [], []
    for what, e, pt in cases:
        spray = e.stats_of(pt, SPRAYING)
        flow = e.stats_of(pt, FLOW_LB)
        if not spray or not flow:
            continue
        g = group(spray, flow, TIE)
        not_higher.append(g["not_higher"])
        lower.append(g["lower"])
        rows.append(group_row(what, g, "spraying lower", "spraying higher",
                              "tie (nothing to balance)"))
    if not rows:
        return v
    v.table = (COMPARE_HEAD, rows)
    v.lines.append(spray_lines("the permutation at full load and every "
                               "structured permutation", "mean max "
                               "slowdown"))
    v.settle(lambda c: all(c["not higher"]) and any(c["lower"]),
             {"not higher": not_higher, "lower": lower})
    return v


def failure_rows(e, what):
    """REPS against every switch-based scheme at each sweep point of a
    failure experiment: (rows, per point: REPS decisively lowest)."""
    rows, checks = [], []
    for pt in e.points:
        r = e.stat(pt, "reps")
        sw = e.stats_of(pt, SWITCH_SPRAY)
        if r is None or not sw:
            continue
        g = group({"reps": r}, sw, TIE)
        checks.append(g["lower"])
        where = f", routing after {pt[0]}" if pt and pt[0] else ""
        word = {True: "reps lowest", False: "reps not lowest",
                None: UNDECIDED}[g["lower"]]
        _, best, c = g["shown"]
        rows.append(compare_row(f"{what}{where}", "reps", best, c, word,
                                g["lower"], g["seeds"]))
    return rows, checks


def count_text(checks):
    """How many of the checks hold, decisively, and how many are not
    decisive."""
    nd = sum(c is None for c in checks)
    return (f"{sum(c is True for c in checks)} of {len(checks)}" +
            (f" ({nd} not decisive)" if nd else ""))


def finding2(perm, fail, fail_perm, fail_pers):
    v = Verdict("2. Host and switch spraying are alike without failures; "
                "host-based wins under a link failure")
    v.need("permutation", perm)
    v.need("failure", fail)
    rows, alike, lowest = [], [], []
    if perm is not None:
        pt = perm.full_load()
        sp = perm.stat(pt, "spray") if pt else None
        if sp is not None:
            for h in HOST_SPRAY:
                x = perm.stat(pt, h)
                if x is None:
                    continue
                c = compare(x, sp, ALIKE)
                ok = check_tie(c)
                alike.append(ok)
                word = {True: "alike", False: "apart",
                        None: UNDECIDED}[ok]
                rows.append(compare_row(f"no failure: {h} against switch "
                                        "spray", h, "spray", c, word, ok))
    late = None
    if fail is not None:
        r_rows, checks = failure_rows(fail, "all-to-all, black hole")
        rows += r_rows
        total = len(checks)
        at, end = fail.failure_at_us(), fail.traffic_end_us()
        if at is not None and end is not None and at >= end:
            late = (f"Not decisive at this size: the failure comes at "
                    f"{at:g} µs, after the all-to-all's flows end "
                    f"({end:.0f} µs), so it meets no traffic and every "
                    f"reconvergence delay gives the same runs.")
        elif 0 < total < 3:
            late = (f"Not decisive at this size: {total} reconvergence "
                    f"delay{'s' if total > 1 else ''} cannot show that REPS "
                    f"wins at most of them; deciding needs three or more.")
        if late is not None:
            lowest = [None]
        elif total:
            lowest = checks
            v.lines.append(f"Under the failure (the all-to-all, as the study "
                           f"decides it) REPS is decisively lowest (below "
                           f"every switch-based scheme: "
                           f"{', '.join(SWITCH_SPRAY)}) at "
                           f"{count_text(checks)} reconvergence delays; it "
                           f"must be at most of them and at the longest.")
    for e, what in ((fail_perm, "permutation, black hole (shown, not "
                     "deciding)"),
                    (fail_pers, "two links dead from the start, SACK "
                     "(shown, not deciding)")):
        if e is None:
            continue
        r_rows, checks = failure_rows(e, what)
        rows += r_rows
        if checks:
            name = what.split(" (")[0]
            v.lines.append(f"{name[0].upper()}{name[1:]}: REPS decisively "
                           f"lowest at {count_text(checks)}.")
    if not alike and not lowest:
        return v
    v.lines.insert(0, f"Without failures OPS and REPS must be alike: within "
                      f"{ALIKE * 100:g} % of switch spray (mean max slowdown, "
                      f"the permutation at full load).")
    v.table = (COMPARE_HEAD, rows)
    if late is not None:
        v.lines.append(late)

    def cond(c):
        low = c["lowest"]
        return all(c["alike"]) and (not low or (2 * sum(low) > len(low)
                                                and low[-1]))
    v.settle(cond, {"alike": alike, "lowest": lowest})
    return v


def kendall_tau(a, b):
    """Kendall's tau-a of two score dicts over their common keys."""
    keys = [k for k in a if k in b]
    n, s = len(keys), 0
    for i in range(n):
        for j in range(i + 1, n):
            x = a[keys[i]] - a[keys[j]]
            y = b[keys[i]] - b[keys[j]]
            s += (x * y > 0) - (x * y < 0)
    return None if n < 2 else s / (n * (n - 1) / 2)


def seeds_note(stats, what):
    """A table's note: what each cell is, with its n when every cell has
    the same; otherwise None (each cell then carries its own n)."""
    ns = sorted({st.n for st in stats})
    if len(ns) != 1:
        return None
    n = ns[0]
    if n == 1:
        return (f"Each cell: {what}, from n = 1 seed (a single seed has no "
                f"interval: no comparison of these is decisive).")
    return (f"Each cell: {what}, mean ± the half-width of its 95 % "
            f"confidence interval over n = {n} seeds.")


def training(exps):
    """Finding 1 on the training jobs' iteration time: the verdict and a
    table per experiment (iter_x per scheme, tau against max slowdown)."""
    v = Verdict("Training jobs: spraying beats flow load balancing on "
                "iteration time")
    present = [n for n in TRAINING if n in exps]
    for n in TRAINING:
        v.need(n, exps.get(n))
    if not present:
        return v, []
    tables, not_higher, lower = [], [], []
    for n in present:
        e = exps[n]
        rows, cells = [], []
        for pt in e.points:
            jobs = []
            for s in e.schemes:
                for r in e.runs.get((pt, s), [])[:1]:
                    for jb in r.get("jobs", []):
                        if jb["name"] not in jobs:
                            jobs.append(jb["name"])
            for job in jobs:
                it, sd, ideal = {}, {}, None
                for s in e.schemes:
                    vals, slows = [], []
                    for r in e.runs.get((pt, s), []):
                        for jb in r.get("jobs", []):
                            if jb["name"] == job and \
                                    jb["iterations_ended"] == jb["iterations"]:
                                vals.append(jb["iter_us"])
                                ideal = jb["ideal_us"]
                        slows.append(r["max_slowdown"])
                    if vals:
                        it[s] = Stat.of(vals)
                        sd[s] = sum(slows) / len(slows)
                spray = {s: it[s] for s in SPRAYING if s in it}
                flow = {s: it[s] for s in FLOW_LB if s in it}
                tail = ["—", ""]
                if spray and flow:
                    g = group(spray, flow, TIE)
                    not_higher.append(g["not_higher"])
                    lower.append(g["lower"])
                    tail = group_row("", g, "spraying lower",
                                     "spraying higher")[4:]
                tau = kendall_tau({s: x.mean for s, x in it.items()}, sd)
                what = ", ".join(f"{d} {x}" for d, x in zip(e.dims, pt))
                ratio = {s: Stat(x.mean / ideal, x.hw / ideal, x.n)
                         for s, x in it.items()} if ideal else {}
                cells += ratio.values()
                rows.append([label(what or "—"), job,
                             fmt(ideal / 1e3 if ideal else None, 2)] +
                            [ratio[s] if s in ratio else None
                             for s in e.schemes] + [fmt(tau, 2)] + tail)
        note = seeds_note(cells, "the iteration time over its ideal")
        for row in rows:
            for i in range(3, 3 + len(e.schemes)):
                row[i] = "—" if row[i] is None else \
                    row[i].text(3, n=note is None)
        tables.append((f"{n}: iteration time / ideal",
                       ["case", "job", "ideal ms"] + list(e.schemes) +
                       ["tau", "spraying against flow", "seeds to decide"],
                       rows, note))
    v.lines.append("Each job's mean iteration time over its ideal (the same "
                   "job with every flow in its ideal time), per scheme.  "
                   "Finding 1 on iteration time, by its rule: o" +
                   spray_lines("every case (experiment, sweep point, job)",
                               "mean iteration time")[1:] +
                   "  tau: Kendall's tau between the schemes' order by "
                   "iteration time and by the same runs' max flow slowdown "
                   "(1: the same order).")
    if lower:
        v.settle(lambda c: all(c["not higher"]) and any(c["lower"]),
                 {"not higher": not_higher, "lower": lower})
    else:
        v.lines.append("No case ran both a spraying and a flow scheme.")
    return v, tables


def queue_ends(qs):
    """The queue-scaling experiment's shortest and longest flow points."""
    pts = sorted(qs.points, key=lambda p: lead_number(p[0]) *
                 (1024 if "MiB" in p[0] else 1))
    return pts[0], pts[-1]


def finding3(qs):
    v = Verdict("3. No leading scheme has O(1) queues at full load")
    v.need("queue-scaling", qs)
    if qs is None or len(qs.points) < 2:
        return v
    lo, hi = queue_ends(qs)
    a, b = size_mib(lo[0]), size_mib(hi[0])
    small = bool(a and b and b / a < SIZE_RANGE)
    rows, grows, capped = [], [], False
    for s in LEADING:
        x, y = qs.qstat(lo, s), qs.qstat(hi, s)
        if x is None or y is None:
            continue
        c = compare(y, x, GROWTH)
        ok = check_higher(c)
        word = {HIGHER: "grows", TIED: "bounded", LOWER: "bounded",
                None: UNDECIDED}[c.outcome]
        seeds = c.seeds_text()
        if ok is False and small:
            # Bounded over a short span: the walk may not have shown yet.
            ok, capped = None, True
            seeds = f"flows that grow {SIZE_RANGE:g}x"
        row = [s, x.text(1), y.text(1),
               f"{y.mean / x.mean:.2f}x" if x.mean else "—",
               outcome_cell(word, ok), Cell(seeds, "seeds")]
        grows.append(ok)
        rows.append(row)
    if not rows:
        return v
    v.lines.append(f"Each run's largest queue (full frames' worth of bytes, "
                   f"any switch), mean over the seeds, with {lo[0]} flows "
                   f"and with {hi[0]} flows; a scheme grows where the "
                   f"longer flows' is above the shorter's by more than "
                   f"{GROWTH * 100:g} %, decisively.")
    v.table = (["scheme", f"largest queue, {lo[0]}",
                f"largest queue, {hi[0]}", "ratio", "outcome",
                "seeds to decide"], rows)
    state = v.settle(lambda c: all(c["grows"]), {"grows": grows})
    if small and state != HOLDS:
        v.lines.append(f"Not decisive at this size: the flows grow only "
                       f"{b / a:g}x ({lo[0]} to {hi[0]}); a random "
                       f"sprayer's queue grows about as the square root of "
                       f"the run, so deciding needs flows that grow "
                       f"{SIZE_RANGE:g}x or more (the study's: 2 MiB to "
                       f"50 MiB)" + (", and a scheme bounded over them "
                                     "does not refute it" if capped else "")
                       + ".")
    return v


def finding4(qs, perm):
    v = Verdict("4. DR/ofan has O(1) queues and gains over the other "
                "spraying schemes")
    v.need("queue-scaling", qs)
    v.need("permutation", perm)
    rows, checks = [], []
    if qs is not None and len(qs.points) >= 2:
        lo, hi = queue_ends(qs)
        a, b = qs.qstat(lo, "ofan"), qs.qstat(hi, "ofan")
        if a is not None and b is not None:
            c = compare(b, a, OFAN_SLACK, absolute=True)
            ok = check_not_higher(c)
            checks.append(ok)
            rows.append(compare_row(
                f"ofan's largest queue, {hi[0]} flows against {lo[0]}",
                "ofan", "ofan", c, {True: "within a frame", False: "grows",
                                    None: UNDECIDED}[ok], ok, nd=1,
                unit=" frames"))
            c = compare(b, Stat.bound(OFAN_BOUND), 0.0, absolute=True)
            ok = check_not_higher(c)
            checks.append(ok)
            rows.append(compare_row(
                f"ofan's largest queue, {hi[0]} flows, against the bound",
                "ofan", "bound", c,
                {True: f"{OFAN_BOUND:g} or fewer",
                 False: f"above {OFAN_BOUND:g}", None: UNDECIDED}[ok], ok,
                nd=1, unit=" frames"))
    if perm is not None:
        pt = perm.full_load()
        o = perm.stat(pt, "ofan") if pt else None
        others = perm.stats_of(pt, [s for s in SPRAYING if s != "ofan"]) \
            if pt else {}
        if o is not None and others:
            g = group({"ofan": o}, others, TIE)
            checks.append(g["lower"])
            _, best, c = g["shown"]
            rows.append(compare_row(
                "ofan against every other spraying scheme, max slowdown "
                "(the permutation at full load)", "ofan", best, c,
                {True: "ofan lower", False: "ofan not lower",
                 None: UNDECIDED}[g["lower"]], g["lower"], g["seeds"]))
    if not rows:
        return v
    v.lines.append(f"ofan's largest queue (each run's, mean over the seeds) "
                   f"must stay within one full frame of its value for the "
                   f"shortest flows and at {OFAN_BOUND:g} or fewer; its max "
                   f"slowdown must be below every other spraying scheme's.")
    v.table = (COMPARE_HEAD, rows)
    v.settle(lambda c: all(c["checks"]), {"checks": checks})
    return v


# Under NSCC (paper/nscc.ini): its flow-level and spraying schemes, and
# the queues a load balancer decides (not the last hop's, to a receiver
# that many send to at once).
NSCC_FLOW = ["ecmp", "plb"]
NSCC_SPRAY = ["ops", "reps", "drb", "ofan"]
LB_LAYERS = ["tor_up", "agg_up", "core_down", "agg_down"]


def lb_qstat(e, pt, scheme):
    """Each run's largest queue on the layers before the last hop: mean
    and 95 % interval over the seeds; None if none ran."""
    rs = e.runs.get((pt, scheme), [])
    return Stat.of([max(r["max_queue"][x] for x in LB_LAYERS) for r in rs
                    if all(r["max_queue"].get(x) is not None
                           for x in LB_LAYERS)])


def nscc_section(e):
    """The study's findings with NSCC at every sender (paper/nscc.ini):
    spraying against flow load balancing on each case (max slowdown; the
    all-to-all also on its completion against the ideal), and ofan's
    largest queue against the bound and the other spraying schemes'."""
    v = Verdict("Under NSCC: spraying still beats flow load balancing, "
                "and ofan's queues stay O(1)")
    v.need("nscc", e)
    if e is None:
        return v
    rows, not_higher, lower, qchecks = [], [], [], []
    for pt in e.points:
        what = e.point_text(pt)
        keys = ["max_slowdown"]
        if "alltoall" in what:
            keys.append("collective_x")
        for key in keys:
            spray = e.stats_of(pt, NSCC_SPRAY, key)
            flow = e.stats_of(pt, NSCC_FLOW, key)
            if not spray or not flow:
                continue
            g = group(spray, flow, TIE)
            not_higher.append(g["not_higher"])
            lower.append(g["lower"])
            rows.append(group_row(f"{what}, {key.replace('_', ' ')}", g,
                                  "spraying lower", "spraying higher"))
        o = lb_qstat(e, pt, "ofan") if "permutation" in what else None
        if o is not None:
            c = compare(o, Stat.bound(OFAN_BOUND), 0.0, absolute=True)
            ok = check_not_higher(c)
            qchecks.append(ok)
            rows.append(compare_row(
                f"{what}: ofan's largest queue before the last hop, "
                "against the bound", "ofan",
                "bound", c, {True: f"{OFAN_BOUND:g} or fewer",
                             False: f"above {OFAN_BOUND:g}",
                             None: UNDECIDED}[ok], ok, nd=1,
                unit=" frames"))
    if not rows:
        return v
    v.table = (COMPARE_HEAD, rows)
    v.lines.append(
        "Every sender runs NSCC over SACK recovery and the switches trim. "
        "On each case, every spraying scheme (of " + ", ".join(NSCC_SPRAY) +
        ") against every flow-level scheme (of " + ", ".join(NSCC_FLOW) +
        ") on max slowdown (and, for the all-to-all, its completion against "
        "the ideal): spraying must be higher in no case and lower in one at "
        f"least (a tie within {TIE * 100:g} % is neither); ofan's largest "
        "queue before the last hop (ToR up, aggregation up, core down, "
        "aggregation down; mean over the seeds) must be "
        f"{OFAN_BOUND:g} full frames or fewer on the permutations, as "
        "finding 4 asks (under the all-to-all every host receives from "
        "all at once, so the queues down to it fill whatever the load "
        "balancer).")
    v.settle(lambda c: all(c["not higher"]) and any(c["lower"]) and
             all(c["queues"]),
             {"not higher": not_higher, "lower": lower, "queues": qchecks})
    return v


def time_text(us):
    """Microseconds as the configs write times: 50 µs, 1.5 ms, 1 s."""
    if us >= 1e6:
        return f"{us / 1e6:g} s"
    if us >= 1e3:
        return f"{us / 1e3:g} ms"
    return f"{us:g} µs"


def size_text(b):
    """Bytes as the configs write them: 256 KiB, 2 MiB."""
    for unit, n in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} bytes"


def size_mib(v):
    """A size sweep value in MiB ("256KiB" -> 0.25)."""
    n = lead_number(v)
    if n is None:
        return None
    return n / 1024 if "KiB" in v else n * 1024 if "GiB" in v else n


def scaling_tables(e):
    """The scaling experiment: (caption, header, rows) per view -- the
    1 MiB permutation against k, the k = 8 permutation against the flow
    size, the all-to-alls -- each cell max slowdown / largest queue."""
    if e is None or e.dims != ["point"]:
        return []
    parsed = []
    for pt in e.points:
        parts = pt[0].split("/")
        if len(parts) != 3:
            continue
        parsed.append((pt, int(lead_number(parts[0]) or 0), parts[1],
                       parts[2]))
    perms = [x for x in parsed if x[3] == "permutation"]
    if not perms:
        return []
    # Against k: the flow size of the largest fat tree; against the size:
    # the smallest fat tree (the study's: 1 MiB, k = 8).
    size_k = max(perms, key=lambda x: x[1])[2]
    k_size = min(x[1] for x in perms)
    views = [
        (f"Against k: {size_k} permutations", "k",
         [x for x in perms if x[2] == size_k], lambda x: x[1]),
        (f"Against the flow size: the k = {k_size} permutation",
         "flow size", [x for x in perms if x[1] == k_size],
         lambda x: size_mib(x[2])),
        ("All-to-all and the pod-ring overlap", "k, size, pattern",
         [x for x in parsed if x[3] != "permutation"], None),
    ]
    out = []
    for caption, xname, pts, key in views:
        if key is not None:
            pts = sorted(pts, key=key)
        if not pts:
            continue
        head = [xname] + [f"{s}: max slowdown / max queue"
                          for s in e.schemes]
        rows = []
        for pt, k, size, pat in pts:
            x = (f"k = {k}" if xname == "k" else size
                 if xname == "flow size" else f"k = {k}, {size}, {pat}")
            rows.append([x] + [f"{fmt(e.mean(pt, s))} / "
                               f"{fmt(e.qmax(pt, s), 1)}"
                               for s in e.schemes])
        out.append((caption, head, rows))
    return out


def dr_rows(exps):
    """drb next to ofan: (experiment, point, each's max slowdown and
    largest queue) wherever both ran."""
    rows = []
    for n, e in exps.items():
        if "ofan" not in e.schemes or "drb" not in e.schemes:
            continue
        for pt in e.points:
            label = ", ".join(f"{d} {v}" for d, v in zip(e.dims, pt)) or "—"
            rows.append([n, label, fmt(e.mean(pt, "ofan")),
                         fmt(e.mean(pt, "drb")), fmt(e.qmax(pt, "ofan"), 1),
                         fmt(e.qmax(pt, "drb"), 1)])
    return rows


def recovery_section(e):
    """The loss-recovery grid (reliability.ini): mean FCT per (load
    balancer, stack) for each matrix and queue, and whether the ranking
    of load balancers on the study's own stack (erasure) holds on every
    other: a pair of schemes the erasure stack orders decisively must
    not be ordered decisively the other way."""
    v = Verdict("The ranking of load balancers holds on every "
                "loss-recovery stack")
    if e is None or "stack" not in e.dims:
        return v, []
    si = e.dims.index("stack")
    stacks = []
    for pt in e.points:
        if pt[si] not in stacks:
            stacks.append(pt[si])
    cases = []
    for pt in e.points:
        case = tuple(x for i, x in enumerate(pt) if i != si)
        if case not in cases:
            cases.append(case)
    other = [d for d in e.dims if d != "stack"]
    base = "erasure" if "erasure" in stacks else stacks[0]
    tables, cells = [], []
    kept = {st: [] for st in stacks if st != base}
    broken = {st: [] for st in kept}
    open_cmps = {st: [] for st in kept}
    for case in cases:
        def at(stack):
            full = list(case)
            full.insert(si, stack)
            return tuple(full)
        what = ", ".join(f"{d} {x}" for d, x in zip(other, case)) or "—"
        rows = []
        for sc in e.schemes:
            row = [sc]
            for st in stacks:
                x = e.stat(at(st), sc, "mean_fct_us")
                row.append(x)
                if x is not None:
                    cells.append(x)
            rows.append(row)
        tables.append([what, ["scheme"] + stacks, rows])
        ref = {sc: e.stat(at(base), sc, "mean_fct_us") for sc in e.schemes}
        for st in kept:
            got = {sc: e.stat(at(st), sc, "mean_fct_us") for sc in e.schemes}
            for i, a in enumerate(e.schemes):
                for b in e.schemes[i + 1:]:
                    if None in (ref[a], ref[b], got[a], got[b]):
                        continue
                    r = compare(ref[a], ref[b], TIE)
                    s = compare(got[a], got[b], TIE)
                    if r.outcome == TIED or (r.outcome is None and
                                             s.outcome == TIED):
                        ok = True
                    elif r.outcome is None or s.outcome is None:
                        ok = None
                    else:
                        ok = s.outcome in (TIED, r.outcome)
                    kept[st].append(ok)
                    if ok is None:
                        open_cmps[st] += [x for x in (r, s)
                                          if x.outcome is None]
                    if ok is False:
                        lo, hi = (a, b) if s.outcome == LOWER else (b, a)
                        broken[st].append(
                            f"{what}: {lo} {got[lo].text(1)} µs against "
                            f"{hi} {got[hi].text(1)} µs ({base}: "
                            f"{ref[lo].text(1)} against {ref[hi].text(1)})")
    note = seeds_note(cells, "the mean FCT in µs")
    for t in tables:
        for row in t[2]:
            row[1:] = ["—" if x is None else x.text(1, n=note is None)
                       for x in row[1:]]
        t.append(note)
    v.lines.append(f"The reference ranking is each case's on the {base} "
                   f"stack (the study's own), by mean FCT.  A pair of load "
                   f"balancers is kept on another stack where {base} ties "
                   f"it, or orders it and the other stack orders it the "
                   f"same way or ties it; reversed where the two order it "
                   f"the opposite ways (each decisively, tie threshold "
                   f"{TIE * 100:g} %); not decisive otherwise.  The ranking holds "
                   f"where no pair is reversed on any stack.")
    for st in kept:
        state = settle(lambda c: all(c["kept"]), {"kept": kept[st]})
        text = f"{st}: {state}"
        if broken[st]:
            n = len(broken[st])
            text += (f" ({n} reversed pair{'s' if n > 1 else ''}; e.g. " +
                     "; ".join(broken[st][:3]) + ")")
        elif state == UNDECIDED:
            n = sum(c is None for c in kept[st])
            text += (f" ({n} of {len(kept[st])} pairs not decided; seeds "
                     f"to decide them: "
                     f"{seeds_text(most_seeds(open_cmps[st]))})")
        v.lines.append(text + ".")
    v.settle(lambda c: all(c["kept"]),
             {"kept": [c for st in kept for c in kept[st]]})
    return v, [tuple(t) for t in tables]


def ini_comment(path):
    """The leading ; comment of an experiment file, as paragraphs."""
    lines = []
    try:
        with open(path) as f:
            for line in f:
                if not line.startswith(";"):
                    break
                lines.append(line[1:].strip())
    except OSError:
        return ""
    text = " ".join(l if l else "\n" for l in lines)
    return [p.strip() for p in text.split("\n") if p.strip()]


def exp_table(e):
    j = e.j
    layers = []
    for r in j["runs"]:
        for k in r["max_queue"]:
            if k not in layers:
                layers.append(k)
    head = [e.dim_text(d) for d in e.dims] + \
        ["scheme", "seeds", "max slowdown", "p99 slowdown",
         "mean FCT (µs)", "collective / ideal"] + \
        [f"max queue {l}" for l in layers] + ["drops (mean)"]
    rows = []
    for pt in e.points:
        for s in e.schemes:
            st = e.stats.get((pt, s))
            rs = e.runs.get((pt, s), [])
            if st is None or not rs:
                continue

            def ci(k, nd=2):
                m, c = st[k]["mean"], st[k]["ci95"]
                return f"{m:.{nd}f}" + (f" ± {c:.{nd}f}" if st["seeds"] > 1
                                        else "")
            row = [e.value_text(d, x, "") for d, x in zip(e.dims, pt)] + \
                [s, st["seeds"], ci("max_slowdown"), ci("p99_slowdown"),
                 ci("mean_fct_us", 1), ci("collective_x")]
            row += [fmt(e.qmax(pt, s, l), 1) for l in layers]
            row.append(f"{sum(r['drops'] for r in rs) / len(rs):.0f}")
            if not all(r["all_completed"] for r in rs):
                row[-1] += " (incomplete)"
            rows.append(row)
    return head, rows


def cell_html(c):
    """A table cell: a Cell keeps its class; "mean ± half-width" breaks
    only before its ± when the page is narrow; other text stays on one
    line."""
    if isinstance(c, Cell):
        text, cls = c.text, c.cls
    else:
        text, cls = c, None
    attr = f' class="{cls}"' if cls else ""
    text = str(text)
    if " ± " in text and cls != "wrap":
        left, right = text.split(" ± ", 1)
        return (f'<td class="ci{" " + cls if cls else ""}">'
                f'<span>{esc(left)}</span> <span>± {esc(right)}</span></td>')
    return f"<td{attr}>{esc(text)}</td>"


def html_table(head, rows, cls="data"):
    out = [f'<table class="{cls}"><thead><tr>']
    # A heading may break after "_" and "/" (core_down, size/ECN kmin).
    out += ["<th>" + esc(h).replace("_", "_<wbr>").replace("/", "/<wbr>") +
            "</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>" + "".join(cell_html(c) for c in r) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def verdict_html(out, v, not_run=None):
    """A verdict's box: its title and state, its lines, its table, and
    not_run (HTML) when none of its experiments ran."""
    cls = v.state.replace(" ", "-")
    out.append(f'<div class="verdict {cls}"><h3>{esc(v.title)}'
               f'<span class="badge">{esc(v.state)}</span></h3>')
    for line in v.lines:
        out.append(f"<p>{esc(line)}</p>")
    if v.table:
        out.append('<div class="scroll">' + html_table(*v.table) + "</div>")
    if v.state == "not run" and not_run:
        out.append(not_run)
    out.append("</div>")


def captioned_tables(out, tables):
    """Each (caption, header, rows[, note]) as a heading, the note (what a
    cell is) and a table."""
    for caption, head, rows, *note in tables:
        out.append(f"<h3>{esc(caption)}</h3>")
        if note and note[0]:
            out.append(f'<p class="meta">{esc(note[0])}</p>')
        out.append('<div class="scroll">' + html_table(head, rows) +
                   "</div>")


def git_describe(root):
    try:
        return subprocess.run(["git", "-C", root, "describe", "--always",
                               "--dirty"], capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; line-height: 1.45; }
h1 { margin-bottom: 0.2em; }
.meta { color: #666; font-size: 0.9em; }
.verdict { border: 1px solid #ccc; border-left: 8px solid #999;
           padding: 0.6em 1em; margin: 1em 0; border-radius: 4px; }
.verdict.holds { border-left-color: #2a8a2a; background: #f3fbf3; }
.verdict.does-not-hold { border-left-color: #c0392b; background: #fdf3f2; }
.verdict.not-run, .verdict.incomplete,
.verdict.not-decisive { border-left-color: #999; background: #f6f6f6; }
.badge { font-weight: bold; padding: 0.1em 0.5em; border-radius: 3px;
         color: #fff; background: #999; margin-left: 0.5em; font-size: 0.9em;
         white-space: nowrap; }
.holds .badge { background: #2a8a2a; }
.does-not-hold .badge { background: #c0392b; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.82em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.4em; text-align: right; }
td { white-space: nowrap; }
td.wrap, td.ci, td.yes, td.no, td.nd, td.tie, td.seeds {
  white-space: normal; }
td.ci span { white-space: nowrap; }
td.yes { color: #1e6e1e; font-weight: bold; }
td.no { color: #a5281b; font-weight: bold; }
td.nd, span.nd { color: #777; background: #ececec; }
th { background: #f0f0f0; }
td:first-child, th:first-child { text-align: left; }
td.wrap { text-align: left; min-width: 8em; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; }
.plots figure { margin: 0; width: 560px; max-width: 100%; }
.plots img { width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.8em; color: #555; }
.scroll { overflow-x: auto; }
nav a { margin-right: 1em; }
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--mode", default="full")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    exps = {}
    for n in EXPERIMENTS:
        j = load(a.dir, n)
        if j is not None and j.get("runs"):
            exps[n] = Exp(j)
    if not exps:
        print(f"report.py: no experiment results in {a.dir}", file=sys.stderr)
        return 1
    verdicts = [finding1(exps.get("permutation"), exps.get("structured")),
                finding2(exps.get("permutation"), exps.get("failure"),
                         exps.get("failure-permutation"),
                         exps.get("failure-persistent")),
                finding3(exps.get("queue-scaling")),
                finding4(exps.get("queue-scaling"), exps.get("permutation"))]
    tv, ttables = training(exps)
    nv = nscc_section(exps.get("nscc"))
    durations = {}
    try:
        with open(os.path.join(a.dir, "durations.txt")) as f:
            for line in f:
                k, v = line.split()
                durations[k] = int(v)
    except (OSError, ValueError):
        pass

    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>ofan: reproducing 'Load Balancing for AI Training "
           "Workloads'</title>", f"<style>{STYLE}</style></head><body>"]
    out.append("<h1>Reproducing <em>Load Balancing for AI Training "
               "Workloads</em> with ofan</h1>")
    when = datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC")
    out.append(f'<p class="meta">ofan {esc(git_describe(root))}, '
               f"{esc(a.mode)} run, written {esc(when)}"
               + (f", {durations['total']} s" if "total" in durations else "")
               + ". Every number below is read from the runs' summary.json "
                 "files in this directory; the verdicts are computed from "
                 "them by testbed/study/report.py.</p>")
    out.append("<p>The study (arXiv 2507.21372) compares load balancing "
               "schemes on a k=8 fat tree with its own simulator (htsim, "
               "<code>htsim_consterase_drb</code>): constant-rate senders "
               "with erasure recovery, so that load balancing is judged "
               "apart from congestion control and loss recovery.  ofan runs "
               "the same experiments with the switch and host engines it "
               "runs on NICs, in ofan-fabric's virtual time, with the "
               "study's model (<code>recovery = erasure</code>, per-flow "
               "pacing, htsim's packet sizes: 4096-byte data packets and "
               "82-byte ACKs on the wire, 4178-byte pacing slots, queues of "
               "N x 4178 bytes; one traffic matrix over the seeds).  "
               "Slowdown is a flow's "
               "completion time over its ideal; queues are in full "
               "data packets' worth of bytes, the packet being sent "
               "included, and so are the queue sizes of a queue sweep "
               "(size/ECN kmin/kmax: htsim's -q 100, 100 x 4178 bytes, is "
               "102.0 frames of 4096 bytes).</p>")
    out.append("<nav>" + "".join(f'<a href="#{esc(n)}">{esc(n)}</a>'
                                 for n in exps) + "</nav>")
    out.append("<h2>The four findings</h2>")
    out.append(rule_html(
        f"{TIE * 100:g} % for times (max slowdown, mean FCT, iteration "
        f"time), {ALIKE * 100:g} % for finding 2's &ldquo;alike&rdquo;, "
        f"{GROWTH * 100:g} % growth for finding 3, {OFAN_SLACK:g} full "
        f"frame for ofan's queue in finding 4 and none for its bound of "
        f"{OFAN_BOUND:g} frames"))
    for v in verdicts:
        verdict_html(out, v, "<p>The experiments this finding needs are "
                     "not in this directory.</p>")
    scaling = scaling_tables(exps.get("scaling"))
    if scaling:
        out.append('<h2 id="scaling-views">Scaling: max slowdown and the '
                   'largest queue against k and the flow size</h2>')
        out.append("<p>Each cell: the mean max slowdown over the seeds / "
                   "the largest queue (full packets' worth of bytes, any "
                   "switch, any seed). The scaling experiment's own table "
                   "and plots are below.</p>")
        captioned_tables(out, scaling)
    rv, rtables = recovery_section(exps.get("reliability"))
    if rtables:
        out.append('<h2 id="loss-recovery">Loss recovery: the load '
                   'balancers under each stack</h2>')
        out.append("<p>The study repeats its load balancers under several "
                   "loss-recovery stacks (its runscripts/reliability-*.sh) "
                   "to show load balancing decoupled from the transport: "
                   "tcp (cumulative ACKs, fast retransmit, RTO), trimming "
                   "(everywhere, with return to sender, only at the last "
                   "hop: trimces and trimced, the latter with deep queues "
                   "elsewhere), trimcomp (no trimming, deep queues but the "
                   "last hop), erasure coding and RoCE (go-back-N over "
                   "PFC), each at its scripts' load.  Each cell: mean FCT "
                   "in µs over the seeds (docs/recovery.md).</p>")
        verdict_html(out, rv)
        captioned_tables(out, rtables)
    if "nscc" in exps:
        out.append('<h2 id="under-nscc">Under NSCC: do the findings hold '
                   'when every sender backs off?</h2>')
        out.append("<p>The study's senders never slow down.  Ultra "
                   "Ethernet's do: NSCC moves a byte window on queuing "
                   "delay, ECN and NACKs of trimmed packets (docs/uec.md). "
                   "The nscc experiment runs the flow-level schemes (ecmp, "
                   "plb), host spraying (ops, reps, drb) and ofan with NSCC "
                   "at every sender, SACK recovery and trimming, on the "
                   "permutation, the all-to-all and the permutation with a "
                   "core link failing (findings 1 and 2), and reads ofan's "
                   "largest queue (finding 4); its own table and plots are "
                   "below, with its run time.</p>")
        verdict_html(out, nv)
    if ttables:
        out.append('<h2 id="training">Training jobs: the ranking on '
                   'iteration time</h2>')
        out.append("<p>The question the study's users ask is which load "
                   "balancer makes a training step fastest.  The training "
                   "experiments run jobs with compute, collectives and "
                   "their dependencies (a dense Llama-shaped job, an MoE "
                   "job, three jobs sharing the fabric) and measure each "
                   "job's iteration time on the same fabrics and "
                   "schemes.</p>")
        verdict_html(out, tv)
        captioned_tables(out, ttables)
    dr = dr_rows(exps)
    if dr:
        out.append('<h2 id="host-dr">Host-side DR next to switch DR</h2>')
        out.append("<p>drb: every host rotates its packets over every core "
                   "path and source-routes them through sr switches (the "
                   "fork's -hostlb drb); ofan: the switches rotate per "
                   "destination. Max slowdown (mean over the seeds) and "
                   "the largest queue, wherever both ran.</p>")
        out.append('<div class="scroll">' + html_table(
            ["experiment", "point", "ofan max slowdown", "drb max slowdown",
             "ofan max queue", "drb max queue"], dr) + "</div>")
    for n, e in exps.items():
        j = e.j
        out.append(f'<h2 id="{esc(n)}">{esc(n)}: {esc(j["experiment"])}</h2>')
        for p in ini_comment(os.path.join(root, j["config"])
                             if not os.path.isabs(j["config"])
                             else j["config"]) or []:
            out.append(f"<p>{esc(p)}</p>")
        fab = j["fabric"]
        out.append(f'<p class="meta">{esc(fab["topology"])}'
                   + (f' k={fab["k"]}' if "k" in fab else "")
                   + f', {fab["hosts"]} hosts, {fab["rate_bps"] / 1e9:g} Gb/s,'
                   f' pattern {esc(fab["pattern"])}, recovery '
                   f'{esc(fab.get("recovery", "?"))}, pacing '
                   f'{esc(fab.get("pacing", "?"))}, {j.get("seeds", 1)} '
                   f'seed(s), config {esc(j["config"])}'
                   + (f", {durations[n]} s" if n in durations else "")
                   + ("" if e.completed() else
                      " — some runs did not complete") + ".</p>")
        # What was run, which the file's text above may not describe.
        asrun = [f"{size_text(fab['size'])} flows"] if "size" in fab else []
        for jb in fab.get("jobs", []):
            asrun.append(f"job {jb['name']}: {jb['model']}, {jb['ranks']} "
                         f"ranks, {jb['iterations']} iteration(s), "
                         f"{jb['placement']}")
        fails = [f"{f['link']} {f['mode']} at {time_text(f['at_us'])}"
                 for f in fab.get("failures", []) if not f.get("at_start")]
        asrun.append(("failure: " + ", ".join(fails) +
                      (" (at the first sweep point)" if e.dims else ""))
                     if fails else "no failure")
        try:
            with open(os.path.join(e.j["_dir"], "run.json")) as f:
                ov = json.load(f).get("overrides", [])
        except (OSError, ValueError):
            ov = []
        if ov:
            asrun.append("overrides: " + " ".join(ov) +
                         " (the text above describes the file as it is)")
        out.append(f'<p class="meta">As run: {esc("; ".join(asrun))}.</p>')
        out.append('<div class="scroll">' + html_table(*exp_table(e)) +
                   "</div>")
        pngs = sorted(glob.glob(os.path.join(e.j["_dir"], "*.png")))
        out.append('<div class="plots">')
        for p in pngs:
            rel = os.path.relpath(p, a.dir)
            out.append(f'<figure><img src="{esc(rel)}" '
                       f'alt="{esc(os.path.basename(p))}" loading="eager">'
                       f"<figcaption>{esc(os.path.basename(p))}"
                       "</figcaption></figure>")
        out.append("</div>")
    # Marks the page once every image has loaded (the rendering test reads
    # it); nothing a reader sees.
    out.append("<script>window.addEventListener('load', function () {"
               "var im = document.images, ok = 0;"
               "for (var i = 0; i < im.length; i++)"
               " if (im[i].complete && im[i].naturalWidth > 0) ok++;"
               "document.body.setAttribute('data-images', ok + '/' + "
               "im.length); });</script>")
    out.append("</body></html>")
    path = os.path.join(a.dir, "report.html")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    for v in verdicts:
        print(f"finding {v.title}: {v.state}")
    if rtables:
        print(f"loss recovery: {rv.title}: {rv.state}")
    if ttables:
        print(f"training: {tv.title}: {tv.state}")
    if "nscc" in exps:
        print(f"nscc: {nv.title}: {nv.state}")
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
