#!/usr/bin/env bash
# tlbsim sweep counts exactly what separate `tlbsim run --set`s count: every
# row of a sweep over two varied keys (and a third that removes a walk
# cache, so the union of columns leaves fields empty) equals, column by
# column, the CSV of a run of the same configuration, on a generated lackey
# trace and the bundled din sample. -j 1, 2 and 3 give the same bytes. The
# window: --max N is a run of the first N accesses, --skip N a run of the
# rest, --warmup N the whole run less the first N; --interval N rows add up
# to the whole run's. Then the formats and the
# errors (usage: exit 2 and "tlbsim sweep: ..."; bad input: exit 1 and one
# FILE:LINE line).
# Usage: sweep.sh TLBSIM SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
need python3

# 20,000 data accesses over 600 near pages and 300 far ones, some
# straddling; an instruction fetch every tenth line. Accesses only, so line
# N is access N.
awk 'BEGIN {
  srand(11)
  for (i = 0; i < 20000; i++) {
    if (i % 10 == 0) { printf "I  %08x,4\n", 4194304 + (i % 4096) * 4; continue }
    far = rand() < 0.3
    page = far ? int(rand() * 300) + 1048576 : int(rand() * rand() * 600) + 256
    off = rand() < 0.05 ? 4096 - int(rand() * 8) : int(rand() * 4096)
    printf " %s %x,%d\n", substr("LSM", int(rand() * 3) + 1, 1), page * 4096 + off, int(rand() * 64) + 1
  }
}' >"$work/gen.lackey"
din=$src/traces/samples/stride.din

# same_columns SWEEP_CSV ROW RUN_CSV: every column the run's CSV has (but
# trace and config) equals the sweep row's field of the same name.
same_columns() {
  awk -F, -v row="$2" '
    FNR == 1 { for (i = 1; i <= NF; i++) name[FILENAME, i] = $i; n[FILENAME] = NF; next }
    FILENAME == ARGV[1] && FNR == row + 1 { for (i = 1; i <= NF; i++) sweep[name[FILENAME, i]] = $i; seen = 1 }
    FILENAME == ARGV[2] && FNR == 2 {
      for (i = 1; i <= NF; i++) {
        k = name[FILENAME, i]
        if (k == "trace" || k == "config") continue
        checked++
        if (!(k in sweep) || sweep[k] != $i) { print k ": sweep \"" sweep[k] "\", run \"" $i "\""; bad = 1 }
      }
    }
    END { if (!seen || checked < 40) { print "row " row " missing or too few columns (" checked ")"; bad = 1 }; exit bad }
  ' "$1" "$3"
}

# The sweep: l1d entries × stlb ways × the PD walk cache present or not.
l1d=(16 32 64) stlb=(6 12) pd=(0 32)
vary=(--vary "tlb.l1d.entries=16,32,64" --vary "tlb.stlb.ways=6,12" --vary "pwc.PD.entries=0,32")
for t in "$work/gen.lackey" "$din"; do
  "$tlbsim" sweep --preset x86-64 --set tlb.l1d.ways=2 "${vary[@]}" "$t" >"$work/sweep.csv" ||
    { bad "sweep of $t"; continue; }
  [ "$(wc -l <"$work/sweep.csv")" = 13 ] && ok || bad "$t: $(wc -l <"$work/sweep.csv") lines, want 13"
  row=0
  for a in "${l1d[@]}"; do for b in "${stlb[@]}"; do for c in "${pd[@]}"; do
    row=$((row + 1))
    "$tlbsim" run --preset x86-64 --set tlb.l1d.ways=2 --set tlb.l1d.entries=$a --set tlb.stlb.ways=$b \
      --set pwc.PD.entries=$c --format csv "$t" >"$work/run.csv" || { bad "run $a $b $c"; continue; }
    want=$(awk -F, -v r=$((row + 1)) 'NR == r {print $1 "," $2 "," $3 "," $4}' "$work/sweep.csv")
    [ "$want" = "$t,$a,$b,$c" ] && ok || bad "row $row is '$want', want '$t,$a,$b,$c'"
    if out=$(same_columns "$work/sweep.csv" $row "$work/run.csv"); then ok
    else bad "$(basename "$t") l1d $a stlb ways $b PD $c: $out"; fi
  done; done; done
done

