#!/bin/sh
# The chapter's scenario end to end: an operator allocating and freeing
# temporaries of 2 MiB..256 MiB per request while small outputs (4..256 KiB)
# live for 256 requests, on a 640 MiB device. Prints the comparison and
# writes the timeline, the workload as an RMM log, and two figures.
#
#   traces/gen/oom_demo.sh [TLBSIM] [OUTDIR]     (defaults: build/sim/tlbsim, oom_demo/)
#
# Everything is seeded: the numbers are the ones docs/ALLOC.md quotes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tlbsim=${1:-$root/build/sim/tlbsim}
out=${2:-oom_demo}
mkdir -p "$out"
policies="first-fit best-fit buddy cuda caching expandable"
set --
for p in $policies; do set -- "$@" --policy "$p"; done

# 1000 requests: the table. Generic heaps map 64 KiB pages (the GPU's small page).
"$tlbsim" alloc --synthetic --capacity 640M --set vas.page_size=64K "$@" --emit-rmm "$out/operator.csv"
# 150 requests: a timeline short enough to read.
"$tlbsim" alloc --synthetic=requests=150 --capacity 640M --set vas.page_size=64K "$@" \
  --timeline "$out/timeline.csv" --format csv >"$out/summary_150.csv"
if command -v gnuplot >/dev/null; then
  gnuplot -e "csv='$out/timeline.csv'; policies='first-fit cuda caching expandable'; name='the synthetic workload (requests=150) on 640 MiB'; out='$out/alloc_memory.png'" \
    "$root/plots/alloc_memory.gp"
  gnuplot -e "csv='$out/timeline.csv'; policies='first-fit cuda caching expandable'; name='the synthetic workload (requests=150) on 640 MiB'; out='$out/alloc_frag.png'" \
    "$root/plots/alloc_frag.gp"
  echo "figures: $out/alloc_memory.png $out/alloc_frag.png"
fi
