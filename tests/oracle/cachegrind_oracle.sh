#!/usr/bin/env bash
# The exactness check against an independent oracle: a data TLB is a cache
# whose line is a page, so cachegrind's D1 simulation with SIZE=entries*page,
# ASSOC=ways, LINE=page gives the exact LRU miss count of that TLB. Each
# workload runs once under lackey (the trace) and once under cachegrind (the
# figure); `tlbsim run` must report the same number of data accesses that
# missed in l1d, and the same split by kind: D1mr reads, D1mw writes (for
# which the trace's modifies, M lines, are read as cachegrind counts them:
# a read, whose write then hits). Usage: cachegrind_oracle.sh TLBSIM
# WORKLOAD_BIN... (env: WORK)
set -euo pipefail
tlbsim=$1; shift
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
oracle_dir=$(cd "$(dirname "$0")" && pwd)
fail=0 checks=0

# config label | cachegrind --D1 | tlbsim options
configs=(
  "fully-associative-64|262144,64,4096|--preset x86-64 --set tlb.l1d.entries=64 --set tlb.l1d.ways=64 --set tlb.l1d.policy=lru"
  "4-way-64|262144,4,4096|--preset x86-64 --set tlb.l1d.entries=64 --set tlb.l1d.ways=4 --set tlb.l1d.policy=lru"
  "2-way-32|131072,2,4096|--preset x86-64 --set tlb.l1d.entries=32 --set tlb.l1d.ways=2 --set tlb.l1d.policy=lru"
  "64KiB-pages-4-way-32|2097152,4,65536|--config $oracle_dir/pages64k.ini"
)

for bin in "$@"; do
  name=$(basename "$bin")
  trace="$work/$name.lackey"
  # Same environment for both runs so the client's stack layout is the same.
  env -i PATH=/usr/bin:/bin valgrind --tool=lackey --trace-mem=yes --log-file="$trace" "$bin"
  sed 's/^ M / L /' "$trace" >"$trace.loads" # modifies as cachegrind counts them
  for c in "${configs[@]}"; do
    IFS='|' read -r label d1 opts <<<"$c"
    out="$work/$name.$label.cg"
    env -i PATH=/usr/bin:/bin valgrind --tool=cachegrind --cache-sim=yes --D1="$d1" \
      --cachegrind-out-file="$out" --log-file=/dev/null "$bin"
    # events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw; D1 misses = D1mr + D1mw
    expected=$(awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
                    /^summary:/ { print $(col["D1mr"] + 1) + $(col["D1mw"] + 1) }' "$out")
    # shellcheck disable=SC2086
    got=$("$tlbsim" run $opts --format csv "$trace" |
          awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "tlb.l1d.access_misses") c = i }
                   NR == 2 { print $c }')
    checks=$((checks + 1))
    if [ "$expected" = "$got" ]; then
      echo "ok   $name $label: cachegrind D1 misses $expected = tlbsim l1d access misses $got"
    else
      echo "FAIL $name $label: cachegrind D1 misses $expected, tlbsim l1d access misses $got"
      fail=$((fail + 1))
    fi
    expected=$(awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
                    /^summary:/ { print $(col["D1mr"] + 1), $(col["D1mw"] + 1) }' "$out")
    # shellcheck disable=SC2086
    got=$("$tlbsim" run $opts --format csv "$trace.loads" |
          awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "tlb.l1d.read_misses") r = i; if ($i == "tlb.l1d.write_misses") w = i } }
                   NR == 2 { print $r, $w }')
    checks=$((checks + 1))
    if [ "$expected" = "$got" ]; then
      echo "ok   $name $label: cachegrind D1mr D1mw $expected = tlbsim l1d read and write misses $got"
    else
      echo "FAIL $name $label: cachegrind D1mr D1mw $expected, tlbsim l1d read and write misses $got"
      fail=$((fail + 1))
    fi
  done
done
echo "$((checks - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
