/*
 * svcbench.h -- the timer service's benchmark (svcbench.c) as functions,
 * for twbench's `service` workload; twsvc is the same code with a main().
 */
#ifndef TWBENCH_SVCBENCH_H
#define TWBENCH_SVCBENCH_H

#include <stddef.h>
#include <stdint.h>

/* The targets, in twsvc's order: facility, refwheel, service, service_at,
 * service_restart, service_restart_at, inbox, locked, heap, heap_key,
 * heap_key_at, ordered, posix, timerfd;
 * each with a line for a legend. */
int svc_target_count(void);
const char *svc_target_name(int k);
const char *svc_target_what(int k);

/* One cell: million stop + start per second over `ms` milliseconds from
 * `threads` producer threads with n timers pending an hour out, and the
 * p50 and p99 of every 16th operation's latency, in ns.  status 0: ran;
 * 1: beyond what this system allows (POSIX timers, timerfds); 2: not run
 * (the ordered list beyond 10^4, or fewer timers than threads). */
struct svc_cell {
    int status;
    double mops;
    uint64_t p50, p99;
};
struct svc_cell svc_measure(int k, size_t n, unsigned threads, uint64_t ms);

#endif /* TWBENCH_SVCBENCH_H */
