#!/bin/bash
# Builds tlbsim-gpu on the GPU machine with plain nvcc (gpu/src and the
# sources of the sim modules it links, read from their sim/src/*/*.cmake:
# module_srcs below) and runs one
# mode, writing into $OUT:
#   smoke      a few points of every experiment + the 128 GiB allocation
#   full       the committed chase sweep (tlbsim-gpu full) into $OUT
#   chase      one extra chase sweep: the remaining arguments go to tlbsim-gpu chase,
#              the CSV to $OUT/$CSV (default chase_more.csv)
#   new-smoke  a few points of gather, chasers, smallbufs, churn-gather (and the SASS
#              of the gather kernel), into $OUT/new_smoke.tgz
#   gather     the committed gather sweeps only, into $OUT/gather.tgz
#   all-new    the committed many-thread sweeps (gather*, chasers, chase_64k, smallbufs,
#              churn-gather on traces/churn/*), into $OUT/all_new.tgz
#   kern-smoke a few points of blocks, embed, stream, dram-chase, l2-chase, uvm and the
#              managed populations, and the embed kernels' SASS, into $OUT/kern_smoke.tgz
#   kern       the committed sweeps of those (gpu/results/h200/run4), into $OUT/kern.tgz
# The device tool returns at most 8 files, so the new modes pack their CSVs
# and logs into one archive (plus the log beside it).
# Usage: gpu/scripts/device_sweep.sh MODE [time limit in s, default 540] [chase options]
set -euo pipefail
mode=${1:-smoke}
limit=${2:-540}
shift $(($# < 2 ? $# : 2))
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/out}
mkdir -p "$out"
cd "$root"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cc=$(command -v gcc || command -v cc)
bld=$(mktemp -d)
deadline=$(($(date +%s) + limit))

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.free,clocks.sm,clocks.max.sm,clocks.mem,pstate,temperature.gpu,power.draw --format=csv
  nvidia-smi --query-gpu=uuid,serial,pci.bus_id --format=csv
  "$nvcc" --version | tail -2
  nvidia-smi
} >"$out/env.txt" 2>&1 || true

# The sources of the sim modules the host library links, as their .cmake
# files list them: tlbsim_module(NAME SOURCES a.c ${list} DEPS tlbsim_x ...),
# each call read whole (it may span lines; # comments dropped). A ${list}
# among the sources is that file's list_device: the set this machine has
# the libraries for (trace.cmake: gzip through zlib, no zstd or xz).
module_call() {
  local f
  for f in sim/src/*.cmake sim/src/*/*.cmake; do
    [ -f "$f" ] || continue
    local call
    call=$(sed 's/#.*//' "$f" | tr '\n' ' ' | grep -o "tlbsim_module($1[[:space:]][^)]*)") || continue
    echo "$f ${call#*(}"
    return 0
  done
  echo "device_sweep: no tlbsim_module($1 ...) under sim/src" >&2
  return 1
}
module_srcs() {
  local call f w list
  call=$(module_call "$1") || return 1
  f=${call%% *}
  list=$(echo "${call#* }" | sed 's/)$//; s/^[^ ]* *SOURCES//; s/ DEPS .*//')
  for w in $list; do
    case "$w" in
    '${'*'}')
      w=${w#\$\{}
      w=${w%\}}_device
      w=$(sed 's/#.*//' "$f" | tr '\n' ' ' | grep -o "set($w[[:space:]][^)]*)" | sed "s/^set($w//; s/)$//") || {
        echo "device_sweep: $f has no set(${w} ...) for this machine" >&2
        return 1
      }
      for x in $w; do echo "$(dirname "$f")/$x"; done
      ;;
    *) echo "$(dirname "$f")/$w" ;;
    esac
  done
}
# A module and every sim module it depends on (DEPS tlbsim_NAME), each once.
module_closure() {
  local todo="$*" done="" m call
  while [ -n "$todo" ]; do
    set -- $todo
    m=$1
    shift
    todo="$*"
    case " $done " in *" $m "*) continue ;; esac
    done="$done $m"
    call=$(module_call "$m") || return 1
    for dep in $(echo "$call" | sed -n 's/.* DEPS \(.*\))$/\1/p'); do
      case "$dep" in tlbsim_*) todo="$todo ${dep#tlbsim_}" ;; esac
    done
  done
  echo $done
}
# What tlbsim_gpu_host links (gpu/CMakeLists.txt: the experiments' shared
# definitions, exp, and the trace reader), and with it the trace readers'
# libraries here: zlib and threads.
sim_mods=$(module_closure base rows exp trace) || exit 1
sim_srcs=$(for m in $sim_mods; do module_srcs "$m" || exit 1; done) || exit 1
echo "sim modules: $sim_mods" >&2

