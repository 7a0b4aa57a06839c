#!/usr/bin/env bash
# tlbsim convert and the formats it reaches: every bundled sample, and a
# pinatrace, converted into every format that holds it, plain, gzip'd and
# zstd-compressed, replays to the same report as the original (counts equal,
# column by column); auto-detection names each format. A record a format
# cannot hold, a bad input line, or a pinatrace cut short is exit 1 with one
# FILE:LINE line, and OUT is not there afterwards. Usage errors: exit 2.
# Usage: convert.sh TLBSIM SOURCE_DIR
set -u -o pipefail
. "$(dirname "$0")/lib.sh"

# The report's counts, without the columns that name the input; a failed or
# empty report fails, so that two failures never compare equal.
counts() {
  local report
  report=$("$tlbsim" run --format csv "$@" | cut -d, -f3-) && [ -n "$report" ] && printf '%s\n' "$report"
}

printf '0x400a1c: W 0x7ffd3e0\n0x400a20: R 0x601040\n0x400a24: R 0x601048\n#eof\n' >"$work/pin.out"
printf 'r 0x1000\nr 0x2000 thread=1\nr 0x1000 thread=1\nr 0x3000 8 thread=2\nw 0x1000\n' >"$work/threads.trace"

# sample | the formats it converts into
cases=(
  "$src/traces/samples/demo.trace|binary native"
  "$src/traces/samples/teaching.trace|binary native"
  "$src/traces/samples/stride.lackey|binary native lackey"
  "$src/traces/samples/stride.din|binary native lackey din"
  "$work/pin.out|binary native lackey din"
  "$work/threads.trace|binary native"
)
for c in "${cases[@]}"; do
  in=${c%%|*}
  want=$(counts "$in") || { bad "run $in"; continue; }
  for to in ${c#*|}; do
    for z in none gzip zstd; do
      out="$work/out.$to.$z"
      if ! "$tlbsim" convert --quiet --to "$to" --compress "$z" "$in" "$out"; then
        bad "convert $in --to $to --compress $z"
        continue
      fi
      got=$(counts "$out") || { bad "run $out"; continue; }
      [ "$got" = "$want" ] && ok || bad "$in as $to/$z replays differently: $got vs $want"
      fmt=$("$tlbsim" run --format csv "$out" | awk -F, 'NR == 2 {print $2}')
      [ "$fmt" = "$to" ] && ok || bad "$out detected as '$fmt', not $to"
    done
  done
done

# stdin to stdout, and the summary line
"$tlbsim" convert - - <"$src/traces/samples/stride.din" 2>"$work/err" >"$work/piped"
a=$(counts "$work/piped") && b=$(counts "$src/traces/samples/stride.din") && [ "$a" = "$b" ] && ok ||
  bad "stdin to stdout"
grep -q "^tlbsim convert: 1487 records from <stdin> (din) to <stdout> (binary)$" "$work/err" && ok ||
  bad "summary line: $(cat "$work/err")"

# threads: per-thread counts (shared address space, then one per thread), and
# --thread naming the thread of records without one
column() { # column NAME ARGS...: NAME's value in run's CSV
  local name=$1
  shift
  "$tlbsim" run --format csv "$@" | awk -F, -v n="$name" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == n) c = i}
    NR == 2 {print c ? $c : "none"}'
}
t=$work/threads.trace
[ "$(column cpus.0.accesses "$t")/$(column cpus.1.accesses "$t")/$(column cpus.2.accesses "$t")" = 2/2/1 ] &&
  ok || bad "per-thread accesses"
[ "$(column cpus.1.tlb.l1d.misses "$t")" = 2 ] && ok || bad "thread 1 on a CPU of its own: its own l1d"
[ "$(column cpus.1.tlb.l1d.misses --set tlb.l1d.shared_by=all --set tlb.stlb.shared_by=all "$t")" = 1 ] && ok ||
  bad "thread 1 shares thread 0's l1d entry"
[ "$(column cpus.1.tlb.stlb.misses --set machine.address_spaces=per-thread "$t")" = 2 ] && ok ||
  bad "thread 1 in its own address space"
