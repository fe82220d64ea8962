#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build and run every libFuzzer harness in SRCDIR/tests/fuzz/fuzz_*.c (each
# file there that defines LLVMFuzzerTestOneInput) for a short time each.
#
#   run-fuzz.sh SRCDIR OUTDIR [SECONDS | --seconds SECONDS] [--only NAME,...]
#                [--mutant PATCH]
#
# --only runs just the harnesses named (fuzz_host, ...), for long runs of
# one at a time.
# The harnesses are built by meson in OUTDIR/build (clang, -Dfuzz=true,
# ASan and UBSan; tests/fuzz/meson.build links each with the libraries it
# exercises, the programs' own) and each runs for SECONDS (default 5) on
# the corpus OUTDIR/corpus/NAME, which keeps growing across runs.  Seeds:
#   fuzz_parse   the frames of "ofan-pcapgen seeds" (every parser drop
#                reason, good frames, and the PFC, pause, trimmed,
#                returned, NACK and CNP frames peers send), from the same
#                build;
#   fuzz_experiment  the experiments of SRCDIR/configs/experiments (and
#                paper/) and SRCDIR/tests/data/fabric;
#   fuzz_*config* the *.ini files of SRCDIR/configs and SRCDIR/tests/data/*;
#   fuzz_cm      every *.cm file under SRCDIR/tests and SRCDIR/configs;
#   fuzz_plan    uet-htsim's plans, SRCDIR/testbed/uec/validate_*.txt;
#   fuzz_chakra  every trace set under SRCDIR/tests/data/chakra and one
#                ofan-chakra writes (configs/host-job-b2b.ini's job),
#                packed as the harness reads them;
#   fuzz_jobs    the configs with [job.*] sections (configs/experiments/
#                training/*.ini, configs/host-job-b2b.ini);
#   fuzz_host    only its own below (it links the host engine and
#                DPDK, and starts EAL);
#   fuzz_switch  each frame of "ofan-pcapgen seeds" packed as a program
#                (fuzz_switch.c's header, for a plain and a lossless,
#                trimming switch; the frame as raw bytes into a port;
#                every port drained);
#   any harness  the files in SRCDIR/tests/fuzz/seeds/NAME/, if present.
# An input that takes longer than 30 s is a finding (libFuzzer's timeout).
# Prints one line per harness with the number of executions, the corpus
# and the coverage (libFuzzer's edges and features); crash inputs
# are kept as OUTDIR/artifacts/NAME-*.  Exits 1 if any harness crashed or
# failed to build, 77 (meson's "skipped") if there is no clang.
# NINJA_JOBS=N in the environment builds with N jobs (ninja's default
# otherwise).
#
# --mutant PATCH checks that the harnesses find a bug: it copies SRCDIR
# (its files git knows or would, else all but build*/ and .git) to
# OUTDIR/mutant-src, applies PATCH there (patch -p1), builds in
# OUTDIR/build-mutant and runs the harnesses (--only's, else all) for
# SECONDS each on a fresh corpus in OUTDIR/mutant-corpus, seeded as
# usual, until one crashes.  It prints
#   mutant PATCH: found by NAME after N executions in S s (artifact FILE)
# and exits 0, or "mutant PATCH: NOT found" and exits 1 (2 if the
# mutant does not apply or build).  tests/fuzz/mutants/ holds the
# mutants fuzz_host must find (gbn-ack.patch: gbn's sender takes an ACK
# past what it sent; gbn-in-order.patch: gbn's receiver takes a packet
# past a hole), e.g.
#   run-fuzz.sh . /tmp/fz --seconds 300 --only fuzz_host \
#       --mutant tests/fuzz/mutants/gbn-ack.patch
set -euo pipefail

usage() {
	echo "usage: $0 SRCDIR OUTDIR [SECONDS | --seconds SECONDS] [--only NAME,...] [--mutant PATCH]" >&2
	exit 2
}

case ${1-} in
--version) exec "$(dirname "$0")/../../scripts/version.sh" "$0" ;;
-h | --help)
	sed -n '4,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
	exit 0
	;;
