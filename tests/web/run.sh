#!/usr/bin/env bash
# ctest's web_page: builds the browser page (scripts/web.sh OUT), installs
# puppeteer-core from tests/web/package-lock.json (no browser: Debian's
# chromium is driven) and runs check.mjs against the native TLBSIM.
# Exit 77 (skipped) when emscripten, Chromium or Node.js is missing, unless
# TLBSIM_TOOLS_REQUIRED=1 (CI: .ci/run), where that is a failure.
#   run.sh TLBSIM SOURCE_DIR OUT
set -euo pipefail
tlbsim=$1 src=$2 out=$3
missing=()
for tool in emcc chromium node npm; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if ((${#missing[@]})); then
  echo "web_page: no ${missing[*]} (scripts/deps.sh --web installs them)"
  [ "${TLBSIM_TOOLS_REQUIRED:-0}" = 1 ] && exit 1
  exit 77
fi
t0=$(date +%s)
TLBSIM_WEB_NO_DEPS=1 "$src/scripts/web.sh" "$out" >"$out.build.log" 2>&1 || { tail -30 "$out.build.log"; exit 1; }
t1=$(date +%s)
mkdir -p "$out/node"
if ! cmp -s "$src/tests/web/package-lock.json" "$out/node/package-lock.json" || [ ! -d "$out/node/node_modules/puppeteer-core" ]; then
  cp "$src/tests/web/package.json" "$src/tests/web/package-lock.json" "$out/node/"
  (cd "$out/node" && npm ci --no-audit --no-fund --loglevel=error)
fi
t2=$(date +%s)
echo "web_page: build $((t1 - t0)) s, puppeteer-core $((t2 - t1)) s; page $(du -b "$out/tlbsim.js" | cut -f1) bytes of tlbsim.js"
node "$src/tests/web/check.mjs" --page "$out" --tlbsim "$tlbsim" --src "$src" ${TLBSIM_WEB_SHOTS:+--shots "$TLBSIM_WEB_SHOTS"}
