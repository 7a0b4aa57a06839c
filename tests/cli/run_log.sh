#!/usr/bin/env bash
# run --log: one line per record whose hits, misses and victims are known by
# hand (a 2-entry fully associative LRU l1d before the teaching preset's
# 32-entry 4-way l2, 256-byte pages), layout records' PTEs and shootdowns,
# JSON lines that parse and add up to the report's totals, and a report
# that the log leaves unchanged.
# Usage: run_log.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
need python3

two="--preset teaching --set tlb.l1d.entries=2"
cat >"$work/lru.trace" <<'T'
r 0x100
r 0x200
r 0x110
r 0x300
r 0x200
w 0x2fe 4
T
out=$("$tlbsim" run $two --log "$work/lru.trace")
# vpn 1, 2 miss both levels (demand paging maps them); 1 hits; 3 evicts 2 (LRU); 2 evicts 1 and hits l2
has "$out" "1: r 0x100 1 | vpn 0x1 l1d set 0 miss, l2 set 1 miss; walk refs 3 pwc - lines 0 tables +1 page-fault; pfn 0 pa 0; cycles 33"
has "$out" "2: r 0x200 1 | vpn 0x2 l1d set 0 miss, l2 set 2 miss; walk refs 4 pwc - lines 0 page-fault; pfn 0x1 pa 0x100; cycles 43"
has "$out" "3: r 0x110 1 | vpn 0x1 l1d set 0 hit; pfn 0 pa 0x10; cycles 1"
has "$out" "4: r 0x300 1 | vpn 0x3 l1d set 0 miss evict 0x2, l2 set 3 miss; walk refs 4 pwc - lines 0 page-fault; pfn 0x2 pa 0x200; cycles 43"
has "$out" "5: r 0x200 1 | vpn 0x2 l1d set 0 miss evict 0x1, l2 set 2 hit; pfn 0x1 pa 0x100; cycles 3"
# a straddling write: two translations on one line, both hits
has "$out" "6: w 0x2fe 4 | vpn 0x2 l1d set 0 hit; pfn 0x1 pa 0x1fe; cycles 1 + vpn 0x3 l1d set 0 hit; pfn 0x2 pa 0x200; cycles 1"
# the report counts the two evictions
grep -Eq '^l1d +7 +3 +4 +57\.143% +2$' <<<"$out" || fail "l1d row with 2 evictions"
ok
# with FIFO, vpn 3 evicts vpn 1 (filled first) although it was just used
out=$("$tlbsim" run $two --set tlb.l1d.policy=fifo --log "$work/lru.trace")
grep -q '^4: r 0x300 1 | vpn 0x3 l1d set 0 miss evict 0x1,' <<<"$out" || fail "fifo victim"
ok

cat >"$work/layout.trace" <<'T'
map 0x1000 0x200
r 0x1000
r 0x1100
protect 0x1000 0x100 prot=r
w 0x1000
unmap 0x1000 0x200
r 0x1000
alloc 7 0x300
r @7+0x10 4
free 7
mark end
ctx 1
T
out=$("$tlbsim" run $two --log "$work/layout.trace")
has "$out" "1: map 0x1000 0x200 prot=rw- | va 0x1000-0x1200 page 256B | ptes +2 -0 tables +1 | shootdowns 0 entries 0"
has "$out" "4: protect 0x1000 0x100 prot=r-- | va 0x1000-0x1100 page 256B | ptes +1 -0 | shootdowns 1 entries 2"
has "$out" "5: w 0x1000 1 | vpn 0x10 l1d set 0 miss, l2 set 0 miss; walk refs 2 pwc - lines 0; fault protection; cycles 23"
has "$out" "6: unmap 0x1000 0x200 | va 0x1000-0x1200 page 256B | ptes +0 -2 tables -1 | shootdowns 2 entries 2"
has "$out" "7: r 0x1000 1 | vpn 0x10 l1d set 0 miss, l2 set 0 miss; walk refs 1 pwc - lines 0; fault unmapped; cycles 13"
grep -Eq '^8: alloc 7 768 \| va 0x[0-9a-f]+-0x[0-9a-f]+ page 256B \| ptes \+3 -0' <<<"$out" || fail "alloc line"
ok
grep -Eq '^10: free 7 \| va 0x[0-9a-f]+-0x[0-9a-f]+ page 256B \| ptes \+0 -3 tables -1 \| shootdowns 3 entries 2$' <<<"$out" ||
  fail "free line"
ok
has "$out" "11: mark end"
has "$out" "12: ctx 1 | tables +1"

# CSV has no log form
rc=0
"$tlbsim" run --log --format csv "$work/lru.trace" >/dev/null 2>"$work/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- '--log' "$work/err" || fail "--log --format csv: expected a usage error, got $rc"
ok

