#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# capture.sh: capture what a running ofan-switch receives and sends on one
# port or on all of them, with dpdk-dumpcap, into a pcapng file.
#
# dpdk-dumpcap attaches to the switch as a DPDK secondary process (same
# --file-prefix) and asks it, through rte_pdump (ofan-switch calls
# rte_pdump_init()), to copy every packet its ports receive and send into a
# ring that dumpcap writes out.  The script finds the ethdev behind each
# ofan port number (telemetry /ofan/ports), checks that the switch can have
# a secondary process at all, runs dumpcap, and stops it cleanly on
# --duration, --count, Ctrl-C or SIGTERM.  It prints
# "capture.sh: capturing ..." once dumpcap is attached, and at the end the
# packets captured per interface.  Each frame in the pcapng file carries
# its interface (one per port) and its direction (in or out).
#
# The switch must run with hugepages: a --no-huge, --in-memory or
# --huge-unlink primary can have no secondary process.  On a machine
# without hugepages, as root:
#
#   echo 256 > /proc/sys/vm/nr_hugepages      # 256 x 2 MB
#   mkdir -p /dev/hugepages
#   mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages
#   build/switch/ofan-switch --file-prefix sw1 -l 0 --no-pci -- \
#       --config configs/leaf-4x4.ini --idle-sleep 100 &
#   testbed/capture.sh --file-prefix sw1 --port 1 --duration 10 \
#       --out port1.pcapng
#   # once the switch has exited: DPDK 22.11 leaves its hugepage files
#   # behind (--huge-unlink would remove them, but forbids secondaries)
#   rm -f /dev/hugepages/sw1map_*; rm -rf /var/run/dpdk/sw1
#   echo 0 > /proc/sys/vm/nr_hugepages        # give the memory back
#
# (--huge-dir DIR makes the switch use another hugetlbfs mount.)
#
# Either may stop first: ofan-switch releases rte_pdump only after it has
# closed its ports (closing polls a port once more, which runs an attached
# capture's callbacks).
#
# Snap length: dpdk-dumpcap 22.11 sizes its mbufs from it; at 65535 they
# overflow and every packet is counted as dropped, so the default here is
# 9216 (jumbo frames whole), at most 65000.
#
# Ports on net_pcap: a secondary process re-opens the files of every
# net_pcap port of the switch.  A tx_pcap file is truncated and then
# written by the switch behind a hole, so it is corrupt; an rx_pcap FIFO
# loses data to the secondary.  The script refuses such switches unless
# --force (their tx_pcap files already are captures of what each port
# sent).  Capture from switches on NICs, VFs, net_tap, net_null, memif,
# af_xdp or af_packet ports.
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=testbed/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: $prog --file-prefix PREFIX --port N|all --out FILE [options]

Capture the packets a running ofan-switch (EAL --file-prefix PREFIX, with
hugepages) receives and sends on ofan port N (or on all its ports) into
FILE: pcapng, or classic pcap if FILE ends in .pcap (then without the
interface and direction of each frame).

  --file-prefix P     the switch's EAL --file-prefix
  --port N|all        an ofan port number (as in its [port.N] sections)
                      or 'all' (dpdk-dumpcap 22.11 takes one interface or
                      all: of several -i it keeps the last)
  --iface NAME        capture this ethdev (name or port id) instead of an
                      ofan port; for any DPDK primary that calls
                      rte_pdump_init()
  --out FILE          output file (.pcapng or .pcap)
  --duration S        stop after S seconds (default: on Ctrl-C or SIGTERM)
  --count N           stop after N packets
  --snaplen B         bytes kept of each packet (default 9216, at most
                      65000; dumpcap's own default, 2176, cuts 4 KiB RoCE
                      frames)
  --filter EXPR       capture only what the pcap filter EXPR accepts
  --force             capture even from a switch with net_pcap file ports
                      (see the header of this script)
  --help              this text
EOF
}

