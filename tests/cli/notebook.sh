#!/usr/bin/env bash
# docs/notebook_example.py runs to the end (its exit status counts, so an
# abort after its tables fails), prints the OSTEP curve's 2048-page row as
# the x86-64 preset gives it (past the 64-entry L1 DTLB and the 1536-entry
# STLB: 25.0 cycles and 1.000 walks per access), and draws its figure where
# matplotlib imports (where tools are required, as in CI, it must).
# Usage: notebook.sh PYTHON3 SOURCE_DIR OUT.png
set -u -o pipefail
. "$(dirname "$0")/lib.sh"
python=$1 out=$3
rm -f "$out"
text=$("$python" "$src/docs/notebook_example.py" "$out") || fail "notebook_example.py exited $?: $text"
printf '%s\n' "$text"
printf '%s\n' "$text" | grep -Ex ' 2048 +25\.0 +1\.000' >/dev/null && ok || bad "no OSTEP row ' 2048  25.0  1.000'"
if printf '%s\n' "$text" | grep -q 'matplotlib is not installed'; then
  [ "${TLBSIM_TOOLS_REQUIRED:-0}" = 1 ] && bad "no matplotlib (TLBSIM_TOOLS_REQUIRED=1: scripts/deps.sh --docs installs it)"
else
  [ "$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && ok || bad "$out is not a PNG"
fi
finish notebook_example
