#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ofan-fabric's command line as a user meets it, before any run:
#   - --list-links prints every link of the topology (overrides applied),
#     even when a [failure.*] names a link that does not exist -- that is
#     how one finds the right name;
#   - a failure on a link that does not exist names real ones and points
#     at --list-links;
#   - a mistake in a section.key=value override is blamed on the override,
#     not on the file, also when it breaks a rule with a key of the file;
#   - a run's folder holds its command, its config as run (overrides
#     marked; it runs the same experiment) and run.json; the same run
#     replaces its results, another run is refused unless --replace, a
#     folder with a file ofan-fabric does not write is never cleared, and
#     a variant's default folder is not the main job's;
#   - a run shorter than one queue window still plots its queue over time,
#     and no plot warns of an empty axis range;
#   - ofan-testbed-gen turns the experiment's sweeps into runs and its
#     black hole into each switch's schedule: the failure at the link's
#     two ends, routing's new weights where the fabric's routing changes
#     them (exact, on a k = 8 fat tree), at failure + reconvergence; and
#     training jobs' [job.*] sections into the hosts' config (a Chakra
#     job's traces by absolute path), which ofan-host loads.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(fabric/ofan-fabric testbed/ofan-testbed-gen switch/ofan-switch
	    host/ofan-host tools/ofan-cmgen tools/ofan-pcapgen)
ofan_setup fabric_cli "$@"

FAB=$BUILD/fabric/ofan-fabric
EXP=$SRC/configs/experiments/failure-blackhole.ini

echo "-- --list-links, k = 4 (the file's agg1-core5 is no link there)"
rc=0
"$FAB" --config "$EXP" fabric.k=4 --list-links >"$TMP/links.txt" \
	2>"$TMP/links.err" || rc=$?
expect_eq "--list-links: exit status" "$rc" 0
expect_eq "--list-links: header" "$(head -1 "$TMP/links.txt")" \
	"# fattree: 48 links (16 hosts, 20 switches); NAME RATE"
expect_eq "--list-links: links listed" "$(grep -vc '^#' "$TMP/links.txt")" 48
expect_eq "--list-links: agg0-core0 among them" \
	"$(grep -c '^agg0-core0 100G$' "$TMP/links.txt")" 1
expect_eq "--list-links: nothing on stderr" "$(cat "$TMP/links.err")" ""

echo "-- a failure on a link that does not exist"
rc=0
"$FAB" --config "$EXP" fabric.k=4 --quiet >/dev/null 2>"$TMP/bad.err" || rc=$?
expect_eq "bad link: exit status" "$rc" 2
expect_file_has "bad link: message" "$TMP/bad.err" \
	"ofan-fabric: $EXP:failure.hole:link: 'agg1-core5' is not a link of this fattree; expected NODE-NODE such as h0-tor0, tor0-agg0, agg0-core0 (48 links: ofan-fabric --config FILE --list-links lists them)"

echo "-- a mistake in an override"
rc=0
"$FAB" --config "$EXP" traffic.sise=1MiB --quiet >/dev/null \
	2>"$TMP/ov.err" || rc=$?
expect_eq "override: exit status" "$rc" 2
expect_eq "override: message starts with the override" \
	"$(cut -c1-59 "$TMP/ov.err")" \
	"ofan-fabric: command line: traffic.sise=1MiB: unknown key; "
# A rule of two keys, broken by the override: the override is named,
# from its side, not the file's ecn_kmax.
rc=0
"$FAB" --config "$EXP" queue.ecn_kmin=1MiB --quiet >/dev/null \
	2>"$TMP/kmin.err" || rc=$?
expect_eq "override against the file: exit status" "$rc" 2
expect_eq "override against the file: message" "$(cat "$TMP/kmin.err")" \
	"ofan-fabric: command line: queue.ecn_kmin=1MiB: '1048576' bytes is above ecn_kmax (327680 bytes); expected ecn_kmin <= ecn_kmax"

echo "-- plots of a run shorter than one queue window"
rc=0
"$FAB" --config "$SRC/configs/experiments/permutation-k8.ini" fabric.k=4 \
	traffic.size=16KiB fabric.queue_window=1ms fabric.schemes=spray,ofan \
	--quiet --out "$TMP/short" >"$TMP/short.out" 2>"$TMP/short.err" || rc=$?
