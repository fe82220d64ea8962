#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ofan-fabric's printed table (and table.txt), as a reader meets it: every
# column's header is whole (a leaf-spine's spine_down, a long sweep name)
# and ends where the column's values end, in every row; the terminal and
# table.txt say the same.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(fabric/ofan-fabric)
ofan_setup fabric_table "$@"

FAB=$BUILD/fabric/ofan-fabric

# table NAME: checks of $TMP/NAME/table.txt, whose header should name the
# columns in $TMP/NAME.want (one a line, in order), over a row per line of
# $TMP/NAME.rows.
table() {
	local name=$1 file=$TMP/$1/table.txt
	expect_eq "$name: the table printed is table.txt" \
		"$(cmp -s "$TMP/$name.out" "$file" && echo same || echo differ)" same
	expect_eq "$name: the header's columns" \
		"$(head -n 1 "$file" | tr -s ' ' '\n' | tr '\n' ' ')" \
		"$(tr '\n' ' ' <"$TMP/$name.want")"
	# Each header name right-aligned over its values: the columns of the
	# header's word ends are those of every row's (the scheme, first,
	# is left-aligned: its start).
	expect_eq "$name: every row's values end under their header" \
		"$(awk '
			# ends(s): where each word of s ends, the first where it starts
			function ends(s,  i, e, n, w) {
				e = ""; n = 0
				for (i = 1; i <= length(s); i++) {
					w = substr(s, i, 1) != " "
					if (w && (i == 1 || substr(s, i - 1, 1) == " ") && ++n == 1)
						e = i
					if (w && n > 1 && (i == length(s) || substr(s, i + 1, 1) == " "))
						e = e " " i
				}
				return e
			}
			NR == 1 { h = ends($0); next }
			# the rows: up to the notes below them ("max_sd/p99_sd: ...")
			/: / || NF == 0 { exit }
			{ rows++ }
			ends($0) != h { bad++ }
			END { print rows + 0 " rows, " bad + 0 " misaligned" }' "$file")" \
		"$(($(wc -l <"$TMP/$name.rows"))) rows, 0 misaligned"
}

echo "-- a leaf-spine: leaf_up, spine_down, leaf_down"
rc=0
"$FAB" --config "$SRC/configs/experiments/queue-scaling.ini" \
	sweep.load.values=1.0 sweep.size.values=4/2/2 traffic.size=64KiB \
	fabric.schemes=spray,ofan --no-plot --out "$TMP/ls" \
	>"$TMP/ls.out" 2>"$TMP/ls.err" || rc=$?
expect_eq "leaf-spine run: exit status" "$rc" 0
printf '%s\n' scheme load size max_sd p99_sd fct_us coll_us coll_x \
	leaf_up spine_down leaf_down drops ecn_marks data_retx wall_s \
	>"$TMP/ls.want"
printf '%s\n' spray ofan >"$TMP/ls.rows"
table ls

echo "-- a fat tree with a sweep whose name is longer than its column"
sed 's/^\[sweep\.reconverge\]/[sweep.reconverge_delay]/' \
	"$SRC/configs/experiments/failure-blackhole.ini" >"$TMP/ft.ini"
rc=0
"$FAB" --config "$TMP/ft.ini" fabric.k=4 traffic.size=64KiB \
	fabric.schemes=ecmp,ofan failure.hole.link=agg0-core0 \
	sweep.reconverge_delay.values=55us,100us --no-plot --out "$TMP/ft" \
	>"$TMP/ft.out" 2>"$TMP/ft.err" || rc=$?
expect_eq "fat-tree run: exit status" "$rc" 0
printf '%s\n' scheme reconverge_delay max_sd p99_sd fct_us coll_us coll_x \
	tor_up agg_up core_down agg_down tor_down drops ecn_marks data_retx \
	wall_s >"$TMP/ft.want"
printf '%s\n' ecmp ofan ecmp ofan >"$TMP/ft.rows"
table ft

ofan_finish
