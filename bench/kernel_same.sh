#!/usr/bin/env bash
# Whether two builds of `tlbsim kernel --preset h200` predict the same: the
# CSV of each byte for byte on the run4 embed traces (trace_r64, trace_r256,
# with their buffers.trace), 4096- and 16384-warp bench_gen_ktrace traces,
# at --groups 0, 1 and 4, and with l2_write_back = 1, l2_ways = 16 and both;
# exit 1 on any difference. A change to the kernel model's speed must keep
# every count and prediction (issue #29's rounds 5 and 6 ran this).
#
#   bench/kernel_same.sh TLBSIM_BEFORE TLBSIM_AFTER
#
# Env: WARPS ("4096 16384"), the synthetic traces' sizes.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

[ $# -eq 2 ] || usage
before=$1 after=$2
for t in "$before" "$after"; do [ -x "$t" ] || die "$t is not an executable"; done
bin=$(dirname "$after")/../bench
[ -x "$bin/bench_gen_ktrace" ] || die "build the bench_gen_ktrace target first ($bin/bench_gen_ktrace)"
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-ksame.XXXXXX")
trap 'rm -rf "$work"' EXIT

# the cases: NAME|TRACE|--alloc FILE or nothing
cases=()
for r in 64 256; do
  mkdir "$work/r$r"
  run4=$src/gpu/results/h200/run4/trace_r$r
  cp "$run4/kernelslist.g" "$run4/buffers.trace" "$work/r$r/"
  zcat "$run4/kernel-1.traceg.gz" >"$work/r$r/kernel-1.traceg"
  cases+=("trace_r$r|$work/r$r/kernelslist.g|$work/r$r/buffers.trace")
done
for w in ${WARPS:-4096 16384}; do
  "$bin/bench_gen_ktrace" --warps "$w" >"$work/k$w.traceg"
  "$after" convert --quiet "$work/k$w.traceg" "$work/k$w.ktb"
  rm "$work/k$w.traceg"
  cases+=("gen$w|$work/k$w.ktb|")
done

sets=("" "--set gpu.l2_write_back=1" "--set gpu.l2_ways=16" "--set gpu.l2_write_back=1 --set gpu.l2_ways=16")
same=0 differ=0
for c in "${cases[@]}"; do
  IFS='|' read -r name trace alloc <<<"$c"
  for g in 0 1 4; do
    for s in "${sets[@]}"; do
      args=(kernel --preset h200 --groups "$g" --format csv)
      [ -n "$alloc" ] && args+=(--alloc "$alloc")
      # shellcheck disable=SC2206 # the --set words split on purpose
      [ -n "$s" ] && args+=($s)
      "$before" "${args[@]}" "$trace" >"$work/a" 2>"$work/a.err" || die "$name --groups $g $s: $before failed: $(head -1 "$work/a.err")"
      "$after" "${args[@]}" "$trace" >"$work/b" 2>"$work/b.err" || die "$name --groups $g $s: $after failed: $(head -1 "$work/b.err")"
      if cmp -s "$work/a" "$work/b"; then
        same=$((same + 1))
      else
        differ=$((differ + 1))
        echo "DIFFER: $name --groups $g ${s:-(preset)}"
      fi
    done
  done
done
echo "$same cases byte-identical, $differ differ"
[ "$differ" = 0 ]
