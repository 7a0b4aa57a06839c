#!/usr/bin/env bash
# Replay of a multi-block xz ChampSim trace at --jobs 2 against --jobs 1.
#
#   bench/xz_jobs.sh TLBSIM
#
# Writes one ChampSim trace (LINES records, default 2000000: 128 MB; one
# load or store each, bench_gen_din --format champsim with 30% random jumps,
# so xz has something to do) and compresses it in many blocks, as xz -T0
# does on a big machine (here xz -T2 -1 --block-size=BLOCK, default 8MiB: -1
# so the benchmark is quick to set up; decoding costs much the same at any
# preset). Then
# REPEATS (default 5) rounds each replay it once with `tlbsim run --jobs 1`
# (one thread decoding in the reader's calls) and once with --jobs 2 (two of
# liblzma's decode threads ahead of the reader), and once the plain trace.
# Prints best and median wall seconds and CPU seconds per case, the ratio
# jobs 1 / jobs 2 (above 1: two threads are faster), and the load average
# at the start and at the end beside it. Exits 1 unless every replay writes
# the same report (the trace column aside). Env: LINES, REPEATS, BLOCK, GEN,
# TMPDIR.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || usage
tlbsim=$1
[ -x "$tlbsim" ] || die "$tlbsim is not an executable"
command -v xz >/dev/null || die "needs xz"
lines=${LINES:-2000000}
repeats=${REPEATS:-5}
block=${BLOCK:-8MiB}

work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
gen=$(find_gen "$tlbsim" "$work")

machine_line
"$gen" --format champsim --lines "$lines" --jump 300000 >"$work/t.champsim"
xz -T2 -1 --block-size="$block" -c "$work/t.champsim" >"$work/t.champsim.xz"
blocks=$(xz --robot -l "$work/t.champsim.xz" | awk -F'\t' '$1 == "totals" {print $3}')
echo "trace: $lines ChampSim records, $(wc -c <"$work/t.champsim") bytes; xz: $(wc -c <"$work/t.champsim.xz") bytes" \
  "in $blocks blocks of $block; $repeats rounds"

cases=("jobs 1|--jobs 1 $work/t.champsim.xz" "jobs 2|--jobs 2 $work/t.champsim.xz" "plain|$work/t.champsim")
declare -A wall cpu
for ((round = 1; round <= repeats; round++)); do
  for c in "${cases[@]}"; do
    name=${c%%|*}
    read -ra args <<<"${c#*|}"
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$tlbsim" run --format csv "${args[@]}" >"$work/out" ||
      die "$name failed"
    read -r e u s <"$work/time"
    wall[$name]+="$e "
    cpu[$name]+="$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}') "
    cut -d, -f2- "$work/out" >"$work/report.$name"
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

printf '\n%-8s %10s %12s %10s %12s\n' case "best s" "median s" "best CPU s" "median CPU s"
declare -A best
for c in "${cases[@]}"; do
  name=${c%%|*}
  best[$name]=$(tr ' ' '\n' <<<"${wall[$name]}" | grep . | minimum)
  printf '%-8s %10s %12s %10s %12s\n' "$name" "${best[$name]}" "$(tr ' ' '\n' <<<"${wall[$name]}" | grep . | median)" \
    "$(tr ' ' '\n' <<<"${cpu[$name]}" | grep . | minimum)" "$(tr ' ' '\n' <<<"${cpu[$name]}" | grep . | median)"
done
j1med=$(tr ' ' '\n' <<<"${wall[jobs 1]}" | grep . | median)
j2med=$(tr ' ' '\n' <<<"${wall[jobs 2]}" | grep . | median)
awk -v b1="${best[jobs 1]}" -v b2="${best[jobs 2]}" -v m1="$j1med" -v m2="$j2med" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" \
  'BEGIN {printf "\nratio jobs 1 / jobs 2: best %.2f  median %.2f  (load average %s, %d cores)\n", b1 / b2, m1 / m2, l, '"$(nproc)"'}'

status=0
for name in "jobs 2" plain; do
  cmp -s "$work/report.jobs 1" "$work/report.$name" || { echo "MISMATCH: $name reports differently from jobs 1"; status=1; }
done
[ $status -ne 0 ] || echo "reports agree"
exit $status
