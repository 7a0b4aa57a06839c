# The address space of each policy at one event (first OOM by default): used
# and free extents as bars along the window, the request that failed drawn
# above its policy's row at the length it asked for.
# Input: the CSV `tlbsim alloc --map-csv FILE.csv` writes
# (policy,row,event,kind,offset_bytes,size_bytes,id).
#
#   tlbsim alloc --capacity 64K --policy first-fit --policy best-fit --policy buddy --map-csv map.csv TRACE
#   gnuplot -e "csv='map.csv'; out='alloc_map.png'" plots/alloc_map.gp
#
# Variables: csv (required), out (default alloc_map.png; a name ending in
# .svg writes SVG), title.
if (!exists("csv")) {
  print "usage: gnuplot -e \"csv='FILE.csv'\" plots/alloc_map.gp"
  exit status 2
}
if (!exists("out")) out = "alloc_map.png"
if (!exists("title")) title = "Address space at the first OOM: used and free extents, the failed request above"
if (strstrt(out, ".svg") > 0) {
  set terminal svg size 1100,420 font ",11"
} else {
  set terminal pngcairo size 1100,420 font ",11"
}
set output out
set datafile separator ","
set title title
set xlabel "offset in the policy's window (KiB)"
set ylabel "policy"
set key outside right top
set grid x
set style fill solid 0.9 border rgb "black"
KiB = 1024.0
rows = system(sprintf("awk -F, 'NR > 1 {print $2}' '%s' | sort -n | tail -1", csv)) + 0
set yrange [-0.6:rows + 0.8]
lo(kind) = strcol(4) eq kind ? column(5) / KiB : NaN
hi(kind) = strcol(4) eq kind ? (column(5) + column(6)) / KiB : NaN
mid(kind) = strcol(4) eq kind ? (column(5) + column(6) / 2) / KiB : NaN
plot csv using (mid("used")):2:(lo("used")):(hi("used")):($2 - 0.3):($2 + 0.3):ytic(1) \
       with boxxyerror lc rgb "#1f5fa8" title "used (a live block as the policy sized it)", \
     csv using (mid("free")):2:(lo("free")):(hi("free")):($2 - 0.3):($2 + 0.3) \
       with boxxyerror lc rgb "#d9d9d9" title "free extent", \
     csv using (mid("failed")):($2 + 0.5):(lo("failed")):(hi("failed")):($2 + 0.38):($2 + 0.62) \
       with boxxyerror lc rgb "#d62728" title "failed request (its size)"
