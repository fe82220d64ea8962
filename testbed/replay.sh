#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# replay.sh: replay a capture through ofan-switch and say where every frame
# went.
#
# The capture is fed into port 0 of one ofan-switch (net_pcap rx_pcap) and
# every port writes what it sends to its own pcap (net_pcap tx_pcap).  The
# switch configuration (default configs/pcap-replay.ini) decides where
# packets go: its routes, groups and policy.  The script copies it with
# every port's `dev` replaced by a net_pcap device (port 0 reads the
# capture; each port N writes portN.pcap) and, with --policy or --policies,
# the policy replaced; nothing else changes.  ofan-switch runs with
# --no-huge --no-pci (no NIC, no hugepages), stops once the capture is
# exhausted and the queues are empty (--stop-when-idle), and writes its
# statistics (--stats-json).  Policies run one after the other, never two
# switches at once.
#
# For each policy the report gives: frames in the file and frames port 0
# received; per port the frames it sent (JSON tx) and the frames in its
# pcap; ARP replies; ICMP time-exceeded replies (to expired TTLs, which
# also count as ttl_expired drops); frames forwarded; and every drop by its named reason
# (not_ipv4, runt, bad_total_length, no_route, ...).  Any real capture
# works: non-IPv4 (IPv6, LLDP, MPLS), 802.1Q (one tag is parsed through),
# frames cut short by a snaplen, runts and jumbo frames are counted, never
# crash the switch.  Only the link type must be Ethernet.
#
# A limit of DPDK's net_pcap, not of ofan-switch: a forwarded frame of more
# than 16128 bytes (e.g. a 64 KB GRO/TSO frame captured on a host) is
# written to the output pcap cut to 16128 bytes, its original length kept
# in the record; the report says so when the capture has such frames.
#
# Output, per policy P: DIR/P/portN.pcap, DIR/P/stats.json (ofan-switch's
# JSON), DIR/P/switch.ini (the configuration that ran), DIR/P/switch.log;
# and DIR/report.txt (what was printed).  Exit status 0 when every run
# exited cleanly and accounted for every frame (port 0 rx = frames sent +
# frames dropped), 1 otherwise, 2 on a usage or input error.
set -euo pipefail

prog=$(basename "$0")
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=testbed/lib.sh
. "$root/testbed/lib.sh"

usage() {
	cat <<EOF
usage: $prog PCAP [options]

Replay PCAP (pcap or pcapng, Ethernet) into port 0 of ofan-switch, write
every port's egress to its own pcap and report per port and per drop reason.

  --policy P          run with policy P (ofan-switch --help lists them)
  --policies LIST     comma-separated policies, or 'all' (every policy, one
                      run each); default: the config's own policy
  --config FILE       switch configuration (default
                      configs/pcap-replay.ini); every [port.N] dev is
                      replaced by a net_pcap device, the rest is used as is
  --out DIR           where results go (default results/replay): DIR/P/ per
                      policy, DIR/report.txt
  --idle SEC          stop once nothing was received for SEC seconds and
                      the queues are empty (default 0.5)
  --lcore N           the lcore ofan-switch runs on (default 0)
  --build-dir DIR     where ofan-switch is built (default build; see
                      scripts/build.sh)
  --help              this text

Examples:
  $prog trace.pcap
  $prog trace.pcapng --policies all --out /tmp/replay
  $prog trace.pcap --config my-switch.ini --policy ecmp
EOF
}

pcap=
policies=
config=$root/configs/pcap-replay.ini
out_dir=$root/results/replay
idle=0.5
lcore=0
build_dir=$root/build

while [ $# -gt 0 ]; do
	case $1 in
	--policy) need_arg "$1" $#; policies=$2; shift ;;
	--policies) need_arg "$1" $#; policies=$2; shift ;;
	--config) need_arg "$1" $#; config=$2; shift ;;
	--out) need_arg "$1" $#; out_dir=$2; shift ;;
	--idle) need_arg "$1" $#; idle=$2; shift ;;
	--lcore) need_arg "$1" $#; lcore=$2; shift ;;
	--build-dir) need_arg "$1" $#; build_dir=$2; shift ;;
	--version) exec "$(dirname "$0")/../scripts/version.sh" "$0" ;;
	--help | -h) usage; exit 0 ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*)
		[ -z "$pcap" ] || die "one capture at a time ('$pcap' and '$1')"
		pcap=$1
		;;
	esac
	shift
