#!/usr/bin/env bash
# testbed.sh: an experiment of configs/experiments/ as a multi-process
# testbed on this machine -- one ofan-switch process per switch, one
# ofan-host process for the hosts -- over veth pairs in network namespaces
# (net_af_packet) or over net_memif sockets, in wall-clock time.
#
#   testbed/testbed.sh --mode veth|memif [options] EXPERIMENT.ini
#
# ofan-testbed-gen writes the per-process configurations and a plan from
# the experiment (same topology, addresses and routes as ofan-fabric);
# this script creates the namespaces and veths (veth), starts the switches
# in low-CPU mode (--idle-sleep: they sleep when idle, so that several
# share two cores; lcores alternate 0 and 1), runs the hosts until every
# byte is delivered and verified, stops the switches, gathers every
# process's JSON into one folder and prints one table.  Everything it
# created is removed on exit, on error and on Ctrl-C: namespaces, veths,
# processes (by PID), memif sockets, /var/run/dpdk/<prefix>.
#
# For physical ports and SR-IOV VFs on several machines, see
# testbed/sriov.sh.  Needs root.
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=testbed/lib.sh
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	cat <<EOF
usage: $prog --mode veth|memif [options] EXPERIMENT.ini   (options before or after the file)

  --mode veth|memif   links: veth pairs in namespaces, or memif sockets
  --scheme NAME       one of the experiment's schemes (default: the first)
  --out DIR           results (default results/<experiment>-<mode>-<scheme>)
  --idle-sleep US     switches' and hosts' sleep when idle (default 100)
  --timeout SEC       give the hosts this long (default 60)
  --host-lcores LIST  spread every rank over these lcores (ofan-host's
                      [port.N] lcores, e.g. 0,1) and run the hosts' process
                      on them
  --pmd PMD           veth: af_packet (default) or af_xdp (faster; DPDK 22.11's
                      af_xdp keeps ~4098 mbufs at close, so processes report a
                      leak and exit 3 -- see README)
  --help              this text
Exit status: 0 when every byte of every flow was delivered and verified;
1 if not; 2 for bad usage or a failed set-up; 130 on Ctrl-C.
EOF
}

mode=
scheme=
out=
idle=100
timeout=60
pmd=af_packet
host_lcores=
# Options may come before or after the experiment file.
files=()
while [ $# -gt 0 ]; do
	case $1 in
	--mode) need_arg "$1" $#; mode=$2; shift ;;
	--scheme) need_arg "$1" $#; scheme=$2; shift ;;
	--out) need_arg "$1" $#; out=$2; shift ;;
	--idle-sleep) need_arg "$1" $#; idle=$2; shift ;;
	--timeout) need_arg "$1" $#; timeout=$2; shift ;;
	--pmd) need_arg "$1" $#; pmd=$2; shift ;;
	--host-lcores) need_arg "$1" $#; host_lcores=$2; shift ;;
	--help | -h) usage; exit 0 ;;
	--) shift; files+=("$@"); break ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) files+=("$1") ;;
	esac
	shift
done
[ ${#files[@]} -eq 1 ] ||
	{ usage >&2; die "one EXPERIMENT.ini expected, got ${#files[@]}"; }
config=${files[0]}
[ -f "$config" ] || die "no such experiment: $config"
case $mode in
veth | memif) ;;
*) die "--mode '$mode'; expected veth or memif" ;;
esac
[[ -z $host_lcores || $host_lcores =~ ^[0-9]+(,[0-9]+)*$ ]] ||
	die "--host-lcores '$host_lcores'; expected lcore numbers such as 0,1"
[ "$(id -u)" = 0 ] || die "needs root (namespaces, veths, DPDK)"
gen_bin=$root/build/testbed/ofan-testbed-gen
sw_bin=$root/build/switch/ofan-switch
host_bin=$root/build/host/ofan-host
for b in "$gen_bin" "$sw_bin" "$host_bin"; do
	[ -x "$b" ] || die "$b not found; build first: scripts/build.sh"
done
command -v ip >/dev/null || die "'ip' not found; install iproute2"

