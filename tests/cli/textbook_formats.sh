#!/usr/bin/env bash
# Formats as data: a [format.NAME] checked like a built-in one (FILE:LINE
# errors at the key at fault), map ... frame= (a frame in use or beyond
# memory is an error), RISC-V Sv39/Sv48 leaves at every level, and
# sign-extended (canonical) addresses: x86-64's and Sv39's upper half is
# accepted by explain, run and dump, a non-canonical address refused.
# Usage: textbook_formats.sh TLBSIM
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
# check WANT_RC WANT_STDERR_LINE -- CMD...: exit status and the one line on stderr.
check() {
  local rc=$1 want=$2 got
  shift 3
  got=$("$@" 2>&1 >/dev/null) && fail "exit 0: $*"
  [ "$(wc -l <<<"$got")" = 1 ] || fail "not one line: $got"
  "$@" >/dev/null 2>&1 || [ $? = "$rc" ] || fail "exit status: $*"
  [ "$got" = "$want" ] || fail "$* said: $got (wanted: $want)"
  ok
}

printf 'r 0x100\n' >"$work/t.trace"
# A format with 32 B pages in 4 KiB of memory, end to end.
cat >"$work/tiny.ini" <<'INI'
[format.tiny]
va_bits = 12
levels = D:8:4:2, T:5:3:2
leaves = 32@T, 256@D
[machine]
format = tiny
page_size = 32
phys_memory = 4K
[tlb.l1d]
entries = 2
INI
out=$("$tlbsim" run --config "$work/tiny.ini" --log "$work/t.trace")
# (the walk that faults reads D, the one after the page fault D and T)
has "$out" "1: r 0x100 1 | vpn 0x8 l1d set 0 miss; walk refs 3 pwc - lines 0 tables +1 page-fault; pfn 0 pa 0; cycles 0"
out=$("$tlbsim" explain --config "$work/tiny.ini" --page-size 256 0x1ff)
has "$out" "  D      VA[11: 8] = 1     entry 0x1000000000002 (table 0x1000000000000 + 1 x 2 B) = 0x1f00000000000000 V rwx leaf 256B page, frame 0 (pa 0)"
out=$("$tlbsim" dump --config "$work/tiny.ini" "$work/t.trace")
has "$out" "T table at 0x1000000000020: VA 0x100-0x1ff, index VA[7:5], 8 entries x 2 B, 1 valid"
out=$("$tlbsim" formats --config "$work/tiny.ini")
has "$out" "  levels = D:8:4:2, T:5:3:2"
has "$out" "  leaves = 32B@T, 256B@D"

