#!/usr/bin/env bash
# tlbsim dump --format json: the page table tests/cli/pt_dump.sh works out by
# hand on teaching16 (r 0x1234 -> frame 0 under the L2 table at +0x20,
# w 0xffff -> frame 1 under +0x40, map 0x8000 0x200 prot=r -> frames 2 and
# 3 under +0x60; tables from 0x1000000000000 = 281474976710656), as data.
# Usage: quiz_dump.sh TLBSIM
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
need jq
is() { [ "$(jq -c "$2" "$work/d.json")" = "$3" ] || fail "$1: $2 is $(jq -c "$2" "$work/d.json"), not $3"; ok; }

printf 'r 0x1234\nw 0xffff\nmark one\nmap 0x8000 0x200 prot=r\n' >"$work/t.trace"
"$tlbsim" dump --preset teaching --format json "$work/t.trace" >"$work/d.json"
is summary '[.format, .va_bits, .pages_mapped, .table_bytes, .at_mark]' '["teaching16",16,4,128,null]'
is levels '[.levels[] | [.level, .name, (.tables | length)]]' '[[0,"L1",1],[1,"L2",3]]'
is root '.levels[0].tables[0] | [.table_pa, .va_first, .va_last, .index_hi, .index_lo, .entries, .entry_bytes, .valid]' \
  '[281474976710656,0,65535,15,12,16,2,3]'
is pointers '[.levels[0].tables[0].valid_entries[] | [.index, .raw, .leaf, .next_table - 281474976710656]]' \
  '[[1,"0x0101000000000020",false,32],[8,"0x0101000000000060",false,96],[15,"0x0101000000000040",false,64]]'
# L2 tables in VA order: 0x1000, 0x8000, 0xf000
is l2order '[.levels[1].tables[] | .va_first]' '[4096,32768,61440]'
is leaves '[.levels[1].tables[].valid_entries[] | [.index, .prot, .page_size, .frame, .pa]]' \
  '[[2,"rwx",256,0,0],[0,"r--",256,2,512],[1,"r--",256,3,768],[15,"rwx",256,1,256]]'
# --at-mark: the table as it stood there, and where
"$tlbsim" dump --preset teaching --format json --at-mark one "$work/t.trace" >"$work/d.json"
is at_mark '[.at_mark.label, .at_mark.line, .pages_mapped]' '["one",3,2]'
# the text form is unchanged by the option's default
"$tlbsim" dump --preset teaching "$work/t.trace" | grep -qxF "page table: format teaching16, 4 pages mapped, 128B of tables" ||
  fail "text dump"
ok
set +e
err=$("$tlbsim" dump --format yaml "$work/t.trace" 2>&1); rc=$?
set -e
[ $rc = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] || fail "--format yaml: rc $rc: $err"
ok
finish quiz_dump
