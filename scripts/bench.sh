#!/usr/bin/env bash
# Build twheel in Release and run twbench (default: every workload, every
# scheme, libev, libuv and libevent beside them, n = 1e3 .. 1e6).  Arguments go to twbench, e.g.
#
#   ./scripts/bench.sh --json twbench.json
#   ./scripts/bench.sh --quick
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TW_BUILD_DIR:-$root/build-release}
jobs=$(nproc 2>/dev/null || echo 2)

"$root/scripts/deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTW_BUILD_TESTS=OFF
cmake --build "$build" -j "$jobs" --target twbench
exec "$build/bench/twbench" "$@"
