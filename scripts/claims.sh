#!/usr/bin/env bash
# Every number README.md, docs/VALIDATION.md, docs/ALLOC.md and bench/README.md
# state that comes from committed data, re-computed by the tools and compared
# with the text: validation errors (tlbsim validate), fitted latencies
# (calibrate), what two machines' runs of one sweep differ by (the CSVs),
# allocation counts (tlbsim alloc), bench/README.md's miss counts (a generated
# trace), memory table and xz decode-thread figures (their raw logs in
# bench/logs/). Each check finds a line
# of the document holding both a key and the number as the tool gives it, at
# the text's rounding; a number that differs beyond that rounding fails.
#   scripts/claims.sh [--quick] TLBSIM
# --quick (the ctest test `claims`, under the sanitizers) checks everything but
# the figures of tlbsim validate and calibrate, bench's miss counts and the
# machine-to-machine differences: those re-simulate thousands of rows, about
# 20 minutes on a Release build and hours under ASan (the fidelity tests guard
# them with their bounds meanwhile). Figures a test asserts exactly instead
# (test_alloc_layout's buffer counts, the cachegrind oracle's 12 of 12) and the
# alternatives docs/ALLOC.md says were tried (model variants not in the code)
# are not re-checked here. Exit 1 on any difference, 2 on a usage error, 77
# without jq (1 with TLBSIM_TOOLS_REQUIRED=1).
set -euo pipefail
quick=0
if [ "${1:-}" = --quick ]; then
  quick=1
  shift
fi
[ $# = 1 ] || { echo "usage: scripts/claims.sh [--quick] TLBSIM" >&2; exit 2; }
tlbsim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."
if ! command -v jq >/dev/null; then # a skip (77) for ctest, a failure where tools are required (CI)
  echo "claims.sh: needs jq (scripts/deps.sh installs it)" >&2
  [ "${TLBSIM_TOOLS_REQUIRED:-0}" = 1 ] && exit 1
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-claims.XXXXXX")
trap 'rm -rf "$work"' EXIT
R=gpu/results/h200
V=docs/VALIDATION.md A=docs/ALLOC.md B=bench/README.md M=README.md
checks=0 fails=0

# say FILE KEY TEXT: a line of FILE holds KEY and TEXT (fixed strings; the line's bold marks,
# **, left out).
say() {
  checks=$((checks + 1))
  sed 's/\*\*//g' "$1" | grep -F -- "${2//\*\*/}" | grep -qF -- "${3//\*\*/}" && return 0
  fails=$((fails + 1))
  echo "FAIL: $1: no line with '$2' and '$3'"
}
# f DIGITS VALUE: VALUE at the text's rounding; c N: 1,886; sp N: 435 820; mib BYTES: 1,666
f() { LC_ALL=C awk -v d="$1" -v v="$2" 'BEGIN { printf "%.*f", d, v }' | sed 's/^-/−/'; } # the text's minus sign
c() { printf '%d' "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
sp() { printf '%d' "$1" | sed ':a;s/\B[0-9]\{3\}\>/ &/;ta'; }
g3() { LC_ALL=C awk -v v="$1" 'BEGIN { printf "%.*f", (v >= 100 ? 0 : v >= 10 ? 1 : 2), v }'; } # three digits
mib() { c "$(LC_ALL=C awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }')"; }
pct() { f "$1" "$(LC_ALL=C awk -v v="$2" 'BEGIN { print 100 * v }')"; } # a fraction as a percentage

# val ID ARGS...: tlbsim validate --format json ARGS into $work/ID.json; q ID FILTER: a value of it
val() {
  local id=$1
  shift
  "$tlbsim" validate --format json "$@" >"$work/$id.json"
}
q() { jq -r "$2" "$work/$1.json"; }
# within ID CYCLES: how many of ID's points are predicted within CYCLES
within() { q "$1" "[.points[] | select(((.predicted_cycles - .measured_cycles) | fabs) <= $2)] | length"; }
# chase_figs ID: "MEAN %; WORST cycles; TRANSLATION %" as the held-out table writes it
chase_figs() { echo "$(f 3 "$(q "$1" .mean_abs_error_pct)") %; $(f 1 "$(q "$1" .worst_error_cycles)") cycles; $(f 2 "$(q "$1" .translation.mean_abs_error_pct)") %"; }
gather_figs() { echo "$(f 2 "$(q "$1" .mean_abs_error_pct)") %; $(f "${2:-1}" "$(q "$1" .worst_error_pct)") %"; }

# noise A B FILTER: what two machines' runs of one chase sweep differ by, on cycles less base,
# over rows matched by order, mapping, stride and footprint: "MEAN MAX_CYCLES TRANSLATION_MEAN"
noise() {
  awk -F, -v filter="$3" '
    function sel(m, fp, st, o) {
      if (filter == "target") return m != "aliased" && m != "managed" && fp >= 33554432 && fp / st >= 64
      if (filter == "aseq") return m == "aliased" && o == "seq"
      if (filter == "arand") return m == "aliased" && o == "random"
      return 1 }
    FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; f++; next }
    { k = $c[FILENAME, "order"] "," $c[FILENAME, "mapping"] "," $c[FILENAME, "stride_bytes"] "," $c[FILENAME, "footprint_bytes"]
      cyc = $c[FILENAME, "cycles_per_access"]; t = cyc - $c[FILENAME, "base_cycles"]
      if (f == 1) { a[k] = t; w[k] = cyc; next }
      if (!(k in a) || !sel($c[FILENAME, "mapping"], $c[FILENAME, "footprint_bytes"], $c[FILENAME, "stride_bytes"], $c[FILENAME, "order"])) next
      d = t - a[k]; if (d < 0) d = -d
      n++; s += 100 * d / w[k]; if (d > m) m = d
      if (a[k] > 20) { tn++; ts += 100 * d / a[k] } }
    END { printf "%.2f %.1f %.2f\n", s / n, m, tn ? ts / tn : 0 }' "$1" "$2"
}
# gnoise A B [MIN_TPS]: the same for gather sweeps (loads per ns): "MEAN MAX"
gnoise() {
  awk -F, -v min="${3:-0}" 'FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; f++; next }
    { k = $c[FILENAME, "footprint_bytes"] "," $c[FILENAME, "mapping"] "," $c[FILENAME, "threads_per_sm"] "," $c[FILENAME, "nodes"] "," $c[FILENAME, "sm_set"]
      v = $c[FILENAME, "loads_per_ns"]
      if (f == 1) { a[k] = v; next }
      if (!(k in a) || $c[FILENAME, "threads_per_sm"] < min) next
      d = v - a[k]; if (d < 0) d = -d; p = 100 * d / a[k]; n++; s += p; if (p > m) m = p }
    END { printf "%.2f %.2f\n", s / n, m }' "$1" "$2"
}
# cnoise A B: churn rows: "CHASE_MEAN CHASE_MAX GATHER_MEAN GATHER_MAX" (%)
cnoise() {
  awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; f++; next }
    { k = $c[FILENAME, "case"] "," $c[FILENAME, "threads_per_sm"]; ch = $c[FILENAME, "chase_cycles"]; g = $c[FILENAME, "loads_per_ns"]
      if (f == 1) { a[k] = ch; b[k] = g; next }
      d = ch - a[k]; if (d < 0) d = -d; p = 100 * d / a[k]; n++; cs += p; if (p > cm) cm = p
      d = g - b[k]; if (d < 0) d = -d; p = 100 * d / b[k]; gs += p; if (p > gm) gm = p }
    END { printf "%.2f %.2f %.2f %.2f\n", cs / n, cm, gs / n, gm }' "$1" "$2"
}

