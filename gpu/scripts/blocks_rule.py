#!/usr/bin/env python3
"""Checks a blocks CSV (tlbsim-gpu blocks) against the placement rule of
gpu/README.md ("Where the blocks of a launch run"):

  SMs are taken in a priority list: the first SM of each TPC of a first
  group of TPCs (--first, default 124-131), then their second SMs, then the
  first SM of every other TPC, GPC by GPC (--gpcs, the SM ranges of the GPCs
  in order), then the second SM of each, GPC by GPC. A launch whose blocks all fit at once (grid <= SMs x resident
  blocks per SM) puts its blocks on the first `grid` entries of that list
  repeated: pass 1 over the list, then pass 2, ...

Prints, per (grid, block size): whether the repeats placed every block on
the same SM, and whether the multiset of SMs used is the rule's; exits 1 if
any launch that fits at once breaks the rule.

usage: blocks_rule.py BLOCKS.csv [--first 124-131] [--gpcs 0-15,16-31,...]
"""
import collections
import csv
import sys


def ranges(text):
    out = []
    for part in text.split(","):
        a, b = part.split("-")
        out.append(list(range(int(a), int(b) + 1)))
    return out


def priority(first, gpcs):
    rest = [g for g in gpcs]
    evens = [s for g in rest for s in g if s % 2 == 0 and s not in first]
    odds = [s for g in rest for s in g if s % 2 == 1 and s not in first]
    return [s for s in first if s % 2 == 0] + [s for s in first if s % 2] + evens + odds


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__.split("\n\n")[-1])
    first = ranges("124-131")[0]
    gpcs = ranges("0-15,16-31,32-47,48-63,64-77,78-91,92-105,106-119,120-123")
    for i, a in enumerate(args):
        if a == "--first":
            first = ranges(args[i + 1])[0]
        if a == "--gpcs":
            gpcs = ranges(args[i + 1])
    launches = collections.defaultdict(list)
    for r in csv.DictReader(open(args[0])):
        launches[(int(r["grid"]), int(r["block_threads"]), int(r["repeat"]))].append((int(r["block"]), int(r["sm"])))
    order = priority(first, gpcs)
    bad = 0
    for g, b in sorted({(k[0], k[1]) for k in launches}):
        reps = [tuple(s for _, s in sorted(launches[(g, b, r)])) for r in range(3) if (g, b, r) in launches]
        same = "identical" if len(set(reps)) == 1 else (
            "identical from block 8" if len({x[8:] for x in reps}) == 1 else "differ")
        resident = min(32, 2048 // b)
        want = collections.Counter(order[i % len(order)] for i in range(g))
        fits = g <= resident * len(order)
        ok = all(collections.Counter(x) == want for x in reps)
        verdict = "rule holds" if ok else ("RULE BROKEN" if fits else "(waves: not covered)")
        bad |= fits and not ok
        print(f"grid {g:5d} x {b:4d}: repeats {same:24s} SMs {len(set(reps[0])):3d}  {verdict}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
