#!/usr/bin/env bash
# Print "ALL LIB" for a callgrind output file: the instructions of the whole
# program, and the library's share of them, the self cost of every function
# whose source is under a src/ folder (inlined code included, wherever it
# was inlined).  The program and the library need debug information.
#
#   scripts/callgrind-ir.sh [--lib REGEX] CALLGRIND_OUT_FILE
#
# --lib REGEX counts instead the functions whose "file:function" name (as
# callgrind_annotate prints it) matches the awk regular expression REGEX:
# scripts/instr-count.sh passes '(^|/)bench/refwheel\.[ch]:' for twbench's
# reference wheel.  The default is '(^|/)src/[^:]*:'.
#
# scripts/instr-count.sh and scripts/server-bench.sh (part 4) use it.
set -euo pipefail
re='(^|/)src/[^:]*:'
if [ $# -eq 3 ] && [ "$1" = --lib ]; then
  re=$2
  shift 2
fi
[ $# -eq 1 ] || { echo "usage: callgrind-ir.sh [--lib REGEX] CALLGRIND_OUT_FILE" >&2; exit 2; }
# (the expression reaches awk through the environment: -v would take its
# backslashes as escapes)
#
# A library function's cost includes what the compiler inlined into it from
# the system's headers (a compiler intrinsic's header, such as
# emmintrin.h's 16-byte store in tw_arm_node()): callgrind files those lines
# under the header, so a line under /usr/ counts when its function also has
# lines under the library's sources.
callgrind_annotate --auto=no --threshold=100 "$1" 2>/dev/null | CG_LIB_RE=$re awk '
  BEGIN { re = ENVIRON["CG_LIB_RE"] }
  /PROGRAM TOTALS/ { x = $1; gsub(",", "", x); all = x; next }
  match($0, /%\) +[^ ]+/) {
    f = substr($0, RSTART, RLENGTH); sub(/^%\) +/, "", f)
    x = $1; gsub(",", "", x)
    i = index(f, ":"); fn = substr(f, i + 1)
    if (f ~ re) { lib += x; ours[fn] = 1 }
    else if (f ~ /^\/usr\//) sys[fn] += x }
  END {
    for (fn in sys) if (fn in ours) lib += sys[fn]
    printf "%d %d\n", all, lib }'
