#!/usr/bin/env bash
# tlbsim alloc: OOM reasons and the address-space map at the first OOM,
# worked by hand. 16 KiB in 4 KiB granules: four 4 KiB blocks at offsets
# 0, 4K, 8K, 12K; freeing 1 and 3 leaves 8 KiB free in two 4 KiB holes, so
# 8 KiB at line 7 fails for fragmentation under first-fit and buddy alike
# (the holes at 0 and 8K are no buddies). 12K then 8K of 16K: exhausted. A
# 4 KiB request aligned to 8 KiB beside a 4 KiB block of 8 KiB: the free
# 4 KiB holds the bytes but not at that alignment: granularity. cuda and
# caching with 64 MiB of VA and 1 GiB of memory: the second 40 MiB: va_range.
# Usage: quiz_alloc_map.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
need jq
is() { [ "$2" = "$3" ] || fail "$1: $2, not $3"; ok; }

printf 'alloc 1 4K\nalloc 2 4K\nalloc 3 4K\nalloc 4 4K\nfree 1\nfree 3\nalloc 5 8K\n' >"$work/f.trace"
is fragmentation "$("$tlbsim" alloc --capacity 16K --policy first-fit --policy buddy --format json "$work/f.trace" |
  jq -c '[.[] | [.first_oom_event, .first_oom_reason, .first_oom_free_bytes, .first_oom_largest_free_extent, .ooms_fragmentation]]')" \
  '[[7,"fragmentation",8192,4096,1],[7,"fragmentation",8192,4096,1]]'
printf 'alloc 1 12K\nalloc 2 8K\n' >"$work/e.trace"
is exhausted "$("$tlbsim" alloc --capacity 16K --policy first-fit --format json "$work/e.trace" |
  jq -c '.[0] | [.first_oom_event, .first_oom_reason, .ooms_exhausted]')" '[2,"exhausted",1]'
printf 'alloc 1 4K\nalloc 2 4K align=8K\n' >"$work/g.trace"
is granularity "$("$tlbsim" alloc --capacity 8K --policy first-fit --format json "$work/g.trace" |
  jq -c '.[0] | [.first_oom_event, .first_oom_reason, .ooms_granularity]')" '[2,"granularity",1]'
printf 'alloc 1 40M\nalloc 2 40M\n' >"$work/v.trace"
is va_range "$("$tlbsim" alloc --capacity 1G --policy cuda --policy caching --set va_size=64M --format json "$work/v.trace" |
  jq -c '[.[] | [.first_oom_event, .first_oom_reason, .ooms_va_range]]')" '[[2,"va_range",1],[2,"va_range",1]]'
is no_oom "$("$tlbsim" alloc --capacity 1G --policy first-fit --format json "$work/e.trace" | jq -c '.[0] | [.first_oom_reason, .ooms]')" '[null,0]'

# the map at the first OOM: holes and blocks in address order, the failed request
out=$("$tlbsim" alloc --capacity 16K --policy first-fit --policy buddy --map "$work/f.trace")
has "$out" "first-fit after event 7: window 0x10000000000, 16KiB, 2 live blocks"
has "$out" "  [................################................################]  # used  . free  + both"
has "$out" "   0x10000000000-0x10000000fff        4KiB  free"
has "$out" "   0x10000001000-0x10000001fff        4KiB  used (id 2)"
has "$out" "   0x10000002000-0x10000002fff        4KiB  free"
has "$out" "   0x10000003000-0x10000003fff        4KiB  used (id 4)"
has "$out" "  FAILED: a request of 8KiB (fragmentation): 8KiB free in all, the largest free extent 4KiB"
has "$out" "buddy after event 7: window 0x10000000000, 16KiB, 2 live blocks"
# --map=EVENT: after line 6, before the request; nothing failed there
out=$("$tlbsim" alloc --capacity 16K --policy first-fit --map=6 "$work/f.trace")
has "$out" "first-fit after event 6: window 0x10000000000, 16KiB, 2 live blocks"
grep -q FAILED <<<"$out" && fail "a failure at event 6"
ok
out=$("$tlbsim" alloc --capacity 1G --policy first-fit --map "$work/e.trace")
has "$out" "first-fit: no request failed (no map)"
# buddy lists a hole as the aligned blocks it is made of: 4K at 4K, 8K at 8K;
# the 12K range holds the 12K request's bytes, not the 16K block buddy
# rounds it up to: granularity (README's definitions), not fragmentation
printf 'alloc 1 4K\nalloc 2 4K\nalloc 3 8K\nfree 2\nfree 3\nalloc 4 12K\n' >"$work/b.trace"
out=$("$tlbsim" alloc --capacity 16K --policy buddy --map "$work/b.trace")
has "$out" "   0x10000001000-0x10000001fff        4KiB  free"
has "$out" "   0x10000002000-0x10000003fff        8KiB  free"
has "$out" "  FAILED: a request of 12KiB (granularity): 12KiB free in all, the largest free extent 8KiB, a free range of 12KiB"

