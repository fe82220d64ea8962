#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ofan-switch with two forwarding lcores: EAL --lcores '0@0,1@1,2@1' (the
# main lcore 0 runs the control plane on CPU 0; lcores 1 and 2 forward,
# both on CPU 1).  The switch hands (port, RX queue) pairs round robin to
# the forwarding lcores, so input port 0 is polled by lcore 1 (worker 0)
# and input port 1 by lcore 2 (worker 1).
#
# Input, 3000 frames per input port (every 8th an ACK):
#   port 0 (worker 0): 16 flows to 10.0.1.0/24 (A) and 16 to 10.0.2.0/24;
#   port 1 (worker 1): the same 16 flows to 10.0.1.0/24 as port 0 (same
#     addresses and UDP ports: one flow reaching both lcores), 16 flows of
#     its own to 10.0.2.0/24 and 16 to 10.0.3.0/24.
# Port 1's frames carry DSCP 10 (port 0's DSCP 0): the switch keeps it, so
# each output frame tells which input port, hence which lcore, sent it.
# Ports 2-5 are a 4-uplink group writing one pcap each; routes to the
# three /24s have dst_keys 1-3; queues hold everything.
#
# For ecmp, spray and ofan:
#   - exit 0, stderr says 2 forwarding lcores, JSON "workers" = 2 and one
#     "policy_state" entry per worker;
#   - every frame forwarded: port rx = its pcap, sum of tx = 6000, every
#     drop counter 0, mempool back to its start count;
#   - each uplink's pcap holds its JSON tx count; every output frame is an
#     input frame with the uplink's MACs, TTL - 1, a valid checksum;
#   - ecmp: every flow on exactly one uplink, in particular the 16 flows
#     that arrive on both input ports (both lcores must agree);
#   - ofan: per destination and kind, counts per uplink differ by <= 1 for
#     one input port's frames (one lcore's rotation) and by <= 2 for the
#     destinations both lcores send to (the documented bound: one per
#     lcore), <= 1 for 10.0.3.0/24 (worker 1 only); policy_state shows
#     worker 0 saw 2 destinations and worker 1 saw 3 (which proves which
#     lcore polled which port);
#   - spray and ofan use every uplink.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup multicore "$@"

if [ "$(nproc)" -lt 2 ]; then
	skip "needs 2 CPUs for --lcores '0@0,1@1,2@1' (nproc: $(nproc))"
fi
LCORES='0@0,1@1,2@1'
MC_EAL=(--no-huge -m 512 --no-pci --file-prefix "$PREFIX" --lcores "$LCORES"
	--log-level=error)
POLICIES=(ecmp spray ofan)
UPLINKS=(2 3 4 5)

# gen NAME COUNT SRC_IP DST_NET EV_BASE PSN_SEED: 16 flows, one per address.
gen() {
	"$PCAPGEN" flows --out "$TMP/$1.pcap" --count "$2" --flows 16 \
		--size 256 --src-ip "$3" --dst-net "$4" --dst-count 16 \
		--ev-base "$5" --acks-every 8 --ecn ect0 --seed "$6" >/dev/null
}
# Port 0.
gen a1 1500 10.0.0.1 10.0.1.0 49152 1
gen a2 1500 10.0.0.1 10.0.2.0 49200 2
# Port 1: b1 has a1's flows (5-tuples), other PSNs; b2, b3 its own flows.
gen b1 1000 10.0.0.1 10.0.1.0 49152 3
gen b2 1000 10.0.0.2 10.0.2.0 50000 4
gen b3 1000 10.0.0.2 10.0.3.0 50100 5
expect_eq "port 0 input frames" \
	"$("${CHECK[@]}" merge "$TMP/in0.pcap" "$TMP/a1.pcap" "$TMP/a2.pcap")" \
	3000
"${CHECK[@]}" merge "$TMP/in1-plain.pcap" "$TMP/b1.pcap" "$TMP/b2.pcap" \
	"$TMP/b3.pcap" >/dev/null
expect_eq "port 1 input frames (DSCP 10)" \
	"$("${CHECK[@]}" dscp "$TMP/in1-plain.pcap" "$TMP/in1.pcap" 10)" 3000

write_config() {
	local pol=$1 p

	cat <<EOF
[switch]
name = multicore
policy = $pol
seed = 7
stats_interval = 0
; 6000 frames in flight at most; the automatic size would be ~120k mbufs.
mbufs = 16384

[queue]
; Per lcore and port: room for everything, a replay must lose nothing.
queue_packets = 8192
queue_bytes = 64MiB
ecn = no

[port.0]
dev = net_pcap0,rx_pcap=$TMP/in0.pcap
[port.1]
dev = net_pcap1,rx_pcap=$TMP/in1.pcap
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
members = 2, 3, 4, 5

[route.d1]
prefix = 10.0.1.0/24
group = up
dst_key = 1
[route.d2]
prefix = 10.0.2.0/24
group = up
dst_key = 2
[route.d3]
prefix = 10.0.3.0/24
group = up
dst_key = 3
EOF
}

for pol in "${POLICIES[@]}"; do
	echo "-- policy $pol, forwarding lcores 1 and 2"
	cfg=$TMP/$pol.ini
	json=$TMP/$pol.json
	write_config "$pol" >"$cfg"
	sw_run_raw "$pol" "${MC_EAL[@]}" -- --config "$cfg" \
		--stats-json "$json" --stop-when-idle 0.5
	expect_rc "$pol run" "$pol" 0
	if [ "$SW_RC" -ne 0 ] || [ ! -s "$json" ]; then
		[ -s "$json" ] || fail "$pol: no JSON written"
		continue
	fi
	expect_file_has "$pol: start-up line" "$TMP/$pol.err" \
		"multicore: policy $pol, 6 ports, 2 forwarding lcore(s)"
	expect_eq "$pol: JSON workers" "$(jget "$json" 'j["workers"]')" 2
	expect_eq "$pol: JSON policy_state workers" \
		"$(jget "$json" '[w["worker"] for w in j["policy_state"]]')" \
		"[0, 1]"
	expect_eq "$pol: JSON tx sum" \
		"$(jget "$json" 'sum(p["tx"] for p in j["ports"])')" 6000
	expect_eq "$pol: JSON drops sum" \
		"$(jget "$json" 'sum(j["drops"].values())')" 0
	json_common "$pol" "$json"
	if [ "$pol" = ofan ]; then
		# Worker 0 polls port 0 (2 destinations), worker 1 port 1 (3).
		expect_eq "ofan: destinations per worker (policy_state)" \
			"$(jget "$json" '[w["destinations"] for w in j["policy_state"]]')" \
			"[2, 3]"
	fi
	args=(multicore --json "$json" --policy "$pol"
	      --in "0=$TMP/in0.pcap" --in "1=$TMP/in1.pcap")
	for p in "${UPLINKS[@]}"; do
		args+=(--uplink "$p=$TMP/out-$pol-$p.pcap,02:00:00:00:10:0$p,02:00:00:00:0a:0$p")
	done
	if [ "$pol" = ecmp ]; then
		args+=(--shared-flows 16)
	fi
	check_py "${args[@]}"
done

ofan_finish
