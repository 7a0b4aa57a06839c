# Memory each allocator holds against what the program asks, one panel per
# policy: how much more than the live requests does each keep mapped?
# Input: the CSV `tlbsim alloc --timeline FILE.csv` writes.
#
#   gnuplot -e "csv='timeline.csv'; policies='first-fit cuda caching'; name='the synthetic workload'" plots/alloc_memory.gp
#
# Variables: csv (required), policies (required: the --policy names, in any
# order), name (the workload, for the title; default the CSV's name), out
# (default alloc_memory.png; .svg writes SVG), bins (stretches of events
# the x axis is cut into, default 300), recorded (1: also the trace's own
# recorded.reserved_bytes, snapshots have it).
# A workload's requests come and go from one event to the next (a temporary
# buffer each), faster than a pixel; so each stretch of events is drawn as
# the range it spans: the live requests the policy served (grey band) and
# what it held mapped (red band; a line where it stays put, as a pool does).
if (!exists("csv") || !exists("policies")) {
  print "usage: gnuplot -e \"csv='FILE.csv'; policies='P1 P2'\" plots/alloc_memory.gp"
  exit status 2
}
if (!exists("out")) out = "alloc_memory.png"
if (!exists("recorded")) recorded = 0
if (!exists("name")) name = csv
if (!exists("bins")) bins = 300
n = words(policies)
rows = real(system(sprintf("awk 'END {print NR - 1}' '%s'", csv)))
per = rows > bins ? int(ceil(rows / bins)) : 1

# Per stretch of `per` rows: event, then min and max of each column named.
ranges(cols) = sprintf("< awk -F, -v want='%s' -v per=%d 'NR == 1 {n = split(want, w, \" \"); for (i = 1; i <= NF; i++) c[$i] = i; next} \
  {k = (NR - 2) %% per; if (!k) x = $1; for (j = 1; j <= n; j++) {v = $c[w[j]]; if (!k || v < lo[j]) lo[j] = v; if (!k || v > hi[j]) hi[j] = v} \
   if (k == per - 1) {s = x; for (j = 1; j <= n; j++) s = s \" \" lo[j] \" \" hi[j]; print s}}' '%s'", cols, per, csv)

if (strstrt(out, ".svg") > 0) {
  set terminal svg size 1100, 120 + 230 * n font ",11"
} else {
  set terminal pngcairo size 1100, 120 + 230 * n font ",11"
}
set output out
set grid
set ylabel "MiB"
set yrange [0:*]
set key outside right top
set lmargin 10
set rmargin 26
set style fill transparent solid 0.45 noborder
MiB = 1048576.0

set multiplot layout n, 1 title sprintf("Memory held against memory asked: %s", name) noenhanced
do for [i = 1:n] {
  p = word(policies, i)
  cols = p . ".requested_bytes " . p . ".reserved_bytes" . (recorded ? " recorded.reserved_bytes" : "")
  stats ranges(cols) using ($3 / MiB) name "asked" nooutput
  stats ranges(cols) using ($5 / MiB) name "held" nooutput
  set title sprintf("%s: live requests at most %.0f MiB, mapped at most %.0f MiB", p, asked_max, held_max) noenhanced
  if (i < n) { set format x ""; unset xlabel } else { set format x "%g"; set xlabel sprintf("event (each band: the range over %d events)", per) }
  if (recorded) {
    plot ranges(cols) using 1:($2 / MiB):($3 / MiB) with filledcurves lc rgb "#909090" title "live requests", \
         '' using 1:($4 / MiB):($5 / MiB) with filledcurves lc rgb "#d62728" title "reserved (mapped)", \
         '' using 1:($5 / MiB) with lines lw 1.5 lc rgb "#d62728" notitle, \
         '' using 1:($7 / MiB) with lines lw 1.5 dt 2 lc rgb "black" title "recorded reserved"
  } else {
    plot ranges(cols) using 1:($2 / MiB):($3 / MiB) with filledcurves lc rgb "#909090" title "live requests", \
         '' using 1:($4 / MiB):($5 / MiB) with filledcurves lc rgb "#d62728" title "reserved (mapped)", \
         '' using 1:($5 / MiB) with lines lw 1.5 lc rgb "#d62728" notitle
  }
}
unset multiplot
