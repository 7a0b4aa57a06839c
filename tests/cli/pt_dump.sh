#!/usr/bin/env bash
# tlbsim dump and run --dump-pt: the page table after a trace, level by level,
# each table with its address and VA range and its valid entries as
# index: raw word (decoded). Hand-worked on teaching16 (L1 = VA[15:12],
# L2 = VA[11:8], 256 B pages, 16 x 2 B tables from 0x1000000000000, each new
# table 0x20 further; frames lowest free first): r 0x1234 maps frame 0 and
# makes the L2 table at +0x20, w 0xffff frame 1 and +0x40; map 0x8000 0x200
# prot=r frames 2 and 3 under +0x60. Tables within a level come in VA order.
# Usage: pt_dump.sh TLBSIM
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

printf 'r 0x1234\nw 0xffff\nmap 0x8000 0x200 prot=r\n' >"$work/t.trace"
for cmd in "dump" "run --dump-pt"; do
  out=$("$tlbsim" $cmd --preset teaching "$work/t.trace")
  has "$out" "page table: format teaching16, 4 pages mapped, 128B of tables"
  has "$out" "L1 table at 0x1000000000000: VA 0-0xffff, index VA[15:12], 16 entries x 2 B, 3 valid"
  has "$out" "    1: 0x0101000000000020  V next table 0x1000000000020"
  has "$out" "    8: 0x0101000000000060  V next table 0x1000000000060"
  has "$out" "   15: 0x0101000000000040  V next table 0x1000000000040"
  has "$out" "L2 table at 0x1000000000020: VA 0x1000-0x1fff, index VA[11:8], 16 entries x 2 B, 1 valid"
  has "$out" "    2: 0x1f00000000000000  V rwx leaf 256B page, frame 0 (pa 0)"
  has "$out" "    0: 0x1300000000000200  V r-- leaf 256B page, frame 0x2 (pa 0x200)"
  has "$out" "    1: 0x1300000000000300  V r-- leaf 256B page, frame 0x3 (pa 0x300)"
  has "$out" "   15: 0x1f00000000000100  V rwx leaf 256B page, frame 0x1 (pa 0x100)"
  # empty entries are left out: 3 valid L1 entries, 4 leaves
  [ "$(grep -c '^ *[0-9]*: 0x' <<<"$out")" = 7 ] || { echo "$out"; fail "7 entry lines"; }
  ok
  # level by level, and within L2 in VA order: 0x1000, 0x8000, 0xf000
  order=$(grep -o '^L[12] table at 0x[0-9a-f]*' <<<"$out" | tr '\n' ' ')
  [ "$order" = "L1 table at 0x1000000000000 L2 table at 0x1000000000020 L2 table at 0x1000000000060 L2 table at 0x1000000000040 " ] ||
    fail "table order: $order"
  ok
done
# run --dump-pt puts the table before the usual report
out=$("$tlbsim" run --dump-pt --preset teaching "$work/t.trace")
grep -q '^faults    2 demand-paging faults' <<<"$out" || fail "report after the dump"
ok
# unmapping frees the empty L2 table; the dump shows what is left
printf 'map 0x1000 0x100\nmap 0x2000 0x100\nunmap 0x1000 0x100\n' >"$work/u.trace"
out=$("$tlbsim" dump --preset teaching "$work/u.trace")
has "$out" "page table: format teaching16, 1 page mapped, 64B of tables"
has "$out" "    2: 0x0101000000000040  V next table 0x1000000000040"
has "$out" "    0: 0x1700000000000100  V rw- leaf 256B page, frame 0x1 (pa 0x100)"
# x86-64: a 2 MiB page is a leaf in the PD (L bit, page size from the level)
printf 'map 0x40000000 2M page=2M prot=rwx\n' >"$work/x.trace"
out=$("$tlbsim" dump "$work/x.trace")
has "$out" "PD table at 0x1000000002000: VA 0x40000000-0x7fffffff, index VA[29:21], 512 entries x 8 B, 1 valid"
has "$out" "    0: 0x1f00000000000000  V rwx leaf 2MiB page, frame 0 (pa 0)"
has "$out" "    1: 0x0101000000002000  V next table 0x1000000002000"
# --at-mark: the table as it stands at the first mark of that label
printf 'r 0x1234\nmark one\nw 0xffff\nmark two\n' >"$work/m.trace"
out=$("$tlbsim" dump --preset teaching --at-mark one "$work/m.trace")
has "$out" "at mark one ($work/m.trace:2)"
has "$out" "page table: format teaching16, 1 page mapped, 64B of tables"
has "$out" "L1 table at 0x1000000000000: VA 0-0xffff, index VA[15:12], 16 entries x 2 B, 1 valid"
grep -q 'frame 0x1' <<<"$out" && fail "0xffff mapped before its record"
ok
out=$("$tlbsim" dump --preset teaching --at-mark two "$work/m.trace")
has "$out" "   15: 0x1f00000000000100  V rwx leaf 256B page, frame 0x1 (pa 0x100)"
if "$tlbsim" dump --preset teaching --at-mark three "$work/m.trace" >/dev/null 2>"$work/err"; then fail "missing mark accepted"; fi
grep -qF "$work/m.trace: no mark three in the trace" "$work/err" || fail "missing mark message"
ok
# --dump-pt writes text only
if "$tlbsim" run --dump-pt --format json "$work/t.trace" >/dev/null 2>"$work/err"; then fail "--dump-pt json accepted"; fi
grep -q 'dump-pt goes with the text report only' "$work/err" || fail "--dump-pt json message"
ok
finish pt_dump
