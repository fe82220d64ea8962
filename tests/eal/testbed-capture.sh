#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# testbed/capture.sh on a running ofan-switch in hugepage mode.
#
# Set-up (root; the test is skipped, exit 77, where it cannot be done):
# enough free hugepages (nr_hugepages raised if needed and put back
# afterwards), a hugetlbfs mount (an existing one, or one mounted in the
# test's temporary directory and unmounted afterwards), and one ofan-switch
# with hugepages (--huge-dir, no --huge-unlink: dpdk-dumpcap must attach as
# a secondary process), --idle-sleep (low CPU), ports:
#   0  net_tap0 on a TAP interface: the test writes frames into it with an
#      AF_PACKET socket, so traffic starts only once the capture runs;
#   1, 2  net_null sinks, one group, policy rr (strict alternation).
# (No net_pcap ports: a secondary process re-opens their files.)
#
# Checks:
#  A. capture.sh --port 1; 600 RoCEv2 frames in: the capture holds exactly
#     the 300 frames port 1 sent (telemetry tx), all outbound, each one
#     input frame rewritten for port 1 (MACs, TTL - 1, valid checksum,
#     payload unchanged), every other input frame in input order (rr);
#     dumpcap saw 300 and dropped 0; tshark reads the file and decodes 300
#     InfiniBand BTHs.
#  B. capture.sh --port all; 200 more frames: interface net_tap0 holds the
#     200 frames inbound, unchanged, in order, and nothing outbound;
#     net_null1 and net_null2 100 outbound each (the rr alternation goes
#     on where A left it), nothing inbound.
#  C. capture.sh stops on SIGINT with exit 0, and by itself with
#     --duration 1 (within 10 s) and --count 10 (10 to 42 frames: dumpcap
#     stops after the burst that reaches the count; 200 more frames in);
#     its errors (no such prefix, a --no-huge switch, a port the switch
#     lacks) exit 2 with one line.
#  D. The switch exits 0 on SIGINT, its JSON agrees (tx 500 per uplink, no
#     drop but the kernel's own frames on the TAP, no mbuf leak), and
#     afterwards no hugepage file of its prefix is left, nr_hugepages is
#     back to its old value and the test's mount is gone.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup capture "$@"

CAPTURE=$SRC/testbed/capture.sh
# shellcheck source=testbed/huge.sh
. "$SRC/testbed/huge.sh"
CAP_PID=
SW_PID=
NH_PID=
LG_PID=
TAP=ofcap$$

# ---- cleanup: capture first, then the switch, hugepages last ----

stop_pid() {
	local pid=$1 sig=$2 i

	[ -n "$pid" ] || return 0
	kill "-$sig" "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	ofan_forget "$pid"
}

# Idempotent: stop what runs, remove the prefix's hugepage files, unmount
# what the test mounted, give the hugepages back.
huge_teardown() {
	# A switch that exits with a capture attached crashes (capture.sh).
	stop_pid "$CAP_PID" INT
	CAP_PID=
	stop_pid "$SW_PID" INT
	SW_PID=
	stop_pid "$NH_PID" INT
	NH_PID=
	stop_pid "$LG_PID" INT
	LG_PID=
	rm -rf "$(dirname "$RUNDIR")/${PREFIX}_nh" "$(dirname "$RUNDIR")/${PREFIX}_lg"
	huge_release "$PREFIX"
}

# shellcheck disable=SC2317  # called by the EXIT trap
capture_cleanup() {
	local rc=$?

	huge_teardown
	if [ "$rc" -eq 0 ]; then
		ofan_cleanup
	else
		(exit "$rc") || ofan_cleanup
	fi
}
trap capture_cleanup EXIT

[ "$(id -u)" -eq 0 ] || skip "needs root (hugepages, a hugetlbfs mount, a TAP interface)"
command -v dpdk-dumpcap >/dev/null 2>&1 ||
	skip "dpdk-dumpcap is not installed (package dpdk-dev)"
command -v dpdk-telemetry.py >/dev/null 2>&1 ||
	skip "dpdk-telemetry.py is not installed (package dpdk)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun: net_tap cannot make its interface"
[ -x "$CAPTURE" ] || { fail "$CAPTURE is missing or not executable"; ofan_finish; }

# ---- hugepages ----

