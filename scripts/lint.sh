#!/usr/bin/env bash
# Static analysis of the C sources (sim/, the host code of gpu/, fuzz/):
# cppcheck, then clang-tidy; exit 1 on any finding. CI runs it.
#   scripts/lint.sh [BUILD_DIR]
# BUILD_DIR (default build-lint) gets a clang configure for clang-tidy's
# compile_commands.json; nothing is built. Needs cppcheck and clang-tidy.
#
# cppcheck: bugs, performance and portability (not style). clang-tidy: the
# clang static analyzer and bugprone checks, less those that only flag this
# code's idioms (their names below, each with why). A finding that is not a
# bug is silenced where it is, with a NOLINT or cppcheck-suppress comment
# saying why, never by widening these lists.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-lint}
jobs=$(nproc)
mapfile -t sources < <({ find sim/src sim/cli -name '*.c'; find gpu/src fuzz -maxdepth 1 -name '*.c'; } | sort)
status=0
# A missing tool is a failure, never a clean result.
command -v cppcheck >/dev/null || { echo "lint: no cppcheck (scripts/deps.sh --lint installs it)"; exit 1; }
tidy=$(command -v clang-tidy || command -v clang-tidy-14) ||
  { echo "lint: no clang-tidy (scripts/deps.sh --lint installs it)"; exit 1; }

echo "cppcheck: ${#sources[@]} files"
cppcheck --enable=warning,performance,portability --std=c11 --error-exitcode=1 --inline-suppr --quiet \
  -j "$jobs" -I sim/include -I sim/src/alloc -I sim/src/trace -I sim/cli -I gpu/src -I fuzz \
  -D_POSIX_C_SOURCE=200809L -DFUZZ_FORMAT=0 \
  -DTLBSIM_VERSION='""' --suppress=unknownMacro "${sources[@]}" || status=1

checks=(
  '-*' 'clang-analyzer-*' 'bugprone-*'
  # Annex K's *_s functions are not in glibc; every strcpy here copies into
  # a buffer its source's length was checked against.
  -clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling -clang-analyzer-security.insecureAPI.strcpy
  # Path-sensitive checks that cannot see across translation units (a helper
  # in another file that always returns an error looks like it may return
  # 0) nor through glibc's ctype and va_list macros: false positives here.
  -clang-analyzer-valist.Uninitialized -clang-analyzer-core.uninitialized.ArraySubscript
  -clang-analyzer-core.uninitialized.Assign -clang-analyzer-core.NullDereference
  -clang-analyzer-core.UndefinedBinaryOperatorResult -clang-analyzer-core.CallAndMessage
  -clang-analyzer-optin.portability.UnixAPI
  # Idioms of this code: `!strcmp(a, b)`, `malloc(n * sizeof *p)`, short
  # parameter lists of like types, int8_t array indices, whole-struct
  # compares of configurations copied from one another, `sizeof arr /
  # sizeof arr[0]` in a macro.
  -bugprone-suspicious-string-compare -bugprone-sizeof-expression -bugprone-easily-swappable-parameters
  -bugprone-signed-char-misuse -bugprone-suspicious-memory-comparison -bugprone-macro-parentheses
  # Names and conversions the compiler's -Wall -Wextra already police.
  -bugprone-reserved-identifier -bugprone-narrowing-conversions
  -bugprone-implicit-widening-of-multiplication-result -bugprone-assignment-in-if-condition
)
CC=${CC:-$(command -v clang || command -v clang-14)} cmake -S . -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DTLBSIM_GPU=OFF >/dev/null
echo "clang-tidy: ${#sources[@]} files"
log=$build/clang-tidy.log
rc=0
printf '%s\n' "${sources[@]}" |
  xargs -P "$jobs" -n 4 "$tidy" -p "$build" --quiet --checks="$(IFS=,; echo "${checks[*]}")" >"$log" 2>"$log.err" ||
  rc=$?
out=$(grep -E '(warning|error):' "$log" | sort -u || true)
if [ -n "$out" ]; then
  echo "$out"
  status=1
elif [ "$rc" != 0 ]; then # it did not run (a bad check list, no compile_commands.json, a crash)
  echo "lint: clang-tidy failed (exit $rc):"
  grep -v 'warnings\? generated\.$' "$log.err" | tail -n 20
  status=1
fi
[ "$status" = 0 ] && echo "lint: clean"
exit "$status"
