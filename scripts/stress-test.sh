#!/usr/bin/env bash
# The test suite on a loaded machine: ./scripts/test.sh N times (default 5),
# each from a clean build folder, while stress-ng keeps every core busy.
# No test asserts a time, so every run must pass; the times are printed.
#
#   scripts/stress-test.sh [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
case $runs in '' | *[!0-9]*) echo "stress-test: RUNS must be a number" >&2; exit 2 ;; esac
command -v stress-ng >/dev/null || "$root/scripts/deps.sh" --pkg stress-ng || {
  echo "stress-test: needs stress-ng (apt-get install stress-ng)" >&2; exit 1; }
build=$(mktemp -d)
stress-ng --cpu "$(nproc)" --timeout 3600s --quiet &
sp=$!
trap 'kill $sp 2>/dev/null; rm -rf "$build"' EXIT
sleep 2
fails=0
for i in $(seq "$runs"); do
  rm -rf "$build"/*
  start=$(date +%s.%N)
  rc=0
  TW_BUILD_DIR="$build" "$root/scripts/test.sh" >"$build.log" 2>&1 || rc=$?
  took=$(echo "$(date +%s.%N) - $start" | bc)
  printf 'stress-test: run %d of %d under stress-ng --cpu %d: exit %d, %.1f s (build included): %s\n' \
    "$i" "$runs" "$(nproc)" "$rc" "$took" "$(grep -E 'tests passed|tests failed' "$build.log" | head -n 1)"
  [ "$rc" -eq 0 ] || { fails=$((fails + 1)); tail -n 30 "$build.log"; }
done
rm -f "$build.log"
exit "$fails"
