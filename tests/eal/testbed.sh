#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The multi-process testbed (testbed/testbed.sh) on this machine: 2 leaves,
# 2 spines, 4 hosts of configs/experiments/testbed-small.ini, as 4
# ofan-switch processes and one ofan-host process.
#   - veth (namespaces, net_af_packet) with ofan and with ecmp+ops, and
#     memif with ofan: exit 0 = every byte of every flow delivered and
#     verified; the results folder holds every process's JSON, logs, the
#     generated configs and plan; the switches' counters add up (every
#     host-facing packet a leaf received was forwarded or dropped with a
#     reason) and the spines carried traffic;
#   - memif with every rank on two lcores (--host-lcores 0,1), an
#     all-to-all: every byte verified, both shards of every rank busy;
#   - memif with a black hole and a sweep of its reconvergence
#     (testbed-failure.ini, REPS, and OPS's first run): every byte
#     delivered, the hole counted, every switch's schedule kept;
#   - cleanup after success, after a failure (hosts given 1 ms: exit 1)
#     and after an interruption (SIGINT while running: exit 130): no
#     namespace, veth, process, work directory (memif sockets),
#     /var/run/dpdk directory or hugepage file of the run is left.
# Wall-clock runs: nothing here depends on how fast they are.
set -euo pipefail
OFAN_NEEDS=(switch/ofan-switch host/ofan-host testbed/ofan-testbed-gen)
# shellcheck source=tests/eal/lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup testbed "$@"

[ "$(id -u)" = 0 ] || skip "needs root (namespaces, veths)"
command -v ip >/dev/null || skip "ip (iproute2) not found"
TB=$SRC/testbed/testbed.sh
EXP=$SRC/configs/experiments/testbed-small.ini

# Nothing of the run whose script had PID $1 may be left (its tag).
expect_clean() { # WHAT PID
	local tag left
	tag=o$(printf '%04d' $(($2 % 10000)))
	left=$(ip netns list | grep -c "^$tag-" || true)
	expect_eq "$1: namespaces left" "$left" 0
	left=$(ip -o link show | grep -c "${tag}l[0-9]" || true)
	expect_eq "$1: veths left" "$left" 0
	left=$(pgrep -fc -- "--file-prefix $tag-" || true)
	expect_eq "$1: processes left" "$left" 0
	left=$( (find /var/run/dpdk -maxdepth 1 -name "$tag-*" 2>/dev/null ||
		true) | wc -l)
	expect_eq "$1: /var/run/dpdk directories left" "$left" 0
	# --no-huge runs make none, but a hugepage file would be a leak too.
	left=$( (find /dev/hugepages /mnt/huge -maxdepth 1 -name "$tag-*" \
		2>/dev/null || true) | wc -l)
	expect_eq "$1: hugepage files left" "$left" 0
	left=$( (find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'ofan-testbed.*' \
		-newer "$TMP" 2>/dev/null || true) | wc -l)
	expect_eq "$1: work directories left" "$left" 0
}

# run_tb WHAT OUT ARGS...: testbed.sh in the background (its PID names its
# resources) on $TB_EXP (default testbed-small); sets RC and TB_PID.  The
# experiment comes between options, as docs/testbed.md writes it (options go
# anywhere).
run_tb() {
	local what=$1 out=$2
	shift 2
	RC=0
	"$TB" --out "$out" "${TB_EXP:-$EXP}" "$@" >"$TMP/$what.out" 2>&1 &
	TB_PID=$!
	PIDS+=("$TB_PID")
	wait "$TB_PID" || RC=$?
	ofan_forget "$TB_PID"
}