# --- allocation (docs/ALLOC.md, README.md) ----------------------------------------------------
alloc() { "$tlbsim" alloc --format json "$@" | jq ".[0]"; } # one policy: its object (alloc writes a list)
for s in mlp_train mlp_train_expandable cnn_train cnn_train_expandable tf_infer tf_infer_expandable tf_train \
  tf_train_expandable; do
  policy=caching
  [ "${s%_expandable}" != "$s" ] && policy=expandable
  alloc --policy "$policy" "traces/torch/$s.json.gz" >"$work/$s.json"
  j() { jq -r "$1" "$work/$s.json"; }
  say $A "| $s | $policy |" "| $(c "$(j .allocs)") | $(c "$(j .recorded.peak_reserved_bytes)") | $(c "$(j .peak_reserved_bytes)") | $(pct 2 "$(j .peak_reserved_error)") % | $(j .recorded.driver_allocs) | $(j .driver_allocs) | $(pct 1 "$(j .driver_allocs_error)") % | $(c "$(j .peak_requested_bytes)") |"
done
# the runs without expandable segments replayed through expandable, and what it saves
for s in mlp_train cnn_train tf_infer tf_train; do
  alloc --policy expandable "traces/torch/$s.json.gz" >"$work/$s.x.json"
  say $A " B and " "$s $(c "$(jq -r .peak_reserved_bytes "$work/$s.x.json")") B and $(jq -r .driver_allocs "$work/$s.x.json")"
done
saved=""
for s in mlp_train cnn_train tf_infer tf_train; do
  saved="$saved$(LC_ALL=C awk -v a="$(jq -r .peak_reserved_bytes "$work/$s.x.json")" \
    -v b="$(jq -r .recorded.peak_reserved_bytes "$work/$s.json")" 'BEGIN { printf "%.0f", 100 * (1 - a / b) }') % "
done
read -r s1 _ s2 _ s3 _ s4 _ <<<"$saved"
say $A "before the user reruns anything" "here $s1 %,"
say $A "% of peak reserved memory" "$s2 %, $s3 % and $s4 % of peak reserved memory"
# driver work on three traces
for s in mlp_train cnn_train tf_train; do
  for p in cuda caching expandable; do
    alloc --policy $p "traces/torch/$s.json.gz" >"$work/w.json"
    w() { jq -r "$1" "$work/w.json"; }
    say $A "| $s | $p | $(mib "$(w .peak_reserved_bytes)") |" "| $(c "$(w .driver_allocs)") | $(c "$(w .driver_frees)") | $(c "$(w .maps)") | $(c "$(w .pte_writes)") | $(c "$(w .shootdowns)") |"
    [ $s = mlp_train ] && cp "$work/w.json" "$work/mlp.$p.json"
  done
done
say $A "climbing in steps to" "climbing in steps to $(mib "$(jq -r .peak_reserved_bytes "$work/mlp.caching.json")") MiB"
say $A "climbing in steps to" "live tensors peak at $(mib "$(jq -r .peak_requested_bytes "$work/mlp.caching.json")") MiB"
say $A "expandable segments stop at" "stop at $(mib "$(jq -r .peak_reserved_bytes "$work/mlp.expandable.json")") MiB"
# the chapter's scenario (ALLOC.md's table and text; README.md)
syn=(--synthetic --capacity 640M --set page_size=64K)
"$tlbsim" alloc "${syn[@]}" --policy first-fit --policy best-fit --policy buddy --policy cuda --policy caching \
  --policy expandable --format json >"$work/syn.json"
