# standalone.sh — sourced by the scripts that build and run one standalone
# probe (stream/stream_pass.sh, l2part/l2_part.sh, latprobe/lat_probe.sh) on
# the GPU machine: where they write ($OUT, else out/ at the root), the flags
# tlbsim-gpu builds with, and the machine's record every result directory
# carries (env.txt).
#   standalone_build SRC EXE  nvcc SRC (-I gpu/src: gpu_kern.cuh, and the
#                             scripts' own standalone.cuh) into $bld/EXE
#   standalone_env            the compiler and the GPU's clocks into $out/env.txt
# shellcheck shell=bash
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$root/out}
mkdir -p "$out"
bld=$(mktemp -d)
standalone_flags=(-O2 -std=c++17 -gencode 'arch=compute_90,code=[sm_90,compute_90]')

standalone_build() {
  nvcc "${standalone_flags[@]}" -I"$root/gpu/src" -I"$root/gpu/scripts" -o "$bld/$2" "$1"
}

standalone_env() {
  {
    nvcc --version | tail -2
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  } >"$out/env.txt" 2>&1
}
