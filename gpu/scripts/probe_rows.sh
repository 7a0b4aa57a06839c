#!/usr/bin/env bash
# The probe's points (gpu/scripts/probe.sh) picked out of a committed chase
# sweep: what that machine's probe would have measured, and the rest.
#   gpu/scripts/probe_rows.sh [--some] SWEEP.csv PROBE.csv REST.csv
# PROBE.csv gets the header and the rows of the probe's mapping, stride and
# footprints (both orders); REST.csv the header and every other row. Exit 1
# unless the sweep holds all of the probe's points (10 rows); with --some,
# any of them (a sweep measured beside a probe of its own, whose points it
# repeats in part: REST.csv is then what the probe did not measure).
set -euo pipefail
some=0
[ "${1:-}" = --some ] && some=1 && shift
[ $# = 3 ] || { echo "usage: gpu/scripts/probe_rows.sh [--some] SWEEP.csv PROBE.csv REST.csv" >&2; exit 2; }
# The probe's stride and footprints in bytes, from its own options.
read -r mapping stride footprints < <(bash "$(dirname "$0")/probe.sh" --args | awk '
  function bytes(s,   u) { u = substr(s, length(s)); return (s + 0) * (u == "M" ? 2^20 : u == "G" ? 2^30 : u == "T" ? 2^40 : 1) }
  { for (i = 1; i < NF; i++) { if ($i == "--mapping") m = $(i + 1); if ($i == "--stride") st = bytes($(i + 1))
      if ($i == "--footprint") fl = $(i + 1) }
    n = split(fl, f, ","); out = ""; for (k = 1; k <= n; k++) out = out (k > 1 ? "," : "") sprintf("%.0f", bytes(f[k]))
    printf "%s %.0f %s\n", m, st, out }')
awk -F, -v some="$some" -v mapping="$mapping" -v stride="$stride" -v fps="$footprints" -v probe="$2" -v rest="$3" '
  BEGIN { n = split(fps, f, ","); for (k = 1; k <= n; k++) want[f[k]] = 1 }
  NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print >probe; print >rest; next }
  { if ($c["mapping"] == mapping && $c["stride_bytes"] == stride && ($c["footprint_bytes"] in want)) { print >probe; got++ }
    else print >rest }
  END { if (!some && got != 2 * n) { printf "%s: %d of the probe'"'"'s %d points\n", FILENAME, got, 2 * n >"/dev/stderr"; exit 1 } }' "$1"
