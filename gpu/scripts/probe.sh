#!/bin/bash
# The probe: the few one-thread chase points that measure what differs from one
# H200 to the next (gpu/README.md, "The probe"): the third TLB level's hit
# latency (+100 cycles over an L1 hit on some machines, +157 on others) and
# what a walk past the third level's 256 GiB costs. Aliased 32 MiB strides, both
# orders, at 128 GiB (every load an L2 miss that hits the third level), 256 GiB
# (its capacity) and 512 GiB ... 2 TiB (every load walks): 10 points, a few
# seconds of device time. Then, on any machine with tlbsim:
#   tlbsim calibrate --fit tlb.l3.latency,latency.walk_cycles,latency.walk_ref_cycles \
#     --machine-file my-h200.ini probe.csv
#   tlbsim validate --preset h200 --config my-h200.ini ...      # the preset with that machine's keys
# Usage, on the GPU machine from the repository root (OUT: where probe.csv,
# probe.log and env.txt go; default ./out):
#   gpu/scripts/probe.sh [TIME_LIMIT_S]     (default 120)
#   gpu/scripts/probe.sh --args             print the tlbsim-gpu chase options and exit
# tests/cli/machine_file.sh reads --args to pick the same points out of committed sweeps.
set -euo pipefail
args=(--mapping aliased --stride 32M --order seq,random --footprint 128G,256G,512G,1T,2T)
if [ "${1:-}" = --args ]; then
  echo "${args[*]}"
  exit 0
fi
CSV=probe.csv exec bash "$(dirname "$0")/device_sweep.sh" chase "${1:-120}" "${args[@]}"
