#!/usr/bin/env bash
# Paste a benchmark run's summary.md into the docs, between the markers
#   <!-- BEGIN twbench summary.md --> and <!-- END twbench summary.md -->
#
#   scripts/update-figures.sh README.md twbench-report/summary.md --table
#       the README: the run's first line (machine, date, source, command)
#       and its table of every target at the largest n, with its notes
#   scripts/update-figures.sh docs/benchmarks.md twbench-report/summary.md
#       the whole summary (from ./scripts/bench.sh --full)
set -euo pipefail
if [ $# -lt 2 ] || [ ! -f "$1" ] || [ ! -f "$2" ]; then
  echo "usage: scripts/update-figures.sh DOC.md SUMMARY.md [--table]" >&2
  exit 2
fi
python3 - "$@" <<'PY'
import sys
doc, summary = sys.argv[1], sys.argv[2]
table_only = len(sys.argv) > 3 and sys.argv[3] == "--table"
text = open(summary).read().strip("\n")
if table_only:
    lines = text.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("Every target at n"))
    text = lines[0] + "\n\n" + "\n".join(lines[start:])
begin, end = "<!-- BEGIN twbench summary.md -->", "<!-- END twbench summary.md -->"
d = open(doc).read()
if d.count(begin) != 1 or d.count(end) != 1 or d.index(begin) > d.index(end):
    sys.exit("update-figures: %s needs one %s ... %s pair" % (doc, begin, end))
a = d.index(begin) + len(begin)
b = d.index(end)
open(doc, "w").write(d[:a] + "\n" + text + "\n" + d[b:])
print("update-figures: %s: pasted %d lines of %s" % (doc, text.count("\n") + 1, summary))
PY
