#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The study report's verdicts on synthetic results, without a fabric run.

usage: test_verdicts.py SOURCE_ROOT [REPORT_PY]
       test_verdicts.py --write-full DIR

Writes small summary.json files (the fields testbed/study/report.py
reads) whose means, intervals and seeds are chosen, runs report.py on
each set as reproduce.sh does, and checks every verdict it prints: each
finding, the training jobs and the loss recovery through holds, does not
hold and not decisive, including the cases a rule without intervals gets
wrong (a win inside overlapping intervals, a difference exactly at the
tie threshold, intervals that touch, a single seed).  Then the rule itself
(testbed/study/verdict.py): the comparison at its edges and the seeds it
asks for, and the page: the rule stated once, intervals and n beside the
compared numbers, not-decisive cells grey, queue sizes in frames.
REPORT_PY (default: the tree's) lets the same checks run on another
version of report.py.  Prints "ok: ..." or "FAIL: ..." per check; exit
status 1 if any failed.

--write-full DIR writes a result set shaped as a full run (ten schemes,
every experiment the report reads) for the rendering test
(tests/eal/report.sh) to lay out at 1100 px.
"""
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import tempfile

FAILS = 0
T975 = {1: 12.706, 2: 4.303, 9: 2.262}
SPRAYING = ["ops", "reps", "spray", "adaptive", "rr", "ofan"]
FLOW = ["ecmp", "plb", "flowlet", "mp"]
SWITCH = ["spray", "adaptive", "rr", "ofan"]
QUEUE_INI = ("[sweep.load]\nkeys = host.rate_coef\nvalues = 1.0\n\n"
             "[sweep.queue]\nkeys = queue.queue_bytes, queue.ecn_kmin, "
             "queue.ecn_kmax\nvalues = 417800/208900/208900\n")
FULL_QUEUE = {"load": "1.0", "queue": "417800/208900/208900"}


def check(what, ok, detail=""):
    global FAILS
    if ok:
        print(f"ok: {what}")
    else:
        FAILS += 1
        print(f"FAIL: {what}" + (f": {detail}" if detail else ""))


# --- synthetic results ------------------------------------------------

def spec_values(spec):
    """A cell's per-seed values and its (mean, half-width, n): spec is a
    list of values, or (mean, half-width, n) as summary.json holds it."""
    if isinstance(spec, tuple):
        m, hw, n = spec
        return [m] * n, (m, hw, n)
    n = len(spec)
    m = sum(spec) / n
    if n == 1:
        return spec, (m, 0.0, 1)
    sd = math.sqrt(sum((x - m) ** 2 for x in spec) / (n - 1))
    return spec, (m, T975[n - 1] * sd / math.sqrt(n), n)


def experiment(name, cells, fabric=None, ini=""):
    """A summary.json: cells is [(sweep dict, scheme, {key: spec})]; keys
    max_slowdown and mean_fct_us (per-scheme statistics), queue (each
    run's largest queue), iter (a job's iteration times, µs)."""
    runs, schemes = [], []
    for sweep, scheme, keys in cells:
        ms = keys.get("max_slowdown", (1.0, 0.0, 2))
        vals, (m, hw, n) = spec_values(ms)
        fct_vals, fct = spec_values(keys.get("mean_fct_us", (m * 100, 0.0,
                                                            n)))
        q = keys.get("queue", [5.0] * n)
        it = keys.get("iter")
        for i in range(n):
            r = {"scheme": scheme, "sweep": dict(sweep), "seed": i + 1,
                 "max_slowdown": vals[i], "p99_slowdown": vals[i],
                 "mean_fct_us": fct_vals[i % len(fct_vals)],
                 "collective_us": 1000.0, "collective_ideal_us": 900.0,
                 "max_queue": {"tor_up": q[i % len(q)],
                               "all": q[i % len(q)]},
                 "drops": 0, "all_completed": True}
            if it is not None:
                r["jobs"] = [{"name": "llama", "iterations": 1,
                              "iterations_ended": 1,
                              "iter_us": it[i % len(it)],
                              "ideal_us": 1000.0}]
            runs.append(r)
        entry = {"scheme": scheme, "sweep": dict(sweep), "seeds": n,
                 "max_slowdown": {"mean": m, "ci95": hw},
                 "p99_slowdown": {"mean": m, "ci95": hw},
                 "mean_fct_us": {"mean": fct[0], "ci95": fct[1]},
                 "collective_x": {"mean": 1.1, "ci95": 0.0}}
        schemes.append(entry)
    fab = {"topology": "fattree", "k": 4, "hosts": 16, "rate_bps": 1e11,
           "pattern": "permutation", "full_frame_bytes": 4096,
           "failures": []}
    fab.update(fabric or {})
    return name, {"experiment": "synthetic-" + name,
                  "config": f"/nonexistent/{name}.ini", "seed": 1,
                  "seeds": max(e["seeds"] for e in schemes),
                  "fabric": fab, "runs": runs, "schemes": schemes}, ini


def write(root, exps):
    for name, j, ini in exps:
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump(j, f)
        if ini:
            with open(os.path.join(d, "config.ini"), "w") as f:
                f.write(ini)


def spray_flow(sweep, spray, flow, spray_names=SPRAYING, flow_names=FLOW,
               extra=None):
    """Every spraying scheme at spray, every flow scheme at flow (specs),
    extra: scheme -> spec overriding one."""
    extra = extra or {}
    return [(sweep, s, {"max_slowdown": extra.get(s, spray)})
            for s in spray_names] + \
        [(sweep, s, {"max_slowdown": extra.get(s, flow)})
         for s in flow_names]


def permutation(spray, flow, extra=None):
    return experiment("permutation", spray_flow(FULL_QUEUE, spray, flow,
                                                extra=extra), ini=QUEUE_INI)


def structured(cases):
    """cases: pattern -> (spray spec, flow spec, extra)."""
    cells = []
    for pat, (spray, flow, extra) in cases.items():
        cells += spray_flow({"pattern": pat}, spray, flow, extra=extra)
    return experiment("structured", cells)


def failure(per_delay, at_us=50, end_us=1000.0, name="failure"):
    """per_delay: delay -> (reps spec, switch spec, extra)."""
    cells = []
    for delay, (reps, sw, extra) in per_delay.items():
        extra = extra or {}
        cells.append(({"reconverge": delay}, "reps",
                      {"max_slowdown": reps}))
        cells += [({"reconverge": delay}, s,
                   {"max_slowdown": extra.get(s, sw)}) for s in SWITCH]
    n, j, ini = experiment(name, cells, fabric={
        "failures": [{"link": "agg0-core0", "mode": "blackhole",
                      "at_us": at_us, "at_start": False}]})
    for r in j["runs"]:
        r["collective_us"] = end_us
    return n, j, ini


def queue_scaling(queues, sizes=("2MiB", "50MiB")):
    """queues: scheme -> per size, the per-seed largest queues."""
    cells = []
    for i, size in enumerate(sizes):
        for s, q in queues.items():
            cells.append(({"size": size}, s,
                          {"queue": q[i], "max_slowdown":
                           (1.02 if s == "ofan" else 1.05, 0.0,
                            len(q[i]))}))
    return experiment("queue-scaling", cells)


def training(spray_iters, flow_iters, extra=None):
    """The three training experiments, one case each: iteration times."""
    extra = extra or {}
    out = []
    for n in ("training-dense", "training-moe", "training-mixed"):
        cells = []
        for s in ["ecmp", "plb", "reps", "spray", "ofan"]:
            it = extra.get(s, spray_iters if s in SPRAYING else flow_iters)
            cells.append(({"failure": "no"}, s,
                          {"iter": it, "max_slowdown": (1.1, 0.0, len(it))}))
        out.append(experiment(n, cells))
    return out


def reliability(erasure, other):
    """The loss-recovery grid: per stack, scheme -> mean FCT spec."""
    cells = []
    for stack, fcts in (("erasure", erasure), ("tcp", other)):
        for s, spec in fcts.items():
            cells.append(({"q": "q8", "stack": stack}, s,
                          {"mean_fct_us": spec,
                           "max_slowdown": (1.1, 0.0, spec[2] if
                                            isinstance(spec, tuple)
                                            else len(spec))}))
    return experiment("reliability", cells)


# Tight, well-apart building blocks (10 seeds).
SPRAY = (1.10, 0.01, 10)
FLOW_HI = (2.00, 0.05, 10)
TIE_10 = (1.01, 0.001, 10)


def f1_structured_ok():
    return structured({"ring": (TIE_10, TIE_10, None),
                       "podring": ((1.01, 0.005, 10), (1.90, 0.05, 10),
                                   None)})


def alike_perm():
    """The permutation at full load with OPS and REPS alike with spray
    and ofan lowest (findings 2 and 4 read it)."""
    # OPS 4.5 % above spray: alike at 10 %, apart at 2 %.
    return permutation(SPRAY, FLOW_HI, extra={"ofan": (1.02, 0.005, 10),
                                              "ops": (1.15, 0.01, 10)})


QS_OK = {s: ([50.0, 52.0, 51.0], [300.0, 310.0, 305.0])
         for s in ["ops", "reps", "adaptive", "rr"]}
QS_OK["spray"] = ([50.0, 52.0, 51.0], [85.0, 87.0, 86.0])    # 1.69x
QS_OK["ofan"] = ([6.0, 6.0, 6.0], [6.0, 6.0, 6.1])
FAIL_OK = {d: ((1.02, 0.005, 10), (1.10, 0.01, 10), None)
           for d in ("5us", "50us", "150us")}

# name -> (result set, {verdict: state}): every verdict path.
SCENARIOS = {
    "finding 1 holds": (
        [permutation(SPRAY, FLOW_HI), f1_structured_ok()], {"1": "holds"}),
    "finding 1 does not hold: a flow scheme decisively lower": (
        [permutation(SPRAY, FLOW_HI),
         structured({"ring": (TIE_10, TIE_10, None),
                     "torring": ((1.10, 0.01, 10), (1.10, 0.01, 10),
                                 {"rr": (1.30, 0.01, 10)})})],
        {"1": "does not hold"}),
    "finding 1 does not hold: every case a tie": (
        [permutation(TIE_10, TIE_10),
         structured({"ring": (TIE_10, TIE_10, None)})],
        {"1": "does not hold"}),
    # The researcher's smoke report: mp 1.78 ± 3.01 against rr 1.16.
    "finding 1 not decisive: mp 1.78 ± 3.01 against rr 1.16 ± 0.16": (
        [permutation((1.12, 0.10, 2), (2.0, 2.98, 2),
                     extra={"rr": (1.16, 0.16, 2), "mp": (1.78, 3.01, 2)}),
         structured({"ring": ((1.02, 0.02, 2), (1.02, 0.02, 2), None)})],
        {"1": "not decisive"}),
    # 51 - 50 is exactly 2 % of 50: not beyond the tie threshold.
    "finding 1 not decisive: a difference exactly at the threshold": (
        [permutation((50.0, 0.1, 10), (51.0, 0.1, 10)),
         structured({"ring": ((50.0, 0.1, 10), (51.0, 0.1, 10), None)})],
        {"1": "not decisive"}),
    # 1.0 + 0.25 = 1.5 - 0.25: intervals that touch overlap.
    "finding 1 not decisive: intervals that touch": (
        [permutation((1.0, 0.25, 10), (1.5, 0.25, 10)),
         structured({"ring": ((1.0, 0.25, 10), (1.5, 0.25, 10), None)})],
        {"1": "not decisive"}),
    "finding 2 holds": (
        [alike_perm(), failure(FAIL_OK)], {"2": "holds"}),
    "finding 2 does not hold: a switch scheme lower at the longest delay": (
        [alike_perm(),
         failure(dict(FAIL_OK, **{"150us": ((1.10, 0.01, 10),
                                            (1.10, 0.01, 10),
                                            {"adaptive": (1.02, 0.005,
                                                          10)})}))],
        {"2": "does not hold"}),
    "finding 2 does not hold: REPS lowest at 2 of 4 delays": (
        [alike_perm(),
         failure({d: FAIL_OK["5us"] if d in ("50us", "150us") else
                  ((1.10, 0.01, 10), (1.10, 0.01, 10),
                   {"rr": (1.02, 0.005, 10)})
                  for d in ("5us", "10us", "50us", "150us")})],
        {"2": "does not hold"}),
    "finding 2 does not hold: REPS decisively 20 % below spray": (
        [permutation(SPRAY, FLOW_HI, extra={"reps": (0.88, 0.01, 10)}),
         failure(FAIL_OK)], {"2": "does not hold"}),
    "finding 2 does not hold: OPS decisively apart from spray": (
        [permutation(SPRAY, FLOW_HI, extra={"ops": (1.40, 0.01, 10)}),
         failure(FAIL_OK)], {"2": "does not hold"}),
    # The researcher's smoke report: REPS "wins" at 2 of 3 delays.
    "finding 2 not decisive: REPS's wins inside overlapping intervals": (
        [permutation((1.12, 0.30, 2), FLOW_HI,
                     extra={"ops": (1.14, 0.0, 2), "reps": (1.13, 0.31, 2)}),
         failure({"5us": ((1.12, 0.05, 2), (1.14, 0.08, 2),
                          {"ofan": (1.08, 0.05, 2)}),
                  "50us": ((1.37, 0.35, 2), (1.45, 0.10, 2),
                           {"adaptive": (1.39, 0.07, 2)}),
                  "150us": ((1.45, 0.69, 2), (1.70, 0.5, 2),
                            {"spray": (1.62, 1.69, 2)})})],
        {"2": "not decisive"}),
    "finding 2 not decisive: the failure after the traffic": (
        [alike_perm(), failure(FAIL_OK, at_us=50, end_us=40.0)],
        {"2": "not decisive"}),
    "finding 3 holds": ([queue_scaling(QS_OK)], {"3": "holds"}),
    "finding 3 does not hold: rr decisively bounded": (
        [queue_scaling(dict(QS_OK, rr=([50.0, 51.0, 52.0],
                                       [52.0, 50.0, 51.0])))],
        {"3": "does not hold"}),
    "finding 3 not decisive: intervals too wide": (
        [queue_scaling(dict(QS_OK, rr=([10.0, 60.0], [100.0, 20.0])))],
        {"3": "not decisive"}),
    "finding 3 not decisive: bounded over flows that grow 4x": (
        [queue_scaling(dict(QS_OK, rr=([50.0, 51.0, 52.0],
                                       [52.0, 50.0, 51.0])),
                       sizes=("256KiB", "1MiB"))],
        {"3": "not decisive"}),
    "finding 4 holds": (
        [queue_scaling(QS_OK), alike_perm()], {"4": "holds"}),
    "finding 4 does not hold: ofan's queue grows": (
        [queue_scaling(dict(QS_OK, ofan=([6.0, 6.0, 6.0],
                                         [20.0, 21.0, 22.0]))),
         alike_perm()], {"4": "does not hold"}),
    "finding 4 does not hold: ofan's queue 1.5 frames above": (
        [queue_scaling(dict(QS_OK, ofan=([6.0, 6.0, 6.0],
                                         [7.5, 7.5, 7.6]))),
         alike_perm()], {"4": "does not hold"}),
    "finding 4 does not hold: ofan not lower than adaptive": (
        [queue_scaling(QS_OK),
         permutation(SPRAY, FLOW_HI, extra={"ofan": (1.02, 0.005, 10),
                                            "adaptive": (1.02, 0.005,
                                                         10)})],
        {"4": "does not hold"}),
    "finding 4 not decisive: ofan's queue over two noisy seeds": (
        [queue_scaling(dict(QS_OK, ofan=([4.0, 12.0], [5.0, 11.0]))),
         alike_perm()], {"4": "not decisive"}),
    "training holds": (
        training([1000.0, 1002.0], [1500.0, 1502.0]), {"training": "holds"}),
    "training does not hold: a sprayer decisively slower": (
        training([1000.0, 1002.0], [1500.0, 1502.0],
                 extra={"spray": [1800.0, 1802.0]}),
        {"training": "does not hold"}),
    "training not decisive: one seed": (
        training([1000.0], [1500.0]), {"training": "not decisive"}),
    "loss recovery holds": (
        [reliability({"ecmp": (200.0, 1.0, 2), "ops": (100.0, 1.0, 2)},
                     {"ecmp": (210.0, 1.0, 2), "ops": (110.0, 1.0, 2)})],
        {"loss recovery": "holds"}),
    "loss recovery does not hold: a pair reversed": (
        [reliability({"ecmp": (200.0, 1.0, 2), "ops": (100.0, 1.0, 2)},
                     {"ecmp": (110.0, 1.0, 2), "ops": (210.0, 1.0, 2)})],
        {"loss recovery": "does not hold"}),
    # Reversed by 33 % of the means, inside the intervals.
    "loss recovery not decisive: a reversal inside the intervals": (
        [reliability({"ecmp": (200.0, 1.0, 2), "ops": (100.0, 1.0, 2)},
                     {"ecmp": (150.0, 60.0, 2), "ops": (200.0, 60.0, 2)})],
        {"loss recovery": "not decisive"}),
}


def run_report(report_py, root):
    """report.py on root: (exit status, {verdict key: state}, stderr)."""
    p = subprocess.run([sys.executable, report_py, "--mode", "test", root],
                       capture_output=True, text=True, timeout=120)
    states = {}
    for line in p.stdout.splitlines():
        m = re.match(r"finding (\d)\. .*: ([a-z ]+)$", line)
        if m:
            states[m.group(1)] = m.group(2)
        m = re.match(r"(training|loss recovery): .*: ([a-z ]+)$", line)
        if m:
            states[m.group(1)] = m.group(2)
    return p.returncode, states, p.stderr


def test_scenarios(report_py, tmp):
    for i, (name, (exps, want)) in enumerate(SCENARIOS.items()):
        root = os.path.join(tmp, f"s{i}")
        write(root, exps)
        rc, got, err = run_report(report_py, root)
        if rc != 0:
            check(name, False, f"report.py exited {rc}: {err.strip()[-300:]}")
            continue
        for k, state in want.items():
            check(f"{name}: {k} is '{state}'", got.get(k) == state,
                  f"got '{got.get(k)}'")


def test_page(report_py, tmp):
    """The page of the researcher's case: the rule once, intervals with n
    beside the numbers compared, not-decisive grey with its seeds, queue
    sizes in frames."""
    name = "finding 1 not decisive: mp 1.78 ± 3.01 against rr 1.16 ± 0.16"
    root = os.path.join(tmp, "page")
    write(root, SCENARIOS[name][0])
    rc, _, err = run_report(report_py, root)
    path = os.path.join(root, "report.html")
    if rc != 0 or not os.path.exists(path):
        check("the page is written", False, err.strip()[-300:])
        return
    with open(path) as f:
        page = f.read()
    text = re.sub(r"<[^>]+>", "", page)
    check("the rule is stated once on the page",
          page.count("How the verdicts are decided") == 1)
    check("rr's interval and n beside its mean",
          "rr 1.16 ± 0.16 (n = 2)" in text)
    check("mp's interval and n beside its mean",
          "mp 1.78 ± 3.01 (n = 2)" in text)
    check("the not-decisive outcome is grey",
          '<td class="nd">not decisive</td>' in page)
    check("its seeds to decide beside it",
          re.search(r'<td class="nd">not decisive</td>'
                    r'<td class="seeds">about \d+</td>',
                    page) is not None)
    check("queue sizes in full frames, not bytes",
          "102.0/51.0/51.0 frames" in page and "417800" not in page)


def load_verdict(src):
    path = os.path.join(src, "testbed", "study", "verdict.py")
    spec = importlib.util.spec_from_file_location("verdict", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_rule(src):
    """verdict.compare() and its seeds at their edges."""
    try:
        v = load_verdict(src)
    except (OSError, ImportError, SyntaxError) as e:
        check("testbed/study/verdict.py loads", False, str(e))
        return
    S = v.Stat
    cases = [
        # (a, b, tie, absolute, outcome of a against b)
        (S(1.0, 0.01, 10), S(1.5, 0.01, 10), 0.02, False, v.LOWER),
        (S(1.5, 0.01, 10), S(1.0, 0.01, 10), 0.02, False, v.HIGHER),
        (S(50.0, 0.0001, 10), S(51.0, 0.0001, 10), 0.02, False, None),
        (S(50.0, 0.0001, 10), S(51.0001, 0.0001, 10), 0.02, False,
         v.LOWER),
        (S(1.0, 0.25, 10), S(1.5, 0.25, 10), 0.02, False, None),
        (S(1.0, 0.25, 10), S(1.5, 0.2499, 10), 0.02, False, v.LOWER),
        (S(1.16, 0.16, 2), S(1.78, 3.01, 2), 0.02, False, None),
        (S(1.0, 0.0, 1), S(2.0, 0.0, 1), 0.02, False, None),
        (S(1.00, 0.002, 10), S(1.01, 0.002, 10), 0.02, False, v.TIE),
        (S(1.00, 0.02, 10), S(1.01, 0.02, 10), 0.02, False, None),
        (S(6.0, 0.2, 3), S(6.1, 0.2, 3), 1.0, True, v.TIE),
        (S(6.0, 0.2, 3), S(8.0, 0.2, 3), 1.0, True, v.LOWER),
        (S(7.5, 0.4, 3), v.Stat.bound(8.0), 0.0, True, v.LOWER),
        (S(7.5, 0.6, 3), v.Stat.bound(8.0), 0.0, True, None),
    ]
    for a, b, tie, ab, want in cases:
        got = v.compare(a, b, tie, ab).outcome
        check(f"compare {a.mean:g} ± {a.hw:g} (n = {a.n}) against "
              f"{b.mean:g} ± {b.hw:g} (n = {b.n}) (tie {tie:g}"
              f"{' absolute' if ab else ''}): {want}", got == want,
              f"got {got}")
    # Seeds: s = 0.12706 * sqrt(2) / 12.706 = 0.01414; w = 0.1 / 2;
    # n = 3: 4.303 * 0.01414 / sqrt(3) = 0.0351 < 0.05 (n = 2: 0.127).
    c = v.compare(S(1.10, 0.12706, 2), S(1.00, 0.12706, 2), 0.02)
    check("seeds to part 1.10 ± 0.127 from 1.00 ± 0.127 (n = 2): 3",
          c.outcome is None and c.seeds == 3, f"got {c.seeds}")
    # A tie to show: w = ((1.02) * 1.00 - 1.005) / 2.02 = 0.00743; s =
    # 0.05 * sqrt(3) / 4.303 = 0.02013; n = 31: 2.042 * 0.02013 / 5.568 =
    # 0.00738 < w (n = 30: 2.045 * 0.02013 / 5.477 = 0.00752).
    c = v.compare(S(1.00, 0.05, 3), S(1.005, 0.05, 3), 0.02)
    check("seeds to show a tie of 1.00 and 1.005 ± 0.05 (n = 3): 31",
          c.outcome is None and c.seeds == 31, f"got {c.seeds}")
    c = v.compare(S(1.0, 0.0, 1), S(2.0, 0.0, 1), 0.02)
    check("one seed: the spread must be measured first",
          c.seeds == "spread" and "2 or more" in c.seeds_text())
    # settle(): holds only with every not-decisive check against it.
    cond = (lambda c: all(c["x"]))
    check("settle: all decided as claimed holds",
          v.settle(cond, {"x": [True, True]}) == v.HOLDS)
    check("settle: one decided against does not hold",
          v.settle(cond, {"x": [True, False, None]}) == v.FAILS)
    check("settle: one not decisive is not decisive",
          v.settle(cond, {"x": [True, None]}) == v.UNDECIDED)
    most = (lambda c: 2 * sum(c["x"]) > len(c["x"]))
    check("settle: 2 wins of 3 with one not decisive holds",
          v.settle(most, {"x": [True, True, None]}) == v.HOLDS)
    check("settle: 1 win of 3 and one not decisive is not decisive",
          v.settle(most, {"x": [True, None, False]}) == v.UNDECIDED)
    check("settle: 1 win of 3 and two lost does not hold",
          v.settle(most, {"x": [True, False, False]}) == v.FAILS)


def write_full(root):
    """A result set shaped as a full run, for the layout test."""
    ten = SPRAYING + FLOW
    exps = [permutation(SPRAY, FLOW_HI),
            structured({p: (TIE_10, (1.5, 0.3, 10), None)
                        for p in ("ring", "podring", "podring_ol",
                                  "torring")}),
            failure({d: ((1.02, 0.005, 3), (1.10, 0.04, 3), None)
                     for d in ("5us", "10us", "25us", "50us", "100us",
                               "150us")}),
            queue_scaling({s: (q[0], q[1], q[1]) for s, q in QS_OK.items()},
                          sizes=("2MiB", "8MiB", "50MiB")),
            reliability({"ecmp": (200.0, 1.0, 2), "ops": (100.0, 1.0, 2)},
                        {"ecmp": (150.0, 60.0, 2), "ops": (200.0, 60.0, 2)})]
    for n in ("training-dense", "training-moe", "training-mixed"):
        cells = [({"failure": f, "placement": p}, s,
                  {"iter": [1000.0 + 17 * i, 1010.0 + 13 * i, 1003.0],
                   "max_slowdown": (1.1, 0.0, 3)})
                 for f in ("no", "yes") for p in ("packed", "random")
                 for i, s in enumerate(ten)]
        exps.append(experiment(n, cells))
    write(root, exps)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--write-full":
        write_full(sys.argv[2])
        return 0
    if len(sys.argv) not in (2, 3):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    src = sys.argv[1]
    report_py = sys.argv[2] if len(sys.argv) == 3 else \
        os.path.join(src, "testbed", "study", "report.py")
    with tempfile.TemporaryDirectory(prefix="ofan-verdicts.") as tmp:
        test_scenarios(report_py, tmp)
        test_page(report_py, tmp)
    test_rule(src)
    print(f"{FAILS} failed" if FAILS else "all passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
