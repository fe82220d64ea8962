#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Golden replay: a fixed pcap through ofan-switch, once per policy.
#
# Input: 4000 RoCEv2 frames (every 8th an ACK, ECT(0)) of 64 flows towards
# three remote /24s, replayed by net_pcap on port 0.  Ports 1-4 are an
# uplink group writing one pcap each.  The egress queues hold everything,
# so nothing may be lost.  For each policy the checks are:
#   - JSON: sum of tx = input frames, every drop counter 0, no mbuf leak;
#   - each uplink's pcap holds exactly its JSON tx count;
#   - every output frame is an input frame with dst MAC = the uplink's
#     peer_mac, src MAC = its mac, TTL - 1, a valid IPv4 checksum and
#     nothing else changed; no input frame is missing or duplicated;
#   - ecmp keeps each flow on one port; ofan spreads each destination's
#     data (and ACKs) over the uplinks with counts differing by <= 1;
#     spray, rr and ofan use every uplink;
#   - the per-port counts equal tests/data/eal/golden-POLICY.txt (the
#     seed is fixed; regenerate with OFAN_REGOLD=1 after a deliberate
#     change, and review the diff);
#   - tshark decodes the output as RoCE (BTH opcodes); without tshark
#     the test fails.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup golden "$@"

GOLD_DIR=$SRC/tests/data/eal
POLICIES=(ecmp spray rr adaptive flowlet ofan)
UPLINKS=(1 2 3 4)

# Three destination /24s, 22 + 21 + 21 = 64 flows with distinct UDP source
# ports (EVs), interleaved frame by frame.
gen() {
	"$PCAPGEN" flows --out "$TMP/in-$1.pcap" --count "$2" --flows "$3" \
		--size 512 --dst-net "10.0.$1.0" --dst-count "$3" \
		--ev-base "$4" --acks-every 8 --ecn ect0 --seed 5 >/dev/null
}
gen 1 1334 22 49152
gen 2 1333 21 49174
gen 3 1333 21 49195
NB_IN=$("${CHECK[@]}" merge "$TMP/in.pcap" "$TMP/in-1.pcap" \
	"$TMP/in-2.pcap" "$TMP/in-3.pcap")
expect_eq "input frames" "$NB_IN" 4000

write_config() {
	local pol=$1 p

	cat <<EOF
[switch]
name = golden
policy = $pol
seed = 42
stats_interval = 0

[queue]
; Room for everything: a replay must lose nothing.
queue_packets = 8192
queue_bytes = 64MiB
ecn = no

[port.0]
dev = net_pcap0,rx_pcap=$TMP/in.pcap
EOF
	for p in "${UPLINKS[@]}"; do
		cat <<EOF
[port.$p]
dev = net_pcap$p,tx_pcap=$TMP/out-$pol-$p.pcap
mac = 02:00:00:00:0a:0$p
peer_mac = 02:00:00:00:10:0$p
EOF
	done
	cat <<EOF

[group.up]
members = 1, 2, 3, 4

[route.leaf1]
prefix = 10.0.1.0/24
group = up
dst_key = 1
[route.leaf2]
prefix = 10.0.2.0/24
group = up
dst_key = 2
[route.leaf3]
prefix = 10.0.3.0/24
group = up
dst_key = 3

; A flowlet never ends within a replay, so the result does not depend on
; how fast this machine runs.
[flowlet]
gap = 1s
EOF
}

for pol in "${POLICIES[@]}"; do
	echo "-- policy $pol"
	cfg=$TMP/$pol.ini
	write_config "$pol" >"$cfg"
	sw_run "$pol" --config "$cfg" --stats-json "$TMP/$pol.json" \
		--stop-when-idle 0.5
	expect_rc "$pol run" "$pol" 0
	if [ "$SW_RC" -ne 0 ]; then
		continue
	fi
	args=(forward --in "$TMP/in.pcap" --json "$TMP/$pol.json"
	      --policy "$pol" --golden "$GOLD_DIR/golden-$pol.txt")
	for p in "${UPLINKS[@]}"; do
		args+=(--uplink "$p=$TMP/out-$pol-$p.pcap,02:00:00:00:10:0$p,02:00:00:00:0a:0$p")
	done
	if [ "${OFAN_REGOLD:-0}" = 1 ]; then
		args+=(--regold)
	elif [ ! -f "$GOLD_DIR/golden-$pol.txt" ]; then
		fail "$GOLD_DIR/golden-$pol.txt is missing; create it with OFAN_REGOLD=1 $0 $*"
	fi
	check_py "${args[@]}"
done

# Wireshark's RoCE dissector sees BTHs: SEND ONLY (4) data and ACKs (17).
# tshark is installed by scripts/install-deps.sh: without it this fails.
if command -v tshark >/dev/null 2>&1; then
	out=$TMP/out-ofan-1.pcap
	n=$("${CHECK[@]}" count "$out")
	tshark -r "$out" -Y infiniband -T fields -e infiniband.bth.opcode \
		2>/dev/null >"$TMP/tshark.txt" || true
	expect_eq "tshark: frames of $(basename "$out") decoded as InfiniBand" \
		"$(wc -l <"$TMP/tshark.txt")" "$n"
	expect_eq "tshark: BTH opcodes seen" \
		"$(sort -un "$TMP/tshark.txt" | tr '\n' ' ')" "4 17 "
else
	fail "tshark not found: RoCE decoding not checked (scripts/install-deps.sh installs it)"
fi

ofan_finish