prefix=
ports=
iface=
out=
duration=
count=
snaplen=9216
filter=
force=0

while [ $# -gt 0 ]; do
	case $1 in
	--file-prefix) need_arg "$1" $#; prefix=$2; shift ;;
	--file-prefix=*) prefix=${1#*=} ;;
	--port) need_arg "$1" $#; ports=$2; shift ;;
	--iface) need_arg "$1" $#; iface=$2; shift ;;
	--out) need_arg "$1" $#; out=$2; shift ;;
	--duration) need_arg "$1" $#; duration=$2; shift ;;
	--count) need_arg "$1" $#; count=$2; shift ;;
	--snaplen) need_arg "$1" $#; snaplen=$2; shift ;;
	--filter) need_arg "$1" $#; filter=$2; shift ;;
	--force) force=1 ;;
	--version) exec "$(dirname "$0")/../scripts/version.sh" "$0" ;;
	--help | -h) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done

[ -n "$prefix" ] || die "--file-prefix is required: the EAL --file-prefix the switch was started with"
[[ $prefix =~ ^[A-Za-z0-9_.-]+$ ]] || die "--file-prefix '$prefix': expected letters, digits, '_', '.', '-'"
[ -n "$ports$iface" ] || die "--port N (or all) or --iface NAME is required"
[ -z "$ports" ] || [ -z "$iface" ] || die "--port and --iface exclude each other"
[ -z "$ports" ] || [[ $ports =~ ^(all|[0-9]+)$ ]] ||
	die "--port '$ports': expected one port number or all (dpdk-dumpcap 22.11 captures one interface or all)"
[ -n "$out" ] || die "--out FILE is required"
[ -z "$duration" ] || [[ $duration =~ ^[1-9][0-9]*$ ]] ||
	die "--duration '$duration': expected whole seconds (dpdk-dumpcap's unit)"
[ -z "$count" ] || [[ $count =~ ^[1-9][0-9]*$ ]] || die "--count '$count': expected a number of packets"
if ! [[ $snaplen =~ ^[1-9][0-9]{1,4}$ ]] || [ "$snaplen" -lt 64 ] ||
	[ "$snaplen" -gt 65000 ]; then
	die "--snaplen '$snaplen': expected 64 to 65000 bytes (dpdk-dumpcap 22.11 drops everything at 65535)"
fi
out_dir=$(dirname "$out")
if [ ! -d "$out_dir" ] || [ ! -w "$out_dir" ]; then
	die "--out $out: directory $out_dir does not exist or is not writable"
fi

dumpcap=$(command -v dpdk-dumpcap || true)
[ -n "$dumpcap" ] || die "dpdk-dumpcap not found; install dpdk-dev (scripts/install-deps.sh)"
telemetry=$(command -v dpdk-telemetry.py || true)
[ -n "$telemetry" ] || die "dpdk-telemetry.py not found; install dpdk (scripts/install-deps.sh)"
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3 || true)
[ -n "$py" ] || die "python3 not found"

rundir=$(dpdk_runtime_dir "$prefix")
[ -S "$rundir/dpdk_telemetry.v2" ] ||
	die "no DPDK process with --file-prefix $prefix is running (no $rundir/dpdk_telemetry.v2)"

work=$(mktemp -d "${TMPDIR:-/tmp}/ofan-capture.XXXXXX")
dc_pid=

# Stop dumpcap (the only process this script starts) so that it closes
# the file, then remove the work directory.
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	local rc=$?

	trap - EXIT
	[ -z "$dc_pid" ] || stop_pid "$dc_pid" INT
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---- what the switch is and which ethdevs its ports are ----

# A switch that is still starting answers /ofan/ports only once its ports
# are up: ask for up to 5 s.
for ((i = 0; i < 10; i++)); do
	printf '/eal/params\n/ofan/ports\n/ethdev/list\n' |
		timeout 10 "$telemetry" -f "$prefix" >"$work/tel1.txt" 2>&1 ||
		true
	if [ -z "$ports" ] ||
	   grep -q '^{"/ofan/ports": {' "$work/tel1.txt"; then
		break
	fi
	sleep 0.5
