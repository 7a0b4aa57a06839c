# plots/gpu_alloc.gp — tlbsim-gpu allocation latency against size.
#   gnuplot -e "dir='gpu/results/h200'" plots/gpu_alloc.gp
# Reads dir/alloc_latency.csv (api,size_bytes,calls,median_us,min_us,max_us,device);
# writes dir/gpu_alloc_latency.png (median, bars from min to max).
if (!exists("dir")) dir = "gpu/results/h200"
api(a) = sprintf("< awk -F, '$1==\"%s\"' %s/alloc_latency.csv", a, dir)

set terminal pngcairo size 900,600 font ",10" noenhanced
set output dir."/gpu_alloc_latency.png"
set datafile separator ","
set logscale xy
set xtics ("1" 1, "32" 32, "1K" 2**10, "32K" 2**15, "1M" 2**20, "32M" 2**25, "1G" 2**30, "16G" 2**34)
set xlabel "size (bytes)"
set ylabel "microseconds per call (median; bars min..max)"
set title "H200 allocation calls: time against size"
set grid
set key top left
set pointsize 0.6
plot for [a in "cudaMalloc cudaFree cudaMallocAsync_cold+free cudaMallocAsync_warm+free cuMemCreate cuMemMap cuMemSetAccess cuMemUnmap"] \
     api(a) u 2:4 w lp t a, \
     for [a in "cudaMalloc cudaFree"] api(a) u 2:4:5:6 w yerrorbars notitle lc "gray"
