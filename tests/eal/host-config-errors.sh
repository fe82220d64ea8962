#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ofan-host refuses bad configurations before it touches anything.  Each
# bad configuration is one change to a good one whose port 0 is
# net_pcap0,tx_pcap=OUT.pcap; it is run twice, with --check-config and as
# a real run (EAL arguments, --results), and both must
#   - exit with status 2,
#   - print exactly one line on stderr, naming FILE:SECTION:KEY and the bad
#     value (for a connection-matrix file: CM_FILE:LINE and the bad field),
#   - print nothing on stdout,
#   - leave no trace: OUT.pcap, the results JSON and CSV and the EAL
#     runtime directory must not exist afterwards (EAL never started).
# --list prints every registered policy, pattern, recovery model and
# congestion controller, the names the config's messages offer, and
# starts nothing.
# The good configuration passes --check-config, with a one-line summary;
# run for real it does create OUT.pcap (so "no trace" can fail), and as
# its port 0 only writes a file, it times out with exit status 1.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"


# hs_run TAG ARGS...: run `timeout -k 10 60 ofan-host ARGS`, stdout and stderr
# in $TMP/TAG.out and $TMP/TAG.err.  Sets SW_RC (for lib.sh's expect_rc).
hs_run() {
	local tag=$1 pid

	shift
	timeout -k 10 60 "$HOST" "$@" >"$TMP/$tag.out" 2>"$TMP/$tag.err" &
	pid=$!
	PIDS+=("$pid")
	SW_RC=0
	wait "$pid" || SW_RC=$?
	ofan_forget "$pid"
}

OFAN_NEEDS=(host/ofan-host)
ofan_setup host_config_errors "$@"

OUT=$TMP/OUT.pcap

# write_config NAME [HOST_LINES [TRAFFIC_LINES [PORT1_LINES]]]
write_config() {
	cat >"$TMP/$1.ini" <<EOF
[host]
${2-policy = reps}
rate = 1G
stats_interval = 0

[ranks]
count = 2

[traffic]
${3-pattern = alltoall}
size = 64KiB

[port.0]
dev = net_pcap0,tx_pcap=$OUT
rank = 0

[port.1]
dev = net_null0
${4-rank = 1}
EOF
}

