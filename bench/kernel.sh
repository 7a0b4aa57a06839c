#!/usr/bin/env bash
# Kernel traces: how fast the reader delivers warp instructions, and its
# peak memory against the trace's length.
#
#   bench/kernel.sh TLBSIM
#
# bench_gen_ktrace writes the synthetic embedding-bag trace of issue #23's
# size (65,536 warps, 20 lookups each: 23 M lines, about 0.9 GB) to $TMPDIR;
# `tlbsim convert` writes its binary form. Then, each REPEATS (3) times:
#   bench_ktrace     the reader alone (text, binary, zstd'd binary): M warp
#                    instructions/s, best and median, and CPU seconds
#   kernel --stats   the whole summary (the reader, and exact distinct line
#                    and page sets)
# and the max RSS of bench_ktrace at WARPS_SMALL (8192) and at the full
# length: exit 1 if it grows by more than 10% (and 1 MiB), since the reader
# holds one thread block at a time. Max RSS comes from GNU time.
# Env: WARPS (65536), WARPS_SMALL (8192), REPEATS (3).
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || usage
tlbsim=$1
[ -x "$tlbsim" ] || die "$tlbsim is not an executable"
bin=$(dirname "$tlbsim")/../bench
for p in bench_gen_ktrace bench_ktrace; do [ -x "$bin/$p" ] || die "build the $p target first ($bin/$p)"; done
/usr/bin/time -f %M -o /dev/null true 2>/dev/null || die "needs GNU time: apt-get install time"
warps=${WARPS:-65536} small=${WARPS_SMALL:-8192} repeats=${REPEATS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-kbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

machine_line
"$bin/bench_gen_ktrace" --warps "$warps" >"$work/kernel-1.traceg"
"$bin/bench_gen_ktrace" --warps "$small" >"$work/small.traceg"
"$tlbsim" convert --quiet "$work/kernel-1.traceg" "$work/kernel-1.ktb"
zstd -q -1 -c "$work/kernel-1.ktb" >"$work/kernel-1.ktb.zst"
printf 'trace: %s lines, %s bytes; binary %s bytes, zstd %s bytes\n' "$(wc -l <"$work/kernel-1.traceg")" \
  "$(stat -c %s "$work/kernel-1.traceg")" "$(stat -c %s "$work/kernel-1.ktb")" "$(stat -c %s "$work/kernel-1.ktb.zst")"

printf '\n%-22s %12s %10s %10s %8s\n' input "warp instr" "best M/s" "median M/s" "CPU s"
for f in kernel-1.traceg kernel-1.ktb kernel-1.ktb.zst; do
  /usr/bin/time -f %U -o "$work/cpu" "$bin/bench_ktrace" --repeats "$repeats" "$work/$f" >"$work/out"
  read -r n best med _ <"$work/out"
  printf '%-22s %12s %10s %10s %8s\n' "$f" "$n" "$best" "$med" "$(awk -v u="$(cat "$work/cpu")" -v r="$repeats" 'BEGIN {printf "%.2f", u / r}')"
done
echo "(CPU s: user seconds of one read; M/s is wall-clock)"

printf '\n%-22s %10s %14s\n' "kernel --stats" seconds "max RSS KiB"
for f in kernel-1.traceg kernel-1.ktb; do
  t0=$(now_ns)
  /usr/bin/time -f %M -o "$work/rss" "$tlbsim" kernel --stats --format csv "$work/$f" >/dev/null
  t1=$(now_ns)
  printf '%-22s %10s %14s\n' "$f" "$(awk -v ns=$((t1 - t0)) 'BEGIN {printf "%.2f", ns / 1e9}')" "$(cat "$work/rss")"
done
echo "(its distinct-line set grows with the lines a kernel touches, not with the trace's length)"

printf '\n%-22s %8s %14s\n' "reader memory" warps "max RSS KiB"
declare -A rss
for f in small.traceg kernel-1.traceg; do
  /usr/bin/time -f %M -o "$work/rss" "$bin/bench_ktrace" --repeats 1 "$work/$f" >/dev/null
  rss[$f]=$(cat "$work/rss")
  printf '%-22s %8s %14s\n' "$f" "$([ $f = small.traceg ] && echo "$small" || echo "$warps")" "${rss[$f]}"
done
lo=${rss[small.traceg]} hi=${rss[kernel-1.traceg]}
if ((hi - lo > lo / 10 && hi - lo > 1024)); then
  echo "NOT FLAT: the reader's max RSS grows from $lo KiB to $hi KiB"
  exit 1
fi
echo "flat: the reader's max RSS is $lo KiB at $small warps, $hi KiB at $warps"
