#!/usr/bin/env bash
# The README's test command: install what is missing, build, run every test
# (unit, EAL integration on virtual ports, fuzzers), print a summary and the
# line "N passed, N failed".  Exit status is non-zero if any test failed.
set -euo pipefail
cd "$(dirname "$0")/.."
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
