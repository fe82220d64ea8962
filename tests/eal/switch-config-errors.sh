#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ofan-switch refuses bad configurations and command lines before it
# touches anything.  Each bad configuration is one change to a good one
# whose port 0 is net_pcap0,tx_pcap=OUT.pcap; it is run twice, with
# --check-config and as a real run, and both must
#   - exit with status 2,
#   - print exactly one line on stderr, naming FILE:SECTION:KEY and the bad
#     value (the strings below are the messages' distinctive parts),
#   - leave no trace: OUT.pcap, the stats JSON and the EAL runtime
#     directory must not exist afterwards (EAL never started).
# A dev that no bus knows (net_bogus0) is found only after EAL starts: the
# run must fail naming FILE:port.N:dev, and the net_pcap ports before it
# must not have created their tx_pcap files.  The good configuration
# passes --check-config.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
ofan_setup config_errors "$@"

OUT=$TMP/OUT.pcap

# write_config NAME [SWITCH_LINES [PORT0_LINES [MORE_SECTIONS]]]
write_config() {
	cat >"$TMP/$1.ini" <<EOF
[switch]
name = cfgtest
${2-policy = ecmp}

[port.0]
dev = net_pcap0,tx_pcap=$OUT
${3-}

[port.1]
dev = net_null0,no-rx=1
peer_mac = 02:00:00:00:10:01

[group.up]
members = 1

[route.a]
prefix = 10.0.1.0/24
group = up
${4-}
EOF
}