huge_reserve 384 "$TMP/huge" || skip "$HUGE_WHY"
echo "    hugepages: $(huge_free_pages) free (nr_hugepages was $HUGE_OLD), mount $HUGE_MNT"
EAL_H=(--huge-dir "$HUGE_MNT" --file-prefix "$PREFIX" -l 0 --no-pci
       --log-level=error)

# ---- helpers (Python) ----

capture_py() {
	cat <<'EOF'
import collections, json, socket, struct, sys


def read_pcap(path):
    with open(path, "rb") as f:
        raw = f.read()
    out, off = [], 24
    while off + 16 <= len(raw):
        cap = struct.unpack("<IIII", raw[off:off + 16])[2]
        out.append(raw[off + 16:off + 16 + cap])
        off += 16 + cap
    return out


def read_pcapng(path):
    """[(interface, direction 'in'/'out'/'?', frame)]; the interface is
    the ethdev name rte_pcapng writes as if_hardware ("vdev-net_null1"),
    else if_name."""
    with open(path, "rb") as f:
        raw = f.read()
    names, out, off = [], [], 0
    while off + 12 <= len(raw):
        btype, blen = struct.unpack("<II", raw[off:off + 8])
        body = raw[off + 8:off + blen - 4]
        if btype == 1:
            opt, o = {}, 8
            while o + 4 <= len(body):
                code, ln = struct.unpack("<HH", body[o:o + 4])
                if code == 0:
                    break
                opt[code] = body[o + 4:o + 4 + ln].rstrip(b"\0").decode(
                    errors="replace")
                o += 4 + (ln + 3) // 4 * 4
            hw = opt.get(15, "")
            names.append(hw.split("-", 1)[1] if hw.startswith("vdev-")
                         else opt.get(2, "if%d" % len(names)))
        elif btype == 6:
            ifid, _, _, cap, _ = struct.unpack("<IIIII", body[:20])
            data = body[20:20 + cap]
            o, d = 20 + (cap + 3) // 4 * 4, "?"
            while o + 4 <= len(body):
                code, ln = struct.unpack("<HH", body[o:o + 4])
                if code == 0:
                    break
                if code == 2 and ln == 4:
                    d = {1: "in", 2: "out"}.get(
                        struct.unpack("<I", body[o + 4:o + 8])[0] & 3, "?")
                o += 4 + (ln + 3) // 4 * 4
            out.append((names[ifid], d, data))
        off += blen
    return out


def rewritten(frame, src, dst):
    """frame as the switch sends it: MACs, TTL - 1, checksum updated."""
    f = bytearray(frame)
    f[0:6], f[6:12] = dst, src
    f[22] -= 1
    s = struct.unpack("!H", f[24:26])[0] + 0x0100
    s = (s & 0xFFFF) + (s >> 16)
    f[24:26] = struct.pack("!H", s)
    return bytes(f)


def csum_ok(frame):
    s = sum(struct.unpack("!10H", frame[14:34]))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def inject(iface, path):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    n = 0
    for f in read_pcap(path):
        s.send(f)
        n += 1
    print(n)


class Checker:
    def __init__(self, label):
        self.label, self.failed = label, 0

    def eq(self, got, want, what):
        ok = got == want
        print("%s: %s: %s" % ("ok" if ok else "FAIL", self.label,
                              "%s = %s" % (what, want) if ok else
                              "%s is %s, expected %s" % (what, got, want)))
        self.failed += not ok


def check(label, cap_path, in_path, spec, parity):
    """spec: iface=kind,src,dst ... kind 'in' (unchanged input) or
    'rr0'/'rr1' (outbound share of an alternating pair)."""
    c = Checker(label)
    frames = read_pcapng(cap_path)
    inp = read_pcap(in_path)
    by_if = collections.defaultdict(list)
    for name, d, data in frames:
        by_if[name].append((d, data))
    c.eq(sorted(by_if), sorted(s.split("=")[0] for s in spec),
         "interfaces with frames")
    for s in spec:
        name, rest = s.split("=")
        kind, src, dst = (rest.split(",") + ["", ""])[:3]
        got = by_if.get(name, [])
        if kind == "in":
            ipv4 = [d for dr, d in got if dr == "in" and
                    d[12:14] == b"\x08\x00"]
            c.eq(len([1 for dr, _ in got if dr == "out"]), 0,
                 "%s: outbound frames" % name)
            c.eq(len(ipv4), len(inp), "%s: inbound IPv4 frames" % name)
            c.eq(ipv4 == inp, True,
                 "%s: inbound frames are the input frames, in order" % name)
            continue
        k = int(kind[2:])
        want = [rewritten(f, mac(src), mac(dst)) for i, f in enumerate(inp)
                if (i + parity) % 2 == k]
        data = [d for _, d in got]
        c.eq([d for d, _ in got].count("out"), len(got),
             "%s: frames marked outbound (of %d)" % (name, len(got)))
        c.eq(len(data), len(want), "%s: frames" % name)
        c.eq(sum(not csum_ok(d) for d in data), 0,
             "%s: frames with a bad IPv4 checksum" % name)
        c.eq(data == want, True, "%s: every other input frame (rr), "
             "rewritten for the port, in order" % name)
        if data != want:
            # Which input frames the interface holds, to tell a switch that
            # broke the alternation from a capture that put a frame under
            # the wrong interface (CI saw 99/101 once, dumpcap 100/100).
            key = lambda f: f[12:22] + f[23:24] + f[26:]
            idx = {key(f): i for i, f in enumerate(inp)}
            got_i = [idx.get(key(d), -1) for d in data]
            bad = [(j, i) for j, i in enumerate(got_i)
                   if (i + parity) % 2 != k or i < 0][:5]
            print("    %s: input index of each frame: %s; first off-share "
                  "(position, input index): %s" % (name, got_i, bad))
    return 1 if c.failed else 0


def parity_of(cap_path, in_path, name):
    """Input index modulo 2 of the first frame interface name sent."""
    frames = [d for n, _, d in read_pcapng(cap_path) if n == name]
    key = lambda f: f[12:22] + f[23:24] + f[26:]    # not MACs, TTL, csum
    for i, f in enumerate(read_pcap(in_path)):
        if frames and key(f) == key(frames[0]):
            return i % 2
    return -1


cmd = sys.argv[1]
if cmd == "inject":
    inject(sys.argv[2], sys.argv[3])
elif cmd == "count":
    print(len(read_pcapng(sys.argv[2])))
elif cmd == "parity":
    print(parity_of(sys.argv[2], sys.argv[3], sys.argv[4]))
elif cmd == "check":
    sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[6:],
                   int(sys.argv[5])))
