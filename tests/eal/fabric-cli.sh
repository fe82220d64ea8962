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
#     not on the file;
#   - a run shorter than one queue window still plots its queue over time,
#     and no plot warns of an empty axis range.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(testbed/ofan-fabric)
ofan_setup fabric_cli "$@"

FAB=$BUILD/testbed/ofan-fabric
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

echo "-- plots of a run shorter than one queue window"
rc=0
"$FAB" --config "$SRC/configs/experiments/permutation-k8.ini" fabric.k=4 \
	traffic.size=16KiB fabric.queue_window=1ms fabric.schemes=spray,ofan \
	--quiet --out "$TMP/short" >/dev/null 2>"$TMP/short.err" || rc=$?
expect_eq "short run: exit status" "$rc" 0
for f in fct-cdf.png queue-layers.png queue-time.png; do
	if [ -s "$TMP/short/$f" ]; then pass "short run: $f"; else fail "short run: no $f"; fi
done
expect_eq "short run: no gnuplot range warning" \
	"$(grep -c 'empty . range' "$TMP/short.err" || true)" 0

ofan_finish
