#!/usr/bin/env bash
# Run `twbench --quick` and check what it wrote: the JSON has every workload,
# its numbers are finite and positive, and the report is complete:
#   - every workload of docs/benchmarks.md is there, with every target either
#     measured or saying why not (skipped, n/a, missing with the install
#     command);
#   - the report folder has report.html, summary.md and one well-formed SVG
#     per figure, and no temporary file;
#   - --rounds keeps one median per round, and --ratio prints its line;
#   - the counts: the JSON says where they come from or why there are none,
#     and a tiny `twbench --counts` run (callgrind, hierarchical and
#     refwheel on churn and expire at n = 10^3, about 10 s) gives every cell
#     a finite positive instruction count per operation, which its median,
#     the text tables, summary.md and report.html all show.
# The timing claims of the paper (ordered's start grows, the wheels' start
# and tick stay flat; Fig. 9's list grows, its Scheme 6 kernels do not) are
# printed with their figures, never asserted: one run on a loaded machine
# can bend any of them, and a check that fails on a busy machine is broken.
#
#   .ci/bench-check.sh [path/to/twbench]     (default build-release/bench/twbench)
set -euo pipefail
twbench=${1:-build-release/bench/twbench}
if [ ! -x "$twbench" ]; then
  echo "bench-check: no twbench at $twbench (build it first)" >&2
  exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
start=$(date +%s)
rm -rf "$dir/report" "$dir/twbench.json"
# Two rounds of scripts/redis-bench.sh's lines (its format: tqbench's), so
# that the report's redis section is checked without a Redis server.
for r in 1 2; do
  echo "scheme=heap impl=tw n=10000 add_piped=2${r}0000 add_single=2${r}000 pop_piped=3${r}0000" \
    "pop_single=3${r}000 bytes_per_timer=135.$r late_p50=0.5$r late_p99=1.2$r late_max=3.$r polls=0"
  echo "scheme=- impl=zset/10ms n=10000 add_piped=1${r}0000 add_single=1${r}000 pop_piped=7${r}000" \
    "pop_single=1${r}000 bytes_per_timer=137.$r late_p50=5.$r late_p99=11.$r late_max=14.$r polls=9"
done >"$dir/redis.txt"
"$twbench" --quick --redis "$dir/redis.txt" --json "$dir/twbench.json" --out "$dir/report" \
  >"$dir/stdout" 2>"$dir/stderr" || {
  echo "bench-check: twbench --quick failed:" >&2
  tail -n 20 "$dir/stderr" >&2
  exit 1
}
echo "bench-check: twbench --quick ran in $(($(date +%s) - start)) s"
python3 - "$dir/twbench.json" "$dir/report" <<'PY'
import json, math, os, sys
import xml.etree.ElementTree as ET

path, report = sys.argv[1], sys.argv[2]
with open(path) as f:
    j = json.load(f)
fail, slow = [], []
def check(cond, msg):
    if not cond:
        fail.append(msg)
def timing(cond, msg):  # a claim about figures: reported, not asserted
    slow.append(("holds  " if cond else "BENT   ") + msg)

check(j.get("tool") == "twbench", "tool is not twbench")
m = j.get("machine", {})
for k in ("cpu", "compiler", "flags", "date"):
    check(isinstance(m.get(k), str) and m[k], "machine.%s missing" % k)

# counts: from the CPU's counters, or unavailable with a reason
cn = j.get("counts") or {}
check(j.get("counts_mode") is False, "counts_mode is not false in a timed run")
check(cn.get("source") in (None, "perf_event"), "counts.source %r in a timed run" % cn.get("source"))
if cn.get("source") is None:
    check(cn.get("status") == "unavailable" and cn.get("reason"), "counts unavailable without a reason")
    print("bench-check: counts unavailable here: %s" % cn.get("reason"))

want = ["startstop", "churn", "churn-any", "restart", "restart-any", "expire", "expire-jump", "tcp", "idle", "tick", "tick-jump",
        "ttl-1", "ttl-1-stop", "ttl-8", "ttl-8-stop", "ttl-64", "ttl-64-stop",
        "ttl-8-fifo", "ttl-8-fifo-stop", "ttl-many", "ttl-many-stop", "ttl-sweep",
        "ttl-sweep-stop"]
have = [w["name"] for w in j["workloads"]]
for w in want:
    check(w in have, "workload %s missing" % w)