elif cmd == "tel":
    for ln in open(sys.argv[2]):
        p = json.loads(ln).get("/ofan/ports") if ln.startswith("{") \
            else None
        if p:
            print(" ".join(str(p[k][sys.argv[3]]) for k in
                           sorted(p, key=int)))
            break
    else:
        print("-")
EOF
}

cpy() {
	"$OFAN_PY" -c "$(capture_py)" "$@"
}

# port_counts FIELD: the field (rx, tx) of every port, from telemetry.
port_counts() {
	dpdk-telemetry.py -f "$PREFIX" <<<"/ofan/ports" >"$TMP/tel.txt" 2>&1 ||
		true
	cpy tel "$TMP/tel.txt" "$1"
}

# wait_tx TOTAL: until ports 1 and 2 sent TOTAL frames together (15 s).
wait_tx() {
	local i t

	for ((i = 0; i < 150; i++)); do
		read -r _ t1 t2 <<<"$(port_counts tx)" || true
		t=$((${t1:-0} + ${t2:-0}))
		[ "$t" -ge "$1" ] && break
		sleep 0.1
	done
	expect_eq "frames sent by ports 1 and 2 (telemetry)" "$t" "$1"
}

# start_capture TAG ARGS...: capture.sh ARGS in the background, SIGINT at
# its default (as in a terminal; a background job of a script ignores
# it), until it says it is capturing (30 s).
start_capture() {
	local tag=$1 i

	shift
	"$OFAN_PY" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$CAPTURE" --file-prefix "$PREFIX" \
		"$@" >"$TMP/$tag.out" 2>&1 &
	CAP_PID=$!
	PIDS+=("$CAP_PID")
	for ((i = 0; i < 300; i++)); do
		grep -q "capturing" "$TMP/$tag.out" && break
		kill -0 "$CAP_PID" 2>/dev/null || break
		sleep 0.1
	done
	expect_file_has "capture.sh $*" "$TMP/$tag.out" "capture.sh: capturing"
}

