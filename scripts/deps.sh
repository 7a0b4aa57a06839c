#!/usr/bin/env bash
# Installs the Debian packages tlbsim builds and tests with (root, apt-get),
# skipping apt entirely when they are all present already.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libinih-dev libcunit1-dev libjson-c-dev zlib1g-dev valgrind gnuplot-nox)
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
