#!/usr/bin/env python3
"""The quiz's OOM reasons against README's definitions (issue #27): for
every policy of the alloc exercise of 60 seeds, the reason `tlbsim alloc`
gives its first failed request is
  exhausted      less memory free in all than the request,
  fragmentation  enough in all, no run of contiguous free memory holding it,
  granularity    a run holds its bytes, not the block the policy makes of them,
and the quiz's answer is that reason. Buddy's rounding makes granularity
come up (seed 7's question c: 24 KiB free side by side, a 20 KiB request,
a 32 KiB block); it never did while its free blocks were taken for runs.
Usage: quiz_reasons.py TLBSIM
"""
import json
import os
import subprocess
import sys
import tempfile

tlbsim = sys.argv[1]
work = tempfile.mkdtemp(prefix="tlbsim-quiz-reasons.")
failures, checks, seen = [], 0, {}


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def out(*args):
    return subprocess.run([tlbsim, *args], check=True, capture_output=True, text=True).stdout


for seed in range(1, 61):
    quiz = json.loads(out("quiz", "--seed", str(seed), "--kind", "alloc", "--answers", "--format", "json"))
    ex = quiz["exercises"][0]
    trace = os.path.join(work, "q%d.trace" % seed)
    with open(trace, "w") as f:
        f.write(ex["trace"])
    replay = json.loads(out("alloc", "--capacity", "64K", "--policy", "first-fit,best-fit,buddy", "--format", "json",
                            trace))
    for q, p in zip(ex["questions"], replay):
        if p["first_oom_event"] is None:
            continue
        size, free, run = p["first_oom_request_bytes"], p["first_oom_free_bytes"], p["first_oom_largest_free_range"]
        want = "exhausted" if free < size else "fragmentation" if run < size else "granularity"
        check(p["first_oom_reason"] == want, "seed %d %s: reason %s, the definitions say %s (request %d, free %d, "
              "free range %d)" % (seed, p["policy"], p["first_oom_reason"], want, size, free, run))
        check(p["first_oom_largest_free_range"] >= p["first_oom_largest_free_extent"],
              "seed %d %s: a free range shorter than an extent" % (seed, p["policy"]))
        check(q["answer"]["reason"] == p["first_oom_reason"], "seed %d %s: the quiz says %s, alloc %s"
              % (seed, p["policy"], q["answer"]["reason"], p["first_oom_reason"]))
        seen.setdefault(p["policy"], set()).add(p["first_oom_reason"])
check("granularity" in seen.get("buddy", ()), "buddy never answers granularity over 60 seeds: %s" % seen)
text = out("quiz", "--seed", "7", "--kind", "alloc", "--answers")
check("   c) line 16 (alloc of 20KiB) fails first: granularity: 40KiB free in all; a free range of 24KiB holds 20KiB, "
      "but not the block the policy rounds it up to\n" in text, "seed 7 c): %s" % text[-300:])
print("quiz_reasons: %d checks, %d failed; reasons seen %s" % (checks, len(failures),
      {k: sorted(v) for k, v in seen.items()}))
sys.exit(1 if failures else 0)
