# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Shared by the ofan-switch EAL tests (tests/eal/switch-*.sh), which meson
# runs serially as `script BUILD_ROOT SOURCE_ROOT`.  Sourced, not run.
#
# ofan_setup gives a script:
#   SWITCH, PCAPGEN    the binaries under test (from BUILD_ROOT)
#   CHECK              pcapcheck.py under Debian's /usr/bin/python3
#   TMP                a private temporary directory (configs, pcaps, JSON)
#   EAL                EAL arguments: --no-huge --no-pci, 512 MB, one lcore,
#                      and a --file-prefix unique to this script's process
#   RUNDIR             that prefix's DPDK runtime directory
# and an EXIT trap that stops only the processes the script started (by
# PID), then removes TMP and RUNDIR, whether the script passed or not.
# Set OFAN_KEEP_TMP=1 to keep TMP for a post-mortem.
#
# Checks print "ok: ..." or "FAIL: ..." and count failures; ofan_finish
# exits 1 if any failed.  Exit 77 means skipped (meson's convention).

OFAN_PY=/usr/bin/python3
PIDS=()
FAILS=0
TMP=
RUNDIR=

ofan_cleanup() {
	local rc=$? pid

	trap - EXIT
	for pid in "${PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	if [ -n "$TMP" ] && [ -d "$TMP" ]; then
		if [ "${OFAN_KEEP_TMP:-0}" = 1 ]; then
			echo "kept $TMP" >&2
		else
			rm -rf "$TMP"
		fi
	fi
	if [ -n "$RUNDIR" ]; then
		rm -rf "$RUNDIR"
	fi
	exit "$rc"
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# ofan_setup NAME BUILD_ROOT SOURCE_ROOT: sets BUILD, SRC, SWITCH, HOST,
# PCAPGEN, CHECK, PREFIX, RUNDIR, EAL and TMP, and the cleanup traps.  The
# binaries the test needs are checked: those named in OFAN_NEEDS (paths
# relative to BUILD_ROOT), by default ofan-switch and ofan-pcapgen.
ofan_setup() {
	T_NAME=$1
	if [ $# -ne 3 ]; then
		echo "usage: $0 BUILD_ROOT SOURCE_ROOT" >&2
		exit 2
	fi
	BUILD=$(cd "$2" && pwd)
	SRC=$(cd "$3" && pwd)
	# shellcheck disable=SC2034  # used by the scripts that source this
	SWITCH=$BUILD/switch/ofan-switch
	# shellcheck disable=SC2034
	HOST=$BUILD/host/ofan-host
	# shellcheck disable=SC2034
	PCAPGEN=$BUILD/tools/ofan-pcapgen
	local needs=(${OFAN_NEEDS[@]+"${OFAN_NEEDS[@]}"}) b
	[ ${#needs[@]} -gt 0 ] ||
		needs=(switch/ofan-switch tools/ofan-pcapgen)
	for b in "${needs[@]}"; do
		if [ ! -x "$BUILD/$b" ]; then
			echo "FAIL: $BUILD/$b is not built" >&2
			exit 1
		fi
	done
	[ -x "$OFAN_PY" ] || skip "$OFAN_PY not found (scripts/install-deps.sh)"
	CHECK=("$OFAN_PY" "$SRC/tests/eal/pcapcheck.py")
	PREFIX=ofan_t_${T_NAME}_$$
	# Where EAL puts its runtime files: as dpdk-telemetry.py computes it.
	if [ -n "${RUNTIME_DIRECTORY:-}" ]; then
		RUNDIR=$RUNTIME_DIRECTORY/dpdk/$PREFIX
	elif [ "$(id -u)" -eq 0 ]; then
		RUNDIR=/var/run/dpdk/$PREFIX
	else
		RUNDIR=${XDG_RUNTIME_DIR:-/tmp}/dpdk/$PREFIX
	fi
	EAL=(--no-huge -m 512 --no-pci --file-prefix "$PREFIX" -l 0
	     --log-level=error)
	trap ofan_cleanup EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	trap 'exit 129' HUP
	trap 'exit 141' PIPE
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/ofan_t_${T_NAME}.XXXXXX")
	echo "== $T_NAME: EAL prefix $PREFIX, files in $TMP"
}

# Forget a PID once it has been waited for (it may be reused later).
ofan_forget() {
	local keep=() p

	for p in "${PIDS[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	PIDS=("${keep[@]}")
}

# sw_start TAG ARGS...: start `timeout -k 10 60 ofan-switch ARGS` in the
# background (ARGS include the EAL part); stdout and stderr go to
# $TMP/TAG.out and $TMP/TAG.err.  Sets SW_PID.  With SW_GUARD=0 there is
# no timeout process: SW_PID is the switch itself (to signal it), and the
# caller bounds the run (--duration).
sw_start() {
	local tag=$1

	shift
	if [ "${SW_GUARD:-60}" = 0 ]; then
		"$SWITCH" "$@" >"$TMP/$tag.out" 2>"$TMP/$tag.err" &
	else
		timeout "${SW_GUARD:-60}" "$SWITCH" "$@" >"$TMP/$tag.out" \
			2>"$TMP/$tag.err" &
	fi
	SW_PID=$!
	PIDS+=("$SW_PID")
}

# sw_wait: wait for the switch started last.  Sets SW_RC.
sw_wait() {
	SW_RC=0
	wait "$SW_PID" || SW_RC=$?
	ofan_forget "$SW_PID"
}

# sw_run_raw TAG ARGS...: run ofan-switch with exactly ARGS.  Sets SW_RC.
sw_run_raw() {
	sw_start "$@"
	sw_wait
}

# sw_run TAG APP_ARGS...: run ofan-switch with the test's EAL arguments,
# "--" and APP_ARGS.  Sets SW_RC.
sw_run() {
	local tag=$1

	shift
	sw_run_raw "$tag" "${EAL[@]}" -- "$@"
}

# ofan_switch_pids_alive PID...: those of the PIDs still running
# ofan-switch (a PID may have been reused by something else), or "none".
ofan_switch_pids_alive() {
	local pid procs=

	for pid in "$@"; do
		if [ -r "/proc/$pid/cmdline" ] &&
		   tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$SWITCH"; then
			procs="$procs $pid"
		fi
	done
	echo "${procs:-none}"
}

pass() {
	echo "ok: $*"
}

fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

# expect_eq WHAT GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1 = $3"
	else
		fail "$1 is '$2', expected '$3'"
	fi
}

# expect_cmp WHAT GOT OP WANT: integers, OP one of -gt -ge -lt -le -ne.
expect_cmp() {
	local ok=0

	case $3 in
	-gt) [ "$2" -gt "$4" ] 2>/dev/null && ok=1 ;;
	-ge) [ "$2" -ge "$4" ] 2>/dev/null && ok=1 ;;
	-lt) [ "$2" -lt "$4" ] 2>/dev/null && ok=1 ;;
	-le) [ "$2" -le "$4" ] 2>/dev/null && ok=1 ;;
	-ne) [ "$2" -ne "$4" ] 2>/dev/null && ok=1 ;;
	*) fail "expect_cmp: unknown operator $3"; return ;;
	esac
	if [ "$ok" = 1 ]; then
		pass "$1 = $2 ($3 $4)"
	else
		fail "$1 is $2, expected $3 $4"
	fi
}

