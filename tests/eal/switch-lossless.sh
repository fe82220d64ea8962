#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Trimming and PFC in ofan-switch on virtual ports (net_pcap).
#
# Trimming: 400 RoCEv2 data frames of 1000 bytes arrive at replay speed at
# port 0, all for port 1, shaped to 100 Mbit/s with a 4-frame queue that
# trims (trim = yes, the control queue 400 frames).  Every overflow
# becomes a header: the JSON counts trimmed frames and no drop; port 1's
# pcap holds exactly tx frames, each whole or trimmed; each trimmed frame
# is its input frame's headers, rewritten (MACs, TTL - 1), with IPv4 and
# UDP lengths of the headers, a valid IPv4 checksum and the trimmed mark
# in the BTH (pcapcheck.py trim, byte by byte); tools/wireshark/ofan.lua
# in tshark finds exactly those frames trimmed.
#
# PFC: the same frames into port 0, a lossless port (pfc = yes, pfc_xoff
# 16 KiB, pfc_xon 8 KiB, a headroom that holds the whole replay: a pcap
# does not obey pauses), with port 1's queue deep: port 0 sends its peer
# PFC frames from its own MAC, a pause (quanta 0xffff for priority 3)
# first and a resume (0) last, as many as the JSON counts, and nothing is
# lost.  Port 1 receives two PFC frames from its peer: one for priority
# 3 with 1000 quanta (its egress paused for 1000 x 512 bits at 100 Mbit/s,
# 5.12 ms: pfc_paused_ns), one for priority 5 (pause_ignored).  The log
# says PFC runs in software (net_pcap has no PFC).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup lossless "$@"

LUA=$SRC/tools/wireshark/ofan.lua
MAC0=02:00:00:00:0a:00
MAC1=02:00:00:00:0a:01
PEER1=02:00:00:00:10:01
"$PCAPGEN" flows --out "$TMP/in.pcap" --count 400 --flows 4 --size 1000 \
	--dst-net 10.0.1.0 --dst-count 4 >/dev/null

# config NAME PORT0_EXTRA PORT1_EXTRA
config() {
	cat >"$TMP/$1.ini" <<EOF
[switch]
name = $1
policy = ecmp
stats_interval = 0

[port.0]
dev = net_pcap0,rx_pcap=$TMP/in.pcap,tx_pcap=$TMP/$1-out0.pcap
mac = $MAC0
$2

[port.1]
dev = net_pcap1,${4:-}tx_pcap=$TMP/$1-out1.pcap
mac = $MAC1
peer_mac = $PEER1
rate = 100M
ecn = no
$3

[route.leaf1]
prefix = 10.0.1.0/24
port = 1
EOF
}

echo "-- trimming: a 4-frame queue at 100 Mbit/s"
config trim "" "queue_packets = 4
trim = yes
ctrl_queue_packets = 400"
sw_run trim --config "$TMP/trim.ini" --stats-json "$TMP/trim.json" \
	--stop-when-idle 0.3
expect_rc "trim: run" trim 0
j=$TMP/trim.json
tx=$(jget "$j" 'j["ports"][1]["tx"]')
trimmed=$(jget "$j" 'j["ports"][1]["trimmed"]')
echo "    tx $tx trimmed $trimmed"
expect_eq "port 0 rx" "$(jget "$j" 'j["ports"][0]["rx"]')" 400
expect_eq "port 1 tx (every frame, whole or trimmed)" "$tx" 400
expect_cmp "trimmed frames" "$trimmed" -gt 0
expect_eq "drops" "$(jget "$j" 'sum(j["drops"].values())')" 0
expect_eq "ctrl_enqueued (= trimmed)" \
	"$(jget "$j" 'j["ports"][1]["ctrl_enqueued"]')" "$trimmed"
