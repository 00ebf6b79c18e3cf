#!/usr/bin/env bash
# The Redis module against the sorted-set delay queue, on one server of
# Debian's redis-server started here on a free loopback port:
#
#   scripts/redis-bench.sh [--n LIST] [--rounds R] [--schemes LIST] [--probes M]
#   scripts/redis-bench.sh --counts [--n LIST]
#
# For each n (default 1e4,1e5,1e6) and round (default 3), in turn on the
# same server: the module (each scheme of --schemes, default heap and
# hierarchical, a key each) and the sorted set taken by a Lua pop polled
# every 100 ms and every 10 ms, as the delay-queue libraries do it.
# contrib/redis/tqbench.c says what each column measures.  Prints the
# median of the rounds per cell, as a markdown table, and keeps every
# round's line in out/redis-bench.txt.
#
# --counts: instructions instead of times, which do not move with the
# machine's load: redis-server runs under valgrind's callgrind while n
# adds (default 2e4) are piped to it, TW.ADD (heap), ZADD, and PING as
# the baseline; prints the server's instructions per command beyond a
# PING's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ns=1e4,1e5,1e6
ns_given=0
counts=0
rounds=3
schemes=heap,hierarchical
probes=2000
while [ $# -gt 0 ]; do
  [ "$1" != --counts ] || { counts=1; shift; continue; }
  [ $# -ge 2 ] || { echo "redis-bench: '$1' needs a value" >&2; exit 2; }
  case $1 in
    --n) ns=$2; ns_given=1 ;;
    --rounds) rounds=$2 ;;
    --schemes) schemes=$2 ;;
    --probes) probes=$2 ;;
    *) echo "redis-bench: unknown option '$1' (--n, --rounds, --schemes, --probes, --counts)" >&2; exit 2 ;;
  esac
  shift 2
done
"$root/scripts/deps.sh" --pkg redis-server redis-tools libhiredis-dev >/dev/null 2>&1 || true
for c in redis-server redis-cli; do
  command -v $c >/dev/null || { echo "redis-bench: needs $c (apt-get install redis-server redis-tools)" >&2; exit 1; }
done
build=$root/build-release
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTW_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target twredis tqbench >/dev/null
module=$build/contrib/redis/twredis.so
bench=$build/contrib/redis/tqbench
[ -x "$bench" ] || { echo "redis-bench: tqbench was not built (apt-get install libhiredis-dev)" >&2; exit 1; }

