#!/usr/bin/env bash
# calibrate recovers the h200 preset's level latencies from the committed
# H200 sweep (rows past the L2 reach, where both latencies matter), writes a
# preset that validates, and never overwrites a file.
# Usage: calibrate.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
tlbsim=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
csv=$src/gpu/results/h200/chase.csv
"$tlbsim" calibrate --mapping contiguous --min-footprint 48G --out "$work/fit.ini" "$csv" >"$work/out"
cat "$work/out"
l2=$(awk '$1 == "tlb.l2" { print $4 }' "$work/out")
l3=$(awk '$1 == "tlb.l3" { print $4 }' "$work/out")
awk -v a="$l2" -v b="$l3" 'BEGIN { exit !(a >= 7 && a <= 13 && b >= 80 && b <= 100) }' ||
  { echo "FAIL: fitted l2 $l2, l3 $l3 (expected about 10 and 90)"; exit 1; }
grep -q '^; calibrated by tlbsim calibrate' "$work/fit.ini"
"$tlbsim" validate --config "$work/fit.ini" --mapping contiguous --min-footprint 48G --max-mean-error 1 \
  --max-error-cycles 8 "$csv" | tail -1
if "$tlbsim" calibrate --mapping contiguous --min-footprint 48G --out "$work/fit.ini" "$csv" 2>"$work/err"; then
  echo "FAIL: calibrate overwrote $work/fit.ini"; exit 1
fi
grep -q "exists; it is never overwritten" "$work/err"
# Another H200 (its third level costs about 147): sequential rows at 32-256 MiB strides up to
# 1 TiB. Every load misses L1, so the L2's latency is paid exactly when L1's is: it is kept at
# the preset, not fitted twice; no latency comes out negative; the fit validates.
awk -F, 'NR == 1 || ($2 == "seq" && $5 <= 268435456 && $5 % 33554432 == 0 && $5 / 33554432 != 3 &&
  $6 <= 1099511627776)' "$src/gpu/results/h200/chase_banks.csv" >"$work/banks.csv"
"$tlbsim" calibrate --out "$work/banks.ini" "$work/banks.csv" >"$work/out2"
cat "$work/out2"
l3=$(awk '$1 == "tlb.l3" { print $4 }' "$work/out2")
awk -v b="$l3" 'BEGIN { exit !(b >= 140 && b <= 155) }' || { echo "FAIL: fitted l3 $l3 (expected about 147)"; exit 1; }
grep -q '^tlb.l2 .*(kept: paid exactly when tlb.l1d latency is)' "$work/out2" || { echo "FAIL: l2 not kept"; exit 1; }
if awk '$4 ~ /^-[0-9]/' "$work/out2" | grep -q .; then echo "FAIL: a negative latency"; exit 1; fi
"$tlbsim" validate --config "$work/banks.ini" --max-mean-error 1 --max-error-cycles 8 "$work/banks.csv" | tail -1
echo "6 passed, 0 failed"
