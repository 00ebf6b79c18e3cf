/*
 * counters.h -- counts that do not move with the machine's load, taken over
 * exactly the phases a workload times: instructions, cycles and L1 data
 * misses of twbench's own thread.
 *
 * Two sources, one interface:
 *
 *   perf_event  the CPU's counters through perf_event_open(2), user space
 *               only (the kernel and the hypervisor excluded): instructions,
 *               cycles and L1D read misses, one group enabled and disabled
 *               around each timed phase.  Where the kernel refuses (no PMU
 *               in a VM, a strict kernel.perf_event_paranoid), the counts
 *               are unavailable and counters_why() says why.
 *   callgrind   `twbench --counts`: the run re-executes itself under
 *               valgrind's callgrind, which counts instructions and its
 *               simulated D1 misses (reads and writes) while collection is
 *               toggled on, around the same phases, and dumps them after
 *               each window's phases to a file this unit reads back.
 *
 * Both count what runs between the two calls around a phase: the target's
 * calls and the harness's own loop (its random draws, its loop counter),
 * and the two clock reads that delimit the phase.
 *
 * A workload (workloads.h) calls counters_begin() just before it reads the
 * clock at the start of a timed phase, counters_end() just after it reads
 * the clock at its end, so that a count never lands inside the nanoseconds,
 * and counters_take() once a window's phases of one figure are over.  With
 * no source all three return at once; they are never called inside a timed
 * interval.
 */
#ifndef TWBENCH_COUNTERS_H
#define TWBENCH_COUNTERS_H

#include <stddef.h>

/* A window's counts over the phases of one figure, totals (not per
 * operation); NAN where not counted. */
struct wl_counts {
    double instr;          /* instructions retired (callgrind: Ir) */
    double cycles;         /* core cycles (perf_event only) */
    double l1d;            /* perf_event: L1D read misses; callgrind: D1mr + D1mw */
};

enum counts_source { COUNTS_NONE, COUNTS_PERF, COUNTS_CALLGRIND };

/* Choose the source, once, before any workload runs: callgrind when
 * `callgrind` is set (the --counts child, under valgrind), else the
 * hardware counters if the kernel allows them.  Returns the source. */
enum counts_source counters_init(int callgrind);
/* The source chosen; why there are no counts (COUNTS_NONE, else ""). */
enum counts_source counters_source(void);
const char *counters_why(void);
/* "perf_event", "callgrind" or NULL. */
const char *counters_source_name(void);
/* Which of the three counts the source gives. */
int counters_have_cycles(void);
int counters_have_l1d(void);
/* What the L1D figure counts, in two words: "L1D read misses" (perf_event),
 * "D1 misses" (callgrind: its simulated L1 data cache, reads and writes). */
const char *counters_l1d_name(void);

/* The counts of this run: bit 1 << k for count k (0 instructions, 1
 * cycles, 2 L1D misses), 0 for none; count k in a word or two; "counts:
 * ..." in a sentence: where the counts come from, or why there are none. */
int counts_kinds(void);
const char *counts_kind_name(int k);
const char *counts_line(char *buf, size_t len);

/* Count from here (just before a timed phase's first clock read). */
void counters_begin(void);
/* Stop counting (just after the phase's last clock read). */
void counters_end(void);
/* Everything counted since the last take, into *out (NAN without a source);
 * `label` names the window in callgrind's dump. */
void counters_take(struct wl_counts *out, const char *label);

/* --counts: valgrind with callgrind and the client-request headers, at build
 * time (TW_HAVE_CALLGRIND)?  1 if built in. */
int counters_callgrind_built(void);
/* Are we the --counts child, under callgrind?  1 if so; 0 if not under
 * valgrind; -1 (with *why) under valgrind but not as twbench's own child. */
int counters_under_callgrind(const char **why);
/* The --counts parent: run argv again under callgrind, wait and return its
 * exit status.  Usage errors (no valgrind, not built in) exit 2 first. */
int counters_reexec(int argc, char **argv);

#endif /* TWBENCH_COUNTERS_H */
