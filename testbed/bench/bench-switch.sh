#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-switch.sh: forwarding rate of ofan-switch, one forwarding lcore,
# against DPDK's own L3 router (the l3fwd example in LPM mode) and
# dpdk-testpmd (5tswap and io) on the same ports.  A benchmark, not a test:
# it prints a table and only fails when a run cannot be measured.
#
# l3fwd is built from Debian's dpdk-doc sources (/usr/share/dpdk/examples)
# into BUILD/l3fwd, with two changes for virtual ports: the RX offloads it
# asks for unconditionally (IPv4 checksum) are masked with what the device
# offers, per port and per queue.  It runs on the forwarding lcore alone
# (-l FWD: it forwards on its main lcore), on the same ports and traffic,
# with routes for the switch's three prefixes to port 1 (--rule_ipv4) and
# --parse-ptype (net_pcap does not classify packets); its rate is port 1's
# opackets read each second through the telemetry socket
# (testbed/telemetry-rate.py).  It parses, looks up rte_lpm, decrements the
# TTL, updates the checksum and rewrites MACs, as ofan-switch does before
# its load-balancing stage.  Its own pool and descriptor sizes are l3fwd's
# defaults (8192-mbuf scale, 1024 RX / 1024 TX descriptors, burst 32).
#
# Every row forwards from one input port to one output port on one
# forwarding lcore, one row at a time (never two busy-polling processes at
# once).  By default the input replays a generated pcap of small RoCEv2
# frames forever (net_pcap, infinite_rx=1) and the output is a sink
# (net_null, no-rx=1), so no NIC and no hugepages are needed (hugepages are
# used when the machine has them free; the report says which).  --in-dev,
# --out-dev and --eal put it on real ports.
#
# Rate: ofan-switch prints a status line every second on stderr ("NAME
# t=3.0s rx X Mpps tx Y Mpps | ...", Y = what every port sent); the rate is
# the mean of those after the warm-up.  testpmd --stats-period 1 prints a
# block of per-port "Tx-pps" every 1 to 2 s (it sleeps a whole second
# between looks at the clock), each measured by testpmd over the time since
# the previous block; the rate is the sum over ports, averaged over the
# blocks after the warm-up, weighted by their length.  The whole-run rate
# of ofan-switch's JSON (tx / elapsed_s, start-up included) is recorded as
# a cross-check.
#
# Noise: the machine may be shared.  For every run the script reads how
# long the forwarding thread waited for its CPU (schedstat) and prints it
# (preem%); a row above 2 % is starred.  --repeat N takes the median of N
# interleaved rounds.  The script pins itself (and so its polling) to the
# main lcore's CPU, and runs a copy of ofan-switch so that a rebuild during
# the benchmark cannot mix binaries.
#
# Fairness: the forwarding core count is equal (one) and so is the layout:
# both programs get -l MAIN,FWD, a main lcore that mostly sleeps (testpmd:
# between statistics prints; ofan-switch: its control plane in a 50 us sleep
# loop) and one worker lcore that forwards.  ofan-switch with only -l FWD
# would forward on its main lcore and run the control plane, status lines
# and stop checks inside the forwarding loop, which testpmd does not do; it
# measured the same within noise on a 2-core VM, but -l MAIN,FWD keeps the
# comparison like for like.  Same pool size (--mbufs), mempool cache (256),
# mbuf size, burst (32) and descriptor counts (1024).
set -euo pipefail

prog=$(basename "$0")
root=$(cd "$(dirname "$0")/../.." && pwd)
# die, need_arg; the benchmarks' shared helpers; the results and report.
# shellcheck source=testbed/lib.sh
. "$root/testbed/lib.sh"
# shellcheck source=testbed/bench/bench-lib.sh
. "$root/testbed/bench/bench-lib.sh"
# shellcheck source=testbed/bench/bench-switch-report.sh
. "$root/testbed/bench/bench-switch-report.sh"

