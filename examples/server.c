/*
 * server.c -- a single-threaded epoll HTTP/1.1 keep-alive server whose
 * connections are closed by twheel timers, as nginx's keepalive_timeout
 * and client_header_timeout close them.
 *
 *   server [--port N] [--bind ADDR] [--scheme NAME] [--tick-us N]
 *          [--idle-ms N] [--header-ms N] [--slack-ms N] [--no-timers]
 *          [--port-file PATH] [--max-conns N]
 *
 * Each connection has one timer, in one of two roles:
 *   header  from the accept, or from the first byte of a request that one
 *           read did not complete, until the request's header is complete:
 *           --header-ms (default 10000); a client that trickles a header
 *           byte by byte is closed by it (slowloris);
 *   idle    from the last response until the next request's first byte:
 *           --idle-ms (default 5000), the keep-alive timeout.
 * A request that arrives whole (the common case) costs one timer call: the
 * idle timer is re-armed after the answer (tw_start re-arms a pending
 * timer); the header role is taken only by a request split over reads.
 * Requests: GET, HTTP/1.0 or 1.1, pipelined or not; the answer is
 * a small fixed text.  "Connection: close" (or HTTP/1.0 without
 * keep-alive) closes after the answer; anything else that is not a
 * request gets 400 and a close; a header over 4 KiB gets 431 and a close.
 *
 * A connection that sends requests faster than it reads the answers is
 * read no further until its answers have gone out (its timer still runs).
 *
 * The loop is epoll_pwait2() with the clock layer's timeout in ns (rounded
 * up: no timer fires early; epoll_wait() in whole ms on kernels before
 * 5.11), a clock update before the wait and after it, the events, then
 * the timers due: tw_collect() and tw_get_expired(), the pull form, so
 * that no callback runs inside tw_advance().  A timer that cannot be
 * started (the basic wheel's range, or out of memory) closes its
 * connection, which is counted: a connection without a timer would never
 * be closed.  When descriptors run out, the listening socket is left
 * alone until a connection closes, or for 100 ms.  SIGUSR1 prints the
 * counters; SIGINT or SIGTERM closes every connection (stopping its
 * timer), prints them and exits 0.  --no-timers runs the same server
 * without any timer, for comparison.  (The time twheel takes per request
 * is counted, in instructions, by scripts/server-bench.sh under callgrind:
 * the server does not time itself.)
 */
#define _GNU_SOURCE
#include <twheel.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define IN_MAX 4096
#define OUT_MAX 4096

