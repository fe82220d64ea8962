#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# testbed/plot.sh's colours, as a reader of the plots meets them:
#   - every switch policy ofan-switch registers and every host policy
#     ofan-host registers (each a scheme of ofan-fabric) has a colour of
#     its own (read from the programs' --help, so a new policy without a
#     colour fails here);
#   - no two of them look alike (redmean colour distance at least 100 of
#     765: drb is not ofan's red, ecmp_ar not rr's blue), and no reserve
#     colour (for SWITCH+HOST schemes) is one of them;
#   - in a real run's plots each scheme's line carries its colour in every
#     plot, a SWITCH+HOST scheme a reserve colour;
#   - a slowdown CDF on a log axis has tics a reader can name;
#   - queue axes name the run's full frame; a failure is a dashed line on
#     the queue-time plot, and a run without one says so;
#   - with seeds, sweep plots show the mean with its 95 % confidence
#     interval as error bars (and without seeds, none).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(switch/ofan-switch host/ofan-host fabric/ofan-fabric)
ofan_setup plot_colours "$@"

PLOT=$SRC/testbed/plot.sh
"$PLOT" --colours >"$TMP/colours.txt"

# The registered names: the policy lists of the programs' --help.
{
	"$SWITCH" --help 2>&1 | sed -n '/^policies (/,/^[^ ]/{/^  [a-z]/p}'
	"$HOST" --help 2>&1 | sed -n '/^host policies (/,/^[^ ]/{/^  [a-z]/p}'
} | awk '{ print $1 }' | grep -vx fixed | sort -u >"$TMP/names.txt"
expect_eq "registered schemes read from --help" \
	"$(wc -l <"$TMP/names.txt")" 15

echo "-- every registered scheme has its own colour"
while read -r n; do
	c=$(awk -v n="$n" '$1 == n { print $2 }' "$TMP/colours.txt")
	if [[ $c =~ ^#[0-9a-f]{6}$ ]]; then
		pass "$n: $c"
	else
		fail "$n has no colour in plot.sh (scheme_colours)"
	fi
done <"$TMP/names.txt"

echo "-- no two alike"
"$OFAN_PY" - "$TMP/colours.txt" >"$TMP/close.txt" <<'EOF'
import itertools, math, sys
named, reserve = {}, []
for line in open(sys.argv[1]):
    k, c = line.split()
    if k == "reserve":
        reserve.append(c)
    else:
        named[k] = c
def rgb(h):
    return [int(h[i:i + 2], 16) for i in (1, 3, 5)]
def dist(a, b):
    a, b = rgb(a), rgb(b)
    r = (a[0] + b[0]) / 2
    return math.sqrt((2 + r / 256) * (a[0] - b[0]) ** 2 +
                     4 * (a[1] - b[1]) ** 2 +
                     (2 + (255 - r) / 256) * (a[2] - b[2]) ** 2)
for x, y in itertools.combinations(sorted(named), 2):
    if dist(named[x], named[y]) < 100:
        print("%s (%s) and %s (%s): %.0f apart" % (x, named[x], y, named[y],
                                             dist(named[x], named[y])))
for c in reserve:
    if c in named.values() or reserve.count(c) > 1:
        print("reserve colour %s is taken" % c)
EOF
expect_eq "colours at least 100 apart, reserve free" "$(cat "$TMP/close.txt")" ""

echo "-- a run's plots"
rc=0
"$BUILD/fabric/ofan-fabric" --config "$SRC/configs/experiments/permutation-k8.ini" \
	fabric.k=4 traffic.size=64KiB fabric.schemes=ecmp,ofan,drb,rr,ecmp_ar,spray+ops \
	--no-plot --quiet --out "$TMP/run" >/dev/null 2>&1 || rc=$?
expect_eq "run: exit status" "$rc" 0
mkdir "$TMP/gp"
rc=0
OFAN_PLOT_GP=$TMP/gp "$PLOT" "$TMP/run" >/dev/null 2>"$TMP/plot.err" || rc=$?
expect_eq "plot.sh: exit status" "$rc" 0
reserve1=$(awk '$1 == "reserve" { print $2; exit }' "$TMP/colours.txt")
for gp in fct-cdf queue-layers queue-time; do
	for s in ecmp ofan drb rr ecmp_ar spray+ops; do
		want=$(awk -v n="$s" '$1 == n { print $2 }' "$TMP/colours.txt")
		[ -n "$want" ] || want=$reserve1
		expect_eq "$gp: $s's colour" \
			"$(grep -o "lc rgb '#[0-9a-f]*' title '${s}[ ']" "$TMP/gp/$gp.gp" | head -1 | sed "s/ \$/'/")" \
			"lc rgb '$want' title '$s'"
	done
done

echo "-- log tics on a CDF with a long tail"
mkdir "$TMP/tail"
{
	echo "run,combo,scheme,seed,flow,slowdown"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo "0,a,ecmp,1,$i,$((i * 4))"
	done
} >"$TMP/tail/flows.csv"
OFAN_PLOT_GP=$TMP/gp "$PLOT" "$TMP/tail" >/dev/null 2>&1 || true
expect_file_has "log CDF: named tics" "$TMP/gp/fct-cdf.gp" \
	'set xtics ("1" 1, "1.2" 1.2, "1.5" 1.5, "2" 2, "3" 3, "5" 5, "10" 10, "15" 15, "20" 20, "30" 30)'

echo "-- queues in one unit, failures marked"
expect_file_has "queue axis: the run's full frame" "$TMP/gp/queue-time.gp" \
	"set ylabel 'maximum queue (full $(sed -n 's/.*"full_frame_bytes": *\([0-9]*\).*/\1/p' "$TMP/run/summary.json" | head -1)-byte frames'' worth of bytes)'"
expect_file_has "no failure: said" "$TMP/gp/queue-time.gp" 'set key title "no failure"'

echo "-- error bars with seeds"
rc=0
"$BUILD/fabric/ofan-fabric" --config "$SRC/configs/experiments/failure-blackhole.ini" \
	fabric.k=4 traffic.size=64KiB fabric.schemes=ecmp,ofan failure.hole.link=agg0-core0 \
	--seeds 2 --no-plot --quiet --out "$TMP/seeds" >/dev/null 2>&1 || rc=$?
expect_eq "seeds run: exit status" "$rc" 0
rm -f "$TMP"/gp/*.gp
OFAN_PLOT_GP=$TMP/gp "$PLOT" "$TMP/seeds" >/dev/null 2>&1 || true
n=$(cat "$TMP"/gp/sweep-*.gp 2>/dev/null | grep -c "using 1:2:3:4 with yerrorlines" || true)
expect_file_has "a failure: a dashed line at 50 us" "$TMP/gp/queue-time-0.gp" \
	"set arrow 1 from 50, graph 0 to 50, graph 1 nohead dt 2"
expect_file_has "a failure: labelled" "$TMP/gp/queue-time-0.gp" \
	"set label 1 'blackhole agg0-core0' at 50, graph 0.97"
if [ "$n" -gt 0 ]; then
	pass "sweep plots: $n lines with error bars"
else
	fail "sweep plots: no error bars with two seeds"
fi
rm -f "$TMP"/gp/*.gp
OFAN_PLOT_GP=$TMP/gp "$PLOT" "$TMP/run" >/dev/null 2>&1 || true
expect_eq "one seed: no error bars" \
	"$(cat "$TMP"/gp/*.gp | grep -c yerrorlines || true)" 0

ofan_finish
