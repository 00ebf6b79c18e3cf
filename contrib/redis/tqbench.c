/*
 * tqbench -- the Redis module against the sorted-set delay queue, on one
 * server, from one hiredis client (scripts/redis-bench.sh runs it).
 *
 *   tqbench --port P --impl tw|zset --n N [--poll MS] [--probes M]
 *
 * For each implementation, on a fresh key with N pending timers (deadlines
 * an hour away, 16-byte payloads, ids "id<i>"):
 *
 *   add        N adds pipelined 1000 at a time, then 20,000 adds one
 *              request at a time: adds per second each way;
 *   memory     used_memory (INFO memory) after the N adds less before,
 *              per timer;
 *   pop        40,000 more timers made due at once (deadlines just past),
 *              then taken one per request (TW.POP; for the sorted set the
 *              delay-queue libraries' Lua pop with LIMIT 1, by EVALSHA):
 *              20,000 one request at a time (for the module, timed
 *              from the end of the adds: its expiry of all 40,000 is
 *              in it), 20,000 pipelined 1000 at a time; pops per
 *              second each way;
 *   lateness   M probe timers due over the next 2 s (added pipelined),
 *              taken as they come due: tw by TW.POP COUNT 100 BLOCK 1000,
 *              zset the way the delay-queue libraries do it, a Lua script
 *              that takes the due members (ZRANGEBYSCORE + ZREM) polled
 *              every --poll ms while none is due; lateness = the time the
 *              client has the timer less its deadline, p50/p99/max in ms.
 *
 * Prints one line of key=value pairs.  Client and server share the
 * machine's clock (CLOCK_REALTIME, as the server's Unix ms).
 */
#define _POSIX_C_SOURCE 200809L
#include <hiredis/hiredis.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *ZPOP =
    "local r = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2]) "
    "if #r > 0 then redis.call('ZREM', KEYS[1], unpack(r)) end return r";

static void die(const char *what, redisContext *c)
{
    fprintf(stderr, "tqbench: %s%s%s\n", what, c && c->err ? ": " : "", c && c->err ? c->errstr : "");
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t unix_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static redisReply *cmd(redisContext *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    if (r == NULL)
        die("command", c);
    if (r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "tqbench: %s\n", r->str);
        exit(1);
    }
    return r;
}

static long long used_memory(redisContext *c)
{
    redisReply *r = cmd(c, "INFO memory");
    const char *p = strstr(r->str, "used_memory:");
    long long v = p ? atoll(p + 12) : -1;
    freeReplyObject(r);
    return v;
}

static const char PAYLOAD[] = "0123456789abcdef"; /* 16 bytes */

/* Queue an add of (id, payload) at deadline: TW.ADD, or ZADD of the member
 * "id:payload". */
static void append_timer(redisContext *c, int tw, const char *key, const char *id,
                         const char *payload, long long deadline)
{
    if (tw) {
        redisAppendCommand(c, "TW.ADD %s %s %s PXAT %lld", key, id, payload, deadline);
    } else {
        char member[128];
        snprintf(member, sizeof member, "%s:%s", id, payload);
        redisAppendCommand(c, "ZADD %s %lld %s", key, deadline, member);
    }
}

static void append_add(redisContext *c, int tw, const char *key, long i, long long deadline)
{
    char id[32];
    snprintf(id, sizeof id, "id%ld", i);
    append_timer(c, tw, key, id, PAYLOAD, deadline);
}

/* Read k replies, none an error; with one_timer, each a pop's array of
 * exactly one timer. */
static void drain_replies(redisContext *c, long k, int one_timer)
{
    for (long j = 0; j < k; j++) {
        redisReply *r;
        if (redisGetReply(c, (void **)&r) != REDIS_OK)
            die("reply", c);
        if (r->type == REDIS_REPLY_ERROR) {
            fprintf(stderr, "tqbench: %s\n", r->str);
            exit(1);
        }
        if (one_timer && (r->type != REDIS_REPLY_ARRAY || r->elements != 1)) {
            fprintf(stderr, "tqbench: a pop did not take exactly one timer\n");
            exit(1);
        }
        freeReplyObject(r);
    }
}

static void drain(redisContext *c, long k) { drain_replies(c, k, 0); }
static void drain_pops(redisContext *c, long k) { drain_replies(c, k, 1); }

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Queue a pop of one due timer: TW.POP, or the Lua pop by its sha. */
static void append_pop(redisContext *c, int tw, const char *key, const char *sha)
{
    if (tw)
        redisAppendCommand(c, "TW.POP %s", key);
    else
        redisAppendCommand(c, "EVALSHA %s 1 %s %lld 1", sha, key,
                           (long long)(unix_us() / 1000));
}

/* Wait until the module has made `want` timers of key ready (at most about 10 s). */
static void wait_ready(redisContext *c, const char *key, long long want)
{
    for (int tries = 0; tries < 10000; tries++) {
        redisReply *r = cmd(c, "TW.INFO %s", key);
        long long ready = -1;
        for (size_t i = 0; i + 1 < r->elements; i += 2)
            if (r->element[i]->str && !strcmp(r->element[i]->str, "ready"))
                ready = r->element[i + 1]->integer;
        freeReplyObject(r);
        if (ready >= want)
            return;
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "tqbench: the due timers did not become ready\n");
    exit(1);
}

