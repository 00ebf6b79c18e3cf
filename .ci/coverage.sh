#!/usr/bin/env bash
# Branch coverage of src/ through the test suite (gcc --coverage).
#
#   .ci/coverage.sh            build-cov/, report in build-cov/coverage.txt
#   TW_COV_MIN=90 .ci/coverage.sh   also fail when the branch coverage of
#                                   src/ as a whole is below 90%
#
# Builds with -DTW_COVERAGE=ON (Debug, -Og: docs/testing.md says why not
# -O0), runs every ctest but the long
# soak, then prints branch (and line) coverage per file of src/ with gcovr
# (installed with apt-get when missing), or with plain gcov -b when gcovr
# cannot be had.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TW_COV_BUILD_DIR:-$root/build-cov}
jobs=$(nproc 2>/dev/null || echo 2)

if ! command -v gcovr >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
  echo "coverage: installing gcovr"
  "$root/scripts/deps.sh" --pkg gcovr ||
    echo "coverage: gcovr not available, falling back to gcov -b"
fi

CC=${CC:-gcc} cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTW_COVERAGE=ON \
  -DTW_WERROR=ON -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$jobs" >/dev/null
find "$build" -name '*.gcda' -delete
ctest_rc=0
(cd "$build" && ctest --output-on-failure --no-tests=error -j "$jobs" -LE soak) ||
  ctest_rc=$?

report=$build/coverage.txt
if command -v gcovr >/dev/null 2>&1; then
  gcovr -r "$root" --object-directory "$build" --filter "$root/src/" \
    --exclude-unreachable-branches --txt-metric branch --txt "$report" >/dev/null 2>&1 ||
  gcovr -r "$root" --object-directory "$build" --filter "$root/src/" \
    --exclude-unreachable-branches --branches --output "$report"
  gcovr -r "$root" --object-directory "$build" --filter "$root/src/" \
    --html-details "$build/coverage.html" >/dev/null 2>&1 || true
  cat "$report"
  total=$(awk '/^TOTAL/ {gsub("%","",$4); print $4}' "$report")
else
  # gcov -b, file by file: "Taken at least once:P% of N"
  : >"$report"
  tb=0; tt=0
  while IFS= read -r gcda; do
    dir=$(dirname "$gcda")
    out=$(cd "$dir" && gcov -b -n "$gcda" 2>/dev/null) || continue
    echo "$out" | awk -v root="$root/src/" '
      /^File / { f=$2; gsub("\047","",f) }
      /^Taken at least once:/ && index(f, root) == 1 {
        split($4,a,"%"); sub(/^.*:/, "", a[1]); n=$NF
        printf "%-40s %6s%% of %s branches\n", substr(f, length(root)-3), a[1], n }' \
      >>"$report"
  done < <(find "$build" -name '*.gcda' -path '*twheel_objects*')
  sort -u -o "$report" "$report"
  cat "$report"
  total=$(awk '{ p=$2; sub("%","",p); n=$4; t+=p*n/100; s+=n } END { if (s) printf "%.1f", 100*t/s }' "$report")
fi
echo "coverage: branches of src/ taken: ${total:-?}%  (report: $report)"
if [ -n "${TW_COV_MIN:-}" ] && [ -n "${total:-}" ]; then
  awk -v t="$total" -v m="$TW_COV_MIN" 'BEGIN { exit !(t + 0 >= m + 0) }' ||
    { echo "coverage: below TW_COV_MIN=$TW_COV_MIN%" >&2; exit 1; }
fi
if [ "$ctest_rc" -ne 0 ]; then
  echo "coverage: some tests failed (ctest exit $ctest_rc)" >&2
  exit "$ctest_rc"
fi
