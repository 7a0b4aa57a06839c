#!/usr/bin/env bash
# explain: several addresses touched in order through one machine (demand
# paging on its lowest free frames), then walked in the one final table, each
# entry with its contents; and the same as JSON, parsed by python3.
# Hand-worked: teaching16 (16-bit VA, L1 = VA[15:12], L2 = VA[11:8], 256 B
# pages, 16 x 2 B tables): the root at 0x1000000000000, the L2 table made
# first right after it (+0x20), the next at +0x40. 0x1234 takes frame 0,
# 0xffff frame 1, 0x1200 shares 0x1234's page. Entry words: flags in the
# top byte (V 0x01, R 0x02, W 0x04, X 0x08, L 0x10), the address below.
# Usage: explain_table.sh TLBSIM
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
need python3

out=$("$tlbsim" explain --preset teaching 0x1234 0xffff 0x1200)
has "$out" "VA 0x1234, format teaching16, 256B page"
has "$out" "  L1     VA[15:12] = 1     entry 0x1000000000002 (table 0x1000000000000 + 1 x 2 B) = 0x0101000000000020 V next table 0x1000000000020"
has "$out" "  L2     VA[11: 8] = 2     entry 0x1000000000024 (table 0x1000000000020 + 2 x 2 B) = 0x1f00000000000000 V rwx leaf 256B page, frame 0 (pa 0)"
has "$out" "  PA 0x34 (frame 0 at 0 + offset); 2 entries read"
has "$out" "  L1     VA[15:12] = 15    entry 0x100000000001e (table 0x1000000000000 + 15 x 2 B) = 0x0101000000000040 V next table 0x1000000000040"
has "$out" "  L2     VA[11: 8] = 15    entry 0x100000000005e (table 0x1000000000040 + 15 x 2 B) = 0x1f00000000000100 V rwx leaf 256B page, frame 0x1 (pa 0x100)"
# 0xffff lands in frame 1, inside the 64 KiB machine, not in 0x1234's frame
has "$out" "  PA 0x1ff (frame 0x1 at 0x100 + offset); 2 entries read"
has "$out" "  PA 0 (frame 0 at 0 + offset); 2 entries read"
[ "$(grep -c 'entries read' <<<"$out")" = 3 ] || fail "three walks"
ok

# --unmapped: nothing is touched, nothing mapped: the walk stops at the empty L1 entry
out=$("$tlbsim" explain --preset teaching --unmapped 0x1234)
has "$out" "  L1     VA[15:12] = 1     entry 0x1000000000002 (table 0x1000000000000 + 1 x 2 B) = 0x0000000000000000 not valid"
has "$out" "  not mapped: an access faults; 1 entry read"

# x86-64: two pages 2 MiB apart share PML4, PDPT and PD tables, not the PT
out=$("$tlbsim" explain 0x7f0000001234 0x7f0000201234)
has "$out" "  PML4   VA[47:39] = 254   entry 0x10000000007f0 (table 0x1000000000000 + 254 x 8 B) = 0x0101000000001000 V next table 0x1000000001000"
has "$out" "  PD     VA[29:21] = 1     entry 0x1000000002008 (table 0x1000000002000 + 1 x 8 B) = 0x0101000000004000 V next table 0x1000000004000"
has "$out" "  PT     VA[20:12] = 1     entry 0x1000000004008 (table 0x1000000004000 + 1 x 8 B) = 0x1f00000000001000 V rwx leaf 4KiB page, frame 0x1 (pa 0x1000)"
has "$out" "  PA 0x1234 (frame 0x1 at 0x1000 + offset); 4 entries read"

# JSON: per address va, pa, page_size and the entries read, each decoded
"$tlbsim" explain --format json 0x7f0000001234 0x7f0000201234 | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["format"] == "x86-64-4", d["format"]
a, b = d["addresses"]
assert (a["va"], a["pa"], a["page_size"], a["mapped"]) == (0x7f0000001234, 0x234, 4096, True), a
assert (b["va"], b["pa"], b["page_size"]) == (0x7f0000201234, 0x1234, 4096), b
for x in (a, b):
    e = x["entries"]
    assert [s["level"] for s in e] == ["PML4", "PDPT", "PD", "PT"], e
    for up, down in zip(e, e[1:]):
        assert up["valid"] and not up["leaf"] and up["next_table"] == down["table"], (up, down)
        assert int(up["raw"], 16) == (1 << 56) | up["next_table"], up
    assert e[0]["index"] == 254 and e[0]["entry_address"] == 0x10000000007f0, e[0]
leaf = b["entries"][3]
assert [s["va_bits"] for s in b["entries"]] == [[47, 39], [38, 30], [29, 21], [20, 12]], b
assert leaf == {"level": "PT", "index": 1, "va_bits": [20, 12], "table": 0x1000000004000, "entry_address": 0x1000000004008,
                "raw": "0x1f00000000001000", "valid": True, "leaf": True, "prot": "rwx",
                "page_size": 4096, "frame": 1, "frame_address": 0x1000}, leaf
assert a["entries"][3]["raw"] == "0x1f00000000000000" and a["entries"][3]["frame"] == 0
' || fail "explain JSON"
ok
"$tlbsim" explain --format json --preset teaching --unmapped 0x1234 | python3 -c '
import json, sys
a, = json.load(sys.stdin)["addresses"]
assert a["mapped"] is False and a["pa"] is None, a
assert a["entries"] == [{"level": "L1", "index": 1, "va_bits": [15, 12], "table": 1 << 48, "entry_address": (1 << 48) + 2,
                         "raw": "0x0000000000000000", "valid": False}], a
' || fail "explain JSON unmapped"
ok
finish explain_table