static const char reply[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n"
                            "\r\nHello, world\n";
static const char reply_close[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                                  "Content-Length: 13\r\nConnection: close\r\n\r\nHello, world\n";
static const char bad[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
static const char too_big[] = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n"
                              "Connection: close\r\n\r\n";
/* Room for any answer: a request is served only when this much is left
 * in the output. */
#define ANSWER_MAX 128
_Static_assert(sizeof reply - 1 <= ANSWER_MAX && sizeof reply_close - 1 <= ANSWER_MAX &&
                   sizeof bad - 1 <= ANSWER_MAX && sizeof too_big - 1 <= ANSWER_MAX,
               "every answer fits in ANSWER_MAX");

struct conn {
    struct conn *next, *prev; /* every open connection, for the exit */
    int fd;
    int closing;            /* close once the output is written */
    int bad;                /* ... for a bad request (400, 431) */
    uint32_t events;        /* the epoll events asked for */
    int phase;              /* the timer's role: PH_HEADER or PH_IDLE */
    uint64_t idle_ns;       /* the reading the idle timer counts from */
    struct tw_timer timer;
    size_t in_len, out_len, out_off;
    char in[IN_MAX];
    char out[OUT_MAX];
};

static struct {
    uint64_t accepted, open, requests, wakeups, closed_idle, closed_header, closed_client,
        closed_bad, closed_exit, closed_timer, max_open, accept_paused;
} st;

enum { PH_HEADER, PH_IDLE };

static struct {
    const char *bind, *port_file;
    int port, no_timers;
    uint64_t idle_ms, header_ms, slack_ms, tick_us;
    enum tw_scheme scheme;
    long max_conns;
} opt = {"127.0.0.1", NULL, 8080, 0, 5000, 10000, 0, 1000, TW_HIERARCHICAL, 1 << 20};

/* The idle timers' lateness as the server sees it: the time of the close
 * minus (its start reading + the timeout), in 10 us steps up to 1 s. */
#define LATE_STEP_NS 10000u
#define LATE_BINS 100000
static uint64_t late_hist[LATE_BINS + 1];
static uint64_t late_n, late_early;

static struct tw *tw;
static struct tw_clock clk;
static int ep, lfd;
static int accepting = 1; /* lfd in the epoll set (0: out of descriptors) */
static struct conn conns; /* the list's head (its buffers unused) */

/* The time on CLOCK_MONOTONIC, in ns: when an idle timer fires, against
 * when it was due (the lateness SIGUSR1 prints). */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "server: %s '%s' (server --help)\n", msg, arg);
    exit(2);
}

/* The lateness at quantile q (0..1), in ms. */
static double late_at(double q)
{
    uint64_t n = late_n - late_early, want = (uint64_t)(q * (double)n), seen = 0;
    if (want >= n)
        want = n - 1;
    for (unsigned b = 0; b <= LATE_BINS; b++)
        if ((seen += late_hist[b]) > want)
            return (double)b * LATE_STEP_NS / 1e6;
    return 0;
}

static void print_counters(FILE *f)
{
    fprintf(f,
            "server: accepted %llu, open %llu (max %llu), requests %llu, timers pending %zu, "
            "wake-ups %llu, closed by idle timer %llu, by header timer %llu, by client (or at "
            "its request) %llu, "
            "bad requests %llu, at exit %llu, for want of a timer %llu, accepts paused %llu, "
            "twheel memory %zu bytes\n",
            (unsigned long long)st.accepted, (unsigned long long)st.open,
            (unsigned long long)st.max_open, (unsigned long long)st.requests,
            tw ? tw_count(tw) : (size_t)0, (unsigned long long)st.wakeups,
            (unsigned long long)st.closed_idle, (unsigned long long)st.closed_header,
            (unsigned long long)st.closed_client, (unsigned long long)st.closed_bad,
            (unsigned long long)st.closed_exit, (unsigned long long)st.closed_timer,
            (unsigned long long)st.accept_paused, tw ? tw_memory(tw) : (size_t)0);
    if (late_n)
        fprintf(f, "server: idle timers fired %llu, lateness as the server sees it: p50 %.2f ms, "
                   "p99 %.2f ms, max %.2f ms, early %llu\n",
                (unsigned long long)late_n, late_at(0.5), late_at(0.99), late_at(1.0),
                (unsigned long long)late_early);
    fflush(f);
}

/* ------------------------------------------------------------- timers */

/* (Re-)arm the connection's timer in a role (a pending one is moved),
 * from a fresh reading of the clock: a timeout counts from now, not from
 * the loop's wake-up, since a long batch of events (10,000 accepts in one)
 * must not shorten it.  tw_clock_start() counts from the clock's cached
 * reading; a reading is about 30 ns, a timer start a few.  The basic
 * wheel takes intervals up to its range from the facility's time, which
 * trails the clock by the wait since the last collect: if it refuses,
 * the facility is brought to the clock by tw_collect(), which runs no
 * callback (the timers it finds due wait on its queue for the loop), and
 * asked again.  The loop runs the timers through that queue too, never
 * from inside tw_advance(), so that a start from a timer's callback may
 * collect as well.  Returns 0, or the error that leaves the connection
 * with the timer it had: the caller closes it. */
static int arm(struct tw_timer *t, uint64_t ns)
{
    tw_clock_update(&clk);
    int rc = tw_clock_start(&clk, tw, t, ns);
    if (rc == TW_ERANGE && tw_collect(tw, tw_clock_now(&clk)) >= 0)
        rc = tw_clock_start(&clk, tw, t, ns);
    return rc;
}

static int timer_start(struct conn *c, int phase)
{
    if (opt.no_timers) {
        c->phase = phase;
        return 0;
    }
    int rc = arm(&c->timer, TW_MSEC(phase == PH_IDLE ? opt.idle_ms : opt.header_ms));
    if (rc != 0)
        return rc;
    c->phase = phase;
    if (phase == PH_IDLE)
        c->idle_ns = tw_clock_now_ns(&clk);
    return 0;
}

/* ------------------------------------------------------------- connections */

/* The listening socket back in the epoll set, if it was taken out. */
static void resume_accepting(void)
{
    if (!accepting) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &lfd};
        accepting = epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev) == 0;
    }
}

/* While accepts are paused, a try again every ACCEPT_RETRY_MS, for when
 * no connection of ours will close (the descriptors are held elsewhere,
 * or the kernel was short of memory). */