expect_eq "short run: exit status" "$rc" 0
expect_eq "--quiet: nothing on stdout (no table, no plot lines)" \
	"$(cat "$TMP/short.out")" ""
if [ -s "$TMP/short/table.txt" ]; then pass "--quiet: table.txt written"; else fail "--quiet: no table.txt"; fi
for f in fct-cdf.png queue-layers.png queue-time.png; do
	if [ -s "$TMP/short/$f" ]; then pass "short run: $f"; else fail "short run: no $f"; fi
done
expect_eq "short run: no gnuplot range warning" \
	"$(grep -c 'empty . range' "$TMP/short.err" || true)" 0

echo "-- ofan-testbed-gen: runs and the failure schedule"
GEN=$BUILD/testbed/ofan-testbed-gen
expect_eq "--list-runs" "$("$GEN" --config "$EXP" --list-runs | tr '\n' '|')" \
	"0 reconverge=55us|1 reconverge=75us|2 reconverge=100us|3 reconverge=150us|4 reconverge=200us|"
rc=0
"$GEN" --config "$EXP" --mode memif --out "$TMP/gen" --run 5 \
	2>"$TMP/gen5.err" || rc=$?
expect_eq "--run 5: exit status" "$rc" 2
expect_file_has "--run 5: message" "$TMP/gen5.err" \
	"ofan-testbed-gen: --run 5; $EXP has 5 combination(s), 0 to 4"
# A frame model is ofan-fabric's alone: real links cannot follow it.
rc=0
"$GEN" --config "$SRC/configs/experiments/paper/failure.ini" --mode memif \
	--out "$TMP/gen-paper" 2>"$TMP/gen-paper.err" || rc=$?
expect_eq "frame model: exit status" "$rc" 2
expect_file_has "frame model: message" "$TMP/gen-paper.err" \
	"failure.ini:fabric:data_wire_bytes: '4096' is ofan-fabric's frame model, which real links cannot follow; expected 0"
# A stalled link is ofan-switch's too: its ends get mode = stall.  A lossy
# link becomes its sending switch's [drop.*] (a host's cannot be); an
# override is not taken.
sed 's/^mode = blackhole /mode = stall     /' "$EXP" >"$TMP/stall.ini"
"$GEN" --config "$TMP/stall.ini" --mode memif --out "$TMP/gen-stall"
for sw in agg1 core5; do
	expect_file_has "stall: $sw's failure" "$TMP/gen-stall/switch-$sw.ini" \
		"mode = stall"
done
printf '[drop.x]\nlink = core0-agg0\nmode = bursts\nlength_fixed = yes\n' >>"$TMP/stall.ini"
"$GEN" --config "$TMP/stall.ini" --mode memif --out "$TMP/gen-drop"
expect_file_has "drop: core0's lossy port" "$TMP/gen-drop/switch-core0.ini" \
	"[drop.x-core0-agg0]"
expect_file_has "drop: its bursts" "$TMP/gen-drop/switch-core0.ini" \
	"length_fixed = yes"
rc=0
"$BUILD/switch/ofan-switch" -- --config "$TMP/gen-drop/switch-core0.ini" \
	--check-config >"$TMP/check-core0.out" 2>&1 || rc=$?
expect_eq "drop: core0's config loads in ofan-switch" "$rc" 0
sed -i 's/^link = core0-agg0$/link = h0-tor0/' "$TMP/stall.ini"
rc=0
"$GEN" --config "$TMP/stall.ini" --mode memif --out "$TMP/gen-stall" \
	2>"$TMP/gen-stall.err" || rc=$?
expect_eq "drop: exit status" "$rc" 2
expect_file_has "drop: message" "$TMP/gen-stall.err" \
	"stall.ini:drop.x:link: 'h0-tor0' is sent by a host, whose NIC cannot lose frames on purpose"
rc=0
"$GEN" --config "$EXP" --mode memif --out "$TMP/gen-x" failure.hole.mode=stall \
	2>"$TMP/gen-x.err" || rc=$?