# JSON lines: each parses, the hand-known fields are there, the sums are the
# report's, and the report equals a run's without --log.
check() { # NAME ARGS...
  local name=$1
  shift
  "$tlbsim" run "$@" --format json --log >"$work/log.out"
  "$tlbsim" run "$@" --format json >"$work/plain.out"
  python3 - "$work/log.out" "$work/plain.out" "$name" <<'PY' || fail "$name: JSON lines"
import json, sys
text = open(sys.argv[1]).read()
plain = json.loads(open(sys.argv[2]).read())
name = sys.argv[3]
dec = json.JSONDecoder()
objs, at = [], 0
while True:
    while at < len(text) and text[at].isspace():
        at += 1
    if at == len(text):
        break
    obj, end = dec.raw_decode(text, at)
    objs.append((obj, text[at:end]))
    at = end
*log, (report, _) = objs
assert report == plain, "the report differs from a run without --log"
assert log, "no log lines"
for obj, raw in log:
    assert "\n" not in raw, "a log object spans lines"
    assert "record" in obj and "line" in obj, obj
acc = [o for o, _ in log if o["record"] == "access"]
for o in acc:
    for k in ("va", "pa", "levels", "walk_refs", "fault", "cycles"):
        assert k in o, (k, o)
    for lv in o["levels"]:
        assert set(("name", "set", "hit", "victim")) <= set(lv), lv
def total(key):
    return sum(o[key] for o in acc)
assert total("cycles") == report["cycles"], (total("cycles"), report["cycles"])
assert total("walk_refs") == report["walk_refs"]
assert total("page_faults") == report["page_faults"]
assert sum(1 for o in acc if o["fault"]) == report["faults"]
assert sum(o["translations"] for o in acc) == report["translations"]
lay = [o for o, _ in log if o["record"] in ("alloc", "free", "map", "unmap", "protect")]
assert sum(o["shootdowns"] for o in lay) == report["shootdowns"]
assert sum(o["entries_shot_down"] for o in lay) == report["entries_invalidated"]
assert len(log) == report["records"] if "records" in report else len(acc) == report["accesses"]
for lname, lv in report["tlb"].items():
    if ":" in lname:  # one array of a level split by page size: the log names it alike
        looks = [e for o in acc for e in o["levels"] if e["name"] == lname]
        assert sum(e["hit"] for e in looks) == lv["hits"], (lname, lv)
        assert sum(e["victim"] is not None for e in looks) == lv["evictions"], (lname, lv)
        continue
    looks = [e for o in acc for e in o["levels"] if e["name"].split(":")[0] == lname]
    hits = sum(e["hit"] for e in looks)
    ev = sum(e["victim"] is not None for e in looks)
    assert len(looks) >= lv["accesses"], (lname, len(looks), lv["accesses"])
    if all(":" not in e["name"] for e in looks):
        assert len(looks) == lv["accesses"] and len(looks) - hits == lv["misses"], lname
    assert hits == lv["hits"], (lname, hits, lv["hits"])
    assert ev == lv["evictions"], (lname, ev, lv["evictions"])
if name == "lru":
    assert [o["levels"][0]["victim"] for o in acc[:5]] == [None, None, None, 2, 1]
    assert acc[4]["levels"][1] == {"name": "l2", "set": 2, "hit": True, "victim": None}
    assert acc[0]["va"] == 0x100 and acc[0]["pa"] == 0 and acc[0]["cycles"] == 33 and acc[0]["fault"] is None
    assert acc[5]["translations"] == 2 and len(acc[5]["pages"]) == 2
    assert report["tlb"]["l1d"]["evictions"] == 2
if name == "layout":
    assert acc[3]["fault"] == "unmapped" and acc[3]["pa"] is None
    un = [o for o in lay if o["record"] == "unmap"][0]
    assert (un["ptes_cleared"], un["shootdowns"], un["entries_shot_down"]) == (2, 2, 2), un
print(name, len(log), "records add up")
PY
  ok
}
check lru $two "$work/lru.trace"
check layout $two "$work/layout.trace"
check teaching --preset teaching "$src/traces/samples/teaching.trace"
check demo "$src/traces/samples/demo.trace"
check stride-din "$src/traces/samples/stride.din"
check stride-lackey --preset x86-64 "$src/traces/samples/stride.lackey"
# README's excerpt is what its command prints
python3 - "$src/README.md" >"$work/readme" <<'PY' || fail "README excerpt not found"
import sys
s = open(sys.argv[1]).read()
cmd = "$ tlbsim run --preset teaching --log traces/samples/teaching.trace | grep -E '^3[1-7]:'\n"
i = s.index(cmd) + len(cmd)
sys.stdout.write(s[i:s.index("```", i)])
PY
(cd "$src" && "$tlbsim" run --preset teaching --log traces/samples/teaching.trace | grep -E '^3[1-7]:') >"$work/now"
diff "$work/readme" "$work/now" || fail "README's run --log excerpt differs from the output"
ok
finish run_log