# stop_capture TAG: SIGINT, as Ctrl-C; capture.sh must exit 0.
stop_capture() {
	local rc=0

	kill -INT "$CAP_PID" 2>/dev/null || true
	wait "$CAP_PID" || rc=$?
	ofan_forget "$CAP_PID"
	CAP_PID=
	sed 's/^/    /' "$TMP/$1.out"
	expect_eq "capture.sh $1: exit status after SIGINT" "$rc" 0
}

# ---- traffic and the switch ----

"$PCAPGEN" flows --out "$TMP/a.pcap" --count 600 --flows 12 --size 256 \
	--dst-net 10.1.0.0 --dst-count 6 --acks-every 4 --seed 1 >/dev/null
"$PCAPGEN" flows --out "$TMP/b.pcap" --count 200 --flows 4 --size 512 \
	--dst-net 10.1.0.0 --dst-count 4 --ev-base 50000 --acks-every 5 \
	--seed 2 >/dev/null

cat >"$TMP/capture.ini" <<EOF
[switch]
name = capture
policy = rr
seed = 3
stats_interval = 0

[queue]
queue_packets = 2048

[port.0]
dev = net_tap0,iface=$TAP
ip = 10.0.0.254
[port.1]
dev = net_null1,no-rx=1
mac = 02:00:00:00:0a:01
peer_mac = 02:00:00:00:10:01
[port.2]
dev = net_null2,no-rx=1
mac = 02:00:00:00:0a:02
peer_mac = 02:00:00:00:10:02

[group.up]
members = 1, 2
[route.remote]
prefix = 10.1.0.0/24
group = up
EOF

echo "-- ofan-switch with hugepages, prefix $PREFIX, TAP $TAP"
SW_GUARD=0 sw_start sw "${EAL_H[@]}" -- --config "$TMP/capture.ini" \
	--stats-json "$TMP/sw.json" --duration 120 --idle-sleep 100
for ((i = 0; i < 200; i++)); do
	[ -S "$RUNDIR/dpdk_telemetry.v2" ] && ip link show "$TAP" >/dev/null 2>&1 &&
		break
	kill -0 "$SW_PID" 2>/dev/null || break
	sleep 0.1
done
# Its telemetry answers /ofan/ports once the ports are up.
for ((i = 0; i < 100; i++)); do
	[ "$(port_counts tx)" != - ] && break
	kill -0 "$SW_PID" 2>/dev/null || break
	sleep 0.1
done
if ! kill -0 "$SW_PID" 2>/dev/null || [ "$(port_counts tx)" = - ]; then
	fail "ofan-switch did not come up with hugepages; stderr:"
	sed 's/^/    /' "$TMP/sw.err"
	ofan_finish
fi
# The kernel's own IPv6 chatter on the TAP would only be not_ipv4 drops.
if [ -w "/proc/sys/net/ipv6/conf/$TAP/disable_ipv6" ]; then
	echo 1 >"/proc/sys/net/ipv6/conf/$TAP/disable_ipv6"
fi
expect_cmp "hugepage files of prefix $PREFIX while it runs" \
	"$(find "$HUGE_MNT" -maxdepth 1 -name "${PREFIX}map_*" | wc -l)" -gt 0

echo "-- A: capture.sh --port 1, 600 frames in"
start_capture a --port 1 --out "$TMP/a.pcapng"
expect_eq "frames written into $TAP" "$(cpy inject "$TAP" "$TMP/a.pcap")" 600
wait_tx 600
read -r _ tx1 _ <<<"$(port_counts tx)"
sleep 1
stop_capture a
expect_eq "port 1 tx (telemetry)" "$tx1" 300
expect_file_has "capture A: dumpcap's count" "$TMP/a.out" \
	"Packets received/dropped on interface 'net_null1': 300/0"
parity=$(cpy parity "$TMP/a.pcapng" "$TMP/a.pcap" net_null1)
cpy check A "$TMP/a.pcapng" "$TMP/a.pcap" "$parity" \
	net_null1=rr0,02:00:00:00:0a:01,02:00:00:00:10:01 ||
	fail "capture A: checks of the frames"