targets = {t["name"]: t for t in j["targets"]}
for t in ("heap", "hierarchical", "lawn", "lawn_scan", "hybrid"):
    check(t in targets, "target %s missing" % t)
for p in ("libev", "libuv", "libevent"):
    check(p in targets, "peer %s has no column" % p)
    if p in targets and targets[p]["status"] != "ok":
        check("apt-get install" in targets[p]["status"] or "failed" in targets[p]["status"]
              or "resolves" in targets[p]["status"],
              "peer %s unusable without saying why: %s" % (p, targets[p]["status"]))

def finite_pos(x):
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0

by = {}
for r in j["results"]:
    key = (r["workload"], r["target"], r["n"], r.get("ttls"))
    by[key] = r
    if r["status"] != "ok":
        check(r.get("reason"), "%s: status %s without a reason" % (key, r["status"]))
        continue
    for k in ("median", "min", "max", "bytes_per_timer"):
        check(finite_pos(r.get(k)), "%s: %s not finite and positive: %r" % (key, k, r.get(k)))
    check(all(finite_pos(s) for s in r["samples"]), "%s: a sample is not finite and positive" % (key,))
    check(r["min"] <= r["median"] <= r["max"], "%s: min <= median <= max fails" % (key,))
    if cn.get("source") == "perf_event":
        c = r.get("counts") or {}
        check(c.get("source") == "perf_event" and finite_pos(c.get("instructions_per_op")),
              "%s: no instruction count from perf_event: %r" % (key, c))
    else:
        check("counts" not in r, "%s: counts without a source" % (key,))

# hierarchical (the reference) ran everywhere it applies
for w in want:
    rows = [r for r in j["results"] if r["workload"] == w and r["target"] == "hierarchical"]
    check(rows and all(r["status"] == "ok" for r in rows), "hierarchical did not run on %s" % w)
for w in want:
    if w.startswith("ttl-sweep"):
        continue  # the sweep measures twheel's TTL schemes only
    for p in ("libev", "libuv", "libevent"):
        if p in targets and targets[p]["status"] == "ok":
            rows = [r for r in j["results"] if r["workload"] == w and r["target"] == p]
            check(rows and all(r["status"] == "ok" for r in rows), "%s did not run on %s" % (p, w))

slopes = {(s["workload"], s["target"]): s for s in j["slopes"]}
def slope(w, t):
    s = slopes.get((w, t))
    return s["slope"] if s else None
s = slope("startstop", "ordered")
check(s is not None, "ordered startstop has no slope")
timing(s is None or s > 0.6, "ordered startstop grows (O(n) start): slope %r > 0.6" % s)
for t in ("wheel", "hashed", "hierarchical", "heap"):
    for w in ("startstop", "tick"):
        s = slope(w, t)
        if s is not None:
            timing(s < 0.6, "%s %s stays flat (O(1) or O(log n)): slope %.2f < 0.6" % (t, w, s))
            timing(not slopes[(w, t)]["contradiction"], "%s %s: twbench saw no contradiction of the paper" % (t, w))

sv = j.get("service", {})
if sv.get("status") == "ok":
    cells = sv.get("cells", [])
    check(len(cells) > 0, "service: no cells")
    for c in cells:
        if c.get("status") == "ok":
            check(all(finite_pos(c.get(k)) for k in ("mops", "p50_ns", "p99_ns")),
                  "service %s T=%s n=%s: a value is not finite and positive" % (c.get("target"), c.get("threads"), c.get("n")))
        else:
            check(c.get("status") == "limit", "service %s: status %r" % (c.get("target"), c.get("status")))
    for t in ("facility", "refwheel", "service", "service_at", "service_restart",
              "service_restart_at", "locked", "heap", "heap_key", "heap_key_at", "posix", "timerfd"):
        check(any(c.get("target") == t for c in cells), "service: target %s missing" % t)
else:
    fail.append("service not run: %s" % sv.get("status"))
