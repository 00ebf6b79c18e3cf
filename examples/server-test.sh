#!/bin/sh
# The example server under real clients on loopback (ctest: example_server):
# 1,000 idle keep-alive connections closed by their idle timers, and the
# bad clients (silent, slowloris, garbage, half-close, reset, pipelined,
# deeper than the server's output), each close checked by
# examples/connprobe: never before it was due, none left open, every
# answer right.  Then the server is stopped: it must report no connection
# open and no timer pending.  Then a second server, idle before its
# clients and short of descriptors (below).  Bounded: a few seconds, every
# process stopped at the end.
#
#   examples/server-test.sh path/to/server path/to/connprobe [SCHEME]
server=$1
probe=$2
scheme=${3:-hierarchical}
dir=$(mktemp -d)
spid=
cleanup() {
  [ -n "$spid" ] && kill "$spid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
# start_server NOFILE OUT ERR [server options...]: the server in the
# background (spid), under a descriptor limit unless NOFILE is empty, its
# port in $port once it listens
start_server() {
  local nofile=$1 out=$2 err=$3 i=0
  shift 3
  rm -f "$dir/port"
  (if [ -n "$nofile" ]; then ulimit -n "$nofile" || exit 1; fi
    exec "$server" --port 0 --port-file "$dir/port" --scheme "$scheme" "$@" >"$out" 2>"$err") &
  spid=$!
  while [ ! -s "$dir/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  port=$(cat "$dir/port" 2>/dev/null)
  if [ -z "$port" ]; then
    echo "server-test: the server did not start:" >&2
    cat "$err" >&2
    exit 1
  fi
}
start_server "" "$dir/out" "$dir/err" --idle-ms 200 --header-ms 1000
fails=0
run() {
  "$probe" --port "$port" "$@" || fails=$((fails + 1))
}
run --mode idle --conns 1000 --timeout-ms 200
run --mode pipeline --conns 20 --timeout-ms 200
run --mode pipeline --conns 5 --depth 300 --timeout-ms 200 # more answers than its output holds
run --mode silent --conns 50 --timeout-ms 1000
run --mode slowloris --conns 20 --timeout-ms 1000 --interval-ms 100
run --mode garbage --conns 20
run --mode halfclose --conns 20
run --mode reset --conns 20
# the last clients (the resets) are gone: wait until the server has closed
# every connection (SIGUSR1 prints its counters), 10 s at most
i=0
while [ $i -lt 200 ]; do
  kill -USR1 "$spid"
  sleep 0.05
  grep '^server: accepted' "$dir/err" | tail -n 1 | grep -q "open 0 " && break
  i=$((i + 1))
done
kill -TERM "$spid"
wait "$spid"
rc=$?
spid=
cat "$dir/out"
if [ "$rc" -ne 0 ]; then
  echo "server-test: the server exited with $rc" >&2
  cat "$dir/err" >&2
  exit 1
fi
# nothing leaked: every connection closed and its timers stopped before exit
grep -q "open 0 " "$dir/out" && grep -q "timers pending 0," "$dir/out" &&
  ! grep -q "early [1-9]" "$dir/out" &&
  grep -q "at exit 0," "$dir/out" || {
  echo "server-test: connections or timers left behind" >&2
  fails=$((fails + 1))
}

# A second server, short of descriptors (40: 34 for connections) and idle
# for a while before its clients come, on 100 us ticks: its facility's
# time trails the clock by that wait, more than the basic wheel's range
# (4096 ticks), so a start must bring it to the clock first; and the
# clients beyond the descriptors wait in the backlog until idle closes
# free some, while the server sleeps (not spins) on its listening socket.
start_server 40 "$dir/out2" "$dir/err2" --tick-us 100 --idle-ms 300 --header-ms 300
sleep 1
run --mode silent --conns 5 --timeout-ms 300
run --mode idle --conns 60 --timeout-ms 300
kill -TERM "$spid"
wait "$spid"
rc=$?
spid=
cat "$dir/out2"
# no connection closed for want of a timer; the accepts paused, and the
# wake-ups a handful per connection, not a spin's hundreds of thousands
wakeups=$(sed -n 's/.*wake-ups \([0-9]*\),.*/\1/p' "$dir/out2")
[ "$rc" -eq 0 ] && grep -q "open 0 " "$dir/out2" && grep -q "for want of a timer 0," "$dir/out2" &&
  ! grep -q "accepts paused 0," "$dir/out2" && [ "${wakeups:-999999}" -lt 5000 ] || {
  echo "server-test: short of descriptors or idle first: wrong (exit $rc, wake-ups ${wakeups:-?})" >&2
  cat "$dir/err2" >&2
  fails=$((fails + 1))
}
[ "$fails" -eq 0 ] && echo "server-test: $scheme: every close on time or later, none early, nothing left"
exit "$fails"
