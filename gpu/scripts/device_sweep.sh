#!/bin/bash
# Builds tlbsim-gpu on the GPU machine with plain nvcc (gpu/src and the
# sources of the base module, read from sim/src/base/base.cmake) and runs one
# mode, writing into $OUT:
#   smoke      a few points of every experiment + the 128 GiB allocation
#   full       the committed chase sweep (tlbsim-gpu full) into $OUT
#   chase      one extra chase sweep: the remaining arguments go to tlbsim-gpu chase,
#              the CSV to $OUT/$CSV (default chase_more.csv)
#   new-smoke  a few points of gather, chasers, smallbufs, churn-gather (and the SASS
#              of the gather kernel), into $OUT/new_smoke.tgz
#   gather     the committed gather sweeps only, into $OUT/gather.tgz
#   all-new    the committed many-thread sweeps (gather*, chasers, chase_64k, smallbufs,
#              churn-gather on traces/churn/*), into $OUT/all_new.tgz
# The device tool returns at most 8 files, so the new modes pack their CSVs
# and logs into one archive (plus the log beside it).
# Usage: gpu/scripts/device_sweep.sh MODE [time limit in s, default 540] [chase options]
set -euo pipefail
mode=${1:-smoke}
limit=${2:-540}
shift $(($# < 2 ? $# : 2))
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/out}
mkdir -p "$out"
cd "$root"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cc=$(command -v gcc || command -v cc)
bld=$(mktemp -d)
deadline=$(($(date +%s) + limit))

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.free,clocks.sm,clocks.max.sm,clocks.mem,pstate,temperature.gpu,power.draw --format=csv
  nvidia-smi --query-gpu=uuid,serial,pci.bus_id --format=csv
  "$nvcc" --version | tail -2
  nvidia-smi
} >"$out/env.txt" 2>&1 || true

# The base module's sources as CMake lists them, wherever its .cmake file
# lives under sim/src: tlbsim_module(base SOURCES a.c b.c DEPS m)
base_cmake=
for f in sim/src/*.cmake sim/src/*/*.cmake; do
  if [ -f "$f" ] && grep -q 'tlbsim_module(base[[:space:]]' "$f"; then
    base_cmake=$f
    break
  fi
done
[ -n "$base_cmake" ] || { echo "device_sweep: no tlbsim_module(base ...) under sim/src" >&2; exit 1; }
base_srcs=$(sed -n 's/.*tlbsim_module(base[[:space:]]*SOURCES[[:space:]]*\([^)]*\)).*/\1/p' "$base_cmake" |
  sed 's/[[:space:]]DEPS[[:space:]].*//')
[ -n "$base_srcs" ] || { echo "device_sweep: no SOURCES in $base_cmake" >&2; exit 1; }

t0=$(date +%s)
for f in $(printf "$(dirname "$base_cmake")/%s " $base_srcs) gpu/src/gpu_*.c; do
  "$cc" -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Isim/include -Igpu/src \
    -c "$f" -o "$bld/$(basename "$f" .c).o" &
