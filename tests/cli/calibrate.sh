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
grep -q "exists; calibrate never overwrites" "$work/err"
echo "3 passed, 0 failed"