if command -v tshark >/dev/null 2>&1; then
	rc=0
	tshark -r "$TMP/a.pcapng" -Y infiniband -T fields \
		-e infiniband.bth.opcode >"$TMP/a.tshark" 2>"$TMP/a.tshark.err" ||
		rc=$?
	expect_eq "tshark reads a.pcapng: exit status" "$rc" 0
	expect_eq "tshark: frames decoded as InfiniBand (BTH)" \
		"$(wc -l <"$TMP/a.tshark")" 300
else
	fail "tshark not found: decoding not checked (scripts/install-deps.sh installs it)"
fi

echo "-- B: capture.sh --port all, 200 more frames"
start_capture b --port all --out "$TMP/b.pcapng"
expect_eq "frames written into $TAP" "$(cpy inject "$TAP" "$TMP/b.pcap")" 200
wait_tx 800
echo "    tx of ports 0, 1, 2 after B (telemetry): $(port_counts tx)"
sleep 1
stop_capture b
# The 600 frames of A moved the shared rr counter by an even number.
cpy check B "$TMP/b.pcapng" "$TMP/b.pcap" "$parity" \
	net_tap0=in \
	net_null1=rr0,02:00:00:00:0a:01,02:00:00:00:10:01 \
	net_null2=rr1,02:00:00:00:0a:02,02:00:00:00:10:02 ||
	fail "capture B: checks of the frames"

echo "-- B2: capture.sh --duration, --count stop by themselves"
t0=$SECONDS
rc=0
timeout 60 "$CAPTURE" --file-prefix "$PREFIX" --port 2 --duration 1 \
	--out "$TMP/d.pcapng" >"$TMP/d.out" 2>&1 || rc=$?
expect_eq "capture.sh --duration 1: exit status" "$rc" 0
expect_cmp "capture.sh --duration 1: seconds it ran" $((SECONDS - t0)) -le 10
start_capture c --port 2 --count 10 --out "$TMP/c.pcapng"
expect_eq "frames written into $TAP" \
	"$(cpy inject "$TAP" "$TMP/b.pcap" | head -n 1)" 200
wait_tx 1000
rc=0
for ((i = 0; i < 100; i++)); do
	kill -0 "$CAP_PID" 2>/dev/null || break
	sleep 0.1
done
wait "$CAP_PID" || rc=$?
ofan_forget "$CAP_PID"
CAP_PID=
expect_eq "capture.sh --count 10: exit status (stopped by itself)" "$rc" 0
n=$(cpy count "$TMP/c.pcapng")
expect_cmp "capture.sh --count 10: frames (dumpcap stops after a burst)" \
	"$n" -ge 10
expect_cmp "capture.sh --count 10: frames" "$n" -le 42

echo "-- C: capture.sh errors"
rc=0
"$CAPTURE" --file-prefix "no_such_$$" --port 1 --out "$TMP/x.pcapng" \
	>"$TMP/c1.out" 2>&1 || rc=$?
expect_eq "no such prefix: exit status" "$rc" 2
expect_eq "no such prefix: lines of output" "$(wc -l <"$TMP/c1.out")" 1
expect_file_has "no such prefix" "$TMP/c1.out" "no DPDK process"
rc=0
"$CAPTURE" --file-prefix "$PREFIX" --port 7 --out "$TMP/x.pcapng" \
	>"$TMP/c2.out" 2>&1 || rc=$?
expect_eq "no port 7: exit status" "$rc" 2
expect_file_has "no port 7" "$TMP/c2.out" "the switch has no port 7"

echo "-- D: the switch stops"
kill -INT "$SW_PID"
sw_wait
SW_PID=
expect_eq "ofan-switch exit status after SIGINT" "$SW_RC" 0
if [ "$SW_RC" -ne 0 ]; then
	sed 's/^/    /' "$TMP/sw.err" | tail -20
fi
if [ -s "$TMP/sw.json" ]; then
	json_common switch "$TMP/sw.json"
	expect_eq "port 1 tx" "$(jget "$TMP/sw.json" 'j["ports"][1]["tx"]')" 500
	expect_eq "port 2 tx" "$(jget "$TMP/sw.json" 'j["ports"][2]["tx"]')" 500
	rx0=$(jget "$TMP/sw.json" 'j["ports"][0]["rx"]')
	expect_eq "port 0 rx - 1000 (kernel frames on the TAP, not_ipv4)" \
		$((rx0 - 1000)) "$(jget "$TMP/sw.json" 'j["drops"]["not_ipv4"]')"
	expect_eq "drops other than not_ipv4" \
		"$(jget "$TMP/sw.json" 'sum(v for k, v in j["drops"].items() if k != "not_ipv4")')" 0
