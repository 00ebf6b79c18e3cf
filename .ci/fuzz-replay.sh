#!/usr/bin/env bash
# Fuzzing in CI: the seed corpora through the libFuzzer builds of
# fuzz/fuzz_ops.c (clang, -fsanitize=fuzzer,address,undefined), plain and
# periodic, then a short fuzzing run of each over every scheme.
#
#   .ci/fuzz-replay.sh                 replay + TW_FUZZ_SECONDS (default 60)
#                                      plain, half that periodic
#   TW_FUZZ_SECONDS=0 .ci/fuzz-replay.sh   replay only
#
# Installs clang and libclang-rt-14-dev (libFuzzer) with apt-get when
# missing.  Without clang it falls back to the plain replay binaries built
# by gcc with ASan and UBSan.  New inputs go to a temporary directory, never
# into fuzz/corpus*; a crash leaves its reproducer in build-fuzz/artifacts/
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
  echo "fuzz: no clang/libFuzzer: replaying the corpora with gcc + ASan + UBSan"
  cmake -S "$root" -B "$build-gcc" -DTW_WERROR=ON -DTW_ASAN=ON -DTW_UBSAN=ON \
    -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build "$build-gcc" -j "$jobs" \
    --target twheel_fuzz_replay twheel_fuzz_periodic_replay >/dev/null
  "$build-gcc/fuzz/twheel_fuzz_replay" "$root/fuzz/corpus"
  "$build-gcc/fuzz/twheel_fuzz_periodic_replay" "$root/fuzz/corpus" "$root/fuzz/corpus-periodic"
  exit 0
fi

CC=clang cmake -S "$root" -B "$build" -DTW_FUZZ=ON -DTW_WERROR=ON \
  -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target twheel_fuzz twheel_fuzz_periodic >/dev/null
art=$build/artifacts
mkdir -p "$art"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fuzz NAME SECONDS CORPUS...: replay the corpora through build-fuzz/fuzz/NAME,
# then fuzz for SECONDS from a copy of them.
fuzz() {
  local name=$1 secs=$2
  shift 2
  local fuzzer=$build/fuzz/$name n
  n=$(find "$@" -maxdepth 1 -type f | wc -l)
  echo "fuzz: $name replaying $* ($n inputs)"
  if ! "$fuzzer" -runs=0 -artifact_prefix="$art/" "$@" >"$build/$name-replay.log" 2>&1; then
    tail -n 60 "$build/$name-replay.log"
    echo "fuzz: the corpus fails under $name" >&2
    exit 1
  fi
  grep -E '^(Done|twfuzz:)' "$build/$name-replay.log" || true
  [ "$secs" -gt 0 ] || return 0
  rm -rf "${work:?}/$name" && mkdir "$work/$name"
  local d
  for d in "$@"; do cp "$d"/* "$work/$name"/; done
  echo "fuzz: $name fuzzing all schemes (the first byte picks) for ${secs}s"
  if ! "$fuzzer" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$art/" "$work/$name" >"$build/$name.log" 2>&1; then
    tail -n 60 "$build/$name.log"
    echo "fuzz: crash in $name; reproducers in $art:" >&2
    ls -l "$art" >&2
    exit 1
  fi
  grep -E '^(stat::number_of_executed_units|twfuzz:)' "$build/$name.log" || true
  echo "fuzz: $name: no crash in ${secs}s"
}

fuzz twheel_fuzz "$seconds" "$root/fuzz/corpus"
fuzz twheel_fuzz_periodic $((seconds / 2)) "$root/fuzz/corpus" "$root/fuzz/corpus-periodic"