rd = j.get("redis", {})
check(rd.get("status") == "ok", "redis: status %r with --redis" % rd.get("status"))
if rd.get("status") == "ok":
    rows = rd.get("rows", [])
    check(len(rows) == 2, "redis: %d rows, the fixture has 2" % len(rows))
    check(all(r.get("rounds") == 2 for r in rows), "redis: a row without its 2 rounds")
    # the median of two rounds is the lower one (redisres.c)
    want = {"twheel (heap)": 310000, "sorted set, polled every 10ms": 71000}
    for r in rows:
        name = r.get("implementation")
        check(r.get("pops_per_s_pipelined") == want.get(name),
              "redis %s: pops/s pipelined %r, the fixture's median is %r"
              % (name, r.get("pops_per_s_pipelined"), want.get(name)))
        check(all(finite_pos(r.get(k)) for k in ("adds_per_s_pipelined", "adds_per_s_single",
                                                  "pops_per_s_pipelined", "pops_per_s_single",
                                                  "bytes_per_timer", "lateness_ms_max")),
              "redis %s n=%s: a value is not finite and positive" % (name, r.get("n")))
f9 = j.get("fig9", {})
if f9.get("status") == "ok":
    ch = f9["checks"]
    timing(ch["a_linear"], "fig9: (a) the BSD list grows linearly: slope %r" % f9.get("a_bsd_list_slope"))
    timing(ch["b_c_flat"], "fig9: (b) and (c) stay flat: slopes %r %r" % (f9.get("b_scheme6_hash_slope"), f9.get("c_scheme6_handle_slope")))
    timing(f9["c_over_b"] < 1.10, "fig9: (c) handles no dearer than (b) hashing (within 10%%): (c)/(b) = %.2f" % f9["c_over_b"])
    for k in ("a_bsd_list", "b_scheme6_hash", "c_scheme6_handle"):
        check(all(finite_pos(x) for x in f9[k]), "fig9 %s: a value is not finite and positive" % k)
else:
    print("bench-check: fig9 not checked: %s" % f9.get("status"))

# the report folder
check(os.path.isfile(os.path.join(report, "report.html")), "report.html missing")
check(os.path.isfile(os.path.join(report, "twbench.json")), "report's twbench.json missing")
for name in ("report.html", "summary.md"):
    text = open(os.path.join(report, name)).read() if os.path.isfile(os.path.join(report, name)) else ""
    check(all(h in text for h in ("adds/s pipelined", "pops/s one by one", "310000")),
          "%s: the redis table lacks a column or the fixture's figures" % name)
for w in j["workloads"]:
    svg = os.path.join(report, w["plot"])
    if not os.path.isfile(svg):
        fail.append("plot %s missing" % w["plot"])
        continue
    try:
        root = ET.parse(svg).getroot()
        check(root.tag.endswith("svg"), "%s is not an SVG" % w["plot"])
    except ET.ParseError as e:
        fail.append("%s is not well-formed: %s" % (w["plot"], e))
check(os.path.isfile(os.path.join(report, "summary.md")), "summary.md missing")
check(not [f for f in os.listdir(report) if ".tmp-" in f], "temporary files left in the report folder")

print("bench-check: the paper's timing claims in this one run (information only):")
for x in slow:
    print("  " + x)
if fail:
    print("bench-check: %d problem(s) in what twbench wrote:" % len(fail))
    for x in fail:
        print("  - " + x)
    sys.exit(1)
print("bench-check: %d results, %d workloads, %d slopes: the JSON and the report are complete"
      % (len(j["results"]), len(have), len(slopes)))
PY

# Paired rounds (--rounds, --ratio): every cell keeps one median per round,
# its median is theirs, and the ratio line is printed.
"$twbench" --workload churn --scheme list,hierarchical --n 1e3 --reps 1 --rounds 3 \
  --ratio hierarchical/list --json "$dir/rounds.json" --out '' >"$dir/rounds.out" 2>"$dir/rounds.err" || {
  echo "bench-check: twbench --rounds failed:" >&2
  tail -n 20 "$dir/rounds.err" >&2
  exit 1
}
grep -q "hierarchical / list: " "$dir/rounds.out" || {
  echo "bench-check: no --ratio line in the --rounds output" >&2
  exit 1
}
python3 - "$dir/rounds.json" <<'PY'
import json, statistics, sys
j = json.load(open(sys.argv[1]))
bad = []
for r in j["results"]:
    rm = r.get("round_medians")
    if r["status"] != "ok" or not rm or len(rm) != 3 or abs(statistics.median(rm) - r["median"]) > 1e-9 * r["median"]:
        bad.append((r["workload"], r["target"], rm, r["median"]))
