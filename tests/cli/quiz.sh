#!/usr/bin/env bash
# tlbsim quiz: each exercise's answers are what the simulator reports when its
# trace is replayed with the command the exercise names (run --log for
# translations and TLB hits, run for page-table bytes, alloc for the first
# OOM and the driver calls), over several seeds; one seed's text is stable
# byte for byte (tests/cli/quiz_seed7.txt; regenerate it with
# `tlbsim quiz --seed 7 --answers` when the quiz changes on purpose).
# Usage: quiz.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
tlbsim=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail() { echo "FAIL: $1"; exit 1; }
ok() { pass=$((pass + 1)); }
same() { [ "$1" = "$2" ] || fail "$3: quiz says $1, the replay $2"; ok; }

# The exercise's command with this tlbsim, its trace file and JSON output.
replay() {
  local cmd
  cmd=$(jq -r ".exercises[$1].command" "$tmp/q.json")
  jq -r ".exercises[$1].trace" "$tmp/q.json" >"$tmp/t.trace"
  cmd=${cmd/#tlbsim /}
  # shellcheck disable=SC2086
  "$tlbsim" ${cmd/TRACE/$tmp/t.trace} --format json
}

formats=""
for seed in $(seq 1 12); do
  "$tlbsim" quiz --seed $seed --answers --format json >"$tmp/q.json"
  [ "$(jq '.exercises | length' "$tmp/q.json")" = 5 ] || fail "seed $seed: 5 exercises"
  for i in 0 1 2 3 4; do
    kind=$(jq -r ".exercises[$i].kind" "$tmp/q.json")
    replay $i >"$tmp/r.json"
    case $kind in
    translate)
      formats="$formats $(jq -r ".exercises[$i].title" "$tmp/q.json" | awk '{print $NF}')"
      jq -c 'select(.record == "access") | {pa, fault}' "$tmp/r.json" >"$tmp/got"
      jq -c ".exercises[$i].questions[].answer | {pa, fault}" "$tmp/q.json" >"$tmp/want"
      same "$(cat "$tmp/want")" "$(cat "$tmp/got")" "seed $seed translate" ;;
    tlb)
      jq -c 'select(.record == "access") | .levels[0] | {hit, victim}' "$tmp/r.json" >"$tmp/got"
      jq -c ".exercises[$i].questions[].answer" "$tmp/q.json" >"$tmp/want"
      same "$(cat "$tmp/want")" "$(cat "$tmp/got")" "seed $seed tlb" ;;
    pt-size)
      formats="$formats $(jq -r ".exercises[$i].title" "$tmp/q.json" | awk '{print "pt-" $NF}')"
      same "$(jq ".exercises[$i].questions[-1].answer.page_table_bytes" "$tmp/q.json")" \
        "$(jq '.page_table_bytes' "$tmp/r.json")" "seed $seed page_table_bytes"
      # the levels' bytes add up to the total
      same "$(jq "[.exercises[$i].questions[:-1][].answer.bytes] | add" "$tmp/q.json")" \
        "$(jq '.page_table_bytes' "$tmp/r.json")" "seed $seed level bytes" ;;
    alloc)
      jq -c '.[] | if .first_oom_event == null then {first_oom_event}
             else {first_oom_event, first_oom_free_bytes, first_oom_largest_free_extent, reason: .first_oom_reason} end' \
        "$tmp/r.json" >"$tmp/got"
      jq -c ".exercises[$i].questions[].answer" "$tmp/q.json" >"$tmp/want"
      same "$(cat "$tmp/want")" "$(cat "$tmp/got")" "seed $seed alloc" ;;
    pool)
      jq -c '.[] | {driver_allocs, driver_frees, shootdowns, pte_writes}' "$tmp/r.json" >"$tmp/got"
      jq -c ".exercises[$i].questions[].answer" "$tmp/q.json" >"$tmp/want"
      same "$(cat "$tmp/want")" "$(cat "$tmp/got")" "seed $seed pool" ;;
    *) fail "unknown kind $kind" ;;
    esac
  done
done
# the seeds drew each of the three formats
for f in teaching16 x86-64-4 hopper pt-teaching16 pt-x86-64-4 pt-hopper; do
  grep -qw -- "$f" <<<"$formats" || fail "no translate or pt-size exercise in $f (got$formats)"
  ok
done

# same seed, same text byte for byte; the golden seed's text is the stored one
"$tlbsim" quiz --seed 7 --answers >"$tmp/a.txt"
"$tlbsim" quiz --seed 7 --answers >"$tmp/b.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "seed 7 twice differs"
ok
diff -u "$src/tests/cli/quiz_seed7.txt" "$tmp/a.txt" || fail "seed 7 differs from tests/cli/quiz_seed7.txt"
ok
"$tlbsim" quiz --seed 8 --answers >"$tmp/c.txt"
cmp -s "$tmp/a.txt" "$tmp/c.txt" && fail "seeds 7 and 8 give the same quiz"
ok
# without --answers no key; --kind picks the same exercise the full quiz has
"$tlbsim" quiz --seed 7 >"$tmp/n.txt"
grep -q 'Answers:' "$tmp/n.txt" && fail "answers without --answers"
ok
"$tlbsim" quiz --seed 7 --kind tlb --format json >"$tmp/k.json"
"$tlbsim" quiz --seed 7 --format json >"$tmp/all.json"
same "$(jq -c '.exercises[0] | del(.number)' "$tmp/k.json")" "$(jq -c '.exercises[] | select(.kind == "tlb") | del(.number)' "$tmp/all.json")" "--kind tlb"
jq -e '.exercises[0].questions[0] | has("answer") | not' "$tmp/k.json" >/dev/null || fail "json answer without --answers"
ok
# usage errors: exit 2, one line
set +e
err=$("$tlbsim" quiz --kind nope 2>&1); rc=$?
set -e
[ $rc = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] || fail "--kind nope: rc $rc: $err"
ok
set +e
err=$("$tlbsim" quiz --seed x 2>&1); rc=$?
set -e
[ $rc = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] || fail "--seed x: rc $rc: $err"
ok
echo "quiz: $pass checks passed"
