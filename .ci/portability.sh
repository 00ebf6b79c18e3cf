#!/usr/bin/env bash
# The test suite built two other ways than the main build: as 32-bit x86
# code with a 64-bit time_t (-m32 -D_TIME_BITS=64), and against musl
# (musl-gcc, whose libc has no <linux/futex.h>: the timer service takes its
# pthread lock).  The library, tests and fuzz replayers, -Werror; the loop
# drivers, the benchmark and the Redis module are left out (their libraries
# are 64-bit glibc builds).
#
#   .ci/portability.sh
#
# Installs gcc-multilib, musl-tools and, where this kernel cannot run 32-bit
# code itself, qemu-user, when they are missing (apt-get); a part whose
# tools cannot be had is skipped with a line that says so.  The 32-bit
# tests then run under qemu-i386 (about 2 minutes on 2 cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
common=(-DTW_WERROR=ON -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF -DTW_BUILD_REDIS=OFF
        -DTW_BUILD_DRIVERS=OFF)

# ctest in $1: its summary line, or on failure the failures' output.
run_tests() {
  if ! (cd "$1" && ctest --output-on-failure --no-tests=error -j "$jobs" >ctest.log 2>&1); then
    tail -n 80 "$1/ctest.log"
    echo "portability: tests failed in $1" >&2
    exit 1
  fi
  grep -E 'tests passed' "$1/ctest.log"
}

# Can cc build and run (or, with qemu-i386, run emulated) a 32-bit program?
probe32() {
  local d
  d=$(mktemp -d)
  printf 'int main(void) { return 0; }\n' >"$d/p.c"
  if ! cc -m32 "$d/p.c" -o "$d/p" 2>/dev/null; then
    rm -rf "$d"
    return 2
  fi
  local rc=0
  "$d/p" 2>/dev/null || rc=1
  rm -rf "$d"
  return $rc
}

echo "portability: 32-bit x86, 64-bit time_t"
rc=0
probe32 || rc=$?
[ $rc -eq 2 ] && { "$root/scripts/deps.sh" --pkg gcc-multilib || true; rc=0; probe32 || rc=$?; }
emu=()
if [ $rc -eq 1 ]; then
  command -v qemu-i386 >/dev/null 2>&1 || "$root/scripts/deps.sh" --pkg qemu-user || true
  if command -v qemu-i386 >/dev/null 2>&1; then
    echo "portability: this kernel runs no 32-bit code: the tests run under qemu-i386"
    emu=(-DCMAKE_CROSSCOMPILING_EMULATOR=qemu-i386)
  else
    rc=2
  fi
fi
if [ $rc -eq 2 ]; then
  echo "portability: SKIPPED 32-bit: no gcc -m32 (gcc-multilib) or no way to run it"
else
  cmake -S "$root" -B "$root/build-m32" "${common[@]}" "${emu[@]}" \
    -DCMAKE_C_FLAGS="-m32 -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64" >/dev/null
  cmake --build "$root/build-m32" -j "$jobs" >/dev/null
  run_tests "$root/build-m32"
fi

echo "portability: musl"
command -v musl-gcc >/dev/null 2>&1 || "$root/scripts/deps.sh" --pkg musl-tools || true
if ! command -v musl-gcc >/dev/null 2>&1; then
  echo "portability: SKIPPED musl: no musl-gcc (musl-tools)"
else
  CC=musl-gcc cmake -S "$root" -B "$root/build-musl" "${common[@]}" >/dev/null
  cmake --build "$root/build-musl" -j "$jobs" >/dev/null
  run_tests "$root/build-musl"
fi