# Each key at fault, named at its line.
broken() { # LINE_NO NEW_LINE: tiny.ini with that line replaced
  sed "$1s/.*/$2/" "$work/tiny.ini" >"$work/bad.ini"
}
broken 3 'levels = D:8:4:2, T:5:2:2'
check 1 "$work/bad.ini:3: format.tiny.levels: format tiny: level T indexes VA[6:5], but the next bits to index are VA[7:...] (levels cover the VA from bit 11 down, no gap, no overlap)" -- "$tlbsim" run --config "$work/bad.ini" "$work/t.trace"
broken 3 'levels = D:8:4:3, T:5:3:2'
check 1 "$work/bad.ini:3: format.tiny.levels: format tiny: level D entry size 3 is not a power of two up to 16" -- "$tlbsim" run --config "$work/bad.ini" "$work/t.trace"
broken 3 'levels = D:8:4:2, T:5:3'
check 1 "$work/bad.ini:3: format.tiny.levels: level 'T:5:3' is not NAME:LOWEST_VA_BIT:INDEX_BITS:ENTRY_BYTES" -- "$tlbsim" run --config "$work/bad.ini" "$work/t.trace"
broken 4 'leaves = 32@T, 512@D'
check 1 "$work/bad.ini:4: format.tiny.leaves: format tiny: a root leaf must be 2^8 bytes" -- "$tlbsim" run --config "$work/bad.ini" "$work/t.trace"
broken 4 'leaves = 48@T'
check 1 "$work/bad.ini:4: format.tiny.leaves: leaf '48@T' is not PAGE_SIZE@LEVEL with a power-of-two size of 16 B or more" -- "$tlbsim" run --config "$work/bad.ini" "$work/t.trace"
broken 4 'leaves = 32@X'
check 1 "$work/bad.ini:4: format.tiny.leaves: leaf '32@X': no level named 'X'" -- "$tlbsim" run --config "$work/bad.ini" "$work/t.trace"
broken 4 'leaves = 256@D'
check 1 "$work/bad.ini:4: format.tiny.leaves: format tiny: the last level needs a 2^5 leaf" -- "$tlbsim" run --config "$work/bad.ini" "$work/t.trace"
# levels that miss va_bits: the one of the two set last is blamed
check 1 "--set:1: format.tiny.va_bits: format tiny: level D indexes VA[11:8], but the next bits to index are VA[12:...] (levels cover the VA from bit 12 down, no gap, no overlap)" -- "$tlbsim" run --config "$work/tiny.ini" --set format.tiny.va_bits=13 "$work/t.trace"
broken 2 'x = 1'
check 1 "$work/bad.ini:1: [format.tiny]: missing key 'va_bits'" -- "$tlbsim" run --config "$work/bad.ini" "$work/t.trace"
check 1 "--set:1: unknown key 'bogus' in [format.tiny]" -- "$tlbsim" run --config "$work/tiny.ini" --set format.tiny.bogus=1 "$work/t.trace"
cp "$work/tiny.ini" "$work/bad.ini"
printf '[format.sv39]\nva_bits = 39\n' >>"$work/bad.ini"
check 1 "$work/bad.ini:11: [format.sv39]: a format's name is 1 to 15 characters, not a built-in format's" -- "$tlbsim" run --config "$work/bad.ini" "$work/t.trace"

# map ... frame=: a chosen frame; one in use, or past memory, is an error.
printf 'map 0x0 64 frame=0x3f\nmap 0x40 64 frame=0x3f\n' >"$work/f.trace"
check 1 "$work/f.trace:2: frame 0x3f (pa 0x7e0) is already in use" -- "$tlbsim" run --config "$work/tiny.ini" "$work/f.trace"
printf 'map 0x0 64 frame=0x80\n' >"$work/f.trace"
check 1 "$work/f.trace:1: frame 0x80 (pa 0x1000) is beyond the 4KiB of physical memory" -- "$tlbsim" run --config "$work/tiny.ini" "$work/f.trace"
printf 'map 0x0 64 frame=0x7f\n' >"$work/f.trace"
check 1 "$work/f.trace:1: frame 0x80 (pa 0x1000) is beyond the 4KiB of physical memory" -- "$tlbsim" run --config "$work/tiny.ini" "$work/f.trace"
printf 'map 0x0 64 frame=x\n' >"$work/f.trace"
check 1 "$work/f.trace:1: frame: 'x' is not a whole number" -- "$tlbsim" run --config "$work/tiny.ini" "$work/f.trace"
printf 'map 0x0 64 frame=0x7e\nr 0x3f\n' >"$work/f.trace"
out=$("$tlbsim" run --config "$work/tiny.ini" --log "$work/f.trace")
has "$out" "2: r 0x3f 1 | vpn 0x1 l1d set 0 miss; walk refs 2 pwc - lines 0; pfn 0x7f pa 0xfff; cycles 0"

