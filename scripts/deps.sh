#!/usr/bin/env bash
# Installs the Debian packages tlbsim builds and tests with (root, apt-get),
# skipping apt entirely when they are all present already: every tool a test
# calls (valgrind, gnuplot, jq, python3, groff, zstd, xz; .ci/run sets
# TLBSIM_TOOLS_REQUIRED=1 so that a test missing one fails instead of skipping).
#   scripts/deps.sh [--fuzz] [--lint] [--slurm] [--docs] [--web]
# --fuzz adds clang and libFuzzer (fuzz/run.sh); --lint adds cppcheck and
# clang-tidy (scripts/lint.sh); --slurm adds Slurm, munge and GNU parallel (the single-node
# cluster .ci/run starts for tests/cli/sweep_slurm.sh); --docs adds matplotlib for
# docs/notebook_example.py's figure (the test notebook_example draws it); --web adds emscripten,
# Chromium and what scripts/web.sh needs to build zlib and json-c from their Debian sources (dpkg-dev,
# and deb-src lines beside the deb ones when apt has none), and npm when no Node.js brought one
# (tests/web: puppeteer-core).
set -euo pipefail
web=0
pkgs=(build-essential cmake pkg-config libinih-dev libcunit1-dev libjson-c-dev zlib1g-dev libzstd-dev liblzma-dev libisal-dev
  zstd xz-utils valgrind gnuplot-nox jq python3 groff-base)
for arg in "$@"; do
  case $arg in
  --fuzz) pkgs+=(clang-14 libfuzzer-14-dev libclang-rt-14-dev) ;;
  --lint) pkgs+=(cppcheck clang-tidy clang-14) ;;
  --slurm) pkgs+=(slurm-wlm munge parallel) ;;
  --docs) pkgs+=(python3 python3-matplotlib) ;;
  --web)
    web=1
    pkgs+=(emscripten chromium dpkg-dev)
    command -v npm >/dev/null || pkgs+=(npm) ;;
  *) echo "usage: scripts/deps.sh [--fuzz] [--lint] [--slurm] [--docs] [--web]" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
# --web: apt-get source needs deb-src lines; these mirror the deb ones.
if ((web)) && ! apt-cache showsrc zlib >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && grep -q '^Types: deb$' "$f" && sed 's/^Types: deb$/Types: deb-src/' "$f" | $SUDO tee "${f%.sources}-src.sources" >/dev/null
  done
  if [ -f /etc/apt/sources.list ] && grep -q '^deb ' /etc/apt/sources.list; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list | $SUDO tee /etc/apt/sources.list.d/tlbsim-src.list >/dev/null
  fi
  $SUDO apt-get update
fi
