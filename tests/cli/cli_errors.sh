#!/usr/bin/env bash
# Every bad input ends with a non-zero exit and ONE clear line on stderr;
# usage errors exit 2, bad input or configuration exit 1.
# Usage: cli_errors.sh TLBSIM SOURCE_DIR
set -u
tlbsim=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0

# check EXPECTED_STATUS STDERR_SUBSTRING -- command...
check() {
  local want=$1 pattern=$2
  shift 3
  "$@" >"$work/out" 2>"$work/err" </dev/null
  local got=$? lines
  lines=$(wc -l <"$work/err")
  if [ "$got" = "$want" ] && { [ -z "$pattern" ] || grep -qF -- "$pattern" "$work/err"; } &&
     { [ "$want" = 0 ] || [ "$lines" = 1 ]; }; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $* -> exit $got (want $want), stderr ($lines lines):"
    sed 's/^/    /' "$work/err"
  fi
}

demo=$src/traces/samples/demo.trace
printf '[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 64\nwayz = 4\n' >"$work/typo.ini"
printf 'r 0x1000 8\nr 0x2000 eight\n' >"$work/bad.trace"
printf 'r 0x1000 8\n' | gzip >"$work/t.gz"
head -c 10 "$work/t.gz" >"$work/cut.gz"
: >"$work/empty.trace"
printf 'pattern,order,mapping\nchase,seq,contiguous\n' >"$work/short.csv"
printf '%s\n' 'pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access' \
  'chase,seq,contiguous,2097152,2097152,16777216,4096,abc' >"$work/badrow.csv"
printf '%s\n' 'pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access' \
  'chase,seq,contiguous,2097152,2097152,16777216,4096' >"$work/cutrow.csv"

check 2 "expected a COMMAND" -- "$tlbsim"
check 2 "unknown command 'bogus'" -- "$tlbsim" bogus
check 2 "unknown or incomplete option '--bogus'" -- "$tlbsim" run --bogus "$demo"
check 2 "--format: 'xml' is not text, json or csv" -- "$tlbsim" run --format xml "$demo"
check 2 "--trace-format: 'pin' is not auto, native, lackey or din" -- "$tlbsim" run --trace-format pin "$demo"
check 2 "expected one TRACE argument" -- "$tlbsim" run
check 1 "--preset: no preset named 'nope'" -- "$tlbsim" run --preset nope "$demo"
check 1 "--set:1: unknown key 'entriez' in [tlb.l1d]" -- "$tlbsim" run --set tlb.l1d.entriez=4 "$demo"
check 1 "--set:2: tlb.l1d.entries: 'abc' is not a whole number" -- \
  "$tlbsim" run --set tlb.l1d.ways=4 --set tlb.l1d.entries=abc "$demo"
check 1 "--set:3: tlb.l1d.bank_bits: 5 bank bits do not fit the 16 sets' index" -- \
  "$tlbsim" run --set tlb.l1d.ways=4 --set tlb.l1d.index=xor --set tlb.l1d.bank_bits=5 "$demo"
