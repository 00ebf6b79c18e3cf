#!/usr/bin/env bash
# The Redis module's tests, against a real redis-server (Debian's) started
# here on free loopback ports, each in a temporary directory, and stopped
# at the end.  Every check is of behaviour; a wait for a timer polls until
# the expected state or a bound of 30 s, never asserts a time.
#
#   test-redis.sh PART MODULE SCHEME
#
# PART: commands | persistence | replication | blocking | many | cluster
# MODULE: the built twredis.so; SCHEME: the default scheme of new keys.
set -euo pipefail
part=${1:?usage: test-redis.sh PART MODULE SCHEME}
module=$(realpath "${2:?usage: test-redis.sh PART MODULE SCHEME}")
scheme=${3:-heap}
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || {
  echo "test-redis: needs redis-server and redis-cli (apt-get install redis-server redis-tools)" >&2
  exit 1
}

tmp=$(mktemp -d)
servers=() # pids
bg=()      # background clients
cleanup() {
  for p in ${bg[@]+"${bg[@]}"}; do kill "$p" 2>/dev/null || true; done
  for p in ${servers[@]+"${servers[@]}"}; do kill "$p" 2>/dev/null || true; done
  for p in ${servers[@]+"${servers[@]}"}; do wait "$p" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

checks=0
fails=0
ok() { checks=$((checks + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); checks=$((checks + 1)); }
# expect DESC WANT GOT
expect() {
  if [ "$3" == "$2" ]; then ok; else fail "$1: want [$2], got [$3]"; fi
}
# expect_match DESC REGEX GOT
expect_match() {
  if [[ "$3" =~ $2 ]]; then ok; else fail "$1: want /$2/, got [$3]"; fi
}

# A free loopback port, and its cluster bus port (+10000) free too.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 35000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
    (exec 3<>"/dev/tcp/127.0.0.1/$((p + 10000))") 2>/dev/null && continue
    echo "$p"
    return
  done
}

# start NAME [redis-server arguments...]: a server in $tmp/NAME on a free
# loopback port, left in PORT, with the module loaded (SCHEME $scheme, plus
# $MODARGS), up when this returns.  A port taken meanwhile by another test
# is retried with another.
start() {
  local name=$1 try i
  shift
  mkdir -p "$tmp/$name"
  for try in 1 2 3 4 5; do
    PORT=$(free_port)
    : >"$tmp/$name/log"
    redis-server --port "$PORT" --bind 127.0.0.1 --dir "$tmp/$name" --save "" \
      --logfile "$tmp/$name/log" --enable-debug-command yes \
      --loadmodule "$module" SCHEME "$scheme" ${MODARGS:-} "$@" &
    servers+=($!)
    for i in $(seq 300); do
      [ "$(redis-cli -p "$PORT" ping 2>/dev/null)" = PONG ] && return 0
      kill -0 "${servers[-1]}" 2>/dev/null || break
      sleep 0.1
    done
    grep -q 'Address already in use' "$tmp/$name/log" || break
  done
  echo "test-redis: server $name did not start; its log:" >&2
  tail -n 20 "$tmp/$name/log" >&2
  return 1
}

# stop PORT: shut the server down without saving, and wait for it.
stop() {
  redis-cli -p "$1" shutdown nosave >/dev/null 2>&1 || true
  local i
  for i in $(seq 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null || return 0
    sleep 0.1
  done
}

# wait_for DESC WANT COMMAND...: poll COMMAND until it prints WANT (30 s).
wait_for() {
  local desc=$1 want=$2 got i
  shift 2
  for i in $(seq 600); do
    got=$("$@" 2>&1) || true
    [ "$got" == "$want" ] && { ok; return 0; }
    sleep 0.05
  done
  fail "$desc: want [$want], still [$got] after 30 s"
}

# field PORT KEY NAME: one field of TW.INFO.
field() {
  fieldn "$1" 0 "$2" "$3"
}
# fieldn PORT DB KEY NAME: the same in database DB.
fieldn() {
  redis-cli -p "$1" -n "$2" tw.info "$3" | awk -v f="$4" 'NR % 2 == 1 { k = $0 } NR % 2 == 0 && k == f { print }'
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# ----------------------------------------------------------------- parts

part_commands() {
  local P
  MODARGS="MAX-PAYLOAD 64 MAX-ID 32" start a
  P=$PORT
  r() { redis-cli -p "$P" "$@"; }
  local far=$(($(now_ms) + 3600000))

  # add, replace, NX, XX, deadline, count, next, info
  expect "add" 1 "$(r tw.add q a pa PXAT "$far")"
  expect "add again replaces" 0 "$(r tw.add q a pa2 PXAT "$((far + 1))")"
  expect "deadline after replace" "$((far + 1))" "$(r tw.deadline q a)"
  expect "NX keeps the timer" 0 "$(r tw.add q a px PXAT 5 NX)"
  expect "deadline after NX" "$((far + 1))" "$(r tw.deadline q a)"
  expect "XX on a missing id" 0 "$(r tw.add q zz px PXAT 5 XX)"
  expect "XX on a missing key creates nothing" 00 "$(r tw.add nokey x p PX 5 XX)$(r exists nokey)"
  expect "XX replaces" 0 "$(r tw.add q a pa3 PXAT "$far" XX)"
  expect "deadline" "$far" "$(r tw.deadline q a)"
  expect "deadline of a missing id" -2 "$(r tw.deadline q nope)"
  expect "deadline of a missing key" -2 "$(r tw.deadline nokey a)"
  expect "add b" 1 "$(r tw.add q b pb PXAT "$((far - 10))")"
  expect "count" 2 "$(r tw.count q)"
  expect "count of a missing key" 0 "$(r tw.count nokey)"
  if [ "$scheme" = hierarchical_coarse ]; then # its firing tick: the deadline rounded up
    expect "next" 1 "$(($(r tw.next q) >= far - 10))"
  else
    expect "next" "$((far - 10))" "$(r tw.next q)"
  fi
  expect "next of a missing key" "" "$(r tw.next nokey)"
  expect "info scheme" "$scheme" "$(field "$P" q scheme)"
  expect "info pending" 2 "$(field "$P" q pending)"
  expect "type" twheeltmr "$(r type q)"
  expect_match "memory usage" '^[0-9]+$' "$(r memory usage q)"
  expect_match "digest" '^[0-9a-f]{40}$' "$(r debug digest-value q)"
  expect "pop: nothing due" "" "$(r tw.pop q)"

  # a key restored (as MIGRATE and resharding do) is expired by the server
  r tw.add rk a x PX 300 >/dev/null
  redis-cli -p "$P" --raw dump rk | head -c -1 >"$tmp/dump"
  r del rk >/dev/null
  r tw.add q far2 x PXAT "$far" >/dev/null # the Redis timer armed an hour out
  r tw.cancel q far2 >/dev/null
  redis-cli -p "$P" -x restore rk2 0 <"$tmp/dump" >/dev/null
  wait_for "a restored key is expired by the server" 1 field "$P" rk2 ready
  r del rk2 >/dev/null
  # a key whose Redis TTL passes before its timer: deleted, nothing else
  r debug set-active-expire 0 >/dev/null
  r tw.add lz a x PX 200 >/dev/null
  r pexpire lz 50 >/dev/null
  sleep 0.5
  r debug set-active-expire 1 >/dev/null
  expect "a key past its TTL is gone" 0 "$(r exists lz)"
  expect "and the server is up" PONG "$(r ping)"

  # server-side expiry: ready without any pop
  r tw.add e x1 p1 PX 50 >/dev/null
  wait_for "expired by the server" 1 field "$P" e ready
  expect "pop the expired" "$(printf 'x1\np1')" "$(r tw.pop e)"
  expect "an empty key is deleted" 0 "$(r exists e)"
  expect "past deadline: ready at once" 1 "$(r tw.add e x2 p2 PXAT 1)"
  expect "ready at once" 1 "$(field "$P" e ready)"
  expect "pop it" "$(printf 'x2\np2')" "$(r tw.pop e COUNT 10)"

  # COUNT, in deadline order across expiry passes
  local t0
  t0=$(now_ms)
  for i in 1 2 3 4 5; do r tw.add c "c$i" "p$i" PXAT "$((t0 - 100 + i))" >/dev/null; done
  expect "pop COUNT 3" "$(printf 'c1\np1\nc2\np2\nc3\np3')" "$(r tw.pop c COUNT 3)"
  expect "pop the rest" "$(printf 'c4\np4\nc5\np5')" "$(r tw.pop c COUNT 3)"

  # cancel in each state
  r tw.add k p1 x PXAT "$far" >/dev/null
  r tw.add k r1 x PXAT 1 >/dev/null
  expect "cancel pending + ready + missing" 2 "$(r tw.cancel k p1 r1 nope)"
  expect "cancelled all: key gone" 0 "$(r exists k)"
  expect "cancel on a missing key" 0 "$(r tw.cancel k p1)"

  # lease, ack, redelivery
  r tw.add l j1 job PXAT 1 >/dev/null
  expect "ack before delivery" 0 "$(r tw.ack l j1)"
  expect "pop with lease" "$(printf 'j1\njob')" "$(r tw.pop l LEASE 600000)"
  expect "leased" 1 "$(field "$P" l leased)"
  expect_match "lease deadline" '^[0-9]{13}$' "$(r tw.deadline l j1)"
  expect "ack" 1 "$(r tw.ack l j1)"
  expect "acked: key gone" 0 "$(r exists l)"
  r tw.add l j2 job2 PXAT 1 >/dev/null
  expect "pop with a short lease" "$(printf 'j2\njob2')" "$(r tw.pop l LEASE 50)"
  wait_for "redelivered after the lease" 1 field "$P" l ready
  expect "pop again" "$(printf 'j2\njob2')" "$(r tw.pop l LEASE 600000)"
  expect "ack after redelivery" 1 "$(r tw.ack l j2)"

  # periodic: runs on a grid from its first deadline, a delivery each
  local first
  first=$(($(now_ms) + 50))
  expect "periodic add" 1 "$(r tw.add per tick x PXAT "$first" EVERY 40)"
  wait_for "periodic: first run" 1 field "$P" per ready
  expect "periodic: pop a run" "$(printf 'tick\nx')" "$(r tw.pop per)"
  expect "periodic: still there" 1 "$(r tw.count per)"
  wait_for "periodic: next run" 1 field "$P" per ready
  r tw.pop per >/dev/null
  expect "periodic: on the grid" 0 "$((($(r tw.deadline per tick) - first) % 40))"
  expect "periodic: no ack" 0 "$(r tw.ack per tick)"
  expect "periodic: cancel" 1 "$(r tw.cancel per tick)"
  # runs missed: about 11 grid points passed, the next ~50 s away, so that
  # the count read after the pop is the count the pop saw
  local past n
  past=$(($(now_ms) - 1050000))
  r tw.add burst b x PXAT "$past" EVERY 100000 MISSED burst >/dev/null
  n=$(r tw.pop burst COUNT 100 | grep -c '^b$')
  expect "burst: a delivery per missed run" "$((($(field "$P" burst time) - past) / 100000 + 1))" "$n"
  r tw.add skip s x PXAT "$past" EVERY 100000 >/dev/null
  expect "skip: one delivery" 1 "$(r tw.pop skip COUNT 100 | grep -c '^s$')"
  expect "skip: next run on the grid" 0 "$((($(r tw.deadline skip s) - past) % 100000))"
  local t1
  t1=$(now_ms)
  r tw.add delay d x PXAT "$past" EVERY 100000 MISSED delay >/dev/null
  expect "delay: one delivery" 1 "$(r tw.pop delay COUNT 100 | grep -c '^d$')"
  expect "delay: a period from the run" 1 "$(($(r tw.deadline delay d) >= t1 + 100000))"
  # late by less than a period: on the grid
  local near=$(($(now_ms) - 50))
  r tw.add delay2 d x PXAT "$near" EVERY 100000 MISSED delay >/dev/null
  expect "delay, late by less than a period: one delivery" 1 \
    "$(r tw.pop delay2 COUNT 100 | grep -c '^d$')"
  expect "delay, late by less than a period: on the grid" "$((near + 100000))" \
    "$(r tw.deadline delay2 d)"
  r del burst skip delay delay2 >/dev/null
  expect_match "EVERY 0" 'EVERY must be' "$(r tw.add per a p PX 5 EVERY 0)"
  # the server's own expiry passes are not accesses: a key that only its
  # timers visit grows idle (LRU), as a key nobody visits
  r tw.add visited v x PX 100 EVERY 100 >/dev/null
  sleep 2.5
  expect "expiry passes leave a key idle" 1 "$(($(r object idletime visited) >= 1))"
  r del visited >/dev/null
  expect_match "MISSED bogus" 'MISSED is' "$(r tw.add per a p PX 5 EVERY 5 MISSED often)"
  expect_match "QUEUED without EVERY" 'QUEUED is for' "$(r tw.add per a p PX 5 QUEUED 2)"

  # TAKE and EXPIRE (what replication carries)
  r tw.add t a x PXAT 1 >/dev/null
  r tw.add t b x PXAT "$far" >/dev/null
  expect "take a pending one: none" 0 "$(r tw.take t 0 b)"
  expect "take a ready one" 1 "$(r tw.take t 0 a)"
  expect "expire to the past: nothing" 0 "$(r tw.expire t 1)"
  expect_match "expire after the clock" 'after the server' "$(r tw.expire t "$((far * 2))")"
  r del t >/dev/null

  # rename, move, swapdb: the server still expires the key where it went
  r tw.add n1 a x PX 100 >/dev/null
  r rename n1 n2 >/dev/null
  wait_for "expiry follows a rename" 1 field "$P" n2 ready
  r tw.add m1 a x PX 100 >/dev/null
  r move m1 3 >/dev/null
  wait_for "expiry follows a move" 1 fieldn "$P" 3 m1 ready
  r tw.add s1 a x PX 100 >/dev/null
  r swapdb 0 5 >/dev/null
  wait_for "expiry follows swapdb" 1 fieldn "$P" 5 s1 ready
  r swapdb 0 5 >/dev/null
  r tw.add f1 a x PX 100000 >/dev/null
  r flushall async >/dev/null
  r tw.add f2 a x PX 50 >/dev/null
  wait_for "expiry after flushall async" 1 field "$P" f2 ready
  r flushall >/dev/null

  # blocking inside MULTI does not block
  expect "BLOCK in MULTI" "$(printf 'OK\nQUEUED\n')" "$(printf 'MULTI\nTW.POP nokey BLOCK 0\nEXEC\n' | r | head -n 3)"

  # bad input: clear errors, nothing changed, the server up
  r tw.add q2 keep x PXAT "$far" >/dev/null
  r set str v >/dev/null
  local before
  before=$(r debug digest)
  expect_match "WRONGTYPE add" WRONGTYPE "$(r tw.add str a p PX 10)"
  expect_match "WRONGTYPE pop" WRONGTYPE "$(r tw.pop str)"
  expect_match "WRONGTYPE count" WRONGTYPE "$(r tw.count str)"
  expect_match "WRONGTYPE cancel" WRONGTYPE "$(r tw.cancel str a)"
  expect_match "arity add" 'wrong number of arguments' "$(r tw.add q2 a)"
  expect_match "arity count" 'wrong number of arguments' "$(r tw.count)"
  expect_match "arity deadline" 'wrong number of arguments' "$(r tw.deadline q2)"
  expect_match "arity cancel" 'wrong number of arguments' "$(r tw.cancel q2)"
  expect_match "negative PX" 'invalid expire' "$(r tw.add q2 a p PX -1)"
  expect_match "non-numeric PX" 'invalid expire' "$(r tw.add q2 a p PX soon)"
  expect_match "PXAT past 2^63" 'invalid expire' "$(r tw.add q2 a p PXAT 9223372036854775808)"
  expect_match "PX overflowing" 'overflows' "$(r tw.add q2 a p PX 9223372036854775807)"
  expect_match "no deadline" 'deadline is required' "$(r tw.add q2 a p NX SCHEME heap)"
  expect_match "NX and XX" 'not compatible' "$(r tw.add q2 a p PX 5 NX XX)"
  expect_match "unknown option" 'syntax error' "$(r tw.add q2 a p PX 5 SOON)"
  expect_match "unknown scheme" 'unknown scheme' "$(r tw.add q2 a p PX 5 SCHEME bogus)"
  expect_match "TIME after the clock" 'TIME must be' "$(r tw.add q9 a p PX 5 TIME "$((far * 2))")"
  expect_match "empty id" 'id length' "$(r tw.add q2 '' p PX 5)"
  expect_match "id too long" 'id length' "$(r tw.add q2 "$(printf 'i%.0s' $(seq 33))" p PX 5)"
  expect_match "payload too long" 'max-payload' "$(r tw.add q2 a "$(printf 'p%.0s' $(seq 65))" PX 5)"
  expect "COUNT 0: an empty array, as ZPOPMIN key 0" "" "$(r tw.pop q2 COUNT 0)"
  expect_match "COUNT 0 on another type" WRONGTYPE "$(r tw.pop str COUNT 0)"
  expect_match "COUNT 0 with BLOCK" 'COUNT must be positive' "$(r tw.pop q2 COUNT 0 BLOCK 10)"
  expect_match "COUNT -1" 'COUNT must be' "$(r tw.pop q2 COUNT -1)"
  expect_match "MISSED without EVERY" 'MISSED is for periodic' \
    "$(r tw.add q2 a p PX 5 MISSED burst)"
  expect_match "LEASE 0" 'LEASE must be' "$(r tw.pop q2 LEASE 0)"
  expect_match "BLOCK -1" 'timeout' "$(r tw.pop q2 BLOCK -1)"
  expect_match "pop syntax" 'syntax error' "$(r tw.pop q2 COUNT)"
  expect_match "take with a bad time" 'invalid lease' "$(r tw.take q2 soon a)"
  expect_match "expire with a bad time" 'invalid time' "$(r tw.expire q2 -5)"
  expect "bad input changed nothing" "$before" "$(r debug digest)"
  expect "still up" PONG "$(r ping)"
  expect_match "wheel is not for keys" 'not wheel' "$(r tw.add w a p PX 100 SCHEME wheel)"

  # scheme names in any case, as every option word and value
  expect "SCHEME HEAP" 1 "$(r tw.add sc a p PX 100000 SCHEME HEAP)"
  expect "its scheme" heap "$(field "$P" sc scheme)"
  # what changes behaviour changes the digest: deliveries, scheme, time
  r tw.add dg1 a p PXAT 1000 TIME 1000 >/dev/null
  r tw.add dg2 a p PXAT 1000 TIME 1000 DELIVERIES 1 >/dev/null
  local other=heap
  [ "$scheme" = heap ] && other=hierarchical
  r tw.add dg3 a p PXAT 1000 TIME 1000 SCHEME "$other" >/dev/null
  r tw.add dg4 a p PXAT 1000 TIME 999 >/dev/null
  local d1
  d1=$(r debug digest-value dg1)
  for k in dg2 dg3 dg4; do
    if [ "$d1" != "$(r debug digest-value $k)" ]; then ok; else fail "digest of $k is dg1's"; fi
  done
  # TW.NEXT stays within the deadlines' range where the coarse wheel's
  # firing tick rounds past it
  r tw.add hc a p PXAT 9223372036854775000 SCHEME hierarchical_coarse >/dev/null
  expect "TW.NEXT capped" 9223372036854775807 "$(r tw.next hc)"
  expect_match "TW.POP is a blocking command" blocking "$(r command info tw.pop)"
  # key specs: a read-only user (%R~) may read, not write; the arity is
  # checked by the server
  r acl setuser ro on nopass '%R~*' '+@all' >/dev/null
  expect "read-only user: TW.COUNT" 1 "$(r --user ro --pass x tw.count sc 2>/dev/null)"
  expect_match "read-only user: TW.ADD" NOPERM "$(r --user ro --pass x tw.add sc b p PX 5 2>/dev/null)"
  expect "key and flags of TW.POP" "$(printf 'sc\nRW\naccess\ndelete')" \
    "$(r command getkeysandflags tw.pop sc)"
  expect "TW.COUNT's arity" 2 "$(r command info tw.count | sed -n 2p)"

  # WATCH fails when the key's timers change, not on a write that changed
  # nothing (as LPOP of an empty list)
  r tw.add w a p PXAT "$far" >/dev/null
  r tw.add w r p PXAT 1 >/dev/null
  r tw.pop w >/dev/null
  expect "WATCH kept: cancel of an unknown id" '*1' "$(watch_exec tw.cancel w nosuch)"
  expect "WATCH kept: ack of a pending one" '*1' "$(watch_exec tw.ack w a)"
  expect "WATCH kept: add NX of one there" '*1' "$(watch_exec tw.add w a p PX 5 NX)"
  expect "WATCH kept: pop, none ready" '*1' "$(watch_exec tw.pop w)"
  expect "WATCH kept: a read" '*1' "$(watch_exec tw.count w)"
  expect "WATCH broken: an add" '*-1' "$(watch_exec tw.add w b p PXAT "$far")"
  expect "WATCH broken: a cancel" '*-1' "$(watch_exec tw.cancel w b)"
  # keyspace notifications (class d, module; del when the key empties)
  r config set notify-keyspace-events KEA >/dev/null
  redis-cli -p "$P" --csv psubscribe '__keyevent@0__:*' >"$tmp/events" 2>/dev/null &
  bg+=($!)
  wait_for "subscribed" 1 redis-cli -p "$P" pubsub numpat
  r tw.add ev a p PX 30 >/dev/null
  wait_for "expired" 1 field "$P" ev ready
  r tw.pop ev >/dev/null
  wait_for "keyspace events" "tw.add tw.expire tw.pop del" \
    sh -c "grep -o 'keyevent@0__:[a-z.]*\",\"ev\"' '$tmp/events' | sed 's/.*__:\([a-z.]*\).*/\1/' | tr '\n' ' ' | sed 's/ $//'"
  stop "$P"
}

# watch_exec CMD...: on a connection of its own, WATCH key w; CMD from
# another client; then MULTI, PING, EXEC on the first: EXEC's first line,
# *1 (ran: the WATCH held) or *-1 (aborted).
watch_exec() {
  local line
  exec 7<>"/dev/tcp/127.0.0.1/$P"
  printf 'WATCH w\r\n' >&7
  read -r line <&7
  redis-cli -p "$P" "$@" >/dev/null
  printf 'MULTI\r\nPING\r\nEXEC\r\n' >&7
  read -r line <&7
  read -r line <&7
  read -r line <&7
  exec 7>&-
  echo "${line%$'\r'}"
}

# r_info_counts PORT KEY: timers, pending, ready, leased.
r_info_counts() {
  echo "$(field "$1" "$2" timers) $(field "$1" "$2" pending) $(field "$1" "$2" ready)" \
       "$(field "$1" "$2" leased)"
}

# state PORT KEY: what must survive a restart (the time moves on).
state() {
  local p=$1 k=$2
  echo "$(redis-cli -p "$p" debug digest-value "$k") $(field "$p" "$k" pending)" \
       "$(field "$p" "$k" ready) $(field "$p" "$k" leased)"
}

fill_states() { # PORT: key q with pending, ready and leased timers
  local p=$1 far i
  far=$(($(now_ms) + 3600000))
  for i in $(seq 20); do redis-cli -p "$p" tw.add q "p$i" "pay$i" PXAT "$((far + i))" >/dev/null; done
  for i in $(seq 10); do redis-cli -p "$p" tw.add q "r$i" "pay$i" PXAT "$i" >/dev/null; done
  redis-cli -p "$p" tw.pop q COUNT 4 LEASE 3600000 >/dev/null
  # periodic: one pending, one with 3 deliveries waiting (burst), one skip
  redis-cli -p "$p" tw.add q e1 every PXAT "$far" EVERY 1000 >/dev/null
  redis-cli -p "$p" tw.add q e2 burst PXAT "$(($(now_ms) - 2500))" EVERY 1000000 MISSED burst >/dev/null
  redis-cli -p "$p" tw.add q e3 skip PXAT "$(($(now_ms) - 2500))" EVERY 1000000 MISSED skip >/dev/null
  # and one past its last run (its next would pass the largest deadline),
  # its delivery waiting, its deadline that run's
  redis-cli -p "$p" tw.add q e4 last PXAT "$(($(now_ms) - 5000))" EVERY 9223372036854775000 >/dev/null
}

part_persistence() {
  local P s1 s2
  # RDB
  start rdb
  P=$PORT
  fill_states "$P"
  s1=$(state "$P" q)
  expect "filled" "23 9 4" "${s1#* }"
  redis-cli -p "$P" save >/dev/null
  stop "$P"
  start rdb
  P=$PORT
  expect "restart from RDB" "$s1" "$(state "$P" q)"
  redis-cli -p "$P" debug reload >/dev/null
  expect "DEBUG RELOAD" "$s1" "$(state "$P" q)"
  expect "ack a lease kept by the RDB" 1 "$(redis-cli -p "$P" tw.ack q r1)"
  expect "pop a ready one kept by the RDB" "$(printf 'r5\npay5')" "$(redis-cli -p "$P" tw.pop q)"
  stop "$P"

  # AOF: the command log, then a rewrite, each replayed by a restart; the
  # rewrite both with the RDB preamble (Redis's default) and as commands
  local preamble
  for preamble in yes no; do
    rm -rf "$tmp/aof"
    start aof --appendonly yes --aof-use-rdb-preamble $preamble
    P=$PORT
    fill_states "$P"
    # a timer whose lease ran out: ready again, still ackable
    redis-cli -p "$P" tw.add q x1 lx PXAT 1 >/dev/null
    redis-cli -p "$P" tw.take q 1 x1 >/dev/null
    redis-cli -p "$P" tw.expire q "$(now_ms)" >/dev/null
    s1=$(state "$P" q)
    stop "$P"
    start aof --appendonly yes --aof-use-rdb-preamble $preamble
    P=$PORT
    expect "restart from the AOF ($preamble)" "$s1" "$(state "$P" q)"
    redis-cli -p "$P" bgrewriteaof >/dev/null
    wait_for "rewrite done" 0 sh -c "redis-cli -p $P info persistence | sed -n 's/^aof_rewrite_in_progress:\([0-9]*\).*/\1/p'"
    wait_for "rewrite scheduled none" 0 sh -c "redis-cli -p $P info persistence | sed -n 's/^aof_rewrite_scheduled:\([0-9]*\).*/\1/p'"
    s2=$(state "$P" q)
    redis-cli -p "$P" save >/dev/null # the same state as an RDB, whose order is kept
    mkdir -p "$tmp/copy"
    cp "$tmp/aof/dump.rdb" "$tmp/copy/dump.rdb"
    stop "$P"
    start aof --appendonly yes --aof-use-rdb-preamble $preamble
    P=$PORT
    expect "restart from the rewritten AOF ($preamble)" "$s2" "$(state "$P" q)"
    expect "ack a lapsed lease after the rewrite ($preamble)" 1 "$(redis-cli -p "$P" tw.ack q x1)"
    start copy
    redis-cli -p "$PORT" tw.ack q x1 >/dev/null
    expect "the rewritten AOF keeps the ready order ($preamble)" \
      "$(redis-cli -p "$PORT" tw.pop q COUNT 100)" "$(redis-cli -p "$P" tw.pop q COUNT 100)"
    stop "$PORT"
    rm -rf "$tmp/copy"
    expect "ack a lease after the rewrite ($preamble)" 1 "$(redis-cli -p "$P" tw.ack q r2)"
    stop "$P"
  done

  # a key whose time is ahead of the server's clock (restored from a
  # server whose clock ran ahead): a client's add waits as its timers do,
  # PX from the key's time, a PXAT before it for the first ms after it
  if command -v python3 >/dev/null; then
    rm -rf "$tmp/ahead" && mkdir -p "$tmp/ahead"
    local kt
    kt=$(($(now_ms) + 3600000))
    python3 - "$kt" >"$tmp/ahead/appendonly.aof" <<'EOF'
import sys
def cmd(*a):
    return "*%d\r\n" % len(a) + "".join("$%d\r\n%s\r\n" % (len(x), x) for x in a)
t = sys.argv[1]
sys.stdout.write(cmd("SELECT", "0") + cmd("TW.ADD", "ahead", "t1", "p", "PXAT",
                                          str(int(t) + 600000), "TIME", t))
EOF
    start ahead --appendonly yes
    P=$PORT
    expect "a key ahead: its time" "$kt" "$(field "$P" ahead time)"
    redis-cli -p "$P" tw.add ahead rel p PX 5000 >/dev/null
    expect "a key ahead: PX counts from its time" "$((kt + 5000))" \
      "$(redis-cli -p "$P" tw.deadline ahead rel)"
    redis-cli -p "$P" tw.add ahead abs p PXAT "$(($(now_ms) + 60000))" >/dev/null
    expect "a key ahead: PXAT before its time waits past it" "$((kt + 1))" \
      "$(redis-cli -p "$P" tw.deadline ahead abs)"
    expect "a key ahead: nothing delivered early" "" "$(redis-cli -p "$P" tw.pop ahead)"
    stop "$P"
  fi

  # an RDB of the previous encoding (1, no periodic timers) still loads
  mkdir -p "$tmp/enc1"
  cp "$(dirname "$0")/testdata/enc1.rdb" "$tmp/enc1/dump.rdb"
  start enc1
  P=$PORT
  local k
  for k in enc1:heap enc1:hierarchical; do
    expect "encoding 1: $k" "7 3 3 1" "$(r_info_counts "$P" "$k")"
    expect "encoding 1: $k ready in order" "$(printf 'r2\nready 2\nr3\nready 3\nr4\nready 4')" \
      "$(redis-cli -p "$P" tw.pop "$k" COUNT 10)"
    expect "encoding 1: $k lease" 1 "$(redis-cli -p "$P" tw.ack "$k" r1)"
    expect "encoding 1: $k deadline" 41024448000002 "$(redis-cli -p "$P" tw.deadline "$k" p2)"
  done
  stop "$P"

  # DUMP payloads (testdata/*.dump, the heap scheme): a key whose time is
  # near the end of time (from a server whose clock was there) leases up
  # to the last time a key may hold, and survives a reload; values that no
  # command can make are refused, the server up
  start payloads
  P=$PORT
  local d
  d=$(dirname "$0")/testdata
  expect "restore a key at the end of time" OK "$(redis-cli -p "$P" -x restore far 0 <"$d/far-time.dump")"
  expect "a lease from the end of time" "$(printf 'job\npayload')" \
    "$(redis-cli -p "$P" tw.pop far LEASE 1000)"
  expect "the lease ends at the last time" 9223372036854775807 "$(redis-cli -p "$P" tw.deadline far job)"
  expect "reloaded with its lease" OK "$(redis-cli -p "$P" debug reload)"
  expect "the lease after the reload" 9223372036854775807 "$(redis-cli -p "$P" tw.deadline far job)"
  expect "a good payload" OK "$(redis-cli -p "$P" -x restore good 0 <"$d/good-ready.dump")"
  for k in no-timer encoding-0 scheme-nul leased-undelivered; do
    expect_match "refused: $k" 'Bad data format' \
      "$(redis-cli -p "$P" -x restore "$k" 0 <"$d/bad-$k.dump" 2>&1)"
    expect "nothing left of $k" 0 "$(redis-cli -p "$P" exists "$k")"
  done
  expect "the server up after them" PONG "$(redis-cli -p "$P" ping)"
  stop "$P"

  # an RDB of a newer encoding: refused with a clear message, no crash
  if command -v python3 >/dev/null; then
    start newer --rdbchecksum no
    P=$PORT
    redis-cli -p "$P" tw.add q a p PX 100000 >/dev/null
    redis-cli -p "$P" save >/dev/null
    stop "$P"
    python3 - "$tmp/newer/dump.rdb" <<'EOF'
import sys
cs = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
def mid(v):
    i = 0
    for ch in "twheeltmr":
        i = (i << 6) | cs.index(ch)
    return ((i << 10) | v).to_bytes(8, "big")
data = open(sys.argv[1], "rb").read()
v = [v for v in range(1, 64) if data.count(mid(v)) == 1]
assert len(v) == 1, "the module type id is not in the file once"
open(sys.argv[1], "wb").write(data.replace(mid(v[0]), mid(v[0] + 1)))
EOF
    local sum
    sum=$(cksum <"$tmp/newer/dump.rdb")
    set +e
    timeout 30 redis-server --port 0 --unixsocket "$tmp/newer/sock" --dir "$tmp/newer" --save "" \
      --logfile "$tmp/newer/log2" --loadmodule "$module" SCHEME "$scheme"
    local rc=$?
    set -e
    # Redis stops at the load error (its exit status is its own affair)
    expect "newer RDB: the server refuses to start" 1 "$((rc != 124))"
    expect "newer RDB: the file is left as it was" "$sum" "$(cksum <"$tmp/newer/dump.rdb")"
    expect_match "newer RDB: the log says why" 'written by a newer twredis' "$(cat "$tmp/newer/log2")"
    if grep -q 'crashed by signal' "$tmp/newer/log2"; then fail "newer RDB: crashed"; else ok; fi
  else
    echo "test-redis: python3 missing: the newer-encoding check is skipped"
  fi
}

part_replication() {
  local P R far
  start primary
  P=$PORT
  # smaller limits than the primary's: they bind its clients, not its primary
  MODARGS="MAX-ID 10 MAX-PAYLOAD 4" start replica --replicaof 127.0.0.1 "$P"
  R=$PORT
  wait_for "replica linked" up sh -c "redis-cli -p $R info replication | sed -n 's/^master_link_status:\([a-z]*\).*/\1/p'"
  fill_states "$P"
  far=$(($(now_ms) + 1500))
  for i in $(seq 30); do redis-cli -p "$P" tw.add soon "s$i" x PXAT "$((far + i))" >/dev/null; done
  for i in $(seq 10); do redis-cli -p "$P" tw.add quick "k$i" x PX "$((20 * i))" >/dev/null; done
  redis-cli -p "$P" tw.add long a-twenty-byte-id-xx a-longer-payload PXAT "$((far + 3600000))" \
    >/dev/null
  wait_for "primary expired quick" 10 field "$P" quick ready
  redis-cli -p "$P" tw.pop quick COUNT 3 >/dev/null
  redis-cli -p "$P" tw.pop quick COUNT 2 LEASE 600000 >/dev/null
  # The primary may expire between two reads: compare at a moment when
  # its state is the same before and after the replica's read.
  local k try a b c
  for k in q soon quick long; do
    for try in $(seq 100); do
      a="$(state "$P" $k) $(field "$P" $k time)"
      redis-cli -p "$P" wait 1 5000 >/dev/null
      b="$(state "$R" $k) $(field "$R" $k time)"
      c="$(state "$P" $k) $(field "$P" $k time)"
      [ "$a" == "$c" ] && [ "$a" == "$b" ] && break
      sleep 0.05
    done
    expect "replica follows, time included: $k" "$c" "$b"
  done
  expect_match "a replica refuses writes" READONLY "$(redis-cli -p "$R" tw.add q a p PX 5)"
  # a pop that finds nothing due writes nothing to the replica (it did:
  # a TW.EXPIRE of 49 bytes per pop, 2,450 for these 50); a ping of the
  # link, or another key's expiry, may come between
  local off0 off1
  off0=$(redis-cli -p "$P" info replication | sed -n 's/^master_repl_offset:\([0-9]*\).*/\1/p')
  for i in $(seq 50); do redis-cli -p "$P" tw.pop long >/dev/null; done
  off1=$(redis-cli -p "$P" info replication | sed -n 's/^master_repl_offset:\([0-9]*\).*/\1/p')
  expect "empty pops replicate nothing" 1 "$((off1 - off0 < 1000))"
  # the primary goes away; the replica, promoted, expires from its own data
  stop "$P"
  redis-cli -p "$R" replicaof no one >/dev/null
  wait_for "promoted replica expires what the primary left" 30 field "$R" soon ready
  redis-cli -p "$R" tw.add fresh a x PX 50 >/dev/null
  wait_for "promoted replica expires new timers" 1 field "$R" fresh ready
  expect "leases kept across the failover" 2 "$(field "$R" quick leased)"
  stop "$R"
}

part_blocking() {
  local P out i
  start b
  P=$PORT
  # woken by expiry
  redis-cli -p "$P" tw.pop q BLOCK 20000 >"$tmp/b1" &
  bg+=($!)
  sleep 0.2
  redis-cli -p "$P" tw.add q w1 pay PX 100 >/dev/null
  wait "${bg[-1]}"
  expect "woken by expiry" "$(printf 'w1\npay')" "$(cat "$tmp/b1")"
  # timeout
  expect "timeout: nil" "" "$(redis-cli -p "$P" tw.pop q BLOCK 100)"
  # many blocked clients on one key: each timer to exactly one of them;
  # they block with no time limit, so that a slow machine cannot make them
  # give up before the adds, and the ones left are let go by CLIENT
  # UNBLOCK, which times them out (nil)
  local n=24 got=10 id
  for i in $(seq $n); do
    redis-cli -p "$P" tw.pop m BLOCK 0 >"$tmp/m$i" &
    bg+=($!)
  done
  wait_for "all blocked" "$n" sh -c "redis-cli -p $P info clients | sed -n 's/^blocked_clients:\([0-9]*\).*/\1/p'"
  for i in $(seq $got); do redis-cli -p "$P" tw.add m "id$i" x PX $((10 * i)) >/dev/null; done
  wait_for "each timer taken" 0 redis-cli -p "$P" exists m
  wait_for "the others still blocked" "$((n - got))" sh -c "redis-cli -p $P info clients | sed -n 's/^blocked_clients:\([0-9]*\).*/\1/p'"
  for id in $(redis-cli -p "$P" client list | sed -n 's/^id=\([0-9]*\) .* cmd=tw\.pop .*/\1/p'); do
    redis-cli -p "$P" client unblock "$id" >/dev/null
  done
  for p in "${bg[@]}"; do wait "$p" || true; done
  bg=()
  out=$(cat "$tmp"/m* | grep '^id' | sort)
  expect "each timer to one client" "$(seq $got | sed 's/^/id/' | sort)" "$out"
  expect "the others timed out (nil)" "$((n - got))" \
    "$(for i in $(seq $n); do [ "$(cat "$tmp/m$i")" = "" ] && echo; done | wc -l)"
  # a blocked pop with a lease
  redis-cli -p "$P" tw.pop l BLOCK 20000 LEASE 600000 >"$tmp/b2" &
  bg+=($!)
  sleep 0.2
  redis-cli -p "$P" tw.add l a pay PX 50 >/dev/null
  wait "${bg[-1]}"
  bg=()
  expect "blocked pop with a lease" "$(printf 'a\npay')" "$(cat "$tmp/b2")"
  expect "leased" 1 "$(field "$P" l leased)"
  stop "$P"
}

part_many() {
  local P n=1000000 t0 mem
  start big
  P=$PORT
  t0=$(($(now_ms) + 3000))
  # the protocol itself (deadlines as strings: awk's %d may stop at 2^31)
  awk -v n=$n -v t="$t0" 'BEGIN { for (i = 0; i < n; i++) {
    d = sprintf("%.0f", t + i % 1000); id = sprintf("%d", i)
    printf "*6\r\n$6\r\nTW.ADD\r\n$3\r\nbig\r\n$%d\r\n%s\r\n$1\r\np\r\n", length(id), id
    printf "$4\r\nPXAT\r\n$%d\r\n%s\r\n", length(d), d } }' |
    redis-cli -p "$P" --pipe >"$tmp/pipe"
  expect_match "pipe: no errors" 'errors: 0, replies: 1000000' "$(tail -n 1 "$tmp/pipe")"
  expect "10^6 timers" $n "$(redis-cli -p "$P" tw.count big)"
  mem=$(redis-cli -p "$P" memory usage big)
  echo "test-redis: 10^6 timers in one key ($scheme): $((mem / n)) bytes per timer (MEMORY USAGE)"
  wait_for "all expired" $n field "$P" big ready
  local popped=0 k
  while :; do
    k=$(redis-cli -p "$P" tw.pop big COUNT 100000 | awk 'NR % 2 == 1 && $0 != ""' | tee -a "$tmp/ids" | wc -l)
    [ "$k" -gt 0 ] || break
    popped=$((popped + k))
  done
  expect "popped all" $n "$popped"
  expect "each once" $n "$(sort -u "$tmp/ids" | wc -l)"
  expect "key gone" 0 "$(redis-cli -p "$P" exists big)"
  stop "$P"
}

part_cluster() {
  local ports=() i k n=300 p
  for i in 1 2 3; do
    start "node$i" --cluster-enabled yes --cluster-config-file nodes.conf \
      --cluster-node-timeout 5000
    ports+=("$PORT")
  done
  redis-cli --cluster create "127.0.0.1:${ports[0]}" "127.0.0.1:${ports[1]}" \
    "127.0.0.1:${ports[2]}" --cluster-yes >"$tmp/create" 2>&1 ||
    { cat "$tmp/create"; fail "cluster create"; return; }
  for p in "${ports[@]}"; do
    wait_for "cluster up on $p" ok sh -c "redis-cli -p $p cluster info | sed -n 's/^cluster_state:\([a-z]*\).*/\1/p'"
  done
  # keys over every slot range, through a client that follows redirections
  for i in $(seq $n); do echo "TW.ADD k$i id$i pay$i PX 50"; done |
    redis-cli -c -p "${ports[0]}" >"$tmp/adds"
  expect "adds through the cluster" $n "$(grep -c '^1$' "$tmp/adds")"
  # one logical queue as hash-tagged sub-keys, one per shard of the queue
  for i in $(seq 64); do echo "TW.ADD jobs{$((i % 8))} j$i x PX 50"; done |
    redis-cli -c -p "${ports[0]}" >/dev/null
  local spread=0
  for p in "${ports[@]}"; do
    [ -n "$(redis-cli -p "$p" --scan --pattern 'jobs*')" ] && spread=$((spread + 1))
  done
  expect "the queue's sub-keys span nodes" 1 "$((spread >= 2))"
  # a node routes a key it does not own elsewhere: the key position is known
  local moved=0
  for i in $(seq 20); do
    case $(redis-cli -p "${ports[0]}" tw.count "k$i") in MOVED*) moved=1 ;; esac
  done
  expect "a key of another node is MOVED" 1 "$moved"
  # every node holds some, and each node pops its own once they expire
  : >"$tmp/popped"
  for p in "${ports[@]}"; do
    local keys
    keys=$(redis-cli -p "$p" --scan)
    expect "node $p holds keys" 1 "$([ -n "$keys" ] && echo 1 || echo 0)"
    for k in $keys; do
      wait_for "expired on $p" 0 field "$p" "$k" pending
      redis-cli -p "$p" tw.pop "$k" COUNT 1000 | awk 'NR % 2 == 1 && $0 != ""' >>"$tmp/popped"
    done
  done
  expect "each timer popped once" "$((n + 64))" "$(sort -u "$tmp/popped" | wc -l)"
  expect "no timer twice" "$((n + 64))" "$(wc -l <"$tmp/popped")"
  for p in "${ports[@]}"; do stop "$p"; done
}

case $part in
  commands | persistence | replication | blocking | many | cluster) "part_$part" ;;
  *) echo "test-redis: unknown part '$part'" >&2; exit 2 ;;
esac
echo "test-redis: $part ($scheme): $checks checks, $fails failed"
[ "$fails" -eq 0 ]
