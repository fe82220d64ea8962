#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# uet-validate.sh: run uet-htsim's 8 validation plans (testbed/uec, the
# plans its datacenter/commit_check.sh runs, 95 experiments) in
# ofan-fabric with tools/htsim-plan, each experiment judged as
# uet-htsim's validate.py judges it, and end with one line
# "N passed, N failed" over the 95 tail targets (docs/uec.md).
#
# usage: testbed/study/uet-validate.sh [--out DIR] [--htsim DATACENTER_DIR]
#
#   --out DIR     results/uet-validate by default: PLAN.out per plan (the
#                 runner's output) and PLAN/ with each experiment's results
#   --htsim DIR   also run the plans with uet-htsim's own htsim_uec, built
#                 from source in DIR (its htsim/sim/datacenter: htsim_uec
#                 and validate.py there), PLAN.htsim.out, and compare the
#                 two with testbed/study/uet-compare.py (the table of
#                 docs/uec.md); DIR's plans are its own
#
# Needs a build (scripts/build.sh).  Exit status: 0 every target passed,
# 1 one failed, 2 bad usage or a missing build.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
runner=${OFAN_HTSIM_PLAN:-$root/build/tools/ofan-htsim-plan}
out=$root/results/uet-validate
htsim=
plans=(validate_uec_sender validate_uec_rcv validate_uec_both
       validate_uec_connreuse validate_load_balancing_snd
       validate_load_balancing_rcv validate_load_balancing_failed_snd
       validate_load_balancing_failed_rcv)

while (($#)); do
	case $1 in
	--out) out=$2; shift 2 ;;
	--htsim) htsim=$(cd "$2" && pwd); shift 2 ;;
	-h|--help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "uet-validate.sh: unknown argument '$1' (--out, --htsim)" >&2; exit 2 ;;
	esac
done
[[ -x $runner ]] || { echo "uet-validate.sh: $runner not found; build first: scripts/build.sh" >&2; exit 2; }
if [[ -n $htsim && ! -x $htsim/htsim_uec ]]; then
	echo "uet-validate.sh: no htsim_uec in $htsim" >&2
	exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
passed=0 failed=0 pairs=()
cd "$root/testbed/uec"
for p in "${plans[@]}"; do
	rm -rf "${out:?}/$p"
	start=$SECONDS
	"$runner" --keep-going --out "$out/$p" "$p.txt" > "$out/$p.out" 2> "$out/$p.err" || true
	line=$(tail -n 1 "$out/$p.out")
	if [[ ! $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		echo "uet-validate.sh: $p: no summary (see $out/$p.out, $out/$p.err)" >&2
		exit 1
	fi
	passed=$((passed + BASH_REMATCH[1]))
	failed=$((failed + BASH_REMATCH[2]))
	printf '%-40s %s (%d s)\n' "$p" "$line" $((SECONDS - start))
	if [[ -n $htsim ]]; then
		(cd "$htsim" && python3 validate.py "$p.txt") > "$out/$p.htsim.out" 2>&1 || true
		pairs+=("$out/$p.out" "$out/$p.htsim.out")
	fi
done
if ((${#pairs[@]})); then
	echo
	python3 "$root/testbed/study/uet-compare.py" "${pairs[@]}"
fi
echo "$passed passed, $failed failed"
((failed == 0))
