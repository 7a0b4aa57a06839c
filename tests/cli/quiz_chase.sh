#!/usr/bin/env bash
# tlbsim chase on the teaching machine (16-bit VA, 256-byte pages, an 8-entry
# l1d before a 32-entry l2, 1 data cycle, l2 latency 2, 10 cycles per table
# read): the region lies inside the 64 KiB VA space, and the OSTEP ch. 19
# curve is known by hand: up to 8 pages every load hits l1d (1 cycle); 16
# and 32 pages miss l1d in sequential LRU order and hit l2 (1 + 2 = 3); from
# 64 pages l2 misses too and each load walks the two levels (3 + 2 x 10 = 23).
# Usage: quiz_chase.sh TLBSIM
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

out=$("$tlbsim" chase --preset teaching --footprint 2K,4K,8K,16K,64K --stride 256 --format csv)
got=$(awk -F, 'NR > 1 { printf "%s:%s ", $6, $8 }' <<<"$out")
[ "$got" = "2048:1.0 4096:3.0 8192:3.0 16384:23.0 65536:23.0 " ] || fail "teaching curve: $got"
ok
# shuffled chunks and random order work there too
"$tlbsim" chase --preset teaching --footprint 16K --stride 256 --order random --mapping shuffled --format csv >/dev/null ||
  fail "random shuffled chase on teaching"
ok
# a region larger than the VA space is still refused, in one line
set +e
err=$("$tlbsim" chase --preset teaching --footprint 128K --stride 256 2>&1); rc=$?
set -e
[ $rc = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] || fail "128K on a 64 KiB VA space: rc $rc: $err"
ok
finish quiz_chase
