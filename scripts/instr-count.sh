#!/usr/bin/env bash
# The library's instructions per operation on twbench's workloads, counted
# by callgrind: figures that do not move with the machine's load.
#
#   scripts/instr-count.sh [--src DIR] [--scheme LIST] [--n LIST]
#                          [--workload LIST] [--ops K] [--json FILE]
#
# For each cell, bench/instr.c (twinstr) runs under valgrind's callgrind
# twice, with --ops K (default 20000) and with --ops 0 (the same set-up,
# nothing measured).  The library's share of each run is the sum of the
# self cost of every function whose source is under DIR/src (inline code
# included, wherever it was inlined, and what the compiler inlined into
# those functions from the system's headers, such as a 16-byte store's
# intrinsic; twinstr's loop and callbacks and libc excluded), and the figure is the difference of the two runs divided by
# the operations twinstr reports.  Workloads (bench/instr.c says what each
# operation is): churn, churn-one, startstop, expire, expire-next, tcp.
#
# --scheme refwheel runs the same workloads on twbench's reference wheel
# (bench/refwheel.c, compiled into twinstr from this tree, whatever --src
# says); its cells count the functions of bench/refwheel.[ch] as the
# library instead of src/.
#
# --src DIR builds the library of another source tree (an older commit's
# worktree, say) in DIR/build-instr and links this tree's twinstr against
# it: the program uses the public API only.  Default: this tree.
# Defaults: --scheme hierarchical, --n 1e3,1e4,1e6, every workload.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root
schemes=hierarchical
ns=1e3,1e4,1e6
wls=churn,churn-one,startstop,expire,expire-next,tcp
ops=20000
json=
usage() { echo "instr-count: $1 (known: --src DIR, --scheme LIST, --n LIST, --workload LIST," \
               "--ops K, --json FILE)" >&2; exit 2; }
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage "option '$1' needs a value"
  case $1 in
    --src) src=$(cd "$2" && pwd); shift 2 ;;
    --scheme) schemes=$2; shift 2 ;;
    --n) ns=$2; shift 2 ;;
    --workload) wls=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    *) usage "unknown option '$1'" ;;
  esac
done
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
  "$root/scripts/deps.sh" --pkg valgrind || { echo "instr-count: needs valgrind" >&2; exit 1; }

bdir=$src/build-instr
cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-g -DTW_BUILD_TESTS=OFF \
  -DTW_BUILD_BENCH=OFF -DTW_BUILD_EXAMPLES=OFF -DTW_BUILD_DRIVERS=OFF >/dev/null
cmake --build "$bdir" --target twheel_static -j "$(nproc)" >/dev/null
lib=$(find "$bdir" -name libtwheel.a | head -n 1)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"${CC:-cc}" -std=c11 -O2 -g -I"$src/include" -DTW_INSTR_REFWHEEL "$root/bench/instr.c" \
  "$root/bench/refwheel.c" "$lib" -o "$dir/twinstr"

lib_ir() { # callgrind output file, scheme: the library's self cost (callgrind-ir.sh)
  if [ "$2" = refwheel ]; then
    "$root/scripts/callgrind-ir.sh" --lib '(^|/)bench/refwheel\.[ch]:' "$1" | awk '{ print $2 }'
  else
    "$root/scripts/callgrind-ir.sh" "$1" | awk '{ print $2 }'
  fi
}

printf '%-10s %-20s %8s %14s\n' workload scheme n "instr/op"
for wl in ${wls//,/ }; do
  for scheme in ${schemes//,/ }; do
    for n in ${ns//,/ }; do
      for k in 0 "$ops"; do
        valgrind --tool=callgrind --callgrind-out-file="$dir/cg.$k" "$dir/twinstr" \
          --scheme "$scheme" --workload "$wl" --n "$n" --ops "$k" >"$dir/out.$k" 2>"$dir/err" || {
          cat "$dir/err" >&2; exit 1; }
      done
      done_ops=$(sed -n 's/^ops //p' "$dir/out.$ops")
      a=$(lib_ir "$dir/cg.0" "$scheme"); b=$(lib_ir "$dir/cg.$ops" "$scheme")
      per=$(awk -v a="$a" -v b="$b" -v o="$done_ops" 'BEGIN { printf "%.1f", (b - a) / o }')
      printf '%-10s %-20s %8s %14s\n' "$wl" "$scheme" "$n" "$per"
      echo "{\"workload\": \"$wl\", \"scheme\": \"$scheme\", \"n\": $(awk -v n="$n" 'BEGIN{printf "%d", n}'), \"instr_per_op\": $per}" >>"$dir/rows"
    done
  done
done
[ -n "$json" ] && { echo "["; sed '$!s/$/,/' "$dir/rows"; echo "]"; } >"$json"
exit 0
