#!/usr/bin/env bash
# OSTEP's multi-level paging homework, seed 0, reproduced: the answers that
# paging-multilevel-translate.py -s 0 -c prints (ostep-homework commit
# 6c6cfc7e82c2), asserted exactly, from the ostep preset and
# traces/textbook/ostep_seed0.trace (its memory dump converted by
# traces/convert/ostep2native.py, which is checked to write that trace).
# A fault at the page table reads 2 entries (PDE valid, PTE not).
# Usage: textbook_ostep.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
need python3
trace=$src/traces/textbook/ostep_seed0.trace

log=$("$tlbsim" run --preset ostep --log "$trace")
# VA -> "pa PA" (Translates to Physical Address) or "fault" (page table entry not valid)
while read -r va answer; do
  line=$(grep -E "^[0-9]+: r $va 1 \|" <<<"$log") || fail "no access $va"
  case $answer in
    fault) grep -qE "walk refs 2 .*; fault unmapped;" <<<"$line" || fail "$va: $line" ;;
    *) grep -qE "walk refs 2 .*; pfn 0x[0-9a-f]+ pa $answer;" <<<"$line" || fail "$va: $line" ;;
  esac
  ok
done <<'ANSWERS'
0x611c 0x6bc
0x3da8 fault
0x17f5 0x9d5
0x7f6c fault
0xbad fault
0x6d60 fault
0x2a5b fault
0x4c5e fault
0x2592 0x7b2
0x3e99 0x959
ANSWERS
has "$log" "faults    0 demand-paging faults, 6 faulting accesses"
has "$log" "layout    0 allocs, 0 frees, 64 maps, 0 unmaps, 0 OOMs"

# The PDE and PTE indices of -c's first answer: "pde index:0x18 [decimal 24]",
# "pte index:0x8 [decimal 8]".
text=$("$tlbsim" explain --preset ostep 0x611c)
grep -qE '^  PD     VA\[14:10\] = 24 ' <<<"$text" && ok || fail "PDE index: $text"
grep -qE '^  PT     VA\[ 9: 5\] = 8 ' <<<"$text" && ok || fail "PTE index: $text"

# The converter on a hand-made dump: PDBR 0; PDE 3 -> table page 1, whose
# PTE 2 -> page 5 and PTE 31 invalid (0x7f): one map, VA 3 << 10 | 2 << 5.
conv=$(python3 -c '
pages = [[0] * 32 for _ in range(128)]
pages[0][3] = 0x81
pages[1][2] = 0x85
pages[1][31] = 0x7f
for i, p in enumerate(pages):
    print("page %3d:" % i + "".join("%02x" % b for b in p))
print("PDBR: 0  (decimal)")
print("Virtual Address 0x0c45:")
print("      --> Translates to Physical Address 0x0a5 --> Value: 00")
' | python3 "$src/traces/convert/ostep2native.py" -)
has "$conv" "map 0x0c40 32 frame=0x05"
has "$conv" "r 0x0c45  # Translates to Physical Address 0x0a5"
[ "$(grep -c '^map' <<<"$conv")" = 1 ] && ok || fail "one map: $conv"

# An exercise that allocates no page (-a 0): every PDE invalid (0x7f), so the
# trace has no map at all; the homework answers "page directory entry not
# valid" for every address, and so does the ostep preset, which never maps a
# page on a touch (demand_paging = off): a fault after one entry read.
none=$(python3 -c '
for i in range(128):
    print("page %3d:" % i + ("7f" * 32 if i == 17 else "00" * 32))
print("PDBR: 17  (decimal)")
for va in (0x611c, 0x0040, 0x7fff):
    print("Virtual Address 0x%04x:" % va)
    print("      --> Fault (page directory entry not valid)")
' | python3 "$src/traces/convert/ostep2native.py" -)
[ "$(grep -c '^map' <<<"$none")" = 0 ] && ok || fail "-a 0 gave maps: $none"
log=$("$tlbsim" run --preset ostep --log - <<<"$none")
for va in 0x611c 0x40 0x7fff; do
  grep -qE "^[0-9]+: r $va 1 \| .*walk refs 1 .*; fault unmapped;" <<<"$log" && ok || fail "-a 0: $va did not fault"
done
has "$log" "faults    0 demand-paging faults, 3 faulting accesses"
finish textbook_ostep
