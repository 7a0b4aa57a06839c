#!/usr/bin/env bash
# An xv6-style Sv39 walk: the index tlbsim reads at each level equals xv6's
# PX(level, va) = (va >> (12 + 9 * level)) & 0x1FF (xv6-riscv kernel/riscv.h),
# level 2 first, for the kernel addresses of traces/textbook/xv6_sv39.trace;
# the replay translates each to the frame its map record chose.
# Usage: textbook_xv6.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
trace=$2/traces/textbook/xv6_sv39.trace
px() { echo $(( ($2 >> (12 + 9 * $1)) & 0x1FF )); }

for va in 0x10000005 0x80000000 0x3ffffff000 0x80001ff8; do
  out=$("$tlbsim" explain --preset riscv "$va")
  for level in 2 1 0; do
    lo=$((12 + 9 * level))
    want=$(printf '  VPN[%d] VA[%2d:%2d] = %-5d' "$level" $((lo + 8)) "$lo" "$(px "$level" "$va")")
    grep -qF -- "$want" <<<"$out" && ok || { echo "$out"; fail "$va level $level: $want"; }
  done
done

log=$("$tlbsim" run --preset riscv --set machine.phys_memory=4G --log "$trace")
has "$log" "19: r 0x10000005 1 | vpn 0x10000 l1d set 0 miss; walk refs 3 pwc - lines 0; pfn 0x10000 pa 0x10000005; cycles 0"
has "$log" "20: x 0x80000000 1 | vpn 0x80000 l1i set 0 miss; walk refs 3 pwc - lines 0; pfn 0x80000 pa 0x80000000; cycles 0"
has "$log" "21: x 0x3ffffff000 1 | vpn 0x3ffffff l1i set 0 miss; walk refs 3 pwc - lines 0; pfn 0x80002 pa 0x80002000; cycles 0"
has "$log" "22: r 0x80001ff8 1 | vpn 0x80001 l1d set 0 miss; walk refs 3 pwc - lines 0; pfn 0x80001 pa 0x80001ff8; cycles 0"

dump=$("$tlbsim" dump --preset riscv --set machine.phys_memory=4G "$trace")
has "$dump" "VPN[2] table at 0x1000000000000: VA 0-0x7fffffffff, index VA[38:30], 512 entries x 8 B, 3 valid"
has "$dump" "VPN[1] table at 0x1000000005000: VA 0x3fc0000000-0x3fffffffff, index VA[29:21], 512 entries x 8 B, 1 valid"
has "$dump" "  511: 0x1b00000080002000  V r-x leaf 4KiB page, frame 0x80002 (pa 0x80002000)"

# Without the 4 GiB, QEMU's RAM at 0x80000000 is beyond the preset's 2 GiB.
err=$("$tlbsim" run --preset riscv "$trace" 2>&1) && fail "frames beyond memory accepted"
has "$err" "$trace:12: frame 0x80000 (pa 0x80000000) is beyond the 2GiB of physical memory"
finish textbook_xv6