esac
[[ $# -ge 2 ]] || usage
srcdir=$1
outdir=$2
shift 2
seconds=5
only=
mutant=
# The long mode: --seconds N for each harness (the same as a bare N).
while [[ $# -gt 0 ]]; do
	case $1 in
	--seconds) [[ $# -ge 2 ]] || usage; seconds=$2; shift ;;
	--only) [[ $# -ge 2 ]] || usage; only=,$2, ; shift ;;
	--mutant) [[ $# -ge 2 ]] || usage; mutant=$2; shift ;;
	-*) usage ;;
	*) seconds=$1 ;;
	esac
	shift
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || {
	echo "fuzz: SECONDS must be a positive whole number, not '$seconds'" >&2
	exit 2
}
[[ -d $srcdir/common && -d $srcdir/tests/fuzz ]] || {
	echo "fuzz: $srcdir does not look like the ofan source tree" >&2
	exit 2
}
if [[ -n $mutant ]]; then
	[[ -f $mutant ]] || {
		echo "fuzz: no mutant patch '$mutant'" >&2
		exit 2
	}
	patch_file=$(cd "$(dirname "$mutant")" && pwd)/$(basename "$mutant")
fi
srcdir=$(cd "$srcdir" && pwd)

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
outdir=$(cd "$outdir" && pwd)
build=$outdir/build
tree=$srcdir

# A copy of SRCDIR with the mutant applied, in OUTDIR/mutant-src.  Files
# the last mutant changed get a new time, so that the build takes them
# back (the copy keeps the tree's times).
if [[ -n $mutant ]]; then
	tree=$outdir/mutant-src
	build=$outdir/build-mutant
	rm -rf "$tree"
	mkdir -p "$tree" "$build"
	if git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$srcdir" ls-files -z --cached --others \
			--exclude-standard |
			(cd "$srcdir" && xargs -0 tar --ignore-failed-read -cf - --) |
			tar -xf - -C "$tree"
	else
		tar -C "$srcdir" --exclude='./build*' --exclude=./.git \
			-cf - . | tar -xf - -C "$tree"
	fi
	if [[ -f $build/.mutant-files ]]; then
		while IFS= read -r f; do
			[[ -f $tree/$f ]] && touch "$tree/$f"
		done <"$build/.mutant-files"
	fi
	sed -n 's|^+++ b/||p' "$patch_file" >"$build/.mutant-files"
	if ! patch -d "$tree" -p1 -s --batch --forward <"$patch_file" \
		>"$outdir/logs/mutant-patch.log" 2>&1; then
		echo "mutant $mutant: does not apply (see $outdir/logs/mutant-patch.log)"
		exit 2
	fi
fi

# The fuzz build: configured once, rebuilt (only what changed) each run.
if [[ ! -f $build/build.ninja ]]; then
	if ! CC=$cc meson setup "$build" "$tree" -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debugoptimized -Dmpi=disabled -Dtests=disabled \
		>"$outdir/logs/setup.log" 2>&1; then
		echo "fuzz: meson setup failed (see $outdir/logs/setup.log)"
		tail -n 20 "$outdir/logs/setup.log" >&2
		rm -rf "$build"
		exit 1
	fi
fi
if ! ninja -C "$build" ${NINJA_JOBS:+-j "$NINJA_JOBS"} fuzzers \
	>"$outdir/logs/build.log" 2>&1; then
	echo "fuzz: building the harnesses failed (see $outdir/logs/build.log)"
	tail -n 40 "$outdir/logs/build.log" >&2
	[[ -z $mutant ]] || exit 2
	exit 1
fi

# Write the seed inputs of harness $1 into directory $2.
seed_corpus() {
	local name=$1 dir=$2 f
	case $name in
	fuzz_parse)
		"$build/tools/ofan-pcapgen" seeds --out-dir "$dir"
		;;
	fuzz_cm)
		# Every connection matrix of the tree (tests and configs).
		find "$srcdir/tests" "$srcdir/configs" -name '*.cm' \
			-exec cp {} "$dir/" \;
		;;
	fuzz_plan)
		# uet-htsim's validation plans as ofan ships them.
		cp "$srcdir"/testbed/uec/validate_*.txt "$dir/"
		;;
	fuzz_experiment)
		for f in "$srcdir"/configs/experiments/*.ini \
			"$srcdir"/configs/experiments/paper/*.ini \
			"$srcdir"/tests/data/fabric/*.ini; do
			[[ -f $f ]] || continue
			cp "$f" "$dir/$(basename "$(dirname "$f")")-${f##*/}"
		done
		;;
	fuzz_chakra)
		# Every shipped trace set, and one ofan writes, packed as the
		# harness reads them (its header comment).
		"$build/tools/ofan-chakra" write --config \
			"$srcdir/configs/host-job-b2b.ini" --job pair \
			--out "$dir/.pair" >/dev/null
		/usr/bin/python3 - "$dir" "$srcdir/tests/data/chakra" <<'PY'
import glob, os, re, sys
out, data = sys.argv[1], sys.argv[2]
sets = {}
for f in glob.glob(os.path.join(data, "**", "*.et"), recursive=True) + \
        glob.glob(os.path.join(out, ".pair.*.et")):
    m = re.match(r"(.*)\.(\d+)\.et$", f)
    sets.setdefault(m.group(1), {})[int(m.group(2))] = f
for n, (prefix, files) in enumerate(sorted(sets.items())):
    ranks = [open(files[r], "rb").read() for r in sorted(files)]
    if len(ranks) > 16 or any(len(b) > 65535 for b in ranks[:-1]):
        continue
    packed = bytes([len(ranks) - 1])
    packed += b"".join(len(b).to_bytes(2, "little") for b in ranks[:-1])
    with open(os.path.join(out, f"trace-{n}"), "wb") as g:
        g.write(packed + b"".join(ranks))