done

[ -n "$pcap" ] || die "no capture given; usage: $prog PCAP [options] (see --help)"
[ -e "$pcap" ] || die "$pcap: no such file; give the path of a pcap or pcapng capture"
[ -f "$pcap" ] || die "$pcap: not a regular file; give the path of a pcap or pcapng capture"
[ -r "$pcap" ] || die "$pcap: cannot be read"
[ -f "$config" ] || die "$config: no such switch configuration (--config)"
switch=$build_dir/switch/ofan-switch
[ -x "$switch" ] ||
	die "ofan-switch is not built ($switch); run scripts/build.sh or pass --build-dir DIR"
# Every policy the switch has: its --help lists them.
mapfile -t ALL_POLICIES < <(switch_policies "$switch")
[ ${#ALL_POLICIES[@]} -gt 0 ] || die "$switch --help lists no policies"
[[ $idle =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--idle '$idle': expected seconds, e.g. 0.5"
[[ $lcore =~ ^[0-9]+$ ]] || die "--lcore '$lcore': expected an lcore id"
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3 || true)
[ -n "$py" ] || die "python3 is needed for the report (scripts/install-deps.sh)"

# The configuration's own policy: [switch] policy = NAME.
config_policy() {
	awk '
	/^[ \t]*\[/ {
		s = tolower($0); gsub(/[][ \t\r]/, "", s); sub(/;.*/, "", s)
		sec = s; next
	}
	sec == "switch" && tolower($0) ~ /^[ \t]*policy[ \t]*=/ {
		v = $0; sub(/^[^=]*=/, "", v); sub(/[;#].*/, "", v)
		gsub(/[ \t\r]/, "", v); print v; exit
	}' "$1"
}

case $policies in
'') policies=$(config_policy "$config")
    [ -n "$policies" ] || die "$config: no [switch] policy; pass --policy P"
    policy_override=0 ;;
all) policies=$(IFS=,; echo "${ALL_POLICIES[*]}"); policy_override=1 ;;
*) policy_override=1 ;;
esac
IFS=, read -ra policy_list <<<"$policies"
[ ${#policy_list[@]} -gt 0 ] || die "--policies is empty"
for p in "${policy_list[@]}"; do
	[[ $p =~ ^[a-z_]+$ ]] ||
		die "policy '$p': expected one of ${ALL_POLICIES[*]} (or --policies all)"
done

# Ports of the configuration: the N of every [port.N].
mapfile -t ports < <(awk '
	/^[ \t]*\[/ {
		s = tolower($0); sub(/;.*/, "", s); gsub(/[][ \t\r]/, "", s)
		if (s ~ /^port\.[0-9]+$/) print substr(s, 6) + 0
	}' "$config" | sort -n)
[ ${#ports[@]} -gt 0 ] || die "$config: no [port.N] section"
printf '%s\n' "${ports[@]}" | grep -qx 0 ||
	die "$config: no [port.0] section (the port the capture is fed into)"

# ---- the report's helper (Python standard library only) ----

report_py() {
	cat <<'EOF'
import json, os, struct, sys

LINKTYPES = {0: "BSD loopback", 101: "raw IP", 105: "802.11",
             113: "Linux cooked (capture on 'any')", 127: "radiotap",
             228: "raw IPv4", 276: "Linux cooked v2 (capture on 'any')"}
NET_PCAP_TX_MAX = 16128   # longer multi-segment frames are written cut


def records(path):
    """Yield (caplen, wirelen) of every record, ("link", type) of every
    interface, ("cut", 0) if the file ends inside a record; headers only
    are read, so a capture of any size streams.  Raise ValueError."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(24)
        if head[:2] == b"\x1f\x8b":
            raise ValueError("gzip-compressed; gunzip it first")
        if len(head) < 24:
            raise ValueError("%d bytes, too short for a capture" % len(head))
        if head[:4] == b"\x0a\x0d\x0d\x0a":
            f.seek(0)
            yield from pcapng_records(f, size)
            return
        for e in "<>":
            if struct.unpack(e + "I", head[:4])[0] in (0xA1B2C3D4,
                                                       0xA1B23C4D):
                break
        else:
            raise ValueError("neither pcap nor pcapng (magic %s)" %
                             head[:4].hex())
        yield ("link", struct.unpack(e + "I", head[20:24])[0] & 0xFFFF)
        off = 24
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                if rec:
                    yield ("cut", 0)
                return
            _, _, cap, wire = struct.unpack(e + "IIII", rec)
            off += 16 + cap
            if off > size:
                yield ("cut", 0)
                return
            yield (cap, wire)
            f.seek(off)


def pcapng_records(f, size):
    off, e = 0, "<"
    while True:
        hdr = f.read(12)
        if len(hdr) < 12:
            if hdr:
                yield ("cut", 0)
            return
        if hdr[:4] == b"\x0a\x0d\x0d\x0a":
            e = "<" if hdr[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
        btype, blen = struct.unpack(e + "II", hdr[:8])
        if blen < 12 or off + blen > size:
            yield ("cut", 0)
            return
        body = hdr[8:] + f.read(min(blen - 12, 20))
        if btype == 1:                      # interface description
            yield ("link", struct.unpack(e + "H", body[:2])[0])
        elif btype in (2, 6) and len(body) >= 20:   # (enhanced) packet
            yield struct.unpack(e + "II", body[12:20])
        elif btype == 3 and len(body) >= 4:     # simple packet
            wire = struct.unpack(e + "I", body[:4])[0]
            yield (min(wire, blen - 16), wire)
        off += blen
        f.seek(off)


def inspect(path):
    """Frames in a capture and what is odd about them."""
    s = {"frames": 0, "short": 0, "over_tx": 0, "links": [],
         "cut": False}
    for cap, wire in records(path):
        if cap == "link":
            s["links"].append(wire)
        elif cap == "cut":
            s["cut"] = True
        else:
            s["frames"] += 1
            s["short"] += cap < wire
            s["over_tx"] += cap > NET_PCAP_TX_MAX
    return s


def cmd_check(path):
    """Exit 2 with a hint if ofan-switch cannot replay the capture."""
    try:
        s = inspect(path)
    except (OSError, ValueError) as e:
        print("%s: %s" % (path, e))
        return 2
    bad = sorted(set(l for l in s["links"] if l != 1))
    if bad:
        print("%s: link type %s is not Ethernet; ofan-switch reads Ethernet "
              "frames: capture on one Ethernet interface" %
              (path, ", ".join("%d (%s)" % (l, LINKTYPES.get(l, "?"))
                               for l in bad)))
        return 2
    return 0


def count(path):
    return inspect(path)["frames"] if os.path.exists(path) else None


def cmd_report(policy, capture, run_dir, ports, in_port):
    """Print one policy's report; exit 1 if frames are unaccounted for."""
    s = inspect(capture)
    with open(os.path.join(run_dir, "stats.json")) as f:
        j = json.load(f)
    by_port = {p["port"]: p for p in j["ports"]}
    drops = {k: v for k, v in j["drops"].items() if v}
    rx = by_port[in_port]["rx"]
    tx_all = sum(p["tx"] for p in j["ports"])
    arp = sum(p.get("arp_replies", 0) for p in j["ports"])
    # Frames the switch made: ICMP time exceeded for expired TTLs.
    icmp = sum(p.get("icmp_time_exceeded", 0) for p in j["ports"])
    nb_drops = sum(drops.values())
    ok = True
    out = []
    notes = []
    if s["short"]:
        notes.append("%d cut short by the snaplen" % s["short"])
    out.append("== policy %s: %d frames in %s%s" %
               (policy, s["frames"], os.path.basename(capture),
                " (%s)" % "; ".join(notes) if notes else ""))
    for port in ports:
        p = by_port.get(port)
        if p is None:
            out.append("  port %d: not in the JSON" % port)
            ok = False
            continue
        n = count(os.path.join(run_dir, "port%d.pcap" % port))
        line = "  port %d: " % port
        if port == in_port:
            line += "rx %d, " % p["rx"]
        line += "tx %d, port%d.pcap %s frames" % (
            p["tx"], port, "no" if n is None else n)
        if p.get("arp_replies"):
            line += ", ARP replies %d" % p["arp_replies"]
        if p.get("icmp_time_exceeded"):
            line += ", ICMP time exceeded %d" % p["icmp_time_exceeded"]
        if n is not None and n != p["tx"]:
            line += "  MISMATCH: pcap and JSON tx differ"
            ok = False
        out.append(line)
    out.append("  forwarded %d, ARP replies %d, dropped %d" %
               (tx_all - arp - icmp, arp, nb_drops))
    out.append("  drops: %s" % (", ".join("%s %d" % kv for kv in
                                          sorted(drops.items())) or "none"))
    if rx != s["frames"]:
        out.append("  WARNING: port %d received %d of the %d frames in the "
                   "file" % (in_port, rx, s["frames"]))
        ok = False
    if rx + icmp != tx_all + nb_drops:
        out.append("  MISMATCH: port %d rx %d + ICMP made %d != sent %d + "
                   "dropped %d" % (in_port, rx, icmp, tx_all, nb_drops))
        ok = False
    if s["cut"]:
        out.append("  note: the file ends inside a record (a capture cut "
                   "short); the %d whole frames before it were replayed" %
                   s["frames"])
    if j.get("mempool_in_use_end") != j.get("mempool_in_use_start"):
        out.append("  MISMATCH: mbufs in use at exit %s, at start %s" %
                   (j.get("mempool_in_use_end"),
                    j.get("mempool_in_use_start")))
        ok = False
    if s["over_tx"]:
        out.append("  note: %d frames exceed 16128 bytes; net_pcap writes "
                   "forwarded ones cut to 16128 bytes" % s["over_tx"])
    print("\n".join(out))
    return 0 if ok else 1


def cmd_table(out_dir, policies, ports):
    """One line per policy: frames in, out per port, dropped."""
    head = ["policy", "rx", "forwarded", "dropped"] + \
        ["port%d" % p for p in ports]
    rows = [head]
    for pol in policies:
        try:
            with open(os.path.join(out_dir, pol, "stats.json")) as f:
                j = json.load(f)
        except (OSError, ValueError):
            rows.append([pol, "-", "-", "-"] + ["-"] * len(ports))
            continue
        by_port = {p["port"]: p for p in j["ports"]}
        arp = sum(p.get("arp_replies", 0) for p in j["ports"])
        arp += sum(p.get("icmp_time_exceeded", 0) for p in j["ports"])
        rx = sum(p["rx"] for p in j["ports"])
        tx = sum(p["tx"] for p in j["ports"])
        rows.append([pol, str(rx), str(tx - arp),
                     str(sum(j["drops"].values()))] +
                    [str(by_port[p]["tx"]) if p in by_port else "-"
                     for p in ports])
    w = [max(len(r[i]) for r in rows) for i in range(len(head))]
    print("== per-port tx (frames sent), all policies")
    for r in rows:
        print("  " + "  ".join(c.rjust(w[i]) if i else c.ljust(w[i])
                              for i, c in enumerate(r)))
    return 0


def main(a):
    if a[0] == "check":
        return cmd_check(a[1])
    if a[0] == "report":
        return cmd_report(a[1], a[2], a[3], [int(x) for x in a[5:]],
                          int(a[4]))
    if a[0] == "table":
        return cmd_table(a[1], a[2].split(","), [int(x) for x in a[3:]])
    return 2


sys.exit(main(sys.argv[1:]))
EOF
}

report() {
	"$py" -c "$(report_py)" "$@"
}

hint=$(report check "$pcap") || { echo "$prog: $hint" >&2; exit 2; }

# ---- run ----

work=$(mktemp -d "${TMPDIR:-/tmp}/ofan-replay.XXXXXX")
run_pid=
run_prefix=

# Stop the switch this script started (by PID), remove its runtime
# directory and the work directory; on success, failure or a signal.
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	local rc=$?

	trap - EXIT
	[ -z "$run_pid" ] || stop_pid "$run_pid" TERM
	if [ -n "$run_prefix" ]; then
		rm -rf "$(dpdk_runtime_dir "$run_prefix")"
	fi
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Devargs are split at commas: the switch reads and writes only inside the
# work directory (the capture through a symbolic link), results are moved
# to --out afterwards, so any path works there.
case $work in
*[,=\ ]*) die "temporary directory '$work' holds ',', '=' or a space; set TMPDIR to a plain path" ;;
esac
ln -s "$(cd "$(dirname "$pcap")" && pwd)/$(basename "$pcap")" "$work/in.pcap"
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
: >"$out_dir/report.txt"

# rewrite_config POLICY RUN_DIR: the configuration with every port's dev
# replaced (and the policy, with --policy/--policies) on stdout.
rewrite_config() {
	awk -v policy="$1" -v override="$policy_override" -v dir="$2" \
	    -v input="$work/in.pcap" '
	function dev(n) {
		return "net_pcap" n "," (n == 0 ? "rx_pcap=" input "," : "") \
			"tx_pcap=" dir "/port" n ".pcap"
	}
	/^[ \t]*\[/ {
		s = tolower($0); sub(/;.*/, "", s); gsub(/[][ \t\r]/, "", s)
		sec = s
		print
		if (sec == "switch" && override)
			print "policy = " policy "\t; set by replay.sh"
		if (sec ~ /^port\.[0-9]+$/)
			print "dev = " dev(substr(sec, 6) + 0) "\t; set by replay.sh"
		next
	}
	{
		k = tolower($0)
		if ((sec ~ /^port\.[0-9]+$/ && k ~ /^[ \t]*dev[ \t]*=/) ||
		    (sec == "switch" && override &&
		     k ~ /^[ \t]*policy[ \t]*=/)) {
			print "; replaced by replay.sh: " $0
			next
		}
		print
	}' "$config"
}

# Every configuration is checked before the first replay starts, so that a
# bad policy name or key fails at once with ofan-switch's own message.
for pol in "${policy_list[@]}"; do
	mkdir -p "$work/$pol"
	rewrite_config "$pol" "$work/$pol" >"$work/$pol/switch.ini"
	"$switch" -- --config "$work/$pol/switch.ini" --check-config \
		>"$work/check.log" 2>&1 || {
		msg=$(cat "$work/check.log")
		echo "${msg//"$work/$pol/switch.ini"/"$config (policy $pol)"}" >&2
		exit 2
	}
done

failed=0
for pol in "${policy_list[@]}"; do
	run_dir=$work/$pol
	run_prefix=ofan_replay_$$_$pol
	rc=0
	"$switch" --no-huge -m 512 --no-pci --file-prefix "$run_prefix" \
		-l "$lcore" --log-level=error -- --config "$run_dir/switch.ini" \
		--stats-json "$run_dir/stats.json" --stop-when-idle "$idle" \
		>"$run_dir/switch.log" 2>&1 &
	run_pid=$!
	wait "$run_pid" || rc=$?
	run_pid=
	rm -rf "$(dpdk_runtime_dir "$run_prefix")"
	run_prefix=

	# Results: replace this policy's files of an earlier run, keep the rest.
	dest=$out_dir/$pol
	mkdir -p "$dest"
	rm -f "$dest"/port*.pcap "$dest/stats.json" "$dest/switch.ini" \
		"$dest/switch.log"
	{
		echo "; The configuration ofan-switch ran, written by $prog from"
		echo "; $config.  It ran in a temporary directory: in.pcap there"
		echo "; was $pcap, its port*.pcap are now in $dest/."
		cat "$run_dir/switch.ini"
	} >"$dest/switch.ini"
	mv "$run_dir/switch.log" "$dest/"
	for f in "$run_dir"/port*.pcap "$run_dir/stats.json"; do
		[ ! -e "$f" ] || mv "$f" "$dest/"
	done
	rm -rf "$run_dir"

	if [ "$rc" -ne 0 ] || [ ! -s "$dest/stats.json" ]; then
		{
			echo "== policy $pol: ofan-switch exited with status $rc; the end of $dest/switch.log:"
			tail -n 15 "$dest/switch.log" | sed 's/^/  /'
		} | tee -a "$out_dir/report.txt"
		failed=1
		continue
	fi
	report report "$pol" "$pcap" "$dest" 0 "${ports[@]}" \
		>"$work/report.txt" || failed=1
	echo "  files: $dest/" >>"$work/report.txt"
	tee -a "$out_dir/report.txt" <"$work/report.txt"
done

if [ ${#policy_list[@]} -gt 1 ]; then
	report table "$out_dir" "$(IFS=,; echo "${policy_list[*]}")" \
		"${ports[@]}" | tee -a "$out_dir/report.txt"
fi
exit "$failed"