name=$(basename "$config" .ini)
tag=o$(printf '%04d' $(($$ % 10000)))
work=$(mktemp -d "${TMPDIR:-/tmp}/ofan-testbed.XXXXXX")
pids=()
names=()
netns=()
prefixes=()

# Stop what we started (by PID: SIGINT, then SIGKILL), remove what we made.
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
	local rc=$? pid ns p
	trap - EXIT INT TERM
	for pid in "${pids[@]}"; do
		kill -INT "$pid" 2>/dev/null || true	# all at once, then each
	done
	for pid in "${pids[@]}"; do
		stop_pid "$pid" INT
	done
	for ns in "${netns[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	for p in "${prefixes[@]}"; do
		rm -rf "/var/run/dpdk/${p:?}"
	done
	rm -rf "${work:?}"
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "$prog: interrupted" >&2; exit 130' INT TERM

# ---- configurations ----

gen_args=(--config "$config" --mode "$mode" --out "$work/gen" --tag "$tag"
	--sock-dir "$work/gen" --pmd "$pmd")
[ -z "$scheme" ] || gen_args+=(--scheme "$scheme")
"$gen_bin" "${gen_args[@]}" || exit 2
if [ -n "$host_lcores" ]; then
	# Every rank of the hosts' process on these lcores (one shard each).
	for f in "$work"/gen/hosts-*.ini; do
		sed -i "/^\[port\.[0-9]*\]\$/a lcores = $host_lcores ; one shard of the rank per lcore (--host-lcores)" "$f"
	done
