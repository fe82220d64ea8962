#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# docs/testing.md's table of the modes the fuzzers and the soak cover is
# what the programs say: scripts/testing-modes.sh's output is, byte for
# byte, the table between the "testing-modes" markers.  And every
# recovery model and congestion controller `ofan-host --list` prints is
# drawn by fuzz_host and run by a soak part (a row with "–" there fails).
# No DPDK.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(host/ofan-host tests/fuzz/fuzz-host-modes tests/fuzz/fuzz-switch-modes)
ofan_setup testing_modes "$@"

rc=0
"$SRC/scripts/testing-modes.sh" "$BUILD" >"$TMP/modes.md" 2>"$TMP/modes.err" || rc=$?
expect_eq "testing-modes.sh: exit status" "$rc" 0
sed -n '/^<!-- testing-modes: begin -->$/,/^<!-- testing-modes: end -->$/{/^<!--/d;p}' \
	"$SRC/docs/testing.md" >"$TMP/docs.md"
if [ -s "$TMP/modes.md" ] && cmp -s "$TMP/modes.md" "$TMP/docs.md"; then
	pass "docs/testing.md's modes table is the programs' list"
else
	fail "docs/testing.md's modes table differs from scripts/testing-modes.sh; paste its output between the testing-modes markers"
	diff -u "$TMP/docs.md" "$TMP/modes.md" | head -40 || true
fi

"$HOST" --list >"$TMP/list.txt"
n=0
while read -r kind name; do
	case $kind in
	recovery) label="recovery model" ;;
	cc) label="congestion controller" ;;
	*) continue ;;
	esac
	n=$((n + 1))
	row=$(grep -F "| $label | \`$name\` |" "$TMP/modes.md" || true)
	IFS='|' read -r _ _ _ fh _ soak _ <<<"$row"
	if [ "${fh// /}" = drawn ] && [ -n "${soak// /}" ] && [ "${soak// /}" != – ]; then
		pass "$kind $name: fuzz_host draws it, soak parts${soak%% }"
	else
		fail "$kind $name: not drawn by fuzz_host or run by no soak part (row: '$row')"
	fi
done <"$TMP/list.txt"
expect_cmp "recovery models and controllers listed" "$n" -ge 2

ofan_finish
