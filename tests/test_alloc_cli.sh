#!/bin/sh
# tlbsim alloc end to end: exit codes, error lines, the three output formats,
# the timeline, the synthetic workload and the numbers docs/ALLOC.md quotes.
# usage: test_alloc_cli.sh TLBSIM SOURCE_DIR
tlbsim=$1
src=$2
torch=$src/traces/torch
failures=0
tmp=alloc_cli_tmp
mkdir -p "$tmp"

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_rc RC CMD...: runs CMD, checks its exit status; output in $tmp/out, $tmp/err
expect_rc() {
  want=$1
  shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ "$got" -eq "$want" ] || fail "exit $got, not $want: $* ($(head -c 300 "$tmp/err"))"
}

has() { grep -q -- "$2" "$1" || fail "$1 lacks '$2'"; }
value() { sed -n "s/^  *\"$1\":\([^,]*\),*$/\1/p" "$tmp/out" | head -1; }

# --- usage and input errors -------------------------------------------------------------
expect_rc 0 "$tlbsim" alloc --help
has "$tmp/out" "expandable "
has "$tmp/out" "max_split_size"
expect_rc 2 "$tlbsim" alloc
expect_rc 2 "$tlbsim" alloc --bogus "$torch/tf_infer.json.gz"
expect_rc 2 "$tlbsim" alloc --format xml "$torch/tf_infer.json.gz"
expect_rc 2 "$tlbsim" alloc --capacity lots "$torch/tf_infer.json.gz"
expect_rc 2 "$tlbsim" alloc --policy worst-fit "$torch/tf_infer.json.gz"
has "$tmp/err" "unknown allocator policy 'worst-fit' (known: first-fit, next-fit, best-fit, buddy, cuda, caching, expandable, recorded)"
expect_rc 2 "$tlbsim" alloc --synthetic=bogus=1
expect_rc 1 "$tlbsim" alloc --set nosuch=1 "$torch/tf_infer.json.gz"
has "$tmp/err" "^--set:1: unknown allocator parameter 'nosuch'"
expect_rc 1 "$tlbsim" alloc "$tmp/missing.json"
has "$tmp/err" "^$tmp/missing.json: cannot open$"
printf '{"device_traces": [[{"action": "alloc", "addr": 1, "size": 8},\n {"action": "alloc", "addr": 2}]]}\n' >"$tmp/bad.json"
expect_rc 1 "$tlbsim" alloc "$tmp/bad.json"
has "$tmp/err" "^$tmp/bad.json: device_traces\[0\]\[1\]: missing 'size'$"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "more than one error line"
printf 'Thread,Time,Action,Pointer,Size,Stream\n1,0.5,allocate,0x10,8,0\n1,0.6,free,0x10,8,0\n1,0.7,resize,0x10,8,0\n' >"$tmp/bad.csv"
expect_rc 1 "$tlbsim" alloc "$tmp/bad.csv"
has "$tmp/err" "^$tmp/bad.csv:4: Action: 'resize' is not allocate, free or allocate failure"
printf 'alloc 1 4K align=4K\n' >"$tmp/align.trace"
expect_rc 1 "$tlbsim" alloc --policy caching "$tmp/align.trace"
has "$tmp/err" "^$tmp/align.trace:1: caching: alignment 4096 is more than the 512 bytes blocks have"

# --- the reference snapshot, every format ------------------------------------------------
expect_rc 0 "$tlbsim" alloc --policy caching --format json "$torch/mlp_train.json.gz"
[ "$(head -c 1 "$tmp/out")" = "{" ] || fail "one policy: not a JSON object"
[ "$(value peak_reserved_bytes)" = 2835349504 ] || fail "caching peak reserved $(value peak_reserved_bytes)"
[ "$(value driver_allocs)" = 78 ] || fail "caching driver_allocs $(value driver_allocs)"
for k in policy peak_reserved_bytes peak_allocated_bytes driver_allocs driver_frees ooms external_fragmentation_max \
  pte_writes tlb_shootdowns recorded; do has "$tmp/out" "\"$k\""; done