# the CSV, and the figure from it
"$tlbsim" alloc --capacity 16K --policy first-fit --policy buddy --map-csv "$work/map.csv" "$work/f.trace" >/dev/null
is csv "$(tr '\n' ' ' <"$work/map.csv")" "policy,row,event,kind,offset_bytes,size_bytes,id \
first-fit,0,7,free,0,4096,0 first-fit,0,7,used,4096,4096,2 first-fit,0,7,free,8192,4096,0 first-fit,0,7,used,12288,4096,4 \
first-fit,0,7,failed,0,8192,0 buddy,1,7,free,0,4096,0 buddy,1,7,used,4096,4096,2 buddy,1,7,free,8192,4096,0 \
buddy,1,7,used,12288,4096,4 buddy,1,7,failed,0,8192,0 "
if have gnuplot; then
  gnuplot -e "csv='$work/map.csv'; out='$work/map.png'" "$src/plots/alloc_map.gp" && [ -s "$work/map.png" ] || fail "plot"
  ok
fi
# --map-json: the same map as a JSON line, with the window, the counts and the regions
"$tlbsim" alloc --capacity 16K --policy first-fit --policy buddy --map-json "$work/map.jsonl" "$work/f.trace" >/dev/null
is json_lines "$(wc -l <"$work/map.jsonl")" 2
is json "$(head -1 "$work/map.jsonl" | jq -c '[.policy, .event, .window_base, .window_size, .used, .free, .failed.request,
  .failed.reason, .allocated_bytes, .live_buffers, .regions_2m, .regions_32m]')" \
  '["first-fit",7,1099511627776,16384,[[4096,4096,2],[12288,4096,4]],[[0,4096],[8192,4096]],8192,"fragmentation",8192,2,1,1]'
# --map-every N: every policy's map after events N, 2N, ...: the CSV rows of --map=EVENT at each
"$tlbsim" alloc --capacity 16K --policy first-fit --map-every 3 --map-json "$work/every.jsonl" --map-csv "$work/every.csv" \
  "$work/f.trace" >/dev/null
is every_events "$(jq -c .event "$work/every.jsonl" | tr '\n' ' ')" "3 6 "
"$tlbsim" alloc --capacity 16K --policy first-fit --map=6 --map-csv "$work/at6.csv" "$work/f.trace" >/dev/null
is every_rows "$(grep ',6,' "$work/every.csv")" "$(grep ',6,' "$work/at6.csv")"
# usage errors: one line, exit 2
set +e
err=$("$tlbsim" alloc --capacity 16K --map-every 2 "$work/f.trace" 2>&1); rc=$?
set -e
[ $rc = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] || fail "--map-every without a file: rc $rc: $err"
ok
set +e
err=$("$tlbsim" alloc --capacity 16K --map=0 "$work/f.trace" 2>&1); rc=$?
set -e
[ $rc = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] || fail "--map=0: rc $rc: $err"
ok
set +e
err=$("$tlbsim" alloc --capacity 16K --map --format json "$work/f.trace" 2>&1); rc=$?
set -e
[ $rc = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] || fail "--map with json: rc $rc: $err"
ok
finish quiz_alloc_map
