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
# Anything else: file names.
cd "$src/traces/samples"
expect "demo.trace" tlbsim run dem
# Every command is offered.
COMP_WORDS=(tlbsim "") COMP_CWORD=1
_tlbsim
want=$("$tlbsim" --help | awk '/^  [a-z]/ { print $1 }' | tr '\n' ' ')
[ "${COMPREPLY[*]}" = "${want}--help" ] && ok || bad "commands '${COMPREPLY[*]}'"
finish completion
