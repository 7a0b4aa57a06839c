# bash completion for tlbsim: subcommands, options and the values of
# options that list them ("text (default), json or csv") are read from the
# program's own --help, so they never drift from it; preset, trace-format
# and allocator-policy names from `tlbsim formats`; the SECTION.KEY= of
# --set and --vary from `tlbsim formats --keys` of the --preset or --config
# already on the line (alloc's --set: the vas. ones).
# Installed as share/bash-completion/completions/tlbsim.

# The words of `tlbsim formats` under HEADING (e.g. "trace formats:"); with
# a third argument, only the first word of each line (presets: a name, then
# what it is).
_tlbsim_formats() {
  "$1" formats 2>/dev/null |
    awk -v h="$2" -v first="${3:-}" '/^[^ ]/ { on = ($0 == h); next }
      on { for (i = 1; i <= (first ? 1 : NF); i++) if ($i !~ /^\(/) print $i }'
}

# The values option OPT of command CMD lists at the start of its help line:
# single words separated by ", " or " or ", "(default)" dropped.
_tlbsim_choices() {
  "$1" "$2" --help 2>/dev/null | awk -v opt="$3" '
    !done && $1 == opt && NF > 2 {
      h = $0; sub(/^ +[^ ]+ +[^ ]+ +/, "", h); sub(/^[^:,]*format: /, "", h)
      gsub(/ \(default[^)]*\)/, "", h); sub(/[(:].*/, "", h)
      n = split(h, tok, /, | or /)
      for (i = 1; i <= n; i++) { sub(/ +$/, "", tok[i]); if (tok[i] !~ /^[a-z0-9_-]+$/) break; print tok[i] }
      done = 1 }'  # read to the end: exiting early would cut the help off (SIGPIPE) once it is over 4 KiB
}

# The SECTION.KEY= a --set may name, of the configuration the line names so
# far (--preset NAME or --config FILE before the word).
_tlbsim_keys() {
  local prog=$1 i conf=()
  for ((i = 2; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
    --preset | --config) conf=("${COMP_WORDS[i]}" "${COMP_WORDS[i + 1]}") ;;
    esac
  done
  "$prog" formats "${conf[@]}" --keys 2>/dev/null | sed 's/$/=/'
}

# The comma list's items after the last comma of cur: the choices, each
# prefixed with what comes before (quiz --kind translate,t -> translate,tlb).
_tlbsim_list() {
  local cur=$1 choices=$2 head=""
  [[ $cur == *,* ]] && head=${cur%,*},
  local c
  for c in $choices; do printf '%s\n' "$head$c"; done
}

_tlbsim() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} prog=${COMP_WORDS[0]}
  local cmd=${COMP_WORDS[1]:-} words=""
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    words="$("$prog" --help 2>/dev/null | awk '/^  [a-z]/ { print $1 }') --help"
  elif [[ $cur == -* ]]; then
    words=$("$prog" "$cmd" --help 2>/dev/null | awk '/^  --/ { print $1 }')
  else
    case $prev in
    --preset) words=$(_tlbsim_formats "$prog" presets: first) ;;
    --trace-format)
      if [ "$cmd" = alloc ]; then words=$(_tlbsim_choices "$prog" alloc "$prev")
      else words=$(_tlbsim_formats "$prog" 'trace formats:'); fi ;;
    --policy) words=$(_tlbsim_list "$cur" "$(_tlbsim_formats "$prog" 'allocator policies:')") ;;
    --set | --vary)
      words=$(_tlbsim_keys "$prog")
      if [ "$cmd" = alloc ]; then words=$(grep '^vas\.' <<<"$words"); fi
      compopt -o nospace 2>/dev/null || true ;; # a value follows the =
    --kind | --init | --first | --columns) words=$(_tlbsim_list "$cur" "$(_tlbsim_choices "$prog" "$cmd" "$prev")") ;;
    --*) words=$(_tlbsim_choices "$prog" "$cmd" "$prev") ;;
    esac
    if [ -z "$words" ]; then
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return
    fi
  fi
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}
complete -o filenames -F _tlbsim tlbsim
