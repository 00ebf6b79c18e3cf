#!/usr/bin/env bash
# Fuzzing in CI: the seed corpus through the libFuzzer build of
# fuzz/fuzz_ops.c (clang, -fsanitize=fuzzer,address,undefined), then a
# short fuzzing run over every scheme.
#
#   .ci/fuzz-replay.sh                 replay + TW_FUZZ_SECONDS (default 60)
#   TW_FUZZ_SECONDS=0 .ci/fuzz-replay.sh   replay only
#
# Installs clang and libclang-rt-14-dev (libFuzzer) with apt-get when
# missing.  Without clang it falls back to the plain replay binary built by
# gcc with ASan and UBSan.  New inputs go to a temporary directory, never
# into fuzz/corpus; a crash leaves its reproducer in build-fuzz/artifacts/
# and fails the script (see docs/testing.md to replay it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TW_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${TW_FUZZ_SECONDS:-60}
jobs=$(nproc 2>/dev/null || echo 2)

have_libfuzzer() {
  command -v clang >/dev/null 2>&1 || return 1
  local d
  d=$(clang -print-resource-dir 2>/dev/null) || return 1
  ls "$d"/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 ||
    ls "$d"/lib/*/libclang_rt.fuzzer*.a >/dev/null 2>&1
}

if ! have_libfuzzer && [ "$(id -u)" -eq 0 ]; then
  echo "fuzz: installing clang and libFuzzer (libclang-rt-14-dev)"
  "$root/scripts/deps.sh" --pkg clang libclang-rt-14-dev || true
fi

if ! have_libfuzzer; then
  echo "fuzz: no clang/libFuzzer: replaying the corpus with gcc + ASan + UBSan"
  cmake -S "$root" -B "$build-gcc" -DTW_WERROR=ON -DTW_ASAN=ON -DTW_UBSAN=ON \
    -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build "$build-gcc" -j "$jobs" --target twheel_fuzz_replay >/dev/null
  "$build-gcc/fuzz/twheel_fuzz_replay" "$root/fuzz/corpus"
  exit 0
fi

CC=clang cmake -S "$root" -B "$build" -DTW_FUZZ=ON -DTW_WERROR=ON \
  -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target twheel_fuzz twheel_fuzz_replay >/dev/null
fuzzer=$build/fuzz/twheel_fuzz
art=$build/artifacts
mkdir -p "$art"

echo "fuzz: replaying fuzz/corpus ($(ls "$root/fuzz/corpus" | wc -l) inputs)"
if ! "$fuzzer" -runs=0 -artifact_prefix="$art/" "$root/fuzz/corpus" \
    >"$build/replay.log" 2>&1; then
  tail -n 60 "$build/replay.log"
  echo "fuzz: the corpus fails under libFuzzer" >&2
  exit 1
fi
grep -E '^(Done|twfuzz:)' "$build/replay.log" || true

if [ "$seconds" -gt 0 ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cp "$root"/fuzz/corpus/* "$work"/
  echo "fuzz: fuzzing all schemes (the first byte picks) for ${seconds}s"
  if ! "$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$art/" "$work" >"$build/fuzz.log" 2>&1; then
    tail -n 60 "$build/fuzz.log"
    echo "fuzz: crash; reproducers in $art:" >&2
    ls -l "$art" >&2
    exit 1
  fi
  grep -E '^(stat::number_of_executed_units|twfuzz:)' "$build/fuzz.log" || true
  echo "fuzz: no crash in ${seconds}s"
fi
