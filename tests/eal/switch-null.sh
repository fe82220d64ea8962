#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ofan-switch on endless virtual ports, bounded by --duration 1 (wall
# clock only ends the runs; no rate is asserted).
#
# 1. net_null0 as input (its RX makes 64-byte frames that are not IPv4)
#    and net_null1,no-rx=1: exit 0, status lines on stderr, JSON rx > 0
#    and every received frame counted under a drop reason (sum of drops =
#    rx, nothing sent), no mbuf leak; a scheduled failure of port 1 is
#    logged when it starts and ends.
# 2. For each policy, net_pcap replaying a small pcap forever (infinite_rx)
#    into two net_null uplinks: exit 0, tx > 0 on both uplinks together,
#    rx = tx + sum of drops, no mbuf leak.
# 3. A net_memif server port with no peer, socket file in $TMP, and
#    --hold-exit: after --duration the switch says it holds its ports and
#    keeps them (the socket is still there) until a SIGINT; then it exits
#    0 without closing the memif port (DPDK 22.11, port/ofan_port.h) but
#    removes the socket's file, so that a second run listens there again.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup null "$@"

echo "-- net_null0 -> net_null1"
cat >"$TMP/null.ini" <<EOF
[switch]
name = nulltest
policy = ecmp
stats_interval = 200ms

[port.0]
dev = net_null0
[port.1]
dev = net_null1,no-rx=1
peer_mac = 02:00:00:00:10:01

; The default route: every frame that parsed would go to port 1.
[route.all]
prefix = 0.0.0.0/0
port = 1

; A scheduled failure, logged when it happens and when it ends.
[failure.cut]
port = 1
mode = down
at = 100ms
duration = 200ms
EOF
sw_run null --config "$TMP/null.ini" --stats-json "$TMP/null.json" \
	--duration 1
expect_rc "net_null run" null 0
# ofan-switch removes EAL's runtime directory at exit.
expect_eq "EAL runtime directory after a clean run" \
	"$(ls -d "/var/run/dpdk/$PREFIX" 2>/dev/null)" ""
expect_file_has "start-up line on stderr" "$TMP/null.err" \
	"nulltest: policy ecmp, 2 ports, 1 forwarding lcore(s)"
# At exit, where the packets went: a line per port and the drop reasons.
expect_file_has "exit summary: port 1" "$TMP/null.err" \
	"  port 1 (net_null1,no-rx=1): rx 0 tx 0 drop 0"
expect_cmp "exit summary: not_ipv4 drops counted" \
	"$(sed -n 's/^  dropped, not_ipv4: //p' "$TMP/null.err")" -gt 0
expect_eq "scheduled failure logged: down, then up, with the switch's time" \
	"$(grep -cE '^ofan-switch: t=[0-9.]+s port 1 \(net_null1,no-rx=1\): (down|up) \(scheduled, \[failure\.cut\]\)$' "$TMP/null.err" || true)" 2
status_re='^nulltest t=[0-9.]+s rx [0-9.]+ Mpps tx [0-9.]+ Mpps \| rx [0-9]+ tx [0-9]+ drop [0-9]+ ecn [0-9]+ qmax [0-9]+$'
expect_cmp "status lines on stderr" \
	"$(grep -cE "$status_re" "$TMP/null.err" || true)" -ge 1
grep -E "$status_re" "$TMP/null.err" | tail -1 | sed 's/^/    /' || true
if [ -s "$TMP/null.json" ]; then
	rx=$(jget "$TMP/null.json" 'j["ports"][0]["rx"]')
	expect_cmp "port 0 rx" "$rx" -gt 0
	expect_eq "sum of drops (= rx)" \
		"$(jget "$TMP/null.json" 'sum(j["drops"].values())')" "$rx"
	expect_eq "port 0 rx_drops (= rx)" \
		"$(jget "$TMP/null.json" 'j["ports"][0]["rx_drops"]')" "$rx"
	expect_eq "frames sent" \
		"$(jget "$TMP/null.json" 'sum(p["tx"] for p in j["ports"])')" 0
	echo "    drops by reason:" \
		"$(jget "$TMP/null.json" '{k: v for k, v in j["drops"].items() if v}')"
	json_common net_null "$TMP/null.json"
else
	fail "no JSON written"
fi

echo "-- net_pcap (infinite_rx) -> two net_null uplinks, every policy"
"$PCAPGEN" flows --out "$TMP/loop.pcap" --count 256 --flows 32 --size 256 \
	--dst-net 10.0.1.0 --dst-count 32 --acks-every 8 >/dev/null
for pol in ecmp spray rr adaptive flowlet ofan; do
	cat >"$TMP/$pol.ini" <<EOF
[switch]
name = loop
policy = $pol
stats_interval = 0

[port.0]
dev = net_pcap0,rx_pcap=$TMP/loop.pcap,infinite_rx=1
[port.1]
dev = net_null0,no-rx=1
peer_mac = 02:00:00:00:10:01
[port.2]
dev = net_null1,no-rx=1
peer_mac = 02:00:00:00:10:02

[group.up]
members = 1, 2

[route.leaf1]
prefix = 10.0.1.0/24
group = up
EOF
	sw_run "$pol" --config "$TMP/$pol.ini" --stats-json "$TMP/$pol.json" \
		--duration 1
	expect_rc "$pol: infinite replay" "$pol" 0
	if [ ! -s "$TMP/$pol.json" ]; then
		fail "$pol: no JSON written"
		continue
	fi
	rx=$(jget "$TMP/$pol.json" 'j["ports"][0]["rx"]')
	tx=$(jget "$TMP/$pol.json" 'sum(p["tx"] for p in j["ports"])')
	drops=$(jget "$TMP/$pol.json" 'sum(j["drops"].values())')
	expect_cmp "$pol: frames sent" "$tx" -gt 0
	expect_eq "$pol: sent + dropped (= rx $rx)" "$((tx + drops))" "$rx"
	json_common "$pol" "$TMP/$pol.json"
done

echo "-- net_memif and --hold-exit"
sock=$TMP/hold.sock
cat >"$TMP/hold.ini" <<EOF
[switch]
name = holdtest
policy = ecmp

[port.0]
dev = net_memif0,role=server,socket=$sock,socket-abstract=no
peer_mac = 02:00:00:00:10:01

[route.all]
prefix = 0.0.0.0/0
port = 0
EOF
for round in 1 2; do
	SW_GUARD=0 sw_start "hold$round" "${EAL[@]}" -- --config "$TMP/hold.ini" \
		--stats-json "$TMP/hold$round.json" --duration 0.3 --hold-exit
	for _ in $(seq 1 250); do
		grep -q "holding the ports" "$TMP/hold$round.err" && break
		kill -0 "$SW_PID" 2>/dev/null || break
		sleep 0.02
	done
	expect_file_has "memif, run $round: holds after --duration" \
		"$TMP/hold$round.err" \
		"ofan-switch: stopped polling; holding the ports until SIGINT or SIGTERM (--hold-exit)"
	expect_eq "memif, run $round: still running, socket still there while holding" \
		"$(kill -0 "$SW_PID" 2>/dev/null && [ -S "$sock" ] && echo yes)" yes
	kill -INT "$SW_PID" 2>/dev/null || true
	sw_wait
	expect_rc "memif, run $round: exit after a SIGINT" "hold$round" 0
	expect_eq "memif, run $round: socket file removed at exit" \
		"$([ -e "$sock" ] && echo there || echo gone)" gone
	json_common "memif, run $round" "$TMP/hold$round.json"
done

ofan_finish
