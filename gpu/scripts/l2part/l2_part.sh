#!/bin/bash
# Runs l2_part.cu on the GPU machine (gpu/results/h200/l2_part/): builds it,
# records the machine, and writes the pairs for a 16 MiB buffer (half the
# partition's near copies: every line fits) and an 8 MiB one into $OUT; then
# the 16 MiB pairs and a 48 MiB buffer (more than a partition's copies hold)
# with each load's latency binned.
# shellcheck source=gpu/scripts/standalone.sh
source "$(dirname "$0")/../standalone.sh"
standalone_build "$root/gpu/scripts/l2part/l2_part.cu" l2_part
standalone_env
cuobjdump -sass "$bld/l2_part" >"$out/l2_part.sass"
"$bld/l2_part" 16 >"$out/l2_part_16m.csv"
"$bld/l2_part" 8 >"$out/l2_part_8m.csv"
"$bld/l2_part" 16 hist >"$out/l2_part_16m_hist.csv"
"$bld/l2_part" 48 hist >"$out/l2_part_48m_hist.csv"
