#!/usr/bin/env bash
# tlbsim run with several traces: trace i is CPU (thread) i, and the traces
# take turns, one access each, until all have ended. Exact counts for two
# small traces, in a shared address space and in one per thread; the turn
# order as the log shows it; a trace that names its own threads is exit 1
# with one FILE:LINE line, --thread with several traces exit 2.
# Usage: run_cpus.sh TLBSIM
set -u
. "$(dirname "$0")/lib.sh"

column() { # column NAME ARGS...: NAME's value in run's CSV
  local name=$1
  shift
  "$tlbsim" run --format csv "$@" | awk -F, -v n="$name" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == n) c = i}
    NR == 2 {print c ? $c : "none"}'
}

# CPU 0 (din): w 0x1000, r 0x2000, r 0x1008; CPU 1 (native): r 0x1000, w 0x5000.
# Turns: 0:w 0x1000 (miss) 1:r 0x1000 0:r 0x2000 (miss) 1:w 0x5000 (miss) 0:r 0x1008 (hit).
printf '1 1000\n0 2000\n0 1008\n' >"$work/a.din"
printf 'r 0x1000 8\nw 0x5000 8\n' >"$work/b.trace"
two=("$work/a.din" "$work/b.trace")
[ "$(column accesses "${two[@]}")" = 5 ] && ok || bad "accesses"
[ "$(column threads.0.accesses "${two[@]}")/$(column threads.1.accesses "${two[@]}")" = 3/2 ] && ok ||
  bad "per-CPU accesses"
# shared: CPU 1's 0x1000 hits the entry CPU 0 filled
[ "$(column threads.0.tlb.l1d.misses "${two[@]}")/$(column threads.1.tlb.l1d.misses "${two[@]}")" = 2/1 ] && ok ||
  bad "shared address space"
[ "$(column tlb.l1d.access_misses "${two[@]}")" = 3 ] && ok || bad "shared: total misses"
# per-thread: CPU 1's 0x1000 is its own page, a miss
ps=(--set machine.address_spaces=per-thread "${two[@]}")
[ "$(column threads.0.tlb.l1d.misses "${ps[@]}")/$(column threads.1.tlb.l1d.misses "${ps[@]}")" = 2/2 ] && ok ||
  bad "per-thread address spaces"
[ "$(column trace_format "${two[@]}")" = "din native" ] && ok || bad "the report names both formats"
order=$("$tlbsim" run --log "${two[@]}" | awk '$1 ~ /^[0-9]+:$/ {printf "%s%s ", $2, $2 == "thread" ? $3 : ""}')
[ "$order" = "thread0 w thread1 r thread0 r thread1 w thread0 r " ] && ok || bad "turn order: $order"
# one trace alone replays as before: no thread columns
[ "$(column threads.0.accesses "$work/a.din")" = none ] && ok || bad "one trace: no per-thread counts"

expect_error() { # expect_error CODE MESSAGE-REGEX ARGS...
  local code=$1 msg=$2
  shift 2
  "$tlbsim" "$@" >/dev/null 2>"$work/err"
  local rc=$?
  [ $rc -eq "$code" ] || { bad "exit $rc, not $code: $*"; return; }
  [ "$(wc -l <"$work/err")" -eq 1 ] && grep -Eq "$msg" "$work/err" && ok || bad "message for $*: $(cat "$work/err")"
}
printf 'r 0x1000\nr 0x2000 thread=1\n' >"$work/own.trace"
expect_error 1 "^$work/own.trace:2: a thread id in a trace replayed as one of several: this trace is CPU 1$" \
  run "$work/a.din" "$work/own.trace"
expect_error 2 "" run --thread 1 "${two[@]}"
expect_error 1 "^$work/missing.din" run "$work/a.din" "$work/missing.din"

finish run_cpus
