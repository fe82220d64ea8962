#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Malformed and foreign frames through ofan-switch.
#
# 1. `ofan-pcapgen malformed` writes one frame per parser drop reason (a
#    CSV says how many of each) and four good ones: a RoCE data frame and
#    an ACK (routed to port 1), an ARP request for port 0's address and an
#    ARP reply.  With verify_checksum on, the JSON "drops" must equal the
#    CSV reason by reason, plus not_for_us = 1: the ARP reply is learned
#    from and then consumed.  The two routed frames leave port 1; the ARP
#    request is answered on port 0 (arp_replies = 1, one reply frame from
#    port 0's address and MAC).  Exit 0, no mbuf leak.
# 2. A mixed pcap made with scapy (IPv6, 802.1Q and QinQ IPv4, TCP, ICMP,
#    fragments, LLDP and other EtherTypes, foreign ARP, jumbo frames,
#    frames cut short by a snaplen, an empty record): no crash, exit 0,
#    every frame is accounted for (port 0 rx = frames in the pcap =
#    frames sent + sum of drops), forwarded frames have valid checksums,
#    no mbuf leak.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup malformed "$@"

# write_config NAME INPUT_PCAP
write_config() {
	cat >"$TMP/$1.ini" <<EOF
[switch]
name = malformed
policy = ecmp
verify_checksum = yes
stats_interval = 0
icmp_rate = 0

[port.0]
dev = net_pcap0,rx_pcap=$2,tx_pcap=$TMP/$1-port0.pcap
ip = 10.0.0.254
mac = 02:00:00:00:0a:00
[port.1]
dev = net_pcap1,tx_pcap=$TMP/$1-port1.pcap
mac = 02:00:00:00:0a:01
peer_mac = 02:00:00:00:10:01

[route.remote]
prefix = 10.1.0.0/24
port = 1
EOF
}

echo "-- ofan-pcapgen malformed"
"$PCAPGEN" malformed --out "$TMP/malformed.pcap" >"$TMP/malformed.csv"
sed 's/^/    /' "$TMP/malformed.csv"
nb_frames=$(awk -F, 'NR > 1 { n += $2 } END { print n }' "$TMP/malformed.csv")
expect_eq "frames in malformed.pcap (CSV total)" \
	"$("${CHECK[@]}" count "$TMP/malformed.pcap")" "$nb_frames"
expect_eq "good frames in the CSV (data, ACK, ARP request, ARP reply)" \
	"$(awk -F, '$1 == "good" { print $2 }' "$TMP/malformed.csv")" 4

write_config m "$TMP/malformed.pcap"
sw_run m --config "$TMP/m.ini" --stats-json "$TMP/m.json" \
	--stop-when-idle 0.5
expect_rc "malformed replay" m 0
json_common malformed "$TMP/m.json"
expect_eq "port 0 rx" "$(jget "$TMP/m.json" 'j["ports"][0]["rx"]')" \
	"$nb_frames"
check_py drops --json "$TMP/m.json" --csv "$TMP/malformed.csv" \
	--extra not_for_us=1
expect_eq "port 1 tx (the data frame and the ACK)" \
	"$(jget "$TMP/m.json" 'j["ports"][1]["tx"]')" 2
expect_eq "frames in port 1's pcap" \
	"$("${CHECK[@]}" count "$TMP/m-port1.pcap")" 2
expect_eq "port 0 arp_replies" \
	"$(jget "$TMP/m.json" 'j["ports"][0]["arp_replies"]')" 1
# icmp_rate = 0 here: the TTL-expired frames get no ICMP reply (that is
# test_engine's and linux-interop's), so port 0 sends only the ARP reply.
expect_eq "port 0 tx (the ARP reply)" \
	"$(jget "$TMP/m.json" 'j["ports"][0]["tx"]')" 1
expect_eq "port 0: every expired TTL left unanswered (icmp_rate = 0)" \
	"$(jget "$TMP/m.json" 'int(j["ports"][0]["icmp_limited"] == j["drops"]["ttl_expired"] > 0)')" 1
check_py arp-reply "$TMP/m-port0.pcap" 10.0.0.254 02:00:00:00:0a:00

echo "-- mixed real-world-like frames (scapy)"
if ! "$OFAN_PY" -c 'import scapy' 2>/dev/null; then
	fail "python3-scapy is not installed (scripts/install-deps.sh)"
	ofan_finish
fi
nb_mixed=$("${CHECK[@]}" mixed "$TMP/mixed.pcap" --dst 10.1.0.1)
write_config x "$TMP/mixed.pcap"
sw_run x --config "$TMP/x.ini" --stats-json "$TMP/x.json" \
	--stop-when-idle 0.5
expect_rc "mixed replay" x 0
json_common mixed "$TMP/x.json"
rx=$(jget "$TMP/x.json" 'j["ports"][0]["rx"]')
tx=$(jget "$TMP/x.json" 'sum(p["tx"] for p in j["ports"])')
drops=$(jget "$TMP/x.json" 'sum(j["drops"].values())')
echo "    port 0 rx $rx, sent $tx, dropped $drops; drops by reason:" \
	"$(jget "$TMP/x.json" '{k: v for k, v in j["drops"].items() if v}')"
expect_eq "port 0 rx (frames in mixed.pcap)" "$rx" "$nb_mixed"
expect_eq "frames sent + dropped (= rx)" "$((tx + drops))" "$rx"
expect_cmp "frames forwarded to port 1" \
	"$(jget "$TMP/x.json" 'j["ports"][1]["tx"]')" -gt 0
expect_cmp "frames dropped as not_ipv4" \
	"$(jget "$TMP/x.json" 'j["drops"]["not_ipv4"]')" -gt 0
read -r n_out _ _ _ bad_out < <("${CHECK[@]}" ecn "$TMP/x-port1.pcap")
expect_eq "frames in port 1's pcap" "$n_out" \
	"$(jget "$TMP/x.json" 'j["ports"][1]["tx"]')"
expect_eq "forwarded frames that are not IPv4 with a valid checksum" \
	"$bad_out" 0
# The two 9 KB frames arrive chained over several mbufs (net_pcap uses
# 2 KB buffers); they must be forwarded whole, not dropped.
jumbo=$(/usr/bin/python3 -c 'import sys
from scapy.utils import rdpcap
print(sum(len(p) > 8000 for p in rdpcap(sys.argv[1])))' "$TMP/x-port1.pcap")
expect_eq "jumbo frames forwarded whole" "$jumbo" 2

ofan_finish
