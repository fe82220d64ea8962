# shellcheck shell=bash disable=SC2154  # plot.sh sets out, tmp, us and the colours
# SPDX-License-Identifier: BSD-3-Clause
# plot-jobs.sh: the training jobs' plots ([traffic] pattern = jobs), with
# gnuplot.  Sourced by testbed/plot.sh, whose render, gp_quote, $out,
# $tmp, $us and colours it uses; plot_jobs runs when OUT_DIR has
# jobs.csv.
#
# Reads OUT_DIR/jobs.csv and OUT_DIR/job-nodes.csv (columns found by their
# header names) and writes, printing "plot: OUT_DIR/NAME.png" for each:
#
#   iter-time[-COMBO].png      jobs.csv: each job's mean iteration time
#                              per scheme (bars, over iterations and
#                              seeds), and the same job's on the ideal
#                              fabric (a grey bar first); one PNG per combo
#                              (sweep point) when there are several.
#   timeline-SCHEME[-COMBO].png
#                              job-nodes.csv, per combo (sweep point; -COMBO
#                              when there are several), its first seed:
#                              every rank of every job against time, its
#                              compute nodes as wide bars over its
#                              communication nodes (collectives, sends and
#                              receives, from their start to their end) as
#                              thin ones, each dark on even iterations and
#                              light on odd ones.

# The timelines' colours, none near a scheme's (tests/eal/plot-colours.sh
# keeps them at least 15 apart in CIEDE2000): compute on even and on odd
# iterations (wine), then communication (dark green).
tl_colours=("#4a1530" "#8a2a5a" "#285000" "#556b2f")

