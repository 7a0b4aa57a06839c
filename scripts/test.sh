#!/usr/bin/env bash
# Builds tlbsim with AddressSanitizer + UndefinedBehaviorSanitizer and runs
# every test under ctest. Usage: scripts/test.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
build=${1:-build-asan}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTLBSIM_SANITIZE=ON
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
