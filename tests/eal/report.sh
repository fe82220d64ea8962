#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The study's reproduction as a person reads it: testbed/study/reproduce.sh
# --smoke runs the whole paper set (configs/experiments/paper/) on a
# k = 4 fat tree with small flows, and headless Chromium renders
# report.html.  Checked:
#   - reproduce.sh exits 0 and report.html names four findings, each with
#     a verdict computed from the data ("holds", "does not hold",
#     "incomplete" or "not decisive"; none "not run": every experiment
#     ran) and a table, and states the rule they are decided by once;
#   - no finding is red in this smoke run: what its small runs cannot
#     decide says "not decisive" and why (the flow sizes of queue scaling
#     span 4x, not 8x); the failure meets traffic;
#   - queue sizes are labelled in full frames, never in bytes;
#   - every experiment's section says what was run (sizes, failures,
#     overrides) beside the file's own text;
#   - every experiment's section, table and plots are on the page;
#   - the loss-recovery section: a table of mean FCT per (load balancer,
#     stack) for each matrix and queue, and its verdict;
#   - the section under NSCC: its verdict on its three cases (never red
#     here), the failure case among them;
#   - the training section: finding 1 on the jobs' iteration time, a
#     table per training experiment, and what each job was;
#   - in Chromium every image loads (the page marks data-images="N/N"
#     once loaded; N is the number of PNGs written) and the page logs
#     nothing to the console (no error, no exception);
#   - at 1100 px no table and no verdict is wider than the page (a script
#     added to a copy of the page measures every table, its scrolling box
#     and every verdict box, and the page itself), for this report and for
#     one shaped as a full run (tests/report/test_verdicts.py
#     --write-full: ten schemes, six reconvergence delays, long labels);
#   - a screenshot at 1100 px renders.
# Chromium runs as the machine's probe runs it (--headless --no-sandbox
# --disable-gpu, no background networking), with a fresh profile in TMP,
# bounded by a timeout and stopped by PID on exit.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

OFAN_NEEDS=(fabric/ofan-fabric)
ofan_setup report "$@"
CHROMIUM=$(command -v chromium || true)
[ -n "$CHROMIUM" ] || skip "chromium not found (scripts/install-deps.sh installs it)"
command -v gnuplot >/dev/null || skip "gnuplot not found (scripts/install-deps.sh)"

OUT=$TMP/paper
echo "-- reproduce.sh --smoke"
rc=0
OFAN_FABRIC=$BUILD/fabric/ofan-fabric timeout -k 10 600 \
	"$SRC/testbed/study/reproduce.sh" --smoke --out "$OUT" >"$TMP/reproduce.out" \
	2>"$TMP/reproduce.err" || rc=$?
expect_eq "reproduce.sh --smoke exit status" "$rc" 0
if [ "$rc" != 0 ]; then
	sed 's/^/  /' "$TMP/reproduce.err" | tail -20
fi
REPORT=$OUT/report.html
if [ ! -s "$REPORT" ]; then
	fail "$REPORT was not written"
	ofan_finish
fi

# The verdicts, from the page itself (and as reproduce.sh printed them).
for n in 1 2 3 4; do
	v=$(grep -o "<h3>$n\. [^<]*<span class=\"badge\">[^<]*</span>" "$REPORT" |
		sed 's/.*badge">//; s/<.*//' || true)
	case $v in
	holds | incomplete | "not decisive")
		pass "finding $n: a verdict computed from the data ($v)" ;;
	"does not hold")
		fail "finding $n: red in a smoke run (its runs should decide it, or say they cannot)" ;;
	*) fail "finding $n: verdict '$v'" ;;
	esac
	expect_file_has "reproduce.sh printed finding $n" "$TMP/reproduce.out" \
		"finding $n. "
done
expect_eq "no finding is 'not run'" \
	"$(grep -c 'badge">not run<' "$REPORT" || true)" 0
expect_eq "the rule, stated once" \
	"$(grep -c 'How the verdicts are decided' "$REPORT" || true)" 1
expect_eq "no queue size in bytes" \
	"$(grep -c '417800\|33424' "$REPORT" || true)" 0
expect_file_has "queue sizes in full frames" "$REPORT" \
	"queue 102.0/51.0/51.0 frames"
expect_eq "finding 3 at smoke size: not decisive" \
	"$(grep -o '<h3>3\. [^<]*<span class="badge">[^<]*</span>' "$REPORT" |
		sed 's/.*badge">//; s/<.*//')" "not decisive"
