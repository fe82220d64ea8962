#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# reproduce.sh: run the study's experiments (configs/experiments/paper/)
# and the training experiments (configs/experiments/training/) on
# ofan-fabric and write one report a person reads: every table and plot,
# for each of the study's four findings a verdict computed from the data
# (testbed/study/report.py), and whether the first holds on the training
# jobs' iteration time.
#
# usage: testbed/study/reproduce.sh [--quick | --smoke] [--out DIR] [--only NAME]...
#
#   --quick    fewer seeds, shorter all-to-all flows (128 KiB; 256 KiB
#              under the failure, 64 KiB on the lossy links), the
#              scaling permutations up to 4 MiB, the loss-recovery
#              grid on k = 4: every finding, about 8 minutes here
#   --smoke    the same set on a k = 4 fat tree with small flows, the
#              training jobs with one iteration and five schemes, about
#              a minute and a half (what the test suite renders)
#   --out DIR  results/paper (results/paper-quick, results/paper-smoke)
#              by default; DIR/NAME per experiment and DIR/report.html.
#              A run of another mode or set of overrides is not written
#              over: ofan-fabric refuses DIR/NAME holding another run's
#              results (remove it, or choose another --out)
#   --only N   run only experiment N (permutation, structured, alltoall,
#              failure, failure-permutation, failure-persistent,
#              queue-scaling, scaling, degraded, failure-types, lossy,
#              lossy-random, dr-variants, subflows, reliability, nscc,
#              training-dense, training-moe, training-mixed);
#              repeatable; the report covers what DIR holds
#
# Needs a build (scripts/build.sh) and gnuplot.  Exit status: 0 when every
# run completed and the report was written, 1 otherwise, 2 on bad usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
fabric=${OFAN_FABRIC:-$root/build/fabric/ofan-fabric}
cfgdir=$root/configs/experiments/paper
out=
mode=full
only=()
experiments=(permutation structured alltoall failure failure-permutation
	failure-persistent queue-scaling scaling degraded failure-types lossy
	lossy-random dr-variants subflows reliability nscc training-dense
	training-moe training-mixed)

# usage [STATUS]: this header, then exit STATUS (default 2); on stdout
# when asked for (--help, status 0), on stderr after a mistake.
usage() {
	if [ "${1:-2}" = 0 ]; then
		sed -n '3,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
	else
		sed -n '3,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0" >&2
	fi
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--quick) mode=quick ;;
	--smoke) mode=smoke ;;
	--out)
		[ $# -ge 2 ] || usage
		out=$2
		shift
		;;
	--only)
		[ $# -ge 2 ] || usage
		only+=("$2")
		shift
		;;
	--version) exec "$(dirname "$0")/../../scripts/version.sh" "$0" ;;
	-h | --help) usage 0 ;;
	*)
		echo "reproduce.sh: unknown argument '$1'" >&2
		usage
		;;
	esac
	shift
done
if [ -z "$out" ]; then
	out=$root/results/paper
	[ "$mode" = full ] || out=$out-$mode
fi
for n in "${only[@]}"; do
	case " ${experiments[*]} " in
	*" $n "*) ;;
	*)
		echo "reproduce.sh: no experiment '$n'; expected one of ${experiments[*]}" >&2
		exit 2
		;;
	esac
done
if [ ! -x "$fabric" ]; then
	echo "reproduce.sh: $fabric not found; build first: scripts/build.sh" >&2
	exit 1
fi
mkdir -p "$out"

