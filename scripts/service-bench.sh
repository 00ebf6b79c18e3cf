#!/usr/bin/env bash
# The timer service's benchmark (bench/svcbench.c, twsvc): tw_service
# (each start after an interval, and at a time on the clock)
# against a mutex + heap thread, one facility behind one mutex, the ordered
# list behind one mutex, POSIX timers and a timerfd per timer, from 1, 2, 4
# and 8 producer threads at n = 10^3 .. 10^6 pending timers, beside the
# bare facility and twbench's lean reference wheel (one thread), and the
# lateness of 10^5 expiries on the real clock.
#
#   ./scripts/service-bench.sh            about 1 minute: 300 ms per cell
#   ./scripts/service-bench.sh --long     2 s per cell and 10^6 lateness timers
#   ./scripts/service-bench.sh ARGS...    twsvc's own options (twsvc --help)
#
# The figures depend on the machine and its load: they say the core count
# and the load average; compare targets within one run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TW_BUILD_DIR:-$root/build-release}
"$root/scripts/deps.sh" >/dev/null
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTW_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target twsvc >/dev/null
if [ "${1:-}" = --long ]; then
  shift
  exec "$build/bench/twsvc" --ms 2000 --lateness 1000000 "$@"
fi
exec "$build/bench/twsvc" "$@"
