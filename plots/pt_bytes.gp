# Page-table bytes against the footprint one mapping covers, one line per
# format and page size: what the tables cost and how larger pages cut it.
# Input: format,page_bytes,footprint_bytes,page_table_bytes rows, as
# scripts/figures.sh writes them from `tlbsim run --format json`
# (page_table_bytes, the root table included) of `map` traces.
#
#   gnuplot -e "csv='pt_bytes.csv'; out='pt_bytes.png'" plots/pt_bytes.gp
#
# Variables: csv (required), out (default pt_bytes.png; .svg writes SVG).
if (!exists("csv")) {
  print "usage: gnuplot -e \"csv='FILE.csv'\" plots/pt_bytes.gp"
  exit status 2
}
if (!exists("out")) out = "pt_bytes.png"
if (strstrt(out, ".svg") > 0) {
  set terminal svg size 1000,600 font ",11"
} else {
  set terminal pngcairo size 1000,600 font ",11"
}
set output out
set datafile separator ","
set title "Page-table bytes of one mapping against its footprint"
set xlabel "footprint mapped (bytes, log scale)"
set ylabel "page-table bytes (log scale)"
set logscale xy 2
set format x "%.0b %BB"
set format y "%.0b %BB"
set yrange [16:*]
set grid
set key outside right top noenhanced
set style data linespoints
# The (format, page size) series in file order.
series = system(sprintf("awk -F, 'NR > 1 && !seen[$1 \" \" $2]++ {print $1 \":\" $2}' '%s' | tr '\\n' ' '", csv))
fmt(s) = s[1:strstrt(s, ":") - 1]
psz(s) = s[strstrt(s, ":") + 1:] + 0
lab(b) = b >= 1048576 ? sprintf("%.0f MiB", b / 1048576.0) : b >= 1024 ? sprintf("%.0f KiB", b / 1024.0) : sprintf("%.0f B", b)
sel(s) = sprintf("< awk -F, '$1 == \"%s\" && $2 == %d' '%s'", fmt(s), psz(s), csv)
plot for [i = 1:words(series)] sel(word(series, i)) using 3:4 lw 2 lc i \
  title sprintf("%s, %s pages", fmt(word(series, i)), lab(psz(word(series, i))))
