# plots/sweep_interval.gp — miss ratio over time, one line per configuration,
# from the CSV `tlbsim sweep --interval N` writes (README, "Sweeps").
#   tlbsim sweep --vary tlb.l1d.entries=16,32,64,128 --interval 50 TRACE > iv.csv
#   gnuplot -e "file='iv.csv'; out='iv.png'" plots/sweep_interval.gp
# Variables: file (the CSV), out (the PNG), naxes (how many --vary keys the
# sweep had, default 1), misses (the column counted, default
# tlb.l1d.misses: the L1 DTLB's misses; any count column works, e.g.
# tlb.stlb.misses or walks), over (the column it is divided by: for
# tlb.NAME.misses that level's own look-ups, tlb.NAME.accesses, so the y
# axis is the level's miss ratio; else accesses, every access of the trace,
# fetches included), trace (which trace's rows, default the first row's),
# name (what the title calls the trace; default trace).
# The y value of an interval is misses / over in that interval (none where
# over is 0: a level not looked up has no ratio); x is accesses_end, the
# trace's accesses read at its end.
if (!exists("file")) file = "sweep_interval.csv"
if (!exists("out")) out = "sweep_interval.png"
if (!exists("naxes")) naxes = 1
if (!exists("misses")) misses = "tlb.l1d.misses"
if (!exists("over")) over = (misses[1:4] eq "tlb." && strstrt(misses, ".misses") > 0) ? \
    misses[1:strstrt(misses, ".misses") - 1] . ".accesses" : "accesses"
if (!exists("trace")) trace = system(sprintf("awk -F, 'NR == 2 {print $1}' '%s'", file))
if (!exists("name")) name = trace

# The configurations: the varied values (fields 2 .. naxes + 1) joined by
# ";", in the order of the file; each one's key title "key=value, ...".
awk_key = sprintf("k = $2; for (i = 3; i <= %d; i++) k = k \";\" $i", naxes + 1)
configs = system(sprintf("awk -F, 'NR > 1 && $1 == \"%s\" {%s; if (!(k in seen)) {seen[k]; printf \"%%s \", k}}' '%s'", \
                         trace, awk_key, file))
title_of(c) = system(sprintf("awk -F, -v c='%s' 'NR == 1 {n = split(c, v, \";\"); t = $2 \"=\" v[1]; for (i = 2; i <= n; i++) t = t \", \" $(i + 1) \"=\" v[i]; print t; exit}' '%s'", \
                             c, file))
# One configuration's rows as "accesses_end miss_ratio".
rows(c) = sprintf("< awk -F, -v c='%s' -v m='%s' -v o='%s' 'NR == 1 {for (i = 1; i <= NF; i++) {if ($i == m) mc = i; if ($i == o) ac = i; if ($i == \"accesses_end\") ec = i}; next} $1 == \"%s\" {%s; if (k == c && $ac) print $ec, $mc / $ac}' '%s'", \
                  c, misses, over, trace, awk_key, file)

# a name ending in .svg writes SVG, any other PNG
if (strstrt(out, ".svg") > 0) {
  set terminal svg size 900,560 font ",10"
} else {
  set terminal pngcairo size 900,560 font ",10"
}
set output out
set title sprintf("%s / %s over time: %s", misses, over, name) noenhanced
set xlabel "accesses into the trace (end of each interval)"
set ylabel (over eq "accesses" ? sprintf("%s per access (fetches included)", misses) \
                               : sprintf("miss ratio (%s / %s)", misses, over)) noenhanced
set yrange [0:*]
set grid
set key inside right center opaque box noenhanced title "configuration"
set style data linespoints
set pointsize 0.5

# Earlier configurations are drawn wider, so one that a later one overlaps
# still shows around it.
n = words(configs)
plot for [i = 1:n] rows(word(configs, i)) using 1:2 title title_of(word(configs, i)) lw 1.5 * (n - i + 1) dt i pt i
