#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Print the table of docs/testing.md that says which registered mode each
# fuzzer and the soak cover, read from the programs themselves:
# `ofan-host --list` (every registered host policy, recovery model and
# congestion controller), fuzz-host-modes and fuzz-switch-modes (what
# fuzz_host and fuzz_switch draw, from the same registries; tests/fuzz/)
# and the soak's parts (`testbed/soak.sh --list-parts`, from
# testbed/soak_parts.py).  tests/eal/testing-modes.sh fails
# when the committed table differs, or when a registered recovery model or
# controller is missing from fuzz_host or the soak.
#
#   scripts/testing-modes.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case ${1-} in
--version) exec "$root/scripts/version.sh" "$0" ;;
-h | --help)
	sed -n '3,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
	exit 0
	;;
esac
build=${1:-$root/build}
for p in host/ofan-host tests/fuzz/fuzz-host-modes tests/fuzz/fuzz-switch-modes; do
	if [[ ! -x $build/$p ]]; then
		echo "testing-modes.sh: $build/$p not found; build first: scripts/build.sh" >&2
		exit 2
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/host/ofan-host" --list >"$tmp/registered"
"$build/tests/fuzz/fuzz-host-modes" >"$tmp/fuzz_host"
"$build/tests/fuzz/fuzz-switch-modes" >"$tmp/fuzz_switch"
/usr/bin/python3 "$root/testbed/soak_parts.py" plan --host "$build/host/ofan-host" \
	--out "$tmp/soak.json" >/dev/null

/usr/bin/python3 - "$tmp" <<'PY'
import json, os, sys

d = sys.argv[1]

def pairs(name):
    out = []
    for line in open(os.path.join(d, name)):
        f = line.split()
        if len(f) >= 2:
            out.append((f[0], f[1]))
    return out

reg = pairs("registered")
fh = set(pairs("fuzz_host"))
fs = pairs("fuzz_switch")
parts = json.load(open(os.path.join(d, "soak.json")))["parts"]

def keys(p, section):
    return (p.get("keys") or {}).get(section) or {}

def soak_uses(kind, name):
    """The soak parts that run mode (kind, name)."""
    got = []
    for p in parts:
        h, q = keys(p, "host"), keys(p, "queue")
        trim = q.get("trim") == "yes"
        if kind in ("recovery", "cc"):
            hit = h.get(kind) == name
        elif kind == "trim":
            hit = trim and q.get("trim_size", "header") == name
        elif kind == "rts":
            hit = trim and name != "no" and q.get("rts") == name
        elif kind == "pfc":
            hit = q.get("pfc") == "yes" and q.get("pfc_mode", "auto") == name
        elif kind == "job":
            hit = keys(p, "traffic").get("pattern") == "jobs"
        else:
            hit = False
        if hit:
            got.append(p["name"])
    return ", ".join(got) if got else "–"

print("| kind | name | fuzz_host | fuzz_switch | soak parts |")
print("|---|---|---|---|---|")
labels = {"recovery": "recovery model", "cc": "congestion controller",
          "policy": "host policy"}
for kind in ("recovery", "cc", "policy"):
    for k, n in reg:
        if k == kind:
            print(f"| {labels[kind]} | `{n}` | "
                  f"{'drawn' if (k, n) in fh else '–'} | – | "
                  f"{soak_uses(k, n)} |")
slabels = {"policy": "switch policy", "trim": "switch trim",
           "rts": "switch rts", "pfc": "switch PFC", "link": "link state"}
for k, n in fs:
    print(f"| {slabels.get(k, k)} | `{n}` | – | drawn | "
          f"{soak_uses(k, n)} |")
print(f"| traffic | training job (`[job.*]`) | – | – | "
      f"{soak_uses('job', '')} |")
PY
