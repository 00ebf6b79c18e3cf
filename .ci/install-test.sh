#!/usr/bin/env bash
# Install twheel into a temporary prefix (given at install time, and for the
# static-only install at configure time) and build examples/hello.c against
# the installed copy only, and as a subproject, every way the README gives:
#   1. pkg-config, static library (-Wl,-Bstatic around the pkg-config libs);
#   1b. the installed header from C++ (-Wold-style-cast -Werror), when a
#      C++ compiler is there;
#   2. pkg-config, shared library (its soname libtwheel.so.0.MINOR while
#      the major version is 0), run with LD_LIBRARY_PATH, and again
#      linked with an rpath (runs with no environment at all);
#   3. a CMake project that uses find_package(twheel) and twheel::twheel,
#      and one for each installed loop driver (twheel::timerfd on Linux;
#      twheel::uv and twheel::ev where libuv and libev are installed);
#   4. a static-only install (-DTW_BUILD_SHARED=OFF): plain pkg-config
#      links it statically (-pthread in Libs);
#   5. add_subdirectory() and FetchContent: the parent keeps its own build
#      type (none), gets no twheel tests and no twheel install rules, and
#      twheel builds its static library only.
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

# The prefix is given at install time (cmake --install --prefix), not when
# configuring: twheel.pc must still point at it.
step "build, then install into $prefix"
cmake -S "$root" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DTW_WERROR=ON \
  -DTW_BUILD_TESTS=OFF -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF >"$work/configure.log"
cmake --build "$work/build" -j "$jobs" >"$work/build.log"
cmake --install "$work/build" --prefix "$prefix" >"$work/install.log"
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

step "the installed header from C++ (strict warnings)"
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
  cat >"$work/use.cpp" <<'CPP'
#include <twheel.h>
#include <cstdio>
struct conn { int id; struct tw_timer idle; };
static void on_idle(struct tw *, struct tw_timer *t)
{
    std::printf("tick 10: conn %d\n", tw_container_of(t, struct conn, idle)->id);
}
int main()
{
    struct tw *tw = nullptr;
    if (tw_create(&tw, nullptr) != 0)
        return 1;
    conn c;
    c.id = 7;
    tw_timer_init(&c.idle, on_idle);
    tw_start(tw, &c.idle, TW_NSEC(10));
    tw_advance(tw, 10);
    return tw_destroy(tw);
}
CPP
  # shellcheck disable=SC2046
  "${CXX:-c++}" -std=c++11 -Wall -Wextra -Wpedantic -Wold-style-cast -Werror "$work/use.cpp" \
    $(pkg-config --cflags twheel) -Wl,-Bstatic $(pkg-config --libs --static twheel) \
    -Wl,-Bdynamic -o "$work/use-cxx"
  [ "$("$work/use-cxx")" = "tick 10: conn 7" ] ||
    { echo "install-test: the C++ program printed something else" >&2; exit 1; }
  echo "install-test: C++ ok"
else
  echo "install-test: no C++ compiler: the C++ check is skipped"
fi

step "pkg-config, shared"
# shellcheck disable=SC2046
"$cc" "${cflags[@]}" "$work/hello.c" $(pkg-config --cflags --libs twheel) -o "$work/hello-shared"
readelf -d "$work/hello-shared" | grep -q 'libtwheel\.so' ||
  { echo "install-test: hello-shared does not use libtwheel.so" >&2; exit 1; }
# The soname carries the ABI's version: MAJOR.MINOR while MAJOR is 0.
ver=$(pkg-config --modversion twheel)
soname=libtwheel.so.${ver%%.*}
[ "${ver%%.*}" != 0 ] || soname=libtwheel.so.${ver%.*}
readelf -d "$work/hello-shared" | grep -q "NEEDED.*\[$soname\]" ||
  { echo "install-test: hello-shared does not need $soname:" >&2
    readelf -d "$work/hello-shared" | grep NEEDED >&2; exit 1; }
out=$(LD_LIBRARY_PATH="$libdir" "$work/hello-shared")
check_output "shared (pkg-config, LD_LIBRARY_PATH)" "$out"
# shellcheck disable=SC2046
"$cc" "${cflags[@]}" "$work/hello.c" $(pkg-config --cflags --libs twheel) \
  -Wl,-rpath,"$(pkg-config --variable=libdir twheel)" -o "$work/hello-rpath"
