#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# plot.sh: PNG plots of the result CSV files of ofan-fabric, with gnuplot.
#
# usage: testbed/plot.sh OUT_DIR
#
# Reads OUT_DIR/runs.csv, OUT_DIR/flows.csv and OUT_DIR/queue-time.csv
# (comma separated, one header line, no quoting; columns are found by their
# header name, never by position) and writes into OUT_DIR, printing
# "plot: OUT_DIR/NAME.png" for each PNG written:
#
#   fct-cdf[-COMBO].png       flows.csv: CDF of flow slowdown (fct / ideal),
#                             one line per scheme, log x from 1.  A flow
#                             without a numeric slowdown counts as
#                             unfinished: its scheme's curve ends below 1.
#                             When two or more curves end in the first
#                             quarter of the x axis and another stretches
#                             it, a second panel below shows them alone on
#                             the range of their slowdowns (a zoom).
#   queue-layers[-COMBO].png  runs.csv: maximum queue per layer (the q_*
#                             columns but q_max), one bar per scheme.
#   queue-time[-COMBO].png    queue-time.csv: maximum queue over every port
#                             (layer "all") per time window, per scheme; each
#                             failure of summary.json a dashed line.  A
#                             scheme's line stops at its run's end (runs.csv's
#                             sim_us, the latest over seeds), marked with a
#                             dotted line in its colour (one black line when
#                             every scheme ends together): queue-time.csv
#                             goes on while the fabric drains after the last
#                             flow is done.
#   iter-time*.png,           jobs.csv and job-nodes.csv of training jobs:
#   timeline-SCHEME.png       testbed/plot-jobs.sh (sourced) says how.
#   sweep-DIM-METRIC.png      runs.csv, for each sweep_DIM column and METRIC
#                             in q_max, max_slowdown, lost_pkts: METRIC
#                             against DIM, one line per scheme, or per
#                             scheme and value of the other sweep dimensions;
#                             with seeds, the mean and its 95 % confidence
#                             interval (Student's t) as error bars.  The y
#                             axis starts at the metric's floor (1 for
#                             max_slowdown and collective_x, else 0); an
#                             interval reaching below it stops there in an
#                             arrowhead, which the key explains.
#
# -COMBO is added when the CSV holds more than one combo (sweep combination).
# A sweep value's x is its leading number (55us -> 55, 8/8/8 -> 8); when a
# dimension has a value without one, or two values sharing one (4/8/8 and
# 4/4/4), its values are placed in order of appearance instead.  Up to 10
# values, or values that are not plain numbers, get a tic each labelled
# with the value; a unit shared by every value (us) goes in the axis label;
# values spanning 100x or more get a log x axis.
# Repeated runs of one scheme in one combo (seeds) are pooled in the CDF,
# give their maximum in the queue plots and their mean in sweep plots.
# Needs gnuplot, awk (mawk is enough), sort; the temporary files go in one
# mktemp directory, removed on exit.
#
# Each scheme has one colour in every plot (plot.sh --colours lists them).
# OFAN_PLOT_GP=DIR keeps each plot's gnuplot script as DIR/NAME.gp, its data
# included (datablocks): `gnuplot DIR/NAME.gp` draws NAME.png again, and with
# its terminal and output lines changed, an SVG or PDF of it.
#
# A missing or header-only CSV skips the plots that need it, with a note on
# stderr.  gnuplot is never left to guess: a series without points is left
# out (or only named in the key), an axis whose values are all one gets a
# range of its own; a gnuplot warning on stderr is a bug (the plot-read
# test checks the plots of several kinds of runs for one).  Exit status:
# 0; 1 if gnuplot failed on a plot; 2 on a usage error or when gnuplot is
# not installed.
set -euo pipefail

prog=$(basename "$0")

