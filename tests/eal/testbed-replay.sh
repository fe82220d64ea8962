#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# testbed/replay.sh on a mixed, real-world-like capture, every policy.
#
# The capture (written here with scapy, ~190 frames) holds RoCEv2 data and
# ACKs in ofan's wire format (BTH SEND ONLY / RC ACK + AETH + feedback
# extension) of 11 flows to five destinations behind three routes, some
# 4 KiB frames (chained mbufs), a 9000-byte jumbo frame, an 802.1Q-tagged
# RoCE frame and routed TCP, ICMP and a later IPv4 fragment, all forwarded;
# and one or more frames per parser drop reason: ARP (one request for the
# switch, answered; others not for it), IPv6, LLDP, MPLS, QinQ, 802.1ad,
# 802.3/LLC, frames cut by a snaplen (caplen < wire length), runts (an
# empty record among them), TTL 1 and 0, bad IHL, bad version, short UDP,
# BTH and ACK, and destinations without a route.  Every frame carries a
# unique IPv4 id, so each output frame is traced to its input frame.
#
# 1. `replay.sh --config TEST.ini --policies all`: a test configuration
#    with three routes: 10.1.0.0/27 -> group {1,2,3,4} (dst_key 1),
#    10.1.0.32/28 -> group {2,3} (dst_key 2), 10.1.0.48/28 -> port 4.
#    For every policy:
#      - replay.sh exit 0; its printed report equals the JSON (tx per
#        port, frames in each pcap, forwarded, dropped, drops by reason);
#      - JSON: port 0 rx = frames in the capture; every drop reason equals
#        the number of such frames in it (runt 3, not_ipv4 8,
#        arp_malformed 2, ip_truncated 1, bad_version 1, bad_ihl 2,
#        bad_total_length 3, ttl_expired 2, udp_truncated 1,
#        bth_truncated 1, ack_truncated 1, no_route 3, not_for_us 3,
#        every other reason 0); sum of uplink tx = routable frames; one
#        ARP reply on port 0 (from 10.0.0.254); no mbuf leaked;
#      - every output frame is one routable input frame (none missing,
#        none twice) on a member of its route's group, with the port's
#        MACs, TTL - 1, a valid checksum, the rest (VLAN tag, payload,
#        length) unchanged;
#      - ecmp and flowlet (gap 1s): each 5-tuple leaves by one port;
#        spray: every member of a group gets traffic and some flow is
#        split; rr: the whole forwarded sequence is the shared counter's
#        (port = members[(c0 + i) % n] for the i-th forwarded frame, for
#        one c0), so the per-port counts are exact; ofan: per destination
#        key and kind the ports repeat the group's cycle exactly, ACKs
#        half a cycle after data, counts per port differ by <= 1.
# 2. The default configuration (configs/pcap-replay.ini, its own policy:
#    ofan, one group of four for three keys) on the capture as pcapng:
#    the same totals and drops, ofan's rotation, and the three keys' cycles
#    are rotations of the one shuffled member order.
# 3. replay.sh's errors: a missing capture, a non-Ethernet capture and an
#    unbuilt ofan-switch each exit 2 with a one-line hint; SIGINT during a
#    replay stops the switch and leaves no process, runtime directory or
#    temporary file.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(switch/ofan-switch)
ofan_setup replay "$@"

REPLAY=$SRC/testbed/replay.sh
[ -x "$REPLAY" ] || { fail "$REPLAY is missing or not executable"; ofan_finish; }
"$OFAN_PY" -c 'import scapy' 2>/dev/null ||
	skip "python3-scapy is not installed (scripts/install-deps.sh)"
# replay.sh's temporary files go here, so that the test sees what it left.
mkdir -p "$TMP/tmp"
export TMPDIR=$TMP/tmp

# ---- the capture's generator and the checker (Python) ----

