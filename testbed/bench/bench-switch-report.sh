# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash disable=SC2154  # bench-switch.sh's variables
# bench-switch-report.sh: the results of bench-switch.sh; sourced by it, not
# run.  summarise: each row's median, spread of the per-second samples,
# largest preemption, ratios to l3fwd-lpm and testpmd 5tswap and verdict,
# misses and failed (a row could not be measured), the memory line;
# report: the table; write_results: DIR/results.csv, DIR/results.json and
# DIR/logs (--out DIR).  They read bench-switch.sh's options, rows, row_*
# and res_* (its runs' results), after its runs.

summarise() {
	declare -gA res_mpps res_range
	for id in "${rows[@]}"; do
		res_mpps[$id]=$(median "${res_all[$id]}")
		# The spread of the per-second samples shows how noisy the machine was.
		res_range[$id]=$(tr -s ';|' '\n' <<<"${res_samples[$id]}" |
			{ grep -E '^[0-9.]+$' || true; } | sort -g |
			awk 'NR == 1 { lo = $1 } { hi = $1 }
			     END { if (NR) printf "%.1f-%.1f", lo, hi; else print "-" }')
	done
	base_mpps=nan
	[ "$with_testpmd" = 0 ] || base_mpps=${res_mpps[testpmd-5tswap]}
	l3_mpps=nan
	[ "$with_l3fwd" = 0 ] || l3_mpps=${res_mpps[l3fwd-lpm]}

	# A row whose forwarding thread lost more than 2 % of its run to other
	# processes is marked with '*': its rate (and, for the baseline, every
	# ratio) is low by about that much or more.
	bench_verdicts_start
	declare -gA res_ratio res_ratio_l3 res_verdict
	for id in "${rows[@]}"; do
		# ok only when every target of the row holds (5tswap, and l3fwd
		# where it has one); n/a when a target's anchor was not measured.
		read -r ratio ratio_l3 verdict < <(awk -v m="${res_mpps[$id]}" \
			-v b="$base_mpps" -v t="${row_target[$id]}" \
			-v l="$l3_mpps" -v tl="${row_target_l3[$id]}" 'BEGIN {
				v = (t == "" && tl == "") ? "-" : "ok"
				r = "nan"; rl = "nan"
				if (m != "nan" && b != "nan" && b + 0 > 0)
					r = sprintf("%.2f", m / b)
				if (m != "nan" && l != "nan" && l + 0 > 0)
					rl = sprintf("%.2f", m / l)
				if (t != "" && r == "nan") v = "n/a"
				if (tl != "" && rl == "nan") v = "n/a"
				if (v == "ok" && t != "" && r + 0 < t + 0) v = "MISS"
				if (v == "ok" && tl != "" && rl + 0 < tl + 0) v = "MISS"
				print r, rl, v
			}')
		res_ratio[$id]=$ratio
		res_ratio_l3[$id]=$ratio_l3
		bench_row_verdict "$id" "$verdict"
	done

	if [ "$eal_given" = 1 ]; then
		mem="EAL args: $eal_extra"
		[ "$hugepages" = 0 ] || mem+=" --huge-unlink"
	else
		mem=$mem_why
	fi
}

report() {
	echo "ofan-switch vs l3fwd-lpm and dpdk-testpmd: 1 forwarding lcore ($fwd_lcore; main lcore $main_lcore), $mem"
	echo "ofan-switch: $sw_bin_path ($build_info)"
	echo "in:  $in_dev"
	echo "     $traffic"
	echo "out: $out_dev"
	echo "each run ${duration} s, mean of the per-second rates after ${warmup} s; median of $repeat run(s); CPUs ${busy_before}% busy before, ${busy_after}% after"
	echo
	printf '%-32s %8s %12s %6s %8s %7s %8s %7s %6s\n' row Mpps "(1s min-max)" \
		preem% xl3fwd target x5tswap target result
	for id in "${rows[@]}"; do
		printf '%-32s %8s %12s %6s %8s %7s %8s %7s %6s\n' "${row_label[$id]}" \
			"${res_mpps[$id]}" "${res_range[$id]}" \
			"${res_preempt[$id]}" \
			"${res_ratio_l3[$id]}" "${row_target_l3[$id]:--}" \
			"${res_ratio[$id]}" "${row_target[$id]:--}" \
			"${res_verdict[$id]}"
	done
	echo "(preem% = the largest share of a run the forwarding thread waited for its core, taken by other processes)"
	bench_noisy_line
	if [ "$with_testpmd" = 1 ] && [ "${res_verdict[testpmd-5tswap]}" = "-*" ]; then
		echo "warning: the testpmd 5tswap baseline itself was disturbed, so every ratio is too high"
	fi
	if [ "$profile" = 1 ]; then
		echo
		echo "instructions per packet (callgrind, the forwarding loop and the drivers it calls, ${profile_secs} s each;"
		echo "drivers: the PMDs' burst functions and what they call; own: the rest, the program's own work):"
		printf '%-32s %10s %8s %8s %8s\n' row Ir/pkt xl3fwd drivers own
		for id in "${rows[@]}"; do
			[ -n "${res_ir[$id]:-}" ] || continue
			printf '%-32s %10s %8s %8s %8s  %s%s\n' "${row_label[$id]}" "${res_ir[$id]}" \
				"$(awk -v a="${res_ir[$id]}" -v b="${res_ir[l3fwd-lpm]:-nan}" 'BEGIN {
					if (a == "nan" || b == "nan" || b + 0 <= 0) print "-"
					else printf "%.2f", a / b }')" \
				"${res_ir_drv[$id]:-nan}" "${res_ir_own[$id]:-nan}" \
				"$(awk -v a="${res_ir_own[$id]:-nan}" -v b="${res_ir_own[l3fwd-lpm]:-nan}" 'BEGIN {
					if (a == "nan" || b == "nan" || b + 0 <= 0) print "own -"
					else printf "own %.2fx l3fwd", a / b }')" \
				"${res_ir_note[$id]:+ (${res_ir_note[$id]})}"
		done
		echo "top functions of each program's own binary (self instructions per packet):"
		for id in "${rows[@]}"; do
			[ -n "${res_ir[$id]:-}" ] || continue
			printf '  %-30s %s\n' "${row_label[$id]}" "${res_ir_top[$id]//,/, }"
		done
	fi
	echo
	bench_report_end
}

