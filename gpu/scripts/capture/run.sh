#!/bin/sh
# run.sh — the H200 captures of gpu/results/h200/capture/ (gpu/README.md,
# "Capturing a program"). Run from a directory holding libtlbsim-capture.so
# (and its libisal.so.2 where the machine lacks it), train.py, async.cu and
# cupy_loop.py; writes everything to $1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
lib="$here/libtlbsim-capture.so"
cap() { # cap NAME COMMAND...: the command under the capture, its stderr kept
  name=$1; shift
  rm -f "$out/$name.trace"
  t=$(date +%s%N)
  env CUDA_INJECTION64_PATH="$lib" TLBSIM_CAPTURE="$out/$name.trace" "$@" > "$out/$name.stdout" 2> "$out/$name.stderr"
  rc=$?
  echo "$name: rc $rc, $(wc -l < "$out/$name.trace" 2>/dev/null) lines, $(( ($(date +%s%N) - t) / 1000000 )) ms"
}
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv > "$out/gpu.csv"
nvcc -arch=sm_90 -o "$here/async" "$here/async.cu" -lcuda && cap async "$here/async"
cap torch_caching python3 "$here/train.py" "$out/torch_caching" --snapshot
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True cap torch_expandable python3 "$here/train.py" "$out/torch_expandable" --snapshot
PYTORCH_NO_CUDA_MEMORY_CACHING=1 cap torch_nocache python3 "$here/train.py" "$out/torch_nocache" --steps 12
python3 -c "import cupy" 2>/dev/null && cap cupy "$(command -v python3)" "$here/cupy_loop.py"
# an error stops the capture, not the program: a trace that exists already
echo keep > "$out/exists.trace"
CUDA_INJECTION64_PATH="$lib" TLBSIM_CAPTURE="$out/exists.trace" "$here/async" > /dev/null 2> "$out/exists.stderr"
echo "exists: rc $?, $(cat "$out/exists.trace"), stderr: $(cat "$out/exists.stderr")"
[ "${OVERHEAD:-1}" = 1 ] || exit 0
# overhead: the same training run, 60 steps, uncaptured and captured, alternating
for i in 1 2 3; do
  python3 "$here/train.py" "$out/ovh_plain_$i" --steps 60
  rm -f "$out/ovh_cap_$i.trace"
  CUDA_INJECTION64_PATH="$lib" TLBSIM_CAPTURE="$out/ovh_cap_$i.trace" python3 "$here/train.py" "$out/ovh_cap_$i" --steps 60 2> "$out/ovh_cap_$i.stderr"
done
# the same with kernels left out of the capture (TLBSIM_CAPTURE_KERNELS=0)
for i in 1 2 3; do
  rm -f "$out/ovh_nok_$i.trace"
  TLBSIM_CAPTURE_KERNELS=0 CUDA_INJECTION64_PATH="$lib" TLBSIM_CAPTURE="$out/ovh_nok_$i.trace" python3 "$here/train.py" "$out/ovh_nok_$i" --steps 60 2> "$out/ovh_nok_$i.stderr"
done
rm -f "$out"/ovh_*.trace
