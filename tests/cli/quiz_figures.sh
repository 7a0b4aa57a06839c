#!/usr/bin/env bash
# scripts/figures.sh renders every figure to PNG and SVG from the tools' CSV;
# the page-table bytes it collects for teaching16 are known by hand (a 16 x
# 2 B root = 32 B, each 16 x 2 B L2 table 32 B more: one 256 B page 64 B,
# 64 KiB of them 32 + 16 x 32 = 544 B; 4 KiB pages are L1 leaves: 32 B), and
# the teaching chase curve steps at the TLB reaches (quiz_chase.sh).
# Usage: quiz_figures.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
need gnuplot jq

"$src/scripts/figures.sh" "$work/f" "$tlbsim" >/dev/null
for name in chase_cost_teaching chase_cost_x86-64 chase_cost_h200 mrc alloc_memory alloc_frag alloc_map pt_bytes; do
  for ext in png svg; do
    [ -s "$work/f/$name.$ext" ] || fail "no $name.$ext"
    ok
  done
done
head -c 8 "$work/f/pt_bytes.png" | od -An -tx1 | grep -q '89 50 4e 47' || fail "pt_bytes.png is no PNG"
grep -q '<svg' "$work/f/pt_bytes.svg" || fail "pt_bytes.svg is no SVG"
ok
rows=$(grep '^teaching16,' "$work/f/csv/pt_bytes.csv" | tr '\n' ' ')
[ "$rows" = "teaching16,256,256,64 teaching16,256,1024,64 teaching16,256,4096,64 teaching16,256,16384,160 \
teaching16,256,65536,544 teaching16,4096,4096,32 teaching16,4096,16384,32 teaching16,4096,65536,32 " ] || fail "teaching rows: $rows"
ok
got=$(awk -F, '$2 == "seq" { printf "%s:%s ", $6, $8 }' "$work/f/csv/chase_teaching.csv")
[ "$got" = "256:1.0 512:1.0 1024:1.0 2048:1.0 4096:3.0 8192:3.0 16384:23.0 32768:23.0 65536:23.0 " ] || fail "teaching chase: $got"
ok
finish quiz_figures
