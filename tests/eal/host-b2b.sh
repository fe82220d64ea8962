#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ofan-host end to end, as a user runs it: two ranks in one process, back
# to back over an in-process ring pair (ringpair:NAME:a / :b, as in
# configs/host-b2b.ini), no switch.  For the patterns alltoall and
# ring_allreduce (two iterations each) and every host policy:
#   - exit status 0 and the one-line summary "POLICY PATTERN: N/N flows
#     complete" on stdout;
#   - the summary JSON: policy and pattern as configured, every flow of
#     the collective sent here and completed (flows_completed =
#     flows_sent_here = flows_total), no corrupt packet, no incomplete
#     reception, goodput of the hosts = the bytes of all flows, no mbuf
#     leak (mempool_in_use_end = mempool_in_use_start);
#   - the per-flow CSV next to it (RESULTS-flows.csv): the header, one row
#     per flow id 0..N-1, each with done_ns > 0, rx_done_ns > 0 and
#     corrupt_pkts 0.
# Wall-clock run at 1 Gb/s: a few milliseconds of traffic per case.
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
ofan_setup host_b2b "$@"

POLICIES=(fixed ops reps plb mp flowlet)
PATTERNS=(alltoall ring_allreduce)
CSV_HEADER=flow,src,dst,size,iteration,step,start_ns,done_ns,fct_ns,ideal_ns,slowdown,rx_done_ns,data_sent,data_retx,timeouts,acks_received,ce_acks,distinct_evs,data_received,max_reorder,dup_pkts,ce_pkts,corrupt_pkts,mean_pkt_delay_ns

# write_config POLICY PATTERN RING: two ranks on the ring pair RING.
write_config() {
	cat <<EOF
[host]
policy = $1
seed = 1
rate = 1G
mtu = 4096
min_rto = 2ms
reorder_window = 200us
base_rtt = 50us
stats_interval = 0

[ranks]
count = 2

[traffic]
pattern = $2
size = 256KiB
iterations = 2
seed = 1

[port.0]
dev = ringpair:$3:a
rank = 0
[port.1]
dev = ringpair:$3:b
rank = 1
EOF
}

# check_csv TAG CSV NB_FLOWS: header, one row per flow, each complete.
check_csv() {
	local tag=$1 csv=$2 nb=$3 bad

	if [ ! -s "$csv" ]; then
		fail "$tag: $csv was not written"
		return
	fi
	expect_eq "$tag: CSV header" "$(head -n 1 "$csv")" "$CSV_HEADER"
	expect_eq "$tag: CSV rows" "$(tail -n +2 "$csv" | wc -l)" "$nb"
	expect_eq "$tag: CSV flow ids" \
		"$(tail -n +2 "$csv" | cut -d, -f1 | sort -n | tr '\n' ' ')" \
		"$(seq 0 $((nb - 1)) | tr '\n' ' ')"
	# Fields 8, 12, 23 and 24: done_ns, rx_done_ns, corrupt_pkts,
	# mean_pkt_delay_ns (a sender's: positive).
	bad=$(tail -n +2 "$csv" | awk -F, \
		'NF != 24 || $8 <= 0 || $12 <= 0 || $23 != 0 || $24 <= 0 { print $1 }' |
		tr '\n' ' ')
	expect_eq "$tag: CSV flows not done, not received or corrupt" "$bad" ""
}

