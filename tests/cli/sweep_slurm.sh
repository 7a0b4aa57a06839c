#!/usr/bin/env bash
# tlbsim sweep --emit slurm against a real Slurm: the emitted job array is
# submitted with sbatch, the test polls squeue until it is gone (at most
# TLBSIM_SLURM_TIMEOUT seconds, default 300), merges the tasks' CSVs and
# compares them byte for byte with the same sweep run here. Skipped (exit
# 77) when sbatch is absent or no controller answers (a failure instead
# with TLBSIM_SLURM_REQUIRED=1); .ci/run starts a single-node cluster on
# localhost and sets it, so that CI runs it.
# Usage: sweep_slurm.sh TLBSIM SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
timeout=${TLBSIM_SLURM_TIMEOUT:-300}
# skip WHY: lib.sh's, but a cluster is required by TLBSIM_SLURM_REQUIRED=1 (as in CI), not by a tool.
skip() {
  if [ "${TLBSIM_SLURM_REQUIRED:-0}" = 1 ]; then echo "FAIL (TLBSIM_SLURM_REQUIRED): $1"; exit 1; fi
  echo "SKIP: $1"
  exit 77
}
command -v sbatch >/dev/null && command -v squeue >/dev/null ||
  skip "no sbatch/squeue (install slurm-wlm: scripts/deps.sh --slurm)"
timeout 20 scontrol ping 2>/dev/null | grep -q 'is UP' || skip "no slurmctld answers (.ci/run starts a single-node cluster)"
sinfo -h -o %T 2>/dev/null | grep -Eqx 'idle|mixed|allocated|completing' || skip "no node up: $(sinfo 2>&1 | tail -n +2)"
# The job's tasks read and write here: a directory every node sees (one node: any).
rmdir "$work" # lib.sh's; the trap removes this one
work=$(mktemp -d "${TLBSIM_SLURM_DIR:-$PWD}/sweep_slurm.XXXXXX")
cd "$work" || exit 1
cp "$src/traces/samples/stride.din" "$src/traces/samples/demo.trace" "$src/traces/samples/stride.lackey" .
opts=(--vary "tlb.l1d.entries=16,32,64" --vary "pwc.PD.entries=0,32" --warmup 50)
"$tlbsim" sweep "${opts[@]}" stride.din demo.trace stride.lackey >plain.csv || { echo "FAIL: plain sweep"; exit 1; }
"$tlbsim" sweep "${opts[@]}" --slices 2 --emit slurm job stride.din demo.trace stride.lackey ||
  { echo "FAIL: emit"; exit 1; }
id=$(sbatch --parsable job/sweep.sbatch) || { echo "FAIL: sbatch"; exit 1; }
id=${id%%;*}
echo "submitted job array $id ($(tail -n +2 job/manifest.tsv | wc -l) tasks)"
start=$SECONDS
while [ -n "$(squeue -h -j "$id" 2>/dev/null)" ]; do
  if ((SECONDS - start > timeout)); then
    echo "FAIL: job $id still queued or running after $timeout s:"
    squeue -j "$id"
    scancel "$id"
    exit 1
  fi
  sleep 1
done
echo "job $id done in $((SECONDS - start)) s"
if ! "$tlbsim" sweep --merge job >merged.csv; then
  echo "FAIL: merge; the tasks' logs:"
  tail -n 5 job/log/* 2>/dev/null
  exit 1
fi
if ! cmp plain.csv merged.csv; then
  echo "FAIL: the merged CSV of the Slurm job differs from the plain sweep"
  exit 1
fi
echo "PASS: $(($(wc -l <merged.csv) - 1)) rows from $(ls job/out | wc -l) Slurm tasks equal the plain sweep"
