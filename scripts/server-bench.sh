#!/usr/bin/env bash
# The example server (examples/server.c) under real clients on loopback:
# the figures of docs/event-loops.md, "The worked example: a keep-alive
# server".  Not a test:
# it prints tables; every process it starts is stopped at the end.
#
#   scripts/server-bench.sh [--seconds S] [--rounds R] [--quick] [--parts 1234]
#
#   1. wrk, 1,000 and 10,000 keep-alive connections, S seconds each (default
#      10), R rounds (default 3), against the server with no timers and with
#      hierarchical, hashed, lawn, hybrid and heap, server and wrk pinned to
#      a core each: requests/s and its ratio to the no-timer server (median
#      of the rounds' ratios, with their range), p99 latency, and the
#      server's CPU time per request (user and kernel, from /proc);
#   2. idle-close accuracy: 10,000 idle connections, each closed by its
#      1 s idle timer (1 ms ticks), lateness measured by the client from
#      its request's last byte: p50, p99, max, and how many were early;
#   3. scale: 100,000 idle connections in one server: RSS and twheel memory
#      per connection, and wake-ups: while they wait (20 s timeouts), and
#      while they expire, without and with 50 ms of slack;
#   4. instructions: the server under callgrind (valgrind) serving wrk at
#      1,000 connections for S seconds: instructions per request in user
#      space, and in the library (the self cost of the functions whose
#      source is under src/, inlined code included), and twheel's share of
#      the server's CPU (its share of the user-space instructions times
#      user time's share of the CPU in part 1).  Instruction counts do not
#      move with load.
# --quick: 2 s per wrk run, 1,000 connections for 2 and 3 (a smoke run).
# Needs wrk (apt-get install wrk), valgrind for part 4, and a descriptor limit of about 100,200 for
# part 3 (root raises it; under a lower hard limit part 3 uses what it can).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TW_BUILD_DIR:-$root/build-release}
secs=10
quick=0
parts=1234
rounds=3
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) secs=$2; shift 2 ;;
    --quick) quick=1; secs=2; shift ;;
    --parts) parts=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "server-bench: unknown option '$1' (known: --seconds S, --rounds R, --quick, --parts 1234)" >&2
       exit 2 ;;
  esac
done
command -v wrk >/dev/null || "$root/scripts/deps.sh" --pkg wrk || {
  echo "server-bench: needs wrk (apt-get install wrk)" >&2; exit 1; }
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "server-bench: building the server (Release) in $build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTW_BUILD_TESTS=OFF -DTW_BUILD_EXAMPLES=ON \
  >/dev/null
cmake --build "$build" -j "$(nproc)" --target server connprobe >/dev/null
server=$build/examples/server
probe=$build/examples/connprobe
dir=$(mktemp -d)
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$dir"' EXIT

start_server() { # args for the server
  rm -f "$dir/port"
  "$server" --port 0 --port-file "$dir/port" "$@" >"$dir/out" 2>"$dir/err" &
  spid=$!
  for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.05; done
  port=$(cat "$dir/port")
}
counters() { # the server's counter line, now (or its lateness line)
  kill -USR1 "$spid"; sleep 0.2; grep '^server: accepted' "$dir/err" | tail -n 1
  grep -q '^server: idle timers' "$dir/err" && grep '^server: idle timers' "$dir/err" | tail -n 1
  return 0
}
stop_server() {
  kill -TERM "$spid"; wait "$spid" || true; spid=
}

case $parts in *1*) ;; *) conns_list= ;; esac
echo
# The server on core 0, wrk on core 1 (where taskset and two cores are
# there), the schemes taking turns in each round so that a drift of the
# machine falls on all alike; each cell's figure is the median of its rounds
# and the ratio to the no-timer server the median of the ratios in a round.
pin_server=(); pin_wrk=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  pin_server=(taskset -c 0); pin_wrk=(taskset -c 1)
fi
schemes1="none hierarchical hashed lawn hybrid heap"
echo "== 1. wrk: keep-alive GETs, ${secs} s per cell, $rounds rounds, server on core 0," \
     "wrk (2 threads) on core 1 =="
