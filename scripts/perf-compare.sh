#!/usr/bin/env bash
# Did a change move performance?  Builds twbench at a base commit and at
# the working tree, runs them in turns, and prints every cell's paired
# ratio (working tree over base), flagging losses beyond the budget.
#
#   scripts/perf-compare.sh BASE [--rounds R] [--n LIST] [--workload LIST]
#                           [--scheme LIST] [--reps K] [--no-instr]
#
# Each round runs the base's twbench and then this tree's (the order
# alternating from round to round) on the same cells, so that a drift of
# the machine falls on both alike; a cell's figure is the median over the
# rounds of the ratio within each round.  Budget: the default scheme
# (hierarchical) may lose at most 1 ns or 3 %, whichever is larger; any
# other scheme 5 %.  Then, unless --no-instr, the library's instructions
# per operation on both (scripts/instr-count.sh, hierarchical), which no
# load moves.
# Defaults: 5 rounds, n = 1e3,1e6, workloads startstop, churn, tcp,
# expire, tick (churn-any and expire-jump come with them), every scheme
# of the working tree's TW_SCHEME_MAP that the base has too, --reps 5.  At the defaults it takes about 25 minutes on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] && [ "${1#-}" = "$1" ] || {
  echo "usage: perf-compare.sh BASE [--rounds R] [--n LIST] [--workload LIST] [--scheme LIST]" \
       "[--reps K] [--no-instr]" >&2; exit 2; }
base=$1; shift
rounds=5 ns=1e3,1e6 wls=startstop,churn,tcp,expire,tick reps=5 instr=1
schemes=
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --n) ns=$2; shift 2 ;;
    --workload) wls=$2; shift 2 ;;
    --scheme) schemes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --no-instr) instr=0; shift ;;
    *) echo "perf-compare: unknown option '$1'" >&2; exit 2 ;;
  esac
done
rev=$(git -C "$root" rev-parse --verify "$base^{commit}") || {
  echo "perf-compare: '$base' is no commit" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "perf-compare: base ${rev:0:12} against the working tree, $rounds rounds"
mkdir "$dir/base"
git -C "$root" archive "$rev" | tar -x -C "$dir/base"
map_names() { # source tree: the names of its TW_SCHEME_MAP, one a line
  sed -n '/#define TW_SCHEME_MAP(X)/,/TW_SCHEME_MAP_EXTRA(X)/s/^ *X( *[A-Z0-9_]* *, *\([a-z0-9_]*\) *).*/\1/p' \
    "$1/include/twheel.h"
}
if [ -z "$schemes" ]; then # a base from before the map names its schemes in quotes
  for s in $(map_names "$root"); do
    if map_names "$dir/base" | grep -qx "$s" || grep -rqs "\"$s\"" "$dir/base/src"; then
      schemes=${schemes:+$schemes,}$s
    fi
  done
fi
build() { # source tree, build dir
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DTW_BUILD_TESTS=OFF \
    -DTW_BUILD_EXAMPLES=OFF -DTW_BUILD_DRIVERS=OFF >/dev/null
  cmake --build "$2" --target twbench -j "$(nproc)" >/dev/null
}
build "$dir/base" "$dir/base/build-release"
build "$root" "$root/build-perf"
old=$dir/base/build-release/bench/twbench
new=$root/build-perf/bench/twbench
args=(--workload "$wls" --n "$ns" --reps "$reps" --scheme "$schemes" --out '')
for r in $(seq "$rounds"); do
  order="old new"; [ $((r % 2)) -eq 0 ] && order="new old"
  for which in $order; do
    bin=$old; [ "$which" = new ] && bin=$new
    echo "perf-compare: round $r of $rounds: $which"
    "$bin" "${args[@]}" --json "$dir/$which.$r.json" >/dev/null
  done
done
python3 - "$dir" "$rounds" <<'PY'
import json, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
def load(which, r):
    out = {}
    for c in json.load(open("%s/%s.%d.json" % (d, which, r)))["results"]:
        if c.get("status") == "ok" and c.get("median"):
            out[(c["workload"], c["target"], c["n"])] = c["median"]
    return out
old = [load("old", r) for r in range(1, rounds + 1)]
new = [load("new", r) for r in range(1, rounds + 1)]
keys = sorted(set(old[0]) & set(new[0]), key=lambda k: (k[0], k[1], k[2]))
bad = 0
print("%-12s %-22s %8s %10s %10s %8s  %s" % ("workload", "target", "n", "base ns", "new ns",
                                              "new/base", "verdict"))
for k in keys:
    o = statistics.median(x[k] for x in old if k in x)
    n = statistics.median(x[k] for x in new if k in x)
    ratio = statistics.median(b[k] / a[k] for a, b in zip(old, new) if k in a and k in b)
    if k[1] == "hierarchical":
        limit = max(1.0, 0.03 * o)
        lost = n - o > limit and ratio > 1 + limit / o
    else:
        lost = ratio > 1.05
    bad += lost
    print("%-12s %-22s %8d %10.2f %10.2f %8.3f  %s" % (k[0], k[1], k[2], o, n, ratio,
                                                     "LOST" if lost else "ok"))
print("perf-compare: %d of %d cells beyond the budget" % (bad, len(keys)))
PY
if [ "$instr" -eq 1 ]; then
  echo
  echo "instructions per operation, base (${rev:0:12}):"
  "$root/scripts/instr-count.sh" --src "$dir/base" --n 1e3,1e6
  echo "instructions per operation, working tree:"
  "$root/scripts/instr-count.sh" --n 1e3,1e6
fi
