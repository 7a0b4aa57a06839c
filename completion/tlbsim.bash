# bash completion for tlbsim: subcommands, options and the values of
# options that list them ("text (default), json or csv") are read from the
# program's own --help, so they never drift from it; preset, trace-format
# and allocator-policy names from `tlbsim formats`.
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
    $1 == opt && NF > 2 {
      h = $0; sub(/^ +[^ ]+ +[^ ]+ +/, "", h); sub(/^[^:,]*format: /, "", h)
      gsub(/ \(default[^)]*\)/, "", h); sub(/[(:].*/, "", h)
      n = split(h, tok, /, | or /)
      for (i = 1; i <= n; i++) { sub(/ +$/, "", tok[i]); if (tok[i] !~ /^[a-z0-9-]+$/) break; print tok[i] }
      exit }'
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
    --trace-format) words=$(_tlbsim_formats "$prog" 'trace formats:') ;;
    --policy) words=$(_tlbsim_formats "$prog" 'allocator policies:') ;;
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
