#!/usr/bin/env bash
# tlbsim run with several traces: trace i is CPU (thread) i with TLBs of its
# own, and the traces take turns, one access each, until all have ended.
# Exact counts for two small traces, in a shared address space and in one
# per thread, with private TLBs and with every level shared; one trace run
# as two CPUs gives each CPU that trace's own L1 misses; the turn order as
# the log shows it; a trace that names its own threads is exit 1 with one
# FILE:LINE line, --thread with several traces exit 2.
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
[ "$(column cpus.0.accesses "${two[@]}")/$(column cpus.1.accesses "${two[@]}")" = 3/2 ] && ok ||
  bad "per-CPU accesses"
# private TLBs: CPU 1's 0x1000 misses its own l1d, though CPU 0 mapped the page
[ "$(column cpus.0.tlb.l1d.misses "${two[@]}")/$(column cpus.1.tlb.l1d.misses "${two[@]}")" = 2/2 ] && ok ||
  bad "private TLBs"
[ "$(column tlb.l1d.access_misses "${two[@]}")" = 4 ] && ok || bad "private: total misses"
[ "$(column cpus.1.page_faults "${two[@]}")" = 1 ] && ok || bad "private: CPU 1 faults on 0x5000 alone"
# every level shared by all CPUs: CPU 1's 0x1000 hits the entry CPU 0 filled
sh=(--set tlb.l1d.shared_by=all --set tlb.stlb.shared_by=all "${two[@]}")
[ "$(column cpus.0.tlb.l1d.misses "${sh[@]}")/$(column cpus.1.tlb.l1d.misses "${sh[@]}")" = 2/1 ] && ok ||
  bad "shared TLBs"
[ "$(column tlb.l1d.access_misses "${sh[@]}")" = 3 ] && ok || bad "shared: total misses"
# per-thread: CPU 1's 0x1000 is its own page, a miss in the shared TLBs too
ps=(--set machine.address_spaces=per-thread "${sh[@]}")
[ "$(column cpus.0.tlb.l1d.misses "${ps[@]}")/$(column cpus.1.tlb.l1d.misses "${ps[@]}")" = 2/2 ] && ok ||
  bad "per-thread address spaces"
# the same trace as two CPUs: each CPU's L1 DTLB misses are the trace's own
trace=$(dirname "$0")/../../traces/samples/stride.lackey
alone=$(column tlb.l1d.misses "$trace")
pair=$(column cpus.0.tlb.l1d.misses "$trace" "$trace")/$(column cpus.1.tlb.l1d.misses "$trace" "$trace")
[ "$alone" -gt 0 ] && [ "$pair" = "$alone/$alone" ] && ok || bad "one trace as two CPUs: $pair, alone $alone"
[ "$(column trace_format "${two[@]}")" = "din native" ] && ok || bad "the report names both formats"
order=$("$tlbsim" run --log "${two[@]}" | awk '$1 ~ /^[0-9]+:$/ {printf "%s%s ", $2, $2 == "thread" ? $3 : ""}')
[ "$order" = "thread0 w thread1 r thread0 r thread1 w thread0 r " ] && ok || bad "turn order: $order"
# one trace alone replays as before: no per-CPU columns
[ "$(column cpus.0.accesses "$work/a.din")" = none ] && ok || bad "one trace: no per-CPU counts"

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
