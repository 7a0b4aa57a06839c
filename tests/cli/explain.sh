#!/usr/bin/env bash
# explain shows a Hopper walk level by level and where each TLB level would
# hold the page: the third level's bank follows VA bit 25.
# Usage: explain.sh TLBSIM
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
out=$("$tlbsim" explain --preset h200 0x7f1234567890 0x7f1236567890)
echo "$out"
[ "$(grep -c '5 entries read' <<<"$out")" = 2 ] || fail "expected two 5-read walks"
grep -q 'PD0    VA\[28:21\] = 162' <<<"$out" || fail "PD0 index of 0x7f1234567890"
grep -q 'TLB l3     set 720 of 1024 (8-way, xor-folded index, bank 0 of 2)' <<<"$out" || fail "l3 bank 0"
grep -q 'TLB l3     set 721 of 1024 (8-way, xor-folded index, bank 1 of 2)' <<<"$out" || fail "l3 bank 1"
grep -q 'TLB l2     set .* of 256 (8-way, xor-folded index)$' <<<"$out" || fail "l2 line"
echo "5 passed, 0 failed"
