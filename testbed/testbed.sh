#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# testbed.sh: an experiment of configs/experiments/ as a multi-process
# testbed on this machine -- one ofan-switch process per switch, one
# ofan-host process for the hosts -- over veth pairs in network namespaces
# (net_af_packet) or over net_memif sockets, in wall-clock time.
#
#   testbed/testbed.sh --mode veth|memif [options] EXPERIMENT.ini
#
# ofan-testbed-gen writes the per-process configurations and a plan from
# the experiment (same topology, addresses and routes as ofan-fabric);
# this script creates the namespaces and veths (veth), starts the switches
# in low-CPU mode (--idle-sleep: they sleep when idle, so that several
# share two cores; lcores alternate 0 and 1), runs the hosts until every
# byte is delivered and verified, stops the switches, gathers every
# process's JSON into one folder and prints one table.
#
# [failure.NAME] sections run on the processes: every process gets one
# common start time (--start-at; the hosts' traffic starts then), the
# switches at a failed link's ends fail their port on schedule, with the
# experiment's detect and reconverge delays, and every other switch takes
# routing's new weights when the fabric's routing would give them
# (ofan-testbed-gen writes each switch's [failure.*] and [reroute.*]).
# [sweep.NAME] sections give one run per combination, one after the
# other, each in its own folder run-N-NAME=VALUE of the results folder,
# and one table of them all at the end (table.txt).
#
# Everything it created is removed on exit, on error and on Ctrl-C:
# namespaces, veths, processes (by PID), memif sockets,
# /var/run/dpdk/<prefix>.
#
# For physical ports and SR-IOV VFs on several machines, see
# testbed/sriov.sh.  Needs root.
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=testbed/lib.sh
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	cat <<EOF
usage: $prog --mode veth|memif [options] EXPERIMENT.ini   (options before or after the file)

  --mode veth|memif   links: veth pairs in namespaces, or memif sockets
  --scheme NAME       one of the experiment's schemes (default: the first)
  --out DIR           results (default results/<experiment>-<mode>-<scheme>)
  --idle-sleep US     switches' and hosts' sleep when idle (default 100)
  --timeout SEC       give the hosts this long (default 60)
  --start-delay SEC   with failures: the common start is this long after
                      every process is up (default 0.2, at least 0.05)
  --run N             only the N-th sweep combination (default: every one)
  --tag TAG           prefix of the namespaces, interfaces, sockets and DPDK
                      file prefixes (TAG-NAME) of the run: 1 to 5 lower-case
                      letters or digits (default o and the script's PID)
  --host-lcores LIST  spread every rank over these lcores (ofan-host's
                      [port.N] lcores, e.g. 0,1) and run the hosts' process
                      on them
  --pmd PMD           veth: af_packet (default) or af_xdp (faster; DPDK 22.11's
                      af_xdp keeps ~4098 mbufs at close, so processes report a
                      leak and exit 3 -- see docs/testbed.md)
  --help              this text
Exit status: 0 when every byte of every flow was delivered and verified
(in every run) and every switch exited cleanly; 1 if not; 2 for bad usage
or a failed set-up; 130 on Ctrl-C.
EOF
}

mode=
scheme=
out=
idle=100
timeout=60
pmd=af_packet
host_lcores=
start_delay=0.2
only_run=
tag=o$(printf '%04d' $(($$ % 10000)))
# Options may come before or after the experiment file.
files=()
while [ $# -gt 0 ]; do
	case $1 in
	--mode) need_arg "$1" $#; mode=$2; shift ;;
	--scheme) need_arg "$1" $#; scheme=$2; shift ;;
	--out) need_arg "$1" $#; out=$2; shift ;;
	--idle-sleep) need_arg "$1" $#; idle=$2; shift ;;
	--timeout) need_arg "$1" $#; timeout=$2; shift ;;
	--pmd) need_arg "$1" $#; pmd=$2; shift ;;
	--host-lcores) need_arg "$1" $#; host_lcores=$2; shift ;;
	--start-delay) need_arg "$1" $#; start_delay=$2; shift ;;
	--run) need_arg "$1" $#; only_run=$2; shift ;;
	--tag) need_arg "$1" $#; tag=$2; shift ;;
	--version) exec "$(dirname "$0")/../scripts/version.sh" "$0" ;;
	--help | -h) usage; exit 0 ;;
	--) shift; files+=("$@"); break ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) files+=("$1") ;;
	esac
	shift
