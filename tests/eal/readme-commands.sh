#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Every example command of README.md and docs/*.md marked "(tested:
# readme-commands)" in the text around it, run as the docs write it --
# from a directory laid out like a checkout (build/, configs/, testbed/),
# with small overrides where a full run is long -- checking its exit
# status and the outputs the docs promise.  The commands are read from
# the docs themselves: when the docs and the programs drift apart (a
# command changes, an option goes), this test fails.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(switch/ofan-switch host/ofan-host fabric/ofan-fabric
	    tools/ofan-cmgen tools/ofan-pcapgen)
ofan_setup readme_cmds "$@"

# README.md first, then docs/ in name order: a prefix finds its first.
README=$TMP/docs.md
cat "$SRC/README.md" "$SRC"/docs/*.md >"$README"
W=$TMP/w
mkdir -p "$W/results"
ln -s "$BUILD" "$W/build"
ln -s "$SRC/testbed" "$W/testbed"
# Data the configs name (chakra.ini's traces).
ln -s "$SRC/tests" "$W/tests"
# configs/ is copied: its relative paths (../results) land in $W.
cp -r "$SRC/configs" "$W/configs"

# readme_cmd PREFIX: the first command of the docs that starts with PREFIX
# (backslash continuations joined, blanks squeezed, a trailing "# comment"
# dropped).
readme_cmd() {
	awk -v p="$1" '
		{
			line = $0
			if (sub(/\\$/, "", line)) { cmd = cmd line; next }
			cmd = cmd line
			sub(/[ \t]+#.*$/, "", cmd)
			gsub(/[ \t]+/, " ", cmd)
			if (index(cmd, p) == 1) { print cmd; exit }
			cmd = ""
		}
	' "$README"
}

# run_readme TAG PREFIX SED [EXTRA...]: the README command starting with
# PREFIX, edited by SED (small overrides), EXTRA appended, run in $W.
run_readme() {
	local tag=$1 prefix=$2 edit=$3 cmd
	shift 3
	cmd=$(readme_cmd "$prefix")
	if [ -z "$cmd" ]; then
		fail "$tag: README.md and docs/ have no command starting with '$prefix'"
		RC=1
		return
	fi
	cmd=$(echo "$cmd" | sed -e "$edit")
	echo "-- $tag: $cmd $*"
	RC=0
	# shellcheck disable=SC2086  # the command's words, as README has them
	(cd "$W" && timeout -k 10 120 $cmd "$@") >"$TMP/$tag.out" 2>&1 || RC=$?
	expect_eq "$tag: exit status" "$RC" 0
	[ "$RC" = 0 ] || tail -n 15 "$TMP/$tag.out" | sed 's/^/    /'
}

# has TAG FILE...: the outputs README promises exist and are not empty.
has() {
	local tag=$1 f
	shift
	for f in "$@"; do
		if [ -s "$W/$f" ]; then pass "$tag: $f"; else fail "$tag: no $f"; fi
	done
}

run_readme switch-quickstart "build/switch/ofan-switch --no-huge -m 512 --no-pci --file-prefix leaf" \
	"s/--duration 5/--duration 1/; s/--file-prefix leaf/--file-prefix $PREFIX-leaf/"
has switch-quickstart leaf.json

mkdir -p "$W/results/replay"
run_readme switch-replay "build/switch/ofan-switch --no-huge -m 512 --no-pci --file-prefix replay" \
	"s/--file-prefix replay/--file-prefix $PREFIX-replay/"
has switch-replay results/replay/stats.json results/replay/up1.pcap
expect_file_has "switch-replay: exit summary" "$TMP/switch-replay.out" \
	"replay: "

"$PCAPGEN" flows --out "$W/my.pcap" --count 200 --flows 8 --size 256 \
	--dst-net 10.1.0.0 --dst-count 8 --acks-every 4 >/dev/null
run_readme replay-sh "testbed/replay.sh my.pcap" "s|results/replay|results/replay-sh|"
has replay-sh results/replay-sh/report.txt

run_readme host-b2b "build/host/ofan-host --no-huge -m 512 --no-pci --file-prefix hb2b" \
	"s/--file-prefix hb2b/--file-prefix $PREFIX-hb2b/"
has host-b2b results/host-b2b.json

run_readme fabric-main "build/fabric/ofan-fabric --config configs/experiments/permutation-k8.ini" \
	"" fabric.k=4 traffic.size=128KiB --quiet
# As written it fills results/permutation-k8/; shrunk by overrides, it
# fills that name with the overrides (a variant never writes over the main
# job's folder).
main_dir=results/permutation-k8+fabric.k=4+traffic.size=128KiB
has fabric-main "$main_dir/table.txt" "$main_dir/summary.json" \
	"$main_dir/fct-cdf.png" "$main_dir/config.ini" "$main_dir/command.txt"

run_readme fabric-sack "build/fabric/ofan-fabric --config configs/experiments/permutation-k8.ini host.recovery=sack" \
	"" fabric.k=4 traffic.size=128KiB --quiet --out results/sack
has fabric-sack results/sack/table.txt

run_readme fabric-small "build/fabric/ofan-fabric --config configs/experiments/permutation-k8.ini fabric.k=4 fabric.schemes=ecmp,ofan" \
	"" traffic.size=128KiB --quiet --out results/small
has fabric-small results/small/table.txt

run_readme cmgen "build/tools/ofan-cmgen permutation --nodes 128" \
	"s/--nodes 128/--nodes 16/"
has cmgen perm_128n_128c_s1_2MB.cm
run_readme fabric-cm "build/fabric/ofan-fabric --config configs/experiments/permutation-k8.ini traffic.pattern=cm" \
	"" fabric.k=4 --quiet --out results/cm
has fabric-cm results/cm/table.txt

run_readme queue-scaling "build/fabric/ofan-fabric --config configs/experiments/paper/queue-scaling.ini" \
	"s/2MiB,50MiB/128KiB,256KiB/" fabric.k=4 fabric.schemes=spray,ofan \
	--quiet --no-plot --out results/qs
has queue-scaling results/qs/table.txt

run_readme training "build/fabric/ofan-fabric --config configs/experiments/training/dense.ini" \
	"" fabric.schemes=ecmp,ofan job.llama.iterations=1 job.llama.layers=2 \
	--quiet --out results/training
has training results/training/jobs.csv results/training/iter-time-0.png
run_readme training-chakra "build/fabric/ofan-fabric --config configs/experiments/training/chakra.ini" \
	"" fabric.schemes=ecmp,ofan --quiet --out results/chakra
has training-chakra results/chakra/jobs.csv
run_readme host-job "build/host/ofan-host --no-huge -m 512 --no-pci --file-prefix job" \
	"s/--file-prefix job/--file-prefix $PREFIX-job/; s|/tmp/job.json|results/job.json|"
has host-job results/job-jobs.csv results/job-job-nodes.csv

run_readme testbed-memif "testbed/testbed.sh --mode memif configs/experiments/testbed-small.ini" \
	"" --out results/tb-memif
has testbed-memif results/tb-memif/hosts-all.json

# README.md stays a front page; every link of the docs resolves.
lines=$(wc -l <"$SRC/README.md")
if [ "$lines" -le 200 ]; then
	pass "README.md: $lines lines (at most 200)"
else
	fail "README.md: $lines lines (at most 200)"
fi
if out=$(python3 "$SRC/tests/tools/doclinks.py" "$SRC" 2>&1); then
	pass "docs: every relative link and anchor resolves"
else
	fail "docs: broken links:"
	while IFS= read -r line; do
		printf '    %s\n' "$line"
	done <<<"$out"
fi

ofan_finish
