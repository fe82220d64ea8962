#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ofan-htsim-plan as a user meets it (tools/htsim-plan, docs/uec.md):
#   - a plan with one experiment (uet-htsim's single connection, a k = 4
#     fat tree) runs in ofan-fabric and prints validate.py's lines, then
#     "1 passed, 0 failed", exit 0; a target it misses fails, exit 1;
#   - -conn_reuse folds a flow's messages into one flow, counted as its
#     messages;
#   - a bad plan exits 2 before running anything, naming FILE:LINE: PARAM
#     (an unknown parameter, a missing matrix, a .topo ofan cannot build);
#   - SIGTERM stops the plan and the ofan-fabric it runs (exit 130),
#     leaving no process and no EAL runtime folder;
#   - --keep-going reports what it cannot map as failed targets and runs
#     the rest; --dry-run maps all 8 shipped plans (95 experiments).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(fabric/ofan-fabric tools/ofan-htsim-plan)
ofan_setup htsim_plan "$@"

RUN=$BUILD/tools/ofan-htsim-plan
UEC=$SRC/testbed/uec
cd "$UEC"

echo "-- one experiment: uet-htsim's single connection"
cat >"$TMP/one.txt" <<'PLAN'
# one flow of 2 MB on a k = 4 fat tree
connection_matrices/one.cm
!Experiment Single Connection
!Binary ./htsim_uec
!Param -end 1000
!Param -sender_cc_only
!tailFCT 190
PLAN
rc=0
"$RUN" --base "$UEC/uet-htsim.ini" --out "$TMP/one" "$TMP/one.txt" \
	>"$TMP/one.out" 2>"$TMP/one.err" || rc=$?
expect_eq "one: exit status" "$rc" 0
expect_file_has "one" "$TMP/one.out" "Experiment: Single Connection "
expect_file_has "one" "$TMP/one.out" "[PASS] Connection count 1"
expect_eq "one: its tail passes the target" \
	"$(grep -c '^\[PASS\] Tail FCT 1[0-9][0-9]\.[0-9]* us below the target of 190 us' "$TMP/one.out")" 1
expect_eq "one: the summary" "$(tail -n 1 "$TMP/one.out")" "1 passed, 0 failed"
expect_eq "one: the experiment's results" \
	"$(head -1 "$TMP/one/000/flows.csv" | cut -d, -f1-3)" "run,combo,scheme"

echo "-- -conn_reuse: 10 messages on one connection count as 10"
cat >"$TMP/cr.txt" <<'PLAN'
connection_matrices/test_cr_1f10m1p.cm
!Experiment Single Flow 10 Messages, w/ Conn Reuse, NSCC
!Param -end 1000
!Param -conn_reuse
!Param -sender_cc_only
!tailFCT 18
PLAN
rc=0
"$RUN" --base "$UEC/uet-htsim.ini" --out "$TMP/cr" "$TMP/cr.txt" \
	>"$TMP/cr.out" 2>"$TMP/cr.err" || rc=$?
expect_eq "conn_reuse: exit status" "$rc" 0
expect_file_has "conn_reuse" "$TMP/cr.out" "[PASS] Connection count 10"
expect_file_has "conn_reuse: one flow of the ten messages" "$TMP/cr/000.cm" \
	"0->1 id 1 start 0 size 40860"

echo "-- a target it misses: exit 1"
sed 's/^!tailFCT 190$/!tailFCT 100/' "$TMP/one.txt" >"$TMP/tight.txt"
rc=0
"$RUN" --base "$UEC/uet-htsim.ini" --out "$TMP/tight" "$TMP/tight.txt" \
	>"$TMP/tight.out" 2>&1 || rc=$?
expect_eq "tight: exit status" "$rc" 1
expect_file_has "tight" "$TMP/tight.out" "above the target of 100 us"
expect_eq "tight: the summary" "$(tail -n 1 "$TMP/tight.out")" "0 passed, 1 failed"