#define ACCEPT_RETRY_MS 100
static struct tw_timer accept_retry;

static void on_accept_retry(struct tw *w, struct tw_timer *t)
{
    (void)w;
    (void)t;
    resume_accepting();
}

static void conn_close(struct conn *c, uint64_t *counter)
{
    if (!opt.no_timers)
        tw_stop(tw, &c->timer); /* a closed connection's timer never fires */
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->prev->next = c->next;
    c->next->prev = c->prev;
    (*counter)++;
    st.open--;
    free(c);
    resume_accepting(); /* a descriptor is free again */
}

/* Ask epoll for what the connection can use now: its input while it takes
 * requests and has room to answer them (a client that sends faster than
 * it reads is read no further), its output while answers wait.  A call
 * only when that changes. */
static void watch(struct conn *c)
{
    uint32_t want = (c->out_len ? EPOLLOUT : 0u) |
                    (!c->closing && c->in_len < IN_MAX && OUT_MAX - c->out_len >= ANSWER_MAX
                         ? EPOLLIN
                         : 0u);
    if (want != c->events) {
        struct epoll_event ev = {.events = want, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
        c->events = want;
    }
}

static int on_readable(struct conn *c);

static void on_timer(struct tw *w, struct tw_timer *t)
{
    (void)w;
    struct conn *c = tw_container_of(t, struct conn, timer);
    if (c->phase == PH_HEADER) {
        /* A request that has arrived is served, not dropped: under load
         * its readiness may wait in a later batch of events than the
         * timer's expiry (epoll_wait returns 256 at a time).  A
         * connection with no whole request in by now is closed, and so is
         * one whose last answer cannot go out now (it has no timer left). */
        uint64_t before = st.requests;
        if (on_readable(c) == 0 && (st.requests == before || c->closing))
            conn_close(c, c->bad ? &st.closed_bad : &st.closed_header);
        return;
    }
    uint64_t now = mono_ns(), due = c->idle_ns + opt.idle_ms * 1000000u;
    if (now < due) {
        late_early++;
    } else {
        uint64_t b = (now - due) / LATE_STEP_NS;
        late_hist[b < LATE_BINS ? b : LATE_BINS]++;
    }
    late_n++;
    conn_close(c, &st.closed_idle);
}

/* Queue an answer: serve() has made sure that it fits. */
static void queue_out(struct conn *c, const char *s, size_t n)
{
    memcpy(c->out + c->out_len, s, n);
    c->out_len += n;
}

/* Write what is queued; 0, or -1 when the connection must close now. */
static int flush_out(struct conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t k = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && errno == EAGAIN)
            break;
        if (k <= 0)
            return -1;
        c->out_off += (size_t)k;
    }
    if (c->out_off == c->out_len)
        c->out_len = c->out_off = 0;
    if (c->closing && c->out_len == 0)
        return -1;
    watch(c);
    return 0;
}

/* Does the header name `name` (case-insensitive) have a value containing
 * `value`, in the header block [h, end)? */
static int header_has(const char *h, const char *end, const char *name, const char *value)
{
    size_t nl = strlen(name), vl = strlen(value);
    for (const char *p = h; p < end;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL)
            eol = end;
        if ((size_t)(eol - p) > nl && strncasecmp(p, name, nl) == 0 && p[nl] == ':')
            for (const char *q = p + nl + 1; q + vl <= eol; q++)
                if (strncasecmp(q, value, vl) == 0)
                    return 1;
        p = eol + 1;
    }
    return 0;
}

/* Answer the complete requests in the input, as many as the output has
 * room for (the rest wait for it to drain).  Nothing once the connection
 * is closing: its last answer is queued. */
