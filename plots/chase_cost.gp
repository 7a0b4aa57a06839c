# Cycles per access against pages touched (OSTEP ch. 19's curve): the
# pointer chase of `tlbsim chase` over growing footprints, one line per
# order. The steps are where the footprint outgrows each TLB level's reach.
#
#   tlbsim chase --preset teaching --footprint 256..64K --stride 256 --order seq > c.csv
#   gnuplot -e "csv='c.csv'; name='teaching'; out='chase_cost.png'" plots/chase_cost.gp
#
# Variables: csv (required; the chase CSV, one or both orders), name (the
# preset, for the title), out (default chase_cost.png; .svg writes SVG).
# Columns by name: order, page_bytes, footprint_bytes, cycles_per_access.
if (!exists("csv")) {
  print "usage: gnuplot -e \"csv='FILE.csv'; name='PRESET'\" plots/chase_cost.gp"
  exit status 2
}
if (!exists("out")) out = "chase_cost.png"
if (!exists("name")) name = csv
if (strstrt(out, ".svg") > 0) {
  set terminal svg size 900,560 font ",11"
} else {
  set terminal pngcairo size 900,560 font ",11"
}
set output out
set datafile separator ","
set title sprintf("Cost of an access against pages touched (tlbsim chase, preset %s)", name) noenhanced
set xlabel "pages touched (footprint / page size, log scale)"
set ylabel "cycles per access"
set logscale x 2
set grid
set key top left
set style data linespoints
pages(o) = strcol("order") eq o ? column("footprint_bytes") / column("page_bytes") : NaN
plot csv using (pages("seq")):"cycles_per_access" lw 2 pt 7 lc rgb "#1f5fa8" title "sequential order", \
     csv using (pages("random")):"cycles_per_access" lw 2 pt 5 lc rgb "#d62728" title "random order"
