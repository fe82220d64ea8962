#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# soak.sh: ofan-switch and ofan-host under load for minutes while faults
# come and go at runtime, then a check that nothing was lost or leaked.
#
#   testbed/soak.sh --minutes N [--out DIR] [--seed N] [--parts A,B]
#   testbed/soak.sh --list-parts [--parts A,B]
#
# The time is split evenly over parts (testbed/soak_parts.py defines them,
# from what `ofan-host --list` registers; --list-parts prints them, one a
# line: NAME RECOVERY CC WHAT):
#   switch: one ofan-switch forwarding at its full rate (a RoCEv2 capture
#      replayed forever by net_pcap into four net_null uplinks, ofan's
#      rotation, on hugepages so that captures can attach) while
#      soak_driver.py, every 100 ms, fails or restores a random uplink
#      through telemetry (down, blackhole, degraded to 1, 2 or 5 Gb/s),
#      reads every /ofan/ endpoint (link states as asked, counters never
#      going back) and, every 3 s, captures for a second (every port
#      first, then one at random; capture.sh);
#   hosts-R, one per registered recovery model R, and job: the memif
#      testbed of configs/experiments/testbed-small.ini (4 ofan-switch
#      processes, the 4 ranks in one ofan-host) running a repeated
#      all-to-all of 64 KiB flows with model R (job: a training job of 4
#      ranks), as many iterations as fill the part (a short calibration
#      run first), while the driver takes random uplinks of the leaves
#      down (or black-holes them) for 50 to 150 ms, every 200 ms.  A model
#      runs on the base's lossy fabric unless soak_parts.py gives it
#      switches of its own: trim on trimming switches (rts = overflow),
#      gbn on a lossless one (PFC).  The congestion controllers are
#      cycled over these parts, so each runs in one at least.
# It checks (testbed/soak_check.py): no process crashed; every mempool's
# in-use count back to its start; for every switch port, what was routed
# to it = sent + dropped (named reasons) + still queued (less the
# headers it returned to their senders, rts), and in all, received +
# made (ICMP, PFC frames) = forwarded + dropped + queued + PFC frames
# acted on; every byte of every flow delivered and verified; each part's
# own counters (trim: headers trimmed at the switches and NACKed or
# returned at the hosts; gbn: PFC pauses and no drop for congestion;
# job: every iteration ended); the resident
# memory of every process flat after warm-up (at most 2 MiB or 2% above
# its value at a quarter of its run): its private memory (RssAnon, where
# leaked heap state shows) always, all of it (VmRSS, with EAL's and
# memif's shared memory, which deeper queues touch for the first time
# late in a short run) in parts of a minute or more -- measured while the
# traffic runs: once the hosts hold their ports (--hold-exit) the stop has
# begun (results written, memory freed, which DPDK zeroes and so touches),
# and the driver stops.  It prints the figures and a row per part
# (model, controller, seconds, packets, faults injected, bytes verified,
# the part's counters, RSS at start and end, PASS or FAIL) and writes
# them to DIR/soak.json.  Exit 0 if every check held, 1 if not, 2
# for bad usage or a failed set-up.  Needs root (hugepages, memif).
#
# Everything it makes is removed on exit, error or Ctrl-C: processes (by
# PID), hugepage files, its hugetlbfs mount and nr_hugepages,
# /var/run/dpdk/<prefix>, the work directory.
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=testbed/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=testbed/huge.sh
. "$(dirname "$0")/huge.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3

usage() {
	cat <<EOF
usage: $prog --minutes N [--out DIR] [--seed N] [--parts A,B]
       $prog --list-parts [--parts A,B]

  --minutes N   how long in all (e.g. 30, or 0.5 for 30 s), split evenly
                over the parts (at least $min_part_s s each)
  --out DIR     results (default results/soak)
  --seed N      the driver's random faults (default 1)
  --parts A,B   only these parts (names as --list-parts prints them)
  --list-parts  print the parts, one a line: NAME RECOVERY CC WHAT ("-"
                where a part has none), and exit: the switch, one part
                per recovery model ofan-host registers (ofan-host
                --list), the controllers cycled over them, and a job
  --help        this text
EOF
}

# A part's traffic is never shorter than this: the memory checks want 4
# samples (one a second) of every process.
min_part_s=4
minutes=
out=
seed=1
parts=
list_parts=0
while [ $# -gt 0 ]; do
	case $1 in
	--minutes) need_arg "$1" $#; minutes=$2; shift ;;
	--out) need_arg "$1" $#; out=$2; shift ;;
	--seed) need_arg "$1" $#; seed=$2; shift ;;
	--parts) need_arg "$1" $#; parts=$2; shift ;;
	--list-parts) list_parts=1 ;;
	--version) exec "$(dirname "$0")/../scripts/version.sh" "$0" ;;
	--help | -h) usage; exit 0 ;;
	*) usage >&2; die "unknown argument '$1'" ;;
	esac
	shift
