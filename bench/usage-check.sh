#!/bin/sh
# Bad input to twbench, twbench advise, twfloor and twsvc: each case must
# exit 2 at once with exactly one line on stderr that names the option at
# fault, write nothing to stdout, and leave no output file behind.
#
#   bench/usage-check.sh path/to/twbench path/to/twfloor path/to/twsvc
twbench=$1
twfloor=$2
twsvc=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0

# case PROGRAM WORD-EXPECTED-IN-THE-LINE ARGS...  (with $env set: under env $env)
env=
case_() {
  prog=$1
  want=$2
  shift 2
  if [ -n "$env" ]; then
    env "$env" "$prog" "$@" >"$dir/out" 2>"$dir/err"
  else
    "$prog" "$@" >"$dir/out" 2>"$dir/err"
  fi
  rc=$?
  lines=$(wc -l <"$dir/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$dir/out" ] ||
     ! grep -q -- "$want" "$dir/err"; then
    echo "usage-check: $(basename "$prog") $*: exit $rc, $lines line(s) on stderr," \
         "want exit 2 and one line naming '$want':" >&2
    sed 's/^/  | /' "$dir/err" >&2
    fails=$((fails + 1))
  fi
}

# Each twbench case names a tiny run besides the bad option, so that a
# regression that accepted it would measure for a second, not minutes.
case_ "$twbench" "--workload" --scheme heap --n 1e3 --out '' --workload nosuch
case_ "$twbench" "churn-any" --scheme heap --n 1e3 --out '' --workload nosuch  # lists every workload
case_ "$twbench" "--workload" --scheme heap --n 1e3 --out '' --workload ''
case_ "$twbench" "--scheme" --workload tick --n 1e3 --out '' --scheme nosuch
case_ "$twbench" "refwheel" --workload tick --n 1e3 --out '' --scheme nosuch  # lists every target
case_ "$twbench" "--n" --workload tick --scheme heap --out '' --n 0
case_ "$twbench" "--n" --workload tick --scheme heap --out '' --n 4e9
case_ "$twbench" "--n" --workload tick --scheme heap --out '' --n 1e3x
case_ "$twbench" "--reps" --workload tick --scheme heap --n 1e3 --out '' --reps 0
case_ "$twbench" "--rounds" --workload tick --scheme heap --n 1e3 --out '' --rounds 99
case_ "$twbench" "--ratio" --workload tick --scheme heap --n 1e3 --out '' --ratio nosuch
case_ "$twbench" "--ratio" --workload tick --scheme heap --n 1e3 --out '' --ratio heap/libev
case_ "$twbench" "--ratio" --workload tick --scheme heap --n 1e3 --out '' --ratio heap/refwheel
case_ "$twbench" "--seed" --workload tick --scheme heap --n 1e3 --out '' --seed -3
case_ "$twbench" "--seed" --workload tick --scheme heap --n 1e3 --out '' --seed 99999999999999999999
case_ "$twbench" "--nosuch" --workload tick --scheme heap --n 1e3 --out '' --nosuch
case_ "$twbench" "--workload" --scheme heap --n 1e3 --out '' --workload
case_ "$twbench" "--quick" --workload tick --scheme heap --n 1e3 --out '' --full --quick
case_ "$twbench" "--json" --workload tick --n 1e3 --json "$dir/no/such/dir/x.json" --out ''
case_ "$twbench" "--json" --workload tick --n 1e3 --json '' --out ''
case_ "$twbench" "--redis" --workload tick --n 1e3 --out '' --redis "$dir/no/such/file"
printf 'impl=tw n=x\n' >"$dir/garbage.txt"
case_ "$twbench" "--redis" --workload tick --n 1e3 --out '' --redis "$dir/garbage.txt"
case_ "$twbench" "--out" --workload tick --n 1e3 --out /proc/twbench-no
case_ "$twbench" "--out" --workload tick --n 1e3 --out "$dir/no/such/dir"
case_ "$twbench" "--counts" --workload tick --scheme heap --n 1e3 --out '' --counts=yes
# --counts without valgrind on PATH (or built without its headers): refused
# before anything runs
env=PATH=/nonexistent-twbench
case_ "$twbench" "--counts" --counts --workload tick --scheme heap --n 1e3 --out ''
env=
# --counts under a valgrind it did not start itself (memcheck here); not
# for a sanitizer build, which valgrind cannot run
if command -v valgrind >/dev/null 2>&1 &&
   ! { command -v ldd >/dev/null 2>&1 && ldd "$twbench" 2>/dev/null | grep -q 'lib[at]san'; }; then
  case_ valgrind "--counts" -q "$twbench" --counts --workload tick --scheme heap --n 1e3 --out ''
fi
case_ "$twbench" "--timers" advise --timers 0
case_ "$twbench" "--ttls" advise --ttls 30x
case_ "$twbench" "--tick-rate" advise --tick-rate 0
case_ "$twbench" "--nosuch" advise --nosuch 1
case_ "$twbench" "--stopped" advise --stopped ''
case_ "$twbench" "--intervals" advise --intervals 5s
case_ "$twbench" "--tick or --tick-rate" advise --tick 1ms --tick-rate 10
case_ "$twbench" "--tick or --tick-rate" advise --tick 1ms --tick 2ms
case_ "$twfloor" "--n" --n 0
case_ "$twfloor" "--reps" --reps 1000
case_ "$twfloor" "--scheme" --scheme nosuch
case_ "$twfloor" "--pad" --pad
case_ "$twfloor" "--nosuch" --nosuch 1
# twsvc: each value checked as it is read, the service's configuration
# before the first table
case_ "$twsvc" "--threads" --threads 0 --lateness 0
case_ "$twsvc" "--threads" --threads 1,x --lateness 0
case_ "$twsvc" "--n" --n '' --lateness 0
case_ "$twsvc" "--ms" --ms -5 --lateness 0
case_ "$twsvc" "--lateness" --lateness 1e3x
case_ "$twsvc" "--slots" --slots abc --lateness 0
case_ "$twsvc" "--ttls" --ttls 2.5e6 --lateness 0
case_ "$twsvc" "--slots 3:" --slots 3 --n 1e3 --threads 1 --ms 1 --lateness 0
case_ "$twsvc" "--shards 0 " --shards 0 --n 1e3 --threads 1 --ms 1 --lateness 0
case_ "$twsvc" "--scheme wheel " --scheme wheel --n 1e3 --threads 1 --ms 1 --lateness 0
case_ "$twsvc" "--scheme" --scheme nosuch --lateness 0
case_ "$twsvc" "--placement" --placement nosuch --lateness 0
case_ "$twsvc" "--cores" --cores 0
case_ "$twsvc" "--cores" --cores 1e9

if [ -e /proc/twbench-no ] || [ -e "$dir/no" ]; then
  echo "usage-check: a refused output path was created" >&2
  fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] && echo "usage-check: every bad input refused on one line, exit 2"
exit "$fails"
