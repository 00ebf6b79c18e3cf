#!/usr/bin/env bash
# Install twheel into a temporary prefix and build examples/hello.c against
# the installed copy only, three ways:
#   1. pkg-config, static library (-Wl,-Bstatic around the pkg-config libs);
#   2. pkg-config, shared library (run with LD_LIBRARY_PATH);
#   3. a CMake project that uses find_package(twheel) and twheel::twheel.
# Each program must exit 0 and print what hello prints.  Exit status non-zero
# on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
jobs=$(nproc 2>/dev/null || echo 2)
cc=${CC:-cc}
expected=$'tick 10: hello\ntick 20: world'

step() { printf '\n== install-test: %s\n' "$*"; }
check_output() { # name, output
  if [ "$2" != "$expected" ]; then
    printf 'install-test: %s printed:\n%s\nexpected:\n%s\n' "$1" "$2" "$expected" >&2
    exit 1
  fi
  echo "install-test: $1 ok"
}

step "build and install into $prefix"
cmake -S "$root" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DTW_WERROR=ON \
  -DTW_BUILD_TESTS=OFF -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" >"$work/configure.log"
cmake --build "$work/build" -j "$jobs" >"$work/build.log"
cmake --install "$work/build" >"$work/install.log"
pc=$(find "$prefix" -name twheel.pc | head -n 1)
[ -n "$pc" ] || { echo "install-test: twheel.pc was not installed" >&2; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir twheel)
echo "pkg-config: $(pkg-config --cflags --libs twheel)"

# Nothing from the source tree may leak in: copy the example out.
cp "$root/examples/hello.c" "$work/hello.c"
cflags=(-std=c11 -Wall -Wextra -Wpedantic -Werror)

step "pkg-config, static"
# shellcheck disable=SC2046
"$cc" "${cflags[@]}" "$work/hello.c" $(pkg-config --cflags twheel) \
  -Wl,-Bstatic $(pkg-config --libs --static twheel) -Wl,-Bdynamic -o "$work/hello-static"
if readelf -d "$work/hello-static" | grep -q 'libtwheel'; then
  echo "install-test: hello-static needs libtwheel.so" >&2
  exit 1
fi
out=$("$work/hello-static")
check_output "static (pkg-config)" "$out"

step "pkg-config, shared"
# shellcheck disable=SC2046
"$cc" "${cflags[@]}" "$work/hello.c" $(pkg-config --cflags --libs twheel) -o "$work/hello-shared"
readelf -d "$work/hello-shared" | grep -q 'libtwheel\.so' ||
  { echo "install-test: hello-shared does not use libtwheel.so" >&2; exit 1; }
out=$(LD_LIBRARY_PATH="$libdir" "$work/hello-shared")
check_output "shared (pkg-config)" "$out"

step "CMake find_package(twheel)"
mkdir -p "$work/consumer"
cp "$work/hello.c" "$work/consumer/hello.c"
cat >"$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(twheel_consumer C)
find_package(twheel 0.1 REQUIRED)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE twheel::twheel)
CMAKE
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/consumer.log" || { cat "$work/consumer.log"; exit 1; }
cmake --build "$work/consumer/build" >>"$work/consumer.log" || { cat "$work/consumer.log"; exit 1; }
out=$("$work/consumer/build/hello")
check_output "CMake find_package" "$out"

echo
echo "install-test: all ok"
