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
callgrind_annotate --auto=no --threshold=100 "$1" 2>/dev/null | CG_LIB_RE=$re awk '
  BEGIN { re = ENVIRON["CG_LIB_RE"] }
  /PROGRAM TOTALS/ { x = $1; gsub(",", "", x); all = x; next }
  match($0, /%\) +[^ ]+/) {
    f = substr($0, RSTART, RLENGTH); sub(/^%\) +/, "", f)
    if (f ~ re) { x = $1; gsub(",", "", x); lib += x } }
  END { printf "%d %d\n", all, lib }'
