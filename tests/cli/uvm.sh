#!/usr/bin/env bash
# tlbsim uvm (the managed-memory experiment, predicted) and tlbsim validate on
# uvm rows: the suite's columns exactly; what the model did in JSON; issue #24's
# targets per column on the committed sweeps (run4/uvm.csv, which the [uvm]
# costs were fitted on, every 7th row; the second machine's smoke/uvm.csv,
# held out, every row): cold_ms mean <= 20 %, prefetch_ms <= 15 %, warm
# stream_gbps and gather_lpns <= 10 %; bad input exits 1 with one FILE:LINE
# line, usage errors exit 2.
# Usage: uvm.sh TLBSIM SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
res=$src/gpu/results/h200/run4

out=$("$tlbsim" uvm --size 256M --init gpu,host_prefetch --first stream) || bad "uvm csv"
[ "$(head -1 <<<"$out")" = init,first,size,prefetch_ms,cold_ms,stream_ms,stream_gbps,gather_lpns,gather2_lpns ] &&
  ok || bad "header: $(head -1 <<<"$out")"
[ "$(wc -l <<<"$out")" = 3 ] && ok || bad "two rows: $out"
# gpu: no prefetch, a cold first kernel of faults (16.35 ms measured); host_prefetch: 5.6 ms of prefetch
awk -F, 'NR == 2 && $1 == "gpu" && $4 == "" && $5 > 10 && $5 < 25 {f++} NR == 3 && $1 == "host_prefetch" &&
  $4 > 4.5 && $4 < 7 && $5 < 0.2 {f++} END {exit f != 2}' <<<"$out" && ok || bad "rows: $out"

json=$("$tlbsim" uvm --size 256M --init gpu --first stream --format json) || bad "uvm json"
# every 64 KiB page first touched by the GPU in order: 6 faults a block (the prefetch tree brings the rest),
# 128 blocks of 2 MiB pages, 256 MiB zero-filled
grep -q '"faults":768' <<<"$json" && grep -q '"pages_2m":128' <<<"$json" &&
  grep -q '"populated_bytes":268435456' <<<"$json" && ok || bad "json: $json"

# targets per column: each summary line "  COLUMN N rows, mean absolute error X%, ..."
check() { # check FILE EVERY
  local v
  v=$("$tlbsim" validate --every "$2" "$1" 2>&1) || { bad "validate $1: $(tail -3 <<<"$v")"; return; }
  for t in cold_ms:20 prefetch_ms:15 stream_gbps:10 gather_lpns:10; do
    awk -v c="${t%:*}" -v max="${t#*:}" '$1 == c { gsub("%,", "", $7); found = 1; if ($7 + 0 > max) exit 1 }
      END { exit !found }' <<<"$v" && ok || bad "$1: ${t%:*} above ${t#*:} %: $(grep " ${t%:*} " <<<"$v")"
  done
}
check "$res/smoke/uvm.csv" 1
check "$res/uvm.csv" 7

# the model's own file reads back through validate within its 4 digits
"$tlbsim" uvm --size 256M --init malloc,advise >"$work/pred.csv" || bad "uvm predicted"
v=$("$tlbsim" validate --columns cold_ms,gather_lpns --max-mean-error 0.05 "$work/pred.csv") && ok ||
  bad "predicted against itself: $v"
# --format as for the other rows: JSON the summary per column and every point, CSV one summary row
v=$("$tlbsim" validate --format json --columns cold_ms "$work/pred.csv") &&
  python3 -c 'import json, sys; d = json.load(sys.stdin); c = d["columns"]
assert list(c) == ["cold_ms"] and c["cold_ms"]["rows"] == len(d["points"]) == d["rows"] > 0, d
assert all(p["column"] == "cold_ms" and abs(p["error_pct"]) < 0.05 for p in d["points"]), d' <<<"$v" && ok ||
  bad "validate --format json on uvm rows: $v"
v=$("$tlbsim" validate --format csv --columns cold_ms "$work/pred.csv") && [ "$(wc -l <<<"$v")" = 2 ] &&
  head -1 <<<"$v" | grep -q '^csv,preset,rows,columns.cold_ms.rows,columns.cold_ms.mean_abs_error_pct,' && ok ||
  bad "validate --format csv on uvm rows: $v"

# errors
expect() { # expect STATUS MESSAGE-REGEX COMMAND...
  local want=$1 re=$2 got
  shift 2
  msg=$("$@" 2>&1 >/dev/null)
  got=$?
  [ "$got" = "$want" ] && grep -qE -- "$re" <<<"$msg" && [ "$(wc -l <<<"$msg")" = 1 ] && ok ||
    bad "$* -> $got: $msg (want $want, /$re/)"
}
expect 2 "--size: 100 is not a multiple of 128" "$tlbsim" uvm --size 100
expect 2 "--init: 'gpu,heap' is not" "$tlbsim" uvm --init gpu,heap
expect 1 "has no \[gpu\] section" "$tlbsim" uvm --preset x86-64 --size 256M
printf 'init,first,size,prefetch_ms,cold_ms,stream_ms,stream_gbps,gather_lpns,gather2_lpns\n' >"$work/bad.csv"
printf 'gpu,stream,268435456,,16,0.06,4000,50,50\nheap,stream,268435456,,16,0.06,4000,50,50\n' >>"$work/bad.csv"
expect 1 "bad.csv:3: init 'heap' is not malloc" "$tlbsim" validate "$work/bad.csv"
printf 'init,first,size,prefetch_ms,cold_ms,stream_ms,stream_gbps,gather_lpns,gather2_lpns\n' >"$work/big.csv"
printf 'gpu,stream,18446744073709551615,,16,0.06,4000,50,50\n' >>"$work/big.csv"
expect 1 "big.csv:2: size: .* is out of range" "$tlbsim" validate "$work/big.csv"

finish uvm