out=$(env -i "$work/hello-rpath")
check_output "shared (pkg-config, rpath)" "$out"

step "CMake find_package(twheel)"
mkdir -p "$work/consumer"
cp "$work/hello.c" "$work/consumer/hello.c"
cat >"$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(twheel_consumer C)
find_package(twheel 0.2 REQUIRED)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE twheel::twheel)
CMAKE
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/consumer.log" || { cat "$work/consumer.log"; exit 1; }
cmake --build "$work/consumer/build" >>"$work/consumer.log" || { cat "$work/consumer.log"; exit 1; }
out=$("$work/consumer/build/hello")
check_output "CMake find_package" "$out"

# The drivers this build made are installed with it: find_package gives
# twheel::timerfd on Linux, and twheel::uv and twheel::ev where libuv and
# libev were found (their configure lines say).  driver_consumer D EXPECTED:
# $work/consumer-D/D.c, built through find_package against twheel::D and
# run, must print EXPECTED.
driver_consumer() {
  local d=$1 dir="$work/consumer-$1"
  cat >"$dir/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(twheel_consumer_$d C)
find_package(twheel 0.2 REQUIRED)
add_executable($d $d.c)
target_link_libraries($d PRIVATE twheel::$d)
CMAKE
  cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" >"$dir.log" ||
    { cat "$dir.log"; exit 1; }
  cmake --build "$dir/build" >>"$dir.log" || { cat "$dir.log"; exit 1; }
  out=$("$dir/build/$d")
  [ "$out" = "$2" ] || { echo "install-test: the twheel::$d program printed: $out" >&2; exit 1; }
  echo "install-test: twheel::$d ok"
}
if [ "$(uname -s)" = Linux ]; then
  [ -f "$prefix/include/twheel_timerfd.h" ] ||
    { echo "install-test: the timerfd driver was not installed" >&2; exit 1; }
  step "CMake find_package(twheel): twheel::timerfd"
  mkdir -p "$work/consumer-timerfd"
  cat >"$work/consumer-timerfd/timerfd.c" <<'C'
#include <poll.h>
#include <stdio.h>
#include <twheel_timerfd.h>
static int fired;
static void on_timer(struct tw *tw, struct tw_timer *t) { (void)tw; (void)t; fired++; }
int main(void)
{
    struct tw_clock clk;
    struct tw *tw;
    struct tw_timerfd d;
    struct tw_timer t;
    if (tw_clock_init(&clk, TW_CLOCK_MONOTONIC, TW_MSEC(1)) != 0 ||
        tw_clock_create(&tw, NULL, &clk) != 0 || tw_timerfd_open(&d, tw, &clk) != 0)
        return 1;
    tw_timer_init(&t, on_timer);
    tw_clock_start(&clk, tw, &t, TW_MSEC(2));
    if (tw_timerfd_sync(&d) != 0)
        return 1;
    while (!fired) {
        struct pollfd p = {.fd = tw_timerfd_fd(&d), .events = POLLIN};
        if (poll(&p, 1, 10000) != 1 || tw_timerfd_dispatch(&d) < 0)
            return 1;
    }
    printf("timerfd: fired %d\n", fired);
    tw_timerfd_close(&d);
    return tw_destroy(tw);
}
C
  driver_consumer timerfd "timerfd: fired 1"
fi
# twheel::uv, twheel::ev: a program that includes the driver's header and
# calls the library it drives.
for d in uv ev; do
  if ! grep -q "building the lib$d driver" "$work/configure.log"; then
    echo "install-test: twheel::$d not built here (lib$d not installed): skipped"
    continue
  fi
  step "CMake find_package(twheel): twheel::$d"
  mkdir -p "$work/consumer-$d"
  call='uv_version() != 0'
  [ $d = ev ] && call='ev_version_major() != 0'
  printf '#include <stdio.h>\n#include <twheel_%s.h>\nint main(void) { printf("%s: %%d\\n", %s); return 0; }\n' \
    "$d" "$d" "$call" >"$work/consumer-$d/$d.c"
  driver_consumer "$d" "$d: 1"
