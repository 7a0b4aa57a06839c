#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan) and runs each for a
# bounded time.
#
#   fuzz/run.sh [-t SECONDS] [-j PARALLEL] [-b BUILD_DIR] [HARNESS...]
#
# SECONDS per harness (default 60); PARALLEL harnesses at once (default 1);
# BUILD_DIR default build-fuzz. Harnesses: every one in fuzz/CMakeLists.txt
# unless named. Each starts from its committed corpus (fuzz/corpus/NAME,
# only read) and a working corpus in BUILD_DIR/corpus/NAME kept between
# runs. A crash, leak, timeout (25 s for one input) or memory blow-up (2 GiB)
# stops that harness and leaves the input in BUILD_DIR/findings/NAME/; the
# script exits 1 after the others have run. To keep a finding as a
# regression test, copy the input into fuzz/corpus/NAME/ (every build's
# ctest replays it) and fix the bug. A table of runs, executions and new
# corpus entries ends the output. Env: CC (default clang, else clang-14).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60 parallel=1 build=build-fuzz
while getopts "t:j:b:" o; do
  case $o in
  t) seconds=$OPTARG ;;
  j) parallel=$OPTARG ;;
  b) build=$OPTARG ;;
  *) sed -n '2,19s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
all=$(sed -n 's/^tlbsim_harness(\([a-z_]*\) .*/\1/p' fuzz/CMakeLists.txt)
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || read -ra harnesses <<<"$(echo $all)"
for h in "${harnesses[@]}"; do
  grep -qx "$h" <<<"$all" || { echo "fuzz/run.sh: no harness '$h' (have: $(echo $all))" >&2; exit 2; }
done

CC=${CC:-$(command -v clang || command -v clang-14)} cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTLBSIM_FUZZ=ON -DTLBSIM_GPU=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target $(printf 'fuzz_%s ' "${harnesses[@]}") >/dev/null

# One harness: its log is BUILD_DIR/logs/NAME.log; status in BUILD_DIR/logs/NAME.status.
run_one() {
  local h=$1 work=$build/corpus/$1 found=$build/findings/$1 log=$build/logs/$1.log
  mkdir -p "$work" "$found" "$build/logs"
  local dict=() quiet=()
  [ -f "fuzz/dict/$h.dict" ] && dict=(-dict="fuzz/dict/$h.dict")
  [ "$h" = cli ] && quiet=(-close_fd_mask=3) # its usage errors and --help go to stdout/stderr
  local status=0
  "$build/fuzz/fuzz_$h" "$work" "fuzz/corpus/$h" "${dict[@]}" "${quiet[@]}" -max_total_time="$seconds" \
    -timeout=25 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$found/" >"$log" 2>&1 || status=$?
  echo "$status" >"$build/logs/$h.status"
}
export -f run_one
export build seconds
printf '%s\n' "${harnesses[@]}" | xargs -P "$parallel" -I{} bash -c 'run_one {}'

failed=0
printf '\n%-12s %8s %12s %10s %s\n' harness seconds executions corpus result
for h in "${harnesses[@]}"; do
  log=$build/logs/$h.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus=$(ls "$build/corpus/$h" | wc -l)
  if [ "$(cat "$build/logs/$h.status")" = 0 ]; then
    result=clean
  else
    result="FAILED: $(grep -m1 -oE 'ERROR: [A-Za-z]+: [a-z-]+[^ ]*|ERROR: libFuzzer: [a-z-]+|runtime error: .*' "$log" || echo see "$log")"
    failed=1
  fi
  printf '%-12s %8s %12s %10s %s\n' "$h" "$seconds" "${execs:-?}" "$corpus" "$result"
done
[ "$failed" = 0 ] || echo "findings are in $build/findings/; logs in $build/logs/"
exit "$failed"
