#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ECN marking on a congested, shaped uplink.
#
# 2000 frames of 1000 bytes arrive at replay speed at port 0 and all go
# to port 1, shaped to 100 Mbit/s (about 12 500 frames/s) with a queue of
# 256 frames, ecn_kmin = 4 KiB and ecn_kmax = 16 KiB.  The queue fills at
# once, so most frames are tail-dropped and the rest drain in ~25 ms.
#   ECT(0) input: JSON ecn_marked > 0 on the uplink and equal to the CE
#     frames in its pcap (a frame is marked when it is enqueued and every
#     enqueued frame is sent before --stop-when-idle ends the run); the
#     first frames, queued below kmin, are unmarked; every frame still has
#     a valid IPv4 checksum (CE is set with an incremental update);
#     0 < queue_max_pkts <= 256; rx = tx + tail drops; no mbuf leak.
#   Not-ECT input, same congestion: no frame is marked.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup ecn "$@"

SIZE=1000
KMIN=4096

# run_ecn NAME ECN_MODE: replay 2000 frames with ECN_MODE through the
# shaped uplink; leaves $TMP/NAME.json and $TMP/NAME-out.pcap.
run_ecn() {
	local name=$1

	"$PCAPGEN" flows --out "$TMP/$name.pcap" --count 2000 --flows 8 \
		--size "$SIZE" --dst-net 10.0.1.0 --dst-count 8 --ecn "$2" \
		>/dev/null
	cat >"$TMP/$name.ini" <<EOF
[switch]
name = ecn
policy = ecmp
stats_interval = 0

[port.0]
dev = net_pcap0,rx_pcap=$TMP/$name.pcap
[port.1]
dev = net_pcap1,tx_pcap=$TMP/$name-out.pcap
peer_mac = 02:00:00:00:10:01
rate = 100M
queue_packets = 256
ecn = yes
ecn_kmin = 4KiB
ecn_kmax = 16KiB

[route.leaf1]
prefix = 10.0.1.0/24
port = 1
EOF
	sw_run "$name" --config "$TMP/$name.ini" --stats-json "$TMP/$name.json" \
		--stop-when-idle 0.3
	expect_rc "$name: run" "$name" 0
}

echo "-- ECT(0) frames into a 100 Mbit/s uplink"
run_ecn ect ect0
j=$TMP/ect.json
rx=$(jget "$j" 'j["ports"][0]["rx"]')
tx=$(jget "$j" 'j["ports"][1]["tx"]')
marked=$(jget "$j" 'j["ports"][1]["ecn_marked"]')
qmax=$(jget "$j" 'j["ports"][1]["queue_max_pkts"]')
tail_drops=$(jget "$j" 'j["ports"][1]["queue_tail_drops"]')
echo "    rx $rx tx $tx ecn_marked $marked queue_max_pkts $qmax tail drops $tail_drops"
expect_eq "port 0 rx" "$rx" 2000
expect_cmp "port 1 ecn_marked" "$marked" -gt 0
expect_cmp "port 1 queue_max_pkts" "$qmax" -gt 0
expect_cmp "port 1 queue_max_pkts" "$qmax" -le 256
expect_cmp "port 1 queue_tail_drops (the queue overflowed)" "$tail_drops" -gt 0
expect_eq "tx + tail drops (= rx)" "$((tx + tail_drops))" "$rx"
expect_eq "drops.queue_full" "$(jget "$j" 'j["drops"]["queue_full"]')" \
	"$tail_drops"
expect_eq "port 1 queue_len_at_exit" \
	"$(jget "$j" 'j["ports"][1]["queue_len_at_exit"]')" 0
json_common ect "$j"
read -r n ce notect first_ce bad < <("${CHECK[@]}" ecn "$TMP/ect-out.pcap")
echo "    output: $n frames, $ce CE, first CE at frame $first_ce"
expect_eq "frames in port 1's pcap (JSON tx)" "$n" "$tx"
expect_eq "CE frames in port 1's pcap (JSON ecn_marked)" "$ce" "$marked"
expect_cmp "unmarked frames before the first CE (queue below kmin)" \
	"$first_ce" -ge $((KMIN / SIZE))
expect_eq "Not-ECT frames in the output" "$notect" 0
expect_eq "frames with a bad IPv4 checksum" "$bad" 0

echo "-- Not-ECT frames, same congestion"
run_ecn notect not-ect
j=$TMP/notect.json
expect_eq "port 1 ecn_marked" "$(jget "$j" 'j["ports"][1]["ecn_marked"]')" 0
expect_cmp "port 1 queue_max_pkts (congested all the same)" \
	"$(jget "$j" 'j["ports"][1]["queue_max_pkts"]')" -gt $((16384 / SIZE))
json_common notect "$j"
read -r n ce notect first_ce bad < <("${CHECK[@]}" ecn "$TMP/notect-out.pcap")
expect_eq "frames in port 1's pcap (JSON tx)" "$n" \
	"$(jget "$j" 'j["ports"][1]["tx"]')"
expect_eq "CE frames in port 1's pcap" "$ce" 0
expect_eq "Not-ECT frames in port 1's pcap (all)" "$notect" "$n"
expect_eq "frames with a bad IPv4 checksum" "$bad" 0

ofan_finish
