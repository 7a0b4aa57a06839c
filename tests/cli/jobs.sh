#!/usr/bin/env bash
# --jobs: xz traces decoded on several threads, and trace files parsed on a
# thread of their own, give the results of one thread. A multi-megabyte ChampSim
# trace in many xz blocks (as xz -T0 and ChampSim's tools write it) replays
# with the same report at --jobs 1 and --jobs 2, and as its uncompressed
# twin and in a single block; every command that reads a trace (run, dump,
# mrc, sweep, convert, alloc) takes --jobs
# and gives the same result with it; a bad --jobs is a usage error.
# A din trace parsed ahead gives the same report, and the same error for a
# bad line, as at --jobs 1; a replay that stops early stops its thread.
# Usage: jobs.sh TLBSIM SOURCE_DIR BENCH_GEN_DIN
set -u
. "$(dirname "$0")/lib.sh"
gen=${3:-}
need xz
[ -x "$gen" ] || fail "no bench_gen_din: $gen"

# 65,536 records: 4 MiB, in 1 MiB blocks (and in one).
"$gen" --format champsim --lines 65536 --jump 300000 >"$work/t.champsim" || fail "bench_gen_din"
xz -T2 -0 --block-size=1MiB -c "$work/t.champsim" >"$work/many.xz" || fail "xz -T2"
xz -T1 -0 -c "$work/t.champsim" >"$work/one.xz" || fail "xz"
blocks=$(xz --robot -l "$work/many.xz" | awk -F'\t' '$1 == "totals" {print $3}')
[ "$blocks" -ge 4 ] && ok || bad "many.xz has $blocks blocks"

# A command's output with the operand's name cut out (the trace column).
out() { "$tlbsim" "$@" 2>&1 | sed "s|$work/[a-z.]*|TRACE|g"; }
want=$(out run --format csv --jobs 1 "$work/many.xz")
case $want in *champsim*) ok ;; *) fail "run: $want" ;; esac
for args in "--jobs 2 $work/many.xz" "$work/many.xz" "--jobs 2 $work/t.champsim" "--jobs 2 $work/one.xz" \
  "--jobs 1 $work/one.xz"; do
  # shellcheck disable=SC2086  # args: words without blanks
  [ "$(out run --format csv $args)" = "$want" ] && ok || bad "run $args differs from --jobs 1"
done
# The trace through a pipe decodes the same.
[ "$(out run --format csv --jobs 2 - <"$work/many.xz" | sed 's|<stdin>|TRACE|')" = "$want" ] && ok || bad "stdin"

for cmd in "mrc --max-entries 64" "dump" "sweep --vary tlb.l1d.entries=32,64"; do
  # shellcheck disable=SC2086
  [ "$(out $cmd --jobs 2 "$work/many.xz")" = "$(out $cmd --jobs 1 "$work/many.xz")" ] && ok || bad "$cmd --jobs"
done
"$tlbsim" convert --quiet --jobs 2 "$work/many.xz" "$work/a.tlbt" && "$tlbsim" convert --quiet "$work/t.champsim" "$work/b.tlbt" &&
  cmp -s "$work/a.tlbt" "$work/b.tlbt" && ok || bad "convert --jobs 2"

# alloc reads a native trace through the same reader: 20,000 allocations
# and frees in 16 KiB xz blocks.
awk 'BEGIN {for (i = 1; i <= 10000; i++) {printf "alloc %d %dK\n", i, 4 * (i % 64 + 1); if (i > 8) printf "free %d\n", i - 8}}' \
  >"$work/a.trace"
xz -T2 -0 --block-size=16KiB -c "$work/a.trace" >"$work/a.trace.xz" || fail "xz -T2 a.trace"
want=$(out alloc --policy caching --jobs 1 "$work/a.trace.xz")
case $want in *caching*) ok ;; *) bad "alloc: $want" ;; esac
[ "$(out alloc --policy caching --jobs 2 "$work/a.trace.xz")" = "$want" ] && ok || bad "alloc --jobs 2"
[ "$(out alloc --policy caching "$work/a.trace")" = "$want" ] && ok || bad "alloc of the plain trace"

# A cut-off multi-block file is the same error on both paths.
head -c $(($(wc -c <"$work/many.xz") / 2)) "$work/many.xz" >"$work/cut.xz"
for j in 1 2; do
  err=$("$tlbsim" run --jobs $j "$work/cut.xz" 2>&1 >/dev/null)
  rc=$?
  [ $rc = 1 ] && case $err in *"cut.xz:"*"cannot read input: unexpected end of file (a cut-off xz stream)") true ;; *) false ;; esac &&
    ok || bad "cut.xz at --jobs $j -> $rc: $err"
done

# din and lackey parsed ahead (--jobs 2) and in the caller's calls.
"$gen" --lines 300000 >"$work/t.din" || fail "bench_gen_din din"
"$gen" --lines 300000 --format lackey >"$work/t.lackey" || fail "bench_gen_din lackey"
for f in t.din t.lackey; do
  [ "$(out run --format csv --jobs 2 "$work/$f")" = "$(out run --format csv --jobs 1 "$work/$f")" ] && ok ||
    bad "run --jobs 2 $f"
done
{ head -n 250000 "$work/t.din"; echo "7 1234"; tail -n 10 "$work/t.din"; } >"$work/bad.din"
e1=$("$tlbsim" run --jobs 1 "$work/bad.din" 2>&1 >/dev/null)
e2=$("$tlbsim" run --jobs 2 "$work/bad.din" 2>&1 >/dev/null)
case $e1 in *"bad.din:250001: label: '7' is out of range (0..5)"*) ok ;; *) bad "bad.din: $e1" ;; esac
[ "$e1" = "$e2" ] && ok || bad "bad.din at --jobs 2: $e2"
# A simulation error on the first line stops the replay at once, the
# parsing thread with it.
{ echo "0 8000000000000000"; cat "$work/t.din"; } >"$work/wide.din"
timeout 60 "$tlbsim" run --jobs 2 "$work/wide.din" >/dev/null 2>&1
[ $? = 1 ] && ok || bad "wide.din: not exit 1"

for bad_jobs in 0 x 1025; do
  err=$("$tlbsim" run --jobs $bad_jobs "$work/many.xz" 2>&1 >/dev/null)
  rc=$?
  [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && case $err in "tlbsim run: --jobs: '$bad_jobs' "*) true ;; *) false ;; esac &&
    ok || bad "--jobs $bad_jobs -> $rc: $err"
done
finish jobs