expect_file_has "finding 3: why" "$REPORT" \
	"Not decisive at this size: the flows grow only 4x (256KiB to 1MiB)"
expect_eq "every experiment says what was run" \
	"$(grep -c '<p class="meta">As run: ' "$REPORT" || true)" 19
expect_file_has "the failure, as run" "$REPORT" \
	"failure: agg0-core0 blackhole at 50 µs"
for e in permutation structured alltoall failure failure-permutation \
	failure-persistent queue-scaling scaling degraded failure-types lossy \
	lossy-random dr-variants subflows reliability training-dense \
	training-moe training-mixed; do
	expect_eq "section $e on the page" \
		"$(grep -c "<h2 id=\"$e\">" "$REPORT" || true)" 1
done
# Under NSCC: the findings' verdict on its three cases, never red here.
v=$(grep -o '<h3>Under NSCC: spraying still beats flow load balancing, and ofan[^<]*<span class="badge">[^<]*</span>' "$REPORT" |
	sed 's/.*badge">//; s/<.*//' || true)
case $v in
holds | "not decisive") pass "under NSCC: a verdict computed from the data ($v)" ;;
*) fail "under NSCC: verdict '$v'" ;;
esac
expect_file_has "reproduce.sh printed the NSCC verdict" "$TMP/reproduce.out" \
	"nscc: Under NSCC: "
expect_file_has "under NSCC: the failure case" "$REPORT" \
	"case permutation/yes, max slowdown"
# Training jobs: finding 1 on iteration time, a table per experiment.
v=$(grep -o '<h3>Training jobs: spraying beats flow load balancing on iteration time<span class="badge">[^<]*</span>' "$REPORT" |
	sed 's/.*badge">//; s/<.*//' || true)
case $v in
holds | incomplete | "not decisive")
	pass "training: a verdict computed from the data ($v)" ;;
*) fail "training: verdict '$v'" ;;
esac
expect_eq "training: a table per experiment" \
	"$(grep -o '<h3>training-[a-z]*: iteration time / ideal</h3>' "$REPORT" | wc -l)" 3
expect_file_has "training: what each job was" "$REPORT" \
	"job llama: dense, 16 ranks, 1 iteration(s), packed"
# Loss recovery: the (load balancer, stack) tables, one per matrix and
# queue, and a verdict computed from them.
v=$(grep -o '<h3>The ranking of load balancers holds on every loss-recovery stack<span class="badge">[^<]*</span>' "$REPORT" |
	sed 's/.*badge">//; s/<.*//' || true)
case $v in
holds | "does not hold" | "not decisive")
	pass "loss recovery: a verdict computed from the data ($v)" ;;
*) fail "loss recovery: verdict '$v'" ;;
esac
expect_eq "loss recovery: a table per matrix and queue" \
	"$(grep -o '<h3>matrix [a-z]*, q q[0-9]*</h3>' "$REPORT" | wc -l)" 4
expect_file_has "loss recovery: the stacks as columns" "$REPORT" \
	"<th>tcp</th><th>trim</th><th>trim-rts</th><th>trimces</th><th>trimced</th><th>trimcomp</th><th>erasure</th><th>roce</th>"
# The scaling views (k = 4 and 6 at 1 MiB; 256 KiB and 1 MiB at k = 4;
# the all-to-all) and host DR next to switch DR (dr-variants' and
# failure-types' two cases each, scaling's four points).
expect_eq "scaling: the views" \
	"$(grep -o '<h3>Against k: 1MiB permutations</h3>\|<h3>Against the flow size: the k = 4 permutation</h3>\|<h3>All-to-all and the pod-ring overlap</h3>' "$REPORT" | wc -l)" 3
expect_file_has "scaling: k = 6 against k = 4" "$REPORT" "<td>k = 6</td>"
expect_eq "host DR next to switch DR: the rows" \
	"$(grep -o '<tr><td>\(dr-variants\|failure-types\|scaling\)</td>' "$REPORT" | wc -l)" 8
nb_png=$(find "$OUT" -name '*.png' | wc -l)
expect_cmp "plots written" "$nb_png" -ge 20
expect_eq "every plot is on the page" \
	"$(grep -c '<img src=' "$REPORT" || true)" "$nb_png"

# chromium_run TAG PAGE ARGS...: headless Chromium on PAGE, bounded.
chromium_run() {
	local tag=$1 page=$2 pid

	shift 2
	mkdir -p "$TMP/profile-$tag"
	timeout -k 5 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$TMP/profile-$tag" "$@" "file://$page" \
		>"$TMP/$tag.out" 2>"$TMP/$tag.err" &
	pid=$!
	PIDS+=("$pid")
	CH_RC=0
	wait "$pid" || CH_RC=$?
	ofan_forget "$pid"
}

