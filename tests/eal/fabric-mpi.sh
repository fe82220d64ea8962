#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ofan-fabric over MPI ranks (mpirun --oversubscribe on this machine's
# cores): the same outputs as one process, whatever the ranks and threads.
#   - --spread parts: 1 process x 1 thread, 2 ranks x 1 thread, 2 ranks x
#     2 threads and 4 ranks x 1 thread write byte-identical summary.json,
#     runs.csv, flows.csv, queues.csv and queue-time.csv
#       - on a k = 4 fat tree with a black-holed link and reconvergence
#         (two reconvergence delays);
#       - on a 4 x 4 leaf-spine with a two-point size sweep;
#     and 1 x 1 against 2 x 1 for a serial all-to-all whose triggers cross
#     pods (the run takes one part, on rank 0; the other rank idles);
#   - --spread runs over 2 ranks equals the sequential run;
#   - a training job (configs/experiments/training/dense.ini, shrunk): its
#     job files and the rest the same over 2 ranks, parts or runs;
#   - a configuration error exits 2 with its file:section:key message
#     (once: only rank 0 speaks) and leaves nothing in /var/run/dpdk or
#     /tmp;
#   - a rank that fails alone (EAL refuses rank 1's arguments) stops the
#     job: exit 4, its "rank 1: " message on rank 0's stderr, no outputs;
#   - SIGINT to the ranks keeps the results so far (summary.json,
#     "interrupted" on stderr), exits 130 and leaves nothing in
#     /var/run/dpdk;
#   - every rank removes its EAL runtime directory.
# Skipped when this ofan-fabric was built without MPI or mpirun is absent.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(fabric/ofan-fabric tools/ofan-cmgen)
ofan_setup fabric_mpi "$@"

FAB=$BUILD/fabric/ofan-fabric
FILES=(summary.json runs.csv flows.csv queues.csv queue-time.csv)
if ! command -v mpirun >/dev/null ||
	! grep -q OFAN_HAVE_MPI "$BUILD/build.ninja" 2>/dev/null; then
	echo "-- no MPI (mpirun or an MPI build): skipped"
	exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's shared-memory transport keeps its segment files here.
export OMPI_MCA_orte_tmpdir_base=$TMP/ompi
mkdir -p "$TMP/ompi"

# EAL runtime directories of ofan-fabric processes, before anything ran.
rundirs() { find /var/run/dpdk -maxdepth 1 -name 'ofan-fabric-*' 2>/dev/null | sort; }
RUNDIRS0=$(rundirs)

# mpi_run TAG RANKS ARGS...: mpirun -n RANKS ofan-fabric ARGS (RANKS 0:
# no mpirun); stdout/stderr in $TMP/TAG.out/.err, status in RC.
mpi_run() {
	local tag=$1 n=$2 pid

	shift 2
	if [ "$n" = 0 ]; then
		timeout -k 10 300 "$FAB" "$@" >"$TMP/$tag.out" 2>"$TMP/$tag.err" &
	else
		timeout -k 10 300 mpirun --oversubscribe --bind-to none -n "$n" \
			"$FAB" "$@" >"$TMP/$tag.out" 2>"$TMP/$tag.err" &
	fi
	pid=$!
	PIDS+=("$pid")
	RC=0
	wait "$pid" || RC=$?
	ofan_forget "$pid"
}

# same_outputs WHAT DIR_A DIR_B: the deterministic outputs are identical.
same_outputs() {
	local f bad=""

	for f in "${FILES[@]}"; do
		if [ ! -s "$2/$f" ] || ! cmp -s "$2/$f" "$3/$f"; then
			bad="$bad $f"
		fi
	done
	if [ -z "$bad" ]; then
		pass "$1: ${#FILES[@]} files byte-identical"
	else
		fail "$1: differ:$bad"
	fi
}