conns_list=${conns_list-"1000 10000"}
[ "$quick" -eq 1 ] && [ -n "$conns_list" ] && conns_list="1000"
for c in $conns_list; do
  for r in $(seq "$rounds"); do
    for scheme in $schemes1; do
      if [ "$scheme" = none ]; then start_server --no-timers; else
        start_server --scheme "$scheme" --idle-ms 60000 --header-ms 60000; fi
      # the server was started unpinned: pin it (and its one thread) now
      [ ${#pin_server[@]} -gt 0 ] && taskset -pc 0 "$spid" >/dev/null
      ${pin_wrk[@]+"${pin_wrk[@]}"} wrk -t2 -c"$c" -d"${secs}s" --latency \
        "http://127.0.0.1:$port/" >"$dir/wrk" 2>&1 || true
      cpu=$(awk '{print $14, $15}' "/proc/$spid/stat") # user, kernel: clock ticks
      stop_server
      req=$(sed -n 's/.*, requests \([0-9]*\),.*/\1/p' "$dir/out")
      rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$dir/wrk")
      p99=$(awk '/^ *99%/ {print $2}' "$dir/wrk")
      echo "$c $r $scheme ${rps:-0} ${p99:-?} ${req:-0} $cpu" >>"$dir/cells"
    done
  done
done
if [ -s "$dir/cells" ]; then
  python3 - "$dir/cells" "$(getconf CLK_TCK)" "$dir/user-share" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
hz = float(sys.argv[2])
print("%-13s %6s %12s %18s %10s %17s" % ("scheme", "conns", "requests/s", "vs no timers", "p99",
                                         "CPU/req (user)"))
user_share = []
for c in sorted({r[0] for r in rows}, key=int):
    base = {r[1]: float(r[3]) for r in rows if r[0] == c and r[2] == "none"}
    for s in dict.fromkeys(r[2] for r in rows):
        mine = [r for r in rows if r[0] == c and r[2] == s]
        rps = statistics.median(float(r[3]) for r in mine)
        ratios = [float(r[3]) / base[r[1]] for r in mine if base.get(r[1])]
        rat = statistics.median(ratios) if ratios else float("nan")
        lo, hi = (min(ratios), max(ratios)) if ratios else (rat, rat)
        req = sum(float(r[5]) for r in mine)
        ut, kt = (sum(float(r[i]) for r in mine) / hz for i in (6, 7))
        cpu = "%.1f us (%.0f%%)" % ((ut + kt) / req * 1e6, 100 * ut / (ut + kt)) if req else "-"
        if req and ut + kt:
            user_share.append(ut / (ut + kt))
        print("%-13s %6s %12.0f %8.3f (%.2f-%.2f) %10s %17s" % (
            s, c, rps, rat, lo, hi, mine[len(mine) // 2][4], cpu))
open(sys.argv[3], "w").write("%.4f\n" % max(user_share) if user_share else "")
PY
fi

n2=10000; n3=100000
# the server and the client each need a descriptor per connection: where
# the hard limit is lower (a container), as many as it allows
lim=$(ulimit -n)
[ "$lim" != unlimited ] && [ "$n3" -gt $((lim - 200)) ] && n3=$((lim - 200)) &&
  echo "server-bench: descriptors are limited to $lim here: $n3 connections for part 3"
[ "$quick" -eq 1 ] && n2=1000 && n3=1000
echo
echo "== 2. idle-close accuracy: $n2 idle connections, 1 s idle timeout, 1 ms ticks =="
schemes2="hierarchical hashed lawn hybrid heap"
case $parts in *2*) ;; *) schemes2= ;; esac
for scheme in $schemes2; do
  start_server --scheme "$scheme" --idle-ms 1000 --tick-us 1000
  printf '%-13s ' "$scheme"
  "$probe" --port "$port" --mode idle --conns "$n2" --timeout-ms 1000 --sources 2 --quiet || true
  printf '%-13s %s\n' "" "$(counters | sed -n 's/^server: idle timers fired/idle timers fired/p')"
  stop_server
done

echo
echo "== 3. scale: $n3 idle connections in one server (hierarchical, 1 ms ticks, 20 s idle) =="
slacks="0 50"
case $parts in *3*) ;; *) slacks= ;; esac
for slack in $slacks; do
  start_server --scheme hierarchical --idle-ms 20000 --tick-us 1000 --slack-ms "$slack"
  rss0=$(awk '/VmRSS/ {print $2}' "/proc/$spid/status")
  "$probe" --port "$port" --mode idle --conns "$n3" --timeout-ms 20000 --sources 4 --quiet \
    >"$dir/probe" &
  ppid=$!
  for _ in $(seq 600); do # until every connection is open (60 s at most)
    line=$(counters)
    [ "$(echo "$line" | sed -n 's/.*, open \([0-9]*\) .*/\1/p' | head -n 1)" -ge "$n3" ] && break
    kill -0 "$ppid" 2>/dev/null || break # the client gave up
  done
  rss1=$(awk '/VmRSS/ {print $2}' "/proc/$spid/status")
  w0=$(echo "$line" | sed -n 's/.*wake-ups \([0-9]*\),.*/\1/p')
  mem=$(echo "$line" | sed -n 's/.*twheel memory \([0-9]*\) bytes.*/\1/p')
  sleep 5
  line=$(counters)
  w1=$(echo "$line" | sed -n 's/.*wake-ups \([0-9]*\),.*/\1/p')
  wait "$ppid" || true
  line=$(counters)
  w2=$(echo "$line" | sed -n 's/.*wake-ups \([0-9]*\),.*/\1/p')
  stop_server
  echo "slack $slack ms: RSS $(( (rss1 - rss0) * 1024 / n3 )) bytes per connection" \
       "(twheel: a 40-byte node + $(( mem / n3 )) of tables); wake-ups while all wait:" \
       "$(( (w1 - w0 - 1) / 5 ))/s (the SIGUSR1 itself excluded); while they expire: $(( w2 - w1 - 1 ))" \
       "in all; $(sed -n 's/.*close lateness after [0-9]* ms: //p' "$dir/probe")"
done

echo
echo "== 4. instructions per request: the server under callgrind, wrk at 1,000 and 10,000" \
     "connections, ${secs} s =="
schemes4="none hierarchical hashed lawn hybrid heap"
conns4="1000 10000"
[ "$quick" -eq 1 ] && conns4=1000
case $parts in *4*) ;; *) schemes4= ;; esac
if [ -n "$schemes4" ] && ! command -v valgrind >/dev/null; then
  echo "server-bench: part 4 skipped: needs valgrind (apt-get install valgrind)"; schemes4=
