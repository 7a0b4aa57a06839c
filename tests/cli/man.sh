#!/usr/bin/env bash
# The generated man pages (man/gen_man.sh): each renders without a groff
# warning; tlbsim(1) holds every command and every option its --help lists;
# tlbsim.ini(5) holds every key the configuration reader reads
# (sim/src/machine/machine_spec.c: cfg_get_* and cfg_has calls, the [gpu]
# table) in its section, and every allocator parameter.
#   tests/cli/man.sh MAN_DIR TLBSIM MAN_SOURCE SOURCE_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need groff
man=$1 tlbsim=$2 man_source=$3 src=$4

for page in tlbsim.1 tlbsim-gpu.1 tlbsim.ini.5 tlbsim-trace.5; do
  [ -s "$man/$page" ] || { bad "$page missing"; continue; }
  warnings=$(groff -k -man -Tutf8 -ww -z "$man/$page" 2>&1) # -k: UTF-8 through preconv, as man does
  [ -z "$warnings" ] && ok || bad "$page: $warnings"
done

text=$(groff -k -man -Tutf8 -P-cbou "$man/tlbsim.1" 2>/dev/null)
for cmd in $("$tlbsim" --help | awk '/^  [a-z]/ { print $1 }'); do
  grep -q "^   tlbsim $cmd\$" <<<"$text" && ok || bad "tlbsim.1: no section for $cmd"
  for opt in $("$tlbsim" "$cmd" --help | awk '/^  --/ { print $1 }'); do
    awk -v o="       $opt" '$0 == o || index($0, o " ") == 1 { found = 1 } END { exit !found }' <<<"$text" &&
      ok || bad "tlbsim.1: $cmd $opt"
  done
done
grep -qF 'churn\-gather' "$man/tlbsim-gpu.1" && ok || bad "tlbsim-gpu.1: no churn-gather"
grep -q '^\.SS Records' "$man/tlbsim-trace.5" && ok || bad "tlbsim-trace.5: no Records"

# "SECTION KEY" pairs of the page, generic sections as the reader names them.
page_keys=$(awk '/^\.SH \[/ { sec = substr($2, 2, length($2) - 2) } /^\.BR / { print sec, $2 }' "$man/tlbsim.ini.5" |
  sed 's/\\-/-/g')
has_key() { grep -qx "$1 $2" <<<"$page_keys" && ok || bad "tlbsim.ini.5: no key $2 in [$1]"; }
# Every key a configuration reader asks for by code (cfg_get_*, cfg_has) is on the page (the
# tables' keys are by construction). `sec` is a [tlb.NAME], [tlb.NAME:SIZE], [pwc.LEVEL] or
# [format.NAME]: one of them.
readers=("$src/sim/src/machine/machine_spec.c" "$src/sim/src/mmu/mmu_config.c" "$src/sim/src/mem/pt_config.c"
  "$src/sim/src/hw/gpu.c" "$src/sim/src/mem/memsys.c")
while read -r sec key; do
  if [ "$sec" = sec ]; then
    grep -qE "^(tlb\.NAME|tlb\.NAME:SIZE|pwc\.LEVEL|format\.NAME) $key\$" <<<"$page_keys" && ok || bad "tlbsim.ini.5: no key $key"
  else
    has_key "$sec" "$key"
  fi
done < <(cat "${readers[@]}" | grep -oE 'cfg_(get_[a-z0-9_]+|has)\(c, (sec|"[a-z.]+"), "[a-z_0-9]+"' |
  sed -E 's/.*\(c, "?([a-z.]+)"?, "([a-z_0-9]+)"/\1 \2/' | sort -u)
[ "$(cat "${readers[@]}" | grep -cE 'cfg_(get_[a-z0-9_]+|has)\(')" -gt 20 ] && ok || bad "found too few reads"
# Keys read by table: each table's keys (man_source prints them) on the page, in their section.
while IFS='|' read -r sec key _; do
  grep -qx "$sec $key" <<<"$page_keys" && ok || bad "tlbsim.ini.5: no key $key in [$sec]"
done < <("$man_source" config-keys)
# No Markdown left in the pages: every code span of traces/FORMAT.md became
# bold, the spans a line break cuts too.
for page in tlbsim.1 tlbsim.ini.5 tlbsim-trace.5; do
  stray=$(groff -k -man -Tutf8 -P-cbou "$man/$page" 2>/dev/null | grep -c '`' || true)
  [ "$stray" = 0 ] && ok || bad "$page: $stray lines with a backtick"
done
# EXAMPLES: every command runs as it stands, tlbsim on PATH, in a scratch
# directory (without valgrind, ls.lackey is a sample trace instead).
grep -q '^\.SH EXAMPLES' "$man/tlbsim.1" || fail "tlbsim.1: no EXAMPLES"
scratch=$work/examples
mkdir "$scratch"
groff -k -man -Tutf8 -P-cbou "$man/tlbsim.1" 2>/dev/null |
  awk '/^EXAMPLES/ { on = 1; next } /^[A-Z]/ { on = 0 } on && /^           [a-z]/ { sub(/^ +/, ""); print }' >"$scratch/examples.sh"
[ "$(grep -c '^tlbsim ' "$scratch/examples.sh")" -ge 10 ] || fail "tlbsim.1: fewer than 10 examples"
command -v valgrind >/dev/null || { sed -i '/^valgrind /d' "$scratch/examples.sh"; cp "$src/traces/samples/stride.lackey" "$scratch/ls.lackey"; }
(cd "$scratch" && PATH=$(dirname "$tlbsim"):$PATH bash -e examples.sh >/dev/null 2>"$scratch/err") ||
  fail "tlbsim.1 EXAMPLES: $(tail -3 "$scratch/err")"
finish man
