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
#     interval as error bars (and without seeds, none);
#   - a training job's timeline draws compute and communication in
#     colours no scheme or reserve colour is near.
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
	"$(wc -l <"$TMP/names.txt")" 19

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

echo "-- a training job's timeline: colours no scheme has"
# Two ranks, two iterations of compute then an all-reduce.  Distances in
# CIEDE2000, as the eye compares colours: the palette's closest two
# (fib_llss and drb) are 13.5 apart, so a timeline colour keeps at least
# 15 from every scheme and reserve colour.
mkdir "$TMP/job"
{
	echo "run,combo,scheme,seed,job,iteration,ranks,iter_us,ideal_us,slowdown,compute_us,wait_max_us,wait_mean_us,end_us"
	echo "0,0,ofan,1,dp,0,2,10.000,9.000,1.1111,6.000,4.000,4.000,10.000"
	echo "0,0,ofan,1,dp,1,2,10.000,9.000,1.1111,6.000,4.000,4.000,20.000"
} >"$TMP/job/jobs.csv"
{
	echo "run,combo,scheme,seed,job,rank,host,iteration,node,kind,start_us,end_us"
	for r in 0 1; do
		for i in 0 1; do
			echo "0,0,ofan,1,dp,$r,$r,$i,step,compute,$((i * 10)).000,$((i * 10 + 6)).000"
			echo "0,0,ofan,1,dp,$r,$r,$i,grad,all_reduce,$((i * 10 + 6)).000,$((i * 10 + 10)).000"
		done
	done
} >"$TMP/job/job-nodes.csv"
mkdir "$TMP/gp-job"
OFAN_PLOT_GP=$TMP/gp-job "$PLOT" "$TMP/job" >/dev/null 2>&1 || true
cat "$TMP"/gp-job/timeline-*.gp 2>/dev/null | grep -o 'lc rgb "#[0-9a-f]*"' |
	sed 's/.*"\(#[0-9a-f]*\)"/\1/' | sort -u >"$TMP/timeline.txt"
expect_cmp "timeline: colours drawn" "$(wc -l <"$TMP/timeline.txt")" -ge 2
"$OFAN_PY" - "$TMP/colours.txt" "$TMP/timeline.txt" >"$TMP/near.txt" <<'EOF'
import math, sys
palette = {}
for line in open(sys.argv[1]):
    k, c = line.split()
    palette[c] = k


def lab(h):
    c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    c = [((v + 0.055) / 1.055) ** 2.4 if v > 0.04045 else v / 12.92
         for v in c]
    x = (0.4124 * c[0] + 0.3576 * c[1] + 0.1805 * c[2]) / 0.95047
    y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    z = (0.0193 * c[0] + 0.1192 * c[1] + 0.9505 * c[2]) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def de2000(h1, h2):
    # CIEDE2000 (Sharma, Wu and Dalal, 2005), kL = kC = kH = 1.
    (l1, a1, b1), (l2, a2, b2) = lab(h1), lab(h2)
    cb = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cb ** 7 / (cb ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360
    h2 = math.degrees(math.atan2(b2, a2)) % 360
    dh = 0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    dl, dc = l2 - l1, c2 - c1
    dhh = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    lb, cbp = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        hb = h1 + h2
    elif abs(h1 - h2) <= 180:
        hb = (h1 + h2) / 2
    elif h1 + h2 < 360:
        hb = (h1 + h2 + 360) / 2
    else:
        hb = (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hb - 30))
         + 0.24 * math.cos(math.radians(2 * hb))
         + 0.32 * math.cos(math.radians(3 * hb + 6))
         - 0.20 * math.cos(math.radians(4 * hb - 63)))
    dth = 30 * math.exp(-((hb - 275) / 25) ** 2)
    rc = 2 * math.sqrt(cbp ** 7 / (cbp ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (lb - 50) ** 2 / math.sqrt(20 + (lb - 50) ** 2)
    sc, sh = 1 + 0.045 * cbp, 1 + 0.015 * cbp * t
    rt = -math.sin(math.radians(2 * dth)) * rc
    return math.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dhh / sh) ** 2
                     + rt * (dc / sc) * (dhh / sh))


for c in open(sys.argv[2]).read().split():
    for p, k in sorted(palette.items()):
        if de2000(c, p) < 15:
            print("%s is %.1f from %s (%s)" % (c, de2000(c, p), k, p))
EOF
expect_eq "timeline colours at least 15 from every scheme and reserve colour" \
	"$(tr '\n' ';' <"$TMP/near.txt")" ""

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