done
# The names of the ethdevs, one query per port id.
"$py" - "$work/tel1.txt" >"$work/ids.txt" <<'EOF' || true
import json, sys
for ln in open(sys.argv[1]):
    if ln.startswith("{"):
        r = json.loads(ln)
        for i in r.get("/ethdev/list") or []:
            print(i)
EOF
while read -r id; do
	printf '/ethdev/info,%s\n' "$id"
done <"$work/ids.txt" | timeout 10 "$telemetry" -f "$prefix" \
	>"$work/tel2.txt" 2>&1 || true

# Prints "NAME<TAB>PORT" per interface to capture, or a one-line error
# (exit 2).
"$py" - "$work/tel1.txt" "$work/tel2.txt" "$ports" "$force" \
	"$iface" >"$work/ifaces.txt" <<'EOF' && rc=0 || rc=$?
import json, os, stat, sys

replies, infos = {}, []
for path in sys.argv[1:3]:
    for ln in open(path):
        if ln.startswith("{"):
            for k, v in json.loads(ln).items():
                replies.setdefault(k, v)
                if k == "/ethdev/info" and isinstance(v, dict):
                    infos.append(v)
want, force, iface = sys.argv[3], sys.argv[4] == "1", sys.argv[5]
params = replies.get("/eal/params")
if params is None:
    print("cannot query the telemetry of the DPDK process with this "
          "--file-prefix (dpdk-telemetry.py found no reply)")
    sys.exit(2)
ports = replies.get("/ofan/ports")
# net_pcap keeps a port's arguments for secondary processes in 63
# characters (ETH_PCAP_ARG_MAXLEN); a longer string is cut, and dumpcap's
# probe of the port then fails without saying why.
for p, info in sorted(ports.items(), key=lambda kv: int(kv[0])) \
        if isinstance(ports, dict) else ():
    dev = info.get("dev", "")
    args = dev.partition(",")[2]
    if dev.startswith("net_pcap") and len(args) > 63:
        print("port %s (%s): its net_pcap arguments are %d characters and "
              "net_pcap keeps 63 for a secondary process, so dpdk-dumpcap "
              "cannot attach; give the switch shorter paths (a symbolic "
              "link)" % (p, dev, len(args)))
        sys.exit(2)
for opt, why in (("--no-huge", "runs without hugepages (--no-huge)"),
                 ("--in-memory", "runs --in-memory"),
                 ("--huge-unlink", "unlinked its hugepage files "
                  "(--huge-unlink)")):
    if any(p == opt or p.startswith(opt + "=") for p in params):
        print("the switch %s, so it can have no secondary process and "
              "dpdk-dumpcap cannot attach; restart it with hugepages "
              "(see the header of %s)" % (why, "capture.sh"))
        sys.exit(2)
names = {v.get("name"): v.get("port_id") for v in infos}
if iface:
    print("%s\t-" % iface)
    sys.exit(0)
if not isinstance(ports, dict):
    print("the process is not an ofan-switch (no /ofan/ports); capture "
          "its ethdevs with --iface NAME (%s)" %
          ", ".join(sorted(str(n) for n in names)))
    sys.exit(2)


def ethdev_name(dev):
    if dev.startswith("ringpair:"):
        _, name, end = dev.split(":")[:3]
        return "rp_%s_%s" % (name, end)
    return dev.split(",")[0]


sel = sorted(ports, key=int) if want == "all" else want.split(",")
risky = []
for p, info in sorted(ports.items(), key=lambda kv: int(kv[0])):
    dev = info.get("dev", "")
    if not dev.startswith("net_pcap"):
        continue
    for kv in dev.split(",")[1:]:
        k, _, v = kv.partition("=")
        if k == "tx_pcap" or (k == "rx_pcap" and os.path.exists(v) and
                              not stat.S_ISREG(os.stat(v).st_mode)):
            risky.append("port %s (%s)" % (p, dev))
            break
