#!/usr/bin/env python3
"""Probe how cudaMalloc rounds, places and backs requests (needs cupy and a GPU).

    python3 cudamalloc_probe.py OUT.csv

Calls the CUDA runtime directly (cupy.cuda.runtime.malloc/free: no pool in
between) and records, per experiment:
  layout    16 consecutive cudaMalloc(size): each address and its distance to
            the previous one (rounding, alignment, packing), and the device
            free memory (cudaMemGetInfo) before and after (physical backing)
  release   free memory after freeing those 16 again
  share     4096 x 4 KiB: free memory after allocating, after freeing every
            other one, after freeing the rest (are small requests packed
            into shared regions, and are the regions given back?)
  mixed     512 KiB and 4 KiB requests alternately: do they share regions?
Columns: experiment,size,index,addr,delta,free_before,free_after
"""
import csv
import sys

import cupy

rt = cupy.cuda.runtime
SIZES = (1, 256, 512, 513, 1024, 4096, 65536, 65537, 262144, 524288, 1048575, 1048576, 1048577,
         2097151, 2097152, 2097153, 4194304, 10485760, 20971521)


def free_mem():
    return rt.memGetInfo()[0]


def main(out):
    rows = []
    rt.free(rt.malloc(1))  # create the context before measuring
    for size in SIZES:
        f0 = free_mem()
        ptrs = [rt.malloc(size) for _ in range(16)]
        f1 = free_mem()
        for i, p in enumerate(ptrs):
            rows.append(("layout", size, i, p, p - ptrs[i - 1] if i else 0, f0, f1))
        for p in ptrs:
            rt.free(p)
        rows.append(("release", size, 16, 0, 0, f1, free_mem()))
    f0 = free_mem()
    ptrs = [rt.malloc(4096) for _ in range(4096)]
    f1 = free_mem()
    rows.append(("share", 4096, 0, ptrs[0], ptrs[-1] - ptrs[0], f0, f1))
    for p in ptrs[::2]:
        rt.free(p)
    f2 = free_mem()
    rows.append(("share", 4096, 1, 0, 0, f1, f2))
    for p in ptrs[1::2]:
        rt.free(p)
    rows.append(("share", 4096, 2, 0, 0, f2, free_mem()))
    f0 = free_mem()
    ptrs = [rt.malloc(524288 if i % 2 == 0 else 4096) for i in range(32)]
    f1 = free_mem()
    for i, p in enumerate(ptrs):
        rows.append(("mixed", 524288 if i % 2 == 0 else 4096, i, p, p - ptrs[i - 1] if i else 0, f0, f1))
    for p in ptrs:
        rt.free(p)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("experiment", "size", "index", "addr", "delta", "free_before", "free_after"))
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