expect_eq "an override: exit status" "$rc" 2
expect_file_has "an override: message" "$TMP/gen-x.err" \
	"'failure.hole.mode=stall': unexpected argument"
"$GEN" --config "$EXP" --mode memif --out "$TMP/gen" --run 2
expect_eq "run 2: plan" "$(head -1 "$TMP/gen/plan.txt")" \
	"# failure-blackhole, scheme reps, memif links: 80 switches, 128 hosts, run 2 of 5, 1 failure(s), 239 reroute(s)"
# agg1's uplink to core5 and core5's downlink to agg1, black-holed at
# 50 us, withdrawn by each of them 100 us later.
for sw in agg1 core5; do
	expect_eq "run 2: $sw's failure" \
		"$(sed -n '/^\[failure\.hole\]$/,/^duration/p' "$TMP/gen/switch-$sw.ini" | tr '\n' '|')" \
		"[failure.hole]|port = $([ $sw = agg1 ] && echo 5 || echo 0)|mode = blackhole|at = 50000ns|duration = 0ns|"
	expect_file_has "run 2: $sw's delays" "$TMP/gen/switch-$sw.ini" \
		"reconverge_delay = 100000ns"
done
# Routing at 150 us: a ToR of another pod reaches pod 0's ToRs with one
# path fewer through its second aggregation switch (4, 3, 4, 4); core5
# no longer reaches pod 0.
expect_eq "run 2: tor8's reroute" \
	"$(sed -n '/^\[reroute\.hole-0\]$/,/^weights/p' "$TMP/gen/switch-tor8.ini" | tr '\n' '|')" \
	"[reroute.hole-0]|at = 150000ns|group = to-tor0|weights = 4, 3, 4, 4|"
expect_eq "run 2: core5's reroute" \
	"$(grep -A3 '^\[reroute\.hole-0\]$' "$TMP/gen/switch-core5.ini" | tr '\n' '|')" \
	"[reroute.hole-0]|at = 150000ns|group = down0|weights = 0|"
expect_eq "run 2: switches with a schedule" \
	"$(grep -l '^\[\(reroute\|failure\)\.' "$TMP/gen"/switch-*.ini | wc -l)" 41
# A link back after 300 us: routing gives the old weights back then.
sed 's/^duration = 0 .*/duration = 300us/' "$EXP" >"$TMP/back.ini"
"$GEN" --config "$TMP/back.ini" --mode memif --out "$TMP/back" --run 2
expect_eq "link back: tor8's reroutes" \
	"$(grep -A3 '^\[reroute\.hole-[04]\]$' "$TMP/back/switch-tor8.ini" | grep -v '^--' | tr '\n' '|')" \
	"[reroute.hole-0]|at = 150000ns|group = to-tor0|weights = 4, 3, 4, 4|[reroute.hole-4]|at = 350000ns|group = to-tor0|weights = 4, 4, 4, 4|"
expect_file_has "link back: agg1's failure lasts 300 us" \
	"$TMP/back/switch-agg1.ini" "duration = 300000ns"
# Every generated switch config loads in ofan-switch (checked there).
rc=0
"$BUILD/switch/ofan-switch" -- --config "$TMP/gen/switch-tor0.ini" \
	--check-config >"$TMP/check.out" 2>&1 || rc=$?
expect_eq "run 2: tor0's config loads" "$rc" 0
# Training jobs: their [job.*] sections go to the hosts' config, a Chakra
# job's traces by their absolute path (the config is elsewhere), with the
# topology's tor_size that placement reads; ofan-host takes it from any
# folder.  Without the sections it would refuse pattern = jobs.
JOBX=$SRC/configs/experiments/training/chakra.ini
"$GEN" --config "$JOBX" --mode memif --out "$TMP/gen-job"
expect_file_has "jobs: the job's section" "$TMP/gen-job/hosts-all.ini" \
	"[job.a2a]"
expect_file_has "jobs: its traces, absolute" "$TMP/gen-job/hosts-all.ini" \
	"trace = $(cd "$SRC" && pwd -P)/tests/data/chakra/astra-sim/all_to_all/16npus_1MB/all_to_all ;"
expect_file_has "jobs: the ToRs' size" "$TMP/gen-job/hosts-all.ini" \
	"tor_size = 2"