# The union of columns: a configuration without the PD walk cache leaves its fields empty.
head -1 "$work/sweep.csv" | tr , '\n' | grep -qx pwc.PD.hits && ok || bad "no pwc.PD.hits column"
col=$(head -1 "$work/sweep.csv" | tr , '\n' | grep -nx pwc.PD.hits | cut -d: -f1)
[ "$(awk -F, -v c="$col" 'NR > 1 {print ($c == "") ? "e" : "n"}' "$work/sweep.csv" | tr -d '\n')" = enenenenenen ] &&
  ok || bad "pwc.PD.hits should be empty exactly where pwc.PD.entries is 0"

# Threads: the same bytes whatever -j, over two traces.
"$tlbsim" sweep "${vary[@]}" -j 1 "$work/gen.lackey" "$din" >"$work/j1.csv"
for j in "-j 2" "-j3" "--jobs 12"; do
  # shellcheck disable=SC2086
  "$tlbsim" sweep "${vary[@]}" $j "$work/gen.lackey" "$din" | cmp -s - "$work/j1.csv" && ok || bad "$j differs from -j 1"
done
[ "$(wc -l <"$work/j1.csv")" = 25 ] && ok || bad "two traces: $(wc -l <"$work/j1.csv") lines, want 25"

# The window, against runs of parts of the trace (every line an access).
column() { awk -F, -v k="$2" -v r="$3" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == k) c = i} NR == r + 1 && c {print $c}' "$1"; }
keys="accesses tlb.l1d.misses tlb.stlb.misses walks walk_refs cycles page_faults"
head -n 7000 "$work/gen.lackey" >"$work/head.lackey"
tail -n +7001 "$work/gen.lackey" >"$work/tail.lackey"
v2=(--vary "tlb.l1d.entries=16,64")
"$tlbsim" sweep "${v2[@]}" --max 7000 "$work/gen.lackey" >"$work/max.csv"
"$tlbsim" sweep "${v2[@]}" "$work/head.lackey" >"$work/head.csv"
"$tlbsim" sweep "${v2[@]}" --skip 7000 "$work/gen.lackey" >"$work/skip.csv"
"$tlbsim" sweep "${v2[@]}" "$work/tail.lackey" >"$work/tail.csv"
"$tlbsim" sweep "${v2[@]}" --warmup 7000 "$work/gen.lackey" >"$work/warm.csv"
"$tlbsim" sweep "${v2[@]}" "$work/gen.lackey" >"$work/all.csv"
for r in 1 2; do
  for k in $keys; do
    [ "$(column "$work/max.csv" "$k" $r)" = "$(column "$work/head.csv" "$k" $r)" ] && ok || bad "--max 7000: $k, row $r"
    [ "$(column "$work/skip.csv" "$k" $r)" = "$(column "$work/tail.csv" "$k" $r)" ] && ok || bad "--skip 7000: $k, row $r"
    want=$(($(column "$work/all.csv" "$k" $r) - $(column "$work/head.csv" "$k" $r)))
    [ "$(column "$work/warm.csv" "$k" $r)" = "$want" ] && ok || bad "--warmup 7000: $k, row $r: want $want"
  done
done
[ "$(column "$work/warm.csv" accesses 1)" = 13000 ] && ok || bad "--warmup 7000 counts 13000 accesses"
"$tlbsim" sweep "${v2[@]}" --skip 1000 --warmup 2000 --max 5000 "$work/gen.lackey" >"$work/win.csv"
[ "$(column "$work/win.csv" accesses 1)" = 3000 ] && ok || bad "--skip 1000 --warmup 2000 --max 5000: 3000 accesses"
# Blocks of 4096: a window that ends inside the first block, cut the same with -j 2.
"$tlbsim" sweep "${v2[@]}" --skip 3 --warmup 5 --max 10 -j 2 "$work/gen.lackey" >"$work/tiny.csv"
[ "$(column "$work/tiny.csv" accesses 2)" = 5 ] && ok || bad "--skip 3 --warmup 5 --max 10: 5 accesses"

# A trace that ends within the warm-up counts nothing.
"$tlbsim" sweep --warmup 25000 "$work/gen.lackey" >"$work/none.csv"
[ "$(column "$work/none.csv" accesses 1),$(column "$work/none.csv" tlb.l1d.misses 1)" = 0,0 ] && ok ||
  bad "--warmup 25000 of 20000 accesses: counts remain"