# nothing_touched CASE: no OUT.pcap, no results, no EAL runtime dir.
nothing_touched() {
	local what found=()

	for what in "$OUT" "$TMP/$1.json" "$TMP/$1-flows.csv" "$RUNDIR"; do
		if [ -e "$what" ]; then
			found+=("$what")
			rm -rf "$what"
		fi
	done
	if [ ${#found[@]} -eq 0 ]; then
		pass "$1: nothing created (OUT.pcap, results, EAL runtime dir)"
	else
		fail "$1: the run created ${found[*]}"
	fi
}

# bad_config CASE MESSAGE: CASE.ini is refused with exactly MESSAGE.
bad_config() {
	local name=$1 want=$2 cfg=$TMP/$1.ini mode tag

	echo "-- $name"
	for mode in check run; do
		tag=$name-$mode
		if [ "$mode" = check ]; then
			hs_run "$tag" -- --config "$cfg" --check-config
		else
			hs_run "$tag" "${EAL[@]}" -- --config "$cfg" \
				--results "$TMP/$name.json" --timeout 5
		fi
		expect_rc "$name ($mode)" "$tag" 2
		expect_eq "$name ($mode) stderr" "$(cat "$TMP/$tag.err")" "$want"
		expect_eq "$name ($mode): stdout" "$(cat "$TMP/$tag.out")" ""
		nothing_touched "$name"
	done
}

write_config good
echo "-- good configuration"
hs_run good -- --config "$TMP/good.ini" --check-config
expect_rc "good config --check-config" good 0
expect_eq "good config --check-config stdout" "$(cat "$TMP/good.out")" \
	"$TMP/good.ini: ok (2 ranks, 2 flows, 2 local ranks, policy reps)"
expect_eq "good config --check-config stderr" "$(cat "$TMP/good.err")" ""
nothing_touched good

POLICIES="fixed, ops, reps, plb, mp, flowlet, drb, oblivious, bitmap, mixed, reps_uec"
PATTERNS="permutation, alltoall, ring_allreduce, allgather, reduce_scatter, incast, tornado, cm, ring, podring, podring_ol, torring, jobs"

write_config missing_policy ""
bad_config missing_policy \
	"ofan-host: $TMP/missing_policy.ini:host:policy: missing; expected one of $POLICIES"

write_config unknown_policy "policy = ecmp"
bad_config unknown_policy \
	"ofan-host: $TMP/unknown_policy.ini:host:policy: 'ecmp' is unknown; expected one of $POLICIES"

write_config unknown_key "policy = reps
colour = blue"
bad_config unknown_key \
	"ofan-host: $TMP/unknown_key.ini:host:colour: unknown key; allowed keys in [host]: policy, seed, rate, rate_coef, mtu, ack_every, min_rto, reorder_window, base_rtt, cc, ecn, ce_echo, recovery, resend_path, pacing, pacing_jitter, pace_bytes, verify_payload, stats_interval, ev_min, ev_max"

write_config bad_resend_path "policy = reps
resend_path = same"
bad_config bad_resend_path \
	"ofan-host: $TMP/bad_resend_path.ini:host:resend_path: 'same' is unknown; expected one of own, next"

# Two ports on one device (here port.0's net_pcap0 again, with its own
# args): refused from the config, --check-config too.
write_config same_device "policy = reps" "pattern = alltoall" "rank = 1
[port.2]
dev = net_pcap0,tx_pcap=$TMP/other.pcap
rank = 0"
sed -i 's/^count = 2$/count = 3/' "$TMP/same_device.ini"
sed -i '/^\[port.2\]/,$ s/^rank = 0$/rank = 2/' "$TMP/same_device.ini"
bad_config same_device \
	"ofan-host: $TMP/same_device.ini:port.2:dev: 'net_pcap0' is the same device as [port.0]; expected each port on its own device"

# A key that moved from [host] to its model's section is read from
# [host] for a release, with a warning; refused when both places hold
# it; its bad value named where it is written.
write_config moved "policy = reps
recovery = tcp
dupacks = 2"
echo "-- moved key"
hs_run moved -- --config "$TMP/moved.ini" --check-config
expect_rc "moved key --check-config" moved 0
expect_eq "moved key --check-config stderr" "$(cat "$TMP/moved.err")" \
	"ofan-host: warning: $TMP/moved.ini:host:dupacks: moved to [recovery.tcp] dupacks; read from [host] for this release only"
nothing_touched moved

write_config moved_twice "policy = reps
dupacks = 3" "pattern = alltoall" "rank = 1
[recovery.tcp]
dupacks = 2"
bad_config moved_twice \
	"ofan-host: $TMP/moved_twice.ini:host:dupacks: '3' moved to [recovery.tcp] dupacks, which is set too; expected it there only"

write_config moved_cc "policy = reps
cc = ecn_window
window = 8" "pattern = alltoall" "rank = 1
[cc.ecn_window]
window = 16"
bad_config moved_cc \
	"ofan-host: $TMP/moved_cc.ini:host:window: '8' moved to [cc.ecn_window] window, which is set too; expected it there only"

write_config moved_bad "policy = reps
erasure_k = 3x"
bad_config moved_bad \
	"ofan-host: $TMP/moved_bad.ini:host:erasure_k: '3x' is not an integer; expected an integer in [0, 1048576]"

# A model's key in another model's section is read there, and checked,
# whichever model runs (as a policy's [host.<name>]).
write_config other_model "policy = reps
recovery = sack" "pattern = alltoall" "rank = 1
[recovery.tcp]
dupacks = 0"
bad_config other_model \
	"ofan-host: $TMP/other_model.ini:recovery.tcp:dupacks: '0' is out of range; expected an integer in [1, 65536]"

# A rule of two keys names the one written, not the default it breaks
# against (here per_subnet's 1).
write_config ip_base_end "policy = reps"
sed -i 's/^count = 2$/count = 2\nip_base = 10.0.0.255/' "$TMP/ip_base_end.ini"
bad_config ip_base_end \
	"ofan-host: $TMP/ip_base_end.ini:ranks:ip_base: '10.0.0.255' leaves room for 0 ranks a subnet before .254, fewer than per_subnet = 1; expected ip_base's last byte + per_subnet <= 255"

write_config bad_number "policy = reps
mtu = 12abc"
bad_config bad_number \
	"ofan-host: $TMP/bad_number.ini:host:mtu: '12abc' is not an integer; expected an integer in [50, 9000]"

write_config bad_pattern "policy = reps" "pattern = butterfly"
bad_config bad_pattern \
	"ofan-host: $TMP/bad_pattern.ini:traffic:pattern: 'butterfly' is unknown; expected one of $PATTERNS"

write_config rank_range "policy = reps" "pattern = alltoall" "rank = 2"
bad_config rank_range \
	"ofan-host: $TMP/rank_range.ini:port.1:rank: '2' is out of range; expected an integer in [0, 1]"

write_config incast_degree "policy = reps" "pattern = incast
incast_degree = 2"
bad_config incast_degree \
	"ofan-host: $TMP/incast_degree.ini:traffic:incast_degree: '2' senders with 2 ranks; expected 1 to 1 (fewer than the ranks)"

# A connection matrix whose line 3 has a bad size.
CM=$TMP/bad.cm
cat >"$CM" <<EOF
Nodes 2
Connections 2
0->1 start 0 size 12x
1->0 start 0 size 1000
EOF
write_config bad_cm "policy = reps" "pattern = cm
cm_file = $CM"
bad_config bad_cm \
	"ofan-host: $TMP/bad_cm.ini:traffic:cm_file: $CM:3: bad size '12x'; expected a whole number of bytes from 1 to 2147483647"

# A matrix with a failure line: failures are a fabric's.
cat >"$TMP/fail.cm" <<EOF
Nodes 2
Connections 1
Failures 1
0->1 start 0 size 1000
failure switch_type AGG switch_id 0 link_id 0
EOF
write_config fail_cm "policy = reps" "pattern = cm
cm_file = $TMP/fail.cm"
bad_config fail_cm \
	"ofan-host: $TMP/fail.cm:5: a failure line; expected no failures for ofan-host (they are the fabric's: run the matrix in ofan-fabric)"

# A trigger between a rank of this process (0) and one it does not run (2).
cat >"$TMP/trig.cm" <<EOF
Nodes 3
Connections 2
Triggers 1
2->1 id 1 start 0 size 1000 send_done_trigger 7
0->1 id 2 trigger 7 size 1000
trigger id 7 oneshot
EOF
write_config remote_trigger "policy = reps" "pattern = cm
cm_file = $TMP/trig.cm"
sed -i 's/^count = 2/count = 3/' "$TMP/remote_trigger.ini"
bad_config remote_trigger \
	"ofan-host: $TMP/trig.cm:6: trigger 7 joins ranks of this ofan-host with ranks it does not run; expected every flow that activates or waits for a trigger on ranks of one ofan-host process"

# One rank on several lcores: each lcore once, a known steering.
write_config twice_lcore "policy = reps" "pattern = alltoall" "rank = 1
lcores = 0, 0"
bad_config twice_lcore \
	"ofan-host: $TMP/twice_lcore.ini:port.1:lcores: lcore 0 is listed twice; expected each lcore once (one shard of the rank each)"
write_config bad_steer "policy = reps" "pattern = alltoall" "rank = 1
steer = magic"
bad_config bad_steer \
	"ofan-host: $TMP/bad_steer.ini:port.1:steer: 'magic' is unknown; expected one of auto, rss, software"
# An lcore EAL does not run is found once EAL is up, before any port.
write_config no_lcore "policy = reps" "pattern = alltoall" "rank = 1
lcores = 0, 1"
echo "-- no_lcore"
hs_run no_lcore "${EAL[@]}" -- --config "$TMP/no_lcore.ini" \
	--results "$TMP/no_lcore.json" --timeout 5
expect_rc "no_lcore (run)" no_lcore 2
expect_eq "no_lcore (run) stderr" "$(cat "$TMP/no_lcore.err")" \
	"ofan-host: $TMP/no_lcore.ini:port.1:lcores: lcore 1 is not one of EAL's lcores; expected lcores given to EAL (-l), here 1 of them from lcore 0"
nothing_touched no_lcore

# --start-at: a value that is no moment is refused before anything; a
# moment already past when the ports are up stops the run (exit 2) rather
# than start late against the switches' schedules.
echo "-- --start-at"
hs_run bad_start "${EAL[@]}" -- --config "$TMP/good.ini" --start-at soon
expect_rc "--start-at soon" bad_start 2
expect_eq "--start-at soon stderr" "$(head -n 1 "$TMP/bad_start.err")" \
	"ofan-host: --start-at 'soon' is not a moment; expected seconds since the Unix epoch, e.g. 1764633600.25 (date +%s.%N), or @FILE"
nothing_touched bad_start
hs_run past_start "${EAL[@]}" -- --config "$TMP/good.ini" \
	--results "$TMP/past_start.json" --timeout 5 --start-at 1000000000
expect_rc "--start-at in the past" past_start 2
expect_file_has "--start-at in the past" "$TMP/past_start.err" \
	"ofan-host: --start-at is "
expect_file_has "--start-at in the past" "$TMP/past_start.err" \
	"s in the past once the ports are up; expected a later moment"
rm -f "$OUT"

# --list: every registered name, "KIND NAME" a line, before EAL (no
# config, nothing created).  Each kind's names must be the ones the
# config's own messages offer, which come from the same registries, so a
# name --list leaves out or invents fails here.
echo "-- --list"
hs_run list --list
expect_rc "--list" list 0
expect_eq "--list stderr" "$(cat "$TMP/list.err")" ""
expect_eq "--list: lines not KIND NAME" \
	"$(grep -cvE '^(policy|pattern|recovery|cc) [a-z0-9_]+$' "$TMP/list.out" || true)" 0
nothing_touched list
# list_of KIND: the names of KIND in --list, "a, b, c".
list_of() {
	awk -v k="$1" '$1 == k { printf "%s%s", n++ ? ", " : "", $2 }' \
		"$TMP/list.out"
}
# offered KEY: the names ofan-host's message offers for [host] KEY = morse.
offered() {
	write_config "offered_$1" "policy = reps
$1 = morse"
	hs_run "offered_$1" -- --config "$TMP/offered_$1.ini" --check-config
	sed -n 's/.*is unknown; expected one of //p' "$TMP/offered_$1.err"
}
expect_eq "--list: policies" "$(list_of policy)" "$POLICIES"
expect_eq "--list: patterns" "$(list_of pattern)" "$PATTERNS"
expect_eq "--list: recovery models" "$(list_of recovery)" "$(offered recovery)"
expect_eq "--list: congestion controllers" "$(list_of cc)" "$(offered cc)"
expect_cmp "--list: recovery models" "$(grep -c '^recovery ' "$TMP/list.out")" -ge 5
expect_cmp "--list: congestion controllers" "$(grep -c '^cc ' "$TMP/list.out")" -ge 2

# Control: the same ports in a real run do create OUT.pcap (so the checks
# above can fail).  Port 0 sends into a file and receives nothing, so the
# flows never finish: exit status 1 after --timeout.
echo "-- control: a real run of the good configuration"
hs_run control "${EAL[@]}" -- --config "$TMP/good.ini" \
	--results "$TMP/control.json" --timeout 0.5
expect_rc "good config, real run (flows cannot finish)" control 1
if [ -e "$OUT" ]; then
	pass "control: the real run created OUT.pcap"
else
	fail "control: the real run did not create OUT.pcap"
fi
expect_file_has "control stderr" "$TMP/control.err" \
	"ofan-host: timeout after 0.5 s with flows unfinished"

ofan_finish
