#!/usr/bin/env bash
# tlbsim sweep --emit slurm / --merge without Slurm: every task of the
# manifest is run through the emitted script's own command lines (`bash
# DIR/sweep.sbatch TASK`, as an array task runs it), and the merged CSV is
# byte for byte the plain sweep's, for several slicings (one task per
# trace, configurations cut unevenly, one per configuration), with a
# window, -j 2, a walk cache removed in some slices (the header is still
# the whole grid's), and --interval; the README's GNU parallel one-liner
# when parallel is installed. Then --merge's checks: a missing task,
# a task's CSV cut short, a stray CSV in out/ (a task run twice under
# another number), a task listed twice, a different header, a damaged
# manifest, each a FILE[:LINE] message and exit 1 with nothing on stdout.
# Usage: sweep_cluster.sh TLBSIM SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
cd "$work" || exit 1
cp "$src/traces/samples/stride.din" "$src/traces/samples/demo.trace" "$src/traces/samples/stride.lackey" .

# run_tasks DIR: every task of DIR/manifest.tsv through DIR/sweep.sbatch.
run_tasks() {
  local t
  for t in $(tail -n +2 "$1/manifest.tsv" | cut -f1); do
    bash "$1/sweep.sbatch" "$t" || { bad "task $t of $1"; return 1; }
  done
}

# case NAME SLICES OPTIONS... -- TRACES...: emit, run, merge, compare.
case_() {
  local name=$1 slices=$2
  shift 2
  local opts=() traces
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  traces=("$@")
  "$tlbsim" sweep "${opts[@]}" "${traces[@]}" >"plain.$name.csv" || { bad "$name: plain sweep"; return; }
  "$tlbsim" sweep "${opts[@]}" --slices "$slices" --emit slurm "d.$name" "${traces[@]}" ||
    { bad "$name: emit"; return; }
  [ -x "d.$name/sweep.sbatch" ] && [ -d "d.$name/out" ] && ok || bad "$name: no executable script or out/"
  run_tasks "d.$name" || return
  "$tlbsim" sweep --merge "d.$name" >"merged.$name.csv" || { bad "$name: merge"; return; }
  cmp -s "plain.$name.csv" "merged.$name.csv" && ok || bad "$name: merged CSV differs from the plain sweep"
}

vary=(--vary "tlb.l1d.entries=16,32,64" --vary "pwc.PD.entries=0,32" --vary "tlb.stlb.ways=6,12")
case_ whole 1 "${vary[@]}" -- stride.din demo.trace stride.lackey
case_ uneven 5 "${vary[@]}" --warmup 100 --max 1200 -j 2 -- stride.din demo.trace stride.lackey
case_ each 12 "${vary[@]}" --set tlb.l1d.ways=2 -- stride.lackey
case_ more 40 --vary "tlb.l1d.entries=16,64" -- stride.din
[ "$(tail -n +2 d.uneven/manifest.tsv | wc -l)" = 15 ] && ok || bad "5 slices of 3 traces: 15 tasks"
[ "$(tail -n +2 d.more/manifest.tsv | wc -l)" = 2 ] && ok || bad "40 slices of 2 configurations: 2 tasks"
[ "$(sed -n 2p d.uneven/manifest.tsv)" = "$(printf '0\tstride.din\t0-1\t2\tout/0.csv')" ] && ok ||
  bad "manifest line 2: $(sed -n 2p d.uneven/manifest.tsv)"
grep -q '^#SBATCH --array=0-14$' d.uneven/sweep.sbatch && ok || bad "#SBATCH --array=0-14"
grep -q '^#SBATCH --cpus-per-task=2$' d.uneven/sweep.sbatch && ok || bad "#SBATCH --cpus-per-task=2"
# The slice with configurations 0-1 has no PD walk cache, yet its header is the grid's.
[ "$(head -1 d.uneven/out/0.csv)" = "$(head -1 plain.uneven.csv)" ] && ok || bad "a slice's header is the whole grid's"

# The README's GNU parallel one-liner over the same manifest (when parallel is there).
if have parallel; then
  "$tlbsim" sweep "${vary[@]}" --warmup 100 --max 1200 --slices 5 --emit slurm par stride.din demo.trace stride.lackey
  tail -n +2 par/manifest.tsv | cut -f1 | parallel -j 2 bash par/sweep.sbatch {} && ok || bad "GNU parallel"
  "$tlbsim" sweep --merge par | cmp -s - plain.uneven.csv && ok || bad "GNU parallel: merged CSV differs"
else
  echo "(no GNU parallel: its one-liner not tried)"