# --interval N: per trace and configuration, rows 0, 1, ... ending every N
# counted accesses (the last one at the trace's or --max's end); their
# counts add up to the whole replay's row, their levels (page-table and
# memory usage) at the last row are the whole replay's. Over a generated
# lackey trace and the native demo (records that are not accesses: maps,
# allocs, context switches), with and without a window, -j 1 and 2.
# interval_sums WHOLE_CSV INTERVAL_CSV N NAXES: nothing printed when they agree.
interval_sums() {
  awk -F, -v N="$3" -v na="$4" '
    function level(k) { return k ~ /^page_table|^phys_used/ }
    FNR == 1 { for (i = 1; i <= NF; i++) name[FILENAME, i] = $i; next }
    FILENAME == ARGV[1] {
      key = $1; for (i = 2; i <= na + 1; i++) key = key "," $i
      order[++nrows] = key
      for (i = na + 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) whole[key, name[FILENAME, i]] = $i
      next
    }
    {
      key = $1; for (i = 2; i <= na + 1; i++) key = key "," $i
      iv = $(na + 2)
      if (iv != count[key]++) { print key ": interval " iv ", want " count[key] - 1; bad = 1 }
      ends[key, iv] = $(na + 3)
      for (i = na + 4; i <= NF; i++) {
        k = name[FILENAME, i]
        if ($i !~ /^[0-9]+$/) continue
        if (level(k)) lev[key, k] = $i; else sum[key, k] += $i
      }
    }
    END {
      for (r = 1; r <= nrows; r++) {
        key = order[r]
        for (i = 1; i < count[key] - 1; i++)
          if (ends[key, i] != ends[key, i - 1] + N) { print key ": accesses_end " ends[key, i] " after " ends[key, i - 1]; bad = 1 }
        if (count[key] > 1 && ends[key, count[key] - 1] <= ends[key, count[key] - 2]) { print key ": last accesses_end"; bad = 1 }
        for (kk in whole) {
          split(kk, part, SUBSEP); if (part[1] != key) continue
          k = part[2]; got = level(k) ? lev[key, k] : sum[key, k]
          if (!count[key]) { if (level(k)) continue; got = 0 } # a trace that ended in the warm-up: nothing counted
          checked++
          if (got != whole[kk]) { print key " " k ": intervals " got ", whole run " whole[kk]; bad = 1 }
        }
      }
      if (checked < 100) { print "too few columns checked (" checked ")"; bad = 1 }
      exit bad
    }' "$1" "$2"
}
demo=$src/traces/samples/demo.trace
for args in "-j 1" "-j 2 --skip 1000 --warmup 2000 --max 15000" "-j 2 --warmup 700"; do
  # shellcheck disable=SC2086
  "$tlbsim" sweep "${vary[@]}" $args "$work/gen.lackey" "$demo" >"$work/whole.csv"
  for n in 1000 7 4096; do
    # shellcheck disable=SC2086
    "$tlbsim" sweep "${vary[@]}" $args --interval $n "$work/gen.lackey" "$demo" >"$work/iv.csv" ||
      { bad "--interval $n $args"; continue; }
    if out=$(interval_sums "$work/whole.csv" "$work/iv.csv" $n 3); then ok; else bad "--interval $n $args: $out"; fi
  done
done
"$tlbsim" sweep "${v2[@]}" --interval 5000 "$work/gen.lackey" >"$work/iv.csv"
[ "$(head -1 "$work/iv.csv" | cut -d, -f1-5)" = "trace,tlb.l1d.entries,interval,accesses_end,trace_format" ] && ok ||
  bad "--interval header: $(head -1 "$work/iv.csv" | cut -d, -f1-5)"
[ "$(tail -n +2 "$work/iv.csv" | cut -d, -f2-4 | tr '\n' ' ')" = \
  "16,0,5000 64,0,5000 16,1,10000 64,1,10000 16,2,15000 64,2,15000 16,3,20000 64,3,20000 " ] && ok ||
  bad "--interval 5000 rows: $(tail -n +2 "$work/iv.csv" | cut -d, -f2-4 | tr '\n' ' ')"
"$tlbsim" sweep "${v2[@]}" --interval 3000 -j 2 --skip 500 --max 7000 "$work/gen.lackey" | cut -d, -f3,4 >"$work/ivw"
[ "$(tail -n +2 "$work/ivw" | tr '\n' ' ')" = "0,3500 0,3500 1,6500 1,6500 2,7500 2,7500 " ] && ok ||
  bad "--interval 3000 --skip 500 --max 7000: $(tr '\n' ' ' <"$work/ivw")"
