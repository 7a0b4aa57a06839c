#!/bin/sh
# Stands in for a test CMake could not register because TOOL was not found
# when it configured: skipped (77), or failed where tools are required
# (TLBSIM_TOOLS_REQUIRED=1, as in CI).
# Usage: need.sh TEST TOOL...
. "$(dirname "$0")/lib.sh"
name=$1
shift
need "$@"
fail "$name: $* found now but not when CMake configured: re-run cmake"