# overrides NAME: the command-line overrides of experiment NAME in $mode,
# one a line (a value may hold blanks: a list of links).
overrides() {
	local k4_links="core0-agg0 core1-agg0 core2-agg1 core3-agg1 core0-agg2"

	case $mode/$1 in
	full/*) ;;
	quick/permutation | quick/structured | quick/failure-permutation)
		echo fabric.seeds=3
		;;
	quick/alltoall) printf '%s\n' traffic.size=128KiB fabric.queue_window=20us ;;
	quick/failure)
		# The all-to-all of 256 KiB (2.8 ms): the hole and routing's
		# delays fit well inside it.
		printf '%s\n' fabric.seeds=1 traffic.size=256KiB \
			fabric.queue_window=20us sweep.reconverge.values=5us,25us,150us
		;;
	quick/failure-persistent)
		printf '%s\n' fabric.seeds=1 traffic.size=128KiB fabric.queue_window=20us
		;;
	quick/queue-scaling) echo fabric.seeds=1 ;;
	quick/scaling)
		# The permutations up to 4 MiB and k = 16; no all-to-all.
		echo "sweep.point.values=8/1MiB/permutation, 10/1MiB/permutation, 16/1MiB/permutation, 8/2MiB/permutation, 8/4MiB/permutation"
		;;
	quick/lossy) printf '%s\n' traffic.size=64KiB fabric.queue_window=20us ;;
	# 128 KiB flows (the permutation's last ends near 60 us): the core
	# link fails at 10 us.
	quick/nscc)
		printf '%s\n' fabric.seeds=1 traffic.size=128KiB \
			failure.hole.at=10us fabric.queue_window=5us
		;;
	# The stacks' grid on a k = 4 fat tree: 256 runs of short flows.
	quick/reliability)
		printf '%s\n' fabric.k=4 traffic.size=64KiB fabric.seeds=1 \
			fabric.queue_window=20us
		;;
	smoke/reliability)
		printf '%s\n' fabric.k=4 traffic.size=32KiB fabric.seeds=1 \
			fabric.queue_window=20us
		;;
	quick/degraded | quick/failure-types | quick/lossy-random | \
		quick/dr-variants | quick/subflows)
		echo fabric.seeds=1
		;;
	smoke/scaling)
		printf '%s\n' fabric.seeds=1 \
			"sweep.point.values=4/256KiB/permutation, 4/1MiB/permutation, 6/1MiB/permutation, 4/64KiB/alltoall"
		;;
	# k = 4: aggregation switch 0's two uplinks, then switch 1's and
	# switch 2's first.
	smoke/degraded)
		printf '%s\n' fabric.k=4 traffic.size=256KiB fabric.seeds=1 \
			"failure.deg.link=$k4_links" "sweep.case.values=2/10G, 4/60G, 5/80G"
		;;
	smoke/lossy)
		printf '%s\n' fabric.k=4 traffic.size=64KiB "drop.flaky.link=$k4_links" \
			"sweep.links.values=2, 5"
		;;
	smoke/lossy-random)
		printf '%s\n' fabric.k=4 traffic.size=256KiB fabric.seeds=1 \
			"drop.random.link=core0-agg0 core1-agg0"
		;;
	# Training: one iteration (two in quick), five schemes in smoke.
	smoke/training-* | quick/training-*)
		local it=1 j jobs=llama
		[ "$mode" = quick ] && it=2
		[ "$mode" = smoke ] && echo "fabric.schemes=ecmp, plb, reps, spray, ofan"
		case $1 in
		training-moe) jobs=mixtral ;;
		training-mixed) jobs="llama mixtral dp" ;;
		esac
		for j in $jobs; do
			echo "job.$j.iterations=$it"
		done
		;;
	smoke/*)
		printf '%s\n' fabric.k=4 traffic.size=256KiB fabric.seeds=2
		case $1 in
		failure)
			printf '%s\n' traffic.size=64KiB sweep.reconverge.values=5us,50us,150us
			;;
		# k = 4's aggregation switches have two core links: one dead
		# at each of pod 0's two, not both of one.
		failure-persistent)
			printf '%s\n' traffic.size=64KiB failure.second.link=agg1-core2
			;;
		queue-scaling)
			printf '%s\n' "sweep.size.values=256KiB,1MiB" fabric.mbufs=60000
			;;
		alltoall) echo traffic.size=64KiB ;;
		nscc) printf '%s\n' traffic.size=64KiB failure.hole.at=5us ;;
		esac
		;;
	esac
}

status=0
t_all=$(date +%s)
: >"$out/durations.txt"
for n in "${experiments[@]}"; do
	if [ ${#only[@]} -gt 0 ] && [[ " ${only[*]} " != *" $n "* ]]; then
		continue
	fi
	mapfile -t ov < <(overrides "$n")
	echo "reproduce.sh: $n ($mode${ov[*]:+: ${ov[*]}})" >&2
	t0=$(date +%s)
	rc=0
	cfg=$cfgdir/$n.ini
	case $n in
	training-*) cfg=$root/configs/experiments/training/${n#training-}.ini ;;
	esac
	"$fabric" --config "$cfg" --out "$out/$n" --quiet "${ov[@]}" \
		>"$out/$n.log" 2>&1 || rc=$?
	t1=$(date +%s)
	echo "$n $((t1 - t0))" >>"$out/durations.txt"
	if [ "$rc" != 0 ]; then
		echo "reproduce.sh: $n: ofan-fabric exited $rc (see $out/$n.log)" >&2
		status=1
	fi
done
echo "total $(($(date +%s) - t_all))" >>"$out/durations.txt"
/usr/bin/python3 "$root/testbed/study/report.py" --mode "$mode" "$out" || status=1
exit "$status"