plot_jobs() {
	local combo file rest label title ncombos nranks scheme seed k i f c t
	# shellcheck disable=SC2086  # one word per name and colour
	{
		printf '%s %s\n' $scheme_colours
		printf 'reserve %s\n' $reserve_colours
	} >"$tmp/colours"
	# ---- iter-time: iteration time per job and scheme ----

	# One data file per combo: a row per job, "job<TAB>ideal<TAB>scheme 1 ...",
	# and $tmp/it.plots: "combo<TAB>file<TAB>scheme<TAB>colour ..." per combo.
	# shellcheck disable=SC2016  # awk code, not shell
	awk -F, -v dir="$tmp" -v colours="$tmp/colours" '
		BEGIN {
			while ((getline l < colours) > 0) {
				split(l, p, " ")
				if (p[1] != "reserve") colour[p[1]] = p[2]
				else rc[++nrc] = p[2]
			}
		}
		{ sub(/\r$/, "") }
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{
			c = $col["combo"]; j = $col["job"]; s = $col["scheme"]
			if (!(c in cseen)) { cseen[c] = 1; combos[++nc] = c }
			if (!((c, j) in jseen)) { jseen[c, j] = 1; jobs[c, ++nj[c]] = j }
			if (!((c, s) in sseen)) { sseen[c, s] = 1; schemes[c, ++ns[c]] = s }
			if ($col["iter_us"] != "") { sum[c, j, s] += $col["iter_us"]; n[c, j, s]++ }
			else open[c, j, s] = 1
			isum[c, j] += $col["ideal_us"]; in_[c, j]++
		}
		END {
			for (k = 1; k <= nc; k++) {
				c = combos[k]; file = dir "/it-" c ".dat"
				for (a = 1; a <= nj[c]; a++) {
					j = jobs[c, a]
					line = j "\t" isum[c, j] / in_[c, j]
					for (b = 1; b <= ns[c]; b++) {
						s = schemes[c, b]
						line = line "\t" (((c, j, s) in open) || n[c, j, s] == 0 ? "?" : sum[c, j, s] / n[c, j, s])
					}
					print line > file
				}
				close(file)
				line = c "\t" file
				for (b = 1; b <= ns[c]; b++) {
					s = schemes[c, b]
					line = line "\t" s "\t" (s in colour ? colour[s] : rc[(b - 1) % nrc + 1])
					# whether any job has its mean iteration time
					has = 0
					for (a = 1; a <= nj[c]; a++)
						if (!((c, jobs[c, a], s) in open) && n[c, jobs[c, a], s] > 0) has = 1
					line = line "\t" has
				}
				print line > (dir "/it.plots")
			}
		}
	' "$out/jobs.csv"
	ncombos=$(wc -l <"$tmp/it.plots")
	# Each combo's sweep values, from runs.csv's sweep_ columns.
	if [ -s "$out/runs.csv" ]; then
		awk -F, '
			{ sub(/\r$/, "") }
			NR == 1 { for (i = 1; i <= NF; i++) { if ($i ~ /^sweep_/) { d[++nd] = i; nm[nd] = substr($i, 7) } if ($i == "combo") c = i } next }
			c && !seen[$c]++ { l = ""; for (k = 1; k <= nd; k++) l = l (k > 1 ? ", " : "") nm[k] " " $d[k]; print $c "\t" l }
		' "$out/runs.csv" >"$tmp/combos"
	else
		: >"$tmp/combos"
	fi
	while IFS=$'\t' read -r combo file rest; do
		label=$(awk -F'\t' -v c="$combo" '$1 == c { print $2 }' "$tmp/combos")
		title="Iteration time per job and scheme"
		[ "$ncombos" -gt 1 ] && title="$title (combo $combo${label:+: $label})"
		{
			printf '%s\n' "set title $(gp_quote "$title")" \
				"set ylabel $(gp_quote "mean iteration time ($us)")" \
				"set xlabel 'job'" \
				'set style data histograms' 'set style histogram clustered gap 1' \
				'set style fill solid 0.85 border -1' 'set yrange [0:*]' \
				'set grid noxtics' 'set key outside right top vertical reverse Left'
			printf 'plot %s using 2:xtic(1) lc rgb "#bbbbbb" title "ideal fabric"' \
				"$(gp_quote "$file")"
			read -ra f <<<"$rest"
			k=3
			for ((i = 0; i < ${#f[@]}; i += 3)); do
				# A scheme whose jobs never ended an iteration has
				# no bar (gnuplot would warn about a column of
				# nothing), only its key entry saying so.
				if [ "${f[i + 2]}" = 1 ]; then
					printf ', \\\n\t%s using %d lc rgb "%s" title %s' \
						"$(gp_quote "$file")" "$k" "${f[i + 1]}" "$(gp_quote "${f[i]}")"
				else
					printf ', \\\n\tkeyentry with boxes lc rgb "%s" title %s' \
						"${f[i + 1]}" "$(gp_quote "${f[i]} (no iteration ended)")"
				fi
				k=$((k + 1))
			done
			echo
		} >"$tmp/body.gp"
		if [ "$ncombos" -gt 1 ]; then
			render "$out/iter-time-$combo.png"
		else
			render "$out/iter-time.png"
		fi
	done <"$tmp/it.plots"

	# ---- timeline: every rank against time, per combo, first seed ----

	if [ -s "$out/job-nodes.csv" ]; then
		# Per combo and scheme, $tmp/tl-COMBO-SCHEME.{comp,comm}{0,1}:
		# "x<TAB>y<TAB>dx<TAB>dy" boxes of the even (0) and odd (1)
		# iterations; $tmp/tl.series: "combo<TAB>scheme<TAB>seed" in
		# order; $tmp/tl.ranks: "y<TAB>label" per rank (the same for all).
		: >"$tmp/tl.series"
		: >"$tmp/tl.ranks"
		awk -F, -v dir="$tmp" '
			{ sub(/\r$/, "") }
			NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
			{ c = $col["combo"]; if (!(c in seed)) seed[c] = $col["seed"] }
			$col["seed"] != seed[c] { next }
			$col["start_us"] == "" || $col["end_us"] == "" { next }
			{
				s = $col["scheme"]; f = dir "/tl-" c "-" s
				if (!((c, s) in seen)) { seen[c, s] = 1; print c "\t" s "\t" seed[c] > (dir "/tl.series") }
				r = $col["job"] "/" $col["rank"]
				if (!(r in y)) { y[r] = ++nr; print nr "\t" r > (dir "/tl.ranks") }
				a = $col["start_us"]; b = $col["end_us"]
				kind = $col["kind"] == "compute" ? "comp" : "comm"
				printf "%.3f\t%d\t%.3f\t%s\n", (a + b) / 2, y[r], (b - a) / 2, kind == "comp" ? 0.4 : 0.18 > (f "." kind ($col["iteration"] % 2))
			}
		' "$out/job-nodes.csv"
		nranks=$(wc -l <"$tmp/tl.ranks")
		ncombos=$(cut -f1 "$tmp/tl.series" | sort -u | wc -l)
		while IFS=$'\t' read -r combo scheme seed; do
			label=$(awk -F'\t' -v c="$combo" '$1 == c { print $2 }' "$tmp/combos")
			title="Ranks over time, $scheme ("
			[ "$ncombos" -le 1 ] || title="${title}combo $combo${label:+: $label}; "
			title="${title}seed $seed)"
			{
				printf '%s\n' \
					"set title $(gp_quote "$title")" \
					"set xlabel $(gp_quote "time since the traffic started ($us)")" \
					"set ylabel 'job/rank'" "set yrange [0.3:$nranks.7]" 'set ytics ()' \
					'set grid noytics' \
					'set key below center horizontal reverse Left width 2 maxcols 2' \
					'set style fill solid 1 noborder'
				# A tic per rank, or every few when there are many.
				awk -F'\t' -v n="$nranks" '
					BEGIN { step = n > 40 ? int(n / 20) : 1 }
					(($1 - 1) % step) == 0 { printf "set ytics add (\"%s\" %d)\n", $2, $1 }
				' "$tmp/tl.ranks"
				# Communication under compute; each in a dark shade
				# on even iterations and a light one on odd, so that
				# one iteration's bars stand apart from the next's.
				# Series without boxes are left out.
				k=0
				for f in comm0 comm1 comp0 comp1; do
					[ -s "$tmp/tl-$combo-$scheme.$f" ] || continue
					case $f in
					comm0) c=${tl_colours[2]} t='communication, iterations 0, 2, ...' ;;
					comm1) c=${tl_colours[3]} t='communication, iterations 1, 3, ...' ;;
					comp0) c=${tl_colours[0]} t='compute, iterations 0, 2, ...' ;;
					comp1) c=${tl_colours[1]} t='compute, iterations 1, 3, ...' ;;
					esac
					if [ "$k" = 0 ]; then
						printf 'plot '
					else
						printf ', \\\n\t'
					fi
					printf '%s using 1:2:3:4 with boxxyerror lc rgb "%s" title %s' \
						"$(gp_quote "$tmp/tl-$combo-$scheme.$f")" "$c" "$(gp_quote "$t")"
					k=$((k + 1))
				done
				echo
			} >"$tmp/body.gp"
			if [ "$k" = 0 ]; then
				note "$out/job-nodes.csv: no node of $scheme (combo $combo) has times; skipping its timeline"
				continue
			fi
			f=timeline-$(printf '%s' "$scheme" | tr -c 'A-Za-z0-9._+-' '_')
			[ "$ncombos" -le 1 ] || f=$f-$combo
			render "$out/$f.png"
		done <"$tmp/tl.series"
	fi
}