static void serve(struct conn *c)
{
    while (!c->closing && OUT_MAX - c->out_len >= ANSWER_MAX) {
        char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
        if (end == NULL) {
            if (c->in_len == IN_MAX) {
                queue_out(c, too_big, sizeof too_big - 1);
                c->closing = c->bad = 1;
            }
            break;
        }
        size_t used = (size_t)(end - c->in) + 4;
        const char *sp1 = memchr(c->in, ' ', used), *eol = memchr(c->in, '\r', used);
        int http10 = 0, ok = sp1 && eol && !strncmp(c->in, "GET ", 4);
        if (ok) {
            const char *v = eol - 8;
            ok = v > sp1 && (!strncmp(v, "HTTP/1.1", 8) || (http10 = !strncmp(v, "HTTP/1.0", 8)));
        }
        if (!ok) {
            queue_out(c, bad, sizeof bad - 1);
            c->closing = c->bad = 1;
            break;
        }
        st.requests++;
        int close_after = header_has(c->in, end, "Connection", "close") ||
                          (http10 && !header_has(c->in, end, "Connection", "keep-alive"));
        if (close_after) {
            queue_out(c, reply_close, sizeof reply_close - 1);
            c->closing = 1;
            break;
        }
        queue_out(c, reply, sizeof reply - 1);
        memmove(c->in, c->in + used, c->in_len - used);
        c->in_len -= used;
    }
}

/* Read what has come, serve the whole requests, re-arm the timer; 1 if
 * that closed (and freed) c, else 0.  Reads nothing once the connection is
 * closing (its input is done with) or its input is full (it waits for
 * room in the output). */
static int on_readable(struct conn *c)
{
    for (;;) {
        if (c->in_len == IN_MAX || c->closing)
            break;
        ssize_t k = read(c->fd, c->in + c->in_len, IN_MAX - c->in_len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && errno == EAGAIN)
            break;
        if (k <= 0) { /* EOF (a half-close too) or a reset */
            conn_close(c, &st.closed_client);
            return 1;
        }
        c->in_len += (size_t)k;
        if ((size_t)k < IN_MAX)
            break;
    }
    uint64_t before = st.requests;
    for (;;) {
        uint64_t served = st.requests;
        serve(c);
        if (flush_out(c) < 0) {
            conn_close(c, c->bad ? &st.closed_bad : &st.closed_client);
            return 1;
        }
        /* The answers are out and requests may have waited for room for
         * them (a client that pipelines many): serve those too. */
        if (c->out_len > 0 || c->in_len == 0 || c->closing || st.requests == served)
            break;
    }
    /* A request is incomplete (or waits for room to answer it): the
     * header clock runs from its first byte (this read), unless it
     * already runs for this very request (from the accept, or from an
     * earlier read). */
    if (c->in_len > 0 && !c->closing && (c->phase == PH_IDLE || st.requests != before) &&
        timer_start(c, PH_HEADER) != 0) {
        conn_close(c, &st.closed_timer);
        return 1;
    }
    /* the keep-alive counts from the answer */
    if (c->in_len == 0 && !c->closing && timer_start(c, PH_IDLE) != 0) {
        conn_close(c, &st.closed_timer);
        return 1;
    }
    return 0;
}

static void on_accept(void)
{
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && errno == EINTR)
            continue;
        if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
                       errno == ENOMEM)) {
            /* Out of descriptors (or kernel memory): the backlog waits
             * until a connection closes (conn_close()) or the retry timer
             * fires.  Left in the set, the listening socket, still
             * readable, would wake every wait at once; taken out with
             * neither to bring it back, it would never return. */
            int retry = !opt.no_timers && arm(&accept_retry, TW_MSEC(ACCEPT_RETRY_MS)) == 0;
            if ((retry || st.open > 0) && epoll_ctl(ep, EPOLL_CTL_DEL, lfd, NULL) == 0) {
                accepting = 0;
                st.accept_paused++;
            }
            return;
        }
        if (fd < 0)
            return; /* EAGAIN: none left; or the client gave up */
        struct conn *c = (long)st.open < opt.max_conns ? malloc(sizeof *c) : NULL;
        if (c == NULL) {
            close(fd);
            continue;
        }
        c->fd = fd;
        c->closing = c->bad = 0;
        c->events = EPOLLIN;
        c->next = conns.next;
        c->prev = &conns;
        conns.next->prev = c;
        conns.next = c;
        c->in_len = c->out_len = c->out_off = 0;
        tw_timer_init(&c->timer, on_timer);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
        st.accepted++;
        if (++st.open > st.max_open)
            st.max_open = st.open;
        if (timer_start(c, PH_HEADER) != 0)
            conn_close(c, &st.closed_timer);
    }
}

/* ---------------------------------------------------------------- main */

static uint64_t num_arg(const char *name, const char *v, uint64_t lo, uint64_t hi)
{
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (*v == '\0' || *end || x < lo || x > hi) {
        char msg[96];
        snprintf(msg, sizeof msg, "bad %s: want %llu to %llu, got", name, (unsigned long long)lo,
                 (unsigned long long)hi);
        usage_error(msg, v);
    }
    return x;
}

