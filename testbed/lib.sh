# shellcheck shell=bash disable=SC2154  # $prog: the caller's
# SPDX-License-Identifier: BSD-3-Clause
#
# Shared by the testbed scripts (testbed.sh, sriov.sh, replay.sh, soak.sh,
# capture.sh and the benchmarks bench-switch.sh, bench-host.sh,
# bench-fabric.sh).  Sourced, not run, after the script has set
# $prog (its name, for messages).

# die MESSAGE: one line on stderr, exit 2 (bad usage or set-up).
die() {
	echo "$prog: $*" >&2
	exit 2
}

# need_arg OPTION NB_ARGS_LEFT: an option's value must follow it.
need_arg() {
	[ "$2" -ge 2 ] || die "$1 needs a value (see --help)"
}

# dpdk_runtime_dir PREFIX: where EAL keeps the runtime files of a process
# started with --file-prefix PREFIX (as dpdk-telemetry.py computes it).
dpdk_runtime_dir() {
	if [ -n "${RUNTIME_DIRECTORY:-}" ]; then
		echo "$RUNTIME_DIRECTORY/dpdk/$1"
	elif [ "$(id -u)" -eq 0 ]; then
		echo "/var/run/dpdk/$1"
	else
		echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$1"
	fi
}

# switch_policies BINARY: the policies ofan-switch registers, one a line,
# as its --help lists them.
switch_policies() {
	"$1" --help | awk '/^policies/ { on = 1; next } on && /^  [a-z_]+ / { print $1 }'
}

# stop_pid PID SIGNAL: end a child this script started: SIGNAL (INT lets
# DPDK programs write their results), up to 5 s to exit, then SIGKILL;
# reaped either way.  Nothing if it is already gone.
stop_pid() {
	local i

	kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null || true; return 0; }
	kill "-$2" "$1" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}
