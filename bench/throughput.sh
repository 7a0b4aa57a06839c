#!/usr/bin/env bash
# Replay throughput of tlbsim, and of Dinero IV on the same trace when given.
#
#   bench/throughput.sh TLBSIM [DINEROIV]
#
# Generates one data-only trace (LINES lines, default 20000000, of
# bench_gen_din's default pattern: 64 MiB footprint, 2% random jumps) as din,
# lackey and gzip'd din, then times REPEATS (default 5) rounds of:
#   tlbsim  fa64      --preset x86-64, L1 DTLB set to 64 entries, 64 ways
#   dinero  fa64      -l1-dsize 256k -l1-dbsize 4k -l1-dassoc 64 -l1-drepl l
#   tlbsim  4way      --preset x86-64 as it is (L1 DTLB 64 entries, 4 ways)
#   dinero  4way      the same with -l1-dassoc 4
#   tlbsim  fa64-only bench/l1d-fa64.ini: that one TLB and nothing else
#   tlbsim  fa64 on the lackey and on the gzip'd din trace
# Every round runs each case once, so load from other processes spreads over
# all of them. Prints best and median lines/s per case and the ratios
# tlbsim/Dinero (above 1: tlbsim is faster), and checks that the L1 misses
# agree: tlbsim's tlb.l1d.access_misses against Dinero's data demand misses
# (same LRU, same 4 KiB lines, so they must be equal). Exit 1 if any differ.
# DINEROIV is a dineroIV binary you built yourself; this script builds nothing
# of Dinero's. With DIN=FILE the trace is that din file (a real program's,
# data accesses only) instead of a generated one, and its lackey and gzip'd
# forms are made from it. Env: LINES, REPEATS, GEN (a bench_gen_din binary),
# DIN, TMPDIR.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
tlbsim=$1
dinero=${2:-}
[ -x "$tlbsim" ] || die "$tlbsim is not an executable"
[ -z "$dinero" ] || [ -x "$dinero" ] || die "$dinero is not an executable"
lines=${LINES:-20000000}
repeats=${REPEATS:-5}

work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
gen=$(find_gen "$tlbsim" "$work")

machine_line
if [ -n "${DIN:-}" ]; then
  [ -r "$DIN" ] || die "DIN=$DIN is not readable"
  cp "$DIN" "$work/t.din"
  lines=$(wc -l <"$work/t.din")
  echo "trace: $DIN, $lines lines, $repeats rounds"
  awk '{printf " %s %s,1\n", $1 == 0 ? "L" : "S", $2}' "$work/t.din" >"$work/t.lackey"
else
  echo "trace: $lines data accesses (bench_gen_din defaults), $repeats rounds"
  "$gen" --lines "$lines" >"$work/t.din"
  "$gen" --lines "$lines" --format lackey >"$work/t.lackey"
fi
gzip -1 -c "$work/t.din" >"$work/t.din.gz"

fa64=(--set tlb.l1d.entries=64 --set tlb.l1d.ways=64)
# shellcheck disable=SC2317  # called through the cases table
tlbsim_run() { "$tlbsim" run --format csv "$@"; }
# shellcheck disable=SC2317
dinero_run() { "$dinero" -informat d -l1-dsize 256k -l1-dbsize 4k -l1-drepl l "$@" <"$work/t.din"; }

# name | command (words split on blanks; paths have none: mktemp's and ours)
cases=(
  "tlbsim fa64|tlbsim_run --preset x86-64 ${fa64[*]} --trace-format din $work/t.din"
  "tlbsim 4way|tlbsim_run --preset x86-64 --trace-format din $work/t.din"
  "tlbsim fa64-only|tlbsim_run --config $bench_dir/l1d-fa64.ini --trace-format din $work/t.din"
  "tlbsim fa64 lackey|tlbsim_run --preset x86-64 ${fa64[*]} --trace-format lackey $work/t.lackey"
  "tlbsim fa64 din.gz|tlbsim_run --preset x86-64 ${fa64[*]} --trace-format din $work/t.din.gz"
)
[ -z "$dinero" ] || cases+=(
  "dinero fa64|dinero_run -l1-dassoc 64"
  "dinero 4way|dinero_run -l1-dassoc 4"
)

# The L1 data misses a run's output reports.
misses_of() {
  case $1 in
  tlbsim*) awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "tlb.l1d.access_misses") c = i}
                    NR == 2 && c {print $c}' "$2" ;;
  dinero*) awk '/^ *Demand Misses/ {print $5; exit}' "$2" ;;
  esac
}

declare -A times misses
for ((round = 1; round <= repeats; round++)); do
  for i in "${!cases[@]}"; do
    name=${cases[i]%%|*}
    read -ra cmd <<<"${cases[i]#*|}"
    t0=$(now_ns)
    "${cmd[@]}" >"$work/out" || die "$name failed"
    t1=$(now_ns)
    times[$name]+="$(((t1 - t0) / 1000)) "
    m=$(misses_of "$name" "$work/out")
    [ -n "$m" ] || die "$name: no miss count in its output"
    misses[$name]=$m
  done
done

rate() { awk -v n="$lines" -v us="$1" 'BEGIN {printf "%.2f", n / us}'; }  # M lines/s
printf '\n%-20s %14s %14s %10s\n' case "best M/s" "median M/s" "L1 misses"
declare -A best med
for i in "${!cases[@]}"; do
  name=${cases[i]%%|*}
  best[$name]=$(tr ' ' '\n' <<<"${times[$name]}" | grep . | minimum)
  med[$name]=$(tr ' ' '\n' <<<"${times[$name]}" | grep . | median)
  printf '%-20s %14s %14s %10s\n' "$name" "$(rate "${best[$name]}")" "$(rate "${med[$name]}")" "${misses[$name]}"
done

status=0
check() {  # check NAME EXPECTED-NAME: the two L1 miss counts must be equal
  if [ "${misses[$1]}" != "${misses[$2]}" ]; then
    echo "MISMATCH: $1 reports ${misses[$1]} L1 misses, $2 ${misses[$2]}"
    status=1
  fi
}
for c in "tlbsim fa64-only" "tlbsim fa64 lackey" "tlbsim fa64 din.gz"; do check "$c" "tlbsim fa64"; done
if [ -n "$dinero" ]; then
  check "tlbsim fa64" "dinero fa64"
  check "tlbsim 4way" "dinero 4way"
  echo
  for pair in "fa64|tlbsim fa64|dinero fa64" "4way|tlbsim 4way|dinero 4way" \
    "fa64, one level|tlbsim fa64-only|dinero fa64"; do
    IFS='|' read -r label t d <<<"$pair"
    awk -v l="$label" -v tb="${best[$t]}" -v db="${best[$d]}" -v tm="${med[$t]}" -v dm="${med[$d]}" \
      'BEGIN {printf "ratio tlbsim/Dinero %-16s best %.2f  median %.2f\n", l ":", db / tb, dm / tm}'
  done
fi
[ $status -ne 0 ] || echo "L1 miss counts agree"
exit $status
