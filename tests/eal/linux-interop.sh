#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Linux interop: unmodified Linux hosts use ofan-switch as their gateway,
# through one leaf and through leaf-spine-leaf, with ping and iperf3 TCP.
#
# Every switch and every host has its own network namespace; links are
# veth pairs between namespaces, driven by net_af_packet on the switch
# ends.  Four ofan-switch processes (2 leaves, 2 spines) share the
# machine's two cores in low-CPU mode (--idle-sleep), each with its own
# --file-prefix, --no-huge -m 256 --no-pci, lcore 0 or 1 (two on each).
# Every egress is shaped to 1 Gb/s ([queue] rate) so queues build in
# software.
#
#      h1 10.0.1.1/25  h2 10.0.1.129/25        h3 10.0.2.1/25
#                   p0 \   / p1                      | p0
#               leaf1 (10.0.1.0/24)            leaf2 (10.0.2.0/24)
#                p2 |       \ p3              p1 /       | p2
#                   |        `-------.  .------'         |
#                   |                 \/                 |
#                   |        .-------'  `------.         |
#                p0 |       / p1             p0 \        | p1
#                 spine1                        spine2
#
#   (leaf1 p2 - spine1 p0, leaf1 p3 - spine2 p0,
#    leaf2 p1 - spine1 p1, leaf2 p2 - spine2 p1)
#
# Each host port is its own /25 with the switch's address on it as the
# host's gateway (.126 or .254); the switch answers the hosts' ARP and
# learns their MACs from it.  Hosts drop IPv4 unicast in broadcast frames
# (drop_unicast_in_l2_multicast), so nothing works unless the switch sends
# to the MAC it learned.  Switch-to-switch ports have `mac` and `peer_mac`
# on both ends: no learning between switches.  A leaf's uplink group
# holds both spines; a spine routes each leaf's /24 to that leaf.  Hosts
# turn TX checksum offload, TSO and GSO off on their veth (otherwise the
# switch's AF_PACKET socket sees partial checksums and 64 KiB GSO frames).
#
# Checks (every phase restarts all four switches with one policy):
#  (a) one leaf (leaf1, policy ofan): h1 and h2 resolve their gateways by
#      ARP to the MAC of the leaf's veth end; `ping -c 3` works both ways,
#      every reply with TTL 63 (one hop).
#  (b) leaf-spine-leaf (same run): h1 <-> h3 `ping -c 4` both ways, every
#      reply with TTL 61 (three hops); `ping -t 4` gets through and
#      `ping -t 3` does not, and exactly those 2 echo requests are counted
#      as ttl_expired at leaf2 (the third hop) and at no other switch;
#      both uplinks of each leaf carried packets (ofan rotates over both
#      spines).
#  (c) for each policy (ecmp spray rr adaptive flowlet ofan): a 2 s
#      iperf3 TCP run h1 -> h3 completes and moves bytes (no throughput
#      threshold: CI's speed varies).  Printed per policy: throughput and
#      retransmissions (iperf3 JSON), segments queued out of order at the
#      receiver and reordering detected by the sender (TcpExt counters of
#      the hosts' namespaces), packets lost between the kernel and the
#      switches (veth counters against the switches' JSON: AF_PACKET ring
#      overflows, which neither the PMD nor the switch counts), and each
#      leaf's packets to spine1/spine2.  Per-packet policies (spray, rr,
#      adaptive, ofan) must use both spines.
#  (d) same run: `traceroute -n` h1 -> h3 names every hop -- leaf1 (h1's
#      gateway), the spine's port toward leaf1, leaf2, h3 -- from the
#      switches' ICMP time-exceeded replies; every ttl_expired drop was
#      answered (icmp_time_exceeded).
#  Every switch exits 0 on SIGTERM with its mempool back to its start
#  count.  At the end the cleanup is checked: no process left in any
#  namespace (iperf3 server included), no namespace, no link named after
#  the test, no ofan-switch process, no /var/run/dpdk/<prefix>.  The EXIT
#  trap does the same cleanup on failure and on SIGINT/SIGTERM/SIGHUP.
#
# OFAN_LI_POLICIES="ecmp ofan" runs (c) for those policies only (a name
# the switch does not know makes that phase fail, a way to exercise the
# failure path by hand).  OFAN_IDLE_SLEEP_US (default 100) is the
# switches' --idle-sleep; OFAN_LI_AFP_ARGS (default ",framecnt=2048")
# is appended to every port's net_af_packet devargs.  OFAN_KEEP_TMP=1
# keeps the generated switch configurations and every JSON.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# The EXIT trap: lib.sh's cleanup (processes by PID, namespaces, TMP,
# RUNDIR) and every switch's own EAL runtime directory.
LI_RUNDIRS=()
# shellcheck disable=SC2317  # only called by the trap
li_cleanup() {
	local rc=$? d

	ofan_stop_pids
	for d in ${LI_RUNDIRS[@]+"${LI_RUNDIRS[@]}"}; do
		rm -rf "$d"
	done
	# ofan_netns_cleanup deletes the namespaces (and the veths with
	# them), TMP and RUNDIR, and exits with the status it finds in $?.
	if [ "$rc" -eq 0 ]; then
		ofan_netns_cleanup
	else
		(exit "$rc") || ofan_netns_cleanup
	fi
}

