#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Print docs/config-reference.md: every key of ofan-fabric's experiment
# files, ofan-switch's and ofan-host's configs, what each accepts and its
# default, from the programs' --config-reference (which read the loaders
# themselves).  tests/eal/config-reference.sh fails when the committed
# file differs from this output.
#
#   scripts/config-reference.sh [BUILD_DIR] >docs/config-reference.md
#                             BUILD_DIR is build/ by default
set -euo pipefail
case ${1-} in
--version) exec "$(dirname "$0")/version.sh" "$0" ;;
-h | --help)
	sed -n '3,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
	exit 0
	;;
esac
build=${1:-$(dirname "$0")/../build}
for p in fabric/ofan-fabric switch/ofan-switch host/ofan-host; do
	if [ ! -x "$build/$p" ]; then
		echo "config-reference.sh: $build/$p not found; build first: scripts/build.sh" >&2
		exit 2
	fi
done
cat <<'HEAD'
# Configuration reference

Every key the three programs read, what it accepts and the value the
program uses when the key is absent, generated from the loaders by
`scripts/config-reference.sh` (do not edit: the `config-reference` test
fails when this file and the programs differ). What each key means is in
the guides ([fabric](fabric.md), [switch](switch.md), [host](host.md))
and in the commented configs under `configs/`.

How to read it:

- Ranges are the loaders' own words, the ones their error messages use.
  Sizes take B, KiB, MiB, GiB, TiB (powers of 1024) or K, M, G, T
  (powers of 1000); rates bits/s with K, M, G, T, and any of b, bit,
  bps, b/s, bit/s after them (`100G`, `100Gb`, `100Gbps`; a capital B is
  bytes and is refused); durations a unit (ns, us, ms, s).
- "required" keys have no default; "required by some settings" are
  required by some policies, modes or patterns only.
- `[NAME.N]` is any number (`[port.3]`), `NAME` any name
  (`[failure.hole]`).
- Limits of an emulated fabric are its ranges: `k` of a fat tree, a
  leaf-spine's `leaves`, `spines` and `hosts_per_leaf`, `threads`,
  `seeds`, a flow's `size` (also at most 16,777,215 packets a flow:
  ofan-fabric says what fits).

HEAD
"$build/fabric/ofan-fabric" --config-reference
echo
"$build/switch/ofan-switch" --config-reference
echo
"$build/host/ofan-host" --config-reference
