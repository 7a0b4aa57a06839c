#!/bin/bash
# Runs lat_probe.cu on the GPU machine (gpu/results/h200/lat_probe/): builds it,
# records the machine and the probe's SASS, gzip'd (to check what each chain compiled
# to), and writes its rows into $OUT.
# shellcheck source=gpu/scripts/standalone.sh
source "$(dirname "$0")/../standalone.sh"
standalone_build "$root/gpu/scripts/latprobe/lat_probe.cu" lat_probe
standalone_env
cuobjdump -sass "$bld/lat_probe" | gzip -9 >"$out/lat_probe.sass.gz"
"$bld/lat_probe" >"$out/lat_probe.csv"
