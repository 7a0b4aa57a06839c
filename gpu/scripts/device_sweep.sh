#!/bin/bash
# Builds tlbsim-gpu on the GPU machine with plain nvcc (only gpu/ and the
# three sim/src files it needs) and runs one mode, writing into $OUT:
#   smoke  a few points of every experiment + the 128 GiB allocation
#   full   the committed sweep (tlbsim-gpu full) into $OUT
#   chase  one extra chase sweep: the remaining arguments go to tlbsim-gpu chase,
#          the CSV to $OUT/$CSV (default chase_more.csv)
# Usage: gpu/scripts/device_sweep.sh smoke|full|chase [time limit in s, default 540] [chase options]
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

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.free,clocks.sm,clocks.max.sm,clocks.mem,pstate,temperature.gpu,power.draw --format=csv
  "$nvcc" --version | tail -2
  nvidia-smi
} >"$out/env.txt" 2>&1 || true

t0=$(date +%s)
for f in sim/src/base/diag.c sim/src/base/num.c sim/src/base/rng.c gpu/src/gpu_*.c; do
  "$cc" -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Isim/include -Igpu/src \
    -c "$f" -o "$bld/$(basename "$f" .c).o" &
done
for f in gpu/src/*.cu; do
  "$nvcc" -O2 -std=c++17 -gencode arch=compute_90,code='[sm_90,compute_90]' -Werror all-warnings \
    -Isim/include -Igpu/src -c "$f" -o "$bld/$(basename "$f" .cu).cu.o" &
done
wait
"$nvcc" -arch=sm_90 "$bld"/*.o -o "$bld/tlbsim-gpu" -lm
echo "build: $(($(date +%s) - t0)) s" >&2
gpu="$bld/tlbsim-gpu"

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
*)
  echo "usage: $0 smoke|full [limit_s]" >&2
  exit 2
  ;;
esac
