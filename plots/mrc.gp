# plots/mrc.gp — LRU miss ratio against TLB entries, from the CSV `tlbsim mrc`
# writes: the fully associative curve and one curve per associativity, for
# one page size.
#   tlbsim mrc --page-size 4K,2M TRACE > mrc.csv
#   gnuplot -e "file='mrc.csv'; page=4096; out='mrc_4k.png'" plots/mrc.gp
# Variables: file (the CSV), page (page_bytes of the rows to plot, default
# 4096), out (the PNG), name (what the title calls the trace; default file).
# Columns (shared/DESIGN.md's MRC CSV): 1 page_bytes, 2 sets, 3 ways,
# 4 entries, 7 miss_ratio. Rows of miss ratio 0 fall off the log scale.
if (!exists("file")) file = "mrc.csv"
if (!exists("page")) page = 4096
if (!exists("out")) out = "mrc.png"
if (!exists("name")) name = file

# Rows of this page size meeting an awk condition.
rows(cond) = sprintf("< awk -F, 'NR > 1 && $1 == %.0f && (%s)' '%s'", page, cond, file)
# The associativities with set-associative rows, in increasing order.
ways = system(sprintf("awk -F, 'NR > 1 && $1 == %.0f && $2 > 1 {print $3}' '%s' | sort -nu | tr '\\n' ' '", page, file))
lab(b) = b >= 1048576 ? sprintf("%.0f MiB", b / 1048576.0) : sprintf("%.0f KiB", b / 1024.0)

set terminal pngcairo size 900,600 font ",10"
set output out
set datafile separator ","
set logscale x 2
set logscale y
set format y "10^{%L}"
set xlabel "TLB entries"
set ylabel "miss ratio (misses per translation)"
set title sprintf("LRU TLB miss ratio, %s pages: %s", lab(page), name) noenhanced
set grid
set key top right
set style data linespoints
set pointsize 0.6

plot rows("$2 == 1") using 4:7 title "fully associative" lw 2, \
     for [w in ways] rows(sprintf("$2 > 1 && $3 == %s", w)) using 4:7 title sprintf("%s-way", w)