done
[ ${#files[@]} -eq 1 ] ||
	{ usage >&2; die "one EXPERIMENT.ini expected, got ${#files[@]}"; }
config=${files[0]}
[ -f "$config" ] || die "no such experiment: $config"
case $mode in
veth | memif) ;;
*) die "--mode '$mode'; expected veth or memif" ;;
esac
[[ -z $host_lcores || $host_lcores =~ ^[0-9]+(,[0-9]+)*$ ]] ||
	die "--host-lcores '$host_lcores'; expected lcore numbers such as 0,1"
if ! [[ $start_delay =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
	/usr/bin/python3 -c 'import sys; sys.exit(float(sys.argv[1]) >= 0.05)' "$start_delay"; then
	die "--start-delay '$start_delay'; expected seconds, at least 0.05, such as 0.2 or 1"
fi

if ! [[ $timeout =~ ^[0-9]+(\.[0-9]+)?$ ]] || [ "$timeout" = 0 ]; then
	die "--timeout '$timeout'; expected seconds, such as 60 or 1.5"
fi
[[ -z $only_run || $only_run =~ ^[0-9]+$ ]] ||
	die "--run '$only_run'; expected a combination number (0, 1, ...)"
[ "$(id -u)" = 0 ] || die "needs root (namespaces, veths, DPDK)"
gen_bin=$root/build/testbed/ofan-testbed-gen
sw_bin=$root/build/switch/ofan-switch
host_bin=$root/build/host/ofan-host
for b in "$gen_bin" "$sw_bin" "$host_bin"; do
	[ -x "$b" ] || die "$b not found; build first: scripts/build.sh"
done
command -v ip >/dev/null || die "'ip' not found; install iproute2"

name=$(basename "$config" .ini)
[[ $tag =~ ^[a-z0-9]{1,5}$ ]] ||
	die "--tag '$tag'; expected 1 to 5 lower-case letters or digits"
work=$(mktemp -d "${TMPDIR:-/tmp}/ofan-testbed.XXXXXX")
pids=()
names=()
netns=()
prefixes=()

# Stop what a run started (by PID: SIGINT, then SIGKILL), remove what it
# made (namespaces and their veths, DPDK runtime directories).
stop_run() {
	local pid ns p
	for pid in "${pids[@]}"; do
		kill -INT "$pid" 2>/dev/null || true	# all at once, then each
	done
	for pid in "${pids[@]}"; do
		stop_pid "$pid" INT
	done
	for ns in "${netns[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	for p in "${prefixes[@]}"; do
		rm -rf "/var/run/dpdk/${p:?}"
	done
	pids=()
	names=()
	netns=()
	prefixes=()
}

# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	stop_run
	rm -rf "${work:?}"
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "$prog: interrupted" >&2; exit 130' INT TERM

# ---- the runs ----

# One line per sweep combination: "N NAME=VALUE ..." ("0 -": no sweeps).
mapfile -t runs < <("$gen_bin" --config "$config" --list-runs) || exit 2
[ ${#runs[@]} -gt 0 ] || exit 2
if [ -n "$only_run" ]; then
	[ "$only_run" -lt ${#runs[@]} ] ||
		die "--run $only_run; $config has ${#runs[@]} combination(s), 0 to $((${#runs[@]} - 1))"
	runs=("${runs[$only_run]}")
fi

# Run a DPDK process (in a namespace unless NS is "-"), logs in $rdir.
start() { # NAME NS LCORE BINARY ARGS...
	local nm=$1 ns=$2 lcore=$3 bin=$4 prefix=$tag-$1
	shift 4
	prefixes+=("$prefix")
	local cmd=("$bin" --no-huge -m 256 --no-pci -l "$lcore" --file-prefix
		"$prefix" --log-level=error -- "$@")
	if [ "$ns" != - ]; then
		cmd=(ip netns exec "$ns" "${cmd[@]}")
	fi
	echo "# ${cmd[*]}" >>"$rdir/commands.txt"
	"${cmd[@]}" >"$rdir/$nm.log" 2>&1 </dev/null &
	pids+=($!)
	names+=("$nm")
}

# memif: a client port cannot start before its server's socket exists.
wait_sockets() { # CONFIG
	local sock
	while read -r sock; do
		for _ in $(seq 1 100); do
			[ -S "$sock" ] && break
			sleep 0.05
		done
		[ -S "$sock" ] || die "memif socket $sock did not appear"
	done < <(grep -o 'role=client,socket=[^,]*' "$1" | sed 's/.*socket=//')
}

# log_says I TEXT SECONDS: wait, at most SECONDS, until process I's log has
# TEXT or the process is gone; 0 if the log has it.
log_says() {
	local n
	for ((n = 0; n < $3 * 50; n++)); do
		grep -q "$2" "$rdir/${names[$1]}.log" 2>/dev/null && return 0
		kill -0 "${pids[$1]}" 2>/dev/null || break
		sleep 0.02
	done
	grep -q "$2" "$rdir/${names[$1]}.log" 2>/dev/null
}

# wait_holding FIRST LAST: until each of processes FIRST..LAST says it holds
# its ports (--hold-exit: it has stopped polling) or is gone.  The hosts'
# own --timeout bounds their part, the hold's 60 s a switch's.
wait_holding() {
	local i
	for ((i = $1; i <= $2; i++)); do
		log_says "$i" "holding the ports" $((${timeout%.*} + 121)) || true
	done
}

# run_one N GEN RDIR: generate run N into GEN, run it, results in RDIR;
# sets host_rc.
run_one() {
	local n=$1 gen=$2 what nm ns lcore cfg a b c d start_file='' i hosts_from rc
	rdir=$3
	gen_args=(--config "$config" --mode "$mode" --out "$gen" --tag "$tag"
		--sock-dir "$gen" --pmd "$pmd" --run "$n")
	[ -z "$scheme" ] || gen_args+=(--scheme "$scheme")
	"$gen_bin" "${gen_args[@]}" || exit 2
	if [ -n "$host_lcores" ]; then
		# Every rank of the hosts' process on these lcores (one shard each).
		for f in "$gen"/hosts-*.ini; do
			sed -i "/^\[port\.[0-9]*\]\$/a lcores = $host_lcores ; one shard of the rank per lcore (--host-lcores)" "$f"
		done
	fi
	mkdir -p "$rdir"
	cp "$gen"/*.ini "$gen/plan.txt" "$rdir/"
	: >"$rdir/commands.txt"

	while read -r what a b c d _; do
		case $what in
		netns)
			ip netns add "$a"
			netns+=("$a")
			ip netns exec "$a" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
				net.ipv6.conf.default.disable_ipv6=1 >/dev/null || true
			ip -n "$a" link set lo up
			;;
		veth)
			ip link add "$a" netns "$b" type veth peer name "$c" netns "$d"
			ip -n "$b" link set "$a" up
			ip -n "$d" link set "$c" up
			;;
		esac
	done <"$gen/plan.txt"

	# A schedule of failures needs one start for every process: they
	# read it from a file that appears once every one of them is up.
	sw_extra=()
	if grep -q '^\[\(failure\|reroute\)\.' "$gen"/switch-*.ini 2>/dev/null; then
		start_file=$gen/start
		sw_extra=(--start-at "@$start_file")
	fi

	# Upper layers first: with memif they serve the links below them.
	while read -r what nm ns lcore cfg; do
		[ "$what" = switch ] || continue
		wait_sockets "$gen/$cfg"
		start "$nm" "$ns" "$lcore" "$sw_bin" --config "$gen/$cfg" \
			--stats-json "$rdir/$nm.json" --idle-sleep "$idle" \
			--hold-exit "${sw_extra[@]}"
	done < <(grep '^switch ' "$gen/plan.txt" | tac)
	# Ready when each says "NAME: policy P, N ports, ..." (its ports started).
	for i in "${!pids[@]}"; do
		log_says "$i" ": policy " 10 ||
			die "${names[$i]} did not start: $(tail -n 2 "$rdir/${names[$i]}.log")"
	done

	host_rc=0
	hosts_from=${#pids[@]}
	while read -r what nm ns lcore cfg; do
		[ "$what" = hosts ] || continue
		wait_sockets "$gen/$cfg"
		start "hosts-$nm" "$ns" "${host_lcores:-$lcore}" "$host_bin" \
			--config "$gen/$cfg" \
			--results "$rdir/hosts-$nm.json" --timeout "$timeout" \
			--idle-sleep "$idle" --hold-exit "${sw_extra[@]}"
	done <"$gen/plan.txt"
	if [ ${#sw_extra[@]} -gt 0 ]; then
		# Every host process up and waiting (at most 60 s): the
		# start, a little ahead.
		for ((i = hosts_from; i < ${#pids[@]}; i++)); do
			log_says "$i" "waiting for the start" 60 ||
				die "${names[$i]} did not come up: $(tail -n 2 "$rdir/${names[$i]}.log")"
		done
		/usr/bin/python3 -c 'import sys, time; print(f"{time.time() + float(sys.argv[1]):.6f}")' \
			"$start_delay" >"$start_file.tmp"
		mv "$start_file.tmp" "$start_file"
		echo "# common start: $(cat "$start_file")" >>"$rdir/commands.txt"
	fi
	# The stop, in two steps (--hold-exit): every process stops polling
	# and holds its ports -- the hosts once their traffic is over, the
	# switches on a SIGINT -- and only then do they all go.  DPDK 22.11's
	# memif unmaps a link's memory as soon as the peer goes, under an
	# lcore that may be polling it (port/ofan_port.h).
	wait_holding "$hosts_from" $((${#pids[@]} - 1))
	for ((i = 0; i < hosts_from; i++)); do
		kill -INT "${pids[$i]}" 2>/dev/null || true
	done
	wait_holding 0 $((hosts_from - 1))
	for i in "${!pids[@]}"; do
		kill -INT "${pids[$i]}" 2>/dev/null || true
	done
	for i in "${!pids[@]}"; do
		rc=0
		wait "${pids[$i]}" 2>/dev/null || rc=$?
		if [ "$i" -ge "$hosts_from" ]; then
			[ "$rc" = 0 ] || host_rc=$rc
		elif [ "$rc" != 0 ]; then
			# A switch's own status: in its log, and the run fails.
			echo "testbed.sh: ${names[$i]} exited with status $rc" >>"$rdir/${names[$i]}.log"
			echo "$prog: ${names[$i]} exited with status $rc (see $rdir/${names[$i]}.log)" >&2
			sw_failed=1
		fi
	done
	pids=()	# all reaped: nothing left to signal
	stop_run
	/usr/bin/python3 "$root/testbed/testbed_table.py" run "$rdir" "$mode" \
		"$host_rc" | tee "$rdir/table.txt"
}

rc=0
sw_failed=0
rdirs=()
for line in "${runs[@]}"; do
	n=${line%% *}
	label=${line#* }
	if [ -z "$out" ]; then
		# The results folder is named after the scheme the plan names.
		"$gen_bin" --config "$config" --mode "$mode" --out "$work/probe" \
			--tag "$tag" --sock-dir "$work/probe" --pmd "$pmd" \
			--run "$n" ${scheme:+--scheme "$scheme"} || exit 2
		scheme=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "scheme") { s = $(i + 1); sub(",", "", s); print s } }' "$work/probe/plan.txt")
		out=$root/results/$name-$mode-$scheme
	fi
	mkdir -p "$out"
	if [ ${#runs[@]} -eq 1 ] && [ "$label" = - ]; then
		rdir=$out
	else
		# run-N-NAME=VALUE...: the sweep values, safe as a folder name.
		rdir=$out/run-$n-$(echo "$label" | tr ' /' '_+')
		echo "== run $n: $label"
	fi
	run_one "$n" "$work/gen-$n" "$rdir"
	rdirs+=("$rdir")
	[ "$host_rc" = 0 ] || rc=$host_rc
	[ "$sw_failed" = 0 ] || [ "$rc" != 0 ] || rc=1
done
if [ ${#rdirs[@]} -gt 1 ]; then
	/usr/bin/python3 "$root/testbed/testbed_table.py" runs "${rdirs[@]}" |
		tee "$out/table.txt"
fi
exit "$rc"