if [ "$counts" = 1 ]; then
  command -v valgrind >/dev/null || "$root/scripts/deps.sh" --pkg valgrind ||
    { echo "redis-bench: --counts needs valgrind" >&2; exit 1; }
  [ "$ns_given" = 1 ] || ns=2e4
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # gen KIND N: N commands in the protocol, 16-byte payloads, deadlines
  # an hour out over 10^5 ms
  gen() {
    awk -v kind="$1" -v n="$2" 'BEGIN { t = 1795800000000
      for (i = 0; i < n; i++) {
        d = sprintf("%.0f", t + i % 100000); id = sprintf("id%d", i); p = "0123456789abcdef"
        if (kind == "tw")
          printf "*6\r\n$6\r\nTW.ADD\r\n$1\r\nk\r\n$%d\r\n%s\r\n$16\r\n%s\r\n$4\r\nPXAT\r\n$%d\r\n%s\r\n", length(id), id, p, length(d), d
        else if (kind == "zset")
          printf "*4\r\n$4\r\nZADD\r\n$1\r\nk\r\n$%d\r\n%s\r\n$%d\r\n%s:%s\r\n", length(d), d, length(id) + 17, id, p
        else
          printf "*1\r\n$4\r\nPING\r\n" } }'
  }
  # total KIND N: the server's instructions, start to shutdown, for N of KIND
  total() {
    local port=$((20000 + RANDOM % 35000)) pid
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" redis-server --port "$port" \
      --bind 127.0.0.1 --dir "$tmp" --save "" --appendonly no --loadmodule "$module" SCHEME heap \
      >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 300); do
      [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
      sleep 0.1
    done
    gen "$1" "$2" | redis-cli -p "$port" --pipe >/dev/null
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
    wait "$pid" || true
    callgrind_annotate "$tmp/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
  }
  echo "redis-bench --counts: redis-server $(redis-server --version | cut -d' ' -f3) under callgrind," \
    "instructions per command beyond a PING's"
  printf '%-10s %12s %12s %8s\n' n TW.ADD ZADD ratio
  for n in ${ns//,/ }; do
    nn=$(awk -v x="$n" 'BEGIN { printf "%.0f", x }')
    base=$(total ping "$nn"); a=$(total tw "$nn"); z=$(total zset "$nn")
    awk -v n="$nn" -v b="$base" -v a="$a" -v z="$z" \
      'BEGIN { printf "%-10d %12.0f %12.0f %8.2f\n", n, (a - b) / n, (z - b) / n, (a - b) / (z - b) }'
  done
  exit 0
fi

tmp=$(mktemp -d)
pids=()
trap 'for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
start() { # SCHEME: a server in $tmp/SCHEME, its port in PORT
  local i
  for i in 1 2 3 4 5; do
    PORT=$((20000 + RANDOM % 35000))
    mkdir -p "$tmp/$1"
    redis-server --port "$PORT" --bind 127.0.0.1 --dir "$tmp/$1" --save "" --appendonly no \
      --logfile "$tmp/$1/log" --loadmodule "$module" SCHEME "$1" &
    pids+=($!)
    for _ in $(seq 100); do
      [ "$(redis-cli -p "$PORT" ping 2>/dev/null)" = PONG ] && return 0
      kill -0 "${pids[-1]}" 2>/dev/null || break
      sleep 0.1
    done
  done
  echo "redis-bench: redis-server did not start" >&2
  exit 1
}
declare -A port
for s in ${schemes//,/ }; do start "$s"; port[$s]=$PORT; done
first=${schemes%%,*}

mkdir -p "$root/out"
log=$root/out/redis-bench.txt
: >"$log"
echo "redis-bench: $(redis-server --version | cut -d' ' -f3), $(nproc) cores, $rounds rounds" \
  "of n = $ns, $probes probes; the server and the client share the machine"
for n in ${ns//,/ }; do
  nn=$(awk -v x="$n" 'BEGIN { printf "%.0f", x }')
  for r in $(seq "$rounds"); do
    for s in ${schemes//,/ }; do
      echo "scheme=$s $("$bench" --port "${port[$s]}" --impl tw --n "$nn" --probes "$probes")" >>"$log"
    done
    for poll in 100 10; do
      echo "scheme=- $("$bench" --port "${port[$first]}" --impl zset --poll $poll --n "$nn" \
        --probes "$probes")" >>"$log"
    done
  done
done
awk '
  { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    name = v["impl"] == "tw" ? "twheel (" v["scheme"] ")" : v["impl"]
    key = v["n"] SUBSEP name
    if (!(key in seen)) { seen[key] = 1; order[++m] = key }
    cnt[key]++
    for (f in v) vals[key, f, cnt[key]] = v[f] }
  function med(key, f,    k, a, i, j, t) {
    k = cnt[key]
    for (i = 1; i <= k; i++) a[i] = vals[key, f, i] + 0
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((k + 1) / 2)] }
  END {
    print "| n | implementation | adds/s pipelined | adds/s one by one | pops/s pipelined | pops/s one by one | bytes per timer | lateness p50 ms | p99 ms | max ms |"
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= m; i++) {
      split(order[i], p, SUBSEP)
      printf "| %s | %s | %.0f | %.0f | %.0f | %.0f | %.1f | %.2f | %.2f | %.2f |\n", p[1], p[2],
        med(order[i], "add_piped"), med(order[i], "add_single"), med(order[i], "pop_piped"),
        med(order[i], "pop_single"), med(order[i], "bytes_per_timer"),
        med(order[i], "late_p50"), med(order[i], "late_p99"), med(order[i], "late_max") } }' "$log"
echo "redis-bench: every round in $log"