if risky and not force:
    print("%s: a secondary process re-opens net_pcap files (tx_pcap files "
          "get truncated, FIFOs lose data); their tx_pcap files already "
          "are captures; pass --force to capture anyway" %
          "; ".join(risky))
    sys.exit(2)
lines = []
for p in sel:
    if p not in ports:
        print("the switch has no port %s (ports: %s)" %
              (p, ", ".join(sorted(ports, key=int))))
        sys.exit(2)
    name = ethdev_name(ports[p]["dev"])
    if names and name not in names:
        print("port %s: no ethdev named '%s' (ethdevs: %s)" %
              (p, name, ", ".join(sorted(str(n) for n in names))))
        sys.exit(2)
    lines.append("%s\t%s" % (name, p))
if want == "all":
    # dpdk-dumpcap's '*' is every ethdev of the switch, its ports.
    lines = ["*\tall (%s)" % ", ".join(
        "%s %s" % (ln.split("\t")[1], ln.split("\t")[0]) for ln in lines)]
print("\n".join(lines))
EOF
if [ "$rc" -ne 0 ]; then
	echo "$prog: $(head -n 1 "$work/ifaces.txt")" >&2
	exit 2
fi

args=(--file-prefix="$prefix" -s "$snaplen" -w "$out")
desc=
while IFS=$'\t' read -r name port; do
	args+=(-i "$name")
	case $port in
	-) desc+="${desc:+, }$name" ;;
	all*) desc+="${desc:+, }all ports ${port#all }" ;;
	*) desc+="${desc:+, }port $port ($name)" ;;
	esac
done <"$work/ifaces.txt"
[ -z "$duration" ] || args+=(-a "duration:$duration")
[ -z "$count" ] || args+=(-c "$count")
[ -z "$filter" ] || args+=(-f "$filter")
case $out in
*.pcap) args+=(-P) ;;
esac

# ---- capture ----

# dumpcap prints "Packets captured:" (on stderr, unbuffered) once the
# switch has installed its capture callbacks; "Capturing on" comes before
# that, when it merely found the interface.  Line-buffered stdout keeps
# the order of the two in the log.
rm -f "$out"
stdbuf -oL "$dumpcap" "${args[@]}" >"$work/dumpcap.log" 2>&1 &
dc_pid=$!
stopping=0
trap 'stopping=1; kill -INT "$dc_pid" 2>/dev/null || true' INT TERM HUP

attached=0
while kill -0 "$dc_pid" 2>/dev/null; do
	if grep -q "Packets captured:" "$work/dumpcap.log"; then
		attached=1
		break
	fi
	sleep 0.1
done
# It may have attached and finished (--count) between two looks.
if grep -q "Packets captured:" "$work/dumpcap.log"; then
	attached=1
fi
if [ "$attached" = 1 ]; then
	echo "$prog: capturing $desc of $prefix into $out${duration:+ for $duration s}"
fi

rc=0
while kill -0 "$dc_pid" 2>/dev/null; do
	wait "$dc_pid" && rc=0 || rc=$?
done
dc_pid=

# dumpcap redraws "Packets captured: N" with backspaces on one line; keep
# its final lines (packets received/dropped per interface) and errors.
tr '\r' '\n' <"$work/dumpcap.log" | grep -v -e '^Packets captured:' \
	-e '^Capturing on' -e 'is not driven by the primary' \
	-e 'Requested device .* cannot be used' -e '^ *$' |
	sed "s/^/$prog: dumpcap: /" || true
if [ "$attached" != 1 ] || [ "$rc" -ne 0 ]; then
	echo "$prog: dpdk-dumpcap failed (exit status $rc)" >&2
	exit 1
fi
[ "$stopping" = 0 ] || echo "$prog: stopped by a signal; $out is complete"
exit 0
