#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
pcapcheck.py: the packet-level half of the ofan-switch EAL tests.

The shell scripts in tests/eal/ run ofan-switch; this helper reads what it
wrote (pcap files, --stats-json) and checks it.  Reading pcaps needs only
the Python standard library (both microsecond and nanosecond pcap); only
"mixed", which builds real-world-like frames, imports scapy.  Run it with
/usr/bin/python3 (Debian's, which has python3-scapy).

Checks print one line each, "ok: ..." or "FAIL: ..."; the exit status is 1
if any check failed, 2 on a usage or input error.

  merge OUT IN...           interleave pcaps round robin into OUT
  count FILE                number of frames in FILE
  json FILE EXPR            print EXPR evaluated with j = the JSON of FILE
  forward ...               golden-replay checks (see cmd_forward)
  drops ...                 JSON drop counters against an expected CSV
  ecn FILE                  ECN codepoints of FILE, checksums verified
  arp-reply FILE SPA SHA    FILE holds exactly one ARP reply from SPA/SHA
  mixed OUT                 write a real-world-like mixed pcap with scapy
  telemetry REPLY CMD EXPR  print EXPR with j = CMD's reply, from the
                            output of dpdk-telemetry.py in file REPLY
  dscp IN OUT VALUE         copy IN to OUT with the IPv4 DSCP of every
                            frame set to VALUE (checksum updated)
  multicore ...             replay checks with several input ports,
                            one per forwarding lcore (see cmd_multicore)
"""
import argparse
import collections
import json
import struct
import sys

MAGIC_US = 0xA1B2C3D4
MAGIC_NS = 0xA1B23C4D
ETH_IPV4 = 0x0800
ETH_ARP = 0x0806
ETH_VLAN = 0x8100
BTH_OP_RC_ACK = 0x11
ROCEV2_PORT = 4791


class Checker:
    """Counts and prints check results."""

    def __init__(self, label):
        self.label = label
        self.failed = 0

    def check(self, cond, what):
        print("%s: %s: %s" % ("ok" if cond else "FAIL", self.label, what))
        if not cond:
            self.failed += 1
        return cond

    def eq(self, got, want, what):
        if got == want:
            return self.check(True, "%s = %s" % (what, want))
        return self.check(False, "%s is %s, expected %s" % (what, got, want))

    def status(self):
        return 1 if self.failed else 0


# ---- pcap I/O ----

def read_pcap(path):
    """Return (header bytes, endian, [(ts_sec, ts_frac, wire_len, data)])."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 24:
        raise ValueError("%s: %d bytes, too short for a pcap header" %
                         (path, len(raw)))
    for endian in ("<", ">"):
        magic = struct.unpack(endian + "I", raw[:4])[0]
        if magic in (MAGIC_US, MAGIC_NS):
            break
    else:
        raise ValueError("%s: not a pcap file" % path)
    frames = []
    off = 24
    while off < len(raw):
        if off + 16 > len(raw):
            raise ValueError("%s: truncated record header at %d" %
                             (path, off))
        sec, frac, caplen, wirelen = struct.unpack(endian + "IIII",
                                                   raw[off:off + 16])
        off += 16
        if off + caplen > len(raw):
            raise ValueError("%s: truncated record at %d" % (path, off))
        frames.append((sec, frac, wirelen, raw[off:off + caplen]))
        off += caplen
    return raw[:24], endian, frames


def pcap_header(nanosecond=True, snaplen=65535):
    return struct.pack("<IHHiIII", MAGIC_NS if nanosecond else MAGIC_US,
                       2, 4, 0, 0, snaplen, 1)


def write_pcap(path, records, nanosecond=True, snaplen=65535):
    """records: iterable of (data, wire_len); stamped 1 us apart."""
    with open(path, "wb") as f:
        f.write(pcap_header(nanosecond, snaplen))
        for i, (data, wirelen) in enumerate(records):
            ns = i * 1000
            frac = ns % 1000000000 if nanosecond else (ns // 1000) % 1000000
            f.write(struct.pack("<IIII", ns // 1000000000, frac, len(data),
                                wirelen))
            f.write(data)


# ---- frame decoding ----

def ip_checksum_ok(hdr):
    if len(hdr) % 2:
        return False
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


class Frame:
    """The fields of an Ethernet/IPv4/UDP(/BTH) frame the tests look at."""

    def __init__(self, data):
        self.data = data
        self.dst_mac = data[0:6]
        self.src_mac = data[6:12]
        etype = struct.unpack("!H", data[12:14])[0]
        l3 = 14
        if etype == ETH_VLAN:
            etype = struct.unpack("!H", data[16:18])[0]
            l3 = 18
        self.etype = etype
        self.l3 = l3
        self.is_ipv4 = etype == ETH_IPV4 and len(data) >= l3 + 20
        if not self.is_ipv4:
            return
        ip = data[l3:]
        ihl = (ip[0] & 0xF) * 4
        self.ihl = ihl
        self.tos = ip[1]
        self.ecn = ip[1] & 3
        self.ttl = ip[8]
        self.proto = ip[9]
        self.src = ip[12:16]
        self.dst = ip[16:20]
        self.csum_ok = ip_checksum_ok(ip[:ihl])
        l4 = ip[ihl:]
        self.sport = self.dport = 0
        if self.proto in (6, 17) and len(l4) >= 4:
            self.sport, self.dport = struct.unpack("!HH", l4[:4])
        self.opcode = None
        if self.proto == 17 and self.dport == ROCEV2_PORT and len(l4) >= 9:
            self.opcode = l4[8]

    def five_tuple(self):
        return (self.src, self.dst, self.proto, self.sport, self.dport)

    def kind(self):
        return "ack" if self.opcode == BTH_OP_RC_ACK else "data"

    def invariant(self):
        """The frame without what a router may change: MACs, TTL, ECN,
        checksum."""
        ip = bytearray(self.data[self.l3:])
        ip[1] &= 0xFC
        ip[8] = 0
        ip[10] = ip[11] = 0
        return bytes(self.data[12:self.l3]) + bytes(ip)


def mac_bytes(s):
    return bytes(int(x, 16) for x in s.split(":"))


def mac_str(b):
    return ":".join("%02x" % x for x in b)


def ip_str(b):
    return ".".join(str(x) for x in b)


# ---- commands ----

def cmd_merge(a):
    inputs = [read_pcap(p)[2] for p in a.inputs]
    out = []
    for i in range(max(len(x) for x in inputs)):
        for frames in inputs:
            if i < len(frames):
                out.append((frames[i][3], frames[i][2]))
    write_pcap(a.out, out)
    print(len(out))
    return 0


def cmd_count(a):
    print(len(read_pcap(a.file)[2]))
    return 0


def load_json(path):
    with open(path) as f:
        return json.load(f)


def cmd_json(a):
    j = load_json(a.file)
    v = eval(a.expr, {"j": j})
    if isinstance(v, bool):
        v = int(v)
    print(json.dumps(v) if isinstance(v, (dict, list)) else v)
    return 0


def check_json_totals(c, j, nb_in, in_port):
    """A lossless replay: every packet in went out, no drop, no leak."""
    ports = j["ports"]
    c.eq(ports[in_port]["rx"], nb_in, "port %d rx (input frames)" % in_port)
    c.eq(sum(p["tx"] for p in ports), nb_in, "sum of tx over all ports")
    bad = {k: v for k, v in j["drops"].items() if v != 0}
    c.check(not bad, "no drop counted (non-zero: %s)" % (bad or "none"))
    c.check(all(p["rx_drops"] == 0 and p["drop"] == 0 for p in ports),
            "no per-port rx_drops / drop")
    c.eq(j["mempool_in_use_end"], j["mempool_in_use_start"],
         "mempool_in_use_end (== start)")


def cmd_forward(a):
    """
    Golden replay: the frames of --in went out of the --uplink ports.
    --uplink PORT=FILE,PEER_MAC,SRC_MAC per uplink.  Checks the JSON totals,
    each output pcap against the JSON tx count, every output frame against
    its input frame (MACs, TTL - 1, checksum, unchanged otherwise), the
    policy's own property and the per-port counts against --golden.
    """
    c = Checker(a.policy)
    j = load_json(a.json)
    inp = [Frame(f[3]) for f in read_pcap(a.input)[2]]
    c.eq(j["policy"], a.policy, "JSON policy")
    check_json_totals(c, j, len(inp), a.in_port)

    want = collections.Counter(f.invariant() for f in inp)
    ttl_in = {f.invariant(): f.ttl for f in inp}
    per_port = {}
    bad_mac = bad_ttl = bad_csum = unknown = 0
    for spec in a.uplink:
        port_s, rest = spec.split("=", 1)
        path, peer, src = rest.split(",")
        port = int(port_s)
        frames = [Frame(f[3]) for f in read_pcap(path)[2]]
        per_port[port] = frames
        c.eq(len(frames), j["ports"][port]["tx"],
             "frames in port %d's pcap (JSON tx)" % port)
        for f in frames:
            if f.dst_mac != mac_bytes(peer) or f.src_mac != mac_bytes(src):
                bad_mac += 1
            if not f.is_ipv4:
                unknown += 1
                continue
            if not f.csum_ok:
                bad_csum += 1
            k = f.invariant()
            if want[k] <= 0:
                unknown += 1
                continue
            want[k] -= 1
            if f.ttl != ttl_in[k] - 1:
                bad_ttl += 1
    c.eq(bad_mac, 0, "frames whose dst MAC is not the port's peer_mac or "
         "src MAC not the port's mac")
    c.eq(bad_ttl, 0, "frames whose TTL is not input TTL - 1")
    c.eq(bad_csum, 0, "frames with a bad IPv4 header checksum")
    c.eq(unknown, 0, "frames that match no input frame (payload changed "
         "or duplicated)")
    c.eq(sum(want.values()), 0, "input frames missing from the outputs")

    # Policy properties.
    uplinks = sorted(per_port)
    if a.policy == "ecmp":
        where = collections.defaultdict(set)
        for port, frames in per_port.items():
            for f in frames:
                where[f.five_tuple()].add(port)
        split = [t for t, ps in where.items() if len(ps) != 1]
        c.check(not split, "each of %d flows on exactly one port "
                "(%d split)" % (len(where), len(split)))
        c.check(len(set(p for ps in where.values() for p in ps)) > 1,
                "flows hashed onto more than one uplink")
    if a.policy == "ofan":
        counts = collections.defaultdict(collections.Counter)
        for port, frames in per_port.items():
            for f in frames:
                counts[(f.dst[:3], f.kind())][port] += 1
        for (key, kind), cnt in sorted(counts.items()):
            v = [cnt[p] for p in uplinks]
            c.check(max(v) - min(v) <= 1,
                    "%s.0/24 %s per port %s differ by <= 1" %
                    (ip_str(key), kind, v))
    if a.policy in ("spray", "rr", "ofan"):
        empty = [p for p in uplinks if not per_port[p]]
        c.check(not empty, "every uplink got traffic (empty: %s)" %
                (empty or "none"))

    # Golden per-port counts.
    lines = []
    for p in uplinks:
        n_ack = sum(1 for f in per_port[p] if f.kind() == "ack")
        lines.append("port %d tx %d data %d ack %d" %
                     (p, len(per_port[p]), len(per_port[p]) - n_ack, n_ack))
    if a.golden:
        if a.regold:
            with open(a.golden, "w") as f:
                f.write("# ofan-switch golden replay, policy %s: frames out "
                        "of each uplink.\n# Written by "
                        "tests/eal/switch-golden.sh with OFAN_REGOLD=1.\n" %
                        a.policy)
                f.write("\n".join(lines) + "\n")
            print("regold: wrote %s" % a.golden)
        with open(a.golden) as f:
            gold = [ln.strip() for ln in f
                    if ln.strip() and not ln.startswith("#")]
        c.check(gold == lines, "per-port counts %s match %s%s" %
                (lines, a.golden, "" if gold == lines else
                 " (golden: %s)" % gold))
    return c.status()


def cmd_drops(a):
    """JSON drops: exactly the CSV's reasons plus --extra, zero elsewhere."""
    c = Checker("drops")
    j = load_json(a.json)
    want = collections.Counter()
    with open(a.csv) as f:
        rows = [ln.strip().split(",") for ln in f if ln.strip()]
    if rows[0] != ["reason", "count"]:
        print("FAIL: drops: %s has no 'reason,count' header" % a.csv)
        return 2
    for reason, n in rows[1:]:
        if reason != "good":
            want[reason] += int(n)
    for e in a.extra or []:
        reason, n = e.split("=")
        want[reason] += int(n)
    for reason in want:
        c.check(reason in j["drops"], "JSON has drop reason %s" % reason)
    for reason, got in sorted(j["drops"].items()):
        c.eq(got, want.get(reason, 0), "drops.%s" % reason)
    return c.status()


def cmd_ecn(a):
    """Print 'frames ce not_ect first_ce last_unmarked bad_csum'."""
    frames = [Frame(f[3]) for f in read_pcap(a.file)[2]]
    ce = [i for i, f in enumerate(frames) if f.is_ipv4 and f.ecn == 3]
    notect = sum(1 for f in frames if f.is_ipv4 and f.ecn == 0)
    bad = sum(1 for f in frames if not f.is_ipv4 or not f.csum_ok)
    print(len(frames), len(ce), notect, ce[0] if ce else -1, bad)
    return 0


def cmd_arp_reply(a):
    c = Checker("arp")
    frames = read_pcap(a.file)[2]
    c.eq(len(frames), 1, "frames in %s" % a.file)
    if frames:
        d = frames[0][3]
        c.eq(struct.unpack("!H", d[12:14])[0], ETH_ARP, "EtherType")
        if len(d) >= 42:
            c.eq(struct.unpack("!H", d[20:22])[0], 2, "ARP oper (reply)")
            c.eq(mac_str(d[22:28]), a.sha.lower(), "ARP sender MAC")
            c.eq(ip_str(d[28:32]), a.spa, "ARP sender IP")
            c.eq(mac_str(d[6:12]), a.sha.lower(), "Ethernet source")
    return c.status()


def cmd_mixed(a):
    """
    Frames a switch port meets in the wild, most not RoCE: IPv6, 802.1Q
    IPv4, TCP, ICMP, LLDP and other EtherTypes, frames cut by a small
    snaplen, a jumbo frame, broadcast junk.  Routed ones go to --dst.
    """
    from scapy.all import (ARP, ICMP, IP, IPv6, TCP, UDP, Dot1Q, Ether,
                           Raw, ICMPv6EchoRequest)
    from scapy.contrib.lldp import (LLDPDU, LLDPDUChassisID, LLDPDUPortID,
                                    LLDPDUTimeToLive, LLDPDUEndOfLLDPDU)
    src, dst = "10.0.0.1", a.dst
    eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    bth = bytes([0x04, 0, 0xFF, 0xFF, 0, 0, 0, 1, 0, 0, 0, 0]) + bytes(64)
    pkts = [
        eth / IP(src=src, dst=dst, tos=2) / UDP(sport=50000, dport=4791) /
        Raw(bth),
        eth / IPv6(src="fd00::1", dst="fd00::2") / UDP(sport=1, dport=2) /
        Raw(b"v6" * 20),
        eth / IPv6(src="fd00::1", dst="fd00::2") / ICMPv6EchoRequest(),
        eth / Dot1Q(vlan=100) / IP(src=src, dst=dst) /
        UDP(sport=50001, dport=4791) / Raw(bth),
        eth / Dot1Q(vlan=101) / IP(src=src, dst=dst) /
        TCP(sport=1234, dport=80, flags="S"),
        eth / Dot1Q(vlan=102) / Dot1Q(vlan=7) / IP(src=src, dst=dst) /
        UDP(),
        eth / IP(src=src, dst=dst) / TCP(sport=40000, dport=443,
                                        flags="PA") / Raw(b"x" * 300),
        eth / IP(src=src, dst=dst) / ICMP() / Raw(b"ping" * 8),
        eth / IP(src=src, dst="192.0.2.1") / ICMP(),
        eth / IP(src=src, dst=dst, flags="MF", frag=0) / UDP(dport=4791) /
        Raw(b"f" * 100),
        eth / IP(src=src, dst=dst, frag=100) / Raw(b"g" * 60),
        eth / IP(src=src, dst=dst, ttl=1) / UDP(dport=53),
        Ether(src="02:00:00:00:00:01", dst="01:80:c2:00:00:0e") /
        LLDPDU() / LLDPDUChassisID(subtype=4, id="02:00:00:00:00:01") /
        LLDPDUPortID(subtype=5, id="eth0") / LLDPDUTimeToLive(ttl=120) /
        LLDPDUEndOfLLDPDU(),
        Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff",
              type=0x88CC) / Raw(b"\x00" * 46),
        Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff",
              type=0x8847) / Raw(b"\x00" * 46),
        Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") /
        ARP(op=1, psrc=src, pdst="10.0.0.99"),
        eth / IP(src=src, dst=dst) / UDP(sport=50002, dport=4791) /
        Raw(bth + bytes(8900)),
        eth / IP(src=src, dst=dst) / TCP(sport=5, dport=6) /
        Raw(b"j" * 8900),
    ]
    records = [(bytes(p), len(bytes(p))) for p in pkts]
    # Frames cut by a capture snaplen: caplen < wire length.
    for p in (eth / IP(src=src, dst=dst) / UDP(dport=4791) / Raw(bth),
              eth / Dot1Q(vlan=5) / IP(src=src, dst=dst) / TCP() /
              Raw(b"t" * 200),
              eth / IPv6() / Raw(b"6" * 200)):
        raw = bytes(p)
        for cut in (10, 20, 34, 40, 54):
            records.append((raw[:cut], len(raw)))
    records.append((b"", 60))
    write_pcap(a.out, records, nanosecond=False, snaplen=65535)
    print(len(records))
    return 0


