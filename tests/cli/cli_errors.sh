#!/usr/bin/env bash
# Every bad input ends with a non-zero exit and ONE clear line on stderr;
# usage errors exit 2, bad input or configuration exit 1.
# Usage: cli_errors.sh TLBSIM SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"

# check EXPECTED_STATUS STDERR_SUBSTRING -- command...
check() {
  local want=$1 pattern=$2
  shift 3
  "$@" >"$work/out" 2>"$work/err" </dev/null
  local got=$? lines
  lines=$(wc -l <"$work/err")
  if [ "$got" = "$want" ] && { [ -z "$pattern" ] || grep -qF -- "$pattern" "$work/err"; } &&
     { [ "$want" = 0 ] || [ "$lines" = 1 ]; }; then
    ok
  else
    failures=$((failures + 1))
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
check 2 "--trace-format: 'pin' is not auto, native, lackey, din, binary, champsim or pinatrace" -- "$tlbsim" run --trace-format pin "$demo"
check 2 "expected at least one TRACE" -- "$tlbsim" run
check 1 "--preset: no preset named 'nope'" -- "$tlbsim" run --preset nope "$demo"
check 1 "--set:1: unknown key 'entriez' in [tlb.l1d]" -- "$tlbsim" run --set tlb.l1d.entriez=4 "$demo"
check 1 "--set:2: tlb.l1d.entries: 'abc' is not a whole number" -- \
  "$tlbsim" run --set tlb.l1d.ways=4 --set tlb.l1d.entries=abc "$demo"
check 1 "--set:3: tlb.l1d.bank_bits: 5 bank bits do not fit the 16 sets' index" -- \
  "$tlbsim" run --set tlb.l1d.ways=4 --set tlb.l1d.index=xor --set tlb.l1d.bank_bits=5 "$demo"
check 1 "--set:1: 'tlb.l1d.entries': expected SECTION.KEY=VALUE" -- "$tlbsim" run --set tlb.l1d.entries "$demo"
check 1 "$work/typo.ini:5: unknown key 'wayz' in [tlb.l1d]" -- "$tlbsim" run --config "$work/typo.ini" "$demo"
# --config with --preset lays the file over the preset (a machine file): its errors name its lines
check 1 "$work/typo.ini:5: unknown key 'wayz' in [tlb.l1d]" -- "$tlbsim" run --preset x86-64 --config "$work/typo.ini" "$demo"
check 1 "$work/bad.trace:2:" -- "$tlbsim" run "$work/bad.trace"
check 1 "$work/missing.trace" -- "$tlbsim" run "$work/missing.trace"
check 1 "$work/cut.gz" -- "$tlbsim" run "$work/cut.gz"
check 1 "$work/empty.trace: an empty trace (no records)" -- "$tlbsim" run "$work/empty.trace"
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
check 2 "--steps: '0' is out of range (1.." -- "$tlbsim" chase --stride 4K --footprint 1M --steps 0
check 2 "--per-octave: '0' is out of range (1..64)" -- "$tlbsim" chase --stride 4K --footprint 1M --per-octave 0
check 2 "--per-octave: 'x' is not a whole number" -- "$tlbsim" chase --stride 4K --footprint 1M --per-octave x
check 2 "--max-mean-error: 'nan' is not a number" -- "$tlbsim" validate --max-mean-error nan "$work/short.csv"
check 2 "--max-mean-error: 'inf' is out of range (0..1.79769e+308)" -- "$tlbsim" validate --max-mean-error inf "$work/short.csv"
check 2 "--steps: '99999999999999999999' is out of range (1.." -- "$tlbsim" chase --stride 4K --footprint 1M --steps 99999999999999999999
check 1 "--set:1: vas.cuda_small_max: '1Q' is not a size" -- "$tlbsim" run --set vas.cuda_small_max=1Q "$demo"
check 0 "" -- "$tlbsim" run --set vas.policy=cuda --set vas.cuda_small_max=1M "$demo"
check 1 "--set:1: pwc.PD.entries: '4294967296' is out of range (0..16777216)" -- \
  "$tlbsim" run --set pwc.PD.entries=4294967296 "$demo"
check 1 "--set:1: tlb.l1d.latency: '4294967297' is out of range (0..4294967295)" -- \
  "$tlbsim" run --set tlb.l1d.latency=4294967297 "$demo"
check 1 "--set:1: latency.data_cycles: '4294967296' is out of range (0..4294967295)" -- \
  "$tlbsim" run --set latency.data_cycles=4294967296 "$demo"
check 1 "--set:1: tlb.l1d.ways: '0' is out of range (1..64)" -- "$tlbsim" run --set tlb.l1d.ways=0 "$demo"
check 1 "--set:1: tlb.l1d.entries: entries/ways = 3 sets" -- "$tlbsim" run --set tlb.l1d.entries=12 "$demo"
check 1 "--set:1: machine.phys_memory: '512T' is out of range (4KiB..256TiB)" -- \
  "$tlbsim" run --set machine.phys_memory=512T "$demo"
check 1 "$work/cutrow.csv:2: 7 fields, the header has 8" -- "$tlbsim" validate "$work/cutrow.csv"
check 2 "--order: 'sideways' is not a comma-separated list of seq or random" -- "$tlbsim" validate --order sideways "$work/short.csv"
check 2 "--min-nodes: 'x' is not a whole number" -- "$tlbsim" validate --min-nodes x "$work/short.csv"
check 2 "--mapping: 'sideways' is not a comma-separated list of contiguous" -- "$tlbsim" calibrate --mapping sideways "$work/short.csv"
check 1 "$work/short.csv:1: missing column 'page_bytes'" -- "$tlbsim" calibrate --preset x86-64 "$work/short.csv"
check 1 "$work/short.csv:1: missing column 'page_bytes'" -- "$tlbsim" validate --preset x86-64 "$work/short.csv"
check 1 "$work/badrow.csv:2: cycles_per_access 'abc' is not a number" -- \
  "$tlbsim" validate --preset x86-64 "$work/badrow.csv"

# Issue #13: bounded work per record, no wrap in sizes, ranges everywhere,
# every error located. Each of these hung, crashed or answered wrongly.
printf ' L 0,100000000000000\n' >"$work/huge.lackey"
check 1 "$work/huge.lackey:1: access of 0+0x5af3107a4000 touches 24414062500 pages, more than the 16777216" -- \
  timeout 20 "$tlbsim" run --trace-format lackey "$work/huge.lackey"
printf 'r 0 8\nmap 0x0 0x800000000000\n' >"$work/hugemap.trace"
check 1 "$work/hugemap.trace:2: map of 0+0x800000000000 is 34359738368 pages" -- timeout 20 "$tlbsim" run "$work/hugemap.trace"
printf 'r 0x7ffffffff000 0x2000\n' >"$work/wide.trace"
check 1 "$work/wide.trace:1: access 0x7ffffffff000+0x2000 runs past the 48-bit address space" -- "$tlbsim" run "$work/wide.trace"
printf 'alloc 1 18446744073709551000\nalloc 2 1M\nfree 1\nfree 2\n' >"$work/bigalloc.trace"
for p in first-fit next-fit best-fit buddy cuda caching expandable; do
  check 0 "" -- "$tlbsim" alloc --policy "$p" --format csv "$work/bigalloc.trace"
  if [ "$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "ooms") c = i} NR == 2 {print $c}' "$work/out")" = 1 ]; then
    ok
  else
    bad "alloc --policy $p: a 2^64-byte request is not one OOM"; cat "$work/out"
  fi
done
check 2 "--synthetic: requests: '18446744073709551615' is out of range (0..100000000)" -- \
  timeout 20 "$tlbsim" alloc --synthetic=requests=18446744073709551615
printf 'Thread,Time,Action,Pointer,Size,Stream\n0,1e300,allocate,0x10,100,0\n' >"$work/t300.csv"
check 1 "$work/t300.csv:2: Time: '1e300' is out of range (0..1.8e+13)" -- "$tlbsim" alloc --input-format rmm "$work/t300.csv"
printf '{"device_traces":[[{"action":"alloc","addr":16,"size":99999999999999999999999}]]}' >"$work/clamp.json"
check 1 "$work/clamp.json: device_traces[0][0]: size: '18446744073709551615 or more' is out of range" -- \
  "$tlbsim" alloc "$work/clamp.json"
{ for i in 1 2 3 4 5 6 7 8; do printf '[tlb.l%d]\nentries = 16777216\nnext = %s\n' $i "$([ $i = 8 ] && echo walk || echo l$((i + 1)))"; done; } >"$work/huge.ini"
check 1 "$work/huge.ini:5: tlb.l2.entries: brings the TLB arrays and caches to 33554432 entries in all" -- \
  timeout 20 "$tlbsim" run --config "$work/huge.ini" "$demo"
printf '[tlb.l1d]\nentries = 16\nnext = l2\n[tlb.l2]\nentries = 16\nnext = l1d\n' >"$work/cycle.ini"
check 1 "$work/cycle.ini:6: tlb.l2.next: 'l1d' closes a cycle of next links" -- "$tlbsim" run --config "$work/cycle.ini" "$demo"
printf '[tlb.l1d]\nentries = 16\n[tlb.]\nentries = 4\n' >"$work/noname.ini"
check 1 "$work/noname.ini:3: [tlb.]: a level name is 1 to 31 characters" -- "$tlbsim" run --config "$work/noname.ini" "$demo"
{ for i in 1 2 3 4 5 6 7 8 9; do printf '[tlb.l%d]\nentries = 4\n' $i; done; } >"$work/nine.ini"
check 1 "$work/nine.ini:17: [tlb.l9]: more than 8 TLB levels" -- "$tlbsim" run --config "$work/nine.ini" "$demo"
printf '[tlb.l1d]\nentries = 16\n[ptcache]\nentries = 12\nways = 5\n' >"$work/ptcache.ini"
check 1 "$work/ptcache.ini:5: ptcache.ways: ways (5) does not divide entries (12)" -- \
  "$tlbsim" run --config "$work/ptcache.ini" "$demo"
printf '[tlb.l1d]\nentries = 16\x00junk\n' >"$work/nul.ini"
check 1 "$work/nul.ini:2: a NUL byte in the line" -- "$tlbsim" run --config "$work/nul.ini" "$demo"
# Outputs appear whole or not at all, and never over an input.
printf 'kept\n' >"$work/timeline.csv"
printf 'alloc 1 4K\nfree 9\n' >"$work/badfree.trace"
check 1 "$work/badfree.trace:2: free of allocation 9" -- "$tlbsim" alloc --timeline "$work/timeline.csv" "$work/badfree.trace"
if [ "$(cat "$work/timeline.csv")" = kept ] && ! ls "$work"/.timeline.csv.* >/dev/null 2>&1; then
  ok
else
  bad "a failed alloc replaced $work/timeline.csv or left its temporary"
fi
check 0 "" -- "$tlbsim" alloc --timeline "$work/timeline.csv" --emit-rmm "$work/emit.csv" "$work/bigalloc.trace"
if head -1 "$work/timeline.csv" | grep -q '^event,' && head -1 "$work/emit.csv" | grep -q '^Thread,'; then
  ok
else
  bad "alloc did not write its timeline and RMM log"
fi
cp "$work/bigalloc.trace" "$work/input.trace"
check 1 "$work/input.trace: is also an input: not overwritten" -- \
  "$tlbsim" alloc --emit-rmm "$work/input.trace" "$work/input.trace"
check 1 "$work/nodir/t.csv: cannot write" -- "$tlbsim" alloc --timeline "$work/nodir/t.csv" "$work/bigalloc.trace"
# calibrate writes only what a configuration reads back.
{ head -1 "$src/gpu/results/h200/chase.csv"
  sed -n 2,6p "$src/gpu/results/h200/chase.csv" | awk -F, 'BEGIN {OFS = ","} {$8 = 1e11; print}'; } >"$work/slow.csv"
check 1 "$work/fit.ini: latency.data_cycles: the fit gives 1e+11 cycles, out of range (0..4294967295)" -- \
  "$tlbsim" calibrate --data-latency preset --out "$work/fit.ini" "$work/slow.csv"
# A NUL byte ended a CSV field silently: "100\0junk" was 100.
printf '%s\n' 'pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access' >"$work/nul.csv"
printf 'chase,seq,contiguous,2097152,2097152,16777216,4096,100\0junk\n' >>"$work/nul.csv"
check 1 "$work/nul.csv:2: a NUL byte in the line" -- "$tlbsim" validate --preset x86-64 "$work/nul.csv"
# Chase work is bounded per point, on the command line and in a CSV row.
check 2 "--footprint 1MiB, --stride 4KiB: warmup 1024, 5 repeats of 4294967295 steps: more than the 1073741824 loads" -- \
  timeout 20 "$tlbsim" chase --stride 4K --footprint 1M --steps 4294967295
check 2 "--footprint 128GiB, --stride 4KiB: the region maps 33554432 pages, more than the 16777216 a point may" -- \
  timeout 20 "$tlbsim" chase --preset x86-64 --stride 4K --footprint 128G --page-size 4K
check 2 "--footprint: 128GiB holds more nodes than a point may have" -- timeout 20 "$tlbsim" chase --stride 8 --footprint 128G
printf '%s\n' 'pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access,warmup' \
  'chase,seq,contiguous,2097152,2097152,16777216,4096,100,18446744073709551615' >"$work/warm.csv"
check 1 "$work/warm.csv:2: chase: warmup 18446744073709551615, 1 repeats of 4096 steps: more than the" -- \
  timeout 20 "$tlbsim" validate --preset x86-64 "$work/warm.csv"
printf '%s\n' 'pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access' \
  'chase,seq,contiguous,2097152,2097152,16777216,18446744073709551616,100' >"$work/steps.csv"
check 1 "$work/steps.csv:2: steps: '18446744073709551616' is out of range (0..18446744073709551615)" -- \
  "$tlbsim" validate --preset x86-64 "$work/steps.csv"
printf '%s\n' 'pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access,nodes' \
  'chase,seq,contiguous,4096,9223372036854775808,0,16,100,4' >"$work/wrap.csv"
check 1 "$work/wrap.csv:2: chase: 4 nodes at a 9223372036854775808-byte stride run past the top of memory" -- \
  "$tlbsim" validate --preset x86-64 "$work/wrap.csv"
# Stream and latency-chase rows (validate_kmicro.c): bounded work, the suite's load, numbers.
stream_head=pattern,kind,size_bytes,footprint_bytes,bytes_per_launch,passes,gbps,gbps_min,gbps_max,ns_per_launch,repeats,blocks,block_threads,load,va_base,device
printf '%s\n' "$stream_head" 'stream,read,1048576,1048576,268435456,4294967295,1747,1703,1752,153632,5,1056,512,cg,0x7f1edc000000,H200' \
  >"$work/spass.csv"
check 1 "$work/spass.csv:2: 1056 blocks of 512 threads, 4294967295 passes: more than the 16777216 warp passes" -- \
  timeout 20 "$tlbsim" validate "$work/spass.csv"
printf '%s\n' "$stream_head" 'stream,read,1048576,1048576,268435456,256,fast,1703,1752,153632,5,1056,512,cg,0x7f1edc000000,H200' \
  >"$work/sgbps.csv"
check 1 "$work/sgbps.csv:2: gbps 'fast' is not positive" -- "$tlbsim" validate "$work/sgbps.csv"
chase_head=pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access,load,repeats,seed,nodes,warmup,lanes,va_base
printf '%s\n' "$chase_head" 'dram-chase,random,cudamalloc,2097152,128,33554432,8192,688.8,ca,7,1,65536,1024,1,0x7f3f96000000' \
  >"$work/dca.csv"
check 1 "$work/dca.csv:2: load 'ca': the kernels are ld.global.cg (load cg)" -- "$tlbsim" validate "$work/dca.csv"
printf '%s\n' "$chase_head" 'dram-chase,random,cudamalloc,2097152,128,33554432,4294967295,688.8,cg,7,1,65536,1024,1,0x7f3f96000000' \
  >"$work/dsteps.csv"
check 1 "$work/dsteps.csv:2: 65536 nodes, warmup 1024, 7 repeats of 4294967295 steps: more than the 2097152 loads" -- \
  timeout 20 "$tlbsim" validate "$work/dsteps.csv"

# Issue #26: hostile input, round 3. Each of these was refused with the wrong
# reason, answered wrongly or exited 0.
# Several traces: the 64-trace limit named; stdin read only once.
many=(); for i in $(seq 65); do many+=("$demo"); done
check 2 "65 TRACE arguments: at most 64" -- "$tlbsim" run "${many[@]}"
check 2 "TRACE 1 and 2 are both '-': stdin can be read only once" -- "$tlbsim" run - -
check 2 "TRACE 2 and 3 are both '-': stdin can be read only once" -- "$tlbsim" sweep --vary tlb.l1d.entries=16 "$demo" - -
check 2 "expected IN and OUT" -- "$tlbsim" convert "$demo"
# gather --from-alloc with nothing alive: an error, not an empty qsort(NULL) (UBSan).
printf 'alloc 1 4K\nfree 1\n' >"$work/dead.trace"
for c in churned fresh pool; do
  check 1 "$work/dead.trace: no allocation is alive at the end of the trace" -- \
    "$tlbsim" gather --preset h200 --from-alloc "$work/dead.trace" --case "$c"
done
# alloc: --map=EVENT past the last event, and a snapshot's device size that is none.
printf 'alloc 1 4K\nalloc 2 4K\nfree 1\n' >"$work/three.trace"
check 1 "$work/three.trace: --map=9: the trace has no event 9 (its last is 3)" -- "$tlbsim" alloc --map=9 "$work/three.trace"
check 0 "" -- "$tlbsim" alloc --map=2 "$work/three.trace"
for v in -5 '"80G"' 0 1.5e10; do
  printf '{"device_traces":[[{"action":"alloc","addr":16,"size":100}]],"capture":{"device_total_memory":%s}}' "$v" \
    >"$work/dev.json"
  check 1 "$work/dev.json: capture.device_total_memory: $v is not a size of device memory" -- "$tlbsim" alloc "$work/dev.json"
done
# Page-table formats with wide levels: 24 index bits a level (128 MiB of
# simulated table a node) cost host memory by the entries used, and a host
# allocation that fails is an error at the record, never a simulated fault.
printf '[machine]\nformat = wide\n[format.wide]\nva_bits = 60\nlevels = L0:36:24:8,L1:12:24:8\nleaves = 4K@L1\n[tlb.l1d]\nentries = 64\nways = 4\n' >"$work/wide.ini"
awk 'BEGIN { x = 12345; for (i = 0; i < 300; i++) { x = (x * 1103515245 + 12345) % 2147483648
  printf "r 0x%x%07x000\n", x % 65536, (x * 7) % 268435456 } }' >"$work/scattered.trace"