# expect_rc WHAT TAG WANT: SW_RC of run TAG is WANT; else show its stderr.
expect_rc() {
	if [ "$SW_RC" = "$3" ]; then
		pass "$1: exit status $3"
	else
		fail "$1: exit status $SW_RC, expected $3; stderr:"
		sed 's/^/    /' "$TMP/$2.err" | tail -20
	fi
}

# expect_file_has WHAT FILE FIXED-STRING
expect_file_has() {
	if grep -qF -- "$3" "$2"; then
		pass "$1: has '$3'"
	else
		fail "$1: lacks '$3'; it has:"
		sed 's/^/    /' "$2" | head -20
	fi
}

# check_py ARGS...: a pcapcheck.py command that prints its own results.
check_py() {
	local rc=0

	"${CHECK[@]}" "$@" || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "pcapcheck.py $1 (exit $rc)"
	fi
}

# jget FILE EXPR: a value from a JSON file (j is the document).
jget() {
	"${CHECK[@]}" json "$1" "$2"
}

# json_common TAG JSON: what every run's statistics must show: the pool
# back to its start; every port's device counters (ethdev, device.*), and
# every frame its device received is one the switch received.
json_common() {
	local start end

	start=$(jget "$2" 'j["mempool_in_use_start"]')
	end=$(jget "$2" 'j["mempool_in_use_end"]')
	expect_eq "$1: mempool_in_use_end (start $start)" "$end" "$start"
	expect_eq "$1: device counters of every port" \
		"$(jget "$2" 'int(all("ethdev" in p and set(p["device"]) == {"ipackets", "opackets", "imissed", "ierrors", "oerrors", "rx_nombuf"} for p in j["ports"]))')" 1
	expect_eq "$1: device ipackets = switch rx, every port" \
		"$(jget "$2" '"ok" if all(p["device"]["ipackets"] == p["rx"] for p in j["ports"]) else [(p["device"]["ipackets"], p["rx"]) for p in j["ports"]]')" ok
}