# [machine] tables_in_memory: table nodes take frames of phys_memory, so a
# 12-bit machine's tables have 12-bit addresses. CS:APP's 1 KiB table takes
# frames 0-0xf (lowest first), the page of 0x3d4 frame 0x10.
out=$("$tlbsim" explain --preset csapp --set machine.tables_in_memory=true 0x3d4)
has "$out" "  PT     VA[13: 6] = 15    entry 0x3c (table 0 + 15 x 4 B) = 0x1f00000000000400 V rwx leaf 64B page, frame 0x10 (pa 0x400)"
has "$out" "  PA 0x414 (frame 0x10 at 0x400 + offset); 1 entry read"
# Three 32 B frames: the root, then one map's page and table; the next map
# finds no frame for its table: an OOM, counted, not an error.
printf 'map 0x0 32\nmap 0x100 32\n' >"$work/m.trace"
out=$("$tlbsim" run --config "$work/tiny.ini" --set machine.tables_in_memory=true --set machine.phys_memory=96 "$work/m.trace")
has "$out" "layout    0 allocs, 0 frees, 2 maps, 0 unmaps, 1 OOM"
out=$("$tlbsim" dump --config "$work/tiny.ini" --set machine.tables_in_memory=true "$work/m.trace")
has "$out" "D table at 0: VA 0-0xfff, index VA[11:8], 16 entries x 2 B, 2 valid"
# each map takes its page's frame first, then its table's
has "$out" "    1: 0x0100000000000080  V next table 0x80"
has "$out" "T table at 0x40: VA 0-0xff, index VA[7:5], 8 entries x 2 B, 1 valid"
has "$out" "    0: 0x1700000000000020  V rw- leaf 32B page, frame 0x1 (pa 0x20)"

# Sv39 gigapages, Sv48 terapages, [pwc.VPN2] for the level named VPN[2].
printf 'map 0x40000000 1G page=1G frame=1\nr 0x40000123\n' >"$work/g.trace"
out=$("$tlbsim" run --preset riscv --set machine.phys_memory=4G --set pwc.VPN2.entries=4 --log "$work/g.trace")
has "$out" "2: r 0x40000123 1 | vpn 0x1 l1d set 0 miss; walk refs 1 pwc - lines 0; page 1GiB; pfn 0x1 pa 0x40000123; cycles 0"
printf 'map 0xffffff8000000000 512G page=512G frame=1\nr 0xffffff8000000123\n' >"$work/t4.trace"
out=$("$tlbsim" run --preset riscv --set machine.format=sv48 --set machine.phys_memory=1T \
  --set tlb.l1d.page_size=4K,2M,1G,512G --log "$work/t4.trace")
has "$out" "2: r 0xffffff8000000123 1 | vpn 0x1ffffff l1d set 0 miss; walk refs 1 pwc - lines 0; page 512GiB; pfn 0x1 pa 0x8000000123; cycles 0"

# Canonical addresses: the upper half of x86-64 and Sv39.
out=$("$tlbsim" explain --preset x86-64 0xffff800000001000)
has "$out" "  PML4   VA[47:39] = 256   entry 0x1000000000800 (table 0x1000000000000 + 256 x 8 B) = 0x0101000000001000 V next table 0x1000000001000"
check 1 "tlbsim explain: 0xfff0800000001000 is beyond the 48-bit address space of x86-64-4 (not canonical: bits 63..48 must equal bit 47)" -- "$tlbsim" explain --preset x86-64 0xfff0800000001000
out=$("$tlbsim" explain --preset riscv 0xffffffffc0001000)
has "$out" "  VPN[2] VA[38:30] = 511   entry 0x1000000000ff8 (table 0x1000000000000 + 511 x 8 B) = 0x0101000000001000 V next table 0x1000000001000"
check 1 "tlbsim explain: 0x4000000000 is beyond the 39-bit address space of sv39 (not canonical: bits 63..39 must equal bit 38)" -- "$tlbsim" explain --preset riscv 0x4000000000
printf 'r 0xffff800000001000\nr 0xffffffffff600000\n' >"$work/h.trace"
out=$("$tlbsim" dump "$work/h.trace")
has "$out" "PDPT table at 0x1000000001000: VA 0xffff800000000000-0xffff807fffffffff, index VA[38:30], 512 entries x 8 B, 1 valid"
has "$out" "  511: 0x0101000000004000  V next table 0x1000000004000"
out=$("$tlbsim" run --format json "$work/h.trace")
grep -q '"page_faults":2' <<<"$(tr -d ' \n' <<<"$out")" && ok || fail "upper-half run: $out"
printf 'r 0x1000\nr 0x0000800000000000\n' >"$work/n.trace"
check 1 "$work/n.trace:2: address 0x800000000000 is beyond the 48-bit address space of format x86-64-4 (not canonical: bits 63..48 must equal bit 47)" -- "$tlbsim" run "$work/n.trace"
finish textbook_formats