rc=0
(cd / && "$HOST" -- --config "$TMP/gen-job/hosts-all.ini" --check-config) \
	>"$TMP/check-job.out" 2>&1 || rc=$?
expect_eq "jobs: the hosts' config loads" "$rc" 0
expect_file_has "jobs: the job's ranks" "$TMP/check-job.out" \
	"ok (16 ranks, 720 flows, 16 local ranks"

echo "-- a run cut short by time_limit"
rc=0
"$FAB" --config "$SRC/configs/experiments/permutation-k8.ini" fabric.k=4 \
	fabric.time_limit=20us fabric.schemes=ofan --no-plot --quiet \
	--out "$TMP/cut" >"$TMP/cut.out" 2>"$TMP/cut.err" || rc=$?
expect_eq "cut short: exit status" "$rc" 1
row=$(grep '^ofan ' "$TMP/cut/table.txt" || true)
expect_eq "cut short: the row's times" \
	"$(echo "$row" | awk '{ print $2, $3, $4, $5, $6 }')" "– – – – –"
expect_eq "cut short: marked" "$(echo "$row" | grep -c 'INCOMPLETE (time_limit)')" 1
expect_eq "cut short: no 0.00 anywhere" "$(grep -c ' 0\.00 ' "$TMP/cut/table.txt" || true)" 0

echo "-- a run's folder describes it"
rc=0
"$FAB" --config "$EXP" fabric.k=4 traffic.size=128KiB fabric.schemes=ofan \
	failure.hole.link=agg0-core0 --no-plot --quiet --out "$TMP/desc" \
	>/dev/null 2>"$TMP/desc.err" || rc=$?
expect_eq "described run: exit status" "$rc" 0
expect_file_has "config.ini: an override marked" "$TMP/desc/config.ini" \
	"k = 4	; command line: fabric.k=4"
expect_file_has "config.ini: an override of the file's failure" \
	"$TMP/desc/config.ini" "link = agg0-core0	; command line: failure.hole.link=agg0-core0"
expect_file_has "config.ini: a key from the file" "$TMP/desc/config.ini" \
	"mtu = 4096"
expect_eq "run.json: overrides" \
	"$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["overrides"]))' "$TMP/desc/run.json")" \
	"fabric.k=4 traffic.size=128KiB fabric.schemes=ofan failure.hole.link=agg0-core0"
expect_eq "summary.json: overrides" \
	"$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["overrides"]))' "$TMP/desc/summary.json")" \
	"fabric.k=4 traffic.size=128KiB fabric.schemes=ofan failure.hole.link=agg0-core0"
expect_eq "summary.json: the failure" \
	"$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fabric"]["failures"][0]; print(f["link"], f["mode"], f["at_us"])' "$TMP/desc/summary.json")" \
	"agg0-core0 blackhole 50"
cp "$TMP/desc/runs.csv" "$TMP/desc-runs.csv"
rc=0
(cd / && bash "$TMP/desc/command.txt") >/dev/null 2>&1 || rc=$?
expect_eq "command.txt: runs again" "$rc" 0
expect_eq "command.txt: the same results" \
	"$(cmp -s "$TMP/desc-runs.csv" "$TMP/desc/runs.csv" && echo same)" same
rc=0
"$FAB" --config "$TMP/desc/config.ini" --no-plot --quiet --out "$TMP/desc2" \
	>/dev/null 2>&1 || rc=$?
expect_eq "config.ini runs the same experiment" \
	"$rc $(cmp -s "$TMP/desc-runs.csv" "$TMP/desc2/runs.csv" && echo same)" "0 same"

echo "-- a run's folder is its own"
touch "$TMP/desc/old-plot.png"
rc=0
"$FAB" --config "$EXP" fabric.k=4 traffic.size=128KiB fabric.schemes=ofan \
	failure.hole.link=agg0-core0 --no-plot --quiet --out "$TMP/desc" \
	>/dev/null 2>&1 || rc=$?
expect_eq "the same run again: replaces its results" \
	"$rc $(test -e "$TMP/desc/old-plot.png" && echo stale || echo cleared)" "0 cleared"
