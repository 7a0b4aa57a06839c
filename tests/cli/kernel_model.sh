#!/usr/bin/env bash
# tlbsim kernel --preset: a prediction row per kernel of the fixture kernelslist (CSV columns, the
# launch's fixed time in predicted_ns), JSON and text; --alloc maps the buffers and an address outside
# them is FILE:LINE, exit 1; usage errors exit 2; --jobs 1 and 2 (blocks read ahead, the memory path on a
# thread) the same rows and first errors; the H200 embed trace of run4 (128 bags, 128 GiB table)
# against its measured 6432 ns.
# Usage: kernel_model.sh TLBSIM SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
list=$src/traces/kernels/kernelslist.g

out=$("$tlbsim" kernel --preset h200 --format csv "$list") || bad "predict the fixture"
[ "$(wc -l <<<"$out")" = 3 ] && ok || bad "a header and 2 rows: $out"
col() { awk -F, -v n="$1" -v r="$(($2 + 1))" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == n) c = i} NR == r {print $c}' <<<"$out"; }
for c in kernel grid block warp_instructions memory_instructions predicted_ns l1_hit_rate l2_hit_rate dram_bytes \
  dram_gbps translations walks translation_stall_cycles limit; do
  [ -n "$(col $c 1)" ] && ok || bad "column $c"
done
[ "$(col kernel 1),$(col grid 1),$(col warp_instructions 1),$(col memory_instructions 1)" = "_Z6vecaddPKfS0_Pfi,2x1x1,52,12" ] &&
  ok || bad "vecadd's counts: $(sed -n 2p <<<"$out")"
# a two-block kernel is its launch's fixed time ([gpu] stream_launch_ns = 6423) and a few hundred cycles
awk -v t="$(col predicted_ns 1)" 'BEGIN {exit !(t > 6423 && t < 7423)}' && ok || bad "vecadd predicted_ns $(col predicted_ns 1)"
"$tlbsim" kernel --preset h200 --format json "$list" | python3 -c 'import json,sys; r=json.load(sys.stdin); assert len(r) == 2 and r[1]["kernel_id"] == 2' &&
  ok || bad "JSON rows"
"$tlbsim" kernel --preset h200 "$list" | grep -q '^limit  *issue' && ok || bad "text rows"

# --alloc: buffers mapped; the store outside them is the instruction's line
printf '#tlbsim-trace 1\nmap 0x7f2a40000000 2097152 page=2M\n' >"$work/alloc.trace"
"$tlbsim" kernel --preset h200 --alloc "$work/alloc.trace" "$list" >/dev/null 2>"$work/err"
[ $? = 1 ] && ok || bad "unmapped address: exit 1"
grep -qx ".*traces/kernels/kernel-1.traceg:35: address 0x7f2a40200000 is outside every mapping" "$work/err" && ok ||
  bad "unmapped address message: $(cat "$work/err")"
printf '#tlbsim-trace 1\nmap 0x7f2a40000000 4194304 page=2M\nmap 0x7f2a3a000000 2097152 page=2M\n' >"$work/alloc.trace"
"$tlbsim" kernel --preset h200 --alloc "$work/alloc.trace" --format csv "$list" 2>"$work/err" >/dev/null
rc=$?
[ $rc = 1 ] && grep -q "kernel-2.traceg:[0-9]*: address .* is outside every mapping" "$work/err" && ok ||
  bad "the second kernel's buffers are not mapped either: rc $rc, $(cat "$work/err")"

# usage
for args in "--stats --preset h200" "--alloc x" "--stats --jobs 2" "--preset h200 -" "--preset h200 --launch 0x256"; do
  "$tlbsim" kernel $args "$list" >/dev/null 2>&1
  rc=$?
  [ "$args" = "--preset h200 --launch 0x256" ] && want=1 || want=2
  [ "$args" = "--preset h200 -" ] && { "$tlbsim" kernel --preset h200 - <"$list" >/dev/null 2>&1; rc=$?; }
  [ $rc = $want ] && ok || bad "kernel $args: exit $rc, not $want"
done

# the measured embed trace (tlbsim-gpu embed --trace, run4): 128 bags of a 128 GiB table, 6432 ns
# measured (embed_trace_r64.csv), read as committed (its kernel file gzip'd: the copy inflates it).
run4=$src/gpu/results/h200/run4/trace_r64
cp "$run4/kernelslist.g" "$run4/buffers.trace" "$work/"
zcat "$run4/kernel-1.traceg.gz" >"$work/kernel-1.traceg"
ns=$("$tlbsim" kernel --preset h200 --alloc "$work/buffers.trace" --format csv "$work/kernelslist.g" |
  awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "predicted_ns") c = i} NR == 2 {print $c}')
awk -v t="$ns" 'BEGIN {e = (t - 6432) / 6432; exit !(e < 0.10 && e > -0.10)}' && ok || bad "embed trace: $ns ns, measured 6432"

# --jobs: blocks read on a thread ahead of the model (2) or in its thread (1): the same rows, and a bad
# line in the 4th of the 16 blocks the same FILE:LINE, exit 1
for j in 1 2; do
  "$tlbsim" kernel --preset h200 --jobs $j --alloc "$work/buffers.trace" --format csv "$work/kernelslist.g" >"$work/j$j.csv" ||
    bad "embed trace at --jobs $j"
  sed '3000a bogus line' "$work/kernel-1.traceg" >"$work/bad.traceg"
  "$tlbsim" kernel --preset h200 --jobs $j "$work/bad.traceg" >/dev/null 2>"$work/j$j.err"
  rc=$?
  [ $rc = 1 ] && grep -qx ".*bad.traceg:3001: instruction line: expected a PC (hex), found 'bogus'" "$work/j$j.err" && ok ||
    bad "a bad line at --jobs $j: rc $rc, $(cat "$work/j$j.err")"
done
cmp -s "$work/j1.csv" "$work/j2.csv" && cmp -s "$work/j1.err" "$work/j2.err" && ok || bad "--jobs 1 and 2 differ"

# --jobs 2 runs the memory path on a thread of its own too (sim/src/kernel/kpipe.h): the same rows at every
# SM and at one group, and the same first error: with the output buffer unmapped, block 0's first store is
# outside every mapping, and that is the error though the model's thread reads on to the bad line in the
# 4th block before the path's thread reaches the store
for g in 0 1; do
  for j in 1 2; do
    "$tlbsim" kernel --preset h200 --jobs $j --groups $g --alloc "$work/buffers.trace" --format csv \
      "$work/kernelslist.g" >"$work/g$g.j$j.csv" || bad "embed trace at --jobs $j --groups $g"
  done
  cmp -s "$work/g$g.j1.csv" "$work/g$g.j2.csv" && ok || bad "--groups $g: --jobs 1 and 2 differ"
done
grep -v ' # out:' "$work/buffers.trace" >"$work/no_out.trace"
for j in 1 2; do
  "$tlbsim" kernel --preset h200 --jobs $j --alloc "$work/no_out.trace" "$work/bad.traceg" >/dev/null 2>"$work/store$j.err"
  rc=$?
  [ $rc = 1 ] && grep -qx ".*bad.traceg:[0-9]*: address 0x7f01f08[0-9a-f]* is outside every mapping" "$work/store$j.err" &&
    ok || bad "the first error at --jobs $j: rc $rc, $(cat "$work/store$j.err")"
done
cmp -s "$work/store1.err" "$work/store2.err" && ok || bad "--jobs 1 and 2 report different first errors"

finish kernel_model
