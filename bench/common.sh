# shellcheck shell=bash
# Shared by the bench/*.sh scripts (sourced, not run): locating the trace
# generator, timing, and a statistic over repeats.

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(dirname "$bench_dir")

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# bench_gen_din: $GEN if set, else the CMake target next to tlbsim's build,
# else compiled here with cc (it needs only tlbsim's base module).
find_gen() {
  local tlbsim=$1 work=$2
  if [ -n "${GEN:-}" ]; then
    [ -x "$GEN" ] || die "GEN=$GEN is not an executable"
    echo "$GEN"
    return
  fi
  local built
  built="$(dirname "$tlbsim")/../bench/bench_gen_din"
  if [ -x "$built" ]; then
    echo "$built"
    return
  fi
  cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$repo_dir/sim/include" \
    "$bench_dir/gen_din.c" "$repo_dir"/sim/src/base/*.c -lm -o "$work/bench_gen_din" ||
    die "cannot build bench_gen_din with cc"
  echo "$work/bench_gen_din"
}

now_ns() { date +%s%N; }

# Median of the numbers on stdin (one a line).
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# Smallest of the numbers on stdin.
minimum() { sort -g | head -n1; }

machine_line() {
  local cpu
  cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
  echo "machine: ${cpu:-unknown CPU}, $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# The script's opening comment, as its usage text, on stderr; exit 2.
usage() {
  awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0" >&2
  exit 2
}
