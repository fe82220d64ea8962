#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Ingress under overload: four equal inputs into four slow uplinks.
#
# Ports 0-3 replay the same pcap forever (net_pcap, infinite_rx: a full
# burst at every poll) towards three other leaves; ports 4-7 are net_null
# uplinks shaped to 1 Gbit/s, far below what the inputs bring, for
# --duration 2 (wall clock only ends the run; no rate is asserted).
#   - Fair ingress: each input's share of the drops (its rx_drops plus
#     rx_dropped_at_egress: every packet it brought that was dropped) is
#     a quarter within +-5 %, and so is its share of what got through.
#     Polled in one fixed order, the input polled first took the queues'
#     room every round: it got most of its packets through, the others
#     lost more.
#   - Each drop counted once: summed over the ports, rx_drops + drop is
#     the sum of the drop reasons, all queue_full here, all at the uplinks;
#     their split by input (rx_dropped_at_egress) is the same drops; the
#     exit summary's per-port drops add up to its drop reasons and to the
#     JSON's.
#   - Conservation (as testbed/soak_check.py checks it): per uplink, what
#     was routed to it = sent + dropped + still queued; in all, received =
#     sent + dropped + queued; no mbuf leak.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup fair "$@"

"$PCAPGEN" flows --out "$TMP/in.pcap" --count 1000 --flows 1000 --size 512 \
	--src-ip 10.0.0.1 --dst-net 10.0.1.0 --dst-count 700 --acks-every 8 \
	>/dev/null
{
	cat <<EOF
[switch]
name = fair
policy = ofan
stats_interval = 500ms

[queue]
queue_packets = 512
rate = 1G

[group.up]
members = 4, 5, 6, 7

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
EOF
	for p in 0 1 2 3; do
		printf '[port.%d]\ndev = net_pcap%d,rx_pcap=%s,infinite_rx=1\n' \
			"$p" "$p" "$TMP/in.pcap"
		printf 'ip = 10.0.0.%d\n' $((254 - p))
	done
	for p in 4 5 6 7; do
		printf '[port.%d]\ndev = net_null%d,no-rx=1\n' "$p" $((p - 4))
		printf 'peer_mac = 02:00:00:00:10:0%d\n' $((p - 4))
	done
} >"$TMP/fair.ini"

sw_run fair --config "$TMP/fair.ini" --stats-json "$TMP/fair.json" \
	--duration 2
expect_rc "four inputs into four 1 Gbit/s uplinks" fair 0
j=$TMP/fair.json
if [ ! -s "$j" ]; then
	fail "no JSON written"
	ofan_finish
fi
total=$(jget "$j" 'sum(j["drops"].values())')
rx=$(jget "$j" 'sum(p["rx"] for p in j["ports"])')
echo "    rx $rx, dropped $total; per input: rx, rx_drops, rx_dropped_at_egress:" \
	"$(jget "$j" '[(p["rx"], p["rx_drops"], p["rx_dropped_at_egress"]) for p in j["ports"][:4]]')"
expect_cmp "drops (the uplinks are overloaded: more than half of rx)" \
	$((2 * total)) -gt "$rx"
expect_eq "drops other than queue_full" \
	"$(jget "$j" 'sum(v for k, v in j["drops"].items() if k != "queue_full")')" 0

echo "-- each input's share of the drops, and of what it got through: a quarter, +-5 %"
through=$((rx - total))
for p in 0 1 2 3; do
	# Every packet it brought that was dropped; what was not, it got
	# through (sent, or still queued at the end).
	lost=$(jget "$j" "j['ports'][$p]['rx_drops'] + j['ports'][$p]['rx_dropped_at_egress']") ||
		lost=
	if [ -z "$lost" ]; then
		fail "port $p: no rx_drops and rx_dropped_at_egress in the JSON"
		continue
	fi
	got=$(($(jget "$j" "j['ports'][$p]['rx']") - lost))
	# |lost / total - 1/4| <= 5 % of 1/4  <=>  |4 lost - total| * 20 <= total
	dev=$((4 * lost - total))
	expect_cmp "port $p: |4 x its drops - all drops| x 20 ($lost of $total)" \
		$((${dev#-} * 20)) -le "$total"
	dev=$((4 * got - through))
	expect_cmp "port $p: |4 x what it got through - all| x 20 ($got of $through)" \
		$((${dev#-} * 20)) -le "$through"
done

echo "-- each drop counted once"
expect_eq "sum over ports of rx_drops + drop (= sum of the drop reasons)" \
	"$(jget "$j" 'sum(p["rx_drops"] + p["drop"] for p in j["ports"])')" "$total"
expect_eq "drops at the uplinks (drop of ports 4-7)" \
	"$(jget "$j" 'sum(p["drop"] for p in j["ports"][4:])')" "$total"
expect_eq "drops at the inputs (rx_drops + drop of ports 0-3)" \
	"$(jget "$j" 'sum(p["rx_drops"] + p["drop"] for p in j["ports"][:4])')" 0
expect_eq "rx_dropped_at_egress summed over the inputs (the same drops)" \
	"$(jget "$j" 'sum(p["rx_dropped_at_egress"] for p in j["ports"])')" "$total"
summary_ports=$(sed -n 's/^  port [0-9]* (.*): rx [0-9]* tx [0-9]* drop \([0-9]*\).*/\1/p' \
	"$TMP/fair.err" | awk '{ s += $1 } END { print s + 0 }')
summary_reasons=$(sed -n 's/^  dropped, [a-z_]*: //p' "$TMP/fair.err" |
	awk '{ s += $1 } END { print s + 0 }')
expect_eq "exit summary: drops summed over the ports" "$summary_ports" "$total"
expect_eq "exit summary: drops summed over the reasons" "$summary_reasons" "$total"
sed -n '/per port rx/,$p' "$TMP/fair.err" | sed 's/^/    /'

echo "-- conservation"
expect_eq "per uplink: routed = sent + dropped + queued" \
	"$(jget "$j" '"ok" if all(p["picked"] + p["arp_replies"] + p["icmp_time_exceeded"] == p["tx"] + p["drop"] + p["queue_len_at_exit"] for p in j["ports"]) else [(p["port"], p["picked"], p["tx"], p["drop"], p["queue_len_at_exit"]) for p in j["ports"]]')" ok
expect_eq "received = sent + dropped + queued" \
	"$(jget "$j" 'sum(p["tx"] + p["queue_len_at_exit"] for p in j["ports"]) + sum(j["drops"].values())')" "$rx"
json_common fair "$j"

ofan_finish