OFAN_NEEDS=(switch/ofan-switch)
ofan_setup linux-interop "$@"
ofan_netns_init
trap li_cleanup EXIT

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, veth, AF_PACKET)"
for b in ip iperf3; do
	command -v "$b" >/dev/null 2>&1 ||
		skip "$b not found (Debian packages iproute2, iperf3)"
done
for b in ping ss timeout; do
	if ! command -v "$b" >/dev/null 2>&1; then
		echo "FAIL: $b not found (iputils-ping, iproute2, coreutils)"
		exit 1
	fi
done

read -ra POLICIES <<<"${OFAN_LI_POLICIES:-ecmp spray rr adaptive flowlet ofan}"
IDLE_US=${OFAN_IDLE_SLEEP_US:-100}
DRIVER=net_af_packet
# AF_PACKET rings of 2048 frames instead of the PMD's 512: at 600 Mb/s
# 512 frames last about 10 ms, less than a switch sharing a core with
# three others and the hosts' TCP stacks can be descheduled for, and
# what overflows is lost without a count in the PMD or the switch.
AFP_ARGS=${OFAN_LI_AFP_ARGS-,framecnt=2048}
IPERF_PORT=5201
IPERF_SECS=2

# Names unique to this run: namespaces ofan_li_<node>_<pid>, switch-side
# veths li<pid><what> (at most 13 characters: pid_max is at most 2^22).
TAG=li$$
ns() { echo "ofan_li_${1}_$$"; }

# Hosts: leaf, leaf port, address and gateway (one /25 per host port).
HOSTS=(h1 h2 h3)
declare -A H_LEAF=([h1]=1 [h2]=1 [h3]=2)
declare -A H_PORT=([h1]=0 [h2]=1 [h3]=0)
declare -A H_IP=([h1]=10.0.1.1 [h2]=10.0.1.129 [h3]=10.0.2.1)
declare -A H_GW=([h1]=10.0.1.126 [h2]=10.0.1.254 [h3]=10.0.2.126)
LEAVES=(1 2)
SPINES=(1 2)
SWITCHES=(leaf1 leaf2 spine1 spine2)
# Leaf L's uplink to spine S is port UP0[L] + S - 1.
UP0=([1]=2 [2]=1)
# Two switches per core.
declare -A LCORE=([leaf1]=0 [leaf2]=1 [spine1]=1 [spine2]=0)

# MAC of the switch-to-switch port between leaf L and spine S, on the leaf
# side (0a) or the spine side (0b): locally administered, in both configs.
link_mac() { printf '02:0f:00:%02x:%02x:%s' "$1" "$2" "$3"; }

# li_netns_add NAME: a namespace without IPv6 (only ARP and IPv4 reach
# the switches), recorded before it exists so that an interruption cannot
# leave it behind.
li_netns_add() {
	OFAN_NETNS+=("$1")
	ip netns add "$1"
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 >/dev/null
	ip -n "$1" link set lo up
}

