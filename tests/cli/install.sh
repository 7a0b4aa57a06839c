#!/usr/bin/env bash
# libtlbsim as a user gets it: `cmake --install` into a DESTDIR, then a small
# C program (tests/install/consumer.c) built against the installed tree with
# pkg-config (shared and --static) and with find_package(tlbsim) (shared and
# static), run, its numbers compared with `tlbsim run --format csv` on the
# same trace. Then the same against an install into another prefix that is
# moved after installing: tlbsim.pc and the CMake package are relocatable.
#   tests/cli/install.sh BUILD_DIR SOURCE_DIR TLBSIM [CFLAGS]
# CFLAGS (e.g. the sanitizers of the build) go to every consumer's build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need cc pkg-config cmake
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) tlbsim=$3
read -ra cflags <<<"${4:-}"
trace=$src/traces/samples/demo.trace
inst=$build/install-test root=$build/install-test/root
rm -rf "$inst"
mkdir -p "$inst"
DESTDIR=$root cmake --install "$build" >/dev/null
prefix=$(cmake -L -N "$build" | sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p')
pc=$(find "$root$prefix" -name tlbsim.pc)
libdir=$(dirname "$(dirname "$pc")")
unset TLBSIM_PRESET_PATH # the presets are compiled in: an installed copy needs no path
export LD_LIBRARY_PATH=$libdir

# Only the facade is installed and exported.
headers=$(cd "$root$prefix/include" && find . -type f)
[ "$headers" = ./tlbsim/tlbsim.h ] || fail "installed headers: $headers"
for lib in libtlbsim.so.0 libtlbsim.a; do [ -e "$libdir/$lib" ] || fail "no $lib in $libdir"; done
soname=$(objdump -p "$libdir/libtlbsim.so" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libtlbsim.so.0 ] || fail "soname '$soname'"
others=$(nm -D --defined-only "$libdir/libtlbsim.so" | awk '$3 !~ /^tlbsim_/ && $3 != "TLBSIM_0"')
[ -z "$others" ] || fail "exports more than tlbsim_*: $others"

# What tlbsim run says, as the consumer prints it ("name value" lines).
expected=$inst/expected
"$tlbsim" run --preset x86-64 --format csv "$trace" | awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { n = split("accesses tlb.l1d.misses walks page_faults cycles_per_access", want, " ")
    for (k = 1; k <= n; k++) printf "%s %.6g\n", want[k], $col[want[k]] }' >"$expected"
[ "$(wc -l <"$expected")" -eq 5 ] || fail "tlbsim run gave no report"

check() { # NAME PROGRAM: its output against tlbsim run and the known values
  local out=$inst/$1.out
  "$2" "$trace" >"$out" || fail "$1 failed"
  grep -qx "version $(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")" "$out" || fail "$1: version"
  diff <(sed -n '2,6p' "$out") "$expected" >&2 || fail "$1: numbers differ from tlbsim run"
  grep -qx "error tlbsim_machine_create:1: unknown key 'entriez' in \[tlb.l1d\]" "$out" || fail "$1: error line: $(grep ^error "$out")"
  grep -qx "access_misses 1" "$out" || fail "$1: two reads of one page"
  echo "$1: ok"
  ok
}

pkg() { PKG_CONFIG_PATH=$(dirname "$pc") pkg-config "$@" tlbsim; } # relocatable: no sysroot needed
[ "$(pkg --modversion)" = "$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")" ] || fail "pkg-config version"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "${cflags[@]}" -o "$inst/consumer_pc" "$src/tests/install/consumer.c" $(pkg --cflags --libs)
check pkg-config "$inst/consumer_pc"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "${cflags[@]}" -o "$inst/consumer_pc_static" "$src/tests/install/consumer.c" $(pkg --cflags) \
  "$libdir/libtlbsim.a" $(pkg --static --libs-only-l | sed 's/-ltlbsim//')
check pkg-config-static "$inst/consumer_pc_static"

cmake -S "$src/tests/install" -B "$inst/cmake" -DCMAKE_PREFIX_PATH="$root$prefix" -DCMAKE_C_FLAGS="${cflags[*]}" >/dev/null
cmake --build "$inst/cmake" >/dev/null
check find_package "$inst/cmake/consumer"
check find_package-static "$inst/cmake/consumer_static"

# Relocation: install into a prefix, move the tree, build against the moved copy.
grep -q '^URL:' "$pc" && fail "tlbsim.pc has a URL line"
grep -qF "$prefix" "$pc" && fail "tlbsim.pc names the configured prefix $prefix"
cmake --install "$build" --prefix "$inst/placed" >/dev/null
mv "$inst/placed" "$inst/moved"
moved=$inst/moved
pc=$(find "$moved" -name tlbsim.pc)
libdir=$(dirname "$(dirname "$pc")")
export LD_LIBRARY_PATH=$libdir # and a moved one finds its presets too
[ "$(cd "$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=prefix tlbsim)" && pwd -P)" = "$(cd "$moved" && pwd -P)" ] ||
  fail "moved tlbsim.pc: prefix $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=prefix tlbsim)"
mpkg() { PKG_CONFIG_PATH=$(dirname "$pc") pkg-config "$@" tlbsim; }
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "${cflags[@]}" -o "$inst/consumer_moved" "$src/tests/install/consumer.c" $(mpkg --cflags --libs)
check pkg-config-moved "$inst/consumer_moved"
cmake -S "$src/tests/install" -B "$inst/cmake-moved" -DCMAKE_PREFIX_PATH="$moved" -DCMAKE_C_FLAGS="${cflags[*]}" >/dev/null
cmake --build "$inst/cmake-moved" >/dev/null
grep -rqF "$inst/placed" "$moved" && fail "the moved tree still names where it was installed"
check find_package-moved "$inst/cmake-moved/consumer"
check find_package-static-moved "$inst/cmake-moved/consumer_static"
finish install
