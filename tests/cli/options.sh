#!/usr/bin/env bash
# One spelling per option across the subcommands (issue #27): the trace's
# format is --trace-format, overrides are --set SECTION.KEY=VALUE, lists are
# comma lists; each older spelling still works as a documented alias (listed
# in --help as "the older name of"). And `tlbsim --version`.
# Usage: options.sh TLBSIM SOURCE_DIR
set -u
tlbsim=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
same() { # WHAT A B: two outputs must be equal
  if [ "$2" = "$3" ]; then ok; else bad "$1 differ:"; diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | head -5; fi
}
demo=$src/traces/samples/demo.trace
printf 'alloc 1 4K\nalloc 2 8K\nfree 1\nalloc 3 4K\n' >"$work/a.trace"

# --version: the project's version, exit 0.
v=$("$tlbsim" --version) && [[ $v =~ ^tlbsim\ [0-9]+\.[0-9]+\.[0-9]+$ ]] && ok || bad "--version: '$v'"

# Every command that reads a trace names its format --trace-format.
for cmd in run dump mrc sweep convert alloc; do
  "$tlbsim" "$cmd" --help | grep -q '^  --trace-format F ' && ok || bad "$cmd has no --trace-format"
done
# The older names: convert --from, alloc --input-format, alloc --set KEY=V.
"$tlbsim" convert --help | grep -q '^  --from F .*the older name of --trace-format' && ok || bad "convert --help: --from"
"$tlbsim" alloc --help | grep -q '^  --input-format F .*the older name of --trace-format' && ok || bad "alloc --help: --input-format"
a=$("$tlbsim" convert --quiet --trace-format native --to native "$demo" - 2>&1)
b=$("$tlbsim" convert --quiet --from native --to native "$demo" - 2>&1)
same "convert --trace-format and --from" "$a" "$b"
a=$("$tlbsim" alloc --format csv --trace-format native --capacity 64K --policy first-fit "$work/a.trace")
b=$("$tlbsim" alloc --format csv --input-format native --capacity 64K --policy first-fit "$work/a.trace")
same "alloc --trace-format and --input-format" "$a" "$b"
a=$("$tlbsim" alloc --format csv --set vas.alignment=8K --capacity 64K --policy first-fit "$work/a.trace")
b=$("$tlbsim" alloc --format csv --set alignment=8K --capacity 64K --policy first-fit "$work/a.trace")
same "alloc --set vas.K=V and K=V" "$a" "$b"
"$tlbsim" alloc --help | grep -q '^  --set vas.K=V ' && ok || bad "alloc --help: --set vas.K=V"
# Comma lists: alloc --policy a,b is --policy a --policy b.
a=$("$tlbsim" alloc --format csv --capacity 64K --policy first-fit,buddy --policy cuda "$work/a.trace")
b=$("$tlbsim" alloc --format csv --capacity 64K --policy first-fit --policy buddy --policy cuda "$work/a.trace")
same "alloc --policy a,b and --policy a --policy b" "$a" "$b"
[ "$(printf '%s\n' "$a" | cut -d, -f1 | tr '\n' ' ')" = "policy first-fit buddy cuda " ] && ok || bad "alloc --policy list: $a"

# run --skip/--warmup/--max as sweep's: the same window, the same counts
# (sweep's row of the preset's own value; run's columns are a subset).
for window in "--skip 100" "--warmup 300" "--max 500" "--skip 50 --warmup 100 --max 900" "--warmup 99999"; do
  for t in "$src/traces/samples/stride.lackey" "$demo"; do
    # shellcheck disable=SC2086
    r=$("$tlbsim" run $window --format csv "$t")
    # shellcheck disable=SC2086
    w=$("$tlbsim" sweep $window --vary tlb.l1d.ways=4 "$t")
    diffs=$(python3 -c '
import csv, io, sys
r = next(csv.DictReader(io.StringIO(sys.argv[1])))
w = next(csv.DictReader(io.StringIO(sys.argv[2])))
print(" ".join(k for k in r if k != "trace" and r[k] != w.get(k)))' "$r" "$w")
    [ -z "$diffs" ] && ok || bad "run $window $t differs from sweep's row in: $diffs"
  done
done
out=$("$tlbsim" run --warmup 40 --format json "$demo")
python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["accesses"] == 6, d["accesses"]
assert sum(p["accesses"] for p in d["phases"]) == 6, d["phases"]' "$out" && ok || bad "run --warmup 40: 6 accesses counted, phases too"
"$tlbsim" run --warmup 5 --max 5 "$demo" 2>"$work/err" >/dev/null; [ $? = 2 ] && grep -q "leaves nothing of --max" "$work/err" && ok || bad "--warmup >= --max"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