# A successful run: exit 0, complete results, counters that add up.
check_run() { # WHAT MODE SCHEME
	local what=$1 out=$TMP/$1 f
	run_tb "$what" "$out" --mode "$2" --scheme "$3" --timeout 60
	expect_eq "$what: exit status" "$RC" 0
	[ "$RC" = 0 ] || sed 's/^/    /' "$TMP/$what.out" | tail -n 20
	for f in plan.txt commands.txt hosts-all.json hosts-all-flows.csv \
		 hosts-all.ini leaf0.json leaf1.json spine0.json spine1.json \
		 switch-leaf0.ini switch-spine1.ini leaf0.log; do
		if [ -s "$out/$f" ]; then
			pass "$what: $f written"
		else
			fail "$what: $f missing or empty"
		fi
	done
	if grep -q "^hosts: 4/4 flows completed" "$TMP/$what.out"; then
		pass "$what: table printed, 4/4 flows"
	else
		fail "$what: no table with 4/4 flows"
	fi
	# Every switch exited cleanly (testbed.sh notes any other status).
	expect_eq "$what: switches that did not exit 0" \
		"$(cat "$out"/*.log | grep -c 'exited with status' || true)" 0
	# The two-step stop: every process stopped polling and held its
	# ports before any went (--hold-exit; memif's teardown needs it).
	expect_eq "$what: processes that held their ports before the exit" \
		"$(grep -l 'stopped polling; holding the ports' "$out"/*.log | wc -l)" 5
	# Where frames were lost: device, TX ring, queue, other.
	expect_file_has "$what: loss columns" "$TMP/$what.out" \
		"device  txring   queue   other"
	if "$OFAN_PY" - "$out" "$3" <<'PY'; then
import json, sys
out, scheme = sys.argv[1], sys.argv[2]
h = json.load(open(f"{out}/hosts-all.json"))
assert h["flows_completed"] == h["flows_total"] == 4, h
assert h["corrupt_pkts"] == 0 and h["incomplete_receptions"] == 0, h
assert h["mempool_in_use_end"] == h["mempool_in_use_start"], h
# Every host port's device counters, as ofan-host read them at exit.
assert len(h["ports"]) == 4 and all(
    {"ipackets", "imissed", "rx_nombuf"} <= set(p["device"]) for p in h["ports"]), h["ports"]
want_host = {"ofan": "fixed", "ops": "ops", "ecmp": "fixed"}[scheme]
assert h["policy"] == want_host, h["policy"]
spine_tx = 0
for sw in ("leaf0", "leaf1", "spine0", "spine1"):
    s = json.load(open(f"{out}/{sw}.json"))
    assert s["mempool_in_use_end"] == s["mempool_in_use_start"], (sw, s)
    rx = sum(p["rx"] for p in s["ports"])
    tx = sum(p["tx"] for p in s["ports"])
    drops = sum(s["drops"].values())
    # Every packet received was sent on (an ARP request as its reply) or
    # dropped under a named reason.
    assert rx == tx + drops, (sw, rx, tx, drops)
    if sw.startswith("spine"):
        spine_tx += tx
assert spine_tx > 0, "nothing crossed the spines"
PY
		pass "$what: JSON adds up"
	else
		fail "$what: JSON does not add up"
	fi
}

check_run veth-ofan veth ofan
expect_clean "veth-ofan" "$TB_PID"
check_run veth-ops veth ops
expect_clean "veth-ops" "$TB_PID"
check_run memif-ofan memif ofan
expect_clean "memif-ofan" "$TB_PID"

# One rank on two lcores (--host-lcores 0,1: [port.N] lcores = 0,1, the
# software dispatcher over memif): an all-to-all of the same fabric, every
# byte verified, both shards of every rank sending and receiving (the
# placement hash splits each rank's three peers one and two), nothing
# delivered to a shard that does not own it.
sed 's/^pattern = .*/pattern = alltoall/' "$EXP" >"$TMP/a2a.ini"
RC=0
"$TB" --out "$TMP/lcores" --mode memif --host-lcores 0,1 --timeout 60 \
	"$TMP/a2a.ini" >"$TMP/lcores.out" 2>&1 &
TB_PID=$!
PIDS+=("$TB_PID")
wait "$TB_PID" || RC=$?
ofan_forget "$TB_PID"
expect_eq "2 lcores: exit status" "$RC" 0
[ "$RC" = 0 ] || sed 's/^/    /' "$TMP/lcores.out" | tail -n 20
expect_file_has "2 lcores: table" "$TMP/lcores.out" \
	"hosts: 12/12 flows completed"
expect_file_has "2 lcores: software steering" "$TMP/lcores/hosts-all.log" \
	"rank 3: 2 lcores, steered by software on the first lcore"
if "$OFAN_PY" - "$TMP/lcores/hosts-all.json" <<'PY'; then
import json, sys
h = json.load(open(sys.argv[1]))
assert h["flows_completed"] == h["flows_total"] == 12, h
assert h["corrupt_pkts"] == 0 and h["incomplete_receptions"] == 0, h
assert h["mempool_in_use_end"] == h["mempool_in_use_start"], h
shards = {}
for e in h["hosts"]:
    assert e["shards"] == 2, e
    assert e["unknown_flow"] == 0, e
    assert e["data_sent"] > 0 and e["goodput_bytes"] > 0, e
    shards.setdefault(e["rank"], set()).add(e["shard"])
assert shards == {r: {0, 1} for r in range(4)}, shards
assert sum(e["goodput_bytes"] for e in h["hosts"]) == 12 * 2**20
PY
	pass "2 lcores: every rank's two shards sent and received every byte"
else
	fail "2 lcores: the shards' JSON does not add up"
fi
expect_clean "2 lcores" "$TB_PID"

# A black hole on real processes and frames (testbed-failure.ini: leaf0 -
# spine1 black-holed 20 ms after the common start, routing reconverging
# 50 ms or 150 ms later: a sweep, so two runs in one results folder).
# Every byte is delivered anyway; both ends count what fell into the
# hole; each switch logs its schedule at the right time after the common
# start; leaf1, which cannot see the hole, takes routing's new weights.
# REPS against OPS is wall-clock: both counts are printed, not compared.
hole() { # WHAT ARGS...
	local what=$1
	shift
	TB_EXP=$SRC/configs/experiments/testbed-failure.ini \
		run_tb "$what" "$TMP/$what" --mode memif --timeout 60 "$@"
	expect_eq "$what: exit status" "$RC" 0
	[ "$RC" = 0 ] || sed 's/^/    /' "$TMP/$what.out" | tail -n 30
	expect_clean "$what" "$TB_PID"
}
hole hole-reps --scheme reps
expect_file_has "hole-reps: one table of the two runs" "$TMP/hole-reps/table.txt" \
	"run-1-reconverge=150ms"
