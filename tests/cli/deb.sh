#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` from the build dir, installed with
# `dpkg -i` into a clean root, then the packaged tlbsim run from there: `tlbsim
# formats` (presets found in the package) and the README's demo, whose
# report must equal the build tree's. Skipped (77) without dpkg-deb or
# when not root (CI runs the tests as root, and with TLBSIM_TOOLS_REQUIRED=1
# a skip fails).
#   tests/cli/deb.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
need dpkg-deb cpack
[ "$(id -u)" -eq 0 ] || skip "not root"
pkg=$build/deb-test root=$build/deb-test/root
rm -rf "$pkg"
mkdir -p "$root"
(cd "$build" && cpack -G DEB -B "$pkg" >"$pkg/cpack.log" 2>&1) || { cat "$pkg/cpack.log" >&2; fail "cpack failed"; }
deb=$(ls "$pkg"/tlbsim_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libinih1 libjson-c5 zlib1g libzstd1 liblzma5; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
# A clean root with an empty dpkg database: `dpkg -i` installs the package
# there as on a new system. The root holds nothing else, so the Depends are
# checked against this system instead (each must be installed here), and
# dpkg is told to configure without them in the root.
mkdir -p "$root"/var/lib/dpkg/{info,updates,triggers} "$root/var/log"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
dpkg --root="$root" --force-depends -i "$deb" >"$pkg/dpkg.log" 2>&1 || { cat "$pkg/dpkg.log" >&2; fail "dpkg -i failed"; }
[ "$(dpkg --root="$root" -s tlbsim | sed -n 's/^Status: //p')" = "install ok installed" ] ||
  fail "dpkg -i: tlbsim is not 'install ok installed' in the clean root"
for dep in $(tr ',' '\n' <<<"$depends" | sed 's/(.*//; s/|.*//' | tr -d ' '); do
  dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q "install ok installed" || fail "Depends: $dep is not a package of this system"
done
prefix=$(cmake -L -N "$build" | sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p')
usr=$root$prefix
for f in bin/tlbsim include/tlbsim/tlbsim.h share/tlbsim/presets/x86-64.ini share/man/man1/tlbsim.1 \
  share/man/man5/tlbsim.ini.5 share/man/man5/tlbsim-trace.5 share/bash-completion/completions/tlbsim; do
  [ -f "$usr/$f" ] || fail "no $f in the package"
done
libdir=$(dirname "$(find "$usr" -name libtlbsim.so.0)")
unset TLBSIM_PRESET_PATH # the presets are compiled in
export LD_LIBRARY_PATH=$libdir
! ldd "$libdir/libtlbsim.so.0" | grep -q "not found" || fail "libtlbsim.so.0: $(ldd "$libdir/libtlbsim.so.0" | grep 'not found')"

"$usr/bin/tlbsim" formats >"$pkg/formats"
grep -q "^  x86-64 " "$pkg/formats" && grep -qx "  (from the presets compiled into tlbsim)" "$pkg/formats" ||
  fail "tlbsim formats: no compiled-in preset x86-64"
[ -f "$usr/share/tlbsim/presets/x86-64.ini" ] || fail "no presets in the package to copy and edit"
cd "$src"
"$usr/bin/tlbsim" run --preset x86-64 traces/samples/demo.trace >"$pkg/demo"
"$build/sim/tlbsim" run --preset x86-64 traces/samples/demo.trace | diff - "$pkg/demo" >&2 || fail "demo differs"
grep -q "l1d" "$pkg/demo" || fail "demo: no l1d"
# The Python package from the package, over the packaged library.
if have /usr/bin/python3; then  # Debian's, whose dist-packages the package fills
  # A sanitized build's library needs its runtime preloaded ($TLBSIM_TEST_PRELOAD, tests/install.cmake).
  accesses=$(PYTHONPATH=$(dirname "$(find "$usr" -path '*dist-packages/tlbsim' -type d)") \
    LD_PRELOAD=${TLBSIM_TEST_PRELOAD:-} ASAN_OPTIONS=detect_leaks=0 /usr/bin/python3 -c \
    'import sys, tlbsim; print(tlbsim.run(sys.argv[1], preset="x86-64")["accesses"])' traces/samples/demo.trace)
  [ "$accesses" = 46 ] || fail "python: accesses $accesses, want 46"
fi
ok
finish "deb ($(basename "$deb"))"