for pattern in "${PATTERNS[@]}"; do
	for pol in "${POLICIES[@]}"; do
		tag=$pattern-$pol
		echo "-- $pattern, host policy $pol"
		write_config "$pol" "$pattern" b2b >"$TMP/$tag.ini"
		json=$TMP/$tag.json
		csv=$TMP/$tag-flows.csv
		hs_run "$tag" "${EAL[@]}" -- --config "$TMP/$tag.ini" \
			--results "$json" --timeout 20
		expect_rc "$tag run" "$tag" 0
		if [ ! -s "$json" ]; then
			fail "$tag: $json was not written"
			continue
		fi
		# One Python start per run: every JSON value needed, in order.
		if ! read -r pol_j pattern_j nb sent completed corrupt \
			incomplete goodput inuse_start inuse_end < <(jget "$json" \
			'" ".join(str(v) for v in (j["policy"], j["pattern"],
			 j["flows_total"], j["flows_sent_here"],
			 j["flows_completed"], j["corrupt_pkts"],
			 j["incomplete_receptions"],
			 sum(h["goodput_bytes"] for h in j["hosts"]),
			 j["mempool_in_use_start"], j["mempool_in_use_end"]))'); then
			fail "$tag: $json lacks a summary member"
			continue
		fi
		if [ "$pattern" = alltoall ]; then
			# 2 ranks x 1 peer x 2 iterations.
			expect_eq "$tag: flows_total" "$nb" 4
		else
			# 2 ranks x 2 steps x 2 iterations.
			expect_eq "$tag: flows_total" "$nb" 8
		fi
		expect_file_has "$tag stdout" "$TMP/$tag.out" \
			"$pol $pattern: $nb/$nb flows complete"
		expect_eq "$tag: policy" "$pol_j" "$pol"
		expect_eq "$tag: pattern" "$pattern_j" "$pattern"
		expect_eq "$tag: flows_sent_here" "$sent" "$nb"
		expect_eq "$tag: flows_completed" "$completed" "$nb"
		expect_eq "$tag: corrupt_pkts" "$corrupt" 0
		expect_eq "$tag: incomplete_receptions" "$incomplete" 0
		expect_eq "$tag: mempool_in_use_end (start $inuse_start)" \
			"$inuse_end" "$inuse_start"
		total=0
		if [ -s "$csv" ]; then
			total=$(tail -n +2 "$csv" |
				awk -F, '{ s += $4 } END { print s + 0 }')
		fi
		# Both patterns move 2 x 2 x 256 KiB (ring steps: 128 KiB each).
		expect_eq "$tag: bytes of all flows (CSV sizes)" "$total" 1048576
		expect_eq "$tag: goodput of both hosts" "$goodput" "$total"
		check_csv "$tag" "$csv" "$nb"
	done
done

# The study's model: erasure recovery and per-flow pacers, every host
# policy, on ring all-reduce (dependent steps): everything delivered,
# verified and acknowledged, goodput = the bytes of the flows.
for pol in "${POLICIES[@]}"; do
	tag=erasure-$pol
	echo "-- ring_allreduce, recovery = erasure, pacing = flow, $pol"
	write_config "$pol" ring_allreduce "e$pol" |
		sed 's/^stats_interval = 0/stats_interval = 0\nrecovery = erasure\npacing = flow\npacing_jitter = 0.01/' \
		>"$TMP/$tag.ini"
	hs_run "$tag" "${EAL[@]}" -- --config "$TMP/$tag.ini" \
		--results "$TMP/$tag.json" --timeout 20
	expect_rc "$tag run" "$tag" 0
	expect_file_has "$tag stdout" "$TMP/$tag.out" \
		"$pol ring_allreduce: 8/8 flows complete"
	expect_eq "$tag: recovery, pacing, goodput, leak, corrupt" \
		"$(jget "$TMP/$tag.json" '" ".join(str(v) for v in (j["recovery"], j["pacing"], sum(h["goodput_bytes"] for h in j["hosts"]), j["mempool_in_use_end"] - j["mempool_in_use_start"], j["corrupt_pkts"]))')" \
		"erasure flow 1048576 0 0"
done

# Progress lines: the last one reports the run's mean rate, not a rate
# over the zero seconds since the line before.
echo "-- progress lines (stats_interval = 5ms)"
write_config fixed alltoall prog |
	sed 's/^stats_interval = 0/stats_interval = 5ms/' >"$TMP/prog.ini"
hs_run prog "${EAL[@]}" -- --config "$TMP/prog.ini" --timeout 20
expect_rc "progress run" prog 0
last=$(grep '^t=' "$TMP/prog.err" | tail -1)
echo "    last line: $last"
expect_eq "last progress line: 100% and a mean rate above 0" \
	"$(echo "$last" | sed -nE 's/.*\(100\.0%\) mean ([0-9.]+) Gb\/s.*/\1/p' |
		awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
# ofan-host removes EAL's runtime directory at exit (rte_eal_cleanup
# leaves it behind).
expect_eq "EAL runtime directory after a clean run" \
	"$(ls -d "/var/run/dpdk/$PREFIX" 2>/dev/null)" ""

# An htsim matrix whose flows wait for triggers: flow 2 starts when flow
# 1 is received (oneshot), flow 4 once flows 2 and 3 are acknowledged
# (barrier of 2).  Both ranks run here, so ofan-host follows them.
cat >"$TMP/trig.cm" <<'EOF'
Nodes 2
Connections 4
Triggers 2
0->1 id 1 start 0 size 65536 recv_done_trigger 1
1->0 id 2 trigger 1 size 65536 send_done_trigger 2
0->1 id 3 start 0 size 131072 send_done_trigger 2
1->0 id 4 trigger 2 size 32768
trigger id 1 oneshot
trigger id 2 barrier count 2
EOF
write_config reps cm trig |
	sed "s|^pattern = cm|pattern = cm\ncm_file = $TMP/trig.cm|; s/^iterations = 2/iterations = 1/; /^size = /d" \
	>"$TMP/trig.ini"
