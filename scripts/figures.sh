#!/usr/bin/env bash
# Renders every figure of the simulator's tools to PNG and SVG, from the CSV
# the tools write (kept beside them under csv/):
#   chase_cost_PRESET   cycles per access against pages touched (OSTEP ch. 19),
#                       tlbsim chase, for every preset (teaching included)
#   mrc                 miss ratio against TLB entries, tlbsim mrc of a generated trace
#   alloc_memory        memory each allocator holds against the live requests,
#                       tlbsim alloc --synthetic --capacity 640M --timeline
#   alloc_frag          external fragmentation and OOMs over time, the same timeline
#   alloc_map           the address space at the first OOM, tlbsim alloc --map-csv
#   pt_bytes            page-table bytes against footprint per format and page size,
#                       tlbsim run of map traces
# Needs gnuplot (Debian: gnuplot-nox) and the built tlbsim.
# Usage: scripts/figures.sh [OUTDIR [TLBSIM]]   (defaults: figures, build/sim/tlbsim)
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-figures}
tlbsim=${2:-$src/build/sim/tlbsim}
[ -x "$tlbsim" ] || { echo "figures.sh: no tlbsim at $tlbsim (build first, or pass its path)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "figures.sh: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 2; }
mkdir -p "$out/csv"
csv=$out/csv

# gnuplot SCRIPT NAME VARS: NAME.png and NAME.svg from plots/SCRIPT.gp.
render() {
  local script=$1 name=$2 vars=$3 ext
  for ext in png svg; do
    gnuplot -e "$vars; out='$out/$name.$ext'" "$src/plots/$script.gp"
  done
  echo "$out/$name.png $out/$name.svg"
}

# The chase curve: from one page to past the last TLB level's reach, both orders.
chase() {
  local preset=$1 page=$2 footprints=$3
  {
    "$tlbsim" chase --preset "$preset" --footprint "$footprints" --stride "$page" --order seq
    "$tlbsim" chase --preset "$preset" --footprint "$footprints" --stride "$page" --order random | tail -n +2
  } >"$csv/chase_$preset.csv"
  render chase_cost "chase_cost_$preset" "csv='$csv/chase_$preset.csv'; name='$preset'"
}
chase teaching 256 256..64K
chase x86-64 4K 4K..256M
chase h200 2M 2M..64G

# Miss-ratio curves of a loop over 96 pages with random touches of 1024 more (4 KiB pages).
awk 'BEGIN { srand(1); for (i = 0; i < 20000; i++) {
  if (i % 4) printf "r 0x%x\n", (i % 96) * 4096; else printf "r 0x%x\n", (96 + int(rand() * 1024)) * 4096 } }' \
  >"$csv/mrc.trace"
"$tlbsim" mrc --page-size 4K "$csv/mrc.trace" >"$csv/mrc.csv"
render mrc mrc "file='$csv/mrc.csv'; page=4096; name='a 96-page loop with random touches'"

# Allocators over the chapter's scenario: the synthetic operator workload on a
# 640 MiB device (README, "Allocation"), where memory runs short.
"$tlbsim" alloc --synthetic --capacity 640M --set vas.page_size=64K --policy first-fit,cuda,caching \
  --timeline "$csv/alloc_timeline.csv" >/dev/null
workload="the synthetic operator workload (7000 requests) on a 640 MiB device"
render alloc_memory alloc_memory "csv='$csv/alloc_timeline.csv'; policies='first-fit cuda caching'; name='$workload'"
render alloc_frag alloc_frag "csv='$csv/alloc_timeline.csv'; policies='first-fit cuda caching'; name='$workload'"

# The map at the first OOM: 64 KiB, a half freed in holes, then larger requests.
printf 'alloc 1 4K\nalloc 2 4K\nalloc 3 4K\nalloc 4 12K\nalloc 5 4K\nalloc 6 4K\nalloc 7 4K\nalloc 8 8K\nalloc 9 4K
free 1\nfree 2\nfree 3\nfree 5\nfree 8\nfree 9\nalloc 10 20K\nalloc 11 20K\nalloc 12 8K\n' >"$csv/alloc_map.trace"
"$tlbsim" alloc --capacity 64K --policy first-fit --policy best-fit --policy buddy \
  --map-csv "$csv/alloc_map.csv" "$csv/alloc_map.trace" >/dev/null
render alloc_map alloc_map "csv='$csv/alloc_map.csv'"

# Page-table bytes: one map record per footprint, per preset's format and page size.
{
  echo "format,page_bytes,footprint_bytes,page_table_bytes"
  while read -r preset base largest pages; do
    for page in $pages; do
      foot=$page
      while [ "$foot" -le "$largest" ]; do
        printf 'map %s %s page=%s\n' "$base" "$foot" "$page" >"$csv/pt.trace"
        "$tlbsim" run --preset "$preset" --format json "$csv/pt.trace" |
          jq -r --arg p "$page" --arg f "$foot" '[.page_table_format, $p, $f, .page_table_bytes] | join(",")'
        foot=$((foot * 4))
      done
    done
  done <<'P'
teaching 0 65536 256 4096
x86-64 0x40000000 4294967296 4096 2097152
h200 0x40000000 17179869184 4096 65536 2097152
P
} >"$csv/pt_bytes.csv"
render pt_bytes pt_bytes "csv='$csv/pt_bytes.csv'"