def cmd_telemetry(a):
    """dpdk-telemetry.py prints one JSON reply per line; pick CMD's."""
    with open(a.reply) as f:
        for ln in f:
            ln = ln.strip()
            if not ln.startswith("{"):
                continue
            r = json.loads(ln)
            if a.command in r:
                v = eval(a.expr, {"j": r[a.command]})
                if isinstance(v, bool):
                    v = int(v)
                print(json.dumps(v) if isinstance(v, (dict, list)) else v)
                return 0
    print("pcapcheck: no reply to %s in %s" % (a.command, a.reply),
          file=sys.stderr)
    return 2


def cmd_dscp(a):
    """Tag a pcap: set the DSCP of every IPv4 frame, keep ECN, fix the
    header checksum.  Prints the number of frames written."""
    if not 0 <= a.value < 64:
        raise ValueError("DSCP %d is out of range 0..63" % a.value)
    header, endian, frames = read_pcap(a.input)
    nanosecond = struct.unpack(endian + "I", header[:4])[0] == MAGIC_NS
    out = []
    for _, _, wirelen, data in frames:
        f = Frame(data)
        if f.is_ipv4:
            d = bytearray(data)
            l3 = f.l3
            d[l3 + 1] = (a.value << 2) | (d[l3 + 1] & 3)
            d[l3 + 10] = d[l3 + 11] = 0
            hdr = bytes(d[l3:l3 + f.ihl])
            s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
            while s >> 16:
                s = (s & 0xFFFF) + (s >> 16)
            struct.pack_into("!H", d, l3 + 10, ~s & 0xFFFF)
            data = bytes(d)
        out.append((data, wirelen))
    write_pcap(a.out, out, nanosecond)
    print(len(out))
    return 0


