#!/usr/bin/env bash
# Replay of a multi-block xz ChampSim trace at several --jobs against --jobs 1.
#
#   bench/xz_jobs.sh TLBSIM
#
# Writes one ChampSim trace (LINES records, default 2000000: 128 MB; one
# load or store each, bench_gen_din --format champsim with 30% random jumps,
# so xz has something to do) and compresses it in many blocks, as xz -T0
# does on a big machine (here xz -T0 -1 --block-size=BLOCK, default 8MiB: -1
# so the benchmark is quick to set up; decoding costs much the same at any
# preset). Then REPEATS (default 5) rounds each replay it once with
# `tlbsim run --jobs J` for every J of JOBS (default "1 2": 1 is one thread
# decoding in the reader's calls, 2 or more liblzma's decode threads ahead of
# the reader and a parse thread), read it once with bench_read --jobs J
# (decoding and parsing alone, nothing simulated), and replay the plain
# trace once. Prints best and median wall seconds and CPU seconds per case,
# the ratios jobs 1 / jobs J of the replays and of the reads (above 1: more
# threads are faster), and the load average at the start and at the end.
# Exits 1 unless every replay writes the same report (the trace column
# aside). Env: LINES, REPEATS, BLOCK, JOBS, GEN, READ (a bench_read binary;
# default: next to TLBSIM's build), TMPDIR.
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
read -ra jobs <<<"${JOBS:-1 2}"
[ "${jobs[0]}" = 1 ] || die "JOBS must start with 1 (the ratios are against it)"
read_bin=${READ:-$(dirname "$tlbsim")/../bench/bench_read}
[ -x "$read_bin" ] || die "no bench_read at $read_bin (build the bench_read target, or set READ)"

work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
gen=$(find_gen "$tlbsim" "$work")

machine_line
"$gen" --format champsim --lines "$lines" --jump 300000 >"$work/t.champsim"
xz -T0 -1 --block-size="$block" -c "$work/t.champsim" >"$work/t.champsim.xz"
blocks=$(xz --robot -l "$work/t.champsim.xz" | awk -F'\t' '$1 == "totals" {print $3}')
echo "trace: $lines ChampSim records, $(wc -c <"$work/t.champsim") bytes; xz: $(wc -c <"$work/t.champsim.xz") bytes" \
  "in $blocks blocks of $block; $repeats rounds"

cases=()
for j in "${jobs[@]}"; do cases+=("jobs $j|run --format csv --jobs $j $work/t.champsim.xz" "read $j|read $j"); done
cases+=("plain|run --format csv $work/t.champsim")
declare -A wall cpu
for ((round = 1; round <= repeats; round++)); do
  for c in "${cases[@]}"; do
    name=${c%%|*}
    read -ra args <<<"${c#*|}"
    if [ "${args[0]}" = read ]; then
      cmd=("$read_bin" --repeats 1 --jobs "${args[1]}" "$work/t.champsim.xz")
    else
      cmd=("$tlbsim" "${args[@]}")
    fi
    /usr/bin/time -f '%e %U %S' -o "$work/time" "${cmd[@]}" >"$work/out" || die "$name failed"
    read -r e u s <"$work/time"
    wall[$name]+="$e "
    cpu[$name]+="$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}') "
    [ "${args[0]}" = read ] || cut -d, -f2- "$work/out" >"$work/report.$name"
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
for kind in jobs read; do
  for j in "${jobs[@]:1}"; do
    awk -v k="$kind" -v j="$j" -v b1="${best[$kind 1]}" -v bj="${best[$kind $j]}" \
      -v m1="$(tr ' ' '\n' <<<"${wall[$kind 1]}" | grep . | median)" -v mj="$(tr ' ' '\n' <<<"${wall[$kind $j]}" | grep . | median)" \
      'BEGIN {printf "ratio %s 1 / %s %s: best %.2f  median %.2f\n", k, k, j, b1 / bj, m1 / mj}'
  done
done
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores)"

status=0
for name in "${jobs[@]/#/jobs }" plain; do
  cmp -s "$work/report.jobs 1" "$work/report.$name" || { echo "MISMATCH: $name reports differently from jobs 1"; status=1; }
done
[ $status -ne 0 ] || echo "reports agree"
exit $status