# li_veth NS1 IF1 NS2 IF2: a veth pair created straight into two
# namespaces (never in the root namespace), both ends up.
li_veth() {
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3"
	ip -n "$1" link set "$2" up
	ip -n "$3" link set "$4" up
}

# offloads_off NS IF: TX checksum offload (which takes TSO with it) and
# GSO off, with ethtool's legacy ioctls (ethtool itself is not needed).
offloads_off() {
	ip netns exec "$1" "$OFAN_PY" - "$2" <<'EOF'
import array, fcntl, socket, struct, sys
SIOCETHTOOL = 0x8946
ETHTOOL_STXCSUM, ETHTOOL_STSO, ETHTOOL_SGSO = 0x17, 0x1f, 0x24
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for cmd in (ETHTOOL_STXCSUM, ETHTOOL_STSO, ETHTOOL_SGSO):
    value = array.array('I', [cmd, 0])
    ifr = struct.pack('16sP', sys.argv[1].encode(), value.buffer_info()[0])
    fcntl.ioctl(s, SIOCETHTOOL, ifr)
EOF
}

echo "-- topology: leaves, spines and hosts ${HOSTS[*]} in namespaces ofan_li_*_$$"
for x in "${SWITCHES[@]}" "${HOSTS[@]}"; do
	li_netns_add "$(ns "$x")"
done
for h in "${HOSTS[@]}"; do
	n=$(ns "$h")
	li_veth "$(ns "leaf${H_LEAF[$h]}")" "$TAG$h" "$n" eth0
	ip netns exec "$n" sysctl -qw \
		net.ipv4.conf.eth0.drop_unicast_in_l2_multicast=1
	ip -n "$n" addr add "${H_IP[$h]}/25" dev eth0
	ip -n "$n" route add default via "${H_GW[$h]}"
	offloads_off "$n" eth0
done
for l in "${LEAVES[@]}"; do
	for s in "${SPINES[@]}"; do
		li_veth "$(ns "leaf$l")" "${TAG}l${l}s$s" \
			"$(ns "spine$s")" "${TAG}s${s}l$l"
	done
done

# ---- switch configurations ----

