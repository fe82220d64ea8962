#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-fabric.sh: how fast ofan-fabric simulates the two benchmark
# experiments, one scheme at a time, against its targets and an anchor
# measured in the same run.  A benchmark, not a test: it prints a table and
# only fails when a run cannot be measured.
#
# Per (experiment, scheme): the run's wall time and simulated packet-hops
# (every frame crossing a link: data, ACKs and retransmissions) from
# ofan-fabric's timing.csv (the run alone, without EAL start-up), and the
# whole process's wall time.  Targets on the reference 2-core machine:
# permutation-k8 at most 0.15 s per scheme, alltoall-k8 at most 15 s per
# scheme, with the configs' 2 threads.
#
# Anchor: dpdk-testpmd io-forwarding between two net_null ports on one
# forwarding lcore (the machine's DPDK packet rate right now).  The ratio
# column is simulated hops per second over testpmd's packets per second:
# what one simulated hop costs in plain DPDK forwarding, which moves less
# with the machine's speed and load than the raw rate.
#
# --scale: instead, the permutation at k = 8, 16 and 24 (--ks) for one
# scheme (default ofan), as 1 process x 1 thread, 1 process x 2 threads
# and 2 MPI ranks x 1 thread (--spread parts): wall time, packet-hops per
# second and the peak resident memory of the largest process
# (timing.csv's peak_rss_mb), for docs/benchmarks.md's scale table.
#
# Noise: runs are serial (never two at once); each ofan-fabric run's
# scheduler wait time (schedstat) is printed as preem%, a row above 2 % is
# starred.  The script runs a copy of the binary, so a rebuild during the
# benchmark cannot mix binaries.
# shellcheck disable=SC2154  # work, mpps, note, build_info: from bench-lib.sh
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=testbed/lib.sh
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

usage() {
	cat <<EOF
usage: $prog [options]

Simulation speed of ofan-fabric on configs/experiments/permutation-k8.ini
and alltoall-k8.ini, one scheme per run, with dpdk-testpmd io forwarding
on net_null as the anchor.

  --experiments LIST  comma-separated experiment names (default
                      permutation-k8,alltoall-k8)
  --schemes LIST      comma-separated schemes (default
                      ecmp,ops,reps,spray,adaptive,rr,ofan)
  --set KEY=VALUE     an override for every run (repeatable), e.g.
                      --set traffic.size=256KiB for a quick look
  --scale             the scale table: permutation-k8.ini at fabric.k = each
                      of --ks (default 8,16,24), 1x1, 1x2 processes x threads
                      and 2 MPI ranks x 1 thread (needs mpirun)
  --ks LIST           fat-tree sizes for --scale
  --no-testpmd        skip the anchor (no ratio column)
  --json FILE         also write the rows as JSON
  --help              this text
EOF
}

experiments=permutation-k8,alltoall-k8
schemes=ecmp,ops,reps,spray,adaptive,rr,ofan
overrides=()
with_testpmd=1
scale=0
ks=8,16,24
schemes_set=0
json=
while [ $# -gt 0 ]; do
	case $1 in
	--experiments) need_arg "$1" $#; experiments=$2; shift ;;
	--schemes) need_arg "$1" $#; schemes=$2; schemes_set=1; shift ;;
	--scale) scale=1 ;;
	--ks) need_arg "$1" $#; ks=$2; shift ;;
	--set) need_arg "$1" $#; overrides+=("$2"); shift ;;
	--no-testpmd) with_testpmd=0 ;;
	--json) need_arg "$1" $#; json=$2; shift ;;
	--version) exec "$(dirname "$0")/../../scripts/version.sh" "$0" ;;
	--help | -h) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done

if [ "$scale" = 1 ]; then
	[ "$schemes_set" = 1 ] || schemes=ofan
	experiments=permutation-k8
	command -v mpirun >/dev/null ||
		die "mpirun not found; install Open MPI (scripts/install-deps.sh)"
fi
fabric_src=$root/build/fabric/ofan-fabric
[ -x "$fabric_src" ] || die "$fabric_src not found; build first: scripts/build.sh"
testpmd_bin=
if [ "$with_testpmd" = 1 ]; then
	testpmd_bin=$(command -v dpdk-testpmd) ||
		die "dpdk-testpmd not found; install Debian's 'dpdk' package (scripts/install-deps.sh) or pass --no-testpmd"
fi
IFS=, read -ra exp_list <<<"$experiments"
IFS=, read -ra scheme_list <<<"$schemes"
for e in "${exp_list[@]}"; do
	[ -f "$root/configs/experiments/$e.ini" ] ||
		die "no experiment '$e' (configs/experiments/$e.ini)"
