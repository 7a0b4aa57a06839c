#!/usr/bin/env bash
# Installs the Debian packages tlbsim builds and tests with (root, apt-get),
# skipping apt entirely when they are all present already: every tool a test
# calls (valgrind, gnuplot, jq, python3, groff, zstd, xz; .ci/run sets
# TLBSIM_TOOLS_REQUIRED=1 so that a test missing one fails instead of skipping).
#   scripts/deps.sh [--fuzz] [--lint] [--slurm] [--docs]
# --fuzz adds clang and libFuzzer (fuzz/run.sh); --lint adds cppcheck and
# clang-tidy (scripts/lint.sh); --slurm adds Slurm, munge and GNU parallel (the single-node
# cluster .ci/run starts for tests/cli/sweep_slurm.sh); --docs adds matplotlib for
# docs/notebook_example.py's figure (the test notebook_example draws it).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libinih-dev libcunit1-dev libjson-c-dev zlib1g-dev libzstd-dev liblzma-dev libisal-dev
  zstd xz-utils valgrind gnuplot-nox jq python3 groff-base)
for arg in "$@"; do
  case $arg in
  --fuzz) pkgs+=(clang-14 libfuzzer-14-dev libclang-rt-14-dev) ;;
  --lint) pkgs+=(cppcheck clang-tidy clang-14) ;;
  --slurm) pkgs+=(slurm-wlm munge parallel) ;;
  --docs) pkgs+=(python3 python3-matplotlib) ;;
  *) echo "usage: scripts/deps.sh [--fuzz] [--lint] [--slurm] [--docs]" >&2; exit 2 ;;
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
