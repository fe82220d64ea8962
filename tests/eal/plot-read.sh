#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# testbed/plot.sh's plots, as a reader measures them: each plot's kept
# script (OFAN_PLOT_GP) is drawn again as SVG and tests/eal/svgplot.py
# reads back what it shows, in data units:
#   - with seeds, a sweep plot's confidence intervals stop at the metric's
#     floor (a slowdown is at least 1, a count at least 0), the axis does
#     not go below it, and the key says when an interval was cut there.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(fabric/ofan-fabric)
ofan_setup plot_read "$@"

PLOT=$SRC/testbed/plot.sh
FAB=$BUILD/fabric/ofan-fabric
SVGPLOT=("$OFAN_PY" "$(dirname "$0")/svgplot.py")

# run NAME ARGS...: ofan-fabric ARGS into $TMP/NAME, without plots.
run() {
	local name=$1 rc=0
	shift
	"$FAB" "$@" --quiet --no-plot --out "$TMP/$name" >"$TMP/$name.out" \
		2>"$TMP/$name.err" || rc=$?
	expect_eq "$name: ofan-fabric's exit status" "$rc" 0
}

# plots NAME: plot.sh on $TMP/NAME (its stderr in $TMP/NAME.plot.err),
# each kept script drawn again as $TMP/NAME.gp/PLOT.svg.
plots() {
	local name=$1 rc=0 gp
	mkdir -p "$TMP/$name.gp"
	OFAN_PLOT_GP=$TMP/$name.gp "$PLOT" "$TMP/$name" >"$TMP/$name.plot.out" \
		2>"$TMP/$name.plot.err" || rc=$?
	expect_eq "$name: plot.sh's exit status" "$rc" 0
	for gp in "$TMP/$name.gp"/*.gp; do
		[ -e "$gp" ] || continue
		sed -E -e 's/^set terminal (pngcairo|png) /set terminal svg /' \
			-e "s|^set output .*|set output '${gp%.gp}.svg'|" "$gp" |
			gnuplot 2>/dev/null || fail "$gp: gnuplot failed on it"
	done
}

# expect_at_least WHAT VALUE MIN: VALUE >= MIN (numbers), within 1e-3.
expect_at_least() {
	if awk -v v="$2" -v m="$3" 'BEGIN { exit !(v != "" && v + 0 >= m - 1e-3 * (m < 0 ? -m : m + 1)) }'; then
		pass "$1: $2 (at least $3)"
	else
		fail "$1: $2, expected at least $3"
	fi
}

# svg NAME PLOT: the SVG of PLOT (fct-cdf, sweep-load-max_slowdown, ...).
svg() {
	echo "$TMP/$1.gp/$2.svg"
}

echo "-- a sweep with seeds: intervals stop at the metric's floor"
run seeds --config "$SRC/configs/experiments/paper/permutation.ini" \
	fabric.k=4 fabric.seeds=2 fabric.schemes=ecmp,spray,ofan \
	traffic.size=512KiB sweep.load.values=1.0,0.75
plots seeds
for m in max_slowdown:1 collective_x:1 q_max:0 lost_pkts:0; do
	for dim in load queue; do
		f=$(svg seeds "sweep-$dim-${m%:*}")
		if [ ! -s "$f" ]; then
			fail "sweep-$dim-${m%:*}: no plot"
			continue
		fi
		# The y axis's bottom, in data units (third field).
		bottom=$("${SVGPLOT[@]}" panels "$f" | awk 'NR == 1 { print $3 }')
		expect_at_least "sweep-$dim-${m%:*}: the y axis's bottom" "$bottom" "${m#*:}"
	done
done
# ECMP's maximum slowdown over two seeds: 2.76 +- 6.16 at load 1.0.
expect_eq "sweep-load-max_slowdown: the key says an interval was cut" \
	"$("${SVGPLOT[@]}" texts "$(svg seeds sweep-load-max_slowdown)" |
		grep -c '95 % interval cut at the floor (1)' || true)" 1

ofan_finish
