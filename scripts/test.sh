#!/usr/bin/env bash
# Build twheel with warnings as errors and run the whole test suite.
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
ctest --output-on-failure --no-tests=error --timeout 900 -j "$jobs"
