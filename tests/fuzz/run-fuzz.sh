#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build and run every libFuzzer harness in SRCDIR/tests/fuzz/fuzz_*.c for a
# short time each.
#
#   run-fuzz.sh SRCDIR OUTDIR [SECONDS | --seconds SECONDS]
#
# Each harness is compiled with clang together with SRCDIR/common/*.c into
# OUTDIR/NAME and run for SECONDS (default 5) on the corpus OUTDIR/corpus/NAME,
# which keeps growing across runs.  Seeds:
#   fuzz_parse   the frames of "ofan-pcapgen seeds" (every parser drop
#                reason plus good frames); the generator is built from
#                SRCDIR/tests/tools/pcapgen.c with the same compiler;
#   fuzz_*config* the *.ini files of SRCDIR/configs and SRCDIR/tests/data;
#   fuzz_cm      every *.cm file under SRCDIR/tests and SRCDIR/configs;
#   fuzz_host    only its own below (it is built with SRCDIR/host/*.c
#                and DPDK, and starts EAL);
#   any harness  the files in SRCDIR/tests/fuzz/seeds/NAME/, if present.
# Prints one line per harness with the number of executions, the corpus
# and the coverage (libFuzzer's edges and features); crash inputs
# are kept as OUTDIR/artifacts/NAME-*.  Exits 1 if any harness crashed or
# failed to build, 77 (meson's "skipped") if there is no clang.
set -euo pipefail

usage() {
	echo "usage: $0 SRCDIR OUTDIR [SECONDS | --seconds SECONDS]" >&2
	exit 2
}

[[ $# -ge 2 && $# -le 4 ]] || usage
srcdir=$1
outdir=$2
seconds=${3:-5}
# The long mode: --seconds N for each harness (the same as a bare N).
if [[ ${3:-} == --seconds ]]; then
	[[ $# -eq 4 ]] || usage
	seconds=$4
elif [[ $# -eq 4 ]]; then
	usage
fi
[[ $seconds =~ ^[1-9][0-9]*$ ]] || {
	echo "fuzz: SECONDS must be a positive whole number, not '$seconds'" >&2
	exit 2
}
[[ -d $srcdir/common && -d $srcdir/tests/fuzz ]] || {
	echo "fuzz: $srcdir does not look like the ofan source tree" >&2
	exit 2
}

cc=
for c in clang clang-14; do
	if command -v "$c" >/dev/null 2>&1; then
		cc=$c
		break
	fi
done
if [[ -z $cc ]]; then
	echo "fuzz: clang not found; install clang-14 to run the fuzzers"
	exit 77
fi

mkdir -p "$outdir/corpus" "$outdir/artifacts" "$outdir/logs"
common_srcs=("$srcdir"/common/*.c)
libs=(-liniparser -lpcap -lm)

# Write the seed inputs of harness $1 into directory $2.
seed_corpus() {
	local name=$1 dir=$2 f
	case $name in
	fuzz_parse)
		"$cc" -g -O1 -I "$srcdir/common" -o "$outdir/ofan-pcapgen" \
			"$srcdir/tests/tools/pcapgen.c" "${common_srcs[@]}" \
			"${libs[@]}"
		"$outdir/ofan-pcapgen" seeds --out-dir "$dir"
		;;
	fuzz_cm)
		# Every connection matrix of the tree (tests and configs).
		find "$srcdir/tests" "$srcdir/configs" -name '*.cm' \
			-exec cp {} "$dir/" \;
		;;
	*config*)
		for f in "$srcdir"/configs/*.ini "$srcdir"/tests/data/*.ini; do
			if [[ -f $f ]]; then
				cp "$f" "$dir/"
			fi
		done
		;;
	esac
	if [[ -d $srcdir/tests/fuzz/seeds/$name ]]; then
		cp -r "$srcdir/tests/fuzz/seeds/$name/." "$dir/"
	fi
}

shopt -s nullglob
harnesses=("$srcdir"/tests/fuzz/fuzz_*.c)
shopt -u nullglob
if [[ ${#harnesses[@]} -eq 0 ]]; then
	echo "fuzz: no harness in $srcdir/tests/fuzz"
	exit 77
fi

failed=0
for src in "${harnesses[@]}"; do
	name=$(basename "$src" .c)
	exe=$outdir/$name
	log=$outdir/logs/$name.log
	corpus=$outdir/corpus/$name
	mkdir -p "$corpus"

	# What a harness needs beyond common/ (only fuzz_host starts EAL).
	extra=()
	case $name in
	fuzz_cm)
		extra=(-I "$srcdir/host" "$srcdir/host/hs_traffic.c"
			"$srcdir/host/hs_cm.c" "$srcdir/host/hs_cm_file.c")
		;;
	fuzz_host)
		# The host engine (host/*.c but ofan-host's main.c) and
		# DPDK; its libraries follow the objects that use them.
		read -r -a dpdk_cflags <<<"$(pkg-config --cflags libdpdk)"
		read -r -a dpdk_libs <<<"$(pkg-config --libs libdpdk)"
		extra=(-I "$srcdir/host" "${dpdk_cflags[@]}")
		for f in "$srcdir"/host/*.c; do
			if [[ $f != */main.c ]]; then
				extra+=("$f")
			fi
		done
		extra+=("${dpdk_libs[@]}")
		;;
	esac
	if ! "$cc" -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -I "$srcdir/common" \
		-o "$exe" "$src" "${extra[@]}" "${common_srcs[@]}" "${libs[@]}" \
		>"$log" 2>&1; then
		echo "$name: FAILED to build (see $log)"
		cat "$log" >&2
		failed=1
		continue
	fi
	if ! seed_corpus "$name" "$corpus" >>"$log" 2>&1; then
		echo "$name: FAILED to write seeds (see $log)"
		failed=1
		continue
	fi

	status=0
	"$exe" -max_total_time="$seconds" -print_final_stats=1 \
		-artifact_prefix="$outdir/artifacts/$name-" "$corpus" \
		>>"$log" 2>&1 || status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" |
		tail -n 1)
	files=$(find "$corpus" -type f | wc -l)
	# Coverage at the end: libFuzzer's "DONE cov: C ft: F" line.
	cov=$(sed -n 's/.*DONE *cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p' \
		"$log" | tail -n 1)
	if [[ $status -eq 0 ]]; then
		echo "$name: ok, ${execs:-?} executions in ${seconds} s," \
			"corpus $files inputs, coverage ${cov:-?}"
	else
		echo "$name: CRASHED (exit $status) after ${execs:-?}" \
			"executions; see $log and $outdir/artifacts/"
		tail -n 40 "$log" >&2
		failed=1
	fi
done
exit "$failed"