sv() { jq -r "[.[] | $1] | map(tostring) | join(\" \")" "$work/syn.json"; }
row() { # row LABEL JQ [FORMAT]: the table row of LABEL holds every policy's value
  local text="" v
  for v in $(sv "$2"); do text="$text | $(${3:-c} "$v")"; done
  say $A "| $1 |" "$text |"
}
row "peak reserved (MiB)" .peak_reserved_bytes mib
row "PTE writes" .pte_writes
row "TLB shootdowns" .shootdowns
row "internal fragmentation at peak (B)" .internal_fragmentation_at_peak_bytes
row "external fragmentation, max" .external_fragmentation_max "f 2"
pair() { # pair LABEL JQ1 JQ2: "A / B" per policy
  local a b text=""
  read -ra a <<<"$(sv "$2")"
  read -ra b <<<"$(sv "$3")"
  for i in "${!a[@]}"; do
    if [ "${a[i]}" = null ]; then text="$text | –"; else text="$text | $($4 "${a[i]}") / $($4 "${b[i]}")"; fi
  done
  say $A "| $1 |" "$text |"
}
pair "driver allocs / frees" .driver_allocs .driver_frees c
pair "maps / unmaps" .maps .unmaps c
say $A "| OOMs (fragmented) |" "$(jq -r 'map("| \(.ooms) (\(.ooms_enough_free))" | sub("^\\| 0 \\(0\\)$"; "| 0")) | join(" ")' "$work/syn.json") |"
j0() { jq -r ".[0] | $1" "$work/syn.json"; }
say $A "first OOM: asked / free / largest extent" "| $(mib "$(j0 .first_oom_request_bytes)") / $(mib "$(j0 .first_oom_free_bytes)") / $(mib "$(j0 .first_oom_largest_free_extent)") |"
say $A "at event" "at event $(j0 .first_oom_event) a $(mib "$(j0 .first_oom_request_bytes)") MiB temporary fails"
say $A "with $(mib "$(j0 .first_oom_free_bytes)") MiB free" "the largest free extent being $(mib "$(j0 .first_oom_largest_free_extent)") MiB"
say $A "All" "All $(j0 .ooms_enough_free) OOMs are fragmented ones"
jc() { jq -r ".[] | select(.policy == \"$1\") | $2" "$work/syn.json"; }
say $A "paying" "paying $(LC_ALL=C awk -v b="$(jc buddy .internal_fragmentation_at_peak_bytes)" 'BEGIN { printf "%.0f", b / 1e6 }') MB of rounding"
say $A "driver calls each way" "$(c "$(jc cuda .driver_allocs)") driver calls each way, $(c "$(jc cuda .unmaps)") unmaps each with a TLB shootdown, $(LC_ALL=C awk -v p="$(jc cuda .pte_writes)" 'BEGIN { printf "%.0f", p / 1000 }') k PTE writes"
say $A "serves the same" "serves the same $(c "$(jc caching .allocs)") requests with $(jc caching .driver_allocs) \`cudaMalloc\` and $(jc caching .driver_frees) \`cudaFree\`"
say $A "around by releasing whole segments" "\`expandable\` needs $(jc expandable .driver_allocs) map calls, $(jc expandable .unmaps) piece unmaps"
say $A "fragmented (max" "fragmented (max $(f 2 "$(jc caching .external_fragmentation_max)"): cached blocks"
say $A "the 536 MiB" "the $(mib "$(j0 .peak_requested_bytes)") MiB of live requests at the peak"
"$tlbsim" alloc "${syn[@]}" --policy next-fit --format json | jq ".[0]" >"$work/nf.json"
say $A "is far worse" "($(c "$(jq -r .ooms "$work/nf.json")") OOMs)"
oom_at() { "$tlbsim" alloc --synthetic --capacity "$1" --set page_size=64K --policy "$2" --format json | jq -r ".[0] | $3"; }
say $A "Raise the capacity" "first fit has $(oom_at 700M first-fit .ooms) at 700M, $(oom_at 768M first-fit .ooms) at 768M, $(oom_at 1G first-fit .ooms | sed 's/^0$/none/') at 1G"
say $A "512M:" "512M: \`caching\` $(oom_at 512M caching .ooms) OOMs, $(oom_at 512M caching .ooms_enough_free) of them fragmented; \`cuda\` $(oom_at 512M cuda .ooms), $(oom_at 512M cuda .ooms_enough_free) fragmented"
say $M "On the chapter's scenario" "first fit and best fit hit $(j0 .ooms) OOMs"
say $M "memory but makes" "makes $(c "$(jc cuda .driver_allocs)") cudaMalloc and $(c "$(jc cuda .driver_frees)") cudaFree calls, which build and tear down $(c "$(jc cuda .maps)") mappings"
[ "$(jc cuda .maps)" = "$(jc cuda .unmaps)" ] && checks=$((checks + 1)) || { fails=$((fails + 1)); echo "FAIL: cuda maps != unmaps"; }
say $M "(small requests share 2 MiB regions" "$(LC_ALL=C awk -v p="$(jc cuda .pte_writes)" 'BEGIN { printf "%.0f", p / 1000 }') k PTE writes"
say $M "same $(c "$(jc caching .allocs)") requests with" "with $(jc caching .driver_allocs) cudaMalloc calls and $(jc caching .shootdowns) shootdowns"
# the layout check (ALLOC.md's table): the live set's regions after each churn trace, churned and fresh
for t in below near above; do
  "$tlbsim" alloc --policy cuda --format json --layout "$work/$t.csv" "traces/churn/churn_$t.trace.gz" | jq ".[0]" >"$work/ch.json"
  awk -F, 'NR > 1 { print "alloc", $4, $5 }' "$work/$t.csv" >"$work/${t}_fresh.trace"
  "$tlbsim" alloc --policy cuda --format json "$work/${t}_fresh.trace" | jq ".[0]" >"$work/fr.json"
  for kase in churned fresh; do
    file=$work/ch.json
    [ $kase = fresh ] && file=$work/fr.json
    gpu2=$(awk -F, -v k=$kase 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["case"] == k { print $c["regions_2m"]; exit }' "$R/churn_$t.csv")
    gpu32=$(awk -F, -v k=$kase 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["case"] == k { print $c["regions_32m"]; exit }' "$R/churn_$t.csv")
    m2=$(jq -r .live_regions_2m_end "$file") m32=$(jq -r .live_regions_32m_end "$file")
    err=$(LC_ALL=C awk -v m="$m32" -v g="$gpu32" 'BEGIN { printf "%+.2f", 100 * (m - g) / g }' | sed 's/^-/−/')
    key="| \`churn_$t\` | churned |"
    [ $kase = fresh ] && key="| | fresh | $(c "$gpu2") | $(c "$m2") | $(c "$gpu32")"
    say $A "$key" "| $(c "$gpu2") | $(c "$m2") | $(c "$gpu32") | $(c "$m32") | ${err#+} % |"
  done
done

# what the allocations cost in time (ALLOC.md): the inference loop's captures through the driver-time
# model, against the measured medians; the layout fidelity of the captures (tlbsim validate)
inf=$R/capture/infer
loop=(--between tlbsim_loop_begin,tlbsim_loop_end --format json)
"$tlbsim" alloc --policy cuda,caching "${loop[@]}" "$inf/nocache.trace.gz" >"$work/tnc.json"
"$tlbsim" alloc --policy caching "${loop[@]}" "$inf/caching.trace.gz" >"$work/tc.json"
tn() { jq -r ".[] | select(.policy == \"$1\") | .$2" "$work/tnc.json"; }
med() { jq -s 'map(.loop_s) | sort | .[1]' "$inf/$1"_[123].json; }
mn=$(med nocache) mc=$(med caching)
measured=$(LC_ALL=C awk -v a="$mn" -v b="$mc" 'BEGIN { print a - b }')
nc=$(tn cuda wall_time_s) ncc=$(tn caching wall_time_s) cc=$(jq -r '.[0].wall_time_s' "$work/tc.json")
for pair in "$ncc one capture, two policies" "$cc two captures, each"; do
  other=${pair%% *} key=${pair#* }
  d=$(LC_ALL=C awk -v a="$nc" -v b="$other" 'BEGIN { print a - b }')
  e=$(LC_ALL=C awk -v d="$d" -v m="$measured" 'BEGIN { print d - m }')
  say $A "| $key" "| $(f 3 "$nc") s | $(f 3 "$other") s | $(f 3 "$d") s | +$(f 3 "$e") s (+$(f 1 "$(LC_ALL=C awk -v e="$e" -v m="$measured" 'BEGIN { print 100 * e / m }')") %) |"
done
say $A "| measured (medians" "| $(f 3 "$mn") s | $(f 3 "$mc") s | $(f 3 "$measured") s |"
say $A "Of the no-caching loop's" "$(f 3 "$nc") s, $(f 3 "$(tn cuda driver_time_s)") s is driver time"
say $A "the calls' own latency" "$(f 3 "$(LC_ALL=C awk -v a="$(tn cuda driver_time_s)" -v b="$(tn cuda driver_wait_s)" 'BEGIN { print a - b }')") s the calls' own latency"
say $A "waiting for the device," "and $(f 3 "$(tn cuda driver_wait_s)") s waiting for the device"
say $A "loop's no-caching capture the driver's least free" "is $(c "$(tn cuda recorded.free_bytes_min)") B of $(c "$(tn cuda recorded.total_bytes)")"
for t in torch_nocache infer/nocache torch_caching; do
  "$tlbsim" validate --format json "$R/capture/$t.trace.gz" >"$work/vc.json"
  v() { jq -r ".[] | select(.policy == \"$1\") | .$2" "$work/vc.json"; }
  say $A "| \`$t\` (" "| $(c "$(v cuda allocations)") | $(v cuda placed_exactly) ($(pct "$([ "$(v cuda allocations)" -gt 1000 ] && echo 2 || echo 1)" "$(v cuda placed_exactly_ratio)") %) | $(c "$(v cuda same_step)") of $(c "$(v recorded same_step)") ($(pct 1 "$(v cuda same_step_ratio)") %) | $(mib "$(v cuda mean_offset_error_bytes)") MiB"
  say $A "| \`$t\` (" "| $(c "$(v recorded regions_2m_touched)") / $(c "$(v cuda regions_2m_touched)") | $(v recorded regions_32m_touched) / $(v cuda regions_32m_touched) |"
done

# --- bench/README.md: the memory table against its raw log ---------------------------------
log=bench/logs/memory-2026-12-01.txt
while read -r kind fmt lines rss rate pages ptbytes _; do
  say $B "| $kind $fmt | $(sp "$lines") |" "| $(sp "$rss") | $rate | $(sp "$pages") | $(sp "$ptbytes") |"
done < <(awk '$1 == "bounded" || $1 == "grow"' "$log")
read -r lo hi < <(awk '$1 == "bounded" && $2 == "din" { if (!lo || $4 < lo) lo = $4; if ($4 > hi) hi = $4 } END { print lo, hi }' "$log")
range="$(f 1 "$(awk -v k="$lo" 'BEGIN { print k / 1024 }')")–$(f 1 "$(awk -v k="$hi" 'BEGIN { print k / 1024 }')") MiB"
say $B "Bounded:" "Bounded: $range from 1M to 100M lines"
say $M "Replay memory stays" "at $range from 1 M to 100 M lines"
read -r lo hi < <(awk '$1 == "bounded" && $2 == "din.gz" { if (!lo || $4 < lo) lo = $4; if ($4 > hi) hi = $4 } END { print lo, hi }' "$log")
say $M "thread's 1 MiB ring" "($(f 1 "$(awk -v k="$lo" 'BEGIN { print k / 1024 }')")–$(f 1 "$(awk -v k="$hi" 'BEGIN { print k / 1024 }')")"

# --- bench/README.md: the xz decode threads' ratio against its raw log ----------------------
log=bench/logs/xz_jobs-2026-12-01.txt
read -r best med < <(awk '/^ratio jobs 1 \/ jobs 2:/ { print $8, $10 }' "$log")
say $B "Ratio \`--jobs 1\` / \`--jobs 2\`" "best $best, median $med"
while read -r _ jobs best med cbest cmed; do
  say $B "| \`--jobs $jobs\` |" "| $best | $med | $cbest | $cmed |"
done < <(awk '$1 == "jobs"' "$log")

# --- bench/README.md: round 14's kernel-model table against its raw log ---------------------
# each host's builds in the order of its row: the median wall (the mean of the middle two of an even
# count), the ratio to the first's, M warp instructions a second at the median and (past the first) in the
# slowest round
log=bench/logs/kernel-round14-2026-12-04.txt
for host in A B C D E; do
  row=$(awk -v h="$host" -v w=23003136 '
    /^# --- / { on = index($0, "host " h ":") > 0; next }
    on && /^[0-9]+ .* wall / {
      i = match($0, / [0-9.]+ wall /); b = substr($0, index($0, " ") + 1, i - index($0, " ") - 1)
      if (b ~ /-j1/) next
      if (!(b in n)) order[++nb] = b
      t[b, ++n[b]] = substr($0, i + 1, RLENGTH - 6) + 0
    }
    function median(b,   k, j, x, m) {
      m = n[b]; for (k = 1; k <= m; k++) s[k] = t[b, k]
      for (k = 2; k <= m; k++) { x = s[k]; for (j = k - 1; j >= 1 && s[j] > x; j--) s[j + 1] = s[j]; s[j + 1] = x }
      worst = s[m]; return m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
    }
    END {
      for (k = 1; k <= nb; k++) { med[k] = median(order[k]); slow[k] = worst }
      for (k = 1; k <= nb; k++) {
        ms = ms (k > 1 ? " / " : "") sprintf("%.2f", med[k])
        rs = rs (k > 1 ? sprintf(" / %.3f", med[k] / med[1]) : "1")
        ps = ps (k > 1 ? " / " : "") sprintf("%.2f", w / med[k] / 1e6) (k > 1 ? sprintf(" (%.2f)", w / slow[k] / 1e6) : "")
      }
      printf "%s (%d)|%s|%s\n", ms, n[order[1]], rs, ps
    }' "$log")
  IFS='|' read -r meds ratios rates <<<"$row"
  say $B "| GPU-machine host $host (" "| $meds | $ratios | $rates |"
done

if [ $quick = 1 ]; then
  echo "claims: $checks checked, $fails failed (--quick: the validate and calibrate figures, bench's miss counts and the machine-to-machine differences not re-computed)"
  [ $fails = 0 ]
  exit
fi

# --- bench/README.md: miss counts of the generated 20M-line trace --------------------------
gen=$(dirname "$tlbsim")/../bench/bench_gen_din
if [ -x "$gen" ]; then
  "$gen" --lines 20000000 >"$work/t.din"
  misses() { "$tlbsim" run --format csv "$@" "$work/t.din" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "tlb.l1d.access_misses") c = i } NR == 2 { print $c }'; }
  say $B "| synthetic 20M, fa64 (\`x86-64\` preset)" "| $(sp "$(misses --preset x86-64 --set tlb.l1d.entries=64 --set tlb.l1d.ways=64)") |"
  say $B "| synthetic 20M, 4way (\`x86-64\` preset)" "| $(sp "$(misses --preset x86-64)") |"
else
  echo "note: no $gen (build the bench_gen_din target): bench's miss counts not checked"
fi

# --- one thread (VALIDATION.md, README.md) -------------------------------------------------
tg=(--mapping contiguous,shuffled,cudamalloc --min-footprint 32M --min-nodes 64)
val t_chase "${tg[@]}" $R/chase.csv
val t_run2 "${tg[@]}" $R/run2/chase.csv
val t_vmm --mapping contiguous,shuffled --min-footprint 32M --min-nodes 64 $R/chase.csv
val t_preset "${tg[@]}" --data-latency preset $R/chase.csv
val t_all --mapping contiguous,shuffled,cudamalloc $R/chase.csv
val a_seq --mapping aliased --order seq $R/chase.csv
val a_rand --mapping aliased --order random $R/chase.csv
val a_300 --mapping aliased --order random --min-footprint 300G $R/chase.csv
val r2_seq --mapping aliased --order seq $R/run2/chase.csv
val r2_rand --mapping aliased --order random $R/run2/chase.csv
n=$(c "$(q t_run2 .rows)") tr=$(q t_run2 .translation.rows)
small=$(c $(($(q t_chase .rows) - $(q t_chase .translation.rows))))
say $V "minus base — is off by" "is off by $(f 2 "$(q t_run2 .translation.mean_abs_error_pct)") % on average over the $tr target rows"
say $V "20 cycles** (worst" "(worst $(f 1 "$(q t_run2 .translation.worst_error_pct)") %); on"
say $V "the sweep the constants were read off," "read off, $(f 2 "$(q t_chase .translation.mean_abs_error_pct)") % (worst"
say $V "%). The figure usually quoted" "$(f 1 "$(q t_chase .translation.worst_error_pct)") %). The figure usually quoted"
say $V "per access ($(f 3 "$(q t_run2 .mean_abs_error_pct)") % on \`run2\`" "$(f 3 "$(q t_chase .mean_abs_error_pct)") %"
say $V "translation, and" "and $small of the $n target rows have under 20 cycles of translation"
say $V "| \`validate_h200\` |" "| $(chase_figs t_run2) |"
say $V "| \`validate_h200_aliased_seq\` |" "| $(chase_figs r2_seq) |"
say $V "| \`validate_h200_aliased_random\` |" "| $(chase_figs r2_rand) |"
row1() { # row1 ID KEY: the one-thread table's row
  local tail="| $(f 3 "$(q "$1" .mean_abs_error_pct)") % | $(f 1 "$(q "$1" .worst_error_cycles)") cycles"
  say $V "$2" "| $(c "$(q "$1" .rows)") |"
  say $V "$2" "$tail"
}
row1 t_chase "**the target**: \`chase.csv\`"
row1 t_run2 "the same rows of **another H200**"
row1 t_vmm "\`chase.csv\`, VMM chunks only"
row1 t_preset "fixed 285-cycle data latency"
row1 t_all "(from 1 MiB, any node count)"
row1 a_seq "2 MiB … 4 TiB, sequential"
row1 a_rand "| 328 | the same, random |"
row1 a_300 "random past 300 GiB"
row1 r2_seq "(the 48/96/160 MiB bank strides included) | **held out**"
row1 r2_rand "| 447 | the same, random |"
say $V "**the target**: \`chase.csv\`" "| $(q t_chase .translation.rows) rows: $(f 2 "$(q t_chase .translation.mean_abs_error_pct)") %, worst $(f 1 "$(q t_chase .translation.worst_error_pct)") % |"
say $V "the same rows of **another H200**" "| $tr rows: **$(f 2 "$(q t_run2 .translation.mean_abs_error_pct)") %**, worst $(f 1 "$(q t_run2 .translation.worst_error_pct)") % |"
for id_key in "a_seq|2 MiB … 4 TiB, sequential" "a_rand|| 328 | the same, random |" "a_300|random past 300 GiB" \
  "r2_seq|(the 48/96/160 MiB bank strides included) | **held out**" "r2_rand|| 447 | the same, random |"; do
  id=${id_key%%|*} key=${id_key#*|}
  say $V "$key" "| $(q "$id" .translation.rows) rows: $(f 2 "$(q "$id" .translation.mean_abs_error_pct)") % |"
done
say $V "random past 300 GiB" "$(within a_300 8) of $(q a_300 .rows) within 8"
say $V "| 447 | the same, random |" "$(within r2_rand 8) of $(q r2_rand .rows) within 8"
say $M "is off by" "is off by $(f 2 "$(q t_run2 .translation.mean_abs_error_pct)") % on average over the $tr target rows"
say $M "($(f 2 "$(q t_chase .translation.mean_abs_error_pct)") % on \`chase.csv\`" "the whole cycles per access, $(f 3 "$(q t_run2 .mean_abs_error_pct)") %"
say $M "mean and $(f 1 "$(q t_run2 .worst_error_cycles)") cycles at worst over the $n target rows" "(one thread"
say $M "both orders; $(f 3 "$(q t_chase .mean_abs_error_pct)") % and $(f 1 "$(q t_chase .worst_error_cycles)") on \`chase.csv\`)" "diluted"
say $M "One thread's" "$(c "$(q t_chase .rows)") target rows, $(f 3 "$(q t_chase .mean_abs_error_pct)") %, worst $(f 1 "$(q t_chase .worst_error_cycles)") cycles"

# machines never probed, and with their probe's machine file
val b_seq --order seq $R/chase_banks.csv
val b_rand --order random $R/chase_banks.csv
val rerun $R/chase_banks_rerun.csv
val m_seq --order seq $R/chase_aliased_more.csv
val m_rand --order random $R/chase_aliased_more.csv
never() { say $V "$2" "| $(q "$1" .rows) | $(f 2 "$(q "$1" .mean_abs_error_pct)") % | $(f 1 "$(q "$1" .worst_error_cycles)") cycles | $(q "$1" .translation.rows) rows: $(f 1 "$(q "$1" .translation.mean_abs_error_pct)") % |"; }
never b_seq "| \`chase_banks.csv\`, sequential |"
never b_rand "| \`chase_banks.csv\`, random |"
never rerun "| \`chase_banks_rerun.csv\` (same machine, seed 5), random |"
never m_seq "| \`chase_aliased_more.csv\`, sequential |"
never m_rand "| \`chase_aliased_more.csv\`, random |"
lo=$(f 1 "$(q m_seq .mean_abs_error_pct)") hi=$(f 1 "$(q b_seq .mean_abs_error_pct)")
say $M "the shipped preset is" "$lo–$hi % off, $(f 1 "$(q b_seq .worst_error_cycles)") cycles at worst in sequential order"
say gpu/README.md "rows the probe did not measure from" "from $lo–$hi % off"
keys=tlb.l3.latency,latency.walk_cycles,latency.walk_ref_cycles
fitline() { # fitline OUT: "L3; WALK + REF" of a calibrate output
  awk '$1 == "tlb.l3" { l3 = $4 } $2 == "walk_cycles" { w = $4 } $2 == "walk_ref_cycles" { r = $4 } END { print l3 "; " w " + " r }' "$1"
}
for m in banks:chase_banks.csv more:chase_aliased_more.csv run2:run2/chase.csv; do
  name=${m%%:*}
  gpu/scripts/probe_rows.sh "$R/${m#*:}" "$work/$name.probe.csv" "$work/$name.rest.csv"
  "$tlbsim" calibrate --fit $keys --machine-file "$work/$name.ini" "$work/$name.probe.csv" >"$work/$name.fit"
done
held() { # held ID NAME ARGS...: the machine file NAME over the preset
  local id=$1 name=$2
  shift 2
  val "$id" --preset h200 --config "$work/$name.ini" "$@"
}
held p_bs banks --order seq "$work/banks.rest.csv"
held p_br banks --order random "$work/banks.rest.csv"
held p_rr banks $R/chase_banks_rerun.csv
held p_ms more --order seq "$work/more.rest.csv"
held p_mr more --order random "$work/more.rest.csv"
held p_2s run2 --mapping aliased --order seq "$work/run2.rest.csv"
probe_row() { say $V "$2" "| $(q "$1" .rows) | $(f 3 "$(q "$1" .mean_abs_error_pct)") % | $(f 1 "$(q "$1" .worst_error_cycles)") cycles | $(q "$1" .translation.rows) rows: $(f 2 "$(q "$1" .translation.mean_abs_error_pct)") % |"; }
probe_row p_bs "| \`chase_banks.csv\`'s | $(fitline "$work/banks.fit") | the rest, sequential"
probe_row p_br "| | | the rest, random | 270"
probe_row p_rr "| | | \`chase_banks_rerun.csv\` (seed 5), random"
probe_row p_ms "| \`chase_aliased_more.csv\`'s | $(fitline "$work/more.fit") | the rest, sequential"
probe_row p_mr "| | | the rest, random | 81"
probe_row p_2s "| \`run2\`'s (the preset's kind) | $(fitline "$work/run2.fit") | the rest, aliased sequential"
val r2_rest_preset --mapping aliased --order seq "$work/run2.rest.csv"
say $V "cycles with it," "cycles with it, $(f 3 "$(q r2_rest_preset .mean_abs_error_pct)") %, $(f 1 "$(q r2_rest_preset .worst_error_cycles)") without"
say $V "(88.8 against 90;" "finds the preset's values again ($(awk '$1 == "tlb.l3" { print $4 }' "$work/run2.fit") against 90"
lo=$(f 2 "$(q p_ms .mean_abs_error_pct)") hi=$(f 2 "$(q p_bs .mean_abs_error_pct)")
say $M "the probe did not measure to" "to $lo–$hi % and $(f 1 "$(q p_bs .worst_error_cycles)") cycles at worst (random: $(f 2 "$(q p_br .mean_abs_error_pct)")–$(f 2 "$(q p_mr .mean_abs_error_pct)") %)"
say gpu/README.md "rows the probe did not measure from" "to $lo–$hi %"
say gpu/README.md "it finds" "it finds $(awk '$1 == "tlb.l3" { print $4 }' "$work/banks.fit") and $(awk '$1 == "tlb.l3" { print $4 }' "$work/more.fit") cycles"
say gpu/README.md "second kind and" "and $(awk '$1 == "tlb.l3" { print $4 }' "$work/run2.fit") for one of the first"
say $M "it is $(f 1 "$(q p_bs .worst_error_cycles)") cycles off" "it is $(f 1 "$(q p_bs .worst_error_cycles)") cycles off at worst on the $(q p_bs .rows) sequential rows the probe did not measure"

# calibrate
cal() { "$tlbsim" calibrate "$@" | awk '{ v[$1 "." $2] = $4 } END { print v["tlb.l2.latency"], v["tlb.l3.latency"], v["latency.walk_cycles"], v["latency.walk_ref_cycles"] }'; }
read -r l2 l3 _ _ < <(cal --mapping contiguous,shuffled --min-footprint 64G $R/chase.csv)
say $V "--mapping contiguous,shuffled --min-footprint 64G" "gives L2 $l2 and L3 $l3"
read -r _ _ w r < <(cal --mapping aliased --min-footprint 280G $R/chase.csv)
say $V "--mapping aliased --min-footprint 280G" "a walk of $(f 0 "$w") + $(f 0 "$r") per read"
read -r _ l3b _ _ < <(cal $R/chase_banks.csv)
read -r _ l3m _ _ < <(cal $R/chase_aliased_more.csv)
say $V "H200s' sweeps it finds the third level at" "at $l3b"
say $V "(\`chase_banks.csv\`) and" "and $l3m cycles"
"$tlbsim" calibrate --mapping contiguous,shuffled --min-footprint 64G --out "$work/fit.ini" $R/chase.csv >/dev/null
val cal_run2 --config "$work/fit.ini" --mapping contiguous,shuffled --min-footprint 64G $R/run2/chase.csv
awk -F, 'NR == 1 || ($2 == "seq" && $5 <= 268435456 && $5 % 33554432 == 0 && $5 / 33554432 != 3 && $6 <= 1099511627776)' \
  $R/chase_banks.csv >"$work/banks124.csv"
"$tlbsim" calibrate --out "$work/banks124.ini" "$work/banks124.csv" >"$work/banks124.fit"
val cal_more --config "$work/banks124.ini" --order seq $R/chase_aliased_more.csv
say $V "| \`calibrate\` |" "| $(f 3 "$(q cal_run2 .mean_abs_error_pct)") %; $(f 1 "$(q cal_run2 .worst_error_cycles)") cycles / $(f 3 "$(q cal_more .mean_abs_error_pct)") %; $(f 1 "$(q cal_more .worst_error_cycles)") |"
say $V "validates the fitted preset on the same rows" "($(f 3 "$(q cal_run2 .mean_abs_error_pct)") %, $(f 1 "$(q cal_run2 .worst_error_cycles)") cycles)"
say $V "sequential rows of \`chase_banks.csv\` (third level" "level $(awk '$1 == "tlb.l3" { print $4 }' "$work/banks124.fit"))"
# "Sampled under the sanitizers": what the sanitizer build's samples of these tests give
# (sample_row ID KEY: "ROWS of ALL | MEAN %; WORST; TRANSLATION %"; the same tests' whole selections above)
sample_row() { say $V "$2" "| $(q "$1" .rows) of $(c "$3") | $(f 3 "$(q "$1" .mean_abs_error_pct)") %; $(f 1 "$(q "$1" .worst_error_cycles)")${4:-}; $(f 2 "$(q "$1" .translation.mean_abs_error_pct)") % ($(q "$1" .translation.rows)) |"; }
tg_s=(--mapping contiguous,shuffled,cudamalloc --min-footprint 32M --min-nodes 64)
val s_t "${tg_s[@]}" --every 5 $R/run2/chase.csv
val s_t1 "${tg_s[@]}" $R/run2/chase.csv
sample_row s_t "| \`validate_h200\` | \`run2/chase.csv\` target rows | every 5th" "$(q s_t1 .rows)" " cycles"
val s_as --mapping aliased --order seq --every 5 $R/run2/chase.csv
sample_row s_as "| \`validate_h200_aliased_seq\` |" "$(q r2_seq .rows)"
val s_ar --mapping aliased --order random --every 5 $R/run2/chase.csv
sample_row s_ar "| \`validate_h200_aliased_random\` |" "$(q r2_rand .rows)"
two() { echo "$(f 3 "$(q "$1" .mean_abs_error_pct)") %; $(f 1 "$(q "$1" .worst_error_cycles)")"; }
held s_bs banks --order seq --every 6 "$work/banks.rest.csv"
held s_br banks --order random --every 6 "$work/banks.rest.csv"
say $V "| \`validate_h200_probe\` | \`chase_banks.csv\`'s rest" "| $(q s_bs .rows) of $(q p_bs .rows) each | $(two s_bs) (seq) / $(two s_br) (random) | $(two p_bs) / $(two p_br) |"
held s_ms more --order seq --every 3 "$work/more.rest.csv"
held s_mr more --order random --every 3 "$work/more.rest.csv"
say $V "| | \`chase_aliased_more.csv\`'s rest" "| $(q s_ms .rows) of $(q p_ms .rows) each | $(two s_ms) / $(two s_mr) | $(two p_ms) / $(two p_mr) |"
val s_c1 --config "$work/fit.ini" --mapping contiguous,shuffled --min-footprint 64G --every 3 $R/run2/chase.csv
say $V "| \`calibrate\` | the fit's held-out" "| $(q s_c1 .rows) of $(q cal_run2 .rows) | $(two s_c1) | $(two cal_run2) |"
val s_c2 --config "$work/banks124.ini" --order seq --every 2 $R/chase_aliased_more.csv
say $V "| | \`chase_aliased_more.csv\` sequential | every 2nd" "| $(q s_c2 .rows) of $(q cal_more .rows) | $(two s_c2) | $(two cal_more) |"
say $V "\`chase_aliased_more.csv\`'s sequential rows (" "($(f 3 "$(q cal_more .mean_abs_error_pct)") %, $(f 1 "$(q cal_more .worst_error_cycles)") cycles)"

# 64 KiB pages
val k64 $R/chase_64k.csv
val k64_3 $R/run3/chase_64k.csv
val s_64 --every 3 $R/run3/chase_64k.csv
sample_row s_64 "| \`validate_h200_64k\` |" "$(q k64_3 .rows)"
say $V "| \`validate_h200_64k\` |" "| $(chase_figs k64_3) |"
for id_key in "k64|| \`chase_64k.csv\` (one thread" "k64_3|| \`run3/chase_64k.csv\` (another H200) |"; do
  id=${id_key%%|*} key=${id_key#*|}
  say $V "$key" "| $(q "$id" .rows) |"
  say $V "$key" "| $(f 3 "$(q "$id" .mean_abs_error_pct)") % | $(f 1 "$(q "$id" .worst_error_cycles)") cycles"
  say $V "$key" "| $(q "$id" .translation.rows) rows: $(f 2 "$(q "$id" .translation.mean_abs_error_pct)") % |"
done

# machine-to-machine differences (the Bounds table)
read -r m w t < <(noise $R/chase.csv $R/run2/chase.csv target)
say $V "| one thread, target rows |" "| $m %; $w cycles (translation over its 76 rows: $t %) |"
read -r m w t < <(noise $R/chase.csv $R/run2/chase.csv aseq)
say $V "| one thread, aliased sequential |" "| $(f 2 "$m") %; $w cycles (translation $t %) |"
read -r m w t < <(noise $R/chase.csv $R/run2/chase.csv arand)
say $V "| one thread, aliased random |" "| $m %; $w cycles (translation $t %) |"
read -r m w t < <(noise $R/chase_64k.csv $R/run3/chase_64k.csv all)
say $V "| one thread, 64 KiB pages |" "| $m %; $w cycles (translation $t %) |"
read -r _ w _ < <(noise $R/chase_banks.csv $R/chase_banks_rerun.csv all)
say $V "another seed agrees within" "within $w cycles"
read -r m w < <(gnoise $R/gather.csv $R/run3/gather.csv)
read -r m5 w5 < <(gnoise $R/gather.csv $R/run3/gather.csv 512)
say $V "| gather |" "| $m %; $w % (≥ 512 threads per SM: $m5 %; $w5 %) |"
read -r ma wa < <(gnoise $R/gather_aliased.csv $R/run3/gather_aliased.csv)
read -r ml wl < <(gnoise $R/gather_locality.csv $R/run3/gather_locality.csv)
read -r m6 w6 < <(gnoise $R/gather_loads64.csv $R/run3/gather_loads64.csv)
read -r m1 w1 < <(gnoise $R/gather_loads1024.csv $R/run3/gather_loads1024.csv)
say $V "| gather beyond memory, locality, loads per thread |" "| $ma %; $wa % / $ml %; $wl % / $m6–$m1 %; $w1–$w6 % |"
read -r mm wm < <(gnoise $R/gather_managed.csv $R/run3/gather_managed.csv)
say $V "| gather, managed memory |" "| $mm %; $(f 1 "$wm") % |"
cm=0 cw=0 gm=0 gw=0
for t in below near above; do
  read -r a b g h < <(cnoise $R/churn_$t.csv $R/run3/churn_$t.csv)
  read -r cm cw gm gw < <(awk -v a="$a" -v b="$b" -v g="$g" -v h="$h" -v cm="$cm" -v cw="$cw" -v gm="$gm" -v gw="$gw" \
    'BEGIN { print (a > cm ? a : cm), (b > cw ? b : cw), (g > gm ? g : gm), (h > gw ? h : gw) }')
done
say $V "| churn chain |" "| chase ≤ $cm %, worst ≤ $cw %; gather ≤ $gm %, worst ≤ $gw %; regions 0 |"

# --- many threads --------------------------------------------------------------------------
val g $R/gather.csv
val g512 --min-threads-per-sm 512 $R/gather.csv
val g3 $R/run3/gather.csv
val g3_512 --min-threads-per-sm 512 $R/run3/gather.csv
val ga $R/gather_aliased.csv
val ga3 $R/run3/gather_aliased.csv
val loc $R/gather_locality.csv
val l64 $R/gather_loads64.csv
val l1024 $R/gather_loads1024.csv
val man $R/gather_managed.csv
val man3 $R/run3/gather_managed.csv
val sms $R/gather_sms.csv
val s16 --every 16 $R/run3/gather.csv
val s512 --every 13 --min-threads-per-sm 512 $R/run3/gather.csv
val sa3 --every 3 $R/run3/gather_aliased.csv
val sl4 --every 4 $R/gather_locality.csv
grow() { # grow ID KEY MEAN_DIGITS WORST_DIGITS: the gather table's row
  say $V "$2" "| $(q "$1" .rows) |"
  say $V "$2" "$(f "$3" "$(q "$1" .mean_abs_error_pct)") %"
  say $V "$2" "| $(f "$4" "$(q "$1" .worst_error_pct)") %"
}
grow g "| \`gather.csv\` (contiguous" 2 1
grow g512 "| the same, ≥ 512 threads per SM | 333" 2 1
say $V "| \`run3/gather.csv\` (another H200) |" "| **$(f 2 "$(q g3 .mean_abs_error_pct)") %** | $(f 1 "$(q g3 .worst_error_pct)") %; ≥ 512 threads per SM ($(q g3_512 .rows) rows) $(f 2 "$(q g3_512 .mean_abs_error_pct)") %, worst $(f 1 "$(q g3_512 .worst_error_pct)") % |"
grow ga "| \`gather_aliased.csv\` (beyond memory" 2 1
grow ga3 "| \`run3/gather_aliased.csv\` |" 2 1
grow loc "| \`gather_locality.csv\`" 2 0
say $V "| \`gather_loads64.csv\`, \`gather_loads1024.csv\` |" "| $(f 1 "$(q l64 .mean_abs_error_pct)") %, $(f 1 "$(q l1024 .mean_abs_error_pct)") % | $(f 0 "$(q l64 .worst_error_pct)") %, $(f 0 "$(q l1024 .worst_error_pct)") %"
grow man "| \`gather_managed.csv\` (64 KiB pages) |" 2 1
grow man3 "| \`run3/gather_managed.csv\` |" 1 1
grow sms "| \`gather_sms.csv\` (pinned SM sets) |" 1 0
say $V "| \`validate_h200_gather\` |" "(49) | $(gather_figs s16) |"
say $V "| \`validate_h200_gather_512\` |" "(26: 512, 1024 and 2048 threads, each mapping) | $(gather_figs s512 2) |"
say $V "| \`validate_h200_gather_aliased\` |" "(8) | $(gather_figs sa3 2) |"
say $V "| \`validate_h200_gather_locality\` |" "(14) | $(gather_figs sl4) |"
say $V "| \`validate_h200_gather_loads64\`, \`_loads1024\` |" "| $(gather_figs l64) / $(gather_figs l1024) |"
say $V "| \`validate_h200_gather_managed\` |" "| $(gather_figs man) |"
for id in s16 s512 sa3 sl4; do say tests/validate.cmake "$(q $id .rows)" "$(f 2 "$(q $id .mean_abs_error_pct)") %"; done
say $M "Against the committed sweeps" "**$(f 2 "$(q g3 .mean_abs_error_pct)") % mean error over the $(q g3 .rows) rows of"
say $M "a second H200's \`run3/gather.csv\`" "within $(f 1 "$(q g3_512 .worst_error_pct)") %** ($(f 2 "$(q g .mean_abs_error_pct)") % and"
say $M "$(f 1 "$(q g512 .worst_error_pct)") % on \`gather.csv\`" "the sweep the"
# one warp per SM, 8 and 128 GiB
w32() { q g "[.points[] | select(.threads_per_sm == 32 and .mapping == \"cudamalloc\" and .footprint_bytes == $1)][0] | 100 * (.predicted_loads_per_ns - .measured_loads_per_ns) / .measured_loads_per_ns"; }
say $V "more in step than the hardware does" "(cudaMalloc: $(f 0 "$(w32 8589934592)") % at 8 GiB, $(f 0 "$(w32 68719476736)") % at 64 GiB)"
# allocation experiments
val sb $R/smallbufs.csv
val sb2048 --min-nodes 2048 $R/smallbufs.csv
say $V "| \`smallbufs.csv\`" "| $(q sb .rows) | held out (no constant) | $(f 1 "$(q sb .gather_mean_abs_error_pct)") % ($(f 1 "$(q sb2048 .gather_mean_abs_error_pct)") % over ≥ 2,048 buffers; chase $(f 2 "$(q sb .chase_mean_abs_error_pct)") %) | $(f 0 "$(q sb .gather_worst_error_pct)") %"
for run in c c3; do
  dir=$R/
  [ $run = c3 ] && dir=$R/run3/
  for t in below near above; do val "${run}_$t" --traces traces/churn "${dir}churn_$t.csv"; done
  read -r gm cm rw gw < <(jq -rs '[(map(.gather_mean_abs_error_pct) | add / 3), (map(.chase_mean_abs_error_pct) | add / 3),
    (map(.regions_worst_error_pct) | max), (map(.gather_worst_error_pct) | max)] | map(tostring) | join(" ")' \
    "$work/${run}_below.json" "$work/${run}_near.json" "$work/${run}_above.json")
  key="| \`churn_*.csv\` (the chapter's chain"
  [ $run = c3 ] && key="| \`run3/churn_*.csv\` (another H200) |"
  say $V "$key" "| 18 |"
  say $V "$key" "| $(f 1 "$gm") % (chase $(f 2 "$cm") %, regions ≤ $(f 2 "$rw") %) | $(f 1 "$gw") %"
done
ch3() { q "c3_$1" "$2"; }
say $V "| \`validate_h200_churn_below\`, \`_near\`, \`_above\` |" "regions $(f 2 "$(ch3 below .regions_worst_error_pct)") / $(f 2 "$(ch3 near .regions_worst_error_pct)") / $(f 3 "$(ch3 above .regions_worst_error_pct)") %; chase worst $(f 2 "$(ch3 below .chase_worst_error_pct)") / $(f 2 "$(ch3 near .chase_worst_error_pct)") / $(f 2 "$(ch3 above .chase_worst_error_pct)") %; gather mean $(f 2 "$(ch3 below .gather_mean_abs_error_pct)") / $(f 2 "$(ch3 near .gather_mean_abs_error_pct)") / $(f 2 "$(ch3 above .gather_mean_abs_error_pct)") %, worst $(f 2 "$(ch3 below .gather_worst_error_pct)") / $(f 2 "$(ch3 near .gather_worst_error_pct)") / $(f 2 "$(ch3 above .gather_worst_error_pct)") %"
# README's churn table: regions, chase and gather (2048 threads per SM), GPU / model
for t in below near above; do
  pt() { q "c_$t" "[.points[] | select(.case == \"$1\" and .threads_per_sm == 2048)][0] | $2"; }
  cells=""
  for k in churned fresh pool; do cells="$cells$(pt $k .measured_regions_32m)/$(pt $k .predicted_regions_32m), "; done
  say $M "| $(c "$(pt churned .buffers)") buffers," "| ${cells%, } |"
  cells=""
  for k in churned fresh pool; do cells="$cells$(f 1 "$(pt $k .measured_chase_cycles)")/$(f 1 "$(pt $k .predicted_chase_cycles)"), "; done
  say $M "| $(c "$(pt churned .buffers)") buffers," "| ${cells%, } |"
  cells=""
  for k in churned fresh pool; do cells="$cells$(g3 "$(pt $k .measured_loads_per_ns)")/$(g3 "$(pt $k .predicted_loads_per_ns)"), "; done
  say $M "| $(c "$(pt churned .buffers)") buffers," "${cells%, } |"
done
val fo --traces traces/churn --set machine.frame_order=lowest-first $R/churn_above.csv
say $M "would be predicted at" "predicted at $(f 1 "$(q fo '[.points[] | select(.case == "fresh" and .threads_per_sm == 2048)][0] | .predicted_loads_per_ns')") loads/ns"

echo "claims: $checks checked, $fails failed"
[ $fails = 0 ]
