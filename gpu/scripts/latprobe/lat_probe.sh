#!/bin/bash
# Runs lat_probe.cu on the GPU machine (gpu/results/h200/lat_probe/): builds it,
# records the machine and the probe's SASS, gzip'd (to check what each chain compiled
# to), and writes its rows into $OUT.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${OUT:-$root/out}
mkdir -p "$out"
bld=$(mktemp -d)
nvcc -O2 -std=c++17 -gencode 'arch=compute_90,code=[sm_90,compute_90]' -I"$root/gpu/src" -o "$bld/lat_probe" \
  "$root/gpu/scripts/latprobe/lat_probe.cu"
{
  nvcc --version | tail -2
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
} >"$out/env.txt" 2>&1
cuobjdump -sass "$bld/lat_probe" | gzip -9 >"$out/lat_probe.sass.gz"
"$bld/lat_probe" >"$out/lat_probe.csv"
