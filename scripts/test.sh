#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's test command: install what is missing, build, run every test
# (unit, EAL integration on virtual ports, fuzzers), print a summary and the
# line "N passed, N failed, N skipped".
#
#   scripts/test.sh [TEST ...]   every test, or those named (meson test
#                                names: scripts/test.sh fabric engine)
#   scripts/test.sh --help
#
# Exit status: 0 when every test passed, non-zero when any failed (or
# install-deps.sh or build.sh failed).
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1-} in
--version) exec scripts/version.sh "$0" ;;
-h | --help)
	sed -n '3,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
	exit 0
	;;
esac
./scripts/install-deps.sh
./scripts/build.sh
rc=0
meson test -C build --print-errorlogs --num-processes 1 "$@" || rc=$?
# Meson's own summary is above; the plain line counts every test case run.
/usr/bin/python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r == "SKIP":
        skipped += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
