#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The benchmarks' generated configs load: testbed/bench/bench-host.sh
# --dry-run prints every ofan-host config its rows run (tx-only and
# +ACKs, small and large frames), and each passes ofan-host
# --check-config (no EAL).  Its tx-only flows once asked for more packets
# than a flow may have (16,777,216 against 16,777,212) and the row no
# longer ran; and the dry run into a file kept only its last config.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(host/ofan-host)
ofan_setup bench-configs "$@"

rc=0
"$SRC/testbed/bench/bench-host.sh" --dry-run --build-dir "$BUILD" \
	>"$TMP/dry.txt" 2>"$TMP/dry.err" || rc=$?
expect_eq "bench-host.sh --dry-run: exit status" "$rc" 0
# Split the configs out: each follows a "# ofan-host ... config" line.
/usr/bin/python3 - "$TMP/dry.txt" "$TMP" <<'PY'
import re, sys
name = None
out = {}
for line in open(sys.argv[1]):
    m = re.match(r"# ofan-host (tx-only|\+ACKs) config \((small|large) frames", line)
    if m:
        name = f"{'tx' if m.group(1) == 'tx-only' else 'acks'}-{m.group(2)}"
        out[name] = []
    elif line.startswith("# "):
        name = None
    elif name:
        out[name].append(line)
for n, lines in out.items():
    open(f"{sys.argv[2]}/{n}.ini", "w").writelines(lines)
PY
for n in tx-small tx-large acks-small acks-large; do
	if [ ! -s "$TMP/$n.ini" ]; then
		fail "$n: the dry run printed no such config"
		continue
	fi
	rc=0
	"$BUILD/host/ofan-host" -- --config "$TMP/$n.ini" --check-config \
		>"$TMP/$n.out" 2>&1 || rc=$?
	expect_eq "$n: ofan-host --check-config: exit status ($(head -c 200 "$TMP/$n.out"))" "$rc" 0
done

ofan_finish
