#!/usr/bin/env bash
# tlbsim kernel --stats and tlbsim convert on GPU kernel traces: the fixture
# kernelslist's rows (counts worked out by hand in traces/FORMAT.md), its
# binary form (plain, gzip, zstd, xz) giving the same rows, JSON and text
# output; bad inputs exit 1 with one FILE:LINE line, usage errors exit 2.
# Usage: kernel.sh TLBSIM SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
list=$src/traces/kernels/kernelslist.g

# the rows without the trace column (the last)
rows() { "$tlbsim" kernel --stats --format csv "$1" | sed 's/,[^,]*$//'; }
want=$(rows "$list")
[ "$(wc -l <<<"$want")" = 3 ] && ok || bad "3 CSV lines: $want"
col() { # col NAME ROW: a column's value in row ROW (1, 2) of $want
  awk -F, -v n="$1" -v r="$(($2 + 1))" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == n) c = i} NR == r {print $c}' <<<"$want"
}
[ "$(col kernel 1),$(col grid 1),$(col block 1),$(col warp_instructions 1),$(col memory_instructions 1)" = \
  "_Z6vecaddPKfS0_Pfi,2x1x1,64x1x1,52,12" ] && ok || bad "vecadd row: $(sed -n 2p <<<"$want")"
[ "$(col lines_128b 1),$(col pages_2m 1),$(col bytes 1)" = "12,2,1536" ] && ok || bad "vecadd lines/pages/bytes"
[ "$(col global_load_instructions 2),$(col shared_store_bytes 2),$(col global_atomic_instructions 2)" = "6,80,2" ] &&
  ok || bad "gather row: $(sed -n 3p <<<"$want")"

# the binary form, compressed or not, reads the same
"$tlbsim" convert "$list" "$work/k.ktb" 2>"$work/err" || bad "convert"
grep -q "^tlbsim convert: 2 kernels, 3 thread blocks, 72 warp instructions from .*kernelslist.g to $work/k.ktb" \
  "$work/err" && ok || bad "convert's summary: $(cat "$work/err")"
gzip -c "$work/k.ktb" >"$work/k.ktb.gz"
zstd -q -c "$work/k.ktb" >"$work/k.ktb.zst"
xz -c "$work/k.ktb" >"$work/k.ktb.xz"
for f in k.ktb k.ktb.gz k.ktb.zst k.ktb.xz; do
  [ "$(rows "$work/$f")" = "$want" ] && ok || bad "$f reads differently"
done
"$tlbsim" convert --quiet "$src/traces/kernels/kernel-2.traceg" - >"$work/k2.ktb" && ok || bad "convert to stdout"
[ "$(rows "$work/k2.ktb")" = "$(rows "$src/traces/kernels/kernel-2.traceg")" ] && ok || bad "one traceg's binary form"
xz -c "$src/traces/kernels/kernel-2.traceg" >"$work/kernel-2.traceg.xz"
[ "$(rows "$work/kernel-2.traceg.xz")" = "$(sed -n '1p;3p' <<<"$want")" ] && ok || bad ".traceg.xz"

# JSON: an array of the same rows; text: a block per kernel
[ "$("$tlbsim" kernel --stats --format json "$list" | grep -c '"warp_instructions"')" = 2 ] && ok || bad "json rows"
"$tlbsim" kernel --stats --format json "$list" | head -1 | grep -qx '\[' && ok || bad "json array"
"$tlbsim" kernel --stats "$list" | grep -q '^pages_2m  *35$' && ok || bad "text block"

# errors: one line, exit 1 (input) or 2 (usage)
check() { # check STATUS SUBSTRING -- COMMAND...
  local want=$1 pattern=$2
  shift 3
  "$@" >/dev/null 2>"$work/err" </dev/null
  local got=$?
  if [ "$got" = "$want" ] && grep -qF -- "$pattern" "$work/err" && [ "$(wc -l <"$work/err")" = 1 ]; then ok; else
    bad "$* -> exit $got (want $want): $(cat "$work/err")"
  fi
}
sed 's/^00b0 ffffffff 0 STG.E 2 R6 R9 4 1 0x\(.*\) 4 $/00b0 ffffffff 0 STG.E 2 R6 R9 4 1 0x\1 /' \
  "$src/traces/kernels/kernel-1.traceg" >"$work/bad.traceg"
check 1 "bad.traceg:35: instruction line: expected a stride (decimal), found the end of the line" -- \
  "$tlbsim" kernel --stats "$work/bad.traceg"
printf 'kernel-1.traceg\nkernel-9.traceg\n' >"$work/kernelslist.g"
cp "$src/traces/kernels/kernel-1.traceg" "$work/"
check 1 "kernelslist.g:2: cannot open $work/kernel-9.traceg" -- "$tlbsim" kernel --stats "$work/kernelslist.g"
check 1 "kernelslist.g:2: cannot open" -- "$tlbsim" convert "$work/kernelslist.g" "$work/out.ktb"
[ ! -e "$work/out.ktb" ] && ok || bad "a failed convert left its output"
check 1 "not a kernel trace" -- "$tlbsim" kernel --stats "$src/traces/samples/demo.trace"
head -c 600 "$work/k.ktb" >"$work/cut.ktb"
check 1 "binary record" -- "$tlbsim" kernel --stats "$work/cut.ktb"
check 2 "give --stats" -- "$tlbsim" kernel "$list"
check 2 "binary kernel trace only" -- "$tlbsim" convert --to lackey "$list" "$work/x"
check 2 "binary kernel trace only" -- "$tlbsim" convert --compress gzip "$list" "$work/x"

finish kernel