usage() {
	cat <<EOF
usage: $prog [options]

Forwarding rate of ofan-switch (every policy, with and without the software
egress queue) against DPDK's l3fwd in LPM mode and dpdk-testpmd
--forward-mode=5tswap and io, one forwarding lcore each, run one after the
other.  Prints a table of Mpps and each row's ratio to l3fwd-lpm and to
testpmd 5tswap, with the targets: every policy with queue = no at >= 1.0x
l3fwd-lpm and >= 0.9x 5tswap, with queue = yes at >= 0.9x l3fwd-lpm and >= 0.85x 5tswap.

Runs:
  --duration SEC      length of each run in whole seconds (default 5)
  --warmup SEC        per-second samples up to this time are discarded
                      (default 1; must be below --duration)
  --policies LIST     comma-separated policies, or all (every policy
                      ofan-switch --help lists; default
                      ecmp,spray,rr,adaptive,flowlet,ofan)
  --queues LIST       egress queue modes: no (direct tx), yes (software
                      queue, ECN on, unshaped); default no,yes
  --no-testpmd        skip the testpmd rows (no 5tswap ratios then)
  --no-l3fwd          skip the l3fwd-lpm row (no l3fwd ratios then)
  --repeat N          run the whole set N times, interleaved, and report the
                      median of each row (default 1)
  --lcores MAIN,FWD   the main and the forwarding lcore of every run
                      (default 0,1)
  --profile           after the rates, run l3fwd and every ofan-switch row
                      once more under valgrind's callgrind and print the
                      instructions per forwarded packet: what the forwarding
                      loop (ofan-switch sw_fwd_loop, l3fwd lpm_main_loop,
                      drivers included) executed over the packets it
                      forwarded.  Default input only; needs valgrind;
                      about 40 s a row
  --profile-secs SEC  length of each profiled run after start-up (default
                      15; valgrind runs about 50x slower)

Ports:
  --in-dev DEVARGS    input port (default: net_pcap0 replaying the traffic
                      below forever); a PCI address (0000:03:00.0[,args])
                      is passed to EAL with -a, anything else is a vdev
  --out-dev DEVARGS   output port (default net_null0,no-rx=1)
  --eal "ARGS"        extra EAL arguments; when given the script adds
                      neither --no-pci nor --no-huge/-m (it still adds -l,
                      --main-lcore, --file-prefix, -a/--vdev of the ports)
  --hugepages         use hugepages (hugetlbfs must be mounted with free
                      pages); runs get --huge-unlink so nothing is left in
                      the mount
  --no-huge           use --no-huge -m 1024 even if hugepages are free
                      Default: hugepages when hugetlbfs is mounted with at
                      least 1 GB free, else --no-huge -m 1024; the report's
                      first line says which and why
  --mbufs N           mbufs in the pool of both programs (default 16384)

Traffic (default input only):
  --pcap FILE         replay this pcap instead of generating one
  --size BYTES        data frame size (default 64)
  --count N           packets in the generated file (default 4096; they all
                      stay in mbufs of the pool, keep it below --mbufs / 2)
  --flows K           flows (default 1024) over 700 destinations in
                      10.0.1.0/24 .. 10.0.3.0/24 (three destination keys)
  --acks-every J      every J-th packet an ACK (default 8; 0 = no ACKs)

Output:
  --out DIR           write DIR/results.csv, DIR/results.json and each run's
                      config and logs under DIR/logs
  --dry-run           print the generated config and the commands, run
                      nothing
  --build-dir DIR     where ofan-switch and ofan-pcapgen are (default
                      $root/build; build it with scripts/build.sh)
  --help              this text

With real ports, the input traffic must be IPv4 to 10.0.1.0/24 ..
10.0.3.0/24 (the switch's routes; anything else is dropped and not
counted), e.g. the file written by
  ofan-pcapgen flows --out t.pcap --count 4096 --flows 1024 --size 64 \\
      --dst-net 10.0.1.0 --dst-count 700 --acks-every 8
replayed by a traffic generator.  Rates count every port's transmissions.

Each row's "preem%" is the share of the run its forwarding thread waited for
its CPU because other processes ran there; '*' marks rows above 2 %.

Example (virtual ports, 15 runs of 5 s, about 100 s; the first run also
builds l3fwd into BUILD/l3fwd, about 15 s):
  testbed/bench/bench-switch.sh --out /tmp/bench
Bare metal, two ports bound to vfio-pci, hugepages mounted:
  testbed/bench/bench-switch.sh --in-dev 0000:03:00.0 --out-dev 0000:03:00.1 \\
      --hugepages --lcores 2,3 --out /tmp/bench-nic
EOF
}

# ---- options ----

duration=5
warmup=1
policies=ecmp,spray,rr,adaptive,flowlet,ofan
queues=no,yes
with_testpmd=1
with_l3fwd=1
dry_run=0
repeat=1
profile=0
profile_secs=15
lcores=0,1
in_dev=
out_dev=net_null0,no-rx=1
eal_extra=
eal_given=0
hugepages=auto
mbufs=16384
pcap=
size=64
count=4096
flows=1024
acks_every=8
out_dir=
build_dir=$root/build