done
for f in gpu/src/*.cu; do
  "$nvcc" -O2 -std=c++17 -gencode arch=compute_90,code='[sm_90,compute_90]' -Werror all-warnings \
    -Isim/include -Igpu/src -c "$f" -o "$bld/$(basename "$f" .cu).cu.o" &
done
fail=0
for job in $(jobs -p); do wait "$job" || fail=1; done
[ "$fail" = 0 ] || { echo "device_sweep: build failed" >&2; exit 1; }
"$nvcc" -arch=sm_90 "$bld"/*.o -o "$bld/tlbsim-gpu" -lm
echo "build: $(($(date +%s) - t0)) s" >&2
gpu="$bld/tlbsim-gpu"
res="$bld/res"
mkdir -p "$res"
cp "$out/env.txt" "$res/"

# run NAME SECONDS COMMAND...: one command with its own time limit (cut to
# what is left of the mode's limit), its stderr to NAME.log; a failure is
# logged and the next command runs.
run() {
  local name=$1 secs=$2
  shift 2
  local s=$(date +%s) rc=0
  local left=$((deadline - s - 15))
  [ "$secs" -le "$left" ] || secs=$left
  if [ "$secs" -le 0 ]; then
    echo "$name: skipped, no time left" | tee -a "$res/commands.txt"
    return 0
  fi
  timeout "$secs" "$gpu" "$@" 2>"$res/$name.log" || rc=$?
  echo "$name: rc=$rc, $(($(date +%s) - s)) s: tlbsim-gpu $*" | tee -a "$res/commands.txt"
  tail -3 "$res/$name.log"
}

# The committed traces, unpacked (the reader takes plain text).
unpack_traces() {
  for t in traces/churn/*.trace.gz; do gzip -dc "$t" >"$bld/$(basename "$t" .gz)"; done
}

pack() {
  tar czf "$out/$1" -C "$res" .
  cp "$res/commands.txt" "$out/commands.txt" 2>/dev/null || true
  ls -la "$res"
}

# The gather kernel's machine code, and how many loads it keeps in flight
# (gather_inflight.txt: "8" per group when a group's 8 loads are all issued
# before the first is used). With GATE=1 a kernel that waits earlier stops
# the mode before any measurement.
sass() {
  cuobjdump --dump-sass "$bld/gpu_gather.cu.o" >"$res/gather_sass.txt" 2>&1 || true
  python3 gpu/scripts/sass_inflight.py gather_kernel <"$res/gather_sass.txt" >"$res/gather_inflight.txt" || true
  cat "$res/gather_inflight.txt"
  if [ "${GATE:-0}" = 1 ] && ! grep -q 'gather_kernelILb0ELb0E.*: 8$' "$res/gather_inflight.txt"; then
    echo "device_sweep: the gather kernel does not keep 8 loads in flight; stopping" >&2
    pack gate_failed.tgz
    exit 3
  fi
}


gather_sweeps() {
  run gather 200 gather --mapping contiguous,shuffled,cudamalloc --fmin 256M --fmax 128G --per-octave 4 \
    --threads-per-sm 32,64,128,256,512,1024,2048 --out "$res/gather.csv"
  run gather_aliased 120 gather --mapping aliased --fmin 128G --fmax 4T --per-octave 1 \
    --threads-per-sm 32,128,512,2048 --out "$res/gather_aliased.csv"
  run gather_managed 60 gather --mapping managed --fmin 256M --fmax 16G --per-octave 1 \
    --threads-per-sm 128,2048 --out "$res/gather_managed.csv"
  run gather_sms 90 gather --mapping cudamalloc --footprint 256M,8G,32G,64G,96G,128G --threads-per-sm 32,256,2048 \
    --sm-sets 0/0,1/0,1,48,49,128,129/0,22,44,66,88,110/0-65/all --out "$res/gather_sms.csv"
  run gather_locality 60 gather --mapping cudamalloc --footprint 256M,4G,16G,32G,64G,96G,128G \
    --nodes 4096,16384,65536,262144 --threads-per-sm 256,2048 --out "$res/gather_locality.csv"
  for k in 64 1024; do
    run "gather_loads$k" 40 gather --mapping cudamalloc --footprint 256M,32G,96G,128G --threads-per-sm 32,256,2048 \
      --loads-per-thread $k --out "$res/gather_loads$k.csv"
  done
  # Which SMs share SM 0's second TLB level on this machine (gather_sms.csv's
  # group 0,1,48,49,128,129 was found on another).
  run share 60 share --footprint 32G --order random --out "$res/share_32g.csv"
}

case "$mode" in
smoke)
  "$gpu" --help | head -3
  timeout "$limit" "$gpu" --smoke >"$out/smoke.csv" 2>"$out/smoke.log" || echo "smoke rc=$?" >>"$out/smoke.log"
  # The biggest allocation (65536 shuffled 2 MiB chunks) and the largest points.
  timeout "$limit" "$gpu" chase --mapping shuffled,contiguous --stride 2M,1G --footprint 32M,1G,128G \
    >"$out/big.csv" 2>>"$out/smoke.log" || echo "big rc=$?" >>"$out/smoke.log"
  cat "$out/smoke.log"
  grep -h '^chase' "$out/smoke.csv" "$out/big.csv" | cut -d, -f2-8,14,16 | head -120
  ;;
chase)
  csv=${CSV:-chase_more.csv}
  timeout "$limit" "$gpu" chase "$@" --out "$out/$csv" 2>"$out/${csv%.csv}.log" ||
    echo "chase rc=$?" >>"$out/${csv%.csv}.log"
  tail -20 "$out/${csv%.csv}.log"
  ;;
full)
  # A few points through every code path first: stop here if they fail.
  if ! "$gpu" chase --mapping shuffled,aliased --stride 2M --footprint 4M,256M --repeats 2 >"$bld/pre.csv" \
    2>"$out/full.log"; then
    cat "$out/full.log"
    exit 1
  fi
  cat "$bld/pre.csv"
  timeout "$limit" "$gpu" full --outdir "$out" 2>>"$out/full.log" || echo "full rc=$?" >>"$out/full.log"
  tail -40 "$out/full.log"
  ;;
new-smoke)
  sass
  run g_smoke 60 gather --mapping cudamalloc,aliased --footprint 256M,32G,128G,256G --nodes 65536 \
    --threads-per-sm 32,2048 --sm-sets grid/0,1/all --out "$res/gather.csv"
  run g_managed 60 gather --mapping managed --footprint 256M,4G --threads-per-sm 2048 --out "$res/gather_managed.csv"
  run c_smoke 60 chasers --mapping cudamalloc --footprint 512M,96G --sm-sets 0/0-65/all --per-sm 1,32 \
    --steps 2048 --out "$res/chasers.csv"
  run s_smoke 60 smallbufs --sizes 64K,1536K --buffers 2000 --threads-per-sm 2048 --layout "$res/layout_smallbufs.csv" \
    --out "$res/smallbufs.csv"
  run m_smoke 60 chase --mapping managed --stride 256K,2M --fmin 1M --fmax 4G --per-octave 1 --steps 2048 \
    --repeats 3 --out "$res/chase_64k.csv"
  unpack_traces
  run cg_below 90 churn-gather "$bld/churn_below.trace" --threads-per-sm 2048 --layout "$res/layout_below.csv" \
    --out "$res/churn_below.csv"
  printf 'alloc 1 64K\nfree 2\n' >"$bld/bad.trace"
  run cg_bad 10 churn-gather "$bld/bad.trace" --out "$res/bad.csv"
  pack new_smoke.tgz
  ;;
gather)
  gather_sweeps
  pack gather.tgz
  ;;
all-new)
  sass
  unpack_traces
  gather_sweeps
  run chasers 90 chasers --mapping cudamalloc --stride 2M --footprint 512M,32G,96G,128G --order random \
    --sm-sets 0/0,1/0,1,48,49,128,129/0,22,44,66,88,110/0-15/0-65/all --per-sm 1,4,16,32 --steps 4096 \
    --out "$res/chasers.csv"
  # Managed memory populated sparsely keeps 64 KiB pages: strides from large
  # to small, so each stride's nodes are a superset of the last one's and the
  # region is as dense as the stride being measured (64K: every page).
  run chase_64k 90 chase --mapping managed --stride 4M,2M,1M,512K,256K,128K,64K --fmin 1M --fmax 16G \
    --per-octave 4 --steps 4096 --repeats 3 --out "$res/chase_64k.csv"
  run smallbufs 90 smallbufs --sizes 4K,64K,256K,1M,1536K,2M --buffers 20000 --threads-per-sm 256,2048 \
    --layout "$res/layout_smallbufs.csv" --out "$res/smallbufs.csv"
  for t in below near above; do
    run "churn_$t" 90 churn-gather "$bld/churn_$t.trace" --threads-per-sm 256,2048 \
      --layout "$res/layout_$t.csv" --out "$res/churn_$t.csv"
  done
  pack all_new.tgz
  ;;
*)
  echo "usage: $0 smoke|full|chase|new-smoke|gather|all-new [limit_s]" >&2
  exit 2
  ;;
esac
