# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash disable=SC2154  # bench-host.sh's variables
# bench-host-report.sh: the results of bench-host.sh; sourced by it, not run.
# summarise: each row's median, largest preemption, ratio to testpmd txonly
# at its frame size and verdict, misses and failed (a row could not be
# measured); report: the table; write_results: DIR/results.csv,
# DIR/results.json and DIR/logs (--out DIR).  They read bench-host.sh's
# options, rows, row_* and res_* (its runs' results), after its runs.

summarise() {
	declare -gA res_mpps
	for id in "${rows[@]}"; do
		res_mpps[$id]=$(median "${res_all[$id]}")
	done

	bench_verdicts_start
	declare -gA res_ratio res_verdict
	for id in "${rows[@]}"; do
		b=nan
		[ -z "${row_base[$id]}" ] || b=${res_mpps[${row_base[$id]}]:-nan}
		if [ -z "${row_base[$id]}" ]; then
			ratio=- verdict=-
		else
			# A target is a ratio to the anchor, or Mpps (row_abs).
			read -r ratio verdict < <(awk -v m="${res_mpps[$id]}" -v b="$b" \
				-v t="${row_target[$id]}" -v abs="${row_abs[$id]:-}" 'BEGIN {
					if (m == "nan" || b == "nan" || b + 0 <= 0) {
						r = "nan"
					} else {
						r = sprintf("%.2f", m / b)
					}
					v = abs == "" ? r : m
					if (t == "") print r, "-"
					else if (v == "nan") print r, "n/a"
					else print r, (v + 0 >= t + 0 ? "ok" : "MISS")
				}')
		fi
		res_ratio[$id]=$ratio
		bench_row_verdict "$id" "$verdict"
	done
}

whole_of() { # id
	if [ "${row_kind[$1]}" = testpmd ]; then echo -; else median "${res_json[$1]:-nan}"; fi
}
target_of() { # id: "0.40" (x the anchor) or "4Mpps"
	local t=${row_target[$1]:-}
	if [ -z "$t" ]; then
		echo -
	elif [ -n "${row_abs[$1]:-}" ]; then
		echo "${t}Mpps"
	else
		echo "$t"
	fi
}
report() {
	echo "ofan-host vs dpdk-testpmd txonly: 1 generating lcore ($fwd_lcore), $mem"
	echo "ofan-host: $host_bin_path ($build_info), -l $fwd_lcore; policy $policy, rate 400G"
	echo "testpmd:   -l $main_lcore,$fwd_lcore --main-lcore $main_lcore --vdev $null_dev --forward-mode=txonly --nb-cores=1"
	echo "tx-only: net_null, rank 0 -> $nb_tx_flows absent ranks, flows of $max_pkts packets, nothing acknowledged"
	echo "+ACKs:   ringpair, 2 ranks in one process, permutation x $nb_iterations of $ack_flow_pkts-packet flows, ack_every $ack_every; rate = data packets of both ranks"
	echo "ofan-host: (data sent in ${long_s} s run - in ${warmup} s run) / wall-time difference; testpmd: mean Tx-pps after ${warmup} s over ${duration} s"
	echo "median of $repeat run(s); CPUs ${busy_before}% busy before, ${busy_after}% after"
	echo "first touch of fresh memory: $first_touch MB/s (dd bs=1G from /dev/zero, 1 vs 5 reads); tx-only keeps 17 B of it per packet"
	echo
	printf '%-36s %8s %7s %6s %7s %7s %6s\n' row Mpps whole preem% xtxonly \
		target result
	for id in "${rows[@]}"; do
		printf '%-36s %8s %7s %6s %7s %7s %6s\n' "${row_label[$id]}" \
			"${res_mpps[$id]}" "$(whole_of "$id")" \
			"${res_preempt[$id]}" "${res_ratio[$id]}" \
			"$(target_of "$id")" "${res_verdict[$id]}"
	done
	echo "(whole = ofan-host's whole-run rate of the longer run, start-up included; xtxonly = ratio to testpmd txonly at the same frame size;"
	echo " preem% = the largest share of a run the generating thread waited for its core)"
	bench_noisy_line
	if [ "$profile" = 1 ]; then
		echo
		echo "instructions per packet (callgrind, ${profile_secs} s each; ofan-host: per data packet inside hs_shard_poll; testpmd: per frame, whole process, start-up removed):"
		printf '%-36s %10s %9s\n' row Ir/pkt xtestpmd
		for id in "${rows[@]}"; do
			[ -n "${res_ir[$id]:-}" ] || continue
			b=nan
			[ -z "${row_base[$id]}" ] || b=${res_ir[${row_base[$id]}]:-nan}
			printf '%-36s %10s %9s%s\n' "${row_label[$id]}" "${res_ir[$id]}" \
				"$(awk -v a="${res_ir[$id]}" -v b="$b" 'BEGIN {
					if (a == "nan" || b == "nan" || b + 0 <= 0) print "-"
					else printf "%.2f", a / b }')" \
				"${res_ir_note[$id]:+ (${res_ir_note[$id]})}"
		done
	fi
	[[ " ${size_list[*]} " != *" small "* ]] || [ "$frame_small" = 64 ] ||
		echo "note: ofan-host's smallest data frame is $frame_small B ([host] mtu >= 128 in host/transport/hs_config.c), not 64 B; its rows compare with testpmd at $frame_small B"
	[[ " ${size_list[*]} " != *" large "* ]] || [ "$with_testpmd" = 0 ] ||
		echo "note: testpmd txonly writes only the headers of each frame; ofan-host also writes every payload byte (its verifiable pattern), which dominates at $((14 + mtu_large)) B"
	echo
	bench_report_end
}

