#!/usr/bin/env bash
# The bash completion (completion/tlbsim.bash) run as bash runs it: complete
# -F's function with COMP_WORDS set, against the built tlbsim.
#   tests/cli/completion.sh TLBSIM SOURCE_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
tlbsim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") src=$(cd "$2" && pwd)
PATH=$(dirname "$tlbsim"):$PATH
# shellcheck source=/dev/null
source "$src/completion/tlbsim.bash"
[ "$(complete -p tlbsim)" = "complete -o filenames -F _tlbsim tlbsim" ] || fail "not registered"
expect() { # WANT WORD... : the completions of the last word
  local want=$1
  shift
  COMP_WORDS=("$@") COMP_CWORD=$(($# - 1))
  _tlbsim
  if [ "${COMPREPLY[*]}" != "$want" ]; then
    echo "FAIL: tlbsim ${*:2} -> '${COMPREPLY[*]}', want '$want'" >&2
    failures=$((failures + 1))
  else
    ok
  fi
}
expect "mrc" tlbsim m
expect "convert chase calibrate" tlbsim c
expect "--trace-format" tlbsim run --tr
expect "--dump-pt" tlbsim run --du
expect "--footprint --format" tlbsim chase --f
expect "csapp h200 ostep riscv teaching x86-64" tlbsim run --preset ""
expect "h200" tlbsim chase --preset h
expect "text json csv" tlbsim run --format ""
expect "csv text json" tlbsim mrc --format ""
expect "seq random" tlbsim chase --order ""
expect "binary native lackey din" tlbsim convert --to ""
expect "best-fit buddy" tlbsim alloc --policy b
expect "lackey" tlbsim run --trace-format l
# Comma lists: the next item after the last comma.
expect "translate tlb" tlbsim quiz --kind t
expect "translate,translate translate,tlb" tlbsim quiz --kind translate,t
expect "first-fit,best-fit first-fit,buddy" tlbsim alloc --policy first-fit,b
expect "gpu,host gpu,host_prefetch" tlbsim uvm --init gpu,h
expect "stream gather" tlbsim uvm --first ""
expect "cold_ms,gather_lpns cold_ms,gather2_lpns" tlbsim validate --columns cold_ms,g
# --set and --vary: the SECTION.KEY= of the configuration on the line.
expect "tlb.l1d.entries=" tlbsim run --set tlb.l1d.en
expect "tlb.l2.entries=" tlbsim run --preset teaching --set tlb.l2.en   # teaching has an l2, x86-64 none
expect "tlb.l3.entries=" tlbsim sweep --preset h200 --vary tlb.l3.en
expect "vas.page_size=" tlbsim alloc --set vas.page_
expect "auto snapshot rmm native" tlbsim alloc --trace-format ""
# Anything else: file names.
cd "$src/traces/samples"
expect "demo.trace" tlbsim run dem
# Every command is offered.
COMP_WORDS=(tlbsim "") COMP_CWORD=1
_tlbsim
want=$("$tlbsim" --help | awk '/^  [a-z]/ { print $1 }' | tr '\n' ' ')
[ "${COMPREPLY[*]}" = "${want}--help" ] && ok || bad "commands '${COMPREPLY[*]}'"
finish completion
