#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare ofan-htsim-plan's output with uet-htsim's validate.py output.

    uet-compare.py [--markdown] OFAN_OUT HTSIM_OUT [OFAN_OUT HTSIM_OUT ...]

Each pair is one plan run both ways (ofan-htsim-plan PLAN, and uet-htsim's
`python3 validate.py PLAN` in its datacenter/ folder).  Experiments are
matched in order and by name.  For each it prints both tail FCTs (the
latest flow's finish, us), their ratio, whether ofan is within +-10 % of
uet-htsim, and each one's verdict on the plan's target; then the share of
experiments within +-10 % and the targets uet-htsim passes that ofan misses.
Exit status 0.
"""
import re
import sys

EXP = re.compile(r"^Experiment: (.*?) ?$")
TAIL = re.compile(r"^\[(PASS|FAIL)\] Tail FCT ([0-9.e+-]+) us (?:below|above) the target of ([0-9.e+-]+) us")
NOTRUN = re.compile(r"^\[FAIL\] not run: (.*)$")


def read(path):
    """[(name, verdict, tail_us or None, target, note)] in order."""
    out, cur = [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = EXP.match(line)
            if m:
                cur = {"name": m.group(1), "verdict": None, "tail": None,
                       "target": None, "note": ""}
                out.append(cur)
                continue
            if cur is None:
                continue
            m = TAIL.match(line)
            if m and cur["verdict"] is None:
                cur["verdict"], cur["tail"] = m.group(1), float(m.group(2))
                cur["target"] = float(m.group(3))
                continue
            m = NOTRUN.match(line)
            if m:
                cur["verdict"], cur["note"] = "FAIL", "not run: " + m.group(1)
    return out


def main(argv):
    md = "--markdown" in argv
    args = [a for a in argv if a != "--markdown"]
    if len(args) < 2 or len(args) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows, within, compared, missed = [], 0, 0, []
    for i in range(0, len(args), 2):
        ours, theirs = read(args[i]), read(args[i + 1])
        for k, o in enumerate(ours):
            t = theirs[k] if k < len(theirs) else None
            if t is not None and t["name"] != o["name"]:
                t = next((x for x in theirs if x["name"] == o["name"]), None)
            ht = t["tail"] if t else None
            ot = o["tail"] if o["note"] == "" else None
            ratio = ot / ht if ot and ht else None
            ok = ratio is not None and 0.9 <= ratio <= 1.1
            compared += 1
            within += ok
            if t and t["verdict"] == "PASS" and o["verdict"] != "PASS":
                missed.append(o["name"])
            rows.append((o["name"], o["target"] or (t and t["target"]), ht,
                         t["verdict"] if t else "-", ot, o["verdict"] or "-",
                         ratio, ok, o["note"]))
    if md:
        print("| experiment | target us | uet-htsim us | verdict | ofan us | verdict | ofan / uet-htsim | within 10 % |")
        print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        name, target, ht, hv, ot, ov, ratio, ok, note = r
        f = lambda x: "-" if x is None else "%g" % x
        if md:
            print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                name, f(target), f(ht), hv, f(ot) if not note else "not run",
                ov, "-" if ratio is None else "%.3f" % ratio,
                "yes" if ok else "no"))
        else:
            print("%-70.70s %8s %10s %4s %10s %4s %6s %s" % (
                name, f(target), f(ht), hv, f(ot), ov,
                "-" if ratio is None else "%.3f" % ratio, "ok" if ok else "--"))
    print("\n%d of %d experiments within +-10 %% of uet-htsim (%.0f %%)" % (
        within, compared, 100.0 * within / max(compared, 1)))
    print("targets uet-htsim passes and ofan misses: %d" % len(missed))
    for m in missed:
        print("  " + m)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