replay_py() {
	cat <<'EOF'
import collections, configparser, ipaddress, json, math, re, struct, sys

ETH_VLAN = (0x8100,)
# The parser's drop reasons that the switch counts; all must be in the JSON.
REASONS = ["runt", "not_ipv4", "arp_malformed", "ip_truncated",
           "bad_version", "bad_ihl", "bad_total_length", "bad_ip_checksum",
           "ttl_expired", "udp_truncated", "bth_truncated", "ack_truncated",
           "no_route", "no_live_member", "queue_full", "link_down",
           "blackhole", "tx_full", "shutdown", "not_for_us"]


def write_pcap(path, records):
    """Classic microsecond pcap, Ethernet, snaplen 262144 (tcpdump's)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        for i, (data, wire) in enumerate(records):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000,
                                (i % 1000) * 1000, len(data), wire))
            f.write(data)


def read_pcap(path):
    with open(path, "rb") as f:
        raw = f.read()
    e = "<" if struct.unpack("<I", raw[:4])[0] in (0xA1B2C3D4,
                                                    0xA1B23C4D) else ">"
    out, off = [], 24
    while off + 16 <= len(raw):
        _, _, cap, wire = struct.unpack(e + "IIII", raw[off:off + 16])
        out.append((raw[off + 16:off + 16 + cap], wire))
        off += 16 + cap
    return out


# ---- generator ----

def gen(out_pcap, out_manifest):
    import random
    from scapy.all import (ARP, ICMP, IP, IPv6, TCP, UDP, Dot1Q, Ether,
                           ICMPv6EchoRequest, Raw)
    rng = random.Random(5)
    src_mac, dst_mac = "02:00:00:00:00:01", "02:00:00:00:0a:00"
    ids = iter(range(1, 60000))

    def eth(vlan=None):
        e = Ether(src=src_mac, dst=dst_mac)
        return e / Dot1Q(vlan=vlan) if vlan is not None else e

    def bth(opcode, qp, psn):
        return struct.pack("!BBHII", opcode, 0, 0xFFFF, qp & 0xFFFFFF,
                           psn & 0xFFFFFF)

    def ip(src, dst, ttl=64, **kw):
        return IP(src=src, dst=dst, ttl=ttl, tos=2, flags="DF",
                  id=next(ids), **kw)

    def data(src, dst, ev, qp, psn, size, ttl=64, vlan=None):
        hdr = eth(vlan) / ip(src, dst, ttl) / \
            UDP(sport=ev, dport=4791, chksum=0)
        pad = max(0, size - len(hdr) - 12)
        pay = bytes((psn * 7 + k) & 0xFF for k in range(pad))
        return hdr / Raw(bth(0x04, qp, psn) + pay)

    def ack(src, dst, ev, qp, psn, ttl=64):
        ext = struct.pack("!HBBIIQ", ev, 0, 0, psn, psn + 1, 0)
        return eth() / ip(src, dst, ttl) / \
            UDP(sport=ev, dport=4791, chksum=0) / \
            Raw(bth(0x11, qp, psn) + struct.pack("!I", psn) + ext)

    # (source, destination, EV, QP, data packets); an ACK after every
    # third data packet of a flow.
    flows = [("10.0.0.1", "10.1.0.1", 49152, 1, 10),
             ("10.0.0.2", "10.1.0.1", 49153, 2, 9),
             ("10.0.0.3", "10.1.0.1", 49154, 3, 8),
             ("10.0.0.1", "10.1.0.2", 49155, 4, 9),
             ("10.0.0.4", "10.1.0.2", 49156, 5, 7),
             ("10.0.0.1", "10.1.0.33", 49160, 6, 8),
             ("10.0.0.2", "10.1.0.40", 49161, 7, 9),
             ("10.0.0.3", "10.1.0.33", 49162, 8, 7),
             ("10.0.0.1", "10.1.0.50", 49170, 9, 8),
             ("10.0.0.4", "10.1.0.50", 49171, 10, 6),
             ("10.0.0.5", "10.1.0.20", 49172, 11, 6)]
    per_flow = []
    for src, dst, ev, qp, n in flows:
        pk = []
        for psn in range(n):
            size = rng.choice([128, 256, 512, 1024, 1024, 4096])
            pk.append(data(src, dst, ev, qp, psn, size))
            if psn % 3 == 2:
                pk.append(ack(src, dst, ev, qp, psn))
        per_flow.append(pk)
    roce = []
    while any(per_flow):
        f = rng.choice([f for f in per_flow if f])
        roce.append(f.pop(0))

    a_src = "10.0.0.1"
    arp_req = Ether(src=src_mac, dst="ff:ff:ff:ff:ff:ff") / \
        ARP(op=1, hwsrc=src_mac, psrc=a_src, pdst="10.0.0.254")
    arp_bad = Ether(src=src_mac, dst="ff:ff:ff:ff:ff:ff", type=0x0806) / \
        Raw(struct.pack("!HHBBH", 1, 0x0800, 8, 4, 1) + bytes(32))
    tcp_big = eth() / ip(a_src, "10.1.0.1") / TCP(sport=40000, dport=443,
                                                  flags="PA") / \
        Raw(b"t" * 1446)
    full = lambda p: (bytes(p), len(bytes(p)))
    cut = lambda p, n: (bytes(p)[:n], len(bytes(p)))
    raw_ip = lambda first, rest: bytes(eth()) [:12] + b"\x08\x00" + \
        bytes([first]) + rest
    odd = [
        # (record, fate)
        (full(arp_req), "arp_reply"),
        (full(Ether(src=src_mac, dst="ff:ff:ff:ff:ff:ff") /
              ARP(op=1, hwsrc=src_mac, psrc=a_src, pdst="10.0.0.99")),
         "not_for_us"),
        (full(Ether(src=src_mac, dst="ff:ff:ff:ff:ff:ff") /
              ARP(op=2, hwsrc=src_mac, psrc=a_src, pdst=a_src)),
         "not_for_us"),
        (full(eth() / ip(a_src, "10.0.0.254") / ICMP() / Raw(b"p" * 32)),
         "not_for_us"),
        (full(arp_bad), "arp_malformed"),
        (cut(arp_req, 30), "arp_malformed"),
        (full(eth() / IPv6(src="fd00::1", dst="fd00::2") /
              UDP(sport=1, dport=4791) / Raw(b"6" * 40)), "not_ipv4"),
        (full(eth() / IPv6(src="fd00::1", dst="fd00::2") /
              ICMPv6EchoRequest()), "not_ipv4"),
        (cut(eth() / IPv6(src="fd00::1", dst="fd00::2") / TCP() /
             Raw(b"x" * 1400), 54), "not_ipv4"),
        (full(Ether(src=src_mac, dst="01:80:c2:00:00:0e", type=0x88CC) /
              Raw(bytes.fromhex("020704020000000001040503657468300602"
                                "00780000"))), "not_ipv4"),
        (full(Ether(src=src_mac, dst=dst_mac, type=0x8847) /
              Raw(struct.pack("!I", (16 << 12) | 0x100 | 64) +
                  bytes(ip(a_src, "10.1.0.1") / UDP()))), "not_ipv4"),
        (full(eth(10) / Dot1Q(vlan=20) / ip(a_src, "10.1.0.1") / UDP()),
         "not_ipv4"),
        (full(Ether(src=src_mac, dst=dst_mac, type=0x88A8) /
              Dot1Q(vlan=30) / ip(a_src, "10.1.0.1") / UDP()), "not_ipv4"),
        (full(Ether(src=src_mac, dst="01:80:c2:00:00:00", type=38) /
              Raw(b"\x42\x42\x03" + bytes(35))), "not_ipv4"),
        (full(data(a_src, "10.1.0.1", 49190, 20, 0, 300, vlan=100)), "fwd"),
        (full(eth(101) / ip(a_src, "192.0.2.1") / TCP(dport=80, flags="S")),
         "no_route"),
        (full(data(a_src, "10.2.0.1", 49191, 21, 0, 256)), "no_route"),
        (full(data(a_src, "10.2.0.1", 49191, 21, 1, 256)), "no_route"),
        (cut(data(a_src, "10.1.0.1", 49192, 22, 0, 1024), 30),
         "ip_truncated"),
        (cut(data(a_src, "10.1.0.1", 49192, 22, 1, 1024), 60),
         "bad_total_length"),
        (cut(tcp_big, 96), "bad_total_length"),
        (cut(data(a_src, "10.1.0.33", 49193, 23, 0, 512, vlan=7), 64),
         "bad_total_length"),
        ((bytes(eth())[:10], 64), "runt"),
        ((b"", 60), "runt"),
        ((bytes(eth(5))[:16], 64), "runt"),
        (full(data(a_src, "10.1.0.1", 49194, 24, 0, 256, ttl=1)),
         "ttl_expired"),
        (full(ack(a_src, "10.1.0.33", 49194, 24, 0, ttl=0)), "ttl_expired"),
        ((raw_ip(0x44, bytes(39)), 54), "bad_ihl"),
        ((raw_ip(0x4F, bytes(39)), 54), "bad_ihl"),
        ((raw_ip(0x65, bytes(39)), 54), "bad_version"),
        (full(eth() / ip(a_src, "10.1.0.1") / UDP(dport=53, len=300) /
              Raw(b"q" * 20)), "udp_truncated"),
        (full(eth() / ip(a_src, "10.1.0.1") / UDP(sport=49195, dport=4791,
                                                  chksum=0) /
              Raw(b"\x04\x00\xff\xff")), "bth_truncated"),
        (full(eth() / ip(a_src, "10.1.0.1") / UDP(sport=49195, dport=4791,
                                                  chksum=0) /
              Raw(bth(0x11, 25, 0) + bytes(4))), "ack_truncated"),
        (full(eth() / ip(a_src, "10.1.0.2") / TCP(sport=33000, dport=22,
                                                  flags="S")), "fwd"),
        (full(eth() / ip(a_src, "10.1.0.50") / ICMP() / Raw(b"i" * 56)),
         "fwd"),
        (full(eth() / IP(src=a_src, dst="10.1.0.2", ttl=64, id=next(ids),
                         proto=17, frag=185) / Raw(b"f" * 100)), "fwd"),
        (full(data(a_src, "10.1.0.33", 49196, 26, 0, 9000)), "fwd"),
    ]
    records = [(full(p), "fwd") for p in roce]
    for rec in odd:
        records.insert(rng.randrange(len(records) + 1), rec)
    write_pcap(out_pcap, [r for r, _ in records])
    with open(out_manifest, "w") as f:
        json.dump([fate for _, fate in records], f)
    print(len(records))


# ---- checker ----

class Checker:
    def __init__(self, label):
        self.label, self.failed = label, 0

    def check(self, cond, what):
        print("%s: %s: %s" % ("ok" if cond else "FAIL", self.label, what))
        self.failed += not cond
        return cond

    def eq(self, got, want, what):
        if got == want:
            return self.check(True, "%s = %s" % (what, want))
        return self.check(False, "%s is %s, expected %s" % (what, got, want))


class Frame:
    def __init__(self, data):
        self.data = data
        self.etype = struct.unpack("!H", data[12:14])[0]
        self.l3 = 18 if self.etype in ETH_VLAN else 14
        if self.etype in ETH_VLAN:
            self.etype = struct.unpack("!H", data[16:18])[0]
        self.is_ipv4 = self.etype == 0x0800 and len(data) >= self.l3 + 20
        if not self.is_ipv4:
            return
        ip = data[self.l3:]
        ihl = (ip[0] & 0xF) * 4
        self.ttl, self.proto = ip[8], ip[9]
        self.ip_id = struct.unpack("!H", ip[4:6])[0]
        self.dst = str(ipaddress.IPv4Address(ip[16:20]))
        s = sum(struct.unpack("!%dH" % (ihl // 2), ip[:ihl]))
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        self.csum_ok = s == 0xFFFF
        frag = struct.unpack("!H", ip[6:8])[0] & 0x1FFF
        l4 = ip[ihl:]
        self.sport = self.dport = 0
        if self.proto in (6, 17) and not frag and len(l4) >= 4:
            self.sport, self.dport = struct.unpack("!HH", l4[:4])
        self.ack = (self.proto == 17 and self.dport == 4791 and
                    len(l4) > 8 and l4[8] == 0x11)
        self.tuple = (ip[12:16], ip[16:20], self.proto, self.sport,
                      self.dport)

    def invariant(self):
        """Everything a router keeps: all but the MACs, TTL, checksum."""
        d = bytearray(self.data[12:])
        ttl = self.l3 - 12 + 8
        d[ttl] = 0
        d[ttl + 2] = d[ttl + 3] = 0
        return bytes(d)


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def load_ini(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"),
                                   comment_prefixes=(";", "#"),
                                   strict=False)
    cp.read(path)
    ports, groups, routes = {}, {}, []
    for sec in cp.sections():
        if sec.startswith("port."):
            ports[int(sec[5:])] = dict(cp[sec])
    for sec in cp.sections():
        if sec.startswith("group."):
            groups[sec[6:]] = [int(x) for x in
                               cp[sec]["members"].split(",")]
    for sec in cp.sections():
        if sec.startswith("route."):
            r = cp[sec]
            members = (groups[r["group"]] if "group" in r
                       else [int(r["port"])])
            gname = r["group"] if "group" in r else "port." + r["port"]
            routes.append((ipaddress.IPv4Network(r["prefix"]), gname,
                           members, r.get("dst_key", "route:" + sec)))
    return ports, routes


def lookup(routes, dst):
    a = ipaddress.IPv4Address(dst)
    best = [r for r in routes if a in r[0]]
    return max(best, key=lambda r: r[0].prefixlen) if best else None


def parse_report(path, policy):
    """The lines of replay.sh's report for one policy."""
    lines, inside = [], False
    with open(path) as f:
        for ln in f:
            if ln.startswith("== policy "):
                inside = ln.startswith("== policy %s:" % policy)
            elif ln.startswith("=="):
                inside = False
            elif inside:
                lines.append(ln.rstrip("\n"))
    return lines


def check(a):
    policy, ini, in_pcap, manifest, out_dir, report = a[:6]
    flags = set(a[6:])
    c = Checker(policy)
    ports, routes = load_ini(ini)
    uplinks = sorted(p for p in ports if p != 0)
    with open(manifest) as f:
        fates = json.load(f)
    inp = read_pcap(in_pcap)
    c.eq(len(inp), len(fates), "frames in the capture (manifest)")
    with open(out_dir + "/stats.json") as f:
        j = json.load(f)
    c.eq(j["policy"], policy, "JSON policy")
    by_port = {p["port"]: p for p in j["ports"]}

    # Totals and drop reasons.
    want_drops = collections.Counter(x for x in fates
                                     if x not in ("fwd", "arp_reply"))
    nb_fwd = fates.count("fwd")
    c.eq(by_port[0]["rx"], len(fates), "port 0 rx (frames in the capture)")
    for r in sorted(set(REASONS) | set(j["drops"])):
        c.eq(j["drops"].get(r), want_drops.get(r, 0), "drops.%s" % r)
    c.eq(sum(by_port[p]["tx"] for p in uplinks), nb_fwd,
         "sum of uplink tx (routable frames)")
    # Port 0 sends the ARP replies and, for every frame whose TTL expired,
    # an ICMP time exceeded.
    nb_icmp = fates.count("ttl_expired")
    c.eq(by_port[0]["tx"], fates.count("arp_reply") + nb_icmp,
         "port 0 tx (ARP replies and ICMP time exceeded)")
    c.eq(by_port[0]["arp_replies"], fates.count("arp_reply"),
         "port 0 arp_replies")
    c.eq(by_port[0]["icmp_time_exceeded"], nb_icmp,
         "port 0 icmp_time_exceeded")
    c.eq(j["mempool_in_use_end"], j["mempool_in_use_start"],
         "mbufs in use at exit (= at start)")

    # Port 0's pcap: the ARP reply, and ICMP type 11 for the rest.
    p0 = read_pcap(out_dir + "/port0.pcap")
    c.eq(len(p0), 1 + nb_icmp, "frames in port0.pcap")
    arps = [f for f in p0 if f[0][12:14] == b"\x08\x06"]
    icmps = [f for f in p0 if len(f[0]) > 34 and f[0][12:14] == b"\x08\x00"
             and f[0][23] == 1 and f[0][34] == 11]
    c.eq((len(arps), len(icmps)), (1, nb_icmp),
         "port0.pcap: one ARP reply, the rest ICMP time exceeded")
    if arps:
        d = arps[0][0]
        c.check(len(d) >= 42 and d[12:14] == b"\x08\x06" and
                d[20:22] == b"\x00\x02" and
                d[28:32] == bytes([10, 0, 0, 254]) and
                d[38:42] == bytes([10, 0, 0, 1]) and
                ("mac" not in ports[0] or
                 (d[22:28] == mac(ports[0]["mac"]) and
                  d[6:12] == mac(ports[0]["mac"]))),
                "port0.pcap holds an ARP reply 10.0.0.254 -> 10.0.0.1")

    # Every output frame is one routable input frame.
    index = {}
    for i, ((d, wire), fate) in enumerate(zip(inp, fates)):
        if fate == "fwd":
            f = Frame(d)
            index[f.invariant()] = (i, f, wire)
    seen = {}
    bad_mac = bad_ttl = bad_csum = bad_len = unknown = twice = 0
    bad_group = []
    per_port = {}
    for p in uplinks:
        frames = read_pcap(out_dir + "/port%d.pcap" % p)
        per_port[p] = len(frames)
        c.eq(len(frames), by_port[p]["tx"],
             "frames in port%d.pcap (JSON tx)" % p)
        for d, wire in frames:
            f = Frame(d)
            if not f.is_ipv4 or f.invariant() not in index:
                unknown += 1
                continue
            i, fin, wire_in = index[f.invariant()]
            if i in seen:
                twice += 1
            seen[i] = p
            if d[:6] != mac(ports[p]["peer_mac"]) or \
               ("mac" in ports[p] and d[6:12] != mac(ports[p]["mac"])):
                bad_mac += 1
            bad_ttl += f.ttl != fin.ttl - 1
            bad_csum += not f.csum_ok
            bad_len += len(d) != len(fin.data) or wire != wire_in
            r = lookup(routes, f.dst)
            if r is None or p not in r[2]:
                bad_group.append((f.dst, p))
    c.eq(unknown, 0, "output frames that are no routable input frame")
    c.eq(twice, 0, "input frames sent twice")
    c.eq(nb_fwd - len(seen), 0, "routable input frames missing")
    c.eq(bad_mac, 0, "frames without the port's peer_mac / mac")
    c.eq(bad_ttl, 0, "frames whose TTL is not input TTL - 1")
    c.eq(bad_csum, 0, "frames with a bad IPv4 checksum")
    c.eq(bad_len, 0, "frames whose length changed (VLAN, 4 KiB, jumbo)")
    c.check(not bad_group, "every frame left by a member of its route's "
            "group (wrong: %s)" % (bad_group[:5] or "none"))
    print("    %s: frames per uplink %s: %s" %
          (policy, uplinks, [per_port[p] for p in uplinks]))

    # The forwarded frames in input order, with where they went.
    order = sorted(seen)
    info = []
    for i in order:
        f = Frame(inp[i][0])
        info.append((i, f, seen[i], lookup(routes, f.dst)))

    if policy == "ecmp" or (policy == "flowlet" and "sticky" in flags):
        where = collections.defaultdict(set)
        for _, f, p, _ in info:
            where[f.tuple].add(p)
        split = [t for t, ps in where.items() if len(ps) > 1]
        c.check(not split, "each of %d flows (5-tuples) leaves by one port "
                "(%d split)" % (len(where), len(split)))
        used = set(p for _, _, p, _ in info)
        c.check(len(used) > 1, "flows use more than one port (%s)" %
                sorted(used))
    if policy == "spray":
        for r in set((x[3][1], tuple(x[3][2])) for x in info):
            got = set(p for _, _, p, rr in info if rr[1] == r[0])
            c.eq(sorted(got), sorted(r[1]),
                 "ports used by group %s" % r[0])
        where = collections.defaultdict(set)
        for _, f, p, _ in info:
            where[f.tuple].add(p)
        c.check(any(len(ps) > 1 for ps in where.values()),
                "some flow is split over several ports (per packet)")
    if policy == "rr":
        sizes = sorted(set(len(x[3][2]) for x in info))
        period = 1
        for s in sizes:
            period = period * s // math.gcd(period, s)
        fits = [c0 for c0 in range(period)
                if all(p == r[2][(c0 + k) % len(r[2])]
                       for k, (_, _, p, r) in enumerate(info))]
        c.check(len(fits) == 1, "the %d forwarded frames follow one "
                "round-robin counter shared by all groups: port = "
                "members[(c0 + i) %% n] with c0 %% %d in %s" %
                (len(info), period, fits))
        if fits:
            want = collections.Counter(
                r[2][(fits[0] + k) % len(r[2])]
                for k, (_, _, _, r) in enumerate(info))
            c.eq([per_port[p] for p in uplinks],
                 [want[p] for p in uplinks],
                 "per-port counts (exact for c0 %% %d = %d)" %
                 (period, fits[0]))
    if policy == "ofan":
        seqs = collections.defaultdict(list)
        group_of = {}
        for _, f, p, r in info:
            seqs[(r[3], f.ack)].append(p)
            group_of[r[3]] = (r[1], r[2])
        cycles = collections.defaultdict(dict)
        for key, (gname, members) in sorted(group_of.items()):
            n = len(members)
            d, k = seqs[(key, False)], seqs[(key, True)]
            cyc = d[:n]
            ok = (len(d) >= n and sorted(cyc) == sorted(members) and
                  all(p == cyc[j % n] for j, p in enumerate(d)))
            c.check(ok, "key %s data: %d frames repeat the cycle %s of "
                    "group %s" % (key, len(d), cyc, gname))
            ok = len(cyc) == n and \
                all(p == cyc[(j + n // 2) % n] for j, p in enumerate(k))
            c.check(ok,
                    "key %s ACKs: %d frames repeat the cycle half a "
                    "cycle (%d) after data" % (key, len(k), n // 2))
            for kind, s in (("data", d), ("ack", k)):
                cnt = [s.count(m) for m in members]
                c.check(max(cnt) - min(cnt) <= 1, "key %s %s per member "
                        "%s differ by <= 1" % (key, kind, cnt))
            cycles[gname][key] = cyc
        if "shared-cycle" in flags:
            for gname, by_key in cycles.items():
                if len(by_key) < 2:
                    continue
                ref = list(by_key.values())[0]
                rots = [ref[i:] + ref[:i] for i in range(len(ref))]
                c.check(all(cy in rots for cy in by_key.values()),
                        "group %s: the cycles of keys %s are rotations of "
                        "one member order %s" % (gname, sorted(by_key),
                                                 ref))

    # replay.sh's report says the same as the JSON.
    lines = parse_report(report, policy)
    txt = "\n".join(lines)
    for p in [0] + uplinks:
        m = re.search(r"^  port %d: (?:rx (\d+), )?tx (\d+), port%d\.pcap "
                      r"(\d+) frames" % (p, p), txt, re.M)
        got = (m and (int(m.group(2)), int(m.group(3))))
        c.eq(got, (by_port[p]["tx"], by_port[p]["tx"]),
             "report: port %d tx, frames in its pcap" % p)
    m = re.search(r"^  forwarded (\d+), ARP replies (\d+), dropped (\d+)$",
                  txt, re.M)
    c.eq(m and tuple(int(x) for x in m.groups()),
         (nb_fwd, fates.count("arp_reply"), sum(want_drops.values())),
         "report: forwarded, ARP replies, dropped")
    m = re.search(r"^  drops: (.*)$", txt, re.M)
    want = ", ".join("%s %d" % kv for kv in sorted(want_drops.items()))
    c.eq(m and m.group(1), want, "report: drops by reason")
    c.check(not re.search("MISMATCH|WARNING", txt),
            "report: no MISMATCH or WARNING")
    return 1 if c.failed else 0


if sys.argv[1] == "gen":
    gen(sys.argv[2], sys.argv[3])
    sys.exit(0)
sys.exit(check(sys.argv[2:]))
EOF
}

rpy() {
	"$OFAN_PY" -c "$(replay_py)" "$@"
}

# check_policy POLICY INI OUT_DIR REPORT [FLAGS...]
check_policy() {
	local rc=0

	rpy check "$1" "$2" "$TMP/mixed.pcap" "$TMP/mixed.json" "$3/$1" "$4" \
		"${@:5}" || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: checks of the replay (exit $rc)"
}

# start_replay ARGS...: testbed/replay.sh ARGS in the background, with
# SIGINT at its default (a background job of a script starts with SIGINT
# ignored, and bash cannot trap a signal ignored at entry) and its own PID
# (exec), which names its EAL prefixes.  Sets RP_PID.
start_replay() {
	"$OFAN_PY" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$REPLAY" "$@" &
	RP_PID=$!
	PIDS+=("$RP_PID")
}

# run_replay TAG ARGS...: testbed/replay.sh ARGS with this build, output in
# $TMP/TAG.out; a signal to this script stops it through the EXIT trap.
# Sets RP_RC and RP_PID.
run_replay() {
	local tag=$1

	shift
	start_replay "$@" --build-dir "$BUILD" >"$TMP/$tag.out" 2>&1
	RP_RC=0
	wait "$RP_PID" || RP_RC=$?
	ofan_forget "$RP_PID"
}

# leftovers PID: what replay.sh (process PID) left behind: EAL runtime
# directories of its prefixes, switches still running, temporary files.
leftovers() {
	local d

	for d in "$(dirname "$RUNDIR")"/ofan_replay_"$1"_*; do
		[ ! -e "$d" ] || echo "runtime dir $d"
	done
	pgrep -f -- "--file-prefix ofan_replay_$1_" | sed 's/^/process /' || true
	find "$TMPDIR" -mindepth 1 -maxdepth 1 | sed 's/^/temporary /'
}

echo "-- the capture"
nb=$(rpy gen "$TMP/mixed.pcap" "$TMP/mixed.json")
expect_eq "frames in mixed.pcap" "$("${CHECK[@]}" count "$TMP/mixed.pcap")" \
	"$nb"

# The test configuration: three routes onto different groups.
cat >"$TMP/test.ini" <<EOF
[switch]
name = replaytest
policy = ecmp
seed = 11
stats_interval = 0

[queue]
queue_packets = 8192
queue_bytes = 64MiB
ecn = no

[port.0]
; replay.sh replaces every dev; a run with this one would fail at once.
dev = net_pcap0,rx_pcap=/nonexistent/replay-test.pcap
ip = 10.0.0.254
mac = 02:00:00:00:0a:00
EOF
for p in 1 2 3 4; do
	cat >>"$TMP/test.ini" <<EOF
[port.$p]
dev = net_pcap$p,rx_pcap=/nonexistent/replay-test.pcap
mac = 02:00:00:00:0a:0$p
peer_mac = 02:00:00:00:10:0$p
EOF
done
cat >>"$TMP/test.ini" <<EOF

[group.all]
members = 1, 2, 3, 4
[group.pair]
members = 2, 3

[route.a]
prefix = 10.1.0.0/27
group = all
dst_key = 1
[route.b]
prefix = 10.1.0.32/28
group = pair
dst_key = 2
[route.c]
prefix = 10.1.0.48/28
port = 4

; A flowlet never ends within a replay: flows keep their port.
[flowlet]
gap = 1s
EOF

echo "-- replay.sh --policies all, test configuration"
start=$SECONDS
run_replay all "$TMP/mixed.pcap" --config "$TMP/test.ini" \
	--policies all --out "$TMP/out-all"
sed 's/^/    /' "$TMP/all.out"
expect_eq "replay.sh --policies all: exit status" "$RP_RC" 0
echo "    (every policy's replay in $((SECONDS - start)) s)"
expect_eq "replay.sh left nothing behind" "$(leftovers "$RP_PID")" ""
# "all" is every policy the switch has, not a list of its own.
nb_pol=$("$BUILD/switch/ofan-switch" --help |
	awk '/^policies/ { on = 1; next } on && /^  [a-z_]+ / { n++ } END { print n + 0 }')
expect_eq "replay.sh --policies all: every policy of ofan-switch --help" \
	"$(grep -c '^== policy ' "$TMP/all.out")" "$nb_pol"
for pol in ecmp spray rr adaptive flowlet ofan; do
	check_policy "$pol" "$TMP/test.ini" "$TMP/out-all" "$TMP/all.out" sticky
done
expect_file_has "report.txt" "$TMP/out-all/report.txt" \
	"== per-port tx (frames sent), all policies"

echo "-- replay.sh, default configuration (its policy), pcapng input"
in=$TMP/mixed.pcap
if command -v editcap >/dev/null 2>&1; then
	editcap -F pcapng "$TMP/mixed.pcap" "$TMP/mixed.pcapng"
	in=$TMP/mixed.pcapng
else
	fail "editcap not found: pcapng input not tried (scripts/install-deps.sh installs tshark, which brings it)"
fi
run_replay def "$in" --out "$TMP/out-def"
sed 's/^/    /' "$TMP/def.out"
expect_eq "replay.sh (default config): exit status" "$RP_RC" 0
expect_eq "replay.sh left nothing behind" "$(leftovers "$RP_PID")" ""
check_policy ofan "$SRC/configs/pcap-replay.ini" "$TMP/out-def" \
	"$TMP/def.out" shared-cycle

echo "-- replay.sh errors"
run_replay missing "$TMP/no-such.pcap"
expect_eq "missing capture: exit status" "$RP_RC" 2
expect_eq "missing capture: lines of output" "$(wc -l <"$TMP/missing.out")" 1
expect_file_has "missing capture" "$TMP/missing.out" "no such file"
"$OFAN_PY" - "$TMP/sll.pcap" <<'EOF'
import struct, sys
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 113))
    f.write(struct.pack("<IIII", 0, 0, 20, 20) + bytes(20))
EOF
run_replay sll "$TMP/sll.pcap"
expect_eq "Linux cooked capture: exit status" "$RP_RC" 2
expect_eq "Linux cooked capture: lines of output" \
	"$(wc -l <"$TMP/sll.out")" 1
expect_file_has "Linux cooked capture" "$TMP/sll.out" "is not Ethernet"
timeout 30 "$REPLAY" "$TMP/mixed.pcap" --build-dir "$TMP/no-build" \
	>"$TMP/nobuild.out" 2>&1 && rc=0 || rc=$?
expect_eq "ofan-switch not built: exit status" "$rc" 2
expect_eq "ofan-switch not built: lines of output" \
	"$(wc -l <"$TMP/nobuild.out")" 1
expect_file_has "ofan-switch not built" "$TMP/nobuild.out" "not built"

echo "-- SIGINT during a replay"
# --idle 30: the switch keeps polling after the capture; interrupt it.
start_replay "$TMP/mixed.pcap" --config "$TMP/test.ini" --policy ofan \
	--idle 30 --out "$TMP/out-int" --build-dir "$BUILD" >"$TMP/int.out" 2>&1
for ((i = 0; i < 100; i++)); do
	pgrep -f -- "--file-prefix ofan_replay_${RP_PID}_" >/dev/null && break
	sleep 0.1
done
sleep 1
expect_cmp "switches of the replay running before SIGINT" \
	"$(pgrep -cf -- "--file-prefix ofan_replay_${RP_PID}_" || true)" -ge 1
kill -INT "$RP_PID"
RP_RC=0
wait "$RP_PID" || RP_RC=$?
ofan_forget "$RP_PID"
expect_eq "replay.sh after SIGINT: exit status" "$RP_RC" 130
expect_eq "replay.sh left nothing behind after SIGINT" \
	"$(leftovers "$RP_PID")" ""

ofan_finish