/* The deadline in a probe's payload or member: after the last ':'. */
static long long probe_deadline(const char *s)
{
    const char *p = strrchr(s, ':');
    return p ? atoll(p + 1) : 0;
}

int main(int argc, char **argv)
{
    int port = 6379, tw = 1, poll_ms = 100;
    long n = 10000, probes = 2000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port"))
            port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--impl"))
            tw = strcmp(argv[i + 1], "zset") != 0;
        else if (!strcmp(argv[i], "--n"))
            n = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--poll"))
            poll_ms = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--probes"))
            probes = atol(argv[i + 1]);
        else {
            fprintf(stderr, "tqbench: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    redisContext *c = redisConnect("127.0.0.1", port);
    if (c == NULL || c->err)
        die("connect", c);
    const char *key = tw ? "bench:tw" : "bench:zset";
    freeReplyObject(cmd(c, "DEL %s", key));
    long long far = unix_us() / 1000 + 3600 * 1000;

    /* add, pipelined, and memory */
    long long m0 = used_memory(c);
    double t0 = now_s();
    for (long i = 0; i < n; i += 1000) {
        long k = n - i < 1000 ? n - i : 1000;
        for (long j = 0; j < k; j++)
            append_add(c, tw, key, i + j, far + (i + j) % 100000);
        drain(c, k);
    }
    double piped = (double)n / (now_s() - t0);
    long long m1 = used_memory(c);

    /* add, one request at a time (ids past n: the key keeps n + 20000) */
    long single = 20000;
    t0 = now_s();
    for (long i = 0; i < single; i++) {
        append_add(c, tw, key, n + i, far);
        drain(c, 1);
    }
    double unpiped = (double)single / (now_s() - t0);

    /* pop: 2 * pops timers due at once, taken one per request */
    long pops = 20000;
    long long past = unix_us() / 1000 - 1;
    for (long i = 0; i < 2 * pops; i += 1000) {
        long k = 2 * pops - i < 1000 ? 2 * pops - i : 1000;
        for (long j = 0; j < k; j++) {
            char id[32];
            snprintf(id, sizeof id, "due%ld", i + j);
            append_timer(c, tw, key, id, PAYLOAD, past);
        }
        drain(c, k);
    }
    /* The module's expiry of all of them (on the server, after the adds)
     * is timed with the pops one at a time: the Lua pop searches at each
     * pop instead. */
    char sha[64] = "";
    if (!tw) {
        redisReply *r = cmd(c, "SCRIPT LOAD %s", ZPOP);
        snprintf(sha, sizeof sha, "%s", r->str);
        freeReplyObject(r);
    }
    t0 = now_s();
    if (tw)
        wait_ready(c, key, 2 * pops);
    for (long i = 0; i < pops; i++) {
        append_pop(c, tw, key, sha);
        drain_pops(c, 1);
    }
    double pop_single = (double)pops / (now_s() - t0);
    t0 = now_s();
    for (long i = 0; i < pops; i += 1000) {
        long k = pops - i < 1000 ? pops - i : 1000;
        for (long j = 0; j < k; j++)
            append_pop(c, tw, key, sha);
        drain_pops(c, k);
    }
    double pop_piped = (double)pops / (now_s() - t0);

    /* lateness: probes due over the next 2 s, among the pending timers */
    long long base = unix_us() / 1000 + 200;
    for (long i = 0; i < probes; i++) {
        long long d = base + (i * 2000) / probes;
        char id[32], payload[48];
        snprintf(id, sizeof id, "probe%ld", i);
        snprintf(payload, sizeof payload, "p:%lld", d);
        append_timer(c, tw, key, id, payload, d);
    }
    drain(c, probes);
    double *late = malloc((size_t)probes * sizeof *late);
    long got = 0, polls = 0;
    while (got < probes) {
        redisReply *r;
        if (tw) {
            r = cmd(c, "TW.POP %s COUNT 100 BLOCK 1000", key);
        } else {
            r = cmd(c, "EVAL %s 1 %s %lld 100", ZPOP, key, (long long)(unix_us() / 1000));
            polls++;
        }
        int64_t at = unix_us();
        size_t k = r->type == REDIS_REPLY_ARRAY ? r->elements : 0;
        for (size_t j = 0; j < k && got < probes; j++) {
            const redisReply *e = r->element[j];
            const char *s = tw ? e->element[1]->str : e->str;
            long long d = probe_deadline(s);
            if (d == 0)
                continue; /* not a probe */
            late[got++] = (double)(at - d * 1000) / 1000.0;
        }
        freeReplyObject(r);
        if (!tw && k < 100) {
            struct timespec ts = {poll_ms / 1000, (long)(poll_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    qsort(late, (size_t)probes, sizeof *late, cmp_d);
    char impl[32];
    snprintf(impl, sizeof impl, tw ? "tw" : "zset/%dms", poll_ms);
    printf("impl=%s n=%ld add_piped=%.0f add_single=%.0f pop_piped=%.0f pop_single=%.0f "
           "bytes_per_timer=%.1f late_p50=%.2f late_p99=%.2f late_max=%.2f polls=%ld\n",
           impl, n, piped, unpiped, pop_piped, pop_single,
           (double)(m1 - m0) / (double)n, late[probes / 2], late[(probes * 99) / 100],
           late[probes - 1], polls);
    free(late);
    freeReplyObject(cmd(c, "DEL %s", key));
    redisFree(c);
    return 0;
}
