#!/usr/bin/env bash
# Cost of page-table formats with wide levels (issue #26): a [format.NAME]
# may index 24 bits a level, 2^24 entries (128 MiB of simulated table) a
# node. tlbsim holds such a node as the entries used (sim/src/mem/pt.c), so
# scattered accesses cost host memory by the pages they map, not by the
# simulated table size.
#
#   bench/wide_format.sh TLBSIM
#
# Replays N scattered demand-paged reads (N in COUNTS, default "300 3000
# 30000") on two formats: two levels of 24 bits, and three levels 12+24+12;
# prints CPU seconds, max RSS and the simulated page-table bytes. Exit 1 if
# 300 accesses take more than 0.5 s of CPU or RSS_LIMIT KiB (default 65536)
# of memory on either. (Nodes of up to 2^13 entries are arrays, as large as
# the simulated table: w3's 12-bit last level costs 32 KiB of host memory a
# scattered page, as it costs the simulated machine.)
# Needs GNU time.
# Env: COUNTS, RSS_LIMIT.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

if [ $# -ne 1 ]; then usage; fi
tlbsim=$1
[ -x "$tlbsim" ] || die "$tlbsim is not an executable"
read -ra counts <<<"${COUNTS:-300 3000 30000}"
limit=${RSS_LIMIT:-65536}
/usr/bin/time -f %M -o /dev/null true 2>/dev/null || die "needs GNU time: apt-get install time"
work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

tlb='[tlb.l1d]\nentries = 64\nways = 4\n'
printf "[machine]\nformat = w2\n[format.w2]\nva_bits = 60\nlevels = L0:36:24:8,L1:12:24:8\nleaves = 4K@L1\n$tlb" \
  >"$work/w2.ini"
printf "[machine]\nformat = w3\n[format.w3]\nva_bits = 60\nlevels = L0:48:12:8,L1:24:24:8,L2:12:12:8\nleaves = 4K@L2\n$tlb" \
  >"$work/w3.ini"

machine_line
printf '\n%-8s %8s %10s %14s %22s\n' format accesses "CPU s" "max RSS KiB" "page-table bytes"
failed=0
for n in "${counts[@]}"; do
  awk -v n="$n" 'BEGIN { srand(26); for (i = 0; i < n; i++)
    printf "r 0x%06x%06x000\n", int(rand() * 16777216), int(rand() * 16777216) }' \
    >"$work/t.trace"
  for f in w2 w3; do
    /usr/bin/time -f '%U %S %M' -o "$work/time" "$tlbsim" run --config "$work/$f.ini" --format csv "$work/t.trace" \
      >"$work/out.csv"
    read -r user sys rss <"$work/time"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    bytes=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "page_table_bytes") c = i } NR == 2 { print $c }' \
      "$work/out.csv")
    printf '%-8s %8s %10s %14s %22s\n' "$f" "$n" "$cpu" "$rss" "$bytes"
    [ "$n" = 300 ] || continue
    if [ "$rss" -gt "$limit" ]; then echo "FAIL: $f, 300 accesses: max RSS $rss KiB > $limit"; failed=1; fi
    if awk -v c="$cpu" 'BEGIN { exit !(c > 0.5) }'; then echo "FAIL: $f, 300 accesses: $cpu s of CPU > 0.5"; failed=1; fi
  done
done
exit "$failed"