# nothing_touched CASE: no OUT.pcap, no CASE.json, no EAL runtime dir.
nothing_touched() {
	local what found=()

	for what in "$OUT" "$TMP/$1.json" "$RUNDIR"; do
		if [ -e "$what" ]; then
			found+=("$what")
			rm -rf "$what"
		fi
	done
	if [ ${#found[@]} -eq 0 ]; then
		pass "$1: nothing created (OUT.pcap, $1.json, EAL runtime dir)"
	else
		fail "$1: the run created ${found[*]}"
	fi
}

# bad_config CASE MESSAGE: CASE.ini is refused with MESSAGE, both ways.
bad_config() {
	local name=$1 want=$2 cfg=$TMP/$1.ini mode tag

	echo "-- $name"
	for mode in check run; do
		tag=$name-$mode
		if [ "$mode" = check ]; then
			sw_run_raw "$tag" -- --config "$cfg" --check-config
		else
			sw_run "$tag" --config "$cfg" --stats-json "$TMP/$name.json" \
				--duration 1
		fi
		expect_rc "$name ($mode)" "$tag" 2
		expect_file_has "$name ($mode) stderr" "$TMP/$tag.err" "$want"
		expect_eq "$name ($mode): stderr lines" \
			"$(wc -l <"$TMP/$tag.err")" 1
		expect_eq "$name ($mode): stdout" "$(cat "$TMP/$tag.out")" ""
		nothing_touched "$name"
	done
}

write_config good
echo "-- good configuration"
sw_run_raw good -- --config "$TMP/good.ini" --check-config
expect_rc "good config --check-config" good 0
expect_eq "good config --check-config stdout" "$(cat "$TMP/good.out")" \
	"$TMP/good.ini: ok (2 ports, 1 groups, 1 routes, policy ecmp)"
nothing_touched good

write_config missing_policy ""
bad_config missing_policy \
	"ofan-switch: $TMP/missing_policy.ini:switch:policy: missing; expected one of ecmp, spray, "

write_config unknown_key "policy = ecmp
colour = blue"
bad_config unknown_key \
	"ofan-switch: $TMP/unknown_key.ini:switch:colour: unknown key; allowed keys in [switch]: name, policy, "

# Two ports on one device (port.1's net_null0 for port.0 too): refused
# from the config, --check-config too.
write_config same_device
sed -i "s|^dev = net_pcap0,tx_pcap=.*|dev = net_null0,no-rx=1|" "$TMP/same_device.ini"
bad_config same_device \
	"ofan-switch: $TMP/same_device.ini:port.1:dev: 'net_null0' is the same device as [port.0]; expected each port on its own device"

# iniparser would keep the last of a repeated key: refused, both lines named.
write_config repeated_key "policy = ecmp
policy = ofan"
bad_config repeated_key \
	"ofan-switch: $TMP/repeated_key.ini:4: [switch] policy is set again (first on line 3); expected each key once in a section"

write_config unknown_section "policy = ecmp" "" "[bogus]
x = 1"
bad_config unknown_section \
	"ofan-switch: $TMP/unknown_section.ini:bogus: unknown section"

# A typo in the section of a policy that is not selected is still a typo.
write_config policy_key "policy = ecmp" "" "[ofan]
nudge_cycle = 3"
bad_config policy_key \
	"ofan-switch: $TMP/policy_key.ini:ofan:nudge_cycle: unknown key; allowed keys in [ofan]: nudge_cycles, shuffle, random_start"

write_config bad_number "policy = ecmp" "queue_packets = 12abc"
bad_config bad_number \
	"ofan-switch: $TMP/bad_number.ini:port.0:queue_packets: '12abc' is not an integer; expected an integer in [1, 1048576]"

write_config hex_number "policy = ecmp
seed = 0x10"
bad_config hex_number \
	"ofan-switch: $TMP/hex_number.ini:switch:seed: '0x10' is not an integer; expected an integer in [0, "

write_config out_of_range "policy = ecmp
burst = 513"
bad_config out_of_range \
	"ofan-switch: $TMP/out_of_range.ini:switch:burst: '513' is out of range; expected an integer in [1, 512]"

write_config unknown_policy "policy = bogus"
bad_config unknown_policy \
	"ofan-switch: $TMP/unknown_policy.ini:switch:policy: 'bogus' is unknown; expected one of ecmp, spray, "

write_config ecn_order "policy = ecmp" "ecn_kmin = 64KiB
ecn_kmax = 32KiB"
bad_config ecn_order \
	"ofan-switch: $TMP/ecn_order.ini:port.0:ecn_kmax: '32768' bytes is below ecn_kmin (65536 bytes); expected ecn_kmin <= ecn_kmax"

write_config trim_no_queue "policy = ecmp" "queue = no
trim = yes"
bad_config trim_no_queue \
	"ofan-switch: $TMP/trim_no_queue.ini:port.0:trim: 'yes' with queue = no; expected queue = yes (a frame is trimmed where it would overflow the software queue)"

write_config rts_no_trim "policy = ecmp" "rts = always"
bad_config rts_no_trim \
	"ofan-switch: $TMP/rts_no_trim.ini:port.0:rts: set while trim = no; expected trim = yes, or no rts"

write_config bad_rts "policy = ecmp" "trim = yes
rts = sometimes"
bad_config bad_rts \
	"ofan-switch: $TMP/bad_rts.ini:port.0:rts: 'sometimes' is unknown; expected one of no, overflow, always"

write_config pfc_no_queue "policy = ecmp" "queue = no
pfc = yes"
bad_config pfc_no_queue \
	"ofan-switch: $TMP/pfc_no_queue.ini:port.0:pfc: 'yes' with queue = no; expected queue = yes (a lossless port counts the bytes it holds in the software queues)"

write_config pfc_trim "policy = ecmp" "trim = yes
pfc = yes"
bad_config pfc_trim \
	"ofan-switch: $TMP/pfc_trim.ini:port.0:pfc: 'yes' with trim = yes; expected one of them (a lossless queue never overflows, so it never trims)"

write_config pfc_xon "policy = ecmp" "pfc = yes
pfc_xoff = 32KiB
pfc_xon = 32KiB"
bad_config pfc_xon \
	"ofan-switch: $TMP/pfc_xon.ini:port.0:pfc_xon: '32768' bytes is not below pfc_xoff (32768 bytes); expected pfc_xon < pfc_xoff"

# A rule of two keys names the one written, not the default it breaks
# against (here pfc_xon's 24000).
write_config pfc_xoff_alone "policy = ecmp" "pfc = yes
pfc_xoff = 20000"
bad_config pfc_xoff_alone \
	"ofan-switch: $TMP/pfc_xoff_alone.ini:port.0:pfc_xoff: '20000' bytes is not above pfc_xon (24000 bytes); expected pfc_xon < pfc_xoff"

write_config pfc_key_alone "policy = ecmp" "pfc_quanta = 100"
bad_config pfc_key_alone \
	"ofan-switch: $TMP/pfc_key_alone.ini:port.0:pfc_quanta: set while pfc = no; expected pfc = yes, or no pfc_quanta"

write_config pfc_priority "policy = ecmp" "pfc = yes
pfc_priority = 8"
bad_config pfc_priority \
	"ofan-switch: $TMP/pfc_priority.ini:port.0:pfc_priority: '8'"

write_config unknown_group
sed -i 's/^group = up$/group = nowhere/' "$TMP/unknown_group.ini"
bad_config unknown_group \
	"ofan-switch: $TMP/unknown_group.ini:route.a:group: 'nowhere' is not a group; expected the NAME of a [group.NAME] section"

write_config syntax "policy = ecmp
this line is not ini"
bad_config syntax \
	"ofan-switch: $TMP/syntax.ini:4: 'this line is not ini' is not valid INI; expected [section], key = value or a comment"

bad_config no_such_file \
	"ofan-switch: $TMP/no_such_file.ini: cannot read: No such file or directory"

write_config reroute_group "policy = ecmp" "" "[reroute.r]
at = 5ms
group = down
weights = 0"
bad_config reroute_group \
	"ofan-switch: $TMP/reroute_group.ini:reroute.r:group: 'down' is not a group; expected the NAME of a [group.NAME] section"

write_config reroute_weights "policy = ecmp" "" "[reroute.r]
at = 5ms
group = up
weights = 1, 0"
bad_config reroute_weights \
	"ofan-switch: $TMP/reroute_weights.ini:reroute.r:weights: has 2 values for the 1 members of [group.up]; expected one weight per member (0: out of the group)"

echo "-- command line"
sw_run_raw no_dashes "${EAL[@]}" --config "$TMP/good.ini"
expect_rc "without '--'" no_dashes 2
expect_file_has "without '--'" "$TMP/no_dashes.err" \
	"ofan-switch: missing '--' before the application options"
expect_file_has "without '--'" "$TMP/no_dashes.err" \
	"usage: ofan-switch [EAL args] -- --config FILE [options]"
sw_run_raw no_config "${EAL[@]}" -- --duration 1
expect_rc "without --config" no_config 2
expect_file_has "without --config" "$TMP/no_config.err" \
	"ofan-switch: --config FILE is required (after --)"
expect_file_has "without --config" "$TMP/no_config.err" \
	"usage: ofan-switch [EAL args] -- --config FILE [options]"
sw_run_raw bad_duration "${EAL[@]}" -- --config "$TMP/good.ini" \
	--duration soon
expect_rc "--duration soon" bad_duration 2
expect_file_has "--duration soon" "$TMP/bad_duration.err" \
	"ofan-switch: --duration: 'soon' is not a duration"
sw_run_raw bad_start "${EAL[@]}" -- --config "$TMP/good.ini" \
	--start-at soon
expect_rc "--start-at soon" bad_start 2
expect_file_has "--start-at soon" "$TMP/bad_start.err" \
	"ofan-switch: --start-at 'soon' is not a moment; expected seconds since the Unix epoch"
sw_run_raw stray_arg "${EAL[@]}" -- --config "$TMP/good.ini" extra
expect_rc "a stray argument" stray_arg 2
expect_file_has "a stray argument" "$TMP/stray_arg.err" \
	"ofan-switch: unexpected argument 'extra'"
nothing_touched command_line

# --start-at @FILE is read once the switch runs: a file that holds no
# moment stops it (exit 2), named with what it holds.
echo "today" >"$TMP/start"
sw_run start_file --config "$TMP/good.ini" --stats-json "$TMP/start.json" \
	--start-at "@$TMP/start" --duration 20
expect_rc "--start-at @FILE holding no moment" start_file 2
expect_file_has "--start-at @FILE holding no moment" "$TMP/start_file.err" \
	"ofan-switch: --start-at $TMP/start: 'today' is not a moment"

# Files a dev names are relative to the config's folder and checked
# before anything runs: a missing capture and a folder that is not there
# are config errors, with the resolved path.
mkdir -p "$TMP/sub"
# write_rel NAME PORT0_DEV: $TMP/sub/NAME.ini (not write_config: port 0
# differs).
write_rel() {
	cat >"$TMP/sub/$1.ini" <<EOF
[switch]
policy = ecmp
[port.0]
dev = $2
[port.1]
dev = net_null0,no-rx=1
peer_mac = 02:00:00:00:10:01
[route.a]
prefix = 10.0.1.0/24
port = 1
EOF
}
write_rel rel_missing "net_pcap0,rx_pcap=in.pcap"
echo "-- rx_pcap missing (relative to the config's folder)"
sw_run_raw rel_missing -- --config "$TMP/sub/rel_missing.ini" --check-config
expect_rc "rx_pcap missing" rel_missing 2
expect_file_has "rx_pcap missing stderr" "$TMP/rel_missing.err" \
	"ofan-switch: $TMP/sub/rel_missing.ini:port.0:dev: rx_pcap '$TMP/sub/in.pcap' cannot be read (No such file or directory); expected an existing capture"
write_rel rel_nodir "net_pcap0,tx_pcap=nodir/out.pcap"
sw_run_raw rel_nodir -- --config "$TMP/sub/rel_nodir.ini" --check-config
expect_rc "tx_pcap folder missing" rel_nodir 2
expect_file_has "tx_pcap folder missing stderr" "$TMP/rel_nodir.err" \
	"ofan-switch: $TMP/sub/rel_nodir.ini:port.0:dev: tx_pcap '$TMP/sub/nodir/out.pcap': its folder cannot be written (No such file or directory)"
echo "-- relative paths work from any directory"
"$PCAPGEN" flows --out "$TMP/sub/in.pcap" --count 4 >/dev/null
rc=0
(cd / && "$SWITCH" -- --config "$TMP/sub/rel_missing.ini" --check-config \
	>"$TMP/rel_ok.out" 2>&1) || rc=$?
expect_eq "rx_pcap relative to the config, run from /: exit status" "$rc" 0
expect_file_has "rx_pcap relative: --check-config" "$TMP/rel_ok.out" ": ok ("

# The device checks need EAL, so these run last (they create RUNDIR).
echo "-- a dev no bus knows, after two net_pcap ports"
cat >"$TMP/bad_dev.ini" <<EOF
[switch]
policy = ecmp
[port.0]
dev = net_pcap0,tx_pcap=$TMP/A.pcap
[port.1]
dev = net_pcap1,tx_pcap=$TMP/B.pcap
[port.2]
dev = net_bogus0
[route.a]
prefix = 10.0.1.0/24
port = 1
EOF
sw_run bad_dev --config "$TMP/bad_dev.ini" --stats-json "$TMP/bad_dev.json" \
	--duration 1
expect_cmp "net_bogus0: exit status" "$SW_RC" -ne 0
expect_file_has "net_bogus0 stderr" "$TMP/bad_dev.err" \
	"ofan-switch: $TMP/bad_dev.ini:port.2:dev: 'net_bogus0' is not a device any bus knows"
for f in A.pcap B.pcap bad_dev.json; do
	if [ -e "$TMP/$f" ]; then
		fail "net_bogus0: $f exists; no port may be probed before every dev is known"
	else
		pass "net_bogus0: $f was not created"
	fi
done

ofan_finish
