#!/usr/bin/env bash
# Peak memory (max RSS) of `tlbsim run` against trace length.
#
#   bench/memory.sh TLBSIM
#
# For each length in SIZES (default "1000000 10000000 100000000" lines) it
# streams a bench_gen_din trace through a pipe into `tlbsim run -` (so no
# trace file is ever written) and records tlbsim's max RSS, in three cases:
#   bounded din       addresses cycle over 64 MiB: the same 16384 pages however
#                     long the trace, so the page table stops growing early and
#                     RSS must stay flat: the streaming readers keep no
#                     per-line state
#   bounded din.gz    the same, gzip'd in the pipe (ISA-L inflating on its own thread)
#   grow din          every jump opens a never-used page: distinct pages, and
#                     with them the simulated page table, grow with the length;
#                     RSS legitimately grows with them (the page-table bytes the
#                     report prints are shown next to it)
# Exit 1 if bounded RSS at the longest length exceeds that at the shortest by
# more than 10% (and 1 MiB). Max RSS comes from GNU time (apt-get install time).
#
# With BIG=N (the issue's check: BIG=1000000000) it then replays one bounded
# trace of N lines three ways, as a user would: a file on disk, that file
# gzip'd, and a pipe on stdin; each must stay under RSS_LIMIT KiB (default
# 65536, 64 MiB), else exit 1. The file and its .gz are written to $TMPDIR
# (about 16 bytes a line, and a fifth of that: 15 GB and 3 GB at 10^9) and
# removed afterwards.
# Env: SIZES, GEN, BIG, RSS_LIMIT.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

if [ $# -ne 1 ]; then usage; fi
tlbsim=$1
[ -x "$tlbsim" ] || die "$tlbsim is not an executable"
read -ra sizes <<<"${SIZES:-1000000 10000000 100000000}"
[ ${#sizes[@]} -ge 1 ] || die "SIZES is empty"

work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
gen=$(find_gen "$tlbsim" "$work")

# Runs its arguments with stdin/stdout passed through; writes the command's max
# RSS in KiB to $work/rss.
/usr/bin/time -f %M -o /dev/null true 2>/dev/null || die "needs GNU time: apt-get install time"
with_rss() { /usr/bin/time -f %M -o "$work/rss" "$@"; }

column_of() {  # column_of NAME CSVFILE
  awk -F, -v n="$1" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == n) c = i} NR == 2 && c {print $c}' "$2"
}

machine_line
printf '\n%-16s %11s %12s %9s %10s %16s %8s\n' case lines "max RSS KiB" "M/s" "pages" "page-table bytes" "accesses"
declare -A rss
for case_name in "bounded din" "bounded din.gz" "grow din"; do
  gen_args=()
  [[ $case_name == grow* ]] && gen_args=(--grow)
  for n in "${sizes[@]}"; do
    t0=$(now_ns)
    if [[ $case_name == *.gz ]]; then
      "$gen" --lines "$n" "${gen_args[@]}" | gzip -1 |
        with_rss "$tlbsim" run --format csv --trace-format din - >"$work/out"
    else
      "$gen" --lines "$n" "${gen_args[@]}" |
        with_rss "$tlbsim" run --format csv --trace-format din - >"$work/out"
    fi
    t1=$(now_ns)
    acc=$(column_of accesses "$work/out")
    [ "$acc" = "$n" ] || die "$case_name $n: tlbsim replayed ${acc:-no} accesses"
    rss[$case_name $n]=$(<"$work/rss")
    printf '%-16s %11s %12s %9s %10s %16s %8s\n' "$case_name" "$n" "${rss[$case_name $n]}" \
      "$(awk -v n="$n" -v us="$(((t1 - t0) / 1000))" 'BEGIN {printf "%.2f", n / us}')" \
      "$(column_of page_faults "$work/out")" "$(column_of page_table_bytes "$work/out")" "$acc"
  done
done
echo "(pages: demand-paging faults = distinct pages touched; M/s includes generating, and gzip for .gz)"

status=0
if [ -n "${BIG:-}" ]; then
  limit=${RSS_LIMIT:-65536}
  need_kib=$((BIG / 1024 * 20))
  free_kib=$(df -Pk "$work" | awk 'NR == 2 {print $4}')
  ((free_kib > need_kib)) || die "BIG=$BIG needs about $((need_kib / 1048576)) GiB free in $work"
  "$gen" --lines "$BIG" >"$work/big.din"
  gzip -1 -c "$work/big.din" >"$work/big.din.gz"
  printf '\n%-16s %11s %12s %9s %8s\n' input lines "max RSS KiB" "M/s" accesses
  for input in file gzip stdin; do
    t0=$(now_ns)
    case $input in
    file) with_rss "$tlbsim" run --format csv --trace-format din "$work/big.din" >"$work/out" ;;
    gzip) with_rss "$tlbsim" run --format csv --trace-format din "$work/big.din.gz" >"$work/out" ;;
    stdin) "$gen" --lines "$BIG" | with_rss "$tlbsim" run --format csv --trace-format din - >"$work/out" ;;
    esac
    t1=$(now_ns)
    acc=$(column_of accesses "$work/out")
    [ "$acc" = "$BIG" ] || die "$input $BIG: tlbsim replayed ${acc:-no} accesses"
    kib=$(<"$work/rss")
    printf '%-16s %11s %12s %9s %8s\n' "$input" "$BIG" "$kib" \
      "$(awk -v n="$BIG" -v us="$(((t1 - t0) / 1000))" 'BEGIN {printf "%.2f", n / us}')" "$acc"
    if ((kib >= limit)); then
      echo "TOO LARGE: $input at $BIG lines used $kib KiB (limit $limit)"
      status=1
    fi
  done
  rm -f "$work/big.din" "$work/big.din.gz"
fi
first=${sizes[0]} last=${sizes[${#sizes[@]} - 1]}
for c in "bounded din" "bounded din.gz"; do
  lo=${rss[$c $first]} hi=${rss[$c $last]}
  if ((hi - lo > lo / 10 && hi - lo > 1024)); then
    echo "NOT FLAT: $c max RSS grows from $lo KiB ($first lines) to $hi KiB ($last lines)"
    status=1
  else
    echo "flat: $c max RSS $lo KiB at $first lines, $hi KiB at $last lines"
  fi
done
exit $status