PY
		rm -f "$dir"/.pair.*.et
		;;
	fuzz_switch)
		mkdir -p "$dir/.frames"
		"$build/tools/ofan-pcapgen" seeds --out-dir "$dir/.frames"
		/usr/bin/python3 - "$dir" <<'PY'
import glob, os, sys
out = sys.argv[1]
# fuzz_switch.c's 72-byte header: zeros (ecmp, 2 ports), and ofan on 4
# ports: 0-1 lossless, 2 trimming headers (rts overflow), 3 whole (always).
hdrs = [bytes(72), bytes.fromhex(
    "050210000102030401030c00000f00014403ff000000000000001d03e80500001d"
    "03e805080520000000501a" + "00" * 28)]
for f in sorted(glob.glob(os.path.join(out, ".frames", "*.bin"))):
    b = open(f, "rb").read()
    for v, h in enumerate(hdrs):
        # RAW (op 4) flags+length, FLUSH (5) into port 2v, DRAIN (7) all.
        prog = h + bytes([4, len(b) >> 8 & 7, len(b) & 0xff]) + b + \
            bytes([5, 2 * v, 7, 0x60])
        with open(os.path.join(out, f"{v}-{os.path.basename(f)}"), "wb") as g:
            g.write(prog)
PY
		rm -rf "$dir/.frames"
		;;
	fuzz_jobs)
		# Every config with [job.*] sections.
		for f in "$srcdir"/configs/experiments/training/*.ini \
			"$srcdir"/configs/host-job-b2b.ini; do
			cp "$f" "$dir/$(basename "$(dirname "$f")")-${f##*/}"
		done
		;;
	*config*)
		for f in "$srcdir"/configs/*.ini \
			"$srcdir"/tests/data/*/*.ini; do
			[[ -f $f ]] || continue
			cp "$f" "$dir/$(basename "$(dirname "$f")")-${f##*/}"
		done
		;;
	esac
	if [[ -d $srcdir/tests/fuzz/seeds/$name ]]; then
		cp -r "$srcdir/tests/fuzz/seeds/$name/." "$dir/"
	fi
}

# A harness is a fuzz_*.c that defines LLVMFuzzerTestOneInput (the
# others, such as fuzz_host_modes.c, are the harnesses' shared sources).
mapfile -t harnesses < <(grep -l '^LLVMFuzzerTestOneInput(' \
	"$srcdir"/tests/fuzz/fuzz_*.c 2>/dev/null || true)
if [[ ${#harnesses[@]} -eq 0 ]]; then
	echo "fuzz: no harness in $srcdir/tests/fuzz"
	exit 77
fi

failed=0
for src in "${harnesses[@]}"; do
	name=$(basename "$src" .c)
	[[ -z $only || $only == *,$name,* ]] || continue
	exe=$build/tests/fuzz/$name
	log=$outdir/logs/$name.log
	corpus=$outdir/corpus/$name
	artifacts=$outdir/artifacts/$name-
	if [[ -n $mutant ]]; then
		# A fresh corpus each time: what the seeds lead to, no more.
		log=$outdir/logs/mutant-$name.log
		corpus=$outdir/mutant-corpus/$name
		artifacts=$outdir/artifacts/mutant-$name-
		rm -rf "$corpus"
		rm -f "$artifacts"*
	fi
	mkdir -p "$corpus"
	: >"$log"

	if [[ ! -x $exe ]]; then
		echo "$name: not built (add it to tests/fuzz/meson.build)"
		failed=1
		continue
	fi
	if ! seed_corpus "$name" "$corpus" >>"$log" 2>&1; then
		echo "$name: FAILED to write seeds (see $log)"
		failed=1
		continue
	fi

	# ASan's quarantine (256 MB by default) hands every input fresh
	# pages to fault in and clear: a third of fuzz_config's time, more of
	# fuzz_experiment's (megabytes of switch configurations); 16 MB still
	# holds far more than one input frees, so a use after free is caught.
	status=0
	started=$SECONDS
	ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16} \
		"$exe" -max_total_time="$seconds" -timeout=30 \
		-print_final_stats=1 \
		-artifact_prefix="$artifacts" "$corpus" \
		>>"$log" 2>&1 || status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" |
		tail -n 1)
	if [[ -n $mutant ]]; then
		if [[ $status -ne 0 ]]; then
			artifact=$(find "$outdir/artifacts" -name "mutant-$name-*" \
				-type f | head -n 1)
			echo "mutant $mutant: found by $name after" \
				"${execs:-?} executions in $((SECONDS - started)) s" \
				"(artifact ${artifact:-none}; see $log)"
			exit 0
		fi
		echo "$name: did not find it in ${execs:-?} executions"
		continue
	fi
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
if [[ -n $mutant ]]; then
	echo "mutant $mutant: NOT found"
	exit 1
fi
exit "$failed"