while [ $# -gt 0 ]; do
	case $1 in
	--duration) need_arg "$1" $#; duration=$2; shift ;;
	--warmup) need_arg "$1" $#; warmup=$2; shift ;;
	--policies) need_arg "$1" $#; policies=$2; shift ;;
	--queues) need_arg "$1" $#; queues=$2; shift ;;
	--no-testpmd) with_testpmd=0 ;;
	--no-l3fwd) with_l3fwd=0 ;;
	--dry-run) dry_run=1 ;;
	--repeat) need_arg "$1" $#; repeat=$2; shift ;;
	--profile) profile=1 ;;
	--profile-secs) need_arg "$1" $#; profile_secs=$2; shift ;;
	--lcores) need_arg "$1" $#; lcores=$2; shift ;;
	--in-dev) need_arg "$1" $#; in_dev=$2; shift ;;
	--out-dev) need_arg "$1" $#; out_dev=$2; shift ;;
	--eal) need_arg "$1" $#; eal_extra=$2; eal_given=1; shift ;;
	--hugepages) hugepages=1 ;;
	--no-huge) hugepages=0 ;;
	--mbufs) need_arg "$1" $#; mbufs=$2; shift ;;
	--pcap) need_arg "$1" $#; pcap=$2; shift ;;
	--size) need_arg "$1" $#; size=$2; shift ;;
	--count) need_arg "$1" $#; count=$2; shift ;;
	--flows) need_arg "$1" $#; flows=$2; shift ;;
	--acks-every) need_arg "$1" $#; acks_every=$2; shift ;;
	--out) need_arg "$1" $#; out_dir=$2; shift ;;
	--build-dir) need_arg "$1" $#; build_dir=$2; shift ;;
	--version) exec "$(dirname "$0")/../../scripts/version.sh" "$0" ;;
	--help | -h) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done

for v in duration warmup repeat profile_secs mbufs size count flows acks_every; do
	is_uint "${!v}" || die "--${v//_/-} '${!v}' is not a whole number"
done
[ "$duration" -ge 2 ] || die "--duration $duration: expected at least 2 seconds"
[ "$warmup" -lt "$duration" ] ||
	die "--warmup $warmup: expected less than --duration ($duration)"
[ "$repeat" -ge 1 ] || die "--repeat $repeat: expected at least 1"
[ "$mbufs" -ge 1024 ] || die "--mbufs $mbufs: expected at least 1024"
[ -n "$in_dev$pcap" ] || [ $((count * 2)) -le "$mbufs" ] ||
	die "--count $count: the replayed packets stay in mbufs; expected at most --mbufs / 2 ($((mbufs / 2)))"
[[ $lcores =~ ^([0-9]+),([0-9]+)$ ]] ||
	die "--lcores '$lcores': expected MAIN,FWD (two lcore ids, e.g. 0,1)"
main_lcore=${BASH_REMATCH[1]}
fwd_lcore=${BASH_REMATCH[2]}
[ "$main_lcore" != "$fwd_lcore" ] ||
	die "--lcores '$lcores': the main and the forwarding lcore must differ"

IFS=, read -ra queue_list <<<"$queues"
[ ${#queue_list[@]} -gt 0 ] || die "--queues is empty"
for q in "${queue_list[@]}"; do
	case $q in
	no | yes) ;;
	*) die "--queues: '$q' is not a queue mode; expected no, yes or no,yes" ;;
	esac
done
eal_words=()
if [ "$eal_given" = 1 ]; then
	read -ra eal_words <<<"$eal_extra"
fi

sw_bin=$build_dir/switch/ofan-switch
gen_bin=$build_dir/tools/ofan-pcapgen
[ -x "$sw_bin" ] ||
	die "$sw_bin not found; build first: scripts/build.sh (or pass --build-dir)"
