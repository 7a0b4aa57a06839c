#!/usr/bin/env python3
"""Seeded allocation-churn traces in tlbsim's native format (alloc/free only).

A workload that keeps `live` buffers alive: it allocates them, then `rounds`
times frees a uniformly chosen live buffer and allocates a new one. Sizes are
log-uniform in [min, max] rounded to whole KiB. Nothing is freed at the end:
the buffers alive then are the set `tlbsim-gpu churn-gather` measures.

Randomness: splitmix64 (Steele, Lea, Flood 2014) seeded with --seed, so the
same command writes the same bytes with any Python 3. Standard library only.

    traces/gen/churn.py --live 32000 --rounds 64000 --seed 1 | gzip -9n > near.trace.gz
    traces/gen/churn.py --self-test
"""
import argparse
import math
import sys

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def unit(self):
        """Uniform in [0, 1) with 53 bits."""
        return (self.next() >> 11) / float(1 << 53)

    def below(self, n):
        """Uniform in [0, n) by multiply-shift (bias < n / 2^64)."""
        return (self.next() * n) >> 64


def parse_size(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().replace("IB", "")
    u = t[-1] if t and t[-1] in "KMG" else ""
    return int(t[: len(t) - len(u)]) * units[u]


def log_uniform_kib(rng, lo, hi):
    """A size in whole KiB, log-uniform in [lo, hi] bytes."""
    v = math.exp(math.log(lo) + rng.unit() * (math.log(hi) - math.log(lo)))
    kib = max(lo // 1024, min(hi // 1024, int(round(v / 1024))))
    return kib


def generate(live, rounds, seed, lo, hi, out):
    rng = SplitMix64(seed)
    out.write("#tlbsim-trace 1\n")
    out.write(f"# traces/gen/churn.py --live {live} --rounds {rounds} --seed {seed} "
              f"--min {lo} --max {hi}\n")
    alive = []  # ids; a freed slot takes the last id (swap-remove)
    next_id = 1

    def alloc():
        nonlocal next_id
        out.write(f"alloc {next_id} {log_uniform_kib(rng, lo, hi)}K\n")
        alive.append(next_id)
        next_id += 1

    for _ in range(live):
        alloc()
    for _ in range(rounds):
        k = rng.below(len(alive))
        out.write(f"free {alive[k]}\n")
        alive[k] = alive[-1]
        alive.pop()
        alloc()


def self_test():
    r = SplitMix64(1)
    # splitmix64 reference values for seed 1 (the C version in sim/src/rng.c
    # seeds xoshiro256** with these same outputs).
    assert r.next() == 0x910A2DEC89025CC1, "splitmix64 changed"
    assert r.next() == 0xBEEB8DA1658EEC67
    import io
    a, b = io.StringIO(), io.StringIO()
    generate(50, 100, 7, 64 << 10, 8 << 20, a)
    generate(50, 100, 7, 64 << 10, 8 << 20, b)
    assert a.getvalue() == b.getvalue()
    lines = a.getvalue().splitlines()
    assert sum(l.startswith("alloc") for l in lines) == 150
    assert sum(l.startswith("free") for l in lines) == 100
    for l in lines:
        if l.startswith("alloc"):
            kib = int(l.split()[2][:-1])
            assert 64 <= kib <= 8192, l
    print("churn.py: self-test passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--live", type=int, help="buffers alive at once")
    ap.add_argument("--rounds", type=int, help="free-then-allocate rounds after filling")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min", default="64K", help="smallest size (default 64K)")
    ap.add_argument("--max", default="8M", help="largest size (default 8M)")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        self_test()
        return 0
    if not a.live or a.live < 1 or a.rounds is None or a.rounds < 0:
        ap.error("--live N (>= 1) and --rounds R (>= 0) are required")
    lo, hi = parse_size(a.min), parse_size(a.max)
    if not 1024 <= lo <= hi:
        ap.error("need 1K <= --min <= --max")
    generate(a.live, a.rounds, a.seed, lo, hi, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