done
host_bin=$root/build/host/ofan-host
[ -x "$host_bin" ] || die "$host_bin not found; build first: scripts/build.sh"
parts_py=("$py" "$root/testbed/soak_parts.py")
parts_arg=()
[ -z "$parts" ] || parts_arg=(--parts "$parts")
if [ "$list_parts" = 1 ]; then
	exec "${parts_py[@]}" list --host "$host_bin" "${parts_arg[@]}"
fi
[[ $minutes =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
	die "--minutes '$minutes'; expected minutes such as 30 or 0.5"
[[ $seed =~ ^[0-9]+$ ]] || die "--seed '$seed'; expected a number"
[ "$(id -u)" = 0 ] || die "needs root (hugepages, memif sockets)"
sw_bin=$root/build/switch/ofan-switch
for b in "$sw_bin" "$root/build/testbed/ofan-testbed-gen"; do
	[ -x "$b" ] || die "$b not found; build first: scripts/build.sh"
done
out=${out:-$root/results/soak}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/soak.json" "$out/soak.txt"
# The plan: every part's set-up (soak_parts.py), kept with the results.
"${parts_py[@]}" plan --host "$host_bin" "${parts_arg[@]}" \
	--out "$out/parts.json" >"$out/parts.txt" || exit 2
mapfile -t names < <(awk '{ print $1 }' "$out/parts.txt")
[ ${#names[@]} -gt 0 ] || die "no part to run"
pcap=$root/configs/traffic/leaf-hosts.pcap
if printf '%s\n' "${names[@]}" | grep -qx switch; then
	[ -s "$pcap" ] || die "$pcap not found; scripts/build.sh makes it"
	command -v dpdk-dumpcap >/dev/null ||
		die "dpdk-dumpcap not found; install dpdk-dev (scripts/install-deps.sh)"
fi
part_s=$("$py" -c 'import sys; print(max(int(sys.argv[3]), round(float(sys.argv[1]) * 60 / int(sys.argv[2]))))' \
	"$minutes" ${#names[@]} "$min_part_s")
work=$(mktemp -d "${TMPDIR:-/tmp}/ofan-soak.XXXXXX")
tag=s$(printf '%04d' $(($$ % 10000)))
prefix=$tag-sw
sw_pid=
drv_pid=
tb_pid=

# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	# The driver first: on SIGTERM it ends its capture (a capture
	# attached to a stopping switch crashes it), within stop_pid's 5 s.
	[ -z "$drv_pid" ] || stop_pid "$drv_pid" TERM
	[ -z "$sw_pid" ] || stop_pid "$sw_pid" INT
	[ -z "$tb_pid" ] || stop_pid "$tb_pid" INT
	huge_release "$prefix"
	rm -rf "/var/run/dpdk/${prefix:?}"
	rm -rf "${work:?}"
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "$prog: interrupted" >&2; exit 130' INT TERM

echo "$prog: $minutes min: ${#names[@]} part(s) of $part_s s, results in $out"

# part_get NAME KEY: a field of the part's plan ("-" for none).
part_get() {
	"$py" -c 'import json, sys
p = {x["name"]: x for x in json.load(open(sys.argv[1]))["parts"]}[sys.argv[2]]
print("-" if p.get(sys.argv[3]) is None else p[sys.argv[3]])' \
		"$out/parts.json" "$1" "$2"
}

# part_done NAME RC [ITERATIONS]: what the checks read of a part's run.
part_done() {
	printf '{"rc": %s, "part_s": %s, "iterations": %s}\n' "$2" "$part_s" \
		"${3:-null}" >"$out/$1-run.json"
}

# ---- switch: at full rate, faults and reads through telemetry ----

switch_part() {
	local pcap_args="rx_pcap=$work/in.pcap,infinite_rx=1" rc=0

	huge_reserve 384 "$work/huge" || die "hugepages: $HUGE_WHY"
	# net_pcap keeps a port's arguments for a secondary process (the
	# captures' dpdk-dumpcap) in 63 characters: longer ones it cuts, and
	# the secondary then fails to probe the port.  Name the capture by a
	# short link in the work directory, not by the checkout's path.
	ln -s "$pcap" "$work/in.pcap"
	[ "${#pcap_args}" -le 63 ] ||
		die "work directory $work: net_pcap's arguments '$pcap_args' are ${#pcap_args} characters, net_pcap keeps 63 for dpdk-dumpcap; set TMPDIR to a shorter directory"
	cat >"$work/switch.ini" <<EOF
; soak.sh: a capture replayed forever into four shaped-free uplinks.
[switch]
name = soak
policy = ofan
stats_interval = 0
[queue]
queue_packets = 512
[port.0]
dev = net_pcap0,$pcap_args
$(for p in 1 2 3 4; do
	printf '[port.%s]\ndev = net_null%s,no-rx=1\npeer_mac = 02:00:00:00:5a:0%s\n' \
		"$p" "$p" "$p"
done)
[group.up]
members = 1, 2, 3, 4
[route.all]
prefix = 10.0.0.0/8
group = up
dst_key = 1
EOF
	"$sw_bin" --huge-dir "$HUGE_MNT" --file-prefix "$prefix" -l 0 --no-pci \
		--log-level=error -- --config "$work/switch.ini" \
		--stats-json "$out/switch.json" >"$out/switch.log" 2>&1 </dev/null &
	sw_pid=$!
	for _ in $(seq 1 200); do
		grep -q ": policy " "$out/switch.log" 2>/dev/null && break
		kill -0 "$sw_pid" 2>/dev/null || break
		sleep 0.05
	done
	grep -q ": policy " "$out/switch.log" ||
		die "ofan-switch did not start: $(tail -n 2 "$out/switch.log")"
	taskset -c 1 "$py" "$root/testbed/soak_driver.py" switch \
		--prefix "$prefix" --ports 1,2,3,4 --seconds "$part_s" \
		--seed "$seed" --capture "$root/testbed/capture.sh" \
		--capture-dir "$work" --out "$out/switch-driver.json" &
	drv_pid=$!
	wait "$drv_pid" || true
	drv_pid=
	kill -INT "$sw_pid" 2>/dev/null || true	# it may have crashed: checked
	wait "$sw_pid" || rc=$?
	sw_pid=
	huge_release "$prefix"
	rm -rf "/var/run/dpdk/${prefix:?}"
	part_done switch "$rc"
}

# ---- hosts-R, job: hosts through switches whose uplinks flap ----

# experiment NAME ITERATIONS FILE: the part's experiment, testbed-small
# with the part's keys.
experiment() {
	"${parts_py[@]}" experiment --plan "$out/parts.json" --part "$1" \
		--iterations "$2" \
		--base "$root/configs/experiments/testbed-small.ini" --out "$3" ||
		exit 2
}

# testbed_part NAME: calibrate, then run with flaps.
testbed_part() {
	local name=$1 iters wall rc=0 t scheme sopt=()

	scheme=$(part_get "$name" scheme)
	[ "$scheme" = - ] || sopt=(--scheme "$scheme")
	experiment "$name" 20 "$work/cal-$name.ini"
	"$root/testbed/testbed.sh" --mode memif "${sopt[@]}" \
		--out "$work/cal-$name" --timeout 60 "$work/cal-$name.ini" \
		>"$work/cal-$name.out" 2>&1 ||
		die "calibration run ($name) failed: $(tail -n 3 "$work/cal-$name.out")"
	wall=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["wall_s"])' \
		"$work/cal-$name/hosts-all.json")
	iters=$("$py" -c 'import sys; print(max(20, int(20 * float(sys.argv[1]) / max(float(sys.argv[2]), 0.01))))' \
		"$part_s" "$wall")
	echo "$prog: $name: $iters iterations, uplinks flapping"
	experiment "$name" "$iters" "$work/soak-$name.ini"
	t=h$(printf '%04d' $((RANDOM % 10000)))
	"$root/testbed/testbed.sh" --mode memif "${sopt[@]}" --tag "$t" \
		--out "$out/$name" --timeout $((part_s * 10 + 60)) \
		"$work/soak-$name.ini" >"$out/$name.out" 2>&1 &
	tb_pid=$!
	taskset -c 1 "$py" "$root/testbed/soak_driver.py" flap \
		--prefixes "$t-leaf0,$t-leaf1" --ports 2,3 --until-pid "$tb_pid" \
		--rss-prefix "$t-" --seed "$seed" \
		--hosts-log "$out/$name/hosts-all.log" \
		--out "$out/$name-driver.json" &
	drv_pid=$!
	wait "$tb_pid" || rc=$?
	tb_pid=
	wait "$drv_pid" || true
	drv_pid=
	part_done "$name" "$rc" "$iters"
}

n=0
# (fd 3: what the parts run must not read the list.)
while read -r name rec cc what <&3; do
	n=$((n + 1))
	echo "$prog: $n/${#names[@]} $name (recovery $rec, cc $cc): $what, $part_s s"
	rm -rf "${out:?}/$name" "$out/$name-run.json" "$out/$name-driver.json"
	if [ "$(part_get "$name" kind)" = switch ]; then
		switch_part
	else
		testbed_part "$name"
	fi
done 3<"$out/parts.txt"

# ---- the checks and the figures ----

"$py" "$root/testbed/soak_check.py" "$out" "$minutes" | tee "$out/soak.txt"
exit "${PIPESTATUS[0]}"
