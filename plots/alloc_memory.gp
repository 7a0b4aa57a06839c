# Reserved (mapped) and allocated memory over time, one colour per policy.
# Input: the CSV that `tlbsim alloc --timeline FILE.csv` writes.
#
#   gnuplot -e "csv='timeline.csv'; policies='cuda caching expandable'" plots/alloc_memory.gp
#
# Variables: csv (required), policies (required: the --policy names, in any
# order), out (default alloc_memory.png), xcol (column for the x axis: 'event',
# the default, or 'time_us'), recorded (1: also draw the trace's own
# recorded.reserved_bytes; snapshots have it), title.
if (!exists("csv") || !exists("policies")) {
  print "usage: gnuplot -e \"csv='FILE.csv'; policies='P1 P2'\" plots/alloc_memory.gp"
  exit status 2
}
if (!exists("out")) out = "alloc_memory.png"
if (!exists("xcol")) xcol = "event"
if (!exists("recorded")) recorded = 0
if (!exists("title")) title = "Reserved (solid) and allocated (dashed) memory"

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
set ylabel "MiB"
set key outside right top
set grid
MiB = 1048576.0
xs(c) = (xcol eq "time_us" ? column(c) / 1e6 : column(c))

cmd = sprintf("plot csv using (xs(xcol)):(column(\"%s.requested_bytes\") / MiB) with lines lw 1 lc rgb \"black\" title \"live requests (%s)\"", word(policies, 1), word(policies, 1))
do for [i = 1:words(policies)] {
  p = word(policies, i)
  cmd = cmd . sprintf(", csv using (xs(xcol)):(column(\"%s.reserved_bytes\") / MiB) with lines lw 2 lc %d title \"%s reserved\"", p, i, p)
  cmd = cmd . sprintf(", csv using (xs(xcol)):(column(\"%s.allocated_bytes\") / MiB) with lines lw 1 dt 2 lc %d title \"%s allocated\"", p, i, p)
}
if (recorded) {
  cmd = cmd . ", csv using (xs(xcol)):(column(\"recorded.reserved_bytes\") / MiB) with lines lw 2 dt 3 lc rgb \"gray40\" title \"recorded reserved\""
}
eval cmd