write_results() {
	mkdir -p "$out_dir"
	{
		echo "row,kind,policy,queue,fwd_lcores,mpps,ratio_l3fwd,target_l3fwd,ratio_5tswap,target,result,samples_mpps,mpps_json,preempted_pct,note"
		for id in "${rows[@]}"; do
			printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,"%s"\n' \
				"$id" "${row_kind[$id]}" \
				"$([ "${row_kind[$id]}" = switch ] && echo "${row_arg1[$id]}" || echo)" \
				"${row_arg2[$id]}" "${row_cores[$id]}" \
				"${res_mpps[$id]}" "${res_ratio_l3[$id]}" \
				"${row_target_l3[$id]}" "${res_ratio[$id]}" \
				"${row_target[$id]}" "${res_verdict[$id]}" \
				"${res_samples[$id]}" "${res_json[$id]}" \
				"${res_steal[$id]}" "${res_note[$id]:-}"
		done
	} >"$out_dir/results.csv"
	{
		printf '{\n'
		printf '  "ofan_switch": %s,\n' "$(json_str "$sw_bin_path")"
		printf '  "in_dev": %s,\n' "$(json_str "$in_dev")"
		printf '  "out_dev": %s,\n' "$(json_str "$out_dev")"
		printf '  "traffic": %s,\n' "$(json_str "$traffic")"
		bench_json_run
		printf '  "testpmd_5tswap_mpps": %s,\n' "$(json_num "$base_mpps")"
		printf '  "l3fwd_lpm_mpps": %s,\n' "$(json_num "$l3_mpps")"
		printf '  "rows": [\n'
		n=0
		for id in "${rows[@]}"; do
			n=$((n + 1))
			printf '    {"row": %s, "label": %s, "kind": %s, ' \
				"$(json_str "$id")" \
				"$(json_str "${row_label[$id]}")" \
				"$(json_str "${row_kind[$id]}")"
			if [ "${row_kind[$id]}" = switch ]; then
				printf '"policy": %s, "queue": %s, ' \
					"$(json_str "${row_arg1[$id]}")" \
					"$(json_str "${row_arg2[$id]}")"
			else
				printf '"mode": %s, ' "$(json_str "${row_arg1[$id]}")"
			fi
			printf '"fwd_lcores": 1, "mpps": %s, "runs_mpps": %s, ' \
				"$(json_num "${res_mpps[$id]}")" \
				"$(json_list "${res_all[$id]// /;}")"
			printf '"samples_mpps": %s, "whole_run_mpps": %s, ' \
				"$(json_list "${res_samples[$id]}")" \
				"$(json_list "${res_json[$id]// /;}")"
			printf '"preempted_pct": %s, ' \
				"$(json_list "${res_steal[$id]// /;}")"
			printf '"instructions_per_packet": %s, "own_instructions_per_packet": %s, "driver_instructions_per_packet": %s, ' \
				"$(json_num "${res_ir[$id]:-}")" \
				"$(json_num "${res_ir_own[$id]:-}")" \
				"$(json_num "${res_ir_drv[$id]:-}")"
			printf '"ratio_l3fwd": %s, "target_l3fwd": %s, ' \
				"$(json_num "${res_ratio_l3[$id]}")" \
				"$(json_num "${row_target_l3[$id]}")"
			printf '"ratio_5tswap": %s, "target": %s, "result": %s, "note": %s}' \
				"$(json_num "${res_ratio[$id]}")" \
				"$(json_num "${row_target[$id]}")" \
				"$(json_str "${res_verdict[$id]}")" \
				"$(json_str "${res_note[$id]:-}")"
			[ "$n" = ${#rows[@]} ] && printf '\n' || printf ',\n'
		done
		printf '  ]\n}\n'
	} >"$out_dir/results.json"
	bench_results_done
}
