#!/usr/bin/env bash
# What `tlbsim run` tells a student beyond the totals: each phase's allocation
# activity (a phase of allocations only is not idle), demand-paging faults per
# phase, and one warning per page size no TLB level holds.
# Usage: run_report.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

# demo.trace's "reuse" phase frees buffer A (16 pages: 16 shootdowns) and allocates it again.
"$tlbsim" run --preset x86-64 "$src/traces/samples/demo.trace" >"$work/demo.txt"
line=$(grep '^reuse ' "$work/demo.txt")
read -r _ acc _ _ _ walks faults pgfaults allocs frees shootdowns _ <<<"$line"
[ "$acc $walks $faults $pgfaults $allocs $frees $shootdowns" = "2 2 0 0 1 1 16" ] && ok || bad "reuse phase: $line"

# A phase of allocations only, before the first mark, is reported as "start".
printf '#tlbsim-trace 1\nalloc 1 16K\nalloc 2 16K\nfree 1\nmark touch\nr @2 8\n' >"$work/allocs.trace"
"$tlbsim" run --preset x86-64 "$work/allocs.trace" >"$work/allocs.txt"
line=$(grep '^start ' "$work/allocs.txt") && ok || bad "no start phase for the allocations before the first mark"
read -r _ acc _ _ _ _ _ _ allocs frees shootdowns _ <<<"${line:-x}"
[ "$acc $allocs $frees $shootdowns" = "0 2 1 4" ] && ok || bad "start phase: $line"

# Demand paging (no alloc or map record): each first touch is a page fault of its phase.
printf '#tlbsim-trace 1\nmark one\nr 0x1000 8\nr 0x2000 8\nmark two\nr 0x1000 8\nr 0x9000 8\n' >"$work/demand.trace"
"$tlbsim" run --preset x86-64 "$work/demand.trace" >"$work/demand.txt"
for want in "one 2" "two 1"; do
  set -- $want
  got=$(awk -v p="$1" '$1 == p { print $8 }' "$work/demand.txt")
  [ "$got" = "$2" ] && ok || bad "phase $1: $got page faults, expected $2"
done

# Page sizes no TLB level holds: one warning each, on stderr, and the run still succeeds.
printf '[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 16\npage_size = 4K\nserves = data\n' >"$work/small.ini"
printf '#tlbsim-trace 1\nmap 0x40000000 1G page=1G\nr 0x40000000 8\nr 0x40001000 8\nmap 0x200000 2M page=2M\nr 0x200000 8\nmap 0x1000 4K\nr 0x1000 8\n' \
  >"$work/sizes.trace"
"$tlbsim" run --config "$work/small.ini" "$work/sizes.trace" >/dev/null 2>"$work/err" && ok || bad "run with unheld page sizes failed"
printf 'tlbsim run: warning: no TLB level holds 2MiB pages: every access to them walked\ntlbsim run: warning: no TLB level holds 1GiB pages: every access to them walked\n' >"$work/want"
cmp -s "$work/err" "$work/want" && ok || bad "warnings: $(cat "$work/err")"
"$tlbsim" run --preset x86-64 "$work/sizes.trace" >/dev/null 2>"$work/err2"
[ ! -s "$work/err2" ] && ok || bad "x86-64 holds every page size, yet: $(cat "$work/err2")"

finish run_report
