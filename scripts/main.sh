#!/usr/bin/env bash
# The README's main command: install what is missing, build, and run the
# main job.  Until ofan-fabric lands, the main job is a switch comparison on
# virtual ports: the leaf of configs/leaf-4x4.ini (4 hosts replaying the same
# traffic, 4 shaped uplinks, a scheduled uplink failure) run once per
# policy, with a table of what each policy did.  No NIC, no hugepages.
#
#   scripts/main.sh [SECONDS_PER_POLICY]     (default 4)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-4}
./scripts/install-deps.sh
./scripts/build.sh

out=results/switch-demo
mkdir -p "$out"
prefix="ofan_demo_$$"
pid=""
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -INT "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "/var/run/dpdk/${prefix:?}"
}
trap cleanup EXIT

for policy in ecmp spray rr adaptive flowlet ofan; do
	sed "s/^policy = .*/policy = $policy/" configs/leaf-4x4.ini \
		> "$out/leaf-$policy.ini"
	echo "== $policy" >&2
	build/switch/ofan-switch --no-huge -m 512 --no-pci \
		--file-prefix "$prefix" -l 0 --log-level=error \
		-- --config "$out/leaf-$policy.ini" --duration "$secs" \
		--stats-json "$out/$policy.json" &
	pid=$!
	wait "$pid"
	pid=""
done

/usr/bin/python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
rows = []
hdr = ("policy", "rx Mpps", "uplink tx Mpps", "spread cv", "qmax pkts",
       "ECN marks", "tail drops", "link_down drops")
for pol in ["ecmp", "spray", "rr", "adaptive", "flowlet", "ofan"]:
    d = json.load(open(f"{out}/{pol}.json"))
    ups = [p for p in d["ports"] if p["port"] >= 4]
    picks = [p["picked"] for p in ups]
    mean = statistics.mean(picks)
    cv = statistics.pstdev(picks) / mean if mean else 0.0
    rx = sum(p["rx"] for p in d["ports"]) / d["elapsed_s"] / 1e6
    tx = sum(p["tx"] for p in ups) / d["elapsed_s"] / 1e6
    rows.append((pol, f"{rx:.2f}", f"{tx:.3f}", f"{cv:.3f}",
                 str(max(p["queue_max_pkts"] for p in ups)),
                 str(sum(p["ecn_marked"] for p in ups)),
                 str(d["drops"]["queue_full"]), str(d["drops"]["link_down"])))
w = [max(len(r[i]) for r in rows + [hdr]) for i in range(len(hdr))]
for r in [hdr] + rows:
    print("  ".join(c.rjust(w[i]) for i, c in enumerate(r)))
print(f"\nspread cv: coefficient of variation of the packets each policy sent to the 4 uplinks (0 = perfectly even).")
print(f"JSON per policy in {out}/")
PY
