#!/usr/bin/env python3
"""The shapes and vocabulary of every report (docs/OUTPUT.md), issue #27.

- alloc --format json is a list, for one policy as for several;
- one name per counter: shootdowns (never tlb_shootdowns), miss_ratio (never
  miss_rate or hit_rate), ooms_enough_free and ooms_<reason>;
- a ratio of nothing (a TLB level never looked up) is null in JSON and an
  empty field in CSV, never 0;
- reals are written in the fewest digits that read back the same;
- sweep keeps run's columns, config included, and its row equals run's;
- JSON and CSV of one report hold the same values under the same names.

Usage: shapes.py TLBSIM SOURCE_DIR
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

tlbsim, src = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="tlbsim-shapes.")
demo = os.path.join(src, "traces/samples/demo.trace")
stride = os.path.join(src, "traces/samples/stride.lackey")
failures, checks = [], 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def out(*args):
    return subprocess.run([tlbsim, *args], check=True, capture_output=True, text=True).stdout


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def flat(doc, prefix=""):
    """A JSON report flattened as its CSV is: dotted names, lists left out."""
    items = {}
    for k, v in doc.items():
        name = prefix + k
        if isinstance(v, dict):
            items.update(flat(v, name + "."))
        elif not isinstance(v, list):
            items[name] = v
    return items


OLD_NAMES = re.compile(r"tlb_shootdowns|miss_rate|hit_rate|ooms_fragmented")
REAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[-+]\d+)?(?![\w.])")


def too_long(text):
    """The reals of text written in more significant digits than read back the
    same (0.0059570312499999997 for 0.00595703125): the old %.17g."""
    bad = []
    for t in REAL.findall(text):
        v = float(t)
        digits = len(re.sub(r"^[-0.]*", "", t.split("e")[0].replace(".", "")).rstrip("0")) or 1
        if any(float("%.*g" % (k, v)) == v for k in range(1, digits)):
            bad.append(t)
    return bad

with open(os.path.join(work, "a.trace"), "w") as f:
    f.write("alloc 1 4K\nalloc 2 8K\nfree 1\nalloc 3 16K\n")
alloc_trace = os.path.join(work, "a.trace")

# 1. alloc JSON: always a list.
for policies in (["first-fit"], ["first-fit", "buddy", "cuda"]):
    doc = json.loads(out("alloc", "--format", "json", "--capacity", "64K", "--policy", ",".join(policies), alloc_trace))
    check(isinstance(doc, list) and [p["policy"] for p in doc] == policies, "alloc json for %s: not a list" % policies)
    check(all("shootdowns" in p and "ooms_enough_free" in p and "ooms_fragmentation" in p for p in doc),
          "alloc json: the counters' names")

# A request a policy could not serve is no live allocation of it: its peak
# of requested bytes stays within what it allocated (and the capacity).
for p in json.loads(out("alloc", "--format", "json", "--capacity", "64K", "--policy", "first-fit,buddy,cuda", demo)):
    check(p["ooms"] > 0 and p["peak_requested_bytes"] <= min(p["peak_allocated_bytes"], p["capacity_bytes"]),
          "alloc %s: peak_requested_bytes %d past what it allocated (%d) or the capacity (%d)"
          % (p["policy"], p["peak_requested_bytes"], p["peak_allocated_bytes"], p["capacity_bytes"]))

# 2. No old name and no 17-digit real in any output.
outputs = {
    "run json": out("run", "--format", "json", demo),
    "run csv": out("run", "--format", "csv", demo),
    "sweep csv": out("sweep", "--vary", "tlb.l1d.entries=16,64", stride),
    "mrc csv": out("mrc", "--max-entries", "64", stride),
    "chase csv": out("chase", "--preset", "h200", "--footprint", "128M,32G", "--stride", "2M", "--order", "random"),
    "alloc csv": out("alloc", "--format", "csv", "--capacity", "64K", "--policy", "first-fit,buddy", alloc_trace),
    "gather csv": out("gather", "--footprint", "256M", "--threads-per-sm", "32", "--loads-per-thread", "8",
                      "--nodes", "1024"),
    "quiz json": out("quiz", "--seed", "3", "--answers", "--format", "json"),
    "gather --launch json": out("gather", "--footprint", "256M", "--launch", "132x256", "--loads-per-thread", "8",
                                "--nodes", "1024", "--format", "json"),
    "uvm json": out("uvm", "--size", "256M", "--init", "gpu,host_prefetch", "--first", "stream", "--format", "json"),
    "kernel json": out("kernel", "--stats", "--format", "json", os.path.join(src, "traces/kernels/kernelslist.g")),
}
for name, text in outputs.items():
    check(not OLD_NAMES.search(text), "%s: an old name: %s" % (name, OLD_NAMES.findall(text)[:3]))
    check(not too_long(text), "%s: reals in more digits than they need: %s" % (name, too_long(text)[:3]))
    check(REAL.search(text) or name in ("quiz json", "kernel json"), "%s: no real to check" % name)

for name in ("gather --launch json", "uvm json", "kernel json"):
    check(isinstance(json.loads(outputs[name]), list), "%s: not a list of rows" % name)

# 3. A level never looked up: null in JSON, empty in CSV, '-' in text.
doc = json.loads(outputs["run json"])
check(doc["tlb"]["l1i"]["accesses"] == 0 and doc["tlb"]["l1i"]["miss_ratio"] is None,
      "run json: l1i never looked up, miss_ratio %r" % doc["tlb"]["l1i"].get("miss_ratio"))
check(doc["tlb"]["l1d"]["miss_ratio"] == 24 / 46, "run json: l1d miss_ratio reads back as 24/46")
row = rows(outputs["run csv"])[0]
check(row["tlb.l1i.miss_ratio"] == "" and row["tlb.l1d.miss_ratio"] == repr(24 / 46),
      "run csv: l1i miss_ratio %r, l1d %r" % (row["tlb.l1i.miss_ratio"], row["tlb.l1d.miss_ratio"]))
text = out("run", demo)
check(re.search(r"^l1i +0 +0 +0 +- +0$", text, re.M) is not None, "run text: l1i's miss %% is not '-'")
chase = rows(outputs["chase csv"])
check(chase[0]["tlb.l2.miss_ratio"] == "" and chase[0]["tlb.l1d.miss_ratio"] == "0.0",
      "chase csv at 128 MiB: L2 never looked up: %r" % chase[0]["tlb.l2.miss_ratio"])
check(chase[1]["tlb.l2.miss_ratio"] == "0.0", "chase csv at 32 GiB: L2 looked up, all hits")
empty = os.path.join(work, "maps.trace")
with open(empty, "w") as f:
    f.write("map 0x1000 4K\n")
doc = json.loads(out("run", "--format", "json", empty))
check(doc["accesses"] == 0 and doc["cycles_per_access"] is None, "run json of no access: cycles_per_access not null")
check(all(p["cycles_per_access"] is None or p["accesses"] for p in json.loads(outputs["run json"])["phases"]),
      "run json: a phase of no access has a cycles_per_access")

# 4. JSON and CSV of one report: the same names and values.
doc = flat(json.loads(outputs["run json"]))
row = rows(outputs["run csv"])[0]
check(list(doc) == list(row), "run: json and csv name different columns")
check(all(row[k] == ("" if v is None else json.dumps(v) if not isinstance(v, str) else v) for k, v in doc.items()),
      "run: json and csv values differ")

# 5. sweep keeps run's columns (config too), and a row is that configuration's run.
sweep = rows(outputs["sweep csv"])
run = rows(out("run", "--format", "csv", "--set", "tlb.l1d.entries=64", stride))[0]
check(all(k in sweep[1] for k in run), "sweep lacks run's columns: %s" % [k for k in run if k not in sweep[1]][:5])
check(sweep[1]["config"] == run["config"] == "x86-64", "sweep's config column: %r" % sweep[1].get("config"))
check(all(sweep[1][k] == v for k, v in run.items() if k != "trace"), "sweep's row differs from run's")

# 6. Text counts its nouns: "1 write", "1 faulting access", "1 entry read", never "1 writes".
one = os.path.join(work, "one.trace")
with open(one, "w") as f:
    f.write("map 0x1000 4K prot=r\nw 0x1000 8\nr 0x1000 8\nunmap 0x1000 4K\n")
text = out("run", one)
check("accesses  2 (1 read, 1 write, 0 fetches; 0 straddle pages)" in text, "run text: 1 read, 1 write: %s" % text[:200])
check("1 faulting access\n" in text and "layout    0 allocs, 0 frees, 1 map, 1 unmap, 0 OOMs" in text,
      "run text: 1 faulting access, 1 map")
check("; 1 entry read" in out("explain", "--preset", "csapp", "0x3d4"), "explain: 1 entry read")
check(not re.search(r"\b1 (entries|writes|reads|fetches|accesses|lookups|maps|unmaps|requests|pages)\b", text + out(
    "dump", "--preset", "teaching", os.path.join(src, "traces/samples/teaching.trace"))), "a '1 <plural>' left")

print("shapes: %d checks, %d failed" % (checks, len(failures)))
sys.exit(1 if failures else 0)