fi
scheme=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "scheme") { s = $(i + 1); sub(",", "", s); print s } }' "$work/gen/plan.txt")
[ -n "$out" ] || out=$root/results/$name-$mode-$scheme
mkdir -p "$out"
cp "$work"/gen/*.ini "$work/gen/plan.txt" "$out/"

# ---- links ----

while read -r what a b c d _; do
	case $what in
	netns)
		ip netns add "$a"
		netns+=("$a")
		ip netns exec "$a" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 >/dev/null || true
		ip -n "$a" link set lo up
		;;
	veth)
		ip link add "$a" netns "$b" type veth peer name "$c" netns "$d"
		ip -n "$b" link set "$a" up
		ip -n "$d" link set "$c" up
		;;
	esac
done <"$work/gen/plan.txt"

# Run a DPDK process (in a namespace unless NS is "-"), logs in $out.
start() { # NAME NS LCORE BINARY ARGS...
	local nm=$1 ns=$2 lcore=$3 bin=$4 prefix=$tag-$1
	shift 4
	prefixes+=("$prefix")
	local cmd=("$bin" --no-huge -m 256 --no-pci -l "$lcore" --file-prefix
		"$prefix" --log-level=error -- "$@")
	if [ "$ns" != - ]; then
		cmd=(ip netns exec "$ns" "${cmd[@]}")
	fi
	echo "# ${cmd[*]}" >>"$out/commands.txt"
	"${cmd[@]}" >"$out/$nm.log" 2>&1 </dev/null &
	pids+=($!)
	names+=("$nm")
}

# memif: a client port cannot start before its server's socket exists.
wait_sockets() { # CONFIG
	local sock
	while read -r sock; do
		for _ in $(seq 1 100); do
			[ -S "$sock" ] && break
			sleep 0.05
		done
		[ -S "$sock" ] || die "memif socket $sock did not appear"
	done < <(grep -o 'role=client,socket=[^,]*' "$1" | sed 's/.*socket=//')
}

: >"$out/commands.txt"
# Upper layers first: with memif they serve the links below them.
while read -r what nm ns lcore cfg; do
	[ "$what" = switch ] || continue
	wait_sockets "$work/gen/$cfg"
	start "$nm" "$ns" "$lcore" "$sw_bin" --config "$work/gen/$cfg" \
		--stats-json "$out/$nm.json" --idle-sleep "$idle"
done < <(grep '^switch ' "$work/gen/plan.txt" | tac)
# Ready when each says "NAME: policy P, N ports, ..." (its ports started).
for i in "${!pids[@]}"; do
	for _ in $(seq 1 200); do
		grep -q ": policy " "$out/${names[$i]}.log" 2>/dev/null && break
		kill -0 "${pids[$i]}" 2>/dev/null || break
		sleep 0.05
	done
	grep -q ": policy " "$out/${names[$i]}.log" 2>/dev/null ||
		die "${names[$i]} did not start: $(tail -n 2 "$out/${names[$i]}.log")"
done

# ---- the hosts ----

host_rc=0
while read -r what nm ns lcore cfg; do
	[ "$what" = hosts ] || continue
	wait_sockets "$work/gen/$cfg"
	start "hosts-$nm" "$ns" "${host_lcores:-$lcore}" "$host_bin" \
		--config "$work/gen/$cfg" \
		--results "$out/hosts-$nm.json" --timeout "$timeout" \
		--idle-sleep "$idle"
	wait "${pids[-1]}" || host_rc=$?
done <"$work/gen/plan.txt"

# Stop the switches so that they write their JSON.
for i in "${!pids[@]}"; do
	kill -INT "${pids[$i]}" 2>/dev/null || true
done
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" 2>/dev/null || true
done
pids=()

# ---- the table ----

/usr/bin/python3 - "$out" "$mode" "$scheme" "$host_rc" <<'PY'
import glob, json, os, sys
out, mode, scheme, rc = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
print(f"\n{os.path.basename(out)}: {mode} links, scheme {scheme}")
for f in sorted(glob.glob(f"{out}/hosts-*.json")):
    h = json.load(open(f))
    print(f"hosts: {h['flows_completed']}/{h['flows_sent_here']} flows completed, "
          f"max slowdown {h['max_slowdown']:.2f}, p99 {h['p99_slowdown']:.2f}, "
          f"mean FCT {h['mean_fct_ns'] / 1e3:.1f} us, collective {h['collective_ns'] / 1e3:.1f} us "
          f"(ideal {h['collective_ideal_ns'] / 1e3:.1f}), retx {h['retransmissions']}, "
          f"timeouts {h['timeouts']}, corrupt {h['corrupt_packets']}, wall {h['wall_s']:.2f} s")
def dev_lost(ports):
    """Frames a device lost before any software saw them."""
    return sum(p["device"]["imissed"] + p["device"]["ierrors"] + p["device"]["rx_nombuf"]
               for p in ports if "device" in p)
for f in sorted(glob.glob(f"{out}/hosts-*.json")):
    h = json.load(open(f))
    if h.get("ports"):
        print(f"hosts' devices lost {dev_lost(h['ports'])} frames on receive")
# Where frames were lost: in a device (RX ring full, bad frames, no mbuf),
# in a device's TX ring (tx_full: no software queue), or in a queue
# (queue_full); "other" is every other named drop reason.
print(f"{'switch':<10} {'policy':<9} {'rx':>9} {'tx':>9} {'qmax':>5} {'ecn':>7} "
      f"{'device':>7} {'txring':>7} {'queue':>7} {'other':>7}  uplink spread (packets per port)")
for f in sorted(glob.glob(f"{out}/*.json")):
    if os.path.basename(f).startswith("hosts-"):
        continue
    s = json.load(open(f))
    ports = s["ports"]
    d = s.get("drops", {}) if isinstance(s.get("drops"), dict) else {}
    ring, queue = d.get("tx_full", 0), d.get("queue_full", 0)
    other = sum(d.values()) - ring - queue
    print(f"{s['switch']:<10} {s['policy']:<9} {sum(p['rx'] for p in ports):>9} "
          f"{sum(p['tx'] for p in ports):>9} {max(p['queue_max_pkts'] for p in ports):>5} "
          f"{sum(p['ecn_marked'] for p in ports):>7} {dev_lost(ports):>7} {ring:>7} "
          f"{queue:>7} {other:>7}  "
          + " ".join(str(p["tx"]) for p in ports))
why = {0: "", 1: "not every byte delivered", 2: "bad input",
       3: "mbufs not returned (af_xdp: a known DPDK 22.11 issue)"}.get(rc, "failed")
print(f"results: {out}" + (f"  (ofan-host exit status {rc}: {why})" if rc else ""))
PY
exit "$host_rc"