done

# bench-lib.sh's set-up: work directory, cleanup trap (ends only the
# process this script started, removes only its EAL prefixes).
# shellcheck disable=SC2034  # read by bench-lib.sh
hugepages=0
main_lcore=0
fwd_lcore=1
warmup=1
duration=4
# shellcheck source=testbed/bench/bench-lib.sh
. "$root/testbed/bench/bench-lib.sh"
bench_setup bench-fabric
bench_copy_binary "$fabric_src"
fabric_bin=$work/ofan-fabric

last_error() {
	local why='' re
	for re in '^ofan-fabric: ' 'Cause:' 'error|fail|cannot|invalid'; do
		why=$(cat "$@" 2>/dev/null | tr -d '"\r' |
			{ grep -aiE "$re" || true; } | head -1)
		[ -z "$why" ] || break
	done
	echo "${why:0:200}"
}

# ---- the anchor ----

anchor_mpps=nan
anchor_note=
if [ "$with_testpmd" = 1 ]; then
	prefix=ofbfab$$
	prefixes+=("$prefix")
	base=$work/testpmd
	stdbuf -oL "$testpmd_bin" -l "$main_lcore,$fwd_lcore" \
		--main-lcore "$main_lcore" --no-pci --no-huge -m 512 \
		--file-prefix "$prefix" --vdev net_null0 --vdev net_null1 \
		--log-level=error -- --forward-mode=io --nb-cores=1 \
		--total-num-mbufs=16384 --stats-period 1 \
		>"$base.out" 2>"$base.err" </dev/null &
	run_pid=$!
	steal_reset "rte-worker-$fwd_lcore"
	bench_testpmd_measure "$base" $((warmup + duration))
	run_pid=
	anchor_mpps=$mpps
	anchor_note=$note
fi

# ---- the runs ----

# Scheduler wait of a finished process, from its /proc/PID/schedstat
# sampled by the caller while it ran: the percentage of wall time.
rows=()
# What each row runs: "EXPERIMENT SCHEME LAYOUT K" (LAYOUT: processes x
# threads; K: fabric.k, or - for the file's).
plan=()
IFS=, read -ra k_list <<<"$ks"
for e in "${exp_list[@]}"; do
	for s in "${scheme_list[@]}"; do
		if [ "$scale" = 1 ]; then
			for k in "${k_list[@]}"; do
				for lay in 1x1 1x2 2x1; do
					plan+=("$e $s $lay $k")
				done
			done
		else
			plan+=("$e $s 1x- -")
		fi
	done
done
for row in "${plan[@]}"; do
	read -r e s lay k <<<"$row"
	{
		tag=$e-$s-$lay-$k
		out=$work/$tag
		log=$work/$tag.log
		extra=()
		[ "$k" = - ] || extra+=("fabric.k=$k")
		[ "${lay#*x}" = - ] || extra+=("fabric.threads=${lay#*x}")
		# This script sits on one CPU (bench-lib.sh); ofan-fabric takes
		# its lcores from the CPUs it may use, so give it all of them.
		cmd=(taskset -c "0-$(($(getconf _NPROCESSORS_ONLN) - 1))" "$fabric_bin")
		if [ "${lay%x*}" != 1 ]; then
			cmd=(taskset -c "0-$(($(getconf _NPROCESSORS_ONLN) - 1))"
				mpirun --allow-run-as-root --oversubscribe
				--bind-to none -n "${lay%x*}" "$fabric_bin")
			extra+=(--spread parts)
		fi
		t0=$(date +%s%N)
		"${cmd[@]}" --config "$root/configs/experiments/$e.ini" \
			--out "$out" --quiet --no-plot "fabric.schemes=$s" \
			"${extra[@]}" "${overrides[@]}" >"$log" 2>&1 </dev/null &
		run_pid=$!
		wait_s=0
		while kill -0 "$run_pid" 2>/dev/null; do
			if read -r _ w _ <"/proc/$run_pid/schedstat" 2>/dev/null; then
				wait_s=$w
			fi
			sleep 0.2
		done
		rc=0
		wait "$run_pid" || rc=$?
		run_pid=
		t1=$(date +%s%N)
		total=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
		if [ "$rc" != 0 ] || [ ! -s "$out/timing.csv" ]; then
			echo "$prog: $e $s $lay k=$k: exit status $rc: $(last_error "$log")" >&2
			rows+=("$e $s nan nan nan nan $total nan $lay $k nan")
			continue
		fi
		# timing.csv: run,combo,scheme,seed,wall_s,events,packet_hops,
		# mhops_per_s,ranks,rank,peak_rss_mb,...
		read -r wall hops mh rss < <(awk -F, 'NR == 2 { print $5, $7, $8, $11 }' "$out/timing.csv")
		preem=$(awk -v w="$wait_s" -v a="$t0" -v b="$t1" \
			'BEGIN { printf "%.1f", 100 * w / (b - a) }')
		rows+=("$e $s $wall $hops $mh $preem $total ok $lay $k $rss")
	}