# usage [STATUS]: the usage line, then exit STATUS (default 2); on stdout
# when asked for (--help, status 0), on stderr after a mistake.
usage() {
	local u="usage: $prog OUT_DIR   (plots OUT_DIR/{runs,flows,queue-time}.csv into OUT_DIR/*.png)
       $prog --colours  (each scheme's colour, then the reserve colours)"
	if [ "${1:-2}" = 0 ]; then
		echo "$u"
	else
		echo "$u" >&2
	fi
	exit "${1:-2}"
}

note() {
	echo "$prog: $*" >&2
}

# One colour per scheme name in every plot: every switch policy and every
# host policy ofan registers (tests/eal/plot-colours.sh checks that each
# has one, that no two are alike and that none is a reserve colour).
# Other schemes (SWITCH+HOST) take the reserve colours in order of first
# appearance.
scheme_colours="ecmp #9400d3 ops #009e73 reps #56b4e9 spray #e69f00
	adaptive #f0e442 rr #0072b2 ofan #e51e10 plb #000000 flowlet #8c564b
	mp #7f7f7f ecmp_ar #17becf rr_ecmp #66a61e fib_llss #e7298a sr #b8b8ff
	drb #cc79a7 oblivious #0000c0 bitmap #00e000 mixed #800000
	reps_uec #806000"
reserve_colours="#1b3a4b #8dd3c7 #fb8072 #bebada #80b1d3 #fdb462 #b3de69
	#bc80bd"

# gp_quote STRING: STRING as a gnuplot single-quoted string.
gp_quote() {
	local s=${1//\'/\'\'}
	printf "'%s'" "$s"
}

# safe_name STRING: STRING usable in a file name.
safe_name() {
	printf '%s' "$1" | tr -c 'A-Za-z0-9._+-' '_'
}

# pick_terminal: the gnuplot terminal line, pngcairo if this gnuplot has it.
pick_terminal() {
	if gnuplot -e 'set terminal' 2>&1 | grep -qw pngcairo; then
		terminal="set terminal pngcairo size 900,560 noenhanced font 'sans,10'"
		us=µs
	else
		terminal="set terminal png size 900,560 noenhanced"
		us=us
	fi
}

# csv_ready FILE PLOTS COLUMN...: true if FILE has a header naming every
# COLUMN and at least one row; otherwise a note that PLOTS are skipped.
csv_ready() {
	local file=$1 plots=$2 header c
	shift 2
	if [ ! -f "$file" ]; then
		note "$file not found; skipping $plots"
		return 1
	fi
	if [ "$(head -n 2 "$file" | wc -l)" -lt 2 ]; then
		note "$file has no rows; skipping $plots"
		return 1
	fi
	IFS= read -r header <"$file"
	header=${header%$'\r'}
	for c; do
		if [[ ",$header," != *",$c,"* ]]; then
			note "$file has no column $c; skipping $plots"
			return 1
		fi
	done
}

# Awk functions shared by every awk program below (run with -F, and with
# q set to a single quote).
# shellcheck disable=SC2016  # awk code, not shell
awk_lib='
BEGIN { OFS = "\t"; OFMT = CONVFMT = "%.12g"; load_schemes() }
{ sub(/\r$/, "") }
function isnum(s) {
	return s ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/
}
# leadnum(s): the number s starts with, or "" (55us -> 55, 8/8/8 -> 8)
function leadnum(s) {
	if (match(s, /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?/))
		return substr(s, 1, RLENGTH)
	return ""
}
# plain(v): number v without exponent or plus sign, for sort -n
function plain(v) { return v ~ /[eE+]/ ? sprintf("%.9f", v) : v }
# gq(s): s as a gnuplot single-quoted string
function gq(s) { gsub(q, q q, s); return q s q }
# header(): col[NAME] = column number, from the header line
function header(  i) { for (i = 1; i <= NF; i++) col[$i] = i }
# lc(si): the colour of scheme si, fixed per name in every plot
# (scheme_colours), reserve colours for other names in order of first
# appearance
function lc(si,  n) {
	n = sname[si]
	if (n in fixed_colour) return "rgb " q fixed_colour[n] q
	return "rgb " q rc[(other[si] - 1) % nrc + 1] q
}
# load_schemes(): sidx[NAME] = index, sname[INDEX] = NAME
function load_schemes(  s, n) {
	n = split(fixed_colours, fc, " ")
	for (s = 1; s < n; s += 2) fixed_colour[fc[s]] = fc[s + 1]
	nrc = split(reserve_colours, rc, " ")
	while ((getline s < schemes) > 0) {
		sidx[s] = ++nsch; sname[nsch] = s
		if (!(s in fixed_colour)) other[nsch] = ++nother
	}
	close(schemes)
}
# ci_half(sum, sumsq, n): half the 95 % confidence interval of a mean of
# n values (Student t, as in the table), 0 for one value
function ci_half(sum, sumsq, n,  mean, var, t) {
	if (n < 2) return 0
	mean = sum / n
	var = (sumsq - n * mean * mean) / (n - 1)
	if (var < 0) var = 0
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", tq, " ")
	t = (n - 1) in tq ? tq[n - 1] : 1.96
	return t * sqrt(var / n)
}
# combo_index(c): order of first appearance of combo c, cname[] its name
function combo_index(c) {
	if (!(c in cidx)) { cidx[c] = ++ncombo; cname[ncombo] = c }
	return cidx[c]
}
'

# run_awk PROGRAM ARGS...: awk -F, with the shared functions.
run_awk() {
	local program=$1
	shift
	awk -F, -v q="'" -v prog="$prog" -v schemes="$tmp/schemes" -v dir="$tmp" \
		-v fixed_colours="$scheme_colours" -v reserve_colours="$reserve_colours" \
		"$awk_lib$program" "$@"
}

# sort_series: sort "combo index<TAB>scheme index<TAB>x<TAB>..." lines by
# series, then x (plain numbers: sort -n in the C locale is fast).
sort_series() {
	LC_ALL=C sort -t "$(printf '\t')" -k1,1n -k2,2n -k3,3n
}

# list_schemes: $tmp/schemes, every scheme in order of first appearance in
# runs.csv, flows.csv, then queue-time.csv.
list_schemes() {
	local files=() f
	for f in runs flows queue-time; do
		[ -s "$out/$f.csv" ] && files+=("$out/$f.csv")
	done
	: >"$tmp/schemes"
	[ ${#files[@]} -gt 0 ] || return 0
	awk -F, '
		{ sub(/\r$/, "") }
		FNR == 1 { c = 0; for (i = 1; i <= NF; i++) if ($i == "scheme") c = i; next }
		c && !seen[$c]++ { print $c }
	' "${files[@]}" >"$tmp/schemes"
}

# label_combos: $tmp/combos, "COMBO<TAB>DIM=VALUE, DIM=VALUE" per combo of
# runs.csv that has sweep values.
label_combos() {
	: >"$tmp/combos"
	[ -s "$out/runs.csv" ] || return 0
	run_awk '
		NR == 1 {
			header()
			for (i = 1; i <= NF; i++)
				if ($i ~ /^sweep_/) { dim[++nd] = i; name[nd] = substr($i, 7) }
			if (!("combo" in col)) exit
			next
		}
		nd && !seen[$col["combo"]]++ {
			l = ""
			for (d = 1; d <= nd; d++) l = l (d > 1 ? ", " : "") name[d] " " $dim[d]
			print $col["combo"], l
		}
	' "$out/runs.csv" >"$tmp/combos"
}

# combo_title COMBO: " (combo COMBO: DIM=VALUE, ...)" for plot titles, or
# nothing for the only combo of a run without sweep.
combo_title() {
	local label
	label=$(awk -F'\t' -v c="$1" '$1 == c { print $2; exit }' "$tmp/combos")
	if [ "$nkeys" -gt 1 ] || [ -n "$label" ]; then
		printf ' (combo %s%s)' "$1" "${label:+: $label}"
	fi
}

# inline_data: $tmp/body.gp on stdout with every data file it names (a
# quoted path under $tmp) read into a gnuplot datablock ($d1, $d2, ...)
# defined before it, so the script draws the plot on its own.
inline_data() {
	# shellcheck disable=SC2016  # awk code, not shell
	awk -v q="'" -v dir="$tmp/" '
		function esc(s) { gsub(/[][\\.^$*+?(){}|]/, "\\\\&", s); return s }
		BEGIN { re = q esc(dir) "[^" q "]*" q }
		{
			line = ""; rest = $0
			while (match(rest, re)) {
				path = substr(rest, RSTART + 1, RLENGTH - 2)
				if (!(path in name)) { name[path] = "$d" ++n; order[n] = path }
				line = line substr(rest, 1, RSTART - 1) name[path]
				rest = substr(rest, RSTART + RLENGTH)
			}
			body[++nl] = line rest
		}
		END {
			for (i = 1; i <= n; i++) {
				print name[order[i]] " << EOD"
				while ((getline l < order[i]) > 0) print l
				close(order[i])
				print "EOD"
			}
			for (i = 1; i <= nl; i++) print body[i]
		}
	' "$tmp/body.gp"
}

# render PNG [WIDTH,HEIGHT]: run gnuplot on the terminal (900,560 pixels
# unless given) and $tmp/body.gp; print the PNG's path, or note gnuplot's
# failure.  gnuplot's warnings are passed on.
render() {
	local png=$1 rc=0 line
	{
		printf '%s\n' "${terminal/900,560/${2:-900,560}}" 'set encoding utf8' \
			"set output $(gp_quote "$png")"
		printf '%s\n' 'set datafile separator "\t"' "set datafile missing '?'" 'set grid'
		inline_data
	} >"$tmp/full.gp"
	if [ -n "${OFAN_PLOT_GP:-}" ]; then
		cp "$tmp/full.gp" "$OFAN_PLOT_GP/$(basename "$png" .png).gp"
	fi
	gnuplot "$tmp/full.gp" 2>"$tmp/gnuplot.err" || rc=$?
	while IFS= read -r line; do
		note "gnuplot, ${png##*/}: $line"
	done <"$tmp/gnuplot.err"
	if [ "$rc" = 0 ]; then
		echo "plot: $png"
	else
		note "gnuplot failed on $png"
		rm -f "$png"
		failed=1
	fi
}

# plot_groups LIST KIND: one PNG per key of LIST (lines "KEY<TAB>gnuplot
# plot clause", grouped by key).  KIND_png KEY prints the PNG's path and
# KIND_settings KEY the gnuplot settings; nkeys is set for them.
plot_groups() {
	local list=$1 kind=$2 keys key n
	mapfile -t keys < <(awk -F'\t' '!seen[$1]++ { print $1 }' "$list")
	nkeys=${#keys[@]}
	for key in "${keys[@]}"; do
		"${kind}_settings" "$key" >"$tmp/body.gp"
		# Unless the settings place the legend: below the plot (with
		# room for its rows), or beside it when long, never over the data.
		if ! grep -q '^set key' "$tmp/body.gp"; then
			n=$(awk -F'\t' -v k="$key" '$1 == k' "$list" | wc -l)
			if [ "$n" -gt 6 ]; then
				echo 'set key outside right top vertical reverse Left'
			else
				echo 'set key below center horizontal reverse Left width 1 maxcols 3'
				echo "set bmargin $((4 + (n + 1) / 2))"
			fi >>"$tmp/body.gp"
		fi
		{
			printf 'plot '
			awk -F'\t' -v k="$key" '$1 == k { printf "%s%s", sep, $2; sep = ", \\\n\t" } END { print "" }' "$list"
		} >>"$tmp/body.gp"
		# A second panel, when the kind draws one (KIND_after).
		if declare -F "${kind}_after" >/dev/null; then
			"${kind}_after" "$key" >>"$tmp/body.gp"
		fi
		render "$("${kind}_png" "$key")" "${plot_size:-}"
		plot_size=
	done
}

# per_combo_png BASE COMBO: BASE.png with one combo, else BASE-COMBO.png.
per_combo_png() {
	if [ "$nkeys" = 1 ]; then
		echo "$out/$1.png"
	else
		echo "$out/$1-$(safe_name "$2").png"
	fi
}

# ---- fct-cdf: CDF of flow slowdown ----

# cdf_data: $tmp/cdf.list from flows.csv, one series file per combo and
# scheme: "slowdown<TAB>fraction of flows" with a step per point.
cdf_data() {
	# combo index, scheme index, slowdown of every finished flow; and
	# $tmp/cdf.n: "combo index, scheme index, flows, combo" per series;
	# $tmp/cdf.xmax: "combo, largest slowdown".
	run_awk '
		NR == 1 { header(); next }
		{
			ci = combo_index($col["combo"]); si = sidx[$col["scheme"]]
			n[ci, si]++
			v = $col["slowdown"]
			if (!isnum(v) || v < 0) next
			if (v < 1) v = 1	# below 1 is rounding
			if (v + 0 > xmax[ci]) xmax[ci] = v + 0
			print ci, si, plain(v)
		}
		END {
			for (k in n) { split(k, p, SUBSEP); print p[1], p[2], n[k], cname[p[1]] > (dir "/cdf.n") }
			for (ci = 1; ci <= ncombo; ci++) print cname[ci], xmax[ci] > (dir "/cdf.xmax")
		}
	' "$out/flows.csv" | sort_series >"$tmp/cdf.sorted"
	# Thin each curve to steps of at least 1e-4 in fraction (and its end).
	run_awk '
		BEGIN { FS = "\t" }
		NR == FNR { n[$1, $2] = $3; cn[$1] = $4; next }
		function flush(end) {
			if (px != "" && (end || py - ly >= 1e-4)) { print px, py > file; ly = py }
		}
		function finish(  unf) {
			flush(1); close(file); done[g] = 1
			unf = n[g] - cnt
			t = sname[psi] (unf ? " (" unf " of " n[g] " flows unfinished)" : "")
			print cn[pci], gq(file) " using 1:2 with steps lw 2 lc " lc(psi) " title " gq(t) > (dir "/cdf.list")
			# the range of its slowdowns, for the zoom panel
			print cn[pci], lo, px, gq(file) " using 1:2 with steps lw 2 lc " lc(psi) " title " gq(t) > (dir "/cdf.range")
		}
		{
			if ($1 != pci || $2 != psi) {
				if (pci != "") finish()
				pci = $1; psi = $2; g = pci SUBSEP psi; cnt = 0
				file = dir "/cdf-" pci "-" psi ".dat"
				print 1, 0 > file; ly = 0; px = ""
			}
			if (++cnt == 1) lo = $3
			if ($3 != px) flush()
			px = $3; py = cnt / n[g]
		}
		END {
			if (pci != "") finish()
			# a series without any finished flow: a legend entry only
			for (k in n) if (!(k in done)) {
				split(k, p, SUBSEP)
				t = sname[p[2]] " (all " n[k] " flows unfinished)"
				print cn[p[1]], "NaN with lines lw 2 lc " lc(p[2]) " title " gq(t) > (dir "/cdf.list")
			}
		}
	' "$tmp/cdf.n" "$tmp/cdf.sorted"
}

# cdf_zoom COMBO: "LO HI" of the zoom panel of combo COMBO, or nothing.
# Curves that all end in the first quarter of the main x axis, while
# another stretches it, are crowded into a few pixels (spraying schemes
# within 2 % of each other beside ECMP's tail): the zoom panel shows
# them on the range of their slowdowns alone.
cdf_zoom() {
	local xmax
	xmax=$(awk -F'\t' -v c="$1" '$1 == c { print $2 + 0 }' "$tmp/cdf.xmax")
	awk -F'\t' -v c="$1" -v x="${xmax:-1}" '
		# pos(v): where v sits on the main x axis, 0 to 1
		function pos(v) {
			if (x < 2) return (v - 1) / ((x * 1.02 < 1.05 ? 1.05 : x * 1.02) - 1)
			return log(v) / log(x * 1.1)
		}
		$1 == c { n++; if (pos($3) <= 0.25) { k++; if (k == 1 || $2 < lo) lo = $2; if (k == 1 || $3 > hi) hi = $3 } }
		END {
			if (k < 2 || k == n) exit
			pad = (hi - lo) * 0.04; if (pad < 0.001) pad = 0.001
			lo -= pad; if (lo < 1) lo = 1
			printf "%.4f %.4f\n", lo, hi + pad
		}
	' "$tmp/cdf.range"
}

cdf_settings() {
	local xmax zoom
	xmax=$(awk -F'\t' -v c="$1" '$1 == c { print $2 + 0 }' "$tmp/cdf.xmax")
	zoom=$(cdf_zoom "$1")
	if [ -n "$zoom" ]; then
		# Two panels: every curve above, the crowded ones below.
		plot_size=900,900
		printf '%s\n' 'set multiplot' 'set origin 0,0.4' 'set size 1,0.6'
	fi
	printf '%s\n' \
		"set title $(gp_quote "Flow slowdown CDF$(combo_title "$1")")" \
		"set ylabel 'fraction of flows (cumulative)'" \
		'set yrange [0:1.02]' \
		'set key inside bottom right reverse Left'
	# The x axis fits the data: linear up to twice the ideal (spraying's
	# 1.0-1.3 stays readable), logarithmic beyond (ECMP's tails).
	awk -v x="${xmax:-1}" 'BEGIN {
		if (x < 2) {
			hi = x * 1.02; if (hi < 1.05) hi = 1.05
			print "set xlabel \"flow slowdown = FCT / ideal FCT\""
			printf "set xrange [1:%.4f]\n", hi
		} else {
			print "set xlabel \"flow slowdown = FCT / ideal FCT (log scale)\""
			print "set logscale x"
			printf "set xrange [1:%.4f]\n", x * 1.1
			# Tics a reader can name: 1, 1.2, 1.5, 2, 3, 5, 10, 20, ...
			n = split("1 1.2 1.5 2 3 5", m, " ")
			t = ""
			for (d = 1; d <= x * 1.1; d *= 10)
				for (i = 1; i <= n; i++)
					if (m[i] * d <= x * 1.1 && (d == 1 || i == 1 || m[i] != 1.2))
						t = t (t == "" ? "" : ", ") sprintf("\"%g\" %g", m[i] * d, m[i] * d)
			print "set xtics (" t ")"
			print "set mxtics 10"
		}
	}'
}

# cdf_after COMBO: the zoom panel, when cdf_zoom finds crowded curves.
cdf_after() {
	local zoom lo hi names
	zoom=$(cdf_zoom "$1")
	[ -n "$zoom" ] || return 0
	read -r lo hi <<<"$zoom"
	names=$(awk -F'\t' -v c="$1" -v lo="$lo" -v hi="$hi" '
		$1 == c && $3 <= hi { t = $4; sub(/.* title \047/, "", t); sub(/( \(|\047).*/, "", t); l = l (l == "" ? "" : ", ") t }
		END { print l }' "$tmp/cdf.range")
	printf '%s\n' 'set origin 0,0' 'set size 1,0.4' \
		"set title $(gp_quote "$(printf 'Zoom on slowdowns %.3f to %.3f: %s' "$lo" "$hi" "$names")")" \
		'unset logscale x' "set xrange [$lo:$hi]" 'set xtics autofreq' \
		'set mxtics default' \
		"set xlabel 'flow slowdown = FCT / ideal FCT'"
	printf 'plot '
	awk -F'\t' -v c="$1" -v hi="$hi" '$1 == c && $3 <= hi { printf "%s%s", sep, $4; sep = ", \\\n\t" } END { print "" }' "$tmp/cdf.range"
	echo 'unset multiplot'
}

cdf_png() {
	per_combo_png fct-cdf "$1"
}

plot_fct_cdf() {
	local csv=$out/flows.csv
	csv_ready "$csv" fct-cdf combo scheme slowdown || return 0
	: >"$tmp/cdf.list"
	: >"$tmp/cdf.range"
	cdf_data
	if [ ! -s "$tmp/cdf.list" ]; then
		note "$csv: no flow finished; skipping fct-cdf"
		return 0
	fi
	plot_groups "$tmp/cdf.list" cdf
}

# ---- queue-layers: maximum queue per layer ----

# queue_layers_data: $tmp/ql.list from runs.csv, one file per combo with a
# row per layer: "layer<TAB>max of scheme 1<TAB>...".
queue_layers_data() {
	run_awk '
		NR == 1 {
			header()
			for (i = 1; i <= NF; i++)
				if ($i ~ /^q_/ && $i != "q_max" && $i != "q_max_frames") { lay[++nl] = i; lname[nl] = substr($i, 3) }
			next
		}
		{
			ci = combo_index($col["combo"]); si = sidx[$col["scheme"]]
			has[ci, si] = 1
			for (l = 1; l <= nl; l++) {
				v = $lay[l]; k = ci SUBSEP si SUBSEP l
				if (isnum(v) && (!(k in max) || v + 0 > max[k])) max[k] = v + 0
			}
		}
		END {
			for (ci = 1; ci <= ncombo; ci++) {
				file = dir "/ql-" ci ".dat"
				for (l = 1; l <= nl; l++) {
					line = lname[l]
					for (si = 1; si <= nsch; si++)
						if ((ci, si) in has)
							line = line "\t" (((ci, si, l) in max) ? max[ci, si, l] : "?")
					print line > file
				}
				close(file)
				c = 1; top = 0
				for (si = 1; si <= nsch; si++)
					if ((ci, si) in has) {
						print cname[ci], gq(file) " using " ++c ":xtic(1) lc " lc(si) " title " gq(sname[si]) > (dir "/ql.list")
						for (l = 1; l <= nl; l++)
							if (((ci, si, l) in max) && max[ci, si, l] > top) top = max[ci, si, l]
					}
				print cname[ci], top > (dir "/ql.max")
			}
		}
	' "$out/runs.csv"
}

ql_settings() {
	printf '%s\n' \
		"set title $(gp_quote "Maximum egress queue per layer$(combo_title "$1")")" \
		"set xlabel 'queue layer (switch egress)'" \
		"set ylabel $(gp_quote "maximum queue ($qunit)")" \
		'set style data histograms' 'set style histogram clustered gap 1' \
		'set style fill solid 0.8 border -1' \
		"set yrange $(y_range "$1" "$tmp/ql.max")" 'set grid noxtics'
}

# y_range KEY FILE: the y range "[0:*]", or "[0:1]" when every value of
# KEY is 0 (FILE: "KEY<TAB>largest value" lines), which gnuplot would
# otherwise warn about and widen itself.
y_range() {
	awk -F'\t' -v k="$1" '
		$1 == k && $2 + 0 > 0 { up = 1 }
		END { print up ? "[0:*]" : "[0:1]" }' "$2"
}

ql_png() {
	per_combo_png queue-layers "$1"
}

plot_queue_layers() {
	local csv=$out/runs.csv
	csv_ready "$csv" queue-layers combo scheme || return 0
	if ! head -n 1 "$csv" | tr -d '\r' | tr , '\n' | grep '^q_' | grep -qvx q_max; then
		note "$csv has no q_<layer> column; skipping queue-layers"
		return 0
	fi
	: >"$tmp/ql.list"
	: >"$tmp/ql.max"
	queue_layers_data
	plot_groups "$tmp/ql.list" ql
}

# ---- queue-time: maximum queue over time ----

# queue_time_data: $tmp/qt.list from queue-time.csv (layer "all"), one file
# per combo and scheme: "t_us<TAB>max_full", the maximum over repeated runs,
# up to the run's end; $tmp/qt.ends, "combo<TAB>end<TAB>colour" per scheme.
queue_time_data() {
	# Each run's end (runs.csv's sim_us: its last flow done, or where it
	# stopped), the latest over seeds, per combo and scheme.
	: >"$tmp/qt.runs"
	if [ -s "$out/runs.csv" ]; then
		run_awk '
			NR == 1 { header(); if (!("sim_us" in col) || !("combo" in col)) exit; next }
			isnum($col["sim_us"]) {
				k = $col["combo"] SUBSEP $col["scheme"]
				if (!(k in end) || $col["sim_us"] + 0 > end[k]) end[k] = $col["sim_us"] + 0
				if (("completed" in col) && $col["completed"] != $col["flows"]) stopped[k] = 1
				if (++n[k] > 1) seeds[k] = 1
			}
			END { for (k in end) { split(k, p, SUBSEP); print p[1], p[2], end[k], (k in stopped), (k in seeds) } }
		' "$out/runs.csv" >"$tmp/qt.runs"
	fi
	run_awk '
		NR == 1 { header(); next }
		$col["layer"] == "all" && isnum($col["t_us"]) && isnum($col["max_full"]) {
			ci = combo_index($col["combo"])
			print ci, sidx[$col["scheme"]], plain($col["t_us"]), $col["max_full"], cname[ci]
		}
	' "$out/queue-time.csv" | sort_series >"$tmp/qt.sorted"
	run_awk '
		BEGIN { FS = "\t" }
		NR == FNR { end[$1, $2] = $3; stopped[$1, $2] = $4; seeds[$1, $2] = $5; next }
		# A window past the run end is not drawn (after the last flow
		# is done the fabric drains what the senders sent beyond what
		# the flows needed), and the last one stops at the end.
		function flush() {
			if (pt == "" || (e != "" && pt >= e)) return
			print pt, pv > file; last = pt; lv = pv
			if (!(pcn in top) || pv > top[pcn]) top[pcn] = pv
		}
		# the last window lasts queue_window (summary.json), or as long
		# as the one before it
		function finish(  w, t) {
			flush()
			w = win + 0 > 0 ? win : ppt != "" ? pt - ppt : 0
			t = last + w
			if (e != "" && t > e) t = e
			if (last != "" && t > last) print t, lv > file
			close(file)
			title = sname[psi]
			if (e != "")
				title = title " (" (stopped[pcn, sname[psi]] ? "stopped at " : seeds[pcn, sname[psi]] ? "latest end " : "end ") sprintf("%.1f", e) " " us ")"
			print pcn, gq(file) " using 1:2 with steps lw 2 lc " lc(psi) " title " gq(title) > (dir "/qt.list")
			if (e != "") print pcn, e, lc(psi) > (dir "/qt.ends")
		}
		{
			if ($1 != pci || $2 != psi) {
				if (pci != "") finish()
				pci = $1; psi = $2; pcn = $5; pt = ppt = last = ""
				file = dir "/qt-" pci "-" psi ".dat"
				e = ((pcn, sname[psi]) in end) ? end[pcn, sname[psi]] : ""
			}
			if ($3 == pt) { if ($4 + 0 > pv) pv = $4 + 0; next }
			flush(); ppt = pt; pt = $3; pv = $4 + 0
		}
		END {
			if (pci != "") finish()
			for (c in top) print c, top[c] > (dir "/qt.max")
		}
	' us="$us" win="$(sed -n 's/.*"queue_window_us": *\([0-9.]*\).*/\1/p' \
		"$out/summary.json" 2>/dev/null | head -1)" "$tmp/qt.runs" "$tmp/qt.sorted"
}

qt_settings() {
	local n
	printf '%s\n' \
		"set title $(gp_quote "Maximum egress queue over every switch port, per time window$(combo_title "$1")")" \
		"set xlabel $(gp_quote "time ($us, start of the window)")" \
		"set ylabel $(gp_quote "maximum queue ($qunit)")" \
		"set yrange $(y_range "$1" "$tmp/qt.max")" 'set offsets 0, graph 0.03, graph 0.05, 0'
	# The key below the plot, two entries a row (and the title).
	n=$(awk -F'\t' -v k="$1" '$1 == k' "$tmp/qt.list" | wc -l)
	printf '%s\n' 'set key below center horizontal reverse Left width 2 maxcols 2' \
		"set bmargin $((5 + (n + 1) / 2))"
	end_marks "$1"
	failure_marks "$1"
}

# end_marks COMBO: a dotted line at the end of each scheme's runs of
# COMBO, in its colour (one black line when they all end together).
end_marks() {
	# shellcheck disable=SC2016  # awk code, not shell
	awk -F'\t' -v c="$1" '
		$1 == c { n++; e[n] = $2; lc[n] = $3; if (n > 1 && $2 != e[1]) differ = 1 }
		END {
			for (i = 1; i <= n; i++) {
				if (!differ && i > 1) break
				printf "set arrow %d from %s, graph 0 to %s, graph 1 nohead dt 3 lw 1.5 lc %s front\n", 100 + i, e[i], e[i], differ ? lc[i] : "rgb \"black\""
			}
		}
	' "$tmp/qt.ends"
}

# failure_marks COMBO: a dashed line at each failure of summary.json's
# fabric.failures (its time since the traffic started), labelled with its
# mode and link; "no failure" said in the key's title when there is none.
# Those are the first combo's failures: when a sweep sets [failure.*]
# keys (config.ini's [sweep.*] keys or [variant.*] lines), another
# combo's plot says its failures are not marked instead.
failure_marks() {
	[ -f "$out/summary.json" ] || return 0
	local first=
	[ ! -s "$out/runs.csv" ] || first=$(awk -F, '
		{ sub(/\r$/, "") }
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "combo") c = i; next }
		c { print $c; exit }' "$out/runs.csv")
	if [ -n "$1" ] && [ -n "$first" ] && [ "$1" != "$first" ] &&
		[ -f "$out/config.ini" ] && awk '
			/^\[/ { sw = /^\[sweep\./; va = /^\[variant\./; next }
			sw && /^[ \t]*keys[ \t]*=.*failure\./ { found = 1 }
			va && /^[ \t]*failure\./ { found = 1 }
			END { exit !found }' "$out/config.ini"; then
		echo 'set key title "failures as this sweep point sets them: not marked"'
		return 0
	fi
	# shellcheck disable=SC2016  # awk code, not shell
	awk -v q="'" '
		function gq(s) { gsub(q, q q, s); return q s q }
		/"failures": \[/ { inf = 1; next }
		inf && /^ *\]/ { exit }
		inf && /"link":/ { v = $0; sub(/.*"link": *"/, "", v); sub(/".*/, "", v); link = v }
		inf && /"mode":/ { v = $0; sub(/.*"mode": *"/, "", v); sub(/".*/, "", v); mode = v }
		inf && /"at_us":/ { v = $0; sub(/.*"at_us": */, "", v); sub(/[^0-9.].*/, "", v); at = v }
		inf && /^ *\}/ && at != "" {
			n++
			printf "set arrow %d from %s, graph 0 to %s, graph 1 nohead dt 2 lw 1.5 lc rgb \"#555555\" back\n", n, at, at
			printf "set label %d %s at %s, graph 0.97 left offset 0.4, 0 textcolor rgb \"#555555\"\n", n, gq(mode " " link), at
			at = ""
		}
		END { if (n == 0) print "set key title \"no failure\"" }
	' "$out/summary.json"
}

qt_png() {
	per_combo_png queue-time "$1"
}

plot_queue_time() {
	local csv=$out/queue-time.csv
	csv_ready "$csv" queue-time combo scheme t_us layer max_full || return 0
	: >"$tmp/qt.list"
	: >"$tmp/qt.ends"
	: >"$tmp/qt.max"
	queue_time_data
	# The key says what the dotted lines are.
	awk -F'\t' -v q="'" '!seen[$1]++ {
		print $1 "\tkeyentry with lines dt 3 lw 1.5 lc rgb " q "black" q " title " q "dotted: each run end (nothing drawn after)" q
	}' "$tmp/qt.ends" >>"$tmp/qt.list"
	if [ ! -s "$tmp/qt.list" ]; then
		note "$csv has no row of layer all; skipping queue-time"
		return 0
	fi
	plot_groups "$tmp/qt.list" qt
}

# ---- sweep-DIM-METRIC: a metric against a sweep dimension ----

# sweep_data: from runs.csv, $tmp/sweep.meta, a line per dimension
# "index<TAB>name<TAB>unit<TAB>xtics<TAB>logx<TAB>ordinal", and
# $tmp/sweep.list, one file per dimension, metric, scheme and values of the other dimensions:
# "x<TAB>metric" sorted by x.  Keys of sweep.list are "index/metric".
sweep_data() {
	run_awk '
		NR == 1 {
			header()
			for (i = 1; i <= NF; i++)
				if ($i ~ /^sweep_/) { dim[++nd] = i; dname[nd] = substr($i, 7) }
			nm = split("q_max max_slowdown lost_pkts collective_x", metric, " ")
			next
		}
		{
			nr++
			for (i = 1; i <= NF; i++) cell[nr, i] = $i
			k = $col["scheme"]
			for (d = 1; d <= nd; d++) k = k SUBSEP $dim[d]
			if (k in seen) dups++
			seen[k] = 1
		}
		END {
			for (d = 1; d <= nd; d++) {
				x_axis(d)
				for (m = 1; m <= nm; m++) if (metric[m] in col) series(d, metric[m])
			}
			if (dups)
				print prog ": " FILENAME ": " dups " rows repeat a scheme and its sweep values (seeds); sweep plots show their mean and 95 % confidence interval" > "/dev/stderr"
		}
		# x_axis(d): xv[VALUE] = x of each value of dimension d, and its
		# line of sweep.meta.  x is the leading number of the value, or
		# the order of appearance if a value has none or shares it.
		function x_axis(d,  r, v, nv, val, num, seenx, numeric, allnum, u, unit, same, tics, mn, mx, i) {
			split("", xv); numeric = same = allnum = 1; nv = 0
			for (r = 1; r <= nr; r++) {
				v = cell[r, dim[d]]
				if (v in xv) continue
				val[++nv] = v; num = leadnum(v); xv[v] = num + 0
				if (!isnum(v)) allnum = 0
				if (num == "" || (num + 0) in seenx) numeric = 0
				seenx[num + 0] = 1
				u = substr(v, length(num) + 1)
				if (nv == 1) unit = u; else if (u != unit) same = 0
				if (nv == 1 || num + 0 < mn) mn = num + 0
				if (nv == 1 || num + 0 > mx) mx = num + 0
			}
			# one value: at x = 1, in the middle of the axis
			if (nv == 1) numeric = 0
			if (!numeric || !same || unit !~ /^[A-Za-z%]+$/) unit = ""
			# a tic at each value when few, or when not a number (8/8/8),
			# labelled with the value less the unit of the axis label
			tics = ""
			if (!numeric || nv <= 10 || (unit == "" && !allnum)) {
				for (i = 1; i <= nv; i++) {
					if (!numeric) xv[val[i]] = i
					v = unit == "" ? val[i] : leadnum(val[i])
					tics = tics (i > 1 ? ", " : "(") gq(v) " " xv[val[i]]
				}
				tics = tics ")"
			}
			print d, dname[d], unit, tics, (numeric && mn > 0 && mx >= 100 * mn), (!numeric && nv > 1), (nv == 1) > (dir "/sweep.meta")
		}
		# series(d, m): the files and plot clauses of metric m against
		# dimension d, a line per scheme and values of the others.
		function series(d, m,  r, y, s, e, others, oi, oname, no, o, x, k, np, px, py, pq, pn, n, i, j, t, file, dt, pt, kk, mean, half, bars, floor, lo, cut, fl, clipped) {
			floor = m == "max_slowdown" || m == "collective_x" ? 1 : 0
			for (r = 1; r <= nr; r++) {
				y = cell[r, col[m]]
				if (!isnum(y)) continue
				s = sidx[cell[r, col["scheme"]]]
				others = ""
				for (e = 1; e <= nd; e++)
					if (e != d) others = others (others == "" ? "" : ", ") dname[e] " " cell[r, dim[e]]
				if (!(others in oi)) { oi[others] = ++no; oname[no] = others }
				o = oi[others]; x = xv[cell[r, dim[d]]]
				k = s SUBSEP o SUBSEP x
				if (!(k in py)) px[s, o, ++np[s, o]] = x
				py[k] += y; pq[k] += y * y; pn[k]++
			}
			for (s = 1; s <= nsch; s++) for (o = 1; o <= no; o++) {
				if (!((s, o) in np)) continue
				n = np[s, o]
				for (i = 2; i <= n; i++)	# insertion sort by x
					for (j = i; j > 1 && px[s, o, j - 1] > px[s, o, j]; j--) {
						t = px[s, o, j]; px[s, o, j] = px[s, o, j - 1]; px[s, o, j - 1] = t
					}
				file = dir "/sweep-" d "-" m "-" s "-" o ".dat"
				bars = clipped = 0
				for (i = 1; i <= n; i++) {
					kk = s SUBSEP o SUBSEP px[s, o, i]
					mean = py[kk] / pn[kk]
					half = ci_half(py[kk], pq[kk], pn[kk])
					if (pn[kk] > 1) bars = 1
					# The interval stops at the floor of the metric
					# (a slowdown is at least 1, a count at least 0;
					# a mean below it is rounding): a fifth column
					# marks the points whose interval went below.
					lo = mean - half; cut = "?"
					fl = mean < floor ? mean : floor
					if (lo < fl) { lo = cut = fl; clipped = 1 }
					if (!((d, m) in ymin) || lo < ymin[d, m]) ymin[d, m] = lo
					if (!((d, m) in ymax) || mean + half > ymax[d, m]) ymax[d, m] = mean + half
					print px[s, o, i], mean, lo, mean + half, cut > file
				}
				close(file)
				dt = no > 1 ? (o - 1) % 5 + 1 : 1
				pt = no > 1 ? substr("7 5 9 11 13 1 2 3 4 6 8 10 12 14", 1 + 2 * ((o - 1) % 5), 2) + 0 : 7
				t = sname[s] (oname[o] == "" ? "" : ", " oname[o])
				# With seeds: the mean and its 95 % confidence interval.
				print d "/" m, gq(file) (bars ? " using 1:2:3:4 with yerrorlines" : " using 1:2 with linespoints") " lw 2 ps 1.2 lc " lc(s) " dt " dt " pt " pt " title " gq(t) > (dir "/sweep.list")
				# An interval cut at the floor ends in an arrowhead.
				if (clipped) {
					print d "/" m, gq(file) " using 1:2:(0):($5 - $2) with vectors head filled size screen 0.012,25 lw 2 lc " lc(s) " dt 1 notitle" > (dir "/sweep.list")
					cut_any[d, m] = 1
				}
			}
			# The y axis starts at the floor; the key says when an
			# interval was cut there.
			if ((d, m) in ymin)
				print d "/" m, (ymin[d, m] < floor ? ymin[d, m] : floor), ymax[d, m] > (dir "/sweep.floor")
			if ((d, m) in cut_any)
				print d "/" m, "keyentry with vectors head filled size screen 0.012,25 lw 2 lc rgb " q "black" q " title " gq("95 % interval cut at the floor (" floor ")") > (dir "/sweep.list")
		}
	' "$out/runs.csv"
}

# sweep_meta KEY FIELD: FIELD (2 name, 3 unit, 4 xtics, 5 logx, 6 ordinal,
# 7 a single value) of the dimension of sweep.list key KEY ("index/metric").
sweep_meta() {
	awk -F'\t' -v d="${1%%/*}" -v f="$2" '$1 == d { print $f; exit }' "$tmp/sweep.meta"
}

sweep_settings() {
	local metric=${1#*/} name unit tics order what ylabel
	name=$(sweep_meta "$1" 2)
	unit=$(sweep_meta "$1" 3)
	tics=$(sweep_meta "$1" 4)
	order=
	[ "$(sweep_meta "$1" 6)" != 1 ] || order=" (values in sweep order)"
	case $metric in
	q_max) what='Maximum egress queue' ylabel="maximum queue over every switch port ($qunit)" ;;
	max_slowdown) what='Maximum flow slowdown' ylabel='maximum flow slowdown (FCT / ideal FCT)' ;;
	lost_pkts) what='Packets lost' ylabel='packets dropped in the fabric (data and ACKs)' ;;
	collective_x) what='Collective completion time / ideal' ylabel='collective time / ideal (critical path of ideal flows)' ;;
	esac
	[ "$unit" != us ] || unit=$us
	printf '%s\n' \
		"set title $(gp_quote "$what against sweep dimension $name")" \
		"set xlabel $(gp_quote "$name${unit:+ ($unit)}$order")" \
		"set ylabel $(gp_quote "$ylabel")" \
		'set autoscale xfix' 'set offsets graph 0.05, graph 0.05, graph 0.05, 0'
	[ -z "$tics" ] || echo "set xtics $tics"
	[ "$(sweep_meta "$1" 5)" != 1 ] || echo 'set logscale x'
	[ "$(sweep_meta "$1" 7)" != 1 ] || echo 'set xrange [0:2]'
	# The y axis starts at the metric's floor (1 for a slowdown, 0 for
	# a count), or at the lowest point when one is below it; when every
	# point is there (no packet lost), it goes 1 higher: gnuplot would
	# warn about an empty range and widen it itself.
	awk -F'\t' -v k="$1" '$1 == k {
		if ($3 > $2) printf "set yrange [%s:*]\n", $2
		else printf "set yrange [%s:%s]\n", $2, $2 + 1
	}' "$tmp/sweep.floor"
}

sweep_png() {
	echo "$out/sweep-$(safe_name "$(sweep_meta "$1" 2)")-${1#*/}.png"
}

plot_sweeps() {
	local csv=$out/runs.csv
	[ -f "$csv" ] && head -n 1 "$csv" | grep -q '\(^\|,\)sweep_' || return 0
	csv_ready "$csv" sweep scheme || return 0
	: >"$tmp/sweep.meta"
	: >"$tmp/sweep.list"
	: >"$tmp/sweep.floor"
	sweep_data
	if [ ! -s "$tmp/sweep.list" ]; then
		note "$csv has none of q_max, max_slowdown, lost_pkts, collective_x with numbers; skipping sweep"
		return 0
	fi
	plot_groups "$tmp/sweep.list" sweep
}

# queue_unit: $qunit, the unit every queue axis is in, as the table says
# it: full frames of summary.json's full_frame_bytes when every run has
# the same, else full frames' worth of bytes.
queue_unit() {
	local sizes=
	[ ! -f "$out/summary.json" ] ||
		sizes=$(sed -n 's/.*"full_frame_bytes": *\([0-9]*\).*/\1/p' \
			"$out/summary.json" | sort -u)
	if [ -n "$sizes" ] && [ "$(echo "$sizes" | wc -l)" = 1 ]; then
		qunit="full $sizes-byte frames' worth of bytes"
	else
		qunit="full frames' worth of bytes"
	fi
}

# The training jobs' plots: plot_jobs.
# shellcheck source=testbed/plot-jobs.sh
. "$(dirname "$0")/plot-jobs.sh"

main() {
	[ $# -eq 1 ] || usage
	case $1 in
	--version) exec "$(dirname "$0")/../scripts/version.sh" "$0" ;;
	-h | --help) usage 0 ;;
	--colours)
		# shellcheck disable=SC2086  # one word per name and colour
		printf '%s %s\n' $scheme_colours
		# shellcheck disable=SC2086
		printf 'reserve %s\n' $reserve_colours
		exit 0
		;;
	esac
	out=${1%/}
	[ -n "$out" ] || out=/
	if [ ! -d "$out" ] || [ ! -w "$out" ]; then
		note "$out is not a writable directory"
		exit 2
	fi
	if ! command -v gnuplot >/dev/null; then
		echo "$prog: gnuplot not found; install it with: apt-get install gnuplot-nox" >&2
		exit 2
	fi
	pick_terminal
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ofan-plot.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	failed=0
	queue_unit
	list_schemes
	label_combos
	plot_fct_cdf
	plot_queue_layers
	plot_queue_time
	plot_sweeps
	# Training jobs: their own plots (testbed/plot-jobs.sh).
	if [ -s "$out/jobs.csv" ]; then
		plot_jobs
	fi
	[ "$failed" = 0 ] || exit 1
}

main "$@"
