# External fragmentation over time, one panel per policy, with its OOMs:
# does a policy fail while memory looks free? Fragmentation is 1 - largest
# free extent / total free, where an extent is a piece of free memory one
# request could use whole (docs/ALLOC.md); 0 when nothing is free. Input:
# `tlbsim alloc --timeline FILE.csv`, under memory pressure (--capacity: with
# memory to spare every policy stays near 0).
#
#   gnuplot -e "csv='timeline.csv'; policies='first-fit cuda caching'; name='...'" plots/alloc_frag.gp
#
# Variables: csv, policies (required), name (the workload, for the title;
# default the CSV's name), out (default alloc_frag.png; .svg writes SVG),
# bins (stretches of events the x axis is cut into, default 300).
# Fragmentation changes with every request, faster than a pixel: each
# stretch of events is drawn as the range it spans (a band), and a cross
# marks a stretch in which the policy's OOM count rose, at the most
# fragmented it was then.
if (!exists("csv") || !exists("policies")) {
  print "usage: gnuplot -e \"csv='FILE.csv'; policies='P1 P2'\" plots/alloc_frag.gp"
  exit status 2
}
if (!exists("out")) out = "alloc_frag.png"
if (!exists("name")) name = csv
if (!exists("bins")) bins = 300
n = words(policies)
rows = real(system(sprintf("awk 'END {print NR - 1}' '%s'", csv)))
per = rows > bins ? int(ceil(rows / bins)) : 1

# Per stretch of `per` rows of policy p: event, least and most fragmentation,
# and the OOMs that came in it.
ranges(p) = sprintf("< awk -F, -v f='%s.external_fragmentation' -v o='%s.ooms' -v per=%d 'NR == 1 {for (i = 1; i <= NF; i++) {if ($i == f) fc = i; if ($i == o) oc = i}; next} \
  {k = (NR - 2) %% per; v = $fc; if (!k) {x = $1; lo = v; hi = v; before = last} if (v < lo) lo = v; if (v > hi) hi = v; last = $oc; \
   if (k == per - 1) print x, lo, hi, last - before}' '%s'", p, p, per, csv)

if (strstrt(out, ".svg") > 0) {
  set terminal svg size 1100, 120 + 200 * n font ",11"
} else {
  set terminal pngcairo size 1100, 120 + 200 * n font ",11"
}
set output out
set grid
set yrange [0:1]
set ytics 0.25
set ylabel "fragmentation"
set key outside right top
set lmargin 10
set rmargin 26
set style fill transparent solid 0.5 noborder

set multiplot layout n, 1 title sprintf("External fragmentation and out-of-memory failures: %s", name) noenhanced
do for [i = 1:n] {
  p = word(policies, i)
  stats ranges(p) using 4 name "ooms" nooutput
  stats ranges(p) using 3 name "frag" nooutput
  set title sprintf("%s: %d OOMs, fragmentation at most %.2f", p, ooms_sum, frag_max) noenhanced
  if (i < n) { set format x ""; unset xlabel } else { set format x "%g"; set xlabel sprintf("event (each band: the range over %d events)", per) }
  plot ranges(p) using 1:2:3 with filledcurves lc rgb "#1f5fa8" title "fragmentation", \
       '' using 1:($4 > 0 ? $3 : NaN) with points pt 2 ps 1.6 lw 2 lc rgb "#d62728" title "OOMs"
}
unset multiplot