cp "$TMP/desc/runs.csv" "$TMP/desc-runs.csv"
rc=0
"$FAB" --config "$EXP" fabric.k=4 traffic.size=64KiB fabric.schemes=ofan \
	failure.hole.link=agg0-core0 --no-plot --quiet --out "$TMP/desc" >/dev/null 2>"$TMP/other.err" || rc=$?
expect_eq "another run into it: exit status" "$rc" 2
expect_file_has "another run into it: says whose results and what to do" \
	"$TMP/other.err" "ofan-fabric: --out '$TMP/desc' holds the results of another run (command.txt: cd "
expect_file_has "another run into it: --replace named" "$TMP/other.err" \
	"pass --replace to clear them, or choose another --out (nothing was changed)"
expect_eq "another run into it: nothing changed" \
	"$(cmp -s "$TMP/desc-runs.csv" "$TMP/desc/runs.csv" && echo same)" same
rc=0
"$FAB" --config "$EXP" fabric.k=4 traffic.size=64KiB fabric.schemes=ofan \
	failure.hole.link=agg0-core0 --no-plot --quiet --out "$TMP/desc" --replace >/dev/null 2>&1 || rc=$?
expect_eq "--replace: exit status" "$rc" 0
expect_file_has "--replace: the new run's config" "$TMP/desc/config.ini" \
	"size = 64KiB	; command line: traffic.size=64KiB"
echo "notes" >"$TMP/desc/notes.md"
rc=0
"$FAB" --config "$EXP" fabric.k=4 traffic.size=128KiB fabric.schemes=ofan \
	failure.hole.link=agg0-core0 --no-plot --quiet --out "$TMP/desc" --replace >/dev/null \
	2>"$TMP/foreign.err" || rc=$?
expect_eq "a folder with a file not ofan-fabric's: exit status" "$rc" 2
expect_file_has "a folder with a file not ofan-fabric's: named" \
	"$TMP/foreign.err" "holds 'notes.md', which ofan-fabric does not write"
expect_eq "a folder with a file not ofan-fabric's: kept" \
	"$(cat "$TMP/desc/notes.md")" notes
# Without --out: results/NAME, and a variant beside it, not in it.
mkdir "$TMP/cwd"
rc=0
(cd "$TMP/cwd" && "$FAB" --config "$EXP" fabric.k=4 traffic.size=64KiB \
	fabric.schemes=ofan failure.hole.link=agg0-core0 --no-plot --quiet >/dev/null 2>&1) || rc=$?
expect_eq "a variant's default folder" \
	"$rc $(cd "$TMP/cwd" && ls -d results/*)" \
	"0 results/failure-blackhole+fabric.k=4+traffic.size=64KiB+fabric.schemes=ofan+failure.hole.link=agg0-core0"

echo "-- a flow too large to track"
rc=0
"$FAB" --config "$SRC/configs/experiments/permutation-k8.ini" fabric.k=4 \
	traffic.size=1TiB --no-plot --quiet --out "$TMP/big" \
	>"$TMP/big.out" 2>"$TMP/big.err" || rc=$?
expect_eq "size = 1TiB: exit status" "$rc" 2
expect_file_has "size = 1TiB: refused with what fits" "$TMP/big.err" \
	"traffic.size=1TiB: '1TiB' is 268435456 packets of 4096 bytes; expected at most 16777215 packets a flow, 68719472640 bytes with mtu 4136"
expect_eq "size = 1TiB: no output folder" "$(ls -d "$TMP/big" 2>/dev/null || true)" ""