check 1 "--set:1: 'tlb.l1d.entries': expected SECTION.KEY=VALUE" -- "$tlbsim" run --set tlb.l1d.entries "$demo"
check 1 "$work/typo.ini:5: unknown key 'wayz' in [tlb.l1d]" -- "$tlbsim" run --config "$work/typo.ini" "$demo"
check 1 "use --preset or --config, not both" -- "$tlbsim" run --preset x86-64 --config "$work/typo.ini" "$demo"
check 1 "$work/bad.trace:2:" -- "$tlbsim" run "$work/bad.trace"
check 1 "$work/missing.trace" -- "$tlbsim" run "$work/missing.trace"
check 1 "$work/cut.gz" -- "$tlbsim" run "$work/cut.gz"
check 0 "" -- "$tlbsim" run "$work/empty.trace"
check 0 "" -- "$tlbsim" run "$work/t.gz"
check 0 "" -- "$tlbsim" run --format json "$demo"
check 0 "" -- "$tlbsim" run --format csv "$demo"
check 2 "'0xZZ' is not an address" -- "$tlbsim" explain 0xZZ
check 2 "--page-size: 65536 is not a page size of x86-64-4" -- "$tlbsim" explain --page-size 64K 0x1000
check 1 "beyond the 48-bit address space" -- "$tlbsim" explain 0x1000000000000
check 0 "" -- "$tlbsim" explain --preset teaching 0xa7c3
check 2 "--footprint: '1M..x'" -- "$tlbsim" chase --preset x86-64 --stride 4K --footprint 1M..x
check 2 "--stride: 12 is not a multiple of 8 bytes" -- "$tlbsim" chase --stride 12 --footprint 1M
check 2 "--stride is required" -- "$tlbsim" chase --footprint 1M
check 2 "--footprint: 1KiB holds no node at a 4KiB stride" -- "$tlbsim" chase --preset x86-64 --stride 4K --footprint 1K
check 2 "--steps: '0' is not a whole number from 1 to 4294967295" -- "$tlbsim" chase --stride 4K --footprint 1M --steps 0
check 2 "--per-octave: '0' is not a whole number from 1 to 64" -- "$tlbsim" chase --stride 4K --footprint 1M --per-octave 0
check 2 "--max-mean-error: 'nan' is not a number of at least 0" -- "$tlbsim" validate --max-mean-error nan "$work/short.csv"
check 1 "--set:1: vas.cuda_small_max: '1Q' is not a size" -- "$tlbsim" run --set vas.cuda_small_max=1Q "$demo"
check 0 "" -- "$tlbsim" run --set vas.policy=cuda --set vas.cuda_small_max=1M "$demo"
check 1 "--set:1: pwc.PD.entries: '4294967296' is not a whole number of at most 16777216" -- \
  "$tlbsim" run --set pwc.PD.entries=4294967296 "$demo"
check 1 "--set:1: tlb.l1d.latency: '4294967297' is not a whole number of at most 4294967295" -- \
  "$tlbsim" run --set tlb.l1d.latency=4294967297 "$demo"
check 1 "--set:1: tlb.l1d.ways: '0' is not a whole number from 1 to 64" -- "$tlbsim" run --set tlb.l1d.ways=0 "$demo"
check 1 "$work/cutrow.csv:2: 7 fields, the header has 8" -- "$tlbsim" validate "$work/cutrow.csv"
check 2 "--order: 'sideways' is not a comma-separated list of seq or random" -- "$tlbsim" validate --order sideways "$work/short.csv"
check 2 "--min-nodes: 'x' is not a whole number" -- "$tlbsim" validate --min-nodes x "$work/short.csv"
check 2 "--mapping: 'managed' is not a comma-separated list of contiguous" -- "$tlbsim" calibrate --mapping managed "$work/short.csv"
check 1 "$work/short.csv:1: missing column 'page_bytes'" -- "$tlbsim" calibrate --preset x86-64 "$work/short.csv"
check 1 "$work/short.csv:1: missing column 'page_bytes'" -- "$tlbsim" validate --preset x86-64 "$work/short.csv"
check 1 "$work/badrow.csv:2: cycles_per_access 'abc' is not a number" -- \
  "$tlbsim" validate --preset x86-64 "$work/badrow.csv"
for cmd in run explain chase validate calibrate formats alloc; do
  check 0 "" -- "$tlbsim" "$cmd" --help
done
# stdin works and gives the same answer as the file.
a=$("$tlbsim" run --format csv "$demo")
b=$("$tlbsim" run --format csv - <"$demo" | sed 's/<stdin>/'"$(printf '%s' "$demo" | sed 's/[\/&]/\\&/g')"'/')
if [ "$a" = "$b" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: stdin replay differs"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
