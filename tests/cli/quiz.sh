#!/usr/bin/env bash
# tlbsim quiz: each exercise's answers are what the simulator reports when its
# trace is replayed with the command the exercise names (run --log for
# translations and TLB hits, run for page-table bytes, alloc for the first
# OOM and the driver calls), over several seeds; one seed's text is stable
# byte for byte (tests/cli/quiz_seed7.txt; regenerate it with
# `tlbsim quiz --seed 7 --answers` when the quiz changes on purpose).
# Usage: quiz.sh TLBSIM SOURCE_DIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
need jq
same() { [ "$1" = "$2" ] || fail "$3: quiz says $1, the replay $2"; ok; }

# The exercise's command with this tlbsim, its trace file and JSON output.
replay() {
  local cmd
  cmd=$(jq -r ".exercises[$1].command" "$work/q.json")
  jq -r ".exercises[$1].trace" "$work/q.json" >"$work/t.trace"
  cmd=${cmd/#tlbsim /}
  # shellcheck disable=SC2086
  "$tlbsim" ${cmd/TRACE/$work/t.trace} --format json
}

formats=""
for seed in $(seq 1 12); do
  "$tlbsim" quiz --seed $seed --answers --format json >"$work/q.json"
  [ "$(jq '.exercises | length' "$work/q.json")" = 5 ] || fail "seed $seed: 5 exercises"
  for i in 0 1 2 3 4; do
    kind=$(jq -r ".exercises[$i].kind" "$work/q.json")
    replay $i >"$work/r.json"
    case $kind in
    translate)
      formats="$formats $(jq -r ".exercises[$i].title" "$work/q.json" | awk '{print $NF}')"
      jq -c 'select(.record == "access") | {pa, fault}' "$work/r.json" >"$work/got"
      jq -c ".exercises[$i].questions[].answer | {pa, fault}" "$work/q.json" >"$work/want"
      same "$(cat "$work/want")" "$(cat "$work/got")" "seed $seed translate" ;;
    tlb)
      jq -c 'select(.record == "access") | .levels[0] | {hit, victim}' "$work/r.json" >"$work/got"
      jq -c ".exercises[$i].questions[].answer" "$work/q.json" >"$work/want"
      same "$(cat "$work/want")" "$(cat "$work/got")" "seed $seed tlb" ;;
    pt-size)
      formats="$formats $(jq -r ".exercises[$i].title" "$work/q.json" | awk '{print "pt-" $NF}')"
      same "$(jq ".exercises[$i].questions[-1].answer.page_table_bytes" "$work/q.json")" \
        "$(jq '.page_table_bytes' "$work/r.json")" "seed $seed page_table_bytes"
      # the levels' bytes add up to the total
      same "$(jq "[.exercises[$i].questions[:-1][].answer.bytes] | add" "$work/q.json")" \
        "$(jq '.page_table_bytes' "$work/r.json")" "seed $seed level bytes" ;;
    alloc)
      jq -c '.[] | if .first_oom_event == null then {first_oom_event}
             else {first_oom_event, first_oom_free_bytes, first_oom_largest_free_extent, reason: .first_oom_reason} end' \
        "$work/r.json" >"$work/got"
      jq -c ".exercises[$i].questions[].answer" "$work/q.json" >"$work/want"
      same "$(cat "$work/want")" "$(cat "$work/got")" "seed $seed alloc" ;;
    pool)
      jq -c '.[] | {driver_allocs, driver_frees, shootdowns, pte_writes}' "$work/r.json" >"$work/got"
      jq -c ".exercises[$i].questions[].answer" "$work/q.json" >"$work/want"
      same "$(cat "$work/want")" "$(cat "$work/got")" "seed $seed pool" ;;
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
"$tlbsim" quiz --seed 7 --answers >"$work/a.txt"
"$tlbsim" quiz --seed 7 --answers >"$work/b.txt"
cmp -s "$work/a.txt" "$work/b.txt" || fail "seed 7 twice differs"
ok
diff -u "$src/tests/cli/quiz_seed7.txt" "$work/a.txt" || fail "seed 7 differs from tests/cli/quiz_seed7.txt"
ok
"$tlbsim" quiz --seed 8 --answers >"$work/c.txt"
cmp -s "$work/a.txt" "$work/c.txt" && fail "seeds 7 and 8 give the same quiz"
ok
# without --answers no key; --kind picks the same exercise the full quiz has
"$tlbsim" quiz --seed 7 >"$work/n.txt"
grep -q 'Answers:' "$work/n.txt" && fail "answers without --answers"
ok
"$tlbsim" quiz --seed 7 --kind tlb --format json >"$work/k.json"
"$tlbsim" quiz --seed 7 --format json >"$work/all.json"
same "$(jq -c '.exercises[0] | del(.number)' "$work/k.json")" "$(jq -c '.exercises[] | select(.kind == "tlb") | del(.number)' "$work/all.json")" "--kind tlb"
jq -e '.exercises[0].questions[0] | has("answer") | not' "$work/k.json" >/dev/null || fail "json answer without --answers"
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
finish quiz