json_common trim "$j"
read -r full cut < <("${CHECK[@]}" trim --in "$TMP/in.pcap" \
	--out "$TMP/trim-out1.pcap" --mac "$MAC1" --peer-mac "$PEER1" |
	tee "$TMP/trim-check.txt" | tail -1)
if grep -q '^FAIL' "$TMP/trim-check.txt"; then
	grep '^FAIL' "$TMP/trim-check.txt"
	fail "trimmed frames as expected (pcapcheck.py trim)"
else
	pass "trimmed frames are their inputs' headers, rewritten and marked"
fi
expect_eq "trimmed frames in port 1's pcap (JSON trimmed)" "$cut" "$trimmed"
expect_eq "whole frames in port 1's pcap" "$full" "$((400 - trimmed))"
if command -v tshark >/dev/null 2>&1; then
	expect_eq "tshark + ofan.lua: frames marked trimmed" \
		"$(tshark -X "lua_script:$LUA" -r "$TMP/trim-out1.pcap" \
			-Y 'ofan.trimmed == 1' 2>/dev/null | wc -l)" "$trimmed"
	expect_eq "tshark: trimmed frames are still RoCE (BTH decoded)" \
		"$(tshark -r "$TMP/trim-out1.pcap" -Y infiniband 2>/dev/null |
			wc -l)" 400
else
	fail "tshark not found (scripts/install-deps.sh installs it)"
fi

echo "-- PFC: port 0 lossless, port 1 paused by its peer"
"${CHECK[@]}" pfc-gen "$TMP/pause1.pcap" --src "$PEER1" \
	--frame 0x08:1000 --frame 0x20:1000
config pfc "pfc = yes
pfc_xoff = 16KiB
pfc_xon = 8KiB
pfc_headroom = 1MiB" "queue_packets = 1000
pfc = yes" "rx_pcap=$TMP/pause1.pcap,"
sw_run pfc --config "$TMP/pfc.ini" --stats-json "$TMP/pfc.json" \
	--stop-when-idle 0.3
expect_rc "pfc: run" pfc 0
j=$TMP/pfc.json
expect_file_has "pfc: the log says who runs PFC on port 0" "$TMP/pfc.err" \
	"pfc: port 0: PFC in software (priority 3, xoff 16384 B, xon 8192 B, headroom 1048576 B"
pauses=$(jget "$j" 'j["ports"][0]["pfc_pauses_sent"]')
resumes=$(jget "$j" 'j["ports"][0]["pfc_resumes_sent"]')
echo "    port 0: $pauses pauses, $resumes resumes sent"
expect_cmp "port 0 pauses sent" "$pauses" -gt 0
expect_cmp "port 0 resumes sent" "$resumes" -gt 0
expect_eq "port 1 tx (nothing lost)" "$(jget "$j" 'j["ports"][1]["tx"]')" 400
expect_eq "drops other than the ignored pause" \
	"$(jget "$j" 'sum(v for k, v in j["drops"].items() if k != "pause_ignored")')" 0
expect_eq "drops.pause_ignored (priority 5)" \
	"$(jget "$j" 'j["drops"]["pause_ignored"]')" 1
expect_eq "port 1 pfc_pauses_received" \
	"$(jget "$j" 'j["ports"][1]["pfc_pauses_received"]')" 1
expect_eq "port 1 pfc_paused_ns (1000 quanta at 100 Mbit/s)" \
	"$(jget "$j" 'j["ports"][1]["pfc_paused_ns"]')" 5120000
json_common pfc "$j"
frames=$("${CHECK[@]}" pfc "$TMP/pfc-out0.pcap" --src "$MAC0")
echo "    port 0's PFC frames: $frames"
expect_eq "PFC frames out of port 0 (JSON pauses + resumes)" \
	"$(wc -w <<<"$frames")" "$((pauses + resumes))"
expect_eq "the first is a pause of priority 3" "${frames%% *}" "8:65535"
expect_eq "the last a resume" "${frames##* }" "8:0"

ofan_finish
