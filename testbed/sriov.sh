#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sriov.sh: an experiment of configs/experiments/ on physical ports or
# SR-IOV VFs of several machines, one ofan-switch process per switch and
# one ofan-host process per machine with hosts, started over SSH.
#
#   testbed/sriov.sh --inventory INVENTORY.ini [--dry-run] [options] EXPERIMENT.ini
#
# The inventory names the machines ([machine.NAME]: ssh, dir, bin, eal)
# and where every switch and host runs ([node.NAME]: machine, ports = PCI
# addresses in port order, lcore); tests/data/testbed/inventory.ini is a
# sample.  ofan-testbed-gen writes one config per switch and per host
# machine (ports are the PCI devices; MACs are the devices' own, peers are
# learned from ARP or reached by broadcast), then this script, per machine:
# copies its configs, starts its switches (in the background, PID files),
# waits until each one's log says its ports are up (at most 30 s),
# then runs the hosts until every byte is delivered, stops the switches
# with SIGINT, and copies every JSON and log back into --out.  --dry-run
# prints exactly those commands, machine by machine, and runs nothing.
# On the machines: DPDK's EAL needs hugepages and the devices bound to
# vfio-pci (docs/switch.md, "On real NICs and SR-IOV VFs"); processes run with
# --in-memory so that nothing is left in /dev/hugepages or /var/run/dpdk.
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=testbed/lib.sh
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	cat <<EOF
usage: $prog --inventory FILE [options] EXPERIMENT.ini

  --inventory FILE   machines and PCI addresses (see the sample in
                     tests/data/testbed/inventory.ini)
  --dry-run          print the commands for each machine, run nothing
  --scheme NAME      one of the experiment's schemes (default: the first)
  --out DIR          configs and results (default results/<experiment>-sriov-<scheme>)
  --timeout SEC      give the hosts this long (default 120)
  --help             this text
EOF
}

inventory=
dry=0
scheme=
out=
timeout=120
while [ $# -gt 0 ]; do
	case $1 in
	--inventory) need_arg "$1" $#; inventory=$2; shift ;;
	--dry-run) dry=1 ;;
	--scheme) need_arg "$1" $#; scheme=$2; shift ;;
	--out) need_arg "$1" $#; out=$2; shift ;;
	--timeout) need_arg "$1" $#; timeout=$2; shift ;;
	--version) exec "$(dirname "$0")/../scripts/version.sh" "$0" ;;
	--help | -h) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || { usage >&2; die "one EXPERIMENT.ini expected"; }
config=$1
[ -f "$config" ] || die "no such experiment: $config"
[ -n "$inventory" ] || die "--inventory FILE is required"
[ -f "$inventory" ] || die "no such inventory: $inventory"
gen_bin=$root/build/testbed/ofan-testbed-gen
[ -x "$gen_bin" ] || die "$gen_bin not found; build first: scripts/build.sh"

name=$(basename "$config" .ini)
nb_runs=$("$gen_bin" --config "$config" --list-runs | wc -l) || exit 2
[ "$nb_runs" -le 1 ] ||
	echo "$prog: $config has $nb_runs sweep combinations; running the first (testbed/testbed.sh runs them all)" >&2
gen_args=(--config "$config" --mode sriov --inventory "$inventory")
[ -z "$scheme" ] || gen_args+=(--scheme "$scheme")
if [ -z "$out" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ofan-sriov.XXXXXX")
	"$gen_bin" "${gen_args[@]}" --out "$tmp" || { rm -rf "$tmp"; exit 2; }
	scheme=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "scheme") { s = $(i + 1); sub(",", "", s); print s } }' "$tmp/plan.txt")
	rm -rf "$tmp"
	out=$root/results/$name-sriov-$scheme
fi
mkdir -p "$out"
"$gen_bin" "${gen_args[@]}" --out "$out" || exit 2
plan=$out/plan.txt
# A failure schedule needs one start shared by machines; testbed.sh has
# it (--start-at), this script not yet.
if grep -q '^\[\(failure\|reroute\)\.' "$out"/switch-*.ini 2>/dev/null; then
	die "$config fails links; expected an experiment without [failure.*] here (testbed/testbed.sh and ofan-fabric run failures)"
fi