# The same interval rows as JSON lines (one object per row, every CSV column
# under its header's name) and as one text table per interval.
"$tlbsim" sweep "${v2[@]}" --interval 3000 -j 2 --skip 500 --max 7000 "$work/gen.lackey" >"$work/ivc.csv"
"$tlbsim" sweep "${v2[@]}" --interval 3000 -j 2 --skip 500 --max 7000 --format json "$work/gen.lackey" >"$work/ivj"
python3 - "$work/ivc.csv" "$work/ivj" <<'PY' && ok || bad "--interval --format json differs from the CSV"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
objs = [json.loads(line) for line in open(sys.argv[2])]
assert len(rows) == len(objs) == 6, (len(rows), len(objs))
for r, o in zip(rows, objs):
    assert list(r) == list(o), "keys"
    for k, v in r.items():
        j = o[k]
        assert (v == "" and j is None) or str(j) == v or abs(float(j) - float(v)) < 1e-12, (k, v, j)
PY
"$tlbsim" sweep "${v2[@]}" --interval 3000 -j 2 --skip 500 --max 7000 --format text "$work/gen.lackey" >"$work/ivt"
[ "$(grep -c '^interval ' "$work/ivt")" = 3 ] &&
  [ "$(awk '/^tlb.l1d.misses /{printf "%s,%s ", $2, $3}' "$work/ivt")" = \
    "$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="tlb.l1d.misses") c=i; next} {printf "%s%s", $c, NR%2 ? " " : ","}' "$work/ivc.csv")" ] &&
  ok || bad "--interval --format text: $(grep '^tlb.l1d.misses ' "$work/ivt" | tr '\n' '|')"
# plots/sweep_interval.gp draws it (one line per configuration, two axes).
if have gnuplot; then
  "$tlbsim" sweep --vary tlb.l1d.entries=16,64 --vary tlb.stlb.ways=6,12 --interval 2000 "$work/gen.lackey" >"$work/iv2.csv"
  gnuplot -e "file='$work/iv2.csv'; out='$work/iv.png'; naxes=2" "$src/plots/sweep_interval.gp" 2>"$work/gp.err" &&
    [ -s "$work/iv.png" ] && [ ! -s "$work/gp.err" ] && ok || bad "plots/sweep_interval.gp: $(cat "$work/gp.err")"
fi
[ "$("$tlbsim" sweep --warmup 25000 --interval 100 "$work/gen.lackey" | wc -l)" = 1 ] && ok ||
  bad "--interval in a trace that ends within the warm-up: header only"

# Formats, stdin and gzip.
"$tlbsim" sweep "${v2[@]}" "$din" >"$work/a.csv"
[ "$(head -1 "$work/a.csv" | cut -d, -f1-5)" = "trace,tlb.l1d.entries,trace_format,config,page_table_format" ] && ok || bad "CSV header"
"$tlbsim" sweep "${v2[@]}" - <"$din" | tail -n +2 | cut -d, -f2- | cmp -s - <(tail -n +2 "$work/a.csv" | cut -d, -f2-) &&
  ok || bad "stdin"
gzip -c "$din" >"$work/d.gz"
"$tlbsim" sweep "${v2[@]}" "$work/d.gz" | tail -n +2 | cut -d, -f2- | cmp -s - <(tail -n +2 "$work/a.csv" | cut -d, -f2-) &&
  ok || bad "gzip"
[ "$("$tlbsim" sweep --format json "${v2[@]}" "$din" | grep -c '"tlb.l1d.misses"')" = 2 ] && ok || bad "json"
[ "$("$tlbsim" sweep --format text "${v2[@]}" "$din" | grep -c '^tlb.l1d.misses ')" = 1 ] && ok || bad "text"
[ "$("$tlbsim" sweep "$din" | wc -l)" = 2 ] && ok || bad "no --vary: one configuration"

