#!/usr/bin/env bash
# Two or more builds (or option sets) of `tlbsim kernel --preset h200` timed
# against each other: wall and CPU seconds (user + sys) on bench_gen_ktrace
# traces, text and binary, the builds alternating within each round so the
# machine's load falls on all alike; then each case's medians and their
# ratio to the first build's, and whether every build's CSV is the first's
# byte for byte (exit 1 if not). What issue #29's kernel target is about:
# the user's wait (wall), which a reader thread shortens where 2 cores exist.
#
#   bench/kernel_pair.sh LABEL=TLBSIM[ OPTIONS] LABEL=TLBSIM[ OPTIONS] ...
#   e.g. bench/kernel_pair.sh main=../main/build-rel/sim/tlbsim new=build-rel/sim/tlbsim \
#          'new-j1=build-rel/sim/tlbsim --jobs 1'
#
# Env: WARPS ("16384 65536"), GROUPS (0), ROUNDS (5). The traces are made
# with the second build's bench_gen_ktrace (1.3 GB in $TMPDIR at 65,536).
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

[ $# -ge 2 ] || usage
labels=() exes=() opts=() # OPTIONS go after `kernel`
for a in "$@"; do
  [[ $a == *=* ]] || usage
  read -r exe opt <<<"${a#*=}"
  [ -x "$exe" ] || die "$exe is not an executable"
  labels+=("${a%%=*}") exes+=("$exe") opts+=("$opt")
done
bin=$(dirname "${exes[1]}")/../bench
[ -x "$bin/bench_gen_ktrace" ] || die "build the bench_gen_ktrace target first ($bin/bench_gen_ktrace)"
/usr/bin/time -f %e -o /dev/null true 2>/dev/null || die "needs GNU time: apt-get install time"
warps=${WARPS:-16384 65536} groups=${GROUPS:-0} rounds=${ROUNDS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-kpair.XXXXXX")
trap 'rm -rf "$work"' EXIT

machine_line
traces=()
for w in $warps; do
  "$bin/bench_gen_ktrace" --warps "$w" >"$work/w$w.traceg"
  "${exes[1]}" convert --quiet "$work/w$w.traceg" "$work/w$w.ktb"
  traces+=("w$w.ktb" "w$w.traceg")
done

printf '%-6s %-10s %-14s %8s %8s\n' round build trace "wall s" "CPU s"
for ((r = 1; r <= rounds; r++)); do
  for t in "${traces[@]}"; do
    for i in "${!labels[@]}"; do
      # shellcheck disable=SC2086 # the command's options split on purpose
      /usr/bin/time -f '%e %U %S' -o "$work/t" "${exes[$i]}" kernel ${opts[$i]} --preset h200 --groups "$groups" --format csv \
        "$work/$t" >"$work/out.$i.$t"
      read -r wall u s <"$work/t"
      cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')
      printf '%-6s %-10s %-14s %8s %8s\n' "$r" "${labels[$i]}" "$t" "$wall" "$cpu"
      echo "$wall" >>"$work/wall.$i.$t"
      echo "$cpu" >>"$work/cpu.$i.$t"
    done
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

same=1
printf '\n%-10s %-14s %12s %12s %10s %10s\n' build trace "median wall" "median CPU" "wall ratio" "CPU ratio"
for t in "${traces[@]}"; do
  w0=$(median <"$work/wall.0.$t") c0=$(median <"$work/cpu.0.$t")
  for i in "${!labels[@]}"; do
    w=$(median <"$work/wall.$i.$t") c=$(median <"$work/cpu.$i.$t")
    printf '%-10s %-14s %12s %12s %10.3f %10.3f\n' "${labels[$i]}" "$t" "$w" "$c" \
      "$(awk -v a="$w" -v b="$w0" 'BEGIN {print a / b}')" "$(awk -v a="$c" -v b="$c0" 'BEGIN {print a / b}')"
    cmp -s "$work/out.0.$t" "$work/out.$i.$t" || { echo "DIFFERENT: ${labels[$i]} on $t"; same=0; }
  done
done
echo "(ratio: the build's median over ${labels[0]}'s; below 1 is faster)"
[ "$same" = 1 ] && echo "same CSV from every build" || exit 1
