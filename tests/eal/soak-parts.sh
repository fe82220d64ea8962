#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The soak's parts cover what ofan-host registers, without running one
# (no DPDK): every recovery model `ofan-host --list` prints has its part
# in `testbed/soak.sh --list-parts` (hosts-R, recovery R) and every
# congestion controller is used by one part at least; the switch and the
# training job are there.  A model or controller registered later gets a
# part without a change to the soak: soak_parts.py on an ofan-host that
# lists one more of each gives the model a part on the generic lossy
# set-up and uses the controller.  The coverage check itself fails on a
# list that lacks a model.  --parts picks parts by name, an unknown one
# exits 2.  Each testbed part's experiment generates (ofan-testbed-gen)
# switch and host configs that ofan-switch and ofan-host accept
# (--check-config), with the part's recovery model and controller, and
# trimming or PFC where the part says.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(host/ofan-host switch/ofan-switch testbed/ofan-testbed-gen)
ofan_setup soak_parts "$@"

SOAK=$SRC/testbed/soak.sh
PARTS=("$OFAN_PY" "$SRC/testbed/soak_parts.py")

"$HOST" --list >"$TMP/list.txt"
mapfile -t recs < <(awk '$1 == "recovery" { print $2 }' "$TMP/list.txt")
mapfile -t ccs < <(awk '$1 == "cc" { print $2 }' "$TMP/list.txt")
expect_cmp "ofan-host --list: recovery models" "${#recs[@]}" -ge 1
expect_cmp "ofan-host --list: congestion controllers" "${#ccs[@]}" -ge 1

# uncovered PARTS_FILE [RECOVERY...] -- [CC...]: the models without their
# hosts-R part and the controllers no part uses, one a line.
uncovered() {
	local file=$1 r c
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		r=$1
		shift
		[ "$(awk -v r="$r" '$1 == "hosts-" r && $2 == r' "$file" | wc -l)" = 1 ] ||
			echo "recovery $r"
	done
	shift
	for c in "$@"; do
		awk -v c="$c" '$3 == c { n++ } END { exit !n }' "$file" ||
			echo "cc $c"
	done
}

echo "-- soak.sh --list-parts covers ofan-host --list"
rc=0
"$SOAK" --list-parts >"$TMP/parts.txt" 2>"$TMP/parts.err" || rc=$?
expect_eq "--list-parts: exit status" "$rc" 0
expect_eq "--list-parts: stderr" "$(cat "$TMP/parts.err")" ""
sed 's/^/    /' "$TMP/parts.txt"
expect_eq "models and controllers without a part" \
	"$(uncovered "$TMP/parts.txt" "${recs[@]}" -- "${ccs[@]}" | tr '\n' ' ')" ""
expect_eq "parts: the switch, one per model, the job" \
	"$(awk '{ print $1 }' "$TMP/parts.txt" | tr '\n' ' ')" \
	"switch $(printf 'hosts-%s ' "${recs[@]}")job "
expect_eq "lines of NAME RECOVERY CC WHAT" \
	"$(awk 'NF < 4' "$TMP/parts.txt" | wc -l)" 0

# The check fails where it should: a list without the trim part, and one
# whose controllers are all the first.
# (and its controller, when no other part runs it).
grep -v '^hosts-trim ' "$TMP/parts.txt" >"$TMP/no-trim.txt"
trim_cc=$(awk '$1 == "hosts-trim" { print $3 }' "$TMP/parts.txt")
want="recovery trim "
awk -v c="$trim_cc" '$3 == c' "$TMP/no-trim.txt" | grep -q . ||
	want="${want}cc $trim_cc "
expect_eq "a list without hosts-trim is caught" \
	"$(uncovered "$TMP/no-trim.txt" "${recs[@]}" -- "${ccs[@]}" | tr '\n' ' ')" \
	"$want"
awk -v c="${ccs[0]}" '{ $3 = c; print }' "$TMP/parts.txt" >"$TMP/one-cc.txt"
expect_eq "a list using one controller is caught" \
	"$(uncovered "$TMP/one-cc.txt" "${recs[@]}" -- "${ccs[@]}" | tr '\n' ' ')" \
	"$(printf 'cc %s ' "${ccs[@]:1}")"

