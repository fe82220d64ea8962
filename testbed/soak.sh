#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# soak.sh: ofan-switch and ofan-host under load for minutes while faults
# come and go at runtime, then a check that nothing was lost or leaked.
#
#   testbed/soak.sh --minutes N [--out DIR] [--seed N]
#
# The time is split in three parts:
#   1. switch: one ofan-switch forwarding at its full rate (a RoCEv2 capture
#      replayed forever by net_pcap into four net_null uplinks, ofan's
#      rotation, on hugepages so that captures can attach) while
#      soak_driver.py, every 100 ms, fails or restores a random uplink
#      through telemetry (down, blackhole, degraded to 1, 2 or 5 Gb/s),
#      reads every /ofan/ endpoint (link states as asked, counters never
#      going back) and, every 3 s, captures for a second (every port
#      first, then one at random; capture.sh);
#   2. hosts, sack and 3. hosts, erasure: the memif testbed of
#      configs/experiments/testbed-small.ini (4 ofan-switch processes, the
#      4 ranks in one ofan-host) running a repeated all-to-all of 64 KiB
#      flows with that recovery model, as many iterations as fill the part
#      (a short calibration run first), while the driver takes random
#      uplinks of the leaves down (or black-holes them) for 50 to 150 ms,
#      every 200 ms.
# It checks: no process crashed; every mempool's in-use count back to its
# start; for every switch port, what was routed to it = sent + dropped
# (named reasons) + still queued, and in all, received = forwarded +
# dropped; every byte of every flow delivered and verified; the resident
# memory of every process flat after warm-up (at most 2 MiB or 2% above
# its value at a quarter of its run): its private memory (RssAnon, where
# leaked heap state shows) always, all of it (VmRSS, with EAL's and
# memif's shared memory, which deeper queues touch for the first time
# late in a short run) in parts of a minute or more -- measured while the
# traffic runs: once the hosts hold their ports (--hold-exit) the stop has
# begun (results written, memory freed, which DPDK zeroes and so touches),
# and the driver stops.  It prints the figures
# (packets, faults injected, bytes verified, RSS at start and end) and
# writes them to DIR/soak.json.  Exit 0 if every check held, 1 if not, 2
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
usage: $prog --minutes N [--out DIR] [--seed N]

  --minutes N   how long in all (e.g. 30, or 0.5 for 30 s), split in
                three: the switch, the hosts with SACK, with erasure
  --out DIR     results (default results/soak)
  --seed N      the driver's random faults (default 1)
  --help        this text
EOF
}

minutes=
out=
seed=1
while [ $# -gt 0 ]; do
	case $1 in
	--minutes) need_arg "$1" $#; minutes=$2; shift ;;
	--out) need_arg "$1" $#; out=$2; shift ;;
	--seed) need_arg "$1" $#; seed=$2; shift ;;
	--version) exec "$(dirname "$0")/../scripts/version.sh" "$0" ;;
	--help | -h) usage; exit 0 ;;
	*) usage >&2; die "unknown argument '$1'" ;;
	esac
	shift
