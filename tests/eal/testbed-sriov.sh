#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The bare-metal / SR-IOV path (testbed/sriov.sh, ofan-testbed-gen --mode
# sriov) without the machines: for the sample inventory
# (tests/data/testbed/inventory.ini) and configs/experiments/testbed-small.ini,
#   - the dry run prints exactly the commands of the golden file
#     tests/data/testbed/sriov-dryrun.golden (copy, start, run, stop,
#     gather; @OUT@ is the output folder);
#   - every generated config passes ofan-switch / ofan-host --check-config,
#     and holds the inventory's PCI addresses in port order;
#   - inventory mistakes are refused with file:section:key: a missing
#     node, a wrong number of ports, an unknown machine, an unknown key.
set -euo pipefail
OFAN_NEEDS=(switch/ofan-switch host/ofan-host testbed/ofan-testbed-gen)
# shellcheck source=tests/eal/lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup testbed-sriov "$@"

SRIOV=$SRC/testbed/sriov.sh
EXP=$SRC/configs/experiments/testbed-small.ini
INV=$SRC/tests/data/testbed/inventory.ini
GOLDEN=$SRC/tests/data/testbed/sriov-dryrun.golden

"$SRIOV" --inventory "$INV" --dry-run --out "$TMP/out" "$EXP" \
	>"$TMP/dry.txt" 2>"$TMP/dry.err" || fail "dry run exit status $?"
if diff <(sed "s|$TMP/out|@OUT@|g" "$TMP/dry.txt") "$GOLDEN" >"$TMP/diff"; then
	pass "dry run = golden ($(wc -l <"$GOLDEN") lines)"
else
	fail "dry run differs from the golden file:"
	sed 's/^/    /' "$TMP/diff" | head -n 20
fi
expect_eq "nothing ran (no ssh in the process list)" \
	"$(pgrep -fc 'ssh root@192.0.2' || true)" 0

for f in "$TMP"/out/switch-*.ini; do
	if "$SWITCH" "${EAL[@]}" -- --config "$f" --check-config \
		>"$TMP/check.out" 2>&1; then
		pass "$(basename "$f") passes ofan-switch --check-config"
	else
		fail "$(basename "$f"): $(tail -n 1 "$TMP/check.out")"
	fi
done
if "$HOST" "${EAL[@]}" -- --config "$TMP/out/hosts-hosts1.ini" \
	--check-config >"$TMP/check.out" 2>&1; then
	pass "hosts-hosts1.ini passes ofan-host --check-config"
else
	fail "hosts-hosts1.ini: $(tail -n 1 "$TMP/check.out")"
fi
expect_eq "leaf1's ports, in order" \
	"$(grep '^dev = ' "$TMP/out/switch-leaf1.ini" | cut -d' ' -f3 | tr '\n' ' ')" \
	"0000:03:02.4 0000:03:02.5 0000:03:02.6 0000:03:02.7 "
expect_eq "host ranks and their VFs" \
	"$(grep -E '^(dev|rank) = ' "$TMP/out/hosts-hosts1.ini" | cut -d' ' -f3 | tr '\n' ' ')" \
	"0000:04:02.0 0 0000:04:02.1 1 0000:04:02.2 2 0000:04:02.3 3 "

# An inventory with one mistake: the error names file:section:key.
bad_inventory() { # WHAT SED-EXPRESSION EXPECTED-MESSAGE-PART
	sed "$2" "$INV" >"$TMP/bad.ini"
	if "$SRIOV" --inventory "$TMP/bad.ini" --dry-run --out "$TMP/bad" \
		"$EXP" >"$TMP/bad.out" 2>&1; then
		fail "$1: accepted"
	elif grep -qF -- "$3" "$TMP/bad.out"; then
		pass "$1: refused with '$3'"
	else
		fail "$1: message does not say '$3': $(head -n 1 "$TMP/bad.out")"
	fi
}
# shellcheck disable=SC2016  # a sed address, not a variable
bad_inventory "missing node" '/^\[node.h3\]/,$d' \
	"$TMP/bad.ini:node.h3:machine: missing"
bad_inventory "too few ports" 's/^ports = 0000:03:03.0, 0000:03:03.1/ports = 0000:03:03.0/' \
	"$TMP/bad.ini:node.spine0:ports: '0000:03:03.0' lists 1 port(s); expected 2"
bad_inventory "unknown machine" 's/^machine = hosts1$/machine = nowhere/' \
	"$TMP/bad.ini:node.h0:machine: 'nowhere' has no [machine.nowhere] section"
bad_inventory "unknown key" 's/^lcore = 4/lcores = 4/' \
	"$TMP/bad.ini:node.spine0:lcores: unknown key"

ofan_finish