hole hole-ops --scheme ops --run 0
if "$OFAN_PY" - "$TMP/hole-reps" "$TMP/hole-ops" <<'PY'; then
import glob, json, os, re, sys
lost = {}
runs = sorted(glob.glob(f"{sys.argv[1]}/run-*")) + [sys.argv[2] + "/run-0-reconverge=50ms"]
assert len(runs) == 3, runs
for d in runs:
    reconverge = 50 if d.endswith("=50ms") else 150
    h = json.load(open(f"{d}/hosts-all.json"))
    assert h["flows_completed"] == h["flows_total"] == 4, (d, h)
    assert h["corrupt_pkts"] == 0 and h["incomplete_receptions"] == 0, (d, h)
    assert h["mempool_in_use_end"] == h["mempool_in_use_start"], (d, h)
    for log in glob.glob(f"{d}/*.log"):
        assert "exited with status" not in open(log).read(), (d, log)
    cmds = open(f"{d}/commands.txt").read()
    assert cmds.count("--start-at @") == 5 and "# common start: " in cmds, cmds
    hole = 0
    for sw in ("leaf0", "leaf1", "spine0", "spine1"):
        s = json.load(open(f"{d}/{sw}.json"))
        assert s["mempool_in_use_end"] == s["mempool_in_use_start"], (d, sw)
        rx = sum(p["rx"] for p in s["ports"])
        tx = sum(p["tx"] for p in s["ports"])
        assert rx == tx + sum(s["drops"].values()), (d, sw, rx, tx, s["drops"])
        if sw in ("leaf0", "spine1"):
            hole += s["drops"].get("blackhole", 0)
        else:
            assert s["drops"].get("blackhole", 0) == 0, (d, sw, s["drops"])
        # The schedule on this switch's clock: nothing before its time.
        # Both times are printed to the microsecond, so their difference
        # may come out a rounding below the scheduled offset (CI once saw
        # 0.019999999999999907 for 0.020).
        slack = 1e-6
        log = open(f"{d}/{sw}.log").read()
        t0 = float(re.search(r"the schedule starts at t=([0-9.]+)s", log).group(1))
        times = {m.group(2): float(m.group(1)) - t0 for m in re.finditer(
            r"t=([0-9.]+)s .*\(scheduled, \[(failure.hole|reroute.hole-0)\]\)", log)}
        if sw in ("leaf0", "spine1"):
            assert times["failure.hole"] >= 0.020 - slack, (d, sw, times)
        else:
            assert "failure.hole" not in times, (d, sw, times)
        if sw != "spine0":
            assert times["reroute.hole-0"] >= 0.020 + reconverge / 1e3 - slack, (d, sw, times)
        else:
            assert not times, (d, sw, times)
    assert hole > 0, (d, "nothing counted in the hole")
    lost[d] = hole
print("  black-holed packets (wall clock, not compared):",
      ", ".join(f"{os.path.basename(os.path.dirname(d))}/{os.path.basename(d)} {n}"
                for d, n in lost.items()))
PY
	pass "black hole: every byte delivered, the hole counted, the schedules kept"
else
	fail "black hole: results do not hold"
fi

# A failure after the set-up: the hosts get 1 ms, so flows are unfinished.
run_tb fail "$TMP/fail" --mode veth --timeout 0.001
expect_eq "failed run: exit status" "$RC" 1
expect_clean "failed run" "$TB_PID"

# An interruption with everything set up: SIGINT once the switches run
# (namespaces, veths and switch processes exist; the hosts not yet done).
# A background job of a script ignores SIGINT; env gives it back the
# default, as for a command run at a terminal and stopped with Ctrl-C.
env --default-signal=INT "$TB" --out "$TMP/int" --mode veth --timeout 60 \
	"$EXP" >"$TMP/int.out" 2>&1 &
TB_PID=$!
PIDS+=("$TB_PID")
for _ in $(seq 1 200); do
	[ -s "$TMP/int/commands.txt" ] &&
		[ "$(grep -c ofan-switch "$TMP/int/commands.txt")" -ge 4 ] &&
		break
	sleep 0.02
done
expect_cmp "interrupted run: switch processes running before SIGINT" \
	"$(pgrep -fc -- "--file-prefix o$(printf '%04d' $((TB_PID % 10000)))-" || true)" -ge 4
kill -INT "$TB_PID"
RC=0
wait "$TB_PID" || RC=$?
ofan_forget "$TB_PID"
expect_eq "interrupted run: exit status" "$RC" 130
expect_clean "interrupted run" "$TB_PID"

ofan_finish
