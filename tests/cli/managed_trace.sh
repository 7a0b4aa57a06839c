#!/usr/bin/env bash
# traces/managed/managed.trace replayed by `tlbsim run --preset h200` (the
# tutorial's step 7): each phase's counts checked by the mechanism behind
# them, with the costs read from sim/presets/h200.ini, not pinned. Then bad
# managed-memory records: exit 1 and one FILE:LINE line each.
# Usage: managed_trace.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
tlbsim=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tlbsim" run --preset h200 --format json "$src/traces/managed/managed.trace" >"$work/run.json"
python3 - "$work/run.json" "$src/sim/presets/h200.ini" <<'PY'
import configparser, json, sys

doc = json.load(open(sys.argv[1]))
ini = configparser.ConfigParser(inline_comment_prefixes=(";",))
ini.read(sys.argv[2])
u = {k: float(v) for k, v in ini["uvm"].items() if k not in ("va_block", "big_page", "va_base", "va_size")}
sector = int(ini["tlb.l1d"]["sector"])
MIB, PAGE, BLOCK = 1 << 20, 64 << 10, 2 << 20
buf = 16 * MIB
phase = {p["label"]: p for p in doc["phases"]}
fails = []


def check(what, got, want, tol=0):
    if abs(got - want) > tol:
        fails.append(f"{what}: {got}, expected {want}")


# cudaMalloc: mapped at once, no fault in any phase
for name in ("malloc_cold", "malloc_warm"):
    check(name + " faults", phase[name]["uvm"]["faults"], 0)
# Host-written, read in page order: the prefetch tree (threshold 51 %) brings a subtree once more than
# half of it is present, so pages 0, 1, 2, 4, 8 and 16 of each 2 MiB block fault and the rest come along
t = u["prefetch_threshold"]
pages = BLOCK // PAGE
resident, faults_per_block = set(), 0
for page in range(pages):
    if page in resident:
        continue
    faults_per_block += 1
    resident.add(page)
    best, size = None, 2  # the largest aligned subtree round the page more than t % present comes too
    while size <= pages:
        lo = page // size * size
        if 100 * len(resident & set(range(lo, lo + size))) > t * size:
            best = range(lo, lo + size)
        size *= 2
    resident |= set(best or ())
hc = phase["host_cold"]["uvm"]
check("host_cold faults", hc["faults"], faults_per_block * buf // BLOCK)
check("host_cold faults (6 a block)", faults_per_block, 6)
check("host_cold migrated", hc["to_gpu_bytes"], buf)
check("host_cold populated", hc["populated_bytes"], 0)
check("host_cold batches (one kernel, under fault_batch faults)", hc["batches"], 1)
want_ns = hc["faults"] * u["migrate_fault_us"] * 1e3 + buf / u["migrate_gbps"]
check("host_cold fault_ns", hc["fault_ns"], want_ns, 1)
check("host_warm faults", phase["host_warm"]["uvm"]["faults"], 0)
# each fault was a first-level miss and two walks (one found nothing, one after the fault)
check("host_cold l1d misses", phase["host_cold"]["misses"]["l1d"], hc["faults"])
check("host_cold walks", phase["host_cold"]["walks"], 2 * hc["faults"])
# prefetched: the bytes at prefetch_gbps, the kernel after it faults not at all
pf = phase["prefetch"]["uvm"]
check("prefetched bytes", pf["prefetched_bytes"], buf)
check("prefetch_ns", pf["prefetch_ns"], u["prefetch_us"] * 1e3 + buf / u["prefetch_gbps"], 1)
check("prefetch_cold faults", phase["prefetch_cold"]["uvm"]["faults"], 0)
# GPU first touch of every other 64 KiB page: each faults alone and is zero-filled
sc = phase["sparse_cold"]["uvm"]
check("sparse_cold faults", sc["faults"], buf // PAGE // 2)
check("sparse_cold populated", sc["populated_bytes"], buf // 2)
check("sparse_cold fault_ns", sc["fault_ns"], sc["faults"] * u["fault_us"] * 1e3 + buf / 2 / u["populate_gbps"], 1)
# warm: wholly resident blocks are 2 MiB pages (no first-level miss); the sparse ones 64 KiB pages, an l1d
# entry a sector of `sector` pages holding sector/2 of them: 32 sectors through 16 entries, each missed once
for name in ("malloc_warm", "host_warm", "prefetch_warm"):
    check(name + " l1d misses", phase[name]["misses"]["l1d"], 0)
check("sparse_warm l1d misses", phase["sparse_warm"]["misses"]["l1d"], buf // (PAGE * sector))
check("sparse_warm l2 misses", phase["sparse_warm"]["misses"]["l2"], 0)
check("total faults", doc["uvm"]["faults"], hc["faults"] + sc["faults"])
if fails:
    print("\n".join("FAIL: " + f for f in fails))
    sys.exit(1)
print("managed.trace: every phase as its mechanism says")
PY

# the binary form (tlbsim convert) replays to the same report, trace names aside
"$tlbsim" convert --to binary "$src/traces/managed/managed.trace" "$work/managed.bin" 2>/dev/null
"$tlbsim" run --preset h200 --format csv "$work/managed.bin" | cut -d, -f5- >"$work/bin.csv"
"$tlbsim" run --preset h200 --format csv "$src/traces/managed/managed.trace" | cut -d, -f5- >"$work/text.csv"
cmp -s "$work/bin.csv" "$work/text.csv" || { echo "FAIL: the binary form replays differently"; exit 1; }
grep -q uvm.faults "$work/text.csv" || { echo "FAIL: no uvm.faults column"; exit 1; }

# bad records: exit 1, one line naming the file and line
bad() {
  printf '#tlbsim-trace 1\n%s\n' "$1" >"$work/bad.trace"
  set +e
  out=$("$tlbsim" run --preset h200 "$work/bad.trace" 2>&1 >/dev/null)
  rc=$?
  set -e
  if [ "$rc" != 1 ] || [ "$(wc -l <<<"$out")" != 1 ] || [[ "$out" != "$work/bad.trace:$2: $3"* ]]; then
    echo "FAIL: rc $rc for '$1': $out"
    exit 1
  fi
}
bad $'alloc 1 2M kind=managed va=0x7f3000000000\nfree 1\nprefetch 0x7f3000000000 2M to=gpu' 4 \
  "prefetch of 0x7f3000000000+0x200000: 0x7f3000000000 is not managed memory"
bad $'alloc 1 2M\nprefetch 0x7fff8fe00000 2M to=gpu' 3 "prefetch of 0x7fff8fe00000+0x200000: 0x7fff8fe00000 is not"
bad $'alloc 1 4K kind=host va=0x7f4000000000\nadvise 0x7f4000000000 4K advice=preferred_gpu' 3 \
  "advise of 0x7f4000000000+0x1000: 0x7f4000000000 is not managed memory"
bad 'alloc 1 0xffffffffffe00000 kind=managed' 2 "managed alloc of 18446744073707454464 bytes is larger than"
bad $'alloc 1 2M kind=managed va=0x7f3000000000\nprefetch 0x7f3000000000 0xffffffffffffffff to=gpu' 3 ""
bad $'alloc 1 2M\nw @1+0 8 side=host' 3 "host access to "
echo "bad managed-memory records: each one FILE:LINE line, exit 1"
