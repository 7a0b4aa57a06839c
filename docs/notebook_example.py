#!/usr/bin/env python3
"""A notebook-style tour of the tlbsim Python package (python/tlbsim):

1. The OSTEP TLB curve (Operating Systems: Three Easy Pieces, ch. 19, "TLB
   measurement"): one access per page over NUMPAGES pages, cycles per access
   against NUMPAGES, from the pointer chase on the x86-64 preset: the steps
   are where the L1 DTLB (64 entries) and the STLB (1536) overflow.
2. A miss-ratio curve: the LRU misses of every fully associative TLB size
   over a trace that loops over three working sets, in one pass.

Run from the repository after a build (or with the package installed):
    PYTHONPATH=build/python python3 docs/notebook_example.py [OUT.png]   # or PYTHONPATH=python: it finds build*/
Prints both tables; draws them into OUT.png (default notebook_example.png)
when matplotlib imports (Debian: python3-matplotlib), else says so.
"""
import os
import sys
import tempfile

import tlbsim

# 1. The OSTEP curve: footprints of 1 to 8192 pages, stride one 4 KiB page.
pages = [1 << k for k in range(14)]
ostep = tlbsim.chase([n * 4096 for n in pages], stride=4096, preset="x86-64", frame=False)
print("pages  cycles/access  walks/access")
for n, row in zip(pages, ostep):
    print(f"{n:5d}  {row['cycles_per_access']:13.1f}  {row['walks_per_access']:12.3f}")

# 2. A miss-ratio curve of a trace that sweeps 48, 600 and 3000 pages in turn.
with tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False) as f:
    for working_set in (48, 600, 3000):
        for _ in range(4):
            for p in range(working_set):
                f.write(f"r {0x10000000 + p * 4096:#x} 8\n")
    trace = f.name
try:
    curve = [r for r in tlbsim.mrc(trace, page_sizes="4K", max_entries=4096, frame=False) if r["sets"] == 1]
finally:
    os.unlink(trace)
print("\nentries  miss ratio (fully associative LRU, 4 KiB pages)")
for r in curve:
    print(f"{r['entries']:7d}  {r['miss_ratio']:.4f}")

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("\nmatplotlib is not installed (Debian: python3-matplotlib): no figure drawn")
    sys.exit(0)

out = sys.argv[1] if len(sys.argv) > 1 else "notebook_example.png"
fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
a.plot(pages, [r["cycles_per_access"] for r in ostep], marker="o")
a.set(xscale="log", xlabel="pages touched (NUMPAGES)", ylabel="cycles per access",
      title="OSTEP TLB measurement, x86-64 preset")
b.plot([r["entries"] for r in curve], [r["miss_ratio"] for r in curve], marker="o")
b.set(xscale="log", xlabel="TLB entries (fully associative LRU)", ylabel="miss ratio", title="Miss-ratio curve")
fig.tight_layout()
fig.savefig(out, dpi=120)
print(f"\nwrote {out}")