[ "$(column cpus.0.accesses "$src/traces/samples/stride.din")" = none ] && ok || bad "threads without thread ids"
[ "$(column cpus.7.accesses --thread 7 "$src/traces/samples/stride.din")" = 1487 ] && ok || bad "--thread 7"
"$tlbsim" convert --quiet --thread 5 --to native "$src/traces/samples/stride.din" "$work/t5.trace" &&
  [ "$(grep -c ' thread=5$' "$work/t5.trace")" = 1487 ] && ok || bad "convert --thread 5"
"$tlbsim" run "$t" | grep -q '^2  *1  *1  *0  *1  *2  *0$' && ok || bad "text report's thread table"

# errors: exit status, one FILE:LINE line, no OUT left behind
expect_error() { # expect_error CODE MESSAGE-REGEX ARGS...
  local code=$1 msg=$2
  shift 2
  "$tlbsim" "$@" >/dev/null 2>"$work/err"
  local rc=$?
  [ $rc -eq "$code" ] || { bad "exit $rc, not $code: $*"; return; }
  [ "$(wc -l <"$work/err")" -eq 1 ] && grep -Eq "$msg" "$work/err" && ok || bad "message for $*: $(cat "$work/err")"
}
expect_error 1 "^.*/demo.trace:[0-9]+: din holds accesses to addresses only" \
  convert --to din "$src/traces/samples/demo.trace" "$work/x.din"
[ ! -e "$work/x.din" ] && [ -z "$(ls -A "$work" | grep '^\.x\.din')" ] && ok || bad "a failed convert left x.din behind"
printf '0x1: R 0x2\n0x1: R 0x3\n' >"$work/cut.pin"
expect_error 1 "^$work/cut.pin:2: no #eof line at the end" convert "$work/cut.pin" "$work/cut.bin"
[ ! -e "$work/cut.bin" ] && ok || bad "a cut-off pinatrace left output behind"
printf '0x1: R 0x2\n0x1: Q 0x3\n#eof\n' >"$work/bad.pin"
expect_error 1 "^$work/bad.pin:2: expected R or W" run "$work/bad.pin"
expect_error 1 "^$work/bad.pin:2: expected R or W" convert --from pinatrace "$work/bad.pin" "$work/bad.bin"
[ ! -e "$work/bad.bin" ] && ok || bad "a bad pinatrace left output behind"
expect_error 1 "is also an input" convert "$work/pin.out" "$work/pin.out"
expect_error 1 "reads xz but does not write it" convert --compress xz "$work/pin.out" "$work/x"
expect_error 2 "" convert --to auto "$work/pin.out" "$work/x"
expect_error 2 "" convert "$work/pin.out"
expect_error 1 "^$t:2: din holds no thread ids" convert --to din "$t" "$work/t.din"
printf 'r 0x10 thread=64\n' >"$work/t64.trace"
expect_error 1 "^$work/t64.trace:1: thread: '64' is out of range \\(0..63\\)" run "$work/t64.trace"
expect_error 1 "machine.address_spaces.*'private' is not shared or per-thread" \
  run --set machine.address_spaces=private "$t"
expect_error 2 "" run --thread 64 "$t"

# Issue #26: one grammar for both tlbsim formats. A label with a non-ASCII byte
# read as native and was refused as binary; a binary map of part of a page
# converted to a native line the native reader refuses.
printf 'mark caf\xc3\xa9\n' >"$work/utf8.trace"
expect_error 1 "^$work/utf8.trace:1: a mark label byte that is not printable ASCII" \
  convert "$work/utf8.trace" "$work/utf8.bin"
[ ! -e "$work/utf8.bin" ] && ok || bad "a refused label left output behind"
printf '\x89TLBTRC\x01\x0f\x00\x64\x80\x20\x03' >"$work/partmap.bin"
expect_error 1 "^$work/partmap.bin:1: binary record 1: a map whose VA or SIZE is not a multiple of its page size" \
  convert --to native "$work/partmap.bin" "$work/partmap.trace"
[ ! -e "$work/partmap.trace" ] && ok || bad "a refused map left output behind"
printf 'mark a#b\nmap 0x200000 2M page=2M\nr 0x200000\n' >"$work/held.trace"
"$tlbsim" convert --quiet "$work/held.trace" "$work/held.bin" &&
  "$tlbsim" convert --quiet --to native "$work/held.bin" "$work/held2.trace" &&
  [ "$(counts "$work/held2.trace")" = "$(counts "$work/held.trace")" ] && ok || bad "native -> binary -> native"

finish convert
