#!/usr/bin/env bash
# Print "ALL LIB" for a callgrind output file: the instructions of the whole
# program, and the library's share of them, the self cost of every function
# whose source is under a src/ folder (inlined code included, wherever it
# was inlined).  The program and the library need debug information.
#
#   scripts/callgrind-ir.sh CALLGRIND_OUT_FILE
#
# scripts/instr-count.sh and scripts/server-bench.sh (part 4) use it.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: callgrind-ir.sh CALLGRIND_OUT_FILE" >&2; exit 2; }
callgrind_annotate --auto=no --threshold=100 "$1" 2>/dev/null | awk '
  /PROGRAM TOTALS/ { x = $1; gsub(",", "", x); all = x; next }
  match($0, /%\) +[^ ]+/) {
    f = substr($0, RSTART, RLENGTH); sub(/^%\) +/, "", f)
    if (f ~ /(^|\/)src\/[^:]*:/) { x = $1; gsub(",", "", x); lib += x } }
  END { printf "%d %d\n", all, lib }'
