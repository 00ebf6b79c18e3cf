#!/usr/bin/env bash
# The main job: build twheel in Release and run its benchmark, twbench.
#
#   ./scripts/bench.sh              the default run, about 2 minutes on 2 cores:
#                                   the README's workloads for hierarchical (the
#                                   default scheme), hierarchical_coarse, hybrid
#                                   and heap against libev, libuv and libevent,
#                                   n = 1e3 .. 1e6
#   ./scripts/bench.sh --full       every workload on every scheme (about 8 minutes)
#   ./scripts/bench.sh --quick      every workload at n = 1e3, 1e4 (under 30 s)
#   ./scripts/bench.sh advise ...   recommend a scheme for your workload
#
# Arguments go to twbench (twbench --help).  The report goes to
# ./twbench-report/ (report.html, summary.md, twbench.json, SVG plots).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TW_BUILD_DIR:-$root/build-release}
jobs=$(nproc 2>/dev/null || echo 2)

"$root/scripts/deps.sh" --bench
echo "bench: building twbench (Release) in $build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTW_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target twbench >/dev/null
exec "$build/bench/twbench" "$@"
