#!/bin/sh
# tlbsim alloc end to end: exit codes, error lines, the three output formats,
# the timeline, the synthetic workload and the numbers docs/ALLOC.md quotes.
# usage: test_alloc_cli.sh TLBSIM SOURCE_DIR
. "$(dirname "$0")/cli/lib.sh"
torch=$src/traces/torch

# expect_rc RC CMD...: runs CMD, checks its exit status; output in $work/out, $work/err
expect_rc() {
  want=$1
  shift
  "$@" >"$work/out" 2>"$work/err"
  got=$?
  [ "$got" -eq "$want" ] && ok || bad "exit $got, not $want: $* ($(head -c 300 "$work/err"))"
}

holds() { grep -q -- "$2" "$1" && ok || bad "$1 lacks '$2'"; }
value() { sed -n "s/^  *\"$1\":\([^,]*\),*$/\1/p" "$work/out" | head -1; }

# --- usage and input errors -------------------------------------------------------------
expect_rc 0 "$tlbsim" alloc --help
holds "$work/out" "expandable "
holds "$work/out" "max_split_size"
expect_rc 2 "$tlbsim" alloc
expect_rc 2 "$tlbsim" alloc --bogus "$torch/tf_infer.json.gz"
expect_rc 2 "$tlbsim" alloc --format xml "$torch/tf_infer.json.gz"
expect_rc 2 "$tlbsim" alloc --capacity lots "$torch/tf_infer.json.gz"
expect_rc 2 "$tlbsim" alloc --policy worst-fit "$torch/tf_infer.json.gz"
holds "$work/err" "unknown allocator policy 'worst-fit' (known: first-fit, next-fit, best-fit, buddy, cuda, caching, expandable, recorded)"
expect_rc 2 "$tlbsim" alloc --synthetic=bogus=1
expect_rc 1 "$tlbsim" alloc --set nosuch=1 "$torch/tf_infer.json.gz"
holds "$work/err" "^--set:1: unknown allocator parameter 'nosuch'"
expect_rc 1 "$tlbsim" alloc "$work/missing.json"
holds "$work/err" "^$work/missing.json: cannot open: No such file or directory$"
printf '{"device_traces": [[{"action": "alloc", "addr": 1, "size": 8},\n {"action": "alloc", "addr": 2}]]}\n' >"$work/bad.json"
expect_rc 1 "$tlbsim" alloc "$work/bad.json"
holds "$work/err" "^$work/bad.json: device_traces\[0\]\[1\]: missing 'size'$"
[ "$(wc -l <"$work/err")" -eq 1 ] && ok || bad "more than one error line"
printf 'Thread,Time,Action,Pointer,Size,Stream\n1,0.5,allocate,0x10,8,0\n1,0.6,free,0x10,8,0\n1,0.7,resize,0x10,8,0\n' >"$work/bad.csv"
expect_rc 1 "$tlbsim" alloc "$work/bad.csv"
holds "$work/err" "^$work/bad.csv:4: Action: 'resize' is not allocate, free or allocate failure"
printf 'alloc 1 4K align=4K\n' >"$work/align.trace"
expect_rc 1 "$tlbsim" alloc --policy caching "$work/align.trace"
holds "$work/err" "^$work/align.trace:1: caching: alignment 4096 is more than the 512 bytes blocks have"

# --- the reference snapshot, every format ------------------------------------------------
expect_rc 0 "$tlbsim" alloc --policy caching --format json "$torch/mlp_train.json.gz"
[ "$(head -c 1 "$work/out")" = "[" ] && ok || bad "one policy: not a JSON list (always one, whatever the policies)"
[ "$(value peak_reserved_bytes)" = 2835349504 ] && ok || bad "caching peak reserved $(value peak_reserved_bytes)"
[ "$(value driver_allocs)" = 78 ] && ok || bad "caching driver_allocs $(value driver_allocs)"
for k in policy peak_reserved_bytes peak_allocated_bytes driver_allocs driver_frees ooms external_fragmentation_max \
  pte_writes shootdowns recorded; do holds "$work/out" "\"$k\""; done
