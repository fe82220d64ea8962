#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Training jobs in ofan-fabric as a user runs them ([traffic] pattern =
# jobs; docs/training.md):
#   - a job built from a preset (dense.ini, shrunk) and the same job
#     written as Chakra traces by ofan-chakra and read back (model =
#     chakra) give byte-identical results: every job file, flows.csv,
#     runs.csv and the queue files;
#   - configs/experiments/training/chakra.ini runs ASTRA-sim's example
#     trace unchanged: every scheme, without and with the failure, 3
#     iterations each, and its plots;
#   - bad input exits 2 before EAL, naming where: a dependency cycle, a
#     peer beyond the job, a comm_type that is no collective, a trace
#     that does not parse (each FILE: node ID (NAME) or byte), degrees
#     that do not divide (FILE:job.NAME:KEY), a rank count other than
#     the trace's files, a trace cut short of the process groups it
#     describes, and an override that breaks a rule with the file's keys
#     named before the file (pp not dividing the layers before dp x tp x
#     pp against the hosts); no output folder, nothing left in
#     /var/run/dpdk.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
OFAN_NEEDS=(fabric/ofan-fabric tools/ofan-chakra)
ofan_setup jobs "$@"

FAB=$BUILD/fabric/ofan-fabric
CHAKRA=$BUILD/tools/ofan-chakra
DENSE=$SRC/configs/experiments/training/dense.ini
rundirs() { find /var/run/dpdk -maxdepth 1 -name 'ofan-fabric-*' 2>/dev/null | sort; }
RUNDIRS0=$(rundirs)

echo "-- a preset job and its Chakra traces: the same results"
# dense.ini shrunk: 8 ranks, two layers, short sequences, two schemes.
sed -e 's/^schemes = .*/schemes = ecmp, ofan/' -e 's/^dp = 4 .*/dp = 2/' \
	-e 's/^layers = 4 .*/layers = 2/' -e 's/^seq_len = 512 .*/seq_len = 128/' \
	-e 's/^hidden = 1024 .*/hidden = 256/' -e 's/^ffn = 2752 .*/ffn = 688/' \
	-e 's/^iterations = 3 .*/iterations = 2/' "$DENSE" >"$TMP/preset.ini"
rc=0
"$CHAKRA" write --config "$TMP/preset.ini" --job llama --out "$TMP/llama" \
	>"$TMP/write.out" 2>&1 || rc=$?
expect_eq "ofan-chakra write: exit status" "$rc" 0
expect_file_has "ofan-chakra write: what it wrote" "$TMP/write.out" \
	"job llama: 8 ranks, "
# The same file with the job replaced by its traces.
sed -n '1,/^\[job.llama\]/p' "$TMP/preset.ini" >"$TMP/trace.ini"
cat >>"$TMP/trace.ini" <<EOF
model = chakra
ranks = 8
trace = llama
iterations = 2
placement = packed
EOF
for v in preset trace; do
	rc=0
	"$FAB" --config "$TMP/$v.ini" --out "$TMP/$v" --quiet --no-plot \
		>"$TMP/$v.out" 2>"$TMP/$v.err" || rc=$?
	expect_eq "$v run: exit status" "$rc" 0
done
bad=""
for f in jobs.csv job-ops.csv job-ranks.csv job-nodes.csv flows.csv runs.csv \
	queues.csv queue-time.csv; do
	if [ ! -s "$TMP/preset/$f" ] || ! cmp -s "$TMP/preset/$f" "$TMP/trace/$f"; then
		bad="$bad $f"
	fi
done
expect_eq "preset and trace: files that differ" "$bad" ""
expect_eq "preset: 2 schemes x 2 combos x 2 iterations" \
	"$(tail -n +2 "$TMP/preset/jobs.csv" | wc -l)" 8

echo "-- ASTRA-sim's all-to-all trace, unchanged (chakra.ini)"
rc=0
"$FAB" --config "$SRC/configs/experiments/training/chakra.ini" --quiet \
	--out "$TMP/astra" >"$TMP/astra.out" 2>"$TMP/astra.err" || rc=$?
expect_eq "chakra.ini: exit status" "$rc" 0
expect_eq "chakra.ini: 8 schemes x 2 combos x 3 iterations, all ended" \
	"$(awk -F, 'NR > 1 && $8 != "" { n++ } END { print n + 0 }' "$TMP/astra/jobs.csv")" 48
expect_eq "chakra.ini: one all_to_all of 1 MiB over 16 ranks an iteration" \
	"$(awk -F, 'NR > 1 { print $9, $10, $11 }' "$TMP/astra/job-ops.csv" | sort -u)" \
	"all_to_all 16 1048576"
for f in iter-time-0.png iter-time-1.png timeline-ofan-0.png timeline-ofan-1.png; do
	if [ -s "$TMP/astra/$f" ]; then pass "chakra.ini: $f"; else fail "chakra.ini: no $f"; fi
done