def cmd_multicore(a):
    """
    A replay with several input ports, each polled by its own forwarding
    lcore.  --in PORT=FILE per input port, --uplink PORT=FILE,PEER,SRC per
    uplink.  Checks the JSON totals (every input frame forwarded, nothing
    dropped or leaked), each uplink's pcap against its JSON tx count, and
    every output frame against an input frame (MACs, TTL - 1, checksum,
    unchanged otherwise).  An output frame's origin is the input port whose
    file holds it (the inputs must differ in something a router keeps,
    e.g. the DSCP, so that no frame is in two inputs).  Then the policy:
      ecmp: each 5-tuple leaves by exactly one uplink, including the flows
            that arrive on several input ports, i.e. at several lcores
            (--shared-flows: how many such flows the inputs must hold);
      ofan: per destination /24 and kind (data, ACK), the counts per uplink
            differ by at most one per lcore: <= 1 for the frames of each
            input port alone, <= the number of input ports sending to the
            destination for all frames together;
      spray, ofan: every uplink carries traffic.
    """
    c = Checker(a.policy)
    j = load_json(a.json)
    c.eq(j["policy"], a.policy, "JSON policy")
    ports = j["ports"]
    origin = {}
    ttl_in = {}
    want = collections.Counter()
    flows_at = collections.defaultdict(set)
    dst_at = collections.defaultdict(set)
    nb_in = 0
    for spec in a.input:
        port_s, path = spec.split("=", 1)
        port = int(port_s)
        frames = [Frame(f[3]) for f in read_pcap(path)[2]]
        nb_in += len(frames)
        c.eq(ports[port]["rx"], len(frames),
             "port %d rx (frames of its input pcap)" % port)
        for f in frames:
            k = f.invariant()
            want[k] += 1
            ttl_in[k] = f.ttl
            origin.setdefault(k, set()).add(port)
            flows_at[f.five_tuple()].add(port)
            dst_at[(f.dst[:3], f.kind())].add(port)
    ambiguous = sum(1 for o in origin.values() if len(o) != 1)
    c.eq(ambiguous, 0, "frames found in more than one input pcap")
    c.eq(sum(p["tx"] for p in ports), nb_in, "sum of tx over all ports")
    bad = {k: v for k, v in j["drops"].items() if v != 0}
    c.check(not bad, "no drop counted (non-zero: %s)" % (bad or "none"))
    c.check(all(p["rx_drops"] == 0 and p["drop"] == 0 for p in ports),
            "no per-port rx_drops / drop")
    c.eq(j["mempool_in_use_end"], j["mempool_in_use_start"],
         "mempool_in_use_end (== start)")

    per_port = {}
    bad_mac = bad_ttl = bad_csum = unknown = 0
    for spec in a.uplink:
        port_s, rest = spec.split("=", 1)
        path, peer, src = rest.split(",")
        port = int(port_s)
        frames = [Frame(f[3]) for f in read_pcap(path)[2]]
        per_port[port] = frames
        c.eq(len(frames), ports[port]["tx"],
             "frames in port %d's pcap (JSON tx)" % port)
        for f in frames:
            if f.dst_mac != mac_bytes(peer) or f.src_mac != mac_bytes(src):
                bad_mac += 1
            if not f.is_ipv4:
                unknown += 1
                continue
            if not f.csum_ok:
                bad_csum += 1
            k = f.invariant()
            if want[k] <= 0:
                unknown += 1
                continue
            want[k] -= 1
            if f.ttl != ttl_in[k] - 1:
                bad_ttl += 1
    c.eq(bad_mac, 0, "frames whose dst MAC is not the port's peer_mac or "
         "src MAC not the port's mac")
    c.eq(bad_ttl, 0, "frames whose TTL is not input TTL - 1")
    c.eq(bad_csum, 0, "frames with a bad IPv4 header checksum")
    c.eq(unknown, 0, "frames that match no input frame (payload changed "
         "or duplicated)")
    c.eq(sum(want.values()), 0, "input frames missing from the outputs")

    uplinks = sorted(per_port)
    print("    frames per uplink %s: %s" %
          (uplinks, [len(per_port[p]) for p in uplinks]))
    if a.policy == "ecmp":
        where = collections.defaultdict(set)
        for port, frames in per_port.items():
            for f in frames:
                where[f.five_tuple()].add(port)
        split = [t for t, ps in where.items() if len(ps) != 1]
        c.check(not split, "each of %d flows on exactly one uplink "
                "(%d split)" % (len(where), len(split)))
        shared = [t for t, ins in flows_at.items() if len(ins) > 1]
        if a.shared_flows is not None:
            c.eq(len(shared), a.shared_flows,
                 "flows arriving on more than one input port (lcore)")
        split_shared = [t for t in shared if len(where[t]) != 1]
        c.check(bool(shared) and not split_shared,
                "each of the %d flows seen by several lcores on exactly "
                "one uplink (%d split)" % (len(shared), len(split_shared)))
        c.check(len(set(p for ps in where.values() for p in ps)) > 1,
                "flows hashed onto more than one uplink")
    if a.policy == "ofan":
        total = collections.defaultdict(collections.Counter)
        by_in = collections.defaultdict(collections.Counter)
        for port, frames in per_port.items():
            for f in frames:
                key = (f.dst[:3], f.kind())
                total[key][port] += 1
                for o in origin.get(f.invariant(), ()):
                    by_in[(o,) + key][port] += 1
        for (o, dst, kind), cnt in sorted(by_in.items()):
            v = [cnt[p] for p in uplinks]
            c.check(max(v) - min(v) <= 1,
                    "from input port %d: %s.0/24 %s per uplink %s differ "
                    "by %d <= 1 (one lcore)" %
                    (o, ip_str(dst), kind, v, max(v) - min(v)))
        for (dst, kind), cnt in sorted(total.items()):
            v = [cnt[p] for p in uplinks]
            bound = len(dst_at[(dst, kind)])
            c.check(max(v) - min(v) <= bound,
                    "all inputs: %s.0/24 %s per uplink %s differ by %d "
                    "<= %d (one per lcore sending to it)" %
                    (ip_str(dst), kind, v, max(v) - min(v), bound))
    if a.policy in ("spray", "rr", "ofan"):
        empty = [p for p in uplinks if not per_port[p]]
        c.check(not empty, "every uplink got traffic (empty: %s)" %
                (empty or "none"))
    return c.status()


