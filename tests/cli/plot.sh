#!/usr/bin/env bash
# validate --plot draws one panel per mapping/order present into a PNG, and a
# plot with nothing to draw is an error, not an empty file.
# Usage: plot.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
csv=$src/gpu/results/h200/chase_banks.csv
# The first 24 rows: 48 MiB stride, both orders, 128 GiB and up.
head -n 25 "$csv" >"$work/few.csv"
"$tlbsim" validate --set tlb.l3.latency=147 --plot "$work/fit.png" "$work/few.csv" | tail -1
[ "$(head -c 8 "$work/fit.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  { echo "FAIL: $work/fit.png is not a PNG"; exit 1; }
if "$tlbsim" validate --min-nodes 1000000000 --plot "$work/none.png" "$work/few.csv" 2>"$work/err"; then
  echo "FAIL: a plot of no rows succeeded"; exit 1
fi
cat "$work/err"
[ "$(wc -l <"$work/err")" = 1 ] && [ ! -e "$work/none.png" ] || { echo "FAIL: expected one error line, no file"; exit 1; }
# Gather rows: the same figure in loads per ns (a few rows of the sweep, one mapping).
head -n 1 "$src/gpu/results/h200/gather.csv" >"$work/gather.csv"
grep ',contiguous,' "$src/gpu/results/h200/gather.csv" | awk -F, 'NR % 40 == 1' | head -n 6 >>"$work/gather.csv"
"$tlbsim" validate --plot "$work/gather.png" "$work/gather.csv" | tail -1
[ "$(head -c 8 "$work/gather.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  { echo "FAIL: $work/gather.png is not a PNG"; exit 1; }
# A plot is never written over its own input.
cp "$work/few.csv" "$work/same.csv"
if "$tlbsim" validate --set tlb.l3.latency=147 --plot "$work/same.csv" "$work/same.csv" 2>"$work/err" >/dev/null; then
  echo "FAIL: --plot over the input succeeded"; exit 1
fi
cmp -s "$work/few.csv" "$work/same.csv" || { echo "FAIL: the input was overwritten"; exit 1; }
echo "4 passed, 0 failed"