static void parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            puts("usage: server [--port N] [--bind ADDR] [--scheme NAME] [--tick-us N] "
                 "[--idle-ms N] [--header-ms N] [--slack-ms N] [--no-timers] [--port-file PATH] "
                 "[--max-conns N]\n"
                 "  --port       TCP port (default 8080; 0: any free one, see --port-file)\n"
                 "  --bind       address (default 127.0.0.1; ::1 for IPv6)\n"
                 "  --scheme     twheel scheme (default hierarchical)\n"
                 "  --tick-us    tick in microseconds (default 1000)\n"
                 "  --idle-ms    keep-alive timeout (default 5000)\n"
                 "  --header-ms  time to send a request's header (default 10000)\n"
                 "  --slack-ms   wake-ups rounded up to this (default 0)\n"
                 "  --no-timers  no timers at all, for comparison\n"
                 "  --port-file  write the port there once listening\n"
                 "  --max-conns  connections at most (default 1048576)\n"
                 "SIGUSR1 prints the counters; SIGINT or SIGTERM closes every connection and "
                 "exits.\n"
                 "e.g.  server --port 8080 &  wrk -t2 -c100 -d5s http://127.0.0.1:8080/");
            exit(0);
        }
        if (!strcmp(a, "--no-timers")) {
            opt.no_timers = 1;
            continue;
        }
        if (v == NULL)
            usage_error("option needs a value", a);
        i++;
        if (!strcmp(a, "--port"))
            opt.port = (int)num_arg(a, v, 0, 65535);
        else if (!strcmp(a, "--bind"))
            opt.bind = v;
        else if (!strcmp(a, "--scheme")) {
            int s = tw_scheme_from_name(v);
            if (s < 0)
                usage_error("unknown --scheme", v);
            opt.scheme = (enum tw_scheme)s;
        } else if (!strcmp(a, "--tick-us"))
            opt.tick_us = num_arg(a, v, 1, 1000000);
        else if (!strcmp(a, "--idle-ms"))
            opt.idle_ms = num_arg(a, v, 1, 86400000);
        else if (!strcmp(a, "--header-ms"))
            opt.header_ms = num_arg(a, v, 1, 86400000);
        else if (!strcmp(a, "--slack-ms"))
            opt.slack_ms = num_arg(a, v, 0, 60000);
        else if (!strcmp(a, "--port-file"))
            opt.port_file = v;
        else if (!strcmp(a, "--max-conns"))
            opt.max_conns = (long)num_arg(a, v, 1, 100000000);
        else
            usage_error("unknown option", a);
    }
}

