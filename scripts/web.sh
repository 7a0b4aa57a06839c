#!/usr/bin/env bash
# Builds the browser page (index.html and the single-file WebAssembly
# module tlbsim.js beside it) into OUT, default build-web/: zlib and json-c
# for emscripten from the Debian sources of the versions this machine
# links (apt-get source; built in OUT/deps, never committed), then tlbsim
# itself with -DTLBSIM_WEB=ON in OUT/cmake. Opens from file://:
#   scripts/web.sh [OUT] && xdg-open build-web/index.html
# A second run rebuilds only tlbsim. docs/WEB.md has the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-web}
[ "${TLBSIM_WEB_NO_DEPS:-0}" = 1 ] || scripts/deps.sh --web # the ctest (tests/web/run.sh) leaves apt alone
# Debian's emscripten needs its node-acorn, which a Node.js not from Debian
# (e.g. NodeSource's) does not look for in /usr/share/nodejs.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
mkdir -p "$out"
out=$(cd "$out" && pwd)
deps=$out/deps src=$out/src
jobs=$(nproc)

# The unpacked Debian source of package $1 at the version of installed $2.
fetch_source() {
  local pkg=$1 bin=$2 version
  version=$(dpkg-query -W -f='${source:Version}' "$bin")
  if [ ! -d "$src/$pkg" ]; then
    mkdir -p "$src/dl-$pkg"
    (cd "$src/dl-$pkg" && apt-get source -qq --download-only "$pkg=$version" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
    dpkg-source -x --no-check "$src/dl-$pkg"/*.dsc "$src/$pkg" >/dev/null
  fi
}

if [ ! -f "$deps/lib/libz.a" ]; then
  fetch_source zlib zlib1g-dev
  (cd "$src/zlib" && CHOST='' emconfigure ./configure --static --prefix="$deps" >/dev/null &&
    emmake make -j"$jobs" libz.a >/dev/null &&
    mkdir -p "$deps/lib" "$deps/include" && cp libz.a "$deps/lib/" && cp zlib.h zconf.h "$deps/include/")
fi
if [ ! -f "$deps/lib/libjson-c.a" ]; then
  fetch_source json-c libjson-c-dev
  emcmake cmake -S "$src/json-c" -B "$src/json-c-build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$deps" \
    -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF -DDISABLE_WERROR=ON >/dev/null
  cmake --build "$src/json-c-build" -j"$jobs" --target json-c >/dev/null
  cmake --install "$src/json-c-build" >/dev/null
fi

emcmake cmake -S . -B "$out/cmake" -DTLBSIM_WEB=ON -DCMAKE_BUILD_TYPE=Release -DTLBSIM_WEB_DEPS="$deps" \
  -DTLBSIM_WEB_PAGE_DIR="$out" >/dev/null
cmake --build "$out/cmake" -j"$jobs"
echo "the page: $out/index.html"
