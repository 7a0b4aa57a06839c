#!/bin/sh
# The embed kernels' SASS table is what it claims to be: sim/src/exp/gpu_embed_sass.c is what
# gpu/scripts/embed_sass.py makes of the committed cuobjdump listing (gpu/src/gpu_embed.sass,
# .res) — the script also runs the kernels' address arithmetic against the model and refuses
# a table that differs — and, where nvcc is given, the listing is the machine code nvcc builds
# from this tree's gpu_embed.cu (so a kernel change without a new listing fails here).
# Exit 77 (skipped) without python3.
# usage: gpu_embed_sass.sh SOURCE_DIR [NVCC]
src=$1
nvcc=$2
command -v python3 >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
work=gpu_embed_sass_tmp
mkdir -p "$work"
origin=$(sed -n 's/^const char gpu_embed_sass_origin\[\] = "\(.*\)";$/\1/p' "$src/sim/src/exp/gpu_embed_sass.c")
python3 "$src/gpu/scripts/embed_sass.py" "$src/gpu/src/gpu_embed.sass" "$src/gpu/src/gpu_embed.res" "$origin" \
  >"$work/table.c" || exit 1
cmp "$work/table.c" "$src/sim/src/exp/gpu_embed_sass.c" || { echo "FAIL: gpu_embed_sass.c is not the listing's table"; exit 1; }
if [ -n "$nvcc" ]; then
  "$nvcc" -O2 -std=c++17 -arch=sm_90 -I"$src/sim/include" -I"$src/gpu/src" -cubin "$src/gpu/src/gpu_embed.cu" \
    -o "$work/embed.cubin" || exit 1
  python3 "$src/gpu/scripts/embed_sass.py" --encodings "$src/gpu/src/gpu_embed.sass" "$work/embed.cubin" || exit 1
fi
rm -rf "$work"
echo "1 passed, 0 failed"