echo "-- bad plans: exit 2 before running, naming FILE:LINE: PARAM"
bad() {	# NAME PLAN-TEXT EXPECTED
	printf '%b' "$2" >"$TMP/$1.txt"
	rc=0
	"$RUN" --base "$UEC/uet-htsim.ini" --out "$TMP/$1" "$TMP/$1.txt" \
		>"$TMP/$1.out" 2>"$TMP/$1.err" || rc=$?
	expect_eq "$1: exit status" "$rc" 2
	expect_file_has "$1" "$TMP/$1.err" "$3"
	expect_eq "$1: nothing ran" "$(find "$TMP" -path "$TMP/$1/*" | wc -l)" 0
}
bad unknown 'connection_matrices/one.cm\n!Param -end 1000\n!Param -frobnicate 3\n!tailFCT 190\n' \
	"$TMP/unknown.txt:3: -frobnicate: not an htsim_uec parameter ofan knows"
bad missing 'connection_matrices/none.cm\n!Param -end 1000\n' \
	"$TMP/missing.txt:1: cannot open the connection matrix connection_matrices/none.cm ($UEC/connection_matrices/none.cm): No such file or directory"
# Leaves of 64 hosts and 8 spine links: 72 ports, over a switch's 64.
printf 'Nodes 1024\nTiers 2\nPodsize 1024\n\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 64\nRadix_Up 8\nDownlink_Latency_ns 1000\nOversubscribed 8\nSwitch_Latency_ns 0\n\nTier 1\nDownlink_speed_Gbps 100\nRadix_Down 16\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\n' >"$TMP/wide.topo"
bad topo "connection_matrices/perm_1024n_1024c_0u_2000000b.cm\n!Param -topo $TMP/wide.topo\n" \
	"$TMP/topo.txt:2: -topo: $TMP/wide.topo: a leaf of 64 hosts and 8 spine links (and spines of 16 leaves) needs 72 ports; ofan-fabric's switches have at most 64"

echo "-- --keep-going: the unmappable fails its target, the rest runs"
printf 'connection_matrices/one.cm\n!Param -sleek\n!tailFCT 190\n' >>"$TMP/one.txt"
rc=0
"$RUN" --keep-going --base "$UEC/uet-htsim.ini" --out "$TMP/kg" "$TMP/one.txt" \
	>"$TMP/kg.out" 2>"$TMP/kg.err" || rc=$?
expect_eq "keep-going: exit status" "$rc" 1
expect_file_has "keep-going" "$TMP/kg.out" "[FAIL] not run: $TMP/one.txt:9: -sleek:"
expect_eq "keep-going: the summary" "$(tail -n 1 "$TMP/kg.out")" "1 passed, 1 failed"

echo "-- SIGTERM: the run in progress stops too, nothing is left behind"
printf 'connection_matrices/perm_1024n_1024c_0u_2000000b.cm\n!Param -end 3000\n!tailFCT 220\n' >"$TMP/long.txt"
"$RUN" --base "$UEC/uet-htsim.ini" --out "$TMP/long" "$TMP/long.txt" \
	>"$TMP/long.out" 2>&1 &
pid=$!
for _ in $(seq 100); do	# until its ofan-fabric runs (at most 10 s)
	pgrep -P "$pid" >/dev/null && break
	sleep 0.1
done
child=$(pgrep -P "$pid" || true)
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
expect_eq "SIGTERM: exit status" "$rc" 130
expect_file_has "SIGTERM" "$TMP/long.out" "interrupted in experiment 1 of 1"
# ofan-fabric's PID (pgrep found it), or 0: none was running.
child=${child:-0}
alive() { [ "$child" != 0 ] && kill -0 "$child" 2>/dev/null; }
for _ in $(seq 100); do
	alive || break
	sleep 0.1
done
state=gone
if alive; then state=running; fi
expect_eq "SIGTERM: its ofan-fabric is gone" "$state" gone
left=none
if [ -d "/var/run/dpdk/ofan-fabric-$child" ]; then left=left; fi
expect_eq "SIGTERM: no EAL runtime folder left" "$left" none

echo "-- --dry-run of the 8 shipped plans"
n=0
for p in validate_*.txt; do
	"$RUN" --dry-run --keep-going --out "$TMP/dry" "$p" >"$TMP/dry.out" 2>/dev/null || true
	n=$((n + $(grep -c '^Experiment: ' "$TMP/dry.out")))
done
expect_eq "dry run: experiments in the 8 plans" "$n" 95

ofan_finish
