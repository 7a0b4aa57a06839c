#!/usr/bin/env bash
# One-pass miss-ratio curves against one replay and against one replay per
# design (issue #10's target: a grid of 70 L1 DTLB designs in at most 1.5x
# the time of one plain run).
#
#   bench/mrc.sh TLBSIM [TRACE]
#
# The grid: entries 16, 32, ..., 1024 x ways 1, 2, 4, 8, 16 x 4 KiB and
# 2 MiB pages, all LRU. Times REPEATS (default 5) rounds of, alternately,
#   mrc   tlbsim mrc --page-size 4K,2M --max-entries 1024 --entries 16,...,1024
#         --ways 1,2,4,8,16 TRACE  (every design of the grid, and more, in one pass)
#   run   tlbsim run --config bench/l1d-fa64.ini TRACE  (one plain replay)
# then once the 70 separate runs, one [tlb.l1d] level each (demand paging at
# the design's page size), and checks that each one's tlb.l1d.misses equals
# the mrc row of its design. Prints best and median seconds and the ratios
# mrc/run and 70 runs/mrc; exit 1 if any count differs.
# TRACE: a data trace tlbsim reads (lackey, din, native; gzip too). Without
# one, a lackey trace of gcc's compiler proper (cc1 -O0 on
# traces/samples/stride.c, about 17.8 M data references) is captured with
# valgrind and its instruction lines dropped. Env: REPEATS, TMPDIR.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
tlbsim=$1
[ -x "$tlbsim" ] || die "$tlbsim is not an executable"
repeats=${REPEATS:-5}

work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-mrc.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ $# -eq 2 ]; then
  trace=$2
  [ -r "$trace" ] || die "cannot read $trace"
else
  command -v valgrind >/dev/null || die "no TRACE given and no valgrind to capture one"
  cc1=$(gcc -print-prog-name=cc1) || die "no TRACE given and no gcc to trace"
  trace=$work/gcc.lackey
  echo "capturing $trace: valgrind --tool=lackey --trace-mem=yes $cc1 -O0 stride.c (about a minute)"
  gcc -E "$repo_dir/traces/samples/stride.c" -o "$work/stride.i"
  valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$cc1" -quiet -O0 "$work/stride.i" -o "$work/stride.s" \
    3>&1 >/dev/null 2>&1 | grep -v '^I' >"$trace"
fi

entries=(16 32 64 128 256 512 1024)
ways=(1 2 4 8 16)
pages=(4K:4096 2M:2097152)
mrc_cmd=("$tlbsim" mrc --page-size 4K,2M --max-entries 1024 --entries "$(IFS=,; echo "${entries[*]}")"
  --ways "$(IFS=,; echo "${ways[*]}")" "$trace")
run_cmd=("$tlbsim" run --config "$bench_dir/l1d-fa64.ini" --format csv "$trace")

# Seconds a command takes, its output in $work/out.
seconds() {
  local t0 t1
  t0=$(now_ns)
  "$@" >"$work/out" || die "failed: $*"
  t1=$(now_ns)
  awk -v ns=$((t1 - t0)) 'BEGIN {printf "%.3f", ns / 1e9}'
}

machine_line
echo "trace: $trace ($(wc -l <"$trace") lines), $repeats rounds"
mrc_times=() run_times=()
for ((round = 1; round <= repeats; round++)); do
  mrc_times+=("$(seconds "${mrc_cmd[@]}")")
  cp "$work/out" "$work/mrc.csv"
  run_times+=("$(seconds "${run_cmd[@]}")")
done

# The 70 designs, one run each.
column() { awk -F, -v k="$2" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == k) c = i} NR == 2 && c {print $c}' "$1"; }
status=0 designs=0 total=0
for p in "${pages[@]}"; do
  for e in "${entries[@]}"; do
    for w in "${ways[@]}"; do
      printf '[machine]\nformat = x86-64-4\npage_size = %s\nphys_memory = 64G\n[tlb.l1d]\nentries = %s\nways = %s\npolicy = lru\npage_size = %s\nserves = data\nnext = walk\n' \
        "${p%:*}" "$e" "$w" "${p%:*}" >"$work/design.ini"
      t=$(seconds "$tlbsim" run --config "$work/design.ini" --format csv "$trace")
      total=$(awk -v a="$total" -v b="$t" 'BEGIN {print a + b}')
      designs=$((designs + 1))
      want=$(column "$work/out" tlb.l1d.misses)
      got=$(awk -F, -v pb="${p#*:}" -v s=$((e / w)) -v w="$w" '$1 == pb && $2 == s && $3 == w {print $6}' "$work/mrc.csv")
      if [ "$got" != "$want" ]; then
        echo "MISMATCH: ${p%:*} pages, $e entries, $w ways: run $want misses, mrc '$got'"
        status=1
      fi
    done
  done
done

mrc_best=$(printf '%s\n' "${mrc_times[@]}" | minimum) mrc_med=$(printf '%s\n' "${mrc_times[@]}" | median)
run_best=$(printf '%s\n' "${run_times[@]}" | minimum) run_med=$(printf '%s\n' "${run_times[@]}" | median)
printf '\n%-34s %8s %8s\n' case "best s" "median s"
printf '%-34s %8s %8s\n' "mrc, the grid in one pass" "$mrc_best" "$mrc_med" "run, l1d-fa64.ini" "$run_best" "$run_med"
printf '%-34s %8s\n' "$designs runs, one per design (once)" "$total"
awk -v mb="$mrc_best" -v mm="$mrc_med" -v rb="$run_best" -v rm="$run_med" -v t="$total" -v n="$designs" 'BEGIN {
  printf "ratio mrc / one run:     best %.2f  median %.2f  (target <= 1.5)\n", mb / rb, mm / rm
  printf "ratio %d runs / mrc:     best %.1f  median %.1f\n", n, t / mb, t / mm }'
[ $status -ne 0 ] || echo "all $designs designs: mrc misses equal the separate runs' tlb.l1d.misses"
exit $status