done
[[ $minutes =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
	die "--minutes '$minutes'; expected minutes such as 30 or 0.5"
[[ $seed =~ ^[0-9]+$ ]] || die "--seed '$seed'; expected a number"
[ "$(id -u)" = 0 ] || die "needs root (hugepages, memif sockets)"
sw_bin=$root/build/switch/ofan-switch
for b in "$sw_bin" "$root/build/host/ofan-host" \
	"$root/build/testbed/ofan-testbed-gen"; do
	[ -x "$b" ] || die "$b not found; build first: scripts/build.sh"
done
pcap=$root/configs/traffic/leaf-hosts.pcap
[ -s "$pcap" ] || die "$pcap not found; scripts/build.sh makes it"
command -v dpdk-dumpcap >/dev/null ||
	die "dpdk-dumpcap not found; install dpdk-dev (scripts/install-deps.sh)"
part_s=$("$py" -c 'import sys; print(max(8, round(float(sys.argv[1]) * 20)))' "$minutes")
out=${out:-$root/results/soak}
mkdir -p "$out"
out=$(cd "$out" && pwd)
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

echo "$prog: $minutes min: 3 parts of $part_s s, results in $out"

# ---- 1. the switch at full rate, faults and reads through telemetry ----

huge_reserve 384 "$work/huge" || die "hugepages: $HUGE_WHY"
# net_pcap keeps a port's arguments for a secondary process (the
# captures' dpdk-dumpcap) in 63 characters: longer ones it cuts, and the
# secondary then fails to probe the port.  Name the capture by a short
# link in the work directory, not by the checkout's path.
ln -s "$pcap" "$work/in.pcap"
pcap_args="rx_pcap=$work/in.pcap,infinite_rx=1"
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
echo "$prog: 1/3 ofan-switch at full rate, faults every 100 ms, $part_s s"
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
taskset -c 1 "$py" "$root/testbed/soak_driver.py" switch --prefix "$prefix" \
	--ports 1,2,3,4 --seconds "$part_s" --seed "$seed" \
	--capture "$root/testbed/capture.sh" --capture-dir "$work" \
	--out "$out/switch-driver.json" &
drv_pid=$!
wait "$drv_pid" || true
drv_pid=
kill -INT "$sw_pid" 2>/dev/null || true	# it may have crashed: checked below
sw_rc=0
wait "$sw_pid" || sw_rc=$?
sw_pid=
huge_release "$prefix"
rm -rf "/var/run/dpdk/${prefix:?}"

# ---- 2, 3. hosts through switches whose uplinks flap ----

# The experiment: testbed-small, a repeated all-to-all, this recovery.
write_exp() { # RECOVERY ITERATIONS FILE
	sed -e 's/^pattern = .*/pattern = alltoall/' \
		-e 's/^size = .*/size = 64KiB/' \
		-e "s/^name = .*/name = soak-$1/" \
		-e "s/^\\[traffic\\]/[traffic]\\niterations = $2/" \
		-e "s/^\\[host\\]/[host]\\nrecovery = $1/" \
		"$root/configs/experiments/testbed-small.ini" >"$3"
}

# hosts_part RECOVERY: calibrate, then run with flaps.  Sets part_rc (the
# testbed's exit status; the driver's findings are in its JSON).
hosts_part() {
	local rec=$1 iters wall rc=0 t
	write_exp "$rec" 20 "$work/cal-$rec.ini"
	"$root/testbed/testbed.sh" --mode memif --out "$work/cal-$rec" \
		--timeout 60 "$work/cal-$rec.ini" >"$work/cal-$rec.out" 2>&1 ||
		die "calibration run ($rec) failed: $(tail -n 3 "$work/cal-$rec.out")"
	wall=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["wall_s"])' \
		"$work/cal-$rec/hosts-all.json")
	iters=$("$py" -c 'import sys; print(max(20, int(20 * float(sys.argv[1]) / max(float(sys.argv[2]), 0.01))))' \
		"$part_s" "$wall")
	echo "$prog: hosts, $rec: $iters iterations of a 4-rank all-to-all, uplinks flapping"
	write_exp "$rec" "$iters" "$work/soak-$rec.ini"
	t=h$(printf '%04d' $((RANDOM % 10000)))
	"$root/testbed/testbed.sh" --mode memif --tag "$t" \
		--out "$out/hosts-$rec" --timeout $((part_s * 10 + 60)) \
		"$work/soak-$rec.ini" >"$out/hosts-$rec.out" 2>&1 &
	tb_pid=$!
	taskset -c 1 "$py" "$root/testbed/soak_driver.py" flap \
		--prefixes "$t-leaf0,$t-leaf1" --ports 2,3 --until-pid "$tb_pid" \
		--rss-prefix "$t-" --seed "$seed" \
		--hosts-log "$out/hosts-$rec/hosts-all.log" \
		--out "$out/hosts-$rec-driver.json" &
	drv_pid=$!
	wait "$tb_pid" || rc=$?
	tb_pid=
	wait "$drv_pid" || true
	drv_pid=
	part_rc=$rc
}
echo "$prog: 2/3 hosts with SACK recovery, $part_s s"
hosts_part sack
sack_rc=$part_rc
echo "$prog: 3/3 hosts with erasure recovery, $part_s s"
hosts_part erasure
erasure_rc=$part_rc

# ---- the checks and the figures ----

"$py" "$root/testbed/soak_check.py" "$out" "$minutes" "$sw_rc" "$sack_rc" \
	"$erasure_rc" | tee "$out/soak.txt"
exit "${PIPESTATUS[0]}"
