#!/bin/sh
# tlbsim alloc's driver-time model (docs/ALLOC.md, "What the allocations cost in time"): a capture
# worked by hand, the model reproducing a recording it replays under the recording's own policy,
# and the check against the H200 inference loop (gpu/results/h200/capture/infer/): the predicted
# wall-time difference between no caching and the caching allocator against the measured 0.675 s.
# usage: alloc_time.sh TLBSIM SOURCE_DIR
. "$(dirname "$0")/lib.sh"
infer=$src/gpu/results/h200/capture/infer
between="--between tlbsim_loop_begin,tlbsim_loop_end"

# col POLICY COLUMN FILE: COLUMN of POLICY's row of an alloc CSV
col() {
  awk -F, -v p="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next } $1 == p { print $at[c] }' "$3"
}
# near GOT WANT TOL WHAT: |GOT - WANT| <= TOL
near() {
  if awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { d = g - w; exit !(d <= t && -d <= t) }'; then ok
  else bad "$4: $1, not $2 within $3"; fi
}

# A preset whose [driver] section is replaced by $1 (the rest: h200's).
mkdir -p "$work/presets"
driver_preset() {
  awk '/^\[driver\]/ { skip = 1; next } /^\[/ { skip = 0 } !skip' "$src/sim/presets/h200.ini" >"$work/presets/t.ini"
  printf '[driver]\n%s\n' "$1" >>"$work/presets/t.ini"
}

# 1. By hand: costs 1 us a call, 10 a call that maps or unmaps; a wait ends 1 us after the device.
driver_preset 'malloc_us = 1:1
malloc_map_us = 1:10
free_us = 1:1
free_unmap_us = 1:10
sync_us = 1
queue_us = 0.5'
cat >"$work/hand.trace" <<'T'
alloc 1 4096 va=0x7f0000000000 t=20000
mark k grid=1 block=1 t=30000 dur=100000
free 1 t=131000
mark done t=150000
T
# cuda: the alloc opens a region (10 us), the kernel runs 30-130 us, the free waits till 131 and
# unmaps (10): the host ends at 141, then 9 us more to the mark; caching: one segment (10), the free
# is its own, the device is last: 130 - 20.
TLBSIM_PRESET_PATH=$work/presets "$tlbsim" alloc --preset t --policy cuda,caching --format csv "$work/hand.trace" \
  >"$work/hand.csv" || bad "alloc of the hand-worked capture"
near "$(col cuda wall_time_s "$work/hand.csv")" 0.00013 1e-9 "hand: cuda wall"
near "$(col cuda driver_time_s "$work/hand.csv")" 0.000121 1e-9 "hand: cuda driver time"
near "$(col cuda driver_wait_s "$work/hand.csv")" 0.000101 1e-9 "hand: cuda wait"
near "$(col caching wall_time_s "$work/hand.csv")" 0.00011 1e-9 "hand: caching wall"
near "$(col caching driver_time_s "$work/hand.csv")" 0.00001 1e-9 "hand: caching driver time"
near "$(col caching driver_wait_s "$work/hand.csv")" 0 1e-12 "hand: caching wait"
# --between: the same from the kernel to the mark (the window opens at the kernel's start)
TLBSIM_PRESET_PATH=$work/presets "$tlbsim" alloc --preset t --policy cuda --format csv --between k,done \
  "$work/hand.trace" >"$work/hand.csv" || bad "alloc --between"
near "$(col cuda driver_time_s "$work/hand.csv")" 0.000111 1e-9 "hand: cuda driver time between k and done"

# 2. Nothing taken out (capture_us 0), the no-caching capture through the cuda model reproduces its
# own loop: 1.486333 s between the marks' starts (the model: 1.4844).
awk '/^capture_us/ { print "capture_us = 0"; next } { print }' "$src/sim/presets/h200.ini" >"$work/presets/raw.ini"
TLBSIM_PRESET_PATH=$work/presets "$tlbsim" alloc --preset raw --policy cuda --format csv $between \
  "$infer/nocache.trace.gz" >"$work/raw.csv" || bad "alloc of nocache"