# Machines: name -> ssh, dir, bin, eal.
declare -A m_ssh m_dir m_bin m_eal
machines=()
while read -r what nm ssh dir bin eal; do
	[ "$what" = machine ] || continue
	machines+=("$nm")
	m_ssh[$nm]=$ssh
	m_dir[$nm]=$dir
	m_bin[$nm]=$bin
	m_eal[$nm]=${eal//,/ }
	[ "$eal" != - ] || m_eal[$nm]=
done <"$plan"

# The PCI addresses of a config's ports, as EAL allow-list arguments.
allow_list() {
	awk -F' *= *' '/^dev *=/ { split($2, a, /[ ;]/); printf " -a %s", a[1] }' "$1"
}

# What each machine runs: start switches, then hosts, then stop switches.
commands_of() { # MACHINE PHASE
	local mc=$1 phase=$2 what nm where lcore cfg dir bin eal
	dir=${m_dir[$mc]}
	bin=${m_bin[$mc]}
	eal=${m_eal[$mc]}
	while read -r what nm where lcore cfg; do
		[ "$where" = "$mc" ] || continue
		case $phase.$what in
		start.switch)
			echo "cd $dir && nohup $bin/switch/ofan-switch -l $lcore$(allow_list "$out/$cfg") --in-memory --file-prefix ofan-$nm ${eal:+$eal }--log-level=error -- --config $cfg --stats-json $nm.json >$nm.log 2>&1 </dev/null & echo \$! >$nm.pid"
			;;
		ready.switch)
			# Its ports are up once it prints "NAME: policy P, N ports, ...".
			echo "cd $dir && for i in \$(seq 1 300); do grep -q \": policy \" $nm.log && exit 0; kill -0 \$(cat $nm.pid) 2>/dev/null || break; sleep 0.1; done; echo $nm did not start: >&2; tail -n 2 $nm.log >&2; exit 1"
			;;
		run.hosts)
			echo "cd $dir && $bin/host/ofan-host -l $lcore$(allow_list "$out/$cfg") --in-memory --file-prefix ofan-hosts-$nm ${eal:+$eal }--log-level=error -- --config $cfg --results hosts-$nm.json --timeout $timeout >hosts-$nm.log 2>&1"
			;;
		stop.switch)
			echo "cd $dir && kill -INT \$(cat $nm.pid) && while kill -0 \$(cat $nm.pid) 2>/dev/null; do sleep 0.2; done; rm -f $nm.pid"
			;;
		esac
	done <"$plan"
}

files_of() { # MACHINE: the configs it needs
	local mc=$1 what nm where lcore cfg
	while read -r what nm where lcore cfg; do
		[ "$where" = "$mc" ] || continue
		case $what in switch | hosts) echo "$out/$cfg" ;; esac
	done <"$plan"
}

# ssh/scp lines for a phase, one per command, for every machine.
phase_lines() { # PHASE
	local mc c
	for mc in "${machines[@]}"; do
		while read -r c; do
			[ -n "$c" ] || continue
			# Remote commands hold no single quote: quote them whole.
			printf "ssh %s '%s'\n" "${m_ssh[$mc]}" "$c"
		done < <(commands_of "$mc" "$1")
	done
}

copy_lines() {
	local mc f files
	for mc in "${machines[@]}"; do
		files=()
		while read -r f; do files+=("$f"); done < <(files_of "$mc")
		[ ${#files[@]} -gt 0 ] || continue
		echo "ssh ${m_ssh[$mc]} mkdir -p ${m_dir[$mc]}"
		echo "scp ${files[*]} ${m_ssh[$mc]}:${m_dir[$mc]}/"
	done
}

gather_lines() {
	local mc
	for mc in "${machines[@]}"; do
		echo "scp '${m_ssh[$mc]}:${m_dir[$mc]}/*.json' '${m_ssh[$mc]}:${m_dir[$mc]}/*.log' $out/"
	done
}

if [ "$dry" = 1 ]; then
	echo "# $prog: $(head -n 1 "$plan" | sed 's/^# //')"
	echo "# 1. copy the configs"
	copy_lines
	echo "# 2. start the switches"
	phase_lines start
	echo "# 3. wait until every switch has its ports up (at most 30 s each)"
	phase_lines ready
	echo "# 4. run the hosts (each waits until its flows are done)"
	phase_lines run
	echo "# 5. stop the switches (they write their JSON)"
	phase_lines stop
	echo "# 6. gather the results"
	gather_lines
	exit 0
fi

command -v ssh >/dev/null || die "ssh not found"
started=0
# On exit or Ctrl-C after the switches started: stop them (by PID file).
stop_switches() {
	local line
	[ "$started" = 1 ] || return 0
	while read -r line; do
		eval "$line" || true
	done < <(phase_lines stop)
}
trap stop_switches EXIT
trap 'echo "$prog: interrupted" >&2; exit 130' INT TERM

while read -r line; do eval "$line"; done < <(copy_lines)
started=1
while read -r line; do eval "$line"; done < <(phase_lines start)
while read -r line; do
	eval "$line" || die "a switch did not start; its log is on its machine"
done < <(phase_lines ready)
rc=0
pids=()
while read -r line; do
	eval "$line" &
	pids+=($!)
done < <(phase_lines run)
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
stop_switches
started=0
while read -r line; do eval "$line" || true; done < <(gather_lines)
echo "$prog: results in $out (hosts exit status $rc)"
exit "$rc"