if bad or not j["results"]:
    print("bench-check: --rounds results wrong: %r" % bad)
    sys.exit(1)
print("bench-check: --rounds: %d cells with 3 round medians each: all good" % len(j["results"]))
PY

# --counts: instructions per operation under callgrind instead of times.
start=$(date +%s)
"$twbench" --counts --scheme hierarchical,refwheel --n 1e3 --workload churn,expire \
  --json "$dir/counts.json" --out "$dir/counts-report" >"$dir/counts.out" 2>"$dir/counts.err" || {
  echo "bench-check: twbench --counts failed (valgrind installed when twbench was built?):" >&2
  tail -n 20 "$dir/counts.err" >&2
  exit 1
}
echo "bench-check: twbench --counts ran in $(($(date +%s) - start)) s"
python3 - "$dir/counts.json" "$dir/counts-report" "$dir/counts.out" <<'PY'
import json, math, os, re, sys
path, report, out = sys.argv[1:4]
j = json.load(open(path))
fail = []
def check(cond, msg):
    if not cond:
        fail.append(msg)
def finite_pos(x):
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0

check(j.get("counts_mode") is True, "counts_mode is not true")
check((j.get("counts") or {}).get("source") == "callgrind", "counts.source is not callgrind")
want = {(w, t) for w in ("churn", "churn-any", "expire", "expire-jump") for t in ("hierarchical", "refwheel")}
have, instr = set(), {}
for r in j["results"]:
    key = (r["workload"], r["target"])
    have.add(key)
    c = r.get("counts") or {}
    if r["status"] != "ok" or c.get("source") != "callgrind" or not finite_pos(c.get("instructions_per_op")):
        fail.append("%s n=%s: no finite positive instruction count: %s %r" % (key + (r["n"], r["status"], c)))
        continue
    instr[key] = c["instructions_per_op"]
    check(r["unit"].startswith("instr "), "%s: unit %r, not instructions" % (key, r["unit"]))
    check(abs(r["median"] - c["instructions_per_op"]) <= 1e-6 * r["median"],
          "%s: the figure %r is not the instruction count %r" % (key, r["median"], c["instructions_per_op"]))
    check(finite_pos(c.get("l1d_misses_per_op")) or c.get("l1d_misses_per_op") == 0,
          "%s: no D1 miss count: %r" % (key, c))
check(want <= have, "cells missing: %s" % sorted(want - have))

# The text tables, summary.md and report.html show the counts.
text = open(out).read()
check("counts per op (callgrind" in text, "stdout has no counts table")
md = open(os.path.join(report, "summary.md")).read()
check("instructions per operation" in md, "summary.md does not say its figures are instructions")
rows, head, wl = {}, None, ""
for line in md.split("\n"):
    if line.startswith("| workload | n | per op |"):
        head = [c.strip().strip("`").rstrip("†").strip("`") for c in line.strip("|").split("|")]
    elif head and line.startswith("|") and not line.startswith("|---"):
        cells = [c.strip() for c in line.strip("|").split("|")]
        wl = cells[0] or wl
        if cells[2] == "instructions":
            for name, v in zip(head[3:], cells[3:]):
                rows[(wl, name)] = v
    elif head and not line.startswith("|"):
        head = None
for key, v in instr.items():
    shown = rows.get(key)
    tol = 0.006 if v < 10 else 0.051 if v < 1e4 else 0.51
    check(shown is not None and abs(float(shown) - v) <= tol,
          "summary.md: %s shows %r, the JSON %.3f" % (key, shown, v))
html = open(os.path.join(report, "report.html")).read()
check(html.count('<table class="cnt">') == 4, "report.html: not one counts table per workload")
check("instructions per operation" in html, "report.html does not say its figures are instructions")
if fail:
    print("bench-check: %d problem(s) in what twbench --counts wrote:" % len(fail))
    for x in fail:
        print("  - " + x)
    sys.exit(1)
for w in ("churn", "churn-any", "expire", "expire-jump"):
    h, r = instr.get((w, "hierarchical")), instr.get((w, "refwheel"))
    print("bench-check: --counts %-11s n = 1e3: hierarchical %.1f, refwheel %.1f instructions "
          "per op (%.2fx)" % (w, h, r, h / r))
print("bench-check: --counts: %d cells, each with its instructions per op in the JSON, the "
      "tables, summary.md and report.html" % len(instr))
PY
