#!/usr/bin/env bash
# The trace readers alone, and replays, per input format.
#
#   bench/binary.sh TLBSIM
#
# Writes one trace (LINES lines, default 20000000, of bench_gen_din's
# default pattern: sequential 8-byte words with 2% jumps in 64 MiB, so
# nearly every access hits the L1 TLB) as din, lackey, gzip'd din, and with
# `tlbsim convert` as binary, gzip'd binary and zstd'd binary. Then:
#   read    bench_read: M accesses/s the reader hands over, nothing behind
#           it (best and median of REPEATS, default 5)
#   replay  `tlbsim run --config bench/l1d-fa64.ini`: M accesses/s of a
#           whole replay through one 64-entry TLB (best and median)
# and checks every replay reports the same tlb.l1d.access_misses: exit 1 if
# not. Env: LINES, REPEATS, GEN (a bench_gen_din binary), READ (a
# bench_read binary; default: next to TLBSIM's build), TMPDIR.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

if [ $# -ne 1 ]; then usage; fi
tlbsim=$1
[ -x "$tlbsim" ] || die "$tlbsim is not an executable"
read_bin=${READ:-$(dirname "$tlbsim")/../bench/bench_read}
[ -x "$read_bin" ] || die "no bench_read at $read_bin (build the bench_read target, or set READ)"
lines=${LINES:-20000000}
repeats=${REPEATS:-5}

work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
gen=$(find_gen "$tlbsim" "$work")

machine_line
echo "trace: $lines data accesses (bench_gen_din defaults), $repeats rounds"
"$gen" --lines "$lines" >"$work/t.din"
"$gen" --lines "$lines" --format lackey >"$work/t.lackey"
gzip -1 -c "$work/t.din" >"$work/t.din.gz"
"$tlbsim" convert --quiet --to binary "$work/t.din" "$work/t.bin"
"$tlbsim" convert --quiet --to binary --compress gzip "$work/t.din" "$work/t.bin.gz"
"$tlbsim" convert --quiet --to binary --compress zstd "$work/t.din" "$work/t.bin.zst"

printf '\n%-12s %12s %16s %16s %18s %18s %10s\n' input bytes "read best M/s" "read median M/s" "replay best M/s" \
  "replay median M/s" "L1 misses"
status=0 first=""
for f in t.din t.lackey t.din.gz t.bin t.bin.gz t.bin.zst; do
  read -r n rbest rmed _ < <("$read_bin" --repeats "$repeats" "$work/$f")
  [ "$n" = "$lines" ] || die "$f: bench_read read $n accesses, not $lines"
  times=()
  for ((i = 0; i < repeats; i++)); do
    t0=$(now_ns)
    "$tlbsim" run --format csv --config "$bench_dir/l1d-fa64.ini" "$work/$f" >"$work/out"
    t1=$(now_ns)
    times+=($(((t1 - t0) / 1000)))
  done
  best=$(printf '%s\n' "${times[@]}" | minimum)
  med=$(printf '%s\n' "${times[@]}" | median)
  m=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "tlb.l1d.access_misses") c = i} NR == 2 {print $c}' "$work/out")
  first=${first:-$m}
  if [ "$m" != "$first" ]; then
    echo "MISMATCH: $f reports $m L1 misses, t.din $first"
    status=1
  fi
  printf '%-12s %12s %16s %16s %18s %18s %10s\n' "$f" "$(stat -c %s "$work/$f")" "$rbest" "$rmed" \
    "$(awk -v n="$lines" -v us="$best" 'BEGIN {printf "%.1f", n / us}')" \
    "$(awk -v n="$lines" -v us="$med" 'BEGIN {printf "%.1f", n / us}')" "$m"
done
[ $status -ne 0 ] || echo "L1 miss counts agree"
exit $status
