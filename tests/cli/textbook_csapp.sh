#!/usr/bin/env bash
# CS:APP 3e 9.6.4 reproduced: the book's answers, asserted exactly, from the
# csapp preset and traces/textbook/csapp_9_6_4.trace (Figure 9.20's page
# table and TLB). Worked example: VA 0x03d4 -> VPN 0x0F, TLBI 0x3, TLBT 0x03,
# TLB hit, PPN 0x0D, PA 0x354. Practice problems: 9.11 VA 0x027c -> VPN 0x09,
# TLBI 0x1, TLBT 0x02, miss, no fault, PPN 0x17, PA 0x5FC; 9.12 VA 0x03a9 ->
# VPN 0x0E, TLBI 0x2, TLBT 0x03, miss, no fault, PPN 0x11, PA 0x469; 9.13
# VA 0x0040 -> VPN 0x01, TLBI 0x1, TLBT 0x00, miss, page fault.
# Usage: textbook_csapp.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
need python3
trace=$2/traces/textbook/csapp_9_6_4.trace

# VPN, PPN, PA, hit or miss, fault: the per-access log of the replay.
log=$("$tlbsim" run --preset csapp --log "$trace")
has "$log" "42: r 0x3d4 1 | vpn 0xf l1d set 3 hit; pfn 0xd pa 0x354; cycles 0"
has "$log" "44: r 0x27c 1 | vpn 0x9 l1d set 1 miss; walk refs 1 pwc - lines 0; pfn 0x17 pa 0x5fc; cycles 0"
has "$log" "46: r 0x3a9 1 | vpn 0xe l1d set 2 miss; walk refs 1 pwc - lines 0; pfn 0x11 pa 0x469; cycles 0"
has "$log" "48: r 0x40 1 | vpn 0x1 l1d set 1 miss; walk refs 1 pwc - lines 0; fault unmapped; cycles 0"

# TLBI and TLBT, and the VPN, as explain computes them from the geometry.
"$tlbsim" explain --preset csapp --format json 0x03d4 0x027c 0x03a9 0x0040 | python3 -c '
import json, sys
want = {0x03d4: (0x0F, 0x3, 0x03), 0x027c: (0x09, 0x1, 0x02), 0x03a9: (0x0E, 0x2, 0x03), 0x0040: (0x01, 0x1, 0x00)}
got = {a["va"]: (a["vpn"], a["tlb"][0]["set"], a["tlb"][0]["tag"]) for a in json.load(sys.stdin)["addresses"]}
assert got == want, got
' && ok || fail "explain: VPN, TLBI, TLBT"
text=$("$tlbsim" explain --preset csapp 0x03d4)
has "$text" "  PT     VA[13: 6] = 15    entry 0x100000000003c (table 0x1000000000000 + 15 x 4 B) = 0x1f00000000000000 V rwx leaf 64B page, frame 0 (pa 0)"
has "$text" "  TLB l1d    set 3 of 4 (4-way, modulo index)"

# Figure 9.20(b) as the dump shows it: PTE 0F holds PPN 0D, PTE 01 nothing.
dump=$("$tlbsim" dump --preset csapp "$trace")
has "$dump" "PT table at 0x1000000000000: VA 0-0x3fff, index VA[13:6], 256 entries x 4 B, 11 valid"
has "$dump" "   15: 0x1700000000000340  V rw- leaf 64B page, frame 0xd (pa 0x340)"
has "$dump" "    9: 0x17000000000005c0  V rw- leaf 64B page, frame 0x17 (pa 0x5c0)"
grep -q '^    1: ' <<<"$dump" && fail "PTE 01 is not valid in Figure 9.20(b)"
ok

# The format as tlbsim formats shows a configuration's.
fmt=$("$tlbsim" formats --preset csapp)
has "$fmt" "page-table format of csapp: csapp (CS:APP 3e 9.6.4: 14-bit VA, 64 B pages, a one-level table of 256 entries)"
has "$fmt" "  levels = PT:6:8:4"
has "$fmt" "  leaves = 64B@PT"

finish textbook_csapp
