#!/usr/bin/env bash
# tlbsim validate on kernel-model rows (embed, stream, latency chase) in each
# --format: the text summary, the JSON document (one point per compared row,
# its error_pct; the mean and worst the points' own) and the CSV summary row
# agree; --min-footprint's rows are counted as skipped. One row of each
# kind, one L2-TLB group: seconds under the sanitizers.
# Usage: validate_kformats.sh TLBSIM SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
res=$src/gpu/results/h200/run4

# the 1 MiB read of stream.csv, one pass (the measured GB/s kept: the check is of the formats, not the model)
{ head -1 "$res/stream.csv"; sed -n 2p "$res/stream.csv" | awk -F, 'BEGIN {OFS = ","} {$5 = 1048576; $6 = 1; print}'; } \
  >"$work/stream1.csv"

check() { # check NAME UNIT ROWS SKIPPED VALIDATE-ARGS...
  local name=$1 unit=$2 rows=$3 skipped=$4
  shift 4
  local text json csv
  text=$("$tlbsim" validate --groups 1 "$@") || { bad "$name: text"; return; }
  json=$("$tlbsim" validate --groups 1 --format json "$@") || { bad "$name: json"; return; }
  csv=$("$tlbsim" validate --groups 1 --format csv "$@") || { bad "$name: csv"; return; }
  summary=$(tail -1 <<<"$text")
  grep -Eq "^$rows $name rows compared with preset h200 \($unit\): mean absolute error [0-9.]+%, worst [0-9.]+% \(line [0-9]+\)$" \
    <<<"$summary" && ok || bad "$name: text summary: $summary"
  python3 -c '
import csv, io, json, re, sys
name, rows, skipped, text, doc, table = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
d = json.loads(doc)
assert d["rows"] == rows == len(d["points"]) and d["skipped"] == skipped, d
errs = [abs(p["error_pct"]) for p in d["points"]]
for p in d["points"]:
    m = [k for k in p if k.startswith("measured_")]
    assert len(m) == 1, p
    pred = p["predicted_" + m[0][len("measured_"):]]
    assert abs(100 * (pred - p[m[0]]) / p[m[0]] - p["error_pct"]) < 1e-9, p
assert abs(sum(errs) / len(errs) - d["mean_abs_error_pct"]) < 1e-9 and max(errs) == d["worst_error_pct"], d
worst = max(d["points"], key=lambda p: abs(p["error_pct"]))
assert worst["line"] == d["worst_line"], d
t = re.search(r"mean absolute error ([0-9.]+)%, worst ([0-9.]+)% \(line ([0-9]+)\)", text)
assert abs(float(t[1]) - d["mean_abs_error_pct"]) < 0.006 and int(t[3]) == d["worst_line"], (text, d)
r = list(csv.DictReader(io.StringIO(table)))
assert len(r) == 1 and int(r[0]["rows"]) == rows and int(r[0]["skipped"]) == skipped, r
assert float(r[0]["mean_abs_error_pct"]) == d["mean_abs_error_pct"] and int(r[0]["worst_line"]) == d["worst_line"], r
' "$name" "$rows" "$skipped" "$summary" "$json" "$csv" && ok || bad "$name: formats disagree: $json / $csv"
}

check kernel "lookups per ns" 1 0 "$res/embed_trace_r64.csv"
check stream "GB/s" 1 0 "$work/stream1.csv"
check latency-chase "cycles per access" 3 8 --min-footprint 16G "$res/dram_chase.csv"
check latency-chase "cycles per access" 2 0 --every 9 "$res/l2_chase.csv"

# no row left by the filters: an input error, one line
out=$("$tlbsim" validate --format json --min-footprint 1T "$res/dram_chase.csv" 2>&1)
[ $? = 1 ] && [ "$out" = "$res/dram_chase.csv: no latency-chase rows to compare" ] && ok || bad "no rows: $out"
finish validate_kformats
