#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# testbed/plot.sh's plots, as a reader measures them: each plot's kept
# script (OFAN_PLOT_GP) is drawn again as SVG and tests/eal/svgplot.py
# reads back what it shows, in data units:
#   - with seeds, a sweep plot's confidence intervals stop at the metric's
#     floor (a slowdown is at least 1, a count at least 0), the axis does
#     not go below it, and the key says when an interval was cut there;
#   - a slowdown CDF whose spraying schemes crowd beside ECMP's tail has a
#     zoom panel on their range, where schemes whose medians differ by
#     0.3 % are 10 pixels apart, and every panel draws each CDF where
#     flows.csv puts it;
#   - the maximum queue over time draws each scheme's line up to its
#     run's end (runs.csv's sim_us) and no further, and marks that end
#     with a dotted line in its colour, and a sweep point whose failures
#     summary.json does not list is not said to have none;
#   - a training job has a timeline per scheme and sweep point, its bars
#     where job-nodes.csv puts them, each iteration in the other shade
#     from the one before;
#   - plot.sh draws a plain run, a sweep with seeds, sweeps of one value,
#     training jobs and runs stopped by time_limit without one gnuplot
#     warning.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(fabric/ofan-fabric)
ofan_setup plot_read "$@"

PLOT=$SRC/testbed/plot.sh
FAB=$BUILD/fabric/ofan-fabric
SVGPLOT=("$OFAN_PY" "$(dirname "$0")/svgplot.py")

# run NAME ARGS...: ofan-fabric ARGS into $TMP/NAME, without plots; its
# exit status should be $RUN_RC (0 unless set).
run() {
	local name=$1 rc=0
	shift
	"$FAB" "$@" --quiet --no-plot --out "$TMP/$name" >"$TMP/$name.out" \
		2>"$TMP/$name.err" || rc=$?
	expect_eq "$name: ofan-fabric's exit status" "$rc" "${RUN_RC:-0}"
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

echo "-- permutation-k8: the spraying schemes' CDFs told apart"
run perm --config "$SRC/configs/experiments/permutation-k8.ini"
plots perm
"$PLOT" --colours >"$TMP/colours.txt"
# Each scheme's colour and the slowdown where its CDF first reaches 0.49
# (by flows.csv), and where each panel draws it ("#colour pixel x").
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["scheme"], $c["slowdown"] }' "$TMP/perm/flows.csv" |
	sort -k1,1 -k2,2n | awk '
		NR == FNR { colour[$1] = $2; next }
		{ n[$1]++; v[$1, n[$1]] = $2 }
		END { for (s in n) { k = int(0.49 * n[s]); if (k < 0.49 * n[s]) k++; print s, colour[s], v[s, k] } }
	' "$TMP/colours.txt" - | sort >"$TMP/perm.median"
npanels=$("${SVGPLOT[@]}" panels "$(svg perm fct-cdf)" | wc -l)
expect_cmp "fct-cdf: panels" "$npanels" -ge 2
best=
for ((k = 0; k < npanels; k++)); do
	"${SVGPLOT[@]}" cross "$(svg perm fct-cdf)" "$k" 0.49 >"$TMP/cross.$k"
	# Every scheme the panel shows is where flows.csv puts it.
	bad=$(awk 'NR == FNR { want[$2] = $3; name[$2] = $1; next }
		($1 in want) && ($3 - want[$1] > 0.005 * want[$1] || want[$1] - $3 > 0.005 * want[$1]) {
			printf " %s at %s (flows.csv: %s)", name[$1], $3, want[$1] }' \
		"$TMP/perm.median" "$TMP/cross.$k")
	expect_eq "fct-cdf panel $k: CDFs cross 0.49 where flows.csv says" "$bad" ""
	# The closest two of the schemes whose slowdowns differ by 0.3 % or
	# more there: how many pixels apart the panel draws them.
	gap=$(awk 'NR == FNR { want[$2] = $3; next }
		($1 in want) { c[++n] = $1; px[n] = $2 }
		END {
			min = ""
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
				a = want[c[i]]; b = want[c[j]]
				if ((a > b ? a - b : b - a) < 0.003 * a) continue
				d = px[i] > px[j] ? px[i] - px[j] : px[j] - px[i]
				if (min == "" || d < min) min = d
			}
			print min == "" ? 0 : int(min)
		}' "$TMP/perm.median" "$TMP/cross.$k")
	echo "   panel $k: the closest two distinct schemes $gap pixels apart"
	[ -n "$best" ] && [ "$gap" -le "$best" ] || best=$gap
done
# The six spraying schemes and ofan are within 1.03-1.09 of ideal at
# their medians, ECMP at 2.28: on its log axis they crowd into 30 pixels.
expect_cmp "fct-cdf: a panel drawing schemes 0.3 % apart 10 pixels apart or more" \
	"${best:-0}" -ge 10

echo "-- permutation-k8: queue-time marks each run's end, draws nothing after"
# ECMP's run ends at 858.9 us, its queues drain until 960 us.
span=$("${SVGPLOT[@]}" panels "$(svg perm queue-time)" | awk '{ print $2 - $1 }')
"${SVGPLOT[@]}" series "$(svg perm queue-time)" 0 >"$TMP/qt.series"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["scheme"], $c["sim_us"] }' "$TMP/perm/runs.csv" >"$TMP/perm.ends"
while read -r scheme end; do
	colour=$(awk -v s="$scheme" '$1 == s { print $2 }' "$TMP/colours.txt")
	line=$(awk -v c="$colour" '$1 == c && $2 == "solid" { print $4 }' "$TMP/qt.series")
	mark=$(awk -v c="$colour" '$1 == c && $2 == "dashed" { print $3 }' "$TMP/qt.series")
	# Within 0.2 % of the axis (about 2 pixels).
	expect_eq "queue-time: $scheme's run ends at $end, its line at ${line:-none}" \
		"$(awk -v x="$line" -v e="$end" -v t="$span" 'BEGIN { print (x != "" && x <= e + 0.002 * t) ? "by the end" : "later" }')" "by the end"
	expect_eq "queue-time: $scheme's run ends at $end, its dotted line at ${mark:-none}" \
		"$(awk -v x="$mark" -v e="$end" -v t="$span" 'BEGIN { d = x - e; print (x != "" && d * d <= (0.002 * t) ^ 2) ? "there" : "elsewhere" }')" there
