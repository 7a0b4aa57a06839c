#!/bin/sh
# infer.sh — the inference-loop runs behind tlbsim alloc's driver-time check
# (gpu/results/h200/capture/infer/): infer.py with the caching allocator and
# with PYTORCH_NO_CUDA_MEMORY_CACHING=1, uncaptured three times each,
# alternating (the measured wall times), then once each under
# libtlbsim-capture (the traces tlbsim alloc predicts from). Run from a
# directory holding libtlbsim-capture.so (and lib/libisal.so.2 where the
# machine lacks it) and infer.py; writes everything to $1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv > "$out/gpu.csv"
for i in 1 2 3; do
  python3 "$here/infer.py" "$out/caching_$i"
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 python3 "$here/infer.py" "$out/nocache_$i"
done
rm -f "$out/caching.trace" "$out/nocache.trace"
CUDA_INJECTION64_PATH="$here/libtlbsim-capture.so" TLBSIM_CAPTURE="$out/caching.trace" \
  python3 "$here/infer.py" "$out/caching_cap" 2> "$out/caching.stderr"
PYTORCH_NO_CUDA_MEMORY_CACHING=1 CUDA_INJECTION64_PATH="$here/libtlbsim-capture.so" \
  TLBSIM_CAPTURE="$out/nocache.trace" python3 "$here/infer.py" "$out/nocache_cap" 2> "$out/nocache.stderr"
wc -l "$out"/*.trace
