#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The bare-metal / SR-IOV path (testbed/sriov.sh, ofan-testbed-gen --mode
# sriov) without the machines: for the sample inventory
# (tests/data/testbed/inventory.ini) and configs/experiments/testbed-small.ini,
#   - the dry run prints exactly the commands of the golden file
#     tests/data/testbed/sriov-dryrun.golden (copy, start, wait ready, run, stop,
#     gather; @OUT@ is the output folder);
#   - every generated config passes ofan-switch / ofan-host --check-config,
#     and holds the inventory's PCI addresses in port order;
#   - the dry run's "wait ready" line, run here with ssh replaced by a local
#     shell, succeeds once the switch's log says it started and fails,
#     naming the switch, when the switch died before;
#   - inventory mistakes are refused with file:section:key: a missing
#     node, a wrong number of ports, an unknown machine, an unknown key,
#     a space in one of ssh, dir and bin (named, not always ssh).
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

# The ready step of leaf0 as the real run executes it, on this machine: a
# fake ssh runs the quoted command in a local folder standing for the
# machine's.
mkdir -p "$TMP/bin" "$TMP/remote"
printf '#!/bin/sh\nshift\nexec sh -c "$*"\n' >"$TMP/bin/ssh"
chmod +x "$TMP/bin/ssh"
ready=$(sed -n '/^# 3\. wait until/{n;p}' "$TMP/dry.txt" |
	sed "s|/var/tmp/ofan|$TMP/remote|")
case $ready in
*leaf0.log*) pass "the dry run shows the ready wait of leaf0" ;;
*) fail "no ready line for leaf0 after '# 3. wait until': '$ready'" ;;
esac
sleep 30 &
PIDS+=($!)
echo $! >"$TMP/remote/leaf0.pid"
echo "leaf0: policy ecmp, 4 ports, 1 forwarding lcore(s)" >"$TMP/remote/leaf0.log"
if PATH=$TMP/bin:$PATH eval "$ready" 2>"$TMP/ready.err"; then
	pass "ready: a started switch passes"
else
	fail "ready: a started switch fails: $(cat "$TMP/ready.err")"
fi
kill "${PIDS[-1]}" 2>/dev/null || true
wait "${PIDS[-1]}" 2>/dev/null || true
ofan_forget "${PIDS[-1]}"
echo "EAL: cannot open the device" >"$TMP/remote/leaf0.log"
if PATH=$TMP/bin:$PATH eval "$ready" 2>"$TMP/ready.err"; then
	fail "ready: a switch that died passes"
elif grep -q "^leaf0 did not start:" "$TMP/ready.err" &&
	grep -q "cannot open the device" "$TMP/ready.err"; then
	pass "ready: a switch that died fails with its name and log"
else
	fail "ready: unexpected message: $(cat "$TMP/ready.err")"
fi

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
# A space in one of ssh, dir and bin: that key, not ssh.
bad_inventory "a space in dir" '0,/^dir = /s|^dir = /var/tmp/ofan|dir = /var/tmp/my ofan|' \
	"$TMP/bad.ini:machine.sw1:dir: '/var/tmp/my ofan' contains a space; expected a single word"

ofan_finish
