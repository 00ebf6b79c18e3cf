#!/usr/bin/env bash
# Build twheel with warnings as errors and run the whole test suite: every
# test asserts behaviour, none a time, so a loaded machine passes it too.
#
#   ./scripts/test.sh                       build/ , default options
#   TW_BUILD_DIR=build-san ./scripts/test.sh -DTW_ASAN=ON -DTW_UBSAN=ON
#
# Extra arguments go to the CMake configure step.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TW_BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)

"$root/scripts/deps.sh" # installs cmake, gcc, ... with apt-get when missing

cmake -S "$root" -B "$build" -DTW_WERROR=ON "$@"
cmake --build "$build" -j "$jobs"
cd "$build"
start=$(date +%s)
rc=0
ctest --output-on-failure --no-tests=error --timeout 900 -j "$jobs" || rc=$?
echo
if [ "$rc" -eq 0 ]; then
  echo "test.sh: all tests passed in $(($(date +%s) - start)) s (the long soak is skipped" \
       "unless TW_SOAK=1; CI's other checks: bash .ci/run)"
else
  echo "test.sh: FAILED: the failing tests and their output are above" >&2
fi
exit "$rc"