near "$(col cuda wall_time_s "$work/raw.csv")" 1.486333 0.0075 "nocache through cuda, nothing taken out (0.5 %)"

# 3. The check. Measured: 1.309 s without caching, 0.634 with (medians of 3 uncaptured runs each):
# 0.675 s. One capture, two policies (what a pool would save): predicted 0.816 (+0.140 s, +20.8 %);
# the two captures each through its own allocator: 0.793 (+0.117 s, +17.4 %). Bounds: the error and
# 0.027 s (4 % of 0.675) more.
"$tlbsim" alloc --policy cuda,caching --format csv $between "$infer/nocache.trace.gz" >"$work/nc.csv" || bad "nocache"
"$tlbsim" alloc --policy caching --format csv $between "$infer/caching.trace.gz" >"$work/c.csv" || bad "caching"
cuda=$(col cuda wall_time_s "$work/nc.csv")
near "$(awk -v a="$cuda" -v b="$(col caching wall_time_s "$work/nc.csv")" 'BEGIN { print a - b }')" 0.675 0.168 \
  "one capture: predicted saving"
near "$(awk -v a="$cuda" -v b="$(col caching wall_time_s "$work/c.csv")" 'BEGIN { print a - b }')" 0.675 0.145 \
  "two captures: predicted difference"
near "$(col caching driver_time_s "$work/c.csv")" 0 1e-12 "the caching loop makes no driver call"

# 4. The capture's meminfo samples beside the model's free memory (docs/ALLOC.md, "A capture's free
# memory"): the driver's least free, its total, and the cuda model's least free of that total.
[ "$(col cuda recorded.free_bytes_min "$work/nc.csv")" = 148498415616 ] && ok || bad "recorded least free memory"
[ "$(col cuda recorded.total_bytes "$work/nc.csv")" = 150109880320 ] && ok || bad "recorded total memory"
[ "$(col cuda recorded.used_bytes_peak "$work/nc.csv")" = 1611464704 ] && ok || bad "recorded memory in use"
[ "$(col cuda free_bytes_min "$work/nc.csv")" = 149164064768 ] && ok || bad "the cuda model's least free memory"
[ "$(col cuda recorded.meminfo_samples "$work/nc.csv")" = 1438 ] && ok || bad "meminfo samples"

# 5. Errors: a mark the trace lacks, a bad --between, a bad [driver] table.
"$tlbsim" alloc $between "$work/hand.trace" >/dev/null 2>"$work/err"
[ $? = 1 ] && grep -q "hand.trace: --between: no mark 'tlbsim_loop_begin' in the trace" "$work/err" && ok \
  || bad "a missing mark: $(cat "$work/err")"
"$tlbsim" alloc --between k,nowhere "$work/hand.trace" >/dev/null 2>"$work/err"
[ $? = 1 ] && grep -q "hand.trace: --between: no mark 'nowhere' after 'k'" "$work/err" && ok \
  || bad "a missing end mark: $(cat "$work/err")"
"$tlbsim" alloc --between k "$work/hand.trace" >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--between k is a usage error"
driver_preset 'malloc_us = 1:1,4K:x'
TLBSIM_PRESET_PATH=$work/presets "$tlbsim" alloc --preset t "$work/hand.trace" >/dev/null 2>"$work/err"
[ $? = 1 ] && grep -q "t.ini:[0-9]*: driver.malloc_us: '4K:x' is not SIZE:US" "$work/err" && ok \
  || bad "a bad table: $(cat "$work/err")"
driver_preset 'malloc_us = 4K:1,1K:2'
TLBSIM_PRESET_PATH=$work/presets "$tlbsim" alloc --preset t "$work/hand.trace" >/dev/null 2>"$work/err"
grep -q "sizes must increase" "$work/err" && ok || bad "sizes out of order: $(cat "$work/err")"
finish alloc_time
