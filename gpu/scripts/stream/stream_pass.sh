#!/bin/bash
# Runs stream_pass.cu on the GPU machine (gpu/results/h200/stream_pass/):
# builds it, dumps the machine code of it and of gpu/src/gpu_stream.cu (the
# committed stream kernel, compiled alone with tlbsim-gpu's flags), runs
# the per-configuration table and the 1 MiB launch's warps into $OUT.
# shellcheck source=gpu/scripts/standalone.sh
source "$(dirname "$0")/../standalone.sh"
standalone_build "$root/gpu/scripts/stream/stream_pass.cu" stream_pass
nvcc "${standalone_flags[@]}" -Werror all-warnings -I"$root/sim/include" -I"$root/gpu/src" -c "$root/gpu/src/gpu_stream.cu" \
  -o "$bld/gpu_stream.cu.o"
standalone_env
cuobjdump -sass "$bld/gpu_stream.cu.o" >"$out/gpu_stream.sass"
cuobjdump -res-usage "$bld/gpu_stream.cu.o" >"$out/gpu_stream.res" 2>&1
cuobjdump -sass "$bld/stream_pass" >"$out/stream_pass.sass"
"$bld/stream_pass" >"$out/stream_pass.csv"
"$bld/stream_pass" warps 1048576 | gzip -9n >"$out/warps_1m.csv.gz"
cat "$out/stream_pass.csv"
