#!/usr/bin/env python3
"""Runs `tlbsim validate --format json` over a measured CSV in JOBS processes
at once (row k of the CSV in shard k mod JOBS, each shard a CSV of its own
with the header) and merges their points into one document of validate's
JSON schema (docs/OUTPUT.md), each point's `line` that of the original CSV;
the summary line, as validate prints it, goes to stderr. For CSVs whose rows
each take seconds (embed rows: ~4 s of one core each) on a machine of many
cores. Embed rows are predicted each on its own, so the merged points are
the ones one validate run gives; stream and latency-chase rows map the
buffer of their file's largest row, which a shard may not hold (its
predictions can then differ a little from one run's).

usage: validate_parallel.py TLBSIM CSV JOBS [validate options...] > merged.json
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    tlbsim, path, extra = sys.argv[1], sys.argv[2], sys.argv[4:]
    if not sys.argv[3].isdigit() or int(sys.argv[3]) < 1:
        sys.exit("validate_parallel: JOBS '%s' is not a whole number from 1" % sys.argv[3])
    jobs = int(sys.argv[3])
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        sys.exit("%s: %s" % (path, e.strerror))
    if not lines:
        sys.exit("%s:1: empty: no header" % path)
    header, *rows = lines
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for s in range(min(jobs, len(rows))):
            shard = os.path.join(tmp, "shard%d.csv" % s)
            with open(shard, "w") as f:
                f.write("\n".join([header] + rows[s::jobs]) + "\n")
            procs.append(subprocess.Popen([tlbsim, "validate", "--format", "json", "--quiet"] + extra + [shard],
                                          stdout=subprocess.PIPE))
        points, skipped, preset = [], 0, None
        for s, p in enumerate(procs):
            out, _ = p.communicate()
            if p.returncode not in (0, 1) or not out:
                sys.exit("validate_parallel: shard %d: validate exited %d" % (s, p.returncode))
            doc = json.loads(out)
            preset, skipped = doc["preset"], skipped + doc["skipped"]
            for q in doc["points"]:
                q["line"] = 2 + s + jobs * (q["line"] - 2)  # shard line -> the CSV's
                points.append(q)
    points.sort(key=lambda q: q["line"])
    errs = [abs(q["error_pct"]) for q in points]
    if not errs:
        sys.exit("%s: no rows to compare" % path)
    worst = max(points, key=lambda q: abs(q["error_pct"]))
    doc = {"csv": path, "preset": preset, "rows": len(points), "skipped": skipped,
           "mean_abs_error_pct": sum(errs) / len(errs), "worst_error_pct": abs(worst["error_pct"]),
           "worst_line": worst["line"], "points": points}
    json.dump(doc, sys.stdout, indent=1)
    print()
    print("%d rows compared with preset %s: mean absolute error %.2f%%, worst %.2f%% (line %d)"
          % (doc["rows"], preset, doc["mean_abs_error_pct"], doc["worst_error_pct"], doc["worst_line"]),
          file=sys.stderr)


if __name__ == "__main__":
    main()
