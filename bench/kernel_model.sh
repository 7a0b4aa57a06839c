#!/usr/bin/env bash
# The kernel model's speed and memory: `tlbsim kernel --preset h200` on the
# synthetic embedding-bag trace of issue #23's size (bench_gen_ktrace:
# 65,536 warps, 20 lookups each, 23 M lines, about 0.9 GB of text), as text
# and in its binary form, sampled (--groups 4, what validate uses) and with
# every SM simulated; then max RSS at WARPS_SMALL (8192) warps and at the
# full length, sampled: exit 1 if it grows by more than 10% (and 1 MiB),
# since the model holds only the thread blocks resident on its SMs. Wall
# seconds (the user's wait: the trace is read on a thread of its own where
# 2 cores exist, ktrace_ahead.h) and CPU seconds (user + sys). The target
# (issue #23): under 30 s of one core for the full trace; issue #29's: 2 M
# warp instructions a second.
#
#   bench/kernel_model.sh TLBSIM
#
# Env: WARPS (65536), WARPS_SMALL (8192), FULL (1: also time --groups 0).
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || usage
tlbsim=$1
[ -x "$tlbsim" ] || die "$tlbsim is not an executable"
bin=$(dirname "$tlbsim")/../bench
[ -x "$bin/bench_gen_ktrace" ] || die "build the bench_gen_ktrace target first ($bin/bench_gen_ktrace)"
/usr/bin/time -f %M -o /dev/null true 2>/dev/null || die "needs GNU time: apt-get install time"
warps=${WARPS:-65536} small=${WARPS_SMALL:-8192} full=${FULL:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-kmodel.XXXXXX")
trap 'rm -rf "$work"' EXIT

machine_line
"$bin/bench_gen_ktrace" --warps "$warps" >"$work/kernel-1.traceg"
"$bin/bench_gen_ktrace" --warps "$small" >"$work/small.traceg"
"$tlbsim" convert --quiet "$work/kernel-1.traceg" "$work/kernel-1.ktb"
printf 'trace: %s lines, %s bytes; binary %s bytes\n' "$(wc -l <"$work/kernel-1.traceg")" \
  "$(stat -c %s "$work/kernel-1.traceg")" "$(stat -c %s "$work/kernel-1.ktb")"

# run LABEL FILE GROUPS: wall and CPU seconds (user + sys), max RSS and predicted_ns
run() {
  /usr/bin/time -f '%e %U %S %M' -o "$work/t" "$tlbsim" kernel --preset h200 --groups "$3" --format csv "$work/$2" >"$work/out"
  read -r wall u s rss <"$work/t"
  ns=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "predicted_ns") c = i} NR == 2 {print $c}' "$work/out")
  printf '%-26s %8s %10.2f %10.2f %12s %14.0f\n' "$1" "$3" "$wall" "$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')" \
    "$rss" "$ns"
  echo "$rss" >"$work/rss.$1"
}
printf '\n%-26s %8s %10s %10s %12s %14s\n' input groups "wall s" "CPU s" "max RSS KiB" predicted_ns
run text kernel-1.traceg 4
run binary kernel-1.ktb 4
[ "$full" = 1 ] && run binary-every-sm kernel-1.ktb 0
run small-text small.traceg 4
echo "(the trace is read twice: once untimed to warm the TLBs and caches, once timed)"
lo=$(cat "$work/rss.small-text") hi=$(cat "$work/rss.text")
if ((hi - lo > lo / 10 && hi - lo > 1024)); then
  echo "NOT FLAT: max RSS grows from $lo KiB at $small warps to $hi KiB at $warps"
  exit 1
fi
echo "flat: max RSS $lo KiB at $small warps, $hi KiB at $warps"