# check EXPECTED_STATUS STDERR_SUBSTRING -- command...
check() {
  local want=$1 pattern=$2
  shift 3
  "$@" >"$work/out" 2>"$work/err" </dev/null
  local got=$? lines
  lines=$(wc -l <"$work/err")
  if [ "$got" = "$want" ] && grep -qF -- "$pattern" "$work/err" && [ "$lines" = 1 ]; then ok
  else
    bad "$* -> exit $got (want $want), stderr ($lines lines):"
    sed 's/^/    /' "$work/err"
  fi
}
printf ' L 1000,8\n L 2000,eight\n' >"$work/bad.lackey"
g=$work/gen.lackey
S="tlbsim sweep: --vary:"
check 2 "$S 'tlb.l1d.entries=' is not SECTION.KEY=V1,V2,... with no empty key or value" -- \
  "$tlbsim" sweep --vary tlb.l1d.entries= "$g"
check 2 "$S 'tlb.l1d.entries=16,,32' is not SECTION.KEY" -- "$tlbsim" sweep --vary tlb.l1d.entries=16,,32 "$g"
check 2 "$S 'entries=16' is not SECTION.KEY" -- "$tlbsim" sweep --vary entries=16 "$g"
check 2 "$S 'tlb.l1d.entries' is not SECTION.KEY" -- "$tlbsim" sweep --vary tlb.l1d.entries "$g"
check 2 "$S 'tlb.l1d.entries=32' is not a key not varied before (tlb.l1d.entries is)" -- \
  "$tlbsim" sweep --vary tlb.l1d.entries=16 --vary tlb.l1d.entries=32 "$g"
check 2 "$S 'tlb.l1d.entries=16,16' is not a list of distinct values ('16' twice)" -- \
  "$tlbsim" sweep --vary tlb.l1d.entries=16,16 "$g"
check 2 "is not within 4096 configurations in all" -- "$tlbsim" sweep --vary "machine.seed=$(seq -s, 1 64)" \
  --vary "tlb.l1d.latency=$(seq -s, 1 65)" "$g"
check 1 "--vary:1: unknown key 'bogus' in [tlb.l1d]" -- "$tlbsim" sweep --vary tlb.l1d.bogus=1,2 "$g"
check 1 "--vary:2: tlb.l1d.entries: 'abc' is not a whole number" -- \
  "$tlbsim" sweep --vary tlb.l1d.ways=4 --vary tlb.l1d.entries=16,abc "$g"
check 1 "--vary:1: tlb.stlb.entries: ways (12) does not divide entries (64)" -- \
  "$tlbsim" sweep --vary tlb.stlb.entries=96,64 "$g"
check 1 "--set:1: unknown key 'bogus' in [tlb.l1d]" -- "$tlbsim" sweep --set tlb.l1d.bogus=1 --vary tlb.l1d.entries=16 "$g"
check 2 "tlbsim sweep: --jobs: '0' is out of range (1..64)" -- "$tlbsim" sweep -j 0 "$g"
check 2 "tlbsim sweep: --max: '0' is out of range" -- "$tlbsim" sweep --max 0 "$g"
check 2 "tlbsim sweep: --warmup (50) leaves nothing of --max (50) to count" -- "$tlbsim" sweep --warmup 50 --max 50 "$g"
check 2 "tlbsim sweep: --interval: '0' is out of range" -- "$tlbsim" sweep --interval 0 "$g"
check 2 "tlbsim sweep: --skip: 'x' is not a whole number" -- "$tlbsim" sweep --skip x "$g"
check 2 "tlbsim sweep: expected at least one TRACE" -- "$tlbsim" sweep --vary tlb.l1d.entries=16
check 2 "tlbsim sweep: --format: 'xml' is not text, json or csv" -- "$tlbsim" sweep --format xml "$g"
check 1 "$work/bad.lackey:2:" -- "$tlbsim" sweep --vary tlb.l1d.entries=16,32 -j 2 "$work/bad.lackey"
printf ' L 1000,8\n L 2000,8\n L fff0ffffffff0000,8\n' >"$work/wide.lackey"
check 1 "$work/wide.lackey:3: address 0xfff0ffffffff0000 is beyond the 48-bit" -- \
  "$tlbsim" sweep --vary tlb.l1d.entries=16,32 -j 2 "$work/wide.lackey"
check 1 "$work/missing.trace" -- "$tlbsim" sweep "$g" "$work/missing.trace"
"$tlbsim" sweep --help | grep -q '^usage: tlbsim sweep' && ok || bad "--help"
"$tlbsim" sweep --help | grep -q -- '--vary S.K=V1,V2,...' && ok || bad "--help lists --vary"

finish sweep