write_results() {
	mkdir -p "$out_dir"
	{
		echo "row,kind,frame_bytes,mtu,verify_payload,mpps,whole_run_mpps,ratio_txonly,target,result,samples,preempted_pct,note"
		for id in "${rows[@]}"; do
			printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,"%s"\n' \
				"$id" "${row_kind[$id]}" "${row_frame[$id]}" \
				"${row_mtu[$id]}" "${row_verify[$id]}" \
				"${res_mpps[$id]}" "${res_json[$id]}" \
				"${res_ratio[$id]}" "${row_target[$id]}" \
				"${res_verdict[$id]}" "${res_samples[$id]}" \
				"${res_steal[$id]}" "${res_note[$id]:-}"
		done
	} >"$out_dir/results.csv"
	{
		printf '{\n'
		printf '  "ofan_host": %s,\n' "$(json_str "$host_bin_path")"
		printf '  "policy": %s,\n  "ack_every": %s,\n' \
			"$(json_str "$policy")" "$ack_every"
		bench_json_run
		printf '  "first_touch_mb_s": %s,\n' "$(json_num "$first_touch")"
		printf '  "rows": [\n'
		n=0
		for id in "${rows[@]}"; do
			n=$((n + 1))
			printf '    {"row": %s, "label": %s, "kind": %s, ' \
				"$(json_str "$id")" "$(json_str "${row_label[$id]}")" \
				"$(json_str "${row_kind[$id]}")"
			printf '"frame_bytes": %s, "mtu": %s, "verify_payload": %s, ' \
				"${row_frame[$id]}" "$(json_num "${row_mtu[$id]}")" \
				"$(json_str "${row_verify[$id]}")"
			printf '"mpps": %s, "runs_mpps": %s, "whole_run_mpps": %s, ' \
				"$(json_num "${res_mpps[$id]}")" \
				"$(json_list "${res_all[$id]}")" \
				"$(json_list "${res_json[$id]:-}")"
			printf '"samples": %s, "preempted_pct": %s, ' \
				"$(json_str "${res_samples[$id]}")" \
				"$(json_list "${res_steal[$id]}")"
			printf '"baseline": %s, "ratio_txonly": %s, "target": %s, "result": %s, "note": %s' \
				"$(json_str "${row_base[$id]}")" \
				"$(json_num "${res_ratio[$id]}")" \
				"$(json_num "${row_target[$id]}")" \
				"$(json_str "${res_verdict[$id]}")" \
				"$(json_str "${res_note[$id]:-}")"
			[ "$profile" = 0 ] || [ -n "${row_lcores[$id]:-}" ] ||
				printf ', "ir_per_packet": %s' "$(json_num "${res_ir[$id]:-nan}")"
			printf '}'
			[ "$n" = ${#rows[@]} ] && printf '\n' || printf ',\n'
		done
		printf '  ]\n}\n'
	} >"$out_dir/results.json"
	bench_results_done
}