t0=$(date +%s)
for f in $sim_srcs gpu/src/gpu_*.c; do
  "$cc" -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Isim/include -Igpu/src \
    -c "$f" -o "$bld/$(basename "$f" .c).o" &
done
for f in gpu/src/*.cu; do
  "$nvcc" -O2 -std=c++17 -gencode arch=compute_90,code='[sm_90,compute_90]' -Werror all-warnings \
    -Isim/include -Igpu/src -c "$f" -o "$bld/$(basename "$f" .cu).cu.o" &
done
fail=0
for job in $(jobs -p); do wait "$job" || fail=1; done
[ "$fail" = 0 ] || { echo "device_sweep: build failed" >&2; exit 1; }
link() { "$nvcc" -arch=sm_90 "$bld"/*.o -o "$bld/tlbsim-gpu" -lz -lpthread -lm; }
link
echo "build: $(($(date +%s) - t0)) s" >&2
gpu="$bld/tlbsim-gpu"
res="$bld/res"
mkdir -p "$res"
cp "$out/env.txt" "$res/"

# run NAME SECONDS COMMAND...: one command with its own time limit (cut to
# what is left of the mode's limit), its stderr to NAME.log; a failure is
# logged and the next command runs.
run() {
  local name=$1 secs=$2
  shift 2
  local s=$(date +%s) rc=0
  local left=$((deadline - s - 15))
  [ "$secs" -le "$left" ] || secs=$left
  if [ "$secs" -le 0 ]; then
    echo "$name: skipped, no time left" | tee -a "$res/commands.txt"
    return 0
  fi
  timeout "$secs" "$gpu" "$@" 2>"$res/$name.log" || rc=$?
  echo "$name: rc=$rc, $(($(date +%s) - s)) s: tlbsim-gpu $*" | tee -a "$res/commands.txt"
  tail -3 "$res/$name.log"
}

# The committed traces, unpacked: churn-gather reads gzip too, but its rows
# name the file (source column), and the measured rows name churn_below.trace.
unpack_traces() {
  for t in traces/churn/*.trace.gz; do gzip -dc "$t" >"$bld/$(basename "$t" .gz)"; done
}

pack() {
  tar czf "$out/$1" -C "$res" .
  cp "$res/commands.txt" "$out/commands.txt" 2>/dev/null || true
  ls -la "$res"
}

# The gather kernel's machine code, and how many loads it keeps in flight
# (gather_inflight.txt: "8" per group when a group's 8 loads are all issued
# before the first is used). With GATE=1 a kernel that waits earlier stops
# the mode before any measurement.
sass() {
  cuobjdump --dump-sass "$bld/gpu_gather.cu.o" >"$res/gather_sass.txt" 2>&1 || true
  python3 gpu/scripts/sass_inflight.py gather_kernel <"$res/gather_sass.txt" >"$res/gather_inflight.txt" || true
  cat "$res/gather_inflight.txt"
  if [ "${GATE:-0}" = 1 ] && ! grep -q 'gather_kernelILb0ELb0E.*: 8$' "$res/gather_inflight.txt"; then
    echo "device_sweep: the gather kernel does not keep 8 loads in flight; stopping" >&2
    pack gate_failed.tgz
    exit 3
  fi
}


gather_sweeps() {
  run gather 200 gather --mapping contiguous,shuffled,cudamalloc --fmin 256M --fmax 128G --per-octave 4 \
    --threads-per-sm 32,64,128,256,512,1024,2048 --out "$res/gather.csv"
  run gather_aliased 120 gather --mapping aliased --fmin 128G --fmax 4T --per-octave 1 \
    --threads-per-sm 32,128,512,2048 --out "$res/gather_aliased.csv"
  run gather_managed 60 gather --mapping managed --fmin 256M --fmax 16G --per-octave 1 \
    --threads-per-sm 128,2048 --out "$res/gather_managed.csv"
  run gather_sms 90 gather --mapping cudamalloc --footprint 256M,8G,32G,64G,96G,128G --threads-per-sm 32,256,2048 \
    --sm-sets 0/0,1/0,1,48,49,128,129/0,22,44,66,88,110/0-65/all --out "$res/gather_sms.csv"
  run gather_locality 60 gather --mapping cudamalloc --footprint 256M,4G,16G,32G,64G,96G,128G \
    --nodes 4096,16384,65536,262144 --threads-per-sm 256,2048 --out "$res/gather_locality.csv"
  for k in 64 1024; do
    run "gather_loads$k" 40 gather --mapping cudamalloc --footprint 256M,32G,96G,128G --threads-per-sm 32,256,2048 \
      --loads-per-thread $k --out "$res/gather_loads$k.csv"
  done
  # Which SMs share SM 0's second TLB level on this machine (gather_sms.csv's
  # group 0,1,48,49,128,129 was found on another).
  run share 60 share --footprint 32G --order random --out "$res/share_32g.csv"
}

# The environment of a sweep beside its results: nvidia-smi -q (driver, UUID,
# clocks, memory), free device and host memory.
env_full() {
  nvidia-smi -q >"$res/env_smi_q.txt" 2>&1 || true
  { grep -E 'MemTotal|MemAvailable' /proc/meminfo; nproc; } >"$res/env_host.txt" 2>&1 || true
}

# The embed kernels' machine code (gpu_embed.sass, gpu_embed.res: what
# gpu/src commits) and the trace writer's table made from it
# (gpu/scripts/embed_sass.py, which also runs the address arithmetic against
# the model). When the table differs from sim/src/exp/gpu_embed_sass.c, this
# build takes the new one (and relinks), so its traces follow the kernel it
# runs; the new files come back in the archive to be committed.
embed_sass() {
  cuobjdump -sass "$bld/gpu_embed.cu.o" >"$res/gpu_embed.sass" 2>&1 || true
  cuobjdump -res-usage "$bld/gpu_embed.cu.o" >"$res/gpu_embed.res" 2>&1 || true
  if python3 gpu/scripts/embed_sass.py "$res/gpu_embed.sass" "$res/gpu_embed.res" "$("$nvcc" --version | tail -1)" \
    >"$res/gpu_embed_sass.c" 2>"$res/embed_sass.log"; then
    if cmp -s "$res/gpu_embed_sass.c" sim/src/exp/gpu_embed_sass.c; then
      echo "embed SASS table: matches sim/src/exp/gpu_embed_sass.c" | tee -a "$res/commands.txt"
    else
      echo "embed SASS table: differs from sim/src/exp/gpu_embed_sass.c; rebuilt with the new one" | tee -a "$res/commands.txt"
      cp "$res/gpu_embed_sass.c" sim/src/exp/gpu_embed_sass.c
      "$cc" -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Isim/include -Igpu/src \
        -c sim/src/exp/gpu_embed_sass.c -o "$bld/gpu_embed_sass.o" && link
    fi
  else
    echo "embed SASS table: embed_sass.py failed ($(tail -1 "$res/embed_sass.log"))" | tee -a "$res/commands.txt"
  fi
}

case "$mode" in
kern-smoke)
  env_full
  embed_sass
  run blocks 30 blocks --grid 16,132,264 --block 256,1024 --repeats 2 --out "$res/blocks.csv"
  run embed 60 embed --footprint 1G,4G --row-bytes 64,256 --alpha 0,1.2 --bags 4096 --repeats 3 --out "$res/embed.csv"
  run embed_big 90 embed --footprint 64G,128G --row-bytes 64,256 --alpha 0 --repeats 3 --out "$res/embed_big.csv"
  run stream 30 stream --footprint 1M,64M,4G --repeats 3 --out "$res/stream.csv"
  run dram 30 dram-chase --footprint 64M,256M,4G --steps 2048 --repeats 3 --out "$res/dram_chase.csv"
  run l2 30 l2-chase --footprint 8M,64M --steps 2048 --repeats 3 --out "$res/l2_chase.csv"
  run uvm 90 uvm --size 256M,2G --repeats 2 --out "$res/uvm.csv"
  run pop 60 chase --mapping managed --population gpu:1,gpu:4,host:4,host_prefetch,advise --stride 2M \
    --fmin 64M --fmax 1G --per-octave 1 --steps 2048 --repeats 3 --out "$res/chase_pop.csv"
  run managed 60 chase --mapping managed --stride 64K,2M --fmin 1M --fmax 256M --per-octave 1 --repeats 3 \
    --out "$res/chase_managed.csv"
  "$gpu" embed --dry-run --trace "$bld/dry" --footprint 1G --row-bytes 256 --alpha 1.2 --bags 8 2>&1 | tail -2 || true
  pack kern_smoke.tgz
  ;;
kern)
  # gpu/results/h200/run4: launch geometry, embed, stream, memory latency,
  # managed memory. Each command has its own time limit; rows are written as
  # they complete.
  env_full
  embed_sass
  run blocks 60 blocks --grid 1,2,4,8,12,16,24,32,48,64,66,96,128,132,133,192,264,265,396,528,1056,2112 \
    --block 128,256,512,1024 --repeats 3 --out "$res/blocks.csv"
  run blocks_spin0 30 blocks --grid 16,66,132,264,528,1056 --block 128,256,512,1024 --spin-ns 0 --repeats 2 \
    --out "$res/blocks_spin0.csv"
  run embed 170 embed --footprint 1G,2G,4G,8G,16G,32G,48G,56G,60G,62G,64G,66G,68G,72G,76G,80G,88G,96G,104G,112G,120G,128G \
    --row-bytes 64,256 --alpha 0,0.4,0.8,1.0,1.2 --out "$res/embed.csv"
  for r in 64 256; do
    run "embed_trace_r$r" 30 embed --footprint 128G --row-bytes $r --alpha 0.8 --bags 128 --trace "$res/trace_r$r" \
      --out "$res/embed_trace_r$r.csv"
  done
  run stream 60 stream --fmin 1M --fmax 64G --per-octave 2 --out "$res/stream.csv"
  run dram_chase 60 dram-chase --footprint 32M,64M,128M,192M,256M,512M,1G,4G,16G,64G,128G --out "$res/dram_chase.csv"
  run l2_chase 60 l2-chase --footprint 4M,8M,16M,24M,28M,32M,36M,40M,44M,48M,52M,56M,60M,64M,80M,96M,128M \
    --out "$res/l2_chase.csv"
  run chase_managed 90 chase --mapping managed --stride 64K,2M --fmax 16G --out "$res/chase_managed.csv"
  run chase_pop 120 chase --mapping managed --population chain,gpu:1,gpu:2,gpu:4,gpu:8,gpu:16,gpu:32,host:1,host:4,host:32,host_prefetch,advise \
    --stride 2M --fmin 64M --fmax 16G --steps 4096 --repeats 3 --out "$res/chase_pop.csv"
  run uvm 240 uvm --out "$res/uvm.csv"
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,memory.used --format=csv >"$res/env_after.txt" 2>&1 || true
  pack kern.tgz
  ;;
smoke)
  "$gpu" --help | head -3
  timeout "$limit" "$gpu" --smoke >"$out/smoke.csv" 2>"$out/smoke.log" || echo "smoke rc=$?" >>"$out/smoke.log"
  # The biggest allocation (65536 shuffled 2 MiB chunks) and the largest points.
  timeout "$limit" "$gpu" chase --mapping shuffled,contiguous --stride 2M,1G --footprint 32M,1G,128G \
    >"$out/big.csv" 2>>"$out/smoke.log" || echo "big rc=$?" >>"$out/smoke.log"
  cat "$out/smoke.log"
  grep -h '^chase' "$out/smoke.csv" "$out/big.csv" | cut -d, -f2-8,14,16 | head -120
  ;;
chase)
  csv=${CSV:-chase_more.csv}
  timeout "$limit" "$gpu" chase "$@" --out "$out/$csv" 2>"$out/${csv%.csv}.log" ||
    echo "chase rc=$?" >>"$out/${csv%.csv}.log"
  tail -20 "$out/${csv%.csv}.log"
  ;;
full)
  # A few points through every code path first: stop here if they fail.
  if ! "$gpu" chase --mapping shuffled,aliased --stride 2M --footprint 4M,256M --repeats 2 >"$bld/pre.csv" \
    2>"$out/full.log"; then
    cat "$out/full.log"
    exit 1
  fi
  cat "$bld/pre.csv"
  timeout "$limit" "$gpu" full --outdir "$out" 2>>"$out/full.log" || echo "full rc=$?" >>"$out/full.log"
  tail -40 "$out/full.log"
  ;;
new-smoke)
  sass
  run g_smoke 60 gather --mapping cudamalloc,aliased --footprint 256M,32G,128G,256G --nodes 65536 \
    --threads-per-sm 32,2048 --sm-sets grid/0,1/all --out "$res/gather.csv"
  run g_managed 60 gather --mapping managed --footprint 256M,4G --threads-per-sm 2048 --out "$res/gather_managed.csv"
  run c_smoke 60 chasers --mapping cudamalloc --footprint 512M,96G --sm-sets 0/0-65/all --per-sm 1,32 \
    --steps 2048 --out "$res/chasers.csv"
  run s_smoke 60 smallbufs --sizes 64K,1536K --buffers 2000 --threads-per-sm 2048 --layout "$res/layout_smallbufs.csv" \
    --out "$res/smallbufs.csv"
  run m_smoke 60 chase --mapping managed --stride 256K,2M --fmin 1M --fmax 4G --per-octave 1 --steps 2048 \
    --repeats 3 --out "$res/chase_64k.csv"
  unpack_traces
  run cg_below 90 churn-gather "$bld/churn_below.trace" --threads-per-sm 2048 --layout "$res/layout_below.csv" \
    --out "$res/churn_below.csv"
  printf 'alloc 1 64K\nfree 2\n' >"$bld/bad.trace"
  run cg_bad 10 churn-gather "$bld/bad.trace" --out "$res/bad.csv"
  pack new_smoke.tgz
  ;;
gather)
  gather_sweeps
  pack gather.tgz
  ;;
all-new)
  sass
  unpack_traces
  gather_sweeps
  run chasers 90 chasers --mapping cudamalloc --stride 2M --footprint 512M,32G,96G,128G --order random \
    --sm-sets 0/0,1/0,1,48,49,128,129/0,22,44,66,88,110/0-15/0-65/all --per-sm 1,4,16,32 --steps 4096 \
    --out "$res/chasers.csv"
  # Managed memory populated sparsely keeps 64 KiB pages: strides from large
  # to small, so each stride's nodes are a superset of the last one's and the
  # region is as dense as the stride being measured (64K: every page).
  run chase_64k 90 chase --mapping managed --stride 4M,2M,1M,512K,256K,128K,64K --fmin 1M --fmax 16G \
    --per-octave 4 --steps 4096 --repeats 3 --out "$res/chase_64k.csv"
  run smallbufs 90 smallbufs --sizes 4K,64K,256K,1M,1536K,2M --buffers 20000 --threads-per-sm 256,2048 \
    --layout "$res/layout_smallbufs.csv" --out "$res/smallbufs.csv"
  for t in below near above; do
    run "churn_$t" 90 churn-gather "$bld/churn_$t.trace" --threads-per-sm 256,2048 \
      --layout "$res/layout_$t.csv" --out "$res/churn_$t.csv"
  done
  pack all_new.tgz
  ;;
*)
  echo "usage: $0 smoke|full|chase|new-smoke|gather|all-new|kern-smoke|kern [limit_s]" >&2
  exit 2
  ;;
esac