# overflow_check WHAT DIR: DIR/report.html laid out at 1100 px; every
# table, its scrolling box, every verdict box and the page must fit.  A
# copy of the page gets a script that writes what overflows (and by how
# much) into <body data-overflow>, read back from --dump-dom.
overflow_check() {
	local what=$1 dir=$2 got

	cat >"$dir/overflow.js" <<'JS'
window.addEventListener('load', function () {
  var bad = [], doc = document.documentElement, vw = doc.clientWidth;
  function where(el) {
    for (var p = el; p; p = p.parentElement) {
      if (p.classList && p.classList.contains('verdict'))
        return p.querySelector('h3').firstChild.textContent;
      for (var q = p.previousElementSibling; q; q = q.previousElementSibling)
        if (/^H[23]$/.test(q.tagName)) return q.textContent;
    }
    return el.tagName;
  }
  function test(el, kind) {
    var r = el.getBoundingClientRect();
    var over = Math.max(el.scrollWidth - el.clientWidth, r.right - vw);
    if (over > 1)
      bad.push(kind + ' "' + where(el).slice(0, 60) + '" by ' +
               Math.ceil(over) + ' px');
  }
  var i, els = document.querySelectorAll('table');
  for (i = 0; i < els.length; i++) {
    test(els[i], 'table');
    var box = els[i].parentElement.getBoundingClientRect();
    var r = els[i].getBoundingClientRect();
    if (r.right > box.right + 1)
      bad.push('table "' + where(els[i]).slice(0, 60) + '" past its box by ' +
               Math.ceil(r.right - box.right) + ' px');
  }
  els = document.querySelectorAll('.scroll');
  for (i = 0; i < els.length; i++) test(els[i], 'scrolling box');
  els = document.querySelectorAll('.verdict');
  for (i = 0; i < els.length; i++) test(els[i], 'verdict');
  if (doc.scrollWidth > vw) bad.push('the page by ' + (doc.scrollWidth - vw) + ' px');
  document.body.setAttribute('data-overflow', vw + ' px: ' +
    (bad.length ? bad.join('; ') : 'none'));
});
JS
	sed 's#</body>#<script src="overflow.js"></script></body>#' \
		"$dir/report.html" >"$dir/report-1100.html"
	chromium_run "width-$what" "$dir/report-1100.html" \
		--virtual-time-budget=10000 --window-size=1100,2000 --dump-dom
	expect_eq "$what at 1100 px: chromium exit status" "$CH_RC" 0
	got=$(grep -o 'data-overflow="[^"]*"' "$TMP/width-$what.out" |
		head -n 1 | sed 's/^data-overflow="//; s/"$//')
	case $got in
	*" px: none") pass "$what at 1100 px: every table and verdict fits ($got)" ;;
	*) fail "$what at 1100 px: overflows: ${got:-no measurement}" ;;
	esac
}

echo "-- headless Chromium"
chromium_run dom "$REPORT" --virtual-time-budget=10000 \
	--enable-logging=stderr --v=0 --dump-dom
expect_eq "chromium --dump-dom exit status" "$CH_RC" 0
expect_eq "every image loaded (data-images)" \
	"$(grep -o 'data-images="[^"]*"' "$TMP/dom.out" | head -n 1)" \
	"data-images=\"$nb_png/$nb_png\""
console=$(grep ':CONSOLE' "$TMP/dom.err" || true)
expect_eq "no console message from the page" "$console" ""
overflow_check "the smoke report" "$OUT"
FULL=$TMP/full
if /usr/bin/python3 "$SRC/tests/report/test_verdicts.py" --write-full "$FULL" &&
	/usr/bin/python3 "$SRC/testbed/study/report.py" --mode full "$FULL" \
		>"$TMP/full.out" 2>&1; then
	overflow_check "a report shaped as a full run" "$FULL"
else
	fail "the full-shaped report was not written: $(tail -3 "$TMP/full.out")"
fi
chromium_run shot "$REPORT" --screenshot="$TMP/report.png" \
	--window-size=1100,2400
expect_eq "chromium --screenshot exit status" "$CH_RC" 0
if [ -s "$TMP/report.png" ] &&
	[ "$(head -c 8 "$TMP/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
	pass "the screenshot is a PNG"
else
	fail "no screenshot"
fi

ofan_finish
