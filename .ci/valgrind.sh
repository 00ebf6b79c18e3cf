#!/usr/bin/env bash
# The test binaries under valgrind memcheck, at a reduced size, failing on
# any error or leak.  About 2-3 minutes on 2 cores.
#
#   .ci/valgrind.sh            builds build-valgrind/ (gcc, -O1 -g)
#
# Runs, two at a time: twheel_tests api/cases/badinput (full), differential
# (--steps 400 --seeds 1), twheel_hostile, twheel_fuzz_replay over
# fuzz/corpus, twheel_fuzz_periodic_replay over both corpora,
# twheel_soak 20000, twheel_mincache 20000.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TW_VALGRIND_BUILD_DIR:-$root/build-valgrind}
jobs=$(nproc 2>/dev/null || echo 2)

command -v valgrind >/dev/null 2>&1 || "$root/scripts/deps.sh" --ci

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="-O1" \
  -DTW_WERROR=ON -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$jobs" >/dev/null

vg=(valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=all
    --track-origins=yes)
t=$build/tests
runs=(
  "$t/twheel_tests api"
  "$t/twheel_tests cases"
  "$t/twheel_tests badinput"
  "$t/twheel_tests differential all --steps 400 --seeds 1"
  "$t/twheel_hostile all"
  "$build/fuzz/twheel_fuzz_replay $root/fuzz/corpus"
  "$build/fuzz/twheel_fuzz_periodic_replay $root/fuzz/corpus $root/fuzz/corpus-periodic"
  "$t/twheel_soak 20000"
  "$t/twheel_mincache 20000"
)
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
start=$(date +%s)
pids=()
names=()
fail=0
run_one() { # index command...
  local i=$1
  shift
  local t0
  t0=$(date +%s)
  if "${vg[@]}" "$@" >"$logdir/$i.log" 2>&1; then
    echo "valgrind: ok   ($(($(date +%s) - t0))s) $*"
  else
    echo "valgrind: FAIL ($(($(date +%s) - t0))s) $*"
    tail -n 60 "$logdir/$i.log"
    return 1
  fi
}
i=0
for r in "${runs[@]}"; do
  # shellcheck disable=SC2086
  run_one "$i" $r &
  pids+=($!)
  names+=("$r")
  i=$((i + 1))
  # at most $jobs at once
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || fail=1
  done
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
  wait -n || fail=1
done
echo "valgrind: $(( $(date +%s) - start ))s in all"
if [ "$fail" -ne 0 ]; then
  echo "valgrind: errors found" >&2
  exit 1
fi
echo "valgrind: no errors, no leaks"
