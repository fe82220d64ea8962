#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# docs/config-reference.md is what the programs say: the output of
# scripts/config-reference.sh (ofan-fabric, ofan-switch and ofan-host
# --config-reference, read from their loaders) is byte for byte the
# committed file, so a new key, range or default that is not in the docs
# fails here.  Also: every section of the shipped configs is in the
# reference, and each program's --config-reference exits 0 on its own.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(fabric/ofan-fabric switch/ofan-switch host/ofan-host)
ofan_setup config_reference "$@"

rc=0
"$SRC/scripts/config-reference.sh" "$BUILD" >"$TMP/ref.md" 2>"$TMP/ref.err" || rc=$?
expect_eq "config-reference.sh: exit status" "$rc" 0
if cmp -s "$TMP/ref.md" "$SRC/docs/config-reference.md"; then
	pass "docs/config-reference.md is the programs' output"
else
	fail "docs/config-reference.md differs from the programs' output; regenerate it: scripts/config-reference.sh >docs/config-reference.md"
	diff -u "$SRC/docs/config-reference.md" "$TMP/ref.md" | head -40 || true
fi
for p in fabric/ofan-fabric switch/ofan-switch host/ofan-host; do
	n=$("$BUILD/$p" --config-reference | grep -c '^| `' || true)
	if [ "$n" -ge 20 ]; then
		pass "$p --config-reference: $n keys"
	else
		fail "$p --config-reference: $n keys"
	fi
done

echo "-- every section of the shipped configs is in the reference"
# [port.3] is [port.N], [failure.hole] is [failure.NAME]; [variant.*]
# holds section.key lines of other sections.
# shellcheck disable=SC2016  # awk code, not shell
find "$SRC/configs" -name '*.ini' -print0 | xargs -0 awk '
	/^[ \t]*\[/ {
		s = $0; sub(/;.*/, "", s); gsub(/[][ \t\r]/, "", s)
		if (s ~ /^variant\./) next
		if (s ~ /\.[0-9]+$/) sub(/\.[0-9]+$/, ".N", s)
		else if (s ~ /^(failure|drop|route|group|reroute|sweep|job)\./) sub(/\..*$/, ".NAME", s)
		print s
	}' | sort -u >"$TMP/sections.txt"
while read -r s; do
	if grep -qF "### [$s]" "$TMP/ref.md"; then
		pass "[$s]"
	else
		fail "[$s] of configs/ is not in the reference"
	fi
done <"$TMP/sections.txt"

ofan_finish
