# plots/gpu_chase.gp — tlbsim-gpu pointer-chase curves: latency per access
# against footprint (log x), one curve per mapping/order, per stride.
#   gnuplot -e "dir='gpu/results/h200'" plots/gpu_chase.gp
# Reads dir/chase.csv and dir/chase_extra.csv (the chase CSV schema of
# shared/DESIGN.md: column 2 order, 3 mapping, 5 stride_bytes,
# 6 footprint_bytes, 8 cycles_per_access, 18 lanes, 10 load, 20 chunk_bytes,
# 25 base_cycles) and dir/share.csv; writes dir/gpu_chase_*.png.
if (!exists("dir")) dir = "gpu/results/h200"
chase = dir."/chase.csv"
extra = dir."/chase_extra.csv"

# Rows of one series, through awk: "MAPPING ORDER STRIDE [FILE] [EXTRA-CONDITION]".
sel(file, m, o, s) = sprintf("< awk -F, '$3==\"%s\" && $2==\"%s\" && $5==%s' %s", m, o, s, file)

lab(s) = s >= 1048576 ? sprintf("%.0f MiB", s / 1048576.0) : sprintf("%.0f KiB", s / 1024.0)

set terminal pngcairo size 900,600 font ",10"
set datafile separator ","
set logscale x 2
set format x "%.0b%B"
set xlabel "footprint (bytes)"
set ylabel "cycles per access"
set grid
set key top left
set style data linespoints
set pointsize 0.5


# 1. Every mapping at 2 MiB stride.
set output dir."/gpu_chase_2m.png"
set title "H200 pointer chase, 2 MiB stride, ld.global.cg: latency per access"
plot sel(chase, "contiguous", "seq", "2097152") u 6:8 t "contiguous seq", \
     sel(chase, "contiguous", "random", "2097152") u 6:8 t "contiguous random", \
     sel(chase, "shuffled", "seq", "2097152") u 6:8 t "shuffled seq", \
     sel(chase, "shuffled", "random", "2097152") u 6:8 t "shuffled random", \
     sel(chase, "cudamalloc", "random", "2097152") u 6:8 t "cudamalloc random", \
     sel(chase, "managed", "random", "2097152") u 6:8 t "managed random", \
     sel(chase, "aliased", "random", "2097152") u 6:8 t "aliased random"

# 2. Translation cost (cycles minus the data-latency baseline), one curve
#    per stride, shuffled VMM chunks, random and sequential order.
do for [o in "random seq"] {
  set output dir."/gpu_chase_strides_".o.".png"
  set title "H200 shuffled VMM, ".o." order: cycles per access minus data-latency baseline"
  set ylabel "translation cycles per access"
  plot for [s in "65536 1048576 2097152 8388608 16777216 33554432 134217728 1073741824"] \
       sel(chase, "shuffled", o, s) u 6:($8-$25) t "stride ".lab(s)
}

# 3. Aliased mapping: footprints past device memory, up to 4 TiB.
set output dir."/gpu_chase_aliased.png"
set title "H200 aliased VMM (8 MiB of memory mapped at many VAs), random order"
set ylabel "cycles per access"
set key top left
plot for [s in "2097152 8388608 33554432 134217728 536870912 1073741824"] \
     sel(chase, "aliased", "random", s) u 6:8 t "stride ".lab(s), \
     for [s in "33554432 536870912"] \
     sel(chase, "aliased", "seq", s) u 6:8 t "seq, stride ".lab(s) dt 2

# 4. Extras at 2 MiB stride: a warp of 32 lanes, L1-cached loads, 1 GiB chunks, SM 65.
set output dir."/gpu_chase_extra.png"
set title "H200 extras at 2 MiB stride, random order"
plot sel(chase, "contiguous", "random", "2097152") u 6:8 t "1 lane, cg, 2 MiB chunks, SM 0", \
     "< awk -F, '$18==32 && $2==\"random\"' ".extra u 6:8 t "warp of 32 lanes (cycles per step)", \
     "< awk -F, '$10==\"ca\" && $2==\"random\" && $5==2097152' ".extra u 6:8 t "ld.global.ca", \
     "< awk -F, '$20==1073741824 && $2==\"random\" && $5==2097152' ".extra u 6:8 t "1 GiB VMM chunks", \
     "< awk -F, '$19==65 && $2==\"random\"' ".extra u 6:8 t "shuffled, SM 65"

# 5. TLB sharing: prober on SM 0, disruptor on SM k (x); one curve per prober footprint.
set output dir."/gpu_share.png"
unset logscale x
set format x "%g"
set xlabel "disruptor SM (prober on SM 0; disruptor: 64 GiB random chase)"
set ylabel "prober cycles per access minus prober alone"
set title "H200 TLB sharing probe"
set style data points
set pointsize 0.8
base(f) = sprintf("< awk -F, '$6==%s && $29>=0' %s/share.csv", f, dir)
alone(f) = real(system(sprintf("awk -F, '$6==%s && $29==-1 {print $8}' %s/share.csv", f, dir)))
plot for [f in "134217728 536870912 8589934592 34359738368"] \
     base(f) u 29:($8-alone(f)) t "prober ".lab(f)