expect_rc 0 "$tlbsim" alloc --policy cuda --policy caching --policy expandable --format json "$torch/mlp_train_expandable.json.gz"
[ "$(head -c 1 "$work/out")" = "[" ] && ok || bad "several policies: not a JSON array"
[ "$(grep -c '"policy"' "$work/out")" -eq 3 ] && ok || bad "not three policy objects"
expect_rc 0 "$tlbsim" alloc --format csv "$torch/mlp_train_expandable.json.gz"
holds "$work/out" "^policy,trace,capacity_bytes,peak_reserved_bytes,"
[ "$(wc -l <"$work/out")" -eq 4 ] && ok || bad "csv: not a header and three rows"
# Only the recording allocator's model is compared with the recording: the others' errors are empty.
grep -q "^cuda,.*,true,,expandable,,,0," "$work/out" && ok || bad "cuda row has errors against another allocator's recording"
grep -q "^expandable,.*,1858076672,1858076672,60,0,0,true,,expandable,0.0,0.0,0," "$work/out" && ok || bad "expandable row: $(grep ^expandable "$work/out")"
expect_rc 0 "$tlbsim" alloc --policy caching --policy expandable "$torch/mlp_train.json.gz"
holds "$work/out" "recorded with expandable_segments False"
grep -q "^peak_reserved_bytes  *2,835,349,504  *1,858,076,672  *2,835,349,504$" "$work/out" && ok || bad "text table row"

# --- timeline ------------------------------------------------------------------------------
expect_rc 0 "$tlbsim" alloc --policy cuda --policy caching --timeline "$work/tl.csv" "$torch/tf_infer.json.gz"
holds "$work/tl.csv" "^event,time_us,recorded.reserved_bytes,cuda.requested_bytes,cuda.allocated_bytes,cuda.reserved_bytes,"
holds "$work/tl.csv" ",caching.external_fragmentation,caching.driver_allocs,caching.driver_frees,caching.ooms$"
events=$(grep -c '' "$work/tl.csv")
[ "$events" -gt 1000 ] && ok || bad "timeline has $events lines"
tail -1 "$work/tl.csv" | grep -q ",226492416," && ok || bad "last timeline row lacks the recorded reserved bytes"
expect_rc 0 "$tlbsim" alloc --policy cuda --timeline "$work/tl10.csv" --timeline-every 10 "$torch/tf_infer.json.gz"
rows=$(grep -c '' "$work/tl10.csv")
[ $(( (events - 1 + 9) / 10 + 1 )) -eq "$rows" ] && ok || bad "every 10th of $events rows gave $rows"

# --- synthetic: the OOM-while-free demonstration (docs/ALLOC.md) -----------------------------
demo="--synthetic --capacity 640M --set page_size=64K --policy first-fit --policy cuda --policy caching --policy expandable --format csv"
expect_rc 0 "$tlbsim" alloc $demo
cp "$work/out" "$work/demo1.csv"
expect_rc 0 "$tlbsim" alloc $demo
cmp -s "$work/out" "$work/demo1.csv" && ok || bad "synthetic runs differ"
# policy,...,ooms,ooms_enough_free,first_oom_event,first_oom_request_bytes,first_oom_free_bytes
col() { awk -F, -v p="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } $1 == p { print $k }' "$work/demo1.csv"; }
[ "$(col first-fit ooms)" = 29 ] && ok || bad "first-fit ooms $(col first-fit ooms)"
[ "$(col first-fit ooms_enough_free)" = 29 ] && ok || bad "first-fit fragmented ooms $(col first-fit ooms_enough_free)"
[ "$(col first-fit first_oom_request_bytes)" = 268435456 ] && ok || bad "first-fit first OOM request"
[ "$(col first-fit first_oom_free_bytes)" = 401801216 ] && ok || bad "first-fit free at first OOM"
[ "$(col cuda ooms)" = 0 ] && ok || bad "cuda ooms"
[ "$(col caching ooms)" = 0 ] && ok || bad "caching ooms"
[ "$(col cuda driver_allocs)" = 7000 ] && ok || bad "cuda driver calls"
[ "$(col caching driver_allocs)" = 19 ] && ok || bad "caching driver calls $(col caching driver_allocs)"
[ "$(col cuda shootdowns)" = 6014 ] && ok || bad "cuda shootdowns $(col cuda shootdowns)"

# --- round trips: the synthetic workload as an RMM log, stdin ---------------------------------
expect_rc 0 "$tlbsim" alloc --synthetic=requests=40 --policy caching --policy first-fit --capacity 1G --format csv --emit-rmm "$work/syn.csv"
cut -d, -f1,3- "$work/out" >"$work/direct.csv"
expect_rc 0 "$tlbsim" alloc --policy caching --policy first-fit --capacity 1G --format csv "$work/syn.csv"
cut -d, -f1,3- "$work/out" >"$work/replayed.csv"
cmp -s "$work/direct.csv" "$work/replayed.csv" && ok || bad "the emitted RMM log replays differently"
expect_rc 0 sh -c "\"$tlbsim\" alloc --policy caching --format csv - <\"$torch/tf_infer.json.gz\""
holds "$work/out" "^caching,<stdin>,"

finish test_alloc_cli