int main(int argc, char **argv)
{
    parse(argc, argv);
    /* The signals go to a signalfd, blocked from the start: a script that
     * signals as soon as the port file is written must not kill us. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    conns.next = conns.prev = &conns;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max; /* as many connections as allowed */
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    struct tw_config cfg;
    tw_config_init(&cfg, opt.scheme);
    int rc = tw_clock_init(&clk, TW_CLOCK_MONOTONIC, TW_USEC(opt.tick_us));
    if (rc == 0)
        rc = tw_clock_set_slack(&clk, TW_MSEC(opt.slack_ms));
    if (rc == 0)
        rc = tw_clock_create(&tw, &cfg, &clk);
    if (rc != 0) {
        fprintf(stderr, "server: %s\n", tw_strerror(rc));
        return 1;
    }
    tw_timer_init(&accept_retry, on_accept_retry);
    /* A timeout beyond the scheme's range (wheel: MaxInterval ticks) would
     * be refused at every start, and every connection closed at once.  A
     * start from a reading part-way through a tick asks for one tick more
     * than the timeout (the deadline is rounded up: never early). */
    uint64_t longest = opt.idle_ms > opt.header_ms ? opt.idle_ms : opt.header_ms;
    if (!opt.no_timers && tw_clock_ticks(&clk, TW_MSEC(longest)) >= tw_max_interval(tw)) {
        fprintf(stderr, "server: --scheme %s holds timeouts up to %llu ticks of %llu us; "
                        "--idle-ms or --header-ms %llu is longer\n",
                tw_scheme_name(opt.scheme), (unsigned long long)tw_max_interval(tw),
                (unsigned long long)opt.tick_us, (unsigned long long)longest);
        return 2;
    }
    lfd = socket(strchr(opt.bind, ':') ? AF_INET6 : AF_INET,
                     SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_storage ss = {0};
    socklen_t sl;
    if (strchr(opt.bind, ':')) {
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)opt.port);
        if (inet_pton(AF_INET6, opt.bind, &a6->sin6_addr) != 1)
            usage_error("bad --bind", opt.bind);
        sl = sizeof *a6;
    } else {
        struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)opt.port);
        if (inet_pton(AF_INET, opt.bind, &a4->sin_addr) != 1)
            usage_error("bad --bind", opt.bind);
        sl = sizeof *a4;
    }
    if (bind(lfd, (struct sockaddr *)&ss, sl) != 0 || listen(lfd, 4096) != 0) {
        perror("server: bind/listen");
        return 1;
    }
    getsockname(lfd, (struct sockaddr *)&ss, &sl);
    int port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                              : ((struct sockaddr_in *)&ss)->sin_port);
    if (opt.port_file) {
        FILE *f = fopen(opt.port_file, "w");
        if (f == NULL || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0) {
            perror("server: --port-file");
            return 1;
        }
    }
    fprintf(stderr, "server: listening on %s port %d, scheme %s, tick %llu us, idle %llu ms, "
                    "header %llu ms, slack %llu ms%s\n",
            opt.bind, port, tw_scheme_name(opt.scheme), (unsigned long long)opt.tick_us,
            (unsigned long long)opt.idle_ms, (unsigned long long)opt.header_ms,
            (unsigned long long)opt.slack_ms, opt.no_timers ? ", no timers" : "");

    int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &lfd};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    ev.data.ptr = &sfd;
    epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);

    struct epoll_event evs[256];
    for (int running = 1; running;) {
        /* the wait in ns (epoll_pwait2, Linux 5.11), so that it is rounded
         * up to the tick, not to a whole millisecond as epoll_wait's */
        struct timespec ts;
        /* a fresh reading for the wait: one from before this iteration's
         * work would end the wait late by the time that work took */
        if (!opt.no_timers)
            tw_clock_update(&clk);
        int due = opt.no_timers ? 0 : tw_clock_timeout_ts(&clk, tw, 0, &ts);
#ifdef TW_HAVE_EPOLL_PWAIT2
        int n = epoll_pwait2(ep, evs, 256, due == 1 ? &ts : NULL, NULL);
#else /* a libc without it: whole ms */
        (void)due;
        int n = -1;
        errno = ENOSYS;
#endif
        if (n < 0 && errno == ENOSYS) /* an older kernel: whole ms */
            n = epoll_wait(ep, evs, 256, opt.no_timers ? -1 : tw_clock_timeout_ms(&clk, tw));
        st.wakeups++;
        if (!opt.no_timers)
            tw_clock_update(&clk);
        for (int i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;
            if (p == &lfd) {
                on_accept();
            } else if (p == &sfd) {
                struct signalfd_siginfo si;
                while (read(sfd, &si, sizeof si) == sizeof si) {
                    if (si.ssi_signo == SIGUSR1)
                        print_counters(stderr);
                    else
                        running = 0;
                }
            } else {
                struct conn *c = p;
                if (evs[i].events & EPOLLOUT) {
                    if (flush_out(c) < 0) {
                        conn_close(c, c->bad ? &st.closed_bad : &st.closed_client);
                        continue;
                    }
                    /* answers gone: serve the requests that waited for room */
                    if (c->out_len == 0 && c->in_len > 0 && !(evs[i].events & EPOLLIN) &&
                        on_readable(c))
                        continue;
                }
                if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                    on_readable(c);
            }
        }
        if (!opt.no_timers) {
            /* the timers due, and those a start's tw_collect() found due
             * (arm()), through the pull form: their callbacks run here,
             * not inside tw_advance(), so that they may collect too */
            tw_collect(tw, tw_clock_now(&clk));
            struct tw_timer *t;
            while ((t = tw_get_expired(tw)) != NULL) {
                if (t == &accept_retry)
                    on_accept_retry(tw, t);
                else
                    on_timer(tw, t);
            }
        }
    }
    /* close every connection: their timers are stopped, none is left */
    close(lfd);
    accepting = 1; /* no descriptor is wanted back for it */
    if (!opt.no_timers)
        tw_stop(tw, &accept_retry);
    while (conns.next != &conns)
        conn_close(conns.next, &st.closed_exit);
    print_counters(stdout);
    return tw_destroy(tw) == 0 ? 0 : 1;
}