done <"$TMP/perm.ends"

echo "-- chakra.ini: a sweep of the failure itself"
run chakra --config "$SRC/configs/experiments/training/chakra.ini"
plots chakra
# Combo 0 runs without the failure, combo 1 with a black hole at 50 us:
# summary.json lists the first combo's failures only.
expect_eq "queue-time-0: says no failure" \
	"$("${SVGPLOT[@]}" texts "$(svg chakra queue-time-0)" | grep -c '^no failure$' || true)" 1
expect_eq "queue-time-1 (black hole): does not say no failure" \
	"$("${SVGPLOT[@]}" texts "$(svg chakra queue-time-1)" | grep -c '^no failure$' || true)" 0
# A timeline per scheme and sweep point, its bars where job-nodes.csv
# puts that point's nodes, one iteration's bars apart from the next's.
for scheme in ecmp ofan; do
	for combo in 0 1; do
		f=$(svg chakra "timeline-$scheme-$combo")
		if [ ! -s "$f" ]; then
			fail "timeline-$scheme-$combo: no plot"
			continue
		fi
		"${SVGPLOT[@]}" boxes "$f" 0 >"$TMP/boxes"
		want=$(awk -F, -v s="$scheme" -v c="$combo" '
			NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
			$k["scheme"] == s && $k["combo"] == c && $k["end_us"] > m { m = $k["end_us"] }
			END { print m }' "$TMP/chakra/job-nodes.csv")
		got=$(awk '$3 > m { m = $3 } END { print m }' "$TMP/boxes")
		expect_eq "timeline-$scheme-$combo: the last bar ends at $got, job-nodes.csv at $want" \
			"$(awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; print (d * d < (0.005 * b) ^ 2) ? "same" : "differ" }')" same
		# chakra.ini: one all-to-all an iteration, three iterations.
		expect_eq "timeline-$scheme-$combo: bars a rank" \
			"$(awk '{ n[int($4 + 0.5)]++ } END { for (r in n) print n[r] }' "$TMP/boxes" | sort -u | tr '\n' ' ')" "3 "
		expect_eq "timeline-$scheme-$combo: next iteration's bar in the other shade" \
			"$(sort -k4,4n -k2,2n "$TMP/boxes" | awk '
				{ r = int($4 + 0.5) }
				r == pr && $1 == pc { same++ }
				{ pr = r; pc = $1; c[$1] = 1 }
				END { for (k in c) nc++; print nc " shades, " same + 0 " alike in a row" }')" \
			"2 shades, 0 alike in a row"
	done
done

echo "-- more of the plots' paths"
# A dense job: compute and communication, two iterations, two points.
run dense --config "$SRC/configs/experiments/training/dense.ini" \
	job.llama.iterations=2 job.llama.hidden=256 job.llama.ffn=688 \
	job.llama.seq_len=128 fabric.schemes=ecmp,ofan
plots dense
# A leaf-spine whose sweeps have one value each, and nothing lost.
run one --config "$SRC/configs/experiments/queue-scaling.ini" \
	sweep.load.values=1.0 sweep.size.values=4/2/2 traffic.size=256KiB \
	fabric.schemes=spray,ofan
plots one
# Runs stopped by time_limit: flows and iterations unfinished.
RUN_RC=1 run stopped --config "$SRC/configs/experiments/permutation-k8.ini" \
	fabric.k=4 fabric.schemes=ecmp,ofan fabric.time_limit=20us
plots stopped
RUN_RC=1 run stopped-job --config "$SRC/configs/experiments/training/chakra.ini" \
	fabric.schemes=ecmp,ofan fabric.time_limit=150us
plots stopped-job

echo "-- no gnuplot warning on any of them"
for name in seeds perm chakra dense one stopped stopped-job; do
	if grep -q 'gnuplot' "$TMP/$name.plot.err"; then
		fail "$name: gnuplot warned:"
		grep 'gnuplot' "$TMP/$name.plot.err" | sort | uniq -c | head -5 | sed 's/^/    /'
	else
		pass "$name: $(grep -c '^plot: ' "$TMP/$name.plot.out") plots, no gnuplot warning"
	fi
done

ofan_finish
