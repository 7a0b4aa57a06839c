# tests/cli/lib.sh — the prologue every command-line test shares (POSIX sh, so
# that sh and bash scripts can both source it). First thing in a test, after
# its own `set` options:
#     . "$(dirname "$0")/lib.sh"
# It gives:
#   tlbsim, src      the test's first two arguments (TLBSIM SOURCE_DIR), as most
#                    tests take them; a test with other arguments sets its own
#   work             a fresh temporary directory, removed when the script exits
#   ok               count a check that passed
#   bad MSG          count a check that failed (FAIL: MSG) and go on
#   fail MSG         FAIL: MSG, and stop with exit 1
#   has TEXT LINE    ok when TEXT holds LINE as a whole line, else fail
#   skip WHY         skip the test: exit 77 (ctest's SKIP_RETURN_CODE); where
#                    TLBSIM_TOOLS_REQUIRED=1 (CI, .ci/run: scripts/deps.sh
#                    installs every tool) FAIL and exit 1 instead
#   need TOOL...     skip unless every TOOL is on PATH
#   have TOOL        whether TOOL is on PATH, for a part of a test that needs it;
#                    with TLBSIM_TOOLS_REQUIRED=1 a missing one fails instead
#   every N          "--every N" where TLBSIM_TEST_SAMPLE=1 (ctest sets it on a
#                    sanitizer build, tests/CMakeLists.txt), else nothing: used
#                    unquoted, a validate samples its rows there, checks all elsewhere
#   finish [NAME]    print "NAME: P passed, F failed"; exit 1 when any failed
# Counters are `passes` and `failures`.
set -u
tlbsim=${1:-}
src=${2:-}
passes=0
failures=0
work=$(mktemp -d "${TMPDIR:-/tmp}/tlbsim-test.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

ok() { passes=$((passes + 1)); }
bad() {
  failures=$((failures + 1))
  echo "FAIL: $*"
}
fail() {
  echo "FAIL: $*"
  exit 1
}
has() {
  if printf '%s\n' "$1" | grep -xF -- "$2" >/dev/null; then
    ok
  else
    printf '%s\n' "$1"
    fail "no line: $2"
  fi
}
skip() {
  [ "${TLBSIM_TOOLS_REQUIRED:-0}" = 1 ] && fail "$* (TLBSIM_TOOLS_REQUIRED=1: nothing may be skipped)"
  echo "SKIP: $*"
  exit 77
}
need() {
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 || skip "needs $t (scripts/deps.sh installs it)"
  done
}
every() {
  [ -n "${TLBSIM_TEST_SAMPLE:-}" ] && printf '%s %s\n' --every "$1"
  return 0
}
have() {
  command -v "$1" >/dev/null 2>&1 && return 0
  [ "${TLBSIM_TOOLS_REQUIRED:-0}" = 1 ] && fail "needs $1 (TLBSIM_TOOLS_REQUIRED=1: scripts/deps.sh installs it)"
  echo "note: no $1, its part of the test skipped"
  return 1
}
finish() {
  echo "${1:+$1: }$passes passed, $failures failed"
  [ "$failures" -eq 0 ] || exit 1
  exit 0
}
