# plots/mrc.gp — LRU miss ratio against TLB entries, from the CSV `tlbsim mrc`
# writes: the fully associative curve and one curve per associativity, for
# one page size.
#   tlbsim mrc --page-size 4K,2M TRACE > mrc.csv
#   gnuplot -e "file='mrc.csv'; page=4096; out='mrc_4k.png'" plots/mrc.gp
# Variables: file (the CSV), page (page_bytes of the rows to plot, default
# 4096), out (the PNG), name (what the title calls the trace; default file).
# Columns (shared/DESIGN.md's MRC CSV): 1 page_bytes, 2 sets, 3 ways,
# 4 entries, 7 miss_ratio, and with `tlbsim mrc --opt` 9 opt_miss_ratio (drawn
# as Belady's OPT, the bound). Rows of miss ratio 0 fall off the log scale.
if (!exists("file")) file = "mrc.csv"
if (!exists("page")) page = 4096
if (!exists("out")) out = "mrc.png"
if (!exists("name")) name = file

# Rows of this page size meeting an awk condition.
rows(cond) = sprintf("< awk -F, 'NR > 1 && $1 == %.0f && (%s)' '%s'", page, cond, file)
# The associativities with set-associative rows, in increasing order.
ways = system(sprintf("awk -F, 'NR > 1 && $1 == %.0f && $2 > 1 {print $3}' '%s' | sort -nu | tr '\\n' ' '", page, file))
lab(b) = b >= 1048576 ? sprintf("%.0f MiB", b / 1048576.0) : sprintf("%.0f KiB", b / 1024.0)

# a name ending in .svg writes SVG, any other PNG
if (strstrt(out, ".svg") > 0) {
  set terminal svg size 900,640 font ",10"
} else {
  set terminal pngcairo size 900,640 font ",10"
}
set output out
set datafile separator ","
set logscale x 2
set logscale y
set format y "10^{%L}"
set xlabel "TLB entries"
set ylabel "miss ratio (misses per translation)"
set grid
# Below the plot, in a row: the key hides no curve and no grid line.
set key outside bottom center horizontal maxrows 2 noenhanced
set style data linespoints
set pointsize 0.6

# Whether the CSV has OPT's columns (tlbsim mrc --opt).
has_opt = system(sprintf("head -1 '%s' | grep -c opt_miss_ratio", file)) + 0
set title sprintf("%s TLB miss ratio, %s pages: %s", has_opt ? "LRU and OPT" : "LRU", lab(page), name) noenhanced

plot rows("$2 == 1") using 4:7 title "fully associative" lw 2, \
     for [w in ways] rows(sprintf("$2 > 1 && $3 == %s", w)) using 4:7 title sprintf("%s-way", w), \
     for [o = 1:has_opt] rows("$2 == 1") using 4:9 title "Belady's OPT (fully associative)" lw 2 dt 2 lc rgb "black"