# matrix NAME CONFIG OVERRIDES...: one process x 1 thread against 2 x 1,
# 2 x 2 and 4 x 1 ranks x threads.
matrix() {
	local name=$1 cfg=$2 case n th

	shift 2
	mpi_run "$name-1x1" 0 --config "$cfg" "$@" fabric.threads=1 \
		--out "$TMP/$name-1x1" --no-plot --quiet
	expect_eq "$name 1x1: exit status" "$RC" 0
	for case in 2x1 2x2 4x1; do
		n=${case%x*}
		th=${case#*x}
		mpi_run "$name-$case" "$n" --config "$cfg" "$@" \
			fabric.threads="$th" --spread parts \
			--out "$TMP/$name-$case" --no-plot --quiet
		expect_eq "$name $case: exit status" "$RC" 0
		expect_eq "$name $case: timing.csv says $n ranks" \
			"$(awk -F, 'NR == 2 { print $9 }' "$TMP/$name-$case/timing.csv")" "$n"
		same_outputs "$name: $case ranks x threads = 1 process" \
			"$TMP/$name-1x1" "$TMP/$name-$case"
	done
}

echo "-- k = 4, a black-holed link and reconvergence at 55 and 200 us"
matrix blackhole "$SRC/configs/experiments/failure-blackhole.ini" \
	fabric.k=4 failure.hole.link=agg0-core0 \
	sweep.reconverge.values=55us,200us
expect_eq "blackhole: the runs lost packets to the hole" \
	"$(jget "$TMP/blackhole-1x1/summary.json" \
		'int(sum(1 for r in j["runs"] if r["drops"] > 0) > 0)')" 1

echo "-- a 4 x 4 leaf-spine, sizes 256 KiB and 1 MiB"
cat >"$TMP/leafspine.ini" <<EOF
[fabric]
name = mpi-leafspine
topology = leafspine
leaves = 4
spines = 4
hosts_per_leaf = 4
rate = 100G
delay = 1us
seed = 3
schemes = ecmp, spray, ofan
[traffic]
pattern = permutation
seed = 3
[sweep.size]
keys = traffic.size
values = 256KiB, 1MiB
EOF
matrix leafspine "$TMP/leafspine.ini"

echo "-- triggers across pods: one part, on rank 0"
"$BUILD/tools/ofan-cmgen" serial_alltoall --nodes 16 --size 65536 \
	--out "$TMP/sa16.cm" >/dev/null
for case in 1x1 2x1; do
	n=${case%x*}
	[ "$n" = 1 ] && n=0
	mpi_run "triggers-$case" "$n" \
		--config "$SRC/configs/experiments/permutation-k8.ini" fabric.k=4 \
		traffic.pattern=cm traffic.cm_file="$TMP/sa16.cm" \
		fabric.schemes=reps,ofan fabric.threads=1 --spread parts \
		--out "$TMP/triggers-$case" --no-plot --quiet
	expect_eq "triggers $case: exit status" "$RC" 0
done
same_outputs "triggers: 2x1 = 1 process" "$TMP/triggers-1x1" "$TMP/triggers-2x1"

echo "-- training jobs: one part on rank 0 (parts), or runs over ranks"
JOBS=(--config "$SRC/configs/experiments/training/dense.ini" fabric.k=4
      "fabric.schemes=ecmp, ofan" job.llama.dp=2 job.llama.layers=2
      job.llama.seq_len=128 job.llama.hidden=256 job.llama.iterations=2
      fabric.threads=1 --no-plot --quiet)
SAVED_FILES=("${FILES[@]}")
FILES=(summary.json runs.csv flows.csv jobs.csv job-ops.csv job-ranks.csv
       job-nodes.csv)
mpi_run jobs-1x1 0 "${JOBS[@]}" --out "$TMP/jobs-1x1"
expect_eq "jobs 1x1: exit status" "$RC" 0
for case in 2x1-parts 2x1-runs; do
	mpi_run "jobs-$case" 2 "${JOBS[@]}" --spread "${case#2x1-}" \
		--out "$TMP/jobs-$case"
	expect_eq "jobs $case: exit status" "$RC" 0
	same_outputs "jobs: $case = 1 process" "$TMP/jobs-1x1" \
		"$TMP/jobs-$case"
done
FILES=("${SAVED_FILES[@]}")

echo "-- --spread runs over 2 ranks"
mpi_run runs2 2 --config "$TMP/leafspine.ini" --spread runs \
	--out "$TMP/runs2" --no-plot --quiet
expect_eq "runs 2: exit status" "$RC" 0
same_outputs "--spread runs, 2 ranks = sequential" "$TMP/leafspine-1x1" \
	"$TMP/runs2"
expect_eq "runs 2: both ranks ran runs" \
	"$(awk -F, 'NR > 1 { print $10 }' "$TMP/runs2/timing.csv" | sort -u | tr '\n' ' ')" "0 1 "

echo "-- a configuration error"
find /tmp -maxdepth 1 -printf '%f\n' | sort >"$TMP/tmp-before"
mpi_run bad 2 --config "$TMP/leafspine.ini" fabric.leaves=0 --out "$TMP/bad" \
	--no-plot
expect_eq "bad config: exit status" "$RC" 2
expect_eq "bad config: the message, once" \
	"$(grep -c "^ofan-fabric: command line: fabric.leaves=0: " "$TMP/bad.err")" 1
expect_eq "bad config: no output folder" "$(test -e "$TMP/bad" && echo yes || echo no)" no
expect_eq "bad config: nothing new in /tmp" \
	"$(find /tmp -maxdepth 1 -printf '%f\n' | sort | comm -13 "$TMP/tmp-before" - | grep -v "^$(basename "$TMP")\$" | tr '\n' ' ')" ""

echo "-- one rank fails alone"
RC=0
timeout -k 10 120 mpirun --oversubscribe --bind-to none \
	-n 1 "$FAB" --config "$TMP/leafspine.ini" --out "$TMP/onefails" \
	--no-plot --spread parts : \
	-n 1 "$FAB" --no-huge -m 64 --no-pci --file-prefix "${PREFIX}_bad" -l 99 \
	-- --config "$TMP/leafspine.ini" --out "$TMP/onefails" --no-plot \
	--spread parts >"$TMP/onefails.out" 2>"$TMP/onefails.err" || RC=$?
expect_eq "one rank fails: exit status" "$RC" 4
expect_file_has "one rank fails: its message on rank 0's stderr" \
	"$TMP/onefails.err" "ofan-fabric: rank 1: EAL initialisation failed"
expect_eq "one rank fails: no output folder" \
	"$(test -e "$TMP/onefails" && echo yes || echo no)" no
rm -rf "/var/run/dpdk/${PREFIX}_bad"

# SIGINT to the ranks of a long run over 2 ranks, as docs/fabric.md says to stop a
# job.  (Ctrl-C on mpirun is not tested: Open MPI sends SIGTERM and then
# SIGKILL on timers of its own, and a rank killed before rank 0 wrote
# leaves its EAL directory behind.)
echo "-- SIGINT to the ranks"
timeout -k 10 300 mpirun --oversubscribe --bind-to none -n 2 \
	"$FAB" --config "$SRC/configs/experiments/alltoall-k8.ini" \
	fabric.k=4 traffic.size=64MiB --spread parts \
	--out "$TMP/int" --no-plot >"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
PIDS+=("$pid")
# Wait until the run is under way (its first progress line).
for _ in $(seq 1 300); do
	grep -q "s wall" "$TMP/int.err" 2>/dev/null && break
	sleep 0.1
done
ranks=$(pgrep -d ' ' -f "^$FAB " || true)
# shellcheck disable=SC2086  # a list of PIDs
kill -INT $ranks 2>/dev/null || true
RC=0
wait "$pid" || RC=$?
ofan_forget "$pid"
expect_eq "SIGINT: exit status" "$RC" 130
expect_file_has "SIGINT: says so" "$TMP/int.err" \
	"ofan-fabric: interrupted; results so far in $TMP/int"
if [ -s "$TMP/int/summary.json" ]; then
	pass "SIGINT: summary.json written"
else
	fail "SIGINT: no summary.json"
fi

expect_eq "no EAL runtime directory left behind" "$(rundirs)" "$RUNDIRS0"
ofan_finish