fi

# --interval: the rows of a task come interval by interval; one slice per
# trace keeps the plain sweep's order.
case_ interval 1 --vary "tlb.l1d.entries=16,64" --interval 200 -- stride.din stride.lackey
grep -q "	-	" d.interval/manifest.tsv && ok || bad "--interval: rows not known in the manifest"

# --configs, as a task runs it, against the rows of the plain sweep.
"$tlbsim" sweep "${vary[@]}" --configs 3-7 stride.din | tail -n +2 >cfg.csv
sed -n 5,9p plain.whole.csv | cmp -s - cfg.csv && ok || bad "--configs 3-7: rows 3 to 7 of the plain sweep"

# The merge's checks.
# merge_fails DIR PATTERN...: exit 1, nothing on stdout, each pattern a line of stderr.
merge_fails() {
  local dir=$1
  shift
  "$tlbsim" sweep --merge "$dir" >out 2>err
  local rc=$?
  [ "$rc" = 1 ] && [ ! -s out ] || { bad "merge $dir: exit $rc, $(wc -c <out) bytes out"; return; }
  local p
  for p in "$@"; do grep -qxF -- "$p" err && ok || { bad "merge $dir: no line '$p' in:"; sed 's/^/    /' err; }; done
}
cp -r d.uneven m
rm m/out/7.csv m/out/11.csv
merge_fails m "m/out/7.csv: missing (task 7 did not finish)" "m/out/11.csv: missing (task 11 did not finish)"
cp -r d.uneven m2
head -2 d.uneven/out/3.csv >m2/out/3.csv
cp d.uneven/out/4.csv m2/out/15.csv
merge_fails m2 "m2/out/3.csv:2: 1 rows, the manifest says 2" \
  "m2: out/15.csv is the output of no task of manifest.tsv (a task run twice?)"
cp -r d.uneven m3
sed -n 3p d.uneven/manifest.tsv >>m3/manifest.tsv
merge_fails m3 "m3/manifest.tsv:17: a task listed twice (first on line 3)"
cp -r d.uneven m4
sed -i '1s/accesses/Accesses/' m4/out/5.csv
merge_fails m4 "m4/out/5.csv:1: a header other than m4/out/0.csv's"
cp -r d.uneven m5
sed -i '4s/\t/ /' m5/manifest.tsv
merge_fails m5 "m5/manifest.tsv:4: expected TASK, TRACE, CONFIGS, ROWS and OUTPUT, tab-separated"
merge_fails nowhere "nowhere/manifest.tsv: cannot open: No such file or directory"

# check EXPECTED_STATUS STDERR_SUBSTRING -- command...
check() {
  local want=$1 pattern=$2
  shift 3
  "$@" >out 2>err </dev/null
  local got=$?
  if [ "$got" = "$want" ] && grep -qF -- "$pattern" err && [ "$(wc -l <err)" = 1 ]; then ok
  else bad "$* -> exit $got (want $want):"; sed 's/^/    /' err; fi
}
check 1 "d.whole/manifest.tsv: exists already" -- "$tlbsim" sweep --emit slurm d.whole stride.din
check 2 "tlbsim sweep: --emit slurm takes a directory, then at least one TRACE" -- "$tlbsim" sweep --emit slurm dd
check 2 "tlbsim sweep: --emit: the tasks write CSV (not --format json)" -- \
  "$tlbsim" sweep --format json --emit slurm dd stride.din
check 2 "tlbsim sweep: --emit: '-' is not a file a task can read" -- "$tlbsim" sweep --emit slurm dd -
check 2 "tlbsim sweep: --slices is for --emit" -- "$tlbsim" sweep --slices 2 stride.din
check 2 "tlbsim sweep: --merge DIR takes no TRACE" -- "$tlbsim" sweep --merge d.whole stride.din
check 2 "tlbsim sweep: --configs: '2-9' is not FIRST-LAST within 0-3" -- \
  "$tlbsim" sweep --vary tlb.l1d.entries=16,32 --vary tlb.stlb.ways=6,12 --configs 2-9 stride.din
check 1 "--vary:1: unknown key 'bogus' in [tlb.l1d]" -- "$tlbsim" sweep --vary tlb.l1d.bogus=1,2 --emit slurm dd stride.din
[ ! -e dd/manifest.tsv ] && ok || bad "a bad --vary leaves no manifest"
bash d.whole/sweep.sbatch 9 2>err
[ $? = 2 ] && grep -q "no task '9' (0-2)" err && ok || bad "sweep.sbatch 9: $(cat err)"

finish sweep_cluster