done

# ---- the table ----

target_of() {
	case $1 in
	permutation-k8) echo 0.15 ;;
	alltoall-k8) echo 15 ;;
	*) echo nan ;;
	esac
}

echo
echo "ofan-fabric: $fabric_bin ($build_info), one scheme per run${overrides[*]:+, overrides: ${overrides[*]}}"
if [ "$with_testpmd" = 1 ]; then
	echo "anchor: dpdk-testpmd io, net_null0 -> net_null1, 1 forwarding lcore: $anchor_mpps Mpps${anchor_note:+ ($anchor_note)}"
fi
if [ "$scale" = 1 ]; then
	printf '%-4s %-7s %-9s %9s %12s %9s %9s %11s %8s %7s\n' k procxthr \
		scheme run_s packet_hops Mhops/s hop/tpmd peak_rss_MB total_s preem%
	for r in "${rows[@]}"; do
		read -r e s wall hops mh preem total _ lay k rss <<<"$r"
		ratio=$(awk -v m="$mh" -v a="$anchor_mpps" 'BEGIN {
			if (a + 0 > 0 && m + 0 > 0) printf "%.4f", m / a; else print "-" }')
		star=
		awk -v p="$preem" 'BEGIN { exit !(p + 0 > 2) }' && star='*'
		printf '%-4s %-7s %-9s %9s %12s %9s %9s %11s %8s %6s%s\n' "$k" \
			"$lay" "$s" "$wall" "$hops" "$mh" "$ratio" "$rss" "$total" \
			"$preem" "$star"
	done
	echo "procxthr: processes (MPI ranks, --spread parts) x [fabric] threads each; peak_rss_MB: the largest process's"
	echo "run_s: the run alone (timing.csv); total_s: the job (mpirun and EAL start-up, set-up, output)"
	echo "hop/tpmd: simulated hops per second / testpmd packets per second; * = waited > 2 % of the time for a CPU"
	exit 0
fi
printf '%-16s %-9s %9s %12s %9s %9s %8s %9s %7s\n' experiment scheme run_s \
	packet_hops Mhops/s hop/tpmd total_s target preem%
for r in "${rows[@]}"; do
	read -r e s wall hops mh preem total _ <<<"$r"
	target=$(target_of "$e")
	ratio=$(awk -v m="$mh" -v a="$anchor_mpps" 'BEGIN {
		if (a + 0 > 0 && m + 0 > 0) printf "%.4f", m / a; else print "-" }')
	verdict=$(awk -v w="$wall" -v t="$target" 'BEGIN {
		if (t == "nan" || w == "nan") print "-";
		else if (w + 0 <= t + 0) printf "<%ss ok", t;
		else printf "<%ss %.1fx", t, w / t }')
	star=
	awk -v p="$preem" 'BEGIN { exit !(p + 0 > 2) }' && star='*'
	printf '%-16s %-9s %9s %12s %9s %9s %8s %9s %6s%s\n' "$e" "$s" "$wall" \
		"$hops" "$mh" "$ratio" "$total" "$verdict" "$preem" "$star"
done
echo "run_s: the run alone (timing.csv); total_s: the process (EAL start-up, set-up, output)"
echo "hop/tpmd: simulated hops per second / testpmd packets per second; * = the process waited > 2 % of its time for a CPU"

if [ -n "$json" ]; then
	{
		printf '{\n  "anchor_testpmd_io_mpps": "%s",\n  "rows": [\n' "$anchor_mpps"
		n=0
		for r in "${rows[@]}"; do
			read -r e s wall hops mh preem total _ <<<"$r"
			[ $n -eq 0 ] || printf ',\n'
			printf '    {"experiment": "%s", "scheme": "%s", "run_s": "%s", "packet_hops": "%s", "mhops_per_s": "%s", "total_s": "%s", "preempted_pct": "%s"}' \
				"$e" "$s" "$wall" "$hops" "$mh" "$total" "$preem"
			n=$((n + 1))
		done
		printf '\n  ]\n}\n'
	} >"$json"
	echo "JSON: $json"
fi