hs_run trig "${EAL[@]}" -- --config "$TMP/trig.ini" \
	--results "$TMP/trig.json" --timeout 20
expect_rc "triggered matrix" trig 0
expect_file_has "triggered matrix stdout" "$TMP/trig.out" \
	"reps cm: 4/4 flows complete"
# CSV fields: 1 flow, 7 start_ns, 8 done_ns, 12 rx_done_ns.
csv=$TMP/trig-flows.csv
expect_eq "triggered matrix: flow 2 starts once flow 1 is received" \
	"$(awk -F, '$1 == 0 { rx = $12 } $1 == 1 { s = $7 } END { print (s >= rx && rx > 0) }' "$csv")" 1
expect_eq "triggered matrix: flow 4 starts once flows 2 and 3 are acknowledged" \
	"$(awk -F, '$1 == 1 || $1 == 2 { if ($8 > d) d = $8 } $1 == 3 { s = $7 } END { print (s >= d && d > 0) }' "$csv")" 1

# A training job (configs/host-job-b2b.ini: data parallel over the two
# ranks, compute and gradient all-reduces, 3 iterations) on the ring pair:
# every flow done, no leak; the iterations one after the other, each at
# least its compute; every node of both ranks (19 a rank and iteration:
# 2 layers x 2 micro-batches x 2 compute nodes each way, 2 gradient
# all-reduces, the optimizer) started and ended, the optimizer last.
echo "-- a training job (configs/host-job-b2b.ini)"
sed "s/ringpair:job:/ringpair:tj:/" "$SRC/configs/host-job-b2b.ini" \
	>"$TMP/job.ini"
hs_run job "${EAL[@]}" -- --config "$TMP/job.ini" \
	--results "$TMP/job.json" --timeout 20
expect_rc "training job" job 0
expect_file_has "training job stdout" "$TMP/job.out" \
	"reps jobs: 24/24 flows complete"
expect_file_has "training job stdout: its iterations" "$TMP/job.out" \
	"job pair iteration 2: "
expect_eq "training job: mempool_in_use_end" \
	"$(jget "$TMP/job.json" 'j["mempool_in_use_end"]')" \
	"$(jget "$TMP/job.json" 'j["mempool_in_use_start"]')"
# jobs.csv: job,iteration,ranks,iter_us,compute_us,wait_max_us,...,end_us
expect_eq "training job: 3 iterations, each >= its compute, in order" \
	"$(awk -F, 'NR > 1 { n++; if ($4 + 0 < $5 + 0 || $8 + 0 <= e) bad++; e = $8 + 0 }
		END { print n, bad + 0 }' "$TMP/job-jobs.csv")" "3 0"
# job-nodes.csv: job,rank,host,iteration,node,kind,start_us,end_us
expect_eq "training job: every node started and ended, none before it started" \
	"$(awk -F, 'NR > 1 { n++; if ($7 == "" || $8 == "" || $8 + 0 < $7 + 0) bad++ }
		END { print n, bad + 0 }' "$TMP/job-job-nodes.csv")" \
	"114 0"
expect_eq "training job: the optimizer ends each rank's iteration" \
	"$(awk -F, 'NR > 1 { if ($8 + 0 > last[$2 "," $4]) { last[$2 "," $4] = $8 + 0; who[$2 "," $4] = $5 } }
		END { for (k in who) if (who[k] != "optimizer") bad++; print bad + 0 }' \
		"$TMP/job-job-nodes.csv")" 0

# Stopped mid-flow by --timeout: exit 1 (unfinished, not a leak), and the
# packets still in the ring pair go back to the pool when ports close.
write_config reps alltoall stop | sed 's/^size = .*/size = 256MiB/' \
	>"$TMP/stop.ini"
hs_run stop "${EAL[@]}" -- --config "$TMP/stop.ini" \
	--results "$TMP/stop.json" --timeout 0.2
expect_rc "stopped mid-flow" stop 1
expect_eq "stopped mid-flow: mempool_in_use_end" \
	"$(jget "$TMP/stop.json" 'j["mempool_in_use_end"]')" \
	"$(jget "$TMP/stop.json" 'j["mempool_in_use_start"]')"
expect_cmp "stopped mid-flow: flows completed" \
	"$(jget "$TMP/stop.json" 'j["flows_completed"]')" -lt 4

ofan_finish
