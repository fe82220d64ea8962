#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The soak (testbed/soak.sh) for 30 seconds, every part of
# `soak.sh --list-parts`: ofan-switch at full rate with faults, reads and
# captures through telemetry every 100 ms, then the memif testbed's hosts
# under flapping uplinks with each recovery model ofan-host registers
# (trim on trimming switches, gbn on a lossless fabric) and a training
# job, the congestion controllers cycled over them.  Its checks must hold
# (no crash, mempools back, every port's packets accounted for, every byte
# verified, each part's own counters: trimmed headers and NACKs, PFC
# pauses and no drop for congestion, the job's iterations; private memory
# flat after warm-up), its figures must be there, and
# nothing it made may be left, also after a Ctrl-C: processes, hugepage
# files, its hugetlbfs mount, nr_hugepages as before, DPDK runtime
# directories, work folders.
# The long run is `testbed/soak.sh --minutes 30` (docs/testing.md).
set -euo pipefail
OFAN_NEEDS=(switch/ofan-switch host/ofan-host testbed/ofan-testbed-gen)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup soak "$@"

[ "$(id -u)" = 0 ] || skip "needs root (hugepages, memif)"
command -v dpdk-dumpcap >/dev/null 2>&1 ||
	skip "dpdk-dumpcap is not installed (package dpdk-dev)"
grep -q '^Hugepagesize:' /proc/meminfo || skip "the kernel has no hugepages"

huge_before=$(cat /proc/sys/vm/nr_hugepages)
mounts_before=$(grep -c hugetlbfs /proc/mounts || true)
RC=0
"$SRC/testbed/soak.sh" --minutes 0.5 --out "$TMP/soak" >"$TMP/soak.out" 2>&1 &
SOAK_PID=$!
PIDS+=("$SOAK_PID")
wait "$SOAK_PID" || RC=$?
ofan_forget "$SOAK_PID"
sed 's/^/    /' "$TMP/soak.out"
expect_eq "soak: exit status" "$RC" 0
expect_file_has "soak: verdict" "$TMP/soak.out" "soak: PASS (0 check(s) failed)"
"$SRC/testbed/soak.sh" --list-parts >"$TMP/parts.txt"
if "$OFAN_PY" - "$TMP/soak/soak.json" "$TMP/parts.txt" <<'PY'; then
import json, sys
f = json.load(open(sys.argv[1]))
assert f["failures"] == [], f["failures"]
want = [line.split()[0] for line in open(sys.argv[2])]
parts = {r["name"]: r for r in f["parts"]}
# Every part ran and passed, in the order --list-parts gives.
assert [r["name"] for r in f["parts"]] == want, (want, list(parts))
assert all(r["pass"] and r["failures"] == [] for r in f["parts"]), f["parts"]
s = parts["switch"]
# Faults of every kind went through telemetry, and captures caught packets.
assert all(s["faults"].get(k, 0) > 0 for k in ("down", "blackhole", "degraded", "restore")), s["faults"]
# Five endpoints a tick of 100 ms, at least 2 s of ticks in its 4 s
# (ticks slip under load: 175 reads seen).
assert s["telemetry_reads"] >= 5 * 20, s["telemetry_reads"]
assert s["captures"] >= 1 and s["packets_captured"] > 0, s
assert s["rx"] > 1000000 and s["tx"] > 0, s
assert s["rss"], s
for name, h in parts.items():
    if name == "switch":
        continue
    # Every byte of at least the calibration's 20 iterations, with flaps,
    # through 4 switches, 5 processes' memory sampled.
    if name.startswith("hosts-"):
        assert h["flows"] >= 12 * 20 and h["bytes_verified"] == h["flows"] * 64 * 1024, h
    assert h["bytes_verified"] > 0 and h["faults_total"] > 0, h
    assert len(h["switches"]) == 4 and len(h["rss"]) == 5, h
feats = {n: r["features"] for n, r in parts.items()}
assert feats["hosts-trim"]["trimmed"] > 0, feats["hosts-trim"]
assert feats["hosts-trim"]["nacks_received"] + feats["hosts-trim"]["returned_rx"] > 0, feats["hosts-trim"]
assert feats["hosts-gbn"]["pfc_pauses_sent"] > 0 and feats["hosts-gbn"]["congestion_drops"] == 0, feats["hosts-gbn"]
assert feats["job"]["iterations"] == feats["job"]["iterations_asked"] >= 20, feats["job"]
print("  parts:", ", ".join(f"{n} {r['recovery']}/{r['cc']}" for n, r in parts.items()))
PY
	pass "soak: figures (every part; faults of every kind, captures, every byte, each part's counters, RSS)"
else
	fail "soak: figures missing or wrong"
fi
# Nothing of a soak may be left: WHAT.
expect_clean() {
	expect_eq "$1: nr_hugepages as before" \
		"$(cat /proc/sys/vm/nr_hugepages)" "$huge_before"
	expect_eq "$1: hugetlbfs mounts as before" \
		"$(grep -c hugetlbfs /proc/mounts || true)" "$mounts_before"
	expect_eq "$1: processes left" \
		"$(pgrep -fc -- '--file-prefix[= ][sh][0-9][0-9][0-9][0-9]-' || true)" 0
	expect_eq "$1: DPDK runtime directories left" \
		"$( (find /var/run/dpdk -maxdepth 1 -regex '.*/[sh][0-9][0-9][0-9][0-9]-.*' 2>/dev/null || true) | wc -l)" 0
	expect_eq "$1: hugepage files left" \
		"$( (find /dev/hugepages -maxdepth 1 -regex '.*/s[0-9][0-9][0-9][0-9]-sw.*' 2>/dev/null || true) | wc -l)" 0
	expect_eq "$1: work directories left" \
		"$( (find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'ofan-soak.*' -newer "$TMP" 2>/dev/null || true) | wc -l)" 0
}
expect_clean soak

# Ctrl-C while the switch runs: exit 130, and nothing left either.
env --default-signal=INT "$SRC/testbed/soak.sh" --minutes 0.5 \
	--out "$TMP/int" >"$TMP/int.out" 2>&1 &
SOAK_PID=$!
PIDS+=("$SOAK_PID")
for _ in $(seq 1 300); do
	grep -q ": policy " "$TMP/int/switch.log" 2>/dev/null && break
	sleep 0.05
done
sleep 1
kill -INT "$SOAK_PID"
RC=0
wait "$SOAK_PID" || RC=$?
ofan_forget "$SOAK_PID"
expect_eq "interrupted soak: exit status" "$RC" 130
expect_clean "interrupted soak"

ofan_finish