else
	fail "ofan-switch wrote no JSON"
fi

# A no-huge switch cannot have a secondary: capture.sh says so.
cat >"$TMP/nohuge.ini" <<EOF
[switch]
policy = ecmp
stats_interval = 0
[port.0]
dev = net_null0,no-rx=1
[port.1]
dev = net_null1,no-rx=1
[route.remote]
prefix = 10.1.0.0/24
port = 1
EOF
SW_GUARD=0 sw_start nohuge --no-huge -m 256 --no-pci \
	--file-prefix "${PREFIX}_nh" -l 0 --log-level=error -- \
	--config "$TMP/nohuge.ini" --duration 30 --idle-sleep 1000
NH_PID=$SW_PID
for ((i = 0; i < 100; i++)); do
	[ -S "$(dirname "$RUNDIR")/${PREFIX}_nh/dpdk_telemetry.v2" ] && break
	sleep 0.1
done
rc=0
"$CAPTURE" --file-prefix "${PREFIX}_nh" --port 1 --out "$TMP/x.pcapng" \
	>"$TMP/c3.out" 2>&1 || rc=$?
expect_eq "--no-huge switch: exit status" "$rc" 2
expect_eq "--no-huge switch: lines of output" "$(wc -l <"$TMP/c3.out")" 1
expect_file_has "--no-huge switch" "$TMP/c3.out" "runs without hugepages"
stop_pid "$NH_PID" INT
NH_PID=
rm -rf "$(dirname "$RUNDIR")/${PREFIX}_nh"

# net_pcap keeps 63 characters of a port's arguments for a secondary:
# with more, dumpcap's probe fails silently, so capture.sh refuses first
# (before the hugepage check: it is the port's own limit).
long=$TMP/a-directory-whose-name-is-long-enough
mkdir -p "$long"
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\0\0\0\0\0\0\0\0\xff\xff\0\0\x01\0\0\0' \
	>"$long/empty.pcap"
sed "s|^dev = net_null0,no-rx=1|dev = net_pcap0,rx_pcap=$long/empty.pcap,infinite_rx=0|" \
	"$TMP/nohuge.ini" >"$TMP/long.ini"
SW_GUARD=0 sw_start long --no-huge -m 256 --no-pci \
	--file-prefix "${PREFIX}_lg" -l 0 --log-level=error -- \
	--config "$TMP/long.ini" --duration 30 --idle-sleep 1000
LG_PID=$SW_PID
for ((i = 0; i < 100; i++)); do
	[ -S "$(dirname "$RUNDIR")/${PREFIX}_lg/dpdk_telemetry.v2" ] && break
	sleep 0.1
done
rc=0
"$CAPTURE" --file-prefix "${PREFIX}_lg" --port 1 --out "$TMP/x.pcapng" \
	>"$TMP/c4.out" 2>&1 || rc=$?
expect_eq "net_pcap arguments over 63 characters: exit status" "$rc" 2
expect_eq "net_pcap arguments over 63 characters: lines of output" \
	"$(wc -l <"$TMP/c4.out")" 1
expect_file_has "net_pcap arguments over 63 characters" "$TMP/c4.out" \
	"net_pcap keeps 63 for a secondary process"
stop_pid "$LG_PID" INT
LG_PID=
rm -rf "$(dirname "$RUNDIR")/${PREFIX}_lg"

echo "-- cleanup"
huge_teardown
expect_eq "hugepage files of prefix $PREFIX left" \
	"$(find "$HUGE_MNT" -maxdepth 1 -name "${PREFIX}map_*" 2>/dev/null | wc -l)" 0
expect_eq "nr_hugepages (as before the test)" "$(cat "$HUGE_NR")" "$HUGE_OLD"
if [ "$HUGE_MNT" = "$TMP/huge" ]; then
	expect_eq "the test's hugetlbfs mount is gone" \
		"$(awk -v m="$HUGE_MNT" '$2 == m' /proc/mounts)" ""
fi
expect_eq "TAP $TAP is gone" \
	"$(ip link show "$TAP" 2>/dev/null | head -n 1)" ""

ofan_finish
