# plots/kernel_embed.gp — the embedding-bag kernel on the H200, measured against `tlbsim kernel`'s
# model: lookups per ns against the table's size, one panel per row size, a colour per Zipf alpha;
# filled points measured (every row of run4/embed.csv), open circles predicted (every row: `tlbsim
# validate`'s table, here made from the JSON of scripts/validate_parallel.py on a 16-core machine;
# one `tlbsim validate --preset h200 gpu/results/h200/run4/embed.csv` prints the same table, in
# about 15 minutes of one core).
#   tlbsim validate --preset h200 gpu/results/h200/run4/embed.csv > docs/validate_h200_embed.txt
#   gnuplot plots/kernel_embed.gp
# Reads gpu/results/h200/run4/embed.csv (columns 8 lookups_per_ns, 12 table_bytes, 13 row_bytes,
# 17 alpha) and docs/validate_h200_embed.txt (validate's table: table, row, alpha, measured,
# predicted); writes docs/validate_h200_embed.png.
if (!exists("measured")) measured = "gpu/results/h200/run4/embed.csv"
if (!exists("predicted")) predicted = "docs/validate_h200_embed.txt"
if (!exists("out")) out = "docs/validate_h200_embed.png"

meas(r, a) = sprintf("< awk -F, 'NR > 1 && $13 == %d && $17 == \"%s\" {print $12 / 2^30, $8}' %s", r, a, measured)
pred(r, a) = sprintf("< awk '$1 ~ /GiB$/ && $2 == %d && $3 == \"%s\" {sub(\"GiB\", \"\", $1); print $1, $5}' %s", r, a, predicted)

set terminal pngcairo size 1400,520 font ",10"
set output out
set multiplot layout 1,2 title "Embedding bag on an H200: measured (dots) and tlbsim kernel's model (circles)"
set logscale xy 2
set xlabel "table (GiB): one cudaMalloc, 2 MiB pages"
set ylabel "lookups per ns"
set grid
set key outside right font ",9"
set xrange [0.8:160]
set yrange [4:128]
alphas = "0 0.4 0.8 1 1.2"
do for [r = 64:256:192] {
  set title sprintf("%d-byte rows, 65,536 bags of 32 ids", r)
  plot for [i = 1:5] meas(r, word(alphas, i)) u 1:2 w p pt 7 ps 0.7 lc i t "alpha ".word(alphas, i)." measured", \
       for [i = 1:5] pred(r, word(alphas, i)) u 1:2 w p pt 6 ps 1.6 lw 1.5 lc i t "alpha ".word(alphas, i)." predicted"
}
unset multiplot