# The policies ofan-switch registers, as its --help lists them.
mapfile -t all_policies < <(switch_policies "$sw_bin")
[ ${#all_policies[@]} -gt 0 ] || die "$sw_bin --help lists no policies"
[ "$policies" != all ] || policies=$(IFS=,; echo "${all_policies[*]}")
IFS=, read -ra policy_list <<<"$policies"
[ ${#policy_list[@]} -gt 0 ] || die "--policies is empty"
for p in "${policy_list[@]}"; do
	[[ " ${all_policies[*]} " == *" $p "* ]] ||
		die "--policies: unknown policy '$p'; expected all or some of ${all_policies[*]}"
done
if [ "$profile" = 1 ]; then
	[ -z "$in_dev" ] ||
		die "--profile counts packets by full input bursts: only with the default replayed input (no --in-dev)"
	command -v valgrind >/dev/null ||
		die "--profile needs valgrind (callgrind); install it: scripts/install-deps.sh (or apt-get install valgrind)"
	[ "$profile_secs" -ge 2 ] || die "--profile-secs $profile_secs: expected at least 2"
fi
testpmd_bin=
if [ "$with_testpmd" = 1 ]; then
	testpmd_bin=$(command -v dpdk-testpmd) ||
		die "dpdk-testpmd not found; install Debian's 'dpdk' package (scripts/install-deps.sh) or pass --no-testpmd"
	command -v stdbuf >/dev/null || die "stdbuf (coreutils) not found"
fi

# DPDK's l3fwd, built into the build tree from Debian's dpdk-doc sources
# (see the header for the two changes).
l3fwd_src=/usr/share/dpdk/examples/l3fwd
l3fwd_dir=$build_dir/l3fwd
l3fwd_built=$l3fwd_dir/build/l3fwd
build_l3fwd() {
	local f cflags

	[ -f "$l3fwd_src/main.c" ] ||
		die "$l3fwd_src not found; install Debian's 'dpdk-doc' (scripts/install-deps.sh) or pass --no-l3fwd"
	if [ -x "$l3fwd_built" ] && [ "$l3fwd_built" -nt "$l3fwd_src/main.c" ] &&
		[ "$l3fwd_built" -nt "$0" ]; then
		return 0
	fi
	rm -rf "$l3fwd_dir"
	cp -r "$l3fwd_src" "$l3fwd_dir"
	f=$l3fwd_dir/main.c
	if ! grep -q '^		ret = rte_eth_dev_configure(portid, nb_rx_queue,$' "$f" ||
		! grep -q 'rxq_conf.offloads = port_conf.rxmode.offloads;' "$f"; then
		die "$f: the lines to change for virtual ports are not there (another DPDK version?)"
	fi
	sed -i 's/^\(\t\t\)ret = rte_eth_dev_configure(portid, nb_rx_queue,$/\1local_port_conf.rxmode.offloads \&= dev_info.rx_offload_capa;\n&/' "$f"
	sed -i 's/rxq_conf.offloads = port_conf.rxmode.offloads;/rxq_conf.offloads = port_conf.rxmode.offloads \& dev_info.rx_queue_offload_capa;/' "$f"
	cflags="-O3 $(pkg-config --cflags libdpdk) -DALLOW_EXPERIMENTAL_API -I/usr/share/dpdk/examples/common -I/usr/share/dpdk/examples/common/sse"
	make -s -C "$l3fwd_dir" CFLAGS="$cflags" >"$l3fwd_dir/make.log" 2>&1 ||
		die "building l3fwd failed: $(tail -n 3 "$l3fwd_dir/make.log" | tr '\n' ' ')"
	[ -x "$l3fwd_built" ] || die "building l3fwd left no $l3fwd_built"
}
if [ "$with_l3fwd" = 1 ] && [ "$dry_run" = 0 ]; then
	build_l3fwd
fi

# --eal: the memory is the caller's (hugepages only with --hugepages).
[ "$eal_given" = 0 ] || [ "$hugepages" != auto ] || hugepages=0
bench_setup bench
bench_copy_binary "$sw_bin"
sw_bin_path=$sw_bin
sw_bin=$work/ofan-switch
l3fwd_bin=
if [ "$with_l3fwd" = 1 ] && [ "$dry_run" = 0 ]; then
	cp "$l3fwd_built" "$work/l3fwd"
	l3fwd_bin=$work/l3fwd
fi

# ---- ports, EAL arguments, traffic ----

# A PCI address (with or without devargs) goes to EAL's allow list.
is_pci() {
	[[ ${1%%,*} =~ ^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$ ]]
}

if [ -z "$in_dev" ]; then
	if [ -z "$pcap" ]; then
		[ -x "$gen_bin" ] ||
			die "$gen_bin not found; build first: scripts/build.sh (or pass --pcap FILE)"
		pcap=$work/traffic.pcap
		gen_args=(flows --out "$pcap" --count "$count" --flows "$flows"
			--size "$size" --src-ip 10.0.0.1 --dst-net 10.0.1.0
			--dst-count 700)
		[ "$acks_every" = 0 ] || gen_args+=(--acks-every "$acks_every")
		"$gen_bin" "${gen_args[@]}" >/dev/null
		traffic="generated: $count packets, $flows flows, $size B data frames, ACK every $acks_every packets"
		[ "$acks_every" != 0 ] || traffic="${traffic%, ACK*}, no ACKs"
	else
		[ -r "$pcap" ] || die "--pcap $pcap: cannot read it"
		pcap=$(cd "$(dirname "$pcap")" && pwd)/$(basename "$pcap")
		traffic="replayed from $pcap"
	fi
	[[ $pcap != *,* ]] ||
		die "the pcap path '$pcap' contains a comma, which devargs cannot carry"
	in_dev="net_pcap0,rx_pcap=$pcap,infinite_rx=1"
else
	traffic="whatever arrives at $in_dev"
fi
[ "${in_dev%%,*}" != "${out_dev%%,*}" ] ||
	die "--in-dev and --out-dev name the same device '${in_dev%%,*}'"

# EAL arguments common to both programs (the prefix is added per run).
eal_common=(-l "$main_lcore,$fwd_lcore" --main-lcore "$main_lcore")
all_vdev=1
for d in "$in_dev" "$out_dev"; do
	if is_pci "$d"; then
		all_vdev=0
		eal_common+=(-a "$d")
	fi
done
if [ "$eal_given" = 1 ]; then
	eal_common+=("${eal_words[@]}")
	[ "$hugepages" = 0 ] || eal_common+=(--huge-unlink)
else
	if [ "$hugepages" = 1 ]; then
		eal_common+=(--huge-unlink)
	else
		eal_common+=(--no-huge -m 1024)
	fi
	[ "$all_vdev" = 0 ] || eal_common+=(--no-pci)
fi
# testpmd creates the vdevs from its command line; ofan-switch probes them
# from its config.
tp_devs=()
for d in "$in_dev" "$out_dev"; do
	is_pci "$d" || tp_devs+=(--vdev "$d")
done

# l3fwd: the forwarding lcore alone (it forwards on its main lcore), the
# rest of the EAL arguments as the others; port 0 in, port 1 out.
l3fwd_eal=(-l "$fwd_lcore" "${eal_common[@]:4}")
# shellcheck disable=SC2054  # commas inside l3fwd's own arguments
l3fwd_args=(-p 0x3 -P --parse-ptype --lookup=lpm
	--config "(0,0,$fwd_lcore),(1,0,$fwd_lcore)"
	--eth-dest=1,02:00:00:00:10:00)
# Its routes: the switch's three prefixes, to port 1.
l3fwd_routes() { # file
	printf 'R10.0.1.0/24 1\nR10.0.2.0/24 1\nR10.0.3.0/24 1\n' >"$1"
}

# The switch: port 0 in, port 1 out as the one member of the uplink group,
# three destination keys as on a leaf (configs/leaf-4x4.ini).
write_config() { # file policy queue
	cat >"$1" <<EOF
; Generated by testbed/bench/bench-switch.sh: one input, one output port.
[switch]
name = bench
policy = $2
seed = 1
burst = 32
stats_interval = 1s
verify_checksum = no
mbufs = $mbufs

[queue]
queue = $3
queue_packets = 512
queue_bytes = 2MiB
ecn = yes
ecn_kmin = 32KiB
ecn_kmax = 128KiB
ecn_pmax = 0.2
rate = 0

[port.0]
dev = $in_dev
ip = 10.0.0.254
rx_descriptors = 1024
tx_descriptors = 1024
[port.1]
dev = $out_dev
peer_mac = 02:00:00:00:10:00
rx_descriptors = 1024
tx_descriptors = 1024

[group.up]
members = 1

[route.leaf1]
prefix = 10.0.1.0/24
group = up
dst_key = 1
[route.leaf2]
prefix = 10.0.2.0/24
group = up
dst_key = 2
[route.leaf3]
prefix = 10.0.3.0/24
group = up
dst_key = 3
EOF
}

if [ "$dry_run" = 1 ]; then
	echo "# ofan-switch config (policy and queue change per row):"
	write_config /dev/stdout "${policy_list[0]}" "${queue_list[0]}"
	echo "# ofan-switch, per policy and queue mode:"
	printf '%q ' "$sw_bin_path" "${eal_common[@]}" --file-prefix PREFIX -- \
		--config CONFIG --duration "$duration" --stats-json JSON
	echo
	if [ "$with_l3fwd" = 1 ]; then
		echo "# l3fwd-lpm (built into $l3fwd_dir), routes in ROUTES4 (ROUTES6: R2001:db8::/32 1), stopped with SIGINT:"
		printf '%q ' "$l3fwd_built" "${l3fwd_eal[@]}" --file-prefix PREFIX \
			"${tp_devs[@]}" -- "${l3fwd_args[@]}" \
			--rule_ipv4=ROUTES4 --rule_ipv6=ROUTES6
		echo
		l3fwd_routes /dev/stdout
	fi
	if [ "$with_testpmd" = 1 ]; then
		echo "# testpmd, per mode (io, 5tswap), stopped with SIGINT:"
		printf '%q ' stdbuf -oL "$testpmd_bin" "${eal_common[@]}" \
			--file-prefix PREFIX "${tp_devs[@]}" -- \
			--forward-mode=MODE --nb-cores=1 --burst=32 --rxd=1024 \
			--txd=1024 --mbcache=256 --total-num-mbufs="$mbufs" \
			--stats-period 1 --no-lsc-interrupt
		echo
	fi
	exit 0
fi

# ---- running one process ----

# Why a run failed (last_error, bench-lib.sh): ofan-switch's own message
# first.  EAL file prefixes (new_prefix): ofbench<pid>-<run>.
last_error_own=ofan-switch
prefix_stem=ofbench

# Results of the last run: mpps (steady state), nb_samples, samples,
# whole-run mpps from JSON (switch only), preempted (% of the time the
# forwarding thread waited for its core), note.
mpps=
preempted=nan
nb_samples=0
samples=
mpps_json=
note=

# ofan-switch, one policy and queue mode; logs under $2.
run_switch() { # policy queue logbase
	local policy=$1 queue=$2 base=$3 cfg=$3.ini json=$3.json
	write_config "$cfg" "$policy" "$queue"
	new_prefix
	"$sw_bin" "${eal_common[@]}" --file-prefix "$prefix" -- \
		--config "$cfg" --duration "$duration" --stats-json "$json" \
		>"$base.out" 2>"$base.err" </dev/null &
	run_pid=$!
	steal_reset "rte-worker-$fwd_lcore"
	wait_run $(($(date +%s) + duration + 60))
	preempted=$(steal_pct)
	rm -rf "/var/run/dpdk/$prefix"
	note=
	[ "$run_rc" = 0 ] || note="exit status $run_rc: $(last_error "$base.err")"
	# Status lines: "bench t=3.0s rx X Mpps tx Y Mpps | ..."
	read -r mpps nb_samples samples < <(awk -v w="$warmup" '
		$1 == "bench" && $2 ~ /^t=[0-9.]+s$/ && $6 == "tx" && $8 == "Mpps" {
			t = substr($2, 3) + 0
			if (t <= w + 0.05)
				next
			s += $7; n++
			list = list (list == "" ? "" : ";") $7
		}
		END {
			if (n == 0)
				print "nan 0 -"
			else
				printf "%.3f %d %s\n", s / n, n, list
		}' "$base.err")
	# Whole run from the JSON: every port's tx over elapsed_s.
	mpps_json=nan
	if [ -s "$json" ]; then
		mpps_json=$(awk '
			/"elapsed_s":/ { gsub(/[ ,]/, "", $2); e = $2 }
			/^      "tx":/ { gsub(/[ ,]/, "", $2); tx += $2 }
			END { if (e > 0) printf "%.3f", tx / e / 1e6; else print "nan" }' "$json")
		drops=$(awk '
			/"drops": \{/ { d = 1; next }
			d && /\}/ { d = 0 }
			d { gsub(/[ ,]/, "", $2); s += $2 }
			END { print s + 0 }' "$json")
		[ "$drops" = 0 ] || note="${note:+$note; }$drops drops"
	else
		note="${note:+$note; }no JSON"
	fi
	[ "$nb_samples" -gt 0 ] || note="${note:+$note; }no status line after the warm-up"
}

# dpdk-testpmd in one forwarding mode; logs under $2.
run_testpmd() { # mode logbase
	local mode=$1 base=$2
	new_prefix
	# Line-buffered, so the blocks can be seen while it runs.
	stdbuf -oL "$testpmd_bin" "${eal_common[@]}" --file-prefix "$prefix" \
		"${tp_devs[@]}" -- --forward-mode="$mode" --nb-cores=1 \
		--burst=32 --rxd=1024 --txd=1024 --mbcache=256 \
		--total-num-mbufs="$mbufs" --stats-period 1 \
		--no-lsc-interrupt >"$base.out" 2>"$base.err" </dev/null &
	run_pid=$!
	steal_reset "rte-worker-$fwd_lcore"
	bench_testpmd_measure "$base" "$duration"
}

# DPDK's l3fwd in LPM mode; logs under $1.  Rate: port 1's opackets
# through telemetry, each second after the warm-up.
run_l3fwd() { # logbase
	local base=$1 sock
	l3fwd_routes "$base.routes4"
	# l3fwd wants an IPv6 rule too: a documentation prefix nothing hits.
	echo "R2001:db8::/32 1" >"$base.routes6"
	new_prefix
	sock=/var/run/dpdk/$prefix/dpdk_telemetry.v2
	"$l3fwd_bin" "${l3fwd_eal[@]}" --file-prefix "$prefix" "${tp_devs[@]}" \
		-- "${l3fwd_args[@]}" --rule_ipv4="$base.routes4" \
		--rule_ipv6="$base.routes6" >"$base.out" 2>"$base.err" </dev/null &
	run_pid=$!
	steal_reset ""
	sample_worker
	read -r mpps nb_samples samples < <("$root/testbed/telemetry-rate.py" \
		"$sock" 1 "$warmup" "$duration")
	sample_worker
	preempted=$(steal_pct)
	kill -INT "$run_pid" 2>/dev/null || true
	wait_run $(($(date +%s) + 15))
	rm -rf "/var/run/dpdk/$prefix"
	mpps_json=
	note=
	[ "$run_rc" = 0 ] ||
		note="exit status $run_rc: $(last_error "$base.err" "$base.out")"
	[ "$nb_samples" -gt 0 ] || note="${note:+$note; }no rate from telemetry"
}

# ---- --profile: instructions per packet ----

# ir_pkt: instructions per packet of the last profiled run (or nan).
ir_pkt=nan
ir_note=
ir_per_packet() { # outfile packets
	local total
	ir_pkts=$2
	total=$(callgrind_total "$1")
	ir_pkt=$(awk -v t="$total" -v p="$2" 'BEGIN {
		if (t == "nan" || p == "nan" || p + 0 <= 0) print "nan"
		else printf "%.1f", t / p }')
	[ "$ir_pkt" != nan ] || ir_note="no count (instructions $total, packets $2)"
}

# ofan-switch under callgrind for --profile-secs; packets from its JSON.
profile_switch() { # policy queue logbase
	local policy=$1 queue=$2 base=$3 cfg=$3.ini json=$3.json pkts bursts
	write_config "$cfg" "$policy" "$queue"
	new_prefix
	ir_note=
	valgrind --tool=callgrind --toggle-collect=sw_fwd_loop \
		--callgrind-out-file="$base.callgrind" \
		"$sw_bin" "${eal_common[@]}" --file-prefix "$prefix" -- \
		--config "$cfg" --duration "$profile_secs" --stats-json "$json" \
		>"$base.out" 2>"$base.err" </dev/null &
	run_pid=$!
	wait_run $(($(date +%s) + profile_secs + 300))
	rm -rf "/var/run/dpdk/$prefix"
	pkts=nan
	[ ! -s "$json" ] || pkts=$(awk '
		/^      "tx":/ { gsub(/[ ,]/, "", $2); tx += $2 }
		END { print tx + 0 }' "$json")
	ir_per_packet "$base.callgrind" "$pkts"
	# Full input bursts (what the l3fwd row's count rests on).
	bursts=$(callgrind_calls "$base.callgrind" sw_worker_input)
	[ "$pkts" = nan ] || [ "$bursts" = nan ] ||
		[ $((bursts * 32)) = "$pkts" ] ||
		ir_note="input bursts not all full ($bursts x 32 != $pkts sent): the l3fwd row's count is too high"
	[ "$run_rc" = 0 ] || ir_note="exit status $run_rc: $(last_error "$base.err")"
}

# Calls callgrind recorded into the function NAME (its call edges).
callgrind_calls() { # outfile name
	python3 - "$1" "$2" <<'PY2' 2>/dev/null || echo nan
import re, sys
names, cfn, total = {}, None, 0
for line in open(sys.argv[1]):
    m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?", line)
    if m:
        if m.group(3):
            names[m.group(2)] = m.group(3).strip()
        if m.group(1) == "cfn":
            cfn = m.group(2)
        continue
    m = re.match(r"^calls=(\d+)", line)
    if m and cfn is not None and names.get(cfn) == sys.argv[2]:
        total += int(m.group(1))
print(total)
PY2
}

# l3fwd under callgrind for --profile-secs, then SIGINT.  Its packets are
# its bursts (calls of l3fwd_lpm_process_packets) x 32: the replayed
# input (net_pcap, infinite_rx) always fills a burst, which the ofan-switch
# rows check against their exact JSON count (calls of sw_worker_input x 32
# = tx).  Telemetry cannot count them: l3fwd forwards for seconds between
# a last read and the SIGINT taking effect under valgrind.
profile_l3fwd() { # logbase
	local base=$1 sock bursts
	l3fwd_routes "$base.routes4"
	echo "R2001:db8::/32 1" >"$base.routes6"
	new_prefix
	ir_note=
	sock=/var/run/dpdk/$prefix/dpdk_telemetry.v2
	valgrind --tool=callgrind --toggle-collect=lpm_main_loop \
		--callgrind-out-file="$base.callgrind" \
		"$l3fwd_bin" "${l3fwd_eal[@]}" --file-prefix "$prefix" \
		"${tp_devs[@]}" -- "${l3fwd_args[@]}" \
		--rule_ipv4="$base.routes4" --rule_ipv6="$base.routes6" \
		>"$base.out" 2>"$base.err" </dev/null &
	run_pid=$!
	# Start-up under valgrind takes a while: wait for the socket.
	"$root/testbed/telemetry-rate.py" --count "$sock" 1 300 >/dev/null
	sleep "$profile_secs"
	kill -INT "$run_pid" 2>/dev/null || true
	wait_run $(($(date +%s) + 120))
	rm -rf "/var/run/dpdk/$prefix"
	bursts=$(callgrind_calls "$base.callgrind" l3fwd_lpm_process_packets)
	ir_per_packet "$base.callgrind" "$(awk -v b="$bursts" 'BEGIN {
		if (b == "nan" || b + 0 == 0) print "nan"; else print b * 32 }')"
	[ "$run_rc" = 0 ] || ir_note="exit status $run_rc: $(last_error "$base.err" "$base.out")"
}

# ---- the rows ----

rows=()
declare -A row_label row_kind row_arg1 row_arg2 row_target row_target_l3 row_cores
if [ "$with_l3fwd" = 1 ]; then
	rows+=(l3fwd-lpm)
	row_label[l3fwd-lpm]="l3fwd lpm"
	row_kind[l3fwd-lpm]=l3fwd
	row_arg1[l3fwd-lpm]=lpm
	row_arg2[l3fwd-lpm]=
	row_target[l3fwd-lpm]=
	row_target_l3[l3fwd-lpm]=
fi
if [ "$with_testpmd" = 1 ]; then
	for m in io 5tswap; do
		rows+=("testpmd-$m")
		row_label[testpmd-$m]="testpmd $m"
		row_kind[testpmd-$m]=testpmd
		row_arg1[testpmd-$m]=$m
		row_arg2[testpmd-$m]=
		row_target[testpmd-$m]=
		row_target_l3[testpmd-$m]=
	done
fi
for q in "${queue_list[@]}"; do
	for p in "${policy_list[@]}"; do
		id=switch-$p-q$q
		rows+=("$id")
		row_label[$id]="ofan-switch $p queue=$q"
		row_kind[$id]=switch
		row_arg1[$id]=$p
		row_arg2[$id]=$q
		# Direct tx: at least l3fwd and 0.9 x 5tswap; with queues
		# and ECN: 0.9 x l3fwd and 0.85 x 5tswap.
		if [ "$q" = no ]; then
			row_target[$id]=0.90
			row_target_l3[$id]=1.00
		else
			row_target[$id]=0.85
			row_target_l3[$id]=0.90
		fi
	done
done
for id in "${rows[@]}"; do
	row_cores[$id]=1
done

logs=$work/logs
mkdir -p "$logs"
busy_before=$(bench_busy_check)

declare -A res_samples res_json res_note res_all res_steal
t_start=$(date +%s)
nb_runs=$(( ${#rows[@]} * repeat ))
k=0
for r in $(seq "$repeat"); do
	for id in "${rows[@]}"; do
		k=$((k + 1))
		base=$logs/$id.r$r
		printf '%s: [%d/%d] %s ... ' "$prog" "$k" "$nb_runs" \
			"${row_label[$id]}" >&2
		if [ "${row_kind[$id]}" = testpmd ]; then
			run_testpmd "${row_arg1[$id]}" "$base"
		elif [ "${row_kind[$id]}" = l3fwd ]; then
			run_l3fwd "$base"
		else
			run_switch "${row_arg1[$id]}" "${row_arg2[$id]}" "$base"
		fi
		printf '%s Mpps, preempted %s%%%s\n' "$mpps" "$preempted" \
			"${note:+ ($note)}" >&2
		res_all[$id]="${res_all[$id]:-}${res_all[$id]:+ }$mpps"
		res_samples[$id]="${res_samples[$id]:-}${res_samples[$id]:+|}$samples"
		res_json[$id]="${res_json[$id]:-}${res_json[$id]:+ }${mpps_json:-}"
		res_steal[$id]="${res_steal[$id]:-}${res_steal[$id]:+ }$preempted"
		[ -z "$note" ] ||
			res_note[$id]="${res_note[$id]:-}${res_note[$id]:+; }r$r: $note"
	done
done
declare -A res_ir res_ir_note res_ir_drv res_ir_own res_ir_top
ir_pkts=nan
if [ "$profile" = 1 ]; then
	k=0
	nb_prof=0
	for id in "${rows[@]}"; do
		[ "${row_kind[$id]}" = testpmd ] || nb_prof=$((nb_prof + 1))
	done
	for id in "${rows[@]}"; do
		[ "${row_kind[$id]}" != testpmd ] || continue
		k=$((k + 1))
		base=$logs/$id.profile
		printf '%s: [profile %d/%d] %s ... ' "$prog" "$k" "$nb_prof" \
			"${row_label[$id]}" >&2
		if [ "${row_kind[$id]}" = l3fwd ]; then
			profile_l3fwd "$base"
		else
			profile_switch "${row_arg1[$id]}" "${row_arg2[$id]}" "$base"
		fi
		# The drivers' share, the program's own, its top functions.
		if [ "${row_kind[$id]}" = l3fwd ]; then
			read -r drv own top < <(callgrind_split "$base.callgrind" \
				"$ir_pkts" "$(basename "$l3fwd_bin")")
		else
			read -r drv own top < <(callgrind_split "$base.callgrind" \
				"$ir_pkts" "$(basename "$sw_bin")")
		fi
		printf '%s instructions/packet, %s own%s\n' "$ir_pkt" "$own" \
			"${ir_note:+ ($ir_note)}" >&2
		res_ir[$id]=$ir_pkt
		res_ir_drv[$id]=$drv
		res_ir_own[$id]=$own
		res_ir_top[$id]=$top
		res_ir_note[$id]=$ir_note
	done
fi
runtime=$(($(date +%s) - t_start))
busy_after=$(cpu_busy)

# ---- results (bench-switch-report.sh) ----

summarise
report
if [ -n "$out_dir" ]; then
	write_results
fi
[ "$failed" = 0 ] || exit 1
exit 0
