#!/bin/sh
# tlbsim-gpu embed --dry-run writes an embed launch's Accel-Sim trace without a device: the
# three files, one thread block per 8 bags, insts lines as the SASS table says, and with --va
# of a measured row the committed device trace of gpu/results/h200/run4/trace_r256 byte for
# byte (the same ids, the same addresses). Bad options end with one message, exit 2.
# usage: gpu_embed_trace.sh TLBSIM_GPU SOURCE_DIR
gpu=$1
src=$2
work=gpu_embed_trace_tmp
failures=0
rm -rf "$work" && mkdir -p "$work"
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
"$gpu" embed --dry-run --trace "$work/a" --footprint 1G --row-bytes 64 --alpha 1.2 --bags 16 2>/dev/null ||
  fail "dry run exited $?"
[ "$(grep -c '^#BEGIN_TB' "$work/a/kernel-1.traceg")" = 2 ] || fail "not 2 thread blocks"
[ "$(grep -c '^insts = 98$' "$work/a/kernel-1.traceg")" = 16 ] || fail "not 16 warps of 98 instructions"
grep -q '^kernel-1.traceg$' "$work/a/kernelslist.g" || fail "kernelslist.g names no trace"
grep -q '^map 0x7f0000000000 1073741824 page=2M' "$work/a/buffers.trace" || fail "no table map"
row=$src/gpu/results/h200/run4/embed_trace_r256.csv
col() { awk -F, -v c="$1" 'NR==1{for(i=1;i<=NF;i++) if($i==c) k=i} NR==2{print $k}' "$row"; }
va="$(col table_va),$(col ids_va),$(col out_va)"
"$gpu" embed --dry-run --trace "$work/b" --footprint 128G --row-bytes 256 --alpha 0.8 --bags 128 --va "$va" \
  2>/dev/null || fail "re-trace exited $?"
gzip -dc "$src/gpu/results/h200/run4/trace_r256/kernel-1.traceg.gz" >"$work/device.traceg"
cmp -s "$work/b/kernel-1.traceg" "$work/device.traceg" || fail "the re-trace is not the device run's trace"
cmp -s "$work/b/buffers.trace" "$src/gpu/results/h200/run4/trace_r256/buffers.trace" || fail "buffers differ"
msg=$("$gpu" embed --dry-run 2>&1)
[ $? = 2 ] && [ "$msg" = "tlbsim-gpu: embed: --dry-run writes a trace: give --trace DIR" ] || fail "no-trace message: $msg"
msg=$("$gpu" embed --dry-run --trace "$work/c" --row-bytes 128 2>&1)
[ $? = 1 ] && echo "$msg" | grep -q "no kernel compiled for 128-byte rows" || fail "R=128 message: $msg"
rm -rf "$work"
[ "$failures" = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