done

step "static-only install (-DTW_BUILD_SHARED=OFF)"
cmake -S "$root" -B "$work/build-static" -DCMAKE_BUILD_TYPE=Release -DTW_BUILD_SHARED=OFF \
  -DTW_BUILD_TESTS=OFF -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF \
  -DCMAKE_INSTALL_PREFIX="$work/prefix-static" >"$work/configure-static.log"
cmake --build "$work/build-static" -j "$jobs" >>"$work/configure-static.log"
cmake --install "$work/build-static" >>"$work/configure-static.log"
if find "$work/prefix-static" -name 'libtwheel.so*' | grep -q .; then
  echo "install-test: a static-only install has libtwheel.so" >&2
  exit 1
fi
pc=$(find "$work/prefix-static" -name twheel.pc | head -n 1)
# The archive needs POSIX threads, and its users link it with plain --libs.
PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --libs twheel | grep -q -- '-pthread' ||
  { echo "install-test: a static-only twheel.pc does not give -pthread in Libs" >&2; exit 1; }
# shellcheck disable=SC2046
"$cc" "${cflags[@]}" "$work/hello.c" $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs twheel) \
  -o "$work/hello-static-only"
out=$(env -i "$work/hello-static-only")
check_output "static-only install (plain pkg-config)" "$out"

# A parent project that takes twheel as a subproject, by add_subdirectory or
# FetchContent; $1 says which.  The parent sets no build type and has its
# own install rule and test; twheel must add neither a build type, nor
# install rules, nor tests to it.
subproject() {
  local how=$1 dir="$work/parent-$1"
  mkdir -p "$dir"
  cp "$work/hello.c" "$dir/hello.c"
  if [ "$how" = add_subdirectory ]; then
    mkdir -p "$dir/twheel" # the source tree without .git and build folders
    tar -C "$root" --exclude=./.git --exclude='./build*' --exclude=./twbench-report -cf - . |
      tar -C "$dir/twheel" -xf -
    include='add_subdirectory(twheel)'
  else
    include="include(FetchContent)
FetchContent_Declare(twheel SOURCE_DIR \"$root\")
FetchContent_MakeAvailable(twheel)"
  fi
  cat >"$dir/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(parent C)
enable_testing()
$include
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE twheel::twheel)
install(TARGETS hello DESTINATION bin)
add_test(NAME parent_hello COMMAND hello)
file(WRITE \${CMAKE_BINARY_DIR}/build-type.txt "[\${CMAKE_BUILD_TYPE}]")
CMAKE
  cmake -S "$dir" -B "$dir/build" >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; exit 1; }
  cmake --build "$dir/build" -j "$jobs" >"$dir/build.log" 2>&1 || { cat "$dir/build.log"; exit 1; }
  out=$("$dir/build/hello")
  check_output "$how: hello" "$out"
  if find "$dir/build" -name 'libtwheel.so*' | grep -q .; then
    echo "install-test: $how: the subproject built the shared library (want static only)" >&2
    exit 1
  fi
  if [ "$(cat "$dir/build/build-type.txt")" != "[]" ]; then
    echo "install-test: $how: twheel set the parent's build type: $(cat "$dir/build/build-type.txt")" >&2
    exit 1
  fi
  tests=$(cd "$dir/build" && ctest -N | grep -c 'Test #' || true)
  if [ "$tests" -ne 1 ]; then
    echo "install-test: $how: the parent has $tests tests, want its own 1 (twheel added tests)" >&2
    exit 1
  fi
  cmake --install "$dir/build" --prefix "$dir/inst" >"$dir/install.log"
  extra=$(cd "$dir/inst" && find . -type f ! -path ./bin/hello)
  if [ -n "$extra" ]; then
    echo "install-test: $how: twheel installed into the parent's prefix:" >&2
    echo "$extra" >&2
    exit 1
  fi
  echo "install-test: $how: no build type, no tests, no install rules added to the parent"
}
step "subproject: add_subdirectory"
subproject add_subdirectory
step "subproject: FetchContent"
subproject fetchcontent

echo
echo "install-test: all ok"
