#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ofan-switch's telemetry commands, queried with dpdk-telemetry.py while
# it forwards (net_pcap replaying forever into two net_null uplinks, group
# "up" = ports 1 and 2, policy ofan, --duration 20 as the bound):
#   /ofan/ports     every port with rx/tx and link "up"; traffic flows; each
#                   port's ethdev id and device counters (dev_*)
#   /ofan/queues    every port's queue with its capacity
#   /ofan/drops     the named drop reasons
#   /ofan/policy    policy ofan and the configured seed
#   /ofan/groups    "up" with members 1:1 2:1, 2 live
#   /ofan/fail,2,down   port 2 shows link "down", then weight 0 in "up"
#                   (1 live) and its tx stops growing while port 1's grows
#   /ofan/restore,2 port 2 is up again with weight 1 and sends again
# Then SIGTERM: the switch exits 0 and writes its JSON, without mbuf leak.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup telemetry "$@"

TELEMETRY=$(command -v dpdk-telemetry.py || true)
[ -n "$TELEMETRY" ] || skip "dpdk-telemetry.py not found (package dpdk)"
SOCK=$RUNDIR/dpdk_telemetry.v2

# tel NAME CMD...: send CMDs, one reply per line into $TMP/NAME.tel.
tel() {
	local name=$1

	shift
	printf '%s\n' "$@" |
		"$OFAN_PY" "$TELEMETRY" -f "$PREFIX" >"$TMP/$name.tel" 2>&1 ||
		true
}

# tget NAME CMD EXPR: EXPR of CMD's reply in $TMP/NAME.tel (j = reply).
tget() {
	"${CHECK[@]}" telemetry "$TMP/$1.tel" "$2" "$3" 2>/dev/null || echo "?"
}

# tel_until WHAT CMD EXPR WANT: query CMD until EXPR is WANT, for <= 5 s.
tel_until() {
	local i got="?"

	for i in $(seq 50); do
		tel until "$2"
		got=$(tget until "$2" "$3")
		[ "$got" = "$4" ] && break
		sleep 0.1
	done
	expect_eq "$1 (polled $i time(s))" "$got" "$4"
}

"$PCAPGEN" flows --out "$TMP/loop.pcap" --count 256 --flows 32 --size 256 \
	--dst-net 10.0.1.0 --dst-count 32 --acks-every 8 >/dev/null
cat >"$TMP/tel.ini" <<EOF
[switch]
name = teltest
policy = ofan
seed = 99
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

SW_GUARD=0 sw_start tel "${EAL[@]}" -- --config "$TMP/tel.ini" \
	--stats-json "$TMP/tel.json" --duration 20
for _ in $(seq 100); do
	[ -S "$SOCK" ] && break
	kill -0 "$SW_PID" 2>/dev/null || break
	sleep 0.1
done
if [ ! -S "$SOCK" ]; then
	fail "no telemetry socket $SOCK; switch stderr:"
	sed 's/^/    /' "$TMP/tel.err"
	ofan_finish
fi
pass "telemetry socket $SOCK exists"
sleep 0.3

tel all /ofan/ports /ofan/queues /ofan/drops /ofan/policy /ofan/groups
sed 's/^/    /; s/\(.\{160\}\).*/\1.../' "$TMP/all.tel"
expect_eq "/ofan/ports: ports" \
	"$(tget all /ofan/ports 'sorted(j)')" '["0", "1", "2"]'
expect_eq "/ofan/ports: every port has rx and tx" \
	"$(tget all /ofan/ports 'all("rx" in p and "tx" in p for p in j.values())')" 1
expect_eq "/ofan/ports: every link up" \
	"$(tget all /ofan/ports 'all(p["link"] == "up" for p in j.values())')" 1
expect_cmp "/ofan/ports: port 0 rx" \
	"$(tget all /ofan/ports 'j["0"]["rx"]')" -gt 0
# The device's own counters beside the switch's: every frame port 0's
# device received is one the switch received (nothing lost before it).
expect_eq "/ofan/ports: ethdev ids and device counters" \
	"$(tget all /ofan/ports 'all(set(("ethdev", "dev_ipackets", "dev_opackets", "dev_imissed", "dev_ierrors", "dev_oerrors", "dev_rx_nombuf")) <= set(p) for p in j.values())')" 1
expect_eq "/ofan/ports: ethdev ids are the ports'" \
	"$(tget all /ofan/ports 'int(sorted(p["ethdev"] for p in j.values()) == [0, 1, 2])')" 1
expect_cmp "/ofan/ports: port 0's device received" \
	"$(tget all /ofan/ports 'j["0"]["dev_ipackets"]')" -gt 0
expect_cmp "/ofan/ports: port 1 tx" \
	"$(tget all /ofan/ports 'j["1"]["tx"]')" -gt 0
expect_cmp "/ofan/ports: port 2 tx" \
	"$(tget all /ofan/ports 'j["2"]["tx"]')" -gt 0