echo "-- a model and a controller registered later get their parts"
cat >"$TMP/fake-host" <<EOF
#!/bin/sh
# ofan-host --list, and one more model and controller.
"$HOST" --list
echo "recovery newrec"
echo "cc newcc"
EOF
chmod +x "$TMP/fake-host"
"${PARTS[@]}" list --host "$TMP/fake-host" >"$TMP/fake.txt"
expect_eq "the new model and controller have parts" \
	"$(uncovered "$TMP/fake.txt" "${recs[@]}" newrec -- "${ccs[@]}" newcc | tr '\n' ' ')" ""
expect_file_has "the new model runs on the generic lossy fabric" \
	"$TMP/fake.txt" "hosts-newrec newrec "
expect_eq "its set-up" "$(awk '$1 == "hosts-newrec"' "$TMP/fake.txt" | cut -d' ' -f4-)" \
	"$(awk '$1 == "hosts-sack"' "$TMP/fake.txt" | cut -d' ' -f4-)"

echo "-- --parts"
expect_eq "--parts hosts-trim,job" \
	"$("$SOAK" --list-parts --parts hosts-trim,job | awk '{ print $1 }' | tr '\n' ' ')" \
	"hosts-trim job "
expect_eq "a part keeps its controller in a subset" \
	"$("$SOAK" --list-parts --parts job)" "$(grep '^job ' "$TMP/parts.txt")"
rc=0
"$SOAK" --list-parts --parts hosts-morse >/dev/null 2>"$TMP/bad.err" || rc=$?
expect_eq "--parts hosts-morse: exit status" "$rc" 2
expect_file_has "--parts hosts-morse: message" "$TMP/bad.err" \
	"soak_parts.py: unknown part(s) hosts-morse; expected some of switch, hosts-"

echo "-- every testbed part's configs load"
"${PARTS[@]}" plan --host "$HOST" --out "$TMP/plan.json" >/dev/null
while read -r name rec cc _; do
	[ "$name" != switch ] || continue
	"${PARTS[@]}" experiment --plan "$TMP/plan.json" --part "$name" \
		--iterations 20 \
		--base "$SRC/configs/experiments/testbed-small.ini" \
		--out "$TMP/$name.ini"
	rc=0
	"$BUILD/testbed/ofan-testbed-gen" --config "$TMP/$name.ini" \
		--mode memif --out "$TMP/gen-$name" 2>"$TMP/gen-$name.err" || rc=$?
	expect_eq "$name: ofan-testbed-gen" "$rc" 0
	rc=0
	"$HOST" -- --config "$TMP/gen-$name/hosts-all.ini" --check-config \
		>"$TMP/check-$name.out" 2>&1 || rc=$?
	expect_eq "$name: ofan-host --check-config" "$rc" 0
	expect_eq "$name: the hosts' recovery and cc" \
		"$(grep -E '^(recovery|cc) *=' "$TMP/gen-$name/hosts-all.ini" | sed 's/ *;.*//; s/ *= */=/' | sort | tr '\n' ' ')" \
		"cc=$cc recovery=$rec "
	rc=0
	"$SWITCH" -- --config "$TMP/gen-$name/switch-leaf0.ini" --check-config \
		>"$TMP/check-$name-sw.out" 2>&1 || rc=$?
	expect_eq "$name: ofan-switch --check-config (leaf0)" "$rc" 0
	case $rec in
	trim) expect_file_has "$name: switches trim" \
		"$TMP/gen-$name/switch-leaf0.ini" "trim = yes" ;;
	gbn) expect_file_has "$name: switches are lossless" \
		"$TMP/gen-$name/switch-leaf0.ini" "pfc = yes" ;;
	esac
done <"$TMP/parts.txt"
expect_file_has "job: the job's section reaches the hosts" \
	"$TMP/gen-job/hosts-all.ini" "[job.soak]"

ofan_finish