expect_rc 0 "$tlbsim" alloc --policy cuda --policy caching --policy expandable --format json "$torch/mlp_train_expandable.json.gz"
[ "$(head -c 1 "$tmp/out")" = "[" ] || fail "several policies: not a JSON array"
[ "$(grep -c '"policy"' "$tmp/out")" -eq 3 ] || fail "not three policy objects"
expect_rc 0 "$tlbsim" alloc --format csv "$torch/mlp_train_expandable.json.gz"
has "$tmp/out" "^policy,trace,capacity_bytes,peak_reserved_bytes,"
[ "$(wc -l <"$tmp/out")" -eq 4 ] || fail "csv: not a header and three rows"
# Only the recording allocator's model is compared with the recording: the others' errors are empty.
grep -q "^cuda,.*,true,,expandable,,,0$" "$tmp/out" || fail "cuda row has errors against another allocator's recording"
grep -q "^expandable,.*,1858076672,1858076672,60,0,0,true,,expandable,0.0,0.0,0$" "$tmp/out" || fail "expandable row: $(grep ^expandable "$tmp/out")"
expect_rc 0 "$tlbsim" alloc --policy caching --policy expandable "$torch/mlp_train.json.gz"
has "$tmp/out" "recorded with expandable_segments False"
grep -q "^peak_reserved_bytes  *2,835,349,504  *1,858,076,672  *2,835,349,504$" "$tmp/out" || fail "text table row"

# --- timeline ------------------------------------------------------------------------------
expect_rc 0 "$tlbsim" alloc --policy cuda --policy caching --timeline "$tmp/tl.csv" "$torch/tf_infer.json.gz"
has "$tmp/tl.csv" "^event,time_us,requested_bytes,recorded.reserved_bytes,cuda.allocated_bytes,cuda.reserved_bytes,"
has "$tmp/tl.csv" ",caching.external_fragmentation,caching.driver_allocs,caching.driver_frees,caching.ooms$"
events=$(grep -c '' "$tmp/tl.csv")
[ "$events" -gt 1000 ] || fail "timeline has $events lines"
tail -1 "$tmp/tl.csv" | grep -q ",226492416," || fail "last timeline row lacks the recorded reserved bytes"
expect_rc 0 "$tlbsim" alloc --policy cuda --timeline "$tmp/tl10.csv" --timeline-every 10 "$torch/tf_infer.json.gz"
rows=$(grep -c '' "$tmp/tl10.csv")
[ $(( (events - 1 + 9) / 10 + 1 )) -eq "$rows" ] || fail "every 10th of $events rows gave $rows"

# --- synthetic: the OOM-while-free demonstration (docs/ALLOC.md) -----------------------------
demo="--synthetic --capacity 640M --set page_size=64K --policy first-fit --policy cuda --policy caching --policy expandable --format csv"
expect_rc 0 "$tlbsim" alloc $demo
cp "$tmp/out" "$tmp/demo1.csv"
expect_rc 0 "$tlbsim" alloc $demo
cmp -s "$tmp/out" "$tmp/demo1.csv" || fail "synthetic runs differ"
# policy,...,ooms,ooms_fragmented,first_oom_event,first_oom_request_bytes,first_oom_free_bytes
col() { awk -F, -v p="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } $1 == p { print $k }' "$tmp/demo1.csv"; }
[ "$(col first-fit ooms)" = 29 ] || fail "first-fit ooms $(col first-fit ooms)"
[ "$(col first-fit ooms_fragmented)" = 29 ] || fail "first-fit fragmented ooms $(col first-fit ooms_fragmented)"
[ "$(col first-fit first_oom_request_bytes)" = 268435456 ] || fail "first-fit first OOM request"
[ "$(col first-fit first_oom_free_bytes)" = 401801216 ] || fail "first-fit free at first OOM"
[ "$(col cuda ooms)" = 0 ] || fail "cuda ooms"
[ "$(col caching ooms)" = 0 ] || fail "caching ooms"
[ "$(col cuda driver_allocs)" = 7000 ] || fail "cuda driver calls"
[ "$(col caching driver_allocs)" = 19 ] || fail "caching driver calls $(col caching driver_allocs)"
[ "$(col cuda tlb_shootdowns)" = 6014 ] || fail "cuda shootdowns $(col cuda tlb_shootdowns)"

# --- round trips: the synthetic workload as an RMM log, stdin ---------------------------------
expect_rc 0 "$tlbsim" alloc --synthetic=requests=40 --policy caching --policy first-fit --capacity 1G --format csv --emit-rmm "$tmp/syn.csv"
cut -d, -f1,3- "$tmp/out" >"$tmp/direct.csv"
expect_rc 0 "$tlbsim" alloc --policy caching --policy first-fit --capacity 1G --format csv "$tmp/syn.csv"
cut -d, -f1,3- "$tmp/out" >"$tmp/replayed.csv"
cmp -s "$tmp/direct.csv" "$tmp/replayed.csv" || fail "the emitted RMM log replays differently"
expect_rc 0 sh -c "\"$tlbsim\" alloc --policy caching --format csv - <\"$torch/tf_infer.json.gz\""
has "$tmp/out" "^caching,<stdin>,"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