expect_eq "/ofan/queues: queues with a capacity" \
	"$(tget all /ofan/queues 'sorted(k for k, q in j.items() if q["capacity_pkts"] > 0)')" \
	'["0", "1", "2"]'
expect_eq "/ofan/drops: has queue_full, not_ipv4 and no_route" \
	"$(tget all /ofan/drops 'all(k in j for k in ("queue_full", "not_ipv4", "no_route"))')" 1
expect_eq "/ofan/policy: policy" "$(tget all /ofan/policy 'j["policy"]')" ofan
expect_eq "/ofan/policy: seed" "$(tget all /ofan/policy 'j["seed"]')" 99
expect_eq "/ofan/groups: up members" \
	"$(tget all /ofan/groups 'j["up"]["members_port_weight"]')" "1:1 2:1"
expect_eq "/ofan/groups: up live" "$(tget all /ofan/groups 'j["up"]["live"]')" 2

echo "-- fail port 2"
tel fail /ofan/fail,2,down
expect_eq "/ofan/fail,2,down" "$(tget fail /ofan/fail 'j["result"]')" applied
tel_until "/ofan/ports: port 2 link" /ofan/ports 'j["2"]["link"]' down
tel_until "/ofan/groups: up members" /ofan/groups \
	'j["up"]["members_port_weight"]' "1:1 2:0"
expect_eq "/ofan/groups: up live" \
	"$(tget until /ofan/groups 'j["up"]["live"]')" 1
tel before /ofan/ports
sleep 0.3
tel after /ofan/ports
expect_eq "port 2 tx while withdrawn (stays $(tget before /ofan/ports 'j["2"]["tx"]'))" \
	"$(tget after /ofan/ports 'j["2"]["tx"]')" \
	"$(tget before /ofan/ports 'j["2"]["tx"]')"
expect_cmp "port 1 tx while port 2 is withdrawn (grows past $(tget before /ofan/ports 'j["1"]["tx"]'))" \
	"$(tget after /ofan/ports 'j["1"]["tx"]')" -gt \
	"$(tget before /ofan/ports 'j["1"]["tx"]')"

echo "-- restore port 2"
tel restore /ofan/restore,2
expect_eq "/ofan/restore,2" "$(tget restore /ofan/restore 'j["result"]')" applied
tel_until "/ofan/ports: port 2 link" /ofan/ports 'j["2"]["link"]' up
tel_until "/ofan/groups: up members" /ofan/groups \
	'j["up"]["members_port_weight"]' "1:1 2:1"
tel before /ofan/ports
sleep 0.3
tel after /ofan/ports
expect_cmp "port 2 tx after restore (grows past $(tget before /ofan/ports 'j["2"]["tx"]'))" \
	"$(tget after /ofan/ports 'j["2"]["tx"]')" -gt \
	"$(tget before /ofan/ports 'j["2"]["tx"]')"

echo "-- fail and restore at once: both apply"
tel fail2 /ofan/fail,1,blackhole
tel restore2 /ofan/restore,1
expect_eq "/ofan/fail,1,blackhole then /ofan/restore,1" \
	"$(tget fail2 /ofan/fail 'j["result"]') $(tget restore2 /ofan/restore 'j["result"]')" \
	"applied applied"
tel_until "/ofan/ports: port 1 link" /ofan/ports 'j["1"]["link"]' up

echo "-- malformed arguments fail nothing"
# (fuzz_telemetry's findings: restore's extra field became a mode, and a
# port number past 16 bits wrapped onto a real port.)
tel bad /ofan/restore,1,down /ofan/fail,65537,down /ofan/fail,1,sideways
expect_eq "/ofan/restore,1,down: usage" \
	"$(tget bad /ofan/restore 'j["error"]')" "usage: /ofan/restore,PORT"
expect_eq "/ofan/fail,65537,down and /ofan/fail,1,sideways: usage" \
	"$(tget bad /ofan/fail 'j["error"][:11]')" "usage: /ofa"
tel links /ofan/ports
expect_eq "every link still up" \
	"$(tget links /ofan/ports 'all(p["link"] == "up" for p in j.values())')" 1

echo "-- SIGTERM"
kill -TERM "$SW_PID"
sw_wait
# Every link change is logged with the switch's time and the port.
for line in "port 2 (net_null1,no-rx=1): down (telemetry /ofan/fail)" \
	"port 2 (net_null1,no-rx=1): out of its groups (routing)" \
	"port 2 (net_null1,no-rx=1): up (telemetry /ofan/fail)" \
	"port 1 (net_null0,no-rx=1): blackhole (telemetry /ofan/fail)"; do
	expect_file_has "switch stderr" "$TMP/tel.err" "$line"
done
expect_rc "exit after SIGTERM" tel 0
if [ -s "$TMP/tel.json" ]; then
	pass "JSON statistics written"
	json_common telemetry "$TMP/tel.json"
	expect_cmp "JSON elapsed_s below the 20 s duration" \
		"$(jget "$TMP/tel.json" 'int(j["elapsed_s"])')" -lt 20
else
	fail "no JSON statistics written"
fi

ofan_finish
