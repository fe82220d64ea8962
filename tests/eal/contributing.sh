#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The rules of CONTRIBUTING.md a machine can check, on the tracked files:
#   - every C, header, shell, Python, Lua and meson file carries an SPDX
#     line in its first three lines;
#   - every shell script passes shellcheck -x (run from the top of the
#     tree, where the scripts' "source=" directives point);
#   - every Python file compiles;
#   - every commit from the one that added CONTRIBUTING.md on has a
#     subject of at most 72 characters, a blank line and a body (checked
#     when the tree is a git clone; a tarball has no history to check).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=()
ofan_setup contributing "$@"

cd "$SRC"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files >"$TMP/files.txt"
else
	find . -path ./build -prune -o -type f -print | sed 's|^\./||' >"$TMP/files.txt"
fi

echo "-- SPDX"
n=0
while read -r f; do
	case $f in
	*.c | *.h | *.sh | *.py | *.lua | meson.build | */meson.build | .ci/run) ;;
	*) continue ;;
	esac
	[ -f "$f" ] || continue
	n=$((n + 1))
	head -3 "$f" | grep -q 'SPDX-License-Identifier: BSD-3-Clause' ||
		fail "$f: no SPDX-License-Identifier in its first three lines"
done <"$TMP/files.txt"
if [ "$n" -gt 100 ]; then
	pass "SPDX: $n files"
else
	fail "SPDX: only $n files found"
fi

echo "-- shellcheck"
command -v shellcheck >/dev/null ||
	{ fail "shellcheck not found (scripts/install-deps.sh installs it)"; ofan_finish; }
n=0
while read -r f; do
	case $f in
	*.sh | .ci/run) ;;
	*) continue ;;
	esac
	[ -f "$f" ] || continue
	n=$((n + 1))
	if ! out=$(shellcheck -x "$f" 2>&1); then
		fail "shellcheck $f"
		echo "$out" | head -20
	fi
done <"$TMP/files.txt"
pass "shellcheck: $n scripts"

echo "-- Python"
while read -r f; do
	case $f in *.py) ;; *) continue ;; esac
	"$OFAN_PY" -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' "$f" 2>"$TMP/py.err" ||
		fail "$f does not compile: $(head -3 "$TMP/py.err")"
done <"$TMP/files.txt"
pass "Python files compile"

echo "-- commit messages"
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "no git history here (a tarball): commit messages not checked"
else
	first=$(git log --diff-filter=A --format=%H -- CONTRIBUTING.md | tail -1)
	if [ -z "$first" ]; then
		# CONTRIBUTING.md not committed yet: the commits to come.
		range=()
	else
		range=("$first^..HEAD")
	fi
	n=0
	for c in $(git rev-list "${range[@]}" 2>/dev/null || true); do
		n=$((n + 1))
		subject=$(git log -1 --format=%s "$c")
		second=$(git log -1 --format=%B "$c" | sed -n 2p)
		body=$(git log -1 --format=%b "$c" | tr -d '[:space:]')
		[ "${#subject}" -le 72 ] ||
			fail "commit ${c:0:10}: subject of ${#subject} characters (at most 72): $subject"
		[ -z "$second" ] ||
			fail "commit ${c:0:10}: no blank line after the subject"
		[ -n "$body" ] ||
			fail "commit ${c:0:10}: no body: $subject"
	done
	pass "commit messages: $n checked"
fi

ofan_finish
