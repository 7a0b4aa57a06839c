# External fragmentation over time, one line per policy: 1 - largest free
# extent / total free, where an extent is a piece of free memory one request
# could use whole (docs/ALLOC.md). Input: `tlbsim alloc --timeline FILE.csv`.
#
#   gnuplot -e "csv='timeline.csv'; policies='first-fit cuda caching'" plots/alloc_frag.gp
#
# Variables: csv, policies (required), out (default alloc_frag.png), xcol
# ('event' or 'time_us'), title. OOMs are marked with a cross where the
# policy's OOM count rises.
if (!exists("csv") || !exists("policies")) {
  print "usage: gnuplot -e \"csv='FILE.csv'; policies='P1 P2'\" plots/alloc_frag.gp"
  exit status 2
}
if (!exists("out")) out = "alloc_frag.png"
if (!exists("xcol")) xcol = "event"
if (!exists("title")) title = "External fragmentation (x: an OOM)"

# a name ending in .svg writes SVG, any other PNG
if (strstrt(out, ".svg") > 0) {
  set terminal svg size 1100,600 font ",11"
} else {
  set terminal pngcairo size 1100,600 font ",11"
}
set output out
set datafile separator ","
set title title
set xlabel (xcol eq "time_us" ? "time (s)" : "event")
set ylabel "1 - largest free extent / free"
set yrange [0:1]
set key outside right top
set grid
xs(c) = (xcol eq "time_us" ? column(c) / 1e6 : column(c))
# An OOM shows where the cumulative count steps up from the row before.
array last[words(policies)]
do for [i = 1:words(policies)] { last[i] = 0 }
oom(i) = (n = column(word(policies, i) . ".ooms"), step = (n > last[i]), last[i] = n, \
          step ? column(word(policies, i) . ".external_fragmentation") : NaN)

plot \
  for [i = 1:words(policies)] csv using (xs(xcol)):(column(word(policies, i) . ".external_fragmentation")) \
      with lines lw 1.5 lc i title word(policies, i), \
  for [i = 1:words(policies)] csv using (xs(xcol)):(oom(i)) with points pt 2 ps 1.5 lc i notitle