echo "-- bad input: exit 2, where and what"
# A one-rank or two-rank trace of hand-made nodes (Chakra's field
# numbers), written by Debian's python3.
write_trace() {
	"$OFAN_PY" - "$@" <<'EOF'
import sys

def varint(n):
    b = b""
    while True:
        c = n & 0x7f
        n >>= 7
        b += bytes([c | (0x80 if n else 0)])
        if not n:
            return b

def field(num, wire, payload):
    key = varint(num << 3 | wire)
    return key + (varint(len(payload)) + payload if wire == 2 else varint(payload))

def attr(name, v):
    return field(10, 2, field(1, 2, name.encode()) + field(9, 0, v))

def node(i, name, typ, deps=(), attrs=b""):
    d = b"".join(varint(x) for x in deps)
    return (field(1, 0, i) + field(2, 2, name.encode()) + field(3, 0, typ) +
            (field(5, 2, d) if deps else b"") + attrs)

case, prefix = sys.argv[1], sys.argv[2]
meta = field(1, 2, b"0.0.4")
files = {0: [meta]}
if case == "cycle":
    files[0] += [node(1, "a", 4, [2]), node(2, "b", 4, [1])]
elif case == "peer":
    files[0] += [node(1, "s", 5, attrs=attr("comm_dst", 9) + attr("comm_size", 16))]
    files[1] = [meta]
elif case == "coll":
    files[0] += [node(1, "c", 7, attrs=attr("comm_type", 42) + attr("comm_size", 16))]
for r, msgs in files.items():
    with open(f"{prefix}.{r}.et", "wb") as f:
        for m in msgs:
            f.write(varint(len(m)) + m)
EOF
}
# bad_job TAG RANKS MESSAGE: a one-job experiment on trace $TMP/TAG fails.
bad_job() {
	local tag=$1 ranks=$2 rc=0

	sed -n '1,/^\[job.llama\]/p' "$TMP/preset.ini" >"$TMP/$tag.ini"
	printf 'model = chakra\nranks = %s\ntrace = %s\n' "$ranks" "$tag" \
		>>"$TMP/$tag.ini"
	"$FAB" --config "$TMP/$tag.ini" --out "$TMP/$tag-out" --quiet \
		--no-plot >/dev/null 2>"$TMP/$tag.err" || rc=$?
	expect_eq "$tag: exit status" "$rc" 2
	expect_file_has "$tag: message" "$TMP/$tag.err" "$3"
	expect_eq "$tag: no output folder" \
		"$(test -e "$TMP/$tag-out" && echo yes || echo no)" no
}
write_trace cycle "$TMP/cycle"
bad_job cycle 1 "llama: node a (rank 0): lies on a dependency cycle; expected a DAG"
write_trace peer "$TMP/peer"
bad_job peer 2 "llama: node s (rank 0): peer 9; expected another rank below 2"
write_trace coll "$TMP/coll"
bad_job coll 1 "coll.0.et: node 1 (c): comm_type 42 is no collective; expected 0 (ALL_REDUCE) to 9 (BARRIER)"
printf '\x07garbage' >"$TMP/junk.0.et"
bad_job junk 1 "junk.0.et: byte 0: the first message is not a GlobalMetadata; expected a Chakra trace"
rc=0
"$FAB" --config "$TMP/preset.ini" job.llama.pp=3 --out "$TMP/pp-out" --quiet \
	--no-plot >/dev/null 2>"$TMP/pp.err" || rc=$?
expect_eq "pp = 3: exit status" "$rc" 2
expect_file_has "pp = 3: message" "$TMP/pp.err" \
	"command line: job.llama.pp=3: '3' does not divide layers = 2; expected a divisor of the layers"
# A trace read with another rank count than it has files: refused, on the
# key given; the same trace cut to fewer files: refused by the process
# groups its files describe (ofan-chakra show counts the files itself).
rc=0
"$FAB" --config "$SRC/configs/experiments/training/chakra.ini" \
	job.a2a.ranks=8 --out "$TMP/r8-out" --quiet --no-plot \
	>/dev/null 2>"$TMP/r8.err" || rc=$?
expect_eq "ranks = 8 of 16: exit status" "$rc" 2
expect_file_has "ranks = 8 of 16: message" "$TMP/r8.err" \
	"command line: job.a2a.ranks=8: '8' ranks, but the trace has 16 files ("
expect_file_has "ranks = 8 of 16: what to give" "$TMP/r8.err" \
	"all_to_all.15.et); expected ranks = 16"
mkdir "$TMP/cut"
cp "$TMP"/llama.[0-3].et "$TMP/cut/"
rc=0
"$CHAKRA" show "$TMP/cut/llama" >/dev/null 2>"$TMP/cut.err" || rc=$?
expect_eq "a trace cut to 4 of 8 files: exit status" "$rc" 1
expect_file_has "a trace cut to 4 of 8 files: message" "$TMP/cut.err" \
	"llama.0.et: process group 'comm"
expect_file_has "a trace cut to 4 of 8 files: why" "$TMP/cut.err" \
	"the trace was made for a larger job"
# dense.ini itself (4 x 2 x 2 of the 16 hosts): pp = 3 is wrong by
# itself before dp x tp x pp = 24 is too many; a product names the
# degree the command line set.
bad_override() {
	local tag=$1 ov=$2 rc=0

	"$FAB" --config "$DENSE" "$ov" --out "$TMP/$tag-out" --quiet \
		--no-plot >/dev/null 2>"$TMP/$tag.err" || rc=$?
	expect_eq "$ov: exit status" "$rc" 2
	expect_eq "$ov: message" "$(cat "$TMP/$tag.err")" "ofan-fabric: $3"
	expect_eq "$ov: no output folder" \
		"$(test -e "$TMP/$tag-out" && echo yes || echo no)" no
}
bad_override dense-pp job.llama.pp=3 \
	"command line: job.llama.pp=3: '3' does not divide layers = 4; expected a divisor of the layers (a stage is layers / pp of them)"
bad_override dense-dp job.llama.dp=8 \
	"command line: job.llama.dp=8: '8' makes dp x tp x pp = 8 x 2 x 2 = 32 ranks; expected at most the 16 hosts"
bad_override dense-k fabric.k=2 \
	"command line: fabric.k=2: '2' makes 2 hosts, fewer than the 16 ranks of [job.llama]; expected at least 16 hosts (a host runs one rank)"
expect_eq "nothing new in /var/run/dpdk" "$(rundirs)" "$RUNDIRS0"

ofan_finish
