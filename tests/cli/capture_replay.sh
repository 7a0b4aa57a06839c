#!/bin/sh
# The committed H200 captures (gpu/results/h200/capture/, libtlbsim-capture) replayed: tlbsim alloc
# --policy recorded keeps the driver's addresses and reproduces what the capture's README states
# (PyTorch's peak reserved, the live bytes), --policy cuda re-places the same requests, tlbsim run
# replays a capture with every record kind; a capture's bad input is a clear error. POSIX tools only.
# usage: capture_replay.sh TLBSIM SOURCE_DIR
tlbsim=$1
caps=$2/gpu/results/h200/capture
work=capture_replay_tmp
failures=0
mkdir -p "$work"

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# column POLICY COLUMN: COLUMN of POLICY's row in $work/out.csv
column() {
  awk -F, -v p="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next } $1 == p { print $at[c] }' \
    "$work/out.csv"
}

# expect TRACE POLICY COLUMN VALUE
expect() {
  got=$(column "$2" "$3")
  [ "$got" = "$4" ] || fail "$1 --policy $2: $3 is '$got', not $4"
}

for t in torch_caching torch_expandable torch_nocache async cupy; do
  "$tlbsim" alloc --policy recorded --policy cuda --format csv "$caps/$t.trace.gz" >"$work/out.csv" \
    || fail "tlbsim alloc of $t"
  [ "$(column recorded ooms)" = 0 ] || fail "$t: the recorded layout has OOMs"
  [ "$(column recorded allocs)" = "$(column cuda allocs)" ] || fail "$t: the policies saw different requests"
done
# the caching allocator's segments (78 cudaMalloc: PyTorch's 72 and 6 of libraries), never freed
"$tlbsim" alloc --policy recorded --policy cuda --format csv "$caps/torch_caching.trace.gz" >"$work/out.csv"
expect torch_caching recorded allocs 78
expect torch_caching recorded frees 0
expect torch_caching recorded peak_allocated_bytes 4446226432
# no caching: every tensor a cudaMalloc; the cuda model's 2 MiB pages peak where the driver's did
"$tlbsim" alloc --policy recorded --policy cuda --format csv "$caps/torch_nocache.trace.gz" >"$work/out.csv"
expect torch_nocache recorded allocs 1833
expect torch_nocache recorded peak_allocated_bytes 4256057344
expect torch_nocache recorded peak_reserved_bytes "$(column cuda peak_reserved_bytes)"
# expandable segments: tensors are VMM maps, not allocations; only the libraries' 6 remain
"$tlbsim" alloc --policy recorded --format csv "$caps/torch_expandable.trace.gz" >"$work/out.csv"
expect torch_expandable recorded allocs 6
# a run over every kind of record the capture writes (on the GPU preset: its managed memory needs 64 KiB pages)
"$tlbsim" run --preset h200 --set vas.policy=recorded "$caps/async.trace.gz" >"$work/run.txt" 2>&1 || fail "tlbsim run of async"
grep -q "75 allocs, 75 frees, 2 maps, 2 unmaps, 0 OOMs" "$work/run.txt" || { fail "run of async"; cat "$work/run.txt"; }

# bad input: a capture cut off, a free of an address never allocated, records out of time order,
# and --policy recorded on requests that recorded no address
gzip -dc "$caps/async.trace.gz" | head -n 40 >"$work/cut.trace"
printf "alloc 99" >>"$work/cut.trace" # the last line, cut off
line=$(wc -l <"$work/cut.trace" | tr -d ' ')
"$tlbsim" alloc "$work/cut.trace" >/dev/null 2>"$work/err" && fail "a cut-off capture replayed"
grep -q "cut.trace:$((line + 1)): missing SIZE" "$work/err" || { fail "cut-off capture"; cat "$work/err"; }
printf 'alloc 1 4K va=0x1000 t=5\nfree 2 t=6\n' >"$work/free.trace"
"$tlbsim" alloc "$work/free.trace" >/dev/null 2>"$work/err" && fail "a free of nothing replayed"
grep -q "free.trace:2: free of allocation 2, which is not live" "$work/err" || { fail "free of nothing"; cat "$work/err"; }
printf 'alloc 1 4K va=0x1000 t=5\nfree 1 t=4\n' >"$work/order.trace"
"$tlbsim" alloc "$work/order.trace" >/dev/null 2>"$work/err" && fail "records out of order replayed"
grep -q "order.trace:2: t=4 is before line 1's t=5" "$work/err" || { fail "time order"; cat "$work/err"; }
printf 'alloc 1 4K\n' >"$work/nova.trace"
"$tlbsim" alloc --policy recorded "$work/nova.trace" >/dev/null 2>"$work/err" && fail "recorded without va= replayed"
grep -q "nova.trace:1: recorded: an allocation without its recorded address (va=)" "$work/err" \
  || { fail "recorded without va="; cat "$work/err"; }
printf 'alloc 1 4K va=0x1000\nalloc 2 4K va=0x1800\n' >"$work/overlap.trace"
"$tlbsim" alloc --policy recorded "$work/overlap.trace" >/dev/null 2>"$work/err" && fail "overlap replayed"
grep -q "overlap.trace:2: recorded: va=0x1800 overlaps the live allocation at 0x1000" "$work/err" \
  || { fail "overlap"; cat "$work/err"; }

# tlbsim validate of a capture: every allocation's recorded address against the models' (the
# figures of docs/ALLOC.md, "Layout fidelity of a capture"); a capture without va= is its line's error
"$tlbsim" validate --format csv "$caps/torch_nocache.trace.gz" >"$work/out.csv" || fail "validate of torch_nocache"
for c in allocations placed_exactly; do expect validate recorded $c 1833; done
expect validate recorded same_step 1832
expect validate cuda placed_exactly 1
expect validate cuda same_step 513
expect validate recorded regions_2m_touched 2215
expect validate cuda regions_2m_touched 2907
expect validate recorded regions_32m_touched 140
expect validate cuda regions_32m_touched 182
expect validate recorded live_regions_2m_end 97
expect validate cuda live_regions_2m_end 97
expect validate recorded live_regions_32m_end 8
expect validate cuda live_regions_32m_end 7
"$tlbsim" validate "$work/nova.trace" >/dev/null 2>"$work/err" && fail "validate without va= passed"
grep -q "nova.trace:1: recorded: an allocation without its recorded address (va=)" "$work/err" \
  || { fail "validate without va="; cat "$work/err"; }
# a capture whose first record is bad is still a capture: that record's line, not a CSV's missing column
printf '# captured\nalloc 1 zz va=0x1000\n' >"$work/badfirst.trace"
"$tlbsim" validate "$work/badfirst.trace" >/dev/null 2>"$work/err" && fail "validate of a bad first record passed"
grep -q "badfirst.trace:2: SIZE: 'zz' is not a size" "$work/err" || { fail "a bad first record"; cat "$work/err"; }
printf 'mark x\n' >"$work/none.trace"
"$tlbsim" validate "$work/none.trace" >/dev/null 2>"$work/err" && fail "validate of no allocation passed"
grep -q "none.trace: no device allocations to compare" "$work/err" || { fail "no allocations"; cat "$work/err"; }

rm -rf "$work"
[ "$failures" = 0 ] && echo "capture_replay: all passed"
[ "$failures" = 0 ]
