# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash disable=SC2154,SC2034  # caller's variables in, run_rc and steal_* out
# Shared by the benchmarks (bench-switch.sh, bench-host.sh, bench-fabric.sh),
# sourced, not run: it defines functions (and the steal_* and run_seq
# variables); the callers source testbed/lib.sh (die) first.  Its functions
# use the caller's variables, set before they are called: prog, root,
# hugepages (0, 1 or auto) and main_lcore.  They define huge_mounts,
# hugepages (0 or 1 after auto), mem_why, work, run_pid, prefixes (EAL file
# prefixes to clean), build_info, and the cleanup trap, which ends only the
# process this script started (run_pid) and removes only what it created.
# The small helpers at the end (is_uint, last_error, new_prefix, median,
# callgrind_total, json_str, json_num) serve bench-switch.sh and
# bench-host.sh; bench-fabric.sh keeps its own last_error.

# bench_setup KIND: choose the memory (hugepages: 1 = --hugepages, 0 =
# --no-huge, auto = hugepages when the machine has them), pin this script,
# make the work directory and install the traps.  KIND names the temp
# directory.  Sets mem_why: which memory and why, for the report.
bench_setup() {
	local free_pages page_kb free_mb

	# Mount points of hugetlbfs, for --hugepages and for the cleanup.
	huge_mounts=()
	while read -r _ mnt fstype _; do
		[ "$fstype" = hugetlbfs ] && huge_mounts+=("$mnt")
	done </proc/mounts
	free_pages=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	page_kb=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
	free_mb=$(( ${free_pages:-0} * ${page_kb:-0} / 1024 ))
	if [ "$hugepages" = 1 ]; then
		[ ${#huge_mounts[@]} -gt 0 ] ||
			die "--hugepages: no hugetlbfs is mounted; as root: mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages && echo 1024 > /proc/sys/vm/nr_hugepages"
		[ "${free_pages:-0}" -gt 0 ] ||
			die "--hugepages: hugetlbfs is mounted but no hugepage is free (HugePages_Free = ${free_pages:-0}); as root: echo 1024 > /proc/sys/vm/nr_hugepages"
		mem_why="hugepages (--hugepages; $free_mb MB free at ${huge_mounts[0]})"
	elif [ "$hugepages" = auto ]; then
		# Both programs of a row run one after the other and need well
		# under 1 GB (the pool, the FIB, the rings).
		if [ ${#huge_mounts[@]} -gt 0 ] && [ "$free_mb" -ge 1024 ]; then
			hugepages=1
			mem_why="hugepages (found: $free_mb MB free at ${huge_mounts[0]})"
		else
			hugepages=0
			if [ ${#huge_mounts[@]} -eq 0 ]; then
				mem_why="--no-huge -m 1024 (no hugetlbfs mounted)"
			else
				mem_why="--no-huge -m 1024 (hugetlbfs has $free_mb MB free, below 1024)"
			fi
		fi
	else
		mem_why="--no-huge -m 1024 (--no-huge)"
	fi
	# This script's own polling (date, grep, sleep) runs on the main
	# lcore's CPU, never on the measured one.  The programs inherit that
	# CPU for their main and control threads; EAL pins the measured lcore.
	if command -v taskset >/dev/null; then
		taskset -pc "$main_lcore" $$ >/dev/null 2>&1 ||
			echo "$prog: warning: cannot pin this script to CPU $main_lcore" >&2
	fi
	work=$(mktemp -d "${TMPDIR:-/tmp}/ofan-$1.XXXXXX")
	run_pid=
	prefixes=()
	trap bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# Called by the EXIT trap.
# shellcheck disable=SC2317
bench_cleanup() {
	local p m
	if [ -n "$run_pid" ] && kill -0 "$run_pid" 2>/dev/null; then
		kill -INT "$run_pid" 2>/dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$run_pid" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$run_pid" 2>/dev/null || true
		wait "$run_pid" 2>/dev/null || true
	fi
	for p in "${prefixes[@]}"; do
		rm -rf "/var/run/dpdk/$p"
		for m in "${huge_mounts[@]}"; do
			rm -f "$m/${p}"map_*
		done
	done
	# OFAN_BENCH_KEEP=1: keep the work folder (configs, logs, callgrind
	# files) for a closer look.
	if [ -n "${OFAN_BENCH_KEEP:-}" ]; then
		echo "$prog: kept $work" >&2
	else
		rm -rf "$work"
	fi
}

# bench_copy_binary PATH: copy the binary into the work directory (a rebuild
# during the benchmark cannot mix binaries), set build_info to which build it
# was, and print the copy's path.
bench_copy_binary() {
	local nb_dirty

	build_info="$(date -r "$1" '+built %F %T')"
	if git -C "$root" rev-parse --short HEAD >/dev/null 2>&1; then
		build_info+=", git $(git -C "$root" rev-parse --short HEAD)"
		nb_dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
		[ "$nb_dirty" = 0 ] || build_info+=" + $nb_dirty modified files"
	fi
	cp "$1" "$work/$(basename "$1")"
}

# How much of the run the measured thread spent runnable but not running:
# scheduler wait time from /proc/PID/task/TID/schedstat between the first
# and the last look.  The thread is ofan-host's main thread (its loop runs
# on the main lcore), or a named thread such as testpmd's or
# ofan-switch's rte-worker-FWD.
steal_t0='' steal_w0='' steal_t1='' steal_w1='' steal_comm=''
sample_worker() {
	local t comm now wait
	for t in /proc/"$run_pid"/task/*; do
		if [ -n "$steal_comm" ]; then
			read -r comm 2>/dev/null <"$t/comm" || continue
			[ "$comm" = "$steal_comm" ] || continue
		elif [ "${t##*/}" != "$run_pid" ]; then
			continue
		fi
		read -r _ wait _ 2>/dev/null <"$t/schedstat" || return 0
		now=$(date +%s%N)
		if [ -z "$steal_t0" ]; then
			steal_t0=$now
			steal_w0=$wait
		else
			steal_t1=$now
			steal_w1=$wait
		fi
		return 0
	done
}
steal_reset() { # thread name, empty for the main thread
	steal_t0='' steal_w0='' steal_t1='' steal_w1='' steal_comm=$1
}
steal_pct() {
	if [ -n "$steal_t1" ] && [ "$steal_t1" -gt "$steal_t0" ]; then
		awk -v w=$((steal_w1 - steal_w0)) -v t=$((steal_t1 - steal_t0)) \
			'BEGIN { printf "%.1f\n", 100 * w / t }'
	else
		echo nan
	fi
}

# Wait for run_pid until it exits or deadline (epoch seconds) passes; then
# SIGINT, and SIGKILL 5 s later.  Sets run_rc.
wait_run() {
	local deadline=$1
	while kill -0 "$run_pid" 2>/dev/null; do
		sample_worker
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "$prog: pid $run_pid overran its time; interrupting it" >&2
			kill -INT "$run_pid" 2>/dev/null || true
			for _ in $(seq 25); do
				kill -0 "$run_pid" 2>/dev/null || break
				sleep 0.2
			done
			kill -KILL "$run_pid" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
	run_rc=0
	wait "$run_pid" || run_rc=$?
	run_pid=
}

# bench_testpmd_measure BASE STOP_S: supervise the dpdk-testpmd started as
# run_pid with --stats-period 1 and output in BASE.out.  testpmd prints a
# statistics block every 1 to 2 s (it sleeps a whole second between looks
# at the clock), each covering the time since the previous one: note when
# each block appears, stop after the first one that ends STOP_S seconds
# after the first, once one began after the warm-up, then SIGINT it.  Sets
# mpps (mean Tx-pps of the blocks after the warm-up, weighted by their
# length), nb_samples, samples, preempted, note, mpps_json (empty).  Uses
# the caller's warmup, prefix and last_error.
bench_testpmd_measure() {
	local base=$1 stop_s=$2 deadline blocks seen=0 now t0='' prev=''

	: >"$base.blocks"
	deadline=$(($(date +%s) + stop_s + 60))
	while kill -0 "$run_pid" 2>/dev/null; do
		blocks=$(grep -ac 'Port statistics =' "$base.out" || true)
		if [ "$blocks" -gt "$seen" ]; then
			now=$(date +%s%N)
			echo "$blocks $now" >>"$base.blocks"
			seen=$blocks
			[ -n "$t0" ] || t0=$now
			if [ $((now - t0)) -ge $((stop_s * 1000000000)) ] &&
				[ -n "$prev" ] &&
				[ $((prev - t0)) -ge $((warmup * 1000000000 - 100000000)) ]; then
				break
			fi
			prev=$now
		fi
		[ "$(date +%s)" -lt "$deadline" ] || break
		sample_worker
		sleep 0.1
	done
	preempted=$(steal_pct)
	kill -INT "$run_pid" 2>/dev/null || true
	wait_run $(($(date +%s) + 15))
	rm -rf "/var/run/dpdk/$prefix"
	note=
	[ "$run_rc" = 0 ] ||
		note="exit status $run_rc: $(last_error "$base.err" "$base.out")"
	# Keep the blocks whose interval starts after the warm-up; the rate is
	# their mean weighted by interval length.
	read -r mpps nb_samples samples < <(awk -v w="$warmup" '
		FNR == NR { t[$1] = $2; next }
		/Port statistics =/ { b++ }
		/Tx-pps:/ { tx[b] += $2 }
		END {
			for (i = 2; i <= b; i++) {
				if (!(i in t) || !((i - 1) in t))
					continue
				if (t[i - 1] - t[1] < (w - 0.1) * 1e9)
					continue
				d = t[i] - t[i - 1]
				v = sprintf("%.3f", tx[i] / 1e6)
				s += v * d; sd += d; n++
				list = list (list == "" ? "" : ";") v
			}
			if (n == 0 || sd <= 0)
				print "nan 0 -"
			else
				printf "%.3f %d %s\n", s / sd, n, list
		}' "$base.blocks" "$base.out")
	mpps_json=
	[ "$nb_samples" -gt 0 ] || note="${note:+$note; }no statistics block after the warm-up"
}

# Percent of all CPUs busy over one second: other busy processes on these
# cores lower every rate (the load average also counts sleeping I/O, so
# sample /proc/stat instead).
cpu_busy() {
	local a b
	a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
	sleep 1
	b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		busy = y[1] - x[1]; idle = y[2] - x[2]
		total = busy + idle
		printf "%.0f\n", (total > 0) ? 100 * busy / total : 0
	}'
}

# Print how busy the CPUs are before the first run; warn if it matters.
bench_busy_check() {
	local busy

	busy=$(cpu_busy)
	[ "$busy" -lt 10 ] ||
		echo "$prog: warning: the CPUs were ${busy}% busy before the first run; other processes share these cores and lower every rate" >&2
	echo "$busy"
}

# is_uint VALUE: a whole number of at most 9 digits.
is_uint() {
	[[ $1 =~ ^[0-9]+$ ]] && [ ${#1} -le 9 ]
}

# last_error FILE...: why a run failed: the program's own message (a line
# starting with the caller's last_error_own, e.g. "ofan-switch: "), else
# EAL's "Cause:" line, else the first line that looks like an error; lines
# matching the caller's last_error_skip (if set) never count.
last_error() {
	local why='' re
	for re in "^$last_error_own: " 'Cause:' 'error|fail|cannot|invalid'; do
		why=$(cat "$@" 2>/dev/null | tr -d '"\r' |
			{ grep -aiE "$re" || true; } |
			{ if [ -n "${last_error_skip:-}" ]; then
				grep -av "$last_error_skip"
			else
				cat
			fi || true; } | head -1)
		[ -z "$why" ] || break
	done
	why=${why#"${why%%[! ]*}"}
	echo "${why:0:200}"
}

# new_prefix: a new EAL file prefix for the next run (the caller's
# prefix_stem, this script's pid and a sequence number) in prefix, and in
# prefixes for the cleanup.
run_seq=0
new_prefix() {
	run_seq=$((run_seq + 1))
	prefix=$prefix_stem$$-$run_seq
	prefixes+=("$prefix")
}

# Median of the repeats (nan when a run could not be measured).
median() {
	tr ' ' '\n' <<<"$1" | { grep -v '^nan$' || true; } | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) print "nan"
			else if (NR % 2) printf "%.3f\n", v[(NR + 1) / 2]
			else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2
		}'
}

# Instructions callgrind counted, from its output file's "totals:" line
# (with --toggle-collect: only inside the toggled function and what it
# calls).
callgrind_total() { # outfile
	awk '/^totals:/ { print $2; f = 1 } END { if (!f) print "nan" }' "$1" 2>/dev/null ||
		echo nan
}

# callgrind_split OUTFILE PACKETS PROGRAM: "DRIVERS OWN TOP" per packet of
# a profile.  DRIVERS: the poll-mode drivers' share, the largest inclusive
# cost of a function in each librte_net_* object (its burst function,
# whose cost holds what it calls: mbuf frees, mempool caches, their
# thread-local lookups); OWN: the rest of the total; TOP: the five
# functions of PROGRAM's own binary with the largest self cost,
# "name=Ir,..." (nan and - without callgrind_annotate or a count).
callgrind_split() { # outfile packets program
	local total
	total=$(callgrind_total "$1")
	if ! command -v callgrind_annotate >/dev/null || [ "$total" = nan ] ||
		[ "$2" = nan ]; then
		echo "nan nan -"
		return
	fi
	{
		callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
			sed 's/^/I /'
		callgrind_annotate --threshold=100 "$1" 2>/dev/null | sed 's/^/S /'
	} | awk -v t="$total" -v p="$2" -v prog="$3" '
		$2 ~ /^[0-9,]+$/ && $0 ~ /\[.*\]$/ {
			n = $2; gsub(/,/, "", n); obj = $NF; fn = $(NF - 1)
			sub(/^.*:/, "", fn)
			if ($1 == "I" && obj ~ /librte_net_/) {
				if (n + 0 > drv[obj]) drv[obj] = n + 0
			} else if ($1 == "S" && obj ~ ("/" prog "\\]$") && nt < 5) {
				top = top (nt++ ? "," : "") fn "=" sprintf("%.0f", n / p)
			}
		}
		END {
			for (o in drv) d += drv[o]
			printf "%.1f %.1f %s\n", d / p, (t - d) / p, top == "" ? "-" : top
		}'
}

json_str() { # escape for a JSON string
	local s=${1//\\/\\\\}
	s=${s//\"/\\\"}
	printf '"%s"' "$s"
}
json_num() { # nan, empty and - become null
	case $1 in nan | "" | -) printf 'null' ;; *) printf '%s' "$1" ;; esac
}

# Before the rows' verdicts: none noisy, missed or failed yet; each row's
# preemption (res_preempt) the largest of its runs' (res_steal), nan when
# none was measured.
bench_verdicts_start() {
	noisy_pct=2
	nb_noisy=0
	misses=()
	failed=0
	declare -gA res_preempt
	for id in "${rows[@]}"; do
		res_preempt[$id]=$(tr ' ' '\n' <<<"${res_steal[$id]}" |
			{ grep -v '^nan$' || true; } | sort -g | tail -1)
		: "${res_preempt[$id]:=nan}"
	done
}

# A row's verdict (ok, MISS, n/a, -), starred when its run waited for its
# core more than noisy_pct; counts it in nb_noisy, misses and failed.
bench_row_verdict() { # id verdict
	local id=$1 verdict=$2
	if [ "${res_preempt[$id]}" != nan ] &&
		awk -v p="${res_preempt[$id]}" -v l="$noisy_pct" 'BEGIN { exit !(p > l) }'; then
		verdict+="*"
		nb_noisy=$((nb_noisy + 1))
	fi
	# shellcheck disable=SC2004 # res_verdict is the caller's associative array
	res_verdict[$id]=$verdict
	[ "${verdict%\*}" != MISS ] || misses+=("${row_label[$id]}")
	[ "${res_mpps[$id]}" != nan ] || failed=1
}

# The line under the table: what a star means, when a row has one.
bench_noisy_line() {
	[ "$nb_noisy" = 0 ] ||
		echo "* = preempted more than ${noisy_pct}%: that rate is too low; rerun on a quiet machine (or --repeat 3)"
}

json_list() { # "a b", "a;b|c" -> [a, b, c]; '-' (no value) left out
	local IFS=$' \t\n;|' v out='' first=1
	for v in $1; do
		[ "$v" != - ] || continue
		[ "$first" = 1 ] || out+=", "
		out+=$(json_num "$v")
		first=0
	done
	printf '[%s]' "$out"
}

# results.json's lines about the run, the same for switch and host:
# build, memory, lcores, durations, CPU load and runtime.
bench_json_run() {
	printf '  "build": %s,\n' "$(json_str "$build_info")"
	printf '  "memory": %s,\n' "$(json_str "$mem")"
	printf '  "main_lcore": %s,\n  "fwd_lcore": %s,\n' \
		"$main_lcore" "$fwd_lcore"
	printf '  "duration_s": %s,\n  "warmup_s": %s,\n  "repeat": %s,\n' \
		"$duration" "$warmup" "$repeat"
	printf '  "cpu_busy_pct_before": %s,\n  "cpu_busy_pct_after": %s,\n' \
		"$busy_before" "$busy_after"
	printf '  "runtime_s": %s,\n' "$runtime"
}

# After results.csv and results.json: the run's logs beside them.
bench_results_done() {
	rm -rf "$out_dir/logs"
	cp -r "$logs" "$out_dir/logs"
	echo "results: $out_dir/results.csv $out_dir/results.json (logs in $out_dir/logs)"
}

# The end of a benchmark's report, the same for switch and host: each
# row's note, the rows below target (or that every row meets it), runs
# that could not be measured, the runtime.  Reads the caller's rows,
# row_label, res_note, misses, with_testpmd, failed, out_dir and runtime.
bench_report_end() {
	for id in "${rows[@]}"; do
		[ -z "${res_note[$id]:-}" ] ||
			echo "note: ${row_label[$id]}: ${res_note[$id]}"
	done
	if [ ${#misses[@]} -gt 0 ]; then
		echo "below target: $(printf '%s, ' "${misses[@]}" | sed 's/, $//')"
	elif [ "$with_testpmd" = 1 ] && [ "$failed" = 0 ]; then
		echo "every row meets its target"
	fi
	[ "$failed" = 0 ] ||
		echo "some runs could not be measured (see the notes${out_dir:+ and $out_dir/logs})"
	echo "runtime ${runtime} s"
}
