#!/bin/sh
# million.sh OUT — million.cu uncaptured and captured: peak resident memory, wall time, the
# trace's records by kind (gpu/results/h200/capture/million.txt).
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
nvcc -arch=sm_90 -o "$here/million" "$here/million.cu" || exit 1
t=$(date +%s%N); "$here/million"; echo "uncaptured: $(( ($(date +%s%N) - t) / 1000000 )) ms"
rm -f "$out/million.trace"
t=$(date +%s%N)
CUDA_INJECTION64_PATH="$here/libtlbsim-capture.so" TLBSIM_CAPTURE="$out/million.trace" "$here/million"
echo "captured: $(( ($(date +%s%N) - t) / 1000000 )) ms, $(wc -c < "$out/million.trace") bytes"
awk '{print $1}' "$out/million.trace" | sort | uniq -c
tail -n 2 "$out/million.trace"
rm -f "$out/million.trace"