ofan_finish() {
	if [ "$FAILS" -ne 0 ]; then
		echo "== $T_NAME: $FAILS check(s) FAILED"
		exit 1
	fi
	echo "== $T_NAME: all checks passed"
	exit 0
}

# ---- Network namespaces and veths (tests that talk to Linux hosts) ----
#
# ofan_netns_init replaces the EXIT trap of ofan_setup with one that first
# stops every process the script started, then deletes every veth and
# namespace made with ofan_veth_add and ofan_netns_add (whether the script
# passed, failed, or got SIGINT/SIGTERM), then does ofan_cleanup's work.
# Names must be unique to the script's process (use $$) and veth names
# at most 15 characters (IFNAMSIZ).
OFAN_NETNS=()
OFAN_LINKS=()

ofan_netns_init() {
	trap ofan_netns_cleanup EXIT
	# Namespaces outlive the script: clean up on a hang-up or a closed
	# output pipe (`| head`) too, not only on SIGINT and SIGTERM.
	trap 'exit 129' HUP
	trap 'exit 141' PIPE
}

ofan_netns_cleanup() {
	local rc=$?

	ofan_netns_teardown
	if [ "$rc" -eq 0 ]; then
		ofan_cleanup
	else
		# ofan_cleanup exits with the status it finds in $?.
		(exit "$rc") || ofan_cleanup
	fi
}

# ofan_netns_add NAME: a new network namespace; fails if NAME exists.
ofan_netns_add() {
	ip netns add "$1" || return 1
	OFAN_NETNS+=("$1")
}

# ofan_veth_add IF NS PEER: a veth pair, IF in the root namespace and PEER
# inside namespace NS, both up, IPv6 off on IF (no router solicitations or
# neighbour discovery from the root namespace's stack on it).
ofan_veth_add() {
	ip link add "$1" type veth peer name "$3" netns "$2" || return 1
	OFAN_LINKS+=("$1")
	if [ -w "/proc/sys/net/ipv6/conf/$1/disable_ipv6" ]; then
		echo 1 >"/proc/sys/net/ipv6/conf/$1/disable_ipv6"
	fi
	ip link set "$1" up && ip -n "$2" link set "$3" up
}

# ofan_stop_pids: SIGTERM every process the script started and wait for
# it; SIGKILL what is still alive after 10 s.
ofan_stop_pids() {
	local pid i

	for pid in "${PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	PIDS=()
}

# ofan_netns_teardown: stop the script's processes, delete its veths and
# namespaces and its DPDK runtime directory.  Idempotent.
ofan_netns_teardown() {
	local x

	ofan_stop_pids
	for x in "${OFAN_LINKS[@]}"; do
		if ip link show dev "$x" >/dev/null 2>&1; then
			ip link del "$x" 2>/dev/null || true
		fi
	done
	for x in "${OFAN_NETNS[@]}"; do
		ip netns del "$x" 2>/dev/null || true
	done
	if [ -n "$RUNDIR" ]; then
		rm -rf "$RUNDIR"
	fi
}

# ofan_netns_leftovers: print every namespace or veth of the helpers that
# still exists (nothing once ofan_netns_teardown has run).
ofan_netns_leftovers() {
	local x

	for x in "${OFAN_NETNS[@]}"; do
		if [ -e "/run/netns/$x" ] || ip netns list | grep -qw -- "$x"; then
			echo "namespace $x"
		fi
	done
	for x in "${OFAN_LINKS[@]}"; do
		if ip link show dev "$x" >/dev/null 2>&1; then
			echo "link $x"
		fi
	done
}
