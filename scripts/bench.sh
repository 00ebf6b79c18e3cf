#!/usr/bin/env bash
# The main job: build twheel in Release and run its benchmark, twbench.
#
#   ./scripts/bench.sh              the default run, about 2 minutes on 2 cores:
#                                   the README's workloads for hierarchical (the
#                                   default scheme), hierarchical_coarse, hybrid
#                                   and heap against libev, libuv and libevent,
#                                   n = 1e3 .. 1e6
#   ./scripts/bench.sh --full       every workload on every scheme (about 8 minutes)
#   ./scripts/bench.sh --quick      every workload at n = 1e3, 1e4 (about 25 s; no Redis step)
#   ./scripts/bench.sh advise ...   recommend a scheme for your workload
#
# Arguments go to twbench (twbench --help).  The report goes to
# ./twbench-report/ (report.html, summary.md, twbench.json, SVG plots).
#
# Before a benchmark run (not advise, --quick or --help), when redis-server and
# libhiredis-dev are there, scripts/redis-bench.sh measures the Redis
# module against the sorted-set delay queue (one round at n = 1e4 and 1e5,
# about 40 s more) and the report gets its section; TW_BENCH_REDIS=0 or a
# --redis FILE of your own skips that.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TW_BUILD_DIR:-$root/build-release}
jobs=$(nproc 2>/dev/null || echo 2)

"$root/scripts/deps.sh" --bench
echo "bench: building twbench (Release) in $build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTW_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target twbench >/dev/null
redis=()
case " $* " in
  *" --redis"* | *" --help "* | *" -h "* | *" --quick "* | " advise "*) ;;
  *)
    if [ "${TW_BENCH_REDIS:-1}" != 0 ] && command -v redis-server >/dev/null &&
        pkg-config --exists hiredis 2>/dev/null; then
      echo "bench: the Redis module against the sorted set (scripts/redis-bench.sh, about 40 s)"
      if "$root/scripts/redis-bench.sh" --n 1e4,1e5 --rounds 1 >/dev/null; then
        # (relative to here when it can be: the report quotes the command)
        redis=(--redis "$(realpath --relative-to=. "$root/out/redis-bench.txt" 2>/dev/null ||
                          echo "$root/out/redis-bench.txt")")
      else
        echo "bench: scripts/redis-bench.sh failed; the report's redis section says not run"
      fi
    fi
    ;;
esac
exec "$build/bench/twbench" "$@" ${redis[@]+"${redis[@]}"}