# leaf_config L POLICY
leaf_config() {
	local l=$1 h p s other=$((3 - $1)) up=${UP0[$1]}

	cat <<EOF
[switch]
name = leaf$l
policy = $2
seed = $l
stats_interval = 0
verify_checksum = yes

[queue]
rate = 1G
EOF
	for h in "${HOSTS[@]}"; do
		[ "${H_LEAF[$h]}" = "$l" ] || continue
		p=${H_PORT[$h]}
		cat <<EOF

[port.$p]
dev = $DRIVER$p,iface=$TAG$h$AFP_ARGS
ip = ${H_GW[$h]}
[route.$h]
prefix = ${H_IP[$h]%.*}.$((${H_IP[$h]##*.} - 1))/25
port = $p
EOF
	done
	for s in "${SPINES[@]}"; do
		p=$((up + s - 1))
		cat <<EOF

[port.$p]
dev = $DRIVER$p,iface=${TAG}l${l}s$s$AFP_ARGS
mac = $(link_mac "$l" "$s" 0a)
peer_mac = $(link_mac "$l" "$s" 0b)
EOF
	done
	cat <<EOF

[group.up]
members = $up, $((up + 1))
[route.leaf$other]
prefix = 10.0.$other.0/24
group = up
dst_key = $other
EOF
}

# spine_config S POLICY (single-port routes: the policy has no choice)
spine_config() {
	local s=$1 l p

	cat <<EOF
[switch]
name = spine$s
policy = $2
seed = $((10 + s))
stats_interval = 0
verify_checksum = yes

[queue]
rate = 1G
EOF
	for l in "${LEAVES[@]}"; do
		p=$((l - 1))
		cat <<EOF

[port.$p]
dev = $DRIVER$p,iface=${TAG}s${s}l$l$AFP_ARGS
mac = $(link_mac "$l" "$s" 0b)
peer_mac = $(link_mac "$l" "$s" 0a)
ip = 10.9.$s.$l
[route.leaf$l]
prefix = 10.0.$l.0/24
port = $p
EOF
	done
}

# ---- switch processes ----

declare -A SW_PID SW_TAG
ALL_SW_PIDS=()

# snap NODE FILE: the kernel's counters of every interface in NODE's
# namespace.
snap() {
	ip -n "$(ns "$1")" -j -s link show >"$2"
}

# start_switch NAME TAG POLICY: ofan-switch in NAME's namespace with
# $TMP/TAG.ini.  No timeout wrapper: `ip netns exec` execs the switch, so
# the PID is the switch's own; --duration bounds an orphaned run.
start_switch() {
	local name=$1 tag=$2 prefix=ofan_t_li_${1}_$$ d

	case $name in
	leaf*) leaf_config "${name#leaf}" "$3" >"$TMP/$tag.ini" ;;
	*) spine_config "${name#spine}" "$3" >"$TMP/$tag.ini" ;;
	esac
	d=$(dirname "$RUNDIR")/$prefix
	[[ " ${LI_RUNDIRS[*]} " == *" $d "* ]] || LI_RUNDIRS+=("$d")
	ip netns exec "$(ns "$name")" "$SWITCH" --no-huge -m 256 --no-pci \
		--file-prefix "$prefix" -l "${LCORE[$name]}" \
		--log-level=error -- --config "$TMP/$tag.ini" \
		--stats-json "$TMP/$tag.json" --duration 60 \
		--idle-sleep "$IDLE_US" >"$TMP/$tag.out" 2>"$TMP/$tag.err" &
	SW_PID[$name]=$!
	SW_TAG[$name]=$tag
	PIDS+=("$!")
	ALL_SW_PIDS+=("$!")
}

# wait_switch NAME POLICY: wait (<= 15 s) for the start-up line; returns 1
# (after a FAIL) if the switch exited instead.
wait_switch() {
	local name=$1 tag=${SW_TAG[$1]} pid=${SW_PID[$1]} i rc nports

	nports=$(grep -c '^\[port\.' "$TMP/$tag.ini")
	for ((i = 0; i < 150; i++)); do
		if grep -qsF "$name: policy $2, $nports ports" "$TMP/$tag.err"
		then
			return 0
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			rc=0
			wait "$pid" || rc=$?
			ofan_forget "$pid"
			SW_PID[$name]=
			fail "$tag: exited with status $rc at start:"
			sed 's/^/    /' "$TMP/$tag.err" | tail -5
			return 1
		fi
		sleep 0.1
	done
	fail "$tag: no start-up line within 15 s"
	return 1
}

# fabric_start PHASE POLICY: all four switches with POLICY, files
# $TMP/PHASE-<switch>.*; once all are up, snapshot their namespaces'
# counters.  Returns 1 (the others stopped again) if one did not start.
fabric_start() {
	local x ok=0

	echo "-- $1: leaves and spines with policy $2, --idle-sleep $IDLE_US"
	for x in "${SWITCHES[@]}"; do
		start_switch "$x" "$1-$x" "$2"
	done
	for x in "${SWITCHES[@]}"; do
		wait_switch "$x" "$2" || ok=1
	done
	if [ "$ok" -ne 0 ]; then
		fabric_stop "$1" quiet
		return 1
	fi
	for x in "${SWITCHES[@]}"; do
		snap "$x" "$TMP/$1-$x.snap0"
	done
}

# fabric_stop PHASE [quiet]: SIGTERM every switch still running, wait
# (<= 10 s each), then (unless quiet) check each one's exit status 0 and
# its JSON's mempool count, and snapshot its namespace's counters.
fabric_stop() {
	local x pid tag i rc

	for x in "${SWITCHES[@]}"; do
		pid=${SW_PID[$x]:-}
		[ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null || true
	done
	for x in "${SWITCHES[@]}"; do
		pid=${SW_PID[$x]:-}
		tag=${SW_TAG[$x]}
		[ -n "$pid" ] || continue
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			fail "$tag: still running 10 s after SIGTERM; killing it"
			kill -KILL "$pid" 2>/dev/null || true
		fi
		rc=0
		wait "$pid" 2>/dev/null || rc=$?
		ofan_forget "$pid"
		SW_PID[$x]=
		[ "${2:-}" != quiet ] || continue
		SW_RC=$rc
		expect_rc "$tag: SIGTERM" "$tag" 0
		if [ -s "$TMP/$tag.json" ]; then
			json_common "$tag" "$TMP/$tag.json"
		else
			fail "$tag: no JSON written"
		fi
		snap "$x" "$TMP/$tag.snap1"
	done
}

# ring_loss PHASE: packets lost between the kernel and the switches in
# PHASE, from their JSON and their namespaces' veth counters taken once
# all were up (nothing received yet) and after they stopped.  Prints
# "RX TX WHERE": RX = packets the veths delivered that no switch received
# (an AF_PACKET ring was full: neither the PMD nor the switch counts
# these), TX = packets switches handed to the PMD that the veths never
# carried, WHERE = the switches with losses (switch:RX/TX,...) or "-".
ring_loss() {
	local x args=()

	for x in "${SWITCHES[@]}"; do
		args+=("$TMP/$1-$x.json" "$TMP/$1-$x.snap0" "$TMP/$1-$x.snap1")
	done
	"$OFAN_PY" - "${args[@]}" <<'EOF'
import json, sys
total = [0, 0]
where = []
args = sys.argv[1:]
for sw_file, before_file, after_file in zip(args[0::3], args[1::3],
                                           args[2::3]):
    sw = json.load(open(sw_file))
    snaps = [{l["ifname"]: l["stats64"] for l in json.load(open(f))}
             for f in (before_file, after_file)]
    rx = tx = 0
    for p in sw["ports"]:
        ifname = p["dev"].split("iface=")[1].split(",")[0]
        b, a = snaps[0][ifname], snaps[1][ifname]
        rx += (a["rx"]["packets"] - b["rx"]["packets"]) - p["rx"]
        tx += p["tx"] - (a["tx"]["packets"] - b["tx"]["packets"])
    if rx or tx:
        where.append("%s:%d/%d" % (sw["switch"], rx, tx))
    total[0] += rx
    total[1] += tx
print(total[0], total[1], ",".join(where) or "-")
EOF
}

# jdrops FILE: the switch's non-zero drop reasons.
jdrops() {
	jget "$1" '" ".join("%s=%d" % kv for kv in j["drops"].items() if kv[1]) or "none"'
}

# ---- host helpers ----
#
# Foreground commands run under `timeout --foreground`, which stays in
# the script's process group: a Ctrl-C reaches ping or iperf3 at once
# (plain timeout moves them to a group of their own, and the EXIT trap
# would only run once they time out).

# hosts_arp: flush every host's neighbour cache, then let each host ARP
# for its gateway (with a ping to the gateway itself, which the switch
# drops as not_for_us: it answers ARP, not ICMP), so that freshly started
# leaves know every host's MAC before traffic flows.
hosts_arp() {
	local h pids=()

	for h in "${HOSTS[@]}"; do
		ip -n "$(ns "$h")" neigh flush all
		timeout 5 ip netns exec "$(ns "$h")" \
			ping -c 1 -W 0.5 "${H_GW[$h]}" >/dev/null 2>&1 &
		pids+=("$!")
	done
	for h in "${pids[@]}"; do
		wait "$h" || true
	done
}

# ping_ok WHAT FROM TO COUNT TTL: `ping -c COUNT` from host FROM to host
# TO gets every reply, each with TTL TTL.
ping_ok() {
	local what=$1 out=$TMP/ping-$2-$3-c$4 rc=0 got ttls

	timeout --foreground 20 ip netns exec "$(ns "$2")" \
		ping -c "$4" -i 0.2 -W 2 "${H_IP[$3]}" >"$out" 2>&1 || rc=$?
	got=$(grep -E 'packets transmitted' "$out" || true)
	if [ "$rc" -eq 0 ] && grep -q " $4 received" "$out"; then
		pass "$what: ping -c $4 $2 -> $3 (${H_IP[$3]}): $got"
	else
		fail "$what: ping -c $4 $2 -> $3 (${H_IP[$3]}), exit $rc:"
		sed 's/^/    /' "$out"
		return 0
	fi
	ttls=$(grep -o 'ttl=[0-9]*' "$out" | sort -u | tr '\n' ' ')
	expect_eq "$what: TTLs of the replies" "${ttls% }" "ttl=$5"
}

# ping_ttl WHAT FROM TO TTL WANT: `ping -c 2 -t TTL` gets WANT replies.
ping_ttl() {
	local out=$TMP/ping-$2-$3-t$4 got

	timeout --foreground 20 ip netns exec "$(ns "$2")" \
		ping -c 2 -i 0.2 -W 1 -t "$4" "${H_IP[$3]}" >"$out" 2>&1 || true
	got=$(grep -Eo '[0-9]+ received' "$out" || echo '? received')
	expect_eq "$1: ping -c 2 -t $4 $2 -> $3" "$got" "$5 received"
}

# traceroute_check WHAT FROM TO: `traceroute -n` FROM -> TO names every
# hop: FROM's leaf (its gateway address), a spine (the address of its port
# toward FROM's leaf), TO's leaf (its first addressed port, TO's gateway:
# the uplink it came in on has none), then TO itself.
traceroute_check() {
	local out=$TMP/traceroute-$2-$3 hops want

	timeout --foreground 30 ip netns exec "$(ns "$2")" \
		traceroute -n -q 1 -w 2 -m 6 "${H_IP[$3]}" >"$out" 2>&1 || true
	hops=$(awk 'NR > 1 { printf "%s ", $2 }' "$out")
	want="${H_GW[$2]} 10.9.[12].${H_LEAF[$2]} ${H_GW[$3]} ${H_IP[$3]} "
	if [[ $hops =~ ^${want//./\\.}$ ]]; then
		pass "$1: traceroute $2 -> $3: $hops"
	else
		fail "$1: traceroute $2 -> $3: hops '$hops', expected '$want'"
		sed 's/^/    /' "$out"
	fi
}

# gw_mac_check WHAT HOST: HOST's ARP entry for its gateway holds the MAC
# of the leaf's veth end (the switch port's MAC).
gw_mac_check() {
	local h=$2 got want

	got=$(ip -n "$(ns "$h")" neigh show "${H_GW[$h]}" dev eth0 |
		grep -o 'lladdr [0-9a-f:]*' || true)
	want=$(ip -n "$(ns "leaf${H_LEAF[$h]}")" -o link show dev "$TAG$h" |
		grep -o 'link/ether [0-9a-f:]*' || true)
	expect_eq "$1: $h's neighbour entry for its gateway ${H_GW[$h]}" \
		"${got#lladdr }" "${want#link/ether }"
}

# tcpext NODE FILE: the TcpExt counters of NODE's namespace, one
# "name value" a line.
tcpext() {
	ip netns exec "$(ns "$1")" cat /proc/net/netstat | "$OFAN_PY" -c '
import sys
lines = sys.stdin.read().split("\n")
for k, v in zip(lines[0::2], lines[1::2]):
    if k.startswith("TcpExt:"):
        for name, value in zip(k.split()[1:], v.split()[1:]):
            print(name, value)' >"$2"
}

# tcpext_delta BEFORE AFTER NAME...: the sum of the NAMEs' increases.
tcpext_delta() {
	local b=$1 a=$2

	shift 2
	awk -v names="$*" '
		BEGIN {
			n = split(names, k, " ")
			for (i = 1; i <= n; i++)
				want[k[i]] = 1
		}
		FNR == NR { if ($1 in want) before[$1] = $2; next }
		$1 in want { sum += $2 - before[$1] }
		END { print sum + 0 }' "$b" "$a"
}

# ---- (a) and (b): ping through one leaf and through leaf-spine-leaf ----
if fabric_start ping ofan; then
	hosts_arp
	ping_ok "(a)" h1 h2 3 63
	ping_ok "(a)" h2 h1 3 63
	gw_mac_check "(a)" h1
	gw_mac_check "(a)" h2
	ping_ok "(b)" h1 h3 4 61
	ping_ok "(b)" h3 h1 4 61
	gw_mac_check "(b)" h3
	ping_ttl "(b) TTL" h1 h3 4 2
	ping_ttl "(b) TTL" h1 h3 3 0
	traceroute_check "(d)" h1 h3
	fabric_stop ping
	spine_expired=0
	for x in "${SWITCHES[@]}"; do
		j=$TMP/ping-$x.json
		[ -s "$j" ] || continue
		# ping -t 3 expires twice at leaf2; traceroute's probes once at
		# each of leaf1, a spine and leaf2; every one is answered.
		case $x in
		leaf1) want=1 ;;
		leaf2) want=3 ;;
		*) want= ;;
		esac
		got=$(jget "$j" 'j["drops"]["ttl_expired"]')
		if [ -n "$want" ]; then
			expect_eq "(b) $x: drops ttl_expired" "$got" "$want"
		else
			spine_expired=$((spine_expired + got))
		fi
		expect_eq "(d) $x: ICMP time exceeded sent = ttl_expired" \
			"$(jget "$j" 'sum(p["icmp_time_exceeded"] for p in j["ports"])')" "$got"
		echo "    $x ports (rx, tx, arp_replies):" \
			"$(jget "$j" '[(p["rx"], p["tx"], p["arp_replies"]) for p in j["ports"]]')"
	done
	for l in "${LEAVES[@]}"; do
		j=$TMP/ping-leaf$l.json
		[ -s "$j" ] || continue
		for s in "${SPINES[@]}"; do
			p=$((UP0[l] + s - 1))
			expect_cmp "(b) leaf$l: uplink port $p (to spine$s) tx" \
				"$(jget "$j" "j['ports'][$p]['tx']")" -gt 0
		done
		for h in "${HOSTS[@]}"; do
			[ "${H_LEAF[$h]}" = "$l" ] || continue
			expect_cmp "(a) leaf$l: port ${H_PORT[$h]} ($h) arp_replies" \
				"$(jget "$j" "j['ports'][${H_PORT[$h]}]['arp_replies']")" -gt 0
		done
	done
fi

[ ! -s "$TMP/ping-spine1.json" ] ||
	expect_eq "(b) spines: drops ttl_expired" "$spine_expired" 1

# ---- (c) iperf3 TCP h1 -> h3 per policy ----
SUMMARY=()
for pol in "${POLICIES[@]}"; do
	ph=tcp-$pol
	fabric_start "$ph" "$pol" || continue
	hosts_arp
	tcpext h1 "$TMP/$ph.h1.before"
	tcpext h3 "$TMP/$ph.h3.before"
	# A one-off server (-1), bounded in case the script is SIGKILLed.
	timeout 30 ip netns exec "$(ns h3)" iperf3 -s -1 -B "${H_IP[h3]}" \
		-p "$IPERF_PORT" >"$TMP/$ph.server" 2>&1 &
	srv=$!
	PIDS+=("$srv")
	for ((i = 0; i < 50; i++)); do
		ip netns exec "$(ns h3)" ss -Hltn "sport = :$IPERF_PORT" |
			grep -q . && break
		sleep 0.1
	done
	rc=0
	timeout --foreground 15 ip netns exec "$(ns h1)" \
		iperf3 -c "${H_IP[h3]}" -p "$IPERF_PORT" -t "$IPERF_SECS" -J \
		--connect-timeout 5000 \
		>"$TMP/$ph.iperf.json" 2>"$TMP/$ph.iperf.err" || rc=$?
	j=$TMP/$ph.iperf.json
	err=$(jget "$j" 'j.get("error", "")' 2>/dev/null || echo "no JSON")
	# The server ends with a test that ran; stop it if it does not.
	for ((i = 0; i < 50; i++)); do
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$srv" 2>/dev/null; then
		[ "$rc" -ne 0 ] || [ -n "$err" ] ||
			fail "$ph: iperf3 server still running 5 s after the test"
		kill -TERM "$srv" 2>/dev/null || true
	fi
	wait "$srv" 2>/dev/null || true
	ofan_forget "$srv"
	tcpext h1 "$TMP/$ph.h1.after"
	tcpext h3 "$TMP/$ph.h3.after"
	fabric_stop "$ph"

	if [ "$rc" -ne 0 ] || [ -n "$err" ]; then
		fail "$ph: iperf3 exit status $rc: $err"
		sed 's/^/    /' "$TMP/$ph.iperf.err" | tail -5
		continue
	fi
	bytes=$(jget "$j" 'j["end"]["sum_received"]["bytes"]')
	expect_cmp "$ph: iperf3 bytes received" "$bytes" -gt 0
	mbps=$(jget "$j" '"%.1f" % (j["end"]["sum_received"]["bits_per_second"] / 1e6)')
	retx=$(jget "$j" 'j["end"]["sum_sent"]["retransmits"]')
	ofo=$(tcpext_delta "$TMP/$ph.h3.before" "$TMP/$ph.h3.after" TCPOFOQueue)
	reord=$(tcpext_delta "$TMP/$ph.h1.before" "$TMP/$ph.h1.after" \
		TCPSACKReorder TCPTSReorder TCPRenoReorder)
	dsack=$(tcpext_delta "$TMP/$ph.h1.before" "$TMP/$ph.h1.after" \
		TCPDSACKRecv TCPDSACKOfoRecv)
	read -r lossrx losstx losswhere < <(ring_loss "$ph")
	split=
	for l in "${LEAVES[@]}"; do
		lj=$TMP/$ph-leaf$l.json
		p=${UP0[$l]}
		a=$(jget "$lj" "j['ports'][$p]['tx']")
		b=$(jget "$lj" "j['ports'][$((p + 1))]['tx']")
		split="$split leaf$l $a/$b"
		case $pol in
		spray | rr | adaptive | ofan)
			if [ "$a" -gt 0 ] && [ "$b" -gt 0 ]; then
				pass "$ph: leaf$l sends over both spines ($a/$b)"
			else
				fail "$ph: leaf$l sends $a/$b packets to spine1/spine2: $pol must use both"
			fi
			;;
		esac
	done
	for x in "${SWITCHES[@]}"; do
		d=$(jdrops "$TMP/$ph-$x.json")
		[ "$d" = none ] || echo "    $x drops: $d"
	done
	[ "$losswhere" = - ] ||
		echo "    lost between the kernel and the switches (rx/tx): $losswhere"
	fmt='%-8s %6s Mb/s %10s B  retx %5s  dsack %5s  ofo %5s  reord %5s'
	fmt="$fmt  ring-loss %s/%s  spine1/spine2:%s"
	# shellcheck disable=SC2059  # the format is the variable
	line=$(printf "$fmt" "$pol" "$mbps" "$bytes" "$retx" "$dsack" "$ofo" \
		"$reord" "$lossrx" "$losstx" "$split")
	echo "    $line"
	SUMMARY+=("$line")
done

echo "-- iperf3 TCP h1 -> h3, ${IPERF_SECS} s per policy: receiver Mb/s and bytes;"
echo "   retx = sender's retransmissions, dsack = of which the receiver"
echo "   reported duplicates (spurious); ofo = segments the receiver queued"
echo "   out of order; reord = reordering the sender detected; ring-loss ="
echo "   packets lost rx/tx between the kernel and the switches (AF_PACKET"
echo "   rings); spine1/spine2 = packets each leaf sent to each spine"
for line in ${SUMMARY[@]+"${SUMMARY[@]}"}; do
	echo "    $line"
done

echo "-- cleanup"
ofan_stop_pids
busy=
for x in "${OFAN_NETNS[@]}"; do
	p=$(ip netns pids "$x" 2>/dev/null | tr '\n' ' ')
	[ -z "$p" ] || busy="$busy $x:[${p% }]"
done
expect_eq "processes left in the namespaces" "${busy:-none}" none
ofan_netns_teardown
for d in "${LI_RUNDIRS[@]}"; do
	rm -rf "$d"
done
left=$(ofan_netns_leftovers)
expect_eq "namespaces left" "${left:-none}" none
left=$(ip -o link show | grep -o "${TAG}[a-z0-9]*" | sort -u | tr '\n' ' ' || true)
expect_eq "links named $TAG* left" "${left:-none}" none
expect_eq "ofan-switch processes left" \
	"$(ofan_switch_pids_alive "${ALL_SW_PIDS[@]}")" none
left=
for d in "${LI_RUNDIRS[@]}"; do
	[ ! -e "$d" ] || left="$left $d"
done
expect_eq "EAL runtime directories left" "${left:-none}" none

ofan_finish