fi
if [ -n "$schemes4" ]; then # the same code with debug information: where each function is
  cmake -S "$root" -B "$root/build-callgrind" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-g \
    -DTW_BUILD_TESTS=OFF -DTW_BUILD_EXAMPLES=ON -DTW_BUILD_BENCH=OFF >/dev/null
  cmake --build "$root/build-callgrind" -j "$(nproc)" --target server >/dev/null
fi
# callgrind's totals: all of the program's instructions, and the library's
# (the functions whose source is under src/, with what was inlined there)
lib_ir() { "$root/scripts/callgrind-ir.sh" "$1"; }
for c in ${schemes4:+$conns4}; do
for scheme in $schemes4; do
  args=(--scheme "$scheme" --idle-ms 60000 --header-ms 60000)
  [ "$scheme" = none ] && args=(--no-timers)
  rm -f "$dir/port"
  valgrind --tool=callgrind --callgrind-out-file="$dir/cg" "$root/build-callgrind/examples/server" \
    --port 0 --port-file "$dir/port" "${args[@]}" >"$dir/out" 2>"$dir/err" &
  spid=$!
  for _ in $(seq 300); do [ -s "$dir/port" ] && break; sleep 0.1; done
  wrk -t1 -c"$c" -d"${secs}s" "http://127.0.0.1:$(cat "$dir/port")/" >/dev/null 2>&1 || true
  stop_server
  echo "$c $scheme $(lib_ir "$dir/cg") $(sed -n 's/.*, requests \([0-9]*\),.*/\1/p' "$dir/out")" \
    >>"$dir/instr"
done
done
if [ -s "$dir/instr" ]; then
  python3 - "$dir/instr" "$dir/user-share" <<'PY'
import os, sys
rows = [l.split() for l in open(sys.argv[1])]
share = open(sys.argv[2]).read().strip() if os.path.exists(sys.argv[2]) else ""
print("%-13s %6s %16s %16s %22s" % ("scheme", "conns", "user instr/req", "in the library",
                                    "twheel's share of CPU"))
for r in rows:
    c, s, req = r[0], r[1], float(r[4])
    a, t = (float(r[2]) / req, float(r[3]) / req) if req else (0, 0)
    cpu = "%.2f%%" % (100 * t / a * float(share)) if share and a and s != "none" else "-"
    print("%-13s %6s %16.0f %16.0f %22s" % (s, c, a, t, cpu))
if share:
    print("(user time was at most %.0f%% of the server's CPU in part 1; the kernel's socket work"
          " is the rest)" % (100 * float(share)))
PY
fi
