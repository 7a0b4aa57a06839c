# plots/gpu_gather.gp — tlbsim-gpu gather curves: loads per ns for the whole
# GPU against footprint (log-log), one curve per thread count, per mapping,
# per SM set.
#   gnuplot -e "dir='gpu/results/h200'" plots/gpu_gather.gp
# Reads dir/gather.csv, dir/gather_aliased.csv, dir/gather_managed.csv and
# dir/gather_sms.csv (the gather CSV schema of shared/DESIGN.md: column 2
# footprint_bytes, 4 nodes, 7 mapping, 8 loads_per_ns, 11 threads_per_sm,
# 24 sm_set); writes dir/gpu_gather*.png.
if (!exists("dir")) dir = "gpu/results/h200"
g = dir."/gather.csv"
ga = dir."/gather_aliased.csv"
gm = dir."/gather_managed.csv"
gs = dir."/gather_sms.csv"

# Rows of one series, through awk: mapping, threads per SM (and SM set).
sel(file, m, t) = sprintf("< awk -F, '$7==\"%s\" && $11==%s' %s", m, t, file)
selset(file, set, t) = sprintf("< awk -F, '$24==\"%s\" && $11==%s' %s", set, t, file)

set terminal pngcairo size 900,600 font ",10"
set datafile separator ","
set logscale xy 2
set format x "%.0b%B"
set xlabel "footprint (bytes): 65536 nodes of 128 B, evenly spaced"
set ylabel "loads per ns, whole GPU"
set grid
set key bottom left
set style data linespoints
set pointsize 0.5

# 1. One curve per thread count: cudaMalloc region up to 128 GiB, then the
#    aliased mapping (dashed) to 4 TiB.
set output dir."/gpu_gather.png"
set title "H200 gather, 256 independent 8-byte ld.global.cg per thread, cudaMalloc (aliased VMM beyond)"
plot for [t in "32 64 128 256 512 1024 2048"] sel(g, "cudamalloc", t) u 2:8 t t." threads/SM", \
     for [t in "32 2048"] sel(ga, "aliased", t) u 2:8 dt 2 t t." threads/SM, aliased"

# 2. Mappings at 2048 threads per SM.
set output dir."/gpu_gather_mappings.png"
set title "H200 gather, 2048 threads per SM: mapping"
plot sel(g, "contiguous", "2048") u 2:8 t "VMM 2 MiB chunks, contiguous", \
     sel(g, "shuffled", "2048") u 2:8 t "VMM 2 MiB chunks, shuffled", \
     sel(g, "cudamalloc", "2048") u 2:8 t "cudaMalloc", \
     sel(ga, "aliased", "2048") u 2:8 t "aliased VMM", \
     sel(gm, "managed", "2048") u 2:8 t "managed (64 KiB pages when sparse)"

# 3. SMs used, 2048 threads on each SM of the set.
set output dir."/gpu_gather_sms.png"
set title "H200 gather, cudaMalloc, 2048 threads on each SM of the set"
set key top right
plot selset(gs, "0", "2048") u 2:8 t "SM 0", \
     selset(gs, "0;1", "2048") u 2:8 t "SMs 0,1 (one TPC)", \
     selset(gs, "0;1;48;49;128;129", "2048") u 2:8 t "0,1,48,49,128,129 (one L2-TLB group)", \
     selset(gs, "0;22;44;66;88;110", "2048") u 2:8 t "0,22,44,66,88,110 (spread)", \
     selset(gs, "all", "2048") u 2:8 t "all 132"
