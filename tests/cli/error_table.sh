#!/usr/bin/env bash
# Errors that blame the right thing (issue #27): each row is a command, its
# exit status and the one line it must write on stderr, exactly.
# Usage: error_table.sh TLBSIM SOURCE_DIR
set -u
tlbsim=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
demo=$src/traces/samples/demo.trace
chase=$src/gpu/results/h200/chase.csv
: >"$work/empty.trace"
touch "$work/exists.ini"

# row STATUS LINE -- command...: exit STATUS and stderr exactly LINE (one line).
row() {
  local want=$1 line=$2
  shift 3
  "$@" >/dev/null 2>"$work/err" </dev/null
  local got=$?
  if [ "$got" = "$want" ] && [ "$(cat "$work/err")" = "$line" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    printf 'FAIL: %s\n  exit %s (want %s), stderr:\n%s\n  want:\n    %s\n' "$*" "$got" "$want" "$(sed 's/^/    /' "$work/err")" "$line"
  fi
}

# A --set naming a TLB level that is not there: the --set and the levels there are, not the preset's line.
row 1 "--set:1: [tlb.l1]: no TLB level 'l1' in the configuration (its levels: l1d, l1i, stlb); as a new level: levels 'l1d' and 'l1' are both first levels for data" -- \
  "$tlbsim" run --set tlb.l1.entries=32 "$demo"
row 1 "--vary:1: [tlb.l1]: no TLB level 'l1' in the configuration (its levels: l1d, l1i, stlb); as a new level: levels 'l1d' and 'l1' are both first levels for data" -- \
  "$tlbsim" sweep --vary tlb.l1.entries=16,32 "$demo"
# A preset name almost right: the one meant.
row 1 "--preset: no preset named 'x86_64': did you mean 'x86-64'? (see tlbsim formats)" -- "$tlbsim" run --preset x86_64 "$demo"
row 1 "--preset: no preset named 'H200': did you mean 'h200'? (see tlbsim formats)" -- "$tlbsim" chase --preset H200 --footprint 1M --stride 2M
row 1 "--preset: no preset named 'nothing-like-it' (see tlbsim formats)" -- "$tlbsim" run --preset nothing-like-it "$demo"
# A file that cannot be opened: why.
row 1 "$work/nonexist.json: cannot open: No such file or directory" -- "$tlbsim" alloc "$work/nonexist.json"
row 1 "$work/nonexist.csv: cannot open: No such file or directory" -- "$tlbsim" validate "$work/nonexist.csv"
row 1 "$work/nonexist.trace: cannot open: No such file or directory" -- "$tlbsim" run "$work/nonexist.trace"
row 1 "$work/nonexist.ini: cannot open: No such file or directory" -- "$tlbsim" run --config "$work/nonexist.ini" "$demo"
# calibrate --out over an existing file: refused before the fit (the full CSV's fit takes minutes).
row 1 "$work/exists.ini: exists; it is never overwritten (nothing was fitted)" -- \
  timeout 20 "$tlbsim" calibrate --out "$work/exists.ini" "$chase"
row 1 "$work/exists.ini: exists; it is never overwritten (nothing was fitted)" -- \
  timeout 20 "$tlbsim" calibrate --fit tlb.l3.latency --machine-file "$work/exists.ini" "$chase"
# The newer commands' option errors, in the same form: exit 2, "tlbsim CMD: --OPTION: what".
row 2 "tlbsim uvm: --size: 100 is not a multiple of 128 bytes up to 512 GiB" -- "$tlbsim" uvm --size 100
row 2 "tlbsim kernel: give --stats: it is the only mode until the timing model (issue #23) exists" -- \
  "$tlbsim" kernel "$src/traces/kernels/kernelslist.g"
row 2 "tlbsim validate: --columns: 'cold' is not a comma-separated list of prefetch_ms, cold_ms, stream_ms, stream_gbps, gather_lpns or gather2_lpns" -- \
  "$tlbsim" validate --columns cold "$src/gpu/results/h200/run4/smoke/uvm.csv"
row 2 "tlbsim calibrate: --fit: 'tlb.l9.latency' is not one of latency.data_cycles, tlb.l1d.latency, tlb.l2.latency, tlb.l3.latency, latency.walk_cycles, latency.walk_ref_cycles, ptcache.hit_cycles" -- \
  "$tlbsim" calibrate --fit tlb.l9.latency "$chase"
# An empty trace is an error, never a report of zeros (docs/OUTPUT.md).
for cmd in run dump mrc sweep; do
  row 1 "$work/empty.trace: an empty trace (no records)" -- "$tlbsim" "$cmd" "$work/empty.trace"
done
row 1 "$work/empty.trace: an empty trace (no records)" -- "$tlbsim" convert "$work/empty.trace" "$work/out.bin"
[ ! -e "$work/out.bin" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: convert of an empty trace wrote its output"; }
row 1 "<stdin>: an empty trace (no records)" -- sh -c "printf '# a comment only\n' | '$tlbsim' run -"
row 1 "$work/empty.trace: no allocation events (an empty input)" -- "$tlbsim" alloc "$work/empty.trace"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