check 0 "" -- timeout 20 "$tlbsim" run --config "$work/wide.ini" --format csv "$work/scattered.trace"
[ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c["page_faults"], $c["faults"] }' \
  "$work/out")" = "300 0" ] && ok || bad "wide format: not 300 page faults"
# One wide table's entries outgrow the host: under ASan (which cannot run with ulimit -v) any
# allocation above 1 MiB fails, the 16384-cell table of 6000 pages; else a 40 MB address space
# fails the 2^18-cell table of 200000 pages.
asan=$(ldd "$tlbsim" 2>/dev/null | grep -c libasan)
awk -v n=$([ "$asan" = 0 ] && echo 200000 || echo 6000) 'BEGIN { for (i = 0; i < n; i++) printf "r 0x%x\n", i * 4096 }' \
  >"$work/seq.trace"
if [ "$asan" != 0 ]; then
  ASAN_OPTIONS=max_allocation_size_mb=1:allocator_may_return_null=1 "$tlbsim" run --config "$work/wide.ini" \
    "$work/seq.trace" >/dev/null 2>"$work/err"
else
  (ulimit -v 40000 && exec "$tlbsim" run --config "$work/wide.ini" "$work/seq.trace") >/dev/null 2>"$work/err"
fi
rc=$?
if [ $rc = 1 ] && [ "$(grep -v '^==' "$work/err" | grep -c .)" = 1 ] &&
   grep -q "^$work/seq.trace:[0-9]*: access 0x[0-9a-f]*: out of host memory for the page tables and frames it needs$" "$work/err"; then
  ok
else
  bad "host memory running out is not one error (exit $rc):"; grep -v '^==' "$work/err" | head -3
fi
for cmd in run explain chase validate calibrate formats alloc; do
  check 0 "" -- "$tlbsim" "$cmd" --help
done
# stdin works and gives the same answer as the file.
a=$("$tlbsim" run --format csv "$demo")
b=$("$tlbsim" run --format csv - <"$demo" | sed 's/<stdin>/'"$(printf '%s' "$demo" | sed 's/[\/&]/\\&/g')"'/')
if [ "$a" = "$b" ]; then ok; else bad "stdin replay differs"; fi

finish cli_errors
