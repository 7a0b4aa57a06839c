#!/usr/bin/env bash
# tlbsim convert and the formats it reaches: every bundled sample, and a
# pinatrace, converted into every format that holds it, plain, gzip'd and
# zstd-compressed, replays to the same report as the original (counts equal,
# column by column); auto-detection names each format. A record a format
# cannot hold, a bad input line, or a pinatrace cut short is exit 1 with one
# FILE:LINE line, and OUT is not there afterwards. Usage errors: exit 2.
# Usage: convert.sh TLBSIM SOURCE_DIR
set -u
tlbsim=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# The report's counts, without the columns that name the input.
counts() { "$tlbsim" run --format csv "$@" | cut -d, -f3-; }

printf '0x400a1c: W 0x7ffd3e0\n0x400a20: R 0x601040\n0x400a24: R 0x601048\n#eof\n' >"$work/pin.out"

# sample | the formats it converts into
cases=(
  "$src/traces/samples/demo.trace|binary native"
  "$src/traces/samples/teaching.trace|binary native"
  "$src/traces/samples/stride.lackey|binary native lackey"
  "$src/traces/samples/stride.din|binary native lackey din"
  "$work/pin.out|binary native lackey din"
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
      got=$(counts "$out")
      [ "$got" = "$want" ] && ok || bad "$in as $to/$z replays differently: $got vs $want"
      fmt=$("$tlbsim" run --format csv "$out" | awk -F, 'NR == 2 {print $2}')
      [ "$fmt" = "$to" ] && ok || bad "$out detected as '$fmt', not $to"
    done
  done
done

# stdin to stdout, and the summary line
"$tlbsim" convert - - <"$src/traces/samples/stride.din" 2>"$work/err" >"$work/piped"
[ "$(counts "$work/piped")" = "$(counts "$src/traces/samples/stride.din")" ] && ok || bad "stdin to stdout"
grep -q "^tlbsim convert: 1487 records from <stdin> (din) to <stdout> (binary)$" "$work/err" && ok ||
  bad "summary line: $(cat "$work/err")"

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

echo "convert: $pass passed, $fail failed"
[ $fail -eq 0 ]