BTH_MARK_TRIMMED = 0x01
PFC_DST = bytes([0x01, 0x80, 0xc2, 0x00, 0x00, 0x01])


def cmd_trim(a):
    """Trimmed frames out of a trimming port, byte by byte: each is an
    input frame cut after its BTH -- Ethernet to the out port's MACs, IPv4
    total length 40 and a valid checksum, TTL - 1, UDP length 20 and
    checksum 0, the BTH as sent but for the trimmed mark -- and every
    other output frame is an input frame whole.  Prints 'full trimmed'."""
    c = Checker("trim")
    inputs = {}
    for rec in read_pcap(a.input)[2]:
        f = Frame(rec[3])
        l4 = f.l3 + f.ihl
        inputs[rec[3][l4 + 8 + 5:l4 + 8 + 12]] = rec[3]  # QP and PSN
    full = trimmed = 0
    mac = mac_bytes(a.peer_mac) + mac_bytes(a.mac)
    for rec in read_pcap(a.out)[2]:
        d = rec[3]
        f = Frame(d)
        if not c.check(f.is_ipv4 and f.opcode is not None,
                       "output frame %d is RoCEv2" % (full + trimmed)):
            continue
        l4 = f.l3 + f.ihl
        bth = l4 + 8
        src = inputs.get(d[bth + 5:bth + 12])
        if not c.check(src is not None, "output frame's QP/PSN was sent"):
            continue
        if d[bth + 4] & BTH_MARK_TRIMMED == 0:
            full += 1
            if len(d) != len(src):
                c.check(False, "an unmarked frame is whole")
            continue
        trimmed += 1
        want = bytearray(src[:bth + 12])
        want[0:12] = mac
        ip = f.l3
        struct.pack_into("!H", want, ip + 2, f.ihl + 8 + 12)
        want[ip + 8] -= 1
        struct.pack_into("!H", want, ip + 10, 0)
        s_ = sum(struct.unpack("!%dH" % (f.ihl // 2),
                               bytes(want[ip:ip + f.ihl])))
        while s_ >> 16:
            s_ = (s_ & 0xFFFF) + (s_ >> 16)
        struct.pack_into("!H", want, ip + 10, ~s_ & 0xFFFF)
        struct.pack_into("!HH", want, l4 + 4, 20, 0)
        want[bth + 4] |= BTH_MARK_TRIMMED
        if trimmed == 1:
            c.eq(len(d), bth + 12, "first trimmed frame's length (headers)")
            c.check(f.csum_ok, "first trimmed frame's IPv4 checksum")
            c.check(bytes(d) == bytes(want),
                    "first trimmed frame = its input's headers, "
                    "rewritten and marked")
        elif bytes(d) != bytes(want):
            c.check(False, "trimmed frame %d as expected" % trimmed)
    c.check(trimmed > 0, "trimmed frames in %s (%d)" % (a.out, trimmed))
    print(full, trimmed)
    return c.status()


def pfc_frame(src, cev, quanta):
    body = struct.pack("!HH", 0x0101, cev)
    body += b"".join(struct.pack("!H", quanta if cev >> p & 1 else 0)
                     for p in range(8))
    return (PFC_DST + mac_bytes(src) + struct.pack("!H", 0x8808) +
            body).ljust(60, b"\0")


def cmd_pfc_gen(a):
    """Write PFC frames: each --frame is CEV:QUANTA (CEV a bit mask)."""
    recs = []
    for spec in a.frame:
        cev, quanta = (int(x, 0) for x in spec.split(":"))
        recs.append((pfc_frame(a.src, cev, quanta), 60))
    write_pcap(a.out, recs)
    return 0


def cmd_pfc(a):
    """Print each PFC frame of a pcap as SRC:CEV:QUANTA(priority 3), and
    check it is 802.1Qbb from --src: 60 bytes, 01:80:c2:00:00:01, 0x8808,
    opcode 0x0101."""
    out = []
    bad = 0
    for rec in read_pcap(a.file)[2]:
        d = rec[3]
        if struct.unpack("!H", d[12:14])[0] != 0x8808:
            continue
        if not (len(d) == 60 and d[:6] == PFC_DST and
                d[6:12] == mac_bytes(a.src) and d[14:16] == b"\x01\x01"):
            print("pcapcheck: pfc: frame %d is not 802.1Qbb from %s" %
                  (len(out), a.src), file=sys.stderr)
            bad += 1
        cev = struct.unpack("!H", d[16:18])[0]
        out.append("%d:%d" % (cev, struct.unpack("!H", d[18 + 6:20 + 6])[0]))
    print(" ".join(out))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("merge")
    p.add_argument("out")
    p.add_argument("inputs", nargs="+")
    p.set_defaults(fn=cmd_merge)
    p = sub.add_parser("count")
    p.add_argument("file")
    p.set_defaults(fn=cmd_count)
    p = sub.add_parser("json")
    p.add_argument("file")
    p.add_argument("expr")
    p.set_defaults(fn=cmd_json)
    p = sub.add_parser("forward")
    p.add_argument("--in", dest="input", required=True)
    p.add_argument("--in-port", type=int, default=0)
    p.add_argument("--json", required=True)
    p.add_argument("--policy", required=True)
    p.add_argument("--uplink", action="append", required=True)
    p.add_argument("--golden")
    p.add_argument("--regold", action="store_true")
    p.set_defaults(fn=cmd_forward)
    p = sub.add_parser("drops")
    p.add_argument("--json", required=True)
    p.add_argument("--csv", required=True)
    p.add_argument("--extra", action="append")
    p.set_defaults(fn=cmd_drops)
    p = sub.add_parser("ecn")
    p.add_argument("file")
    p.set_defaults(fn=cmd_ecn)
    p = sub.add_parser("arp-reply")
    p.add_argument("file")
    p.add_argument("spa")
    p.add_argument("sha")
    p.set_defaults(fn=cmd_arp_reply)
    p = sub.add_parser("mixed")
    p.add_argument("out")
    p.add_argument("--dst", default="10.1.0.1")
    p.set_defaults(fn=cmd_mixed)
    p = sub.add_parser("telemetry")
    p.add_argument("reply")
    p.add_argument("command")
    p.add_argument("expr")
    p.set_defaults(fn=cmd_telemetry)
    p = sub.add_parser("dscp")
    p.add_argument("input")
    p.add_argument("out")
    p.add_argument("value", type=int)
    p.set_defaults(fn=cmd_dscp)
    p = sub.add_parser("multicore")
    p.add_argument("--in", dest="input", action="append", required=True)
    p.add_argument("--json", required=True)
    p.add_argument("--policy", required=True)
    p.add_argument("--uplink", action="append", required=True)
    p.add_argument("--shared-flows", type=int)
    p.set_defaults(fn=cmd_multicore)
    p = sub.add_parser("trim")
    p.add_argument("--in", dest="input", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--mac", required=True)
    p.add_argument("--peer-mac", required=True)
    p.set_defaults(fn=cmd_trim)
    p = sub.add_parser("pfc-gen")
    p.add_argument("out")
    p.add_argument("--src", required=True)
    p.add_argument("--frame", action="append", required=True)
    p.set_defaults(fn=cmd_pfc_gen)
    p = sub.add_parser("pfc")
    p.add_argument("file")
    p.add_argument("--src", required=True)
    p.set_defaults(fn=cmd_pfc)
    a = ap.parse_args()
    try:
        return a.fn(a)
    except (OSError, ValueError, KeyError, IndexError) as e:
        print("pcapcheck: %s: %s" % (a.cmd, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