echo "-- ofan-cmgen: errors name the option; --size and --start take units"
CMGEN=$BUILD/tools/ofan-cmgen
cmgen_bad() {
	local want=$1 rc=0
	shift
	(cd "$TMP" && "$CMGEN" "$@") >"$TMP/cg.out" 2>"$TMP/cg.err" || rc=$?
	expect_eq "ofan-cmgen $*: exit status" "$rc" 2
	expect_file_has "ofan-cmgen $*" "$TMP/cg.err" "$want"
}
cmgen_bad "--nodes '1': expected 2 to 1048576" permutation --nodes 1 --out m.cm
cmgen_bad "--size 'abc': expected bytes" permutation --nodes 16 --out m.cm --size abc
cmgen_bad "--size '2GiB': expected 1 to 2147483647" permutation --nodes 16 --out m.cm --size 2GiB
cmgen_bad "--start '1zz': expected picoseconds" permutation --nodes 16 --out m.cm --start 1zz
cmgen_bad "--seed '0': expected 1 or more" permutation --nodes 16 --out m.cm --seed 0
cmgen_bad "--bogus: unknown option" permutation --nodes 16 --out m.cm --bogus 3
cmgen_bad "--out: missing" permutation --nodes 16
cmgen_bad "no PATTERN" --nodes 16 --out m.cm
expect_eq "ofan-cmgen: nothing written by a refused command" \
	"$(ls "$TMP"/m.cm 2>/dev/null || true)" ""
(cd "$TMP" && "$CMGEN" permutation --nodes 16 --size 1MiB --start 1us --out u.cm &&
	"$CMGEN" permutation --nodes 16 --size 1048576 --start 1000000 --out n.cm)
expect_eq "ofan-cmgen: 1MiB and 1us are 1048576 bytes and 1000000 ps" \
	"$(cmp -s "$TMP/u.cm" "$TMP/n.cm" && echo same)" same

# Every program the build makes (meson's list, tests aside) and every
# script a user runs.
mapfile -t PROGRAMS < <(/usr/bin/python3 - "$BUILD/meson-info/intro-targets.json" "$BUILD" <<'PY'
import json, os, sys
build = os.path.realpath(sys.argv[2])
for t in json.load(open(sys.argv[1])):
    if t["type"] == "executable" and not t["name"].startswith("test_"):
        for f in t["filename"]:
            print(os.path.relpath(f, build))
PY
)
SCRIPTS=(scripts/main.sh scripts/test.sh scripts/build.sh
	scripts/install-deps.sh scripts/config-reference.sh scripts/version.sh
	testbed/bench/bench-fabric.sh testbed/bench/bench-host.sh
	testbed/bench/bench-switch.sh testbed/capture.sh testbed/plot.sh
	testbed/replay.sh testbed/study/reproduce.sh testbed/run-experiments.sh
	testbed/soak.sh testbed/sriov.sh testbed/testbed.sh
	tests/fuzz/run-fuzz.sh)
expect_eq "the programs found: ofan-chakra among them" \
	"$(printf '%s\n' "${PROGRAMS[@]}" | grep -c '^tools/ofan-chakra$')" 1

echo "-- --version, every program and script"
version=$(sed -n "s/^[[:space:]]*version: '\\([^']*\\)',/\\1/p" "$SRC/meson.build")
for cmd in "${PROGRAMS[@]}" "${SCRIPTS[@]/#/@}"; do
	case $cmd in
	@*) path=$SRC/${cmd#@} ;;
	*) path=$BUILD/$cmd ;;
	esac
	name=${cmd##*/}
	rc=0
	"$path" --version >"$TMP/version.out" 2>"$TMP/version.err" || rc=$?
	expect_eq "$name --version: exit status" "$rc" 0
	expect_eq "$name --version: stderr" "$(cat "$TMP/version.err")" ""
	out=$(cat "$TMP/version.out")
	case "$out" in
	"$name $version" | "$name $version (git "*")")
		pass "$name --version: $out" ;;
	*)	fail "$name --version: '$out'; expected '$name $version (git ...)'" ;;
	esac
done

echo "-- --help, every program and script"
for cmd in "${PROGRAMS[@]}" "${SCRIPTS[@]/#/@}"; do
	case $cmd in
	@*) path=$SRC/${cmd#@} ;;
	*) path=$BUILD/$cmd ;;
	esac
	name=${cmd#@}
	rc=0
	timeout -k 5 30 "$path" --help >"$TMP/help.out" 2>"$TMP/help.err" || rc=$?
	expect_eq "$name --help: exit status" "$rc" 0
	expect_eq "$name --help: stderr" "$(cat "$TMP/help.err")" ""
	if [ -s "$TMP/help.out" ]; then
		pass "$name --help: $(wc -l <"$TMP/help.out") lines on stdout"
	else
		fail "$name --help: nothing on stdout"
	fi
done

ofan_finish
